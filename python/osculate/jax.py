"""osculate's queries as JAX functions, differentiable through jax.custom_jvp rules built from the C
library's exact Jacobians (forward and reverse mode: the rules are linear in the tangents, so JAX
transposes them), callable under jit and vmap. Each evaluation is one XLA custom call whose C
handler (python/src/xla_*.c, registered by osculate._xla) runs the family's C query over the
whole batch inside the compiled program: no Python and no host round trip; vmap adds a batch
dimension to that call, it does not loop.

Every pair query takes (a, pose_a, b, pose_b, ...) as the NumPy API and the C library do. Poses are
[..., 7] arrays (px, py, pz, qw, qx, qy, qz) that broadcast against each other
(osculate.broadcast_poses); the quaternion is used as q / |q|, and autodiff differentiates with
respect to these raw components (osculate.pair_jacobian_to_twist turns such a gradient into the
twist columns of the NumPy API; docs/python.md). Shapes and models (Convex, Body, SDF, Grid, Brep,
Implicit) and settings are static Python arguments; bad shapes and settings raise ValueError when
the function is traced, errors of the C query (a capacity that runs out, a pose that cannot be
normalised) when the program runs. Enable 64-bit floats (jax.config.update("jax_enable_x64",
True)) for derivatives that match finite differences; float32 inputs give float32 results, and
the C library still computes in double precision.
"""

import weakref

import jax
import jax.numpy as jnp
import numpy as np

from . import _ffi, _host, _xla
from ._dcol import _convex, _dcol_settings
from ._ffi import integer as _integer
from ._grid import Grid
from ._jax_force import dcol_wrench, manifold_wrench  # noqa: F401 (contact wrenches)
from ._sdf import SDF

__all__ = ["dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
           "ray_intersect_sag", "dcol_wrench", "manifold_wrench"]


def _dtype(*xs):
    return jnp.result_type(*[jnp.asarray(x).dtype for x in xs], jnp.float32)


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
    osculate.dcol_settings() and threads (0: the default count)."""
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
        # every pair is one found slot: the found-rows products of the padded families, in C
        one = jnp.ones(batch, jnp.int32)
        out = [_xla.found_apply(jac[n][..., None, :, :], one, t).reshape(v.shape)
               for n, v in zip(names, values)]
        return tuple(values), tuple(out)

    return dict(zip(names, f(pa, pb)))


def dcol_alpha(a, pose_a, b, pose_b, **settings):
    """DCOL's alpha alone (< 1: interpenetrating), differentiable in both poses [..., 7]; only
    alpha's Jacobian is computed."""
    return dcol(a, pose_a, b, pose_b, outputs=("alpha",), **settings)["alpha"]


# ------------------------------------------------------------------------------------------------
# contact manifolds


def _padded_contacts(target, outputs, capacity, attrs, pose_a, pose_b):
    """The shared form of manifold, sdf_pair and lmd: one custom call of `target` with the model,
    settings and thread attributes `attrs` returns the values [(name, per-contact shape)] in
    `outputs`' order padded to `capacity` slots, the count [...] and, when differentiated, each
    value's twist Jacobian [..., C, rows, 12] (written for found contacts only) and the pose maps
    (xla_queries.c). Tangents and cotangents go through found_apply and found_transpose: an empty
    slot costs a zero. Returns the dict of the values and "count"."""
    names = [n for n, _ in outputs]
    pa, pb, batch, dtype = _float_poses(pose_a, pose_b)
    v = len(outputs)

    def query(pa, pb, jacobians):
        results = [(batch + (capacity,) + s, dtype) for _, s in outputs]
        results.append((batch, jnp.int32))
        if jacobians:
            results += [(batch + (capacity, max(1, sum(s)), 12), dtype) for _, s in outputs]
            results.append((batch + (2, 3, 4), dtype))
        out = _xla.call(target, results, pa, pb, capacity=capacity, jacobians=int(jacobians),
                        **attrs)
        return out[:v], out[v], out[v + 1:2 * v + 1], out[2 * v + 1] if jacobians else None

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
    result = dict(zip(names, out[:v]))
    result["count"] = out[v]
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
    osculate.manifold_settings() and threads (0: the default count)."""
    from ._manifold import _body, _manifold_settings, _size_of, max_contacts
    threads = _threads(settings)
    cap = max_contacts(a, b, **settings) if capacity is None else _integer(capacity, "capacity")
    if cap < 0:
        raise ValueError("manifold: capacity must be >= 0, got %d" % cap)
    settings = dict(settings)
    size = _size_of(a, b, settings.pop("size", None))
    attrs = dict(a=_xla.model(_body(a, "a"), "a"), b=_xla.model(_body(b, "b"), "b"),
                 settings=_xla.settings(_manifold_settings(size, settings)), threads=threads)
    return _padded_contacts("osculate_manifold", _host.MANIFOLD_OUTPUTS, cap, attrs, pose_a,
                            pose_b)


# ------------------------------------------------------------------------------------------------
# collision points between two SDFs

_grid_sdfs = weakref.WeakKeyDictionary()  # Grid -> its SDF leaf, one per grid for the programs


def _library_sdf(value, name):
    """The library SDF of an SDF or a Grid (the grid's SDF leaf, made once per grid)."""
    if isinstance(value, SDF):
        return value
    if isinstance(value, Grid):
        if value not in _grid_sdfs:
            _grid_sdfs[value] = value.to_sdf()
        return _grid_sdfs[value]
    raise ValueError("sdf_pair: %s must be an SDF or a Grid (smooth mode needs a library SDF), "
                     "got %r" % (name, value))


def sdf_pair(a, pose_a, b, pose_b, capacity=16, **settings):
    """Smooth-mode collision points of SDFs (or Grids) a and b (settings must include temperature >
    0) at poses [..., 7]: a dict of point [..., C, 3] and distance [..., C] (signed, negative inside
    both; deepest first, differentiable in both poses; empty slots 0) and count [...]. One XLA
    custom call (osculate_sdf_pair, osc_sdf_pair_collide_batch) per evaluation; more than
    `capacity` points raise when the program runs. For normals use osculate.sdf_pair_collide.
    Settings: osculate.sdf_pair_settings() and threads (0: the default count)."""
    if not settings.get("temperature", 0) > 0:
        raise ValueError("sdf_pair: derivatives need the smooth mode: pass temperature > 0")
    threads = _threads(settings)
    cap = _integer(capacity, "capacity")
    if cap < 1:
        raise ValueError("sdf_pair: capacity must be >= 1, got %d" % cap)
    s = _ffi.settings(_ffi.lib.osc_sdf_pair_settings_default(), settings, "sdf_pair")
    attrs = dict(a=_xla.model(_library_sdf(a, "a"), "a"), b=_xla.model(_library_sdf(b, "b"), "b"),
                 settings=_xla.settings(s), threads=threads)
    return _padded_contacts("osculate_sdf_pair", _host.SDF_PAIR_OUTPUTS, cap, attrs, pose_a,
                            pose_b)


# ------------------------------------------------------------------------------------------------
# local minimal distances between B-Rep solids


def lmd(a, pose_a, b, pose_b, capacity=32, **settings):
    """The local minimal distances between Breps a and b at poses [..., 7]: a dict of distance
    [..., C] (the signed gap, differentiable in both poses from the C Jacobian; empty slots hold
    the gap at d_max, d_max - eps_a - eps_b) and count [...]. Slots follow the query's order (by
    feature pair), so differentiate sums over contacts of a function that vanishes at d_max. One
    XLA custom call (osculate_lmd, osc_lmd_query_batch) per evaluation; more than `capacity`
    contacts raise when the program runs. Settings: osculate.lmd_settings() (or a dict
    `settings`) and threads (0: the default count)."""
    from ._lmd import _brep, _lmd_settings
    threads = _threads(settings)
    cap = _integer(capacity, "capacity")
    if cap < 0:
        raise ValueError("lmd: capacity must be >= 0, got %d" % cap)
    s = _lmd_settings(settings.pop("settings", None), settings)
    attrs = dict(a=_xla.model(_brep(a, "a"), "a"), b=_xla.model(_brep(b, "b"), "b"),
                 settings=_xla.settings(s), threads=threads)
    return _padded_contacts("osculate_lmd", [("distance", ())], cap, attrs, pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# SDF values


def sdf(model, points, threads=0):
    """phi of an SDF or a Grid at points [..., 3], differentiable in the points (the C gradient).
    One XLA custom call (osculate_sdf: osc_sdf_eval_batch or osc_grid_eval_batch on `threads`
    threads, 0: the default count; small batches run on the calling thread) per evaluation."""
    if not isinstance(model, (SDF, Grid)):
        raise ValueError("sdf: model must be an SDF or a Grid, got %r" % (model,))
    p = jnp.asarray(points)
    if p.shape[-1:] != (3,):
        raise ValueError("sdf: points must have shape (..., 3), got %s" % (p.shape,))
    p = p.astype(_dtype(p))
    attrs = dict(model=_xla.model(model, "model"), grid=int(isinstance(model, Grid)),
                 threads=_integer(threads, "threads"))

    def query(p, gradients):
        results = [(p.shape[:-1], p.dtype)] + ([(p.shape, p.dtype)] if gradients else [])
        return _xla.call("osculate_sdf", results, p, gradients=int(gradients), **attrs)

    @jax.custom_jvp
    def f(p):
        return query(p, False)[0]

    @f.defjvp
    def f_jvp(primals, tangents):
        (p,), (dp,) = primals, tangents
        v, g = query(p, True)
        return v, jnp.sum(g * dp, axis=-1)

    return f(p)


# ------------------------------------------------------------------------------------------------
# rays


def _ray(surface, diameter, transform, settings, origins, directions, parameters):
    """ray_intersect (surface: an Implicit) or ray_intersect_sag (surface None: the sag with
    `parameters` [..., P] and `diameter`): one custom call over the broadcast rays."""
    from ._implicit import _transform
    from ._ray import _implicit, _ray_settings
    names = [n for n, _ in _host.RAY_OUTPUTS]
    args = [jnp.asarray(origins), jnp.asarray(directions)]
    if args[0].shape[-1:] != (3,) or args[1].shape[-1:] != (3,):
        raise ValueError("ray_intersect: origins and directions must have shape (..., 3), got %s "
                         "and %s" % (args[0].shape, args[1].shape))
    attrs = dict(settings=_xla.settings(_ray_settings(dict(settings))))
    placement = _transform(transform)
    attrs["transform"] = _xla.settings(_ffi.lib.osc_implicit_transform_identity()
                                       if placement is None else placement)
    if surface is None:
        args.append(jnp.asarray(parameters))
        if args[2].ndim < 1 or not 2 <= args[2].shape[-1] <= 10:
            raise ValueError("ray_intersect_sag: parameters must have shape (..., P), 2 <= P <= 10 "
                             "(curvature, conic, coefficients), got %s" % (args[2].shape,))
        target, attrs["diameter"] = "osculate_ray_intersect_sag", float(diameter)
    else:
        if _implicit(surface)._callback is not None:
            raise ValueError("ray_intersect: an Implicit.function surface calls back into Python "
                             "and cannot run inside a compiled program; use "
                             "osculate.ray_intersect_many")
        target, attrs["surface"] = "osculate_ray_intersect", _xla.model(surface, "surface")
    batch = jnp.broadcast_shapes(*[x.shape[:-1] for x in args])
    dtype = _dtype(*args)
    args = [jnp.broadcast_to(x.astype(dtype), batch + x.shape[-1:]) for x in args]
    wrt = [x.shape[-1] for x in args]  # the Jacobians' columns: origin, direction, parameters

    def query(args, jacobians):
        results = [(batch + s, dtype) for _, s in _host.RAY_OUTPUTS] + [(batch, jnp.bool_)]
        if jacobians:
            results += [(batch + s + (k,), dtype) for _, s in _host.RAY_OUTPUTS for k in wrt]
        return _xla.call(target, results, *args, jacobians=int(jacobians), **attrs)

    @jax.custom_jvp
    def f(*args):
        return tuple(query(args, False))

    @f.defjvp
    def f_jvp(primals, tangents):
        out = query(primals, True)
        values, hit, jacs = out[:3], out[3], out[4:]
        tangent_out = [sum(_apply(j, t) for j, t in zip(jacs[k * len(wrt):(k + 1) * len(wrt)],
                                                        tangents))
                       for k in range(3)]
        zero_hit = np.zeros(hit.shape, dtype=jax.dtypes.float0)
        return tuple(values) + (hit,), tuple(tangent_out) + (zero_hit,)

    return dict(zip(names + ["hit"], f(*args)))


def ray_intersect(surface, origins, directions, transform=None, **settings):
    """Rays origins + t directions ([..., 3], broadcast against each other) against an Implicit
    surface (not an Implicit.function: its Python callback cannot run in a compiled program): a
    dict of t [...], point, normal [..., 3] (differentiable in origins and directions; zero
    derivatives where a ray misses) and hit [...] (bool). One XLA custom call
    (osculate_ray_intersect, osc_ray_intersect per ray) per evaluation. transform:
    osculate.transform(); settings: osculate.ray_settings()."""
    return _ray(surface, None, transform, settings, origins, directions, None)


def ray_intersect_sag(parameters, diameter, origins, directions, transform=None, **settings):
    """Rays against the even-asphere sag with parameters (curvature, conic, a_0, ...) [..., P]
    (P = 2 + coefficients, broadcast against the rays) over the aperture `diameter`: like
    ray_intersect, differentiable also in the parameters (the lens designer's variables). The
    handler (osculate_ray_intersect_sag) makes one C surface per run of equal parameter rows."""
    return _ray(None, float(diameter), transform, settings, origins, directions, parameters)
