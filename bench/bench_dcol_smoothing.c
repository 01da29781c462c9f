// bench_dcol_smoothing.c: DCOL's smoothing measured (docs/dcol.md §3.4): how far the contact point
// jumps between consecutive samples of a sweep through a parallel-face contact, against the sampling
// step, for each barrier tolerance (osc_dcol_settings.tolerance), with the time of a query at each.
//
// The sweep (the configuration of tests/test_dcol.c's test_smoothness_through_face_face): box A of
// half extents (0.5, 0.5, 0.5) at the identity; box B of half extents (0.4, 0.3, 0.2) centred at
// (0.3, 0.1, 0.75), its bottom face parallel to A's top face 0.05 above it at tilt 0, turned about
// the world y axis by the tilt t. For t < 0 B's bottom face meets A's top face first along one edge,
// for t > 0 along the other, 0.8 apart; at t = 0 the two faces are parallel and the contact is a
// rectangle. The exact optimum's contact point therefore jumps by about 0.4 (half of B's length
// scaled by alpha) at t = 0; the central point at barrier mu moves continuously from one edge to
// the other over a range of tilts that grows with mu.
//
// For each tolerance and each sampling step h (1e-3 ... 1e-8 rad): 201 samples t = k h, k = -100 ..
// 100; the figure is the largest |point_a(t_k+1) - point_a(t_k)| (point_a: the contact point on A,
// eq. (29); Euclidean norm). A continuous point gives a largest jump proportional to h (it falls
// tenfold from one column to the next, at most its largest slope times h); a discontinuous one gives
// the same jump at every h. Time: the median over the 201 poses of the coarsest sweep of the time
// per call (20 calls timed together), without and with all six Jacobian arrays.
//
// JSON (suite "dcol_smoothing"): case "tolerance-<mu>", metrics "jump_step_<h>" (length units),
// "solve_us", "solve_derivs_us", "degenerate" (DEGENERATE flags over the coarsest sweep).
// usage: bench_dcol_smoothing; JSON lines on stdout, a table on stderr.

#include "bench.h"

#include "osculate/osculate.h"

#include <math.h>

#define SUITE "dcol_smoothing"
#define SAMPLES 201
#define REPEATS 20
#define STEPS 6
#define TOLERANCES 9

static void fail(const char* what) {
    fprintf(stderr, "bench_dcol_smoothing: %s: %s\n", what, osc_last_error());
    exit(1);
}

static osc_pose tilted(double tilt) {
    return osc_pose_make(osc_v3(0.3, 0.1, 0.75), osc_quat_from_axis_angle(osc_v3(0.0, 1.0, 0.0), tilt));
}

int main(void) {
    const double tolerances[TOLERANCES] = {1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2};
    const double steps[STEPS] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
    osc_convex *base, *slab;
    if (osc_convex_create_box(osc_v3(0.5, 0.5, 0.5), &base) != OSC_OK) fail("base box");
    if (osc_convex_create_box(osc_v3(0.4, 0.3, 0.2), &slab) != OSC_OK) fail("sliding box");
    static double jacobian_storage[14 * 12];
    double* j = jacobian_storage;
    const osc_dcol_jacobians all = {j, j + 12, j + 48, j + 84, j + 120, j + 132};
    fprintf(stderr, "**DCOL through a parallel-face contact: largest jump of the contact point on A between "
                    "consecutive samples (201 samples of step h), and the time per query**\n\n| tolerance |");
    for (int s = 0; s < STEPS; ++s) fprintf(stderr, " h = %g |", steps[s]);
    fprintf(stderr, " solve us | solve + derivs us | DEGENERATE |\n|---|");
    for (int s = 0; s < STEPS + 3; ++s) fprintf(stderr, "---|");
    fprintf(stderr, "\n");
    for (int m = 0; m < TOLERANCES; ++m) {
        osc_dcol_settings settings = osc_dcol_settings_default();
        settings.tolerance = tolerances[m];
        char name[64];
        snprintf(name, sizeof name, "tolerance-%g", tolerances[m]);
        fprintf(stderr, "| %g%s |", tolerances[m], m == 0 ? " (default)" : "");
        for (int s = 0; s < STEPS; ++s) {
            double largest = 0.0;
            osc_vec3 previous = osc_v3(0.0, 0.0, 0.0);
            for (int k = 0; k < SAMPLES; ++k) {
                osc_dcol_result r;
                double tilt = (k - SAMPLES / 2) * steps[s];
                if (osc_dcol_proximity(base, osc_pose_identity(), slab, tilted(tilt), &settings, &r, NULL, NULL) !=
                    OSC_OK)
                    fail("osc_dcol_proximity");
                if (k > 0) largest = fmax(largest, osc_length(osc_sub(r.point_a, previous)));
                previous = r.point_a;
            }
            char metric[32];
            snprintf(metric, sizeof metric, "jump_step_%g", steps[s]);
            bench_report(SUITE, name, metric, largest, "length");
            fprintf(stderr, " %.2g |", largest);
        }
        // time per query over the coarsest sweep's poses
        double times[2][SAMPLES];
        int degenerate = 0;
        for (int k = 0; k < SAMPLES; ++k) {
            osc_pose pb = tilted((k - SAMPLES / 2) * steps[0]);
            osc_dcol_result r;
            for (int d = 0; d < 2; ++d) {
                const osc_dcol_jacobians* jacobians = d ? &all : NULL;
                osc_dcol_proximity(base, osc_pose_identity(), slab, pb, &settings, &r, jacobians, NULL);
                double start = bench_now();
                for (int c = 0; c < REPEATS; ++c)
                    osc_dcol_proximity(base, osc_pose_identity(), slab, pb, &settings, &r, jacobians, NULL);
                times[d][k] = 1e6 * (bench_now() - start) / REPEATS;
            }
            degenerate += (r.flags & OSC_DCOL_DEGENERATE) != 0;
        }
        double solve = bench_median(times[0], SAMPLES), derivs = bench_median(times[1], SAMPLES);
        bench_report(SUITE, name, "solve_us", solve, "us");
        bench_report(SUITE, name, "solve_derivs_us", derivs, "us");
        bench_report(SUITE, name, "degenerate", degenerate, "count");
        fprintf(stderr, " %.2f | %.2f | %d |\n", solve, derivs, degenerate);
    }
    osc_convex_destroy(base);
    osc_convex_destroy(slab);
    return 0;
}
