"""Spline SDFs baked from a mesh or an SDF, and collision meshes of SDFs (grid.h)."""

import ctypes as C
import os

import numpy as np

from . import _ffi as F
from ._base import check
from ._ffi import lib
from ._mesh import Mesh, MeshBVH
from ._model import _bounds, _create, _Model
from ._sdf import SDF


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
