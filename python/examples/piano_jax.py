"""Tracy et al. 2023's piano movers in miniature, in JAX: a trajectory of a capsule ("piano") round the
corner of a hallway, optimised with DCOL collision constraints alpha >= 1.

The hallway and the piano are those of examples/dcol_piano.c: in the plane z = 0, a corridor 1
wide runs along x (y in [-0.5, 0.5]) and turns left into one along y (x in [-0.5, 0.5]); its walls
are three boxes (south, east, and the inner corner block). The piano is a capsule of radius 0.1
and length 1.2 (half-length 0.6 along its body z, laid flat). It must go from (-2.2, 0) heading
along x to (0, 2.2) heading along y.

The trajectory is K planar waypoints (x, y, heading), the ends fixed; each becomes a pose whose
rotation is a quarter turn about y (the axis z onto x) then h about z, the quaternion
sqrt(1/2) (cos(h/2), -sin(h/2), cos(h/2), sin(h/2)), and osculate.jax.dcol_alpha gives alpha of
every (wall, waypoint) pair in one batched C call, differentiable through the pose. We minimise

    sum_k |w_{k+1} - w_k|^2  +  rho sum_{k, wall} max(0, margin - alpha_k,wall)^2

by Adam, starting from the straight line, which cuts through the corner block. The whole
optimisation, 300 Adam steps, is one jax.jit-compiled call: jax.lax.scan runs the steps inside
the compiled program (each step's DCOL calls are custom calls into the C library), and returns the
cost and the waypoints of every step, from which the progress is printed afterwards. Run:

    python python/examples/piano_jax.py          (exit status 0 when every waypoint is free)
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

import osculate as osc
import osculate.jax as oj

jax.config.update("jax_enable_x64", True)

WALL_HALF = [(2.0, 0.25, 1.0), (0.25, 2.25, 1.0), (1.25, 1.25, 1.0)]
WALL_CENTRE = [(-1.25, -0.75, 0.0), (0.75, 1.25, 0.0), (-1.75, 1.75, 0.0)]
walls = [osc.Convex.box(h) for h in WALL_HALF]
wall_poses = jnp.array([osc.pose(c) for c in WALL_CENTRE])
piano = osc.Convex.capsule(0.1, 0.6)

K = 16
MARGIN = 1.02
RHO = 100.0
start = jnp.array([-2.2, 0.0, 0.0])
goal = jnp.array([0.0, 2.2, jnp.pi / 2])


def poses(waypoints):
    """[K, 3] planar waypoints -> [K, 7] poses."""
    x, y, h = waypoints[:, 0], waypoints[:, 1], waypoints[:, 2]
    zero = jnp.zeros_like(x)
    c, s = jnp.sqrt(0.5) * jnp.cos(h / 2), jnp.sqrt(0.5) * jnp.sin(h / 2)
    return jnp.stack([x, y, zero, c, -s, c, s], axis=1)


def alphas(waypoints):
    """alpha [3 walls, K]: one batched DCOL call per wall (each wall is its own shape)."""
    p = poses(waypoints)
    return jnp.stack([oj.dcol_alpha(w, wp, piano, p) for w, wp in zip(walls, wall_poses)])


def full(inner):
    return jnp.concatenate([start[None], inner, goal[None]])


def cost(inner):
    w = full(inner)
    smooth = jnp.sum((w[1:] - w[:-1]) ** 2)
    violation = jnp.maximum(0.0, MARGIN - alphas(w))
    return smooth + RHO * jnp.sum(violation**2)


STEPS = 300
LR, B1, B2 = 0.03, 0.9, 0.999


@jax.jit
def optimise(inner):
    """STEPS Adam steps on cost from the inner waypoints [K - 2, 3], in one compiled call:
    (the final inner waypoints, the cost before each step [STEPS], the inner waypoints after each
    step [STEPS, K - 2, 3])."""

    def step(state, it):
        inner, m, v = state
        f, g = jax.value_and_grad(cost)(inner)
        m = B1 * m + (1 - B1) * g
        v = B2 * v + (1 - B2) * g * g
        inner = inner - LR * (m / (1 - B1**it)) / (jnp.sqrt(v / (1 - B2**it)) + 1e-9)
        return (inner, m, v), (f, inner)

    zero = jnp.zeros_like(inner)
    (inner, _, _), (costs, path) = jax.lax.scan(step, (inner, zero, zero),
                                                jnp.arange(1, STEPS + 1, dtype=inner.dtype))
    return inner, costs, path


def main():
    line = jnp.linspace(0.0, 1.0, K)[:, None]
    inner = (start + line * (goal - start))[1:-1]
    print("initial: least alpha %.3f (below 1: the straight line cuts the corner block)"
          % float(alphas(full(inner)).min()))
    inner, costs, path = optimise(inner)
    for it in range(50, STEPS + 1, 50):
        print("iteration %3d: cost %.4f, least alpha %.4f"
              % (it, float(costs[it - 1]), float(alphas(full(path[it - 1])).min())))
    a = np.asarray(alphas(full(inner)))
    w = np.asarray(full(inner))
    print("waypoints (x, y, heading in degrees), least alpha over the walls:")
    for k in range(K):
        print("  %+.3f %+.3f %+7.2f   %.3f" % (w[k, 0], w[k, 1], np.degrees(w[k, 2]), a[:, k].min()))
    free = bool(a.min() >= 1.0)
    print("the piano %s" % ("clears every wall" if free else "still touches a wall"))
    return 0 if free else 1


if __name__ == "__main__":
    sys.exit(main())
