// dense.h: the library's small dense factorisations, written once: LU with partial pivoting, the
// Cholesky factor L L^T, and L D L^T without square roots (failing below a floor, or shifted and
// never failing, for an interior-point iteration), with their solves. The
// matrices are a few rows to a few dozen (a Newton system of 3 or 4 unknowns, the normal matrix
// of a cone program of 8 variables, its augmented form of 24), row-major with a row stride, so
// that each caller keeps its own fixed-size arrays (double a[4][4] is passed as &a[0][0], 4).
// Each routine fixes its order of operations: a caller gets the same bits from it wherever it is
// called. They are forced inline: a caller's constant sizes and strides unroll their loops and
// fold their index arithmetic. Never installed.

#ifndef OSC_DENSE_H
#define OSC_DENSE_H

#include "base_internal.h" // OSC_FORCE_INLINE

#include <stdbool.h>

/// Returns true after factoring the n x n matrix `a` (row stride `stride`) in place as P A = L U
/// by Gaussian elimination with partial pivoting: U on and above the diagonal, L's multipliers
/// (unit diagonal) below it; pivot[k] is the row swapped with row k at step k, whole rows swapped
/// (LAPACK's getrf convention). As LAPACK's getf2, a column's multipliers are its entries times
/// the pivot's reciprocal, and a row whose multiplier is zero is not updated (an augmented system
/// is sparse). False, the factor incomplete, at a pivot that is zero or not finite (the matrix is
/// singular to working precision).
OSC_FORCE_INLINE bool dense_lu_factor(int n, double* a, int stride, int* pivot) {
    for (int k = 0; k < n; ++k) {
        double* row_k = a + k * stride;
        int best = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(a[i * stride + k]) > fabs(a[best * stride + k])) best = i;
        pivot[k] = best;
        double* row_best = a + best * stride;
        if (!(row_best[k] != 0.0) || !isfinite(row_best[k])) return false;
        if (best != k)
            for (int j = 0; j < n; ++j) {
                double swap = row_k[j];
                row_k[j] = row_best[j];
                row_best[j] = swap;
            }
        double inverse = 1.0 / row_k[k];
        for (int i = k + 1; i < n; ++i) {
            double* row_i = a + i * stride;
            double factor = row_i[k] * inverse;
            row_i[k] = factor;
            if (factor == 0.0) continue; // (a sparse row, as in an augmented system)
            for (int j = k + 1; j < n; ++j) row_i[j] -= factor * row_k[j];
        }
    }
    return true;
}

/// Solves A X = B in place of B, the n x `columns` matrix at `b` (row stride `b_stride`; a vector
/// is columns 1, b_stride 1), with dense_lu_factor's factor of A: the swaps, then L's forward and
/// U's backward substitution (dividing by U's diagonal), all columns side by side (each column's
/// result is that of solving it alone; the inverse is the identity solved).
OSC_FORCE_INLINE void dense_lu_solve(int n, const double* restrict lu, int stride, const int* restrict pivot,
                                     double* restrict b, int columns, int b_stride) {
    // rows were swapped whole: every swap first, in order
    for (int k = 0; k < n; ++k) {
        double *row_k = b + k * b_stride, *row_p = b + pivot[k] * b_stride;
        if (pivot[k] != k)
            for (int c = 0; c < columns; ++c) {
                double swap = row_k[c];
                row_k[c] = row_p[c];
                row_p[c] = swap;
            }
    }
    // each entry's updates in order of the factor's columns, summed in a register
    for (int i = 1; i < n; ++i)
        for (int c = 0; c < columns; ++c) {
            double value = b[i * b_stride + c];
            for (int k = 0; k < i; ++k) value -= lu[i * stride + k] * b[k * b_stride + c];
            b[i * b_stride + c] = value;
        }
    for (int k = n - 1; k >= 0; --k)
        for (int c = 0; c < columns; ++c) {
            double value = b[k * b_stride + c];
            for (int i = k + 1; i < n; ++i) value -= lu[k * stride + i] * b[i * b_stride + c];
            b[k * b_stride + c] = value / lu[k * stride + k];
        }
}

/// Returns n after writing the lower Cholesky factor L of A + shift I, L L^T = A + shift I, of the
/// symmetric n x n matrix `a` (its diagonal and lower triangle read, row stride `a_stride`) to the
/// lower triangle and diagonal of `l` (row stride `l_stride`; it may be `a` itself; the upper
/// triangle is not written). Returns the index j of the first pivot (A_jj + shift - sum_k L_jk^2,
/// before its square root) that is not above `floor` or not finite: A + shift I is not positive
/// definite beyond the caller's tolerance, and L is complete only above row j.
OSC_FORCE_INLINE int dense_cholesky(int n, const double* a, int a_stride, double shift, double floor, double* l,
                                    int l_stride) {
    for (int j = 0; j < n; ++j) {
        double* row_j = l + j * l_stride;
        double diagonal = a[j * a_stride + j] + shift;
        for (int k = 0; k < j; ++k) diagonal -= row_j[k] * row_j[k];
        if (!(diagonal > floor) || !isfinite(diagonal)) return j;
        row_j[j] = sqrt(diagonal);
        for (int i = j + 1; i < n; ++i) {
            double* row_i = l + i * l_stride;
            double value = a[i * a_stride + j];
            for (int k = 0; k < j; ++k) value -= row_i[k] * row_j[k];
            row_i[j] = value / row_j[j];
        }
    }
    return n;
}

/// Solves L L^T x = b in place of b [n] with dense_cholesky's factor L (row stride `stride`).
OSC_FORCE_INLINE void dense_cholesky_solve(int n, const double* l, int stride, double* b) {
    for (int i = 0; i < n; ++i) {
        const double* row_i = l + i * stride;
        double value = b[i];
        for (int k = 0; k < i; ++k) value -= row_i[k] * b[k];
        b[i] = value / row_i[i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double value = b[i];
        for (int k = i + 1; k < n; ++k) value -= l[k * stride + i] * b[k];
        b[i] = value / l[i * stride + i];
    }
}

/// Returns true after factoring the symmetric n x n matrix `a` (its diagonal and lower triangle,
/// row stride `stride`) in place as L D L^T without square roots or pivoting: the lower triangle
/// and diagonal then hold L D (L unit lower), and inverse_pivot [n] the reciprocals 1 / D_j. False,
/// the factor incomplete, at a pivot D_j that is not above `floor` (the matrix is not positive
/// definite beyond the caller's tolerance). The upper triangle is neither read nor written.
OSC_FORCE_INLINE bool dense_ldlt_factor(int n, double* a, int stride, double floor, double* inverse_pivot) {
    for (int j = 0; j < n; ++j) {
        double* row_j = a + j * stride;
        for (int m = 0; m < j; ++m) {
            double l_jm = row_j[m] * inverse_pivot[m];
            for (int i = j; i < n; ++i) a[i * stride + j] -= a[i * stride + m] * l_jm;
        }
        if (!(row_j[j] > floor)) return false;
        inverse_pivot[j] = 1.0 / row_j[j];
    }
    return true;
}

/// Solves A x = b in place of b [n] with dense_ldlt_factor's factor (L D in `a`, its reciprocal
/// pivots in inverse_pivot).
OSC_FORCE_INLINE void dense_ldlt_solve(int n, const double* a, int stride, const double* inverse_pivot, double* b) {
    for (int i = 0; i < n; ++i)
        for (int m = 0; m < i; ++m) b[i] -= a[i * stride + m] * inverse_pivot[m] * b[m];
    for (int i = n - 1; i >= 0; --i) {
        double value = b[i];
        for (int m = i + 1; m < n; ++m) value -= a[m * stride + i] * b[m];
        b[i] = value * inverse_pivot[i];
    }
}

/// The largest order dense_ldlt_shifted factors.
enum { DENSE_SHIFTED_MAX = 8 };

/// Writes L D L^T = A + shift I for the symmetric n x n matrix `a` (n <= DENSE_SHIFTED_MAX; its
/// diagonal and lower triangle read, row stride `a_stride`): L unit lower into the lower triangle of
/// `l` (its diagonal set to 1, row stride `l_stride`), the reciprocal pivots 1 / D into
/// inverse_pivot [n]. It never fails: a pivot that rounding took to `shift` or below is replaced by
/// `shift` (1e-300 when the shift is 0), so that a Newton direction from the factor stays a
/// descent direction (the regularised normal matrix of an interior-point step).
OSC_FORCE_INLINE void dense_ldlt_shifted(const int n, const double* restrict a, int a_stride, double shift,
                                         double* restrict l, int l_stride, double* restrict inverse_pivot) {
    double scaled[DENSE_SHIFTED_MAX][DENSE_SHIFTED_MAX]; // scaled[i][k] = L_ik D_k
    for (int j = 0; j < n; ++j) {
        double* l_j = l + j * l_stride;
        double pivot = a[j * a_stride + j] + shift;
        for (int k = 0; k < j; ++k) pivot -= l_j[k] * scaled[j][k];
        pivot = pivot > shift ? pivot : (shift > 0.0 ? shift : 1e-300);
        double inverse = 1.0 / pivot;
        l_j[j] = 1.0;
        inverse_pivot[j] = inverse;
        for (int i = j + 1; i < n; ++i) {
            double* l_i = l + i * l_stride;
            double value = a[i * a_stride + j];
            for (int k = 0; k < j; ++k) value -= l_i[k] * scaled[j][k];
            scaled[i][j] = value;
            l_i[j] = value * inverse;
        }
    }
}

/// Solves (L D L^T) X = B in place of B, the n x `columns` matrix at `b` (row stride `b_stride`; a
/// vector is columns 1, b_stride 1), with dense_ldlt_shifted's factor: L's forward substitution, the
/// reciprocal pivots, L^T's backward substitution, the columns side by side (each column's result
/// is that of solving it alone).
OSC_FORCE_INLINE void dense_ldlt_shifted_solve(const int n, const double* restrict l, int l_stride,
                                               const double* restrict inverse_pivot, double* restrict b,
                                               const int columns, int b_stride) {
    for (int i = 1; i < n; ++i)
        for (int k = 0; k < i; ++k) {
            double factor = l[i * l_stride + k];
            for (int c = 0; c < columns; ++c) b[i * b_stride + c] -= factor * b[k * b_stride + c];
        }
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < columns; ++c) b[i * b_stride + c] *= inverse_pivot[i];
    for (int i = n - 2; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) {
            double factor = l[k * l_stride + i];
            for (int c = 0; c < columns; ++c) b[i * b_stride + c] -= factor * b[k * b_stride + c];
        }
}

#endif // OSC_DENSE_H
