"""Marching cubes of an SDF (isosurface.h)."""

import ctypes as C

from . import _ffi as F
from ._ffi import lib
from ._grid import as_sdf
from ._mesh import Mesh
from ._model import _create


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
