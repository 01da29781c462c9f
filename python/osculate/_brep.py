"""Exact CAD solids in boundary representation (brep.h) and the local minimal distances between two
of them (lmd.h, seed 002). Poses are [7] arrays (px, py, pz, qw, qx, qy, qz), world-from-body; the
gap's gradient has 12 columns along the left twists (dp, dtheta) of A then B (ARCHITECTURE.md §2);
osculate.pair_jacobian_to_pq converts it to raw pose components."""

import ctypes as C
import os
from dataclasses import dataclass

import numpy as np

from . import _ffi as F
from ._core import CAPACITY, OK, check, error
from ._ffi import lib
from ._models import _create, _Model

FEATURE_KINDS = ("face", "edge", "vertex")
LMD_CONFORMAL = 1  # osc_lmd_contact.flags: a sample of a conformal contact (§4.3.2)


def brep_settings(**settings):
    """The B-Rep settings as a dict, with overrides: alpha_max (0.5, the quasi-flat angle of a
    BVH leaf's normals, radians in (0, pi/2]), plane_cell (0.25, a planar face's cells as a
    fraction of its longer side), max_leaf_count (1000000: larger models raise CapacityError)."""
    return F.struct_dict(_brep_settings(settings))


def _brep_settings(kw):
    return F.settings(lib.osc_brep_settings_default(), kw, "brep")


def _profile(value, name="profile"):
    p = F.array(value, np.float64, (-1, 2), name)
    if len(p) > np.iinfo(np.int32).max:
        raise ValueError("%s: too many points" % name)
    return p


def _report(report):
    d = F.struct_dict(report)
    d["first_unsupported"] = report.first_unsupported.decode(errors="replace")
    return d


class Brep(_Model):
    """An immutable B-Rep solid with its BVH (osc_brep): faces on planes, cylinders, cones,
    spheres and tori, trimmed by exact loops. Build with the class methods (each canonical solid
    centred on its body frame, axis of revolution along +z) or import the first solid of a STEP
    file (Brep.load_step, Brep.read_step). Every constructor takes the settings of brep_settings()
    as keyword arguments. Released when garbage-collected; thread-safe to query."""

    _destroy = lib.osc_brep_destroy

    def __init__(self, handle, import_report=None):
        super().__init__(handle)
        self.import_report = import_report  # what load_step / read_step read; None otherwise

    @classmethod
    def box(cls, half_extents, **settings):
        """A box with half extents [3] (all > 0): 6 planar faces, 12 edges, 8 vertices."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_box, F.vec3(half_extents, "half_extents"),
                           C.byref(s)))

    @classmethod
    def cylinder(cls, radius, half_height, **settings):
        """A cylinder of `radius` from z = -half_height to +half_height."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_cylinder, float(radius), float(half_height),
                           C.byref(s)))

    @classmethod
    def cone(cls, radius_bottom, radius_top, half_height, **settings):
        """A cone frustum from radius_bottom at z = -half_height to radius_top at +half_height
        (both > 0: an apex is not supported, truncate it)."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_cone, float(radius_bottom), float(radius_top),
                           float(half_height), C.byref(s)))

    @classmethod
    def sphere(cls, radius, **settings):
        """A sphere of `radius` (one face, no edges)."""
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_sphere, float(radius), C.byref(s)))

    @classmethod
    def revolved(cls, profile, **settings):
        """A solid of revolution about z from a profile [n, 2] of (r, z) points (n >= 2, r >= 0,
        consecutive points distinct) that starts and ends on the axis or is closed by discs;
        each segment becomes a disc or annulus, a cylinder or a cone. A cylinder is the profile
        (0, -h), (R, -h), (R, h), (0, h)."""
        p = _profile(profile)
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_revolved, F.ptr(p), len(p), C.byref(s)))

    @classmethod
    def block_with_hole(cls, half_extents, profile, **settings):
        """A box of half extents [3] with a blind hole of revolution opening in its top face
        (z = half_extents[2]): the wall follows profile [n, 2] of (r, z) points from the top
        (r_0 > 0, z_0 = half_extents[2]) down to the bottom, which ends on the axis or is closed
        by a disc. The hole's faces are concave."""
        p = _profile(profile)
        s = _brep_settings(settings)
        return cls(_create(lib.osc_brep_create_block_with_hole,
                           F.vec3(half_extents, "half_extents"), F.ptr(p), len(p), C.byref(s)))

    @classmethod
    def read_step(cls, data, skip_unsupported=False, **settings):
        """The first solid of a STEP (ISO 10303-21) text given as bytes or str, in the file's
        length unit. Faces or edges on unsupported geometry (B-splines, NURBS) raise
        UnsupportedError naming the entity unless skip_unsupported=True, which drops them and
        counts them in `import_report` (a dict: solids, faces_read, faces_imported,
        faces_unsupported, edges_imported, edges_unsupported, first_unsupported, length_unit in
        metres per file unit, 0 when the file does not say). Malformed text raises ParseError
        with the line. A raised error carries the report as `.report`."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        elif not isinstance(data, bytes):
            raise ValueError("read_step: data must be bytes or str, got %s" % type(data).__name__)
        s = _brep_settings(settings)
        return cls._import(lib.osc_brep_read_step, data, len(data), int(bool(skip_unsupported)),
                           C.byref(s))

    @classmethod
    def load_step(cls, path, skip_unsupported=False, **settings):
        """Brep.read_step on the file at `path` (OsculateIOError, an OSError, when it cannot be
        read)."""
        s = _brep_settings(settings)
        return cls._import(lib.osc_brep_load_step, os.fsencode(path), int(bool(skip_unsupported)),
                           C.byref(s))

    @classmethod
    def _import(cls, fn, *args):
        report = F.BrepImportReport()
        out = C.c_void_p()
        status = fn(*args, C.byref(out), C.byref(report))
        if status != OK:
            e = error(status)
            e.report = _report(report)
            raise e
        return cls(out.value, _report(report))

    @property
    def info(self):
        """A dict of counts: face_count, edge_count, vertex_count, convex_edge_count,
        concave_edge_count, smooth_edge_count, leaf_count and node_count of the BVH, and the
        body-frame bounding box lo, hi [3] (osc_brep_get_info)."""
        i = F.BrepInfo()
        check(lib.osc_brep_get_info(self, C.byref(i)))
        return F.struct_dict(i)

    @property
    def face_count(self):
        """The number of faces (info["face_count"])."""
        return self.info["face_count"]


# ------------------------------------------------------------------------------------------------
# lmd.h


def lmd_settings(**settings):
    """The LMD settings as a dict, with overrides: d_max (1, larger local minimal distances are
    not reported), eps_a, eps_b (0, the dilation radii: gap = distance - eps_a - eps_b), alpha
    (0.05, the quasi-LMD dilation angle in [0, pi/4]), conformal_samples (8, samples along each
    conformal contact curve), threads (1; 0: the OpenMP default), culling (1; 0 tests every leaf
    pair)."""
    return F.struct_dict(_lmd_settings(None, settings))


def _lmd_settings(base, kw):
    s = lib.osc_lmd_settings_default()
    if base is not None:
        if not isinstance(base, dict):
            raise ValueError("lmd: settings must be a dict (see osculate.lmd_settings()), got %r"
                             % type(base).__name__)
        s = F.settings(s, base, "lmd")
    return F.settings(s, kw, "lmd")


class LmdCache(_Model):
    """Per-pair state for temporal coherence (osc_lmd_cache): the BVTT front and the footpoints
    of the last lmd() call on the same pair of solids, and the query's scratch memory. Pass the
    same cache to successive calls on one pair; the contacts are the same with or without it.
    Not for concurrent calls from several threads. Released when garbage-collected."""

    _destroy = lib.osc_lmd_cache_destroy

    def __init__(self):
        super().__init__(_create(lib.osc_lmd_cache_create))
        self._capacity = 0  # the last query's contact count: the next buffer's size

    def reset(self):
        """Forgets the front and footpoints (when the cache moves to another pair of solids)."""
        lib.osc_lmd_cache_reset(self)

    @property
    def stats(self):
        """A dict of the last query's statistics: front_size, culling_tests, leaf_pairs,
        newton_iterations, warm_starts (osc_lmd_cache_stats)."""
        st = F.LmdStats()
        check(lib.osc_lmd_cache_stats(self, C.byref(st)))
        return F.struct_dict(st)


_LMD_CONTACT = F.as_dtype(F.LmdContact)
_V3 = ("x", "y", "z")


def _v3(a):
    return np.stack([a[k] for k in _V3], axis=-1)


@dataclass
class LmdContacts:
    """The local minimal distances of lmd(), n of them sorted by feature pair: world footpoints
    point_a, point_b [n, 3]; their parameters param_a, param_b [n, 2] ((u, v) on a face, (t, 0)
    on an edge); kind_a, kind_b [n] (0 face, 1 edge, 2 vertex: FEATURE_KINDS) and feature_a,
    feature_b [n] (indices in each solid's description); distance [n] (> 0); gap [n] (distance -
    eps_a - eps_b); normal [n, 3] (unit, from A's footpoint to B's); gradient [n, 12] (d gap /
    d (twist A, twist B)); key [n] uint64 (stable between calls while a contact persists); flags
    [n] (LMD_CONFORMAL for samples of a conformal contact)."""

    point_a: np.ndarray
    point_b: np.ndarray
    param_a: np.ndarray
    param_b: np.ndarray
    kind_a: np.ndarray
    kind_b: np.ndarray
    feature_a: np.ndarray
    feature_b: np.ndarray
    distance: np.ndarray
    gap: np.ndarray
    normal: np.ndarray
    gradient: np.ndarray
    key: np.ndarray
    flags: np.ndarray

    def __len__(self):
        return len(self.gap)

    @property
    def conformal(self):
        """[n] bool: the contacts that sample a conformal contact."""
        return (self.flags & LMD_CONFORMAL) != 0


def _lmd_contacts(c):
    return LmdContacts(
        point_a=_v3(c["point_a"]), point_b=_v3(c["point_b"]), param_a=c["param_a"].copy(),
        param_b=c["param_b"].copy(), kind_a=c["kind_a"].copy(), kind_b=c["kind_b"].copy(),
        feature_a=c["feature_a"].copy(), feature_b=c["feature_b"].copy(),
        distance=c["distance"].copy(), gap=c["gap"].copy(), normal=_v3(c["normal"]),
        gradient=c["gradient"].copy(), key=c["key"].copy(), flags=c["flags"].copy())


def _brep(value, name):
    if not isinstance(value, Brep):
        raise ValueError("%s must be a Brep, got %r" % (name, value))
    return value


_LMD_INITIAL_CAPACITY = 64


def lmd(a, pose_a, b, pose_b, settings=None, cache=None, capacity=None, **overrides):
    """Every local minimal distance below d_max between Breps a and b at poses [7]
    (osc_lmd_query): an LmdContacts. Settings: a dict `settings` (as lmd_settings() returns)
    and / or keyword overrides (see lmd_settings()). cache: an LmdCache kept between calls on
    this pair (temporal coherence). capacity None grows the buffer until every contact fits; an
    int raises CapacityError when more are found. ValueError (InvalidArgumentError) for a NaN pose,
    a quaternion that cannot be normalised or settings out of range, with the C message."""
    a, b = _brep(a, "a"), _brep(b, "b")
    if cache is not None and not isinstance(cache, LmdCache):
        raise ValueError("cache must be an LmdCache, got %r" % (cache,))
    s = _lmd_settings(settings, overrides)
    pa, pb = F.pose(pose_a, "pose_a"), F.pose(pose_b, "pose_b")
    grow = capacity is None
    if grow:
        cap = max(_LMD_INITIAL_CAPACITY, cache._capacity if cache is not None else 0)
    else:
        cap = int(capacity)
        if cap < 0:
            raise ValueError("lmd: capacity must be >= 0, got %d" % cap)
    count = C.c_int()
    for _ in range(8):  # the count is deterministic: one retry suffices
        contacts = np.zeros(max(cap, 1), dtype=_LMD_CONTACT)
        rc = lib.osc_lmd_query(a, pa, b, pb, C.byref(s), cache,
                               contacts.ctypes.data_as(C.POINTER(F.LmdContact)), cap,
                               C.byref(count))
        if rc == CAPACITY and grow and count.value > cap:
            cap = count.value
            continue
        break
    if cache is not None:
        # the cache recognises its pair by address: keeping the solids alive means no new solid
        # can take the address of a freed one and inherit a front that is not its own; after a
        # failure it may remember either pair, so it forgets both
        if rc != OK:
            cache.reset()
        cache._keep = (a, b)
    check(rc, "osc_lmd_query")
    n = count.value
    if cache is not None:
        cache._capacity = n
    return _lmd_contacts(contacts[:n])
