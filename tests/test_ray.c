// test_ray.c: rays against implicit surfaces (implicit.h, ray.h). Oracles: ray-sphere and ray-conic
// intersections in closed form (hits, misses outside the aperture, rays starting past the surface,
// the nearer of two roots), asphere points against the closed-form sag, a placed (anchored, scaled,
// rotated, translated) sphere against its closed form, every derivative against central
// differences, a plano-convex lens focusing parallel rays at the lensmaker's focal length, the
// batch against single calls (its wide path too, bit for bit), bad input.

#include "test_common.h"

#include <osculate/osculate.h>

#include <string.h>

static osc_implicit* make_sag(double R, double k, int count, const double* coefficients, double D) {
    osc_sag sag;
    memset(&sag, 0, sizeof sag);
    sag.curvature = 1.0 / R;
    sag.conic = k;
    sag.coefficient_count = count;
    for (int i = 0; i < count; ++i) sag.coefficients[i] = coefficients[i];
    sag.diameter = D;
    osc_implicit* s = NULL;
    CHECK_STATUS(osc_implicit_create_sag(&sag, &s), OSC_OK);
    return s;
}

// the smallest root t >= 0 of (1 + k) x^2 - 2 R x + r^2 = 0 along P + t V with |r| <= D/2 and x on
// the vertex branch (x <= R / (1 + k) for k > -1), or NAN
static double conic_root(double R, double k, double D, osc_vec3 P, osc_vec3 V) {
    double a = (1 + k) * V.x * V.x + V.y * V.y + V.z * V.z;
    double b = 2 * ((1 + k) * P.x * V.x - R * V.x + P.y * V.y + P.z * V.z);
    double c = (1 + k) * P.x * P.x - 2 * R * P.x + P.y * P.y + P.z * P.z;
    double roots[2];
    int n = 0;
    if (fabs(a) < 1e-15) {
        roots[n++] = -c / b;
    } else {
        double disc = b * b - 4 * a * c;
        if (disc < 0) return NAN;
        double q = -0.5 * (b + copysign(sqrt(disc), b));
        roots[n++] = q / a;
        roots[n++] = c / q;
    }
    double best = NAN;
    for (int i = 0; i < n; ++i) {
        double t = roots[i];
        osc_vec3 x = osc_add_scaled(P, V, t);
        bool branch = 1 + k <= 0 || x.x <= R / (1 + k) + 1e-12;
        if (t >= 0 && branch && hypot(x.y, x.z) <= 0.5 * D && (isnan(best) || t < best)) best = t;
    }
    return best;
}

static void test_sphere_and_conic_closed_form(void) {
    test_rng rng = {1};
    double ks[4] = {0.0, -0.5, -1.0, 0.8};
    int hits = 0, misses = 0;
    for (int kk = 0; kk < 4; ++kk) {
        double R = 20.0, D = 15.0, k = ks[kk];
        osc_implicit* s = make_sag(R, k, 0, NULL, D);
        for (int trial = 0; trial < 500; ++trial) {
            osc_vec3 P, V;
            if (trial % 4 == 3) { // across the axis: two roots, the nearer one
                P = osc_v3(test_uniform(&rng, 0.05, 1.0), -12.0, test_uniform(&rng, -2, 2));
                V = osc_normalize(osc_v3(test_uniform(&rng, -0.05, 0.05), 1.0, 0.0));
            } else if (trial % 4 == 2) { // starting past the vertex, going back
                P = osc_v3(3.0, test_uniform(&rng, -7, 7), test_uniform(&rng, -7, 7));
                V = osc_normalize(osc_v3(-1.0, test_uniform(&rng, -0.2, 0.2), test_uniform(&rng, -0.2, 0.2)));
            } else {
                P = osc_v3(-5.0, test_uniform(&rng, -9, 9), test_uniform(&rng, -9, 9)); // some outside D
                V = osc_normalize(osc_v3(1.0, test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3)));
            }
            double expected = conic_root(R, k, D, P, V);
            osc_ray_hit hit, iterative;
            osc_ray_settings phases = osc_ray_settings_default();
            phases.analytic_conics = 0;
            CHECK_STATUS(osc_ray_intersect(s, NULL, P, V, NULL, &hit, NULL), OSC_OK);
            CHECK_STATUS(osc_ray_intersect(s, NULL, P, V, &phases, &iterative, NULL), OSC_OK);
            CHECK(iterative.hit == hit.hit);
            if (hit.hit) CHECK_NEAR(iterative.t, hit.t, 1e-9);
            if (isnan(expected)) {
                ++misses;
                CHECK_MSG(!hit.hit, "k %g trial %d: hit at t %g where the closed form has none", k, trial, hit.t);
            } else {
                ++hits;
                CHECK_MSG(hit.hit && fabs(hit.t - expected) < 1e-9, "k %g trial %d: t %.12g hit %d, expected %.12g",
                          k, trial, hit.t, hit.hit, expected);
                // the normal is the conic's: grad of (1 + k) x^2 - 2 R x + r^2, up to sign
                osc_vec3 x = hit.point;
                osc_vec3 n = osc_normalize(osc_v3(2 * (1 + k) * x.x - 2 * R, 2 * x.y, 2 * x.z));
                CHECK_NEAR(fabs(osc_dot(n, hit.normal)), 1.0, 1e-9);
            }
        }
        osc_implicit_destroy(s);
    }
    printf("  conics k in {0, -0.5, -1, 0.8}: %d hits and %d misses against the closed form\n", hits, misses);
    CHECK(hits > 800 && misses > 200);
}

static void test_asphere_sag(void) {
    double coefficients[3] = {1e-4, -1e-6, 1e-8};
    osc_implicit* s = make_sag(20.0, -1.0, 3, coefficients, 15.0);
    test_rng rng = {2};
    for (int trial = 0; trial < 300; ++trial) {
        osc_vec3 P = osc_v3(-3.0, test_uniform(&rng, -5, 5), test_uniform(&rng, -5, 5));
        osc_vec3 V = osc_normalize(osc_v3(1.0, test_uniform(&rng, -0.2, 0.2), test_uniform(&rng, -0.2, 0.2)));
        osc_ray_hit hit, iterative;
        osc_ray_settings phases = osc_ray_settings_default();
        phases.analytic_conics = 0; // beams and phases instead of the base conic's start
        CHECK_STATUS(osc_ray_intersect(s, NULL, P, V, NULL, &hit, NULL), OSC_OK);
        CHECK_STATUS(osc_ray_intersect(s, NULL, P, V, &phases, &iterative, NULL), OSC_OK);
        CHECK(hit.hit && iterative.hit);
        CHECK_NEAR(hit.t, iterative.t, 1e-10);
        double r = hypot(hit.point.y, hit.point.z), r2 = r * r;
        double sag = r2 / (20.0 * (1.0 + sqrt(1.0 - 0.0 * r2 / 400.0))) + 1e-4 * r2 * r2 -
                     1e-6 * r2 * r2 * r2 + 1e-8 * r2 * r2 * r2 * r2;
        CHECK_NEAR(hit.point.x, sag, 1e-10);
        double derivative, g = osc_implicit_sag(s, r, &derivative);
        CHECK_NEAR(g, sag, 1e-13);
    }
    osc_implicit_destroy(s);
}

// a sphere sag placed by anchor, scale, rotation and translation against the placed sphere
static void test_transform(void) {
    osc_implicit* s = make_sag(5.0, 0.0, 0, NULL, 8.0);
    osc_implicit_transform tr = {osc_v3(0.3, 0.1, -0.2), 1.7,
                                 osc_quat_from_axis_angle(osc_normalize(osc_v3(1, 2, 3)), 0.7),
                                 osc_v3(2.0, -1.0, 0.5)};
    osc_mat3 R = osc_quat_to_mat3(tr.rotation);
    // the local sphere: centre (5, 0, 0), radius 5; placed: X = R s (x - anchor) + T
    osc_vec3 centre = osc_add(osc_mat3_apply(R, osc_scale(osc_sub(osc_v3(5, 0, 0), tr.anchor), tr.scale)),
                              tr.translation);
    double radius = 5.0 * tr.scale;
    osc_vec3 vertex = osc_add(osc_mat3_apply(R, osc_scale(osc_neg(tr.anchor), tr.scale)), tr.translation);
    osc_vec3 axis = osc_mat3_apply(R, osc_v3(1, 0, 0));
    test_rng rng = {3};
    int inside = 0;
    for (int trial = 0; trial < 200; ++trial) {
        osc_vec3 P = osc_add(osc_add_scaled(vertex, axis, -6.0),
                             osc_mat3_apply(R, osc_v3(0, test_uniform(&rng, -5, 5), test_uniform(&rng, -5, 5))));
        osc_vec3 V = osc_normalize(osc_add(axis, osc_v3(test_uniform(&rng, -0.1, 0.1), test_uniform(&rng, -0.1, 0.1), 0)));
        osc_ray_hit hit;
        CHECK_STATUS(osc_ray_intersect(s, &tr, P, V, NULL, &hit, NULL), OSC_OK);
        // nearer root of |P + t V - C| = radius
        osc_vec3 m = osc_sub(P, centre);
        double b = osc_dot(m, V), c = osc_dot(m, m) - radius * radius, disc = b * b - c;
        CHECK(disc > 0);
        double expected = -b - sqrt(disc);
        // inside the aperture (D / 2 = 4 in the surface frame) or not
        osc_vec3 local = osc_add(osc_scale(osc_mat3_apply_transpose(R, osc_sub(osc_add_scaled(P, V, expected),
                                                                                tr.translation)),
                                           1.0 / tr.scale),
                                 tr.anchor);
        if (hypot(local.y, local.z) > 4.0) {
            CHECK(!hit.hit);
            continue;
        }
        ++inside;
        CHECK(hit.hit);
        CHECK_NEAR(hit.t, expected, 1e-9);
        CHECK_NEAR(fabs(osc_dot(hit.normal, osc_scale(osc_sub(hit.point, centre), 1.0 / radius))), 1.0, 1e-9);
    }
    CHECK(inside > 100);
    osc_implicit_destroy(s);
}

// every algorithm as the fine phase (after a one-step coarse phase) reaches the sphere's root
static void test_algorithms(void) {
    osc_implicit* s = make_sag(20.0, 0.0, 0, NULL, 15.0);
    osc_ray_phase phases[4] = {{OSC_RAY_NEWTON, 40, 0.5, 0.5},
                               {OSC_RAY_GRADIENT_DESCENT, 400, 0.5, 0.0},
                               {OSC_RAY_LEVENBERG_MARQUARDT, 60, 1e-2, 0.0},
                               {OSC_RAY_LEVENBERG_MARQUARDT, 40, 0.0, 0.0}}; // Gauss-Newton
    test_rng rng = {6};
    for (int a = 0; a < 4; ++a)
        for (int trial = 0; trial < 50; ++trial) {
            osc_vec3 P = osc_v3(-5.0, test_uniform(&rng, -6, 6), test_uniform(&rng, -6, 6));
            osc_vec3 V = osc_normalize(osc_v3(1.0, test_uniform(&rng, -0.1, 0.1), test_uniform(&rng, -0.1, 0.1)));
            double expected = conic_root(20.0, 0.0, 15.0, P, V);
            if (isnan(expected)) continue;
            osc_ray_settings settings = osc_ray_settings_default();
            settings.analytic_conics = 0; // the phases, not the closed form
            settings.coarse.iterations = 1;
            settings.fine = phases[a];
            settings.final_step.iterations = 0;
            osc_ray_hit hit;
            CHECK_STATUS(osc_ray_intersect(s, NULL, P, V, &settings, &hit, NULL), OSC_OK);
            CHECK_MSG(hit.hit && fabs(hit.t - expected) < 1e-8, "algorithm %d trial %d: t %.12g, expected %.12g",
                      a, trial, hit.t, expected);
        }
    osc_implicit_destroy(s);
}

// every derivative against central differences
static void test_derivatives(void) {
    double coefficients[2] = {2e-4, -3e-6};
    double R = 20.0, k = -0.6, D = 15.0;
    osc_implicit* s = make_sag(R, k, 2, coefficients, D);
    osc_implicit_transform tr = {osc_v3(0.1, 0.2, 0.0), 1.3, osc_quat_from_axis_angle(osc_v3(0, 0, 1), 0.2),
                                 osc_v3(0.5, -0.3, 0.2)};
    test_rng rng = {4};
    double worst = 0.0;
    for (int trial = 0; trial < 30; ++trial) {
        osc_vec3 P = osc_v3(-4.0, test_uniform(&rng, -4, 4), test_uniform(&rng, -4, 4));
        osc_vec3 V = osc_normalize(osc_v3(1.0, test_uniform(&rng, -0.2, 0.2), test_uniform(&rng, -0.2, 0.2)));
        double to[3], td[3], po[9], pd[9], no[9], nd[9], tp[6], tpar[4], pp[18], np[18], ppar[12], npar[12];
        double tanchor[3], tscale;
        osc_ray_jacobians jac = {to, td, po, pd, no, nd, tp, tpar, pp, np, ppar, npar, tanchor, &tscale};
        // the surface-pose normal derivative also when the ray's normal derivatives are not asked
        double np_alone[18];
        osc_ray_jacobians alone = {.normal_surface_pose = np_alone};
        osc_ray_hit hit_alone;
        CHECK_STATUS(osc_ray_intersect(s, &tr, P, V, NULL, &hit_alone, &alone), OSC_OK);
        osc_ray_hit hit;
        CHECK_STATUS(osc_ray_intersect(s, &tr, P, V, NULL, &hit, &jac), OSC_OK);
        if (!hit.hit) continue;
        CHECK(memcmp(np, np_alone, sizeof np) == 0);
        double h = 1e-6;
        for (int axis = 0; axis < 3; ++axis) {
            osc_vec3 e = osc_v3(axis == 0, axis == 1, axis == 2);
            for (int which = 0; which < 2; ++which) {
                osc_ray_hit plus, minus;
                osc_vec3 P1 = which ? P : osc_add_scaled(P, e, h), P2 = which ? P : osc_add_scaled(P, e, -h);
                osc_vec3 V1 = which ? osc_add_scaled(V, e, h) : V, V2 = which ? osc_add_scaled(V, e, -h) : V;
                osc_ray_intersect(s, &tr, P1, V1, NULL, &plus, NULL);
                osc_ray_intersect(s, &tr, P2, V2, NULL, &minus, NULL);
                double dt = (plus.t - minus.t) / (2 * h);
                worst = fmax(worst, fabs(dt - (which ? td : to)[axis]));
                osc_vec3 dp = osc_scale(osc_sub(plus.point, minus.point), 0.5 / h);
                osc_vec3 dn = osc_scale(osc_sub(plus.normal, minus.normal), 0.5 / h);
                const double* pj = which ? pd : po;
                const double* nj = which ? nd : no;
                for (int i = 0; i < 3; ++i) {
                    worst = fmax(worst, fabs(osc_vec3_get(dp, i) - pj[3 * i + axis]));
                    worst = fmax(worst, fabs(osc_vec3_get(dn, i) - nj[3 * i + axis]));
                }
            }
        }
        // the surface's pose (translation and rotation twist) and the sag's parameters
        for (int c = 0; c < 6; ++c) {
            double values[2];
            osc_vec3 pose_points[2], pose_normals[2];
            for (int side = 0; side < 2; ++side) {
                double xi[6] = {0};
                xi[c] = side ? -h : h;
                osc_pose pose = osc_pose_apply_twist(osc_pose_make(tr.translation, tr.rotation), xi);
                osc_implicit_transform moved = tr;
                moved.translation = pose.p;
                moved.rotation = pose.q;
                osc_ray_hit r;
                osc_ray_intersect(s, &moved, P, V, NULL, &r, NULL);
                values[side] = r.t;
                pose_points[side] = r.point;
                pose_normals[side] = r.normal;
            }
            worst = fmax(worst, fabs((values[0] - values[1]) / (2 * h) - tp[c]));
            for (int i = 0; i < 3; ++i) {
                double dpoint = (osc_vec3_get(pose_points[0], i) - osc_vec3_get(pose_points[1], i)) / (2 * h);
                double dnormal = (osc_vec3_get(pose_normals[0], i) - osc_vec3_get(pose_normals[1], i)) / (2 * h);
                worst = fmax(worst, fabs(dpoint - pp[6 * i + c]));
                worst = fmax(worst, fabs(dnormal - np[6 * i + c]));
            }
        }
        // the anchor and the scale
        for (int c = 0; c < 4; ++c) {
            double values[2];
            for (int side = 0; side < 2; ++side) {
                osc_implicit_transform moved = tr;
                double delta = side ? -h : h;
                if (c == 0) moved.anchor.x += delta;
                if (c == 1) moved.anchor.y += delta;
                if (c == 2) moved.anchor.z += delta;
                if (c == 3) moved.scale += delta;
                osc_ray_hit r;
                osc_ray_intersect(s, &moved, P, V, NULL, &r, NULL);
                values[side] = r.t;
            }
            double fd = (values[0] - values[1]) / (2 * h);
            worst = fmax(worst, fabs(fd - (c < 3 ? tanchor[c] : tscale)));
        }
        double params[4] = {1.0 / R, k, coefficients[0], coefficients[1]};
        for (int c = 0; c < 4; ++c) {
            double values[2];
            osc_vec3 param_points[2], param_normals[2];
            double step = c < 2 ? 1e-7 : 1e-9;
            for (int side = 0; side < 2; ++side) {
                double q[4];
                memcpy(q, params, sizeof q);
                q[c] += side ? -step : step;
                osc_implicit* moved = make_sag(1.0 / q[0], q[1], 2, q + 2, D);
                osc_ray_hit r;
                osc_ray_intersect(moved, &tr, P, V, NULL, &r, NULL);
                values[side] = r.t;
                param_points[side] = r.point;
                param_normals[side] = r.normal;
                osc_implicit_destroy(moved);
            }
            double fd = (values[0] - values[1]) / (2 * step);
            worst = fmax(worst, fabs(fd - tpar[c]) / fmax(1.0, fabs(fd)));
            for (int i = 0; i < 3; ++i) {
                double dpoint = (osc_vec3_get(param_points[0], i) - osc_vec3_get(param_points[1], i)) / (2 * step);
                double dnormal = (osc_vec3_get(param_normals[0], i) - osc_vec3_get(param_normals[1], i)) / (2 * step);
                worst = fmax(worst, fabs(dpoint - ppar[4 * i + c]) / fmax(1.0, fabs(dpoint)));
                worst = fmax(worst, fabs(dnormal - npar[4 * i + c]) / fmax(1.0, fabs(dnormal)));
            }
        }
    }
    printf("  derivatives of t, point and normal (ray, surface pose, sag parameters; t: anchor, scale): worst error "
           "against central differences %.2g\n", worst);
    CHECK(worst < 1e-5);
    osc_implicit_destroy(s);
}

// a plano-convex lens (sphere R, index n, thin) focuses paraxial parallel rays at f = R / (n - 1)
static osc_vec3 refract(osc_vec3 v, osc_vec3 normal, double ratio) {
    osc_vec3 n = osc_dot(normal, v) > 0 ? osc_neg(normal) : normal; // facing the incoming ray
    double cosi = -osc_dot(n, v), sin2t = ratio * ratio * (1 - cosi * cosi);
    return osc_normalize(osc_add(osc_scale(v, ratio), osc_scale(n, ratio * cosi - sqrt(1 - sin2t))));
}

static void test_lens_focus(void) {
    double R = 50.0, n = 1.5, thickness = 0.5;
    osc_implicit* front = make_sag(R, 0.0, 0, NULL, 20.0);
    osc_implicit* back = make_sag(1e12, 0.0, 0, NULL, 20.0); // flat (c ~ 0)
    osc_implicit_transform back_place = osc_implicit_transform_identity();
    back_place.translation = osc_v3(thickness, 0, 0);
    double sum = 0.0;
    int count = 0;
    for (int i = 1; i <= 10; ++i) {
        double height = 0.05 * i; // paraxial
        osc_vec3 P = osc_v3(-10, height, 0), V = osc_v3(1, 0, 0);
        osc_ray_hit h1, h2;
        CHECK_STATUS(osc_ray_intersect(front, NULL, P, V, NULL, &h1, NULL), OSC_OK);
        CHECK(h1.hit);
        osc_vec3 v1 = refract(V, h1.normal, 1.0 / n);
        CHECK_STATUS(osc_ray_intersect(back, &back_place, h1.point, v1, NULL, &h2, NULL), OSC_OK);
        CHECK(h2.hit);
        osc_vec3 v2 = refract(v1, h2.normal, n);
        double t_axis = -h2.point.y / v2.y; // where it crosses the axis
        sum += h2.point.x + t_axis * v2.x;
        ++count;
    }
    double focus = sum / count; // measured from the vertex; the thin-lens focal length R / (n - 1)
    double f = R / (n - 1.0);
    // a thick lens's back focal distance: f - thickness / n from the back face
    double expected = thickness + f - thickness / n;
    printf("  plano-convex lens R %g n %g: paraxial focus at x = %.6f, lensmaker %.6f\n", R, n, focus, expected);
    CHECK(fabs(focus - expected) < 5e-5 * f); // 0.0011 apart: paraxial rays of a thick lens
    osc_implicit_destroy(front);
    osc_implicit_destroy(back);
}

// a user surface that answers NaN: every beam's |Q| is NaN; the ray is a miss, nothing is read out
// of bounds
static double nan_surface(void* context, const double point[3], double gradient[3]) {
    (void)context;
    (void)point;
    gradient[0] = gradient[1] = gradient[2] = NAN;
    return NAN;
}

static void test_batch_and_bad_input(void) {
    osc_implicit* broken = NULL;
    CHECK_STATUS(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, 0, 0), 1.0, &broken), OSC_OK);
    osc_ray_hit broken_hit;
    CHECK_STATUS(osc_ray_intersect(broken, NULL, osc_v3(-3, 0, 0), osc_v3(1, 0, 0), NULL, &broken_hit, NULL), OSC_OK);
    CHECK(!broken_hit.hit);
    osc_implicit_destroy(broken);
    osc_implicit* s = make_sag(20.0, -0.5, 0, NULL, 15.0);
    enum { N = 5000 };
    static double origins[N * 3], directions[N * 3], t[N], points[N * 3], normals[N * 3];
    static unsigned char hits[N];
    test_rng rng = {5};
    for (int i = 0; i < N; ++i) {
        origins[3 * i] = -5;
        origins[3 * i + 1] = test_uniform(&rng, -9, 9);
        origins[3 * i + 2] = test_uniform(&rng, -9, 9);
        osc_vec3 v = osc_normalize(osc_v3(1, test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3)));
        memcpy(directions + 3 * i, &v, sizeof v);
    }
    CHECK_STATUS(osc_ray_intersect_batch(s, NULL, N, origins, directions, NULL, t, points, normals, hits, 2), OSC_OK);
    int mismatches = 0;
    for (int i = 0; i < N; ++i) {
        osc_ray_hit h;
        osc_ray_intersect(s, NULL, osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                          osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]), NULL, &h, NULL);
        mismatches += memcmp(&h.t, &t[i], sizeof(double)) != 0 || h.hit != hits[i] ||
                      memcmp(&h.point, points + 3 * i, sizeof h.point) != 0 ||
                      memcmp(&h.normal, normals + 3 * i, sizeof h.normal) != 0;
    }
    CHECK(mismatches == 0);
    directions[3 * 17] = directions[3 * 17 + 1] = directions[3 * 17 + 2] = 0.0;
    directions[3 * 4000] = NAN;
    for (int threads = 1; threads <= 2; ++threads) { // the lowest bad ray is named, with its values
        CHECK_STATUS(osc_ray_intersect_batch(s, NULL, N, origins, directions, NULL, t, NULL, NULL, NULL, threads),
                     OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(osc_last_error(), "ray 17 ") != NULL && strstr(osc_last_error(), "direction (0, 0, 0)") &&
                  isnan(t[17]) && isnan(t[4000]), "%s", osc_last_error());
    }
    directions[3 * 4000] = 1.0;
    // bad rays, transforms, settings, surfaces
    osc_ray_hit h;
    CHECK_STATUS(osc_ray_intersect(NULL, NULL, osc_v3(0, 0, 0), osc_v3(1, 0, 0), NULL, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_ray_intersect(s, NULL, osc_v3(NAN, 0, 0), osc_v3(1, 0, 0), NULL, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_ray_intersect(s, NULL, osc_v3(0, 0, 0), osc_v3(0, 0, 0), NULL, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    osc_implicit_transform bad = osc_implicit_transform_identity();
    bad.scale = 0.0;
    CHECK_STATUS(osc_ray_intersect(s, &bad, osc_v3(-1, 0, 0), osc_v3(1, 0, 0), NULL, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    osc_ray_settings settings = osc_ray_settings_default();
    settings.beams = 0;
    CHECK_STATUS(osc_ray_intersect(s, NULL, osc_v3(-1, 0, 0), osc_v3(1, 0, 0), &settings, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    settings = osc_ray_settings_default();
    settings.fine.damping = -1.0;
    CHECK_STATUS(osc_ray_intersect(s, NULL, osc_v3(-1, 0, 0), osc_v3(1, 0, 0), &settings, &h, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "fine") != NULL);
    osc_sag sag = {.curvature = 1.0 / 5.0, .conic = 0.0, .diameter = 12.0}; // beyond the sphere
    osc_implicit* none = NULL;
    CHECK_STATUS(osc_implicit_create_sag(&sag, &none), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "domain") != NULL);
    sag.diameter = -1.0;
    CHECK_STATUS(osc_implicit_create_sag(&sag, &none), OSC_ERR_INVALID_ARGUMENT);
    osc_sdf* sphere;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_implicit* sdf_surface;
    CHECK_STATUS(osc_implicit_create_sdf(sphere, &sdf_surface), OSC_OK);
    double tpar[2];
    osc_ray_jacobians jac = {.t_parameters = tpar};
    CHECK_STATUS(osc_ray_intersect(sdf_surface, NULL, osc_v3(-3, 0.2, 0), osc_v3(1, 0, 0), NULL, &h, &jac),
                 OSC_ERR_INVALID_ARGUMENT);
    // an SDF surface with sphere tracing: the unit sphere's near root
    settings = osc_ray_settings_default();
    settings.coarse.algorithm = OSC_RAY_SPHERE_TRACING;
    settings.coarse.iterations = 30;
    settings.beams = 1;
    settings.init = OSC_RAY_INIT_ZERO;
    CHECK_STATUS(osc_ray_intersect(sdf_surface, NULL, osc_v3(-3, 0.2, 0), osc_v3(1, 0, 0), &settings, &h, NULL), OSC_OK);
    CHECK(h.hit);
    CHECK_NEAR(h.t, 3.0 - sqrt(1.0 - 0.04), 1e-9);
    osc_implicit_destroy(sdf_surface);
    osc_sdf_destroy(sphere);
    osc_implicit_destroy(s);
}

// the batch's wide path (groups of rays in lock step) against single calls, bit for bit: conics and
// an asphere under a transform, rays that miss, start behind the surface or are bad inside a group,
// a count that leaves a tail, and settings the wide path leaves to the scalar one
static void test_batch_wide_path(void) {
    enum { N = 1003, BAD = 13 };
    static double origins[N * 3], directions[N * 3], t[N], points[N * 3], normals[N * 3];
    static unsigned char hits[N];
    const double asphere[3] = {1e-4, -1e-6, 1e-8};
    osc_implicit* surfaces[3] = {make_sag(20.0, 0.0, 0, NULL, 15.0), make_sag(-30.0, -0.5, 0, NULL, 15.0),
                                 make_sag(20.0, -1.0, 3, asphere, 15.0)};
    osc_implicit_transform placed = osc_implicit_transform_identity();
    placed.translation = osc_v3(0.3, -0.2, 0.1);
    placed.rotation = (osc_quat){0.99, 0.05, -0.08, 0.02};
    placed.scale = 1.3;
    placed.anchor = osc_v3(0.1, 0.2, -0.3);
    test_rng rng = {11};
    for (int i = 0; i < N; ++i) {
        origins[3 * i] = i % 23 == 0 ? 30.0 : -5.0; // some start behind the surface
        origins[3 * i + 1] = test_uniform(&rng, -10, 10);
        origins[3 * i + 2] = test_uniform(&rng, -10, 10);
        osc_vec3 v = osc_normalize(osc_v3(i % 31 == 0 ? -1 : 1, test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3)));
        memcpy(directions + 3 * i, &v, sizeof v);
    }
    origins[3 * BAD + 1] = INFINITY;
    int compared = 0, hit_count = 0, mismatches = 0;
    for (int c = 0; c < 3; ++c)
        for (int variant = 0; variant < 3; ++variant) {
            osc_ray_settings settings = osc_ray_settings_default();
            if (variant == 2) settings.fine.max_step = 0.5; // a clamp: the scalar path
            const osc_implicit_transform* transform = variant == 0 ? NULL : &placed;
            CHECK_STATUS(osc_ray_intersect_batch(surfaces[c], transform, N, origins, directions, &settings, t,
                                                 points, normals, hits, 2), OSC_ERR_INVALID_ARGUMENT);
            CHECK(strstr(osc_last_error(), "ray 13") != NULL && isnan(t[BAD]) && !hits[BAD] &&
                  points[3 * BAD] == 0.0 && normals[3 * BAD] == 0.0);
            for (int i = 0; i < N; ++i) {
                if (i == BAD) continue;
                osc_ray_hit h;
                CHECK_STATUS(osc_ray_intersect(surfaces[c], transform,
                                               osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                                               osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]),
                                               &settings, &h, NULL), OSC_OK);
                mismatches += memcmp(&h.t, &t[i], sizeof(double)) != 0 || h.hit != hits[i] ||
                              memcmp(&h.point, points + 3 * i, sizeof h.point) != 0 ||
                              memcmp(&h.normal, normals + 3 * i, sizeof h.normal) != 0;
                hit_count += h.hit;
                ++compared;
            }
            // without points or normals: the same t and hits, on one thread (no OpenMP team), the default
            // and a count far above OSC_MAX_THREADS (clamped)
            static double t_only[N];
            static unsigned char hits_only[N];
            const int threads[3] = {1, 0, 100000};
            for (int k = 0; k < 3; ++k) {
                CHECK_STATUS(osc_ray_intersect_batch(surfaces[c], transform, N, origins, directions, &settings,
                                                     t_only, NULL, NULL, hits_only, threads[k]),
                             OSC_ERR_INVALID_ARGUMENT);
                for (int i = 0; i < N; ++i)
                    mismatches += i != BAD && (memcmp(&t_only[i], &t[i], sizeof(double)) != 0 || hits_only[i] != hits[i]);
            }
        }
    CHECK(mismatches == 0);
    CHECK(hit_count > compared / 4 && hit_count < compared); // hits and misses both exercised
    for (int c = 0; c < 3; ++c) osc_implicit_destroy(surfaces[c]);
}

int main(void) {
    RUN(test_sphere_and_conic_closed_form);
    RUN(test_asphere_sag);
    RUN(test_transform);
    RUN(test_algorithms);
    RUN(test_derivatives);
    RUN(test_lens_focus);
    RUN(test_batch_and_bad_input);
    RUN(test_batch_wide_path);
    return test_finish();
}
