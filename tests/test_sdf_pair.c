// test_sdf_pair.c: collision points between two SDFs (sdf_pair.h). Oracles: the closed-form lens
// of two spheres (every point inside both, the deepest point and depth of the smooth mode), two
// rounded boxes against brute-force sampling (points inside both, the deepest one found), a spline
// SDF against the analytic torus it was baked from,
// brute-force sampling of random pairs of analytic SDFs (no collision deeper than one packing
// spacing missed; the rate of shallower misses is printed), central differences of the smooth
// mode's Jacobians, a user callback against the library SDF it mirrors, scenes against a
// brute-force pair list and direct pair queries, and bad input.

#include "convex_test_util.h" // random poses
#include "sdf_internal.h"     // an external leaf that counts its evaluations
#include "sdf_test_util.h"    // CHECK_REFUSED

#include <stdlib.h>
#include <string.h>

static double world_eval(const osc_sdf* sdf, osc_pose pose, osc_vec3 x) {
    return osc_sdf_eval(sdf, osc_pose_apply_inverse(pose, x), NULL, NULL);
}

enum { CAPACITY = 256 };
static osc_sdf_pair_contact g_contacts[CAPACITY];
static double g_point_jacobians[CAPACITY * 36], g_distance_jacobians[CAPACITY * 12];

static osc_sdf_pair_output output(void) {
    osc_sdf_pair_output out;
    memset(&out, 0, sizeof out);
    out.contacts = g_contacts;
    out.capacity = CAPACITY;
    out.point_jacobians = g_point_jacobians;
    out.distance_jacobians = g_distance_jacobians;
    return out;
}

// a scene query with its output's fields as arguments (count and needed written back)
static osc_status scene(const osc_sdf_scene_body* bodies, size_t n, const osc_sdf_pair_settings* settings, int per_pair,
                        osc_sdf_scene_pair* pairs, int capacity, osc_sdf_pair_contact* contacts, int* count,
                        int* needed, void* workspace, int threads) {
    osc_sdf_scene_output out = {pairs, capacity, -1, -1, contacts, per_pair};
    osc_status status = osc_sdf_scene_collide(bodies, n, settings, &out, workspace, threads);
    *count = out.count;
    *needed = out.needed;
    return status;
}

static void test_sphere_lens(void) {
    test_rng rng = {1};
    for (int trial = 0; trial < 40; ++trial) {
        double r1 = test_uniform(&rng, 0.3, 1.5), r2 = test_uniform(&rng, 0.3, 1.5);
        osc_sdf *s1, *s2;
        CHECK_STATUS(osc_sdf_create_sphere(r1, &s1), OSC_OK);
        CHECK_STATUS(osc_sdf_create_sphere(r2, &s2), OSC_OK);
        osc_sdf_shape a = {.sdf = s1}, b = {.sdf = s2};
        osc_pose pa = random_pose(&rng, 1.0);
        osc_vec3 u =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        double d = test_uniform(&rng, fabs(r1 - r2) + 0.05, r1 + r2 - 0.05);
        osc_pose pb = {osc_add_scaled(pa.p, u, d), random_pose(&rng, 0).q};
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        osc_sdf_pair_output out = output();
        CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out), OSC_OK);
        CHECK(out.boxes_overlap == 1 && out.count >= 1);
        double size = 2.0 * sqrt(3.0) * fmin(r1, r2); // epsilon's scale: the smaller body box's diagonal
        double worst = -INFINITY;
        for (int i = 0; i < out.count; ++i)
            worst = fmax(worst, fmax(world_eval(s1, pa, g_contacts[i].point), world_eval(s2, pb, g_contacts[i].point)));
        CHECK_MSG(worst <= 1e-4 * size, "trial %d: a point is %g outside", trial, worst);
        // smooth mode: one point, the deepest of the lens, shifted by tau log 2 in depth
        settings.temperature = 1e-3;
        settings.merge_distance = 2.0;
        out = output();
        CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out), OSC_OK);
        double t = 0.5 * (d + r1 - r2); // |x - c1| at the deepest point: t - r1 = (d - t) - r2
        osc_vec3 deepest = osc_add_scaled(pa.p, u, t);
        bool found = false;
        for (int i = 0; i < out.count; ++i) {
            if (!g_contacts[i].smooth) continue;
            found = true;
            // at the deepest point A = B = -(r1 + r2 - d) / 2, so m = A + tau log 2
            double distance = -0.5 * (r1 + r2 - d) + 1e-3 * size * log(2.0);
            CHECK(osc_length(osc_sub(g_contacts[i].point, deepest)) < 1e-8);
            CHECK_NEAR(g_contacts[i].distance, distance, 1e-10);
            CHECK_NEAR(osc_dot(g_contacts[i].normal, u), 1.0, 1e-9);
        }
        CHECK_MSG(found, "trial %d: no smooth point", trial);
        osc_sdf_destroy(s1);
        osc_sdf_destroy(s2);
    }
}

// two rounded boxes: every point inside both within epsilon, and the deepest returned point as deep
// as a 40^3 brute-force sampling's deepest, to a packing spacing
static void test_box_box(void) {
    test_rng rng = {5};
    for (int trial = 0; trial < 20; ++trial) {
        osc_sdf *b1, *b2;
        CHECK_STATUS(osc_sdf_create_box(osc_v3(0.6, 0.4, 0.3), 0.02, &b1), OSC_OK);
        CHECK_STATUS(osc_sdf_create_box(osc_v3(0.3, 0.5, 0.4), 0.02, &b2), OSC_OK);
        osc_sdf_shape a = {.sdf = b1}, b = {.sdf = b2};
        osc_pose pa = random_pose(&rng, 0.2), pb = random_pose(&rng, 0.4);
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        osc_sdf_pair_output out = output();
        osc_status status = osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out);
        CHECK(status == OSC_OK || status == OSC_ERR_CAPACITY);
        double worst = -INFINITY, deepest_found = -INFINITY;
        for (int i = 0; i < out.count; ++i) {
            double value = fmax(world_eval(b1, pa, g_contacts[i].point), world_eval(b2, pb, g_contacts[i].point));
            worst = fmax(worst, value);
            deepest_found = fmax(deepest_found, -g_contacts[i].distance);
            CHECK_NEAR(g_contacts[i].distance, value, 1e-12);
        }
        double scale = 2.0 * osc_length(osc_v3(0.3, 0.5, 0.4)); // the smaller body box's diagonal
        if (out.count > 0) CHECK(worst <= 1e-4 * scale + 1e-15);
        // brute force over a box around both
        double deepest = INFINITY;
        enum { N = 40 };
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                for (int k = 0; k < N; ++k) {
                    osc_vec3 x =
                        osc_v3(-1.2 + 2.4 * (i + 0.5) / N, -1.2 + 2.4 * (j + 0.5) / N, -1.2 + 2.4 * (k + 0.5) / N);
                    deepest = fmin(deepest, fmax(world_eval(b1, pa, x), world_eval(b2, pb, x)));
                }
        double spacing = 2.4 / settings.resolution; // a bound on the query's own spacing
        if (deepest < -spacing) CHECK_MSG(out.count > 0, "trial %d: a collision %g deep was missed", trial, -deepest);
        if (out.count > 0)
            CHECK_MSG(deepest_found >= -deepest - spacing, "trial %d: deepest point %g, brute force %g", trial,
                      deepest_found, -deepest);
        osc_sdf_destroy(b1);
        osc_sdf_destroy(b2);
    }
}

// a spline SDF (osc_grid_to_sdf) against the analytic torus it was baked from: every point inside
// both within the spline's accuracy, and the smooth mode works on it too
static void test_spline_shape(void) {
    osc_sdf *torus, *ball, *spline_sdf;
    osc_grid* grid;
    CHECK_STATUS(osc_sdf_create_torus(0.7, 0.25, &torus), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &ball), OSC_OK);
    osc_grid_settings grid_settings = osc_grid_settings_default();
    grid_settings.resolution = 48;
    CHECK_STATUS(osc_grid_create_from_sdf(torus, &grid_settings, &grid), OSC_OK);
    CHECK_STATUS(osc_grid_to_sdf(grid, &spline_sdf), OSC_OK);
    osc_sdf_shape spline = {.sdf = spline_sdf}, sphere = {.sdf = ball};
    osc_pose pa = {osc_v3(0.0, 0.0, 0.0), osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.3)};
    osc_pose pb = {osc_v3(0.75, 0.1, 0.35), osc_quat_identity()};
    for (int smooth = 0; smooth < 2; ++smooth) {
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        settings.temperature = smooth ? 1e-2 : 0.0;
        osc_sdf_pair_output out = output();
        osc_status status = osc_sdf_pair_collide(&spline, pa, &sphere, pb, &settings, &out);
        CHECK(status == OSC_OK || status == OSC_ERR_CAPACITY);
        CHECK(out.count > 0);
        int smooth_points = 0;
        for (int i = 0; i < out.count; ++i) {
            // the analytic torus, within the spline's error at 48 cells
            double value = fmax(world_eval(torus, pa, g_contacts[i].point), world_eval(ball, pb, g_contacts[i].point));
            CHECK_MSG(value < 2e-3, "spline point %d is %g outside", i, value);
            smooth_points += g_contacts[i].smooth;
        }
        if (smooth) CHECK(smooth_points > 0);
    }
    osc_sdf_destroy(spline_sdf);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
    osc_sdf_destroy(ball);
}

static void test_apart(void) {
    osc_sdf *s1, *s2;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &s1), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &s2), OSC_OK);
    osc_sdf_shape a = {.sdf = s1}, b = {.sdf = s2};
    // the boxes overlap at a corner, the spheres do not (|offset| = 1.9 sqrt(3) > 2)
    osc_pose pb = {osc_v3(1.9, 1.9, 1.9), osc_quat_identity()};
    osc_sdf_pair_output out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&a, osc_pose_identity(), &b, pb, NULL, &out), OSC_OK);
    CHECK(out.boxes_overlap == 1 && out.count == 0 && out.survivors == 0);
    pb.p = osc_v3(5, 0, 0);
    CHECK_STATUS(osc_sdf_pair_collide(&a, osc_pose_identity(), &b, pb, NULL, &out), OSC_OK);
    CHECK(out.boxes_overlap == 0 && out.count == 0 && out.spheres == 0);
    osc_sdf_destroy(s1);
    osc_sdf_destroy(s2);
}

// random pairs of analytic SDFs against 40^3 brute-force samples of the box intersection
static osc_sdf* random_shape(test_rng* rng, int kind) {
    osc_sdf* sdf = NULL;
    switch (kind % 5) {
        case 0: osc_sdf_create_sphere(test_uniform(rng, 0.3, 1.0), &sdf); break;
        case 1:
            osc_sdf_create_box(
                osc_v3(test_uniform(rng, 0.2, 0.8), test_uniform(rng, 0.2, 0.8), test_uniform(rng, 0.2, 0.8)), 0.05,
                &sdf);
            break;
        case 2: osc_sdf_create_torus(test_uniform(rng, 0.5, 0.8), test_uniform(rng, 0.1, 0.3), &sdf); break;
        case 3:
            osc_sdf_create_ellipsoid(
                osc_v3(test_uniform(rng, 0.2, 0.9), test_uniform(rng, 0.2, 0.9), test_uniform(rng, 0.2, 0.9)), &sdf);
            break;
        default:
            osc_sdf_create_superquadric(
                osc_v3(test_uniform(rng, 0.3, 0.8), test_uniform(rng, 0.3, 0.8), test_uniform(rng, 0.3, 0.8)), 0.5, 0.8,
                &sdf);
    }
    return sdf;
}

static void test_false_negatives_against_sampling(void) {
    test_rng rng = {2};
    int pairs = 0, deep = 0, deep_missed = 0, shallow = 0, shallow_missed = 0, false_points = 0;
    for (int trial = 0; trial < 150; ++trial) {
        osc_sdf* s1 = random_shape(&rng, trial);
        osc_sdf* s2 = random_shape(&rng, trial / 5 + 1);
        osc_sdf_shape a = {.sdf = s1}, b = {.sdf = s2};
        osc_pose pa = random_pose(&rng, 0.5), pb = random_pose(&rng, 0.5);
        osc_sdf_pair_output out = output();
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out), OSC_OK);
        ++pairs;
        for (int i = 0; i < out.count; ++i)
            if (fmax(world_eval(s1, pa, g_contacts[i].point), world_eval(s2, pb, g_contacts[i].point)) > 1e-3)
                ++false_points;
        // brute force over the same box intersection: the deepest sample
        osc_vec3 la, ha, lb, hb;
        osc_sdf_bounds(s1, &la, &ha);
        osc_sdf_bounds(s2, &lb, &hb);
        double best = INFINITY, size = 0.0;
        enum { N = 40 };
        // sample a box around both shapes' world extents (radius bound: half their box diagonals)
        double ra = 0.5 * osc_length(osc_sub(ha, la)), rb = 0.5 * osc_length(osc_sub(hb, lb));
        osc_vec3 ca = osc_pose_apply(pa, osc_scale(osc_add(la, ha), 0.5));
        osc_vec3 cb = osc_pose_apply(pb, osc_scale(osc_add(lb, hb), 0.5));
        for (int axis = 0; axis < 3; ++axis)
            size = fmax(size, fmin(osc_vec3_get(ca, axis) + ra, osc_vec3_get(cb, axis) + rb) -
                                  fmax(osc_vec3_get(ca, axis) - ra, osc_vec3_get(cb, axis) - rb));
        if (!(size > 0.0)) size = 0.0;
        for (int i = 0; i < N && size > 0.0; ++i)
            for (int j = 0; j < N; ++j)
                for (int k = 0; k < N; ++k) {
                    osc_vec3 x;
                    double coords[3];
                    int idx[3] = {i, j, k};
                    for (int axis = 0; axis < 3; ++axis) {
                        double lo = fmax(osc_vec3_get(ca, axis) - ra, osc_vec3_get(cb, axis) - rb);
                        double hi = fmin(osc_vec3_get(ca, axis) + ra, osc_vec3_get(cb, axis) + rb);
                        coords[axis] = lo + (idx[axis] + 0.5) * (hi - lo) / N;
                    }
                    x = osc_v3(coords[0], coords[1], coords[2]);
                    best = fmin(best, fmax(world_eval(s1, pa, x), world_eval(s2, pb, x)));
                }
        // a collision deeper than one packing spacing of the query's own box must be found
        double spacing = (out.spheres > 0 ? 1.0 : 0.0) * size / settings.resolution;
        if (best < 0.0) {
            if (best < -spacing) {
                ++deep;
                deep_missed += out.count == 0;
            } else {
                ++shallow;
                shallow_missed += out.count == 0;
            }
        }
        osc_sdf_destroy(s1);
        osc_sdf_destroy(s2);
    }
    printf("  %d random pairs: %d collisions deeper than a packing spacing (%d missed), %d "
           "shallower (%d missed); %d returned points outside a shape by more than 1e-3\n",
           pairs, deep, deep_missed, shallow, shallow_missed, false_points);
    CHECK(deep > 20);
    CHECK(deep_missed == 0);
    CHECK(false_points == 0);
}

// the smooth mode's Jacobians against central differences (a sphere against an ellipsoid and a
// superquadric, both smooth and convex, so the deepest point is unique)
static void test_smooth_jacobians(void) {
    test_rng rng = {3};
    osc_sdf *sphere, *ellipsoid;
    CHECK_STATUS(osc_sdf_create_sphere(0.6, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(0.7, 0.4, 0.5), &ellipsoid), OSC_OK);
    osc_sdf_shape a = {.sdf = sphere}, b = {.sdf = ellipsoid};
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.temperature = 1e-2;
    settings.merge_distance = 100.0; // one point: the deepest
    double worst = 0.0;
    int tested = 0;
    for (int trial = 0; trial < 20; ++trial) {
        osc_pose pa = random_pose(&rng, 0.2), pb = random_pose(&rng, 0.2);
        pb.p = osc_add(pb.p, osc_v3(0.6, 0, 0));
        osc_sdf_pair_output out = output();
        if (osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out) != OSC_OK || out.count != 1 || !g_contacts[0].smooth)
            continue;
        ++tested;
        osc_vec3 point = g_contacts[0].point;
        double jp[36], jd[12];
        memcpy(jp, g_point_jacobians, sizeof jp);
        memcpy(jd, g_distance_jacobians, sizeof jd);
        (void)point;
        for (int c = 0; c < 12; ++c) {
            double step = 1e-6, xi[6] = {0};
            osc_sdf_pair_contact plus, minus;
            for (int side = 0; side < 2; ++side) {
                xi[c % 6] = side ? -step : step;
                osc_pose qa = c < 6 ? osc_pose_apply_twist(pa, xi) : pa;
                osc_pose qb = c < 6 ? pb : osc_pose_apply_twist(pb, xi);
                osc_sdf_pair_output o = output();
                CHECK_STATUS(osc_sdf_pair_collide(&a, qa, &b, qb, &settings, &o), OSC_OK);
                if (side)
                    minus = g_contacts[0];
                else
                    plus = g_contacts[0];
            }
            double fd[4] = {(plus.point.x - minus.point.x) / (2 * step), (plus.point.y - minus.point.y) / (2 * step),
                            (plus.point.z - minus.point.z) / (2 * step),
                            (plus.distance - minus.distance) / (2 * step)};
            double analytic[4] = {jp[c], jp[12 + c], jp[24 + c], jd[c]};
            for (int k = 0; k < 4; ++k) worst = fmax(worst, fabs(fd[k] - analytic[k]) / fmax(1.0, fabs(fd[k])));
        }
    }
    printf("  smooth-mode Jacobians at %d poses: worst relative error against central differences %.2g\n", tested,
           worst);
    CHECK(tested >= 15);
    CHECK(worst < 1e-5);
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(ellipsoid);
}

// a library SDF that counts its evaluations: an external leaf (sdf_internal.h) around another model
typedef struct counted_sdf {
    const osc_sdf* inner;
    long evaluations;
} counted_sdf;

static void counted_eval(const void* context, osc_vec3 x, int order, jet* out) {
    counted_sdf* counted = (counted_sdf*)(uintptr_t)context;
    ++counted->evaluations;
    sdf_eval_jet(counted->inner, x, order, out);
}

static void counted_keep(const void* context) { (void)context; }

static const sdf_external_vtable counted_vtable = {counted_eval, counted_keep, counted_keep};

static osc_sdf* counted_create(counted_sdf* counted) {
    osc_vec3 lo, hi;
    osc_sdf_bounds(counted->inner, &lo, &hi);
    osc_sdf* sdf = NULL;
    CHECK_STATUS(sdf_create_external("counted_create", &counted_vtable, counted, lo, hi,
                                     osc_sdf_lipschitz(counted->inner), osc_sdf_lipschitz_is_bound(counted->inner),
                                     &sdf),
                 OSC_OK);
    return sdf;
}

// the smooth mode's work is bounded: temperatures that cannot be represented (below
// OSC_SDF_PAIR_TEMPERATURE_MIN, subnormal, NaN, infinite) are refused at once, naming the setting,
// and at the accepted ones a query evaluates each shape at most spheres + survivors x
// (33 max_iterations + 2) times (sdf_pair.h), on a flat contact whose refinement never converges
// (two boxes face to face) and on a smooth one (a sphere in an ellipsoid)
static void test_smooth_bounded_work(void) {
    osc_sdf *box_a, *box_b, *ball, *ellipsoid;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.5, 0.5), 0.0, &box_a), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.4, 0.4, 0.4), 0.0, &box_b), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.6, &ball), OSC_OK);
    CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(0.7, 0.4, 0.5), &ellipsoid), OSC_OK);
    const osc_sdf* inner[2][2] = {{box_a, box_b}, {ball, ellipsoid}};
    const osc_pose poses_b[2] = {{osc_v3(0.8, 0.1, 0.05), osc_quat_identity()},
                                 {osc_v3(0.6, 0.05, 0.0), osc_quat_from_axis_angle(osc_v3(0, 1, 1), 0.3)}};
    const double refused[] = {1e-100, 1e-300, 4.9e-324, 0.5 * OSC_SDF_PAIR_TEMPERATURE_MIN, -1e-3, NAN, INFINITY, 2.0};
    const double accepted[] = {OSC_SDF_PAIR_TEMPERATURE_MIN, 1e-5, 1e-2};
    double slowest_refused = 0.0, slowest = 0.0, fullest = 0.0;
    for (int pair = 0; pair < 2; ++pair) {
        counted_sdf counted[2] = {{inner[pair][0], 0}, {inner[pair][1], 0}};
        osc_sdf* sdfs[2] = {counted_create(&counted[0]), counted_create(&counted[1])};
        osc_sdf_shape a = {.sdf = sdfs[0]}, b = {.sdf = sdfs[1]};
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
            settings.temperature = refused[i];
            osc_sdf_pair_output out = output();
            double start = test_seconds();
            CHECK_STATUS(osc_sdf_pair_collide(&a, osc_pose_identity(), &b, poses_b[pair], &settings, &out),
                         OSC_ERR_INVALID_ARGUMENT);
            slowest_refused = fmax(slowest_refused, test_seconds() - start);
            CHECK_MSG(strstr(osc_last_error(), "settings.temperature") != NULL, "temperature %g: %s", refused[i],
                      osc_last_error());
        }
        for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; ++i) {
            settings.temperature = accepted[i];
            counted[0].evaluations = counted[1].evaluations = 0;
            osc_sdf_pair_output out = output();
            double start = test_seconds();
            osc_status status = osc_sdf_pair_collide(&a, osc_pose_identity(), &b, poses_b[pair], &settings, &out);
            double seconds = test_seconds() - start;
            slowest = fmax(slowest, seconds);
            CHECK_MSG(status == OSC_OK || status == OSC_ERR_CAPACITY, "%s", osc_last_error());
            CHECK(out.count > 0);
            long bound = out.spheres + (long)out.survivors * (33l * settings.max_iterations + 2);
            for (int k = 0; k < 2; ++k) {
                fullest = fmax(fullest, (double)counted[k].evaluations / (double)bound);
                CHECK_MSG(counted[k].evaluations <= bound,
                          "pair %d, temperature %g: shape %d evaluated %ld times, bound %ld (%d survivors)", pair,
                          accepted[i], k, counted[k].evaluations, bound, out.survivors);
            }
            CHECK_MSG(seconds < 20.0, "pair %d, temperature %g: %.1f s", pair, accepted[i], seconds);
        }
        osc_sdf_destroy(sdfs[0]);
        osc_sdf_destroy(sdfs[1]);
    }
    printf("  refused temperatures answered within %.2g s; accepted ones within %.2g s using at most "
           "%.2f of the evaluation bound\n",
           slowest_refused, slowest, fullest);
    CHECK(slowest_refused < 1.0);
    osc_sdf_destroy(box_a);
    osc_sdf_destroy(box_b);
    osc_sdf_destroy(ball);
    osc_sdf_destroy(ellipsoid);
}

// the points come deepest first, ties in the order found, the same with and without the Jacobian
// buffers (two sorts: one carries the Jacobians along, the other sorts the contacts alone without
// allocating)
static void test_order(void) {
    test_rng rng = {8};
    int compared = 0, ties = 0;
    for (int trial = 0; trial < 20; ++trial) {
        osc_sdf *b1, *b2;
        CHECK_STATUS(osc_sdf_create_box(osc_v3(0.6, 0.4, 0.3), 0.0, &b1), OSC_OK);
        CHECK_STATUS(osc_sdf_create_box(osc_v3(0.3, 0.5, 0.4), 0.0, &b2), OSC_OK);
        osc_sdf_shape a = {.sdf = b1}, b = {.sdf = b2};
        osc_pose pa = trial % 2 ? random_pose(&rng, 0.2) : osc_pose_identity();
        osc_pose pb = trial % 2 ? random_pose(&rng, 0.4) : osc_pose_make(osc_v3(0.2, 0.1, 0.0), osc_quat_identity());
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        settings.merge_distance = 0.5;
        osc_sdf_pair_output with = output();
        osc_status status = osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &with);
        static osc_sdf_pair_contact kept[CAPACITY];
        memcpy(kept, g_contacts, sizeof kept);
        osc_sdf_pair_output without = output();
        without.point_jacobians = NULL;
        without.distance_jacobians = NULL;
        CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &without), status);
        CHECK(with.count == without.count);
        CHECK(memcmp(kept, g_contacts, sizeof(osc_sdf_pair_contact) * (size_t)with.count) == 0);
        for (int i = 1; i < with.count; ++i) {
            CHECK(g_contacts[i].distance >= g_contacts[i - 1].distance);
            ties += g_contacts[i].distance == g_contacts[i - 1].distance;
        }
        compared += with.count;
        osc_sdf_destroy(b1);
        osc_sdf_destroy(b2);
    }
    printf("  %d points in the same order with and without Jacobians (%d ties)\n", compared, ties);
    CHECK(compared > 200 && ties > 0);
}

// a user callback mirroring the library's sphere of radius 0.8
static double user_sphere(void* context, const double p[3], double gradient[3]) {
    double radius = *(const double*)context;
    double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (gradient) {
        for (int i = 0; i < 3; ++i) gradient[i] = r > 0 ? p[i] / r : 0.0;
    }
    return r - radius;
}

static void test_callback_and_modes(void) {
    double radius = 0.8;
    osc_sdf *library, *other;
    CHECK_STATUS(osc_sdf_create_sphere(radius, &library), OSC_OK);
    CHECK_STATUS(osc_sdf_create_torus(0.7, 0.25, &other), OSC_OK);
    osc_sdf_shape user = {.function = user_sphere,
                          .context = &radius,
                          .lo = osc_v3(-radius, -radius, -radius),
                          .hi = osc_v3(radius, radius, radius)};
    osc_sdf_shape mirror = {.sdf = library}, torus = {.sdf = other};
    osc_pose pa = {osc_v3(0.1, 0.2, 0.3), osc_quat_from_axis_angle(osc_v3(1, 2, 3), 0.4)};
    osc_pose pb = {osc_v3(0.9, 0.1, 0.2), osc_quat_from_axis_angle(osc_v3(0, 1, 1), 1.1)};
    osc_sdf_pair_contact first[CAPACITY];
    osc_sdf_pair_output out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&user, pa, &torus, pb, NULL, &out), OSC_OK);
    int count = out.count;
    memcpy(first, g_contacts, sizeof(osc_sdf_pair_contact) * (size_t)count);
    out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, NULL, &out), OSC_OK);
    CHECK(out.count == count && count > 0);
    for (int i = 0; i < count && i < out.count; ++i)
        CHECK(osc_length(osc_sub(first[i].point, g_contacts[i].point)) < 1e-12);
    // first-only: one point
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.first_only = 1;
    out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, &settings, &out), OSC_OK);
    CHECK(out.count == 1);
    // capacity: reported with the count needed
    out = output();
    out.capacity = 1;
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, NULL, &out), count > 1 ? OSC_ERR_CAPACITY : OSC_OK);
    CHECK(out.needed >= count && out.count == 1);
    // smooth mode needs Hessians: not for callbacks
    settings = osc_sdf_pair_settings_default();
    settings.temperature = 1e-3;
    out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&user, pa, &torus, pb, &settings, &out), OSC_ERR_UNSUPPORTED);
    // an unbounded shape, bad shapes, bad poses, bad settings
    osc_sdf* half;
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &half), OSC_OK);
    osc_sdf_shape plane = {.sdf = half};
    CHECK_STATUS(osc_sdf_pair_collide(&plane, pa, &torus, pb, NULL, &out), OSC_ERR_UNSUPPORTED);
    CHECK(strstr(osc_last_error(), "bounding box") != NULL);
    osc_sdf_shape both = {.sdf = library, .function = user_sphere};
    CHECK_STATUS(osc_sdf_pair_collide(&both, pa, &torus, pb, NULL, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_pair_collide(NULL, pa, &torus, pb, NULL, &out), OSC_ERR_INVALID_ARGUMENT);
    osc_sdf_shape unbounded_user = user;
    unbounded_user.hi.x = INFINITY;
    CHECK_STATUS(osc_sdf_pair_collide(&unbounded_user, pa, &torus, pb, NULL, &out), OSC_ERR_UNSUPPORTED);
    osc_sdf_shape boxless_user = {.function = user_sphere, .context = &radius};
    CHECK_STATUS(osc_sdf_pair_collide(&boxless_user, pa, &torus, pb, NULL, &out), OSC_ERR_UNSUPPORTED);
    CHECK(strstr(osc_last_error(), "no bounding box") != NULL);
    osc_sdf_shape inverted_user = user;
    inverted_user.lo.y = 2.0;
    CHECK_STATUS(osc_sdf_pair_collide(&inverted_user, pa, &torus, pb, NULL, &out), OSC_ERR_INVALID_ARGUMENT);
    osc_pose bad = {osc_v3(NAN, 0, 0), osc_quat_identity()};
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, bad, &torus, pb, NULL, &out), OSC_ERR_INVALID_ARGUMENT);
    settings = osc_sdf_pair_settings_default();
    settings.resolution = 0;
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, &settings, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "resolution") != NULL);
    settings = osc_sdf_pair_settings_default();
    settings.step = -1.0;
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, &settings, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_pair_collide(&mirror, pa, &torus, pb, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    osc_sdf_destroy(library);
    osc_sdf_destroy(other);
    osc_sdf_destroy(half);
}

// a scene: the broad phase's candidate pairs equal the brute-force list of overlapping world boxes,
// every pair's points equal a direct pair query's, 1 and 2 threads agree bit for bit
static void test_scene(void) {
    enum { BODIES = 60, PAIRS = 400, PER_PAIR = 8 };
    test_rng rng = {4};
    osc_sdf* sdfs[BODIES];
    osc_sdf_shape shapes[BODIES];
    osc_pose poses[BODIES];
    osc_sdf_scene_body bodies[BODIES];
    for (int i = 0; i < BODIES; ++i) {
        if (i % 3 == 2)
            osc_sdf_create_menger(0.5, 2, &sdfs[i]);
        else if (i % 3 == 1)
            osc_sdf_create_box(osc_v3(0.4, 0.3, 0.5), 0.05, &sdfs[i]);
        else
            osc_sdf_create_sphere(test_uniform(&rng, 0.2, 0.6), &sdfs[i]);
        memset(&shapes[i], 0, sizeof shapes[i]);
        shapes[i].sdf = sdfs[i];
        poses[i] = random_pose(&rng, 2.5);
        bodies[i] = (osc_sdf_scene_body){&shapes[i], poses[i]};
    }
    static osc_sdf_scene_pair pairs[2][PAIRS];
    static osc_sdf_pair_contact contacts[2][PAIRS * PER_PAIR];
    unsigned char* workspace = malloc(osc_sdf_scene_workspace_size(BODIES));
    int count[2], needed[2];
    // one thread (no OpenMP team), then two, the default and far above OSC_MAX_THREADS (clamped):
    // the same bytes
    const int threads[4] = {1, 2, 0, 100000};
    CHECK_STATUS(
        scene(bodies, BODIES, NULL, PER_PAIR, pairs[0], PAIRS, contacts[0], &count[0], &needed[0], workspace, threads[0]),
        OSC_OK);
    for (int run = 1; run < 4; ++run) {
        memset(pairs[1], 0, sizeof pairs[1]);
        memset(contacts[1], 0, sizeof contacts[1]);
        CHECK_STATUS(scene(bodies, BODIES, NULL, PER_PAIR, pairs[1], PAIRS, contacts[1], &count[1], &needed[1],
                           workspace, threads[run]),
                     OSC_OK);
        CHECK(count[0] == count[1] && needed[0] == count[0]);
        CHECK(memcmp(pairs[0], pairs[1], sizeof(osc_sdf_scene_pair) * (size_t)count[0]) == 0);
        CHECK(memcmp(contacts[0], contacts[1], sizeof(osc_sdf_pair_contact) * (size_t)count[0] * PER_PAIR) == 0);
    }
    // brute force over the world boxes
    int expected = 0, colliding = 0, mismatches = 0;
    for (int i = 0; i < BODIES; ++i)
        for (int j = i + 1; j < BODIES; ++j) {
            osc_sdf_pair_output out;
            memset(&out, 0, sizeof out);
            osc_sdf_pair_contact direct[PER_PAIR];
            out.contacts = direct;
            out.capacity = PER_PAIR;
            osc_sdf_pair_collide(&shapes[i], poses[i], &shapes[j], poses[j], NULL, &out);
            if (!out.boxes_overlap) continue;
            ++expected;
            colliding += out.count > 0;
            int k = 0;
            while (k < count[0] && !(pairs[0][k].a == i && pairs[0][k].b == j)) ++k;
            if (k == count[0] || pairs[0][k].contact_count != out.count ||
                memcmp(direct, contacts[0] + pairs[0][k].first_contact, sizeof(osc_sdf_pair_contact) * (size_t)out.count) !=
                    0)
                ++mismatches;
        }
    printf("  scene of %d bodies: %d candidate pairs (brute force %d), %d colliding, %d mismatches\n", BODIES, count[0],
           expected, colliding, mismatches);
    CHECK(expected == count[0] && mismatches == 0 && colliding > 5);
    // capacity, and a bad body named in the message
    int small_count = 0, small_needed = 0;
    CHECK_STATUS(
        scene(bodies, BODIES, NULL, PER_PAIR, pairs[1], 3, contacts[1], &small_count, &small_needed, workspace, 1),
        OSC_ERR_CAPACITY);
    CHECK(small_count == 3 && small_needed == count[0]);
    bodies[7].pose.q = (osc_quat){0, 0, 0, 0};
    CHECK_STATUS(
        scene(bodies, BODIES, NULL, PER_PAIR, pairs[1], PAIRS, contacts[1], &small_count, &small_needed, workspace, 1),
        OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "bodies[7].pose.q") != NULL);
    free(workspace);
    for (int i = 0; i < BODIES; ++i) osc_sdf_destroy(sdfs[i]);
}

// settings and geometry out of range are refused, naming the argument and its value: a flag that is
// neither 0 nor 1, a user box beyond OSC_SDF_LENGTH_MAX or smaller than OSC_SDF_LENGTH_MIN, a pose
// 1e200 from the origin (accepted before: its points were the shapes' centres, 0.9 deep where the
// lens is 0.24), and shapes so far from the world origin that double precision cannot resolve a
// hundredth of epsilon there; nearer, the answer is the one at the origin, moved
static void test_ranges(void) {
    osc_sdf *s1, *s2;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &s1), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &s2), OSC_OK);
    osc_sdf_shape a = {.sdf = s1}, b = {.sdf = s2};
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(1.5, 0.1, 0.0), osc_quat_identity()};
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.first_only = 2;
    osc_sdf_pair_output out = output();
    CHECK_REFUSED(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &out), "settings.first_only", "2");
    double radius = 1.0;
    osc_sdf_shape user = {.function = user_sphere, .context = &radius, .lo = osc_v3(-1, -1, -1), .hi = osc_v3(1, 1, 1)};
    osc_sdf_shape wide = user, tiny = user;
    wide.lo.y = -1e31;
    CHECK_REFUSED(osc_sdf_pair_collide(&wide, pa, &b, pb, NULL, &out), "shape a", value_text(-1e31));
    tiny.lo = osc_v3(-1e-32, -1e-32, -1e-32);
    tiny.hi = osc_v3(1e-32, 1e-32, 1e-32);
    CHECK_REFUSED(osc_sdf_pair_collide(&a, pa, &tiny, pb, NULL, &out), "shape b", NULL);
    osc_pose far = {osc_v3(1e200, 0, 0), osc_quat_identity()};
    CHECK_REFUSED(osc_sdf_pair_collide(&a, far, &b, pb, NULL, &out), "pose_a.p", value_text(1e200));
    osc_pose offset = {osc_v3(1e12, 0, 0), osc_quat_identity()};
    osc_pose offset_b = {osc_add(offset.p, pb.p), osc_quat_identity()};
    CHECK_REFUSED(osc_sdf_pair_collide(&a, offset, &b, offset_b, NULL, &out), "epsilon", NULL);
    // 1e7 from the origin (hard mode) every point is inside both shapes within epsilon and the
    // deepest is as deep as at the origin within a packing spacing; 1e4 from it (smooth mode, whose
    // refinement stops at 1e-10 of the scale) the smooth point is the origin's, moved
    osc_sdf_pair_output here = output();
    CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, NULL, &here), OSC_OK);
    double deepest_here = g_contacts[0].distance, epsilon = 1e-4 * 2.0 * sqrt(3.0);
    offset.p.x = 1e7;
    offset_b.p = osc_add(offset.p, pb.p);
    out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&a, offset, &b, offset_b, NULL, &out), OSC_OK);
    CHECK(out.count > 0 && fabs(g_contacts[0].distance - deepest_here) < 2.0 / settings.resolution);
    for (int i = 0; i < out.count; ++i)
        CHECK(fmax(world_eval(s1, offset, g_contacts[i].point), world_eval(s2, offset_b, g_contacts[i].point)) <=
              epsilon);
    settings = osc_sdf_pair_settings_default();
    settings.temperature = 1e-3;
    settings.merge_distance = 100.0;
    here = output();
    CHECK_STATUS(osc_sdf_pair_collide(&a, pa, &b, pb, &settings, &here), OSC_OK);
    osc_sdf_pair_contact smooth_here = g_contacts[0];
    offset.p = osc_v3(1e4, -1e4, 1e4);
    offset_b.p = osc_add(offset.p, pb.p);
    out = output();
    CHECK_STATUS(osc_sdf_pair_collide(&a, offset, &b, offset_b, &settings, &out), OSC_OK);
    CHECK(out.count == 1 && here.count == 1 && g_contacts[0].smooth && smooth_here.smooth);
    CHECK(osc_length(osc_sub(osc_sub(g_contacts[0].point, offset.p), smooth_here.point)) < 1e-9);
    CHECK_NEAR(g_contacts[0].distance, smooth_here.distance, 1e-10);
    osc_sdf_destroy(s1);
    osc_sdf_destroy(s2);
}

// every pointer argument of sdf_pair.h NULL, one at a time: OSC_ERR_INVALID_ARGUMENT naming it;
// NULL settings are the defaults
static void test_null_arguments(void) {
    osc_sdf* ball;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &ball), OSC_OK);
    osc_sdf_shape shape = {.sdf = ball};
    osc_pose pa = osc_pose_identity(), pb = {osc_v3(0.6, 0, 0), osc_quat_identity()};
    osc_sdf_pair_output out = output();
    CHECK_REFUSED(osc_sdf_pair_collide(NULL, pa, &shape, pb, NULL, &out), "shape a is NULL", NULL);
    CHECK_REFUSED(osc_sdf_pair_collide(&shape, pa, NULL, pb, NULL, &out), "shape b is NULL", NULL);
    CHECK_REFUSED(osc_sdf_pair_collide(&shape, pa, &shape, pb, NULL, NULL), "output is NULL", NULL);
    out.contacts = NULL;
    CHECK_REFUSED(osc_sdf_pair_collide(&shape, pa, &shape, pb, NULL, &out), "output->contacts", NULL);
    out = output();
    out.capacity = -1;
    CHECK_REFUSED(osc_sdf_pair_collide(&shape, pa, &shape, pb, NULL, &out), "output->capacity", "-1");
    out = output();
    out.point_jacobians = out.distance_jacobians = NULL; // nullable
    CHECK_STATUS(osc_sdf_pair_collide(&shape, pa, &shape, pb, NULL, &out), OSC_OK);
    CHECK(out.count > 0);
    // scenes
    osc_sdf_shape shapes[2] = {shape, shape};
    osc_pose poses[2] = {pa, pb};
    osc_sdf_scene_pair pairs[1];
    osc_sdf_pair_contact contacts[4];
    int count = 0, needed = 0;
    static unsigned char workspace[1024];
    CHECK(osc_sdf_scene_workspace_size(2) <= sizeof workspace);
    osc_sdf_scene_body bodies[2] = {{&shapes[0], poses[0]}, {&shapes[1], poses[1]}};
    osc_sdf_scene_output scene_out = {pairs, 1, 0, 0, contacts, 4};
    CHECK_REFUSED(osc_sdf_scene_collide(bodies, 2, NULL, NULL, workspace, 1), "output is NULL", NULL);
    CHECK_REFUSED(osc_sdf_scene_collide(NULL, 2, NULL, &scene_out, workspace, 1), "bodies", NULL);
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, NULL, 1, contacts, &count, &needed, workspace, 1), "output->pairs", NULL);
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, pairs, 1, NULL, &count, &needed, workspace, 1), "output->contacts", NULL);
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, pairs, 1, contacts, &count, &needed, NULL, 1), "workspace", NULL);
    CHECK_REFUSED(scene(bodies, 2, NULL, 0, pairs, 1, contacts, &count, &needed, workspace, 1),
                  "output->contacts_per_pair", "0");
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, pairs, -2, contacts, &count, &needed, workspace, 1), "output->capacity",
                  "-2");
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, pairs, 1, contacts, &count, &needed, workspace, -1), "threads", "-1");
    bodies[1].shape = NULL;
    CHECK_REFUSED(scene(bodies, 2, NULL, 4, pairs, 1, contacts, &count, &needed, workspace, 1), "bodies[1].shape",
                  NULL);
    bodies[1].shape = &shapes[1];
    osc_sdf_pair_settings bad = osc_sdf_pair_settings_default();
    bad.resolution = 0;
    CHECK_REFUSED(scene(bodies, 2, &bad, 4, pairs, 1, contacts, &count, &needed, workspace, 1),
                  "osc_sdf_scene_collide: settings.resolution", "0");
    // the buffers may be NULL when nothing is written to them
    CHECK_STATUS(scene(NULL, 0, NULL, 4, NULL, 0, NULL, &count, &needed, NULL, 1), OSC_OK);
    CHECK_STATUS(scene(bodies, 2, NULL, 4, NULL, 0, NULL, &count, &needed, workspace, 1), OSC_ERR_CAPACITY);
    CHECK(count == 0 && needed == 1);
    CHECK_STATUS(scene(bodies, 2, NULL, 4, pairs, 1, contacts, &count, &needed, workspace, 1), OSC_OK);
    CHECK(count == 1 && pairs[0].contact_count > 0);
    osc_sdf_destroy(ball);
}

// a scene of 65,537 bodies in one place has 2,147,516,416 candidate pairs, more than an int holds:
// they are counted in 64 bits (an int wrapped negative and wrote before the pairs buffer), the
// count saturates and the first pairs are still done
static void test_scene_pair_count_overflow(void) {
    enum { BODIES = 65537, CAPACITY_PAIRS = 4 };
    osc_sdf* ball;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &ball), OSC_OK);
    osc_sdf_shape shape = {.sdf = ball};
    osc_sdf_scene_body* bodies = calloc(BODIES, sizeof *bodies);
    void* workspace = malloc(osc_sdf_scene_workspace_size(BODIES));
    for (int i = 0; i < BODIES; ++i)
        bodies[i] = (osc_sdf_scene_body){&shape, osc_pose_make(osc_v3(1e-3 * (i % 7), 0, 0), osc_quat_identity())};
    osc_sdf_scene_pair pairs[CAPACITY_PAIRS + 1];
    pairs[CAPACITY_PAIRS].a = -7; // a guard after the buffer
    osc_sdf_pair_contact contacts[CAPACITY_PAIRS];
    int count = 0, needed = 0;
    double start = test_seconds();
    osc_status status = scene(bodies, BODIES, NULL, 1, pairs, CAPACITY_PAIRS, contacts, &count, &needed, workspace, 1);
    printf("  %d bodies in one place: pairs needed %d, counted in %.1f s\n", BODIES, needed, test_seconds() - start);
    CHECK_STATUS(status, OSC_ERR_CAPACITY);
    CHECK(strstr(osc_last_error(), "2147516416") != NULL);
    CHECK(count == CAPACITY_PAIRS && needed == INT32_MAX && pairs[CAPACITY_PAIRS].a == -7);
    for (int k = 0; k < count; ++k) CHECK(pairs[k].a < pairs[k].b && pairs[k].contact_count == 1);
    free(workspace);
    free(bodies);
    osc_sdf_destroy(ball);
}

int main(void) {
    RUN(test_sphere_lens);
    RUN(test_box_box);
    RUN(test_spline_shape);
    RUN(test_apart);
    RUN(test_false_negatives_against_sampling);
    RUN(test_smooth_jacobians);
    RUN(test_smooth_bounded_work);
    RUN(test_order);
    RUN(test_callback_and_modes);
    RUN(test_scene);
    RUN(test_ranges);
    RUN(test_null_arguments);
    RUN(test_scene_pair_count_overflow);
    return test_finish();
}
