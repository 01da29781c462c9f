// conic.c: the primal-dual interior-point method behind DCOL (Tracy et al. 2023 §II-A; L. Vandenberghe,
// "The CVXOPT linear and quadratic cone program solvers", §§ 3-5 for the Nesterov-Todd scaling of
// the second-order cone and the reduced KKT system). docs/dcol.md §3.
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
// central differences (at the general floor, point derivatives were off by 1e-2 at a rim contact)
static const double CENTRALITY_FLOOR_AT_BARRIER = 1e-14;
// the dual residual accepted once two iterates in a row are centred and feasible: near flat
// contacts and at large alpha W^-2 spans ~1e20 and rounding in dz = W^-2 (G dx + bz) keeps
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
// 3 and 4 of the DCOL cones (CONIC_CONE_SWITCH), so its loops are unrolled.

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
// the normal matrix G^T W^-2 G (n <= 8) and its LDL^T factor
//
// The variable count n is 4 to 8. Every routine whose inner loops run over the variables takes it
// as a constant: the solver is instantiated once per n (conic_solve dispatches), so those loops
// are unrolled.

// LDL^T with unit lower L (its strict lower triangle in l) and the reciprocal pivots 1 / D:
// no square roots on the critical path
OSC_FORCE_INLINE void ldl_n(const int n, double a[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], double shift,
                            double l[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], double* inverse_pivot) {
    double scaled[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]; // scaled[i][k] = l[i][k] D_k
    for (int j = 0; j < n; ++j) {
        double pivot = a[j][j] + shift;
        for (int k = 0; k < j; ++k) pivot -= l[j][k] * scaled[j][k];
        // a pivot lost to rounding is replaced by the shift: the step stays a descent direction
        pivot = pivot > shift ? pivot : (shift > 0.0 ? shift : 1e-300);
        double inverse = 1.0 / pivot;
        l[j][j] = 1.0;
        inverse_pivot[j] = inverse;
        for (int i = j + 1; i < n; ++i) {
            double value = a[i][j];
            for (int k = 0; k < j; ++k) value -= l[i][k] * scaled[j][k];
            scaled[i][j] = value;
            l[i][j] = value * inverse;
        }
    }
}

OSC_FORCE_INLINE void factor_solve_n(const int n, const conic_state* state, double* rhs) {
    const double* inverse = state->factor_inverse_diagonal;
    for (int i = 1; i < n; ++i) {
        double value = rhs[i];
        for (int k = 0; k < i; ++k) value -= state->factor[i][k] * rhs[k];
        rhs[i] = value;
    }
    for (int i = 0; i < n; ++i) rhs[i] *= inverse[i];
    for (int i = n - 2; i >= 0; --i) {
        double value = rhs[i];
        for (int k = i + 1; k < n; ++k) value -= state->factor[k][i] * rhs[k];
        rhs[i] = value;
    }
}

// factor_solve_n on `count` right-hand sides at once, rhs[count][CONIC_MAX_VARIABLES]: the same
// operations in the same order per right-hand side, with the independent ones innermost
OSC_FORCE_INLINE void factor_solve_many_n(const int n, const conic_state* state, int count,
                                          double (*rhs)[CONIC_MAX_VARIABLES]) {
    const double* inverse = state->factor_inverse_diagonal;
    double b[CONIC_MAX_VARIABLES][CONIC_SOLVE_MANY_MAX];
    for (int c = 0; c < count; ++c)
        for (int i = 0; i < n; ++i) b[i][c] = rhs[c][i];
    for (int i = 1; i < n; ++i)
        for (int k = 0; k < i; ++k) {
            double factor = state->factor[i][k];
            for (int c = 0; c < count; ++c) b[i][c] -= factor * b[k][c];
        }
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < count; ++c) b[i][c] *= inverse[i];
    for (int i = n - 2; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) {
            double factor = state->factor[k][i];
            for (int c = 0; c < count; ++c) b[i][c] -= factor * b[k][c];
        }
    for (int c = 0; c < count; ++c)
        for (int i = 0; i < n; ++i) rhs[c][i] = b[i][c];
}

#define CONIC_INSTANTIATE(name, ...)                                                                                   \
    switch (n) {                                                                                                       \
        case 4: name(4, __VA_ARGS__); break;                                                                           \
        case 5: name(5, __VA_ARGS__); break;                                                                           \
        case 6: name(6, __VA_ARGS__); break;                                                                           \
        case 7: name(7, __VA_ARGS__); break;                                                                           \
        default: name(8, __VA_ARGS__); break;                                                                          \
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
    ldl_n(n, normal, state->factor_shift, state->factor, state->factor_inverse_diagonal);
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

static void primal_slack(const conic_problem* p, const double* x, double* s) {
    CONIC_WIDTH_SWITCH(p->variables, primal_slack_n, p, x, s)
}

static double slack_violation(const conic_problem* p, const double* s) {
    double violation = -INFINITY;
    for (int i = 0; i < p->orthant_rows; ++i) violation = max2(violation, -s[i]);
    for (int k = 0, start = p->orthant_rows; k < p->cone_count; start += p->cone_dim[k++])
        violation = max2(violation, soc_violation(s + start, p->cone_dim[k]));
    return violation;
}

double conic_violation(const conic_problem* p, const double* x) {
    double s[CONIC_MAX_ROWS];
    primal_slack(p, x, s);
    return slack_violation(p, s);
}

// ---------------------------------------------------------------------------------------------
// a start next to the central point, from an exact optimum (docs/dcol.md §3.5)

// the LDL^T factor (without pivoting) of the k x k symmetric positive definite matrix a, in place
// of its lower triangle, with its pivots' reciprocals; false when a pivot falls below 1e-12 of the
// largest diagonal entry
static bool small_spd_factor(int k, double a[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES],
                             double inverse_pivot[CONIC_MAX_VARIABLES]) {
    double largest = 0.0;
    for (int i = 0; i < k; ++i) largest = max2(largest, a[i][i]);
    for (int j = 0; j < k; ++j) {
        for (int m = 0; m < j; ++m) {
            double ljm = a[j][m] * inverse_pivot[m];
            for (int i = j; i < k; ++i) a[i][j] -= a[i][m] * ljm;
        }
        if (!(a[j][j] > 1e-12 * largest)) return false;
        inverse_pivot[j] = 1.0 / a[j][j];
    }
    return true;
}

// solves a w = b in place of b with small_spd_factor's factor of a
static void small_spd_solve(int k, double a[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES],
                            const double inverse_pivot[CONIC_MAX_VARIABLES], double* b) {
    for (int i = 0; i < k; ++i)
        for (int m = 0; m < i; ++m) b[i] -= a[i][m] * inverse_pivot[m] * b[m];
    for (int i = k - 1; i >= 0; --i) {
        double value = b[i];
        for (int m = i + 1; m < k; ++m) value -= a[m][i] * b[m];
        b[i] = value * inverse_pivot[i];
    }
}

// whether a cone vector lies strictly inside its cone (z_0 > |z_1|)
static bool soc_interior(const double* v, int dim) {
    double tail = 0.0;
    for (int i = 1; i < dim; ++i) tail += v[i] * v[i];
    return v[0] > 0.0 && v[0] * v[0] > tail;
}

// A multiplier below this times the barrier has a central offset above 1e-6 of the normalised size
static const double FLAT_MULTIPLIER = 1e6;

// the kinds of an active block's multiplier: an orthant row's z_i, a cone's tau (on its boundary:
// z = tau J s / s_0) or one entry of a cone's whole dual (at its apex, s = 0); at most
// OFFSET_MAX_ACTIVE active blocks, and at most CONIC_MAX_VARIABLES of them dependent (a polytope
// vertex of 11 faces against a point; docs/dcol.md §3.5)
enum { BLOCK_ROW, BLOCK_CONE, BLOCK_APEX, OFFSET_MAX_ACTIVE = 2 * CONIC_MAX_VARIABLES };

// f = G^T z over the inactive blocks at their central duals barrier s^-1
static void inactive_force(const conic_problem* p, double barrier, const double* s, const int* active, double* f) {
    int n = p->variables, l = p->orthant_rows;
    for (int j = 0; j < n; ++j) f[j] = 0.0;
    for (int i = 0; i < l; ++i)
        if (active[i] < 0)
            for (int j = 0; j < n; ++j) f[j] += p->G[i][j] * (barrier / s[i]);
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        if (active[start] >= 0) continue;
        int dim = p->cone_dim[c];
        const double* sc = s + start;
        double s1 = 0.0;
        for (int i = 1; i < dim; ++i) s1 += sc[i] * sc[i];
        double scale = barrier / (sc[0] * sc[0] - s1);
        for (int j = 0; j < n; ++j) {
            double value = p->G[start][j] * sc[0];
            for (int i = 1; i < dim; ++i) value -= p->G[start + i][j] * sc[i];
            f[j] += scale * value;
        }
    }
}

// At most n independent active blocks: the multipliers from sum_b z_b m_b = -c by least squares
// (consistent at an exact optimum), shifted by the part of the inactive push f the blocks span, and
// the least change dx of x that meets the first-order central offsets (conic_offset_start)
static bool independent_offsets(const conic_problem* p, double barrier, int k, double m[][CONIC_MAX_VARIABLES],
                                const int* kind, const double* gap, const int* active, const double* f,
                                double* multiplier, double* dx) {
    int n = p->variables, l = p->orthant_rows;
    // the Gram matrix of the normals is factored once for the three solves below
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    for (int a = 0; a < k; ++a) {
        for (int b = 0; b <= a; ++b) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += m[a][j] * m[b][j];
            gram[a][b] = gram[b][a] = dot;
        }
        multiplier[a] = -m[a][p->objective];
    }
    double inverse_pivot[CONIC_MAX_VARIABLES];
    if (!small_spd_factor(k, gram, inverse_pivot)) return false;
    small_spd_solve(k, gram, inverse_pivot, multiplier);
    double residual = 0.0;
    for (int j = 0; j < n; ++j) {
        double value = j == p->objective ? 1.0 : 0.0;
        for (int b = 0; b < k; ++b) value += multiplier[b] * m[b][j];
        residual = max2(residual, fabs(value));
    }
    // consistent to 1e-2 of the terms (at least c's 1): a needle's normal (aspect 1e5) is 1e5
    // times c, and its direction at the walk's point is good to 1e-7 (where it leaves the needle's
    // axis by 1e-5 of |n|)
    if (!(residual <= 1e-2)) {
        double terms = 1.0;
        for (int j = 0; j < n; ++j) {
            double size = 0.0;
            for (int b = 0; b < k; ++b) size += fabs(multiplier[b] * m[b][j]);
            terms = max2(terms, size);
        }
        if (!(residual <= 1e-2 * terms)) return false;
    }
    // the inactive blocks' central duals push with f; the part of f the active blocks span shifts
    // their multipliers (least squares, first order in the barrier): a vertex among near faces
    // otherwise starts with a dual residual of barrier / the nearest inactive gap, just above the
    // stopping rule's. The rest of f moves x along the curvature, which the re-centring step does.
    double shift[CONIC_MAX_VARIABLES];
    for (int b = 0; b < k; ++b) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= m[b][j] * f[j];
        shift[b] = dot;
    }
    small_spd_solve(k, gram, inverse_pivot, shift);
    double shifted[CONIC_MAX_VARIABLES];
    bool positive = true;
    for (int b = 0; b < k; ++b) {
        shifted[b] = multiplier[b] + shift[b];
        positive = positive && (kind[b] == BLOCK_APEX || shifted[b] > 0.0);
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++])
        if (active[start] >= 0 && kind[active[start]] == BLOCK_APEX)
            positive = positive && soc_interior(shifted + active[start], p->cone_dim[c]);
    if (positive)
        for (int b = 0; b < k; ++b) multiplier[b] = shifted[b];
    // the first-order central offsets: m_i . dx = -mu / z_i on an active orthant row (its slack
    // becomes mu / z_i), m_c . dx = -mu / (2 tau_c) on an active cone (s^T J s becomes
    // mu s_0 / tau_c, z_c = tau_c J s / s_0), G_c dx = -mu z_c^-1 = -mu J z_c / (z_c^T J z_c) on a
    // cone at its apex (s_c becomes mu z_c^-1); dx = sum_b w_b m_b, the least change that does it
    double w[CONIC_MAX_VARIABLES];
    for (int b = 0; b < k; ++b) {
        if (kind[b] == BLOCK_APEX) continue;
        if (!(multiplier[b] > 0.0)) return false; // not strictly complementary
        w[b] = gap[b] - barrier / (kind[b] == BLOCK_CONE ? 2.0 * multiplier[b] : multiplier[b]);
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        int first = active[start], dim = p->cone_dim[c];
        if (first < 0 || kind[first] != BLOCK_APEX) continue;
        const double* zc = multiplier + first;
        if (!soc_interior(zc, dim)) return false; // not strictly complementary
        double norm2 = zc[0] * zc[0];
        for (int i = 1; i < dim; ++i) norm2 -= zc[i] * zc[i];
        double scale = barrier / norm2;
        w[first] = -scale * zc[0];
        for (int i = 1; i < dim; ++i) w[first + i] = scale * zc[i];
    }
    small_spd_solve(k, gram, inverse_pivot, w);
    for (int j = 0; j < n; ++j) {
        dx[j] = 0.0;
        for (int b = 0; b < k; ++b) dx[j] += w[b] * m[b][j];
    }
    return true;
}

// A maximal independent subset of the k normals m, greedily in order: rest[0 .. count) and the
// others in dependent[0 .. *dependent_count); gram holds the subset's Gram matrix factored
// (small_spd_factor) with inverse_pivot. Returns count, or -1 when that factor fails.
static int independent_subset(int n, int k, double m[][CONIC_MAX_VARIABLES], int* rest, int* dependent,
                              int* dependent_count, double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES],
                              double* inverse_pivot) {
    double factor[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    int count = 0;
    *dependent_count = 0;
    for (int b = 0; b < k; ++b) {
        if (count == n) {
            dependent[(*dependent_count)++] = b;
            continue;
        }
        for (int a = 0; a <= count; ++a) {
            const double* ma = m[a < count ? rest[a] : b];
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += ma[j] * m[b][j];
            gram[count][a] = gram[a][count] = dot;
        }
        memcpy(factor, gram, sizeof factor);
        if (small_spd_factor(count + 1, factor, inverse_pivot))
            rest[count++] = b;
        else
            dependent[(*dependent_count)++] = b;
    }
    return small_spd_factor(count, gram, inverse_pivot) ? count : -1;
}

// The multipliers z = z_p + W t (k blocks, d = columns of W) that maximise the concave
// Phi(t) = sum_b kappa_b log z_b with every z_b > 0, by damped Newton steps on
// Phi_sigma = sum_b kappa_b log(z_b + sigma) for a shift sigma that starts where t = 0 is inside
// and falls to 0 (each maximiser starts the next). False when no t makes every z_b positive, or
// the multipliers are unbounded.
static bool analytic_centre(int k, int d, const double* z_p, double w[][CONIC_MAX_VARIABLES], const double* kappa,
                            double* t) {
    double lowest = INFINITY, size = 0.0;
    for (int b = 0; b < k; ++b) {
        lowest = min2(lowest, z_p[b]);
        size = max2(size, fabs(z_p[b]));
    }
    if (!(size > 0.0)) return false;
    for (int i = 0; i < d; ++i) t[i] = 0.0;
    double sigma = max2(0.0, -lowest) + size;
    for (int stage = 0; stage < 80; ++stage) {
        // maximise Phi_sigma from t
        for (int iteration = 0; iteration < 50; ++iteration) {
            double gradient[CONIC_MAX_VARIABLES] = {0}, hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES] = {{0}};
            double value = 0.0;
            for (int b = 0; b < k; ++b) {
                double zb = z_p[b] + sigma;
                for (int i = 0; i < d; ++i) zb += w[b][i] * t[i];
                value += kappa[b] * log(zb);
                for (int i = 0; i < d; ++i) {
                    gradient[i] += kappa[b] * w[b][i] / zb;
                    for (int j = 0; j <= i; ++j) hessian[i][j] += kappa[b] * w[b][i] * w[b][j] / (zb * zb);
                }
            }
            double pivots[CONIC_MAX_VARIABLES], step[CONIC_MAX_VARIABLES];
            if (!small_spd_factor(d, hessian, pivots)) return false;
            memcpy(step, gradient, sizeof step);
            small_spd_solve(d, hessian, pivots, step);
            double decrement = 0.0; // the Newton decrement squared: the predicted gain times 2
            for (int i = 0; i < d; ++i) decrement += gradient[i] * step[i];
            if (!(decrement > 1e-24)) break;
            // halve until inside and not lower
            double length = 1.0, trial[CONIC_MAX_VARIABLES];
            for (int halving = 0;; ++halving) {
                if (halving == 60) return false;
                for (int i = 0; i < d; ++i) trial[i] = t[i] + length * step[i];
                double trial_value = 0.0;
                bool inside = true;
                for (int b = 0; b < k && inside; ++b) {
                    double zb = z_p[b] + sigma;
                    for (int i = 0; i < d; ++i) zb += w[b][i] * trial[i];
                    inside = zb > 0.0;
                    if (inside) trial_value += kappa[b] * log(zb);
                }
                if (inside && trial_value >= value) break;
                length *= 0.5;
            }
            double moved = 0.0;
            for (int i = 0; i < d; ++i) {
                moved = max2(moved, fabs(trial[i] - t[i]));
                t[i] = trial[i];
                if (!(fabs(t[i]) <= 1e12 * size)) return false; // unbounded
            }
            if (moved <= 1e-15 * size) break;
        }
        if (sigma == 0.0) return true;
        double least = INFINITY;
        for (int b = 0; b < k; ++b) {
            double zb = z_p[b];
            for (int i = 0; i < d; ++i) zb += w[b][i] * t[i];
            least = min2(least, zb);
        }
        // every multiplier positive: the true barrier next; else a smaller shift that keeps t inside
        if (least > 0.0)
            sigma = 0.0;
        else if (-least < 0.5 * sigma)
            sigma = max2(0.1 * sigma, -2.0 * least);
        else
            return false; // the shifted maximiser does not move into z > 0: none is positive
    }
    return false;
}

// Active blocks with dependencies among them, none at a cone's apex (a polytope vertex where more
// than three faces meet, against a point of the other body; docs/dcol.md §3.5). A maximal
// independent subset R of the normals (in order) carries the least-squares multipliers of
// sum_b z_b m_b = -(c + f); each other block d depends on R (m_d + sum_R w_R m_R = 0), so the
// multipliers form z_p + W t (z_p zero on the dependent blocks, W's column for d: 1 at d and w on
// R). On the central path the offsets -mu kappa_b / z_b (kappa 1 on a row, 1/2 on a cone) lie in
// the range of M: W^T (kappa / z) = 0, the stationarity of sum_b kappa_b log z_b, whose maximiser
// over the positive multipliers is the analytic centre of the optimal ones, where the central
// path ends (analytic_centre). dx is the least change that meets R's offsets; the dependent
// blocks' then hold too.
static bool degenerate_offsets(const conic_problem* p, double barrier, int k, double m[][CONIC_MAX_VARIABLES],
                               const int* kind, const double* gap, const double* f, double* multiplier, double* dx) {
    int n = p->variables;
    int rest[CONIC_MAX_VARIABLES], dependent[OFFSET_MAX_ACTIVE], d = 0;
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], inverse_pivot[CONIC_MAX_VARIABLES];
    int count = independent_subset(n, k, m, rest, dependent, &d, gram, inverse_pivot);
    if (count < 0 || d == 0 || d > CONIC_MAX_VARIABLES) return false;
    // z_p on R, and each dependent block's coefficients on R
    double z_p[OFFSET_MAX_ACTIVE] = {0}, w[OFFSET_MAX_ACTIVE][CONIC_MAX_VARIABLES] = {{0}};
    double particular[CONIC_MAX_VARIABLES];
    for (int a = 0; a < count; ++a) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= m[rest[a]][j] * ((j == p->objective ? 1.0 : 0.0) + f[j]);
        particular[a] = dot;
    }
    small_spd_solve(count, gram, inverse_pivot, particular);
    double miss_c = 0.0;
    for (int j = 0; j < n; ++j) {
        double value = (j == p->objective ? 1.0 : 0.0) + f[j];
        for (int a = 0; a < count; ++a) value += particular[a] * m[rest[a]][j];
        miss_c = max2(miss_c, fabs(value));
    }
    if (!(miss_c <= 1e-6)) return false; // not an optimum of these blocks
    for (int a = 0; a < count; ++a) z_p[rest[a]] = particular[a];
    for (int i = 0; i < d; ++i) {
        const double* md = m[dependent[i]];
        double coefficient[CONIC_MAX_VARIABLES];
        for (int a = 0; a < count; ++a) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot -= m[rest[a]][j] * md[j];
            coefficient[a] = dot;
        }
        small_spd_solve(count, gram, inverse_pivot, coefficient);
        double miss = 0.0, norm = 0.0;
        for (int j = 0; j < n; ++j) {
            double value = md[j];
            for (int a = 0; a < count; ++a) value += coefficient[a] * m[rest[a]][j];
            miss = max2(miss, fabs(value));
            norm = max2(norm, fabs(md[j]));
        }
        if (!(miss <= 1e-9 * norm)) return false; // nearly, not exactly, dependent
        w[dependent[i]][i] = 1.0;
        for (int a = 0; a < count; ++a) w[rest[a]][i] = coefficient[a];
    }
    double kappa[OFFSET_MAX_ACTIVE], t[CONIC_MAX_VARIABLES];
    for (int b = 0; b < k; ++b) kappa[b] = kind[b] == BLOCK_CONE ? 0.5 : 1.0;
    if (!analytic_centre(k, d, z_p, w, kappa, t)) return false;
    for (int b = 0; b < k; ++b) {
        multiplier[b] = z_p[b];
        for (int i = 0; i < d; ++i) multiplier[b] += w[b][i] * t[i];
        if (!(multiplier[b] > 0.0)) return false;
    }
    // dx = M_R^T (M_R M_R^T)^-1 offsets_R
    double offsets[CONIC_MAX_VARIABLES];
    for (int a = 0; a < count; ++a) offsets[a] = gap[rest[a]] - barrier * kappa[rest[a]] / multiplier[rest[a]];
    small_spd_solve(count, gram, inverse_pivot, offsets);
    for (int j = 0; j < n; ++j) {
        dx[j] = 0.0;
        for (int a = 0; a < count; ++a) dx[j] += offsets[a] * m[rest[a]][j];
    }
    return true;
}

// An orthonormal basis basis[0 .. n - count) of the vectors orthogonal to the `count` independent
// rows m[rows[a]] (the last columns of Q in M^T = Q R, by Householder reflections); false when a
// row is dependent on the earlier ones
static bool null_space(int n, double m[][CONIC_MAX_VARIABLES], const int* rows, int count,
                       double basis[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]) {
    double reflector[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]; // I - r r^T, |r|^2 = 2
    for (int b = 0; b < count; ++b) {
        double* r = reflector[b];
        for (int j = 0; j < n; ++j) r[j] = m[rows[b]][j];
        for (int a = 0; a < b; ++a) {
            double dot = 0.0;
            for (int j = a; j < n; ++j) dot += reflector[a][j] * r[j];
            for (int j = a; j < n; ++j) r[j] -= dot * reflector[a][j];
        }
        double norm2 = 0.0;
        for (int j = b; j < n; ++j) norm2 += r[j] * r[j];
        double norm = sqrt(norm2);
        if (!(norm > 0.0)) return false;
        double scale2 = norm2 + fabs(r[b]) * norm;
        r[b] += r[b] >= 0.0 ? norm : -norm;
        for (int j = 0; j < b; ++j) r[j] = 0.0;
        double inverse = 1.0 / sqrt(scale2);
        for (int j = b; j < n; ++j) r[j] *= inverse;
    }
    for (int i = 0; i < n - count; ++i) {
        double* e = basis[i];
        for (int j = 0; j < n; ++j) e[j] = j == count + i;
        for (int a = count - 1; a >= 0; --a) {
            double dot = 0.0;
            for (int j = a; j < n; ++j) dot += reflector[a][j] * e[j];
            for (int j = a; j < n; ++j) e[j] -= dot * reflector[a][j];
        }
    }
    return true;
}

// The barrier problem of a flat contact restricted to the null space N of the strong blocks
// (flat_offsets), in the coordinates y of v = v0 + N y:
//     psi(y) = objective . y + y^T K y / 2 - sum_i log s_i(y) - sum_c log(s_c(y)^T J s_c(y)) / 2
// over the rows i and cones c that are not strong (skip marks the strong ones), s_i(y) =
// base_i - along_i . y and s_c(y) = cone_base_c - cone_along_c y, and K the strong cones'
// curvature (docs/dcol.md §3.5, "Flat contacts")
typedef struct reduced_barrier {
    int free, rows, cone_count;
    int cone_dim[CONIC_MAX_CONES];
    double objective[CONIC_MAX_VARIABLES];
    double K[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    double base[CONIC_MAX_ROWS];
    double along[CONIC_MAX_ROWS][CONIC_MAX_VARIABLES];
    bool skip[CONIC_MAX_ROWS];
    double cone_base[CONIC_MAX_CONES][CONIC_MAX_CONE_DIM];
    double cone_along[CONIC_MAX_CONES][CONIC_MAX_CONE_DIM][CONIC_MAX_VARIABLES];
    bool cone_skip[CONIC_MAX_CONES];
} reduced_barrier;

// a cone's slack at y, s = base - along y, and q = s^T J s; false when s is not strictly inside
static bool reduced_cone_slack(const reduced_barrier* r, int c, const double* y, double* s, double* q) {
    int dim = r->cone_dim[c];
    for (int i = 0; i < dim; ++i) {
        s[i] = r->cone_base[c][i];
        for (int e = 0; e < r->free; ++e) s[i] -= r->cone_along[c][i][e] * y[e];
    }
    double tail = 0.0;
    for (int i = 1; i < dim; ++i) tail += s[i] * s[i];
    *q = s[0] * s[0] - tail;
    return s[0] > 0.0 && *q > 0.0;
}

// psi's value, gradient and Hessian (lower triangle) at y; false when y is not strictly inside
static bool reduced_evaluate(const reduced_barrier* r, const double* y, double* value, double* gradient,
                             double hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]) {
    int free = r->free;
    double v = 0.0;
    for (int c = 0; c < free; ++c) {
        double ky = 0.0;
        for (int e = 0; e < free; ++e) ky += r->K[c][e] * y[e];
        gradient[c] = r->objective[c] + ky;
        v += (r->objective[c] + 0.5 * ky) * y[c];
        for (int e = 0; e <= c; ++e) hessian[c][e] = r->K[c][e];
    }
    for (int i = 0; i < r->rows; ++i) {
        if (r->skip[i]) continue;
        double si = r->base[i];
        for (int c = 0; c < free; ++c) si -= r->along[i][c] * y[c];
        if (!(si > 0.0)) return false;
        v -= log(si);
        for (int c = 0; c < free; ++c) {
            gradient[c] += r->along[i][c] / si;
            for (int e = 0; e <= c; ++e) hessian[c][e] += r->along[i][c] * r->along[i][e] / (si * si);
        }
    }
    for (int k = 0; k < r->cone_count; ++k) {
        if (r->cone_skip[k]) continue;
        // -log(q) / 2: gradient A^T J s / q, Hessian (2 (A^T J s)(A^T J s)^T / q - A^T J A) / q
        double s[CONIC_MAX_CONE_DIM], q, ajs[CONIC_MAX_VARIABLES];
        if (!reduced_cone_slack(r, k, y, s, &q)) return false;
        v -= 0.5 * log(q);
        int dim = r->cone_dim[k];
        const double(*a)[CONIC_MAX_VARIABLES] = r->cone_along[k];
        for (int c = 0; c < free; ++c) {
            ajs[c] = a[0][c] * s[0];
            for (int i = 1; i < dim; ++i) ajs[c] -= a[i][c] * s[i];
            gradient[c] += ajs[c] / q;
        }
        for (int c = 0; c < free; ++c)
            for (int e = 0; e <= c; ++e) {
                double aja = a[0][c] * a[0][e];
                for (int i = 1; i < dim; ++i) aja -= a[i][c] * a[i][e];
                hessian[c][e] += (2.0 * ajs[c] * ajs[e] / q - aja) / q;
            }
    }
    *value = v;
    return true;
}

// The y minimising psi from y (strictly inside): Newton steps, each halved until it stays inside
// and does not raise psi (the strong cones' curvature K is stiff, of order tau / barrier, so the
// steps damped by 1 / (1 + lambda) that psi's self-concordance would allow crawl across it). False
// when the Hessian is singular or 100 steps do not converge.
static bool barrier_minimiser(const reduced_barrier* r, double* y) {
    int free = r->free;
    double value, gradient[CONIC_MAX_VARIABLES], hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    if (!reduced_evaluate(r, y, &value, gradient, hessian)) return false;
    for (int iteration = 0; iteration < 100; ++iteration) {
        double pivots[CONIC_MAX_VARIABLES], step[CONIC_MAX_VARIABLES];
        if (!small_spd_factor(free, hessian, pivots)) return false;
        for (int c = 0; c < free; ++c) step[c] = -gradient[c];
        small_spd_solve(free, hessian, pivots, step);
        double decrement = 0.0, reach = 0.0, where = 1.0;
        for (int c = 0; c < free; ++c) {
            decrement -= gradient[c] * step[c];
            reach = max2(reach, fabs(step[c]));
            where = max2(where, fabs(y[c]));
        }
        // (the decrement carries the rounding of a gradient as large as 1 / barrier, and of K's
        // terms: a predicted gain of 5e-13 is far below what the re-centring resolves)
        if (!(decrement > 1e-12) || reach <= 1e-13 * where) return true;
        double t = 1.0;
        for (int halving = 0;; ++halving) {
            // nothing lower along the step where the predicted gain t decrement / 2 falls below
            // the rounding of psi: converged to rounding (the gradient carries that of K's terms)
            if (0.5 * t * decrement <= 1e-13 * (fabs(value) + 1.0)) return true;
            if (halving == 60) return false;
            double trial[CONIC_MAX_VARIABLES], trial_value, trial_gradient[CONIC_MAX_VARIABLES];
            double trial_hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
            for (int c = 0; c < free; ++c) trial[c] = y[c] + t * step[c];
            if (reduced_evaluate(r, trial, &trial_value, trial_gradient, trial_hessian) && trial_value < value) {
                memcpy(y, trial, sizeof(double) * (size_t)free);
                value = trial_value;
                memcpy(gradient, trial_gradient, sizeof trial_gradient);
                memcpy(hessian, trial_hessian, sizeof trial_hessian);
                break;
            }
            t *= 0.5;
        }
    }
    return false;
}

// A flat contact (a face resting on a face, a capsule or cylinder lying on a face, a cylinder or
// cone standing on its base, a padded polygon lying flat, each within the barrier's resolution of
// flat): some active blocks carry multipliers so small that their central offsets barrier / z_b
// reach across the contact. The strong blocks keep their offsets; the central point then minimises
// (c . v) / mu - sum log s_i - sum log(s_c^T J s_c) / 2 over the other rows and cones, on the set
// where the strong blocks sit at their offsets: Newton in the null space N of their normals, a
// strong cone's curvature added to the Hessian with its multiplier (the Lagrangian's; without it
// N's directions across the cone would be held by nothing but far rows). That is where the walk's
// vertex moves to: the middle of the contact region when flat, towards the vertex as the tilt grows
// (docs/dcol.md §3.5). False at a cone's apex, when nothing is flat, or when the pieces fail.
static bool flat_offsets(const conic_problem* p, double barrier, int k, double m[][CONIC_MAX_VARIABLES],
                         const int* kind, const double* gap, const double* block_norm, int* active, bool all_strong,
                         const double* x, double* multiplier, double* dx) {
    int n = p->variables, l = p->orthant_rows;
    for (int b = 0; b < k; ++b)
        if (kind[b] == BLOCK_APEX) return false;
    // a maximal independent subset of the active blocks and their least-squares multipliers
    int rest[CONIC_MAX_VARIABLES], dependent[OFFSET_MAX_ACTIVE], d = 0;
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], inverse_pivot[CONIC_MAX_VARIABLES];
    int count = independent_subset(n, k, m, rest, dependent, &d, gram, inverse_pivot);
    if (count < 0) return false;
    double z[CONIC_MAX_VARIABLES];
    for (int a = 0; a < count; ++a) z[a] = -m[rest[a]][p->objective];
    small_spd_solve(count, gram, inverse_pivot, z);
    // strong: an offset below 1e-6 of the normalised size
    int strong[CONIC_MAX_VARIABLES], strong_count = 0;
    for (int a = 0; a < count; ++a)
        if (z[a] > FLAT_MULTIPLIER * barrier) strong[strong_count++] = rest[a];
    // nothing flat, unless the free directions are those no active block holds (`all_strong`: a
    // cylinder lying along a box's edge, whose barrier rows at the far ends centre it)
    if (strong_count == 0 || (strong_count == count && count == k && !all_strong)) return false;
    // the strong blocks' Gram factor, least-norm offsets, and N (Householder on M_s^T)
    for (int a = 0; a < strong_count; ++a)
        for (int b = 0; b <= a; ++b) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += m[strong[a]][j] * m[strong[b]][j];
            gram[a][b] = gram[b][a] = dot;
        }
    if (!small_spd_factor(strong_count, gram, inverse_pivot)) return false;
    double zs[CONIC_MAX_VARIABLES], offsets[CONIC_MAX_VARIABLES], v[CONIC_MAX_VARIABLES];
    for (int a = 0; a < strong_count; ++a) zs[a] = -m[strong[a]][p->objective];
    small_spd_solve(strong_count, gram, inverse_pivot, zs);
    for (int a = 0; a < strong_count; ++a) {
        if (!(zs[a] > 0.0)) return false;
        offsets[a] = gap[strong[a]] - barrier / (kind[strong[a]] == BLOCK_CONE ? 2.0 * zs[a] : zs[a]);
    }
    small_spd_solve(strong_count, gram, inverse_pivot, offsets);
    for (int j = 0; j < n; ++j) {
        v[j] = x[j];
        for (int a = 0; a < strong_count; ++a) v[j] += offsets[a] * m[strong[a]][j];
    }
    double basis[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    if (!null_space(n, m, strong, strong_count, basis)) return false;
    // the reduced problem: every block at v + N y, the strong ones skipped
    reduced_barrier r;
    r.free = n - strong_count;
    r.rows = l;
    r.cone_count = p->cone_count;
    bool is_strong[OFFSET_MAX_ACTIVE] = {false};
    for (int a = 0; a < strong_count; ++a) is_strong[strong[a]] = true;
    for (int c = 0; c < r.free; ++c) {
        // the objective's share of a free direction below the rounding of the null space's basis
        // (1e-16 of its unit vectors, a tilt far below a pose's rounding) is none: divided by the
        // barrier it pulled a symmetric contact's centre 4e-7 of its length off its middle
        double along = basis[c][p->objective];
        r.objective[c] = fabs(along) > 1e-15 ? along / barrier : 0.0;
        for (int e = 0; e < r.free; ++e) r.K[c][e] = 0.0;
    }
    for (int i = 0; i < l; ++i) {
        double gv = 0.0;
        for (int j = 0; j < n; ++j) gv += p->G[i][j] * v[j];
        r.base[i] = p->h[i] - gv;
        r.skip[i] = active[i] >= 0 && is_strong[active[i]];
        for (int c = 0; c < r.free; ++c) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += p->G[i][j] * basis[c][j];
            r.along[i][c] = dot; // s_i(v + N y) = base_i - along_i . y
        }
    }
    double cone_tail[CONIC_MAX_CONES];
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c];
        r.cone_dim[c] = dim;
        r.cone_skip[c] = active[start] >= 0 && is_strong[active[start]];
        for (int i = 0; i < dim; ++i) {
            double gv = 0.0;
            for (int j = 0; j < n; ++j) gv += p->G[start + i][j] * v[j];
            r.cone_base[c][i] = p->h[start + i] - gv;
            for (int e = 0; e < r.free; ++e) {
                double dot = 0.0;
                for (int j = 0; j < n; ++j) dot += p->G[start + i][j] * basis[e][j];
                r.cone_along[c][i][e] = dot;
            }
        }
        double tail = 0.0; // |s_1| at v
        for (int i = 1; i < dim; ++i) tail += r.cone_base[c][i] * r.cone_base[c][i];
        tail = cone_tail[c] = sqrt(tail);
        if (!r.cone_skip[c]) continue;
        // a strong cone held on its boundary s_0 = |s_1|: the boundary's second derivative along
        // y is -A_1^T (I - u u^T) A_1 / |s_1| (A_1 = the tail rows of cone_along, u = s_1 / |s_1|),
        // which the Lagrangian weighs with the multiplier tau (psi is in units of the barrier)
        double u[CONIC_MAX_CONE_DIM], au[CONIC_MAX_VARIABLES];
        if (!(tail > 0.0)) return false;
        for (int i = 1; i < dim; ++i) u[i] = r.cone_base[c][i] / tail;
        double weight = 0.0;
        for (int a = 0; a < strong_count; ++a)
            if (strong[a] == active[start]) weight = zs[a] / block_norm[strong[a]] / (barrier * tail);
        for (int e = 0; e < r.free; ++e) {
            au[e] = 0.0;
            for (int i = 1; i < dim; ++i) au[e] += r.cone_along[c][i][e] * u[i];
        }
        for (int e = 0; e < r.free; ++e)
            for (int f = 0; f < r.free; ++f) {
                double aa = 0.0;
                for (int i = 1; i < dim; ++i) aa += r.cone_along[c][i][e] * r.cone_along[c][i][f];
                r.K[e][f] += weight * (aa - au[e] * au[f]);
            }
    }
    // an inside start: from v along the mean inward direction of the weak blocks (at zero there),
    // halfway to the nearest other row, then halved until inside every cone
    double y[CONIC_MAX_VARIABLES] = {0}, inward[CONIC_MAX_VARIABLES] = {0};
    int weak = 0;
    for (int i = 0; i < l; ++i) {
        if (r.skip[i] || r.base[i] > 1e-9) continue;
        ++weak;
        double norm = 0.0;
        for (int c = 0; c < r.free; ++c) norm += r.along[i][c] * r.along[i][c];
        if (!(norm > 0.0)) return false;
        for (int c = 0; c < r.free; ++c) inward[c] -= r.along[i][c] / sqrt(norm);
    }
    for (int c = 0; c < p->cone_count; ++c) {
        const double* sc = r.cone_base[c];
        double tail = cone_tail[c];
        if (r.cone_skip[c] || sc[0] - tail > 1e-9) continue;
        ++weak;
        // up the boundary's gradient: s_0 - |s_1| grows along -A^T (1, -s_1 / |s_1|)
        double direction[CONIC_MAX_VARIABLES], norm = 0.0;
        for (int e = 0; e < r.free; ++e) {
            direction[e] = -r.cone_along[c][0][e];
            for (int i = 1; i < r.cone_dim[c] && tail > 0.0; ++i) direction[e] += r.cone_along[c][i][e] * sc[i] / tail;
            norm += direction[e] * direction[e];
        }
        if (!(norm > 0.0)) return false;
        for (int e = 0; e < r.free; ++e) inward[e] += direction[e] / sqrt(norm);
    }
    // across a strong cone the curvature K is of order tau / barrier: the start keeps off those
    // directions, inward <- (K + delta I)^-1 inward with delta 1e-9 of K's trace (0: unchanged)
    double trace = 0.0;
    for (int c = 0; c < r.free; ++c) trace += r.K[c][c];
    if (trace > 0.0) {
        double shifted[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], pivots[CONIC_MAX_VARIABLES];
        for (int c = 0; c < r.free; ++c)
            for (int e = 0; e <= c; ++e) shifted[c][e] = r.K[c][e] + (c == e ? 1e-9 * trace : 0.0);
        if (!small_spd_factor(r.free, shifted, pivots)) return false;
        small_spd_solve(r.free, shifted, pivots, inward);
    }
    double length = INFINITY;
    for (int i = 0; i < l; ++i) {
        if (r.skip[i]) continue;
        double rate = 0.0;
        for (int c = 0; c < r.free; ++c) rate += r.along[i][c] * inward[c];
        if (rate > 0.0 && r.base[i] > 1e-9) length = min2(length, r.base[i] / rate);
    }
    if (!isfinite(length)) length = 1.0;
    length *= 0.5;
    // where the objective pulls back into the weak blocks (a tilt), its pull o . inward balances
    // their barriers' -weak / t nearer than that: t = weak / (o . inward)
    double pull = 0.0;
    for (int c = 0; c < r.free; ++c) pull += r.objective[c] * inward[c];
    if (pull > 0.0) length = min2(length, weak / pull);
    for (int halving = 0;; ++halving) {
        if (halving == 60) return false;
        for (int c = 0; c < r.free; ++c) y[c] = length * inward[c];
        double value, gradient[CONIC_MAX_VARIABLES], hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
        if (reduced_evaluate(&r, y, &value, gradient, hessian)) break;
        length *= 0.5;
    }
    if (!barrier_minimiser(&r, y)) return false;
    // the central point and the strong blocks' multipliers from c + f (f the other blocks'
    // central duals: barrier / s on a row, barrier J s / (s^T J s) on a cone), exactly, since the
    // minimiser's stationarity puts c + f in their span (to the strong cones' curvature)
    double f[CONIC_MAX_VARIABLES] = {0};
    for (int j = 0; j < n; ++j) {
        dx[j] = v[j] - x[j];
        for (int c = 0; c < r.free; ++c) dx[j] += y[c] * basis[c][j];
    }
    for (int i = 0; i < l; ++i) {
        if (r.skip[i]) continue;
        double si = r.base[i];
        for (int c = 0; c < r.free; ++c) si -= r.along[i][c] * y[c];
        for (int j = 0; j < n; ++j) f[j] += p->G[i][j] * barrier / si;
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        if (r.cone_skip[c]) continue;
        double s[CONIC_MAX_CONE_DIM], q;
        if (!reduced_cone_slack(&r, c, y, s, &q)) return false;
        for (int j = 0; j < n; ++j) {
            double gjs = p->G[start][j] * s[0];
            for (int i = 1; i < r.cone_dim[c]; ++i) gjs -= p->G[start + i][j] * s[i];
            f[j] += barrier * gjs / q;
        }
    }
    for (int a = 0; a < strong_count; ++a) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= m[strong[a]][j] * ((j == p->objective ? 1.0 : 0.0) + f[j]);
        zs[a] = dot;
    }
    small_spd_solve(strong_count, gram, inverse_pivot, zs);
    for (int a = 0; a < strong_count; ++a)
        if (!(zs[a] > 0.0)) return false;
    for (int i = 0; i < l; ++i)
        if (active[i] >= 0 && !is_strong[active[i]]) active[i] = -1;
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++])
        if (active[start] >= 0 && !is_strong[active[start]]) active[start] = -1;
    for (int a = 0; a < strong_count; ++a) multiplier[strong[a]] = zs[a];
    return true;
}

// conic_offset_start, or with `flat_only` conic_centre_flat
static bool offset_start(const conic_problem* p, double barrier, double active_gap, bool flat_only, double* x,
                         double* s, double* z) {
    int n = p->variables, l = p->orthant_rows;
    primal_slack(p, x, s);
    // the active blocks and their normals m_b: an orthant row's G_i, a cone's G_c^T J (s_c / s_c0)
    // on its boundary, every row G_i of a cone at its apex; active[r] is the block of row r (a
    // cone's first row; -1: inactive). More blocks than their rank is a degenerate vertex.
    // gap[b] is the block's gap at x (s_i, s_0 - |s_1|, 0 at an apex): an optimum found to
    // rounding is met exactly by moving each gap to its central value, not by adding that value
    double m[OFFSET_MAX_ACTIVE][CONIC_MAX_VARIABLES], gap[OFFSET_MAX_ACTIVE];
    int kind[OFFSET_MAX_ACTIVE];
    int active[CONIC_MAX_ROWS];
    int k = 0;
    bool apex = false;
    for (int i = 0; i < l; ++i) {
        active[i] = -1;
        if (!(s[i] <= active_gap)) continue;
        if (k == OFFSET_MAX_ACTIVE) return false;
        for (int j = 0; j < n; ++j) m[k][j] = p->G[i][j];
        active[i] = k;
        gap[k] = s[i];
        kind[k++] = BLOCK_ROW;
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c];
        const double* sc = s + start;
        double s1 = 0.0;
        for (int i = 1; i < dim; ++i) s1 += sc[i] * sc[i];
        active[start] = -1;
        if (!(sc[0] > active_gap)) {
            // at the apex: the whole dual is free, one multiplier per row
            if (!(sqrt(s1) <= active_gap) || k + dim > n) return false;
            active[start] = k;
            for (int i = 0; i < dim; ++i, ++k) {
                for (int j = 0; j < n; ++j) m[k][j] = p->G[start + i][j];
                gap[k] = 0.0;
                kind[k] = BLOCK_APEX;
            }
            apex = true;
            continue;
        }
        // the gap s_0 - |s_1| against active_gap times the boundary's gradient |m_c| (at least 1):
        // a thin ellipsoid's rows carry its inverse semi-axes, up to 1e3 times a ball's, and its gap
        // at an optimum found to 1e-12 in x was above 1e-9, so the contact was missed (a gap above
        // 1e3 active_gap is out at once; the test compares squares)
        double cone_gap = sc[0] - sqrt(s1);
        if (!(cone_gap <= 1e3 * active_gap)) continue;
        if (k == OFFSET_MAX_ACTIVE) return false;
        double inverse_s0 = 1.0 / sc[0], norm2 = 0.0;
        for (int j = 0; j < n; ++j) {
            double value = p->G[start][j];
            for (int i = 1; i < dim; ++i) value -= p->G[start + i][j] * sc[i] * inverse_s0;
            m[k][j] = value;
            norm2 += value * value;
        }
        if (cone_gap > 0.0 && !(cone_gap * cone_gap <= active_gap * active_gap * max2(1.0, norm2))) continue;
        gap[k] = cone_gap;
        active[start] = k;
        kind[k++] = BLOCK_CONE;
    }
    if (k == 0 || (k > n && apex)) return false;
    // where the normals' lengths differ by more than 10 times, every block but an apex's row is
    // scaled to a unit normal (its gap then a distance in x, its multiplier z |m|): a thin
    // ellipsoid's normal is 1e3 times a ball's, and the Gram matrices below, scaled by the largest
    // diagonal entry, lost the others' pivots (of the same order, as for the usual shapes, the
    // square roots and divisions are not spent)
    double norm[OFFSET_MAX_ACTIVE], norm2[OFFSET_MAX_ACTIVE], shortest = INFINITY, longest = 0.0;
    for (int b = 0; b < k; ++b) {
        norm[b] = 1.0;
        if (kind[b] == BLOCK_APEX) continue;
        norm2[b] = 0.0;
        for (int j = 0; j < n; ++j) norm2[b] += m[b][j] * m[b][j];
        if (!(norm2[b] > 0.0)) return false;
        shortest = min2(shortest, norm2[b]);
        longest = max2(longest, norm2[b]);
    }
    bool scaled = longest > 100.0 * shortest;
    if (scaled)
        for (int b = 0; b < k; ++b) {
            if (kind[b] == BLOCK_APEX) continue;
            norm[b] = sqrt(norm2[b]);
            double inverse = 1.0 / norm[b];
            for (int j = 0; j < n; ++j) m[b][j] *= inverse;
            gap[b] *= inverse;
        }
    double f[CONIC_MAX_VARIABLES], multiplier[OFFSET_MAX_ACTIVE], dx[CONIC_MAX_VARIABLES];
    inactive_force(p, barrier, s, active, f);
    bool offset =
        !flat_only && ((k <= n && independent_offsets(p, barrier, k, m, kind, gap, active, f, multiplier, dx)) ||
                       (!apex && degenerate_offsets(p, barrier, k, m, kind, gap, f, multiplier, dx)));
    if (!offset && !flat_offsets(p, barrier, k, m, kind, gap, norm, active, flat_only, x, multiplier, dx)) return false;
    for (int j = 0; j < n; ++j) x[j] += dx[j];
    primal_slack(p, x, s);
    // offsets that cross a row or leave a cone mean a flat contact (flat_offsets)
    bool inside = slack_violation(p, s) < 0.0;
    if (offset && !inside) {
        for (int j = 0; j < n; ++j) x[j] -= dx[j];
        if (!flat_offsets(p, barrier, k, m, kind, gap, norm, active, false, x, multiplier, dx)) return false;
        for (int j = 0; j < n; ++j) x[j] += dx[j];
        primal_slack(p, x, s);
        inside = slack_violation(p, s) < 0.0;
    }
    if (!inside) {
        for (int j = 0; j < n; ++j) x[j] -= dx[j];
        return false;
    }
    // the dual: the multipliers on the active blocks (a cone's tau J s / s_0 at the moved point,
    // at its apex the multipliers themselves), barrier s^-1 elsewhere. Not barrier s^-1
    // throughout: an active block's s^T J s (or s_i) is of the order of the barrier and carries the
    // rounding of s, 1e-16 of the data's scale, so its reciprocal would be off by 1e-6 relative,
    // and the dual residual with it
    for (int b = 0; b < k && scaled; ++b) multiplier[b] /= norm[b]; // z of the unscaled block
    for (int i = 0; i < l; ++i) z[i] = active[i] >= 0 ? multiplier[active[i]] : barrier / s[i];
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c];
        const double* sc = s + start;
        if (active[start] >= 0 && kind[active[start]] == BLOCK_APEX) {
            for (int i = 0; i < dim; ++i) z[start + i] = multiplier[active[start] + i];
            continue;
        }
        double scale;
        if (active[start] >= 0) {
            scale = multiplier[active[start]] / sc[0];
        } else {
            double s1 = 0.0;
            for (int i = 1; i < dim; ++i) s1 += sc[i] * sc[i];
            scale = barrier / (sc[0] * sc[0] - s1);
        }
        z[start] = scale * sc[0];
        for (int i = 1; i < dim; ++i) z[start + i] = -scale * sc[i];
    }
    return true;
}

bool conic_offset_start(const conic_problem* p, double barrier, double active_gap, double* x, double* s, double* z) {
    return offset_start(p, barrier, active_gap, false, x, s, z);
}

bool conic_centre_flat(const conic_problem* p, double barrier, double active_gap, double* x, double* s, double* z) {
    return offset_start(p, barrier, active_gap, true, x, s, z);
}

// s = h - G x (moved into the cone by (1 + violation) e when it is not inside) and the dual on
// the central path through it, z = mu s^-1 (s o z = mu e), with mu a multiple of the one that
// best satisfies G^T z = -c: a primal-feasible, perfectly centred start. With `at_barrier` the
// slack and the dual are the ones given in state->s and state->z (conic_offset_start, whose s is
// strictly inside; docs/dcol.md §3.5).
static bool centred_start(const conic_problem* p, bool at_barrier, conic_state* state) {
    int l = p->orthant_rows;
    if (at_barrier) return true; // s given with x
    primal_slack(p, state->x, state->s);
    double violation = slack_violation(p, state->s);
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
    // mu G^T v to -c over all components shrank mu where a thin shape's rows (1e3 times a ball's)
    // dominate G^T v, leaving the objective's component unmatched (a dual residual of 1, Newton
    // steps 1e3 to 1e11 times the slacks, cut to nothing): the general start failed 2,549 of
    // 6,000 pairs of shapes of aspect 1e3 and 585 of 3,000 extreme cones, and none since. Twice
    // the matching value: over 4,900 random pairs of the test shapes 10.2 iterations, against
    // 10.3 at once, 10.5 at five times and 10.8 for three times the least-squares value
    // (docs/dcol.md §3.3). The objective's column of G is negative and v is inside the cone, so
    // (G^T v)_objective < 0.
    double gv_objective = 0.0;
    for (int i = 0; i < p->rows; ++i) gv_objective += p->G[i][p->objective] * v[i];
    double mu = -2.0 / gv_objective;
    if (!(mu > 0.0 && isfinite(mu))) mu = 1.0;
    for (int i = 0; i < p->rows; ++i) v[i] *= mu;
    return true;
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

OSC_FORCE_INLINE osc_status solve_n(const int n, const conic_problem* p, double barrier, int max_iterations,
                                    double regularization, bool at_barrier, bool keep_best, conic_state* state) {
    int m = p->rows, l = p->orthant_rows, degree = l + p->cone_count;
    find_segments(p, state);
    cone_grams(p, state);
    if (!centred_start(p, at_barrier, state)) {
        state->iterations = 0;
        return osc_fail(OSC_ERR_NOT_CONVERGED, "osc_dcol: the start is not inside the cone");
    }
    double scale = 1.0;
    for (int i = 0; i < m; ++i) scale = max2(scale, fabs(p->h[i]));

    double r_x[CONIC_MAX_VARIABLES], r_z[CONIC_MAX_ROWS];
    bool was_centred = false;
    // the centred, primal-feasible iterate of least relative dual residual, if that residual is
    // within STALLED_DUAL_TOLERANCE: where the Newton steps from it only lose accuracy (a needle
    // against a needle of aspect 1e5: W^-2 spans 1e30, the step from a start at the barrier with
    // a dual residual of 4e-8 raised it to 0.07 and then to NaN), a solve with `keep_best`
    // returns to it instead of failing
    double best_x[CONIC_MAX_VARIABLES] = {0}, best_s[CONIC_MAX_ROWS], best_z[CONIC_MAX_ROWS];
    double best_dual = INFINITY;
    bool restored = false;
    for (int iteration = 0;; ++iteration) {
        // residuals, measures, scaling and normal matrix of the current iterate. A start at the
        // barrier comes with s = h - G x (conic_offset_start): its r_z is rounding, formed only if
        // a step needs it
        bool residual = !(at_barrier && iteration == 0);
        for (int j = 0; j < n; ++j) r_x[j] = j == p->objective ? 1.0 : 0.0;
        iterate_measures measures = {0.0, 0.0, 0.0, 0.0, 0.0};
        double normal[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) normal[i][j] = 0.0;
        for (int k = 0; k < state->orthant_segments; ++k)
            orthant_pass(residual, p, state, &state->segments[k], barrier, r_z, r_x, normal, &measures);
        for (int k = state->orthant_segments; k < state->segment_count; ++k) {
            const conic_segment* seg = &state->segments[k];
            segment_residual(p, state, seg, r_z, r_x);
            for (int i = seg->first; i < seg->end; ++i) {
                measures.primal = max2(measures.primal, fabs(r_z[i]));
                measure_row(&measures, state->s[i], state->z[i]);
            }
        }
        scaling_cones(p, state->s, state->z, &state->scaling);
        cone_normal_n(n, p, state, normal);
        factor_normal_n(n, regularization, normal, state);
        double primal = measures.primal, dual = 0.0, s_size = measures.s_size, z_size = measures.z_size;
        for (int j = 0; j < n; ++j) dual = max2(dual, fabs(r_x[j]));
        double mu = measures.gap / degree;
        state->iterations = iteration;

        // converged: feasible and on the central path at the barrier parameter
        double centrality = measures.centrality;
        for (int k = 0; k < p->cone_count; ++k)
            CONIC_CONE_SWITCH(p->cone_dim[k], centrality_cone, state->scaling.cone_lambda[k], barrier, &centrality)
        double centrality_floor =
            (at_barrier ? CENTRALITY_FLOOR_AT_BARRIER : CENTRALITY_FLOOR) * max2(1.0, s_size * z_size);
        bool centred = centrality <= max2(CENTRALITY_TOLERANCE * barrier, centrality_floor);
        // the magnitudes the residuals are measured against (at least scale and 1), only once the
        // iterate is centred and only where the residuals exceed those lower bounds' tolerances
        double primal_scale = scale, dual_scale = 1.0;
        if (centred && (primal > FEASIBILITY_TOLERANCE * scale || dual > FEASIBILITY_TOLERANCE)) {
            double dual_terms[CONIC_MAX_VARIABLES] = {0};
            for (int k = 0; k < state->product_segment_count; ++k)
                segment_residual_sizes(p, state, &state->product_segments[k], dual_terms, &primal_scale);
            for (int j = 0; j < n; ++j) dual_scale = max2(dual_scale, dual_terms[j]);
            centred = primal <= FEASIBILITY_TOLERANCE * primal_scale;
        }
        if (centred && (dual <= FEASIBILITY_TOLERANCE * dual_scale ||
                        ((was_centred || restored) && dual <= STALLED_DUAL_TOLERANCE * dual_scale)))
            return OSC_OK;
        // (a start at the barrier is centred by construction: the stall needs two Newton iterates)
        was_centred = centred && iteration > 0;
        bool diverged = !isfinite(mu), exhausted = iteration >= max_iterations;
        if ((diverged || exhausted) && keep_best && best_dual < INFINITY && !restored) {
            // measured again at the best iterate (its scaling and factor, for the derivatives)
            for (int j = 0; j < n; ++j) state->x[j] = best_x[j];
            for (int i = 0; i < m; ++i) {
                state->s[i] = best_s[i];
                state->z[i] = best_z[i];
            }
            restored = true;
            continue;
        }
        if (exhausted || diverged)
            return osc_fail(OSC_ERR_NOT_CONVERGED,
                            "osc_dcol: no convergence in %d iterations (mu %g, off-centre %g, "
                            "residuals %g, %g)",
                            iteration, mu, centrality, primal, dual);

        // predictor: d = -lambda o lambda, so W (lambda \ d) = -s (never from a start at the
        // barrier, where mu equals the barrier up to rounding). Once mu <= barrier the target
        // is the barrier whatever the predictor's step (sigma <= 1), so it is skipped: the step is
        // a pure Newton step towards that central point, where Mehrotra's second-order term (which
        // aims at mu = 0) would pull off it. On the step that reaches the barrier from above
        // (sigma mu <= barrier < mu) the term is weighted by 1 - barrier / mu, the share of the
        // gap that step removes (measured over the 49 pairs: 10.8 iterations, against 11.4
        // without the term there and 10.9 with it whole)
        if (!residual) { // the start's r_z, for the step (its r_x part discarded)
            double unused[CONIC_MAX_VARIABLES] = {0};
            for (int k = 0; k < state->orthant_segments; ++k)
                segment_residual(p, state, &state->segments[k], r_z, unused);
        }
        if (keep_best && centred && dual < best_dual * dual_scale && dual <= STALLED_DUAL_TOLERANCE * dual_scale) {
            best_dual = dual / dual_scale;
            for (int j = 0; j < n; ++j) best_x[j] = state->x[j];
            for (int i = 0; i < m; ++i) {
                best_s[i] = state->s[i];
                best_z[i] = state->z[i];
            }
        }
        double bz[CONIC_MAX_ROWS], dz_a[CONIC_MAX_ROWS], ds_a[CONIC_MAX_ROWS];
        double step_a = 1.0, target = barrier, weight = 1.0;
        bool correct = false;
        if (mu > barrier && !at_barrier) {
            double dx_a[CONIC_MAX_VARIABLES];
            for (int i = 0; i < m; ++i) bz[i] = r_z[i] - state->s[i];
            newton_direction_n(n, p, state, r_x, r_z, bz, dx_a, dz_a, ds_a);
            step_a = min2(1.0, max_step(p, state, ds_a, dz_a));
            // sigma = 1 - step_a, not Mehrotra's cube: measured over the 49 pairs, 11.4 iterations
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
        fprintf(stderr, "it %d mu %.3e primal %.2e dual %.2e central %.2e step_a %.3f step %.3f\n", iteration, mu,
                primal, dual, centrality, step_a, step);
#endif
        for (int j = 0; j < n; ++j) state->x[j] += step * dx[j];
        for (int i = 0; i < m; ++i) {
            state->s[i] += step * ds[i];
            state->z[i] += step * dz[i];
        }
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

osc_status conic_solve(const conic_problem* p, double barrier, int max_iterations, double regularization,
                       bool at_barrier, bool keep_best, conic_state* state) {
    switch (p->variables) {
        case 4: return solve_4(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 5: return solve_5(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 6: return solve_6(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        case 7: return solve_7(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
        default: return solve_8(p, barrier, max_iterations, regularization, at_barrier, keep_best, state);
    }
}
