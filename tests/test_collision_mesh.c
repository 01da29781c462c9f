// test_collision_mesh.c: collision meshes (Beker et al. 2026 §IV-A): marching cubes, simplification to a
// target face count within a stated error, topology kept (closed, same Euler characteristic), sharp
// features kept, optional projection onto the zero level set, and bad input.

#include "mesh_test_util.h"

#include <string.h>

typedef struct case_result {
    int32_t triangles;
    double deviation;
    osc_mesh_topology topology;
} case_result;

static case_result run_case(const char* name, const osc_sdf* sdf, int32_t target, double max_error,
                            int expected_euler) {
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.target_triangles = target;
    settings.max_error = max_error;
    osc_mesh* mesh = NULL;
    case_result r = {0, 0.0, {0}};
    CHECK_STATUS(osc_collision_mesh_create(sdf, &settings, &mesh), OSC_OK);
    if (!mesh) return r;
    osc_mesh_get_topology(mesh, &r.topology);
    r.triangles = osc_mesh_triangle_count(mesh);
    r.deviation = test_mesh_deviation(sdf, mesh, 3);
    osc_vec3 lo, hi;
    osc_sdf_bounds(sdf, &lo, &hi);
    osc_vec3 size = osc_sub(hi, lo);
    double longest = fmax(size.x, fmax(size.y, size.z));
    printf("  %-10s %6d triangles (target %d), deviation %.4f of the size, Euler %d\n", name, (int)r.triangles,
           (int)target, r.deviation / longest, (int)r.topology.euler_characteristic);
    CHECK_MSG(r.topology.closed, "%s: the collision mesh is not closed", name);
    CHECK_MSG(r.topology.euler_characteristic == expected_euler, "%s: Euler characteristic %d, expected %d", name,
              (int)r.topology.euler_characteristic, expected_euler);
    CHECK_MSG(r.topology.non_manifold_edges == 0 && r.topology.inconsistent_edges == 0, "%s: bad edges", name);
    // the simplifier's error bound, plus the marching cubes' own error (a fraction of a cell)
    double cell = longest / settings.resolution;
    CHECK_MSG(r.deviation <= max_error * longest + cell, "%s: deviation %g above %g", name, r.deviation,
              max_error * longest + cell);
    osc_mesh_destroy(mesh);
    return r;
}

static void test_closed_shapes(void) {
    osc_sdf *sphere = NULL, *torus = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    // a loose error bound: the target stops the simplification, exactly
    case_result s = run_case("sphere", sphere, 400, 0.05, 2);
    CHECK_MSG(s.triangles <= 400 && s.triangles >= 390, "sphere: %d triangles for a target of 400", (int)s.triangles);
    case_result t = run_case("torus", torus, 800, 0.05, 0);
    CHECK(t.triangles <= 800);
    // a tight error bound: it stops the simplification before the target, within the bound
    case_result tight = run_case("sphere tight", sphere, 100, 0.002, 2);
    CHECK_MSG(tight.triangles > 100, "sphere: the error bound did not stop the simplification (%d)",
              (int)tight.triangles);
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(torus);
}

// sharp features: the corners of a box stay within the error of a vertex
static void test_sharp_features(void) {
    osc_sdf* box = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.3, 0.4), 0.0, &box), OSC_OK);
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.target_triangles = 300;
    settings.max_error = 0.01;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(box, &settings, &mesh), OSC_OK);
    double worst_corner = test_box_corner_distance(mesh, osc_v3(0.5, 0.3, 0.4));
    double cell = 1.0 * 1.2 / settings.resolution; // the bounds' longest side is 1.0 (+ padding)
    printf("  box: %d triangles, farthest corner from a vertex %.4f (cell %.4f)\n", (int)osc_mesh_triangle_count(mesh),
           worst_corner, cell);
    // marching cubes cut a corner by up to about a cell; the simplifier must not make it worse
    CHECK_MSG(worst_corner <= 2.0 * cell, "a box corner is %g from the nearest vertex", worst_corner);
    CHECK(test_mesh_deviation(box, mesh, 3) <= 0.01 + cell);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(box);
}

// projection moves every vertex onto the level set; target 0 keeps the marching-cubes mesh
static void test_projection_and_no_simplification(void) {
    osc_sdf* ellipsoid = NULL;
    CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(0.6, 0.4, 0.3), &ellipsoid), OSC_OK);
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.target_triangles = 500;
    settings.project_iterations = 4;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(ellipsoid, &settings, &mesh), OSC_OK);
    double worst = 0.0;
    const double* v = osc_mesh_vertices(mesh);
    for (int32_t i = 0; i < osc_mesh_vertex_count(mesh); ++i)
        worst = fmax(worst, fabs(osc_sdf_eval(ellipsoid, osc_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]), NULL, NULL)));
    // rounding level (measured 1.3e-16)
    CHECK_MSG(worst < 1.5e-14, "projected vertices are up to %g from the level set", worst);
    osc_mesh_destroy(mesh);
    // no simplification: exactly the marching-cubes mesh
    settings = osc_collision_mesh_settings_default();
    settings.target_triangles = 0;
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.resolution = settings.resolution;
    osc_mesh *full = NULL, *reference = NULL;
    CHECK_STATUS(osc_collision_mesh_create(ellipsoid, &settings, &full), OSC_OK);
    CHECK_STATUS(osc_isosurface_extract(ellipsoid, &iso, &reference), OSC_OK);
    CHECK(test_mesh_equal(full, reference));
    osc_mesh_destroy(full);
    osc_mesh_destroy(reference);
    osc_sdf_destroy(ellipsoid);
}

// a spline SDF's collision mesh (Beker et al. 2026 §IV-A: SDF -> iso-surface -> simplified mesh)
static void test_from_spline(void) {
    osc_sdf *torus = NULL, *leaf = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.25, &torus), OSC_OK);
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(torus, NULL, &grid), OSC_OK);
    CHECK_STATUS(osc_grid_to_sdf(grid, &leaf), OSC_OK);
    run_case("spline torus", leaf, 600, 0.005, 0);
    osc_sdf_destroy(leaf);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
}

static void test_bad_input(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sphere), OSC_OK);
    osc_mesh* mesh = (osc_mesh*)&mesh;
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.target_triangles = -1;
    CHECK_STATUS(osc_collision_mesh_create(sphere, &settings, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(mesh == NULL && strstr(osc_last_error(), "target_triangles") != NULL);
    settings = osc_collision_mesh_settings_default();
    settings.max_error = NAN;
    CHECK_STATUS(osc_collision_mesh_create(sphere, &settings, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "max_error") != NULL);
    settings = osc_collision_mesh_settings_default();
    settings.resolution = 1;
    CHECK_STATUS(osc_collision_mesh_create(sphere, &settings, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_collision_mesh_create(NULL, NULL, &mesh), OSC_ERR_INVALID_ARGUMENT);
    osc_sdf_destroy(sphere);
}

int main(void) {
    RUN(test_closed_shapes);
    RUN(test_sharp_features);
    RUN(test_projection_and_no_simplification);
    RUN(test_from_spline);
    RUN(test_bad_input);
    return test_finish();
}
