// sdf_test_util.h: oracles shared by the SDF tests: central finite differences of value and
// gradient, sampling helpers, bounds and Lipschitz checks.

#ifndef OSC_SDF_TEST_UTIL_H
#define OSC_SDF_TEST_UTIL_H

#include "osculate/osculate.h"
#include "test_common.h"

// Finite-difference statistics over many points.
typedef struct fd_stats {
    int checked;       // points where the finite differences had converged and were compared
    int skipped;       // points whose stencil crossed a kink (FD with h and 2h disagree)
    int failed;        // compared points whose analytic derivative disagreed
    double worst_grad; // largest relative gradient error seen
    double worst_hess; // largest relative Hessian error seen
} fd_stats;

static inline osc_vec3 fd_axis(osc_vec3 x, int axis, double step) {
    if (axis == 0)
        x.x += step;
    else if (axis == 1)
        x.y += step;
    else
        x.z += step;
    return x;
}

// Central differences of the value (-> gradient) and of the analytic gradient (-> Hessian) with
// step h and 2h. The FD is trusted when both steps agree: for a smooth function they differ by
// about 3 h^2 times the third derivative; otherwise the step is refined (h / 4, h / 16, h / 64),
// which resolves steep but smooth regions, and a stencil that still disagrees straddles a kink
// and is skipped. Errors are relative: |analytic - fd| / max(|fd|, 1), with shapes of size ~1.
static inline void fd_differences(const osc_sdf* sdf, osc_vec3 x, double step, double grad[3], double hess[3][3]) {
    for (int i = 0; i < 3; ++i) {
        osc_vec3 gp, gm;
        double vp = osc_sdf_eval(sdf, fd_axis(x, i, step), &gp, NULL);
        double vm = osc_sdf_eval(sdf, fd_axis(x, i, -step), &gm, NULL);
        grad[i] = (vp - vm) / (2.0 * step);
        hess[0][i] = (gp.x - gm.x) / (2.0 * step);
        hess[1][i] = (gp.y - gm.y) / (2.0 * step);
        hess[2][i] = (gp.z - gm.z) / (2.0 * step);
    }
}

static inline void fd_check(const osc_sdf* sdf, osc_vec3 x, double h, double tolerance, fd_stats* st) {
    osc_vec3 g;
    osc_mat3 hess;
    osc_sdf_eval(sdf, x, &g, &hess);
    double fd1[3], fd2[3], hfd1[3][3], hfd2[3][3];
    double gscale = 1.0, hscale = 1.0;
    int converged = 0;
    for (int level = 0; level < 4 && !converged; ++level, h *= 0.25) {
        fd_differences(sdf, x, h, fd1, hfd1);
        fd_differences(sdf, x, 2.0 * h, fd2, hfd2);
        double gconv = 0.0, hconv = 0.0;
        gscale = 1.0;
        hscale = 1.0;
        for (int i = 0; i < 3; ++i) {
            gscale = fmax(gscale, fabs(fd1[i]));
            gconv = fmax(gconv, fabs(fd1[i] - fd2[i]));
            for (int j = 0; j < 3; ++j) {
                hscale = fmax(hscale, fabs(hfd1[i][j]));
                hconv = fmax(hconv, fabs(hfd1[i][j] - hfd2[i][j]));
            }
        }
        // the h-step FD error is about a third of the h / 2h difference; trust it only when that
        // is well below the tolerance
        converged = gconv / gscale <= 0.3 * tolerance && hconv / hscale <= 0.3 * tolerance;
    }
    if (!converged) {
        st->skipped++;
        return;
    }
    st->checked++;
    double ge = 0.0, he = 0.0;
    double ga[3] = {g.x, g.y, g.z};
    for (int i = 0; i < 3; ++i) {
        ge = fmax(ge, fabs(ga[i] - fd1[i]) / gscale);
        for (int j = 0; j < 3; ++j) he = fmax(he, fabs(hess.m[i][j] - hfd1[i][j]) / hscale);
    }
    st->worst_grad = fmax(st->worst_grad, ge);
    st->worst_hess = fmax(st->worst_hess, he);
    if (ge > tolerance || he > tolerance) {
        if (st->failed < 5)
            fprintf(stderr, "  fd mismatch at (%.17g, %.17g, %.17g): grad err %.3g, hess err %.3g\n", x.x, x.y, x.z, ge,
                    he);
        st->failed++;
    }
}

// Runs fd_check at `count` random points of the box [lo, hi] and asserts: no failure, at least
// `count` / 2 points compared, and at most `max_skip_fraction` of them skipped at kinks.
static inline fd_stats fd_check_box(const char* name, const osc_sdf* sdf, osc_vec3 lo, osc_vec3 hi, int count,
                                    double max_skip_fraction, test_rng* rng) {
    fd_stats st = {0, 0, 0, 0.0, 0.0};
    double size = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    for (int i = 0; i < count; ++i) {
        osc_vec3 x =
            osc_v3(test_uniform(rng, lo.x, hi.x), test_uniform(rng, lo.y, hi.y), test_uniform(rng, lo.z, hi.z));
        fd_check(sdf, x, 1e-5 * size, 1e-6, &st);
    }
    CHECK_MSG(st.failed == 0, "%s: %d of %d points disagree with finite differences", name, st.failed, st.checked);
    CHECK_MSG(st.skipped <= max_skip_fraction * count, "%s: %d of %d stencils crossed a kink", name, st.skipped, count);
    CHECK_MSG(st.checked >= count / 2, "%s: only %d points compared", name, st.checked);
    return st;
}

// every sampled point with phi <= 0 lies inside the model's bounds
static inline void check_bounds_contain(const char* name, const osc_sdf* sdf, osc_vec3 lo, osc_vec3 hi, int count,
                                        test_rng* rng) {
    osc_vec3 blo, bhi;
    osc_sdf_bounds(sdf, &blo, &bhi);
    int outside = 0, inside = 0;
    for (int i = 0; i < count; ++i) {
        osc_vec3 x =
            osc_v3(test_uniform(rng, lo.x, hi.x), test_uniform(rng, lo.y, hi.y), test_uniform(rng, lo.z, hi.z));
        if (osc_sdf_eval(sdf, x, NULL, NULL) <= 0.0) {
            ++inside;
            if (x.x < blo.x || x.y < blo.y || x.z < blo.z || x.x > bhi.x || x.y > bhi.y || x.z > bhi.z) ++outside;
        }
    }
    CHECK_MSG(outside == 0, "%s: %d of %d inside points lie outside the bounds", name, outside, inside);
    CHECK_MSG(inside > 0, "%s: no sample fell inside the shape", name);
}

// |grad phi| <= L at sampled points where phi > 0; returns the largest ratio |grad| / L
static inline double check_lipschitz(const char* name, const osc_sdf* sdf, osc_vec3 lo, osc_vec3 hi, int count,
                                     test_rng* rng) {
    double lipschitz = osc_sdf_lipschitz(sdf), worst = 0.0;
    int violations = 0;
    for (int i = 0; i < count; ++i) {
        osc_vec3 x =
            osc_v3(test_uniform(rng, lo.x, hi.x), test_uniform(rng, lo.y, hi.y), test_uniform(rng, lo.z, hi.z));
        osc_vec3 g;
        if (osc_sdf_eval(sdf, x, &g, NULL) > 0.0) {
            double ratio = osc_length(g) / lipschitz;
            worst = fmax(worst, ratio);
            if (ratio > 1.0 + 1e-12) ++violations;
        }
    }
    CHECK_MSG(violations == 0, "%s: |grad| exceeds the Lipschitz bound %g at %d points (worst x%.4f)", name, lipschitz,
              violations, worst);
    return worst;
}

static inline osc_quat random_quat(test_rng* rng) {
    osc_quat q = {test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1),
                  test_uniform(rng, -1, 1)};
    return osc_quat_normalize(q);
}

// evaluation is deterministic and the derivative order does not change the value
static inline void check_orders_agree(const char* name, const osc_sdf* sdf, osc_vec3 x) {
    osc_vec3 g1, g2;
    osc_mat3 h;
    double v0 = osc_sdf_eval(sdf, x, NULL, NULL);
    double v1 = osc_sdf_eval(sdf, x, &g1, NULL);
    double v2 = osc_sdf_eval(sdf, x, &g2, &h);
    CHECK_MSG(v0 == v1 && v1 == v2 && g1.x == g2.x && g1.y == g2.y && g1.z == g2.z,
              "%s: value or gradient depends on the derivative order requested", name);
}

// `expr` returns OSC_ERR_INVALID_ARGUMENT with a message that contains `name` (the argument) and
// `value` (its value as the library prints it, "%g" of a double; NULL: not checked)
#define CHECK_REFUSED(expr, name, value)                                                                               \
    do {                                                                                                               \
        osc_status refused_status_ = (expr);                                                                           \
        const char* refused_value_ = (value);                                                                          \
        const char* refused_message_ = osc_last_error();                                                               \
        CHECK_MSG(refused_status_ == OSC_ERR_INVALID_ARGUMENT && strstr(refused_message_, name) != NULL &&             \
                      (!refused_value_ || strstr(refused_message_, refused_value_) != NULL),                           \
                  "%s: status %d, message '%s'; expected a refusal naming '%s' and '%s'", #expr, (int)refused_status_, \
                  refused_status_ ? refused_message_ : "", name, refused_value_ ? refused_value_ : "");                \
    } while (0)

// "%g" of a value, in one of four rotating buffers (several may be used in one expression)
static inline const char* value_text(double value) {
    static char buffers[4][32];
    static int next = 0;
    char* text = buffers[next++ % 4];
    snprintf(text, sizeof buffers[0], "%g", value);
    return text;
}

#endif // OSC_SDF_TEST_UTIL_H
