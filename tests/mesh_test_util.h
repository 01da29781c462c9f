// mesh_test_util.h: helpers shared by the tests that mesh SDFs: marching cubes at a given
// resolution, and the distance of a mesh from the SDF's zero level set.

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

#endif // OSC_MESH_TEST_UTIL_H
