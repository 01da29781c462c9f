"""bench_python.py: the overhead of the Python binding (python/osculate) on DCOL, against the C
benchmark bench_dcol run in the same session, and against the same C calls made on the same data
from this process.

Workload (the shapes and pose distribution of bench/bench_dcol.c): the seven primitives (a regular
dodecahedron of inradius 0.4, capsule and cylinder of radius 0.2 and 0.3 and half-length 0.4 and
0.35, cone of base radius tan(0.5) and half-length 0.5, ellipsoid of semi-axes (0.5, 1 / sqrt(2),
1 / 3), sphere 0.5, hexagon padded by 0.1), and for each ordered pair configurations with
A uniform in [-1, 1]^3, B at A + s u, u uniform in [-1, 1]^3, orientations uniform, s set so that
the median configuration touches (alpha = 1). Every call computes all six Jacobians.

  single   one capsule-capsule pair per call: osculate.dcol(..., derivatives=True), and the bare
           ctypes call of osc_dcol_proximity on prepared structs (the C work plus the FFI call);
           median per call over the configurations. bench_dcol's capsule-capsule solve_derivs_us
           (its own configurations of the same distribution) is the C figure.
  batch    10,000 pairs cycling through the 49 ordered pairs (as bench_dcol's batch):
           osculate.dcol_batch (list of shapes, [N, 7] poses, all Jacobians; arrays in, arrays out),
           the same with out= (the arrays of an earlier call reused), and osc_dcol_proximity_batch
           called directly on the same prepared buffers; median of 9 calls each (interleaved), on 1
           and 2 threads. The overhead is (wrapper - direct) / direct on identical input; bench_dcol's
           batch-1-thread / batch-2-threads are printed beside them.
  jax      osculate.jax.dcol on the same 10,000 pairs under jit (values only, and value + gradient
           of sum(distance) with respect to both poses), when JAX is installed.

usage: python bench/bench_python.py [--build BUILD] [--poses N]
JSON lines (suite "python") on stdout, a table on stderr. Needs the package installed
(make test does it into BUILD/python-venv) and BUILD/bench/bench_dcol built.
"""

import argparse
import ctypes as C
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

import osculate as osc
from osculate import _ffi as F

BATCH = 10000


def shapes():
    phi = (1 + 5 ** 0.5) / 2
    ico = []
    for a in (-1, 1):
        for b in (-phi, phi):
            ico += [(0, a, b), (a, b, 0), (b, 0, a)]
    ico = np.array(ico, float)
    ico /= np.linalg.norm(ico, axis=1, keepdims=True)
    hexagon = np.array([[np.cos(k * np.pi / 3), np.sin(k * np.pi / 3)] for k in range(6)])
    return {
        "polytope": osc.Convex.polytope(ico, np.full(12, 0.4)),
        "capsule": osc.Convex.capsule(0.2, 0.4),
        "cylinder": osc.Convex.cylinder(0.3, 0.35),
        "cone": osc.Convex.cone(np.tan(0.5), 0.5),
        "ellipsoid": osc.Convex.ellipsoid([0.5, 1.0 / np.sqrt(2.0), 1.0 / 3.0]),
        "sphere": osc.Convex.sphere(0.5),
        "polygon": osc.Convex.polygon(hexagon, np.full(6, 0.4), 0.1),
    }


def random_quaternions(rng, n):
    u1, u2, u3 = rng.random((3, n))
    return np.stack([np.sqrt(1 - u1) * np.sin(2 * np.pi * u2), np.sqrt(1 - u1) * np.cos(2 * np.pi * u2),
                     np.sqrt(u1) * np.sin(2 * np.pi * u3), np.sqrt(u1) * np.cos(2 * np.pi * u3)], axis=1)


def configurations(a, b, n, rng):
    """Poses [n, 7] of A and B, half of them overlapping (bench_dcol's calibration)."""
    pa = np.hstack([rng.uniform(-1, 1, (n, 3)), random_quaternions(rng, n)])
    u = rng.uniform(-1, 1, (n, 3))
    qb = random_quaternions(rng, n)
    pb = np.hstack([pa[:, :3] + u, qb])
    alpha = osc.dcol_batch(a, pa, b, pb).alpha
    s = 1.0 / np.median(alpha)
    pb[:, :3] = pa[:, :3] + s * u
    return pa, pb


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def run_c_benchmark(build, poses):
    exe = os.path.join(build, "bench", "bench_dcol")
    if not os.path.exists(exe):
        print("bench_python: %s is missing (cmake --build %s --target bench_dcol)" % (exe, build), file=sys.stderr)
        return {}
    out = subprocess.run([exe, "--poses", str(poses), "--repeats", "4"], capture_output=True, text=True,
                         check=True).stdout
    figures = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            figures[(r["case"], r["metric"])] = r["value"]
    return figures


def emit(case, metric, value, unit, **extra):
    print(json.dumps(dict(suite="python", case=case, metric=metric, value=round(value, 6), unit=unit, **extra)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--poses", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    kinds = shapes()
    names = list(kinds)
    print("bench_python: %s, %s, Python %s, osculate %s, %d threads by default" % (
        platform.node(), platform.processor() or platform.machine(), platform.python_version(), osc.version(),
        osc.default_thread_count()), file=sys.stderr)

    c = run_c_benchmark(args.build, args.poses)

    # --- single pair: capsule-capsule ---------------------------------------------------------------
    cap = kinds["capsule"]
    pa, pb = configurations(cap, cap, args.poses, rng)
    wrapper, direct = [], []
    settings = F.lib.osc_dcol_settings_default()
    result = F.DcolResult()
    jac = np.zeros((14, 12))
    rows = [jac[k:k + r] for k, r in ((0, 1), (1, 3), (4, 3), (7, 3), (10, 1), (11, 3))]
    keep = [np.ascontiguousarray(r) for r in rows]
    cj = F.DcolJacobians(*[F.ptr(r) for r in keep])
    reps = 20
    for i in range(args.poses):
        fa, fb = pa[i], pb[i]
        ca, cb = F.pose(fa), F.pose(fb)
        osc.dcol(cap, fa, cap, fb, derivatives=True)
        t0 = time.perf_counter()
        for _ in range(reps):
            osc.dcol(cap, fa, cap, fb, derivatives=True)
        t1 = time.perf_counter()
        for _ in range(reps):
            F.lib.osc_dcol_proximity(cap, ca, cap, cb, C.byref(settings), C.byref(result), C.byref(cj), None)
        t2 = time.perf_counter()
        wrapper.append((t1 - t0) / reps)
        direct.append((t2 - t1) / reps)
    w_us, d_us = 1e6 * np.median(wrapper), 1e6 * np.median(direct)
    c_us = c.get(("capsule-capsule", "solve_derivs_us"))
    emit("single-capsule-capsule", "wrapper_us", w_us, "us", peer="bench_dcol", peer_value=c_us)
    emit("single-capsule-capsule", "direct_ctypes_us", d_us, "us", peer="bench_dcol", peer_value=c_us)
    print("\n**Single pair (capsule-capsule, all Jacobians; median us per call)**\n", file=sys.stderr)
    print("| C (bench_dcol) | direct ctypes call | osculate.dcol | osculate.dcol / C |", file=sys.stderr)
    print("|---|---|---|---|", file=sys.stderr)
    print("| %s | %.2f | %.2f | %s |" % ("%.2f" % c_us if c_us else "missing", d_us, w_us,
                                         "%.2f" % (w_us / c_us) if c_us else "-"), file=sys.stderr)

    # --- batch of 10,000 mixed pairs -----------------------------------------------------------------
    per_pair = {}
    for i, na in enumerate(names):
        for j, nb in enumerate(names):
            per_pair[(i, j)] = configurations(kinds[na], kinds[nb], max(args.poses, BATCH // 49 + 1), rng)
    a_list, b_list, pa, pb = [], [], np.zeros((BATCH, 7)), np.zeros((BATCH, 7))
    for k in range(BATCH):
        p = k % 49
        i, j = divmod(p, 7)
        a_list.append(kinds[names[i]])
        b_list.append(kinds[names[j]])
        pa[k], pb[k] = per_pair[(i, j)][0][k // 49], per_pair[(i, j)][1][k // 49]
    # the direct call's buffers, prepared once (what a C caller holds)
    items = np.zeros(BATCH, dtype=F.as_dtype(F.DcolBatchItem))
    items["a"] = [s._as_parameter_ for s in a_list]
    items["b"] = [s._as_parameter_ for s in b_list]
    items["pose_a"], items["pose_b"] = pa, pb
    res = np.zeros(BATCH, dtype=F.as_dtype(F.DcolResult))
    statuses = np.zeros(BATCH, dtype=np.intc)
    jacs = {name: np.zeros((BATCH, r, 12)) for name, r in (("alpha", 1), ("point", 3), ("point_a", 3),
                                                          ("point_b", 3), ("distance", 1), ("normal", 3))}
    js = np.zeros(BATCH, dtype=[(n, np.uintp) for n in jacs])
    for n, arr in jacs.items():
        js[n] = arr.ctypes.data + np.arange(BATCH, dtype=np.uint64) * (arr.shape[1] * 12 * 8)
    print("\n**Batch: 10,000 mixed pairs, all Jacobians (median of 9 calls each, interleaved)**\n", file=sys.stderr)
    print("| threads | C (bench_dcol) us/pair | direct call us/pair | osculate.dcol_batch us/pair | overhead vs direct | "
          "dcol_batch(out=) us/pair | overhead vs direct | dcol_batch / bench_dcol |", file=sys.stderr)
    print("|---|---|---|---|---|---|---|---|", file=sys.stderr)
    for threads in (1, 2):
        def direct_call():
            F.lib.osc_dcol_proximity_batch(items.ctypes.data, BATCH, C.byref(settings), res.ctypes.data,
                                           js.ctypes.data, statuses.ctypes.data, threads)

        def wrapper_call():
            osc.dcol_batch(a_list, pa, b_list, pb, derivatives=True, threads=threads)

        reused = osc.dcol_batch(a_list, pa, b_list, pb, derivatives=True, threads=threads)

        def wrapper_out_call():
            osc.dcol_batch(a_list, pa, b_list, pb, derivatives=True, threads=threads, out=reused)

        direct_call()
        wrapper_call()
        # interleaved so that the shared machine's noise hits all three alike
        td, tw, to = [], [], []
        for _ in range(9):
            td.append(median_time(direct_call, 1))
            tw.append(median_time(wrapper_call, 1))
            to.append(median_time(wrapper_out_call, 1))
        d_pair, w_pair = 1e6 * np.median(td) / BATCH, 1e6 * np.median(tw) / BATCH
        o_pair = 1e6 * np.median(to) / BATCH
        name = "batch-%d-thread%s" % (threads, "s" if threads > 1 else "")
        rate = c.get((name, "pairs_per_s"))
        c_pair = 1e6 / rate if rate else None
        emit(name, "wrapper_us_per_pair", w_pair, "us", peer="direct-call", peer_value=round(d_pair, 6))
        emit(name, "overhead_vs_direct", (w_pair - d_pair) / d_pair, "ratio")
        emit(name, "wrapper_out_us_per_pair", o_pair, "us", peer="direct-call", peer_value=round(d_pair, 6))
        emit(name, "overhead_out_vs_direct", (o_pair - d_pair) / d_pair, "ratio")
        if c_pair:
            emit(name, "wrapper_us_per_pair_vs_bench_dcol", w_pair, "us", peer="bench_dcol",
                 peer_value=round(c_pair, 6))
        print("| %d | %s | %.3f | %.3f | %+.1f%% | %.3f | %+.1f%% | %s |" % (
            threads, "%.3f" % c_pair if c_pair else "missing", d_pair, w_pair, 100 * (w_pair - d_pair) / d_pair,
            o_pair, 100 * (o_pair - d_pair) / d_pair, "%.2f" % (w_pair / c_pair) if c_pair else "-"), file=sys.stderr)

    # --- JAX -------------------------------------------------------------------------------------------
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        import osculate.jax as oj
    except ImportError:
        print("\nJAX: not installed, skipped", file=sys.stderr)
        return 0
    a0, b0 = kinds["polytope"], kinds["capsule"]
    pa0, pb0 = per_pair[(0, 1)]
    n = min(len(pa0), BATCH)
    reps = np.ceil(BATCH / n).astype(int)
    PA = jnp.asarray(np.tile(pa0, (reps, 1))[:BATCH])
    PB = jnp.asarray(np.tile(pb0, (reps, 1))[:BATCH])
    fwd = jax.jit(lambda p, q: oj.dcol(a0, p, b0, q)["distance"])
    grad = jax.jit(jax.grad(lambda p, q: oj.dcol(a0, p, b0, q)["distance"].sum(), argnums=(0, 1)))
    fwd(PA, PB).block_until_ready()
    jax.block_until_ready(grad(PA, PB))
    direct_pa, direct_pb = np.asarray(PA), np.asarray(PB)
    t_np = median_time(lambda: osc.dcol_batch(a0, direct_pa, b0, direct_pb, derivatives=True, threads=0), 5)
    t_f = median_time(lambda: fwd(PA, PB).block_until_ready(), 5)
    t_g = median_time(lambda: jax.block_until_ready(grad(PA, PB)), 5)
    emit("jax-polytope-capsule-10000", "jit_values_us_per_pair", 1e6 * t_f / BATCH, "us")
    emit("jax-polytope-capsule-10000", "jit_value_and_grad_us_per_pair", 1e6 * t_g / BATCH, "us",
         peer="osculate.dcol_batch-derivatives", peer_value=round(1e6 * t_np / BATCH, 6))
    print("\n**JAX (polytope-capsule, 10,000 pairs, default threads; us per pair)**\n", file=sys.stderr)
    print("| dcol_batch with Jacobians | jit(oj.dcol) values | jit(grad(sum distance)) |", file=sys.stderr)
    print("|---|---|---|", file=sys.stderr)
    print("| %.3f | %.3f | %.3f |" % (1e6 * t_np / BATCH, 1e6 * t_f / BATCH, 1e6 * t_g / BATCH), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
