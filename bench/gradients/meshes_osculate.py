"""Task 2 with osculate: two real meshes (data/bunny.obj onto data/teapot.obj, scaled to 0.2 m and
0.64 m, y up) brought to a target contact configuration by optimising a trajectory of poses. The
bunny is placed kinematically at T waypoints (a translation offset and a rotation vector each,
from its start above the lid); at the last waypoint its contact wrench from the manifold must be
a target force straight up with no torque about its origin (its base), at the earlier waypoints
it must not touch, and the path must be short and smooth (common.meshes_objective_terms):

    J = sum_t |x_t - x_(t-1)|^2 + |F_T - F*|^2 / |F*|^2 + |tau_T|^2 / (|F*| L)^2
        + sum_(t<T) |F_t|^2 / |F*|^2

One vmapped manifold_wrench call evaluates every waypoint. The comparisons: central differences
of the same objective (the gradient a user without derivatives would take), and MuJoCo's sdf
geoms with central differences (meshes_mujoco.py). Run in osculate's venv (run.sh)."""

import time

import common as C

C.pin_to_one_cpu()  # before JAX starts its worker threads (common.pin_to_one_cpu)

import jax  # noqa: E402
import jax.numpy as jnp
import numpy as np

import osculate as osc
import osculate.jax as oj

jax.config.update("jax_enable_x64", True)
ROOT = C.HERE + "/../../data/"
M = C.MESHES
SCALE_A, SCALE_B = M["scale"], M["scale"]
WAYPOINTS = M["waypoints"]
TARGET = jnp.array(M["target"])  # force on the bunny, N
LENGTH = M["length"]             # torque scale, m
FORCE = dict(stiffness=300.0, damping=0.0, friction=M["friction"])
START = np.array(M["start"])


def body(name, scale, triangles=800):
    m = osc.Mesh.load(ROOT + name)
    return osc.Body.from_mesh((np.asarray(m.vertices) * scale, np.asarray(m.triangles)),
                              triangles=triangles)


def quat_exp(r):
    """The unit quaternion of rotation vector r [..., 3] (smooth at 0)."""
    angle2 = jnp.sum(r * r, axis=-1, keepdims=True)
    angle = jnp.sqrt(angle2 + 1e-30)
    half = 0.5 * angle
    s = jnp.where(angle2 > 1e-12, jnp.sin(half) / angle, 0.5 - angle2 / 48.0)
    return jnp.concatenate([jnp.cos(half), s * r], axis=-1)


def make_objective(teapot, bunny):
    cap = osc.max_contacts(teapot, bunny)
    pa = jnp.array([0.0, 0, 0, 1, 0, 0, 0])

    def poses(x):
        x = x.reshape(WAYPOINTS, 6)
        return jnp.concatenate([START + x[:, :3], quat_exp(x[:, 3:])], axis=-1)

    def objective(x):
        w = oj.manifold_wrench(teapot, pa, None, bunny, poses(x), None, capacity=cap, **FORCE)
        xs = jnp.concatenate([jnp.zeros((1, 6)), x.reshape(WAYPOINTS, 6)])
        path = jnp.sum((xs[1:] - xs[:-1]) ** 2)
        f, tau = w[-1, 1, :3], w[-1, 1, 3:]
        scale = jnp.sum(TARGET ** 2)
        return (path + jnp.sum((f - TARGET) ** 2) / scale
                + jnp.sum(tau ** 2) / (scale * LENGTH ** 2)
                + jnp.sum(w[:-1, 1, :3] ** 2) / scale)

    return objective, poses


initial = C.meshes_initial


def main(iterations=40, seeds=(0, 1, 2), lr=M["lr"], fd_eps=1e-6, sweep_points=41):
    t = time.perf_counter()
    teapot, bunny = body("teapot.obj", SCALE_A), body("bunny.obj", SCALE_B)
    print("bodies in %.1f s" % (time.perf_counter() - t), flush=True)
    objective, poses = make_objective(teapot, bunny)
    f = jax.jit(objective)
    vg = jax.jit(jax.value_and_grad(objective))
    vg(initial(0))
    fnp = lambda x: float(f(x))  # noqa: E731
    methods = {"osculate": lambda x: [np.asarray(v) for v in vg(x)],
               "osculate_fd": lambda x: [fnp(x), C.central_differences(fnp, x, fd_eps)]}
    references = {}
    for method, value_and_grad in methods.items():
        record = dict(task="meshes", method=method, runs=[],
                      fd_eps=fd_eps if method == "osculate_fd" else None)
        for seed in seeds:
            run = C.optimise(value_and_grad, initial(seed), lr, iterations)
            run["seed"] = seed
            final = jnp.asarray(run["final"])
            w = oj.manifold_wrench(teapot, jnp.array([0.0, 0, 0, 1, 0, 0, 0]), None, bunny,
                                   poses(final), None, **FORCE)
            run["final_wrench"] = np.asarray(w[-1, 1]).tolist()
            record["runs"].append(run)
            print(method, "seed", seed, run["values"][0], "->", run["values"][-1],
                  "in %.1f s" % run["times"][-1], "wrench", np.round(run["final_wrench"], 3),
                  flush=True)
        # the gradient's error at each seed's start (as the other tasks) and at the optimiser's
        # end point (where the bunny presses on the lid if the run ended in contact), against the
        # converged central differences (one reference a point)
        for key, points in (("gradient_error", [initial(seed) for seed in seeds]),
                            ("gradient_error_end", [r["final"] for r in record["runs"]])):
            errors = []
            for seed, x in zip(seeds, points):
                x = np.asarray(x)
                if x.tobytes() not in references:
                    references[x.tobytes()] = C.converged_reference(fnp, x)
                ref, info = references[x.tobytes()]
                errors.append(dict(seed=seed, error=C.relative_error(
                    np.asarray(value_and_grad(x)[1]), ref), **info))
                print(method, key, errors[-1], flush=True)
            record[key] = errors
        # the gradient at neighbouring states: the last waypoint's height swept through the
        # first touch, from seed 0's start (meshes_mujoco.py sweeps the same)
        record["sweep"] = C.sweep(value_and_grad, initial(0).reshape(WAYPOINTS, 6),
                                  M["sweep_index"], np.linspace(*M["sweep_range"], sweep_points))
        print(method, "flips", record["sweep"]["flips"], flush=True)
        C.save("meshes_" + method, record)


if __name__ == "__main__":
    main()
