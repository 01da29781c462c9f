#!/usr/bin/env python3
"""Rays for bench/peers/tlm_rays.py, and an independent reference to check its answers (numpy only).

    rays.py gen FILE N [--seed S=1] [--x0 -5] [--half-width 5] [--tilt 0.05]
        N rays, float64 [N][6] little endian: origin (x0, y, z) with y, z uniform in [-w, w], direction
        (1, a, b) normalised with a, b uniform in [-tilt, tilt].
    rays.py check RAYS OUT --radius R --diameter D [--k K] [--coeffs a4,a6,a8] [--sphere-closed-form]
        OUT is tlm_rays.py --out's file (N float64 t, NaN = miss, then N uint8 hits). Reference: the first root
        t >= 0 of G(y(t), z(t)) - x(t) with r <= D/2, G the sag (conic + even asphere terms): 256 samples of the ray
        between the planes of the sag's bounds, the first sign change with an end inside r <= D/2, bisection to
        machine precision, kept if the root is inside r <= D/2 (the sag must be defined a little beyond D/2); with
        --sphere-closed-form (k = 0, no coeffs) the ray-sphere quadratic with the sphere of radius |R| centred at
        (R, 0, 0), root on the cap (x on the vertex side, r <= D/2). Prints one JSON line of agreement figures.
"""

import argparse
import json
import sys

import numpy as np


def gen(args):
    rng = np.random.default_rng(args.seed)
    n = args.n
    rays = np.empty((n, 6), dtype="<f8")
    rays[:, 0] = args.x0
    rays[:, 1:3] = rng.uniform(-args.half_width, args.half_width, size=(n, 2))
    d = np.ones((n, 3))
    d[:, 1:] = rng.uniform(-args.tilt, args.tilt, size=(n, 2))
    rays[:, 3:] = d / np.linalg.norm(d, axis=1, keepdims=True)
    rays.tofile(args.file)


def sag(r2, c, k, coeffs):
    s = 1.0 - (1.0 + k) * c * c * r2
    g = c * r2 / (1.0 + np.sqrt(np.maximum(s, 0.0)))
    for i, a in enumerate(coeffs):
        g = g + a * r2 ** (2 + i)
    return g


def reference_sag(P, V, c, k, coeffs, D):
    """First t >= 0 with G(r) = x and r <= D/2, NaN if none (robust: sampling + bisection)."""
    n = P.shape[0]
    tau2 = (D / 2) ** 2
    rr = np.linspace(0.0, D / 2, 4097) ** 2
    gs = sag(rr, c, k, coeffs)
    xmin, xmax = gs.min() - 1e-9, gs.max() + 1e-9
    # span of t where x is within [xmin, xmax] (rays are not perpendicular to the axis here)
    ta = (xmin - P[:, 0]) / V[:, 0]
    tb = (xmax - P[:, 0]) / V[:, 0]
    t0 = np.maximum(np.minimum(ta, tb), 0.0)
    t1 = np.maximum(ta, tb)
    S = 256
    out = np.full(n, np.nan)
    for lo in range(0, n, 65536):
        hi = min(n, lo + 65536)
        p, v = P[lo:hi], V[lo:hi]
        ts = t0[lo:hi, None] + (t1 - t0)[lo:hi, None] * np.linspace(0.0, 1.0, S)[None, :]
        pts = p[:, None, :] + ts[..., None] * v[:, None, :]
        r2 = pts[..., 1] ** 2 + pts[..., 2] ** 2
        f = sag(r2, c, k, coeffs) - pts[..., 0]
        inside = r2 <= tau2
        # a sign change with at least one end inside the aperture (the sag is evaluated beyond it too), so that
        # roots within one sample step of the rim are found; the root itself must then be inside
        ok = (inside[:, :-1] | inside[:, 1:]) & (np.sign(f[:, :-1]) != np.sign(f[:, 1:]))
        has = ok.any(axis=1)
        j = np.argmax(ok, axis=1)
        rows = np.nonzero(has)[0]
        a = ts[rows, j[rows]]
        b = ts[rows, j[rows] + 1]
        pp, vv = p[rows], v[rows]

        def F(t):
            q = pp + t[:, None] * vv
            return sag(q[:, 1] ** 2 + q[:, 2] ** 2, c, k, coeffs) - q[:, 0]

        fa = F(a)
        for _ in range(80):
            m = 0.5 * (a + b)
            fm = F(m)
            left = np.sign(fm) == np.sign(fa)
            a = np.where(left, m, a)
            fa = np.where(left, fm, fa)
            b = np.where(left, b, m)
        tr = 0.5 * (a + b)
        q = pp + tr[:, None] * vv
        keep = q[:, 1] ** 2 + q[:, 2] ** 2 <= tau2
        out[lo + rows[keep]] = tr[keep]
    return out


def reference_sphere(P, V, R, D):
    C = np.array([R, 0.0, 0.0])
    oc = P - C
    b = np.sum(oc * V, axis=1)
    cc = np.sum(oc * oc, axis=1) - R * R
    disc = b * b - cc
    sq = np.sqrt(np.maximum(disc, 0.0))
    out = np.full(P.shape[0], np.nan)
    roots = np.stack((-b - sq, -b + sq), axis=1)
    cap_x = R - np.sign(R) * np.sqrt(R * R - (D / 2) ** 2)  # x at the rim
    for col in (0, 1):
        t = roots[:, col]
        q = P + t[:, None] * V
        on_cap = (disc >= 0) & (q[:, 1] ** 2 + q[:, 2] ** 2 <= (D / 2) ** 2) & (np.abs(q[:, 0]) <= abs(cap_x) + 1e-12)
        on_cap &= t >= 0
        take = on_cap & np.isnan(out)
        out[take] = t[take]
    return out


def check(args):
    rays = np.fromfile(args.rays, dtype="<f8").reshape(-1, 6)
    n = rays.shape[0]
    raw = np.fromfile(args.out, dtype=np.uint8)
    t = np.frombuffer(raw[: 8 * n].tobytes(), dtype="<f8")
    hit = raw[8 * n :].astype(bool)
    P, V = rays[:, :3], rays[:, 3:]
    coeffs = [float(c) for c in args.coeffs.split(",") if c.strip()]
    if args.sphere_closed_form:
        ref = reference_sphere(P, V, args.radius, args.diameter)
        kind = "closed-form ray-sphere, cap of the sphere |x - (R,0,0)| = |R|, r <= D/2"
    else:
        ref = reference_sag(P, V, 1.0 / args.radius, args.k, coeffs, args.diameter)
        kind = "first root of G(r) - x along the ray, r <= D/2 (sampling + bisection)"
    ref_hit = ~np.isnan(ref)
    both = hit & ref_hit
    err = np.abs(t[both] - ref[both])
    # points of the peer's hits: residual of the sag equation
    q = P[hit] + t[hit, None] * V[hit]
    resid = np.abs(sag(q[:, 1] ** 2 + q[:, 2] ** 2, 1.0 / args.radius, args.k, coeffs) - q[:, 0])
    rr = np.sqrt(q[:, 1] ** 2 + q[:, 2] ** 2)
    fn = ref_hit & ~hit
    # where the peer misses a true hit, how far from the rim is the true hit point
    qf = P[fn] + ref[fn, None] * V[fn]
    rim_gap = args.diameter / 2 - np.sqrt(qf[:, 1] ** 2 + qf[:, 2] ** 2)
    fp = hit & ~ref_hit
    qp = P[fp] + t[fp, None] * V[fp]
    rim_gap_p = args.diameter / 2 - np.sqrt(qp[:, 1] ** 2 + qp[:, 2] ** 2)
    print(json.dumps({
        "reference": kind, "rays": n, "peer_hits": int(hit.sum()), "reference_hits": int(ref_hit.sum()),
        "hit_fraction": round(float(hit.mean()), 6), "both": int(both.sum()),
        "peer_only": int(fp.sum()), "peer_only_max_dist_to_rim": float(rim_gap_p.max()) if fp.any() else None,
        "reference_only": int(fn.sum()),
        "reference_only_max_dist_to_rim": float(rim_gap.max()) if fn.any() else None,
        "t_abs_err_max": float(err.max()) if both.any() else None,
        "t_abs_err_median": float(np.median(err)) if both.any() else None,
        "t_abs_err_p99": float(np.quantile(err, 0.99)) if both.any() else None,
        "count_t_err_gt_1e-6": int((err > 1e-6).sum()),
        "sag_residual_max": float(resid.max()) if hit.any() else None,
        "hit_r_max": float(rr.max()) if hit.any() else None,
        "t_min_hit": float(t[hit].min()) if hit.any() else None,
        "samples": [[float(t[i]), float(ref[i])] for i in range(min(n, 5))],
    }))


def main(argv):
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("file")
    g.add_argument("n", type=int)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--x0", type=float, default=-5.0)
    g.add_argument("--half-width", type=float, default=5.0)
    g.add_argument("--tilt", type=float, default=0.05)
    c = sub.add_parser("check")
    c.add_argument("rays")
    c.add_argument("out")
    c.add_argument("--radius", type=float, required=True)
    c.add_argument("--diameter", type=float, required=True)
    c.add_argument("--k", type=float, default=0.0)
    c.add_argument("--coeffs", default="")
    c.add_argument("--sphere-closed-form", action="store_true")
    args = ap.parse_args(argv)
    gen(args) if args.cmd == "gen" else check(args)


if __name__ == "__main__":
    main(sys.argv[1:])
