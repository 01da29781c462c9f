// sdf_superquadric.h: the superquadric radial distance and the PSQ, as force-inlined jet code
// shared by the PSQ leaf (sdf_superquadric.c) and the XPSQ leaf (sdf_xpsq.c), where the shape
// parameters vary with the spline parameter and are jets themselves. Never installed.
//
// Beker et al. 2026 eq. (1): f(x) = ((x/ax)^(2/e2) + (y/ay)^(2/e2))^(e2/e1) + (z/az)^(2/e1).
// f is homogeneous: f(l x) = l^(2/e1) f(x), so the surface point along the ray through x is at
// x f(x)^(-e1/2) and the radial distance is phi = |x| (1 - f(x)^(-e1/2)).
// For robustness (no overflow for far points and small exponents) it is computed from the scaled
// direction: xi = (x/ax, y/ay, z/az), s = |xi|, f(x) = s^(2/e1) f(xi/s), so
//     phi = r - (r / s) f(xi / s)^(-e1/2),   r = |x|,
// where every power has a base in [0, 1] and f(xi/s) >= 3^(-1/e1) > 0.

#ifndef OSC_SDF_SUPERQUADRIC_H
#define OSC_SDF_SUPERQUADRIC_H

#include "fast_math.h"
#include "sdf_internal.h"

// Radial distance of the SQ with scales a and exponents eps1, eps2 at the point p (all jets).
// `vary` is a compile-time flag: 0 when a and eps are constants (cheaper powers).
OSC_FORCE_INLINE jet sq_radial_distance(const jet p[3], const jet a[3], jet eps1, jet eps2, int vary, int order) {
    jet xi[3];
    for (int i = 0; i < 3; ++i) xi[i] = vary ? jet_div(p[i], a[i], order) : jet_scale(p[i], 1.0 / a[i].v, order);
    jet s2 = jet_add(jet_add(jet_sqr(xi[0], order), jet_sqr(xi[1], order), order), jet_sqr(xi[2], order), order);
    if (!(s2.v > 0.0)) // the centre, where the radial distance is undefined
        return jet_const(-fmin(a[0].v, fmin(a[1].v, a[2].v)), order);
    jet s = jet_sqrt(s2, order);
    jet inv_s = jet_recip(s, order);
    jet u = jet_mul(jet_abs(xi[0], order), inv_s, order);
    jet v = jet_mul(jet_abs(xi[1], order), inv_s, order);
    jet w = jet_mul(jet_abs(xi[2], order), inv_s, order);
    jet g;
    if (vary) {
        jet e2 = jet_scale(jet_recip(eps2, order), 2.0, order); // 2 / eps2
        jet e1 = jet_scale(jet_recip(eps1, order), 2.0, order); // 2 / eps1
        jet ratio = jet_div(eps2, eps1, order);                 // eps2 / eps1
        jet half = jet_scale(eps1, -0.5, order);                // -eps1 / 2
        jet ab = jet_add(jet_pow_var(u, e2, order), jet_pow_var(v, e2, order), order);
        jet f = jet_add(jet_pow_var(ab, ratio, order), jet_pow_var(w, e1, order), order);
        g = jet_pow_var(f, half, order);
    } else {
        double e2 = 2.0 / eps2.v, e1 = 2.0 / eps1.v;
        jet ab = jet_add(jet_pow(u, e2, order), jet_pow(v, e2, order), order);
        jet f = jet_add(jet_pow(ab, eps2.v / eps1.v, order), jet_pow(w, e1, order), order);
        g = jet_pow(f, -0.5 * eps1.v, order);
    }
    jet r = jet_sqrt(jet_add(jet_add(jet_sqr(p[0], order), jet_sqr(p[1], order), order), jet_sqr(p[2], order), order),
                     order);
    return jet_sub(r, jet_mul(jet_mul(r, inv_s, order), g, order), order);
}

// `condition ? a : b`: in lanes by the bits (osc_fast_select, which keeps a loop vectorisable), in
// a scalar call as a plain conditional
OSC_FORCE_INLINE double sq_select(int lanes, int condition, double a, double b) {
    return lanes ? osc_fast_select(condition, a, b) : (condition ? a : b);
}

// x^y for the SQ's powers (x >= 0): in lanes osc_fast_pow, in a scalar call libm's pow
OSC_FORCE_INLINE double sq_pow(int lanes, double x, double y) { return lanes ? osc_fast_pow(x, y) : pow(x, y); }

// |t|^p for a constant p >= 1 with its first and second derivatives in t (d1, d2), both formed from
// the power's value, so that they are those of the function evaluated (docs/sdf.md, "Superquadrics in
// lanes"). At t = 0 the derivatives that would be infinite are 0, as jet_pow of jet_abs gives them
// (singular point). A scalar call skips the power at |t| = 1 (the largest component of t = xi / m),
// whose value 1 both pows return exactly.
OSC_FORCE_INLINE double sq_power(double t, double p, double* d1, double* d2, int lanes) {
    double a = fabs(t);
    double f = lanes || a != 1.0 ? sq_pow(lanes, a, p) : 1.0; // 0 at a = 0
    double inverse = 1.0 / t;
    double first = p * f * inverse; // p |t|^(p-1) sign(t)
    bool zero = !(a > 0.0);
    *d1 = sq_select(lanes, zero, sq_select(lanes, p == 1.0, 1.0, 0.0), first);
    double second = (p - 1.0) * first * inverse; // p (p-1) |t|^(p-2)
    *d2 = sq_select(lanes, zero, sq_select(lanes, p == 2.0, 2.0, 0.0), second);
    return f;
}

// sq_constants (sdf_internal.h) of an SQ with scales a and exponents eps1, eps2
OSC_FORCE_INLINE sq_constants sq_constants_make(osc_vec3 a, osc_vec3 inverse_a, double eps1, double eps2) {
    sq_constants s = {{inverse_a.x, inverse_a.y, inverse_a.z}, 2.0 / eps2, 2.0 / eps1, eps2 / eps1, -0.5 * eps1,
                      -fmin(a.x, fmin(a.y, a.z))};
    return s;
}

// The radial distance of the SQ `shape` at the point x, by the derivatives of docs/sdf.md ("A
// cheaper evaluation"): phi = r (1 - G(x)) with G = f^(-eps1/2) homogeneous of degree -1, evaluated
// at t = xi / m (m the largest |xi_i|, so that every power has a base in [0, 1] and f(t) in [1, 3])
// and scaled back: G(xi) = G(t) / m, grad_xi G = grad_t G / m^2, hess_xi G = hess_t G / m^3. f's
// Hessian in t has four non-zero entries (xx, xy, yy, zz), and each power's derivatives reuse its
// value. `lanes` (a compile-time flag): branch-free with osc_fast_pow's powers, for the lanes of
// sdf_lanes.c; else with libm's pow and branches, for the scalar leaf (the powers whose value is
// known, |t| = 1 and k = 1, skipped).
OSC_FORCE_INLINE jet sq_radial_distance_shape(double x0, double x1, double x2, const sq_constants* shape, int order,
                                              int lanes) {
    double xi[3] = {x0 * shape->inverse_a[0], x1 * shape->inverse_a[1], x2 * shape->inverse_a[2]};
    double u0 = fabs(xi[0]), u1 = fabs(xi[1]), u2 = fabs(xi[2]);
    double m01 = sq_select(lanes, u0 > u1, u0, u1), m = sq_select(lanes, m01 > u2, m01, u2); // x is finite
    bool centre = !(m > 0.0); // where the radial distance is undefined
    double inverse_m = 1.0 / m;
    double t[3] = {xi[0] * inverse_m, xi[1] * inverse_m, xi[2] * inverse_m};
    double p = shape->p, k = shape->k, c = shape->c;
    double dA, ddA, dB, ddB, dC, ddC;
    double S = sq_power(t[0], p, &dA, &ddA, lanes) + sq_power(t[1], p, &dB, &ddB, lanes);
    double C = sq_power(t[2], shape->q, &dC, &ddC, lanes);
    // S^k and its derivatives in S (S itself when k = 1)
    double power = lanes || (k != 1.0 && S > 0.0) ? sq_pow(lanes, S, k) : S, inverse_s = 1.0 / S;
    double power1 = k * power * inverse_s, power2 = (k - 1.0) * power1 * inverse_s;
    bool positive = S > 0.0, linear = k == 1.0;
    double P = sq_select(lanes, linear, S, sq_select(lanes, positive, power, 0.0));
    double P1 = sq_select(lanes, linear, 1.0, sq_select(lanes, positive, power1, 0.0));
    double P2 = sq_select(lanes, linear, 0.0,
                          sq_select(lanes, positive, power2, sq_select(lanes, k == 2.0, 2.0, 0.0)));
    double f = P + C, inverse_f = 1.0 / f;
    double G = sq_pow(lanes, f, c), G1 = c * G * inverse_f, G2 = (c - 1.0) * G1 * inverse_f;
    double r = sqrt(x0 * x0 + x1 * x1 + x2 * x2), rm = r * inverse_m, Gm = G * inverse_m;
    jet out = jet_const(sq_select(lanes, centre, shape->centre, r - rm * G), order);
    if (order < 1) return out;
    // grad_t f and grad_t G
    double ft[3] = {P1 * dA, P1 * dB, dC};
    double inverse_r = 1.0 / r;
    double n[3] = {x0 * inverse_r, x1 * inverse_r, x2 * inverse_r};
    double d[3] = {inverse_m * shape->inverse_a[0], inverse_m * shape->inverse_a[1],
                   inverse_m * shape->inverse_a[2]}; // dxi_i/dx_i / m
    double gx[3];                                    // grad_x G
    for (int i = 0; i < 3; ++i) {
        gx[i] = G1 * ft[i] * d[i] * inverse_m;
        out.g[i] = sq_select(lanes, centre, 0.0, (1.0 - Gm) * n[i] - r * gx[i]);
    }
    if (order < 2) return out;
    // hess_t f: xx, xy, yy, zz
    double fxx = P1 * ddA + P2 * dA * dA, fxy = P2 * dA * dB, fyy = P1 * ddB + P2 * dB * dB, fzz = ddC;
    double ht[6] = {fxx, fxy, 0.0, fyy, 0.0, fzz}; // packed (xx, xy, xz, yy, yz, zz)
    double one_minus = (1.0 - Gm) * inverse_r;
    for (int e = 0; e < 6; ++e) {
        int i = jet_hi[e], j = jet_hj[e];
        double hg = (G1 * ht[e] + G2 * ft[i] * ft[j]) * d[i] * d[j] * rm; // r hess_x G
        double h = one_minus * ((i == j) - n[i] * n[j]) - (n[i] * gx[j] + gx[i] * n[j]) - hg;
        out.h[e] = sq_select(lanes, centre, 0.0, h);
    }
    return out;
}

// sq_radial_distance_shape (scalar, libm's pow) for the SQ with constant scales a (inverse_a their
// reciprocals) and exponents eps1, eps2: the same function as sq_radial_distance's with vary = 0
OSC_FORCE_INLINE jet sq_radial_distance_fixed(osc_vec3 x, osc_vec3 a, osc_vec3 inverse_a, double eps1, double eps2,
                                              int order) {
    sq_constants shape = sq_constants_make(a, inverse_a, eps1, eps2);
    return sq_radial_distance_shape(x.x, x.y, x.z, &shape, order, 0);
}

// the signed distance n . p + h of a half-space at a jet point
OSC_FORCE_INLINE jet plane_distance(const jet p[3], const jet n[3], jet h, int order) {
    jet d = h;
    for (int i = 0; i < 3; ++i) d = jet_add(d, jet_mul(n[i], p[i], order), order);
    return d;
}

#endif // OSC_SDF_SUPERQUADRIC_H
