// dense.c: small dense factorisations and their solves (dense.h).

#include "dense.h"

#include <math.h>

bool dense_lu_factor(int n, double* a, int stride, int* pivot) {
    for (int k = 0; k < n; ++k) {
        double* row_k = a + (long)k * stride;
        int best = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(a[(long)i * stride + k]) > fabs(a[(long)best * stride + k])) best = i;
        pivot[k] = best;
        double* row_best = a + (long)best * stride;
        if (!(row_best[k] != 0.0) || !isfinite(row_best[k])) return false;
        if (best != k)
            for (int j = 0; j < n; ++j) {
                double swap = row_k[j];
                row_k[j] = row_best[j];
                row_best[j] = swap;
            }
        double inverse = 1.0 / row_k[k];
        for (int i = k + 1; i < n; ++i) {
            double* row_i = a + (long)i * stride;
            double factor = row_i[k] * inverse;
            row_i[k] = factor;
            if (factor == 0.0) continue; // (a sparse row, as in an augmented system)
            for (int j = k + 1; j < n; ++j) row_i[j] -= factor * row_k[j];
        }
    }
    return true;
}

void dense_lu_solve(int n, const double* lu, int stride, const int* pivot, double* b, int columns, int b_stride) {
    // rows were swapped whole: every swap first, in order
    for (int k = 0; k < n; ++k) {
        double *row_k = b + (long)k * b_stride, *row_p = b + (long)pivot[k] * b_stride;
        if (pivot[k] != k)
            for (int c = 0; c < columns; ++c) {
                double swap = row_k[c];
                row_k[c] = row_p[c];
                row_p[c] = swap;
            }
    }
    for (int k = 0; k < n; ++k)
        for (int i = k + 1; i < n; ++i) {
            double factor = lu[(long)i * stride + k];
            for (int c = 0; c < columns; ++c) b[(long)i * b_stride + c] -= factor * b[(long)k * b_stride + c];
        }
    for (int k = n - 1; k >= 0; --k) {
        double* row_k = b + (long)k * b_stride;
        for (int i = k + 1; i < n; ++i) {
            double factor = lu[(long)k * stride + i];
            for (int c = 0; c < columns; ++c) row_k[c] -= factor * b[(long)i * b_stride + c];
        }
        double diagonal = lu[(long)k * stride + k];
        for (int c = 0; c < columns; ++c) row_k[c] /= diagonal;
    }
}

int dense_cholesky(int n, const double* a, int a_stride, double shift, double floor, double* l, int l_stride,
                   double* failed_pivot) {
    for (int j = 0; j < n; ++j) {
        double* row_j = l + (long)j * l_stride;
        double diagonal = a[(long)j * a_stride + j] + shift;
        for (int k = 0; k < j; ++k) diagonal -= row_j[k] * row_j[k];
        if (!(diagonal > floor) || !isfinite(diagonal)) {
            if (failed_pivot) *failed_pivot = diagonal;
            return j;
        }
        row_j[j] = sqrt(diagonal);
        for (int i = j + 1; i < n; ++i) {
            double* row_i = l + (long)i * l_stride;
            double value = a[(long)i * a_stride + j];
            for (int k = 0; k < j; ++k) value -= row_i[k] * row_j[k];
            row_i[j] = value / row_j[j];
        }
    }
    return n;
}

void dense_cholesky_solve(int n, const double* l, int stride, double* b) {
    for (int i = 0; i < n; ++i) {
        const double* row_i = l + (long)i * stride;
        double value = b[i];
        for (int k = 0; k < i; ++k) value -= row_i[k] * b[k];
        b[i] = value / row_i[i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double value = b[i];
        for (int k = i + 1; k < n; ++k) value -= l[(long)k * stride + i] * b[k];
        b[i] = value / l[(long)i * stride + i];
    }
}
