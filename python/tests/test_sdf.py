import numpy as np
import pytest

import osculate as osc


def fd_gradient(f, x, h=1e-6):
    return np.array([(f(x + e) - f(x - e)) / (2 * h) for e in np.eye(3) * h])


def test_sphere_and_box_closed_forms(rng):
    s = osc.SDF.sphere(0.5)
    p = rng.normal(size=(50, 3))
    v, g, h = s.eval(p, gradient=True, hessian=True)
    r = np.linalg.norm(p, axis=1)
    np.testing.assert_allclose(v, r - 0.5, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(g, p / r[:, None], rtol=1e-13)
    expect_h = (np.eye(3)[None] - np.einsum("ni,nj->nij", p, p) / r[:, None, None] ** 2) / r[:, None, None]
    np.testing.assert_allclose(h, expect_h, atol=1e-12)
    assert s([1.0, 0, 0]) == 0.5  # a single point gives a scalar
    b = osc.SDF.box([0.3, 0.2, 0.1])
    np.testing.assert_allclose(b.eval([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.3, 1.2, 0.0]]),
                               [0.7, -0.1, np.hypot(1.0, 1.0)], rtol=1e-14)
    lo, hi = b.bounds
    np.testing.assert_allclose(lo, [-0.3, -0.2, -0.1])
    np.testing.assert_allclose(hi, [0.3, 0.2, 0.1])
    assert b.lipschitz == 1.0 and b.lipschitz_is_bound and b.leaf_count == 1


def test_every_primitive_gradient_matches_differences(rng):
    models = [
        osc.SDF.box([0.3, 0.2, 0.1], rounding=0.05),
        osc.SDF.capsule(0.2, 0.3), osc.SDF.cylinder(0.2, 0.3), osc.SDF.cone(0.3, 0.1, 0.2),
        osc.SDF.torus(0.5, 0.1), osc.SDF.ellipsoid([0.3, 0.2, 0.4]),
        osc.SDF.superquadric([0.3, 0.2, 0.4], 0.5, 0.8),
        osc.SDF.psq([0.3, 0.3, 0.3], 0.6, 0.6, planes=[[0, 0, 1, -0.1]], temperature=0.01),
        osc.SDF.xpsq(control_points=[[0, 0, -0.5], [0.2, 0, 0], [0, 0, 0.5]],
                     scale=[0.1, 0.1, 0.1], exponent=[1.0, 1.0]),
        osc.SDF.menger(0.5, 2), osc.SDF.halfspace([0, 0, 2], 0.1),
    ]
    p = rng.uniform(-0.7, 0.7, size=(20, 3)) + 0.013  # away from the symmetric medial planes
    for m in models:
        v, g = m.eval(p, gradient=True)
        fd = np.array([fd_gradient(m.eval, x) for x in p])
        assert np.nanmax(np.abs(g - fd)) < 2e-5, m
    # the plane 2 z + 0.1 = 0 normalised: (2 z + 0.1) / 2
    assert osc.SDF.halfspace([0, 0, 2], 0.1)([0, 0, 1.0]) == pytest.approx(1.05)


def test_superquadric_with_unit_exponents_is_an_ellipsoid_shape():
    sq = osc.SDF.superquadric([0.5, 0.5, 0.5], 1.0, 1.0)
    p = np.array([[1.0, 0.2, -0.3], [0.1, 0.05, 0.0]])
    np.testing.assert_allclose(sq.eval(p), np.linalg.norm(p, axis=1) - 0.5, atol=1e-12)


def test_csg_transform_offset():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.6])
    p = np.array([[0.3, 0.2, 0.1], [1.0, 0.0, 0.0], [0.0, 0.0, 0.9]])
    va, vb = a.eval(p), b.eval(p)
    np.testing.assert_allclose(osc.SDF.union([a, b]).eval(p), np.minimum(va, vb))
    np.testing.assert_allclose((a | b).eval(p), np.minimum(va, vb))
    np.testing.assert_allclose((a & b).eval(p), np.maximum(va, vb))
    np.testing.assert_allclose((a - b).eval(p), np.maximum(va, -vb))
    tau = 0.05
    np.testing.assert_allclose(osc.SDF.union([a, b], tau).eval(p),
                               -tau * np.log(np.exp(-va / tau) + np.exp(-vb / tau)), rtol=1e-12)
    u = osc.SDF.union([a, b], tau)
    assert u.leaf_count == 2
    v0, g0, _ = u.eval_leaf(0, p[1])
    assert v0 == pytest.approx(0.5) and np.allclose(g0, [1, 0, 0])
    with pytest.raises(ValueError):
        u.eval_leaf(2, p[1])
    q = osc.axis_angle_quaternion([0, 0, 1], np.pi / 2)
    t = b.transformed(osc.pose([1, 0, 0], q), scale=2.0)
    x = np.array([1.5, 0.3, 0.2])
    local = np.array([0.3, -0.5, 0.2]) / 2.0  # R^T (x - p) / s with R a quarter turn about z
    assert t(x) == pytest.approx(2.0 * b(local), abs=1e-14)
    assert a.offset(0.1)(p[1]) == pytest.approx(va[1] - 0.1)
    # inputs are copied: the combination survives its children
    c = osc.SDF.union([osc.SDF.sphere(1.0), osc.SDF.sphere(2.0)])
    import gc
    gc.collect()
    assert c([3.0, 0, 0]) == pytest.approx(1.0)


def test_bad_input_raises():
    s = osc.SDF.sphere(0.5)
    with pytest.raises(ValueError):
        s.eval(np.zeros((4, 2)))
    with pytest.raises(ValueError):
        s.eval("not points")
    with pytest.raises(ValueError):
        osc.SDF.box([0.1, 0.2])
    with pytest.raises(ValueError):
        osc.SDF.union([s, "x"])
    with pytest.raises(ValueError):
        osc.SDF.union([])
    with pytest.raises(ValueError):
        osc.SDF.superquadric([1, 1, 1], 5.0, 1.0)
    with pytest.raises(ValueError):
        osc.SDF.xpsq(frame="sideways")
    with pytest.raises(ValueError):
        s.transformed([0, 0, 0, 0, 0, 0, 0])  # a quaternion that cannot be normalised
    assert np.isnan(s([np.nan, 0, 0]))  # NaN points evaluate to NaN, as documented
