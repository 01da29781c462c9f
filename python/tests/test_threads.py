"""Objects that carry state from one call to the next, shared between Python threads: an LmdCache
and a DcolWarmStart take turns (a lock), an `out=` batch refuses a second writer, and the Python
functions behind an SdfFunction or an Implicit.function report each exception to the call that
raised it. Every C call releases the GIL, so the threads really run the library at once. Each case
runs in a child interpreter (conftest.run_isolated), so that a crash fails the test instead of
killing pytest."""

import threading

import numpy as np
import pytest
from conftest import run_isolated

import osculate as osc

THREADS = 4


def _hammer(work, count=THREADS):
    """Runs work(k) on `count` threads started together; returns their results, re-raising the
    first exception of any."""
    start = threading.Barrier(count)
    results, errors = [None] * count, []

    def run(k):
        start.wait()
        try:
            results[k] = work(k)
        except BaseException as e:  # noqa: BLE001 - re-raised on the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _same_contacts(r, s):
    assert len(r) == len(s)
    for name in ("kind_a", "kind_b", "feature_a", "feature_b", "key", "flags"):
        assert np.array_equal(getattr(r, name), getattr(s, name)), name
    np.testing.assert_allclose(r.distance, s.distance, atol=1e-12)
    np.testing.assert_allclose(r.point_a, s.point_a, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# the cases, each run in a child interpreter


def case_shared_lmd_cache():
    hole = osc.Brep.block_with_hole([1, 1, 1], [[0.505, 1.0], [0.505, -0.8]])
    peg = osc.Brep.revolved([[0.0, -0.6], [0.45, -0.6], [0.5, -0.55], [0.5, 0.9], [0.0, 0.9]])
    box, sphere = osc.Brep.box([1.0, 1.0, 0.5]), osc.Brep.sphere(0.3)
    settings = dict(d_max=0.02, conformal_samples=4)
    queries = []
    for k in range(12):  # two pairs, so that the threads also move the cache between pairs
        pose = osc.pose([0.003 * np.sin(k), 0.002 * np.cos(k), 0.2 - 0.02 * k],
                        osc.axis_angle_quaternion([1, 1, 0], 0.003 * (k % 3)))
        queries.append((hole, peg, pose, settings))
        queries.append((box, sphere, osc.pose([0.2, -0.3, 0.85 + 0.01 * k]), dict(d_max=0.5)))
    expected = [osc.lmd(a, osc.pose(), b, p, **s) for a, b, p, s in queries]
    assert sum(len(e) for e in expected) > 30
    cache = osc.LmdCache()

    def work(k):
        rng = np.random.default_rng(k)
        for _ in range(8):
            for i in rng.permutation(len(queries)):
                a, b, p, s = queries[i]
                _same_contacts(osc.lmd(a, osc.pose(), b, p, cache=cache, **s), expected[i])
                if i % 7 == 0:
                    assert cache.stats["front_size"] >= 0
                if i % 11 == 0:
                    cache.reset()

    _hammer(work)


def case_shared_dcol_warm_start():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    poses = [osc.pose([0.9 + 0.01 * k, 0.2, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.05 * k))
             for k in range(40)]
    expected = [osc.dcol(a, osc.pose(), b, p).alpha for p in poses]
    warm = osc.DcolWarmStart()

    def work(k):
        for _ in range(50):
            for i in np.random.default_rng(k).permutation(len(poses)):
                r = osc.dcol(a, osc.pose(), b, poses[i], warm_start=warm)
                assert r.alpha == pytest.approx(expected[i], rel=1e-8)

    _hammer(work)
    assert warm.valid


def case_shared_out_refuses_a_second_writer():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    n = 4000
    poses = np.tile(osc.pose([0.9, 0.2, 0.0]), (n, 1))
    poses[:, 0] += np.linspace(0.0, 1.0, n)
    out = osc.dcol_batch(a, osc.pose(), b, poses, derivatives=True)
    expected = out.alpha.copy()
    refused = []

    def work(k):
        for _ in range(200):  # until the two threads overlap
            try:
                osc.dcol_batch(a, osc.pose(), b, poses, derivatives=True, out=out, threads=1)
            except RuntimeError as e:
                assert "out is being written by another call" in str(e)
                refused.append(k)
            if refused:
                break

    _hammer(work, 2)
    assert refused  # the two threads overlapped, and the second writer was told so
    assert np.array_equal(out.alpha, expected)


def case_callback_errors_reach_their_own_call():
    """Thread 0's calls raise in the Python function; the other threads' never do. Each raising
    call must raise, and no other call may."""
    def sphere(points):
        if threading.current_thread().name == "raising":
            raise KeyError("raised on purpose")
        return np.linalg.norm(points, axis=1) - 0.5, points / np.linalg.norm(points, axis=1)[:, None]

    shape = osc.SdfFunction(sphere, [-0.5] * 3, [0.5] * 3)
    ball = osc.SDF.sphere(0.5)
    pose_b = osc.pose([0.9, 0.0, 0.0])
    expected = osc.sdf_pair_collide(shape, osc.pose(), ball, pose_b)
    assert len(expected) > 0

    def surface_function(x):
        if threading.current_thread().name == "raising":
            raise KeyError("raised on purpose")
        return x @ x - 0.25, 2 * x

    surface = osc.Implicit.function(surface_function, [0.0, 0.0, 0.0], 0.6)
    hit = osc.ray_intersect(surface, [-2.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    assert hit.hit and hit.t == pytest.approx(1.5)

    def work(k):
        if k == 0:
            threading.current_thread().name = "raising"
        for _ in range(30):
            if k == 0:
                with pytest.raises(KeyError):
                    osc.sdf_pair_collide(shape, osc.pose(), ball, pose_b)
                with pytest.raises(KeyError):
                    osc.ray_intersect(surface, [-2.0, 0.0, 0.0], [1.0, 0.0, 0.0])
            else:
                r = osc.sdf_pair_collide(shape, osc.pose(), ball, pose_b)
                assert np.array_equal(r.point, expected.point)
                assert osc.ray_intersect(surface, [-2.0, 0.0, 0.0], [1.0, 0.0, 0.0]).t == hit.t

    _hammer(work)


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [
    case_shared_lmd_cache, case_shared_dcol_warm_start, case_shared_out_refuses_a_second_writer,
    case_callback_errors_reach_their_own_call], ids=lambda f: f.__name__[5:])
def test_shared_state_between_threads(case):
    run_isolated(case)
