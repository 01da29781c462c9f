"""Pose helpers: pose_from_matrix (homogeneous transforms to [7] poses, checked against the rotation
that the pose's quaternion applies, through osculate.apply_twist's C quaternion arithmetic and a
DCOL support point) and pose_from_position_quaternion (both quaternion orders, named by the
caller; the identity written in the other order is refused)."""

import numpy as np
import pytest
from conftest import random_pose

import osculate as osc


def rotation(q):
    w, x, y, z = np.asarray(q) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrix(pose):
    t = np.eye(4)
    t[:3, :3] = rotation(pose[3:])
    t[:3, 3] = pose[:3]
    return t


def test_matrix_round_trip_every_pivot(rng):
    # angles near pi make x, y or z the largest pivot of Shepperd's method; small ones w
    poses = [random_pose(rng) for _ in range(20)]
    for axis in np.eye(3):
        for angle in (0.0, 0.3, np.pi - 1e-9, np.pi):
            poses.append(osc.pose(rng.normal(size=3), osc.axis_angle_quaternion(axis, angle)))
    poses = np.array(poses)
    got = osc.pose_from_matrix(np.array([matrix(p) for p in poses]))
    assert got.shape == poses.shape and np.all(got[:, 3] >= 0)
    np.testing.assert_array_equal(got[:, :3], poses[:, :3])
    # the same rotation: q or -q
    sign = np.sign(np.sum(got[:, 3:] * poses[:, 3:], axis=1))
    np.testing.assert_allclose(got[:, 3:], sign[:, None] * poses[:, 3:], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(got[:, 3:], axis=1), 1.0, atol=1e-15)
    # the pose moves a body point as the matrix does, through the library's own quaternions
    box = osc.Convex.box([0.3, 0.2, 0.1])
    for p, t in zip(got[:5], poses[:5]):
        d = np.array([0.3, -0.5, 0.8])
        corner = np.sign(rotation(t[3:]).T @ d) * [0.3, 0.2, 0.1]
        np.testing.assert_allclose(box.support(p, d), matrix(t)[:3, :3] @ corner + t[:3],
                                   atol=1e-12)
    assert osc.pose_from_matrix(np.eye(4)).tolist() == [0, 0, 0, 1, 0, 0, 0]
    assert osc.pose_from_matrix(np.zeros((2, 3, 4, 4)) + np.eye(4)).shape == (2, 3, 7)


def test_matrix_that_is_not_a_rigid_transform_is_refused():
    scaled = np.diag([2.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="not a rotation"):
        osc.pose_from_matrix(scaled)
    mirror = np.diag([1.0, 1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=r"matrix\[1\].*det R = -1"):
        osc.pose_from_matrix(np.stack([np.eye(4), mirror]))
    projective = np.eye(4)
    projective[3, 0] = 0.5
    with pytest.raises(ValueError, match="last row"):
        osc.pose_from_matrix(projective)
    with pytest.raises(ValueError, match="4, 4"):
        osc.pose_from_matrix(np.eye(3))
    with pytest.raises(ValueError, match="finite"):
        osc.pose_from_matrix(np.full((4, 4), np.nan))


def test_position_quaternion_in_both_orders(rng):
    q = rng.normal(size=(6, 4))
    p = rng.normal(size=(6, 3))
    wxyz = osc.pose_from_position_quaternion(p, q, order="wxyz")
    xyzw = osc.pose_from_position_quaternion(p, q[:, [1, 2, 3, 0]], order="xyzw")
    np.testing.assert_array_equal(wxyz, xyzw)
    np.testing.assert_allclose(wxyz[:, 3:], q / np.linalg.norm(q, axis=1, keepdims=True),
                               atol=1e-15)
    np.testing.assert_array_equal(wxyz[:, :3], p)
    # one position broadcast against many quaternions
    assert osc.pose_from_position_quaternion([0, 0, 1], q, order="wxyz").shape == (6, 7)
    # half turns are written unambiguously in the order that does not make them an identity
    half_z = osc.pose_from_position_quaternion([0, 0, 0], [0, 0, 1, 0], order="xyzw")
    np.testing.assert_array_equal(half_z[3:], [0, 0, 0, 1])
    half_x = osc.pose_from_position_quaternion([0, 0, 0], [0, 1, 0, 0], order="wxyz")
    np.testing.assert_array_equal(half_x[3:], [0, 1, 0, 0])


def test_the_identity_in_the_other_order_is_refused():
    with pytest.raises(ValueError, match=r"identity written in the other order \('xyzw'\).*"
                                         r"order='xyzw'"):
        osc.pose_from_position_quaternion([0, 0, 0], [0, 0, 0, 1], order="wxyz")
    with pytest.raises(ValueError, match=r"quaternion\[1\] = \[-1.0, 0.0, 0.0, 0.0\].*'wxyz'"):
        osc.pose_from_position_quaternion(np.zeros((2, 3)), [[0, 0, 0, 1], [-1, 0, 0, 0]],
                                          order="xyzw")
    with pytest.raises(TypeError):
        osc.pose_from_position_quaternion([0, 0, 0], [1, 0, 0, 0])  # the order must be named
    with pytest.raises(ValueError, match="scalar first"):
        osc.pose_from_position_quaternion([0, 0, 0], [1, 0, 0, 0], order="xyz")
    with pytest.raises(ValueError, match="cannot be normalised"):
        osc.pose_from_position_quaternion([0, 0, 0], [0, 0, 0, 0], order="wxyz")
    with pytest.raises(ValueError, match=r"\[\.\.\., 4\]"):
        osc.pose_from_position_quaternion([0, 0, 0], [1, 0, 0], order="wxyz")
