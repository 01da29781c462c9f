import os

import numpy as np
import pytest

import osculate as osc

PEG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "step",
                   "peg.step")


def _same_contacts(a, b, pose_a, other, pose_b):
    ra = osc.lmd(a, pose_a, other, pose_b, d_max=0.8)
    rb = osc.lmd(b, pose_a, other, pose_b, d_max=0.8)
    assert len(ra) == len(rb) > 0
    for f in ("point_a", "point_b", "param_a", "distance", "normal", "distance_jacobian"):
        np.testing.assert_allclose(getattr(ra, f), getattr(rb, f), rtol=0, atol=1e-12)
    for f in ("kind_a", "feature_a", "kind_b", "feature_b", "key", "flags"):
        np.testing.assert_array_equal(getattr(ra, f), getattr(rb, f))


def _info_counts(b):
    return {k: v for k, v in b.info.items() if k not in ("lo", "hi")}


def test_round_trip_box_and_peg():
    sphere = osc.Brep.sphere(0.3)
    box = osc.Brep.box([1.0, 2.0, 0.5])
    d = box.description()
    assert isinstance(d, osc.BrepDescription)
    assert (len(d.surfaces), len(d.faces), len(d.edges), d.vertices.shape) == (6, 6, 12, (8, 3))
    assert d.surfaces["origin"].shape == (6, 3) and d.edges["face"].shape == (12, 2)
    box2 = osc.Brep.from_description(d)
    assert _info_counts(box2) == _info_counts(box)
    np.testing.assert_array_equal(box2.info["lo"], box.info["lo"])
    d2 = box2.description()
    for k in ("surfaces", "faces", "loops", "trims", "edges", "vertices"):
        np.testing.assert_array_equal(getattr(d2, k), getattr(d, k))
    _same_contacts(box, box2, osc.pose(), sphere, osc.pose([0.2, -0.3, 0.9]))

    peg = osc.Brep.load_step(PEG)
    pd = peg.description()
    assert len(pd.trims) > 0 and len(pd.loops) > 0
    peg2 = osc.Brep.from_description(pd)
    assert _info_counts(peg2) == _info_counts(peg)
    _same_contacts(peg, peg2, osc.pose(), sphere, osc.pose([0.0, 0.0, 5.4]))
    _same_contacts(peg, peg2, osc.pose(), sphere, osc.pose([2.5, 0.3, 2.0]))
    # a dict of tables in other forms: lists of dicts, dicts of columns, names for enums
    as_dict = {"surfaces": [dict(zip(pd.surfaces.dtype.names, r.tolist())) for r in pd.surfaces],
               "faces": {k: pd.faces[k] for k in pd.faces.dtype.names},
               "loops": pd.loops, "trims": pd.trims, "edges": pd.edges,
               "vertices": pd.vertices.tolist()}
    assert _info_counts(osc.Brep.from_description(as_dict)) == _info_counts(peg)


def test_sphere_from_columns():
    # one sphere face, no loops: the whole parameter box; sense and vertex default
    d = {"surfaces": {"type": ["sphere"], "origin": [[0, 0, 0]], "axis": [[0, 0, 1]],
                      "ref": [[1, 0, 0]], "radius": [0.5]},
         "faces": {"surface": [0], "umin": [0.0], "umax": [2 * np.pi], "vmin": [-np.pi / 2],
                   "vmax": [np.pi / 2]}}
    b = osc.Brep.from_description(d)
    assert b.info["face_count"] == 1 and b.description().surfaces["sense"][0] == 1
    # off the poles, and straight above (at both spheres' poles, where their parameters are singular)
    for c in (np.array([0.1, 0.2, 1.0]), np.array([0.0, 0.0, 1.0])):
        r = osc.lmd(b, osc.pose(), osc.Brep.sphere(0.3), osc.pose(c), d_max=0.5)
        np.testing.assert_allclose(r.distance, [np.linalg.norm(c) - 0.8], atol=1e-9)
        _same_contacts(b, osc.Brep.sphere(0.5), osc.pose(), osc.Brep.sphere(0.3), osc.pose(c))


CYLINDER = {"type": "cylinder", "origin": [0.1, -0.2, 0.3], "axis": [0, 0, 1],
            "ref": [1, 0, 0], "radius": 0.7, "sense": 1}
TORUS = {"type": "torus", "origin": [0.0, 0.5, 0.0], "axis": [0, 1, 0], "ref": [0, 0, 1],
         "radius": 1.0, "radius2": 0.3, "sense": -1}


@pytest.mark.parametrize("surface", [CYLINDER, TORUS])
def test_surface_point_project(surface):
    rng = np.random.default_rng(3)
    for _ in range(50):
        u = rng.uniform(-np.pi + 0.01, np.pi - 0.01)
        v = rng.uniform(-1.0, 1.0) if surface is CYLINDER else rng.uniform(-3.0, 3.0)
        p, n = osc.surface_point(surface, u, v)
        assert abs(np.linalg.norm(n) - 1) < 1e-12
        uv, ok = osc.project(surface, p)
        assert ok
        du = np.angle(np.exp(1j * (uv[0] - u)))  # u (and the torus' v) are periodic
        dv = uv[1] - v if surface is CYLINDER else np.angle(np.exp(1j * (uv[1] - v)))
        assert abs(du) < 1e-9 and abs(dv) < 1e-9
        # a point off the surface along the normal projects to the same parameters
        uv2, ok2 = osc.project(surface, p + 0.05 * n)
        assert ok2 and np.allclose(np.angle(np.exp(1j * (uv2 - uv))), 0, atol=1e-9)
    # sense flips the normal; the cylinder's natural normal is radial
    p, n = osc.surface_point(CYLINDER, 0.0, 0.0)
    np.testing.assert_allclose(p, [0.8, -0.2, 0.3], atol=1e-12)
    np.testing.assert_allclose(n, [1, 0, 0], atol=1e-12)
    _, n2 = osc.surface_point(dict(CYLINDER, sense=-1), 0.0, 0.0)
    np.testing.assert_allclose(n2, -n, atol=1e-12)
    # on the axis the projection is degenerate
    assert not osc.project(CYLINDER, [0.1, -0.2, 2.0])[1]
    # a record of a description works as is
    cyl = osc.Brep.cylinder(0.4, 0.6).description()
    s = cyl.surfaces[cyl.surfaces["type"] == 1][0]
    p, _ = osc.surface_point(s, 0.3, 0.2)
    uv, ok = osc.project(s, p)
    assert ok and np.allclose(uv, [0.3, 0.2], atol=1e-12)


def test_face_contains():
    box = osc.Brep.box([1.0, 2.0, 0.5])
    f = box.description().faces[0]
    uc, vc = 0.5 * (f["umin"] + f["umax"]), 0.5 * (f["vmin"] + f["vmax"])
    assert box.face_contains(0, uc, vc)
    assert box.face_contains(0, f["umin"] + 1e-6, f["vmin"] + 1e-6)
    assert not box.face_contains(0, f["umax"] + 0.1, vc)
    assert not box.face_contains(0, uc, f["vmin"] - 0.1)
    with pytest.raises(ValueError, match="face"):
        box.face_contains(6, uc, vc)
    # the peg's trimmed faces: the middle of a face's parameter box vs. outside it
    peg = osc.Brep.load_step(PEG)
    pf = peg.description().faces
    assert not peg.face_contains(0, pf["umin"][0] - 1.0, pf["vmin"][0] - 1.0)


def test_bad_descriptions():
    d = osc.Brep.box([1.0, 1.0, 1.0]).description()
    torus = d.surfaces.copy()
    torus[0]["type"] = 4
    torus[0]["radius"] = torus[0]["radius2"] = 0.5
    with pytest.raises(ValueError, match="radius2"):
        osc.Brep.from_description({**d.__dict__, "surfaces": torus})
    faces = d.faces.copy()
    faces[2]["surface"] = 17
    with pytest.raises(ValueError, match=r"faces\[2\]"):
        osc.Brep.from_description({**d.__dict__, "faces": faces})
    edges = d.edges.copy()
    edges[3]["face"] = [0, 99]
    with pytest.raises(ValueError, match=r"edges\[3\]"):
        osc.Brep.from_description({**d.__dict__, "edges": edges})
    # marshalling errors name the table and field
    with pytest.raises(ValueError, match="surfaces.type"):
        osc.Brep.from_description({**d.__dict__, "surfaces": {"type": ["plank"]}})
    with pytest.raises(ValueError, match="surfaces: unknown field"):
        osc.Brep.from_description({**d.__dict__, "surfaces": {"colour": [1]}})
    with pytest.raises(ValueError, match="vertices"):
        osc.Brep.from_description({**d.__dict__, "vertices": np.zeros((8, 2))})
    with pytest.raises(ValueError, match="unknown table"):
        osc.Brep.from_description({"solids": []})
    with pytest.raises(ValueError):
        osc.surface_point({"type": 9}, 0, 0)
