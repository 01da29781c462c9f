// sdf_pair.c: collision points between two SDFs (Al-Ameri 2025 §4) and the smooth mode's refinement
// and implicit-function derivatives (docs/sdf_pair.md).

#include "sdf_pair_internal.h"

#include "base_internal.h"
#include "query_internal.h"
#include "dense.h"
#include "sdf_internal.h" // the length range's checks

#include <float.h>
#include <stdio.h>

#include <string.h>

enum {
    MAX_RESOLUTION = 128,
    INSERTION_SORT_MAX = 64 // at most 2,016 swaps of contacts
};

// the share of epsilon that world coordinates must resolve where the shapes meet
#define PRECISION_SHARE 0.01

#define TEXT(x) #x
#define VALUE_TEXT(x) TEXT(x) // a macro's value as a string

osc_sdf_pair_settings osc_sdf_pair_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_sdf_pair_settings){.resolution = 12,
                                   .epsilon = 1e-4,
                                   .step = 0.25,
                                   .max_iterations = 40,
                                   .first_only = 0,
                                   .merge_distance = 1.0,
                                   .temperature = 0.0};
}

// ---------------------------------------------------------------------------------------------
// posed shapes

typedef struct posed {
    const osc_sdf_shape* shape;
    osc_pose pose;
    osc_mat3 rotation;
    double lipschitz;
    osc_vec3 lo, hi; // world box
    double diagonal; // of the body box
} posed;

// phi at the world point x, its world gradient and Hessian (both nullable; the Hessian only for
// library SDFs)
static double posed_eval(const posed* s, osc_vec3 x, osc_vec3* gradient, osc_mat3* hessian) {
    osc_vec3 y = osc_pose_apply_inverse(s->pose, x);
    osc_vec3 g = osc_v3(0, 0, 0);
    osc_mat3 h;
    double value;
    if (s->shape->sdf) {
        value = osc_sdf_eval(s->shape->sdf, y, gradient ? &g : NULL, hessian ? &h : NULL);
    } else {
        double point[3] = {y.x, y.y, y.z}, grad[3] = {0, 0, 0};
        value = s->shape->function(s->shape->context, point, gradient ? grad : NULL);
        g = osc_v3(grad[0], grad[1], grad[2]);
    }
    if (gradient) *gradient = osc_mat3_apply(s->rotation, g);
    if (hessian) *hessian = osc_mat3_mul(osc_mat3_mul(s->rotation, h), osc_mat3_transpose(s->rotation));
    return value;
}

// a user shape's body box and Lipschitz bound (sdf_pair.h)
static osc_status check_user_shape(const char* function, const char* name, const osc_sdf_shape* shape) {
    if (!(shape->lipschitz >= 0.0) || !isfinite(shape->lipschitz))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: shape %s: lipschitz is %g; it must be finite "
                        "and >= 0",
                        function, name, shape->lipschitz);
    osc_vec3 lo = shape->lo, hi = shape->hi;
    if (lo.x == hi.x && lo.y == hi.y && lo.z == hi.z)
        return osc_fail(OSC_ERR_UNSUPPORTED,
                        "%s: shape %s: no bounding box given (lo = hi); the "
                        "method cannot decide whether it collides (Al-Ameri 2025 sec. 4.1)",
                        function, name);
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi))
        return osc_fail(OSC_ERR_UNSUPPORTED,
                        "%s: shape %s has no finite bounding box (lo (%g, %g, %g), "
                        "hi (%g, %g, %g)); the method cannot decide whether it collides (Al-Ameri 2025 sec. "
                        "4.1)",
                        function, name, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    if (!sdf_point_in_range(lo) || !sdf_point_in_range(hi)) {
        char what[64];
        bool low = !sdf_point_in_range(lo);
        snprintf(what, sizeof what, "shape %s: %s", name, low ? "lo" : "hi");
        return sdf_check_point(function, what, low ? lo : hi);
    }
    if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: shape %s: its bounding box has lo > hi (lo (%g, "
                        "%g, %g), hi (%g, %g, %g))",
                        function, name, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    return OSC_OK;
}

static osc_status prepare(const char* function, const char* name, const char* pose_name, const osc_sdf_shape* shape,
                          osc_pose pose, posed* out) {
    if (!shape) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shape %s is NULL", function, name);
    if (!shape->sdf == !shape->function)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: shape %s must set exactly one of sdf and "
                        "function",
                        function, name);
    osc_status status = osc_check_pose(function, pose_name, pose, OSC_SDF_LENGTH_MAX, "OSC_SDF_LENGTH_MAX", &out->pose);
    if (status) return status;
    out->shape = shape;
    out->rotation = osc_quat_to_mat3(out->pose.q);
    osc_vec3 lo = shape->lo, hi = shape->hi;
    out->lipschitz = shape->lipschitz > 0.0 ? shape->lipschitz : 1.0;
    if (shape->sdf) {
        osc_sdf_bounds(shape->sdf, &lo, &hi);
        out->lipschitz = osc_sdf_lipschitz(shape->sdf);
        if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z) { // provably empty: it collides with nothing
            out->diagonal = INFINITY;
            out->lo = osc_v3(INFINITY, INFINITY, INFINITY);
            out->hi = osc_v3(-INFINITY, -INFINITY, -INFINITY);
            return OSC_OK;
        }
        if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi))
            return osc_fail(OSC_ERR_UNSUPPORTED,
                            "%s: shape %s has no finite bounding box; the method "
                            "cannot decide whether it collides (Al-Ameri 2025 sec. 4.1)",
                            function, name);
    } else if ((status = check_user_shape(function, name, shape))) {
        return status;
    }
    out->diagonal = osc_length(osc_sub(hi, lo));
    if (!(out->diagonal >= OSC_SDF_LENGTH_MIN))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: shape %s: its bounding box's diagonal is %g; it "
                        "must be at least 1e-30 (OSC_SDF_LENGTH_MIN)",
                        function, name, out->diagonal);
    // the world box of the posed body box: centre and the rotated half extents' absolute sums
    osc_vec3 centre = osc_pose_apply(out->pose, osc_scale(osc_add(lo, hi), 0.5));
    osc_vec3 half = osc_scale(osc_sub(hi, lo), 0.5);
    double reach[3];
    for (int i = 0; i < 3; ++i)
        reach[i] = fabs(out->rotation.m[i][0]) * half.x + fabs(out->rotation.m[i][1]) * half.y +
                   fabs(out->rotation.m[i][2]) * half.z;
    out->lo = osc_v3(centre.x - reach[0], centre.y - reach[1], centre.z - reach[2]);
    out->hi = osc_v3(centre.x + reach[0], centre.y + reach[1], centre.z + reach[2]);
    return OSC_OK;
}

osc_status sdf_pair_world_box(const char* function, const char* name, const char* pose_name, const osc_sdf_shape* shape,
                              osc_pose pose, osc_vec3* lo, osc_vec3* hi) {
    posed p;
    osc_status status = prepare(function, name, pose_name, shape, pose, &p);
    *lo = p.lo;
    *hi = p.hi;
    return status;
}

// ---------------------------------------------------------------------------------------------
// smooth mode: Newton's method on m = tau log(exp(A/tau) + exp(B/tau)), and the implicit
// function theorem at its stationary point

typedef struct smooth_point {
    double wa, wb;   // softmax weights
    double a, b;     // values
    osc_vec3 ga, gb; // gradients
    osc_mat3 ha, hb; // Hessians
    double l[3][3];  // Cholesky factor of the Hessian of m
    double m;        // the smooth maximum
} smooth_point;

// the Cholesky factor of h + shift I into s->l; false when a pivot falls below 1e-9 of the
// largest entry (singular: a flat deepest set, or not a minimum)
static bool smooth_factor(double h[3][3], double shift, smooth_point* s) {
    double largest = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) largest = fmax(largest, fabs(h[i][j]));
    return dense_cholesky(3, &h[0][0], 3, shift, 1e-9 * largest, &s->l[0][0], 3) == 3;
}

// m, its gradient and its Hessian H = wa Ha + wb Hb + (wa wb / tau) d d^T (d = ga - gb) at x
static void smooth_eval(const posed* pa, const posed* pb, osc_vec3 x, double tau, smooth_point* s, osc_vec3* gradient,
                        double h[3][3]) {
    s->a = posed_eval(pa, x, &s->ga, &s->ha);
    s->b = posed_eval(pb, x, &s->gb, &s->hb);
    double top = fmax(s->a, s->b);
    double ea = exp((s->a - top) / tau), eb = exp((s->b - top) / tau);
    s->wa = ea / (ea + eb);
    s->wb = eb / (ea + eb);
    s->m = top + tau * log(ea + eb);
    *gradient = osc_add(osc_scale(s->ga, s->wa), osc_scale(s->gb, s->wb));
    osc_vec3 d = osc_sub(s->ga, s->gb);
    double coupling = s->wa * s->wb / tau;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            h[i][j] =
                s->wa * s->ha.m[i][j] + s->wb * s->hb.m[i][j] + coupling * osc_vec3_get(d, i) * osc_vec3_get(d, j);
}

static osc_vec3 smooth_solve(const smooth_point* s, osc_vec3 rhs) {
    double v[3] = {rhs.x, rhs.y, rhs.z};
    dense_cholesky_solve(3, &s->l[0][0], 3, v);
    return osc_v3(v[0], v[1], v[2]);
}

// the work left to one point's refinement (sdf_pair.h): Newton steps, and evaluations of the pair
// (steps and line-search trials together)
typedef struct refine_budget {
    int steps;
    int evaluations;
} refine_budget;

// smooth_eval charged to the budget; false (nothing evaluated) when it is spent
static bool budget_eval(refine_budget* budget, const posed* pa, const posed* pb, osc_vec3 x, double t, smooth_point* s,
                        osc_vec3* gradient, double h[3][3]) {
    if (budget->evaluations <= 0) return false;
    --budget->evaluations;
    smooth_eval(pa, pb, x, t, s, gradient, h);
    return true;
}

typedef enum stage_end { STAGE_CONVERGED, STAGE_UNCONVERGED, STAGE_SPENT } stage_end;

// damped Newton from x on m at temperature t (Levenberg-Marquardt shifts where the Hessian is not
// positive definite, steps capped at `reach`, halved until m decreases: Armijo) until the step is
// below `stop`, for at most `iterations` steps and what the budget allows
static stage_end newton_stage(const posed* pa, const posed* pb, osc_vec3* x, double t, double reach, double size,
                              double stop, int iterations, smooth_point* s, int* used, refine_budget* budget) {
    for (int k = 0; k < iterations; ++k) {
        osc_vec3 g;
        double h[3][3];
        if (budget->steps <= 0 || !budget_eval(budget, pa, pb, *x, t, s, &g, h)) return STAGE_SPENT;
        --budget->steps;
        *used += 1;
        bool exact = smooth_factor(h, 0.0, s);
        // the shift grows from 1e-6 of the gradient's scale (1 / size) by decades until it factors
        for (double shift = 1e-6 / size; !exact && shift < 1e6 / size; shift *= 10.0)
            if (smooth_factor(h, shift, s)) break;
        osc_vec3 step = osc_neg(smooth_solve(s, g));
        double length = osc_length(step);
        if (!isfinite(length)) return STAGE_UNCONVERGED;
        if (length > reach) step = osc_scale(step, reach / length);
        double m = s->m, slope = osc_dot(g, step);
        for (int halving = 0; halving < 40; ++halving) {
            smooth_point trial;
            osc_vec3 trial_g;
            double trial_h[3][3];
            if (!budget_eval(budget, pa, pb, osc_add(*x, step), t, &trial, &trial_g, trial_h)) return STAGE_SPENT;
            if (trial.m <= m + 1e-4 * slope || osc_length(step) <= stop) break;
            step = osc_scale(step, 0.5);
        }
        *x = osc_add(*x, step);
        if (exact && osc_length(step) <= stop && length <= stop) return STAGE_CONVERGED;
    }
    return STAGE_UNCONVERGED;
}

// the stationary point of m at temperature tau by continuation: Newton at t = 0.1 size, then t
// divided by 10 per stage down to tau (far from the ridge A = B the Hessian at a small t is
// nearly singular along the normal, and Newton would crawl), within the budget of sdf_pair.h:
// 4 max_iterations steps and 32 max_iterations evaluations in all; true with *x the point and s
// factored there without a shift
static bool smooth_refine(const posed* pa, const posed* pb, osc_vec3* x, double tau, double reach, double size,
                          int iterations, smooth_point* s, int* used) {
    refine_budget budget = {4 * iterations, 32 * iterations};
    for (double t = fmax(tau, 0.1 * size);; t = fmax(tau, 0.1 * t)) {
        bool last = t == tau;
        stage_end end =
            newton_stage(pa, pb, x, t, reach, size, last ? 1e-10 * size : 1e-3 * t, iterations, s, used, &budget);
        if (end == STAGE_SPENT || (last && end != STAGE_CONVERGED)) return false;
        if (last) break;
    }
    osc_vec3 g;
    double h[3][3];
    return budget_eval(&budget, pa, pb, *x, tau, s, &g, h) && smooth_factor(h, 0.0, s);
}

// d point / d(xi_A, xi_B) [3][12] and d penetration [12] at a smooth stationary point: a twist of
// body X moves its SDF like the point moving by -v, v = dp + dtheta x (x - p_X):
//   dX = -grad X . v,  d grad X = dtheta x grad X - H_X v,
//   dF = (wa wb / tau)(dA - dB)(ga - gb) + wa d grad A + wb d grad B,  dx = -H^-1 dF,
//   d distance = wa dA + wb dB   (x is stationary; the distance is m)
static void smooth_jacobians(const posed* pa, const posed* pb, osc_vec3 x, double tau, const smooth_point* s,
                             double* point_jacobian, double* distance_jacobian) {
    osc_vec3 d = osc_sub(s->ga, s->gb);
    double coupling = s->wa * s->wb / tau;
    for (int c = 0; c < 12; ++c) {
        int which = c / 6, k = c % 6;
        const posed* body = which == 0 ? pa : pb;
        osc_vec3 axis = osc_v3(k % 3 == 0, k % 3 == 1, k % 3 == 2);
        osc_vec3 v = k < 3 ? axis : osc_cross(axis, osc_sub(x, body->pose.p));
        osc_vec3 gradient = which == 0 ? s->ga : s->gb;
        osc_mat3 hessian = which == 0 ? s->ha : s->hb;
        double weight = which == 0 ? s->wa : s->wb;
        double dvalue = -osc_dot(gradient, v);
        osc_vec3 dgradient = osc_neg(osc_mat3_apply(hessian, v));
        if (k >= 3) dgradient = osc_add(dgradient, osc_cross(axis, gradient));
        double sign = which == 0 ? 1.0 : -1.0;
        osc_vec3 df = osc_add(osc_scale(d, coupling * sign * dvalue), osc_scale(dgradient, weight));
        osc_vec3 dx = osc_neg(smooth_solve(s, df));
        if (point_jacobian) {
            point_jacobian[c] = dx.x;
            point_jacobian[12 + c] = dx.y;
            point_jacobian[24 + c] = dx.z;
        }
        if (distance_jacobian) distance_jacobian[c] = weight * dvalue;
    }
}

// ---------------------------------------------------------------------------------------------
// the query

osc_status sdf_pair_check_settings(const char* function, const osc_sdf_pair_settings* s) {
    const char* name = NULL;
    const char* range = NULL;
    double value = 0.0;
    if (s->resolution < 1 || s->resolution > MAX_RESOLUTION)
        name = "resolution", value = s->resolution, range = "in 1..128";
    else if (!(s->epsilon > 0.0 && s->epsilon < 1.0))
        name = "epsilon", value = s->epsilon, range = "in (0, 1)";
    else if (!(s->step > 0.0 && s->step <= 1.0))
        name = "step", value = s->step, range = "in (0, 1]";
    else if (s->max_iterations < 1 || s->max_iterations > 10000)
        name = "max_iterations", value = s->max_iterations, range = "in 1..10000";
    else if (s->first_only != 0 && s->first_only != 1)
        name = "first_only", value = s->first_only, range = "0 or 1";
    else if (!(s->merge_distance >= 0.0 && s->merge_distance <= 100.0))
        name = "merge_distance", value = s->merge_distance, range = "in [0, 100]";
    else if (!(s->temperature == 0.0 || (s->temperature >= OSC_SDF_PAIR_TEMPERATURE_MIN && s->temperature <= 1.0)))
        name = "temperature", value = s->temperature,
        range = "0 or in [" VALUE_TEXT(OSC_SDF_PAIR_TEMPERATURE_MIN) ", 1]";
    if (name)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.%s is %g; it must be %s (sdf_pair.h)", function, name,
                        value, range);
    return OSC_OK;
}

// inserts a point into the output, merging with a kept point within `merge` (the deeper wins);
// when full, a new point replaces the shallowest kept one if deeper. Returns the slot it was
// stored in or -1, and sets *added when it is a new distinct point.
static int insert(osc_sdf_pair_output* out, const osc_sdf_pair_contact* contact, const double* jp, const double* jd,
                  double merge, bool* added) {
    int slot = -1;
    *added = false;
    for (int i = 0; i < out->count && slot < 0; ++i) {
        if (osc_length(osc_sub(out->contacts[i].point, contact->point)) > merge) continue;
        if (!(contact->distance < out->contacts[i].distance)) return -1;
        slot = i;
    }
    if (slot < 0) {
        *added = true;
        if (out->count < out->capacity) {
            slot = out->count++;
        } else {
            double shallowest = contact->distance;
            for (int i = 0; i < out->count; ++i)
                if (out->contacts[i].distance > shallowest) {
                    shallowest = out->contacts[i].distance;
                    slot = i;
                }
            if (slot < 0) return -1;
        }
    }
    out->contacts[slot] = *contact;
    if (out->point_jacobians) memcpy(out->point_jacobians + 36 * (size_t)slot, jp, 36 * sizeof(double));
    if (out->distance_jacobians) memcpy(out->distance_jacobians + 12 * (size_t)slot, jd, 12 * sizeof(double));
    return slot;
}

static int by_depth(const void* x, const void* y) {
    double a = ((const osc_sdf_pair_contact*)x)->distance, b = ((const osc_sdf_pair_contact*)y)->distance;
    return (a > b) - (a < b);
}

// swaps rows i and j of `width` doubles (nothing for a NULL array)
static void swap_rows(double* rows, size_t width, size_t i, size_t j) {
    if (!rows) return;
    double buffer[36];
    memcpy(buffer, rows + width * i, width * sizeof(double));
    memcpy(rows + width * i, rows + width * j, width * sizeof(double));
    memcpy(rows + width * j, buffer, width * sizeof(double));
}

// the contacts deepest first by a stable insertion sort that carries their Jacobian rows along
static void sort_with_jacobians(osc_sdf_pair_output* out) {
    for (size_t i = 1; i < (size_t)out->count; ++i)
        for (size_t k = i; k > 0 && out->contacts[k].distance < out->contacts[k - 1].distance; --k) {
            osc_sdf_pair_contact t = out->contacts[k];
            out->contacts[k] = out->contacts[k - 1];
            out->contacts[k - 1] = t;
            swap_rows(out->point_jacobians, 36, k, k - 1);
            swap_rows(out->distance_jacobians, 12, k, k - 1);
        }
}

typedef struct survivor_context {
    const posed *pa, *pb;
    const osc_sdf_pair_settings* settings;
    osc_sdf_pair_output* out;
    double epsilon, tau, scale, h, merge;
    bool smooth;
} survivor_context;

// §4.4 from one surviving sphere's centre (where A = va and B = vb): descent, the smooth
// refinement, then the point is merged into the output; its normal is evaluated only when it is
// kept. True when a collision point was found.
static bool process_survivor(const survivor_context* cx, osc_vec3 centre, double va, double vb) {
    const posed *pa = cx->pa, *pb = cx->pb;
    double epsilon = cx->epsilon;
    // §4.4: descent on f = A^2 + B^2, x <- x - step grad f
    osc_vec3 x = centre, ga = osc_v3(0, 0, 0), gb = osc_v3(0, 0, 0);
    double fa = va, fb = vb;
    bool gradients = false, found = fa <= epsilon && fb <= epsilon;
    int iteration = 0;
    while (!found && iteration < cx->settings->max_iterations) {
        fa = posed_eval(pa, x, &ga, NULL);
        fb = posed_eval(pb, x, &gb, NULL);
        gradients = true;
        if (fa <= epsilon && fb <= epsilon) {
            found = true;
            break;
        }
        osc_vec3 gradient = osc_add(osc_scale(ga, 2.0 * fa), osc_scale(gb, 2.0 * fb));
        x = osc_add_scaled(x, gradient, -cx->settings->step);
        ++iteration;
        if (!osc_vec3_is_finite(x)) break;
    }
    if (!found) return false;
    osc_sdf_pair_contact contact;
    memset(&contact, 0, sizeof contact);
    contact.point = x;
    contact.distance = fmax(fa, fb);
    double jp[36] = {0}, jd[12] = {0};
    if (cx->smooth) {
        smooth_point s;
        osc_vec3 refined = x;
        int used = 0;
        if (smooth_refine(pa, pb, &refined, cx->tau, cx->h, cx->scale, cx->settings->max_iterations, &s, &used) &&
            fmax(s.a, s.b) <= epsilon) {
            contact.point = refined;
            contact.smooth = 1;
            contact.distance = s.m;
            smooth_jacobians(pa, pb, refined, cx->tau, &s, jp, jd);
            ga = s.ga;
            gb = s.gb;
            gradients = true;
        }
        iteration += used;
    }
    contact.iterations = iteration;
    bool added = false;
    int slot = insert(cx->out, &contact, jp, jd, cx->merge, &added);
    if (added) ++cx->out->needed;
    if (slot >= 0) {
        if (!gradients) {
            posed_eval(pa, contact.point, &ga, NULL);
            posed_eval(pb, contact.point, &gb, NULL);
        }
        cx->out->contacts[slot].normal = osc_normalize(osc_sub(ga, gb));
    }
    return true;
}

// where the shapes meet, world coordinates must resolve a hundredth of epsilon: farther from the
// origin the lattice and the descent would move by more than the method's tolerance (sdf_pair.h)
static osc_status check_precision(const char* function, osc_vec3 lo, osc_vec3 hi, double epsilon) {
    double reach = fmax(fmax(fabs(lo.x), fabs(hi.x)), fmax(fmax(fabs(lo.y), fabs(hi.y)), fmax(fabs(lo.z), fabs(hi.z))));
    double limit = PRECISION_SHARE * epsilon / DBL_EPSILON;
    if (reach <= limit) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                    "%s: the shapes meet %g from the world origin, where "
                    "double precision resolves %g, more than a hundredth of epsilon (%g: "
                    "settings.epsilon times the smaller shape's box diagonal); place the origin within "
                    "%g of them",
                    function, reach, reach * DBL_EPSILON, epsilon, limit);
}

osc_status osc_sdf_pair_collide(const osc_sdf_shape* a, osc_pose pose_a, const osc_sdf_shape* b, osc_pose pose_b,
                                const osc_sdf_pair_settings* settings_in, osc_sdf_pair_output* out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output is NULL", __func__);
    osc_status status = osc_check_output(__func__, out->contacts, out->capacity);
    if (status) return status;
    out->count = out->needed = out->boxes_overlap = out->spheres = out->survivors = 0;
    osc_sdf_pair_settings settings = settings_in ? *settings_in : osc_sdf_pair_settings_default();
    status = sdf_pair_check_settings(__func__, &settings);
    posed pa, pb;
    if (status == OSC_OK) status = prepare(__func__, "a", "pose_a", a, pose_a, &pa);
    if (status == OSC_OK) status = prepare(__func__, "b", "pose_b", b, pose_b, &pb);
    if (status != OSC_OK) return status;
    bool smooth = settings.temperature > 0.0;
    if (smooth && (!a->sdf || !b->sdf))
        return osc_fail(OSC_ERR_UNSUPPORTED,
                        "%s: smooth mode needs second derivatives: library "
                        "SDFs only",
                        __func__);

    // Al-Ameri 2025 §4.1: the intersection of the world boxes
    osc_vec3 lo = osc_v3(fmax(pa.lo.x, pb.lo.x), fmax(pa.lo.y, pb.lo.y), fmax(pa.lo.z, pb.lo.z));
    osc_vec3 hi = osc_v3(fmin(pa.hi.x, pb.hi.x), fmin(pa.hi.y, pb.hi.y), fmin(pa.hi.z, pb.hi.z));
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z)) return OSC_OK;
    // epsilon and tau scale with the smaller shape (its body box's diagonal), which does not
    // change with the poses: the smooth mode's points must be functions of the poses alone
    double scale = fmin(pa.diagonal, pb.diagonal);
    double epsilon = settings.epsilon * scale, tau = settings.temperature * scale;
    if ((status = check_precision(__func__, lo, hi, epsilon))) return status;
    out->boxes_overlap = 1;
    osc_vec3 extent = osc_sub(hi, lo);
    double size = fmax(extent.x, fmax(extent.y, extent.z));
    if (!(size > 0.0)) size = 1e-12 * scale;
    // §4.2: a cubic lattice of cells of side h = size / resolution anchored at lo, each covered
    // by its circumscribed sphere. The lattice is visited as an octree: a cube of 2^depth cells is
    // split into eighths, and a cube whose circumscribed sphere cannot reach the intersection of
    // the shapes is dropped with everything in it (the same test as §4.3's, one level up; a
    // child's sphere lies inside its parent's), so the work follows the intersection's boundary
    // instead of the box's volume.
    double h = size / settings.resolution;
    int depth = 0;
    while ((1 << depth) < settings.resolution) ++depth;
    double lipschitz = fmax(pa.lipschitz, pb.lipschitz);
    double merge = settings.merge_distance * h;
    survivor_context context = {&pa, &pb, &settings, out, epsilon, tau, scale, h, merge, smooth};
    typedef struct node {
        int i, j, k, level; // cube of 2^(depth - level) cells with first cell (i, j, k)
    } node;
    node stack[7 * 8 + 1]; // depth <= 7 (resolution <= 128); each level adds at most 7 waiting
    int top = 0;
    stack[top++] = (node){0, 0, 0, 0};
    bool full = false;
    while (top > 0 && !full) {
        node n = stack[--top];
        int cells = 1 << (depth - n.level);
        osc_vec3 corner = osc_v3(lo.x + n.i * h, lo.y + n.j * h, lo.z + n.k * h);
        if (corner.x > hi.x || corner.y > hi.y || corner.z > hi.z) continue;
        double side = cells * h;
        osc_vec3 centre = osc_add(corner, osc_v3(0.5 * side, 0.5 * side, 0.5 * side));
        ++out->spheres;
        // §4.3: a sphere survives when it can reach the intersection of the shapes
        double va = posed_eval(&pa, centre, NULL, NULL);
        double vb = posed_eval(&pb, centre, NULL, NULL);
        double reach = lipschitz * 0.5 * sqrt(3.0) * side;
        if (!(fmax(va, vb) <= reach + epsilon)) continue;
        // a cube whose sphere lies inside both shapes gives its centre as one point and is not
        // split: its cells would only add interior points a spacing apart
        bool interior = fmax(va, vb) <= -reach;
        if (n.level < depth && !interior) {
            int half = cells / 2;
            for (int c = 7; c >= 0; --c)
                stack[top++] =
                    (node){n.i + (c & 1 ? half : 0), n.j + (c & 2 ? half : 0), n.k + (c & 4 ? half : 0), n.level + 1};
            continue;
        }
        ++out->survivors;
        if (process_survivor(&context, centre, va, vb) && settings.first_only) full = true;
    }
    // deepest first, ties in the order found (the Jacobians follow their contacts); both sorts are
    // stable and allocate nothing, so they give the same order: the insertion sort, quicker for
    // the few points of a usual pair, up to INSERTION_SORT_MAX points or with Jacobians
    if (out->point_jacobians || out->distance_jacobians || out->count <= INSERTION_SORT_MAX)
        sort_with_jacobians(out);
    else
        osc_sort(out->contacts, (size_t)out->count, sizeof *out->contacts, by_depth);
    return osc_finish_output(__func__, out->needed, out->capacity);
}

// slot i of a batch: the single call into outputs[i]
static osc_status batch_slot(const osc_query_batch* batch, size_t i) {
    const osc_sdf_pair_batch_item* item = (const osc_sdf_pair_batch_item*)batch->items + i;
    return osc_sdf_pair_collide(item->a, item->pose_a, item->b, item->pose_b, batch->settings,
                                (osc_sdf_pair_output*)batch->outputs + i);
}

osc_status osc_sdf_pair_collide_batch(const osc_sdf_pair_batch_item* items, size_t count,
                                      const osc_sdf_pair_settings* settings, osc_sdf_pair_output* outputs,
                                      osc_status* statuses, int threads) {
    const osc_query_batch batch = {
        "osc_sdf_pair_collide_batch", "outputs", items, outputs, settings, NULL, batch_slot, 1};
    return osc_query_batch_run(&batch, count, statuses, threads);
}
