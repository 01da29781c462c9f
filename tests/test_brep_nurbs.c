// test_brep_nurbs.c: B-spline and NURBS curves and surfaces of the B-Rep model (src/brep_nurbs.c).
// Oracles: exact conics and quadrics written as rational B-splines (a NURBS cylinder is a cylinder),
// central finite differences of the derivatives, the Bezier pieces re-evaluated by de Casteljau,
// normals inside the cone of the scaled normal surface's control vectors, projections of points
// lifted off the surface along its normal, and local minimal distances of a solid with a NURBS
// lateral face equal to those of the same cylinder made of canonical surfaces.

#include "osculate/osculate.h"
#include "brep_internal.h"
#include "test_common.h"

// a full circle of radius 1 in the xy plane: rational quadratic, 9 points, 4 spans
static const double k_w = 0.70710678118654752440;
static const double k_circle_knots[12] = {0, 0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1, 1};
static const double k_circle_xy[9][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}, {1, 0}};

// A NURBS cylinder of radius R from z = -h to h: u the circle (weights 1, w, 1, ...), v linear;
// writes the description's arrays (points [18], reals [12 + 4 + 18]).
static osc_brep_nurbs nurbs_cylinder(double R, double h, osc_vec3* points, double* reals) {
    memcpy(reals, k_circle_knots, sizeof k_circle_knots);
    const double v_knots[4] = {0, 0, 1, 1};
    memcpy(reals + 12, v_knots, sizeof v_knots);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 2; j++) {
            points[2 * i + j] = osc_v3(R * k_circle_xy[i][0], R * k_circle_xy[i][1], j ? h : -h);
            reals[16 + 2 * i + j] = i % 2 ? k_w : 1.0;
        }
    osc_brep_nurbs n = {{2, 1}, {9, 2}, 0, 0, 16};
    return n;
}

// A random bicubic rational patch with 5 x 4 points, non-uniform knots.
static osc_brep_nurbs random_surface(test_rng* rng, osc_vec3* points, double* reals) {
    const double U[9] = {0, 0, 0, 0, 0.4, 1, 1, 1, 1}, V[7] = {-1, -1, -1, 0.5, 2, 2, 2};
    memcpy(reals, U, sizeof U);
    memcpy(reals + 9, V, sizeof V);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            points[4 * i + j] = osc_v3(i + test_uniform(rng, -0.3, 0.3), j + test_uniform(rng, -0.3, 0.3),
                                       test_uniform(rng, -0.6, 0.6));
            reals[16 + 4 * i + j] = test_uniform(rng, 0.5, 2.0);
        }
    osc_brep_nurbs n = {{3, 2}, {5, 4}, 0, 0, 16};
    return n;
}

// A one-face model around a B-spline surface (a sheet: no edges), to reach the kernel through a
// built model.
static osc_brep* sheet(const osc_brep_nurbs* n, const osc_vec3* points, int point_count, const double* reals,
                       int real_count, double u0, double u1, double v0, double v1) {
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_NURBS;
    s.sense = 1;
    s.nurbs = 0;
    osc_brep_face f = {0, 0, 0, u0, u1, v0, v1};
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = &s;
    d.surface_count = 1;
    d.faces = &f;
    d.face_count = 1;
    d.nurbs = n;
    d.nurbs_count = 1;
    d.control_points = points;
    d.control_point_count = point_count;
    d.reals = reals;
    d.real_count = real_count;
    osc_brep* b = NULL;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_OK);
    return b;
}

static void test_exact_cylinder(void) {
    osc_vec3 points[18];
    double reals[34];
    osc_brep_nurbs n = nurbs_cylinder(0.7, 1.5, points, reals);
    osc_brep* b = sheet(&n, points, 18, reals, 34, 0, 1, 0, 1);
    if (!b) return;
    const osc_nurbs* nb = &b->nurbs[0];
    double worst = 0.0, worst_normal = 0.0;
    for (int i = 0; i <= 100; i++)
        for (int j = 0; j <= 10; j++) {
            double t[2] = {i / 100.0, j / 10.0};
            osc_vec3 p, d1[2], d2[3];
            osc_nurbs_eval(nb, t, &p, d1, d2);
            worst = fmax(worst, fabs(hypot(p.x, p.y) - 0.7));
            worst = fmax(worst, fabs(p.z - (-1.5 + 3.0 * t[1])));
            osc_vec3 normal;
            osc_brep_face_point(b, 0, t[0], t[1], &normal);
            osc_vec3 radial = osc_normalize(osc_v3(p.x, p.y, 0));
            worst_normal = fmax(worst_normal, osc_length(osc_sub(normal, radial)));
        }
    CHECK_MSG(worst < 1e-15, "radius error %g", worst);
    CHECK_MSG(worst_normal < 1e-15, "normal error %g", worst_normal);
    osc_brep_destroy(b);
}

// first and second derivatives against central differences, inside spans and at knots
static void test_derivatives(void) {
    test_rng rng = {42};
    osc_vec3 points[20];
    double reals[36];
    osc_brep_nurbs n = random_surface(&rng, points, reals);
    osc_brep* b = sheet(&n, points, 20, reals, 36, 0, 1, -1, 2);
    if (!b) return;
    const osc_nurbs* nb = &b->nurbs[0];
    double worst1 = 0.0, worst2 = 0.0;
    const double h = 1e-5;
    for (int k = 0; k < 200; k++) {
        double t[2] = {test_uniform(&rng, 0.01, 0.99), test_uniform(&rng, -0.99, 1.99)};
        if (k == 0) t[0] = 0.4, t[1] = 0.5; // at interior knots (one-sided spans agree: C2 and C1)
        osc_vec3 p, d1[2], d2[3];
        osc_nurbs_eval(nb, t, &p, d1, d2);
        for (int a = 0; a < (k == 0 ? 1 : 2); a++) { // (S is C1 across v = 0.5: differences of it are not C2)
            double tp[2] = {t[0], t[1]}, tm[2] = {t[0], t[1]};
            tp[a] += h;
            tm[a] -= h;
            osc_vec3 pp, pm, ep[2], em[2];
            osc_nurbs_eval(nb, tp, &pp, ep, NULL);
            osc_nurbs_eval(nb, tm, &pm, em, NULL);
            osc_vec3 fd = osc_scale(osc_sub(pp, pm), 0.5 / h);
            worst1 = fmax(worst1, osc_length(osc_sub(fd, d1[a])) / (1.0 + osc_length(d1[a])));
            for (int c = 0; c < 2; c++) {
                osc_vec3 fd2 = osc_scale(osc_sub(ep[c], em[c]), 0.5 / h);
                osc_vec3 exact = d2[a + c]; // uu (0), uv (1), vv (2)
                if (k == 0) continue;       // at the knots the third derivatives jump: differences are first order
                worst2 = fmax(worst2, osc_length(osc_sub(fd2, exact)) / (1.0 + osc_length(exact)));
            }
        }
    }
    CHECK_MSG(worst1 < 1e-8, "first derivatives off by %g", worst1);
    CHECK_MSG(worst2 < 1e-7, "second derivatives off by %g", worst2);
    osc_brep_destroy(b);
}

// de Casteljau on homogeneous points at (s, t) of [0, 1]^2
static osc_vec3 casteljau(const double* cw, int p, int q, double s, double t) {
    double col[OSC_BREP_MAX_DEGREE + 1][4], row[OSC_BREP_MAX_DEGREE + 1][4];
    for (int i = 0; i <= p; i++) {
        for (int j = 0; j <= q; j++) memcpy(row[j], cw + 4 * (i * (q + 1) + j), sizeof row[j]);
        for (int r = 1; r <= q; r++)
            for (int j = 0; j + r <= q; j++)
                for (int m = 0; m < 4; m++) row[j][m] = (1 - t) * row[j][m] + t * row[j + 1][m];
        memcpy(col[i], row[0], sizeof col[i]);
    }
    for (int r = 1; r <= p; r++)
        for (int i = 0; i + r <= p; i++)
            for (int m = 0; m < 4; m++) col[i][m] = (1 - s) * col[i][m] + s * col[i + 1][m];
    return osc_scale(osc_v3(col[0][0], col[0][1], col[0][2]), 1.0 / col[0][3]);
}

// Bezier pieces of sub-rectangles of spans re-evaluated; normals in the scaled normal surface's cone
static void test_bezier_and_normal_cones(void) {
    test_rng rng = {7};
    osc_vec3 points[20];
    double reals[36];
    osc_brep_nurbs n = random_surface(&rng, points, reals);
    osc_brep* b = sheet(&n, points, 20, reals, 36, 0, 1, -1, 2);
    if (!b) return;
    const osc_nurbs* nb = &b->nurbs[0];
    double cw[16 * 4], work[4096], net[9 * 9 * 3];
    const double spans[4][4] = {{0, 0.4, -1, 0.5}, {0.4, 1, 0.5, 2}, {0.1, 0.2, 0.6, 0.7}, {0.5, 0.9, -0.9, 0.1}};
    CHECK(osc_nurbs_normal_work(3, 2) <= 4096);
    double worst = 0.0, outside = 0.0;
    for (int k = 0; k < 4; k++) {
        double a[2] = {spans[k][0], spans[k][2]}, c[2] = {spans[k][1], spans[k][3]};
        osc_nurbs_bezier(nb, a, c, cw);
        int count = osc_nurbs_normal_net(cw, 3, 2, 1, work, net);
        CHECK(count == 9 * 6);
        osc_vec3 axis;
        double theta = osc_vectors_cone(net, count, &axis);
        for (int i = 0; i <= 10; i++)
            for (int j = 0; j <= 10; j++) {
                double s = i / 10.0, t = j / 10.0, uv[2] = {a[0] + s * (c[0] - a[0]), a[1] + t * (c[1] - a[1])};
                osc_vec3 p;
                osc_nurbs_eval(nb, uv, &p, NULL, NULL);
                worst = fmax(worst, osc_length(osc_sub(p, casteljau(cw, 3, 2, s, t))));
                if (theta < TEST_PI) {
                    double angle = acos(fmin(1.0, osc_dot(osc_nurbs_normal(nb, uv[0], uv[1]), axis)));
                    outside = fmax(outside, angle - theta);
                }
            }
    }
    CHECK_MSG(worst < 1e-13, "Bezier pieces off by %g", worst);
    CHECK_MSG(outside <= 1e-12, "a normal lies %g outside its cone", outside);
    osc_brep_destroy(b);
}

// points lifted off the surface along its normal project back to their parameters, or to a point
// at least as near
static void test_projection(void) {
    test_rng rng = {99};
    osc_vec3 points[20];
    double reals[36];
    osc_brep_nurbs n = random_surface(&rng, points, reals);
    osc_brep* b = sheet(&n, points, 20, reals, 36, 0, 1, -1, 2);
    if (!b) return;
    const osc_nurbs* nb = &b->nurbs[0];
    int failures = 0;
    for (int k = 0; k < 200; k++) {
        double t[2] = {test_uniform(&rng, 0.05, 0.95), test_uniform(&rng, -0.9, 1.9)}, back[2];
        osc_vec3 p;
        osc_nurbs_eval(nb, t, &p, NULL, NULL);
        double lift = test_uniform(&rng, -0.05, 0.05);
        osc_vec3 x = osc_add_scaled(p, osc_nurbs_normal(nb, t[0], t[1]), lift), q;
        osc_nurbs_project(nb, x, NULL, back);
        osc_nurbs_eval(nb, back, &q, NULL, NULL);
        double nearer = fabs(lift) - osc_length(osc_sub(q, x));
        bool same = fabs(back[0] - t[0]) <= 1e-9 && fabs(back[1] - t[1]) <= 1e-9;
        if (!same && !(nearer >= -1e-13)) {
            failures++;
            printf("  projection of (%g, %g) lifted %g: (%.12g, %.12g), %g nearer\n", t[0], t[1], lift, back[0],
                   back[1], nearer);
        }
    }
    CHECK_MSG(failures == 0, "%d of 200 projections missed", failures);
    osc_brep_destroy(b);
}

// A revolved S-shaped blend (the transition between two coaxial cylinders, radius 14 to 17, as in
// bench_lmd's hotstab_nurbs): its normals turn across the short profile side, so halving the long
// circumferential side narrows nothing; the leaves must stay few (632 thin slivers when the
// longer side was halved; 128 now that pieces are halved where their normals turn), and each leaf's normals within alpha_max.
static void test_blend_leaves(void) {
    const double profile[4][2] = {{14, 40}, {14, 40 + 5.0 / 3}, {17, 44 - 5.0 / 3}, {17, 44}};
    osc_vec3 points[36];
    double reals[12 + 8 + 36];
    memcpy(reals, k_circle_knots, sizeof k_circle_knots);
    const double v_knots[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    memcpy(reals + 12, v_knots, sizeof v_knots);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 4; j++) {
            points[4 * i + j] =
                osc_v3(profile[j][0] * k_circle_xy[i][0], profile[j][0] * k_circle_xy[i][1], profile[j][1]);
            reals[20 + 4 * i + j] = i % 2 ? k_w : 1.0;
        }
    osc_brep_nurbs n = {{2, 3}, {9, 4}, 0, 0, 20};
    osc_brep* b = sheet(&n, points, 36, reals, 56, 0, 1, 0, 1);
    if (!b) return;
    osc_brep_info info;
    osc_brep_get_info(b, &info);
    double alpha_max = osc_brep_settings_default().alpha_max, worst = 0.0;
    for (int l = 0; l < b->leaf_count; l++) {
        const osc_brep_leaf* leaf = &b->leaves[l];
        osc_vec3 n0 = osc_nurbs_normal(&b->nurbs[0], leaf->lo[0], leaf->lo[1]);
        for (int i = 0; i <= 4; i++)
            for (int j = 0; j <= 4; j++) {
                osc_vec3 m = osc_nurbs_normal(&b->nurbs[0], leaf->lo[0] + 0.25 * i * (leaf->hi[0] - leaf->lo[0]),
                                              leaf->lo[1] + 0.25 * j * (leaf->hi[1] - leaf->lo[1]));
                worst = fmax(worst, acos(fmin(1.0, osc_dot(m, n0))));
            }
    }
    printf("  revolved S-blend: %d leaves, normals within %.3g of each leaf's corner normal\n", info.leaf_count, worst);
    CHECK_MSG(info.leaf_count <= 256, "%d leaves", info.leaf_count);
    CHECK_MSG(worst <= alpha_max + 1e-12, "a leaf's normals turn by %g", worst);
    osc_brep_destroy(b);
}

static void test_bad_descriptions(void) {
    osc_vec3 points[18];
    double reals[34];
    osc_brep_nurbs n = nurbs_cylinder(0.7, 1.5, points, reals);
    osc_brep_nurbs bad = n;
    bad.degree[0] = 0;
    osc_brep* b = NULL;
    osc_brep_surface s;
    memset(&s, 0, sizeof s);
    s.type = OSC_SURFACE_NURBS;
    s.sense = 1;
    osc_brep_face f = {0, 0, 0, 0, 1, 0, 1};
    osc_brep_desc d;
    memset(&d, 0, sizeof d);
    d.surfaces = &s;
    d.surface_count = 1;
    d.faces = &f;
    d.face_count = 1;
    d.nurbs = &bad;
    d.nurbs_count = 1;
    d.control_points = points;
    d.control_point_count = 18;
    d.reals = reals;
    d.real_count = 34;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    bad = n;
    bad.weight_begin = 30; // runs past the reals
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    bad = n;
    reals[3] = 0.9; // knots decrease
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    reals[3] = 0.25;
    reals[16] = -1.0; // a negative weight
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    reals[16] = 1.0;
    f.umax = 1.5; // the face leaves the range
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    f.umax = 1.0;
    s.nurbs = 3;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_ERR_INVALID_ARGUMENT);
    s.nurbs = 0;
    CHECK_STATUS(osc_brep_create(&d, NULL, &b), OSC_OK);
    osc_vec3 p = osc_brep_face_point(b, 1, 0.0, 0.0, NULL);
    CHECK(isnan(p.x));
    p = osc_brep_edge_point(b, 0, 0.0);
    CHECK(isnan(p.x));
    osc_brep_destroy(b);
}

// ---- a cylinder whose lateral face is a NURBS surface ------------------------------------------

// The canonical cylinder's description with its lateral face replaced by the NURBS cylinder (the
// whole parameter box, no loops; the rims stay circles, or become NURBS circles with
// `nurbs_edges`).
static osc_status nurbs_cylinder_solid(double R, double h, int nurbs_edges, osc_brep** out) {
    osc_brep* canonical = NULL;
    osc_status st = osc_brep_create_cylinder(R, h, NULL, &canonical);
    if (st != OSC_OK) return st;
    const osc_brep_desc* c = osc_brep_description(canonical);
    osc_brep_desc d = *c;
    osc_brep_surface surfaces[8];
    osc_brep_face faces[8];
    osc_brep_edge edges[8];
    memcpy(surfaces, c->surfaces, (size_t)c->surface_count * sizeof *surfaces);
    memcpy(faces, c->faces, (size_t)c->face_count * sizeof *faces);
    memcpy(edges, c->edges, (size_t)c->edge_count * sizeof *edges);
    osc_brep_nurbs n[3];
    osc_vec3 points[18 + 18];
    double reals[34 + 2 * 21];
    n[0] = nurbs_cylinder(R, h, points, reals);
    int lateral = -1;
    for (int i = 0; i < c->face_count; i++)
        if (c->surfaces[c->faces[i].surface].type == OSC_SURFACE_CYLINDER) lateral = i;
    osc_brep_surface* s = &surfaces[faces[lateral].surface];
    s->type = OSC_SURFACE_NURBS;
    s->nurbs = 0;
    faces[lateral].loop_count = 0;
    faces[lateral].umin = faces[lateral].vmin = 0.0;
    faces[lateral].umax = faces[lateral].vmax = 1.0;
    int nurbs_count = 1, point_count = 18, real_count = 34;
    for (int e = 0; nurbs_edges && e < c->edge_count; e++) {
        // the rim circle as a rational quadratic through (R, 0, z): t in [0, 1] from angle 0
        osc_brep_edge* edge = &edges[e];
        double z = edge->origin.z;
        osc_brep_nurbs* m = &n[nurbs_count];
        m->degree[0] = 2;
        m->degree[1] = 0;
        m->count[0] = 9;
        m->count[1] = 1;
        m->knot_begin = real_count;
        memcpy(reals + real_count, k_circle_knots, sizeof k_circle_knots);
        real_count += 12;
        m->weight_begin = real_count;
        for (int i = 0; i < 9; i++) reals[real_count++] = i % 2 ? k_w : 1.0;
        m->point_begin = point_count;
        for (int i = 0; i < 9; i++) points[point_count++] = osc_v3(R * k_circle_xy[i][0], R * k_circle_xy[i][1], z);
        edge->type = OSC_CURVE_NURBS;
        edge->nurbs = nurbs_count++;
        edge->t0 = 0.0;
        edge->t1 = 1.0;
    }
    d.surfaces = surfaces;
    d.faces = faces;
    d.edges = edges;
    d.nurbs = n;
    d.nurbs_count = nurbs_count;
    d.control_points = points;
    d.control_point_count = point_count;
    d.reals = reals;
    d.real_count = real_count;
    st = osc_brep_create(&d, NULL, out);
    osc_brep_destroy(canonical);
    return st;
}

// The closest contact of each feature pair kind; NURBS and canonical cylinders against a box and a
// sphere at random poses give the same minimum distance and the same number of contacts.
static void test_nurbs_cylinder_lmd(void) {
    osc_brep *canonical, *nurbs, *nurbs_edges, *box, *sphere;
    CHECK_STATUS(osc_brep_create_cylinder(0.4, 0.6, NULL, &canonical), OSC_OK);
    CHECK_STATUS(nurbs_cylinder_solid(0.4, 0.6, 0, &nurbs), OSC_OK);
    CHECK_STATUS(nurbs_cylinder_solid(0.4, 0.6, 1, &nurbs_edges), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.5, 0.3, 0.2), NULL, &box), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.25, NULL, &sphere), OSC_OK);
    if (!canonical || !nurbs || !nurbs_edges || !box || !sphere) return;
    static osc_lmd_contact ca[512], cb[512];
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 1.0;
    test_rng rng = {2024};
    int poses = 0, same = 0, compared = 0;
    double worst = 0.0;
    const osc_brep* others[2] = {box, sphere};
    const osc_brep* variants[2] = {nurbs, nurbs_edges};
    for (int k = 0; k < 60; k++) {
        osc_vec3 axis =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        osc_vec3 dir =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        osc_pose pb = osc_pose_make(osc_scale(dir, test_uniform(&rng, 0.85, 1.2)),
                                    osc_quat_from_axis_angle(axis, test_uniform(&rng, -3, 3)));
        const osc_brep* other = others[k % 2];
        osc_lmd_output out_a = {.contacts = ca, .capacity = 512}, out_b = {.contacts = cb, .capacity = 512};
        CHECK_STATUS(osc_lmd_query(canonical, osc_pose_identity(), other, pb, &s, NULL, &out_a, 1), OSC_OK);
        int na = out_a.count, nb = 0;
        double da = INFINITY;
        for (int i = 0; i < na; i++) da = fmin(da, ca[i].distance);
        for (int v = 0; v < 2; v++) {
            CHECK_STATUS(osc_lmd_query(variants[v], osc_pose_identity(), other, pb, &s, NULL, &out_b, 1), OSC_OK);
            nb = out_b.count;
            double db = INFINITY;
            for (int i = 0; i < nb; i++) db = fmin(db, cb[i].distance);
            poses++;
            same += na == nb;
            if (na && nb) {
                compared++;
                worst = fmax(worst, fabs(da - db));
            }
            CHECK_MSG(na == nb && (na == 0 || fabs(da - db) <= 1e-10),
                      "pose %d variant %d: canonical %d contacts (min %.15g), NURBS %d (min %.15g)", k, v, na, da, nb,
                      db);
        }
    }
    printf("  NURBS cylinder: %d of %d poses with as many contacts, minimum distances within %.2g over %d\n", same,
           poses, worst, compared);
    osc_brep_destroy(canonical);
    osc_brep_destroy(nurbs);
    osc_brep_destroy(nurbs_edges);
    osc_brep_destroy(box);
    osc_brep_destroy(sphere);
}

int main(void) {
    RUN(test_exact_cylinder);
    RUN(test_derivatives);
    RUN(test_bezier_and_normal_cones);
    RUN(test_projection);
    RUN(test_blend_leaves);
    RUN(test_bad_descriptions);
    RUN(test_nurbs_cylinder_lmd);
    return test_finish();
}
