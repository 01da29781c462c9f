#!/usr/bin/env python3
"""Compares two `bench_dcol --once dump` outputs (the same poses, two builds): for alpha and
distance, the points, the normal and the six Jacobians, the largest difference relative to
max(1, |value|) over every configuration, and the share of lines that are bit for bit equal.

usage: compare_dcol_dumps.py BEFORE AFTER
"""
import sys

FIELDS = [("alpha", 2, 3), ("distance", 3, 4), ("point", 4, 7), ("point_a", 7, 10), ("point_b", 10, 13),
          ("normal", 13, 16)]
start = 16
for name, size in [("d alpha", 12), ("d point", 36), ("d point_a", 36), ("d point_b", 36), ("d distance", 12),
                   ("d normal", 36)]:
    FIELDS.append((name, start, start + size))
    start += size


def main(before_path, after_path):
    worst = {name: (0.0, None) for name, _, _ in FIELDS}
    lines = equal = 0
    with open(before_path) as before, open(after_path) as after:
        for a, b in zip(before, after):
            lines += 1
            if a == b:
                equal += 1
                continue
            x, y = a.split(), b.split()
            if x[:2] != y[:2]:
                sys.exit("the dumps list different configurations: " + " ".join(x[:2]) + " / " + " ".join(y[:2]))
            u, v = [float(t) for t in x[2:]], [float(t) for t in y[2:]]
            for name, lo, hi in FIELDS:
                for i in range(lo - 2, hi - 2):
                    diff = abs(u[i] - v[i]) / max(1.0, abs(u[i]))
                    if diff > worst[name][0]:
                        worst[name] = (diff, " ".join(x[:2]))
    print(f"{lines} configurations, {equal} bit for bit equal")
    for name, _, _ in FIELDS:
        diff, where = worst[name]
        print(f"{name:12s} {diff:.2e}" + (f"  (pair, pose {where})" if where else ""))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
