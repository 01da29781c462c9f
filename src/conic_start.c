// conic_start.c: a start next to the central point of a cone program from an exact optimum
// (conic_offset_start, conic_centre_flat; docs/dcol.md §3.5).
//
// At an exact optimum x the active blocks (orthant rows at zero slack, cones on their boundary or
// at their apex) carry multipliers z_b with sum_b z_b m_b = -c. The central point of a small
// barrier mu lies at first order where every active block's slack has moved to its central offset
// (mu / z_b on a row), and the dual is the multipliers there: conic_offset_start moves x by the
// least change that meets those offsets (independent_offsets), by the analytic centre of the
// multipliers where the blocks are dependent (degenerate_offsets), or, on an optimal face, to the
// barrier problem's minimiser on the set where the strong blocks sit at their offsets
// (flat_offsets). conic_solve then re-centres from there in a step or two.

#include "conic.h"

#include "base_internal.h"
#include "dense.h"

#include <string.h>

// min / max without the library calls fmin / fmax make without -ffast-math
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

// the L D L^T factor (dense_ldlt_factor) of the k x k symmetric positive definite matrix a, in
// place of its lower triangle, with its pivots' reciprocals; false when a pivot falls below 1e-12
// of the largest diagonal entry
static bool spd_factor(int k, double a[][CONIC_MAX_VARIABLES], double* inverse_pivot) {
    double largest = 0.0;
    for (int i = 0; i < k; ++i) largest = max2(largest, a[i][i]);
    return dense_ldlt_factor(k, &a[0][0], CONIC_MAX_VARIABLES, 1e-12 * largest, inverse_pivot);
}

// solves a w = b in place of b with spd_factor's factor of a
static void spd_solve(int k, double a[][CONIC_MAX_VARIABLES], const double* inverse_pivot, double* b) {
    dense_ldlt_solve(k, &a[0][0], CONIC_MAX_VARIABLES, inverse_pivot, b);
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
// OFFSET_MAX_ACTIVE active blocks, and at most CONIC_MAX_VARIABLES of them dependent (in DCOL a
// polytope vertex of 11 faces against a point; docs/dcol.md §3.5)
enum { BLOCK_ROW, BLOCK_CONE, BLOCK_APEX, OFFSET_MAX_ACTIVE = 2 * CONIC_MAX_VARIABLES };

// The active blocks at x and their normals m_b: an orthant row's G_i, a cone's G_c^T J (s_c / s_c0)
// on its boundary, every row G_i of a cone at its apex. More blocks than their rank is a degenerate
// vertex. gap[b] is the block's gap at x (s_i, s_0 - |s_1|, 0 at an apex): an optimum found to
// rounding is met exactly by moving each gap to its central value, not by adding that value.
typedef struct active_set {
    int count; // the blocks
    bool apex; // a cone at its apex among them
    double m[OFFSET_MAX_ACTIVE][CONIC_MAX_VARIABLES];
    double gap[OFFSET_MAX_ACTIVE];
    int kind[OFFSET_MAX_ACTIVE];
    // with `scaled`, every block but an apex's row is scaled to a unit normal (its gap then a
    // distance in x, its multiplier z |m|), norm[b] its length; else norm[b] = 1
    bool scaled;
    double norm[OFFSET_MAX_ACTIVE];
    int block_of_row[CONIC_MAX_ROWS]; // the block of row r (a cone's first row), -1: inactive
} active_set;

// the active orthant rows into `set`; false when there are more than OFFSET_MAX_ACTIVE
static bool active_rows(const conic_problem* p, const double* s, double active_gap, active_set* set) {
    int n = p->variables;
    for (int i = 0; i < p->orthant_rows; ++i) {
        set->block_of_row[i] = -1;
        if (!(s[i] <= active_gap)) continue;
        int k = set->count;
        if (k == OFFSET_MAX_ACTIVE) return false;
        for (int j = 0; j < n; ++j) set->m[k][j] = p->G[i][j];
        set->block_of_row[i] = k;
        set->gap[k] = s[i];
        set->kind[k] = BLOCK_ROW;
        set->count = k + 1;
    }
    return true;
}

// the active cones into `set`: at the apex one block per row, on the boundary one block; false at
// an apex with too few variables left or more than OFFSET_MAX_ACTIVE blocks
static bool active_cones(const conic_problem* p, const double* s, double active_gap, active_set* set) {
    int n = p->variables;
    for (int c = 0, start = p->orthant_rows; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c], k = set->count;
        const double* sc = s + start;
        double s1 = 0.0;
        for (int i = 1; i < dim; ++i) s1 += sc[i] * sc[i];
        set->block_of_row[start] = -1;
        if (!(sc[0] > active_gap)) {
            // at the apex: the whole dual is free, one multiplier per row
            if (!(sqrt(s1) <= active_gap) || k + dim > n) return false;
            set->block_of_row[start] = k;
            for (int i = 0; i < dim; ++i, ++k) {
                for (int j = 0; j < n; ++j) set->m[k][j] = p->G[start + i][j];
                set->gap[k] = 0.0;
                set->kind[k] = BLOCK_APEX;
            }
            set->count = k;
            set->apex = true;
            continue;
        }
        // the gap s_0 - |s_1| against active_gap times the boundary's gradient |m_c| (at least 1):
        // rows scaled by large factors (in DCOL a thin ellipsoid's inverse semi-axes, up to 1e3
        // times a ball's) left a gap at an optimum found to 1e-12 in x above 1e-9, so the block was
        // missed (a gap above 1e3 active_gap is out at once; the test compares squares)
        double cone_gap = sc[0] - sqrt(s1);
        if (!(cone_gap <= 1e3 * active_gap)) continue;
        if (k == OFFSET_MAX_ACTIVE) return false;
        double inverse_s0 = 1.0 / sc[0], norm2 = 0.0;
        for (int j = 0; j < n; ++j) {
            double value = p->G[start][j];
            for (int i = 1; i < dim; ++i) value -= p->G[start + i][j] * sc[i] * inverse_s0;
            set->m[k][j] = value;
            norm2 += value * value;
        }
        if (cone_gap > 0.0 && !(cone_gap * cone_gap <= active_gap * active_gap * max2(1.0, norm2))) continue;
        set->gap[k] = cone_gap;
        set->block_of_row[start] = k;
        set->kind[k] = BLOCK_CONE;
        set->count = k + 1;
    }
    return true;
}

// Where the normals' lengths differ by more than 10 times, every block but an apex's row is scaled
// to a unit normal: the Gram matrices below, scaled by the largest diagonal entry, otherwise lose
// the others' pivots (of the same order, the square roots and divisions are not spent). False when
// a normal is zero.
static bool scale_normals(int n, active_set* set) {
    double norm2[OFFSET_MAX_ACTIVE], shortest = INFINITY, longest = 0.0;
    for (int b = 0; b < set->count; ++b) {
        set->norm[b] = 1.0;
        if (set->kind[b] == BLOCK_APEX) continue;
        norm2[b] = 0.0;
        for (int j = 0; j < n; ++j) norm2[b] += set->m[b][j] * set->m[b][j];
        if (!(norm2[b] > 0.0)) return false;
        shortest = min2(shortest, norm2[b]);
        longest = max2(longest, norm2[b]);
    }
    set->scaled = longest > 100.0 * shortest;
    if (set->scaled)
        for (int b = 0; b < set->count; ++b) {
            if (set->kind[b] == BLOCK_APEX) continue;
            set->norm[b] = sqrt(norm2[b]);
            double inverse = 1.0 / set->norm[b];
            for (int j = 0; j < n; ++j) set->m[b][j] *= inverse;
            set->gap[b] *= inverse;
        }
    return true;
}

// the active blocks at slack s (active_rows, active_cones, scale_normals); false where
// conic_offset_start gives up: none, too many, or more than n with an apex among them
static bool find_active(const conic_problem* p, const double* s, double active_gap, active_set* set) {
    set->count = 0;
    set->apex = false;
    if (!active_rows(p, s, active_gap, set) || !active_cones(p, s, active_gap, set)) return false;
    if (set->count == 0 || (set->count > p->variables && set->apex)) return false;
    return scale_normals(p->variables, set);
}

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

// ---------------------------------------------------------------------------------------------
// independent blocks

// the least-squares multipliers of sum_b z_b m_b = -c into `multiplier`, the blocks' Gram matrix
// factored into gram; false when it is singular or the multipliers are not consistent to 1e-2 of
// the terms (at least c's 1: in DCOL a needle's normal, aspect 1e5, is 1e5 times c, and its
// direction at the walk's point is good to 1e-7, where it leaves the needle's axis by 1e-5 of |n|)
static bool block_multipliers(const conic_problem* p, const active_set* set,
                              double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], double* inverse_pivot,
                              double* multiplier) {
    int n = p->variables, k = set->count;
    for (int a = 0; a < k; ++a) {
        for (int b = 0; b <= a; ++b) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += set->m[a][j] * set->m[b][j];
            gram[a][b] = gram[b][a] = dot;
        }
        multiplier[a] = -set->m[a][p->objective];
    }
    if (!spd_factor(k, gram, inverse_pivot)) return false;
    spd_solve(k, gram, inverse_pivot, multiplier);
    double residual = 0.0;
    for (int j = 0; j < n; ++j) {
        double value = j == p->objective ? 1.0 : 0.0;
        for (int b = 0; b < k; ++b) value += multiplier[b] * set->m[b][j];
        residual = max2(residual, fabs(value));
    }
    if (residual <= 1e-2) return true;
    double terms = 1.0;
    for (int j = 0; j < n; ++j) {
        double size = 0.0;
        for (int b = 0; b < k; ++b) size += fabs(multiplier[b] * set->m[b][j]);
        terms = max2(terms, size);
    }
    return residual <= 1e-2 * terms;
}

// The inactive blocks' central duals push with f; the part of f the active blocks span shifts
// their multipliers (least squares, first order in the barrier): a vertex among near faces
// otherwise starts with a dual residual of barrier / the nearest inactive gap, just above the
// stopping rule's. The rest of f moves x along the curvature, which the re-centring step does. The
// shift is kept where every shifted multiplier stays positive (inside its cone at an apex).
static void shift_multipliers(const conic_problem* p, const active_set* set,
                              double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], const double* inverse_pivot,
                              const double* f, double* multiplier) {
    int n = p->variables, k = set->count;
    double shift[CONIC_MAX_VARIABLES];
    for (int b = 0; b < k; ++b) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= set->m[b][j] * f[j];
        shift[b] = dot;
    }
    spd_solve(k, gram, inverse_pivot, shift);
    double shifted[CONIC_MAX_VARIABLES];
    bool positive = true;
    for (int b = 0; b < k; ++b) {
        shifted[b] = multiplier[b] + shift[b];
        positive = positive && (set->kind[b] == BLOCK_APEX || shifted[b] > 0.0);
    }
    for (int c = 0, start = p->orthant_rows; c < p->cone_count; start += p->cone_dim[c++]) {
        int first = set->block_of_row[start];
        if (first >= 0 && set->kind[first] == BLOCK_APEX)
            positive = positive && soc_interior(shifted + first, p->cone_dim[c]);
    }
    if (positive)
        for (int b = 0; b < k; ++b) multiplier[b] = shifted[b];
}

// At most n independent active blocks: the multipliers from sum_b z_b m_b = -c by least squares
// (consistent at an exact optimum), shifted by the part of the inactive push f the blocks span, and
// the least change dx of x that meets the first-order central offsets (conic_offset_start)
static bool independent_offsets(const conic_problem* p, double barrier, const active_set* set, const double* f,
                                double* multiplier, double* dx) {
    int n = p->variables, k = set->count;
    // the Gram matrix of the normals is factored once for the three solves
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], inverse_pivot[CONIC_MAX_VARIABLES];
    if (!block_multipliers(p, set, gram, inverse_pivot, multiplier)) return false;
    shift_multipliers(p, set, gram, inverse_pivot, f, multiplier);
    // the first-order central offsets: m_i . dx = -mu / z_i on an active orthant row (its slack
    // becomes mu / z_i), m_c . dx = -mu / (2 tau_c) on an active cone (s^T J s becomes
    // mu s_0 / tau_c, z_c = tau_c J s / s_0), G_c dx = -mu z_c^-1 = -mu J z_c / (z_c^T J z_c) on a
    // cone at its apex (s_c becomes mu z_c^-1); dx = sum_b w_b m_b, the least change that does it
    double w[CONIC_MAX_VARIABLES];
    for (int b = 0; b < k; ++b) {
        if (set->kind[b] == BLOCK_APEX) continue;
        if (!(multiplier[b] > 0.0)) return false; // not strictly complementary
        w[b] = set->gap[b] - barrier / (set->kind[b] == BLOCK_CONE ? 2.0 * multiplier[b] : multiplier[b]);
    }
    for (int c = 0, start = p->orthant_rows; c < p->cone_count; start += p->cone_dim[c++]) {
        int first = set->block_of_row[start], dim = p->cone_dim[c];
        if (first < 0 || set->kind[first] != BLOCK_APEX) continue;
        const double* zc = multiplier + first;
        if (!soc_interior(zc, dim)) return false; // not strictly complementary
        double norm2 = zc[0] * zc[0];
        for (int i = 1; i < dim; ++i) norm2 -= zc[i] * zc[i];
        double scale = barrier / norm2;
        w[first] = -scale * zc[0];
        for (int i = 1; i < dim; ++i) w[first + i] = scale * zc[i];
    }
    spd_solve(k, gram, inverse_pivot, w);
    for (int j = 0; j < n; ++j) {
        dx[j] = 0.0;
        for (int b = 0; b < k; ++b) dx[j] += w[b] * set->m[b][j];
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// dependent blocks

// A maximal independent subset R of active blocks' normals: the blocks rest[0 .. count) and the
// others dependent[0 .. dependent_count), with R's Gram matrix factored (spd_factor)
typedef struct independent_set {
    int count, rest[CONIC_MAX_VARIABLES];
    int dependent_count, dependent[OFFSET_MAX_ACTIVE];
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], inverse_pivot[CONIC_MAX_VARIABLES];
} independent_set;

// A maximal independent subset of the k normals m, greedily in order, into `set`; false when its
// Gram matrix's factor fails
static bool independent_subset(int n, int k, const double (*m)[CONIC_MAX_VARIABLES], independent_set* set) {
    double factor[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
    int count = 0;
    set->dependent_count = 0;
    for (int b = 0; b < k; ++b) {
        if (count == n) {
            set->dependent[set->dependent_count++] = b;
            continue;
        }
        for (int a = 0; a <= count; ++a) {
            const double* ma = m[a < count ? set->rest[a] : b];
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += ma[j] * m[b][j];
            set->gram[count][a] = set->gram[a][count] = dot;
        }
        memcpy(factor, set->gram, sizeof factor);
        if (spd_factor(count + 1, factor, set->inverse_pivot))
            set->rest[count++] = b;
        else
            set->dependent[set->dependent_count++] = b;
    }
    set->count = count;
    return spd_factor(count, set->gram, set->inverse_pivot);
}

// The multipliers of k active blocks as z_p + W t (d = columns of W), and the weights kappa of
// their logarithms (1 on a row, 1/2 on a cone) in the analytic centre's objective
typedef struct multiplier_family {
    int k, d;
    double z_p[OFFSET_MAX_ACTIVE], w[OFFSET_MAX_ACTIVE][CONIC_MAX_VARIABLES], kappa[OFFSET_MAX_ACTIVE];
} multiplier_family;

// One damped Newton step on Phi_sigma(t) = sum_b kappa_b log(z_p + W t + sigma)_b from t (inside),
// each halving of the step until inside and not lower. 1 after a step, 0 when converged (the
// Newton decrement or the move is negligible), -1 on failure (a singular Hessian, no acceptable
// step, t unbounded: beyond 1e12 `size`).
static int analytic_centre_step(const multiplier_family* family, double sigma, double size, double* t) {
    int k = family->k, d = family->d;
    const double* z_p = family->z_p;
    const double* kappa = family->kappa;
    const double(*w)[CONIC_MAX_VARIABLES] = family->w;
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
    if (!spd_factor(d, hessian, pivots)) return -1;
    memcpy(step, gradient, sizeof step);
    spd_solve(d, hessian, pivots, step);
    double decrement = 0.0; // the Newton decrement squared: the predicted gain times 2
    for (int i = 0; i < d; ++i) decrement += gradient[i] * step[i];
    if (!(decrement > 1e-24)) return 0;
    // halve until inside and not lower
    double length = 1.0, trial[CONIC_MAX_VARIABLES];
    for (int halving = 0;; ++halving) {
        if (halving == 60) return -1;
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
        if (!(fabs(t[i]) <= 1e12 * size)) return -1; // unbounded
    }
    return moved <= 1e-15 * size ? 0 : 1;
}

// The multipliers z = z_p + W t (k blocks, d = columns of W) that maximise the concave
// Phi(t) = sum_b kappa_b log z_b with every z_b > 0, by damped Newton steps on
// Phi_sigma = sum_b kappa_b log(z_b + sigma) for a shift sigma that starts where t = 0 is inside
// and falls to 0 (each maximiser starts the next). False when no t makes every z_b positive, or
// the multipliers are unbounded.
static bool analytic_centre(const multiplier_family* family, double* t) {
    int k = family->k, d = family->d;
    const double* z_p = family->z_p;
    const double(*w)[CONIC_MAX_VARIABLES] = family->w;
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
            int stepped = analytic_centre_step(family, sigma, size, t);
            if (stepped < 0) return false;
            if (stepped == 0) break;
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

// The multipliers of the active blocks as z_p + W t: z_p the least-squares multipliers of
// sum_b z_b m_b = -(c + f) on the independent subset R (zero on the others), W's column for a
// dependent block d 1 at d and on R the coefficients w with m_d + sum_R w_R m_R = 0. False when
// c + f is not in R's span or a block is nearly, not exactly, dependent.
static bool dependent_family(const conic_problem* p, const active_set* set, const double* f, independent_set* r,
                             multiplier_family* family) {
    int n = p->variables, count = r->count, d = r->dependent_count;
    const int *rest = r->rest, *dependent = r->dependent;
    const double(*m)[CONIC_MAX_VARIABLES] = set->m;
    double* z_p = family->z_p;
    double(*w)[CONIC_MAX_VARIABLES] = family->w;
    family->k = set->count;
    family->d = d;
    for (int b = 0; b < set->count; ++b) {
        z_p[b] = 0.0;
        for (int i = 0; i < d; ++i) w[b][i] = 0.0;
        family->kappa[b] = set->kind[b] == BLOCK_CONE ? 0.5 : 1.0;
    }
    double particular[CONIC_MAX_VARIABLES];
    for (int a = 0; a < count; ++a) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= m[rest[a]][j] * ((j == p->objective ? 1.0 : 0.0) + f[j]);
        particular[a] = dot;
    }
    spd_solve(count, r->gram, r->inverse_pivot, particular);
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
        spd_solve(count, r->gram, r->inverse_pivot, coefficient);
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
    return true;
}

// Active blocks with dependencies among them, none at a cone's apex (in DCOL a polytope vertex
// where more than three faces meet, against a point of the other body; docs/dcol.md §3.5). A
// maximal independent subset R of the normals (in order) carries the least-squares multipliers of
// sum_b z_b m_b = -(c + f); each other block d depends on R, so the multipliers form z_p + W t
// (dependent_family). On the central path the offsets -mu kappa_b / z_b (kappa 1 on a row, 1/2 on
// a cone) lie in the range of M: W^T (kappa / z) = 0, the stationarity of sum_b kappa_b log z_b,
// whose maximiser over the positive multipliers is the analytic centre of the optimal ones, where
// the central path ends (analytic_centre). dx is the least change that meets R's offsets; the
// dependent blocks' then hold too.
static bool degenerate_offsets(const conic_problem* p, double barrier, const active_set* set, const double* f,
                               double* multiplier, double* dx) {
    int n = p->variables, k = set->count;
    independent_set r;
    if (!independent_subset(n, k, set->m, &r) || r.dependent_count == 0 || r.dependent_count > CONIC_MAX_VARIABLES)
        return false;
    multiplier_family family;
    if (!dependent_family(p, set, f, &r, &family)) return false;
    double t[CONIC_MAX_VARIABLES];
    if (!analytic_centre(&family, t)) return false;
    for (int b = 0; b < k; ++b) {
        multiplier[b] = family.z_p[b];
        for (int i = 0; i < family.d; ++i) multiplier[b] += family.w[b][i] * t[i];
        if (!(multiplier[b] > 0.0)) return false;
    }
    // dx = M_R^T (M_R M_R^T)^-1 offsets_R
    double offsets[CONIC_MAX_VARIABLES];
    for (int a = 0; a < r.count; ++a)
        offsets[a] = set->gap[r.rest[a]] - barrier * family.kappa[r.rest[a]] / multiplier[r.rest[a]];
    spd_solve(r.count, r.gram, r.inverse_pivot, offsets);
    for (int j = 0; j < n; ++j) {
        dx[j] = 0.0;
        for (int a = 0; a < r.count; ++a) dx[j] += offsets[a] * set->m[r.rest[a]][j];
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// an optimal face (flat_offsets)

// An orthonormal basis basis[0 .. n - count) of the vectors orthogonal to the `count` independent
// rows m[rows[a]] (the last columns of Q in M^T = Q R, by Householder reflections); false when a
// row is dependent on the earlier ones
static bool null_space(int n, const double (*m)[CONIC_MAX_VARIABLES], const int* rows, int count,
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

// The barrier problem on an optimal face restricted to the null space N of the strong blocks
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
    double cone_tail[CONIC_MAX_CONES]; // |s_1| at v0
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
        if (!spd_factor(free, hessian, pivots)) return false;
        for (int c = 0; c < free; ++c) step[c] = -gradient[c];
        spd_solve(free, hessian, pivots, step);
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

// An optimal face: the strong blocks, those that hold it (multipliers above FLAT_MULTIPLIER times
// the barrier), at their first-order offsets from x at v, and the null space N of their normals
typedef struct flat_face {
    int strong[CONIC_MAX_VARIABLES], count;
    bool is_strong[OFFSET_MAX_ACTIVE];
    // the strong blocks' Gram matrix factored, and their multipliers
    double gram[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], inverse_pivot[CONIC_MAX_VARIABLES];
    double multiplier[CONIC_MAX_VARIABLES];
    double v[CONIC_MAX_VARIABLES];
    double basis[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES]; // N's columns as rows
    reduced_barrier r;                                      // the barrier problem on the face
    double y[CONIC_MAX_VARIABLES];                          // its minimiser
} flat_face;

// The strong blocks among a maximal independent subset of the active ones, by their least-squares
// multipliers. False at a cone's apex, when a factor fails, or when nothing is flat: no strong
// block, or every block strong and independent, unless `all_strong` (the free directions are
// those no active block holds: in DCOL a cylinder lying along a box's edge, whose barrier rows at
// the far ends centre it).
static bool strong_blocks(const conic_problem* p, double barrier, const active_set* set, bool all_strong,
                          flat_face* face) {
    int n = p->variables, k = set->count;
    for (int b = 0; b < k; ++b)
        if (set->kind[b] == BLOCK_APEX) return false;
    independent_set r;
    if (!independent_subset(n, k, set->m, &r)) return false;
    double z[CONIC_MAX_VARIABLES];
    for (int a = 0; a < r.count; ++a) z[a] = -set->m[r.rest[a]][p->objective];
    spd_solve(r.count, r.gram, r.inverse_pivot, z);
    face->count = 0;
    for (int a = 0; a < r.count; ++a)
        if (z[a] > FLAT_MULTIPLIER * barrier) face->strong[face->count++] = r.rest[a];
    return !(face->count == 0 || (face->count == r.count && r.count == k && !all_strong));
}

// The strong blocks' Gram factor and multipliers, the point v where they sit at their offsets
// (the least change from x) and N's basis; false when a factor fails or a multiplier is not
// positive.
static bool strong_offsets(const conic_problem* p, double barrier, const active_set* set, const double* x,
                           flat_face* face) {
    int n = p->variables, count = face->count;
    const int* strong = face->strong;
    for (int a = 0; a < count; ++a)
        for (int b = 0; b <= a; ++b) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += set->m[strong[a]][j] * set->m[strong[b]][j];
            face->gram[a][b] = face->gram[b][a] = dot;
        }
    if (!spd_factor(count, face->gram, face->inverse_pivot)) return false;
    double* zs = face->multiplier;
    double offsets[CONIC_MAX_VARIABLES];
    for (int a = 0; a < count; ++a) zs[a] = -set->m[strong[a]][p->objective];
    spd_solve(count, face->gram, face->inverse_pivot, zs);
    for (int a = 0; a < count; ++a) {
        if (!(zs[a] > 0.0)) return false;
        offsets[a] = set->gap[strong[a]] - barrier / (set->kind[strong[a]] == BLOCK_CONE ? 2.0 * zs[a] : zs[a]);
    }
    spd_solve(count, face->gram, face->inverse_pivot, offsets);
    for (int j = 0; j < n; ++j) {
        face->v[j] = x[j];
        for (int a = 0; a < count; ++a) face->v[j] += offsets[a] * set->m[strong[a]][j];
    }
    for (int b = 0; b < set->count; ++b) face->is_strong[b] = false;
    for (int a = 0; a < count; ++a) face->is_strong[strong[a]] = true;
    return null_space(n, set->m, strong, count, face->basis);
}

// psi's rows: every orthant row at v + N y, the strong ones skipped, and the objective's share of
// each free direction over the barrier
static void reduced_rows(const conic_problem* p, double barrier, const active_set* set, const flat_face* face,
                         reduced_barrier* r) {
    int n = p->variables, l = p->orthant_rows;
    r->free = n - face->count;
    r->rows = l;
    r->cone_count = p->cone_count;
    for (int c = 0; c < r->free; ++c) {
        // the objective's share of a free direction below the rounding of the null space's basis
        // (1e-16 of its unit vectors, a tilt far below a pose's rounding) is none: divided by the
        // barrier it pulled a symmetric face's centre 4e-7 of its length off its middle
        double along = face->basis[c][p->objective];
        r->objective[c] = fabs(along) > 1e-15 ? along / barrier : 0.0;
        for (int e = 0; e < r->free; ++e) r->K[c][e] = 0.0;
    }
    for (int i = 0; i < l; ++i) {
        double gv = 0.0;
        for (int j = 0; j < n; ++j) gv += p->G[i][j] * face->v[j];
        r->base[i] = p->h[i] - gv;
        r->skip[i] = set->block_of_row[i] >= 0 && face->is_strong[set->block_of_row[i]];
        for (int c = 0; c < r->free; ++c) {
            double dot = 0.0;
            for (int j = 0; j < n; ++j) dot += p->G[i][j] * face->basis[c][j];
            r->along[i][c] = dot; // s_i(v + N y) = base_i - along_i . y
        }
    }
}

// psi's cones at v + N y; a strong cone is skipped, and its boundary's curvature enters K. False
// when a strong cone's slack has no tail (at its apex).
static bool reduced_cones(const conic_problem* p, double barrier, const active_set* set, const flat_face* face,
                          reduced_barrier* r) {
    int n = p->variables;
    for (int c = 0, start = p->orthant_rows; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c];
        r->cone_dim[c] = dim;
        r->cone_skip[c] = set->block_of_row[start] >= 0 && face->is_strong[set->block_of_row[start]];
        for (int i = 0; i < dim; ++i) {
            double gv = 0.0;
            for (int j = 0; j < n; ++j) gv += p->G[start + i][j] * face->v[j];
            r->cone_base[c][i] = p->h[start + i] - gv;
            for (int e = 0; e < r->free; ++e) {
                double dot = 0.0;
                for (int j = 0; j < n; ++j) dot += p->G[start + i][j] * face->basis[e][j];
                r->cone_along[c][i][e] = dot;
            }
        }
        double tail = 0.0; // |s_1| at v
        for (int i = 1; i < dim; ++i) tail += r->cone_base[c][i] * r->cone_base[c][i];
        tail = r->cone_tail[c] = sqrt(tail);
        if (!r->cone_skip[c]) continue;
        // a strong cone held on its boundary s_0 = |s_1|: the boundary's second derivative along
        // y is -A_1^T (I - u u^T) A_1 / |s_1| (A_1 = the tail rows of cone_along, u = s_1 / |s_1|),
        // which the Lagrangian weighs with the multiplier tau (psi is in units of the barrier)
        double u[CONIC_MAX_CONE_DIM], au[CONIC_MAX_VARIABLES];
        if (!(tail > 0.0)) return false;
        for (int i = 1; i < dim; ++i) u[i] = r->cone_base[c][i] / tail;
        double weight = 0.0;
        for (int a = 0; a < face->count; ++a)
            if (face->strong[a] == set->block_of_row[start])
                weight = face->multiplier[a] / set->norm[face->strong[a]] / (barrier * tail);
        for (int e = 0; e < r->free; ++e) {
            au[e] = 0.0;
            for (int i = 1; i < dim; ++i) au[e] += r->cone_along[c][i][e] * u[i];
        }
        for (int e = 0; e < r->free; ++e)
            for (int f = 0; f < r->free; ++f) {
                double aa = 0.0;
                for (int i = 1; i < dim; ++i) aa += r->cone_along[c][i][e] * r->cone_along[c][i][f];
                r->K[e][f] += weight * (aa - au[e] * au[f]);
            }
    }
    return true;
}

// The mean inward direction of the weak blocks (the rows and cones that are not strong and at
// zero at v) into `inward`, their count into *weak; false when one has no inward direction
static bool weak_inward(const reduced_barrier* r, double* inward, int* weak) {
    *weak = 0;
    for (int c = 0; c < r->free; ++c) inward[c] = 0.0;
    for (int i = 0; i < r->rows; ++i) {
        if (r->skip[i] || r->base[i] > 1e-9) continue;
        ++*weak;
        double norm = 0.0;
        for (int c = 0; c < r->free; ++c) norm += r->along[i][c] * r->along[i][c];
        if (!(norm > 0.0)) return false;
        for (int c = 0; c < r->free; ++c) inward[c] -= r->along[i][c] / sqrt(norm);
    }
    for (int c = 0; c < r->cone_count; ++c) {
        const double* sc = r->cone_base[c];
        double tail = r->cone_tail[c];
        if (r->cone_skip[c] || sc[0] - tail > 1e-9) continue;
        ++*weak;
        // up the boundary's gradient: s_0 - |s_1| grows along -A^T (1, -s_1 / |s_1|)
        double direction[CONIC_MAX_VARIABLES], norm = 0.0;
        for (int e = 0; e < r->free; ++e) {
            direction[e] = -r->cone_along[c][0][e];
            for (int i = 1; i < r->cone_dim[c] && tail > 0.0; ++i)
                direction[e] += r->cone_along[c][i][e] * sc[i] / tail;
            norm += direction[e] * direction[e];
        }
        if (!(norm > 0.0)) return false;
        for (int e = 0; e < r->free; ++e) inward[e] += direction[e] / sqrt(norm);
    }
    return true;
}

// A start strictly inside psi's domain: from v along the mean inward direction of the weak blocks
// (at zero there), kept off the stiff directions of K, halfway to the nearest other row, then
// halved until inside every cone. False when there is none.
static bool reduced_start(const reduced_barrier* r, double* y) {
    double inward[CONIC_MAX_VARIABLES];
    int weak;
    if (!weak_inward(r, inward, &weak)) return false;
    // across a strong cone the curvature K is of order tau / barrier: the start keeps off those
    // directions, inward <- (K + delta I)^-1 inward with delta 1e-9 of K's trace (0: unchanged)
    double trace = 0.0;
    for (int c = 0; c < r->free; ++c) trace += r->K[c][c];
    if (trace > 0.0) {
        double shifted[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], pivots[CONIC_MAX_VARIABLES];
        for (int c = 0; c < r->free; ++c)
            for (int e = 0; e <= c; ++e) shifted[c][e] = r->K[c][e] + (c == e ? 1e-9 * trace : 0.0);
        if (!spd_factor(r->free, shifted, pivots)) return false;
        spd_solve(r->free, shifted, pivots, inward);
    }
    double length = INFINITY;
    for (int i = 0; i < r->rows; ++i) {
        if (r->skip[i]) continue;
        double rate = 0.0;
        for (int c = 0; c < r->free; ++c) rate += r->along[i][c] * inward[c];
        if (rate > 0.0 && r->base[i] > 1e-9) length = min2(length, r->base[i] / rate);
    }
    if (!isfinite(length)) length = 1.0;
    length *= 0.5;
    // where the objective pulls back into the weak blocks (a tilt), its pull o . inward balances
    // their barriers' -weak / t nearer than that: t = weak / (o . inward)
    double pull = 0.0;
    for (int c = 0; c < r->free; ++c) pull += r->objective[c] * inward[c];
    if (pull > 0.0) length = min2(length, weak / pull);
    for (int halving = 0;; ++halving) {
        if (halving == 60) return false;
        for (int c = 0; c < r->free; ++c) y[c] = length * inward[c];
        double value, gradient[CONIC_MAX_VARIABLES], hessian[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES];
        if (reduced_evaluate(r, y, &value, gradient, hessian)) return true;
        length *= 0.5;
    }
}

// From psi's minimiser y: dx to the central point v + N y, and the strong blocks' multipliers from
// c + f (f the other blocks' central duals: barrier / s on a row, barrier J s / (s^T J s) on a
// cone), exactly, since the minimiser's stationarity puts c + f in their span (to the strong cones'
// curvature). The blocks that are not strong leave the active set. False when a multiplier is not
// positive.
static bool flat_duals(const conic_problem* p, double barrier, const double* x, flat_face* face, active_set* set,
                       double* multiplier, double* dx) {
    int n = p->variables, l = p->orthant_rows;
    const reduced_barrier* r = &face->r;
    const double* y = face->y;
    double f[CONIC_MAX_VARIABLES] = {0};
    for (int j = 0; j < n; ++j) {
        dx[j] = face->v[j] - x[j];
        for (int c = 0; c < r->free; ++c) dx[j] += y[c] * face->basis[c][j];
    }
    for (int i = 0; i < l; ++i) {
        if (r->skip[i]) continue;
        double si = r->base[i];
        for (int c = 0; c < r->free; ++c) si -= r->along[i][c] * y[c];
        for (int j = 0; j < n; ++j) f[j] += p->G[i][j] * barrier / si;
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        if (r->cone_skip[c]) continue;
        double s[CONIC_MAX_CONE_DIM], q;
        if (!reduced_cone_slack(r, c, y, s, &q)) return false;
        for (int j = 0; j < n; ++j) {
            double gjs = p->G[start][j] * s[0];
            for (int i = 1; i < r->cone_dim[c]; ++i) gjs -= p->G[start + i][j] * s[i];
            f[j] += barrier * gjs / q;
        }
    }
    double* zs = face->multiplier;
    for (int a = 0; a < face->count; ++a) {
        double dot = 0.0;
        for (int j = 0; j < n; ++j) dot -= set->m[face->strong[a]][j] * ((j == p->objective ? 1.0 : 0.0) + f[j]);
        zs[a] = dot;
    }
    spd_solve(face->count, face->gram, face->inverse_pivot, zs);
    for (int a = 0; a < face->count; ++a)
        if (!(zs[a] > 0.0)) return false;
    int* active = set->block_of_row;
    for (int i = 0; i < l; ++i)
        if (active[i] >= 0 && !face->is_strong[active[i]]) active[i] = -1;
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++])
        if (active[start] >= 0 && !face->is_strong[active[start]]) active[start] = -1;
    for (int a = 0; a < face->count; ++a) multiplier[face->strong[a]] = zs[a];
    return true;
}

// An optimal face (in DCOL a face resting on a face, a capsule or cylinder lying on a face, a
// cylinder or cone standing on its base, a padded polygon lying flat, each within the barrier's
// resolution of flat): some active blocks carry multipliers so small that their central offsets
// barrier / z_b reach across it. The strong blocks keep their offsets; the central point then
// minimises (c . v) / mu - sum log s_i - sum log(s_c^T J s_c) / 2 over the other rows and cones,
// on the set where the strong blocks sit at their offsets: Newton in the null space N of their
// normals, a strong cone's curvature added to the Hessian with its multiplier (the Lagrangian's;
// without it N's directions across the cone would be held by nothing but far rows). That is where
// x moves to: the middle of the face when flat, towards the vertex as the tilt grows (docs/dcol.md
// §3.5). The active set keeps the strong blocks only. False at a cone's apex, when nothing is
// flat, or when the pieces fail.
static bool flat_offsets(const conic_problem* p, double barrier, active_set* set, bool all_strong, const double* x,
                         double* multiplier, double* dx) {
    flat_face face;
    if (!strong_blocks(p, barrier, set, all_strong, &face) || !strong_offsets(p, barrier, set, x, &face)) return false;
    reduced_rows(p, barrier, set, &face, &face.r);
    return reduced_cones(p, barrier, set, &face, &face.r) && reduced_start(&face.r, face.y) &&
           barrier_minimiser(&face.r, face.y) && flat_duals(p, barrier, x, &face, set, multiplier, dx);
}

// ---------------------------------------------------------------------------------------------
// the start

// the dual at the moved point: the multipliers on the active blocks (a cone's tau J s / s_0, at
// its apex the multipliers themselves), barrier s^-1 elsewhere. Not barrier s^-1 throughout: an
// active block's s^T J s (or s_i) is of the order of the barrier and carries the rounding of s,
// 1e-16 of the data's scale, so its reciprocal would be off by 1e-6 relative, and the dual
// residual with it
static void write_dual(const conic_problem* p, double barrier, const active_set* set, double* multiplier,
                       const double* s, double* z) {
    int l = p->orthant_rows;
    const int* active = set->block_of_row;
    for (int b = 0; b < set->count && set->scaled; ++b) multiplier[b] /= set->norm[b]; // z of the unscaled block
    for (int i = 0; i < l; ++i) z[i] = active[i] >= 0 ? multiplier[active[i]] : barrier / s[i];
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        int dim = p->cone_dim[c];
        const double* sc = s + start;
        if (active[start] >= 0 && set->kind[active[start]] == BLOCK_APEX) {
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
}

// x += dx and s = h - G x; whether s is strictly inside the cone
static bool move_inside(const conic_problem* p, const double* dx, double* x, double* s) {
    for (int j = 0; j < p->variables; ++j) x[j] += dx[j];
    conic_primal_slack(p, x, s);
    return conic_slack_violation(p, s) < 0.0;
}

// conic_offset_start, or with `flat_only` conic_centre_flat
static bool offset_start(const conic_problem* p, double barrier, double active_gap, bool flat_only, double* x,
                         double* s, double* z) {
    if (conic_check(p) != OSC_OK) return false;
    int n = p->variables;
    conic_primal_slack(p, x, s);
    active_set set;
    if (!find_active(p, s, active_gap, &set)) return false;
    double f[CONIC_MAX_VARIABLES], multiplier[OFFSET_MAX_ACTIVE], dx[CONIC_MAX_VARIABLES];
    inactive_force(p, barrier, s, set.block_of_row, f);
    bool offset = !flat_only && ((set.count <= n && independent_offsets(p, barrier, &set, f, multiplier, dx)) ||
                                 (!set.apex && degenerate_offsets(p, barrier, &set, f, multiplier, dx)));
    if (!offset && !flat_offsets(p, barrier, &set, flat_only, x, multiplier, dx)) return false;
    bool inside = move_inside(p, dx, x, s);
    // offsets that cross a row or leave a cone mean an optimal face (flat_offsets)
    if (offset && !inside) {
        for (int j = 0; j < n; ++j) x[j] -= dx[j];
        if (!flat_offsets(p, barrier, &set, false, x, multiplier, dx)) return false;
        inside = move_inside(p, dx, x, s);
    }
    if (!inside) {
        for (int j = 0; j < n; ++j) x[j] -= dx[j];
        return false;
    }
    write_dual(p, barrier, &set, multiplier, s, z);
    return true;
}

bool conic_offset_start(const conic_problem* p, double barrier, double active_gap, double* x, double* s, double* z) {
    return offset_start(p, barrier, active_gap, false, x, s, z);
}

bool conic_centre_flat(const conic_problem* p, double barrier, double active_gap, double* x, double* s, double* z) {
    return offset_start(p, barrier, active_gap, true, x, s, z);
}
