// mesh_internal.h: internal creation paths of the mesh container, shared by the importers
// (mesh_io.c), the reorderer (mesh_reorder.c) and any module that needs the triangle-to-edge map.
// Never installed.

#ifndef OSC_MESH_INTERNAL_H
#define OSC_MESH_INTERNAL_H

#include "base_internal.h"
#include "osculate/mesh.h"

#include <stdint.h>

/// Writes to `order` [osc_mesh_edge_count(mesh)] the order the unique edges of `mesh` should take,
/// order[new] = lexicographic index; `mesh` has lexicographic edges when it is called. Returns
/// OSC_OK or a failure status with its message set.
typedef osc_status (*osc_mesh_edge_order_fn)(const osc_mesh* mesh, int32_t* order, void* context);

/// Creates a mesh that takes ownership of `vertices` [vertex_count][3] and `triangles`
/// [triangle_count][3], blocks of osc_alloc (NULL when the count is 0): the mesh releases them, or
/// this function does when it fails. The input is validated like osc_mesh_create's.
/// `order_edges` (nullable) puts the unique edges in a given order; NULL keeps them lexicographic.
osc_status osc_mesh_create_owned(double* vertices, int32_t vertex_count, int32_t* triangles,
                                 int32_t triangle_count, osc_mesh_edge_order_fn order_edges,
                                 void* context, osc_mesh** out);

/// Returns, for each triangle t and corner k, the unique edge index of the edge from corner k to
/// corner (k + 1) % 3, [triangle_count][3]; owned by the mesh (NULL without triangles).
const int32_t* osc_mesh_triangle_edges(const osc_mesh* mesh);

/// The largest triangle count a mesh may have (its 3 * count half-edges are indexed by int32_t).
#define OSC_MESH_MAX_TRIANGLES (INT32_MAX / 3)

#endif // OSC_MESH_INTERNAL_H
