"""Analytic signed distance functions and their combinations (sdf.h)."""

import ctypes as C

import numpy as np

from . import _ffi as F
from ._base import check
from ._ffi import lib
from ._model import _bounds, _create, _Model


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
