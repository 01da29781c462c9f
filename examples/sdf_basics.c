// sdf_basics.c: build an SDF tree and evaluate it with derivatives. Copy this to start.
//
// A capsule-shaped body with a rounded box cut out of it and a superquadric knob on top, placed in
// the world by a pose, then evaluated at one point (value, gradient, Hessian) and at many points in
// one parallel batch call.

#include "osculate/osculate.h"

#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) != OSC_OK) {                                                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(void) {
    // 1. primitives, each in its own canonical frame (centred, axis along z)
    osc_sdf *body = NULL, *slot = NULL, *knob = NULL, *knob_placed = NULL;
    TRY(osc_sdf_create_capsule(0.3, 0.5, &body));
    TRY(osc_sdf_create_box(osc_v3(0.4, 0.1, 0.2), 0.03, &slot));
    TRY(osc_sdf_create_superquadric(osc_v3(0.15, 0.15, 0.1), 0.3, 1.0, &knob));

    // 2. place the knob on top of the capsule: a pose is world-from-child, (position, quaternion w,x,y,z)
    osc_pose on_top = {osc_v3(0.0, 0.0, 0.85), osc_quat_identity()};
    TRY(osc_sdf_create_transformed(knob, on_top, 1.0, &knob_placed));

    // 3. smooth CSG: (body - slot) united with the knob; each node has its own temperature (0: hard)
    osc_sdf *cut = NULL, *part = NULL;
    TRY(osc_sdf_create_subtraction(body, slot, 0.02, &cut));
    const osc_sdf* children[2] = {cut, knob_placed};
    TRY(osc_sdf_create_union(children, 2, 0.05, &part));

    // models are immutable copies: the pieces can go now
    osc_sdf_destroy(body);
    osc_sdf_destroy(slot);
    osc_sdf_destroy(knob);
    osc_sdf_destroy(knob_placed);
    osc_sdf_destroy(cut);

    // 4. put the whole part in the world, rotated 30 degrees about x
    osc_sdf* world = NULL;
    osc_pose pose = {osc_v3(1.0, 2.0, 0.5), osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.5236)};
    TRY(osc_sdf_create_transformed(part, pose, 1.0, &world));
    osc_sdf_destroy(part);

    // 5. evaluate one point: value, gradient and Hessian (pass NULL for what you do not need)
    osc_vec3 x = osc_v3(1.2, 2.1, 0.9), gradient;
    osc_mat3 hessian;
    double phi = osc_sdf_eval(world, x, &gradient, &hessian);
    printf("phi(%.2f, %.2f, %.2f) = %.6f\n", x.x, x.y, x.z, phi);
    printf("gradient = (%.6f, %.6f, %.6f), |gradient| = %.6f\n", gradient.x, gradient.y, gradient.z,
           osc_length(gradient));
    printf("hessian  = [%.4f %.4f %.4f; %.4f %.4f %.4f; %.4f %.4f %.4f]\n", hessian.m[0][0], hessian.m[0][1],
           hessian.m[0][2], hessian.m[1][0], hessian.m[1][1], hessian.m[1][2], hessian.m[2][0], hessian.m[2][1],
           hessian.m[2][2]);

    // 6. many points at once, over all cores: arrays [n][3] in, [n] and [n][3] out
    enum { N = 100000 };
    double* points = malloc(3 * N * sizeof *points);
    double* values = malloc(N * sizeof *values);
    double* gradients = malloc(3 * N * sizeof *gradients);
    if (!points || !values || !gradients) return 1;
    for (int i = 0; i < N; ++i) {
        points[3 * i] = 1.0 + 0.001 * (i % 100);
        points[3 * i + 1] = 2.0 + 0.001 * ((i / 100) % 100);
        points[3 * i + 2] = 0.5 + 0.01 * (i / 10000);
    }
    TRY(osc_sdf_eval_batch(world, points, N, values, gradients, NULL, 0));
    int inside = 0;
    for (int i = 0; i < N; ++i) inside += values[i] < 0.0;
    printf("batch: %d of %d points inside\n", inside, N);

    // 7. bounds and Lipschitz bound, e.g. for sphere tracing with steps phi / L
    osc_vec3 lo, hi;
    osc_sdf_bounds(world, &lo, &hi);
    printf("bounds [%.3f %.3f %.3f] - [%.3f %.3f %.3f], Lipschitz %.4f (%s)\n", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z,
           osc_sdf_lipschitz(world), osc_sdf_lipschitz_is_bound(world) ? "a bound" : "an estimate");

    free(points);
    free(values);
    free(gradients);
    osc_sdf_destroy(world);
    return 0;
}
