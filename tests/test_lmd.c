// test_lmd.c: local minimal distances between B-Rep solids (Crozet 2017). Oracles: closed forms,
// brute-force dense sampling of the boundary against the exact distance to a convex solid (the
// library's analytic SDFs, an independent code path), the naive all-pairs search, central finite
// differences, the quasi-LMD box of thesis Fig. 1.15, and consistency across caches and threads.

#include "osculate/osculate.h"
#include "brep_internal.h"
#include "test_common.h"

enum { CAP = 4096 };
static osc_lmd_contact g_contacts[CAP], g_other[CAP];

static osc_pose random_pose(test_rng* rng, double spread) {
    osc_vec3 axis = osc_normalize(osc_v3(test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1)));
    return osc_pose_make(osc_v3(test_uniform(rng, -spread, spread), test_uniform(rng, -spread, spread),
                                test_uniform(rng, -spread, spread)),
                         osc_quat_from_axis_angle(axis, test_uniform(rng, -3.1, 3.1)));
}

static int query(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, const osc_lmd_settings* s,
                 osc_lmd_cache* cache, osc_lmd_contact* out) {
    int n = -1;
    osc_status st = osc_lmd_query(a, pa, b, pb, s, cache, out, CAP, &n);
    CHECK_STATUS(st, OSC_OK);
    return st == OSC_OK ? n : 0;
}

// ---- closed forms --------------------------------------------------------------------------------

static void test_closed_forms(void) {
    osc_brep *box, *sphere, *cylinder;
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 2, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.6, NULL, &cylinder), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 2.0;
    s.eps_a = 0.01;
    s.eps_b = 0.02;
    // a sphere above the box's top face: one face-face contact at distance 0.25
    osc_pose pb = osc_pose_make(osc_v3(0.2, -0.7, 1.05), osc_quat_identity());
    int n = query(box, osc_pose_identity(), sphere, pb, &s, NULL, g_contacts);
    CHECK(n == 1);
    if (n == 1) {
        CHECK_NEAR(g_contacts[0].distance, 0.25, 1e-12);
        CHECK_NEAR(g_contacts[0].gap, 0.22, 1e-12);
        CHECK_NEAR(g_contacts[0].normal.z, 1.0, 1e-12);
        CHECK_NEAR(g_contacts[0].point_a.z, 0.5, 1e-12);
        CHECK(g_contacts[0].flags == 0);
    }
    // a sphere beyond a box corner: a vertex contact along the diagonal
    osc_vec3 dir = osc_normalize(osc_v3(1, 1, 1));
    pb = osc_pose_make(osc_add(osc_v3(1, 2, 0.5), osc_scale(dir, 0.8)), osc_quat_identity());
    n = query(box, osc_pose_identity(), sphere, pb, &s, NULL, g_contacts);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(g_contacts[0].kind_a == OSC_FEATURE_VERTEX);
        CHECK_NEAR(g_contacts[0].distance, 0.5, 1e-10);
    }
    // beyond an edge (x = 1, z = 0.5, along y): an edge contact
    dir = osc_normalize(osc_v3(1, 0, 1));
    pb = osc_pose_make(osc_add(osc_v3(1, 0.3, 0.5), osc_scale(dir, 0.9)), osc_quat_identity());
    n = query(box, osc_pose_identity(), sphere, pb, &s, NULL, g_contacts);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(g_contacts[0].kind_a == OSC_FEATURE_EDGE);
        CHECK_NEAR(g_contacts[0].distance, 0.6, 1e-10);
        CHECK_NEAR(g_contacts[0].point_a.y, 0.3, 1e-10);
    }
    // a cylinder standing on the box: its bottom circle is a conformal contact, sampled
    s.conformal_samples = 12;
    pb = osc_pose_make(osc_v3(0, 0, 0.5 + 0.6 + 0.1), osc_quat_identity());
    n = query(box, osc_pose_identity(), cylinder, pb, &s, NULL, g_contacts);
    CHECK(n == 12);
    for (int i = 0; i < n; i++) {
        CHECK(g_contacts[i].flags == OSC_LMD_CONFORMAL);
        CHECK_NEAR(g_contacts[i].distance, 0.1, 1e-12);
        CHECK(g_contacts[i].kind_b == OSC_FEATURE_EDGE);
    }
    // tilted slightly, the same circle touches at one isolated point: the lowest one
    pb.q = osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.02);
    n = query(box, osc_pose_identity(), cylinder, pb, &s, NULL, g_contacts);
    double lowest = 1.2 - 0.6 * cos(0.02) - 0.4 * sin(0.02) - 0.5;
    int isolated = 0;
    for (int i = 0; i < n; i++)
        if (g_contacts[i].flags == 0 && g_contacts[i].kind_b == OSC_FEATURE_EDGE) {
            isolated++;
            CHECK_NEAR(g_contacts[i].distance, lowest, 1e-10);
        }
    CHECK(isolated == 1);
    osc_brep_destroy(box);
    osc_brep_destroy(sphere);
    osc_brep_destroy(cylinder);
}

// ---- contacts at a sphere's poles (where its parameters are singular) ----------------------------

static void test_sphere_poles(void) {
    osc_brep *a_sphere, *sphere, *cylinder, *box;
    CHECK_STATUS(osc_brep_create_sphere(0.5, NULL, &a_sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.6, NULL, &cylinder), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.5, 0.5), NULL, &box), OSC_OK);
    // B, a sphere of radius 0.3, turned so that its pole (v = -pi/2, body -z) faces A
    const osc_brep* solids[4] = {a_sphere, cylinder, box, box};
    const osc_vec3 centres[4] = {{0, 0, 1.0}, {0.9, 0, 0.1}, {0.8, 0, 0.8}, {0.8, 0.8, 0.8}};
    const double expected[4] = {0.2, 0.2, 0.3 * sqrt(2.0) - 0.3, 0.3 * sqrt(3.0) - 0.3};
    const osc_feature_kind kinds[4] = {OSC_FEATURE_FACE, OSC_FEATURE_FACE, OSC_FEATURE_EDGE, OSC_FEATURE_VERTEX};
    const osc_vec3 toward[4] = {{0, 0, -1}, {-1, 0, 0}, {-1, 0, -1}, {-1, -1, -1}};
    osc_lmd_settings s = osc_lmd_settings_default();
    for (int k = 0; k < 4; k++) {
        // the rotation taking body -z to `toward`
        osc_vec3 from = osc_v3(0, 0, -1), to = osc_normalize(toward[k]);
        osc_vec3 axis = osc_cross(from, to);
        double angle = atan2(osc_length(axis), osc_dot(from, to));
        osc_quat q =
            osc_length(axis) > 1e-12 ? osc_quat_from_axis_angle(osc_normalize(axis), angle) : osc_quat_identity();
        int n = query(solids[k], osc_pose_identity(), sphere, osc_pose_make(centres[k], q), &s, NULL, g_contacts);
        CHECK_MSG(n == 1, "pole case %d: %d contacts", k, n);
        if (n != 1) continue;
        CHECK_NEAR(g_contacts[0].distance, expected[k], 1e-10);
        CHECK(g_contacts[0].kind_a == kinds[k] && g_contacts[0].kind_b == OSC_FEATURE_FACE);
        CHECK_NEAR(g_contacts[0].param_b[1], -0.5 * TEST_PI, 1e-6); // B's footpoint is its pole
    }
    osc_brep_destroy(a_sphere);
    osc_brep_destroy(sphere);
    osc_brep_destroy(cylinder);
    osc_brep_destroy(box);
}

// ---- a peg coaxial in its hole -----------------------------------------------------------------

static void test_peg_in_hole(void) {
    double hole_profile[] = {0.505, 1.0, 0.505, -0.8};
    double peg_profile[] = {0.0, -0.6, 0.45, -0.6, 0.5, -0.55, 0.5, 0.9, 0.0, 0.9};
    osc_brep *hole, *peg;
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(1, 1, 1), hole_profile, 2, NULL, &hole), OSC_OK);
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &peg), OSC_OK);
    osc_brep_info info;
    osc_brep_get_info(hole, &info);
    CHECK(info.face_count == 8);
    CHECK(info.concave_edge_count == 1); // the hole's bottom rim
    osc_brep_get_info(peg, &info);
    CHECK(info.face_count == 4 && info.convex_edge_count == 3);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.02;
    s.conformal_samples = 8;
    // coaxial, inserted: the peg's upper rim is out of the hole; the conformal circles are the
    // hole's top rim against the peg's cylinder and the peg's lower rim against the hole's wall
    osc_pose pp = osc_pose_make(osc_v3(0, 0, 0.0), osc_quat_identity());
    int n = query(hole, osc_pose_identity(), peg, pp, &s, NULL, g_contacts);
    CHECK(n == 16);
    for (int i = 0; i < n; i++) {
        CHECK(g_contacts[i].flags == OSC_LMD_CONFORMAL);
        CHECK_NEAR(g_contacts[i].distance, 0.005, 1e-12);
    }
    // off axis by 2e-3 (less than the clearance): isolated contacts on the near side only
    pp.p.x = 0.002;
    n = query(hole, osc_pose_identity(), peg, pp, &s, NULL, g_contacts);
    CHECK(n == 2);
    for (int i = 0; i < n; i++) {
        CHECK(g_contacts[i].flags == 0);
        CHECK_NEAR(g_contacts[i].distance, 0.003, 1e-10);
        CHECK(g_contacts[i].normal.x < -0.999 || g_contacts[i].normal.x > 0.999);
    }
    osc_brep_destroy(hole);
    osc_brep_destroy(peg);
}

// ---- thesis Fig. 1.15: a box tilting on a plane keeps its quasi-LMD contacts --------------------

static void test_box_tilt(void) {
    osc_brep *table, *box;
    CHECK_STATUS(osc_brep_create_box(osc_v3(2, 2, 0.5), NULL, &table), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.3, 0.2), NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.2;
    s.alpha = 0.05;
    uint64_t keys0[16];
    int n0 = -1;
    const double tilts[] = {-0.04, -0.02, -0.005, 0.0, 0.005, 0.02, 0.04};
    for (int t = 0; t < 7; t++) {
        double th = tilts[t];
        // rotate about the box's centre at height 0.5 + 0.2 + 0.01 + lifted so no corner dips
        osc_pose pb = osc_pose_make(osc_v3(0, 0, 0.5 + 0.01 + 0.2 * cos(th) + 0.3 * fabs(sin(th))),
                                    osc_quat_from_axis_angle(osc_v3(1, 0, 0), th));
        int n = query(table, osc_pose_identity(), box, pb, &s, NULL, g_contacts);
        CHECK_MSG(n == 4, "tilt %g: %d contacts", th, n);
        uint64_t keys[16];
        for (int i = 0; i < n && i < 16; i++) {
            CHECK(g_contacts[i].kind_a == OSC_FEATURE_FACE && g_contacts[i].kind_b == OSC_FEATURE_VERTEX);
            keys[i] = ((uint64_t)g_contacts[i].feature_a << 32) | (uint64_t)g_contacts[i].feature_b;
        }
        if (n0 < 0) {
            n0 = n;
            memcpy(keys0, keys, sizeof keys);
        } else {
            CHECK(n == n0 && memcmp(keys, keys0, (size_t)n * sizeof(uint64_t)) == 0);
        }
    }
    // beyond the dilation angle the two raised corners lose their contacts
    osc_pose pb = osc_pose_make(osc_v3(0, 0, 0.5 + 0.01 + 0.2 * cos(0.15) + 0.3 * sin(0.15)),
                                osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.15));
    int n = query(table, osc_pose_identity(), box, pb, &s, NULL, g_contacts);
    CHECK_MSG(n == 2, "tilt 0.15: %d contacts", n);
    osc_brep_destroy(table);
    osc_brep_destroy(box);
}

// ---- a spindle torus (r > R): the lemon-shaped branch where R + r cos v < 0 -----------------------

static const double k_lemon_R = 0.1, k_lemon_r = 0.4, k_lemon_beta = 0.96; // rim at v = pi -+ beta

// A convex lens: the inner branch of a spindle torus for v in [pi - beta, pi + beta], closed by two
// discs at z = +-r sin(beta) of radius r cos(beta) - R (the screw head's dome in tests/test_brep_step.c
// is such a face). `vmin` and `vmax` override the torus face's v range (for the refusal test).
static osc_status create_lemon(double vmin, double vmax, double R, osc_brep** out) {
    const double r = k_lemon_r, h = r * sin(k_lemon_beta), rim = r * cos(k_lemon_beta) - R;
    osc_brep_surface surfaces[3];
    memset(surfaces, 0, sizeof surfaces);
    surfaces[0].type = OSC_SURFACE_TORUS;
    surfaces[0].axis = osc_v3(0, 0, 1);
    surfaces[0].ref = osc_v3(1, 0, 0);
    surfaces[0].radius = R;
    surfaces[0].radius2 = r;
    surfaces[0].sense = 1; // away from the tube's centre: out of the lens
    for (int k = 1; k < 3; k++) {
        surfaces[k].type = OSC_SURFACE_PLANE;
        surfaces[k].origin = osc_v3(0, 0, k == 1 ? h : -h);
        surfaces[k].axis = osc_v3(0, 0, k == 1 ? 1 : -1);
        surfaces[k].ref = osc_v3(1, 0, 0);
        surfaces[k].sense = 1;
    }
    osc_brep_trim trims[2];
    memset(trims, 0, sizeof trims);
    osc_brep_loop loops[2];
    osc_brep_face faces[3] = {
        {0, 0, 0, -TEST_PI, TEST_PI, vmin, vmax}, {1, 0, 1, -rim, rim, -rim, rim}, {2, 1, 1, -rim, rim, -rim, rim}};
    osc_brep_edge edges[2];
    memset(edges, 0, sizeof edges);
    for (int k = 0; k < 2; k++) {
        trims[k].kind = OSC_TRIM_ARC;
        trims[k].radius = rim;
        trims[k].sweep = 2.0 * TEST_PI;
        loops[k].trim_begin = k;
        loops[k].trim_count = 1;
        edges[k].type = OSC_CURVE_CIRCLE;
        edges[k].origin = osc_v3(0, 0, k == 0 ? h : -h);
        edges[k].axis = osc_v3(0, 0, 1);
        edges[k].ref = osc_v3(1, 0, 0);
        edges[k].radius = rim;
        edges[k].t1 = 2.0 * TEST_PI;
        edges[k].face[0] = 0;
        edges[k].face[1] = k + 1;
        edges[k].vertex[0] = edges[k].vertex[1] = -1;
    }
    osc_brep_desc d = {surfaces, 3, faces, 3, loops, 2, trims, 2, edges, 2, NULL, 0};
    return osc_brep_create(&d, NULL, out);
}

static void test_spindle_torus(void) {
    const double R = k_lemon_R, r = k_lemon_r, beta = k_lemon_beta;
    osc_brep *lemon = NULL, *sphere = NULL, *bad = NULL;
    CHECK_STATUS(create_lemon(TEST_PI - beta, TEST_PI + beta, R, &lemon), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.1, NULL, &sphere), OSC_OK);
    // a face across the cusp (cos v = -R / r) is refused, and so is a horn torus (r = R)
    CHECK_STATUS(create_lemon(0.5, TEST_PI + beta, R, &bad), OSC_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL && strstr(osc_last_error(), "faces[0] crosses the cusp") != NULL);
    CHECK_STATUS(create_lemon(TEST_PI - beta, TEST_PI + beta, r, &bad), OSC_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL && strstr(osc_last_error(), "radius2") != NULL);
    if (!lemon || !sphere) return;
    // the face is convex: a sphere centred at c, in the meridian half-plane of c, sees the tube circle
    // centred across the axis at (-R, 0): gap |c - (-R, 0)| - r - 0.1, footpoint on that ray
    osc_lmd_settings s = osc_lmd_settings_default();
    int checked = 0;
    for (int i = 0; i < 12; i++) {
        double phi = 0.5 * i, v = TEST_PI + (-0.8 + 1.6 * i / 11.0) * beta, dist = 0.05 + 0.02 * i;
        // v is the parameter of the footpoint at u = phi + pi, which lies in the half-plane of phi
        osc_vec3 e = osc_v3(cos(phi), sin(phi), 0);
        double rho = -(R + r * cos(v)), z = r * sin(v); // footpoint in that half-plane
        double nr = -cos(v), nz = sin(v);               // its outward normal
        osc_vec3 foot = osc_add(osc_scale(e, rho), osc_v3(0, 0, z));
        osc_vec3 c = osc_add(foot, osc_add(osc_scale(e, nr * (dist + 0.1)), osc_v3(0, 0, nz * (dist + 0.1))));
        int n = query(lemon, osc_pose_identity(), sphere, osc_pose_make(c, osc_quat_identity()), &s, NULL, g_contacts);
        CHECK_MSG(n == 1, "lemon %d: %d contacts", i, n);
        if (n != 1) continue;
        double expected = hypot(hypot(c.x, c.y) + R, c.z) - r - 0.1;
        CHECK_NEAR(expected, dist, 1e-12);
        CHECK_NEAR(g_contacts[0].distance, dist, 1e-10);
        CHECK(g_contacts[0].kind_a == OSC_FEATURE_FACE && g_contacts[0].feature_a == 0);
        CHECK_NEAR(osc_length(osc_sub(g_contacts[0].point_a, foot)), 0.0, 1e-9);
        // parameters on the face's branch: u across the axis, v as placed
        CHECK_NEAR(cos(g_contacts[0].param_a[0]), -cos(phi), 1e-9);
        CHECK_NEAR(sin(g_contacts[0].param_a[0]), -sin(phi), 1e-9);
        CHECK_NEAR(cos(g_contacts[0].param_a[1]), cos(v), 1e-9);
        CHECK_NEAR(sin(g_contacts[0].param_a[1]), sin(v), 1e-9);
        checked++;
    }
    CHECK(checked == 12);
    // the public projection takes the branch nearer the point
    const osc_brep_desc* d = osc_brep_description(lemon);
    double uv[2];
    osc_vec3 normal, p = osc_brep_surface_point(&d->surfaces[0], 0.3, TEST_PI + 0.2, &normal);
    CHECK(osc_brep_project(&d->surfaces[0], osc_add(p, osc_scale(normal, 0.01)), uv));
    CHECK_NEAR(cos(uv[0]), cos(0.3), 1e-12);
    CHECK_NEAR(uv[1], -TEST_PI + 0.2, 1e-12);
    osc_brep_destroy(lemon);
    osc_brep_destroy(sphere);
}

// ---- the signed distance to an untrimmed surface (the one-parameter edge-surface search) ---------

static void test_surface_distance(void) {
    test_rng rng = {31};
    osc_brep_surface surfaces[6];
    memset(surfaces, 0, sizeof surfaces);
    const osc_surface_type types[6] = {OSC_SURFACE_PLANE,  OSC_SURFACE_CYLINDER, OSC_SURFACE_CONE,
                                       OSC_SURFACE_SPHERE, OSC_SURFACE_TORUS,    OSC_SURFACE_TORUS};
    for (int k = 0; k < 6; k++) {
        surfaces[k].type = types[k];
        surfaces[k].origin = osc_v3(0.1, -0.2, 0.3);
        surfaces[k].axis = osc_normalize(osc_v3(0.2, 0.3, 1.0));
        surfaces[k].ref = osc_normalize(osc_cross(surfaces[k].axis, osc_v3(1, 0, 0)));
        surfaces[k].radius = 0.7;
        surfaces[k].radius2 = k == 5 ? 1.9 : 0.25; // the last: a spindle torus, inner branch
        surfaces[k].angle = 0.4;
        surfaces[k].sense = 1;
    }
    double worst_foot = 0.0, worst_grad = 0.0, worst_hess = 0.0;
    int checked = 0;
    for (int k = 0; k < 6; k++) {
        osc_geo g = osc_geo_from_surface(&surfaces[k]);
        if (k == 5) g.branch = -1;
        for (int trial = 0; trial < 40; trial++) {
            // a point at a known offset along the normal of a surface point on the branch wanted
            double uv[2] = {test_uniform(&rng, -3, 3), test_uniform(&rng, -0.6, 0.6)};
            if (k == 5) uv[1] += TEST_PI; // R + r cos v < 0
            osc_vec3 p, n, grad;
            osc_geo_eval(&g, uv, &p, NULL, NULL);
            n = osc_geo_normal(&g, uv[0], uv[1]);
            double offset = test_uniform(&rng, -0.1, 0.2);
            osc_vec3 x = osc_add(p, osc_scale(n, offset));
            double sd, H[3][3];
            if (!osc_geo_distance(&g, x, &sd, &grad, H)) continue;
            checked++;
            CHECK_NEAR(sd, offset, 1e-12);
            worst_foot = fmax(worst_foot, osc_length(osc_sub(osc_sub(x, osc_scale(grad, sd)), p)));
            // central differences of sd (against grad) and of grad (against H)
            const double h = 1e-6;
            for (int i = 0; i < 3; i++) {
                osc_vec3 e = osc_v3(i == 0, i == 1, i == 2);
                double s1, s2, H1[3][3], H2[3][3];
                osc_vec3 g1, g2;
                osc_geo_distance(&g, osc_add(x, osc_scale(e, h)), &s1, &g1, H1);
                osc_geo_distance(&g, osc_sub(x, osc_scale(e, h)), &s2, &g2, H2);
                const double gi[3] = {grad.x, grad.y, grad.z};
                worst_grad = fmax(worst_grad, fabs((s1 - s2) / (2 * h) - gi[i]));
                osc_vec3 dg = osc_scale(osc_sub(g1, g2), 1.0 / (2 * h));
                worst_hess = fmax(worst_hess, fabs(dg.x - H[0][i]) + fabs(dg.y - H[1][i]) + fabs(dg.z - H[2][i]));
            }
        }
    }
    printf("  surface distance: %d points on 6 surfaces, foot %.1e, gradient %.1e, Hessian %.1e\n", checked, worst_foot,
           worst_grad, worst_hess);
    CHECK(checked >= 200);
    CHECK(worst_foot < 1e-12 && worst_grad < 1e-8 && worst_hess < 1e-6);
    // undefined on the axis, and beyond a cone's apex
    osc_geo cyl = osc_geo_from_surface(&surfaces[1]);
    double sd, H[3][3];
    osc_vec3 grad;
    CHECK(!osc_geo_distance(&cyl, osc_add(surfaces[1].origin, surfaces[1].axis), &sd, &grad, H));
    osc_geo cone = osc_geo_from_surface(&surfaces[2]);
    osc_vec3 beyond =
        osc_add(surfaces[2].origin, osc_add(osc_scale(surfaces[2].axis, -5.0), osc_scale(surfaces[2].ref, 0.5)));
    CHECK(!osc_geo_distance(&cone, beyond, &sd, &grad, H));
    CHECK(osc_geo_distance(&cone, osc_add(surfaces[2].origin, osc_scale(surfaces[2].ref, 0.5)), &sd, &grad, H));
}

// ---- brute force: dense samples of A's boundary against B's exact distance -----------------------

typedef struct sampled {
    double h_min;
    int misses, minima;
} sampled;

// Samples A's faces (n x n grids) and edges; checks that every interior discrete local minimum of
// the distance to B below d_max whose direction to B leaves A (along A's outward normal: the
// definition of an LMD, thesis §1.3, excludes lines of sight through A) has a reported contact on
// that feature nearby.
static sampled brute_force(const osc_brep* a, osc_pose pa, const osc_sdf* sdf_b, osc_pose pb, double d_max,
                           const osc_lmd_contact* c, int nc) {
    enum { N = 64 };
    static double h[N][N];
    static osc_vec3 p[N][N];
    static int in[N][N], outward[N][N];
    sampled r = {INFINITY, 0, 0};
    const osc_brep_desc* d = osc_brep_description(a);
    for (int f = 0; f < d->face_count; f++) {
        const osc_brep_face* face = &d->faces[f];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double u = face->umin + (face->umax - face->umin) * i / (N - 1);
                double v = face->vmin + (face->vmax - face->vmin) * j / (N - 1);
                in[i][j] = osc_brep_face_contains(a, f, u, v);
                osc_vec3 normal, grad;
                p[i][j] = osc_pose_apply(pa, osc_brep_surface_point(&d->surfaces[face->surface], u, v, &normal));
                h[i][j] = osc_sdf_eval(sdf_b, osc_pose_apply_inverse(pb, p[i][j]), &grad, NULL);
                // B's gradient (in B's frame) against A's normal (in A's frame), both to world
                outward[i][j] = osc_dot(osc_quat_rotate(pb.q, grad), osc_quat_rotate(pa.q, normal)) < 0.0;
                if (in[i][j]) r.h_min = fmin(r.h_min, h[i][j]);
            }
        for (int i = 1; i + 1 < N; i++)
            for (int j = 1; j + 1 < N; j++) {
                bool minimum = in[i][j] && outward[i][j] && h[i][j] < 0.9 * d_max;
                double spacing = 0.0;
                for (int di = -1; di <= 1 && minimum; di++)
                    for (int dj = -1; dj <= 1; dj++) {
                        if (!di && !dj) continue;
                        if (!in[i + di][j + dj] || h[i + di][j + dj] <= h[i][j]) minimum = false;
                        spacing = fmax(spacing, osc_length(osc_sub(p[i + di][j + dj], p[i][j])));
                    }
                if (!minimum) continue;
                r.minima++;
                bool found = false;
                for (int k = 0; k < nc && !found; k++)
                    found =
                        osc_length(osc_sub(c[k].point_a, p[i][j])) <= 2.0 * spacing && c[k].distance <= h[i][j] + 1e-9;
                if (!found) r.misses++;
            }
    }
    for (int e = 0; e < d->edge_count; e++) {
        osc_geo g = osc_geo_from_edge(&d->edges[e]);
        enum { M = 400 };
        for (int i = 0; i < M; i++) {
            double t = d->edges[e].t0 + (d->edges[e].t1 - d->edges[e].t0) * i / (M - 1);
            osc_vec3 q;
            osc_geo_eval(&g, &t, &q, NULL, NULL);
            q = osc_pose_apply(pa, q);
            r.h_min = fmin(r.h_min, osc_sdf_eval(sdf_b, osc_pose_apply_inverse(pb, q), NULL, NULL));
        }
    }
    return r;
}

static void test_brute_force(void) {
    test_rng rng = {20261121};
    osc_brep* solids[7];
    double hole_profile[] = {0.35, 0.5, 0.35, -0.2, 0.2, -0.3};
    double peg_profile[] = {0.0, -0.5, 0.3, -0.5, 0.4, -0.3, 0.4, 0.5, 0.0, 0.5};
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.4, 0.3), NULL, &solids[0]), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.35, 0.5, NULL, &solids[1]), OSC_OK);
    CHECK_STATUS(osc_brep_create_cone(0.5, 0.2, 0.4, NULL, &solids[2]), OSC_OK);
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(0.6, 0.6, 0.5), hole_profile, 3, NULL, &solids[3]), OSC_OK);
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &solids[4]), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.45, NULL, &solids[5]), OSC_OK);
    CHECK_STATUS(create_lemon(TEST_PI - k_lemon_beta, TEST_PI + k_lemon_beta, k_lemon_R, &solids[6]), OSC_OK);
    // B: convex solids with an exact SDF
    osc_brep* bs[3];
    osc_sdf* sdfs[3];
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &bs[0]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.3, &sdfs[0]), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.3, 0.2, 0.25), NULL, &bs[1]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.3, 0.2, 0.25), 0.0, &sdfs[1]), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.25, 0.3, NULL, &bs[2]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_cylinder(0.25, 0.3, &sdfs[2]), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.6;
    s.alpha = 0.0;
    int trials = 0, minima = 0, misses = 0, naive_mismatch = 0, spurious_checked = 0;
    double spurious_worst = INFINITY;
    for (int trial = 0; trial < 70; trial++) {
        int ia = trial % 7, ib = (trial / 7) % 3;
        osc_pose pa = random_pose(&rng, 0.0);
        osc_pose pb;
        sampled r;
        int n = 0;
        // place B near A, separated
        for (int tries = 0; tries < 50; tries++) {
            pb = random_pose(&rng, 1.0);
            r = brute_force(solids[ia], pa, sdfs[ib], pb, s.d_max, NULL, 0);
            if (r.h_min > 0.03 && r.h_min < 0.4) break;
            r.h_min = -1.0;
        }
        if (r.h_min < 0.0) continue;
        trials++;
        n = query(solids[ia], pa, bs[ib], pb, &s, NULL, g_contacts);
        r = brute_force(solids[ia], pa, sdfs[ib], pb, s.d_max, g_contacts, n);
        minima += r.minima;
        misses += r.misses;
        double reported = INFINITY;
        for (int k = 0; k < n; k++) {
            reported = fmin(reported, g_contacts[k].distance);
            // footpoints: B's on B's boundary, A's at the distance to B
            double hb = osc_sdf_eval(sdfs[ib], osc_pose_apply_inverse(pb, g_contacts[k].point_b), NULL, NULL);
            double ha = osc_sdf_eval(sdfs[ib], osc_pose_apply_inverse(pb, g_contacts[k].point_a), NULL, NULL);
            CHECK_NEAR(hb, 0.0, 1e-8);
            CHECK_NEAR(ha, g_contacts[k].distance, 1e-8);
            // none is spurious (alpha 0: each a local minimum): A's footpoint moved along its face
            // or edge is no nearer to B
            const osc_lmd_contact* c = &g_contacts[k];
            const osc_brep_desc* da = osc_brep_description(solids[ia]);
            for (int m = 0; m < 8 && c->kind_a != OSC_FEATURE_VERTEX; m++) {
                osc_vec3 q;
                if (c->kind_a == OSC_FEATURE_FACE) {
                    double u = c->param_a[0] + 1e-3 * cos(m * TEST_PI / 4),
                           v = c->param_a[1] + 1e-3 * sin(m * TEST_PI / 4);
                    if (!osc_brep_face_contains(solids[ia], c->feature_a, u, v)) continue;
                    q = osc_brep_surface_point(&da->surfaces[da->faces[c->feature_a].surface], u, v, NULL);
                } else {
                    const osc_brep_edge* e = &da->edges[c->feature_a];
                    double t = c->param_a[0] + (m == 0 ? 1e-3 : -1e-3);
                    if (m > 1) break;
                    if (t < e->t0 || t > e->t1) continue;
                    osc_geo g = osc_geo_from_edge(e);
                    osc_geo_eval(&g, &t, &q, NULL, NULL);
                }
                double hq = osc_sdf_eval(sdfs[ib], osc_pose_apply_inverse(pb, osc_pose_apply(pa, q)), NULL, NULL);
                spurious_worst = fmin(spurious_worst, hq - c->distance);
                spurious_checked++;
            }
        }
        // the global minimum is reported, and no sample is closer than it
        CHECK_MSG(reported <= r.h_min + 1e-9 && reported >= r.h_min - 0.02,
                  "trial %d (A %d, B %d): reported %g, sampled %g", trial, ia, ib, reported, r.h_min);
        // the naive all-pairs search finds the same contacts
        osc_lmd_settings naive = s;
        naive.culling = 0;
        int m = query(solids[ia], pa, bs[ib], pb, &naive, NULL, g_other);
        bool same = m == n;
        for (int k = 0; k < n && same; k++)
            same = g_other[k].feature_a == g_contacts[k].feature_a && g_other[k].feature_b == g_contacts[k].feature_b &&
                   fabs(g_other[k].distance - g_contacts[k].distance) < 1e-9;
        if (!same) naive_mismatch++;
    }
    printf("  brute force: %d trials, %d sampled local minima, %d missed, %d naive mismatches\n", trials, minima,
           misses, naive_mismatch);
    printf("  spurious: %d neighbours of reported footpoints, the nearest %.2e beyond its contact\n", spurious_checked,
           spurious_worst);
    CHECK(spurious_checked > 100 && spurious_worst >= -1e-10);
    CHECK(trials >= 60);
    CHECK(minima > 20);
    CHECK(misses == 0);
    CHECK(naive_mismatch == 0);
    for (int i = 0; i < 7; i++) osc_brep_destroy(solids[i]);
    for (int i = 0; i < 3; i++) {
        osc_brep_destroy(bs[i]);
        osc_sdf_destroy(sdfs[i]);
    }
}

// ---- culling on and off agree, and every contact is a local minimum -------------------------------

// A cylinder as STEP writers describe it (the OpenCASCADE screw's are so): each rim circle starts
// and ends at a vertex on a seam line, the cylinder face on both sides of the seam. The rims'
// vertices are smooth points of convex edges: their normal cone is that of the rim there.
static osc_status create_seamed_cylinder(double radius, double half_height, osc_brep** out) {
    osc_brep_surface surfaces[3];
    memset(surfaces, 0, sizeof surfaces);
    surfaces[0].type = OSC_SURFACE_CYLINDER;
    surfaces[0].axis = osc_v3(0, 0, 1);
    surfaces[0].ref = osc_v3(1, 0, 0);
    surfaces[0].radius = radius;
    surfaces[0].sense = 1;
    for (int k = 1; k < 3; k++) {
        surfaces[k].type = OSC_SURFACE_PLANE;
        surfaces[k].origin = osc_v3(0, 0, k == 1 ? half_height : -half_height);
        surfaces[k].axis = osc_v3(0, 0, k == 1 ? 1 : -1);
        surfaces[k].ref = osc_v3(1, 0, 0);
        surfaces[k].sense = 1;
    }
    osc_brep_trim trims[2];
    memset(trims, 0, sizeof trims);
    osc_brep_loop loops[2];
    osc_brep_edge edges[3];
    memset(edges, 0, sizeof edges);
    for (int k = 0; k < 2; k++) {
        trims[k].kind = OSC_TRIM_ARC;
        trims[k].radius = radius;
        trims[k].sweep = 2.0 * TEST_PI;
        loops[k].trim_begin = k;
        loops[k].trim_count = 1;
        edges[k].type = OSC_CURVE_CIRCLE;
        edges[k].origin = surfaces[k + 1].origin;
        edges[k].axis = osc_v3(0, 0, 1);
        edges[k].ref = osc_v3(1, 0, 0);
        edges[k].radius = radius;
        edges[k].t1 = 2.0 * TEST_PI;
        edges[k].face[0] = 0;
        edges[k].face[1] = k + 1;
        edges[k].vertex[0] = edges[k].vertex[1] = k;
    }
    edges[2].type = OSC_CURVE_LINE; // the seam, from the top vertex down
    edges[2].origin = osc_v3(radius, 0, half_height);
    edges[2].axis = osc_v3(0, 0, -1);
    edges[2].t1 = 2.0 * half_height;
    edges[2].face[0] = edges[2].face[1] = 0;
    edges[2].vertex[0] = 0;
    edges[2].vertex[1] = 1;
    osc_brep_face faces[3] = {{0, 0, 0, 0.0, 2.0 * TEST_PI, -half_height, half_height},
                              {1, 0, 1, -radius, radius, -radius, radius},
                              {2, 1, 1, -radius, radius, -radius, radius}};
    osc_vec3 vertices[2] = {{radius, 0, half_height}, {radius, 0, -half_height}};
    osc_brep_desc d = {surfaces, 3, faces, 3, loops, 2, trims, 2, edges, 3, vertices, 2};
    return osc_brep_create(&d, NULL, out);
}

// Points of a solid's boundary in world coordinates: each face on an n x n grid of its parameter
// box (inside its loops), each edge at 4 n points.
typedef struct boundary_samples {
    osc_vec3* points;
    int count;
} boundary_samples;

static boundary_samples sample_boundary(const osc_brep* brep, osc_pose pose, int n) {
    const osc_brep_desc* d = osc_brep_description(brep);
    boundary_samples s = {malloc((size_t)(d->face_count * n * n + d->edge_count * 4 * n) * sizeof(osc_vec3)), 0};
    for (int f = 0; f < d->face_count; f++) {
        const osc_brep_face* face = &d->faces[f];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double u = face->umin + (face->umax - face->umin) * i / (n - 1);
                double v = face->vmin + (face->vmax - face->vmin) * j / (n - 1);
                if (!osc_brep_face_contains(brep, f, u, v)) continue;
                s.points[s.count++] =
                    osc_pose_apply(pose, osc_brep_surface_point(&d->surfaces[face->surface], u, v, NULL));
            }
    }
    for (int e = 0; e < d->edge_count; e++) {
        osc_geo g = osc_geo_from_edge(&d->edges[e]);
        for (int i = 0; i < 4 * n; i++) {
            double t = d->edges[e].t0 + (d->edges[e].t1 - d->edges[e].t0) * i / (4 * n - 1);
            osc_vec3 q;
            osc_geo_eval(&g, &t, &q, NULL, NULL);
            s.points[s.count++] = osc_pose_apply(pose, q);
        }
    }
    return s;
}

// The least distance between samples of A within `radius` of a and samples of B within `radius`
// of b.
static double nearest_pair_near(const boundary_samples* sa, osc_vec3 a, const boundary_samples* sb, osc_vec3 b,
                                double radius) {
    static osc_vec3 near_b[1 << 16];
    int count_b = 0;
    for (int j = 0; j < sb->count && count_b < (1 << 16); j++)
        if (osc_length(osc_sub(sb->points[j], b)) <= radius) near_b[count_b++] = sb->points[j];
    double best = INFINITY;
    for (int i = 0; i < sa->count; i++) {
        if (osc_length(osc_sub(sa->points[i], a)) > radius) continue;
        for (int j = 0; j < count_b; j++) best = fmin(best, osc_length(osc_sub(sa->points[i], near_b[j])));
    }
    return best;
}

static bool same_contact_set(const osc_lmd_contact* x, int nx, const osc_lmd_contact* y, int ny) {
    if (nx != ny) return false;
    for (int k = 0; k < nx; k++)
        if (x[k].key != y[k].key || x[k].kind_a != y[k].kind_a || x[k].feature_a != y[k].feature_a ||
            x[k].kind_b != y[k].kind_b || x[k].feature_b != y[k].feature_b ||
            osc_length(osc_sub(x[k].point_a, y[k].point_a)) > 1e-7 ||
            osc_length(osc_sub(x[k].point_b, y[k].point_b)) > 1e-7)
            return false;
    return true;
}

typedef struct agreement {
    int poses, contacts, mismatches, not_minima;
    double worst; // the nearest neighbouring pair's distance over its contact's
} agreement;

// Queries A and B with culling on and off (alpha 0): the same contacts (features, keys,
// footpoints), and no pair of boundary samples within a tenth of a contact's distance of its
// footpoints nearer than it.
static void check_agreement(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, double d_max,
                            const char* label, agreement* r) {
    osc_lmd_settings s = osc_lmd_settings_default();
    s.alpha = 0.0;
    s.d_max = d_max;
    int n = query(a, pa, b, pb, &s, NULL, g_contacts);
    s.culling = 0;
    int m = query(a, pa, b, pb, &s, NULL, g_other);
    r->poses++;
    if (!same_contact_set(g_contacts, n, g_other, m)) {
        r->mismatches++;
        printf("  %s: %d contacts with culling, %d without\n", label, n, m);
    }
    boundary_samples sa = sample_boundary(a, pa, 80), sb = sample_boundary(b, pb, 80);
    for (int pass = 0; pass < 2; pass++) {
        const osc_lmd_contact* set = pass ? g_other : g_contacts;
        for (int k = 0; k < (pass ? m : n); k++) {
            const osc_lmd_contact* c = &set[k];
            double ratio = nearest_pair_near(&sa, c->point_a, &sb, c->point_b, 0.1 * c->distance) / c->distance;
            r->worst = fmin(r->worst, ratio);
            r->contacts++;
            if (ratio < 1.0 - 1e-9) {
                r->not_minima++;
                printf("  %s, culling %s: a contact (kinds %d, %d) at %g has a pair %.1f %% nearer\n", label,
                       pass ? "off" : "on", c->kind_a, c->kind_b, c->distance, 100.0 * (1.0 - ratio));
            }
        }
    }
    free(sa.points);
    free(sb.points);
}

// Culling on and off agree and every contact is a local minimum: spheres placed in the meridian
// half-plane of the seamed cylinder's rim vertices (over its top, beside its wall), and random
// poses of nine solids against each other (the seamed cylinder, the grooved peg's and the stepped
// hole's edges, the spindle-torus lens, and the OpenCASCADE screw when `make models` fetched it).
// Before, the vertex polar tested the edge tangents alone: a rim vertex, or a vertex of the screw
// whose edges were skipped, passed directions pointing into its faces, and culling off reported
// them (neighbouring pairs 5-27 % nearer); the normal cones of the culling tests had refused them.
static void test_culling_agrees(void) {
    double hole_profile[] = {0.35, 0.5, 0.35, -0.2, 0.2, -0.3};
    double peg_profile[] = {0.0, -0.5, 0.3, -0.5, 0.4, -0.3, 0.4, 0.5, 0.0, 0.5};
    osc_brep* solids[10] = {NULL};
    osc_brep* ball = NULL;
    int count = 9;
    CHECK_STATUS(create_seamed_cylinder(0.35, 0.4, &solids[0]), OSC_OK);
    CHECK_STATUS(create_seamed_cylinder(0.2, 0.3, &solids[1]), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.4, 0.3), NULL, &solids[2]), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.35, 0.5, NULL, &solids[3]), OSC_OK);
    CHECK_STATUS(osc_brep_create_cone(0.5, 0.2, 0.4, NULL, &solids[4]), OSC_OK);
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(0.6, 0.6, 0.5), hole_profile, 3, NULL, &solids[5]), OSC_OK);
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &solids[6]), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.45, NULL, &solids[7]), OSC_OK);
    CHECK_STATUS(create_lemon(TEST_PI - k_lemon_beta, TEST_PI + k_lemon_beta, k_lemon_R, &solids[8]), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.2, NULL, &ball), OSC_OK);
    FILE* screw_file = fopen(OSC_MODEL_DIR "/cad/screw.step", "rb");
    if (screw_file) { // about 50 mm long: d_max and the poses scale with the solids
        fclose(screw_file);
        CHECK_STATUS(osc_brep_load_step(OSC_MODEL_DIR "/cad/screw.step", 1, NULL, &solids[count], NULL), OSC_OK);
        if (solids[count]) count++;
    }
    for (int i = 0; i < count; i++)
        if (!solids[i]) return;
    if (!ball) return;
    agreement r = {0, 0, 0, 0, INFINITY};
    char label[96];
    // the seamed cylinder (radius 0.35, top at 0.4) and a ball of radius 0.2 whose centre lies in
    // the half-plane y = 0, x > 0 of the rim vertices: over the top, beside the wall
    for (int k = 0; k < 6; k++) {
        osc_vec3 centre = k < 3 ? osc_v3(0.15 * k, 0, 0.65) : osc_v3(0.6, 0, 0.3 - 0.3 * (k - 3));
        snprintf(label, sizeof label, "ball at (%g, 0, %g) by the rim vertices", centre.x, centre.z);
        check_agreement(solids[0], osc_pose_identity(), ball, osc_pose_make(centre, osc_quat_identity()), 0.5, label,
                        &r);
    }
    int aligned = r.poses;
    test_rng rng = {4242};
    for (int trial = 0; trial < 3 * count; trial++) {
        int ia = trial % count, ib = (trial / count + ia + 1) % count;
        osc_brep_info info_a, info_b;
        osc_brep_get_info(solids[ia], &info_a);
        osc_brep_get_info(solids[ib], &info_b);
        double size = fmax(osc_length(osc_sub(info_a.hi, info_a.lo)), osc_length(osc_sub(info_b.hi, info_b.lo)));
        osc_vec3 centre_a = osc_scale(osc_add(info_a.lo, info_a.hi), 0.5);
        osc_vec3 centre_b = osc_scale(osc_add(info_b.lo, info_b.hi), 0.5);
        osc_pose pa = osc_pose_make(osc_scale(centre_a, -1.0), osc_quat_identity()), pb;
        // B near A, apart (coarse samples)
        boundary_samples sa = sample_boundary(solids[ia], pa, 16), sb = {NULL, 0};
        bool placed = false;
        for (int tries = 0; tries < 50 && !placed; tries++) {
            pb = random_pose(&rng, 0.6 * size);
            pb.p = osc_sub(pb.p, osc_quat_rotate(pb.q, centre_b));
            free(sb.points);
            sb = sample_boundary(solids[ib], pb, 16);
            double gap = nearest_pair_near(&sa, osc_v3(0, 0, 0), &sb, osc_v3(0, 0, 0), INFINITY);
            placed = gap > 0.02 * size && gap < 0.3 * size;
        }
        free(sa.points);
        free(sb.points);
        if (!placed) continue;
        snprintf(label, sizeof label, "solids %d and %d", ia, ib);
        check_agreement(solids[ia], pa, solids[ib], pb, 0.4 * size, label, &r);
    }
    printf("  culling on and off: %d poses by the rim vertices and %d random of %d solids, %d contacts, %d sets "
           "differ, %d not local minima (the nearest neighbouring pair at %.6f of the distance)\n",
           aligned, r.poses - aligned, count, r.contacts, r.mismatches, r.not_minima, r.worst);
    CHECK(r.poses - aligned >= 2 * count);
    CHECK(r.contacts > 3 * count);
    CHECK(r.mismatches == 0);
    CHECK(r.not_minima == 0);
    for (int i = 0; i < count; i++) osc_brep_destroy(solids[i]);
    osc_brep_destroy(ball);
}

// ---- Table 2.2: incompatible surface pairs have no isolated minima --------------------------------

static void test_incompatible_pairs(void) {
    // with culling off every leaf pair reaches Newton's method; pairs of Table 2.2's crosses must
    // never give an (isolated) contact
    test_rng rng = {7};
    double hole_profile[] = {0.3, 0.5, 0.3, -0.3};
    osc_brep *box, *cyl, *hole;
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.5, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.2, 0.4, NULL, &cyl), OSC_OK);
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(0.6, 0.6, 0.5), hole_profile, 2, NULL, &hole), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 2.0;
    s.culling = 0;
    s.conformal_samples = 0;
    int bad = 0, total = 0;
    const osc_brep* as[2] = {box, hole};
    for (int trial = 0; trial < 40; trial++) {
        const osc_brep* a = as[trial % 2];
        osc_pose pb = random_pose(&rng, 1.5);
        pb.p = osc_add(pb.p, osc_v3(0, 0, 1.6));
        int n = query(a, osc_pose_identity(), cyl, pb, &s, NULL, g_contacts);
        const osc_brep_desc* da = osc_brep_description(a);
        const osc_brep_desc* db = osc_brep_description(cyl);
        for (int k = 0; k < n; k++) {
            total++;
            if (g_contacts[k].kind_a != OSC_FEATURE_FACE || g_contacts[k].kind_b != OSC_FEATURE_FACE) continue;
            const osc_brep_surface* sa = &da->surfaces[da->faces[g_contacts[k].feature_a].surface];
            const osc_brep_surface* sb = &db->surfaces[db->faces[g_contacts[k].feature_b].surface];
            bool plane_a = sa->type == OSC_SURFACE_PLANE, plane_b = sb->type == OSC_SURFACE_PLANE;
            bool convex_cyl_b = sb->type == OSC_SURFACE_CYLINDER && sb->sense > 0;
            bool concave_a = sa->type != OSC_SURFACE_PLANE && sa->sense < 0;
            if ((plane_a && (plane_b || convex_cyl_b)) || (concave_a && convex_cyl_b)) bad++;
        }
    }
    printf("  incompatible pairs: %d contacts over 40 poses, %d between incompatible faces\n", total, bad);
    CHECK(total > 0);
    CHECK(bad == 0);
    osc_brep_destroy(box);
    osc_brep_destroy(cyl);
    osc_brep_destroy(hole);
}

// ---- gradients against central differences ---------------------------------------------------------

// Central differences of every contact's gap over the 12 twist columns, matched by features and
// footpoints across the perturbed queries; returns the number of columns checked, the worst error.
static int check_gradients(const osc_brep* a, const osc_brep* b, uint64_t seed, int trials, double* worst) {
    test_rng rng = {seed};
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.5;
    s.conformal_samples = 0;
    int checked = 0;
    for (int trial = 0; trial < trials; trial++) {
        osc_pose pa = random_pose(&rng, 0.1), pb = random_pose(&rng, 1.0);
        int n = query(a, pa, b, pb, &s, NULL, g_contacts);
        for (int k = 0; k < n; k++) {
            const osc_lmd_contact* c = &g_contacts[k];
            for (int col = 0; col < 12; col++) {
                double h = 1e-6, val[2];
                bool ok = true;
                for (int sgn = 0; sgn < 2 && ok; sgn++) {
                    double xi[6] = {0};
                    xi[col % 6] = sgn ? -h : h;
                    osc_pose qa = col < 6 ? osc_pose_apply_twist(pa, xi) : pa;
                    osc_pose qb = col < 6 ? pb : osc_pose_apply_twist(pb, xi);
                    int m = query(a, qa, b, qb, &s, NULL, g_other);
                    int best = -1;
                    double bd = INFINITY;
                    for (int j = 0; j < m; j++) {
                        if (g_other[j].feature_a != c->feature_a || g_other[j].feature_b != c->feature_b ||
                            g_other[j].kind_a != c->kind_a || g_other[j].kind_b != c->kind_b)
                            continue;
                        double dd = osc_length(osc_sub(g_other[j].point_a, c->point_a));
                        if (dd < bd) {
                            bd = dd;
                            best = j;
                        }
                    }
                    ok = best >= 0 && bd < 1e-3;
                    if (ok) val[sgn] = g_other[best].gap;
                }
                if (!ok) continue;
                double fd = (val[0] - val[1]) / (2.0 * h);
                *worst = fmax(*worst, fabs(fd - c->gradient[col]));
                checked++;
            }
        }
    }
    return checked;
}

static void test_gradients(void) {
    double peg_profile[] = {0.0, -0.5, 0.3, -0.5, 0.4, -0.3, 0.4, 0.5, 0.0, 0.5};
    osc_brep *peg, *box, *lemon;
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &peg), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.3, 0.4, 0.2), NULL, &box), OSC_OK);
    CHECK_STATUS(create_lemon(TEST_PI - k_lemon_beta, TEST_PI + k_lemon_beta, k_lemon_R, &lemon), OSC_OK);
    double worst = 0.0, worst_lemon = 0.0;
    int checked = check_gradients(peg, box, 99, 30, &worst);
    int checked_lemon = check_gradients(lemon, box, 7, 20, &worst_lemon);
    printf("  gradients: %d columns checked, worst |analytic - central difference| %.2e; spindle torus: "
           "%d, %.2e\n",
           checked, worst, checked_lemon, worst_lemon);
    CHECK(checked > 100 && checked_lemon > 50);
    CHECK(worst < 1e-6 && worst_lemon < 1e-6);
    osc_brep_destroy(peg);
    osc_brep_destroy(box);
    osc_brep_destroy(lemon);
}

// ---- caches and threads give the same contacts ----------------------------------------------------

static void test_coherence(void) {
    double hole_profile[] = {0.42, 0.5, 0.42, 0.3, 0.404, 0.2, 0.404, -0.45};
    double peg_profile[] = {0.0, -0.5, 0.35, -0.5, 0.4, -0.45, 0.4, 0.5, 0.0, 0.5};
    osc_brep *hole, *peg;
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(0.8, 0.8, 0.5), hole_profile, 4, NULL, &hole), OSC_OK);
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &peg), OSC_OK);
    osc_lmd_cache *cache, *cache2;
    CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
    CHECK_STATUS(osc_lmd_cache_create(&cache2), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.02;
    osc_lmd_settings s2 = s;
    s2.threads = 2;
    int mismatches = 0, steps = 0, warm = 0, total = 0;
    for (int step = 0; step < 60; step++) {
        double z = 1.2 - 0.011 * step;
        double wobble = 0.0015 * sin(0.4 * step);
        osc_pose pp = osc_pose_make(osc_v3(wobble, 0.5 * wobble, z),
                                    osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.002 * cos(0.3 * step)));
        int n0 = query(hole, osc_pose_identity(), peg, pp, &s, NULL, g_contacts);
        int n1 = query(hole, osc_pose_identity(), peg, pp, &s, cache, g_other);
        bool same = n0 == n1;
        for (int k = 0; k < n0 && same; k++)
            same = g_contacts[k].feature_a == g_other[k].feature_a && g_contacts[k].feature_b == g_other[k].feature_b &&
                   g_contacts[k].key == g_other[k].key &&
                   osc_length(osc_sub(g_contacts[k].point_a, g_other[k].point_a)) < 1e-7;
        int n2 = query(hole, osc_pose_identity(), peg, pp, &s2, cache2, g_other);
        same = same && n2 == n0;
        for (int k = 0; k < n0 && same; k++)
            same = g_contacts[k].feature_a == g_other[k].feature_a &&
                   osc_length(osc_sub(g_contacts[k].point_a, g_other[k].point_a)) < 1e-7;
        if (!same) mismatches++;
        osc_lmd_stats st;
        osc_lmd_cache_stats(cache, &st);
        warm += st.warm_starts;
        total += n0;
        steps++;
    }
    printf("  coherence: %d steps, %d contacts, %d warm starts, %d mismatches\n", steps, total, warm, mismatches);
    CHECK(total > 50);
    CHECK(warm > 0);
    CHECK(mismatches == 0);
    osc_lmd_cache_destroy(cache);
    osc_lmd_cache_destroy(cache2);
    osc_brep_destroy(hole);
    osc_brep_destroy(peg);
}

// ---- bad input --------------------------------------------------------------------------------------

static void test_bad_input(void) {
    osc_brep* b = NULL;
    CHECK_STATUS(osc_brep_create_box(osc_v3(-1, 1, 1), NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    CHECK(b == NULL);
    CHECK_STATUS(osc_brep_create_cylinder(NAN, 1, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_brep_create_cone(0.0, 1.0, 1.0, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    double apex[] = {0, 0, 1, 1, 0, 2};
    CHECK_STATUS(osc_brep_create_revolved(apex, 3, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_brep_create_revolved(apex, 1, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    // descriptions: bad indices, frames, sizes
    osc_brep_surface surf = {OSC_SURFACE_CYLINDER, {0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 1.0, 0, 0, 1};
    osc_brep_face face = {0, 0, 0, 0.0, 6.28, -1, 1};
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = &surf;
    d.surface_count = 1;
    d.faces = &face;
    d.face_count = 1;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_OK);
    osc_brep_destroy(b);
    surf.axis = osc_v3(0, 0, 2);
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    surf.axis = osc_v3(0, 0, 1);
    surf.radius = -1;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    surf.radius = 1;
    face.surface = 3;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    face.surface = 0;
    face.loop_count = 2;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    face.loop_count = 0;
    surf.type = OSC_SURFACE_CONE;
    surf.angle = 2.0;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_brep_create(NULL, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    // queries
    osc_brep* box;
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 1, 1), NULL, &box), OSC_OK);
    int n;
    osc_pose bad = osc_pose_identity();
    bad.p.x = NAN;
    CHECK_STATUS(osc_lmd_query(box, bad, box, osc_pose_identity(), NULL, NULL, g_contacts, CAP, &n),
                 OSC_ERR_INVALID_ARGUMENT);
    bad = osc_pose_identity();
    bad.q = (osc_quat){0, 0, 0, 0};
    CHECK_STATUS(osc_lmd_query(box, osc_pose_identity(), box, bad, NULL, NULL, g_contacts, CAP, &n),
                 OSC_ERR_INVALID_ARGUMENT);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = -1;
    CHECK_STATUS(osc_lmd_query(box, osc_pose_identity(), box, osc_pose_identity(), &s, NULL, g_contacts, CAP, &n),
                 OSC_ERR_INVALID_ARGUMENT);
    s = osc_lmd_settings_default();
    s.alpha = 1.0;
    CHECK_STATUS(osc_lmd_query(box, osc_pose_identity(), box, osc_pose_identity(), &s, NULL, g_contacts, CAP, &n),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_lmd_query(NULL, osc_pose_identity(), box, osc_pose_identity(), NULL, NULL, g_contacts, CAP, &n),
                 OSC_ERR_INVALID_ARGUMENT);
    // capacity: report the count needed
    osc_brep* cyl;
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.5, NULL, &cyl), OSC_OK);
    s = osc_lmd_settings_default();
    osc_pose up = osc_pose_make(osc_v3(0, 0, 1.6), osc_quat_identity());
    CHECK_STATUS(osc_lmd_query(box, osc_pose_identity(), cyl, up, &s, NULL, g_contacts, 3, &n), OSC_ERR_CAPACITY);
    CHECK(n == 8);
    osc_brep_destroy(box);
    osc_brep_destroy(cyl);
}

// ---- sizes: millions of leaf pairs with the most conformal samples --------------------------------

// A sphere of 29,282 leaves against a box of 74 with culling off: 2.17 million leaf pairs, which
// with 1024 conformal samples each ask for more contact slots than an int counts (the product
// overflowed and the slots were written out of bounds). The contacts must be those of the culled
// query: the one face contact at the closed-form distance.
static void test_many_leaf_pairs(void) {
    osc_brep_settings fine = osc_brep_settings_default(), coarse = osc_brep_settings_default();
    fine.alpha_max = 0.026;
    coarse.plane_cell = 1.0;
    osc_brep *sphere = NULL, *box = NULL;
    CHECK_STATUS(osc_brep_create_sphere(1.0, &fine, &sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 1, 1), &coarse, &box), OSC_OK);
    if (!sphere || !box) return;
    osc_brep_info info_sphere, info_box;
    osc_brep_get_info(sphere, &info_sphere);
    osc_brep_get_info(box, &info_box);
    const double pairs = (double)info_sphere.leaf_count * info_box.leaf_count;
    CHECK_MSG(pairs * 1024 > 2147483647.0, "%g leaf pairs do not overflow an int", pairs);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.conformal_samples = 1024;
    s.culling = 0;
    osc_pose pose_box = osc_pose_make(osc_v3(2.5, 0.1, 0.2), osc_quat_identity());
    osc_lmd_cache* cache = NULL;
    CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
    int n = query(sphere, osc_pose_identity(), box, pose_box, &s, cache, g_contacts);
    osc_lmd_stats stats;
    CHECK_STATUS(osc_lmd_cache_stats(cache, &stats), OSC_OK);
    CHECK_MSG(stats.leaf_pairs == (int)pairs, "%d leaf pairs solved, %g expected", stats.leaf_pairs, pairs);
    s.culling = 1;
    int m = query(sphere, osc_pose_identity(), box, pose_box, &s, NULL, g_other);
    printf("  many leaf pairs: %d x %d leaves, %d contacts without culling, %d with\n", info_sphere.leaf_count,
           info_box.leaf_count, n, m);
    CHECK(n == 1 && m == 1);
    for (int k = 0; k < n && k < m; k++) {
        CHECK(g_contacts[k].key == g_other[k].key);
        CHECK_NEAR(g_contacts[k].distance, 0.5, 1e-12);
        CHECK_NEAR(g_other[k].distance, 0.5, 1e-12);
    }
    osc_lmd_cache_destroy(cache);
    osc_brep_destroy(sphere);
    osc_brep_destroy(box);
}

// ---- threads: clamped, and no team where the work is small ----------------------------------------

// Runs the query on one thread and on `threads`; the contacts must be equal bit for bit. Returns
// the threads the process gained, and the leaf pairs in *leaf_pairs.
static int threads_started(const osc_brep* a, const osc_brep* b, osc_pose pb, osc_lmd_settings s, int threads,
                           int* leaf_pairs) {
    osc_lmd_cache* cache = NULL;
    CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
    s.threads = 1;
    int n = query(a, osc_pose_identity(), b, pb, &s, NULL, g_contacts);
    int before = process_threads();
    s.threads = threads;
    int m = query(a, osc_pose_identity(), b, pb, &s, cache, g_other);
    int after = process_threads();
    osc_lmd_stats stats;
    CHECK_STATUS(osc_lmd_cache_stats(cache, &stats), OSC_OK);
    *leaf_pairs = stats.leaf_pairs;
    CHECK_MSG(n == m && memcmp(g_contacts, g_other, (size_t)n * sizeof *g_contacts) == 0,
              "threads %d: %d contacts, 1 thread: %d (or they differ)", threads, m, n);
    osc_lmd_cache_destroy(cache);
    return after - before;
}

// threads = 100000 is clamped to OSC_MAX_THREADS, and a query with too few leaf pairs to pay for a
// team (fewer than 16 per thread) runs on the calling thread: it starts no thread (before, any
// query of more than 8 leaf pairs started a team of `threads`, and such a team outlives the query).
static void test_threads(void) {
    osc_brep *box = NULL, *sphere = NULL;
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 2, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &sphere), OSC_OK);
    if (!box || !sphere) return;
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.26;
    osc_pose above = osc_pose_make(osc_v3(0.2, -0.4, 1.05), osc_quat_identity());
    int small = 0, large = 0;
    int started = threads_started(box, sphere, above, s, 100000, &small);
    printf("  threads: a query of %d leaf pairs on threads = 100000 started %d threads", small, started);
    CHECK_MSG(small > 8 && small < 32, "%d leaf pairs: the case needs 9 to 31", small);
    CHECK(started <= 0);
    s.culling = 0;
    started = threads_started(box, sphere, above, s, 100000, &large);
    printf(", one of %d leaf pairs %d\n", large, started);
    CHECK(large > 16 * 4);
    CHECK(started <= OSC_MAX_THREADS);
    osc_brep_destroy(box);
    osc_brep_destroy(sphere);
}

// ---- no allocation in warm queries ----------------------------------------------------------------

static long g_allocations;

static void* counting_allocate(size_t size, void* context) {
    (void)context;
    g_allocations++;
    return malloc(size);
}

static void counting_release(void* pointer, void* context) {
    (void)context;
    free(pointer);
}

// With a cache, the first query on a pair of solids sizes the cache; later queries at nearby poses
// (the same work or less) allocate nothing, on one thread or two. Counted through osc_set_allocator
// (the library's own allocations; tests/test_no_alloc.c interposes malloc for libc's and OpenMP's).
// Before, the second query grew the buffers that the first had swapped out (6 to 8 allocations).
static void test_warm_queries(void) {
    osc_brep *box = NULL, *cylinder = NULL, *hole = NULL, *peg = NULL;
    double hole_profile[] = {0.505, 1.0, 0.505, -0.8};
    double peg_profile[] = {0.0, -0.6, 0.45, -0.6, 0.5, -0.55, 0.5, 0.9, 0.0, 0.9};
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 2, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.6, NULL, &cylinder), OSC_OK);
    CHECK_STATUS(osc_brep_create_block_with_hole(osc_v3(1, 1, 1), hole_profile, 2, NULL, &hole), OSC_OK);
    CHECK_STATUS(osc_brep_create_revolved(peg_profile, 5, NULL, &peg), OSC_OK);
    if (!box || !cylinder || !hole || !peg) return;
    const osc_brep* as[3] = {box, hole, hole};
    const osc_brep* bs[3] = {cylinder, peg, peg};
    const osc_vec3 starts[3] = {{0, 0, 1.2}, {0, 0, 0}, {0.001, 0, 0}};
    const double d_max[3] = {2.0, 0.02, 0.3};
    const int samples[3] = {64, 8, 8}; // 64 contacts: more than glibc's qsort sorts without malloc
    osc_allocator counting = {counting_allocate, counting_release, NULL};
    for (int threads = 1; threads <= 2; threads++)
        for (int k = 0; k < 3; k++) {
            osc_lmd_settings s = osc_lmd_settings_default();
            s.d_max = d_max[k];
            s.conformal_samples = samples[k];
            s.threads = threads;
            osc_set_allocator(&counting);
            osc_lmd_cache* cache = NULL;
            CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
            g_allocations = 0;
            osc_pose pb = osc_pose_make(starts[k], osc_quat_identity());
            int n = query(as[k], osc_pose_identity(), bs[k], pb, &s, cache, g_contacts);
            long first = g_allocations, warm = 0;
            for (int step = 1; step <= 5; step++) {
                pb.p.z = starts[k].z + 1e-4 * step;
                g_allocations = 0;
                CHECK(query(as[k], osc_pose_identity(), bs[k], pb, &s, cache, g_contacts) == n);
                warm += g_allocations;
            }
            osc_lmd_cache_destroy(cache);
            osc_set_allocator(NULL);
            CHECK_MSG(n > 0 && first > 0, "case %d: %d contacts, %ld allocations in the first query", k, n, first);
            CHECK_MSG(warm == 0, "case %d, threads %d: %ld allocations in 5 warm queries", k, threads, warm);
        }
    osc_brep_destroy(box);
    osc_brep_destroy(cylinder);
    osc_brep_destroy(hole);
    osc_brep_destroy(peg);
}

// ---- NULL arguments and absurd values ----------------------------------------------------------

// A NULL pointer argument of every public function of lmd.h, one at a time, and settings, poses and
// capacities out of range: OSC_ERR_INVALID_ARGUMENT whose message names the function, the
// argument and (for values) the value; *count is 0. Before, the query's NULL arguments shared one
// message naming none of them, every setting was listed with all the others, and translations of
// 1e200, d_max 1e308 and eps 1e300 were accepted.
static void test_bad_arguments(void) {
    osc_brep *box = NULL, *sphere = NULL;
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 2, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &sphere), OSC_OK);
    osc_lmd_cache* cache = NULL;
    CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
    if (!box || !sphere || !cache) return;
    osc_lmd_stats stats;
    CHECK_STATUS(osc_lmd_cache_create(NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "osc_lmd_cache_create: out is NULL") != NULL);
    CHECK_STATUS(osc_lmd_cache_stats(NULL, &stats), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "osc_lmd_cache_stats: cache is NULL") != NULL);
    CHECK_STATUS(osc_lmd_cache_stats(cache, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "osc_lmd_cache_stats: stats is NULL") != NULL);
    osc_lmd_cache_reset(NULL); // documented no-ops
    osc_lmd_cache_destroy(NULL);

    const osc_pose identity = osc_pose_identity();
    const osc_pose above = osc_pose_make(osc_v3(0.2, -0.4, 1.05), osc_quat_identity());
    typedef struct bad_query {
        const char* message; // what the message must hold
        int null_a, null_b, null_contacts, null_count, capacity;
        osc_pose pose_a, pose_b;
        osc_lmd_settings settings;
    } bad_query;
    enum { CASES = 27 };
    bad_query cases[CASES];
    for (int i = 0; i < CASES; i++) {
        cases[i] = (bad_query){NULL, 0, 0, 0, 0, CAP, identity, above, osc_lmd_settings_default()};
    }
    int k = 0;
    cases[k].message = "osc_lmd_query: a is NULL", cases[k++].null_a = 1;
    cases[k].message = "osc_lmd_query: b is NULL", cases[k++].null_b = 1;
    cases[k].message = "osc_lmd_query: count is NULL", cases[k++].null_count = 1;
    cases[k].message = "osc_lmd_query: contacts is NULL with capacity 4096", cases[k++].null_contacts = 1;
    cases[k].message = "osc_lmd_query: capacity -1 is negative", cases[k++].capacity = -1;
    cases[k].message = "pose_a.p (1e+200, 0, 0)", cases[k++].pose_a.p.x = 1e200;
    cases[k].message = "pose_b.p (0.2, -0.4, -1e+101)", cases[k++].pose_b.p.z = -1e101;
    cases[k].message = "pose_b.p (nan, -0.4, 1.05)", cases[k++].pose_b.p.x = NAN;
    cases[k].message = "pose_a.q (1e+200, 0, 0, 0)", cases[k++].pose_a.q = (osc_quat){1e200, 0, 0, 0};
    cases[k].message = "pose_b.q (0, 0, 0, 0)", cases[k++].pose_b.q = (osc_quat){0, 0, 0, 0};
    cases[k].message = "pose_b.q (1, nan, 0, 0)", cases[k++].pose_b.q = (osc_quat){1, NAN, 0, 0};
    cases[k].message = "settings.d_max inf", cases[k++].settings.d_max = INFINITY;
    cases[k].message = "settings.d_max 1e+308", cases[k++].settings.d_max = 1e308;
    cases[k].message = "settings.d_max nan", cases[k++].settings.d_max = NAN;
    cases[k].message = "settings.d_max 0 ", cases[k++].settings.d_max = 0.0;
    cases[k].message = "settings.eps_a -1 ", cases[k++].settings.eps_a = -1.0;
    cases[k].message = "settings.eps_a 1e+300", cases[k++].settings.eps_a = 1e300;
    cases[k].message = "settings.eps_b nan", cases[k++].settings.eps_b = NAN;
    cases[k].message = "settings.eps_b inf", cases[k++].settings.eps_b = INFINITY;
    cases[k].message = "settings.alpha nan", cases[k++].settings.alpha = NAN;
    cases[k].message = "settings.alpha 1 ", cases[k++].settings.alpha = 1.0;
    cases[k].message = "settings.alpha -0.1", cases[k++].settings.alpha = -0.1;
    cases[k].message = "settings.conformal_samples -1 ", cases[k++].settings.conformal_samples = -1;
    cases[k].message = "settings.conformal_samples 1025", cases[k++].settings.conformal_samples = 1025;
    cases[k].message = "settings.threads -1 ", cases[k++].settings.threads = -1;
    cases[k].message = "settings.culling 2 ", cases[k++].settings.culling = 2;
    cases[k].message = "settings.culling -1 ", cases[k++].settings.culling = -1;
    CHECK(k == CASES);
    for (int i = 0; i < CASES; i++) {
        const bad_query* c = &cases[i];
        int n = 77;
        osc_status st = osc_lmd_query(c->null_a ? NULL : box, c->pose_a, c->null_b ? NULL : sphere, c->pose_b,
                                      &c->settings, i % 2 ? cache : NULL, c->null_contacts ? NULL : g_contacts,
                                      c->capacity, c->null_count ? NULL : &n);
        CHECK_MSG(st == OSC_ERR_INVALID_ARGUMENT && strstr(osc_last_error(), c->message) != NULL &&
                      strstr(osc_last_error(), "osc_lmd_query") != NULL,
                  "case %d: status %d, message '%s', expected one holding '%s'", i, st, osc_last_error(), c->message);
        CHECK_MSG(c->null_count || n == 0, "case %d: count %d", i, n);
    }
    // the largest values allowed are answered (the contacts of the smallest are checked elsewhere)
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 1e100;
    s.eps_a = s.eps_b = 1e100;
    int n = query(box, identity, sphere, above, &s, cache, g_contacts);
    CHECK(n >= 1);
    for (int i = 0; i < n; i++) CHECK(isfinite(g_contacts[i].gap) && g_contacts[i].gap < -1.9e100);
    osc_lmd_cache_destroy(cache);
    osc_brep_destroy(box);
    osc_brep_destroy(sphere);
}

// Far from the origin (x = 2^160, about 1.5e48, where neighbouring doubles are 2^108 apart) two
// solids whose offset is exact (0 along x) have the contacts they have at the origin: the query
// works in A's frame, so distances, normals and gradients keep their accuracy (the world
// footpoints can only be as precise as doubles there are). Before, the footpoints were computed in
// world coordinates: a distance of 0.374 for 0.459, the normal 0.08 off, the gradient wrong.
static void test_far_from_origin(void) {
    osc_brep *box = NULL, *sphere = NULL;
    CHECK_STATUS(osc_brep_create_box(osc_v3(1, 2, 0.5), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &sphere), OSC_OK);
    if (!box || !sphere) return;
    osc_lmd_settings s = osc_lmd_settings_default();
    osc_quat turn = osc_quat_from_axis_angle(osc_normalize(osc_v3(0.3, -0.2, 0.9)), 0.7);
    osc_pose pa = osc_pose_make(osc_v3(0, 0.1, -0.2), turn);
    osc_pose pb = osc_pose_make(osc_v3(0, -0.3, 1.0), osc_quat_identity());
    int n = query(box, pa, sphere, pb, &s, NULL, g_contacts);
    pa.p.x = pb.p.x = ldexp(1.0, 160);
    int m = query(box, pa, sphere, pb, &s, NULL, g_other);
    printf("  far from the origin: %d contacts at the origin, %d at x = 2^160\n", n, m);
    CHECK(n >= 1 && m == n);
    for (int k = 0; k < n && m == n; k++) {
        CHECK_NEAR(g_other[k].distance, g_contacts[k].distance, 1e-12);
        CHECK(g_other[k].key == g_contacts[k].key);
        CHECK_NEAR(osc_length(osc_sub(g_other[k].normal, g_contacts[k].normal)), 0.0, 1e-12);
        for (int i = 0; i < 12; i++) CHECK_NEAR(g_other[k].gradient[i], g_contacts[k].gradient[i], 1e-12);
    }
    osc_brep_destroy(box);
    osc_brep_destroy(sphere);
}

int main(void) {
    RUN(test_warm_queries);
    RUN(test_threads);
    RUN(test_many_leaf_pairs);
    RUN(test_closed_forms);
    RUN(test_sphere_poles);
    RUN(test_peg_in_hole);
    RUN(test_box_tilt);
    RUN(test_surface_distance);
    RUN(test_spindle_torus);
    RUN(test_brute_force);
    RUN(test_culling_agrees);
    RUN(test_incompatible_pairs);
    RUN(test_gradients);
    RUN(test_coherence);
    RUN(test_bad_input);
    RUN(test_bad_arguments);
    RUN(test_far_from_origin);
    return test_finish();
}
