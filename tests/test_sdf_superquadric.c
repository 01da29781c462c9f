// test_sdf_superquadric.c: the superquadric radial distance (Beker et al. 2026 eq. 1) and the PSQ
// (Beker et al. 2026 §III-A.3): exact zero set, the radial-distance definition, its accuracy against the
// true Euclidean distance (the figures quoted in docs/sdf.md come from this test's output),
// derivatives, Lipschitz bounds and bad input.

#include "sdf_test_util.h"

#include "sdf_superquadric.h"

#include <stdlib.h>
#include <string.h>

static test_rng rng = {4242};

typedef struct sq_shape {
    const char* name;
    double ax, ay, az, eps1, eps2;
} sq_shape;

static const sq_shape shapes[] = {
    {"sphere", 0.7, 0.7, 0.7, 1.0, 1.0},          {"ellipsoid", 1.0, 0.6, 0.4, 1.0, 1.0},
    {"box-like", 1.0, 0.8, 0.5, 0.2, 0.2},        {"cylinder-like", 0.5, 0.5, 1.0, 0.2, 1.0},
    {"octahedron-like", 1.0, 1.0, 1.0, 1.6, 1.6}, {"pinched", 1.0, 0.5, 0.6, 1.8, 0.5},
};

// the inside-outside function of Beker et al. 2026 eq. (1), written directly with pow
static double sq_f(const sq_shape* s, osc_vec3 x) {
    double a = pow(fabs(x.x / s->ax), 2.0 / s->eps2) + pow(fabs(x.y / s->ay), 2.0 / s->eps2);
    return pow(a, s->eps2 / s->eps1) + pow(fabs(x.z / s->az), 2.0 / s->eps1);
}

// the surface point along the unit direction d: f is homogeneous of degree 2 / eps1
static osc_vec3 sq_surface(const sq_shape* s, osc_vec3 d) { return osc_scale(d, pow(sq_f(s, d), -0.5 * s->eps1)); }

static osc_sdf* make_sq(const sq_shape* s) {
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(s->ax, s->ay, s->az), s->eps1, s->eps2, &out), OSC_OK);
    return out;
}

static osc_vec3 direction(double theta, double phi) {
    return osc_v3(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta));
}

// true unsigned distance from x to the SQ surface: the 8 closest of 4000 directions on a
// Fibonacci sphere, each refined by 40 rounds of a 9 x 9 grid of directions around it, halving the
// angular radius each round (the surface is star-shaped about the origin)
static double sq_true_distance(const sq_shape* s, osc_vec3 x) {
    enum { N = 4000, SEEDS = 8 };
    double seed_d[SEEDS], seed_theta[SEEDS], seed_phi[SEEDS];
    for (int k = 0; k < SEEDS; ++k) seed_d[k] = INFINITY;
    for (int i = 0; i < N; ++i) {
        double theta = acos(1.0 - (2.0 * i + 1.0) / N), phi = 2.399963229728653 * i;
        double d = osc_length(osc_sub(x, sq_surface(s, direction(theta, phi))));
        int k = SEEDS - 1;
        if (d >= seed_d[k]) continue;
        for (; k > 0 && seed_d[k - 1] > d; --k) {
            seed_d[k] = seed_d[k - 1];
            seed_theta[k] = seed_theta[k - 1];
            seed_phi[k] = seed_phi[k - 1];
        }
        seed_d[k] = d;
        seed_theta[k] = theta;
        seed_phi[k] = phi;
    }
    double best_overall = INFINITY;
    for (int k = 0; k < SEEDS; ++k) {
        double best = seed_d[k], best_theta = seed_theta[k], best_phi = seed_phi[k], radius = 0.1;
        for (int round = 0; round < 40; ++round, radius *= 0.5) {
            double t0 = best_theta, p0 = best_phi;
            for (int i = -4; i <= 4; ++i)
                for (int j = -4; j <= 4; ++j) {
                    double theta = t0 + radius * i / 4.0, phi = p0 + radius * j / 4.0;
                    double d = osc_length(osc_sub(x, sq_surface(s, direction(theta, phi))));
                    if (d < best) {
                        best = d;
                        best_theta = theta;
                        best_phi = phi;
                    }
                }
        }
        best_overall = fmin(best_overall, best);
    }
    return best_overall;
}

// points on the surface evaluate to zero, and the value is |x| - rho(x / |x|) everywhere
static void test_zero_set_and_definition(void) {
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        const sq_shape* s = &shapes[k];
        osc_sdf* sq = make_sq(s);
        double worst_zero = 0.0, worst_def = 0.0;
        for (int i = 0; i < 2000; ++i) {
            osc_vec3 d =
                osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
            osc_vec3 surface = sq_surface(s, d);
            worst_zero = fmax(worst_zero, fabs(osc_sdf_eval(sq, surface, NULL, NULL)));
            double r = test_uniform(&rng, 0.05, 3.0);
            osc_vec3 x = osc_scale(d, r);
            double expected = r - osc_length(surface);
            worst_def = fmax(worst_def, fabs(osc_sdf_eval(sq, x, NULL, NULL) - expected) / fmax(1.0, r));
        }
        CHECK_MSG(worst_zero < 1e-13, "%s: |phi| on the surface up to %g", s->name, worst_zero);
        CHECK_MSG(worst_def < 1e-13, "%s: radial distance differs from its definition by %g", s->name, worst_def);
        osc_sdf_destroy(sq);
    }
    // eps1 = eps2 = 1 with equal scales is the exact sphere distance
    osc_sdf* ball = make_sq(&shapes[0]);
    for (int i = 0; i < 500; ++i) {
        osc_vec3 x = osc_v3(test_uniform(&rng, -2, 2), test_uniform(&rng, -2, 2), test_uniform(&rng, -2, 2));
        CHECK_NEAR(osc_sdf_eval(ball, x, NULL, NULL), osc_length(x) - 0.7, 1e-14);
    }
    CHECK(osc_sdf_lipschitz(ball) == 1.0);
    osc_sdf_destroy(ball);
}

static void sort_doubles(double* v, int n) {
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && v[j] < v[j - 1]; --j) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

// accuracy against the true distance in a band around the surface. The radial distance never
// underestimates (|phi| >= true distance, since the radial surface point is a surface point) and
// has the right sign. Outside, the segment from x to its closest surface point lies outside the
// shape, where |grad phi| <= L, so phi <= L * true distance: the library's own Lipschitz bound caps
// the ratio. Inside there is no such cap (the gradient grows toward the centre): the figures
// printed here are the ones quoted in docs/sdf.md.
static void test_accuracy_against_true_distance(void) {
    printf("  %-16s %-7s %8s %8s %8s  (|phi| / true distance, band |d| in [1e-3, 0.25] x size)\n", "shape", "side",
           "median", "p95", "max");
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        const sq_shape* s = &shapes[k];
        osc_sdf* sq = make_sq(s);
        double size = fmax(s->ax, fmax(s->ay, s->az)), lipschitz = osc_sdf_lipschitz(sq);
        enum { N = 120 };
        double ratios[2][N];
        int count[2] = {0, 0}, under = 0, wrong_sign = 0, above_lipschitz = 0;
        while (count[0] < N || count[1] < N) {
            osc_vec3 d =
                osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
            osc_vec3 offset =
                osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
            osc_vec3 x = osc_add_scaled(sq_surface(s, d), offset, test_uniform(&rng, 0.0, 0.25 * size));
            int inside = sq_f(s, x) < 1.0;
            if (count[inside] >= N) continue;
            double truth = sq_true_distance(s, x);
            if (truth < 1e-3 * size || truth > 0.25 * size) continue;
            double phi = osc_sdf_eval(sq, x, NULL, NULL);
            if ((phi < 0.0) != inside) ++wrong_sign;
            if (fabs(phi) < truth * (1.0 - 1e-7)) ++under;
            if (!inside && phi > lipschitz * truth * (1.0 + 1e-7)) ++above_lipschitz;
            ratios[inside][count[inside]++] = fabs(phi) / truth;
        }
        for (int side = 0; side < 2; ++side) {
            sort_doubles(ratios[side], N);
            printf("  %-16s %-7s %8.4f %8.4f %8.4f\n", s->name, side ? "inside" : "outside", ratios[side][N / 2],
                   ratios[side][(int)(0.95 * N)], ratios[side][N - 1]);
        }
        CHECK_MSG(wrong_sign == 0, "%s: %d wrong signs", s->name, wrong_sign);
        CHECK_MSG(under == 0, "%s: radial distance below the true distance at %d points", s->name, under);
        CHECK_MSG(above_lipschitz == 0, "%s: phi > L * distance at %d outside points (L = %g)", s->name,
                  above_lipschitz, lipschitz);
        if (k == 0) CHECK(ratios[0][N - 1] < 1.0 + 1e-9 && ratios[1][N - 1] < 1.0 + 1e-9); // exact sphere
        osc_sdf_destroy(sq);
    }
}

// the PSQ is LSE over the SQ and the planes (eq. 3), recomputed here with osc_logsumexp
static void test_psq_definition(void) {
    const sq_shape* s = &shapes[2];
    osc_plane planes[3] = {{{1, 1, 0}, -0.3}, {{0, 0, -2}, -0.4}, {{-1, 0.5, 0.5}, 0.1}};
    osc_sdf *sq = make_sq(s), *psq = NULL, *hard = NULL;
    CHECK_STATUS(osc_sdf_create_psq(osc_v3(s->ax, s->ay, s->az), s->eps1, s->eps2, planes, 3, 0.05, &psq), OSC_OK);
    CHECK_STATUS(osc_sdf_create_psq(osc_v3(s->ax, s->ay, s->az), s->eps1, s->eps2, planes, 3, 0.0, &hard), OSC_OK);
    double worst = 0.0, worst_hard = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 x =
            osc_v3(test_uniform(&rng, -1.5, 1.5), test_uniform(&rng, -1.5, 1.5), test_uniform(&rng, -1.5, 1.5));
        double values[4] = {osc_sdf_eval(sq, x, NULL, NULL)};
        double hard_max = values[0];
        for (int k = 0; k < 3; ++k) {
            values[k + 1] =
                osc_dot(osc_normalize(planes[k].normal), x) + planes[k].offset / osc_length(planes[k].normal);
            hard_max = fmax(hard_max, values[k + 1]);
        }
        worst = fmax(worst, fabs(osc_sdf_eval(psq, x, NULL, NULL) - osc_logsumexp(values, 4, 0.05, NULL, NULL)));
        worst_hard = fmax(worst_hard, fabs(osc_sdf_eval(hard, x, NULL, NULL) - hard_max));
    }
    CHECK_MSG(worst < 1e-13, "PSQ differs from LSE(SQ, planes) by %g", worst);
    CHECK_MSG(worst_hard < 1e-14, "hard PSQ differs from max(SQ, planes) by %g", worst_hard);
    check_bounds_contain("psq", psq, osc_v3(-1.5, -1.5, -1.5), osc_v3(1.5, 1.5, 1.5), 30000, &rng);
    osc_sdf_destroy(sq);
    osc_sdf_destroy(psq);
    osc_sdf_destroy(hard);
}

// derivatives against finite differences and the Lipschitz bound outside, on random SQs and PSQs
// over the whole exponent range. For exponents above 1 the function is not twice differentiable
// on the coordinate planes of the SQ frame (|x|^p with p < 2): stencils crossing them are skipped.
static void test_random_derivatives_and_lipschitz(void) {
    double worst_ratio = 0.0;
    for (int trial = 0; trial < 24; ++trial) {
        osc_vec3 a = osc_v3(test_uniform(&rng, 0.3, 1.0), test_uniform(&rng, 0.3, 1.0), test_uniform(&rng, 0.3, 1.0));
        double e1 = test_uniform(&rng, 0.1, 2.0), e2 = test_uniform(&rng, 0.1, 2.0);
        int planes = trial % 3;
        osc_plane p[2] = {{{0.3, 1, 0.2}, -0.1}, {{-1, 0.2, 0.4}, -0.2}};
        osc_sdf *shape = NULL, *placed = NULL;
        CHECK_STATUS(osc_sdf_create_psq(a, e1, e2, p, planes, 0.02, &shape), OSC_OK);
        osc_pose pose = {osc_v3(0.1, 0.2, -0.1), random_quat(&rng)};
        CHECK_STATUS(osc_sdf_create_transformed(shape, pose, 1.0, &placed), OSC_OK);
        char name[96];
        snprintf(name, sizeof name, "psq a=(%.2f %.2f %.2f) eps=(%.2f %.2f) planes=%d", a.x, a.y, a.z, e1, e2, planes);
        osc_vec3 lo = osc_v3(-1.4, -1.4, -1.4), hi = osc_v3(1.6, 1.6, 1.6);
        fd_check_box(name, placed, lo, hi, 600, 0.05, &rng);
        worst_ratio = fmax(worst_ratio, check_lipschitz(name, placed, lo, hi, 6000, &rng));
        check_orders_agree(name, placed, osc_v3(0.3, 0.2, 0.1));
        osc_sdf_destroy(shape);
        osc_sdf_destroy(placed);
    }
    printf("  largest |grad| / Lipschitz bound seen outside: %.4f\n", worst_ratio);
}

// far away the radial distance grows like |x| without overflow, even for the smallest exponent
static void test_far_points_and_centre(void) {
    osc_sdf* sq = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1e-3, 2e-3, 1e-3), 0.1, 0.1, &sq), OSC_OK);
    osc_vec3 g;
    double v = osc_sdf_eval(sq, osc_v3(1e6, 3e5, -2e5), &g, NULL);
    CHECK(isfinite(v) && isfinite(g.x) && isfinite(g.y) && isfinite(g.z));
    CHECK_NEAR(v / osc_length(osc_v3(1e6, 3e5, -2e5)), 1.0, 1e-8);
    // the centre is documented: -min(scale), zero gradient
    v = osc_sdf_eval(sq, osc_v3(0, 0, 0), &g, NULL);
    CHECK(v == -1e-3 && g.x == 0.0 && g.y == 0.0 && g.z == 0.0);
    // exactly on a coordinate axis: finite everywhere
    osc_mat3 h;
    v = osc_sdf_eval(sq, osc_v3(0, 0, 5e-3), &g, &h);
    CHECK(isfinite(v) && isfinite(g.z) && isfinite(h.m[0][0]) && isfinite(h.m[2][2]));
    osc_sdf_destroy(sq);
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// The constant-parameter evaluation (sq_radial_distance_fixed, hand-derived derivatives, docs/sdf.md
// "A cheaper evaluation") against the forward-mode one (sq_radial_distance over jets): the same
// function, so the same value, gradient and Hessian to rounding, over random shapes across the
// exponent range and points near, far, on the SQ's coordinate planes and axes. Differences are
// relative to the size of the jet result (|phi| + |x|, the largest gradient or Hessian entry).
static void test_fixed_matches_jets(void) {
    enum { SHAPES = 40, POINTS = 500 };
    static double dv[SHAPES * POINTS], dg[SHAPES * POINTS], dh[SHAPES * POINTS];
    int n = 0;
    for (int shape = 0; shape < SHAPES; ++shape) {
        osc_vec3 a = osc_v3(test_uniform(&rng, 0.1, 2.0), test_uniform(&rng, 0.1, 2.0), test_uniform(&rng, 0.1, 2.0));
        double e1 = test_uniform(&rng, 0.1, 2.0), e2 = shape % 4 == 0 ? e1 : test_uniform(&rng, 0.1, 2.0);
        if (shape % 10 == 1) e1 = e2 = 2.0; // p = 1: |t| itself
        for (int i = 0; i < POINTS; ++i) {
            double reach = i % 5 == 0 ? 100.0 : 3.0;
            osc_vec3 x = osc_v3(test_uniform(&rng, -reach, reach), test_uniform(&rng, -reach, reach),
                                test_uniform(&rng, -reach, reach));
            if (i % 7 == 0) x.x = 0.0; // on coordinate planes and axes
            if (i % 11 == 0) x.y = 0.0;
            if (i % 13 == 0) x.z = 0.0;
            for (int order = 0; order <= 2; ++order) {
                jet p[3] = {jet_var(x.x, 0, order), jet_var(x.y, 1, order), jet_var(x.z, 2, order)};
                jet s[3] = {jet_const(a.x, order), jet_const(a.y, order), jet_const(a.z, order)};
                jet ref = sq_radial_distance(p, s, jet_const(e1, order), jet_const(e2, order), 0, order);
                jet got = sq_radial_distance_fixed(x, a, osc_v3(1.0 / a.x, 1.0 / a.y, 1.0 / a.z), e1, e2, order);
                double value = fabs(got.v - ref.v) / (fabs(ref.v) + osc_length(x));
                double gsize = 0.0, gdiff = 0.0, hsize = 0.0, hdiff = 0.0;
                for (int k = 0; k < 3 && order >= 1; ++k)
                    gsize = fmax(gsize, fabs(ref.g[k])), gdiff = fmax(gdiff, fabs(got.g[k] - ref.g[k]));
                for (int k = 0; k < 6 && order >= 2; ++k)
                    hsize = fmax(hsize, fabs(ref.h[k])), hdiff = fmax(hdiff, fabs(got.h[k] - ref.h[k]));
                double grad = gdiff == 0.0 ? 0.0 : gdiff / gsize, hess = hdiff == 0.0 ? 0.0 : hdiff / hsize;
                CHECK_MSG(value <= 1e-13 && grad <= 1e-12 && hess <= 1e-10,
                          "a=(%g %g %g) eps=(%g %g) x=(%g %g %g) order %d: value %.17g vs %.17g, gradient %g, "
                          "Hessian %g (relative)",
                          a.x, a.y, a.z, e1, e2, x.x, x.y, x.z, order, got.v, ref.v, grad, hess);
                if (order == 2) dv[n] = value, dg[n] = grad, dh[n] = hess, ++n;
            }
        }
    }
    qsort(dv, (size_t)n, sizeof(double), compare_doubles);
    qsort(dg, (size_t)n, sizeof(double), compare_doubles);
    qsort(dh, (size_t)n, sizeof(double), compare_doubles);
    int p95 = (int)(0.95 * (n - 1));
    printf("  fixed vs jets, %d points: relative differences (max / p95): value %.3g / %.3g, gradient %.3g / %.3g, "
           "Hessian %.3g / %.3g\n",
           n, dv[n - 1], dv[p95], dg[n - 1], dg[p95], dh[n - 1], dh[p95]);
}

static void test_invalid(void) {
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1, 1, 1), 0.05, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "eps1") != NULL);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1, 1, 1), 1.0, 2.5, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "eps2") != NULL);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1, 1, 1), NAN, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1, 0, 1), 1.0, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "scales.y") != NULL);
    osc_plane zero = {{0, 0, 0}, 1.0};
    CHECK_STATUS(osc_sdf_create_psq(osc_v3(1, 1, 1), 1, 1, &zero, 1, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "planes[0]") != NULL);
    CHECK_STATUS(osc_sdf_create_psq(osc_v3(1, 1, 1), 1, 1, NULL, 2, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_psq(osc_v3(1, 1, 1), 1, 1, NULL, 0, -1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "temperature") != NULL);
    CHECK(out == NULL);
}

int main(void) {
    RUN(test_zero_set_and_definition);
    RUN(test_accuracy_against_true_distance);
    RUN(test_psq_definition);
    RUN(test_random_derivatives_and_lipschitz);
    RUN(test_far_points_and_centre);
    RUN(test_fixed_matches_jets);
    RUN(test_invalid);
    return test_finish();
}
