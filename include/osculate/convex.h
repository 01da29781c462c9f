// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// convex.h: the convex primitives of DCOL (Tracy et al. 2023 §III-B): polytope, capsule, cylinder, cone,
// ellipsoid, sphere and padded polygon, each described in its own body frame and placed in the
// world by an osc_pose at query time (dcol.h).
//
// SUMMARY
// - osc_convex: an immutable shape model, built once by one of the osc_convex_create_* functions
//   and queried by any number of threads. It holds the paper's parameters, the shape's conic form
//   (the constraints of Tracy et al. 2023 eqs. (10)-(28) written in the body frame, see docs/dcol.md) and
//   what the support function needs (a polytope's vertices).
// - Every shape contains its body origin strictly inside: DCOL scales a shape about its origin,
//   and the scaled-intersection problem is feasible and bounded only when both origins are
//   interior (Tracy et al. 2023 §III-A).
// - osc_convex_support: the support point of a posed shape in a world direction, for GJK-style
//   peers and tests.
//
// BODY FRAMES (Tracy et al. 2023 Fig. 2)
//   polytope   { y : A y <= b }, b > 0, bounded; at most OSC_CONVEX_MAX_FACES halfspaces
//   capsule    points within `radius` of the segment from (-length/2, 0, 0) to (length/2, 0, 0)
//   cylinder   |y_x| <= length/2 and y_y^2 + y_z^2 <= radius^2
//   cone       apex at (-3 height/4, 0, 0), flat face at y_x = height/4 (the origin is a quarter
//              of the height from the flat face), half angle `half_angle` in (0, pi/2)
//   ellipsoid  { y : y^T P y <= 1 }, P symmetric positive definite
//   sphere     |y| <= radius
//   polygon    points within `radius` of the planar polygon { (u, v, 0) : C (u, v) <= d }, d > 0,
//              bounded; at most OSC_CONVEX_MAX_FACES edges
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
// length, a hull's point coordinates, and the shape's bounding and inner radii, so an ellipsoid's
// semi-axes and a cone's base radius), a cone angle outside (0, pi/2), a matrix P that is not
// symmetric positive definite (its Cholesky factor is cached), a polytope or polygon whose origin
// is not strictly inside (b <= 0) or that is unbounded, and zero normals. Each message names the
// argument and its value.

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

/// The range of every length of a shape (a radius, length, height, half extent, a halfspace's
/// offset b / |a|, a vertex's or point's coordinates, an ellipsoid's semi-axis, a cone's base
/// radius, the bounding radius): creation refuses a shape with one outside, naming it and its
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

/// Creates a capsule of `radius` around a segment of `length` along the body x axis (Tracy et al. 2023
/// eqs. (12)-(13)); both > 0 (a capsule of length 0 is a sphere: use osc_convex_create_sphere).
OSC_API osc_status osc_convex_create_capsule(double radius, double length, osc_convex** out);

/// Creates a cylinder of `radius` and `length` along the body x axis (Tracy et al. 2023 eqs. (16)-(17));
/// both > 0.
OSC_API osc_status osc_convex_create_cylinder(double radius, double length, osc_convex** out);

/// Creates a cone of `height` and half angle `half_angle` (radians, in (0, pi/2)) whose axis is
/// the body x axis, apex at -3 height / 4 and flat face at +height / 4 (Tracy et al. 2023 eqs. (19)-(20)).
OSC_API osc_status osc_convex_create_cone(double height, double half_angle, osc_convex** out);

/// Creates the ellipsoid y^T P y <= 1 for a symmetric positive definite P (row-major [3][3]); its
/// upper Cholesky factor U (P = U^T U, Tracy et al. 2023 eq. (23)) is computed once here.
OSC_API osc_status osc_convex_create_ellipsoid(const double P[9], osc_convex** out);

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
