// lmd_baseline.h: the tessellation baseline of bench_lmd (benchmark-side code, not library code):
// a B-Rep solid meshed to a chordal error, and "local minimal distances" between two posed meshes
// the way a polyhedral method (LMD++, the peer of Crozet 2017 chapter 5) would count them.
//
// TESSELLATION (lmd_baseline_tessellate)
// Each face's parameter box [umin, umax] x [vmin, vmax] is cut into a regular grid:
//   - along a circular direction of radius R (cylinder and cone u, sphere u and v, torus u with
//     R + r and v with r; a cone takes its largest radius over the face) the angular step is
//     2 acos(1 - tol / R), so every chord deviates from the circle by at most tol (the chordal
//     error); at most pi / 4;
//   - B-spline and NURBS faces: the cells along each direction are doubled (from one) until the
//     surface between consecutive grid nodes deviates from the chord by at most tol at the chords'
//     midpoints, checked on 17 lines across the face;
//   - straight directions (plane u and v, cylinder and cone v) need no refinement: one cell, unless
//     the face is trimmed: a plane trimmed by circular arcs gets cells of side sqrt(4 r tol) (r the
//     smallest arc radius; a boundary chord crosses at most a cell's diagonal, whose sagitta is then
//     below tol), and any trimmed face gets at least 8 cells per direction.
// Trimming is respected by marching squares on osc_brep_face_contains: grid nodes are classified
// inside / outside, each cell edge whose ends differ gets its crossing by bisection on the
// containment test (40 halvings, the inside end kept), and each cell contributes the part of it
// that is inside (a square, a convex polygon cut by one boundary chord fanned into triangles, or, in
// the two saddle cases, the two corner triangles). So a circular hole in a plane is meshed to the
// chordal error, not to a staircase. Triangles are oriented by the solid's outward normal at their
// parameter centroid. Faces are meshed independently; vertices that coincide (within 1e-9 of the
// model's size: seams of periodic faces, circles shared by adjacent faces meshed with the same
// step) are welded, triangles that then repeat a vertex (at a cone's apex) are dropped. Where two
// faces use different steps along a shared edge the mesh has T-junctions there; the distance
// queries do not mind.
//
// CONTACTS (lmd_baseline_contacts), the exact definition
// A polyhedral local minimal distance of the vertex-feature kind, with the validation of Crozet 2017
// §4.4 transposed to meshes. For each vertex a of mesh A: d(a) is its exact (unsigned) distance to
// mesh B and b its closest point on B's triangles (osc_mesh_bvh_closest in B's body frame; vertices
// outside B's bounding box grown by d_max count as d = +inf without a query). b is the closest point
// of B to a, so the pair (a, b) is a local minimum of |x - y| over A x B when moving a along A does
// not bring it closer to b to first order: the unit direction u = (b - a) / d lies in the polar of
// A's tangent cone at a, i.e. u . (n - a) <= 0 along every edge from a to a 1-ring neighbour n (the
// tangent cone is the union of the incident triangles' sectors, and a linear function on a sector
// peaks on its bounding edges, so the edges suffice). Dilated by the quasi-LMD angle alpha as the
// B-Rep query is (§1.3.1.4): a is a contact when
//   0 < d(a) <= d_max  and  u . (n - a) <= sin(alpha) |n - a|  for every 1-ring neighbour n.
// So every convex vertex facing the other solid within d_max is a contact (a polygonal ring of a peg
// in a polygonal hole gives one contact per vertex), concave vertices give none. Symmetrically for
// the vertices of B against A. A vertex-vertex pair found from both sides (a's closest feature is
// vertex b and b's closest feature is vertex a, both contacts) is counted once. Edge-edge pairs are
// not searched: this is the vertex-feature part of what a polyhedral method such as LMD++ reports,
// a lower bound on its count.
// The query allocates nothing (scratch arrays live in the meshes) and runs on one thread.

#ifndef OSC_BENCH_LMD_BASELINE_H
#define OSC_BENCH_LMD_BASELINE_H

#include <stdint.h>

#include "osculate/brep.h"
#include "osculate/mesh.h"

typedef struct lmd_baseline_mesh {
    int32_t vertex_count, triangle_count;
    double* vertices;        // [vertex_count][3], body frame
    int32_t* triangles;      // [triangle_count][3], counter-clockwise seen from outside
    int32_t* ring_begin;     // [vertex_count + 1]: the 1-ring of v is ring[ring_begin[v] ..
    int32_t* ring;           //   ring_begin[v + 1]) (neighbours through mesh edges)
    osc_mesh_bvh* bvh;       // closest points on this mesh, body frame
    osc_vec3 lo, hi;         // body-frame bounds
    double* distance;        // scratch [vertex_count]: d(v) of the last query
    int32_t* closest_vertex; // scratch [vertex_count]: the other mesh's vertex closest to v, or -1
    double* closest_point;   // scratch [vertex_count][3]: v's closest point on the other mesh, v's frame
    int32_t faces_meshed;    // faces of the solid that produced triangles
} lmd_baseline_mesh;

// what one query found
typedef struct lmd_baseline_result {
    int contacts;        // contacts_a + contacts_b - duplicates
    int contacts_a;      // A's vertices that are local minima within d_max
    int contacts_b;      // B's vertices
    int duplicates;      // vertex-vertex pairs found from both sides
    int queried;         // closest-point queries run (vertices inside the grown boxes)
    double min_distance; // the smallest d over both sides (inf when none is within the boxes)
} lmd_baseline_result;

// meshes `brep` with chordal error `chordal_error` (the solid's units); 0 on success, -1 on failure
// (with a message on stderr)
int lmd_baseline_tessellate(const osc_brep* brep, double chordal_error, lmd_baseline_mesh* out);

// releases what lmd_baseline_tessellate allocated
void lmd_baseline_free(lmd_baseline_mesh* mesh);

// the contacts between `a` at `pose_a` and `b` at `pose_b` (world-from-body) below d_max with the
// quasi-LMD angle `alpha` (radians; the definition above); uses the meshes' scratch arrays, so one
// query at a time per mesh
lmd_baseline_result lmd_baseline_contacts(lmd_baseline_mesh* a, osc_pose pose_a, lmd_baseline_mesh* b, osc_pose pose_b,
                                          double d_max, double alpha);

// writes the mesh as a Wavefront OBJ (for looking at it); 0 on success
int lmd_baseline_write_obj(const lmd_baseline_mesh* mesh, const char* path);

#endif // OSC_BENCH_LMD_BASELINE_H
