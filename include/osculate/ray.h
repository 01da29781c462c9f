// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// ray.h: rays against implicit surfaces (Torch Lens Maker's collision detection).
//
// SUMMARY
// - The ray P + t V is moved into the surface frame (Torch Lens Maker "Adding anchors"): with the
//   transform X = R s (X_local - anchor) + translation, P' = R^T (P - translation) / s + anchor and
//   V' = R^T V / s, and Q(t) = F(P' + t V') is solved for its root.
// - Iterative method (Torch Lens Maker "Iterative collision detection"): B beams start from the
//   initialisation (t = 0, the closest approach to the surface frame's origin, or spread over the
//   chord of the surface's bounding sphere); a coarse phase runs algorithm A on every beam, the best
//   beam (the nearest valid root in front of the origin, else the smallest |Q|) goes through a fine
//   phase with algorithm B, then a final step of algorithm C. Algorithms: damped Newton with a
//   max-step clamp, gradient descent on H = Q^2 / 2, Levenberg-Marquardt (lambda > 0; Gauss-Newton
//   is lambda = 0, i.e. Newton), sphere tracing for true SDFs.
// - Conics: a sag without asphere terms (sphere, paraboloid, any conic) is intersected in closed
//   form by default (settings.analytic_conics): the root of c (1 + k) x^2 - 2 x + c r^2 = 0 on the
//   vertex branch, nearest in front of the origin within the aperture; an asphere starts its fine
//   phase from its base conic's root instead of running the beams (when that root exists).
// - A hit: |F| <= tolerance at the final point, the point in the surface's domain (a sag's
//   aperture) and t >= 0. A ray whose line misses the bounding sphere is a miss at once.
// - Derivatives at the root by the implicit function theorem, dt = -dF / (grad F . V'): of t,
//   point and normal with respect to the ray's origin and direction, to a twist of the surface's
//   translation and rotation, and to a sag's parameters (c, k, a_i); of t to the transform's anchor
//   and scale. docs/ray.md.
//
// NUMERIC ROBUSTNESS
// - A ray tangent to the surface (grad F . V' = 0 at the root) has no derivative there: the
//   Jacobians are set to zero and the hit is flagged `grazing`.
// - Ranges (refused otherwise with OSC_ERR_INVALID_ARGUMENT naming the argument and its value):
//   the origin's, the translation's and the anchor's coordinates at most OSC_SDF_LENGTH_MAX in
//   magnitude; the direction's length and the transform's scale in [OSC_SDF_LENGTH_MIN,
//   OSC_SDF_LENGTH_MAX] (sdf.h); settings as their fields say. Within them the arithmetic neither
//   overflows nor underflows, and the closed-form conic path gives the same answer at any scale.

#ifndef OSCULATE_RAY_H
#define OSCULATE_RAY_H

#include "osculate/base.h"
#include "osculate/implicit.h"
#include "osculate/math.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The placement of a surface: X = R s (X_local - anchor) + translation (uniform scale s > 0).
typedef struct osc_implicit_transform {
    osc_vec3 anchor;
    double scale;
    osc_quat rotation;
    osc_vec3 translation;
} osc_implicit_transform;

/// Returns the identity transform (no anchor, scale 1).
OSC_API osc_implicit_transform osc_implicit_transform_identity(void);

/// The update rules of Torch Lens Maker.
typedef enum osc_ray_algorithm {
    OSC_RAY_NEWTON = 0,              ///< t -= damping Q / Q', |step| <= max_step when max_step > 0
    OSC_RAY_GRADIENT_DESCENT = 1,    ///< t -= damping Q' Q
    OSC_RAY_LEVENBERG_MARQUARDT = 2, ///< t -= Q' Q / (Q'^2 + damping)
    OSC_RAY_SPHERE_TRACING = 3       ///< t += Q / |V'| (for true SDFs only)
} osc_ray_algorithm;

/// One phase: an algorithm, its iterations and its parameter.
typedef struct osc_ray_phase {
    osc_ray_algorithm algorithm;
    int iterations;  ///< at most (a phase ends early once a step moves t by < 1e-15 (1 + |t|)); 0 skips it
    double damping;  ///< Newton's alpha, descent's beta, LM's lambda (unused by sphere tracing)
    double max_step; ///< Newton's clamp on |step| (0: none)
} osc_ray_phase;

/// How beams start.
typedef enum osc_ray_init {
    OSC_RAY_INIT_ZERO = 0,           ///< t = 0
    OSC_RAY_INIT_CLOSEST = 1,        ///< the closest approach to the surface frame's origin
    OSC_RAY_INIT_BOUNDING_SPHERE = 2 ///< spread over the chord of the bounding sphere
} osc_ray_init;

/// The range of osc_ray_settings.tolerance: below it a hit would depend on the rounding of F, above
/// it a ray that misses by a tenth of the surface's size could count as a hit.
#define OSC_RAY_TOLERANCE_MIN 1e-15
#define OSC_RAY_TOLERANCE_MAX 0.1

/// Settings; take them from osc_ray_settings_default(). In each phase: algorithm one of
/// osc_ray_algorithm, iterations in 0..10000, damping finite and >= 0, max_step finite.
typedef struct osc_ray_settings {
    osc_ray_init init;        ///< one of osc_ray_init, OSC_RAY_INIT_BOUNDING_SPHERE
    int beams;                ///< 1..16, 4
    osc_ray_phase coarse;     ///< Newton, 6 iterations, damping 1, max_step: half the bounding radius
    osc_ray_phase fine;       ///< Newton, 20 iterations, damping 1
    osc_ray_phase final_step; ///< Newton, 1 iteration
    double tolerance;         ///< |F| for a hit, relative to the bounding radius, in
                              ///< [OSC_RAY_TOLERANCE_MIN, OSC_RAY_TOLERANCE_MAX], 1e-10
    int analytic_conics;      ///< 1: a sag without asphere terms is solved in closed form (its conic's
                              ///< quadratic) instead of by the phases, and an asphere's fine phase
                              ///< starts from its base conic's root; 0 or 1, 1
} osc_ray_settings;

/// Returns the default settings.
OSC_API osc_ray_settings osc_ray_settings_default(void);

/// The answer for one ray.
typedef struct osc_ray_hit {
    double t;        ///< the ray parameter of the final point
    osc_vec3 point;  ///< P + t V (world)
    osc_vec3 normal; ///< unit gradient of F at the point, in the world (facing +grad F)
    int hit;         ///< 1: |F| <= tolerance, in the domain, t >= 0
    int grazing;     ///< 1: grad F . V' vanishes at the root (no derivative)
    int iterations;  ///< updates taken by the chosen beam
} osc_ray_hit;

/// Optional derivative outputs (each nullable), at the returned point.
typedef struct osc_ray_jacobians {
    double* t_origin;            ///< [3]   d t / d P
    double* t_direction;         ///< [3]   d t / d V
    double* point_origin;        ///< [3][3] d point / d P
    double* point_direction;     ///< [3][3]
    double* normal_origin;       ///< [3][3] d normal / d P (needs the surface's Hessian)
    double* normal_direction;    ///< [3][3]
    double* t_surface_pose;      ///< [6]   d t / d twist (dp, dtheta) of the surface's translation and rotation
    double* t_parameters;        ///< [2 + coefficients] d t / d (c, k, a_i) of a sag surface
    double* point_surface_pose;  ///< [3][6]
    double* normal_surface_pose; ///< [3][6]
    double* point_parameters;    ///< [3][2 + coefficients]
    double* normal_parameters;   ///< [3][2 + coefficients]
    double* t_anchor;            ///< [3]   d t / d anchor (surface frame)
    double* t_scale;             ///< [1]   d t / d scale
} osc_ray_jacobians;

/// A ray origin + t direction (world); the direction need not be a unit vector.
typedef struct osc_ray {
    osc_vec3 origin;
    osc_vec3 direction;
} osc_ray;

/// Returns OSC_OK and fills `hit` for the ray against the placed surface (`transform` NULL:
/// identity; `settings` NULL: the defaults); fills each non-NULL array of `jacobians` (NULL:
/// none). OSC_ERR_INVALID_ARGUMENT, naming the argument and its value, for a NULL surface or hit,
/// a ray or transform outside the ranges of NUMERIC ROBUSTNESS, settings out of range or parameter
/// derivatives asked of a non-sag surface.
OSC_API osc_status osc_ray_intersect(const osc_implicit* surface, const osc_implicit_transform* transform, osc_ray ray,
                                     const osc_ray_settings* settings, osc_ray_hit* hit,
                                     const osc_ray_jacobians* jacobians);

/// Intersects `count` rays with the surface over `threads` threads (docs/api.md, Batches; no more
/// than leave each thread 64 rays or groups of rays: a smaller batch runs on the calling thread),
/// writing hits[i] for rays[i]: each equals osc_ray_intersect's without Jacobians, bit for bit.
/// No allocation. `statuses` [count] (nullable) receives each ray's status. A ray outside the
/// ranges gets t = NaN (the rest of its hit zero) and status OSC_ERR_INVALID_ARGUMENT, and the call
/// returns OSC_ERR_INVALID_ARGUMENT naming the lowest such ray and its values; the others are still
/// answered. OSC_ERR_INVALID_ARGUMENT for a NULL surface, rays or hits with count > 0, or a
/// negative thread count (transform, settings: NULL as in osc_ray_intersect).
OSC_API osc_status osc_ray_intersect_batch(const osc_implicit* surface, const osc_implicit_transform* transform,
                                           const osc_ray* rays, size_t count, const osc_ray_settings* settings,
                                           osc_ray_hit* hits, osc_status* statuses, int threads);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_RAY_H
