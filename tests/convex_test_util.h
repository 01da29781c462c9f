// convex_test_util.h: one instance of each DCOL primitive, random poses and surface samples, shared
// by test_convex.c and test_dcol.c.

#ifndef OSC_CONVEX_TEST_UTIL_H
#define OSC_CONVEX_TEST_UTIL_H

#include "test_common.h"

#include <osculate/osculate.h>

#include <ctype.h>
#include <stdbool.h>

/// The seven kinds, in osc_convex_kind order, with sizes of order 1 (the cone of height 1 and half
/// angle 0.5 rad).
static inline void make_test_shapes(osc_convex* shapes[OSC_CONVEX_KIND_COUNT]) {
    // a hexagonal prism with a slanted cap, the origin off-centre inside
    double normals[8 * 3], offsets[8];
    for (int i = 0; i < 6; ++i) {
        double angle = i * TEST_PI / 3.0;
        normals[3 * i] = cos(angle);
        normals[3 * i + 1] = sin(angle);
        normals[3 * i + 2] = 0.0;
        offsets[i] = 0.4 + 0.05 * i;
    }
    double cap_top[3] = {0.2, 0.1, 1.0}, cap_bottom[3] = {0.0, 0.0, -1.0};
    for (int k = 0; k < 3; ++k) {
        normals[18 + k] = cap_top[k];
        normals[21 + k] = cap_bottom[k];
    }
    offsets[6] = 0.35;
    offsets[7] = 0.25;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 8, &shapes[OSC_CONVEX_POLYTOPE]), OSC_OK);
    CHECK_STATUS(osc_convex_create_capsule(0.2, 0.4, &shapes[OSC_CONVEX_CAPSULE]), OSC_OK);
    CHECK_STATUS(osc_convex_create_cylinder(0.3, 0.35, &shapes[OSC_CONVEX_CYLINDER]), OSC_OK);
    CHECK_STATUS(osc_convex_create_cone(tan(0.5), 0.5, &shapes[OSC_CONVEX_CONE]), OSC_OK);
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(0.5, 0.7, 0.35), &shapes[OSC_CONVEX_ELLIPSOID]), OSC_OK);
    CHECK_STATUS(osc_convex_create_sphere(0.45, &shapes[OSC_CONVEX_SPHERE]), OSC_OK);
    double C[5 * 2], d[5];
    for (int i = 0; i < 5; ++i) {
        double angle = 2.0 * TEST_PI * i / 5.0 + 0.3;
        C[2 * i] = cos(angle);
        C[2 * i + 1] = sin(angle);
        d[i] = 0.3 + 0.04 * i;
    }
    CHECK_STATUS(osc_convex_create_polygon(C, d, 5, 0.1, &shapes[OSC_CONVEX_POLYGON]), OSC_OK);
}

static inline void destroy_test_shapes(osc_convex* shapes[OSC_CONVEX_KIND_COUNT]) {
    for (int i = 0; i < OSC_CONVEX_KIND_COUNT; ++i) osc_convex_destroy(shapes[i]);
}

/// A uniformly random unit quaternion (Shoemake).
static inline osc_quat random_rotation(test_rng* rng) {
    double u1 = test_uniform(rng, 0, 1), u2 = test_uniform(rng, 0, 2 * TEST_PI), u3 = test_uniform(rng, 0, 2 * TEST_PI);
    osc_quat q = {sqrt(1 - u1) * sin(u2), sqrt(1 - u1) * cos(u2), sqrt(u1) * sin(u3), sqrt(u1) * cos(u3)};
    return q;
}

/// A quarter turn about y, which takes a body's z axis to x: a capsule, cylinder or cone posed with
/// q * axis_along_x() has its axis along q's x (lying down where q is upright).
static inline osc_quat axis_along_x(void) { return osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.5 * TEST_PI); }

/// A random pose with its position in the cube [-half, half]^3.
static inline osc_pose random_pose(test_rng* rng, double half) {
    osc_pose pose = {
        osc_v3(test_uniform(rng, -half, half), test_uniform(rng, -half, half), test_uniform(rng, -half, half)),
        random_rotation(rng)};
    return pose;
}

/// A random body-frame point on the surface of `shape`: a random direction scaled to gauge 1.
static inline osc_vec3 random_surface_point(const osc_convex* shape, test_rng* rng) {
    osc_vec3 v = osc_normalize(osc_v3(test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1)));
    return osc_scale(v, 1.0 / osc_convex_gauge(shape, v));
}

/// A public function and one of its pointer arguments, for the tables of NULL arguments.
typedef struct null_argument {
    const char* function;
    const char* argument;
} null_argument;

/// Whether the calling thread's message starts with `function` and names `argument` as a word.
static inline bool message_names(const char* function, const char* argument) {
    const char* message = osc_last_error();
    if (strncmp(message, function, strlen(function)) != 0) return false;
    for (const char* at = strstr(message, argument); at; at = strstr(at + 1, argument)) {
        char before = at == message ? ' ' : at[-1], after = at[strlen(argument)];
        if (!isalnum((unsigned char)before) && before != '_' && !isalnum((unsigned char)after) && after != '_')
            return true;
    }
    return false;
}

#endif // OSC_CONVEX_TEST_UTIL_H
