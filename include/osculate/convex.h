// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// convex.h: the convex primitives of DCOL (Tracy et al. 2023 §III-B): polytope, capsule, cylinder, cone,
// ellipsoid, sphere and padded polygon, each described in its own body frame and placed in the
// world by an osc_pose at query time (dcol.h).
//
// SUMMARY
// - osc_convex: an immutable shape model, built once by one of the osc_convex_create_* functions
//   and queried by any number of threads. It holds the shape's parameters, its conic form (the
//   constraints of Tracy et al. 2023 eqs. (10)-(28), see docs/dcol.md) and what the support
//   function needs (a polytope's vertices).
// - Every shape contains its body origin strictly inside: DCOL scales a shape about its origin,
//   and the scaled-intersection problem is feasible and bounded only when both origins are
//   interior (Tracy et al. 2023 §III-A).
// - osc_convex_support: the support point of a posed shape in a world direction, for GJK-style
//   peers and tests.
//
// BODY FRAMES
// The round kinds share the SDF module's conventions (sdf.h): an axis along body z, sizes as radii
// and half-lengths, an ellipsoid by its semi-axes (turn any of them with the pose).
//   polytope   { y : A y <= b }, b > 0, bounded; at most OSC_CONVEX_MAX_FACES halfspaces
//   box        |y_i| <= half_extents_i (a polytope)
//   capsule    points within `radius` of the segment from (0, 0, -half_length) to (0, 0, half_length)
//   cylinder   |y_z| <= half_length and y_x^2 + y_y^2 <= radius^2
//   cone       base disc of `radius` at y_z = -half_length / 2, apex at (0, 0, 3 half_length / 2):
//              height 2 half_length, the origin at its centroid (below)
//   ellipsoid  (y_x / r_x)^2 + (y_y / r_y)^2 + (y_z / r_z)^2 <= 1 for radii (r_x, r_y, r_z)
//   sphere     |y| <= radius
//   polygon    points within `radius` of the planar polygon { (u, v, 0) : C (u, v) <= d }, d > 0,
//              bounded; at most OSC_CONVEX_MAX_FACES edges
// The cone's origin is its centroid, a quarter of its height above the base, not the middle of
// its axis, because DCOL scales each shape about its origin, so alpha depends on where the origin
// is: the centroid is where Tracy et al. 2023 put it (eqs. (19)-(20)), so alpha is theirs for the
// same cone. osc_sdf_create_cone(radius, 0, half_length) is the same solid with its origin on
// the middle of the axis, half_length / 2 below this one's.
//
// ARGUMENTS
// Every creator returns OSC_ERR_INVALID_ARGUMENT, with a message naming the function and the
// argument, for a NULL pointer argument (`excess` of osc_convex_create_hull_bounded is nullable)
// and sets *out to NULL on failure. osc_convex_destroy(NULL) does nothing; the getters return a
// sentinel for a NULL shape (given with each) and name it in osc_last_error().
//
// NUMERIC ROBUSTNESS
// Creation rejects non-finite numbers, non-positive sizes, a length outside [OSC_CONVEX_MIN_LENGTH,
// OSC_CONVEX_MAX_LENGTH] (1e-100 to 1e100: the sizes given, a halfspace's offset over its normal's
// length, a hull's point coordinates, and the shape's bounding and inner radii), a polytope or
// polygon whose origin is not strictly inside (b <= 0) or that is unbounded, and zero normals.
// Each message names the argument and its value.

#ifndef OSCULATE_CONVEX_H
#define OSCULATE_CONVEX_H

#include "osculate/base.h"
#include "osculate/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The most halfspaces of a polytope or edges of a padded polygon. The DCOL solver keeps every
/// constraint row on the stack.
#define OSC_CONVEX_MAX_FACES 64

/// The range of every length of a shape (a radius, half-length, half extent, a halfspace's
/// offset b / |a|, a vertex's or point's coordinates, an ellipsoid's semi-axis, the bounding and
/// inner radii): creation refuses a shape with one outside, naming it and its
/// value. Within it a pair's size, its squares and the ratio of two shapes' sizes are
/// representable; osc_dcol_proximity bounds those ratios further (dcol.h).
#define OSC_CONVEX_MIN_LENGTH 1e-100
#define OSC_CONVEX_MAX_LENGTH 1e100

/// The kinds of convex primitive (Tracy et al. 2023 §III-B).
typedef enum osc_convex_kind {
    OSC_CONVEX_INVALID = -1, ///< not a kind: what osc_convex_get_kind returns for a NULL shape
    OSC_CONVEX_POLYTOPE = 0,
    OSC_CONVEX_CAPSULE = 1,
    OSC_CONVEX_CYLINDER = 2,
    OSC_CONVEX_CONE = 3,
    OSC_CONVEX_ELLIPSOID = 4,
    OSC_CONVEX_SPHERE = 5,
    OSC_CONVEX_POLYGON = 6
} osc_convex_kind;

/// The number of convex kinds.
#define OSC_CONVEX_KIND_COUNT 7

/// An immutable convex primitive (opaque).
typedef struct osc_convex osc_convex;

/// Creates the polytope { y : A y <= b } from `count` halfspaces: `normals` [count][3] (rows of A,
/// any non-zero length) and `offsets` [count] (b, all > 0 so the origin is strictly inside). The
/// polytope must be bounded. Redundant halfspaces are kept. OSC_ERR_INVALID_ARGUMENT names the
/// first bad row; count must be 4..OSC_CONVEX_MAX_FACES.
OSC_API osc_status osc_convex_create_polytope(const double* normals, const double* offsets, int count,
                                              osc_convex** out);

/// Creates the polytope that is the convex hull of `count` points [count][3] given in the body
/// frame; the origin must lie strictly inside the hull. Needs the library built with qhull
/// (OSC_ERR_UNSUPPORTED otherwise); OSC_ERR_CAPACITY when the hull has more than
/// OSC_CONVEX_MAX_FACES facets (osc_convex_create_hull_bounded makes one of fewer faces that
/// contains it), OSC_ERR_INVALID_ARGUMENT when the points are flat or non-finite.
OSC_API osc_status osc_convex_create_hull(const double* points, int count, osc_convex** out);

/// Creates a polytope of at most `max_faces` faces (6..OSC_CONVEX_MAX_FACES) that contains the
/// convex hull of `count` points [count][3]: the hull itself when it has that few facets;
/// otherwise the box of the points' extents cut by hull facets, one at a time the one whose
/// plane a corner lies farthest beyond (docs/dcol.md §2.1). Every face plane touches the hull.
/// `excess` (nullable) receives the largest distance of a corner beyond a hull facet's plane: 0
/// for the hull itself (to 1e-9 of its size), else how far the result reaches out along the
/// hull's normals (a lower bound on its distance from the hull). The origin
/// must lie strictly inside the hull. Needs qhull like osc_convex_create_hull; the same errors,
/// OSC_ERR_INVALID_ARGUMENT for max_faces out of range.
OSC_API osc_status osc_convex_create_hull_bounded(const double* points, int count, int max_faces, double* excess,
                                                  osc_convex** out);

/// Creates the box |y_i| <= half_extents[i] as a six-face polytope.
OSC_API osc_status osc_convex_create_box(osc_vec3 half_extents, osc_convex** out);

/// Creates a capsule: the points within `radius` of the segment from (0, 0, -half_length) to
/// (0, 0, half_length) on the body z axis (Tracy et al. 2023 eqs. (12)-(13)); both > 0 (a capsule
/// of half_length 0 is a sphere: use osc_convex_create_sphere).
OSC_API osc_status osc_convex_create_capsule(double radius, double half_length, osc_convex** out);

/// Creates a cylinder of `radius` whose axis runs from z = -half_length to z = half_length (Tracy
/// et al. 2023 eqs. (16)-(17)); both > 0.
OSC_API osc_status osc_convex_create_cylinder(double radius, double half_length, osc_convex** out);

/// Creates a cone of base `radius` and height 2 `half_length` (both > 0) on the body z axis, its
/// origin at its centroid: the base disc at z = -half_length / 2, the apex at z = 3 half_length / 2
/// (Tracy et al. 2023 eqs. (19)-(20), half angle atan(radius / (2 half_length))). The origin is the
/// centroid, not the middle of the axis, because DCOL scales the cone about it: this is the
/// origin of Tracy et al., so alpha is theirs (BODY FRAMES above).
OSC_API osc_status osc_convex_create_cone(double radius, double half_length, osc_convex** out);

/// Creates the axis-aligned ellipsoid of semi-axes `radii` (each > 0) along the body x, y and z
/// axes: (y_x / r_x)^2 + (y_y / r_y)^2 + (y_z / r_z)^2 <= 1 (Tracy et al. 2023 eq. (23) with
/// P = diag(1 / radii^2)). Turn it with the pose.
OSC_API osc_status osc_convex_create_ellipsoid(osc_vec3 radii, osc_convex** out);

/// Creates a sphere of `radius` > 0.
OSC_API osc_status osc_convex_create_sphere(double radius, osc_convex** out);

/// Creates a padded polygon: the points within `radius` > 0 of the polygon { (u, v, 0) : C (u,v)
/// <= d } in the body xy plane (Tracy et al. 2023 eqs. (25)-(26)); `edge_normals` [count][2] (rows of C),
/// `edge_offsets` [count] (d, all > 0), count 3..OSC_CONVEX_MAX_FACES, the polygon bounded.
OSC_API osc_status osc_convex_create_polygon(const double* edge_normals, const double* edge_offsets, int count,
                                             double radius, osc_convex** out);

/// Releases a shape (NULL is fine: nothing happens).
OSC_API void osc_convex_destroy(osc_convex* shape);

/// Returns the shape's kind; OSC_CONVEX_INVALID for a NULL shape (as every getter below: a NULL
/// shape returns the sentinel given and sets osc_last_error() to a message naming the getter).
OSC_API osc_convex_kind osc_convex_get_kind(const osc_convex* shape);

/// Returns a static name for a kind ("polytope", "capsule", ...), or "unknown".
OSC_API const char* osc_convex_kind_name(osc_convex_kind kind);

/// Returns the radius of the smallest origin-centred ball that contains the shape; NaN for NULL.
OSC_API double osc_convex_bounding_radius(const osc_convex* shape);

/// Returns the number of halfspaces of a polytope (edges of a polygon), 0 for other kinds and
/// for NULL.
OSC_API int osc_convex_face_count(const osc_convex* shape);

/// Returns the number of vertices of a polytope (of a polygon's core polygon), 0 for other kinds
/// and for NULL; osc_convex_vertices copies them, [count][3] in the body frame.
OSC_API int osc_convex_vertex_count(const osc_convex* shape);

/// Copies up to `capacity` vertices [capacity][3] (body frame) and returns how many there are
/// (0 for a NULL shape). `vertices` is nullable: NULL (or capacity <= 0) copies nothing.
OSC_API int osc_convex_vertices(const osc_convex* shape, double* vertices, int capacity);

/// Returns the world point of the posed shape that is farthest along `direction` (any non-zero
/// vector; a zero direction returns the origin of the pose); `pose.q` must be a unit quaternion.
/// (NaN, NaN, NaN) for a NULL shape, or a non-finite pose or direction.
OSC_API osc_vec3 osc_convex_support(const osc_convex* shape, osc_pose pose, osc_vec3 direction);

/// Returns the gauge of the shape at the body point y: the least alpha >= 0 with y in the shape
/// scaled by alpha about its origin (1 on the surface, < 1 inside). DCOL's alpha is the least
/// max(gauge_A, gauge_B) over all world points. NaN for a NULL shape or a non-finite point.
OSC_API double osc_convex_gauge(const osc_convex* shape, osc_vec3 body_point);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_CONVEX_H
