#!/usr/bin/env python3
"""MuJoCo Warp (MJWarp) on the CPU as a peer of the contact-manifold benchmark (Beker et al. 2026 §V, Figs. 11/12),
with MuJoCo C measured in the same run on the same model and poses as the cross-check.

usage: mujoco_warp_manifold.py MESH_A MESH_B POSES [--scale S] [--rounds R] [--python PY] [--peers-dir DIR]
                               [--timeout S]
       mujoco_warp_manifold.py --bench-manifold MODEL [same options]

Run from the repository root with any python3 (this part needs only the standard library). The measurement runs in
a child process with PY (--python), else DIR/warp-venv/bin/python (DIR = --peers-dir, else $OSC_PEERS_DIR, else
build/peers of this repository; bench/peers/setup_mujoco_warp.sh makes it: PyPI mujoco-warp with warp-lang and
mujoco). It prints one JSON object per figure on stdout, and on any failure {"peer": "mujoco_warp", "missing":
"<reason>"}; the exit status is 0 in both cases.

The model is mujoco_manifold.py's (build_model there): each mesh the `sdf` geom of a free body, the mesh with
`needsdf` (MuJoCo's octree SDF, default depth 6), sdf_iterations 10 and sdf_initpoints 40. The poses are read as
there (read_poses: 14 numbers per configuration, pA qA pB qB, world-from-body). mujoco.mj_compile builds the model
once; mujoco_warp.put_model copies it to Warp's "cpu" device.

--bench-manifold MODEL makes bench_manifold.c's inputs itself and measures both figures: MODEL (the armadillo,
build/models/armadillo.off) centred on its bounding box and scaled to an x extent of 1.38; Fig. 11's 100 poses from
bench_manifold's seeded generator (bench.h's LCG and Shoemake rotation, drawn in the same order); Fig. 12's 1024
poses, B translated along x from 1 to 2. They are written to a temporary directory in bench_manifold's text format
(%.17g) and read back, so they are the same numbers that bench_manifold gives mujoco_manifold.py.

What is timed, per figure:
    MJWarp      one call of mujoco_warp.kinematics + mujoco_warp.collision over nworld = all the configurations
                (Warp's batch; its broad phase, then the SDF narrow phase, float32), then wp.synchronize()
    MuJoCo C    a Python loop over the configurations: write qpos, mujoco.mj_kinematics, mujoco.mj_collision
                (its broad and narrow phase; the interpreter's share is about 10 us a configuration)
Both sides run in this one process and thread. The first MJWarp call (compiling Warp's kernels, cached in
~/.cache/warp afterwards) and one MuJoCo C pass are untimed warm-ups; then R rounds (--rounds, default 7), each one
pass of each side, alternating which goes first. Each pass is timed by the process's CPU time (time.process_time:
the machine may be loaded by others) and the wall clock; "warp_thread_share" is the median share of MJWarp's
process CPU time spent on the calling thread (1: Warp's CPU device ran the launches on it, no worker threads).
Reported: the median configurations/s of each side by each clock, and the median over rounds of the per-round ratio
MJWarp / MuJoCo C (rates: above 1 means MJWarp is faster). The cross-check: both sides' contact counts per
configuration ("configs_same_ncon" of "configs"), their totals, and "overflow" if MJWarp filled its contact buffer
(naconmax).
"""

import json
import math
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = "mujoco_warp"
EXTENT = 1.38  # bench_manifold.c: the armadillo's x extent
FIG11_CONFIGS, FIG12_CONFIGS = 100, 1024
SEED = 0x2545F4914F6CDD1D


def say(obj):
    print(json.dumps(obj), flush=True)


def missing(reason):
    say({"peer": PEER, "missing": " ".join(str(reason).split())[:400]})
    return 0


# ---------------------------------------------------------------------------------------------------------------------
# the parent: standard library only


def parse(argv):
    """(positional, options) or raises ValueError."""
    options = {"--scale": "1", "--rounds": "7", "--python": "", "--peers-dir": "", "--timeout": "1200",
               "--bench-manifold": ""}
    from mujoco_manifold import split_options  # (that module imports only the standard library)

    positional = split_options(argv, options)
    if options["--bench-manifold"]:
        if positional:
            raise ValueError("--bench-manifold takes no meshes or poses")
    elif len(positional) != 3:
        raise ValueError("need MESH_A MESH_B POSES, or --bench-manifold MODEL")
    if int(options["--rounds"]) < 1 or int(options["--timeout"]) < 1:
        raise ValueError("--rounds and --timeout must be positive")
    float(options["--scale"])
    return positional, options


def interpreter(options):
    if options["--python"]:
        return options["--python"]
    from mujoco_manifold import peers_dir
    return os.path.join(peers_dir(options["--peers-dir"]), "warp-venv", "bin", "python")


def main_parent(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    try:
        positional, options = parse(argv)
    except ValueError as error:
        sys.stderr.write("mujoco_warp_manifold: %s\n%s\n" % (error, __doc__.split("\n\n")[1]))
        return missing("bad arguments: %s" % error)
    files = positional + ([options["--bench-manifold"]] if options["--bench-manifold"] else [])
    for path in files:
        if not os.path.isfile(path):
            return missing("no such file: %s" % path)
    python = interpreter(options)
    if not os.path.exists(python):
        return missing("not set up: run bench/peers/setup_mujoco_warp.sh BUILD, or give --python (no %s)" % python)
    command = [python, os.path.abspath(__file__), "--worker"] + [os.path.abspath(p) for p in positional]
    for key, value in options.items():
        if value != "" and key not in ("--python", "--peers-dir"):
            command += [key, os.path.abspath(value) if key == "--bench-manifold" else value]
    from mujoco_manifold import run_worker
    objects, failure = run_worker(command, options["--timeout"])
    if failure:
        return missing(failure)
    for obj in objects:
        say(obj)
    return 0


# ---------------------------------------------------------------------------------------------------------------------
# bench_manifold.c's inputs (standard library and numpy)


class BenchRng:
    """bench.h's bench_rng: a 64-bit LCG, uniform from its top 53 bits; bench_random_rotation (Shoemake)."""

    def __init__(self, state):
        self.state = state

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return lo + (hi - lo) * ((self.state >> 11) * 2.0 ** -53)

    def rotation(self):
        two_pi = 6.283185307179586
        u1, u2, u3 = self.uniform(0, 1), self.uniform(0, two_pi), self.uniform(0, two_pi)
        a, b = math.sqrt(1 - u1), math.sqrt(u1)
        return [a * math.sin(u2), a * math.cos(u2), b * math.sin(u3), b * math.cos(u3)]  # w x y z


def bench_manifold_poses():
    """Fig. 11's and Fig. 12's poses as bench_manifold.c draws them: lists of 14 numbers (pA qA pB qB)."""
    rng = BenchRng(SEED)
    fig11 = []
    for _ in range(FIG11_CONFIGS):
        qa = rng.rotation()
        # osc_v3(uniform(), uniform(), uniform()): C leaves the order unspecified; gcc on x86-64 evaluates the
        # arguments last to first (the files match bench_manifold's byte for byte); a clang build draws x first
        z, y, x = (rng.uniform(-0.3, 0.3) * EXTENT for _ in range(3))
        qb = rng.rotation()
        fig11.append([0.0, 0.0, 0.0] + qa + [x, y, z] + qb)
    fig12 = [[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0 + i / (FIG12_CONFIGS - 1), 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
             for i in range(FIG12_CONFIGS)]
    return fig11, fig12


def write_bench_inputs(model, directory):
    """Writes bench_manifold's armadillo.obj, fig11.txt and fig12.txt into directory; returns their paths."""
    import numpy as np

    sys.path.insert(0, HERE)
    from mesh_sdf_peers import load_mesh

    V, F = load_mesh(model)
    lo, hi = V.min(axis=0), V.max(axis=0)
    W = (V - 0.5 * (lo + hi)) * (EXTENT / (hi[0] - lo[0]))
    obj = os.path.join(directory, "armadillo.obj")
    with open(obj, "w") as f:
        f.writelines("v %.17g %.17g %.17g\n" % tuple(v) for v in W)
        f.writelines("f %d %d %d\n" % tuple(t + 1) for t in np.asarray(F))
    paths = [obj]
    for name, poses in zip(("fig11", "fig12"), bench_manifold_poses()):
        path = os.path.join(directory, name + ".txt")
        with open(path, "w") as f:
            f.write("# pA (xyz) qA (wxyz) pB (xyz) qB (wxyz), world-from-body\n")
            f.writelines(" ".join("%.17g" % x for x in pose) + "\n" for pose in poses)
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------------------------------------------------
# the worker: run with the MJWarp virtual environment (numpy, mujoco, warp-lang, mujoco-warp)


def median(values):
    s = sorted(values)
    return 0.5 * (s[(len(s) - 1) // 2] + s[len(s) // 2])


def measure(figure, mesh_paths, poses_path, scale, rounds):
    import mujoco
    import mujoco_warp as mjw
    import numpy as np
    import warp as wp

    from mesh_sdf_peers import load_mesh
    from mujoco_manifold import build_model, read_poses

    meshes = []
    for k, path in enumerate(mesh_paths):
        if k == 1 and path == mesh_paths[0]:
            meshes.append(meshes[0])
            continue
        V, F = load_mesh(path)
        meshes.append((V * scale, F))
    P = read_poses(poses_path)
    n = len(P)
    mjm, _ = build_model(meshes, None)
    if mjm.nq != 14 or mjm.ngeom != 2:
        raise RuntimeError("unexpected model: nq %d, ngeom %d" % (mjm.nq, mjm.ngeom))

    # MuJoCo C
    mjd = mujoco.MjData(mjm)
    ncon_c = np.zeros(n, dtype=np.int64)

    def c_pass():
        for i in range(n):
            mjd.qpos[:] = P[i]
            mujoco.mj_kinematics(mjm, mjd)
            mujoco.mj_collision(mjm, mjd)
            ncon_c[i] = mjd.ncon

    # MJWarp on Warp's CPU device, all configurations as its batch of worlds
    with wp.ScopedDevice("cpu"):
        m = mjw.put_model(mjm)
        d = mjw.make_data(mjm, nworld=n)
        d.qpos.assign(wp.array(P.astype(np.float32), dtype=float))

        def warp_pass():
            mjw.kinematics(m, d)
            mjw.collision(m, d)
            wp.synchronize()

        start = time.perf_counter()
        warp_pass()  # compiles (or loads from the kernel cache) Warp's modules
        compile_s = time.perf_counter() - start
        c_pass()
        sides = {"warp": warp_pass, "c": c_pass}
        times = {"warp": [], "c": []}
        for r in range(rounds):
            for side in (("warp", "c") if r % 2 == 0 else ("c", "warp")):
                wall, cpu, thread = time.perf_counter(), time.process_time(), time.thread_time()
                sides[side]()
                times[side].append((time.process_time() - cpu, time.perf_counter() - wall,
                                    time.thread_time() - thread))
        nacon = int(d.nacon.numpy()[0])
        worlds = d.contact.worldid.numpy()[:min(nacon, d.naconmax)]
        ncon_w = np.bincount(worlds, minlength=n)[:n]

    rate = lambda side, clock: median([n / t[clock] for t in times[side]])
    ratio = lambda clock: median([c[clock] / w[clock] for w, c in zip(times["warp"], times["c"])])
    g4 = lambda v: float("%.4g" % v)
    return {"peer": PEER, "figure": figure, "configs": n, "rounds": rounds, "device": "cpu",
            "mujoco_warp": mjw.__version__, "warp": wp.__version__, "mujoco": mujoco.__version__,
            "warp_over_c_cpu": g4(ratio(0)), "warp_over_c_wall": g4(ratio(1)),
            "warp_configs_per_s_cpu": g4(rate("warp", 0)), "c_configs_per_s_cpu": g4(rate("c", 0)),
            "warp_configs_per_s_wall": g4(rate("warp", 1)), "c_configs_per_s_wall": g4(rate("c", 1)),
            "warp_first_call_s": g4(compile_s),
            "warp_thread_share": g4(median([t[2] / t[0] for t in times["warp"]])),
            "contacts_warp": int(ncon_w.sum()), "contacts_c": int(ncon_c.sum()),
            "configs_same_ncon": int((ncon_w == ncon_c).sum()),
            "ncon_max_warp": int(ncon_w.max()), "ncon_max_c": int(ncon_c.max()),
            "naconmax": int(d.naconmax), "overflow": nacon >= int(d.naconmax),
            "sdf_iterations": int(mjm.opt.sdf_iterations), "sdf_initpoints": int(mjm.opt.sdf_initpoints)}


def main_worker(argv):
    positional, options = parse(argv)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, HERE)
    import warp as wp

    wp.config.quiet = True  # Warp's banner and module messages would go to stdout
    wp.init()
    if "cpu" not in [str(device) for device in wp.get_devices()]:
        raise RuntimeError("Warp has no cpu device")
    scale, rounds = float(options["--scale"]), int(options["--rounds"])
    if not options["--bench-manifold"]:
        say(measure("poses", positional[:2], positional[2], scale, rounds))
        return 0
    with tempfile.TemporaryDirectory(prefix="osc_mjwarp_") as directory:
        obj, fig11, fig12 = write_bench_inputs(options["--bench-manifold"], directory)
        for figure, poses in (("fig11", fig11), ("fig12", fig12)):
            say(measure(figure, [obj, obj], poses, 1.0, rounds))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.exit(main_worker(sys.argv[2:]))
    sys.exit(main_parent(sys.argv[1:]))
