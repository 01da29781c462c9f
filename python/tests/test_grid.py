import numpy as np
import pytest

import osculate as osc


@pytest.fixture(scope="module")
def sphere_grid():
    return osc.Grid.from_sdf(osc.SDF.sphere(0.5), resolution=32)


def test_spline_of_a_sphere(sphere_grid, rng):
    g = sphere_grid
    p = rng.uniform(-0.45, 0.45, size=(40, 3))
    v, grad, normal = g.eval(p, gradient=True, normal=True)
    r = np.linalg.norm(p, axis=1)
    keep = r > 0.1  # the sphere's distance has a kink at its centre, which the spline rounds
    assert np.max(np.abs(v - (r - 0.5))[keep]) < 2e-3
    assert np.max(np.abs(grad - p / r[:, None])[keep]) < 0.05
    # exact derivatives of the spline itself
    x = np.array([0.31, -0.12, 0.2])
    h = 1e-6
    fd = np.array([(g(x + e) - g(x - e)) / (2 * h) for e in np.eye(3) * h])
    value, gradient, hessian = g.eval_hessian(x)
    np.testing.assert_allclose(gradient, fd, atol=1e-7)
    fdh = np.array([(g.eval_hessian(x + e)[1] - g.eval_hessian(x - e)[1]) / (2 * h) for e in np.eye(3) * h])
    np.testing.assert_allclose(hessian, fdh, atol=1e-5)
    n, dn = g.normal(x)
    np.testing.assert_allclose(n, x / np.linalg.norm(x), atol=0.02)
    fdn = np.stack([(g.normal(x + e)[0] - g.normal(x - e)[0]) / (2 * h) for e in np.eye(3) * h], -1)
    np.testing.assert_allclose(dn, fdn, atol=1e-5)
    bound, centre, radius = g.lower_bound(x)
    assert bound <= g(x) and bound == pytest.approx(centre - radius)
    cells, size = g.cells
    assert cells.max() == 32 and size > 0 and g.lipschitz >= 1.0
    lo, hi = g.bounds
    assert np.all(lo < -0.5) and np.all(hi > 0.5)
    np.testing.assert_allclose(g.to_sdf().eval(p), v)


def test_save_load_bytes_and_damage(sphere_grid, tmp_path):
    path = tmp_path / "s.grid"
    sphere_grid.save(str(path))
    p = np.array([[0.1, 0.2, 0.3], [0.0, 0.7, 0.0]])
    np.testing.assert_array_equal(osc.Grid.load(str(path)).eval(p), sphere_grid.eval(p))
    data = path.read_bytes()
    np.testing.assert_array_equal(osc.Grid.from_bytes(data).eval(p), sphere_grid.eval(p))
    with pytest.raises(osc.ParseError):
        osc.Grid.from_bytes(data[: len(data) // 2])
    broken = bytearray(data)
    broken[len(broken) // 2] ^= 0xFF
    with pytest.raises(osc.ParseError):
        osc.Grid.from_bytes(bytes(broken))
    with pytest.raises(OSError):
        osc.Grid.load(str(tmp_path / "missing.grid"))


def test_grid_from_mesh_isosurface_collision_mesh():
    s = osc.SDF.sphere(0.5)
    iso = osc.isosurface(s, resolution=40)
    assert iso.topology["closed"] == 1
    assert iso.volume == pytest.approx(4 / 3 * np.pi * 0.125, rel=0.02)
    g = osc.Grid.from_mesh(iso, resolution=24)
    assert g([0.0, 0.0, 0.0]) == pytest.approx(-0.5, abs=0.01)
    g2 = osc.Grid.from_mesh((iso.vertices, iso.triangles), resolution=24)
    assert g2([0.7, 0, 0]) == pytest.approx(g([0.7, 0, 0]))
    cm = osc.collision_mesh(s, resolution=32, target_triangles=300)
    assert cm.triangle_count <= 300
    assert np.max(np.abs(np.linalg.norm(cm.vertices, axis=1) - 0.5)) < 0.01
    box = osc.isosurface(osc.SDF.halfspace([0, 0, 1], 0), lo=[-1, -1, -1], hi=[1, 1, 1], resolution=8)
    assert box.area == pytest.approx(4.0)
    with pytest.raises(ValueError):  # a half-space has no bounds to mesh
        osc.isosurface(osc.SDF.halfspace([0, 0, 1], 0))
    with pytest.raises(ValueError):
        osc.isosurface(s, resolution=1)
    with pytest.raises(ValueError):
        osc.Grid.from_sdf(s, resolution=2)
    with pytest.raises(ValueError):
        osc.isosurface(s, lo=[0, 0, 0])
