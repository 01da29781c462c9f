// lmd_scenarios.h: the two insertion scenarios of Crozet 2017 chapter 5 and the second with
// free-form faces (bench_lmd.c has their description and builds the free-form solids), and their
// insertion path, shared by bench_lmd and test_lmd_supermax.

#ifndef OSC_LMD_SCENARIOS_H
#define OSC_LMD_SCENARIOS_H

#include <math.h>
#include <stddef.h>

#include "osculate/math.h"

static const double lmd_scenario_pi = 3.14159265358979323846;

typedef struct lmd_scenario {
    const char* name;
    const double* peg; // (r, z) profile of the peg, tip at z = 0, upward
    int peg_count;
    const double* hole; // (r, z) profile of the hole in the block frame, from the top down
    int hole_count;
    osc_vec3 block_half;
    double clearance, chordal_error, d_max;
    double inserted_z; // world z of the peg's profile origin (its tip) at full insertion
    // free-form variant: these profile segments (from point k to k + 1) become NURBS blends
    // (NULL / 0: the canonical solids of osc_brep_create_revolved and _block_with_hole)
    const int* peg_blends;
    int peg_blend_count;
    const int* hole_blends;
    int hole_blend_count;
} lmd_scenario;

// scenario 1: conical tip, four grooves with conical flanks, collar (23 faces); hole radius 25,
// clearance 0.25
static const double peg1[] = {0,    0,  6,    0,  24.75, 30, 24.75, 40,  23.5, 41,  23.5, 43,  24.75, 44,  24.75, 54,
                              23.5, 55, 23.5, 57, 24.75, 58, 24.75, 68,  23.5, 69,  23.5, 71,  24.75, 72,  24.75, 82,
                              23.5, 83, 23.5, 85, 24.75, 86, 24.75, 100, 35,   100, 35,   120, 20,    130, 0,     130};
// block top at z = 70; at full insertion the tip is at -29 (the collar 1 mm above the top); the
// tip cone's wall is offset outward by the clearance in radius
static const double hole1[] = {35, 70, 25, 60, 25, 1, 6.25, -29, 6.25, -35, 0, -35};

// scenario 2: hotstab of diameter 40 (10 faces)
static const double peg2[] = {0, 0, 8, 0, 14, 8, 14, 40, 17, 44, 17, 80, 20, 84, 20, 130, 30, 130, 30, 150, 0, 150};
// block top at z = 80; at full insertion the tip is at -49.5 (the collar 0.5 mm above the top)
static const double hole2[] = {21.5, 80, 20.1, 78.6, 20.1, 34.5, 17.1, 30.5, 17.1, -5.5, 14.1, -9.5, 14.1, -52, 0, -52};

// scenario 2 with free-form faces: the tip, the two transitions and the entry become G1 blends
static const int peg2_blends[] = {1, 3, 5}, hole2_blends[] = {0, 2, 4};

// The pose (world from the peg's profile) at step `step` of `steps` along the insertion path, with
// the wobble scaled by `wobble`; `phase`: 0 insertion, 1 turning at full insertion, 2 extraction.
static osc_pose lmd_path_pose(const lmd_scenario* s, int step, int steps, double wobble, int* phase) {
    double t = (double)step / (steps - 1);
    double start = s->block_half.z + 5.0, depth = start - s->inserted_z;
    double z, spin = 0;
    if (t < 0.45) {
        z = start - depth * t / 0.45;
        *phase = 0;
    } else if (t < 0.55) {
        z = s->inserted_z;
        spin = 3.0 * lmd_scenario_pi / 180 * sin(2 * lmd_scenario_pi * (t - 0.45) / 0.1);
        *phase = 1;
    } else {
        z = s->inserted_z + depth * (t - 0.55) / 0.45;
        *phase = 2;
    }
    double offset_x = 2.0 * wobble * sin(2 * lmd_scenario_pi * 3.0 * t);
    double offset_y = 1.4 * wobble * cos(2 * lmd_scenario_pi * 2.0 * t);
    double tilt = 0.02 * wobble * sin(2 * lmd_scenario_pi * 5.0 * t + 0.7);
    osc_vec3 tilt_axis = osc_v3(cos(2 * lmd_scenario_pi * t), sin(2 * lmd_scenario_pi * t), 0);
    osc_quat q =
        osc_quat_mul(osc_quat_from_axis_angle(tilt_axis, tilt), osc_quat_from_axis_angle(osc_v3(0, 0, 1), spin));
    return osc_pose_make(osc_v3(offset_x, offset_y, z), q);
}

// The scenarios: the thesis' two with canonical faces first, then hotstab_nurbs.
enum { LMD_SCENARIO_COUNT = 3 };
static const lmd_scenario lmd_scenarios[LMD_SCENARIO_COUNT] = {
    {"peg_1pct",
     peg1,
     (int)(sizeof peg1 / sizeof *peg1 / 2),
     hole1,
     (int)(sizeof hole1 / sizeof *hole1 / 2),
     {45, 45, 70},
     0.25,
     0.25,
     2.5,
     -29.0,
     NULL,
     0,
     NULL,
     0},
    {"hotstab",
     peg2,
     (int)(sizeof peg2 / sizeof *peg2 / 2),
     hole2,
     (int)(sizeof hole2 / sizeof *hole2 / 2),
     {45, 45, 80},
     0.1,
     0.1,
     1.0,
     -49.5,
     NULL,
     0,
     NULL,
     0},
    {"hotstab_nurbs",
     peg2,
     (int)(sizeof peg2 / sizeof *peg2 / 2),
     hole2,
     (int)(sizeof hole2 / sizeof *hole2 / 2),
     {45, 45, 80},
     0.1,
     0.1,
     1.0,
     -49.5,
     peg2_blends,
     (int)(sizeof peg2_blends / sizeof *peg2_blends),
     hole2_blends,
     (int)(sizeof hole2_blends / sizeof *hole2_blends)},
};

#endif // OSC_LMD_SCENARIOS_H
