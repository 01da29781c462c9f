// conic.h: a dense primal-dual interior-point solver for small cone programs
//     minimize x[objective]  subject to  h - G x in K = R+^orthant x Q^d1 x Q^d2
// (Tracy et al. 2023 eq. (1), CVXOPT's conelp without equality constraints), with Nesterov-Todd scaling
// and Mehrotra's predictor-corrector, stopping on the central path at a given barrier parameter.
// Everything lives in the caller's structs: no allocation. The iteration is in conic.c, the start
// next to a central point from an exact optimum in conic_start.c, the normal system split by
// stiffness in conic_stiff.c (docs/dcol.md §§3-4: DCOL is its user). Never installed.

#ifndef OSC_CONIC_H
#define OSC_CONIC_H

#include "osculate/base.h"

#include <stdbool.h>

// The solver's limits (conic_check refuses a problem beyond them)
enum {
    CONIC_MAX_VARIABLES = 8, // columns of G (each a bit of the column masks; the iteration is compiled per count)
    CONIC_MAX_ROWS = 136,    // rows of G: the orthant rows and the cones' dimensions
    CONIC_MAX_CONES = 2,     // second-order cones, after the orthant rows
    CONIC_MIN_CONE_DIM = 2,
    CONIC_MAX_CONE_DIM = 4,
    CONIC_MAX_ORTHANT_GROUPS = 2,
    CONIC_MAX_SEGMENTS = CONIC_MAX_ORTHANT_GROUPS + CONIC_MAX_CONES,
    CONIC_SOLVE_MANY_MAX = 12 // right-hand sides of one conic_factor_solve_many
};

typedef struct conic_problem {
    int variables;
    int orthant_rows;
    // the orthant rows in up to CONIC_MAX_ORTHANT_GROUPS consecutive groups (their ends, non-
    // decreasing, the last at orthant_rows; 0 groups: one), each with its own set of non-zero
    // columns (rows that involve different variables, as two bodies' rows in DCOL)
    int orthant_groups;
    int orthant_group_end[CONIC_MAX_ORTHANT_GROUPS];
    int cone_count;
    int cone_dim[CONIC_MAX_CONES];
    int rows; // orthant_rows + the cone dimensions
    // bit j set when column j is non-zero in some row of each orthant group (then of each cone),
    // written with G by the caller (or by conic_set_columns): the structure the normal matrix is
    // accumulated over
    unsigned group_columns[CONIC_MAX_ORTHANT_GROUPS];
    unsigned cone_columns[CONIC_MAX_CONES];
    int objective; // c = e_objective
    double G[CONIC_MAX_ROWS][CONIC_MAX_VARIABLES];
    double h[CONIC_MAX_ROWS];
} conic_problem;

// The scaling of an iterate. On the orthant W = diag(sqrt(s / z)) is never formed: the method
// needs only W^-2 = diag(z / s) and the products of s and z there. On a cone it is the
// Nesterov-Todd W = eta Wbar (symmetric), W z = W^-1 s = lambda.
typedef struct conic_scaling {
    double orthant_weight[CONIC_MAX_ROWS]; // z_i / s_i
    double inverse_s[CONIC_MAX_ROWS];      // 1 / s_i (orthant)
    double inverse_z[CONIC_MAX_ROWS];      // 1 / z_i (orthant)
    double cone_eta[CONIC_MAX_CONES];
    double cone_inverse_eta[CONIC_MAX_CONES];
    double cone_w[CONIC_MAX_CONES][CONIC_MAX_CONE_DIM]; // wbar, wbar^T J wbar = 1
    double cone_inverse_w0[CONIC_MAX_CONES];            // 1 / (1 + wbar_0)
    double cone_lambda[CONIC_MAX_CONES][CONIC_MAX_CONE_DIM];
} conic_scaling;

// a run of rows (an orthant group or one cone) and the columns that are non-zero in any of them,
// ascending: the normal matrix is accumulated over those columns only
typedef struct conic_segment {
    int first, end;
    int width;
    int column[CONIC_MAX_VARIABLES];
} conic_segment;

typedef struct conic_state {
    double x[CONIC_MAX_VARIABLES];
    double s[CONIC_MAX_ROWS];
    double z[CONIC_MAX_ROWS];
    conic_scaling scaling; // at the returned iterate
    // per cone: G_c^T J G_c (fixed for the problem) and g = G_c^T J wbar (per iterate), so that
    // G_c^T W^-2 G_c = (2 g g^T - G_c^T J G_c) / eta^2
    double cone_gram[CONIC_MAX_CONES][CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    double cone_projection[CONIC_MAX_CONES][CONIC_MAX_VARIABLES];
    conic_segment segments[CONIC_MAX_SEGMENTS]; // the orthant groups, then the cones
    int orthant_segments;
    int segment_count;
    conic_segment product_segments[CONIC_MAX_SEGMENTS]; // consecutive segments of equal columns merged
    int product_segment_count;
    // G^T W^-2 G + reg = L D L^T: L unit lower (its strict lower triangle), 1 / D
    double factor[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    double factor_inverse_diagonal[CONIC_MAX_VARIABLES];
    double factor_shift; // the regularisation added to the diagonal before factoring
    int iterations;
} conic_state;

/// Returns OSC_OK when `problem` is within the solver's limits and consistent: 1 to
/// CONIC_MAX_VARIABLES variables, the objective one of them, 0 to CONIC_MAX_CONES cones of
/// CONIC_MIN_CONE_DIM to CONIC_MAX_CONE_DIM rows, rows = orthant_rows + the cones' dimensions
/// <= CONIC_MAX_ROWS, 0 to CONIC_MAX_ORTHANT_GROUPS orthant groups whose ends do not decrease and
/// end at orthant_rows, and no column mask naming a column beyond the variables. Otherwise
/// OSC_ERR_INVALID_ARGUMENT with a message naming the field and its value ("cone program: ...").
osc_status conic_check(const conic_problem* problem);

/// Writes the column masks group_columns and cone_columns from the non-zero entries of G (for a
/// caller that does not know its structure otherwise).
void conic_set_columns(conic_problem* problem);

/// Solves `problem` to the central-path point of barrier parameter `barrier` (s o z = barrier e,
/// to 1e-9 of it where rounding allows, with residuals below 1e-9 of the data's scale), starting
/// from the primal point state->x (s = h - G x, moved into the cone if it is not inside, and the
/// dual z = mu s^-1 on the central path). With `at_barrier` the start is next to that central
/// point: state->x, state->s = h - G x (strictly inside) and state->z are all given
/// (conic_offset_start), and the stopping rule's centrality floor is tighter.
/// With `keep_best`, where the steps diverge or run out, the solve returns to its centred,
/// feasible iterate of least dual residual if that is within the stalled tolerance (1e-5 of its
/// terms) instead of failing.
/// On return `state` holds the iterate, its scaling and the factor of its normal matrix (for
/// derivatives). Returns OSC_OK; OSC_ERR_INVALID_ARGUMENT for a problem conic_check refuses (its
/// message); OSC_ERR_NOT_CONVERGED ("cone program: no convergence in ... iterations") when
/// `max_iterations` run out or the iterate stops being finite. The solver has no certificates of
/// infeasibility: an infeasible problem ends with OSC_ERR_NOT_CONVERGED. It expects a bounded
/// feasible set (DCOL's is): on an unbounded problem, which has no central point, the iterates
/// diverge, and as the stopping rule's tolerances grow with |s| |z| the solve may end with OSC_OK
/// at an iterate far beyond any scale of the data (tests/test_conic.c shows both); a caller that
/// cannot rule that out bounds its variables.
osc_status conic_solve(const conic_problem* problem, double barrier, int max_iterations, double regularization,
                       bool at_barrier, bool keep_best, conic_state* state);

/// Moves x, an exact optimum of `problem` (rows and cones with a gap, s_i or s_0 - |s_1|, at most
/// `active_gap` are its active ones; a cone whose whole slack is within it is at its apex), to the
/// first-order central point of `barrier`: every active orthant row's slack becomes barrier / z_i,
/// every active cone's s^T J s becomes barrier s_0 / tau (its dual tau J s / s_0) and a cone at
/// its apex takes s = barrier z^-1 (its dual z free), by the least change of x, with the
/// multipliers from G^T z = -c on the active blocks (where the blocks are dependent, more of them
/// active than their rank, the analytic centre of those multipliers; where the offsets would cross
/// a row or leave a cone, an optimal face rather than a vertex, the barrier problem's minimiser on
/// the set where the strong blocks sit at their offsets); writes the slack h - G x at the moved x
/// to s, strictly inside, and the matching dual to z [rows each]. False (x unchanged, s
/// overwritten) for a problem conic_check refuses, when more than 2 CONIC_MAX_VARIABLES blocks
/// are active, a cone at its apex comes with dependent blocks, the multipliers are not all
/// positive (strictly inside the cone at an apex) or not consistent, or the moved point is not
/// strictly inside.
bool conic_offset_start(const conic_problem* problem, double barrier, double active_gap, double* x, double* s,
                        double* z);

/// conic_offset_start's flat case alone from x, a central point of `barrier` whose active blocks
/// (gaps up to `active_gap`) hold it on an optimal face (the strong blocks, multipliers above 1e6
/// times the barrier) and leave it free along the rest of their null space: x is moved to the
/// barrier problem's minimiser on that set, the strong blocks at their offsets (the analytic
/// centre of the face, which the central path's stopping rule cannot resolve: the barrier's
/// forces along a free direction are of the order of the barrier), and s, z are written as there.
/// False (x unchanged) where there is no strong block or the minimiser fails.
bool conic_centre_flat(const conic_problem* problem, double barrier, double active_gap, double* x, double* s,
                       double* z);

/// Returns how far h - G x is outside the cone (-(its smallest eigenvalue)); < 0 when strictly
/// inside.
double conic_violation(const conic_problem* problem, const double* x);

/// Writes the slack s = h - G x [rows].
void conic_primal_slack(const conic_problem* problem, const double* x, double* s);

/// Returns how far the slack s is outside the cone (conic_violation's measure).
double conic_slack_violation(const conic_problem* problem, const double* s);

/// Solves the factored normal system in place: rhs <- (G^T W^-2 G + reg)^-1 rhs.
void conic_factor_solve(const conic_problem* problem, const conic_state* state, double* rhs);

/// conic_factor_solve on each of rhs[0 .. count) (count <= CONIC_SOLVE_MANY_MAX), with the same
/// result bit for bit, the independent solves interleaved.
void conic_factor_solve_many(const conic_problem* problem, const conic_state* state, int count,
                             double (*rhs)[CONIC_MAX_VARIABLES]);

/// The trace of the leading count x count block of the factored system's inverse,
/// sum_a e_a^T (G^T W^-2 G + reg)^-1 e_a = sum_a |D^-1/2 L^-1 e_a|^2 (forward substitutions only;
/// count <= the variable count).
double conic_factor_inverse_trace(const conic_problem* problem, const conic_state* state, int count);

/// The sum over `count` vectors v [count][n] of v^T (G^T W^-2 G + reg)^-1 v, by forward
/// substitutions alone (|D^-1/2 L^-1 v|^2 with the factor L D L^T).
double conic_factor_inverse_form(const conic_problem* problem, const conic_state* state, int count,
                                 double (*v)[CONIC_MAX_VARIABLES]);

/// One step of refinement of count solutions y of the factored system towards the solutions of
/// the normal system without its regularisation shift: y <- y + shift (H + shift I)^-1 y, which
/// turns an error of shift |H^-1| relative into (shift |H^-1|)^2 (for the derivatives; the
/// factor's shift otherwise biases them by shift times the compliance, docs/dcol.md §4.1).
void conic_refine_solutions(const conic_problem* problem, const conic_state* state, int count,
                            double (*y)[CONIC_MAX_VARIABLES]);

/// out = W^-2 v over all rows (v and out may alias).
void conic_apply_inverse_scaling_squared(const conic_problem* problem, const conic_state* state, const double* v,
                                         double* out);

/// out = W^-2 v on rows [first, end) only; a range that includes a cone row must include that
/// whole cone.
void conic_apply_inverse_scaling_squared_rows(const conic_problem* problem, const conic_state* state, int first,
                                              int end, const double* v, double* out);

/// block[j][k] = sum over rows r in [first, end) of (G^T W^-2)_jr G_rk for k < 3: the first three
/// columns of the normal matrix contributed by those rows. A range that includes a cone row must
/// include that whole cone.
void conic_normal_block(const conic_problem* problem, const conic_state* state, int first, int end,
                        double block[CONIC_MAX_VARIABLES][3]);

// ---------------------------------------------------------------------------------------------
// The normal system split by stiffness (conic_stiff.c, docs/dcol.md §4.5)

enum {
    CONIC_MAX_STIFF = 16, // stiff blocks of one conic_stiff_system
    CONIC_STIFF_SIZE = CONIC_MAX_VARIABLES + CONIC_MAX_STIFF
};

// H = G^T W^-2 G as S + M^T D M: each stiff block (an orthant row or a cone whose rank-one part
// D m m^T, m = G_i or G_c^T J wbar, exceeds a threshold) is a row of M with its weight D, and
// everything else (the other rows, the cones' -G_c^T J G_c / eta^2) is S. The augmented matrix
// [S M^T; M -D^-1], factored by LU with partial pivoting, solves H y = b + M^T D r without ever
// adding D m m^T to S, where the sum would round S's share away.
typedef struct conic_stiff_system {
    int variables, count;                                // n and the stiff blocks
    int block_of_row[CONIC_MAX_ROWS];                    // the stiff block of a row (a cone's rows all), or -1
    int first_row[CONIC_MAX_STIFF];                      // each stiff block's first row
    double weight[CONIC_MAX_STIFF];                      // D_a
    double normal[CONIC_MAX_STIFF][CONIC_MAX_VARIABLES]; // m_a
    double lu[CONIC_STIFF_SIZE][CONIC_STIFF_SIZE];
    int pivot[CONIC_STIFF_SIZE];
} conic_stiff_system;

/// Splits the normal matrix of the iterate in `state` (after conic_solve) at the stiffness
/// `threshold` (a block is stiff when D |m|^2 exceeds it) and factors the augmented matrix. False
/// when there is no stiff block, more than CONIC_MAX_STIFF, or a zero pivot.
bool conic_stiff_factor(const conic_problem* problem, const conic_state* state, double threshold,
                        conic_stiff_system* system);

/// y = H^-1 (b + M^T D r) [n] and lambda = D (M y - r) [count] (lambda may be NULL), for b [n]
/// and r [count] (r may be NULL: zero).
void conic_stiff_solve(const conic_stiff_system* system, const double* b, const double* r, double* y, double* lambda);

/// conic_normal_block with S in place of H: the stiff blocks' rank-one parts left out.
void conic_stiff_moderate_block(const conic_problem* problem, const conic_state* state,
                                const conic_stiff_system* system, int first, int end,
                                double block[CONIC_MAX_VARIABLES][3]);

#endif // OSC_CONIC_H
