// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// xla_surfaces.c: the queries of osculate.jax at points and along rays as XLA custom-call
// handlers (docs/python.md, JAX): SDF values and gradients, and rays against implicit surfaces
// with their Jacobians. Each runs over the leading dimensions of its arguments, which osculate.jax
// broadcasts to one shape first. Models arrive as addresses (uint64 attributes) that osculate.jax
// keeps alive, settings as the bytes of the C settings struct.

#include "xla_ffi.h"

#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------------------------------------
// SDF values: argument points [..., 3]; results values [...] and, with the attribute gradients = 1,
// gradients [..., 3]. The attribute model is an osc_sdf, or an osc_grid when the attribute grid is
// 1; threads as osc_sdf_eval_batch's.

/// Evaluates `count` points of the SDF or grid `model` (the eval_batch functions' arguments).
static osc_status eval_model(const void* model, bool grid, const double* points, size_t count, double* values,
                             double* gradients, int threads) {
    return grid ? osc_grid_eval_batch(model, points, count, values, gradients, NULL, threads)
                : osc_sdf_eval_batch(model, points, count, values, gradients, NULL, threads);
}

OSCX_HANDLER(osculate_sdf) {
    static const char where[] = "osculate.jax.sdf";
    const void* model;
    int64_t grid, gradients, threads;
    if (!oscx_attr_pointer(frame, "model", &model) || !oscx_attr_int(frame, "grid", &grid) ||
        !oscx_attr_int(frame, "gradients", &gradients) || !oscx_attr_int(frame, "threads", &threads) || threads < 0 ||
        threads > INT32_MAX)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT,
                         "%s: attributes model, grid, gradients and threads (>= 0) expected", where);
    const oscx_buffer* points = oscx_float_arg(frame, 0, 3);
    const int results = gradients ? 2 : 1;
    if (!points || frame->rets.size != results)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: points [..., 3] and %d results expected", where,
                         results);
    const size_t n = oscx_leading(points, 1);
    oscx_buffer* values = oscx_ret(frame, 0);
    oscx_buffer* grads = gradients ? oscx_ret(frame, 1) : NULL;
    osc_status status;
    if (points->dtype == OSCX_F64) { // in place
        status = eval_model(model, grid != 0, points->data, n, values->data, grads ? grads->data : NULL, (int)threads);
        return status == OSC_OK ? NULL : oscx_fail_status(frame, where, status);
    }
    // float32: through blocks of doubles (point, value, gradient)
    size_t block;
    double* scratch = oscx_scratch(n, 7 * sizeof(double), &block);
    if (!scratch) return oscx_fail(frame, OSCX_ERROR_RESOURCE_EXHAUSTED, "%s: out of memory", where);
    for (size_t start = 0; start < n; start += block) {
        const size_t m = n - start < block ? n - start : block;
        double *p = scratch, *v = p + 3 * m, *g = v + m;
        for (size_t i = 0; i < 3 * m; ++i) p[i] = oscx_get(points, 3 * start + i);
        status = eval_model(model, grid != 0, p, m, v, grads ? g : NULL, (int)threads);
        if (status != OSC_OK) {
            free(scratch);
            return oscx_fail_status(frame, where, status);
        }
        oscx_store(values, start, v, m);
        if (grads) oscx_store(grads, 3 * start, g, 3 * m);
    }
    free(scratch);
    return NULL;
}

// ------------------------------------------------------------------------------------------------
// Rays: arguments origins, directions [..., 3] and, for a sag, its parameters (curvature, conic,
// a_0, ...) [..., P] (2 <= P <= 2 + OSC_SAG_MAX_COEFFICIENTS); results t [...], point, normal
// [..., 3], hit [...] (bool); with the attribute jacobians = 1 also, for each of t, point and
// normal, its Jacobian with respect to the origin [..., rows, 3], the direction [..., rows, 3]
// and (sag) the parameters [..., rows, P] (rows 1: without the axis), zero where the ray misses.
// Attributes: settings (osc_ray_settings), transform (osc_implicit_transform), and surface (an
// osc_implicit) or, for a sag, diameter (float64). One osc_ray_intersect per ray.

enum { RAY_VALUES = 3, RAY_MAX_PARAMETERS = 2 + OSC_SAG_MAX_COEFFICIENTS };

/// The operands of a ray call.
typedef struct ray_call {
    osc_ray_settings settings;
    osc_implicit_transform transform;
    const oscx_buffer *origins, *directions, *parameters; // parameters: sag only
    size_t n, p;                                          // rays, parameters per ray (0: none)
    bool jacobians;
    oscx_buffer* out[4 + 3 * RAY_VALUES];
} ray_call;

/// Reads the operands of a ray call with `inputs` arguments (2, or 3 for a sag).
static oscx_error* ray_operands(const oscx_call_frame* frame, const char* where, int inputs, ray_call* c) {
    int64_t jacobians;
    if (!oscx_attr_bytes(frame, "settings", &c->settings, sizeof c->settings) ||
        !oscx_attr_bytes(frame, "transform", &c->transform, sizeof c->transform) ||
        !oscx_attr_int(frame, "jacobians", &jacobians))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT,
                         "%s: attributes settings, transform and jacobians expected", where);
    c->origins = oscx_float_arg(frame, 0, 3);
    c->directions = oscx_float_arg(frame, 1, 3);
    c->parameters = inputs == 3 ? oscx_float_arg(frame, 2, -1) : NULL;
    if (frame->args.size != inputs || !c->origins || !c->directions || (inputs == 3 && !c->parameters) ||
        oscx_size(c->origins) != oscx_size(c->directions))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT,
                         "%s: origins and directions must be float arrays [..., 3] of one shape", where);
    c->n = oscx_leading(c->origins, 1);
    c->p = 0;
    if (c->parameters) {
        c->p = c->parameters->rank ? (size_t)c->parameters->dims[c->parameters->rank - 1] : 0;
        if (c->p < 2 || c->p > RAY_MAX_PARAMETERS || oscx_leading(c->parameters, 1) != c->n)
            return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT,
                             "%s: parameters must be [..., P] with the rays' leading shape, 2 <= P <= %d", where,
                             RAY_MAX_PARAMETERS);
    }
    c->jacobians = jacobians != 0;
    const int results = 4 + (c->jacobians ? RAY_VALUES * (c->p ? 3 : 2) : 0);
    if (frame->rets.size != results)
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: %d results expected", where, results);
    for (int k = 0; k < results; ++k) c->out[k] = oscx_ret(frame, k);
    return NULL;
}

/// Intersects ray k with `surface` and writes its results.
static osc_status intersect_ray(const ray_call* c, const osc_implicit* surface, size_t k) {
    double jac[3 * (3 + 3 + RAY_MAX_PARAMETERS) * 3]; // origin, direction, parameters blocks of t, point, normal
    osc_ray_jacobians j = {0};
    const size_t p = c->p, rows[RAY_VALUES] = {1, 3, 3};
    double* at[RAY_VALUES][3];
    if (c->jacobians) {
        double* next = jac;
        for (int v = 0; v < RAY_VALUES; ++v)
            for (int w = 0; w < 3; ++w) {
                at[v][w] = next;
                next += rows[v] * (w < 2 ? 3 : p);
            }
        memset(jac, 0, (size_t)(next - jac) * sizeof *jac); // the query writes them for a hit only
        j = (osc_ray_jacobians){.t_origin = at[0][0],
                                .t_direction = at[0][1],
                                .point_origin = at[1][0],
                                .point_direction = at[1][1],
                                .normal_origin = at[2][0],
                                .normal_direction = at[2][1],
                                .t_parameters = p ? at[0][2] : NULL,
                                .point_parameters = p ? at[1][2] : NULL,
                                .normal_parameters = p ? at[2][2] : NULL};
    }
    const osc_ray ray = {
        {oscx_get(c->origins, 3 * k), oscx_get(c->origins, 3 * k + 1), oscx_get(c->origins, 3 * k + 2)},
        {oscx_get(c->directions, 3 * k), oscx_get(c->directions, 3 * k + 1), oscx_get(c->directions, 3 * k + 2)}};
    osc_ray_hit hit;
    const osc_status status =
        osc_ray_intersect(surface, &c->transform, ray, &c->settings, &hit, c->jacobians ? &j : NULL);
    if (status != OSC_OK) return status;
    oscx_set(c->out[0], k, hit.t);
    oscx_store(c->out[1], 3 * k, &hit.point.x, 3);
    oscx_store(c->out[2], 3 * k, &hit.normal.x, 3);
    ((uint8_t*)c->out[3]->data)[k] = hit.hit != 0;
    if (!c->jacobians) return OSC_OK;
    for (int v = 0, ret = 4; v < RAY_VALUES; ++v)
        for (int w = 0; w < (p ? 3 : 2); ++w) {
            const size_t size = rows[v] * (w < 2 ? 3 : p);
            oscx_store(c->out[ret++], size * k, at[v][w], size);
        }
    return OSC_OK;
}

OSCX_HANDLER(osculate_ray_intersect) {
    static const char where[] = "osculate.jax.ray_intersect";
    ray_call c;
    const void* surface;
    oscx_error* e = ray_operands(frame, where, 2, &c);
    if (e) return e;
    if (!oscx_attr_pointer(frame, "surface", &surface))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute surface must be a model address", where);
    for (size_t k = 0; k < c.n; ++k) {
        const osc_status status = intersect_ray(&c, surface, k);
        if (status != OSC_OK) return oscx_fail_status(frame, where, status);
    }
    return NULL;
}

/// Reads row k of the sag parameters (curvature, conic, a_0, ...) into `sag`; returns whether it
/// differs from what `sag` held.
static bool read_sag(const ray_call* c, size_t k, osc_sag* sag) {
    osc_sag row = {.diameter = sag->diameter, .coefficient_count = (int)c->p - 2};
    row.curvature = oscx_get(c->parameters, c->p * k);
    row.conic = oscx_get(c->parameters, c->p * k + 1);
    for (size_t i = 2; i < c->p; ++i) row.coefficients[i - 2] = oscx_get(c->parameters, c->p * k + i);
    bool changed = row.curvature != sag->curvature || row.conic != sag->conic;
    for (int i = 0; i < row.coefficient_count; ++i) changed |= row.coefficients[i] != sag->coefficients[i];
    *sag = row;
    return changed;
}

OSCX_HANDLER(osculate_ray_intersect_sag) {
    static const char where[] = "osculate.jax.ray_intersect_sag";
    ray_call c;
    osc_sag sag = {0};
    oscx_error* e = ray_operands(frame, where, 3, &c);
    if (e) return e;
    if (!oscx_attr_double(frame, "diameter", &sag.diameter))
        return oscx_fail(frame, OSCX_ERROR_INVALID_ARGUMENT, "%s: attribute diameter (float64) expected", where);
    // one surface per run of equal parameter rows (broadcast parameters: one for the call)
    osc_implicit* surface = NULL;
    for (size_t k = 0; k < c.n; ++k) {
        osc_status status = OSC_OK;
        if (read_sag(&c, k, &sag) || !surface) {
            osc_implicit_destroy(surface);
            surface = NULL;
            status = osc_implicit_create_sag(&sag, &surface);
        }
        if (status == OSC_OK) status = intersect_ray(&c, surface, k);
        if (status != OSC_OK) {
            osc_implicit_destroy(surface);
            return oscx_fail_status(frame, where, status);
        }
    }
    osc_implicit_destroy(surface);
    return NULL;
}
