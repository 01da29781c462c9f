// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_ffi.h: what the XLA custom-call handlers of the Python package (xla_ffi.c, xla_queries.c)
// share: answering XLA's metadata call, errors, attributes, and reading and writing buffers of
// float32 or float64 elements (JAX without x64 passes float32; the library computes in double).

#ifndef OSCULATE_PY_XLA_FFI_H
#define OSCULATE_PY_XLA_FFI_H

#include "oscpy_api.h"
#include "xla_abi.h"

#include <osculate/osculate.h>

#include <stdbool.h>

/// Defines the exported handler NAME around `static oscx_error* NAME_run(oscx_call_frame*)`:
/// answers the metadata call and runs NAME_run at the execute stage only.
#define OSCX_HANDLER(NAME)                                                                                             \
    static oscx_error* NAME##_run(oscx_call_frame* frame);                                                             \
    OSCPY_API oscx_error* NAME(oscx_call_frame* frame) {                                                               \
        if (oscx_answer_metadata(frame) || frame->stage != OSCX_STAGE_EXECUTE) return NULL;                            \
        return NAME##_run(frame);                                                                                      \
    }                                                                                                                  \
    static oscx_error* NAME##_run(oscx_call_frame* frame)

/// Returns true after filling in the API version when `frame` is XLA's metadata call.
bool oscx_answer_metadata(oscx_call_frame* frame);

/// Returns an XLA error with `code` and the printf-style message.
oscx_error* oscx_fail(const oscx_call_frame* frame, oscx_error_code code, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

/// Returns the error for a failed osculate call: `status` with osc_last_error()'s message, prefixed
/// with `where`.
oscx_error* oscx_fail_status(const oscx_call_frame* frame, const char* where, osc_status status);

/// Returns argument i, or NULL when there are fewer arguments or it is not a float32 or float64
/// buffer whose last dimension is `last` (-1: any).
const oscx_buffer* oscx_float_arg(const oscx_call_frame* frame, int i, int64_t last);

/// Returns result i (NULL when there are fewer).
oscx_buffer* oscx_ret(const oscx_call_frame* frame, int i);

/// Returns the number of elements of `buffer` over its first rank - `trailing` dimensions.
size_t oscx_leading(const oscx_buffer* buffer, int trailing);

/// Returns the number of elements of `buffer`.
size_t oscx_size(const oscx_buffer* buffer);

/// Reads the integer attribute `name` (a signed or unsigned 64-bit scalar) into `value`; returns
/// false when it is missing or of another type.
bool oscx_attr_int(const oscx_call_frame* frame, const char* name, int64_t* value);

/// Reads the attribute `name` into `value`, which must be a uint64 scalar holding an address.
bool oscx_attr_pointer(const oscx_call_frame* frame, const char* name, const void** value);

/// Reads the float64 scalar attribute `name` into `value`; false when it is missing or of another
/// type.
bool oscx_attr_double(const oscx_call_frame* frame, const char* name, double* value);

/// Copies the uint8 array attribute `name` of exactly `size` bytes (a settings struct) into `out`.
bool oscx_attr_bytes(const oscx_call_frame* frame, const char* name, void* out, size_t size);

/// Returns element i of a float32 or float64 buffer as a double.
static inline double oscx_get(const oscx_buffer* b, size_t i) {
    return b->dtype == OSCX_F64 ? ((const double*)b->data)[i] : (double)((const float*)b->data)[i];
}

/// Stores `value` as element i of a float32 or float64 buffer.
static inline void oscx_set(oscx_buffer* b, size_t i, double value) {
    if (b->dtype == OSCX_F64)
        ((double*)b->data)[i] = value;
    else
        ((float*)b->data)[i] = (float)value;
}

/// Copies `count` doubles into a float buffer from element `start`.
void oscx_store(oscx_buffer* b, size_t start, const double* values, size_t count);

/// Fills elements [start, start + count) of a float buffer with `value`.
void oscx_fill(oscx_buffer* b, size_t start, size_t count, double value);

/// Reads pose i of a [..., 7] float buffer (p, q; the query normalises q).
osc_pose oscx_pose(const oscx_buffer* poses, size_t i);

/// Writes the maps from raw pose tangents to twists of poses i of `a` and `b` into `maps`
/// [..., 2, 3, 4]: d omega / d q of each quaternion (osc_quat_to_twist_jacobian; the linear part
/// of a twist is the position's tangent itself).
void oscx_write_pose_maps(oscx_buffer* maps, size_t i, osc_pose a, osc_pose b);

/// Returns scratch memory (malloc'ed, for the caller to free; NULL when out of memory) for one
/// block of a batch of `count` items of `item_bytes` each, and in *block how many items a block
/// holds: batches run in blocks of at most 64 MiB (at least one item).
void* oscx_scratch(size_t count, size_t item_bytes, size_t* block);

#endif // OSCULATE_PY_XLA_FFI_H
