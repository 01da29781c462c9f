// jet.h: second-order forward-mode differentiation of scalar fields R^3 -> R.
//
// A jet carries a value, its gradient and its Hessian with respect to a 3D point. Every operation
// applies the exact chain rule, so a formula written with jets returns the exact derivatives of
// the function it computes (docs/architecture.md §5). Every operation takes `order` (0: value,
// 1: + gradient, 2: + Hessian); the callers are force-inlined with a constant order, so the compiler
// removes the work that order does not need. Fields beyond `order` are left unset and never read.
//
// Hessians are stored packed and symmetric: h = (xx, xy, xz, yy, yz, zz).
//
// Singular points: where a derivative of an elementary function is infinite (sqrt, cbrt, |a|^p
// with p < 2 at a = 0) the jet returns zero for that derivative instead of inf * 0 = NaN. These are
// points where the true derivative does not exist; the value is always exact.

#ifndef OSC_JET_H
#define OSC_JET_H

#include "base_internal.h"
#include "osculate/math.h"
#include "osculate/smooth.h"

typedef struct jet {
    double v;
    double g[3];
    double h[6];
} jet;

// (i, j) index pairs of the packed Hessian
static const int jet_hi[6] = {0, 0, 0, 1, 1, 2};
static const int jet_hj[6] = {0, 1, 2, 1, 2, 2};

OSC_FORCE_INLINE jet jet_const(double c, int order) {
    jet r = {0};
    r.v = c;
    if (order >= 1) r.g[0] = r.g[1] = r.g[2] = 0.0;
    if (order >= 2)
        for (int k = 0; k < 6; ++k) r.h[k] = 0.0;
    return r;
}

// the coordinate `axis` of the evaluation point, with value `value`
OSC_FORCE_INLINE jet jet_var(double value, int axis, int order) {
    jet r = jet_const(value, order);
    if (order >= 1) r.g[axis] = 1.0;
    return r;
}

OSC_FORCE_INLINE jet jet_add(jet a, jet b, int order) {
    a.v += b.v;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) a.g[k] += b.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) a.h[k] += b.h[k];
    return a;
}

OSC_FORCE_INLINE jet jet_sub(jet a, jet b, int order) {
    a.v -= b.v;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) a.g[k] -= b.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) a.h[k] -= b.h[k];
    return a;
}

OSC_FORCE_INLINE jet jet_scale(jet a, double s, int order) {
    a.v *= s;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) a.g[k] *= s;
    if (order >= 2)
        for (int k = 0; k < 6; ++k) a.h[k] *= s;
    return a;
}

OSC_FORCE_INLINE jet jet_neg(jet a, int order) { return jet_scale(a, -1.0, order); }

OSC_FORCE_INLINE jet jet_add_scalar(jet a, double c) {
    a.v += c;
    return a;
}

// a + s b
OSC_FORCE_INLINE jet jet_add_scaled(jet a, jet b, double s, int order) {
    a.v += s * b.v;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) a.g[k] += s * b.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) a.h[k] += s * b.h[k];
    return a;
}

OSC_FORCE_INLINE jet jet_mul(jet a, jet b, int order) {
    jet r = {0};
    r.v = a.v * b.v;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) r.g[k] = a.v * b.g[k] + b.v * a.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) {
            int i = jet_hi[k], j = jet_hj[k];
            r.h[k] = a.v * b.h[k] + b.v * a.h[k] + a.g[i] * b.g[j] + a.g[j] * b.g[i];
        }
    return r;
}

// f(a) for a scalar function f with f(a.v) = f0, f'(a.v) = f1, f''(a.v) = f2
OSC_FORCE_INLINE jet jet_chain(jet a, double f0, double f1, double f2, int order) {
    jet r = {0};
    r.v = f0;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) r.g[k] = f1 * a.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) r.h[k] = f1 * a.h[k] + f2 * a.g[jet_hi[k]] * a.g[jet_hj[k]];
    return r;
}

// f(a, b) for a function of two scalars with partial derivatives fa, fb, faa, fab, fbb
OSC_FORCE_INLINE jet jet_chain2(jet a, jet b, double f0, double fa, double fb, double faa, double fab, double fbb,
                                int order) {
    jet r = {0};
    r.v = f0;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) r.g[k] = fa * a.g[k] + fb * b.g[k];
    if (order >= 2)
        for (int k = 0; k < 6; ++k) {
            int i = jet_hi[k], j = jet_hj[k];
            r.h[k] = fa * a.h[k] + fb * b.h[k] + faa * a.g[i] * a.g[j] + fbb * b.g[i] * b.g[j] +
                     fab * (a.g[i] * b.g[j] + b.g[i] * a.g[j]);
        }
    return r;
}

OSC_FORCE_INLINE jet jet_recip(jet a, int order) {
    double r = 1.0 / a.v;
    return jet_chain(a, r, -r * r, 2.0 * r * r * r, order);
}

OSC_FORCE_INLINE jet jet_div(jet a, jet b, int order) { return jet_mul(a, jet_recip(b, order), order); }

OSC_FORCE_INLINE jet jet_sqr(jet a, int order) { return jet_chain(a, a.v * a.v, 2.0 * a.v, 2.0, order); }

// sqrt(a) for a >= 0; zero derivatives at a = 0 (singular)
OSC_FORCE_INLINE jet jet_sqrt(jet a, int order) {
    double s = sqrt(a.v);
    if (!(s > 0.0)) return jet_chain(a, s, 0.0, 0.0, order);
    return jet_chain(a, s, 0.5 / s, -0.25 / (s * a.v), order);
}

// cbrt(a) for any real a; zero derivatives at a = 0 (singular)
OSC_FORCE_INLINE jet jet_cbrt(jet a, int order) {
    double c = cbrt(a.v);
    if (c == 0.0) return jet_chain(a, c, 0.0, 0.0, order);
    double c2 = c * c;
    return jet_chain(a, c, 1.0 / (3.0 * c2), -2.0 / (9.0 * c2 * c2 * c), order);
}

OSC_FORCE_INLINE jet jet_exp(jet a, int order) {
    double e = exp(a.v);
    return jet_chain(a, e, e, e, order);
}

OSC_FORCE_INLINE jet jet_log(jet a, int order) {
    double r = 1.0 / a.v;
    return jet_chain(a, log(a.v), r, -r * r, order);
}

OSC_FORCE_INLINE jet jet_cos(jet a, int order) {
    double c = cos(a.v), s = sin(a.v);
    return jet_chain(a, c, -s, -c, order);
}

OSC_FORCE_INLINE jet jet_sin(jet a, int order) {
    double c = cos(a.v), s = sin(a.v);
    return jet_chain(a, s, c, -s, order);
}

// |a| (one-sided derivative +1 at a = 0)
OSC_FORCE_INLINE jet jet_abs(jet a, int order) { return a.v < 0.0 ? jet_neg(a, order) : a; }

// a^p for a >= 0 and a constant exponent p > 0. At a = 0 the value is 0 and derivatives that
// would be infinite are returned as 0 (singular point of |x|^p with p < 2).
OSC_FORCE_INLINE jet jet_pow(jet a, double p, int order) {
    if (!(a.v > 0.0)) {
        double f1 = p == 1.0 ? 1.0 : 0.0;
        double f2 = p == 2.0 ? 2.0 : 0.0;
        return jet_chain(a, 0.0, f1, f2, order);
    }
    double f = pow(a.v, p);
    double r = 1.0 / a.v;
    return jet_chain(a, f, p * f * r, p * (p - 1.0) * f * r * r, order);
}

// a^p for a >= 0 with a varying exponent p (both jets): exp(p log a). At a = 0 the value and
// derivatives are 0, the limit for p > 2 (singular otherwise).
OSC_FORCE_INLINE jet jet_pow_var(jet a, jet p, int order) {
    if (!(a.v > 0.0)) return jet_const(0.0, order);
    double f = pow(a.v, p.v);
    double la = log(a.v);
    double r = 1.0 / a.v;
    // partials of f(a, p) = a^p
    double fa = p.v * f * r;
    double fp = f * la;
    double faa = p.v * (p.v - 1.0) * f * r * r;
    double fap = f * r * (1.0 + p.v * la);
    double fpp = f * la * la;
    return jet_chain2(a, p, f, fa, fp, faa, fap, fpp, order);
}

// atan2(y, x)
OSC_FORCE_INLINE jet jet_atan2(jet y, jet x, int order) {
    double r2 = x.v * x.v + y.v * y.v;
    double f = atan2(y.v, x.v);
    if (!(r2 > 0.0)) return jet_chain2(y, x, f, 0.0, 0.0, 0.0, 0.0, 0.0, order);
    double i2 = 1.0 / (r2 * r2);
    // df/dy = x / r2, df/dx = -y / r2
    return jet_chain2(y, x, f, x.v / r2, -y.v / r2, -2.0 * x.v * y.v * i2, (y.v * y.v - x.v * x.v) * i2,
                      2.0 * x.v * y.v * i2, order);
}

OSC_FORCE_INLINE jet jet_sigmoid(jet a, double temperature, int order) {
    double d1, d2;
    double f = osc_sigmoid(a.v, temperature, &d1, &d2);
    return jet_chain(a, f, d1, d2, order);
}

OSC_FORCE_INLINE jet jet_softplus(jet a, double temperature, int order) {
    double d1, d2;
    double f = osc_softplus(a.v, temperature, &d1, &d2);
    return jet_chain(a, f, d1, d2, order);
}

OSC_FORCE_INLINE jet jet_softclip(jet a, double lo, double hi, double temperature, int order) {
    double d1, d2;
    double f = osc_softclip(a.v, lo, hi, temperature, &d1, &d2);
    return jet_chain(a, f, d1, d2, order);
}

// ---------------------------------------------------------------------------------------------
// streaming log-sum-exp: tau log sum_i exp(y_i / tau) over jets fed one at a time, without
// storing them. State: running maximum m, S = sum e_i, G = sum e_i grad y_i,
// H = sum e_i (hess y_i + grad y_i grad y_i^T / tau), with e_i = exp((y_i - m) / tau).
// Result: value m + tau log S, gradient G / S, Hessian H / S - g g^T / tau.
// tau <= 0 keeps the maximum's jet (the hard operator).

typedef struct jet_lse {
    double temperature;
    double m, sum;
    jet acc; // acc.g = G, acc.h = H; acc.v holds the best value in hard mode
    int count;
} jet_lse;

OSC_FORCE_INLINE void jet_lse_begin(jet_lse* s, double temperature) {
    s->temperature = temperature > 0.0 ? temperature : 0.0;
    s->count = 0;
    s->m = 0.0;
    s->sum = 0.0;
}

OSC_FORCE_INLINE void jet_lse_term(jet y, double tau, int order, jet* out) {
    // y with hess + g g^T / tau, scaled later
    *out = y;
    if (order >= 2)
        for (int k = 0; k < 6; ++k) out->h[k] += y.g[jet_hi[k]] * y.g[jet_hj[k]] / tau;
}

OSC_FORCE_INLINE void jet_lse_add(jet_lse* s, jet y, int order) {
    double tau = s->temperature;
    if (s->count++ == 0) {
        s->m = y.v;
        s->sum = 1.0;
        if (tau > 0.0)
            jet_lse_term(y, tau, order, &s->acc);
        else
            s->acc = y;
        return;
    }
    if (!(tau > 0.0)) {
        if (y.v > s->acc.v || isnan(y.v)) s->acc = y;
        return;
    }
    jet term;
    jet_lse_term(y, tau, order, &term);
    if (y.v > s->m) {
        double scale = exp((s->m - y.v) / tau);
        s->sum = s->sum * scale + 1.0;
        s->acc = jet_add(jet_scale(s->acc, scale, order), term, order);
        s->m = y.v;
    } else {
        double e = exp((y.v - s->m) / tau);
        if (isnan(y.v)) s->m = y.v;
        s->sum += e;
        s->acc = jet_add_scaled(s->acc, term, e, order);
    }
}

OSC_FORCE_INLINE jet jet_lse_end(const jet_lse* s, int order) {
    double tau = s->temperature;
    if (!(tau > 0.0)) return s->acc;
    jet r = {0};
    r.v = s->m + tau * log(s->sum);
    double inv = 1.0 / s->sum;
    if (order >= 1)
        for (int k = 0; k < 3; ++k) r.g[k] = s->acc.g[k] * inv;
    if (order >= 2)
        for (int k = 0; k < 6; ++k) r.h[k] = s->acc.h[k] * inv - r.g[jet_hi[k]] * r.g[jet_hj[k]] / tau;
    return r;
}

// ---------------------------------------------------------------------------------------------
// conversions

// the symmetric 3x3 matrix of a packed Hessian
static inline osc_mat3 jet_hessian_mat3(const double h[6]) {
    osc_mat3 m = {{{h[0], h[1], h[2]}, {h[1], h[3], h[4]}, {h[2], h[4], h[5]}}};
    return m;
}

static inline void jet_pack_mat3(osc_mat3 m, double h[6]) {
    h[0] = m.m[0][0];
    h[1] = 0.5 * (m.m[0][1] + m.m[1][0]);
    h[2] = 0.5 * (m.m[0][2] + m.m[2][0]);
    h[3] = m.m[1][1];
    h[4] = 0.5 * (m.m[1][2] + m.m[2][1]);
    h[5] = m.m[2][2];
}

#endif // OSC_JET_H
