// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// mesh.h: triangle meshes (Beker et al. 2026 §III-B, §IV-A): the container with its unique edges and
// topology, importers (OBJ, STL, OFF, PLY), a BVH for exact closest points and a robust
// inside/outside sign (generalised winding number), and reordering along space-filling curves
// (Beker et al. 2026 §IV-C.3).
//
// Triangles are counter-clockwise seen from outside, so their normals (v1 - v0) x (v2 - v0) point
// out of a closed mesh and osc_mesh_volume is positive for it.
//
// SUMMARY
// - osc_mesh: immutable; owns its vertices, triangles and unique edges (computed at creation).
// - osc_mesh_load / osc_mesh_load_memory: parse a file or a buffer; every malformed input is
//   OSC_ERR_PARSE with the line (text formats) or byte offset (binary formats) in the message. The
//   triangles are oriented outward as they are read (osc_mesh_orient), and the import report says
//   whether the mesh is closed, so whether a signed distance's sign can be trusted.
// - osc_mesh_orient / osc_mesh_get_orientation: consistent, outward windings across each patch of
//   triangles joined by manifold edges; closed patches face outward by their signed volume (a
//   patch nested inside another keeps its side, cavity or embedded solid, unless the whole nest is
//   inside out).
// - osc_mesh_bvh: a model built from a mesh, for closest-point, winding-number and signed-distance
//   queries; any number of threads may query one BVH at once.
// - osc_mesh_reorder: a copy of a mesh with vertices and edges in Morton or Hilbert order, with the
//   permutations returned.
// - Convex groups (Beker et al. 2026 §IV-D.1) for contact blending: vertices assigned to the hulls of a
//   convex decomposition (osc_mesh_groups_from_hulls) or clustered by k-means
//   (osc_mesh_groups_cluster); osc_mesh_edge_groups gives each edge its corners' groups.

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

/// The largest |coordinate| a mesh may have: far below where squared distances, volumes (cubes of
/// coordinates) or the BVH's float boxes overflow. Grids and iso-surfaces keep their regions within
/// it too.
#define OSC_MESH_MAX_COORDINATE 1e30

/// Creates a mesh from copies of `vertices` [vertex_count][3] and `triangles`
/// [triangle_count][3] (0-based indices). Fails with OSC_ERR_INVALID_ARGUMENT, naming the element,
/// on a NULL argument, a coordinate that is not finite or exceeds OSC_MESH_MAX_COORDINATE, an
/// index out of range or a triangle that repeats a vertex index.
OSC_API osc_status osc_mesh_create(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                                   int32_t triangle_count, osc_mesh** out);

/// Releases a mesh (NULL is fine).
OSC_API void osc_mesh_destroy(osc_mesh* mesh);

// The accessors below answer a NULL mesh as an empty one: 0, or NULL for an array.

/// Returns the number of vertices.
OSC_API int32_t osc_mesh_vertex_count(const osc_mesh* mesh);

/// Returns the number of triangles.
OSC_API int32_t osc_mesh_triangle_count(const osc_mesh* mesh);

/// Returns the vertex coordinates, [vertex_count][3], owned by the mesh (NULL when empty).
OSC_API const double* osc_mesh_vertices(const osc_mesh* mesh);

/// Returns the triangle vertex indices, [triangle_count][3], owned by the mesh (NULL without
/// triangles).
OSC_API const int32_t* osc_mesh_triangles(const osc_mesh* mesh);

/// Returns the signed volume enclosed by the mesh (divergence theorem); positive for a closed,
/// outward-oriented mesh, meaningless for an open one.
OSC_API double osc_mesh_volume(const osc_mesh* mesh);

/// Returns the total area of the triangles.
OSC_API double osc_mesh_area(const osc_mesh* mesh);

/// Writes the mesh as a Wavefront OBJ file (v and f lines, 1-based indices, 17 significant
/// digits). Fails with OSC_ERR_IO, naming the path, when the file cannot be written, and with
/// OSC_ERR_INVALID_ARGUMENT for a NULL mesh or path.
OSC_API osc_status osc_mesh_write_obj(const osc_mesh* mesh, const char* path);

// ---------------------------------------------------------------------------------------------
// unique edges and topology (computed once, at creation)

/// Returns the number of unique (undirected) edges.
OSC_API int32_t osc_mesh_edge_count(const osc_mesh* mesh);

/// Returns the unique edges, [edge_count][2] vertex indices with edges[e][0] < edges[e][1]; owned
/// by the mesh. They are sorted lexicographically, except in a mesh from osc_mesh_reorder, where
/// they follow the space-filling curve.
OSC_API const int32_t* osc_mesh_edges(const osc_mesh* mesh);

/// Returns, for each unique edge, its first two adjacent triangles, [edge_count][2]; -1 where an
/// edge has fewer (a boundary edge has one). Owned by the mesh.
OSC_API const int32_t* osc_mesh_edge_triangles(const osc_mesh* mesh);

/// Topology of a mesh, from osc_mesh_get_topology.
typedef struct osc_mesh_topology {
    int32_t vertex_count, triangle_count, edge_count;
    int32_t boundary_edges;       ///< edges with exactly one adjacent triangle
    int32_t non_manifold_edges;   ///< edges with more than two adjacent triangles
    int32_t inconsistent_edges;   ///< two-triangle edges traversed in the same direction by both
    int32_t isolated_vertices;    ///< vertices used by no triangle
    int32_t degenerate_triangles; ///< triangles of zero area (three distinct, collinear vertices)
    int32_t components;           ///< connected components of the triangles (sharing vertices)
    int32_t closed;               ///< 1 when there are triangles and no boundary, non-manifold or
                                  ///< inconsistent edges (a watertight, consistently oriented surface)
    int32_t euler_characteristic; ///< V - E + F over the vertices used by triangles
} osc_mesh_topology;

/// Writes the topology of `mesh` to `out` (all zero for a NULL mesh; nothing for a NULL out).
OSC_API void osc_mesh_get_topology(const osc_mesh* mesh, osc_mesh_topology* out);

// ---------------------------------------------------------------------------------------------
// orientation (docs/mesh.md "Orientation")

/// Orientation and closedness of a mesh, from osc_mesh_get_orientation and the importers' report.
/// A patch is a set of triangles joined across manifold edges (edges with exactly two triangles);
/// orienting makes the two triangles of every such edge run along it in opposite directions, and
/// turns each patch to face outward.
typedef struct osc_mesh_orientation {
    int32_t patches;                ///< patches (a closed surface without non-manifold edges is one)
    int32_t closed_patches;         ///< orientable patches without boundary: each encloses a volume
    int32_t boundary_edges;         ///< edges with one triangle (holes): the mesh is open
    int32_t non_manifold_edges;     ///< edges with three or more triangles
    int32_t inconsistent_edges;     ///< manifold edges that both triangles run along the same way
    int32_t non_orientable_patches; ///< patches no windings make consistent (a Moebius strip)
    int32_t flat_patches;           ///< orientable patches that bound no volume: closed ones whose
                                    ///< volume is zero to rounding (a doubly covered sheet), open
                                    ///< ones too flat for their volume to tell a side (a sheet)
    int32_t inverted_patches;       ///< patches of which orienting reverses most of the area
                                    ///< (inside out as given)
    int32_t triangles_flipped;      ///< triangles whose winding orienting reverses (0: the mesh is
                                    ///< oriented already)
    int32_t sign_reliable;          ///< 1 when inside and outside are well defined once oriented:
                                    ///< every patch closed, orientable and not flat. 0: an open,
                                    ///< flat or non-orientable part makes the sign of a signed
                                    ///< distance (the winding number's side) unreliable near it
    double volume;                  ///< the signed volume once oriented (positive for a solid)
} osc_mesh_orientation;

/// Writes to `out` the orientation of `mesh`: its patches, whether they are closed, and what
/// osc_mesh_orient would change (triangles_flipped). The rules, in docs/mesh.md: within a patch,
/// windings follow its first triangle across manifold edges; a closed patch (or an open one whose
/// volume about its centroid is at least 1% of what its area could enclose) that lies inside no
/// other faces outward; one inside another (a cavity or an embedded solid) keeps the winding of
/// most of its area, turned over with its outermost container when that one was inside out; any
/// other patch keeps the winding of most of its area. OSC_ERR_INVALID_ARGUMENT for a NULL argument,
/// OSC_ERR_NO_MEMORY.
OSC_API osc_status osc_mesh_get_orientation(const osc_mesh* mesh, osc_mesh_orientation* out);

/// Creates a copy of `mesh` with consistent, outward windings (the rules of
/// osc_mesh_get_orientation): same vertices, same triangles in the same order, some with two
/// corners swapped. `report` (nullable) receives the analysis of `mesh`. Orienting an oriented
/// mesh changes nothing. OSC_ERR_INVALID_ARGUMENT for a NULL mesh or out, OSC_ERR_NO_MEMORY.
OSC_API osc_status osc_mesh_orient(const osc_mesh* mesh, osc_mesh** out, osc_mesh_orientation* report);

// ---------------------------------------------------------------------------------------------
// import

/// File formats understood by the importers.
typedef enum osc_mesh_format {
    OSC_MESH_FORMAT_AUTO = 0, ///< from the file extension, else from the content
    OSC_MESH_FORMAT_OBJ = 1,  ///< Wavefront OBJ (v and f; polygons are fan-triangulated)
    OSC_MESH_FORMAT_STL = 2,  ///< STL, ASCII or binary (told apart by content)
    OSC_MESH_FORMAT_OFF = 3,  ///< OFF (polygons are fan-triangulated)
    OSC_MESH_FORMAT_PLY = 4   ///< PLY, ASCII, binary little-endian or big-endian
} osc_mesh_format;

/// What an importer does with a face that repeats a vertex (after welding).
typedef enum osc_mesh_degenerate_policy {
    OSC_MESH_DEGENERATE_REJECT = 0, ///< OSC_ERR_PARSE naming the face (the default)
    OSC_MESH_DEGENERATE_DROP = 1    ///< drop it and count it in osc_mesh_load_report
} osc_mesh_degenerate_policy;

/// Settings of the importers; get them from osc_mesh_load_settings_default().
typedef struct osc_mesh_load_settings {
    osc_mesh_format format;                ///< OSC_MESH_FORMAT_AUTO by default
    double weld_tolerance;                 ///< vertices closer than this (max-norm) are merged; 0 (the
                                           ///< default) merges exact duplicates only; < 0 disables
    osc_mesh_degenerate_policy degenerate; ///< faces repeating a vertex (default: reject)
    int32_t keep_unreferenced;             ///< 1 keeps vertices used by no face (default 0: removed)
    double max_coordinate;                 ///< |coordinate| above this is a parse error (default 1e12,
                                           ///< at most OSC_MESH_MAX_COORDINATE)
    int32_t orient;                        ///< 1 (the default): orient the triangles (osc_mesh_orient);
                                           ///< 0: keep the windings as read
} osc_mesh_load_settings;

/// Returns the default import settings.
OSC_API osc_mesh_load_settings osc_mesh_load_settings_default(void);

/// What an import did, from osc_mesh_load_report.
typedef struct osc_mesh_load_report {
    osc_mesh_format format;            ///< the format actually parsed
    int32_t binary;                    ///< 1 for binary STL or PLY
    int64_t vertices_read, faces_read; ///< as found in the input (faces before triangulation)
    int32_t vertices_welded;           ///< vertices merged into another by welding
    int32_t vertices_unreferenced;     ///< vertices removed because no face used them
    int32_t faces_dropped;             ///< degenerate faces dropped (DROP policy)
    int32_t polygons_triangulated;     ///< faces with more than three vertices
    osc_mesh_orientation orientation;  ///< the mesh as read (after welding and dropping): its
                                       ///< closedness, and the triangles orienting reversed (with
                                       ///< settings.orient) or would reverse (without)
} osc_mesh_load_report;

/// Loads a mesh from the regular file at `path` with `settings` (NULL: defaults); `report` (nullable)
/// receives what the import did, the orientation analysis included (the triangles are oriented
/// outward unless settings->orient is 0). OSC_ERR_IO when the file cannot be read; OSC_ERR_PARSE, with
/// the line or byte offset, for any malformed content (a device such as /dev/zero, a pipe or a
/// directory is OSC_ERR_IO: not a regular file): a truncated file, counts that lie, indices
/// out of range, NaN, infinite or huge coordinates, faces with fewer than three vertices or that
/// repeat a vertex (unless dropped), unknown or unsupported format features.
OSC_API osc_status osc_mesh_load(const char* path, const osc_mesh_load_settings* settings, osc_mesh** out,
                                 osc_mesh_load_report* report);

/// Loads a mesh from `size` bytes at `data` in `settings->format` (AUTO: detected from the content;
/// NULL settings: defaults, AUTO). Same errors as osc_mesh_load, never reading past `size`.
OSC_API osc_status osc_mesh_load_memory(const void* data, size_t size, const osc_mesh_load_settings* settings,
                                        osc_mesh** out, osc_mesh_load_report* report);

// ---------------------------------------------------------------------------------------------
// BVH: closest points, winding numbers, signed distances

/// A bounding volume hierarchy over the triangles of a mesh, holding its own copy of the geometry.
typedef struct osc_mesh_bvh osc_mesh_bvh;

/// Creates the BVH of `mesh` (which may be destroyed afterwards). OSC_ERR_INVALID_ARGUMENT for a
/// mesh without triangles.
OSC_API osc_status osc_mesh_bvh_create(const osc_mesh* mesh, osc_mesh_bvh** out);

/// Releases a BVH (NULL is fine).
OSC_API void osc_mesh_bvh_destroy(osc_mesh_bvh* bvh);

/// The kind of mesh feature a closest point lies on.
typedef enum osc_mesh_feature {
    OSC_MESH_FEATURE_FACE = 0,  ///< the interior of a triangle
    OSC_MESH_FEATURE_EDGE = 1,  ///< the interior of an edge
    OSC_MESH_FEATURE_VERTEX = 2 ///< a vertex
} osc_mesh_feature;

/// The closest point of a mesh to a query point.
typedef struct osc_mesh_closest {
    osc_vec3 point;           ///< the closest point on the surface
    double distance;          ///< |query - point|
    int32_t triangle;         ///< a triangle containing the point
    osc_mesh_feature feature; ///< face, edge or vertex
    int32_t feature_index;    ///< face: the triangle; edge: the unique edge index
                              ///< (osc_mesh_edges); vertex: the vertex index
    double barycentric[3];    ///< of `point` in `triangle`
} osc_mesh_closest;

/// Finds the exact closest point of the mesh to `point`, writes it to `out` (nullable) and returns
/// its distance. Ties are broken toward the lowest triangle index. NaN (triangle -1) for a NULL bvh
/// or a point that is not finite.
OSC_API double osc_mesh_bvh_closest(const osc_mesh_bvh* bvh, osc_vec3 point, osc_mesh_closest* out);

/// Returns the generalised winding number of the mesh at `point` (1 inside and 0 outside a closed,
/// outward-oriented mesh, -1 inside an inverted one: osc_mesh_orient; fractional near holes), evaluated hierarchically: clusters farther than
/// `beta` times their radius use a dipole expansion (beta <= 0: 2, the default; larger is more
/// accurate, slower: on real meshes the largest error measured is about 0.3, 0.07 and 0.017 for
/// beta = 1, 2, 4, see docs/bvh.md).
OSC_API double osc_mesh_bvh_winding_number(const osc_mesh_bvh* bvh, osc_vec3 point, double beta);

/// Returns the signed distance at `point`: the distance to the closest point, negative where the
/// winding number exceeds 1/2. `closest` (nullable) receives the closest point.
OSC_API double osc_mesh_bvh_signed_distance(const osc_mesh_bvh* bvh, osc_vec3 point, osc_mesh_closest* closest);

/// Signed distances at `count` points [count][3] into `distances` [count], and the closest points
/// into `closest_points` [count][3] (nullable), over `threads` threads (0: default); each result
/// equals osc_mesh_bvh_signed_distance's bit for bit.
OSC_API osc_status osc_mesh_bvh_signed_distance_batch(const osc_mesh_bvh* bvh, const double* points, size_t count,
                                                      double* distances, double* closest_points, int threads);

/// Writes the axis-aligned bounds of the mesh to `lo` and `hi` (each nullable; an empty box, lo =
/// +inf and hi = -inf, for a NULL bvh).
OSC_API void osc_mesh_bvh_bounds(const osc_mesh_bvh* bvh, osc_vec3* lo, osc_vec3* hi);

// ---------------------------------------------------------------------------------------------
// simplification (quadric edge collapse with topology and quality guards)

/// Settings of osc_mesh_simplify; get them from osc_mesh_simplify_settings_default().
typedef struct osc_mesh_simplify_settings {
    int32_t target_triangles; ///< stop once the mesh has at most this many triangles (default 1000)
    double max_error;         ///< no collapse whose quadric error, as a root-mean-square distance to
                              ///< the planes of the input triangles it replaces, exceeds this
                              ///< (absolute; default INFINITY: only the target stops it)
    double min_angle;         ///< no collapse that creates a triangle with an angle below this
                              ///< (degrees, default 10) unless the triangles it replaces were worse
    double weld_tolerance;    ///< vertices of the input closer than this are merged first (absolute,
                              ///< default 0: exact duplicates only)
} osc_mesh_simplify_settings;

/// Returns the default simplification settings.
OSC_API osc_mesh_simplify_settings osc_mesh_simplify_settings_default(void);

/// Creates a simplified copy of `mesh` by quadric edge collapse (Garland-Heckbert) to at most
/// `target_triangles` (or until no allowed collapse remains). Every collapse keeps the surface a
/// 2-manifold with the same topology (link condition): a closed mesh stays closed with the same
/// Euler characteristic, boundaries stay boundaries; none flips a triangle. `achieved_error`
/// (nullable) receives the largest quadric error (as a distance) of the collapses performed.
OSC_API osc_status osc_mesh_simplify(const osc_mesh* mesh, const osc_mesh_simplify_settings* settings, osc_mesh** out,
                                     double* achieved_error);

// ---------------------------------------------------------------------------------------------
// reordering along space-filling curves (Beker et al. 2026 §IV-C.3)

/// Space-filling curves for osc_mesh_reorder and osc_curve_order.
typedef enum osc_curve {
    OSC_CURVE_MORTON = 0, ///< Z-order (bit interleaving)
    OSC_CURVE_HILBERT = 1 ///< 3D Hilbert curve (no jumps between consecutive cells)
} osc_curve;

/// Writes to `order` [count] the permutation that sorts `points` [count][3] along `curve` on a
/// 2^21 grid over their bounding box: order[new] = old. Ties keep their input order.
OSC_API osc_status osc_curve_order(const double* points, int32_t count, osc_curve curve, int32_t* order);

/// Creates a copy of `mesh` whose vertices are sorted along `curve` and whose unique edges are
/// sorted along it by their midpoints (triangles keep their order, re-indexed). `vertex_order`
/// [vertex_count] and `edge_order` [edge_count] (nullable) receive new -> old maps.
OSC_API osc_status osc_mesh_reorder(const osc_mesh* mesh, osc_curve curve, osc_mesh** out, int32_t* vertex_order,
                                    int32_t* edge_order);

// ---------------------------------------------------------------------------------------------
// convex groups (Beker et al. 2026 §IV-D.1)

/// Assigns each vertex of `mesh` to one of `hull_count` convex hulls (`hulls`, each a closed convex
/// mesh, e.g. one part of a CoACD decomposition): the hull that contains it, or, when none does,
/// the hull it is nearest to outside (smallest max over the hull's face planes of the signed plane
/// distance). Every vertex goes to the hull with the smallest such max (so, where hulls overlap,
/// the one it is deepest inside), ties to the lower index. Each hull triangle gives a plane,
/// oriented away from the hull's vertex centroid whatever its winding; degenerate triangles are
/// skipped. Writes group ids 0..hull_count-1 to `vertex_groups` [vertex_count].
/// OSC_ERR_INVALID_ARGUMENT for a NULL argument, hull_count < 1 or a hull with no triangles (or
/// none that is not degenerate).
OSC_API osc_status osc_mesh_groups_from_hulls(const osc_mesh* mesh, const osc_mesh* const* hulls, int32_t hull_count,
                                              int32_t* vertex_groups);

/// The built-in fallback that needs no decomposition tool: splits the vertices into at most
/// `group_count` compact groups by k-means on their positions (deterministic: farthest-point
/// seeding from the vertex nearest the centroid, Lloyd iterations until no vertex changes group,
/// at most 100, ties to the lower index), numbered 0.. in order of first vertex; empty clusters
/// are dropped so ids are contiguous. Writes the ids to `vertex_groups` [vertex_count] and returns
/// the number of groups in `out_count` (nullable). group_count >= 1; more groups than vertices
/// gives one vertex each. OSC_ERR_INVALID_ARGUMENT for a NULL mesh or vertex_groups or
/// group_count < 1.
OSC_API osc_status osc_mesh_groups_cluster(const osc_mesh* mesh, int32_t group_count, int32_t* vertex_groups,
                                           int32_t* out_count);

/// Writes the groups of each unique edge (osc_mesh_edges order) to `edge_groups` [edge_count][2]:
/// the groups of its two corners, edge_groups[e][k] the group of edges[e][k], the second -1 when
/// they agree (an edge crossing two groups belongs to both, the paper's §IV-D.1). Vertex ids
/// (`vertex_groups` [vertex_count]) must be >= 0. OSC_ERR_INVALID_ARGUMENT for a NULL argument or
/// a negative vertex id, naming the vertex; nothing is written then.
OSC_API osc_status osc_mesh_edge_groups(const osc_mesh* mesh, const int32_t* vertex_groups, int32_t* edge_groups);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_MESH_H
