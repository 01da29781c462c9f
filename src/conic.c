// conic.c: the iteration of the primal-dual interior-point method for small cone programs (conic.h;
// Tracy et al. 2023 §II-A; L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers",
// §§ 3-5 for the Nesterov-Todd scaling of the second-order cone and the reduced KKT system).
// docs/dcol.md §3 derives it for its user, DCOL.
//
// With r_x = G^T z + c and r_z = s + G x - h, a Newton step for the target lambda o lambda = t e
// solves, with d = -lambda o lambda - (correction) + t e,
//     G^T dz = -r_x,   G dx + ds = -r_z,   W^-1 ds + W dz = lambda \ d,
// which reduces to the normal equations (G^T W^-2 G) dx = -r_x - G^T W^-2 bz with
// bz = r_z + W (lambda \ d); then dz = W^-2 (G dx + bz) and ds = -r_z - G dx.
// On the orthant W (lambda \ d) = d / z and the correction is ds_a dz_a, so only z / s and the
// reciprocals of s and z are formed there: no square roots.

#include "conic.h"

#include "base_internal.h"
#include "dense.h"

#include <string.h>

static const double STEP_FRACTION = 0.99;         // of the distance to the cone boundary
static const double FEASIBILITY_TOLERANCE = 1e-9; // residuals, relative to the data's scale
// |lambda o lambda - barrier e|_inf <= max(1e-9 barrier, 1e-12 max(1, |s|_inf |z|_inf)): the
// iterate is on the central path to 1e-9 (the answer is then a smooth function of the data to
// that accuracy) unless the barrier is so small that rounding of s o z forbids it
static const double CENTRALITY_TOLERANCE = 1e-9;
static const double CENTRALITY_FLOOR = 1e-12;
// from a start at the barrier (docs/dcol.md §3.5) the floor is 100 times the rounding of s o z
// (1e-16 |s|_inf |z|_inf): the iterate is then centred well enough that its derivatives match
// central differences (at the general floor, DCOL's point derivatives were off by 1e-2 at a rim
// contact)
static const double CENTRALITY_FLOOR_AT_BARRIER = 1e-14;
// the dual residual accepted once two iterates in a row are centred and feasible: near optimal
// faces and at large objective values (in DCOL flat contacts, large alpha) W^-2 spans ~1e20 and
// rounding in dz = W^-2 (G dx + bz) keeps
// |G^T z + c| at 1e-7 to 1e-6 of its terms, however many more steps are taken
static const double STALLED_DUAL_TOLERANCE = 1e-5;

// min / max without the library calls fmin / fmax make without -ffast-math
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

// runs name(width, ...) with the column count width (0 to CONIC_MAX_VARIABLES) a constant, so
// that the instantiation's loops unroll
#define CONIC_WIDTH_SWITCH(width, name, ...)                                                                           \
    switch (width) {                                                                                                   \
        case 0: break;                                                                                                 \
        case 1: name(1, __VA_ARGS__); break;                                                                           \
        case 2: name(2, __VA_ARGS__); break;                                                                           \
        case 3: name(3, __VA_ARGS__); break;                                                                           \
        case 4: name(4, __VA_ARGS__); break;                                                                           \
        case 5: name(5, __VA_ARGS__); break;                                                                           \
        case 6: name(6, __VA_ARGS__); break;                                                                           \
        case 7: name(7, __VA_ARGS__); break;                                                                           \
        default: name(8, __VA_ARGS__); break;                                                                          \
    }

// ---------------------------------------------------------------------------------------------
// second-order cone algebra on one block of dimension dim (J = diag(1, -1, ...))
//
// Every per-cone routine takes dim as its first argument and is instantiated for the dimensions
// 3 and 4 (CONIC_CONE_SWITCH; others run with dim a variable), so its loops are unrolled.

#define CONIC_CONE_SWITCH(dim, name, ...)                                                                              \
    switch (dim) {                                                                                                     \
        case 3: name(3, __VA_ARGS__); break;                                                                           \
        case 4: name(4, __VA_ARGS__); break;                                                                           \
        default: name(dim, __VA_ARGS__); break;                                                                        \
    }

// out = a o b = (a . b, a0 b1 + b0 a1)
OSC_FORCE_INLINE void soc_product(const double* a, const double* b, int dim, double* out) {
    double dot = 0.0;
    for (int i = 0; i < dim; ++i) dot += a[i] * b[i];
    for (int i = 1; i < dim; ++i) out[i] = a[0] * b[i] + b[0] * a[i];
    out[0] = dot;
}

// out = lambda \ v: the u with lambda o u = v
OSC_FORCE_INLINE void soc_divide(const double* l, const double* v, int dim, double* out) {
    double l1v1 = 0.0, l1l1 = 0.0;
    for (int i = 1; i < dim; ++i) {
        l1v1 += l[i] * v[i];
        l1l1 += l[i] * l[i];
    }
    double u0 = (l[0] * v[0] - l1v1) / (l[0] * l[0] - l1l1);
    double inverse_l0 = 1.0 / l[0];
    for (int i = 1; i < dim; ++i) out[i] = (v[i] - u0 * l[i]) * inverse_l0;
    out[0] = u0;
}

// sqrt(x^T J x) for x inside the cone
// (x0^2 - |x1|^2 directly: (x0 - |x1|)(x0 + |x1|) loses as much to the rounding of |x1|)
OSC_FORCE_INLINE double soc_norm(const double* x, int dim) {
    double x1 = 0.0;
    for (int i = 1; i < dim; ++i) x1 += x[i] * x[i];
    return sqrt(x[0] * x[0] - x1);
}

// -(smallest eigenvalue) of x: < 0 inside the cone
static double soc_violation(const double* x, int dim) {
    double x1 = 0.0;
    for (int i = 1; i < dim; ++i) x1 += x[i] * x[i];
    return sqrt(x1) - x[0];
}

// 1 / (the largest t with x + t d in the cone), x inside; 0 when every t > 0 is allowed.
// q(t) = (x0 + t d0)^2 - |x1 + t d1|^2 = qa t^2 + qb t + qc, qc > 0, first leaves [0, inf) at its
// smallest positive root t*, and 1 / t* is the largest root of qc r^2 + qb r + qa (stable form
// by the sign of qb). x0 + t d0 cannot reach 0 before q does. Branch-free apart from the selects.
OSC_FORCE_INLINE double soc_step_rate(const double* x, const double* d, int dim) {
    double x1 = 0.0, d1 = 0.0, xd = 0.0;
    for (int i = 1; i < dim; ++i) {
        x1 += x[i] * x[i];
        d1 += d[i] * d[i];
        xd += x[i] * d[i];
    }
    // qc = x0^2 - |x1|^2 directly: (x0 - |x1|)(x0 + |x1|) loses as much to the rounding of |x1|
    double qa = d[0] * d[0] - d1, qb = 2.0 * (x[0] * d[0] - xd), qc = x[0] * x[0] - x1;
    double disc = qb * qb - 4.0 * qa * qc;
    double root = sqrt(max2(disc, 0.0));
    double numerator = qb <= 0.0 ? root - qb : -2.0 * qa;
    double denominator = qb <= 0.0 ? 2.0 * qc : qb + root;
    double rate = numerator / denominator;
    return disc >= 0.0 && rate > 0.0 ? rate : 0.0;
}

// out = W v or W^-1 v on cone block k (out may alias v), W = eta Wbar with
// Wbar = [w0, w1^T; w1, I + w1 w1^T / (1 + w0)] and Wbar^-1 = J Wbar J
OSC_FORCE_INLINE void cone_scale(const conic_scaling* sc, int k, int dim, const double* v, double* out, bool inverse) {
    const double* w = sc->cone_w[k];
    double sign = inverse ? -1.0 : 1.0;
    double factor = inverse ? sc->cone_inverse_eta[k] : sc->cone_eta[k];
    double w1v1 = 0.0;
    for (int i = 1; i < dim; ++i) w1v1 += w[i] * v[i];
    double coefficient = factor * (sign * v[0] + w1v1 * sc->cone_inverse_w0[k]);
    double first = factor * (w[0] * v[0] + sign * w1v1);
    for (int i = 1; i < dim; ++i) out[i] = factor * v[i] + coefficient * w[i];
    out[0] = first;
}

// ---------------------------------------------------------------------------------------------
// the scaling of an iterate (CVXOPT §4.2 on a cone):
//   sbar = s / sqrt(s^T J s), zbar likewise, gamma = sqrt((1 + sbar . zbar) / 2),
//   wbar = (sbar + J zbar) / (2 gamma), eta = (s^T J s / z^T J z)^(1/4), lambda = W z

OSC_FORCE_INLINE void scaling_cone(const int dim, const double* sk, const double* zk, int k, conic_scaling* sc) {
    double s_norm = soc_norm(sk, dim), z_norm = soc_norm(zk, dim);
    double sz = 0.0;
    for (int i = 0; i < dim; ++i) sz += sk[i] * zk[i];
    double inverse_s = 1.0 / s_norm, inverse_z = 1.0 / z_norm;
    double gamma = sqrt(0.5 * (1.0 + sz * inverse_s * inverse_z));
    double half_inverse_gamma = 0.5 / gamma;
    double* w = sc->cone_w[k];
    w[0] = (sk[0] * inverse_s + zk[0] * inverse_z) * half_inverse_gamma;
    for (int i = 1; i < dim; ++i) w[i] = (sk[i] * inverse_s - zk[i] * inverse_z) * half_inverse_gamma;
    // eta = sqrt(s_norm / z_norm) and its reciprocal, side by side
    sc->cone_eta[k] = sqrt(s_norm * inverse_z);
    sc->cone_inverse_eta[k] = sqrt(z_norm * inverse_s);
    sc->cone_inverse_w0[k] = 1.0 / (1.0 + w[0]);
    cone_scale(sc, k, dim, zk, sc->cone_lambda[k], false);
}

// the scaling of every cone (the orthant's is formed in orthant_pass)
static void scaling_cones(const conic_problem* p, const double* s, const double* z, conic_scaling* sc) {
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++])
        CONIC_CONE_SWITCH(p->cone_dim[k], scaling_cone, s + start, z + start, k, sc)
}

// W^-2 = (J Wbar J)^2 / eta^2 = (2 a a^T - J) / eta^2 on a cone, a = J wbar (as Wbar^2 =
// 2 wbar wbar^T - J when wbar^T J wbar = 1)
void conic_apply_inverse_scaling_squared_rows(const conic_problem* p, const conic_state* state, int first, int end,
                                              const double* v, double* out) {
    const conic_scaling* sc = &state->scaling;
    int l = p->orthant_rows;
    for (int i = first; i < end && i < l; ++i) out[i] = sc->orthant_weight[i] * v[i];
    for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++]) {
        if (start < first || start >= end) continue;
        const double* w = sc->cone_w[k];
        const double* x = v + start;
        double* o = out + start;
        double scale = sc->cone_inverse_eta[k] * sc->cone_inverse_eta[k];
        double av = w[0] * x[0];
        for (int i = 1; i < p->cone_dim[k]; ++i) av -= w[i] * x[i];
        double twice = 2.0 * av;
        o[0] = scale * (twice * w[0] - x[0]);
        for (int i = 1; i < p->cone_dim[k]; ++i) o[i] = scale * (x[i] - twice * w[i]);
    }
}

void conic_apply_inverse_scaling_squared(const conic_problem* p, const conic_state* state, const double* v,
                                         double* out) {
    conic_apply_inverse_scaling_squared_rows(p, state, 0, p->rows, v, out);
}

// ---------------------------------------------------------------------------------------------
// the problem

osc_status conic_check(const conic_problem* p) {
    static const char* const who = "cone program";
    if (p->variables < 1 || p->variables > CONIC_MAX_VARIABLES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %d variables; the solver takes 1 to %d", who, p->variables,
                        CONIC_MAX_VARIABLES);
    if (p->objective < 0 || p->objective >= p->variables)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: objective is variable %d of %d", who, p->objective,
                        p->variables);
    if (p->cone_count < 0 || p->cone_count > CONIC_MAX_CONES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %d cones; the solver takes 0 to %d", who, p->cone_count,
                        CONIC_MAX_CONES);
    if (p->orthant_rows < 0 || p->orthant_rows > CONIC_MAX_ROWS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %d orthant rows; the solver takes 0 to %d", who, p->orthant_rows,
                        CONIC_MAX_ROWS);
    int rows = p->orthant_rows;
    unsigned outside = p->variables < 32 ? ~0u << p->variables : 0u; // mask bits beyond the variables
    for (int k = 0; k < p->cone_count; ++k) {
        if (p->cone_dim[k] < CONIC_MIN_CONE_DIM || p->cone_dim[k] > CONIC_MAX_CONE_DIM)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cone %d has dimension %d; the solver takes %d to %d", who, k,
                            p->cone_dim[k], CONIC_MIN_CONE_DIM, CONIC_MAX_CONE_DIM);
        if (p->cone_columns[k] & outside)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cone %d's column mask 0x%x names columns beyond %d", who, k,
                            p->cone_columns[k], p->variables);
        rows += p->cone_dim[k];
    }
    if (rows > CONIC_MAX_ROWS || rows != p->rows)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: rows is %d for %d orthant rows and cones of %d rows; at most %d",
                        who, p->rows, p->orthant_rows, rows - p->orthant_rows, CONIC_MAX_ROWS);
    if (p->orthant_groups < 0 || p->orthant_groups > CONIC_MAX_ORTHANT_GROUPS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %d orthant groups; the solver takes 0 to %d", who,
                        p->orthant_groups, CONIC_MAX_ORTHANT_GROUPS);
    for (int g = 0, end = 0; g < p->orthant_groups; ++g) {
        bool last = g == p->orthant_groups - 1;
        if (p->orthant_group_end[g] < end || p->orthant_group_end[g] > p->orthant_rows ||
            (last && p->orthant_group_end[g] != p->orthant_rows))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: orthant group %d ends at row %d; the ends must not decrease and the last must be %d",
                            who, g, p->orthant_group_end[g], p->orthant_rows);
        if (p->group_columns[g] & outside)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: orthant group %d's column mask 0x%x names columns beyond %d",
                            who, g, p->group_columns[g], p->variables);
        end = p->orthant_group_end[g];
    }
    if (p->orthant_groups == 0 && (p->group_columns[0] & outside))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the orthant's column mask 0x%x names columns beyond %d", who,
                        p->group_columns[0], p->variables);
    return OSC_OK;
}

// the mask of the columns that are non-zero in G's rows [first, end)
static unsigned nonzero_columns(const conic_problem* p, int first, int end) {
    unsigned mask = 0u;
    for (int i = first; i < end; ++i)
        for (int j = 0; j < p->variables && j < CONIC_MAX_VARIABLES; ++j)
            if (p->G[i][j] != 0.0) mask |= 1u << j;
    return mask;
}

void conic_set_columns(conic_problem* p) {
    int groups = p->orthant_groups > 0 ? p->orthant_groups : 1;
    for (int g = 0, first = 0; g < groups && g < CONIC_MAX_ORTHANT_GROUPS; ++g) {
        int end = p->orthant_groups > 0 ? p->orthant_group_end[g] : p->orthant_rows;
        p->group_columns[g] = nonzero_columns(p, first, end);
        first = end;
    }
    for (int k = 0, start = p->orthant_rows; k < p->cone_count && k < CONIC_MAX_CONES; start += p->cone_dim[k++])
        p->cone_columns[k] = nonzero_columns(p, start, start + p->cone_dim[k]);
}

// ---------------------------------------------------------------------------------------------
// the normal matrix G^T W^-2 G (n <= 8) and its LDL^T factor
//
// The variable count n is 4 to 8. Every routine whose inner loops run over the variables takes it
// as a constant: the solver is instantiated once per n (conic_solve dispatches), so those loops
// are unrolled.

// the factor's solve in place: rhs <- (L D L^T)^-1 rhs
OSC_FORCE_INLINE void factor_solve_n(const int n, const conic_state* state, double* rhs) {
    dense_ldlt_shifted_solve(n, &state->factor[0][0], CONIC_MAX_VARIABLES, state->factor_inverse_diagonal, rhs, 1, 1);
}

// factor_solve_n on `count` right-hand sides at once, rhs[count][CONIC_MAX_VARIABLES]: the same
// operations in the same order per right-hand side, with the independent ones innermost
OSC_FORCE_INLINE void factor_solve_many_n(const int n, const conic_state* state, int count,
                                          double (*rhs)[CONIC_MAX_VARIABLES]) {
    double b[CONIC_MAX_VARIABLES][CONIC_SOLVE_MANY_MAX];
    for (int c = 0; c < count; ++c)
        for (int i = 0; i < n; ++i) b[i][c] = rhs[c][i];
    dense_ldlt_shifted_solve(n, &state->factor[0][0], CONIC_MAX_VARIABLES, state->factor_inverse_diagonal, &b[0][0],
                             count, CONIC_SOLVE_MANY_MAX);
    for (int c = 0; c < count; ++c)
        for (int i = 0; i < n; ++i) rhs[c][i] = b[i][c];
}

// runs name(n, ...) with the variable count n a constant for 4 to 8 (DCOL's problems: their loops
// unrolled), a variable below
#define CONIC_INSTANTIATE(name, ...)                                                                                   \
    switch (n) {                                                                                                       \
        case 4: name(4, __VA_ARGS__); break;                                                                           \
        case 5: name(5, __VA_ARGS__); break;                                                                           \
        case 6: name(6, __VA_ARGS__); break;                                                                           \
        case 7: name(7, __VA_ARGS__); break;                                                                           \
        case 8: name(8, __VA_ARGS__); break;                                                                           \
        default: name(n, __VA_ARGS__); break;                                                                          \
    }

void conic_factor_solve(const conic_problem* problem, const conic_state* state, double* rhs) {
    int n = problem->variables;
    CONIC_INSTANTIATE(factor_solve_n, state, rhs)
}

void conic_factor_solve_many(const conic_problem* problem, const conic_state* state, int count,
                             double (*rhs)[CONIC_MAX_VARIABLES]) {
    int n = problem->variables;
    CONIC_INSTANTIATE(factor_solve_many_n, state, count, rhs)
}

// conic_factor_inverse_trace with n a constant: y = L^-1 e_a from row a on (its entries above are
// zero), then y^T D^-1 y
OSC_FORCE_INLINE void factor_inverse_trace_n(const int n, const conic_state* state, int count, double* trace) {
    const double* inverse = state->factor_inverse_diagonal;
    double sum = 0.0;
    for (int a = 0; a < count; ++a) {
        double y[CONIC_MAX_VARIABLES];
        y[a] = 1.0;
        sum += inverse[a];
        for (int i = a + 1; i < n; ++i) {
            double value = 0.0;
            for (int k = a; k < i; ++k) value -= state->factor[i][k] * y[k];
            y[i] = value;
            sum += value * value * inverse[i];
        }
    }
    *trace = sum;
}

double conic_factor_inverse_trace(const conic_problem* problem, const conic_state* state, int count) {
    int n = problem->variables;
    double trace = 0.0;
    CONIC_INSTANTIATE(factor_inverse_trace_n, state, count, &trace)
    return trace;
}

// sum over the count vectors v of v^T (L D L^T)^-1 v = |D^-1/2 L^-1 v|^2: forward substitutions
OSC_FORCE_INLINE void factor_inverse_form_n(const int n, const conic_state* state, int count,
                                            double (*v)[CONIC_MAX_VARIABLES], double* form) {
    const double* inverse = state->factor_inverse_diagonal;
    double sum = 0.0;
    for (int a = 0; a < count; ++a) {
        double y[CONIC_MAX_VARIABLES];
        for (int i = 0; i < n; ++i) {
            double value = v[a][i];
            for (int k = 0; k < i; ++k) value -= state->factor[i][k] * y[k];
            y[i] = value;
            sum += value * value * inverse[i];
        }
    }
    *form = sum;
}

double conic_factor_inverse_form(const conic_problem* problem, const conic_state* state, int count,
                                 double (*v)[CONIC_MAX_VARIABLES]) {
    int n = problem->variables;
    double form = 0.0;
    CONIC_INSTANTIATE(factor_inverse_form_n, state, count, v, &form)
    return form;
}

void conic_refine_solutions(const conic_problem* problem, const conic_state* state, int count,
                            double (*y)[CONIC_MAX_VARIABLES]) {
    int n = problem->variables;
    double correction[CONIC_SOLVE_MANY_MAX][CONIC_MAX_VARIABLES];
    memcpy(correction, y, sizeof(double) * CONIC_MAX_VARIABLES * (size_t)count);
    conic_factor_solve_many(problem, state, count, correction);
    for (int c = 0; c < count; ++c)
        for (int j = 0; j < n; ++j) y[c][j] += state->factor_shift * correction[c][j];
}

// G_c^T J G_c of one cone on its segment's columns, zero in the rows of the other columns (the
// columns of normal_block_n), with the cone's dimension a constant (its loop unrolled)
OSC_FORCE_INLINE void cone_gram_dim(const int dim, const conic_problem* p, const conic_segment* seg,
                                    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]) {
    for (int j = 0, a = 0; j < p->variables; ++j) {
        if (a < seg->width && seg->column[a] == j) {
            ++a;
            continue;
        }
        for (int c = 0; c < CONIC_MAX_VARIABLES; ++c) gram[j][c] = gram[c][j] = 0.0;
    }
    for (int a = 0; a < seg->width; ++a)
        for (int b = 0; b <= a; ++b) {
            int i = seg->column[a], j = seg->column[b];
            double sum = p->G[seg->first][i] * p->G[seg->first][j];
            for (int r = 1; r < dim; ++r) sum -= p->G[seg->first + r][i] * p->G[seg->first + r][j];
            gram[i][j] = gram[j][i] = sum;
        }
}

// G_c^T J G_c of every cone (once per problem, after find_segments)
static void cone_grams(const conic_problem* p, conic_state* state) {
    for (int k = 0; k < p->cone_count; ++k)
        CONIC_CONE_SWITCH(p->cone_dim[k], cone_gram_dim, p, &state->segments[state->orthant_segments + k],
                          state->cone_gram[k])
}

// the row segments of the problem (once per problem): every orthant group and every cone, with
// the columns that are non-zero in it (the problem's masks)
static void find_segments(const conic_problem* p, conic_state* state) {
    int l = p->orthant_rows;
    int groups = p->orthant_groups > 0 ? p->orthant_groups : 1;
    int segments = 0, first = 0;
    unsigned masks[CONIC_MAX_SEGMENTS];
    for (int g = 0; g < groups; ++g) {
        int end = p->orthant_groups > 0 ? p->orthant_group_end[g] : l;
        if (end > first) {
            masks[segments] = p->group_columns[g];
            state->segments[segments].first = first;
            state->segments[segments++].end = end;
        }
        first = end;
    }
    // orthant groups with the same columns make one segment (their normal-matrix sums merge)
    if (segments == 2 && masks[0] == masks[1]) {
        state->segments[0].end = state->segments[1].end;
        segments = 1;
    }
    state->orthant_segments = segments;
    for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++]) {
        masks[segments] = p->cone_columns[k];
        state->segments[segments].first = start;
        state->segments[segments++].end = start + p->cone_dim[k];
    }
    int n = p->variables < CONIC_MAX_VARIABLES ? p->variables : CONIC_MAX_VARIABLES;
    for (int k = 0; k < segments; ++k) {
        conic_segment* seg = &state->segments[k];
        int count = 0;
        for (int j = 0; j < n; ++j)
            if (masks[k] >> j & 1u) seg->column[count++] = j;
        seg->width = count;
    }
    state->segment_count = segments;
    // the products with G run over runs of consecutive segments with the same columns (every row
    // of a problem with n = 4): fewer, longer loops
    int runs = 0;
    for (int k = 0; k < segments; ++k) {
        conic_segment* last = runs > 0 ? &state->product_segments[runs - 1] : NULL;
        if (last && last->end == state->segments[k].first && masks[k] == masks[k - 1])
            last->end = state->segments[k].end;
        else
            state->product_segments[runs++] = state->segments[k];
    }
    state->product_segment_count = runs;
}

// The measures of an iterate that the stopping rule reads, accumulated over the rows
typedef struct iterate_measures {
    double primal;     // |r_z|_inf
    double gap;        // s . z
    double s_size;     // |s|_inf
    double z_size;     // |z|_inf
    double centrality; // |lambda o lambda - barrier e|_inf
} iterate_measures;

// adds a row's s_i z_i to the gap and s_i, z_i to the sizes; returns s_i z_i
OSC_FORCE_INLINE double measure_row(iterate_measures* m, double si, double zi) {
    double sz = si * zi;
    m->gap += sz;
    m->s_size = max2(m->s_size, fabs(si));
    m->z_size = max2(m->z_size, fabs(zi));
    return sz;
}

// One pass over an orthant segment's rows (width a constant in each instantiation): with
// `residual`, r_z = s + G x - h on its rows (else r_z is left alone); r_x += G^T z on its
// columns; the scaling z / s, 1 / s, 1 / z; the measures; and sum (z/s) g g^T added to `normal`
// on its columns (lower triangle)
OSC_FORCE_INLINE void orthant_pass_w(const int width, const bool residual, const conic_problem* p, conic_state* state,
                                     const conic_segment* seg, double barrier, double* r_z, double* r_x,
                                     double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES],
                                     iterate_measures* measures) {
    conic_scaling* sc = &state->scaling;
    double x[CONIC_MAX_VARIABLES], column_sum[CONIC_MAX_VARIABLES];
    double sum[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    for (int k = 0; k < width; ++k) {
        x[k] = state->x[seg->column[k]];
        column_sum[k] = 0.0;
        for (int j = 0; j <= k; ++j) sum[k][j] = 0.0;
    }
    iterate_measures m = *measures;
    for (int i = seg->first; i < seg->end; ++i) {
        double row[CONIC_MAX_VARIABLES];
        for (int k = 0; k < width; ++k) row[k] = p->G[i][seg->column[k]];
        double si = state->s[i], zi = state->z[i];
        if (residual) {
            double gx = 0.0;
            for (int k = 0; k < width; ++k) gx += row[k] * x[k];
            r_z[i] = si + gx - p->h[i];
            m.primal = max2(m.primal, fabs(r_z[i]));
        }
        for (int k = 0; k < width; ++k) column_sum[k] += row[k] * zi;
        double sz = measure_row(&m, si, zi);
        m.centrality = max2(m.centrality, fabs(sz - barrier));
        double inverse_sz = 1.0 / sz; // one division for both reciprocals
        sc->inverse_s[i] = zi * inverse_sz;
        sc->inverse_z[i] = si * inverse_sz;
        double weight = zi * sc->inverse_s[i];
        sc->orthant_weight[i] = weight;
        for (int k = 0; k < width; ++k) {
            double wk = weight * row[k];
            for (int j = 0; j <= k; ++j) sum[k][j] += wk * row[j];
        }
    }
    *measures = m;
    for (int k = 0; k < width; ++k) {
        r_x[seg->column[k]] += column_sum[k];
        for (int j = 0; j <= k; ++j) normal[seg->column[k]][seg->column[j]] += sum[k][j];
    }
}

static void orthant_pass(bool residual, const conic_problem* p, conic_state* state, const conic_segment* seg,
                         double barrier, double* r_z, double* r_x,
                         double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], iterate_measures* measures) {
    if (residual) {
        CONIC_WIDTH_SWITCH(seg->width, orthant_pass_w, true, p, state, seg, barrier, r_z, r_x, normal, measures)
    } else {
        CONIC_WIDTH_SWITCH(seg->width, orthant_pass_w, false, p, state, seg, barrier, r_z, r_x, normal, measures)
    }
}

// sum_cone (2 g g^T - G^T J G) / eta^2 over each cone's columns, added to `normal` (lower
// triangle), with g = G_c^T J wbar kept in state->cone_projection
OSC_FORCE_INLINE void cone_normal_n(const int n, const conic_problem* p, conic_state* state,
                                    double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]) {
    const conic_scaling* sc = &state->scaling;
    for (int k = 0; k < p->cone_count; ++k) {
        const conic_segment* seg = &state->segments[state->orthant_segments + k];
        int start = seg->first, dim = seg->end - seg->first;
        const double* w = sc->cone_w[k];
        double* g = state->cone_projection[k];
        for (int j = 0; j < n; ++j) g[j] = 0.0;
        for (int c = 0; c < seg->width; ++c) {
            int j = seg->column[c];
            double sum = p->G[start][j] * w[0];
            for (int r = 1; r < dim; ++r) sum -= p->G[start + r][j] * w[r];
            g[j] = sum;
        }
        double scale = sc->cone_inverse_eta[k] * sc->cone_inverse_eta[k];
        for (int a = 0; a < seg->width; ++a) {
            int i = seg->column[a];
            for (int b = 0; b <= a; ++b) {
                int j = seg->column[b];
                normal[i][j] += scale * (2.0 * g[i] * g[j] - state->cone_gram[k][i][j]);
            }
        }
    }
}

// the factor of the normal matrix (lower triangle) plus regularization max(diag) I
OSC_FORCE_INLINE void factor_normal_n(const int n, double regularization,
                                      double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], conic_state* state) {
    double largest = 0.0;
    for (int i = 0; i < n; ++i) largest = max2(largest, normal[i][i]);
    state->factor_shift = regularization * largest;
    dense_ldlt_shifted(n, &normal[0][0], CONIC_MAX_VARIABLES, state->factor_shift, &state->factor[0][0],
                       CONIC_MAX_VARIABLES, state->factor_inverse_diagonal);
}

OSC_FORCE_INLINE void normal_block_n(const int n, const conic_problem* p, const conic_state* state, int first, int end,
                                     double block[CONIC_MAX_VARIABLES][3]) {
    int l = p->orthant_rows;
    for (int j = 0; j < n; ++j) block[j][0] = block[j][1] = block[j][2] = 0.0;
    for (int r = first; r < end && r < l; ++r) {
        const double* row = p->G[r];
        double weight = state->scaling.orthant_weight[r];
        for (int j = 0; j < n; ++j) {
            double wj = weight * row[j];
            for (int k = 0; k < 3; ++k) block[j][k] += wj * row[k];
        }
    }
    for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++]) {
        if (start < first || start >= end) continue;
        const double* g = state->cone_projection[k];
        double scale = state->scaling.cone_inverse_eta[k] * state->scaling.cone_inverse_eta[k];
        for (int j = 0; j < n; ++j)
            for (int c = 0; c < 3; ++c) block[j][c] += scale * (2.0 * g[j] * g[c] - state->cone_gram[k][j][c]);
    }
}

void conic_normal_block(const conic_problem* p, const conic_state* state, int first, int end,
                        double block[CONIC_MAX_VARIABLES][3]) {
    int n = p->variables;
    CONIC_INSTANTIATE(normal_block_n, p, state, first, end, block)
}

// W^-2 x on one cone: (2 a a^T - J) x / eta^2, a = J wbar
OSC_FORCE_INLINE void inverse_scaling_squared_cone(const int dim, const conic_scaling* sc, int k, const double* x,
                                                   double* o) {
    const double* w = sc->cone_w[k];
    double scale = sc->cone_inverse_eta[k] * sc->cone_inverse_eta[k];
    double av = w[0] * x[0];
    for (int i = 1; i < dim; ++i) av -= w[i] * x[i];
    double twice = 2.0 * av;
    o[0] = scale * (twice * w[0] - x[0]);
    for (int i = 1; i < dim; ++i) o[i] = scale * (x[i] - twice * w[i]);
}

// W^-2 v on the cone rows only (the orthant's diag(z / s) is applied inline by the callers)
static void cone_apply_inverse_scaling_squared(const conic_problem* p, const conic_scaling* sc, const double* v,
                                               double* out) {
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++])
        CONIC_CONE_SWITCH(p->cone_dim[k], inverse_scaling_squared_cone, sc, k, v + start, out + start)
}

// ---------------------------------------------------------------------------------------------
// products with G over one segment's non-zero columns (width a constant in each instantiation)

// the residual terms of a segment: r_z = s + G x - h on its rows and r_x += G^T z on its
// columns; with `sizes`, instead only the magnitudes the residuals are measured against:
// dual_terms += |G|^T |z| on its columns, *primal_scale = max(*primal_scale, sum_j |G_ij x_j|)
OSC_FORCE_INLINE void segment_residual_w(const int width, const bool sizes, const conic_problem* p,
                                         const conic_state* state, const conic_segment* seg, double* r_z, double* r_x,
                                         double* dual_terms, double* primal_scale) {
    double x[CONIC_MAX_VARIABLES], column_sum[CONIC_MAX_VARIABLES];
    for (int k = 0; k < width; ++k) {
        x[k] = state->x[seg->column[k]];
        column_sum[k] = 0.0;
    }
    double size = sizes ? *primal_scale : 0.0;
    for (int i = seg->first; i < seg->end; ++i) {
        double gx = 0.0, zi = state->z[i];
        for (int k = 0; k < width; ++k) {
            double g = p->G[i][seg->column[k]];
            if (sizes) {
                gx += fabs(g * x[k]);
                column_sum[k] += fabs(g * zi);
            } else {
                gx += g * x[k];
                column_sum[k] += g * zi;
            }
        }
        if (sizes)
            size = max2(size, gx);
        else
            r_z[i] = state->s[i] + gx - p->h[i];
    }
    if (sizes) *primal_scale = size;
    for (int k = 0; k < width; ++k) (sizes ? dual_terms : r_x)[seg->column[k]] += column_sum[k];
}

static void segment_residual(const conic_problem* p, const conic_state* state, const conic_segment* seg, double* r_z,
                             double* r_x) {
    CONIC_WIDTH_SWITCH(seg->width, segment_residual_w, false, p, state, seg, r_z, r_x, NULL, NULL)
}

static void segment_residual_sizes(const conic_problem* p, const conic_state* state, const conic_segment* seg,
                                   double* dual_terms, double* primal_scale){
    CONIC_WIDTH_SWITCH(seg->width, segment_residual_w, true, p, state, seg, NULL, NULL, dual_terms, primal_scale)}

// out[col] += sum over the segment's rows i of G_i,col y_i
OSC_FORCE_INLINE void segment_transpose_multiply_w(const int width, const conic_problem* p, const conic_segment* seg,
                                                   const double* y, double* out) {
    double sum[CONIC_MAX_VARIABLES];
    for (int k = 0; k < width; ++k) sum[k] = 0.0;
    for (int i = seg->first; i < seg->end; ++i)
        for (int k = 0; k < width; ++k) sum[k] += p->G[i][seg->column[k]] * y[i];
    for (int k = 0; k < width; ++k) out[seg->column[k]] += sum[k];
}

static void segment_transpose_multiply(const conic_problem* p, const conic_segment* seg, const double* y, double* out){
    CONIC_WIDTH_SWITCH(seg->width, segment_transpose_multiply_w, p, seg, y, out)}

// out_i = G_i . v over the segment's rows
OSC_FORCE_INLINE void segment_multiply_w(const int width, const conic_problem* p, const conic_segment* seg,
                                         const double* v, double* out) {
    double vc[CONIC_MAX_VARIABLES];
    for (int k = 0; k < width; ++k) vc[k] = v[seg->column[k]];
    for (int i = seg->first; i < seg->end; ++i) {
        double sum = 0.0;
        for (int k = 0; k < width; ++k) sum += p->G[i][seg->column[k]] * vc[k];
        out[i] = sum;
    }
}

static void segment_multiply(const conic_problem* p, const conic_segment* seg, const double* v, double* out) {
    if (seg->width == 0) {
        for (int i = seg->first; i < seg->end; ++i) out[i] = 0.0;
        return;
    }
    CONIC_WIDTH_SWITCH(seg->width, segment_multiply_w, p, seg, v, out)
}

// one Newton direction for the right-hand side bz (= r_z + W (lambda \ d)):
// dx = -(G^T W^-2 G)^-1 (r_x + G^T W^-2 bz), dz = W^-2 (G dx + bz), ds = -r_z - G dx
OSC_FORCE_INLINE void newton_direction_n(const int n, const conic_problem* p, const conic_state* state,
                                         const double* r_x, const double* r_z, const double* bz, double* dx, double* dz,
                                         double* ds) {
    int m = p->rows, l = p->orthant_rows;
    const double* weight = state->scaling.orthant_weight;
    double weighted[CONIC_MAX_ROWS];
    for (int i = 0; i < l; ++i) weighted[i] = weight[i] * bz[i];
    cone_apply_inverse_scaling_squared(p, &state->scaling, bz, weighted);
    double sum[CONIC_MAX_VARIABLES];
    for (int j = 0; j < n; ++j) sum[j] = 0.0;
    for (int k = 0; k < state->product_segment_count; ++k)
        segment_transpose_multiply(p, &state->product_segments[k], weighted, sum);
    for (int j = 0; j < n; ++j) dx[j] = -(r_x[j] + sum[j]);
    factor_solve_n(n, state, dx);
    double g_dx[CONIC_MAX_ROWS];
    for (int k = 0; k < state->product_segment_count; ++k) segment_multiply(p, &state->product_segments[k], dx, g_dx);
    for (int i = 0; i < m; ++i) {
        dz[i] = g_dx[i] + bz[i];
        ds[i] = -r_z[i] - g_dx[i];
    }
    for (int i = 0; i < l; ++i) dz[i] *= weight[i];
    cone_apply_inverse_scaling_squared(p, &state->scaling, dz, dz);
}

OSC_FORCE_INLINE void max_rate_cone(const int dim, const double* s, const double* z, const double* ds, const double* dz,
                                    double* rate) {
    *rate = max2(*rate, max2(soc_step_rate(s, ds, dim), soc_step_rate(z, dz, dim)));
}

// the largest t <= 1 / STEP_FRACTION with s + t ds and z + t dz in the cone
static double max_step(const conic_problem* p, const conic_state* state, const double* ds, const double* dz) {
    const conic_scaling* sc = &state->scaling;
    double rate = STEP_FRACTION; // 1 / rate is the step
    for (int i = 0; i < p->orthant_rows; ++i) {
        rate = max2(rate, -ds[i] * sc->inverse_s[i]);
        rate = max2(rate, -dz[i] * sc->inverse_z[i]);
    }
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++])
        CONIC_CONE_SWITCH(p->cone_dim[k], max_rate_cone, state->s + start, state->z + start, ds + start, dz + start,
                          &rate)
    return 1.0 / rate;
}

// ---------------------------------------------------------------------------------------------
// the iteration

// s = h - G x, with the variable count n a constant (its loop unrolled)
OSC_FORCE_INLINE void primal_slack_n(const int n, const conic_problem* p, const double* x, double* s) {
    for (int i = 0; i < p->rows; ++i) {
        double gx = 0.0;
        for (int j = 0; j < n; ++j) gx += p->G[i][j] * x[j];
        s[i] = p->h[i] - gx;
    }
}

void conic_primal_slack(const conic_problem* p, const double* x, double* s) {
    CONIC_WIDTH_SWITCH(p->variables, primal_slack_n, p, x, s)
}

double conic_slack_violation(const conic_problem* p, const double* s) {
    double violation = -INFINITY;
    for (int i = 0; i < p->orthant_rows; ++i) violation = max2(violation, -s[i]);
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++])
        violation = max2(violation, soc_violation(s + start, p->cone_dim[k]));
    return violation;
}

double conic_violation(const conic_problem* p, const double* x) {
    double s[CONIC_MAX_ROWS];
    conic_primal_slack(p, x, s);
    return conic_slack_violation(p, s);
}

// s = h - G x (moved into the cone by (1 + violation) e when it is not inside) and the dual on
// the central path through it, z = mu s^-1 (s o z = mu e), with mu a multiple of the one that
// best satisfies G^T z = -c: a primal-feasible, perfectly centred start. With `at_barrier` the
// slack and the dual are the ones given in state->s and state->z (conic_offset_start, whose s is
// strictly inside; docs/dcol.md §3.5).
static void centred_start(const conic_problem* p, bool at_barrier, conic_state* state) {
    int l = p->orthant_rows;
    if (at_barrier) return; // s given with x
    conic_primal_slack(p, state->x, state->s);
    double violation = conic_slack_violation(p, state->s);
    if (violation >= 0.0) {
        for (int i = 0; i < l; ++i) state->s[i] += 1.0 + violation;
        for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++]) state->s[start] += 1.0 + violation;
    }
    // v = s^-1 (Jordan inverse: 1 / s_i on the orthant, J s / (s^T J s) on a cone)
    double* v = state->z;
    for (int i = 0; i < l; ++i) v[i] = 1.0 / state->s[i];
    for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++]) {
        int dim = p->cone_dim[k];
        double norm = soc_norm(state->s + start, dim);
        double inverse = 1.0 / (norm * norm);
        v[start] = state->s[start] * inverse;
        for (int i = 1; i < dim; ++i) v[start + i] = -state->s[start + i] * inverse;
    }
    // mu = -2 / (G^T v)_objective: the dual residual's objective component, c + G^T z with
    // z = mu v, is then -1 (its other components are what they are). The least-squares fit of
    // mu G^T v to -c over all components shrank mu where rows 1e3 times larger than the others
    // dominate G^T v, leaving the objective's component unmatched (a dual residual of 1, Newton
    // steps 1e3 to 1e11 times the slacks, cut to nothing): in DCOL the general start failed 2,549
    // of 6,000 pairs of shapes of aspect 1e3 and 585 of 3,000 extreme cones, and none since. Twice
    // the matching value: over 4,900 random DCOL pairs 10.2 iterations, against 10.3 at once, 10.5
    // at five times and 10.8 for three times the least-squares value (docs/dcol.md §3.3). Where
    // the objective's column of G is negative (DCOL's), (G^T v)_objective < 0 as v is inside the
    // cone; elsewhere a mu that is not positive and finite falls back to 1.
    double gv_objective = 0.0;
    for (int i = 0; i < p->rows; ++i) gv_objective += p->G[i][p->objective] * v[i];
    double mu = -2.0 / gv_objective;
    if (!(mu > 0.0 && isfinite(mu))) mu = 1.0;
    for (int i = 0; i < p->rows; ++i) v[i] *= mu;
}

// corrector_rhs on one cone: bz = r_z + W (lambda \ d)
OSC_FORCE_INLINE void corrector_cone(const int dim, const conic_scaling* sc, int k, const double* r_z, double target,
                                     double weight, const double* ds_a, const double* dz_a, double* bz) {
    double d[CONIC_MAX_CONE_DIM] = {0}, u[CONIC_MAX_CONE_DIM], v[CONIC_MAX_CONE_DIM];
    if (ds_a) {
        cone_scale(sc, k, dim, ds_a, u, true);
        cone_scale(sc, k, dim, dz_a, v, false);
        soc_product(u, v, dim, d);
        for (int i = 0; i < dim; ++i) d[i] = -weight * d[i];
    }
    d[0] += target;
    // lambda \ (-lambda o lambda + d') = -lambda + lambda \ d'
    const double* lambda = sc->cone_lambda[k];
    soc_divide(lambda, d, dim, u);
    for (int i = 0; i < dim; ++i) u[i] -= lambda[i];
    cone_scale(sc, k, dim, u, u, false);
    for (int i = 0; i < dim; ++i) bz[i] = r_z[i] + u[i];
}

// centrality = max(centrality, |lambda o lambda - barrier e|_inf) on one cone
OSC_FORCE_INLINE void centrality_cone(const int dim, const double* lambda, double barrier, double* centrality) {
    double lambda2[CONIC_MAX_CONE_DIM];
    soc_product(lambda, lambda, dim, lambda2);
    lambda2[0] -= barrier;
    for (int i = 0; i < dim; ++i) *centrality = max2(*centrality, fabs(lambda2[i]));
}

// the right-hand side bz = r_z + W (lambda \ d) of the corrector, with
// d = -lambda o lambda - (W^-1 ds_a) o (W dz_a) + target e (ds_a NULL: without the second-order term)
static void corrector_rhs(const conic_problem* p, const conic_state* state, const double* r_z, double target,
                          double weight, const double* ds_a, const double* dz_a, double* bz) {
    int l = p->orthant_rows;
    for (int i = 0; i < l; ++i) {
        double correction = ds_a ? weight * (ds_a[i] * dz_a[i]) : 0.0;
        bz[i] = r_z[i] - state->s[i] + (target - correction) * state->scaling.inverse_z[i];
    }
    for (int k = 0, start = l; k < p->cone_count; start += p->cone_dim[k++])
        CONIC_CONE_SWITCH(p->cone_dim[k], corrector_cone, &state->scaling, k, r_z + start, target, weight,
                          ds_a ? ds_a + start : NULL, dz_a ? dz_a + start : NULL, bz + start)
}

// The residuals of an iterate and the measures the stopping rule reads
typedef struct iterate_residuals {
    double r_x[CONIC_MAX_VARIABLES]; // G^T z + c
    double r_z[CONIC_MAX_ROWS];      // s + G x - h
    iterate_measures measures;
} iterate_residuals;

// The residuals of the current iterate (a start at the barrier comes with s = h - G x,
// conic_offset_start: with `residual` false its r_z is rounding, not formed here), its measures,
// its scaling and the factor of its normal matrix
OSC_FORCE_INLINE void measure_iterate_n(const int n, const conic_problem* p, double barrier, double regularization,
                                        bool residual, conic_state* state, iterate_residuals* out) {
    double *r_x = out->r_x, *r_z = out->r_z;
    iterate_measures* measures = &out->measures;
    for (int j = 0; j < n; ++j) r_x[j] = j == p->objective ? 1.0 : 0.0;
    *measures = (iterate_measures){0.0, 0.0, 0.0, 0.0, 0.0};
    double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) normal[i][j] = 0.0;
    for (int k = 0; k < state->orthant_segments; ++k)
        orthant_pass(residual, p, state, &state->segments[k], barrier, r_z, r_x, normal, measures);
    for (int k = state->orthant_segments; k < state->segment_count; ++k) {
        const conic_segment* seg = &state->segments[k];
        segment_residual(p, state, seg, r_z, r_x);
        for (int i = seg->first; i < seg->end; ++i) {
            measures->primal = max2(measures->primal, fabs(r_z[i]));
            measure_row(measures, state->s[i], state->z[i]);
        }
    }
    scaling_cones(p, state->s, state->z, &state->scaling);
    cone_normal_n(n, p, state, normal);
    factor_normal_n(n, regularization, normal, state);
    for (int k = 0; k < p->cone_count; ++k)
        CONIC_CONE_SWITCH(p->cone_dim[k], centrality_cone, state->scaling.cone_lambda[k], barrier,
                          &measures->centrality)
}

// What the stopping rule reads of an iterate
typedef struct iterate_verdict {
    double dual;       // |r_x|_inf
    double dual_scale; // the magnitude the dual residual is measured against (at least 1)
    bool centred;      // on the central path at the barrier, and primal feasible
} iterate_verdict;

// Whether the iterate is centred (|lambda o lambda - barrier e|_inf within CENTRALITY_TOLERANCE of
// the barrier or the floor of rounding) and primal feasible (|r_z|_inf within
// FEASIBILITY_TOLERANCE of the data's scale, at least `scale`), with its dual residual and scale.
// The magnitudes the residuals are measured against are formed only once the iterate is centred
// and only where the residuals exceed their lower bounds' tolerances.
OSC_FORCE_INLINE iterate_verdict judge_iterate(const conic_problem* p, const conic_state* state, double barrier,
                                               bool at_barrier, double scale, const iterate_measures* measures,
                                               const double* r_x) {
    iterate_verdict verdict = {0.0, 1.0, false};
    for (int j = 0; j < p->variables; ++j) verdict.dual = max2(verdict.dual, fabs(r_x[j]));
    double centrality_floor =
        (at_barrier ? CENTRALITY_FLOOR_AT_BARRIER : CENTRALITY_FLOOR) * max2(1.0, measures->s_size * measures->z_size);
    verdict.centred = measures->centrality <= max2(CENTRALITY_TOLERANCE * barrier, centrality_floor);
    double primal = measures->primal, primal_scale = scale;
    if (verdict.centred && (primal > FEASIBILITY_TOLERANCE * scale || verdict.dual > FEASIBILITY_TOLERANCE)) {
        double dual_terms[CONIC_MAX_VARIABLES] = {0};
        for (int k = 0; k < state->product_segment_count; ++k)
            segment_residual_sizes(p, state, &state->product_segments[k], dual_terms, &primal_scale);
        for (int j = 0; j < p->variables; ++j) verdict.dual_scale = max2(verdict.dual_scale, dual_terms[j]);
        verdict.centred = primal <= FEASIBILITY_TOLERANCE * primal_scale;
    }
    return verdict;
}

// The centred, primal-feasible iterate of least relative dual residual, if that residual is within
// STALLED_DUAL_TOLERANCE: where the Newton steps from it only lose accuracy (in DCOL a needle
// against a needle of aspect 1e5: W^-2 spans 1e30, the step from a start at the barrier with a
// dual residual of 4e-8 raised it to 0.07 and then to NaN), a solve with `keep_best` returns to it
// instead of failing
typedef struct best_iterate {
    double x[CONIC_MAX_VARIABLES], s[CONIC_MAX_ROWS], z[CONIC_MAX_ROWS];
    double dual; // relative; INFINITY: none yet
} best_iterate;

static void keep_if_best(const conic_problem* p, const conic_state* state, const iterate_verdict* verdict,
                         best_iterate* best) {
    if (!(verdict->centred && verdict->dual < best->dual * verdict->dual_scale &&
          verdict->dual <= STALLED_DUAL_TOLERANCE * verdict->dual_scale))
        return;
    best->dual = verdict->dual / verdict->dual_scale;
    for (int j = 0; j < p->variables; ++j) best->x[j] = state->x[j];
    for (int i = 0; i < p->rows; ++i) {
        best->s[i] = state->s[i];
        best->z[i] = state->z[i];
    }
}

static void restore_best(const conic_problem* p, const best_iterate* best, conic_state* state) {
    for (int j = 0; j < p->variables; ++j) state->x[j] = best->x[j];
    for (int i = 0; i < p->rows; ++i) {
        state->s[i] = best->s[i];
        state->z[i] = best->z[i];
    }
}

// One predictor-corrector step from the measured iterate (residuals r_x, r_z; mu = s . z / degree).
// The predictor: d = -lambda o lambda, so W (lambda \ d) = -s (never from a start at the barrier,
// where mu equals the barrier up to rounding). Once mu <= barrier the target is the barrier
// whatever the predictor's step (sigma <= 1), so it is skipped: the step is a pure Newton step
// towards that central point, where Mehrotra's second-order term (which aims at mu = 0) would pull
// off it. On the step that reaches the barrier from above (sigma mu <= barrier < mu) the term is
// weighted by 1 - barrier / mu, the share of the gap that step removes (measured over DCOL's 49
// pairs of shapes: 10.8 iterations, against 11.4 without the term there and 10.9 with it whole).
OSC_FORCE_INLINE void step_n(const int n, const conic_problem* p, double barrier, bool at_barrier, double mu,
                             const iterate_residuals* residuals, conic_state* state) {
    int m = p->rows;
    const double *r_x = residuals->r_x, *r_z = residuals->r_z;
    double bz[CONIC_MAX_ROWS], dz_a[CONIC_MAX_ROWS], ds_a[CONIC_MAX_ROWS];
    double step_a = 1.0, target = barrier, weight = 1.0;
    bool correct = false;
    if (mu > barrier && !at_barrier) {
        double dx_a[CONIC_MAX_VARIABLES];
        for (int i = 0; i < m; ++i) bz[i] = r_z[i] - state->s[i];
        newton_direction_n(n, p, state, r_x, r_z, bz, dx_a, dz_a, ds_a);
        step_a = min2(1.0, max_step(p, state, ds_a, dz_a));
        // sigma = 1 - step_a, not Mehrotra's cube: measured over DCOL's 49 pairs, 11.4 iterations
        // against 12.8 (the square: 12.2)
        double sigma = 1.0 - step_a;
        target = max2(sigma * mu, barrier);
        correct = true;
        if (sigma * mu <= barrier) weight = 1.0 - barrier / mu;
    }
    corrector_rhs(p, state, r_z, target, weight, correct ? ds_a : NULL, dz_a, bz);
    double dx[CONIC_MAX_VARIABLES], dz[CONIC_MAX_ROWS], ds[CONIC_MAX_ROWS];
    newton_direction_n(n, p, state, r_x, r_z, bz, dx, dz, ds);
    double step = max_step(p, state, ds, dz);
    step = min2(1.0, STEP_FRACTION * step);
#ifdef CONIC_TRACE
    fprintf(stderr, "mu %.3e step_a %.3f step %.3f\n", mu, step_a, step);
#endif
    for (int j = 0; j < n; ++j) state->x[j] += step * dx[j];
    for (int i = 0; i < m; ++i) {
        state->s[i] += step * ds[i];
        state->z[i] += step * dz[i];
    }
}

// conic_solve with the variable count n a constant (its loops unrolled)
OSC_FORCE_INLINE osc_status solve_n(const int n, const conic_problem* p, double barrier, int max_iterations,
                                    double regularization, bool at_barrier, bool keep_best, conic_state* state) {
    int degree = p->orthant_rows + p->cone_count;
    find_segments(p, state);
    cone_grams(p, state);
    centred_start(p, at_barrier, state);
    double scale = 1.0;
    for (int i = 0; i < p->rows; ++i) scale = max2(scale, fabs(p->h[i]));
    iterate_residuals residuals;
    const iterate_measures* measures = &residuals.measures;
    bool was_centred = false, restored = false;
    best_iterate best;
    best.dual = INFINITY;
    for (int iteration = 0;; ++iteration) {
        bool residual = !(at_barrier && iteration == 0);
        measure_iterate_n(n, p, barrier, regularization, residual, state, &residuals);
        state->iterations = iteration;
        double mu = measures->gap / degree;
        // converged: feasible and on the central path at the barrier parameter (after two centred
        // iterates in a row, or a restored one, within the stalled tolerance)
        iterate_verdict verdict = judge_iterate(p, state, barrier, at_barrier, scale, measures, residuals.r_x);
        double dual = verdict.dual, dual_scale = verdict.dual_scale;
        if (verdict.centred && (dual <= FEASIBILITY_TOLERANCE * dual_scale ||
                                ((was_centred || restored) && dual <= STALLED_DUAL_TOLERANCE * dual_scale)))
            return OSC_OK;
        // (a start at the barrier is centred by construction: the stall needs two Newton iterates)
        was_centred = verdict.centred && iteration > 0;
        bool diverged = !isfinite(mu), exhausted = iteration >= max_iterations;
        if ((diverged || exhausted) && keep_best && best.dual < INFINITY && !restored) {
            restore_best(p, &best, state); // measured again there (its scaling and factor, for the derivatives)
            restored = true;
            continue;
        }
        if (exhausted || diverged)
            return osc_fail(OSC_ERR_NOT_CONVERGED,
                            "cone program: no convergence in %d iterations (mu %g, off-centre %g, residuals %g, %g)",
                            iteration, mu, measures->centrality, measures->primal, dual);
        if (!residual) { // the start's r_z, for the step (its r_x part discarded)
            double unused[CONIC_MAX_VARIABLES] = {0};
            for (int k = 0; k < state->orthant_segments; ++k)
                segment_residual(p, state, &state->segments[k], residuals.r_z, unused);
        }
        if (keep_best) keep_if_best(p, state, &verdict, &best);
        step_n(n, p, barrier, at_barrier, mu, &residuals, state);
    }
}

#define CONIC_SOLVE_N(count)                                                                                           \
    static osc_status solve_##count(const conic_problem* p, double barrier, int max_iterations, double regularization, \
                                    bool at_barrier, bool keep_best, conic_state* state) {                             \
        return solve_n(count, p, barrier, max_iterations, regularization, at_barrier, keep_best, state);               \
    }
CONIC_SOLVE_N(4)
CONIC_SOLVE_N(5)
CONIC_SOLVE_N(6)
CONIC_SOLVE_N(7)
CONIC_SOLVE_N(8)

// the solve for fewer than 4 variables, with n a variable
static osc_status solve_small(const conic_problem* p, double barrier, int max_iterations, double regularization,
                              bool at_barrier, bool keep_best, conic_state* state) {
    return solve_n(p->variables, p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
}

osc_status conic_solve(const conic_problem* p, double barrier, int max_iterations, double regularization,
                       bool at_barrier, bool keep_best, conic_state* state) {
    osc_status status = conic_check(p);
    if (status != OSC_OK) {
        state->iterations = 0;
        return status;
    }
    switch (p->variables) {
        case 4: return solve_4(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 5: return solve_5(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 6: return solve_6(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 7: return solve_7(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 8: return solve_8(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        default: return solve_small(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
    }
}
