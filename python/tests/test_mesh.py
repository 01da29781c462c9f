import numpy as np
import pytest

import osculate as osc

CUBE_V = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float) * 0.5
CUBE_T = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                   [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])


def cube():
    m = osc.Mesh(CUBE_V, CUBE_T)
    if m.volume < 0:  # orient outward
        m = osc.Mesh(CUBE_V, CUBE_T[:, ::-1])
    return m


def test_cube_properties():
    m = cube()
    assert (m.vertex_count, m.triangle_count, m.edge_count) == (8, 12, 18)
    assert m.volume == pytest.approx(1.0) and m.area == pytest.approx(6.0)
    np.testing.assert_array_equal(m.vertices, CUBE_V)
    t = m.topology
    assert t["closed"] == 1 and t["euler_characteristic"] == 2 and t["components"] == 1
    e = m.edges
    assert np.all(e[:, 0] < e[:, 1]) and len(np.unique(e, axis=0)) == 18
    assert np.all(m.edge_triangles >= 0)


def test_obj_round_trip_and_bytes(tmp_path):
    m = cube()
    path = tmp_path / "cube.obj"
    m.write_obj(str(path))
    back = osc.Mesh.load(str(path))
    np.testing.assert_array_equal(back.vertices, m.vertices)
    np.testing.assert_array_equal(back.triangles, m.triangles)
    assert back.load_report["faces_read"] == 12
    again = osc.Mesh.from_bytes(path.read_bytes(), format="obj")
    assert again.triangle_count == 12


def test_parse_and_io_errors(tmp_path):
    with pytest.raises(osc.ParseError):
        osc.Mesh.from_bytes(b"v 0 0 0\nv 1 0 0\nf 1 2 9\n", format="obj")
    with pytest.raises(osc.ParseError):
        osc.Mesh.from_bytes(b"ply\nformat ascii 1.0\nelement vertex 99\n", format="ply")
    with pytest.raises(OSError):
        osc.Mesh.load(str(tmp_path / "missing.obj"))
    with pytest.raises(ValueError):
        osc.Mesh.load(str(tmp_path / "x.obj"), format="dxf")
    with pytest.raises(TypeError):
        osc.Mesh.load(str(tmp_path / "x.obj"), colour=1)


def test_bad_arrays_raise():
    with pytest.raises(ValueError):
        osc.Mesh(CUBE_V, CUBE_T + 10)  # out of range
    bad = CUBE_V.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="vertices"):
        osc.Mesh(bad, CUBE_T)
    with pytest.raises(ValueError):
        osc.Mesh(CUBE_V[:, :2], CUBE_T)
    with pytest.raises(ValueError):
        osc.Mesh(CUBE_V, CUBE_T.astype(float) + 0.5)
    with pytest.raises(ValueError):
        osc.Mesh(CUBE_V, np.array([[0, 0, 1]]))  # repeats a vertex
    with pytest.raises(ValueError):
        osc.Mesh(CUBE_V, [[0, 1, 2 ** 40]])


def test_bvh_closest_signed_distance_winding():
    bvh = cube().bvh()
    c = bvh.closest([2.0, 0.1, 0.2])
    np.testing.assert_allclose(c["point"], [0.5, 0.1, 0.2])
    assert c["distance"] == pytest.approx(1.5) and c["feature"] == 0
    p = np.array([[0.0, 0.0, 0.0], [2.0, 0.1, 0.2], [1.0, 1.0, 0.0]])
    d, cp = bvh.signed_distance(p, closest_points=True)
    np.testing.assert_allclose(d, [-0.5, 1.5, np.sqrt(0.5)], rtol=1e-12)
    np.testing.assert_allclose(cp[2], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(bvh.winding_number(p[:2], beta=4.0), [1.0, 0.0], atol=1e-6)
    lo, hi = bvh.bounds
    np.testing.assert_allclose(hi, [0.5, 0.5, 0.5])


def test_simplify_reorder_groups():
    sphere = osc.isosurface(osc.SDF.sphere(0.5), resolution=24)
    simple, err = sphere.simplify(target_triangles=200)
    assert simple.triangle_count <= 200 and err >= 0
    assert simple.topology["closed"] == 1 and simple.topology["euler_characteristic"] == 2
    re, vo, eo = sphere.reorder("morton")
    np.testing.assert_array_equal(re.vertices, sphere.vertices[vo])
    assert sorted(eo) == list(range(sphere.edge_count))
    order = osc.curve_order(sphere.vertices, "hilbert")
    assert sorted(order) == list(range(sphere.vertex_count))
    g, n = sphere.groups_cluster(4)
    assert n == 4 and set(g) == {0, 1, 2, 3}
    eg = sphere.edge_groups(g)
    e = sphere.edges
    np.testing.assert_array_equal(eg[:, 0], g[e[:, 0]])
    np.testing.assert_array_equal(eg[:, 1], np.where(g[e[:, 1]] == g[e[:, 0]], -1, g[e[:, 1]]))
    hg = sphere.groups_from_hulls([cube()])
    assert np.all(hg == 0)
