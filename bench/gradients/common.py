"""What the gradient benchmarks share across their two environments (osculate's venv with jax
0.4.38, and MuJoCo's venv with mujoco and mujoco-mjx): the tasks' parameters, the optimiser, the
finite-difference reference and the records. NumPy only."""

import json
import os
import time

import numpy as np


def pin_to_one_cpu():
    """Restricts this process to one of the CPUs it may use ($MJX_CPU, or one chosen by the
    process id so that two runs side by side take different CPUs); returns that CPU. JAX runs a
    program's operations on a pool of worker threads, whose hand-offs cost more than they save on
    a loaded machine (mujoco_tasks.py, XLA_SINGLE_THREAD): every JAX run here pins itself before
    JAX starts, so that osculate's and MJX's runs are timed alike."""
    cpus = sorted(os.sched_getaffinity(0))
    cpu = int(os.environ.get("MJX_CPU", cpus[os.getpid() % len(cpus)]))
    os.sched_setaffinity(0, {cpu})
    return cpu


HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")

# ------------------------------------------------------------------------------------------------
# task 1: push a box to a goal on a plane with a kinematic sphere whose velocity is the control

PUSH = dict(
    h=2e-3,              # time step (s)
    segments=8,          # piecewise-constant pusher velocity (vx, vy) per segment
    steps_per_segment=40,
    ground_half=(2.0, 2.0, 0.1),   # a slab whose top face is z = 0
    box_half=(0.1, 0.1, 0.1),
    box_mass=1.0,
    pusher_radius=0.05,
    pusher_start=(-0.2, 0.0, 0.1),
    goal=(0.25, 0.1),             # the box centre's (x, y) at the end
    friction=0.5,
    regulariser=1e-3,             # lambda sum |u|^2 over the segments
)

# task 3: a DCOL primitive task: a kinematic capsule (a bat, axis along y) strikes a ball resting
# on a box table; the bat's velocity (vx, vy) over the first `strike_steps` is the control, and the
# ball should end at a goal. Every contact is between convex primitives (DCOL)
STRIKE = dict(
    h=2e-3,
    steps=300,
    strike_steps=80,
    table_half=(1.0, 1.0, 0.1),
    ball_radius=0.05,
    ball_mass=0.2,
    bat_radius=0.03,
    bat_half_length=0.1,
    bat_start=(-0.12, 0.0, 0.05),
    goal=(0.3, 0.12),
    friction=0.5,
    regulariser=1e-3,
)

# task 2: the bunny (data/bunny.obj) placed at WAYPOINTS poses above and on the lid of the teapot
# (data/teapot.obj, at the identity); both scaled by 0.02 (0.2 m and 0.64 m), y up. Variables: per
# waypoint a translation offset from `start` and a rotation vector (6 x 6 = 36)
MESHES = dict(
    scale=0.02,
    waypoints=6,
    start=(0.0, 0.26, 0.0),   # the bunny's origin (its base) above the lid
    target=(0.0, 5.0, 0.0),   # the contact force on the bunny at the last waypoint, N
    length=0.1,               # the torque's scale, m
    friction=0.5,
    lr=0.004,                 # Adam's step (metres and radians of a small part)
    sweep_index=(5, 1),       # the sweep: the last waypoint's height offset
    sweep_range=(-0.112, -0.100),
)


def meshes_initial(seed):
    """The start of every optimiser of task 2 for `seed` [36]: a straight descent to first touch on
    the lid (without a contact at the last waypoint its force terms have no gradient at all),
    perturbed by the seed."""
    rng = np.random.default_rng(seed)
    x = np.zeros((MESHES["waypoints"], 6))
    x[:, 1] = np.linspace(-0.018, -0.106, MESHES["waypoints"])
    x[:, :3] += 0.005 * rng.normal(size=(MESHES["waypoints"], 3))
    x[:, 3:] += 0.02 * rng.normal(size=(MESHES["waypoints"], 3))
    return x.ravel()


def meshes_objective_terms(x, forces, final_torque):
    """Task 2's objective from the variables x [36], the contact force on the bunny at every
    waypoint [T, 3] and its torque about its origin at the last one [3]:

        J = sum_t |x_t - x_(t-1)|^2 + |F_T - F*|^2 / |F*|^2 + |tau_T|^2 / (|F*| L)^2
            + sum_(t<T) |F_t|^2 / |F*|^2

    (x_0 = 0). NumPy here; meshes_osculate.py writes the same in JAX."""
    x = np.asarray(x).reshape(MESHES["waypoints"], 6)
    xs = np.concatenate([np.zeros((1, 6)), x])
    target = np.asarray(MESHES["target"])
    scale = np.sum(target ** 2)
    forces = np.asarray(forces)
    return float(np.sum((xs[1:] - xs[:-1]) ** 2) + np.sum((forces[-1] - target) ** 2) / scale
                 + np.sum(np.asarray(final_torque) ** 2) / (scale * MESHES["length"] ** 2)
                 + np.sum(forces[:-1] ** 2) / scale)


def objective_terms(task, xy, controls):
    """A task's objective from the final (x, y) of the pushed body and the controls."""
    p = PUSH if task == "push" else STRIKE
    return float(np.sum((np.asarray(xy) - np.asarray(p["goal"])) ** 2)
                 + p["regulariser"] * np.sum(np.asarray(controls) ** 2))


def initial_controls(task, seed):
    """The start of every optimiser for `task` and `seed`: the same for every method."""
    rng = np.random.default_rng(seed)
    if task == "push":
        u = np.zeros((PUSH["segments"], 2))
        u[:, 0] = 0.4
        return u + 0.05 * rng.normal(size=u.shape)
    if task == "strike":
        return np.array([0.6, 0.0]) + 0.1 * rng.normal(size=2)
    raise ValueError(task)


class Adam:
    """Adam with a fixed step: the one optimiser every method uses."""

    def __init__(self, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, beta1, beta2, eps
        self.m = self.v = None
        self.t = 0

    def step(self, x, g):
        g = np.asarray(g, dtype=float)
        if self.m is None:
            self.m, self.v = np.zeros_like(g), np.zeros_like(g)
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        mh = self.m / (1 - self.b1 ** self.t)
        vh = self.v / (1 - self.b2 ** self.t)
        return x - self.lr * mh / (np.sqrt(vh) + self.eps)


def optimise(value_and_grad, x0, lr, iterations):
    """Adam from x0: the objective and the elapsed wall time after each gradient evaluation
    (iteration 0 is the start)."""
    opt = Adam(lr)
    x = np.array(x0, dtype=float)
    values, times = [], []
    start = time.perf_counter()
    for _ in range(iterations + 1):
        f, g = value_and_grad(x)
        values.append(float(f))
        times.append(time.perf_counter() - start)
        if not np.all(np.isfinite(g)):
            break
        x = opt.step(x, g)
    return dict(values=values, times=times, final=x.tolist())


def central_differences(f, x, eps):
    """Central differences of scalar f at x (any shape) with step eps."""
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def converged_reference(f, x, steps=(1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6)):
    """The finite-difference reference of f's gradient at x: central differences over shrinking
    steps, taking the step where two neighbours agree best (relative change), and that change as
    the reference's own uncertainty."""
    grads = [central_differences(f, x, e) for e in steps]
    changes = [np.linalg.norm(grads[k + 1] - grads[k]) / max(np.linalg.norm(grads[k + 1]), 1e-300)
               for k in range(len(grads) - 1)]
    k = int(np.argmin(changes))
    return grads[k + 1], dict(step=steps[k + 1], uncertainty=float(changes[k]))


def relative_error(g, reference):
    return float(np.linalg.norm(np.asarray(g) - reference) / max(np.linalg.norm(reference), 1e-300))


def sign_flips(gradients, component=0):
    """How often the gradient's direction flips between neighbouring states: the fraction of
    neighbours whose gradients have a negative inner product, and the fraction where the swept
    component (index `component` of the flattened gradient) changes sign."""
    g = np.asarray(gradients).reshape(len(gradients), -1)
    dots = np.sum(g[1:] * g[:-1], axis=1)
    first = np.sign(g[:, component])
    return dict(direction=float(np.mean(dots < 0)), component=float(np.mean(first[1:] != first[:-1])))


def sweep(value_and_grad, x0, index, values):
    """The objective and the gradient at the neighbouring states x0 with x0[index] = each of
    `values`, and how often the gradient's direction flips between them (sign_flips), as a
    record's "sweep"."""
    x0 = np.asarray(x0, dtype=float)
    component = int(np.ravel_multi_index(index, x0.shape))
    objective, grads = [], []
    for s in values:
        x = x0.copy()
        x[index] = s
        v, g = value_and_grad(x.ravel())
        objective.append(float(v))
        grads.append(np.ravel(g).tolist())
    return dict(parameter=str(index), values=list(map(float, values)), objective=objective,
                gradients=grads, flips=sign_flips(grads, component=component))


def save(name, record):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, name + ".json"), "w") as f:
        json.dump(record, f, indent=1)


def load(name):
    with open(os.path.join(RESULTS, name + ".json")) as f:
        return json.load(f)
