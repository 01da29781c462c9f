#!/bin/sh
# The PyTorch 2 part of CI (make test-torch2): a virtual environment BUILD/python-venv-torch2
# without the system's site-packages, PyTorch from PyPI (OSC_TORCH_VERSION, default 2.5.1; the
# x86-64 wheel pulls its CUDA packages, about 3 GB, and runs on the CPU) with NumPy, JAX and
# pytest, the package's wheel from BUILD/python-wheel (python/run_tests.sh builds it), and the
# PyTorch tests only (test_torch.py, test_torch2.py: torch.compile and torch.func).
#   usage: sh python/run_torch2_tests.sh BUILD
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${OSC_TORCH2_VENV:-$build/python-venv-torch2}
python=${OSC_PYTHON:-/usr/bin/python3}
version=${OSC_TORCH_VERSION:-2.5.1}
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
# as python/run_tests.sh: without ca-certificates, the bundle it unpacked into BUILD/deps
if [ ! -s /etc/ssl/certs/ca-certificates.crt ] && [ -z "${PIP_CERT:-}" ] &&
    [ -s "$build/deps/ca-certificates.crt" ]; then
    PIP_CERT="$build/deps/ca-certificates.crt"
    export PIP_CERT
fi
pip="$venv/bin/python -m pip --disable-pip-version-check -q"
$pip install "torch==$version" "numpy>=1.21" "jax[cpu]>=0.4.34" pytest
wheel=$(ls "$build"/python-wheel/osculate-*.whl | head -n 1)
$pip install --no-deps --force-reinstall "$wheel"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/osculate-torch2.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
echo "python torch2 tests: torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)')"
PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$root/python/tests/test_torch.py" "$root/python/tests/test_torch_force.py" \
    "$root/python/tests/test_torch2.py"
