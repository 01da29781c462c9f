// fuzz_mesh.h: the body shared by the libFuzzer targets of the mesh importers (fuzz_mesh_*.c,
// built and run by tests/fuzz_mesh.sh). Each input is parsed in one forced format; the settings
// vary with the input size so that tolerance welding, the DROP policy and kept unreferenced
// vertices run too. Beyond the sanitizers, it aborts when an outcome breaks the contract: a failure
// that is not OSC_ERR_PARSE (or OSC_ERR_NO_MEMORY), that leaves *out set or whose message lacks
// its place; a mesh with an index out of range, a repeated corner, a non-finite or too large
// coordinate, an unreferenced vertex that should be gone, or a topology that does not add up.
// A loaded mesh is also reordered along the Hilbert curve, which must keep its topology, and its
// orientation is analysed again: an oriented mesh must need no more turning.

#ifndef OSC_FUZZ_MESH_H
#define OSC_FUZZ_MESH_H

#include "osculate/mesh.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(condition)                                                                                        \
    do {                                                                                                               \
        if (!(condition)) abort();                                                                                     \
    } while (0)

static void fuzz_check_mesh(const osc_mesh* mesh, const osc_mesh_load_settings* settings) {
    int32_t vertex_count = osc_mesh_vertex_count(mesh), triangle_count = osc_mesh_triangle_count(mesh);
    const double* vertices = osc_mesh_vertices(mesh);
    const int32_t* triangles = osc_mesh_triangles(mesh);
    for (int64_t i = 0; i < 3 * (int64_t)vertex_count; ++i)
        FUZZ_REQUIRE(isfinite(vertices[i]) && fabs(vertices[i]) <= settings->max_coordinate);
    char* used = calloc((size_t)vertex_count + 1, 1);
    FUZZ_REQUIRE(used != NULL);
    for (int64_t t = 0; t < triangle_count; ++t) {
        const int32_t* corner = triangles + 3 * t;
        for (int k = 0; k < 3; ++k) {
            FUZZ_REQUIRE(corner[k] >= 0 && corner[k] < vertex_count);
            used[corner[k]] = 1;
        }
        FUZZ_REQUIRE(corner[0] != corner[1] && corner[1] != corner[2] && corner[2] != corner[0]);
    }
    int32_t unused = 0;
    for (int32_t v = 0; v < vertex_count; ++v) unused += !used[v];
    free(used);
    FUZZ_REQUIRE(settings->keep_unreferenced || unused == 0);

    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    FUZZ_REQUIRE(topology.isolated_vertices == unused);
    FUZZ_REQUIRE(topology.euler_characteristic == vertex_count - unused - topology.edge_count + triangle_count);
    // every triangle has three edges, every boundary edge one, every interior edge two or more
    FUZZ_REQUIRE(3 * (int64_t)triangle_count >=
                 (int64_t)topology.boundary_edges + 2 * ((int64_t)topology.edge_count - topology.boundary_edges));
    FUZZ_REQUIRE(topology.components <= vertex_count - unused);

    osc_mesh* reordered = NULL;
    FUZZ_REQUIRE(osc_mesh_reorder(mesh, OSC_CURVE_HILBERT, &reordered, NULL, NULL) == OSC_OK);
    osc_mesh_topology after;
    osc_mesh_get_topology(reordered, &after);
    FUZZ_REQUIRE(memcmp(&topology, &after, sizeof after) == 0);
    osc_mesh_destroy(reordered);
}

// the orientation report: the analysis of the mesh as read; an oriented mesh needs no more turning
// (orienting is idempotent) and has the same patches; one kept as read analyses as reported
static void fuzz_check_orientation(const osc_mesh* mesh, const osc_mesh_load_settings* settings,
                                   const osc_mesh_orientation* reported) {
    osc_mesh_orientation now;
    FUZZ_REQUIRE(osc_mesh_get_orientation(mesh, &now) == OSC_OK);
    if (!settings->orient) {
        FUZZ_REQUIRE(memcmp(&now, reported, sizeof now) == 0);
        return;
    }
    FUZZ_REQUIRE(now.triangles_flipped == 0 && now.inverted_patches == 0);
    FUZZ_REQUIRE(now.patches == reported->patches && now.closed_patches == reported->closed_patches &&
                 now.non_orientable_patches == reported->non_orientable_patches &&
                 now.flat_patches == reported->flat_patches && now.sign_reliable == reported->sign_reliable);
    FUZZ_REQUIRE(now.inconsistent_edges == 0 || now.non_orientable_patches > 0);
    FUZZ_REQUIRE(reported->triangles_flipped <= osc_mesh_triangle_count(mesh));
}

static int fuzz_mesh_one(const uint8_t* data, size_t size, osc_mesh_format format) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.format = format;
    switch (size % 4) {
        case 1:
            settings.weld_tolerance = 1e-3;
            settings.degenerate = OSC_MESH_DEGENERATE_DROP;
            break;
        case 2:
            settings.weld_tolerance = -1.0;
            settings.keep_unreferenced = 1;
            settings.orient = 0;
            break;
        case 3:
            settings.weld_tolerance = 0.5;
            settings.degenerate = OSC_MESH_DEGENERATE_DROP;
            settings.keep_unreferenced = 1;
            settings.max_coordinate = OSC_MESH_MAX_COORDINATE;
            break;
        default: break;
    }
    osc_mesh* mesh = (osc_mesh*)&settings; // a sentinel the loader must overwrite
    osc_mesh_load_report report;
    osc_status status = osc_mesh_load_memory(data, size, &settings, &mesh, &report);
    if (status != OSC_OK) {
        FUZZ_REQUIRE(mesh == NULL);
        FUZZ_REQUIRE(status == OSC_ERR_PARSE || status == OSC_ERR_NO_MEMORY);
        const char* message = osc_last_error();
        FUZZ_REQUIRE(status != OSC_ERR_PARSE || strstr(message, " line ") || strstr(message, " byte ") ||
                     strstr(message, "STL: neither"));
        return 0;
    }
    FUZZ_REQUIRE(mesh != NULL && report.format == format);
    FUZZ_REQUIRE(report.vertices_read >= osc_mesh_vertex_count(mesh));
    fuzz_check_mesh(mesh, &settings);
    fuzz_check_orientation(mesh, &settings, &report.orientation);
    osc_mesh_destroy(mesh);
    return 0;
}

#endif // OSC_FUZZ_MESH_H
