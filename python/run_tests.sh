#!/bin/sh
# The Python part of `make test`: a virtual environment in BUILD/python-venv made from Debian's
# /usr/bin/python3 with --system-site-packages (so that it sees python3-torch and python3-numpy
# when they are installed), the package pip-installed into it from python/ (scikit-build-core builds
# the C library with CMake), JAX and pytest from PyPI, then the pytest suite.
#   usage: sh python/run_tests.sh BUILD
# Without a Python able to make virtual environments (Debian: python3-venv) it says so and skips,
# unless OSC_PYTHON_STRICT=1 (CI), which also requires JAX and PyTorch to be importable so that
# their gradient checks run.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$build/python-venv"
python=${OSC_PYTHON:-/usr/bin/python3}
command -v "$python" >/dev/null 2>&1 || python=python3
strict=${OSC_PYTHON_STRICT:-0}

if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -m venv --system-site-packages "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "python tests: SKIPPED: $python cannot create a virtual environment (Debian: apt install python3-venv)"
        [ "$strict" = 1 ] && exit 1
        exit 0
    fi
fi
pip="$venv/bin/python -m pip --disable-pip-version-check -q"
# keep the system's NumPy when it has one: Debian's python3-torch is built against it
constraints="$build/python-constraints.txt"
if "$venv/bin/python" -c "import numpy" >/dev/null 2>&1; then
    "$venv/bin/python" -c "import numpy; print('numpy==' + numpy.__version__)" > "$constraints"
else
    : > "$constraints"
fi
echo "python tests: installing the package into $venv"
$pip install -c "$constraints" pytest "jax[cpu]>=0.4.34"
$pip install -c "$constraints" "$root/python"
if ! "$venv/bin/python" -c "import torch" >/dev/null 2>&1; then
    echo "python tests: PyTorch is not importable (Debian: apt install python3-torch); its tests are skipped"
    [ "$strict" = 1 ] && exit 1
fi
cd "$root"
"$venv/bin/python" -m pytest -q python/tests
