// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_queries.c: the pair query families (DCOL, manifold, SDF pair, LMD) as XLA custom-call
// handlers (docs/python.md, JAX). Each runs the family's batched C call over the leading
// dimensions of its pose arguments, which osculate.jax broadcasts to one shape first, and writes
// the values and, when asked, the Jacobians along twists and the pose maps that turn raw pose
// tangents into twists (oscx_write_pose_maps). Models arrive as addresses (uint64 attributes) that
// osculate.jax keeps alive, settings as the bytes of the C settings struct, so nothing here parses
// Python objects.

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
    int threads = 0;
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

    // float64 Jacobians are written by the solve in place; float32 ones pass through scratch
    static const int offsets[DCOL_OUTPUTS] = {0, 12, 24, 60, 96, 132}; // rows[] summed, times 12
    const bool in_place = oscx_ret(frame, 0)->dtype == OSCX_F64;
    double* jac_out[DCOL_OUTPUTS] = {NULL};
    for (int o = 0, ret = DCOL_OUTPUTS; o < DCOL_OUTPUTS; ++o)
        if (mask >> o & 1) jac_out[o] = oscx_ret(frame, ret++)->data;
    // per item: the batch item, the result, the Jacobian pointers and, in scratch, their 14 x 12
    const size_t item_bytes = sizeof(osc_dcol_batch_item) + sizeof(osc_dcol_result) + sizeof(osc_dcol_jacobians) +
                              (mask && !in_place ? 14 * 12 * sizeof(double) : 0);
    size_t block;
    char* scratch = oscx_scratch(n, item_bytes, &block);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < n; start += block) {
        const size_t m = n - start < block ? n - start : block;
        osc_dcol_batch_item* items = (osc_dcol_batch_item*)scratch;
        osc_dcol_result* results = (osc_dcol_result*)(items + m);
        osc_dcol_jacobians* jacs = (osc_dcol_jacobians*)(results + m);
        double* jac = (double*)(jacs + m);
        for (size_t i = 0; i < m; ++i) {
            items[i] = (osc_dcol_batch_item){a, oscx_pose(pa, start + i), b, oscx_pose(pb, start + i), NULL};
            double* j[DCOL_OUTPUTS] = {NULL};
            for (int o = 0; o < DCOL_OUTPUTS; ++o)
                if (mask >> o & 1)
                    j[o] = in_place ? jac_out[o] + (size_t)rows[o] * 12 * (start + i) : jac + 14 * 12 * i + offsets[o];
            jacs[i] = (osc_dcol_jacobians){j[0], j[2], j[3], j[4], j[1], j[5]}; // the struct's order
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
            int ret = DCOL_OUTPUTS;
            for (int o = 0; o < DCOL_OUTPUTS; ++o) {
                if (!(mask >> o & 1)) continue;
                if (!in_place)
                    oscx_store(oscx_ret(frame, ret), (size_t)rows[o] * 12 * k, jac + 14 * 12 * i + offsets[o],
                               (size_t)rows[o] * 12);
                ++ret;
            }
            oscx_write_pose_maps(oscx_ret(frame, ret), k, items[i].pose_a, items[i].pose_b);
        }
    }
    free(scratch);
    return NULL;
}

// ------------------------------------------------------------------------------------------------
// Families padded to a capacity C (manifold, SDF pair, LMD), of V values each: results the values
// [..., C, rows_v] (rows 1: [..., C]), count [...] (int32); with the attribute jacobians = 1 also
// the twist Jacobian [..., C, rows_v, 12] of each value (written for found contacts only: the
// products of xla_ffi.c read no others) and the pose maps [..., 2, 3, 4].

enum { PADDED_MAX_VALUES = 4 };

/// The operands of a padded family's call.
typedef struct padded_call {
    const void *a, *b; // the models
    int threads;
    const oscx_buffer *pa, *pb;
    size_t n, cap; // pose pairs, slots per pair
    int values;    // V
    const int* rows;
    bool jacobians;
    oscx_buffer* out[2 * PADDED_MAX_VALUES + 2]; // values, count, Jacobians, maps
    int32_t* count;
    osc_sdf_shape shapes[2]; // the SDF pair's models a and b as shapes
} padded_call;

/// Reads a padded family's operands: pair_attrs and pose_args, the attributes capacity and
/// jacobians, and the results of `values` values of `rows` each.
static oscx_error* padded_operands(const oscx_call_frame* frame, const char* where, void* settings,
                                   size_t settings_size, int values, const int* rows, padded_call* c) {
    int64_t capacity, jacobians;
    oscx_error* e = pair_attrs(frame, where, &c->a, &c->b, settings, settings_size, &c->threads);
    if (!e) e = pose_args(frame, where, &c->pa, &c->pb, &c->n);
    if (e) return e;
    if (!oscx_attr_int(frame, "capacity", &capacity) || capacity < 0 || capacity > INT32_MAX ||
        !oscx_attr_int(frame, "jacobians", &jacobians))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attributes capacity and jacobians expected", where);
    c->cap = (size_t)capacity;
    c->values = values;
    c->rows = rows;
    c->jacobians = jacobians != 0;
    const int results = values + 1 + (c->jacobians ? values + 1 : 0);
    if (frame->rets.size != results)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: %d results expected", where, results);
    for (int k = 0; k < results; ++k) c->out[k] = oscx_ret(frame, k);
    c->count = c->out[values]->data;
    return NULL;
}

/// Returns the doubles of scratch an item's Jacobians need: float64 ones are written by the query
/// in place, float32 ones pass through scratch (cap * sum of rows * 12).
static size_t padded_spare(const padded_call* c) {
    if (!c->jacobians || c->out[0]->dtype == OSCX_F64) return 0;
    size_t rows = 0;
    for (int v = 0; v < c->values; ++v) rows += (size_t)c->rows[v];
    return c->cap * rows * 12;
}

/// Points j[v] at where the query writes the Jacobians of value v for pair k: its slots of the
/// float64 result, else its part of `spare` (the item's padded_spare doubles).
static void padded_jacobians(const padded_call* c, size_t k, double* spare, double* j[]) {
    size_t offset = 0;
    for (int v = 0; v < c->values; ++v) {
        const size_t block = c->cap * (size_t)c->rows[v] * 12;
        oscx_buffer* out = c->out[c->values + 1 + v];
        j[v] = out->dtype == OSCX_F64 ? (double*)out->data + k * block : spare + offset;
        offset += block;
    }
}

/// Finishes pair k after the family wrote the values of its `found` contacts: the count, the
/// empty slots of value v filled with empty[v], and with Jacobians the float32 ones copied from
/// `spare` and the pose maps.
static void padded_finish(const padded_call* c, size_t k, int32_t found, const double* empty, const double* spare) {
    const size_t f = (size_t)found, first = k * c->cap + f;
    c->count[k] = found;
    for (int v = 0; v < c->values; ++v)
        oscx_fill(c->out[v], first * (size_t)c->rows[v], (c->cap - f) * (size_t)c->rows[v], empty[v]);
    if (!c->jacobians) return;
    if (spare) {
        size_t offset = 0;
        for (int v = 0; v < c->values; ++v) {
            const size_t block = c->cap * (size_t)c->rows[v] * 12;
            oscx_store(c->out[c->values + 1 + v], k * block, spare + offset, f * (size_t)c->rows[v] * 12);
            offset += block;
        }
    }
    oscx_write_pose_maps(c->out[2 * c->values + 1], k, oscx_pose(c->pa, k), oscx_pose(c->pb, k));
}

/// What padded_run needs of a family: the sizes of its batch item, output and contact records, and
/// the functions that fill them, run its batch and read the contacts back.
typedef struct padded_family {
    size_t item_size, output_size, contact_size;
    /// Fills the batch item and the output of poses a and b: contacts [cap] and, when `jacobians`
    /// is not NULL, the Jacobians of value v at jacobians[v].
    void (*prepare)(const padded_call* c, osc_pose a, osc_pose b, void* item, void* output, void* contacts,
                    double* const* jacobians);
    /// Runs the family's batch call on `count` items.
    osc_status (*run)(const void* items, size_t count, const void* settings, void* outputs, int threads);
    /// Writes the values of the contacts found in `output` into the slots of pair k; returns their
    /// count.
    int32_t (*write)(const padded_call* c, size_t k, const void* output);
} padded_family;

/// Runs `family` over the pose pairs of `c` in blocks of scratch memory, with `settings` (the C
/// struct) and the values of empty slots `empty`.
static oscx_error* padded_run(const oscx_call_frame* frame, const char* where, const padded_family* family,
                              const padded_call* c, const void* settings, const double* empty) {
    const size_t spare = padded_spare(c);
    const size_t item_bytes =
        family->item_size + family->output_size + c->cap * family->contact_size + spare * sizeof(double);
    size_t block;
    char* scratch = oscx_scratch(c->n, item_bytes, &block);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < c->n; start += block) {
        const size_t m = c->n - start < block ? c->n - start : block;
        char* items = scratch;
        char* outputs = items + m * family->item_size;
        char* contacts = outputs + m * family->output_size;
        double* jac = (double*)(contacts + m * c->cap * family->contact_size);
        for (size_t i = 0; i < m; ++i) {
            double* j[PADDED_MAX_VALUES];
            if (c->jacobians) padded_jacobians(c, start + i, jac + i * spare, j);
            family->prepare(c, oscx_pose(c->pa, start + i), oscx_pose(c->pb, start + i), items + i * family->item_size,
                            outputs + i * family->output_size, contacts + i * c->cap * family->contact_size,
                            c->jacobians ? j : NULL);
        }
        const osc_status status = family->run(items, m, settings, outputs, c->threads);
        if (status != OSC_OK) {
            free(scratch);
            return oscx_fail_status(frame, where, status);
        }
        for (size_t i = 0; i < m; ++i) {
            const int32_t found = family->write(c, start + i, outputs + i * family->output_size);
            padded_finish(c, start + i, found, empty, spare ? jac + i * spare : NULL);
        }
    }
    free(scratch);
    return NULL;
}

// Manifold: point [..., C, 3], distance [..., C] (d_max in empty slots), normal [..., C, 3],
// weight [..., C].

enum { MANIFOLD_VALUES = 4 };

static void manifold_prepare(const padded_call* c, osc_pose a, osc_pose b, void* item, void* output, void* contacts,
                             double* const* jacobians) {
    *(osc_manifold_batch_item*)item = (osc_manifold_batch_item){c->a, a, c->b, b};
    osc_manifold_output* o = output;
    *o = (osc_manifold_output){.contacts = contacts, .capacity = (int32_t)c->cap};
    if (!jacobians) return;
    o->point_jacobians = jacobians[0];
    o->distance_jacobians = jacobians[1];
    o->normal_jacobians = jacobians[2];
    o->weight_jacobians = jacobians[3];
}

static osc_status manifold_run(const void* items, size_t count, const void* settings, void* outputs, int threads) {
    return osc_manifold_collide_batch(items, count, settings, outputs, NULL, threads);
}

static int32_t manifold_write(const padded_call* c, size_t k, const void* output) {
    const osc_manifold_output* o = output;
    for (size_t s = 0, slot = k * c->cap; s < (size_t)o->count; ++s, ++slot) {
        oscx_store(c->out[0], 3 * slot, &o->contacts[s].point.x, 3);
        oscx_set(c->out[1], slot, o->contacts[s].distance);
        oscx_store(c->out[2], 3 * slot, &o->contacts[s].normal.x, 3);
        oscx_set(c->out[3], slot, o->contacts[s].weight);
    }
    return o->count;
}

OSCX_HANDLER(osculate_manifold) {
    static const char where[] = "osculate.jax.manifold";
    static const int rows[MANIFOLD_VALUES] = {3, 1, 3, 1};
    static const padded_family family = {sizeof(osc_manifold_batch_item),
                                         sizeof(osc_manifold_output),
                                         sizeof(osc_manifold_contact),
                                         manifold_prepare,
                                         manifold_run,
                                         manifold_write};
    osc_manifold_settings settings;
    padded_call c;
    oscx_error* e = padded_operands(frame, where, &settings, sizeof settings, MANIFOLD_VALUES, rows, &c);
    if (e) return e;
    const double empty[MANIFOLD_VALUES] = {0.0, settings.d_max, 0.0, 0.0};
    return padded_run(frame, where, &family, &c, &settings, empty);
}

// SDF pair (smooth mode): point [..., C, 3], distance [..., C] (0 in empty slots); the models are
// library SDFs (osc_sdf), and padded_call.shapes holds them as shapes.

enum { SDF_PAIR_VALUES = 2 };

static void sdf_pair_prepare(const padded_call* c, osc_pose a, osc_pose b, void* item, void* output, void* contacts,
                             double* const* jacobians) {
    *(osc_sdf_pair_batch_item*)item = (osc_sdf_pair_batch_item){&c->shapes[0], a, &c->shapes[1], b};
    osc_sdf_pair_output* o = output;
    *o = (osc_sdf_pair_output){.contacts = contacts, .capacity = (int32_t)c->cap};
    if (!jacobians) return;
    o->point_jacobians = jacobians[0];
    o->distance_jacobians = jacobians[1];
}

static osc_status sdf_pair_run(const void* items, size_t count, const void* settings, void* outputs, int threads) {
    return osc_sdf_pair_collide_batch(items, count, settings, outputs, NULL, threads);
}

static int32_t sdf_pair_write(const padded_call* c, size_t k, const void* output) {
    const osc_sdf_pair_output* o = output;
    for (size_t s = 0, slot = k * c->cap; s < (size_t)o->count; ++s, ++slot) {
        oscx_store(c->out[0], 3 * slot, &o->contacts[s].point.x, 3);
        oscx_set(c->out[1], slot, o->contacts[s].distance);
    }
    return o->count;
}

OSCX_HANDLER(osculate_sdf_pair) {
    static const char where[] = "osculate.jax.sdf_pair";
    static const int rows[SDF_PAIR_VALUES] = {3, 1};
    static const double empty[SDF_PAIR_VALUES] = {0.0, 0.0};
    static const padded_family family = {sizeof(osc_sdf_pair_batch_item),
                                         sizeof(osc_sdf_pair_output),
                                         sizeof(osc_sdf_pair_contact),
                                         sdf_pair_prepare,
                                         sdf_pair_run,
                                         sdf_pair_write};
    osc_sdf_pair_settings settings;
    padded_call c;
    oscx_error* e = padded_operands(frame, where, &settings, sizeof settings, SDF_PAIR_VALUES, rows, &c);
    if (e) return e;
    c.shapes[0] = (osc_sdf_shape){.sdf = c.a};
    c.shapes[1] = (osc_sdf_shape){.sdf = c.b};
    return padded_run(frame, where, &family, &c, &settings, empty);
}

// LMD: distance [..., C] (the gap at d_max, d_max - eps_a - eps_b, in empty slots); the models are
// B-Reps (osc_brep).

static void lmd_prepare(const padded_call* c, osc_pose a, osc_pose b, void* item, void* output, void* contacts,
                        double* const* jacobians) {
    *(osc_lmd_batch_item*)item = (osc_lmd_batch_item){c->a, a, c->b, b, NULL};
    // capacity 0 passes no contacts (lmd.h: NULL only then)
    *(osc_lmd_output*)output = (osc_lmd_output){.contacts = c->cap ? contacts : NULL,
                                                .capacity = (int32_t)c->cap,
                                                .distance_jacobians = jacobians ? jacobians[0] : NULL};
}

static osc_status lmd_run(const void* items, size_t count, const void* settings, void* outputs, int threads) {
    return osc_lmd_query_batch(items, count, settings, outputs, NULL, threads);
}

static int32_t lmd_write(const padded_call* c, size_t k, const void* output) {
    const osc_lmd_output* o = output;
    for (size_t s = 0; s < (size_t)o->count; ++s) oscx_set(c->out[0], k * c->cap + s, o->contacts[s].distance);
    return o->count;
}

OSCX_HANDLER(osculate_lmd) {
    static const char where[] = "osculate.jax.lmd";
    static const int rows[1] = {1};
    static const padded_family family = {
        sizeof(osc_lmd_batch_item), sizeof(osc_lmd_output), sizeof(osc_lmd_contact), lmd_prepare, lmd_run, lmd_write};
    osc_lmd_settings settings;
    padded_call c;
    oscx_error* e = padded_operands(frame, where, &settings, sizeof settings, 1, rows, &c);
    if (e) return e;
    const double empty[1] = {settings.d_max - settings.eps_a - settings.eps_b};
    return padded_run(frame, where, &family, &c, &settings, empty);
}
