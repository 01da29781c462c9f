"""Draws the gradient benchmarks' figures (docs/gradients_*.png) from results/*.json and writes
results/summary.json, the figures' numbers. Needs matplotlib (the MuJoCo venv of run.sh has it)."""

import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import common as C  # noqa: E402

DOCS = os.path.join(C.HERE, "..", "..", "docs")
METHODS = (("osculate", "osculate (JAX, C Jacobians)", "C0"),
           ("mujoco_fd", "MuJoCo + central differences", "C1"),
           ("mjx", "MJX autodiff (CPU)", "C2"))
TASKS = (("push", "task 1: push a box (manifold + DCOL)"),
         ("strike", "task 3: strike a ball (DCOL)"))


def load(name):
    path = os.path.join(C.RESULTS, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def task_figure(task, title, summary):
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for method, label, color in METHODS:
        r = load(task + "_" + method)
        if r is None:
            continue
        s = summary.setdefault(task, {}).setdefault(method, {})
        finals = []
        for k, run in enumerate(r["runs"]):
            v = np.asarray(run["values"])
            t = np.asarray(run["times"])
            kw = dict(color=color, alpha=0.8, lw=1.2, label=label if k == 0 else None)
            axes[0].semilogy(np.arange(len(v)), v, **kw)
            axes[1].loglog(np.maximum(t, 1e-3), v, **kw)
            finals.append(v[-1])
        s["start"] = [run["values"][0] for run in r["runs"]]
        s["final"] = finals
        s["seconds"] = [run["times"][-1] for run in r["runs"]]
        s["iterations"] = [len(run["values"]) - 1 for run in r["runs"]]
        s["gradient_error"] = [e["error"] for e in r["gradient_error"]]
        s["reference_uncertainty"] = [e["uncertainty"] for e in r["gradient_error"]]
        sw = r["sweep"]
        g = np.asarray(sw["gradients"])
        axes[2].plot(sw["values"], g[:, 0], ".-", color=color, ms=3, lw=1, label=label)
        s["flips"] = sw["flips"]
        if "step_cost" in r:
            s["step_cost"] = r["step_cost"]
        if "fd_step_error" in r:
            s["fd_step_error"] = r["fd_step_error"]
    axes[0].set(xlabel="Adam iteration", ylabel="objective", title=title)
    axes[1].set(xlabel="wall time (s, incl. compilation after the first)", ylabel="objective")
    axes[2].set(xlabel="swept control " + ("u[0, 0] (m/s)" if task == "push" else "u[0] (m/s)"),
                ylabel="d objective / d swept control", title="gradient along a sweep")
    axes[2].axhline(0, color="k", lw=0.5)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_%s.png" % task), dpi=80)
    plt.close(fig)


def summary_figure(summary):
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    labels, values, colors = [], [], []
    for task, _ in TASKS:
        for method, label, color in METHODS:
            s = summary.get(task, {}).get(method)
            if s is None:
                continue
            labels.append("%s\n%s" % (task, method))
            values.append(np.median(s["gradient_error"]))
            colors.append(color)
    axes[0].bar(range(len(values)), values, color=colors)
    axes[0].set_yscale("log")
    axes[0].set_xticks(range(len(values)), labels, fontsize=7)
    axes[0].set(ylabel="relative gradient error (median of seeds)",
                title="against converged central differences")
    for k, (task, _) in enumerate(TASKS):
        s = summary.get(task, {}).get("mujoco_fd")
        if s and "fd_step_error" in s:
            e = s["fd_step_error"]
            axes[1].loglog(e["steps"], e["error"], "o-", label=task, color="C%d" % (k + 3))
    axes[1].set(xlabel="central-difference step", ylabel="relative error",
                title="MuJoCo: finite differences vs their step")
    axes[1].legend(fontsize=7)
    bars, names = [], []
    for task, _ in TASKS:
        o = summary.get(task, {}).get("osculate", {}).get("step_cost")
        m = summary.get(task, {}).get("mujoco_step_cost")
        if o:
            bars += [o["step"], o["step_with_jacobian"]]
            names += ["%s\nosculate step" % task, "%s\nosculate step\n+ Jacobian" % task]
        if m:
            bars += [m["step"], m["transition_fd"]]
            names += ["%s\nmj_step" % task, "%s\nmjd_transitionFD" % task]
    axes[2].bar(range(len(bars)), np.asarray(bars) * 1e6,
                color=["C0", "C0", "C1", "C1"] * len(TASKS))
    axes[2].set_yscale("log")
    axes[2].set_xticks(range(len(bars)), names, fontsize=6)
    axes[2].set(ylabel="microseconds (median)", title="one step, with and without derivatives")
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_summary.png"), dpi=80)
    plt.close(fig)


def main():
    summary = {}
    for task, title in TASKS:
        task_figure(task, title, summary)
        cost = load(task + "_mujoco_step_cost")
        if cost:
            summary.setdefault(task, {})["mujoco_step_cost"] = cost
    summary_figure(summary)
    with open(os.path.join(C.RESULTS, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
