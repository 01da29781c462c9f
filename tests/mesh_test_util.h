// mesh_test_util.h: helpers shared by the mesh tests: marching cubes at a given resolution, the
// distance of a mesh from the SDF's zero level set, loading a model, random surface points, box
// corners against mesh vertices, bit-for-bit mesh equality and the validity of a loaded mesh.

#ifndef OSC_MESH_TEST_UTIL_H
#define OSC_MESH_TEST_UTIL_H

#include "osculate/osculate.h"
#include "test_common.h"

// meshes `sdf` with `resolution` cells along the longest axis and default settings otherwise
static inline osc_mesh* test_extract_mesh(const osc_sdf* sdf, int resolution) {
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = resolution;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_isosurface_extract(sdf, &settings, &mesh), OSC_OK);
    return mesh;
}

// the largest distance of the mesh from the surface, as |phi| / max(|grad phi|, 0.5) (exact for
// distance fields, first order for fields that are not), over a barycentric grid of
// (steps + 1)(steps + 2) / 2 points on every triangle: its corners, and its edge midpoints from
// steps = 2 on
static inline double test_mesh_deviation(const osc_sdf* sdf, const osc_mesh* mesh, int steps) {
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* t = osc_mesh_triangles(mesh);
    double worst = 0.0;
    for (int32_t i = 0; i < osc_mesh_triangle_count(mesh); ++i) {
        const double* p[3] = {v + 3 * t[3 * i], v + 3 * t[3 * i + 1], v + 3 * t[3 * i + 2]};
        for (int r = 0; r <= steps; ++r) {
            for (int s = 0; r + s <= steps; ++s) {
                double u = (double)r / steps, w = (double)s / steps;
                osc_vec3 x = osc_v3(p[0][0] + u * (p[1][0] - p[0][0]) + w * (p[2][0] - p[0][0]),
                                    p[0][1] + u * (p[1][1] - p[0][1]) + w * (p[2][1] - p[0][1]),
                                    p[0][2] + u * (p[1][2] - p[0][2]) + w * (p[2][2] - p[0][2]));
                osc_vec3 gradient;
                double phi = osc_sdf_eval(sdf, x, &gradient, NULL);
                double slope = sqrt(osc_dot(gradient, gradient));
                worst = fmax(worst, fabs(phi) / (slope > 0.5 ? slope : 0.5));
            }
        }
    }
    return worst;
}

// a model of data/ or of tools/fetch_models.sh; fails (does not skip) when it cannot be loaded
static inline osc_mesh* test_load_model(const char* path) {
    osc_mesh* mesh = NULL;
    osc_status status = osc_mesh_load(path, NULL, &mesh, NULL);
#ifdef OSC_MODEL_DIR
    const char* hint = strstr(path, OSC_MODEL_DIR) ? ": run tools/fetch_models.sh (make models) to fetch it" : "";
#else
    const char* hint = "";
#endif
    CHECK_MSG(status == OSC_OK, "cannot load %s (%s)%s", path, osc_last_error(), hint);
    return status == OSC_OK ? mesh : NULL;
}

// a uniformly random point on a random triangle (the mesh must have triangles)
static inline osc_vec3 test_random_surface_point(const osc_mesh* mesh, test_rng* rng) {
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* t = osc_mesh_triangles(mesh) + 3 * (test_rng_next(rng) % (uint64_t)osc_mesh_triangle_count(mesh));
    double u = test_uniform(rng, 0, 1), w = test_uniform(rng, 0, 1);
    if (u + w > 1.0) u = 1.0 - u, w = 1.0 - w;
    osc_vec3 a = osc_v3(v[3 * t[0]], v[3 * t[0] + 1], v[3 * t[0] + 2]);
    osc_vec3 b = osc_v3(v[3 * t[1]], v[3 * t[1] + 1], v[3 * t[1] + 2]);
    osc_vec3 c = osc_v3(v[3 * t[2]], v[3 * t[2] + 1], v[3 * t[2] + 2]);
    return osc_add_scaled(osc_add_scaled(a, osc_sub(b, a), u), osc_sub(c, a), w);
}

// the largest distance from a corner of the box [-half, half] to its nearest mesh vertex
static inline double test_box_corner_distance(const osc_mesh* mesh, osc_vec3 half) {
    const double* v = osc_mesh_vertices(mesh);
    double worst = 0.0;
    for (int corner = 0; corner < 8; ++corner) {
        osc_vec3 p =
            osc_v3(corner & 1 ? half.x : -half.x, corner & 2 ? half.y : -half.y, corner & 4 ? half.z : -half.z);
        double nearest = INFINITY;
        for (int32_t i = 0; i < osc_mesh_vertex_count(mesh); ++i)
            nearest = fmin(nearest, osc_length(osc_sub(osc_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]), p)));
        worst = fmax(worst, nearest);
    }
    return worst;
}

// true when the mesh has exactly these arrays, bit for bit
static inline int test_mesh_has_arrays(const osc_mesh* mesh, const double* vertices, int32_t vertex_count,
                                       const int32_t* triangles, int32_t triangle_count) {
    return mesh && osc_mesh_vertex_count(mesh) == vertex_count && osc_mesh_triangle_count(mesh) == triangle_count &&
           (vertex_count == 0 ||
            memcmp(osc_mesh_vertices(mesh), vertices, 3 * (size_t)vertex_count * sizeof(double)) == 0) &&
           (triangle_count == 0 ||
            memcmp(osc_mesh_triangles(mesh), triangles, 3 * (size_t)triangle_count * sizeof(int32_t)) == 0);
}

// true when two meshes are equal bit for bit: vertices, triangles, edges and their triangles
static inline int test_mesh_equal(const osc_mesh* a, const osc_mesh* b) {
    if (!a || !b) return 0;
    int32_t edge_count = osc_mesh_edge_count(a);
    return test_mesh_has_arrays(b, osc_mesh_vertices(a), osc_mesh_vertex_count(a), osc_mesh_triangles(a),
                                osc_mesh_triangle_count(a)) &&
           osc_mesh_edge_count(b) == edge_count &&
           (edge_count == 0 ||
            (memcmp(osc_mesh_edges(a), osc_mesh_edges(b), 2 * (size_t)edge_count * sizeof(int32_t)) == 0 &&
             memcmp(osc_mesh_edge_triangles(a), osc_mesh_edge_triangles(b), 2 * (size_t)edge_count * sizeof(int32_t)) ==
                 0));
}

// the number of contract breaches of a mesh: a non-finite coordinate, a corner index out of range,
// a triangle with a repeated corner (0: a valid mesh)
static inline int64_t test_mesh_breaches(const osc_mesh* mesh) {
    int32_t vertex_count = osc_mesh_vertex_count(mesh);
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* t = osc_mesh_triangles(mesh);
    int64_t breaches = 0;
    for (int64_t i = 0; i < 3 * (int64_t)vertex_count; ++i) breaches += !isfinite(v[i]);
    for (int64_t i = 0; i < osc_mesh_triangle_count(mesh); ++i) {
        const int32_t* corner = t + 3 * i;
        int in_range = 1;
        for (int k = 0; k < 3; ++k) in_range &= corner[k] >= 0 && corner[k] < vertex_count;
        breaches += !in_range || corner[0] == corner[1] || corner[1] == corner[2] || corner[2] == corner[0];
    }
    return breaches;
}

#endif // OSC_MESH_TEST_UTIL_H
