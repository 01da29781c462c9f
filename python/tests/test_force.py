"""contact_forces (force.h): equal to osc_force_evaluate called directly through ctypes on contacts
made by the C converters (osc_force_contact_from_*), bit for bit, for each query family; the
closed form of one contact; both wrench Jacobians against central differences (poses along left
twists, velocities directly); equal and opposite forces; bad arguments named."""

import ctypes as C
import os
import re

import numpy as np
import pytest
from conftest import fd_twist

import osculate as osc
from osculate import _ffi as F

VA = np.array([0.05, -0.02, 0.1, 0.3, -0.2, 0.1])  # (linear, angular) of A
VB = np.array([-0.2, 0.05, 0.03, 0.1, 0.4, -0.3])


# ------------------------------------------------------------------------------------------------
# the four query families, each with its contacts and a function that reruns it at other poses


def manifold_case(sphere_body):
    body = sphere_body[0]
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([1, 2, 3], 0.3))
    pb = osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5))
    return pa, pb, lambda p, q, **kw: osc.manifold_collide(body, p, body, q, **kw)


def dcol_case():
    box, capsule = osc.Convex.box([0.5, 0.4, 0.3]), osc.Convex.capsule(0.2, 0.4)
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([0, 0, 1], 0.1))
    pb = osc.apply_twist(osc.pose([0.9, 0.2, 0.0], osc.axis_angle_quaternion([0, 1, 0], np.pi / 2)),
                         [0, 0, 0, 0, 0, 0.3])
    # tolerance 1e-6: a smoother answer whose derivatives finite differences can see
    return pa, pb, lambda p, q, **kw: osc.dcol(box, p, capsule, q, tolerance=1e-6, **kw)


def sdf_pair_case():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = osc.pose([0.1, 0.2, 0.3])
    pb = osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2))
    return pa, pb, lambda p, q, **kw: osc.sdf_pair_collide(a, p, b, q, temperature=0.02, **kw)


def lmd_case():
    box, sphere = osc.Brep.box([1.0, 1.0, 0.5]), osc.Brep.sphere(0.3)
    pa = osc.pose([0.0, 0.0, 0.0], osc.axis_angle_quaternion([1, 0, 0], 0.05))
    pb = osc.pose([0.2, -0.1, 0.81], osc.axis_angle_quaternion([0, 1, 0], 0.4))
    # the dilated solids interpenetrate: gap 0.01 - eps_b = -0.04
    return pa, pb, lambda p, q, **kw: osc.lmd(box, p, sphere, q, d_max=0.5, eps_b=0.05)


def cases(sphere_body):
    return {"manifold": manifold_case(sphere_body), "dcol": dcol_case(),
            "sdf_pair": sdf_pair_case(), "lmd": lmd_case()}


FAMILIES = ("manifold", "dcol", "sdf_pair", "lmd")


# ------------------------------------------------------------------------------------------------
# the C side: the library's converters on the query's C output, rebuilt from the Python result


def vec3(v):
    return F.Vec3(*map(float, v))


def c_contacts(family, r):
    """The osc_force_contact array that the C converter of `family` makes from result r, and what
    it points into."""
    ptr = lambda a: None if a is None else F.ptr(np.ascontiguousarray(a))  # noqa: E731
    if family == "dcol":
        res = F.DcolResult(alpha=r.alpha, point=vec3(r.point), distance=r.distance,
                           normal=vec3(r.normal))
        keep = [np.ascontiguousarray(a) for a in (r.point_jacobian, r.normal_jacobian,
                                                   r.distance_jacobian)]
        jac = F.DcolJacobians(point=F.ptr(keep[0]), normal=F.ptr(keep[1]), distance=F.ptr(keep[2]))
        one = F.lib.osc_force_contact_from_dcol(C.byref(res), C.byref(jac))
        return (F.ForceContact * 1)(one), keep
    n = len(r)
    if family == "manifold":
        records = (F.ManifoldContact * n)()
        for i, k in enumerate(records):
            k.point, k.normal = vec3(r.point[i]), vec3(r.normal[i])
            k.distance, k.weight = r.distance[i], r.weight[i]
        keep = [np.ascontiguousarray(getattr(r, name + "_jacobian"))
                for name in ("point", "distance", "normal", "weight")]
        out = F.ManifoldOutput(records, n, n, n, *[F.ptr(a) for a in keep])
        convert = F.lib.osc_force_contact_from_manifold
    elif family == "sdf_pair":
        records = (F.SdfPairContact * n)()
        for i, k in enumerate(records):
            k.point, k.normal = vec3(r.point[i]), vec3(r.normal[i])
            k.distance, k.smooth = r.distance[i], int(r.smooth[i])
        keep = [np.ascontiguousarray(r.point_jacobian), np.ascontiguousarray(r.distance_jacobian)]
        out = F.SdfPairOutput(records, n, n, n, F.ptr(keep[0]), F.ptr(keep[1]), 1, 0, 0)
        convert = F.lib.osc_force_contact_from_sdf_pair
    else:
        records = (F.LmdContact * n)()
        for i, k in enumerate(records):
            k.point_a, k.point_b, k.normal = (vec3(r.point_a[i]), vec3(r.point_b[i]),
                                              vec3(r.normal[i]))
            k.distance = r.distance[i]
        keep = [np.ascontiguousarray(r.distance_jacobian)]
        out = F.LmdOutput(records, n, n, n, F.ptr(keep[0]))
        convert = F.lib.osc_force_contact_from_lmd
    del ptr
    return (F.ForceContact * n)(*[convert(C.byref(out), i) for i in range(n)]), keep + [records]


def c_evaluate(contacts, pa, va, pb, vb, **settings):
    """osc_force_evaluate called directly: (status, wrench_a, wrench_b, per-contact results,
    pose_jacobian, velocity_jacobian)."""
    n = len(contacts)
    results = (F.ForceContactResult * max(n, 1))()
    pj, vj = np.full((12, 12), np.nan), np.full((12, 12), np.nan)
    out = F.ForceOutput(C.cast(results, C.POINTER(F.ForceContactResult)), (F.D * 6)(),
                        (F.D * 6)(), F.ptr(pj), F.ptr(vj))
    s = F.lib.osc_force_settings_default()
    for k, v in settings.items():
        setattr(s, k, v)
    velocity = lambda v: F.BodyVelocity(vec3(v[:3]), vec3(v[3:]))  # noqa: E731
    rc = F.lib.osc_force_evaluate(C.addressof(contacts), n, F.pose(pa), velocity(va),
                                  F.pose(pb), velocity(vb), C.byref(s), C.byref(out))
    per_contact = np.array([[k.normal_force, k.penetration_rate, k.slip_velocity.x,
                             k.slip_velocity.y, k.slip_velocity.z, k.force.x, k.force.y,
                             k.force.z] for k in results[:n]]).reshape(n, 8)
    return rc, np.array(out.wrench_a[:]), np.array(out.wrench_b[:]), per_contact, pj, vj


def same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("family", FAMILIES)
def test_equals_the_c_converters_and_evaluate_bit_for_bit(family, sphere_body):
    pa, pb, query = cases(sphere_body)[family]
    r = query(pa, pb, derivatives=True)
    settings = dict(stiffness=2e4, friction=0.7, damping=0.5)
    got = osc.contact_forces(r, pa, VA, pb, VB, derivatives=True, **settings)
    contacts, keep = c_contacts(family, r)
    rc, wa, wb, per_contact, pj, vj = c_evaluate(contacts, pa, VA, pb, VB, **settings)
    assert rc == 0
    n = len(contacts)
    assert n >= 1 and len(got) == n
    assert np.abs(got.wrench_b[:3]).max() > 1.0  # the bodies press on each other
    assert same_bits(got.wrench_a, wa) and same_bits(got.wrench_b, wb)
    assert same_bits(got.pose_jacobian, pj) and same_bits(got.velocity_jacobian, vj)
    mine = np.column_stack([got.normal_force, got.penetration_rate, got.slip_velocity, got.force])
    assert same_bits(mine, per_contact)
    # without derivatives: the same wrenches, no Jacobians
    plain = osc.contact_forces(r, pa, VA, pb, VB, **settings)
    assert same_bits(plain.wrench_a, wa) and plain.pose_jacobian is None
    assert plain.velocity_jacobian is None
    # the same contacts as plain arrays through force_contacts' dict form, Jacobians included
    fc = osc.force_contacts(r)
    d = {k: getattr(fc, k) for k in ("point", "normal", "distance", "weight", "point_jacobian",
                                     "normal_jacobian", "distance_jacobian", "weight_jacobian",
                                     "has_jacobian")}
    again = osc.contact_forces(d, pa, VA, pb, VB, derivatives=True, **settings)
    assert same_bits(again.pose_jacobian, pj) and same_bits(again.wrench_b, wb)
    if family == "sdf_pair":  # a contact outside the smooth mode has no Jacobian rows in C
        r.smooth = r.smooth.copy()
        r.smooth[0] = 0
        got = osc.contact_forces(r, pa, VA, pb, VB, derivatives=True, **settings)
        contacts, keep = c_contacts(family, r)
        rc, wa, wb, per_contact, pj2, vj = c_evaluate(contacts, pa, VA, pb, VB, **settings)
        assert rc == 0 and same_bits(got.pose_jacobian, pj2) and not same_bits(pj2, pj)
    del keep


def test_query_without_derivatives_holds_the_contacts_fixed(sphere_body):
    pa, pb, query = manifold_case(sphere_body)
    r = query(pa, pb)
    assert r.point_jacobian is None
    got = osc.contact_forces(r, pa, VA, pb, VB, derivatives=True)
    frozen = osc.contact_forces((r.point, r.normal, r.distance, r.weight), pa, VA, pb, VB,
                                derivatives=True)
    assert same_bits(got.pose_jacobian, frozen.pose_jacobian)
    # held fixed, the contacts see the poses only through the origins (the torque arms and the
    # material points' velocities omega x (x - p)), which rotations leave where they are
    assert np.all(got.pose_jacobian[:, 3:6] == 0) and np.all(got.pose_jacobian[:, 9:12] == 0)
    assert np.abs(got.pose_jacobian[:, :3]).max() > 1.0


# ------------------------------------------------------------------------------------------------
# closed form, momentum


def test_one_contact_closed_form():
    """A contact at depth delta approached at rate r and sliding at V: f_n = k s+(delta)^e
    s+(1 + c r), friction -mu f_n v_t / sqrt(|v_t|^2 + eps^2), torques about the origins."""
    s = osc.force_settings(friction=0.4, damping=2.0)
    x, n, d = np.array([0.3, -0.1, 0.0]), np.array([0.0, 0.0, 1.0]), -0.004
    pa, pb = osc.pose([0.0, 0.0, -1.0]), osc.pose([0.1, 0.2, 0.5])
    va, vb = np.zeros(6), np.array([0.25, -0.1, -0.3, 0.0, 0.0, 0.0])  # B: down at 0.3, slides
    f = osc.contact_forces((x[None], n[None], [d], [0.8]), pa, va, pb, vb, **s)
    spring = s["stiffness"] * osc.softplus(-d, s["depth_temperature"]) ** s["exponent"]
    fn = spring * osc.softplus(1 + s["damping"] * 0.3, s["damping_temperature"])
    vt = np.array([0.25, -0.1, 0.0])
    friction = -s["friction"] * fn * vt / np.sqrt(vt @ vt + s["friction_velocity"] ** 2)
    force = 0.8 * (fn * n + friction)
    assert f.normal_force[0] == pytest.approx(fn, rel=1e-14)
    assert f.penetration_rate[0] == pytest.approx(0.3, rel=1e-14)
    np.testing.assert_allclose(f.slip_velocity[0], vt, rtol=1e-14)
    np.testing.assert_allclose(f.force[0], force, rtol=1e-13)
    np.testing.assert_allclose(f.wrench_b, np.r_[force, np.cross(x - pb[:3], force)], rtol=1e-13)
    np.testing.assert_allclose(f.wrench_a, np.r_[-force, -np.cross(x - pa[:3], force)],
                               rtol=1e-13)
    # separating faster than 1 / c: no force (the hard clamp), never a pull (the smooth one)
    away = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    hard = osc.contact_forces((x[None], n[None], [d]), pa, None, pb, away, damping=2.0,
                              damping_temperature=0.0)
    assert hard.normal_force[0] == 0.0 and np.all(hard.wrench_b == 0)
    smooth = osc.contact_forces((x[None], n[None], [d]), pa, None, pb, away, damping=2.0)
    assert 0.0 < smooth.normal_force[0] < 1e-30


@pytest.mark.parametrize("family", FAMILIES)
def test_forces_equal_and_opposite(family, sphere_body):
    pa, pb, query = cases(sphere_body)[family]
    f = osc.contact_forces(query(pa, pb, derivatives=True), pa, VA, pb, VB, derivatives=True)
    assert np.array_equal(f.wrench_a[:3], -f.wrench_b[:3])
    np.testing.assert_allclose(f.force.sum(axis=0), f.wrench_b[:3], rtol=1e-13,
                               atol=1e-13 * np.abs(f.force).max())
    # torques about the world origin cancel, and so do the same combinations of every column
    def about_origin(rows_a, rows_b):
        return (rows_a[3:6] + np.cross(pa[:3], rows_a[:3], axis=0)
                + rows_b[3:6] + np.cross(pb[:3], rows_b[:3], axis=0))
    scale = np.abs(f.wrench_b).max() * (1 + np.abs(np.r_[pa[:3], pb[:3]]).max())
    assert np.abs(about_origin(f.wrench_a, f.wrench_b)).max() < 1e-13 * scale
    for J in (f.pose_jacobian, f.velocity_jacobian):
        assert np.array_equal(J[0:3], -J[6:9])
        moment = about_origin(J[0:6], J[6:12])
        if J is f.pose_jacobian:  # translating a body moves its origin: dp x (its force)
            moment[:, 0:3] += np.cross(np.eye(3), f.wrench_a[:3]).T
            moment[:, 6:9] += np.cross(np.eye(3), f.wrench_b[:3]).T
        assert np.abs(moment).max() < 1e-12 * np.abs(J).max() * (1 + np.abs(pb[:3]).max()), \
            np.abs(moment).max()


# ------------------------------------------------------------------------------------------------
# Jacobians against central differences


def frozen(family, r, base):
    """Contacts of r with what the query does not differentiate held at the base query's values
    (SDF pairs: the normal; LMD: the point and normal), matched to base's contacts."""
    if family == "sdf_pair":
        assert len(r) == len(base)
        fc = osc.force_contacts(r)
        fc.normal = base.normal
        return fc
    if family == "lmd":
        order = [int(np.flatnonzero(r.key == k)[0]) for k in base.key]
        fb = osc.force_contacts(base)
        return (fb.point, fb.normal, r.distance[order], fb.weight)
    if family == "manifold":
        assert list(zip(r.body, r.kind, r.feature)) == list(zip(base.body, base.kind, base.feature))
    return r


@pytest.mark.parametrize("family", FAMILIES)
def test_jacobians_match_central_differences(family, sphere_body):
    pa, pb, query = cases(sphere_body)[family]
    base = query(pa, pb, derivatives=True)
    if family == "sdf_pair":
        assert np.all(base.smooth == 1)
    f = osc.contact_forces(base, pa, VA, pb, VB, derivatives=True)

    def wrench(p, q, va=VA, vb=VB):
        w = osc.contact_forces(frozen(family, query(p, q), base), p, va, q, vb)
        return np.r_[w.wrench_a, w.wrench_b]

    fd_pose = np.concatenate([fd_twist(lambda p: wrench(p, pb), pa),
                              fd_twist(lambda q: wrench(pa, q), pb)], axis=-1)
    h = 1e-6
    fd_velocity = np.empty((12, 12))
    for j in range(12):
        e = np.zeros(12)
        e[j] = h
        plus = wrench(pa, pb, VA + e[:6], VB + e[6:])
        minus = wrench(pa, pb, VA - e[:6], VB - e[6:])
        fd_velocity[:, j] = (plus - minus) / (2 * h)
    for name, J, fd in (("pose", f.pose_jacobian, fd_pose),
                        ("velocity", f.velocity_jacobian, fd_velocity)):
        scale = np.abs(J).max()
        assert scale > 1.0
        error = np.abs(J - fd).max() / scale
        print("%s %s Jacobian: relative error %.3g" % (family, name, error))
        assert error < 1e-5, "%s %s Jacobian: relative error %.3g" % (family, name, error)


def test_plain_arrays_jacobians_with_fixed_contacts():
    """Contacts given as arrays without Jacobians are held fixed: the pose Jacobian is then the
    derivative with respect to the origins alone (rotations change nothing)."""
    rng = np.random.default_rng(3)
    n = 5
    x = rng.normal(size=(n, 3)) * 0.3
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    d, w = rng.uniform(-0.01, 0.001, n), rng.uniform(0.2, 1.0, n)
    pa, pb = osc.pose([0.1, -0.2, 0.3]), osc.pose([0.5, 0.4, -0.2], osc.axis_angle_quaternion(
        [1, 1, 0], 0.7))
    args = (x, normal, d, w)
    f = osc.contact_forces(args, pa, VA, pb, VB, derivatives=True, depth_temperature=1e-3)

    def wrench(p, q):
        g = osc.contact_forces(args, p, VA, q, VB, depth_temperature=1e-3)
        return np.r_[g.wrench_a, g.wrench_b]

    fd = np.concatenate([fd_twist(lambda p: wrench(p, pb), pa),
                         fd_twist(lambda q: wrench(pa, q), pb)], axis=-1)
    np.testing.assert_allclose(f.pose_jacobian, fd, atol=1e-6 * np.abs(f.pose_jacobian).max())
    assert np.all(f.pose_jacobian[:, 3:6] == 0) and np.all(f.pose_jacobian[:, 9:12] == 0)


# ------------------------------------------------------------------------------------------------
# arguments


def test_settings_are_the_c_defaults_by_name():
    s = osc.force_settings()
    assert s == dict(stiffness=1e4, exponent=1.5, damping=1.0, friction=0.5,
                     friction_velocity=1e-3, depth_temperature=1e-4, damping_temperature=0.01)
    assert list(s) == [name for name, _ in F.ForceSettings._fields_]
    assert osc.force_settings(friction=0.2)["friction"] == 0.2


def test_empty_contacts_give_zero_wrenches():
    f = osc.contact_forces((np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)), osc.pose(), VA,
                           osc.pose([1, 0, 0]), VB, derivatives=True)
    assert len(f) == 0 and f.force.shape == (0, 3) and f.slip_velocity.shape == (0, 3)
    assert np.all(f.wrench_a == 0) and np.all(f.wrench_b == 0)
    assert np.all(f.pose_jacobian == 0) and np.all(f.velocity_jacobian == 0)


def test_strided_and_integer_inputs_give_the_same_bits():
    x = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0]])
    n = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    want = osc.contact_forces((x, n, [-0.01, -0.02]), osc.pose(), VA, osc.pose([0, 0, 1]), VB)
    wide = np.zeros((2, 6))
    wide[:, ::2] = x
    got = osc.contact_forces((wide[:, ::2], np.asfortranarray(n), np.array([-0.01, -0.02])[::1]),
                             osc.pose(), list(VA), [0, 0, 1, 1, 0, 0, 0], tuple(VB))
    assert same_bits(got.wrench_b, want.wrench_b)
    ints = osc.contact_forces((x, n.astype(int), [-0.01, -0.02]), osc.pose(), VA,
                              osc.pose([0, 0, 1]), VB)
    assert same_bits(ints.wrench_b, want.wrench_b)


def test_bad_arguments_name_the_problem(sphere_body):
    pa, pb, query = manifold_case(sphere_body)
    m = query(pa, pb, derivatives=True)
    x, n, d = np.zeros((2, 3)), np.tile([0.0, 0.0, 1.0], (2, 1)), np.array([-0.01, 0.0])
    good = (x, n, d)
    cases = [
        (dict(velocity_a=np.zeros(5)), ValueError, "velocity_a must have shape"),
        (dict(velocity_b=[0, 0, 0, 0, 0, 1j]), ValueError, "velocity_b must hold real"),
        (dict(velocity_a=[np.nan, 0, 0, 0, 0, 0]), osc.InvalidArgumentError,
         "velocity_a.linear"),
        (dict(velocity_b=[0, 0, 0, 0, 0, 1e31]), osc.InvalidArgumentError, "velocity_b.angular"),
        (dict(pose_b=[0, 0, 0, 0, 0, 0, 0]), osc.InvalidArgumentError, "pose_b.q"),
        (dict(pose_a=np.zeros(6)), ValueError, "pose_a must have shape"),
        (dict(contacts=(x, n)), ValueError, "contacts must be"),
        (dict(contacts="contacts"), ValueError, "contacts must be"),
        (dict(contacts=(x, n[:1], d)), ValueError, "contacts.normal must have shape"),
        (dict(contacts=(x, n, d, [1.0])), ValueError, "contacts.weight must have shape"),
        (dict(contacts=(x, n, d.reshape(2, 1))), ValueError, "contacts.distance must have shape"),
        (dict(contacts=(x, 2 * n, d)), osc.InvalidArgumentError, r"contacts\[0\].normal"),
        (dict(contacts=(x, n, [-0.01, np.inf])), osc.InvalidArgumentError,
         r"contacts\[1\].distance"),
        (dict(contacts=(x, n, d, [1.0, 1.5])), osc.InvalidArgumentError, r"contacts\[1\].weight"),
        (dict(contacts=dict(point=x, normal=n, distance=d, point_jacobian=np.zeros((2, 3, 11)))),
         ValueError, "contacts.point_jacobian must have shape"),
        (dict(contacts=dict(point=x, normal=n, distance=d,
                            distance_jacobian=np.full((2, 12), np.nan))),
         osc.InvalidArgumentError, r"contacts\[0\].distance_jacobian"),
        (dict(contacts=dict(point=x, normal=n, distance=d, has_jacobian=[1, 0])), ValueError,
         "contacts.has_jacobian"),
        (dict(contacts=dict(point=x, normal=n)), ValueError, "missing keys"),
        (dict(contacts=dict(point=x, normal=n, distance=d, speed=d)), ValueError, "unknown keys"),
        (dict(settings=dict(stiffness=-1.0)), osc.InvalidArgumentError, "settings.stiffness"),
        (dict(settings=dict(exponent=5.0)), osc.InvalidArgumentError, "settings.exponent"),
        (dict(settings=dict(friction_velocity=0.0)), osc.InvalidArgumentError,
         "settings.friction_velocity"),
        (dict(settings=dict(friction="a lot")), ValueError, "setting friction"),
        (dict(settings=dict(stifness=1.0)), TypeError, "unknown setting 'stifness'"),
    ]
    for change, kind, message in cases:
        args = dict(contacts=good, pose_a=pa, velocity_a=VA, pose_b=pb, velocity_b=VB)
        settings = change.pop("settings", {})
        args.update(change)
        with pytest.raises(kind, match=message):
            osc.contact_forces(args["contacts"], args["pose_a"], args["velocity_a"],
                               args["pose_b"], args["velocity_b"], **settings)
    # a Jacobian with a NaN in a manifold result is named with its contact
    m.normal_jacobian = m.normal_jacobian.copy()
    m.normal_jacobian[1, 2, 5] = np.nan
    with pytest.raises(osc.InvalidArgumentError, match=r"contacts\[1\].normal_jacobian"):
        osc.contact_forces(m, pa, VA, pb, VB, derivatives=True)


# ------------------------------------------------------------------------------------------------
# the guide


def test_guide_section_runs(capsys):
    """docs/python.md's contact-forces example prints what its comments say."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    text = open(os.path.join(root, "docs", "python.md")).read()
    start = text.index("## Contact forces")
    blocks = re.findall(r"```python\n(.*?)```", text[start:text.index("\n## ", start + 1)], re.S)
    assert len(blocks) == 1
    scope = {}
    exec(compile(blocks[0], "docs/python.md", "exec"), scope)  # noqa: S102 - the guide's own code
    lines = capsys.readouterr().out.splitlines()
    # each printed line is what its comment in the guide says (up to NumPy's padding)
    said = [line.split("#")[1].split(":")[0].strip() for line in blocks[0].splitlines()
            if line.startswith("print(")]
    norm = lambda text: " ".join(text.split()).replace("[ ", "[")  # noqa: E731
    assert len(said) == 6 and [norm(line) for line in lines] == said
    # the ball's weight: k depth^1.5 = 10 at depth 0.01
    assert scope["h"].normal_force[0] == pytest.approx(10.0, rel=1e-9)
