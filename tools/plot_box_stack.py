#!/usr/bin/env python3
"""Plots Beker et al. 2026 Fig. 10: two stacked boxes, the upper one tilted through the parallel-face configuration, and
where the contact manifold puts its contact point: osculate's smooth blended contact against MuJoCo's box-box
polygon clipping. Writes docs/box_stack.png.

usage (from the repository root, after `make build`):
    sh bench/peers/setup.sh build                              # MuJoCo into build/peers/venv (once; `make bench` does it)
    build/peers/venv/bin/python -m pip install matplotlib     # into that venv, not system-wide (once)
    build/peers/venv/bin/python tools/plot_box_stack.py [--build build] [--out docs/box_stack.png]
`make box-stack-plot` runs these three steps.

The geometry (the same in both programs): two boxes of half extents (0.5, 0.5, 0.25), the lower one at the origin, the
upper one centred at z = 0.49 (0.01 penetration when level) and tilted about the y axis by t, 401 steps of t in
[-0.05, 0.05] rad. The data come from
    BUILD/tools/osculate box-sweep CSV [--hard | --no-blend]   osculate (tools/osculate.c: rounded boxes, rounding
                                                               0.01, collision meshes from osc_collision_mesh_create,
                                                               one convex group per box, osc_manifold_collide)
    python3 bench/peers/mujoco_manifold.py --box-sweep CSV     MuJoCo's mjc_BoxBox (polygon clipping)
into BUILD/box_stack/*.csv (not committed). Curves: the weight-averaged x of the contact points against the tilt for
MuJoCo (plain mean of its contacts), osculate's blended contact (smooth), the same with every temperature and the
bandwidth 0 (hard mode) and without blending (every vertex and edge contact, weighted by f_t); below, d(mean x)/d(tilt)
from osculate's pose Jacobians, checked against central differences of the curve above. When MuJoCo is not set up
the plot is drawn without it and the script says so.
"""

import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_csv(path):
    """Rows of a sweep CSV as dicts of floats (None for empty cells); '#' lines are comments."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for row in csv.DictReader(lines):
        rows.append({key: (float(value) if value not in ("", None) else None) for key, value in row.items() if key})
    return rows


def run_osculate(build, out_dir):
    tool = os.path.join(build, "tools", "osculate")
    if not os.access(tool, os.X_OK):
        sys.exit("plot_box_stack: %s is missing: run `make build` first" % tool)
    paths = {}
    for mode, flags in (("smooth", []), ("hard", ["--hard"]), ("unblended", ["--no-blend"])):
        paths[mode] = os.path.join(out_dir, "osculate_%s.csv" % mode)
        subprocess.run([tool, "box-sweep", paths[mode]] + flags, check=True)
    return {mode: read_csv(path) for mode, path in paths.items()}


def run_mujoco(build, out_dir):
    path = os.path.join(out_dir, "mujoco.csv")
    script = os.path.join(ROOT, "bench", "peers", "mujoco_manifold.py")
    done = subprocess.run([sys.executable, script, "--box-sweep", path, "--peers-dir", os.path.join(build, "peers")],
                          capture_output=True, text=True)
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        report = {"missing": "no JSON from mujoco_manifold.py: " + done.stderr.strip()[-200:]}
    if "missing" in report:
        print("plot_box_stack: MuJoCo is missing (%s); plotting osculate alone. Set it up with "
              "`sh bench/peers/setup.sh %s`." % (report["missing"], build), file=sys.stderr)
        return None, report
    return read_csv(path), report


def column(rows, key):
    return [row[key] for row in rows]


def central_differences(t, y):
    return [(y[i + 1] - y[i - 1]) / (t[i + 1] - t[i - 1]) for i in range(1, len(t) - 1)]


def plot(osculate, mujoco, mujoco_report, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.2, 6.4), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    smooth, hard, unblended = osculate["smooth"], osculate["hard"], osculate["unblended"]
    t = column(smooth, "tilt")

    if mujoco:
        label = "MuJoCo %s box-box (polygon clipping), %d-%d contacts" % (
            mujoco_report.get("version", "?"), mujoco_report.get("ncon_min", 0), mujoco_report.get("ncon_max", 0))
        top.plot(column(mujoco, "tilt"), column(mujoco, "mean_x"), color="#d62728", lw=1.8, drawstyle="steps-mid",
                 label=label)
    top.plot(column(hard, "tilt"), column(hard, "mean_x"), color="#7f7f7f", lw=1.2, ls="--",
             label="osculate, hard mode (temperatures and bandwidth 0)")
    top.plot(column(unblended, "tilt"), column(unblended, "mean_x"), color="#2ca02c", lw=1.2, ls=":",
             label="osculate, every vertex and edge contact (no blending)")
    top.plot(t, column(smooth, "mean_x"), color="#1f77b4", lw=2.2, label="osculate, blended (one group per box)")
    top.set_ylabel("mean contact x")
    top.set_ylim(-0.62, 0.62)
    top.grid(alpha=0.3)
    top.legend(loc="upper left", fontsize=7.5, framealpha=0.9)
    top.set_title("Two stacked boxes (0.01 penetration), upper box tilted about y (Beker et al. 2026 Fig. 10)", fontsize=9.5)

    slope = column(smooth, "dmean_x_dtilt")
    fd = central_differences(t, column(smooth, "mean_x"))
    bottom.plot(t, slope, color="#1f77b4", lw=2.0, label="osculate blended: from the pose Jacobians")
    bottom.plot(t[1:-1:6], fd[::6], ls="none", marker="o", ms=2.6, color="black",
                label="central differences of the curve above")
    bottom.plot(column(hard, "tilt"), column(hard, "dmean_x_dtilt"), color="#7f7f7f", lw=1.2, ls="--",
                label="osculate hard mode: from the pose Jacobians (the jump at 0 is not in it)")
    if mujoco:
        mt, mx = column(mujoco, "tilt"), column(mujoco, "mean_x")
        for i in range(len(mt) - 1):
            if mx[i] is not None and mx[i + 1] is not None and abs(mx[i + 1] - mx[i]) > 0.1:
                for axis in (top, bottom):
                    axis.axvline(0.5 * (mt[i] + mt[i + 1]), color="#d62728", lw=0.8, alpha=0.5)
        bottom.plot([], [], color="#d62728", lw=0.8, alpha=0.5, label="MuJoCo's jumps (infinite slope)")
    bottom.set_xlabel("tilt of the upper box about y (rad)")
    bottom.set_ylabel("d(mean x) / d(tilt)")
    bottom.grid(alpha=0.3)
    bottom.legend(loc="upper left", fontsize=7.5, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the CMake build directory")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "box_stack.png"), help="the PNG to write")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    out_dir = os.path.join(build, "box_stack")
    os.makedirs(out_dir, exist_ok=True)
    osculate = run_osculate(build, out_dir)
    mujoco, report = run_mujoco(build, out_dir)
    plot(osculate, mujoco, report, args.out)
    print("plot_box_stack: wrote %s (data in %s)" % (args.out, out_dir))


if __name__ == "__main__":
    main()
