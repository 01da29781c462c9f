import numpy as np
import pytest

import osculate as osc

R = 2.0  # sphere sag radius: x = R - sqrt(R^2 - r^2), centre (R, 0, 0)


def sphere_hit(origin, direction):
    """Closed-form hit of origin + t direction with the vertex-side cap of that sphere."""
    o = np.asarray(origin, float) - [R, 0, 0]
    d = np.asarray(direction, float)
    a, b, c = d @ d, 2 * o @ d, o @ o - R * R
    t = (-b - np.sqrt(b * b - 4 * a * c)) / (2 * a)
    x = origin + t * d
    n = x - [R, 0, 0]
    return t, x, n / np.linalg.norm(n)  # grad F of F = g(r) - x: (-1, 0, 0) at the vertex


def test_sag_sphere_closed_form(rng):
    lens = osc.Implicit.sag(1 / R, diameter=1.5)
    origins = np.c_[np.full(20, -1.0), rng.uniform(-0.5, 0.5, size=(20, 2))]
    directions = np.c_[np.ones(20), rng.uniform(-0.1, 0.1, size=(20, 2))]
    for numeric in (1, 0):  # closed-form conic and the iterative phases
        t, points, normals, hits = osc.ray_intersect_batch(lens, origins, directions, analytic_conics=numeric)
        assert hits.all()
        for i in range(20):
            te, xe, ne = sphere_hit(origins[i], directions[i])
            assert t[i] == pytest.approx(te, abs=1e-9)
            np.testing.assert_allclose(points[i], xe, atol=1e-9)
            np.testing.assert_allclose(normals[i], ne, atol=1e-9)
    one = osc.ray_intersect(lens, origins[3], directions[3], analytic_conics=0)  # as the last batch
    assert one.hit and not one.grazing and one.t == t[3] and np.array_equal(one.point, points[3])
    assert osc.ray_intersect(lens, [-1, 2.0, 0], [1, 0, 0]).hit is False  # outside the aperture
    g, dg = lens.sag_value(0.5)
    assert g == pytest.approx(R - np.sqrt(R * R - 0.25)) and dg == pytest.approx(0.5 / np.sqrt(R * R - 0.25))
    value, grad, hess = lens.eval([0.1, 0.3, 0.0])
    assert value == pytest.approx(g_of(0.3) - 0.1)
    assert lens.in_domain([0, 0.7, 0]) and not lens.in_domain([0, 0.8, 0])


def g_of(r):
    return R - np.sqrt(R * R - r * r)


def test_transform_and_sdf_surface():
    ball = osc.Implicit.from_sdf(osc.SDF.sphere(0.5))
    h = osc.ray_intersect(ball, [-2.0, 0.1, 0.0], [1, 0, 0])
    assert h.hit and h.point[0] == pytest.approx(-np.sqrt(0.25 - 0.01), abs=1e-9)
    moved = osc.ray_intersect(ball, [-2.0, 0.1, 0.0], [1, 0, 0],
                              transform=osc.transform(translation=[0.5, 0, 0], scale=2.0))
    assert moved.point[0] == pytest.approx(0.5 - 2 * np.sqrt(0.25 - 0.0025), abs=1e-9)
    c, r = ball.bounding_sphere
    assert r >= 0.5


def test_jacobians_match_differences():
    co = [0.01, -0.02]
    params = np.array([1 / R, -0.5] + co)
    origin, direction = np.array([-1.0, 0.2, -0.1]), np.array([1.0, 0.05, 0.02])
    tr = osc.transform(translation=[0.1, 0.0, 0.05], rotation=osc.axis_angle_quaternion([0, 1, 0], 0.05))

    def run(prm=params, o=origin, d=direction, t=tr):
        return osc.ray_intersect(osc.Implicit.sag(prm[0], 1.5, prm[1], prm[2:]), o, d, transform=t,
                                 derivatives=True)

    h = run()
    j = h.jacobians
    eps = 1e-6

    def fd(fn, x):
        cols = []
        for e in np.eye(len(x)) * eps:
            a, b = fn(x + e), fn(x - e)
            cols.append([(a.t - b.t) / (2 * eps), (a.point - b.point) / (2 * eps), (a.normal - b.normal) / (2 * eps)])
        return [np.stack([c[k] for c in cols], axis=-1) for k in range(3)]

    for name, x, fn in (("origin", origin, lambda v: run(o=v)), ("direction", direction, lambda v: run(d=v)),
                        ("parameters", params, lambda v: run(prm=v))):
        ft, fp, fn_ = fd(fn, x)
        np.testing.assert_allclose(j["t_" + name], ft, atol=2e-6, err_msg=name)
        np.testing.assert_allclose(j["point_" + name], fp, atol=2e-6, err_msg=name)
        np.testing.assert_allclose(j["normal_" + name], fn_, atol=2e-5, err_msg=name)
    # the surface pose: a left twist of the transform's translation and rotation
    cols = []
    for k in range(6):
        xi = np.zeros(6)
        xi[k] = eps
        pose = osc.pose(tr["translation"], tr["rotation"])
        plus, minus = osc.apply_twist(pose, xi), osc.apply_twist(pose, -xi)
        a = run(t=osc.transform(translation=plus[:3], rotation=plus[3:]))
        b = run(t=osc.transform(translation=minus[:3], rotation=minus[3:]))
        cols.append((a.point - b.point) / (2 * eps))
    np.testing.assert_allclose(j["point_surface_pose"], np.stack(cols, -1), atol=2e-6)
    many = osc.ray_intersect_many(osc.Implicit.sag(params[0], 1.5, params[1], params[2:]),
                                  np.tile(origin, (3, 1)), np.tile(direction, (3, 1)), transform=tr,
                                  derivatives=True)
    assert np.array_equal(many["point_parameters"][2], j["point_parameters"])


def test_user_surface_and_errors():
    def ball(x):
        return x @ x - 0.25, 2 * x

    user = osc.Implicit.function(ball, [0, 0, 0], 0.6)
    h = osc.ray_intersect(user, [-2.0, 0.1, 0.0], [1, 0, 0])
    assert h.hit and h.point[0] == pytest.approx(-np.sqrt(0.24), abs=1e-9)
    t, _, _, hits = osc.ray_intersect_batch(user, [[-2.0, 0.1, 0.0]] * 4, [[1, 0, 0]] * 4, threads=2)
    assert hits.all() and np.allclose(t, 2 - np.sqrt(0.24))

    def broken(x):
        raise KeyError("surface failed")

    with pytest.raises(KeyError):
        osc.ray_intersect(osc.Implicit.function(broken, [0, 0, 0], 1.0), [-2, 0, 0], [1, 0, 0])
    lens = osc.Implicit.sag(0.5, diameter=1.0)
    with pytest.raises(ValueError, match="direction"):
        osc.ray_intersect(lens, [-1, 0, 0], [0, 0, 0])
    with pytest.raises(ValueError):
        osc.ray_intersect(lens, [np.nan, 0, 0], [1, 0, 0])
    with pytest.raises(ValueError):
        osc.ray_intersect(lens, [-1, 0, 0], [1, 0, 0], beams=0)
    with pytest.raises(ValueError):
        osc.ray_intersect(lens, [-1, 0, 0], [1, 0, 0], coarse=dict(algorithm="bisection"))
    with pytest.raises(ValueError):
        osc.ray_intersect(lens, [-1, 0, 0], [1, 0, 0], transform=osc.transform(scale=0))
    with pytest.raises(ValueError):
        osc.Implicit.sag(0.5, diameter=5.0)  # beyond the sphere
    with pytest.raises(ValueError):
        osc.Implicit.sag(0.5, diameter=1.0, coefficients=np.zeros(9))
    with pytest.raises(ValueError):
        osc.ray_intersect_batch(lens, np.zeros((3, 3)), np.ones((2, 3)))
    s = osc.ray_settings(beams=2, fine=dict(iterations=5))
    assert s["beams"] == 2 and s["fine"]["iterations"] == 5 and s["fine"]["algorithm"] == 0
