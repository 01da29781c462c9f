// test_isosurface.c: marching cubes against its guarantees: watertight, consistently oriented
// meshes (every edge in exactly two triangles, once each way), the Euler characteristic of known
// surfaces under random placements, vertex accuracy, convergence of volume and area to the
// analytic values, degenerate grids (corner values exactly on the level), open surfaces, and
// bit-identical results across thread counts.

#include "osculate/isosurface.h"

#include "mesh_test_util.h"


// ---------------------------------------------------------------------------------------------
// oracles

// counts of the mesh's combinatorics; a closed, consistently oriented 2-manifold has
// boundary_edges == bad_edges == 0
typedef struct topology {
    int64_t vertices, edges, faces;
    int64_t boundary_edges;        // undirected edges used by one triangle
    int64_t bad_edges;             // used by more than two triangles, or twice the same way
    int64_t unreferenced_vertices; // vertices no triangle uses
} topology;

typedef struct directed_edge {
    uint64_t key; // (min << 32) | max of the two vertex indices
    int forward;  // 1 when the triangle walks min -> max
} directed_edge;

// orders directed edges by key, then direction
static int compare_edges(const void* a, const void* b) {
    const directed_edge* x = a;
    const directed_edge* y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->forward - y->forward;
}

// sorts the 3F directed edges and classifies each run of equal undirected edges
static topology mesh_topology(const osc_mesh* mesh) {
    topology result = {osc_mesh_vertex_count(mesh), 0, osc_mesh_triangle_count(mesh), 0, 0, 0};
    const int32_t* triangles = osc_mesh_triangles(mesh);
    size_t count = 3 * (size_t)result.faces;
    directed_edge* edges = malloc((count ? count : 1) * sizeof *edges);
    char* used = calloc((size_t)result.vertices + 1, 1);
    for (int64_t t = 0; t < result.faces; ++t) {
        for (int k = 0; k < 3; ++k) {
            uint32_t a = (uint32_t)triangles[3 * t + k], b = (uint32_t)triangles[3 * t + (k + 1) % 3];
            used[a] = 1;
            edges[3 * t + k].key = a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
            edges[3 * t + k].forward = a < b;
        }
    }
    qsort(edges, count, sizeof *edges, compare_edges);
    for (size_t i = 0; i < count;) {
        size_t j = i, forward = 0;
        for (; j < count && edges[j].key == edges[i].key; ++j) forward += (size_t)edges[j].forward;
        size_t run = j - i;
        result.edges += 1;
        if (run == 1) result.boundary_edges += 1;
        if (run > 2 || (run == 2 && forward != 1)) result.bad_edges += 1;
        i = j;
    }
    for (int64_t v = 0; v < result.vertices; ++v) result.unreferenced_vertices += !used[v];
    free(edges);
    free(used);
    return result;
}

// Euler characteristic V - E + F
static int64_t euler_characteristic(topology t) { return t.vertices - t.edges + t.faces; }

// checks a closed, consistently oriented surface with the given Euler characteristic
static void check_closed(const osc_mesh* mesh, int64_t euler, const char* label) {
    topology t = mesh_topology(mesh);
    CHECK_MSG(t.faces > 0, "%s: empty mesh", label);
    CHECK_MSG(t.boundary_edges == 0, "%s: %lld boundary edges", label, (long long)t.boundary_edges);
    CHECK_MSG(t.bad_edges == 0, "%s: %lld edges not shared by exactly two opposite triangles", label,
              (long long)t.bad_edges);
    CHECK_MSG(t.unreferenced_vertices == 0, "%s: %lld unreferenced vertices", label,
              (long long)t.unreferenced_vertices);
    CHECK_MSG(euler_characteristic(t) == euler, "%s: V - E + F = %lld, expected %lld", label,
              (long long)euler_characteristic(t), (long long)euler);
}

// vertex `i` of the mesh
static osc_vec3 vertex(const osc_mesh* mesh, int32_t i) {
    const double* v = osc_mesh_vertices(mesh) + 3 * (size_t)i;
    return osc_v3(v[0], v[1], v[2]);
}

// the largest |phi(v) - iso| over the vertices
static double max_vertex_error(const osc_mesh* mesh, const osc_sdf* sdf, double iso) {
    double worst = 0.0;
    for (int32_t i = 0; i < osc_mesh_vertex_count(mesh); ++i)
        worst = fmax(worst, fabs(osc_sdf_eval(sdf, vertex(mesh, i), NULL, NULL) - iso));
    return worst;
}

// orders vertex positions lexicographically
static int compare_positions(const void* a, const void* b) {
    const double* x = a;
    const double* y = b;
    for (int k = 0; k < 3; ++k)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

// the number of vertices at the same position as another one (the header promises none)
static int64_t coincident_vertices(const osc_mesh* mesh) {
    size_t count = (size_t)osc_mesh_vertex_count(mesh);
    double* sorted = malloc((count ? count : 1) * 3 * sizeof(double));
    if (count) memcpy(sorted, osc_mesh_vertices(mesh), count * 3 * sizeof(double));
    qsort(sorted, count, 3 * sizeof(double), compare_positions);
    int64_t duplicates = 0;
    for (size_t i = 1; i < count; ++i) duplicates += compare_positions(sorted + 3 * (i - 1), sorted + 3 * i) == 0;
    free(sorted);
    return duplicates;
}

// the number of triangles whose normal (v1 - v0) x (v2 - v0) does not point along the SDF's
// gradient at their centroid
static int64_t misoriented_triangles(const osc_mesh* mesh, const osc_sdf* sdf) {
    int64_t count = 0;
    const int32_t* triangles = osc_mesh_triangles(mesh);
    for (int32_t t = 0; t < osc_mesh_triangle_count(mesh); ++t) {
        osc_vec3 a = vertex(mesh, triangles[3 * t]), b = vertex(mesh, triangles[3 * t + 1]);
        osc_vec3 c = vertex(mesh, triangles[3 * t + 2]);
        osc_vec3 normal = osc_cross(osc_sub(b, a), osc_sub(c, a));
        osc_vec3 gradient;
        osc_sdf_eval(sdf, osc_scale(osc_add(osc_add(a, b), c), 1.0 / 3.0), &gradient, NULL);
        count += !(osc_dot(normal, gradient) > 0.0);
    }
    return count;
}

// the cell size the default region uses: longest side of the bounds (grown by padding) / resolution
static double default_cell(const osc_sdf* sdf, const osc_isosurface_settings* settings) {
    osc_vec3 lo, hi;
    osc_sdf_bounds(sdf, &lo, &hi);
    double longest = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    return (longest + 2.0 * (settings->padding + fmax(settings->iso_value, 0.0))) / settings->resolution;
}

// true when v lies on an edge of the grid with this origin and cell: at least two coordinates are
// exactly grid coordinates (computed as the implementation does, origin + index * cell)
static bool on_grid_edge(osc_vec3 v, osc_vec3 origin, double cell) {
    double p[3] = {v.x, v.y, v.z}, o[3] = {origin.x, origin.y, origin.z};
    int on_plane = 0;
    for (int a = 0; a < 3; ++a) on_plane += o[a] + round((p[a] - o[a]) / cell) * cell == p[a];
    return on_plane >= 2;
}

// a random unit quaternion (normalised uniform sample of the 4-cube, rejecting the corners)
static osc_quat random_rotation(test_rng* rng) {
    for (;;) {
        osc_quat q = {test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1),
                      test_uniform(rng, -1, 1)};
        double norm = osc_quat_norm(q);
        if (norm > 0.1 && norm < 1.0) return osc_quat_normalize(q);
    }
}

// `child` placed by a random rotation and a random offset in [-1, 1]^3 (the model is new)
static osc_sdf* randomly_placed(const osc_sdf* child, test_rng* rng) {
    osc_pose pose = osc_pose_make(osc_v3(test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1)),
                                  random_rotation(rng));
    osc_sdf* placed = NULL;
    CHECK_STATUS(osc_sdf_create_transformed(child, pose, 1.0, &placed), OSC_OK);
    return placed;
}

// ---------------------------------------------------------------------------------------------
// arguments

static void test_settings_default(void) {
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    CHECK(settings.lo.x > settings.hi.x);
    CHECK(settings.resolution == 64);
    CHECK(settings.padding == 0.0);
    CHECK(settings.iso_value == 0.0);
    CHECK(settings.threads == 0);
}

// extraction must fail with OSC_ERR_INVALID_ARGUMENT, leave *out NULL and name `needle`
static void expect_invalid(const osc_sdf* sdf, const osc_isosurface_settings* settings, const char* needle) {
    osc_mesh* mesh = (osc_mesh*)&mesh; // a non-NULL sentinel, never dereferenced
    CHECK_STATUS(osc_isosurface_extract(sdf, settings, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(mesh == NULL);
    CHECK_MSG(strstr(osc_last_error(), needle) != NULL, "message '%s' lacks '%s'", osc_last_error(), needle);
}

static void test_invalid_arguments(void) {
    osc_sdf *sphere = NULL, *plane = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &plane), OSC_OK);
    osc_isosurface_settings defaults = osc_isosurface_settings_default(), s = defaults;

    CHECK_STATUS(osc_isosurface_extract(sphere, &s, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "out") != NULL);
    expect_invalid(NULL, &s, "sdf");
    osc_mesh* from_defaults = NULL; // NULL settings are the defaults, as everywhere
    CHECK_STATUS(osc_isosurface_extract(sphere, NULL, &from_defaults), OSC_OK);
    CHECK(osc_mesh_triangle_count(from_defaults) > 0);
    osc_mesh_destroy(from_defaults);
    s.resolution = 1;
    expect_invalid(sphere, &s, "resolution");
    s = defaults;
    s.padding = -1.0;
    expect_invalid(sphere, &s, "padding");
    s.padding = NAN;
    expect_invalid(sphere, &s, "padding");
    s = defaults;
    s.iso_value = INFINITY;
    expect_invalid(sphere, &s, "iso_value");
    s = defaults;
    s.threads = -2;
    expect_invalid(sphere, &s, "threads");
    s = defaults;
    s.lo.y = NAN;
    expect_invalid(sphere, &s, "NaN");
    // a half-space has infinite bounds: the caller must give the region
    expect_invalid(plane, &defaults, "settings->lo");
    s = defaults;
    s.lo = osc_v3(-1, -1, -INFINITY);
    s.hi = osc_v3(1, 1, 1);
    expect_invalid(plane, &s, "not finite");
    s.lo = s.hi = osc_v3(1, 1, 1);
    expect_invalid(sphere, &s, "no extent");
    // too many corners along an axis, or per layer (checked before any allocation)
    s = defaults;
    s.resolution = 1 << 21;
    expect_invalid(sphere, &s, "2^20");
    s.lo = osc_v3(-1, -1, 0);
    s.hi = osc_v3(1, 1, 0);
    s.resolution = 60000;
    expect_invalid(sphere, &s, "2^31");
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(plane);
}

// ---------------------------------------------------------------------------------------------
// topology under random placements

static void test_sphere_topology(void) {
    test_rng rng = {1};
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    const int resolutions[] = {4, 6, 8, 12, 16, 24, 32, 48};
    for (int r = 0; r < 8; ++r) {
        for (int trial = 0; trial < 4; ++trial) {
            osc_sdf* placed = randomly_placed(sphere, &rng);
            osc_isosurface_settings settings = osc_isosurface_settings_default();
            settings.resolution = resolutions[r];
            osc_mesh* mesh = test_extract_mesh(placed, resolutions[r]);
            char label[64];
            snprintf(label, sizeof label, "sphere resolution %d trial %d", resolutions[r], trial);
            check_closed(mesh, 2, label);
            CHECK_MSG(osc_mesh_volume(mesh) > 0.0, "%s: volume %g", label, osc_mesh_volume(mesh));
            CHECK_MSG(misoriented_triangles(mesh, placed) == 0,
                      "%s: %lld of %d triangles face "
                      "against the gradient",
                      label, (long long)misoriented_triangles(mesh, placed), (int)osc_mesh_triangle_count(mesh));
            // every vertex lies in a cell with a sign change: within a cell diagonal of the level
            double bound = sqrt(3.0) * default_cell(placed, &settings);
            CHECK_MSG(max_vertex_error(mesh, placed, 0.0) <= bound, "%s: |phi| %g > %g", label,
                      max_vertex_error(mesh, placed, 0.0), bound);
            osc_mesh_destroy(mesh);
            osc_sdf_destroy(placed);
        }
    }
    osc_sdf_destroy(sphere);
}

static void test_torus_topology(void) {
    test_rng rng = {2};
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.4, &torus), OSC_OK);
    const int resolutions[] = {12, 16, 24, 32, 64};
    for (int r = 0; r < 5; ++r) {
        for (int trial = 0; trial < 4; ++trial) {
            osc_sdf* placed = randomly_placed(torus, &rng);
            osc_mesh* mesh = test_extract_mesh(placed, resolutions[r]);
            char label[64];
            snprintf(label, sizeof label, "torus resolution %d trial %d", resolutions[r], trial);
            check_closed(mesh, 0, label);
            CHECK_MSG(osc_mesh_volume(mesh) > 0.0, "%s: volume %g", label, osc_mesh_volume(mesh));
            CHECK_MSG(misoriented_triangles(mesh, placed) == 0, "%s: misoriented triangles", label);
            osc_mesh_destroy(mesh);
            osc_sdf_destroy(placed);
        }
    }
    osc_sdf_destroy(torus);
}

// two unit spheres 3 apart, hard union: two components, V - E + F = 4
static void test_two_spheres_topology(void) {
    test_rng rng = {3};
    osc_sdf *sphere = NULL, *left = NULL, *right = NULL, *both = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_pose pose = osc_pose_identity();
    pose.p = osc_v3(-1.5, 0, 0);
    CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &left), OSC_OK);
    pose.p = osc_v3(1.5, 0, 0);
    CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &right), OSC_OK);
    const osc_sdf* children[2] = {left, right};
    CHECK_STATUS(osc_sdf_create_union(children, 2, 0.0, &both), OSC_OK);
    const int resolutions[] = {16, 24, 40, 64};
    for (int r = 0; r < 4; ++r) {
        for (int trial = 0; trial < 3; ++trial) {
            osc_sdf* placed = randomly_placed(both, &rng);
            osc_mesh* mesh = test_extract_mesh(placed, resolutions[r]);
            char label[64];
            snprintf(label, sizeof label, "two spheres resolution %d trial %d", resolutions[r], trial);
            check_closed(mesh, 4, label);
            CHECK_MSG(misoriented_triangles(mesh, placed) == 0, "%s: misoriented triangles", label);
            osc_mesh_destroy(mesh);
            osc_sdf_destroy(placed);
        }
    }
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(left);
    osc_sdf_destroy(right);
    osc_sdf_destroy(both);
}

// many overlapping blobs of about a cell, centred on grid corners, in a fixed region: corner
// patterns of every kind, faces with four crossings decided both ways, and loops that need a
// centre vertex. The surface stays watertight and oriented; vertices on grid edges stay within a
// cell of the level (Lipschitz bound 1 times the edge), the others within a cell diagonal.
static void test_random_blobs_watertight(void) {
    test_rng rng = {4};
    const double cell = 0.25;
    const osc_vec3 origin = osc_v3(-2.0, -2.0, -2.0);
    int64_t centre_vertices = 0;
    for (int trial = 0; trial < 40; ++trial) {
        enum { blob_count = 24 };
        osc_sdf* blobs[blob_count];
        for (int b = 0; b < blob_count; ++b) {
            osc_sdf* ball = NULL;
            CHECK_STATUS(osc_sdf_create_sphere(test_uniform(&rng, 0.3, 1.3) * cell, &ball), OSC_OK);
            osc_pose pose = osc_pose_identity();
            pose.p =
                osc_v3((double)(int)test_uniform(&rng, -4, 4) * cell, (double)(int)test_uniform(&rng, -4, 4) * cell,
                       (double)(int)test_uniform(&rng, -4, 4) * cell);
            CHECK_STATUS(osc_sdf_create_transformed(ball, pose, 1.0, &blobs[b]), OSC_OK);
            osc_sdf_destroy(ball);
        }
        osc_sdf* field = NULL;
        CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)blobs, blob_count, 0.0, &field), OSC_OK);
        osc_isosurface_settings settings = osc_isosurface_settings_default();
        settings.lo = origin;
        settings.hi = osc_v3(2.0, 2.0, 2.0);
        settings.resolution = 16;
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_isosurface_extract(field, &settings, &mesh), OSC_OK);
        topology t = mesh_topology(mesh);
        CHECK_MSG(t.faces > 0 && t.boundary_edges == 0 && t.bad_edges == 0 && t.unreferenced_vertices == 0,
                  "blobs trial %d: %lld boundary, %lld bad edges", trial, (long long)t.boundary_edges,
                  (long long)t.bad_edges);
        CHECK_MSG(euler_characteristic(t) % 2 == 0, "blobs trial %d: odd V - E + F", trial);
        CHECK(coincident_vertices(mesh) == 0);
        for (int32_t i = 0; i < osc_mesh_vertex_count(mesh); ++i) {
            osc_vec3 v = vertex(mesh, i);
            bool on_edge = on_grid_edge(v, origin, cell);
            double error = fabs(osc_sdf_eval(field, v, NULL, NULL));
            double bound = on_edge ? cell : sqrt(3.0) * cell;
            centre_vertices += !on_edge;
            CHECK_MSG(error <= bound, "blobs trial %d vertex %d: |phi| %g > %g", trial, (int)i, error, bound);
        }
        osc_mesh_destroy(mesh);
        osc_sdf_destroy(field);
        for (int b = 0; b < blob_count; ++b) osc_sdf_destroy(blobs[b]);
    }
    // the centre-vertex path must have been exercised for this test to cover it
    CHECK_MSG(centre_vertices > 0, "no loop needed a centre vertex");
    printf("  random blobs: %lld centre vertices over 40 fields\n", (long long)centre_vertices);
}

// two balls centred on the diagonal corners of one grid face, every other corner outside: the
// face has four crossings and the asymptotic decider must follow the bilinear saddle, separating
// the balls when r = 0.45 h (inside product 0.2025 h^2 < outside product 0.3025 h^2; the balls are
// apart, 0.9 h < 1.41 h) and joining them when r = 0.75 h (0.5625 h^2 > 0.0625 h^2; they overlap)
static void test_face_ambiguity(void) {
    const double cell = 0.25, radii[2] = {0.45 * cell, 0.75 * cell};
    const int64_t euler[2] = {4, 2}; // two spheres, one sphere
    for (int plane = 0; plane < 3; ++plane) {
        for (int r = 0; r < 2; ++r) {
            osc_sdf *ball = NULL, *first = NULL, *second = NULL, *pair = NULL;
            CHECK_STATUS(osc_sdf_create_sphere(radii[r], &ball), OSC_OK);
            osc_pose pose = osc_pose_identity();
            CHECK_STATUS(osc_sdf_create_transformed(ball, pose, 1.0, &first), OSC_OK);
            // the diagonal of a face normal to axis `plane`
            pose.p = osc_v3(plane == 0 ? 0.0 : cell, plane == 1 ? 0.0 : cell, plane == 2 ? 0.0 : cell);
            CHECK_STATUS(osc_sdf_create_transformed(ball, pose, 1.0, &second), OSC_OK);
            const osc_sdf* children[2] = {first, second};
            CHECK_STATUS(osc_sdf_create_union(children, 2, 0.0, &pair), OSC_OK);
            osc_isosurface_settings settings = osc_isosurface_settings_default();
            settings.lo = osc_v3(-1, -1, -1);
            settings.hi = osc_v3(1, 1, 1);
            settings.resolution = 8; // corners at multiples of 0.25, the centres among them
            osc_mesh* mesh = NULL;
            CHECK_STATUS(osc_isosurface_extract(pair, &settings, &mesh), OSC_OK);
            char label[64];
            snprintf(label, sizeof label, "face ambiguity plane %d radius %g", plane, radii[r]);
            check_closed(mesh, euler[r], label);
            osc_mesh_destroy(mesh);
            osc_sdf_destroy(ball);
            osc_sdf_destroy(first);
            osc_sdf_destroy(second);
            osc_sdf_destroy(pair);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// accuracy

// the sphere of radius 1: volume and area errors shrink like h^2 (printed for docs/isosurface.md)
static void test_sphere_convergence(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    // off-centre so that no symmetry of the grid helps; not rotated, so the cell is 2 / n
    osc_pose pose = osc_pose_make(osc_v3(0.0123, -0.0311, 0.0207), osc_quat_identity());
    osc_sdf* placed = NULL;
    CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &placed), OSC_OK);
    const double volume = 4.0 / 3.0 * TEST_PI, area = 4.0 * TEST_PI;
    double previous_volume_error = INFINITY, previous_area_error = INFINITY;
    double previous_vertex_error = INFINITY;
    for (int resolution = 16; resolution <= 128; resolution *= 2) {
        clock_t start = clock();
        osc_mesh* mesh = test_extract_mesh(placed, resolution);
        double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
        double volume_error = fabs(osc_mesh_volume(mesh) - volume) / volume;
        double area_error = fabs(osc_mesh_area(mesh) - area) / area;
        double vertex_error = max_vertex_error(mesh, placed, 0.0);
        printf("  sphere n=%3d h=%.5f: V=%6d F=%6d volume err %.3e area err %.3e max|phi(v)| "
               "%.3e (%.3f s cpu)\n",
               resolution, 2.0 / resolution, (int)osc_mesh_vertex_count(mesh), (int)osc_mesh_triangle_count(mesh),
               volume_error, area_error, vertex_error, seconds);
        check_closed(mesh, 2, "sphere convergence");
        // second order: each halving of the cell divides the errors by about 4
        CHECK_MSG(volume_error < previous_volume_error / 3.0, "n=%d volume error %g after %g", resolution, volume_error,
                  previous_volume_error);
        CHECK_MSG(area_error < previous_area_error / 3.0, "n=%d area error %g after %g", resolution, area_error,
                  previous_area_error);
        CHECK_MSG(vertex_error < previous_vertex_error / 3.0, "n=%d vertex error %g after %g", resolution, vertex_error,
                  previous_vertex_error);
        previous_volume_error = volume_error;
        previous_area_error = area_error;
        previous_vertex_error = vertex_error;
        osc_mesh_destroy(mesh);
    }
    CHECK(previous_volume_error < 1e-3);
    CHECK(previous_area_error < 1e-3);
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(placed);
}

// a rotated box: volume converges; triangles facing against the gradient at their centroid can only
// sit on the chamfers that marching cubes cuts across the box's edges
static void test_box_convergence(void) {
    osc_sdf *box = NULL, *placed = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.6, 0.45, 0.3), 0.0, &box), OSC_OK);
    osc_pose pose = osc_pose_make(osc_v3(0.01, 0.02, -0.03), osc_quat_from_axis_angle(osc_v3(-1, 3, 2), 0.9));
    CHECK_STATUS(osc_sdf_create_transformed(box, pose, 1.0, &placed), OSC_OK);
    const double volume = 8.0 * 0.6 * 0.45 * 0.3;
    double previous_error = INFINITY;
    for (int resolution = 16; resolution <= 128; resolution *= 2) {
        osc_mesh* mesh = test_extract_mesh(placed, resolution);
        double error = fabs(osc_mesh_volume(mesh) - volume) / volume;
        int64_t misoriented = misoriented_triangles(mesh, placed);
        osc_isosurface_settings settings = osc_isosurface_settings_default();
        settings.resolution = resolution;
        printf("  box n=%3d h=%.5f: F=%6d volume err %.3e, %lld triangles against the gradient\n", resolution,
               default_cell(placed, &settings), (int)osc_mesh_triangle_count(mesh), error, (long long)misoriented);
        check_closed(mesh, 2, "rotated box");
        CHECK_MSG(error < previous_error / 1.8, "n=%d box volume error %g after %g", resolution, error, previous_error);
        CHECK_MSG(misoriented <= osc_mesh_triangle_count(mesh) / 100, "n=%d: %lld of %d triangles against the gradient",
                  resolution, (long long)misoriented, (int)osc_mesh_triangle_count(mesh));
        previous_error = error;
        osc_mesh_destroy(mesh);
    }
    CHECK(previous_error < 5e-3);
    osc_sdf_destroy(box);
    osc_sdf_destroy(placed);
}

// iso_value > 0: the surface of radius 1.5, and the default region grows to contain it
static void test_iso_value(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = 48;
    settings.iso_value = 0.5;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_isosurface_extract(sphere, &settings, &mesh), OSC_OK);
    check_closed(mesh, 2, "offset sphere");
    double cell = default_cell(sphere, &settings);
    CHECK_NEAR(cell, 3.0 / 48.0, 1e-15);
    CHECK(max_vertex_error(mesh, sphere, 0.5) <= cell);
    CHECK(test_rel_error(osc_mesh_volume(mesh), 4.0 / 3.0 * TEST_PI * 1.5 * 1.5 * 1.5, 0) < 3e-3);
    osc_mesh_destroy(mesh);
    // a negative level: a smaller sphere
    settings.iso_value = -0.5;
    CHECK_STATUS(osc_isosurface_extract(sphere, &settings, &mesh), OSC_OK);
    check_closed(mesh, 2, "inset sphere");
    CHECK(test_rel_error(osc_mesh_volume(mesh), 4.0 / 3.0 * TEST_PI * 0.125, 0) < 1e-2);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(sphere);
}

// the largest angle of triangle t, in degrees
static double largest_angle(const osc_mesh* mesh, int32_t t) {
    const int32_t* triangle = osc_mesh_triangles(mesh) + 3 * (size_t)t;
    double largest = 0.0;
    for (int k = 0; k < 3; ++k) {
        osc_vec3 at = vertex(mesh, triangle[k]);
        osc_vec3 u = osc_sub(vertex(mesh, triangle[(k + 1) % 3]), at);
        osc_vec3 w = osc_sub(vertex(mesh, triangle[(k + 2) % 3]), at);
        double cosine = osc_dot(u, w) / (osc_length(u) * osc_length(w));
        largest = fmax(largest, acos(fmax(-1.0, fmin(1.0, cosine))) * 180.0 / TEST_PI);
    }
    return largest;
}

// loops are triangulated for the best worst triangle: on smooth surfaces almost no triangle has an
// angle above 150 degrees (a fan over the same loops gives about 1.5% such triangles)
static void test_triangle_quality(void) {
    test_rng rng = {6};
    osc_sdf *sphere = NULL, *torus = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.4, &torus), OSC_OK);
    const osc_sdf* shapes[2] = {sphere, torus};
    for (int shape = 0; shape < 2; ++shape) {
        for (int trial = 0; trial < 3; ++trial) {
            osc_sdf* placed = randomly_placed(shapes[shape], &rng);
            osc_mesh* mesh = test_extract_mesh(placed, 64);
            int32_t obtuse = 0, count = osc_mesh_triangle_count(mesh);
            for (int32_t t = 0; t < count; ++t) obtuse += largest_angle(mesh, t) > 150.0;
            CHECK_MSG(obtuse * 1000 <= count,
                      "%s trial %d: %d of %d triangles have an angle above "
                      "150 degrees",
                      shape ? "torus" : "sphere", trial, (int)obtuse, (int)count);
            osc_mesh_destroy(mesh);
            osc_sdf_destroy(placed);
        }
    }
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(torus);
}

// ---------------------------------------------------------------------------------------------
// degenerate grids

// a sphere centred on a grid corner with a radius of whole cells: many corners are exactly on the
// level (phi = 0 exactly, counted outside); the mesh stays watertight with every vertex within
// 1e-6 of a cell of its edge's zero when a corner value is 0
static void test_sphere_on_grid_corners(void) {
    const double radii[] = {0.75, 1.25}; // 3 and 5 cells: 9 = 2^2 + 2^2 + 1, 25 = 4^2 + 3^2
    for (int r = 0; r < 2; ++r) {
        osc_sdf* sphere = NULL;
        CHECK_STATUS(osc_sdf_create_sphere(radii[r], &sphere), OSC_OK);
        osc_isosurface_settings settings = osc_isosurface_settings_default();
        settings.lo = osc_v3(-2, -2, -2);
        settings.hi = osc_v3(2, 2, 2);
        settings.resolution = 16; // cell 0.25: corner (i, j, k) at 0.25 (i, j, k) - 2
        int zero_corners = 0;
        for (int i = -8; i <= 8; ++i)
            for (int j = -8; j <= 8; ++j)
                for (int k = -8; k <= 8; ++k)
                    zero_corners += osc_sdf_eval(sphere, osc_v3(0.25 * i, 0.25 * j, 0.25 * k), NULL, NULL) == 0.0;
        CHECK_MSG(zero_corners >= 6, "radius %g: only %d corners exactly on the sphere", radii[r], zero_corners);
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_isosurface_extract(sphere, &settings, &mesh), OSC_OK);
        check_closed(mesh, 2, "sphere on grid corners");
        CHECK(coincident_vertices(mesh) == 0);
        CHECK(misoriented_triangles(mesh, sphere) == 0);
        CHECK(max_vertex_error(mesh, sphere, 0.0) <= 0.25);
        osc_mesh_destroy(mesh);
        osc_sdf_destroy(sphere);
    }
}

// a box whose faces lie on grid planes: every corner on a face has phi = 0, the surface is pulled
// 1e-6 of a cell inside and its edges are chamfered by one cell
static void test_grid_aligned_box(void) {
    osc_sdf* box = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(1.0, 0.75, 0.5), 0.0, &box), OSC_OK);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.lo = osc_v3(-2, -2, -2);
    settings.hi = osc_v3(2, 2, 2);
    settings.resolution = 16;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_isosurface_extract(box, &settings, &mesh), OSC_OK);
    check_closed(mesh, 2, "grid-aligned box");
    CHECK(coincident_vertices(mesh) == 0);
    const double cell = 0.25, volume = 2.0 * 1.5 * 1.0, edge_length = 4.0 * (2.0 + 1.5 + 1.0);
    // every vertex is on an edge ending at a zero corner, 1e-6 of a cell from it
    CHECK(max_vertex_error(mesh, box, 0.0) <= 1.0001e-6 * cell);
    // the chamfers remove at most a right prism of legs `cell` along every edge
    double v = osc_mesh_volume(mesh);
    CHECK_MSG(v <= volume && v >= volume - 0.5 * cell * cell * edge_length, "box volume %g", v);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(box);
}

static void test_empty_surface(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.lo = osc_v3(10, 10, 10);
    settings.hi = osc_v3(11, 12, 13);
    settings.resolution = 8;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_isosurface_extract(sphere, &settings, &mesh), OSC_OK);
    CHECK(mesh != NULL);
    CHECK(osc_mesh_vertex_count(mesh) == 0);
    CHECK(osc_mesh_triangle_count(mesh) == 0);
    osc_mesh_destroy(mesh);
    // a region entirely inside the shape is empty too
    settings.lo = osc_v3(-0.2, -0.2, -0.2);
    settings.hi = osc_v3(0.2, 0.2, 0.2);
    CHECK_STATUS(osc_isosurface_extract(sphere, &settings, &mesh), OSC_OK);
    CHECK(osc_mesh_triangle_count(mesh) == 0);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(sphere);
}

// a tilted half-space in [-1, 1]^3: marching cubes is exact for a linear function, so the patch is
// the plane's section of the square prism, of area 4 / |n_z|, a disk (V - E + F = 1) whose
// triangles all face along the normal. (The offset keeps the plane off the grid corners, where the
// 1e-6 clamp would move vertices by up to 1e-6 of a cell: see test_grid_aligned_box.)
static void test_halfspace_patch(void) {
    osc_vec3 normal = osc_normalize(osc_v3(0.2, -0.1, 1.0));
    osc_sdf* plane = NULL;
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0.2, -0.1, 1.0), 0.0537, &plane), OSC_OK);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.lo = osc_v3(-1, -1, -1);
    settings.hi = osc_v3(1, 1, 1);
    settings.resolution = 16;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_isosurface_extract(plane, &settings, &mesh), OSC_OK);
    topology t = mesh_topology(mesh);
    CHECK(t.faces > 0);
    CHECK(t.bad_edges == 0);
    CHECK(t.boundary_edges > 0);
    CHECK(euler_characteristic(t) == 1);
    CHECK_NEAR(osc_mesh_area(mesh), 4.0 / normal.z, 1e-12);
    CHECK(max_vertex_error(mesh, plane, 0.0) <= 1e-15);
    printf("  half-space: area error %.2e, max|phi(v)| %.2e\n", osc_mesh_area(mesh) - 4.0 / normal.z,
           max_vertex_error(mesh, plane, 0.0));
    CHECK(misoriented_triangles(mesh, plane) == 0);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(plane);
}

// ---------------------------------------------------------------------------------------------
// threads, size, speed

static void test_threads_identical(void) {
    test_rng rng = {5};
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.3, &torus), OSC_OK);
    osc_sdf* placed = randomly_placed(torus, &rng);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = 72;
    osc_mesh* meshes[3] = {NULL, NULL, NULL};
    const int threads[3] = {1, 2, 0};
    for (int k = 0; k < 3; ++k) {
        settings.threads = threads[k];
        CHECK_STATUS(osc_isosurface_extract(placed, &settings, &meshes[k]), OSC_OK);
    }
    for (int k = 1; k < 3; ++k) {
        int32_t v = osc_mesh_vertex_count(meshes[0]), f = osc_mesh_triangle_count(meshes[0]);
        CHECK(v > 0);
        CHECK(osc_mesh_vertex_count(meshes[k]) == v);
        CHECK(osc_mesh_triangle_count(meshes[k]) == f);
        if (osc_mesh_vertex_count(meshes[k]) != v || osc_mesh_triangle_count(meshes[k]) != f) continue;
        CHECK(memcmp(osc_mesh_vertices(meshes[0]), osc_mesh_vertices(meshes[k]), (size_t)v * 3 * sizeof(double)) == 0);
        CHECK(memcmp(osc_mesh_triangles(meshes[0]), osc_mesh_triangles(meshes[k]), (size_t)f * 3 * sizeof(int32_t)) ==
              0);
    }
    for (int k = 0; k < 3; ++k) osc_mesh_destroy(meshes[k]);
    osc_sdf_destroy(placed);
    osc_sdf_destroy(torus);
}

// 256 cells along the longest axis (about 260^3 corners sampled two layers at a time), then the
// timing of the unit sphere at 128 for the record
static void test_large_grid(void) {
    osc_sdf *sphere = NULL, *placed = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_pose pose = osc_pose_make(osc_v3(0.001, 0.002, 0.003), osc_quat_identity());
    CHECK_STATUS(osc_sdf_create_transformed(sphere, pose, 1.0, &placed), OSC_OK);
    double start = test_seconds();
    osc_mesh* mesh = test_extract_mesh(placed, 256);
    double seconds_256 = test_seconds() - start;
    check_closed(mesh, 2, "sphere at 256");
    CHECK(test_rel_error(osc_mesh_volume(mesh), 4.0 / 3.0 * TEST_PI, 0) < 1e-4);
    printf("  sphere n=256: F=%d in %.3f s wall\n", (int)osc_mesh_triangle_count(mesh), seconds_256);
    osc_mesh_destroy(mesh);

    double best = INFINITY;
    for (int repeat = 0; repeat < 3; ++repeat) {
        start = test_seconds();
        mesh = test_extract_mesh(placed, 128);
        best = fmin(best, test_seconds() - start);
        osc_mesh_destroy(mesh);
    }
    printf("  sphere n=128: best of 3 %.4f s wall (%d threads)\n", best, osc_default_thread_count());
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(placed);
}

int main(void) {
    RUN(test_settings_default);
    RUN(test_invalid_arguments);
    RUN(test_sphere_topology);
    RUN(test_torus_topology);
    RUN(test_two_spheres_topology);
    RUN(test_random_blobs_watertight);
    RUN(test_face_ambiguity);
    RUN(test_sphere_convergence);
    RUN(test_box_convergence);
    RUN(test_iso_value);
    RUN(test_triangle_quality);
    RUN(test_sphere_on_grid_corners);
    RUN(test_grid_aligned_box);
    RUN(test_empty_surface);
    RUN(test_halfspace_patch);
    RUN(test_threads_identical);
    RUN(test_large_grid);
    return test_finish();
}
