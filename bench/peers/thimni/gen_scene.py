#!/usr/bin/env python3
"""Writes a scene file for thimni_scene (and the C side of the same benchmark) to stdout.

    gen_scene.py spheres N RADIUS EXTENT [--seed S]          N spheres, centres uniform in [0, EXTENT]^3
    gen_scene.py menger  N HALF_SIZE LEVELS EXTENT [--seed S] N Menger sponges, centres uniform in [0, EXTENT]^3

Python's random.Random(S) (Mersenne Twister, default seed 1), three uniform() draws per body in x, y, z order;
coordinates printed with %.9g, so that they read back as the same float32 values everywhere.
The two scenes of Al-Ameri 2025's table:  spheres 1000 1 40   and   menger 100 1 3 12.
"""
import random
import sys


def main(argv):
    seed = 1
    if "--seed" in argv:
        i = argv.index("--seed")
        seed = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    rng = random.Random(seed)
    kind = argv[0] if argv else ""
    if kind == "spheres" and len(argv) == 4:
        n, radius, extent = int(argv[1]), float(argv[2]), float(argv[3])
        print(f"# {n} spheres of radius {radius:g}, centres uniform in [0, {extent:g}]^3, seed {seed}")
        for _ in range(n):
            x, y, z = (rng.uniform(0.0, extent) for _ in range(3))
            print(f"sphere {x:.9g} {y:.9g} {z:.9g} {radius:.9g}")
    elif kind == "menger" and len(argv) == 5:
        n, half, levels, extent = int(argv[1]), float(argv[2]), int(argv[3]), float(argv[4])
        print(f"# {n} Menger sponges of half size {half:g}, {levels} levels, centres uniform in [0, {extent:g}]^3, seed {seed}")
        for _ in range(n):
            x, y, z = (rng.uniform(0.0, extent) for _ in range(3))
            print(f"menger {x:.9g} {y:.9g} {z:.9g} {half:.9g} {levels}")
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
