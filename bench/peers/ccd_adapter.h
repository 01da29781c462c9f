// ccd_adapter.h: libccd (Debian's libccd-dev, the GJK / MPR / EPA library of FCL and MuJoCo) over
// osculate's convex shapes through their support functions, optionally scaled about their
// origins. The independent oracle of tests/test_dcol.c and the peer of bench/bench_dcol.c.
// Header-only; include it where libccd is linked (OSC_HAVE_CCD).

#ifndef OSC_CCD_ADAPTER_H
#define OSC_CCD_ADAPTER_H

#include <osculate/osculate.h>

#include <ccd/ccd.h>

/// A posed shape for libccd, scaled by `scale` about its pose's position (1: the shape itself).
typedef struct ccd_shape {
    const osc_convex* shape;
    osc_pose pose;
    double scale;
} ccd_shape;

static void ccd_shape_support(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
    const ccd_shape* s = (const ccd_shape*)object;
    osc_vec3 d = osc_v3(direction->v[0], direction->v[1], direction->v[2]);
    osc_vec3 p = osc_convex_support(s->shape, s->pose, d);
    p = osc_add_scaled(s->pose.p, osc_sub(p, s->pose.p), s->scale);
    out->v[0] = p.x;
    out->v[1] = p.y;
    out->v[2] = p.z;
}

static void ccd_shape_center(const void* object, ccd_vec3_t* out) {
    const ccd_shape* s = (const ccd_shape*)object;
    out->v[0] = s->pose.p.x;
    out->v[1] = s->pose.p.y;
    out->v[2] = s->pose.p.z;
}

/// A libccd configuration for two ccd_shape objects (tolerances tight enough for an oracle).
static inline ccd_t ccd_adapter_config(void) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_shape_support;
    ccd.support2 = ccd_shape_support;
    ccd.center1 = ccd_shape_center;
    ccd.center2 = ccd_shape_center;
    ccd.max_iterations = 500;
    ccd.epa_tolerance = 1e-8;
    ccd.mpr_tolerance = 1e-8;
    ccd.dist_tolerance = 1e-8;
    return ccd;
}

#endif // OSC_CCD_ADAPTER_H
