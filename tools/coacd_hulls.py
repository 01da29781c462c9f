#!/usr/bin/env python3
"""Convex decomposition of a mesh with CoACD, one OBJ file per convex hull (Beker et al. 2026 §IV-D.1).

    pip install coacd trimesh        # coacd is required; trimesh is optional (more formats)
    python3 tools/coacd_hulls.py data/bunny.obj build/bunny_hulls [--threshold 0.05] [--max-hulls 16]

writes build/bunny_hulls_000.obj, build/bunny_hulls_001.obj, ... (one closed convex mesh each, v
and f lines, 1-based indices) and the manifest build/bunny_hulls.txt, which lists the hull files
one a line (names relative to the manifest's folder; lines starting with # are comments). Load
each hull with osc_mesh_load and pass them to osc_mesh_groups_from_hulls to assign the mesh's
vertices to convex groups (docs/mesh.md, "Convex groups").

CoACD (Wei et al., "Approximate convex decomposition for 3D meshes with collision-aware concavity
and tree search", SIGGRAPH 2022; PyPI `coacd`) is the decomposition Beker et al. 2026 used. Its concavity
threshold (--threshold, default 0.05: smaller gives more, tighter hulls) and hull cap
(--max-hulls, default: no cap) are the main knobs; --seed makes runs repeatable.

Meshes are read with trimesh when it is installed (any format it knows), otherwise by the small
loaders below: Wavefront OBJ (v and f; polygons fan-triangulated), OFF, and STL (ASCII or binary;
coincident corners welded).
"""

import argparse
import os
import struct
import sys
import time


def _fail(message):
    print(f"coacd_hulls: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# loaders (used when trimesh is missing)

def _fan(polygon):
    return [(polygon[0], polygon[i], polygon[i + 1]) for i in range(1, len(polygon) - 1)]


def _load_obj(path):
    vertices, triangles = [], []
    with open(path, "r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if fields[0] == "v":
                vertices.append(tuple(float(x) for x in fields[1:4]))
            elif fields[0] == "f":
                polygon = []
                for token in fields[1:]:
                    index = int(token.split("/")[0])
                    index = index - 1 if index > 0 else len(vertices) + index
                    if not 0 <= index < len(vertices):
                        _fail(f"{path}:{number}: vertex index {token} out of range")
                    polygon.append(index)
                triangles.extend(_fan(polygon))
    return vertices, triangles


def _load_off(path):
    with open(path, "r", encoding="utf-8", errors="replace") as handle:
        tokens = []
        for line in handle:
            tokens.extend(line.split("#", 1)[0].split())
    if not tokens or not tokens[0].endswith("OFF"):
        _fail(f"{path}: not an OFF file")
    position = 1
    vertex_count, face_count = int(tokens[position]), int(tokens[position + 1])
    position += 3
    vertices = []
    for _ in range(vertex_count):
        vertices.append(tuple(float(x) for x in tokens[position:position + 3]))
        position += 3
    triangles = []
    for _ in range(face_count):
        size = int(tokens[position])
        polygon = [int(x) for x in tokens[position + 1:position + 1 + size]]
        position += 1 + size
        if any(not 0 <= i < vertex_count for i in polygon):
            _fail(f"{path}: face index out of range")
        triangles.extend(_fan(polygon))
    return vertices, triangles


def _load_stl(path):
    with open(path, "rb") as handle:
        data = handle.read()
    corners = []
    if len(data) >= 84 and 84 + 50 * struct.unpack_from("<I", data, 80)[0] == len(data):
        for t in range(struct.unpack_from("<I", data, 80)[0]):
            values = struct.unpack_from("<12f", data, 84 + 50 * t)
            corners.extend([values[3:6], values[6:9], values[9:12]])
    else:
        for line in data.decode("utf-8", errors="replace").splitlines():
            fields = line.split()
            if fields and fields[0] == "vertex":
                corners.append(tuple(float(x) for x in fields[1:4]))
    index, vertices, triangles = {}, [], []
    for k in range(0, len(corners) - len(corners) % 3, 3):
        triangle = []
        for corner in corners[k:k + 3]:
            if corner not in index:
                index[corner] = len(vertices)
                vertices.append(corner)
            triangle.append(index[corner])
        if len(set(triangle)) == 3:
            triangles.append(tuple(triangle))
    return vertices, triangles


def load_mesh(path):
    """Returns (vertices [n][3] float64, triangles [m][3] int32) as NumPy arrays."""
    import numpy as np

    try:
        import trimesh
    except ImportError:
        trimesh = None
    if trimesh is not None:
        mesh = trimesh.load(path, force="mesh", process=False)
        return np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.faces, dtype=np.int32)
    extension = os.path.splitext(path)[1].lower()
    loaders = {".obj": _load_obj, ".off": _load_off, ".stl": _load_stl}
    if extension not in loaders:
        _fail(f"{path}: unknown extension {extension!r} (OBJ, OFF, STL; pip install trimesh for more)")
    vertices, triangles = loaders[extension](path)
    return np.asarray(vertices, dtype=np.float64).reshape(-1, 3), np.asarray(triangles, dtype=np.int32).reshape(-1, 3)


# ---------------------------------------------------------------------------------------------
# output

def write_obj(path, vertices, triangles, comment):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"# {comment}\n")
        for x, y, z in vertices:
            handle.write(f"v {float(x)!r} {float(y)!r} {float(z)!r}\n")
        for a, b, c in triangles:
            handle.write(f"f {int(a) + 1} {int(b) + 1} {int(c) + 1}\n")


def _coacd_version():
    try:
        from importlib.metadata import version
        return version("coacd")
    except Exception:  # noqa: BLE001 (metadata missing: the version is only informative)
        return "(unknown version)"


def main(argv=None):
    parser = argparse.ArgumentParser(description="Convex decomposition with CoACD: one OBJ per hull and a manifest.")
    parser.add_argument("mesh", help="input mesh (OBJ, OFF, STL; more with trimesh)")
    parser.add_argument("out_prefix", help="writes OUT_PREFIX_000.obj, ... and the manifest OUT_PREFIX.txt")
    parser.add_argument("--threshold", type=float, default=0.05,
                        help="CoACD concavity threshold, 0.01..1 (default 0.05; smaller: more hulls)")
    parser.add_argument("--max-hulls", type=int, default=-1,
                        help="most hulls CoACD may keep, merging the rest (default -1: no cap)")
    parser.add_argument("--preprocess", choices=["auto", "on", "off"], default="auto",
                        help="CoACD's manifold preprocessing (default auto)")
    parser.add_argument("--seed", type=int, default=0, help="CoACD's random seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="silence CoACD's log")
    args = parser.parse_args(argv)

    try:
        import coacd
    except ImportError:
        _fail("the Python package coacd is not installed: run `pip install coacd trimesh` "
              "(in a virtual environment: python3 -m venv venv && venv/bin/pip install coacd trimesh)")
    if not os.path.isfile(args.mesh):
        _fail(f"{args.mesh}: no such file")
    if not 0.0 < args.threshold <= 1.0:
        _fail(f"--threshold {args.threshold} is not in (0, 1]")
    if args.max_hulls == 0 or args.max_hulls < -1:
        _fail(f"--max-hulls {args.max_hulls} must be positive or -1")

    vertices, triangles = load_mesh(args.mesh)
    if len(vertices) == 0 or len(triangles) == 0:
        _fail(f"{args.mesh}: no triangles")
    if args.quiet:
        coacd.set_log_level("error")
    start = time.perf_counter()
    parts = coacd.run_coacd(coacd.Mesh(vertices, triangles), threshold=args.threshold,
                            max_convex_hull=args.max_hulls, preprocess_mode=args.preprocess,
                            seed=args.seed)
    seconds = time.perf_counter() - start
    if not parts:
        _fail("CoACD returned no hull")

    folder = os.path.dirname(os.path.abspath(args.out_prefix))
    os.makedirs(folder, exist_ok=True)
    names = []
    for k, (hull_vertices, hull_triangles) in enumerate(parts):
        path = f"{args.out_prefix}_{k:03d}.obj"
        write_obj(path, hull_vertices, hull_triangles,
                  f"hull {k} of {len(parts)}: CoACD of {os.path.basename(args.mesh)}, threshold {args.threshold}")
        names.append(os.path.basename(path))
    manifest = f"{args.out_prefix}.txt"
    with open(manifest, "w", encoding="utf-8") as handle:
        handle.write(f"# CoACD {_coacd_version()} convex hulls of {args.mesh}: {len(parts)} hulls, "
                     f"threshold {args.threshold}, max hulls {args.max_hulls}, preprocess {args.preprocess}, "
                     f"seed {args.seed}, {seconds:.1f} s\n")
        handle.write("# one hull file a line, relative to this file's folder\n")
        for name in names:
            handle.write(name + "\n")
    print(f"{args.mesh}: {len(vertices)} vertices, {len(triangles)} triangles -> {len(parts)} convex hulls "
          f"in {seconds:.1f} s; manifest {manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
