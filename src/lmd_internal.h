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
    int whole;      ///< 1 (2): A's (B's) face leaf stands for its whole supermaximal face, searched
                    ///< against the other leaf's edge or vertex (docs/lmd.md, "Supermaximal features")
    double warm[4]; ///< parameters (A's then B's)
} lmd_job;

/// What one leaf pair produced.
typedef struct lmd_job_result {
    int count;     ///< contacts written to its slots
    int converged; ///< Newton converged (then `x` is worth caching)
    int iterations;
    int ungrouped; ///< a `whole` search that is not the one-parameter search (a start point off the
                   ///< surface's smooth distance) or a conformal one on a sphere or torus: solved
                   ///< as this leaf pair alone, and the group's other leaf pairs must be too
    double x[4];
} lmd_job_result;

/// Computes the contacts of one leaf pair into `out` [slots]; settings already checked.
void osc_lmd_solve_pair(const lmd_body* a, const lmd_body* b, const osc_lmd_settings* settings, const lmd_job* job,
                        osc_lmd_contact* out, int slots, lmd_job_result* result);

#endif // OSC_LMD_INTERNAL_H
