// dense.h: the library's small dense factorisations, written once: LU with partial pivoting, the
// Cholesky factor L L^T and the factor L D L^T without square roots, with their solves. The
// matrices are a few rows to a few dozen (a Newton system of 3 or 4 unknowns, the normal matrix
// of a cone program of 8 variables, its augmented form of 24), row-major with a row stride, so
// that each caller keeps its own fixed-size arrays (double a[4][4] is passed as &a[0][0], 4).
// Each routine fixes its order of operations: a caller gets the same bits from it wherever it is
// called. Never installed.

#ifndef OSC_DENSE_H
#define OSC_DENSE_H

#include <stdbool.h>

/// Returns true after factoring the n x n matrix `a` (row stride `stride`) in place as P A = L U
/// by Gaussian elimination with partial pivoting: U on and above the diagonal, L's multipliers
/// (unit diagonal) below it; pivot[k] is the row swapped with row k at step k, whole rows swapped
/// (LAPACK's getrf convention). As LAPACK's getf2, a column's multipliers are its entries times
/// the pivot's reciprocal, and a row whose multiplier is zero is not updated (an augmented system
/// is sparse). False, the factor incomplete, at a pivot that is zero or not finite (the matrix is
/// singular to working precision).
bool dense_lu_factor(int n, double* a, int stride, int* pivot);

/// Solves A X = B in place of B, the n x `columns` matrix at `b` (row stride `b_stride`; a vector
/// is columns 1, b_stride 1), with dense_lu_factor's factor of A: the swaps, then L's forward and
/// U's backward substitution (dividing by U's diagonal), all columns side by side (each column's
/// result is that of solving it alone; the inverse is the identity solved).
void dense_lu_solve(int n, const double* lu, int stride, const int* pivot, double* b, int columns, int b_stride);

/// Returns n after writing the lower Cholesky factor L of A + shift I, L L^T = A + shift I, of the
/// symmetric n x n matrix `a` (its diagonal and lower triangle read, row stride `a_stride`) to the
/// lower triangle and diagonal of `l` (row stride `l_stride`; it may be `a` itself; the upper
/// triangle is not written). Returns the index j of the first pivot (A_jj + shift - sum_k L_jk^2,
/// before its square root) that is not above `floor` or not finite, writing it to *failed_pivot
/// (nullable): A + shift I is not positive definite beyond the caller's tolerance, and L is
/// complete only above row j.
int dense_cholesky(int n, const double* a, int a_stride, double shift, double floor, double* l, int l_stride,
                   double* failed_pivot);

/// Solves L L^T x = b in place of b [n] with dense_cholesky's factor L (row stride `stride`).
void dense_cholesky_solve(int n, const double* l, int stride, double* b);

#endif // OSC_DENSE_H
