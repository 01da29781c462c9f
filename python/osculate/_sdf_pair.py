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


def _batch_shapes(value, n, name):
    """One SDF or Grid, or a sequence of n (the shapes of a batch's slots): (the osc_sdf_shape
    records, their addresses [n] uintp, the models to keep alive). ValueError naming `name` for
    an SdfFunction (called back from worker threads it would hold the GIL), another type or a
    length that differs from n."""
    single = isinstance(value, (SDF, Grid, SdfFunction))
    values = [value] if single else list(value)
    if not single and len(values) != n:
        raise ValueError("%s: %d shapes for %d poses" % (name, len(values), n))
    records = (F.SdfShape * max(len(values), 1))()
    keep = []
    for i, v in enumerate(values):
        label = name if single else "%s[%d]" % (name, i)
        if isinstance(v, SdfFunction):
            raise ValueError("sdf_pair_collide_batch: %s must be an SDF or a Grid (an "
                             "SdfFunction is for single calls)" % label)
        records[i], k = _shape(v, label)
        keep.append(k)
    step = C.sizeof(F.SdfShape)
    slots = np.zeros(n, dtype=np.uintp) if single else np.arange(n, dtype=np.uintp)
    return records, (C.addressof(records) + step * slots).astype(np.uintp), keep


_SDF_PAIR_OUTPUT = F.as_dtype(F.SdfPairOutput)
_SDF_PAIR_ITEM = F.as_dtype(F.SdfPairBatchItem)


@dataclass
class SdfPairBatch:
    """sdf_pair_collide_batch over N pose pairs: SdfPairResult's arrays padded to
    [N, capacity, ...] (slots past count[i] hold zeros), count, needed, boxes_overlap, spheres,
    survivors and status [N]; with derivatives point_jacobian [N, capacity, 3, 12] and
    distance_jacobian [N, capacity, 12]. batch[i] is slot i as an SdfPairResult."""

    count: np.ndarray
    needed: np.ndarray
    status: np.ndarray
    boxes_overlap: np.ndarray
    spheres: np.ndarray
    survivors: np.ndarray
    point: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    iterations: np.ndarray
    smooth: np.ndarray
    point_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.count)

    def __getitem__(self, i):
        """Slot i as an SdfPairResult."""
        n = int(self.count[i])
        r = SdfPairResult(needed=int(self.needed[i]), boxes_overlap=bool(self.boxes_overlap[i]),
                          spheres=int(self.spheres[i]), survivors=int(self.survivors[i]),
                          **{k: getattr(self, k)[i][:n] for k in
                             ("point", "distance", "normal", "iterations", "smooth")})
        if self.point_jacobian is not None:
            r.point_jacobian = self.point_jacobian[i][:n]
            r.distance_jacobian = self.distance_jacobian[i][:n]
        return r


def sdf_pair_collide_batch(a, poses_a, b, poses_b, capacity=64, derivatives=False, threads=0,
                           check_status=True, **settings):
    """sdf_pair_collide for N pose pairs over threads, the GIL released
    (osc_sdf_pair_collide_batch): a and b are one SDF or Grid each or sequences of N; poses_a,
    poses_b [N, 7] or one [7], broadcast against each other (osculate.broadcast_poses). Each slot
    equals the single call's bit for bit. A slot with more than `capacity` points raises
    CapacityError naming it, a failing slot the exception of its status with the slot's index
    ("item i") in the message; with check_status=False, failed slots are reported in `status`
    instead of raising."""
    return _collide_batch(a, poses_a, b, poses_b, capacity, derivatives, threads, check_status,
                          settings)


def _collide_batch(a, poses_a, b, poses_b, capacity, derivatives, threads, check_status, settings,
                   zero=True):
    """sdf_pair_collide_batch with `settings` as a dict; zero=False leaves the Jacobians
    unwritten (np.empty), so that their slots past a pair's count are unspecified and a capacity
    that is mostly empty costs no memset."""
    pa, pb, _ = F.broadcast_poses(poses_a, poses_b, "sdf_pair_collide_batch", 1,
                                  ("poses_a", "poses_b"))
    n = len(pa)
    F.integer(n, "sdf_pair_collide_batch: the number of pairs", F.SZ)
    shapes_a, sa, keep_a = _batch_shapes(a, n, "a")  # held until the call returns
    shapes_b, sb, keep_b = _batch_shapes(b, n, "b")
    s = F.settings(lib.osc_sdf_pair_settings_default(), settings, "sdf_pair")
    cap = F.integer(capacity, "capacity", F.I32)
    if cap < 1:
        raise ValueError("sdf_pair_collide_batch: capacity must be >= 1, got %d" % cap)
    items = np.zeros(n, dtype=_SDF_PAIR_ITEM)
    items["a"], items["pose_a"], items["b"], items["pose_b"] = sa, pa, sb, pb
    contacts = np.zeros((n, cap), dtype=_SDF_CONTACT)
    alloc = np.zeros if zero else np.empty
    pj = alloc((n, cap, 3, 12)) if derivatives else None
    ej = alloc((n, cap, 12)) if derivatives else None
    outs = np.zeros(n, dtype=_SDF_PAIR_OUTPUT)
    outs["contacts"] = F.pointers_into(contacts, n)
    outs["capacity"] = cap
    outs["point_jacobians"] = F.pointers_into(pj, n)
    outs["distance_jacobians"] = F.pointers_into(ej, n)
    status = np.zeros(n, dtype=np.intc)
    rc = lib.osc_sdf_pair_collide_batch(items.ctypes.data, n, C.byref(s), outs.ctypes.data,
                                        status.ctypes.data, F.integer(threads, "threads"))
    if rc != OK and (check_status or not status.any()):
        i = int(np.flatnonzero(status)[0]) if status.any() else -1
        if i >= 0 and status[i] == CAPACITY:
            raise CapacityError("sdf_pair_collide_batch: pair %d found %d points, capacity %d"
                                % (i, outs["needed"][i], cap), CAPACITY)
        raise error(rc, "sdf_pair_collide_batch")
    return SdfPairBatch(count=outs["count"].copy(), needed=outs["needed"].copy(), status=status,
                        boxes_overlap=outs["boxes_overlap"].astype(bool),
                        spheres=outs["spheres"].copy(), survivors=outs["survivors"].copy(),
                        point_jacobian=pj, distance_jacobian=ej, **_sdf_contacts(contacts))



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
