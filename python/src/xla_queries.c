// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_queries.c: the query families as XLA custom-call handlers (docs/python.md, JAX). Each runs
// the family's batched C call over the leading dimensions of its pose (or point, ray) arguments,
// which osculate.jax broadcasts to one shape first, and writes the values and, when asked, the
// Jacobians along twists and the pose maps that turn raw pose tangents into twists
// (oscx_write_pose_maps). Models arrive as addresses (uint64 attributes) that osculate.jax keeps
// alive, settings as the bytes of the C settings struct, so nothing here parses Python objects.

#include "xla_ffi.h"

#include <stdlib.h>
#include <string.h>

/// Reads the attributes every pair handler takes: the models a and b, the settings struct of
/// `settings_size` bytes and the thread count. Returns NULL or the error naming what is missing.
static oscx_error* pair_attrs(const oscx_call_frame* frame, const char* where, const void** a, const void** b,
                              void* settings, size_t settings_size, int* threads) {
    int64_t t;
    if (!oscx_attr_pointer(frame, "a", a) || !oscx_attr_pointer(frame, "b", b))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attributes a and b must be model addresses", where);
    if (!oscx_attr_bytes(frame, "settings", settings, settings_size))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute settings must hold %zu bytes", where,
                         settings_size);
    if (!oscx_attr_int(frame, "threads", &t) || t < 0 || t > INT32_MAX)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute threads must be >= 0", where);
    *threads = (int)t;
    return NULL;
}

/// Reads the two pose arguments [..., 7] of one shape into *pa, *pb and their count into *n.
static oscx_error* pose_args(const oscx_call_frame* frame, const char* where, const oscx_buffer** pa,
                             const oscx_buffer** pb, size_t* n) {
    *pa = oscx_float_arg(frame, 0, 7);
    *pb = oscx_float_arg(frame, 1, 7);
    if (!*pa || !*pb || oscx_size(*pa) != oscx_size(*pb))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: the poses must be float arrays [..., 7] of one shape",
                         where);
    *n = oscx_leading(*pa, 1);
    return NULL;
}

// ------------------------------------------------------------------------------------------------
// DCOL: results alpha, distance [...], point, point_a, point_b, normal [..., 3]; then, for each
// output whose bit (in that order) is set in the attribute `jacobians`, its Jacobian
// [..., rows, 12]; then, when any bit is set, the pose maps [..., 2, 3, 4].

enum { DCOL_OUTPUTS = 6 };

OSCX_HANDLER(osculate_dcol) {
    static const char where[] = "osculate.jax.dcol";
    static const int rows[DCOL_OUTPUTS] = {1, 1, 3, 3, 3, 3};
    const void *a, *b;
    osc_dcol_settings settings;
    int threads;
    int64_t mask;
    const oscx_buffer *pa = NULL, *pb = NULL;
    size_t n = 0;
    oscx_error* e = pair_attrs(frame, where, &a, &b, &settings, sizeof settings, &threads);
    if (!e) e = pose_args(frame, where, &pa, &pb, &n);
    if (e) return e;
    if (!oscx_attr_int(frame, "jacobians", &mask) || mask < 0 || mask >= (1 << DCOL_OUTPUTS))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute jacobians must be a 6-bit mask", where);
    int wanted = 0;
    for (int k = 0; k < DCOL_OUTPUTS; ++k) wanted += (int)(mask >> k & 1);
    if (frame->rets.size != DCOL_OUTPUTS + wanted + (mask ? 1 : 0))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: %d results expected", where,
                         DCOL_OUTPUTS + wanted + (mask ? 1 : 0));

    // per item: the batch item, the result, the Jacobian pointers and their 14 x 12 doubles
    const size_t item_bytes = sizeof(osc_dcol_batch_item) + sizeof(osc_dcol_result) + sizeof(osc_dcol_jacobians) +
                              (mask ? 14 * 12 * sizeof(double) : 0);
    const size_t block = oscx_block_items(item_bytes);
    char* scratch = malloc((n < block ? n : block) * item_bytes + 1);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < n; start += block) {
        const size_t m = n - start < block ? n - start : block;
        osc_dcol_batch_item* items = (osc_dcol_batch_item*)scratch;
        osc_dcol_result* results = (osc_dcol_result*)(items + m);
        osc_dcol_jacobians* jacs = (osc_dcol_jacobians*)(results + m);
        double* jac = (double*)(jacs + m);
        for (size_t i = 0; i < m; ++i) {
            items[i] = (osc_dcol_batch_item){a, oscx_pose(pa, start + i), b, oscx_pose(pb, start + i), NULL};
            double* j = jac + 14 * 12 * i;
            jacs[i] =
                (osc_dcol_jacobians){mask & 1 ? j : NULL,       mask & 4 ? j + 24 : NULL, mask & 8 ? j + 60 : NULL,
                                     mask & 16 ? j + 96 : NULL, mask & 2 ? j + 12 : NULL, mask & 32 ? j + 132 : NULL};
        }
        const osc_status status =
            osc_dcol_proximity_batch(items, m, &settings, results, mask ? jacs : NULL, NULL, threads);
        if (status != OSC_OK) {
            free(scratch);
            return oscx_fail_status(frame, where, status);
        }
        for (size_t i = 0; i < m; ++i) {
            const osc_dcol_result* r = &results[i];
            const size_t k = start + i;
            oscx_set(oscx_ret(frame, 0), k, r->alpha);
            oscx_set(oscx_ret(frame, 1), k, r->distance);
            oscx_store(oscx_ret(frame, 2), 3 * k, &r->point.x, 3);
            oscx_store(oscx_ret(frame, 3), 3 * k, &r->point_a.x, 3);
            oscx_store(oscx_ret(frame, 4), 3 * k, &r->point_b.x, 3);
            oscx_store(oscx_ret(frame, 5), 3 * k, &r->normal.x, 3);
            if (!mask) continue;
            // the Jacobians sit in the order alpha, distance, point, point_a, point_b, normal
            int ret = DCOL_OUTPUTS, offset = 0;
            for (int o = 0; o < DCOL_OUTPUTS; ++o) {
                if (mask >> o & 1)
                    oscx_store(oscx_ret(frame, ret++), (size_t)rows[o] * 12 * k, jac + 14 * 12 * i + offset,
                               (size_t)rows[o] * 12);
                offset += rows[o] * 12;
            }
            oscx_write_pose_maps(oscx_ret(frame, ret), k, items[i].pose_a, items[i].pose_b);
        }
    }
    free(scratch);
    return NULL;
}

// ------------------------------------------------------------------------------------------------
// Manifold: results point [..., C, 3], distance [..., C] (d_max in empty slots), normal [..., C, 3],
// weight [..., C], count [...] (int32); with the attribute jacobians = 1 also the twist Jacobians
// of point [..., C, 3, 12], distance [..., C, 1, 12], normal [..., C, 3, 12], weight
// [..., C, 1, 12] (written for found contacts only: the products of xla_ffi.c read no others)
// and the pose maps [..., 2, 3, 4].

enum { MANIFOLD_VALUES = 4, MANIFOLD_RESULTS = 5 };

OSCX_HANDLER(osculate_manifold) {
    static const char where[] = "osculate.jax.manifold";
    static const int rows[MANIFOLD_VALUES] = {3, 1, 3, 1};
    const void *a, *b;
    osc_manifold_settings settings;
    int threads;
    int64_t capacity, jacobians;
    const oscx_buffer *pa = NULL, *pb = NULL;
    size_t n = 0;
    oscx_error* e = pair_attrs(frame, where, &a, &b, &settings, sizeof settings, &threads);
    if (!e) e = pose_args(frame, where, &pa, &pb, &n);
    if (e) return e;
    if (!oscx_attr_int(frame, "capacity", &capacity) || capacity < 0 || capacity > INT32_MAX ||
        !oscx_attr_int(frame, "jacobians", &jacobians))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attributes capacity and jacobians expected", where);
    if (frame->rets.size != MANIFOLD_RESULTS + (jacobians ? MANIFOLD_VALUES + 1 : 0))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: wrong number of results", where);
    const size_t cap = (size_t)capacity;
    oscx_buffer* out[MANIFOLD_RESULTS + MANIFOLD_VALUES + 1];
    for (int k = 0; k < frame->rets.size; ++k) out[k] = oscx_ret(frame, k);
    int32_t* count = out[4]->data;
    // float64 Jacobians are written by the query in place; float32 ones pass through scratch
    const bool in_place = out[0]->dtype == OSCX_F64;

    const size_t jac_doubles = jacobians && !in_place ? cap * 8 * 12 : 0;
    const size_t item_bytes = sizeof(osc_manifold_batch_item) + sizeof(osc_manifold_output) +
                              cap * sizeof(osc_manifold_contact) + jac_doubles * sizeof(double);
    const size_t block = oscx_block_items(item_bytes);
    char* scratch = malloc((n < block ? n : block) * item_bytes + 1);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < n; start += block) {
        const size_t m = n - start < block ? n - start : block;
        osc_manifold_batch_item* items = (osc_manifold_batch_item*)scratch;
        osc_manifold_output* outputs = (osc_manifold_output*)(items + m);
        osc_manifold_contact* contacts = (osc_manifold_contact*)(outputs + m);
        double* jac = (double*)(contacts + m * cap);
        for (size_t i = 0; i < m; ++i) {
            const size_t k = start + i;
            items[i] = (osc_manifold_batch_item){a, oscx_pose(pa, k), b, oscx_pose(pb, k)};
            osc_manifold_output* o = &outputs[i];
            *o = (osc_manifold_output){.contacts = contacts + i * cap, .capacity = (int32_t)cap};
            if (!jacobians) continue;
            double* j[MANIFOLD_VALUES];
            for (int v = 0, offset = 0; v < MANIFOLD_VALUES; offset += rows[v] * 12, ++v)
                j[v] = in_place ? (double*)out[MANIFOLD_RESULTS + v]->data + k * cap * (size_t)rows[v] * 12
                                : jac + i * cap * 8 * 12 + cap * (size_t)offset;
            o->point_jacobians = j[0];
            o->distance_jacobians = j[1];
            o->normal_jacobians = j[2];
            o->weight_jacobians = j[3];
        }
        const osc_status status = osc_manifold_collide_batch(items, m, &settings, outputs, NULL, threads);
        if (status != OSC_OK) {
            free(scratch);
            return oscx_fail_status(frame, where, status);
        }
        for (size_t i = 0; i < m; ++i) {
            const size_t k = start + i, found = (size_t)outputs[i].count;
            const osc_manifold_contact* c = outputs[i].contacts;
            count[k] = outputs[i].count;
            for (size_t s = 0; s < found; ++s) {
                const size_t slot = k * cap + s;
                oscx_store(out[0], 3 * slot, &c[s].point.x, 3);
                oscx_set(out[1], slot, c[s].distance);
                oscx_store(out[2], 3 * slot, &c[s].normal.x, 3);
                oscx_set(out[3], slot, c[s].weight);
            }
            const size_t empty = cap - found, first = k * cap + found;
            oscx_fill(out[0], 3 * first, 3 * empty, 0.0);
            oscx_fill(out[1], first, empty, settings.d_max);
            oscx_fill(out[2], 3 * first, 3 * empty, 0.0);
            oscx_fill(out[3], first, empty, 0.0);
            if (!jacobians) continue;
            if (!in_place)
                for (int v = 0, offset = 0; v < MANIFOLD_VALUES; offset += rows[v] * 12, ++v)
                    oscx_store(out[MANIFOLD_RESULTS + v], k * cap * (size_t)rows[v] * 12,
                               jac + i * cap * 8 * 12 + cap * (size_t)offset, found * (size_t)rows[v] * 12);
            oscx_write_pose_maps(out[MANIFOLD_RESULTS + MANIFOLD_VALUES], k, items[i].pose_a, items[i].pose_b);
        }
    }
    free(scratch);
    return NULL;
}
