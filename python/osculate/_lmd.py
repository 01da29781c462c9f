"""The local minimal distances between two B-Rep solids (lmd.h, Crozet 2017). Poses are [7] arrays
(px, py, pz, qw, qx, qy, qz), world-from-body; a contact's distance is the signed gap, and its
Jacobian has 12 columns along the left twists (dp, dtheta) of A then B (docs/api.md);
osculate.pair_jacobian_to_pq converts it to raw pose components."""

import ctypes as C
import threading
from dataclasses import dataclass

import numpy as np

from . import _ffi as F
from ._base import CAPACITY, OK, CapacityError, check, error
from ._brep import Brep
from ._ffi import lib
from ._model import _borrowing, _create, _Model


FEATURE_KINDS = ("face", "edge", "vertex")
LMD_CONFORMAL = 1  # osc_lmd_contact.flags: a sample of a conformal contact (§4.3.2)


def lmd_settings(**settings):
    """The LMD settings as a dict, with overrides: d_max (1, larger local minimal distances are
    not reported), eps_a, eps_b (0, the dilation radii: a contact's distance is the gap
    |point_b - point_a| - eps_a - eps_b), alpha (0.05, the quasi-LMD dilation angle in
    [0, pi/4]), conformal_samples (8, samples along each conformal contact curve), culling (1; 0
    tests every leaf pair). The thread count is an argument of lmd(), not a setting."""
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
    The cache keeps its last pair of solids alive (it recognises the pair by address). Calls that
    share a cache from several threads take turns (a lock). Released by close() or when
    garbage-collected."""

    _destroy = lib.osc_lmd_cache_destroy

    def __init__(self):
        self._lock = threading.Lock()  # one query, reset, stats or close at a time
        super().__init__(_create(lib.osc_lmd_cache_create))
        self._capacity = 0  # the last query's contact count: the next buffer's size
        self._pair = ()  # references on the solids of the last query

    def _remember(self, a, b):
        """Holds references on solids a and b (those of the query about to run), so that no
        other solid can take their addresses while the cache remembers them."""
        if not self._ref:
            raise ValueError("LmdCache is closed")
        if self._pair != (a._ref, b._ref):
            with _borrowing(a, b) as refs:
                old, self._pair = self._pair, tuple(refs)
            for r in old:
                self._release_ref(r)

    def reset(self):
        """Forgets the front and footpoints (when the cache moves to another pair of solids)."""
        with self._lock:
            lib.osc_lmd_cache_reset(self)

    @property
    def stats(self):
        """A dict of the last query's statistics: front_size, culling_tests, leaf_pairs,
        newton_iterations, warm_starts, searches (osc_lmd_cache_stats)."""
        st = F.LmdStats()
        with self._lock:
            check(lib.osc_lmd_cache_stats(self, C.byref(st)))
        return F.struct_dict(st)

    def close(self):
        with self._lock:
            super().close()
            pair, self._pair = self._pair, ()
        for r in pair:
            self._release_ref(r)

    __copy__ = __deepcopy__ = None  # mutable state: refused like pickling


_LMD_CONTACT = F.as_dtype(F.LmdContact)


@dataclass
class LmdContacts:
    """The local minimal distances of lmd(), n of them sorted by feature pair: world footpoints
    point_a, point_b [n, 3]; distance [n] (the signed gap |point_b - point_a| - eps_a - eps_b,
    negative when the dilated solids interpenetrate); normal [n, 3] (unit, from A's footpoint to
    B's); distance_jacobian [n, 12] (d distance / d (twist A, twist B)); their parameters
    param_a, param_b [n, 2] ((u, v) on a face, (t, 0) on an edge); kind_a, kind_b [n] (0 face, 1
    edge, 2 vertex: FEATURE_KINDS) and feature_a, feature_b [n] (indices in each solid's
    description); key [n] uint64 (stable between calls while a contact persists); flags [n]
    (LMD_CONFORMAL for samples of a conformal contact); skipped_faces: the faces a STEP import
    left out (skip_unsupported) that the search reached, so that contacts may be missing there
    (osc_lmd_output.skipped_faces; 0 for solids imported whole)."""

    point_a: np.ndarray
    point_b: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    distance_jacobian: np.ndarray
    param_a: np.ndarray
    param_b: np.ndarray
    kind_a: np.ndarray
    kind_b: np.ndarray
    feature_a: np.ndarray
    feature_b: np.ndarray
    key: np.ndarray
    flags: np.ndarray
    skipped_faces: int = 0

    def __len__(self):
        return len(self.distance)

    @property
    def conformal(self):
        """[n] bool: the contacts that sample a conformal contact."""
        return (self.flags & LMD_CONFORMAL) != 0


def _lmd_contacts(c, jac, skipped_faces=0):
    return LmdContacts(distance_jacobian=jac.copy(), skipped_faces=int(skipped_faces), **{
        k: c[k].copy() for k in ("point_a", "point_b", "distance", "normal", "param_a", "param_b",
                                 "kind_a", "kind_b", "feature_a", "feature_b", "key", "flags")})


def _brep(value, name):
    if not isinstance(value, Brep):
        raise ValueError("%s must be a Brep, got %r" % (name, value))
    return value


_LMD_INITIAL_CAPACITY = 64


def _lmd_query(a, pa, b, pb, s, cache, cap, grow, threads):
    """osc_lmd_query into buffers of `cap` contacts, grown until every contact fits when `grow`:
    (contacts, distance Jacobians, count, status, skipped faces reached)."""
    for _ in range(8):  # the count is deterministic: one retry suffices
        contacts = np.zeros(max(cap, 1), dtype=_LMD_CONTACT)
        jac = np.zeros((max(cap, 1), 12))
        out = F.LmdOutput(contacts.ctypes.data_as(C.POINTER(F.LmdContact)), cap, 0, 0, F.ptr(jac))
        rc = lib.osc_lmd_query(a, pa, b, pb, C.byref(s), cache, C.byref(out), threads)
        if rc == CAPACITY and grow and out.needed > cap:
            cap = out.needed
            continue
        break
    return contacts, jac, out.count, rc, out.skipped_faces


def lmd(a, pose_a, b, pose_b, settings=None, cache=None, capacity=None, threads=1, **overrides):
    """Every local minimal distance below d_max between Breps a and b at poses [7]
    (osc_lmd_query): an LmdContacts. Settings: a dict `settings` (as lmd_settings() returns)
    and / or keyword overrides (see lmd_settings()). cache: an LmdCache kept between calls on
    this pair (temporal coherence). capacity None grows the buffer until every contact fits; an
    int raises CapacityError when more are found. threads: the footpoint stage's threads (1; 0:
    the default; the answer is the same on any number). ValueError (InvalidArgumentError) for a
    NaN pose, a quaternion that cannot be normalised or settings out of range, with the C
    message."""
    a, b = _brep(a, "a"), _brep(b, "b")
    if cache is not None and not isinstance(cache, LmdCache):
        raise ValueError("cache must be an LmdCache, got %r" % (cache,))
    s = _lmd_settings(settings, overrides)
    pa, pb = F.pose(pose_a, "pose_a"), F.pose(pose_b, "pose_b")
    threads = F.integer(threads, "threads")
    grow = capacity is None
    if grow:
        cap = max(_LMD_INITIAL_CAPACITY, cache._capacity if cache is not None else 0)
    else:
        cap = F.integer(capacity, "capacity", F.I32)
        if cap < 0:
            raise ValueError("lmd: capacity must be >= 0, got %d" % cap)
    if cache is None:
        contacts, jac, count, rc, skipped = _lmd_query(a, pa, b, pb, s, None, cap, grow, threads)
    else:
        with cache._lock:
            cache._remember(a, b)
            contacts, jac, count, rc, skipped = _lmd_query(a, pa, b, pb, s, cache, cap, grow, threads)
            if rc != OK:  # after a failure the cache may hold a partial front
                lib.osc_lmd_cache_reset(cache)
            else:
                cache._capacity = count
    check(rc, "osc_lmd_query")
    return _lmd_contacts(contacts[:count], jac[:count], skipped)


_LMD_OUTPUT = F.as_dtype(F.LmdOutput)
_LMD_ITEM = F.as_dtype(F.LmdBatchItem)
_LMD_FIELDS = ("point_a", "point_b", "distance", "normal", "param_a", "param_b", "kind_a",
               "kind_b", "feature_a", "feature_b", "key", "flags")


@dataclass
class LmdBatch:
    """lmd_batch over N pose pairs: LmdContacts' arrays padded to [N, capacity, ...] (slots past
    count[i] hold zeros), count, needed and status [N]. batch[i] is slot i as an LmdContacts."""

    count: np.ndarray
    needed: np.ndarray
    status: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    distance_jacobian: np.ndarray
    param_a: np.ndarray
    param_b: np.ndarray
    kind_a: np.ndarray
    kind_b: np.ndarray
    feature_a: np.ndarray
    feature_b: np.ndarray
    key: np.ndarray
    flags: np.ndarray

    def __len__(self):
        return len(self.count)

    def __getitem__(self, i):
        """Slot i as an LmdContacts."""
        n = int(self.count[i])
        return LmdContacts(**{k: getattr(self, k)[i][:n]
                              for k in _LMD_FIELDS + ("distance_jacobian",)})


def _lmd_batch_run(items, s, cap, threads, zero=True):
    """osc_lmd_query_batch into buffers of `cap` contacts a slot: (contacts [N, cap], distance
    Jacobians [N, cap, 12], osc_lmd_output records [N], statuses [N], status). zero=False leaves
    the Jacobians unwritten (np.empty): their slots past a pair's count are then unspecified."""
    n = len(items)
    contacts = np.zeros((n, max(cap, 1)), dtype=_LMD_CONTACT)
    jac = (np.zeros if zero else np.empty)((n, max(cap, 1), 12))
    outs = np.zeros(n, dtype=_LMD_OUTPUT)
    outs["contacts"] = F.pointers_into(contacts, n)
    outs["capacity"] = cap
    outs["distance_jacobians"] = F.pointers_into(jac, n)
    status = np.zeros(n, dtype=np.intc)
    rc = lib.osc_lmd_query_batch(items.ctypes.data, n, C.byref(s), outs.ctypes.data,
                                 status.ctypes.data, threads)
    return contacts, jac, outs, status, rc


def lmd_batch(a, poses_a, b, poses_b, settings=None, capacity=None, threads=0, check_status=True,
              **overrides):
    """lmd for N pose pairs over threads, the GIL released (osc_lmd_query_batch): a and b are one
    Brep each or sequences of N; poses_a, poses_b [N, 7] or one [7], broadcast against each
    other (osculate.broadcast_poses). Each slot runs on one thread without a cache and equals
    lmd()'s answer bit for bit. Settings as for lmd(). capacity None grows the buffers until every
    slot's contacts fit (the batch runs again at the largest count); an int raises CapacityError
    naming the first slot with more. A failing slot raises the exception of its status with the
    slot's index ("item i") in the message; with check_status=False, failed slots are reported in
    `status` instead of raising."""
    return _batch(a, poses_a, b, poses_b, settings, capacity, threads, check_status, overrides)


def _batch(a, poses_a, b, poses_b, settings, capacity, threads, check_status, overrides,
           zero=True):
    """lmd_batch with `overrides` as a dict; zero=False as for _lmd_batch_run."""
    pa, pb, _ = F.broadcast_poses(poses_a, poses_b, "lmd_batch", 1, ("poses_a", "poses_b"))
    n = len(pa)
    F.integer(n, "lmd_batch: the number of pairs", F.SZ)
    ha, keep_a = F.models(a, n, Brep, "a")  # held until the call returns
    hb, keep_b = F.models(b, n, Brep, "b")
    s = _lmd_settings(settings, overrides)
    threads = F.integer(threads, "threads")
    grow = capacity is None
    if grow:
        cap = _LMD_INITIAL_CAPACITY
    else:
        cap = F.integer(capacity, "capacity", F.I32)
        if cap < 0:
            raise ValueError("lmd_batch: capacity must be >= 0, got %d" % cap)
    items = np.zeros(n, dtype=_LMD_ITEM)
    items["a"], items["pose_a"], items["b"], items["pose_b"] = ha, pa, hb, pb
    contacts, jac, outs, status, rc = _lmd_batch_run(items, s, cap, threads, zero)
    short = (status == CAPACITY) & (outs["needed"] > cap)
    if grow and short.any():  # the counts are deterministic: one retry suffices
        cap = int(outs["needed"][short].max())
        contacts, jac, outs, status, rc = _lmd_batch_run(items, s, cap, threads, zero)
    if rc != OK and (check_status or not status.any()):
        i = int(np.flatnonzero(status)[0]) if status.any() else -1
        if i >= 0 and status[i] == CAPACITY:
            raise CapacityError("lmd_batch: pair %d found %d contacts, capacity %d"
                                % (i, outs["needed"][i], cap), CAPACITY)
        raise error(rc, "lmd_batch")
    return LmdBatch(count=outs["count"].copy(), needed=outs["needed"].copy(), status=status,
                    distance_jacobian=jac[:, :cap],
                    **{k: contacts[k][:, :cap].copy() for k in _LMD_FIELDS})
