// dcol_spheres.c: two spheres in closed form (docs/dcol.md §3.6). Their scaled copies first touch
// on the segment between the centres, so alpha = |r_B - r_A| / (R_A + R_B) (Tracy et al. 2023 §IV's check)
// and every output and derivative is an explicit function of the two centres.

#include "dcol_internal.h"

#include <string.h>

// one Jacobian row of an output that only the centres move: (a v, 0, b v, 0) over (A's
// translation, A's rotation, B's translation, B's rotation)
static void put_row(double* row, const double v[3], double a, double b) {
    for (int k = 0; k < 3; ++k) {
        row[k] = a * v[k];
        row[3 + k] = 0.0;
        row[6 + k] = b * v[k];
        row[9 + k] = 0.0;
    }
}

bool dcol_sphere_pair(const dcol_query* query, osc_dcol_result* result, const osc_dcol_jacobians* jacobians,
                      osc_dcol_warm_start* warm) {
    const osc_convex *a = query->a, *b = query->b;
    if (!query->options.support_path || a->kind != OSC_CONVEX_SPHERE || b->kind != OSC_CONVEX_SPHERE ||
        query->settings.tolerance > DCOL_CLOSED_FORM_MAX_BARRIER)
        return false;
    osc_pose pose_a = query->pose_a, pose_b = query->pose_b;
    double radius_a = a->radius, radius_b = b->radius, sum = radius_a + radius_b;
    osc_vec3 gap = osc_sub(pose_b.p, pose_a.p);
    double length = osc_length(gap);
    memset(result, 0, sizeof *result);
    result->alpha = length / sum;
    // x divides the centres in the ratio of the radii: r_A + alpha R_A u
    result->point = osc_add_scaled(pose_a.p, gap, radius_a / sum);
    bool coincident = !(length > DCOL_COINCIDENT_SEPARATION * sum);
    osc_vec3 u = coincident ? osc_v3(0.0, 0.0, 0.0) : osc_scale(gap, 1.0 / length);
    if (coincident) {
        result->flags = OSC_DCOL_COINCIDENT;
        result->point_a = pose_a.p;
        result->point_b = pose_b.p;
    } else {
        // eq. (29): r_A + R_A u and r_B - R_B u; eq. (30): L - (R_A + R_B)
        result->point_a = osc_add_scaled(pose_a.p, u, radius_a);
        result->point_b = osc_add_scaled(pose_b.p, u, -radius_b);
        result->distance = length - sum;
        result->normal = u;
    }
    if (warm) {
        warm->valid = 1;
        warm->variables = 4;
        warm->solution[0] = result->point.x;
        warm->solution[1] = result->point.y;
        warm->solution[2] = result->point.z;
        warm->solution[3] = result->alpha;
    }
    if (!jacobians) return true;
    // Only the centres enter: every rotation column is zero. With D = r_B - r_A, u = D / L and
    // T = (I - u u^T) / L = du/dD, the derivatives by r_B are
    //     alpha: u^T / S   x: R_A / S I   point_a: R_A T   point_b: I - R_B T   distance: u^T
    //     normal: T
    // and by r_A: alpha, distance and normal negated, x: R_B / S I, point_a: I - R_A T,
    // point_b: R_B T. A coincident pair keeps zero rows (alpha's gradient has no limit there).
    const osc_dcol_jacobians* jac = jacobians;
    double T[3][3], inverse_length = coincident ? 0.0 : 1.0 / length;
    const double uu[3] = {u.x, u.y, u.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) T[i][j] = ((i == j) - uu[i] * uu[j]) * inverse_length;
    if (jac->alpha) put_row(jac->alpha, uu, -1.0 / sum, 1.0 / sum);
    if (jac->distance) put_row(jac->distance, uu, -1.0, 1.0);
    for (int i = 0; i < 3; ++i) {
        const double e[3] = {i == 0, i == 1, i == 2};
        if (jac->point) put_row(jac->point + 12 * i, e, radius_b / sum, radius_a / sum);
        if (jac->point_a) {
            put_row(jac->point_a + 12 * i, T[i], -radius_a, radius_a);
            jac->point_a[12 * i + i] += 1.0;
        }
        if (jac->point_b) {
            put_row(jac->point_b + 12 * i, T[i], radius_b, -radius_b);
            jac->point_b[12 * i + 6 + i] += 1.0;
        }
        if (jac->normal) put_row(jac->normal + 12 * i, T[i], -1.0, 1.0);
    }
    return true;
}
