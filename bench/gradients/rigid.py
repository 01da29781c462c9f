"""A small differentiable rigid-body step in JAX, driven by osculate's contact wrenches: an example
and a benchmark, not a simulator.

Free rigid bodies with state (p, q, v, omega) per body (origin = centre of mass, q = (w, x, y, z),
v and omega in world coordinates, the velocity convention of force.h) advance by semi-implicit
(symplectic) Euler:

    v+     = v + h (F / m + g)
    omega+ = omega + h I_w^-1 (tau - omega x I_w omega),   I_w = R diag(I) R^T
    p+     = p + h v+
    q+     = normalise(q + h/2 (0, omega+) * q)

where (F, tau) is the sum of the contact wrenches of every pair the body belongs to (torque about
its origin, as osculate.jax.*_wrench return it). Bodies are "dynamic", "static" (never move) or
"kinematic" (their velocity is a control input each step; they push but are not pushed). The step
is pure JAX around the custom calls, so jax.grad of a lax.scan rollout differentiates through time
with the C library's contact Jacobians.
"""

from dataclasses import dataclass, field
from typing import Callable, List, Sequence

import jax
import jax.numpy as jnp


def quat_mul(a, b):
    """The Hamilton product of quaternions (w, x, y, z) [..., 4]."""
    w1, x1, y1, z1 = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    w2, x2, y2, z2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return jnp.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                      w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                      w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                      w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def rotation(q):
    """The rotation matrix [..., 3, 3] of unit quaternions [..., 4]."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return jnp.stack([
        jnp.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        jnp.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        jnp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


@dataclass
class Body:
    """A rigid body: mass, principal inertia (body frame, about the origin) and kind."""
    mass: float = 1.0
    inertia: Sequence[float] = (1.0, 1.0, 1.0)
    kind: str = "dynamic"  # or "static", "kinematic"


@dataclass
class Pair:
    """A contact pair: bodies i and j and wrench(pose_i, vel_i, pose_j, vel_j) -> [2, 6]."""
    i: int
    j: int
    wrench: Callable


@dataclass
class World:
    bodies: List[Body]
    pairs: List[Pair]
    h: float = 2e-3
    gravity: Sequence[float] = (0.0, 0.0, -9.81)
    kinematic: List[int] = field(init=False)

    def __post_init__(self):
        self.kinematic = [k for k, b in enumerate(self.bodies) if b.kind == "kinematic"]

    def state(self, poses, velocities=None):
        """The state (poses [N, 7], velocities [N, 6]) from poses and optional velocities."""
        poses = jnp.asarray(poses)
        if velocities is None:
            velocities = jnp.zeros((poses.shape[0], 6), poses.dtype)
        return poses, jnp.asarray(velocities)

    def wrenches(self, poses, velocities):
        """The net contact wrench [N, 6] on each body."""
        total = jnp.zeros((len(self.bodies), 6), poses.dtype)
        for pair in self.pairs:
            w = pair.wrench(poses[pair.i], velocities[pair.i], poses[pair.j], velocities[pair.j])
            total = total.at[pair.i].add(w[0]).at[pair.j].add(w[1])
        return total

    def step(self, state, control=None):
        """One semi-implicit Euler step; control [K, 6]: the velocities of the kinematic bodies
        (in order) over this step."""
        poses, vel = state
        if control is not None and self.kinematic:
            vel = vel.at[jnp.array(self.kinematic)].set(control)
        wrench = self.wrenches(poses, vel)
        h = self.h
        p, q = poses[:, :3], poses[:, 3:]
        v, omega = vel[:, :3], vel[:, 3:]
        mass = jnp.array([b.mass for b in self.bodies], poses.dtype)
        inertia = jnp.array([b.inertia for b in self.bodies], poses.dtype)
        dynamic = jnp.array([b.kind == "dynamic" for b in self.bodies])
        R = rotation(q)
        Iw = jnp.einsum("nij,nj,nkj->nik", R, inertia, R)
        gyro = jnp.cross(omega, jnp.einsum("nij,nj->ni", Iw, omega))
        dv = wrench[:, :3] / mass[:, None] + jnp.asarray(self.gravity, poses.dtype)
        dw = jnp.linalg.solve(Iw, (wrench[:, 3:] - gyro)[..., None])[..., 0]
        v = jnp.where(dynamic[:, None], v + h * dv, v)
        omega = jnp.where(dynamic[:, None], omega + h * dw, omega)
        moving = jnp.array([b.kind != "static" for b in self.bodies])
        p = jnp.where(moving[:, None], p + h * v, p)
        dq = 0.5 * h * quat_mul(jnp.concatenate([jnp.zeros_like(omega[:, :1]), omega], -1), q)
        q_new = q + dq
        q_new = q_new / jnp.linalg.norm(q_new, axis=-1, keepdims=True)
        q = jnp.where(moving[:, None], q_new, q)
        vel = jnp.concatenate([v, omega], -1)
        vel = jnp.where(moving[:, None], vel, 0.0)
        return jnp.concatenate([p, q], -1), vel

    def rollout(self, state, controls):
        """lax.scan of step over controls [T, K, 6]; returns the final state and the poses [T, N, 7]."""
        def body(s, u):
            s = self.step(s, u)
            return s, s[0]
        return jax.lax.scan(body, state, controls)
