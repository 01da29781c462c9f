// sdf_superquadric.c: the superquadric (Beker et al. 2026 eq. 1, as a radial distance) and the PSQ, its
// smooth intersection with N half-spaces (Beker et al. 2026 §III-A.3, eq. 3).

#include "sdf_superquadric.h"

#include <stdio.h>

OSC_FORCE_INLINE void psq_eval_order(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    const sdf_psq* q = &leaf->p.psq;
    jet phi = sq_radial_distance_fixed(x, q->scale, q->inverse_scale, q->eps1, q->eps2, order);
    if (q->plane_count == 0) {
        *out = phi;
        return;
    }
    // eq. (3): LSE over the SQ and the planes, streamed
    jet_lse lse;
    jet_lse_begin(&lse, q->temperature);
    jet_lse_add(&lse, phi, order);
    for (int32_t i = 0; i < q->plane_count; ++i) {
        const osc_plane* plane = &sdf->planes[q->plane_first + i].start;
        jet d = jet_const(osc_dot(plane->normal, x) + plane->offset, order);
        if (order >= 1) {
            d.g[0] = plane->normal.x;
            d.g[1] = plane->normal.y;
            d.g[2] = plane->normal.z;
        }
        jet_lse_add(&lse, d, order);
    }
    *out = jet_lse_end(&lse, order);
}

void sdf_psq_eval(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    if (order == 0)
        psq_eval_order(sdf, leaf, x, 0, out);
    else if (order == 1)
        psq_eval_order(sdf, leaf, x, 1, out);
    else
        psq_eval_order(sdf, leaf, x, 2, out);
}

static osc_status create_psq(const char* function, osc_vec3 scales, double eps1, double eps2, const osc_plane* planes,
                             int plane_count, double temperature, osc_sdf** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_status status = OSC_OK;
    if ((status = sdf_check_length(function, "scales.x", scales.x)) ||
        (status = sdf_check_length(function, "scales.y", scales.y)) ||
        (status = sdf_check_length(function, "scales.z", scales.z)) ||
        (status = sdf_check_exponent(function, "eps1", eps1)) ||
        (status = sdf_check_exponent(function, "eps2", eps2)) ||
        (status = sdf_check_temperature(function, "temperature", temperature)))
        return status;
    if (plane_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: plane_count is %d; it must be >= 0", function, plane_count);
    if (plane_count > 0 && !planes)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: planes is NULL with plane_count %d", function, plane_count);
    osc_plane_profile* profiles = NULL;
    if (plane_count) {
        profiles = osc_calloc((size_t)plane_count, sizeof *profiles);
        if (!profiles) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    for (int i = 0; i < plane_count; ++i) {
        char name[32];
        snprintf(name, sizeof name, "planes[%d]", i);
        double length;
        if ((status = sdf_check_plane(function, name, planes[i], &length))) {
            osc_free(profiles);
            return status;
        }
        osc_plane unit = {osc_scale(planes[i].normal, 1.0 / length), planes[i].offset / length};
        profiles[i] = osc_plane_profile_constant(unit);
    }
    sdf_leaf leaf = {.kind = SDF_LEAF_PSQ};
    leaf.p.psq.scale = scales;
    leaf.p.psq.inverse_scale = osc_v3(1.0 / scales.x, 1.0 / scales.y, 1.0 / scales.z);
    leaf.p.psq.eps1 = eps1;
    leaf.p.psq.eps2 = eps2;
    leaf.p.psq.temperature = temperature;
    leaf.p.psq.plane_first = 0;
    leaf.p.psq.plane_count = plane_count;
    // LSE >= max: the PSQ lies inside the SQ's box [-a, a]
    int exact =
        plane_count == 0 && eps1 == 1.0 && eps2 == 1.0 && scales.x == scales.y && scales.y == scales.z; // a sphere
    status = sdf_create_leaf(function, &leaf, profiles, plane_count, NULL, osc_neg(scales), scales,
                             exact ? SDF_LIPSCHITZ_EXACT : SDF_LIPSCHITZ_SAMPLED, out);
    osc_free(profiles);
    return status;
}

osc_status osc_sdf_create_psq(osc_vec3 scales, double eps1, double eps2, const osc_plane* planes, int plane_count,
                              double temperature, osc_sdf** out) {
    return create_psq("osc_sdf_create_psq", scales, eps1, eps2, planes, plane_count, temperature, out);
}

osc_status osc_sdf_create_superquadric(osc_vec3 scales, double eps1, double eps2, osc_sdf** out) {
    return create_psq("osc_sdf_create_superquadric", scales, eps1, eps2, NULL, 0, 0.0, out);
}
