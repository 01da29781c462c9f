"""The host side of osculate.torch's operators: batched C calls through the NumPy API returning
values and their Jacobians as NumPy arrays. The pair queries (*_twist) return the C library's
Jacobians along the twists of A then B (12 columns) as it wrote them, to be contracted with a
cotangent and converted once per pose pair (pose_vjp); sdf and ray return their dense Jacobians.
The output tables (DCOL_OUTPUTS, ...) name the outputs of both front ends (osculate.jax's handlers
write the same outputs in the same order)."""

import numpy as np

from ._dcol import dcol_batch
from ._ffi import broadcast_poses as _broadcast_poses
from ._ffi import floats
from ._implicit import Implicit
from ._lmd import _batch as _lmd_batch, lmd_settings
from ._manifold import _collide_batch as _manifold_batch, _size_of, manifold_settings
from ._ray import ray_intersect_many
from ._sdf_pair import _collide_batch as _sdf_pair_batch

DCOL_OUTPUTS = (("alpha", ()), ("distance", ()), ("point", (3,)), ("point_a", (3,)),
                ("point_b", (3,)), ("normal", (3,)))
MANIFOLD_OUTPUTS = (("point", (3,)), ("distance", ()), ("normal", (3,)), ("weight", ()))
RAY_OUTPUTS = (("t", ()), ("point", (3,)), ("normal", (3,)))


def broadcast_poses(pose_a, pose_b):
    """osculate.broadcast_poses, the one batch rule of the package: (pa [N, 7], pb [N, 7], batch)."""
    return _broadcast_poses(pose_a, pose_b, "poses")


def dcol_twist(a, b, settings, pose_a, pose_b, names):
    """(values, twist): DCOL_OUTPUTS [batch + shape] and the twist Jacobians of the outputs
    `names` (a sequence, empty for none) [N, rows, 12] (A's twist, then B's; N = prod(batch)), as
    the C batch wrote them; the C solve skips what no asked output needs."""
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    r = dcol_batch(a, pa, b, pb, derivatives=tuple(names), **settings)
    values = {name: np.asarray(getattr(r, name)).reshape(batch + shape)
              for name, shape in DCOL_OUTPUTS}
    return values, r.jacobians


def manifold_twist(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Contact manifolds padded to `capacity` slots: (values, twist). values: MANIFOLD_OUTPUTS
    [batch, capacity, ...] (empty slots: distance d_max, weight 0, zero point and normal) and count
    [batch]; twist, with jacobians: the pose Jacobians by name [N, capacity, rows, 12] (A's twist,
    then B's) as the C batch wrote them into unzeroed memory: the slots past a pair's count are
    unspecified, to be read through the count only (oscpy_found_transpose).
    """
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    settings = dict(settings)
    size = _size_of(a, b, settings.pop("size", None))
    threads = settings.pop("threads", 0)
    contacts, twist, outs, _ = _manifold_batch(a, pa, b, pb, jacobians, capacity, threads, size,
                                               True, settings, zero=False)
    n = len(pa)
    count = outs["count"].copy()
    found = np.arange(capacity)[None, :] < count[:, None]
    d_max = manifold_settings(size, **settings)["d_max"]
    values = {}
    for name, shape in MANIFOLD_OUTPUTS:
        v = np.full((n, capacity) + shape, d_max) if name == "distance" \
            else np.zeros((n, capacity) + shape)
        v[found] = contacts[name][found]
        values[name] = v.reshape(batch + (capacity,) + shape)
    values["count"] = count.reshape(batch)
    return values, twist


def sdf(model, points, jacobians):
    """(values [batch], gradients [batch, 3])."""
    p = floats(points, "points")
    if p.shape[-1:] != (3,):
        raise ValueError("points must have shape (..., 3), got %s" % (p.shape,))
    flat = np.ascontiguousarray(p.reshape(-1, 3))
    if jacobians:
        v, g = model.eval(flat, gradient=True)
        return v.reshape(p.shape[:-1]), g.reshape(p.shape)
    return model.eval(flat).reshape(p.shape[:-1]), None


def ray(surface, diameter, transform, settings, origins, directions, parameters, jacobians):
    """Rays against `surface` (an Implicit) or, when `surface` is None, against the sag with
    parameters (curvature, conic, a_0, ...) [..., P] and `diameter`. Returns (values, jacobians):
    RAY_OUTPUTS [batch + shape] and the Jacobians with respect to origin [.., 3], direction [.., 3]
    and parameters [.., P] (sag only), plus a `hit` mask."""
    o = floats(origins, "origins")
    d = floats(directions, "directions")
    if o.shape[-1:] != (3,) or d.shape[-1:] != (3,):
        raise ValueError("origins and directions must have shape (..., 3)")
    if surface is None:
        prm = floats(parameters, "parameters")
        if prm.ndim < 1 or not 2 <= prm.shape[-1] <= 10:
            raise ValueError("sag parameters must have shape (..., P), 2 <= P <= 10 (curvature, "
                             "conic, coefficients), got %s" % (prm.shape,))
        batch = np.broadcast_shapes(o.shape[:-1], d.shape[:-1], prm.shape[:-1])
        prm = np.broadcast_to(prm, batch + prm.shape[-1:]).reshape(-1, prm.shape[-1])
    else:
        batch = np.broadcast_shapes(o.shape[:-1], d.shape[:-1])
        prm = None
    o = np.ascontiguousarray(np.broadcast_to(o, batch + (3,)).reshape(-1, 3))
    d = np.ascontiguousarray(np.broadcast_to(d, batch + (3,)).reshape(-1, 3))
    n = len(o)
    if prm is None:
        groups = [(surface, np.arange(n))]
    else:
        unique, inverse = np.unique(prm, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        groups = [(Implicit.sag(u[0], diameter, u[1], u[2:]), np.flatnonzero(inverse == k))
                  for k, u in enumerate(unique)]
    values = {name: np.zeros((n,) + shape) for name, shape in RAY_OUTPUTS}
    values["hit"] = np.zeros(n, dtype=bool)
    pcount = 0 if prm is None else prm.shape[-1]
    jac = {}
    if jacobians:
        for name, shape in RAY_OUTPUTS:
            jac[name] = {"origin": np.zeros((n,) + shape + (3,)),
                         "direction": np.zeros((n,) + shape + (3,))}
            if pcount:
                jac[name]["parameters"] = np.zeros((n,) + shape + (pcount,))
    for surf, idx in groups:
        r = ray_intersect_many(surf, o[idx], d[idx], transform, jacobians, check_status=True,
                               **settings)
        for name, _ in RAY_OUTPUTS:
            values[name][idx] = r[name]
        values["hit"][idx] = r["hit"]
        if jacobians:
            jac["t"]["origin"][idx] = r["t_origin"]
            jac["t"]["direction"][idx] = r["t_direction"]
            for name in ("point", "normal"):
                jac[name]["origin"][idx] = r[name + "_origin"]
                jac[name]["direction"][idx] = r[name + "_direction"]
            if pcount:
                jac["t"]["parameters"][idx] = r["t_parameters"]
                jac["point"]["parameters"][idx] = r["point_parameters"]
                jac["normal"]["parameters"][idx] = r["normal_parameters"]
    values = {k: v.reshape(batch + v.shape[1:]) for k, v in values.items()}
    jac = {k: {w: a.reshape(batch + a.shape[1:]) for w, a in v.items()} for k, v in jac.items()}
    return values, jac


SDF_PAIR_OUTPUTS = (("point", (3,)), ("distance", ()))


def sdf_pair_twist(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Smooth-mode collision points of two SDFs for each pose pair (osc_sdf_pair_collide_batch),
    padded to `capacity` slots deepest first: (values, twist). values: point [batch, C, 3],
    distance [batch, C] (0 in empty slots), count [batch]; twist, with jacobians: point [N, C, 3,
    12] and distance [N, C, 1, 12] as the C batch wrote them into unzeroed memory (slots past a
    pair's count unspecified, as manifold_twist's)."""
    if not settings.get("temperature", 0) > 0:
        raise ValueError("sdf_pair: derivatives need the smooth mode: pass temperature > 0")
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    r = _sdf_pair_batch(a, pa, b, pb, capacity, jacobians, 0, True, settings, zero=False)
    values = {"point": r.point.reshape(batch + (capacity, 3)),
              "distance": r.distance.reshape(batch + (capacity,)),
              "count": r.count.reshape(batch)}
    twist = {}
    if jacobians:
        twist = {"point": r.point_jacobian, "distance": r.distance_jacobian[:, :, None, :]}
    return values, twist


def lmd_twist(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Local minimal distances between two Breps for each pose pair (osc_lmd_query_batch), padded
    to `capacity` slots in the query's order (by feature pair): (values, twist). values: distance
    [batch, C] (the signed gap; empty slots: the gap at d_max, d_max - eps_a - eps_b), count
    [batch]; twist, with jacobians: distance [N, C, 1, 12] as the C batch wrote them into unzeroed
    memory (slots past a pair's count unspecified, as manifold_twist's). CapacityError when a pair
    has more than `capacity` contacts."""
    s = lmd_settings(**settings)
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    r = _lmd_batch(a, pa, b, pb, None, capacity, 0, True, settings, zero=False)
    found = np.arange(capacity)[None, :] < r.count[:, None]
    distance = np.where(found, r.distance, s["d_max"] - s["eps_a"] - s["eps_b"])
    values = {"distance": distance.reshape(batch + (capacity,)), "count": r.count.reshape(batch)}
    twist = {"distance": r.distance_jacobian[:, :, None, :]} if jacobians else {}
    return values, twist
