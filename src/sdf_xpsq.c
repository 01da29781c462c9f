// sdf_xpsq.c: the XPSQ primitive of Beker et al. 2026 §III-A.4-5, a PSQ swept along a quadratic spline.
//
// The PSQ is placed at the projections of x onto the spline: the real roots of the stationarity
// cubic of |x - p(t)|^2, from Cardano's formula, soft-clipped into [0, 1]. Everything is written
// with jets (jet.h), so value, gradient and Hessian are exact for this computation. The derivation,
// the measurements behind each choice and what is and is not smooth are in docs/xpsq.md.
//
// The cubic. With a = p2 - p1, b = p1 - 2 p2 + p3, p(t) = p1 + 2 t a + t^2 b and m = p1 - x,
//   (p(t) - x) . p'(t) / 2 = (b.b) t^3 + 3 (a.b) t^2 + (2 a.a + m.b) t + m.a = 0.
// Normalised and depressed (t = s - B/3): s^3 + P s + Q = 0, with discriminant
//   Delta = -(4 P^3 + 27 Q^2)  (> 0: three real roots, < 0: one).
// Positive branch, E = s+(Delta) / 108 >= 0 in place of -D = Delta / 108:
//   s_k = 2 rho^(1/3) cos((theta + 2 pi k) / 3), rho = sqrt(Q^2/4 + E), theta = atan2(sqrt E, -Q/2).
// Negative branch, D' = s+(-Delta) / 108 >= 0 in place of D = -Delta / 108:
//   s = cbrt(w1) + cbrt(w2), w1,2 = -Q/2 +- sqrt(D'); w1 w2 = Q^2/4 - D' = -(P^3/27 + E),
//   so the smaller of w1, w2 is computed as that product over the larger (no cancellation).
// Merge (eq. 6, at the level of distances): phi = [Delta < 0] PSQ(t^-) + [Delta > 0] softmin_k
// PSQ(t^+_k), where the softmin is a softmax-weighted mean over the roots that are minima of the
// distance (f'(s) = 3 s^2 + P > 0), each weighted by a flat step of f' that vanishes where a pair
// of roots is born. The brackets are hard by default (discriminant temperature 0).

#include "sdf_superquadric.h"

#include <stdio.h>
#include <string.h>

#define XPSQ_TWO_PI 6.283185307179586476925286766559

osc_xpsq_desc osc_xpsq_desc_default(void) {
    osc_xpsq_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.control_points[0] = osc_v3(0.0, 0.0, -1.0);
    desc.control_points[1] = osc_v3(0.0, 0.0, 0.0);
    desc.control_points[2] = osc_v3(0.0, 0.0, 1.0);
    desc.frame = OSC_XPSQ_FRAME_FRENET;
    desc.rotation_start = osc_quat_identity();
    desc.rotation_end = osc_quat_identity();
    for (int i = 0; i < 3; ++i) desc.scale[i] = osc_profile_constant(1.0);
    for (int i = 0; i < 2; ++i) desc.exponent[i] = osc_profile_constant(1.0);
    desc.plane_temperature = 0.01;
    desc.discriminant_temperature = 0.0;
    desc.root_temperature = 1e-3;
    desc.blend_temperature = 0.01;
    return desc;
}

// ---------------------------------------------------------------------------------------------
// jet helpers

// the quadratic Bezier c0 (1-t)^2 + 2 c1 t (1-t) + c2 t^2 of a jet t
OSC_FORCE_INLINE jet bezier(const double c[3], jet t, int order) {
    double d1 = 2.0 * (c[1] - c[0]), d2 = 2.0 * (c[0] - 2.0 * c[1] + c[2]);
    return jet_chain(t, c[0] + t.v * (d1 + 0.5 * d2 * t.v), d1 + d2 * t.v, d2, order);
}

OSC_FORCE_INLINE jet dot_const(osc_vec3 c, const jet v[3], int order) {
    jet r = jet_scale(v[0], c.x, order);
    r = jet_add_scaled(r, v[1], c.y, order);
    return jet_add_scaled(r, v[2], c.z, order);
}

OSC_FORCE_INLINE jet dot_jet(const jet a[3], const jet b[3], int order) {
    jet r = jet_mul(a[0], b[0], order);
    r = jet_add(r, jet_mul(a[1], b[1], order), order);
    return jet_add(r, jet_mul(a[2], b[2], order), order);
}

// log psi(y) for the C-infinity step psi, 0 for y <= 0, 1 for y >= 1, flat to all orders at both
// ends: psi = sigma(-g), g = 1/y - 1/(1 - y), so log psi = -s+(g) with
//   (log psi)' = (1 - psi) h,  (log psi)'' = -psi (1 - psi) h^2 + (1 - psi) h',
//   h = -g' = 1/y^2 + 1/(1 - y)^2,  h' = -2/y^3 + 2/(1 - y)^3.
// Kept in the log domain because psi underflows long before its logarithm does. Call for y > 0.
OSC_FORCE_INLINE jet log_flat_step(jet y, int order) {
    if (!(y.v < 1.0)) return jet_const(0.0, order);
    double u = y.v, w = 1.0 - u;
    double g = 1.0 / u - 1.0 / w;
    double psi = osc_sigmoid(-g, 1.0, NULL, NULL);
    double h = 1.0 / (u * u) + 1.0 / (w * w);
    double dh = -2.0 / (u * u * u) + 2.0 / (w * w * w);
    double value = -osc_softplus(g, 1.0, NULL, NULL);
    return jet_chain(y, value, (1.0 - psi) * h, -psi * (1.0 - psi) * h * h + (1.0 - psi) * dh, order);
}

// sum_k v_k e_k phi_k / sum_k v_k e_k with e = exp(-phi / tau) over the candidates whose validity
// v_k = psi(y_k) is positive (y_k > 0): a smooth minimum in which a candidate of validity 0 has no
// influence. It returns phi when the valid inputs all equal phi and tends to their minimum as the
// gaps grow past tau. tau <= 0: the hard minimum over the valid candidates. When no candidate is
// valid (only at the cusp of the evolute itself) all count equally.
OSC_FORCE_INLINE jet soft_min_valid(const jet phi[3], const jet y[3], double tau, int order) {
    int valid[3], any = 0, arg = -1;
    for (int k = 0; k < 3; ++k) {
        valid[k] = y[k].v > 0.0;
        any |= valid[k];
    }
    for (int k = 0; k < 3; ++k) {
        if (any && !valid[k]) continue;
        if (arg < 0 || phi[k].v < phi[arg].v) arg = k;
    }
    if (!(tau > 0.0)) return phi[arg];
    jet logw[3];
    double top = -INFINITY;
    for (int k = 0; k < 3; ++k) {
        if (any && !valid[k]) continue;
        logw[k] = jet_scale(phi[k], -1.0 / tau, order);
        if (any) logw[k] = jet_add(logw[k], log_flat_step(y[k], order), order);
        if (logw[k].v > top) top = logw[k].v;
    }
    jet sum = jet_const(0.0, order), weighted = jet_const(0.0, order);
    for (int k = 0; k < 3; ++k) {
        if (any && !valid[k]) continue;
        jet e = jet_exp(jet_add_scalar(logw[k], -top), order);
        sum = jet_add(sum, e, order);
        weighted = jet_add(weighted, jet_mul(e, phi[k], order), order);
    }
    return jet_div(weighted, sum, order);
}

// ---------------------------------------------------------------------------------------------
// the projection parameters (before soft-clipping): the branch weights [Delta < 0], [Delta > 0],
// the root t^- of the negative branch and the roots t^+_k of the positive branch

typedef struct xpsq_branches {
    jet w_minus, w_plus; // sigmoid brackets of eq. (6); a weight of exactly 0 skips its branch
    jet t_minus;
    jet t_plus[3];
    jet slope[3]; // f'(s_k) = 3 s_k^2 + P: > 0 at minima of |x - p(t)|^2, 0 where a pair is born
} xpsq_branches;

OSC_FORCE_INLINE void xpsq_roots(const sdf_xpsq* q, const jet x[3], int order, xpsq_branches* r) {
    if (q->straight) { // b = 0: p(t) = p1 + 2 t a and the projection is linear in x
        jet m = jet_const(-osc_dot(q->p1, q->a), order);
        m = jet_add(m, dot_const(q->a, x, order), order);
        r->t_minus = jet_scale(m, 1.0 / q->two_a_dot_a, order);
        r->w_minus = jet_const(1.0, order);
        r->w_plus = jet_const(0.0, order);
        return;
    }
    // c = 2 a.a + (p1 - x).b and d = (p1 - x).a, both normalised by b.b
    double inv_a = 1.0 / q->cubic_a;
    double bn = q->cubic_b * inv_a;
    jet c = jet_sub(jet_const((q->two_a_dot_a + osc_dot(q->p1, q->b)) * inv_a, order),
                    jet_scale(dot_const(q->b, x, order), inv_a, order), order);
    jet d = jet_sub(jet_const(osc_dot(q->p1, q->a) * inv_a, order), jet_scale(dot_const(q->a, x, order), inv_a, order),
                    order);
    jet big_p = jet_add_scalar(c, -bn * bn / 3.0);
    jet big_q = jet_add(jet_scale(c, -bn / 3.0, order), d, order);
    big_q = jet_add_scalar(big_q, 2.0 * bn * bn * bn / 27.0);
    jet p3 = jet_mul(jet_sqr(big_p, order), big_p, order);
    jet q2 = jet_sqr(big_q, order);
    jet delta = jet_neg(jet_add(jet_scale(p3, 4.0, order), jet_scale(q2, 27.0, order), order), order);

    double tau = q->discriminant_temperature;
    r->w_plus = jet_sigmoid(delta, tau, order);
    // tau = 0: exactly one branch (both hard brackets vanish at Delta = 0)
    r->w_minus = tau > 0.0 ? jet_sigmoid(jet_neg(delta, order), tau, order) : jet_const(1.0 - r->w_plus.v, order);
    jet e = jet_scale(jet_softplus(delta, tau, order), 1.0 / 108.0, order); // E = s+(Delta) / 108
    jet half_q = jet_scale(big_q, -0.5, order);                             // -Q/2
    double shift = -bn / 3.0;

    if (r->w_minus.v > 0.0) {
        // s = cbrt(w1) + cbrt(w2), w1,2 = -Q/2 +- sqrt(D'), D' = s+(-Delta) / 108; the larger of
        // w1, w2 directly, the smaller as w1 w2 / larger with w1 w2 = -(P^3/27 + E)
        jet dp = jet_scale(jet_softplus(jet_neg(delta, order), tau, order), 1.0 / 108.0, order);
        jet root = jet_sqrt(dp, order);
        jet big = big_q.v >= 0.0 ? jet_sub(half_q, root, order) : jet_add(half_q, root, order);
        jet s = jet_const(0.0, order);
        if (big.v != 0.0) {
            jet product = jet_neg(jet_add(jet_scale(p3, 1.0 / 27.0, order), e, order), order);
            s = jet_add(jet_cbrt(big, order), jet_cbrt(jet_div(product, big, order), order), order);
        }
        r->t_minus = jet_add_scalar(s, shift);
    }
    if (r->w_plus.v > 0.0) {
        // s_k = 2 rho^(1/3) cos((theta + 2 pi k) / 3), rho = sqrt(Q^2/4 + E), theta = atan2(sqrt E, -Q/2)
        jet rho = jet_sqrt(jet_add(jet_sqr(half_q, order), e, order), order);
        jet theta = jet_atan2(jet_sqrt(e, order), half_q, order);
        jet amplitude = jet_scale(jet_cbrt(rho, order), 2.0, order);
        for (int k = 0; k < 3; ++k) {
            jet angle = jet_add_scalar(jet_scale(theta, 1.0 / 3.0, order), XPSQ_TWO_PI * k / 3.0);
            jet root = jet_mul(amplitude, jet_cos(angle, order), order);
            r->t_plus[k] = jet_add_scalar(root, shift);
            r->slope[k] = jet_add(jet_scale(jet_sqr(root, order), 3.0, order), big_p, order);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the PSQ placed at p(t), oriented by R(t), with its parameters at t

OSC_FORCE_INLINE jet xpsq_psq_at(const osc_sdf* sdf, const sdf_xpsq* q, const jet x[3], jet t, int order) {
    // y = x - p(t)
    jet y[3];
    double p1[3] = {q->p1.x, q->p1.y, q->p1.z}, av[3] = {q->a.x, q->a.y, q->a.z}, bv[3] = {q->b.x, q->b.y, q->b.z};
    for (int i = 0; i < 3; ++i) {
        double c[3] = {p1[i], p1[i] + av[i], p1[i] + 2.0 * av[i] + bv[i]}; // p(t) as a Bezier
        y[i] = jet_sub(x[i], bezier(c, t, order), order);
    }
    jet local[3];
    if (q->frame == OSC_XPSQ_FRAME_FRENET) {
        // T = (a + t b) / |a + t b|, N = B x T; local = (N . y, B . y, T . y)
        jet tangent[3];
        for (int i = 0; i < 3; ++i) tangent[i] = jet_add_scalar(jet_scale(t, bv[i], order), av[i]);
        jet inv_len = jet_recip(jet_sqrt(dot_jet(tangent, tangent, order), order), order);
        for (int i = 0; i < 3; ++i) tangent[i] = jet_mul(tangent[i], inv_len, order);
        osc_vec3 bn = q->binormal;
        jet normal[3] = {jet_sub(jet_scale(tangent[2], bn.y, order), jet_scale(tangent[1], bn.z, order), order),
                         jet_sub(jet_scale(tangent[0], bn.z, order), jet_scale(tangent[2], bn.x, order), order),
                         jet_sub(jet_scale(tangent[1], bn.x, order), jet_scale(tangent[0], bn.y, order), order)};
        local[0] = dot_jet(normal, y, order);
        local[1] = dot_const(bn, y, order);
        local[2] = dot_jet(tangent, y, order);
    } else {
        // z = R0^T y, then the rotation by -t angle about the fixed axis (Rodrigues)
        jet z[3];
        for (int i = 0; i < 3; ++i) z[i] = dot_const(osc_mat3_column(q->rotation_start, i), y, order);
        jet alpha = jet_scale(t, -q->angle, order);
        jet ca = jet_cos(alpha, order), sa = jet_sin(alpha, order);
        osc_vec3 k = q->axis;
        jet kz = dot_const(k, z, order);
        jet one_minus_c = jet_add_scalar(jet_neg(ca, order), 1.0);
        jet kxz[3] = {jet_sub(jet_scale(z[2], k.y, order), jet_scale(z[1], k.z, order), order),
                      jet_sub(jet_scale(z[0], k.z, order), jet_scale(z[2], k.x, order), order),
                      jet_sub(jet_scale(z[1], k.x, order), jet_scale(z[0], k.y, order), order)};
        double kv[3] = {k.x, k.y, k.z};
        for (int i = 0; i < 3; ++i) {
            jet r = jet_mul(z[i], ca, order);
            r = jet_add(r, jet_mul(kxz[i], sa, order), order);
            local[i] = jet_add(r, jet_scale(jet_mul(kz, one_minus_c, order), kv[i], order), order);
        }
    }
    jet a[3];
    for (int i = 0; i < 3; ++i) a[i] = bezier(q->scale[i], t, order);
    jet eps1 = bezier(q->exponent[0], t, order), eps2 = bezier(q->exponent[1], t, order);
    jet phi = sq_radial_distance(local, a, eps1, eps2, 1, order);
    if (q->plane_count == 0) return phi;
    jet_lse lse; // eq. (3) with the planes P(t)
    jet_lse_begin(&lse, q->plane_temperature);
    jet_lse_add(&lse, phi, order);
    for (int32_t j = 0; j < q->plane_count; ++j) {
        const osc_plane_profile* pp = &sdf->planes[q->plane_first + j];
        jet n[3];
        for (int i = 0; i < 3; ++i) {
            double c[3] = {osc_vec3_get(pp->start.normal, i), osc_vec3_get(pp->control.normal, i),
                           osc_vec3_get(pp->end.normal, i)};
            n[i] = bezier(c, t, order);
        }
        jet inv_len = jet_recip(jet_sqrt(dot_jet(n, n, order), order), order);
        for (int i = 0; i < 3; ++i) n[i] = jet_mul(n[i], inv_len, order);
        double h[3] = {pp->start.offset, pp->control.offset, pp->end.offset};
        jet_lse_add(&lse, plane_distance(local, n, bezier(h, t, order), order), order);
    }
    return jet_lse_end(&lse, order);
}

OSC_FORCE_INLINE void xpsq_eval_order(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 point, int order, jet* out) {
    const sdf_xpsq* q = &sdf->xpsqs[leaf->p.xpsq.index];
    jet x[3] = {jet_var(point.x, 0, order), jet_var(point.y, 1, order), jet_var(point.z, 2, order)};
    xpsq_branches r;
    xpsq_roots(q, x, order, &r);
    double tau_root = q->root_temperature;
    // eq. (6) merged at the level of distances (docs/xpsq.md): phi = [D < 0] phi(t^-) +
    // [D > 0] softmin_k phi(t^+_k). Merging the roots themselves would create blended candidates
    // that sweep the spline at a speed of order 1 / tau across the band and bump the distance
    // wherever they pass the closest point.
    jet phi_minus = jet_const(0.0, order), phi_plus = jet_const(0.0, order);
    if (r.w_minus.v > 0.0)
        phi_minus = xpsq_psq_at(sdf, q, x, jet_softclip(r.t_minus, 0.0, 1.0, tau_root, order), order);
    if (r.w_plus.v > 0.0) {
        // only minima of |x - p(t)|^2 compete, each weighted by a step of f'(s_k) that vanishes,
        // flat, where a pair of roots is born (Delta = 0): the branch then meets the one-root
        // branch smoothly, and being symmetric in the three roots it is single-valued around the
        // cusp of the evolute, where the roots permute (docs/xpsq.md)
        jet phi[3], y[3];
        for (int k = 0; k < 3; ++k) {
            phi[k] = xpsq_psq_at(sdf, q, x, jet_softclip(r.t_plus[k], 0.0, 1.0, tau_root, order), order);
            y[k] = jet_scale(r.slope[k], 1.0 / q->validity_scale, order);
        }
        phi_plus = soft_min_valid(phi, y, q->blend_temperature, order);
    }
    if (!(r.w_plus.v > 0.0))
        *out = phi_minus;
    else if (!(r.w_minus.v > 0.0))
        *out = phi_plus;
    else
        *out = jet_add(jet_mul(r.w_minus, phi_minus, order), jet_mul(r.w_plus, phi_plus, order), order);
}

void sdf_xpsq_eval(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    if (order == 0)
        xpsq_eval_order(sdf, leaf, x, 0, out);
    else if (order == 1)
        xpsq_eval_order(sdf, leaf, x, 1, out);
    else
        xpsq_eval_order(sdf, leaf, x, 2, out);
}

// ---------------------------------------------------------------------------------------------
// construction

static osc_status check_profile(const char* function, const char* name, osc_profile p, int exponent) {
    double c[3] = {p.start, p.control, p.end};
    const char* which[3] = {"start", "control", "end"};
    char full[64];
    for (int i = 0; i < 3; ++i) {
        snprintf(full, sizeof full, "%s.%s", name, which[i]);
        osc_status status =
            exponent ? sdf_check_exponent(function, full, c[i]) : sdf_check_length(function, full, c[i]);
        if (status) return status;
    }
    return OSC_OK;
}

// a unit vector perpendicular to d, from `hint` when it is not parallel to d
static osc_vec3 perpendicular(osc_vec3 d, osc_vec3 hint) {
    osc_vec3 v = osc_sub(hint, osc_scale(d, osc_dot(hint, d)));
    if (osc_length(v) > 1e-9 * (osc_length(hint) + 1e-300)) return osc_normalize(v);
    osc_vec3 axis = fabs(d.x) < fabs(d.y) ? (fabs(d.x) < fabs(d.z) ? osc_v3(1, 0, 0) : osc_v3(0, 0, 1))
                                          : (fabs(d.y) < fabs(d.z) ? osc_v3(0, 1, 0) : osc_v3(0, 0, 1));
    return osc_normalize(osc_cross(d, axis));
}

static osc_status check_planes(const char* function, const osc_xpsq_desc* desc) {
    if (desc->plane_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: plane_count is %d; it must be >= 0", function,
                        desc->plane_count);
    if (desc->plane_count > 0 && !desc->planes)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: planes is NULL with plane_count %d", function,
                        desc->plane_count);
    for (int j = 0; j < desc->plane_count; ++j) {
        const osc_plane* c[3] = {&desc->planes[j].start, &desc->planes[j].control, &desc->planes[j].end};
        const char* which[3] = {"start", "control", "end"};
        osc_vec3 unit[3];
        for (int i = 0; i < 3; ++i) {
            char name[48];
            snprintf(name, sizeof name, "planes[%d].%s", j, which[i]);
            double length;
            osc_status status = sdf_check_plane(function, name, *c[i], &length);
            if (status) return status;
            unit[i] = osc_scale(c[i]->normal, 1.0 / length);
        }
        // n(t) is a positive combination of the three normals: it cannot vanish when they all
        // point into one open half-space, which pairwise positive dot products guarantee
        for (int i = 0; i < 3; ++i)
            for (int k = i + 1; k < 3; ++k)
                if (!(osc_dot(unit[i], unit[k]) > 0.0))
                    return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                    "%s: planes[%d]: the normals of control planes %d and %d must "
                                    "make an angle below 90 degrees",
                                    function, j, i, k);
    }
    return OSC_OK;
}

static osc_status check_desc(const char* function, const osc_xpsq_desc* desc) {
    osc_status status = OSC_OK;
    for (int i = 0; i < 3; ++i) {
        char name[32];
        snprintf(name, sizeof name, "control_points[%d]", i);
        if ((status = sdf_check_point(function, name, desc->control_points[i]))) return status;
    }
    const char* axes[3] = {"scale[0]", "scale[1]", "scale[2]"};
    for (int i = 0; i < 3; ++i)
        if ((status = check_profile(function, axes[i], desc->scale[i], 0))) return status;
    if ((status = check_profile(function, "exponent[0]", desc->exponent[0], 1)) ||
        (status = check_profile(function, "exponent[1]", desc->exponent[1], 1)) ||
        (status = sdf_check_temperature(function, "plane_temperature", desc->plane_temperature)) ||
        (status = sdf_check_temperature(function, "discriminant_temperature", desc->discriminant_temperature)) ||
        (status = sdf_check_temperature(function, "root_temperature", desc->root_temperature)) ||
        (status = sdf_check_temperature(function, "blend_temperature", desc->blend_temperature)) ||
        (status = check_planes(function, desc)))
        return status;
    if (desc->frame != OSC_XPSQ_FRAME_FRENET && desc->frame != OSC_XPSQ_FRAME_INTERPOLATED)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: frame must be OSC_XPSQ_FRAME_FRENET or "
                        "OSC_XPSQ_FRAME_INTERPOLATED (got %d)",
                        function, (int)desc->frame);
    if (desc->frame == OSC_XPSQ_FRAME_INTERPOLATED &&
        (!osc_quat_is_normalizable(desc->rotation_start) || !osc_quat_is_normalizable(desc->rotation_end)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: rotation_start and rotation_end must be normalisable quaternions", function);
    if (desc->frame == OSC_XPSQ_FRAME_FRENET && !osc_vec3_is_finite(desc->binormal))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: binormal must be finite", function);
    return OSC_OK;
}

// Bounds of the sweep: the PSQ at t lies in its box [-a(t), a(t)] (LSE >= max), whose world
// half-extent along axis i is sum_j |R_ij(t)| a_j(t) around p(t). Sampled at 65 values of t; between
// samples the box moves by at most (max |p'| + |a|max * max angular speed) * dt / 2, added as a
// margin. The smooth minimum over roots is a weighted mean of PSQ values at points of the curve, so
// the sweep lies inside the union of these boxes.
static void xpsq_frame_at(const sdf_xpsq* q, double t, osc_mat3* rotation) {
    if (q->frame == OSC_XPSQ_FRAME_FRENET) {
        osc_vec3 tangent = osc_normalize(osc_add_scaled(q->a, q->b, t));
        *rotation = osc_mat3_from_columns(osc_cross(q->binormal, tangent), q->binormal, tangent);
    } else {
        osc_quat turn = osc_quat_from_axis_angle(q->axis, t * q->angle);
        *rotation = osc_mat3_mul(q->rotation_start, osc_quat_to_mat3(turn));
    }
}

static double profile_at(const double c[3], double t) {
    return (1 - t) * (1 - t) * c[0] + 2 * t * (1 - t) * c[1] + t * t * c[2];
}

static void xpsq_bounds(const sdf_xpsq* q, osc_vec3* lo, osc_vec3* hi) {
    enum { SAMPLES = 64 };
    double max_speed = 0.0, max_turn = 0.0, max_radius = 0.0;
    *lo = osc_v3(INFINITY, INFINITY, INFINITY);
    *hi = osc_v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i <= SAMPLES; ++i) {
        double t = (double)i / SAMPLES;
        osc_vec3 velocity = osc_scale(osc_add_scaled(q->a, q->b, t), 2.0);
        double speed = osc_length(velocity);
        max_speed = fmax(max_speed, speed);
        // angular speed of the frame: kappa |p'| = |p' x p''| / |p'|^2 (Frenet), or the fixed rate
        double turn = q->frame == OSC_XPSQ_FRAME_FRENET
                          ? osc_length(osc_cross(velocity, osc_scale(q->b, 2.0))) / (speed * speed)
                          : q->angle;
        max_turn = fmax(max_turn, turn);
        osc_mat3 r;
        xpsq_frame_at(q, t, &r);
        double a[3] = {profile_at(q->scale[0], t), profile_at(q->scale[1], t), profile_at(q->scale[2], t)};
        max_radius = fmax(max_radius, sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
        osc_vec3 p = osc_add(osc_add(q->p1, osc_scale(q->a, 2.0 * t)), osc_scale(q->b, t * t));
        double e[3];
        for (int row = 0; row < 3; ++row)
            e[row] = fabs(r.m[row][0]) * a[0] + fabs(r.m[row][1]) * a[1] + fabs(r.m[row][2]) * a[2];
        *lo = osc_v3(fmin(lo->x, p.x - e[0]), fmin(lo->y, p.y - e[1]), fmin(lo->z, p.z - e[2]));
        *hi = osc_v3(fmax(hi->x, p.x + e[0]), fmax(hi->y, p.y + e[1]), fmax(hi->z, p.z + e[2]));
    }
    double margin = (max_speed + max_radius * max_turn) * 0.5 / SAMPLES;
    *lo = osc_sub(*lo, osc_v3(margin, margin, margin));
    *hi = osc_add(*hi, osc_v3(margin, margin, margin));
}

osc_status osc_sdf_create_xpsq(const osc_xpsq_desc* desc, osc_sdf** out) {
    const char* function = "osc_sdf_create_xpsq";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!desc) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc is NULL", function);
    osc_status status = check_desc(function, desc);
    if (status) return status;

    sdf_xpsq q;
    memset(&q, 0, sizeof q);
    osc_vec3 p1 = desc->control_points[0], p2 = desc->control_points[1], p3 = desc->control_points[2];
    q.p1 = p1;
    q.a = osc_sub(p2, p1);
    q.b = osc_add(osc_sub(p1, osc_scale(p2, 2.0)), p3);
    double la = osc_length(q.a), lb = osc_length(q.b);
    if (!(la + lb > 0.0)) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the three control points coincide", function);
    // p'(t) / 2 = a + t b must not vanish on [0, 1]: a straight spline that turns back
    double t_min = lb > 0.0 ? -osc_dot(q.a, q.b) / (lb * lb) : 0.0;
    t_min = t_min < 0.0 ? 0.0 : (t_min > 1.0 ? 1.0 : t_min);
    if (!(osc_length(osc_add_scaled(q.a, q.b, t_min)) > 1e-9 * (la + lb)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the spline stops and turns back on itself at t = %g (collinear control "
                        "points with p2 outside [p1, p3])",
                        function, t_min);
    q.straight = lb <= 1e-12 * la;
    if (q.straight) q.b = osc_v3(0.0, 0.0, 0.0);
    q.cubic_a = osc_dot(q.b, q.b);
    q.cubic_b = 3.0 * osc_dot(q.a, q.b);
    q.two_a_dot_a = 2.0 * osc_dot(q.a, q.a);
    // f'(s) = 2 |a + t b|^2 (1 - kappa d_n) / |b|^2 at a root (d_n: distance toward the centre of
    // curvature). The validity step spans twice the smallest on-curve value, the widest ramp that
    // still leaves every candidate near the surface at full weight: the factor 2 was measured as the
    // one that keeps |grad phi| closest to 1 outside isotropic sweeps (docs/xpsq.md).
    q.validity_scale = lb > 0.0 ? 2.0 * 2.0 * osc_length_squared(osc_add_scaled(q.a, q.b, t_min)) / (lb * lb) : 1.0;
    q.frame = desc->frame;
    osc_vec3 axb = osc_cross(q.a, q.b);
    if (osc_length(axb) > 1e-12 * la * lb) {
        q.binormal = osc_normalize(axb); // the Frenet binormal, constant for a planar curve
    } else {
        osc_vec3 direction = osc_normalize(la > 0.0 ? q.a : q.b);
        q.binormal = perpendicular(direction, desc->binormal);
    }
    osc_quat q0 = osc_quat_normalize(desc->rotation_start), q1 = osc_quat_normalize(desc->rotation_end);
    q.rotation_start = osc_quat_to_mat3(q0);
    osc_vec3 rotvec = osc_quat_log(osc_quat_mul(osc_quat_conj(q0), q1)); // R0^T R1 in R0's frame
    q.angle = osc_length(rotvec);
    q.axis = q.angle > 0.0 ? osc_scale(rotvec, 1.0 / q.angle) : osc_v3(0.0, 0.0, 1.0);
    for (int i = 0; i < 3; ++i) {
        q.scale[i][0] = desc->scale[i].start;
        q.scale[i][1] = desc->scale[i].control;
        q.scale[i][2] = desc->scale[i].end;
    }
    for (int i = 0; i < 2; ++i) {
        q.exponent[i][0] = desc->exponent[i].start;
        q.exponent[i][1] = desc->exponent[i].control;
        q.exponent[i][2] = desc->exponent[i].end;
    }
    q.plane_temperature = desc->plane_temperature;
    q.discriminant_temperature = desc->discriminant_temperature;
    q.root_temperature = desc->root_temperature;
    q.blend_temperature = desc->blend_temperature;
    q.plane_first = 0;
    q.plane_count = desc->plane_count;

    osc_plane_profile* planes = NULL;
    if (desc->plane_count) {
        planes = osc_calloc((size_t)desc->plane_count, sizeof *planes);
        if (!planes) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
        for (int j = 0; j < desc->plane_count; ++j) planes[j] = desc->planes[j];
    }
    osc_vec3 lo, hi;
    xpsq_bounds(&q, &lo, &hi);
    sdf_leaf leaf = {.kind = SDF_LEAF_XPSQ};
    leaf.p.xpsq.index = 0;
    // a curved sweep of a section that is not round in its normal plane has thin steep bands along
    // the evolute and no finite bound at its cusp (docs/xpsq.md): its Lipschitz value is an estimate
    int round = desc->plane_count == 0;
    for (int i = 0; i < 3; ++i) round &= q.scale[0][i] == q.scale[0][0] && q.scale[1][i] == q.scale[0][0];
    for (int i = 0; i < 3; ++i) round &= q.exponent[1][i] == 1.0;
    int frame_round = q.frame == OSC_XPSQ_FRAME_FRENET; // the section's x-y plane is the normal plane
    sdf_lipschitz_kind kind = (q.straight || (round && frame_round)) ? SDF_LIPSCHITZ_SAMPLED : SDF_LIPSCHITZ_ESTIMATE;
    status = sdf_create_leaf(function, &leaf, planes, desc->plane_count, &q, lo, hi, kind, out);
    osc_free(planes);
    return status;
}
