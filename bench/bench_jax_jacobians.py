"""bench_jax_jacobians.py: jax.jacrev and jax.jacfwd of each padded query's output at its default
capacity (one row per slot), against the query alone, in osculate.jax.

  output              workload (the pairs of python/tests/test_jax_ffi.py's query_cases)
  manifold.distance   a sphere body (SDF 0.5, a 200-triangle collision mesh) against itself,
  manifold.point      centres 0.96 apart: capacity osculate.max_contacts = 804 slots
  dcol.point          a box (0.5, 0.4, 0.3) and a capsule (0.2, 0.5): 3 rows
  sdf_pair.distance   an SDF sphere 0.5 and a rounded SDF box, temperature 0.05: capacity 16
  lmd.distance        a B-Rep box (1, 2, 0.5) and a B-Rep sphere 0.3: capacity 32

Each function is jax.jit-compiled once; a round times 20 calls of the query and 3 calls of each
Jacobian, as process CPU time per call (all threads: XLA's and the handlers'), and the figure is
the median over the rounds. The outputs can be saved (--save PREFIX: PREFIX.NAME.npz holding
query, jacrev and jacfwd) to compare two builds bit for bit. To compare builds on a loaded
machine, run it alternately with each build's python/ on PYTHONPATH and its _osculate.so in
OSCULATE_LIBRARY, and take the median of the runs (docs/BENCHMARKS.md).

  python bench/bench_jax_jacobians.py [--rounds 5] [--save PREFIX] [--json FILE]
"""

import argparse
import json
import time

import jax
import jax.numpy as jnp
import numpy as np

import osculate as osc
import osculate.jax as oj

jax.config.update("jax_enable_x64", True)


def pose(p, axis, angle):
    return jnp.array(osc.pose(p, osc.axis_angle_quaternion(axis, angle)))


def cases():
    """The models (kept alive) and [(name, function of pose_b, pose_b)]."""
    sdf = osc.SDF.sphere(0.5)
    body = osc.Body(osc.collision_mesh(sdf, resolution=24, target_triangles=200), sdf=sdf)
    pa, pb = pose([0, 0, 0], [1, 2, 3], 0.3), pose([0.96, 0.05, -0.02], [0, 1, 0], 0.5)
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.5)
    sa, sb = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    brep_a, brep_b = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    qa, qb = pose([0, 0, 0], [1, 0, 0], 0.2), pose([0.6, 0.1, 0.2], [0, 1, 1], 0.4)
    ra, rb = pose([0.1, 0.2, 0.3], [0, 0, 1], 0), pose([0.8, 0.25, 0.3], [0, 0, 1], 0.2)
    la, lb = pose([0.1, -0.2, 0.05], [1, 2, 3], 0.3), pose([0.3, 0.1, 1.2], [0, 0, 1], 0.0)
    models = (body, a, b, sa, sb, brep_a, brep_b)
    return models, [
        ("manifold.distance", lambda p: oj.manifold(body, pa, body, p)["distance"], pb),
        ("manifold.point", lambda p: oj.manifold(body, pa, body, p)["point"], pb),
        ("dcol.point", lambda p: oj.dcol(a, qa, b, p, outputs=("point",))["point"], qb),
        ("sdf_pair.distance",
         lambda p: oj.sdf_pair(sa, ra, sb, p, temperature=0.05)["distance"], rb),
        ("lmd.distance", lambda p: oj.lmd(brep_a, la, brep_b, p)["distance"], lb)]


def cpu_per_call(f, p, reps):
    """Process CPU seconds per call of f(p), after one call."""
    jax.block_until_ready(f(p))
    start = time.process_time()
    for _ in range(reps):
        jax.block_until_ready(f(p))
    return (time.process_time() - start) / reps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--save", help="PREFIX: save each output's arrays as PREFIX.NAME.npz")
    parser.add_argument("--json", help="write the medians (seconds) to this file")
    args = parser.parse_args()
    models, todo = cases()
    medians = {}
    print("| output | rows | query | jacrev | jacfwd |\n|---|---:|---:|---:|---:|")
    for name, f, p in todo:
        fns = {"query": jax.jit(f), "jacrev": jax.jit(jax.jacrev(f)),
               "jacfwd": jax.jit(jax.jacfwd(f))}
        arrays = {k: np.asarray(g(p)) for k, g in fns.items()}
        if args.save:
            np.savez(args.save + "." + name + ".npz", **arrays)
        times = {k: [] for k in fns}
        for _ in range(args.rounds):
            for k, g in fns.items():
                times[k].append(cpu_per_call(g, p, 20 if k == "query" else 3))
        medians[name] = {k: float(np.median(v)) for k, v in times.items()}
        print("| %s | %d | %s |" % (name, arrays["query"].size, " | ".join(
            "%.3f ms" % (1e3 * medians[name][k]) for k in fns)), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(medians, out, indent=1)


if __name__ == "__main__":
    main()
