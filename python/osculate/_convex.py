"""The convex primitives of DCOL (convex.h)."""

import ctypes as C

import numpy as np

from . import _ffi as F
from ._base import INVALID_ARGUMENT, error
from ._ffi import lib
from ._model import _create, _Model


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
