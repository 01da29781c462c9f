"""Collision points between two SDFs and within scenes of many (sdf_pair.h). Pose Jacobians (smooth
mode) have 12 columns along the left twists (dp, dtheta) of A then B."""

import ctypes as C
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _ffi as F
from ._base import CAPACITY, OK, CapacityError, check, error
from ._ffi import lib
from ._grid import Grid, as_sdf
from ._model import _Callback, _python_calls
from ._sdf import SDF


def sdf_pair_settings(**settings):
    """The SDF-pair settings with overrides: resolution (12), epsilon (1e-4, relative), step
    (0.25), max_iterations (40), first_only (0), merge_distance (1), temperature (0; > 0: the
    smooth mode with pose Jacobians)."""
    return F.struct_dict(F.settings(lib.osc_sdf_pair_settings_default(), settings, "sdf_pair"))


class SdfFunction:
    """A user SDF for sdf_pair_collide: `function(points [N, 3]) -> (values [N], gradients [N, 3])`
    in the body frame, with its bounding box (lo, hi) and a Lipschitz bound. The C library calls
    back into Python one point at a time (slow, and holding the GIL while it does)."""

    def __init__(self, function, lo, hi, lipschitz=1.0):
        self.function = function
        self.lo = F.vec3(lo, "lo")
        self.hi = F.vec3(hi, "hi")
        self.lipschitz = float(lipschitz)

        def call(_context, point, gradient):
            p = np.array([[point[0], point[1], point[2]]])
            v, g = function(p)
            v = float(np.asarray(v).reshape(-1)[0])
            if gradient:
                g = F.floats(g, "the gradient of an SdfFunction").reshape(-1)
                gradient[0], gradient[1], gradient[2] = g[0], g[1], g[2]
            return v

        self._callback = _Callback(F.SdfFunction, call)


def _shape(value, name):
    s = F.SdfShape()
    if isinstance(value, SdfFunction):
        s.function = value._callback.c_function
        s.lo, s.hi, s.lipschitz = value.lo, value.hi, value.lipschitz
        return s, value
    sdf = as_sdf(value) if isinstance(value, (SDF, Grid)) else None
    if sdf is None:
        raise ValueError("%s must be an SDF, a Grid or an SdfFunction, got %r" % (name, value))
    s.sdf = sdf._as_parameter_
    return s, sdf


_SDF_CONTACT = F.as_dtype(F.SdfPairContact)


@dataclass
class SdfPairResult:
    """Collision points of two SDFs, deepest (most negative distance) first: point [n, 3] (inside
    both), distance [n] (max(A, B) at the point, signed: negative inside both; smooth mode: the
    smooth maximum m), normal [n, 3] (A to B), iterations, smooth [n]; in smooth mode with
    derivatives, point_jacobian [n, 3, 12] and distance_jacobian [n, 12] (twist columns of A then
    B); needed, boxes_overlap, spheres, survivors."""

    point: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    iterations: np.ndarray
    smooth: np.ndarray
    needed: int
    boxes_overlap: bool
    spheres: int
    survivors: int
    point_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.distance)


def _sdf_contacts(c):
    return dict(point=c["point"].copy(), distance=c["distance"].copy(),
                normal=c["normal"].copy(), iterations=c["iterations"].copy(),
                smooth=c["smooth"].copy())


def sdf_pair_collide(a, pose_a, b, pose_b, capacity=64, derivatives=False, **settings):
    """Collision points between two SDFs (Al-Ameri 2025) at poses [7] (osc_sdf_pair_collide): a, b are
    SDF, Grid or SdfFunction. Settings: see sdf_pair_settings(); derivatives need temperature > 0.
    CapacityError when more than `capacity` points were found."""
    sa, ka = _shape(a, "a")
    sb, kb = _shape(b, "b")
    s = F.settings(lib.osc_sdf_pair_settings_default(), settings, "sdf_pair")
    cap = F.integer(capacity, "capacity", F.I32)
    if cap < 1:
        raise ValueError("sdf_pair_collide: capacity must be >= 1, got %d" % cap)
    contacts = np.zeros(cap, dtype=_SDF_CONTACT)
    pj = np.zeros((cap, 3, 12)) if derivatives else None
    ej = np.zeros((cap, 12)) if derivatives else None
    out = F.SdfPairOutput(contacts.ctypes.data_as(C.POINTER(F.SdfPairContact)), cap, 0, 0,
                          F.ptr(pj), F.ptr(ej), 0, 0, 0)
    with _python_calls(*(k._callback for k in (ka, kb) if isinstance(k, SdfFunction))):
        rc = lib.osc_sdf_pair_collide(C.byref(sa), F.pose(pose_a, "pose_a"), C.byref(sb),
                                      F.pose(pose_b, "pose_b"), C.byref(s), C.byref(out))
    check(rc)
    n = out.count
    r = SdfPairResult(needed=out.needed, boxes_overlap=bool(out.boxes_overlap),
                      spheres=out.spheres, survivors=out.survivors, **_sdf_contacts(contacts[:n]))
    if derivatives:
        r.point_jacobian = pj[:n]
        r.distance_jacobian = ej[:n]
    return r


def sdf_scene_collide(shapes, poses, contacts_per_pair=16, pair_capacity=None, threads=0,
                      **settings):
    """Collision points of every pair of N bodies (shapes: SDF or Grid, poses [N, 7]): a sort-and-
    sweep broad phase, then sdf_pair_collide per candidate pair over threads (GIL released).
    Returns a list of (i, j, SdfPairResult) for the candidate pairs i < j, whose status is checked
    (CapacityError when a pair has more than contacts_per_pair points)."""
    shapes = list(shapes)
    p, _ = F.poses(poses, "poses")
    n = F.rows(shapes, "shapes")
    if len(p) != n:
        raise ValueError("sdf_scene_collide: %d shapes and %d poses" % (n, len(p)))
    keep = []
    arr = (F.SdfShape * max(n, 1))()
    bodies = (F.SdfSceneBody * max(n, 1))()
    for i, v in enumerate(shapes):
        if isinstance(v, SdfFunction):
            raise ValueError("sdf_scene_collide: shapes must be SDF or Grid models")
        s, k = _shape(v, "shapes[%d]" % i)
        arr[i] = s
        keep.append(k)
        bodies[i].shape = C.cast(C.addressof(arr) + i * C.sizeof(F.SdfShape),
                                 C.POINTER(F.SdfShape))
        bodies[i].pose = F.pose(p[i], "poses[%d]" % i)
    s = F.settings(lib.osc_sdf_pair_settings_default(), settings, "sdf_pair")
    cpp = F.integer(contacts_per_pair, "contacts_per_pair", F.I32)
    if cpp < 1:
        raise ValueError("sdf_scene_collide: contacts_per_pair must be >= 1")
    pc = max(n * (n - 1) // 2, 1) if pair_capacity is None else \
        F.integer(pair_capacity, "pair_capacity", F.I32)
    if pc < 1:
        raise ValueError("sdf_scene_collide: pair_capacity must be >= 1")
    F.integer(pc * cpp, "pair_capacity * contacts_per_pair")  # the contacts' buffer
    pairs = (F.SdfScenePair * pc)()
    contacts = np.zeros(pc * cpp, dtype=_SDF_CONTACT)
    ws = np.zeros(max(lib.osc_sdf_scene_workspace_size(n), 1), dtype=np.uint8)
    output = F.SdfSceneOutput(pairs, pc, 0, 0,
                              contacts.ctypes.data_as(C.POINTER(F.SdfPairContact)), cpp)
    rc = lib.osc_sdf_scene_collide(bodies, n, C.byref(s), C.byref(output), ws.ctypes.data,
                                   F.integer(threads, "threads"))
    if rc == CAPACITY and output.needed > pc:
        raise CapacityError("sdf_scene_collide: %d candidate pairs, pair_capacity %d"
                            % (output.needed, pc), rc)
    out = []
    for k in range(output.count):
        q = pairs[k]
        if q.status != OK:
            if q.status == CAPACITY:
                raise CapacityError("sdf_scene_collide: pair (%d, %d) has more than %d points"
                                    % (q.a, q.b, cpp), q.status)
            raise error(q.status, "sdf_scene_collide pair (%d, %d)" % (q.a, q.b))
        c = contacts[q.first_contact:q.first_contact + q.contact_count]
        out.append((q.a, q.b, SdfPairResult(needed=q.contact_count, boxes_overlap=True, spheres=0,
                                            survivors=0, **_sdf_contacts(c))))
    if rc != CAPACITY:  # a pair over its capacity was raised above, naming the pair
        check(rc)
    return out
