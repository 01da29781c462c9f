"""The cost of one step with and without derivatives, osculate against MuJoCo and MJX, in one
process and one run (results/step_cost.json). Needs osculate (OSCULATE_LIBRARY, PYTHONPATH as
run.sh sets them), mujoco and mujoco-mjx in one Python: the MuJoCo venv of run.sh.

Per task (push, strike), at the settled start with the driven body moving:
  osculate step            jit(world.step) on the flat state (poses and velocities of 3 bodies)
  osculate step + VJP      jit(value_and_grad) of a fixed linear function of the next state with
                           respect to the state and the control: what one step of a gradient
                           through time costs (one reverse pass)
  osculate step + Jacobian jit(jacrev) of the next state with respect to state and control (39 rows)
  mj_step                  MuJoCo's step from the same state
  mjd_transitionFD         MuJoCo's state Jacobian of the step by centred differences (eps 1e-6),
                           what a MuJoCo user gets as the step's derivative
  MJX step                 jit(mjx.step) on the CPU
  MJX step + Jacobian      jit(jacfwd) of the next (qpos, qvel) with respect to (qpos, qvel):
                           forward mode, because MJX's solver loop has no reverse rule
The measurements alternate: in each of `rounds` rounds every item is called `calls` times in turn;
the figure is the median over rounds of the time per call. Compilation is excluded."""

import time

import numpy as np

import jax
import jax.numpy as jnp

import mujoco
from mujoco import mjx

import common as C
import mujoco_tasks as MT
import osculate_tasks as OT

jax.config.update("jax_enable_x64", True)


def osculate_items(task):
    if task == "push":
        world = OT.make_world()
        state = OT.start_state(world)
        u = jnp.zeros((1, 6)).at[0, 0].set(0.3)
    else:
        world, state, _ = OT.make_strike()
        u = jnp.zeros((1, 6)).at[0, 0].set(0.6)
    x = jnp.concatenate([state[0].ravel(), state[1].ravel()])
    step = OT.flat(world, 3)
    weights = jnp.asarray(np.random.default_rng(0).normal(size=x.shape))
    f = jax.jit(step)
    vjp = jax.jit(jax.value_and_grad(lambda x, u: jnp.dot(weights, step(x, u)), argnums=(0, 1)))
    jac = jax.jit(jax.jacrev(step, argnums=(0, 1)))
    items = {"osculate step": lambda: jax.block_until_ready(f(x, u)),
             "osculate step + VJP": lambda: jax.block_until_ready(vjp(x, u)),
             "osculate step + Jacobian": lambda: jax.block_until_ready(jac(x, u))}
    return items


def mujoco_items(task):
    t = MT.Task(task)
    m, d = t.m, t.d
    v = (0.3, 0.0) if task == "push" else (0.6, 0.0)

    def reset():
        mujoco.mj_setState(m, d, t.start, t.spec)
        d.qvel[6:8] = v

    A = np.zeros((2 * m.nv + m.na, 2 * m.nv + m.na))

    def step():
        reset()
        mujoco.mj_step(m, d)

    def transition_fd():
        reset()
        mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, None, None, None)

    reset()
    mujoco.mj_forward(m, d)
    mx = mjx.put_model(m)
    dx = mjx.put_data(m, d)
    shapes = jax.eval_shape(lambda x: mjx.step(mx, x), dx)
    dx = jax.tree_util.tree_map(lambda a, s: jnp.asarray(a, s.dtype), dx, shapes)

    def mjx_next(qpos, qvel):
        out = mjx.step(mx, dx.replace(qpos=qpos, qvel=qvel))
        return jnp.concatenate([out.qpos, out.qvel])

    f = jax.jit(mjx_next)
    jac = jax.jit(jax.jacfwd(mjx_next, argnums=(0, 1)))
    q, w = dx.qpos, dx.qvel
    return {"mj_step": step, "mjd_transitionFD": transition_fd,
            "MJX step": lambda: jax.block_until_ready(f(q, w)),
            "MJX step + Jacobian": lambda: jax.block_until_ready(jac(q, w))}


def main(rounds=15, calls=10):
    record = {}
    for task in ("push", "strike"):
        items = {}
        t = time.perf_counter()
        items.update(osculate_items(task))
        items.update(mujoco_items(task))
        for fn in items.values():  # compile and warm up
            fn()
        print(task, "set up and compiled in %.1f s" % (time.perf_counter() - t), flush=True)
        times = {name: [] for name in items}
        for _ in range(rounds):
            for name, fn in items.items():
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                times[name].append((time.perf_counter() - start) / calls)
        record[task] = {name: dict(median=float(np.median(v)), low=float(np.min(v)),
                                   high=float(np.max(v))) for name, v in times.items()}
        for name, v in record[task].items():
            print("%s %-26s %10.1f us" % (task, name, v["median"] * 1e6), flush=True)
        record[task]["rounds"], record[task]["calls"] = rounds, calls
        C.save("step_cost", record)


if __name__ == "__main__":
    main()
