"""Models: analytic SDFs (sdf.h), meshes and their BVH (mesh.h), spline SDFs (grid.h), marching
cubes (isosurface.h)."""

import contextlib
import ctypes as C
import os
import threading

import numpy as np

from . import _ffi as F
from ._core import check
from ._ffi import lib


# Orders close() against a borrower taking a reference on the model it borrows. Reentrant: the
# garbage collector may finalise (close) another model while this thread holds it.
_lifetime = threading.RLock()


def _destroy_address(fn):
    return C.cast(fn.c_function, C.c_void_p).value


class _Model:
    """A C model owned through a reference count (oscpy_ref, python/src/osculate_py.c): the model
    holds one reference and every model that borrows it (a Body its SDF or Grid, an Implicit its
    SDF, an LmdCache its last pair of Breps) holds another, so the C object lives until the last
    of them goes, whatever order Python releases them in. close() (or the collector) drops this
    model's own reference; a closed model refuses every use with ValueError."""

    _destroy = None  # the C function that destroys the object
    _handle = 0  # the C object's address; 0 once closed
    _ref = None  # the oscpy_ref's address; None once closed
    _lifetime = _lifetime  # (class attributes: still reachable while the interpreter shuts down)
    _release_ref = lib.oscpy_ref_release

    def __init__(self, handle, lenders=(), keep=()):
        """Takes `handle` over, and the references `lenders` (from _borrowing) on the models it
        borrows; `keep`: Python objects the C object calls back into (ctypes callbacks)."""
        ref = lib.oscpy_ref_create(handle, _destroy_address(self._destroy),
                                   (C.c_void_p * max(len(lenders), 1))(*lenders), len(lenders))
        if not ref:
            self._destroy(handle)
            raise MemoryError("%s: out of memory for its reference count" % type(self).__name__)
        self._keep = tuple(keep)
        self._handle, self._ref = handle, ref

    @property
    def _as_parameter_(self):
        h = self._handle
        if not h:
            raise ValueError("%s is closed" % type(self).__name__)
        return h

    def close(self):
        """Releases the C object now instead of when the Python object is collected. A model that
        other models borrow lives on until the last of them goes. Using a closed model raises
        ValueError; closing it again does nothing. Not while another thread is using this model."""
        with self._lifetime:
            ref, self._ref, self._handle = self._ref, None, 0
        if ref:
            self._release_ref(ref)

    def __del__(self):
        self.close()

    # a model is immutable: a copy is the model itself; pickling would copy an address
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        raise TypeError("cannot pickle or copy a %s: it holds a C object" % type(self).__name__)


@contextlib.contextmanager
def _borrowing(*models):
    """References on the open models among `models` (None skipped) for a model about to borrow
    them, taken before it is made: hand them to _Model.__init__; released again if making it
    fails. ValueError when one of them is closed."""
    with _lifetime:
        for m in models:
            if m is not None and not m._ref:
                raise ValueError("%s is closed" % type(m).__name__)
        refs = [m._ref for m in models if m is not None]
        for r in refs:
            lib.oscpy_ref_acquire(r)
    try:
        yield refs
    except BaseException:
        for r in refs:
            lib.oscpy_ref_release(r)
        raise


def _create(fn, *args, where=None):
    out = C.c_void_p()
    check(fn(*args, C.byref(out)), where)
    return out.value


def _bounds(fn, obj):
    lo, hi = F.Vec3(), F.Vec3()
    fn(obj, C.byref(lo), C.byref(hi))
    return F.from_vec3(lo), F.from_vec3(hi)


# ------------------------------------------------------------------------------------------------
# sdf.h

_FRAMES = {"frenet": 0, "interpolated": 1}


def _plane(value, name):
    a = F.array(value, np.float64, (4,), name)
    return F.Plane(F.Vec3(a[0], a[1], a[2]), a[3])


def _profile(value, name):
    a = F.floats(value, name)
    if a.shape == ():
        a = np.repeat(a, 3)
    if a.shape != (3,):
        raise ValueError("%s must be a number or (start, control, end), got shape %s" % (name, a.shape))
    return F.Profile(*a)


def _rows_of(value, row, name):
    """`value` (any nesting of numbers) as rows of shape `row`: [n, *row] float64."""
    row = (row,) if isinstance(row, int) else row
    a = F.floats(value, name)
    if a.size % int(np.prod(row)):
        raise ValueError("%s must hold rows of %s numbers, got shape %s"
                         % (name, " x ".join(map(str, row)), a.shape))
    return a.reshape((-1,) + row)


class SDF(_Model):
    """An immutable signed distance function (osc_sdf). Build with the class methods; combine with
    union / intersection / subtraction / transformed / offset (inputs are copied). Negative inside.
    """

    _destroy = lib.osc_sdf_destroy

    # primitives
    @classmethod
    def sphere(cls, radius):
        return cls(_create(lib.osc_sdf_create_sphere, float(radius)))

    @classmethod
    def box(cls, half_extents, rounding=0.0):
        return cls(_create(lib.osc_sdf_create_box, F.vec3(half_extents, "half_extents"),
                           float(rounding)))

    @classmethod
    def capsule(cls, radius, half_length):
        """Points within radius of the segment from (0, 0, -half_length) to (0, 0, half_length)."""
        return cls(_create(lib.osc_sdf_create_capsule, float(radius), float(half_length)))

    @classmethod
    def cylinder(cls, radius, half_length):
        return cls(_create(lib.osc_sdf_create_cylinder, float(radius), float(half_length)))

    @classmethod
    def cone(cls, radius_bottom, radius_top, half_length):
        return cls(_create(lib.osc_sdf_create_cone, float(radius_bottom), float(radius_top),
                           float(half_length)))

    @classmethod
    def menger(cls, half_size, levels):
        return cls(_create(lib.osc_sdf_create_menger, float(half_size),
                           F.integer(levels, "levels")))

    @classmethod
    def torus(cls, major_radius, minor_radius):
        return cls(_create(lib.osc_sdf_create_torus, float(major_radius), float(minor_radius)))

    @classmethod
    def halfspace(cls, normal, offset):
        """{normal . x + offset <= 0} (unbounded)."""
        return cls(_create(lib.osc_sdf_create_halfspace, F.vec3(normal, "normal"), float(offset)))

    @classmethod
    def ellipsoid(cls, radii):
        return cls(_create(lib.osc_sdf_create_ellipsoid, F.vec3(radii, "radii")))

    @classmethod
    def superquadric(cls, scales, eps1, eps2):
        return cls(_create(lib.osc_sdf_create_superquadric, F.vec3(scales, "scales"), float(eps1),
                           float(eps2)))

    @classmethod
    def psq(cls, scales, eps1, eps2, planes=(), temperature=0.01):
        """A superquadric smoothly intersected with half-spaces, `planes` [n, 4] rows (nx, ny, nz,
        offset) meaning {n . x + offset <= 0} in the SQ frame."""
        pl = _rows_of(planes, 4, "planes")
        arr = (F.Plane * max(len(pl), 1))(*[_plane(r, "planes[%d]" % i) for i, r in enumerate(pl)])
        return cls(_create(lib.osc_sdf_create_psq, F.vec3(scales, "scales"), float(eps1),
                           float(eps2), arr, F.rows(pl, "planes"), float(temperature)))

    @classmethod
    def xpsq(cls, control_points=None, frame=None, binormal=None, rotation_start=None,
             rotation_end=None, scale=None, exponent=None, planes=(), plane_temperature=None,
             discriminant_temperature=None, root_temperature=None, blend_temperature=None):
        """A PSQ swept along a quadratic spline (Beker et al. 2026 §III-A.4-5). Unset arguments keep
        osc_xpsq_desc_default(): control_points [3, 3]; frame "frenet" or "interpolated"; scale:
        three profiles (a number or (start, control, end)); exponent: two profiles; planes [n, 3, 4]
        (start, control, end plane of each half-space, rows (nx, ny, nz, offset))."""
        d = lib.osc_xpsq_desc_default()
        if control_points is not None:
            cp = F.array(control_points, np.float64, (3, 3), "control_points")
            for i in range(3):
                d.control_points[i] = F.Vec3(*cp[i])
        if frame is not None:
            d.frame = F.enum_value(_FRAMES, frame, "frame")
        if binormal is not None:
            d.binormal = F.vec3(binormal, "binormal")
        if rotation_start is not None:
            d.rotation_start = F.quat(rotation_start, "rotation_start")
        if rotation_end is not None:
            d.rotation_end = F.quat(rotation_end, "rotation_end")
        if scale is not None:
            if len(scale) != 3:
                raise ValueError("scale must hold three profiles (a_x, a_y, a_z)")
            for i in range(3):
                d.scale[i] = _profile(scale[i], "scale[%d]" % i)
        if exponent is not None:
            if len(exponent) != 2:
                raise ValueError("exponent must hold two profiles (eps1, eps2)")
            for i in range(2):
                d.exponent[i] = _profile(exponent[i], "exponent[%d]" % i)
        pl = _rows_of(planes, (3, 4), "planes")
        arr = (F.PlaneProfile * max(len(pl), 1))(*[
            F.PlaneProfile(*[_plane(r[k], "planes[%d]" % i) for k in range(3)])
            for i, r in enumerate(pl)])
        d.planes = arr
        d.plane_count = F.rows(pl, "planes")
        for name, v in (("plane_temperature", plane_temperature),
                        ("discriminant_temperature", discriminant_temperature),
                        ("root_temperature", root_temperature),
                        ("blend_temperature", blend_temperature)):
            if v is not None:
                setattr(d, name, float(v))
        return cls(_create(lib.osc_sdf_create_xpsq, C.byref(d)))

    # combinators
    @staticmethod
    def _children(children):
        children = list(children)
        for c in children:
            if not isinstance(c, SDF):
                raise ValueError("children must be SDF models, got %r" % (c,))
        arr = (C.c_void_p * max(len(children), 1))(*[c._as_parameter_ for c in children])
        return arr, len(children)

    @classmethod
    def union(cls, children, temperature=0.0):
        """-LSE(-phi_i) at `temperature` (0: the hard minimum)."""
        arr, n = cls._children(children)
        return cls(_create(lib.osc_sdf_create_union, arr, n, float(temperature)))

    @classmethod
    def intersection(cls, children, temperature=0.0):
        arr, n = cls._children(children)
        return cls(_create(lib.osc_sdf_create_intersection, arr, n, float(temperature)))

    def subtract(self, other, temperature=0.0):
        """This shape with `other` removed, LSE(phi_a, -phi_b)."""
        if not isinstance(other, SDF):
            raise ValueError("subtract: other must be an SDF")
        return SDF(_create(lib.osc_sdf_create_subtraction, self, other, float(temperature)))

    def transformed(self, pose, scale=1.0):
        """This shape placed by `pose` (world-from-child, [7]) and scaled by `scale`."""
        return SDF(_create(lib.osc_sdf_create_transformed, self, F.pose(pose), float(scale)))

    def offset(self, distance):
        """phi - distance: inflated by `distance`."""
        return SDF(_create(lib.osc_sdf_create_offset, self, float(distance)))

    def __or__(self, other):
        return SDF.union([self, other])

    def __and__(self, other):
        return SDF.intersection([self, other])

    def __sub__(self, other):
        return self.subtract(other)

    # evaluation
    def eval(self, points, gradient=False, hessian=False, threads=0):
        """phi at points [3] or [N, 3]; with gradient / hessian a tuple (values, gradients [N, 3],
        hessians [N, 3, 3]) of what was asked (osc_sdf_eval_batch, GIL released)."""
        pts, single = F.points(points)
        n = len(pts)
        v = np.empty(n)
        g = np.empty((n, 3)) if gradient else None
        h = np.empty((n, 3, 3)) if hessian else None
        check(lib.osc_sdf_eval_batch(self, F.ptr(pts), n, F.ptr(v), F.ptr(g), F.ptr(h),
                                     F.integer(threads, "threads")))
        out = [v[0] if single else v]
        if gradient:
            out.append(g[0] if single else g)
        if hessian:
            out.append(h[0] if single else h)
        return out[0] if len(out) == 1 else tuple(out)

    __call__ = eval

    def eval_leaf(self, leaf, point):
        """(value, gradient, hessian) of primitive leaf `leaf` alone at one point."""
        leaf = F.integer(leaf, "leaf")
        if not 0 <= leaf < self.leaf_count:
            raise ValueError("eval_leaf: leaf %d out of range 0..%d" % (leaf, self.leaf_count - 1))
        g, h = F.Vec3(), F.Mat3()
        v = lib.osc_sdf_eval_leaf(self, leaf, F.vec3(point, "point"), C.byref(g), C.byref(h))
        return v, F.from_vec3(g), np.array(h.m).reshape(3, 3)

    @property
    def bounds(self):
        """(lo, hi) of a box containing {phi <= 0} (+-inf when unbounded)."""
        return _bounds(lib.osc_sdf_bounds, self)

    @property
    def lipschitz(self):
        return lib.osc_sdf_lipschitz(self)

    @property
    def lipschitz_is_bound(self):
        return bool(lib.osc_sdf_lipschitz_is_bound(self))

    @property
    def leaf_count(self):
        return lib.osc_sdf_leaf_count(self)


# ------------------------------------------------------------------------------------------------
# mesh.h

_FORMATS = {"auto": 0, "obj": 1, "stl": 2, "off": 3, "ply": 4}
_DEGENERATE = {"reject": 0, "drop": 1}
CURVES = {"morton": 0, "hilbert": 1}
_FEATURES = ("face", "edge", "vertex")


def _load_settings(kw):
    return F.settings(lib.osc_mesh_load_settings_default(), kw, "mesh load",
                      {"format": _FORMATS, "degenerate": _DEGENERATE})


class Mesh(_Model):
    """An immutable triangle mesh (osc_mesh): Mesh(vertices [V, 3], triangles [T, 3]) copies the
    arrays as they are, windings included (trimesh users: Mesh(m.vertices, m.faces));
    Mesh.load(path) imports OBJ, STL, OFF, PLY and orients the triangles outward. `orientation`
    says whether the windings are consistent and outward and the surface closed; `oriented()`
    makes them so.
    """

    _destroy = lib.osc_mesh_destroy

    def __init__(self, vertices=None, triangles=None, _handle=None):
        if _handle is None:
            v = F.array(vertices, np.float64, (-1, 3), "vertices")
            try:
                empty = len(triangles) == 0
            except TypeError:
                empty = False
            t = np.zeros((0, 3), np.int32) if empty else \
                F.array(triangles, np.int32, (-1, 3), "triangles")
            _handle = _create(lib.osc_mesh_create, F.ptr(v), F.rows(v, "vertices", F.I32),
                              F.iptr(t), F.rows(t, "triangles", F.I32))
        super().__init__(_handle)
        self.load_report = None

    @classmethod
    def _wrap(cls, handle):
        return cls(_handle=handle)

    @classmethod
    def load(cls, path, **settings):
        """Imports a mesh file. Settings (keyword, defaults of osc_mesh_load_settings_default):
        format ("auto", "obj", "stl", "off", "ply"), weld_tolerance (0: exact duplicates are
        merged; < 0: none), degenerate ("reject", a ParseError naming a face that repeats a
        vertex after welding, or "drop": left out and counted), keep_unreferenced (False),
        max_coordinate (1e12), orient (True: the triangles are oriented outward as by
        Mesh.oriented(); False keeps the windings as read). ParseError for malformed content,
        OSError (OsculateIOError) when unreadable or not a regular file. `mesh.load_report` says
        what the import did: a dict of format, binary, vertices_read, faces_read,
        vertices_welded, vertices_unreferenced, faces_dropped, polygons_triangulated and
        orientation, the Mesh.orientation dict of the mesh as read (after welding and dropping):
        its closedness, and the triangles orienting turned (with orient) or would turn."""
        s = _load_settings(settings)
        report = F.MeshLoadReport()
        out = C.c_void_p()
        check(lib.osc_mesh_load(os.fsencode(path), C.byref(s), C.byref(out), C.byref(report)))
        m = cls._wrap(out.value)
        m.load_report = F.struct_dict(report)
        return m

    @classmethod
    def from_bytes(cls, data, **settings):
        """Imports a mesh from the bytes of a file (format from `format` or the content)."""
        data = bytes(data)
        s = _load_settings(settings)
        report = F.MeshLoadReport()
        out = C.c_void_p()
        check(lib.osc_mesh_load_memory(data, len(data), C.byref(s), C.byref(out), C.byref(report)))
        m = cls._wrap(out.value)
        m.load_report = F.struct_dict(report)
        return m

    @property
    def vertex_count(self):
        return lib.osc_mesh_vertex_count(self)

    @property
    def triangle_count(self):
        return lib.osc_mesh_triangle_count(self)

    @property
    def edge_count(self):
        return lib.osc_mesh_edge_count(self)

    def _copy(self, fn, count, width, dtype):
        if count == 0:
            return np.zeros((0, width), dtype=dtype)
        p = fn(self)
        return np.ctypeslib.as_array(p, shape=(count, width)).astype(dtype, copy=True)

    @property
    def vertices(self):
        """[V, 3] vertex coordinates (a copy)."""
        return self._copy(lib.osc_mesh_vertices, self.vertex_count, 3, np.float64)

    @property
    def triangles(self):
        """[T, 3] vertex indices (a copy)."""
        return self._copy(lib.osc_mesh_triangles, self.triangle_count, 3, np.int32)

    @property
    def edges(self):
        """[E, 2] unique edges, edges[e, 0] < edges[e, 1]."""
        return self._copy(lib.osc_mesh_edges, self.edge_count, 2, np.int32)

    @property
    def edge_triangles(self):
        """[E, 2] the first two triangles of each edge (-1: none)."""
        return self._copy(lib.osc_mesh_edge_triangles, self.edge_count, 2, np.int32)

    @property
    def volume(self):
        return lib.osc_mesh_volume(self)

    @property
    def area(self):
        return lib.osc_mesh_area(self)

    @property
    def topology(self):
        """A dict: counts, boundary / non-manifold / inconsistent edges, components, closed, Euler
        characteristic."""
        t = F.MeshTopology()
        lib.osc_mesh_get_topology(self, C.byref(t))
        return F.struct_dict(t)

    @property
    def orientation(self):
        """Orientation and closedness (osc_mesh_get_orientation), a dict: patches (sets of
        triangles joined across manifold edges), closed_patches (orientable and without
        boundary), boundary_edges, non_manifold_edges, inconsistent_edges (manifold edges that
        both triangles run along the same way), non_orientable_patches, flat_patches (bounding no
        volume), inverted_patches (inside out as given), triangles_flipped (what oriented() would
        turn; 0: oriented already), sign_reliable (1 when every patch is closed, orientable and
        not flat, so that inside and outside are well defined once oriented) and volume (the
        signed volume once oriented). The rules are those of docs/mesh.md "Orientation"."""
        o = F.MeshOrientation()
        check(lib.osc_mesh_get_orientation(self, C.byref(o)))
        return F.struct_dict(o)

    def oriented(self):
        """A copy with consistent, outward windings (osc_mesh_orient): the same vertices and the
        same triangles in the same order, orientation["triangles_flipped"] of them with two
        corners swapped; each closed patch faces outward (a cavity inside another keeps facing
        into it). Orienting an oriented mesh changes nothing. Spline SDFs (Grid.from_mesh) need
        outward windings."""
        out = C.c_void_p()
        check(lib.osc_mesh_orient(self, C.byref(out), None))
        return Mesh._wrap(out.value)

    def write_obj(self, path):
        check(lib.osc_mesh_write_obj(self, os.fsencode(path)))

    def bvh(self):
        """A MeshBVH for closest points, winding numbers and signed distances."""
        return MeshBVH(self)

    def simplify(self, **settings):
        """A simplified copy (quadric edge collapse). Settings: target_triangles (1000), max_error
        (inf), min_angle (10 degrees), weld_tolerance (0). Returns (mesh, achieved_error)."""
        s = F.settings(lib.osc_mesh_simplify_settings_default(), settings, "simplify")
        err = C.c_double()
        out = C.c_void_p()
        check(lib.osc_mesh_simplify(self, C.byref(s), C.byref(out), C.byref(err)))
        return Mesh._wrap(out.value), err.value

    def reorder(self, curve="hilbert"):
        """(mesh, vertex_order, edge_order): a copy sorted along a space-filling curve ("morton" or
        "hilbert"); the orders map new -> old."""
        c = F.enum_value(CURVES, curve, "curve")
        vo = np.empty(self.vertex_count, np.int32)
        eo = np.empty(self.edge_count, np.int32)
        out = C.c_void_p()
        check(lib.osc_mesh_reorder(self, c, C.byref(out), F.iptr(vo), F.iptr(eo)))
        return Mesh._wrap(out.value), vo, eo

    def groups_cluster(self, group_count):
        """(vertex_groups [V], count): k-means convex groups (osc_mesh_groups_cluster)."""
        g = np.empty(self.vertex_count, np.int32)
        n = C.c_int32()
        check(lib.osc_mesh_groups_cluster(self, F.integer(group_count, "group_count", F.I32),
                                          F.iptr(g), C.byref(n)))
        return g, n.value

    def groups_from_hulls(self, hulls):
        """vertex_groups [V]: the hull of `hulls` (closed convex Mesh objects) each vertex is in."""
        hulls = list(hulls)
        if not all(isinstance(h, Mesh) for h in hulls):
            raise ValueError("hulls must be Mesh objects")
        arr = (C.c_void_p * max(len(hulls), 1))(*[h._as_parameter_ for h in hulls])
        g = np.empty(self.vertex_count, np.int32)
        check(lib.osc_mesh_groups_from_hulls(self, arr, len(hulls), F.iptr(g)))
        return g

    def edge_groups(self, vertex_groups):
        """[E, 2] the groups of each edge's corners (second -1 when they agree)."""
        vg = F.array(vertex_groups, np.int32, (self.vertex_count,), "vertex_groups")
        out = np.empty((self.edge_count, 2), np.int32)
        check(lib.osc_mesh_edge_groups(self, F.iptr(vg), F.iptr(out)))
        return out


def curve_order(points, curve="hilbert"):
    """The permutation [N] (new -> old) sorting points [N, 3] along a space-filling curve."""
    p = F.array(points, np.float64, (-1, 3), "points")
    order = np.empty(len(p), np.int32)
    check(lib.osc_curve_order(F.ptr(p), F.rows(p, "points", F.I32),
                              F.enum_value(CURVES, curve, "curve"),
                              F.iptr(order)))
    return order


class MeshBVH(_Model):
    """A BVH over a mesh's triangles (its own copy of the geometry)."""

    _destroy = lib.osc_mesh_bvh_destroy

    def __init__(self, mesh):
        if not isinstance(mesh, Mesh):
            raise ValueError("MeshBVH needs a Mesh")
        super().__init__(_create(lib.osc_mesh_bvh_create, mesh))

    def closest(self, points):
        """Closest surface points of points [3] or [N, 3]: a dict of point, distance, triangle,
        feature ("face", "edge", "vertex" as 0, 1, 2), feature_index, barycentric."""
        pts, single = F.points(points)
        n = len(pts)
        out = {"point": np.empty((n, 3)), "distance": np.empty(n),
               "triangle": np.empty(n, np.int32), "feature": np.empty(n, np.int32),
               "feature_index": np.empty(n, np.int32), "barycentric": np.empty((n, 3))}
        c = F.MeshClosest()
        for i in range(n):
            lib.osc_mesh_bvh_closest(self, F.Vec3(*pts[i]), C.byref(c))
            out["point"][i] = F.from_vec3(c.point)
            out["distance"][i] = c.distance
            out["triangle"][i] = c.triangle
            out["feature"][i] = c.feature
            out["feature_index"][i] = c.feature_index
            out["barycentric"][i] = c.barycentric[:]
        if single:
            out = {k: v[0] for k, v in out.items()}
        return out

    def winding_number(self, points, beta=2.0):
        pts, single = F.points(points)
        w = np.array([lib.osc_mesh_bvh_winding_number(self, F.Vec3(*p), float(beta)) for p in pts])
        return w[0] if single else w

    def signed_distance(self, points, closest_points=False, threads=0):
        """Signed distances at points [3] or [N, 3] (negative inside), optionally with the closest
        points (osc_mesh_bvh_signed_distance_batch, GIL released)."""
        pts, single = F.points(points)
        n = len(pts)
        d = np.empty(n)
        cp = np.empty((n, 3)) if closest_points else None
        check(lib.osc_mesh_bvh_signed_distance_batch(self, F.ptr(pts), n, F.ptr(d), F.ptr(cp),
                                                     F.integer(threads, "threads")))
        if single:
            return (d[0], cp[0]) if closest_points else d[0]
        return (d, cp) if closest_points else d

    @property
    def bounds(self):
        return _bounds(lib.osc_mesh_bvh_bounds, self)


# ------------------------------------------------------------------------------------------------
# isosurface.h, grid.h


def isosurface(sdf, lo=None, hi=None, **settings):
    """The iso-surface {phi = iso_value} of an SDF as a Mesh (marching cubes). Settings: padding
    (0: two cells), resolution (64), iso_value (0), threads (0); lo, hi [3]: the region (default:
    the SDF's bounds)."""
    sdf = as_sdf(sdf)
    s = F.settings(lib.osc_isosurface_settings_default(), settings, "isosurface")
    if (lo is None) != (hi is None):
        raise ValueError("isosurface: give both lo and hi, or neither")
    if lo is not None:
        s.lo = F.vec3(lo, "lo")
        s.hi = F.vec3(hi, "hi")
    return Mesh._wrap(_create(lib.osc_isosurface_extract, sdf, C.byref(s)))


def collision_mesh(sdf, **settings):
    """The collision mesh of a bounded SDF: marching cubes, simplified, optionally projected.
    Settings: resolution (96), target_triangles (2000; 0: none), max_error (0.01),
    project_iterations (0), threads (0)."""
    sdf = as_sdf(sdf)
    s = F.settings(lib.osc_collision_mesh_settings_default(), settings, "collision_mesh")
    return Mesh._wrap(_create(lib.osc_collision_mesh_create, sdf, C.byref(s)))


class Grid(_Model):
    """A spline SDF with its normal field and broad-phase voxels (osc_grid). Build with
    Grid.from_mesh, Grid.from_sdf, Grid.load or Grid.from_bytes."""

    _destroy = lib.osc_grid_destroy

    @staticmethod
    def _settings(kw):
        return F.settings(lib.osc_grid_settings_default(), kw, "grid")

    @classmethod
    def from_mesh(cls, mesh, **settings):
        """The spline SDF of a closed mesh (a Mesh or MeshBVH, or (vertices, triangles)): its
        sign comes from the winding number, which needs outward windings. ValueError
        (InvalidArgumentError), saying why, for a mesh whose sign would be wrong: one that
        Mesh.oriented() would change (inverted or partly flipped), one with a non-orientable
        patch, or one that encloses no volume. An open or non-manifold mesh is baked, its sign
        unreliable near the holes (Mesh.orientation["sign_reliable"] is 0). Settings: resolution
        (64), padding (-1: 10%), normal_epsilon (-1: 1e-3 cells), threads."""
        if isinstance(mesh, tuple):
            mesh = Mesh(*mesh)
        bvh = mesh.bvh() if isinstance(mesh, Mesh) else mesh
        if not isinstance(bvh, MeshBVH):
            raise ValueError("from_mesh needs a Mesh, a MeshBVH or (vertices, triangles)")
        s = cls._settings(settings)
        return cls(_create(lib.osc_grid_create_from_mesh, bvh, C.byref(s)))

    @classmethod
    def from_sdf(cls, sdf, **settings):
        """The spline approximation of a bounded SDF."""
        s = cls._settings(settings)
        return cls(_create(lib.osc_grid_create_from_sdf, as_sdf(sdf), C.byref(s)))

    @classmethod
    def load(cls, path):
        """Loads a grid saved by save() (ParseError for a damaged file)."""
        out = C.c_void_p()
        check(lib.osc_grid_load(os.fsencode(path), C.byref(out)))
        return cls(out.value)

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        out = C.c_void_p()
        check(lib.osc_grid_load_memory(data, len(data), C.byref(out)))
        return cls(out.value)

    def save(self, path):
        check(lib.osc_grid_save(self, os.fsencode(path)))

    def eval(self, points, gradient=False, normal=False, threads=0):
        """phi at points [3] or [N, 3]; with gradient / normal a tuple (values, gradients,
        normals) of what was asked (osc_grid_eval_batch)."""
        pts, single = F.points(points)
        n = len(pts)
        v = np.empty(n)
        g = np.empty((n, 3)) if gradient else None
        nn = np.empty((n, 3)) if normal else None
        check(lib.osc_grid_eval_batch(self, F.ptr(pts), n, F.ptr(v), F.ptr(g), F.ptr(nn),
                                      F.integer(threads, "threads")))
        out = [v[0] if single else v]
        if gradient:
            out.append(g[0] if single else g)
        if normal:
            out.append(nn[0] if single else nn)
        return out[0] if len(out) == 1 else tuple(out)

    __call__ = eval

    def eval_hessian(self, point):
        """(value, gradient, hessian [3, 3]) at one point."""
        g, h = F.Vec3(), F.Mat3()
        v = lib.osc_grid_eval(self, F.vec3(point, "point"), C.byref(g), C.byref(h))
        return v, F.from_vec3(g), np.array(h.m).reshape(3, 3)

    def normal(self, point):
        """(n, dn/dx [3, 3]) of the normal field at one point."""
        j = F.Mat3()
        n = lib.osc_grid_eval_normal(self, F.vec3(point, "point"), C.byref(j))
        return F.from_vec3(n), np.array(j.m).reshape(3, 3)

    def lower_bound(self, point):
        """(bound, centre_value, radius): the broad-phase lower bound of phi at one point."""
        cv, r = C.c_double(), C.c_double()
        b = lib.osc_grid_lower_bound(self, F.vec3(point, "point"), C.byref(cv), C.byref(r))
        return b, cv.value, r.value

    @property
    def bounds(self):
        return _bounds(lib.osc_grid_bounds, self)

    @property
    def cells(self):
        """(cells [3], cell_size)."""
        c = (C.c_int * 3)()
        size = lib.osc_grid_cells(self, c)
        return np.array(c[:]), size

    @property
    def lipschitz(self):
        return lib.osc_grid_lipschitz(self)

    def to_sdf(self):
        """An SDF leaf sharing this grid (for CSG, marching cubes, SDF pairs)."""
        return SDF(_create(lib.osc_grid_to_sdf, self))


def as_sdf(value):
    if isinstance(value, SDF):
        return value
    if isinstance(value, Grid):
        return value.to_sdf()
    raise ValueError("expected an SDF or a Grid, got %r" % (value,))
