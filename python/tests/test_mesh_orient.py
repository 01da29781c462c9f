"""Mesh orientation and closedness (Mesh.orientation, Mesh.oriented(), the importers' orient
setting and report, Grid.from_mesh's refusal of a mesh whose sign would be wrong). The meshes are
cubes of n x n quads per face built as arrays, some quads flipped or left out, as in
tests/test_mesh_orient.c, whose counts (test_orientation_counts, n = 4) are the expectations; the
oracle of the signs is the cube's own inside."""

import numpy as np
import pytest

import osculate as osc


def cube(n=1, half=1.0, rule=None, inward=False):
    """(vertices, triangles) of the cube [-half, half]^3, n x n quads per face, each two
    triangles counter-clockwise seen from outside unless rule(face, i, j, n) says "flip" (or
    "missing"); `inward` turns every triangle. Faces 0..5 = -x, +x, -y, +y, -z, +z. The corners
    that faces share are one vertex."""
    points, triangles = [], []
    for face in range(6):
        axis, side = face // 2, 1.0 if face % 2 else -1.0
        u, v = (axis + 1) % 3, (axis + 2) % 3
        first = len(points)
        for j in range(n + 1):
            for i in range(n + 1):
                p = [0.0, 0.0, 0.0]
                p[axis] = side * half
                p[u] = half * (2.0 * i / n - 1.0)
                p[v] = half * (2.0 * j / n - 1.0)
                points.append(p)
        for j in range(n):
            for i in range(n):
                mode = rule(face, i, j, n) if rule else "keep"
                if mode == "missing":
                    continue
                c00 = first + j * (n + 1) + i
                c10, c01, c11 = c00 + 1, c00 + n + 1, c00 + n + 2
                # e_u x e_v = e_axis: counter-clockwise in (u, v) faces +axis
                if ((side > 0) != (mode == "flip")) != inward:
                    triangles += [[c00, c10, c11], [c00, c11, c01]]
                else:
                    triangles += [[c00, c11, c10], [c00, c01, c11]]
    vertices, index = np.unique(np.array(points), axis=0, return_inverse=True)
    return vertices, index.reshape(-1)[np.array(triangles)]


def flip_face_zero(face, i, j, n):
    return "flip" if face == 0 else "keep"


def flip_patches(face, i, j, n):
    """a 2 x 2 patch of quads on +y and one quad on -z"""
    if face == 3 and 1 <= i <= 2 and 1 <= j <= 2:
        return "flip"
    return "flip" if face == 4 and i == 0 and j == 3 else "keep"


def open_top(face, i, j, n):
    return "missing" if face == 5 else "keep"


FIELDS = ("patches", "closed_patches", "boundary_edges", "non_manifold_edges",
          "inconsistent_edges", "non_orientable_patches", "flat_patches", "inverted_patches",
          "triangles_flipped", "sign_reliable")

# name: (n, rule, inward, the counts of FIELDS, volume) from test_mesh_orient.c (n = 4: 192
# triangles, 16 edges along each face's rim) and the same cubes with one quad per face
CASES = {
    "outward cube": (4, None, False, (1, 1, 0, 0, 0, 0, 0, 0, 0, 1), 8.0),
    "inverted cube": (4, None, True, (1, 1, 0, 0, 0, 0, 0, 1, 192, 1), 8.0),
    "cube with one flipped face": (4, flip_face_zero, False, (1, 1, 0, 0, 16, 0, 0, 0, 32, 1), 8.0),
    "cube with flipped patches": (4, flip_patches, False, (1, 1, 0, 0, 12, 0, 0, 0, 10, 1), 8.0),
    "inverted cube, flipped patches": (4, flip_patches, True, (1, 1, 0, 0, 12, 0, 0, 1, 182, 1),
                                       8.0),
    "open box": (4, open_top, False, (1, 0, 16, 0, 0, 0, 0, 0, 0, 0), None),
    "inverted open box": (4, open_top, True, (1, 0, 16, 0, 0, 0, 0, 1, 160, 0), None),
    "inverted 12-triangle cube": (1, None, True, (1, 1, 0, 0, 0, 0, 0, 1, 12, 1), 8.0),
    "12-triangle cube, one face flipped": (1, flip_face_zero, False,
                                           (1, 1, 0, 0, 4, 0, 0, 0, 2, 1), 8.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_orientation_counts_and_orienting(name):
    n, rule, inward, counts, volume = CASES[name]
    v, t = cube(n, 1.0, rule, inward)
    mesh = osc.Mesh(v, t)
    o = mesh.orientation
    assert tuple(o[k] for k in FIELDS) == counts, o
    if volume is not None:
        assert o["volume"] == pytest.approx(volume, rel=1e-12)
    oriented = mesh.oriented()
    np.testing.assert_array_equal(oriented.vertices, mesh.vertices)
    a, b = mesh.triangles, oriented.triangles
    # each triangle kept, or turned by swapping its last two corners: as many as reported
    same = np.all(a == b, axis=1)
    turned = (a[:, 0] == b[:, 0]) & (a[:, 1] == b[:, 2]) & (a[:, 2] == b[:, 1])
    assert np.all(same | turned) and turned.sum() == o["triangles_flipped"]
    again = oriented.orientation
    assert again["triangles_flipped"] == 0 and again["inverted_patches"] == 0
    assert again["inconsistent_edges"] == 0
    np.testing.assert_array_equal(oriented.oriented().triangles, b)
    if o["sign_reliable"]:
        assert oriented.topology["closed"] == 1
        assert oriented.volume == pytest.approx(8.0, rel=1e-12)
        # the signed distance is the cube's once oriented (its sign from the winding number)
        d = oriented.bvh().signed_distance([[0.1, 0.2, -0.3], [3.0, 0.0, 0.0]])
        np.testing.assert_allclose(d, [-0.7, 2.0], rtol=1e-12)


def test_the_importer_orients_and_reports():
    v, t = cube(4, 1.0, flip_patches, inward=True)
    text = "".join("v %.17g %.17g %.17g\n" % tuple(p) for p in v) + \
        "".join("f %d %d %d\n" % tuple(f + 1) for f in t)
    raw = osc.Mesh.from_bytes(text.encode(), format="obj", orient=False)
    np.testing.assert_array_equal(raw.triangles, t)
    assert raw.load_report["orientation"] == raw.orientation
    assert raw.orientation["triangles_flipped"] == 182
    loaded = osc.Mesh.from_bytes(text.encode(), format="obj")  # orient=True by default
    np.testing.assert_array_equal(loaded.triangles, raw.oriented().triangles)
    # the report describes the mesh as read: the triangles orienting turned
    assert loaded.load_report["orientation"] == raw.orientation
    assert loaded.orientation["triangles_flipped"] == 0
    assert loaded.volume == pytest.approx(8.0, rel=1e-12)
    with pytest.raises(ValueError, match="orient"):
        osc.Mesh.from_bytes(text.encode(), format="obj", orient=2 ** 40)


def test_degenerate_facets_are_refused_or_dropped():
    v, t = cube(1)
    text = "".join("v %.17g %.17g %.17g\n" % tuple(p) for p in v) + \
        "".join("f %d %d %d\n" % tuple(f + 1) for f in t) + "f 1 2 1\n"
    with pytest.raises(osc.ParseError, match="line 21"):
        osc.Mesh.from_bytes(text.encode(), format="obj")
    m = osc.Mesh.from_bytes(text.encode(), format="obj", degenerate="drop")
    assert m.load_report["faces_dropped"] == 1 and m.triangle_count == 12
    assert m.load_report["faces_read"] == 13 and m.orientation["sign_reliable"] == 1


def test_spline_baking_needs_outward_windings():
    inverted = osc.Mesh(*cube(4, 1.0, inward=True))
    # before orientation was checked, the inverted cube baked into an SDF positive everywhere
    with pytest.raises(osc.InvalidArgumentError, match="osc_mesh_orient"):
        osc.Grid.from_mesh(inverted, resolution=16)
    with pytest.raises(osc.InvalidArgumentError):
        osc.Grid.from_mesh(osc.Mesh(*cube(4, 1.0, flip_face_zero)), resolution=16)
    grid = osc.Grid.from_mesh(inverted.oriented(), resolution=16)
    inside, outside = grid.eval([[0.0, 0.0, 0.0], [0.0, 0.0, 1.5]])
    assert inside == pytest.approx(-1.0, abs=0.02) and outside == pytest.approx(0.5, abs=0.02)
    # an open box is baked (its sign near the hole is not to be trusted, and the report says so)
    open_box = osc.Mesh(*cube(4, 1.0, open_top)).oriented()
    assert open_box.orientation["sign_reliable"] == 0
    assert osc.Grid.from_mesh(open_box, resolution=16).eval([0.0, 0.0, -0.5]) < 0


def test_closed_mesh_raises():
    m = osc.Mesh(*cube(1))
    m.close()
    with pytest.raises(ValueError, match="closed"):
        m.orientation
    with pytest.raises(ValueError, match="closed"):
        m.oriented()
