// dcol_exact.c: the exact optimum of a point contact and its derivatives (docs/dcol.md §3.7, §4.6).
// Where the support walk ends at a contact with at most two tied vertex differences, the optimum
// alpha (S_A + S_B) = d is an analytic function of the poses, and its tangent solves the walk's
// optimality conditions linearised: at most 4 unknowns, no interior-point solve at all.

#include "dcol_internal.h"

#include <string.h>

// the smallest curvature, relative to its trace, that a contact without ties must have in every
// direction of the plane (det Hbar against trace^2), or a single tie along its line (against the
// trace): below, the contact is flat to working precision and the conic path answers
static const double EXACT_MIN_CURVATURE = 1e-12;
// the smallest sine of the angle between two ties' directions on the plane
static const double EXACT_MIN_TIE_SINE = 1e-6;

bool dcol_exact_prepare(dcol_exact_contact* c) {
    // n / |n| (osc_normalize's value, for the basis and the result's normal) and 1 / |n|, once
    double length = osc_length(c->n);
    c->inverse_length = 1.0 / length;
    c->unit = length > 0.0 && isfinite(length) ? osc_scale(c->n, c->inverse_length) : osc_v3(0.0, 0.0, 0.0);
    dcol_plane_basis(c->unit, &c->t1, &c->t2);
    osc_vec3 t[2] = {c->t1, c->t2};
    // Hbar = T^T (H_A + H_B) T, Abar_j = (tie_j . t1, tie_j . t2)
    double hbar[2][2], abar[2][2];
    hbar[0][0] = hbar[0][1] = hbar[1][0] = hbar[1][1] = 0.0;
    for (int k = 0; k < 2; ++k)
        if (c->curved[k])
            for (int l = 0; l < 2; ++l) {
                osc_vec3 bent = osc_mat3_apply(c->curvature[k], t[l]);
                hbar[0][l] += osc_dot(t[0], bent);
                hbar[1][l] += osc_dot(t[1], bent);
            }
    for (int j = 0; j < c->tie_count; ++j)
        for (int i = 0; i < 2; ++i) abar[j][i] = osc_dot(c->tie[j], t[i]);
    double trace = hbar[0][0] + hbar[1][1];
    if (c->tie_count == 0) {
        double det = hbar[0][0] * hbar[1][1] - hbar[0][1] * hbar[1][0];
        if (!(det > EXACT_MIN_CURVATURE * trace * trace)) return false;
    } else if (c->tie_count == 1) {
        // the curvature along the tie's line p = (-a_2, a_1) (across its direction a on the plane),
        // p^T Hbar p / |p|^2, against the trace
        double u1 = -abar[0][1], u2 = abar[0][0], length2 = u1 * u1 + u2 * u2;
        if (!(length2 > 0.0)) return false;
        double along = hbar[0][0] * u1 * u1 + 2.0 * hbar[0][1] * u1 * u2 + hbar[1][1] * u2 * u2;
        if (!(along > EXACT_MIN_CURVATURE * trace * length2)) return false;
    } else {
        double det = abar[0][0] * abar[1][1] - abar[0][1] * abar[1][0];
        double lengths =
            (abar[0][0] * abar[0][0] + abar[0][1] * abar[0][1]) * (abar[1][0] * abar[1][0] + abar[1][1] * abar[1][1]);
        if (!(det * det > EXACT_MIN_TIE_SINE * EXACT_MIN_TIE_SINE * lengths)) return false;
    }
    // K^-1 of K = [alpha Hbar, alpha Abar^T; Abar, 0] in closed form per tie count (docs/dcol.md
    // §4.6): rows 0, 1 give dn's plane coordinates, rows 2 + j the ties' weights
    double(*inverse)[4] = c->inverse;
    double h00 = hbar[0][0], h01 = 0.5 * (hbar[0][1] + hbar[1][0]), h11 = hbar[1][1], inverse_alpha = 1.0 / c->alpha;
    if (c->tie_count == 0) {
        // alpha Hbar alone
        double scaled = inverse_alpha / (h00 * h11 - h01 * h01);
        inverse[0][0] = h11 * scaled;
        inverse[0][1] = inverse[1][0] = -h01 * scaled;
        inverse[1][1] = h00 * scaled;
    } else if (c->tie_count == 1) {
        // one tie a: v = a / |a|^2 meets it, p = a^perp spans the line; eta = p^T Hbar p
        double a0 = abar[0][0], a1 = abar[0][1], aa = a0 * a0 + a1 * a1;
        double v0 = a0 / aa, v1 = a1 / aa, p0 = -a1, p1 = a0;
        double hp0 = h00 * p0 + h01 * p1, hp1 = h01 * p0 + h11 * p1;
        double eta = p0 * hp0 + p1 * hp1, vhp = v0 * hp0 + v1 * hp1;
        double vhv = v0 * (h00 * v0 + h01 * v1) + v1 * (h01 * v0 + h11 * v1);
        double ratio = vhp / eta, across = inverse_alpha / eta;
        inverse[0][0] = p0 * p0 * across;
        inverse[0][1] = inverse[1][0] = p0 * p1 * across;
        inverse[1][1] = p1 * p1 * across;
        inverse[0][2] = v0 - p0 * ratio;
        inverse[1][2] = v1 - p1 * ratio;
        inverse[2][0] = inverse[0][2] * inverse_alpha;
        inverse[2][1] = inverse[1][2] * inverse_alpha;
        inverse[2][2] = -(vhv - vhp * ratio);
    } else {
        // two ties: Abar is square, dn = Abar^-1 r_ties, w = Abar^-T (r_plane / alpha - Hbar dn)
        double det = abar[0][0] * abar[1][1] - abar[0][1] * abar[1][0];
        double y[2][2] = {{abar[1][1] / det, -abar[0][1] / det}, {-abar[1][0] / det, abar[0][0] / det}}; // Abar^-1
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                inverse[i][j] = 0.0;
                inverse[i][2 + j] = y[i][j];
                inverse[2 + j][i] = y[i][j] * inverse_alpha;
            }
        double hy[2][2]; // Hbar Abar^-1
        for (int i = 0; i < 2; ++i)
            for (int k = 0; k < 2; ++k) hy[i][k] = (i == 0 ? h00 : h01) * y[0][k] + (i == 0 ? h01 : h11) * y[1][k];
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 2; ++k) inverse[2 + j][2 + k] = -(y[0][j] * hy[0][k] + y[1][j] * hy[1][k]);
    }
    // every entry finite: x - x is 0 for a finite x and NaN for an infinite one or NaN, so the
    // sum is 0 exactly when all are finite (one test instead of one per entry)
    int size = 2 + c->tie_count;
    double probe = 0.0;
    for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j) probe += inverse[i][j] - inverse[i][j];
    return probe == 0.0;
}

void dcol_exact_result(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, osc_dcol_result* result) {
    const dcol_exact_contact* c = &dp->contact;
    memset(result, 0, sizeof *result);
    result->alpha = c->alpha;
    // x from both origins in world units, r_A + alpha s S_A and r_B - alpha s S_B weighted by the
    // other body's inner radius (as the walk's optimum): a body much smaller than its partner then
    // has x, and its contact point, to the rounding of its own size, not of the pair's
    double inner_a = dp->body[0].shape->inner_radius, inner_b = dp->body[1].shape->inner_radius;
    double length = c->alpha * dp->scale;
    osc_vec3 from_a = osc_add_scaled(pose_a.p, c->support[0], length);
    osc_vec3 from_b = osc_add_scaled(pose_b.p, c->support[1], -length);
    result->point = osc_add_scaled(from_a, osc_sub(from_b, from_a), inner_a / (inner_a + inner_b));
    if (dcol_contact_points(pose_a, pose_b, dp->scale, result)) result->normal = c->unit;
}

// One group of three columns of exact_tangents_n (0: A's translation, 1: A's rotation, 2: B's
// rotation), the group a constant so that its branches fold
OSC_FORCE_INLINE void exact_group_n(const int size, const int group, const dcol_exact_contact* c, double scale,
                                    const double dalpha[12], bool normal, const osc_vec3 D[4], const osc_vec3 P[4],
                                    const double t_sum[2], double dx[3][12], double dnormal[3][12]) {
    const int ties = size - 2;
    double alpha = c->alpha;
    osc_vec3 n = c->n;
    const osc_vec3 t[2] = {c->t1, c->t2};
    const int first = group == 0 ? 0 : group == 1 ? 3 : 9, body = group == 2 ? 1 : 0;
    const bool rotation = group > 0;
    double b[4][3] = {{0.0}};
    // the moved share of dx that comes from R_A: (-[S_A]x + H_A [n]x) e_i, A's rotation only
    osc_vec3 turn_part[3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    if (rotation) {
        osc_vec3 across[2];
        for (int j = 0; j < 2; ++j) {
            across[j] = osc_cross(c->support[body], t[j]);
            if (c->curved[body])
                across[j] = osc_sub(across[j], osc_cross(n, osc_mat3_apply(c->curvature[body], t[j])));
        }
        for (int i = 0; i < 3; ++i) {
            double da = dalpha[first + i];
            b[0][i] = -da * t_sum[0] - alpha * osc_vec3_get(across[0], i);
            b[1][i] = -da * t_sum[1] - alpha * osc_vec3_get(across[1], i);
        }
        for (int j = 0; j < ties; ++j)
            if (c->tie_body[j] == body) {
                osc_vec3 lever = osc_cross(c->tie[j], n);
                for (int i = 0; i < 3; ++i) b[2 + j][i] = -osc_vec3_get(lever, i);
            }
        if (body == 0) {
            osc_vec3 support = c->support[0];
            // e_i x S and H_A (n x e_i), the cross products with a unit axis written out
            turn_part[0] = osc_v3(0.0, -support.z, support.y);
            turn_part[1] = osc_v3(support.z, 0.0, -support.x);
            turn_part[2] = osc_v3(-support.y, support.x, 0.0);
            if (c->curved[0]) {
                const osc_vec3 n_cross[3] = {osc_v3(0.0, n.z, -n.y), osc_v3(-n.z, 0.0, n.x),
                                             osc_v3(n.y, -n.x, 0.0)};
                for (int i = 0; i < 3; ++i)
                    turn_part[i] = osc_add(turn_part[i], osc_mat3_apply(c->curvature[0], n_cross[i]));
            }
        }
    } else {
        for (int i = 0; i < 3; ++i) {
            double da = dalpha[i];
            b[0][i] = -(osc_vec3_get(t[0], i) / scale + da * t_sum[0]);
            b[1][i] = -(osc_vec3_get(t[1], i) / scale + da * t_sum[1]);
        }
    }
    for (int i = 0; i < 3; ++i) {
        osc_vec3 dn = osc_v3(0.0, 0.0, 0.0);
        osc_vec3 point = osc_scale(c->support[0], scale * dalpha[first + i]);
        if (rotation && body == 0) point = osc_add_scaled(point, turn_part[i], scale * alpha);
        if (!rotation) point = osc_add(point, osc_v3(i == 0, i == 1, i == 2)); // x carries dp_A
        for (int k = 0; k < size; ++k) point = osc_add_scaled(point, P[k], b[k][i]);
        if (normal)
            for (int k = 0; k < size; ++k) dn = osc_add_scaled(dn, D[k], b[k][i]);
        for (int r = 0; r < 3; ++r) {
            dx[r][first + i] = osc_vec3_get(point, r);
            dnormal[r][first + i] = osc_vec3_get(dn, r);
        }
    }
}

// The tangents of dx and dn (unnormalised) for A's translation, A's rotation and B's rotation
// (columns 0-5 and 9-11) by the formulas above dcol_exact_jacobians, with the size of the system
// (2 + ties) a constant so that the loops over it unroll (dcol_exact_jacobians dispatches on it)
OSC_FORCE_INLINE void exact_tangents_n(const int size, const dcol_exact_contact* c, double scale, const double dalpha[12],
                                       bool normal, double dx[3][12], double dnormal[3][12]) {
    const int ties = size - 2;
    double alpha = c->alpha;
    osc_vec3 sum = osc_add(c->support[0], c->support[1]);
    // D = [t1 t2] K^-1 (rows 0, 1) and P = scale alpha (H_A D + sum over A's ties tie_j K^-1 (row 2 + j))
    osc_vec3 D[4], P[4];
    const double(*inverse)[4] = c->inverse; // K^-1 (dcol_exact_prepare)
    for (int k = 0; k < size; ++k) {
        D[k] = osc_add(osc_scale(c->t1, inverse[0][k]), osc_scale(c->t2, inverse[1][k]));
        osc_vec3 moved = c->curved[0] ? osc_mat3_apply(c->curvature[0], D[k]) : osc_v3(0.0, 0.0, 0.0);
        for (int j = 0; j < ties; ++j)
            if (c->tie_body[j] == 0) moved = osc_add_scaled(moved, c->tie[j], inverse[2 + j][k]);
        P[k] = osc_scale(moved, scale * alpha);
    }
    const double t_sum[2] = {osc_dot(c->t1, sum), osc_dot(c->t2, sum)};
    // the three groups of columns solved: A's translation (0-2), A's rotation (3-5), B's (9-11)
    exact_group_n(size, 0, c, scale, dalpha, normal, D, P, t_sum, dx, dnormal);
    exact_group_n(size, 1, c, scale, dalpha, normal, D, P, t_sum, dx, dnormal);
    exact_group_n(size, 2, c, scale, dalpha, normal, D, P, t_sum, dx, dnormal);
}

// Per twist column (A's translation, A's rotation, B's translation, B's rotation; docs/dcol.md
// §4.6), in normalised units: dd = (dp_B - dp_A) / scale, and a rotation dtheta of body X turns
// its support point at fixed n and weights by R = dtheta x S_X - H_X (dtheta x n) and its ties by
// dtheta x tie. Then
//     dalpha = alpha (n . dd - alpha n . R)                      (the balance along n)
//     alpha (Hbar dn + Abar^T dw) = T^T (dd - dalpha S - alpha R)  (across n)
//     Abar dn = -((dtheta x tie_j) . n)                           (the ties kept)
// and dS_A = R_A + H_A dn + sum over A's ties dw_j tie_j, dx = dp_A + scale (dalpha S_A + alpha dS_A),
// dnormal = dn / |n| (dn is across n). With the system's inverse K^-1 formed once, dn = D b and
// the part of dx that the solve moves, scale alpha (H_A dn + sum dw_j tie_j) = P b, are 3 x (2 + ties)
// maps of the right-hand side b. Per axis i of a rotation of X, with n . (e_i x v) = e_i . (v x n):
//     dalpha_i = -alpha^2 (S_X x n)_i,   (T^T R)_j,i = (S_X x t_j - n x H_X t_j)_i,
//     tie rows -(tie_j x n)_i,   R_A's share of dx: -[S_A]x + H_A [n]x applied to e_i;
// per axis of A's translation dalpha_i = -alpha n_i / scale and b_j,i = -(t_j,i / scale + dalpha_i
// t_j . S). B's translations are minus A's (only d = r'_B - r'_A enters), but for dx's own dp_A.
void dcol_exact_jacobians(const dcol_problem* dp, osc_pose pose_a, osc_pose pose_b, const osc_dcol_result* result,
                          const osc_dcol_jacobians* jac) {
    const dcol_exact_contact* c = &dp->contact;
    double scale = dp->scale, alpha = c->alpha;
    osc_vec3 n = c->n;
    bool tangents = jac->point || jac->point_a || jac->point_b || jac->normal;
    int size = 2 + c->tie_count;
    double dalpha[12], dx[3][12], dnormal[3][12];
    const double n_[3] = {n.x, n.y, n.z};
    // alpha's row: A's translation, A's rotation, then B's by the same rules
    for (int body = 0; body < 2; ++body) {
        osc_vec3 twist = osc_scale(osc_cross(c->support[body], n), -alpha * alpha);
        const double rotation[3] = {twist.x, twist.y, twist.z};
        for (int i = 0; i < 3; ++i) {
            dalpha[6 * body + i] = (body == 0 ? -alpha : alpha) * n_[i] / scale;
            dalpha[6 * body + 3 + i] = rotation[i];
        }
    }
    if (jac->alpha) memcpy(jac->alpha, dalpha, sizeof dalpha);
    if (!tangents) {
        if (jac->distance) dcol_point_jacobians(pose_a, pose_b, result, dalpha, NULL, jac);
        return;
    }
    switch (size) {
        case 2: exact_tangents_n(2, c, scale, dalpha, jac->normal != NULL, dx, dnormal); break;
        case 3: exact_tangents_n(3, c, scale, dalpha, jac->normal != NULL, dx, dnormal); break;
        default: exact_tangents_n(4, c, scale, dalpha, jac->normal != NULL, dx, dnormal); break;
    }
    // B's translation: minus A's, and x keeps no dp_A
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 3; ++i) {
            dx[r][6 + i] = (r == i) - dx[r][i];
            dnormal[r][6 + i] = -dnormal[r][i];
        }
    if (jac->point) memcpy(jac->point, dx, sizeof dx);
    if (jac->normal) {
        double inverse_length = c->inverse_length;
        for (int r = 0; r < 3; ++r)
            for (int column = 0; column < 12; ++column)
                jac->normal[12 * r + column] = dnormal[r][column] * inverse_length;
    }
    dcol_point_jacobians(pose_a, pose_b, result, dalpha, &dx[0][0], jac);
}
