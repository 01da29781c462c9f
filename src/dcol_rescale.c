// dcol_rescale.c: near-coincident origins solved at a separation scaled up (docs/dcol.md §3.8).
// alpha is the gauge of the Minkowski sum A_0 + (-B_0) at d = r_B - r_A, homogeneous of degree 1 in
// d at fixed orientations, and x - r_A = alpha y_A with y_A on A's surface: the pair posed with A
// at the origin and B at k d has alpha k times as large, x - r_A k times as long, and the same
// contact points relative to their origins and the same normal. Solved there with alpha of order
// 1, every threshold and tolerance of the solve means what it does at contact; mapped back, the
// answer has alpha's relative accuracy instead of its absolute one.

#include "dcol_internal.h"

#include <string.h>

// the share of sqrt(size (rho_A + rho_B)) below which a separation is scaled up to it
static const double RESCALE_SHARE = 0.1;

double dcol_rescale_factor(const dcol_query* query) {
    if (query->settings.tolerance > DCOL_CLOSED_FORM_MAX_BARRIER) return 1.0;
    const osc_convex *a = query->a, *b = query->b;
    double size = a->bounding_radius + b->bounding_radius;
    double separation2 = osc_length_squared(osc_sub(query->pose_b.p, query->pose_a.p));
    // alpha lies between separation / size and separation / (the inner radii's sum): at a tenth of
    // the geometric mean of the two as separation, between sqrt(inner / size) / 10 and
    // sqrt(size / inner) / 10 (a contact at alpha near 1, where nothing needs scaling, is never
    // scaled; squares compared: no square root for the pairs that are not)
    double target2 = RESCALE_SHARE * RESCALE_SHARE * size * (a->inner_radius + b->inner_radius);
    double coincident = DCOL_COINCIDENT_SEPARATION * size;
    if (!(separation2 < target2 && separation2 > coincident * coincident)) return 1.0;
    return sqrt(target2 / separation2);
}

void dcol_rescale_query(const dcol_query* query, double k, dcol_query* scaled) {
    *scaled = *query;
    scaled->pose_a.p = osc_v3(0.0, 0.0, 0.0);
    scaled->pose_b.p = osc_scale(osc_sub(query->pose_b.p, query->pose_a.p), k);
}

void dcol_rescale_warm_start(const dcol_query* query, double k, bool inward, const osc_dcol_warm_start* in,
                             osc_dcol_warm_start* out) {
    *out = *in;
    // x - r_A, alpha and the slacks (lengths) scale by k: into the scaled pair, and back
    double factor = inward ? k : 1.0 / k;
    osc_vec3 x = osc_v3(in->solution[0], in->solution[1], in->solution[2]);
    osc_vec3 moved =
        inward ? osc_scale(osc_sub(x, query->pose_a.p), factor) : osc_add_scaled(query->pose_a.p, x, factor);
    out->solution[0] = moved.x;
    out->solution[1] = moved.y;
    out->solution[2] = moved.z;
    for (int j = 3; j < OSC_DCOL_MAX_VARIABLES; ++j) out->solution[j] = in->solution[j] * factor;
}

void dcol_rescale_result(const dcol_query* query, double k, osc_dcol_result* result) {
    osc_vec3 gap = osc_sub(query->pose_b.p, query->pose_a.p);
    osc_vec3 scaled_b = osc_scale(gap, k);
    double separation = osc_length(gap), scaled_alpha = result->alpha;
    // contact points relative to their origins are the same; x - r_A and alpha scale by k
    result->point_a = osc_add(query->pose_a.p, result->point_a);
    result->point_b = osc_add(query->pose_b.p, osc_sub(result->point_b, scaled_b));
    result->point = osc_add_scaled(query->pose_a.p, result->point, 1.0 / k);
    result->alpha = scaled_alpha / k;
    // eq. (30), (1 - 1/alpha) L = L - (k L) / (k alpha)
    result->distance = separation - k * separation / scaled_alpha;
}

osc_dcol_jacobians dcol_rescale_jacobian_request(const osc_dcol_jacobians* wanted, double rows[6][36]) {
    osc_dcol_jacobians request = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (wanted->alpha || wanted->distance) request.alpha = rows[0];
    if (wanted->point) request.point = rows[1];
    if (wanted->point_a) request.point_a = rows[2];
    if (wanted->point_b) request.point_b = rows[3];
    if (wanted->normal) request.normal = rows[5];
    return request;
}

// The answer of the scaled pair depends on the direction u = d / |d| alone (its separation is
// k |d| = s, fixed), and an output of degree g in d (alpha and x - r_A: 1; the contact points
// relative to their origins and the normal: 0) is y = y^(s u) (|d| / s)^g. By B's translation
// that is dy/dd = k^(1-g) (dy^/dd^) (I - u u^T) + g (y^ / s) u^T: the scaled solve's
// B translation columns with their part along u replaced by the homogeneous one (the same at an
// exact optimum, by Euler's identity; at a central point the answer is this function exactly).
typedef struct rescale_rule {
    double factor;         // k^(1-g), times the columns of an output's own scaled row
    double shift;          // a multiple of e_axis added (how the output moves with r_B itself)
    double along;          // g y^ / s, or a constant, times u^T
    double moved;          // how the output moves when both origins do (1 for a point, 0 else)
    double rotation_scale; // k^-g
} rescale_rule;

// One Jacobian row (component `axis` of a vector output, -1 for a scalar) from the scaled solve's
// row `in`: B's translation by the rule above, A's by translation invariance (moving both origins
// moves a point with them), the rotations scaled
static void rescale_row(const double* in, double* out, rescale_rule rule, int axis, osc_vec3 u) {
    double dot = in[6] * u.x + in[7] * u.y + in[8] * u.z;
    for (int c = 0; c < 3; ++c) {
        double u_c = osc_vec3_get(u, c), own = c == axis ? 1.0 : 0.0;
        double b = rule.factor * (in[6 + c] - dot * u_c) + rule.shift * own + rule.along * u_c;
        out[3 + c] = in[3 + c] * rule.rotation_scale;
        out[9 + c] = in[9 + c] * rule.rotation_scale;
        out[6 + c] = b;
        out[c] = rule.moved * own - b;
    }
}

void dcol_rescale_jacobians(const dcol_query* query, double k, const osc_dcol_result* scaled,
                            const osc_dcol_jacobians* in, const osc_dcol_jacobians* out) {
    osc_vec3 gap = osc_sub(query->pose_b.p, query->pose_a.p);
    osc_vec3 u = osc_normalize(gap);
    double size = k * osc_length(gap), alpha = scaled->alpha;
    if (out->alpha) rescale_row(in->alpha, out->alpha, (rescale_rule){1.0, 0.0, alpha / size, 0.0, 1.0 / k}, -1, u);
    for (int i = 0; i < 3; ++i) {
        double u_i = osc_vec3_get(u, i);
        // x = r_A + x^ / k (A is at the origin of the scaled pair)
        if (out->point)
            rescale_row(in->point + 12 * i, out->point + 12 * i,
                        (rescale_rule){1.0, 0.0, osc_vec3_get(scaled->point, i) / size, 1.0, 1.0 / k}, i, u);
        // p_A = r_A + p_A^ and p_B = r_B + (p_B^ - s u): p_B^ - s u moves by (dp_B^/dd^ - I) k (I - u u^T)
        if (out->point_a)
            rescale_row(in->point_a + 12 * i, out->point_a + 12 * i, (rescale_rule){k, 0.0, 0.0, 1.0, 1.0}, i, u);
        if (out->point_b)
            rescale_row(in->point_b + 12 * i, out->point_b + 12 * i, (rescale_rule){k, 1.0 - k, k * u_i, 1.0, 1.0}, i,
                        u);
        if (out->normal)
            rescale_row(in->normal + 12 * i, out->normal + 12 * i, (rescale_rule){k, 0.0, 0.0, 0.0, 1.0}, -1, u);
    }
    if (out->distance) {
        // eq. (30) as |d| - s / alpha^(s u): by B's translation u^T + (k s / alpha^2) d alpha^/dd^
        // (I - u u^T), by a rotation (s / alpha^2) d alpha^ / dtheta
        double ratio = size / (alpha * alpha);
        rescale_row(in->alpha, out->distance, (rescale_rule){k * ratio, 0.0, 1.0, 0.0, ratio}, -1, u);
    }
}
