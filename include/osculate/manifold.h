// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// manifold.h: smooth contact manifolds between two rigid bodies (Beker et al. 2026 §IV): the vertices and
// edges of each body's collision mesh against the other body's SDF, with a differentiable broad
// phase, sphere-traced edge contacts, mollification at d_max and softmax blending within convex
// groups; every output comes with its exact derivatives with respect to both poses.
//
// SUMMARY
// - osc_body: an immutable rigid-body model: an SDF (a spline osc_grid with its normal field, or any
//   osc_sdf), its collision mesh (vertices and unique edges, sorted along a space-filling curve and
//   by convex group), the broad-phase voxel grid and the convex-group ids of vertices and edges.
// - osc_manifold_collide: one pair of poses. Both directions run (A's vertices and edges against B's
//   SDF, then B's against A's). Per feature (the paper's §IV-B, §IV-C):
//     broad phase   a vertex is skipped when the voxel lower bound of phi at it exceeds d_max; an
//                   edge when min of its corners' bounds - L l / 2 does (L bounds |grad phi|).
//                   A skipped feature gets exactly what the narrow phase would give it: distance d_max,
//                   weight 0 and zero derivatives, so the broad phase never changes a result.
//     narrow phase  a vertex is its own contact point; an edge is sphere traced from both corners
//                   towards each other, s <- s + sigma(phi) phi, for `iterations` steps, the two
//                   distances soft-clipped into [0, l], and the contact point is their midpoint.
//     mollify       distance d_c = f_t(phi) phi + (1 - f_t(phi)) d_max, weight f_t(phi) (C2
//                   transition).
//     blend         within each convex group, weights w_i proportional to f_i exp(-d_c / tau) (the
//                   paper's softmax over distances, restricted to contacts with weight; the paper's
//                   exact form is a setting): distance sum w d_c, weight W = sum w f, point
//                   sum w f x / W, normal the unit vector along sum w f n, so the blended contact
//                   Jacobian W J(point) equals sum w J_c (the paper's §IV-D.2).
// - osc_manifold_collide_batch: many pose pairs for the same two bodies over threads, each result
//   identical bit for bit to osc_manifold_collide's.
//
// CONVENTIONS (docs/api.md, docs/architecture.md §2)
// Poses are world-from-body. The distance is signed: negative is penetration. The normal is a unit vector
// pointing from A to B. Pose derivatives are taken along left twists xi = (dp, dtheta) in world
// coordinates, 12 columns: body A's twist first, then B's. A contact Jacobian J_X (3 x 6) maps a
// twist of body X to the velocity of the body-X material point at the contact point:
// J = weight [I | -[x - p_X]x] (the paper's §IV-C.1 scales it by f_t; blended contacts by W).
//
// NUMERIC ROBUSTNESS
// Every output is a C2 function of the poses in the smooth mode (all temperatures > 0), except
// where an edge's sphere trace is not defined by a single crossing (the paper's §IV-B.2: an edge that
// enters and leaves the other body; refine the mesh) and where a group's sum w f n passes through
// zero (its weight W is then zero too, so the contact carries no force).

#ifndef OSCULATE_MANIFOLD_H
#define OSCULATE_MANIFOLD_H

#include "osculate/base.h"
#include "osculate/grid.h"
#include "osculate/math.h"
#include "osculate/mesh.h"
#include "osculate/sdf.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---------------------------------------------------------------------------------------------
// bodies

/// A rigid body for contact queries. Create with osc_body_create, release with osc_body_destroy.
/// Immutable: any number of threads may query it at once.
typedef struct osc_body osc_body;

/// Where a body's convex groups (Beker et al. 2026 §IV-D.1) come from.
typedef enum osc_group_source {
    OSC_GROUPS_NONE = 0,       ///< no groups: every vertex and edge contact is reported on its own
    OSC_GROUPS_GIVEN = 1,      ///< `vertex_groups` (and optionally `edge_groups`) of the description
    OSC_GROUPS_SDF_LEAVES = 2, ///< each vertex joins the primitive leaf of the SDF with the smallest
                               ///< value at it (for unions of SQs, XPSQs, ...)
    OSC_GROUPS_CLUSTER = 3     ///< the built-in fallback: osc_mesh_groups_cluster with `group_count`
} osc_group_source;

/// What a body is made of; get one from osc_body_desc_default() and fill it in.
typedef struct osc_body_desc {
    const osc_mesh* mesh;         ///< collision mesh in the body frame (required; copied)
    const osc_grid* grid;         ///< spline SDF with its normal field, or
    const osc_sdf* sdf;           ///< any SDF, normal = grad phi / |grad phi|; exactly one of grid
                                  ///< and sdf is set. Borrowed, not copied: it must outlive the body
    osc_group_source groups;      ///< default OSC_GROUPS_NONE
    const int32_t* vertex_groups; ///< [vertex_count] group ids >= 0 (OSC_GROUPS_GIVEN)
    const int32_t* edge_groups;   ///< [edge_count][2] group ids, -1 for none (nullable: the groups of
                                  ///< the edge's two corners); edges are indexed as osc_mesh_edges
    int32_t group_count;          ///< groups for OSC_GROUPS_CLUSTER (default 16)
    osc_curve curve;              ///< order of vertices and edges within a group (default Hilbert)
    int broad_phase_resolution;   ///< voxels along the longest axis for an osc_sdf body's voxel grid
                                  ///< (default 32; a grid body uses the grid's own voxels)
    double broad_phase_padding;   ///< margin of that voxel grid around the SDF's bounds (< 0, the
                                  ///< default: half the bounds' longest side); a coarse grid (20
                                  ///< voxels) reaches three times the longest side beyond the
                                  ///< bounds, and nothing outside both is skipped
    double surface_tolerance;     ///< largest |phi| allowed at a mesh vertex, as a fraction of the
                                  ///< mesh's bounding-box diagonal (default 0.05): a body whose SDF
                                  ///< does not cover its own mesh is refused
} osc_body_desc;

/// Returns a description with every default set and no mesh or SDF.
OSC_API osc_body_desc osc_body_desc_default(void);

/// Creates a body. OSC_ERR_INVALID_ARGUMENT names the problem: no mesh or an empty one, neither or
/// both of grid and sdf, a group id out of range, or a vertex where |phi| exceeds the tolerance or
/// that lies outside a grid's region (the SDF does not cover the mesh).
OSC_API osc_status osc_body_create(const osc_body_desc* desc, osc_body** out);

/// Releases a body (NULL is fine).
OSC_API void osc_body_destroy(osc_body* body);

/// Returns the number of collision-mesh vertices of a body (0 for NULL).
OSC_API int32_t osc_body_vertex_count(const osc_body* body);

/// Returns the number of unique collision-mesh edges of a body (0 for NULL).
OSC_API int32_t osc_body_edge_count(const osc_body* body);

/// Returns the number of convex groups of a body (0: none, or NULL).
OSC_API int32_t osc_body_group_count(const osc_body* body);

/// Writes each vertex's group id (-1 when the body has no groups) to `vertex_groups`
/// [vertex_count], indexed as the mesh the body was created from.
OSC_API void osc_body_vertex_groups(const osc_body* body, int32_t* vertex_groups);

// ---------------------------------------------------------------------------------------------
// queries

/// Settings of the pipeline; get them from osc_manifold_settings_default(). Lengths and
/// temperatures are in the caller's units; the defaults suit bodies about 1 unit across.
/// A temperature of 0 selects the hard operator (docs/architecture.md §2).
typedef struct osc_manifold_settings {
    double d_max;             ///< contacts saturate at this distance and the broad phase skips
                              ///< features beyond it (>= 0; default 0.02)
    double bandwidth;         ///< width of the C2 transition below d_max (>= 0; default 0.01)
    double trace_temperature; ///< temperature of the smoothed Iverson bracket [phi > 0] of sphere
                              ///< tracing (default 0.002)
    double clip_temperature;  ///< temperature of the soft clip into the edge (default 0.002)
    double blend_temperature; ///< softmax temperature over distances within a group (default 0.005)
    int iterations;           ///< sphere-tracing steps from each corner of an edge (0..64;
                              ///< default 3)
    int blend;                ///< 1: blend within convex groups when the bodies have them (default)
    int broad_phase;          ///< 1: skip features the voxel bound rules out (default); 0 runs the
                              ///< narrow phase on every feature (same result, slower)
    int edges;                ///< 1: edge contacts (default); 0: vertex contacts only
    int blend_saturated;      ///< 0 (default): each feature's softmax weight is multiplied by its
                              ///< transition weight f, so only contacts that carry force are
                              ///< blended; 1: Beker et al. 2026 §IV-D.2 verbatim, features beyond d_max
                              ///< take part with distance d_max (docs/manifold.md, Blending)
} osc_manifold_settings;

/// Returns the default settings (values above).
OSC_API osc_manifold_settings osc_manifold_settings_default(void);

/// Returns the defaults with every length and temperature multiplied by `size`, the size of the
/// bodies in the caller's units (the defaults suit size 1); NaN settings for size <= 0 or NaN,
/// which osc_manifold_collide refuses.
OSC_API osc_manifold_settings osc_manifold_settings_for_size(double size);

/// Returns the most contacts osc_manifold_collide can produce for bodies `a` and `b` with
/// `settings` (NULL: the defaults): the groups of each body when blending applies to it, else its
/// vertices plus edges (edges only when settings->edges). 0 for a NULL body.
OSC_API int32_t osc_manifold_max_contacts(const osc_body* a, const osc_body* b, const osc_manifold_settings* settings);

/// Which feature a contact comes from.
typedef enum osc_contact_kind {
    OSC_CONTACT_VERTEX = 0, ///< a collision-mesh vertex; `feature` is its index
    OSC_CONTACT_EDGE = 1,   ///< a collision-mesh edge (sphere traced); `feature` indexes osc_mesh_edges
    OSC_CONTACT_GROUP = 2   ///< a blended convex group; `feature` is the group id
} osc_contact_kind;

/// One contact (docs/api.md: the contact vocabulary every family shares).
typedef struct osc_manifold_contact {
    osc_vec3 point;          ///< world point
    double distance;         ///< mollified signed distance d_c (negative: penetration; d_max: none)
    osc_vec3 normal;         ///< unit normal from A to B (zero when weight is 0)
    double weight;           ///< f_t(phi), or W for a blended group: the share of a contact force
    double jacobian_a[3][6]; ///< contact Jacobian of body A, weight [I | -[x - p_A]x]
    double jacobian_b[3][6]; ///< contact Jacobian of body B, weight [I | -[x - p_B]x]
    int32_t feature;         ///< vertex, edge or group index on the feature body
    int32_t kind;            ///< an osc_contact_kind
    int32_t body;            ///< 0: a feature of A against B's SDF; 1: a feature of B against A's
    int32_t group;           ///< the feature's convex group (-1: none)
} osc_manifold_contact;

/// Where osc_manifold_collide writes (docs/api.md: the output every family with a variable
/// number of contacts shares). Contacts are the features (or groups) whose weight is positive, in
/// a fixed order (A's then B's; groups, vertices, edges in the body's order). The pose Jacobians
/// are row-major, [capacity][rows][12] with A's twist in columns 0..5, B's in 6..11, and each may
/// be NULL (not computed, no cost).
typedef struct osc_manifold_output {
    osc_manifold_contact* contacts; ///< [capacity]
    int32_t capacity;               ///< room in every array (>= 0)
    int32_t count;                  ///< set: contacts written (at most capacity)
    int32_t needed;                 ///< set: contacts the query produced (> capacity: ran out)
    double* point_jacobians;        ///< [capacity][3][12] d point / d (xi_A, xi_B)
    double* distance_jacobians;     ///< [capacity][12]    d distance / d (xi_A, xi_B)
    double* normal_jacobians;       ///< [capacity][3][12] d normal / d (xi_A, xi_B)
    double* weight_jacobians;       ///< [capacity][12]    d weight / d (xi_A, xi_B)
} osc_manifold_output;

/// Computes the contact manifold between `a` at `pose_a` and `b` at `pose_b` into `out`
/// (`settings` NULL: the defaults). Returns OSC_ERR_INVALID_ARGUMENT, naming the argument, for a
/// NULL body or output, a negative capacity or NULL contacts with a positive one, a non-finite
/// pose or a quaternion that cannot be normalised (quaternions are normalised), and settings out
/// of range; OSC_ERR_CAPACITY when more than `capacity` contacts were produced: the first
/// `capacity` are written and `needed` says how many there were. Allocates nothing; it uses about
/// 100 KB of the calling thread's stack (docs/manifold.md).
OSC_API osc_status osc_manifold_collide(const osc_body* a, osc_pose pose_a, const osc_body* b, osc_pose pose_b,
                                        const osc_manifold_settings* settings, osc_manifold_output* out);

/// One query of a batch: the arguments of osc_manifold_collide.
typedef struct osc_manifold_batch_item {
    const osc_body* a;
    osc_pose pose_a;
    const osc_body* b;
    osc_pose pose_b;
} osc_manifold_batch_item;

/// Runs osc_manifold_collide(items[i].a, items[i].pose_a, items[i].b, items[i].pose_b, settings,
/// &outputs[i]) for every i < count on `threads` threads (docs/api.md, Batches: 0 the default,
/// negative refused, clamped to OSC_MAX_THREADS); each output equals the single call's bit for bit.
/// `statuses` [count] (nullable) receives each item's status. Returns OSC_OK, or the status of the
/// failing item of lowest index with the message "osc_manifold_collide_batch: item i: ..." (the
/// other items are still computed); OSC_ERR_INVALID_ARGUMENT for NULL items or outputs with
/// count > 0 or a negative thread count.
OSC_API osc_status osc_manifold_collide_batch(const osc_manifold_batch_item* items, size_t count,
                                              const osc_manifold_settings* settings, osc_manifold_output* outputs,
                                              osc_status* statuses, int threads);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_MANIFOLD_H
