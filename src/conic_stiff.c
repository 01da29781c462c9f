// conic_stiff.c: the normal system H = G^T W^-2 G of a solved cone program, split by stiffness
// (docs/dcol.md §4.5).
//
// At the barrier mu an active block's weight D is of order z^2 / mu (1e10 at the defaults), the
// others' of order mu / s^2, and a curved block's tangential part of order 1. H sums them, so a
// direction that only the curvature pins (a near-flat contact) reads S to about 1e-16 D absolute:
// at a curvature of 1e-3 the tangents along it were off by 6e-4 relative. The augmented matrix
// keeps the stiff rank-one parts D m m^T as rows of their own,
//
//     [S    M^T ] [y]   [b]          (S + M^T D M) y = b + M^T D r,
//     [M  -D^-1 ] [l] = [r],   so    l = D (M y - r),
//
// and LU with partial pivoting on it loses nothing to the sum.

#include "conic.h"
#include "dense.h"

#include <math.h>
#include <string.h>

// S's contribution of the rows [first, end) to columns [0, columns): the non-stiff orthant rows'
// w g g^T, the non-stiff cones' (2 g g^T - G^T J G) / eta^2 and the stiff cones' -G^T J G / eta^2
static void add_block(const conic_problem* p, const conic_state* state, int first, int end, const int* block_of_row,
                      double s[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES], int columns) {
    int n = p->variables, l = p->orthant_rows;
    const conic_scaling* sc = &state->scaling;
    for (int i = first; i < end && i < l; ++i) {
        if (block_of_row[i] >= 0) continue;
        const double* g = p->G[i];
        double w = sc->orthant_weight[i];
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < columns; ++k) s[j][k] += w * g[j] * g[k];
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        if (start < first || start >= end) continue;
        const double* g = state->cone_projection[c];
        double scale = sc->cone_inverse_eta[c] * sc->cone_inverse_eta[c];
        double rank_one = block_of_row[start] >= 0 ? 0.0 : 2.0;
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < columns; ++k) s[j][k] += scale * (rank_one * g[j] * g[k] - state->cone_gram[c][j][k]);
    }
}

bool conic_stiff_factor(const conic_problem* p, const conic_state* state, double threshold,
                        conic_stiff_system* system) {
    int n = p->variables, l = p->orthant_rows, k = 0;
    const conic_scaling* sc = &state->scaling;
    system->variables = n;
    for (int i = 0; i < p->rows; ++i) system->block_of_row[i] = -1;
    for (int i = 0; i < l; ++i) {
        double norm2 = 0.0;
        for (int j = 0; j < n; ++j) norm2 += p->G[i][j] * p->G[i][j];
        double w = sc->orthant_weight[i];
        if (!(w * norm2 > threshold)) continue;
        if (k == CONIC_MAX_STIFF) return false;
        system->block_of_row[i] = k;
        system->first_row[k] = i;
        system->weight[k] = w;
        memcpy(system->normal[k], p->G[i], sizeof(double) * (size_t)n);
        ++k;
    }
    for (int c = 0, start = l; c < p->cone_count; start += p->cone_dim[c++]) {
        const double* g = state->cone_projection[c];
        double norm2 = 0.0;
        for (int j = 0; j < n; ++j) norm2 += g[j] * g[j];
        double w = 2.0 * sc->cone_inverse_eta[c] * sc->cone_inverse_eta[c];
        if (!(w * norm2 > threshold)) continue;
        if (k == CONIC_MAX_STIFF) return false;
        for (int r = 0; r < p->cone_dim[c]; ++r) system->block_of_row[start + r] = k;
        system->first_row[k] = start;
        system->weight[k] = w;
        memcpy(system->normal[k], g, sizeof(double) * (size_t)n);
        ++k;
    }
    system->count = k;
    if (k == 0) return false;
    // the augmented matrix
    int size = n + k;
    double(*a)[CONIC_STIFF_SIZE] = system->lu;
    double s[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES] = {{0}};
    add_block(p, state, 0, p->rows, system->block_of_row, s, n);
    for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j) a[i][j] = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) a[i][j] = s[i][j];
    for (int b = 0; b < k; ++b) {
        for (int j = 0; j < n; ++j) a[n + b][j] = a[j][n + b] = system->normal[b][j];
        a[n + b][n + b] = -1.0 / system->weight[b];
    }
    return dense_lu_factor(size, &a[0][0], CONIC_STIFF_SIZE, system->pivot);
}

void conic_stiff_solve(const conic_stiff_system* system, const double* b, const double* r, double* y, double* lambda) {
    int n = system->variables, k = system->count, size = n + k;
    const double(*a)[CONIC_STIFF_SIZE] = system->lu;
    double v[CONIC_STIFF_SIZE];
    for (int i = 0; i < n; ++i) v[i] = b[i];
    for (int i = 0; i < k; ++i) v[n + i] = r ? r[i] : 0.0;
    dense_lu_solve(size, &a[0][0], CONIC_STIFF_SIZE, system->pivot, v, 1, 1);
    for (int i = 0; i < n; ++i) y[i] = v[i];
    if (lambda)
        for (int i = 0; i < k; ++i) lambda[i] = v[n + i];
}

void conic_stiff_moderate_block(const conic_problem* p, const conic_state* state, const conic_stiff_system* system,
                                int first, int end, double block[CONIC_MAX_VARIABLES][3]) {
    double s[CONIC_MAX_VARIABLES][CONIC_MAX_VARIABLES] = {{0}};
    add_block(p, state, first, end, system->block_of_row, s, 3);
    for (int j = 0; j < p->variables; ++j)
        for (int c = 0; c < 3; ++c) block[j][c] = s[j][c];
}
