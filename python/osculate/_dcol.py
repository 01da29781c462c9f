"""DCOL between convex primitives (dcol.h): one pair, its gradients, and batches over threads.
Poses are [7] arrays (px, py, pz, qw, qx, qy, qz), world-from-body; every pose Jacobian has 12
columns along the left twists (dp, dtheta) of A then B (docs/architecture.md §2);
osculate.pair_jacobian_to_pq converts them to raw pose components."""

import contextlib
import ctypes as C
import threading
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import _ffi as F
from ._base import OK, check, error
from ._convex import Convex
from ._ffi import lib


# osc_dcol_result.flags
DCOL_DEGENERATE = 1  # a flat contact, or one whose normal is not unique
DCOL_COINCIDENT = 2  # the origins coincide: alpha = 0, no contact points or normal
DCOL_SMOOTHED = 4  # a central point whose smoothing exceeds 1e-6 of a body's inner radius
_DCOL_JAC = (("alpha", 1), ("point", 3), ("point_a", 3), ("point_b", 3), ("distance", 1),
             ("normal", 3))


def dcol_settings(**settings):
    """The DCOL settings with overrides: tolerance (1e-10, the barrier parameter at which the
    solve stops: the smoothing knob), max_iterations (40), regularization (1e-16)."""
    return F.struct_dict(_dcol_settings(settings))


def _dcol_settings(kw):
    return F.settings(lib.osc_dcol_settings_default(), kw, "dcol")


def _convex(value, name):
    if not isinstance(value, Convex):
        raise ValueError("%s must be a Convex, got %r" % (name, value))
    return value


@dataclass
class DcolResult:
    """The answer of dcol(): alpha (< 1: interpenetrating), the intersection point of the scaled
    shapes, contact points on A and B, signed distance, normal (from A to B), iterations and flags
    (DCOL_DEGENERATE, DCOL_COINCIDENT, DCOL_SMOOTHED; also as the properties degenerate,
    coincident, smoothed). With derivatives=True the *_jacobian fields hold d output / d (twist A,
    twist B): alpha and distance [12], point, point_a, point_b, normal [3, 12]."""

    alpha: float
    point: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    distance: float
    normal: np.ndarray
    iterations: int
    flags: int
    alpha_jacobian: Optional[np.ndarray] = None
    point_jacobian: Optional[np.ndarray] = None
    point_a_jacobian: Optional[np.ndarray] = None
    point_b_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None
    normal_jacobian: Optional[np.ndarray] = None

    @property
    def degenerate(self):
        """A flat contact, or one whose normal is not unique (DCOL_DEGENERATE): the point's (and
        such a normal's) derivatives are those of the smoothing (dcol.h)."""
        return bool(self.flags & DCOL_DEGENERATE)

    @property
    def coincident(self):
        """The origins coincide (DCOL_COINCIDENT): alpha = 0; the contact points are the origin
        and the normal zero."""
        return bool(self.flags & DCOL_COINCIDENT)

    @property
    def smoothed(self):
        """A central point whose smoothing, about the tolerance times the pair's size, exceeds
        1e-6 of a body's inner radius (DCOL_SMOOTHED): that body's contact point may lie that
        far inside it (a body much smaller or thinner than its partner, or a large tolerance)."""
        return bool(self.flags & DCOL_SMOOTHED)


class DcolWarmStart:
    """A warm start for repeated dcol() calls on the same two shapes: pass the same object each
    time; it is read (when valid) and overwritten with the latest solve. Calls that share one from
    several threads take turns (a lock)."""

    def __init__(self):
        self._c = F.DcolWarmStart()
        self._lock = threading.Lock()

    @property
    def valid(self):
        return bool(self._c.valid)


_DCOL_DEFAULT = lib.osc_dcol_settings_default()
_DCOL_ROW_OFFSETS = [int(o) for o in np.cumsum([0] + [r for _, r in _DCOL_JAC])[:-1] * 12 * 8]


def dcol(a, pose_a, b, pose_b, derivatives=False, warm_start=None, **settings):
    """DCOL (Tracy et al. 2023) between convex shapes a and b at poses [7]: osc_dcol_proximity. Settings:
    see dcol_settings(). Raises ValueError for bad poses or settings, NotConvergedError when the
    solver runs out of iterations."""
    if type(a) is not Convex:
        _convex(a, "a")
    if type(b) is not Convex:
        _convex(b, "b")
    s = _dcol_settings(settings) if settings else _DCOL_DEFAULT
    # the result struct's memory as doubles: alpha, point, point_a, point_b, distance, normal, then
    # iterations and flags (two ints) in the last slot
    r = np.empty(15)
    jac = cj = None
    if derivatives:
        jac = np.zeros((14, 12))
        base = jac.ctypes.data
        cj = F.DcolJacobiansAddress(*[base + o for o in _DCOL_ROW_OFFSETS])
    pa, pb = F.pose(pose_a, "pose_a"), F.pose(pose_b, "pose_b")
    jp = C.addressof(cj) if cj else None
    if warm_start is None:
        rc = lib.osc_dcol_proximity(a, pa, b, pb, C.byref(s), r.ctypes.data, jp, None)
    else:
        if type(warm_start) is not DcolWarmStart:
            raise ValueError("warm_start must be a DcolWarmStart, got %r" % (warm_start,))
        with warm_start._lock:
            rc = lib.osc_dcol_proximity(a, pa, b, pb, C.byref(s), r.ctypes.data, jp,
                                        C.byref(warm_start._c))
    check(rc)
    ints = r[14:].view(np.int32)
    out = DcolResult(float(r[0]), r[1:4], r[4:7], r[7:10], float(r[10]), r[11:14], int(ints[0]),
                     int(ints[1]))
    if derivatives:
        out.alpha_jacobian = jac[0]
        out.point_jacobian = jac[1:4]
        out.point_a_jacobian = jac[4:7]
        out.point_b_jacobian = jac[7:10]
        out.distance_jacobian = jac[10]
        out.normal_jacobian = jac[11:14]
    return out


def dcol_alpha_gradient(a, pose_a, b, pose_b, **settings):
    """(alpha, d alpha / d (twist A, twist B) [12]): the fast path (osc_dcol_alpha_gradient)."""
    a, b = _convex(a, "a"), _convex(b, "b")
    s = _dcol_settings(settings)
    alpha = C.c_double()
    g = np.zeros(12)
    check(lib.osc_dcol_alpha_gradient(a, F.pose(pose_a, "pose_a"), b, F.pose(pose_b, "pose_b"),
                                      C.byref(s), C.byref(alpha), F.ptr(g)))
    return alpha.value, g


def dcol_parameter_gradient(a, pose_a, b, pose_b, **settings):
    """(alpha, d alpha / d params of a, d alpha / d params of b) in the order of
    osc_dcol_parameter_count, the constructors' arguments: sphere (radius); capsule, cylinder, cone
    (radius, half_length); ellipsoid radii [3]; polytope normals [m*3] then offsets [m]; polygon
    normals, offsets, radius."""
    a, b = _convex(a, "a"), _convex(b, "b")
    s = _dcol_settings(settings)
    alpha = C.c_double()
    ga = np.zeros(a.parameter_count)
    gb = np.zeros(b.parameter_count)
    check(lib.osc_dcol_alpha_parameter_gradient(a, F.pose(pose_a, "pose_a"), b,
                                                F.pose(pose_b, "pose_b"), C.byref(s),
                                                C.byref(alpha), F.ptr(ga), F.ptr(gb)))
    return alpha.value, ga, gb


_DCOL_RESULT = F.as_dtype(F.DcolResult)
assert _DCOL_RESULT.itemsize == 15 * 8 and _DCOL_RESULT.fields["iterations"][1] == 14 * 8
_DCOL_JACS = np.dtype([(name, np.uintp) for name, _ in _DCOL_JAC])  # osc_dcol_jacobians
assert _DCOL_JACS.itemsize == C.sizeof(F.DcolJacobians)


@dataclass
class DcolBatch:
    """dcol_batch's arrays over N pairs: alpha [N], point, point_a, point_b, normal [N, 3],
    distance [N], iterations, flags, status [N]; with derivatives the Jacobians [N, rows, 12].
    The flags also as [N] booleans: degenerate, coincident, smoothed (as DcolResult's)."""

    alpha: np.ndarray
    point: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    iterations: np.ndarray
    flags: np.ndarray
    status: np.ndarray
    jacobians: dict = field(default_factory=dict)
    _raw: Optional[np.ndarray] = field(default=None, repr=False)  # the osc_dcol_result array
    _js: Optional[np.ndarray] = field(default=None, repr=False)   # the osc_dcol_jacobians array
    _writer: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def degenerate(self):
        """[N] bool: DCOL_DEGENERATE in flags."""
        return (self.flags & DCOL_DEGENERATE) != 0

    @property
    def coincident(self):
        """[N] bool: DCOL_COINCIDENT in flags."""
        return (self.flags & DCOL_COINCIDENT) != 0

    @property
    def smoothed(self):
        """[N] bool: DCOL_SMOOTHED in flags."""
        return (self.flags & DCOL_SMOOTHED) != 0


_DCOL_ITEM = F.as_dtype(F.DcolBatchItem)


def dcol_batch(a, poses_a, b, poses_b, derivatives=False, threads=0, check_status=True, out=None,
               **settings):
    """DCOL for N pairs over threads (osc_dcol_proximity_batch, the GIL released): a and b are one
    Convex each or sequences of N; poses_a, poses_b [N, 7] or one [7], broadcast against each
    other (osculate.broadcast_poses). Each pair equals dcol()'s bit for bit. derivatives: True
    for every Jacobian, or a sequence of output names ("alpha", "point", "point_a", "point_b",
    "distance", "normal") for those only (the C solve skips what no output needs: the normal's
    dual tangents when "normal" is not asked). With
    check_status=False, failed pairs are reported in `status` instead of raising. out: a DcolBatch
    of an earlier call with the same N (and derivatives) whose arrays are overwritten instead of
    allocating new ones (for loops that call it repeatedly); RuntimeError when another thread is
    writing the same out."""
    pa, pb, _ = F.broadcast_poses(poses_a, poses_b, "dcol_batch", 1, ("poses_a", "poses_b"))
    n = len(pa)
    F.integer(n, "dcol_batch: the number of pairs", F.SZ)
    sa, keep_a = F.models(a, n, Convex, "a")
    sb, keep_b = F.models(b, n, Convex, "b")
    s = _dcol_settings(settings) if settings else _DCOL_DEFAULT
    names = _jacobian_names(derivatives)
    if out is not None and (not isinstance(out, DcolBatch) or out._raw is None or
                            len(out._raw) != n or set(names) != set(out.jacobians)):
        raise ValueError("dcol_batch: out must be a DcolBatch of %d pairs with the derivatives %s"
                         % (n, list(names)))
    if out is None:
        res, status, jac, js = _dcol_batch_arrays(n, names)
    else:
        res, status, jac, js = out._raw, out.status, out.jacobians, out._js
    items = np.zeros(n, dtype=_DCOL_ITEM)
    items["a"], items["pose_a"], items["b"], items["pose_b"] = sa, pa, sb, pb
    with _sole_writer(out) if out is not None else contextlib.nullcontext():
        rc = lib.osc_dcol_proximity_batch(items.ctypes.data, n, C.byref(s), res.ctypes.data,
                                          js.ctypes.data if js is not None else None,
                                          status.ctypes.data, F.integer(threads, "threads"))
        if rc != OK and check_status:
            i = int(np.flatnonzero(status)[0]) if np.any(status) else 0
            # the message was set on a worker thread: re-run the failing pair here for it
            try:
                dcol(F.model_of(keep_a, i), pa[i], F.model_of(keep_b, i), pb[i], **settings)
            except Exception as e:  # noqa: BLE001 - re-raised with the pair index
                raise type(e)("pair %d: %s" % (i, e), e.status) if hasattr(e, "status") else e
            raise error(rc, "dcol_batch (pair %d)" % i)
        if out is not None:
            np.copyto(out.alpha, res["alpha"])
            np.copyto(out.distance, res["distance"])
            np.copyto(out.iterations, res["iterations"])
            np.copyto(out.flags, res["flags"])
            for name in ("point", "point_a", "point_b", "normal"):
                np.copyto(getattr(out, name), res[name])
            return out
    return DcolBatch(res["alpha"].copy(), res["point"].copy(), res["point_a"].copy(),
                     res["point_b"].copy(), res["distance"].copy(), res["normal"].copy(),
                     res["iterations"].copy(), res["flags"].copy(), status, jac, res, js)


def _jacobian_names(derivatives):
    """The Jacobians dcol_batch's `derivatives` asks for: every output's for True, none for a
    false value, else the names given (ValueError for a name that is not an output)."""
    known = [name for name, _ in _DCOL_JAC]
    if derivatives is None or isinstance(derivatives, (bool, int, np.bool_, np.integer)):
        return tuple(known) if derivatives else ()
    names = (derivatives,) if isinstance(derivatives, str) else tuple(derivatives)
    for name in names:
        if name not in known:
            raise ValueError("dcol_batch: derivatives must be True or names among %s, got %r"
                             % (known, name))
    return names


def _dcol_batch_arrays(n, names):
    """The C outputs of a batch of n pairs: results, statuses, the Jacobian arrays of `names` by
    name and the osc_dcol_jacobians pointing into them (NULL for the others; None without
    names)."""
    res = np.zeros(n, dtype=_DCOL_RESULT)
    status = np.zeros(n, dtype=np.intc)
    jac, js = {}, None
    if names:
        js = np.zeros(n, dtype=_DCOL_JACS)
        for name, rows in _DCOL_JAC:
            if name in names:
                jac[name] = np.zeros((n, rows, 12))
                js[name] = jac[name].ctypes.data + np.arange(n, dtype=np.uint64) * (rows * 12 * 8)
    return res, status, jac, js


@contextlib.contextmanager
def _sole_writer(out):
    """Holds an `out=` batch for one call: a second call writing it meanwhile (another thread)
    raises RuntimeError instead of mixing its results into the first's."""
    if not out._writer.acquire(blocking=False):
        raise RuntimeError("dcol_batch: out is being written by another call (another thread); "
                           "give each thread its own out")
    try:
        yield
    finally:
        out._writer.release()
