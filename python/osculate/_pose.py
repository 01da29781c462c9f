"""Poses (math.h): [7] arrays (px, py, pz, qw, qx, qy, qz), world-from-body, the quaternion scalar
first; their constructors, left twists, and the converters between Jacobians along twists and
Jacobians with respect to raw pose components."""

import numpy as np

from . import _ffi as F
from ._ffi import lib


def _index_label(index):
    """The label of an element of a batch for a message, "[1, 2]" ("" for a single one): plain
    integers, as NumPy 1 and 2 print them alike."""
    return str([int(k) for k in index]) if index else ""


def pose(position=(0.0, 0.0, 0.0), quaternion=(1.0, 0.0, 0.0, 0.0)):
    """A pose as a [7] array (px, py, pz, qw, qx, qy, qz)."""
    p = F.array(position, np.float64, (3,), "position")
    q = F.array(quaternion, np.float64, (4,), "quaternion")
    return np.concatenate([p, q])


_ORDERS = ("wxyz", "xyzw")


def pose_from_position_quaternion(position, quaternion, *, order):
    """Poses [..., 7] (px, py, pz, qw, qx, qy, qz) from positions [..., 3] and quaternions [..., 4]
    given in `order`: "wxyz" (scalar first: osculate, MuJoCo, Eigen's coefficients constructor)
    or "xyzw" (scalar last: ROS, SciPy's Rotation.as_quat, PyBullet, Isaac). `order` has no
    default: the two orders are both plausible for any unit 4-vector, so the caller names it.
    The quaternions are normalised (ValueError for one whose norm is zero, below 1e-150 or not
    finite). What can be detected of a wrong order is the identity: a quaternion exactly
    (0, 0, 0, +-1) given as "wxyz" is the identity written scalar last, and (+-1, 0, 0, 0) given
    as "xyzw" the identity written scalar first; both raise ValueError, since a half turn (what
    they would otherwise be) is written in the other order unambiguously. Any other unit
    quaternion is a valid rotation in both orders, so a wrong order there is not detectable."""
    if order not in _ORDERS:
        raise ValueError("order must be 'wxyz' (scalar first) or 'xyzw' (scalar last), got %r"
                         % (order,))
    p = F.floats(position, "position")
    q = F.floats(quaternion, "quaternion")
    if p.shape[-1:] != (3,) or q.shape[-1:] != (4,):
        raise ValueError("position [..., 3] and quaternion [..., 4] expected, got %s and %s"
                         % (p.shape, q.shape))
    if order == "wxyz":
        other, half_turn = np.array([0.0, 0.0, 0.0, 1.0]), ("z", "(0, 0, 1, 0)", "xyzw")
    else:
        other, half_turn = np.array([1.0, 0.0, 0.0, 0.0]), ("x", "(0, 1, 0, 0)", "wxyz")
    suspect = np.all(np.abs(q) == other, axis=-1)
    if suspect.any():
        index = np.unravel_index(int(np.flatnonzero(suspect.reshape(-1))[0]), q.shape[:-1])
        raise ValueError(
            "quaternion%s = %s is the identity written in the other order ('%s'); in "
            "order='%s' it would be a half turn about %s. Pass order='%s' if your quaternions "
            "are scalar %s; a half turn about %s is %s in order='%s'" % (
                _index_label(index), q[index].tolist(), _ORDERS[1 - _ORDERS.index(
                    order)], order, half_turn[0], _ORDERS[1 - _ORDERS.index(order)],
                "last" if order == "wxyz" else "first", half_turn[0], half_turn[1],
                half_turn[2]))
    if order == "xyzw":
        q = q[..., [3, 0, 1, 2]]
    n = np.sqrt(np.sum(q * q, axis=-1, keepdims=True))
    bad = ~(np.isfinite(n[..., 0]) & (n[..., 0] > 1e-150))
    if bad.any():
        index = np.unravel_index(int(np.flatnonzero(bad.reshape(-1))[0]), q.shape[:-1])
        raise ValueError("quaternion%s = %s cannot be normalised (its norm must be finite and "
                         "above 1e-150)" % (_index_label(index),
                                            np.asarray(quaternion, float)[index].tolist()))
    batch = np.broadcast_shapes(p.shape[:-1], q.shape[:-1])
    return np.concatenate([np.broadcast_to(p, batch + (3,)),
                           np.broadcast_to(q / n, batch + (4,))], axis=-1)


def pose_from_matrix(matrix, tolerance=1e-6):
    """Poses [..., 7] (px, py, pz, qw, qx, qy, qz) of homogeneous transforms [..., 4, 4]
    (world-from-body: the rotation R in the top-left 3 x 3 block, the translation in the last
    column), the quaternion with w >= 0 (Shepperd's method: the largest of the four
    pivots, so no branch loses precision). ValueError when the last row is not (0, 0, 0, 1) or
    when R is not a rotation within `tolerance` (|R^T R - I| or |det R - 1| above it: a scale,
    a shear or a reflection)."""
    m = F.floats(matrix, "matrix")
    if m.shape[-2:] != (4, 4):
        raise ValueError("matrix must have shape (..., 4, 4), got %s" % (m.shape,))
    r = m[..., :3, :3]
    if not np.all(np.isfinite(m)):
        raise ValueError("matrix must be finite")
    if np.abs(m[..., 3, :] - [0.0, 0.0, 0.0, 1.0]).max(initial=0.0) > tolerance:
        raise ValueError("matrix: the last row must be (0, 0, 0, 1)")
    ortho = np.abs(np.swapaxes(r, -1, -2) @ r - np.eye(3)).max(axis=(-1, -2), initial=0.0)
    det = np.linalg.det(r) if r.size else np.zeros(r.shape[:-2])
    bad = (ortho > tolerance) | (np.abs(det - 1.0) > tolerance)
    if bad.any():
        index = np.unravel_index(int(np.flatnonzero(bad.reshape(-1))[0]), r.shape[:-2])
        raise ValueError("matrix%s: the top-left 3 x 3 block is not a rotation (|R^T R - I| = "
                         "%.3g, det R = %.6g)" % (_index_label(index),
                                                  ortho[index], det[index]))
    t = np.trace(r, axis1=-2, axis2=-1)
    pivots = np.stack([t, r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]], axis=-1)
    k = np.argmax(pivots, axis=-1)
    q = np.empty(r.shape[:-2] + (4,))
    # k = 0: w largest
    s = np.sqrt(np.maximum(1.0 + t, 0.0)) * 2.0
    s = np.where(s == 0.0, 1.0, s)
    q0 = np.stack([0.25 * s, (r[..., 2, 1] - r[..., 1, 2]) / s, (r[..., 0, 2] - r[..., 2, 0]) / s,
                   (r[..., 1, 0] - r[..., 0, 1]) / s], axis=-1)
    cases = [q0]
    for i in range(3):  # the x, y or z pivot
        j, l = (i + 1) % 3, (i + 2) % 3
        s = np.sqrt(np.maximum(1.0 + r[..., i, i] - r[..., j, j] - r[..., l, l], 0.0)) * 2.0
        s = np.where(s == 0.0, 1.0, s)
        qi = np.empty(r.shape[:-2] + (4,))
        qi[..., 0] = (r[..., l, j] - r[..., j, l]) / s
        qi[..., 1 + i] = 0.25 * s
        qi[..., 1 + j] = (r[..., j, i] + r[..., i, j]) / s
        qi[..., 1 + l] = (r[..., l, i] + r[..., i, l]) / s
        cases.append(qi)
    q = np.choose(k[..., None], cases)
    q = np.where(q[..., :1] < 0.0, -q, q)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.concatenate([m[..., :3, 3], q], axis=-1)


def axis_angle_quaternion(axis, angle):
    """The unit quaternion (w, x, y, z) of a rotation by `angle` radians about `axis`."""
    a = F.array(axis, np.float64, (3,), "axis")
    n = np.linalg.norm(a)
    if not (n > 0 and np.isfinite(n)):
        raise ValueError("axis must be a non-zero finite vector, got %s" % (a,))
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * a / n])


def apply_twist(poses, twists):
    """Poses [.., 7] perturbed on the left by twists [.., 6] = (dp, dtheta): p + dp,
    exp(dtheta) q (osc_pose_apply_twist)."""
    p = F.floats(poses, "poses")
    x = F.floats(twists, "twists")
    if p.shape[-1:] != (7,) or x.shape[-1:] != (6,) or p.shape[:-1] != x.shape[:-1]:
        raise ValueError("apply_twist: poses [..., 7] and twists [..., 6] must match, got %s and %s"
                         % (p.shape, x.shape))
    out = np.empty_like(p)
    lib.oscpy_pose_apply_twist(F.ptr(p), F.ptr(x), p.size // 7, F.ptr(out))
    return out


def twist_jacobian_to_pq(jacobian, quaternions):
    """Converts Jacobians along a body's left twist, [..., rows, 6], into Jacobians with respect to
    its raw pose parameters (px, py, pz, qw, qx, qy, qz), [..., rows, 7], for quaternions [..., 4]
    used as q / |q| (osc_twist_jacobian_to_pq). ValueError naming the first quaternion that cannot
    be normalised (a norm that is zero, below 1e-150, or not finite), whose derivative does not
    exist."""
    return _twist_jacobian_to_pq(jacobian, quaternions, "twist_jacobian_to_pq", "quaternions")


def _twist_jacobian_to_pq(jacobian, quaternions, where, name, pose=False):
    """twist_jacobian_to_pq for `where`, its quaternions named `name` (the quaternions of poses
    `name` when `pose`) in its messages."""
    j = F.floats(jacobian, "jacobian")
    q = F.floats(quaternions, name)
    if j.ndim < 2 or j.shape[-1] != 6 or q.shape[-1:] != (4,) or q.shape[:-1] != j.shape[:-2]:
        raise ValueError("%s: jacobian [..., rows, 6] and %s [..., 4] must match, got %s and %s"
                         % (where, name, j.shape, q.shape))
    rows = F.integer(j.shape[-2], "%s: rows" % where)
    count = q.size // 4
    out = np.empty(j.shape[:-1] + (7,))
    bad = lib.oscpy_twist_jacobian_to_pq(F.ptr(j), count, rows, F.ptr(q), F.ptr(out))
    if bad != count:
        index = np.unravel_index(bad, q.shape[:-1])
        label = name + _index_label(index)
        raise ValueError("%s: %s%s = %s cannot be normalised (its norm must be finite and above "
                         "1e-150)" % (where, "the quaternion of " if pose else "", label,
                                      q[index].tolist()))
    return out


def pair_jacobian_to_pq(jacobian, pose_a, pose_b):
    """A pair query's Jacobian [..., rows, 12] (A's twist, then B's) as [..., rows, 14]: the
    derivatives with respect to (pose_a, pose_b), each (px, py, pz, qw, qx, qy, qz), quaternions
    used as q / |q|. ValueError naming a pose whose quaternion cannot be normalised."""
    where = "pair_jacobian_to_pq"
    j = F.floats(jacobian, "jacobian")
    if j.ndim < 2 or j.shape[-1] != 12:
        raise ValueError("pair_jacobian_to_pq: jacobian must have shape (..., rows, 12), got %s"
                         % (j.shape,))
    try:
        pa = np.broadcast_to(F.floats(pose_a, "pose_a"), j.shape[:-2] + (7,))
        pb = np.broadcast_to(F.floats(pose_b, "pose_b"), j.shape[:-2] + (7,))
    except ValueError as e:
        raise ValueError("pair_jacobian_to_pq: poses [..., 7] must match the jacobian's leading "
                         "axes %s: %s" % (j.shape[:-2], e)) from None
    return np.concatenate([_twist_jacobian_to_pq(j[..., :6], pa[..., 3:], where, "pose_a", True),
                           _twist_jacobian_to_pq(j[..., 6:], pb[..., 3:], where, "pose_b", True)],
                          axis=-1)


def _twist_of_quaternion(q):
    """M [..., 4, 3] = dq / dtheta for q -> exp(dtheta) q (a left rotation increment in world
    coordinates): 1/2 [-v^T; w I - [v]x], v the vector part. The inverse of the G of
    osc_quat_to_twist_jacobian (G M = I for any q that can be normalised), so J_pq M is the twist
    Jacobian of a function of q / |q|."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (4, 3))
    m[..., 0, :] = np.stack([-x, -y, -z], axis=-1)
    m[..., 1, :] = np.stack([w, z, -y], axis=-1)
    m[..., 2, :] = np.stack([-z, w, x], axis=-1)
    m[..., 3, :] = np.stack([y, -x, w], axis=-1)
    return 0.5 * m


def _pq_jacobian_to_twist(j, q, where, name, pose=False):
    norms = np.sqrt(np.sum(q * q, axis=-1))
    bad = ~(np.isfinite(norms) & (norms > 1e-150))
    if bad.any():
        index = np.unravel_index(int(np.flatnonzero(bad.reshape(-1))[0]), q.shape[:-1])
        label = name + (_index_label(index))
        raise ValueError("%s: %s%s = %s cannot be normalised (its norm must be finite and above "
                         "1e-150)" % (where, "the quaternion of " if pose else "", label,
                                      q[index].tolist()))
    out = np.empty(j.shape[:-1] + (6,))
    out[..., :3] = j[..., :3]
    out[..., 3:] = np.einsum("...rk,...kc->...rc", j[..., 3:], _twist_of_quaternion(q))
    return out


def pq_jacobian_to_twist(jacobian, quaternions):
    """The inverse of twist_jacobian_to_pq: a Jacobian with respect to one body's raw pose
    parameters (px, py, pz, qw, qx, qy, qz), [..., rows, 7], as a Jacobian along its left twist
    (dp, dtheta), [..., rows, 6], for quaternions [..., 4] used as q / |q| (the columns of
    jax.grad or torch's .grad with respect to a [7] pose, as the NumPy API returns them). Exact for
    a function of q / |q|, whose Jacobian has no component along q. ValueError naming the first
    quaternion that cannot be normalised."""
    j = F.floats(jacobian, "jacobian")
    q = F.floats(quaternions, "quaternions")
    if j.ndim < 2 or j.shape[-1] != 7 or q.shape[-1:] != (4,) or q.shape[:-1] != j.shape[:-2]:
        raise ValueError("pq_jacobian_to_twist: jacobian [..., rows, 7] and quaternions [..., 4] "
                         "must match, got %s and %s" % (j.shape, q.shape))
    return _pq_jacobian_to_twist(j, q, "pq_jacobian_to_twist", "quaternions")


def pair_jacobian_to_twist(jacobian, pose_a, pose_b):
    """The inverse of pair_jacobian_to_pq: a Jacobian [..., rows, 14] with respect to the raw
    poses (pose_a's 7 components, then pose_b's) as the package's twist columns [..., rows, 12]
    (A's twist (dp, dtheta), then B's). ValueError naming a pose whose quaternion cannot be
    normalised."""
    where = "pair_jacobian_to_twist"
    j = F.floats(jacobian, "jacobian")
    if j.ndim < 2 or j.shape[-1] != 14:
        raise ValueError("pair_jacobian_to_twist: jacobian must have shape (..., rows, 14), got %s"
                         % (j.shape,))
    try:
        pa = np.broadcast_to(F.floats(pose_a, "pose_a"), j.shape[:-2] + (7,))
        pb = np.broadcast_to(F.floats(pose_b, "pose_b"), j.shape[:-2] + (7,))
    except ValueError as e:
        raise ValueError("pair_jacobian_to_twist: poses [..., 7] must match the jacobian's leading "
                         "axes %s: %s" % (j.shape[:-2], e)) from None
    return np.concatenate([_pq_jacobian_to_twist(j[..., :7], pa[..., 3:], where, "pose_a", True),
                           _pq_jacobian_to_twist(j[..., 7:], pb[..., 3:], where, "pose_b", True)],
                          axis=-1)
