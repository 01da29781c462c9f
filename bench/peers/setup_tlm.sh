#!/bin/sh
# bench/peers/setup_tlm.sh BUILD: installs the peer of the ray / implicit-surface intersection benchmark,
# Torch Lens Maker (PyPI `torchlensmaker`, GPL-3.0: it is run to compare against, none of its code is in this
# repository), into its own virtual environment BUILD/peers/tlm-venv, driven by bench/peers/tlm_rays.py. See
# bench/peers/tlm/README.md.
#
#   torch           the CPU-only wheel from PyTorch's own index (https://download.pytorch.org/whl/cpu) where that
#                   index can be reached, else PyPI's `torch` (which pulls the CUDA libraries: a few GB)
#   torchlensmaker  PyPI, pinned (TLM_SPEC below) into the venv with its dependencies; it does not declare torch.
#                   0.0.13, not the newest 0.0.14: 0.0.14 requires `torchimplicit`, which is not on PyPI, so it cannot
#                   be installed from PyPI at all (pip: "No matching distribution found for torchimplicit")
#   legacy          torchlensmaker 0.0.12, the last release with the collision detection Torch Lens Maker documents
#                   (CollisionMethod: beams, coarse / fine / differentiable phases, Newton / GD / LM), unpacked with
#                   --no-deps into BUILD/peers/tlm-0.0.12 (its dependencies, jaxtyping and matplotlib, are the
#                   venv's); tlm_rays.py --legacy puts it first on sys.path. Optional: its failure is only logged.
#
# Like setup.sh: idempotent (what is installed and imports stays; a re-run only checks it, no downloads), never fails
# the caller, prints one line
#   peer torchlensmaker: installed (torchlensmaker VERSION, torch VERSION)   or   peer torchlensmaker: missing (WHY)
# and writes the same to BUILD/peers/status/torchlensmaker. Details (also the install's time and size):
# BUILD/peers/logs/tlm.log. Needs python3 >= 3.11 with venv (torchlensmaker requires it).
set -eu

[ $# -ge 1 ] || { echo "usage: bench/peers/setup_tlm.sh BUILD_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1/peers"
PEERS=$(cd "$1/peers" && pwd)
VENV="$PEERS/tlm-venv"
LEGACY="$PEERS/tlm-0.0.12"
LOGS="$PEERS/logs"
STATUS="$PEERS/status"
mkdir -p "$LOGS" "$STATUS"
log="$LOGS/tlm.log"
: > "$log"

# versions measured against (change here; the installed versions are printed and recorded in the status file)
TLM_SPEC='torchlensmaker==0.0.13'
TLM_LEGACY_SPEC='torchlensmaker==0.0.12'
TORCH_SPEC='torch'
TORCH_CPU_INDEX='https://download.pytorch.org/whl/cpu'

PY="$VENV/bin/python"
is_root() { [ "$(id -u)" -eq 0 ]; }

report() {
    echo "peer torchlensmaker: $1 ($2)"
    echo "$1 $2" > "$STATUS/torchlensmaker"
}

why() {
    reason=$(grep -E '^(ERROR|E):|Error|error:' "$1" 2>/dev/null | tail -n 1)
    [ -n "$reason" ] || reason=$(tail -n 1 "$1" 2>/dev/null)
    printf '%s' "$reason" | tr -d '"\\' | cut -c1-200
}

pip_install() {
    "$PY" -m pip install -q --disable-pip-version-check "$@" >>"$log" 2>&1
}

version_of() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || echo "?"; }
size_of() { du -sh "$1" 2>/dev/null | awk '{ print $1 }'; }
now() { date +%s; }
setup_start=$(now)

# --- the virtual environment -----------------------------------------------------------------------------------
PYTHON3=$(command -v python3 || true)
if ! [ -x "$PY" ] || ! "$PY" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then
    rm -rf "$VENV"
    if [ -z "$PYTHON3" ] || ! "$PYTHON3" -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then
        found="not found"
        [ -z "$PYTHON3" ] || found=$("$PYTHON3" --version 2>&1 | head -n 1)
        report missing "torchlensmaker needs Python >= 3.11; python3 is ${found:-unknown}"
        exit 0
    fi
    if ! "$PYTHON3" -m venv "$VENV" >>"$log" 2>&1; then
        rm -rf "$VENV"
        if is_root && command -v apt-get >/dev/null 2>&1; then
            { env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv ||
              { apt-get update -qq && env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                  --no-install-recommends python3-venv; }; } >>"$log" 2>&1 || true
            "$PYTHON3" -m venv "$VENV" >>"$log" 2>&1 || rm -rf "$VENV"
        fi
    fi
fi
if ! [ -x "$PY" ]; then
    report missing "no Python virtual environment: $PYTHON3 -m venv failed (Debian: python3-venv); see $log"
    exit 0
fi

# --- torch -----------------------------------------------------------------------------------------------------
if "$PY" -c 'import torch' >>"$log" 2>&1; then
    echo "setup: torch $(version_of torch) already installed" >>"$log"
else
    start=$(now)
    if "$PY" -c "import urllib.request as u; u.urlopen('$TORCH_CPU_INDEX/torch/', timeout=15)" >>"$log" 2>&1; then
        echo "setup: pip install $TORCH_SPEC --index-url $TORCH_CPU_INDEX (CPU-only wheel)" >>"$log"
        pip_install "$TORCH_SPEC" --index-url "$TORCH_CPU_INDEX" || true
    else
        echo "setup: $TORCH_CPU_INDEX cannot be reached: pip install $TORCH_SPEC from PyPI (with its CUDA libraries)" >>"$log"
        pip_install "$TORCH_SPEC" || true
    fi
    echo "setup: torch install took $(( $(now) - start )) s" >>"$log"
    if ! "$PY" -c 'import torch' >>"$log" 2>&1; then
        report missing "pip install torch failed: $(why "$log")"
        exit 0
    fi
fi

# --- torchlensmaker ----------------------------------------------------------------------------------------------
want=${TLM_SPEC#*==}
if [ "$(version_of torchlensmaker)" = "$want" ] && "$PY" -c 'import torchlensmaker' >>"$log" 2>&1; then
    echo "setup: torchlensmaker $want already installed" >>"$log"
else
    start=$(now)
    if ! pip_install "$TLM_SPEC"; then
        report missing "pip install $TLM_SPEC failed: $(why "$log")"
        exit 0
    fi
    echo "setup: torchlensmaker install took $(( $(now) - start )) s" >>"$log"
fi
if ! "$PY" -c 'import torch, torchlensmaker' >>"$log" 2>&1; then
    report missing "torchlensmaker $(version_of torchlensmaker) is installed but does not import: $(why "$log")"
    exit 0
fi

# --- legacy collision detection (optional) -----------------------------------------------------------------------
legacy_ok() {
    PYTHONPATH="$LEGACY" "$PY" -c 'import torchlensmaker, sys
from torchlensmaker.core.collision_detection import default_collision_method
from torchlensmaker.core.intersect import intersect
sys.exit(0 if torchlensmaker.__file__.startswith(sys.argv[1]) else 1)' "$LEGACY" >>"$log" 2>&1
}
if legacy_ok; then
    echo "setup: legacy $TLM_LEGACY_SPEC already in $LEGACY" >>"$log"
else
    rm -rf "$LEGACY"
    if pip_install --no-deps --target "$LEGACY" "$TLM_LEGACY_SPEC" && legacy_ok; then
        echo "setup: legacy $TLM_LEGACY_SPEC unpacked into $LEGACY" >>"$log"
    else
        rm -rf "$LEGACY"
        echo "setup: legacy $TLM_LEGACY_SPEC not available (tlm_rays.py --legacy will report it missing)" >>"$log"
    fi
fi

# smoke test, through the harness: one ray along the axis hits a sag sphere (R 20, D 10) at its vertex, t = 5
smoke="$PEERS/tlm-smoke.f64"
"$PY" -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<6d', -5, 0, 0, 1, 0, 0))" "$smoke"
out=$("$PY" "$HERE/tlm_rays.py" "$smoke" --surface sphere --radius 20 --diameter 10 --repeats 1 \
      --out "$smoke.out" 2>>"$log" || true)
echo "setup: smoke test: $out" >>"$log"
if ! printf '%s' "$out" | grep -q '"hits": 1' ||
    ! "$PY" -c "import struct, sys; t = struct.unpack('<d', open(sys.argv[1], 'rb').read(8))[0]; sys.exit(abs(t - 5) > 1e-9)" "$smoke.out" >>"$log" 2>&1; then
    report missing "torchlensmaker $(version_of torchlensmaker) imports but the smoke test of tlm_rays.py failed: $(why "$log")"
    exit 0
fi

site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "setup: took $(( $(now) - setup_start )) s; sizes: venv $(size_of "$VENV") (torch $(size_of "$site/torch"), nvidia $(size_of "$site/nvidia" || true), triton $(size_of "$site/triton" || true)), legacy $(size_of "$LEGACY" || true)" >>"$log"
report installed "torchlensmaker $(version_of torchlensmaker), torch $(version_of torch)"
