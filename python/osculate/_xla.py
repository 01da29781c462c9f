"""The XLA side of osculate.jax: the C handlers of python/src/xla_*.c registered as XLA FFI targets
for the CPU, the attributes they read (model addresses, settings structs), and the two linear
primitives, found_apply and found_transpose, through which the padded families' tangents and
cotangents touch the contacts found only.

A handler runs inside the compiled program: no Python and no host round trip per call. The models
a compiled program uses must outlive it, and a program may be cached and rerun long after the
Python call that traced it, so every model handed to a custom call here holds one reference on its
C object until the process ends (closing or collecting the Python model then frees nothing that a
program may still read).
"""

import ctypes as C
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax.interpreters import ad, batching, mlir

from . import _ffi as F

try:  # jax >= 0.5
    from jax import ffi as _jax_ffi
except ImportError:  # jax 0.4.34 - 0.4.38
    from jax.extend import ffi as _jax_ffi
try:
    from jax.extend.core import Primitive
except ImportError:  # pragma: no cover - older jax
    from jax.core import Primitive

PLATFORM = "cpu"  # a GPU handler would be registered beside these, one registration per platform
TARGETS = ("osculate_found_apply", "osculate_found_transpose", "osculate_dcol", "osculate_manifold",
           "osculate_sdf_pair", "osculate_lmd", "osculate_sdf", "osculate_ray_intersect",
           "osculate_ray_intersect_sag", "osculate_dcol_wrench", "osculate_manifold_wrench")

for _name in TARGETS:
    _jax_ffi.register_ffi_target(_name, _jax_ffi.pycapsule(getattr(F._cdll, _name)),
                                 platform=PLATFORM)

_kept = {}  # model address -> its oscpy_ref, held until the process ends
_kept_lock = threading.Lock()


def model(m, name):
    """The address of model `m` as a custom-call attribute (uint64), its C object kept alive for
    the compiled programs that may use it. ValueError naming `name` for a closed model."""
    handle = m._as_parameter_  # ValueError when closed
    with _kept_lock:
        if handle not in _kept:
            F.lib.oscpy_ref_acquire(m._ref)
            _kept[handle] = m._ref
    return np.uint64(handle)


def settings(struct):
    """The bytes of a C settings struct as a uint8 array attribute."""
    return np.frombuffer(C.string_at(C.addressof(struct), C.sizeof(struct)), dtype=np.uint8)


def call(target, results, *args, **attrs):
    """One custom call of `target` with results [(shape, dtype)]: vmap adds leading dimensions to
    every argument (the handlers treat every leading dimension as a batch)."""
    spec = [jax.ShapeDtypeStruct(s, d) for s, d in results]
    return _jax_ffi.ffi_call(target, spec, vmap_method="broadcast_all")(*args, **attrs)


def pose_tangents(maps, dpa, dpb):
    """The twist tangents [..., 12] (A's, then B's) of raw pose tangents dpa, dpb [..., 7], with
    the pose maps [..., 2, 3, 4] of the handlers (d omega / d q of each pose): linear, so JAX
    transposes it into the raw poses' cotangents."""
    wa = jnp.einsum("...ij,...j->...i", maps[..., 0, :, :], dpa[..., 3:])
    wb = jnp.einsum("...ij,...j->...i", maps[..., 1, :, :], dpb[..., 3:])
    return jnp.concatenate([dpa[..., :3], wa, dpb[..., :3], wb], axis=-1)


# ------------------------------------------------------------------------------------------------
# found_apply(J [..., C, R, K], count [...], t [..., K]) -> [..., C, R], zero past count, and its
# transpose found_transpose(J, count, ct [..., C, R]) -> [..., K]; linear in t and ct. The vector
# may carry one more dimension N after J's leading ones, t [..., N, K] or ct [..., N, C, R]: N
# vectors against the same Jacobians, the result [..., N, C, R] or [..., N, K]. The batching rule
# puts a vmapped vector's batch there when J and count are not batched (jacrev, jacfwd, vmap of a
# vjp or jvp), so that the C product reads J once per item and never broadcasts it to the batch.

found_apply_p = Primitive("osculate_found_apply")
found_transpose_p = Primitive("osculate_found_transpose")


def found_apply(jacobians, count, tangent):
    """J t over the found slots of each batch item ([..., C, R]; 0 in empty slots); a tangent
    [..., N, K] gives [..., N, C, R]."""
    return found_apply_p.bind(jacobians, count, tangent.astype(jacobians.dtype))


def found_transpose(jacobians, count, cotangent):
    """J^T ct summed over the found slots of each batch item ([..., K]); a cotangent
    [..., N, C, R] gives [..., N, K]."""
    return found_transpose_p.bind(jacobians, count, cotangent.astype(jacobians.dtype))


def _vectors(j, v, transpose):
    """The vector dimension of a found-rows product's vector v: () or (N,)."""
    lead = j.ndim - 3
    plain = lead + (2 if transpose else 1)
    if v.ndim not in (plain, plain + 1):
        raise TypeError("osculate found-rows product: vector of shape %s for Jacobians %s"
                        % (v.shape, j.shape))
    return tuple(v.shape[lead:lead + v.ndim - plain])


def _apply_abstract(j, count, t):
    return jax.core.ShapedArray(j.shape[:-3] + _vectors(j, t, False) + j.shape[-3:-1], j.dtype)


def _transpose_abstract(j, count, ct):
    return jax.core.ShapedArray(j.shape[:-3] + _vectors(j, ct, True) + j.shape[-1:], j.dtype)


def _impl(prim):
    # outside jit, a primitive runs as its own one-equation compiled program
    compiled = jax.jit(prim.bind)
    return lambda *args: compiled(*args)


found_apply_p.def_impl(_impl(found_apply_p))
found_transpose_p.def_impl(_impl(found_transpose_p))
found_apply_p.def_abstract_eval(_apply_abstract)
found_transpose_p.def_abstract_eval(_transpose_abstract)
mlir.register_lowering(found_apply_p, _jax_ffi.ffi_lowering("osculate_found_apply"),
                       platform=PLATFORM)
mlir.register_lowering(found_transpose_p, _jax_ffi.ffi_lowering("osculate_found_transpose"),
                       platform=PLATFORM)


def _linear_jvp(prim):
    def jvp(primals, tangents):
        j, count, v = primals
        dj, _, dv = tangents
        if type(dj) is not ad.Zero:
            raise NotImplementedError("osculate.jax: second derivatives of a query are not "
                                      "available (the C library gives first derivatives)")
        out = prim.bind(j, count, v)
        if type(dv) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        return out, prim.bind(j, count, dv)
    return jvp


ad.primitive_jvps[found_apply_p] = _linear_jvp(found_apply_p)
ad.primitive_jvps[found_transpose_p] = _linear_jvp(found_transpose_p)


def _transpose_rule(other):
    def rule(ct, j, count, v):
        if ad.is_undefined_primal(j) or ad.is_undefined_primal(count):
            raise NotImplementedError("osculate.jax: only the tangent of a found-rows product is "
                                      "linear")
        if type(ct) is ad.Zero:
            return [None, None, ad.Zero(v.aval)]
        return [None, None, other.bind(j, count, ct)]
    return rule


ad.primitive_transposes[found_apply_p] = _transpose_rule(found_transpose_p)
ad.primitive_transposes[found_transpose_p] = _transpose_rule(found_apply_p)


def _batch_rule(prim):
    transpose = prim is found_transpose_p

    def rule(args, dims):
        j, count, v = args
        dj, dcount, dv = dims
        if dj is None and dcount is None:
            # the vmapped vector's batch becomes (or joins) its vector dimension, after J's
            # leading dimensions: one product reads J once per item for all of them
            lead = j.ndim - 3
            had = v.ndim - 1 - lead - (2 if transpose else 1)  # 1 where v has N already
            v = jnp.moveaxis(v, dv, lead)
            size = v.shape[lead]
            v = v.reshape(v.shape[:lead] + (-1,) + v.shape[lead + 1 + had:])
            out = prim.bind(j, count, v)
            if had:
                out = out.reshape(out.shape[:lead] + (size, -1) + out.shape[lead + 1:])
            return out, lead
        size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
        args = [batching.bdim_at_front(a, d, size) for a, d in zip(args, dims)]
        return prim.bind(*args), 0
    return rule


batching.primitive_batchers[found_apply_p] = _batch_rule(found_apply_p)
batching.primitive_batchers[found_transpose_p] = _batch_rule(found_transpose_p)


def _shard_map_rules():
    """shard_map's replication check (jax < 0.6) needs a rule per primitive: the found-rows
    products act on each shard's rows alone, which is its standard rule (the output replicated
    over the mesh axes over which every input is)."""
    try:
        from jax.experimental import shard_map
    except ImportError:  # pragma: no cover
        return
    if hasattr(shard_map, "register_standard_check"):
        for prim in (found_apply_p, found_transpose_p):
            shard_map.register_standard_check(prim)
            shard_map.register_standard_rewrite(prim)


_shard_map_rules()
