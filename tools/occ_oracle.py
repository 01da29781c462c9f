#!/usr/bin/env python3
"""OpenCASCADE as the oracle of osculate's STEP import and B-Rep distances (optional: neither the
library nor `make test` needs it; CI does not run it).

usage: occ_oracle.py [--install] [--venv DIR] [--measure BIN] [--depth D] [--out REPORT.json] PATH...

PATH: STEP files or folders (every *.step / *.stp in them). For each file, OpenCASCADE
(PyPI cadquery-ocp-novtk, STEPControl_Reader) and osculate (tools/step_measure, built with the
library: build/tools/step_measure) read it, and per solid the script compares

  solids      the number of solids (OpenCASCADE) and of shells of the model (osculate);
  placement   each shell matched to the solid of nearest centroid: centroid distance / part size;
  box         the solid's box (BRepBndLib::AddOptimal, exact) against osculate's box of points
              sampled on its faces and edges (inside the true box): largest gap / part size;
  areas       total area and each face's area (BRepGProp surface properties; faces in shell order,
              which both readers keep), relative to the solid's area; volume relative;
  distances   for every pair of solids of the file (at their placements) and for each solid against
              a copy of itself turned by 0.5 rad about (1, 2, 3) through its centroid and moved by
              (1.05, 0.2, 0.1) times its part size (so that the two are apart):
              BRepExtrema_DistShapeShape against osculate's least local minimal distance
              (osc_lmd_query, d_max 1.5 times OpenCASCADE's distance), / part size.

Lengths are compared in millimetres (OpenCASCADE's default unit; osculate's in the file's unit are
scaled by its report's length_unit). The part size is the diagonal of OpenCASCADE's box of the solid. osculate integrates areas and
volumes over its own surface evaluation and trimming with an adaptive midpoint-masked quadrature
(tools/step_measure.c), so their agreement is bounded by that quadrature (1e-7 to 7e-4 at depth
6) and by the file's own gaps; the distances are exact on both sides.

OpenCASCADE: when `import OCP` fails, --install makes a virtual environment (--venv, default
build/occ-venv), installs cadquery-ocp-novtk 8.0.1.1.0 into it with pip and runs the script again
there; without --install the script says so and exits with status 77 (skipped). Writes the figures
as JSON (--out, default build/occ_oracle.json) and a table on stdout; exits 1 when a file fails on
either side or a figure exceeds its bound (distances 1e-9; areas, volumes and placement 1e-3, the
quadrature's accuracy; box 1e-3 of the part size), else 0.
"""

import argparse
import json
import math
import os
import subprocess
import sys

OCP_PACKAGE = "cadquery-ocp-novtk==8.0.1.1.0"
BOUNDS = {"distance": 1e-9, "area": 1e-3, "face_area": 1e-3, "volume": 1e-3, "placement": 1e-3, "box": 1e-3}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ensure_ocp(args):
    try:
        import OCP  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("OCC_ORACLE_REEXEC"):
        sys.exit("occ_oracle: OCP is still missing in %s" % sys.executable)
    if not args.install:
        print("occ_oracle: skipped: OpenCASCADE's Python binding (OCP) is not installed; run with --install "
              "to put %s into %s" % (OCP_PACKAGE, args.venv))
        sys.exit(77)
    python = os.path.join(args.venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", args.venv])
    subprocess.check_call([python, "-m", "pip", "install", "-q", OCP_PACKAGE])
    env = dict(os.environ, OCC_ORACLE_REEXEC="1")
    os.execve(python, [python, os.path.abspath(__file__)] + sys.argv[1:], env)


def occ_read(path):
    from OCP.Bnd import Bnd_Box
    from OCP.BRepBndLib import BRepBndLib
    from OCP.BRepGProp import BRepGProp
    from OCP.GProp import GProp_GProps
    from OCP.IFSelect import IFSelect_RetDone
    from OCP.STEPControl import STEPControl_Reader
    from OCP.TopAbs import TopAbs_FACE, TopAbs_SHELL, TopAbs_SOLID
    from OCP.TopExp import TopExp_Explorer

    reader = STEPControl_Reader()
    if reader.ReadFile(path) != IFSelect_RetDone:
        return None, "OpenCASCADE cannot read the file"
    reader.TransferRoots()
    shape = reader.OneShape()
    solids = []
    explorer = TopExp_Explorer(shape, TopAbs_SOLID)
    while explorer.More():
        solid = explorer.Current()
        volume, surface = GProp_GProps(), GProp_GProps()
        BRepGProp.VolumeProperties_s(solid, volume)
        BRepGProp.SurfaceProperties_s(solid, surface)
        box = Bnd_Box()
        BRepBndLib.AddOptimal_s(solid, box, False, False)
        lo = box.CornerMin()
        hi = box.CornerMax()
        faces = []
        face_explorer = TopExp_Explorer(solid, TopAbs_FACE)
        while face_explorer.More():
            props = GProp_GProps()
            BRepGProp.SurfaceProperties_s(face_explorer.Current(), props)
            faces.append(props.Mass())
            face_explorer.Next()
        c = volume.CentreOfMass()
        solids.append({"shape": solid, "volume": volume.Mass(), "area": surface.Mass(),
                       "centroid": [c.X(), c.Y(), c.Z()], "lo": [lo.X(), lo.Y(), lo.Z()],
                       "hi": [hi.X(), hi.Y(), hi.Z()], "face_areas": faces})
        explorer.Next()
    counts = {}
    for kind, name in ((TopAbs_SHELL, "shells"), (TopAbs_FACE, "faces")):
        explorer, n = TopExp_Explorer(shape, kind), 0
        while explorer.More():
            n += 1
            explorer.Next()
        counts[name] = n
    return {"solids": solids, "counts": counts}, None


def size_of(solid):
    return math.dist(solid["lo"], solid["hi"])


def moved_copy(solid, angle, axis, centre, translation):
    from OCP.BRepBuilderAPI import BRepBuilderAPI_Transform
    from OCP.gp import gp_Ax1, gp_Dir, gp_Pnt, gp_Trsf, gp_Vec

    rotation, shift = gp_Trsf(), gp_Trsf()
    rotation.SetRotation(gp_Ax1(gp_Pnt(*centre), gp_Dir(*axis)), angle)
    shift.SetTranslation(gp_Vec(*translation))
    return BRepBuilderAPI_Transform(solid["shape"], shift.Multiplied(rotation), True).Shape()


def rotate(q, x):
    """x turned by the unit quaternion q = (w, x, y, z)."""
    w, v = q[0], q[1:]
    t = [2 * (v[1] * x[2] - v[2] * x[1]), 2 * (v[2] * x[0] - v[0] * x[2]), 2 * (v[0] * x[1] - v[1] * x[0])]
    return [x[0] + w * t[0] + v[1] * t[2] - v[2] * t[1], x[1] + w * t[1] + v[2] * t[0] - v[0] * t[2],
            x[2] + w * t[2] + v[0] * t[1] - v[1] * t[0]]


def occ_distance(a, b):
    from OCP.BRepExtrema import BRepExtrema_DistShapeShape

    tool = BRepExtrema_DistShapeShape(a, b)
    return tool.Value() if tool.IsDone() else None


def measure(args, path, pairs=()):
    command = [args.measure, path, "--depth", str(args.depth)]
    for p in pairs:
        command += ["--pair"] + [repr(float(x)) if i > 1 else str(x) for i, x in enumerate(p)]
    run = subprocess.run(command, capture_output=True, text=True, errors="replace")  # names may be Latin-1
    if run.returncode == 2:
        sys.exit("occ_oracle: %s: %s" % (" ".join(command), run.stderr.strip()))
    try:
        return json.loads(run.stdout)
    except ValueError:
        return {"status": "step_measure failed (%d): %s" % (run.returncode, run.stderr.strip()[-300:])}


def relative_faces(ours, theirs, total):
    if len(ours) != len(theirs) or total <= 0:
        return None
    return max((abs(a - b) / total for a, b in zip(ours, theirs)), default=0.0)


def compare_file(args, path):
    entry = {"file": os.path.relpath(path, ROOT) if path.startswith(ROOT) else path}
    occ, error = occ_read(path)
    if occ is None:
        entry["occ_status"] = error
        return entry
    entry["occ_solids"] = len(occ["solids"])
    entry["occ_shells"] = occ["counts"]["shells"]
    entry["occ_faces"] = occ["counts"]["faces"]
    ours = measure(args, path)
    entry["osc_status"] = ours["status"]
    if ours["status"] != "OK":
        return entry
    # OpenCASCADE reads lengths in millimetres; osculate keeps the file's unit (k mm each)
    k = ours["length_unit"] / 1e-3 if ours.get("length_unit", 0) > 0 else 1.0
    shells = ours["shells"]
    for s in shells:
        for key in ("centroid", "lo", "hi"):
            s[key] = [k * x for x in s[key]]
        s["area"] *= k * k
        s["face_areas"] = [k * k * a for a in s["face_areas"]]
        s["volume"] *= k ** 3
    entry["mm_per_unit"] = k
    entry["osc_shells"] = len(shells)
    entry["faces_read"], entry["faces_imported"] = ours["faces_read"], ours["faces_imported"]
    # each shell to the unmatched solid of nearest centroid
    free = list(range(len(occ["solids"])))
    matched = []
    for s in shells:
        if not free:
            break
        j = min(free, key=lambda k: math.dist(s["centroid"], occ["solids"][k]["centroid"]))
        free.remove(j)
        matched.append((s, occ["solids"][j]))
    figures = {key: 0.0 for key in ("placement", "box", "area", "face_area", "volume")}
    per_solid = []
    for s, o in matched:
        size = size_of(o)
        face = relative_faces(s["face_areas"], o["face_areas"], o["area"])
        row = {"faces": s["faces"], "size": size,
               "placement": math.dist(s["centroid"], o["centroid"]) / size,
               "box": max(max(abs(a - b) for a, b in zip(s["lo"], o["lo"])),
                          max(abs(a - b) for a, b in zip(s["hi"], o["hi"]))) / size,
               "area": abs(s["area"] - o["area"]) / o["area"],
               "face_area": face if face is not None else float("nan"),
               "volume": abs(s["volume"] - o["volume"]) / abs(o["volume"]),
               "osc_area": s["area"], "occ_area": o["area"], "osc_volume": s["volume"], "occ_volume": o["volume"]}
        per_solid.append(row)
        for key in figures:
            figures[key] = max(figures[key], row[key]) if not math.isnan(row[key]) else row[key]
    entry["solids"] = per_solid
    entry.update(figures)
    # distances: the file's pairs of solids in place, each solid against a moved copy of itself
    axis = [v / math.sqrt(14.0) for v in (1.0, 2.0, 3.0)]
    angle = 0.5
    quat = [math.cos(angle / 2)] + [math.sin(angle / 2) * v for v in axis]
    requests, expected = [], []
    for i, (s, o) in enumerate(matched):
        for j in range(i + 1, len(matched)):
            d = occ_distance(o["shape"], matched[j][1]["shape"])
            scale = max(size_of(o), size_of(matched[j][1]))
            if d is not None and d > 1e-6 * scale:
                requests.append([shells.index(s), shells.index(matched[j][0]), 1.5 * d / k, 1, 0, 0, 0, 0, 0, 0])
                expected.append((d, scale, "solids %d, %d" % (i, j)))
        # turned about its centroid c, then moved by 1.07 times its diagonal: x -> R (x - c) + c + s
        c, size = o["centroid"], size_of(o)
        shift = [1.05 * size, 0.2 * size, 0.1 * size]
        d = occ_distance(o["shape"], moved_copy(o, angle, axis, c, shift))
        if d is not None and d > 1e-6 * size:
            i_s = shells.index(s)
            rc = rotate(quat, c)
            requests.append([i_s, i_s, 1.5 * d / k] + quat + [(c[m] - rc[m] + shift[m]) / k for m in range(3)])
            expected.append((d, size_of(o), "solid %d, moved copy" % i))
    distances = []
    if requests:
        answer = measure(args, path, requests)
        for (d, scale, what), got in zip(expected, answer.get("pairs", [])):
            ours = got["min"] * k if got["min"] is not None else None
            distances.append({"pair": what, "occ": d, "osc": ours, "contacts": got["contacts"],
                              "error": abs(ours - d) / scale if ours is not None else None})
    entry["distances"] = distances
    errors = [x["error"] for x in distances]
    entry["distance"] = None if None in errors else max(errors, default=0.0)
    return entry


def files_of(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.lower().endswith((".step", ".stp")):
                    yield os.path.join(path, name)
        else:
            yield path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--install", action="store_true", help="install OpenCASCADE into --venv when missing")
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "occ-venv"))
    parser.add_argument("--measure", default=os.path.join(ROOT, "build", "tools", "step_measure"))
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "occ_oracle.json"))
    args = parser.parse_args()
    ensure_ocp(args)
    if not os.access(args.measure, os.X_OK):
        sys.exit("occ_oracle: %s is missing: build the library first (make build)" % args.measure)
    report, failed = [], 0
    print("%-30s %6s %6s %9s %9s %9s %9s %9s %9s %9s" % ("file", "solids", "faces", "placement", "box", "area",
                                                         "face", "volume", "distance", "pairs"))
    for path in files_of(args.paths):
        entry = compare_file(args, os.path.abspath(path))
        report.append(entry)
        name = os.path.basename(path)[:30]
        if entry.get("osc_status") != "OK" or "occ_status" in entry:
            failed += 1
            print("%-30s FAILED: %s" % (name, entry.get("occ_status") or entry.get("osc_status")))
            continue
        bad = entry["osc_shells"] != entry["occ_solids"] or entry["distance"] is None
        for key, bound in BOUNDS.items():
            value = entry.get(key)
            bad = bad or value is None or not (value <= bound)
        failed += bad

        def fmt(x):
            return "%9s" % "-" if x is None else "%9.1e" % x

        print("%-30s %2d/%-3d %6d %s %s %s %s %s %s %9d%s" % (
            name, entry["osc_shells"], entry["occ_solids"], entry["faces_imported"], fmt(entry["placement"]),
            fmt(entry["box"]), fmt(entry["area"]), fmt(entry["face_area"]), fmt(entry["volume"]),
            fmt(entry["distance"]), len(entry["distances"]), "  OUT OF BOUNDS" if bad else ""))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        json.dump({"bounds": BOUNDS, "files": report}, out, indent=1)
    print("%d files, %d outside the bounds or failed; figures in %s" % (len(report), failed, args.out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
