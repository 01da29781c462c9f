"""The smooth operators (smooth.h), elementwise over NumPy arrays."""

import numpy as np

from . import _ffi as F
from ._ffi import lib


def _elementwise(op, x, p0, p1, temperature, derivatives):
    a = F.floats(x, "x")
    flat = a.reshape(-1)
    v = np.empty_like(flat)
    d1 = np.empty_like(flat) if derivatives else None
    d2 = np.empty_like(flat) if derivatives else None
    lib.oscpy_smooth_elementwise(op, F.ptr(flat), flat.size, float(p0), float(p1),
                                 float(temperature), F.ptr(v), F.ptr(d1), F.ptr(d2))
    v = v.reshape(a.shape)
    if not derivatives:
        return v if a.ndim else float(v)
    if a.ndim == 0:
        return float(v), float(d1[0]), float(d2[0])
    return v, d1.reshape(a.shape), d2.reshape(a.shape)


def sigmoid(x, temperature, derivatives=False):
    """sigma(x / tau), the smoothed Iverson bracket [x > 0]; with derivatives=True returns
    (value, d/dx, d2/dx2). temperature <= 0: the hard step."""
    return _elementwise(0, x, 0, 0, temperature, derivatives)


def softplus(x, temperature, derivatives=False):
    """tau log(1 + exp(x / tau)), a smooth relu (temperature <= 0: max(x, 0))."""
    return _elementwise(1, x, 0, 0, temperature, derivatives)


def softclip(x, lo, hi, temperature, derivatives=False):
    """lo + s+(x - lo) - s+(x - hi): a smooth clamp into (lo, hi); requires lo < hi."""
    if not lo < hi:
        raise ValueError("softclip: lo must be below hi, got lo=%r hi=%r" % (lo, hi))
    return _elementwise(2, x, lo, hi, temperature, derivatives)


def transition(d, d_max, bandwidth, derivatives=False):
    """The C2 transition f_t(d) of Beker et al. 2026 §IV-C.1: 1 below d_max - bandwidth, 0 above d_max."""
    return _elementwise(3, d, d_max, bandwidth, 0.0, derivatives)


def mollified_depth(phi, d_max, bandwidth, derivatives=False):
    """f_t(phi) phi + (1 - f_t(phi)) d_max: phi below d_max - bandwidth, saturating to d_max."""
    return _elementwise(4, phi, d_max, bandwidth, 0.0, derivatives)


def smooth_max(a, b, temperature, derivatives=False, minimum=False):
    """LSE(a, b) elementwise; with derivatives=True returns (value, gradient [..., 2],
    Hessian [..., 2, 2]). temperature <= 0: max."""
    a, b = np.broadcast_arrays(F.floats(a, "a"), F.floats(b, "b"))
    shape = a.shape
    fa = np.ascontiguousarray(a.reshape(-1))
    fb = np.ascontiguousarray(b.reshape(-1))
    v = np.empty_like(fa)
    g = np.empty((fa.size, 2)) if derivatives else None
    h = np.empty((fa.size, 2, 2)) if derivatives else None
    lib.oscpy_smooth_max(F.ptr(fa), F.ptr(fb), fa.size, float(temperature), int(bool(minimum)),
                         F.ptr(v), F.ptr(g), F.ptr(h))
    v = v.reshape(shape) if shape else float(v[0])
    if not derivatives:
        return v
    return v, g.reshape(shape + (2,)), h.reshape(shape + (2, 2))


def smooth_min(a, b, temperature, derivatives=False):
    """-LSE(-a, -b) elementwise, at most tau log 2 below min(a, b)."""
    return smooth_max(a, b, temperature, derivatives, minimum=True)


def _rows(x, name):
    a = F.floats(x, "x")
    if a.ndim == 0 or a.shape[-1] < 1:
        raise ValueError("%s: x must have at least one value along its last axis, got %s"
                         % (name, a.shape))
    return a


def logsumexp(x, temperature, derivatives=False):
    """tau log sum exp(x / tau) over the last axis; with derivatives=True returns (value,
    softmax weights, Hessian [..., n, n]). temperature <= 0: the maximum."""
    a = _rows(x, "logsumexp")
    n = F.integer(a.shape[-1], "logsumexp: the last axis")
    rows = a.size // n
    v = np.empty(rows)
    w = np.empty(a.shape) if derivatives else None
    h = np.empty(a.shape + (n,)) if derivatives else None
    lib.oscpy_logsumexp(F.ptr(a), rows, n, float(temperature), F.ptr(v), F.ptr(w), F.ptr(h))
    v = v.reshape(a.shape[:-1]) if a.ndim > 1 else float(v[0])
    return (v, w, h) if derivatives else v


def softmax(x, temperature, derivatives=False):
    """Softmax weights of x / tau over the last axis; with derivatives=True also the Jacobian
    [..., n, n]. temperature <= 0: one-hot on the first maximum."""
    a = _rows(x, "softmax")
    n = F.integer(a.shape[-1], "softmax: the last axis")
    w = np.empty(a.shape)
    j = np.empty(a.shape + (n,)) if derivatives else None
    lib.oscpy_softmax(F.ptr(a), a.size // n, n, float(temperature), F.ptr(w), F.ptr(j))
    return (w, j) if derivatives else w
