"""bench_torch_compile.py: osculate.torch eager against torch.compile (default backend,
fullgraph=True), forward and forward plus backward, on the two bunnies of
bench_python_frontends.py's part 3 (data/bunny.obj through Body.from_mesh, B above A turned 0.3
rad; sum(weight * distance) of the manifold, at capacity 256 and at the default capacity) and on
one capsule-capsule DCOL pair (alpha + distance). One thread (torch.set_num_threads(1),
OMP_NUM_THREADS=1 set before the import). Each figure is the median over --rounds rounds of the
mean time of a call; in each round eager and compiled alternate, each as enough calls to take
about 50 ms. Needs PyTorch >= 2.0.

usage: python bench/bench_torch_compile.py [--rounds N]
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402

import osculate as osc  # noqa: E402
import osculate.torch as ot  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def per_call(f, seconds=0.05):
    """The mean time of a call of f (seconds), over enough calls to take about `seconds`."""
    f()
    n, start = 0, time.perf_counter()
    while True:
        f()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed > seconds:
            return elapsed / n


def alternated(variants, rounds):
    times = {k: [] for k in variants}
    keys = list(variants)
    for r in range(rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            times[k].append(per_call(variants[k]))
    return {k: statistics.median(v) for k, v in times.items()}


def case(name, loss, inputs, rounds):
    """Eager and compiled forward (no grad) and forward plus backward of loss(*inputs)."""
    compiled = torch.compile(loss, fullgraph=True)
    leaves = [x.clone().requires_grad_(True) for x in inputs]

    def fb(fn):
        def step():
            for x in leaves:
                x.grad = None
            fn(*leaves).backward()
        return step

    def fwd(fn):
        def step():
            with torch.no_grad():
                fn(*inputs)
        return step

    e, c = loss(*leaves), compiled(*leaves)  # compile outside the timing; values agree
    ge = torch.autograd.grad(e, leaves)
    gc = torch.autograd.grad(c, leaves)
    assert torch.allclose(e, c, rtol=1e-12, atol=1e-14)
    assert all(torch.allclose(a, b, rtol=1e-10, atol=1e-12) for a, b in zip(ge, gc))
    t = alternated({"eager fwd": fwd(loss), "compile fwd": fwd(compiled), "eager f+b": fb(loss),
                    "compile f+b": fb(compiled)}, rounds)
    print("%-34s  eager fwd %8.1f us  compile fwd %8.1f us (%.2fx)  eager f+b %8.1f us  "
          "compile f+b %8.1f us (%.2fx)" % (
              name, 1e6 * t["eager fwd"], 1e6 * t["compile fwd"],
              t["compile fwd"] / t["eager fwd"], 1e6 * t["eager f+b"], 1e6 * t["compile f+b"],
              t["compile f+b"] / t["eager f+b"]))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    torch.set_num_threads(1)
    print("torch %s, %s" % (torch.__version__, osc.version()))
    body = osc.Body.from_mesh(os.path.join(ROOT, "data", "bunny.obj"))
    v = body.collision_mesh.vertices
    pa = torch.tensor(osc.pose())
    pb = torch.tensor(osc.pose([0.0, 0.0, 0.75 * (v[:, 2].max() - v[:, 2].min())],
                               osc.axis_angle_quaternion([1, 1, 0], 0.3)))
    count = len(osc.manifold_collide(body, pa.numpy(), body, pb.numpy()))
    for capacity in (256, None):
        def energy(p, q, capacity=capacity):
            m = ot.manifold(body, p, body, q, capacity=capacity)
            return (m["weight"] * m["distance"]).sum()
        energy(pa, pb)  # registers the models (and the default capacity) before compiling
        case("bunny manifold, %d contacts, cap %s" % (
            count, capacity or osc.max_contacts(body, body)), energy, (pa, pb), args.rounds)
    capsule = osc.Convex.capsule(0.2, 0.4)

    def dcol(p, q):
        r = ot.dcol(capsule, p, capsule, q)
        return r["alpha"] + r["distance"]
    p1 = torch.tensor(osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 1, 0], 0.4)))
    q1 = torch.tensor(osc.pose([0.3, 0.35, 0.1], osc.axis_angle_quaternion([1, 0, 0], 1.1)))
    dcol(p1, q1)
    case("dcol, one capsule pair", dcol, (p1, q1), args.rounds)


if __name__ == "__main__":
    main()
