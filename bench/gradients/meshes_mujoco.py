"""Task 2 as a MuJoCo user who needs non-convex contact does it: the bunny onto the teapot's lid
through 6 waypoints (36 variables), with MuJoCo's contact force and central differences.

MuJoCo collides a mesh geom through its convex hull, which would put the bunny on the teapot's
hull (another contact problem). Its non-convex mesh collision is the `sdf` geom type: a mesh with
`needsdf` gets an octree signed distance (MuJoCo >= 3.3.5, the native successor of the
`mujoco.sdf.sdflib` plugin; default depth 6), and a pair of sdf geoms is collided by gradient
descent on max(phi_A, phi_B) from `sdf_initpoints` starts (the defaults, 40 and 10 iterations).
bench/peers/mujoco_manifold.py uses the same construction as the peer of the manifold benchmark.

The model: the teapot is a static body at the identity, the bunny a free body of 1 kg (both
friction 0.5, no gravity, MuJoCo's default solref/solimp). The objective is
common.meshes_objective_terms, as in meshes_osculate.py, with the contact wrench at a waypoint
taken as MuJoCo gives it for a pose: qpos = the waypoint's pose, qvel = 0, mj_forward, and the
constraint force on the bunny's free joint (qfrc_constraint: the world force, then the torque
about the bunny's origin in its frame; only |tau| enters). That is the force the soft-constraint
solver would apply in the next step from that pose at rest. Both bodies keep the mesh file's frame
(MuJoCo compensates its re-centring through the geom frame; the run checks the vertices).

The gradient is central differences of that objective (72 objective evaluations, 432 mj_forward);
the optimiser, its step, the starts, the seeds and the iterations are meshes_osculate.py's. MJX
has no sdf geoms (mjx.put_model refuses the model; the record keeps its message). Run in the
MuJoCo venv (run.sh)."""

import os
import sys
import time

import numpy as np

import mujoco

import common as C

sys.path.insert(0, os.path.join(C.HERE, "..", "peers"))
from mesh_sdf_peers import load_mesh  # noqa: E402

M = C.MESHES
ROOT = os.path.join(C.HERE, "..", "..", "data")


def model():
    """The compiled model (teapot body 0's static geom, bunny free body) and its compile time."""
    spec = mujoco.MjSpec()
    spec.option.gravity = [0.0, 0.0, 0.0]
    for name in ("teapot", "bunny"):
        V, F = load_mesh(os.path.join(ROOT, name + ".obj"))
        mesh = spec.add_mesh(name=name)
        mesh.uservert = np.ascontiguousarray(V * M["scale"], dtype=np.float32).ravel()
        mesh.userface = np.ascontiguousarray(F, dtype=np.int32).ravel()
        mesh.needsdf = True
    friction = [M["friction"], 0.005, 0.0001]
    spec.worldbody.add_body(name="teapot").add_geom(
        name="teapot", type=mujoco.mjtGeom.mjGEOM_SDF, meshname="teapot", friction=friction)
    bunny = spec.worldbody.add_body(name="bunny")
    bunny.add_freejoint()
    bunny.add_geom(name="bunny", type=mujoco.mjtGeom.mjGEOM_SDF, meshname="bunny", mass=1.0,
                   friction=friction)
    start = time.perf_counter()
    m = spec.compile()
    return m, time.perf_counter() - start


def vertex_check(m, d):
    """Largest |MuJoCo's world vertex - the file's vertex at the pose| of both meshes, identity
    pose of the bunny at `start`."""
    d.qpos[:7] = list(M["start"]) + [1, 0, 0, 0]
    mujoco.mj_kinematics(m, d)
    worst = 0.0
    for g, name in enumerate(("teapot", "bunny")):
        V = load_mesh(os.path.join(ROOT, name + ".obj"))[0] * M["scale"]
        want = V + (np.asarray(M["start"]) if g == 1 else 0.0)
        adr, num = m.mesh_vertadr[g], m.mesh_vertnum[g]
        if num != len(V):
            return None
        got = m.mesh_vert[adr:adr + num] @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
        worst = max(worst, float(np.abs(got - want).max()))
    return worst


def quat_exp(r):
    """The unit quaternion (w, x, y, z) of rotation vector r [3]."""
    angle = np.linalg.norm(r)
    if angle < 1e-12:
        return np.array([1.0, *(0.5 * r)])
    return np.array([np.cos(angle / 2), *(np.sin(angle / 2) / angle * r)])


def make_objective(m, d):
    start = np.asarray(M["start"])

    def wrenches(x):
        x = np.asarray(x, dtype=float).reshape(M["waypoints"], 6)
        out = np.zeros((M["waypoints"], 6))
        for t, row in enumerate(x):
            d.qpos[:3] = start + row[:3]
            d.qpos[3:7] = quat_exp(row[3:])
            d.qvel[:] = 0.0
            mujoco.mj_forward(m, d)
            out[t] = d.qfrc_constraint[:6]
        return out

    def objective(x):
        w = wrenches(x)
        return C.meshes_objective_terms(x, w[:, :3], w[-1, 3:])

    return objective, wrenches


def mjx_support(m):
    """Whether MJX takes the model; its message if not."""
    try:
        from mujoco import mjx
        mjx.put_model(m)
        return "mjx.put_model accepted the model"
    except Exception as error:  # NotImplementedError for sdf geoms
        return "%s: %s" % (type(error).__name__, " ".join(str(error).split())[:200])


def gradient_errors(record, objective, fd_eps):
    """The central-difference gradient's error against the converged reference at each seed's
    start ("gradient_error", as the other tasks) and at its end point ("gradient_error_end", as
    meshes_osculate.py, where the bunny presses on the lid if the run ended in contact)."""
    for key, points in (("gradient_error", [C.meshes_initial(r["seed"]) for r in record["runs"]]),
                        ("gradient_error_end", [r["final"] for r in record["runs"]])):
        errors = []
        for run, x in zip(record["runs"], points):
            x = np.asarray(x)
            ref, info = C.converged_reference(objective, x)
            errors.append(dict(seed=run["seed"], error=C.relative_error(
                C.central_differences(objective, x, fd_eps), ref), **info))
            print(key, errors[-1], flush=True)
        record[key] = errors


def main(method="mujoco_fd", fd_eps=1e-6, iterations=40, seeds=(0, 1, 2), sweep_points=41):
    """Runs the optimisation with central differences of step `fd_eps` (MuJoCo's own default,
    1e-6, as mjd_transitionFD; "mujoco_fd_coarse": 1e-3, a step a user picks against rough
    contact), the gradient errors and the sweep, saved as results/meshes_<method>.json."""
    m, compile_s = model()
    d = mujoco.MjData(m)
    check = vertex_check(m, d)
    mjx_note = mjx_support(m)
    print("compiled in %.1f s, octree nodes %s, vertex check %s; MJX: %s"
          % (compile_s, list(map(int, m.mesh_octnum)), check, mjx_note), flush=True)
    objective, wrenches = make_objective(m, d)

    def value_and_grad(x):
        return objective(x), C.central_differences(objective, x, fd_eps)

    record = dict(task="meshes", method=method, fd_eps=fd_eps, runs=[],
                  model=dict(mujoco=mujoco.__version__, compile_s=compile_s,
                             octree_nodes=list(map(int, m.mesh_octnum)),
                             octree_maxdepth=int(mujoco.MjSpec().add_mesh().octree_maxdepth),
                             sdf_initpoints=int(m.opt.sdf_initpoints),
                             sdf_iterations=int(m.opt.sdf_iterations),
                             vertex_check_max_err=check, mjx=mjx_note))
    for seed in seeds:
        run = C.optimise(value_and_grad, C.meshes_initial(seed), M["lr"], iterations)
        run["seed"] = seed
        run["final_wrench"] = wrenches(run["final"])[-1].tolist()
        record["runs"].append(run)
        print(method, "seed", seed, run["values"][0], "->", run["values"][-1],
              "in %.1f s" % run["times"][-1], "wrench", np.round(run["final_wrench"], 3),
              flush=True)
        C.save("meshes_" + method, record)
    gradient_errors(record, objective, fd_eps)
    record["sweep"] = C.sweep(value_and_grad, C.meshes_initial(0).reshape(M["waypoints"], 6),
                              M["sweep_index"], np.linspace(*M["sweep_range"], sweep_points))
    print("flips", record["sweep"]["flips"], flush=True)
    if method != "mujoco_fd":
        C.save("meshes_" + method, record)
        return
    # the central differences' dependence on their step, at seed 0's end point
    x = np.asarray(record["runs"][0]["final"])
    ref, _ = C.converged_reference(objective, x)
    steps = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
    record["fd_step_error"] = dict(steps=steps, error=[
        C.relative_error(C.central_differences(objective, x, e), ref) for e in steps])
    print("fd step error", record["fd_step_error"], flush=True)
    C.save("meshes_mujoco_fd", record)


if __name__ == "__main__":
    if "--add-start-errors" in sys.argv:  # to a record made before they were measured
        m, _ = model()
        r = C.load("meshes_mujoco_fd")
        gradient_errors(r, make_objective(m, mujoco.MjData(m))[0], r["fd_eps"])
        C.save("meshes_mujoco_fd", r)
    elif "--coarse" in sys.argv:
        main("mujoco_fd_coarse", 1e-3)
    else:
        main()
