// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// lmd_internal.h: the footpoint stage of the local-minimal-distance query (lmd_footpoint.c), shared
// with the traversal (lmd.c).

#ifndef OSC_LMD_INTERNAL_H
#define OSC_LMD_INTERNAL_H

#include "brep_internal.h"
#include "osculate/lmd.h"

/// One body of the query: the solid, its pose and the rotation matrix of the pose.
typedef struct lmd_body {
    const osc_brep* brep;
    osc_pose pose;
    osc_mat3 rotation;
} lmd_body;

/// The footpoint problem of one leaf pair.
typedef struct lmd_job {
    int leaf_a, leaf_b;
    int has_warm;   ///< 1: start Newton at `warm`
    int whole;      ///< 1 (2): A's (B's) face leaf stands for its whole supermaximal face
                    ///< (osc_lmd_pair_group), searched against the other leaf's edge or vertex
    double warm[4]; ///< parameters (A's then B's)
} lmd_job;

/// What one leaf pair produced.
typedef struct lmd_job_result {
    int count;     ///< contacts written to its slots
    int converged; ///< Newton converged (then `x` is worth caching)
    int iterations;
    double x[4];
} lmd_job_result;

/// Computes the contacts of one leaf pair into `out` [slots]; settings already checked.
void osc_lmd_solve_pair(const lmd_body* a, const lmd_body* b, const osc_lmd_settings* settings, const lmd_job* job,
                        osc_lmd_contact* out, int slots, lmd_job_result* result);

/// Which side of a leaf pair may be searched as its whole supermaximal face: 2 when B's leaf is a
/// face on a canonical surface of a model with supermaximal features and A's an edge or vertex
/// leaf whose start points all have a smooth distance to that surface (then the search depends
/// only on A's leaf and B's surface: docs/lmd.md, "Supermaximal features"), 1 for the mirror case,
/// 0 otherwise.
int osc_lmd_pair_group(const lmd_body* a, const lmd_body* b, int leaf_a, int leaf_b);

#endif // OSC_LMD_INTERNAL_H
