#!/usr/bin/env python3
"""Peer of the ray / implicit-surface intersection benchmark: Torch Lens Maker's own collision detection.

Run with the Python of BUILD/peers/tlm-venv (bench/peers/setup_tlm.sh BUILD installs it). torchlensmaker is GPL-3.0:
this script only calls it; none of its code is copied here. See bench/peers/tlm/README.md.

    BUILD/peers/tlm-venv/bin/python bench/peers/tlm_rays.py RAYS.f64 --surface sphere --radius 20 --diameter 15
        [--surface sphere|sphere-r|conic|asphere] [--k K] [--coeffs a4,a6,a8] [--threads T=1] [--repeats N=5]
        [--out FILE] [--legacy] [--solver-config JSON]

RAYS: raw little-endian float64 [N][6], per ray origin xyz then unit direction xyz, no header. The surface has its
vertex at the origin and the optical axis along x, sag x = c r^2 / (1 + sqrt(1 - (1+k) c^2 r^2)) + a4 r^4 + a6 r^6
+ a8 r^8, c = 1/R, r^2 = y^2 + z^2 <= (D/2)^2. Surfaces (torchlensmaker >= 0.0.13, as installed: 0.0.13; --legacy: 0.0.12):

    sphere    SphereByCurvature(D, C=1/R)            (legacy: Sphere(D, R=R))         sag sphere, implicit solver
    sphere-r  SphereByRadius(D, R)                   (legacy: SphereR(D, R=R))        closed-form quadratic
    conic     Conic(D, C=1/R, K=k)                   (legacy: Conic(D, Conical(C, K))) sag, implicit solver
    asphere   Asphere(D, C=1/R, K=k, alphas=[...])   (legacy: Asphere(D, R, K, [...])) sag, implicit solver

The timed call is the surface's own ray intersection with the identity transform: 0.0.13
`surface(P, V, tf, tlm.Direction.PROGRADE)` -> (t, normals, valid, tf_surface, tf_next) (SurfaceElement.forward: anchor
transforms, rays to the surface frame, damped Newton implicit solver, normals, valid mask); >= 0.0.14 `surface(P, V,
tf)` -> SurfaceElementOutput; legacy `tlm.intersect(surface, P, V, hom, hom_inv)` -> (t, normals, valid) (ray /
bounding-cylinder test, CollisionMethod on the rays that may hit, normals, `contains`). float64 on the CPU, under
torch.no_grad(); one untimed warm-up, then the median of --repeats wall times (time.perf_counter).

Prints one JSON line:
    {"peer": "torchlensmaker", "version": ..., "torch": ..., "surface": ..., "rays": N, "threads": T,
     "median_s": ..., "rays_per_s": ..., "hits": ..., "method": ..., ...}
or, on failure, {"peer": "torchlensmaker", "missing": "<why>"} (exit 0 all the same, like the other peers).

--out FILE writes N float64 t (NaN where the ray misses) followed by N uint8 hit flags (1 = hit), little endian.
"""

import argparse
import json
import os
import statistics
import sys
import time


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rays", help="float64 [N][6] file: origin xyz, unit direction xyz")
    ap.add_argument("--surface", required=True, choices=["sphere", "sphere-r", "conic", "asphere"])
    ap.add_argument("--radius", type=float, required=True, help="signed radius of curvature R (c = 1/R)")
    ap.add_argument("--diameter", type=float, required=True, help="surface diameter D (r <= D/2)")
    ap.add_argument("--k", type=float, default=0.0, help="conic constant (conic, asphere)")
    ap.add_argument("--coeffs", default="", help="a4,a6,a8,... (asphere): coefficients of r^4, r^6, r^8, ...")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repetitions after one warm-up (default 5)")
    ap.add_argument("--out", help="write t (float64, NaN = miss) then the hit mask (uint8) for every ray")
    ap.add_argument("--legacy", action="store_true",
                    help="torchlensmaker 0.0.12 (CollisionMethod, Torch Lens Maker's algorithm) from PEERS/tlm-0.0.12")
    ap.add_argument("--peers-dir", help="BUILD/peers (default: the parent of this venv)")
    ap.add_argument("--solver-config", default="{}",
                    help="JSON overrides of the collision settings: 0.0.13 num_iter, damping, tol; >= 0.0.14 its "
                         "solver_config keys; --legacy CollisionMethod fields (num_iterA, num_iterB, B, ...)")
    return ap.parse_args(argv)


def missing(why):
    print(json.dumps({"peer": "torchlensmaker", "missing": str(why)[:300]}))
    sys.exit(0)


def main(argv):
    args = parse_args(argv)
    if args.legacy:
        peers = args.peers_dir or os.path.dirname(os.path.abspath(sys.prefix))
        legacy = os.path.join(peers, "tlm-0.0.12")
        if not os.path.isdir(os.path.join(legacy, "torchlensmaker")):
            missing(f"no legacy torchlensmaker in {legacy} (bench/peers/setup_tlm.sh installs it)")
        sys.path.insert(0, legacy)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    try:
        import importlib.metadata as md
        import numpy as np
        import torch
        import torchlensmaker as tlm
    except Exception as e:  # noqa: BLE001
        missing(f"import failed: {type(e).__name__}: {e}")

    torch.set_num_threads(args.threads)
    torch.set_default_dtype(torch.float64)
    dtype = torch.float64

    raw = np.fromfile(args.rays, dtype="<f8")
    if raw.size % 6:
        missing(f"{args.rays}: {raw.size} float64 values, not a multiple of 6")
    rays = raw.reshape(-1, 6)
    n = rays.shape[0]
    P = torch.from_numpy(np.ascontiguousarray(rays[:, :3]))
    V = torch.from_numpy(np.ascontiguousarray(rays[:, 3:]))

    R, D, K = args.radius, args.diameter, args.k
    coeffs = [float(c) for c in args.coeffs.split(",") if c.strip()]
    overrides = json.loads(args.solver_config)
    legacy = args.legacy or not hasattr(tlm, "SphereByCurvature")

    try:
        version = md.version("torchlensmaker")
    except Exception:  # noqa: BLE001
        version = getattr(tlm, "__version__", "?")

    if legacy:
        # torchlensmaker <= 0.0.12: LocalSurface + tlm.intersect + CollisionMethod (Torch Lens Maker)
        import dataclasses
        from torchlensmaker.core.collision_detection import default_collision_method
        cm = dataclasses.replace(default_collision_method, **overrides)
        if args.surface == "sphere":
            surface = tlm.Sphere(D, R=R, collision_method=cm, dtype=dtype)
        elif args.surface == "sphere-r":
            surface = tlm.SphereR(D, R=R, dtype=dtype)
        elif args.surface == "conic":
            surface = tlm.Conic(D, tlm.Conical(torch.tensor(1.0 / R), torch.tensor(K)), cm, dtype=dtype)
        else:
            surface = tlm.Asphere(D, R, K, coeffs, collision_method=cm, dtype=dtype)
        hom, hom_inv = torch.eye(4, dtype=dtype), torch.eye(4, dtype=dtype)
        cls = type(surface).__name__
        if args.surface == "sphere-r":
            method = (f"legacy {cls}.local_collide: closed-form ray-sphere quadratic, no iteration; "
                      "contains() tolerance 1e-7 (float64)")
        else:
            method = (f"legacy {cls} (SagSurface, ImplicitSurface.local_collide): ray vs bounding cylinder "
                      f"[xmin, xmax] x r <= D/2 (rays missing it are misses), then CollisionMethod '{cm.name}': "
                      f"B = {cm.B} beams (t0 = linspace over the cylinder's [tmin, tmax]), coarse phase "
                      f"{cm.num_iterA} x {cm.algoA} on all beams (step clamped to |tmax - tmin|/B, t clamped to "
                      f"[tmin, tmax]), best beam (|F| < {cm.close_filter_threshold}: the one nearest t = 0, else "
                      f"lowest F), fine phase {cm.num_iterB} x {cm.algoB}, 1 differentiable step {cm.algoC}; "
                      f"hit = contains(): |G(y,z) - x| < 1e-7 (float64)")

        def collide():
            t, _normals, valid = tlm.intersect(surface, P, V, hom, hom_inv)
            return t, valid
    else:
        import inspect
        from torchlensmaker.kinematics.homogeneous_geometry import hom_identity_3d
        tf = hom_identity_3d(dtype)
        # 0.0.13: forward(P, V, tf, direction) -> (t, normals, valid, tf_surface, tf_next), solver settings as
        # keyword arguments; >= 0.0.14: forward(P, V, tf) -> SurfaceElementOutput, solver_config dict
        v13 = "direction" in inspect.signature(tlm.SphereByCurvature.forward).parameters
        kw = {} if args.surface == "sphere-r" else (dict(overrides) if v13 else {"solver_config": overrides})
        kw["trainable"] = False
        if args.surface == "sphere":
            surface = tlm.SphereByCurvature(D, C=1.0 / R, **kw)
        elif args.surface == "sphere-r":
            surface = tlm.SphereByRadius(D, R, **kw)
        elif args.surface == "conic":
            surface = tlm.Conic(D, C=1.0 / R, K=K, **kw)
        else:
            surface = tlm.Asphere(D, C=1.0 / R, K=K, alphas=coeffs, **kw)
        cls = type(surface).__name__
        if args.surface == "sphere-r":
            method = (f"{cls}: closed-form ray-sphere quadratic, no iteration; hit = a root on the cap "
                      "(within D/2, on the sphere, |x| <= rim sag) to tolerance 1e-7 (float64)")
        else:
            if v13:
                k3 = surface.func3d
                sc = {"implicit_solver": "newton", "num_iter": k3.num_iter, "damping": k3.damping, "tol": k3.tol,
                      "init": "closest, clamped to t >= 0", "clamp_positive": True, "lift_function": "raw"}
            else:
                sc = dict(surface.solver_config)
            method = (f"{cls} sag surface, implicit F = G(y,z) - x, implicit solver '{sc['implicit_solver']}': "
                      f"{sc['num_iter']} iterations ({sc['num_iter'] - 1} under no_grad + 1 differentiable), "
                      f"damping {sc['damping']}, init '{sc['init']}' (t0 = -P.V/V.V), clamp t >= 0 "
                      f"{sc['clamp_positive']}, one start per ray, no bounding test; hit = |F| <= tol {sc['tol']} "
                      f"and r <= D/2")

        if v13:
            direction = tlm.Direction.PROGRADE

            def collide():
                t, _normals, valid, _tf_surface, _tf_next = surface(P, V, tf, direction)
                return t, valid
        else:
            def collide():
                out = surface(P, V, tf)
                return out.t, out.valid

    with torch.no_grad():
        t, valid = collide()  # warm-up
        times = []
        for _ in range(max(1, args.repeats)):
            start = time.perf_counter()
            t, valid = collide()
            times.append(time.perf_counter() - start)

    t = t.detach().cpu().numpy().astype("<f8")
    hit = valid.detach().cpu().numpy().astype(bool)
    if args.out:
        tout = np.where(hit, t, np.nan).astype("<f8")
        with open(args.out, "wb") as f:
            f.write(tout.tobytes())
            f.write(hit.astype(np.uint8).tobytes())

    median = statistics.median(times)
    print(json.dumps({
        "peer": "torchlensmaker", "version": version, "torch": torch.__version__, "surface": args.surface,
        "class": cls, "radius": R, "k": K, "coeffs": coeffs, "diameter": D, "dtype": "float64",
        "rays": n, "threads": args.threads, "repeats": len(times), "median_s": round(median, 6),
        "min_s": round(min(times), 6), "rays_per_s": round(n / median, 1), "hits": int(hit.sum()),
        "method": method,
    }))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001
        missing(f"{type(e).__name__}: {e}")
