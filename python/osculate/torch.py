"""osculate's queries as PyTorch custom operators (torch.library, namespace `osculate`): each query
is an op with a CPU kernel (one batched C call through the NumPy layer), a Meta kernel (the output
shapes and dtypes, no C call) and an Autograd kernel (a torch.autograd.Function) whose backward is
itself an op, so a graph through osculate is made of ops (torch.ops.osculate.<name>).

Every pair query takes (a, pose_a, b, pose_b, ...) as the NumPy API and the C library do. Poses are
[..., 7] tensors (px, py, pz, qw, qx, qy, qz) that broadcast against each other
(osculate.broadcast_poses); the quaternion is used as q / |q|, and gradients are with respect to
these raw components (osculate.pair_jacobian_to_twist turns them into the twist columns of the
NumPy API; docs/python.md). Use float64 tensors for gradients that match finite differences
(torch.autograd.gradcheck); the C library computes in double precision whatever the dtype. The
ops run on the CPU: the functions below copy other devices' tensors to it and their results back.

Forward computes the C library's Jacobians only when an input requires grad, and keeps them as
the C library wrote them, along the twists of A and B (12 columns); backward contracts the incoming
gradient with the Jacobians of the contacts found only (oscpy_found_transpose) and converts the
[12] twist cotangent of each batch item to the raw poses once (pair_jacobian_to_pq, linear), so
its cost is proportional to the contacts, not to the capacity.

The functions apply the autograd.Functions themselves (outside the dispatcher), which on PyTorch 2
makes them work under torch.func (grad, jacrev, vmap of grad) and torch.compile(fullgraph=True);
from PyTorch 2.4 each op has a batching rule (one batched C call per vmap). docs/python.md,
"PyTorch versions", says what differs from 1.13.

dcol_wrench and manifold_wrench are the contact wrenches of osculate.jax (docs/force.md, §10): a
query and osculate.contact_forces per batch item, differentiable in both poses and velocities.

Models (Convex, Body, SDF, Brep, Implicit) and settings cannot cross an op's schema: register()
maps them to an int handle that the ops take. The registry holds the models it was given, alive,
until release_models(); the functions below register their arguments on each call (the same
objects and settings give the same handle).
"""

import ctypes as C
import itertools
import threading

import numpy as np
import torch

from . import _host
from ._ffi import ForceSettings, integer as _integer, lib
from ._force import ForceContacts, contact_forces
from ._pose import pair_jacobian_to_pq

__all__ = ["dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
           "ray_intersect_sag", "dcol_wrench", "manifold_wrench", "register", "release_models"]

# ------------------------------------------------------------------------------------------------
# the model registry: int handles for the models and settings the ops cannot take

_QUERIES = ("dcol", "manifold", "sdf_pair", "lmd", "sdf", "ray", "dcol_wrench", "manifold_wrench")
_registry = {}  # handle -> (query, models, settings, derived values such as a default capacity)
_handles = {}  # (query, model ids, settings) -> handle
_registry_lock = threading.Lock()
_next_handle = itertools.count(1)


def register(query, *models, **settings):
    """The int handle under which the ops find `models` and `settings` for `query` ("dcol":
    Convex a, b; "manifold": Body a, b; "sdf_pair": SDF (or Grid) a, b; "lmd": Brep a, b; "sdf":
    an SDF or Grid; "ray": an Implicit surface or None for the sag, the aperture diameter (None
    for a surface), the transform (or None); "dcol_wrench", "manifold_wrench": as "dcol" and
    "manifold", the settings also the force model's). The same objects and settings give the same
    handle; the registry keeps the objects alive until release_models()."""
    if query not in _QUERIES:
        raise ValueError("register: query must be one of %s, got %r" % (_QUERIES, query))
    key = (query, _key(models), _key(settings))
    handle = _handles.get(key)
    return _add(key, query, models, settings) if handle is None else handle


def _add(key, query, models, settings):
    """The handle of a key that register() did not find, made under the lock (one handle per key
    whatever the threads). Apart from register() so that torch.compile traces a registered
    lookup without meeting the lock."""
    with _registry_lock:
        handle = _handles.get(key)
        if handle is None:
            handle = next(_next_handle)
            _registry[handle] = (query, tuple(models), dict(settings), {})
            _handles[key] = handle
    return handle


def _key(value):
    """A hashable key equal for equal settings: numbers and arrays by value (bit for bit), dicts
    and sequences by their items, any other object (a model) by identity, which the registry
    keeps valid by holding the object."""
    if isinstance(value, dict):
        return ("dict",) + tuple([(str(k), _key(value[k])) for k in sorted(value, key=str)])
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple, np.ndarray)):
        return ("sequence",) + tuple([_key(v) for v in value])
    # constants spelled out, not type(value).__name__, which dynamo keeps as an attribute lookup
    # (a key then never equal to the stored one, so a registered lookup missed in torch.compile)
    if value is None:
        return ("None",)
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if isinstance(value, (int, np.integer)):
        return ("int", int(value))
    if isinstance(value, (float, np.floating)):
        return ("float", repr(float(value)))
    if isinstance(value, str):
        return ("str", value)
    return ("object", id(value))


def release_models():
    """Drops every registered model and setting (the ops then refuse the handles made before)."""
    with _registry_lock:
        _registry.clear()
        _handles.clear()


def _entry(handle, query):
    entry = _registry.get(handle)
    if entry is None or entry[0] != query:
        raise ValueError("osculate.%s: %r is not a handle of register(%r, ...) (or was released by "
                         "release_models())" % (query, handle, query))
    return entry


# ------------------------------------------------------------------------------------------------
# shared pieces

_LIB = torch.library.Library("osculate", "DEF")  # kept: the registrations live as long as it
_F64 = torch.float64


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64, copy=False)


def _out(array, dtype):
    return torch.from_numpy(np.asarray(array, order="C")).to(dtype)


def _none(like=None):
    """The placeholder of a Jacobian output that was not asked for (on like's device)."""
    return torch.empty(0, dtype=_F64) if like is None else like.new_empty(0, dtype=_F64)


def _float_dtype(*tensors):
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype


def _pose_batch(pose_a, pose_b, where):
    """The broadcast batch shape of poses [..., 7]; ValueError naming `where` otherwise."""
    if pose_a.shape[-1:] != (7,) or pose_b.shape[-1:] != (7,):
        raise ValueError("osculate.%s: poses must have shape (..., 7), got %s and %s"
                         % (where, tuple(pose_a.shape), tuple(pose_b.shape)))
    try:
        return tuple(torch.broadcast_shapes(pose_a.shape[:-1], pose_b.shape[:-1]))
    except RuntimeError as e:
        raise ValueError("osculate.%s: poses %s and %s do not broadcast (%s)"
                         % (where, tuple(pose_a.shape), tuple(pose_b.shape), e)) from None


def _float_tensor(x, like=None):
    """x as a floating tensor (float64 for integers and lists), of like's dtype when given."""
    t = torch.as_tensor(x)
    if like is not None:
        return t.to(like.dtype)
    return t if t.is_floating_point() else t.to(_F64)


class _BelowAutograd:
    """Runs the ops' kernels below the Autograd key (inside an Autograd kernel, calling the op
    again reaches its CPU or Meta kernel). torch 1.13's guard is active while it exists; torch 2's
    is a context manager that acts on entering it."""

    def __enter__(self):
        guard = torch._C._AutoDispatchBelowAutograd()
        if hasattr(guard, "__enter__"):
            guard.__enter__()
        self._guard = guard

    def __exit__(self, *exc):
        guard, self._guard = self._guard, None
        if hasattr(guard, "__exit__"):
            guard.__exit__(*exc)
        del guard


# batching rules (torch.vmap, torch.func): PyTorch >= 2.4 registers them with register_vmap; without
# one (1.13 to 2.3) vmap runs an op once per entry (its fallback, with a performance warning)
_register_vmap = getattr(torch.library, "register_vmap", None)


def _lift(tensors, in_dims):
    """The physical tensors of a batching rule for inputs [..., item] that broadcast against each
    other (one trailing item dimension): each with the vmapped dimension first (of size 1 when
    not batched), then ones up to the largest logical batch rank, then its logical shape, so that
    the op's broadcast batch shape is [batch size, logical batch shape]. None stays None."""
    ranks = [t.dim() - 1 - (d is not None) for t, d in zip(tensors, in_dims) if t is not None]
    top = max(ranks)
    out = []
    for t, d in zip(tensors, in_dims):
        if t is None:
            out.append(None)
            continue
        t = t.unsqueeze(0) if d is None else t.movedim(d, 0)
        out.append(t.reshape(t.shape[:1] + (1,) * (top + 2 - t.dim()) + t.shape[1:]))
    return out


def _items(t, size):
    """A batch of `size` Jacobians [size * N, ...] as [size, N, ...] (their vmapped dimension)."""
    return t.reshape((size, t.shape[0] // max(size, 1)) + tuple(t.shape[1:]))


# ------------------------------------------------------------------------------------------------
# the pose queries: dcol, dcol_alpha (dense), manifold, sdf_pair, lmd (padded to a capacity)


class _Spec:
    """A pose query's op: its outputs [(name, per-item shape)] (differentiable), whether they are
    padded to a capacity (then also a count), and the C rows of each output's Jacobian."""

    def __init__(self, name, outputs, padded, least_capacity=None):
        self.name, self.outputs, self.padded = name, outputs, padded
        self.least_capacity = least_capacity
        self.rows = [int(np.prod(shape, dtype=int)) for _, shape in outputs]
        values = ", ".join("Tensor %s" % n for n, _ in outputs)
        jacobians = ", ".join("Tensor %s_jacobian" % n for n, _ in outputs)
        capacity = "int capacity, " if padded else ""
        count = "Tensor count, " if padded else ""
        self.schema = ("%s(Tensor pose_a, Tensor pose_b, int handle, %sbool jacobians) -> "
                       "(%s, %s%s)" % (name, capacity, values, count, jacobians))

    def meta(self, pose_a, pose_b, handle, *rest):
        """The outputs' shapes and dtypes: values [batch, (capacity,) ...] in the poses' dtype,
        count int32 [batch], Jacobians float64 [N, (capacity,) rows, 12] or [0]."""
        capacity, jacobians = rest if self.padded else (None, rest[0])
        batch = self.check(pose_a, pose_b, capacity)
        n = int(np.prod(batch, dtype=int))
        slots = (capacity,) if self.padded else ()
        dtype = _float_dtype(pose_a, pose_b)
        out = [pose_a.new_empty(batch + slots + shape, dtype=dtype) for _, shape in self.outputs]
        if self.padded:
            out.append(pose_a.new_empty(batch, dtype=torch.int32))
        out += [pose_a.new_empty((n,) + slots + (rows, 12) if jacobians else (0,), dtype=_F64)
                for rows in self.rows]
        return tuple(out)

    def check(self, pose_a, pose_b, capacity):
        """The batch shape of the poses; ValueError for bad poses or a capacity below the least
        the query takes."""
        if self.padded and capacity < self.least_capacity:
            raise ValueError("osculate.%s: capacity must be >= %d, got %d"
                             % (self.name, self.least_capacity, capacity))
        return _pose_batch(pose_a, pose_b, self.name)

    def pack(self, values, twist, dtype, jacobians):
        """A CPU kernel's outputs from the host's values and twist Jacobians (NumPy)."""
        out = [_out(values[n], dtype) for n, _ in self.outputs]
        if self.padded:
            out.append(torch.from_numpy(np.asarray(values["count"], dtype=np.int32, order="C")))
        for (n, _), rows in zip(self.outputs, self.rows):
            if not jacobians:
                out.append(_none())
                continue
            j = twist[n]
            out.append(torch.from_numpy(j.reshape(j.shape[:-2] + (rows, 12))))
        return tuple(out)


def _function(name, forward, setup_context, backward, vmap):
    """A torch.autograd.Function named `name` from forward(*inputs) -> outputs (no ctx),
    setup_context(ctx, inputs, outputs), a once-differentiable backward(ctx, *grads) and
    vmap(function, info, in_dims, *inputs) -> (outputs, out_dims), which applies the Function
    to the batch with its vmapped dimension first. On PyTorch >= 2.0 these are its staticmethods,
    the form functorch's transforms need (torch.func.grad, jacrev, vmap of grad, grad of vmap);
    PyTorch 1.13 has no setup_context, and there forward(ctx, *inputs) calls both (and vmap is
    not called). Whatever a backward reads is an input or an output of forward."""
    body = {"__doc__": forward.__doc__,
            "backward": staticmethod(torch.autograd.function.once_differentiable(backward)),
            "vmap": staticmethod(lambda info, in_dims, *inputs: vmap(
                function, info, in_dims, *inputs))}
    if hasattr(torch.autograd.Function, "setup_context"):
        body.update(forward=staticmethod(forward), setup_context=staticmethod(setup_context))
    else:
        def forward_with_context(ctx, *inputs):
            outputs = forward(*inputs)
            setup_context(ctx, inputs, outputs)
            return outputs
        body["forward"] = staticmethod(forward_with_context)
    function = type(name, (torch.autograd.Function,), body)
    return function


def _pose_forward(spec, handle, capacity, pose_a, pose_b):
    """A pose query's derivatives: forward calls the op with the Jacobians (outputs values,
    count, Jacobians: the Jacobians are outputs so that backward may read them; grad mode is off
    in forward, so the op goes below autograd), backward is the op pose_vjp."""
    extra = (capacity,) if spec.padded else ()
    return tuple(getattr(torch.ops.osculate, spec.name)(pose_a, pose_b, handle, *extra, True))


def _pose_setup(ctx, inputs, outputs):
    spec, _, _, pose_a, pose_b = inputs
    k = len(spec.outputs)
    extras = list(outputs[k:])  # count (padded) and the Jacobians
    count = extras[0] if spec.padded else None
    twist = extras[1:] if spec.padded else extras
    ctx.spec = spec
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(pose_a, pose_b, count, *twist)
    ctx.mark_non_differentiable(*extras)


def _pose_backward(ctx, *grads):
    spec = ctx.spec
    pose_a, pose_b, count, *twist = ctx.saved_tensors
    jacobians, cotangents = [], []
    for j, g in zip(twist, grads[:len(spec.outputs)]):
        if g is None:
            continue
        n, rows = j.shape[0], j.shape[-2]
        # a dense query is one slot of a padded one: [N, rows, 12] -> [N, 1, rows, 12]
        jacobians.append(j if spec.padded else j.reshape(n, 1, rows, 12))
        cotangents.append(g.reshape(n, -1, rows))
    if not jacobians:
        return (None,) * 5
    v = torch.ops.osculate.pose_vjp(jacobians, cotangents, count, pose_a, pose_b)
    batch = _pose_batch(pose_a, pose_b, spec.name)
    v = v.reshape(batch + (14,))
    ga = v[..., :7].sum_to_size(pose_a.shape).to(pose_a.dtype) if ctx.needs_input_grad[3] else None
    gb = v[..., 7:].sum_to_size(pose_b.shape).to(pose_b.dtype) if ctx.needs_input_grad[4] else None
    return None, None, None, ga, gb


def _pose_vmap(function, info, in_dims, spec, handle, capacity, pose_a, pose_b):
    """A pose query's Function on a vmapped batch: applied once to the poses with the vmapped
    dimension first (one batched C call; backward then sees the batch as a batch dimension)."""
    pose_a, pose_b = _lift((pose_a, pose_b), in_dims[3:])
    out = function.apply(spec, handle, capacity, pose_a, pose_b)
    first = len(spec.outputs) + spec.padded
    tail = tuple(_items(j, info.batch_size) for j in out[first:])
    return tuple(out[:first]) + tail, (0,) * len(out)


_PoseQuery = _function("_PoseQuery", _pose_forward, _pose_setup, _pose_backward, _pose_vmap)


def _query(spec, handle, capacity, pose_a, pose_b):
    """The values (and count) of a pose query: through _PoseQuery when a pose requires grad, else
    the op without Jacobians. The functions apply the Function themselves, outside the
    dispatcher, where torch.func's transforms reach it (from an Autograd kernel, PyTorch 2.5's
    transforms refuse an autograd.Function, as they refuse torch.library.register_autograd)."""
    if _differentiated(pose_a, pose_b):
        out = _PoseQuery.apply(spec, handle, capacity, pose_a, pose_b)
    else:
        extra = (capacity,) if spec.padded else ()
        out = getattr(torch.ops.osculate, spec.name)(pose_a, pose_b, handle, *extra, False)
    return out[:len(spec.outputs) + spec.padded]


def _placeholders(out, first, jacobians, like):
    """out with its Jacobians (from index `first` on) replaced by [0] placeholders unless
    `jacobians` (the Autograd kernels compute them for backward whatever the caller asked)."""
    if jacobians:
        return tuple(out)
    return tuple(out[:first]) + tuple(_none(like) for _ in out[first:])


def _define(spec, cpu):
    """Defines the op of `spec` with the CPU kernel `cpu`, the Meta and Autograd kernels (and the
    batching rule where torch.library.register_vmap exists, PyTorch >= 2.4)."""
    _LIB.define(spec.schema)
    _LIB.impl(spec.name, cpu, "CPU")
    _LIB.impl(spec.name, spec.meta, "Meta")
    op = getattr(torch.ops.osculate, spec.name)
    first = len(spec.outputs) + spec.padded
    if spec.padded:
        def autograd(pose_a, pose_b, handle, capacity, jacobians):
            if not _grad_needed(pose_a, pose_b):
                with _BelowAutograd():
                    return op(pose_a, pose_b, handle, capacity, jacobians)
            out = _PoseQuery.apply(spec, handle, capacity, pose_a, pose_b)
            return _placeholders(out, first, jacobians, pose_a)
    else:
        def autograd(pose_a, pose_b, handle, jacobians):
            if not _grad_needed(pose_a, pose_b):
                with _BelowAutograd():
                    return op(pose_a, pose_b, handle, jacobians)
            out = _PoseQuery.apply(spec, handle, None, pose_a, pose_b)
            return _placeholders(out, first, jacobians, pose_a)
    _LIB.impl(spec.name, autograd, "Autograd")
    if _register_vmap is not None:
        _register_vmap("osculate::" + spec.name, _pose_query_vmap(op, first), lib=_LIB)


def _pose_query_vmap(op, first):
    """The batching rule of a pose query's op: one op call on the poses with the vmapped
    dimension first (the op's own broadcast batch; one batched C call), the Jacobians [size * N,
    ...] reshaped to [size, N, ...]."""
    def rule(info, in_dims, pose_a, pose_b, handle, *rest):
        pose_a, pose_b = _lift((pose_a, pose_b), in_dims[:2])
        out = op(pose_a, pose_b, handle, *rest)
        jacobians = rest[-1]
        tail = [_items(j, info.batch_size) for j in out[first:]] if jacobians else list(out[first:])
        dims = (0,) * first + (0 if jacobians else None,) * len(tail)
        return tuple(out[:first]) + tuple(tail), dims
    return rule


_interpreter_stack = getattr(torch._C._functorch, "get_interpreter_stack", None)  # PyTorch >= 2.0


def _differentiated(*tensors):
    """Whether a function must apply its autograd.Function: an input requires grad (grad mode on),
    or a torch.func transform that differentiates (grad, vjp, jacrev, jvp) is active. The second
    covers grad(vmap(f)), where f sees BatchedTensors, which do not report requires_grad; under
    vmap alone the ops' batching rules run without Jacobians."""
    if _grad_needed(*tensors):
        return True
    if _interpreter_stack is None or not torch._C._are_functorch_transforms_active():
        return False
    vmap = torch._C._functorch.TransformType.Vmap
    return any(i.key() != vmap for i in _interpreter_stack())


def _grad_needed(*tensors):
    """Whether an Autograd kernel must record its op: grad mode on and an input requiring grad
    (otherwise it goes straight below autograd, without a torch.autograd.Function)."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


# the backward of every pose query: a vector-Jacobian product over the contacts found
_LIB.define("pose_vjp(Tensor[] jacobians, Tensor[] cotangents, Tensor? count, Tensor pose_a, "
            "Tensor pose_b) -> Tensor")


def _pose_vjp_cpu(jacobians, cotangents, count, pose_a, pose_b):
    """sum over k, found slots s < count[i] and rows r of cotangents[k][i, s, r] J_k[i, s, r, :]
    (twist columns, oscpy_found_transpose) for each item i, then converted to the raw poses:
    [N, 14] (d/d pose_a, d/d pose_b) in the poses' dtype. jacobians[k] [N, C_k, rows_k, 12]
    float64, cotangents[k] [N, C_k, rows_k]; count [N] int32 (None: every slot is found)."""
    pa, pb, batch = _host.broadcast_poses(_np(pose_a), _np(pose_b))
    n = len(pa)
    if len(jacobians) != len(cotangents):
        raise ValueError("osculate.pose_vjp: %d jacobians but %d cotangents"
                         % (len(jacobians), len(cotangents)))
    total = np.zeros((n, 12))
    part = np.empty((n, 12))
    for j, ct in zip(jacobians, cotangents):
        if j.dim() != 4 or j.shape[0] != n or j.shape[3] != 12 or j.dtype != _F64:
            raise ValueError("osculate.pose_vjp: a jacobian must be float64 [%d, slots, rows, 12], "
                             "got %s %s" % (n, j.dtype, tuple(j.shape)))
        cap, rows = j.shape[1], j.shape[2]
        if tuple(ct.shape) != (n, cap, rows):
            raise ValueError("osculate.pose_vjp: the cotangent of a jacobian %s must be %s, got %s"
                             % (tuple(j.shape), (n, cap, rows), tuple(ct.shape)))
        if count is None:
            found = np.full(n, cap, dtype=np.int32)
        else:
            found = np.ascontiguousarray(count.detach().cpu().numpy(), dtype=np.int32).reshape(-1)
            if found.shape != (n,):
                raise ValueError("osculate.pose_vjp: count must have %d entries, got %s"
                                 % (n, tuple(count.shape)))
        jn = np.ascontiguousarray(j.detach().cpu().numpy())
        cn = np.ascontiguousarray(ct.detach().cpu().numpy(), dtype=np.float64)
        lib.oscpy_found_transpose(jn.ctypes.data_as(C.POINTER(C.c_double)),
                                  found.ctypes.data_as(C.POINTER(C.c_int32)),
                                  cn.ctypes.data_as(C.POINTER(C.c_double)), n, cap, rows, 12,
                                  part.ctypes.data_as(C.POINTER(C.c_double)))
        total += part
    pq = pair_jacobian_to_pq(total[:, None, :], pa, pb)[:, 0, :]
    return _out(pq, _float_dtype(pose_a, pose_b))


def _pose_vjp_meta(jacobians, cotangents, count, pose_a, pose_b):
    n = int(np.prod(_pose_batch(pose_a, pose_b, "pose_vjp"), dtype=int))
    return pose_a.new_empty((n, 14), dtype=_float_dtype(pose_a, pose_b))


def _pose_vjp_autograd(jacobians, cotangents, count, pose_a, pose_b):
    """pose_vjp is a backward (the queries' backward is once differentiable): it runs below
    autograd, its result not differentiated."""
    with _BelowAutograd():
        return torch.ops.osculate.pose_vjp(jacobians, cotangents, count, pose_a, pose_b)


_LIB.impl("pose_vjp", _pose_vjp_cpu, "CPU")
_LIB.impl("pose_vjp", _pose_vjp_meta, "Meta")
def _pose_vjp_vmap(info, in_dims, jacobians, cotangents, count, pose_a, pose_b):
    """The batching rule of pose_vjp (vmap of a backward, jacrev's vmap over cotangents): every
    input brought to the batch [size, N] of one pose_vjp call, the result [size, N, 14]."""
    size = info.batch_size
    n = int(np.prod(torch.broadcast_shapes(
        *[(t.shape if d is None else t.shape[:d] + t.shape[d + 1:])[:-1]
          for t, d in ((pose_a, in_dims[3]), (pose_b, in_dims[4]))]), dtype=int))
    pose_a, pose_b = _lift((pose_a, pose_b), in_dims[3:])
    pose_a = pose_a.expand((size,) + tuple(pose_a.shape[1:]))  # the batch is [size, ...] even
    # when only the cotangents are batched

    def flat(t, d):
        t = t.expand((size,) + tuple(t.shape)) if d is None else t.movedim(d, 0)
        return t.reshape((size * n,) + tuple(t.shape[2:]))
    jacobians = [flat(j, d) for j, d in zip(jacobians, in_dims[0])]
    cotangents = [flat(c, d) for c, d in zip(cotangents, in_dims[1])]
    count = None if count is None else flat(count, in_dims[2])
    v = torch.ops.osculate.pose_vjp(jacobians, cotangents, count, pose_a, pose_b)
    return v.reshape(size, n, 14), 0


_LIB.impl("pose_vjp", _pose_vjp_autograd, "Autograd")
if _register_vmap is not None:
    _register_vmap("osculate::pose_vjp", _pose_vjp_vmap, lib=_LIB)


def _pose_args(pose_a, pose_b):
    """The poses of a query as float tensors of one dtype on the CPU, and their device (the
    kernels check their shapes)."""
    pose_a = _float_tensor(pose_a)
    pose_b = _float_tensor(pose_b, pose_a)
    return pose_a.to("cpu"), pose_b.to("cpu"), pose_a.device


# DCOL

_DCOL = _Spec("dcol", list(_host.DCOL_OUTPUTS), False)
_DCOL_ALPHA = _Spec("dcol_alpha", [("alpha", ())], False)


def _dcol_kernel(spec):
    names = [n for n, _ in spec.outputs]

    def cpu(pose_a, pose_b, handle, jacobians):
        spec.check(pose_a, pose_b, None)
        _, (a, b), settings, _ = _entry(handle, "dcol")
        values, twist = _host.dcol_twist(a, b, settings, _np(pose_a), _np(pose_b),
                                         names if jacobians else ())
        return spec.pack(values, twist, _float_dtype(pose_a, pose_b), jacobians)
    return cpu


_define(_DCOL, _dcol_kernel(_DCOL))
_define(_DCOL_ALPHA, _dcol_kernel(_DCOL_ALPHA))


def dcol(a, pose_a, b, pose_b, **settings):
    """DCOL between Convex shapes a and b at poses [..., 7] (broadcast): a dict of alpha,
    distance [...], point, point_a, point_b, normal [..., 3], differentiable in both poses.
    Settings: osculate.dcol_settings(). The op: torch.ops.osculate.dcol."""
    pa, pb, device = _pose_args(pose_a, pose_b)
    out = _query(_DCOL, register("dcol", a, b, **settings), None, pa, pb)
    return {n: v.to(device) for (n, _), v in zip(_DCOL.outputs, out)}


def dcol_alpha(a, pose_a, b, pose_b, **settings):
    """DCOL's alpha (< 1: interpenetrating), differentiable in both poses [..., 7]; computes
    alpha's Jacobian only. The op: torch.ops.osculate.dcol_alpha."""
    pa, pb, device = _pose_args(pose_a, pose_b)
    return _query(_DCOL_ALPHA, register("dcol", a, b, **settings), None, pa, pb)[0].to(device)


# contacts padded to a capacity: manifolds, SDF-SDF collision points, local minimal distances

_MANIFOLD = _Spec("manifold", list(_host.MANIFOLD_OUTPUTS), True, 1)
_SDF_PAIR = _Spec("sdf_pair", list(_host.SDF_PAIR_OUTPUTS), True, 1)
_LMD = _Spec("lmd", [("distance", ())], True, 0)


def _padded_kernel(spec, host):
    def cpu(pose_a, pose_b, handle, capacity, jacobians):
        spec.check(pose_a, pose_b, capacity)
        _, (a, b), settings, _ = _entry(handle, spec.name)
        values, twist = host(a, b, settings, capacity, _np(pose_a), _np(pose_b), jacobians)
        return spec.pack(values, twist, _float_dtype(pose_a, pose_b), jacobians)
    return cpu


_define(_MANIFOLD, _padded_kernel(_MANIFOLD, _host.manifold_twist))
_define(_SDF_PAIR, _padded_kernel(_SDF_PAIR, _host.sdf_pair_twist))
_define(_LMD, _padded_kernel(_LMD, _host.lmd_twist))


def _padded(spec, handle, capacity, pose_a, pose_b):
    pa, pb, device = _pose_args(pose_a, pose_b)
    out = _query(spec, handle, capacity, pa, pb)
    k = len(spec.outputs)
    result = {n: v.to(device) for (n, _), v in zip(spec.outputs, out[:k])}
    result["count"] = out[k].to(device)
    return result


def manifold(a, pose_a, b, pose_b, capacity=None, **settings):
    """The contact manifold of Bodies a and b at poses [..., 7], padded to `capacity` slots
    (default: osculate.max_contacts): a dict of point [..., C, 3], distance [..., C] (signed:
    negative is penetration), normal, weight (differentiable in both poses) and count. Empty slots
    have weight 0 and distance d_max; slots are re-assigned as contacts come and go, so
    differentiate sums over contacts. Backward costs the contacts found, not the capacity. The
    op: torch.ops.osculate.manifold."""
    handle = register("manifold", a, b, **settings)
    if capacity is None:
        derived = _registry[handle][3]
        if "capacity" not in derived:
            from ._manifold import max_contacts
            derived["capacity"] = max_contacts(a, b, **settings)
        cap = derived["capacity"]
    else:
        cap = _integer(capacity, "capacity")
    return _padded(_MANIFOLD, handle, cap, pose_a, pose_b)


def sdf_pair(a, pose_a, b, pose_b, capacity=16, **settings):
    """Smooth-mode collision points of two SDFs (temperature > 0) at poses [..., 7]: a dict of
    point [..., C, 3] and distance [..., C] (signed, negative inside both; differentiable in both
    poses; empty slots 0) and count. One batched C call (osc_sdf_pair_collide_batch);
    CapacityError beyond `capacity` points. The op: torch.ops.osculate.sdf_pair."""
    if not settings.get("temperature", 0) > 0:
        raise ValueError("sdf_pair: derivatives need the smooth mode: pass temperature > 0")
    return _padded(_SDF_PAIR, register("sdf_pair", a, b, **settings),
                   _integer(capacity, "capacity"), pose_a, pose_b)


def lmd(a, pose_a, b, pose_b, capacity=32, **settings):
    """The local minimal distances between Breps a and b at poses [..., 7]: a dict of distance
    [..., C] (the signed gap, differentiable in both poses from the C Jacobian; empty slots hold
    the gap at d_max, d_max - eps_a - eps_b) and count. Slots follow the query's order (by
    feature pair), so differentiate sums over contacts of a function that vanishes at d_max. One
    batched C call (osc_lmd_query_batch); CapacityError beyond `capacity` contacts. Settings:
    osculate.lmd_settings(). The op: torch.ops.osculate.lmd."""
    return _padded(_LMD, register("lmd", a, b, **settings), _integer(capacity, "capacity"),
                   pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# SDF values

_LIB.define("sdf(Tensor points, int handle, bool jacobians) -> (Tensor value, Tensor gradient)")


def _sdf_points(points):
    if points.shape[-1:] != (3,):
        raise ValueError("osculate.sdf: points must have shape (..., 3), got %s"
                         % (tuple(points.shape),))


def _sdf_cpu(points, handle, jacobians):
    _sdf_points(points)
    _, (model,), _, _ = _entry(handle, "sdf")
    v, g = _host.sdf(model, _np(points), jacobians)
    return _out(v, points.dtype), (torch.from_numpy(g) if jacobians else _none())


def _sdf_meta(points, handle, jacobians):
    _sdf_points(points)
    return (points.new_empty(points.shape[:-1]),
            points.new_empty(points.shape if jacobians else (0,), dtype=_F64))


def _sdf_forward(handle, points):
    """The derivatives of osculate::sdf: forward gives the value and its gradient (an output, for
    backward), backward is gradient * incoming (aten ops)."""
    return tuple(torch.ops.osculate.sdf(points, handle, True))


def _sdf_setup(ctx, inputs, outputs):
    ctx.save_for_backward(outputs[1])
    ctx.mark_non_differentiable(outputs[1])


def _sdf_backward(ctx, grad, _):
    (g,) = ctx.saved_tensors
    return None, (g * grad.unsqueeze(-1)).to(grad.dtype)


def _sdf_function_vmap(function, info, in_dims, handle, points):
    return function.apply(handle, points.movedim(in_dims[1], 0)), (0, 0)


_Sdf = _function("_Sdf", _sdf_forward, _sdf_setup, _sdf_backward, _sdf_function_vmap)


def _sdf_autograd(points, handle, jacobians):
    if not _grad_needed(points):
        with _BelowAutograd():
            return torch.ops.osculate.sdf(points, handle, jacobians)
    return _placeholders(_Sdf.apply(handle, points), 1, jacobians, points)


def _sdf_vmap(info, in_dims, points, handle, jacobians):
    """The batching rule of osculate::sdf: one call on the points with the vmapped dim first."""
    value, gradient = torch.ops.osculate.sdf(points.movedim(in_dims[0], 0), handle, jacobians)
    return (value, gradient), (0, 0 if jacobians else None)


_LIB.impl("sdf", _sdf_cpu, "CPU")
_LIB.impl("sdf", _sdf_meta, "Meta")
_LIB.impl("sdf", _sdf_autograd, "Autograd")
if _register_vmap is not None:
    _register_vmap("osculate::sdf", _sdf_vmap, lib=_LIB)


def sdf(model, points):
    """phi of an SDF (or Grid) at points [..., 3], differentiable in the points. The op:
    torch.ops.osculate.sdf."""
    points = _float_tensor(points)
    device, points, handle = points.device, points.to("cpu"), register("sdf", model)
    if _differentiated(points):
        return _Sdf.apply(handle, points)[0].to(device)
    return torch.ops.osculate.sdf(points, handle, False)[0].to(device)


# ------------------------------------------------------------------------------------------------
# rays

_RAY_NAMES = [n for n, _ in _host.RAY_OUTPUTS]
_RAY_ROWS = [int(np.prod(s, dtype=int)) for _, s in _host.RAY_OUTPUTS]  # t 1, point 3, normal 3
_LIB.define("ray_intersect(Tensor origins, Tensor directions, Tensor? parameters, int handle, "
            "bool jacobians) -> (Tensor t, Tensor point, Tensor normal, Tensor hit, "
            "Tensor jacobian)")


def _ray_batch(origins, directions, parameters):
    if origins.shape[-1:] != (3,) or directions.shape[-1:] != (3,):
        raise ValueError("osculate.ray_intersect: origins and directions must have shape (..., 3), "
                         "got %s and %s" % (tuple(origins.shape), tuple(directions.shape)))
    shapes = [origins.shape[:-1], directions.shape[:-1]]
    if parameters is not None:
        if parameters.dim() < 1 or not 2 <= parameters.shape[-1] <= 10:
            raise ValueError("osculate.ray_intersect_sag: parameters must have shape (..., P), "
                             "2 <= P <= 10, got %s" % (tuple(parameters.shape),))
        shapes.append(parameters.shape[:-1])
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError as e:
        raise ValueError("osculate.ray_intersect: the batch shapes %s do not broadcast (%s)"
                         % ([tuple(s) for s in shapes], e)) from None


def _ray_cpu(origins, directions, parameters, handle, jacobians):
    """t, point, normal, hit [batch ...] and the Jacobian [batch, 7, 6 + P] float64: rows t,
    point, normal; columns d/d origin, d/d direction, d/d parameters (sag only)."""
    _ray_batch(origins, directions, parameters)
    _, (surface, diameter, transform), settings, _ = _entry(handle, "ray")
    with_params = parameters is not None
    values, jac = _host.ray(surface, diameter, transform, settings, _np(origins), _np(directions),
                            _np(parameters) if with_params else None, jacobians)
    dtype = _float_dtype(*[t for t in (origins, directions, parameters) if t is not None])
    out = [_out(values[n], dtype) for n in _RAY_NAMES]
    out.append(torch.from_numpy(np.asarray(values["hit"], dtype=bool, order="C")))
    if jacobians:
        wrt = ("origin", "direction") + (("parameters",) if with_params else ())
        batch = values["t"].shape
        blocks = [np.concatenate([jac[n][w].reshape(batch + (rows, -1)) for w in wrt], axis=-1)
                  for n, rows in zip(_RAY_NAMES, _RAY_ROWS)]
        out.append(torch.from_numpy(np.ascontiguousarray(np.concatenate(blocks, axis=-2))))
    else:
        out.append(_none())
    return tuple(out)


def _ray_meta(origins, directions, parameters, handle, jacobians):
    batch = _ray_batch(origins, directions, parameters)
    p = parameters.shape[-1] if parameters is not None else 0
    dtype = _float_dtype(*[t for t in (origins, directions, parameters) if t is not None])
    return (origins.new_empty(batch, dtype=dtype), origins.new_empty(batch + (3,), dtype=dtype),
            origins.new_empty(batch + (3,), dtype=dtype),
            origins.new_empty(batch, dtype=torch.bool),
            origins.new_empty(batch + (sum(_RAY_ROWS), 6 + p) if jacobians else (0,),
                              dtype=_F64))


def _ray_forward(handle, origins, directions, parameters):
    """The derivatives of osculate::ray_intersect: forward gives t, point, normal, hit and the
    Jacobian (an output, for backward); backward contracts the [7, 6 + P] Jacobian of each ray
    with the incoming gradients (aten ops) and sums broadcast dimensions back."""
    return tuple(torch.ops.osculate.ray_intersect(origins, directions, parameters, handle, True))


def _ray_setup(ctx, inputs, outputs):
    ctx.set_materialize_grads(False)
    ctx.shapes = [None if t is None else t.shape for t in inputs[1:]]
    ctx.dtype = outputs[0].dtype
    ctx.save_for_backward(outputs[4])
    ctx.mark_non_differentiable(outputs[3], outputs[4])


def _ray_backward(ctx, *grads):
    (j,) = ctx.saved_tensors
    if all(g is None for g in grads[:3]):
        return (None,) * 4
    parts = []
    for g, rows in zip(grads[:3], _RAY_ROWS):
        if g is None:
            g = j.new_zeros(j.shape[:-2] + (rows,))
        parts.append(g.reshape(j.shape[:-2] + (rows,)).to(_F64))
    v = (torch.cat(parts, dim=-1).unsqueeze(-1) * j).sum(dim=-2)  # [batch, 6 + P]
    columns = (v[..., :3], v[..., 3:6], v[..., 6:])
    result = [None if shape is None or not need else c.sum_to_size(shape).to(ctx.dtype)
              for c, shape, need in zip(columns, ctx.shapes, ctx.needs_input_grad[1:])]
    return (None,) + tuple(result)


def _ray_function_vmap(function, info, in_dims, handle, origins, directions, parameters):
    origins, directions, parameters = _lift((origins, directions, parameters), in_dims[1:])
    return function.apply(handle, origins, directions, parameters), (0,) * 5


_Ray = _function("_Ray", _ray_forward, _ray_setup, _ray_backward, _ray_function_vmap)


def _ray_autograd(origins, directions, parameters, handle, jacobians):
    if not _grad_needed(origins, directions, parameters):
        with _BelowAutograd():
            return torch.ops.osculate.ray_intersect(origins, directions, parameters, handle,
                                                    jacobians)
    return _placeholders(_Ray.apply(handle, origins, directions, parameters), 4, jacobians,
                         origins)


def _ray_vmap(info, in_dims, origins, directions, parameters, handle, jacobians):
    """The batching rule of osculate::ray_intersect: one call on the rays (and parameters) with
    the vmapped dimension first."""
    origins, directions, parameters = _lift((origins, directions, parameters), in_dims[:3])
    out = torch.ops.osculate.ray_intersect(origins, directions, parameters, handle, jacobians)
    return tuple(out), (0, 0, 0, 0, 0 if jacobians else None)


_LIB.impl("ray_intersect", _ray_cpu, "CPU")
_LIB.impl("ray_intersect", _ray_meta, "Meta")
_LIB.impl("ray_intersect", _ray_autograd, "Autograd")
if _register_vmap is not None:
    _register_vmap("osculate::ray_intersect", _ray_vmap, lib=_LIB)


def _ray(surface, diameter, transform, settings, origins, directions, parameters):
    origins = _float_tensor(origins)
    directions = _float_tensor(directions, origins)
    if parameters is not None:
        parameters = _float_tensor(parameters, origins).to("cpu")
    handle = register("ray", surface, diameter, transform, **settings)
    args = (origins.to("cpu"), directions.to("cpu"), parameters)
    if _differentiated(*args):
        out = _Ray.apply(handle, *args)
    else:
        out = torch.ops.osculate.ray_intersect(*args, handle, False)
    return {n: v.to(origins.device) for n, v in zip(_RAY_NAMES + ["hit"], out[:4])}


def ray_intersect(surface, origins, directions, transform=None, **settings):
    """Rays origins + t directions [..., 3] against an Implicit surface: a dict of t, point,
    normal (differentiable in origins and directions) and hit (bool). The op:
    torch.ops.osculate.ray_intersect (parameters None)."""
    return _ray(surface, None, transform, settings, origins, directions, None)


def ray_intersect_sag(parameters, diameter, origins, directions, transform=None, **settings):
    """Rays against the even-asphere sag with parameters (curvature, conic, a_0, ...) [..., P]
    over the aperture `diameter`; differentiable also in the parameters. The op:
    torch.ops.osculate.ray_intersect with the parameters."""
    return _ray(None, float(diameter), transform, settings, origins, directions, parameters)


# ------------------------------------------------------------------------------------------------
# contact wrenches: a query and force.h's contact force (osculate.contact_forces) per batch item

_FORCE_SETTINGS = frozenset(name for name, _ in ForceSettings._fields_)


class _WrenchSpec:
    """A wrench op: the query's contacts per batch item (contacts(a, b, settings, capacity, pa,
    pb, jacobians) -> ForceContacts for each row of the poses [N, 7]) and whether it takes a
    capacity. Outputs: the wrenches [batch, 2, 6] in the arguments' dtype, and with `jacobians`
    the wrench Jacobians [N, 12, 12] float64 along the twists of A then B (pose_jacobian) and
    along A's then B's velocity (velocity_jacobian), as osculate.contact_forces returns them."""

    def __init__(self, name, padded, contacts):
        self.name, self.padded, self.contacts = name, padded, contacts
        capacity = "int capacity, " if padded else ""
        self.schema = ("%s(Tensor pose_a, Tensor velocity_a, Tensor pose_b, Tensor velocity_b, "
                       "int handle, %sbool jacobians) -> (Tensor wrench, Tensor pose_jacobian, "
                       "Tensor velocity_jacobian)" % (name, capacity))

    def check(self, pose_a, velocity_a, pose_b, velocity_b, capacity):
        """The broadcast batch shape of the arguments; ValueError naming the bad one."""
        if self.padded and capacity < 1:
            raise ValueError("osculate.%s: capacity must be >= 1, got %d" % (self.name, capacity))
        args = (("pose_a", pose_a, 7), ("velocity_a", velocity_a, 6), ("pose_b", pose_b, 7),
                ("velocity_b", velocity_b, 6))
        for name, t, size in args:
            if t.shape[-1:] != (size,):
                raise ValueError("osculate.%s: %s must have shape (..., %d), got %s"
                                 % (self.name, name, size, tuple(t.shape)))
        try:
            return tuple(torch.broadcast_shapes(*[t.shape[:-1] for _, t, _ in args]))
        except RuntimeError as e:
            raise ValueError("osculate.%s: the batch shapes %s do not broadcast (%s)"
                             % (self.name, [tuple(t.shape) for _, t, _ in args], e)) from None

    def meta(self, pose_a, velocity_a, pose_b, velocity_b, handle, *rest):
        capacity, jacobians = rest if self.padded else (None, rest[0])
        batch = self.check(pose_a, velocity_a, pose_b, velocity_b, capacity)
        n = int(np.prod(batch, dtype=int))
        dtype = _float_dtype(pose_a, velocity_a, pose_b, velocity_b)
        jac = (n, 12, 12) if jacobians else (0,)
        return (pose_a.new_empty(batch + (2, 6), dtype=dtype), pose_a.new_empty(jac, dtype=_F64),
                pose_a.new_empty(jac, dtype=_F64))

    def cpu(self, pose_a, velocity_a, pose_b, velocity_b, handle, *rest):
        """The query over the broadcast batch (one batched C call, with the contacts' twist
        Jacobians when `jacobians`), then osculate.contact_forces on each item's contacts."""
        capacity, jacobians = rest if self.padded else (None, rest[0])
        args = (pose_a, velocity_a, pose_b, velocity_b)
        batch = self.check(*args, capacity)
        _, (a, b), settings, _ = _entry(handle, self.name)
        force, query = _split_force_settings(settings)
        n = int(np.prod(batch, dtype=int))
        pa, va, pb, vb = [_np(t.expand(batch + t.shape[-1:])).reshape(n, t.shape[-1]) for t in args]
        wrench = np.empty((n, 2, 6))
        pj, vj = (np.empty((n, 12, 12)), np.empty((n, 12, 12))) if jacobians else (None, None)
        for i, fc in enumerate(self.contacts(a, b, query, capacity, pa, pb, jacobians)):
            r = contact_forces(fc, pa[i], va[i], pb[i], vb[i], derivatives=jacobians, **force)
            wrench[i, 0], wrench[i, 1] = r.wrench_a, r.wrench_b
            if jacobians:
                pj[i], vj[i] = r.pose_jacobian, r.velocity_jacobian
        out = _out(wrench.reshape(batch + (2, 6)), _float_dtype(*args))
        if not jacobians:
            return out, _none(), _none()
        return out, torch.from_numpy(pj), torch.from_numpy(vj)


def _split_force_settings(settings):
    """(the force model's settings, the query's) of a wrench's settings, split by name."""
    force = {k: v for k, v in settings.items() if k in _FORCE_SETTINGS}
    return force, {k: v for k, v in settings.items() if k not in _FORCE_SETTINGS}


def _dcol_contacts(a, b, settings, capacity, pa, pb, jacobians):
    """DCOL's one contact per pair (as osculate.force_contacts makes it from a DcolResult)."""
    names = ("point", "normal", "distance") if jacobians else ()
    values, twist = _host.dcol_twist(a, b, settings, pa, pb, names)
    for i in range(len(pa)):
        jac = {k + "_jacobian": twist[k][i].reshape((1, 12) if k == "distance" else (1, 3, 12))
               for k in names}
        yield ForceContacts(values["point"][i][None], values["normal"][i][None],
                            values["distance"][i:i + 1], np.ones(1), **jac)


def _manifold_contacts(a, b, settings, capacity, pa, pb, jacobians):
    """Each pair's manifold: its count[i] contacts, weighted, with all four Jacobians."""
    values, twist = _host.manifold_twist(a, b, settings, capacity, pa, pb, jacobians)
    shapes = dict(_host.MANIFOLD_OUTPUTS)
    for i, c in enumerate(np.asarray(values["count"]).reshape(-1)):
        c = int(c)
        jac = {k + "_jacobian": twist[k][i, :c].reshape((c,) + shape + (12,))
               for k, shape in shapes.items()} if jacobians else {}
        yield ForceContacts(*[values[k][i, :c] for k in ("point", "normal", "distance", "weight")],
                            **jac)


_DCOL_WRENCH = _WrenchSpec("dcol_wrench", False, _dcol_contacts)
_MANIFOLD_WRENCH = _WrenchSpec("manifold_wrench", True, _manifold_contacts)


def _wrench_forward(spec, handle, capacity, pose_a, velocity_a, pose_b, velocity_b):
    """A wrench's derivatives: forward calls the op with the Jacobians (outputs, so that backward
    may read them); backward contracts the incoming gradient with the velocity Jacobian (aten
    ops) and with the pose Jacobian through pose_vjp (twist columns, then raw poses once per
    item, as the queries' backward)."""
    extra = (capacity,) if spec.padded else ()
    return tuple(getattr(torch.ops.osculate, spec.name)(pose_a, velocity_a, pose_b, velocity_b,
                                                        handle, *extra, True))


def _wrench_setup(ctx, inputs, outputs):
    _, _, _, pose_a, velocity_a, pose_b, velocity_b = inputs
    ctx.set_materialize_grads(False)
    ctx.velocity_shapes = (velocity_a.shape, velocity_b.shape)
    ctx.save_for_backward(pose_a, pose_b, outputs[1], outputs[2])
    ctx.mark_non_differentiable(outputs[1], outputs[2])


def _wrench_backward(ctx, grad, *_):
    none = (None,) * 7
    if grad is None:
        return none
    pose_a, pose_b, pose_jacobian, velocity_jacobian = ctx.saved_tensors
    batch = tuple(grad.shape[:-2])
    n = pose_jacobian.shape[0]
    g = grad.reshape(n, 12).to(_F64)
    need = ctx.needs_input_grad
    ga = gva = gb = gvb = None
    if need[3] or need[5]:
        v = torch.ops.osculate.pose_vjp([pose_jacobian.reshape(n, 1, 12, 12)],
                                        [g.reshape(n, 1, 12)], None,
                                        pose_a.expand(batch + (7,)), pose_b.expand(batch + (7,)))
        v = v.reshape(batch + (14,))
        ga = v[..., :7].sum_to_size(pose_a.shape).to(pose_a.dtype) if need[3] else None
        gb = v[..., 7:].sum_to_size(pose_b.shape).to(pose_b.dtype) if need[5] else None
    if need[4] or need[6]:
        w = torch.einsum("nr,nrc->nc", g, velocity_jacobian).reshape(batch + (12,))
        shape_a, shape_b = ctx.velocity_shapes
        gva = w[..., :6].sum_to_size(shape_a).to(grad.dtype) if need[4] else None
        gvb = w[..., 6:].sum_to_size(shape_b).to(grad.dtype) if need[6] else None
    return None, None, None, ga, gva, gb, gvb


def _wrench_function_vmap(function, info, in_dims, spec, handle, capacity, *args):
    args = _lift(args, in_dims[3:])
    out = function.apply(spec, handle, capacity, *args)
    return (out[0],) + tuple(_items(j, info.batch_size) for j in out[1:]), (0, 0, 0)


_Wrench = _function("_Wrench", _wrench_forward, _wrench_setup, _wrench_backward,
                    _wrench_function_vmap)


def _define_wrench(spec):
    """Defines the op of a wrench spec: CPU, Meta and Autograd kernels (and the batching rule on
    PyTorch >= 2.4: one op call on the arguments with the vmapped dimension first)."""
    _LIB.define(spec.schema)
    _LIB.impl(spec.name, spec.cpu, "CPU")
    _LIB.impl(spec.name, spec.meta, "Meta")
    op = getattr(torch.ops.osculate, spec.name)

    def autograd(pose_a, velocity_a, pose_b, velocity_b, handle, *rest):
        args = (pose_a, velocity_a, pose_b, velocity_b)
        if not _grad_needed(*args):
            with _BelowAutograd():
                return op(*args, handle, *rest)
        out = _Wrench.apply(spec, handle, rest[0] if spec.padded else None, *args)
        return _placeholders(out, 1, rest[-1], pose_a)

    def rule(info, in_dims, pose_a, velocity_a, pose_b, velocity_b, handle, *rest):
        args = _lift((pose_a, velocity_a, pose_b, velocity_b), in_dims[:4])
        out = op(*args, handle, *rest)
        if not rest[-1]:
            return tuple(out), (0, None, None)
        return (out[0],) + tuple(_items(j, info.batch_size) for j in out[1:]), (0, 0, 0)

    _LIB.impl(spec.name, autograd, "Autograd")
    if _register_vmap is not None:
        _register_vmap("osculate::" + spec.name, rule, lib=_LIB)


_define_wrench(_DCOL_WRENCH)
_define_wrench(_MANIFOLD_WRENCH)


def _wrench(spec, handle, capacity, pose_a, velocity_a, pose_b, velocity_b):
    """The wrenches of a wrench op on float tensors of pose_a's dtype on the CPU (None velocities:
    at rest), on pose_a's device."""
    pa = _float_tensor(pose_a)
    pb = _float_tensor(pose_b, pa).to("cpu")
    va, vb = [torch.zeros(6, dtype=pa.dtype) if v is None else _float_tensor(v, pa).to("cpu")
              for v in (velocity_a, velocity_b)]
    args = (pa.to("cpu"), va, pb, vb)
    if _differentiated(*args):
        out = _Wrench.apply(spec, handle, capacity, *args)
    else:
        extra = (capacity,) if spec.padded else ()
        out = getattr(torch.ops.osculate, spec.name)(*args, handle, *extra, False)
    return out[0].to(pa.device)


def _wrench_handle(query, a, b, settings, model, query_settings_check):
    """The handle of a wrench's models and settings; on its first use, the models' types and the
    settings are checked (TypeError for an unknown setting, InvalidArgumentError naming a bad
    force setting: an evaluation without contacts), when the function is called rather than when
    the op runs."""
    handle = register(query, a, b, **settings)
    derived = _registry[handle][3]
    if "checked" not in derived:
        model(a, "a")
        model(b, "b")
        force, query_settings = _split_force_settings(settings)
        query_settings_check({k: v for k, v in query_settings.items() if k != "threads"})
        _integer(query_settings.get("threads", 0), "threads")
        contact_forces(ForceContacts(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0),
                                     np.zeros(0)), [0, 0, 0, 1, 0, 0, 0], None,
                       [0, 0, 0, 1, 0, 0, 0], None, **force)
        derived["query_settings"] = query_settings
        derived["checked"] = True
    return handle


def dcol_wrench(a, pose_a, velocity_a, b, pose_b, velocity_b, **settings):
    """The contact wrenches [..., 2, 6] on Convex shapes a and b (A's, then B's; each force, then
    torque about the body's own origin, world coordinates) at poses [..., 7] moving with
    velocities [..., 6] (linear velocity of the origin, angular velocity; None: at rest), as
    osculate.jax.dcol_wrench: force.h's contact force on DCOL's one contact. Differentiable in
    both poses (raw components) and both velocities; arguments broadcast. Settings: the force
    model's (osculate.force_settings), DCOL's (osculate.dcol_settings) and threads. The op:
    torch.ops.osculate.dcol_wrench (one batched DCOL call, then osc_force_evaluate per item)."""
    from ._dcol import _convex, _dcol_settings
    handle = _wrench_handle("dcol_wrench", a, b, settings, _convex, _dcol_settings)
    return _wrench(_DCOL_WRENCH, handle, None, pose_a, velocity_a, pose_b, velocity_b)


def manifold_wrench(a, pose_a, velocity_a, b, pose_b, velocity_b, capacity=None, **settings):
    """The contact wrenches [..., 2, 6] on Bodies a and b (as dcol_wrench) summed over the
    contacts of their manifold, each weighted by its transition weight, as
    osculate.jax.manifold_wrench. `capacity`: the most contacts per pair (default
    osculate.max_contacts, which never runs out; a smaller one that runs out raises
    CapacityError). Settings: the force model's (osculate.force_settings), the manifold's
    (osculate.manifold_settings, size) and threads. The op: torch.ops.osculate.manifold_wrench
    (one batched manifold call, then osc_force_evaluate per item)."""
    from ._manifold import _body, max_contacts
    handle = _wrench_handle("manifold_wrench", a, b, settings, _body,
                            lambda query: max_contacts(a, b, **query))
    if capacity is None:
        derived = _registry[handle][3]
        if "capacity" not in derived:
            query = dict(derived["query_settings"])
            query.pop("threads", None)
            derived["capacity"] = max_contacts(a, b, **query)
        cap = derived["capacity"]
    else:
        cap = _integer(capacity, "capacity")
    return _wrench(_MANIFOLD_WRENCH, handle, cap, pose_a, velocity_a, pose_b, velocity_b)
