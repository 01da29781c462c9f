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
        s["sweep_largest_swept_component"] = float(np.max(np.abs(g[:, 0])))
        if "step_cost" in r:
            s["step_cost"] = r["step_cost"]
        if "fd_step_error" in r:
            s["fd_step_error"] = r["fd_step_error"]
    axes[0].set(xlabel="Adam iteration", ylabel="objective", title=title)
    axes[1].set(xlabel="wall time (s; compilation excluded)", ylabel="objective")
    axes[2].set(xlabel="swept control " + ("u[0, 0] (m/s)" if task == "push" else "u[0] (m/s)"),
                ylabel="d objective / d swept control", title="gradient along a sweep")
    axes[2].axhline(0, color="k", lw=0.5)
    # symmetric log where a finite difference across a jump of the objective (jump / (2 step))
    # is far beyond the smooth gradients' scale
    low, high = axes[2].get_ylim()
    if max(abs(low), abs(high)) > 1.0:
        axes[2].set_yscale("symlog", linthresh=0.05)
        axes[2].set_yticks([t for t in (-1e4, -1e2, -1.0, -0.04, 0.0, 0.04, 1.0, 1e2, 1e4)
                            if low <= t <= high])
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_%s.png" % task), dpi=80)
    plt.close(fig)


def summary_figure(summary):
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    labels, values, floors, colors = [], [], [], []
    for task, _ in TASKS + (("meshes", ""),):
        for method, label, color in METHODS:
            s = summary.get(task, {}).get(method)
            if s is None or not s.get("gradient_error"):
                continue
            labels.append("%s %s" % (task, method))
            values.append(max(np.median(s["gradient_error"]), 1e-12))
            floors.append(np.median(s["reference_uncertainty"]))
            colors.append(color)
    y = np.arange(len(values))
    axes[0].barh(y, values, color=colors, height=0.6)
    axes[0].plot(floors, y, "k|", ms=14, label="the reference's own uncertainty")
    axes[0].set_xscale("log")
    axes[0].set_yticks(y, labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].legend(fontsize=7)
    axes[0].set(xlabel="relative gradient error at the starts (median)",
                title="against converged central differences")
    for k, (task, _) in enumerate(TASKS):
        r = load(task + "_fd_steps")
        if r is None:
            continue
        steps = np.asarray(r["steps"])
        label = task + ", MuJoCo vs step 1e-8"
        rows = []
        for seed, grads in zip(r["seeds"], r["gradients"]):
            g = np.asarray(grads)
            err = np.linalg.norm(g - g[-1], axis=1) / np.linalg.norm(g[-1])
            rows.append(err.tolist())
            axes[1].loglog(steps[:-1], np.maximum(err[:-1], 1e-12), "o-", ms=3,
                           color="C%d" % (k + 3), label=label if seed == r["seeds"][0] else None)
        summary.setdefault(task, {})["fd_step_error"] = dict(
            steps=steps.tolist(), seeds=r["seeds"], error_vs_smallest_step=rows)
        o = load(task + "_osculate_fd_steps")
        if o is None:
            continue
        rows = []
        for seed, grads, exact in zip(o["seeds"], o["gradients"], o["autodiff"]):
            g, exact = np.asarray(grads), np.asarray(exact)
            err = np.linalg.norm(g - exact, axis=1) / np.linalg.norm(exact)
            rows.append(err.tolist())
            axes[1].loglog(steps, np.maximum(err, 1e-12), "s--", ms=3, color="C%d" % (k + 3),
                           alpha=0.6, label=task + ", osculate vs its autodiff"
                           if seed == o["seeds"][0] else None)
        summary[task]["osculate_fd_step_error"] = dict(
            steps=o["steps"], seeds=o["seeds"], error_vs_autodiff=rows)
    axes[1].set(xlabel="central-difference step",
                ylabel="relative gradient error",
                title="central differences vs their step")
    axes[1].legend(fontsize=7)
    bars, names, colors = [], [], []
    for task, _ in TASKS:
        o = summary.get(task, {}).get("osculate", {}).get("step_cost")
        m = summary.get(task, {}).get("mujoco_step_cost")
        if o:
            bars += [o["step"], o["step_with_jacobian"]]
            names += ["%s: osculate step" % task, "%s: osculate step + Jacobian" % task]
            colors += ["C0", "C0"]
        if m:
            bars += [m["step"], m["transition_fd"]]
            names += ["%s: mj_step" % task, "%s: mjd_transitionFD" % task]
            colors += ["C1", "C1"]
    y = np.arange(len(bars))
    axes[2].barh(y, np.asarray(bars) * 1e6, color=colors, height=0.6)
    axes[2].set_xscale("log")
    axes[2].set_yticks(y, names, fontsize=7)
    axes[2].invert_yaxis()
    axes[2].set(xlabel="microseconds (median)", title="one step, with and without derivatives")
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_summary.png"), dpi=80)
    plt.close(fig)


def table(summary):
    """The figures as the Markdown table of docs/gradients.md."""
    lines = ["| task | method | objective: start -> end (median of seeds; range of ends) | "
             "seconds for the run (median) | gradient error (median) | direction flips | "
             "sign flips of the swept component |", "|---|---|---|---|---|---|---|"]
    for task, _ in TASKS + (("meshes", ""),):
        for method in ("osculate", "mujoco_fd", "mjx", "osculate_fd"):
            s = summary.get(task, {}).get(method)
            if not s:
                continue
            err = "%.1e" % np.median(s["gradient_error"]) if s.get("gradient_error") else "-"
            flips = s.get("flips", {})
            lines.append("| %s | %s | %.2e -> %.2e (%.2e .. %.2e) | %.3g | %s | %s | %s |" % (
                task, method, np.median(s["start"]), np.median(s["final"]), min(s["final"]),
                max(s["final"]), np.median(s["seconds"]), err,
                "%.2f" % flips["direction"] if flips else "-",
                "%.2f" % flips["component"] if flips else "-"))
    return "\n".join(lines)


def meshes_figure(summary):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for method, label, color in (("osculate", "osculate gradient", "C0"),
                                 ("osculate_fd", "central differences (72 evaluations)", "C1")):
        r = load("meshes_" + method)
        if r is None:
            continue
        s = summary.setdefault("meshes", {}).setdefault(method, {})
        for k, run in enumerate(r["runs"]):
            v, t = np.asarray(run["values"]), np.asarray(run["times"])
            kw = dict(color=color, lw=1.2, alpha=0.8, label=label if k == 0 else None)
            axes[0].semilogy(np.arange(len(v)), v, **kw)
            axes[1].loglog(np.maximum(t, 1e-3), v, **kw)
        s["start"] = [run["values"][0] for run in r["runs"]]
        s["final"] = [run["values"][-1] for run in r["runs"]]
        s["seconds"] = [run["times"][-1] for run in r["runs"]]
        s["final_wrench"] = [run["final_wrench"] for run in r["runs"]]
        if "gradient_error" in r:
            s["gradient_error"] = [e["error"] for e in r["gradient_error"]]
            s["reference_uncertainty"] = [e["uncertainty"] for e in r["gradient_error"]]
    if "meshes" not in summary:
        plt.close(fig)
        return
    axes[0].set(xlabel="Adam iteration", ylabel="objective",
                title="task 2: bunny onto the teapot (manifold)")
    axes[1].set(xlabel="wall time (s)", ylabel="objective")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_meshes.png"), dpi=80)
    plt.close(fig)


def main():
    summary = {}
    for task, title in TASKS:
        task_figure(task, title, summary)
        cost = load(task + "_mujoco_step_cost")
        if cost:
            summary.setdefault(task, {})["mujoco_step_cost"] = cost
    meshes_figure(summary)
    summary_figure(summary)
    with open(os.path.join(C.RESULTS, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(table(summary))


if __name__ == "__main__":
    main()
