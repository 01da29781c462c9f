import numpy as np
import pytest
from conftest import fd_twist

import osculate as osc


def check_points(r, a, pa, b, pb, epsilon=1e-4):
    """Every point lies inside both shapes (within epsilon times the smaller box diagonal) and its
    distance is max(A, B) there (negative: inside both); the normal is the unit gradient of A - B."""
    eps = epsilon * min(np.linalg.norm(np.subtract(*m.bounds[::-1])) for m in (a, b))
    for x, dist, n in zip(r.point, r.distance, r.normal):
        va, ga = a.eval(x - pa[:3], gradient=True)  # the poses here are translations
        vb, gb = b.eval(x - pb[:3], gradient=True)
        assert va <= eps and vb <= eps
        assert dist == pytest.approx(max(va, vb), abs=1e-12)
        np.testing.assert_allclose(n, (ga - gb) / np.linalg.norm(ga - gb), atol=1e-9)


def test_two_spheres_deepest_point():
    a, b = osc.SDF.sphere(0.5), osc.SDF.sphere(0.5)
    pa, pb = osc.pose([0.1, 0.2, 0.3]), osc.pose([0.9, 0.2, 0.3])
    r = osc.sdf_pair_collide(a, pa, b, pb)
    assert r.boxes_overlap and len(r) >= 1 and r.spheres >= r.survivors > 0
    check_points(r, a, pa, b, pb)
    # the smooth mode's stationary point of the smooth maximum is the lens's centre
    sm = osc.sdf_pair_collide(a, pa, b, pb, temperature=0.01)
    deepest = np.argmin(sm.distance)
    np.testing.assert_allclose(sm.point[deepest], [0.5, 0.2, 0.3], atol=1e-9)
    tau = 0.01 * np.sqrt(3.0)  # relative to the smaller shape's box diagonal
    assert sm.distance[deepest] == pytest.approx(-(0.1 - tau * np.log(2)), abs=1e-9)
    np.testing.assert_allclose(sm.normal[deepest], [1, 0, 0], atol=1e-9)
    apart = osc.sdf_pair_collide(a, pa, b, osc.pose([5.0, 0, 0]))
    assert not apart.boxes_overlap and len(apart) == 0
    assert len(osc.sdf_pair_collide(a, pa, b, pb, first_only=1)) == 1


def test_smooth_mode_jacobians():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = osc.pose([0.1, 0.2, 0.3])
    pb = osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2))
    kw = dict(temperature=0.02)
    r = osc.sdf_pair_collide(a, pa, b, pb, derivatives=True, **kw)
    i = int(np.argmin(r.distance))
    assert r.smooth[i] == 1

    def deepest(name, which):
        def f(p):
            args = (p, pb) if which == 0 else (pa, p)
            q = osc.sdf_pair_collide(a, args[0], b, args[1], **kw)
            return getattr(q, name)[int(np.argmin(q.distance))]
        return f

    for name, jac in (("distance", r.distance_jacobian), ("point", r.point_jacobian)):
        fd = np.concatenate([fd_twist(deepest(name, 0), pa), fd_twist(deepest(name, 1), pb)], -1)
        np.testing.assert_allclose(jac[i], fd, atol=2e-5, err_msg=name)
    # two equal spheres: d distance / d p_B = +1/2 along the axis
    s = osc.SDF.sphere(0.5)
    q = osc.sdf_pair_collide(s, osc.pose(), s, osc.pose([0.8, 0, 0]), derivatives=True, **kw)
    k = int(np.argmin(q.distance))
    np.testing.assert_allclose(q.distance_jacobian[k, 6:9], [0.5, 0, 0], atol=1e-6)


def test_user_function_and_grid_shapes():
    def ball(p):
        r = np.linalg.norm(p, axis=1)
        return r - 0.5, p / r[:, None]

    user = osc.SdfFunction(ball, [-0.5] * 3, [0.5] * 3)
    s = osc.SDF.sphere(0.5)
    pa, pb = osc.pose(), osc.pose([0.8, 0, 0])
    lib_r = osc.sdf_pair_collide(s, pa, s, pb)
    user_r = osc.sdf_pair_collide(user, pa, s, pb)
    assert user_r.distance.min() == pytest.approx(lib_r.distance.min(), abs=1e-6)
    grid = osc.Grid.from_sdf(s, resolution=24)
    check_points(osc.sdf_pair_collide(grid, pa, s, pb), grid, pa, s, pb)

    def broken(p):
        raise RuntimeError("user function failed")

    with pytest.raises(RuntimeError, match="user function failed"):
        osc.sdf_pair_collide(osc.SdfFunction(broken, [-0.5] * 3, [0.5] * 3), pa, s, pb)
    with pytest.raises(NotImplementedError):  # smooth mode needs a library SDF
        osc.sdf_pair_collide(user, pa, s, pb, temperature=0.01)


def test_scene_and_errors():
    s = osc.SDF.sphere(0.5)
    poses = np.array([osc.pose([0, 0, 0]), osc.pose([0.9, 0, 0]), osc.pose([5, 0, 0]), osc.pose([5.8, 0.1, 0])])
    pairs = osc.sdf_scene_collide([s] * 4, poses, contacts_per_pair=256, threads=2)
    assert [(i, j) for i, j, _ in pairs] == [(0, 1), (2, 3)]
    for i, j, r in pairs:  # each pair is osc_sdf_pair_collide's answer
        one = osc.sdf_pair_collide(s, poses[i], s, poses[j], capacity=256)
        np.testing.assert_array_equal(r.point, one.point)
        np.testing.assert_array_equal(r.distance, one.distance)
    with pytest.raises(osc.CapacityError):
        osc.sdf_scene_collide([s] * 4, poses, contacts_per_pair=1)
    with pytest.raises(NotImplementedError):  # unbounded
        osc.sdf_pair_collide(osc.SDF.halfspace([0, 0, 1], 0), osc.pose(), s, osc.pose())
    with pytest.raises(ValueError):
        osc.sdf_pair_collide(s, osc.pose(), s, [0, 0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError):
        osc.sdf_pair_collide(s, osc.pose(), s, osc.pose(), resolution=0)
    with pytest.raises(ValueError):
        osc.sdf_pair_collide(s, osc.pose(), "s", osc.pose())
    with pytest.raises(osc.CapacityError):
        osc.sdf_pair_collide(osc.SDF.box([0.5, 0.5, 0.1]), osc.pose(), osc.SDF.box([0.5, 0.5, 0.1]),
                             osc.pose([0, 0, 0.15]), capacity=1)
    with pytest.raises(ValueError):
        osc.sdf_scene_collide([s, s], poses)


def _same_result(got, want):
    """Two SdfPairResults equal bit for bit, every field."""
    for name in ("point", "distance", "normal", "iterations", "smooth", "point_jacobian",
                 "distance_jacobian"):
        g, w = getattr(got, name), getattr(want, name)
        assert (g is None) == (w is None), name
        if w is not None:
            assert g.dtype == w.dtype and np.array_equal(g, w), name
    for name in ("needed", "boxes_overlap", "spheres", "survivors"):
        assert getattr(got, name) == getattr(want, name), name


def test_batch_equals_single_bit_for_bit():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = osc.pose([0.1, 0.2, 0.3])
    pbs = np.stack([osc.pose([0.85 + 0.05 * k, 0.25, 0.3 - 0.02 * k],
                             osc.axis_angle_quaternion([0, 0, 1], 0.2 * k)) for k in range(5)]
                   + [osc.pose([4.0, 0, 0])])  # the last pair does not meet
    kw = dict(temperature=0.02)
    batch = osc.sdf_pair_collide_batch(a, pa, b, pbs, derivatives=True, threads=2, **kw)
    assert len(batch) == 6 and list(batch.status) == [0] * 6
    assert batch.count[0] > 0 and batch.count[5] == 0 and not batch.boxes_overlap[5]
    for k in range(6):
        _same_result(batch[k], osc.sdf_pair_collide(a, pa, b, pbs[k], derivatives=True, **kw))
    # the batch rule (osculate.broadcast_poses), shapes one or one per slot, a Grid among them
    grid = osc.Grid.from_sdf(b, resolution=16)
    shapes = [b, grid] * 3
    for other in (osc.sdf_pair_collide_batch([a] * 6, np.tile(pa, (6, 1)), shapes, pbs,
                                             capacity=256, threads=1),
                  osc.sdf_pair_collide_batch(a, pa[None], shapes, pbs, capacity=256, threads=3)):
        for k in range(6):
            _same_result(other[k], osc.sdf_pair_collide(a, pa, shapes[k], pbs[k], capacity=256))
    with pytest.raises(ValueError, match="3 shapes for 6 poses"):
        osc.sdf_pair_collide_batch(a, pa, [b] * 3, pbs)
    with pytest.raises(ValueError, match="broadcast"):
        osc.sdf_pair_collide_batch(a, np.tile(pa, (4, 1)), b, pbs)
    user = osc.SdfFunction(lambda p: (np.linalg.norm(p, axis=1) - 0.5, p), [-0.5] * 3, [0.5] * 3)
    with pytest.raises(ValueError, match=r"b\[1\] must be an SDF or a Grid"):
        osc.sdf_pair_collide_batch(a, pa, [b, user] * 3, pbs)


def test_batch_names_the_failing_slot():
    s = osc.SDF.sphere(0.5)
    poses = np.tile(osc.pose([0.8, 0, 0]), (4, 1))
    poses[2, 0] = np.nan
    with pytest.raises(osc.InvalidArgumentError, match="item 2"):
        osc.sdf_pair_collide_batch(s, osc.pose(), s, poses, threads=2)
    r = osc.sdf_pair_collide_batch(s, osc.pose(), s, poses, check_status=False)
    assert list(r.status) == [0, 0, 1, 0] and r.count[2] == 0  # OSC_ERR_INVALID_ARGUMENT
    for k in (0, 1, 3):  # the other slots are still computed
        _same_result(r[k], osc.sdf_pair_collide(s, osc.pose(), s, poses[k]))
    flat = osc.SDF.box([0.5, 0.5, 0.1])
    deep = np.stack([osc.pose([3, 0, 0]), osc.pose([0, 0, 0.15])])
    with pytest.raises(osc.CapacityError, match="pair 1 found [0-9]+ points, capacity 1"):
        osc.sdf_pair_collide_batch(flat, osc.pose(), flat, deep, capacity=1)
    with pytest.raises(ValueError, match="threads"):
        osc.sdf_pair_collide_batch(s, osc.pose(), s, poses[:2], threads=-1)
