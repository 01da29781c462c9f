// test_lmd_supermax.c: supermaximal features (Crozet 2017 §2.3, §4.2.3). Oracles: closed forms on
// a cylinder split into two half-cylinders on differently framed surfaces with rims split into two
// arcs (contacts on the seams found once, at the analytic point and distance); the same cylinder
// unsplit (same distances on random poses); the search with the groups turned off on the insertion
// scenarios of bench_lmd (every contact found either way); central differences of the gap.

#include "osculate/osculate.h"
#include "brep_internal.h"
#include "test_common.h"

#include "../bench/lmd_scenarios.h"

enum { CAP = 4096 };
static osc_lmd_contact g_on[CAP], g_off[CAP];

static const double k_radius = 0.5, k_half = 0.4;

// A cylinder of radius 0.5 and height 0.8 (axis z) whose lateral surface is two faces: face 0 on a
// surface framed along +x (u in [0, pi]: the half y >= 0), face 1 on a second, identical cylinder
// framed along -x (u in [0, pi]: y <= 0); its rims are two arcs each (edges 0, 1 top; 2, 3
// bottom, on the faces 0 and 1), the seams are edges 4 (x = R) and 5 (x = -R); vertices 0, 1 on
// the top rim at x = R, -R, and 2, 3 on the bottom one.
static osc_status create_split_cylinder(osc_brep** out) {
    const double R = k_radius, h = k_half;
    osc_brep_surface surfaces[4];
    memset(surfaces, 0, sizeof surfaces);
    for (int k = 0; k < 2; k++) {
        surfaces[k].type = OSC_SURFACE_CYLINDER;
        surfaces[k].axis = osc_v3(0, 0, 1);
        surfaces[k].ref = osc_v3(k == 0 ? 1 : -1, 0, 0);
        surfaces[k].radius = R;
        surfaces[k].sense = 1;
        surfaces[k + 2].type = OSC_SURFACE_PLANE;
        surfaces[k + 2].origin = osc_v3(0, 0, k == 0 ? h : -h);
        surfaces[k + 2].axis = osc_v3(0, 0, k == 0 ? 1 : -1);
        surfaces[k + 2].ref = osc_v3(1, 0, 0);
        surfaces[k + 2].sense = 1;
    }
    osc_brep_trim trims[2];
    memset(trims, 0, sizeof trims);
    for (int k = 0; k < 2; k++) {
        trims[k].kind = OSC_TRIM_ARC;
        trims[k].radius = R;
        trims[k].angle0 = k * TEST_PI;
        trims[k].sweep = TEST_PI;
    }
    osc_brep_loop loops[2] = {{0, 2}, {0, 2}};
    osc_brep_face faces[4] = {{0, 0, 0, 0.0, TEST_PI, -h, h},
                              {1, 0, 0, 0.0, TEST_PI, -h, h},
                              {2, 0, 1, -R, R, -R, R},
                              {3, 1, 1, -R, R, -R, R}};
    osc_brep_edge edges[6];
    memset(edges, 0, sizeof edges);
    for (int k = 0; k < 4; k++) {
        int top = k < 2, half = k % 2;
        edges[k].type = OSC_CURVE_CIRCLE;
        edges[k].origin = osc_v3(0, 0, top ? h : -h);
        edges[k].axis = osc_v3(0, 0, 1);
        edges[k].ref = osc_v3(half ? -1 : 1, 0, 0);
        edges[k].radius = R;
        edges[k].t1 = TEST_PI;
        edges[k].face[0] = half;
        edges[k].face[1] = top ? 2 : 3;
        int v0 = top ? 0 : 2; // at x = R
        edges[k].vertex[0] = half ? v0 + 1 : v0;
        edges[k].vertex[1] = half ? v0 : v0 + 1;
    }
    for (int k = 0; k < 2; k++) {
        edges[4 + k].type = OSC_CURVE_LINE;
        edges[4 + k].origin = osc_v3(k ? -R : R, 0, h);
        edges[4 + k].axis = osc_v3(0, 0, -1);
        edges[4 + k].t1 = 2.0 * h;
        edges[4 + k].face[0] = 0;
        edges[4 + k].face[1] = 1;
        edges[4 + k].vertex[0] = k;
        edges[4 + k].vertex[1] = k + 2;
    }
    osc_vec3 vertices[4] = {{R, 0, h}, {-R, 0, h}, {R, 0, -h}, {-R, 0, -h}};
    osc_brep_desc d = {surfaces, 4, faces, 4, loops, 2, trims, 2, edges, 6, vertices, 4, NULL, 0, NULL, 0, NULL, 0};
    return osc_brep_create(&d, NULL, out);
}

static int query(const osc_brep* a, osc_pose pa, const osc_brep* b, osc_pose pb, const osc_lmd_settings* s,
                 osc_lmd_contact* out, osc_lmd_stats* stats) {
    osc_lmd_cache* cache = NULL;
    CHECK_STATUS(osc_lmd_cache_create(&cache), OSC_OK);
    osc_lmd_output output = {out, CAP, -1, -1, NULL, -1};
    CHECK_STATUS(osc_lmd_query(a, pa, b, pb, s, cache, &output, 1), OSC_OK);
    if (stats) osc_lmd_cache_stats(cache, stats);
    osc_lmd_cache_destroy(cache);
    return output.count;
}

// The contacts of `list` [n] whose A footpoint lies within 1e-9 of p.
static int count_at(const osc_lmd_contact* list, int n, osc_vec3 p, int* index) {
    int count = 0;
    for (int i = 0; i < n; i++)
        if (osc_length(osc_sub(list[i].point_a, p)) <= 1e-9) {
            count++;
            *index = i;
        }
    return count;
}

// ---- the groups ------------------------------------------------------------------------------------

static void test_groups(void) {
    osc_brep* split;
    CHECK_STATUS(create_split_cylinder(&split), OSC_OK);
    // the two half-cylinders are one face, each rim one edge; the seams are inner edges
    CHECK(split->face_group[0] == 0 && split->face_group[1] == 0);
    CHECK(split->face_group[2] == 2 && split->face_group[3] == 3);
    CHECK(split->supermaximal_face_count == 3);
    CHECK(split->edge_group[0] == 0 && split->edge_group[1] == 0);
    CHECK(split->edge_group[2] == 2 && split->edge_group[3] == 2);
    CHECK(split->supermaximal_edge_count == 4); // two rims and the two seams (no features)
    CHECK(split->inner_begin[1] - split->inner_begin[0] == 2);
    CHECK(split->edge_data[4].status == OSC_EDGE_SMOOTH && split->edge_data[5].status == OSC_EDGE_SMOOTH);
    // the arcs' junctions are inside the rims: no features, no leaves
    int vertex_leaves = 0;
    for (int i = 0; i < split->leaf_count; i++) vertex_leaves += split->leaves[i].kind == OSC_FEATURE_VERTEX;
    CHECK(vertex_leaves == 0);
    for (int v = 0; v < 4; v++) CHECK(split->inner_vertex[v] && !split->vertex_data[v].active);
    // without the groups they are features again
    osc_brep* off;
    CHECK_STATUS(create_split_cylinder(&off), OSC_OK);
    CHECK_STATUS(osc_brep_set_supermaximal(off, false), OSC_OK);
    vertex_leaves = 0;
    for (int i = 0; i < off->leaf_count; i++) vertex_leaves += off->leaves[i].kind == OSC_FEATURE_VERTEX;
    CHECK(vertex_leaves == 4 && off->supermaximal_face_count == 4);
    osc_brep_destroy(off);
    // the builders' solids have one face per surface: nothing to group
    osc_brep* peg;
    CHECK_STATUS(osc_brep_create_revolved(lmd_scenarios[0].peg, lmd_scenarios[0].peg_count, NULL, &peg), OSC_OK);
    // except the grooved peg's cylinders, which lie on two untrimmed cylinders (radius 24.75: five
    // faces; the grooves' floors, radius 23.5: four)
    CHECK(peg->supermaximal_face_count == peg->desc.face_count - 7);
    osc_brep_destroy(peg);
    osc_brep_destroy(split);
}

// ---- contacts on the seams --------------------------------------------------------------------------

static void test_seams(void) {
    osc_brep *split, *split_off, *sphere, *box;
    CHECK_STATUS(create_split_cylinder(&split), OSC_OK);
    CHECK_STATUS(create_split_cylinder(&split_off), OSC_OK);
    CHECK_STATUS(osc_brep_set_supermaximal(split_off, false), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.2, NULL, &sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.1, 0.5, 0.1), NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.5;
    const double R = k_radius, d = 0.3;
    // a ball facing each seam of the wall (x = R: face 0's u = 0, face 1's u = pi; x = -R the other
    // way round): one face-face contact at the seam point, distance 0.3
    for (int side = 0; side < 2; side++) {
        double x = side ? -1.0 : 1.0, z = side ? -0.1 : 0.05;
        osc_vec3 seam = osc_v3(x * R, 0, z);
        osc_pose ball = osc_pose_make(osc_v3(x * (R + d + 0.2), 0, z), osc_quat_identity());
        int n = query(split, osc_pose_identity(), sphere, ball, &s, g_on, NULL);
        int i = -1, m = count_at(g_on, n, seam, &i);
        CHECK_MSG(m == 1, "seam %d: %d contacts at the seam point (of %d)", side, m, n);
        if (m == 1) {
            CHECK(g_on[i].kind_a == OSC_FEATURE_FACE && g_on[i].feature_a == 0); // the lower face
            CHECK_NEAR(g_on[i].distance, d, 1e-12);
            CHECK_NEAR(g_on[i].normal.x, x, 1e-12);
        }
        // without the groups each half finds it: the duplicate the groups remove
        n = query(split_off, osc_pose_identity(), sphere, ball, &s, g_off, NULL);
        CHECK_MSG(count_at(g_off, n, seam, &i) == 2, "seam %d without groups: %d", side, count_at(g_off, n, seam, &i));
    }
    // a box's edge across the seam (the box turned 45 degrees about y, its edge along y at
    // x = R + 0.3): the edge against the supermaximal face, searched once
    {
        double offset = 0.1 * sqrt(2.0);
        osc_vec3 seam = osc_v3(R, 0, 0.05);
        osc_pose pose =
            osc_pose_make(osc_v3(R + d + offset, 0, 0.05), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.25 * TEST_PI));
        osc_lmd_stats on_stats, off_stats;
        int n = query(split, osc_pose_identity(), box, pose, &s, g_on, &on_stats);
        int i = -1, m = count_at(g_on, n, seam, &i);
        CHECK_MSG(m == 1, "edge across the seam: %d contacts at the seam point (of %d)", m, n);
        if (m == 1) {
            CHECK(g_on[i].kind_a == OSC_FEATURE_FACE && g_on[i].feature_a == 0 && g_on[i].kind_b == OSC_FEATURE_EDGE);
            CHECK_NEAR(g_on[i].distance, d, 1e-12);
            CHECK_NEAR(g_on[i].point_b.x, R + d, 1e-12);
            CHECK_NEAR(g_on[i].point_b.y, 0.0, 1e-12);
        }
        int n_off = query(split_off, osc_pose_identity(), box, pose, &s, g_off, &off_stats);
        CHECK(count_at(g_off, n_off, seam, &i) == 2);
        // (fewer leaf pairs: the arcs' junctions are no leaves)
        CHECK(on_stats.leaf_pairs < off_stats.leaf_pairs && on_stats.searches < off_stats.searches);
        printf("  edge across the seam: %d leaf pairs, %d searches (%d without groups)\n", on_stats.leaf_pairs,
               on_stats.searches, off_stats.searches);
    }
    // balls over the top rim: in the middle of arc 1 (at (0, -R, h)), one contact on arc 1; at the
    // junction of the two arcs (vertex 0, at (R, 0, h)), one contact on arc 0, the lower of the two
    for (int k = 0; k < 2; k++) {
        osc_vec3 rim = k == 0 ? osc_v3(0, -R, k_half) : osc_v3(R, 0, k_half);
        osc_vec3 out = k == 0 ? osc_v3(0, -1, 1) : osc_v3(1, 0, 1);
        out = osc_normalize(out);
        osc_pose ball = osc_pose_make(osc_add(rim, osc_scale(out, d + 0.2)), osc_quat_identity());
        int n = query(split, osc_pose_identity(), sphere, ball, &s, g_on, NULL);
        int i = -1, m = count_at(g_on, n, rim, &i);
        CHECK_MSG(m == 1, "rim %d: %d contacts at the rim point (of %d)", k, m, n);
        if (m == 1) {
            CHECK(g_on[i].kind_a == OSC_FEATURE_EDGE && g_on[i].feature_a == (k == 0 ? 1 : 0));
            CHECK_NEAR(g_on[i].distance, d, 1e-12);
            CHECK_NEAR(osc_dot(g_on[i].normal, out), 1.0, 1e-12);
        }
    }
    osc_brep_destroy(split);
    osc_brep_destroy(split_off);
    osc_brep_destroy(sphere);
    osc_brep_destroy(box);
}

// ---- the split cylinder is the cylinder -------------------------------------------------------------

static int compare_distance(const void* a, const void* b) {
    double x = ((const osc_lmd_contact*)a)->distance, y = ((const osc_lmd_contact*)b)->distance;
    return x < y ? -1 : x > y;
}

// Random poses of a ball and a box around the split cylinder and the builder's cylinder (one
// lateral face, closed rims without vertices): the same distances, contact for contact.
static void test_split_is_whole(void) {
    osc_brep *split, *whole, *sphere, *box;
    CHECK_STATUS(create_split_cylinder(&split), OSC_OK);
    CHECK_STATUS(osc_brep_create_cylinder(k_radius, k_half, NULL, &whole), OSC_OK);
    CHECK_STATUS(osc_brep_create_sphere(0.2, NULL, &sphere), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.1, 0.3, 0.15), NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.6;
    s.conformal_samples = 0;
    test_rng rng = {12345};
    int total = 0, differ = 0;
    for (int trial = 0; trial < 80; trial++) {
        const osc_brep* other = trial % 2 ? box : sphere;
        double angle = test_uniform(&rng, -TEST_PI, TEST_PI), z = test_uniform(&rng, -0.7, 0.7);
        double r = test_uniform(&rng, 0.2, 1.0);
        osc_vec3 axis =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        osc_pose pose = osc_pose_make(osc_v3((k_radius + r) * cos(angle), (k_radius + r) * sin(angle), z),
                                      osc_quat_from_axis_angle(axis, test_uniform(&rng, -3, 3)));
        int n = query(split, osc_pose_identity(), other, pose, &s, g_on, NULL);
        int m = query(whole, osc_pose_identity(), other, pose, &s, g_off, NULL);
        qsort(g_on, (size_t)n, sizeof *g_on, compare_distance);
        qsort(g_off, (size_t)m, sizeof *g_off, compare_distance);
        bool same = n == m;
        for (int i = 0; same && i < n; i++)
            same = fabs(g_on[i].distance - g_off[i].distance) <= 1e-9 &&
                   osc_length(osc_sub(g_on[i].point_a, g_off[i].point_a)) <= 1e-7;
        CHECK_MSG(same, "trial %d: %d contacts on the split cylinder, %d on the whole one", trial, n, m);
        if (!same) {
            for (int i = 0; i < n; i++)
                printf("    split: %d %d - %d %d  d %.12f  a (%.6f %.6f %.6f)\n", g_on[i].kind_a, g_on[i].feature_a,
                       g_on[i].kind_b, g_on[i].feature_b, g_on[i].distance, g_on[i].point_a.x, g_on[i].point_a.y,
                       g_on[i].point_a.z);
            for (int i = 0; i < m; i++)
                printf("    whole: %d %d - %d %d  d %.12f  a (%.6f %.6f %.6f)\n", g_off[i].kind_a, g_off[i].feature_a,
                       g_off[i].kind_b, g_off[i].feature_b, g_off[i].distance, g_off[i].point_a.x, g_off[i].point_a.y,
                       g_off[i].point_a.z);
        }
        differ += !same;
        total += n;
    }
    printf("  split against whole cylinder: %d contacts on 80 poses, %d poses differ\n", total, differ);
    osc_brep_destroy(split);
    osc_brep_destroy(whole);
    osc_brep_destroy(sphere);
    osc_brep_destroy(box);
}

// ---- groups on and off on random poses ---------------------------------------------------------------

static bool contains(const osc_lmd_contact* list, int n, const osc_lmd_contact* c, double tol);

// Pairs of the builders' solids (a ball, whose face is a sphere, so that circles coaxial with it
// are conformal on a curved meridian and searched leaf pair by leaf pair; a box; a cylinder; a
// cone frustum) at random poses, conformal samples on: the same contacts with and without groups.
static void test_random_poses(void) {
    osc_brep* on[4];
    osc_brep* off[4];
    for (int k = 0; k < 2; k++) {
        osc_brep** list = k ? off : on;
        CHECK_STATUS(osc_brep_create_sphere(0.3, NULL, &list[0]), OSC_OK);
        CHECK_STATUS(osc_brep_create_box(osc_v3(0.2, 0.3, 0.25), NULL, &list[1]), OSC_OK);
        CHECK_STATUS(osc_brep_create_cylinder(0.25, 0.35, NULL, &list[2]), OSC_OK);
        CHECK_STATUS(osc_brep_create_cone(0.3, 0.15, 0.3, NULL, &list[3]), OSC_OK);
    }
    for (int i = 0; i < 4; i++) CHECK_STATUS(osc_brep_set_supermaximal(off[i], false), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.4;
    test_rng rng = {777};
    int total = 0, mismatched = 0;
    long searches_on = 0, searches_off = 0;
    for (int trial = 0; trial < 160; trial++) {
        int i = trial % 4, j = (trial / 4) % 4;
        osc_vec3 axis =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        osc_vec3 dir =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        // every fourth pose coaxial (a rim circle against the other's surface of revolution)
        bool coaxial = trial % 4 == 3;
        osc_pose pose = coaxial ? osc_pose_make(osc_v3(0, 0, test_uniform(&rng, 0.75, 0.9)), osc_quat_identity())
                                : osc_pose_make(osc_scale(dir, test_uniform(&rng, 0.5, 0.9)),
                                                osc_quat_from_axis_angle(axis, test_uniform(&rng, -3, 3)));
        osc_lmd_stats a, b;
        int n = query(on[i], osc_pose_identity(), on[j], pose, &s, g_on, &a);
        int m = query(off[i], osc_pose_identity(), off[j], pose, &s, g_off, &b);
        int bad = n != m;
        for (int k = 0; k < m; k++) bad += !contains(g_on, n, &g_off[k], 1e-9);
        CHECK_MSG(bad == 0, "trial %d (solids %d, %d): %d contacts with groups, %d without", trial, i, j, n, m);
        mismatched += bad != 0;
        total += n;
        searches_on += a.searches, searches_off += b.searches;
    }
    printf("  random poses: %d contacts on 160 poses, %d differ; %ld searches (%ld without groups)\n", total,
           mismatched, searches_on, searches_off);
    for (int i = 0; i < 4; i++) {
        osc_brep_destroy(on[i]);
        osc_brep_destroy(off[i]);
    }
}

// ---- the insertion scenarios with and without groups --------------------------------------------------

// Is contact c in `list` [n]: the same features and footpoints within tol?
static bool contains(const osc_lmd_contact* list, int n, const osc_lmd_contact* c, double tol) {
    for (int i = 0; i < n; i++)
        if (list[i].kind_a == c->kind_a && list[i].kind_b == c->kind_b && list[i].feature_a == c->feature_a &&
            list[i].feature_b == c->feature_b && list[i].flags == c->flags &&
            osc_length(osc_sub(list[i].point_a, c->point_a)) <= tol &&
            osc_length(osc_sub(list[i].point_b, c->point_b)) <= tol)
            return true;
    return false;
}

static void test_scenarios(void) {
    for (int k = 0; k < 2; k++) {
        const lmd_scenario* sc = &lmd_scenarios[k];
        osc_brep *peg, *block, *peg_off, *block_off;
        CHECK_STATUS(osc_brep_create_revolved(sc->peg, sc->peg_count, NULL, &peg), OSC_OK);
        CHECK_STATUS(osc_brep_create_block_with_hole(sc->block_half, sc->hole, sc->hole_count, NULL, &block), OSC_OK);
        CHECK_STATUS(osc_brep_create_revolved(sc->peg, sc->peg_count, NULL, &peg_off), OSC_OK);
        CHECK_STATUS(osc_brep_create_block_with_hole(sc->block_half, sc->hole, sc->hole_count, NULL, &block_off),
                     OSC_OK);
        CHECK_STATUS(osc_brep_set_supermaximal(peg_off, false), OSC_OK);
        CHECK_STATUS(osc_brep_set_supermaximal(block_off, false), OSC_OK);
        osc_brep_info info;
        osc_brep_get_info(peg, &info);
        osc_pose profile_from_body = osc_pose_make(osc_v3(0, 0, -info.lo.z), osc_quat_identity());
        osc_lmd_settings s = osc_lmd_settings_default();
        s.d_max = sc->d_max;
        // a wobble small enough to keep the peg clear of the hole (at most 4 wobble in mm)
        double wobble = 0.15 * sc->clearance;
        double tol = 1e-9 * fmax(peg->scale, block->scale);
        long contacts_on = 0, contacts_off = 0, pairs = 0, searches_on = 0, searches_off = 0;
        int missing = 0, extra = 0;
        for (int step = 0; step < 300; step += 5) {
            int phase;
            osc_pose pose = osc_pose_compose(lmd_path_pose(sc, step, 300, wobble, &phase), profile_from_body);
            osc_lmd_stats on, off;
            int n = query(peg, pose, block, osc_pose_identity(), &s, g_on, &on);
            int m = query(peg_off, pose, block_off, osc_pose_identity(), &s, g_off, &off);
            for (int i = 0; i < m; i++) missing += !contains(g_on, n, &g_off[i], tol);
            for (int i = 0; i < n; i++) extra += !contains(g_off, m, &g_on[i], tol);
            contacts_on += n, contacts_off += m;
            pairs += on.leaf_pairs, searches_on += on.searches, searches_off += off.searches;
            CHECK(on.leaf_pairs == off.leaf_pairs);
        }
        CHECK_MSG(missing == 0 && extra == 0, "%s: %d contacts lost, %d new", sc->name, missing, extra);
        CHECK(searches_on < searches_off);
        printf("  %s, 60 poses: %ld contacts (%ld without groups), %ld leaf pairs, %ld searches (%ld without)\n",
               sc->name, contacts_on, contacts_off, pairs, searches_on, searches_off);
        osc_brep_destroy(peg);
        osc_brep_destroy(block);
        osc_brep_destroy(peg_off);
        osc_brep_destroy(block_off);
    }
}

// ---- gradients across the seam ------------------------------------------------------------------------

// The gap of the contact between the split cylinder's wall and the box's edge (the one with its A
// footpoint nearest p), or NaN.
static double wall_gap(const osc_brep* split, const osc_brep* box, osc_pose pa, osc_pose pb, const osc_lmd_settings* s,
                       osc_vec3 p, double* jacobian) {
    static double jacobians[CAP][12];
    osc_lmd_output output = {g_on, CAP, -1, -1, &jacobians[0][0], -1};
    if (osc_lmd_query(split, pa, box, pb, s, NULL, &output, 1) != OSC_OK) return NAN;
    int best = -1;
    for (int i = 0; i < output.count; i++)
        if (g_on[i].kind_a == OSC_FEATURE_FACE && g_on[i].kind_b == OSC_FEATURE_EDGE &&
            (best < 0 || osc_length(osc_sub(g_on[i].point_a, p)) < osc_length(osc_sub(g_on[best].point_a, p))))
            best = i;
    if (best < 0) return NAN;
    if (jacobian) memcpy(jacobian, jacobians[best], sizeof jacobians[best]);
    return g_on[best].distance;
}

// The twist convention of docs/lmd.md: p <- p + dp, R <- exp([dtheta]x) R.
static osc_pose perturbed(osc_pose pose, int column, double h) {
    if (column < 3) {
        double* p = &pose.p.x;
        p[column] += h;
        return pose;
    }
    osc_vec3 axis = osc_v3(column == 3, column == 4, column == 5);
    pose.q = osc_quat_mul(osc_quat_from_axis_angle(axis, h), pose.q);
    return pose;
}

static void test_gradients(void) {
    osc_brep *split, *box;
    CHECK_STATUS(create_split_cylinder(&split), OSC_OK);
    CHECK_STATUS(osc_brep_create_box(osc_v3(0.1, 0.5, 0.1), NULL, &box), OSC_OK);
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.5;
    s.eps_a = 0.01;
    double worst = 0.0;
    int columns = 0;
    // the box's edge facing the seam at x = R, on it and 1e-7 rad to either side, the cylinder
    // turned a little so that nothing is aligned with the world axes
    for (int k = -1; k <= 1; k++) {
        osc_quat turn = osc_quat_from_axis_angle(osc_v3(0, 0, 1), 1e-7 * k);
        osc_pose pa = osc_pose_make(osc_v3(0.01, -0.02, 0.03),
                                    osc_quat_from_axis_angle(osc_normalize(osc_v3(0.2, -0.1, 1)), 0.3));
        osc_pose pb = osc_pose_make(osc_v3(k_radius + 0.3 + 0.1 * sqrt(2.0), 0, 0.05),
                                    osc_quat_mul(turn, osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.25 * TEST_PI)));
        pb = osc_pose_compose(pa, pb);
        double jacobian[12];
        osc_vec3 seam = osc_pose_apply(pa, osc_v3(k_radius, 0, 0.05));
        double g = wall_gap(split, box, pa, pb, &s, seam, jacobian);
        CHECK(isfinite(g));
        if (!isfinite(g)) continue;
        CHECK_NEAR(g, 0.3 - s.eps_a, 1e-9);
        const double h = 1e-6;
        for (int c = 0; c < 12; c++) {
            osc_pose a1 = c < 6 ? perturbed(pa, c, h) : pa, b1 = c < 6 ? pb : perturbed(pb, c - 6, h);
            osc_pose a0 = c < 6 ? perturbed(pa, c, -h) : pa, b0 = c < 6 ? pb : perturbed(pb, c - 6, -h);
            double gp = wall_gap(split, box, a1, b1, &s, seam, NULL), gm = wall_gap(split, box, a0, b0, &s, seam, NULL);
            double fd = (gp - gm) / (2 * h);
            CHECK_NEAR(jacobian[c], fd, 1e-8);
            worst = fmax(worst, fabs(jacobian[c] - fd));
            columns++;
        }
    }
    printf("  gap gradients at the seam: worst error %.2g over %d columns\n", worst, columns);
    osc_brep_destroy(split);
    osc_brep_destroy(box);
}

int main(void) {
    RUN(test_groups);
    RUN(test_seams);
    RUN(test_split_is_whole);
    RUN(test_random_poses);
    RUN(test_scenarios);
    RUN(test_gradients);
    return test_finish();
}
