"""The cost of one step with and without derivatives, osculate against MuJoCo and MJX, in one
run (results/step_cost.json). Needs osculate (OSCULATE_LIBRARY, PYTHONPATH as run.sh sets them),
mujoco and mujoco-mjx in one Python: the MuJoCo venv of run.sh.

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
Each side is measured at its best. MuJoCo's two C items run in a child process that never imports
JAX (`step_cost.py --native`): beside a JAX process XLA's idle worker threads keep spinning, and on
a 2-core machine they take the core mj_step runs on (mj_step read 31 us there against 7.8 us
alone). The JAX items run in this process pinned to one CPU (mujoco_tasks.jax_setup: XLA's worker
threads otherwise hand each of MJX's small operations between cores and spin while they wait;
on the loaded machine that made MJX's step Jacobian 40 to 75 times slower), which also keeps the
process CPU time to the work itself. The items of a side alternate: in each
of `rounds` rounds every item is called `calls` times in turn; the figure is the median over rounds
of the CPU time per call (the child's thread time for MuJoCo's C items, this process's time, all
threads, for the JAX items), with the wall time beside it. Compilation is excluded. The C items
also run in this process, alternating with the JAX items as every item did before this split, as
"... beside JAX" (process CPU time), to show what JAX's threads cost them."""

import json
import os
import subprocess
import sys
import time

import numpy as np

import mujoco

import common as C
import mujoco_tasks as MT


def osculate_items(task):
    import jax
    import jax.numpy as jnp
    import osculate_tasks as OT
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


def native_items(task):
    """MuJoCo's C items (mj_step, mjd_transitionFD) of `task` from the settled start."""
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

    return {"mj_step": step, "mjd_transitionFD": transition_fd}


def mjx_items(task):
    import jax
    import jax.numpy as jnp
    from mujoco import mjx
    t = MT.Task(task)
    m, d = t.m, t.d
    mujoco.mj_setState(m, d, t.start, t.spec)
    d.qvel[6:8] = (0.3, 0.0) if task == "push" else (0.6, 0.0)
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
    return {"MJX step": lambda: jax.block_until_ready(f(q, w)),
            "MJX step + Jacobian": lambda: jax.block_until_ready(jac(q, w))}


def measure(items, rounds, calls, cpu_clock):
    """Alternating rounds over `items`; per item the median, lowest and highest CPU time per call
    (cpu_clock) over rounds, and the median wall time."""
    for fn in items.values():  # compile and warm up
        fn()
    cpu = {name: [] for name in items}
    wall = {name: [] for name in items}
    for _ in range(rounds):
        for name, fn in items.items():
            w, c = time.perf_counter(), cpu_clock()
            for _ in range(calls):
                fn()
            cpu[name].append((cpu_clock() - c) / calls)
            wall[name].append((time.perf_counter() - w) / calls)
    return {name: dict(median=float(np.median(cpu[name])), low=float(np.min(cpu[name])),
                       high=float(np.max(cpu[name])), wall_median=float(np.median(wall[name])))
            for name in items}


def native(rounds, calls):
    """MuJoCo's C items of both tasks, in a process without JAX (the child of main)."""
    assert "jax" not in sys.modules
    print(json.dumps({task: measure(native_items(task), rounds, calls, time.thread_time)
                      for task in ("push", "strike")}))


def main(rounds=15, calls=10):
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--native", str(rounds),
                            str(calls)], check=True, capture_output=True, text=True)
    natives = json.loads(child.stdout)
    MT.jax_setup(single_thread=True, cache=False, pin=True)
    record = dict(xla_flags=os.environ.get("XLA_FLAGS", ""), rounds=rounds, calls=calls)
    for task in ("push", "strike"):
        t = time.perf_counter()
        items = dict(osculate_items(task))
        items.update(mjx_items(task))
        for fn in items.values():
            fn()
        print(task, "set up and compiled in %.1f s" % (time.perf_counter() - t), flush=True)
        # MuJoCo's C items also run here, in the same alternation, as "... beside JAX"
        items.update({name + " beside JAX": fn for name, fn in native_items(task).items()})
        record[task] = measure(items, rounds, calls, time.process_time)
        record[task].update(natives[task])
        for name, v in record[task].items():
            print("%s %-28s cpu %10.1f us  wall %10.1f us" % (task, name, v["median"] * 1e6,
                                                              v["wall_median"] * 1e6), flush=True)
        C.save("step_cost", record)


if __name__ == "__main__":
    if "--native" in sys.argv:
        i = sys.argv.index("--native")
        native(int(sys.argv[i + 1]), int(sys.argv[i + 2]))
    else:
        main()
