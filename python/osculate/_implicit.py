"""Implicit surfaces for rays (implicit.h) and their placement."""

import ctypes as C

import numpy as np

from . import _ffi as F
from ._ffi import lib
from ._grid import as_sdf
from ._model import _borrowing, _Callback, _create, _Model, _python_calls


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
