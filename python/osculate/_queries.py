"""Queries: DCOL between convex primitives (convex.h, dcol.h), contact manifolds between bodies
(manifold.h), collision points between SDFs (sdf_pair.h), rays against implicit surfaces
(implicit.h, ray.h). Poses are [7] arrays (px, py, pz, qw, qx, qy, qz), world-from-body; every
pose Jacobian has 12 columns along the left twists (dp, dtheta) of A then B (docs/architecture.md §2);
osculate.pair_jacobian_to_pq converts them to raw pose components."""

import contextlib
import ctypes as C
import threading
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import _ffi as F
from ._core import CAPACITY, INVALID_ARGUMENT, OK, CapacityError, check, error
from ._ffi import lib
from ._models import (CURVES, SDF, Grid, Mesh, _borrowing, _create, _Model, as_sdf,
                      collision_mesh)



# ------------------------------------------------------------------------------------------------
# convex.h

# osc_convex_kind: KINDS[k] is kind k's name; KIND_INVALID (OSC_CONVEX_INVALID) is no shape's
KINDS = ("polytope", "capsule", "cylinder", "cone", "ellipsoid", "sphere", "polygon")
KIND_INVALID = -1


class Convex(_Model):
    """A convex primitive of DCOL (osc_convex) in its body frame; its origin is strictly inside.
    Build with the class methods. The round kinds follow the SDF constructors' conventions: an
    axis along body z, sizes as radii and half-lengths, an ellipsoid by its semi-axes."""

    _destroy = lib.osc_convex_destroy

    @classmethod
    def polytope(cls, normals, offsets):
        """{y : A y <= b}: normals [m, 3] (rows of A), offsets [m] (b > 0), 4 <= m <= 64."""
        a = F.array(normals, np.float64, (-1, 3), "normals")
        b = F.array(offsets, np.float64, (len(a),), "offsets")
        return cls(_create(lib.osc_convex_create_polytope, F.ptr(a), F.ptr(b),
                           F.rows(a, "normals")))

    @classmethod
    def hull(cls, points):
        """The convex hull of points [n, 3] (needs qhull at build time; UnsupportedError else)."""
        p = F.array(points, np.float64, (-1, 3), "points")
        return cls(_create(lib.osc_convex_create_hull, F.ptr(p), F.rows(p, "points")))

    @classmethod
    def bounded_hull(cls, points, max_faces=64):
        """A polytope of at most max_faces (6..64) faces that contains the convex hull of points
        [n, 3]: the hull itself when it has that few facets, else the points' box cut by hull
        facets. Returns (shape, excess), excess how far a corner lies beyond a hull facet's plane
        (0 for the hull itself). Needs qhull at build time (UnsupportedError else)."""
        p = F.array(points, np.float64, (-1, 3), "points")
        excess = C.c_double()
        shape = cls(_create(lib.osc_convex_create_hull_bounded, F.ptr(p), F.rows(p, "points"),
                            F.integer(max_faces, "max_faces"), C.byref(excess)))
        return shape, excess.value

    @classmethod
    def box(cls, half_extents):
        return cls(_create(lib.osc_convex_create_box, F.vec3(half_extents, "half_extents")))

    @classmethod
    def capsule(cls, radius, half_length):
        """Points within radius of the segment from (0, 0, -half_length) to (0, 0, half_length)."""
        return cls(_create(lib.osc_convex_create_capsule, float(radius), float(half_length)))

    @classmethod
    def cylinder(cls, radius, half_length):
        """A cylinder of radius whose axis runs from z = -half_length to z = half_length."""
        return cls(_create(lib.osc_convex_create_cylinder, float(radius), float(half_length)))

    @classmethod
    def cone(cls, radius, half_length):
        """A cone of base radius and height 2 half_length along body z, its origin at its centroid
        (where DCOL scales it, as Tracy et al. 2023 do): the base at z = -half_length / 2, the apex
        at z = 3 half_length / 2. SDF.cone(radius, 0, half_length) is the same solid centred on the
        middle of its axis."""
        return cls(_create(lib.osc_convex_create_cone, float(radius), float(half_length)))

    @classmethod
    def ellipsoid(cls, radii):
        """The axis-aligned ellipsoid of semi-axes radii [3] along body x, y, z."""
        return cls(_create(lib.osc_convex_create_ellipsoid, F.vec3(radii, "radii")))

    @classmethod
    def sphere(cls, radius):
        return cls(_create(lib.osc_convex_create_sphere, float(radius)))

    @classmethod
    def polygon(cls, edge_normals, edge_offsets, radius):
        """Points within radius of the polygon {(u, v, 0) : C (u, v) <= d}: edge_normals [m, 2],
        edge_offsets [m] (> 0)."""
        a = F.array(edge_normals, np.float64, (-1, 2), "edge_normals")
        b = F.array(edge_offsets, np.float64, (len(a),), "edge_offsets")
        return cls(_create(lib.osc_convex_create_polygon, F.ptr(a), F.ptr(b),
                           F.rows(a, "edge_normals"), float(radius)))

    @property
    def kind(self):
        """"polytope", "capsule", "cylinder", "cone", "ellipsoid", "sphere" or "polygon"
        (KINDS[osc_convex_get_kind])."""
        k = lib.osc_convex_get_kind(self)
        if k == KIND_INVALID:
            raise error(INVALID_ARGUMENT, "osc_convex_get_kind")
        return KINDS[k]

    @property
    def bounding_radius(self):
        return lib.osc_convex_bounding_radius(self)

    @property
    def face_count(self):
        return lib.osc_convex_face_count(self)

    @property
    def vertices(self):
        """[n, 3] body-frame vertices of a polytope (of a polygon's core), empty for other kinds."""
        n = lib.osc_convex_vertex_count(self)
        v = np.zeros((n, 3))
        if n:
            lib.osc_convex_vertices(self, F.ptr(v), n)
        return v

    @property
    def parameter_count(self):
        """The number of shape parameters of dcol_parameter_gradient."""
        return lib.osc_dcol_parameter_count(self)

    def support(self, pose, direction):
        """The world point of the posed shape farthest along `direction`."""
        return F.from_vec3(lib.osc_convex_support(self, F.pose(pose), F.vec3(direction, "direction")))

    def gauge(self, point):
        """The least alpha with the body point inside the shape scaled by alpha (1 on the surface)."""
        return lib.osc_convex_gauge(self, F.vec3(point, "point"))


# ------------------------------------------------------------------------------------------------
# dcol.h

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
    other (osculate.broadcast_poses). Each pair equals dcol()'s bit for bit. With
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
    if out is not None and (not isinstance(out, DcolBatch) or out._raw is None or
                            len(out._raw) != n or bool(derivatives) != bool(out.jacobians)):
        raise ValueError("dcol_batch: out must be a DcolBatch of %d pairs %s derivatives"
                         % (n, "with" if derivatives else "without"))
    if out is None:
        res, status, jac, js = _dcol_batch_arrays(n, derivatives)
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
                dcol(_item(keep_a, i), pa[i], _item(keep_b, i), pb[i], **settings)
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


def _dcol_batch_arrays(n, derivatives):
    """The C outputs of a batch of n pairs: results, statuses, Jacobian arrays by name and the
    osc_dcol_jacobians pointing into them (None without derivatives)."""
    res = np.zeros(n, dtype=_DCOL_RESULT)
    status = np.zeros(n, dtype=np.intc)
    jac, js = {}, None
    if derivatives:
        jac = {name: np.zeros((n, rows, 12)) for name, rows in _DCOL_JAC}
        js = np.zeros(n, dtype=_DCOL_JACS)
        for name, rows in _DCOL_JAC:
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


def _item(shapes, i):
    return shapes[0] if len(shapes) == 1 else shapes[i]


# ------------------------------------------------------------------------------------------------
# manifold.h

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


def _manifold_outputs(n, cap, derivatives):
    """The C outputs of n manifold queries of `cap` contacts: contact records [n, cap], the pose
    Jacobians by name [n, cap, rows, 12] (none without derivatives) and the osc_manifold_output
    records [n] pointing into them."""
    contacts = np.zeros((n, cap), dtype=_CONTACT)
    jac = {name: np.zeros((n, cap, rows, 12)) for name, rows in _MANIFOLD_JACOBIANS} \
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
    the single call's bit for bit. capacity defaults to max_contacts (never runs out). With
    check_status=False, failed slots are reported in `status` instead of raising."""
    pa, pb, batch = F.broadcast_poses(poses_a, poses_b, "manifold_collide_batch", 1,
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
    contacts, jac, outs = _manifold_outputs(n, cap, derivatives)
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
        manifold_collide(_item(keep_a, i), pa[i], _item(keep_b, i), pb[i], capacity=cap,
                         size=size, **settings)
        raise error(rc, "manifold_collide_batch (pair %d)" % i)
    out = ManifoldBatch(count=outs["count"].copy(), needed=outs["needed"].copy(), status=status,
                        **_contacts(contacts))
    for name, rows in _MANIFOLD_JACOBIANS:
        if name in jac:
            setattr(out, name + "_jacobian", jac[name][:, :, 0] if rows == 1 else jac[name])
    return out


# ------------------------------------------------------------------------------------------------
# sdf_pair.h


def sdf_pair_settings(**settings):
    """The SDF-pair settings with overrides: resolution (12), epsilon (1e-4, relative), step
    (0.25), max_iterations (40), first_only (0), merge_distance (1), temperature (0; > 0: the
    smooth mode with pose Jacobians)."""
    return F.struct_dict(F.settings(lib.osc_sdf_pair_settings_default(), settings, "sdf_pair"))


class _Callback:
    """A Python function that the library calls back through a ctypes `prototype`. An exception
    cannot cross C: the first one of a library call is kept (the C side sees NaN) and raised when
    the call returns (_python_calls), which also lets one library call at a time use the function,
    so that an exception is raised by the call whose callback raised it, whatever other threads
    do."""

    def __init__(self, prototype, function):
        self.lock = threading.RLock()
        self.error = None

        def call(*args):
            try:
                return function(*args)
            except Exception as e:  # noqa: BLE001 - re-raised by _python_calls
                if self.error is None:
                    self.error = e
                return float("nan")

        self.c_function = prototype(call)


@contextlib.contextmanager
def _python_calls(*callbacks):
    """Around one library call that may call the _Callbacks `callbacks` (None skipped): holds
    their locks, then raises the first exception one of them raised."""
    unique = sorted({id(c): c for c in callbacks if c is not None}.values(), key=id)
    with contextlib.ExitStack() as stack:
        for c in unique:
            stack.enter_context(c.lock)
            c.error = None
        yield
        for c in unique:
            e, c.error = c.error, None
            if e is not None:
                raise e


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


# ------------------------------------------------------------------------------------------------
# implicit.h, ray.h


class Implicit(_Model):
    """An implicit surface F(X) = 0 for rays (osc_implicit): Implicit.sag (an even asphere of
    revolution about x), Implicit.from_sdf or Implicit.function (a Python callable)."""

    _destroy = lib.osc_implicit_destroy
    parameter_count = 0
    _callback = None  # the _Callback of Implicit.function

    @classmethod
    def sag(cls, curvature, diameter, conic=0.0, coefficients=()):
        """x = c r^2 / (1 + sqrt(1 - (1 + k) c^2 r^2)) + sum a_i r^(2i + 4) over |r| <= D / 2."""
        co = F.floats(coefficients, "coefficients").reshape(-1)
        if len(co) > 8:
            raise ValueError("sag: at most 8 coefficients, got %d" % len(co))
        s = F.Sag(float(curvature), float(conic), len(co), (C.c_double * 8)(*co), float(diameter))
        obj = cls(_create(lib.osc_implicit_create_sag, C.byref(s)))
        obj.parameter_count = 2 + len(co)
        obj.sag_parameters = dict(curvature=float(curvature), conic=float(conic),
                                  coefficients=co.copy(), diameter=float(diameter))
        return obj

    @classmethod
    def from_sdf(cls, sdf):
        sdf = as_sdf(sdf)
        with _borrowing(sdf) as lenders:
            return cls(_create(lib.osc_implicit_create_sdf, sdf), lenders)

    @classmethod
    def function(cls, function, centre, radius):
        """A user surface: function(point [3]) -> (F, gradient [3]) in the surface frame, with a
        bounding sphere. Called back from C one point at a time; single-ray calls only."""
        def call(_context, point, gradient):
            v, g = function(np.array([point[0], point[1], point[2]]))
            g = F.floats(g, "the gradient of an Implicit.function").reshape(3)
            gradient[0], gradient[1], gradient[2] = g
            return float(v)

        cb = _Callback(F.ImplicitFunction, call)
        obj = cls(_create(lib.osc_implicit_create_function, cb.c_function, None,
                          F.vec3(centre, "centre"), float(radius)), keep=(cb,))
        obj._callback = cb
        return obj

    def eval(self, point):
        """(F, gradient, hessian [3, 3]) at a surface-frame point."""
        g, h = F.Vec3(), F.Mat3()
        with _python_calls(self._callback):
            v = lib.osc_implicit_eval(self, F.vec3(point, "point"), C.byref(g), C.byref(h))
        return v, F.from_vec3(g), np.array(h.m).reshape(3, 3)

    def in_domain(self, point):
        return bool(lib.osc_implicit_in_domain(self, F.vec3(point, "point")))

    def sag_value(self, r):
        """(g(r), g'(r)) of a sag surface (NaN for other surfaces)."""
        d = C.c_double()
        v = lib.osc_implicit_sag(self, float(r), C.byref(d))
        return v, d.value

    @property
    def bounding_sphere(self):
        c, r = F.Vec3(), C.c_double()
        lib.osc_implicit_bounding_sphere(self, C.byref(c), C.byref(r))
        return F.from_vec3(c), r.value



def transform(anchor=(0.0, 0.0, 0.0), scale=1.0, rotation=(1.0, 0.0, 0.0, 0.0),
              translation=(0.0, 0.0, 0.0)):
    """A surface placement X = R s (X_local - anchor) + translation, as a dict for the ray
    functions' `transform` argument."""
    return dict(anchor=anchor, scale=scale, rotation=rotation, translation=translation)


def _transform(t):
    if t is None:
        return None
    if not isinstance(t, dict):
        raise ValueError("transform must be a dict (see osculate.transform())")
    unknown = set(t) - {"anchor", "scale", "rotation", "translation"}
    if unknown:
        raise TypeError("transform: unknown keys %s" % sorted(unknown))
    d = transform(**t)
    return F.ImplicitTransform(F.vec3(d["anchor"], "anchor"), float(d["scale"]),
                               F.quat(d["rotation"], "rotation"),
                               F.vec3(d["translation"], "translation"))


_ALGORITHMS = {"newton": 0, "gradient_descent": 1, "levenberg_marquardt": 2, "sphere_tracing": 3}
_INITS = {"zero": 0, "closest": 1, "bounding_sphere": 2}


def _ray_settings(kw):
    s = lib.osc_ray_settings_default()
    phases = {}
    for name in ("coarse", "fine", "final_step"):
        if name in kw:
            phases[name] = kw.pop(name)
    s = F.settings(s, kw, "ray", {"init": _INITS})
    for name, value in phases.items():
        if not isinstance(value, dict):
            raise ValueError("ray: %s must be a dict of algorithm, iterations, damping, max_step"
                             % name)
        ph = getattr(s, name)
        F.settings(ph, value, "ray " + name, {"algorithm": _ALGORITHMS})
    return s


def ray_settings(**settings):
    """The ray settings with overrides: init ("bounding_sphere"), beams (4), coarse / fine /
    final_step phases (dicts of algorithm "newton" | "gradient_descent" | "levenberg_marquardt" |
    "sphere_tracing", iterations, damping, max_step), tolerance (1e-10, relative),
    analytic_conics (1)."""
    return F.struct_dict(_ray_settings(dict(settings)))


@dataclass
class RayHit:
    """The answer of ray_intersect: t, point, normal (unit grad F in the world), hit, grazing,
    iterations; with derivatives a dict `jacobians` of ray.h's outputs (t_origin [3],
    t_direction [3], point_origin [3, 3], point_direction, normal_origin, normal_direction,
    t_surface_pose [6], point_surface_pose [3, 6], normal_surface_pose, t_anchor [3], t_scale [1],
    and for a sag t_parameters [P], point_parameters [3, P], normal_parameters [3, P], P = 2 +
    coefficients: (curvature, conic, a_i...))."""

    t: float
    point: np.ndarray
    normal: np.ndarray
    hit: bool
    grazing: bool
    iterations: int
    jacobians: Optional[dict] = None


_RAY_SHAPES = (("t_origin", (3,)), ("t_direction", (3,)), ("point_origin", (3, 3)),
               ("point_direction", (3, 3)), ("normal_origin", (3, 3)),
               ("normal_direction", (3, 3)), ("t_surface_pose", (6,)), ("t_parameters", ("P",)),
               ("point_surface_pose", (3, 6)), ("normal_surface_pose", (3, 6)),
               ("point_parameters", (3, "P")), ("normal_parameters", (3, "P")),
               ("t_anchor", (3,)), ("t_scale", (1,)))


def _implicit(surface):
    if not isinstance(surface, Implicit):
        raise ValueError("surface must be an Implicit, got %r" % (surface,))
    return surface


def _ray_jacobians(surface, n):
    np_ = surface.parameter_count
    jac = {}
    for name, shape in _RAY_SHAPES:
        shape = tuple(np_ if s == "P" else s for s in shape)
        if "parameters" in name and np_ == 0:
            continue
        jac[name] = np.zeros((n,) + shape)
    cj = F.RayJacobians(**{name: F.ptr(a) for name, a in jac.items()})
    return jac, cj


_RAY_HIT = F.as_dtype(F.RayHit)


def ray_intersect_many(surface, origins, directions, transform=None, derivatives=False,
                       check_status=True, **settings):
    """Rays origins, directions [N, 3] against a surface one after the other with the Jacobians of
    ray_intersect (GIL released): a dict of t [N], point, normal [N, 3], hit, grazing, iterations,
    status [N] and, with derivatives, the Jacobians [N, ...] (see RayHit)."""
    surface = _implicit(surface)
    o = F.array(origins, np.float64, (-1, 3), "origins")
    d = F.array(directions, np.float64, (-1, 3), "directions")
    if len(o) != len(d):
        raise ValueError("ray_intersect_many: %d origins for %d directions" % (len(o), len(d)))
    n = len(o)
    s = _ray_settings(dict(settings))
    tr = _transform(transform)
    hits = np.zeros(max(n, 1), dtype=_RAY_HIT)
    status = np.zeros(max(n, 1), dtype=np.intc)
    jac, cj = _ray_jacobians(surface, n) if derivatives else ({}, None)
    with _python_calls(surface._callback):
        rc = lib.oscpy_ray_intersect_many(surface, C.byref(tr) if tr else None, n, F.ptr(o),
                                          F.ptr(d), C.byref(s),
                                          hits.ctypes.data_as(C.POINTER(F.RayHit)),
                                          C.byref(cj) if cj else None, surface.parameter_count,
                                          status.ctypes.data_as(F.IP))
    if rc != OK and check_status:
        raise error(rc, "ray_intersect_many")
    hits = hits[:n]
    out = dict(t=hits["t"].copy(), point=hits["point"].copy(), normal=hits["normal"].copy(),
               hit=hits["hit"].astype(bool), grazing=hits["grazing"].astype(bool),
               iterations=hits["iterations"].copy(), status=status[:n])
    out.update(jac)
    return out


def ray_intersect(surface, origin, direction, transform=None, derivatives=False, **settings):
    """One ray origin + t direction against a placed surface (osc_ray_intersect). transform: see
    osculate.transform() (None: identity). Settings: see ray_settings()."""
    r = ray_intersect_many(surface, F.array(origin, np.float64, (3,), "origin")[None],
                           F.array(direction, np.float64, (3,), "direction")[None], transform,
                           derivatives, **settings)
    jac = {k: r[k][0] for k, _ in _RAY_SHAPES if k in r} if derivatives else None
    return RayHit(float(r["t"][0]), r["point"][0], r["normal"][0], bool(r["hit"][0]),
                  bool(r["grazing"][0]), int(r["iterations"][0]), jac)


_RAY = F.as_dtype(F.Ray)


def ray_intersect_batch(surface, origins, directions, transform=None, threads=0,
                        check_status=True, **settings):
    """N rays over threads, the GIL released (osc_ray_intersect_batch): (t [N], points [N, 3],
    normals [N, 3], hits [N] bool); each equals ray_intersect's bit for bit. origins and
    directions are [N, 3] or one [3], broadcast against each other. A ray outside the library's
    ranges raises InvalidArgumentError naming it (with check_status=False it gets t = NaN)."""
    surface = _implicit(surface)
    o = F.floats(origins, "origins")
    d = F.floats(directions, "directions")
    if o.shape[-1:] != (3,) or d.shape[-1:] != (3,) or o.ndim > 2 or d.ndim > 2 or \
            (o.ndim == d.ndim == 2 and len(o) != len(d)):
        raise ValueError("ray_intersect_batch: origins and directions must have shape (N, 3) or "
                         "(3,), got %s and %s" % (o.shape, d.shape))
    n = len(o) if o.ndim == 2 else len(d) if d.ndim == 2 else 1
    rays = np.zeros(n, dtype=_RAY)
    rays["origin"], rays["direction"] = o, d
    s = _ray_settings(dict(settings))
    tr = _transform(transform)
    hits = np.zeros(n, dtype=_RAY_HIT)
    status = np.zeros(n, dtype=np.intc)
    with _python_calls(surface._callback):
        rc = lib.osc_ray_intersect_batch(surface, C.byref(tr) if tr else None, rays.ctypes.data,
                                         n, C.byref(s), hits.ctypes.data, status.ctypes.data,
                                         F.integer(threads, "threads"))
    if check_status:
        check(rc, "ray_intersect_batch")
    return hits["t"].copy(), hits["point"].copy(), hits["normal"].copy(), hits["hit"].astype(bool)
