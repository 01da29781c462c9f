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

/// A contact found by the footpoint stage, with its job's rank in the traversal (the sort's last
/// key).
typedef struct tagged_contact {
    osc_lmd_contact c;
    size_t job;
} tagged_contact;

/// Sorts `count` contacts by feature pair, then A's footpoint, then job, and merges duplicates
/// (the same features, both footpoints within `tol`) in place; returns how many are left (lmd.c).
size_t osc_lmd_merge_duplicates(tagged_contact* found, size_t count, double tol);

/// OSC_OK when every setting lies in its range, else OSC_ERR_INVALID_ARGUMENT naming `function`
/// and the first setting that does not (lmd.c).
osc_status osc_lmd_check_settings(const char* function, const osc_lmd_settings* settings);

/// A cable (lmd_cable.c) in the query's frame: its Bezier curve as a one-span B-spline with
/// clamped knots (evaluated by brep_nurbs.c), its radius and its static pieces. `geo.nurbs` points
/// into the struct: it is built in place and never copied.
typedef struct lmd_cable {
    osc_nurbs nurbs;
    double knots[2 * OSC_CABLE_MAX_CONTROL_POINTS];
    double cw[4 * OSC_CABLE_MAX_CONTROL_POINTS]; ///< homogeneous control points, weights 1
    osc_geo geo;                                 ///< the curve, identity frame
    double radius;                               ///< the dilation radius
    double scale;                                ///< the control polygon's diameter bound
    int pieces;                                  ///< static pieces (for contact keys)
} lmd_cable;

/// One footpoint problem of a cable query: the piece [t0, t1] of the curve (end -1) or one of its
/// ends (end 0 or 1) against the B-Rep leaf `leaf`; `center` and `reach` bound the piece (an
/// iterate farther than 2 reach from the centre has left it).
typedef struct lmd_cable_job {
    int leaf;
    int end;
    double t0, t1;
    osc_vec3 center;
    double reach;
} lmd_cable_job;

/// Computes the contact of one cable job into `out` [1] (A: the B-Rep, B: the cable); settings
/// already checked.
void osc_lmd_solve_cable_pair(const lmd_body* a, const lmd_cable* cable, const osc_lmd_settings* settings,
                              const lmd_cable_job* job, osc_lmd_contact* out, lmd_job_result* result);

#endif // OSC_LMD_INTERNAL_H
