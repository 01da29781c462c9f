// mesh_internal.h: internal creation paths of the mesh container, shared by the importers
// (mesh_io.c), the reorderer (mesh_reorder.c) and any module that needs the triangle-to-edge map,
// and the point welding of the importers and the simplifier (mesh_weld.c).
// Never installed.

#ifndef OSC_MESH_INTERNAL_H
#define OSC_MESH_INTERNAL_H

#include "base_internal.h"
#include "osculate/mesh.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
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

/// Welds `count` points [count][3] in input order: each merges into the lowest earlier kept point
/// closer than `tolerance` in the max-norm (remap[i] = that point's index) or is kept (remap[i] =
/// i). Tolerance 0 merges exact duplicates only (-0 equals +0); a negative tolerance keeps every
/// point. Kept points are pairwise at least `tolerance` apart. Returns the number kept, or -1 when
/// out of memory.
int64_t mesh_weld_points(const double* points, size_t count, double tolerance, int32_t* remap);

/// True when the cross product u x v of two edge vectors is zero within the rounding error of its
/// evaluation: the degenerate-triangle test of osc_mesh_get_topology and the simplifier. The edge
/// vectors are correctly rounded differences (relative error DBL_EPSILON / 2 of themselves, wherever
/// the triangle lies), so a cross component of exactly collinear points is at most
/// 1.5 DBL_EPSILON (|p1| + |p2|), p1 and p2 its two products.
static inline bool mesh_cross_is_zero(const double u[3], const double v[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        int i = (axis + 1) % 3, j = (axis + 2) % 3;
        double p1 = u[i] * v[j], p2 = u[j] * v[i];
        if (fabs(p1 - p2) > 2.0 * DBL_EPSILON * (fabs(p1) + fabs(p2))) return false;
    }
    return true;
}

/// The largest triangle count a mesh may have (its 3 * count half-edges are indexed by int32_t).
#define OSC_MESH_MAX_TRIANGLES (INT32_MAX / 3)

#endif // OSC_MESH_INTERNAL_H
