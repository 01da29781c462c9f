// test_ray.c: rays against implicit surfaces (implicit.h, ray.h). Oracles: ray-sphere and ray-conic
// intersections in closed form (hits, misses outside the aperture, rays starting past the surface,
// the nearer of two roots), asphere points against the closed-form sag, a placed (anchored, scaled,
// rotated, translated) sphere against its closed form, every derivative against central
// differences, a plano-convex lens focusing parallel rays at the lensmaker's focal length, the
// batch against single calls (its wide path too, bit for bit), bad input.

#include "sdf_test_util.h" // CHECK_REFUSED

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
            CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){P, V}, NULL, &hit, NULL), OSC_OK);
            CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){P, V}, &phases, &iterative, NULL), OSC_OK);
            CHECK(iterative.hit == hit.hit);
            if (hit.hit) CHECK_NEAR(iterative.t, hit.t, 1e-9);
            if (isnan(expected)) {
                ++misses;
                CHECK_MSG(!hit.hit, "k %g trial %d: hit at t %g where the closed form has none", k, trial, hit.t);
            } else {
                ++hits;
                CHECK_MSG(hit.hit && fabs(hit.t - expected) < 1e-9, "k %g trial %d: t %.12g hit %d, expected %.12g", k,
                          trial, hit.t, hit.hit, expected);
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
        CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){P, V}, NULL, &hit, NULL), OSC_OK);
        CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){P, V}, &phases, &iterative, NULL), OSC_OK);
        CHECK(hit.hit && iterative.hit);
        CHECK_NEAR(hit.t, iterative.t, 1e-10);
        double r = hypot(hit.point.y, hit.point.z), r2 = r * r;
        double sag = r2 / (20.0 * (1.0 + sqrt(1.0 - 0.0 * r2 / 400.0))) + 1e-4 * r2 * r2 - 1e-6 * r2 * r2 * r2 +
                     1e-8 * r2 * r2 * r2 * r2;
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
                                 osc_quat_from_axis_angle(osc_normalize(osc_v3(1, 2, 3)), 0.7), osc_v3(2.0, -1.0, 0.5)};
    osc_mat3 R = osc_quat_to_mat3(tr.rotation);
    // the local sphere: centre (5, 0, 0), radius 5; placed: X = R s (x - anchor) + T
    osc_vec3 centre =
        osc_add(osc_mat3_apply(R, osc_scale(osc_sub(osc_v3(5, 0, 0), tr.anchor), tr.scale)), tr.translation);
    double radius = 5.0 * tr.scale;
    osc_vec3 vertex = osc_add(osc_mat3_apply(R, osc_scale(osc_neg(tr.anchor), tr.scale)), tr.translation);
    osc_vec3 axis = osc_mat3_apply(R, osc_v3(1, 0, 0));
    test_rng rng = {3};
    int inside = 0;
    for (int trial = 0; trial < 200; ++trial) {
        osc_vec3 P = osc_add(osc_add_scaled(vertex, axis, -6.0),
                             osc_mat3_apply(R, osc_v3(0, test_uniform(&rng, -5, 5), test_uniform(&rng, -5, 5))));
        osc_vec3 V =
            osc_normalize(osc_add(axis, osc_v3(test_uniform(&rng, -0.1, 0.1), test_uniform(&rng, -0.1, 0.1), 0)));
        osc_ray_hit hit;
        CHECK_STATUS(osc_ray_intersect(s, &tr, (osc_ray){P, V}, NULL, &hit, NULL), OSC_OK);
        // nearer root of |P + t V - C| = radius
        osc_vec3 m = osc_sub(P, centre);
        double b = osc_dot(m, V), c = osc_dot(m, m) - radius * radius, disc = b * b - c;
        CHECK(disc > 0);
        double expected = -b - sqrt(disc);
        // inside the aperture (D / 2 = 4 in the surface frame) or not
        osc_vec3 local =
            osc_add(osc_scale(osc_mat3_apply_transpose(R, osc_sub(osc_add_scaled(P, V, expected), tr.translation)),
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
            CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){P, V}, &settings, &hit, NULL), OSC_OK);
            CHECK_MSG(hit.hit && fabs(hit.t - expected) < 1e-8, "algorithm %d trial %d: t %.12g, expected %.12g", a,
                      trial, hit.t, expected);
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
        CHECK_STATUS(osc_ray_intersect(s, &tr, (osc_ray){P, V}, NULL, &hit_alone, &alone), OSC_OK);
        osc_ray_hit hit;
        CHECK_STATUS(osc_ray_intersect(s, &tr, (osc_ray){P, V}, NULL, &hit, &jac), OSC_OK);
        if (!hit.hit) continue;
        CHECK(memcmp(np, np_alone, sizeof np) == 0);
        double h = 1e-6;
        for (int axis = 0; axis < 3; ++axis) {
            osc_vec3 e = osc_v3(axis == 0, axis == 1, axis == 2);
            for (int which = 0; which < 2; ++which) {
                osc_ray_hit plus, minus;
                osc_vec3 P1 = which ? P : osc_add_scaled(P, e, h), P2 = which ? P : osc_add_scaled(P, e, -h);
                osc_vec3 V1 = which ? osc_add_scaled(V, e, h) : V, V2 = which ? osc_add_scaled(V, e, -h) : V;
                osc_ray_intersect(s, &tr, (osc_ray){P1, V1}, NULL, &plus, NULL);
                osc_ray_intersect(s, &tr, (osc_ray){P2, V2}, NULL, &minus, NULL);
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
                osc_ray_intersect(s, &moved, (osc_ray){P, V}, NULL, &r, NULL);
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
                osc_ray_intersect(s, &moved, (osc_ray){P, V}, NULL, &r, NULL);
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
                osc_ray_intersect(moved, &tr, (osc_ray){P, V}, NULL, &r, NULL);
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
           "against central differences %.2g\n",
           worst);
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
        CHECK_STATUS(osc_ray_intersect(front, NULL, (osc_ray){P, V}, NULL, &h1, NULL), OSC_OK);
        CHECK(h1.hit);
        osc_vec3 v1 = refract(V, h1.normal, 1.0 / n);
        CHECK_STATUS(osc_ray_intersect(back, &back_place, (osc_ray){h1.point, v1}, NULL, &h2, NULL), OSC_OK);
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

// the batch through arrays of coordinates, as the tests were written: origins and directions [n][3]
// in, t [n] (required), points and normals [n][3] and hits [n] (nullable) out. Every hit is also
// compared, whole (iterations included), with the single call's, and each status with its own;
// the single calls run first, so that the batch's message is the last one
static int g_batch_mismatches;
static osc_status batch_soa(const osc_implicit* surface, const osc_implicit_transform* transform, size_t n,
                            const double* origins, const double* directions, const osc_ray_settings* settings,
                            double* t, double* points, double* normals, unsigned char* hits, int threads) {
    if (!origins || !directions || !t)
        return osc_ray_intersect_batch(surface, transform, NULL, n, settings, NULL, NULL, threads);
    osc_ray* rays = calloc(n ? n : 1, sizeof *rays);
    osc_ray_hit* out = calloc(n ? n : 1, sizeof *out);
    osc_ray_hit* alone = calloc(n ? n : 1, sizeof *alone);
    osc_status* statuses = calloc(n ? n : 1, sizeof *statuses);
    osc_status* alone_statuses = calloc(n ? n : 1, sizeof *alone_statuses);
    for (size_t i = 0; i < n; ++i) {
        rays[i] = (osc_ray){osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                            osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2])};
        alone_statuses[i] = osc_ray_intersect(surface, transform, rays[i], settings, &alone[i], NULL);
    }
    for (size_t i = 0; i < n; ++i) statuses[i] = (osc_status)-1; // not written: a refusal of the whole batch
    osc_status status = osc_ray_intersect_batch(surface, transform, rays, n, settings, out, statuses, threads);
    for (size_t i = 0; i < n && (status == OSC_OK || statuses[i] != (osc_status)-1); ++i) {
        t[i] = out[i].t;
        if (points) memcpy(points + 3 * i, &out[i].point, sizeof out[i].point);
        if (normals) memcpy(normals + 3 * i, &out[i].normal, sizeof out[i].normal);
        if (hits) hits[i] = (unsigned char)out[i].hit;
        if (alone_statuses[i] != statuses[i] ||
            (statuses[i] == OSC_OK && memcmp(&alone[i], &out[i], sizeof out[i]) != 0)) {
            if (g_batch_mismatches < 5)
                fprintf(stderr, "  batch ray %zu: status %d / %d, t %a / %a, hit %d / %d, iterations %d / %d, grazing %d / %d\n", i,
                        (int)statuses[i], (int)alone_statuses[i], out[i].t, alone[i].t, out[i].hit, alone[i].hit,
                        out[i].iterations, alone[i].iterations, out[i].grazing, alone[i].grazing);
            ++g_batch_mismatches;
        }
    }
    free(rays);
    free(out);
    free(alone);
    free(statuses);
    free(alone_statuses);
    return status;
}

static void test_batch_and_bad_input(void) {
    osc_implicit* broken = NULL;
    CHECK_STATUS(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, 0, 0), 1.0, &broken), OSC_OK);
    osc_ray_hit broken_hit;
    CHECK_STATUS(osc_ray_intersect(broken, NULL, (osc_ray){osc_v3(-3, 0, 0), osc_v3(1, 0, 0)}, NULL, &broken_hit, NULL),
                 OSC_OK);
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
    CHECK_STATUS(batch_soa(s, NULL, N, origins, directions, NULL, t, points, normals, hits, 2), OSC_OK);
    int mismatches = 0;
    for (int i = 0; i < N; ++i) {
        osc_ray_hit h;
        osc_ray_intersect(s, NULL,
                          (osc_ray){osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                                    osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2])},
                          NULL, &h, NULL);
        mismatches += memcmp(&h.t, &t[i], sizeof(double)) != 0 || h.hit != hits[i] ||
                      memcmp(&h.point, points + 3 * i, sizeof h.point) != 0 ||
                      memcmp(&h.normal, normals + 3 * i, sizeof h.normal) != 0;
    }
    CHECK(mismatches == 0);
    directions[3 * 17] = directions[3 * 17 + 1] = directions[3 * 17 + 2] = 0.0;
    directions[3 * 4000] = NAN;
    for (int threads = 1; threads <= 2; ++threads) { // the lowest bad ray is named, with its values
        CHECK_STATUS(batch_soa(s, NULL, N, origins, directions, NULL, t, NULL, NULL, NULL, threads),
                     OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strstr(osc_last_error(), "rays[17] ") != NULL && strstr(osc_last_error(), "direction (0, 0, 0)") &&
                      isnan(t[17]) && isnan(t[4000]),
                  "%s", osc_last_error());
    }
    directions[3 * 4000] = 1.0;
    // bad rays, transforms, settings, surfaces
    osc_ray_hit h;
    CHECK_STATUS(osc_ray_intersect(NULL, NULL, (osc_ray){osc_v3(0, 0, 0), osc_v3(1, 0, 0)}, NULL, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){osc_v3(NAN, 0, 0), osc_v3(1, 0, 0)}, NULL, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){osc_v3(0, 0, 0), osc_v3(0, 0, 0)}, NULL, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
    osc_implicit_transform bad = osc_implicit_transform_identity();
    bad.scale = 0.0;
    CHECK_STATUS(osc_ray_intersect(s, &bad, (osc_ray){osc_v3(-1, 0, 0), osc_v3(1, 0, 0)}, NULL, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
    osc_ray_settings settings = osc_ray_settings_default();
    settings.beams = 0;
    CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){osc_v3(-1, 0, 0), osc_v3(1, 0, 0)}, &settings, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
    settings = osc_ray_settings_default();
    settings.fine.damping = -1.0;
    CHECK_STATUS(osc_ray_intersect(s, NULL, (osc_ray){osc_v3(-1, 0, 0), osc_v3(1, 0, 0)}, &settings, &h, NULL),
                 OSC_ERR_INVALID_ARGUMENT);
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
    CHECK_STATUS(osc_ray_intersect(sdf_surface, NULL, (osc_ray){osc_v3(-3, 0.2, 0), osc_v3(1, 0, 0)}, NULL, &h, &jac),
                 OSC_ERR_INVALID_ARGUMENT);
    // an SDF surface with sphere tracing: the unit sphere's near root
    settings = osc_ray_settings_default();
    settings.coarse.algorithm = OSC_RAY_SPHERE_TRACING;
    settings.coarse.iterations = 30;
    settings.beams = 1;
    settings.init = OSC_RAY_INIT_ZERO;
    CHECK_STATUS(
        osc_ray_intersect(sdf_surface, NULL, (osc_ray){osc_v3(-3, 0.2, 0), osc_v3(1, 0, 0)}, &settings, &h, NULL),
        OSC_OK);
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
        osc_vec3 v =
            osc_normalize(osc_v3(i % 31 == 0 ? -1 : 1, test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3)));
        memcpy(directions + 3 * i, &v, sizeof v);
    }
    origins[3 * BAD + 1] = INFINITY;
    int compared = 0, hit_count = 0, mismatches = 0;
    for (int c = 0; c < 3; ++c)
        for (int variant = 0; variant < 3; ++variant) {
            osc_ray_settings settings = osc_ray_settings_default();
            if (variant == 2) settings.fine.max_step = 0.5; // a clamp: the scalar path
            const osc_implicit_transform* transform = variant == 0 ? NULL : &placed;
            CHECK_STATUS(
                batch_soa(surfaces[c], transform, N, origins, directions, &settings, t, points, normals, hits, 2),
                OSC_ERR_INVALID_ARGUMENT);
            CHECK(strstr(osc_last_error(), "rays[13]") != NULL && isnan(t[BAD]) && !hits[BAD] && points[3 * BAD] == 0.0 &&
                  normals[3 * BAD] == 0.0);
            for (int i = 0; i < N; ++i) {
                if (i == BAD) continue;
                osc_ray_hit h;
                CHECK_STATUS(osc_ray_intersect(
                                 surfaces[c], transform,
                                 (osc_ray){osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                                           osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2])},
                                 &settings, &h, NULL),
                             OSC_OK);
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
                CHECK_STATUS(batch_soa(surfaces[c], transform, N, origins, directions, &settings, t_only, NULL, NULL,
                                       hits_only, threads[k]),
                             OSC_ERR_INVALID_ARGUMENT);
                for (int i = 0; i < N; ++i)
                    mismatches +=
                        i != BAD && (memcmp(&t_only[i], &t[i], sizeof(double)) != 0 || hits_only[i] != hits[i]);
            }
        }
    CHECK(mismatches == 0);
    CHECK(hit_count > compared / 4 && hit_count < compared); // hits and misses both exercised
    for (int c = 0; c < 3; ++c) osc_implicit_destroy(surfaces[c]);
}


// every setting out of its range (ray.h) is refused, naming the setting and its value; among them
// tolerance = INFINITY, which reported a hit for a ray that misses (its |F| is 0.5 at best)
typedef struct bad_setting {
    const char* name;
    double value;
} bad_setting;

static void set_ray_setting(osc_ray_settings* s, const char* name, double value) {
    osc_ray_phase* phase = NULL;
    if (!strncmp(name, "coarse.", 7))
        phase = &s->coarse, name += 7;
    else if (!strncmp(name, "fine.", 5))
        phase = &s->fine, name += 5;
    else if (!strncmp(name, "final_step.", 11))
        phase = &s->final_step, name += 11;
    if (!phase) {
        if (!strcmp(name, "tolerance"))
            s->tolerance = value;
        else if (!strcmp(name, "beams"))
            s->beams = (int)value;
        else if (!strcmp(name, "init"))
            s->init = (osc_ray_init)value;
        else if (!strcmp(name, "analytic_conics"))
            s->analytic_conics = (int)value;
        return;
    }
    if (!strcmp(name, "algorithm"))
        phase->algorithm = (osc_ray_algorithm)value;
    else if (!strcmp(name, "iterations"))
        phase->iterations = (int)value;
    else if (!strcmp(name, "damping"))
        phase->damping = value;
    else if (!strcmp(name, "max_step"))
        phase->max_step = value;
}

static void test_setting_ranges(void) {
    osc_sdf* ball;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &ball), OSC_OK);
    osc_implicit* surfaces[2] = {make_sag(20.0, 0.0, 0, NULL, 15.0), NULL};
    CHECK_STATUS(osc_implicit_create_sdf(ball, &surfaces[1]), OSC_OK);
    // the unit sphere's closest approach to this ray is 1.5 from its centre: |F| >= 0.5 everywhere
    osc_vec3 origin = osc_v3(-3.0, 1.5, 0.0), direction = osc_v3(1.0, 0.0, 0.0);
    static const bad_setting bad[] = {{"tolerance", INFINITY},
                                      {"tolerance", NAN},
                                      {"tolerance", 0.0},
                                      {"tolerance", -1e-6},
                                      {"tolerance", 0.5},
                                      {"tolerance", 1e308},
                                      {"tolerance", 1e-16},
                                      {"tolerance", 1e-320},
                                      {"beams", 0},
                                      {"beams", 17},
                                      {"init", 3},
                                      {"init", -1},
                                      {"analytic_conics", 2},
                                      {"analytic_conics", -1},
                                      {"coarse.algorithm", 4},
                                      {"fine.algorithm", -1},
                                      {"fine.iterations", -1},
                                      {"fine.iterations", 10001},
                                      {"final_step.damping", NAN},
                                      {"final_step.damping", -1.0},
                                      {"coarse.damping", INFINITY},
                                      {"coarse.max_step", INFINITY},
                                      {"fine.max_step", NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        osc_ray_settings settings = osc_ray_settings_default();
        set_ray_setting(&settings, bad[i].name, bad[i].value);
        char name[64];
        snprintf(name, sizeof name, "settings.%s", bad[i].name);
        bool integer = !strcmp(bad[i].name, "beams") || !strcmp(bad[i].name, "init") ||
                       !strcmp(bad[i].name, "analytic_conics") || strstr(bad[i].name, "algorithm") ||
                       strstr(bad[i].name, "iterations");
        char value[32];
        snprintf(value, sizeof value, integer ? "%.0f" : "%g", bad[i].value);
        for (int k = 0; k < 2; ++k) {
            osc_ray_hit hit = {0};
            CHECK_REFUSED(osc_ray_intersect(surfaces[k], NULL, (osc_ray){origin, direction}, &settings, &hit, NULL),
                          name, value);
            CHECK(!hit.hit);
            double t;
            CHECK_REFUSED(batch_soa(surfaces[k], NULL, 1, &origin.x, &direction.x, &settings, &t, NULL, NULL, NULL, 1),
                          name, value);
        }
    }
    // the ends of the ranges are accepted, and the miss stays a miss
    const double tolerances[3] = {1e-15, 1e-6, 0.1};
    for (int i = 0; i < 3; ++i) {
        osc_ray_settings settings = osc_ray_settings_default();
        settings.tolerance = tolerances[i];
        osc_ray_hit hit;
        CHECK_STATUS(osc_ray_intersect(surfaces[1], NULL, (osc_ray){origin, direction}, &settings, &hit, NULL), OSC_OK);
        CHECK(!hit.hit);
        CHECK_STATUS(
            osc_ray_intersect(surfaces[1], NULL, (osc_ray){osc_v3(-3.0, 0.2, 0.0), direction}, &settings, &hit, NULL),
            OSC_OK);
        CHECK(hit.hit && fabs(hit.t - (3.0 - sqrt(0.96))) < 1e-9);
    }
    osc_implicit_destroy(surfaces[0]);
    osc_implicit_destroy(surfaces[1]);
    osc_sdf_destroy(ball);
}

// absurd but finite geometry: lengths beyond [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX] are refused,
// naming the argument and its value; placements at the ends of the range are computed correctly
static void test_geometry_ranges(void) {
    osc_implicit* lens = make_sag(20.0, 0.0, 0, NULL, 15.0);
    osc_vec3 origin = osc_v3(-5.0, 1.0, 0.5), direction = osc_normalize(osc_v3(1.0, 0.01, 0.0));
    osc_ray_hit hit;
    const double big = 1e31, small = 1e-31;
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){osc_v3(big, 0, 0), direction}, NULL, &hit, NULL), "origin",
                  value_text(big));
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){osc_v3(NAN, 0, 0), direction}, NULL, &hit, NULL), "origin",
                  "nan");
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){origin, osc_v3(big, 0, 0)}, NULL, &hit, NULL), "direction",
                  value_text(big));
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){origin, osc_v3(small, 0, 0)}, NULL, &hit, NULL), "direction",
                  value_text(small));
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){origin, osc_v3(0, 0, 0)}, NULL, &hit, NULL), "direction",
                  NULL);
    const double scales[5] = {big, small, 0.0, -1.0, NAN};
    for (int i = 0; i < 5; ++i) {
        osc_implicit_transform transform = osc_implicit_transform_identity();
        transform.scale = scales[i];
        CHECK_REFUSED(osc_ray_intersect(lens, &transform, (osc_ray){origin, direction}, NULL, &hit, NULL),
                      "transform->scale", value_text(scales[i]));
    }
    osc_implicit_transform transform = osc_implicit_transform_identity();
    transform.translation.y = big;
    CHECK_REFUSED(osc_ray_intersect(lens, &transform, (osc_ray){origin, direction}, NULL, &hit, NULL),
                  "transform->translation", value_text(big));
    transform = osc_implicit_transform_identity();
    transform.anchor.z = -big;
    CHECK_REFUSED(osc_ray_intersect(lens, &transform, (osc_ray){origin, direction}, NULL, &hit, NULL),
                  "transform->anchor", value_text(-big));
    transform = osc_implicit_transform_identity();
    transform.rotation = (osc_quat){0, 0, 0, 0};
    CHECK_REFUSED(osc_ray_intersect(lens, &transform, (osc_ray){origin, direction}, NULL, &hit, NULL),
                  "transform->rotation", NULL);
    // sags and user surfaces beyond the length range
    osc_sag base = {.curvature = 0.05, .conic = 0.0, .diameter = 15.0};
    osc_implicit* none = NULL;
    osc_sag sag = base;
    sag.diameter = big;
    sag.curvature = 0.0;
    CHECK_REFUSED(osc_implicit_create_sag(&sag, &none), "diameter", value_text(big));
    sag = base;
    sag.diameter = small;
    CHECK_REFUSED(osc_implicit_create_sag(&sag, &none), "diameter", value_text(small));
    sag = base;
    sag.curvature = big;
    sag.conic = -1.0; // a parabola: any aperture is in its domain
    CHECK_REFUSED(osc_implicit_create_sag(&sag, &none), "curvature", value_text(big));
    sag = base;
    sag.conic = -big;
    CHECK_REFUSED(osc_implicit_create_sag(&sag, &none), "conic", value_text(-big));
    sag = base;
    sag.coefficient_count = 2;
    sag.coefficients[1] = 1e300; // r^6 at 7.5: the sag reaches 1.8e305
    CHECK_REFUSED(osc_implicit_create_sag(&sag, &none), "coefficients", NULL);
    CHECK(none == NULL);
    CHECK_REFUSED(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, 0, 0), big, &none), "radius",
                  value_text(big));
    CHECK_REFUSED(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, big, 0), 1.0, &none), "centre",
                  value_text(big));
    CHECK_REFUSED(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, 0, 0), small, &none), "radius",
                  value_text(small));
    // the ends of the range: the lens placed at scales 1e-25 and 1e25 (and far from the origin) gives
    // the unit placement's t times the scale, since the direction is not scaled
    osc_ray_hit unit;
    CHECK_STATUS(osc_ray_intersect(lens, NULL, (osc_ray){origin, direction}, NULL, &unit, NULL), OSC_OK);
    CHECK(unit.hit);
    const double extremes[2] = {1e-25, 1e25};
    for (int i = 0; i < 2; ++i) {
        double s = extremes[i];
        osc_implicit_transform placed = osc_implicit_transform_identity();
        placed.scale = s;
        placed.translation = osc_v3(0.3 * s, -0.2 * s, 4.0 * s);
        osc_vec3 p = osc_add(osc_scale(origin, s), placed.translation);
        CHECK_STATUS(osc_ray_intersect(lens, &placed, (osc_ray){p, direction}, NULL, &hit, NULL), OSC_OK);
        CHECK_MSG(hit.hit && fabs(hit.t / s - unit.t) < 1e-12 * unit.t, "scale %g: t %g, expected %g", s, hit.t,
                  unit.t * s);
        CHECK(fabs(osc_dot(hit.normal, unit.normal) - 1.0) < 1e-12);
    }
    // surfaces themselves 1e-25 and 1e25 in size (the bounding radius had an absolute margin of
    // 1e-12, a billion times a small lens: its beams started far off and its tolerance was loose),
    // through the closed form and through the beams and phases
    for (int i = 0; i < 2; ++i) {
        double s = extremes[i];
        osc_implicit* scaled = make_sag(20.0 * s, 0.0, 0, NULL, 15.0 * s);
        osc_sdf* ball = NULL;
        osc_implicit* sphere = NULL;
        CHECK_STATUS(osc_sdf_create_sphere(s, &ball), OSC_OK);
        CHECK_STATUS(osc_implicit_create_sdf(ball, &sphere), OSC_OK);
        for (int closed = 0; closed < 2; ++closed) {
            osc_ray_settings settings = osc_ray_settings_default();
            settings.analytic_conics = closed;
            CHECK_STATUS(
                osc_ray_intersect(scaled, NULL, (osc_ray){osc_scale(origin, s), direction}, &settings, &hit, NULL),
                OSC_OK);
            CHECK_MSG(hit.hit && fabs(hit.t / s - unit.t) < 1e-9 * unit.t,
                      "lens of size %g (closed form %d): "
                      "hit %d, t %g, expected %g",
                      s, closed, hit.hit, hit.t, unit.t * s);
            // the sphere of radius s: from (-3 s, 0.2 s, 0) along x the root is at (3 - sqrt(0.96)) s
            CHECK_STATUS(osc_ray_intersect(sphere, NULL, (osc_ray){osc_v3(-3.0 * s, 0.2 * s, 0.0), osc_v3(1, 0, 0)},
                                           &settings, &hit, NULL),
                         OSC_OK);
            CHECK_MSG(hit.hit && fabs(hit.t / s - (3.0 - sqrt(0.96))) < 1e-9, "sphere of radius %g: hit %d, t %g", s,
                      hit.hit, hit.t);
            // a ray passing 1.5 s from the centre misses
            CHECK_STATUS(osc_ray_intersect(sphere, NULL, (osc_ray){osc_v3(-3.0 * s, 1.5 * s, 0.0), osc_v3(1, 0, 0)},
                                           &settings, &hit, NULL),
                         OSC_OK);
            CHECK_MSG(!hit.hit, "sphere of radius %g: a miss reported as a hit at t %g", s, hit.t);
        }
        osc_implicit_destroy(sphere);
        osc_sdf_destroy(ball);
        osc_implicit_destroy(scaled);
    }
    osc_implicit_destroy(lens);
}

// every pointer argument NULL, one at a time: OSC_ERR_INVALID_ARGUMENT naming it, or the sentinel
// implicit.h and ray.h document
static void test_null_arguments(void) {
    osc_implicit* lens = make_sag(20.0, 0.0, 0, NULL, 15.0);
    osc_sdf* ball;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &ball), OSC_OK);
    osc_sag sag = {.curvature = 0.05, .diameter = 15.0};
    osc_implicit* out = NULL;
    osc_vec3 origin = osc_v3(-5.0, 1.0, 0.0), direction = osc_v3(1.0, 0.0, 0.0);
    osc_ray_hit hit;
    // refused, naming the argument
    CHECK_REFUSED(osc_implicit_create_sag(NULL, &out), "sag", NULL);
    CHECK_REFUSED(osc_implicit_create_sag(&sag, NULL), "out", NULL);
    CHECK_REFUSED(osc_implicit_create_sdf(NULL, &out), "sdf", NULL);
    CHECK_REFUSED(osc_implicit_create_sdf(ball, NULL), "out", NULL);
    CHECK_REFUSED(osc_implicit_create_function(NULL, NULL, osc_v3(0, 0, 0), 1.0, &out), "function", NULL);
    CHECK_REFUSED(osc_implicit_create_function(nan_surface, NULL, osc_v3(0, 0, 0), 1.0, NULL), "out", NULL);
    CHECK(out == NULL);
    CHECK_REFUSED(osc_ray_intersect(NULL, NULL, (osc_ray){origin, direction}, NULL, &hit, NULL), "surface", NULL);
    CHECK_REFUSED(osc_ray_intersect(lens, NULL, (osc_ray){origin, direction}, NULL, NULL, NULL), "hit", NULL);
    osc_ray ray = {origin, direction};
    osc_ray_hit batch_hit;
    CHECK_REFUSED(osc_ray_intersect_batch(NULL, NULL, &ray, 1, NULL, &batch_hit, NULL, 1),
                  "osc_ray_intersect_batch: surface", NULL);
    CHECK_REFUSED(osc_ray_intersect_batch(lens, NULL, NULL, 1, NULL, &batch_hit, NULL, 1), "rays", NULL);
    CHECK_REFUSED(osc_ray_intersect_batch(lens, NULL, &ray, 1, NULL, NULL, NULL, 1), "hits", NULL);
    CHECK_REFUSED(osc_ray_intersect_batch(lens, NULL, &ray, 1, NULL, &batch_hit, NULL, -1), "threads", "-1");
    // nullable: transform, settings, Jacobians, the batch's statuses; a NULL batch of zero rays
    CHECK_STATUS(osc_ray_intersect(lens, NULL, (osc_ray){origin, direction}, NULL, &hit, NULL), OSC_OK);
    CHECK_STATUS(osc_ray_intersect_batch(lens, NULL, &ray, 1, NULL, &batch_hit, NULL, 1), OSC_OK);
    CHECK(memcmp(&batch_hit, &hit, sizeof hit) == 0);
    CHECK_STATUS(osc_ray_intersect_batch(NULL, NULL, NULL, 0, NULL, NULL, NULL, 1), OSC_OK);
    // the documented sentinels of a NULL surface
    osc_vec3 gradient = osc_v3(0, 0, 0), centre = osc_v3(0, 0, 0);
    osc_mat3 hessian = osc_mat3_identity();
    double radius = 0.0, derivative = 0.0;
    CHECK(isnan(osc_implicit_eval(NULL, origin, &gradient, &hessian)) && isnan(gradient.x) && isnan(hessian.m[1][2]));
    CHECK(osc_implicit_in_domain(NULL, origin) == 0);
    CHECK(isnan(osc_implicit_sag(NULL, 1.0, &derivative)) && isnan(derivative));
    osc_implicit_bounding_sphere(NULL, &centre, &radius);
    CHECK(isnan(centre.x) && isnan(radius));
    osc_implicit_bounding_sphere(lens, NULL, NULL); // nullable outputs
    osc_implicit_bounding_sphere(lens, &centre, NULL);
    CHECK(isfinite(centre.x));
    CHECK(isnan(osc_implicit_sag(out, 1.0, NULL)));
    osc_implicit_destroy(NULL);
    osc_implicit_destroy(lens);
    osc_sdf_destroy(ball);
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
    RUN(test_setting_ranges);
    RUN(test_geometry_ranges);
    RUN(test_null_arguments);
    // every batch above: each hit and status the single call's, bit for bit
    CHECK_MSG(g_batch_mismatches == 0, "%d batch answers differ from the single call's", g_batch_mismatches);
    return test_finish();
}
