// test_sdf_csg.c: smooth CSG (Beker et al. 2026 eqs. 2-4), transforms, offsets, deep and wide trees,
// batch evaluation, per-leaf evaluation and bad input.

#include "sdf_internal.h" // stack_need: the logarithmic stack bound is part of the contract
#include "sdf_test_util.h"

#include <string.h>

static test_rng rng = {777};

static osc_vec3 random_point(double extent) {
    return osc_v3(test_uniform(&rng, -extent, extent), test_uniform(&rng, -extent, extent),
                  test_uniform(&rng, -extent, extent));
}

static osc_sdf* placed(osc_sdf* base, osc_vec3 position, double scale) {
    osc_sdf* out = NULL;
    osc_pose pose = {position, random_quat(&rng)};
    CHECK_STATUS(osc_sdf_create_transformed(base, pose, scale, &out), OSC_OK);
    osc_sdf_destroy(base);
    return out;
}

// three overlapping children: a sphere, a box and a torus, placed apart
static void make_children(osc_sdf* children[3]) {
    osc_sdf *sphere = NULL, *box = NULL, *torus = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.4, 0.3, 0.6), 0.05, &box), OSC_OK);
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.15, &torus), OSC_OK);
    children[0] = placed(sphere, osc_v3(-0.3, 0.0, 0.1), 1.0);
    children[1] = placed(box, osc_v3(0.3, 0.1, 0.0), 1.0);
    children[2] = placed(torus, osc_v3(0.0, -0.2, -0.2), 1.2);
}

// union = -LSE(-phi), intersection = LSE(phi), subtraction = LSE(phi_a, -phi_b), with the
// gradient sum_i w_i s_i grad phi_i, recomputed here from osc_logsumexp and the children
static void test_lse_semantics(void) {
    osc_sdf* c[3];
    make_children(c);
    const double tau = 0.07;
    osc_sdf *u = NULL, *n = NULL, *s = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)c, 3, tau, &u), OSC_OK);
    CHECK_STATUS(osc_sdf_create_intersection((const osc_sdf* const*)c, 3, tau, &n), OSC_OK);
    CHECK_STATUS(osc_sdf_create_subtraction(c[0], c[1], tau, &s), OSC_OK);
    double worst = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 x = random_point(1.2), g[3], gu, gn, gs;
        double phi[3], neg[3], w[3];
        for (int k = 0; k < 3; ++k) {
            phi[k] = osc_sdf_eval(c[k], x, &g[k], NULL);
            neg[k] = -phi[k];
        }
        double vu = osc_sdf_eval(u, x, &gu, NULL), vn = osc_sdf_eval(n, x, &gn, NULL);
        double ref_u = -osc_logsumexp(neg, 3, tau, w, NULL);
        osc_vec3 ref_gu = osc_v3(0, 0, 0);
        for (int k = 0; k < 3; ++k) ref_gu = osc_add_scaled(ref_gu, g[k], w[k]);
        double ref_n = osc_logsumexp(phi, 3, tau, w, NULL);
        osc_vec3 ref_gn = osc_v3(0, 0, 0);
        for (int k = 0; k < 3; ++k) ref_gn = osc_add_scaled(ref_gn, g[k], w[k]);
        double pair[2] = {phi[0], -phi[1]};
        double ref_s = osc_logsumexp(pair, 2, tau, w, NULL);
        osc_vec3 ref_gs = osc_add_scaled(osc_scale(g[0], w[0]), g[1], -w[1]);
        double vs = osc_sdf_eval(s, x, &gs, NULL);
        worst = fmax(worst, fabs(vu - ref_u) + fabs(vn - ref_n) + fabs(vs - ref_s));
        worst = fmax(worst, osc_length(osc_sub(gu, ref_gu)) + osc_length(osc_sub(gn, ref_gn)) +
                                osc_length(osc_sub(gs, ref_gs)));
    }
    CHECK_MSG(worst < 1e-13, "CSG differs from the LSE formulas by %g", worst);
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(c[k]);
    osc_sdf_destroy(u);
    osc_sdf_destroy(n);
    osc_sdf_destroy(s);
}

// temperature 0 is exactly min / max; as tau -> 0 the smooth operators converge within tau log n
static void test_hard_limit(void) {
    osc_sdf* c[3];
    make_children(c);
    double taus[4] = {0.1, 0.01, 0.001, 0.0};
    for (int t = 0; t < 4; ++t) {
        osc_sdf *u = NULL, *n = NULL;
        CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)c, 3, taus[t], &u), OSC_OK);
        CHECK_STATUS(osc_sdf_create_intersection((const osc_sdf* const*)c, 3, taus[t], &n), OSC_OK);
        double worst_u = 0.0, worst_n = 0.0;
        int below = 0;
        for (int i = 0; i < 1000; ++i) {
            osc_vec3 x = random_point(1.2);
            double lo = INFINITY, hi = -INFINITY;
            for (int k = 0; k < 3; ++k) {
                double v = osc_sdf_eval(c[k], x, NULL, NULL);
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
            double vu = osc_sdf_eval(u, x, NULL, NULL), vn = osc_sdf_eval(n, x, NULL, NULL);
            worst_u = fmax(worst_u, lo - vu); // the smooth union lies below the minimum
            worst_n = fmax(worst_n, vn - hi); // the smooth intersection above the maximum
            if (vu > lo + 1e-15 || vn < hi - 1e-15) ++below;
        }
        CHECK_MSG(below == 0, "tau %g: smooth operator on the wrong side of min / max", taus[t]);
        CHECK_MSG(worst_u <= taus[t] * log(3.0) + 1e-15 && worst_n <= taus[t] * log(3.0) + 1e-15,
                  "tau %g: deviation %g / %g exceeds tau log 3", taus[t], worst_u, worst_n);
        if (taus[t] == 0.0) CHECK(worst_u == 0.0 && worst_n == 0.0);
        osc_sdf_destroy(u);
        osc_sdf_destroy(n);
    }
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(c[k]);
}

// a nested tree: finite differences, bounds, Lipschitz bound, copy semantics
static void test_nested_tree(void) {
    osc_sdf* c[3];
    make_children(c);
    osc_sdf *inter = NULL, *cut = NULL, *rounded = NULL, *tree = NULL, *scaled = NULL;
    CHECK_STATUS(osc_sdf_create_intersection((const osc_sdf* const*)c, 2, 0.05, &inter), OSC_OK);
    CHECK_STATUS(osc_sdf_create_subtraction(c[2], inter, 0.03, &cut), OSC_OK);
    CHECK_STATUS(osc_sdf_create_offset(cut, 0.05, &rounded), OSC_OK);
    const osc_sdf* parts[2] = {rounded, c[0]};
    CHECK_STATUS(osc_sdf_create_union(parts, 2, 0.1, &tree), OSC_OK);
    osc_pose pose = {osc_v3(0.5, -1.0, 2.0), random_quat(&rng)};
    CHECK_STATUS(osc_sdf_create_transformed(tree, pose, 0.5, &scaled), OSC_OK);
    // every input may be destroyed at once: the models own copies
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(c[k]);
    osc_sdf_destroy(inter);
    osc_sdf_destroy(cut);
    osc_sdf_destroy(rounded);
    CHECK(osc_sdf_leaf_count(tree) == 4);
    fd_check_box("nested tree", tree, osc_v3(-1.3, -1.3, -1.3), osc_v3(1.3, 1.3, 1.3), 3000, 0.02, &rng);
    check_bounds_contain("nested tree", tree, osc_v3(-2, -2, -2), osc_v3(2, 2, 2), 30000, &rng);
    check_lipschitz("nested tree", tree, osc_v3(-2, -2, -2), osc_v3(2, 2, 2), 20000, &rng);
    // transform law, including the temperatures and offset that scale with the tree
    for (int i = 0; i < 500; ++i) {
        osc_vec3 x = osc_add(pose.p, random_point(1.0));
        double expected = 0.5 * osc_sdf_eval(tree, osc_scale(osc_pose_apply_inverse(pose, x), 2.0), NULL, NULL);
        CHECK_NEAR(osc_sdf_eval(scaled, x, NULL, NULL), expected, 1e-14);
    }
    fd_check_box("scaled tree", scaled, osc_sub(pose.p, osc_v3(0.7, 0.7, 0.7)), osc_add(pose.p, osc_v3(0.7, 0.7, 0.7)),
                 2000, 0.02, &rng);
    osc_sdf_destroy(tree);
    osc_sdf_destroy(scaled);
}

// composing transforms equals the composed transform; offsets subtract
static void test_transform_and_offset_laws(void) {
    osc_sdf *box = NULL, *a = NULL, *ab = NULL, *direct = NULL, *off = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.2, 0.3), 0.05, &box), OSC_OK);
    osc_pose pa = {osc_v3(0.2, 0.1, -0.3), random_quat(&rng)}, pb = {osc_v3(-1, 2, 0.5), random_quat(&rng)};
    CHECK_STATUS(osc_sdf_create_transformed(box, pa, 2.0, &a), OSC_OK);
    CHECK_STATUS(osc_sdf_create_transformed(a, pb, 0.25, &ab), OSC_OK);
    // x = sb Rb (sa Ra y + pa) + pb = (sa sb) (Rb Ra) y + (sb Rb pa + pb)
    osc_pose composed = {osc_add(osc_scale(osc_quat_rotate(pb.q, pa.p), 0.25), pb.p), osc_quat_mul(pb.q, pa.q)};
    CHECK_STATUS(osc_sdf_create_transformed(box, composed, 0.5, &direct), OSC_OK);
    CHECK_STATUS(osc_sdf_create_offset(ab, -0.01, &off), OSC_OK);
    for (int i = 0; i < 500; ++i) {
        osc_vec3 x = osc_add(pb.p, random_point(0.6));
        double v = osc_sdf_eval(ab, x, NULL, NULL);
        CHECK_NEAR(v, osc_sdf_eval(direct, x, NULL, NULL), 1e-14);
        CHECK_NEAR(osc_sdf_eval(off, x, NULL, NULL), v + 0.01, 1e-15);
    }
    osc_sdf_destroy(box);
    osc_sdf_destroy(a);
    osc_sdf_destroy(ab);
    osc_sdf_destroy(direct);
    osc_sdf_destroy(off);
}

// chains of 4000 unions, built left-deep and right-deep, and a union of 5000 children: the
// stack need stays logarithmic and the hard union equals the minimum over the leaves
static void test_deep_and_wide_trees(void) {
    const int n = 4000;
    osc_sdf *sphere = NULL, *left = NULL, *right = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.01, &sphere), OSC_OK);
    for (int i = 0; i < n; ++i) {
        osc_sdf* leaf = NULL;
        osc_pose pose = {osc_v3(0.001 * i, 0.0005 * (i % 7), 0.0), osc_quat_identity()};
        CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &leaf), OSC_OK);
        if (!left) {
            CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)&leaf, 1, 0.0, &left), OSC_OK);
            CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)&leaf, 1, 0.0, &right), OSC_OK);
        } else if (i < 1000) { // the right-deep chain copies its whole tree each time: keep it O(n^2) small
            const osc_sdf* pl[2] = {left, leaf};
            const osc_sdf* pr[2] = {leaf, right};
            osc_sdf *nl = NULL, *nr = NULL;
            CHECK_STATUS(osc_sdf_create_union(pl, 2, 0.0, &nl), OSC_OK);
            CHECK_STATUS(osc_sdf_create_union(pr, 2, 0.0, &nr), OSC_OK);
            osc_sdf_destroy(left);
            osc_sdf_destroy(right);
            left = nl;
            right = nr;
        } else {
            const osc_sdf* pl[2] = {left, leaf};
            osc_sdf* nl = NULL;
            CHECK_STATUS(osc_sdf_create_union(pl, 2, 0.0, &nl), OSC_OK);
            osc_sdf_destroy(left);
            left = nl;
        }
        osc_sdf_destroy(leaf);
    }
    CHECK(osc_sdf_leaf_count(left) == n);
    CHECK(osc_sdf_leaf_count(right) == 1000);
    CHECK_MSG(left->stack_need <= 2 && right->stack_need <= 2, "chains need %d / %d stack slots", (int)left->stack_need,
              (int)right->stack_need);
    for (int i = 0; i < 20; ++i) {
        osc_vec3 x = osc_v3(test_uniform(&rng, -0.5, 4.5), test_uniform(&rng, -0.1, 0.1), 0.05);
        double expected = INFINITY;
        for (int k = 0; k < n; ++k) expected = fmin(expected, osc_sdf_eval_leaf(left, k, x, NULL, NULL));
        CHECK(osc_sdf_eval(left, x, NULL, NULL) == expected);
    }
    // a balanced tree: union of unions, 4096 leaves, needs log2(4096) + 1 = 13 slots at most
    osc_sdf* level[4096];
    for (int i = 0; i < 4096; ++i) {
        osc_pose pose = {osc_v3(0.01 * i, 0, 0), osc_quat_identity()};
        CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &level[i]), OSC_OK);
    }
    for (int width = 4096; width > 1; width /= 2) {
        for (int i = 0; i < width / 2; ++i) {
            const osc_sdf* pair[2] = {level[2 * i], level[2 * i + 1]};
            osc_sdf* merged = NULL;
            CHECK_STATUS(osc_sdf_create_union(pair, 2, 0.001, &merged), OSC_OK);
            osc_sdf_destroy(level[2 * i]);
            osc_sdf_destroy(level[2 * i + 1]);
            level[i] = merged;
        }
    }
    CHECK_MSG(level[0]->stack_need <= 13, "balanced tree needs %d slots", (int)level[0]->stack_need);
    CHECK(isfinite(osc_sdf_eval(level[0], osc_v3(1, 1, 1), NULL, NULL)));
    // a wide n-ary union streams its children through one accumulator
    osc_sdf* wide_children[5000];
    for (int i = 0; i < 5000; ++i) {
        osc_pose pose = {osc_v3(0, 0.01 * i, 0), osc_quat_identity()};
        CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &wide_children[i]), OSC_OK);
    }
    osc_sdf* wide = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)wide_children, 5000, 0.0, &wide), OSC_OK);
    CHECK(wide->stack_need == 2);
    CHECK_NEAR(osc_sdf_eval(wide, osc_v3(0.5, 25.0, 0.0), NULL, NULL), 0.5 - 0.01, 1e-12);
    for (int i = 0; i < 5000; ++i) osc_sdf_destroy(wide_children[i]);
    osc_sdf_destroy(wide);
    osc_sdf_destroy(level[0]);
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(left);
    osc_sdf_destroy(right);
}

// bounds of CSG: union grows by tau log n, intersection shrinks, an empty intersection is flagged
static void test_bounds_rules(void) {
    osc_sdf *a = NULL, *b = NULL, *u = NULL, *n = NULL, *far = NULL, *empty = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &a), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 2.0, 0.5), 0.0, &b), OSC_OK);
    const osc_sdf* ab[2] = {a, b};
    CHECK_STATUS(osc_sdf_create_union(ab, 2, 0.1, &u), OSC_OK);
    CHECK_STATUS(osc_sdf_create_intersection(ab, 2, 0.1, &n), OSC_OK);
    osc_vec3 lo, hi;
    osc_sdf_bounds(u, &lo, &hi);
    CHECK_NEAR(hi.x, 1.0 + 0.1 * log(2.0), 1e-15);
    CHECK_NEAR(hi.y, 2.0 + 0.1 * log(2.0), 1e-15);
    osc_sdf_bounds(n, &lo, &hi);
    CHECK(hi.x == 0.5 && hi.y == 1.0 && lo.z == -0.5);
    check_bounds_contain("smooth union", u, osc_v3(-3, -3, -3), osc_v3(3, 3, 3), 30000, &rng);
    osc_pose away = {osc_v3(10, 0, 0), osc_quat_identity()};
    CHECK_STATUS(osc_sdf_create_transformed(a, away, 1.0, &far), OSC_OK);
    const osc_sdf* apart[2] = {a, far};
    CHECK_STATUS(osc_sdf_create_intersection(apart, 2, 0.0, &empty), OSC_OK);
    osc_sdf_bounds(empty, &lo, &hi);
    CHECK(lo.x > hi.x);
    osc_sdf_destroy(a);
    osc_sdf_destroy(b);
    osc_sdf_destroy(u);
    osc_sdf_destroy(n);
    osc_sdf_destroy(far);
    osc_sdf_destroy(empty);
}

// batch results equal single evaluations bit for bit, with NaN rows, for every thread count: one
// (no OpenMP team), two, the default and one far above OSC_MAX_THREADS (clamped), and for batches
// too small to split
static void test_batch(void) {
    osc_sdf* c[3];
    make_children(c);
    osc_sdf* u = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)c, 3, 0.05, &u), OSC_OK);
    enum { N = 5000, RUNS = 4 };
    const int threads[RUNS] = {1, 2, 0, 100000};
    static double points[N * 3], values[RUNS][N], grads[RUNS][N * 3], hess[RUNS][N * 9];
    for (int i = 0; i < N * 3; ++i) points[i] = test_uniform(&rng, -1.5, 1.5);
    points[3 * 17 + 1] = NAN;
    int mismatches = 0;
    for (size_t count = 3; count <= N; count = count == 3 ? 300 : (count == 300 ? N : N + 1)) {
        for (int t = 0; t < RUNS; ++t)
            CHECK_STATUS(osc_sdf_eval_batch(u, points, count, values[t], grads[t], hess[t], threads[t]), OSC_OK);
        for (size_t i = 0; i < count; ++i) {
            osc_vec3 g;
            osc_mat3 h;
            double v = osc_sdf_eval(u, osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]), &g, &h);
            for (int t = 0; t < RUNS; ++t) {
                double gv[3] = {g.x, g.y, g.z};
                if (memcmp(&v, &values[t][i], sizeof v) != 0 || memcmp(gv, &grads[t][3 * i], sizeof gv) != 0 ||
                    memcmp(&h.m[0][0], &hess[t][9 * i], 9 * sizeof(double)) != 0)
                    ++mismatches;
            }
        }
    }
    CHECK_MSG(mismatches == 0, "%d batch results differ from osc_sdf_eval", mismatches);
    CHECK(isnan(values[0][17]) && isnan(grads[1][3 * 17]));
    // values only
    CHECK_STATUS(osc_sdf_eval_batch(u, points, N, values[0], NULL, NULL, 0), OSC_OK);
    CHECK(memcmp(values[0], values[1], sizeof values[0]) == 0);
    // bad arguments
    CHECK_STATUS(osc_sdf_eval_batch(NULL, points, N, values[0], NULL, NULL, 0), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_eval_batch(u, NULL, N, values[0], NULL, NULL, 0), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "points") != NULL);
    CHECK_STATUS(osc_sdf_eval_batch(u, points, N, NULL, NULL, NULL, 0), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_eval_batch(u, points, N, values[0], NULL, NULL, -1), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_eval_batch(u, NULL, 0, NULL, NULL, NULL, 0), OSC_OK);
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(c[k]);
    osc_sdf_destroy(u);
}

// osc_sdf_eval_leaf evaluates one primitive as placed in the tree
static void test_eval_leaf(void) {
    osc_sdf* c[3];
    make_children(c);
    osc_sdf* u = NULL;
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)c, 3, 0.05, &u), OSC_OK);
    CHECK(osc_sdf_leaf_count(u) == 3);
    for (int i = 0; i < 200; ++i) {
        osc_vec3 x = random_point(1.0);
        for (int k = 0; k < 3; ++k) {
            osc_vec3 g1, g2;
            double v1 = osc_sdf_eval_leaf(u, k, x, &g1, NULL), v2 = osc_sdf_eval(c[k], x, &g2, NULL);
            CHECK(v1 == v2 && g1.x == g2.x && g1.z == g2.z);
        }
    }
    CHECK(isnan(osc_sdf_eval_leaf(u, 3, osc_v3(0, 0, 0), NULL, NULL)));
    CHECK(strstr(osc_last_error(), "leaf 3") != NULL);
    CHECK(isnan(osc_sdf_eval_leaf(u, -1, osc_v3(0, 0, 0), NULL, NULL)));
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(c[k]);
    osc_sdf_destroy(u);
}

static void test_invalid_combinators(void) {
    osc_sdf *a = NULL, *out = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &a), OSC_OK);
    const osc_sdf* one[1] = {a};
    const osc_sdf* with_null[2] = {a, NULL};
    CHECK_STATUS(osc_sdf_create_union(one, 0, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_union(NULL, 2, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_union(with_null, 2, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "child 1") != NULL);
    CHECK_STATUS(osc_sdf_create_intersection(one, 1, -0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "temperature") != NULL);
    CHECK_STATUS(osc_sdf_create_intersection(one, 1, NAN, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_subtraction(a, NULL, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    osc_pose bad_q = {osc_v3(0, 0, 0), {0, 0, 0, 0}};
    CHECK_STATUS(osc_sdf_create_transformed(a, bad_q, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "pose.q") != NULL);
    osc_pose bad_p = {osc_v3(NAN, 0, 0), osc_quat_identity()};
    CHECK_STATUS(osc_sdf_create_transformed(a, bad_p, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_transformed(a, osc_pose_identity(), 0.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "scale") != NULL);
    CHECK_STATUS(osc_sdf_create_offset(a, INFINITY, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_sdf_create_offset(NULL, 0.1, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    // a quaternion that is not unit is normalised
    osc_pose scaled_q = {osc_v3(0, 0, 0), {2.0, 0, 0, 0}};
    CHECK_STATUS(osc_sdf_create_transformed(a, scaled_q, 1.0, &out), OSC_OK);
    CHECK_NEAR(osc_sdf_eval(out, osc_v3(2, 0, 0), NULL, NULL), 1.0, 1e-15);
    osc_sdf_destroy(out);
    osc_sdf_destroy(a);
}

// combinators that would leave the length range: temperatures and offsets outside it, a transform
// whose scale, translation or accumulated leaf scale leaves it (a 1e200 translation was accepted and
// lost the model's size: its bounds collapsed to a point), a result whose bounds reach beyond
// OSC_SDF_LENGTH_MAX; each refused naming the argument and its value
static void test_combinator_ranges(void) {
    const double big = 1e31, subnormal = 1e-320;
    osc_sdf *a = NULL, *out = NULL, *large = NULL, *scaled = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &a), OSC_OK);
    const osc_sdf* one[1] = {a};
    CHECK_REFUSED(osc_sdf_create_union(one, 1, subnormal, &out), "temperature", value_text(subnormal));
    CHECK_REFUSED(osc_sdf_create_intersection(one, 1, big, &out), "temperature", value_text(big));
    CHECK_REFUSED(osc_sdf_create_subtraction(a, a, NAN, &out), "temperature", "nan");
    CHECK_REFUSED(osc_sdf_create_transformed(a, osc_pose_identity(), big, &out), "scale", value_text(big));
    CHECK_REFUSED(osc_sdf_create_transformed(a, osc_pose_identity(), 1e-31, &out), "scale", value_text(1e-31));
    osc_pose far = {osc_v3(1e200, 0, 0), osc_quat_identity()};
    CHECK_REFUSED(osc_sdf_create_transformed(a, far, 1.0, &out), "pose.p", value_text(1e200));
    CHECK_REFUSED(osc_sdf_create_offset(a, big, &out), "distance", value_text(big));
    CHECK_REFUSED(osc_sdf_create_offset(a, -big, &out), "distance", value_text(-big));
    // a leaf's accumulated scale: 1e20 twice is 1e40
    CHECK_STATUS(osc_sdf_create_transformed(a, osc_pose_identity(), 1e20, &scaled), OSC_OK);
    CHECK_REFUSED(osc_sdf_create_transformed(scaled, osc_pose_identity(), 1e20, &out), "scale", value_text(1e40));
    // bounds beyond the range: a sphere of radius 5e29 moved by 9e29 or inflated by 6e29
    CHECK_STATUS(osc_sdf_create_sphere(5e29, &large), OSC_OK);
    osc_pose moved = {osc_v3(9e29, 0, 0), osc_quat_identity()};
    CHECK_REFUSED(osc_sdf_create_transformed(large, moved, 1.0, &out), "bounds", value_text(1.4e30));
    CHECK_REFUSED(osc_sdf_create_offset(large, 6e29, &out), "bounds", value_text(1.1e30));
    CHECK(out == NULL);
    // the ends of the range are accepted and exact: the sphere of radius 5e29 moved by 5e29, the
    // unit sphere scaled by 1e-20 and then 1e-9 (a leaf scale of 1e-29), a union at temperature
    // OSC_SDF_LENGTH_MIN (the hard minimum to double precision)
    moved.p.x = 5e29;
    CHECK_STATUS(osc_sdf_create_transformed(large, moved, 1.0, &out), OSC_OK);
    CHECK_NEAR(osc_sdf_eval(out, osc_v3(-1e30, 0, 0), NULL, NULL), 1e30, 1e18);
    osc_sdf_destroy(out);
    osc_sdf_destroy(scaled);
    CHECK_STATUS(osc_sdf_create_transformed(a, osc_pose_identity(), 1e-20, &scaled), OSC_OK);
    CHECK_STATUS(osc_sdf_create_transformed(scaled, osc_pose_identity(), 1e-9, &out), OSC_OK);
    osc_vec3 g;
    CHECK_NEAR(osc_sdf_eval(out, osc_v3(0, 3e-29, 0), &g, NULL), 2e-29, 1e-41);
    CHECK_NEAR(g.y, 1.0, 1e-15);
    osc_sdf_destroy(out);
    const osc_sdf* two[2] = {a, a};
    CHECK_STATUS(osc_sdf_create_union(two, 2, OSC_SDF_LENGTH_MIN, &out), OSC_OK);
    CHECK(osc_sdf_eval(out, osc_v3(0, 0, 2), NULL, NULL) == 1.0);
    osc_sdf_destroy(out);
    osc_sdf_destroy(scaled);
    osc_sdf_destroy(large);
    osc_sdf_destroy(a);
}

// every pointer argument of sdf.h NULL, one at a time: OSC_ERR_INVALID_ARGUMENT naming it, or the
// sentinel the header documents
static void test_null_arguments(void) {
    osc_sdf *a = NULL, *out = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &a), OSC_OK);
    const osc_sdf* one[1] = {a};
    const osc_sdf* none[1] = {NULL};
    osc_vec3 unit = osc_v3(1, 1, 1);
    osc_plane plane = {osc_v3(0, 0, 1), 0.2};
    osc_xpsq_desc desc = osc_xpsq_desc_default();
    // `out` NULL: every constructor and combinator
    CHECK_REFUSED(osc_sdf_create_sphere(1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_box(unit, 0.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_capsule(1.0, 1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_cylinder(1.0, 1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_cone(1.0, 0.0, 1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_menger(1.0, 1, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_torus(1.0, 0.5, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_halfspace(unit, 0.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_ellipsoid(unit, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_superquadric(unit, 1.0, 1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_psq(unit, 1.0, 1.0, &plane, 1, 0.01, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_xpsq(&desc, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_union(one, 1, 0.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_intersection(one, 1, 0.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_subtraction(a, a, 0.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_transformed(a, osc_pose_identity(), 1.0, NULL), "out", NULL);
    CHECK_REFUSED(osc_sdf_create_offset(a, 0.1, NULL), "out", NULL);
    // the other inputs
    CHECK_REFUSED(osc_sdf_create_psq(unit, 1.0, 1.0, NULL, 1, 0.01, &out), "planes", NULL);
    CHECK_REFUSED(osc_sdf_create_xpsq(NULL, &out), "desc", NULL);
    desc.plane_count = 1;
    CHECK_REFUSED(osc_sdf_create_xpsq(&desc, &out), "planes", NULL);
    CHECK_REFUSED(osc_sdf_create_union(NULL, 1, 0.0, &out), "children", NULL);
    CHECK_REFUSED(osc_sdf_create_union(none, 1, 0.0, &out), "child 0", NULL);
    CHECK_REFUSED(osc_sdf_create_intersection(NULL, 1, 0.0, &out), "children", NULL);
    CHECK_REFUSED(osc_sdf_create_subtraction(NULL, a, 0.0, &out), "a is NULL", NULL);
    CHECK_REFUSED(osc_sdf_create_subtraction(a, NULL, 0.0, &out), "b is NULL", NULL);
    CHECK_REFUSED(osc_sdf_create_transformed(NULL, osc_pose_identity(), 1.0, &out), "child", NULL);
    CHECK_REFUSED(osc_sdf_create_offset(NULL, 0.1, &out), "child", NULL);
    CHECK(out == NULL);
    double point[3] = {1, 2, 3}, value;
    CHECK_REFUSED(osc_sdf_eval_batch(NULL, point, 1, &value, NULL, NULL, 1), "sdf", NULL);
    CHECK_REFUSED(osc_sdf_eval_batch(a, NULL, 1, &value, NULL, NULL, 1), "points", NULL);
    CHECK_REFUSED(osc_sdf_eval_batch(a, point, 1, NULL, NULL, NULL, 1), "values", NULL);
    CHECK_STATUS(osc_sdf_eval_batch(a, NULL, 0, NULL, NULL, NULL, 1), OSC_OK); // nothing to do
    // the documented sentinels of a NULL model, and nullable outputs
    osc_vec3 g = osc_v3(0, 0, 0), lo = osc_v3(0, 0, 0), hi = osc_v3(0, 0, 0);
    osc_mat3 h = osc_mat3_identity();
    CHECK(isnan(osc_sdf_eval(NULL, osc_v3(0, 0, 0), &g, &h)) && isnan(g.y) && isnan(h.m[2][0]));
    CHECK(isnan(osc_sdf_eval_leaf(NULL, 0, osc_v3(0, 0, 0), &g, NULL)) && isnan(g.x));
    osc_sdf_bounds(NULL, &lo, &hi);
    CHECK(lo.x == INFINITY && hi.z == -INFINITY); // empty
    osc_sdf_bounds(a, NULL, NULL);
    osc_sdf_bounds(a, &lo, NULL);
    CHECK(lo.x == -1.0);
    CHECK(isnan(osc_sdf_lipschitz(NULL)));
    CHECK(osc_sdf_lipschitz_is_bound(NULL) == 0);
    CHECK(osc_sdf_leaf_count(NULL) == 0);
    CHECK(osc_sdf_eval(a, osc_v3(2, 0, 0), NULL, NULL) == 1.0);
    osc_sdf_destroy(NULL);
    osc_sdf_destroy(a);
}

int main(void) {
    RUN(test_lse_semantics);
    RUN(test_hard_limit);
    RUN(test_nested_tree);
    RUN(test_transform_and_offset_laws);
    RUN(test_deep_and_wide_trees);
    RUN(test_bounds_rules);
    RUN(test_batch);
    RUN(test_eval_leaf);
    RUN(test_invalid_combinators);
    RUN(test_combinator_ranges);
    RUN(test_null_arguments);
    return test_finish();
}
