"""The gradient tasks as a MuJoCo user does them today: the same scenes in MJCF, the same
objective on mj_step rollouts, its gradient by central differences of rollouts (MuJoCo), and by
autodiff of MJX's step on the CPU (mujoco-mjx). Run in the MuJoCo venv (run.sh): it needs a jax
that mujoco-mjx accepts, newer than osculate's."""

import sys
import time

import numpy as np

import mujoco

import common as C

P, T = C.PUSH, C.STRIKE
# The pusher and the bat slide on two joints (x, y) and their joint velocities are set to the
# control before every step, with a mass that makes the contact's reaction negligible: a kinematic
# body whose velocity the contact sees (a mocap body moves without a velocity, so MuJoCo's friction
# would not feel its sliding).
HEAVY = 1000.0

PUSH_XML = """
<mujoco>
  <option timestep="{h}" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="ground" type="box" size="{gx} {gy} {gz}" pos="0 0 {gzc}" contype="0" conaffinity="0"/>
    <body name="box" pos="0 0 {bz}">
      <freejoint/>
      <geom name="box" type="box" size="{bx} {by} {bz}" mass="{m}" contype="0" conaffinity="0"/>
    </body>
    <body name="pusher" pos="{px} {py} {pz}">
      <joint name="pusher_x" type="slide" axis="1 0 0"/>
      <joint name="pusher_y" type="slide" axis="0 1 0"/>
      <geom name="pusher" type="sphere" size="{r}" mass="{heavy}" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="ground" geom2="box" friction="{mu} {mu} 0.005 0.0001 0.0001"/>
    <pair geom1="box" geom2="pusher" friction="0.2 0.2 0.005 0.0001 0.0001"/>
  </contact>
</mujoco>
"""

STRIKE_XML = """
<mujoco>
  <option timestep="{h}" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="table" type="box" size="{tx} {ty} {tz}" pos="0 0 {tzc}" contype="0" conaffinity="0"/>
    <body name="ball" pos="0 0 {r}">
      <freejoint/>
      <geom name="ball" type="sphere" size="{r}" mass="{m}" contype="0" conaffinity="0"/>
    </body>
    <body name="bat" pos="{sx} {sy} {sz}">
      <joint name="bat_x" type="slide" axis="1 0 0"/>
      <joint name="bat_y" type="slide" axis="0 1 0"/>
      <geom name="bat" type="capsule" size="{br} {bl}" mass="{heavy}" contype="0" conaffinity="0"
            quat="0.7071067811865476 0.7071067811865476 0 0"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="table" geom2="ball" friction="{mu} {mu} 0.005 0.0001 0.0001"/>
    <pair geom1="ball" geom2="bat" friction="0.2 0.2 0.005 0.0001 0.0001"/>
  </contact>
</mujoco>
"""


def push_model():
    g, b, s = P["ground_half"], P["box_half"], P["pusher_start"]
    xml = PUSH_XML.format(h=P["h"], gx=g[0], gy=g[1], gz=g[2], gzc=-g[2], bx=b[0], by=b[1],
                          bz=b[2], m=P["box_mass"], px=s[0], py=s[1], pz=s[2],
                          r=P["pusher_radius"], mu=P["friction"], heavy=HEAVY)
    return mujoco.MjModel.from_xml_string(xml)


def strike_model():
    t, s = T["table_half"], T["bat_start"]
    xml = STRIKE_XML.format(h=T["h"], tx=t[0], ty=t[1], tz=t[2], tzc=-t[2], r=T["ball_radius"],
                            m=T["ball_mass"], sx=s[0], sy=s[1], sz=s[2], br=T["bat_radius"],
                            bl=T["bat_half_length"], mu=T["friction"], heavy=HEAVY)
    return mujoco.MjModel.from_xml_string(xml)


class Task:
    """A task on mj_step: the settled start (100 steps) is kept as a state and restored per
    rollout; the controls are the velocities of the driven body (the pusher or the bat)."""

    def __init__(self, name):
        self.name = name
        self.m = push_model() if name == "push" else strike_model()
        self.d = mujoco.MjData(self.m)
        mujoco.mj_forward(self.m, self.d)
        for _ in range(100):
            mujoco.mj_step(self.m, self.d)
        self.spec = mujoco.mjtState.mjSTATE_INTEGRATION
        self.start = np.zeros(mujoco.mj_stateSize(self.m, self.spec))
        mujoco.mj_getState(self.m, self.d, self.start, self.spec)
        p = P if name == "push" else T
        self.h = p["h"]
        if name == "push":
            self.shape = (P["segments"], 2)
            self.velocities = lambda u: np.repeat(u, P["steps_per_segment"], axis=0)
        else:
            self.shape = (2,)
            self.velocities = lambda u: np.concatenate(
                [np.repeat(u[None], T["strike_steps"], 0),
                 np.zeros((T["steps"] - T["strike_steps"], 2))])

    def rollout(self, u):
        m, d = self.m, self.d
        mujoco.mj_setState(m, d, self.start, self.spec)
        for v in self.velocities(u):
            d.qvel[6:8] = v   # the free body's 6 velocities, then the driven body's x, y
            mujoco.mj_step(m, d)
        return d.qpos[:2].copy()

    def objective(self, u):
        u = np.asarray(u).reshape(self.shape)
        return C.objective_terms(self.name, self.rollout(u), u)


def fd_value_and_grad(f, eps):
    def vg(x):
        return f(x), C.central_differences(f, x, eps)
    return vg


# XLA on the CPU. XLA runs a compiled program's operations on a pool of worker threads (as many as
# the CPUs the process may use; "tf_XLAEigen"), and MJX's step is thousands of small operations
# inside while loops: on a loaded machine every hand-off between the threads waits for a worker
# to be scheduled, and the threads burn CPU time around every hand-off. The push gradient cost
# 19 s of CPU time (half of it in the workers) and 40 to 90 s of wall time at load 15 to 20;
# with the process pinned to one CPU it costs 0.2 s (mjx_cost, results/push_mjx_cost.json). The
# flags below (Eigen's pool off), with the fused value, took 2% off unpinned; the pinning is what
# counts. Both apply only before JAX's CPU backend starts.
XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def mjx_cache_dir():
    import os
    import tempfile
    default = os.path.join(tempfile.gettempdir(), "osculate-mjx-cache")
    return os.environ.get("MJX_CACHE_DIR", default)


def jax_setup(single_thread=True, cache=True, pin=True):
    """Configures JAX for MJX before its first use: 64-bit floats, the process pinned to one CPU
    (common.pin_to_one_cpu) and Eigen's pool off (XLA_SINGLE_THREAD), and the persistent compilation cache
    in $MJX_CACHE_DIR (default <tmp>/osculate-mjx-cache), so that a second process loads the
    compiled gradient (compiling MJX's push gradient takes 1 to 5 minutes) instead of compiling it
    again."""
    import os
    if pin:
        C.pin_to_one_cpu()
    if single_thread and XLA_SINGLE_THREAD not in os.environ.get("XLA_FLAGS", ""):
        flags = os.environ.get("XLA_FLAGS", "") + " " + XLA_SINGLE_THREAD
        os.environ["XLA_FLAGS"] = flags.strip()
    import jax
    jax.config.update("jax_enable_x64", True)
    if cache:
        jax.config.update("jax_compilation_cache_dir", mjx_cache_dir())
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def mjx_task(task, fused=True):
    """A task's value_and_grad by MJX autodiff (jit-compiled), from the same settled start, and its
    objective alone (jitted on first use). MJX's constraint solver is a while loop, which reverse
    mode cannot differentiate (unless opt.iterations = 1, another model), so jax.checkpoint and
    reverse mode are out: the gradient is forward mode (jax.jacfwd), one tangent per control (16 on
    the push), which carries the primal rollout along. With `fused` the objective's value is that
    primal (jacfwd's has_aux): one rollout and one compiled program per evaluation. Without it (the
    earlier form) the value is a second, separately compiled rollout. Call jax_setup first."""
    import jax
    import jax.numpy as jnp
    from mujoco import mjx
    jax.config.update("jax_enable_x64", True)
    mx = mjx.put_model(task.m)
    d = mujoco.MjData(task.m)
    mujoco.mj_setState(task.m, d, task.start, task.spec)
    mujoco.mj_forward(task.m, d)
    dx0 = mjx.put_data(task.m, d)
    # the step's output types (int64 contact indices under x64) for the scan's carry
    shapes = jax.eval_shape(lambda x: mjx.step(mx, x), dx0)
    dx0 = jax.tree_util.tree_map(lambda x, s: jnp.asarray(x, s.dtype), dx0, shapes)
    p = P if task.name == "push" else T
    goal = jnp.asarray(p["goal"])
    if task.name == "push":
        velocities = lambda u: jnp.repeat(u, P["steps_per_segment"], axis=0)  # noqa: E731
    else:
        velocities = lambda u: jnp.concatenate(  # noqa: E731
            [jnp.repeat(u[None], T["strike_steps"], 0),
             jnp.zeros((T["steps"] - T["strike_steps"], 2))])

    def objective(u):
        def step(dx, v):
            dx = dx.replace(qvel=dx.qvel.at[6:8].set(v))
            return mjx.step(mx, dx), None
        dx, _ = jax.lax.scan(step, dx0, velocities(u))
        return jnp.sum((dx.qpos[:2] - goal) ** 2) + p["regulariser"] * jnp.sum(u ** 2)

    f = jax.jit(objective)
    if fused:
        def with_value(u):
            v = objective(u)
            return v, v
        value_and_jac = jax.jit(jax.jacfwd(with_value, has_aux=True))

        def vg(u):
            g, v = value_and_jac(jnp.asarray(u).reshape(task.shape))
            return [np.asarray(v), np.asarray(g)]
    else:
        grad = jax.jit(jax.jacfwd(objective))

        def vg(u):
            u = jnp.asarray(u).reshape(task.shape)
            return [np.asarray(f(u)), np.asarray(grad(u))]

    return vg, lambda u: float(f(jnp.asarray(u).reshape(task.shape)))


def mjx_cost(name, variant, evaluations=3):
    """The cost of MJX's gradient of `name`'s objective in this process, for `variant`: "before"
    (the earlier form: default XLA threads, a separate value rollout, no compilation cache),
    "flags" (the fused value and Jacobian, XLA_SINGLE_THREAD, the cache, not pinned), "after"
    (jax_setup: also pinned to one CPU) or "before, pinned" (the earlier form, pinned); a variant
    whose program was in the cache is saved as "..., cached". Records the compile (the first
    evaluation) and `evaluations` more at seed 0's start, wall and process CPU time (all threads),
    and the value and gradient there, in results/<name>_mjx_cost.json under the variant."""
    import os
    after = variant in ("after", "flags")
    cached = after and os.path.isdir(mjx_cache_dir()) and bool(os.listdir(mjx_cache_dir()))
    jax_setup(single_thread=after, cache=after, pin=variant in ("after", "before, pinned"))
    task = Task(name)
    u = C.initial_controls(name, 0)
    w, c = time.perf_counter(), time.process_time()
    vg, _ = mjx_task(task, fused=after)
    v, g = vg(u)
    first = dict(wall=time.perf_counter() - w, cpu=time.process_time() - c)
    walls, cpus = [], []
    for _ in range(evaluations):
        w, c = time.perf_counter(), time.process_time()
        v, g = vg(u)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    try:
        record = C.load(name + "_mjx_cost")
    except FileNotFoundError:
        record = {}
    key = variant + (", cached" if cached else "")
    record[key] = dict(xla_flags=os.environ.get("XLA_FLAGS", ""), fused=after,
                       cpus=sorted(os.sched_getaffinity(0)),
                       first_evaluation=first, wall=walls, cpu=cpus,
                       wall_median=float(np.median(walls)), cpu_median=float(np.median(cpus)),
                       value=float(v), gradient=np.asarray(g).ravel().tolist(),
                       load=os.getloadavg()[0])
    C.save(name + "_mjx_cost", record)
    print(name, key, "first %.1f s wall %.1f s cpu; then %.2f s wall %.2f s cpu (median of %d)"
          % (first["wall"], first["cpu"], np.median(walls), np.median(cpus), evaluations),
          flush=True)


def main(name, iterations=40, seeds=(0, 1, 2), lr=0.05, fd_eps=1e-6, with_fd=True,
         with_mjx=True):
    """Runs `name` with each method: optimisation runs, gradient errors at the starts, the sweep
    (41 points) and, for MuJoCo's differences, their error against their step."""
    task = Task(name)
    methods = {}
    if with_fd:
        methods["mujoco_fd"] = (fd_value_and_grad(task.objective, fd_eps), task.objective)
    if with_mjx:
        jax_setup()
        t = time.perf_counter()
        vg, f = mjx_task(task)
        vg(C.initial_controls(name, 0))
        print(name, "mjx compiled in %.1f s" % (time.perf_counter() - t), flush=True)
        methods["mjx"] = (vg, f)
    sweep_index, sweep_range = ((0, 0), (0.3, 0.5)) if name == "push" else ((0,), (0.4, 0.8))
    for method, (vg, f) in methods.items():
        record = dict(task=name, method=method, runs=[],
                      fd_eps=fd_eps if method == "mujoco_fd" else None)
        sweep = np.linspace(*sweep_range, 41)
        for seed in seeds:
            run = C.optimise(vg, C.initial_controls(name, seed), lr, iterations)
            run["seed"] = seed
            record["runs"].append(run)
            print(name, method, "seed", seed, run["values"][0], "->", run["values"][-1],
                  "in %.1f s" % run["times"][-1], flush=True)
        errors = []
        for seed in seeds:
            u = C.initial_controls(name, seed)
            ref, info = C.converged_reference(f, u)
            errors.append(dict(seed=seed, error=C.relative_error(vg(u)[1], ref), **info))
            print(name, method, "gradient error", errors[-1], flush=True)
        record["gradient_error"] = errors
        grads, values = [], []
        for s in sweep:
            u = C.initial_controls(name, 0)
            u[sweep_index] = s
            v, g = vg(u)
            values.append(float(v))
            grads.append(np.asarray(g).ravel().tolist())
        record["sweep"] = dict(parameter=str(sweep_index), values=sweep.tolist(),
                               objective=values, gradients=grads, flips=C.sign_flips(grads))
        print(name, method, "flips", record["sweep"]["flips"], flush=True)
        if method == "mujoco_fd":
            # the finite-difference gradient's dependence on its step, at seed 0
            u = C.initial_controls(name, 0)
            ref, _ = C.converged_reference(f, u)
            steps = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
            record["fd_step_error"] = dict(steps=steps, error=[
                C.relative_error(C.central_differences(f, u, e), ref) for e in steps])
            print(name, "fd step error", record["fd_step_error"], flush=True)
        C.save(name + "_" + method, record)


def fd_steps(name, seeds=(0, 1, 2), steps=(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)):
    """Central differences of the MuJoCo objective at each start with each step, saved as
    results/<name>_fd_steps.json: how the finite-difference gradient depends on its step."""
    task = Task(name)
    record = dict(task=name, steps=list(steps), seeds=list(seeds), gradients=[])
    for seed in seeds:
        u = C.initial_controls(name, seed)
        record["gradients"].append([C.central_differences(task.objective, u, e).ravel().tolist()
                                    for e in steps])
    C.save(name + "_fd_steps", record)


if __name__ == "__main__":
    cost = [a for a in sys.argv if a.startswith("--mjx-cost=")]
    if cost:
        mjx_cost("push", cost[0].split("=")[1])
        sys.exit()
    if "--fd-steps" in sys.argv:
        for name in ("push", "strike"):
            fd_steps(name)
        sys.exit()
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for name in args or ("push", "strike"):
        main(name, with_fd="--no-fd" not in sys.argv, with_mjx="--no-mjx" not in sys.argv)
