// test_conic.c: the cone solver of src/conic.h on its own, on small problems whose answers are
// known in closed form:
//   - a box LP, min x_k over [-1, 1]^n: the central point of barrier mu is x_k = mu - sqrt(mu^2 + 1),
//     the other coordinates 0 (per coordinate, mu / (1 - x) - mu / (1 + x) = -1);
//   - a ball, min x_0 over |x - c| <= r (one cone of dimension 4): the central point is
//     x = c - tau e_0 with tau^2 + mu tau - r^2 = 0 (G^T z = -c with z = mu J s / (s^T J s));
//   - the distance from a point to a half-plane as an SOCP, and the lowest point of two
//     intersecting balls: the optimum is known, and the objective at the central point exceeds it
//     by at most the duality gap s . z = degree mu (weak duality);
//   - the central-path property at the stopping barrier for every solve: s = h - G x, G^T z + c = 0
//     and lambda o lambda = mu e (lambda = W z, recomputed here by the Nesterov-Todd formulas) to
//     the solver's tolerances;
//   - the start from an exact optimum (conic_offset_start, conic_centre_flat) against the same
//     closed forms;
//   - an infeasible problem, which the solver (it has no certificates) ends with
//     OSC_ERR_NOT_CONVERGED within its iteration limit, and an unbounded one, which has no central
//     point and never ends at a plausible answer (conic.h);
//   - the size limits, refused with OSC_ERR_INVALID_ARGUMENT and a message naming the field.

#include "conic.h"
#include "test_common.h"

#include <osculate/osculate.h>

// ---------------------------------------------------------------------------------------------
// building problems

static void problem_init(conic_problem* p, int variables, int objective) {
    memset(p, 0, sizeof *p);
    p->variables = variables;
    p->objective = objective;
}

// the orthant row g . x <= h (s = h - g . x >= 0); orthant rows come before any cone
static void add_row(conic_problem* p, const double* g, double h) {
    int i = p->orthant_rows++;
    for (int j = 0; j < p->variables; ++j) p->G[i][j] = g[j];
    p->h[i] = h;
    p->rows = p->orthant_rows;
}

// -1 <= x_j <= 1 for every j
static void add_box(conic_problem* p, double half) {
    for (int j = 0; j < p->variables; ++j) {
        double g[CONIC_MAX_VARIABLES] = {0};
        g[j] = 1.0;
        add_row(p, g, half);
        g[j] = -1.0;
        add_row(p, g, half);
    }
}

// the cone h - G x in Q^dim with rows g[dim][n]
static void add_cone(conic_problem* p, int dim, double g[][CONIC_MAX_VARIABLES], const double* h) {
    int start = p->rows;
    for (int i = 0; i < dim; ++i) {
        for (int j = 0; j < p->variables; ++j) p->G[start + i][j] = g[i][j];
        p->h[start + i] = h[i];
    }
    p->cone_dim[p->cone_count++] = dim;
    p->rows += dim;
}

// |(x_first, x_first + 1, x_first + 2) - centre| <= radius: s = (radius, x - centre)
static void add_ball(conic_problem* p, int first, const double centre[3], double radius) {
    double g[4][CONIC_MAX_VARIABLES] = {{0}}, h[4] = {radius, -centre[0], -centre[1], -centre[2]};
    for (int i = 0; i < 3; ++i) g[1 + i][first + i] = -1.0;
    add_cone(p, 4, g, h);
}

// ---------------------------------------------------------------------------------------------
// the central-path property

// lambda = W z on one cone by the Nesterov-Todd scaling (CVXOPT's conelp, section 4.2): s and z
// normalised by sqrt(x^T J x), wbar = (sbar + J zbar) / (2 gamma) with gamma = sqrt((1 + sbar . zbar)
// / 2), W = eta Wbar, eta = (s^T J s / z^T J z)^(1/4), Wbar = [w0 w1^T; w1 I + w1 w1^T / (1 + w0)]
static void nt_lambda(const double* s, const double* z, int dim, double* lambda) {
    double qs = s[0] * s[0], qz = z[0] * z[0], sz = 0.0;
    for (int i = 1; i < dim; ++i) {
        qs -= s[i] * s[i];
        qz -= z[i] * z[i];
    }
    for (int i = 0; i < dim; ++i) sz += s[i] * z[i];
    double ns = sqrt(qs), nz = sqrt(qz), gamma = sqrt(0.5 * (1.0 + sz / (ns * nz))), w[CONIC_MAX_CONE_DIM];
    w[0] = (s[0] / ns + z[0] / nz) / (2.0 * gamma);
    for (int i = 1; i < dim; ++i) w[i] = (s[i] / ns - z[i] / nz) / (2.0 * gamma);
    double eta = sqrt(ns / nz), w1z1 = 0.0;
    for (int i = 1; i < dim; ++i) w1z1 += w[i] * z[i];
    lambda[0] = eta * (w[0] * z[0] + w1z1);
    for (int i = 1; i < dim; ++i) lambda[i] = eta * (z[i] + w[i] * (z[0] + w1z1 / (1.0 + w[0])));
}

// The central-path property of the solver's stopping rule at the returned iterate: |r_z|_inf (the
// slack against h - G x), |r_x|_inf relative to max(1, |G|^T |z|), and the excess of
// |lambda o lambda - mu e|_inf (lambda = W z, sqrt(s_i z_i) on the orthant) over its tolerance
// max(1e-9 mu, 1e-12 max(1, |s|_inf |z|_inf)), as a multiple of that tolerance
static void central_residuals(const conic_problem* p, const conic_state* state, double mu, double* primal, double* dual,
                              double* centrality) {
    double s[CONIC_MAX_ROWS], s_size = 0.0, z_size = 0.0;
    conic_primal_slack(p, state->x, s);
    *primal = *dual = *centrality = 0.0;
    for (int i = 0; i < p->rows; ++i) {
        *primal = fmax(*primal, fabs(state->s[i] - s[i]));
        s_size = fmax(s_size, fabs(state->s[i]));
        z_size = fmax(z_size, fabs(state->z[i]));
    }
    for (int j = 0; j < p->variables; ++j) {
        double r = j == p->objective ? 1.0 : 0.0, terms = 1.0;
        for (int i = 0; i < p->rows; ++i) {
            r += p->G[i][j] * state->z[i];
            terms += fabs(p->G[i][j] * state->z[i]);
        }
        *dual = fmax(*dual, fabs(r) / terms);
    }
    double tolerance = fmax(1e-9 * mu, 1e-12 * fmax(1.0, s_size * z_size)), off = 0.0;
    for (int i = 0; i < p->orthant_rows; ++i) off = fmax(off, fabs(state->s[i] * state->z[i] - mu));
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++]) {
        double lambda[CONIC_MAX_CONE_DIM], square = 0.0;
        nt_lambda(state->s + start, state->z + start, p->cone_dim[k], lambda);
        for (int i = 0; i < p->cone_dim[k]; ++i) square += lambda[i] * lambda[i];
        off = fmax(off, fabs(square - mu));
        for (int i = 1; i < p->cone_dim[k]; ++i) off = fmax(off, fabs(2.0 * lambda[0] * lambda[i]));
    }
    *centrality = off / tolerance;
}

// solves p at barrier mu from x = 0 and checks the central-path property: the iterate's slack is
// h - G x and G^T z = -c to 1e-9 (the stopping rule's tolerances) and lambda o lambda = mu e to
// its tolerance (with 1 % for the rounding of lambda recomputed here)
static void solve_central(const conic_problem* p, double mu, conic_state* state, const char* name) {
    memset(state, 0, sizeof *state);
    CHECK_STATUS(conic_solve(p, mu, 60, 1e-16, false, false, state), OSC_OK);
    double primal, dual, centrality;
    central_residuals(p, state, mu, &primal, &dual, &centrality);
    CHECK_MSG(primal <= 1e-9 && dual <= 1e-9 && centrality <= 1.01,
              "%s at mu %g: primal %.3g, dual %.3g, centrality %.3g of its tolerance (%d iterations)", name, mu, primal,
              dual, centrality, state->iterations);
    CHECK_MSG(conic_violation(p, state->x) < 0.0, "%s at mu %g: the iterate is not strictly inside", name, mu);
}

static const double BARRIERS[] = {1e-2, 1e-4, 1e-6, 1e-8, 1e-10};
enum { BARRIER_COUNT = sizeof BARRIERS / sizeof BARRIERS[0] };

// ---------------------------------------------------------------------------------------------
// closed-form central points

// min x_k over [-1, 1]^n for n = 1 .. CONIC_MAX_VARIABLES (below 4 the solver runs with n a
// variable, from 4 with its loops unrolled)
static void test_box_lp(void) {
    double worst = 0.0;
    for (int n = 1; n <= CONIC_MAX_VARIABLES; ++n)
        for (int b = 0; b < BARRIER_COUNT; ++b) {
            double mu = BARRIERS[b];
            int k = n / 2;
            conic_problem p;
            problem_init(&p, n, k);
            add_box(&p, 1.0);
            conic_set_columns(&p);
            conic_state state;
            solve_central(&p, mu, &state, "box");
            for (int j = 0; j < n; ++j) {
                double expected = j == k ? mu - sqrt(mu * mu + 1.0) : 0.0;
                worst = fmax(worst, fabs(state.x[j] - expected));
                CHECK_MSG(fabs(state.x[j] - expected) <= 1e-8, "n %d mu %g: x_%d = %.17g, expected %.17g", n, mu, j,
                          state.x[j], expected);
            }
        }
    printf("  box LPs of 1 to %d variables, barriers 1e-2 to 1e-10: largest error of x %.2g\n", CONIC_MAX_VARIABLES,
           worst);
}

// min x_0 over |x - c| <= r in R^3, alone (3 variables) and with a box on 5 more (8 variables)
static void test_ball_socp(void) {
    const double centre[3] = {0.3, -0.2, 0.7}, r = 0.8;
    double worst = 0.0;
    for (int extra = 0; extra <= 5; extra += 5)
        for (int b = 0; b < BARRIER_COUNT; ++b) {
            double mu = BARRIERS[b];
            conic_problem p;
            problem_init(&p, 3 + extra, 0);
            for (int j = 3; j < 3 + extra; ++j) {
                double g[CONIC_MAX_VARIABLES] = {0};
                g[j] = 1.0;
                add_row(&p, g, 1.0);
                g[j] = -1.0;
                add_row(&p, g, 1.0);
            }
            add_ball(&p, 0, centre, r);
            conic_set_columns(&p);
            conic_state state;
            solve_central(&p, mu, &state, "ball");
            double tau = 0.5 * (-mu + sqrt(mu * mu + 4.0 * r * r));
            double expected[3] = {centre[0] - tau, centre[1], centre[2]};
            for (int j = 0; j < 3 + extra; ++j) {
                double want = j < 3 ? expected[j] : 0.0;
                worst = fmax(worst, fabs(state.x[j] - want));
                CHECK_MSG(fabs(state.x[j] - want) <= 1e-8, "%d variables, mu %g: x_%d = %.17g, expected %.17g",
                          3 + extra, mu, j, state.x[j], want);
            }
        }
    printf("  a ball in R^3 (3 and 8 variables), barriers 1e-2 to 1e-10: largest error of x %.2g\n", worst);
}

// ---------------------------------------------------------------------------------------------
// known optima, within the duality gap

// the distance from a = (0, 0.3) to the half-plane x >= 1: min t subject to |(x, y) - a| <= t
// (a cone of dimension 3) and x >= 1; the optimum is t = 1 at (1, 0.3)
static void test_distance_socp(void) {
    for (int b = 0; b < BARRIER_COUNT; ++b) {
        double mu = BARRIERS[b];
        conic_problem p;
        problem_init(&p, 3, 0); // (t, x, y)
        double row[CONIC_MAX_VARIABLES] = {0.0, -1.0, 0.0};
        add_row(&p, row, -1.0); // s = x - 1
        double g[3][CONIC_MAX_VARIABLES] = {{-1.0, 0.0, 0.0}, {0.0, -1.0, 0.0}, {0.0, 0.0, -1.0}},
               h[3] = {0.0, 0.0, -0.3};
        add_cone(&p, 3, g, h); // s = (t, x - 0, y - 0.3)
        conic_set_columns(&p);
        conic_state state;
        solve_central(&p, mu, &state, "distance");
        double gap = 0.0, size = 0.0;
        for (int i = 0; i < p.rows; ++i) {
            gap += state.s[i] * state.z[i];
            size = fmax(size, fabs(state.s[i])) * fmax(1.0, fabs(state.z[i]));
        }
        CHECK_MSG(fabs(gap - 2.0 * mu) <= 2.0 * fmax(1e-9 * mu, 1e-12 * fmax(1.0, size)),
                  "mu %g: gap %.17g, expected 2 mu", mu, gap);
        CHECK_MSG(state.x[0] >= 1.0 - 1e-9 && state.x[0] - 1.0 <= gap + 1e-9, "mu %g: t = %.17g, optimum 1, gap %.3g",
                  mu, state.x[0], gap);
        CHECK_MSG(fabs(state.x[1] - 1.0) <= 2.1 * sqrt(mu) && fabs(state.x[2] - 0.3) <= 2.1 * sqrt(mu),
                  "mu %g: (x, y) = (%.17g, %.17g), optimum (1, 0.3)", mu, state.x[1], state.x[2]);
    }
}

// the lowest x_0 over two intersecting balls (two cones), with the boxes |x_1| <= 5 and |x_2| <= 5
// as two orthant groups of different columns: the optimum -0.5 is where the second ball's
// boundary crosses the x_0 axis
static void test_two_balls(void) {
    for (int b = 0; b < BARRIER_COUNT; ++b) {
        double mu = BARRIERS[b];
        conic_problem p;
        problem_init(&p, 3, 0);
        for (int j = 1; j < 3; ++j) {
            double g[CONIC_MAX_VARIABLES] = {0};
            g[j] = 1.0;
            add_row(&p, g, 5.0);
            g[j] = -1.0;
            add_row(&p, g, 5.0);
        }
        p.orthant_groups = 2;
        p.orthant_group_end[0] = 2;
        p.orthant_group_end[1] = 4;
        const double first[3] = {0.0, 0.0, 0.0}, second[3] = {0.5, 0.0, 0.0};
        add_ball(&p, 0, first, 1.0);
        add_ball(&p, 0, second, 1.0);
        conic_set_columns(&p);
        CHECK(p.group_columns[0] == 2u && p.group_columns[1] == 4u && p.cone_columns[0] == 7u);
        conic_state state;
        solve_central(&p, mu, &state, "two balls");
        double gap = 0.0;
        for (int i = 0; i < p.rows; ++i) gap += state.s[i] * state.z[i];
        CHECK_MSG(state.x[0] >= -0.5 - 1e-9 && state.x[0] + 0.5 <= gap + 1e-9, "mu %g: x_0 = %.17g, optimum -0.5", mu,
                  state.x[0]);
    }
}

// ---------------------------------------------------------------------------------------------
// the start from an exact optimum

// From the exact optimum of the box LP (x_0 = -1: a vertex when n = 1, on a face otherwise) the
// offset start lands within O(mu^2) of the central point, and the solve from it at the barrier
// reaches the closed form in at most 2 iterations. Started anywhere on the face, where the face's
// multiplier is strong (above 1e6 mu), conic_centre_flat moves the other coordinates to the face's
// centre, 0, the central point's, to the resolution of its minimiser (its predicted gain below
// 1e-12); the solve keeps them there, since along the face the stopping rule's dual tolerance
// 1e-9 allows an offset of 1e-9 / (2 mu), more than the face itself at mu = 1e-9.
static void test_offset_start(void) {
    for (int n = 1; n <= 5; n += 4)
        for (int b = 1; b < BARRIER_COUNT; ++b) {
            double mu = BARRIERS[b], central = mu - sqrt(mu * mu + 1.0);
            bool flat = n > 1 && mu < 1e-7;
            conic_problem p;
            problem_init(&p, n, 0);
            add_box(&p, 1.0);
            conic_set_columns(&p);
            conic_state state;
            memset(&state, 0, sizeof state);
            state.x[0] = -1.0;
            for (int j = 1; j < n && flat; ++j) state.x[j] = 0.1 * j; // anywhere on the face
            CHECK(conic_offset_start(&p, mu, 1e-9, state.x, state.s, state.z));
            CHECK_MSG(fabs(state.x[0] - central) <= 2.0 * mu * mu, "n %d mu %g: offset start %.17g, central %.17g", n,
                      mu, state.x[0], central);
            if (flat) {
                // (the active gap takes in the face's row at its central offset, about mu; the
                // minimiser stops where its predicted gain is below rounding, 1e-12: |x_j| ~ 1e-6)
                CHECK(conic_centre_flat(&p, mu, 10.0 * mu, state.x, state.s, state.z));
                for (int j = 1; j < n; ++j)
                    CHECK_MSG(fabs(state.x[j]) <= 1e-5, "n %d mu %g: x_%d = %g after centring", n, mu, j, state.x[j]);
            }
            CHECK_STATUS(conic_solve(&p, mu, 60, 1e-16, true, false, &state), OSC_OK);
            CHECK_MSG(state.iterations <= 2, "n %d mu %g: %d iterations from the start", n, mu, state.iterations);
            double primal, dual, centrality;
            central_residuals(&p, &state, mu, &primal, &dual, &centrality);
            CHECK_MSG(primal <= 1e-9 && dual <= 1e-9 && centrality <= 1.01, "n %d mu %g: %.3g %.3g %.3g", n, mu, primal,
                      dual, centrality);
            CHECK_MSG(fabs(state.x[0] - central) <= 1e-8, "n %d mu %g: x_0 = %.17g, central %.17g", n, mu, state.x[0],
                      central);
            for (int j = 1; j < n; ++j)
                CHECK_MSG(fabs(state.x[j]) <= (flat ? 1e-5 : 1e-12), "n %d mu %g: x_%d = %.17g", n, mu, j, state.x[j]);
        }
}

// ---------------------------------------------------------------------------------------------
// problems without a central point

// x_0 >= 1 and x_0 <= -1: infeasible. The solver, without certificates, stops with
// OSC_ERR_NOT_CONVERGED ("no convergence") within its iteration limit, with or without keep_best.
// min x_0 subject to x_0 <= 1 alone: unbounded, no central point. Its iterates diverge, and the
// solve ends either so or, as conic.h says, with OSC_OK at an iterate far beyond the data's scale
// (here OSC_OK at x_0 near -3e18), never at a plausible answer; bounded by x_0 >= -1e6 it has a
// central point, the box's closed form moved to [-1e6, 1]
static void test_infeasible_unbounded(void) {
    for (int which = 0; which < 2; ++which)
        for (int keep = 0; keep < 2; ++keep) {
            conic_problem p;
            problem_init(&p, 2, 0);
            double up[CONIC_MAX_VARIABLES] = {1.0, 0.0}, down[CONIC_MAX_VARIABLES] = {-1.0, 0.0};
            if (which == 0) {
                add_row(&p, down, -1.0); // x_0 >= 1
                add_row(&p, up, -1.0);   // x_0 <= -1
            } else {
                add_row(&p, up, 1.0); // x_0 <= 1
            }
            double y_up[CONIC_MAX_VARIABLES] = {0.0, 1.0}, y_down[CONIC_MAX_VARIABLES] = {0.0, -1.0};
            add_row(&p, y_up, 1.0);
            add_row(&p, y_down, 1.0);
            conic_set_columns(&p);
            conic_state state;
            memset(&state, 0, sizeof state);
            osc_clear_error();
            osc_status status = conic_solve(&p, 1e-8, 40, 1e-16, false, keep != 0, &state);
            bool stopped = status == OSC_ERR_NOT_CONVERGED && strstr(osc_last_error(), "no convergence") != NULL;
            if (which == 0)
                CHECK_MSG(stopped, "infeasible, keep_best %d: status %d, \"%s\"", keep, (int)status, osc_last_error());
            else
                CHECK_MSG(stopped || (status == OSC_OK && fabs(state.x[0]) > 1e12),
                          "unbounded, keep_best %d: status %d, x_0 = %g, \"%s\"", keep, (int)status, state.x[0],
                          osc_last_error());
            CHECK(state.iterations <= 40);
        }
    // bounded below by x_0 >= -L: the central point of min x_0 over [-L, 1] solves
    // mu / (1 - x) - mu / (x + L) = -1, the box's closed form moved to [-L, 1]
    const double L = 1e6, mu = 1e-6;
    conic_problem p;
    problem_init(&p, 1, 0);
    double up[CONIC_MAX_VARIABLES] = {1.0}, down[CONIC_MAX_VARIABLES] = {-1.0};
    add_row(&p, up, 1.0);
    add_row(&p, down, L);
    conic_set_columns(&p);
    conic_state state;
    solve_central(&p, mu, &state, "bounded below");
    double half = 0.5 * (1.0 + L), middle = 0.5 * (1.0 - L), t = mu / half; // x = middle + half u
    double expected = middle + half * (t - sqrt(t * t + 1.0));
    CHECK_MSG(fabs(state.x[0] - expected) <= 1e-9 * L, "bounded below: x_0 = %.17g, expected %.17g", state.x[0],
              expected);
}

// ---------------------------------------------------------------------------------------------
// the size limits

typedef struct limit_case {
    const char* what; // a word of the expected message
    void (*spoil)(conic_problem* p);
} limit_case;

static void no_variables(conic_problem* p) { p->variables = 0; }
static void too_many_variables(conic_problem* p) { p->variables = CONIC_MAX_VARIABLES + 1; }
static void objective_outside(conic_problem* p) { p->objective = p->variables; }
static void too_many_cones(conic_problem* p) { p->cone_count = CONIC_MAX_CONES + 1; }
static void cone_too_small(conic_problem* p) {
    p->cone_dim[0] = 1;
    p->rows = p->orthant_rows + 1;
}
static void cone_too_large(conic_problem* p) {
    p->cone_dim[0] = CONIC_MAX_CONE_DIM + 1;
    p->rows = p->orthant_rows + CONIC_MAX_CONE_DIM + 1;
}
static void rows_inconsistent(conic_problem* p) { p->rows += 1; }
static void too_many_rows(conic_problem* p) {
    p->orthant_rows = CONIC_MAX_ROWS;
    p->rows = CONIC_MAX_ROWS + 4;
}
static void groups_decreasing(conic_problem* p) {
    p->orthant_groups = 2;
    p->orthant_group_end[0] = 4;
    p->orthant_group_end[1] = 2;
}
static void group_short(conic_problem* p) {
    p->orthant_groups = 1;
    p->orthant_group_end[0] = p->orthant_rows - 1;
}
static void too_many_groups(conic_problem* p) { p->orthant_groups = CONIC_MAX_ORTHANT_GROUPS + 1; }
static void mask_beyond(conic_problem* p) { p->cone_columns[0] |= 1u << p->variables; }

static void test_size_limits(void) {
    const limit_case cases[] = {
        {"variables", no_variables},          {"variables", too_many_variables},
        {"objective", objective_outside},     {"cones", too_many_cones},
        {"dimension", cone_too_small},        {"dimension", cone_too_large},
        {"rows", rows_inconsistent},          {"rows", too_many_rows},
        {"orthant group", groups_decreasing}, {"orthant group", group_short},
        {"orthant groups", too_many_groups},  {"mask", mask_beyond},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        conic_problem p;
        problem_init(&p, 3, 0);
        add_box(&p, 1.0);
        const double centre[3] = {0.0, 0.0, 0.0};
        add_ball(&p, 0, centre, 2.0);
        conic_set_columns(&p);
        CHECK_STATUS(conic_check(&p), OSC_OK);
        cases[c].spoil(&p);
        conic_state state;
        memset(&state, 0, sizeof state);
        osc_clear_error();
        osc_status status = conic_solve(&p, 1e-6, 40, 1e-16, false, false, &state);
        const char* message = osc_last_error();
        CHECK_MSG(status == OSC_ERR_INVALID_ARGUMENT && strncmp(message, "cone program: ", 14) == 0 &&
                      strstr(message, cases[c].what) != NULL,
                  "case %zu (%s): status %d, \"%s\"", c, cases[c].what, (int)status, message);
        double x[CONIC_MAX_VARIABLES] = {0}, s[CONIC_MAX_ROWS], z[CONIC_MAX_ROWS];
        CHECK(!conic_offset_start(&p, 1e-6, 1e-9, x, s, z));
    }
}

int main(void) {
    RUN(test_box_lp);
    RUN(test_ball_socp);
    RUN(test_distance_socp);
    RUN(test_two_balls);
    RUN(test_offset_start);
    RUN(test_infeasible_unbounded);
    RUN(test_size_limits);
    return test_finish();
}
