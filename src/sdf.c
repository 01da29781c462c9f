// sdf.c: building osc_sdf models (primitives are created in their own files), composing them
// (smooth CSG of Beker et al. 2026 eqs. 2-4, transforms, offsets), evaluating them, bounds and Lipschitz
// bounds. The compiled form is described in sdf_internal.h.

#include "sdf_internal.h"

// Beyond this distance from the origin (OSC_SDF_LENGTH_MAX^2, as far as every primitive's
// arithmetic is known to stay finite) a bounded model is evaluated by its far field.
#define SDF_FAR (OSC_SDF_LENGTH_MAX * OSC_SDF_LENGTH_MAX)

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// validation helpers (the ranges of sdf.h)

#define LENGTH_RANGE "[1e-30, 1e30] (OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX)"

osc_status sdf_check_length(const char* function, const char* name, double value) {
    if (!(value >= OSC_SDF_LENGTH_MIN && value <= OSC_SDF_LENGTH_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is %g; it must be in " LENGTH_RANGE, function, name, value);
    return OSC_OK;
}

osc_status sdf_check_size(const char* function, const char* name, double value) {
    if (!(value >= 0.0 && value <= OSC_SDF_LENGTH_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: %s is %g; it must be in [0, 1e30] "
                        "(OSC_SDF_LENGTH_MAX)",
                        function, name, value);
    return OSC_OK;
}

osc_status sdf_check_temperature(const char* function, const char* name, double value) {
    if (!(value == 0.0 || (value >= OSC_SDF_LENGTH_MIN && value <= OSC_SDF_LENGTH_MAX)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is %g; it must be 0 or in " LENGTH_RANGE, function, name,
                        value);
    return OSC_OK;
}

osc_status sdf_check_coordinate(const char* function, const char* name, double value) {
    if (!(fabs(value) <= OSC_SDF_LENGTH_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: %s is %g; it must be finite and at most 1e30 "
                        "(OSC_SDF_LENGTH_MAX) in magnitude",
                        function, name, value);
    return OSC_OK;
}

osc_status sdf_check_point(const char* function, const char* name, osc_vec3 value) {
    if (!sdf_point_in_range(value))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: %s is (%g, %g, %g); its coordinates must be "
                        "finite and at most 1e30 (OSC_SDF_LENGTH_MAX) in magnitude",
                        function, name, value.x, value.y, value.z);
    return OSC_OK;
}

osc_status sdf_check_exponent(const char* function, const char* name, double value) {
    if (!(value >= OSC_SQ_EXPONENT_MIN && value <= OSC_SQ_EXPONENT_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is %g; it must be in [%g, %g]", function, name, value,
                        OSC_SQ_EXPONENT_MIN, OSC_SQ_EXPONENT_MAX);
    return OSC_OK;
}

osc_status sdf_check_bounds(const char* function, const char* what, osc_vec3 lo, osc_vec3 hi) {
    if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z) return OSC_OK; // empty
    double reach = 0.0, ends[6] = {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z};
    for (int i = 0; i < 6; ++i)
        if (isnan(ends[i]) || (isfinite(ends[i]) && fabs(ends[i]) > reach)) reach = fabs(ends[i]);
    if (!(reach <= OSC_SDF_LENGTH_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: %s's bounds reach %g from the origin, beyond "
                        "1e30 (OSC_SDF_LENGTH_MAX)",
                        function, what, reach);
    return OSC_OK;
}

osc_status sdf_check_plane(const char* function, const char* name, osc_plane plane, double* length) {
    char normal[64], offset[64];
    snprintf(normal, sizeof normal, "%s%snormal", name, *name ? "." : "");
    snprintf(offset, sizeof offset, "%s%soffset", name, *name ? "." : "");
    *length = sdf_vector_length(plane.normal);
    if (!(*length > 0.0) || !isfinite(*length))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: %s is (%g, %g, %g); it must be non-zero and "
                        "finite",
                        function, normal, plane.normal.x, plane.normal.y, plane.normal.z);
    // the plane's distance from the origin is offset / |normal|
    osc_status status = sdf_check_coordinate(function, offset, plane.offset);
    if (status == OSC_OK && !(fabs(plane.offset / *length) <= OSC_SDF_LENGTH_MAX))
        status = osc_fail(OSC_ERR_INVALID_ARGUMENT,
                          "%s: %s %g over |%s| %g is %g; the plane must lie "
                          "within 1e30 (OSC_SDF_LENGTH_MAX) of the origin",
                          function, offset, plane.offset, normal, *length, plane.offset / *length);
    return status;
}

double sdf_vector_length(osc_vec3 v) {
    double largest = fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
    if (isnan(v.x + v.y + v.z)) return NAN;
    if (largest >= 1e-150 && largest <= 1e150) return osc_length(v); // squares exact enough: as ever
    if (!(largest > 0.0) || !isfinite(largest)) return largest;
    return largest * osc_length(osc_scale(v, 1.0 / largest));
}

// ---------------------------------------------------------------------------------------------
// allocation and copying

static osc_sdf* sdf_allocate(int32_t leaf_count, int32_t instr_count, int32_t plane_count, int32_t xpsq_count) {
    osc_sdf* sdf = osc_calloc(1, sizeof *sdf);
    if (!sdf) return NULL;
    sdf->leaf_count = leaf_count;
    sdf->instr_count = instr_count;
    sdf->plane_count = plane_count;
    sdf->xpsq_count = xpsq_count;
    sdf->leaves = osc_calloc((size_t)leaf_count, sizeof *sdf->leaves);
    sdf->program = osc_calloc((size_t)instr_count, sizeof *sdf->program);
    sdf->planes = plane_count ? osc_calloc((size_t)plane_count, sizeof *sdf->planes) : NULL;
    sdf->xpsqs = xpsq_count ? osc_calloc((size_t)xpsq_count, sizeof *sdf->xpsqs) : NULL;
    if (!sdf->leaves || !sdf->program || (plane_count && !sdf->planes) || (xpsq_count && !sdf->xpsqs)) {
        osc_sdf_destroy(sdf);
        return NULL;
    }
    sdf->lipschitz = 1.0;
    sdf->lipschitz_is_bound = 1;
    return sdf;
}

void osc_sdf_destroy(osc_sdf* sdf) {
    if (!sdf) return;
    if (sdf->leaves)
        for (int32_t i = 0; i < sdf->leaf_count; ++i)
            if (sdf->leaves[i].kind == SDF_LEAF_EXTERNAL && sdf->leaves[i].p.external.vtable)
                sdf->leaves[i].p.external.vtable->release(sdf->leaves[i].p.external.context);
    osc_free(sdf->leaves);
    osc_free(sdf->program);
    osc_free(sdf->planes);
    osc_free(sdf->xpsqs);
    sdf_cull_destroy(sdf->cull);
    osc_free(sdf);
}

typedef struct sdf_cursor {
    int32_t leaf, instr, plane, xpsq;
} sdf_cursor;

// Appends src's leaves, planes, xpsqs and program to dst at the cursor, re-indexing references.
static void sdf_append(osc_sdf* dst, const osc_sdf* src, sdf_cursor* at) {
    for (int32_t i = 0; i < src->plane_count; ++i) dst->planes[at->plane + i] = src->planes[i];
    for (int32_t i = 0; i < src->xpsq_count; ++i) {
        sdf_xpsq x = src->xpsqs[i];
        x.plane_first += at->plane;
        dst->xpsqs[at->xpsq + i] = x;
    }
    for (int32_t i = 0; i < src->leaf_count; ++i) {
        sdf_leaf leaf = src->leaves[i];
        if (leaf.kind == SDF_LEAF_PSQ) leaf.p.psq.plane_first += at->plane;
        if (leaf.kind == SDF_LEAF_XPSQ) leaf.p.xpsq.index += at->xpsq;
        if (leaf.kind == SDF_LEAF_EXTERNAL) leaf.p.external.vtable->retain(leaf.p.external.context);
        dst->leaves[at->leaf + i] = leaf;
    }
    for (int32_t i = 0; i < src->instr_count; ++i) {
        sdf_instr in = src->program[i];
        if (in.op == SDF_OP_LEAF) in.index += at->leaf;
        dst->program[at->instr + i] = in;
    }
    at->leaf += src->leaf_count;
    at->plane += src->plane_count;
    at->xpsq += src->xpsq_count;
    at->instr += src->instr_count;
}

// ---------------------------------------------------------------------------------------------
// evaluation

// The point's offset from the leaf's origin in the leaf's axes, R^T (x - t) = s x_leaf (x itself
// without a transform), shared by the leaf's evaluation and its bound in a culled union.
OSC_FORCE_INLINE osc_vec3 sdf_leaf_rotated(const sdf_leaf* leaf, osc_vec3 x) {
    return leaf->has_transform ? osc_mat3_apply_transpose(leaf->rotation, osc_sub(x, leaf->translation)) : x;
}

// sdf_leaf_eval_world (below) from the point's sdf_leaf_rotated image
static void sdf_leaf_eval_rotated(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 rotated, int order, jet* out) {
    osc_vec3 xl = rotated;
    if (leaf->has_transform) xl = osc_scale(rotated, 1.0 / leaf->scale);
    jet j;
    switch (leaf->kind) {
        case SDF_LEAF_SPHERE: sdf_sphere_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_BOX: sdf_box_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_CAPSULE: sdf_capsule_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_CONE: sdf_cone_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_TORUS: sdf_torus_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_HALFSPACE: sdf_halfspace_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_ELLIPSOID: sdf_ellipsoid_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_MENGER: sdf_menger_eval(leaf, xl, order, &j); break;
        case SDF_LEAF_PSQ: sdf_psq_eval(sdf, leaf, xl, order, &j); break;
        case SDF_LEAF_XPSQ: sdf_xpsq_eval(sdf, leaf, xl, order, &j); break;
        case SDF_LEAF_EXTERNAL: leaf->p.external.vtable->eval(leaf->p.external.context, xl, order, &j); break;
        default: j = jet_const(NAN, order); break;
    }
    if (!leaf->has_transform) {
        *out = j;
        return;
    }
    out->v = leaf->scale * j.v;
    if (order >= 1) {
        osc_vec3 g = osc_mat3_apply(leaf->rotation, osc_v3(j.g[0], j.g[1], j.g[2]));
        out->g[0] = g.x;
        out->g[1] = g.y;
        out->g[2] = g.z;
    }
    if (order >= 2) {
        osc_mat3 h =
            osc_mat3_mul(osc_mat3_mul(leaf->rotation, jet_hessian_mat3(j.h)), osc_mat3_transpose(leaf->rotation));
        jet_pack_mat3(osc_mat3_scale(h, 1.0 / leaf->scale), out->h);
    }
}

// Evaluates one leaf at a world point: transform into the leaf frame, evaluate, map back:
// phi = s phi_l(R^T (x - t) / s), grad = R grad_l, hess = R hess_l R^T / s.
static void sdf_leaf_eval_world(const osc_sdf* sdf, const sdf_leaf* leaf, osc_vec3 x, int order, jet* out) {
    sdf_leaf_eval_rotated(sdf, leaf, sdf_leaf_rotated(leaf, x), order, out);
}

// the larger and the smaller of two numbers by a compare (libm's fmax and fmin are calls); `b` NaN gives `a`
OSC_FORCE_INLINE double sdf_max2(double a, double b) { return b > a ? b : a; }
OSC_FORCE_INLINE double sdf_min2(double a, double b) { return b < a ? b : a; }
OSC_FORCE_INLINE double sdf_max3(double a, double b, double c) { return sdf_max2(sdf_max2(a, b), c); }

typedef struct sdf_slot {
    jet value;
    jet_lse lse;
} sdf_slot;

// runs the instructions [first, last) of the program, a complete sub-tree, into *result
OSC_FORCE_INLINE void sdf_run_range(const osc_sdf* sdf, int32_t first, int32_t last, osc_vec3 x, int order,
                                    jet* result) {
    sdf_slot stack[OSC_SDF_MAX_STACK];
    int top = -1;
    for (int32_t i = first; i < last; ++i) {
        const sdf_instr* in = &sdf->program[i];
        switch (in->op) {
            case SDF_OP_LEAF: sdf_leaf_eval_world(sdf, &sdf->leaves[in->index], x, order, &stack[++top].value); break;
            case SDF_OP_BEGIN: {
                jet y = jet_scale(stack[top].value, (double)in->sign, order);
                jet_lse_begin(&stack[top].lse, in->value);
                jet_lse_add(&stack[top].lse, y, order);
            } break;
            case SDF_OP_ACCUMULATE: {
                jet y = jet_scale(stack[top].value, (double)in->sign, order);
                --top;
                jet_lse_add(&stack[top].lse, y, order);
            } break;
            case SDF_OP_END:
                stack[top].value = jet_scale(jet_lse_end(&stack[top].lse, order), (double)in->sign, order);
                break;
            case SDF_OP_OFFSET: stack[top].value.v -= in->value; break;
            default: break;
        }
    }
    *result = stack[0].value;
}

// The radial box bounds' pieces at a leaf child's point xl = s x_leaf (its sdf_leaf_rotated image;
// `inverse_scale` 1 / s, `iax`, `iay`, `iaz` 1 / a): returns m = max |x_leaf,i / a_i| and writes
// r = |xl|, so that the box [-a, a]'s radius along the ray through x_leaf is r / m in the world.
OSC_FORCE_INLINE double sdf_box_ratio(osc_vec3 xl, double inverse_scale, double iax, double iay, double iaz,
                                      double* r) {
    *r = sqrt(xl.x * xl.x + xl.y * xl.y + xl.z * xl.z);
    return inverse_scale * sdf_max3(fabs(xl.x) * iax, fabs(xl.y) * iay, fabs(xl.z) * iaz);
}

// the margin of the radial box bounds around a bound b at distance r: far above the rounding of both
// sides and of the lanes' powers
OSC_FORCE_INLINE double sdf_box_margin(double r, double b) { return 1e-9 * (r + fabs(b)); }

// A lower bound on a PSQ leaf child's value at world point x, cheaper than the leaf (docs/sdf.md,
// "Culled unions"); -inf for other leaves. A plain SQ is the radial distance |x| - rho(x / |x|) to its
// surface, whose radius rho along any ray is at most the box [-a, a]'s, |x| / m with
// m = max |x_i / a_i|, so phi(x) >= |x| (1 - 1 / m), the radial distance to the box (in the world: the
// same with s x_leaf); a PSQ's log-sum-exp is at least its SQ's value. `xl` is the point's
// sdf_leaf_rotated image, s x_leaf. Rounded down by the margin.
OSC_FORCE_INLINE double sdf_leaf_lower(const sdf_leaf* leaf, osc_vec3 xl) {
    if (leaf->kind != SDF_LEAF_PSQ) return -INFINITY;
    const osc_vec3 ia = leaf->p.psq.inverse_scale;
    double r, m = sdf_box_ratio(xl, leaf->has_transform ? 1.0 / leaf->scale : 1.0, ia.x, ia.y, ia.z, &r);
    double lower = r - r / m;
    return m > 0.0 ? lower - sdf_box_margin(r, lower) : -INFINITY; // m = 0: none
}

// Both bounds of a plain SQ child's value at world point x (docs/sdf.md, "Culled unions"): with
// G(t) = f(t)^c in [inner, 1] over the unit cube's surface, phi(x) = r (1 - G(t) / m) lies in
// [r (1 - 1 / m), r (1 - inner / m)], r = |xl| and m = max |x_leaf,i / a_i|, each widened by the
// margin; none at the centre (m = 0).
OSC_FORCE_INLINE void sdf_sq_bounds(const sdf_sq_lane* sq, osc_vec3 xl, double* lower, double* upper) {
    const double* ia = sq->shape.inverse_a;
    double r, m = sdf_box_ratio(xl, sq->inverse_scale, ia[0], ia[1], ia[2], &r), ray = r / m;
    double low = r - ray, high = r - ray * sq->inner;
    bool centre = !(m > 0.0);
    *lower = centre ? -INFINITY : low - sdf_box_margin(r, low);
    *upper = centre ? INFINITY : high + sdf_box_margin(r, high);
}

// The SQs queued for lanes (sdf_run_culled): their constants and the point in their axes.
typedef struct sdf_lane_queue {
    const sdf_sq_lane* sq[SDF_LANES];
    double rotated[3][SDF_LANES];
    int count;
} sdf_lane_queue;

// Evaluates the queued SQs in lanes and streams their jets into the union's log-sum-exp in queue order.
OSC_FORCE_INLINE void sdf_lanes_flush(sdf_lane_queue* queue, int order, double sign, double* smallest,
                                      jet_lse* lse) {
    if (queue->count == 0) return;
    double value[SDF_LANES], gradient[3][SDF_LANES], hessian[6][SDF_LANES];
    sdf_sq_lanes_eval(queue->sq, queue->count, queue->rotated, order, value, gradient, hessian);
    for (int l = 0; l < queue->count; ++l) {
        jet j = jet_const(value[l], order);
        if (order >= 1)
            for (int i = 0; i < 3; ++i) j.g[i] = gradient[i][l];
        if (order >= 2)
            for (int e = 0; e < 6; ++e) j.h[e] = hessian[e][l];
        *smallest = sdf_min2(*smallest, j.v);
        jet_lse_add(lse, jet_scale(j, sign, order), order);
    }
    queue->count = 0;
}

// A culled root union (docs/sdf.md, "Culled unions"): the children listed for x's voxel, by increasing
// lower bound, streamed into the union's log-sum-exp until a bound lies SDF_CULL_TEMPERATURES
// temperatures above the point's smallest value, then the OFFSETs after the union's END. The
// smallest value is bounded by the smallest value found and by the upper bounds of the plain SQs
// met so far. Plain SQ children are queued and evaluated SDF_LANES at a time ("Superquadrics in
// lanes"); the bounds see their values once their batch has run.
OSC_FORCE_INLINE void sdf_run_culled(const osc_sdf* sdf, const sdf_cull_entry* entries, int32_t count, osc_vec3 x,
                                     int order, jet* result) {
    const sdf_cull* c = sdf->cull;
    const sdf_instr* end = &sdf->program[c->end];
    double reach = SDF_CULL_TEMPERATURES * end->value, smallest = INFINITY, upper = INFINITY;
    jet_lse lse;
    jet_lse_begin(&lse, end->value);
    lse.acc = jet_const(NAN, order); // never read: some entry is always evaluated
    sdf_lane_queue queue;
    queue.count = 0;
    double lane_sign = 0.0; // the union's child sign (the same for every child of a union)
    const bool lanes = sdf_lanes_level() >= 0;
    for (int32_t e = 0; e < count; ++e) {
        double limit = sdf_min2(smallest, upper) + reach;
        if (c->scale * (double)entries[e].lower > limit) break; // and every later bound
        int32_t k = entries[e].child, first = c->child_first[k], op = c->child_op[k];
        jet value;
        if (op - first == 1 && sdf->program[first].op == SDF_OP_LEAF) { // a leaf child, without a stack
            const sdf_leaf* leaf = &sdf->leaves[sdf->program[first].index];
            // its own bound at x already lies beyond the limit: skipped like the children after the
            // break (its weight is below e^-SDF_CULL_TEMPERATURES)
            osc_vec3 rotated = sdf_leaf_rotated(leaf, x);
            const sdf_sq_lane* sq = &c->sq_lanes[k];
            if (sq->is_sq) {
                double lower, high;
                sdf_sq_bounds(sq, rotated, &lower, &high);
                upper = sdf_min2(upper, high);
                if (lower > limit) continue;
                if (lanes) {
                    queue.sq[queue.count] = sq;
                    queue.rotated[0][queue.count] = rotated.x;
                    queue.rotated[1][queue.count] = rotated.y;
                    queue.rotated[2][queue.count] = rotated.z;
                    lane_sign = (double)sdf->program[op].sign;
                    if (++queue.count == SDF_LANES) sdf_lanes_flush(&queue, order, lane_sign, &smallest, &lse);
                    continue;
                }
            } else if (sdf_leaf_lower(leaf, rotated) > limit)
                continue;
            sdf_leaf_eval_rotated(sdf, leaf, rotated, order, &value);
        } else
            sdf_run_range(sdf, first, op, x, order, &value);
        smallest = sdf_min2(smallest, value.v);
        jet_lse_add(&lse, jet_scale(value, (double)sdf->program[op].sign, order), order);
    }
    sdf_lanes_flush(&queue, order, lane_sign, &smallest, &lse);
    jet r = jet_scale(jet_lse_end(&lse, order), (double)end->sign, order);
    for (int32_t i = c->end + 1; i < sdf->instr_count; ++i)
        if (sdf->program[i].op == SDF_OP_OFFSET) r.v -= sdf->program[i].value;
    *result = r;
}

OSC_FORCE_INLINE void sdf_run(const osc_sdf* sdf, osc_vec3 x, int order, jet* result) {
    if (sdf->cull) {
        const sdf_cull_entry* entries;
        int32_t count = sdf_cull_lookup(sdf->cull, x, &entries);
        if (count >= 0) {
            sdf_run_culled(sdf, entries, count, x, order, result);
            return;
        }
    }
    sdf_run_range(sdf, 0, sdf->instr_count, x, order, result);
}

double sdf_eval_range(const osc_sdf* sdf, int32_t first, int32_t last, osc_vec3 x) {
    jet j;
    sdf_run_range(sdf, first, last, x, 0, &j);
    return j.v;
}

static void sdf_run_order0(const osc_sdf* sdf, osc_vec3 x, jet* out) { sdf_run(sdf, x, 0, out); }
static void sdf_run_order1(const osc_sdf* sdf, osc_vec3 x, jet* out) { sdf_run(sdf, x, 1, out); }
static void sdf_run_order2(const osc_sdf* sdf, osc_vec3 x, jet* out) { sdf_run(sdf, x, 2, out); }

void sdf_eval_jet(const osc_sdf* sdf, osc_vec3 x, int order, jet* out) {
    if (order <= 0)
        sdf_run_order0(sdf, x, out);
    else if (order == 1)
        sdf_run_order1(sdf, x, out);
    else
        sdf_run_order2(sdf, x, out);
}

// writes a jet to the public outputs; NaN everywhere for a NaN point
static double sdf_write_outputs(const jet* j, int order, osc_vec3* gradient, osc_mat3* hessian) {
    if (gradient && order >= 1) *gradient = osc_v3(j->g[0], j->g[1], j->g[2]);
    if (hessian && order >= 2) *hessian = jet_hessian_mat3(j->h);
    return j->v;
}

// The far field of a bounded model, at a finite point beyond SDF_FAR of the origin (where the
// primitives' squares overflow): the distance to the model's bounding box, to which the distance
// to the model is equal within the box's diagonal (below 1e-29 of the distance there), with the
// gradient and Hessian of the distance to a point. Computed with the components scaled by the
// largest, so nothing overflows.
static double far_field(const osc_sdf* sdf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    double d[3], p[3] = {point.x, point.y, point.z}, lo[3] = {sdf->lo.x, sdf->lo.y, sdf->lo.z},
                 hi[3] = {sdf->hi.x, sdf->hi.y, sdf->hi.z}, largest = 0.0;
    for (int i = 0; i < 3; ++i) {
        d[i] = p[i] < lo[i] ? p[i] - lo[i] : (p[i] > hi[i] ? p[i] - hi[i] : 0.0);
        if (!isfinite(d[i])) d[i] = p[i]; // a coordinate near DBL_MAX minus the box: the coordinate
        largest = fmax(largest, fabs(d[i]));
    }
    double sum = 0.0;
    for (int i = 0; i < 3; ++i) sum += (d[i] / largest) * (d[i] / largest);
    double root = sqrt(sum), distance = largest * root; // may round to DBL_MAX's neighbour, not inf
    osc_vec3 g = osc_v3(d[0] / largest / root, d[1] / largest / root, d[2] / largest / root);
    if (gradient) *gradient = g;
    if (hessian) {
        double g3[3] = {g.x, g.y, g.z};
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) hessian->m[i][k] = ((i == k) - g3[i] * g3[k]) / distance;
    }
    return distance;
}

static double sdf_eval_point(const osc_sdf* sdf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    int order = hessian ? 2 : (gradient ? 1 : 0);
    if (!sdf || isnan(point.x) || isnan(point.y) || isnan(point.z)) {
        if (gradient) *gradient = osc_v3(NAN, NAN, NAN);
        if (hessian)
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) hessian->m[i][k] = NAN;
        return NAN;
    }
    if (fmax(fabs(point.x), fmax(fabs(point.y), fabs(point.z))) > SDF_FAR && isfinite(point.x) && isfinite(point.y) &&
        isfinite(point.z) && osc_is_finite3(sdf->lo.x, sdf->lo.y, sdf->lo.z) &&
        osc_is_finite3(sdf->hi.x, sdf->hi.y, sdf->hi.z))
        return far_field(sdf, point, gradient, hessian);
    jet j;
    sdf_eval_jet(sdf, point, order, &j);
    return sdf_write_outputs(&j, order, gradient, hessian);
}

double osc_sdf_eval(const osc_sdf* sdf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    return sdf_eval_point(sdf, point, gradient, hessian);
}

// a batch of evaluations, run in blocks of EVAL_BLOCK points by osc_batch_run
typedef struct eval_batch {
    const osc_sdf* sdf;
    const double* points;
    size_t count;
    double* values;
    double* gradients;
    double* hessians;
} eval_batch;

enum {
    EVAL_BLOCK = 64,           // points per item (a call through a pointer costs nothing beside 64)
    EVAL_BLOCKS_PER_THREAD = 4 // a team only for batches of more than 256 points per thread
};

static osc_status eval_block(void* context, size_t block) {
    const eval_batch batch = *(const eval_batch*)context; // a copy: the outputs cannot alias it
    size_t first = block * EVAL_BLOCK;
    size_t end = batch.count - first < EVAL_BLOCK ? batch.count : first + EVAL_BLOCK;
    for (size_t i = first; i < end; ++i) {
        osc_vec3 g;
        osc_mat3 h;
        const double* p = batch.points + 3 * i;
        batch.values[i] = sdf_eval_point(batch.sdf, osc_v3(p[0], p[1], p[2]), batch.gradients ? &g : NULL,
                                         batch.hessians ? &h : NULL);
        if (batch.gradients) {
            batch.gradients[3 * i] = g.x;
            batch.gradients[3 * i + 1] = g.y;
            batch.gradients[3 * i + 2] = g.z;
        }
        if (batch.hessians)
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) batch.hessians[9 * i + 3 * r + c] = h.m[r][c];
    }
    return OSC_OK;
}

osc_status osc_sdf_eval_batch(const osc_sdf* sdf, const double* points, size_t count, double* values, double* gradients,
                              double* hessians, int threads) {
    if (!sdf) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_sdf_eval_batch: sdf is NULL");
    osc_status status = osc_check_batch("osc_sdf_eval_batch", points, values, "values", count, threads);
    if (status || count == 0) return status;
    eval_batch batch = {sdf, points, count, values, gradients, hessians};
    size_t blocks = count / EVAL_BLOCK + (count % EVAL_BLOCK != 0);
    return osc_batch_run("osc_sdf_eval_batch", "block", blocks, threads, EVAL_BLOCKS_PER_THREAD, eval_block, &batch,
                         NULL);
}

int osc_sdf_leaf_count(const osc_sdf* sdf) { return sdf ? sdf->leaf_count : 0; }

double osc_sdf_eval_leaf(const osc_sdf* sdf, int leaf, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    if (!sdf || leaf < 0 || leaf >= sdf->leaf_count || isnan(point.x) || isnan(point.y) || isnan(point.z)) {
        if (sdf && (leaf < 0 || leaf >= sdf->leaf_count))
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_sdf_eval_leaf: leaf %d out of range [0, %d)", leaf,
                     (int)sdf->leaf_count);
        return sdf_eval_point(NULL, point, gradient, hessian);
    }
    int order = hessian ? 2 : (gradient ? 1 : 0);
    jet j;
    sdf_leaf_eval_world(sdf, &sdf->leaves[leaf], point, order, &j);
    return sdf_write_outputs(&j, order, gradient, hessian);
}

void osc_sdf_bounds(const osc_sdf* sdf, osc_vec3* lo, osc_vec3* hi) {
    if (!sdf) {
        if (lo) *lo = osc_v3(INFINITY, INFINITY, INFINITY);
        if (hi) *hi = osc_v3(-INFINITY, -INFINITY, -INFINITY);
        return;
    }
    if (lo) *lo = sdf->lo;
    if (hi) *hi = sdf->hi;
}

double osc_sdf_lipschitz(const osc_sdf* sdf) { return sdf ? sdf->lipschitz : NAN; }

int osc_sdf_lipschitz_is_bound(const osc_sdf* sdf) { return sdf ? sdf->lipschitz_is_bound : 0; }

// ---------------------------------------------------------------------------------------------
// Lipschitz estimate for distance-like leaves (ellipsoid, SQ family): the largest |grad phi| where
// phi > 0 over (1) Halton points of the bounding box grown by half its size, (2) the same points
// pulled onto the surface by Newton steps and pushed just outside, because the gradient of a radial
// distance is largest at the surface, (3) points 1e3 box sizes away along the same directions,
// because far away these functions are homogeneous of degree 1 and their gradient depends on the
// direction only, and (4) a short gradient ascent on |grad phi|^2 (direction hess grad, at most 5%
// of the box size) from the steepest 64 samples, which polishes narrow steep bands. An XPSQ with an
// anisotropic section has no finite bound near one line (docs/xpsq.md); the short ascent keeps the
// estimate from running into it. A 2% margin covers what falls between samples.

static double halton(uint32_t index, uint32_t base) {
    double f = 1.0, r = 0.0;
    while (index > 0) {
        f /= base;
        r += f * (index % base);
        index /= base;
    }
    return r;
}

enum { LIPSCHITZ_SAMPLES = 4096, LIPSCHITZ_ASCENTS = 64 };

typedef struct steep_point {
    osc_vec3 x;
    double norm;
} steep_point;

// keeps the `count` steepest points seen, sorted by decreasing |grad|
static void remember_steep(steep_point* top, int count, osc_vec3 x, double norm) {
    if (!(norm > top[count - 1].norm)) return;
    int k = count - 1;
    for (; k > 0 && top[k - 1].norm < norm; --k) top[k] = top[k - 1];
    top[k] = (steep_point){x, norm};
}

// climbs |grad phi|^2, whose gradient is 2 hess grad, with steps of a fraction of the box size
static double ascend_gradient_norm(const osc_sdf* sdf, osc_vec3 x, double extent) {
    osc_vec3 g;
    osc_mat3 h;
    osc_sdf_eval(sdf, x, &g, &h);
    double best = osc_length(g);
    double step = 1e-3 * extent, travel = 0.0;
    for (int k = 0; k < 60 && step > 1e-9 * extent && travel < 0.05 * extent; ++k) {
        osc_vec3 up = osc_mat3_apply(h, g);
        double n = osc_length(up);
        if (!(n > 0.0) || !isfinite(n)) break;
        osc_vec3 y = osc_add_scaled(x, up, step / n);
        osc_vec3 gy;
        osc_mat3 hy;
        double py = osc_sdf_eval(sdf, y, &gy, &hy);
        if (py > 0.0 && osc_length(gy) > best) {
            x = y;
            g = gy;
            h = hy;
            best = osc_length(gy);
            travel += step;
            step *= 1.5;
        } else {
            step *= 0.3;
        }
    }
    return best;
}

static double sdf_estimate_lipschitz(const osc_sdf* sdf) {
    osc_vec3 lo = sdf->lo, hi = sdf->hi;
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi)) return 1.0;
    osc_vec3 size = osc_sub(hi, lo);
    double extent = fmax(size.x, fmax(size.y, size.z));
    lo = osc_sub(lo, osc_scale(size, 0.5));
    size = osc_scale(size, 2.0);
    osc_vec3 centre = osc_add(lo, osc_scale(size, 0.5));
    double best = 1.0;
    steep_point top[LIPSCHITZ_ASCENTS];
    for (int k = 0; k < LIPSCHITZ_ASCENTS; ++k) top[k] = (steep_point){centre, 0.0};
    for (uint32_t i = 1; i <= LIPSCHITZ_SAMPLES; ++i) {
        osc_vec3 x = osc_v3(lo.x + size.x * halton(i, 2), lo.y + size.y * halton(i, 3), lo.z + size.z * halton(i, 5));
        osc_vec3 g;
        osc_vec3 far = osc_add_scaled(centre, osc_normalize(osc_sub(x, centre)), 1e3 * extent);
        double phi = osc_sdf_eval(sdf, far, &g, NULL);
        if (phi > 0.0 && osc_length(g) > best) best = osc_length(g);
        phi = osc_sdf_eval(sdf, x, &g, NULL);
        double norm = osc_length(g);
        if (phi > 0.0) {
            best = fmax(best, norm);
            remember_steep(top, LIPSCHITZ_ASCENTS, x, norm);
        }
        for (int k = 0; k < 8 && norm > 0.0 && isfinite(phi); ++k) {
            x = osc_add_scaled(x, g, -phi / (norm * norm));
            phi = osc_sdf_eval(sdf, x, &g, NULL);
            norm = osc_length(g);
        }
        if (!(norm > 0.0) || !isfinite(phi)) continue;
        for (double push = 1e-6; push < 2e-2; push *= 10.0) {
            osc_vec3 y = osc_add_scaled(x, g, push * extent / norm);
            osc_vec3 gy;
            if (osc_sdf_eval(sdf, y, &gy, NULL) > 0.0) {
                best = fmax(best, osc_length(gy));
                remember_steep(top, LIPSCHITZ_ASCENTS, y, osc_length(gy));
            }
        }
    }
    for (int k = 0; k < LIPSCHITZ_ASCENTS && top[k].norm > 0.0; ++k)
        best = fmax(best, ascend_gradient_norm(sdf, top[k].x, extent));
    return 1.02 * best;
}

// ---------------------------------------------------------------------------------------------
// creation of single-leaf models (called by the primitive constructors)

osc_status sdf_create_leaf(const char* function, const sdf_leaf* leaf, const osc_plane_profile* planes,
                           int32_t plane_count, const sdf_xpsq* xpsq, osc_vec3 lo, osc_vec3 hi,
                           sdf_lipschitz_kind lipschitz, osc_sdf** out) {
    osc_status status = sdf_check_bounds(function, "the model", lo, hi);
    if (status) return status;
    osc_sdf* sdf = sdf_allocate(1, 1, plane_count, xpsq ? 1 : 0);
    if (!sdf) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    sdf->leaves[0] = *leaf;
    sdf->leaves[0].has_transform = 0;
    sdf->leaves[0].rotation = osc_mat3_identity();
    sdf->leaves[0].translation = osc_v3(0.0, 0.0, 0.0);
    sdf->leaves[0].scale = 1.0;
    if (plane_count) memcpy(sdf->planes, planes, (size_t)plane_count * sizeof *planes);
    if (xpsq) sdf->xpsqs[0] = *xpsq;
    sdf->program[0] = (sdf_instr){SDF_OP_LEAF, 1, 0, 0.0};
    sdf->stack_need = 1;
    sdf->lo = lo;
    sdf->hi = hi;
    sdf->lipschitz = lipschitz == SDF_LIPSCHITZ_EXACT ? 1.0 : sdf_estimate_lipschitz(sdf);
    sdf->lipschitz_is_bound = lipschitz != SDF_LIPSCHITZ_ESTIMATE;
    *out = sdf;
    return OSC_OK;
}

osc_status sdf_create_external(const char* function, const sdf_external_vtable* vtable, const void* context,
                               osc_vec3 lo, osc_vec3 hi, double lipschitz, int is_bound, osc_sdf** out) {
    sdf_leaf leaf = {.kind = SDF_LEAF_EXTERNAL};
    leaf.p.external.vtable = vtable;
    leaf.p.external.context = context;
    // EXACT skips the sampling; the caller's own bound replaces it below
    osc_status status = sdf_create_leaf(function, &leaf, NULL, 0, NULL, lo, hi, SDF_LIPSCHITZ_EXACT, out);
    if (status) return status;
    vtable->retain(context);
    (*out)->lipschitz = lipschitz;
    (*out)->lipschitz_is_bound = is_bound;
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// smooth CSG (Beker et al. 2026 eqs. 2-4): outer * LSE_tau(sign_i * phi_i)

static void bounds_union(osc_vec3* lo, osc_vec3* hi, osc_vec3 lo2, osc_vec3 hi2) {
    *lo = osc_v3(fmin(lo->x, lo2.x), fmin(lo->y, lo2.y), fmin(lo->z, lo2.z));
    *hi = osc_v3(fmax(hi->x, hi2.x), fmax(hi->y, hi2.y), fmax(hi->z, hi2.z));
}

static void bounds_intersect(osc_vec3* lo, osc_vec3* hi, osc_vec3 lo2, osc_vec3 hi2) {
    *lo = osc_v3(fmax(lo->x, lo2.x), fmax(lo->y, lo2.y), fmax(lo->z, lo2.z));
    *hi = osc_v3(fmin(hi->x, hi2.x), fmin(hi->y, hi2.y), fmin(hi->z, hi2.z));
}

static void bounds_grow(osc_vec3* lo, osc_vec3* hi, double margin) {
    *lo = osc_sub(*lo, osc_v3(margin, margin, margin));
    *hi = osc_add(*hi, osc_v3(margin, margin, margin));
}

typedef enum sdf_csg { SDF_CSG_UNION, SDF_CSG_INTERSECTION, SDF_CSG_SUBTRACTION } sdf_csg;

static osc_status sdf_create_csg(const char* function, sdf_csg kind, const osc_sdf* const* children, int count,
                                 double temperature, osc_sdf** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!children) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: children is NULL (count %d)", function, count);
    if (count < 1) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count is %d; it must be >= 1", function, count);
    osc_status status = sdf_check_temperature(function, "temperature", temperature);
    if (status) return status;
    int64_t leaves = 0, instrs = 0, planes = 0, xpsqs = 0;
    for (int i = 0; i < count; ++i) {
        if (!children[i]) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: child %d is NULL", function, i);
        leaves += children[i]->leaf_count;
        instrs += children[i]->instr_count;
        planes += children[i]->plane_count;
        xpsqs += children[i]->xpsq_count;
    }
    instrs += (int64_t)count + 1;
    if (leaves > INT32_MAX || instrs > INT32_MAX || planes > INT32_MAX || xpsqs > INT32_MAX)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the tree would exceed 2^31 nodes", function);

    // emit children in decreasing stack need (stable), so the stack stays logarithmic
    int* order = osc_calloc((size_t)count, sizeof *order);
    if (!order) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    for (int i = 0; i < count; ++i) order[i] = i;
    for (int i = 1; i < count; ++i) {
        int k = order[i], j = i - 1;
        while (j >= 0 && children[order[j]]->stack_need < children[k]->stack_need) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = k;
    }
    int32_t need = children[order[0]]->stack_need;
    if (count > 1 && children[order[1]]->stack_need + 1 > need) need = children[order[1]]->stack_need + 1;
    if (need > OSC_SDF_MAX_STACK) {
        osc_free(order);
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the tree needs %d stack slots (limit %d)", function, (int)need,
                        OSC_SDF_MAX_STACK);
    }

    osc_sdf* sdf = sdf_allocate((int32_t)leaves, (int32_t)instrs, (int32_t)planes, (int32_t)xpsqs);
    if (!sdf) {
        osc_free(order);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    int32_t outer = kind == SDF_CSG_UNION ? -1 : 1;
    sdf_cursor at = {0, 0, 0, 0};
    // the children's code ranges and Lipschitz bounds in program order, for a union's voxel lists
    int32_t* child_first = osc_calloc((size_t)count, sizeof *child_first);
    int32_t* child_op = osc_calloc((size_t)count, sizeof *child_op);
    double* child_lipschitz = osc_calloc((size_t)count, sizeof *child_lipschitz);
    if (!child_first || !child_op || !child_lipschitz) {
        osc_free(order), osc_free(child_first), osc_free(child_op), osc_free(child_lipschitz);
        osc_sdf_destroy(sdf);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    double lipschitz = 0.0;
    int32_t is_bound = 1;
    for (int k = 0; k < count; ++k) {
        int i = order[k];
        int32_t sign = kind == SDF_CSG_UNION ? -1 : (kind == SDF_CSG_SUBTRACTION && i == 1 ? -1 : 1);
        child_first[k] = at.instr;
        sdf_append(sdf, children[i], &at);
        child_op[k] = at.instr;
        child_lipschitz[k] = children[i]->lipschitz_is_bound ? children[i]->lipschitz : 0.0;
        sdf->program[at.instr++] = (sdf_instr){k == 0 ? SDF_OP_BEGIN : SDF_OP_ACCUMULATE, sign, 0, temperature};
        if (children[i]->lipschitz > lipschitz) lipschitz = children[i]->lipschitz;
        is_bound &= children[i]->lipschitz_is_bound;
    }
    sdf->program[at.instr++] = (sdf_instr){SDF_OP_END, outer, 0, temperature};
    osc_free(order);

    sdf->stack_need = need;
    sdf->lipschitz = lipschitz;
    sdf->lipschitz_is_bound = is_bound;
    sdf->lo = children[0]->lo;
    sdf->hi = children[0]->hi;
    if (kind == SDF_CSG_UNION) {
        // -LSE(-phi) >= min(phi) - tau log n: the union is inside {min phi <= tau log n}
        for (int i = 1; i < count; ++i) bounds_union(&sdf->lo, &sdf->hi, children[i]->lo, children[i]->hi);
        bounds_grow(&sdf->lo, &sdf->hi, temperature * log((double)count));
    } else if (kind == SDF_CSG_INTERSECTION) {
        // LSE >= max: the intersection is inside every child
        for (int i = 1; i < count; ++i) bounds_intersect(&sdf->lo, &sdf->hi, children[i]->lo, children[i]->hi);
    } // subtraction: LSE(a, -b) >= a, inside a
    if (!(status = sdf_check_bounds(function, "the combined model", sdf->lo, sdf->hi)) && kind == SDF_CSG_UNION)
        status = sdf_cull_build(sdf, count, child_first, child_op, child_lipschitz);
    osc_free(child_first), osc_free(child_op), osc_free(child_lipschitz);
    if (status) {
        osc_sdf_destroy(sdf);
        return status;
    }
    *out = sdf;
    return OSC_OK;
}

osc_status osc_sdf_create_union(const osc_sdf* const* children, int count, double temperature, osc_sdf** out) {
    return sdf_create_csg("osc_sdf_create_union", SDF_CSG_UNION, children, count, temperature, out);
}

osc_status osc_sdf_create_intersection(const osc_sdf* const* children, int count, double temperature, osc_sdf** out) {
    return sdf_create_csg("osc_sdf_create_intersection", SDF_CSG_INTERSECTION, children, count, temperature, out);
}

osc_status osc_sdf_create_subtraction(const osc_sdf* a, const osc_sdf* b, double temperature, osc_sdf** out) {
    const char* function = "osc_sdf_create_subtraction";
    if (!a || !b) {
        if (out) *out = NULL;
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function, a ? "b" : "a");
    }
    const osc_sdf* children[2] = {a, b};
    return sdf_create_csg(function, SDF_CSG_SUBTRACTION, children, 2, temperature, out);
}

// ---------------------------------------------------------------------------------------------
// transforms and offsets

static osc_sdf* sdf_copy(const osc_sdf* src, int32_t extra_instrs) {
    osc_sdf* sdf = sdf_allocate(src->leaf_count, src->instr_count + extra_instrs, src->plane_count, src->xpsq_count);
    if (!sdf) return NULL;
    sdf_cursor at = {0, 0, 0, 0};
    sdf_append(sdf, src, &at);
    sdf->stack_need = src->stack_need;
    sdf->lo = src->lo;
    sdf->hi = src->hi;
    sdf->lipschitz = src->lipschitz;
    sdf->lipschitz_is_bound = src->lipschitz_is_bound;
    bool failed = false;
    sdf->cull = sdf_cull_copy(src->cull, &failed);
    if (failed) {
        osc_sdf_destroy(sdf);
        return NULL;
    }
    return sdf;
}

// bounds of the image of the box [lo, hi] under x -> s R x + t (infinite extents stay infinite)
static void bounds_transform(osc_vec3* lo, osc_vec3* hi, osc_mat3 rotation, double scale, osc_vec3 translation) {
    if (lo->x > hi->x || lo->y > hi->y || lo->z > hi->z) return; // empty stays empty
    double c[3] = {0.5 * (lo->x + hi->x), 0.5 * (lo->y + hi->y), 0.5 * (lo->z + hi->z)};
    double e[3] = {0.5 * (hi->x - lo->x), 0.5 * (hi->y - lo->y), 0.5 * (hi->z - lo->z)};
    double nc[3], ne[3];
    for (int i = 0; i < 3; ++i) {
        if (isinf(e[i])) c[i] = 0.0; // centre of an infinite interval: any finite value
    }
    for (int i = 0; i < 3; ++i) {
        nc[i] = 0.0;
        ne[i] = 0.0;
        for (int j = 0; j < 3; ++j) {
            double r = rotation.m[i][j];
            nc[i] += r * c[j];
            if (fabs(r) > 1e-15) ne[i] += fabs(r) * e[j];
        }
        nc[i] = scale * nc[i] + osc_vec3_get(translation, i);
        ne[i] *= scale;
    }
    *lo = osc_v3(nc[0] - ne[0], nc[1] - ne[1], nc[2] - ne[2]);
    *hi = osc_v3(nc[0] + ne[0], nc[1] + ne[1], nc[2] + ne[2]);
}

// the scale and translation every leaf of `child` would have under the placement (x -> s R x + p):
// both within the length range
static osc_status check_placement(const char* function, const osc_sdf* child, osc_mat3 rotation, double scale,
                                  osc_vec3 translation) {
    for (int32_t i = 0; i < child->leaf_count; ++i) {
        const sdf_leaf* leaf = &child->leaves[i];
        double total = leaf->scale * scale;
        if (!(total >= OSC_SDF_LENGTH_MIN && total <= OSC_SDF_LENGTH_MAX))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: scale %g gives leaf %d a scale of %g; it "
                            "must stay in " LENGTH_RANGE,
                            function, scale, (int)i, total);
        osc_vec3 moved = osc_add(osc_scale(osc_mat3_apply(rotation, leaf->translation), scale), translation);
        if (sdf_check_point(function, "a leaf's placed origin", moved))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: pose.p (%g, %g, %g) with scale %g moves leaf %d "
                            "to (%g, %g, %g), beyond 1e30 (OSC_SDF_LENGTH_MAX)",
                            function, translation.x, translation.y, translation.z, scale, (int)i, moved.x, moved.y,
                            moved.z);
    }
    return OSC_OK;
}

osc_status osc_sdf_create_transformed(const osc_sdf* child, osc_pose pose, double scale, osc_sdf** out) {
    const char* function = "osc_sdf_create_transformed";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!child) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: child is NULL", function);
    osc_status status = sdf_check_point(function, "pose.p", pose.p);
    if (status) return status;
    if (!osc_quat_is_normalizable(pose.q))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: pose.q is (%g, %g, %g, %g); it cannot be normalised", function,
                        pose.q.w, pose.q.x, pose.q.y, pose.q.z);
    if ((status = sdf_check_length(function, "scale", scale))) return status;
    osc_mat3 rotation = osc_quat_to_mat3(osc_quat_normalize(pose.q));
    if ((status = check_placement(function, child, rotation, scale, pose.p))) return status;
    osc_vec3 lo = child->lo, hi = child->hi;
    bounds_transform(&lo, &hi, rotation, scale, pose.p);
    if ((status = sdf_check_bounds(function, "the transformed model", lo, hi))) return status;

    osc_sdf* sdf = sdf_copy(child, 0);
    if (!sdf) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    for (int32_t i = 0; i < sdf->leaf_count; ++i) {
        sdf_leaf* leaf = &sdf->leaves[i];
        // world-from-leaf := T o leaf: x = s R (s_l R_l y + t_l) + p
        leaf->translation = osc_add(osc_scale(osc_mat3_apply(rotation, leaf->translation), scale), pose.p);
        leaf->rotation = osc_mat3_mul(rotation, leaf->rotation);
        leaf->scale *= scale;
        leaf->has_transform = 1;
    }
    if (sdf->cull) { // the voxel grid moves with the leaves: world-from-grid := T o grid
        sdf_cull* c = sdf->cull;
        c->translation = osc_add(osc_scale(osc_mat3_apply(rotation, c->translation), scale), pose.p);
        c->rotation = osc_mat3_mul(rotation, c->rotation);
        c->scale *= scale;
        c->has_transform = 1;
        sdf_cull_pack_lanes(sdf); // the SQ lanes' rotations and scales follow their leaves
    }
    // temperatures and offsets are lengths of the child's frame
    for (int32_t i = 0; i < sdf->instr_count; ++i)
        if (sdf->program[i].op != SDF_OP_LEAF) sdf->program[i].value *= scale;
    sdf->lo = lo;
    sdf->hi = hi;
    *out = sdf;
    return OSC_OK;
}

osc_status osc_sdf_create_offset(const osc_sdf* child, double distance, osc_sdf** out) {
    const char* function = "osc_sdf_create_offset";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!child) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: child is NULL", function);
    osc_status status = sdf_check_coordinate(function, "distance", distance);
    if (status) return status;
    // phi - d <= 0 means phi <= d, within distance d of the child (|phi| >= true distance)
    osc_vec3 lo = child->lo, hi = child->hi;
    if (distance > 0.0) bounds_grow(&lo, &hi, distance);
    if ((status = sdf_check_bounds(function, "the offset model", lo, hi))) return status;
    osc_sdf* sdf = sdf_copy(child, 1);
    if (!sdf) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    sdf->program[sdf->instr_count - 1] = (sdf_instr){SDF_OP_OFFSET, 1, 0, distance};
    sdf->lo = lo;
    sdf->hi = hi;
    *out = sdf;
    return OSC_OK;
}
