// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// mesh.h: triangle meshes. This first part is the container (vertices, triangles), its volume and
// area, and an OBJ writer; importers, the closest-point BVH and reordering come with the mesh
// module proper (seed 000 §III-B, §IV-A).
//
// Triangles are counter-clockwise seen from outside, so their normals (v1 - v0) x (v2 - v0) point
// out of a closed mesh and osc_mesh_volume is positive for it.

#ifndef OSCULATE_MESH_H
#define OSCULATE_MESH_H

#include "osculate/base.h"
#include "osculate/math.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An immutable triangle mesh. Create with osc_mesh_create (or a producer such as
/// osc_isosurface_extract), release with osc_mesh_destroy.
typedef struct osc_mesh osc_mesh;

/// Creates a mesh from copies of `vertices` [vertex_count][3] and `triangles`
/// [triangle_count][3] (0-based indices). Fails with OSC_ERR_INVALID_ARGUMENT, naming the element,
/// on a non-finite coordinate, an index out of range or a triangle that repeats a vertex index.
OSC_API osc_status osc_mesh_create(const double* vertices, int32_t vertex_count,
                                   const int32_t* triangles, int32_t triangle_count,
                                   osc_mesh** out);

/// Releases a mesh (NULL is fine).
OSC_API void osc_mesh_destroy(osc_mesh* mesh);

/// Returns the number of vertices.
OSC_API int32_t osc_mesh_vertex_count(const osc_mesh* mesh);

/// Returns the number of triangles.
OSC_API int32_t osc_mesh_triangle_count(const osc_mesh* mesh);

/// Returns the vertex coordinates, [vertex_count][3], owned by the mesh.
OSC_API const double* osc_mesh_vertices(const osc_mesh* mesh);

/// Returns the triangle vertex indices, [triangle_count][3], owned by the mesh.
OSC_API const int32_t* osc_mesh_triangles(const osc_mesh* mesh);

/// Returns the signed volume enclosed by the mesh (divergence theorem); positive for a closed,
/// outward-oriented mesh, meaningless for an open one.
OSC_API double osc_mesh_volume(const osc_mesh* mesh);

/// Returns the total area of the triangles.
OSC_API double osc_mesh_area(const osc_mesh* mesh);

/// Writes the mesh as a Wavefront OBJ file (v and f lines, 1-based indices, 17 significant
/// digits). Fails with OSC_ERR_IO, naming the path, when the file cannot be written.
OSC_API osc_status osc_mesh_write_obj(const osc_mesh* mesh, const char* path);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_MESH_H
