// test_sdf_primitives.c: the primitives of sdf.h against independent closed forms or brute force,
// their derivatives against finite differences, bounds, Lipschitz bounds and bad input.

#include "sdf_test_util.h"

#include <string.h>

static test_rng rng = {12345};

static osc_vec3 random_point(double extent) {
    return osc_v3(test_uniform(&rng, -extent, extent), test_uniform(&rng, -extent, extent),
                  test_uniform(&rng, -extent, extent));
}

// ---------------------------------------------------------------------------------------------
// independent oracles (written differently from the library: clamping, projection, sampling)

static double box_oracle(osc_vec3 x, osc_vec3 b) {
    // outside: distance to the clamped point; inside: minus the distance to the nearest face
    osc_vec3 c = osc_v3(fmax(-b.x, fmin(b.x, x.x)), fmax(-b.y, fmin(b.y, x.y)), fmax(-b.z, fmin(b.z, x.z)));
    double outside = osc_length(osc_sub(x, c));
    if (outside > 0.0) return outside;
    return -fmin(b.x - fabs(x.x), fmin(b.y - fabs(x.y), b.z - fabs(x.z)));
}

static double segment_distance(osc_vec3 x, osc_vec3 a, osc_vec3 b) {
    osc_vec3 ab = osc_sub(b, a);
    double t = osc_dot(osc_sub(x, a), ab) / osc_dot(ab, ab);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return osc_length(osc_sub(x, osc_add_scaled(a, ab, t)));
}

// revolved trapezoid (cone / cylinder) by dense sampling of the meridian boundary
static double cone_oracle(osc_vec3 x, double r1, double r2, double h) {
    double q = sqrt(x.x * x.x + x.y * x.y), z = x.z;
    double best = INFINITY;
    const int n = 20000;
    for (int i = 0; i <= n; ++i) {
        double s = (double)i / n;
        double pts[3][2] = {{s * r1, -h}, {s * r2, h}, {r1 + s * (r2 - r1), -h + 2.0 * h * s}};
        for (int k = 0; k < 3; ++k) {
            double d = hypot(q - pts[k][0], z - pts[k][1]);
            if (d < best) best = d;
        }
    }
    double radius_at_z = r1 + (r2 - r1) * (z + h) / (2.0 * h);
    int inside = z > -h && z < h && q < radius_at_z;
    return inside ? -best : best;
}

// ---------------------------------------------------------------------------------------------

static void test_sphere_exact(void) {
    osc_sdf* s = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.7, &s), OSC_OK);
    double worst = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 x = random_point(2.0);
        worst = fmax(worst, fabs(osc_sdf_eval(s, x, NULL, NULL) - (osc_length(x) - 0.7)));
    }
    CHECK_MSG(worst < 1e-15, "sphere error %g", worst);
    // the centre: value -r, gradient zero (documented)
    osc_vec3 g;
    CHECK(osc_sdf_eval(s, osc_v3(0, 0, 0), &g, NULL) == -0.7);
    CHECK(g.x == 0.0 && g.y == 0.0 && g.z == 0.0);
    osc_sdf_destroy(s);
}

static void test_box_exact(void) {
    osc_vec3 b = {0.9, 0.4, 0.6};
    osc_sdf *box = NULL, *rounded = NULL;
    CHECK_STATUS(osc_sdf_create_box(b, 0.0, &box), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(b, 0.15, &rounded), OSC_OK);
    osc_vec3 inner = osc_sub(b, osc_v3(0.15, 0.15, 0.15));
    double worst = 0.0, worst_rounded = 0.0;
    for (int i = 0; i < 5000; ++i) {
        osc_vec3 x = random_point(1.5);
        worst = fmax(worst, fabs(osc_sdf_eval(box, x, NULL, NULL) - box_oracle(x, b)));
        worst_rounded = fmax(worst_rounded, fabs(osc_sdf_eval(rounded, x, NULL, NULL) - (box_oracle(x, inner) - 0.15)));
    }
    CHECK_MSG(worst < 1e-14, "box error %g", worst);
    CHECK_MSG(worst_rounded < 1e-14, "rounded box error %g", worst_rounded);
    // the rounded box keeps its outer half-extents: face centres are on the surface
    CHECK_NEAR(osc_sdf_eval(rounded, osc_v3(0.9, 0, 0), NULL, NULL), 0.0, 1e-15);
    CHECK_NEAR(osc_sdf_eval(rounded, osc_v3(0, 0, -0.6), NULL, NULL), 0.0, 1e-15);
    osc_sdf_destroy(box);
    osc_sdf_destroy(rounded);
}

static void test_capsule_cylinder_torus_halfspace_exact(void) {
    osc_sdf *capsule = NULL, *cylinder = NULL, *torus = NULL, *plane = NULL;
    CHECK_STATUS(osc_sdf_create_capsule(0.3, 0.8, &capsule), OSC_OK);
    CHECK_STATUS(osc_sdf_create_cylinder(0.5, 0.7, &cylinder), OSC_OK);
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.25, &torus), OSC_OK);
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 3, 4), -2.0, &plane), OSC_OK);
    double e_capsule = 0, e_cylinder = 0, e_torus = 0, e_plane = 0;
    for (int i = 0; i < 5000; ++i) {
        osc_vec3 x = random_point(1.6);
        double capsule_ref = segment_distance(x, osc_v3(0, 0, -0.8), osc_v3(0, 0, 0.8)) - 0.3;
        e_capsule = fmax(e_capsule, fabs(osc_sdf_eval(capsule, x, NULL, NULL) - capsule_ref));
        // cylinder: 2D box distance in (q, |z|)
        double dq = hypot(x.x, x.y) - 0.5, dz = fabs(x.z) - 0.7;
        double cylinder_ref = fmin(fmax(dq, dz), 0.0) + hypot(fmax(dq, 0.0), fmax(dz, 0.0));
        e_cylinder = fmax(e_cylinder, fabs(osc_sdf_eval(cylinder, x, NULL, NULL) - cylinder_ref));
        double torus_ref = hypot(hypot(x.x, x.y) - 1.0, x.z) - 0.25;
        e_torus = fmax(e_torus, fabs(osc_sdf_eval(torus, x, NULL, NULL) - torus_ref));
        double plane_ref = (3.0 * x.y + 4.0 * x.z - 2.0) / 5.0;
        e_plane = fmax(e_plane, fabs(osc_sdf_eval(plane, x, NULL, NULL) - plane_ref));
    }
    CHECK_MSG(e_capsule < 1e-14, "capsule error %g", e_capsule);
    CHECK_MSG(e_cylinder < 1e-14, "cylinder error %g", e_cylinder);
    CHECK_MSG(e_torus < 1e-14, "torus error %g", e_torus);
    CHECK_MSG(e_plane < 1e-14, "half-space error %g", e_plane);
    osc_sdf_destroy(capsule);
    osc_sdf_destroy(cylinder);
    osc_sdf_destroy(torus);
    osc_sdf_destroy(plane);
}

static void test_cone_brute_force(void) {
    double shapes[3][3] = {{0.6, 0.2, 0.5}, {0.0, 0.5, 0.4}, {0.7, 0.0, 0.8}}; // frustum, inverted, pointed
    for (int k = 0; k < 3; ++k) {
        osc_sdf* cone = NULL;
        CHECK_STATUS(osc_sdf_create_cone(shapes[k][0], shapes[k][1], shapes[k][2], &cone), OSC_OK);
        double worst = 0.0;
        for (int i = 0; i < 300; ++i) {
            osc_vec3 x = random_point(1.2);
            double ref = cone_oracle(x, shapes[k][0], shapes[k][1], shapes[k][2]);
            worst = fmax(worst, fabs(osc_sdf_eval(cone, x, NULL, NULL) - ref));
        }
        // the sampling step of the oracle is 1e-4 of the segment length: its error is below 1e-4
        CHECK_MSG(worst < 1e-4, "cone %d: error %g against sampling", k, worst);
        osc_sdf_destroy(cone);
    }
}

// ellipsoid: exact zero set, unit gradient along the true normal at the surface, sign correct,
// and the documented accuracy against the true distance (computed by dense sampling)
static void test_ellipsoid(void) {
    osc_vec3 r = {1.0, 0.6, 0.35};
    osc_sdf* e = NULL;
    CHECK_STATUS(osc_sdf_create_ellipsoid(r, &e), OSC_OK);
    double worst_zero = 0.0, worst_normal = 0.0;
    for (int i = 0; i < 2000; ++i) {
        double u = test_uniform(&rng, 0, 2 * TEST_PI), v = test_uniform(&rng, -TEST_PI / 2, TEST_PI / 2);
        osc_vec3 s = osc_v3(r.x * cos(v) * cos(u), r.y * cos(v) * sin(u), r.z * sin(v));
        osc_vec3 g;
        worst_zero = fmax(worst_zero, fabs(osc_sdf_eval(e, s, &g, NULL)));
        osc_vec3 n = osc_normalize(osc_v3(s.x / (r.x * r.x), s.y / (r.y * r.y), s.z / (r.z * r.z)));
        worst_normal = fmax(worst_normal, osc_length(osc_sub(g, n)));
    }
    CHECK_MSG(worst_zero < 1e-14, "ellipsoid zero set error %g", worst_zero);
    CHECK_MSG(worst_normal < 1e-12, "ellipsoid surface gradient differs from the unit normal by %g", worst_normal);
    // sign against the implicit equation
    int wrong_sign = 0;
    for (int i = 0; i < 5000; ++i) {
        osc_vec3 x = random_point(1.3);
        double f = x.x * x.x / (r.x * r.x) + x.y * x.y / (r.y * r.y) + x.z * x.z / (r.z * r.z) - 1.0;
        if ((f < 0.0) != (osc_sdf_eval(e, x, NULL, NULL) < 0.0)) ++wrong_sign;
    }
    CHECK(wrong_sign == 0);
    osc_sdf_destroy(e);
}

// ---------------------------------------------------------------------------------------------
// derivatives, bounds, Lipschitz bounds, for every primitive placed by a random transform

typedef osc_status (*make_fn)(osc_sdf** out);
static osc_status make_sphere(osc_sdf** o) { return osc_sdf_create_sphere(0.6, o); }
static osc_status make_box(osc_sdf** o) { return osc_sdf_create_box(osc_v3(0.7, 0.3, 0.5), 0.0, o); }
static osc_status make_rounded_box(osc_sdf** o) { return osc_sdf_create_box(osc_v3(0.7, 0.3, 0.5), 0.1, o); }
static osc_status make_capsule(osc_sdf** o) { return osc_sdf_create_capsule(0.25, 0.6, o); }
static osc_status make_cylinder(osc_sdf** o) { return osc_sdf_create_cylinder(0.4, 0.5, o); }
static osc_status make_cone(osc_sdf** o) { return osc_sdf_create_cone(0.5, 0.1, 0.6, o); }
static osc_status make_pointed_cone(osc_sdf** o) { return osc_sdf_create_cone(0.5, 0.0, 0.6, o); }
static osc_status make_torus(osc_sdf** o) { return osc_sdf_create_torus(0.7, 0.2, o); }
static osc_status make_halfspace(osc_sdf** o) { return osc_sdf_create_halfspace(osc_v3(1, -2, 0.5), 0.3, o); }
static osc_status make_ellipsoid(osc_sdf** o) { return osc_sdf_create_ellipsoid(osc_v3(0.8, 0.5, 0.3), o); }

static void test_derivatives_bounds_lipschitz(void) {
    struct {
        const char* name;
        make_fn make;
        double max_skip;
    } cases[] = {
        {"sphere", make_sphere, 0.001},
        {"box", make_box, 0.02},
        {"rounded box", make_rounded_box, 0.02},
        {"capsule", make_capsule, 0.01},
        {"cylinder", make_cylinder, 0.03},
        {"cone", make_cone, 0.03},
        {"pointed cone", make_pointed_cone, 0.03},
        {"torus", make_torus, 0.005},
        {"half-space", make_halfspace, 0.0},
        // the distance-like ellipsoid grows like 1/|x| at its centre: FD steps do not converge in a
        // small ball there
        {"ellipsoid", make_ellipsoid, 0.01},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        osc_sdf *base = NULL, *placed = NULL;
        CHECK_STATUS(cases[c].make(&base), OSC_OK);
        osc_pose pose = {osc_v3(0.3, -0.2, 0.1), random_quat(&rng)};
        CHECK_STATUS(osc_sdf_create_transformed(base, pose, 1.3, &placed), OSC_OK);
        osc_vec3 lo = osc_v3(-1.6, -1.6, -1.6), hi = osc_v3(1.6, 1.6, 1.6);
        fd_stats st = fd_check_box(cases[c].name, placed, lo, hi, 3000, cases[c].max_skip, &rng);
        printf("  %-13s fd: %d compared, %d skipped at kinks, worst grad %.1e hess %.1e\n", cases[c].name, st.checked,
               st.skipped, st.worst_grad, st.worst_hess);
        if (strcmp(cases[c].name, "half-space") != 0) check_bounds_contain(cases[c].name, placed, lo, hi, 20000, &rng);
        check_lipschitz(cases[c].name, placed, lo, hi, 20000, &rng);
        check_orders_agree(cases[c].name, placed, osc_v3(0.11, -0.4, 0.23));
        // the transform law: phi(x) = s phi_base(R^T (x - p) / s)
        for (int i = 0; i < 100; ++i) {
            osc_vec3 x = random_point(1.5);
            double expected =
                1.3 * osc_sdf_eval(base, osc_scale(osc_pose_apply_inverse(pose, x), 1.0 / 1.3), NULL, NULL);
            CHECK_NEAR(osc_sdf_eval(placed, x, NULL, NULL), expected, 1e-13);
        }
        osc_sdf_destroy(base);
        osc_sdf_destroy(placed);
    }
}

static void test_exact_lipschitz_and_halfspace_bounds(void) {
    osc_sdf *box = NULL, *ground = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(1, 1, 1), 0.0, &box), OSC_OK);
    CHECK(osc_sdf_lipschitz(box) == 1.0);
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 2), 1.0, &ground), OSC_OK);
    osc_vec3 lo, hi;
    osc_sdf_bounds(ground, &lo, &hi);
    CHECK(isinf(lo.x) && isinf(lo.y) && isinf(lo.z) && isinf(hi.x) && isinf(hi.y));
    CHECK_NEAR(hi.z, -0.5, 0.0); // z <= -offset / |n|
    osc_sdf_destroy(box);
    osc_sdf_destroy(ground);
}

// ---------------------------------------------------------------------------------------------
// bad input

// a constructor call that must fail: it returns OSC_ERR_INVALID_ARGUMENT, leaves out NULL and
// names the offending parameter in the message
#define EXPECT_INVALID(call, needle)                                                                                   \
    do {                                                                                                               \
        osc_sdf* out_ = (osc_sdf*)&rng; /* non-NULL garbage that the constructor must reset */                         \
        osc_status status_ = call;                                                                                     \
        CHECK_STATUS(status_, OSC_ERR_INVALID_ARGUMENT);                                                               \
        CHECK(out_ == NULL);                                                                                           \
        CHECK_MSG(strstr(osc_last_error(), needle) != NULL, "message \"%s\" lacks \"%s\"", osc_last_error(), needle);  \
    } while (0)

static void test_invalid_parameters(void) {
    EXPECT_INVALID(osc_sdf_create_sphere(-1.0, &out_), "radius");
    EXPECT_INVALID(osc_sdf_create_sphere(NAN, &out_), "radius");
    EXPECT_INVALID(osc_sdf_create_box(osc_v3(1, -1, 1), 0.0, &out_), "half_extents.y");
    EXPECT_INVALID(osc_sdf_create_box(osc_v3(1, 1, 1), 1.5, &out_), "rounding");
    EXPECT_INVALID(osc_sdf_create_box(osc_v3(1, 1, INFINITY), 0.0, &out_), "half_extents.z");
    EXPECT_INVALID(osc_sdf_create_capsule(0.0, 1.0, &out_), "radius");
    EXPECT_INVALID(osc_sdf_create_capsule(1.0, -1.0, &out_), "half_length");
    EXPECT_INVALID(osc_sdf_create_cylinder(1.0, 0.0, &out_), "half_length");
    EXPECT_INVALID(osc_sdf_create_cone(0.0, 0.0, 1.0, &out_), "both be 0");
    EXPECT_INVALID(osc_sdf_create_cone(-0.1, 0.5, 1.0, &out_), "radius_bottom");
    EXPECT_INVALID(osc_sdf_create_torus(0.5, 0.5, &out_), "minor_radius");
    EXPECT_INVALID(osc_sdf_create_halfspace(osc_v3(0, 0, 0), 1.0, &out_), "normal");
    EXPECT_INVALID(osc_sdf_create_halfspace(osc_v3(0, 0, 1), NAN, &out_), "offset");
    EXPECT_INVALID(osc_sdf_create_ellipsoid(osc_v3(1, 0, 1), &out_), "radii.y");
    CHECK_STATUS(osc_sdf_create_sphere(1.0, NULL), OSC_ERR_INVALID_ARGUMENT);
}

// absurd but finite sizes: every length outside [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX] (a sphere of
// radius 1e308 was accepted and evaluated to inf with a zero gradient, an ellipsoid of radii 1e-200
// to NaN), every temperature that is neither 0 nor in that range (subnormal ones give infinite
// Hessians), is refused, naming the parameter and its value
#define EXPECT_REFUSED(call, name, value)                                                                              \
    do {                                                                                                               \
        osc_sdf* out_ = (osc_sdf*)&rng; /* non-NULL garbage that the constructor must reset */                         \
        CHECK_REFUSED(call, name, value);                                                                              \
        CHECK(out_ == NULL);                                                                                           \
    } while (0)

static void test_length_ranges(void) {
    const double big = 1e31, small = 1e-31, subnormal = 1e-320;
    EXPECT_REFUSED(osc_sdf_create_sphere(1e308, &out_), "radius", value_text(1e308));
    EXPECT_REFUSED(osc_sdf_create_sphere(big, &out_), "radius", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_sphere(small, &out_), "radius", value_text(small));
    EXPECT_REFUSED(osc_sdf_create_sphere(INFINITY, &out_), "radius", "inf");
    EXPECT_REFUSED(osc_sdf_create_box(osc_v3(1, big, 1), 0.0, &out_), "half_extents.y", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_box(osc_v3(1, 1, small), 0.0, &out_), "half_extents.z", value_text(small));
    EXPECT_REFUSED(osc_sdf_create_capsule(1.0, big, &out_), "half_length", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_cylinder(1.0, small, &out_), "half_length", value_text(small));
    EXPECT_REFUSED(osc_sdf_create_cone(1.0, big, 1.0, &out_), "radius_top", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_torus(big, 1.0, &out_), "major_radius", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_ellipsoid(osc_v3(1e-200, 2e-200, 3e-200), &out_), "radii.x", value_text(1e-200));
    EXPECT_REFUSED(osc_sdf_create_halfspace(osc_v3(0, 0, 1), big, &out_), "offset", value_text(big));
    EXPECT_REFUSED(osc_sdf_create_superquadric(osc_v3(big, 1, 1), 1.0, 1.0, &out_), "scales.x", value_text(big));
    osc_plane plane = {osc_v3(0, 0, 1), 0.2};
    EXPECT_REFUSED(osc_sdf_create_psq(osc_v3(1, 1, 1), 1.0, 1.0, &plane, 1, subnormal, &out_), "temperature",
                   value_text(subnormal));
    EXPECT_REFUSED(osc_sdf_create_psq(osc_v3(1, 1, 1), 1.0, 1.0, &plane, 1, big, &out_), "temperature",
                   value_text(big));
    osc_plane far_plane = {osc_v3(0, 0, 1), big};
    EXPECT_REFUSED(osc_sdf_create_psq(osc_v3(1, 1, 1), 1.0, 1.0, &far_plane, 1, 0.01, &out_), "planes[0]",
                   value_text(big));
    EXPECT_REFUSED(osc_sdf_create_menger(big, 2, &out_), "half_size", value_text(big));
    osc_xpsq_desc desc = osc_xpsq_desc_default();
    desc.control_points[1].x = big;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "control_points[1]", value_text(big));
    desc = osc_xpsq_desc_default();
    desc.scale[0].control = small;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "scale[0].control", value_text(small));
    desc = osc_xpsq_desc_default();
    desc.root_temperature = subnormal;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "root_temperature", value_text(subnormal));
    desc = osc_xpsq_desc_default();
    desc.blend_temperature = big;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "blend_temperature", value_text(big));
    desc = osc_xpsq_desc_default();
    desc.discriminant_temperature = NAN;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "discriminant_temperature", "nan");
    osc_plane_profile far_profile = osc_plane_profile_constant(plane);
    far_profile.end.offset = -big;
    desc = osc_xpsq_desc_default();
    desc.planes = &far_profile;
    desc.plane_count = 1;
    EXPECT_REFUSED(osc_sdf_create_xpsq(&desc, &out_), "planes[0]", value_text(-big));
}

// the distance from (q, z) to the segment from (q0, z0) to (q1, z1), and its derivative in q
static double meridian_distance(double q, double z, double q0, double z0, double q1, double z1, double* dq) {
    double dx = q1 - q0, dz = z1 - z0;
    double s = fmin(1.0, fmax(0.0, ((q - q0) * dx + (z - z0) * dz) / (dx * dx + dz * dz)));
    double ux = q - (q0 + s * dx), uz = z - (z0 + s * dz), d = hypot(ux, uz);
    *dq = ux / d;
    return d;
}

// the ends of the range are computed correctly: each primitive at sizes OSC_SDF_LENGTH_MIN and
// OSC_SDF_LENGTH_MAX (its bounds within the range) gives, at 3 L along x, the distance to its surface
// point on the x axis to 1e-12 (relative) with a unit gradient, and finite values, gradients and
// Hessians at points as far as OSC_SDF_LENGTH_MAX^2 in every direction
static void test_extreme_lengths(void) {
    int far_checked = 0;
    for (int end = 0; end < 2; ++end) {
        double L = end ? OSC_SDF_LENGTH_MAX : OSC_SDF_LENGTH_MIN;
        double u = end ? 0.25 : 1.0; // the lengths that add up along an axis: their sum stays <= L
        osc_xpsq_desc desc = osc_xpsq_desc_default();
        desc.control_points[0] = osc_v3(0, 0, -L * u);
        desc.control_points[1] = osc_v3(0, 0, 0);
        desc.control_points[2] = osc_v3(0, 0, L * u);
        for (int i = 0; i < 3; ++i) desc.scale[i] = osc_profile_constant(L * u);
        desc.plane_temperature = 0.0;                // no planes
        desc.blend_temperature = end ? 0.01 * L : L; // a length: 0 or in the range
        osc_xpsq_desc curved = desc;
        curved.control_points[1] = osc_v3(L * u, 0, 0);
        osc_sdf* unit = NULL;
        CHECK_STATUS(osc_sdf_create_sphere(1.0, &unit), OSC_OK);
        enum { SHAPES = 12 };
        osc_sdf* shapes[SHAPES] = {NULL};
        const char* names[SHAPES] = {"sphere",    "box",       "capsule",      "cylinder", "cone", "torus",
                                     "ellipsoid", "halfspace", "superquadric", "menger",   "xpsq", "scaled sphere"};
        // where each surface crosses the positive x axis
        double major = end ? 0.6 * L : 1.5 * L, minor = end ? 0.2 * L : L; // the torus
        const double extent[SHAPES] = {L, L, L * u, L, L, major + minor, L, L, L, L, L * u, L};
        CHECK_STATUS(osc_sdf_create_sphere(L, &shapes[0]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_box(osc_v3(L, L * u, L * u * u), 0.0, &shapes[1]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_capsule(L * u, L * u, &shapes[2]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_cylinder(L, L * u, &shapes[3]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_cone(L, 0.5 * L, L * u, &shapes[4]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_torus(major, minor, &shapes[5]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(L, L * u, L * u * u), &shapes[6]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(1, 0, 0), -L, &shapes[7]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(L, L, L), 1.0, 1.0, &shapes[8]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_menger(L, 3, &shapes[9]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_xpsq(&desc, &shapes[10]), OSC_OK);
        CHECK_STATUS(osc_sdf_create_transformed(unit, osc_pose_identity(), L, &shapes[11]), OSC_OK);
        for (int k = 0; k < SHAPES; ++k) {
            if (!shapes[k]) continue;
            osc_vec3 g;
            double expected = 3.0 * L - extent[k], slope = 1.0;
            if (k == 4) // the cone's slanted side from (L, -L u) to (L / 2, L u) in the meridian plane
                expected = meridian_distance(3.0 * L, 0.0, L, -L * u, 0.5 * L, L * u, &slope);
            double value = osc_sdf_eval(shapes[k], osc_v3(3.0 * L, 0, 0), &g, NULL);
            double tolerance = k == 10 ? 1e-6 : 1e-12; // the XPSQ is distance-like (docs/xpsq.md)
            CHECK_MSG(fabs(value - expected) <= tolerance * expected && fabs(g.x - slope) < 1e-6,
                      "%s at L = %g: value %g, expected %g, gradient x %g", names[k], L, value, expected, g.x);
            // far points: finite answers
            const double reach = OSC_SDF_LENGTH_MAX * OSC_SDF_LENGTH_MAX;
            const osc_vec3 far[4] = {osc_v3(reach, 0, 0), osc_v3(0, -reach, 0), osc_v3(0, 0, reach),
                                     osc_scale(osc_v3(1, -1, 1), reach / 2.0)};
            for (int f = 0; f < 4; ++f) {
                osc_mat3 h;
                value = osc_sdf_eval(shapes[k], far[f], &g, &h);
                CHECK_MSG(isfinite(value) && osc_vec3_is_finite(g) && isfinite(h.m[0][0] + h.m[1][1] + h.m[2][2]),
                          "%s at L = %g, point %d: value %g, gradient %g %g %g", names[k], L, f, value, g.x, g.y, g.z);
                ++far_checked;
            }
        }
        osc_sdf* bent = NULL;
        CHECK_STATUS(osc_sdf_create_xpsq(&curved, &bent), OSC_OK);
        for (int f = 0; f < 3 && bent; ++f) {
            osc_vec3 g;
            double value = osc_sdf_eval(bent, osc_v3(f == 0 ? 3.0 * L : 1e3 * L, f == 2 ? L : 0.0, 0.5 * L), &g, NULL);
            CHECK_MSG(isfinite(value) && value > 0.0 && osc_vec3_is_finite(g), "curved XPSQ at L = %g, point %d: %g", L,
                      f, value);
        }
        osc_sdf_destroy(bent);
        for (int k = 0; k < SHAPES; ++k) osc_sdf_destroy(shapes[k]);
        osc_sdf_destroy(unit);
    }
    CHECK(far_checked == 2 * 12 * 4);
}

// beyond OSC_SDF_LENGTH_MAX^2 from the origin (where a sphere's x^2 + y^2 + z^2 overflowed to
// inf and a superquadric's powers to NaN) a bounded model gives its far field: the distance, equal
// in double precision to |p - c| - r for a sphere of centre c, a unit gradient and a Hessian of
// order 1 / distance; across the threshold the value is continuous to rounding
static void test_far_field(void) {
    osc_sdf *sphere = NULL, *quadric = NULL, *moved = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.4, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &quadric), OSC_OK);
    osc_pose pose = {osc_v3(2.0, -1.0, 0.5), osc_quat_from_axis_angle(osc_v3(0, 0, 1), 0.7)};
    CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.5, &moved), OSC_OK);
    const double distances[] = {1e61, 1e100, 1e200, 1e300, 1.7e308};
    const osc_vec3 directions[] = {osc_v3(1, 0, 0), osc_v3(0, -1, 0), osc_v3(0.6, 0.0, -0.8)};
    for (size_t i = 0; i < sizeof distances / sizeof distances[0]; ++i)
        for (size_t k = 0; k < 3; ++k) {
            osc_vec3 point = osc_scale(directions[k], distances[i]), g;
            osc_mat3 h;
            double value = osc_sdf_eval(sphere, point, &g, &h);
            // |p| - r rounds to |p| here; the slanted direction's components add a rounding
            const double near = 4e-16 * distances[i];
            CHECK_MSG(fabs(value - distances[i]) <= near && fabs(osc_dot(g, directions[k]) - 1.0) < 1e-15 &&
                          isfinite(h.m[0][0] + h.m[1][1] + h.m[2][2]) && fabs(h.m[1][1]) <= 2.0 / distances[i],
                      "sphere at %g along %zu: value %g, gradient (%g, %g, %g)", distances[i], k, value, g.x, g.y, g.z);
            value = osc_sdf_eval(moved, point, &g, &h);
            CHECK_MSG(fabs(value - distances[i]) <= near && fabs(osc_dot(g, directions[k]) - 1.0) < 1e-15,
                      "moved sphere at %g along %zu: value %g", distances[i], k, value);
            value = osc_sdf_eval(quadric, point, &g, NULL);
            CHECK_MSG(fabs(value - distances[i]) <= near && osc_vec3_is_finite(g),
                      "superquadric at %g along %zu: value %g, gradient (%g, %g, %g)", distances[i], k, value, g.x, g.y,
                      g.z);
        }
    // continuity across the threshold: the primitive's own value just inside, the far field just
    // outside, both |p| - r to rounding
    const double reach = OSC_SDF_LENGTH_MAX * OSC_SDF_LENGTH_MAX;
    double inside = osc_sdf_eval(moved, osc_v3(reach, 0, 0), NULL, NULL);
    double outside = osc_sdf_eval(moved, osc_v3(reach * (1.0 + 1e-15), 0, 0), NULL, NULL);
    CHECK_MSG(fabs(outside - inside) <= 1e-14 * reach, "across the far-field threshold: %.17g then %.17g", inside,
              outside);
    // an unbounded model has no far field: a halfspace stays exact
    osc_sdf* half = NULL;
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &half), OSC_OK);
    CHECK(osc_sdf_eval(half, osc_v3(0, 0, 1e200), NULL, NULL) == 1e200);
    osc_sdf_destroy(half);
    osc_sdf_destroy(moved);
    osc_sdf_destroy(quadric);
    osc_sdf_destroy(sphere);
}

static void test_nan_points_and_null_models(void) {
    osc_sdf* s = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.3, &s), OSC_OK);
    osc_vec3 g;
    osc_mat3 h;
    double v = osc_sdf_eval(s, osc_v3(NAN, 0, 0), &g, &h);
    CHECK(isnan(v) && isnan(g.x) && isnan(g.y) && isnan(h.m[1][2]));
    CHECK(isnan(osc_sdf_eval(NULL, osc_v3(0, 0, 0), &g, NULL)) && isnan(g.z));
    // infinite points give an infinite distance here, never a crash
    CHECK(osc_sdf_eval(s, osc_v3(INFINITY, 0, 0), NULL, NULL) == INFINITY);
    osc_sdf_destroy(s);
    osc_sdf_destroy(NULL);
}

// the Menger sponge against a membership oracle in base 3: a point of the cube is removed at
// level m when at least two of its coordinates have the digit 1 in place m; phi's sign agrees
// away from the boundary, phi is 1-Lipschitz along random segments, its gradient matches central
// differences where it is smooth, and level 0 is the cube
static bool menger_member(osc_vec3 x, double h, int levels) {
    double p[3] = {x.x / h, x.y / h, x.z / h};
    for (int i = 0; i < 3; ++i)
        if (fabs(p[i]) > 1.0) return false;
    double scale = 1.0;
    for (int m = 1; m <= levels; ++m) {
        scale *= 3.0;
        int ones = 0;
        for (int i = 0; i < 3; ++i) {
            int digit = (int)floor(0.5 * (p[i] + 1.0) * scale);
            ones += digit % 3 == 1;
        }
        if (ones >= 2) return false;
    }
    return true;
}

static void test_menger(void) {
    osc_sdf *sponge = NULL, *cube = NULL, *box = NULL, *bad = NULL;
    CHECK_STATUS(osc_sdf_create_menger(2.0, 3, &sponge), OSC_OK);
    CHECK_STATUS(osc_sdf_create_menger(2.0, 0, &cube), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(2, 2, 2), 0.0, &box), OSC_OK);
    CHECK_STATUS(osc_sdf_create_menger(2.0, 9, &bad), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_menger(-1.0, 2, &bad), OSC_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL);
    test_rng menger_rng = {21};
    int disagreements = 0, checked = 0, lipschitz_violations = 0, gradient_errors = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        osc_vec3 x = osc_v3(test_uniform(&menger_rng, -2.5, 2.5), test_uniform(&menger_rng, -2.5, 2.5),
                            test_uniform(&menger_rng, -2.5, 2.5));
        osc_vec3 g;
        double phi = osc_sdf_eval(sponge, x, &g, NULL);
        CHECK_NEAR(osc_sdf_eval(cube, x, NULL, NULL), osc_sdf_eval(box, x, NULL, NULL), 1e-12);
        if (fabs(phi) > 1e-9) {
            ++checked;
            disagreements += (phi < 0.0) != menger_member(x, 2.0, 3);
        }
        osc_vec3 y = osc_add(x, osc_v3(test_uniform(&menger_rng, -0.1, 0.1), test_uniform(&menger_rng, -0.1, 0.1),
                                       test_uniform(&menger_rng, -0.1, 0.1)));
        if (fabs(osc_sdf_eval(sponge, y, NULL, NULL) - phi) > osc_length(osc_sub(x, y)) * (1 + 1e-12))
            ++lipschitz_violations;
        // central differences, skipped where a difference stencil crosses a crease
        double step = 1e-7;
        for (int axis = 0; axis < 3; ++axis) {
            osc_vec3 e = osc_v3(axis == 0, axis == 1, axis == 2);
            double up = osc_sdf_eval(sponge, osc_add_scaled(x, e, step), NULL, NULL);
            double down = osc_sdf_eval(sponge, osc_add_scaled(x, e, -step), NULL, NULL);
            double mid = 0.5 * (up + down);
            if (fabs(mid - phi) > 1e-12) continue; // a kink inside the stencil
            if (fabs((up - down) / (2 * step) - osc_vec3_get(g, axis)) > 1e-6) ++gradient_errors;
        }
    }
    printf("  Menger sponge (3 levels): %d points, %d sign disagreements with the base-3 oracle, %d "
           "Lipschitz violations, %d gradient mismatches\n",
           checked, disagreements, lipschitz_violations, gradient_errors);
    CHECK(disagreements == 0);
    CHECK(lipschitz_violations == 0);
    CHECK(gradient_errors == 0);
    // the centre is in the removed cross; a point near a corner is solid
    CHECK(osc_sdf_eval(sponge, osc_v3(0, 0, 0), NULL, NULL) > 0.0);
    CHECK(osc_sdf_eval(sponge, osc_v3(1.9, 1.9, 1.9), NULL, NULL) < 0.0);
    osc_sdf_destroy(sponge);
    osc_sdf_destroy(cube);
    osc_sdf_destroy(box);
}

int main(void) {
    RUN(test_sphere_exact);
    RUN(test_menger);
    RUN(test_box_exact);
    RUN(test_capsule_cylinder_torus_halfspace_exact);
    RUN(test_cone_brute_force);
    RUN(test_ellipsoid);
    RUN(test_derivatives_bounds_lipschitz);
    RUN(test_exact_lipschitz_and_halfspace_bounds);
    RUN(test_invalid_parameters);
    RUN(test_length_ranges);
    RUN(test_extreme_lengths);
    RUN(test_far_field);
    RUN(test_nan_points_and_null_models);
    return test_finish();
}
