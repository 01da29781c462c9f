"""bench_python_frontends.py: what osculate.jax and osculate.torch add to the C query they call,
for the two cases where that cost was largest: a contact manifold of two meshes in contact
differentiated in reverse mode, and a single DCOL pair under jax.jit.

Workload:
  manifold  two bodies of data/bunny.obj (Body.from_mesh: the spline SDF at resolution 64 and a
            collision mesh of about 2,000 triangles; size about 9.9), B at (0, 0, 0.75 x A's
            z extent) turned 0.3 rad about (1, 1, 0): 74 contacts. Each front end differentiates
            E = sum(weight * distance) with respect to both raw poses, at the default capacity
            (osculate.max_contacts: 8,004 slots here) and at capacity 256:
              numpy       osculate.manifold_collide(..., derivatives=True) (the C query with pose
                          Jacobians, twist columns) and manifold_collide_batch of one pair (what
                          the front ends call)
              jax         jax.jit(jax.grad(E, argnums=(0, 1))) (64-bit floats)
              torch       E.backward() on float64 poses, forward included
  dcol      one capsule-capsule pair (radius 0.2, half-length 0.4) touching: osculate.dcol(...,
            derivatives=True) (NumPy), jax.jit of osculate.jax.dcol's distance, and
            jax.jit(jax.grad(distance)) with respect to both poses, and for reference a jit of one
            jax.pure_callback that doubles a [7] array (the floor of any host call under jit);
            each timed as a loop of 1,000 calls in the default environment (no OMP_* variables),
            the figure per call.

Every figure is the median over --rounds rounds of the mean over a round's calls.
usage: python bench/bench_python_frontends.py [--rounds 7] [--model data/bunny.obj]
JSON lines (suite "python-frontends") on stdout, a table on stderr. Needs the package installed
(sh python/run_tests.sh build puts it into build/python-venv), JAX, and PyTorch for its rows.
"""

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

import osculate as osc


def emit(case, metric, value, unit):
    print(json.dumps(dict(suite="python-frontends", case=case, metric=metric,
                          value=round(value, 3), unit=unit)))


def per_call(fn, calls, rounds):
    """Median over rounds of the mean time of `calls` calls of fn, in microseconds."""
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls)
    return 1e6 * float(np.median(times))


def bunny_pair(path):
    body = osc.Body.from_mesh(path)
    v = body.collision_mesh.vertices
    extent = v.max(axis=0) - v.min(axis=0)
    pa = osc.pose()
    pb = osc.pose([0.0, 0.0, 0.75 * extent[2]], osc.axis_angle_quaternion([1, 1, 0], 0.3))
    return body, pa, pb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "..", "data", "bunny.obj"))
    args = ap.parse_args()
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    import osculate.jax as oj
    try:
        import torch
        import osculate.torch as ot
    except ImportError:
        torch = None
    print("bench_python_frontends: %s, %s, Python %s, osculate %s, JAX %s, PyTorch %s, %d threads"
          % (platform.node(), platform.processor() or platform.machine(),
             platform.python_version(), osc.version(), jax.__version__,
             torch.__version__ if torch else "missing", osc.default_thread_count()),
          file=sys.stderr)
    rows = []

    def record(case, front, us):
        emit(case, front + "_us", us, "us")
        rows.append((case, front, us))

    body, pa, pb = bunny_pair(args.model)
    count = len(osc.manifold_collide(body, pa, body, pb))
    default_cap = osc.max_contacts(body, body)
    print("manifold: %d contacts, default capacity %d" % (count, default_cap), file=sys.stderr)
    for cap, label in ((None, "default capacity %d" % default_cap), (256, "capacity 256")):
        case = "manifold-bunny-%s" % ("default" if cap is None else cap)
        calls = 20
        record(case, "numpy manifold_collide(derivatives=True)",
               per_call(lambda: osc.manifold_collide(body, pa, body, pb, derivatives=True,
                                                     capacity=cap), calls, args.rounds))
        record(case, "numpy manifold_collide_batch(1 pair, derivatives=True)",
               per_call(lambda: osc.manifold_collide_batch(body, pa, body, pb, derivatives=True,
                                                           capacity=cap), calls, args.rounds))

        def energy(p, q):
            m = oj.manifold(body, p, body, q, capacity=cap)
            return jnp.sum(m["weight"] * m["distance"])

        grad = jax.jit(jax.grad(energy, argnums=(0, 1)))
        ja, jb = jnp.asarray(pa), jnp.asarray(pb)
        record(case, "jax jit(grad(E))",
               per_call(lambda: jax.block_until_ready(grad(ja, jb)), calls, args.rounds))
        if torch is not None:
            ta = torch.tensor(pa, dtype=torch.float64, requires_grad=True)
            tb = torch.tensor(pb, dtype=torch.float64, requires_grad=True)

            def torch_step():
                ta.grad = tb.grad = None
                m = ot.manifold(body, ta, body, tb, capacity=cap)
                (m["weight"] * m["distance"]).sum().backward()

            record(case, "torch forward+backward", per_call(torch_step, calls, args.rounds))

    capsule = osc.Convex.capsule(0.2, 0.4)
    qa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 1, 0], 0.4))
    qb = osc.pose([0.3, 0.35, 0.1], osc.axis_angle_quaternion([1, 0, 0], 1.1))
    calls = 1000
    case = "dcol-capsule-single"
    record(case, "numpy dcol(derivatives=True)",
           per_call(lambda: osc.dcol(capsule, qa, capsule, qb, derivatives=True), calls,
                    args.rounds))
    fwd = jax.jit(lambda p, q: oj.dcol(capsule, p, capsule, q)["distance"])
    dgrad = jax.jit(jax.grad(lambda p, q: oj.dcol(capsule, p, capsule, q)["distance"],
                             argnums=(0, 1)))
    ja, jb = jnp.asarray(qa), jnp.asarray(qb)
    record(case, "jax jit(distance)",
           per_call(lambda: fwd(ja, jb).block_until_ready(), calls, args.rounds))
    record(case, "jax jit(grad(distance))",
           per_call(lambda: jax.block_until_ready(dgrad(ja, jb)), calls, args.rounds))
    # the floor of a host call under jit: one pure_callback that doubles its [7] input
    echo = jax.jit(lambda p: jax.pure_callback(lambda x: np.asarray(x) * 2,
                                               jax.ShapeDtypeStruct((7,), jnp.float64), p))
    record(case, "jax jit(pure_callback of x -> 2 x), reference",
           per_call(lambda: echo(ja).block_until_ready(), calls, args.rounds))

    print("\n| case | call | per call |\n|---|---|---|", file=sys.stderr)
    for case, front, us in rows:
        print("| %s | %s | %s |" % (case, front, "%.1f µs" % us if us < 1000 else
                                    "%.2f ms" % (us / 1000)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
