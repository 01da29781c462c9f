// test_smooth.c: the smooth operators of smooth.h (Beker et al. 2026 §II) and the C2 transition function
// and mollified depth of Beker et al. 2026 §IV-C.1, against central finite differences, closed forms
// computed here in a different way, the documented bounds to the hard operators, and bad input.
//
// Finite differences. Arguments are drawn in units of the temperature (or bandwidth) tau, and the
// step is h = 1e-4 tau: the truncation error is ~(h / tau)^2 = 1e-8 of the derivative's scale
// and the rounding error ~1e-16 |f| / h <= 1e-8 for |f| <= 10, tau >= 1e-3. Errors are taken
// relative to max(|finite difference|, peak), where peak is the largest value the derivative
// takes (e.g. 1 / (4 tau) for the sigmoid's slope): relative where the derivative is large, and
// a 1e-6 fraction of its peak in the exponentially small tails, whose relative accuracy is checked
// separately against closed forms. Any wrong factor, sign or missing term is an O(1) error.

#include "osculate/smooth.h"

#include "test_common.h"

#include <stdbool.h>

static test_rng rng = {77110};

static const double log2_ = 0.69314718055994530942;

// log-uniform in [lo, hi]
static double log_uniform(double lo, double hi) { return exp(test_uniform(&rng, log(lo), log(hi))); }

// a temperature in [1e-3, 10] and an argument in units of it (or in absolute units, 1 in 4)
static void draw_tau_and_x(double* tau, double* x) {
    *tau = log_uniform(1e-3, 10.0);
    *x = (test_rng_next(&rng) & 3) ? *tau * test_uniform(&rng, -40.0, 40.0) : test_uniform(&rng, -10.0, 10.0);
}

// ---------------------------------------------------------------------------------------------
// scalar operators as f(params, x): a single shape for the finite-difference harness

typedef double (*scalar_fn)(const double* params, double x, double* d1, double* d2);

static double sigmoid_fn(const double* p, double x, double* d1, double* d2) { return osc_sigmoid(x, p[0], d1, d2); }
static double softplus_fn(const double* p, double x, double* d1, double* d2) { return osc_softplus(x, p[0], d1, d2); }
static double softclip_fn(const double* p, double x, double* d1, double* d2) {
    return osc_softclip(x, p[1], p[2], p[0], d1, d2);
}
static double transition_fn(const double* p, double x, double* d1, double* d2) {
    return osc_transition(x, p[1], p[0], d1, d2);
}
static double mollified_fn(const double* p, double x, double* d1, double* d2) {
    return osc_mollified_depth(x, p[1], p[0], d1, d2);
}

typedef struct fd_worst {
    double d1, d2;
    int checked_d2;
} fd_worst;

// d1 against the central difference of f, d2 against that of d1 (when check_d2), step h; errors
// relative to max(|fd|, peak1) and max(|fd|, peak2)
static void fd_check(scalar_fn f, const double* params, double x, double h, double peak1, double peak2, bool check_d2,
                     fd_worst* worst) {
    double d1, d2, d1p, d1m;
    f(params, x, &d1, &d2);
    double fp = f(params, x + h, &d1p, NULL);
    double fm = f(params, x - h, &d1m, NULL);
    double fd1 = (fp - fm) / (2.0 * h);
    worst->d1 = fmax(worst->d1, fabs(d1 - fd1) / fmax(fabs(fd1), peak1));
    if (check_d2) {
        double fd2 = (d1p - d1m) / (2.0 * h);
        worst->d2 = fmax(worst->d2, fabs(d2 - fd2) / fmax(fabs(fd2), peak2));
        ++worst->checked_d2;
    }
}

// oracle: finite differences (see top) of sigmoid, softplus and softclip over 4000 samples each
static void test_scalar_derivatives(void) {
    fd_worst sig = {0, 0, 0}, sp = {0, 0, 0}, sc = {0, 0, 0};
    for (int i = 0; i < 4000; ++i) {
        double tau, x;
        draw_tau_and_x(&tau, &x);
        double p[3] = {tau, 0.0, 0.0};
        fd_check(sigmoid_fn, p, x, 1e-4 * tau, 0.25 / tau, 0.0962 / (tau * tau), true, &sig);
        fd_check(softplus_fn, p, x, 1e-4 * tau, 1.0, 0.25 / tau, true, &sp);
        // softclip: an interval of width 0.1..3 and x within 40 tau of it
        p[1] = test_uniform(&rng, -2.0, 1.0);
        p[2] = p[1] + test_uniform(&rng, 0.1, 3.0);
        double mid = 0.5 * (p[1] + p[2]);
        x = mid + test_uniform(&rng, -1.0, 1.0) * (0.5 * (p[2] - p[1]) + 40.0 * tau);
        fd_check(softclip_fn, p, x, 1e-4 * tau, 1.0, 0.25 / tau, true, &sc);
    }
    CHECK_MSG(sig.d1 < 1e-6 && sig.d2 < 1e-6, "sigmoid: d1 %g, d2 %g", sig.d1, sig.d2);
    CHECK_MSG(sp.d1 < 1e-6 && sp.d2 < 1e-6, "softplus: d1 %g, d2 %g", sp.d1, sp.d2);
    CHECK_MSG(sc.d1 < 1e-6 && sc.d2 < 1e-6, "softclip: d1 %g, d2 %g", sc.d1, sc.d2);
}

// oracle: finite differences of the transition function and the mollified depth, one sample in
// four within 3 h of a junction. The second derivative is not checked where the stencil
// [d - h, d + h] straddles a junction (d_max - bw or d_max): f_t is only C2 there, f_t''' jumps
// by 60 / bw^3, so the difference quotient of f_t' has an O(h) error (~1e-3 relative) instead of
// O(h^2). First derivatives are checked everywhere (their stencil error stays O(h^2)).
static void test_transition_derivatives(void) {
    fd_worst tr = {0, 0, 0}, mo = {0, 0, 0};
    for (int i = 0; i < 4000; ++i) {
        double bw = log_uniform(1e-3, 10.0), d_max = test_uniform(&rng, -1.0, 1.0);
        double s = test_uniform(&rng, -0.3, 1.3);
        if (i % 4 == 0) s = (i % 8 == 0 ? 0.0 : 1.0) + test_uniform(&rng, -3e-4, 3e-4);
        double d = (d_max - bw) + s * bw, h = 1e-4 * bw;
        double lo = d_max - bw;
        bool straddles = (d - h < lo && d + h > lo) || (d - h < d_max && d + h > d_max);
        double p[2] = {bw, d_max};
        // peaks: |f_t'| = 30 s^2 t^2 / bw <= 1.875 / bw, |f_t''| = 60 s t |t - s| / bw^2 <=
        // 5.77 / bw^2, d_c' <= 1, |d_c''| = 60 s t^2 |t - 2 s| / bw <= 4.62 / bw (t = 1 - s)
        fd_check(transition_fn, p, d, h, 1.875 / bw, 5.77 / (bw * bw), !straddles, &tr);
        fd_check(mollified_fn, p, d, h, 1.0, 4.62 / bw, !straddles, &mo);
    }
    CHECK_MSG(tr.d1 < 1e-6 && tr.d2 < 1e-6, "transition: d1 %g, d2 %g", tr.d1, tr.d2);
    CHECK_MSG(mo.d1 < 1e-6 && mo.d2 < 1e-6, "mollified depth: d1 %g, d2 %g", mo.d1, mo.d2);
    CHECK_MSG(tr.checked_d2 > 3000 && tr.checked_d2 < 3900, "%d second derivatives checked", tr.checked_d2);
}

// oracle: finite differences of the value (gradient) and of the gradient (full 2 x 2 Hessian);
// value and gradient equal to the two-entry logsumexp and its weights, the small weight to full
// relative precision
static void test_smooth_max_min_derivatives(void) {
    double worst_g = 0.0, worst_h = 0.0, worst_lse = 0.0, worst_w = 0.0;
    for (int i = 0; i < 4000; ++i) {
        double tau, a;
        draw_tau_and_x(&tau, &a);
        double b = a + tau * test_uniform(&rng, -40.0, 40.0), h = 1e-4 * tau;
        for (int op = 0; op < 2; ++op) {
            double (*f)(double, double, double, double*, double(*)[2]) = op ? osc_smooth_min : osc_smooth_max;
            double g[2], hess[2][2], gp[2], gm[2];
            double v = f(a, b, tau, g, hess);
            for (int k = 0; k < 2; ++k) {
                double ap = a + (k == 0 ? h : 0.0), bp = b + (k == 1 ? h : 0.0);
                double am = a - (k == 0 ? h : 0.0), bm = b - (k == 1 ? h : 0.0);
                double fd = (f(ap, bp, tau, gp, NULL) - f(am, bm, tau, gm, NULL)) / (2.0 * h);
                worst_g = fmax(worst_g, fabs(g[k] - fd) / fmax(fabs(fd), 1.0));
                for (int r = 0; r < 2; ++r) {
                    double fdh = (gp[r] - gm[r]) / (2.0 * h); // d g_r / d (a, b)_k
                    worst_h = fmax(worst_h, fabs(hess[r][k] - fdh) / fmax(fabs(fdh), 0.25 / tau));
                }
            }
            // the value is the two-entry logsumexp (of -a, -b for the minimum)
            double pair[2] = {op ? -a : a, op ? -b : b}, w[2];
            double lse = osc_logsumexp(pair, 2, tau, w, NULL);
            worst_lse = fmax(worst_lse, fabs((op ? -lse : lse) - v) / (fabs(v) + tau));
            for (int k = 0; k < 2; ++k) worst_w = fmax(worst_w, fabs(g[k] - w[k]) / fmax(w[k], 1e-300));
        }
    }
    CHECK_MSG(worst_g < 1e-6, "smooth max/min gradient vs finite differences: %g", worst_g);
    CHECK_MSG(worst_h < 1e-6, "smooth max/min Hessian vs finite differences: %g", worst_h);
    CHECK_MSG(worst_lse < 1e-15, "smooth max/min vs logsumexp: %g", worst_lse);
    CHECK_MSG(worst_w < 1e-14, "smooth max/min gradient vs logsumexp weights (relative): %g", worst_w);
}

// ---------------------------------------------------------------------------------------------
// closed forms and precision in the tails

// oracle: sigma' = 1 / (4 tau cosh^2(u/2)), sigma'' = -tanh(u/2) sigma' / tau (no cancellation
// anywhere), sigma(u) + sigma(-u) = 1, and softplus' = sigma, s+(x) - s+(-x) = x, s+(0) = tau log 2,
// and in the left tail (u <= -20) s+ = tau e^u (1 - e^u / 2) to a relative 1e-17
static void test_sigmoid_softplus_closed_forms(void) {
    double worst_d1 = 0.0, worst_d2 = 0.0, worst_sym = 0.0, worst_sp = 0.0, worst_tail = 0.0;
    for (int i = 0; i < 4000; ++i) {
        double tau = log_uniform(1e-3, 10.0), u = test_uniform(&rng, -700.0, 700.0);
        if (i < 1000) u *= 1e-3; // near the centre
        double x = u * tau, d1, d2;
        u = x / tau; // the argument the function sees (exp amplifies its rounding by |u|)
        double s = osc_sigmoid(x, tau, &d1, &d2);
        double c = cosh(0.5 * u);
        double d1_ref = 1.0 / (4.0 * tau * c * c);
        double d2_ref = -tanh(0.5 * u) * d1_ref / tau;
        worst_d1 = fmax(worst_d1, fabs(d1 - d1_ref) / d1_ref);
        // near u = 0 sigma'' is a difference of two halves: absolute error ~1e-16 sigma' / tau
        worst_d2 = fmax(worst_d2, fabs(d2 - d2_ref) / (fabs(d2_ref) + 0.25 * d1_ref / tau));
        worst_sym = fmax(worst_sym, fabs(s + osc_sigmoid(-x, tau, NULL, NULL) - 1.0));
        double sp_d1, sp_d2;
        double sp = osc_softplus(x, tau, &sp_d1, &sp_d2);
        CHECK(sp_d1 == s && sp_d2 == d1);
        worst_sp = fmax(worst_sp, fabs(sp - osc_softplus(-x, tau, NULL, NULL) - x) / (fabs(x) + tau));
        if (u <= -20.0) {
            double e = exp(u), tail = tau * e * (1.0 - 0.5 * e);
            worst_tail = fmax(worst_tail, fabs(sp - tail) / tail);
        }
    }
    CHECK_MSG(worst_d1 < 4e-15, "sigmoid' vs closed form: %g", worst_d1);
    CHECK_MSG(worst_d2 < 4e-15, "sigmoid'' vs closed form: %g", worst_d2);
    CHECK_MSG(worst_sym < 2.3e-16, "sigmoid(x) + sigmoid(-x) - 1 = %g", worst_sym);
    CHECK_MSG(worst_sp < 4.5e-16, "softplus(x) - softplus(-x) - x: %g", worst_sp);
    CHECK_MSG(worst_tail < 1e-15, "softplus relative error in the left tail: %g", worst_tail);
    CHECK_NEAR(osc_softplus(0.0, 0.3, NULL, NULL), 0.3 * log2_, 1e-16);
    CHECK(osc_sigmoid(0.0, 0.3, NULL, NULL) == 0.5);
}

// oracle: softclip' = sigma(u_lo) - sigma(u_hi) = (1 - exp(-(hi - lo) / tau)) sigma(u_lo) sigma(-u_hi)
// (u = (x - bound) / tau), a product without cancellation, so both tails are checked to full
// relative precision; and the odd symmetry softclip(-x) = -softclip(x) on [-c, c]
static void test_softclip_tails(void) {
    double worst_d1 = 0.0, worst_sym = 0.0, worst_sym_d1 = 0.0;
    for (int i = 0; i < 4000; ++i) {
        double tau = log_uniform(1e-3, 10.0);
        double lo = test_uniform(&rng, -2.0, 1.0), hi = lo + test_uniform(&rng, 0.1, 3.0);
        double mid = 0.5 * (lo + hi);
        double x = mid + test_uniform(&rng, -1.0, 1.0) * (0.5 * (hi - lo) + 600.0 * tau), d1;
        osc_softclip(x, lo, hi, tau, &d1, NULL);
        // the arguments the function sees; their difference (exact) replaces (hi - lo) / tau,
        // which differs from it by the rounding of x - lo and x - hi
        double u_lo = (x - lo) / tau, u_hi = (x - hi) / tau;
        double ref = -expm1(-(u_lo - u_hi)) / ((1.0 + exp(-u_lo)) * (1.0 + exp(u_hi)));
        worst_d1 = fmax(worst_d1, fabs(d1 - ref) / ref);
        // odd symmetry on a centred interval (x -> -x is exact in floating point)
        double c = 0.5 * (hi - lo), dp, dm;
        double vp = osc_softclip(x - mid, -c, c, tau, &dp, NULL);
        double vm = osc_softclip(mid - x, -c, c, tau, &dm, NULL);
        worst_sym = fmax(worst_sym, fabs(vp + vm) / (c + tau));
        worst_sym_d1 = fmax(worst_sym_d1, fabs(dp - dm) / fmax(fabs(dp), 1e-300));
    }
    CHECK_MSG(worst_d1 < 1e-12, "softclip' relative error in the tails: %g", worst_d1);
    CHECK_MSG(worst_sym < 1e-15, "softclip odd symmetry of the value: %g", worst_sym);
    CHECK_MSG(worst_sym_d1 < 1e-13, "softclip' even symmetry: %g", worst_sym_d1);
}

// oracle: the documented precision far away, the open interval for moderate x, and continuity of
// the value and both derivatives across the midpoint where the two forms meet
static void test_softclip_range_and_midpoint(void) {
    for (int k = 0; k < 6; ++k) {
        double tau = pow(10.0, k - 3), d1, d2; // 1e-3 .. 100
        double v = osc_softclip(1e12, 0.0, 1.0, tau, &d1, &d2);
        CHECK_MSG(fabs(v - 1.0) <= 1e-15 && fabs(d1) <= 1e-15 && fabs(d2) <= 1e-15,
                  "softclip(1e12, 0, 1, %g) = %.17g, d1 %g, d2 %g", tau, v, d1, d2);
        v = osc_softclip(-1e12, 0.0, 1.0, tau, &d1, &d2);
        CHECK_MSG(fabs(v) <= 1e-15 && fabs(d1) <= 1e-15 && fabs(d2) <= 1e-15,
                  "softclip(-1e12, 0, 1, %g) = %.17g, d1 %g, d2 %g", tau, v, d1, d2);
    }
    int outside = 0;
    double worst_v = 0.0, worst_d1 = 0.0, worst_d2 = 0.0;
    for (int i = 0; i < 2000; ++i) {
        double tau = log_uniform(1e-3, 1.0);
        double lo = test_uniform(&rng, -2.0, 1.0), hi = lo + test_uniform(&rng, 0.5, 3.0);
        double x = test_uniform(&rng, lo - 10.0 * tau, hi + 10.0 * tau);
        double v = osc_softclip(x, lo, hi, tau, NULL, NULL);
        outside += !(v > lo && v < hi);
        // both sides of the midpoint, one ulp apart: jumps bounded by rounding alone
        double mid = 0.5 * (lo + hi), below = nextafter(mid, -INFINITY), above = nextafter(mid, INFINITY);
        double v0, a1, a2, b1, b2, c1, c2;
        double va = osc_softclip(below, lo, hi, tau, &a1, &a2);
        v0 = osc_softclip(mid, lo, hi, tau, &b1, &b2);
        double vb = osc_softclip(above, lo, hi, tau, &c1, &c2);
        double scale = fabs(lo) + fabs(hi) + tau;
        worst_v = fmax(worst_v, fmax(fabs(va - v0), fabs(vb - v0)) / scale);
        worst_d1 = fmax(worst_d1, fmax(fabs(a1 - b1), fabs(c1 - b1)));
        worst_d2 = fmax(worst_d2, fmax(fabs(a2 - b2), fabs(c2 - b2)) * tau);
    }
    CHECK_MSG(outside == 0, "%d softclip values not strictly inside (lo, hi)", outside);
    CHECK_MSG(worst_v < 1e-15, "softclip value jump at the midpoint: %g", worst_v);
    CHECK_MSG(worst_d1 < 1e-15, "softclip' jump at the midpoint: %g", worst_d1);
    CHECK_MSG(worst_d2 < 1e-15, "softclip'' jump at the midpoint (times tau): %g", worst_d2);
}

// ---------------------------------------------------------------------------------------------
// logsumexp and softmax

// draws count values in [-3, 3], with a repeated entry one time in four
static int draw_values(double* x) {
    int count = 1 + (int)(test_rng_next(&rng) % 7);
    for (int i = 0; i < count; ++i) x[i] = test_uniform(&rng, -3.0, 3.0);
    if (count > 1 && (test_rng_next(&rng) & 3) == 0) x[count - 1] = x[0];
    return count;
}

// oracle: m + tau log sum exp((x - m) / tau) computed here in long double, weights against finite
// differences of the value, Hessian against finite differences of the weights, the bias bounds
static void test_logsumexp_random(void) {
    double worst_v = 0.0, worst_sum = 0.0, worst_w = 0.0, worst_h = 0.0, worst_sym = 0.0;
    int out_of_bounds = 0;
    for (int t = 0; t < 3000; ++t) {
        double x[8], w[8], hess[64], wp[8], wm[8];
        int n = draw_values(x);
        double tau = log_uniform(1e-3, 10.0), h = 1e-4 * tau;
        double v = osc_logsumexp(x, n, tau, w, hess);
        CHECK(osc_logsumexp(x, n, tau, NULL, NULL) == v);
        double m = x[0];
        for (int i = 1; i < n; ++i) m = fmax(m, x[i]);
        long double sum = 0.0L;
        for (int i = 0; i < n; ++i) sum += expl(((long double)x[i] - m) / tau);
        double ref = (double)(m + tau * logl(sum));
        worst_v = fmax(worst_v, fabs(v - ref) / (fabs(ref) + tau));
        out_of_bounds += !(v >= m && v <= m + tau * log((double)n) * (1.0 + 1e-15) + 4e-16 * fabs(m));
        double wsum = 0.0;
        for (int i = 0; i < n; ++i) wsum += w[i];
        worst_sum = fmax(worst_sum, fabs(wsum - 1.0));
        for (int j = 0; j < n; ++j) {
            double xj = x[j];
            x[j] = xj + h;
            double vp = osc_logsumexp(x, n, tau, wp, NULL);
            x[j] = xj - h;
            double vm = osc_logsumexp(x, n, tau, wm, NULL);
            x[j] = xj;
            double fd = (vp - vm) / (2.0 * h);
            worst_w = fmax(worst_w, fabs(w[j] - fd) / fmax(fabs(fd), 1.0));
            for (int i = 0; i < n; ++i) {
                double fdh = (wp[i] - wm[i]) / (2.0 * h);
                // |H_ij| = |w_i (delta_ij - w_j)| / tau peaks at 1 / (4 tau)
                worst_h = fmax(worst_h, fabs(hess[i * n + j] - fdh) / fmax(fabs(fdh), 0.25 / tau));
                worst_sym = fmax(worst_sym, fabs(hess[i * n + j] - hess[j * n + i]) * tau);
            }
        }
    }
    CHECK_MSG(worst_v < 1e-15, "logsumexp value vs long double: %g", worst_v);
    CHECK_MSG(out_of_bounds == 0, "%d logsumexp values outside [max, max + tau log n]", out_of_bounds);
    CHECK_MSG(worst_sum < 1e-15, "weights do not sum to 1: %g", worst_sum);
    CHECK_MSG(worst_w < 1e-6, "weights vs finite differences: %g", worst_w);
    CHECK_MSG(worst_h < 1e-6, "Hessian vs finite differences: %g", worst_h);
    CHECK_MSG(worst_sym < 1e-16, "Hessian not symmetric: %g", worst_sym);

    // hand-computed values and count 1
    double pair[2] = {0.0, log(3.0)};
    CHECK_NEAR(osc_logsumexp(pair, 2, 1.0, NULL, NULL), log(4.0), 1e-15);
    double flat[4] = {2.0, 2.0, 2.0, 2.0}, w4[4];
    CHECK_NEAR(osc_logsumexp(flat, 4, 0.5, w4, NULL), 2.0 + 0.5 * log(4.0), 1e-15);
    CHECK(w4[0] == 0.25 && w4[1] == 0.25 && w4[2] == 0.25 && w4[3] == 0.25);
    double one = -1.25, w1, h1;
    CHECK(osc_logsumexp(&one, 1, 0.7, &w1, &h1) == -1.25 && w1 == 1.0 && h1 == 0.0);
}

// oracle: the documented numeric robustness, on inputs where the naive formula over- or underflows
static void test_logsumexp_stability(void) {
    double w[4], hess[16];
    // tau = 1e-300: every term but the maximum underflows, the bias tau log n vanishes
    double near_one[4] = {1.0, 1.0 + 1e-15, 0.999, 1.0 + 1e-15};
    CHECK(osc_logsumexp(near_one, 3, 1e-300, w, NULL) == 1.0 + 1e-15);
    CHECK(w[0] == 0.0 && w[1] == 1.0 && w[2] == 0.0);
    CHECK(osc_logsumexp(near_one, 4, 1e-300, w, NULL) == 1.0 + 1e-15);
    CHECK(w[1] == 0.5 && w[3] == 0.5); // a tie shares the weight
    // huge values of both signs
    double huge[2] = {1e300, -1e300};
    CHECK(osc_logsumexp(huge, 2, 1.0, w, NULL) == 1e300 && w[0] == 1.0 && w[1] == 0.0);
    double v = osc_logsumexp(huge, 2, 1e300, NULL, NULL);
    CHECK_MSG(isfinite(v) && fabs(v - 1e300 * (1.0 + log1p(exp(-2.0)))) <= 1e285, "%g", v);
    double extreme[2] = {-1.7e308, 1.7e308};
    CHECK(osc_logsumexp(extreme, 2, 1.0, w, NULL) == 1.7e308 && w[0] == 0.0 && w[1] == 1.0);
    double big_same[3] = {1e300, 1e300, 1e300};
    CHECK_NEAR(osc_logsumexp(big_same, 3, 1.0, NULL, NULL), 1e300, 1e285);
    // -inf entries take no weight and no curvature
    double with_inf[3] = {0.0, -INFINITY, 1.0};
    CHECK_NEAR(osc_logsumexp(with_inf, 3, 1.0, w, hess), log1p(exp(1.0)), 1e-15);
    CHECK(w[1] == 0.0 && w[0] > 0.0 && w[2] > w[0]);
    for (int i = 0; i < 3; ++i) CHECK(hess[3 * i + 1] == 0.0 && hess[3 + i] == 0.0);
    double all_inf[3] = {-INFINITY, -INFINITY, -INFINITY};
    CHECK(osc_logsumexp(all_inf, 3, 1.0, NULL, NULL) == -INFINITY);
    CHECK(osc_logsumexp(all_inf, 3, 0.0, NULL, NULL) == -INFINITY);
    double plus_inf[3] = {0.0, INFINITY, 1.0};
    CHECK(osc_logsumexp(plus_inf, 3, 1.0, w, NULL) == INFINITY && w[1] == 1.0 && w[0] == 0.0);
    // subnormal temperature
    double spread[3] = {0.5, 0.25, 0.5 - 1e-16};
    CHECK(osc_logsumexp(spread, 3, 1e-310, w, NULL) == 0.5 && w[0] == 1.0);
}

// oracle: weights sum to 1 and equal the logsumexp gradient; Jacobian against finite differences
// of the weights; the second-derivative tensor against finite differences of the Jacobian
static void test_softmax(void) {
    double worst_sum = 0.0, worst_j = 0.0, worst_s = 0.0, worst_col = 0.0;
    for (int t = 0; t < 2000; ++t) {
        double x[8], w[8], jac[64], second[512], lse_w[8], wp[8], wm[8], jp[64], jm[64];
        int n = draw_values(x);
        double tau = log_uniform(1e-3, 10.0), h = 1e-4 * tau;
        osc_softmax(x, n, tau, w, jac, second);
        osc_logsumexp(x, n, tau, lse_w, NULL);
        // peaks: |dw_i/dx_j| <= 1 / (4 tau), |d2 w_i / dx_j dx_k| <= 0.1 / tau^2 (two entries:
        // the sigmoid's sigma'' peak 1 / (6 sqrt(3) tau^2) = 0.096 / tau^2)
        double sum = 0.0, jscale = 0.25 / tau, sscale = 0.0962 / (tau * tau);
        for (int i = 0; i < n; ++i) {
            sum += w[i];
            CHECK(w[i] == lse_w[i] && w[i] >= 0.0);
        }
        worst_sum = fmax(worst_sum, fabs(sum - 1.0));
        for (int k = 0; k < n; ++k) {
            double xk = x[k];
            x[k] = xk + h;
            osc_softmax(x, n, tau, wp, jp, NULL);
            x[k] = xk - h;
            osc_softmax(x, n, tau, wm, jm, NULL);
            x[k] = xk;
            double col = 0.0;
            for (int i = 0; i < n; ++i) {
                double fd = (wp[i] - wm[i]) / (2.0 * h);
                worst_j = fmax(worst_j, fabs(jac[i * n + k] - fd) / fmax(fabs(fd), jscale));
                col += jac[i * n + k];
                for (int j = 0; j < n; ++j) {
                    double fds = (jp[i * n + j] - jm[i * n + j]) / (2.0 * h);
                    worst_s = fmax(worst_s, fabs(second[(i * n + j) * n + k] - fds) / fmax(fabs(fds), sscale));
                }
            }
            worst_col = fmax(worst_col, fabs(col) * tau); // sum_i w_i = 1 is constant
        }
    }
    CHECK_MSG(worst_sum < 1e-15, "softmax weights do not sum to 1: %g", worst_sum);
    CHECK_MSG(worst_j < 1e-6, "softmax Jacobian vs finite differences: %g", worst_j);
    CHECK_MSG(worst_s < 1e-6, "softmax second derivatives vs finite differences: %g", worst_s);
    CHECK_MSG(worst_col < 1e-15, "softmax Jacobian columns do not sum to 0: %g", worst_col);
}

// ---------------------------------------------------------------------------------------------
// the hard limit

// oracle: tau <= 0 or NaN is the hard operator, exactly, with the derivatives of the hard
// operator (zero, or one-hot / indicator for the first derivative of max, relu and clamp)
static void test_hard_operators(void) {
    const double taus[4] = {0.0, -0.5, -INFINITY, NAN};
    int max_errors = 0, min_errors = 0;
    for (int k = 0; k < 4; ++k) {
        double tau = taus[k];
        for (int t = 0; t < 500; ++t) {
            double x = t == 0 ? 0.0 : test_uniform(&rng, -3.0, 3.0), b = test_uniform(&rng, -3.0, 3.0);
            double lo = -1.0 + 0.3 * (t % 3), hi = lo + 1.5, d1, d2, g[2], hs[2][2];
            CHECK(osc_sigmoid(x, tau, &d1, &d2) == (x > 0.0 ? 1.0 : 0.0) && d1 == 0.0 && d2 == 0.0);
            CHECK(osc_softplus(x, tau, &d1, &d2) == fmax(x, 0.0) && d1 == (x > 0.0) && d2 == 0.0);
            double clamp = x < lo ? lo : (x > hi ? hi : x);
            CHECK(osc_softclip(x, lo, hi, tau, &d1, &d2) == clamp && d1 == (x > lo && x < hi) && d2 == 0.0);
            // max and min exactly, for every pair (a + (b - a) = b does not hold in floating point)
            max_errors += osc_smooth_max(x, b, tau, g, hs) != fmax(x, b);
            CHECK(g[0] + g[1] == 1.0 && g[x > b ? 0 : 1] == 1.0 && hs[0][0] == 0.0 && hs[0][1] == 0.0);
            min_errors += osc_smooth_min(x, b, tau, g, hs) != fmin(x, b);
            CHECK(g[0] + g[1] == 1.0 && g[x < b ? 0 : 1] == 1.0 && hs[1][1] == 0.0 && hs[1][0] == 0.0);
            // the transition with bandwidth <= 0 (or NaN) is the step at d_max, d_c = min(phi, d_max)
            CHECK(osc_transition(x, b, tau, &d1, &d2) == (x <= b ? 1.0 : 0.0) && d1 == 0.0 && d2 == 0.0);
            CHECK(osc_mollified_depth(x, b, tau, NULL, NULL) == (x <= b ? x : b));
        }
        CHECK(osc_transition(0.25, 0.25, tau, NULL, NULL) == 1.0); // d <= d_max, documented
        CHECK(osc_mollified_depth(0.25, 0.25, tau, NULL, NULL) == 0.25);
        CHECK(osc_smooth_max(-1e20, 1.0, tau, NULL, NULL) == 1.0);
        CHECK(osc_smooth_min(1e20, -1.0, tau, NULL, NULL) == -1.0);
        // logsumexp and softmax: the max, one-hot on the first maximum, zero derivatives
        double x[5] = {1.0, 3.0, -2.0, 3.0, 0.1}, w[5], jac[25], second[125], hess[25];
        CHECK(osc_logsumexp(x, 5, tau, w, hess) == 3.0);
        for (int i = 0; i < 5; ++i) CHECK(w[i] == (i == 1 ? 1.0 : 0.0));
        for (int i = 0; i < 25; ++i) CHECK(hess[i] == 0.0);
        osc_softmax(x, 5, tau, w, jac, second);
        for (int i = 0; i < 5; ++i) CHECK(w[i] == (i == 1 ? 1.0 : 0.0));
        int nonzero = 0;
        for (int i = 0; i < 25; ++i) nonzero += jac[i] != 0.0;
        for (int i = 0; i < 125; ++i) nonzero += second[i] != 0.0;
        CHECK(nonzero == 0);
    }
    CHECK_MSG(max_errors == 0 && min_errors == 0, "hard max wrong %d times, hard min %d times", max_errors, min_errors);
}

// oracle: the documented bounds to the hard operator for tau = 1 .. 1e-12, which are attained
// (the gap at a tie is tau log 2), so convergence is at the documented rate and no faster
static void test_convergence_to_hard(void) {
    int violations = 0;
    for (int k = 0; k <= 12; ++k) {
        double tau = pow(10.0, -k), ln2 = tau * log2_;
        for (int t = 0; t < 300; ++t) {
            double x = test_uniform(&rng, -2.0, 2.0), b = test_uniform(&rng, -2.0, 2.0);
            double slack = 4.5e-16 * (fabs(x) + fabs(b) + 2.0); // rounding of the O(1) values
            double step = x > 0.0 ? 1.0 : 0.0;
            violations += !(fabs(osc_sigmoid(x, tau, NULL, NULL) - step) <= exp(-fabs(x) / tau) + 2.3e-16);
            double gap = osc_softplus(x, tau, NULL, NULL) - fmax(x, 0.0);
            violations += !(gap >= 0.0 && gap <= ln2 + slack);
            double clamp = fmin(fmax(x, -1.0), 0.5);
            violations += !(fabs(osc_softclip(x, -1.0, 0.5, tau, NULL, NULL) - clamp) <= ln2 + slack);
            gap = osc_smooth_max(x, b, tau, NULL, NULL) - fmax(x, b);
            violations += !(gap >= 0.0 && gap <= ln2 + slack);
            gap = fmin(x, b) - osc_smooth_min(x, b, tau, NULL, NULL);
            violations += !(gap >= 0.0 && gap <= ln2 + slack);
            double v[5];
            for (int i = 0; i < 5; ++i) v[i] = test_uniform(&rng, -2.0, 2.0);
            double m = fmax(fmax(fmax(v[0], v[1]), fmax(v[2], v[3])), v[4]);
            gap = osc_logsumexp(v, 5, tau, NULL, NULL) - m;
            violations += !(gap >= 0.0 && gap <= tau * log(5.0) + slack);
        }
        // the bounds are attained at ties
        CHECK_NEAR(osc_softplus(0.0, tau, NULL, NULL), ln2, 1e-15 * ln2);
        CHECK_NEAR(osc_smooth_max(0.25, 0.25, tau, NULL, NULL) - 0.25, ln2, 4e-16 + 1e-15 * ln2);
        double tie[3] = {0.5, 0.5, 0.5};
        CHECK_NEAR(osc_logsumexp(tie, 3, tau, NULL, NULL) - 0.5, tau * log(3.0), 2.3e-16 + 1e-15 * tau);
    }
    CHECK_MSG(violations == 0, "%d bound violations", violations);
}

// ---------------------------------------------------------------------------------------------
// the C2 transition function and the mollified depth

// oracle: the definition (exact 1 and 0 outside the band, 1 - (6 s^5 - 15 s^4 + 10 s^3) inside,
// computed here term by term), the symmetry f(lo + s bw) + f(d_max - s bw) = 1, a dense sweep
// for monotonicity and range, and one-sided limits at both junctions at rates s^3, s^2, s
static void test_transition_shape(void) {
    int flat_errors = 0, sweep_errors = 0, limit_errors = 0;
    double worst_formula = 0.0, worst_sym = 0.0;
    for (int t = 0; t < 300; ++t) {
        double bw = log_uniform(1e-3, 10.0), d_max = test_uniform(&rng, -1.0, 1.0), d1, d2;
        double lo = d_max - bw;
        // flat parts, including both junctions themselves
        for (int i = 0; i < 20; ++i) {
            double r = i == 0 ? 0.0 : log_uniform(1e-12, 1e3) * bw;
            flat_errors += !(osc_transition(lo - r, d_max, bw, &d1, &d2) == 1.0 && d1 == 0.0 && d2 == 0.0);
            flat_errors += !(osc_transition(d_max + r, d_max, bw, &d1, &d2) == 0.0 && d1 == 0.0 && d2 == 0.0);
            flat_errors += !(osc_mollified_depth(lo - r, d_max, bw, &d1, &d2) == lo - r && d1 == 1.0 && d2 == 0.0);
            flat_errors += !(osc_mollified_depth(d_max + r, d_max, bw, &d1, &d2) == d_max && d1 == 0.0 && d2 == 0.0);
        }
        // inside the band: the polynomial and its symmetry
        for (int i = 0; i < 50; ++i) {
            double s = test_uniform(&rng, 0.0, 1.0), d = lo + s * bw;
            double sr = (d - lo) / bw; // the s the function sees
            // 1 - (6 s^5 - 15 s^4 + 10 s^3) factored as (1 - s)^3 (1 + 3 s + 6 s^2), no cancellation
            double ref = pow(1.0 - sr, 3) * (1.0 + 3.0 * sr + 6.0 * sr * sr);
            // rounding of the arguments (d - lo vs d_max - d) moves f by ~ulp(|d_max| + bw) * 1.875 / bw
            double arg_err = 4.5e-16 * (fabs(d_max) + bw) * 1.875 / bw;
            worst_formula =
                fmax(worst_formula, fabs(osc_transition(d, d_max, bw, NULL, NULL) - ref) / (2.3e-16 + arg_err));
            double mirrored = osc_transition(d_max - s * bw, d_max, bw, NULL, NULL);
            worst_sym =
                fmax(worst_sym, fabs(osc_transition(d, d_max, bw, NULL, NULL) + mirrored - 1.0) / (2.3e-16 + arg_err));
        }
        // dense sweep (steps of 7.5e-5 bw): f in [0, 1], non-increasing, f' <= 0 (exactly); d_c
        // between phi and d_max and non-decreasing (up to rounding)
        double prev = 2.0, prev_dc = -INFINITY;
        for (int i = 0; i <= 20000; ++i) {
            double d = lo - 0.25 * bw + 1.5 * bw * i / 20000.0;
            double f = osc_transition(d, d_max, bw, &d1, NULL);
            double dc = osc_mollified_depth(d, d_max, bw, NULL, NULL);
            sweep_errors += !(f >= 0.0 && f <= 1.0 && f <= prev && d1 <= 0.0);
            // d_c = f phi + (1 - f) d_max rounds: allow 2 ulps (a real defect moves it by ~step)
            double ulp2 = 4.5e-16 * (fabs(d) + fabs(d_max));
            sweep_errors += !(dc >= fmin(d, d_max) - ulp2 && dc <= fmax(d, d_max) + ulp2 && dc >= prev_dc - ulp2);
            prev = f;
            prev_dc = dc;
        }
        // one-sided limits: 1 - f <= 10 s^3, |f'| <= 30 s^2 / bw, |f''| <= 60 s / bw^2 (and the
        // same in t = 1 - s at d_max), plus rounding of 1 - f and of the argument
        for (int e = 2; e <= 8; e += 2) {
            double s = pow(10.0, -e);
            double f = osc_transition(lo + s * bw, d_max, bw, &d1, &d2);
            double tol = 2.3e-16 + 4.5e-16 * (fabs(d_max) + bw) * 60.0 * s / bw;
            limit_errors += !(1.0 - f <= 10.0 * s * s * s + tol && f <= 1.0);
            limit_errors += !(fabs(d1) * bw <= 30.0 * s * s * 1.01 && fabs(d2) * bw * bw <= 60.0 * s * 1.01);
            f = osc_transition(d_max - s * bw, d_max, bw, &d1, &d2);
            limit_errors += !(f <= 10.0 * s * s * s + tol && f >= 0.0);
            limit_errors += !(fabs(d1) * bw <= 30.0 * s * s * 1.01 && fabs(d2) * bw * bw <= 60.0 * s * 1.01);
        }
    }
    CHECK_MSG(flat_errors == 0, "%d values or derivatives not exact outside the band", flat_errors);
    CHECK_MSG(worst_formula <= 4.0, "transition vs polynomial: %g (in units of its rounding bound)", worst_formula);
    CHECK_MSG(worst_sym <= 4.0, "transition symmetry error %g (in units of its rounding bound)", worst_sym);
    CHECK_MSG(sweep_errors == 0, "%d sweep steps not monotone or out of range", sweep_errors);
    CHECK_MSG(limit_errors == 0, "%d one-sided limits off their rate", limit_errors);
}

// ---------------------------------------------------------------------------------------------
// bad input

// oracle: the header's NUMERIC ROBUSTNESS: NaN in, NaN out, for the smooth and the hard operator;
// infinite arguments give the limits of each operator
static void test_nan_and_infinity(void) {
    const double taus[2] = {0.3, 0.0};
    for (int k = 0; k < 2; ++k) {
        double tau = taus[k], w[3], jac[9];
        CHECK(isnan(osc_sigmoid(NAN, tau, NULL, NULL)));
        CHECK(isnan(osc_softplus(NAN, tau, NULL, NULL)));
        CHECK(isnan(osc_softclip(NAN, -1.0, 1.0, tau, NULL, NULL)));
        CHECK(isnan(osc_smooth_max(NAN, 1.0, tau, NULL, NULL)) && isnan(osc_smooth_max(1.0, NAN, tau, NULL, NULL)));
        CHECK(isnan(osc_smooth_min(NAN, 1.0, tau, NULL, NULL)) && isnan(osc_smooth_min(1.0, NAN, tau, NULL, NULL)));
        CHECK(isnan(osc_transition(NAN, 0.0, tau, NULL, NULL)));
        CHECK(isnan(osc_mollified_depth(NAN, 0.0, tau, NULL, NULL)));
        for (int pos = 0; pos < 3; ++pos) {
            double x[3] = {1.0, 2.0, 0.5};
            x[pos] = NAN;
            CHECK_MSG(isnan(osc_logsumexp(x, 3, tau, NULL, NULL)), "logsumexp NaN at %d, tau %g", pos, tau);
            // softmax's values are its weights: a NaN input must not give a one-hot answer
            osc_softmax(x, 3, tau, w, jac, NULL);
            CHECK_MSG(isnan(w[0]) && isnan(w[1]) && isnan(w[2]), "softmax NaN at %d, tau %g: %g %g %g", pos, tau, w[0],
                      w[1], w[2]);
        }
        // infinite arguments: the limits
        double d1, d2;
        CHECK(osc_sigmoid(INFINITY, tau, &d1, &d2) == 1.0 && d1 == 0.0 && d2 == 0.0);
        CHECK(osc_sigmoid(-INFINITY, tau, &d1, &d2) == 0.0 && d1 == 0.0 && d2 == 0.0);
        CHECK(osc_softplus(INFINITY, tau, NULL, NULL) == INFINITY);
        CHECK(osc_softplus(-INFINITY, tau, &d1, &d2) == 0.0 && d1 == 0.0 && d2 == 0.0);
        CHECK(osc_softclip(INFINITY, -1.0, 2.0, tau, &d1, NULL) == 2.0 && d1 == 0.0);
        CHECK(osc_softclip(-INFINITY, -1.0, 2.0, tau, &d1, NULL) == -1.0 && d1 == 0.0);
        CHECK(osc_smooth_max(INFINITY, 1.0, tau, NULL, NULL) == INFINITY);
        CHECK(osc_smooth_max(-INFINITY, 1.0, tau, NULL, NULL) == 1.0);
        CHECK(osc_smooth_max(1.0, -INFINITY, tau, NULL, NULL) == 1.0);
        CHECK(osc_smooth_min(INFINITY, 1.0, tau, NULL, NULL) == 1.0);
        CHECK(osc_smooth_min(-INFINITY, 1.0, tau, NULL, NULL) == -INFINITY);
        CHECK(osc_transition(INFINITY, 0.5, tau, &d1, &d2) == 0.0 && d1 == 0.0 && d2 == 0.0);
        CHECK(osc_transition(-INFINITY, 0.5, tau, &d1, &d2) == 1.0 && d1 == 0.0 && d2 == 0.0);
        // d_c saturates to d_max with increasing phi, also at phi = +inf
        double dc = osc_mollified_depth(INFINITY, 0.5, tau, &d1, &d2);
        CHECK_MSG(dc == 0.5 && d1 == 0.0 && d2 == 0.0, "d_c(+inf) = %g, d1 %g, d2 %g", dc, d1, d2);
        dc = osc_mollified_depth(-INFINITY, 0.5, tau, &d1, &d2);
        CHECK_MSG(dc == -INFINITY && d1 == 1.0 && d2 == 0.0, "d_c(-inf) = %g, d1 %g, d2 %g", dc, d1, d2);
    }
}

int main(void) {
    RUN(test_scalar_derivatives);
    RUN(test_transition_derivatives);
    RUN(test_smooth_max_min_derivatives);
    RUN(test_sigmoid_softplus_closed_forms);
    RUN(test_softclip_tails);
    RUN(test_softclip_range_and_midpoint);
    RUN(test_logsumexp_random);
    RUN(test_logsumexp_stability);
    RUN(test_softmax);
    RUN(test_hard_operators);
    RUN(test_convergence_to_hard);
    RUN(test_transition_shape);
    RUN(test_nan_and_infinity);
    return test_finish();
}
