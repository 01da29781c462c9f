"""The host side of osculate.torch (_host) for the queries whose outputs are padded to a capacity
(manifolds, SDF pairs, local minimal distances): the slots that hold a contact equal the NumPy
query's, values and twist Jacobians, bit for bit, and the padding holds the documented values."""

import numpy as np
import pytest

import osculate as osc
from osculate import _host


def _check_padded(values, twist, refs, outputs, padding):
    """values / twist of a _host *_twist query against refs[i] (the NumPy query of pair i: its
    arrays by output name, twist Jacobians by name + "_jacobian"): found slots bit for bit, values
    of empty slots `padding[name]` (0 by default); the Jacobians of empty slots are unspecified."""
    for i, ref in enumerate(refs):
        k = len(ref["distance"])
        assert values["count"][i] == k
        for name in outputs:
            np.testing.assert_array_equal(values[name][i, :k], ref[name])
            assert np.all(values[name][i, k:] == padding.get(name, 0.0))
            if k:
                want = ref[name + "_jacobian"]  # [k, 12] or [k, rows, 12]
                np.testing.assert_array_equal(twist[name][i, :k].reshape(want.shape), want)


def test_manifold_found_slots_equal_the_numpy_query(sphere_body):
    body, _, _ = sphere_body
    pa = np.stack([osc.pose([0, 0, 0], osc.axis_angle_quaternion([1, 2, 3], 0.3))] * 3)
    pb = np.stack([osc.pose([0.96, 0.05, -0.02], osc.axis_angle_quaternion([0, 1, 0], 0.5)),
                   osc.pose([5.0, 0.0, 0.0]),  # far apart: no contact
                   osc.pose([0.9, 0.1, 0.0], osc.axis_angle_quaternion([1, 0, 0], 0.2))])
    cap = osc.max_contacts(body, body)
    values, twist = _host.manifold_twist(body, body, {}, cap, pa, pb, True)
    refs = []
    for i in range(3):
        m = osc.manifold_collide(body, pa[i], body, pb[i], derivatives=True)
        refs.append({n: getattr(m, n) for n in ("point", "distance", "normal", "weight")} |
                    {n + "_jacobian": getattr(m, n + "_jacobian")
                     for n in ("point", "distance", "normal", "weight")})
    counts = [len(r["distance"]) for r in refs]
    assert counts[0] > 0 and counts[1] == 0 and counts[2] > 0 and max(counts) < cap
    _check_padded(values, twist, refs, ("point", "distance", "normal", "weight"),
                  {"distance": osc.manifold_settings()["d_max"]})
    assert _host.manifold_twist(body, body, {}, cap, pa, pb, False)[1] == {}


def test_sdf_pair_found_slots_equal_the_numpy_query():
    a, b = osc.SDF.sphere(0.5), osc.SDF.box([0.4, 0.3, 0.35], rounding=0.1)
    pa = np.stack([osc.pose([0.1, 0.2, 0.3])] * 3)
    pb = np.stack([osc.pose([0.85, 0.25, 0.3], osc.axis_angle_quaternion([0, 0, 1], 0.2)),
                   osc.pose([9.0, 0.0, 0.0]), osc.pose([0.7, 0.2, 0.3])])
    settings = {"temperature": 0.02}
    values, twist = _host.sdf_pair_twist(a, b, settings, 16, pa, pb, True)
    refs = []
    for i in range(3):
        r = osc.sdf_pair_collide(a, pa[i], b, pb[i], capacity=16, derivatives=True, **settings)
        refs.append({"point": r.point, "distance": r.distance, "point_jacobian": r.point_jacobian,
                     "distance_jacobian": r.distance_jacobian})
    counts = [len(r["distance"]) for r in refs]
    assert counts[0] > 0 and counts[1] == 0 and counts[2] > 0
    _check_padded(values, twist, refs, ("point", "distance"), {})


def test_lmd_found_slots_equal_the_numpy_query():
    box, cyl = osc.Brep.box([1.0, 1.0, 0.5]), osc.Brep.cylinder(0.4, 0.6)
    pa = np.stack([osc.pose()] * 3)
    pb = np.stack([osc.pose([0.1, 0.2, 1.3]), osc.pose([9.0, 0.0, 0.0]),
                   osc.pose([0.0, 0.0, 1.4], osc.axis_angle_quaternion([1, 0, 0], 0.1))])
    settings = {"d_max": 2.0, "conformal_samples": 20}
    values, twist = _host.lmd_twist(box, cyl, settings, 32, pa, pb, True)
    refs = []
    for i in range(3):
        r = osc.lmd(box, pa[i], cyl, pb[i], capacity=32, **settings)
        refs.append({"distance": r.distance, "distance_jacobian": r.distance_jacobian})
    counts = [len(r["distance"]) for r in refs]
    assert counts[0] > 1 and counts[1] == 0 and counts[2] > 0
    s = osc.lmd_settings(**settings)
    _check_padded(values, twist, refs, ("distance",),
                  {"distance": s["d_max"] - s["eps_a"] - s["eps_b"]})
