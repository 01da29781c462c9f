// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// found_rows.h: the Jacobian products of the padded query families over the contacts found
// (found_rows.c), in double precision (osculate.torch, through ctypes, and the XLA handlers) and
// for float32 arrays (the XLA handlers without x64; sums are accumulated in double).

#ifndef OSCULATE_PY_FOUND_ROWS_H
#define OSCULATE_PY_FOUND_ROWS_H

#include "oscpy_api.h"

#include <stddef.h>
#include <stdint.h>

/// Writes the forward (tangent) product out[b][s][r] = sum_c J[b][s][r][c] t[b][c] for the found
/// slots s < count[b] and 0 for the others: jacobians [batch][capacity][rows][columns], count
/// [batch] (clamped to [0, capacity]), tangents [batch][columns], out [batch][capacity][rows].
OSCPY_API void oscpy_found_apply(const double* jacobians, const int32_t* count, const double* tangents, size_t batch,
                                 size_t capacity, size_t rows, size_t columns, double* out);

/// Writes the reverse (cotangent) product out[b][c] = sum over found slots s < count[b] and rows r
/// of J[b][s][r][c] ct[b][s][r]: jacobians [batch][capacity][rows][columns], count [batch]
/// (clamped to [0, capacity]), cotangents [batch][capacity][rows] (read for found slots only), out
/// [batch][columns].
OSCPY_API void oscpy_found_transpose(const double* jacobians, const int32_t* count, const double* cotangents,
                                     size_t batch, size_t capacity, size_t rows, size_t columns, double* out);

/// oscpy_found_apply for `vectors` tangents per batch item against the same Jacobians: tangents
/// [batch][vectors][columns], out [batch][vectors][capacity][rows]; each vector's product is the
/// one oscpy_found_apply computes.
void oscpy_found_apply_vectors(const double* jacobians, const int32_t* count, const double* tangents, size_t batch,
                               size_t vectors, size_t capacity, size_t rows, size_t columns, double* out);

/// oscpy_found_transpose for `vectors` cotangents per batch item against the same Jacobians:
/// cotangents [batch][vectors][capacity][rows], out [batch][vectors][columns]; each vector's
/// product is the one oscpy_found_transpose computes.
void oscpy_found_transpose_vectors(const double* jacobians, const int32_t* count, const double* cotangents,
                                   size_t batch, size_t vectors, size_t capacity, size_t rows, size_t columns,
                                   double* out);

/// oscpy_found_apply_vectors on float32 arrays.
void oscpy_found_apply_vectors_f32(const float* jacobians, const int32_t* count, const float* tangents, size_t batch,
                                   size_t vectors, size_t capacity, size_t rows, size_t columns, float* out);

/// oscpy_found_transpose_vectors on float32 arrays.
void oscpy_found_transpose_vectors_f32(const float* jacobians, const int32_t* count, const float* cotangents,
                                       size_t batch, size_t vectors, size_t capacity, size_t rows, size_t columns,
                                       float* out);

#endif // OSCULATE_PY_FOUND_ROWS_H
