import re

import numpy as np
import pytest

import osculate as osc


def fd_twist(f, pose, eps=1e-6):
    """Central differences of f(pose) along the six left-twist directions: [*f.shape, 6]."""
    cols = []
    for k in range(6):
        xi = np.zeros(6)
        xi[k] = eps
        plus = np.asarray(f(osc.apply_twist(pose, xi)))
        minus = np.asarray(f(osc.apply_twist(pose, -xi)))
        cols.append((plus - minus) / (2 * eps))
    return np.stack(cols, axis=-1)


def random_pose(rng, scale=1.0):
    q = rng.normal(size=4)
    return osc.pose(rng.normal(size=3) * scale, q / np.linalg.norm(q))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def sphere_body():
    sdf = osc.SDF.sphere(0.5)
    mesh = osc.collision_mesh(sdf, resolution=24, target_triangles=200)
    return osc.Body(mesh, sdf=sdf), sdf, mesh


def run_isolated(function, timeout=300):
    """Runs a module-level function of a test module in a fresh interpreter and returns what it
    printed, so that a crash (a read after free, a segfault) fails the calling test with the
    child's output instead of killing pytest. The child sees the same environment and imports
    the test module from this directory."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    code = "import %s as m; m.%s()" % (function.__module__, function.__name__)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, "%s exited with %d:\n%s\n%s" % (function.__name__, r.returncode,
                                                               r.stdout[-3000:], r.stderr[-3000:])
    return r.stdout


def custom_calls(jitted, *args):
    """What the compiled program of `jitted` (a jax.jit function) at `args` runs: a list of
    (target, jacobians) for each osculate custom call after XLA's optimisations (jacobians: the
    attribute of the lowered call, None where the target has none), and the number of while
    loops. A reverse pass should hold each query's call once, with its Jacobians, and the
    found-rows transpose, never the query twice or a loop."""
    lowered = jitted.lower(*args)
    calls = []
    for line in lowered.as_text().splitlines():
        m = re.search(r"stablehlo\.custom_call @(osculate_\w+)", line)
        if m:
            j = re.search(r"jacobians = (\d+) : i64", line)
            calls.append((m.group(1), int(j.group(1)) if j else None))
    compiled = lowered.compile().as_text()
    targets = re.findall(r'custom_call_target="(osculate_\w+)"', compiled)
    # every lowered call survives compilation (none is dead code, none merged away)
    assert sorted(targets) == sorted(t for t, _ in calls), (targets, calls)
    return sorted(calls), len(re.findall(r"\bwhile\(", compiled))


def largest_array(jitted, *args):
    """The number of elements of the largest array in the compiled program of `jitted` (a jax.jit
    function) at `args`: its arguments, results and every intermediate XLA keeps after its
    optimisations, of any element type."""
    compiled = jitted.lower(*args).compile().as_text()
    sizes = [int(np.prod([int(d) for d in dims.split(",") if d], dtype=np.int64))
             for dims in re.findall(r"\b(?:f|s|u|pred|bf)\d*\[([\d,]*)\]", compiled)]
    return max(sizes)
