// test_mesh_arguments.c: every public function of mesh.h, grid.h and isosurface.h with each pointer
// argument NULL in turn, absurd but finite values (resolutions of 2^31, paddings and coordinates of
// 1e308), devices instead of files and thread counts beyond any machine: each is refused with
// OSC_ERR_INVALID_ARGUMENT (or OSC_ERR_IO) and a message naming the function, the argument and the
// value, or is the documented no-op; nothing crashes. Threads: grids, collision meshes and
// iso-surfaces built on 1, 2 and 100000 threads are bit for bit the same, and so are BVH batches
// and single calls.

#include "mesh_test_util.h"

#include <limits.h>
#include <stdarg.h>

// the last call failed with `status` and its message holds every one of the strings (NULL ends)
static void check_message(osc_status got, osc_status expected, const char* first, ...) {
    CHECK_MSG(got == expected, "status %d, expected %d (%s)", (int)got, (int)expected, osc_last_error());
    va_list args;
    va_start(args, first);
    for (const char* part = first; part; part = va_arg(args, const char*))
        CHECK_MSG(strstr(osc_last_error(), part) != NULL, "'%s' does not say '%s'", osc_last_error(), part);
    va_end(args);
}

#define EXPECT_INVALID(call, ...) check_message((call), OSC_ERR_INVALID_ARGUMENT, __VA_ARGS__, (const char*)NULL)

static const double cube_vertices[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                           {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int32_t cube_triangles[12][3] = {{0, 2, 1}, {0, 3, 2}, {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                                              {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}, {4, 5, 6}, {4, 6, 7}};

static osc_mesh* make_cube(void) {
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&cube_vertices[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    return mesh;
}

// ---------------------------------------------------------------------------------------------
// mesh.h

static void test_mesh_container(void) {
    osc_mesh* mesh = NULL;
    EXPECT_INVALID(osc_mesh_create(&cube_vertices[0][0], 8, &cube_triangles[0][0], 12, NULL), "osc_mesh_create",
                   "out is NULL");
    EXPECT_INVALID(osc_mesh_create(NULL, 8, &cube_triangles[0][0], 12, &mesh), "osc_mesh_create", "vertices is NULL");
    EXPECT_INVALID(osc_mesh_create(&cube_vertices[0][0], 8, NULL, 12, &mesh), "osc_mesh_create", "triangles is NULL");
    // absurd but finite coordinates: named with their value
    double far[8][3];
    memcpy(far, cube_vertices, sizeof far);
    far[5][1] = 1e308;
    EXPECT_INVALID(osc_mesh_create(&far[0][0], 8, &cube_triangles[0][0], 12, &mesh), "osc_mesh_create",
                   "vertices[5] coordinate 1", "1e+308");
    CHECK(mesh == NULL);
    far[5][1] = -OSC_MESH_MAX_COORDINATE; // the largest allowed
    CHECK_STATUS(osc_mesh_create(&far[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    CHECK(isfinite(osc_mesh_volume(mesh)) && isfinite(osc_mesh_area(mesh)));
    osc_mesh_destroy(mesh);

    // a NULL mesh: the documented empty answers
    CHECK(osc_mesh_vertex_count(NULL) == 0 && osc_mesh_triangle_count(NULL) == 0 && osc_mesh_edge_count(NULL) == 0);
    CHECK(osc_mesh_vertices(NULL) == NULL && osc_mesh_triangles(NULL) == NULL && osc_mesh_edges(NULL) == NULL &&
          osc_mesh_edge_triangles(NULL) == NULL);
    CHECK(osc_mesh_volume(NULL) == 0.0 && osc_mesh_area(NULL) == 0.0);
    osc_mesh_topology topology;
    memset(&topology, 0xff, sizeof topology);
    osc_mesh_get_topology(NULL, &topology);
    CHECK(topology.vertex_count == 0 && topology.closed == 0);
    mesh = make_cube();
    osc_mesh_get_topology(mesh, NULL); // nothing to write to: nothing happens
    osc_mesh_destroy(NULL);
    EXPECT_INVALID(osc_mesh_write_obj(NULL, "x.obj"), "osc_mesh_write_obj", "mesh is NULL");
    EXPECT_INVALID(osc_mesh_write_obj(mesh, NULL), "osc_mesh_write_obj", "path is NULL");
    osc_mesh_destroy(mesh);
}

static void test_mesh_import(void) {
    osc_mesh* mesh = NULL;
    EXPECT_INVALID(osc_mesh_load(NULL, NULL, &mesh, NULL), "osc_mesh_load", "path is NULL");
    EXPECT_INVALID(osc_mesh_load("x.obj", NULL, NULL, NULL), "osc_mesh_load", "out is NULL");
    EXPECT_INVALID(osc_mesh_load_memory(NULL, 5, NULL, &mesh, NULL), "osc_mesh_load_memory", "data is NULL");
    EXPECT_INVALID(osc_mesh_load_memory("v 0 0 0\n", 8, NULL, NULL, NULL), "osc_mesh_load_memory", "out is NULL");
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.max_coordinate = 1e308; // beyond what a mesh may hold
    EXPECT_INVALID(osc_mesh_load_memory("v 0 0 0\n", 8, &settings, &mesh, NULL), "osc_mesh_load_memory",
                   "settings->max_coordinate", "1e+308");
    // a device is not a file: refused at once (it used to be read until memory ran out)
    osc_mesh_load_report report;
    check_message(osc_mesh_load("/dev/zero", NULL, &mesh, &report), OSC_ERR_IO, "osc_mesh_load", "/dev/zero",
                  "not a regular file", (const char*)NULL);
    CHECK(mesh == NULL && report.vertices_read == 0);
    check_message(osc_mesh_load("/dev/null", NULL, &mesh, NULL), OSC_ERR_IO, "not a regular file", (const char*)NULL);
    check_message(osc_mesh_load(OSC_TEST_DATA_DIR "/mesh", NULL, &mesh, NULL), OSC_ERR_IO, "not a regular file",
                  (const char*)NULL);
}

static void test_mesh_bvh_arguments(void) {
    osc_mesh* mesh = make_cube();
    osc_mesh_bvh* bvh = NULL;
    EXPECT_INVALID(osc_mesh_bvh_create(NULL, &bvh), "osc_mesh_bvh_create", "mesh is NULL");
    EXPECT_INVALID(osc_mesh_bvh_create(mesh, NULL), "osc_mesh_bvh_create", "out is NULL");
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &bvh), OSC_OK);
    osc_mesh_closest closest;
    CHECK(isnan(osc_mesh_bvh_closest(NULL, osc_v3(0, 0, 0), &closest)) && closest.triangle == -1);
    CHECK(osc_mesh_bvh_closest(bvh, osc_v3(0.5, 0.5, 2), NULL) == 1.0); // the output is optional
    CHECK(isnan(osc_mesh_bvh_winding_number(NULL, osc_v3(0, 0, 0), 2.0)));
    CHECK(isnan(osc_mesh_bvh_signed_distance(NULL, osc_v3(0, 0, 0), NULL)));
    CHECK(osc_mesh_bvh_signed_distance(bvh, osc_v3(0.5, 0.5, 0.75), NULL) == -0.25);
    double point[3] = {0.5, 0.5, 0.5}, distance = 0.0;
    EXPECT_INVALID(osc_mesh_bvh_signed_distance_batch(NULL, point, 1, &distance, NULL, 0),
                   "osc_mesh_bvh_signed_distance_batch", "bvh is NULL");
    EXPECT_INVALID(osc_mesh_bvh_signed_distance_batch(bvh, NULL, 1, &distance, NULL, 0),
                   "osc_mesh_bvh_signed_distance_batch", "points is NULL");
    EXPECT_INVALID(osc_mesh_bvh_signed_distance_batch(bvh, point, 1, NULL, NULL, 0),
                   "osc_mesh_bvh_signed_distance_batch", "distances is NULL");
    EXPECT_INVALID(osc_mesh_bvh_signed_distance_batch(bvh, point, 1, &distance, NULL, -1),
                   "osc_mesh_bvh_signed_distance_batch", "threads", "-1");
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, NULL, 0, NULL, NULL, 0), OSC_OK); // nothing to do
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, point, 1, &distance, NULL, 100000), OSC_OK);
    CHECK(distance == -0.5);
    osc_vec3 lo = osc_v3(0, 0, 0), hi = lo;
    osc_mesh_bvh_bounds(NULL, &lo, &hi);
    CHECK(lo.x == INFINITY && hi.x == -INFINITY);
    osc_mesh_bvh_bounds(bvh, NULL, NULL);
    osc_mesh_bvh_destroy(NULL);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
}

static void test_mesh_tools_arguments(void) {
    osc_mesh* mesh = make_cube();
    osc_mesh* out = mesh;
    double error = 1.0;
    EXPECT_INVALID(osc_mesh_simplify(NULL, NULL, &out, &error), "osc_mesh_simplify", "mesh is NULL");
    CHECK(out == NULL && error == 0.0);
    EXPECT_INVALID(osc_mesh_simplify(mesh, NULL, NULL, NULL), "osc_mesh_simplify", "out is NULL");
    CHECK_STATUS(osc_mesh_simplify(mesh, NULL, &out, NULL), OSC_OK); // NULL settings: the defaults
    osc_mesh_destroy(out);
    int32_t order[8];
    EXPECT_INVALID(osc_curve_order(NULL, 8, OSC_CURVE_HILBERT, order), "osc_curve_order", "points is NULL");
    EXPECT_INVALID(osc_curve_order(&cube_vertices[0][0], 8, OSC_CURVE_HILBERT, NULL), "osc_curve_order",
                   "order is NULL");
    double huge[2][3] = {{-1e308, 0, 0}, {1e308, 1e308, -1e308}}; // spans beyond DBL_MAX: still ordered
    CHECK_STATUS(osc_curve_order(&huge[0][0], 2, OSC_CURVE_HILBERT, order), OSC_OK);
    CHECK((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0));
    EXPECT_INVALID(osc_mesh_reorder(NULL, OSC_CURVE_MORTON, &out, NULL, NULL), "osc_mesh_reorder", "mesh is NULL");
    EXPECT_INVALID(osc_mesh_reorder(mesh, OSC_CURVE_MORTON, NULL, NULL, NULL), "osc_mesh_reorder", "out is NULL");
    int32_t groups[8], edge_groups[18 * 2], count = 0;
    const osc_mesh* hulls[1] = {mesh};
    EXPECT_INVALID(osc_mesh_groups_from_hulls(NULL, hulls, 1, groups), "osc_mesh_groups_from_hulls", "mesh");
    EXPECT_INVALID(osc_mesh_groups_from_hulls(mesh, NULL, 1, groups), "osc_mesh_groups_from_hulls", "hulls");
    const osc_mesh* no_hull[1] = {NULL};
    EXPECT_INVALID(osc_mesh_groups_from_hulls(mesh, no_hull, 1, groups), "osc_mesh_groups_from_hulls", "hulls[0]");
    EXPECT_INVALID(osc_mesh_groups_from_hulls(mesh, hulls, 1, NULL), "osc_mesh_groups_from_hulls", "vertex_groups");
    EXPECT_INVALID(osc_mesh_groups_cluster(NULL, 2, groups, &count), "osc_mesh_groups_cluster", "mesh");
    EXPECT_INVALID(osc_mesh_groups_cluster(mesh, 2, NULL, &count), "osc_mesh_groups_cluster", "vertex_groups");
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 2, groups, NULL), OSC_OK); // the count is optional
    EXPECT_INVALID(osc_mesh_groups_cluster(mesh, INT32_MIN, groups, NULL), "osc_mesh_groups_cluster", "group_count");
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, INT32_MAX, groups, &count), OSC_OK); // one vertex each
    CHECK(count == 8);
    EXPECT_INVALID(osc_mesh_edge_groups(NULL, groups, edge_groups), "osc_mesh_edge_groups", "mesh");
    EXPECT_INVALID(osc_mesh_edge_groups(mesh, NULL, edge_groups), "osc_mesh_edge_groups", "vertex_groups");
    EXPECT_INVALID(osc_mesh_edge_groups(mesh, groups, NULL), "osc_mesh_edge_groups", "edge_groups");
    osc_mesh_destroy(mesh);
}

// ---------------------------------------------------------------------------------------------
// grid.h

static void test_grid_arguments(void) {
    osc_mesh* mesh = make_cube();
    osc_mesh_bvh* bvh = NULL;
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &bvh), OSC_OK);
    osc_grid* grid = NULL;
    EXPECT_INVALID(osc_grid_create_from_mesh(NULL, NULL, &grid), "osc_grid_create_from_mesh", "bvh is NULL");
    EXPECT_INVALID(osc_grid_create_from_mesh(bvh, NULL, NULL), "osc_grid_create_from_mesh", "out is NULL");
    EXPECT_INVALID(osc_grid_create_from_sdf(NULL, NULL, &grid), "osc_grid_create_from_sdf", "sdf is NULL");
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = INT_MAX;
    EXPECT_INVALID(osc_grid_create_from_mesh(bvh, &settings, &grid), "osc_grid_create_from_mesh", "resolution",
                   "2147483647");
    settings = osc_grid_settings_default();
    settings.padding = 1e308;
    EXPECT_INVALID(osc_grid_create_from_mesh(bvh, &settings, &grid), "osc_grid_create_from_mesh", "padding", "1e+308");
    settings = osc_grid_settings_default();
    settings.normal_epsilon = NAN;
    EXPECT_INVALID(osc_grid_create_from_mesh(bvh, &settings, &grid), "osc_grid_create_from_mesh", "normal_epsilon");
    settings = osc_grid_settings_default();
    settings.threads = -3;
    EXPECT_INVALID(osc_grid_create_from_mesh(bvh, &settings, &grid), "osc_grid_create_from_mesh", "threads", "-3");
    CHECK(grid == NULL);

    settings = osc_grid_settings_default();
    settings.resolution = 8;
    CHECK_STATUS(osc_grid_create_from_mesh(bvh, &settings, &grid), OSC_OK);
    osc_vec3 g;
    CHECK(isnan(osc_grid_eval(NULL, osc_v3(0, 0, 0), &g, NULL)));
    CHECK(isfinite(osc_grid_eval(grid, osc_v3(0.5, 0.5, 0.5), NULL, NULL))); // outputs are optional
    CHECK(isnan(osc_grid_eval_normal(NULL, osc_v3(0, 0, 0), NULL).x));
    double point[3] = {0.5, 0.5, 0.5}, value;
    EXPECT_INVALID(osc_grid_eval_batch(NULL, point, 1, &value, NULL, NULL, 0), "osc_grid_eval_batch", "grid is NULL");
    EXPECT_INVALID(osc_grid_eval_batch(grid, NULL, 1, &value, NULL, NULL, 0), "osc_grid_eval_batch", "points is NULL");
    EXPECT_INVALID(osc_grid_eval_batch(grid, point, 1, &value, NULL, NULL, -1), "osc_grid_eval_batch", "threads");
    CHECK_STATUS(osc_grid_eval_batch(grid, point, 1, NULL, NULL, NULL, 0), OSC_OK); // no output asked for
    CHECK_STATUS(osc_grid_eval_batch(grid, point, 1, &value, NULL, NULL, 100000), OSC_OK);
    CHECK(value == osc_grid_eval(grid, osc_v3(0.5, 0.5, 0.5), NULL, NULL));
    osc_vec3 lo = osc_v3(7, 7, 7), hi = lo;
    osc_grid_bounds(NULL, &lo, &hi); // a NULL grid: nothing written
    CHECK(lo.x == 7 && hi.x == 7);
    osc_grid_bounds(grid, NULL, NULL);
    int cells[3] = {-1, -1, -1};
    CHECK(isnan(osc_grid_cells(NULL, cells)) && cells[0] == -1);
    CHECK(osc_grid_cells(grid, NULL) > 0.0);
    CHECK(isnan(osc_grid_lower_bound(NULL, osc_v3(0, 0, 0), NULL, NULL)));
    CHECK(isfinite(osc_grid_lower_bound(grid, osc_v3(0, 0, 0), NULL, NULL)));
    CHECK(isnan(osc_grid_lipschitz(NULL)));
    osc_sdf* sdf = NULL;
    EXPECT_INVALID(osc_grid_to_sdf(NULL, &sdf), "osc_grid_to_sdf", "grid is NULL");
    EXPECT_INVALID(osc_grid_to_sdf(grid, NULL), "osc_grid_to_sdf", "out is NULL");
    EXPECT_INVALID(osc_grid_save(NULL, "x.oscgrid"), "osc_grid_save", "grid is NULL");
    EXPECT_INVALID(osc_grid_save(grid, NULL), "osc_grid_save", "path is NULL");
    osc_grid* loaded = grid;
    EXPECT_INVALID(osc_grid_load(NULL, &loaded), "osc_grid_load", "path is NULL");
    CHECK(loaded == NULL);
    EXPECT_INVALID(osc_grid_load("x.oscgrid", NULL), "osc_grid_load", "out is NULL");
    loaded = grid;
    EXPECT_INVALID(osc_grid_load_memory(NULL, 5, &loaded), "osc_grid_load_memory", "data is NULL");
    CHECK(loaded == NULL);
    EXPECT_INVALID(osc_grid_load_memory("OSCGRID", 8, NULL), "osc_grid_load_memory", "out is NULL");
    // devices: refused at once
    check_message(osc_grid_load("/dev/zero", &loaded), OSC_ERR_IO, "osc_grid_load", "/dev/zero", "not a regular file",
                  (const char*)NULL);
    CHECK(loaded == NULL);
    osc_grid_destroy(NULL);
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
}

// a saved grid whose header places it at 1e300: refused as a parse error naming the byte
static void test_grid_file_absurd_region(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = 4;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(sphere, &settings, &grid), OSC_OK);
    CHECK_STATUS(osc_grid_save(grid, "test_mesh_arguments.oscgrid"), OSC_OK);
    FILE* f = fopen("test_mesh_arguments.oscgrid", "rb");
    static unsigned char bytes[1 << 16];
    size_t size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f) fclose(f);
    remove("test_mesh_arguments.oscgrid");
    CHECK(size > 80 && size < sizeof bytes);
    double origin = 1e300; // the origin's x (docs/grid.md: the cell size at byte 32, the origin at 40)
    memcpy(bytes + 40, &origin, 8);
    uint64_t hash = 14695981039346656037ull; // the checksum recomputed: only the region is wrong
    for (size_t i = 0; i + 8 < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
    memcpy(bytes + size - 8, &hash, 8);
    osc_grid* loaded = NULL;
    check_message(osc_grid_load_memory(bytes, size, &loaded), OSC_ERR_PARSE, "byte 32", (const char*)NULL);
    CHECK(loaded == NULL);
    osc_grid_destroy(grid);
    osc_sdf_destroy(sphere);
}

static void test_collision_mesh_arguments(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_mesh* mesh = NULL;
    EXPECT_INVALID(osc_collision_mesh_create(NULL, NULL, &mesh), "osc_collision_mesh_create", "sdf is NULL");
    EXPECT_INVALID(osc_collision_mesh_create(sphere, NULL, NULL), "osc_collision_mesh_create", "out is NULL");
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.resolution = INT_MAX;
    check_message(osc_collision_mesh_create(sphere, &settings, &mesh), OSC_ERR_INVALID_ARGUMENT, "resolution",
                  (const char*)NULL);
    settings = osc_collision_mesh_settings_default();
    settings.max_error = 1e308; // absurd but harmless: the target stops the simplifier
    settings.resolution = 16;
    settings.target_triangles = 100;
    CHECK_STATUS(osc_collision_mesh_create(sphere, &settings, &mesh), OSC_OK);
    CHECK(osc_mesh_triangle_count(mesh) > 0 && osc_mesh_triangle_count(mesh) <= 100);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(sphere);
}

// ---------------------------------------------------------------------------------------------
// isosurface.h

static void test_isosurface_arguments(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_mesh* mesh = NULL;
    EXPECT_INVALID(osc_isosurface_extract(NULL, NULL, &mesh), "osc_isosurface_extract", "sdf is NULL");
    EXPECT_INVALID(osc_isosurface_extract(sphere, NULL, NULL), "osc_isosurface_extract", "out is NULL");
    CHECK_STATUS(osc_isosurface_extract(sphere, NULL, &mesh), OSC_OK); // NULL settings: the defaults
    CHECK(osc_mesh_triangle_count(mesh) > 0);
    osc_mesh_destroy(mesh);
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = INT_MAX;
    check_message(osc_isosurface_extract(sphere, &settings, &mesh), OSC_ERR_INVALID_ARGUMENT, "resolution",
                  (const char*)NULL);
    settings = osc_isosurface_settings_default();
    settings.padding = 1e308;
    EXPECT_INVALID(osc_isosurface_extract(sphere, &settings, &mesh), "osc_isosurface_extract", "padding", "1e+308");
    settings = osc_isosurface_settings_default();
    settings.lo = osc_v3(-1e308, -1, -1);
    settings.hi = osc_v3(1e308, 1, 1);
    EXPECT_INVALID(osc_isosurface_extract(sphere, &settings, &mesh), "osc_isosurface_extract", "lo");
    settings = osc_isosurface_settings_default();
    settings.iso_value = 1e308;
    EXPECT_INVALID(osc_isosurface_extract(sphere, &settings, &mesh), "osc_isosurface_extract", "iso_value");
    settings = osc_isosurface_settings_default();
    settings.threads = -1;
    EXPECT_INVALID(osc_isosurface_extract(sphere, &settings, &mesh), "osc_isosurface_extract", "threads");
    CHECK(mesh == NULL);
    osc_sdf_destroy(sphere);
}

// ---------------------------------------------------------------------------------------------
// threads: any count, clamped; the same bits on every count

// the bytes of a saved grid (coefficients, voxel grid, header): equal files, equal grids
static size_t grid_bytes(const osc_grid* grid, unsigned char* bytes, size_t capacity) {
    CHECK_STATUS(osc_grid_save(grid, "test_mesh_arguments_threads.oscgrid"), OSC_OK);
    FILE* f = fopen("test_mesh_arguments_threads.oscgrid", "rb");
    size_t size = f ? fread(bytes, 1, capacity, f) : 0;
    if (f) fclose(f);
    remove("test_mesh_arguments_threads.oscgrid");
    return size;
}

static void test_thread_counts(void) {
    osc_mesh* bunny = test_load_model(OSC_DATA_DIR "/bunny.obj");
    osc_mesh_bvh* bvh = NULL;
    CHECK_STATUS(osc_mesh_bvh_create(bunny, &bvh), OSC_OK);
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.3, &torus), OSC_OK);
    const int counts[4] = {1, 2, 0, 100000};
    static unsigned char first[1 << 22], other[1 << 22];
    size_t first_size = 0;
    osc_mesh* first_mesh = NULL;
    for (int c = 0; c < 4; ++c) {
        // a spline SDF baked on that many threads, saved byte for byte
        osc_grid_settings settings = osc_grid_settings_default();
        settings.resolution = 24;
        settings.threads = counts[c];
        osc_grid* grid = NULL;
        CHECK_STATUS(osc_grid_create_from_mesh(bvh, &settings, &grid), OSC_OK);
        size_t size = grid ? grid_bytes(grid, c ? other : first, sizeof first) : 0;
        if (c == 0)
            first_size = size;
        else
            CHECK_MSG(size == first_size && memcmp(first, other, size) == 0, "grid on %d threads differs", counts[c]);
        // a collision mesh of an analytic SDF on that many threads
        osc_collision_mesh_settings cm = osc_collision_mesh_settings_default();
        cm.resolution = 32;
        cm.target_triangles = 300;
        cm.threads = counts[c];
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_collision_mesh_create(torus, &cm, &mesh), OSC_OK);
        if (c == 0)
            first_mesh = mesh;
        else {
            CHECK_MSG(mesh && osc_mesh_vertex_count(mesh) == osc_mesh_vertex_count(first_mesh) &&
                          memcmp(osc_mesh_vertices(mesh), osc_mesh_vertices(first_mesh),
                                 3 * sizeof(double) * (size_t)osc_mesh_vertex_count(mesh)) == 0,
                      "collision mesh on %d threads differs", counts[c]);
            osc_mesh_destroy(mesh);
        }
        osc_grid_destroy(grid);
    }
    // BVH batches against single calls, for sizes around the block of 64 and the threading
    // threshold of 256
    enum { MOST = 1000 };
    static double points[MOST][3], distances[MOST], closest[MOST][3];
    test_rng rng = {77};
    for (int i = 0; i < MOST; ++i)
        for (int a = 0; a < 3; ++a) points[i][a] = test_uniform(&rng, -8.0, 12.0);
    const size_t sizes[6] = {1, 63, 64, 65, 300, MOST};
    int mismatches = 0;
    for (int c = 0; c < 4; ++c)
        for (int n = 0; n < 6; ++n) {
            CHECK_STATUS(
                osc_mesh_bvh_signed_distance_batch(bvh, &points[0][0], sizes[n], distances, &closest[0][0], counts[c]),
                OSC_OK);
            for (size_t i = 0; i < sizes[n]; ++i) {
                osc_mesh_closest single;
                double d = osc_mesh_bvh_signed_distance(bvh, osc_v3(points[i][0], points[i][1], points[i][2]), &single);
                mismatches += memcmp(&d, &distances[i], sizeof d) != 0 || memcmp(&single.point.x, closest[i], 8) != 0 ||
                              memcmp(&single.point.z, &closest[i][2], 8) != 0;
            }
        }
    CHECK_MSG(mismatches == 0, "%d batch results differ from the single calls", mismatches);
    osc_mesh_destroy(first_mesh);
    osc_sdf_destroy(torus);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(bunny);
}

int main(void) {
    RUN(test_mesh_container);
    RUN(test_mesh_import);
    RUN(test_mesh_bvh_arguments);
    RUN(test_mesh_tools_arguments);
    RUN(test_grid_arguments);
    RUN(test_grid_file_absurd_region);
    RUN(test_collision_mesh_arguments);
    RUN(test_isosurface_arguments);
    RUN(test_thread_counts);
    return test_finish();
}
