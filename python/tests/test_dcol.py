import numpy as np
import pytest
from conftest import fd_twist, random_pose

import osculate as osc


def shapes():
    sq = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], dtype=float)
    cube_n = np.vstack([np.eye(3), -np.eye(3)])
    return {
        "polytope": osc.Convex.polytope(cube_n, [0.3, 0.2, 0.4, 0.3, 0.2, 0.4]),
        "box": osc.Convex.box([0.5, 0.4, 0.3]),
        "capsule": osc.Convex.capsule(0.2, 0.4),
        "cylinder": osc.Convex.cylinder(0.25, 0.3),
        "cone": osc.Convex.cone(0.8 * np.tan(0.4), 0.4),  # height 0.8, half angle 0.4
        "ellipsoid": osc.Convex.ellipsoid([0.5, 1.0 / 3.0, 0.25]),
        "sphere": osc.Convex.sphere(0.3),
        "polygon": osc.Convex.polygon(sq, [0.3, 0.3, 0.3, 0.3], 0.05),
    }


def test_constructors_and_properties():
    s = shapes()
    assert [s[k].kind for k in ("polytope", "box", "capsule", "cylinder", "cone", "ellipsoid", "sphere", "polygon")] == \
        ["polytope", "polytope", "capsule", "cylinder", "cone", "ellipsoid", "sphere", "polygon"]
    assert s["box"].face_count == 6 and len(s["box"].vertices) == 8
    assert s["sphere"].bounding_radius == pytest.approx(0.3)
    assert s["box"].bounding_radius == pytest.approx(np.linalg.norm([0.5, 0.4, 0.3]))
    np.testing.assert_allclose(s["sphere"].support(osc.pose([1, 2, 3]), [0, 0, 5]), [1, 2, 3.3])
    assert s["box"].gauge([0.25, 0, 0]) == pytest.approx(0.5)
    assert s["capsule"].parameter_count == 2 and s["ellipsoid"].parameter_count == 3
    assert s["polytope"].parameter_count == 24 and s["polygon"].parameter_count == 13
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(30, 3))
    try:
        hull = osc.Convex.hull(pts)
    except osc.UnsupportedError:  # built without qhull
        return
    assert hull.kind == "polytope"
    assert all(hull.gauge(p) <= 1 + 1e-9 for p in pts)
    # a dense cloud has more facets than a polytope may: bounded by 6 and 40 faces
    dense = rng.normal(size=(2000, 3)) * [1.0, 0.6, 0.3]
    with pytest.raises(osc.CapacityError):
        osc.Convex.hull(dense)
    coarse, coarse_excess = osc.Convex.bounded_hull(dense, 6)
    fine, fine_excess = osc.Convex.bounded_hull(dense, 40)
    assert coarse.face_count <= 6 and fine.face_count <= 40
    assert 0 < fine_excess < coarse_excess
    assert max(fine.gauge(p) for p in dense) <= 1 + 1e-9
    with pytest.raises(osc.InvalidArgumentError, match="max_faces"):
        osc.Convex.bounded_hull(dense, 65)


def test_spheres_closed_form():
    a, b = osc.Convex.sphere(0.3), osc.Convex.sphere(0.5)
    for d in (0.5, 0.8, 1.7):
        r = osc.dcol(a, osc.pose([0.1, 0, 0]), b, osc.pose([0.1, d, 0]))
        assert r.alpha == pytest.approx(d / 0.8, rel=1e-8)
        assert r.distance == pytest.approx(d - 0.8, abs=1e-8)
        np.testing.assert_allclose(r.normal, [0, 1, 0], atol=1e-8)
        np.testing.assert_allclose(r.point_a, [0.1, 0.3, 0], atol=1e-8)
        np.testing.assert_allclose(r.point_b, [0.1, d - 0.5, 0], atol=1e-8)
        assert not r.degenerate and not r.coincident
    r = osc.dcol(a, osc.pose(), b, osc.pose())
    assert r.coincident and r.alpha < 1e-8  # 0 up to the barrier parameter


PAIRS = [("box", "capsule"), ("ellipsoid", "cylinder"), ("cone", "sphere"), ("polygon", "ellipsoid"),
         ("capsule", "capsule"), ("polytope", "cone")]


@pytest.mark.parametrize("na,nb", PAIRS)
def test_jacobians_match_twist_differences(na, nb):
    s = shapes()
    rng = np.random.default_rng(len(na) * 7 + len(nb))
    pa = random_pose(rng, 0.1)
    pb = osc.pose(pa[:3] + [0.9, 0.2, -0.1], random_pose(rng)[3:])
    settings = dict(tolerance=1e-6)  # a smoother answer: its derivatives are well conditioned
    r = osc.dcol(s[na], pa, s[nb], pb, derivatives=True, **settings)
    for name in ("alpha", "distance", "point", "point_a", "point_b", "normal"):
        fa = fd_twist(lambda p: getattr(osc.dcol(s[na], p, s[nb], pb, **settings), name), pa)
        fb = fd_twist(lambda p: getattr(osc.dcol(s[na], pa, s[nb], p, **settings), name), pb)
        j = getattr(r, name + "_jacobian")
        np.testing.assert_allclose(j, np.concatenate([fa, fb], axis=-1), atol=2e-5, err_msg=name)
    alpha, grad = osc.dcol_alpha_gradient(s[na], pa, s[nb], pb, **settings)
    assert alpha == r.alpha
    np.testing.assert_allclose(grad, r.alpha_jacobian, atol=1e-9)


def test_parameter_gradient_of_radii():
    a, b = osc.Convex.sphere(0.3), osc.Convex.capsule(0.2, 0.4)
    # the capsule lies along x (its axis z turned onto x by a quarter turn about y), turned 0.3
    # about z: its end cap faces the sphere, so both radius and half-length matter
    lying = osc.pose([0.8, 0.1, 0.05], osc.axis_angle_quaternion([0, 1, 0], np.pi / 2))
    pa, pb = osc.pose(), osc.apply_twist(lying, [0, 0, 0, 0, 0, 0.3])
    alpha, ga, gb = osc.dcol_parameter_gradient(a, pa, b, pb)
    h = 1e-6
    fd_r = (osc.dcol(osc.Convex.sphere(0.3 + h), pa, b, pb).alpha -
            osc.dcol(osc.Convex.sphere(0.3 - h), pa, b, pb).alpha) / (2 * h)
    fd_h = (osc.dcol(a, pa, osc.Convex.capsule(0.2, 0.4 + h), pb).alpha -
            osc.dcol(a, pa, osc.Convex.capsule(0.2, 0.4 - h), pb).alpha) / (2 * h)
    assert ga[0] == pytest.approx(fd_r, rel=1e-5)
    assert abs(fd_h) > 0.2 and gb[1] == pytest.approx(fd_h, rel=1e-5)


def test_batch_equals_single_bit_for_bit(rng):
    s = shapes()
    names = list(s)
    n = 64
    a = [s[names[i % len(names)]] for i in range(n)]
    b = [s[names[(3 * i + 1) % len(names)]] for i in range(n)]
    pa = np.array([random_pose(rng, 0.1) for _ in range(n)])
    pb = np.array([osc.pose(p[:3] + rng.normal(size=3), random_pose(rng)[3:]) for p in pa])
    batch = osc.dcol_batch(a, pa, b, pb, derivatives=True, threads=2)
    for i in range(0, n, 7):
        r = osc.dcol(a[i], pa[i], b[i], pb[i], derivatives=True)
        assert batch.alpha[i] == r.alpha and np.array_equal(batch.normal[i], r.normal)
        assert np.array_equal(batch.point_a[i], r.point_a) and batch.distance[i] == r.distance
        assert np.array_equal(batch.jacobians["normal"][i], r.normal_jacobian)
        assert np.array_equal(batch.jacobians["alpha"][i, 0], r.alpha_jacobian)
    one = osc.dcol_batch(s["box"], pa, s["sphere"], pb[0])  # one shape, broadcast pose
    assert one.alpha[5] == osc.dcol(s["box"], pa[5], s["sphere"], pb[0]).alpha


def test_warm_start_reproduces_the_answer():
    # origins 1e-13 apart have no contact point to start from: the pair takes the interior-point
    # start, which a warm start replaces (every contact, a point or a flat one, starts from its
    # exact optimum, docs/dcol.md §3.5); the twist turns the capsule, lying along x, about its origin
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    pa, pb = osc.pose(), osc.pose([1e-13, 0, 0], [np.sqrt(0.5), 0, np.sqrt(0.5), 0])
    ws = osc.DcolWarmStart()
    cold = osc.dcol(a, pa, b, pb, warm_start=ws)
    assert ws.valid
    turned = osc.apply_twist(pb, [0, 0, 0, 1e-3, 0, 0])
    warm = osc.dcol(a, pa, b, turned, warm_start=ws)
    assert warm.alpha == pytest.approx(osc.dcol(a, pa, b, turned).alpha, rel=1e-8)
    assert cold.iterations > 0


def test_bad_input_raises_never_crashes():
    a, b = osc.Convex.sphere(0.3), osc.Convex.sphere(0.5)
    with pytest.raises(ValueError, match="pose"):
        osc.dcol(a, [np.nan, 0, 0, 1, 0, 0, 0], b, osc.pose())
    with pytest.raises(ValueError):
        osc.dcol(a, [0, 0, 0, 0, 0, 0, 0], b, osc.pose())
    with pytest.raises(ValueError):
        osc.dcol(a, [0, 0, 0], b, osc.pose())
    with pytest.raises(ValueError):
        osc.dcol(a, osc.pose(), "sphere", osc.pose())
    with pytest.raises(ValueError):
        osc.dcol(a, osc.pose(), b, osc.pose([1, 0, 0]), tolerance=-1)
    with pytest.raises(TypeError):
        osc.dcol(a, osc.pose(), b, osc.pose(), tolerence=1e-6)
    with pytest.raises(ValueError):
        osc.dcol(a, osc.pose(), b, osc.pose(), max_iterations="many")
    # coincident origins take the general interior-point start, whose one iteration does not
    # converge (the other pairs start from their exact optimum, docs/dcol.md §3.5)
    with pytest.raises(osc.NotConvergedError):
        osc.dcol(osc.Convex.box([0.5, 0.4, 0.3]), osc.pose(), osc.Convex.capsule(0.2, 0.8),
                 osc.pose(), max_iterations=1)
    poses = np.tile(osc.pose([1, 0, 0]), (4, 1))
    poses[2, 0] = np.inf
    with pytest.raises(ValueError, match="pair 2"):
        osc.dcol_batch(a, osc.pose(), b, poses)
    r = osc.dcol_batch(a, osc.pose(), b, poses, check_status=False)
    assert list(r.status) == [0, 0, 1, 0]
    with pytest.raises(ValueError):
        osc.dcol_batch([a, a], osc.pose(), b, poses)
    with pytest.raises(ValueError):
        osc.dcol_batch(a, np.zeros((4, 6)), b, poses)
    with pytest.raises(ValueError):
        osc.Convex.polytope(np.eye(3), [1, 1, 1])  # too few and unbounded
    with pytest.raises(ValueError):
        osc.Convex.polytope(np.vstack([np.eye(3), -np.eye(3)]), [1, 1, 1, 1, 1, -1])  # origin outside
    with pytest.raises(ValueError):
        osc.Convex.ellipsoid([1.0, -1.0, 1.0])
    with pytest.raises(ValueError):
        osc.Convex.ellipsoid(np.eye(3))  # radii, not a matrix
    with pytest.raises(ValueError):
        osc.Convex.cone(0.0, 2.0)


def test_batch_out_reuses_arrays(rng):
    a, b = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.8)
    pa = np.array([random_pose(rng, 0.1) for _ in range(20)])
    pb1 = pa + np.r_[1.0, 0, 0, 0, 0, 0, 0]
    pb2 = pa + np.r_[0.7, 0.1, 0, 0, 0, 0, 0]
    first = osc.dcol_batch(a, pa, b, pb1, derivatives=True)
    jac = first.jacobians["normal"]
    again = osc.dcol_batch(a, pa, b, pb2, derivatives=True, out=first)
    assert again is first and again.jacobians["normal"] is jac
    fresh = osc.dcol_batch(a, pa, b, pb2, derivatives=True)
    for name in ("alpha", "point", "point_a", "point_b", "distance", "normal", "flags"):
        assert np.array_equal(getattr(again, name), getattr(fresh, name)), name
    assert np.array_equal(again.jacobians["point_b"], fresh.jacobians["point_b"])
    with pytest.raises(ValueError):
        osc.dcol_batch(a, pa[:5], b, pb2[:5], derivatives=True, out=first)
    with pytest.raises(ValueError):
        osc.dcol_batch(a, pa, b, pb2, out=first)  # derivatives do not match


def test_smoothed_flag_of_a_tiny_sphere_on_a_big_box():
    """dcol.h: a central point whose smoothing (about the tolerance times the pair's size)
    exceeds 1e-6 of a body's inner radius is flagged OSC_DCOL_SMOOTHED: a sphere 1e-4 the size
    of the box, half sunk into its top face. At the default tolerance (1e-10) the point contact
    ends at its exact optimum, unflagged, its contact point on the sphere; above 1e-9 the solver
    keeps the central point, whose point on the sphere lies 5e-5 (1e-8) and 5e-3 (1e-6) of its
    radius inside it: flagged. Cross-checked with a direct call of osc_dcol_proximity."""
    import ctypes as C

    from osculate import _ffi as F
    box, radius = osc.Convex.box([1.0, 1.0, 1.0]), 1e-4
    sphere = osc.Convex.sphere(radius)
    pb = osc.pose([0.3, 0.2, 1.0 + 0.5 * radius])
    poses = np.stack([osc.pose(), pb])
    for tolerance, flagged in ((1e-10, False), (1e-8, True), (1e-6, True)):
        r = osc.dcol(box, osc.pose(), sphere, pb, tolerance=tolerance)
        inside = 1.0 - np.linalg.norm(r.point_b - pb[:3]) / radius
        assert r.smoothed == flagged and not r.degenerate and not r.coincident
        assert (inside > 1e-6) == flagged, (tolerance, inside)
        assert r.flags == (osc.DCOL_SMOOTHED if flagged else 0)
        # the C library's own answer
        s = osc.dcol_settings(tolerance=tolerance)
        c = F.DcolResult()
        settings = F.DcolSettings(s["tolerance"], s["max_iterations"], s["regularization"])
        assert F.lib.osc_dcol_proximity(box, F.pose(osc.pose()), sphere, F.pose(pb),
                                        C.byref(settings), C.addressof(c), None, None) == 0
        assert c.flags == r.flags and c.alpha == r.alpha
        # batches and their boolean views
        batch = osc.dcol_batch([box, sphere], poses, [sphere, box], poses[::-1],
                               tolerance=tolerance)
        np.testing.assert_array_equal(batch.flags, [r.flags, r.flags])
        np.testing.assert_array_equal(batch.smoothed, [flagged, flagged])
        assert not batch.degenerate.any() and not batch.coincident.any()
    assert osc.dcol(box, osc.pose(), sphere, pb).smoothed is False
    coincident = osc.dcol_batch(box, osc.pose(), sphere, osc.pose())
    assert coincident.coincident.tolist() == [True]


def test_kinds_are_the_c_librarys():
    """Convex.kind maps osc_convex_get_kind through KINDS; OSC_CONVEX_INVALID is what the library
    returns for no shape, and its names are osc_convex_kind_name's."""
    from osculate import _ffi as F
    from osculate._convex import KIND_INVALID
    assert F.lib.osc_convex_get_kind(None) == KIND_INVALID
    assert F.lib.osc_convex_kind_name(KIND_INVALID) == b"unknown"
    assert [F.lib.osc_convex_kind_name(k).decode() for k in range(len(osc.KINDS))] == \
        list(osc.KINDS)
    for name, shape in shapes().items():
        assert shape.kind == osc.KINDS[F.lib.osc_convex_get_kind(shape)]
