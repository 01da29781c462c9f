import numpy as np
import pytest

import osculate as osc


def test_version_and_threads():
    assert osc.version() == osc.__version__
    assert [int(v) for v in osc.version().split(".")] == [0, 1, 0]
    assert osc.default_thread_count() >= 1
    assert osc.status_string(2) == "OSC_ERR_PARSE"


def test_errors_carry_the_c_message():
    with pytest.raises(ValueError, match=r"osc_sdf_create_sphere: radius"):
        osc.SDF.sphere(-1.0)
    with pytest.raises(osc.InvalidArgumentError) as e:
        osc.Convex.sphere(float("nan"))
    assert e.value.status == 1 and "radius" in str(e.value)


def test_sigmoid_softplus_softclip_against_closed_forms():
    x = np.linspace(-3, 3, 13)
    tau = 0.7
    s = 1 / (1 + np.exp(-x / tau))
    v, d1, d2 = osc.sigmoid(x, tau, derivatives=True)
    np.testing.assert_allclose(v, s, rtol=1e-14)
    np.testing.assert_allclose(d1, s * (1 - s) / tau, rtol=1e-12)
    np.testing.assert_allclose(d2, s * (1 - s) * (1 - 2 * s) / tau**2, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(osc.softplus(x, tau), tau * np.log1p(np.exp(x / tau)), rtol=1e-14)
    sp = lambda y: tau * np.log1p(np.exp(y / tau))  # noqa: E731
    np.testing.assert_allclose(osc.softclip(x, -1, 2, tau), -1 + sp(x + 1) - sp(x - 2), rtol=1e-13)
    assert osc.sigmoid(0.3, 0.0) == 1.0 and osc.sigmoid(-0.3, 0.0) == 0.0
    assert osc.softplus(-2.0, 0.0) == 0.0
    with pytest.raises(ValueError):
        osc.softclip(x, 2, 1, tau)


def test_smooth_max_min_logsumexp_softmax():
    a, b, tau = np.array([0.1, 1.0]), np.array([0.3, -1.0]), 0.2
    v, g, h = osc.smooth_max(a, b, tau, derivatives=True)
    np.testing.assert_allclose(v, tau * np.log(np.exp(a / tau) + np.exp(b / tau)), rtol=1e-14)
    w = np.exp(a / tau) / (np.exp(a / tau) + np.exp(b / tau))
    np.testing.assert_allclose(g[:, 0], w, rtol=1e-13)
    np.testing.assert_allclose(g[:, 1], 1 - w, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h[:, 0, 0], w * (1 - w) / tau, rtol=1e-10)
    np.testing.assert_allclose(osc.smooth_min(a, b, tau), -tau * np.log(np.exp(-a / tau) + np.exp(-b / tau)),
                               rtol=1e-14)
    x = np.array([[0.1, 0.5, -0.2], [1.0, 1.0, 1.0]])
    v, w, h = osc.logsumexp(x, tau, derivatives=True)
    np.testing.assert_allclose(v, tau * np.log(np.exp(x / tau).sum(-1)), rtol=1e-14)
    sm = np.exp(x / tau) / np.exp(x / tau).sum(-1, keepdims=True)
    np.testing.assert_allclose(w, sm, rtol=1e-13)
    np.testing.assert_allclose(h, (np.einsum("ri,ij->rij", sm, np.eye(3)) - np.einsum("ri,rj->rij", sm, sm)) / tau,
                               rtol=1e-10, atol=1e-14)
    ws, j = osc.softmax(x, tau, derivatives=True)
    np.testing.assert_allclose(ws, sm, rtol=1e-13)
    np.testing.assert_allclose(j, h, rtol=1e-10, atol=1e-14)
    assert osc.logsumexp([1.0, 3.0, 2.0], 0.0) == 3.0


def test_transition_and_mollified_depth():
    d_max, bw = 0.02, 0.01
    d = np.array([-1.0, 0.005, 0.012, 0.015, 0.019, 0.02, 0.5])
    f = osc.transition(d, d_max, bw)
    s = np.clip((d - d_max + bw) / bw, 0, 1)
    np.testing.assert_allclose(f, 1 - (6 * s**5 - 15 * s**4 + 10 * s**3), atol=1e-15)
    m = osc.mollified_depth(d, d_max, bw)
    np.testing.assert_allclose(m, f * d + (1 - f) * d_max, atol=1e-15)
    h = 1e-7
    v, d1, _ = osc.mollified_depth(0.015, d_max, bw, derivatives=True)
    assert abs(d1 - (osc.mollified_depth(0.015 + h, d_max, bw) - osc.mollified_depth(0.015 - h, d_max, bw)) / (2 * h)) < 1e-6


def test_pq_conversion_refuses_quaternions_that_cannot_be_normalised():
    """A quaternion used as q / |q| must have a finite norm above 1e-150
    (osc_quat_is_normalizable, what every pose query requires). Before, a zero quaternion gave
    zero rotation columns, silently; a NaN one NaN, and one of norm 1e200 zeros."""
    j = np.arange(36.0).reshape(2, 3, 6)
    good = np.array([0.9, 0.2, -0.3, 0.4])
    for bad in ([0.0, 0.0, 0.0, 0.0], [np.nan, 0, 0, 1], [np.inf, 0, 0, 0], [1e-151, 0, 0, 0],
                [1e200, 0, 0, 0]):
        with pytest.raises(ValueError, match=r"quaternions\[1\] = .* cannot be normalised"):
            osc.twist_jacobian_to_pq(j, [good, bad])
        with pytest.raises(ValueError,
                           match=r"the quaternion of pose_b\[0\] = .* cannot be normalised"):
            osc.pair_jacobian_to_pq(np.zeros((1, 2, 12)), osc.pose(), np.r_[0.0, 0, 0, bad])
    # the edges of the range: finite answers, the rotation columns scaled by 1 / |q|
    unit = osc.twist_jacobian_to_pq(j[0], good / np.linalg.norm(good))
    for scale in (1e-149, 1e150):
        out = osc.twist_jacobian_to_pq(j[0], good / np.linalg.norm(good) * scale)
        assert np.all(np.isfinite(out))
        np.testing.assert_allclose(out[:, 3:] * scale, unit[:, 3:], rtol=1e-14)
        np.testing.assert_array_equal(out[:, :3], unit[:, :3])


def test_pose_helpers(rng):
    q = osc.axis_angle_quaternion([0, 0, 1], np.pi / 2)
    np.testing.assert_allclose(q, [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-15)
    p = osc.pose([1, 2, 3], q)
    moved = osc.apply_twist(p, [0.1, 0, 0, 0, 0, np.pi / 2])
    np.testing.assert_allclose(moved[:3], [1.1, 2, 3])
    np.testing.assert_allclose(np.abs(moved[3:]), [0, 0, 0, 1], atol=1e-15)  # a half turn about z
    # the pq conversion is the chain rule through q / |q|: check it on a scalar function
    u = np.array([0.3, -0.2, 0.5])
    pose = osc.pose([0.1, 0.2, 0.3], [0.9, 0.2, -0.3, 0.4])  # not normalised on purpose

    def rotated(pz):
        qq = pz[3:] / np.linalg.norm(pz[3:])
        w, x, y, z = qq
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        return R @ u + pz[:3]

    x = rotated(pose)
    rx = x - pose[:3]
    skew = np.array([[0, -rx[2], rx[1]], [rx[2], 0, -rx[0]], [-rx[1], rx[0], 0]])
    j_twist = np.hstack([np.eye(3), -skew])  # math.h: dx/dxi = [I | -[x - p]x]
    j_pq = osc.twist_jacobian_to_pq(j_twist, pose[3:])
    fd = np.stack([(rotated(pose + h) - rotated(pose - h)) / 2e-7 for h in np.eye(7) * 1e-7], -1)
    np.testing.assert_allclose(j_pq, fd, atol=1e-7)
    with pytest.raises(ValueError):
        osc.twist_jacobian_to_pq(np.zeros((3, 5)), pose[3:])
    with pytest.raises(ValueError):
        osc.pose([1, 2], [1, 0, 0, 0])
