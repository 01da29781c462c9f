// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// sdf_pair.h: collision points between two arbitrary SDFs (Al-Ameri 2025, the method of the Rust crate
// thimni), with a smooth mode whose points are differentiable in both poses.
//
// SUMMARY
// - A shape is a library SDF (any analytic tree, XPSQ assembly, or spline via osc_grid_to_sdf) or a
//   user function giving distance and gradient with a bounding box and a Lipschitz bound.
// - osc_sdf_pair_collide (Al-Ameri 2025 §4): the world boxes of the two posed shapes are intersected
//   (no overlap: no collision); the intersection is packed with spheres (a cubic lattice of
//   `resolution` cells along its longest side, each cell's circumscribed sphere, so the packing
//   leaves no gaps); spheres that cannot reach the intersection of the shapes are pruned
//   (max(A(c), B(c)) > L R + epsilon, L the larger Lipschitz bound); from each survivor gradient
//   descent on f = A^2 + B^2, x <- x - step grad f (the paper's text has a sign slip), stops when
//   A <= epsilon and B <= epsilon or after max_iterations. Points closer than merge_distance
//   spacings are merged, keeping the deepest.
// - Smooth mode (temperature > 0): each point is then refined by Newton's method to a stationary
//   point of the smooth maximum m(x) = tau log(exp(A/tau) + exp(B/tau)) (a local deepest point of
//   the intersection, rounded at the scale tau), and the point and its signed distance m come with
//   their derivatives with respect to both poses by the implicit function theorem (docs/sdf_pair.md).
//
// CONVENTIONS (docs/api.md, docs/architecture.md §2)
// Poses are world-from-body. The normal is the unit gradient of A - B, pointing from A towards B.
// The distance is max(A, B) at the point (m in smooth mode): signed, negative inside both (the
// penetration), as every family's. Jacobians are row-major [rows][12], A's twist first.
//
// NUMERIC ROBUSTNESS
// - A shape without a finite bounding box is refused with OSC_ERR_UNSUPPORTED: the method cannot
//   tell a collision from none there (Al-Ameri 2025 §4.1).
// - The packing finds every collision whose intersection holds a ball of radius one spacing
//   (docs/sdf_pair.md gives the measured false-negative rate of shallower ones).
// - Smooth mode needs second derivatives: library SDFs only. Where the Hessian of m is singular
//   (the deepest set is flat: parallel faces) the refinement stops at the paper's point and its
//   Jacobians are zero, flagged by `smooth = 0` on that contact.
// - Smooth mode's temperature is 0 or in [OSC_SDF_PAIR_TEMPERATURE_MIN, 1] (relative): below it
//   the rounding at the scale tau falls under the refinement's stopping tolerance (1e-10 of the
//   smaller body) and the Hessian of m, whose condition grows like 1 / tau, no longer factors;
//   smaller, subnormal or non-finite temperatures are refused.
//
// - Lengths follow sdf.h's range: pose translations and a user box's coordinates at most
//   OSC_SDF_LENGTH_MAX in magnitude, a box diagonal at least OSC_SDF_LENGTH_MIN. Where the shapes
//   meet, world coordinates must resolve a hundredth of epsilon (the box intersection within
//   0.01 epsilon / 2^-52 of the origin: 1.6e10 for unit spheres at the default epsilon); farther
//   the lattice and the descent would move by more than the method's tolerance, and the query is
//   refused, saying how near the origin must be. Smooth mode's refinement resolves 1e-10 of the
//   scale: beyond about 1e6 scales from the origin its points stay unconverged (smooth = 0).
//
// WORK
// A query evaluates each shape at most spheres + survivors (33 max_iterations + 2) times (the
// output's counts; spheres <= 1 + 8 + ... + 8^7 for resolution 128): per survivor at most
// max_iterations descent steps and, in smooth mode, a refinement of at most 4 max_iterations
// Newton steps and 32 max_iterations evaluations in all (steps and line-search trials, over all
// continuation stages). A refinement that reaches either limit is not converged: its contact keeps
// the descent's point and has smooth = 0. The points are ordered by a stable insertion sort when
// Jacobian buffers are given or at most 64 points were kept, O(count^2) row swaps (at most 0.5M
// for a capacity of 1,000), else by osc_sort, O(count log count).

#ifndef OSCULATE_SDF_PAIR_H
#define OSCULATE_SDF_PAIR_H

#include "osculate/base.h"
#include "osculate/math.h"
#include "osculate/sdf.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A user SDF: returns the signed distance at the body-frame `point` [3] and writes its gradient
/// [3] when `gradient` is non-NULL. Must be callable from several threads at once.
typedef double (*osc_sdf_function)(void* context, const double point[3], double gradient[3]);

/// One shape of a pair: set `sdf`, or `function` with its bounds.
typedef struct osc_sdf_shape {
    const osc_sdf* sdf;        ///< a library SDF (bounds and Lipschitz bound from it), or NULL
    osc_sdf_function function; ///< else a user SDF
    void* context;             ///< passed to `function`
    osc_vec3 lo, hi;           ///< the user SDF's body-frame bounding box (lo <= hi, coordinates
                               ///< at most OSC_SDF_LENGTH_MAX in magnitude, diagonal at least
                               ///< OSC_SDF_LENGTH_MIN; left zero, lo = hi: none given, refused as
                               ///< unbounded)
    double lipschitz;          ///< a bound on |grad| of the user SDF, finite and >= 0 (0: 1)
} osc_sdf_shape;

/// The smallest non-zero smooth-mode temperature (relative, as the setting; NUMERIC ROBUSTNESS).
#define OSC_SDF_PAIR_TEMPERATURE_MIN 1e-8

/// Settings; take them from osc_sdf_pair_settings_default(); each out of its range is refused
/// (OSC_ERR_INVALID_ARGUMENT naming it and its value). epsilon and temperature are relative
/// to the smaller shape (the diagonal of its bounding box), the packing to the longest side of the
/// intersection of the two world boxes, so one set of settings suits any scale.
typedef struct osc_sdf_pair_settings {
    int resolution;        ///< packing cells along the box intersection's longest side (1..128), 12
    double epsilon;        ///< epsilon_c, relative, in (0, 1), 1e-4
    double step;           ///< the descent's learning rate alpha, in (0, 1], 0.25
    int max_iterations;    ///< n_max of the descent (and of each smooth refinement stage; WORK),
                           ///< 1..10000, 40
    int first_only;        ///< 1: stop at the first collision point (a yes/no query); 0 or 1, 0
    double merge_distance; ///< points closer than this many packing spacings merge, in [0, 100], 1
    double temperature;    ///< smooth mode's tau, relative, 0 or in [OSC_SDF_PAIR_TEMPERATURE_MIN,
                           ///< 1]; 0: the paper's points only, 0
} osc_sdf_pair_settings;

/// Returns the default settings.
OSC_API osc_sdf_pair_settings osc_sdf_pair_settings_default(void);

/// One collision point (docs/api.md: the contact vocabulary every family shares).
typedef struct osc_sdf_pair_contact {
    osc_vec3 point;  ///< world point inside both shapes (within epsilon)
    double distance; ///< max(A, B) at the point, negative inside both; smooth mode: m(point)
    osc_vec3 normal; ///< unit gradient of A - B at the point (from A towards B)
    int32_t iterations; ///< descent (+ refinement) iterations used
    int32_t smooth;     ///< 1 when the point is a smooth-mode stationary point with Jacobians
} osc_sdf_pair_contact;

/// Where osc_sdf_pair_collide writes, and its report (docs/api.md: the output every family with a
/// variable number of contacts shares). Contacts are ordered deepest (most negative distance)
/// first, ties in the order found.
typedef struct osc_sdf_pair_output {
    osc_sdf_pair_contact* contacts; ///< [capacity] (NULL only with capacity 0)
    int32_t capacity;               ///< room in every array (>= 0)
    int32_t count;                  ///< set: contacts written
    int32_t needed;                 ///< set: distinct contacts found (> capacity: OSC_ERR_CAPACITY; once
                                    ///< the buffer is full, points that would have merged with a
                                    ///< dropped one count again, so it is an upper bound)
    double* point_jacobians;        ///< nullable, smooth mode: [capacity][3][12] d point / d (xi_A, xi_B)
    double* distance_jacobians;     ///< nullable, smooth mode: [capacity][12]    d distance / d (xi_A, xi_B)
    int32_t boxes_overlap;          ///< set: 0 when the world boxes are disjoint (no collision)
    int32_t spheres;                ///< set: spheres packed
    int32_t survivors;              ///< set: spheres left after pruning
} osc_sdf_pair_output;

/// Returns OSC_OK and fills `output` with the collision points of shapes a and b at their poses
/// (`settings` NULL: the defaults). OSC_ERR_INVALID_ARGUMENT, naming the argument and its value,
/// for a NULL shape or output, output->capacity < 0, NULL output->contacts with capacity > 0,
/// inconsistent shapes, poses that are not finite, beyond OSC_SDF_LENGTH_MAX or not normalisable,
/// settings out of range, or shapes meeting too far from the origin (NUMERIC ROBUSTNESS);
/// OSC_ERR_UNSUPPORTED for an unbounded shape, or smooth mode with a user function;
/// OSC_ERR_CAPACITY when more points were found than fit (output->needed says how many; the first
/// `capacity`, deepest first, are written). A library SDF whose bounds are empty collides with
/// nothing (boxes_overlap 0).
OSC_API osc_status osc_sdf_pair_collide(const osc_sdf_shape* a, osc_pose pose_a, const osc_sdf_shape* b,
                                        osc_pose pose_b, const osc_sdf_pair_settings* settings,
                                        osc_sdf_pair_output* output);

/// One query of a batch: the arguments of osc_sdf_pair_collide.
typedef struct osc_sdf_pair_batch_item {
    const osc_sdf_shape* a;
    osc_pose pose_a;
    const osc_sdf_shape* b;
    osc_pose pose_b;
} osc_sdf_pair_batch_item;

/// Runs osc_sdf_pair_collide(items[i].a, items[i].pose_a, items[i].b, items[i].pose_b, settings,
/// &outputs[i]) for every i < count on `threads` threads (docs/api.md, Batches); each output
/// equals the single call's bit for bit. `statuses` [count] (nullable) receives each item's
/// status. Returns OSC_OK, or the status of the failing item of lowest index with the message
/// "osc_sdf_pair_collide_batch: item i: ..." (the other items are still computed);
/// OSC_ERR_INVALID_ARGUMENT for NULL items or outputs with count > 0 or a negative thread count.
OSC_API osc_status osc_sdf_pair_collide_batch(const osc_sdf_pair_batch_item* items, size_t count,
                                              const osc_sdf_pair_settings* settings, osc_sdf_pair_output* outputs,
                                              osc_status* statuses, int threads);

// ---------------------------------------------------------------------------------------------
// scenes of many bodies (Al-Ameri 2025 §5.2)

/// One body of a scene: a shape (borrowed; several bodies may share one) at a pose.
typedef struct osc_sdf_scene_body {
    const osc_sdf_shape* shape;
    osc_pose pose;
} osc_sdf_scene_body;

/// One candidate pair of a scene: bodies a < b whose world boxes overlap, and its collision
/// points: contacts[first_contact .. first_contact + contact_count).
typedef struct osc_sdf_scene_pair {
    int32_t a, b;
    int32_t first_contact; ///< = pair index * contacts_per_pair
    int32_t contact_count;
    osc_status status; ///< the pair query's status (OSC_ERR_CAPACITY: more than contacts_per_pair)
} osc_sdf_scene_pair;

/// Where osc_sdf_scene_collide writes: the candidate pairs (the output shape of docs/api.md, over
/// pairs) and each pair's collision points in a block of `contacts_per_pair`.
typedef struct osc_sdf_scene_output {
    osc_sdf_scene_pair* pairs;      ///< [capacity]
    int32_t capacity;               ///< room for pairs (>= 0)
    int32_t count;                  ///< set: candidate pairs written
    int32_t needed;                 ///< set: candidate pairs found (> capacity: OSC_ERR_CAPACITY, the
                                    ///< first capacity are still done; at most 2^31 - 1)
    osc_sdf_pair_contact* contacts; ///< [capacity][contacts_per_pair]
    int32_t contacts_per_pair;      ///< >= 1
} osc_sdf_scene_output;

/// Returns the bytes of workspace osc_sdf_scene_collide needs for `count` bodies (0 for count 0;
/// SIZE_MAX where the size does not fit in size_t, and the scene is refused).
OSC_API size_t osc_sdf_scene_workspace_size(size_t count);

/// Returns OSC_OK after finding the collision points of every pair of the `count` bodies
/// (at most 2^31 - 1): a sort-and-sweep broad phase over their world boxes gives the candidate
/// pairs (in a deterministic order), then osc_sdf_pair_collide runs on each over `threads`
/// threads (docs/api.md, Batches) with `settings` (NULL: the defaults), each pair writing at most
/// contacts_per_pair points into its block of `output->contacts`. `workspace` holds
/// osc_sdf_scene_workspace_size(count) bytes (any alignment of malloc). The results are the same
/// for any thread count. Errors of the bodies (a NULL shape, an unbounded one, a bad pose) and of
/// the settings are reported before any pair is run, naming the body or the setting; a pair that
/// fails otherwise fails the scene with its message, naming both bodies. No allocation.
OSC_API osc_status osc_sdf_scene_collide(const osc_sdf_scene_body* bodies, size_t count,
                                         const osc_sdf_pair_settings* settings, osc_sdf_scene_output* output,
                                         void* workspace, int threads);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_SDF_PAIR_H
