#!/bin/sh
# bench/peers/setup.sh BUILD: installs the peer libraries the benchmarks compare against (docs/architecture.md §6) into
# a Python virtual environment at BUILD/peers/venv. Called by bench/run.sh (`make bench`); see README.md here.
#
# Each peer is installed independently: one that fails is reported as missing (with the reason) and the others go
# on. Idempotent: what is installed stays, and a re-run only checks it (no downloads). Prints one line per peer:
#   peer NAME: installed (VERSION ...)   or   peer NAME: missing (WHY)
# and writes the same to BUILD/peers/status/NAME for mesh_sdf_peers.py. Details of every step: BUILD/peers/logs/.
#
#   mujoco       PyPI `mujoco` (>= 3.3.5: native octree SDF of meshes) + a C shim (mujoco_sdf_shim.c) that loops
#                over its SDF functions and its collision detection (mujoco_manifold.py); needs a C compiler for it
#   pysdf        PyPI `pysdf` (source only: built here with a C++ compiler and Eigen's headers, which come from
#                /usr/include/eigen3 or Debian's libeigen3-dev unpacked into BUILD/peers/eigen, not installed)
#   mesh-to-sdf  PyPI `mesh-to-sdf` (renders depth scans with pyrender: needs OpenGL through EGL headless; as root on
#                Debian, libegl1 and libgl1-mesa-dri are installed if they are what is missing)
#   meshoptimizer  Debian's libmeshoptimizer2d (the C library bench_simplify loads at run time; installed as root)
set -eu

[ $# -ge 1 ] || { echo "usage: bench/peers/setup.sh BUILD_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1/peers"
PEERS=$(cd "$1/peers" && pwd)
VENV="$PEERS/venv"
LOGS="$PEERS/logs"
STATUS="$PEERS/status"
mkdir -p "$LOGS" "$STATUS"

# versions measured against (change here; the installed versions are printed and recorded in the status files)
MUJOCO_SPEC='mujoco>=3.3.5,<5'
PYSDF_SPEC='pysdf==0.1.9'
MESH_TO_SDF_SPEC='mesh-to-sdf==0.0.15'
PEER_NAMES="mujoco pysdf mesh-to-sdf"

PY="$VENV/bin/python"
is_root() { [ "$(id -u)" -eq 0 ]; }

# report NAME STATE TEXT: prints and records one peer's line
report() {
    echo "peer $1: $2 ($3)"
    echo "$2 $3" > "$STATUS/$1"
}

# why LOG: a one-line reason from a log (the last error line, else its last line)
why() {
    reason=$(grep -E '^(ERROR|E):|Error|error:' "$1" 2>/dev/null | tail -n 1)
    [ -n "$reason" ] || reason=$(tail -n 1 "$1" 2>/dev/null)
    printf '%s' "$reason" | tr -d '"\\' | cut -c1-200
}

# pip_install LOG ARGS...: quiet pip install into the venv
pip_install() {
    log=$1; shift
    "$PY" -m pip install -q --disable-pip-version-check "$@" >>"$log" 2>&1
}

# apt_update_if_needed LOG CMD...: runs CMD; if it fails and we are root, runs apt-get update and CMD again
apt_retry() {
    log=$1; shift
    "$@" >>"$log" 2>&1 && return 0
    is_root || return 1
    apt-get update -qq >>"$log" 2>&1 || return 1
    "$@" >>"$log" 2>&1
}

# --- meshoptimizer (no Python: bench_simplify dlopens the shared library) ------------------------------------
setup_meshoptimizer() {
    log="$LOGS/meshoptimizer.log"
    : > "$log"
    has_library() { ls /usr/lib/libmeshoptimizer.so* /usr/lib/*/libmeshoptimizer.so* 2>/dev/null | grep -q .; }
    if ! has_library && is_root && command -v apt-get >/dev/null 2>&1; then
        apt_retry "$log" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            libmeshoptimizer2d || true
    fi
    if has_library; then
        report meshoptimizer installed "$(dpkg-query -W -f '${Package} ${Version}' libmeshoptimizer2d 2>/dev/null || echo 'libmeshoptimizer')"
    else
        report meshoptimizer missing "no libmeshoptimizer shared library (Debian: apt-get install libmeshoptimizer2d, as root): $(why "$log")"
    fi
}
setup_meshoptimizer

# --- the virtual environment -----------------------------------------------------------------------------------
venv_log="$LOGS/venv.log"
: > "$venv_log"
if ! [ -x "$PY" ] || ! "$PY" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$VENV"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv "$VENV" >>"$venv_log" 2>&1; then
        rm -rf "$VENV"
        if is_root && command -v apt-get >/dev/null 2>&1; then
            apt_retry "$venv_log" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                python3 python3-venv || true
            python3 -m venv "$VENV" >>"$venv_log" 2>&1 || rm -rf "$VENV"
        fi
    fi
fi
if ! [ -x "$PY" ]; then
    for name in $PEER_NAMES; do report "$name" missing "no Python virtual environment: python3 -m venv failed (Debian: python3-venv); see $venv_log"; done
    exit 0
fi
if ! "$PY" -c 'import numpy' >/dev/null 2>&1 && ! pip_install "$venv_log" numpy; then
    reason=$(why "$venv_log")
    for name in $PEER_NAMES; do report "$name" missing "pip install numpy failed: $reason"; done
    exit 0
fi

version_of() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || echo "?"; }

# --- MuJoCo ----------------------------------------------------------------------------------------------------
setup_mujoco() {
    log="$LOGS/mujoco.log"
    : > "$log"
    if ! pip_install "$log" "$MUJOCO_SPEC"; then
        report mujoco missing "pip install $MUJOCO_SPEC failed: $(why "$log")"
        return
    fi
    if ! "$PY" -c 'import mujoco; m = mujoco.MjSpec().add_mesh(); m.needsdf = True; m.octree_maxdepth = 6' >>"$log" 2>&1; then
        report mujoco missing "mujoco $(version_of mujoco) has no native mesh SDF (mjsMesh.needsdf, octree_maxdepth): $(why "$log")"
        return
    fi
    version=$(version_of mujoco)
    dir=$("$PY" -c 'import mujoco, os; print(os.path.dirname(mujoco.__file__))')
    lib=$(ls "$dir"/libmujoco.so* 2>/dev/null | head -n 1)
    shim="$PEERS/mujoco_sdf_shim.so"
    cc=$(command -v cc || command -v gcc || command -v clang || true)
    if [ -f "$shim" ] && [ "$shim" -nt "$HERE/mujoco_sdf_shim.c" ] && [ "$shim" -nt "$lib" ]; then
        report mujoco installed "mujoco $version, native octree mesh SDF, C shim built"
    elif [ -z "$cc" ]; then
        report mujoco installed "mujoco $version, native octree mesh SDF; no C compiler for the evaluation shim, so only build times are measured"
    elif [ -z "$lib" ] || [ ! -f "$dir/include/mujoco/mujoco.h" ]; then
        report mujoco installed "mujoco $version; the wheel has no libmujoco.so or headers for the evaluation shim, so only build times are measured"
    elif "$cc" -O2 -shared -fPIC -I"$dir/include" "$HERE/mujoco_sdf_shim.c" "$lib" -Wl,-rpath,"$dir" \
            -o "$shim.tmp" >>"$log" 2>&1 && mv "$shim.tmp" "$shim"; then
        report mujoco installed "mujoco $version, native octree mesh SDF, C shim built"
    else
        rm -f "$shim.tmp"
        report mujoco installed "mujoco $version; the evaluation shim did not build ($(why "$log")), so only build times are measured"
    fi
}

# --- pysdf -----------------------------------------------------------------------------------------------------
# eigen_include LOG: prints a directory holding Eigen/Core, fetching Debian's libeigen3-dev (unpacked, not installed)
eigen_include() {
    log=$1
    for d in /usr/include/eigen3 /usr/local/include/eigen3 "$PEERS/eigen/usr/include/eigen3"; do
        [ -f "$d/Eigen/Core" ] && { echo "$d"; return 0; }
    done
    command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || return 1
    work=$(mktemp -d "$PEERS/eigen-download.XXXXXX") || return 1
    if is_root && id _apt >/dev/null 2>&1; then chown _apt "$work" 2>/dev/null || true; fi
    if apt_retry "$log" sh -c "cd '$work' && apt-get download -q libeigen3-dev" &&
        dpkg -x "$(ls "$work"/libeigen3-dev_*.deb | head -n 1)" "$work/x" >>"$log" 2>&1 &&
        [ -f "$work/x/usr/include/eigen3/Eigen/Core" ]; then
        rm -rf "$PEERS/eigen"
        mkdir -p "$PEERS/eigen/usr/include"
        mv "$work/x/usr/include/eigen3" "$PEERS/eigen/usr/include/eigen3"
        rm -rf "$work"
        echo "$PEERS/eigen/usr/include/eigen3"
        return 0
    fi
    rm -rf "$work"
    return 1
}

setup_pysdf() {
    log="$LOGS/pysdf.log"
    : > "$log"
    if "$PY" -c 'import pysdf' >/dev/null 2>&1; then
        report pysdf installed "pysdf $(version_of pysdf), built from source"
        return
    fi
    cxx=$(command -v c++ || command -v g++ || command -v clang++ || true)
    if [ -z "$cxx" ]; then
        report pysdf missing "PyPI has only its source and there is no C++ compiler to build it (Debian: g++)"
        return
    fi
    if ! eigen=$(eigen_include "$log"); then
        report pysdf missing "no Eigen headers: not in /usr/include/eigen3 and apt-get download libeigen3-dev failed: $(why "$log")"
        return
    fi
    src="$PEERS/src"
    mkdir -p "$src"
    if ! pip_install "$log" pybind11 setuptools wheel ||
        ! "$PY" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$src" "$PYSDF_SPEC" >>"$log" 2>&1; then
        report pysdf missing "cannot download $PYSDF_SPEC or its build tools: $(why "$log")"
        return
    fi
    sdist=$(ls -t "$src"/pysdf-*.tar.gz 2>/dev/null | head -n 1)
    # its setup.py looks for Eigen in fixed places (and misreads Eigen 3.4.0's version), then tries to download
    # Eigen from gitlab without a timeout: give the headers through CPLUS_INCLUDE_PATH and make that download fail
    # at once through an unusable proxy (pip itself does not touch the network here: --no-index)
    if CXX="$cxx" CPLUS_INCLUDE_PATH="$eigen" http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
        HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 no_proxy='' NO_PROXY='' \
        "$PY" -m pip install -q --disable-pip-version-check --no-build-isolation --no-index --no-deps "$sdist" >>"$log" 2>&1 &&
        "$PY" -c 'import pysdf' >>"$log" 2>&1; then
        report pysdf installed "pysdf $(version_of pysdf), built from source with Eigen from $eigen"
    else
        report pysdf missing "building $PYSDF_SPEC from source failed: $(why "$log")"
    fi
}

# --- mesh-to-sdf -----------------------------------------------------------------------------------------------
m2s_smoke() {
    PYOPENGL_PLATFORM=${PYOPENGL_PLATFORM:-egl} "$PY" -c '
import mesh_to_sdf, trimesh
cloud = mesh_to_sdf.get_surface_point_cloud(trimesh.creation.box(), scan_count=2, scan_resolution=32)
assert len(cloud.points) > 0, "no surface points"' >>"$1" 2>&1
}

setup_mesh_to_sdf() {
    log="$LOGS/mesh-to-sdf.log"
    : > "$log"
    if ! pip_install "$log" "$MESH_TO_SDF_SPEC"; then
        report mesh-to-sdf missing "pip install $MESH_TO_SDF_SPEC failed: $(why "$log")"
        return
    fi
    if ! m2s_smoke "$log" && [ -z "${DISPLAY:-}" ] && is_root && command -v apt-get >/dev/null 2>&1 &&
        ! { dpkg -s libegl1 && dpkg -s libgl1-mesa-dri; } >/dev/null 2>&1; then
        echo "setup: installing libegl1 libgl1-mesa-dri for headless rendering" >>"$log"
        apt_retry "$log" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            libegl1 libgl1-mesa-dri || true
    fi
    if m2s_smoke "$log"; then
        report mesh-to-sdf installed "mesh-to-sdf $(version_of mesh-to-sdf), depth scans rendered through ${PYOPENGL_PLATFORM:-EGL}"
    else
        report mesh-to-sdf missing "mesh-to-sdf $(version_of mesh-to-sdf) is installed but cannot render its depth scans headless (pyrender, PYOPENGL_PLATFORM=${PYOPENGL_PLATFORM:-egl}): $(why "$log")"
    fi
}

setup_mujoco
setup_pysdf
setup_mesh_to_sdf
