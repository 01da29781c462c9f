// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// lmd.h: local minimal distances between two B-Rep solids (Crozet 2017, a PhD thesis, chapter 4):
// every pair of footpoints where the distance between the two boundaries has a local minimum below
// d_max, with the gap g = d - eps_a - eps_b and its gradient with respect to both poses.
//
// SUMMARY (thesis Fig. 4.1)
// 1. Simultaneous traversal of the two BVHs (Algorithms 8-9) with the culling tests in order
//    (§2.4.3): curvature masks (Table 2.2, combined with AND), normal cones of revolution
//    (antipodality, eq. 1.24), OBBs enlarged by d_max (separating axes), and at leaves the
//    polyhedral normal cones (Algorithm 4).
// 2. Footpoints per leaf pair: Newton's method on the squared distance between the two untrimmed
//    features (surface, curve or point), started from the closest pair of a small grid over the two
//    leaves (in place of the thesis' GJK between corner tetrahedra, Algorithm 12), or from the
//    cached footpoints, and stopped once it leaves the leaves; an edge or vertex against a face is
//    searched along the edge alone, on the surface's exact signed distance (docs/lmd.md).
// 3. Validation (§4.4): footpoints inside the faces' trimming loops and the edges' ranges, the
//    direction between them inside both tangent cone polars dilated by `alpha` (quasi-LMD,
//    §1.3.1.4), the critical point an isolated minimum, d in (0, d_max]; duplicates (the same pair
//    of features, the same footpoints) merged.
// 4. Conformal contacts (§4.3.2): a convex cylinder coaxial in a concave one, spheres sharing a
//    centre, coaxial cones of equal angle, and the circular edges of such faces, or a circle lying
//    parallel to a plane: the contact set is sampled with `conformal_samples` points per curve.
//
// CONVENTIONS (docs/api.md, docs/architecture.md §2)
// Poses are world-from-body. The normal points from A's footpoint to B's. A contact's distance is
// the signed gap g = d - eps_a - eps_b of eq. 1.19 (d the footpoints' distance; negative: the
// dilated solids interpenetrate). Its Jacobian is taken along twists (dp, dtheta) applied on the
// left in world coordinates, A's first: grad g = -J^T n (thesis eq. 1.14), [12].
//
// TEMPORAL COHERENCE (§4.5) AND THREADS (§4.6)
// An osc_lmd_cache kept between calls on the same pair of solids holds the BVTT front of the last
// call (restarted there, with partial pruning of sibling pairs whose parent is culled again) and the
// last footpoints (the warm start of Newton's method for the same leaf pair). The footpoint stage
// runs over `threads` threads. The contacts are the same with or without a cache and on any number
// of threads (same order and keys; footpoints equal to Newton's tolerance).

#ifndef OSCULATE_LMD_H
#define OSCULATE_LMD_H

#include <stdint.h>

#include "osculate/base.h"
#include "osculate/brep.h"
#include "osculate/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The largest magnitude of a length the query takes: each component of a pose's translation,
/// d_max, eps_a and eps_b (squares and sums of squares of lengths then stay far from overflow).
#define OSC_LMD_MAX_LENGTH 1e100

/// Settings; take them from osc_lmd_settings_default(). Lengths are in the solids' units.
typedef struct osc_lmd_settings {
    double d_max;          ///< local minimal distances above this are not reported
                           ///< ((0, OSC_LMD_MAX_LENGTH]), 1
    double eps_a, eps_b;   ///< the implicit dilation radii of eq. 1.19 (g = d - eps_a - eps_b;
                           ///< [0, OSC_LMD_MAX_LENGTH]), 0
    double alpha;          ///< the quasi-LMD dilation angle of the tangent cone polars (radians,
                           ///< [0, pi/4]), 0.05
    int conformal_samples; ///< samples along each conformal contact curve ([0, 1024]; 0: none), 8
    int culling;           ///< 1: the culling tests of §2.4.3; 0: every leaf pair (for testing), 1
} osc_lmd_settings;

/// Returns the default settings.
OSC_API osc_lmd_settings osc_lmd_settings_default(void);

/// Feature kinds.
typedef enum osc_feature_kind { OSC_FEATURE_FACE = 0, OSC_FEATURE_EDGE = 1, OSC_FEATURE_VERTEX = 2 } osc_feature_kind;

/// Contact flags.
enum {
    OSC_LMD_CONFORMAL = 1 ///< a sample of a conformal contact (§4.3.2), not an isolated minimum
};

/// One local minimal distance (docs/api.md: the contact vocabulary every family shares).
typedef struct osc_lmd_contact {
    osc_vec3 point_a, point_b; ///< world footpoints
    double distance;           ///< signed gap g = |point_b - point_a| - eps_a - eps_b
    osc_vec3 normal;           ///< unit vector from point_a to point_b
    double param_a[2];         ///< A's footpoint parameters: (u, v) on a face, (t, 0) on an edge
    double param_b[2];
    osc_feature_kind kind_a, kind_b;
    int32_t feature_a, feature_b; ///< face, edge or vertex index in each solid's description
    uint64_t key;                 ///< stable between calls while the contact persists (features and
                                  ///< leaves; conformal samples add their index)
    int32_t flags;                ///< OSC_LMD_CONFORMAL
} osc_lmd_contact;

/// Where osc_lmd_query writes (docs/api.md: the output every family with a variable number of
/// contacts shares). Contacts are sorted by feature pair.
typedef struct osc_lmd_output {
    osc_lmd_contact* contacts;  ///< [capacity]
    int32_t capacity;           ///< room in every array (>= 0)
    int32_t count;              ///< set: contacts written (at most capacity)
    int32_t needed;             ///< set: contacts found (> capacity: OSC_ERR_CAPACITY)
    double* distance_jacobians; ///< nullable: [capacity][12] d distance / d (xi_A, xi_B) = -J^T n
    int32_t skipped_faces;      ///< set: faces the importer left out of a or b (osc_brep_skipped_face_count)
                                ///< whose box comes within d_max of the other solid's box: the search
                                ///< reached geometry the models do not hold, so contacts may be missing
                                ///< (0 for solids imported whole)
} osc_lmd_output;

/// Per-pair state for temporal coherence and the query's scratch memory. The first query with a
/// cache sizes it (through osc_set_allocator's allocator); a later query that needs no more room
/// (BVTT front, leaf pairs, contacts) than one before it on the same cache allocates nothing at
/// all: no malloc, no qsort, no OpenMP team when it runs on one thread. Buffers grow by doubling
/// and are released by osc_lmd_cache_destroy only. A query without a cache allocates and frees
/// its scratch memory.
typedef struct osc_lmd_cache osc_lmd_cache;

/// Creates an empty cache.
OSC_API osc_status osc_lmd_cache_create(osc_lmd_cache** out);

/// Releases a cache (NULL is fine).
OSC_API void osc_lmd_cache_destroy(osc_lmd_cache* cache);

/// Forgets the front and footpoints (use when the cache moves to another pair of solids); keeps the
/// memory. NULL is a no-op, as for osc_lmd_cache_destroy.
OSC_API void osc_lmd_cache_reset(osc_lmd_cache* cache);

/// Statistics of the last query with a cache (each saturates at INT_MAX).
typedef struct osc_lmd_stats {
    int front_size;        ///< BVTT nodes in the front after the query
    int culling_tests;     ///< culling tests run
    int leaf_pairs;        ///< leaf pairs that reached the footpoint stage
    int newton_iterations; ///< summed over the leaf pairs
    int warm_starts;       ///< leaf pairs started from the cached footpoints
    int searches;          ///< footpoint searches run: the leaf pairs less those that an edge or vertex
                           ///< leaf shares with another leaf of the same supermaximal face (searched once)
} osc_lmd_stats;

/// Reads the statistics of the cache's last query. OSC_ERR_INVALID_ARGUMENT naming `cache` or `stats`
/// when NULL.
OSC_API osc_status osc_lmd_cache_stats(const osc_lmd_cache* cache, osc_lmd_stats* stats);

/// Every local minimal distance between `a` at `pose_a` and `b` at `pose_b` below settings->d_max
/// (`settings` NULL: the defaults), into `output`. `cache` may be NULL (the query then allocates and
/// frees its scratch memory). The footpoint stage runs on `threads` threads (docs/api.md, Batches:
/// 0 the default, negative refused, clamped to OSC_MAX_THREADS; a thread takes at least 16 leaf
/// pairs, so a small query runs on the calling thread alone); the answer is the same on any
/// number. OSC_ERR_CAPACITY when more contacts were found than fit (the first `capacity` are
/// written, `needed` says how many). OSC_ERR_INVALID_ARGUMENT, naming the argument and its value,
/// for a NULL `a`, `b` or `output`, `contacts` NULL with capacity > 0, a negative capacity, a pose
/// whose translation is not finite or beyond OSC_LMD_MAX_LENGTH or whose quaternion cannot be
/// normalised, and a setting outside its range. The query works in A's frame shifted to pose_a.p,
/// so distances, normals and Jacobians depend only on the relative pose; the world footpoints are
/// as precise as doubles are at the solids' position.
OSC_API osc_status osc_lmd_query(const osc_brep* a, osc_pose pose_a, const osc_brep* b, osc_pose pose_b,
                                 const osc_lmd_settings* settings, osc_lmd_cache* cache, osc_lmd_output* output,
                                 int threads);

/// One query of a batch: the arguments of osc_lmd_query, with its cache (nullable; each item
/// needs its own).
typedef struct osc_lmd_batch_item {
    const osc_brep* a;
    osc_pose pose_a;
    const osc_brep* b;
    osc_pose pose_b;
    osc_lmd_cache* cache;
} osc_lmd_batch_item;

/// Runs osc_lmd_query(items[i].a, items[i].pose_a, items[i].b, items[i].pose_b, settings,
/// items[i].cache, &outputs[i], 1) for every i < count on `threads` threads (docs/api.md,
/// Batches); each output equals the single call's bit for bit. Two items must not share a cache.
/// `statuses` [count] (nullable) receives each item's status. Returns OSC_OK, or the status of the
/// failing item of lowest index with the message "osc_lmd_query_batch: item i: ..." (the other
/// items are still computed); OSC_ERR_INVALID_ARGUMENT for NULL items or outputs with count > 0 or
/// a negative thread count.
OSC_API osc_status osc_lmd_query_batch(const osc_lmd_batch_item* items, size_t count, const osc_lmd_settings* settings,
                                       osc_lmd_output* outputs, osc_status* statuses, int threads);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_LMD_H
