"""One meaning of Jacobian columns across the front ends. The NumPy API returns 12 twist columns
per pair (A's left twist (dp, dtheta), then B's: the C convention); autodiff in JAX and PyTorch
differentiates with respect to the raw [7] poses (p, q). osculate converts both ways
(pair_jacobian_to_pq / pair_jacobian_to_twist, and per body twist_jacobian_to_pq /
pq_jacobian_to_twist); here both directions are checked against central finite differences of a
query, in raw components and along twists, with a quaternion that is not of unit norm."""

import numpy as np
import pytest
from conftest import fd_twist

import osculate as osc


def _pair():
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    pa = osc.pose([0.05, -0.02, 0.01], 1.3 * osc.axis_angle_quaternion([1, 2, 3], 0.4))
    pb = osc.pose([0.8, 0.25, 0.1], 0.7 * osc.axis_angle_quaternion([0, 1, 0.3], 1.2))
    return a, pa, b, pb


def _outputs(r):
    return np.concatenate([[r.distance, r.alpha], r.point, r.normal])


def _jacobian(r):
    return np.concatenate([r.distance_jacobian[None], r.alpha_jacobian[None], r.point_jacobian,
                           r.normal_jacobian])


def fd_raw(f, pose, eps=1e-6):
    """Central differences of f(pose) along each raw pose component: [*f.shape, 7]."""
    cols = []
    for k in range(7):
        d = np.zeros(7)
        d[k] = eps
        cols.append((np.asarray(f(pose + d)) - np.asarray(f(pose - d))) / (2 * eps))
    return np.stack(cols, axis=-1)


def test_both_directions_match_finite_differences():
    a, pa, b, pb = _pair()
    r = osc.dcol(a, pa, b, pb, derivatives=True, tolerance=1e-6)
    twist = _jacobian(r)  # [8, 12]

    def f_a(p):
        return _outputs(osc.dcol(a, p, b, pb, tolerance=1e-6))

    def f_b(p):
        return _outputs(osc.dcol(a, pa, b, p, tolerance=1e-6))

    fd_twist_cols = np.concatenate([fd_twist(f_a, pa), fd_twist(f_b, pb)], axis=-1)
    fd_raw_cols = np.concatenate([fd_raw(f_a, pa), fd_raw(f_b, pb)], axis=-1)
    np.testing.assert_allclose(twist, fd_twist_cols, atol=2e-6)
    # twist columns -> raw columns, and raw columns (from differences alone) -> twist columns
    np.testing.assert_allclose(osc.pair_jacobian_to_pq(twist, pa, pb), fd_raw_cols, atol=2e-6)
    np.testing.assert_allclose(osc.pair_jacobian_to_twist(fd_raw_cols, pa, pb), fd_twist_cols,
                               atol=2e-6)
    # per body
    np.testing.assert_allclose(osc.pq_jacobian_to_twist(fd_raw(f_b, pb), pb[3:]), fd_twist(f_b, pb),
                               atol=2e-6)
    np.testing.assert_allclose(osc.twist_jacobian_to_pq(fd_twist(f_a, pa), pa[3:]), fd_raw(f_a, pa),
                               atol=2e-6)


def test_round_trips_and_batches(rng):
    q = rng.normal(size=(5, 4)) * rng.uniform(0.2, 3.0, size=(5, 1))
    j = rng.normal(size=(5, 3, 6))
    # twist -> raw -> twist is the identity; raw -> twist -> raw drops only the component along q
    np.testing.assert_allclose(osc.pq_jacobian_to_twist(osc.twist_jacobian_to_pq(j, q), q), j,
                               atol=1e-12)
    raw = rng.normal(size=(5, 3, 7))
    back = osc.twist_jacobian_to_pq(osc.pq_jacobian_to_twist(raw, q), q)
    unit = q / np.linalg.norm(q, axis=-1, keepdims=True)
    along = np.einsum("nrk,nk->nr", raw[..., 3:], unit)
    np.testing.assert_allclose(back[..., 3:], raw[..., 3:] - along[..., None] * unit[:, None, :],
                               atol=1e-12)
    np.testing.assert_array_equal(back[..., :3], raw[..., :3])
    # a pair Jacobian over a batch of poses
    pa, pb = np.tile(osc.pose(), (5, 1)), np.concatenate([rng.normal(size=(5, 3)), q], axis=1)
    j12 = rng.normal(size=(5, 2, 12))
    np.testing.assert_allclose(osc.pair_jacobian_to_twist(osc.pair_jacobian_to_pq(j12, pa, pb), pa,
                                                          pb), j12, atol=1e-12)


def test_bad_quaternions_and_shapes_are_refused():
    with pytest.raises(ValueError, match="the quaternion of pose_b"):
        osc.pair_jacobian_to_twist(np.zeros((1, 14)), osc.pose(), np.zeros(7))
    with pytest.raises(ValueError, match=r"quaternions\[1\]"):
        osc.pq_jacobian_to_twist(np.zeros((2, 1, 7)), [[1, 0, 0, 0], [np.nan, 0, 0, 0]])
    with pytest.raises(ValueError, match="rows, 14"):
        osc.pair_jacobian_to_twist(np.zeros((1, 12)), osc.pose(), osc.pose())


def test_autodiff_gradients_are_the_numpy_twist_columns():
    """jax.grad and torch's backward of a DCOL distance, with respect to the raw poses, turned into
    twist columns, are the NumPy API's distance_jacobian."""
    a, pa, b, pb = _pair()
    expect = osc.dcol(a, pa, b, pb, derivatives=True).distance_jacobian
    checked = 0
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        import osculate.jax as oj
        ga, gb = jax.grad(lambda p, q: oj.dcol(a, p, b, q)["distance"], argnums=(0, 1))(
            jnp.asarray(pa), jnp.asarray(pb))
        got = osc.pair_jacobian_to_twist(np.concatenate([ga, gb])[None], pa, pb)[0]
        np.testing.assert_allclose(got, expect, atol=1e-12)
        checked += 1
    except ImportError:
        pass
    try:
        import torch
        import osculate.torch as ot
        ta = torch.tensor(pa, requires_grad=True)
        tb = torch.tensor(pb, requires_grad=True)
        ot.dcol(a, ta, b, tb)["distance"].backward()
        got = osc.pair_jacobian_to_twist(np.concatenate([ta.grad.numpy(), tb.grad.numpy()])[None],
                                         pa, pb)[0]
        np.testing.assert_allclose(got, expect, atol=1e-12)
        checked += 1
    except ImportError:
        pass
    if not checked:
        pytest.skip("neither JAX nor PyTorch is importable")
