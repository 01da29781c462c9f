"""osculate's queries as PyTorch functions: torch.autograd.Function wrappers whose backward passes
apply the C library's exact Jacobians (one batched C call forward, computing the Jacobians only
when an input requires grad).

Every pair query takes (a, pose_a, b, pose_b, ...) as the NumPy API and the C library do. Poses are
[..., 7] tensors (px, py, pz, qw, qx, qy, qz) that broadcast against each other
(osculate.broadcast_poses); the quaternion is used as q / |q|, and gradients are with respect to
these raw components (osculate.pair_jacobian_to_twist turns them into the twist columns of the
NumPy API; docs/python.md). Use float64 tensors for
gradients that match finite differences (torch.autograd.gradcheck); the C library computes in
double precision whatever the dtype. Tensors live on the CPU (CUDA tensors are copied to it).
"""

import numpy as np
import torch

from . import _host
from ._ffi import integer as _integer

__all__ = ["dcol", "dcol_alpha", "manifold", "sdf_pair", "lmd", "sdf", "ray_intersect",
           "ray_intersect_sag"]


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _t(a, like):
    return torch.as_tensor(np.ascontiguousarray(a), dtype=like.dtype, device=like.device)


# ------------------------------------------------------------------------------------------------
# DCOL

_DCOL_NAMES = [n for n, _ in _host.DCOL_OUTPUTS]
_DCOL_RANKS = [len(s) for _, s in _host.DCOL_OUTPUTS]


class _Dcol(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pose_a, pose_b, a, b, settings):
        need = pose_a.requires_grad or pose_b.requires_grad
        values, jac = _host.dcol(a, b, settings, _np(pose_a), _np(pose_b), need)
        ctx.shapes = (pose_a.shape, pose_b.shape)
        if need:
            ctx.save_for_backward(*[_t(jac[n], pose_a) for n in _DCOL_NAMES])
        return tuple(_t(values[n], pose_a) for n in _DCOL_NAMES)

    @staticmethod
    def backward(ctx, *grads):
        jacs = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        total = None
        for j, g, rank in zip(jacs, grads, _DCOL_RANKS):
            if g is None:
                continue
            v = j * g.reshape(g.shape + (1,))
            for _ in range(rank):
                v = v.sum(dim=-2)
            total = v if total is None else total + v
        ga = _reduce(total[..., :7], shape_a)
        gb = _reduce(total[..., 7:], shape_b)
        return ga, gb, None, None, None


def _reduce(v, shape):
    """Sums a broadcast gradient v back to `shape`."""
    while v.dim() > len(shape):
        v = v.sum(dim=0)
    for i, want in enumerate(shape):
        if want == 1 and v.shape[i] != 1:
            v = v.sum(dim=i, keepdim=True)
    return v.reshape(shape)


def dcol(a, pose_a, b, pose_b, **settings):
    """DCOL between Convex shapes a and b at poses [..., 7] (broadcast): a dict of alpha,
    distance [...], point, point_a, point_b, normal [..., 3], differentiable in both poses.
    Settings: osculate.dcol_settings()."""
    pose_a = torch.as_tensor(pose_a)
    pose_b = torch.as_tensor(pose_b)
    if pose_a.shape[-1:] != (7,) or pose_b.shape[-1:] != (7,):
        raise ValueError("poses must have shape (..., 7), got %s and %s"
                         % (tuple(pose_a.shape), tuple(pose_b.shape)))
    if not pose_a.is_floating_point():
        pose_a = pose_a.double()
    if not pose_b.is_floating_point():
        pose_b = pose_b.double()
    out = _Dcol.apply(pose_a, pose_b.to(pose_a.dtype), a, b, settings)
    return dict(zip(_DCOL_NAMES, out))


def dcol_alpha(a, pose_a, b, pose_b, **settings):
    """DCOL's alpha (< 1: interpenetrating), differentiable in both poses [..., 7]."""
    return dcol(a, pose_a, b, pose_b, **settings)["alpha"]


# ------------------------------------------------------------------------------------------------
# contacts padded to a capacity: manifolds, SDF-SDF collision points, local minimal distances


class _PaddedContacts(torch.autograd.Function):
    """query(pa, pb, jac) -> (values, jacobians) dicts over `outputs` [(name, per-contact shape)]
    padded to the capacity, plus "count"; each output's Jacobian has 14 pose columns."""

    @staticmethod
    def forward(ctx, pose_a, pose_b, query, outputs):
        need = pose_a.requires_grad or pose_b.requires_grad
        values, jac = query(_np(pose_a), _np(pose_b), need)
        names = [n for n, _ in outputs]
        ctx.shapes = (pose_a.shape, pose_b.shape)
        ctx.ranks = [len(shape) + 1 for _, shape in outputs]  # + the contact slot
        if need:
            ctx.save_for_backward(*[_t(jac[n], pose_a) for n in names])
        count = torch.as_tensor(values["count"])
        ctx.mark_non_differentiable(count)
        return tuple(_t(values[n], pose_a) for n in names) + (count,)

    @staticmethod
    def backward(ctx, *grads):
        total = None
        for j, g, rank in zip(ctx.saved_tensors, grads[:-1], ctx.ranks):
            if g is None:
                continue
            v = j * g.reshape(g.shape + (1,))
            for _ in range(rank):
                v = v.sum(dim=-2)
            total = v if total is None else total + v
        shape_a, shape_b = ctx.shapes
        return _reduce(total[..., :7], shape_a), _reduce(total[..., 7:], shape_b), None, None


def _padded_contacts(query, outputs, pose_a, pose_b):
    pose_a = torch.as_tensor(pose_a)
    if not pose_a.is_floating_point():
        pose_a = pose_a.double()
    pose_b = torch.as_tensor(pose_b).to(pose_a.dtype)
    out = _PaddedContacts.apply(pose_a, pose_b, query, outputs)
    result = dict(zip([n for n, _ in outputs], out[:-1]))
    result["count"] = out[-1]
    return result


def manifold(a, pose_a, b, pose_b, capacity=None, **settings):
    """The contact manifold of Bodies a and b at poses [..., 7], padded to `capacity` slots
    (default: osculate.max_contacts): a dict of point [..., C, 3], distance [..., C] (signed:
    negative is penetration), normal, weight (differentiable in both poses) and count. Empty slots
    have weight 0 and distance d_max; slots
    are re-assigned as contacts come and go, so differentiate sums over contacts."""
    from ._manifold import max_contacts
    cap = max_contacts(a, b, **settings) if capacity is None else _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host.manifold(a, b, settings, cap, pa, pb, jac),
                            _host.MANIFOLD_OUTPUTS, pose_a, pose_b)


def sdf_pair(a, pose_a, b, pose_b, capacity=16, **settings):
    """Smooth-mode collision points of two SDFs (temperature > 0) at poses [..., 7]: a dict of
    point [..., C, 3] and distance [..., C] (signed, negative inside both; differentiable in both
    poses; empty slots 0) and count. One C query per pose pair."""
    cap = _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host.sdf_pair(a, b, settings, cap, pa, pb, jac),
                            _host.SDF_PAIR_OUTPUTS, pose_a, pose_b)


def lmd(a, pose_a, b, pose_b, capacity=32, **settings):
    """The local minimal distances between Breps a and b at poses [..., 7]: a dict of distance
    [..., C] (the signed gap, differentiable in both poses from the C Jacobian; empty slots hold
    the gap at d_max, d_max - eps_a - eps_b) and count. Slots follow the query's order (by
    feature pair), so differentiate sums over contacts of a function that vanishes at d_max. One C
    query per pose pair; CapacityError beyond `capacity` contacts. Settings:
    osculate.lmd_settings()."""
    cap = _integer(capacity, "capacity")
    return _padded_contacts(lambda pa, pb, jac: _host.lmd(a, b, settings, cap, pa, pb, jac),
                            [("distance", ())], pose_a, pose_b)


# ------------------------------------------------------------------------------------------------
# SDF values


class _Sdf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, points, model):
        v, g = _host.sdf(model, _np(points), points.requires_grad)
        if points.requires_grad:
            ctx.save_for_backward(_t(g, points))
        return _t(v, points)

    @staticmethod
    def backward(ctx, grad):
        (g,) = ctx.saved_tensors
        return g * grad.unsqueeze(-1), None


def sdf(model, points):
    """phi of an SDF (or Grid) at points [..., 3], differentiable in the points."""
    points = torch.as_tensor(points)
    if not points.is_floating_point():
        points = points.double()
    return _Sdf.apply(points, model)


# ------------------------------------------------------------------------------------------------
# rays

_RAY_NAMES = [n for n, _ in _host.RAY_OUTPUTS]
_RAY_RANKS = [len(s) for _, s in _host.RAY_OUTPUTS]


class _Ray(torch.autograd.Function):
    @staticmethod
    def forward(ctx, origins, directions, parameters, surface, diameter, transform, settings):
        with_params = parameters is not None
        need = origins.requires_grad or directions.requires_grad or \
            (with_params and parameters.requires_grad)
        values, jac = _host.ray(surface, diameter, transform, settings, _np(origins),
                                _np(directions), _np(parameters) if with_params else None, need)
        wrt = ("origin", "direction") + (("parameters",) if with_params else ())
        ctx.wrt = wrt
        ctx.shapes = (origins.shape, directions.shape,
                      parameters.shape if with_params else None)
        if need:
            ctx.save_for_backward(*[_t(jac[n][w], origins) for n in _RAY_NAMES for w in wrt])
        hit = torch.as_tensor(values["hit"])
        ctx.mark_non_differentiable(hit)
        return tuple(_t(values[n], origins) for n in _RAY_NAMES) + (hit,)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        wrt = ctx.wrt
        out = [None, None, None]
        for k, (g, rank) in enumerate(zip(grads[:3], _RAY_RANKS)):
            if g is None:
                continue
            for w_index, w in enumerate(wrt):
                j = saved[k * len(wrt) + w_index]
                v = j * g.reshape(g.shape + (1,))
                for _ in range(rank):
                    v = v.sum(dim=-2)
                out[w_index] = v if out[w_index] is None else out[w_index] + v
        result = []
        for v, shape in zip(out, ctx.shapes):
            result.append(None if v is None or shape is None else _reduce(v, shape))
        return tuple(result) + (None, None, None, None)


def _ray(surface, diameter, transform, settings, origins, directions, parameters):
    origins = torch.as_tensor(origins)
    if not origins.is_floating_point():
        origins = origins.double()
    directions = torch.as_tensor(directions).to(origins.dtype)
    if parameters is not None:
        parameters = torch.as_tensor(parameters).to(origins.dtype)
    out = _Ray.apply(origins, directions, parameters, surface, diameter, transform, settings)
    return dict(zip(_RAY_NAMES + ["hit"], out))


def ray_intersect(surface, origins, directions, transform=None, **settings):
    """Rays origins + t directions [..., 3] against an Implicit surface: a dict of t, point,
    normal (differentiable in origins and directions) and hit (bool)."""
    return _ray(surface, None, transform, settings, origins, directions, None)


def ray_intersect_sag(parameters, diameter, origins, directions, transform=None, **settings):
    """Rays against the even-asphere sag with parameters (curvature, conic, a_0, ...) [..., P]
    over the aperture `diameter`; differentiable also in the parameters."""
    return _ray(None, float(diameter), transform, settings, origins, directions, parameters)
