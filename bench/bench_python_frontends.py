"""bench_python_frontends.py: what osculate.jax and osculate.torch add to the C queries they call,
for every query family, against the C call with the same outputs and against the pure_callback
JAX front end they replace (bench/jax_callback_baseline.py).

Part 1, the families (one thread: OMP_NUM_THREADS=1, threads=1 in the C calls, XLA's CPU client
on one thread, torch.set_num_threads(1)). For each family, one pair (or point, or ray) at a time
and batches of 100 and 10,000 (sdf_pair and lmd: 100 and 1,000, since 10,000 of their C queries
take 2-8 s per call on the development machine; --quick: 1, 100 and 1,000, and 1 and 100):

  family         workload                                                      outputs
  dcol           capsule (0.2, 0.4) against capsule, poses round touching      alpha, distance,
                 (B at A + u, |u| scaled so that the median pair touches)     point(s), normal
  manifold       sphere 0.25 (a 16-cell collision mesh of about 150            point, distance,
                 triangles) resting on a rounded slab (0.8, 0.8, 0.15),        normal, weight
                 about 36 contacts a pair, capacity 64
  sdf_pair       SDF spheres 0.5 and 0.4 touching, temperature 0.02,           point, distance
                 capacity 16
  lmd            two B-Rep boxes (1, 1, 0.5), B above A turned 0.3 rad,        distance
                 d_max 1: 6 local minimal distances, capacity 32
  sdf            a rounded SDF box (0.3, 0.2, 0.1) at points in [-0.5, 0.5]^3  phi
  ray_intersect  rays along x (directions perturbed) against an even-asphere   t, point, normal
                 lens sag (curvature 0.5, conic -0.3, a_0 0.01, diameter 1)

  C       the C call through osculate's NumPy API with the same outputs: the batched call
          (dcol_batch with out= arrays preallocated, manifold_collide_batch,
          sdf_pair_collide_batch, lmd_batch, SDF.eval, ray_intersect_many), values only ("C") and
          with the Jacobians the gradients need ("C+J"). For one pair that is a batch of 1, so
          "C/pair" gives the pure C cost of that pair without the ctypes call: the per-pair time
          of one batched call over 10,000 copies of it (1,000 for sdf_pair and lmd).
  jax     jax.jit of osculate.jax's function returning every output ("jit"), and
          jax.jit(jax.grad(sum of every output)) with respect to the poses (points, rays): "grad"
  cb      the same two for the pure_callback front end (bench/jax_callback_baseline.py)
  torch   osculate.torch forward on tensors that do not require grad ("fwd"), and forward plus
          backward of the sum of every output ("f+b"); torch.compile of the latter where the torch
          has it (Debian's 1.13 has none: "n/a")

  Each figure is the median over --rounds rounds of the mean time of a call; in each round every
  variant of the case runs in turn (the order rotating from round to round), each as enough
  calls to take about 50 ms. The table gives the time per call, the overhead over the C call with
  the same outputs (jit, fwd: C; grad, f+b: C+J) in microseconds, and the ratio to it.

Part 2, a loop in the default environment (no OMP_* variables, XLA on its own threads): a single
capsule-capsule DCOL query under jax.jit (distance), 1,000 calls in a Python loop, and jax.jit
(jax.grad(distance)); for the new front end and the pure_callback baseline, total and per call,
median of --rounds loops; and for reference a jit of one jax.pure_callback that doubles a [7]
array (the floor of any host call under jit).

Part 3 (not with --quick): the contact manifold of two bunnies (data/bunny.obj through
Body.from_mesh, 74 contacts) differentiated in reverse mode, at the default capacity
(osculate.max_contacts, 8,004 slots) and at 256: the NumPy call with derivatives at a capacity
that just fits, jax.jit(jax.grad(sum(weight * distance))) of both front ends, torch backward.

usage: python bench/bench_python_frontends.py [--quick] [--rounds N] [--json FILE]
JSON lines (suite "python-frontends"; record_history.py's format: a figure of a front end carries
the C figure it is compared with as peer_value) on stdout and in FILE (default
build/bench/python_frontends.jsonl), the table on stderr. Needs the package installed
(sh python/run_tests.sh build puts it into build/python-venv), JAX, and PyTorch for its rows.
Append a run to bench/history with python3 bench/record_history.py --results FILE.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUITE = "python-frontends"
FRONTS = ["jax jit", "jax grad", "cb jit", "cb grad", "torch fwd", "torch f+b", "compile f+b"]
# the C figure each front end is compared with
REFERENCE = {"jax jit": "C", "cb jit": "C", "torch fwd": "C", "jax grad": "C+J", "cb grad": "C+J",
             "torch f+b": "C+J", "compile f+b": "C+J"}
METRIC = {"C": "c_us", "C+J": "c_jacobians_us", "C/pair": "c_per_pair_in_batch_us",
          "jax jit": "jax_jit_us", "jax grad": "jax_jit_grad_us", "cb jit": "callback_jit_us",
          "cb grad": "callback_jit_grad_us", "torch fwd": "torch_forward_us",
          "torch f+b": "torch_forward_backward_us",
          "compile f+b": "torch_compile_forward_backward_us"}


def emit(case, metric, value, unit="us", **extra):
    record = dict(suite=SUITE, case=case, metric=metric, value=round(value, 3), unit=unit)
    record.update(extra)
    print(json.dumps(record), flush=True)


def note(text):
    print(text, file=sys.stderr, flush=True)


def quaternions(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


# ------------------------------------------------------------------------------------------------
# the families: for each, the models, inputs of n queries, the C calls and the front-end calls


class Family:
    """A query family's workload: inputs(n) -> the two differentiable inputs (poses of A and B,
    or points, or ray origins and directions) as NumPy arrays, with n = 0 meaning one query
    without a batch dimension; c(x, y, jacobians) -> a callable making the C call on them; query(
    module, x, y) the front end's call (module: osculate.jax, the baseline or osculate.torch)."""

    name = ""
    copies = 10000  # the batch of copies for the C per-pair figure

    def inputs(self, n):
        """pair queries: the pose of A and B (self.one), or the first n of self.pa, self.pb"""
        return self.one if n == 0 else (self.pa[:n], self.pb[:n])

    def c(self, x, y, jacobians):
        raise NotImplementedError

    def query(self, module, x, y):
        raise NotImplementedError


class Dcol(Family):
    name = "dcol"

    def __init__(self, osc):
        self.osc = osc
        self.capsule = osc.Convex.capsule(0.2, 0.4)
        rng = np.random.default_rng(7)
        n = 10000
        pa = np.hstack([rng.uniform(-1, 1, (n, 3)), quaternions(rng, n)])
        u = rng.uniform(-1, 1, (n, 3))
        pb = np.hstack([pa[:, :3] + u, quaternions(rng, n)])
        alpha = osc.dcol_batch(self.capsule, pa, self.capsule, pb, threads=1).alpha
        pb[:, :3] = pa[:, :3] + u / np.median(alpha)
        self.pa, self.pb = pa, pb
        self.one = (osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 1, 0], 0.4)),
                    osc.pose([0.3, 0.35, 0.1], osc.axis_angle_quaternion([1, 0, 0], 1.1)))

    def c(self, x, y, jacobians):
        osc, cap = self.osc, self.capsule
        x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
        out = osc.dcol_batch(cap, x2, cap, y2, derivatives=jacobians, threads=1)
        return lambda: osc.dcol_batch(cap, x2, cap, y2, derivatives=jacobians, threads=1, out=out)

    def query(self, module, x, y):
        return module.dcol(self.capsule, x, self.capsule, y)


class Manifold(Family):
    name = "manifold"
    capacity = 64

    def __init__(self, osc):
        self.osc = osc
        slab_sdf = osc.SDF.box([0.8, 0.8, 0.15], rounding=0.05)
        ball_sdf = osc.SDF.sphere(0.25)
        self.slab = osc.Body(osc.collision_mesh(slab_sdf, resolution=48, target_triangles=1500),
                             sdf=slab_sdf)
        self.ball = osc.Body(osc.collision_mesh(ball_sdf, resolution=16, target_triangles=150),
                             sdf=ball_sdf)
        rng = np.random.default_rng(8)
        n = 10000
        self.pa = np.tile(osc.pose(), (n, 1))
        self.pb = np.hstack([rng.uniform(-0.2, 0.2, (n, 1)), rng.uniform(-0.2, 0.2, (n, 1)),
                             0.398 + rng.uniform(-0.003, 0.003, (n, 1)), quaternions(rng, n)])
        self.one = (osc.pose(), osc.pose([0.1, 0.05, 0.398]))

    def c(self, x, y, jacobians):
        osc = self.osc
        return lambda: osc.manifold_collide_batch(self.slab, x, self.ball, y,
                                                  derivatives=jacobians, capacity=self.capacity,
                                                  threads=1)

    def query(self, module, x, y):
        return module.manifold(self.slab, x, self.ball, y, capacity=self.capacity)


class SdfPair(Family):
    name = "sdf_pair"
    copies = 1000
    capacity = 16
    settings = dict(temperature=0.02)

    def __init__(self, osc):
        self.osc = osc
        self.a, self.b = osc.SDF.sphere(0.5), osc.SDF.sphere(0.4)
        rng = np.random.default_rng(9)
        n = 1000
        self.pa = np.hstack([rng.uniform(-0.02, 0.02, (n, 3)), quaternions(rng, n)])
        self.pb = np.hstack([[0.88, 0.0, 0.0] + rng.uniform(-0.02, 0.02, (n, 3)),
                             quaternions(rng, n)])
        self.one = (osc.pose(), osc.pose([0.88, 0.0, 0.0]))

    def c(self, x, y, jacobians):
        osc = self.osc
        return lambda: osc.sdf_pair_collide_batch(self.a, x, self.b, y, capacity=self.capacity,
                                                  derivatives=jacobians, threads=1,
                                                  **self.settings)

    def query(self, module, x, y):
        return module.sdf_pair(self.a, x, self.b, y, capacity=self.capacity, **self.settings)


class Lmd(Family):
    name = "lmd"
    copies = 1000
    capacity = 32
    settings = dict(d_max=1.0)

    def __init__(self, osc):
        self.osc = osc
        self.box = osc.Brep.box([1.0, 1.0, 0.5])
        rng = np.random.default_rng(10)
        n = 1000
        q = osc.axis_angle_quaternion([0, 0, 1], 0.3)
        self.pa = np.tile(osc.pose(), (n, 1))
        self.pb = np.hstack([[0.3, -0.2, 1.05] + rng.uniform(-0.02, 0.02, (n, 3)),
                             np.tile(q, (n, 1))])
        self.one = (osc.pose(), osc.pose([0.3, -0.2, 1.05], q))

    def c(self, x, y, jacobians):
        # lmd_batch always computes the distance Jacobians: the same call either way
        osc = self.osc
        return lambda: osc.lmd_batch(self.box, x, self.box, y, capacity=self.capacity, threads=1,
                                     **self.settings)

    def query(self, module, x, y):
        return module.lmd(self.box, x, self.box, y, capacity=self.capacity, **self.settings)


class Sdf(Family):
    name = "sdf"

    def __init__(self, osc):
        self.model = osc.SDF.box([0.3, 0.2, 0.1], rounding=0.02)
        rng = np.random.default_rng(11)
        self.points = rng.uniform(-0.5, 0.5, (10000, 3))

    def inputs(self, n):
        # one differentiable input: the points (y is None)
        return (self.points[0], None) if n == 0 else (self.points[:n], None)

    def c(self, x, y, jacobians):
        x2 = np.atleast_2d(x)
        return lambda: self.model.eval(x2, gradient=jacobians, threads=1)

    def query(self, module, x, y):
        return {"phi": module.sdf(self.model, x)}


class Ray(Family):
    name = "ray_intersect"

    def __init__(self, osc):
        self.osc = osc
        self.lens = osc.Implicit.sag(0.5, 1.0, -0.3, [0.01])
        rng = np.random.default_rng(12)
        n = 10000
        self.origins = np.hstack([np.full((n, 1), -1.0), rng.uniform(-0.4, 0.4, (n, 2))])
        self.directions = np.hstack([np.ones((n, 1)), rng.uniform(-0.05, 0.05, (n, 2))])

    def inputs(self, n):
        if n == 0:
            return self.origins[0], self.directions[0]
        return self.origins[:n], self.directions[:n]

    def c(self, x, y, jacobians):
        osc = self.osc
        x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
        return lambda: osc.ray_intersect_many(self.lens, x2, y2, derivatives=jacobians)

    def query(self, module, x, y):
        return module.ray_intersect(self.lens, x, y)


FAMILIES = [Dcol, Manifold, SdfPair, Lmd, Sdf, Ray]


def summed(out, total):
    """the sum of every differentiable output of a front end's dict (not count, not hit)"""
    return total([v for k, v in out.items() if k not in ("count", "hit")])


# ------------------------------------------------------------------------------------------------
# timing


def alternated(variants, rounds, target):
    """variants: {label: callable}. Calls each once (warm-up, compilation), sizes its calls per
    round to about `target` seconds, then runs `rounds` rounds of every variant in turn (rotating
    the order): {label: median over rounds of the mean time of a call, in microseconds}."""
    labels = list(variants)
    reps = {}
    for label in labels:
        variants[label]()  # the first call compiles; time the second
        t0 = time.perf_counter()
        variants[label]()
        once = time.perf_counter() - t0
        reps[label] = max(1, int(target / max(once, 1e-7)))
    times = {label: [] for label in labels}
    for r in range(rounds):
        for k in range(len(labels)):
            label = labels[(k + r) % len(labels)]
            fn, n = variants[label], reps[label]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            times[label].append((time.perf_counter() - t0) / n)
    return {label: 1e6 * float(np.median(times[label])) for label in labels}


def fmt(us):
    """a time in microseconds for the table: 3 significant digits or so, in µs, ms or s"""
    if us is None:
        return "n/a"
    if abs(us) < 10:
        return "%.2f µs" % us
    if abs(us) < 1000:
        return "%.1f µs" % us
    if abs(us) < 1e6:
        return "%.2f ms" % (us / 1000)
    return "%.2f s" % (us / 1e6)


def family_variants(fam, n, jax_mods, torch_mods):
    """{label: callable} for one case (n = 0: one query, no batch dimension)."""
    import jax
    import jax.numpy as jnp
    x, y = fam.inputs(n)
    variants = {"C": fam.c(x, y, False), "C+J": fam.c(x, y, True)}
    if n == 0:  # the pure C cost of this query: its per-pair time in a batch of copies
        copies = fam.copies
        xs = np.repeat(np.asarray(x)[None], copies, axis=0)
        ys = None if y is None else np.repeat(np.asarray(y)[None], copies, axis=0)
        variants["C/pair"] = fam.c(xs, ys, False)
    jx = jnp.asarray(x)
    jy = None if y is None else jnp.asarray(y)
    args = (jx,) if y is None else (jx, jy)
    argnums = (0,) if y is None else (0, 1)
    for prefix, mod in jax_mods.items():
        def call(*a, mod=mod):
            return fam.query(mod, a[0], a[1] if len(a) > 1 else None)

        value = jax.jit(call)
        grad = jax.jit(jax.grad(lambda *a, call=call: summed(call(*a), lambda vs: sum(
            jnp.sum(v) for v in vs)), argnums=argnums))
        variants[prefix + " jit"] = lambda value=value: jax.block_until_ready(value(*args))
        variants[prefix + " grad"] = lambda grad=grad: jax.block_until_ready(grad(*args))
    if torch_mods:
        torch, ot = torch_mods
        tx = torch.tensor(np.asarray(x), dtype=torch.float64)
        ty = None if y is None else torch.tensor(np.asarray(y), dtype=torch.float64)
        gx = tx.clone().requires_grad_(True)
        gy = None if ty is None else ty.clone().requires_grad_(True)

        def forward():
            fam.query(ot, tx, ty)

        def loss(a, b):
            return summed(fam.query(ot, a, b), lambda vs: sum(v.sum() for v in vs))

        def forward_backward(loss=loss):
            gx.grad = None
            if gy is not None:
                gy.grad = None
            loss(gx, gy).backward()

        variants["torch fwd"] = forward
        variants["torch f+b"] = forward_backward
        if hasattr(torch, "compile"):
            compiled = torch.compile(loss)
            variants["compile f+b"] = lambda: forward_backward(compiled)
    return variants


def check_fronts(fam, jax_mods):
    """The largest difference between the front end's and the baseline's outputs and gradients on
    100 queries (they make the same C calls: 0 expected, or a few roundings where the Jacobian's
    conversion to raw poses changed)."""
    import jax
    import jax.numpy as jnp
    x, y = fam.inputs(100)
    args = [jnp.asarray(x)] + ([] if y is None else [jnp.asarray(y)])
    results = []
    for mod in jax_mods.values():
        def call(*a, mod=mod):
            return fam.query(mod, a[0], a[1] if len(a) > 1 else None)
        value = call(*args)
        grad = jax.grad(lambda *a: summed(call(*a), lambda vs: sum(jnp.sum(v) for v in vs)),
                        argnums=tuple(range(len(args))))(*args)
        results.append((value, grad))
    (v0, g0), (v1, g1) = results
    diff = max(float(np.max(np.abs(np.asarray(v0[k], float) - np.asarray(v1[k], float)),
                        initial=0.0)) for k in v0)
    gdiff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0))
                for a, b in zip(g0, g1))
    return diff, gdiff


def part_families(args):
    import jax
    jax.config.update("jax_enable_x64", True)
    import osculate as osc
    import osculate.jax as oj
    sys.path.insert(0, HERE)
    import jax_callback_baseline as cb
    try:
        import torch
        import osculate.torch as ot
        torch.set_num_threads(1)
        torch_mods = (torch, ot)
        compile_note = None if hasattr(torch, "compile") else \
            "n/a: torch %s has no torch.compile (2.0 and later)" % torch.__version__
    except ImportError:
        torch, torch_mods, compile_note = None, None, "n/a: no PyTorch"
    note("part 1: one thread (OMP_NUM_THREADS=%s, osculate.default_thread_count() = %d, "
         "threads=1 in the C calls, torch threads %s)"
         % (os.environ.get("OMP_NUM_THREADS"), osc.default_thread_count(),
            torch.get_num_threads() if torch else "-"))
    if compile_note:
        note("torch.compile: " + compile_note)
    jax_mods = {"jax": oj, "cb": cb}
    sizes_big = (0, 100, 1000) if args.quick else (0, 100, 10000)
    sizes_small = (0, 100) if args.quick else (0, 100, 1000)
    rows = []
    for cls in FAMILIES:
        fam = cls(osc)
        diff, gdiff = check_fronts(fam, jax_mods)
        note("%s: osculate.jax against the baseline on 100 queries: outputs differ by at most "
             "%.3g, gradients by %.3g" % (fam.name, diff, gdiff))
        for n in (sizes_small if cls in (SdfPair, Lmd) else sizes_big):
            case = "%s-%s" % (fam.name, "single" if n == 0 else n)
            variants = family_variants(fam, n, jax_mods, torch_mods)
            t = alternated(variants, args.rounds, 0.02 if args.quick else 0.05)
            if "C/pair" in t:
                t["C/pair"] /= fam.copies
            for label in ["C", "C+J", "C/pair"]:
                if label in t:
                    emit(case, METRIC[label], t[label])
            for label in FRONTS:
                if label in t:
                    ref = REFERENCE[label]
                    emit(case, METRIC[label], t[label], peer="numpy-" + METRIC[ref][:-3],
                         peer_value=round(t[ref], 3))
            rows.append((case, t))
            note("  %s done: C %s, C+J %s, jax jit %s, jax grad %s" % (
                case, fmt(t["C"]), fmt(t["C+J"]), fmt(t.get("jax jit")), fmt(t.get("jax grad"))))
    return rows, compile_note


def table(rows, compile_note):
    """The markdown table: per case, the C figures, then each front end's time, overhead over its
    C reference and ratio to it."""
    lines = ["| case | C | C+J | C/pair | " + " | ".join(FRONTS) + " |",
             "|---|---:|---:|---:|" + "---:|" * len(FRONTS)]
    for case, t in rows:
        cells = [case, fmt(t["C"]), fmt(t["C+J"]), fmt(t["C/pair"]) if "C/pair" in t else ""]
        for label in FRONTS:
            if label not in t:
                cells.append("n/a")
                continue
            ref = t[REFERENCE[label]]
            over = t[label] - ref
            cells.append("%s (%s%s, %.2fx)" % (fmt(t[label]), "+" if over >= 0 else "-",
                                               fmt(abs(over)), t[label] / ref))
        lines.append("| " + " | ".join(cells) + " |")
    if compile_note:
        lines.append("")
        lines.append("compile f+b: " + compile_note)
    return "\n".join(lines)


def part_loop(args):
    """A single DCOL query under jit in a loop of 1,000 calls, default environment."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    import osculate as osc
    import osculate.jax as oj
    sys.path.insert(0, HERE)
    import jax_callback_baseline as cb
    note("part 2: default environment (OMP variables: %s; osculate.default_thread_count() = %d)"
         % (sorted(k for k in os.environ if k.startswith("OMP_")) or "none",
            osc.default_thread_count()))
    capsule = osc.Convex.capsule(0.2, 0.4)
    qa = jnp.asarray(osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 1, 0], 0.4)))
    qb = jnp.asarray(osc.pose([0.3, 0.35, 0.1], osc.axis_angle_quaternion([1, 0, 0], 1.1)))
    calls = 1000
    loops = {}
    for prefix, mod in (("jax", oj), ("cb", cb)):
        def distance(p, q, mod=mod):
            return mod.dcol(capsule, p, capsule, q)["distance"]
        value = jax.jit(distance)
        grad = jax.jit(jax.grad(distance, argnums=(0, 1)))
        loops[prefix + " jit(distance)"] = lambda value=value: [
            value(qa, qb).block_until_ready() for _ in range(calls)]
        loops[prefix + " jit(grad(distance))"] = lambda grad=grad: [
            jax.block_until_ready(grad(qa, qb)) for _ in range(calls)]
    # the floor of a host call under jit: one pure_callback that doubles its [7] input
    echo = jax.jit(lambda p: jax.pure_callback(lambda x: np.asarray(x) * 2,
                                               jax.ShapeDtypeStruct((7,), jnp.float64), p))
    loops["jit(pure_callback x -> 2 x), reference"] = lambda: [
        echo(qa).block_until_ready() for _ in range(calls)]
    t = alternated(loops, args.rounds, 0.0)  # one loop of 1,000 calls per round
    rows = []
    for label, us in t.items():
        metric = "callback_floor" if label.startswith("jit(pure") else \
            label.replace(" ", "_").replace("(", "_").replace(")", "")
        emit("dcol-loop-1000", metric + "_total_us", us)
        emit("dcol-loop-1000", metric + "_per_call_us", us / calls)
        rows.append((label, us))
    return rows


def part_bunny(args):
    """The contact manifold of two bunnies differentiated in reverse mode, at the default capacity
    (osculate.max_contacts: thousands of slots, mostly empty) and at capacity 256. The C reference
    is the NumPy call with derivatives at a capacity that just fits the contacts: the same C work
    without filling thousands of empty slots."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    import osculate as osc
    import osculate.jax as oj
    sys.path.insert(0, HERE)
    import jax_callback_baseline as cb
    body = osc.Body.from_mesh(os.path.join(ROOT, "data", "bunny.obj"))
    v = body.collision_mesh.vertices
    pa = osc.pose()
    pb = osc.pose([0.0, 0.0, 0.75 * (v[:, 2].max() - v[:, 2].min())],
                  osc.axis_angle_quaternion([1, 1, 0], 0.3))
    count = len(osc.manifold_collide(body, pa, body, pb))
    variants = {"C+J": lambda: osc.manifold_collide_batch(body, pa, body, pb, derivatives=True,
                                                          capacity=count, threads=1)}
    ja, jb = jnp.asarray(pa), jnp.asarray(pb)
    caps = (osc.max_contacts(body, body), 256)
    try:
        import torch
        import osculate.torch as ot
        ta = torch.tensor(pa, requires_grad=True)
        tb = torch.tensor(pb, requires_grad=True)
    except ImportError:
        torch = None
    for cap in caps:
        for prefix, mod in (("jax", oj), ("cb", cb)):
            one = {"threads": 1} if mod is oj else {}  # the baseline has no threads setting

            def energy(p, q, mod=mod, cap=cap, one=one):
                m = mod.manifold(body, p, body, q, capacity=cap, **one)
                return jnp.sum(m["weight"] * m["distance"])
            grad = jax.jit(jax.grad(energy, argnums=(0, 1)))
            variants["%s grad %d" % (prefix, cap)] = \
                lambda grad=grad: jax.block_until_ready(grad(ja, jb))
        if torch is not None:
            def step(cap=cap):
                ta.grad = tb.grad = None
                m = ot.manifold(body, ta, body, tb, capacity=cap)
                (m["weight"] * m["distance"]).sum().backward()
            variants["torch f+b %d" % cap] = step
    t = alternated(variants, args.rounds, 0.05)
    results = {"count": count, "caps": caps, "C+J": t["C+J"]}
    for cap in caps:
        case = "manifold-bunny-%d-contacts-capacity-%d" % (count, cap)
        emit(case, METRIC["C+J"], t["C+J"])
        for label in ("jax grad", "cb grad", "torch f+b"):
            key = "%s %d" % (label, cap)
            if key in t:
                emit(case, METRIC[label], t[key], peer="numpy-c_jacobians",
                     peer_value=round(t["C+J"], 3))
                results[key] = t[key]
    return results


def run_part(part, args, env):
    """Runs this script's `part` in a child process with `env`: (its JSON lines, its result)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--part", part, "--rounds", str(args.rounds)]
    if args.quick:
        cmd.append("--quick")
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("bench_python_frontends: part %s failed (status %d)" % (part, r.returncode))
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    result = [line for line in r.stdout.splitlines() if line.startswith("RESULT ")]
    return lines, json.loads(result[-1][7:]) if result else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="batches up to 1,000 (sdf_pair, lmd: 100), 3 rounds, no bunnies")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per figure (default 5, "
                                                              "--quick 3)")
    ap.add_argument("--json", default=os.path.join(ROOT, "build", "bench",
                                                   "python_frontends.jsonl"))
    ap.add_argument("--part", choices=("families", "loop", "bunny"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    if args.part == "families":
        rows, compile_note = part_families(args)
        print("RESULT " + json.dumps(dict(rows=rows, compile_note=compile_note)))
        return 0
    if args.part == "loop":
        print("RESULT " + json.dumps(part_loop(args)))
        return 0
    if args.part == "bunny":
        print("RESULT " + json.dumps(part_bunny(args)))
        return 0

    import jax
    import osculate as osc
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:
        torch_version = "missing"
    note("bench_python_frontends: %s, %s, %d cores, Python %s, osculate %s, JAX %s, NumPy %s, "
         "PyTorch %s" % (platform.node(), platform.processor() or platform.machine(),
                         os.cpu_count() or 0, platform.python_version(), osc.version(),
                         jax.__version__, np.__version__, torch_version))
    one_thread = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    one_thread["OMP_NUM_THREADS"] = "1"
    one_thread["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen="
                               "false intra_op_parallelism_threads=1").strip()
    default_env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    lines, fam = run_part("families", args, one_thread)
    loop_lines, loop = run_part("loop", args, default_env)
    lines += loop_lines
    bunny = None
    if not args.quick:
        bunny_lines, bunny = run_part("bunny", args, one_thread)
        lines += bunny_lines
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    for line in lines:
        print(line)

    note("\nPer call, one thread; in brackets the overhead over the C call with the same outputs "
         "(jit, fwd: C; grad, f+b: C+J) and the ratio to it:\n")
    note(table(fam["rows"], fam["compile_note"]))
    note("\nA single DCOL query under jax.jit, a loop of 1,000 calls, default environment:\n")
    note("| call | 1,000 calls | per call |\n|---|---:|---:|")
    for label, us in loop:
        note("| %s | %s | %s |" % (label, fmt(us), fmt(us / 1000)))
    if bunny:
        ref = bunny["C+J"]
        note("\nThe manifold of two bunnies (%d contacts), reverse mode, one thread; C+J: the NumPy "
             "call with derivatives at capacity %d:\n" % (bunny["count"], bunny["count"]))
        note("| call | per call | over C+J |\n|---|---:|---:|")
        note("| C+J | %s | |" % fmt(ref))
        for label, us in bunny.items():
            if label not in ("count", "caps", "C+J"):
                note("| %s | %s | +%s, %.2fx |" % (label, fmt(us), fmt(us - ref), us / ref))
    note("\nJSON lines: %s" % os.path.relpath(os.path.abspath(args.json), os.getcwd()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
