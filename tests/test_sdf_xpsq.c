// test_sdf_xpsq.c: the XPSQ (Beker et al. 2026 §III-A.4-5): exact oracles in the hard limit (tube around a
// curve, capsule, twisted and tapered sweeps checked against a PSQ placed by hand), derivatives
// against finite differences, smoothness sweeps through the discriminant's zero set (the evolute
// of the spline), its cusp and the spline's ends, bounds, Lipschitz bound and bad input.

#include "sdf_test_util.h"

#include <string.h>

static test_rng rng = {99};

static osc_vec3 bezier(const osc_vec3 p[3], double t) {
    return osc_add(osc_add(osc_scale(p[0], (1 - t) * (1 - t)), osc_scale(p[1], 2 * t * (1 - t))),
                   osc_scale(p[2], t * t));
}

static osc_vec3 random_vec(double extent) {
    return osc_v3(test_uniform(&rng, -extent, extent), test_uniform(&rng, -extent, extent),
                  test_uniform(&rng, -extent, extent));
}

// control points of a clearly curved spline
static void random_spline(osc_vec3 p[3]) {
    for (;;) {
        for (int i = 0; i < 3; ++i) p[i] = random_vec(1.0);
        osc_vec3 a = osc_sub(p[1], p[0]), b = osc_add(osc_sub(p[0], osc_scale(p[1], 2)), p[2]);
        if (osc_length(osc_cross(a, b)) > 0.3 && osc_length(a) > 0.3) return;
    }
}

static osc_xpsq_desc hard_desc(void) {
    osc_xpsq_desc d = osc_xpsq_desc_default();
    d.plane_temperature = d.discriminant_temperature = d.root_temperature = d.blend_temperature = 0.0;
    return d;
}

// hard limit with a ball cross-section: the XPSQ is the tube of radius r around the curve, whose
// distance is (distance to the curve) - r; the curve distance by dense sampling (1e6 points)
static void test_tube_oracle(void) {
    for (int trial = 0; trial < 4; ++trial) {
        osc_xpsq_desc d = hard_desc();
        random_spline(d.control_points);
        for (int i = 0; i < 3; ++i) d.scale[i] = osc_profile_constant(0.15);
        osc_sdf* tube = NULL;
        CHECK_STATUS(osc_sdf_create_xpsq(&d, &tube), OSC_OK);
        double worst = 0.0;
        for (int i = 0; i < 150; ++i) {
            osc_vec3 x = random_vec(1.4);
            double best = INFINITY;
            for (int k = 0; k <= 1000000; ++k)
                best = fmin(best, osc_length(osc_sub(x, bezier(d.control_points, k * 1e-6))));
            worst = fmax(worst, fabs(osc_sdf_eval(tube, x, NULL, NULL) - (best - 0.15)));
        }
        // sampling at 1e-6 of t resolves the distance to well below 1e-9
        CHECK_MSG(worst < 1e-9, "tube %d: error %g against the sampled curve distance", trial, worst);
        osc_sdf_destroy(tube);
    }
    // a straight, uniformly parametrised spline is a capsule
    osc_xpsq_desc d = hard_desc();
    d.control_points[0] = osc_v3(0, 0, -0.8);
    d.control_points[1] = osc_v3(0, 0, 0);
    d.control_points[2] = osc_v3(0, 0, 0.8);
    for (int i = 0; i < 3; ++i) d.scale[i] = osc_profile_constant(0.3);
    osc_sdf *xpsq = NULL, *capsule = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &xpsq), OSC_OK);
    CHECK_STATUS(osc_sdf_create_capsule(0.3, 0.8, &capsule), OSC_OK);
    double worst = 0.0;
    for (int i = 0; i < 5000; ++i) {
        osc_vec3 x = random_vec(1.5);
        worst = fmax(worst, fabs(osc_sdf_eval(xpsq, x, NULL, NULL) - osc_sdf_eval(capsule, x, NULL, NULL)));
    }
    CHECK_MSG(worst < 1e-14, "straight XPSQ differs from the capsule by %g", worst);
    osc_sdf_destroy(xpsq);
    osc_sdf_destroy(capsule);
}

// hard limit on a straight spline along z: the value is the PSQ with the parameters at
// t* = clamp((z + h) / 2h), rotated by R(t*), evaluated at R(t*)^T (x - p(t*)). Checks the
// interpolated frame, the profiles and the plane profiles against a PSQ built by hand.
static void test_twisted_tapered_sweep(void) {
    const double h = 0.9;
    osc_plane_profile plane = {{{1, 0, 0.3}, -0.1}, {{1, 0.2, 0}, -0.05}, {{0.8, -0.3, 0.1}, -0.15}};
    osc_xpsq_desc d = hard_desc();
    d.control_points[0] = osc_v3(0, 0, -h);
    d.control_points[1] = osc_v3(0, 0, 0);
    d.control_points[2] = osc_v3(0, 0, h);
    d.frame = OSC_XPSQ_FRAME_INTERPOLATED;
    d.rotation_start = osc_quat_identity();
    d.rotation_end = osc_quat_from_axis_angle(osc_v3(0, 0, 1), 1.2);
    d.scale[0] = (osc_profile){0.5, 0.6, 0.3};
    d.scale[1] = osc_profile_linear(0.25, 0.2);
    d.scale[2] = osc_profile_constant(0.1);
    d.exponent[0] = osc_profile_linear(0.3, 0.6);
    d.exponent[1] = (osc_profile){0.2, 1.0, 0.5};
    d.planes = &plane;
    d.plane_count = 1;
    osc_sdf* sweep = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &sweep), OSC_OK);
    double worst = 0.0;
    for (int i = 0; i < 400; ++i) {
        osc_vec3 x = random_vec(1.2);
        double t = fmin(1.0, fmax(0.0, (x.z + h) / (2 * h)));
        double b0 = (1 - t) * (1 - t), b1 = 2 * t * (1 - t), b2 = t * t;
#define PROFILE(p) (b0 * (p).start + b1 * (p).control + b2 * (p).end)
        osc_vec3 scales = osc_v3(PROFILE(d.scale[0]), PROFILE(d.scale[1]), PROFILE(d.scale[2]));
        osc_plane at_t = {osc_add(osc_add(osc_scale(plane.start.normal, b0), osc_scale(plane.control.normal, b1)),
                                  osc_scale(plane.end.normal, b2)),
                          b0 * plane.start.offset + b1 * plane.control.offset + b2 * plane.end.offset};
        double n = osc_length(at_t.normal);
        at_t.normal = osc_scale(at_t.normal, 1.0 / n);
        osc_sdf* psq = NULL;
        CHECK_STATUS(osc_sdf_create_psq(scales, PROFILE(d.exponent[0]), PROFILE(d.exponent[1]), &at_t, 1, 0.0, &psq),
                     OSC_OK);
#undef PROFILE
        osc_quat r = osc_quat_from_axis_angle(osc_v3(0, 0, 1), 1.2 * t);
        osc_vec3 local = osc_quat_inv_rotate(r, osc_sub(x, osc_v3(0, 0, -h + 2 * h * t)));
        worst = fmax(worst, fabs(osc_sdf_eval(sweep, x, NULL, NULL) - osc_sdf_eval(psq, local, NULL, NULL)));
        osc_sdf_destroy(psq);
    }
    CHECK_MSG(worst < 1e-12, "twisted, tapered sweep differs from the PSQ placed by hand by %g", worst);
    // with equal end rotations the interpolated frame is the Frenet frame of a straight spline
    // whose binormal is the frame's y axis
    d.rotation_end = osc_quat_identity();
    d.planes = NULL;
    d.plane_count = 0;
    osc_sdf *fixed = NULL, *frenet = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &fixed), OSC_OK);
    d.frame = OSC_XPSQ_FRAME_FRENET;
    d.binormal = osc_v3(0.0, 1.0, 0.4); // orthogonalised against the spline (z): becomes +y
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &frenet), OSC_OK);
    worst = 0.0;
    for (int i = 0; i < 1000; ++i) {
        osc_vec3 x = random_vec(1.2);
        worst = fmax(worst, fabs(osc_sdf_eval(fixed, x, NULL, NULL) - osc_sdf_eval(frenet, x, NULL, NULL)));
    }
    CHECK_MSG(worst < 1e-14, "fixed interpolated frame differs from the Frenet frame by %g", worst);
    osc_sdf_destroy(sweep);
    osc_sdf_destroy(fixed);
    osc_sdf_destroy(frenet);
}

// a random XPSQ with varying profiles, planes and either frame, at the default temperatures
static osc_sdf* random_xpsq(int trial) {
    osc_xpsq_desc d = osc_xpsq_desc_default();
    random_spline(d.control_points);
    d.frame = trial % 2 ? OSC_XPSQ_FRAME_INTERPOLATED : OSC_XPSQ_FRAME_FRENET;
    d.rotation_start = random_quat(&rng);
    d.rotation_end = random_quat(&rng);
    for (int i = 0; i < 3; ++i)
        d.scale[i] =
            (osc_profile){test_uniform(&rng, 0.1, 0.3), test_uniform(&rng, 0.1, 0.3), test_uniform(&rng, 0.1, 0.3)};
    for (int i = 0; i < 2; ++i)
        d.exponent[i] =
            (osc_profile){test_uniform(&rng, 0.2, 1.0), test_uniform(&rng, 0.2, 1.0), test_uniform(&rng, 0.2, 1.0)};
    osc_plane_profile plane = {{{1, 0.1, 0.2}, -0.05}, {{0.9, -0.2, 0.1}, -0.02}, {{1, 0, -0.3}, -0.08}};
    d.planes = &plane;
    d.plane_count = trial % 3 == 2;
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_OK);
    return out;
}

// fraction of sampled outside points where |grad phi| exceeds L, and the largest ratio
static double lipschitz_excess(const osc_sdf* s, int count, double* worst) {
    double lipschitz = osc_sdf_lipschitz(s);
    int outside = 0, above = 0;
    *worst = 0.0;
    for (int i = 0; i < count; ++i) {
        osc_vec3 x = random_vec(1.5), g;
        if (osc_sdf_eval(s, x, &g, NULL) > 0.0) {
            ++outside;
            *worst = fmax(*worst, osc_length(g) / lipschitz);
            if (osc_length(g) > lipschitz) ++above;
        }
    }
    return outside ? (double)above / outside : 0.0;
}

static void test_random_derivatives_bounds_lipschitz(void) {
    for (int trial = 0; trial < 8; ++trial) {
        osc_sdf* s = random_xpsq(trial);
        char name[32];
        snprintf(name, sizeof name, "xpsq %d", trial);
        osc_vec3 lo = osc_v3(-1.5, -1.5, -1.5), hi = osc_v3(1.5, 1.5, 1.5);
        fd_stats st = fd_check_box(name, s, lo, hi, 800, 0.03, &rng);
        double worst, excess = lipschitz_excess(s, 40000, &worst);
        printf("  %-8s fd: %d compared, %d skipped, worst grad %.1e hess %.1e; L %.3f estimate, "
               "exceeded at %.3f%% of outside points (by up to x%.1f)\n",
               name, st.checked, st.skipped, st.worst_grad, st.worst_hess, osc_sdf_lipschitz(s), 100.0 * excess, worst);
        check_bounds_contain(name, s, lo, hi, 20000, &rng);
        check_orders_agree(name, s, osc_v3(0.2, -0.3, 0.1));
        // curved sweeps of sections that are not round: L is flagged as an estimate, which the
        // thin steep bands along the evolute exceed only rarely (docs/xpsq.md)
        CHECK(!osc_sdf_lipschitz_is_bound(s));
        CHECK_MSG(excess < 1e-3, "%s: L exceeded at %.3f%% of outside points", name, 100.0 * excess);
        osc_sdf_destroy(s);
    }
    // curved sweeps of a round section (the Frenet frame keeps it in the normal plane): L is a bound
    for (int trial = 0; trial < 4; ++trial) {
        osc_xpsq_desc d = osc_xpsq_desc_default();
        random_spline(d.control_points);
        double r = test_uniform(&rng, 0.1, 0.3);
        d.scale[0] = d.scale[1] = osc_profile_constant(r);
        d.scale[2] = osc_profile_linear(0.1, 0.3);
        d.exponent[0] = osc_profile_linear(0.3, 1.0);
        osc_sdf* s = NULL;
        CHECK_STATUS(osc_sdf_create_xpsq(&d, &s), OSC_OK);
        char name[32];
        snprintf(name, sizeof name, "round xpsq %d", trial);
        CHECK(osc_sdf_lipschitz_is_bound(s));
        check_lipschitz(name, s, osc_v3(-1.5, -1.5, -1.5), osc_v3(1.5, 1.5, 1.5), 40000, &rng);
        fd_check_box(name, s, osc_v3(-1.5, -1.5, -1.5), osc_v3(1.5, 1.5, 1.5), 400, 0.03, &rng);
        osc_sdf_destroy(s);
    }
}

// Smoothness along a segment, by local refinement. For each step of the segment, the change of
// the value must be explained by the gradients at its ends and the change of the gradient by the
// Hessians: |dphi| <= 1.1 h max(|grad|) and |dgrad| <= 1.1 h max(||hess||_F). A smooth function
// satisfies both once the step resolves it (the 10% covers the variation within a step); a step
// that does not is split in 10 and checked again, down to 8 levels (steps of ~1e-12 of the
// segment). A jump of the value or of the gradient makes the ratio grow as the step shrinks, so it
// fails at the deepest level; a steep but smooth ramp resolves.
typedef struct sweep_sample {
    double value;
    osc_vec3 grad;
    double hess_norm;
} sweep_sample;

static sweep_sample sample_at(const osc_sdf* s, osc_vec3 x) {
    sweep_sample r;
    osc_mat3 h;
    r.value = osc_sdf_eval(s, x, &r.grad, &h);
    double f = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) f += h.m[i][j] * h.m[i][j];
    r.hess_norm = sqrt(f);
    return r;
}

// returns the number of unresolved steps below [a, b]
static int refine_step(const osc_sdf* s, osc_vec3 a, osc_vec3 b, sweep_sample sa, sweep_sample sb, int depth) {
    double h = osc_length(osc_sub(b, a));
    double m1 = fmax(osc_length(sa.grad), osc_length(sb.grad));
    double m2 = fmax(sa.hess_norm, sb.hess_norm);
    int smooth = fabs(sb.value - sa.value) <= 1.1 * h * m1 + 1e-14 &&
                 osc_length(osc_sub(sb.grad, sa.grad)) <= 1.1 * h * m2 + 1e-12;
    if (smooth) return 0;
    if (depth == 8) return 1;
    int unresolved = 0;
    sweep_sample prev = sa;
    for (int k = 1; k <= 10; ++k) {
        osc_vec3 x0 = osc_lerp(a, b, (k - 1) / 10.0), x1 = osc_lerp(a, b, k / 10.0);
        sweep_sample next = k == 10 ? sb : sample_at(s, x1);
        unresolved += refine_step(s, x0, x1, prev, next, depth + 1);
        prev = next;
    }
    return unresolved;
}

static void sweep(const char* name, const osc_sdf* s, osc_vec3 a, osc_vec3 b, int n) {
    int unresolved = 0, finite = 1;
    sweep_sample prev = sample_at(s, a);
    for (int i = 1; i <= n; ++i) {
        osc_vec3 x0 = osc_lerp(a, b, (double)(i - 1) / n), x1 = osc_lerp(a, b, (double)i / n);
        sweep_sample next = sample_at(s, x1);
        finite &= isfinite(next.value) && osc_vec3_is_finite(next.grad) && isfinite(next.hess_norm);
        unresolved += refine_step(s, x0, x1, prev, next, 0);
        prev = next;
    }
    CHECK_MSG(finite, "%s: non-finite value or derivative on the sweep", name);
    CHECK_MSG(unresolved == 0, "%s: %d steps with a jump of the value or the gradient", name, unresolved);
}

// centre of curvature of the spline at t: a point of the evolute, where Delta = 0
static osc_vec3 centre_of_curvature(const osc_vec3 p[3], double t) {
    osc_vec3 a = osc_sub(p[1], p[0]), b = osc_add(osc_sub(p[0], osc_scale(p[1], 2)), p[2]);
    osc_vec3 d1 = osc_scale(osc_add_scaled(a, b, t), 2.0), d2 = osc_scale(b, 2.0);
    double speed = osc_length(d1);
    double curvature = osc_length(osc_cross(d1, d2)) / (speed * speed * speed);
    osc_vec3 tangent = osc_scale(d1, 1.0 / speed);
    osc_vec3 normal = osc_normalize(osc_sub(d2, osc_scale(tangent, osc_dot(d2, tangent))));
    return osc_add_scaled(bezier(p, t), normal, 1.0 / curvature);
}

// the cusp of the evolute is the centre of curvature at the vertex, where |p'| is smallest
static double vertex_parameter(const osc_vec3 p[3]) {
    osc_vec3 a = osc_sub(p[1], p[0]), b = osc_add(osc_sub(p[0], osc_scale(p[1], 2)), p[2]);
    return -osc_dot(a, b) / osc_dot(b, b);
}

static void test_smoothness_sweeps(void) {
    for (int trial = 0; trial < 6; ++trial) {
        osc_xpsq_desc d = osc_xpsq_desc_default();
        random_spline(d.control_points);
        for (int i = 0; i < 3; ++i) d.scale[i] = osc_profile_constant(0.12);
        d.exponent[0] = osc_profile_constant(0.5);
        d.exponent[1] = osc_profile_constant(0.8);
        osc_sdf* s = NULL;
        CHECK_STATUS(osc_sdf_create_xpsq(&d, &s), OSC_OK);
        char name[64];
        // across the evolute at several parameters, in random directions
        for (int k = 0; k < 3; ++k) {
            osc_vec3 c = centre_of_curvature(d.control_points, test_uniform(&rng, 0.1, 0.9));
            osc_vec3 dir = osc_normalize(random_vec(1.0));
            snprintf(name, sizeof name, "spline %d, evolute crossing %d", trial, k);
            sweep(name, s, osc_add_scaled(c, dir, -0.4), osc_add_scaled(c, dir, 0.4), 1000);
        }
        // through and next to the cusp of the evolute, when the vertex lies on the spline
        double tv = vertex_parameter(d.control_points);
        if (tv > 0.05 && tv < 0.95) {
            osc_vec3 cusp = centre_of_curvature(d.control_points, tv);
            osc_vec3 dir = osc_normalize(random_vec(1.0));
            snprintf(name, sizeof name, "spline %d, through the cusp", trial);
            sweep(name, s, osc_add_scaled(cusp, dir, -0.3), osc_add_scaled(cusp, dir, 0.3), 1000);
            osc_vec3 off = osc_add_scaled(cusp, osc_normalize(random_vec(1.0)), 2e-3);
            snprintf(name, sizeof name, "spline %d, beside the cusp", trial);
            sweep(name, s, osc_add_scaled(off, dir, -0.3), osc_add_scaled(off, dir, 0.3), 1000);
        }
        // past both ends, where the roots leave [0, 1]
        for (int end = 0; end < 2; ++end) {
            osc_vec3 tip = d.control_points[end ? 2 : 0];
            osc_vec3 dir = osc_normalize(random_vec(1.0));
            snprintf(name, sizeof name, "spline %d, past end %d", trial, end);
            sweep(name, s, osc_add_scaled(tip, dir, -0.5), osc_add_scaled(tip, dir, 0.5), 1000);
        }
        osc_sdf_destroy(s);
    }
}

// the default (smooth) temperatures stay close to the hard limit
static void test_soft_close_to_hard(void) {
    osc_xpsq_desc soft = osc_xpsq_desc_default();
    random_spline(soft.control_points);
    for (int i = 0; i < 3; ++i) soft.scale[i] = osc_profile_constant(0.2);
    osc_xpsq_desc hard = soft;
    hard.plane_temperature = hard.discriminant_temperature = hard.root_temperature = hard.blend_temperature = 0.0;
    osc_sdf *s = NULL, *h = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&soft, &s), OSC_OK);
    CHECK_STATUS(osc_sdf_create_xpsq(&hard, &h), OSC_OK);
    double worst = 0.0;
    for (int i = 0; i < 5000; ++i) {
        osc_vec3 x = random_vec(1.3);
        worst = fmax(worst, fabs(osc_sdf_eval(s, x, NULL, NULL) - osc_sdf_eval(h, x, NULL, NULL)));
    }
    printf("  default temperatures vs hard limit: largest difference %.3g\n", worst);
    // the blend temperature (0.01) bounds the smooth minimum's deviation at medial points
    CHECK_MSG(worst < 0.02, "soft XPSQ differs from the hard one by %g", worst);
    osc_sdf_destroy(s);
    osc_sdf_destroy(h);
}

static void test_invalid(void) {
    osc_sdf* out = NULL;
    osc_xpsq_desc d = osc_xpsq_desc_default();
    CHECK_STATUS(osc_sdf_create_xpsq(NULL, &out), OSC_ERR_INVALID_ARGUMENT);
    d.control_points[0] = d.control_points[1] = d.control_points[2] = osc_v3(1, 1, 1);
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "coincide") != NULL);
    d = osc_xpsq_desc_default();
    d.control_points[1] = osc_v3(0, 0, 3); // collinear, p2 beyond p3: the spline turns back
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "turns back") != NULL);
    d = osc_xpsq_desc_default();
    d.control_points[2].x = NAN;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "control_points[2]") != NULL);
    d = osc_xpsq_desc_default();
    d.scale[1].control = -0.1;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "scale[1].control") != NULL);
    d = osc_xpsq_desc_default();
    d.exponent[0].end = 2.5;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "exponent[0].end") != NULL);
    d = osc_xpsq_desc_default();
    d.blend_temperature = -1.0;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "blend_temperature") != NULL);
    d = osc_xpsq_desc_default();
    osc_plane_profile opposed = {{{1, 0, 0}, 0}, {{0, 1, 0}, 0}, {{-1, 0, 0}, 0}};
    d.planes = &opposed;
    d.plane_count = 1;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "planes[0]") != NULL);
    d.planes = NULL;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    d = osc_xpsq_desc_default();
    d.frame = OSC_XPSQ_FRAME_INTERPOLATED;
    d.rotation_end = (osc_quat){0, 0, 0, 0};
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    d.frame = (osc_xpsq_frame)7;
    CHECK_STATUS(osc_sdf_create_xpsq(&d, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
}

int main(void) {
    RUN(test_tube_oracle);
    RUN(test_twisted_tapered_sweep);
    RUN(test_random_derivatives_bounds_lipschitz);
    RUN(test_smoothness_sweeps);
    RUN(test_soft_close_to_hard);
    RUN(test_invalid);
    return test_finish();
}
