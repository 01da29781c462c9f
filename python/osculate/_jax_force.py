"""Contact wrenches as JAX functions (osculate.jax.dcol_wrench, manifold_wrench): a query and the
compliant contact force of force.h in one XLA custom call (python/src/xla_force.c), differentiable
with respect to both raw poses and both velocities through a jax.custom_jvp rule built from the C
Jacobians (docs/force.md, JAX). The rule is linear in the tangents, so reverse mode transposes it;
vmap adds batch dimensions to the one call.
"""

import ctypes as C

import jax
import jax.numpy as jnp

from . import _ffi as F
from . import _xla
from ._base import check
from ._ffi import integer as _integer
from ._ffi import lib

__all__ = ["dcol_wrench", "manifold_wrench", "FORCE_SETTINGS"]

#: The names of the contact model's settings (osculate.force_settings); every other keyword of
#: the wrench functions goes to the query.
FORCE_SETTINGS = tuple(name for name, _ in F.ForceSettings._fields_)


def _force_struct(settings, what):
    """Pops the force settings out of `settings` into an osc_force_settings, checked now by an
    evaluation without contacts (InvalidArgumentError naming the setting)."""
    force = {k: settings.pop(k) for k in list(settings) if k in FORCE_SETTINGS}
    s = F.settings(lib.osc_force_settings_default(), force, what)
    identity = F.pose([0, 0, 0, 1, 0, 0, 0], "pose")
    out = F.ForceOutput(None, (F.D * 6)(), (F.D * 6)(), None, None)
    check(lib.osc_force_evaluate(None, 0, identity, F.BodyVelocity(), identity, F.BodyVelocity(),
                                 C.byref(s), C.byref(out)))
    return s


def _operands(pose_a, velocity_a, pose_b, velocity_b):
    """The poses [..., 7] and velocities [..., 6] (None: at rest) as arrays of one float type,
    broadcast to one batch shape."""
    pa, pb = jnp.asarray(pose_a), jnp.asarray(pose_b)
    va = jnp.zeros(6, pa.dtype) if velocity_a is None else jnp.asarray(velocity_a)
    vb = jnp.zeros(6, pb.dtype) if velocity_b is None else jnp.asarray(velocity_b)
    for name, x, size in (("pose_a", pa, 7), ("pose_b", pb, 7), ("velocity_a", va, 6),
                          ("velocity_b", vb, 6)):
        if x.shape[-1:] != (size,):
            raise ValueError("%s must have shape (..., %d), got %s" % (name, size, x.shape))
    dtype = jnp.result_type(pa.dtype, pb.dtype, va.dtype, vb.dtype, jnp.float32)
    batch = jnp.broadcast_shapes(pa.shape[:-1], pb.shape[:-1], va.shape[:-1], vb.shape[:-1])
    return [jnp.broadcast_to(x.astype(dtype), batch + x.shape[-1:]) for x in (pa, va, pb, vb)], \
        batch, dtype


def _wrench(target, attrs, pose_a, velocity_a, pose_b, velocity_b):
    """The custom call `target` over the broadcast operands, with its JVP rule: dW = J_pose
    (twist tangents of the raw pose tangents) + J_velocity (dV_A, dV_B)."""
    (pa, va, pb, vb), batch, dtype = _operands(pose_a, velocity_a, pose_b, velocity_b)

    def call(pa, pb, va, vb, jacobians):
        results = [(batch + (2, 6), dtype)]
        if jacobians:
            results += [(batch + (12, 12), dtype), (batch + (12, 12), dtype),
                        (batch + (2, 3, 4), dtype)]
        return _xla.call(target, results, pa, pb, va, vb, jacobians=int(jacobians), **attrs)

    @jax.custom_jvp
    def f(pa, pb, va, vb):
        return call(pa, pb, va, vb, False)[0]

    @f.defjvp
    def f_jvp(primals, tangents):
        dpa, dpb, dva, dvb = tangents
        wrench, pose_jacobian, velocity_jacobian, maps = call(*primals, True)
        twist = _xla.pose_tangents(maps, dpa, dpb)
        velocity = jnp.concatenate([dva, dvb], axis=-1)
        d = (jnp.einsum("...rc,...c->...r", pose_jacobian, twist)
             + jnp.einsum("...rc,...c->...r", velocity_jacobian, velocity))
        return wrench, d.reshape(wrench.shape)

    return f(pa, pb, va, vb)


def _threads(settings):
    return _integer(settings.pop("threads", 0), "threads")


def dcol_wrench(a, pose_a, velocity_a, b, pose_b, velocity_b, **settings):
    """The contact wrenches [..., 2, 6] on Convex shapes a and b (A's, then B's; each force, then
    torque about the body's own origin, world coordinates) at poses [..., 7] moving with
    velocities [..., 6] (linear velocity of the origin, angular velocity, world; None: at rest):
    force.h's Hunt-Crossley spring-damper with regularised Coulomb friction on DCOL's one contact
    (the intersection point of the scaled shapes, its normal and signed distance). Differentiable
    with respect to both poses (raw components) and both velocities; arguments broadcast against
    each other. Settings: the force model's (osculate.force_settings: stiffness, exponent,
    damping, friction, friction_velocity, depth_temperature, damping_temperature), DCOL's
    (osculate.dcol_settings) and threads. One XLA custom call (osculate_dcol_wrench) per
    evaluation."""
    from ._dcol import _convex, _dcol_settings
    settings = dict(settings)
    threads = _threads(settings)
    force = _force_struct(settings, "dcol_wrench")
    attrs = dict(a=_xla.model(_convex(a, "a"), "a"), b=_xla.model(_convex(b, "b"), "b"),
                 settings=_xla.settings(_dcol_settings(settings)), force=_xla.settings(force),
                 threads=threads)
    return _wrench("osculate_dcol_wrench", attrs, pose_a, velocity_a, pose_b, velocity_b)


def manifold_wrench(a, pose_a, velocity_a, b, pose_b, velocity_b, capacity=None, **settings):
    """The contact wrenches [..., 2, 6] on Bodies a and b (as dcol_wrench) summed over the
    contacts of their manifold, each weighted by its transition weight: smooth in the poses where
    the manifold is (contacts enter and leave with weight 0). `capacity`: the most contacts per
    pair (default osculate.max_contacts, which never runs out; an explicit one that runs out
    raises when the program runs). Settings: the force model's (osculate.force_settings), the
    manifold's (osculate.manifold_settings, size) and threads. Note the force model's stiffness is
    per contact: the patch's stiffness is k times the sum of the weights (docs/force.md, §8). One
    XLA custom call (osculate_manifold_wrench) per evaluation."""
    from ._manifold import _body, _manifold_settings, _size_of, max_contacts
    settings = dict(settings)
    threads = _threads(settings)
    force = _force_struct(settings, "manifold_wrench")
    cap = max_contacts(a, b, **settings) if capacity is None else _integer(capacity, "capacity")
    size = _size_of(a, b, settings.pop("size", None))
    attrs = dict(a=_xla.model(_body(a, "a"), "a"), b=_xla.model(_body(b, "b"), "b"),
                 settings=_xla.settings(_manifold_settings(size, settings)),
                 force=_xla.settings(force), threads=threads, capacity=cap)
    return _wrench("osculate_manifold_wrench", attrs, pose_a, velocity_a, pose_b, velocity_b)
