#!/usr/bin/env python3
"""MuJoCo's mesh-vs-mesh SDF collision as the peer of the contact-manifold benchmark (issue 4; Beker et al. 2026 §V,
Fig. 11/12), and MuJoCo's box-box contacts as the reference of the smoothness plot (Fig. 10).

usage: mujoco_manifold.py MESH_A MESH_B POSES [--octree-depth D] [--scale S] [--min-time T] [--contacts-out CSV]
                          [--contacts-config K] [--peers-dir DIR] [--timeout S]
       mujoco_manifold.py --box-sweep OUT.csv [--peers-dir DIR] [--timeout S]

Run from the repository root with any python3 (this part needs only the standard library), as bench_grid.c runs
mesh_sdf_peers.py; a C benchmark calls it with popen and reads one line:

    python3 bench/peers/mujoco_manifold.py MESH_A MESH_B POSES --peers-dir $OSC_BUILD_DIR/peers 2>/dev/null

The measurement runs in a child process with the peers' virtual environment, DIR/venv/bin/python (DIR = --peers-dir,
else $OSC_PEERS_DIR, else build/peers of this repository; bench/peers/setup.sh makes it), and MuJoCo's collision loop
runs in C (osc_mj_collide_poses in DIR/mujoco_sdf_shim.so, built by setup.sh). It prints ONE JSON object on stdout:

    {"peer": "mujoco", "version": "4.0.0", "configs_per_s": ..., "contacts_per_s": ..., "mean_contacts": ...,
     "sdf_iterations": 10, "sdf_initpoints": 40, "octree_maxdepth": 6, ...more keys below}

and on any failure (peer not set up, bad input, a crash or a timeout of the child) {"peer": "mujoco", "missing":
"<reason>"}, always with exit status 0.

The model. MESH_A and MESH_B (OBJ or OFF; the same path twice shares one mesh asset) are each the `sdf` geom of a body
with a free joint, built with MjSpec: the mesh has `needsdf` (MuJoCo >= 3.3.5 builds an octree of at most
`octree_maxdepth` levels over its bounding box, corner distances interpolated trilinearly; D = --octree-depth, else
MuJoCo's default, 6), and option sdf_iterations = 10 and sdf_initpoints = 40 (MuJoCo's defaults) are set explicitly.
A pair of sdf geoms is collided by mjc_SDF: sdf_initpoints Halton points in the intersection of the two bounding
boxes, each moved by sdf_iterations gradient-descent steps on max(phi_A, phi_B), one contact per end point with a
negative value that is not a duplicate (so at most sdf_initpoints contacts per pair). Vertices are scaled by S
(--scale, default 1) before anything else. MuJoCo stores mesh vertices as float32.

The poses. POSES holds per configuration 14 numbers: pA (xyz), qA (w x y z), pB, qB, world-from-body poses with the
mesh file's coordinates as the body frame (osculate's convention, docs/architecture.md §2). Formats: .npy (n x 14),
.f64/.bin (raw native float64), else text (numbers separated by blanks, commas or new lines; '#' starts a comment).
They are written into qpos of the two free joints as they are (quaternions normalised first, untimed). MuJoCo
re-centres a mesh at its centroid and principal axes (mesh_pos, mesh_quat) but compensates through the geom's frame
(geom_pos = mesh_pos, geom_quat = mesh_quat in a body whose own frame is the mesh file's), so a body pose is the same
world pose as in osculate. Every run checks this: "vertex_check_max_err" is the largest difference between the
world position of every vertex by MuJoCo (geom_xpos + geom_xmat mesh_vert after mj_kinematics) and R(q) v + p of the
file's vertex at the first configuration (float32 round-off, ~1e-7 of the mesh's size; null if MuJoCo's mesh
has not as many vertices as the file's).

What is timed: osc_mj_collide_poses, a C loop that per configuration writes qpos and calls mj_kinematics and
mj_collision (MuJoCo's broad phase and narrow phase; no other part of mj_forward), single thread. One warm-up pass
over all configurations, then passes are repeated until they total T seconds (--min-time, default 1; at least 3,
at most 25 passes) and the median pass is reported:
    configs_per_s    configurations / median pass time
    contacts_per_s   contacts generated / median pass time
    mean_contacts    mean d->ncon over the configurations
plus "configs", "passes", "seconds_per_pass", "compile_s" (mj_compile of the model, octrees included),
"octree_nodes" (per mesh asset), "ncon_min", "ncon_max", "touching" (configurations with ncon > 0),
"vertex_check_max_err", "threads": 1. --contacts-out CSV writes the contacts of configuration K (--contacts-config,
default 0): pos (x, y, z; MuJoCo's contact point, halfway between the surfaces), dist (negative: penetration) and
the normal (first row of the contact frame, from geom 1 to geom 2: A to B).

--box-sweep OUT.csv: MuJoCo's native box-box collision (mjc_BoxBox, polygon clipping; not SDF). Two boxes of half
extents (0.5, 0.5, 0.25): the lower one fixed at the origin, the upper one (a free body) centred at z = 0.5 - 0.01
(0.01 penetration when level) and tilted about the y axis by t, 401 steps of t from -0.05 to +0.05 rad (through the
parallel-face configuration t = 0). Per step mj_kinematics + mj_collision, and one CSV row:
    tilt, ncon, mean_x (mean x of the contact points; empty without contacts), min_dist, then for each contact k
    x_k, y_k, z_k, dist_k (as many groups as the largest ncon of the sweep; empty where ncon <= k).
It prints one JSON object: {"peer": "mujoco", "version": ..., "box_sweep": OUT, "steps": 401, "ncon_min", "ncon_max"}.
"""

import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SDF_ITERATIONS, SDF_INITPOINTS = 10, 40
BOX_HALF = (0.5, 0.5, 0.25)
BOX_CENTRE_Z, BOX_TILT, BOX_STEPS = 0.5 - 0.01, 0.05, 401


def say(obj):
    print(json.dumps(obj), flush=True)


def missing(reason):
    say({"peer": "mujoco", "missing": " ".join(str(reason).split())[:300]})
    return 0


# ---------------------------------------------------------------------------------------------------------------------
# the parent: standard library only


def peers_dir(arg):
    if arg:
        return os.path.abspath(arg)
    if os.environ.get("OSC_PEERS_DIR"):
        return os.path.abspath(os.environ["OSC_PEERS_DIR"])
    return os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "peers")


def run_worker(command, timeout):
    """Runs a worker process (command[0] is its interpreter) with a time limit in seconds. Returns
    (the JSON objects of its stdout's lines that start with '{', None) when it exits 0 having printed
    one, else (None, a one-line reason). Shared with mujoco_warp_manifold.py."""
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=int(timeout))
    except subprocess.TimeoutExpired:
        return None, "timed out after %s s" % timeout
    except OSError as error:
        return None, "cannot run %s: %s" % (command[0], error)
    objects = []
    for line in proc.stdout.splitlines():
        if line.strip().startswith("{"):
            try:
                objects.append(json.loads(line))
            except ValueError:
                pass
    if proc.returncode == 0 and objects:
        return objects, None
    errors = [l for l in proc.stderr.splitlines() if l.strip()]
    return None, "failed (exit %d): %s" % (proc.returncode, errors[-1] if errors else "no output")


def split_options(argv, options):
    """The positional arguments of argv; each "--name value" pair sets options[name], which must be
    one of its keys (raises ValueError otherwise, or when a value is missing)."""
    positional, i = [], 0
    while i < len(argv):
        if argv[i] in options:
            if i + 1 >= len(argv):
                raise ValueError("%s needs a value" % argv[i])
            options[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i].startswith("--"):
            raise ValueError("unknown option %s" % argv[i])
        else:
            positional.append(argv[i])
            i += 1
    return positional


def parse(argv):
    """(positional, options) or raises ValueError."""
    options = {"--octree-depth": "", "--scale": "1", "--min-time": "1", "--contacts-out": "",
               "--contacts-config": "0", "--peers-dir": "", "--timeout": "600", "--box-sweep": ""}
    positional = split_options(argv, options)
    if options["--box-sweep"]:
        if positional:
            raise ValueError("--box-sweep takes no meshes")
    elif len(positional) != 3:
        raise ValueError("need MESH_A MESH_B POSES")
    for key in ("--octree-depth", "--contacts-config", "--timeout"):
        if options[key]:
            int(options[key])
    for key in ("--scale", "--min-time"):
        float(options[key])
    return positional, options


def main_parent(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    try:
        positional, options = parse(argv)
    except ValueError as error:
        sys.stderr.write("mujoco_manifold: %s\n%s\n" % (error, __doc__.split("\n\n")[1]))
        return missing("bad arguments: %s" % error)
    for path in positional:
        if not os.path.isfile(path):
            return missing("no such file: %s" % path)
    directory = peers_dir(options["--peers-dir"])
    python = os.path.join(directory, "venv", "bin", "python")
    status_file = os.path.join(directory, "status", "mujoco")
    if not os.path.exists(python) or not os.path.exists(status_file):
        return missing("not set up: run bench/peers/setup.sh BUILD (looked in %s)" % directory)
    with open(status_file) as f:
        status = f.read().strip()
    if not status.startswith("installed"):
        return missing(status.split(" ", 1)[1] if " " in status else status)
    if not os.path.exists(os.path.join(directory, "mujoco_sdf_shim.so")) and not options["--box-sweep"]:
        return missing("the C shim mujoco_sdf_shim.so was not built (see setup.sh's mujoco line): %s" % status)
    options["--peers-dir"] = directory
    command = [python, os.path.abspath(__file__), "--worker"] + [os.path.abspath(p) for p in positional]
    for key, value in options.items():
        if value != "":
            command += [key, os.path.abspath(value) if key in ("--box-sweep", "--contacts-out") else value]
    objects, failure = run_worker(command, options["--timeout"])
    if failure:
        return missing(failure)
    say(objects[-1])
    return 0


# ---------------------------------------------------------------------------------------------------------------------
# the worker: run with the peers' virtual environment (numpy, mujoco)


def read_poses(path):
    import numpy as np

    lower = path.lower()
    if lower.endswith(".npy"):
        P = np.load(path)
    elif lower.endswith((".f64", ".bin")):
        P = np.fromfile(path, dtype=np.float64)
    else:
        numbers = []
        with open(path) as f:
            for line in f:
                numbers += line.split("#", 1)[0].replace(",", " ").split()
        P = np.array([float(x) for x in numbers])
    P = np.asarray(P, dtype=np.float64).ravel()
    if P.size == 0 or P.size % 14 or not np.all(np.isfinite(P)):
        raise ValueError("%s: %d numbers, not a positive multiple of 14 finite numbers" % (path, P.size))
    P = P.reshape(-1, 14).copy()
    for k in (3, 10):
        norm = np.linalg.norm(P[:, k:k + 4], axis=1)
        if np.any(norm < 1e-12):
            raise ValueError("%s: a zero quaternion" % path)
        P[:, k:k + 4] /= norm[:, None]
    return np.ascontiguousarray(P)


def build_model(meshes, depth):
    """Compiled model (and the compile seconds) of two free bodies, each an sdf geom of its mesh (V, F)."""
    import mujoco
    import numpy as np

    def make(inertia):
        spec = mujoco.MjSpec()
        spec.option.sdf_iterations = SDF_ITERATIONS
        spec.option.sdf_initpoints = SDF_INITPOINTS
        names = []
        for k, (V, F) in enumerate(meshes):
            if k == 1 and meshes[1] is meshes[0]:
                names.append(names[0])
                continue
            mesh = spec.add_mesh(name="mesh%d" % k)
            mesh.uservert = np.ascontiguousarray(V, dtype=np.float32).ravel()
            mesh.userface = np.ascontiguousarray(F, dtype=np.int32).ravel()
            mesh.needsdf = True
            if depth is not None:
                mesh.octree_maxdepth = depth
            if inertia is not None:
                mesh.inertia = inertia
            names.append(mesh.name)
        for name, mesh in zip("AB", names):
            body = spec.worldbody.add_body(name=name)
            body.add_freejoint()
            body.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_SDF, meshname=mesh)
        start = time.perf_counter()
        return spec.compile(), time.perf_counter() - start

    try:
        return make(None)
    except Exception:  # e.g. an open mesh whose volume inertia fails: the shell's does not change the geometry
        return make(mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL)


def vertex_check(model, data, meshes, pose):
    """Largest |MuJoCo's world vertex - (R(q) v + p)| over both bodies' vertices at one pose."""
    import mujoco
    import numpy as np

    data.qpos[:14] = pose
    mujoco.mj_kinematics(model, data)
    worst, R = 0.0, np.zeros(9)
    for g, (V, _) in enumerate(meshes):
        mujoco.mju_quat2Mat(R, pose[7 * g + 3:7 * g + 7])
        want = V @ R.reshape(3, 3).T + pose[7 * g:7 * g + 3]
        mesh = model.geom_dataid[g]
        adr, num = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
        if num != len(V):  # MuJoCo dropped or merged vertices: no vertex-by-vertex check
            return None
        got = model.mesh_vert[adr:adr + num] @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        worst = max(worst, float(np.abs(got - want).max()))
    return worst


def worker_manifold(paths, options):
    import ctypes

    import mujoco
    import numpy as np

    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, HERE)
    from mesh_sdf_peers import load_mesh

    scale = float(options["--scale"])
    meshes = []
    for k, path in enumerate(paths[:2]):
        if k == 1 and path == paths[0]:
            meshes.append(meshes[0])
            continue
        V, F = load_mesh(path)
        meshes.append((V * scale, F))
    P = read_poses(paths[2])
    depth = int(options["--octree-depth"]) if options["--octree-depth"] else None
    model, compile_s = build_model(meshes, depth)
    if model.nq != 14 or model.ngeom != 2:
        raise RuntimeError("unexpected model: nq %d, ngeom %d" % (model.nq, model.ngeom))
    data = mujoco.MjData(model)
    check = vertex_check(model, data, meshes, P[0])

    shim = ctypes.CDLL(os.path.join(options["--peers-dir"], "mujoco_sdf_shim.so"))
    shim.osc_mj_collide_poses.restype = ctypes.c_long
    p = lambda a: a.ctypes.data_as(ctypes.c_void_p)
    m_ptr, d_ptr = ctypes.c_void_p(model._address), ctypes.c_void_p(data._address)
    n = len(P)
    ncon = np.zeros(n, dtype=np.int32)
    keep = int(options["--contacts-config"])
    if options["--contacts-out"] and not 0 <= keep < n:
        raise ValueError("--contacts-config %d: there are %d configurations" % (keep, n))
    maxout = mujoco.mjMAXCONPAIR
    out = np.zeros((maxout, 13))
    one_pass = lambda with_out: shim.osc_mj_collide_poses(m_ptr, d_ptr, n, p(P), p(ncon), keep, maxout,
                                                          p(out) if with_out else None)
    total = one_pass(bool(options["--contacts-out"]))  # warm-up, and the contacts of configuration `keep`
    times, budget = [], float(options["--min-time"])
    while len(times) < 3 or (sum(times) < budget and len(times) < 25):
        start = time.perf_counter()
        one_pass(False)
        times.append(time.perf_counter() - start)
    seconds = sorted(times)[len(times) // 2]

    if options["--contacts-out"]:
        with open(options["--contacts-out"], "w") as f:
            f.write("x,y,z,dist,nx,ny,nz\n")
            for row in out[:min(ncon[keep], maxout)]:
                f.write(",".join("%.17g" % v for v in list(row[:4]) + list(row[4:7])) + "\n")
    g6 = lambda v: float("%.6g" % v)
    octree = [int(model.mesh_octnum[k]) for k in range(model.nmesh)]
    say({"peer": "mujoco", "version": mujoco.__version__, "configs_per_s": g6(n / seconds),
         "contacts_per_s": g6(total / seconds), "mean_contacts": g6(total / n),
         "sdf_iterations": int(model.opt.sdf_iterations), "sdf_initpoints": int(model.opt.sdf_initpoints),
         "octree_maxdepth": depth if depth is not None else mujoco.MjSpec().add_mesh().octree_maxdepth,
         "configs": n, "passes": len(times), "seconds_per_pass": g6(seconds), "compile_s": g6(compile_s),
         "octree_nodes": octree, "ncon_min": int(ncon.min()), "ncon_max": int(ncon.max()),
         "touching": int((ncon > 0).sum()),
         "vertex_check_max_err": None if check is None else float("%.3g" % check), "threads": 1})


def worker_box_sweep(out_path):
    import mujoco
    import numpy as np

    spec = mujoco.MjSpec()
    spec.worldbody.add_geom(name="lower", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(BOX_HALF))
    upper = spec.worldbody.add_body(name="upper")
    upper.add_freejoint()
    upper.add_geom(name="upper", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(BOX_HALF))
    model = spec.compile()
    data = mujoco.MjData(model)
    rows = []
    for t in np.linspace(-BOX_TILT, BOX_TILT, BOX_STEPS):
        data.qpos[:] = [0, 0, BOX_CENTRE_Z, math.cos(t / 2), 0, math.sin(t / 2), 0]
        mujoco.mj_kinematics(model, data)
        mujoco.mj_collision(model, data)
        contacts = [(c.pos.copy(), float(c.dist)) for c in data.contact[:data.ncon]] if data.ncon else []
        rows.append((float(t), contacts))
    most = max(len(c) for _, c in rows)
    with open(out_path, "w") as f:
        f.write("tilt,ncon,mean_x,min_dist" + "".join(",x%d,y%d,z%d,dist%d" % (k, k, k, k) for k in range(most)) + "\n")
        for t, contacts in rows:
            cells = ["%.17g" % t, str(len(contacts))]
            cells.append("%.17g" % np.mean([c[0][0] for c in contacts]) if contacts else "")
            cells.append("%.17g" % min(c[1] for c in contacts) if contacts else "")
            for k in range(most):
                if k < len(contacts):
                    cells += ["%.17g" % v for v in list(contacts[k][0]) + [contacts[k][1]]]
                else:
                    cells += [""] * 4
            f.write(",".join(cells) + "\n")
    counts = [len(c) for _, c in rows]
    say({"peer": "mujoco", "version": mujoco.__version__, "box_sweep": out_path, "steps": len(rows),
         "ncon_min": min(counts), "ncon_max": max(counts)})


def main_worker(argv):
    positional, options = parse(argv)
    if options["--box-sweep"]:
        worker_box_sweep(options["--box-sweep"])
    else:
        worker_manifold(positional, options)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(main_worker(sys.argv[2:]))
    sys.exit(main_parent(sys.argv[1:]))
