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
osc_status osc_mesh_create_owned(double* vertices, int32_t vertex_count, int32_t* triangles, int32_t triangle_count,
                                 osc_mesh_edge_order_fn order_edges, void* context, osc_mesh** out);

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

/// The solid angle of triangle (a, b, c) seen from p (Van Oosterom and Strackee 1983):
/// tan(Omega / 2) = det[a b c] / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|), the corners taken
/// relative to p; exact to rounding everywhere through atan2.
static inline double mesh_solid_angle(osc_vec3 a, osc_vec3 b, osc_vec3 c, osc_vec3 p) {
    a = osc_sub(a, p), b = osc_sub(b, p), c = osc_sub(c, p);
    double la = osc_length(a), lb = osc_length(b), lc = osc_length(c);
    double det = osc_dot(a, osc_cross(b, c));
    double den = la * lb * lc + osc_dot(a, b) * lc + osc_dot(b, c) * la + osc_dot(c, a) * lb;
    return 2.0 * atan2(det, den);
}

/// osc_mesh_get_orientation without its argument checks and without naming itself in a message
/// (the BVH and the importers call it). OSC_OK or OSC_ERR_NO_MEMORY with the message set.
osc_status mesh_orientation_of(const osc_mesh* mesh, osc_mesh_orientation* out);

/// osc_mesh_orient without its argument checks and without naming itself in a message (the
/// importers call it): a copy of `mesh` oriented as osc_mesh_orient does, the analysis in
/// `report` (nullable). OSC_OK or OSC_ERR_NO_MEMORY with the message set.
osc_status mesh_orient_internal(const osc_mesh* mesh, osc_mesh** out, osc_mesh_orientation* report);

/// The orientation of the mesh a BVH was built from (osc_mesh_get_orientation at creation).
const osc_mesh_orientation* mesh_bvh_orientation(const osc_mesh_bvh* bvh);

/// The largest triangle count a mesh may have (its 3 * count half-edges are indexed by int32_t).
#define OSC_MESH_MAX_TRIANGLES (INT32_MAX / 3)

#endif // OSC_MESH_INTERNAL_H
