// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_ffi.c: the call-frame side of the XLA custom-call handlers (xla_ffi.h), and the handlers of
// the Jacobian products over found contacts (found_rows.c) that osculate.jax's linear primitives
// lower to.

#include "xla_ffi.h"

#include "found_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Scratch memory a handler allocates at most at once (batches are run in blocks that fit).
#define OSCX_BLOCK_BYTES ((size_t)64 << 20)

bool oscx_answer_metadata(oscx_call_frame* frame) {
    for (oscx_extension* e = frame->extension_start; e; e = e->next) {
        if (e->type != OSCX_EXTENSION_METADATA) continue;
        oscx_metadata* m = ((oscx_metadata_extension*)e)->metadata;
        m->api_version.major_version = OSCX_API_MAJOR;
        m->api_version.minor_version = OSCX_API_MINOR;
        m->traits = 0;
        return true;
    }
    return false;
}

oscx_error* oscx_fail(const oscx_call_frame* frame, oscx_error_code code, const char* format, ...) {
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    oscx_error_create_args e = {sizeof e, NULL, message, code};
    return frame->api->error_create(&e);
}

oscx_error* oscx_fail_status(const oscx_call_frame* frame, const char* where, osc_status status) {
    const oscx_error_code code = status == OSC_ERR_CAPACITY           ? OSCX_ERROR_RESOURCE_EXHAUSTED
                                 : status == OSC_ERR_INVALID_ARGUMENT ? OSCX_ERROR_INVALID_ARGUMENT
                                                                      : OSCX_ERROR_INTERNAL;
    return oscx_fail(frame, code, "%s: %s (%s)", where, osc_last_error(), osc_status_string(status));
}

const oscx_buffer* oscx_float_arg(const oscx_call_frame* frame, int i, int64_t last) {
    if (i >= frame->args.size) return NULL;
    const oscx_buffer* b = frame->args.args[i];
    if (b->dtype != OSCX_F32 && b->dtype != OSCX_F64) return NULL;
    if (last >= 0 && (b->rank < 1 || b->dims[b->rank - 1] != last)) return NULL;
    return b;
}

oscx_buffer* oscx_ret(const oscx_call_frame* frame, int i) { return i < frame->rets.size ? frame->rets.rets[i] : NULL; }

size_t oscx_leading(const oscx_buffer* buffer, int trailing) {
    size_t n = 1;
    for (int64_t d = 0; d < buffer->rank - trailing; ++d) n *= (size_t)buffer->dims[d];
    return n;
}

size_t oscx_size(const oscx_buffer* buffer) { return oscx_leading(buffer, 0); }

/// Returns attribute `name` of `type`, or NULL.
static const void* find_attr(const oscx_call_frame* frame, const char* name, oscx_attr_type type) {
    const size_t len = strlen(name);
    for (int64_t i = 0; i < frame->attrs.size; ++i) {
        const oscx_byte_span* n = frame->attrs.names[i];
        if (frame->attrs.types[i] == type && n->len == len && memcmp(n->ptr, name, len) == 0)
            return frame->attrs.attrs[i];
    }
    return NULL;
}

bool oscx_attr_int(const oscx_call_frame* frame, const char* name, int64_t* value) {
    const oscx_scalar* s = find_attr(frame, name, OSCX_ATTR_SCALAR);
    if (!s || (s->dtype != OSCX_S64 && s->dtype != OSCX_U64)) return false;
    memcpy(value, s->value, sizeof *value);
    return true;
}

bool oscx_attr_pointer(const oscx_call_frame* frame, const char* name, const void** value) {
    const oscx_scalar* s = find_attr(frame, name, OSCX_ATTR_SCALAR);
    if (!s || s->dtype != OSCX_U64) return false;
    uint64_t address;
    memcpy(&address, s->value, sizeof address);
    *value = (const void*)(uintptr_t)address;
    return address != 0;
}

bool oscx_attr_double(const oscx_call_frame* frame, const char* name, double* value) {
    const oscx_scalar* s = find_attr(frame, name, OSCX_ATTR_SCALAR);
    if (!s || s->dtype != OSCX_F64) return false;
    memcpy(value, s->value, sizeof *value);
    return true;
}

bool oscx_attr_bytes(const oscx_call_frame* frame, const char* name, void* out, size_t size) {
    const oscx_array* a = find_attr(frame, name, OSCX_ATTR_ARRAY);
    if (!a || a->dtype != OSCX_U8 || a->size != size) return false;
    memcpy(out, a->data, size);
    return true;
}

void oscx_store(oscx_buffer* b, size_t start, const double* values, size_t count) {
    if (b->dtype == OSCX_F64) {
        memcpy((double*)b->data + start, values, count * sizeof(double));
        return;
    }
    float* f = (float*)b->data + start;
    for (size_t i = 0; i < count; ++i) f[i] = (float)values[i];
}

void oscx_fill(oscx_buffer* b, size_t start, size_t count, double value) {
    for (size_t i = 0; i < count; ++i) oscx_set(b, start + i, value);
}

osc_pose oscx_pose(const oscx_buffer* poses, size_t i) {
    double v[7];
    for (int k = 0; k < 7; ++k) v[k] = oscx_get(poses, 7 * i + (size_t)k);
    return (osc_pose){{v[0], v[1], v[2]}, {v[3], v[4], v[5], v[6]}};
}

void oscx_write_pose_maps(oscx_buffer* maps, size_t i, osc_pose a, osc_pose b) {
    double g[2][3][4];
    osc_quat_to_twist_jacobian(a.q, g[0]);
    osc_quat_to_twist_jacobian(b.q, g[1]);
    oscx_store(maps, 24 * i, &g[0][0][0], 24);
}

void* oscx_scratch(size_t count, size_t item_bytes, size_t* block) {
    const size_t n = item_bytes ? OSCX_BLOCK_BYTES / item_bytes : 1;
    *block = n ? n : 1;
    return malloc((count < *block ? count : *block) * item_bytes + 1);
}

// ------------------------------------------------------------------------------------------------
// Jacobian products over found contacts: args J [..., C, R, K], count [...] (int32), and the
// tangent [..., K] (apply) or the cotangent [..., C, R] (transpose), float32 or float64 (one type
// for all three and the result), computed by found_rows.c. The vector may carry one more
// dimension N right after J's leading ones, [..., N, K] or [..., N, C, R] (N tangents or
// cotangents per batch item, as jacfwd and jacrev batch them): the result then has it too.

/// The operands of a found-rows product.
typedef struct found_product {
    const oscx_buffer* jacobians;
    const int32_t* count;
    const oscx_buffer* vector; // the tangent or the cotangent
    oscx_buffer* out;
    size_t batch, vectors, capacity, rows, columns;
} found_product;

/// Reads the operands of a found-rows product; false unless J has rank >= 3, count is int32 over
/// J's leading dimensions, and the vector and the result have J's float type and, per batch item
/// and vector, K and C * R elements (the apply) or C * R and K (the transpose,
/// `vector_is_cotangent`); the vectors are counted by the vector's dimension N when it has one.
static bool found_operands(const oscx_call_frame* frame, int vector_is_cotangent, found_product* p) {
    if (frame->args.size != 3 || frame->rets.size != 1) return false;
    const oscx_buffer* j = frame->args.args[0];
    const oscx_buffer* count = frame->args.args[1];
    if ((j->dtype != OSCX_F64 && j->dtype != OSCX_F32) || j->rank < 3 || count->dtype != OSCX_S32 ||
        count->rank != j->rank - 3)
        return false;
    for (int64_t d = 0; d < count->rank; ++d)
        if (count->dims[d] != j->dims[d]) return false;
    p->jacobians = j;
    p->count = count->data;
    p->vector = frame->args.args[2];
    p->out = frame->rets.rets[0];
    p->batch = oscx_leading(j, 3);
    p->capacity = (size_t)j->dims[j->rank - 3];
    p->rows = (size_t)j->dims[j->rank - 2];
    p->columns = (size_t)j->dims[j->rank - 1];
    // the vector's rank without N: J's leading dimensions, then K (apply) or C, R (transpose)
    const int64_t plain = count->rank + (vector_is_cotangent ? 2 : 1);
    if (p->vector->rank != plain && p->vector->rank != plain + 1) return false;
    p->vectors = p->vector->rank == plain ? 1 : (size_t)p->vector->dims[count->rank];
    const size_t slots = p->capacity * p->rows;
    const size_t vector = vector_is_cotangent ? slots : p->columns, out = vector_is_cotangent ? p->columns : slots;
    return p->vector->dtype == j->dtype && p->out->dtype == j->dtype &&
           oscx_size(p->vector) == p->batch * p->vectors * vector && oscx_size(p->out) == p->batch * p->vectors * out;
}

/// Runs the found-rows product of `frame`: J t, or J^T ct when `transpose`, in the buffers' type.
static oscx_error* found_product_run(const oscx_call_frame* frame, bool transpose) {
    found_product p;
    if (!found_operands(frame, transpose, &p))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: bad operand shapes or types",
                         transpose ? "osculate_found_transpose" : "osculate_found_apply");
    const void *j = p.jacobians->data, *v = p.vector->data;
    if (p.jacobians->dtype == OSCX_F64) {
        (transpose ? oscpy_found_transpose_vectors : oscpy_found_apply_vectors)(
            j, p.count, v, p.batch, p.vectors, p.capacity, p.rows, p.columns, p.out->data);
    } else {
        (transpose ? oscpy_found_transpose_vectors_f32 : oscpy_found_apply_vectors_f32)(
            j, p.count, v, p.batch, p.vectors, p.capacity, p.rows, p.columns, p.out->data);
    }
    return NULL;
}

OSCX_HANDLER(osculate_found_apply) { return found_product_run(frame, false); }

OSCX_HANDLER(osculate_found_transpose) { return found_product_run(frame, true); }
