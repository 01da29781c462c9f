// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// dcol.h: DCOL, differentiable proximity between two convex primitives by minimum uniform scaling
// (Tracy et al. 2023).
//
// SUMMARY
// - osc_dcol_proximity solves Tracy et al. 2023 problem (9): the least alpha such that the two shapes,
//   each scaled by alpha about its own origin, share a point x. alpha > 1: apart; alpha < 1:
//   interpenetrating; alpha = 1: touching. From (alpha, x) come the contact point on each shape
//   (eq. (29)), the signed distance between them (eq. (30)) and a contact normal.
// - The problem is a conic program (orthant and second-order cones, at most 8 variables) solved
//   by a primal-dual interior-point method with Nesterov-Todd scaling and Mehrotra's predictor-
//   corrector, entirely on the stack (docs/dcol.md §3).
// - Derivatives with respect to both poses (12 columns) come from the implicit function theorem on
//   the solver's KKT conditions, reusing its factorisation (docs/dcol.md §4), or at an exact point
//   contact on the support walk's optimality conditions (§4.6). osc_dcol_alpha_gradient
//   is the fast path for d alpha alone.
// - osc_dcol_proximity_batch runs many pairs over threads; each result equals the single call's bit
//   for bit.
//
// SMOOTHING
// The solver stops on the central path at the barrier parameter `settings.tolerance` (s o z =
// tolerance e), not at the non-smooth optimum. Its answer is therefore an analytic function of the
// poses with the primitives' corners and edges rounded on a length scale of order tolerance times
// the pair's size S, the sum of the bounding radii (Tracy et al. 2023 §II, the `pdip_tol` of the reference
// implementation); the derivatives returned are the exact derivatives of that answer. The default
// 1e-10 rounds nothing a user can see on bodies of comparable size; a central point whose
// rounding exceeds 1e-6 of a body's inner radius (a body 1e-4 the size of its partner, or that
// thin, at the default) is flagged OSC_DCOL_SMOOTHED.
// Two spheres, which have nothing to round, take a closed form (the exact optimum and its exact
// derivatives) at tolerances up to 1e-9, where the central point differs from it by less than the
// solver resolves (docs/dcol.md §3.6). At those tolerances every point contact (one point of each
// shape touches, clear of any flat contact: almost every pose) likewise ends at its exact optimum,
// found on the support functions, with the exact derivatives of that optimum (docs/dcol.md §3.7,
// §4.6): alpha is then below the central point's by at most its duality gap (the tolerance times
// the rows and cones of the pair, 2.4e-9 for two 12-face polytopes at the default) and x within
// 4e-7 of its size; flat and nearly flat contacts keep the central point. Ask for a tolerance
// above 1e-9 to have the central point everywhere.
//
// CONVENTIONS (docs/api.md, docs/architecture.md §2)
// Poses are world-from-body; each shape is scaled about its pose's position. Derivatives are
// taken along left twists xi = (dp, dtheta) in world coordinates: 12 columns, A's twist first.
// Jacobians are row-major [rows][12]. The normal is the unit outward normal of scaled shape A at x
// (it points from A towards B).
//
// NUMERIC ROBUSTNESS
// - Ranges: a query is refused (OSC_ERR_INVALID_ARGUMENT, naming the argument and its value) when
//   the origins are more than OSC_DCOL_MAX_SEPARATION (1e50) times the pair's size apart (the sum
//   of the bounding radii) or a shape's inner radius is below OSC_DCOL_MIN_SIZE_RATIO (1e-12) of
//   it; settings outside their ranges (below) are refused the same way. Positions themselves may
//   be anywhere finite: the problem is posed relative to the origins' midpoint.
// - Near-coincident origins: at tolerances up to 1e-9 a pair whose origins are nearer than
//   sqrt(S (rho_A + rho_B)) (S the pair's size, rho the inner radii) is solved with its
//   separation scaled up to that (alpha is homogeneous in the offset of the origins) and mapped
//   back, so alpha and the distance keep their relative accuracy down to origins 1e-12 S apart
//   (1e-15 measured from alpha 1e-3 to 1e-11; a flat contact's alpha nu tolerance relative, nu
//   the rows and cones of the pair), and a flat contact stays flagged (docs/dcol.md §3.8). At a
//   larger tolerance alpha carries the smoothing's offset of up to nu tolerance absolutely.
// - Bodies of very different sizes: a point contact is answered at its exact optimum whatever the
//   ratio of the sizes (its vertices are cleared against each body's own size), with each contact
//   point on its surface to the rounding of world coordinates (4e-10 of a body 1e-6 its
//   partner's size, at unit distance from the world's origin); a central point (a flat or nearly
//   flat contact) places the smaller body's point up to about tolerance S inside it, flagged
//   OSC_DCOL_SMOOTHED where that exceeds 1e-6 of its inner radius (docs/dcol.md §5).
// - Coincident origins (at most 1e-12 S apart) give alpha = 0, x = the common origin; the contact
//   points and normal are then undefined (eq. (29) divides by alpha) and reported as the origin and
//   zero, flagged by OSC_DCOL_COINCIDENT.
// - Flat contacts (two parallel faces, a face and an edge, a cylinder's end on a face) have a
//   contact set, not a point; the solver returns its analytic centre at the barrier parameter (a
//   symmetric contact's centre, to 1e-6 of its length). Contacts whose normal is not unique (two
//   coplanar rims side by side, a vertex on an edge) are not differentiable. Both are flagged
//   OSC_DCOL_DEGENERATE (docs/dcol.md §5). Their alpha and distance, with the translation columns
//   of their Jacobians where alpha is differentiable (a flat contact with one normal, whose
//   normal's translation columns are then zero), are exact; the rotation columns are the
//   subgradient at the central point; the point's, contact points' and (a non-unique) normal's
//   Jacobians are the smoothed answer's, of order 1 / tolerance along a free direction.
// - A solve that does not reach the tolerance in `max_iterations` returns OSC_ERR_NOT_CONVERGED
//   and leaves its last iterate in the result.

#ifndef OSCULATE_DCOL_H
#define OSCULATE_DCOL_H

#include "osculate/base.h"
#include "osculate/convex.h"
#include "osculate/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The most variables of a DCOL problem: x (3), alpha, a capsule's gamma or a polygon's (u, v)
/// for each shape.
#define OSC_DCOL_MAX_VARIABLES 8

/// The largest separation of the origins |r_A - r_B|, as a multiple of the pair's size (the sum
/// of the two shapes' bounding radii), that a query accepts: alpha then stays below about this,
/// and every length, its square and every Jacobian entry are representable. Beyond, the query is
/// refused (OSC_ERR_INVALID_ARGUMENT naming pose_b.p and the separation).
#define OSC_DCOL_MAX_SEPARATION 1e50

/// The smallest inner radius of a shape (the largest origin-centred ball inside it), as a share of
/// the pair's size, that a query accepts: below, the smaller body is within a few thousand
/// roundings of the larger one's coordinates. Refused otherwise (OSC_ERR_INVALID_ARGUMENT naming
/// the shape and its inner radius).
#define OSC_DCOL_MIN_SIZE_RATIO 1e-12

/// The most constraint rows of a DCOL problem.
#define OSC_DCOL_MAX_ROWS (2 * OSC_CONVEX_MAX_FACES + 8)

/// Solver settings; take them from osc_dcol_settings_default().
typedef struct osc_dcol_settings {
    double tolerance;   ///< barrier parameter at which the solve ends (the smoothing knob), 1e-10; in [1e-12, 0.1]
    int max_iterations; ///< interior-point iterations allowed, 40; in [1, 1000]
    double
        regularization; ///< added to the normal matrix's diagonal, relative to its largest entry, 1e-16; in [0, 1e-3]
} osc_dcol_settings;

/// Returns the default settings.
OSC_API osc_dcol_settings osc_dcol_settings_default(void);

/// Flags of a result.
enum {
    OSC_DCOL_DEGENERATE = 1, ///< a flat contact or one whose normal is not unique: the point (and
                             ///< such a normal's) derivatives are set by the smoothing
    OSC_DCOL_COINCIDENT = 2, ///< the origins coincide: alpha = 0, no contact points or normal
    /// a central point (not an exact contact) whose smoothing, about the tolerance times the pair's
    /// size, exceeds 1e-6 of a body's inner radius: that body's contact point may lie that far
    /// inside it (a body much smaller or thinner than its partner, NUMERIC ROBUSTNESS)
    OSC_DCOL_SMOOTHED = 4
};

/// A warm start: the primal solution (x, alpha, slacks) of an earlier solve of the same two
/// shapes, in world units. The next solve starts from it, alpha enlarged by 5 % so that the point
/// is strictly inside both scaled shapes, with the dual on the central path through it. It is
/// used where the contact is not a point (a face on a face, two sides parallel): a point contact
/// starts next to its exact answer instead (docs/dcol.md §3.5), which no warm start beats; the
/// warm start is still written.
typedef struct osc_dcol_warm_start {
    int valid;                               ///< 0: ignore the rest
    int variables;                           ///< the variable count it was made for
    double solution[OSC_DCOL_MAX_VARIABLES]; ///< (x, alpha, slacks)
} osc_dcol_warm_start;

/// The answer of one query.
typedef struct osc_dcol_result {
    double alpha;     ///< minimum uniform scaling (Tracy et al. 2023 eq. (9))
    osc_vec3 point;   ///< x: the intersection point of the scaled shapes
    osc_vec3 point_a; ///< contact point on A, r_A + (x - r_A) / alpha (eq. (29))
    osc_vec3 point_b; ///< contact point on B
    double distance;  ///< signed: (1 - 1 / alpha) |r_A - r_B|, = +-|point_a - point_b| (eq. (30))
    osc_vec3 normal;  ///< unit outward normal of scaled A at x, from A towards B
    int iterations;   ///< interior-point iterations taken (docs/dcol.md §3.5: or re-centring
                      ///< steps; 0 at an exact point contact, §3.7)
    int flags;        ///< OSC_DCOL_DEGENERATE, OSC_DCOL_COINCIDENT, OSC_DCOL_SMOOTHED
} osc_dcol_result;

/// Optional derivative outputs, each [rows][12] row-major (A's twist, then B's); NULL skips one.
typedef struct osc_dcol_jacobians {
    double* alpha;    ///< [1][12]
    double* point;    ///< [3][12]
    double* point_a;  ///< [3][12]
    double* point_b;  ///< [3][12]
    double* distance; ///< [1][12]
    double* normal;   ///< [3][12]
} osc_dcol_jacobians;

/// Returns OSC_OK and fills `result` with the minimum scaling, intersection and contact points,
/// distance and normal of shapes `a` and `b` at their poses; fills each non-NULL array of
/// `jacobians` (NULL for none). `settings` NULL means the defaults. `warm` (nullable) is read as a
/// starting point when valid and, when non-NULL, overwritten with this solve's iterate.
/// OSC_ERR_INVALID_ARGUMENT, with a message naming the argument, for a NULL shape or result,
/// non-finite or non-normalisable poses or settings out of range; OSC_ERR_NOT_CONVERGED when the
/// iteration limit is reached.
OSC_API osc_status osc_dcol_proximity(const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b,
                                      const osc_dcol_settings* settings, osc_dcol_result* result,
                                      const osc_dcol_jacobians* jacobians, osc_dcol_warm_start* warm);

/// Returns OSC_OK and writes alpha and its gradient d alpha / d(xi_A, xi_B) [12]: the fast path
/// (one extra back-substitution, the envelope theorem made exact at the barrier parameter by an
/// adjoint solve, docs/dcol.md §4.3; at an exact point contact the envelope theorem itself, §4.6),
/// equal to osc_dcol_proximity's alpha row. Same arguments and errors as osc_dcol_proximity.
OSC_API osc_status osc_dcol_alpha_gradient(const osc_convex* a, osc_pose pose_a, const osc_convex* b, osc_pose pose_b,
                                           const osc_dcol_settings* settings, double* alpha, double gradient[12]);

/// Returns the number of shape parameters osc_dcol_alpha_parameter_gradient reports for `shape`:
/// the constructor's arguments (convex.h): sphere 1 (radius); capsule, cylinder and cone 2 (radius,
/// half_length); ellipsoid 3 (radii); polytope 4m (the normals as given [m][3], then the offsets
/// [m]); polygon 3m + 1 (the edge normals as given [m][2], the edge offsets [m], then radius). 0
/// for a NULL shape, with a message in osc_last_error() naming it.
OSC_API int osc_dcol_parameter_count(const osc_convex* shape);

/// Returns OSC_OK and writes alpha (nullable) and d alpha / d(shape parameters) of `a` into
/// `gradient_a` and of `b` into `gradient_b` (each nullable, osc_dcol_parameter_count entries, in
/// its order). One adjoint solve after the solve (docs/dcol.md §4.4). It always solves
/// for the central point (§3.4), so at a point contact its alpha is above osc_dcol_proximity's
/// exact one by at most that point's duality gap (§3.7). Same errors as osc_dcol_proximity.
OSC_API osc_status osc_dcol_alpha_parameter_gradient(const osc_convex* a, osc_pose pose_a, const osc_convex* b,
                                                     osc_pose pose_b, const osc_dcol_settings* settings, double* alpha,
                                                     double* gradient_a, double* gradient_b);

/// One query of a batch: the arguments of osc_dcol_proximity, with its warm start (nullable).
typedef struct osc_dcol_batch_item {
    const osc_convex* a;
    osc_pose pose_a;
    const osc_convex* b;
    osc_pose pose_b;
    osc_dcol_warm_start* warm;
} osc_dcol_batch_item;

/// Runs osc_dcol_proximity(items[i].a, items[i].pose_a, items[i].b, items[i].pose_b, settings,
/// &results[i], jacobians ? &jacobians[i] : NULL, items[i].warm) for every i < count on `threads`
/// threads (docs/api.md, Batches: 0 the default, negative refused, clamped to OSC_MAX_THREADS,
/// fewer than 8 items a thread run on the calling thread without entering OpenMP); each result
/// equals the single call's bit for bit. `jacobians` [count] (nullable) names each item's
/// derivative outputs; `statuses` [count] (nullable) receives each item's status. Returns OSC_OK,
/// or the status of the failing item of lowest index with the message "osc_dcol_proximity_batch:
/// item i: ..." (the other items are still computed); OSC_ERR_INVALID_ARGUMENT for NULL items or
/// results with count > 0 or a negative thread count.
OSC_API osc_status osc_dcol_proximity_batch(const osc_dcol_batch_item* items, size_t count,
                                            const osc_dcol_settings* settings, osc_dcol_result* results,
                                            const osc_dcol_jacobians* jacobians, osc_status* statuses, int threads);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_DCOL_H
