"""The host side of osculate.jax and osculate.torch: batched C calls returning values and their
Jacobians with respect to the exposed inputs, as NumPy arrays. Pose inputs are raw (p, q)
7-vectors; the C Jacobians along left twists are converted by osc_twist_jacobian_to_pq, so a pair
query's Jacobian has 14 columns: d/d pose_a (7), then d/d pose_b (7). The *_twist functions
return the C library's twist Jacobians (12 columns) as it wrote them instead, for front ends that
convert a cotangent, not a Jacobian (osculate.torch)."""

import numpy as np

from ._dcol import dcol_batch
from ._ffi import broadcast_poses as _broadcast_poses
from ._ffi import floats
from ._implicit import Implicit
from ._lmd import _batch as _lmd_batch, lmd_settings
from ._manifold import _collide_batch as _manifold_batch, _size_of, manifold_settings
from ._pose import pair_jacobian_to_pq
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


def dcol(a, b, settings, pose_a, pose_b, jacobians):
    """(values, jacobians): DCOL_OUTPUTS [batch + shape] and d/d(pose_a, pose_b)
    [batch + shape + (14,)]."""
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    r = dcol_batch(a, pa, b, pb, derivatives=jacobians, **settings)
    values = {name: np.asarray(getattr(r, name)).reshape(batch + shape)
              for name, shape in DCOL_OUTPUTS}
    jac = {}
    if jacobians:
        for name, shape in DCOL_OUTPUTS:
            j = pair_jacobian_to_pq(r.jacobians[name], pa, pb)  # [N, rows, 14]
            jac[name] = j.reshape(batch + shape + (14,))
    return values, jac


def found_pose_jacobians(jacobians, count, pa, pb):
    """The pose Jacobians of contacts padded to a capacity, converted to raw-pose columns where a
    contact was found and zero elsewhere: twist Jacobians [n, C, rows_k, 12] for each output k
    (slots i < count[n] hold contacts), poses pa, pb [n, 7] -> [n, C, rows_k, 14]. One
    pair_jacobian_to_pq over the found contacts of every output: an empty slot costs its zeros,
    not a conversion."""
    n, cap = jacobians[0].shape[:2]
    count = np.asarray(count, dtype=np.intp)
    found = np.arange(cap)[None, :] < count[:, None]
    rows = [j.shape[2] for j in jacobians]
    out = [np.zeros((n, cap, r, 14)) for r in rows]
    if count.sum():
        owner = np.repeat(np.arange(n), count)  # the pair of each found contact, in mask order
        stacked = np.concatenate([j[found] for j in jacobians], axis=1)  # [found, rows, 12]
        converted = pair_jacobian_to_pq(stacked, pa[owner], pb[owner])
        start = 0
        for o, r in zip(out, rows):
            o[found] = converted[:, start:start + r]
            start += r
    return out


def manifold_twist(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Contact manifolds padded to `capacity` slots: (values, twist). values: MANIFOLD_OUTPUTS
    [batch, capacity, ...] (empty slots: distance d_max, weight 0, zero point and normal) and count
    [batch]; twist, with jacobians: the pose Jacobians by name [N, capacity, rows, 12] (A's twist,
    then B's) as the C batch wrote them into unzeroed memory: the slots past a pair's count are
    unspecified, to be read through the count only (oscpy_found_transpose, found_pose_jacobians).
    """
    pa, pb, batch = broadcast_poses(pose_a, pose_b)
    settings = dict(settings)
    size = _size_of(a, b, settings.pop("size", None))
    contacts, twist, outs, _ = _manifold_batch(a, pa, b, pb, jacobians, capacity, 0, size, True,
                                               settings, zero=False)
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


def manifold(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Contact manifolds padded to `capacity` slots: MANIFOLD_OUTPUTS [batch, capacity, ...]
    (empty slots: distance d_max, weight 0, zero point and normal) and, with jacobians, d/d(pose_a,
    pose_b) [batch, capacity, ..., 14] (zero in empty slots). Only the contacts found are copied
    and converted; the padding is written, not computed."""
    values, twist = manifold_twist(a, b, settings, capacity, pose_a, pose_b, jacobians)
    jac = {}
    if jacobians:
        pa, pb, batch = broadcast_poses(pose_a, pose_b)
        names = [name for name, _ in MANIFOLD_OUTPUTS]
        converted = found_pose_jacobians([twist[name] for name in names],
                                         values["count"].reshape(-1), pa, pb)
        for (name, shape), j in zip(MANIFOLD_OUTPUTS, converted):
            jac[name] = j.reshape(batch + (capacity,) + shape + (14,))
    return values, jac


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


def sdf_pair(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Smooth-mode collision points of two SDFs for each pose pair (osc_sdf_pair_collide_batch),
    padded to `capacity` slots deepest first: point [batch, C, 3], distance [batch, C] (0 in empty
    slots), count [batch], and with jacobians d/d(pose_a, pose_b) [batch, C, ..., 14] (zero in
    empty slots)."""
    values, twist = sdf_pair_twist(a, b, settings, capacity, pose_a, pose_b, jacobians)
    jac = {}
    if jacobians:
        pa, pb, batch = broadcast_poses(pose_a, pose_b)
        point, distance = found_pose_jacobians([twist["point"], twist["distance"]],
                                               values["count"].reshape(-1), pa, pb)
        jac = {"point": point.reshape(batch + point.shape[1:]),
               "distance": distance[:, :, 0].reshape(batch + distance.shape[1:2] + (14,))}
    return values, jac


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


def lmd(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Local minimal distances between two Breps for each pose pair (osc_lmd_query_batch), padded
    to `capacity` slots in the query's order (by feature pair): distance [batch, C] (the signed
    gap; empty slots: the gap at d_max, d_max - eps_a - eps_b), count [batch], and with jacobians
    d distance / d(pose_a, pose_b) [batch, C, 14] (zero in empty slots). CapacityError when a
    pair has more than `capacity` contacts."""
    values, twist = lmd_twist(a, b, settings, capacity, pose_a, pose_b, jacobians)
    jac = {}
    if jacobians:
        pa, pb, batch = broadcast_poses(pose_a, pose_b)
        (distance,) = found_pose_jacobians([twist["distance"]], values["count"].reshape(-1), pa,
                                           pb)
        jac["distance"] = distance[:, :, 0].reshape(batch + (capacity, 14))
    return values, jac
