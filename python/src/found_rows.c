// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// found_rows.c: the Jacobian products of the padded query families (manifold, sdf_pair, lmd) in
// the Python front ends, over the contacts found only. A batch item b holds `capacity` slots of
// which the first count[b] are contacts; each slot has `rows` output rows, each row a Jacobian
// of `columns` entries. Slots past count[b] are never read (their Jacobians need not be written:
// the query leaves them untouched), so a capacity that is mostly empty costs nothing but the
// zeros of the forward product's output. Used by the XLA handlers (xla_ffi.c) and by
// osculate.torch through ctypes.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OSCPY_API __attribute__((visibility("default")))

/// Writes the forward (tangent) product out[b][s][r] = sum_c J[b][s][r][c] t[b][c] for the found
/// slots s < count[b] and 0 for the others: jacobians [batch][capacity][rows][columns], count
/// [batch] (clamped to [0, capacity]), tangents [batch][columns], out [batch][capacity][rows].
OSCPY_API void oscpy_found_apply(const double* jacobians, const int32_t* count, const double* tangents, size_t batch,
                                 size_t capacity, size_t rows, size_t columns, double* out) {
    const size_t slot = rows * columns;
    for (size_t b = 0; b < batch; ++b) {
        const size_t found = count[b] < 0 ? 0 : (size_t)count[b] < capacity ? (size_t)count[b] : capacity;
        const double* t = tangents + b * columns;
        const double* j = jacobians + b * capacity * slot;
        double* o = out + b * capacity * rows;
        for (size_t r = 0; r < found * rows; ++r) {
            double sum = 0.0;
            for (size_t c = 0; c < columns; ++c) sum += j[r * columns + c] * t[c];
            o[r] = sum;
        }
        memset(o + found * rows, 0, (capacity - found) * rows * sizeof(double));
    }
}

/// Writes the reverse (cotangent) product out[b][c] = sum over found slots s < count[b] and rows r
/// of J[b][s][r][c] ct[b][s][r]: jacobians [batch][capacity][rows][columns], count [batch]
/// (clamped to [0, capacity]), cotangents [batch][capacity][rows] (read for found slots only), out
/// [batch][columns].
OSCPY_API void oscpy_found_transpose(const double* jacobians, const int32_t* count, const double* cotangents,
                                     size_t batch, size_t capacity, size_t rows, size_t columns, double* out) {
    const size_t slot = rows * columns;
    for (size_t b = 0; b < batch; ++b) {
        const size_t found = count[b] < 0 ? 0 : (size_t)count[b] < capacity ? (size_t)count[b] : capacity;
        const double* ct = cotangents + b * capacity * rows;
        const double* j = jacobians + b * capacity * slot;
        double* o = out + b * columns;
        for (size_t c = 0; c < columns; ++c) o[c] = 0.0;
        for (size_t r = 0; r < found * rows; ++r) {
            const double w = ct[r];
            if (w == 0.0) continue;
            for (size_t c = 0; c < columns; ++c) o[c] += j[r * columns + c] * w;
        }
    }
}
