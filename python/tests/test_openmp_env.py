"""The OpenMP runtime's idle threads sleep (docs/python.md, Threads and environment variables).

The package loads its library with OMP_WAIT_POLICY=passive unless the user set OMP_WAIT_POLICY or
GOMP_SPINCOUNT, and restores the environment afterwards. libgomp prints the settings it read when
OMP_DISPLAY_ENV=VERBOSE: GOMP_SPINCOUNT '0' with the passive policy, '300000' with its own default.
Each case imports the package in a fresh interpreter (the runtime reads its settings once)."""

import os
import re
import subprocess
import sys

import pytest

PROBE = "import os, osculate; print('policy', os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"


def run(**overrides):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(overrides, OMP_DISPLAY_ENV="VERBOSE")
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if "OPENMP DISPLAY ENVIRONMENT" not in done.stdout + done.stderr:
        pytest.skip("the library's OpenMP runtime prints no settings (not libgomp, or no OpenMP)")
    spin = re.search(r"GOMP_SPINCOUNT = '(\d+)'", done.stdout + done.stderr)
    if not spin:
        pytest.skip("the OpenMP runtime is not libgomp")
    policy = done.stdout.strip().splitlines()[-1]
    return int(spin.group(1)), policy


def test_passive_by_default_and_environment_restored():
    spin, policy = run()
    assert spin == 0
    assert policy == "policy None None"  # the variable was set for the load only


def test_user_policy_kept():
    spin, policy = run(OMP_WAIT_POLICY="active")
    assert spin > 300000  # libgomp's active policy spins for minutes
    assert policy == "policy active None"


def test_user_spincount_kept():
    spin, policy = run(GOMP_SPINCOUNT="5000")
    assert spin == 5000
    assert policy == "policy None 5000"
