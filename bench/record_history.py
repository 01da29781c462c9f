#!/usr/bin/env python3
"""Appends a benchmark run to bench/history/<family>.jsonl.

Reads the figures `make bench` wrote (build/bench/results.jsonl: one JSON object per line,
{"suite", "case", "metric", "value", "unit"} and for side-by-side figures "peer", "peer_value"),
adds "date", "commit", "machine" and "note" to each, and appends it to the history file of its
query family (bench/history/README.md). Nothing else is changed; run it once per run you mean to
keep, then commit the history files with the BENCHMARKS.md update they go with.

    python3 bench/record_history.py [--results build/bench/results.jsonl] [--machine TEXT]
                                    [--note TEXT] [--date YYYY-MM-DD] [--commit HASH] [--dry-run]
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HISTORY = os.path.join(HERE, "history")

# the history file of each suite the benchmark programs print; any other suite gets a file of its own
FAMILY = {
    "sdf": "sdf", "isosurface": "sdf",
    "grid": "grid", "mesh_bvh": "grid",
    "mesh": "mesh", "simplify": "mesh",
    "manifold": "manifold",
    "dcol": "dcol", "dcol_smoothing": "dcol",
    "sdf_scene_spheres": "sdf_pair", "sdf_scene_menger": "sdf_pair", "sdf_pair_accuracy": "sdf_pair",
    "ray": "ray",
    "lmd": "lmd",
    "python": "python", "python-frontends": "python",
}
ORDER = ["suite", "case", "metric", "value", "unit", "peer", "peer_value"]


def git(*args):
    """the output of a git command in the repository, or None when git cannot answer"""
    try:
        return subprocess.check_output(["git", "-C", ROOT] + list(args), stderr=subprocess.DEVNULL,
                                       text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def current_commit():
    """HEAD's short hash, with "-dirty" when tracked files differ from it"""
    head = git("rev-parse", "--short", "HEAD")
    if head and git("status", "--porcelain", "--untracked-files=no"):
        head += "-dirty"
    return head


def this_machine():
    """architecture, core count and CPU model, as bench/run.sh prints them"""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    parts = [platform.machine(), "%d cores" % (os.cpu_count() or 0)]
    if model:
        parts.append(model)
    return ", ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default=os.path.join(ROOT, "build", "bench", "results.jsonl"))
    parser.add_argument("--machine", help="the machine in words (default: architecture, cores, CPU model; "
                                          "add the OS and compiler when they differ from the usual ones)")
    parser.add_argument("--note", default="make bench", help="a few words on the run")
    parser.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    parser.add_argument("--commit", help="the commit measured (default: HEAD, -dirty when modified)")
    parser.add_argument("--dry-run", action="store_true", help="print the records instead of appending them")
    args = parser.parse_args()

    commit = args.commit or current_commit()
    machine = args.machine or this_machine()
    records = {}
    with open(args.results) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                figure = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit("%s:%d: not JSON (%s)" % (args.results, number, error))
            if not all(key in figure for key in ("suite", "case", "metric", "value", "unit")):
                sys.exit("%s:%d: a figure needs suite, case, metric, value and unit" % (args.results, number))
            out = {key: figure[key] for key in ORDER if key in figure}
            out.update({key: value for key, value in figure.items() if key not in out})
            out["date"] = args.date
            if commit:
                out["commit"] = commit
            out["machine"] = machine
            out["note"] = args.note
            family = FAMILY.get(figure["suite"], figure["suite"])
            records.setdefault(family, []).append(out)

    for family, lines in sorted(records.items()):
        path = os.path.join(HISTORY, family + ".jsonl")
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines)
        if args.dry_run:
            sys.stdout.write(text)
        else:
            os.makedirs(HISTORY, exist_ok=True)
            with open(path, "a") as f:
                f.write(text)
        print("%s: %d figures" % (os.path.relpath(path, ROOT), len(lines)), file=sys.stderr)


if __name__ == "__main__":
    main()
