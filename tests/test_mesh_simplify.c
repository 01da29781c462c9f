// test_mesh_simplify.c: osc_mesh_simplify (mesh.h) against its contract, on the meshes it is made
// for: marching-cubes surfaces of SDFs (sphere, torus, two linked tori, a double torus, a box whose
// faces lie exactly on grid planes, the cup of examples/cup_model.h). Oracles: the topology of the
// input (closed, manifold, oriented, Euler characteristic, components), the SDF itself (distance of
// the output from the true surface), the box's analytic corners, the input boundary (vertices of
// the output boundary are vertices of the input boundary, bit for bit), the angles of every
// triangle the simplifier created, a second run (bit for bit), and a failing allocator.

#include "osculate/osculate.h"

#include "../examples/cup_model.h"
#include "mesh_test_util.h"

#include <float.h>

// ---------------------------------------------------------------------------------------------
// oracles

static double vec_length(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// the three angles' minimum, in degrees (atan2 of |cross| and dot at each corner)
static double triangle_min_angle(const double* p0, const double* p1, const double* p2) {
    const double* p[3] = {p0, p1, p2};
    double smallest = 180.0;
    for (int k = 0; k < 3; ++k) {
        const double* o = p[k];
        const double* a = p[(k + 1) % 3];
        const double* b = p[(k + 2) % 3];
        double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
        double v[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
        double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double angle = atan2(vec_length(c), u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 180.0 / TEST_PI;
        if (angle < smallest) smallest = angle;
    }
    return smallest;
}

// twice the triangle's area
static double triangle_double_area(const double* p0, const double* p1, const double* p2) {
    double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    double v[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return vec_length(c);
}

static double mesh_min_angle(const osc_mesh* mesh) {
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* t = osc_mesh_triangles(mesh);
    double smallest = 180.0;
    for (int32_t i = 0; i < osc_mesh_triangle_count(mesh); ++i)
        smallest = fmin(smallest, triangle_min_angle(v + 3 * t[3 * i], v + 3 * t[3 * i + 1], v + 3 * t[3 * i + 2]));
    return smallest;
}

// lexicographic order of 3 doubles (for exact look-ups of input vertices)
typedef struct point_key {
    double p[3];
    int32_t index;
} point_key;

static int compare_points(const void* x, const void* y) {
    const point_key* a = x;
    const point_key* b = y;
    for (int k = 0; k < 3; ++k)
        if (a->p[k] != b->p[k]) return a->p[k] < b->p[k] ? -1 : 1;
    return 0;
}

// the input vertices sorted for exact look-up; release with free
static point_key* sorted_points(const osc_mesh* mesh) {
    int32_t n = osc_mesh_vertex_count(mesh);
    point_key* keys = malloc(((size_t)n + 1) * sizeof *keys);
    for (int32_t i = 0; i < n; ++i) {
        memcpy(keys[i].p, osc_mesh_vertices(mesh) + 3 * i, sizeof keys[i].p);
        keys[i].index = i;
    }
    qsort(keys, (size_t)n, sizeof *keys, compare_points);
    return keys;
}

// the input vertex with exactly the coordinates p, or -1
static int32_t find_point(const point_key* keys, int32_t count, const double p[3]) {
    point_key probe;
    memcpy(probe.p, p, sizeof probe.p);
    const point_key* hit = bsearch(&probe, keys, (size_t)count, sizeof *keys, compare_points);
    return hit ? hit->index : -1;
}

// a triangle as its vertex indices rotated to start at the smallest (keeps the orientation)
typedef struct triangle_key {
    int32_t v[3];
} triangle_key;

static triangle_key make_triangle_key(int32_t a, int32_t b, int32_t c) {
    triangle_key k;
    if (a < b && a < c)
        k = (triangle_key){{a, b, c}};
    else if (b < c)
        k = (triangle_key){{b, c, a}};
    else
        k = (triangle_key){{c, a, b}};
    return k;
}

static int compare_triangles(const void* x, const void* y) {
    const triangle_key* a = x;
    const triangle_key* b = y;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

// marks, for each output triangle, whether it is an input triangle untouched (same three vertex
// positions, same orientation); returns the number of created triangles. `created` [triangles].
static int32_t mark_created(const osc_mesh* input, const osc_mesh* output, unsigned char* created) {
    int32_t n_in = osc_mesh_vertex_count(input), t_in = osc_mesh_triangle_count(input);
    point_key* points = sorted_points(input);
    triangle_key* keys = malloc(((size_t)t_in + 1) * sizeof *keys);
    const int32_t* ti = osc_mesh_triangles(input);
    for (int32_t i = 0; i < t_in; ++i) keys[i] = make_triangle_key(ti[3 * i], ti[3 * i + 1], ti[3 * i + 2]);
    qsort(keys, (size_t)t_in, sizeof *keys, compare_triangles);
    const double* vo = osc_mesh_vertices(output);
    const int32_t* to = osc_mesh_triangles(output);
    int32_t count = 0;
    for (int32_t i = 0; i < osc_mesh_triangle_count(output); ++i) {
        int32_t original[3];
        for (int k = 0; k < 3; ++k) original[k] = find_point(points, n_in, vo + 3 * to[3 * i + k]);
        triangle_key key = make_triangle_key(original[0], original[1], original[2]);
        created[i] = original[0] < 0 || original[1] < 0 || original[2] < 0 ||
                     !bsearch(&key, keys, (size_t)t_in, sizeof *keys, compare_triangles);
        count += created[i];
    }
    free(points);
    free(keys);
    return count;
}

// ---------------------------------------------------------------------------------------------
// the guarantees on one simplification of a closed marching-cubes mesh

typedef struct shape_case {
    const char* name;
    const osc_sdf* sdf;
    const osc_mesh* input;
    osc_mesh_topology topology; // of the input
    double input_deviation;     // the largest distance of the input from the surface (the
                                // marching-cubes error; 6 points per triangle)
    double input_min_angle;
} shape_case;

static shape_case make_case(const char* name, const osc_sdf* sdf, const osc_mesh* input) {
    shape_case c = {name, sdf, input, {0}, 0.0, 0.0};
    osc_mesh_get_topology(input, &c.topology);
    c.input_deviation = test_mesh_deviation(sdf, input, 2);
    c.input_min_angle = mesh_min_angle(input);
    return c;
}

// simplifies `c` with `settings` and checks every guarantee; returns the output (caller destroys)
static osc_mesh* check_simplification(const shape_case* c, osc_mesh_simplify_settings settings) {
    osc_mesh* out = NULL;
    double achieved = -1.0;
    double start = test_seconds();
    CHECK_STATUS(osc_mesh_simplify(c->input, &settings, &out, &achieved), OSC_OK);
    double elapsed = test_seconds() - start;
    if (!out) return NULL;
    osc_mesh_topology t;
    osc_mesh_get_topology(out, &t);
    int32_t triangles = osc_mesh_triangle_count(out);
    const char* name = c->name;
    int target = settings.target_triangles;
    // topology: closed, manifold, oriented, same Euler characteristic and components
    CHECK_MSG(t.closed == c->topology.closed, "%s -> %d: closed %d", name, target, t.closed);
    CHECK_MSG(t.non_manifold_edges == 0 && t.inconsistent_edges == 0,
              "%s -> %d: %d non-manifold, %d inconsistent edges", name, target, t.non_manifold_edges,
              t.inconsistent_edges);
    CHECK_MSG(t.boundary_edges == 0, "%s -> %d: %d boundary edges", name, target, t.boundary_edges);
    CHECK_MSG(t.euler_characteristic == c->topology.euler_characteristic && t.components == c->topology.components,
              "%s -> %d: chi %d components %d, input %d %d", name, target, t.euler_characteristic, t.components,
              c->topology.euler_characteristic, c->topology.components);
    CHECK_MSG(t.isolated_vertices == 0 && t.degenerate_triangles == 0,
              "%s -> %d: %d isolated vertices, %d degenerate triangles", name, target, t.isolated_vertices,
              t.degenerate_triangles);
    CHECK(t.vertex_count >= 4 * t.components);
    // the count: at most the target unless max_error stopped it, or unless the target is below
    // the smallest closed surface (then a genus-0 input ends as a tetrahedron)
    int tetrahedron = t.vertex_count == 4 && t.triangle_count == 4;
    CHECK_MSG(triangles <= target || isfinite(settings.max_error) || (target < 4 && tetrahedron),
              "%s -> %d: %d triangles", name, target, triangles);
    CHECK_MSG(achieved >= 0.0 && achieved <= settings.max_error, "%s -> %d: achieved %g, max %g", name, target,
              achieved, settings.max_error);
    // no zero-area triangle; created triangles respect min_angle
    const double* v = osc_mesh_vertices(out);
    const int32_t* tri = osc_mesh_triangles(out);
    unsigned char* created = malloc((size_t)triangles + 1);
    int32_t created_count = mark_created(c->input, out, created);
    int32_t zero_area = 0, below = 0;
    double min_created = 180.0;
    for (int32_t i = 0; i < triangles; ++i) {
        const double *p0 = v + 3 * tri[3 * i], *p1 = v + 3 * tri[3 * i + 1], *p2 = v + 3 * tri[3 * i + 2];
        zero_area += !(triangle_double_area(p0, p1, p2) > 0.0);
        if (!created[i]) continue;
        double angle = triangle_min_angle(p0, p1, p2);
        min_created = fmin(min_created, angle);
        below += angle < settings.min_angle - 1e-9;
    }
    free(created);
    CHECK_MSG(zero_area == 0, "%s -> %d: %d zero-area triangles", name, target, zero_area);
    // (the contract allows a created triangle below min_angle where the triangles it replaces were
    // worse; none is on these inputs, measured 0 everywhere)
    CHECK_MSG(below == 0, "%s -> %d: %d of %d created triangles below %g degrees", name, target, below, created_count,
              settings.min_angle);
    // distance from the true surface: the marching-cubes error plus 3 x the quadric RMS error
    double deviation = test_mesh_deviation(c->sdf, out, 4);
    double bound = c->input_deviation + 3.0 * achieved;
    CHECK_MSG(deviation <= bound, "%s -> %d: max |phi| %g above %g (input %g, achieved %g)", name, target, deviation,
              bound, c->input_deviation, achieved);
    // the enclosed volume moves by at most area x deviation
    double volume_change = fabs(osc_mesh_volume(out) - osc_mesh_volume(c->input));
    CHECK_MSG(volume_change <= osc_mesh_area(c->input) * bound, "%s -> %d: volume changed by %g", name, target,
              volume_change);
    printf("  %-8s %6d -> %5d triangles (target %5d)  achieved %.3g  max|phi| %.3g (input %.3g)  "
           "min angle %.3g (created %.3g, input %.3g)  %.3f s\n",
           name, osc_mesh_triangle_count(c->input), triangles, target, achieved, deviation, c->input_deviation,
           mesh_min_angle(out), min_created, c->input_min_angle, elapsed);
    return out;
}

static void check_targets(const shape_case* c, const int* targets, int count) {
    for (int i = 0; i < count; ++i) {
        osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
        settings.target_triangles = targets[i];
        osc_mesh_destroy(check_simplification(c, settings));
    }
}

// ---------------------------------------------------------------------------------------------
// closed shapes

// a sphere (genus 0) at three targets, then bounded by max_error only
static void test_sphere(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 48);
    shape_case c = make_case("sphere", sdf, input);
    const int targets[] = {2000, 500, 100};
    check_targets(&c, targets, 3);
    // the error bound alone: target 0, max_error 1e-3
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = 0;
    settings.max_error = 1e-3;
    osc_mesh* out = check_simplification(&c, settings);
    CHECK(osc_mesh_triangle_count(out) > 100 && osc_mesh_triangle_count(out) < osc_mesh_triangle_count(input) / 4);
    osc_mesh_destroy(out);
    // no bound at all: down to the smallest closed surface the guards allow, never below 4 vertices
    settings.max_error = INFINITY;
    out = check_simplification(&c, settings);
    CHECK_MSG(osc_mesh_vertex_count(out) == 4 && osc_mesh_triangle_count(out) == 4, "%d vertices, %d triangles",
              osc_mesh_vertex_count(out), osc_mesh_triangle_count(out));
    osc_mesh_destroy(out);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// a torus (genus 1, Euler characteristic 0)
static void test_torus(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.15, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 64);
    shape_case c = make_case("torus", sdf, input);
    CHECK(c.topology.closed && c.topology.euler_characteristic == 0);
    const int targets[] = {2000, 500, 100};
    check_targets(&c, targets, 3);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// two linked tori (two components, each genus 1) and a double torus (genus 2, chi -2)
static void test_linked_and_double_tori(void) {
    osc_sdf *ring = NULL, *turned = NULL, *linked = NULL, *left = NULL, *right = NULL, *genus2 = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.12, &ring), OSC_OK);
    osc_pose pose = {osc_v3(0.5, 0.0, 0.0), osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.5 * TEST_PI)};
    CHECK_STATUS(osc_sdf_create_transformed(ring, pose, 1.0, &turned), OSC_OK);
    const osc_sdf* pair[2] = {ring, turned};
    CHECK_STATUS(osc_sdf_create_union(pair, 2, 0.0, &linked), OSC_OK);
    osc_pose to_left = {osc_v3(-0.45, 0.0, 0.0), osc_quat_identity()};
    osc_pose to_right = {osc_v3(0.45, 0.0, 0.0), osc_quat_identity()};
    CHECK_STATUS(osc_sdf_create_transformed(ring, to_left, 1.0, &left), OSC_OK);
    CHECK_STATUS(osc_sdf_create_transformed(ring, to_right, 1.0, &right), OSC_OK);
    const osc_sdf* halves[2] = {left, right};
    CHECK_STATUS(osc_sdf_create_union(halves, 2, 0.02, &genus2), OSC_OK);

    osc_mesh* linked_mesh = test_extract_mesh(linked, 64);
    shape_case c = make_case("linked", linked, linked_mesh);
    CHECK(c.topology.closed && c.topology.components == 2 && c.topology.euler_characteristic == 0);
    const int targets[] = {2000, 500, 100};
    check_targets(&c, targets, 3);
    osc_mesh* genus2_mesh = test_extract_mesh(genus2, 64);
    shape_case d = make_case("genus 2", genus2, genus2_mesh);
    CHECK(d.topology.closed && d.topology.components == 1 && d.topology.euler_characteristic == -2);
    check_targets(&d, targets, 3);

    osc_mesh_destroy(linked_mesh);
    osc_mesh_destroy(genus2_mesh);
    osc_sdf* models[6] = {ring, turned, linked, left, right, genus2};
    for (int i = 0; i < 6; ++i) osc_sdf_destroy(models[i]);
}

// the hard case: a sharp box whose faces lie exactly on grid planes (corner values exactly 0, so
// marching cubes leaves clusters of vertices 1e-8 apart and slivers along the edges and corners).
// Beyond the guarantees, every corner of the box is found within a fraction of a cell of an output
// vertex, and 12 triangles (the box itself) are reached.
static void test_box_on_grid_planes(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.3, 0.4), 0.0, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 96);
    shape_case c = make_case("box", sdf, input);
    CHECK(c.topology.closed && c.topology.euler_characteristic == 2);
    CHECK_MSG(c.input_min_angle < 1e-2, "the input is expected to hold slivers (min angle %g)", c.input_min_angle);
    double cell = (1.0 + 4.0 * (1.0 / 92.0)) / 96.0; // longest side 1, two-cell margins: 1/92
    const int targets[] = {1000, 300, 100, 12};
    const double corner_tolerance[] = {0.8 * cell, 0.5 * cell, 0.3 * cell, 0.2 * cell};
    for (int i = 0; i < 4; ++i) {
        osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
        settings.target_triangles = targets[i];
        osc_mesh* out = check_simplification(&c, settings);
        if (!out) continue;
        double worst = test_box_corner_distance(out, osc_v3(0.5, 0.3, 0.4));
        CHECK_MSG(worst <= corner_tolerance[i], "box -> %d: a corner is %g from the nearest vertex (cell %g)",
                  targets[i], worst, cell);
        printf("  box -> %d: corners within %.3g (%.2f cell)\n", targets[i], worst, worst / cell);
        if (targets[i] == 12) CHECK(osc_mesh_triangle_count(out) == 12 && osc_mesh_vertex_count(out) == 8);
        osc_mesh_destroy(out);
    }
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// the cup of Beker et al. 2026 Fig. 9 (genus 1, through its handle)
static void test_cup(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(make_cup(&sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 64);
    shape_case c = make_case("cup", sdf, input);
    CHECK(c.topology.closed && c.topology.euler_characteristic == 0);
    const int targets[] = {2000, 500, 150};
    check_targets(&c, targets, 3);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// ---------------------------------------------------------------------------------------------
// triangle quality on a clean input: a subdivided icosahedron has no angle below 50 degrees, so
// every triangle of the output must respect min_angle exactly

static osc_mesh* make_icosphere(int levels) {
    const double g = (1.0 + sqrt(5.0)) / 2.0;
    double base[12][3] = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                          {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
    const int32_t faces[20][3] = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                  {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                                  {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    int32_t max_triangles = 20, max_vertices = 12;
    for (int l = 0; l < levels; ++l) max_triangles *= 4;
    max_vertices = max_triangles / 2 + 2;
    double* v = malloc((size_t)max_vertices * 3 * sizeof *v);
    int32_t* t = malloc((size_t)max_triangles * 3 * sizeof *t);
    int32_t* next = malloc((size_t)max_triangles * 3 * sizeof *next);
    int32_t nv = 12, nt = 20;
    for (int i = 0; i < 12; ++i)
        for (int k = 0; k < 3; ++k) v[3 * i + k] = base[i][k] / vec_length(base[i]);
    memcpy(t, faces, sizeof faces);
    for (int l = 0; l < levels; ++l) {
        int32_t count = 0;
        for (int32_t f = 0; f < nt; ++f) {
            int32_t mid[3];
            for (int k = 0; k < 3; ++k) {
                int32_t a = t[3 * f + k], b = t[3 * f + (k + 1) % 3];
                double m[3] = {v[3 * a] + v[3 * b], v[3 * a + 1] + v[3 * b + 1], v[3 * a + 2] + v[3 * b + 2]};
                double len = vec_length(m);
                int32_t found = -1; // midpoints are shared: look them up (small meshes only)
                for (int32_t j = 0; j < nv && found < 0; ++j)
                    if (v[3 * j] == m[0] / len && v[3 * j + 1] == m[1] / len && v[3 * j + 2] == m[2] / len) found = j;
                if (found < 0) {
                    for (int q = 0; q < 3; ++q) v[3 * nv + q] = m[q] / len;
                    found = nv++;
                }
                mid[k] = found;
            }
            int32_t corners[3] = {t[3 * f], t[3 * f + 1], t[3 * f + 2]};
            int32_t children[4][3] = {{corners[0], mid[0], mid[2]},
                                      {corners[1], mid[1], mid[0]},
                                      {corners[2], mid[2], mid[1]},
                                      {mid[0], mid[1], mid[2]}};
            memcpy(next + 3 * count, children, sizeof children);
            count += 4;
        }
        memcpy(t, next, (size_t)count * 3 * sizeof *t);
        nt = count;
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(v, nv, t, nt, &mesh), OSC_OK);
    free(v);
    free(t);
    free(next);
    return mesh;
}

static void test_min_angle_on_clean_input(void) {
    osc_mesh* input = make_icosphere(4); // 5120 triangles
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    shape_case c = make_case("icosph", sphere, input);
    CHECK(c.input_min_angle > 50.0);
    const double angles[] = {30.0, 20.0, 10.0};
    for (int i = 0; i < 3; ++i) {
        for (int target = 1000; target >= 0; target -= 1000) { // 1000, then as far as allowed
            osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
            settings.target_triangles = target;
            settings.min_angle = angles[i];
            osc_mesh* out = check_simplification(&c, settings); // created triangles >= min_angle
            if (out)
                CHECK_MSG(mesh_min_angle(out) >= angles[i] - 1e-9, "min angle %g below %g", mesh_min_angle(out),
                          angles[i]);
            osc_mesh_destroy(out);
        }
    }
    osc_sdf_destroy(sphere);
    osc_mesh_destroy(input);
}

// ---------------------------------------------------------------------------------------------
// open meshes: the boundary stays a boundary, made of input boundary vertices

// boundary vertex flags [vertex_count] of a mesh (ends of edges with one triangle)
static unsigned char* boundary_vertices(const osc_mesh* mesh) {
    unsigned char* flag = calloc((size_t)osc_mesh_vertex_count(mesh) + 1, 1);
    const int32_t* edges = osc_mesh_edges(mesh);
    const int32_t* adjacent = osc_mesh_edge_triangles(mesh);
    for (int32_t e = 0; e < osc_mesh_edge_count(mesh); ++e)
        if (adjacent[2 * e + 1] < 0) flag[edges[2 * e]] = flag[edges[2 * e + 1]] = 1;
    return flag;
}

// simplifies an open mesh and checks: same Euler characteristic and components, manifold and
// oriented, a boundary remains, and every output boundary vertex is an input boundary vertex with
// the same coordinates, bit for bit (so it lies on the original boundary curve)
static osc_mesh* check_open(const osc_mesh* input, int target, const char* name, double* achieved) {
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = target;
    osc_mesh* out = NULL;
    CHECK_STATUS(osc_mesh_simplify(input, &settings, &out, achieved), OSC_OK);
    if (!out) return NULL;
    osc_mesh_topology before, after;
    osc_mesh_get_topology(input, &before);
    osc_mesh_get_topology(out, &after);
    CHECK_MSG(before.boundary_edges > 0 && after.boundary_edges > 0, "%s -> %d: %d boundary edges", name, target,
              after.boundary_edges);
    CHECK_MSG(after.euler_characteristic == before.euler_characteristic && after.components == before.components &&
                  after.non_manifold_edges == 0 && after.inconsistent_edges == 0 && after.degenerate_triangles == 0,
              "%s -> %d: chi %d (input %d), %d non-manifold, %d inconsistent", name, target, after.euler_characteristic,
              before.euler_characteristic, after.non_manifold_edges, after.inconsistent_edges);
    CHECK(osc_mesh_triangle_count(out) <= target);
    unsigned char* input_boundary = boundary_vertices(input);
    unsigned char* output_boundary = boundary_vertices(out);
    point_key* points = sorted_points(input);
    int32_t strays = 0, boundary_count = 0;
    for (int32_t v = 0; v < osc_mesh_vertex_count(out); ++v) {
        if (!output_boundary[v]) continue;
        ++boundary_count;
        int32_t original = find_point(points, osc_mesh_vertex_count(input), osc_mesh_vertices(out) + 3 * v);
        strays += original < 0 || !input_boundary[original];
    }
    CHECK_MSG(strays == 0, "%s -> %d: %d output boundary vertices are not input boundary vertices", name, target,
              strays);
    // one boundary loop in, one out: as many boundary vertices as boundary edges
    CHECK(boundary_count == after.boundary_edges);
    printf("  %-8s %6d -> %5d triangles, boundary edges %d -> %d, achieved %.3g\n", name,
           osc_mesh_triangle_count(input), osc_mesh_triangle_count(out), before.boundary_edges, after.boundary_edges,
           *achieved);
    free(input_boundary);
    free(output_boundary);
    free(points);
    return out;
}

// a tilted plane clipped by the region: a flat quadrilateral patch goes down to 2 triangles whose
// 4 vertices are the corners of the patch (where the plane meets the region's vertical edges)
static void test_flat_patch(void) {
    osc_sdf* plane = NULL;
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0.3, 0.2, 1.0), 0.05, &plane), OSC_OK);
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.lo = osc_v3(-0.5, -0.5, -0.5);
    iso.hi = osc_v3(0.5, 0.5, 0.5);
    iso.resolution = 32;
    osc_mesh* input = NULL;
    CHECK_STATUS(osc_isosurface_extract(plane, &iso, &input), OSC_OK);
    double achieved = -1.0;
    osc_mesh* out = check_open(input, 2, "patch", &achieved);
    if (out) {
        CHECK(osc_mesh_triangle_count(out) == 2 && osc_mesh_vertex_count(out) == 4);
        CHECK(achieved >= 0.0 && achieved < 2e-4); // measured 7.2e-5
        for (int32_t v = 0; v < osc_mesh_vertex_count(out); ++v) {
            const double* p = osc_mesh_vertices(out) + 3 * v;
            double z = -(0.3 * p[0] + 0.2 * p[1] + 0.05); // on the plane, at a corner of the region
            CHECK_MSG(fabs(fabs(p[0]) - 0.5) < 1e-12 && fabs(fabs(p[1]) - 0.5) < 1e-12 && fabs(p[2] - z) < 1e-6,
                      "patch vertex (%g, %g, %g)", p[0], p[1], p[2]);
        }
    }
    osc_mesh_destroy(out);
    out = check_open(input, 40, "patch", &achieved);
    osc_mesh_destroy(out);
    osc_mesh_destroy(input);
    osc_sdf_destroy(plane);
}

// a hemisphere (the sphere clipped at z = 0 by the region): the rim keeps input rim vertices, at
// z = 0 exactly, and the rim's chords stay within the marching-cubes error plus 3 x the achieved
// error of the circle
static void test_hemisphere(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sphere), OSC_OK);
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.lo = osc_v3(-0.6, -0.6, 0.0);
    iso.hi = osc_v3(0.6, 0.6, 0.6);
    iso.resolution = 48;
    osc_mesh* input = NULL;
    CHECK_STATUS(osc_isosurface_extract(sphere, &iso, &input), OSC_OK);
    double input_rim = 0.0; // largest |r - 0.5| over the input rim vertices
    unsigned char* rim = boundary_vertices(input);
    for (int32_t v = 0; v < osc_mesh_vertex_count(input); ++v) {
        const double* p = osc_mesh_vertices(input) + 3 * v;
        if (rim[v]) input_rim = fmax(input_rim, fabs(hypot(p[0], p[1]) - 0.5));
    }
    free(rim);
    const int targets[] = {1000, 300, 60};
    for (int i = 0; i < 3; ++i) {
        double achieved = -1.0;
        osc_mesh* out = check_open(input, targets[i], "hemisph", &achieved);
        if (!out) continue;
        const double* v = osc_mesh_vertices(out);
        const int32_t* edges = osc_mesh_edges(out);
        const int32_t* adjacent = osc_mesh_edge_triangles(out);
        double worst = 0.0, worst_z = 0.0;
        for (int32_t e = 0; e < osc_mesh_edge_count(out); ++e) {
            if (adjacent[2 * e + 1] >= 0) continue;
            const double* a = v + 3 * edges[2 * e];
            const double* b = v + 3 * edges[2 * e + 1];
            worst_z = fmax(worst_z, fmax(fabs(a[2]), fabs(b[2])));
            for (int s = 0; s <= 4; ++s) {
                double u = s / 4.0;
                worst = fmax(worst, fabs(hypot(a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])) - 0.5));
            }
        }
        CHECK_MSG(worst_z == 0.0, "hemisphere -> %d: a rim vertex at z = %g", targets[i], worst_z);
        CHECK_MSG(worst <= input_rim + 3.0 * achieved,
                  "hemisphere -> %d: rim %g from the circle (input %g, achieved %g)", targets[i], worst, input_rim,
                  achieved);
        osc_mesh_destroy(out);
    }
    osc_mesh_destroy(input);
    osc_sdf_destroy(sphere);
}

// ---------------------------------------------------------------------------------------------
// welding, small and unusual inputs

// a triangle soup of the icosphere (every triangle with its own three vertices): welding exact
// duplicates (weld 0) restores the closed sphere; near-duplicates (up to 2.4e-10 apart) need a
// tolerance
static void test_weld(void) {
    osc_mesh* sphere = make_icosphere(1); // 80 triangles, 42 vertices
    int32_t nt = osc_mesh_triangle_count(sphere);
    double* soup = malloc((size_t)nt * 9 * sizeof *soup);
    int32_t* indices = malloc((size_t)nt * 3 * sizeof *indices);
    for (int32_t i = 0; i < 3 * nt; ++i) {
        memcpy(soup + 3 * i, osc_mesh_vertices(sphere) + 3 * osc_mesh_triangles(sphere)[i], 3 * sizeof *soup);
        indices[i] = i;
    }
    osc_mesh* exact = NULL;
    CHECK_STATUS(osc_mesh_create(soup, 3 * nt, indices, nt, &exact), OSC_OK);
    for (int32_t corner = 0; corner < 3 * nt; ++corner) soup[3 * corner] += 1e-12 * corner; // all distinct
    osc_mesh* near = NULL;
    CHECK_STATUS(osc_mesh_create(soup, 3 * nt, indices, nt, &near), OSC_OK);

    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = nt; // no collapse needed: welding only
    osc_mesh* out = NULL;
    osc_mesh_topology t;
    CHECK_STATUS(osc_mesh_simplify(exact, &settings, &out, NULL), OSC_OK);
    osc_mesh_get_topology(out, &t);
    CHECK(t.closed && t.euler_characteristic == 2 && t.vertex_count == 42 && t.triangle_count == nt);
    osc_mesh_destroy(out);
    // near-duplicates without a tolerance stay a soup (80 lone triangles cannot collapse)
    settings.target_triangles = 0;
    CHECK_STATUS(osc_mesh_simplify(near, &settings, &out, NULL), OSC_OK);
    osc_mesh_get_topology(out, &t);
    CHECK(t.components == nt && t.triangle_count == nt && t.boundary_edges == 3 * nt);
    osc_mesh_destroy(out);
    // with a tolerance they weld, then simplify as a sphere
    settings.weld_tolerance = 1e-8;
    settings.target_triangles = 40;
    CHECK_STATUS(osc_mesh_simplify(near, &settings, &out, NULL), OSC_OK);
    osc_mesh_get_topology(out, &t);
    CHECK_MSG(t.closed && t.euler_characteristic == 2 && t.triangle_count <= 40, "closed %d chi %d triangles %d",
              t.closed, t.euler_characteristic, t.triangle_count);
    osc_mesh_destroy(out);
    free(soup);
    free(indices);
    osc_mesh_destroy(exact);
    osc_mesh_destroy(near);
    osc_mesh_destroy(sphere);
}

// an empty mesh, a tetrahedron (already minimal), a target above the count (an exact copy, minus
// an unused vertex), and a non-manifold input (a fin on an edge of a sphere) whose non-manifold
// part is left alone while the rest simplifies
static void test_small_and_unusual_inputs(void) {
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    osc_mesh *mesh = NULL, *out = NULL;
    CHECK_STATUS(osc_mesh_create(NULL, 0, NULL, 0, &mesh), OSC_OK);
    double achieved = -1.0;
    CHECK_STATUS(osc_mesh_simplify(mesh, &settings, &out, &achieved), OSC_OK);
    CHECK(out && osc_mesh_triangle_count(out) == 0 && osc_mesh_vertex_count(out) == 0 && achieved == 0.0);
    osc_mesh_destroy(out);
    osc_mesh_destroy(mesh);

    const double tetra[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5}; // last one unused
    const int32_t faces[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    CHECK_STATUS(osc_mesh_create(tetra, 5, faces, 4, &mesh), OSC_OK);
    settings.target_triangles = 0;
    CHECK_STATUS(osc_mesh_simplify(mesh, &settings, &out, NULL), OSC_OK);
    CHECK(osc_mesh_triangle_count(out) == 4 && osc_mesh_vertex_count(out) == 4);
    CHECK(memcmp(osc_mesh_vertices(out), tetra, 12 * sizeof(double)) == 0 &&
          memcmp(osc_mesh_triangles(out), faces, sizeof faces) == 0);
    osc_mesh_destroy(out);
    osc_mesh_destroy(mesh);

    // the icosphere with a fin: a triangle on one of its edges makes that edge non-manifold
    osc_mesh* sphere = make_icosphere(3); // 1280 triangles, 642 vertices
    int32_t nv = osc_mesh_vertex_count(sphere), nt = osc_mesh_triangle_count(sphere);
    double* v = malloc(((size_t)nv + 1) * 3 * sizeof *v);
    int32_t* t = malloc(((size_t)nt + 1) * 3 * sizeof *t);
    memcpy(v, osc_mesh_vertices(sphere), (size_t)nv * 3 * sizeof *v);
    memcpy(t, osc_mesh_triangles(sphere), (size_t)nt * 3 * sizeof *t);
    v[3 * nv] = 2.0 * v[3 * t[0]];
    v[3 * nv + 1] = 2.0 * v[3 * t[0] + 1];
    v[3 * nv + 2] = 2.0 * v[3 * t[0] + 2] + 0.1;
    t[3 * nt] = t[0];
    t[3 * nt + 1] = t[1];
    t[3 * nt + 2] = nv;
    CHECK_STATUS(osc_mesh_create(v, nv + 1, t, nt + 1, &mesh), OSC_OK);
    osc_mesh_topology before, after;
    osc_mesh_get_topology(mesh, &before);
    CHECK(before.non_manifold_edges == 1);
    settings.target_triangles = 100;
    CHECK_STATUS(osc_mesh_simplify(mesh, &settings, &out, NULL), OSC_OK);
    osc_mesh_get_topology(out, &after);
    CHECK_MSG(after.non_manifold_edges == 1 && after.euler_characteristic == before.euler_characteristic &&
                  after.boundary_edges == before.boundary_edges && after.inconsistent_edges == 0 &&
                  after.triangle_count <= 100,
              "non-manifold %d chi %d (input %d) boundary %d triangles %d", after.non_manifold_edges,
              after.euler_characteristic, before.euler_characteristic, after.boundary_edges, after.triangle_count);
    osc_mesh_destroy(out);
    osc_mesh_destroy(mesh);
    osc_mesh_destroy(sphere);
    free(v);
    free(t);
}

// ---------------------------------------------------------------------------------------------
// determinism and speed

// the same input gives the same output, bit for bit (the box: many exact ties of zero error)
static void test_determinism(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.3, 0.4), 0.0, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 64);
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = 200;
    osc_mesh *first = NULL, *second = NULL;
    double e1 = -1.0, e2 = -2.0;
    CHECK_STATUS(osc_mesh_simplify(input, &settings, &first, &e1), OSC_OK);
    CHECK_STATUS(osc_mesh_simplify(input, &settings, &second, &e2), OSC_OK);
    CHECK(first && second);
    CHECK(test_mesh_equal(first, second));
    CHECK(memcmp(&e1, &e2, sizeof e1) == 0);
    osc_mesh_destroy(first);
    osc_mesh_destroy(second);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// about 100k triangles down to 1000 in well under 2 s (checked in optimised builds without
// sanitizers; the time is printed always)
static void test_speed(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 104);
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    osc_mesh* out = NULL;
    double start = test_seconds();
    CHECK_STATUS(osc_mesh_simplify(input, &settings, &out, NULL), OSC_OK);
    double elapsed = test_seconds() - start;
    CHECK(osc_mesh_triangle_count(out) <= 1000);
    printf("  sphere %d -> %d triangles in %.3f s\n", osc_mesh_triangle_count(input), osc_mesh_triangle_count(out),
           elapsed);
    CHECK(osc_mesh_triangle_count(input) > 90000);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    CHECK_MSG(elapsed < 2.0, "%.3f s", elapsed);
#endif
    osc_mesh_destroy(out);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

// ---------------------------------------------------------------------------------------------
// bad input and allocation failure

static void check_rejected(const osc_mesh* mesh, const osc_mesh_simplify_settings* settings, osc_mesh** out,
                           const char* field) {
    osc_mesh* sentinel = (osc_mesh*)(void*)&test_checks; // any non-NULL pointer
    if (out) *out = sentinel;
    CHECK_STATUS(osc_mesh_simplify(mesh, settings, out, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(osc_last_error(), "osc_mesh_simplify") && strstr(osc_last_error(), field),
              "message \"%s\" does not name %s", osc_last_error(), field);
    if (out) CHECK(*out == NULL);
}

static void test_bad_input(void) {
    osc_mesh* mesh = make_icosphere(1);
    osc_mesh* out = NULL;
    osc_mesh_simplify_settings good = osc_mesh_simplify_settings_default();
    CHECK(good.target_triangles == 1000 && isinf(good.max_error) && good.min_angle == 10.0 &&
          good.weld_tolerance == 0.0);
    check_rejected(NULL, &good, &out, "mesh is NULL");
    check_rejected(mesh, &good, NULL, "out is NULL");
    struct {
        const char* field;
        int32_t target;
        double max_error, min_angle, weld;
    } bad[] = {
        {"target_triangles", -1, INFINITY, 10.0, 0.0},
        {"max_error", 100, NAN, 10.0, 0.0},
        {"max_error", 100, -1e-3, 10.0, 0.0},
        {"min_angle", 100, INFINITY, NAN, 0.0},
        {"min_angle", 100, INFINITY, -1.0, 0.0},
        {"min_angle", 100, INFINITY, 60.0, 0.0},
        {"weld_tolerance", 100, INFINITY, 10.0, NAN},
        {"weld_tolerance", 100, INFINITY, 10.0, -1.0},
        {"weld_tolerance", 100, INFINITY, 10.0, INFINITY},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        osc_mesh_simplify_settings settings = {bad[i].target, bad[i].max_error, bad[i].min_angle, bad[i].weld};
        check_rejected(mesh, &settings, &out, bad[i].field);
    }
    // NULL settings are the defaults
    CHECK_STATUS(osc_mesh_simplify(mesh, NULL, &out, NULL), OSC_OK);
    CHECK(out && osc_mesh_triangle_count(out) == 80);
    osc_mesh_destroy(out);
    osc_mesh_destroy(mesh);
}

// an allocator that fails the `fail_at`-th allocation and counts live blocks (a header holds the
// magic number that catches foreign or double releases)
typedef struct failing_allocator {
    long attempts, fail_at, live, errors;
} failing_allocator;

enum { HEADER = 16 };
static const uint64_t MAGIC = 0x6f73635f73696d70ull;

static void* failing_allocate(size_t size, void* context) {
    failing_allocator* state = context;
    if (state->attempts++ == state->fail_at) return NULL;
    unsigned char* block = malloc(size + HEADER);
    if (!block) return NULL;
    memcpy(block, &MAGIC, sizeof MAGIC);
    ++state->live;
    return block + HEADER;
}

static void failing_release(void* pointer, void* context) {
    failing_allocator* state = context;
    if (!pointer) return;
    unsigned char* block = (unsigned char*)pointer - HEADER;
    uint64_t magic;
    memcpy(&magic, block, sizeof magic);
    if (magic != MAGIC) {
        ++state->errors;
        return;
    }
    memset(block, 0, sizeof magic);
    --state->live;
    free(block);
}

// fails every allocation in turn until the call succeeds: OSC_ERR_NO_MEMORY naming the function,
// *out NULL and nothing leaked each time; then the successful result equals the reference
static void test_allocation_failure(void) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.15, &sdf), OSC_OK);
    osc_mesh* input = test_extract_mesh(sdf, 24);
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = 200;
    settings.weld_tolerance = 1e-9;
    osc_mesh* reference = NULL;
    CHECK_STATUS(osc_mesh_simplify(input, &settings, &reference, NULL), OSC_OK);

    failing_allocator state = {0, -1, 0, 0};
    osc_allocator allocator = {failing_allocate, failing_release, &state};
    osc_set_allocator(&allocator);
    int failures = 0, bad_status = 0, leaks = 0, bad_message = 0, succeeded = 0;
    for (long fail_at = 0; fail_at < 1000 && !succeeded; ++fail_at) {
        state.attempts = 0;
        state.fail_at = fail_at;
        osc_mesh* out = (osc_mesh*)(void*)&state;
        osc_status status = osc_mesh_simplify(input, &settings, &out, NULL);
        if (status == OSC_OK) {
            succeeded = 1;
            CHECK(test_mesh_equal(out, reference));
            osc_mesh_destroy(out);
            CHECK(state.live == 0);
            break;
        }
        ++failures;
        bad_status += status != OSC_ERR_NO_MEMORY || out != NULL;
        bad_message += strstr(osc_last_error(), "osc_mesh_simplify") == NULL;
        leaks += state.live != 0;
    }
    osc_set_allocator(NULL);
    CHECK(succeeded);
    CHECK_MSG(failures >= 10, "only %d allocations", failures);
    CHECK_MSG(bad_status == 0 && leaks == 0 && bad_message == 0 && state.errors == 0,
              "%d wrong statuses, %d leaks, %d messages, %ld bad releases", bad_status, leaks, bad_message,
              state.errors);
    printf("  %d failing allocation points, each OSC_ERR_NO_MEMORY without a leak\n", failures);
    osc_mesh_destroy(reference);
    osc_mesh_destroy(input);
    osc_sdf_destroy(sdf);
}

int main(void) {
    RUN(test_sphere);
    RUN(test_torus);
    RUN(test_linked_and_double_tori);
    RUN(test_box_on_grid_planes);
    RUN(test_cup);
    RUN(test_min_angle_on_clean_input);
    RUN(test_flat_patch);
    RUN(test_hemisphere);
    RUN(test_weld);
    RUN(test_small_and_unusual_inputs);
    RUN(test_determinism);
    RUN(test_speed);
    RUN(test_bad_input);
    RUN(test_allocation_failure);
    return test_finish();
}
