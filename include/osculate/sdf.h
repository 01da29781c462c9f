// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// sdf.h: analytic signed distance functions (Beker et al. 2026 §III-A): primitives, superquadrics (SQ),
// plane-superquadric intersections (PSQ), PSQs swept along a quadratic spline (XPSQ), smooth CSG
// by log-sum-exp (Beker et al. 2026 eqs. 2-4), rigid transforms and offsets.
//
// SUMMARY
// An osc_sdf is an immutable model. Primitive constructors create one; combinators (union,
// intersection, subtraction, transform, offset) create a new model from copies of their inputs,
// so every sub-tree stays valid, the caller may destroy inputs at once, and trees of any depth
// are built programmatically. Any number of threads may evaluate one model at once.
// Values are negative inside. Every evaluation returns the value and, when asked, the exact
// gradient and Hessian of the function computed (closed forms for the exact primitives,
// second-order forward mode for SQ / PSQ / XPSQ); no evaluation allocates.
//
// Canonical frames: every primitive is centred at its origin; axially symmetric primitives
// (capsule, cylinder, cone, torus) have their axis along z. Place them with
// osc_sdf_create_transformed.
//
// NUMERIC ROBUSTNESS
// - Exact SDFs: sphere, box, rounded box, capsule, cylinder, cone, torus, half-space. Their
//   gradient is undefined on their medial axes (box diagonals inside, the axis of a capsule,
//   the centre of a sphere, the core circle of a torus); there the gradient of one of the
//   competing branches, or zero at a centre, is returned.
// - Distance-like (exact zero set, |phi| >= true distance, first order exact at the surface):
//   ellipsoid (k0 (k0 - 1) / k1 with k0 = |x / r|, k1 = |x / r^2|) and superquadric (the radial
//   distance |x| (1 - f(x)^(-eps1 / 2)) of the SQ literature). Both are undefined at their
//   centre, where -min(radius) and a zero gradient are returned, and their gradient grows
//   like 1 / |x| near the centre. For SQ, f is not twice differentiable on the coordinate planes
//   when an exponent exceeds 1 (and not once when it is 2): the Hessian returned there is the
//   limit of the regular part. docs/sdf.md gives the measured accuracy against the true distance.
// - Smooth CSG: union = -LSE(-phi_i) lies up to tau log(n) below the hard minimum;
//   intersection = LSE(phi_i) up to tau log(n) above the hard maximum. Temperature 0 gives the
//   hard operators.
// - NaN points evaluate to NaN (value, gradient and Hessian); infinite points give +-inf or NaN.
//
// LENGTHS
// Every length a model holds lies in [OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX] = [1e-30, 1e30]:
// positive sizes (radii, half extents, half heights, scales, a transform's scale and the scale it
// gives each leaf), temperatures unless 0, and the magnitude of sizes that may be 0, coordinates
// (translations, control points), offsets and the model's finite bounds (at most
// OSC_SDF_LENGTH_MAX from the origin). Constructors refuse anything else with
// OSC_ERR_INVALID_ARGUMENT naming the parameter and its value: beyond the range the arithmetic
// overflows or underflows (a sphere of radius 1e308 evaluated to inf with a zero gradient, an
// ellipsoid of radii 1e-200 to NaN, a translation of 1e200 lost the model's size). Within it every
// primitive evaluates to finite values, gradients and Hessians at points as far as
// OSC_SDF_LENGTH_MAX^2 from the origin. Beyond that a bounded model gives its far field: the
// distance to its bounding box (equal to the distance to the model to within 1e-29 of it there),
// with the gradient and Hessian of the distance to a point; an unbounded one (a halfspace, say)
// may overflow to +-inf or NaN.

#ifndef OSCULATE_SDF_H
#define OSCULATE_SDF_H

#include "osculate/base.h"
#include "osculate/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An immutable signed distance function model. Create with osc_sdf_create_*, release with
/// osc_sdf_destroy.
typedef struct osc_sdf osc_sdf;

/// The range of every length a model holds (LENGTHS below).
#define OSC_SDF_LENGTH_MIN 1e-30
#define OSC_SDF_LENGTH_MAX 1e30

/// The smallest and largest exponent accepted for superquadrics (SQ, PSQ, XPSQ).
#define OSC_SQ_EXPONENT_MIN 0.1
#define OSC_SQ_EXPONENT_MAX 2.0

/// A half-space {x : normal . x + offset <= 0}; its signed distance is normal . x + offset with
/// the normal normalised at construction.
typedef struct osc_plane {
    osc_vec3 normal;
    double offset;
} osc_plane;

/// A scalar function of the spline parameter t in [0, 1], as a quadratic Bezier:
/// value(t) = (1 - t)^2 start + 2 t (1 - t) control + t^2 end.
typedef struct osc_profile {
    double start, control, end;
} osc_profile;

/// A half-space that varies along the spline: the normal and the offset are each a quadratic
/// Bezier in t with these three control planes (the normal is re-normalised at every t).
typedef struct osc_plane_profile {
    osc_plane start, control, end;
} osc_plane_profile;

/// How an XPSQ orients its PSQ along the spline.
typedef enum osc_xpsq_frame {
    /// The Frenet frame of the spline: local z along the tangent, local y along the (constant)
    /// binormal of the spline's plane, local x toward the centre of curvature.
    OSC_XPSQ_FRAME_FRENET = 0,
    /// R(t) turns from rotation_start to rotation_end about one fixed axis at a uniform rate
    /// (spherical linear interpolation); equal rotations keep the PSQ's orientation fixed.
    OSC_XPSQ_FRAME_INTERPOLATED = 1
} osc_xpsq_frame;

/// The description of an XPSQ (Beker et al. 2026 §III-A.4-5): a PSQ swept along the quadratic spline
/// p(t) = (1 - t)^2 p1 + 2 t (1 - t) p2 + t^2 p3, t in [0, 1] (eq. 5). Get one from
/// osc_xpsq_desc_default() and change what you need.
typedef struct osc_xpsq_desc {
    osc_vec3 control_points[3];      ///< p1, p2, p3
    osc_xpsq_frame frame;            ///< orientation R(t) of the PSQ along the spline
    osc_vec3 binormal;               ///< FRENET on a straight spline: the local y axis (zero: any)
    osc_quat rotation_start;         ///< INTERPOLATED: R(0), PSQ frame to XPSQ frame
    osc_quat rotation_end;           ///< INTERPOLATED: R(1)
    osc_profile scale[3];            ///< a_x(t), a_y(t), a_z(t); every control value > 0
    osc_profile exponent[2];         ///< eps1(t), eps2(t); every control value in [0.1, 2]
    const osc_plane_profile* planes; ///< half-spaces P(t) in the PSQ frame (nullable if 0)
    int plane_count;                 ///< number of half-spaces (>= 0)
    double plane_temperature;        ///< PSQ intersection temperature, length units (>= 0)
    double discriminant_temperature; ///< softplus / sigmoid of the cubic's discriminant (eq. 6),
                                     ///< dimensionless (>= 0)
    double root_temperature;         ///< soft-clip of the roots into [0, 1], units of t (>= 0)
    double blend_temperature;        ///< smooth minimum over the three roots, length units (>= 0)
} osc_xpsq_desc;

/// Returns an XPSQ description with defaults: a straight spline from (0,0,-1) to (0,0,1), Frenet
/// frame, unit scales and exponents (a sphere swept into a capsule-like shape), no planes,
/// plane and blend temperatures 0.01, root temperature 1e-3 and discriminant temperature 0
/// (the branches already meet smoothly, docs/xpsq.md).
OSC_API osc_xpsq_desc osc_xpsq_desc_default(void);

/// Returns a constant profile.
static inline osc_profile osc_profile_constant(double value) {
    osc_profile p = {value, value, value};
    return p;
}

/// Returns the profile that goes linearly from `start` at t = 0 to `end` at t = 1.
static inline osc_profile osc_profile_linear(double start, double end) {
    osc_profile p = {start, 0.5 * (start + end), end};
    return p;
}

/// Returns a plane profile that is the same plane for every t.
static inline osc_plane_profile osc_plane_profile_constant(osc_plane plane) {
    osc_plane_profile p = {plane, plane, plane};
    return p;
}

// ---------------------------------------------------------------------------------------------
// primitives (every size in the caller's length unit, in the range of LENGTHS; every constructor
// validates its input and returns OSC_ERR_INVALID_ARGUMENT with a message naming the parameter and
// its value, *out NULL, also for a NULL `out`)

/// Creates a sphere of `radius` > 0 centred at the origin; writes the model to `out`.
OSC_API osc_status osc_sdf_create_sphere(double radius, osc_sdf** out);

/// Creates a box with `half_extents` > 0 whose edges and corners are rounded with radius
/// `rounding` in [0, min(half_extents)] while keeping the outer half-extents.
OSC_API osc_status osc_sdf_create_box(osc_vec3 half_extents, double rounding, osc_sdf** out);

/// Creates a capsule: the points within `radius` > 0 of the segment from (0,0,-half_length) to
/// (0,0,half_length), half_length >= 0.
OSC_API osc_status osc_sdf_create_capsule(double radius, double half_length, osc_sdf** out);

/// Creates a cylinder of `radius` > 0 whose axis runs from z = -half_length to z = half_length.
OSC_API osc_status osc_sdf_create_cylinder(double radius, double half_length, osc_sdf** out);

/// Creates a capped cone (frustum) with radius `radius_bottom` at z = -half_length and
/// `radius_top` at z = half_length; radii >= 0, not both 0. A radius of 0 gives a pointed cone.
/// Its origin is the middle of the axis. DCOL's osc_convex_create_cone(radius, half_length) is the
/// pointed cone (radius, 0, half_length) with its origin at its centroid instead, a quarter of
/// the height above the base, because DCOL scales a shape about its origin (convex.h).
OSC_API osc_status osc_sdf_create_cone(double radius_bottom, double radius_top, double half_length, osc_sdf** out);

/// Creates a Menger sponge of `levels` (0..8; 0 is the cube) filling the cube |x|_inf <= half_size
/// (Al-Ameri 2025 §5.2's fractal benchmark shape): a 1-Lipschitz bound on the distance, exact outside
/// the cube (src/sdf_menger.c gives the formula).
OSC_API osc_status osc_sdf_create_menger(double half_size, int levels, osc_sdf** out);

/// Creates a torus in the xy-plane with `major_radius` > `minor_radius` > 0.
OSC_API osc_status osc_sdf_create_torus(double major_radius, double minor_radius, osc_sdf** out);

/// Creates the half-space {normal . x + offset <= 0}; `normal` must be non-zero (it is normalised).
/// Its bounding box is unbounded.
OSC_API osc_status osc_sdf_create_halfspace(osc_vec3 normal, double offset, osc_sdf** out);

/// Creates an axis-aligned ellipsoid with `radii` > 0, as the distance-like function
/// k0 (k0 - 1) / k1 (see NUMERIC ROBUSTNESS above).
OSC_API osc_status osc_sdf_create_ellipsoid(osc_vec3 radii, osc_sdf** out);

/// Creates a superquadric (Beker et al. 2026 eq. 1) with `scales` (a_x, a_y, a_z) > 0 and exponents
/// eps1 (roundness along z) and eps2 (in the xy-plane) in [0.1, 2], as the radial distance
/// |x| (1 - f(x)^(-eps1 / 2)). The other 6 of the 11 SQ parameters are its pose
/// (osc_sdf_create_transformed).
OSC_API osc_status osc_sdf_create_superquadric(osc_vec3 scales, double eps1, double eps2, osc_sdf** out);

/// Creates a PSQ (Beker et al. 2026 §III-A.3): the superquadric above smoothly intersected (eq. 3) with
/// `plane_count` half-spaces given in the SQ frame, at temperature `temperature` >= 0.
OSC_API osc_status osc_sdf_create_psq(osc_vec3 scales, double eps1, double eps2, const osc_plane* planes,
                                      int plane_count, double temperature, osc_sdf** out);

/// Creates an XPSQ (Beker et al. 2026 §III-A.4-5) from `desc`: the spline projection by Cardano's formula
/// with both discriminant branches softened and merged (eq. 6), three soft-clipped roots, and a
/// smooth minimum of the three PSQ distances. The spline must not be degenerate (all control
/// points equal, or a straight spline that turns back on itself).
OSC_API osc_status osc_sdf_create_xpsq(const osc_xpsq_desc* desc, osc_sdf** out);

// ---------------------------------------------------------------------------------------------
// combinators (inputs are copied; the caller keeps ownership of them; NULL inputs or `out`, and
// results whose bounds or leaf scales would leave the range of LENGTHS, are refused with
// OSC_ERR_INVALID_ARGUMENT naming the argument)

/// Creates the smooth union -LSE(-phi_1, ..., -phi_n) (Beker et al. 2026 eq. 2) of `count` >= 1 models at
/// `temperature` >= 0 (0: the hard minimum).
OSC_API osc_status osc_sdf_create_union(const osc_sdf* const* children, int count, double temperature, osc_sdf** out);

/// Creates the smooth intersection LSE(phi_1, ..., phi_n) (Beker et al. 2026 eq. 3) of `count` >= 1 models
/// at `temperature` >= 0 (0: the hard maximum).
OSC_API osc_status osc_sdf_create_intersection(const osc_sdf* const* children, int count, double temperature,
                                               osc_sdf** out);

/// Creates the smooth subtraction LSE(phi_a, -phi_b) (Beker et al. 2026 eq. 4): `a` with `b` removed,
/// at `temperature` >= 0.
OSC_API osc_status osc_sdf_create_subtraction(const osc_sdf* a, const osc_sdf* b, double temperature, osc_sdf** out);

/// Creates `child` placed by `pose` (world-from-child) and uniformly scaled by `scale` > 0:
/// phi(x) = scale * phi_child(R^T (x - p) / scale). The quaternion is normalised.
OSC_API osc_status osc_sdf_create_transformed(const osc_sdf* child, osc_pose pose, double scale, osc_sdf** out);

/// Creates phi_child - distance: the child inflated by `distance` (deflated when negative).
OSC_API osc_status osc_sdf_create_offset(const osc_sdf* child, double distance, osc_sdf** out);

/// Releases a model (NULL is fine).
OSC_API void osc_sdf_destroy(osc_sdf* sdf);

// ---------------------------------------------------------------------------------------------
// evaluation

/// Returns phi(point); writes the gradient to `gradient` and the Hessian to `hessian` (both
/// nullable: NULL means not computed and costs nothing). Returns NaN for a NULL model, and writes
/// NaN to the gradient and Hessian.
OSC_API double osc_sdf_eval(const osc_sdf* sdf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian);

/// Evaluates `count` points (`points` [count][3]; NULL with count 0) into `values` [count],
/// `gradients` [count][3]
/// (nullable) and `hessians` [count][9] (row-major, nullable), over `threads` threads (>= 0; 0:
/// osc_default_thread_count(); at most OSC_MAX_THREADS, and no more than leave each thread 256
/// points: a smaller batch runs on the calling thread). Each result equals osc_sdf_eval's bit for
/// bit. No allocation.
OSC_API osc_status osc_sdf_eval_batch(const osc_sdf* sdf, const double* points, size_t count, double* values,
                                      double* gradients, double* hessians, int threads);

/// Writes an axis-aligned box containing the zero sub-level set {phi <= 0} to `lo` and `hi` (each
/// nullable). Components are +-INFINITY when unbounded (half-spaces) and lo > hi on some axis when
/// the set is provably empty; a NULL model writes the empty box lo = +INFINITY, hi = -INFINITY.
OSC_API void osc_sdf_bounds(const osc_sdf* sdf, osc_vec3* lo, osc_vec3* hi);

/// Returns L, a bound on |grad phi| over the region phi > 0 (outside the shape), so phi / L is a
/// safe step for sphere tracing. It is 1 for trees of exact primitives. For ellipsoids, SQs, PSQs
/// and straight or round-section XPSQs it is the largest gradient over dense samples taken at
/// creation, which the tests find never exceeded. For a curved XPSQ whose section is not round
/// it is only an estimate: such sweeps have thin steep bands along the spline's evolute and no
/// finite bound at its cusp (docs/xpsq.md); osc_sdf_lipschitz_is_bound says which case applies.
/// NaN for a NULL model.
OSC_API double osc_sdf_lipschitz(const osc_sdf* sdf);

/// Returns 1 when osc_sdf_lipschitz is a bound for the whole tree, 0 when it is only an estimate
/// (the tree contains a curved XPSQ with a section that is not round) or the model is NULL.
OSC_API int osc_sdf_lipschitz_is_bound(const osc_sdf* sdf);

/// Returns the number of primitive leaves of the model (0 for a NULL model).
OSC_API int osc_sdf_leaf_count(const osc_sdf* sdf);

/// Returns the value of primitive leaf `leaf` (0 <= leaf < osc_sdf_leaf_count) alone, placed as it
/// is in the tree, with its gradient and Hessian (nullable). Returns NaN (and writes NaN) for a
/// NULL model or an invalid index (the latter also sets osc_last_error()).
OSC_API double osc_sdf_eval_leaf(const osc_sdf* sdf, int leaf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_SDF_H
