#!/bin/sh
# Runs the gradient benchmarks one after the other (never two at once: the timings are part of the
# record) and draws the figures. Two environments, because mujoco-mjx needs a newer jax than the
# one osculate.jax is tested against:
#   OSC_PYTHON  a Python with osculate (pip install ./python, or OSCULATE_LIBRARY and PYTHONPATH as
#               docs/python.md says) and jax (default: build/python-venv/bin/python)
#   MJ_PYTHON   a Python with mujoco, mujoco-mjx and matplotlib, e.g.
#               python3 -m venv /var/tmp/mj && /var/tmp/mj/bin/pip install mujoco mujoco-mjx matplotlib
# step_cost.py needs osculate, mujoco and mujoco-mjx in one process: it runs with MJ_PYTHON and
# the package of this checkout (PYTHONPATH=python, OSCULATE_LIBRARY=$OSC_LIBRARY, the package's
# _osculate.so, e.g. built by `cmake -S python -B B && cmake --build B --target _osculate`).
# The MJX runs pin themselves to one CPU (mujoco_tasks.jax_setup; MJX_CPU picks which) and keep
# their compiled programs in a persistent cache (MJX_CACHE_DIR, default <tmp>/osculate-mjx-cache).
# Usage: sh bench/gradients/run.sh [task ...]   (tasks: push strike meshes steps; default all)
set -e
here=$(cd "$(dirname "$0")" && pwd)
OSC_PYTHON=${OSC_PYTHON:-$here/../../build/python-venv/bin/python}
MJ_PYTHON=${MJ_PYTHON:-/var/tmp/mj/bin/python}
tasks=${*:-push strike meshes steps}
cd "$here"
for task in $tasks; do
    case $task in
    meshes)
        "$OSC_PYTHON" meshes_osculate.py
        "$MJ_PYTHON" meshes_mujoco.py ;;
    steps)
        PYTHONPATH=$here/../../python${PYTHONPATH:+:$PYTHONPATH} \
            OSCULATE_LIBRARY=${OSC_LIBRARY:?set OSC_LIBRARY to the _osculate.so of the package} \
            "$MJ_PYTHON" step_cost.py ;;
    *)
        "$OSC_PYTHON" osculate_tasks.py "$task"
        "$MJ_PYTHON" mujoco_tasks.py "$task" ;;
    esac
done
# the finite-difference gradients over their step (the summary figure's middle panel)
"$OSC_PYTHON" osculate_tasks.py --fd-steps
"$MJ_PYTHON" mujoco_tasks.py --fd-steps
"$MJ_PYTHON" plot.py
