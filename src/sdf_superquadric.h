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

// the signed distance n . p + h of a half-space at a jet point
OSC_FORCE_INLINE jet plane_distance(const jet p[3], const jet n[3], jet h, int order) {
    jet d = h;
    for (int i = 0; i < 3; ++i) d = jet_add(d, jet_mul(n[i], p[i], order), order);
    return d;
}

#endif // OSC_SDF_SUPERQUADRIC_H
