#!/bin/sh
# The Python part of `make test`: builds a wheel of the package from python/ (scikit-build-core
# compiles the C library with CMake, in BUILD/python-build), installs it into a virtual environment
# with NumPy, JAX and pytest from PyPI, and runs the pytest suite against the installed package from
# a folder outside the source tree (the suite must not see python/osculate).
#   usage: sh python/run_tests.sh BUILD [WHEEL]
# WHEEL: test that wheel (e.g. the repaired one of tools/python_dist.sh) instead of building one.
# OSC_PYTHON: the interpreter (default /usr/bin/python3, else python3 on PATH); OSC_PYTHON_VENV: the
# virtual environment (default BUILD/python-venv; made when absent). The environment sees the
# system's site-packages, so that Debian's python3-torch (a CPU PyTorch) and python3-numpy serve when
# installed; the system's NumPy is then kept (python3-torch is built against it).
# What a fresh Debian machine lacks is fetched without root: without python3-venv, the environment is
# made without pip and pip is taken from Debian's python3-pip-whl, and without ca-certificates pip
# gets a bundle from that package (tools/fetch_deps.sh, both unpacked into BUILD/deps). Without a
# python3 at all, or without PyTorch, that part is skipped with a one-line note, unless
# OSC_PYTHON_STRICT=1 (CI), which makes both failures so that the JAX and PyTorch gradient checks run.
set -eu
build=${1:-build}
wheel=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build"
build=$(cd "$build" && pwd)
venv=${OSC_PYTHON_VENV:-$build/python-venv}
python=${OSC_PYTHON:-/usr/bin/python3}
command -v "$python" >/dev/null 2>&1 || python=python3
strict=${OSC_PYTHON_STRICT:-0}

skip() {
    echo "python tests: SKIPPED: $*"
    [ "$strict" = 1 ] && exit 1
    exit 0
}

command -v "$python" >/dev/null 2>&1 || skip "no python3 on this machine (Debian: apt install python3)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null ||
    skip "$python is older than Python 3.9"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! "$python" -m venv --system-site-packages "$venv" >/dev/null 2>&1; then
        # Debian's python3 without python3-venv: no ensurepip; pip comes from python3-pip-whl
        rm -rf "$venv"
        "$python" -m venv --without-pip --system-site-packages "$venv" >/dev/null 2>&1 ||
            skip "$python cannot create a virtual environment"
        sh "$root/tools/fetch_deps.sh" "$build/deps" pip ||
            skip "no pip for the virtual environment (Debian: apt install python3-venv)"
        pip_wheel=$(ls "$build"/deps/usr/share/python-wheels/pip-*.whl | head -n 1)
        "$venv/bin/python" "$pip_wheel/pip" install -q --no-index "$pip_wheel" ||
            skip "pip from $pip_wheel does not install (Debian: apt install python3-venv)"
        echo "python tests: pip installed into $venv from $(basename "$pip_wheel")"
    fi
fi
# Debian's pip trusts /etc/ssl/certs/ca-certificates.crt only; a machine without ca-certificates has none
if [ ! -s /etc/ssl/certs/ca-certificates.crt ] && [ -z "${PIP_CERT:-}" ]; then
    sh "$root/tools/fetch_deps.sh" "$build/deps" certs ||
        skip "no CA certificates to reach PyPI with (Debian: apt install ca-certificates)"
    PIP_CERT="$build/deps/ca-certificates.crt"
    export PIP_CERT
fi
pip="$venv/bin/python -m pip --disable-pip-version-check -q"
# keep the system's NumPy when it has one: Debian's python3-torch is built against it
constraints="$build/python-constraints.txt"
if "$venv/bin/python" -c "import numpy" >/dev/null 2>&1; then
    "$venv/bin/python" -c "import numpy; print('numpy==' + numpy.__version__)" >"$constraints"
else
    : >"$constraints"
fi
$pip install -c "$constraints" pytest "jax[cpu]>=0.4.34" "numpy>=1.21"

if [ -z "$wheel" ]; then
    echo "python tests: building the wheel (pip wheel ./python, build folder $build/python-build)"
    rm -rf "$build/python-wheel"
    $pip wheel --no-deps -w "$build/python-wheel" --config-settings=build-dir="$build/python-build" "$root/python"
    wheel=$(ls "$build"/python-wheel/osculate-*.whl | head -n 1)
fi
echo "python tests: installing $(basename "$wheel") into $venv"
$pip install -c "$constraints" --no-deps --force-reinstall "$wheel"

if ! "$venv/bin/python" -c "import torch" >/dev/null 2>&1; then
    echo "python tests: PyTorch is not importable, its tests are skipped (a CPU PyTorch: Debian's python3-torch; see docs/python.md)"
    [ "$strict" = 1 ] && exit 1
fi

# from a scratch folder, so that neither the current folder nor python/ is on the import path
scratch=$(mktemp -d "${TMPDIR:-/tmp}/osculate-pytest.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
installed=$("$venv/bin/python" -c "import osculate; print(osculate.__file__)")
case "$installed" in
    "$root"/python/*) echo "python tests: osculate imported from the source tree ($installed)" >&2; exit 1 ;;
esac
echo "python tests: osculate $("$venv/bin/python" -c "import osculate; print(osculate.version())") from $(dirname "$installed")"
PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
