"""The gradient tasks with osculate: contact forces from osculate.jax's wrenches, dynamics from
rigid.World, the gradient jax.grad through lax.scan. Run in osculate's venv (run.sh).

- push (task 1): a box pushed over a plane by a kinematic sphere whose piecewise-constant velocity
  is optimised so that the box ends at a goal. The box-ground contact is the manifold (parallel
  faces: a patch of contacts whose weights fade in and out smoothly), the sphere-box contact DCOL.
- strike (task 3, DCOL primitives): a kinematic capsule strikes a ball resting on a box table;
  the capsule's velocity is optimised so that the ball ends at a goal. Every contact is DCOL.
"""

import sys

import common as C

C.pin_to_one_cpu()  # before JAX starts its worker threads (common.pin_to_one_cpu)

import jax  # noqa: E402
import jax.numpy as jnp
import numpy as np

import osculate as osc
import osculate.jax as oj

import rigid

jax.config.update("jax_enable_x64", True)
P = C.PUSH
# the per-contact stiffness of the manifold (docs/force.md §8): the resting box's manifold has
# about 170 contacts, and the patch carries its weight at a depth of about 1.5 mm
MANIFOLD_FORCE = dict(stiffness=2e3, damping=10.0, friction=P["friction"], friction_velocity=1e-2)
DCOL_FORCE = dict(stiffness=2e4, damping=2.0, friction=0.2, friction_velocity=1e-2)


def box_body(half, resolution=24, triangles=300):
    sdf = osc.SDF.box(list(half))
    return osc.Body(osc.collision_mesh(sdf, resolution=resolution, target_triangles=triangles),
                    sdf=sdf)


def make_world():
    ground, box = box_body(P["ground_half"]), box_body(P["box_half"])
    box_convex, pusher = osc.Convex.box(list(P["box_half"])), osc.Convex.sphere(P["pusher_radius"])
    cap = osc.max_contacts(ground, box)
    m, a = P["box_mass"], P["box_half"]
    inertia = [m / 3 * (a[1] ** 2 + a[2] ** 2), m / 3 * (a[0] ** 2 + a[2] ** 2),
               m / 3 * (a[0] ** 2 + a[1] ** 2)]
    bodies = [rigid.Body(kind="static"), rigid.Body(m, inertia),
              rigid.Body(kind="kinematic")]
    pairs = [rigid.Pair(0, 1, lambda pa, va, pb, vb: oj.manifold_wrench(
                 ground, pa, va, box, pb, vb, capacity=cap, **MANIFOLD_FORCE)),
             rigid.Pair(1, 2, lambda pa, va, pb, vb: oj.dcol_wrench(
                 box_convex, pa, va, pusher, pb, vb, **DCOL_FORCE))]
    return rigid.World(bodies, pairs, h=P["h"])


def start_state(world):
    """The box at rest on the ground (settled for 0.2 s), the pusher at its start."""
    poses = jnp.array([[0, 0, -P["ground_half"][2], 1, 0, 0, 0],
                       [0, 0, P["box_half"][2], 1, 0, 0, 0],
                       list(P["pusher_start"]) + [1, 0, 0, 0]], dtype=float)
    state = world.state(poses)
    state, _ = jax.jit(world.rollout)(state, jnp.zeros((100, 1, 6)))
    return state


def make_objective(world, state0):
    S, n = P["segments"], P["steps_per_segment"]
    goal = jnp.asarray(P["goal"])

    def objective(u):
        vel = jnp.concatenate([u, jnp.zeros((S, 4))], axis=1)      # (vx, vy, 0, 0, 0, 0)
        controls = jnp.repeat(vel, n, axis=0)[:, None, :]         # [T, 1, 6]
        (poses, _), _ = world.rollout(state0, controls)
        return jnp.sum((poses[1, :2] - goal) ** 2) + P["regulariser"] * jnp.sum(u ** 2)

    return objective


STRIKE_FORCE = dict(stiffness=1e4, damping=10.0, friction=C.STRIKE["friction"],
                    friction_velocity=1e-2)


def make_strike():
    """The strike task's world, start state and objective of the bat's velocity u [2]."""
    T = C.STRIKE
    table = osc.Convex.box(list(T["table_half"]))
    ball = osc.Convex.sphere(T["ball_radius"])
    bat = osc.Convex.capsule(T["bat_radius"], T["bat_half_length"])
    m, r = T["ball_mass"], T["ball_radius"]
    bodies = [rigid.Body(kind="static"), rigid.Body(m, [0.4 * m * r * r] * 3),
              rigid.Body(kind="kinematic")]
    pairs = [rigid.Pair(0, 1, lambda pa, va, pb, vb: oj.dcol_wrench(
                 table, pa, va, ball, pb, vb, **STRIKE_FORCE)),
             rigid.Pair(1, 2, lambda pa, va, pb, vb: oj.dcol_wrench(
                 ball, pa, va, bat, pb, vb, **dict(STRIKE_FORCE, friction=0.2)))]
    world = rigid.World(bodies, pairs, h=T["h"])
    s = np.sqrt(0.5)
    poses = jnp.array([[0, 0, -T["table_half"][2], 1, 0, 0, 0],
                       [0, 0, r, 1, 0, 0, 0],
                       list(T["bat_start"]) + [s, s, 0, 0]], dtype=float)  # bat axis along y
    state, _ = jax.jit(world.rollout)(world.state(poses), jnp.zeros((100, 1, 6)))  # settle
    goal = jnp.asarray(T["goal"])

    def objective(u):
        vel = jnp.zeros((T["steps"], 1, 6)).at[:T["strike_steps"], 0, :2].set(u)
        (poses_t, _), _ = world.rollout(state, vel)
        return jnp.sum((poses_t[1, :2] - goal) ** 2) + T["regulariser"] * jnp.sum(u ** 2)

    return world, state, objective


def run_task(task, objective, iterations, seeds, lr, sweep):
    """Optimisation runs, gradient errors and the direction-flip sweep of one task, saved as
    results/<task>_osculate.json (the step's cost: step_cost.py)."""
    f = jax.jit(objective)
    vg = jax.jit(jax.value_and_grad(objective))
    vg(C.initial_controls(task, 0))  # compile
    record = dict(task=task, method="osculate", runs=[])
    for seed in seeds:
        run = C.optimise(lambda u: [np.asarray(x) for x in vg(u)], C.initial_controls(task, seed),
                         lr, iterations)
        run["seed"] = seed
        record["runs"].append(run)
        print(task, "seed", seed, "objective", run["values"][0], "->", run["values"][-1],
              "in %.1f s" % run["times"][-1], flush=True)
    fnp = lambda u: float(f(u))  # noqa: E731
    errors = []
    for seed in seeds:
        u = C.initial_controls(task, seed)
        ref, info = C.converged_reference(fnp, u)
        errors.append(dict(seed=seed, error=C.relative_error(np.asarray(vg(u)[1]), ref), **info))
        print(task, "gradient error", errors[-1], flush=True)
    record["gradient_error"] = errors
    index, values = sweep
    grads, objective_values = [], []
    for s in values:
        u = C.initial_controls(task, 0)
        u[index] = s
        v, g = vg(u)
        objective_values.append(float(v))
        grads.append(np.asarray(g).ravel().tolist())
    record["sweep"] = dict(parameter=str(index), values=list(map(float, values)),
                           objective=objective_values, gradients=grads, flips=C.sign_flips(grads))
    print(task, "flips", record["sweep"]["flips"], flush=True)
    C.save(task + "_osculate", record)


def flat(world, n):
    """world.step on a flat state vector (poses [n, 7], velocities [n, 6])."""
    def step(x, u):
        s = world.step((x[:7 * n].reshape(n, 7), x[7 * n:].reshape(n, 6)), u)
        return jnp.concatenate([s[0].ravel(), s[1].ravel()])
    return step


def main(tasks=("push", "strike"), iterations=40, seeds=(0, 1, 2)):
    if "push" in tasks:
        world = make_world()
        state0 = start_state(world)
        run_task("push", make_objective(world, state0), iterations, seeds, 0.05,
                 ((0, 0), np.linspace(0.3, 0.5, 41)))
    if "strike" in tasks:
        world, state0, objective = make_strike()
        run_task("strike", objective, iterations, seeds, 0.05, ((0,), np.linspace(0.4, 0.8, 41)))


def fd_steps(seeds=(0, 1, 2), steps=(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)):
    """Central differences of osculate's objectives at each start with each step, beside the
    autodiff gradient, saved as results/<task>_osculate_fd_steps.json."""
    world = make_world()
    state0 = start_state(world)
    tasks = {"push": make_objective(world, state0), "strike": make_strike()[2]}
    for task, objective in tasks.items():
        f = jax.jit(objective)
        g = jax.jit(jax.grad(objective))
        record = dict(task=task, steps=list(steps), seeds=list(seeds), gradients=[], autodiff=[])
        for seed in seeds:
            u = C.initial_controls(task, seed)
            record["autodiff"].append(np.asarray(g(u)).ravel().tolist())
            record["gradients"].append([
                C.central_differences(lambda x: float(f(x)), u, e).ravel().tolist()
                for e in steps])
        C.save(task + "_osculate_fd_steps", record)


if __name__ == "__main__":
    if "--fd-steps" in sys.argv:
        fd_steps()
        sys.exit()
    main(tuple(sys.argv[1:]) or ("push", "strike"))
