// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_force.c: contact wrenches as XLA custom-call handlers (docs/force.md, JAX). Each runs a
// contact-producing query over the leading dimensions of its arguments (poses [..., 7] and
// velocities [..., 6], broadcast to one shape by osculate.jax), turns the contacts into
// osc_force_contact records and calls osc_force_evaluate once per batch item: one custom call per
// evaluation, the query and the force both in C. Results: the wrenches [..., 2, 6] (A's, then B's:
// force, torque about the body's origin, world); with the attribute jacobians = 1 also the pose
// Jacobian [..., 12, 12] along left world twists, the velocity Jacobian [..., 12, 12] and the pose
// maps [..., 2, 3, 4] that turn raw pose tangents into twists (oscx_write_pose_maps).
// Attributes: the models a and b (addresses), settings (the query's settings struct), force (an
// osc_force_settings), threads, jacobians, and capacity for the manifold.

#include "xla_ffi.h"

#include <stdlib.h>
#include <string.h>

/// The operands every wrench handler reads.
typedef struct wrench_call {
    const void *a, *b;
    osc_force_settings force;
    int threads;
    int64_t jacobians;
    const oscx_buffer *pa, *pb, *va, *vb;
    oscx_buffer *wrench, *pose_jacobian, *velocity_jacobian, *maps;
    size_t n;
} wrench_call;

/// Reads the attributes and arguments of a wrench handler (the query's settings into `settings`
/// of `settings_size` bytes). Returns NULL or the error naming what is wrong.
static oscx_error* wrench_operands(const oscx_call_frame* frame, const char* where, void* settings,
                                   size_t settings_size, wrench_call* w) {
    int64_t t;
    if (!oscx_attr_pointer(frame, "a", &w->a) || !oscx_attr_pointer(frame, "b", &w->b))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attributes a and b must be model addresses", where);
    if (!oscx_attr_bytes(frame, "settings", settings, settings_size))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute settings must hold %zu bytes", where,
                         settings_size);
    if (!oscx_attr_bytes(frame, "force", &w->force, sizeof w->force))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute force must hold %zu bytes", where,
                         sizeof w->force);
    if (!oscx_attr_int(frame, "threads", &t) || t < 0 || t > INT32_MAX)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute threads must be >= 0", where);
    w->threads = (int)t;
    if (!oscx_attr_int(frame, "jacobians", &w->jacobians) || w->jacobians < 0 || w->jacobians > 1)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute jacobians must be 0 or 1", where);
    w->pa = oscx_float_arg(frame, 0, 7);
    w->pb = oscx_float_arg(frame, 1, 7);
    w->va = oscx_float_arg(frame, 2, 6);
    w->vb = oscx_float_arg(frame, 3, 6);
    if (frame->args.size != 4 || !w->pa || !w->pb || !w->va || !w->vb)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT,
                         "%s: arguments pose_a, pose_b [..., 7] and velocity_a, velocity_b [..., 6] expected", where);
    w->n = oscx_leading(w->pa, 1);
    if (oscx_leading(w->pb, 1) != w->n || oscx_leading(w->va, 1) != w->n || oscx_leading(w->vb, 1) != w->n)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: poses and velocities must share their batch shape",
                         where);
    const int results = w->jacobians ? 4 : 1;
    if (frame->rets.size != results)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: %d results expected", where, results);
    w->wrench = oscx_ret(frame, 0);
    w->pose_jacobian = w->jacobians ? oscx_ret(frame, 1) : NULL;
    w->velocity_jacobian = w->jacobians ? oscx_ret(frame, 2) : NULL;
    w->maps = w->jacobians ? oscx_ret(frame, 3) : NULL;
    if (oscx_size(w->wrench) != 12 * w->n ||
        (w->jacobians && (oscx_size(w->pose_jacobian) != 144 * w->n || oscx_size(w->velocity_jacobian) != 144 * w->n ||
                          oscx_size(w->maps) != 24 * w->n)))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: results of the wrong size", where);
    return NULL;
}

/// Returns velocity i of a [..., 6] float buffer (linear, angular).
static osc_body_velocity velocity_at(const oscx_buffer* v, size_t i) {
    double x[6];
    for (int k = 0; k < 6; ++k) x[k] = oscx_get(v, 6 * i + (size_t)k);
    return (osc_body_velocity){{x[0], x[1], x[2]}, {x[3], x[4], x[5]}};
}

/// Evaluates the force of `count` contacts for batch item k with poses pa, pb and writes the
/// wrenches and, when asked, the Jacobians and the pose maps. Returns NULL or the error.
static oscx_error* write_wrench(const oscx_call_frame* frame, const char* where, const wrench_call* w, size_t k,
                                const osc_force_contact* contacts, int32_t count, osc_pose pa, osc_pose pb) {
    double pose_jacobian[144], velocity_jacobian[144];
    osc_force_output out = {
        NULL, {0}, {0}, w->jacobians ? pose_jacobian : NULL, w->jacobians ? velocity_jacobian : NULL};
    const osc_status status =
        osc_force_evaluate(contacts, count, pa, velocity_at(w->va, k), pb, velocity_at(w->vb, k), &w->force, &out);
    if (status != OSC_OK) return oscx_fail_status(frame, where, status);
    oscx_store(w->wrench, 12 * k, out.wrench_a, 6);
    oscx_store(w->wrench, 12 * k + 6, out.wrench_b, 6);
    if (!w->jacobians) return NULL;
    oscx_store(w->pose_jacobian, 144 * k, pose_jacobian, 144);
    oscx_store(w->velocity_jacobian, 144 * k, velocity_jacobian, 144);
    oscx_write_pose_maps(w->maps, k, pa, pb);
    return NULL;
}

// ------------------------------------------------------------------------------------------------
// DCOL: one contact per pair (osc_force_contact_from_dcol), with the point, normal and distance
// Jacobians when asked.

OSCX_HANDLER(osculate_dcol_wrench) {
    static const char where[] = "osculate.jax.dcol_wrench";
    osc_dcol_settings settings;
    wrench_call w;
    oscx_error* e = wrench_operands(frame, where, &settings, sizeof settings, &w);
    if (e) return e;
    // per item: the batch item, the result, the Jacobian pointers and the 7 x 12 doubles of the
    // point, normal and distance Jacobians
    const size_t item_bytes = sizeof(osc_dcol_batch_item) + sizeof(osc_dcol_result) + sizeof(osc_dcol_jacobians) +
                              (w.jacobians ? 7 * 12 * sizeof(double) : 0);
    size_t block;
    char* scratch = oscx_scratch(w.n, item_bytes, &block);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < w.n && !e; start += block) {
        const size_t m = w.n - start < block ? w.n - start : block;
        osc_dcol_batch_item* items = (osc_dcol_batch_item*)scratch;
        osc_dcol_result* results = (osc_dcol_result*)(items + m);
        osc_dcol_jacobians* jacs = (osc_dcol_jacobians*)(results + m);
        double* jac = (double*)(jacs + m);
        for (size_t i = 0; i < m; ++i) {
            items[i] = (osc_dcol_batch_item){w.a, oscx_pose(w.pa, start + i), w.b, oscx_pose(w.pb, start + i), NULL};
            double* j = jac + 7 * 12 * i;
            jacs[i] = w.jacobians ? (osc_dcol_jacobians){.point = j, .normal = j + 36, .distance = j + 72}
                                  : (osc_dcol_jacobians){0};
        }
        const osc_status status =
            osc_dcol_proximity_batch(items, m, &settings, results, w.jacobians ? jacs : NULL, NULL, w.threads);
        if (status != OSC_OK) {
            e = oscx_fail_status(frame, where, status);
            break;
        }
        for (size_t i = 0; i < m && !e; ++i) {
            const osc_force_contact contact = osc_force_contact_from_dcol(&results[i], w.jacobians ? &jacs[i] : NULL);
            e = write_wrench(frame, where, &w, start + i, &contact, 1, items[i].pose_a, items[i].pose_b);
        }
    }
    free(scratch);
    return e;
}

// ------------------------------------------------------------------------------------------------
// Manifold: every contact of the manifold (osc_force_contact_from_manifold) with all four contact
// Jacobians when asked. The attribute capacity bounds the contacts per pair; a manifold that
// needs more fails with RESOURCE_EXHAUSTED.

OSCX_HANDLER(osculate_manifold_wrench) {
    static const char where[] = "osculate.jax.manifold_wrench";
    osc_manifold_settings settings;
    wrench_call w;
    int64_t capacity;
    oscx_error* e = wrench_operands(frame, where, &settings, sizeof settings, &w);
    if (e) return e;
    if (!oscx_attr_int(frame, "capacity", &capacity) || capacity < 0 || capacity > OSC_FORCE_MAX_CONTACTS)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute capacity must be in [0, %d]", where,
                         OSC_FORCE_MAX_CONTACTS);
    const size_t cap = (size_t)capacity;
    const size_t item_bytes = sizeof(osc_manifold_batch_item) + sizeof(osc_manifold_output) +
                              cap * sizeof(osc_manifold_contact) + cap * sizeof(osc_force_contact) +
                              (w.jacobians ? cap * 8 * 12 * sizeof(double) : 0);
    size_t block;
    char* scratch = oscx_scratch(w.n, item_bytes, &block);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < w.n && !e; start += block) {
        const size_t m = w.n - start < block ? w.n - start : block;
        osc_manifold_batch_item* items = (osc_manifold_batch_item*)scratch;
        osc_manifold_output* outputs = (osc_manifold_output*)(items + m);
        osc_manifold_contact* contacts = (osc_manifold_contact*)(outputs + m);
        osc_force_contact* records = (osc_force_contact*)(contacts + m * cap);
        double* jac = (double*)(records + m * cap);
        for (size_t i = 0; i < m; ++i) {
            items[i] = (osc_manifold_batch_item){w.a, oscx_pose(w.pa, start + i), w.b, oscx_pose(w.pb, start + i)};
            osc_manifold_output* o = &outputs[i];
            *o = (osc_manifold_output){.contacts = contacts + i * cap, .capacity = (int32_t)cap};
            if (!w.jacobians) continue;
            double* j = jac + i * cap * 8 * 12;
            o->point_jacobians = j;
            o->distance_jacobians = j + cap * 36;
            o->normal_jacobians = j + cap * 48;
            o->weight_jacobians = j + cap * 84;
        }
        const osc_status status = osc_manifold_collide_batch(items, m, &settings, outputs, NULL, w.threads);
        if (status != OSC_OK) {
            e = oscx_fail_status(frame, where, status);
            break;
        }
        for (size_t i = 0; i < m && !e; ++i) {
            osc_force_contact* r = records + i * cap;
            for (int32_t c = 0; c < outputs[i].count; ++c) r[c] = osc_force_contact_from_manifold(&outputs[i], c);
            e = write_wrench(frame, where, &w, start + i, r, outputs[i].count, items[i].pose_a, items[i].pose_b);
        }
    }
    free(scratch);
    return e;
}
