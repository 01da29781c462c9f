// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// smooth.h: smooth approximations of non-smooth operators (Beker et al. 2026 §II) and the C2 transition
// function of Beker et al. 2026 §IV-C.1, each with its first and second derivatives.
//
// SUMMARY
// Every operator takes an explicit temperature tau (in the units of its argument). tau > 0 gives
// the smooth operator; tau <= 0 (or NaN) selects the hard operator it approximates, so each
// query can be compared with its non-smooth counterpart. Derivative outputs are nullable.
//
//   osc_sigmoid       [x > 0]                       sigma(x / tau)
//   osc_softplus      relu(x) = max(x, 0)           tau log(1 + exp(x / tau))
//   osc_softclip      clip(x, lo, hi)               lo + s+(x - lo) - s+(x - hi)
//   osc_logsumexp     max_i x_i                     tau log sum_i exp(x_i / tau)
//   osc_softmax       one-hot argmax                exp(x_i / tau) / sum_j exp(x_j / tau)
//   osc_smooth_max    max(a, b)                     logsumexp of two
//   osc_smooth_min    min(a, b)                     -logsumexp(-a, -b)
//   osc_transition    f_t: 1 below d_max - eps, 0 above d_max, C2 and non-increasing in between
//   osc_mollified_depth  d_c = f_t(phi) phi + (1 - f_t(phi)) d_max   (Beker et al. 2026 §IV-C.1)
//
// NUMERIC ROBUSTNESS
// - sigmoid, softplus and softclip never overflow: they use exp(-|x| / tau) only.
// - logsumexp subtracts the maximum first, so any tau > 0 works, down to subnormal values;
//   its bias is at most tau log(n) above the maximum (tau log 2 for two equal inputs).
// - softclip switches between two algebraically identical forms at the interval midpoint, so it
//   keeps full precision for |x| >> |hi - lo| without any jump.
// - NaN inputs give NaN values.

#ifndef OSCULATE_SMOOTH_H
#define OSCULATE_SMOOTH_H

#include "osculate/base.h"

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Returns osc_sigmoid(x, temperature, d1, d2) for temperature > 0, given its exponential
/// e = exp(-|x| / temperature) (the same bits as exp(-|x / temperature|)): the softplus has the same
/// one, so its value and slope share it.
static inline double osc_sigmoid_from_exp(double x, double temperature, double e, double* d1, double* d2) {
    double u = x / temperature;
    double s, c; // s = sigma(u), c = 1 - sigma(u), both without cancellation
    if (u >= 0.0) {
        s = 1.0 / (1.0 + e);
        c = e / (1.0 + e);
    } else {
        s = e / (1.0 + e);
        c = 1.0 / (1.0 + e);
    }
    if (d1) *d1 = s * c / temperature;
    if (d2) *d2 = s * c * (c - s) / (temperature * temperature);
    return isnan(x) ? x : s;
}

/// Returns the sigmoid Iverson bracket [x > 0] ~ sigma(x / tau) = 1 / (1 + exp(-x / tau)),
/// with d/dx in `d1` and d2/dx2 in `d2` (both nullable). tau <= 0: the hard step (x > 0 ? 1 : 0)
/// with zero derivatives. For [x > a] pass x - a.
static inline double osc_sigmoid(double x, double temperature, double* d1, double* d2) {
    if (!(temperature > 0.0)) {
        if (d1) *d1 = 0.0;
        if (d2) *d2 = 0.0;
        return isnan(x) ? x : (x > 0.0 ? 1.0 : 0.0);
    }
    return osc_sigmoid_from_exp(x, temperature, exp(-fabs(x / temperature)), d1, d2);
}

/// Returns osc_softplus(x, temperature, d1, d2) for temperature > 0, given its exponential
/// e = exp(-|x| / temperature) (the sigmoid's, osc_sigmoid_from_exp).
static inline double osc_softplus_from_exp(double x, double temperature, double e, double* d1, double* d2) {
    double value = (x > 0.0 ? x : 0.0) + temperature * log1p(e);
    if (d1 || d2) { // s+' = sigmoid, s+'' = sigmoid', from the same exp
        double s = osc_sigmoid_from_exp(x, temperature, e, d2, NULL);
        if (d1) *d1 = s;
    }
    return value;
}

/// Returns the softplus s+(x) = tau log(1 + exp(x / tau)), a smooth relu, with d/dx = sigma(x/tau)
/// in `d1` and d2/dx2 in `d2` (nullable). tau <= 0: max(x, 0).
static inline double osc_softplus(double x, double temperature, double* d1, double* d2) {
    if (!(temperature > 0.0)) {
        if (d1) *d1 = x > 0.0 ? 1.0 : 0.0;
        if (d2) *d2 = 0.0;
        return isnan(x) ? x : (x > 0.0 ? x : 0.0);
    }
    return osc_softplus_from_exp(x, temperature, exp(-fabs(x) / temperature), d1, d2);
}

/// Returns osc_softclip(x, lo, hi, temperature, d1, d2) (below) for temperature > 0, given the
/// exponentials of its two softplus terms, e_lo = exp(-|x - lo| / temperature) and
/// e_hi = exp(-|x - hi| / temperature) (the sigmoids' of x - lo and x - hi).
static inline double osc_softclip_from_exp(double x, double lo, double hi, double temperature, double e_lo, double e_hi,
                                           double* d1, double* d2) {
    double g1 = 0.0, g2 = 0.0, h1 = 0.0, h2 = 0.0;
    double value;
    double *g1p = d1 ? &g1 : NULL, *g2p = d1 ? &g2 : NULL, *h1p = d2 ? &h1 : NULL, *h2p = d2 ? &h2 : NULL;
    if (x <= 0.5 * (lo + hi)) {
        value = lo + osc_softplus_from_exp(x - lo, temperature, e_lo, g1p, h1p) -
                osc_softplus_from_exp(x - hi, temperature, e_hi, g2p, h2p);
    } else {
        // same function: s+(y) = y + s+(-y) turns it into hi + s+(lo - x) - s+(hi - x)
        value = hi + osc_softplus_from_exp(lo - x, temperature, e_lo, g1p, h1p) -
                osc_softplus_from_exp(hi - x, temperature, e_hi, g2p, h2p);
        // d/dx of this form is sigma(hi - x) - sigma(lo - x): swap rather than use 1 - sigma,
        // which would cancel to 0 for x - hi >> tau
        double g = g1;
        g1 = g2;
        g2 = g;
    }
    if (d1) *d1 = g1 - g2;
    if (d2) *d2 = h1 - h2;
    return value;
}

/// Returns softclip(x, lo, hi) = lo + s+(x - lo) - s+(x - hi), which lies strictly inside (lo, hi)
/// and tends to lo and hi at the ends, with d/dx in `d1` and d2/dx2 in `d2` (nullable).
/// Requires lo < hi. tau <= 0: the hard clamp.
static inline double osc_softclip(double x, double lo, double hi, double temperature, double* d1, double* d2) {
    if (!(temperature > 0.0)) {
        if (d1) *d1 = (x > lo && x < hi) ? 1.0 : 0.0;
        if (d2) *d2 = 0.0;
        if (isnan(x)) return x;
        return x < lo ? lo : (x > hi ? hi : x);
    }
    return osc_softclip_from_exp(x, lo, hi, temperature, exp(-fabs(x - lo) / temperature),
                                 exp(-fabs(x - hi) / temperature), d1, d2);
}

/// Returns LSE(x) = tau log sum_i exp(x_i / tau) over `count` values, a smooth maximum.
/// `weights` (nullable, [count]) receives the gradient, the softmax weights; `hessian` (nullable,
/// [count][count] row-major) receives (diag(w) - w w^T) / tau. tau <= 0: the maximum, weights
/// one-hot on the first maximum, zero Hessian. count must be >= 1.
static inline double osc_logsumexp(const double* x, int count, double temperature, double* weights, double* hessian) {
    int arg = 0;
    for (int i = 1; i < count; ++i)
        if (x[i] > x[arg]) arg = i;
    double m = x[arg];
    for (int i = 0; i < count; ++i)
        if (isnan(x[i])) m = x[i];
    if (hessian)
        for (int i = 0; i < count * count; ++i) hessian[i] = 0.0;
    bool hard = !(temperature > 0.0) || isinf(m) || isnan(m);
    if (hard) {
        if (weights) // NaN in, NaN out: no one-hot answer for a NaN input
            for (int i = 0; i < count; ++i) weights[i] = isnan(m) ? m : ((i == arg) ? 1.0 : 0.0);
        return m;
    }
    double sum = 0.0;
    for (int i = 0; i < count; ++i) sum += exp((x[i] - m) / temperature);
    if (weights || hessian) {
        for (int i = 0; i < count; ++i) {
            double w = exp((x[i] - m) / temperature) / sum;
            if (weights) weights[i] = w;
            if (hessian) hessian[i * count + i] = w / temperature;
        }
        if (hessian) {
            for (int i = 0; i < count; ++i) {
                double wi = exp((x[i] - m) / temperature) / sum;
                for (int j = 0; j < count; ++j) {
                    double wj = exp((x[j] - m) / temperature) / sum;
                    hessian[i * count + j] -= wi * wj / temperature;
                }
            }
        }
    }
    return m + temperature * log(sum);
}

/// Writes the softmax weights w_i = exp(x_i / tau) / sum_j exp(x_j / tau) to `weights` [count];
/// `jacobian` (nullable, [count][count]) receives dw_i/dx_j = w_i (delta_ij - w_j) / tau and
/// `second` (nullable, [count][count][count]) receives d2 w_i / dx_j dx_k =
/// w_i [(delta_ij - w_j)(delta_ik - w_k) - w_j (delta_jk - w_k)] / tau^2.
/// tau <= 0: one-hot on the first maximum, zero derivatives.
static inline void osc_softmax(const double* x, int count, double temperature, double* weights, double* jacobian,
                               double* second) {
    osc_logsumexp(x, count, temperature, weights, NULL);
    bool smooth = temperature > 0.0;
    if (jacobian) {
        for (int i = 0; i < count; ++i)
            for (int j = 0; j < count; ++j)
                jacobian[i * count + j] = smooth ? weights[i] * ((i == j ? 1.0 : 0.0) - weights[j]) / temperature : 0.0;
    }
    if (second) {
        double t2 = smooth ? temperature * temperature : 1.0;
        for (int i = 0; i < count; ++i)
            for (int j = 0; j < count; ++j)
                for (int k = 0; k < count; ++k) {
                    double dij = (i == j ? 1.0 : 0.0) - weights[j];
                    double dik = (i == k ? 1.0 : 0.0) - weights[k];
                    double djk = (j == k ? 1.0 : 0.0) - weights[k];
                    double v = weights[i] * (dij * dik - weights[j] * djk) / t2;
                    second[(i * count + j) * count + k] = smooth ? v : 0.0;
                }
    }
}

/// Returns the smooth maximum LSE(a, b) = max(a, b) + tau log(1 + exp(-|a - b| / tau)), with the
/// gradient (d/da, d/db) in `d1` and the 2 x 2 Hessian in `d2` (both nullable). tau <= 0: max.
static inline double osc_smooth_max(double a, double b, double temperature, double d1[2], double d2[2][2]) {
    double wa, wb, hb;
    // LSE(a, b) = a + s+(b - a) = b + s+(a - b): start from the larger, so that the hard limit is
    // exact and no precision is lost when |a - b| >> |max(a, b)|; the softplus slope is the weight
    // of the smaller argument, without cancellation when it is tiny
    double value;
    if (a >= b) {
        value = a + osc_softplus(b - a, temperature, &wb, &hb);
        wa = 1.0 - wb;
    } else {
        value = b + osc_softplus(a - b, temperature, &wa, &hb);
        wb = 1.0 - wa;
    }
    if (d1) {
        d1[0] = wa;
        d1[1] = wb;
    }
    if (d2) {
        d2[0][0] = hb;
        d2[0][1] = -hb;
        d2[1][0] = -hb;
        d2[1][1] = hb;
    }
    return value;
}

/// Returns the smooth minimum -LSE(-a, -b), at most tau log 2 below min(a, b), with the gradient in
/// `d1` and the 2 x 2 Hessian in `d2` (both nullable). tau <= 0: min.
static inline double osc_smooth_min(double a, double b, double temperature, double d1[2], double d2[2][2]) {
    double value = -osc_smooth_max(-a, -b, temperature, d1, d2);
    if (d2) {
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) d2[i][j] = -d2[i][j];
    }
    return value;
}

/// Returns the C2 transition function f_t(d) of Beker et al. 2026 §IV-C.1: 1 for d <= d_max - bandwidth,
/// 0 for d >= d_max, and 1 - S(s) in between with s = (d - d_max + bandwidth) / bandwidth and
/// S(s) = 6 s^5 - 15 s^4 + 10 s^3 (zero first and second derivatives at both ends), so f_t is
/// non-increasing and twice continuously differentiable. d/dd in `d1`, d2/dd2 in `d2` (nullable).
/// bandwidth <= 0: the hard step (d <= d_max ? 1 : 0).
static inline double osc_transition(double d, double d_max, double bandwidth, double* d1, double* d2) {
    if (d1) *d1 = 0.0;
    if (d2) *d2 = 0.0;
    if (isnan(d)) return d;
    if (!(bandwidth > 0.0)) return d <= d_max ? 1.0 : 0.0;
    double s = (d - (d_max - bandwidth)) / bandwidth;
    double t = (d_max - d) / bandwidth; // 1 - s, computed directly: exactly 0 at d = d_max
    if (s <= 0.0) return 1.0;
    if (t <= 0.0) return 0.0;
    // 1 - S(s) = S(t): evaluate from the nearer end, which keeps full precision and [0, 1]
    double value =
        s <= 0.5 ? 1.0 - s * s * s * (10.0 + s * (-15.0 + 6.0 * s)) : t * t * t * (10.0 + t * (-15.0 + 6.0 * t));
    if (d1) *d1 = -30.0 * s * s * t * t / bandwidth;
    if (d2) *d2 = -60.0 * s * t * (t - s) / (bandwidth * bandwidth);
    return value;
}

/// Returns the mollified depth d_c = f_t(phi) phi + (1 - f_t(phi)) d_max of Beker et al. 2026 §IV-C.1,
/// which equals phi below d_max - bandwidth and saturates to d_max above d_max, with d/dphi
/// = f_t + f_t' (phi - d_max) in `d1` and d2/dphi2 = 2 f_t' + f_t'' (phi - d_max) in `d2`.
static inline double osc_mollified_depth(double phi, double d_max, double bandwidth, double* d1, double* d2) {
    double f1, f2;
    double f = osc_transition(phi, d_max, bandwidth, &f1, &f2);
    // outside the band f_t' = f_t'' = 0: skip the (phi - d_max) terms, 0 * inf for infinite phi
    double excess = (f1 != 0.0 || f2 != 0.0) ? phi - d_max : 0.0;
    if (d1) *d1 = f + f1 * excess;
    if (d2) *d2 = 2.0 * f1 + f2 * excess;
    return f == 0.0 ? d_max : f * phi + (1.0 - f) * d_max;
}

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_SMOOTH_H
