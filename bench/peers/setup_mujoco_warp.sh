#!/bin/sh
# bench/peers/setup_mujoco_warp.sh BUILD: installs MuJoCo Warp (PyPI `mujoco-warp`, with `warp-lang` and `mujoco`,
# pinned below) into its own virtual environment BUILD/peers/warp-venv, for bench/peers/mujoco_warp_manifold.py
# (MJWarp on Warp's CPU device against MuJoCo C on the contact-manifold figures). Optional: without the network
# (or when pip fails) it reports the peer missing and exits 0.
#
# Like setup.sh: idempotent (the pinned versions installed and importing stay; a re-run only checks them, no
# downloads), never fails the caller, prints one line
#   peer mujoco_warp: installed (mujoco-warp VERSION, warp-lang VERSION, mujoco VERSION)   or   peer mujoco_warp: missing (WHY)
# and writes the same to BUILD/peers/status/mujoco_warp; details in BUILD/peers/logs/mujoco_warp.log. It also checks
# that Warp has its "cpu" device (warp-lang's wheel ships the compiler that builds its CPU kernels). The first
# measurement compiles MJWarp's kernels (about a minute on 2 busy cores) into Warp's cache, ~/.cache/warp.
set -eu

[ $# -ge 1 ] || { echo "usage: bench/peers/setup_mujoco_warp.sh BUILD_DIR" >&2; exit 2; }
mkdir -p "$1/peers"
PEERS=$(cd "$1/peers" && pwd)
VENV="$PEERS/warp-venv"
LOGS="$PEERS/logs"
STATUS="$PEERS/status"
mkdir -p "$LOGS" "$STATUS"
log="$LOGS/mujoco_warp.log"
: > "$log"

# versions measured against (mujoco-warp 4.0.0 requires mujoco >= 3.13 and warp-lang; these are what it pulled)
SPECS='mujoco-warp==4.0.0 warp-lang==1.19.0 mujoco==4.0.1'
PY="$VENV/bin/python"

report() {
    echo "peer mujoco_warp: $1 ($2)"
    echo "$1 $2" > "$STATUS/mujoco_warp"
}

why() {
    reason=$(grep -E '^(ERROR|E):|Error|error:' "$1" 2>/dev/null | tail -n 1)
    [ -n "$reason" ] || reason=$(tail -n 1 "$1" 2>/dev/null)
    printf '%s' "$reason" | tr -d '"\\' | cut -c1-200
}

version_of() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || echo "?"; }

pinned() {
    for spec in $SPECS; do
        [ "$(version_of "${spec%%==*}")" = "${spec#*==}" ] || return 1
    done
}

works() {
    "$PY" -c 'import warp as wp
wp.config.quiet = True
wp.init()
assert "cpu" in [str(d) for d in wp.get_devices()], "Warp has no cpu device"
import mujoco, mujoco_warp' >>"$log" 2>&1
}

if ! [ -x "$PY" ]; then
    python3 -m venv "$VENV" >>"$log" 2>&1 || true
fi
if ! [ -x "$PY" ]; then
    rm -rf "$VENV"
    report missing "python3 -m venv failed (Debian: python3-venv); see $log"
    exit 0
fi
if pinned && works; then
    echo "setup: $SPECS already installed" >>"$log"
else
    # shellcheck disable=SC2086
    if ! "$PY" -m pip install -q --disable-pip-version-check $SPECS >>"$log" 2>&1; then
        report missing "pip install $SPECS failed: $(why "$log")"
        exit 0
    fi
    if ! works; then
        report missing "mujoco-warp $(version_of mujoco-warp) is installed but does not run on Warp's CPU device: $(why "$log")"
        exit 0
    fi
fi
report installed "mujoco-warp $(version_of mujoco-warp), warp-lang $(version_of warp-lang), mujoco $(version_of mujoco)"
