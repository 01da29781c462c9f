"""Rigid bodies and the contact manifolds between two of them (manifold.h), one pair or a batch
over threads. Pose Jacobians have 12 columns along the left twists (dp, dtheta) of A then B."""

import ctypes as C
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _ffi as F
from ._base import CAPACITY, OK, CapacityError, check, error
from ._ffi import lib
from ._grid import Grid, as_sdf, collision_mesh
from ._mesh import CURVES, Mesh
from ._model import _borrowing, _create, _Model


_GROUPS = {"none": 0, "given": 1, "sdf_leaves": 2, "cluster": 3}


class Body(_Model):
    """A rigid body for contact manifolds (osc_body): a collision mesh and an SDF of the same shape
    (`grid`, a spline Grid with its normal field, or `sdf`, any SDF). Groups: "none", "given"
    (vertex_groups [V], optionally edge_groups [E, 2]), "sdf_leaves" or "cluster" (group_count).
    Other settings: curve ("hilbert"), broad_phase_resolution (32), broad_phase_padding (-1),
    surface_tolerance (0.05)."""

    _destroy = lib.osc_body_destroy

    def __init__(self, mesh, grid=None, sdf=None, groups="none", vertex_groups=None,
                 edge_groups=None, **settings):
        if not isinstance(mesh, Mesh):
            raise ValueError("Body: mesh must be a Mesh")
        if (grid is None) == (sdf is None):
            raise ValueError("Body: give exactly one of grid and sdf")
        if grid is not None and not isinstance(grid, Grid):
            raise ValueError("Body: grid must be a Grid")
        if sdf is not None:
            sdf = as_sdf(sdf)
        d = F.settings(lib.osc_body_desc_default(), settings, "Body", {"curve": CURVES})
        for k in settings:
            if k in ("mesh", "grid", "sdf", "groups", "vertex_groups", "edge_groups"):
                raise TypeError("Body: %s is an argument, not a setting" % k)
        d.mesh = mesh._as_parameter_
        d.groups = F.enum_value(_GROUPS, groups, "groups")
        vg = eg = None
        if vertex_groups is not None:
            vg = F.array(vertex_groups, np.int32, (mesh.vertex_count,), "vertex_groups")
            d.vertex_groups = F.iptr(vg)
        if edge_groups is not None:
            eg = F.array(edge_groups, np.int32, (mesh.edge_count, 2), "edge_groups")
            d.edge_groups = F.iptr(eg)
        if d.groups == 1 and vg is None:
            raise ValueError("Body: groups='given' needs vertex_groups")
        # the body copies the mesh and borrows the grid or SDF
        with _borrowing(grid, sdf) as lenders:
            d.grid = grid._as_parameter_ if grid is not None else None
            d.sdf = sdf._as_parameter_ if sdf is not None else None
            super().__init__(_create(lib.osc_body_create, C.byref(d)), lenders)

    size = None  # the model's size (from_mesh): the length the manifold settings scale with

    @classmethod
    def from_mesh(cls, source, resolution=None, mesh_resolution=None, triangles=None, groups=0,
                  load=None, **settings):
        """A body from a mesh file's path or from (vertices [V, 3], faces [F, 3]) arrays in one
        call, as the `osculate contact` program builds one: the mesh's spline SDF (Grid.from_mesh,
        `resolution` cells along its longest axis, default 64), a collision mesh of that SDF
        (collision_mesh, `mesh_resolution` marching-cubes cells, default 96, simplified to
        `triangles`, default 2000), and `groups` > 0 convex groups by clustering (0: none).
        `load`: a dict of Mesh.load settings for a path (degenerate="drop", ...). Every one of
        these sizes is relative to the model, so a model in millimetres and the same model in
        metres give the same body up to scale; body.size (the longest side of the bounds of the
        collision mesh's parts that hold at least 1% of its area, as the program measures it)
        scales the manifold settings: manifold_collide and friends use osc_manifold_settings_for
        _size(min(a.size, b.size)) when both bodies have one and no `size` is given. Other
        settings: those of Body(). body.grid and body.collision_mesh are the models made."""
        if isinstance(source, tuple):
            if len(source) != 2:
                raise ValueError("Body.from_mesh: give a path or (vertices, faces)")
            mesh = Mesh(*source)
        elif isinstance(source, Mesh):
            mesh = source
        else:
            mesh = Mesh.load(source, **(load or {}))
        grid_settings = {} if resolution is None else {"resolution": resolution}
        grid = Grid.from_mesh(mesh, **grid_settings)
        mesh_settings = {}
        if mesh_resolution is not None:
            mesh_settings["resolution"] = mesh_resolution
        if triangles is not None:
            mesh_settings["target_triangles"] = triangles
        collision = collision_mesh(grid.to_sdf(), **mesh_settings)
        groups = F.integer(groups, "groups")
        if groups < 0:
            raise ValueError("Body.from_mesh: groups must be >= 0, got %d" % groups)
        if groups:
            settings = dict(settings, group_count=groups)
        body = cls(collision, grid=grid, groups="cluster" if groups else "none", **settings)
        body.size = _model_size(collision)
        body.grid, body.collision_mesh = grid, collision
        return body

    @property
    def vertex_count(self):
        return lib.osc_body_vertex_count(self)

    @property
    def edge_count(self):
        return lib.osc_body_edge_count(self)

    @property
    def group_count(self):
        return lib.osc_body_group_count(self)

    @property
    def vertex_groups(self):
        g = np.empty(self.vertex_count, np.int32)
        lib.osc_body_vertex_groups(self, F.iptr(g))
        return g


_MAIN_AREA_SHARE = 0.01  # the parts of a mesh that count for its size (tools/cli_models.c)


def _model_size(mesh):
    """The longest side of the bounds of the connected parts of `mesh` that hold at least 1% of
    its area (tools/cli_models.c's cli_model_size: a speck of the iso-surface far away does not
    change the size)."""
    v, t = mesh.vertices, mesh.triangles
    if not len(t):
        return 0.0
    labels = np.arange(len(v))
    while True:  # connected components: every triangle takes its corners' smallest label
        low = labels[t].min(axis=1)
        new = labels.copy()
        np.minimum.at(new, t.reshape(-1), np.repeat(low, 3))
        new = new[new]  # jump along chains of labels
        if np.array_equal(new, labels):
            break
        labels = new
    area = 0.5 * np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)
    part = labels[t[:, 0]]
    part_area = np.bincount(part, weights=area, minlength=len(v))
    keep = part_area[part] >= _MAIN_AREA_SHARE * area.sum()
    corners = v[t[keep].reshape(-1)]
    return float(np.max(corners.max(axis=0) - corners.min(axis=0)))


def _size_of(a, b, size):
    """The size the manifold settings scale with: `size`, else min(a.size, b.size) over the
    bodies (one each or sequences) when every one has a size (Body.from_mesh), else None (the
    defaults, for bodies about 1 unit across)."""
    if size is not None:
        return size
    sizes = [getattr(x, "size", None) for x in (list(a) if isinstance(a, (list, tuple)) else [a])
             + (list(b) if isinstance(b, (list, tuple)) else [b])]
    return None if not sizes or any(x is None for x in sizes) else min(sizes)


def manifold_settings(size=None, **settings):
    """The manifold settings as a dict: the defaults (bodies about 1 unit across), or scaled for
    bodies of `size`, with overrides: d_max (0.02), bandwidth (0.01), trace_temperature (0.002),
    clip_temperature (0.002), blend_temperature (0.005), iterations (3), blend (1),
    broad_phase (1), edges (1), blend_saturated (0)."""
    return F.struct_dict(_manifold_settings(size, settings))


def _manifold_settings(size, kw):
    base = lib.osc_manifold_settings_default() if size is None \
        else lib.osc_manifold_settings_for_size(float(size))
    return F.settings(base, kw, "manifold")


CONTACT_KINDS = ("vertex", "edge", "group")
_CONTACT = F.as_dtype(F.ManifoldContact)
_MANIFOLD_OUTPUT = F.as_dtype(F.ManifoldOutput)
_MANIFOLD_ITEM = F.as_dtype(F.ManifoldBatchItem)
_MANIFOLD_FIELDS = ("point", "distance", "normal", "weight", "jacobian_a", "jacobian_b",
                    "feature", "kind", "body", "group")
# the pose Jacobians: name -> rows per contact (osc_manifold_output's arrays)
_MANIFOLD_JACOBIANS = (("point", 3), ("distance", 1), ("normal", 3), ("weight", 1))


@dataclass
class Manifold:
    """The contacts of manifold_collide: point [n, 3], distance [n] (signed: negative is
    penetration; d_max: no contact), normal [n, 3] (A to B), weight [n], contact Jacobians
    jacobian_a / jacobian_b [n, 3, 6], feature, kind (0 vertex, 1 edge, 2 group), body (0: A's
    feature), group [n]; with derivatives the pose Jacobians along the twists of A then B (12
    columns): point_jacobian [n, 3, 12], distance_jacobian [n, 12], normal_jacobian [n, 3, 12],
    weight_jacobian [n, 12]. `needed` is how many the query produced."""

    point: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    weight: np.ndarray
    jacobian_a: np.ndarray
    jacobian_b: np.ndarray
    feature: np.ndarray
    kind: np.ndarray
    body: np.ndarray
    group: np.ndarray
    needed: int
    point_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None
    normal_jacobian: Optional[np.ndarray] = None
    weight_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.distance)


def _contacts(c):
    """The fields of contact records c [..., n] as arrays [..., n, ...]."""
    out = {k: c[k].copy() for k in _MANIFOLD_FIELDS}
    out["jacobian_a"] = out["jacobian_a"].reshape(c.shape + (3, 6))
    out["jacobian_b"] = out["jacobian_b"].reshape(c.shape + (3, 6))
    return out


def _body(value, name):
    if not isinstance(value, Body):
        raise ValueError("%s must be a Body, got %r" % (name, value))
    return value


def _manifold_capacity(a, b, s, capacity):
    """The contact buffer's size: `capacity`, or max_contacts for these settings when None (over
    every pair of bodies a[i], b[i] when they are handle arrays)."""
    if capacity is None:
        pairs = set(zip(np.atleast_1d(a).tolist(), np.atleast_1d(b).tolist()))
        return max([lib.osc_manifold_max_contacts(x, y, C.byref(s)) for x, y in pairs] + [1])
    return max(F.integer(capacity, "capacity", F.I32), 1)


def max_contacts(a, b, size=None, **settings):
    """The most contacts manifold_collide can produce for bodies a and b with these settings."""
    s = _manifold_settings(_size_of(a, b, size), settings)
    return lib.osc_manifold_max_contacts(_body(a, "a"), _body(b, "b"), C.byref(s))


def _manifold_outputs(n, cap, derivatives, zero=True):
    """The C outputs of n manifold queries of `cap` contacts: contact records [n, cap], the pose
    Jacobians by name [n, cap, rows, 12] (none without derivatives) and the osc_manifold_output
    records [n] pointing into them. zero=False leaves the records and Jacobians unwritten
    (np.empty): the query writes the slots it fills, so the slots past a pair's count are then
    unspecified, and a capacity that is mostly empty costs no memset."""
    alloc = np.zeros if zero else np.empty
    contacts = alloc((n, cap), dtype=_CONTACT)
    jac = {name: alloc((n, cap, rows, 12)) for name, rows in _MANIFOLD_JACOBIANS} \
        if derivatives else {}
    outs = np.zeros(n, dtype=_MANIFOLD_OUTPUT)
    outs["contacts"] = F.pointers_into(contacts, n)
    outs["capacity"] = cap
    for name, _ in _MANIFOLD_JACOBIANS:
        outs[name + "_jacobians"] = F.pointers_into(jac.get(name), n)
    return contacts, jac, outs


def _manifold(contacts, jac, count, needed):
    """Slot of (contacts [cap], jacobians by name [cap, rows, 12]) as a Manifold of count."""
    m = Manifold(needed=int(needed), **_contacts(contacts[:count]))
    for name, rows in _MANIFOLD_JACOBIANS:
        if name in jac:
            j = jac[name][:count]
            setattr(m, name + "_jacobian", j[:, 0] if rows == 1 else j)
    return m


def manifold_collide(a, pose_a, b, pose_b, derivatives=False, capacity=None, size=None,
                     **settings):
    """The contact manifold (Beker et al. 2026 §IV) of bodies a and b at poses [7] (osc_manifold_collide).
    Settings: see manifold_settings() (size: scale the defaults for bodies of that size).
    capacity defaults to max_contacts (never runs out); a smaller one raises CapacityError when
    exceeded."""
    a, b = _body(a, "a"), _body(b, "b")
    s = _manifold_settings(_size_of(a, b, size), settings)
    cap = _manifold_capacity(a._as_parameter_, b._as_parameter_, s, capacity)
    contacts, jac, outs = _manifold_outputs(1, cap, derivatives)
    check(lib.osc_manifold_collide(a, F.pose(pose_a, "pose_a"), b, F.pose(pose_b, "pose_b"),
                                   C.byref(s), outs.ctypes.data))
    return _manifold(contacts[0], {k: v[0] for k, v in jac.items()}, outs["count"][0],
                     outs["needed"][0])


@dataclass
class ManifoldBatch:
    """manifold_collide_batch over N pose pairs: the Manifold's arrays padded to
    [N, capacity, ...] (slots past count[i] hold zeros), count [N], needed [N], status [N], and
    the pose Jacobians (twist columns) when asked."""

    count: np.ndarray
    needed: np.ndarray
    status: np.ndarray
    point: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    weight: np.ndarray
    jacobian_a: np.ndarray
    jacobian_b: np.ndarray
    feature: np.ndarray
    kind: np.ndarray
    body: np.ndarray
    group: np.ndarray
    point_jacobian: Optional[np.ndarray] = None
    distance_jacobian: Optional[np.ndarray] = None
    normal_jacobian: Optional[np.ndarray] = None
    weight_jacobian: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.count)

    def __getitem__(self, i):
        """Configuration i as a Manifold."""
        n = int(self.count[i])
        fields = {k: getattr(self, k)[i][:n] for k in _MANIFOLD_FIELDS}
        m = Manifold(needed=int(self.needed[i]), **fields)
        for k, _ in _MANIFOLD_JACOBIANS:
            v = getattr(self, k + "_jacobian")
            if v is not None:
                setattr(m, k + "_jacobian", v[i][:n])
        return m


def manifold_collide_batch(a, poses_a, b, poses_b, derivatives=False, capacity=None,
                           threads=0, size=None, check_status=True, **settings):
    """manifold_collide for N pose pairs over threads, the GIL released
    (osc_manifold_collide_batch): a and b are one Body each or sequences of N; poses_a, poses_b
    [N, 7] or one [7], broadcast against each other (osculate.broadcast_poses). Each slot equals
    the single call's bit for bit. capacity defaults to max_contacts (never runs out); a smaller
    one raises CapacityError when exceeded. With check_status=False, failed slots are reported in
    `status` instead of raising."""
    contacts, jac, outs, status = _collide_batch(a, poses_a, b, poses_b, derivatives, capacity,
                                                 threads, size, check_status, settings)
    out = ManifoldBatch(count=outs["count"].copy(), needed=outs["needed"].copy(), status=status,
                        **_contacts(contacts))
    for name, rows in _MANIFOLD_JACOBIANS:
        if name in jac:
            setattr(out, name + "_jacobian", jac[name][:, :, 0] if rows == 1 else jac[name])
    return out


def _collide_batch(a, poses_a, b, poses_b, derivatives, capacity, threads, size, check_status,
                   settings, zero=True):
    """The C call of manifold_collide_batch: (contact records [N, capacity], the pose Jacobians by
    name [N, capacity, rows, 12] (twist columns; none without derivatives), the
    osc_manifold_output records [N] (count, needed), status [N]). Slots past a pair's count are
    the zeros they were allocated with, or unspecified with zero=False (_manifold_outputs)."""
    pa, pb, _ = F.broadcast_poses(poses_a, poses_b, "manifold_collide_batch", 1,
                                  ("poses_a", "poses_b"))
    n = len(pa)
    F.integer(n, "manifold_collide_batch: the number of pairs", F.SZ)
    ha, keep_a = F.models(a, n, Body, "a")
    hb, keep_b = F.models(b, n, Body, "b")
    size = _size_of(a, b, size)
    s = _manifold_settings(size, settings)
    cap = _manifold_capacity(ha, hb, s, capacity)
    items = np.zeros(n, dtype=_MANIFOLD_ITEM)
    items["a"], items["pose_a"], items["b"], items["pose_b"] = ha, pa, hb, pb
    contacts, jac, outs = _manifold_outputs(n, cap, derivatives, zero)
    status = np.zeros(n, dtype=np.intc)
    rc = lib.osc_manifold_collide_batch(items.ctypes.data, n, C.byref(s), outs.ctypes.data,
                                        status.ctypes.data, F.integer(threads, "threads"))
    if rc != OK and (check_status or not status.any()):
        if not status.any():  # an argument of the whole call (threads): the message is ours
            raise error(rc, "manifold_collide_batch")
        i = int(np.flatnonzero(status)[0])
        if status[i] == CAPACITY:
            raise CapacityError("manifold_collide_batch: pair %d produced %d contacts, capacity %d"
                                % (i, outs["needed"][i], cap), CAPACITY)
        # the message was set on a worker thread: run the failing pair here for it
        manifold_collide(F.model_of(keep_a, i), pa[i], F.model_of(keep_b, i), pb[i], capacity=cap,
                         size=size, **settings)
        raise error(rc, "manifold_collide_batch (pair %d)" % i)
    return contacts, jac, outs, status


# ------------------------------------------------------------------------------------------------
# sdf_pair.h
