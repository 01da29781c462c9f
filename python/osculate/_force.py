"""Compliant contact forces with exact derivatives (force.h): Hunt and Crossley's spring-damper
with regularised Coulomb friction over the contacts of any query family (manifold_collide, dcol,
sdf_pair_collide in smooth mode, lmd) or plain arrays, the net wrench on each body and its
Jacobians with respect to both poses (left twists, A's then B's) and both velocities
(docs/force.md derives every formula)."""

import ctypes as C
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _ffi as F
from ._base import check
from ._dcol import DcolResult
from ._ffi import lib
from ._lmd import LmdContacts
from ._manifold import Manifold
from ._sdf_pair import SdfPairResult


_CONTACT = F.as_dtype(F.ForceContact)
_RESULT = F.as_dtype(F.ForceContactResult)
# the contact Jacobians: name -> rows per contact (osc_force_contact's pointers)
_JACOBIANS = (("point", 3), ("normal", 3), ("distance", 1), ("weight", 1))
_FIELDS = ("point", "normal", "distance", "weight") + tuple(n + "_jacobian" for n, _ in _JACOBIANS) \
    + ("has_jacobian",)


def force_settings(**settings):
    """The contact model's settings as a dict (osc_force_settings_default) with overrides:
    stiffness k (1e4, force / length^exponent), exponent e (1.5, Hertz), damping c (1, Hunt and
    Crossley's damping over stiffness, 1 / velocity), friction mu (0.5), friction_velocity eps
    (1e-3, the slip speed below which friction is regularised), depth_temperature tau_d (1e-4, a
    length; 0: relu), damping_temperature tau_c (0.01; 0: the hard clamp at zero)."""
    return F.struct_dict(_force_settings(settings, "force_settings"))


def _force_settings(kw, what):
    return F.settings(lib.osc_force_settings_default(), kw, what)


@dataclass
class ForceContacts:
    """Contacts between bodies A and B in the vocabulary every query family shares
    (osc_force_contact): point [n, 3] (world, where the force acts), normal [n, 3] (unit, from A to
    B; may be zero where the weight is 0), distance [n] (signed: negative is penetration), weight
    [n] (the share of the force in [0, 1]: the manifold's transition weight, 1 elsewhere), and
    optionally their pose Jacobians along the twists of A then B: point_jacobian and
    normal_jacobian [n, 3, 12], distance_jacobian and weight_jacobian [n, 12]. A Jacobian that is
    None is zero: that quantity is held fixed when the poses move. has_jacobian [n] bool (None:
    every contact) says which contacts' rows are given; the others are held fixed (an SDF-pair
    point outside the smooth mode)."""

    point: np.ndarray
    normal: np.ndarray
    distance: np.ndarray
    weight: np.ndarray
    point_jacobian: Optional[np.ndarray] = None
    normal_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None
    weight_jacobian: Optional[np.ndarray] = None
    has_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.distance)


def force_contacts(contacts):
    """`contacts` as ForceContacts, as the C converters (osc_force_contact_from_*) make them,
    borrowing the result's arrays (nothing is copied):
    - Manifold (manifold_collide): point, normal, distance, weight and all four Jacobians;
    - DcolResult (dcol): one contact at the intersection point x of the scaled shapes, with the
      normal, the distance and weight 1; point, normal and distance Jacobians;
    - SdfPairResult (sdf_pair_collide): point, normal, distance, weight 1; the point and distance
      Jacobians of the smooth contacts (the query has no normal Jacobian: normals are held fixed);
    - LmdContacts (lmd): the midpoint of the two footpoints, normal, gap, weight 1; the distance
      Jacobian (points and normals are held fixed);
    - ForceContacts: itself;
    - a dict with the keys point, normal, distance and optionally weight (default 1) and the
      *_jacobian of ForceContacts;
    - a tuple (points [n, 3], normals [n, 3], distances [n]) or (points, normals, distances,
      weights [n]).
    The Jacobians are present when the query ran with derivatives=True."""
    if isinstance(contacts, ForceContacts):
        return contacts
    if isinstance(contacts, Manifold):
        return ForceContacts(contacts.point, contacts.normal, contacts.distance, contacts.weight,
                             contacts.point_jacobian, contacts.normal_jacobian,
                             contacts.distance_jacobian, contacts.weight_jacobian)
    if isinstance(contacts, DcolResult):
        one = (lambda a: None if a is None else np.asarray(a)[None])
        return ForceContacts(one(contacts.point), one(contacts.normal),
                             np.array([contacts.distance], dtype=float), np.ones(1),
                             one(contacts.point_jacobian), one(contacts.normal_jacobian),
                             one(contacts.distance_jacobian))
    if isinstance(contacts, SdfPairResult):
        return ForceContacts(contacts.point, contacts.normal, contacts.distance,
                             np.ones(len(contacts.distance)), contacts.point_jacobian,
                             distance_jacobian=contacts.distance_jacobian,
                             has_jacobian=np.asarray(contacts.smooth) != 0)
    if isinstance(contacts, LmdContacts):
        midpoint = (F.floats(contacts.point_a, "contacts.point_a")
                    + F.floats(contacts.point_b, "contacts.point_b")) * 0.5
        return ForceContacts(midpoint, contacts.normal, contacts.distance,
                             np.ones(len(contacts.distance)),
                             distance_jacobian=contacts.distance_jacobian)
    if isinstance(contacts, dict):
        unknown = sorted(set(contacts) - set(_FIELDS))
        if unknown:
            raise ValueError("contacts: unknown keys %s (known: %s)" % (unknown, ", ".join(_FIELDS)))
        missing = [k for k in ("point", "normal", "distance") if k not in contacts]
        if missing:
            raise ValueError("contacts: missing keys %s" % missing)
        d = dict(contacts)
        if d.get("weight") is None:
            d["weight"] = np.ones(len(np.atleast_1d(d["distance"])))
        return ForceContacts(**d)
    if isinstance(contacts, tuple) and len(contacts) in (3, 4):
        point, normal, distance = contacts[:3]
        weight = contacts[3] if len(contacts) == 4 else np.ones(len(np.atleast_1d(distance)))
        return ForceContacts(point, normal, distance, weight)
    raise ValueError("contacts must be the result of manifold_collide, dcol, sdf_pair_collide or "
                     "lmd, ForceContacts, a dict or a tuple (points, normals, distances[, "
                     "weights]), got %r" % type(contacts).__name__)


def _records(fc):
    """The osc_force_contact records [n] of ForceContacts, and the arrays their Jacobian pointers
    point into (to keep alive during the call). ValueError naming the field for a wrong shape."""
    distance = F.array(fc.distance, np.float64, (-1,), "contacts.distance")
    n = len(distance)
    records = np.zeros(n, dtype=_CONTACT)
    records["distance"] = distance
    records["point"] = F.array(fc.point, np.float64, (n, 3), "contacts.point")
    records["normal"] = F.array(fc.normal, np.float64, (n, 3), "contacts.normal")
    records["weight"] = F.array(fc.weight, np.float64, (n,), "contacts.weight")
    given = None
    if fc.has_jacobian is not None:
        given = np.asarray(fc.has_jacobian)
        if given.shape != (n,) or given.dtype.kind != "b":
            raise ValueError("contacts.has_jacobian must be a bool array of shape (%d,), got %s %s"
                             % (n, given.dtype, given.shape))
    keep = []
    for name, rows in _JACOBIANS:
        value = getattr(fc, name + "_jacobian")
        if value is None:
            continue
        shape = (n, 12) if rows == 1 else (n, rows, 12)
        j = F.array(value, np.float64, shape, "contacts.%s_jacobian" % name)
        keep.append(j)
        address = np.uint64(j.ctypes.data) + np.arange(n, dtype=np.uint64) * np.uint64(rows * 96)
        records[name + "_jacobian"] = address if given is None else np.where(given, address, 0)
    return records, keep


def _velocity(value, name):
    if value is None:
        return F.BodyVelocity()
    v = F.array(value, np.float64, (6,), name)
    return F.BodyVelocity(F.Vec3(*map(float, v[:3])), F.Vec3(*map(float, v[3:])))


@dataclass
class ContactForces:
    """The answer of contact_forces: wrench_a, wrench_b [6] (force, then torque about the body's
    origin, world coordinates, on A and on B); per contact normal_force [n] (f_n >= 0, before the
    weight), penetration_rate [n] (r = -n . v_rel, positive: approaching), slip_velocity [n, 3]
    (the tangential velocity of B's material point over A's) and force [n, 3] (F = w (f_n n +
    f_t), the force on B; A receives -F); with derivatives, pose_jacobian and velocity_jacobian
    [12, 12]: rows (force on A, torque on A, force on B, torque on B), columns A's twist (dp,
    dtheta) then B's, or A's velocity (linear, angular) then B's."""

    wrench_a: np.ndarray
    wrench_b: np.ndarray
    normal_force: np.ndarray
    penetration_rate: np.ndarray
    slip_velocity: np.ndarray
    force: np.ndarray
    pose_jacobian: Optional[np.ndarray] = None
    velocity_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.normal_force)


def contact_forces(contacts, pose_a, velocity_a, pose_b, velocity_b, derivatives=False,
                   **settings):
    """The contact forces between body A (pose [7], velocity [6]) and body B
    (osc_force_evaluate): per contact, Hunt and Crossley's normal force k s+(-d)^e s+(1 + c r)
    and regularised Coulomb friction -mu f_n v_t / sqrt(|v_t|^2 + eps^2), and the net wrench on
    each body (ContactForces). `contacts`: the result of manifold_collide, dcol, sdf_pair_collide
    (smooth mode) or lmd, run with derivatives=True for their pose Jacobians (without them the
    contacts are held fixed in pose_jacobian), or ForceContacts, a dict or a tuple of arrays
    (force_contacts). A velocity is (linear velocity of the body's origin, angular velocity),
    world coordinates, so that the material point at x moves at v + omega x (x - p); None: at
    rest. Only the poses' translations enter (torques are about the origins). Settings: see
    force_settings(). Raises InvalidArgumentError with the library's message (naming the contact
    and field, the velocity or the setting) for bad values."""
    fc = force_contacts(contacts)
    s = _force_settings(settings, "contact_forces")
    pa, pb = F.pose(pose_a, "pose_a"), F.pose(pose_b, "pose_b")
    va, vb = _velocity(velocity_a, "velocity_a"), _velocity(velocity_b, "velocity_b")
    records, keep = _records(fc)
    n = F.integer(len(records), "contacts: the number of contacts", F.I32)
    results = np.zeros(n, dtype=_RESULT)
    pj = np.zeros((12, 12)) if derivatives else None
    vj = np.zeros((12, 12)) if derivatives else None
    out = F.ForceOutput(results.ctypes.data_as(C.POINTER(F.ForceContactResult)), (F.D * 6)(),
                        (F.D * 6)(), F.ptr(pj), F.ptr(vj))
    check(lib.osc_force_evaluate(records.ctypes.data, n, pa, va, pb, vb, C.byref(s),
                                 C.byref(out)))
    del keep  # the Jacobians the records pointed into were alive until here
    return ContactForces(wrench_a=np.array(out.wrench_a[:]), wrench_b=np.array(out.wrench_b[:]),
                         normal_force=results["normal_force"].copy(),
                         penetration_rate=results["penetration_rate"].copy(),
                         slip_velocity=results["slip_velocity"].copy(),
                         force=results["force"].copy(), pose_jacobian=pj, velocity_jacobian=vj)
