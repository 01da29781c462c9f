"""Rays against implicit surfaces with their Jacobians (ray.h): one ray, many in turn, or a batch
over threads."""

import ctypes as C
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _ffi as F
from ._base import OK, check, error
from ._ffi import lib
from ._implicit import Implicit, _transform
from ._model import _python_calls


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
