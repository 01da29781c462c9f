#!/bin/sh
# Runs the gradient benchmarks one after the other (never two at once: the timings are part of the
# record) and draws the figures. Two environments, because mujoco-mjx needs a newer jax than
# osculate.jax is built against:
#   OSC_PYTHON  a Python with osculate (OSCULATE_LIBRARY, PYTHONPATH as docs/python.md says) and
#               jax 0.4.38 (default: build/python-venv/bin/python)
#   MJ_PYTHON   a Python with mujoco, mujoco-mjx and matplotlib, e.g.
#               python3 -m venv /var/tmp/mj && /var/tmp/mj/bin/pip install mujoco mujoco-mjx matplotlib
# Usage: sh bench/gradients/run.sh [task ...]   (tasks: push strike meshes; default all)
set -e
here=$(cd "$(dirname "$0")" && pwd)
OSC_PYTHON=${OSC_PYTHON:-$here/../../build/python-venv/bin/python}
MJ_PYTHON=${MJ_PYTHON:-/var/tmp/mj/bin/python}
tasks=${*:-push strike meshes}
cd "$here"
for task in $tasks; do
    if [ "$task" = meshes ]; then
        "$OSC_PYTHON" meshes_osculate.py   # no MuJoCo counterpart (meshes_osculate.py says why)
    else
        "$OSC_PYTHON" osculate_tasks.py "$task"
        "$MJ_PYTHON" mujoco_tasks.py "$task"
    fi
done
# the finite-difference gradients over their step (the summary figure's middle panel)
"$OSC_PYTHON" osculate_tasks.py --fd-steps
"$MJ_PYTHON" mujoco_tasks.py --fd-steps
"$MJ_PYTHON" plot.py
