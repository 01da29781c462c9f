// collision_mesh.c: collision meshes from SDFs (Beker et al. 2026 §IV-A): the zero level set by marching
// cubes, simplified to a target face count by quadric edge collapse (osc_mesh_simplify: every
// collapse keeps a closed surface closed with the same topology, keeps the angles above a minimum and
// flips no triangle), optionally projected back onto the level set by Newton steps
// p <- p - phi grad phi / |grad phi|^2 (the paper's proj(p) = p - phi(p) n(p)).
//
// Marching cubes keeps every crossing at least 1e-6 of an edge from the corners, so where the
// surface passes through a grid corner it leaves clusters of vertices ~1e-8 apart joined by slivers;
// the simplifier first welds vertices closer than 1e-4 of a cell, which merges exactly those.

#include "base_internal.h"
#include "osculate/grid.h"
#include "osculate/isosurface.h"

#include <string.h>

osc_collision_mesh_settings osc_collision_mesh_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_collision_mesh_settings){
        .resolution = 96, .target_triangles = 2000, .max_error = 0.01, .project_iterations = 0, .threads = 0};
}

static osc_status check_settings(const char* function, const osc_collision_mesh_settings* s) {
    if (s->resolution < 2)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: resolution must be >= 2 (got %d)", function, s->resolution);
    if (s->target_triangles < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: target_triangles must be >= 0 (got %d)", function,
                        (int)s->target_triangles);
    if (!(s->max_error >= 0.0) || !isfinite(s->max_error))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: max_error must be >= 0 and finite (got %g)", function,
                        s->max_error);
    if (s->project_iterations < 0 || s->project_iterations > 100)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: project_iterations must be in [0, 100] (got %d)", function,
                        s->project_iterations);
    if (s->threads < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads must be >= 0 (got %d)", function, s->threads);
    return OSC_OK;
}

// a copy of `mesh` with every vertex moved by `iterations` Newton steps onto {phi = 0}
static osc_status project_onto_level_set(const osc_sdf* sdf, const osc_mesh* mesh, int iterations, osc_mesh** out) {
    int32_t n = osc_mesh_vertex_count(mesh);
    double* vertices = osc_calloc((size_t)n, 3 * sizeof(double));
    if (!vertices) return OSC_ERR_NO_MEMORY;
    memcpy(vertices, osc_mesh_vertices(mesh), (size_t)n * 3 * sizeof(double));
    for (int32_t v = 0; v < n; ++v) {
        osc_vec3 p = osc_v3(vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]);
        for (int k = 0; k < iterations; ++k) {
            osc_vec3 g;
            double phi = osc_sdf_eval(sdf, p, &g, NULL);
            double g2 = osc_dot(g, g);
            if (!(g2 > 0.0) || !isfinite(phi)) break;
            p = osc_add_scaled(p, g, -phi / g2);
        }
        vertices[3 * v] = p.x;
        vertices[3 * v + 1] = p.y;
        vertices[3 * v + 2] = p.z;
    }
    osc_status status = osc_mesh_create(vertices, n, osc_mesh_triangles(mesh), osc_mesh_triangle_count(mesh), out);
    osc_free(vertices);
    return status;
}

osc_status osc_collision_mesh_create(const osc_sdf* sdf, const osc_collision_mesh_settings* settings, osc_mesh** out) {
    const char* function = "osc_collision_mesh_create";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!sdf) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sdf is NULL", function);
    osc_collision_mesh_settings defaults = osc_collision_mesh_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_settings(function, settings);
    if (status) return status;
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.resolution = settings->resolution;
    iso.threads = settings->threads;
    osc_mesh* result = NULL;
    if ((status = osc_isosurface_extract(sdf, &iso, &result))) return status;
    if (osc_mesh_triangle_count(result) == 0) {
        osc_mesh_destroy(result);
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the SDF has no surface in its region at resolution %d (its samples never change sign: it "
                        "has no inside, or one thinner than a cell)",
                        function, settings->resolution);
    }
    if (settings->target_triangles > 0 && settings->target_triangles < osc_mesh_triangle_count(result)) {
        osc_vec3 lo, hi;
        osc_sdf_bounds(sdf, &lo, &hi);
        osc_vec3 size = osc_sub(hi, lo);
        double longest = fmax(size.x, fmax(size.y, size.z));
        osc_mesh_simplify_settings simplify = osc_mesh_simplify_settings_default();
        simplify.target_triangles = settings->target_triangles;
        simplify.max_error = settings->max_error * longest;
        simplify.weld_tolerance = 1e-4 * longest / settings->resolution;
        osc_mesh* simplified = NULL;
        status = osc_mesh_simplify(result, &simplify, &simplified, NULL);
        osc_mesh_destroy(result);
        if (status) return status == OSC_ERR_NO_MEMORY ? osc_fail_in(function, status) : status;
        result = simplified;
    }
    if (settings->project_iterations > 0) {
        osc_mesh* projected = NULL;
        status = project_onto_level_set(sdf, result, settings->project_iterations, &projected);
        osc_mesh_destroy(result);
        if (status) return status == OSC_ERR_NO_MEMORY ? osc_fail_in(function, status) : status;
        result = projected;
    }
    *out = result;
    return OSC_OK;
}
