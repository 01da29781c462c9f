// test_sdf_cull.c: culled unions (docs/sdf.md, "Culled unions"). A union of three or more children
// evaluates, per voxel of a grid over its bounds, only the children that can come within 40
// temperatures of the smallest; the skipped ones add below rounding. The oracle is the same union
// evaluated whole: wrapped as the only child of a hard union (temperature 0), which drops the voxel
// lists and returns the inner union's jet unchanged. Values, gradients and Hessians are compared on
// random points inside and outside the grid (maximum and 95th percentile printed) against the bound
// derived in docs/sdf.md; central differences, the batch and transforms are checked on the culled model.

#include "sdf_test_util.h"

#include "sdf_internal.h"

#include <stdlib.h>

static test_rng rng = {31031};

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double percentile(double* v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return v[(int)floor(p * (n - 1))];
}

// a union of `count` SQs with random sizes, exponents and poses in a box about 1.4 across
static osc_sdf* random_sq_union(int count, double temperature, double spread) {
    osc_sdf** parts = calloc((size_t)count, sizeof *parts);
    for (int i = 0; i < count; ++i) {
        osc_sdf* sq = NULL;
        osc_vec3 a =
            osc_v3(test_uniform(&rng, 0.05, 0.3), test_uniform(&rng, 0.05, 0.3), test_uniform(&rng, 0.05, 0.3));
        CHECK_STATUS(osc_sdf_create_superquadric(a, test_uniform(&rng, 0.3, 1.8), test_uniform(&rng, 0.3, 1.8), &sq),
                     OSC_OK);
        osc_pose pose = {osc_v3(test_uniform(&rng, -spread, spread), test_uniform(&rng, -0.6 * spread, 0.6 * spread),
                                test_uniform(&rng, -0.5 * spread, 0.5 * spread)),
                         random_quat(&rng)};
        CHECK_STATUS(osc_sdf_create_transformed(sq, pose, 1.0, &parts[i]), OSC_OK);
        osc_sdf_destroy(sq);
    }
    osc_sdf* u = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)parts, count, temperature, &u), OSC_OK);
    for (int i = 0; i < count; ++i) osc_sdf_destroy(parts[i]);
    free(parts);
    return u;
}

// the model evaluated whole: the only child of a hard union
static osc_sdf* whole(const osc_sdf* model) {
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_union(&model, 1, 0.0, &out), OSC_OK);
    CHECK(out->cull == NULL);
    return out;
}

static double mat_max_abs(osc_mat3 m) {
    double r = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) r = fmax(r, fabs(m.m[i][k]));
    return r;
}

typedef struct cull_stats {
    double value[2], gradient[2], hessian[2]; // max, 95th percentile of the differences over the bound
    double listed;                            // mean children evaluated per point in the grid
} cull_stats;

// Compares the culled model with the whole one at `count` random points of the box [lo, hi]. Each
// difference is divided by its bound (docs/sdf.md): the skipped children's part, below
// 7 n e^-40 < 2^-52 times the terms' sizes, plus the rounding of two streamed sums of at most n
// terms taken in different orders, (n + 2) units in the last place of those sizes. The sizes are the
// children's own: value tau + the largest |phi_i| within 40 tau of the smallest, gradient the
// largest |grad phi_i|, Hessian the largest |hess phi_i| + |grad phi_i|^2 / tau.
static cull_stats compare_whole(const char* name, const osc_sdf* culled, osc_vec3 lo, osc_vec3 hi, int count) {
    osc_sdf* full = whole(culled);
    double tau = culled->program[culled->cull->end].value;
    double* dv = calloc((size_t)count, sizeof(double));
    double* dg = calloc((size_t)count, sizeof(double));
    double* dh = calloc((size_t)count, sizeof(double));
    const double eps = (culled->cull->child_count + 2) * 0x1.0p-52;
    long listed = 0, in_grid = 0;
    for (int i = 0; i < count; ++i) {
        osc_vec3 x =
            osc_v3(test_uniform(&rng, lo.x, hi.x), test_uniform(&rng, lo.y, hi.y), test_uniform(&rng, lo.z, hi.z));
        osc_vec3 g1, g2;
        osc_mat3 h1, h2;
        double v1 = osc_sdf_eval(culled, x, &g1, &h1), v2 = osc_sdf_eval(full, x, &g2, &h2);
        const sdf_cull_entry* entries;
        int32_t n = sdf_cull_lookup(culled->cull, x, &entries);
        if (n >= 0) { // the children evaluated: the entries up to the first bound 40 tau above the smallest
            double smallest = INFINITY;
            for (int32_t e = 0; e < n; ++e) {
                if (culled->cull->scale * (double)entries[e].lower > smallest + 40.0 * tau) break;
                smallest = fmin(smallest, osc_sdf_eval_leaf(culled, entries[e].child, x, NULL, NULL));
                ++listed;
            }
            ++in_grid;
        } else // outside the grid: the whole union
            CHECK(v1 == v2 && g1.x == g2.x && h1.m[0][1] == h2.m[0][1]);
        double smallest = INFINITY, vsize = 0.0, gsize = 0.0, hsize = 0.0, values[64];
        int leaves = osc_sdf_leaf_count(culled);
        for (int l = 0; l < leaves && l < 64; ++l) {
            osc_vec3 g;
            osc_mat3 h;
            values[l] = osc_sdf_eval_leaf(culled, l, x, &g, &h);
            smallest = fmin(smallest, values[l]);
            gsize = fmax(gsize, osc_length(g));
            hsize = fmax(hsize, mat_max_abs(h) + (tau > 0.0 ? osc_dot(g, g) / tau : 0.0));
        }
        for (int l = 0; l < leaves && l < 64; ++l)
            if (values[l] <= smallest + 40.0 * tau) vsize = fmax(vsize, fabs(values[l]));
        double ddv = fabs(v1 - v2), ddg = osc_length(osc_sub(g1, g2));
        double ddh = mat_max_abs(osc_mat3_add(h1, osc_mat3_scale(h2, -1.0)));
        dv[i] = ddv == 0.0 ? 0.0 : ddv / (eps * (tau + vsize));
        dg[i] = ddg == 0.0 ? 0.0 : ddg / (eps * gsize);
        dh[i] = ddh == 0.0 ? 0.0 : ddh / (eps * hsize);
        CHECK_MSG(dv[i] <= 1.0 && dg[i] <= 1.0 && dh[i] <= 1.0,
                  "%s at (%g %g %g): value %.17g / %.17g, gradient difference %g (%g), Hessian difference %g (%g)",
                  name, x.x, x.y, x.z, v1, v2, ddg, gsize, ddh, hsize);
    }
    cull_stats s;
    s.value[0] = percentile(dv, count, 1.0), s.value[1] = percentile(dv, count, 0.95);
    s.gradient[0] = percentile(dg, count, 1.0), s.gradient[1] = percentile(dg, count, 0.95);
    s.hessian[0] = percentile(dh, count, 1.0), s.hessian[1] = percentile(dh, count, 0.95);
    s.listed = in_grid ? (double)listed / in_grid : 0.0;
    printf("  %s: %d points (%ld in the grid, %.2f of %d children evaluated there); differences over the bound "
           "(max / p95): value %.3g / %.3g, gradient %.3g / %.3g, Hessian %.3g / %.3g\n",
           name, count, in_grid, s.listed, culled->cull->child_count, s.value[0], s.value[1], s.gradient[0],
           s.gradient[1], s.hessian[0], s.hessian[1]);
    free(dv), free(dg), free(dh);
    osc_sdf_destroy(full);
    return s;
}

static void test_matches_whole_union(void) {
    const double taus[3] = {0.0, 0.01, 0.05};
    for (int t = 0; t < 3; ++t) {
        osc_sdf* u = random_sq_union(18, taus[t], 0.6);
        CHECK(u->cull != NULL);
        if (!u->cull) continue;
        char name[64];
        snprintf(name, sizeof name, "18 SQs, tau %g", taus[t]);
        // the grid covers the bounds grown by half their longest side; the box reaches beyond it
        osc_vec3 lo, hi;
        osc_sdf_bounds(u, &lo, &hi);
        double reach = 0.8 * fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
        cull_stats s = compare_whole(name, u, osc_sub(lo, osc_v3(reach, reach, reach)),
                                     osc_add(hi, osc_v3(reach, reach, reach)), 20000);
        if (taus[t] <= 0.01) CHECK(s.listed < 18.0); // something is skipped (40 tau = 2 exceeds the union at 0.05)
        if (taus[t] == 0.0) CHECK(s.value[0] == 0.0 && s.gradient[0] == 0.0 && s.hessian[0] == 0.0); // the hard min
        // near the surface, where contacts are evaluated
        snprintf(name, sizeof name, "18 SQs, tau %g, within the bounds", taus[t]);
        compare_whole(name, u, lo, hi, 20000);
        osc_sdf_destroy(u);
    }
}

// the culled model's derivatives against central differences
static void test_central_differences(void) {
    osc_sdf* u = random_sq_union(12, 0.02, 0.5);
    CHECK(u->cull != NULL);
    osc_vec3 lo, hi;
    osc_sdf_bounds(u, &lo, &hi);
    fd_check_box("12 SQs, tau 0.02", u, lo, hi, 600, 0.05, &rng);
    check_orders_agree("12 SQs, tau 0.02", u, osc_v3(0.1, 0.05, 0.0));
    osc_sdf_destroy(u);
}

// transforms move the grid with the leaves, offsets keep it, a parent CSG node drops it
static void test_transform_offset_and_nesting(void) {
    osc_sdf* u = random_sq_union(8, 0.02, 0.5);
    osc_sdf *moved = NULL, *offset = NULL, *both = NULL;
    osc_pose pose = {osc_v3(0.3, -1.2, 2.0), random_quat(&rng)};
    CHECK_STATUS(osc_sdf_create_transformed(u, pose, 1.7, &moved), OSC_OK);
    CHECK_STATUS(osc_sdf_create_offset(moved, 0.05, &offset), OSC_OK);
    CHECK(moved->cull != NULL && offset->cull != NULL);
    osc_vec3 lo, hi;
    osc_sdf_bounds(offset, &lo, &hi);
    compare_whole("8 SQs, transformed", moved, lo, hi, 5000);
    compare_whole("8 SQs, transformed and offset", offset, lo, hi, 5000);
    // a point of the original frame evaluates the same after the transform (scaled)
    for (int i = 0; i < 200; ++i) {
        osc_vec3 y =
            osc_v3(test_uniform(&rng, -0.8, 0.8), test_uniform(&rng, -0.5, 0.5), test_uniform(&rng, -0.4, 0.4));
        osc_vec3 x = osc_pose_apply(pose, osc_scale(y, 1.7));
        double a = 1.7 * osc_sdf_eval(u, y, NULL, NULL), b = osc_sdf_eval(moved, x, NULL, NULL);
        CHECK_MSG(fabs(a - b) <= 1e-12 * (1.0 + fabs(a)), "transformed union at (%g %g %g): %.17g vs %.17g", y.x, y.y,
                  y.z, a, b);
    }
    const osc_sdf* pair[2] = {u, offset};
    CHECK_STATUS(osc_sdf_create_intersection(pair, 2, 0.02, &both), OSC_OK);
    CHECK(both->cull == NULL);
    osc_sdf_destroy(u), osc_sdf_destroy(moved), osc_sdf_destroy(offset), osc_sdf_destroy(both);
}

// the batch gives the single calls' results bit for bit
static void test_batch_equals_single(void) {
    osc_sdf* u = random_sq_union(18, 0.01, 0.6);
    enum { N = 700 };
    static double points[3 * N], values[N], gradients[3 * N], hessians[9 * N];
    for (int i = 0; i < 3 * N; ++i) points[i] = test_uniform(&rng, -1.2, 1.2);
    int threads[3] = {1, 2, 0};
    for (int t = 0; t < 3; ++t) {
        CHECK_STATUS(osc_sdf_eval_batch(u, points, N, values, gradients, hessians, threads[t]), OSC_OK);
        int same = 1;
        for (int i = 0; i < N; ++i) {
            osc_vec3 g;
            osc_mat3 h;
            double v = osc_sdf_eval(u, osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]), &g, &h);
            same &=
                v == values[i] && g.x == gradients[3 * i] && g.y == gradients[3 * i + 1] && g.z == gradients[3 * i + 2];
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) same &= h.m[r][c] == hessians[9 * i + 3 * r + c];
        }
        CHECK_MSG(same, "batch of %d points on %d threads differs from the single calls", N, threads[t]);
    }
    osc_sdf_destroy(u);
}

// unions of fewer than three children, or with a child that has no Lipschitz bound, get no lists
static void test_when_lists_apply(void) {
    osc_sdf *a = NULL, *b = NULL, *pair = NULL, *plane = NULL, *three = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &a), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.3, 0.3, 0.3), 0.0, &b), OSC_OK);
    const osc_sdf* two[2] = {a, b};
    CHECK_STATUS(osc_sdf_create_union(two, 2, 0.01, &pair), OSC_OK);
    CHECK(pair->cull == NULL);
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &plane), OSC_OK);
    const osc_sdf* with_plane[3] = {a, b, plane};
    CHECK_STATUS(osc_sdf_create_union(with_plane, 3, 0.01, &three), OSC_OK);
    CHECK(three->cull == NULL); // unbounded
    osc_sdf_destroy(a), osc_sdf_destroy(b), osc_sdf_destroy(pair), osc_sdf_destroy(plane), osc_sdf_destroy(three);
}

// The bound a culled union tests before it evaluates an SQ or PSQ leaf (docs/sdf.md, "Culled unions"):
// phi(x) >= r (1 - 1 / m), r = |x - c| and m = max |(R^T (x - c))_i / (s a_i)| in the world, the radial
// distance to the SQ's box, at random points from near the centre to far outside, for random SQs and
// PSQs (exponents over their whole range, planes through the box) under random similarity transforms;
// for the plain SQs also the upper bound that bounds the point's smallest value, phi(x) <=
// r (1 - (2^k + 1)^c / m), since f(t) <= 2^k + 1 where every |t_i| <= 1 (k = e2 / e1, c = -e1 / 2).
static void test_radial_box_bound(void) {
    long points = 0, inside = 0, tight = 0, plain = 0, plain_tight = 0;
    for (int shape = 0; shape < 300; ++shape) {
        osc_vec3 a =
            osc_v3(test_uniform(&rng, 0.05, 2.0), test_uniform(&rng, 0.05, 2.0), test_uniform(&rng, 0.05, 2.0));
        double e1 = test_uniform(&rng, OSC_SQ_EXPONENT_MIN, OSC_SQ_EXPONENT_MAX),
               e2 = test_uniform(&rng, OSC_SQ_EXPONENT_MIN, OSC_SQ_EXPONENT_MAX);
        osc_sdf *leaf = NULL, *placed = NULL;
        if (shape % 3 == 2) { // a PSQ: one or two planes cutting the box, at a random temperature
            osc_plane planes[2];
            int count = 1 + shape % 2;
            for (int k = 0; k < count; ++k) {
                osc_quat q = random_quat(&rng);
                planes[k].normal = osc_quat_rotate(q, osc_v3(1, 0, 0));
                planes[k].offset = -test_uniform(&rng, 0.0, 0.8) * fmin(a.x, fmin(a.y, a.z));
            }
            CHECK_STATUS(osc_sdf_create_psq(a, e1, e2, planes, count, test_uniform(&rng, 0.0, 0.05), &leaf), OSC_OK);
        } else
            CHECK_STATUS(osc_sdf_create_superquadric(a, e1, e2, &leaf), OSC_OK);
        double s = test_uniform(&rng, 0.3, 3.0);
        osc_pose pose = {osc_v3(test_uniform(&rng, -2, 2), test_uniform(&rng, -2, 2), test_uniform(&rng, -2, 2)),
                         random_quat(&rng)};
        CHECK_STATUS(osc_sdf_create_transformed(leaf, pose, s, &placed), OSC_OK);
        osc_mat3 rotation = osc_quat_to_mat3(pose.q);
        double size = s * fmax(a.x, fmax(a.y, a.z));
        for (int i = 0; i < 200; ++i) {
            double spread = size * (i % 4 == 0 ? 0.05 : (i % 4 == 1 ? 1.0 : (i % 4 == 2 ? 3.0 : 100.0)));
            osc_vec3 d = osc_v3(test_uniform(&rng, -spread, spread), test_uniform(&rng, -spread, spread),
                                test_uniform(&rng, -spread, spread));
            osc_vec3 local = osc_mat3_apply_transpose(rotation, d); // s x_leaf
            double m = fmax(fabs(local.x) / (s * a.x), fmax(fabs(local.y) / (s * a.y), fabs(local.z) / (s * a.z)));
            double r = osc_length(d), bound = r - r / m;
            double phi = osc_sdf_eval(placed, osc_add(pose.p, d), NULL, NULL);
            CHECK_MSG(phi >= bound - 1e-12 * (r + r / m),
                      "shape %d (a %g %g %g, eps %g %g, scale %g) at offset (%g %g %g): phi %.17g below the radial "
                      "distance to the box %.17g",
                      shape, a.x, a.y, a.z, e1, e2, s, d.x, d.y, d.z, phi, bound);
            if (shape % 3 != 2) { // a plain SQ: phi <= r (1 - (2^k + 1)^c / m), k = e2 / e1, c = -e1 / 2
                double upper = r - r * pow(pow(2.0, e2 / e1) + 1.0, -0.5 * e1) / m;
                CHECK_MSG(phi <= upper + 1e-12 * (r + r / m),
                          "shape %d (a %g %g %g, eps %g %g, scale %g) at offset (%g %g %g): phi %.17g above the "
                          "upper bound %.17g",
                          shape, a.x, a.y, a.z, e1, e2, s, d.x, d.y, d.z, phi, upper);
                plain_tight += upper - phi <= 0.1 * r / m;
                ++plain;
            }
            ++points;
            inside += phi < 0.0;
            tight += phi - bound <= 0.1 * r / m; // within a tenth of the box radius along the ray
        }
        osc_sdf_destroy(leaf);
        osc_sdf_destroy(placed);
    }
    printf("  %ld points (%ld inside), the bound within a tenth of the box radius at %ld; the plain SQs' upper "
           "bound within a tenth at %ld of %ld\n",
           points, inside, tight, plain_tight, plain);
    CHECK(inside > points / 10 && tight > points / 10); // both sides sampled, and the bound is not vacuous
    CHECK(plain_tight > plain / 20); // 7 % measured: looser than the lower bound, yet not vacuous
}

// a culled union of PSQs (planes: the bound above uses the SQ under the log-sum-exp) against the whole union
static void test_psq_union_matches_whole(void) {
    enum { COUNT = 8 };
    osc_sdf* parts[COUNT];
    for (int i = 0; i < COUNT; ++i) {
        osc_vec3 a = osc_v3(test_uniform(&rng, 0.1, 0.3), test_uniform(&rng, 0.1, 0.3), test_uniform(&rng, 0.1, 0.3));
        osc_plane plane = {osc_quat_rotate(random_quat(&rng), osc_v3(1, 0, 0)), -0.05};
        osc_sdf* psq = NULL;
        CHECK_STATUS(
            osc_sdf_create_psq(a, test_uniform(&rng, 0.3, 1.8), test_uniform(&rng, 0.3, 1.8), &plane, 1, 0.01, &psq),
            OSC_OK);
        osc_pose pose = {
            osc_v3(test_uniform(&rng, -0.6, 0.6), test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3)),
            random_quat(&rng)};
        CHECK_STATUS(osc_sdf_create_transformed(psq, pose, 1.0, &parts[i]), OSC_OK);
        osc_sdf_destroy(psq);
    }
    osc_sdf* u = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)parts, COUNT, 0.01, &u), OSC_OK);
    CHECK(u->cull != NULL);
    if (u->cull) {
        osc_vec3 lo, hi;
        osc_sdf_bounds(u, &lo, &hi);
        cull_stats st = compare_whole("8 PSQs, tau 0.01, within the bounds", u, lo, hi, 20000);
        CHECK(st.listed < COUNT);
    }
    osc_sdf_destroy(u);
    for (int i = 0; i < COUNT; ++i) osc_sdf_destroy(parts[i]);
}

// The SQ lanes (docs/sdf.md, "Superquadrics in lanes") against the scalar leaves, with libm's pow,
// on the same culled unions, for every lane kernel the processor has: values, gradients and
// Hessians within the powers' rounding carried through the radial distance (docs/sdf.md: 2^-40
// relative to the children's own sizes, for the value the distance r from the SQ's centre, since
// phi = r (1 - G) carries G's relative rounding times r), maximum and 95th percentile printed; then
// the lanes' derivatives against central differences.
static void test_lanes_match_scalar(void) {
    const double taus[2] = {0.0, 0.01};
    for (int t = 0; t < 2; ++t) {
        osc_sdf* u = random_sq_union(18, taus[t], 0.6);
        osc_vec3 lo, hi;
        osc_sdf_bounds(u, &lo, &hi);
        double tau = u->program[u->cull->end].value;
        enum { POINTS = 20000 };
        double* dv = calloc(POINTS, sizeof(double));
        double* dg = calloc(POINTS, sizeof(double));
        double* dh = calloc(POINTS, sizeof(double));
        for (int level = 0; level <= 2; ++level) {
            if (sdf_lanes_set_level(level) != level) continue; // not on this processor
            for (int i = 0; i < POINTS; ++i) {
                osc_vec3 x = osc_v3(test_uniform(&rng, lo.x, hi.x), test_uniform(&rng, lo.y, hi.y),
                                    test_uniform(&rng, lo.z, hi.z));
                osc_vec3 g1, g2;
                osc_mat3 h1, h2;
                sdf_lanes_set_level(level);
                double v1 = osc_sdf_eval(u, x, &g1, &h1);
                sdf_lanes_set_level(-1);
                double v2 = osc_sdf_eval(u, x, &g2, &h2);
                // the children's own sizes at x, as in compare_whole
                double vsize = 0.0, gsize = 0.0, hsize = 0.0, smallest = INFINITY, values[18];
                for (int l = 0; l < 18; ++l) {
                    osc_vec3 g;
                    osc_mat3 h;
                    values[l] = osc_sdf_eval_leaf(u, l, x, &g, &h);
                    smallest = fmin(smallest, values[l]);
                    gsize = fmax(gsize, osc_length(g));
                    hsize = fmax(hsize, mat_max_abs(h) + (tau > 0.0 ? osc_dot(g, g) / tau : 0.0));
                }
                // phi = r (1 - G) loses the powers' relative rounding of G times r = |x - centre|
                for (int l = 0; l < 18; ++l)
                    if (values[l] <= smallest + 40.0 * tau)
                        vsize = fmax(vsize, osc_length(osc_sub(x, u->leaves[l].translation)));
                const double eps = 0x1.0p-40;
                dv[i] = fabs(v1 - v2) / (eps * (tau + vsize));
                dg[i] = osc_length(osc_sub(g1, g2)) / (eps * gsize);
                dh[i] = mat_max_abs(osc_mat3_add(h1, osc_mat3_scale(h2, -1.0))) / (eps * hsize);
                CHECK_MSG(dv[i] <= 1.0 && dg[i] <= 1.0 && dh[i] <= 1.0,
                          "level %d at (%g %g %g): value %.17g / %.17g, gradient %g, Hessian %g", level, x.x, x.y,
                          x.z, v1, v2, dg[i], dh[i]);
            }
            printf("  lanes level %d, tau %g, %d points: differences from the scalar leaves over 2^-40 of the sizes "
                   "(max / p95): value %.3g / %.3g, gradient %.3g / %.3g, Hessian %.3g / %.3g\n",
                   level, taus[t], (int)POINTS, percentile(dv, POINTS, 1.0), percentile(dv, POINTS, 0.95),
                   percentile(dg, POINTS, 1.0), percentile(dg, POINTS, 0.95), percentile(dh, POINTS, 1.0),
                   percentile(dh, POINTS, 0.95));
            // the lanes' derivatives are those of the function they evaluate
            sdf_lanes_set_level(level);
            if (taus[t] > 0.0) {
                char name[64];
                snprintf(name, sizeof name, "18 SQs in lanes (level %d), tau %g", level, taus[t]);
                fd_check_box(name, u, lo, hi, 600, 0.05, &rng);
                check_orders_agree(name, u, osc_v3(0.1, 0.05, 0.0));
            }
        }
        sdf_lanes_set_level(-1);
        free(dv), free(dg), free(dh);
        osc_sdf_destroy(u);
    }
}

int main(void) {
    // the culling's own tests compare the culled union with the whole one, both by the scalar leaves
    // (bit for bit at temperature 0); test_lanes_match_scalar then compares the lanes with them
    sdf_lanes_set_level(-1);
    RUN(test_lanes_match_scalar);
    RUN(test_matches_whole_union);
    RUN(test_central_differences);
    RUN(test_transform_offset_and_nesting);
    RUN(test_batch_equals_single);
    RUN(test_when_lists_apply);
    RUN(test_radial_box_bound);
    RUN(test_psq_union_matches_whole);
    return test_finish();
}
