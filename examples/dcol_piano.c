// dcol_piano.c: push a capsule out of the walls of a hallway with d alpha / d pose. Copy this to start.
//
// Tracy et al. 2023 §IV-A moves a "piano" round the corner of a hallway with the collision constraint
// alpha >= 1 inside a trajectory optimiser. This is that idea in miniature: one pose, plain gradient
// descent. DCOL's alpha is the least uniform scaling of both shapes (each about its own origin) at
// which they touch: alpha < 1 is interpenetration, alpha >= 1 is free.
//
// The hallway, in the plane z = 0, 1 wide, turns left from +x to +y at the origin; its walls are
// three boxes (south, east, and the inner corner block). The piano, a capsule of radius 0.1 and
// length 1.2 (half-length 0.6, its axis the body z axis, laid flat), starts jammed into the corner,
// poking into the south and east walls. We minimise
//
//     f(pose) = sum over walls of max(0, margin - alpha)^2,   margin = 1.05,
//
// over the capsule's twist xi = (dp, dtheta) (the last 6 of osc_dcol_alpha_gradient's 12 numbers,
// the capsule being body B), with a backtracking step size, until every alpha >= 1. Like any
// local method on a penalty it can stall where the pushes of two walls cancel (try starting the
// piano exactly parallel to a wall); a planner would add a goal term or random restarts.
//
//   usage: dcol_piano          (exit status 0 when the piano ends free of every wall)

#include "osculate/osculate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                                                      \
    do {                                                                                                               \
        if ((call) != OSC_OK) {                                                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                                               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

enum { WALLS = 3, MAX_ITERATIONS = 200 };

static const double margin = 1.05;  // aim a little beyond touching
static const double max_step = 0.1; // largest twist (m or rad) taken in one step

/// The scene: the walls (bodies A) at their poses and the piano (body B).
typedef struct scene {
    osc_convex* walls[WALLS];
    osc_pose wall_poses[WALLS];
    osc_convex* piano;
} scene;

/// Evaluates f at the piano's pose, its gradient over the piano's twist (NULL: skip) and alpha of
/// every wall. Returns OSC_OK or the first failing query's status.
static osc_status cost(const scene* s, osc_pose piano, double* f, double grad[6], double alpha[WALLS]) {
    *f = 0.0;
    if (grad)
        for (int k = 0; k < 6; ++k) grad[k] = 0.0;
    for (int w = 0; w < WALLS; ++w) {
        double g[12]; // d alpha / d(xi_wall, xi_piano)
        osc_status status = osc_dcol_alpha_gradient(s->walls[w], s->wall_poses[w], s->piano, piano, NULL, &alpha[w], g);
        if (status != OSC_OK) return status;
        double violation = margin - alpha[w];
        if (violation <= 0.0) continue;
        *f += violation * violation;
        if (grad)
            for (int k = 0; k < 6; ++k) grad[k] -= 2.0 * violation * g[6 + k];
    }
    return OSC_OK;
}

/// Returns the piano's heading in the plane: the angle of its axis (body z), in degrees.
static double heading(osc_pose pose) {
    osc_vec3 axis = osc_quat_rotate(pose.q, osc_v3(0.0, 0.0, 1.0));
    return atan2(axis.y, axis.x) * 180.0 / acos(-1.0);
}

static double min_alpha(const double alpha[WALLS]) {
    double m = alpha[0];
    for (int w = 1; w < WALLS; ++w) m = alpha[w] < m ? alpha[w] : m;
    return m;
}

/// Checks the analytic gradient of one pair against central differences of alpha along each of
/// the piano's six twist directions; returns the largest difference, or -1 on failure.
static double check_gradient(const scene* s, int w, osc_pose piano) {
    double alpha, g[12], worst = 0.0;
    const double h = 1e-6;
    if (osc_dcol_alpha_gradient(s->walls[w], s->wall_poses[w], s->piano, piano, NULL, &alpha, g) != OSC_OK) return -1.0;
    for (int k = 0; k < 6; ++k) {
        double xi[6] = {0.0}, plus, minus, unused[12];
        xi[k] = h;
        osc_pose forward = osc_pose_apply_twist(piano, xi);
        xi[k] = -h;
        osc_pose backward = osc_pose_apply_twist(piano, xi);
        if (osc_dcol_alpha_gradient(s->walls[w], s->wall_poses[w], s->piano, forward, NULL, &plus, unused) != OSC_OK ||
            osc_dcol_alpha_gradient(s->walls[w], s->wall_poses[w], s->piano, backward, NULL, &minus, unused) != OSC_OK)
            return -1.0;
        double error = fabs((plus - minus) / (2.0 * h) - g[6 + k]);
        worst = error > worst ? error : worst;
    }
    return worst;
}

int main(void) {
    // 1. the hallway: boxes given by half extents, placed by their centres (walls 2 high)
    static const char* names[WALLS] = {"south", "east", "corner"};
    const osc_vec3 half[WALLS] = {{2.0, 0.25, 1.0}, {0.25, 2.25, 1.0}, {1.25, 1.25, 1.0}};
    const osc_vec3 centre[WALLS] = {{-1.25, -0.75, 0.0}, {0.75, 1.25, 0.0}, {-1.75, 1.75, 0.0}};
    scene s = {0};
    for (int w = 0; w < WALLS; ++w) {
        TRY(osc_convex_create_box(half[w], &s.walls[w]));
        s.wall_poses[w] = osc_pose_make(centre[w], osc_quat_identity());
    }

    // 2. the piano: a capsule along its body z axis, laid flat by a quarter turn about y (z onto x),
    // then turned 20 degrees about the vertical, jammed into the corner
    TRY(osc_convex_create_capsule(0.1, 0.6, &s.piano));
    const double pi = acos(-1.0);
    osc_quat flat = osc_quat_from_axis_angle(osc_v3(0.0, 1.0, 0.0), 0.5 * pi);
    osc_quat turned = osc_quat_from_axis_angle(osc_v3(0.0, 0.0, 1.0), 20.0 * pi / 180.0);
    osc_pose piano = osc_pose_make(osc_v3(0.15, -0.3, 0.0), osc_quat_mul(turned, flat));

    // 3. before optimising, check d alpha / d xi_piano against finite differences for each wall
    for (int w = 0; w < WALLS; ++w) {
        double error = check_gradient(&s, w, piano);
        if (error < 0.0) {
            fprintf(stderr, "gradient check failed: %s\n", osc_last_error());
            return 1;
        }
        printf("gradient check, %-6s wall: max |analytic - finite difference| = %.1e\n", names[w], error);
    }

    // 4. gradient descent with backtracking: halve the step until f decreases, grow it after success
    double f, grad[6], alpha[WALLS], t = 1.0;
    int iteration = 0;
    TRY(cost(&s, piano, &f, grad, alpha));
    printf("iter  min alpha  f          x        y        z        heading\n");
    for (; iteration < MAX_ITERATIONS && min_alpha(alpha) < 1.0; ++iteration) {
        printf("%4d  %.5f  %.3e  %+.4f  %+.4f  %+.4f  %+7.2f\n", iteration, min_alpha(alpha), f, piano.p.x, piano.p.y,
               piano.p.z, heading(piano));
        double norm = 0.0;
        for (int k = 0; k < 6; ++k) norm += grad[k] * grad[k];
        norm = sqrt(norm);
        if (!(norm > 0.0)) break;                     // a stationary point inside a wall: give up
        if (t * norm > max_step) t = max_step / norm; // never move further than max_step at once
        double f_new = f, alpha_new[WALLS];
        osc_pose trial = piano;
        for (int tries = 0; tries < 30; ++tries, t *= 0.5) {
            double xi[6];
            for (int k = 0; k < 6; ++k) xi[k] = -t * grad[k];
            trial = osc_pose_apply_twist(piano, xi);
            TRY(cost(&s, trial, &f_new, NULL, alpha_new));
            if (f_new <= f - 1e-4 * t * norm * norm) break; // Armijo: enough decrease
        }
        if (!(f_new < f)) break; // no step decreases f
        piano = trial;
        t *= 2.0;
        TRY(cost(&s, piano, &f, grad, alpha));
    }

    // 5. the result
    int free = min_alpha(alpha) >= 1.0;
    printf("%s after %d iterations\n", free ? "free" : "NOT free", iteration);
    printf("final pose: p = (%+.4f, %+.4f, %+.4f), q = (%.4f, %.4f, %.4f, %.4f), heading %+.2f deg\n", piano.p.x,
           piano.p.y, piano.p.z, piano.q.w, piano.q.x, piano.q.y, piano.q.z, heading(piano));
    for (int w = 0; w < WALLS; ++w) printf("  alpha(%-6s) = %.5f\n", names[w], alpha[w]);

    for (int w = 0; w < WALLS; ++w) osc_convex_destroy(s.walls[w]);
    osc_convex_destroy(s.piano);
    return free ? 0 : 1;
}
