// test_lmd_cable.c: local minimal distances between a B-Rep and a cable (a dilated Bezier curve):
// closed forms (a straight cable over a plane face, across a cylinder), a dense-sampling oracle for
// curved cables around a box (the exact point-box distance along the curve), gradients with respect
// to the control points and the B-Rep's pose against central differences, bad input, and the same
// contacts on one thread and two, with and without a cache.

#include <stdbool.h>

#include "osculate/osculate.h"
#include "test_common.h"

enum { CAP = 64, MAXC = OSC_CABLE_MAX_CONTROL_POINTS };

static osc_lmd_contact g_contacts[CAP], g_other[CAP];
static double g_pose_jac[CAP][6], g_control_jac[CAP * MAXC * 3];

// d g / d P_i [axis] of contact k (the output's rows are [degree + 1][3] each, packed)
static double control_jacobian(const double* rows, int k, int degree, int i, int axis) {
    return rows[3 * ((size_t)k * (degree + 1) + i) + axis];
}

static int cable_query(const osc_brep* brep, osc_pose pose, const osc_cable* cable, const osc_lmd_settings* s,
                       osc_lmd_cable_cache* cache, int threads, osc_lmd_contact* out) {
    osc_lmd_cable_output o;
    memset(&o, 0, sizeof o);
    o.contacts = out;
    o.capacity = CAP;
    if (out == g_contacts) {
        o.pose_jacobians = &g_pose_jac[0][0];
        o.control_jacobians = g_control_jac;
    }
    osc_status st = osc_lmd_cable_query(brep, pose, cable, s, cache, &o, threads);
    CHECK_MSG(st == OSC_OK, "%s", osc_last_error());
    return o.count;
}

static osc_pose identity(void) { return (osc_pose){osc_v3(0, 0, 0), osc_quat_identity()}; }

// Control points of the straight segment from p to q as a Bezier curve of degree n (uniformly
// spaced: C(t) = p + t (q - p)).
static void line_points(osc_vec3 p, osc_vec3 q, int n, osc_vec3* out) {
    for (int i = 0; i <= n; i++) out[i] = osc_add(p, osc_scale(osc_sub(q, p), (double)i / n));
}

static double bernstein(int n, int i, double t) {
    double c = 1.0;
    for (int k = 1; k <= i; k++) c = c * (n - k + 1) / k;
    return c * pow(t, i) * pow(1.0 - t, n - i);
}

static void test_straight_over_plane(void) {
    osc_brep* box;
    CHECK_STATUS(osc_brep_create_box(osc_v3(2, 2, 0.5), NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 2.0;
    for (int degree = 1; degree <= 4; degree += 3) {
        osc_vec3 pts[MAXC];
        line_points(osc_v3(-1, 0, 1), osc_v3(1, 0.2, 1.4), degree, pts);
        osc_cable cable = {degree, pts, 0.1, 0};
        int n = cable_query(box, identity(), &cable, &s, NULL, 1, g_contacts);
        // the segment rises away from the top face z = 0.5: its one local minimum is its first end
        CHECK_MSG(n == 1, "degree %d: %d contacts", degree, n);
        if (n < 1) continue;
        const osc_lmd_contact* c = &g_contacts[0];
        CHECK(c->kind_a == OSC_FEATURE_FACE && c->kind_b == OSC_FEATURE_VERTEX && c->feature_b == 0);
        CHECK_NEAR(c->distance, 0.5 - 0.1, 1e-12);
        CHECK_NEAR(c->param_b[0], 0.0, 0.0);
        CHECK_NEAR(c->normal.z, 1.0, 1e-12);
        CHECK_NEAR(c->point_a.x, -1.0, 1e-12);
        CHECK_NEAR(c->point_a.z, 0.5, 1e-12);
        CHECK_NEAR(c->point_b.z, 1.0, 1e-12);
        // d g / d P_0 = n, the others 0; the box's pose: -(n, r x n)
        for (int i = 0; i <= degree; i++)
            CHECK_NEAR(control_jacobian(g_control_jac, 0, degree, i, 2), i == 0 ? 1.0 : 0.0, 1e-12);
        CHECK_NEAR(g_pose_jac[0][2], -1.0, 1e-12);
        CHECK_NEAR(g_pose_jac[0][4], -1.0, 1e-12); // -(r x n), r x n = (-1, 0, 0.5) x (0, 0, 1) = (0, 1, 0)
    }
    // a zero end tangent (P_1 = P_0, a Hermite segment's): the end's tangent ray is P_2 - P_0
    {
        osc_vec3 pts[4] = {osc_v3(-1, 0, 1), osc_v3(-1, 0, 1), osc_v3(0, 0.1, 1.2), osc_v3(1, 0.2, 1.4)};
        osc_cable cable = {3, pts, 0.1, 0};
        int n = cable_query(box, identity(), &cable, &s, NULL, 1, g_contacts);
        CHECK(n == 1);
        if (n == 1) CHECK(g_contacts[0].kind_b == OSC_FEATURE_VERTEX && g_contacts[0].feature_b == 0);
        if (n == 1) CHECK_NEAR(g_contacts[0].distance, 0.4, 1e-12);
    }
    // lowered to 0.55: the first end's gap is negative (interpenetration is reported, signed)
    osc_vec3 pts[2] = {osc_v3(-1, 0, 0.55), osc_v3(1, 0, 1.0)};
    osc_cable cable = {1, pts, 0.1, 0};
    int n = cable_query(box, identity(), &cable, &s, NULL, 1, g_contacts);
    CHECK(n == 1);
    if (n == 1) CHECK_NEAR(g_contacts[0].distance, 0.05 - 0.1, 1e-12);
    osc_brep_destroy(box);
}

static void test_straight_across_cylinder(void) {
    osc_brep* cylinder;
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.6, NULL, &cylinder), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.5;
    for (int degree = 1; degree <= 5; degree += 2) {
        osc_vec3 pts[MAXC];
        // a line skew to the axis z at distance 0.7 (their common perpendicular is y): the local
        // minimal distance to the side is 0.7 - 0.4 at the line's point nearest the axis, t = 1/2
        line_points(osc_v3(-1, 0.7, -0.2), osc_v3(1, 0.7, 0.3), degree, pts);
        osc_cable cable = {degree, pts, 0.05, 0};
        int n = cable_query(cylinder, identity(), &cable, &s, NULL, 1, g_contacts);
        CHECK_MSG(n == 1, "degree %d: %d contacts", degree, n);
        if (n < 1) continue;
        const osc_lmd_contact* c = &g_contacts[0];
        CHECK(c->kind_a == OSC_FEATURE_FACE && c->kind_b == OSC_FEATURE_EDGE && c->feature_b == 0);
        CHECK_NEAR(c->distance, 0.3 - 0.05, 1e-12);
        CHECK_NEAR(c->param_b[0], 0.5, 1e-10);
        CHECK_NEAR(c->normal.y, 1.0, 1e-12);
        CHECK_NEAR(c->point_a.y, 0.4, 1e-12);
        CHECK_NEAR(c->point_b.x, 0.0, 1e-10);
        for (int i = 0; i <= degree; i++) {
            CHECK_NEAR(control_jacobian(g_control_jac, 0, degree, i, 1), bernstein(degree, i, 0.5), 1e-10);
            CHECK_NEAR(control_jacobian(g_control_jac, 0, degree, i, 0), 0.0, 1e-10);
        }
        // moved with the cylinder's pose (rotated about x by 90 degrees and shifted): the same gap
        osc_pose pose = {osc_v3(3, -2, 5), osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.5 * TEST_PI)};
        osc_vec3 moved[MAXC];
        for (int i = 0; i <= degree; i++) moved[i] = osc_pose_apply(pose, pts[i]);
        osc_cable cable2 = {degree, moved, 0.05, 0};
        n = cable_query(cylinder, pose, &cable2, &s, NULL, 1, g_contacts);
        CHECK(n == 1);
        if (n == 1) CHECK_NEAR(g_contacts[0].distance, 0.25, 1e-12);
    }
    osc_brep_destroy(cylinder);
}

// ---- the oracle: a box's exact distance along the curve -------------------------------------------

static osc_vec3 bezier(const osc_vec3* p, int n, double t) {
    osc_vec3 q[MAXC];
    for (int i = 0; i <= n; i++) q[i] = p[i];
    for (int k = 1; k <= n; k++)
        for (int i = 0; i <= n - k; i++) q[i] = osc_add(osc_scale(q[i], 1.0 - t), osc_scale(q[i + 1], t));
    return q[0];
}

// Distance from an outside point to the box [-h, h].
static double box_distance(osc_vec3 h, osc_vec3 x) {
    double e[3] = {fabs(x.x) - h.x, fabs(x.y) - h.y, fabs(x.z) - h.z}, s = 0.0;
    for (int i = 0; i < 3; i++)
        if (e[i] > 0.0) s += e[i] * e[i];
    return sqrt(s);
}

typedef struct oracle_min {
    double t, f;
} oracle_min;

// The local minima over [0, 1] of f(t) = dist(C(t), box) (for a convex solid and a curve outside
// it, the local minimal distances between the curve and the boundary): samples, then golden
// sections around each discrete minimum (the ends included, one-sided).
static int oracle(osc_vec3 h, const osc_vec3* p, int n, oracle_min* out, int cap) {
    enum { N = 4000 };
    static double f[N + 1];
    for (int i = 0; i <= N; i++) f[i] = box_distance(h, bezier(p, n, (double)i / N));
    int count = 0;
    for (int i = 0; i <= N && count < cap; i++) {
        bool left = i == 0 || f[i] < f[i - 1], right = i == N || f[i] <= f[i + 1];
        if (!(left && right)) continue;
        double a = fmax(0.0, (double)(i - 1) / N), b = fmin(1.0, (double)(i + 1) / N);
        const double g = 0.5 * (sqrt(5.0) - 1.0);
        for (int it = 0; it < 80; it++) {
            double x1 = b - g * (b - a), x2 = a + g * (b - a);
            if (box_distance(h, bezier(p, n, x1)) <= box_distance(h, bezier(p, n, x2)))
                b = x2;
            else
                a = x1;
        }
        double t = 0.5 * (a + b);
        if (i == 0 && t < 1e-6) t = 0.0;
        if (i == N && t > 1.0 - 1e-6) t = 1.0;
        out[count++] = (oracle_min){t, box_distance(h, bezier(p, n, t))};
    }
    return count;
}

static void test_curved_around_box(void) {
    const osc_vec3 h = osc_v3(0.5, 0.4, 0.3);
    osc_brep* box;
    CHECK_STATUS(osc_brep_create_box(h, NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.4;
    s.alpha = 0.0;
    const double radius = 0.02;
    test_rng rng = {2024};
    int trials = 0, matched = 0, interior = 0, ends = 0;
    for (int trial = 0; trial < 400 && trials < 80; trial++) {
        int degree = 2 + trial % 4;
        osc_vec3 pts[MAXC];
        for (int i = 0; i <= degree; i++) {
            // control points on a shell around the box, the curve sweeping over one or two sides
            double a = -1.2 + 2.4 * i / degree + 0.2 * test_uniform(&rng, -1, 1);
            pts[i] = osc_v3(a, test_uniform(&rng, -0.7, 0.7), test_uniform(&rng, 0.1, 0.9));
        }
        if (trial % 2) { // the first end just above the top face, the curve leaving it upward
            pts[0] =
                osc_v3(test_uniform(&rng, -0.4, 0.4), test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, 0.32, 0.5));
            pts[1] = osc_add(pts[0], osc_v3(test_uniform(&rng, -0.3, 0.3), test_uniform(&rng, -0.3, 0.3), 0.3));
        }
        // the centre curve keeps out of the box (by 1e-3), and no minimum sits near the d_max
        // threshold or next to another (where the sampled oracle cannot tell them apart)
        bool ok = true;
        for (int i = 0; i <= 400 && ok; i++) ok = box_distance(h, bezier(pts, degree, i / 400.0)) > 1e-3;
        oracle_min mins[32];
        int m = oracle(h, pts, degree, mins, 32);
        int expected = 0;
        for (int k = 0; k < m && ok; k++) {
            double g = mins[k].f - radius;
            ok = fabs(g - s.d_max) > 1e-3;
            for (int j = 0; j < k; j++) ok = ok && fabs(mins[j].t - mins[k].t) > 1e-2;
            expected += g <= s.d_max;
        }
        if (!ok) continue;
        trials++;
        osc_cable cable = {degree, pts, radius, 4};
        int n = cable_query(box, identity(), &cable, &s, NULL, 1, g_contacts);
        CHECK_MSG(n == expected, "trial %d degree %d: %d contacts, oracle %d", trial, degree, n, expected);
        // every pair without the culling tests: the same contacts
        osc_lmd_settings all = s;
        all.culling = 0;
        int n_all = cable_query(box, identity(), &cable, &all, NULL, 1, g_other);
        CHECK(n_all == n);
        for (int j = 0; j < n && j < n_all; j++) {
            CHECK(g_other[j].kind_a == g_contacts[j].kind_a && g_other[j].feature_a == g_contacts[j].feature_a &&
                  g_other[j].kind_b == g_contacts[j].kind_b);
            CHECK_NEAR(g_other[j].distance, g_contacts[j].distance, 1e-12);
            CHECK_NEAR(g_other[j].param_b[0], g_contacts[j].param_b[0], 1e-8);
        }
        for (int k = 0; k < m; k++) {
            if (mins[k].f - radius > s.d_max) continue;
            int best = -1;
            for (int j = 0; j < n; j++)
                if (fabs(g_contacts[j].param_b[0] - mins[k].t) < 1e-5) best = j;
            CHECK_MSG(best >= 0, "trial %d: the oracle's minimum at t = %.9f (gap %.9f) is missing", trial, mins[k].t,
                      mins[k].f - radius);
            if (best < 0) continue;
            matched++;
            const osc_lmd_contact* c = &g_contacts[best];
            CHECK_NEAR(c->distance, mins[k].f - radius, 1e-9);
            // the footpoints: on the curve at t*, and the box's nearest point
            osc_vec3 on = bezier(pts, degree, c->param_b[0]);
            CHECK_NEAR(osc_length(osc_sub(on, c->point_b)), 0.0, 1e-12);
            CHECK_NEAR(box_distance(h, c->point_a), 0.0, 1e-12);
            CHECK_NEAR(osc_length(osc_sub(c->point_b, c->point_a)) - radius, c->distance, 1e-12);
            if (c->kind_b == OSC_FEATURE_VERTEX)
                ends++;
            else
                interior++;
        }
    }
    printf("  curved cables around a box: %d cables, %d oracle minima matched (%d inside the curve, %d at an "
           "end)\n",
           trials, matched, interior, ends);
    CHECK(trials >= 60 && interior >= 30 && ends >= 20);
    osc_brep_destroy(box);
}

// ---- gradients ------------------------------------------------------------------------------------

// Central differences of the gap of contact `c` under a perturbation of control point `i`
// coordinate `axis` (i >= 0) or of the B-Rep's pose twist component `axis` (i < 0).
static bool central_difference(const osc_brep* brep, osc_pose pose, const osc_cable* cable, const osc_lmd_settings* s,
                               const osc_lmd_contact* c, int i, int axis, double* fd) {
    const double step = 1e-6;
    double val[2];
    for (int sgn = 0; sgn < 2; sgn++) {
        double hh = sgn ? -step : step;
        osc_vec3 pts[MAXC];
        for (int k = 0; k <= cable->degree; k++) pts[k] = cable->control_points[k];
        osc_pose q = pose;
        if (i >= 0) {
            double* coord = axis == 0 ? &pts[i].x : (axis == 1 ? &pts[i].y : &pts[i].z);
            *coord += hh;
        } else {
            double xi[6] = {0};
            xi[axis] = hh;
            q = osc_pose_apply_twist(pose, xi);
        }
        osc_cable moved = *cable;
        moved.control_points = pts;
        int m = cable_query(brep, q, &moved, s, NULL, 1, g_other);
        int best = -1;
        double bd = INFINITY;
        for (int j = 0; j < m; j++) {
            if (g_other[j].kind_a != c->kind_a || g_other[j].feature_a != c->feature_a ||
                g_other[j].kind_b != c->kind_b || g_other[j].feature_b != c->feature_b)
                continue;
            double dd = fabs(g_other[j].param_b[0] - c->param_b[0]);
            if (dd < bd) {
                bd = dd;
                best = j;
            }
        }
        if (best < 0 || bd > 1e-3) return false;
        val[sgn] = g_other[best].distance;
    }
    *fd = (val[0] - val[1]) / (2.0 * step);
    return true;
}

static void test_gradients(void) {
    double peg_profile[] = {0.0, -0.5, 0.3, -0.5, 0.4, -0.3, 0.4, 0.5, 0.0, 0.5};
    osc_brep* solids[2];
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &solids[0]), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.3, 0.4, 0.2), NULL, &solids[1]), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.5;
    test_rng rng = {77};
    int checked = 0, contacts = 0;
    double worst = 0.0;
    for (int trial = 0; trial < 24; trial++) {
        const osc_brep* brep = solids[trial % 2];
        osc_pose pose = {osc_v3(test_uniform(&rng, -0.1, 0.1), test_uniform(&rng, -0.1, 0.1), 0.0),
                         osc_quat_from_axis_angle(osc_normalize(osc_v3(test_uniform(&rng, -1, 1), 1, 0.3)),
                                                  test_uniform(&rng, -0.3, 0.3))};
        int degree = 3;
        osc_vec3 pts[MAXC];
        for (int i = 0; i <= degree; i++)
            pts[i] = osc_v3(-0.9 + 0.6 * i + 0.1 * test_uniform(&rng, -1, 1), test_uniform(&rng, -0.6, 0.6),
                            test_uniform(&rng, 0.3, 0.8));
        osc_cable cable = {degree, pts, 0.03, 0};
        int n = cable_query(brep, pose, &cable, &s, NULL, 1, g_contacts);
        osc_lmd_contact contacts_here[CAP];
        static double control[CAP * MAXC * 3];
        double posej[CAP][6];
        memcpy(contacts_here, g_contacts, sizeof contacts_here);
        memcpy(control, g_control_jac, sizeof control);
        memcpy(posej, g_pose_jac, sizeof posej);
        for (int k = 0; k < n; k++) {
            contacts++;
            for (int i = -1; i <= degree; i++)
                for (int axis = 0; axis < (i < 0 ? 6 : 3); axis++) {
                    double fd;
                    if (!central_difference(brep, pose, &cable, &s, &contacts_here[k], i, axis, &fd)) continue;
                    double analytic = i < 0 ? posej[k][axis] : control_jacobian(control, k, degree, i, axis);
                    if (fabs(fd - analytic) > 1e-6)
                        printf("  trial %d contact %d kinds %d %d t %.6f: column %d %d: %.9f vs %.9f\n", trial, k,
                               contacts_here[k].kind_a, contacts_here[k].kind_b, contacts_here[k].param_b[0], i, axis,
                               analytic, fd);
                    worst = fmax(worst, fabs(fd - analytic));
                    checked++;
                }
        }
    }
    printf("  cable gradients: %d contacts, %d columns checked, worst |analytic - central difference| %.2e\n", contacts,
           checked, worst);
    CHECK(checked > 150);
    CHECK(worst < 1e-6);
    osc_brep_destroy(solids[0]);
    osc_brep_destroy(solids[1]);
}

// ---- bad input ------------------------------------------------------------------------------------

static void expect_refused(const osc_brep* brep, const osc_cable* cable, osc_lmd_cable_output* o, int threads,
                           const char* name) {
    osc_status st = osc_lmd_cable_query(brep, identity(), cable, NULL, NULL, o, threads);
    CHECK_MSG(st == OSC_ERR_INVALID_ARGUMENT, "%s: status %d", name, (int)st);
    CHECK_MSG(strstr(osc_last_error(), name) != NULL, "message '%s' does not name %s", osc_last_error(), name);
    CHECK(o->count == 0 && o->needed == 0);
}

static void test_bad_input(void) {
    osc_brep* box;
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.5, 0.5), NULL, &box), OSC_OK);
    osc_vec3 pts[MAXC + 1];
    line_points(osc_v3(-1, 0, 1), osc_v3(1, 0, 1), MAXC, pts);
    osc_lmd_cable_output o;
    memset(&o, 0, sizeof o);
    o.contacts = g_contacts;
    o.capacity = CAP;
    osc_cable good = {3, pts, 0.1, 0};
    CHECK_STATUS(osc_lmd_cable_query(box, identity(), &good, NULL, NULL, &o, 1), OSC_OK);
    expect_refused(NULL, &good, &o, 1, "brep");
    expect_refused(box, NULL, &o, 1, "cable");
    osc_cable c = good;
    c.degree = 0;
    expect_refused(box, &c, &o, 1, "cable.degree");
    c.degree = MAXC; // too many control points
    expect_refused(box, &c, &o, 1, "cable.degree");
    c = good;
    c.control_points = NULL;
    expect_refused(box, &c, &o, 1, "cable.control_points");
    double bad_radius[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        c = good;
        c.radius = bad_radius[i];
        expect_refused(box, &c, &o, 1, "cable.radius");
    }
    osc_vec3 bad[4] = {pts[0], pts[1], osc_v3(NAN, 0, 0), pts[3]};
    c = good;
    c.control_points = bad;
    expect_refused(box, &c, &o, 1, "cable.control_points[2]");
    bad[2] = osc_v3(0, 0, INFINITY);
    expect_refused(box, &c, &o, 1, "cable.control_points[2]");
    bad[2] = osc_v3(0, 2e100, 0);
    expect_refused(box, &c, &o, 1, "cable.control_points[2]");
    osc_vec3 same[4] = {pts[1], pts[1], pts[1], pts[1]};
    c = good;
    c.control_points = same;
    expect_refused(box, &c, &o, 1, "cable.control_points all coincide");
    c = good;
    c.pieces = -1;
    expect_refused(box, &c, &o, 1, "cable.pieces");
    c.pieces = OSC_CABLE_MAX_PIECES + 1;
    expect_refused(box, &c, &o, 1, "cable.pieces");
    expect_refused(box, &good, &o, -1, "threads");
    osc_lmd_cable_output null_contacts = o;
    null_contacts.contacts = NULL;
    osc_status st = osc_lmd_cable_query(box, identity(), &good, NULL, NULL, &null_contacts, 1);
    CHECK(st == OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_lmd_cable_query(box, identity(), &good, NULL, NULL, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = -1.0;
    st = osc_lmd_cable_query(box, identity(), &good, &s, NULL, &o, 1);
    CHECK(st == OSC_ERR_INVALID_ARGUMENT && strstr(osc_last_error(), "osc_lmd_cable_query: settings.d_max"));
    osc_pose nan_pose = {osc_v3(NAN, 0, 0), osc_quat_identity()};
    st = osc_lmd_cable_query(box, nan_pose, &good, NULL, NULL, &o, 1);
    CHECK(st == OSC_ERR_INVALID_ARGUMENT && strstr(osc_last_error(), "pose"));
    // the largest degree is accepted
    c = good;
    c.degree = MAXC - 1;
    CHECK_STATUS(osc_lmd_cable_query(box, identity(), &c, NULL, NULL, &o, 1), OSC_OK);
    // capacity: the first contacts are written, needed says how many
    osc_vec3 wave[4] = {osc_v3(-0.9, 0, 0.6), osc_v3(-0.3, 0, 0.3), osc_v3(0.3, 0, 1.2), osc_v3(0.9, 0, 0.55)};
    osc_cable w = {3, wave, 0.01, 0};
    s = osc_lmd_settings_default();
    int all = cable_query(box, identity(), &w, &s, NULL, 1, g_contacts);
    CHECK(all >= 2);
    osc_lmd_cable_output small = o;
    small.capacity = 1;
    CHECK_STATUS(osc_lmd_cable_query(box, identity(), &w, &s, NULL, &small, 1), OSC_ERR_CAPACITY);
    CHECK(small.count == 1 && small.needed == all);
    osc_brep_destroy(box);
}

// ---- threads and caches ---------------------------------------------------------------------------

static void test_threads_and_cache(void) {
    double hole_profile[] = {0.3, 0.5, 0.3, -0.3}; // a blind hole closed by a disc at z = -0.3
    osc_brep* block;
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(0.6, 0.6, 0.5), hole_profile, 2, NULL, &block), OSC_OK);
    osc_lmd_cable_cache* cache;
    CHECK_STATUS(osc_lmd_cable_cache_create(&cache), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.3;
    int total = 0, minima_checked = 0;
    for (int step = 0; step < 10; step++) {
        // a cable hanging into the bore, swaying (its control points within 0.2 of the axis, above
        // the bottom: the tube keeps clear of the walls)
        double phase = 0.3 * step;
        osc_vec3 pts[5] = {osc_v3(0, 0, 1.2), osc_v3(0.1 * sin(phase), 0.05, 0.8), osc_v3(0.2 * cos(phase), 0, 0.4),
                           osc_v3(-0.2, 0.1 * sin(phase), 0.0), osc_v3(0.15 * sin(phase), 0.1, -0.2)};
        osc_cable cable = {4, pts, 0.05, 16};
        int n1 = cable_query(block, identity(), &cable, &s, NULL, 1, g_contacts);
        int n2 = cable_query(block, identity(), &cable, &s, cache, 2, g_other);
        CHECK(n1 == n2);
        CHECK(memcmp(g_contacts, g_other, sizeof(osc_lmd_contact) * (size_t)n1) == 0);
        total += n1;
        // each face or rim contact inside the curve a local minimum along the cable: its points at
        // t* +- 1e-3 are no nearer the untrimmed surface (the concave wall, the bottom, the top) or
        // the rim's circle than C(t*)
        const osc_brep_desc* desc = osc_brep_description(block);
        for (int j = 0; j < n1; j++) {
            const osc_lmd_contact* c = &g_contacts[j];
            if (c->kind_a == OSC_FEATURE_VERTEX || c->kind_b != OSC_FEATURE_EDGE) continue;
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                osc_vec3 q = bezier(pts, 4, c->param_b[0] + sgn * 1e-3);
                double d;
                if (c->kind_a == OSC_FEATURE_FACE) {
                    const osc_brep_surface* surface = &desc->surfaces[desc->faces[c->feature_a].surface];
                    double uv[2];
                    CHECK(osc_brep_project(surface, q, uv));
                    d = osc_length(osc_sub(q, osc_brep_surface_point(surface, uv[0], uv[1], NULL)));
                } else { // the block's circular edges: about the z axis, through the footpoint
                    double R = hypot(c->point_a.x, c->point_a.y);
                    d = hypot(hypot(q.x, q.y) - R, q.z - c->point_a.z);
                }
                CHECK(d - cable.radius >= c->distance - 1e-12);
                minima_checked++;
            }
        }
        // the concave wall, rim and bottom: the culling tests keep every contact
        osc_lmd_settings all = s;
        all.culling = 0;
        int n3 = cable_query(block, identity(), &cable, &all, NULL, 1, g_other);
        CHECK_MSG(n3 == n1, "step %d: %d contacts with culling, %d without", step, n1, n3);
        for (int j = 0; j < n1 && j < n3; j++) {
            CHECK(g_other[j].kind_a == g_contacts[j].kind_a && g_other[j].feature_a == g_contacts[j].feature_a &&
                  g_other[j].kind_b == g_contacts[j].kind_b && g_other[j].feature_b == g_contacts[j].feature_b);
            CHECK_NEAR(g_other[j].distance, g_contacts[j].distance, 1e-12);
        }
    }
    printf("  a cable through a bore: %d contacts over 10 steps, the same on 1 and 2 threads; %d neighbours of "
           "face and edge contacts no nearer\n",
           total, minima_checked);
    CHECK(total > 10 && minima_checked >= 16);
    osc_lmd_cable_cache_destroy(cache);
    CHECK_STATUS(osc_lmd_cable_cache_create(NULL), OSC_ERR_INVALID_ARGUMENT);
    osc_lmd_cable_cache_destroy(NULL);
    osc_brep_destroy(block);
}

int main(void) {
    RUN(test_straight_over_plane);
    RUN(test_straight_across_cylinder);
    RUN(test_curved_around_box);
    RUN(test_gradients);
    RUN(test_bad_input);
    RUN(test_threads_and_cache);
    return test_finish();
}
