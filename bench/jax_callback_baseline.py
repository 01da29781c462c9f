"""The pure_callback JAX front end of osculate, frozen as a benchmark baseline.

This is python/osculate/jax.py and the parts of python/osculate/_host.py it calls as they were at
commit 1a19587 (each query one jax.pure_callback into a batched C call made through osculate's
NumPy API, differentiable through jax.custom_jvp rules that apply the C library's Jacobians). It
is kept, unchanged in behaviour, to measure the XLA FFI custom calls that replace it against
(bench/bench_python_frontends.py); it is not part of the package and nothing else uses it.

It imports only osculate's public NumPy API (never osculate._host or osculate.jax), so it keeps
working while those modules change. Where _host.py called private helpers of the package, the
public function that wraps them is called instead (manifold_collide_batch for the private
_collide_batch, broadcast_poses, max_contacts, pair_jacobian_to_pq); the C work is the same.

The functions take the arguments of osculate.jax's: dcol, dcol_alpha, manifold, sdf_pair, lmd,
sdf, ray_intersect, ray_intersect_sag (see python/osculate/jax.py and docs/python.md).
"""

import operator

import jax
import jax.numpy as jnp
import numpy as np

import osculate as osc

__all__ = ["dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
           "ray_intersect_sag"]


def _integer(value, name):
    """value as a Python int (a capacity); ValueError naming `name` for a bool or a non-integer."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError("%s must be an integer, got the bool %r" % (name, value))
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError("%s must be an integer, got %r" % (name, value)) from None


# ------------------------------------------------------------------------------------------------
# the host side (python/osculate/_host.py at 1a19587): batched C calls returning values and their
# Jacobians with respect to the raw poses (14 columns: d/d pose_a, then d/d pose_b)

DCOL_OUTPUTS = (("alpha", ()), ("distance", ()), ("point", (3,)), ("point_a", (3,)),
                ("point_b", (3,)), ("normal", (3,)))
MANIFOLD_OUTPUTS = (("point", (3,)), ("distance", ()), ("normal", (3,)), ("weight", ()))
RAY_OUTPUTS = (("t", ()), ("point", (3,)), ("normal", (3,)))
SDF_PAIR_OUTPUTS = (("point", (3,)), ("distance", ()))


def _broadcast_poses(pose_a, pose_b):
    """(pa [N, 7], pb [N, 7], batch): osculate.broadcast_poses."""
    return osc.broadcast_poses(pose_a, pose_b, "poses")


def _host_dcol(a, b, settings, pose_a, pose_b, jacobians):
    """(values, jacobians): DCOL_OUTPUTS [batch + shape] and d/d(pose_a, pose_b)
    [batch + shape + (14,)]."""
    pa, pb, batch = _broadcast_poses(pose_a, pose_b)
    r = osc.dcol_batch(a, pa, b, pb, derivatives=jacobians, **settings)
    values = {name: np.asarray(getattr(r, name)).reshape(batch + shape)
              for name, shape in DCOL_OUTPUTS}
    jac = {}
    if jacobians:
        for name, shape in DCOL_OUTPUTS:
            j = osc.pair_jacobian_to_pq(r.jacobians[name], pa, pb)  # [N, rows, 14]
            jac[name] = j.reshape(batch + shape + (14,))
    return values, jac


def _found_pose_jacobians(jacobians, count, pa, pb):
    """Twist Jacobians [n, C, rows_k, 12] of contacts padded to a capacity (slots i < count[n]
    hold contacts) -> raw-pose Jacobians [n, C, rows_k, 14], zero in empty slots; one
    pair_jacobian_to_pq over the found contacts of every output."""
    n, cap = jacobians[0].shape[:2]
    count = np.asarray(count, dtype=np.intp)
    found = np.arange(cap)[None, :] < count[:, None]
    rows = [j.shape[2] for j in jacobians]
    out = [np.zeros((n, cap, r, 14)) for r in rows]
    if count.sum():
        owner = np.repeat(np.arange(n), count)  # the pair of each found contact, in mask order
        stacked = np.concatenate([j[found] for j in jacobians], axis=1)  # [found, rows, 12]
        converted = osc.pair_jacobian_to_pq(stacked, pa[owner], pb[owner])
        start = 0
        for o, r in zip(out, rows):
            o[found] = converted[:, start:start + r]
            start += r
    return out


def _body_size(a, b, size):
    """The size the manifold settings scale with: `size`, else min(a.size, b.size) when both
    bodies have one (Body.from_mesh), else None."""
    if size is not None:
        return size
    sizes = [getattr(a, "size", None), getattr(b, "size", None)]
    return None if any(s is None for s in sizes) else min(sizes)


def _host_manifold(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Contact manifolds padded to `capacity` slots: MANIFOLD_OUTPUTS [batch, capacity, ...]
    (empty slots: distance d_max, weight 0, zero point and normal) and, with jacobians,
    d/d(pose_a, pose_b) [batch, capacity, ..., 14] (zero in empty slots)."""
    pa, pb, batch = _broadcast_poses(pose_a, pose_b)
    settings = dict(settings)
    size = _body_size(a, b, settings.pop("size", None))
    r = osc.manifold_collide_batch(a, pa, b, pb, derivatives=jacobians, capacity=capacity,
                                   size=size, **settings)
    n = len(pa)
    count = np.asarray(r.count).copy()
    found = np.arange(capacity)[None, :] < count[:, None]
    d_max = osc.manifold_settings(size, **settings)["d_max"]
    values = {}
    for name, shape in MANIFOLD_OUTPUTS:
        v = np.full((n, capacity) + shape, d_max) if name == "distance" \
            else np.zeros((n, capacity) + shape)
        v[found] = getattr(r, name)[found]
        values[name] = v.reshape(batch + (capacity,) + shape)
    jac = {}
    if jacobians:
        # the batch's scalar outputs have Jacobians [N, C, 12]: one row each
        twist = [getattr(r, name + "_jacobian").reshape((n, capacity) + shape + (12,))
                 .reshape(n, capacity, -1, 12) for name, shape in MANIFOLD_OUTPUTS]
        converted = _found_pose_jacobians(twist, count, pa, pb)
        for (name, shape), j in zip(MANIFOLD_OUTPUTS, converted):
            jac[name] = j.reshape(batch + (capacity,) + shape + (14,))
    values["count"] = count.reshape(batch)
    return values, jac


def _host_sdf(model, points, jacobians):
    """(values [batch], gradients [batch, 3])."""
    p = np.asarray(points, dtype=np.float64)
    if p.shape[-1:] != (3,):
        raise ValueError("points must have shape (..., 3), got %s" % (p.shape,))
    flat = np.ascontiguousarray(p.reshape(-1, 3))
    if jacobians:
        v, g = model.eval(flat, gradient=True)
        return v.reshape(p.shape[:-1]), g.reshape(p.shape)
    return model.eval(flat).reshape(p.shape[:-1]), None


def _host_ray(surface, diameter, transform, settings, origins, directions, parameters, jacobians):
    """Rays against `surface` (an Implicit) or, when `surface` is None, against the sag with
    parameters (curvature, conic, a_0, ...) [..., P] and `diameter`: (values, jacobians), the
    RAY_OUTPUTS [batch + shape] and their Jacobians with respect to origin, direction and
    parameters (sag only), plus a `hit` mask."""
    o = np.asarray(origins, dtype=np.float64)
    d = np.asarray(directions, dtype=np.float64)
    if o.shape[-1:] != (3,) or d.shape[-1:] != (3,):
        raise ValueError("origins and directions must have shape (..., 3)")
    if surface is None:
        prm = np.asarray(parameters, dtype=np.float64)
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
        groups = [(osc.Implicit.sag(u[0], diameter, u[1], u[2:]), np.flatnonzero(inverse == k))
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
        r = osc.ray_intersect_many(surf, o[idx], d[idx], transform, jacobians, check_status=True,
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


def _host_sdf_pair(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Smooth-mode collision points of two SDFs for each pose pair (one sdf_pair_collide per
    pair), padded to `capacity` slots deepest first: point [batch, C, 3], distance [batch, C]
    (0 in empty slots), count [batch], and with jacobians d/d(pose_a, pose_b) [batch, C, ..., 14]
    (zero in empty slots)."""
    if not settings.get("temperature", 0) > 0:
        raise ValueError("sdf_pair: derivatives need the smooth mode: pass temperature > 0")
    pa, pb, batch = _broadcast_poses(pose_a, pose_b)
    n = len(pa)
    values = {"point": np.zeros((n, capacity, 3)), "distance": np.zeros((n, capacity)),
              "count": np.zeros(n, dtype=np.int32)}
    if jacobians:
        twist = {"point": np.zeros((n, capacity, 3, 12)),
                 "distance": np.zeros((n, capacity, 1, 12))}
    for i in range(n):
        r = osc.sdf_pair_collide(a, pa[i], b, pb[i], capacity=capacity, derivatives=jacobians,
                                 **settings)
        k = len(r)
        values["point"][i, :k] = r.point
        values["distance"][i, :k] = r.distance
        values["count"][i] = k
        if jacobians:
            twist["point"][i, :k] = r.point_jacobian
            twist["distance"][i, :k, 0] = r.distance_jacobian
    jac = {}
    if jacobians:
        point, distance = _found_pose_jacobians([twist["point"], twist["distance"]],
                                                values["count"], pa, pb)
        jac = {"point": point, "distance": distance[:, :, 0]}
    values = {k: v.reshape(batch + v.shape[1:]) for k, v in values.items()}
    jac = {k: v.reshape(batch + v.shape[1:]) for k, v in jac.items()}
    return values, jac


def _host_lmd(a, b, settings, capacity, pose_a, pose_b, jacobians):
    """Local minimal distances between two Breps for each pose pair (one lmd per pair), padded
    to `capacity` slots in the query's order: distance [batch, C] (the signed gap; empty slots:
    the gap at d_max, d_max - eps_a - eps_b), count [batch], and with jacobians
    d distance / d(pose_a, pose_b) [batch, C, 14] (zero in empty slots)."""
    s = osc.lmd_settings(**settings)
    pa, pb, batch = _broadcast_poses(pose_a, pose_b)
    n = len(pa)
    values = {"distance": np.full((n, capacity), s["d_max"] - s["eps_a"] - s["eps_b"]),
              "count": np.zeros(n, dtype=np.int32)}
    twist = np.zeros((n, capacity, 1, 12)) if jacobians else None
    for i in range(n):
        r = osc.lmd(a, pa[i], b, pb[i], capacity=capacity, **settings)
        k = len(r)
        values["distance"][i, :k] = r.distance
        values["count"][i] = k
        if jacobians:
            twist[i, :k, 0] = r.distance_jacobian
    jac = {}
    if jacobians:
        jac["distance"] = _found_pose_jacobians([twist], values["count"], pa, pb)[0][:, :, 0]
    values = {k: v.reshape(batch + v.shape[1:]) for k, v in values.items()}
    jac = {k: v.reshape(batch + v.shape[1:]) for k, v in jac.items()}
    return values, jac


# ------------------------------------------------------------------------------------------------
# the JAX side (python/osculate/jax.py at 1a19587)


def _dtype(*xs):
    return jnp.result_type(*[jnp.asarray(x).dtype for x in xs], jnp.float32)


def _callback(host, shapes, dtype, *args, vmap_method="expand_dims"):
    """jax.pure_callback of host(*numpy args) -> flat list of arrays with `shapes`. Under vmap,
    "expand_dims" makes one batched call (inputs whose batch dimensions line up from the right,
    as poses do), "sequential" one call per batch entry."""
    spec = [jax.ShapeDtypeStruct(s, dt if dt is not None else dtype) for s, dt in shapes]

    def run(*a):
        out = host(*[np.asarray(x) for x in a])
        return [np.asarray(o, dtype=s.dtype) for o, s in zip(out, spec)]

    return jax.pure_callback(run, spec, *args, vmap_method=vmap_method)


def _apply(jacobian, tangent):
    """jacobian [..., *out, k] applied to tangent [..., k] -> [..., *out]."""
    extra = jacobian.ndim - tangent.ndim
    t = tangent.reshape(tangent.shape[:-1] + (1,) * extra + tangent.shape[-1:])
    return jnp.sum(jacobian * t, axis=-1)


# ------------------------------------------------------------------------------------------------
# DCOL


def dcol(a, pose_a, b, pose_b, **settings):
    """DCOL between Convex shapes a and b at poses [..., 7] (broadcast against each other): a dict
    of alpha [...], distance [...], point, point_a, point_b, normal [..., 3], differentiable with
    respect to both poses. Settings: osculate.dcol_settings()."""
    names = [n for n, _ in DCOL_OUTPUTS]

    def shapes(pa, pb, jac):
        batch = jnp.broadcast_shapes(pa.shape[:-1], pb.shape[:-1])
        out = [(batch + s, None) for _, s in DCOL_OUTPUTS]
        if jac:
            out += [(batch + s + (14,), None) for _, s in DCOL_OUTPUTS]
        return out

    def host(jac):
        def run(pa, pb):
            v, j = _host_dcol(a, b, settings, pa, pb, jac)
            return [v[n] for n in names] + ([j[n] for n in names] if jac else [])
        return run

    @jax.custom_jvp
    def f(pa, pb):
        return tuple(_callback(host(False), shapes(pa, pb, False), _dtype(pa, pb), pa, pb))

    @f.defjvp
    def f_jvp(primals, tangents):
        pa, pb = primals
        dpa, dpb = tangents
        out = _callback(host(True), shapes(pa, pb, True), _dtype(pa, pb), pa, pb)
        values, jacs = out[:len(names)], out[len(names):]
        batch = values[0].shape
        dp = jnp.concatenate([jnp.broadcast_to(dpa, batch + (7,)),
                              jnp.broadcast_to(dpb, batch + (7,))], axis=-1)
        return tuple(values), tuple(_apply(j, dp) for j in jacs)

    pa = jnp.asarray(pose_a)
    pb = jnp.asarray(pose_b)
    if pa.shape[-1:] != (7,) or pb.shape[-1:] != (7,):
        raise ValueError("poses must have shape (..., 7), got %s and %s" % (pa.shape, pb.shape))
    return dict(zip(names, f(pa, pb)))


def dcol_alpha(a, pose_a, b, pose_b, **settings):
    """DCOL's alpha alone (< 1: interpenetrating), differentiable in both poses [..., 7]."""
    return dcol(a, pose_a, b, pose_b, **settings)["alpha"]


# ------------------------------------------------------------------------------------------------
# contact manifolds


def _padded_contacts(query, outputs, cap, pose_a, pose_b):
    """The shared form of manifold, sdf_pair and lmd: query(pa, pb, jac) -> (values, jacobians)
    dicts over `outputs` [(name, per-contact shape)] padded to `cap` slots, plus "count"; each
    output's Jacobian has 14 pose columns (A's 7, then B's). Returns the dict of outputs and count."""
    names = [n for n, _ in outputs]

    def shapes(pa, pb, jac):
        batch = jnp.broadcast_shapes(pa.shape[:-1], pb.shape[:-1])
        out = [(batch + (cap,) + s, None) for _, s in outputs]
        out.append((batch, jnp.int32))
        if jac:
            out += [(batch + (cap,) + s + (14,), None) for _, s in outputs]
        return out

    def host(jac):
        def run(pa, pb):
            v, j = query(pa, pb, jac)
            return [v[n] for n in names] + [v["count"]] + ([j[n] for n in names] if jac else [])
        return run

    @jax.custom_jvp
    def f(pa, pb):
        return tuple(_callback(host(False), shapes(pa, pb, False), _dtype(pa, pb), pa, pb))

    @f.defjvp
    def f_jvp(primals, tangents):
        pa, pb = primals
        dpa, dpb = tangents
        out = _callback(host(True), shapes(pa, pb, True), _dtype(pa, pb), pa, pb)
        k = len(names)
        values, count, jacs = out[:k], out[k], out[k + 1:]
        batch = count.shape
        dp = jnp.concatenate([jnp.broadcast_to(dpa, batch + (7,)),
                              jnp.broadcast_to(dpb, batch + (7,))], axis=-1)[..., None, :]
        zero_count = np.zeros(count.shape, dtype=jax.dtypes.float0)
        return tuple(values) + (count,), tuple(_apply(j, dp) for j in jacs) + (zero_count,)

    out = f(jnp.asarray(pose_a), jnp.asarray(pose_b))
    result = dict(zip(names, out[:len(names)]))
    result["count"] = out[len(names)]
    return result


def manifold(a, pose_a, b, pose_b, capacity=None, **settings):
    """The contact manifold of Bodies a and b at poses [..., 7], padded to `capacity` slots
    (default osculate.max_contacts: never runs out): a dict of point [..., C, 3], distance
    [..., C] (signed: negative is penetration), normal [..., C, 3], weight [..., C]
    (differentiable in both poses) and count [...]. Empty slots have weight 0 and distance d_max.
    Which slot holds which contact changes with the poses, so differentiate sums over contacts
    (sum of weight * distance, ...), which are smooth: a contact
    enters and leaves with weight 0. Settings: osculate.manifold_settings()."""
    cap = osc.max_contacts(a, b, **settings) if capacity is None \
        else _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host_manifold(a, b, settings, cap, pa, pb, jac),
                            MANIFOLD_OUTPUTS, cap, pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# collision points between two SDFs


def sdf_pair(a, pose_a, b, pose_b, capacity=16, **settings):
    """Smooth-mode collision points of two SDFs (settings must include temperature > 0) at poses
    [..., 7]: a dict of point [..., C, 3] and distance [..., C] (signed, negative inside both;
    deepest first, differentiable
    in both poses; empty slots 0) and count [...]. One C query per pose pair (the C library has no
    batch of it), so vmap loops on the host. For normals use osculate.sdf_pair_collide."""
    if not settings.get("temperature", 0) > 0:
        raise ValueError("sdf_pair: derivatives need the smooth mode: pass temperature > 0")
    cap = _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host_sdf_pair(a, b, settings, cap, pa, pb, jac),
                            SDF_PAIR_OUTPUTS, cap, pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# local minimal distances between B-Rep solids


def lmd(a, pose_a, b, pose_b, capacity=32, **settings):
    """The local minimal distances between Breps a and b at poses [..., 7]: a dict of distance
    [..., C] (the signed gap, differentiable in both poses from the C Jacobian; empty slots hold
    the gap at d_max, d_max - eps_a - eps_b) and count [...]. Slots follow the query's order (by
    feature pair), so differentiate sums over contacts of a function that vanishes at d_max. One C
    query per pose pair (vmap loops on the host); CapacityError beyond `capacity` contacts.
    Settings: osculate.lmd_settings()."""
    cap = _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host_lmd(a, b, settings, cap, pa, pb, jac),
                            [("distance", ())], cap, pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# SDF values


def sdf(model, points):
    """phi of an SDF (or Grid) at points [..., 3], differentiable in the points (the C gradient)."""

    def host(jac):
        def run(p):
            v, g = _host_sdf(model, p, jac)
            return [v, g] if jac else [v]
        return run

    @jax.custom_jvp
    def f(p):
        return _callback(host(False), [(p.shape[:-1], None)], _dtype(p), p)[0]

    @f.defjvp
    def f_jvp(primals, tangents):
        (p,), (dp,) = primals, tangents
        v, g = _callback(host(True), [(p.shape[:-1], None), (p.shape, None)], _dtype(p), p)
        return v, jnp.sum(g * dp, axis=-1)

    return f(jnp.asarray(points))


# ------------------------------------------------------------------------------------------------
# rays


def _ray(surface, diameter, transform, settings, origins, directions, parameters):
    names = [n for n, _ in RAY_OUTPUTS]
    with_params = parameters is not None
    wrt = ("origin", "direction") + (("parameters",) if with_params else ())

    def shapes(o, d, prm, jac):
        batch = jnp.broadcast_shapes(o.shape[:-1], d.shape[:-1],
                                     prm.shape[:-1] if with_params else ())
        out = [(batch + s, None) for _, s in RAY_OUTPUTS] + [(batch, jnp.bool_)]
        if jac:
            for _, s in RAY_OUTPUTS:
                out += [(batch + s + (3,), None), (batch + s + (3,), None)]
                if with_params:
                    out.append((batch + s + (prm.shape[-1],), None))
        return out

    def host(jac):
        def run(o, d, *prm):
            v, j = _host_ray(surface, diameter, transform, settings, o, d,
                             prm[0] if prm else None, jac)
            out = [v[n] for n in names] + [v["hit"]]
            if jac:
                for n in names:
                    out += [j[n][w] for w in wrt]
            return out
        return run

    args = (origins, directions) + ((parameters,) if with_params else ())
    # a sag's parameters have fewer batch dimensions than the rays, so a vmap cannot line them up
    # from the right: one call per batch entry (each lens is its own C surface anyway)
    vmap_method = "sequential" if with_params else "expand_dims"

    @jax.custom_jvp
    def f(*a):
        prm = a[2] if with_params else None
        return tuple(_callback(host(False), shapes(a[0], a[1], prm, False), _dtype(*a), *a,
                               vmap_method=vmap_method))

    @f.defjvp
    def f_jvp(primals, tangents):
        prm = primals[2] if with_params else None
        out = _callback(host(True), shapes(primals[0], primals[1], prm, True), _dtype(*primals),
                        *primals, vmap_method=vmap_method)
        values, hit, jacs = out[:3], out[3], out[4:]
        batch = hit.shape
        ts = [jnp.broadcast_to(t, batch + t.shape[-1:]) for t in tangents]
        tangent_out = []
        for k in range(3):
            blocks = jacs[k * len(wrt):(k + 1) * len(wrt)]
            tangent_out.append(sum(_apply(jb, t) for jb, t in zip(blocks, ts)))
        zero_hit = np.zeros(hit.shape, dtype=jax.dtypes.float0)
        return tuple(values) + (hit,), tuple(tangent_out) + (zero_hit,)

    out = f(*[jnp.asarray(x) for x in args])
    return dict(zip(names + ["hit"], out))


def ray_intersect(surface, origins, directions, transform=None, **settings):
    """Rays origins + t directions ([..., 3]) against an Implicit surface: a dict of t [...],
    point, normal [..., 3] (differentiable in origins and directions) and hit [...] (bool).
    transform: osculate.transform(); settings: osculate.ray_settings()."""
    return _ray(surface, None, transform, settings, origins, directions, None)


def ray_intersect_sag(parameters, diameter, origins, directions, transform=None, **settings):
    """Rays against the even-asphere sag with parameters (curvature, conic, a_0, ...) [..., P]
    (P = 2 + coefficients) over the aperture `diameter`: like ray_intersect, differentiable also
    in the parameters (the lens designer's variables)."""
    return _ray(None, float(diameter), transform, settings, origins, directions, parameters)
