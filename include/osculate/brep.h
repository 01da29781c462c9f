// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep.h: exact CAD solids in boundary representation (Crozet 2017, a PhD thesis, chapters 1-3):
// faces on canonical surfaces with trimming loops, edges, vertices, and the offline structure the
// local-minimal-distance query of lmd.h traverses.
//
// SUMMARY
// - A solid is described by plain arrays (osc_brep_desc): canonical surfaces (plane, cylinder,
//   cone, sphere, torus) each with its frame, sizes and `sense` (+1 when the outward normal of the
//   solid is the surface's natural normal); faces (a surface and its trimming loops in the
//   surface's (u, v) parameters, made of exact line segments and circular arcs); edges (a line
//   segment or a circular arc in 3D, knowing its two faces and its end vertices); vertices.
// - osc_brep_create checks the description, classifies faces as convex or concave (thesis §1.4.3)
//   and edges as convex, concave or smooth (eq. 1.27), and builds the BVH of thesis chapters 2-3:
//   faces and edges are split into quasi-flat pieces (normal cone within `alpha_max`, Algorithm 3;
//   pieces lying wholly outside a face's trimming loops are dropped), every piece and every vertex
//   becomes a leaf with an OBB, a normal cone of revolution, a polyhedral normal cone of at most
//   four generators (meridian / latitude rules of §3.3) and the curvature masks of Tables 2.1-2.2;
//   leaves are split top-down at the median along the principal axis of their centres (§2.4.4).
//   Concave and smooth (G1) edges carry no local minimal distance (§1.3.1.3) and get no leaf.
// - Builders for the canonical solids (box, cylinder, cone, sphere, a solid of revolution from a
//   profile, a block with a revolved hole) so tests need no files; a reader for the analytic
//   subset of STEP (AP203/AP214 MANIFOLD_SOLID_BREP with planes, cylinders, cones, spheres, tori,
//   lines and circles) that reads every solid where the file's assembly structure places it, one
//   shell per placed solid (osc_brep_get_shell; osc_brep_create_from_shell takes one apart).
//
// PARAMETRISATIONS (those of STEP and OpenCASCADE; frame origin o, unit axis z, unit reference
// direction x perpendicular to z, y = z x x; e(u) = cos u x + sin u y)
//   plane     S(u, v) = o + u x + v y                                natural normal z
//   cylinder  S(u, v) = o + R e(u) + v z                             natural normal e(u)
//   cone      S(u, v) = o + (R + v sin a) e(u) + v cos a z           natural normal cos a e(u) - sin a z
//             (R the radius at v = 0, a the half-angle in (0, pi/2))
//   sphere    S(u, v) = o + R cos v e(u) + R sin v z                 natural normal radial
//   torus     S(u, v) = o + (R + r cos v) e(u) + r sin v z           natural normal from the tube's centre
//   line      C(t) = o + t z                                         (t is arc length)
//   circle    C(t) = o + R e(t)
// A face's solid domain is the set of parameters inside its loops by the even-odd rule (thesis
// Fig. 1.32), so the orientation of the loops does not matter; periodic parameters are wrapped into
// the face's parameter box before the test.
//
// FREE-FORM GEOMETRY
// B-spline and NURBS surfaces and curves of any degree up to OSC_BREP_MAX_DEGREE (osc_brep_nurbs,
// OSC_SURFACE_NURBS, OSC_CURVE_NURBS) are faces and edges like the canonical ones: their leaves are
// the Bezier pieces between knots, halved until the control vectors of the scaled normal surface
// (faces) or of the hodograph (edges) lie within alpha_max (Crozet 2017 §3.3.3, §3.5); the OBBs hold
// the pieces' control points. The STEP reader turns surfaces of revolution and of linear extrusion,
// ellipses, parabolas and hyperbolas into them.
//
// LIMITS
// Supermaximal features (§2.3) are not grouped; see docs/lmd.md. The normal cones of edges along a
// free-form face, and of free-form edges, are not bounded (no culling by cones there). Trims are
// polylines within 1e-5 of an edge's extent where the edge is not iso-parametric. The STEP reader
// refuses (or, asked to, skips and counts) solids placed by a reflection, offsets of B-spline
// surfaces and curves it cannot evaluate; it does not read surface models or open shells. Solids
// with voids, and faces and edges across the seams of closed B-splines, are read (docs/brep.md).

#ifndef OSCULATE_BREP_H
#define OSCULATE_BREP_H

#include <stddef.h>

#include "osculate/base.h"
#include "osculate/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Every coordinate, size and parameter of a description, and every size given to a builder, lies
/// within [-OSC_BREP_MAX_LENGTH, OSC_BREP_MAX_LENGTH] (the queries square and multiply them);
/// builders' sizes are at least OSC_BREP_MIN_SIZE. Outside: OSC_ERR_INVALID_ARGUMENT naming the value.
#define OSC_BREP_MAX_LENGTH 1e12
#define OSC_BREP_MIN_SIZE 1e-12

/// Canonical surface types.
typedef enum osc_surface_type {
    OSC_SURFACE_PLANE = 0,
    OSC_SURFACE_CYLINDER = 1,
    OSC_SURFACE_CONE = 2,
    OSC_SURFACE_SPHERE = 3,
    OSC_SURFACE_TORUS = 4,
    OSC_SURFACE_NURBS = 5 ///< a B-spline or NURBS surface: `nurbs` indexes the description's `nurbs`
} osc_surface_type;

/// The largest degree of a B-spline or NURBS curve or surface.
#define OSC_BREP_MAX_DEGREE 25

/// A B-spline curve or surface, rational (NURBS) when it has weights (Piegl and Tiller's
/// definitions): S(u, v) = sum N_i,p(u) N_j,q(v) w_ij P_ij / sum N_i,p(u) N_j,q(v) w_ij. Curves use
/// index 0 only (degree[1] = 0, count[1] = 1). The parameters run over [knots[p], knots[count]] in
/// each direction (clamped or not); the knots are non-decreasing, an interior knot repeats at most
/// `degree` times.
typedef struct osc_brep_nurbs {
    int degree[2];    ///< p, q in [1, OSC_BREP_MAX_DEGREE] (curves: degree[1] = 0)
    int count[2];     ///< control points along u and v, at least degree + 1 (curves: count[1] = 1)
    int knot_begin;   ///< the description's `reals` from here: count[0] + degree[0] + 1 knots in u,
                      ///< then (surfaces) count[1] + degree[1] + 1 knots in v
    int point_begin;  ///< the description's `control_points` from here: count[0] x count[1] points,
                      ///< point (i, j) at point_begin + i count[1] + j
    int weight_begin; ///< the description's `reals` from here: the points' weights (> 0) in the same
                      ///< order, or -1: all 1 (a polynomial B-spline)
} osc_brep_nurbs;

/// A canonical surface with its frame (see PARAMETRISATIONS above).
typedef struct osc_brep_surface {
    osc_surface_type type;
    osc_vec3 origin; ///< o
    osc_vec3 axis;   ///< z, unit
    osc_vec3 ref;    ///< x, unit and perpendicular to z
    double radius;   ///< R: cylinder and sphere radius, cone radius at v = 0, torus major radius
    double radius2;  ///< r: torus minor radius (r > 0, r != R; r > R is a spindle torus, whose
                     ///< faces must each keep to one sign of R + r cos v); unused otherwise
    double angle;    ///< a: cone half-angle in (0, pi/2); unused otherwise
    int sense;       ///< +1: the solid's outward normal is the natural normal; -1: its opposite
                     ///< (NURBS: the natural normal is S_u x S_v normalised)
    int nurbs;       ///< OSC_SURFACE_NURBS: its entry in the description's `nurbs` (the frame and
                     ///< sizes above are unused); unused otherwise
} osc_brep_surface;

/// Kinds of trimming curve pieces in a face's parameter plane.
typedef enum osc_trim_kind {
    OSC_TRIM_LINE = 0, ///< the segment from `start` to `end`
    OSC_TRIM_ARC = 1   ///< centre `center`, radius `radius`, from angle `angle0` sweeping `sweep` (signed)
} osc_trim_kind;

/// One piece of a trimming loop, in (u, v).
typedef struct osc_brep_trim {
    osc_trim_kind kind;
    double start[2], end[2]; ///< line: the end points
    double center[2];        ///< arc
    double radius, angle0, sweep;
} osc_brep_trim;

/// A trimming loop: `trim_count` consecutive pieces of the description's `trims` from `trim_begin`.
typedef struct osc_brep_loop {
    int trim_begin, trim_count;
} osc_brep_loop;

/// A face: a surface restricted to the inside of its loops (`loop_count` consecutive loops of the
/// description's `loops` from `loop_begin`; no loop: the whole parameter box) and to the parameter
/// box [umin, umax] x [vmin, vmax], which must contain the loops and, for periodic parameters,
/// span at most one period.
typedef struct osc_brep_face {
    int surface;
    int loop_begin, loop_count;
    double umin, umax, vmin, vmax;
} osc_brep_face;

/// Edge curve kinds.
typedef enum osc_curve_type {
    OSC_CURVE_LINE = 0,
    OSC_CURVE_CIRCLE = 1,
    OSC_CURVE_NURBS = 2 ///< a B-spline or NURBS curve (conics other than circles are rational quadratics)
} osc_curve_type;

/// An edge: a line segment or circular arc C(t), t in [t0, t1], between two faces. `vertex` are the
/// end vertices (-1 for a closed circle, t1 - t0 = 2 pi). A seam of a periodic face (the same face
/// on both sides) is allowed and carries no contact.
typedef struct osc_brep_edge {
    osc_curve_type type;
    osc_vec3 origin; ///< line: a point; circle: the centre
    osc_vec3 axis;   ///< line: unit direction; circle: unit normal of its plane
    osc_vec3 ref;    ///< circle: unit direction of t = 0, perpendicular to axis
    double radius;   ///< circle radius
    double t0, t1;   ///< parameter range, t0 < t1 (NURBS: inside the knot range)
    int face[2];     ///< the two faces meeting at the edge
    int vertex[2];   ///< the vertices at t0 and t1, or -1
    int nurbs;       ///< OSC_CURVE_NURBS: its entry in the description's `nurbs` (origin, axis, ref
                     ///< and radius unused); unused otherwise
} osc_brep_edge;

/// A solid as plain arrays; indices are 0-based into the arrays named.
typedef struct osc_brep_desc {
    const osc_brep_surface* surfaces;
    int surface_count;
    const osc_brep_face* faces;
    int face_count;
    const osc_brep_loop* loops;
    int loop_count;
    const osc_brep_trim* trims;
    int trim_count;
    const osc_brep_edge* edges;
    int edge_count;
    const osc_vec3* vertices;
    int vertex_count;
    const osc_brep_nurbs* nurbs; ///< the B-spline curves and surfaces of OSC_SURFACE_NURBS surfaces and
    int nurbs_count;             ///< OSC_CURVE_NURBS edges
    const osc_vec3* control_points;
    int control_point_count;
    const double* reals; ///< their knots and weights
    int real_count;
} osc_brep_desc;

/// Settings of the offline structure; take them from osc_brep_settings_default().
typedef struct osc_brep_settings {
    double alpha_max;   ///< quasi-flat angle: a leaf's normals lie within this apex angle
                        ///< (radians, (0, pi/2]), 0.5
    double plane_cell;  ///< a planar face is split into cells at most this fraction of its
                        ///< parameter box's longer side (§2.4.1, the special case of planes), 0.25
    int max_leaf_count; ///< refuse models that would need more leaves (OSC_ERR_CAPACITY), 1000000;
                        ///< at most OSC_BREP_MAX_LEAVES
} osc_brep_settings;

/// The largest settings.max_leaf_count (the BVH counts its nodes, twice the leaves, in an int).
#define OSC_BREP_MAX_LEAVES 100000000

/// Returns the default settings.
OSC_API osc_brep_settings osc_brep_settings_default(void);

/// An immutable B-Rep solid with its BVH; thread-safe to query.
typedef struct osc_brep osc_brep;

/// Builds a solid from `desc` (copied). `settings` NULL: the defaults. OSC_ERR_INVALID_ARGUMENT
/// naming a NULL `desc` or `out`, a setting out of its range, or the first bad entity (non-finite,
/// non-unit or too large frames, non-positive or too large sizes, an index out of range, an empty
/// face or loop, an edge with t0 >= t1); OSC_ERR_CAPACITY for more than INT_MAX / 6 edges or INT_MAX
/// / 4 trims, or more leaves than settings.max_leaf_count; OSC_ERR_NO_MEMORY.
OSC_API osc_status osc_brep_create(const osc_brep_desc* desc, const osc_brep_settings* settings, osc_brep** out);

/// Releases a solid (NULL: nothing happens).
OSC_API void osc_brep_destroy(osc_brep* brep);

/// Counts of a solid's entities and of its BVH.
typedef struct osc_brep_info {
    int face_count, edge_count, vertex_count;
    int convex_edge_count, concave_edge_count, smooth_edge_count;
    int leaf_count, node_count;
    osc_vec3 lo, hi; ///< body-frame bounding box: the union of the BVH leaves' boxes, which contains
                     ///< the solid and exceeds it by about 1 % of its diagonal (0.8 % on the
                     ///< test peg, 0.9 % on a cone reaching its apex)
} osc_brep_info;

/// Fills `info`. OSC_ERR_INVALID_ARGUMENT naming a NULL `brep` or `info`.
OSC_API osc_status osc_brep_get_info(const osc_brep* brep, osc_brep_info* info);

/// Read-only access to the solid's copied description (valid while `brep` lives); NULL for a NULL
/// `brep`.
OSC_API const osc_brep_desc* osc_brep_description(const osc_brep* brep);

/// The closest point on `face`'s untrimmed surface to the body-frame point `x` (the footpoint of
/// an orthogonal projection, closed form on canonical surfaces): writes the parameters `uv` [2]
/// and returns 1 when the projection is unique, 0 at a degenerate point (on a cylinder's axis, a
/// sphere's centre). Also used by importers to express edges in a face's parameters. Returns 0 and
/// writes nothing for a NULL `surface` or `uv`, a surface type out of range, or a non-finite `x`.
OSC_API int osc_brep_project(const osc_brep_surface* surface, osc_vec3 x, double uv[2]);

/// Evaluates the surface point at (u, v) and, when `normal` is non-NULL, the solid's outward unit
/// normal there (the natural normal times `sense`). A NULL `surface`, a type out of range or a
/// non-finite (u, v) gives NaN (point and normal) with a message naming it in osc_last_error().
OSC_API osc_vec3 osc_brep_surface_point(const osc_brep_surface* surface, double u, double v, osc_vec3* normal);

/// Returns the point of face `face` of `brep` at (u, v), of any surface kind (B-splines included),
/// and writes the solid's outward unit normal there to `normal` when it is non-NULL. A NULL `brep`,
/// a face out of range or non-finite parameters give NaN with a message in osc_last_error().
OSC_API osc_vec3 osc_brep_face_point(const osc_brep* brep, int face, double u, double v, osc_vec3* normal);

/// Returns the point of edge `edge` of `brep` at parameter t (NaN for a NULL `brep`, an edge out of
/// range or a non-finite t, with a message in osc_last_error()).
OSC_API osc_vec3 osc_brep_edge_point(const osc_brep* brep, int edge, double t);

/// Returns 1 when the parameters (u, v) lie in the solid domain of `face` of `brep` (inside its
/// parameter box and its loops by the even-odd rule), 0 otherwise (also for a NULL `brep`, a face
/// out of range or non-finite parameters).
OSC_API int osc_brep_face_contains(const osc_brep* brep, int face, double u, double v);

// ---- builders (each solid centred on its body frame, axis of revolution along +z) ----
// Each refuses a NULL `out` and sizes outside [OSC_BREP_MIN_SIZE, OSC_BREP_MAX_LENGTH] (NaN, zero,
// negative, 1e308) with OSC_ERR_INVALID_ARGUMENT naming the argument and its value, and sets *out
// to NULL on every failure.

/// A box with half extents `half` (all > 0): 6 planes, 12 line edges, 8 vertices.
OSC_API osc_status osc_brep_create_box(osc_vec3 half, const osc_brep_settings* settings, osc_brep** out);

/// A solid of revolution about z from a profile of `count` >= 2 points (r_i, z_i) [count][2],
/// r_i >= 0, z strictly increasing along the profile is not required but consecutive points must
/// differ; the profile starts and ends on the axis (r = 0) or is closed by discs: each segment
/// becomes a plane disc or annulus (z constant), a cylinder (r constant) or a cone. Consecutive
/// segments meet at circular edges. A cylinder is the profile (0,-h) (R,-h) (R,h) (0,h); a peg
/// with a conical tip adds a point.
OSC_API osc_status osc_brep_create_revolved(const double* profile, int count, const osc_brep_settings* settings,
                                            osc_brep** out);

/// A cylinder of radius `radius` and height 2 `half_length` (a revolved profile).
OSC_API osc_status osc_brep_create_cylinder(double radius, double half_length, const osc_brep_settings* settings,
                                            osc_brep** out);

/// A cone frustum from radius `r_bottom` at z = -h to `r_top` at z = +h (both > 0: a cone apex is not
/// supported as a feature, truncate it).
OSC_API osc_status osc_brep_create_cone(double r_bottom, double r_top, double half_length,
                                        const osc_brep_settings* settings, osc_brep** out);

/// A sphere of radius `radius` (one face, no edges).
OSC_API osc_status osc_brep_create_sphere(double radius, const osc_brep_settings* settings, osc_brep** out);

/// A box of half extents `half` with a blind hole of revolution opening in its top face (z =
/// half.z): the hole's wall follows `profile` [count][2] of (r, z) points from the top (r_0 > 0,
/// z_0 = half.z) down to its bottom, which ends on the axis (r = 0) or is closed by a disc; the
/// hole's faces are concave. Radii must stay inside the box's x-y extent.
OSC_API osc_status osc_brep_create_block_with_hole(osc_vec3 half, const double* profile, int count,
                                                   const osc_brep_settings* settings, osc_brep** out);

// ---- shells ----

/// One shell of a solid model: a closed set of faces with their edges and vertices, consecutive in
/// the description. A model built from a description or by a builder has one shell holding all of
/// it; a STEP import has one per placed solid, in the order of the file's assembly structure, and
/// its `placement` says where that solid stands in the model.
typedef struct osc_brep_shell {
    int face_begin, face_count;     ///< its faces
    int edge_begin, edge_count;     ///< its edges
    int vertex_begin, vertex_count; ///< its vertices
    osc_pose placement;             ///< STEP: the solid's own frame in the model's (its geometry in the model is
                                    ///< the file's, scaled by `scale`, then moved by this); identity otherwise
    double scale;                   ///< STEP: the factor from the solid's length unit to the model's (1 when they
                                    ///< agree); 1 otherwise
    long long solid_id;             ///< STEP: the entity id of its MANIFOLD_SOLID_BREP (#id); 0 otherwise
    int depth;                      ///< STEP: the placements between the file's top representation and the solid
                                    ///< (0: not in an assembly); 0 otherwise
    char name[64];                  ///< STEP: the name of the PRODUCT holding the solid, else the solid's own name
                                    ///< (truncated, '' decoded); "" otherwise
} osc_brep_shell;

/// Returns the number of shells of `brep` (0 when `brep` is NULL).
OSC_API int osc_brep_shell_count(const osc_brep* brep);

/// Fills `shell` with shell `index` of `brep`. OSC_ERR_INVALID_ARGUMENT naming a NULL argument or an
/// index outside [0, osc_brep_shell_count).
OSC_API osc_status osc_brep_get_shell(const osc_brep* brep, int index, osc_brep_shell* shell);

/// Builds a new solid from shell `index` of `brep` alone (its faces, edges and vertices, in the
/// model's frame), so that the parts of an assembly can be moved and queried apart. `settings` NULL:
/// the defaults. OSC_ERR_INVALID_ARGUMENT naming a NULL argument or a bad index, and what
/// osc_brep_create returns.
OSC_API osc_status osc_brep_create_from_shell(const osc_brep* brep, int index, const osc_brep_settings* settings,
                                              osc_brep** out);

/// Returns the number of faces the STEP importer left out of `brep` (skip_unsupported; 0 for a
/// NULL model or one built otherwise). osc_lmd_query counts those its search region reaches
/// (osc_lmd_output.skipped_faces).
OSC_API int osc_brep_skipped_face_count(const osc_brep* brep);

/// Returns OSC_OK with the bounding box of left-out face `index`'s vertices in the model's frame
/// (`lo`, `hi`) and its shell (`shell`, nullable); OSC_ERR_INVALID_ARGUMENT naming a NULL argument
/// or an index outside [0, osc_brep_skipped_face_count).
OSC_API osc_status osc_brep_get_skipped_face(const osc_brep* brep, int index, osc_vec3* lo, osc_vec3* hi, int* shell);

// ---- STEP import (src/brep_step.c) ----

/// What an import read. An instance is a solid placed in the model: a solid used twice by the
/// file's assembly structure is two instances.
typedef struct osc_brep_import_report {
    int solids;            ///< MANIFOLD_SOLID_BREP and BREP_WITH_VOIDS entities in the file
    int faces_read;        ///< ADVANCED_FACEs of the imported instances (per instance)
    int faces_imported;    ///< faces on supported surfaces (the model's faces)
    int faces_unsupported; ///< faces skipped (only with skip_unsupported)
    int edges_imported, edges_unsupported;
    char first_unsupported[96]; ///< "#123 B_SPLINE_SURFACE_WITH_KNOTS" or ""
    double length_unit;         ///< metres per length unit of the model (0.001 for millimetres), 0
                                ///< when the file does not say; lengths are kept in the unit of the
                                ///< file's (first) top representation
    int instances;              ///< placed solids found
    int instances_imported;     ///< shells of the model (osc_brep_shell_count)
    int instances_skipped;      ///< placed solids left out (only with skip_unsupported): mirrored
                                ///< placements, solids whose every face is unsupported
    char first_skipped[96];     ///< the first of them, "#33 MANIFOLD_SOLID_BREP: every face of the solid
                                ///< is unsupported", or ""
} osc_brep_import_report;

/// Reads every solid of a STEP (ISO 10303-21) buffer, placed where the file's assembly structure
/// puts it, into one model with a shell per placed solid (osc_brep_get_shell), with the analytic
/// subset described above. Lengths are in the unit of the file's top representation. A face or
/// edge on an unsupported geometry, or a solid that cannot be placed (a mirroring placement),
/// fails the import with OSC_ERR_UNSUPPORTED naming it, unless `skip_unsupported` is non-zero, in
/// which case such faces and solids are dropped and counted in `report` (NULL allowed; the model
/// remembers the dropped faces: osc_brep_skipped_face_count, osc_lmd_output.skipped_faces). Malformed
/// text: OSC_ERR_PARSE with the line; a cyclic assembly: OSC_ERR_PARSE naming a relationship in the
/// cycle; more than 100000 placed solids: OSC_ERR_CAPACITY. `text` may be NULL when `size` is 0.
OSC_API osc_status osc_brep_read_step(const char* text, size_t size, int skip_unsupported,
                                      const osc_brep_settings* settings, osc_brep** out,
                                      osc_brep_import_report* report);

/// osc_brep_read_step on the file at `path` (OSC_ERR_IO when it cannot be read or is not a
/// regular file).
OSC_API osc_status osc_brep_load_step(const char* path, int skip_unsupported, const osc_brep_settings* settings,
                                      osc_brep** out, osc_brep_import_report* report);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_BREP_H
