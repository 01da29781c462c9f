// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// found_rows.c: the Jacobian products of the padded query families (manifold, sdf_pair, lmd) in
// the Python front ends, over the contacts found only (found_rows.h). A batch item b holds
// `capacity` slots of which the first count[b] are contacts; each slot has `rows` output rows,
// each row a Jacobian of `columns` entries. Slots past count[b] are never read (their Jacobians
// need not be written: the query leaves them untouched), so a capacity that is mostly empty costs
// nothing but the zeros of the forward product's output. Each batch item may carry several
// vectors (tangents or cotangents) for the same Jacobians, as jacfwd and jacrev make them: the
// Jacobians are read once per item and never copied per vector. One definition per product,
// expanded for double and float elements.

#include "found_rows.h"

#include <string.h>

/// Returns the found slots of a batch item: count clamped to [0, capacity].
static size_t found_slots(int32_t count, size_t capacity) {
    return count < 0 ? 0 : (size_t)count < capacity ? (size_t)count : capacity;
}

#define FOUND_PRODUCTS(T, APPLY, TRANSPOSE)                                                                            \
    void APPLY(const T* jacobians, const int32_t* count, const T* tangents, size_t batch, size_t vectors,              \
               size_t capacity, size_t rows, size_t columns, T* out) {                                                 \
        for (size_t b = 0; b < batch; ++b) {                                                                           \
            const size_t found = found_slots(count[b], capacity) * rows;                                               \
            const T* j = jacobians + b * capacity * rows * columns;                                                    \
            for (size_t v = 0; v < vectors; ++v) {                                                                     \
                const T* t = tangents + (b * vectors + v) * columns;                                                   \
                T* o = out + (b * vectors + v) * capacity * rows;                                                      \
                for (size_t r = 0; r < found; ++r) {                                                                   \
                    double sum = 0.0;                                                                                  \
                    for (size_t c = 0; c < columns; ++c) sum += (double)j[r * columns + c] * (double)t[c];             \
                    o[r] = (T)sum;                                                                                     \
                }                                                                                                      \
                memset(o + found, 0, (capacity * rows - found) * sizeof(T));                                           \
            }                                                                                                          \
        }                                                                                                              \
    }                                                                                                                  \
    void TRANSPOSE(const T* jacobians, const int32_t* count, const T* cotangents, size_t batch, size_t vectors,        \
                   size_t capacity, size_t rows, size_t columns, T* out) {                                             \
        double sum[64];                                                                                                \
        for (size_t b = 0; b < batch; ++b) {                                                                           \
            const size_t found = found_slots(count[b], capacity) * rows;                                               \
            const T* j = jacobians + b * capacity * rows * columns;                                                    \
            for (size_t v = 0; v < vectors; ++v) {                                                                     \
                const T* ct = cotangents + (b * vectors + v) * capacity * rows;                                        \
                T* o = out + (b * vectors + v) * columns;                                                              \
                for (size_t c0 = 0; c0 < columns; c0 += 64) {                                                          \
                    const size_t width = columns - c0 < 64 ? columns - c0 : 64;                                        \
                    for (size_t c = 0; c < width; ++c) sum[c] = 0.0;                                                   \
                    for (size_t r = 0; r < found; ++r) {                                                               \
                        const double w = (double)ct[r];                                                                \
                        if (w == 0.0) continue; /* a zero cotangent adds nothing, not even a NaN of J */               \
                        for (size_t c = 0; c < width; ++c) sum[c] += (double)j[r * columns + c0 + c] * w;              \
                    }                                                                                                  \
                    for (size_t c = 0; c < width; ++c) o[c0 + c] = (T)sum[c];                                          \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

FOUND_PRODUCTS(double, oscpy_found_apply_vectors, oscpy_found_transpose_vectors)
FOUND_PRODUCTS(float, oscpy_found_apply_vectors_f32, oscpy_found_transpose_vectors_f32)

void oscpy_found_apply(const double* jacobians, const int32_t* count, const double* tangents, size_t batch,
                       size_t capacity, size_t rows, size_t columns, double* out) {
    oscpy_found_apply_vectors(jacobians, count, tangents, batch, 1, capacity, rows, columns, out);
}

void oscpy_found_transpose(const double* jacobians, const int32_t* count, const double* cotangents, size_t batch,
                           size_t capacity, size_t rows, size_t columns, double* out) {
    oscpy_found_transpose_vectors(jacobians, count, cotangents, batch, 1, capacity, rows, columns, out);
}
