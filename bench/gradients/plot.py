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
           ("mjx", "MJX autodiff (CPU)", "C2"),
           ("osculate_fd", "osculate + central differences", "C3"),
           ("mujoco_fd_coarse", "MuJoCo + central differences, step 1e-3", "C4"))
# (task, title, the swept control's label, its index in the flattened gradient)
TASKS = (("push", "task 1: push a box (manifold + DCOL)", "u[0, 0] (m/s)", 0),
         ("strike", "task 3: strike a ball (DCOL)", "u[0] (m/s)", 0),
         ("meshes", "task 2: bunny onto the teapot (manifold; MuJoCo sdf)",
          "last waypoint's height offset x[5, 1] (m)", 31))


def load(name):
    path = os.path.join(C.RESULTS, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def task_figure(task, title, swept, component, summary):
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
        s["seeds"] = [run["seed"] for run in r["runs"]]
        if "final_wrench" in r["runs"][0]:
            s["final_wrench"] = [run["final_wrench"] for run in r["runs"]]
        if "gradient_error" in r:
            s["gradient_error"] = [e["error"] for e in r["gradient_error"]]
            s["gradient_error_seeds"] = [e["seed"] for e in r["gradient_error"]]
            s["reference_uncertainty"] = [e["uncertainty"] for e in r["gradient_error"]]
        if "gradient_error_end" in r:
            s["gradient_error_end"] = [e["error"] for e in r["gradient_error_end"]]
            s["reference_uncertainty_end"] = [e["uncertainty"] for e in r["gradient_error_end"]]
        if "sweep" in r:
            sw = r["sweep"]
            g = np.asarray(sw["gradients"])
            axes[2].plot(sw["values"], g[:, component], ".-", color=color, ms=3, lw=1,
                         label=label)
            s["flips"] = sw["flips"]
            s["sweep_points"] = len(sw["values"])
            s["sweep_largest_swept_component"] = float(np.max(np.abs(g[:, component])))
        if "model" in r:
            s["model"] = r["model"]
        if "fd_step_error" in r:
            s["fd_step_error"] = r["fd_step_error"]
    axes[0].set(xlabel="Adam iteration", ylabel="objective", title=title)
    axes[1].set(xlabel="wall time (s; compilation excluded)", ylabel="objective")
    axes[2].set(xlabel="swept: " + swept, ylabel="d objective / d swept variable",
                title="gradient along a sweep")
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
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    labels, values, worst, floors, colors = [], [], [], [], []
    for task, *_ in TASKS:
        for method, label, color in METHODS:
            s = summary.get(task, {}).get(method)
            if s is None or not s.get("gradient_error"):
                continue
            labels.append("%s %s" % (task, method))
            values.append(max(np.median(s["gradient_error"]), 1e-12))
            worst.append(max(max(s["gradient_error"]), 1e-12))
            floors.append(np.median(s["reference_uncertainty"]))
            colors.append(color)
    y = np.arange(len(values))
    axes[0].barh(y, values, color=colors, height=0.6)
    axes[0].plot(worst, y, "kx", ms=6, label="the largest of the seeds")
    axes[0].plot(floors, y, "k|", ms=14, label="the reference's own uncertainty")
    axes[0].set_xscale("log")
    axes[0].set_yticks(y, labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].legend(fontsize=7)
    axes[0].set(xlabel="relative gradient error at the starts (bars: median)",
                title="against converged central differences")
    for k, (task, *_) in enumerate(TASKS):
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
    mesh = summary.get("meshes", {}).get("mujoco_fd", {}).get("fd_step_error")
    if mesh:
        axes[1].loglog(mesh["steps"], np.maximum(mesh["error"], 1e-12), "^-", ms=3, color="C5",
                       label="meshes, MuJoCo sdf vs converged (seed 0's end)")
    axes[1].set(xlabel="central-difference step",
                ylabel="relative gradient error",
                title="central differences vs their step")
    axes[1].legend(fontsize=7)
    cost = load("step_cost")
    bars, names, colors = [], [], []
    for task in ("push", "strike"):
        for name, color in (("osculate step", "C0"), ("osculate step + VJP", "C0"),
                            ("osculate step + Jacobian", "C0"), ("mj_step", "C1"),
                            ("mjd_transitionFD", "C1"), ("MJX step", "C2"),
                            ("MJX step + Jacobian", "C2")):
            if cost and name in cost.get(task, {}):
                bars.append(cost[task][name]["median"])
                names.append("%s: %s" % (task, name))
                colors.append(color)
    if cost:
        summary["step_cost"] = cost
    y = np.arange(len(bars))
    axes[2].barh(y, np.asarray(bars) * 1e6, color=colors, height=0.6)
    axes[2].set_xscale("log")
    axes[2].set_yticks(y, names, fontsize=7)
    axes[2].invert_yaxis()
    axes[2].set(xlabel="CPU time per call (us, median)",
                title="one step, with and without derivatives")
    fig.tight_layout()
    fig.savefig(os.path.join(DOCS, "gradients_summary.png"), dpi=80)
    plt.close(fig)


def table(summary):
    """The figures as the Markdown table of docs/gradients.md."""
    lines = ["| task | method | seeds x iterations | objective: start -> end (median of seeds; "
             "range of ends) | seconds for the run (median) | gradient error at the starts: "
             "median (max) | direction flips | sign flips of the swept component |",
             "|---|---|---|---|---|---|---|---|"]
    for task, *_ in TASKS:
        for method in ("osculate", "osculate_fd", "mujoco_fd", "mujoco_fd_coarse", "mjx"):
            s = summary.get(task, {}).get(method)
            if not s:
                continue
            err = ("%.1e (%.1e)" % (np.median(s["gradient_error"]), max(s["gradient_error"]))
                   if s.get("gradient_error") else "-")
            if s.get("gradient_error") and len(s["gradient_error"]) < len(s["final"]):
                err += " (seed %s)" % ",".join(map(str, s["gradient_error_seeds"]))
            flips = s.get("flips", {})
            sweep = " (%d points)" % s["sweep_points"] if flips else ""
            runs = " + ".join("%d x %d" % (s["iterations"].count(n), n)
                              for n in sorted(set(s["iterations"]), reverse=True))
            lines.append("| %s | %s | %s | %.2e -> %.2e (%.2e .. %.2e) | %.3g | %s | %s%s | "
                         "%s |" % (
                             task, method, runs,
                             np.median(s["start"]), np.median(s["final"]), min(s["final"]),
                             max(s["final"]), np.median(s["seconds"]), err,
                             "%.2f" % flips["direction"] if flips else "-", sweep,
                             "%.2f" % flips["component"] if flips else "-"))
    return "\n".join(lines)


def common_iterations(summary):
    """Per task, each method's median objective at the fewest iterations any method's run of the
    task has (MJX's shortened push runs): the comparison at equal iteration counts."""
    lines = []
    for task, *_ in TASKS:
        methods = {m: s for m, s in summary.get(task, {}).items() if isinstance(s, dict)
                   and "iterations" in s}
        if not methods:
            continue
        n = min(min(s["iterations"]) for s in methods.values())
        for method, s in methods.items():
            r = load(task + "_" + method)
            at = [run["values"][n] for run in r["runs"]]
            s["objective_at_common_iterations"] = dict(iterations=n, values=at)
        lines.append("%s at iteration %d: " % (task, n) + ", ".join(
            "%s %.2e" % (m, np.median(s["objective_at_common_iterations"]["values"]))
            for m, s in methods.items()))
    return "\n".join(lines)


def main():
    summary = {}
    for task, title, swept, component in TASKS:
        task_figure(task, title, swept, component, summary)
    summary_figure(summary)
    common = common_iterations(summary)
    with open(os.path.join(C.RESULTS, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(table(summary))
    print(common)


if __name__ == "__main__":
    main()
