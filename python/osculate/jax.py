"""osculate's queries as JAX functions, differentiable through jax.custom_jvp rules built from the C
library's exact Jacobians (forward and reverse mode: the rules are linear in the tangents, so JAX
transposes them), callable under jit and vmap (each call is one jax.pure_callback into a batched C
call; vmap adds a batch dimension to that call, it does not loop).

Every pair query takes (a, pose_a, b, pose_b, ...) as the NumPy API and the C library do. Poses are
[..., 7] arrays (px, py, pz, qw, qx, qy, qz) that broadcast against each other
(osculate.broadcast_poses); the quaternion is used as q / |q|, and autodiff differentiates with
respect to these raw components (osculate.pair_jacobian_to_twist turns such a gradient into the
twist columns of the NumPy API; docs/python.md). Shapes and models (Convex, Body, SDF, Implicit)
and settings are static Python arguments. Enable 64-bit floats
(jax.config.update("jax_enable_x64", True)) for derivatives that match finite differences; in 32
bits the C library still computes in double precision.
"""

import jax
import jax.numpy as jnp
import numpy as np

from . import _host, _xla
from ._dcol import _convex, _dcol_settings
from ._ffi import integer as _integer
from ._jax_force import dcol_wrench, manifold_wrench  # noqa: F401 (contact wrenches)

__all__ = ["dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
           "ray_intersect_sag", "dcol_wrench", "manifold_wrench"]


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
# the custom calls' common parts


def _float_poses(pose_a, pose_b):
    """pose_a, pose_b as arrays [..., 7] of one float type, broadcast to one shape."""
    pa, pb = jnp.asarray(pose_a), jnp.asarray(pose_b)
    if pa.shape[-1:] != (7,) or pb.shape[-1:] != (7,):
        raise ValueError("poses must have shape (..., 7), got %s and %s" % (pa.shape, pb.shape))
    dtype = _dtype(pa, pb)
    batch = jnp.broadcast_shapes(pa.shape[:-1], pb.shape[:-1])
    return (jnp.broadcast_to(pa.astype(dtype), batch + (7,)),
            jnp.broadcast_to(pb.astype(dtype), batch + (7,)), batch, dtype)


def _threads(settings):
    """The `threads` setting of a front-end query (0: the default thread count, as in the NumPy
    API; small batches run on the calling thread), as the handlers' attribute."""
    return _integer(settings.pop("threads", 0), "threads")


# ------------------------------------------------------------------------------------------------
# DCOL

_DCOL_NAMES = [n for n, _ in _host.DCOL_OUTPUTS]
_DCOL_SHAPES = dict(_host.DCOL_OUTPUTS)


def dcol(a, pose_a, b, pose_b, outputs=None, **settings):
    """DCOL between Convex shapes a and b at poses [..., 7] (broadcast against each other): a dict
    of alpha [...], distance [...], point, point_a, point_b, normal [..., 3], differentiable with
    respect to both poses. `outputs`: the names to compute (default all); derivatives are computed
    for these only. One XLA custom call (osculate_dcol) per evaluation; vmap batches it. Settings:
    osculate.dcol_settings() and threads (1)."""
    names = _DCOL_NAMES if outputs is None else list(outputs)
    unknown = [n for n in names if n not in _DCOL_SHAPES]
    if unknown or not names:
        raise ValueError("dcol: outputs must be among %s, got %r" % (_DCOL_NAMES, outputs))
    threads = _threads(settings)
    attrs = dict(a=_xla.model(_convex(a, "a"), "a"), b=_xla.model(_convex(b, "b"), "b"),
                 settings=_xla.settings(_dcol_settings(settings)), threads=threads)
    mask = sum(1 << _DCOL_NAMES.index(n) for n in names)
    pa, pb, batch, dtype = _float_poses(pose_a, pose_b)

    def query(pa, pb, jacobians):
        results = [(batch + s, dtype) for _, s in _host.DCOL_OUTPUTS]
        if jacobians:
            results += [(batch + (max(1, sum(_DCOL_SHAPES[n])),) + (12,), dtype)
                        for n in _DCOL_NAMES if mask >> _DCOL_NAMES.index(n) & 1]
            results.append((batch + (2, 3, 4), dtype))
        out = _xla.call("osculate_dcol", results, pa, pb, jacobians=mask if jacobians else 0,
                        **attrs)
        values = dict(zip(_DCOL_NAMES, out[:6]))
        return [values[n] for n in names], out[6:]

    @jax.custom_jvp
    def f(pa, pb):
        return tuple(query(pa, pb, False)[0])

    @f.defjvp
    def f_jvp(primals, tangents):
        values, rest = query(*primals, True)
        t = _xla.pose_tangents(rest[-1], *tangents)
        # the Jacobians come in the handler's order (_DCOL_NAMES), the values in `names`' order
        jac = dict(zip([n for n in _DCOL_NAMES if n in names], rest[:-1]))
        out = [jnp.einsum("...rc,...c->...r", jac[n], t).reshape(v.shape)
               for n, v in zip(names, values)]
        return tuple(values), tuple(out)

    return dict(zip(names, f(pa, pb)))


def dcol_alpha(a, pose_a, b, pose_b, **settings):
    """DCOL's alpha alone (< 1: interpenetrating), differentiable in both poses [..., 7]; only
    alpha's Jacobian is computed."""
    return dcol(a, pose_a, b, pose_b, outputs=("alpha",), **settings)["alpha"]


# ------------------------------------------------------------------------------------------------
# contact manifolds


def _padded_contacts(query, outputs, pa, pb):
    """The shared form of manifold, sdf_pair and lmd. query(pa, pb, jacobians) -> (values, count,
    twist Jacobians, pose maps): values [(name, per-contact shape)] in `outputs`' order padded to
    the capacity, count [...] and, with jacobians, each output's twist Jacobian [..., C, rows, 12]
    (written for found contacts only) and the pose maps. Tangents and cotangents go through
    found_apply and found_transpose: an empty slot costs a zero. Returns the dict with "count"."""
    names = [n for n, _ in outputs]

    @jax.custom_jvp
    def f(pa, pb):
        values, count, _, _ = query(pa, pb, False)
        return tuple(values) + (count,)

    @f.defjvp
    def f_jvp(primals, tangents):
        values, count, jacs, maps = query(*primals, True)
        t = _xla.pose_tangents(maps, *tangents)
        out = [_xla.found_apply(j, count, t).reshape(v.shape) for j, v in zip(jacs, values)]
        zero_count = np.zeros(count.shape, dtype=jax.dtypes.float0)
        return tuple(values) + (count,), tuple(out) + (zero_count,)

    out = f(pa, pb)
    result = dict(zip(names, out[:len(names)]))
    result["count"] = out[len(names)]
    return result


def manifold(a, pose_a, b, pose_b, capacity=None, **settings):
    """The contact manifold of Bodies a and b at poses [..., 7], padded to `capacity` slots
    (default osculate.max_contacts: never runs out, and an empty slot costs only its zeros): a
    dict of point [..., C, 3], distance [..., C] (signed: negative is penetration), normal
    [..., C, 3], weight [..., C] (differentiable in both poses) and count [...]. Empty slots have
    weight 0 and distance d_max. Which slot holds which contact changes with the poses, so
    differentiate sums over contacts (sum of weight * distance, ...), which are smooth: a contact
    enters and leaves with weight 0. One XLA custom call (osculate_manifold) per evaluation; an
    explicit capacity that runs out raises when the program runs. Settings:
    osculate.manifold_settings() and threads (1)."""
    from ._manifold import _body, _manifold_settings, _size_of, max_contacts
    threads = _threads(settings)
    cap = max_contacts(a, b, **settings) if capacity is None else _integer(capacity, "capacity")
    settings = dict(settings)
    size = _size_of(a, b, settings.pop("size", None))
    attrs = dict(a=_xla.model(_body(a, "a"), "a"), b=_xla.model(_body(b, "b"), "b"),
                 settings=_xla.settings(_manifold_settings(size, settings)), threads=threads,
                 capacity=cap)
    pa, pb, batch, dtype = _float_poses(pose_a, pose_b)

    def query(pa, pb, jacobians):
        results = [(batch + (cap,) + s, dtype) for _, s in _host.MANIFOLD_OUTPUTS]
        results.append((batch, jnp.int32))
        if jacobians:
            results += [(batch + (cap, max(1, sum(s)), 12), dtype)
                        for _, s in _host.MANIFOLD_OUTPUTS]
            results.append((batch + (2, 3, 4), dtype))
        out = _xla.call("osculate_manifold", results, pa, pb, jacobians=int(jacobians), **attrs)
        return out[:4], out[4], out[5:9], out[9] if jacobians else None

    return _padded_contacts(query, _host.MANIFOLD_OUTPUTS, pa, pb)


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
    return _padded_contacts(lambda pa, pb, jac: _host.sdf_pair(a, b, settings, cap, pa, pb, jac),
                            _host.SDF_PAIR_OUTPUTS, cap, pose_a, pose_b)


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
    return _padded_contacts(lambda pa, pb, jac: _host.lmd(a, b, settings, cap, pa, pb, jac),
                            [("distance", ())], cap, pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# SDF values


def sdf(model, points):
    """phi of an SDF (or Grid) at points [..., 3], differentiable in the points (the C gradient)."""

    def host(jac):
        def run(p):
            v, g = _host.sdf(model, p, jac)
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
    names = [n for n, _ in _host.RAY_OUTPUTS]
    with_params = parameters is not None
    wrt = ("origin", "direction") + (("parameters",) if with_params else ())

    def shapes(o, d, prm, jac):
        batch = jnp.broadcast_shapes(o.shape[:-1], d.shape[:-1],
                                     prm.shape[:-1] if with_params else ())
        out = [(batch + s, None) for _, s in _host.RAY_OUTPUTS] + [(batch, jnp.bool_)]
        if jac:
            for _, s in _host.RAY_OUTPUTS:
                out += [(batch + s + (3,), None), (batch + s + (3,), None)]
                if with_params:
                    out.append((batch + s + (prm.shape[-1],), None))
        return out

    def host(jac):
        def run(o, d, *prm):
            v, j = _host.ray(surface, diameter, transform, settings, o, d,
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
