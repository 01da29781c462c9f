import os
import pathlib

import numpy as np
import pytest
from conftest import fd_twist, random_pose

import osculate as osc

PEG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "step",
                   "peg.step")


def test_builders_and_info():
    box = osc.Brep.box([1.0, 2.0, 0.5])
    i = box.info
    assert (i["face_count"], i["edge_count"], i["vertex_count"]) == (6, 12, 8)
    assert i["convex_edge_count"] == 12 and i["concave_edge_count"] == 0
    assert i["leaf_count"] > 0 and i["node_count"] == 2 * i["leaf_count"] - 1  # a binary tree
    np.testing.assert_allclose(i["lo"], [-1, -2, -0.5], atol=1e-12)
    np.testing.assert_allclose(i["hi"], [1, 2, 0.5], atol=1e-12)
    assert box.face_count == 6
    cyl = osc.Brep.cylinder(0.4, 0.6).info
    assert (cyl["face_count"], cyl["edge_count"], cyl["vertex_count"]) == (3, 2, 0)
    # the BVH's boxes bound the solid (conservatively: curved leaves are boxed with their bulge)
    assert np.all(cyl["lo"] <= [-0.4, -0.4, -0.6]) and np.all(cyl["hi"] >= [0.4, 0.4, 0.6])
    assert np.all(cyl["hi"] <= [0.45, 0.45, 0.65])
    assert osc.Brep.cone(0.5, 0.3, 0.4).info["face_count"] == 3
    sphere = osc.Brep.sphere(0.3).info
    assert (sphere["face_count"], sphere["edge_count"]) == (1, 0)
    # the peg and hole of the C test (tests/test_lmd.c, test_peg_in_hole)
    peg = osc.Brep.revolved(np.array([[0.0, -0.6], [0.45, -0.6], [0.5, -0.55], [0.5, 0.9],
                                      [0.0, 0.9]])).info
    assert peg["face_count"] == 4 and peg["convex_edge_count"] == 3
    hole = osc.Brep.block_with_hole([1, 1, 1], [[0.505, 1.0], [0.505, -0.8]]).info
    assert hole["face_count"] == 8 and hole["concave_edge_count"] == 1
    # settings: a finer quasi-flat angle splits the curved faces into more leaves
    assert osc.brep_settings() == {"alpha_max": 0.5, "plane_cell": 0.25,
                                   "max_leaf_count": 1000000}
    fine = osc.Brep.cylinder(0.4, 0.6, alpha_max=0.2).info
    assert fine["leaf_count"] > cyl["leaf_count"]
    with pytest.raises(osc.CapacityError, match="leaves"):
        osc.Brep.cylinder(0.4, 0.6, max_leaf_count=10)


def test_box_above_box_gives_the_height():
    box = osc.Brep.box([1.0, 1.0, 0.5])
    for h, angle in ((1.3, 0.0), (1.7, 0.4), (1.05, -1.0)):
        pb = osc.pose([0.3, -0.2, h], osc.axis_angle_quaternion([0, 0, 1], angle))
        # alpha = 0: exact local minima only
        r = osc.lmd(box, osc.pose(), box, pb, d_max=1.0, eps_a=0.01, eps_b=0.02, alpha=0.0)
        assert len(r) >= 4
        # parallel faces: every local minimum spans the gap between them
        np.testing.assert_allclose(np.linalg.norm(r.point_b - r.point_a, axis=1), h - 1.0,
                                   atol=1e-10)
        np.testing.assert_allclose(r.distance, h - 1.0 - 0.03, atol=1e-10)
        np.testing.assert_allclose(r.normal, np.tile([0, 0, 1.0], (len(r), 1)), atol=1e-10)
        np.testing.assert_allclose(r.point_a[:, 2], 0.5, atol=1e-10)
        np.testing.assert_allclose(r.point_b[:, 2], h - 0.5, atol=1e-10)
        np.testing.assert_allclose(np.linalg.norm(r.point_b - r.point_a, axis=1), r.distance + 0.03,
                                   atol=1e-12)
        # lifting B raises every gap one for one; lifting A lowers it
        np.testing.assert_allclose(r.distance_jacobian[:, 8], 1.0, atol=1e-10)
        np.testing.assert_allclose(r.distance_jacobian[:, 2], -1.0, atol=1e-10)
        assert set(r.kind_a) | set(r.kind_b) <= {0, 1, 2} and not r.conformal.any()
        assert r.key.dtype == np.uint64 and len(set(r.key)) == len(r)
        assert r.distance_jacobian.shape == (len(r), 12) and r.param_a.shape == (len(r), 2)
        # the default alpha adds quasi-LMDs (thesis §1.3.1.4): footpoints on the two faces' planes
        # whose direction is within alpha of the normal, so h - 1 <= d <= (h - 1) / cos(alpha)
        alpha = osc.lmd_settings()["alpha"]
        q = osc.lmd(box, osc.pose(), box, pb, d_max=1.0)
        assert len(q) >= len(r)
        assert np.all(q.distance >= h - 1.0 - 1e-10)
        assert np.all(q.distance <= (h - 1.0) / np.cos(alpha) + 1e-10)
        np.testing.assert_allclose(q.point_a[:, 2], 0.5, atol=1e-10)
        np.testing.assert_allclose(q.point_b[:, 2], h - 0.5, atol=1e-10)
        # translating a body moves the gap along the normal
        np.testing.assert_allclose(q.distance_jacobian[:, 6:9], q.normal, atol=1e-10)
        np.testing.assert_allclose(q.distance_jacobian[:, 0:3], -q.normal, atol=1e-10)
    # beyond d_max nothing is reported
    assert len(osc.lmd(box, osc.pose(), box, osc.pose([0, 0, 2.5]), d_max=1.0)) == 0


def test_sphere_pairs_closed_form_and_finite_differences():
    rng = np.random.default_rng(7)
    a, b = osc.Brep.sphere(0.3), osc.Brep.sphere(0.5)
    settings = dict(d_max=2.0, eps_a=0.01, eps_b=0.005)

    def distance(pa, pb):
        r = osc.lmd(a, pa, b, pb, **settings)
        assert len(r) == 1
        return r.distance[0]

    for _ in range(4):
        pa = random_pose(rng, 0.2)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        centre_distance = rng.uniform(0.9, 2.5)
        pb = osc.pose(pa[:3] + centre_distance * direction, random_pose(rng)[3:])
        r = osc.lmd(a, pa, b, pb, **settings)
        assert len(r) == 1 and r.kind_a[0] == 0 and r.kind_b[0] == 0
        assert np.linalg.norm(r.point_b[0] - r.point_a[0]) == pytest.approx(centre_distance - 0.8,
                                                                            abs=1e-10)
        assert r.distance[0] == pytest.approx(centre_distance - 0.8 - 0.015, abs=1e-10)
        np.testing.assert_allclose(r.normal[0], direction, atol=1e-9)
        np.testing.assert_allclose(r.point_a[0], pa[:3] + 0.3 * direction, atol=1e-9)
        np.testing.assert_allclose(r.point_b[0], pb[:3] - 0.5 * direction, atol=1e-9)
        fa = fd_twist(lambda p: distance(p, pb), pa)
        fb = fd_twist(lambda p: distance(pa, p), pb)
        np.testing.assert_allclose(r.distance_jacobian[0], np.concatenate([fa, fb]), atol=1e-7)
        # the closed form: translations move the gap along the normal, rotations about a centre
        # leave it alone
        np.testing.assert_allclose(r.distance_jacobian[0], np.concatenate([-direction, np.zeros(3),
                                                                  direction, np.zeros(3)]),
                                   atol=1e-9)


def _by_key(r, key):
    i = np.flatnonzero(r.key == key)
    assert len(i) == 1, "contact %d lost" % key
    return i[0]


@pytest.mark.parametrize("case", ["face", "edge", "vertex", "circle"])
def test_gradient_with_rotations_matches_twist_differences(case):
    """A rotated box against a sphere near a face, an edge and a vertex, and a tilted cylinder's
    rim on a box: the rotational columns of the gradient are not zero here. Contacts are followed
    across the perturbed poses by their keys."""
    box = osc.Brep.box([1.0, 2.0, 0.5])
    qa = osc.axis_angle_quaternion([1, 2, 3], 0.3)
    pa = osc.pose([0.1, -0.2, 0.05], qa)
    w, x, y, z = qa
    Ra = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                   [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                   [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    if case == "circle":
        b = osc.Brep.cylinder(0.4, 0.6)
        local = np.array([0.2, 0.3, 0.5 + 0.6 + 0.1])
        pb = osc.pose(pa[:3] + Ra @ local,
                      osc.axis_angle_quaternion([1, 0.3, 0], 0.05))
    else:
        b = osc.Brep.sphere(0.3)
        anchor, direction = {"face": ([0.2, 0.5, 0.5], [0, 0, 1]),
                             "edge": ([1.0, 0.3, 0.5], [1, 0, 1]),
                             "vertex": ([1.0, 2.0, 0.5], [1, 1, 1])}[case]
        direction = np.array(direction, float) / np.linalg.norm(direction)
        pb = osc.pose(pa[:3] + Ra @ (np.array(anchor) + 0.7 * direction),
                      osc.axis_angle_quaternion([0, 1, 0], 0.7))
    settings = dict(d_max=2.0)
    r = osc.lmd(box, pa, b, pb, **settings)
    assert len(r) >= 1
    kind = {"face": 0, "edge": 1, "vertex": 2}.get(case)
    if kind is not None:
        assert len(r) == 1 and r.kind_a[0] == kind
        assert r.distance[0] == pytest.approx(0.4, abs=1e-9)
    for i in range(len(r)):
        key = r.key[i]

        def distance(p, q, key=key):
            s = osc.lmd(box, p, b, q, **settings)
            return s.distance[_by_key(s, key)]

        fa = fd_twist(lambda p: distance(p, pb), pa)
        fb = fd_twist(lambda q: distance(pa, q), pb)
        np.testing.assert_allclose(r.distance_jacobian[i], np.concatenate([fa, fb]), atol=2e-6,
                                   err_msg="contact %d" % i)
        assert np.abs(r.distance_jacobian[i, 3:6]).max() > 1e-3  # rotating A moves the gap


def test_step_import_matches_the_c_test():
    # tests/test_brep_step.c (test_peg): 4 faces (plane, cylinder, cone, plane), 5 edges, 3
    # vertices, millimetres
    peg = osc.Brep.load_step(PEG)
    i = peg.info
    assert (i["face_count"], i["edge_count"], i["vertex_count"]) == (4, 5, 3)
    assert i["hi"][2] >= 5.0 - 1e-9 and i["lo"][2] <= 1e-9
    rep = peg.import_report
    assert rep["solids"] == 1 and rep["faces_read"] == 4 and rep["faces_imported"] == 4
    assert rep["faces_unsupported"] == 0 and rep["edges_unsupported"] == 0
    assert rep["first_unsupported"] == "" and rep["length_unit"] == pytest.approx(0.001, abs=1e-15)
    text = open(PEG, "rb").read()
    from_bytes = osc.Brep.read_step(text).info
    assert all(np.array_equal(from_bytes[k], v) for k, v in i.items())
    assert osc.Brep.read_step(text.decode()).info["face_count"] == 4
    assert osc.Brep.load_step(pathlib.Path(PEG)).face_count == 4
    assert osc.Brep.box([1, 1, 1]).import_report is None
    # the peg standing on a slab: its bottom disc's rim is a circle parallel to the slab's top, a
    # conformal contact sampled conformal_samples times at the known height
    slab = osc.Brep.box([5.0, 5.0, 1.0])
    r = osc.lmd(slab, osc.pose(), peg, osc.pose([0.3, 0.2, 1.5]), d_max=1.0, conformal_samples=6)
    assert len(r) == 6 and r.conformal.all()
    np.testing.assert_allclose(r.distance, 0.5, atol=1e-12)
    assert np.all(r.kind_b == 1) and np.all(r.kind_a == 0)
    # a surface the reader does not know (a curve-bounded surface, as in test_brep_step.c):
    # refused naming the entity, or skipped and counted
    bad = text.decode().replace("#41 = CYLINDRICAL_SURFACE('',#60,2.);",
                                "#41 = CURVE_BOUNDED_SURFACE('',#60,2.);")
    with pytest.raises(osc.UnsupportedError, match="#41 CURVE_BOUNDED_SURFACE") as e:
        osc.Brep.read_step(bad)
    assert e.value.report["first_unsupported"] == "#41 CURVE_BOUNDED_SURFACE"
    assert isinstance(e.value, NotImplementedError)
    skipped = osc.Brep.read_step(bad, skip_unsupported=True)
    assert skipped.face_count == 3
    assert skipped.import_report["faces_read"] == 4
    assert skipped.import_report["faces_imported"] == 3
    assert skipped.import_report["faces_unsupported"] == 1
    # a query whose search reaches the left-out cylinder says so; one far from the peg does not
    ball = osc.Brep.sphere(0.5)
    assert osc.lmd(skipped, osc.pose(), ball, osc.pose([2.8, 0, 2]), d_max=1.0).skipped_faces == 1
    assert osc.lmd(ball, osc.pose([2.8, 0, 2]), skipped, osc.pose(), d_max=1.0).skipped_faces == 1
    assert osc.lmd(skipped, osc.pose(), ball, osc.pose([9, 0, 2]), d_max=1.0).skipped_faces == 0
    assert osc.lmd(peg, osc.pose(), ball, osc.pose([2.8, 0, 2]), d_max=1.0).skipped_faces == 0
    # the whole C report, its texts as str: one placed solid, imported
    r = skipped.import_report
    assert (r["instances"], r["instances_imported"], r["instances_skipped"]) == (1, 1, 0)
    assert r["first_skipped"] == "" and r["first_unsupported"] == "#41 CURVE_BOUNDED_SURFACE"


def test_bad_input_raises_with_the_problem_named(tmp_path):
    box = osc.Brep.box([1.0, 1.0, 0.5])
    up = osc.pose([0, 0, 1.5])
    with pytest.raises(osc.InvalidArgumentError, match="pose_a.* is not finite"):
        osc.lmd(box, [np.nan, 0, 0, 1, 0, 0, 0], box, up)
    with pytest.raises(ValueError, match="pose_b.*cannot be normalised"):
        osc.lmd(box, osc.pose(), box, [0, 0, 1.5, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="pose_a must have shape"):
        osc.lmd(box, [0, 0, 0], box, up)
    with pytest.raises(ValueError, match="d_max -1"):
        osc.lmd(box, osc.pose(), box, up, d_max=-1)
    with pytest.raises(ValueError, match="alpha 2"):
        osc.lmd(box, osc.pose(), box, up, alpha=2.0)
    with pytest.raises(ValueError, match="conformal_samples"):
        osc.lmd(box, osc.pose(), box, up, conformal_samples=-3)
    with pytest.raises(TypeError, match="unknown setting 'dmax'"):
        osc.lmd(box, osc.pose(), box, up, dmax=1.0)
    with pytest.raises(ValueError, match="settings must be a dict"):
        osc.lmd(box, osc.pose(), box, up, settings=0.5)
    with pytest.raises(ValueError, match="b must be a Brep"):
        osc.lmd(box, osc.pose(), osc.Convex.box([1, 1, 1]), up)
    with pytest.raises(ValueError, match="cache must be an LmdCache"):
        osc.lmd(box, osc.pose(), box, up, cache=object())
    # STEP
    with pytest.raises(osc.ParseError, match="not a STEP file"):
        osc.Brep.read_step(b"garbage")
    with pytest.raises(osc.ParseError, match="line"):
        osc.Brep.read_step("")
    text = open(PEG).read()
    with pytest.raises(osc.ParseError, match="line"):
        osc.Brep.read_step(text[:len(text) // 2])  # truncated
    with pytest.raises(osc.ParseError, match="#999, which is not defined"):
        osc.Brep.read_step(text.replace("CLOSED_SHELL('',(#20,", "CLOSED_SHELL('',(#999,"))
    with pytest.raises(ValueError, match="bytes or str"):
        osc.Brep.read_step(12)
    with pytest.raises(osc.OsculateIOError, match="no_such.step"):
        osc.Brep.load_step(tmp_path / "no_such.step")
    garbage = tmp_path / "garbage.step"
    garbage.write_bytes(b"ISO-10303-21;\nHEADER;\x00\xff")
    with pytest.raises(osc.ParseError):
        osc.Brep.load_step(garbage)
    # builders
    with pytest.raises(ValueError, match="half.y -1"):
        osc.Brep.box([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="radius"):
        osc.Brep.sphere(np.nan)
    with pytest.raises(ValueError, match="r_top 0"):
        osc.Brep.cone(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="profile must have shape"):
        osc.Brep.revolved([[0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match="count 1 is outside"):
        osc.Brep.revolved([[0.0, 0.0]])
    with pytest.raises(ValueError, match="leaves the block"):
        osc.Brep.block_with_hole([1, 1, 1], [[2.0, 1.0], [2.0, -0.5], [0.0, -0.5]])
    with pytest.raises(ValueError, match="alpha_max 3"):
        osc.Brep.box([1, 1, 1], alpha_max=3.0)
    with pytest.raises(TypeError, match="unknown setting"):
        osc.Brep.box([1, 1, 1], alpha=0.1)


def _assert_same_contacts(r, s):
    """The same contacts: the same features, keys and order, the same distances; footpoints (and
    what depends on them) equal to Newton's tolerance, which leaves ~1e-7 in the flat valley of a
    nearly conformal pair."""
    assert len(r) == len(s)
    for name in ("kind_a", "kind_b", "feature_a", "feature_b", "key", "flags"):
        assert np.array_equal(getattr(r, name), getattr(s, name)), name
    for name in ("distance",):
        np.testing.assert_allclose(getattr(r, name), getattr(s, name), atol=1e-12, err_msg=name)
    for name in ("point_a", "point_b", "param_a", "param_b", "normal", "distance_jacobian"):
        np.testing.assert_allclose(getattr(r, name), getattr(s, name), atol=1e-6, err_msg=name)


def test_cache_on_and_off_give_the_same_contacts():
    hole = osc.Brep.block_with_hole([1, 1, 1], [[0.505, 1.0], [0.505, -0.8]])
    peg = osc.Brep.revolved([[0.0, -0.6], [0.45, -0.6], [0.5, -0.55], [0.5, 0.9], [0.0, 0.9]])
    cache = osc.LmdCache()
    settings = dict(d_max=0.02, conformal_samples=4)
    total = conformal = warm_starts = 0
    for k in range(12):  # the peg sliding into the hole, coaxial (conformal) every fourth step
        wobble = 0.0 if k % 4 == 0 else 1.0
        pose = osc.pose([0.003 * np.sin(k) * wobble, 0.002 * np.cos(k) * wobble, 0.2 - 0.02 * k],
                        osc.axis_angle_quaternion([1, 1, 0], 0.003 * (k % 3) * wobble))
        warm = osc.lmd(hole, osc.pose(), peg, pose, cache=cache, **settings)
        cold = osc.lmd(hole, osc.pose(), peg, pose, **settings)
        _assert_same_contacts(warm, cold)
        threaded = osc.lmd(hole, osc.pose(), peg, pose, threads=2, **settings)
        _assert_same_contacts(threaded, cold)
        total += len(cold)
        conformal += cold.conformal.sum()
        stats = cache.stats
        assert stats["front_size"] > 0 and stats["leaf_pairs"] > 0
        warm_starts += stats["warm_starts"]
    # the cache is exercised: leaf pairs start from cached footpoints
    assert total > 30 and conformal >= 16 and warm_starts >= 12
    cache.reset()
    osc.lmd(hole, osc.pose(), peg, pose, cache=cache, **settings)
    assert cache.stats["warm_starts"] == 0
    # a cache moved to another pair of solids restarts by itself, also after a failed query
    box = osc.Brep.box([1.0, 1.0, 0.5])
    moved = osc.lmd(box, osc.pose(), box, osc.pose([0, 0, 1.2]), cache=cache)
    _assert_same_contacts(moved, osc.lmd(box, osc.pose(), box, osc.pose([0, 0, 1.2])))
    with pytest.raises(ValueError, match="pose_b"):
        osc.lmd(hole, osc.pose(), peg, [0, 0, np.inf, 1, 0, 0, 0], cache=cache)
    _assert_same_contacts(osc.lmd(hole, osc.pose(), peg, pose, cache=cache, **settings),
                          osc.lmd(hole, osc.pose(), peg, pose, **settings))


def test_capacity_grows_and_settings_dict():
    box = osc.Brep.box([1.0, 2.0, 0.5])
    cyl = osc.Brep.cylinder(0.4, 0.6)
    up = osc.pose([0.1, 0.2, 0.5 + 0.6 + 0.1])
    # a cylinder standing on the box: its rim is sampled 300 times, more than the first buffer
    r = osc.lmd(box, osc.pose(), cyl, up, d_max=2.0, conformal_samples=300)
    assert len(r) == 300 and r.conformal.all()
    np.testing.assert_allclose(r.distance, 0.1, atol=1e-12)
    cache = osc.LmdCache()
    for _ in range(2):
        _assert_same_contacts(osc.lmd(box, osc.pose(), cyl, up, d_max=2.0, conformal_samples=300,
                                      cache=cache), r)
    with pytest.raises(osc.CapacityError, match="300 contacts found, capacity is 3"):
        osc.lmd(box, osc.pose(), cyl, up, d_max=2.0, conformal_samples=300, capacity=3)
    # settings as a dict (lmd_settings()), overridden by keywords
    defaults = osc.lmd_settings()
    assert defaults == {"d_max": 1.0, "eps_a": 0.0, "eps_b": 0.0, "alpha": 0.05,
                        "conformal_samples": 8, "culling": 1}
    s = osc.lmd_settings(d_max=2.0, conformal_samples=5)
    assert len(osc.lmd(box, osc.pose(), cyl, up, settings=s)) == 5
    assert len(osc.lmd(box, osc.pose(), cyl, up, settings=s, conformal_samples=7)) == 7
    # culling off tests every leaf pair: the same contacts
    _assert_same_contacts(osc.lmd(box, osc.pose(), cyl, up, settings=s, culling=0),
                          osc.lmd(box, osc.pose(), cyl, up, settings=s))


def _sphere_box_poses():
    pa = osc.pose([0.1, -0.2, 0.05], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    pb = np.stack([osc.pose([1.4, 0.6, 0.9], osc.axis_angle_quaternion([0, 1, 0], 0.7)),
                   osc.pose([0.3, 0.1, 1.2])])
    return pa, pb


def test_torch_distance_gradcheck():
    torch = pytest.importorskip("torch")
    import osculate.torch as ot
    box, sphere = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    pa, pb = _sphere_box_poses()
    ta = torch.tensor(pa, requires_grad=True)
    tb = torch.tensor(pb, requires_grad=True)
    out = ot.lmd(box, ta, sphere, tb, capacity=4, d_max=2.0)
    assert out["distance"].shape == (2, 4) and list(out["count"]) == [1, 1]
    assert torch.all(out["distance"][:, 1:] == 2.0)  # empty slots: the gap at d_max
    ref = osc.lmd(box, pa, sphere, pb[0], d_max=2.0)
    assert out["distance"][0, 0].item() == ref.distance[0]
    out["distance"][0, 0].backward()
    expect = osc.pair_jacobian_to_pq(ref.distance_jacobian[:, None, :], pa, pb[0])[0, 0]
    np.testing.assert_allclose(ta.grad.numpy(), expect[:7], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tb.grad[0].numpy(), expect[7:], rtol=1e-12, atol=1e-15)

    def f(p, q):
        return ot.lmd(box, p, sphere, q, capacity=4, d_max=2.0)["distance"]

    assert torch.autograd.gradcheck(f, (ta, tb), eps=1e-6, atol=1e-6, rtol=1e-4)


def test_jax_distance_check_grads():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax.test_util import check_grads

    import osculate.jax as oj
    jax.config.update("jax_enable_x64", True)
    box, sphere = osc.Brep.box([1.0, 2.0, 0.5]), osc.Brep.sphere(0.3)
    pa, pb = _sphere_box_poses()
    out = oj.lmd(box, jnp.asarray(pa), sphere, jnp.asarray(pb), capacity=3, d_max=2.0)
    assert out["distance"].shape == (2, 3) and list(out["count"]) == [1, 1]
    assert float(out["distance"][1, 0]) == osc.lmd(box, pa, sphere, pb[1], d_max=2.0).distance[0]
    check_grads(lambda p, q: oj.lmd(box, p, sphere, q, capacity=3, d_max=2.0)["distance"],
                (jnp.asarray(pa), jnp.asarray(pb)), order=1, modes=("fwd", "rev"), eps=1e-6,
                atol=1e-6, rtol=1e-5)
    g = jax.jit(jax.vmap(jax.grad(lambda q: oj.lmd(box, jnp.asarray(pa), sphere, q,
                                                   d_max=2.0)["distance"][0])))(jnp.asarray(pb))
    assert g.shape == (2, 7)


def test_guide_section_runs(capsys, monkeypatch):
    """docs/python.md's B-Rep example, run from the repository root as the guide says."""
    import re
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    text = open(os.path.join(root, "docs", "python.md")).read()
    start = text.index("## B-Reps and local minimal distances")
    blocks = re.findall(r"```python\n(.*?)```", text[start:text.index("\n## ", start + 1)], re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(root)
    scope = {}
    exec(compile(blocks[0], "docs/python.md", "exec"), scope)  # noqa: S102 - the guide's own code
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "4 0.001"
    assert lines[1] == "[array([40.,  0.,  0.]), array([-15.,  60.,   5.])]"
    assert lines[2] == "8 2"
    assert lines[3].startswith("1 [0.05] face") and lines[4] == "(1, 12)"
    assert lines[5] == "[0.05] True" and lines[6] == "12 True"


def _same_contacts_exactly(got, want):
    """Two LmdContacts equal bit for bit, every field."""
    assert len(got) == len(want)
    for name in ("point_a", "point_b", "distance", "normal", "distance_jacobian", "param_a",
                 "param_b", "kind_a", "kind_b", "feature_a", "feature_b", "key", "flags"):
        g, w = getattr(got, name), getattr(want, name)
        assert g.dtype == w.dtype and np.array_equal(g, w), name


def test_batch_equals_single_bit_for_bit():
    box = osc.Brep.box([1.0, 2.0, 0.5])
    cyl = osc.Brep.cylinder(0.4, 0.6)
    sphere = osc.Brep.sphere(0.5)
    # the cylinder standing on the box (300 rim samples: more than the first buffer), tilted,
    # and far away
    poses = np.stack([osc.pose([0.1, 0.2, 1.2]),
                      osc.pose([0.3, -0.4, 1.3], osc.axis_angle_quaternion([1, 0, 0], 0.3)),
                      osc.pose([-0.2, 0.1, 1.25], osc.axis_angle_quaternion([1, 1, 0], 0.5)),
                      osc.pose([9.0, 0, 0])])
    kw = dict(d_max=2.0, conformal_samples=300)
    batch = osc.lmd_batch(box, osc.pose(), cyl, poses, threads=2, **kw)
    assert len(batch) == 4 and list(batch.status) == [0] * 4
    assert batch.count[0] == 300 and batch.count[3] == 0
    for k in range(4):
        _same_contacts_exactly(batch[k], osc.lmd(box, osc.pose(), cyl, poses[k], **kw))
    # solids one per slot, settings as a dict, one pose against many
    solids = [cyl, sphere, cyl, sphere]
    s = osc.lmd_settings(d_max=1.5)
    other = osc.lmd_batch([box] * 4, osc.pose()[None], solids, poses, settings=s, threads=3)
    for k in range(4):
        _same_contacts_exactly(other[k], osc.lmd(box, osc.pose(), solids[k], poses[k], settings=s))
    with pytest.raises(ValueError, match="3 models for 4 poses"):
        osc.lmd_batch(box, osc.pose(), solids[:3], poses)
    with pytest.raises(ValueError, match="b must be a Brep"):
        osc.lmd_batch(box, osc.pose(), osc.Convex.box([1, 1, 1]), poses)


def test_batch_names_the_failing_slot():
    box = osc.Brep.box([1.0, 1.0, 0.5])
    poses = np.tile(osc.pose([0, 0, 1.2]), (4, 1))
    poses[1, 3:] = 0.0  # a quaternion that cannot be normalised
    with pytest.raises(osc.InvalidArgumentError, match="item 1"):
        osc.lmd_batch(box, osc.pose(), box, poses, threads=2)
    r = osc.lmd_batch(box, osc.pose(), box, poses, check_status=False)
    assert list(r.status) == [0, 1, 0, 0] and r.count[1] == 0
    for k in (0, 2, 3):  # the other slots are still computed
        _same_contacts_exactly(r[k], osc.lmd(box, osc.pose(), box, poses[k]))
    cyl = osc.Brep.cylinder(0.4, 0.6)
    up = np.stack([osc.pose([9.0, 0, 0]), osc.pose([0.1, 0.2, 1.3])])
    with pytest.raises(osc.CapacityError, match="pair 1 found 300 contacts, capacity 3"):
        osc.lmd_batch(box, osc.pose(), cyl, up, capacity=3, d_max=2.0, conformal_samples=300)
    with pytest.raises(ValueError, match="threads"):
        osc.lmd_batch(box, osc.pose(), box, poses, threads=-1)
