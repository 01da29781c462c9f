// dcol_parameters.c: d alpha / d(shape parameters) by one adjoint solve (docs/dcol.md §4.4).
//
// With u = H^-1 e_alpha and q = W^-2 G u, a change dG, dh of the problem data moves alpha by
//     d alpha = -(z^T dG u + q^T (dG v - dh)),  v = (x', alpha, slacks')
// (the implicit function theorem on the KKT system, contracted with the adjoint u). A shape's
// parameters enter only its rows gbar (in its conic frame, convex_internal.h), and in those terms
// the change of row i is
//     d alpha = sum_col dgbar_i,col D_i,col,  D_i,col = -(z_i U_col + q_i Y_col)
// with U = (Q^T u_x, u_alpha / scale, u_slacks) and Y = (Q^T (x' - r'), alpha / scale, slacks').
// Each kind then chains D through its conic rows (convex.c).

#include "dcol_internal.h"

#include <string.h>

int osc_dcol_parameter_count(const osc_convex* shape) {
    if (!shape) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shape is NULL", __func__);
        return 0;
    }
    switch (shape->kind) {
        case OSC_CONVEX_SPHERE: return 1;
        case OSC_CONVEX_CAPSULE:
        case OSC_CONVEX_CYLINDER:
        case OSC_CONVEX_CONE: return 2;
        case OSC_CONVEX_ELLIPSOID: return 3;
        case OSC_CONVEX_POLYTOPE: return 4 * shape->face_count;
        case OSC_CONVEX_POLYGON: return 3 * shape->face_count + 1;
        case OSC_CONVEX_INVALID: break;
    }
    return 0;
}

// D [rows of the shape][6] of body `which` (its local row order: orthant rows, then cone rows)
static void row_sensitivities(const dcol_problem* dp, int which, const double* u, const double* q,
                              double (*D)[CONVEX_COLUMNS]) {
    const dcol_body* body = &dp->body[which];
    const double* x = dp->state.x;
    osc_mat3 rt = osc_mat3_transpose(body->rotation);
    osc_vec3 u_y = osc_mat3_apply(rt, osc_v3(u[0], u[1], u[2]));
    osc_vec3 y = osc_mat3_apply(rt, osc_sub(osc_v3(x[0], x[1], x[2]), body->origin));
    double U[CONVEX_COLUMNS] = {u_y.x, u_y.y, u_y.z, u[3] / dp->scale, 0, 0};
    double Y[CONVEX_COLUMNS] = {y.x, y.y, y.z, x[3] / dp->scale, 0, 0};
    for (int t = 0; t < body->shape->slack_count; ++t) {
        U[CONVEX_COLUMN_SLACK + t] = u[body->slack_column + t];
        Y[CONVEX_COLUMN_SLACK + t] = x[body->slack_column + t];
    }
    int local = 0;
    for (int range = 0; range < 2; ++range)
        for (int i = body->row_ranges[range][0]; i < body->row_ranges[range][1]; ++i, ++local)
            for (int c = 0; c < CONVEX_COLUMNS; ++c) D[local][c] = -(dp->state.z[i] * U[c] + q[i] * Y[c]);
}

// a halfspace row stored as the unit (a, b) of a row (A, beta) of length k = |A| as given:
// d alpha / dA = ((I - a a^T) g_a - g_b b a) / k and d alpha / d beta = g_b / k, where g_a, g_b
// are the sensitivities to the unit row's normal and offset
static void raw_halfspace_gradient(const double* a, double b, double k, const double* g_a, double g_b, int width,
                                   double* d_normal, double* d_offset) {
    double a_dot_g = 0.0;
    for (int c = 0; c < width; ++c) a_dot_g += a[c] * g_a[c];
    for (int c = 0; c < width; ++c) d_normal[c] = (g_a[c] - a[c] * a_dot_g - g_b * b * a[c]) / k;
    *d_offset = g_b / k;
}

static void shape_gradient(const osc_convex* shape, double (*D)[CONVEX_COLUMNS], double* out) {
    switch (shape->kind) {
        case OSC_CONVEX_SPHERE: // row 0: alpha column -R
            out[0] = -D[0][CONVEX_COLUMN_ALPHA];
            break;
        case OSC_CONVEX_CAPSULE:
        case OSC_CONVEX_CYLINDER: // (R, half_length): rows 0, 1: alpha column -half_length; row 2: -R
            out[0] = -D[2][CONVEX_COLUMN_ALPHA];
            out[1] = -(D[0][CONVEX_COLUMN_ALPHA] + D[1][CONVEX_COLUMN_ALPHA]);
            break;
        case OSC_CONVEX_CONE: // (R, half_length), H = 2 half_length: row 0: alpha -H/4; row 1: y_x
                              // -R/H, alpha -3R/4
            out[0] = -(D[1][0] / shape->height + 0.75 * D[1][CONVEX_COLUMN_ALPHA]);
            out[1] = -0.5 * D[0][CONVEX_COLUMN_ALPHA] + 2.0 * shape->slope / shape->height * D[1][0];
            break;
        case OSC_CONVEX_ELLIPSOID: // radii: row 1 + i: y_i column -rho / r_i (rho, the largest, only
                                   // scales the cone: alpha does not move with it)
            for (int i = 0; i < 3; ++i)
                out[i] = shape->bounding_radius * D[1 + i][i] / (shape->radii[i] * shape->radii[i]);
            break;
        case OSC_CONVEX_POLYTOPE: { // row i: (a_i, -b_i)
            int m = shape->face_count;
            for (int i = 0; i < m; ++i)
                raw_halfspace_gradient(shape->normals + 3 * i, shape->offsets[i], shape->face_scales[i], D[i],
                                       -D[i][CONVEX_COLUMN_ALPHA], 3, out + 3 * i, out + 3 * m + i);
            break;
        }
        case OSC_CONVEX_POLYGON: { // row i: alpha -d_i, slacks C_i; row m: alpha -R
            int m = shape->face_count;
            for (int i = 0; i < m; ++i)
                raw_halfspace_gradient(shape->normals + 2 * i, shape->offsets[i], shape->face_scales[i],
                                       D[i] + CONVEX_COLUMN_SLACK, -D[i][CONVEX_COLUMN_ALPHA], 2, out + 2 * i,
                                       out + 2 * m + i);
            out[3 * m] = -D[m][CONVEX_COLUMN_ALPHA];
            break;
        }
        case OSC_CONVEX_INVALID: break;
    }
}

osc_status osc_dcol_alpha_parameter_gradient(const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b,
                                             const osc_dcol_settings* settings, double* alpha, double* gradient_a,
                                             double* gradient_b) {
    dcol_query query;
    osc_status status = dcol_check_query(__func__, a, pose_a, b, pose_b, settings, &query);
    if (status != OSC_OK) return status;
    // origins nearer than the pair's size: solved at a separation scaled by k (dcol_rescale.c),
    // where alpha and its parameter gradient are k times the query's
    double k = dcol_rescale_factor(&query);
    dcol_query scaled;
    dcol_rescale_query(&query, k, &scaled);
    dcol_problem dp;
    status = dcol_solve(__func__, k == 1.0 ? &query : &scaled, NULL, false, &dp);
    if (status != OSC_OK) return status;
    if (alpha) *alpha = dp.state.x[3] / k;
    // the adjoint u = H^-1 e_alpha and q = W^-2 G u
    double u[CONIC_MAX_VARIABLES] = {0}, q[CONIC_MAX_ROWS];
    u[3] = 1.0;
    conic_factor_solve(&dp.conic, &dp.state, u);
    conic_refine_solutions(&dp.conic, &dp.state, 1, &u);
    for (int i = 0; i < dp.conic.rows; ++i) {
        double sum = 0.0;
        for (int j = 0; j < dp.conic.variables; ++j) sum += dp.conic.G[i][j] * u[j];
        q[i] = sum;
    }
    conic_apply_inverse_scaling_squared(&dp.conic, &dp.state, q, q);
    double* outputs[2] = {gradient_a, gradient_b};
    for (int which = 0; which < 2; ++which) {
        if (!outputs[which]) continue;
        double D[OSC_CONVEX_MAX_FACES + CONVEX_MAX_CONE_DIM][CONVEX_COLUMNS];
        row_sensitivities(&dp, which, u, q, D);
        shape_gradient(dp.body[which].shape, D, outputs[which]);
        for (int i = 0; k != 1.0 && i < osc_dcol_parameter_count(dp.body[which].shape); ++i) outputs[which][i] /= k;
    }
    return OSC_OK;
}
