// ccd_native.h: libccd over the seven convex kinds through support functions written for each shape from its own
// parameters, as a libccd user writes them (FCL, MuJoCo): the world direction turned into the body frame by the
// transposed rotation matrix, the shape's support point there in closed form (a vertex scan for a polytope and a
// polygon), turned back and moved. The peer of bench/bench_dcol.c at its best; ccd_adapter.h is the same through
// osc_convex_support. Header-only; include it where libccd is linked (OSC_HAVE_CCD).
//
// Body frames and sizes as in include/osculate/convex.h: capsule, cylinder and cone along body z; the cone's base
// disc of `radius` at z = -half_length / 2 and its apex at z = 3 half_length / 2; a polygon's vertices in the body
// xy plane, padded by `radius`.

#ifndef OSC_CCD_NATIVE_H
#define OSC_CCD_NATIVE_H

#include <osculate/osculate.h>

#include <ccd/ccd.h>

#include <math.h>

/// The most vertices of a native polytope or polygon.
#define CCD_NATIVE_MAX_VERTICES 128

/// A shape's parameters, set once.
typedef struct ccd_native_shape {
    osc_convex_kind kind;
    double radius, half_length; // sphere, capsule, cylinder, cone; a polygon's padding (radius)
    double radii[3];            // ellipsoid
    int vertex_count;           // polytope, polygon
    double vertices[CCD_NATIVE_MAX_VERTICES][3];
} ccd_native_shape;

/// A posed shape, the object libccd's callbacks read: the shape and its pose as a rotation matrix and a position.
typedef struct ccd_native_body {
    const ccd_native_shape* shape;
    double rotation[9]; // world from body, row-major
    double position[3];
} ccd_native_body;

/// Returns the shape placed at a pose: its rotation matrix from the unit quaternion, and its position.
static inline ccd_native_body ccd_native_place(const ccd_native_shape* shape, osc_pose pose) {
    ccd_native_body s;
    s.shape = shape;
    double w = pose.q.w, x = pose.q.x, y = pose.q.y, z = pose.q.z;
    double* r = s.rotation;
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - w * z), r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y), r[7] = 2 * (y * z + w * x), r[8] = 1 - 2 * (x * x + y * y);
    s.position[0] = pose.p.x;
    s.position[1] = pose.p.y;
    s.position[2] = pose.p.z;
    return s;
}

// the support point of the shape in its body frame along the body direction d
static inline void ccd_native_local_support(const ccd_native_shape* s, const double d[3], double out[3]) {
    double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double u[3] = {0.0, 0.0, 0.0}; // d / |d|
    if (length > 0.0) u[0] = d[0] / length, u[1] = d[1] / length, u[2] = d[2] / length;
    switch (s->kind) {
        case OSC_CONVEX_SPHERE:
            for (int k = 0; k < 3; ++k) out[k] = s->radius * u[k];
            return;
        case OSC_CONVEX_CAPSULE:
            out[0] = s->radius * u[0];
            out[1] = s->radius * u[1];
            out[2] = s->radius * u[2] + (d[2] >= 0.0 ? s->half_length : -s->half_length);
            return;
        case OSC_CONVEX_CYLINDER:
        case OSC_CONVEX_CONE: {
            double rho = sqrt(d[0] * d[0] + d[1] * d[1]);
            double rim_x = rho > 0.0 ? s->radius * d[0] / rho : 0.0, rim_y = rho > 0.0 ? s->radius * d[1] / rho : 0.0;
            if (s->kind == OSC_CONVEX_CYLINDER) {
                out[0] = rim_x, out[1] = rim_y, out[2] = d[2] >= 0.0 ? s->half_length : -s->half_length;
                return;
            }
            double base = -0.5 * s->half_length, apex = 1.5 * s->half_length;
            if (d[2] * apex >= s->radius * rho + d[2] * base)
                out[0] = 0.0, out[1] = 0.0, out[2] = apex;
            else
                out[0] = rim_x, out[1] = rim_y, out[2] = base;
            return;
        }
        case OSC_CONVEX_ELLIPSOID: {
            double e[3], norm = 0.0; // the support of { y : |y_i / r_i| <= 1 } is r^2 d / |r d|
            for (int k = 0; k < 3; ++k) {
                e[k] = s->radii[k] * d[k];
                norm += e[k] * e[k];
            }
            norm = sqrt(norm);
            for (int k = 0; k < 3; ++k) out[k] = norm > 0.0 ? s->radii[k] * e[k] / norm : 0.0;
            return;
        }
        case OSC_CONVEX_POLYTOPE:
        case OSC_CONVEX_POLYGON: {
            int best = 0;
            double best_dot = -INFINITY;
            for (int i = 0; i < s->vertex_count; ++i) {
                const double* v = s->vertices[i];
                double dot = v[0] * d[0] + v[1] * d[1] + v[2] * d[2];
                if (dot > best_dot) best_dot = dot, best = i;
            }
            double pad = s->kind == OSC_CONVEX_POLYGON ? s->radius : 0.0;
            for (int k = 0; k < 3; ++k) out[k] = s->vertices[best][k] + pad * u[k];
            return;
        }
        default: out[0] = out[1] = out[2] = NAN;
    }
}

static void ccd_native_support(const void* object, const ccd_vec3_t* direction, ccd_vec3_t* out) {
    const ccd_native_body* s = (const ccd_native_body*)object;
    const double* r = s->rotation;
    const double* w = direction->v;
    double d[3] = {r[0] * w[0] + r[3] * w[1] + r[6] * w[2], r[1] * w[0] + r[4] * w[1] + r[7] * w[2],
                   r[2] * w[0] + r[5] * w[1] + r[8] * w[2]};
    double y[3];
    ccd_native_local_support(s->shape, d, y);
    for (int k = 0; k < 3; ++k)
        out->v[k] = r[3 * k] * y[0] + r[3 * k + 1] * y[1] + r[3 * k + 2] * y[2] + s->position[k];
}

static void ccd_native_center(const void* object, ccd_vec3_t* out) {
    const ccd_native_body* s = (const ccd_native_body*)object;
    for (int k = 0; k < 3; ++k) out->v[k] = s->position[k];
}

/// libccd's shipped configuration (CCD_INIT) with the native support and centre functions.
static inline ccd_t ccd_native_config(void) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_native_support;
    ccd.support2 = ccd_native_support;
    ccd.center1 = ccd_native_center;
    ccd.center2 = ccd_native_center;
    return ccd;
}

#endif // OSC_CCD_NATIVE_H
