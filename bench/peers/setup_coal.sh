#!/bin/sh
# bench/peers/setup_coal.sh BUILD: installs coal (the successor of hpp-fcl: GJK / EPA between convex shapes, the
# collision library of Pinocchio) as a C++ library and builds bench_dcol's coal peer, BUILD/peers/coal_dcol.so from
# coal_dcol.cc, which bench_dcol loads at run time (dlopen) when it is there.
#
#   libcoal      PyPI `libcoal` (pinned below): the C++ headers and libcoal.so of the `coal` wheel, installed
#                with its dependencies (the cmeel-boost, -assimp, -octomap, -qhull, -zlib wheels: headers and shared
#                libraries under the venv's site-packages/cmeel.prefix) into its own virtual environment
#                BUILD/peers/coal-venv; `cmeel-eigen` adds Eigen's headers, which coal's headers include
#   coal_dcol.so built here with the C++ compiler against those headers, linked to libcoal.so (rpath into the venv)
#
# Like setup.sh: idempotent (what is installed and built stays; a re-run only checks it, no downloads), never fails
# the caller, prints one line
#   peer coal: installed (libcoal VERSION, coal_dcol.so built)   or   peer coal: missing (WHY)
# and writes the same to BUILD/peers/status/coal. Details: BUILD/peers/logs/coal.log.
set -eu

[ $# -ge 1 ] || { echo "usage: bench/peers/setup_coal.sh BUILD_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1/peers"
PEERS=$(cd "$1/peers" && pwd)
VENV="$PEERS/coal-venv"
LOGS="$PEERS/logs"
STATUS="$PEERS/status"
mkdir -p "$LOGS" "$STATUS"
log="$LOGS/coal.log"
: > "$log"

# the version measured against (change here; the installed version is printed and recorded in the status file)
COAL_SPEC='libcoal==3.0.3'
EIGEN_SPEC='cmeel-eigen'

PY="$VENV/bin/python"
report() {
    echo "peer coal: $1 ($2)"
    echo "$1 $2" > "$STATUS/coal"
}
why() {
    reason=$(grep -E '^(ERROR|E):|Error|error:' "$1" 2>/dev/null | tail -n 1)
    [ -n "$reason" ] || reason=$(tail -n 1 "$1" 2>/dev/null)
    printf '%s' "$reason" | tr -d '"\\' | cut -c1-200
}
version_of() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || echo "?"; }

# --- the virtual environment and the wheels --------------------------------------------------------------------
if ! [ -x "$PY" ] || ! "$PY" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$VENV"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv "$VENV" >>"$log" 2>&1; then
        rm -rf "$VENV"
        report missing "no Python virtual environment for the coal wheels: python3 -m venv failed (Debian: python3-venv)"
        exit 0
    fi
fi
prefix() { "$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null | sed 's|$|/cmeel.prefix|'; }
PREFIX=$(prefix)
want=${COAL_SPEC#*==}
if [ "$(version_of libcoal)" = "$want" ] && [ -f "$PREFIX/lib/libcoal.so" ] && [ -f "$PREFIX/include/eigen3/Eigen/Core" ]; then
    echo "setup: $COAL_SPEC and $EIGEN_SPEC already installed" >>"$log"
elif ! "$PY" -m pip install -q --disable-pip-version-check "$COAL_SPEC" "$EIGEN_SPEC" >>"$log" 2>&1; then
    report missing "pip install $COAL_SPEC $EIGEN_SPEC failed: $(why "$log")"
    exit 0
fi
PREFIX=$(prefix)
if ! [ -f "$PREFIX/lib/libcoal.so" ] || ! [ -f "$PREFIX/include/coal/collision.h" ]; then
    report missing "libcoal $(version_of libcoal) is installed but $PREFIX has no lib/libcoal.so or include/coal/collision.h"
    exit 0
fi
EIGEN=$PREFIX/include/eigen3
[ -f "$EIGEN/Eigen/Core" ] || EIGEN=/usr/include/eigen3

# --- the peer program --------------------------------------------------------------------------------------------
lib="$PEERS/coal_dcol.so"
cxx=$(command -v c++ || command -v g++ || command -v clang++ || true)
if [ -f "$lib" ] && [ "$lib" -nt "$HERE/coal_dcol.cc" ] && [ "$lib" -nt "$PREFIX/lib/libcoal.so" ]; then
    report installed "libcoal $(version_of libcoal), coal_dcol.so built"
    exit 0
fi
if [ -z "$cxx" ]; then
    report missing "libcoal $(version_of libcoal) is installed but there is no C++ compiler to build coal_dcol.cc (Debian: g++)"
    exit 0
fi
# -DCOAL_BACKWARD_COMPATIBILITY_WITH_HPP_FCL=0: coal's headers otherwise warn about hpp-fcl's names
if "$cxx" -std=c++17 -O2 -DNDEBUG -shared -fPIC -I"$PREFIX/include" -I"$EIGEN" "$HERE/coal_dcol.cc" \
        "$PREFIX/lib/libcoal.so" -Wl,-rpath,"$PREFIX/lib" -o "$lib.tmp" >>"$log" 2>&1 && mv "$lib.tmp" "$lib"; then
    report installed "libcoal $(version_of libcoal), coal_dcol.so built"
else
    rm -f "$lib.tmp"
    report missing "libcoal $(version_of libcoal) is installed but coal_dcol.cc did not build: $(why "$log")"
fi
