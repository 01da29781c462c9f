#!/usr/bin/env python3
"""Peer figures for the spline-SDF benchmark (issue 3): how fast other libraries build an SDF of a mesh and evaluate it.

usage: mesh_sdf_peers.py MESH(.off|.obj) RESOLUTION [POINTS] [--peers LIST] [--peers-dir DIR] [--timeout S]

For each peer installed by bench/peers/setup.sh, measures on the given mesh (a) the time to build the peer's SDF of
the mesh and (b) the evaluation throughput at POINTS (default 100000) random points drawn uniformly, with a fixed
seed, from the mesh's bounding box grown by 10% (scaled by 1.1 about its centre; 5% each side). Prints one JSON
object per figure, the format of bench/bench.h (docs/architecture.md §6):

    {"suite": "grid", "case": "<mesh> <peer>", "metric": ..., "value": ..., "unit": ...}

A peer that is not installed, or that fails while measured, prints a line with metric "missing" and the reason in
"unit" (it is never silently skipped). The script itself needs only the Python standard library: it runs every peer
in a child process with the peers' virtual environment (DIR/venv/bin/python, DIR = --peers-dir, else $OSC_PEERS_DIR,
else build/peers of this repository), so a crash or a hang of one peer does not take the others down.

What each figure measures (README.md here says more):

pysdf (PyPI pysdf, https://github.com/sxyu/sdf; float32; its sign is positive inside)
  build                         pysdf.SDF(verts, faces): k-d tree of the vertices, R-tree of the triangles, face
                                normals. Independent of RESOLUTION: pysdf has no grid, it answers every query from the
                                mesh. Its distance is to the triangles around the nearest *vertex* (not an exact
                                closest-triangle search); its sign is a vote of ray-parity tests (robust mode).
  grid R^3, T threads           evaluating it at the R^3 corners of a grid over the grown box: the cost of sampling a
                                distance grid with pysdf (the ground-truth step of a spline SDF build)
  eval distance, T threads      throughput at the random points (pysdf offers no gradient); also with 1 thread
mujoco (PyPI mujoco >= 3.3.5; its SdfLib plugin `mujoco.sdf.sdflib` was removed in 3.3.5 and meshes get a native
        SDF instead: a mesh with mjsMesh.needsdf gets an octree of at most mjsMesh.octree_maxdepth levels over its
        bounding box, each node holding the distance at its 8 corners, interpolated trilinearly; an `sdf` geom that
        names the mesh uses it). Depth d = ceil(log2 R) gives 2^d finest cells per axis, the R^3 grid's resolution.
  build R^3 (octree depth d)    the compiler's own timer for the mesh octree and SDF stage (mjCTIMER_MESH_OCTREE,
                                CPU seconds) in mj_compile of a model holding just that mesh and one sdf geom
  compile R^3 (octree depth d)  wall time of that whole mj_compile (also normals, inertia, BVH of the mesh)
  octree nodes (depth d)        number of octree nodes
  mean |d| at vertices (depth d) mean absolute SDF value at the mesh's own vertices (0 for an exact SDF): an
                                indication of the octree's accuracy, in mesh units
  eval distance+gradient (octree depth d), 1 thread
                                mjc_distance + mjc_gradient (MuJoCo's public SDF functions, the ones its SDF
                                collision calls) at the random points, in a C loop (mujoco_sdf_shim.c) so that Python
                                is not measured; also distance alone
  mj_geomDistance sdf-sphere (octree depth d), 1 thread
                                calls per second of mj_geomDistance between the sdf geom and a small sphere geom
                                (radius 0.5% of the box diagonal) moved to each point in turn, in the C loop: MuJoCo's
                                SDF narrow phase (gradient descent from opt.sdf_initpoints = 40 starts, sdf_iterations =
                                10 steps each). It reports contacts only: for a sphere not touching the surface it
                                returns distmax, not the distance, so this is a collision-query rate, not an SDF rate
  mj_geomDistance mesh-sphere (convex hull), 1 thread
                                the same with a plain `mesh` geom: MuJoCo collides meshes through their convex hull
                                (GJK/EPA), so this is the distance to the hull, not to the mesh; for reference only
mesh-to-sdf (PyPI mesh-to-sdf; the mesh is first scaled into the unit cube as mesh_to_voxels does, the points with it)
  surface point cloud           get_surface_point_cloud(method "scan"): 100 depth renderings at 400x400 (pyrender,
                                OpenGL through EGL headless), the points and normals they see, a k-d tree of them
  build R^3 (mesh_to_voxels)    the surface point cloud plus its get_voxels(R): what mesh_to_voxels(mesh, R) costs,
                                defaults otherwise (distance to the nearest surface point, sign by the normals of 11
                                nearest points)
  eval distance+gradient        SurfacePointCloud.get_sdf(points, return_gradients=True) at the random points
"""

import json
import math
import os
import subprocess
import sys
import time

SUITE = "grid"
PEERS = ("pysdf", "mujoco", "mesh-to-sdf")
SEED = 20240611


def emit(case, metric, value, unit):
    value = float("%.6g" % value) if isinstance(value, float) else value
    print(json.dumps({"suite": SUITE, "case": case, "metric": metric, "value": value, "unit": unit}), flush=True)


def missing(case, reason):
    emit(case, "missing", 0, " ".join(str(reason).split())[:300])


def mesh_name(path):
    return os.path.splitext(os.path.basename(path))[0]


# ---------------------------------------------------------------------------------------------------------------------
# the parent: standard library only


def peers_dir(arg):
    if arg:
        return os.path.abspath(arg)
    if os.environ.get("OSC_PEERS_DIR"):
        return os.path.abspath(os.environ["OSC_PEERS_DIR"])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "build", "peers")


def run_peer(peer, args, directory, python):
    case = "%s %s" % (mesh_name(args["mesh"]), peer)
    status_file = os.path.join(directory, "status", peer)
    if not os.path.exists(python) or not os.path.exists(status_file):
        missing(case, "not set up: run bench/peers/setup.sh BUILD (looked in %s)" % directory)
        return
    with open(status_file) as f:
        status = f.read().strip()
    if not status.startswith("installed"):
        missing(case, status.split(" ", 1)[1] if " " in status else status)
        return
    command = [python, os.path.abspath(__file__), "--worker", peer, args["mesh"], str(args["resolution"]),
               str(args["points"]), "--peers-dir", directory]
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env.setdefault("PYOPENGL_PLATFORM", "egl")
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=args["timeout"], env=env)
    except subprocess.TimeoutExpired as error:
        partial = error.stdout or ""
        sys.stdout.write(partial.decode(errors="replace") if isinstance(partial, bytes) else partial)
        missing(case, "failed: timed out after %d s" % args["timeout"])
        return
    sys.stdout.write(proc.stdout)
    sys.stdout.flush()
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        reason = lines[-1] if lines else "exit status %d" % proc.returncode
        missing(case, "failed (exit %d): %s" % (proc.returncode, reason))


def main_parent(argv):
    usage = "usage: mesh_sdf_peers.py MESH(.off|.obj) RESOLUTION [POINTS] [--peers LIST] [--peers-dir DIR] [--timeout S]"
    positional, options = [], {"--peers": ",".join(PEERS), "--peers-dir": "", "--timeout": "1800"}
    i = 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            options[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            positional.append(argv[i])
            i += 1
    if len(positional) not in (2, 3):
        sys.stderr.write(usage + "\n")
        return 2
    try:
        args = {"mesh": os.path.abspath(positional[0]), "resolution": int(positional[1]),
                "points": int(positional[2]) if len(positional) == 3 else 100000, "timeout": int(options["--timeout"])}
    except ValueError:
        sys.stderr.write(usage + "\n")
        return 2
    if not os.path.isfile(args["mesh"]):
        sys.stderr.write("mesh_sdf_peers: no such mesh file: %s\n" % positional[0])
        return 2
    if args["resolution"] < 2 or args["points"] < 1:
        sys.stderr.write("mesh_sdf_peers: RESOLUTION must be >= 2 and POINTS >= 1\n")
        return 2
    directory = peers_dir(options["--peers-dir"])
    python = os.path.join(directory, "venv", "bin", "python")
    for peer in options["--peers"].split(","):
        if peer not in PEERS:
            sys.stderr.write("mesh_sdf_peers: unknown peer %s (known: %s)\n" % (peer, ", ".join(PEERS)))
            return 2
        run_peer(peer, args, directory, python)
    return 0


# ---------------------------------------------------------------------------------------------------------------------
# the workers: run with the peers' virtual environment (numpy and the peer)


def load_mesh(path):
    """(vertices float64 n x 3, triangles int64 m x 3) of an OFF or OBJ file; polygons are fanned."""
    import numpy as np

    verts, faces = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        if path.lower().endswith(".off"):
            tokens = []
            for line in f:
                line = line.split("#", 1)[0].split()
                if line:
                    tokens.append(line)
            header = tokens[0]
            if not header[0].endswith("OFF"):
                raise ValueError("%s: not an OFF file" % path)
            counts, rest = (header[1:4], tokens[1:]) if len(header) > 1 else (tokens[1], tokens[2:])
            nv, nf = int(counts[0]), int(counts[1])
            verts = [[float(x) for x in t[:3]] for t in rest[:nv]]
            for t in rest[nv:nv + nf]:
                poly = [int(x) for x in t[1:1 + int(t[0])]]
                faces += [[poly[0], poly[k], poly[k + 1]] for k in range(1, len(poly) - 1)]
        else:
            for line in f:
                t = line.split()
                if not t:
                    continue
                if t[0] == "v":
                    verts.append([float(x) for x in t[1:4]])
                elif t[0] == "f":
                    poly = [int(x.split("/")[0]) for x in t[1:]]
                    poly = [k - 1 if k > 0 else len(verts) + k for k in poly]
                    faces += [[poly[0], poly[k], poly[k + 1]] for k in range(1, len(poly) - 1)]
    V, F = np.array(verts, dtype=np.float64), np.array(faces, dtype=np.int64)
    if len(V) == 0 or len(F) == 0 or F.min() < 0 or F.max() >= len(V):
        raise ValueError("%s: no triangles or indices out of range" % path)
    return V, F


def grown_box(V):
    lo, hi = V.min(axis=0), V.max(axis=0)
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo) * 1.1
    return centre - half, centre + half


def random_points(V, n):
    import numpy as np

    lo, hi = grown_box(V)
    return np.random.default_rng(SEED).uniform(lo, hi, size=(n, 3))


def grid_points(V, resolution):
    import numpy as np

    lo, hi = grown_box(V)
    axes = [np.linspace(lo[k], hi[k], resolution) for k in range(3)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)


def timed(fn, repeat_below=0.5, max_repeat=5):
    """(median seconds, last result): one run, repeated up to max_repeat times while runs are short."""
    times, result = [], None
    while True:
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        if len(times) >= max_repeat or sum(times) >= repeat_below:
            break
    times.sort()
    return times[len(times) // 2], result


def threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def worker_pysdf(case, V, F, resolution, P):
    import numpy as np
    import pysdf

    verts, faces = np.ascontiguousarray(V, dtype=np.float32), np.ascontiguousarray(F, dtype=np.uint32)
    seconds, sdf = timed(lambda: pysdf.SDF(verts, faces))
    emit(case, "build", seconds, "s")
    nt = threads()
    G = np.ascontiguousarray(grid_points(V, resolution), dtype=np.float32)
    seconds, _ = timed(lambda: sdf(G, n_threads=nt), repeat_below=1.0, max_repeat=3)
    emit(case, "grid %d^3, %d threads" % (resolution, nt), seconds, "s")
    Q = np.ascontiguousarray(P, dtype=np.float32)
    for n in sorted({nt, 1}, reverse=True):
        seconds, _ = timed(lambda: sdf(Q, n_threads=n))
        emit(case, "eval distance, %d thread%s" % (n, "s" if n > 1 else ""), len(Q) / seconds, "points/s")


def worker_mujoco(case, V, F, resolution, P, directory):
    import ctypes

    import mujoco
    import numpy as np

    depth = max(1, int(math.ceil(math.log2(resolution) - 1e-9)))
    label = "%d^3 (octree depth %d)" % (resolution, depth)
    lo, hi = grown_box(V)
    diagonal = float(np.linalg.norm(hi - lo))

    def spec_with(geom_type, needsdf):
        spec = mujoco.MjSpec()
        mesh = spec.add_mesh(name="mesh")
        mesh.uservert = np.ascontiguousarray(V, dtype=np.float32).ravel()
        mesh.userface = np.ascontiguousarray(F, dtype=np.int32).ravel()
        if needsdf:
            mesh.needsdf = True
            mesh.octree_maxdepth = depth
        spec.worldbody.add_body(name="body").add_geom(name="shape", type=geom_type, meshname="mesh")
        probe = spec.worldbody.add_body(name="probe", mocap=True)
        probe.add_geom(name="probe", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.005 * diagonal, 0, 0],
                       contype=0, conaffinity=0)
        return spec

    spec = spec_with(mujoco.mjtGeom.mjGEOM_SDF, True)
    start = time.perf_counter()
    model = spec.compile()
    emit(case, "compile " + label, time.perf_counter() - start, "s")
    emit(case, "build " + label, float(spec.timer[int(mujoco.mjtCTimer.mjCTIMER_MESH_OCTREE)]), "s")
    emit(case, "octree nodes (depth %d)" % depth, int(model.mesh_octnum[0]), "nodes")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)

    shim_path = os.path.join(directory, "mujoco_sdf_shim.so")
    if not os.path.exists(shim_path):
        missing(case, "eval: the C shim mujoco_sdf_shim.so was not built (see setup.sh's mujoco line)")
        return
    shim = ctypes.CDLL(shim_path)
    p = lambda a: a.ctypes.data_as(ctypes.c_void_p)
    m_ptr, d_ptr = ctypes.c_void_p(model._address), ctypes.c_void_p(data._address)

    # the SDF lives in the mesh frame that MuJoCo re-centred and re-oriented: local = R^T (x - mesh_pos)
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, model.mesh_quat[0])
    R = R.reshape(3, 3)
    to_local = lambda X: np.ascontiguousarray((X - model.mesh_pos[0]) @ R)
    geom = model.geom("shape").id
    L, n = to_local(P), len(P)
    dist, grad = np.zeros(n), np.zeros((n, 3))
    seconds, _ = timed(lambda: shim.osc_mj_sdf_eval(m_ptr, d_ptr, geom, n, p(L), p(dist), p(grad)))
    emit(case, "eval distance+gradient (octree depth %d), 1 thread" % depth, n / seconds, "points/s")
    seconds, _ = timed(lambda: shim.osc_mj_sdf_eval(m_ptr, d_ptr, geom, n, p(L), p(dist), None))
    emit(case, "eval distance (octree depth %d), 1 thread" % depth, n / seconds, "points/s")
    W = to_local(V)
    at_vertices = np.zeros(len(W))
    shim.osc_mj_sdf_eval(m_ptr, d_ptr, geom, len(W), p(W), p(at_vertices), None)
    emit(case, "mean |d| at vertices (depth %d)" % depth, float(np.abs(at_vertices).mean()), "mesh units")

    # collision queries: the probe sphere is moved to each point (world frame = the mesh file's frame)
    probe = model.geom("probe").id
    k = min(n, 10000)
    Q, out = np.ascontiguousarray(P[:k]), np.zeros(k)
    fn = lambda: shim.osc_mj_geom_distance(m_ptr, d_ptr, geom, probe, ctypes.c_double(diagonal), k, p(Q), p(out))
    seconds, _ = timed(fn)
    emit(case, "mj_geomDistance sdf-sphere (octree depth %d), 1 thread" % depth, k / seconds, "calls/s")

    spec = spec_with(mujoco.mjtGeom.mjGEOM_MESH, False)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    m_ptr, d_ptr = ctypes.c_void_p(model._address), ctypes.c_void_p(data._address)
    geom, probe = model.geom("shape").id, model.geom("probe").id
    fn = lambda: shim.osc_mj_geom_distance(m_ptr, d_ptr, geom, probe, ctypes.c_double(diagonal), k, p(Q), p(out))
    seconds, _ = timed(fn)
    emit(case, "mj_geomDistance mesh-sphere (convex hull), 1 thread", k / seconds, "calls/s")


def worker_mesh_to_sdf(case, V, F, resolution, P):
    import mesh_to_sdf  # before anything imports OpenGL (mesh_to_sdf patches it)
    import numpy as np
    import trimesh

    mesh = trimesh.Trimesh(vertices=V, faces=F, process=False)
    # mesh_to_voxels: scale_to_unit_cube, then a scan point cloud with bounding radius sqrt(3), then get_voxels
    centre = 0.5 * (V.min(axis=0) + V.max(axis=0))
    scale = 2.0 / float(np.max(V.max(axis=0) - V.min(axis=0)))
    unit = mesh_to_sdf.scale_to_unit_cube(mesh)
    start = time.perf_counter()
    cloud = mesh_to_sdf.get_surface_point_cloud(unit, surface_point_method="scan", bounding_radius=3 ** 0.5)
    cloud_seconds = time.perf_counter() - start
    emit(case, "surface point cloud", cloud_seconds, "s")
    start = time.perf_counter()
    cloud.get_voxels(resolution)
    emit(case, "build %d^3 (mesh_to_voxels)" % resolution, cloud_seconds + time.perf_counter() - start, "s")
    Q = ((P - centre) * scale).astype(np.float64)
    seconds, _ = timed(lambda: cloud.get_sdf(Q, return_gradients=True))
    emit(case, "eval distance+gradient", len(Q) / seconds, "points/s")


def main_worker(argv):
    peer, path, resolution, count = argv[0], argv[1], int(argv[2]), int(argv[3])
    directory = argv[argv.index("--peers-dir") + 1]
    case = "%s %s" % (mesh_name(path), peer)
    V, F = load_mesh(path)
    P = random_points(V, count)
    if peer == "pysdf":
        worker_pysdf(case, V, F, resolution, P)
    elif peer == "mujoco":
        worker_mujoco(case, V, F, resolution, P, directory)
    elif peer == "mesh-to-sdf":
        worker_mesh_to_sdf(case, V, F, resolution, P)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(main_worker(sys.argv[2:]))
    sys.exit(main_parent(sys.argv[1:]))
