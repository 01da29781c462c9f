"""Triangle meshes and their BVH (mesh.h)."""

import ctypes as C
import os

import numpy as np

from . import _ffi as F
from ._base import check
from ._ffi import lib
from ._model import _bounds, _create, _Model


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
