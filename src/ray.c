// ray.c: rays against implicit surfaces (Torch Lens Maker): transform into the surface frame, beams, the
// coarse / fine / final phases, the hit test, and implicit-function derivatives (docs/ray.md).

// no fused multiply-adds: the wide batch path and the scalar path round alike only without them
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "implicit_internal.h"
#include "osculate/ray.h"

#include "base_internal.h"
#include "sdf_internal.h" // the length range's checks

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

enum { MAX_BEAMS = 16, MAX_ITERATIONS = 10000 };

// the accepted squared lengths of a direction
#define DIRECTION_MIN2 (OSC_SDF_LENGTH_MIN * OSC_SDF_LENGTH_MIN)
#define DIRECTION_MAX2 (OSC_SDF_LENGTH_MAX * OSC_SDF_LENGTH_MAX)

osc_implicit_transform osc_implicit_transform_identity(void) {
    osc_implicit_transform t = {osc_v3(0, 0, 0), 1.0, osc_quat_identity(), osc_v3(0, 0, 0)};
    return t;
}

osc_ray_settings osc_ray_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_ray_settings){
        .init = OSC_RAY_INIT_BOUNDING_SPHERE,
        .beams = 4,
        .coarse = {.algorithm = OSC_RAY_NEWTON,
                   .iterations = 6,
                   .damping = 1.0,
                   .max_step = -1.0}, // -1: half the bounding radius
        .fine = {.algorithm = OSC_RAY_NEWTON, .iterations = 20, .damping = 1.0, .max_step = 0.0},
        .final_step = {.algorithm = OSC_RAY_NEWTON, .iterations = 1, .damping = 1.0, .max_step = 0.0},
        .tolerance = 1e-10,
        .analytic_conics = 1};
}

// the ray in the surface frame
typedef struct local_ray {
    osc_vec3 p, v;
    osc_mat3 rotation; // world-from-surface R
    double scale;
} local_ray;

// one update of `phase`'s algorithm from t (Q and Q' there)
static double update(const osc_ray_phase* phase, double max_step, double t, double q, double dq, double speed) {
    double step = 0.0;
    switch (phase->algorithm) {
        case OSC_RAY_NEWTON:
            step = dq != 0.0 ? -phase->damping * q / dq : 0.0;
            if (max_step > 0.0 && fabs(step) > max_step) step = copysign(max_step, step);
            break;
        case OSC_RAY_GRADIENT_DESCENT: step = -phase->damping * dq * q; break;
        case OSC_RAY_LEVENBERG_MARQUARDT:
            step = dq * dq + phase->damping > 0.0 ? -dq * q / (dq * dq + phase->damping) : 0.0;
            break;
        case OSC_RAY_SPHERE_TRACING: step = q / speed; break;
    }
    return isfinite(step) ? t + step : t;
}

// the checks of ray.h, each naming the setting or argument and its value

static osc_status check_phase(const char* function, const char* name, const osc_ray_phase* p) {
    if ((int)p->algorithm < 0 || (int)p->algorithm > OSC_RAY_SPHERE_TRACING)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings.%s.algorithm is %d; it must be 0..3 "
                        "(osc_ray_algorithm)",
                        function, name, (int)p->algorithm);
    if (p->iterations < 0 || p->iterations > MAX_ITERATIONS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings.%s.iterations is %d; it must be in "
                        "0..10000",
                        function, name, p->iterations);
    if (!(p->damping >= 0.0) || !isfinite(p->damping))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings.%s.damping is %g; it must be finite and "
                        ">= 0",
                        function, name, p->damping);
    if (!isfinite(p->max_step))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.%s.max_step is %g; it must be finite", function, name,
                        p->max_step);
    return OSC_OK;
}

static osc_status check_settings(const char* function, const osc_ray_settings* s) {
    if ((int)s->init < 0 || (int)s->init > OSC_RAY_INIT_BOUNDING_SPHERE)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings.init is %d; it must be 0, 1 or 2 "
                        "(osc_ray_init)",
                        function, (int)s->init);
    if (s->beams < 1 || s->beams > MAX_BEAMS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.beams is %d; it must be in 1..16", function, s->beams);
    if (!(s->tolerance >= OSC_RAY_TOLERANCE_MIN && s->tolerance <= OSC_RAY_TOLERANCE_MAX))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings.tolerance is %g; it must be in [1e-15, "
                        "0.1] (OSC_RAY_TOLERANCE_MIN, OSC_RAY_TOLERANCE_MAX)",
                        function, s->tolerance);
    if (s->analytic_conics != 0 && s->analytic_conics != 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.analytic_conics is %d; it must be 0 or 1", function,
                        s->analytic_conics);
    osc_status status = check_phase(function, "coarse", &s->coarse);
    if (status == OSC_OK) status = check_phase(function, "fine", &s->fine);
    if (status == OSC_OK) status = check_phase(function, "final_step", &s->final_step);
    return status;
}

// what every query shares: the surface, the placement and the settings
static osc_status check_query(const char* function, const osc_implicit* surface,
                              const osc_implicit_transform* transform, const osc_ray_settings* settings) {
    if (!surface) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surface is NULL", function);
    osc_status status = sdf_check_length(function, "transform->scale", transform->scale);
    if (status == OSC_OK) status = sdf_check_point(function, "transform->anchor", transform->anchor);
    if (status == OSC_OK) status = sdf_check_point(function, "transform->translation", transform->translation);
    if (status) return status;
    if (!osc_quat_is_normalizable(transform->rotation))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: transform->rotation is (%g, %g, %g, %g); it cannot "
                        "be normalised",
                        function, transform->rotation.w, transform->rotation.x, transform->rotation.y,
                        transform->rotation.z);
    return check_settings(function, settings);
}

// a ray the queries accept: its origin's coordinates within OSC_SDF_LENGTH_MAX, its direction's
// squared length in [OSC_SDF_LENGTH_MIN^2, OSC_SDF_LENGTH_MAX^2] (the wide path tests the same)
static inline int ray_is_valid(osc_vec3 origin, osc_vec3 direction) {
    double dd = osc_dot(direction, direction);
    return fabs(origin.x) <= OSC_SDF_LENGTH_MAX && fabs(origin.y) <= OSC_SDF_LENGTH_MAX &&
           fabs(origin.z) <= OSC_SDF_LENGTH_MAX && dd >= DIRECTION_MIN2 && dd <= DIRECTION_MAX2;
}

static osc_status check_ray(const char* function, const char* prefix, osc_vec3 origin, osc_vec3 direction) {
    if (ray_is_valid(origin, direction)) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                    "%s: %sorigin (%g, %g, %g), direction (%g, %g, %g): the "
                    "origin's coordinates must be finite and at most 1e30 in magnitude, the direction's "
                    "length (%g) in [1e-30, 1e30] (OSC_SDF_LENGTH_MIN, OSC_SDF_LENGTH_MAX)",
                    function, prefix, origin.x, origin.y, origin.z, direction.x, direction.y, direction.z,
                    sdf_vector_length(direction));
}

// ---------------------------------------------------------------------------------------------
// derivatives at the root (docs/ray.md §3): with n = grad F (surface frame), q = n . V',
// M = R^T / s (world to surface for vectors): dt/dP = -M^T n / q, dt/dV = t dt/dP

static void fill_jacobians(const osc_implicit* s, const local_ray* ray, osc_vec3 origin, osc_vec3 direction,
                           const osc_implicit_transform* transform, double t, osc_ray_hit* hit,
                           const osc_ray_jacobians* jac) {
    osc_vec3 x = osc_add_scaled(ray->p, ray->v, t), n;
    osc_mat3 h;
    osc_implicit_eval(s, x, &n, &h);
    double q = osc_dot(n, ray->v);
    double scale_n = osc_length(n);
    hit->grazing = !(fabs(q) > 1e-12 * scale_n * osc_length(ray->v));
    double factor = hit->grazing ? 0.0 : -1.0 / q;
    // a = dt/dP = -R n / (s q), b = dt/dV = t a
    osc_vec3 a = osc_scale(osc_mat3_apply(ray->rotation, n), factor / ray->scale);
    osc_vec3 b = osc_scale(a, t);
    if (jac->t_origin) memcpy(jac->t_origin, &a, sizeof(double) * 3);
    if (jac->t_direction) memcpy(jac->t_direction, &b, sizeof(double) * 3);
    double av[3] = {a.x, a.y, a.z}, bv[3] = {b.x, b.y, b.z};
    double vv[3] = {direction.x, direction.y, direction.z};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            if (jac->point_origin) jac->point_origin[3 * i + j] = (i == j) + vv[i] * av[j];
            if (jac->point_direction) jac->point_direction[3 * i + j] = (i == j) * t + vv[i] * bv[j];
        }
    if (jac->normal_origin || jac->normal_direction) {
        // N = R n / |n|; dn = H dX', dX'/dP = M + V' a^T, dX'/dV = t M + V' b^T;
        // dN = (I - N N^T) R dn / |n|
        osc_vec3 normal = hit->normal;
        for (int which = 0; which < 2; ++which) {
            double* out = which == 0 ? jac->normal_origin : jac->normal_direction;
            if (!out) continue;
            osc_vec3 row_vector = which == 0 ? a : b;
            double base = which == 0 ? 1.0 : t;
            for (int j = 0; j < 3; ++j) {
                // column j: dX' = base M e_j + V' row_vector_j
                osc_vec3 e = osc_v3(j == 0, j == 1, j == 2);
                osc_vec3 dx = osc_add_scaled(osc_scale(osc_mat3_apply_transpose(ray->rotation, e), base / ray->scale),
                                             ray->v, osc_vec3_get(row_vector, j));
                osc_vec3 dn = osc_mat3_apply(ray->rotation, osc_mat3_apply(h, dx));
                osc_vec3 dN = hit->grazing ? osc_v3(0, 0, 0)
                                           : osc_scale(osc_add_scaled(dn, normal, -osc_dot(normal, dn)), 1.0 / scale_n);
                out[j] = dN.x;
                out[3 + j] = dN.y;
                out[6 + j] = dN.z;
            }
        }
    }
    // the anchor moves P' by dA: dt/dA = -n / q; the scale moves X' by -(X' - A) ds / s
    if (jac->t_anchor) {
        osc_vec3 d = osc_scale(n, factor);
        memcpy(jac->t_anchor, &d, sizeof(double) * 3);
    }
    if (jac->t_scale) *jac->t_scale = -factor * osc_dot(n, osc_sub(x, transform->anchor)) / ray->scale;
    osc_vec3 arm = osc_sub(origin, transform->translation);
    if (jac->t_surface_pose || jac->point_surface_pose || jac->normal_surface_pose) {
        // moving the surface by (dp, dtheta) moves the ray by the inverse motion,
        // dP = -dp + (P - T) x dtheta, dV = V x dtheta, and turns the normal by dtheta:
        // dt/dp = -a, dt/dtheta = a x (P - T) + b x V; d point = V dt;
        // d normal = -(dN/dP) dp + [(dN/dP)[P - T]x + (dN/dV)[V]x - [N]x] dtheta
        osc_vec3 rotation = osc_add(osc_cross(a, arm), osc_cross(b, direction));
        double dt[6] = {-a.x, -a.y, -a.z, rotation.x, rotation.y, rotation.z};
        if (jac->t_surface_pose) memcpy(jac->t_surface_pose, dt, sizeof dt);
        if (jac->point_surface_pose)
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 6; ++c) jac->point_surface_pose[6 * i + c] = vv[i] * dt[c];
        if (jac->normal_surface_pose) {
            double no[9], nd[9];
            osc_ray_jacobians inner;
            memset(&inner, 0, sizeof inner);
            inner.normal_origin = no;
            inner.normal_direction = nd;
            if (!jac->normal_origin || !jac->normal_direction) {
                osc_ray_hit copy = *hit;
                fill_jacobians(s, ray, origin, direction, transform, t, &copy, &inner);
            } else {
                memcpy(no, jac->normal_origin, sizeof no);
                memcpy(nd, jac->normal_direction, sizeof nd);
            }
            osc_vec3 N = hit->normal;
            for (int c = 0; c < 6; ++c) {
                osc_vec3 e = osc_v3(c % 3 == 0, c % 3 == 1, c % 3 == 2), column;
                if (c < 3) {
                    column = osc_neg(osc_v3(no[0 + c], no[3 + c], no[6 + c]));
                } else {
                    osc_vec3 dP = osc_cross(arm, e), dV = osc_cross(direction, e);
                    double dPv[3] = {dP.x, dP.y, dP.z}, dVv[3] = {dV.x, dV.y, dV.z}, sum[3];
                    for (int i = 0; i < 3; ++i)
                        sum[i] = no[3 * i] * dPv[0] + no[3 * i + 1] * dPv[1] + no[3 * i + 2] * dPv[2] +
                                 nd[3 * i] * dVv[0] + nd[3 * i + 1] * dVv[1] + nd[3 * i + 2] * dVv[2];
                    column = osc_add(osc_v3(sum[0], sum[1], sum[2]), osc_cross(e, N));
                }
                jac->normal_surface_pose[c] = column.x;
                jac->normal_surface_pose[6 + c] = column.y;
                jac->normal_surface_pose[12 + c] = column.z;
            }
        }
    }
    if (s->kind == IMPLICIT_SAG && (jac->t_parameters || jac->point_parameters || jac->normal_parameters)) {
        // dt = -(dF/dtheta) / q; d point = V dt; d n = H V' dt + d(grad F)/dtheta,
        // d normal = (I - N N^T) R d n / |n|
        double gradient[2 + OSC_SAG_MAX_COEFFICIENTS], gradient_of_gradient[2 + OSC_SAG_MAX_COEFFICIENTS][3];
        int count = implicit_sag_parameter_gradient(s, x, gradient);
        implicit_sag_parameter_gradient_of_gradient(s, x, gradient_of_gradient);
        for (int i = 0; i < count; ++i) {
            double dt = factor * gradient[i];
            if (jac->t_parameters) jac->t_parameters[i] = dt;
            if (jac->point_parameters)
                for (int r = 0; r < 3; ++r) jac->point_parameters[count * r + i] = vv[r] * dt;
            if (jac->normal_parameters) {
                osc_vec3 dn =
                    osc_add(osc_mat3_apply(h, osc_scale(ray->v, dt)),
                            osc_v3(gradient_of_gradient[i][0], gradient_of_gradient[i][1], gradient_of_gradient[i][2]));
                osc_vec3 dN = osc_mat3_apply(ray->rotation, dn);
                dN = hit->grazing
                         ? osc_v3(0, 0, 0)
                         : osc_scale(osc_add_scaled(dN, hit->normal, -osc_dot(hit->normal, dN)), 1.0 / scale_n);
                jac->normal_parameters[i] = dN.x;
                jac->normal_parameters[count + i] = dN.y;
                jac->normal_parameters[2 * count + i] = dN.z;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the query

// A query's invariants are formed once per call (or batch): the placement, the bounding sphere, the
// path a ray takes and a sag's constants. Every path computes what the general code of docs/ray.md
// computes, in the same order of operations, so the batch equals osc_ray_intersect bit for bit.

// a sag's constants, as sag_value (implicit.c) forms them on every call
typedef struct sag_constants {
    double c, k1, k1cc; // c, 1 + k, (1 + k) c c
    double half, half2; // D / 2 and its square (the aperture's edge, where the band starts)
    double domain2;     // (D / 2)^2 (1 + 1e-12): osc_implicit_in_domain
    double rim;         // g(D / 2), the band's centre
    int count;
    double a[OSC_SAG_MAX_COEFFICIENTS], na[OSC_SAG_MAX_COEFFICIENTS]; // a_i and (2i + 4) a_i
} sag_constants;

// which code a ray goes through
typedef enum query_path {
    PATH_PHASES, // beams and phases (any surface)
    PATH_CONIC,  // a sag without asphere terms in closed form
    PATH_ASPHERE // an asphere from its base conic's root through the fine and final phases
} query_path;

typedef struct query {
    const osc_implicit* surface;
    const osc_implicit_transform* transform;
    const osc_ray_settings* settings;
    osc_mat3 rotation; // world-from-surface R
    double inverse_scale;
    osc_vec3 centre; // the bounding sphere
    double radius;
    double tolerance; // |F| for a hit: settings.tolerance times the bounding radius
    query_path path;
    int is_sag;
    sag_constants sag;
} query;

// the sag and u = g'(r) / r at r^2 (sag_value without the second derivative)
static inline double sag_value_fast(const sag_constants* k, double r2, double* u) {
    double w = 1.0 - k->k1cc * r2;
    double s = sqrt(w > 0.0 ? w : 0.0);
    double g = k->c * r2 / (1.0 + s);
    double du = s > 0.0 ? k->c / s : INFINITY;
    double power = r2 * r2, lower = r2;
    for (int i = 0; i < k->count; ++i) {
        g += k->a[i] * power;
        du += k->na[i] * lower;
        power *= r2;
        lower *= r2;
    }
    *u = du;
    return g;
}

// F and grad F of a sag at a surface-frame point (sag_eval without the Hessian)
static inline double sag_eval_fast(const sag_constants* k, osc_vec3 p, osc_vec3* gradient) {
    double r2 = p.y * p.y + p.z * p.z;
    if (r2 <= k->half2) {
        double u, g = sag_value_fast(k, r2, &u);
        *gradient = osc_v3(-1.0, u * p.y, u * p.z);
        return g - p.x;
    }
    double r = sqrt(r2), dx = p.x - k->rim, dr = r - k->half;
    *gradient = osc_v3(2.0 * dx, 2.0 * dr * p.y / r, 2.0 * dr * p.z / r);
    return dx * dx + dr * dr;
}

static inline double surface_eval(const query* q, osc_vec3 p, osc_vec3* gradient) {
    return q->is_sag ? sag_eval_fast(&q->sag, p, gradient) : osc_implicit_eval(q->surface, p, gradient, NULL);
}

static inline int surface_in_domain(const query* q, osc_vec3 p) {
    return q->is_sag ? p.y * p.y + p.z * p.z <= q->sag.domain2 : 1;
}

// the last evaluation along the ray: Q at a t whose bits equal the cached t is not evaluated again
typedef struct eval_cache {
    double t, value;
    osc_vec3 gradient;
    int valid;
} eval_cache;

static inline int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

// F and grad F at P' + t V'
static double eval_at(const query* q, const local_ray* ray, double t, eval_cache* cache, osc_vec3* gradient) {
    if (cache->valid && same_bits(cache->t, t)) {
        *gradient = cache->gradient;
        return cache->value;
    }
    cache->t = t;
    cache->value = surface_eval(q, osc_add_scaled(ray->p, ray->v, t), &cache->gradient);
    cache->valid = 1;
    *gradient = cache->gradient;
    return cache->value;
}

static double q_eval(const query* q, const local_ray* ray, double t, eval_cache* cache, double* slope) {
    osc_vec3 g;
    double value = eval_at(q, ray, t, cache, &g);
    *slope = osc_dot(g, ray->v);
    return value;
}

static double run_phase(const query* q, const local_ray* ray, const osc_ray_phase* phase, double max_step, double t,
                        int* used, eval_cache* cache) {
    double speed = phase->algorithm == OSC_RAY_SPHERE_TRACING ? osc_length(ray->v) : 0.0;
    for (int k = 0; k < phase->iterations; ++k) {
        double dq, value = q_eval(q, ray, t, cache, &dq);
        double next = update(phase, max_step, t, value, dq, speed);
        ++*used;
        // converged to rounding: further iterations would not move t
        bool done = fabs(next - t) <= 1e-15 * (1.0 + fabs(t));
        t = next;
        if (done) break;
    }
    return t;
}

// a conic sag in closed form: along X' = P' + t V', c (1 + k) x^2 - 2 x + c r^2 = 0 (the sag's
// equation times c, so c = 0 is the plane x = 0); the smallest finite root t >= 0 on the vertex
// branch ((1 + k) c x <= 1) within the aperture, or NAN. No threshold on the quadratic term: the
// answer does not change when V' is scaled (an extreme transform scale or direction length)
static inline double conic_root(const sag_constants* s, osc_vec3 p, osc_vec3 v) {
    double c = s->c, k1 = s->k1;
    double a = c * (k1 * v.x * v.x + v.y * v.y + v.z * v.z);
    double b = 2.0 * c * (k1 * p.x * v.x + p.y * v.y + p.z * v.z) - 2.0 * v.x;
    double c0 = c * (k1 * p.x * p.x + p.y * p.y + p.z * p.z) - 2.0 * p.x;
    double roots[2] = {NAN, NAN};
    if (a == 0.0) { // linear: a plane (c = 0), or a ray along an asymptote of a hyperboloid or parabola
        if (b != 0.0) roots[0] = -c0 / b;
    } else { // the stable pair of roots, accurate however small a is (the larger may overflow: dropped)
        double disc = b * b - 4.0 * a * c0;
        if (disc < 0.0) return NAN;
        double root = -0.5 * (b + copysign(sqrt(disc), b));
        roots[0] = root / a;
        roots[1] = root != 0.0 ? c0 / root : NAN;
    }
    double best = NAN, half2 = s->half2;
    for (int i = 0; i < 2; ++i) {
        double t = roots[i];
        if (!(t >= 0.0 && t < INFINITY)) continue;
        osc_vec3 x = osc_add_scaled(p, v, t);
        if (k1 * c * x.x > 1.0 || x.y * x.y + x.z * x.z > half2) continue;
        if (isnan(best) || t < best) best = t;
    }
    return best;
}

static query make_query(const osc_implicit* surface, const osc_implicit_transform* transform,
                        const osc_ray_settings* settings) {
    query q;
    memset(&q, 0, sizeof q);
    q.surface = surface;
    q.transform = transform;
    q.settings = settings;
    q.rotation = osc_quat_to_mat3(osc_quat_normalize(transform->rotation));
    q.inverse_scale = 1.0 / transform->scale;
    osc_implicit_bounding_sphere(surface, &q.centre, &q.radius);
    q.tolerance = settings->tolerance * q.radius;
    q.is_sag = surface->kind == IMPLICIT_SAG;
    q.path = PATH_PHASES;
    if (q.is_sag) {
        const osc_sag* sag = &surface->sag;
        sag_constants* k = &q.sag;
        k->c = sag->curvature;
        k->k1 = 1.0 + sag->conic;
        k->k1cc = k->k1 * k->c * k->c;
        k->half = surface->half_aperture;
        k->half2 = k->half * k->half;
        k->domain2 = k->half2 * (1.0 + 1e-12);
        k->count = sag->coefficient_count;
        for (int i = 0; i < k->count; ++i) {
            k->a[i] = sag->coefficients[i];
            k->na[i] = (2.0 * i + 4.0) * sag->coefficients[i];
        }
        k->rim = osc_implicit_sag(surface, k->half, NULL);
        if (settings->analytic_conics) q.path = k->count > 0 ? PATH_ASPHERE : PATH_CONIC;
    }
    return q;
}

static local_ray to_local(const query* q, osc_vec3 origin, osc_vec3 direction) {
    local_ray ray;
    ray.rotation = q->rotation;
    ray.scale = q->transform->scale;
    ray.p = osc_add(
        osc_scale(osc_mat3_apply_transpose(q->rotation, osc_sub(origin, q->transform->translation)), q->inverse_scale),
        q->transform->anchor);
    ray.v = osc_scale(osc_mat3_apply_transpose(q->rotation, direction), q->inverse_scale);
    return ray;
}

// the closest approach of the ray to the bounding sphere's centre, and the squared half chord
static double closest_approach(const query* q, const local_ray* ray, double* vv, double* chord2) {
    *vv = osc_dot(ray->v, ray->v);
    double closest = osc_dot(osc_sub(q->centre, ray->p), ray->v) / *vv;
    osc_vec3 off = osc_sub(osc_add_scaled(ray->p, ray->v, closest), q->centre);
    *chord2 = (q->radius * q->radius - osc_dot(off, off)) / *vv;
    return closest;
}

// what intersect answers (the point P + t V is the caller's)
typedef struct ray_answer {
    double t;
    osc_vec3 normal; // zero unless asked for and the ray reached the final test
    int hit, iterations;
} ray_answer;

// the hit test at the final t: |F| <= tolerance, in the domain, in front of the origin; the
// normal when asked for
static void finish(const query* q, const local_ray* ray, double t, eval_cache* cache, int want_normal,
                   ray_answer* answer) {
    osc_vec3 g;
    double value = eval_at(q, ray, t, cache, &g);
    answer->hit = fabs(value) <= q->tolerance && surface_in_domain(q, osc_add_scaled(ray->p, ray->v, t)) && t >= 0.0;
    if (want_normal) answer->normal = osc_normalize(osc_mat3_apply(ray->rotation, g));
}

// beams over the chord (or from the chosen start), then the phases
static double run_beams(const query* q, const local_ray* ray, double closest, double vv, double chord2,
                        eval_cache* cache, int* iterations) {
    const osc_ray_settings* settings = q->settings;
    double half_chord = sqrt(chord2), tb[MAX_BEAMS];
    int beams = settings->beams;
    for (int b = 0; b < beams; ++b) {
        if (settings->init == OSC_RAY_INIT_ZERO)
            tb[b] = 0.0;
        else if (settings->init == OSC_RAY_INIT_CLOSEST)
            tb[b] = -osc_dot(ray->p, ray->v) / vv;
        else
            tb[b] = closest - half_chord + 2.0 * half_chord * (b + 0.5) / beams;
    }
    double max_step = settings->coarse.max_step < 0.0 ? 0.5 * q->radius / sqrt(vv) : settings->coarse.max_step;
    int used[MAX_BEAMS] = {0}, best = 0; // stays 0 when every beam's |Q| is NaN
    double best_q = INFINITY, best_t = INFINITY;
    for (int b = 0; b < beams; ++b) {
        tb[b] = run_phase(q, ray, &settings->coarse, max_step, tb[b], &used[b], cache);
        double dq, value = fabs(q_eval(q, ray, tb[b], cache, &dq));
        bool valid =
            value <= 1e3 * q->tolerance && tb[b] >= 0.0 && surface_in_domain(q, osc_add_scaled(ray->p, ray->v, tb[b]));
        // the nearest valid root in front of the origin, else the smallest |Q|
        if ((valid && (best_t == INFINITY || tb[b] < best_t)) || (best_t == INFINITY && value < best_q)) {
            best = b;
            best_q = value;
            if (valid) best_t = tb[b];
        }
    }
    *iterations = used[best];
    return tb[best];
}

static void intersect(const query* q, const local_ray* ray, int want_normal, ray_answer* answer) {
    const osc_ray_settings* settings = q->settings;
    eval_cache cache = {0.0, 0.0, {0.0, 0.0, 0.0}, 0};
    answer->hit = 0;
    answer->iterations = 0;
    answer->normal = osc_v3(0.0, 0.0, 0.0);
    if (q->path == PATH_CONIC) {
        double root = conic_root(&q->sag, ray->p, ray->v);
        if (!isnan(root)) {
            answer->t = root;
            finish(q, ray, root, &cache, want_normal, answer);
        } else {
            double vv, chord2;
            answer->t = closest_approach(q, ray, &vv, &chord2);
        }
        return;
    }
    // an asphere starts from its base conic's closed-form root and goes through the fine and final
    // phases only; the beams remain for rays whose base conic has no root
    double start = q->path == PATH_ASPHERE ? conic_root(&q->sag, ray->p, ray->v) : NAN;
    int iterations = 0;
    double t;
    if (isnan(start)) {
        double vv, chord2, closest = closest_approach(q, ray, &vv, &chord2);
        if (!(chord2 >= 0.0)) {
            answer->t = closest;
            return;
        }
        start = run_beams(q, ray, closest, vv, chord2, &cache, &iterations);
    }
    t = run_phase(q, ray, &settings->fine, settings->fine.max_step, start, &iterations, &cache);
    t = run_phase(q, ray, &settings->final_step, settings->final_step.max_step, t, &iterations, &cache);
    answer->t = t;
    answer->iterations = iterations;
    finish(q, ray, t, &cache, want_normal, answer);
}

osc_status osc_ray_intersect(const osc_implicit* surface, const osc_implicit_transform* transform, osc_ray ray_in,
                             const osc_ray_settings* settings, osc_ray_hit* hit, const osc_ray_jacobians* jacobians) {
    osc_vec3 origin = ray_in.origin, direction = ray_in.direction;
    osc_implicit_transform identity = osc_implicit_transform_identity();
    osc_ray_settings defaults = osc_ray_settings_default();
    if (!transform) transform = &identity;
    if (!settings) settings = &defaults;
    if (!hit) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: hit is NULL");
    osc_status status = check_query(__func__, surface, transform, settings);
    if (status == OSC_OK) status = check_ray(__func__, "", origin, direction);
    if (status != OSC_OK) return status;
    if (jacobians && (jacobians->t_parameters || jacobians->point_parameters || jacobians->normal_parameters) &&
        surface->kind != IMPLICIT_SAG)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: t_parameters asked of a "
                                                  "surface that is not a sag");
    query q = make_query(surface, transform, settings);
    local_ray ray = to_local(&q, origin, direction);
    ray_answer answer;
    intersect(&q, &ray, 1, &answer);
    memset(hit, 0, sizeof *hit);
    hit->t = answer.t;
    hit->point = osc_add_scaled(origin, direction, answer.t);
    hit->normal = answer.normal;
    hit->hit = answer.hit;
    hit->iterations = answer.iterations;
    if (jacobians && hit->hit) fill_jacobians(surface, &ray, origin, direction, transform, answer.t, hit, jacobians);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// the batch's wide path: WIDE rays at once through the closed-form conic and, for an asphere, Newton
// (without a step clamp) in lock step. Each lane performs the scalar path's IEEE operations in the
// same order (add, multiply, divide and square root are correctly rounded either way), so its
// answer is the scalar one bit for bit; a lane that would leave the common case (a linear conic
// equation, no base-conic root of an asphere, the band outside the aperture, a zero slope, a
// non-finite step) is handed back whole to the scalar path. SSE2 where the compiler offers it,
// else plain lanes.

enum { WIDE = 8 };

#if defined(__SSE2__)
#include <emmintrin.h>

typedef struct wide {
    __m128d h[WIDE / 2];
} wide;
typedef wide wide_mask; // lanes of all ones or all zeros

#define WIDE_MAP2(out, a, b, op)                                                                                       \
    for (int i_ = 0; i_ < WIDE / 2; ++i_) (out).h[i_] = op((a).h[i_], (b).h[i_])

static inline wide w_set(double x) {
    wide r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_set1_pd(x);
    return r;
}
static inline wide w_load(const double* lanes) {
    wide r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_loadu_pd(lanes + 2 * i);
    return r;
}
static inline void w_store(double* lanes, wide a) {
    for (int i = 0; i < WIDE / 2; ++i) _mm_storeu_pd(lanes + 2 * i, a.h[i]);
}
static inline wide w_add(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_add_pd);
    return r;
}
static inline wide w_sub(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_sub_pd);
    return r;
}
static inline wide w_mul(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_mul_pd);
    return r;
}
static inline wide w_div(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_div_pd);
    return r;
}
static inline wide w_sqrt(wide a) {
    wide r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_sqrt_pd(a.h[i]);
    return r;
}
static inline wide_mask w_lt(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_cmplt_pd);
    return r;
}
static inline wide_mask w_le(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_cmple_pd);
    return r;
}
static inline wide_mask w_eq(wide a, wide b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_cmpeq_pd);
    return r;
}
static inline wide_mask m_and(wide_mask a, wide_mask b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_and_pd);
    return r;
}
static inline wide_mask m_or(wide_mask a, wide_mask b) {
    wide r;
    WIDE_MAP2(r, a, b, _mm_or_pd);
    return r;
}
// a and not b
static inline wide_mask m_and_not(wide_mask a, wide_mask b) {
    wide r;
    WIDE_MAP2(r, b, a, _mm_andnot_pd);
    return r;
}
static inline wide_mask m_not(wide_mask a) {
    wide r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_xor_pd(a.h[i], _mm_castsi128_pd(_mm_set1_epi32(-1)));
    return r;
}
// the lanes of a where the mask is set, of b elsewhere
static inline wide w_select(wide_mask m, wide a, wide b) {
    wide r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_or_pd(_mm_and_pd(m.h[i], a.h[i]), _mm_andnot_pd(m.h[i], b.h[i]));
    return r;
}
static inline int m_bits(wide_mask m) {
    int bits = 0;
    for (int i = 0; i < WIDE / 2; ++i) bits |= _mm_movemask_pd(m.h[i]) << (2 * i);
    return bits;
}
static inline wide w_sign_bit(void) { return w_set(-0.0); }
static inline wide w_abs(wide a) {
    wide r, sign = w_sign_bit();
    WIDE_MAP2(r, sign, a, _mm_andnot_pd);
    return r;
}
// |a| with the sign of b (copysign)
static inline wide w_copysign(wide a, wide b) {
    wide sign = w_sign_bit(), magnitude = w_abs(a), r;
    for (int i = 0; i < WIDE / 2; ++i) r.h[i] = _mm_or_pd(magnitude.h[i], _mm_and_pd(sign.h[i], b.h[i]));
    return r;
}
#else

typedef struct wide {
    double v[WIDE];
} wide;
typedef struct wide_mask {
    int m[WIDE];
} wide_mask;

#define WIDE_LANES(expression)                                                                                         \
    for (int i_ = 0; i_ < WIDE; ++i_) expression

static inline wide w_set(double x) {
    wide r;
    WIDE_LANES(r.v[i_] = x);
    return r;
}
static inline wide w_load(const double* lanes) {
    wide r;
    WIDE_LANES(r.v[i_] = lanes[i_]);
    return r;
}
static inline void w_store(double* lanes, wide a) { WIDE_LANES(lanes[i_] = a.v[i_]); }
static inline wide w_add(wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = a.v[i_] + b.v[i_]);
    return r;
}
static inline wide w_sub(wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = a.v[i_] - b.v[i_]);
    return r;
}
static inline wide w_mul(wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = a.v[i_] * b.v[i_]);
    return r;
}
static inline wide w_div(wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = a.v[i_] / b.v[i_]);
    return r;
}
static inline wide w_sqrt(wide a) {
    wide r;
    WIDE_LANES(r.v[i_] = sqrt(a.v[i_]));
    return r;
}
static inline wide_mask w_lt(wide a, wide b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.v[i_] < b.v[i_]);
    return r;
}
static inline wide_mask w_le(wide a, wide b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.v[i_] <= b.v[i_]);
    return r;
}
static inline wide_mask w_eq(wide a, wide b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.v[i_] == b.v[i_]);
    return r;
}
static inline wide_mask m_and(wide_mask a, wide_mask b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.m[i_] && b.m[i_]);
    return r;
}
static inline wide_mask m_or(wide_mask a, wide_mask b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.m[i_] || b.m[i_]);
    return r;
}
static inline wide_mask m_and_not(wide_mask a, wide_mask b) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = a.m[i_] && !b.m[i_]);
    return r;
}
static inline wide_mask m_not(wide_mask a) {
    wide_mask r;
    WIDE_LANES(r.m[i_] = !a.m[i_]);
    return r;
}
static inline wide w_select(wide_mask m, wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = m.m[i_] ? a.v[i_] : b.v[i_]);
    return r;
}
static inline int m_bits(wide_mask m) {
    int bits = 0;
    WIDE_LANES(bits |= (m.m[i_] != 0) << i_);
    return bits;
}
static inline wide w_abs(wide a) {
    wide r;
    WIDE_LANES(r.v[i_] = fabs(a.v[i_]));
    return r;
}
static inline wide w_copysign(wide a, wide b) {
    wide r;
    WIDE_LANES(r.v[i_] = copysign(a.v[i_], b.v[i_]));
    return r;
}
#endif

enum { WIDE_ALL = (1 << WIDE) - 1 };

static inline wide_mask w_gt(wide a, wide b) { return w_lt(b, a); }
static inline wide_mask w_ge(wide a, wide b) { return w_le(b, a); }
static inline wide_mask w_is_nan(wide a) { return m_not(w_eq(a, a)); }
static inline wide_mask w_is_finite(wide a) { return w_eq(w_sub(a, a), w_set(0.0)); }

typedef struct wide3 {
    wide x, y, z;
} wide3;

static inline wide w_dot(wide3 a, wide3 b) { return w_add(w_add(w_mul(a.x, b.x), w_mul(a.y, b.y)), w_mul(a.z, b.z)); }
// a + s b (osc_add_scaled)
static inline wide3 w_add_scaled(wide3 a, wide3 b, wide s) {
    wide3 r = {w_add(a.x, w_mul(s, b.x)), w_add(a.y, w_mul(s, b.y)), w_add(a.z, w_mul(s, b.z))};
    return r;
}
// m0 a.x + m1 a.y + m2 a.z: one row of a matrix product, in the order of osc_mat3_apply
static inline wide w_row(double m0, double m1, double m2, wide3 a) {
    return w_add(w_add(w_mul(w_set(m0), a.x), w_mul(w_set(m1), a.y)), w_mul(w_set(m2), a.z));
}
// R^T a (osc_mat3_apply_transpose)
static inline wide3 w_apply_transpose(const osc_mat3* m, wide3 a) {
    wide3 r = {w_row(m->m[0][0], m->m[1][0], m->m[2][0], a), w_row(m->m[0][1], m->m[1][1], m->m[2][1], a),
               w_row(m->m[0][2], m->m[1][2], m->m[2][2], a)};
    return r;
}
// R a (osc_mat3_apply)
static inline wide3 w_apply(const osc_mat3* m, wide3 a) {
    wide3 r = {w_row(m->m[0][0], m->m[0][1], m->m[0][2], a), w_row(m->m[1][0], m->m[1][1], m->m[1][2], a),
               w_row(m->m[2][0], m->m[2][1], m->m[2][2], a)};
    return r;
}

// the origins (which 0) or directions (1) of WIDE rays gathered into x, y, z
static inline wide3 w_load_rays(const osc_ray* rays, int which) {
    double x[WIDE], y[WIDE], z[WIDE];
    for (int l = 0; l < WIDE; ++l) {
        osc_vec3 v = which ? rays[l].direction : rays[l].origin;
        x[l] = v.x;
        y[l] = v.y;
        z[l] = v.z;
    }
    wide3 r = {w_load(x), w_load(y), w_load(z)};
    return r;
}

// conic_root on every lane; `linear` marks lanes whose equation is linear (left to the scalar path)
static inline wide wide_conic_root(const sag_constants* s, wide3 p, wide3 v, wide_mask* linear) {
    wide c = w_set(s->c), k1 = w_set(s->k1), two = w_set(2.0);
    wide a = w_mul(c, w_add(w_add(w_mul(w_mul(k1, v.x), v.x), w_mul(v.y, v.y)), w_mul(v.z, v.z)));
    wide b = w_sub(w_mul(w_mul(two, c), w_add(w_add(w_mul(w_mul(k1, p.x), v.x), w_mul(p.y, v.y)), w_mul(p.z, v.z))),
                   w_mul(two, v.x));
    wide c0 =
        w_sub(w_mul(c, w_add(w_add(w_mul(w_mul(k1, p.x), p.x), w_mul(p.y, p.y)), w_mul(p.z, p.z))), w_mul(two, p.x));
    *linear = w_eq(a, w_set(0.0));
    wide disc = w_sub(w_mul(b, b), w_mul(w_mul(w_set(4.0), a), c0));
    wide_mask real = m_not(w_lt(disc, w_set(0.0)));
    wide root = w_mul(w_set(-0.5), w_add(b, w_copysign(w_sqrt(disc), b)));
    wide nan = w_set(NAN);
    wide roots[2] = {w_div(root, a), w_select(m_not(w_eq(root, w_set(0.0))), w_div(c0, root), nan)};
    wide best = nan, k1c = w_set(s->k1 * s->c), half2 = w_set(s->half2), one = w_set(1.0);
    for (int i = 0; i < 2; ++i) {
        wide t = roots[i];
        wide3 x = w_add_scaled(p, v, t);
        wide_mask ok = m_and(real, m_and(w_ge(t, w_set(0.0)), w_lt(t, w_set(INFINITY))));
        ok = m_and_not(ok, w_gt(w_mul(k1c, x.x), one));
        ok = m_and_not(ok, w_gt(w_add(w_mul(x.y, x.y), w_mul(x.z, x.z)), half2));
        ok = m_and(ok, m_or(w_is_nan(best), w_lt(t, best)));
        best = w_select(ok, t, best);
    }
    return best;
}

// F and grad F . V' of a sag at P' + t V' inside the aperture; `band` marks lanes outside it
typedef struct wide_eval {
    wide value, slope, r2;
    wide3 gradient;
} wide_eval;

static inline wide_eval wide_sag_eval(const sag_constants* k, wide3 p, wide3 v, wide t) {
    wide_eval e;
    wide3 x = w_add_scaled(p, v, t);
    e.r2 = w_add(w_mul(x.y, x.y), w_mul(x.z, x.z));
    wide w = w_sub(w_set(1.0), w_mul(w_set(k->k1cc), e.r2));
    wide zero = w_set(0.0), c = w_set(k->c);
    wide s = w_sqrt(w_select(w_gt(w, zero), w, zero));
    wide g = w_div(w_mul(c, e.r2), w_add(w_set(1.0), s));
    wide u = w_select(w_gt(s, zero), w_div(c, s), w_set(INFINITY));
    wide power = w_mul(e.r2, e.r2), lower = e.r2;
    for (int i = 0; i < k->count; ++i) {
        g = w_add(g, w_mul(w_set(k->a[i]), power));
        u = w_add(u, w_mul(w_set(k->na[i]), lower));
        power = w_mul(power, e.r2);
        lower = w_mul(lower, e.r2);
    }
    e.value = w_sub(g, x.x);
    e.gradient.x = w_set(-1.0);
    e.gradient.y = w_mul(u, x.y);
    e.gradient.z = w_mul(u, x.z);
    e.slope = w_dot(e.gradient, v);
    return e;
}

// run_phase's Newton (no clamp) on the lanes in `live`; lanes it cannot follow join `fallback`
static wide wide_newton(const sag_constants* k, wide3 p, wide3 v, const osc_ray_phase* phase, wide t, wide_mask live,
                        wide_mask* fallback, wide* used) {
    wide_mask active = live;
    wide damping = w_set(-phase->damping), half2 = w_set(k->half2), zero = w_set(0.0);
    wide one = w_set(1.0), tiny = w_set(1e-15);
    for (int iteration = 0; iteration < phase->iterations; ++iteration) {
        active = m_and_not(active, *fallback);
        if (!m_bits(active)) break;
        *used = w_select(active, w_add(*used, one), *used); // run_phase's ++*used
        wide_eval e = wide_sag_eval(k, p, v, t);
        wide step = w_div(w_mul(damping, e.value), e.slope);
        wide_mask odd = m_or(m_or(w_gt(e.r2, half2), w_eq(e.slope, zero)), m_not(w_is_finite(step)));
        *fallback = m_or(*fallback, m_and(active, odd));
        wide next = w_add(t, step);
        wide_mask done = w_le(w_abs(w_sub(next, t)), w_mul(tiny, w_add(one, w_abs(t))));
        t = w_select(active, next, t);
        active = m_and_not(active, done);
    }
    return t;
}

// WIDE rays from `first` on the conic or asphere path; writes the lanes it answers (their statuses
// OSC_OK) and returns the mask of those left to the scalar path
static int wide_rays(const query* q, const osc_ray* rays, long long first, osc_ray_hit* hits, osc_status* statuses) {
    const sag_constants* k = &q->sag;
    wide3 o = w_load_rays(rays + first, 0), d = w_load_rays(rays + first, 1);
    // ray_is_valid on every lane: the scalar path reports bad rays
    wide limit = w_set(OSC_SDF_LENGTH_MAX), dd = w_dot(d, d);
    wide_mask valid =
        m_and(m_and(w_le(w_abs(o.x), limit), w_le(w_abs(o.y), limit)),
              m_and(m_and(w_le(w_abs(o.z), limit), w_ge(dd, w_set(DIRECTION_MIN2))), w_le(dd, w_set(DIRECTION_MAX2))));
    if (m_bits(valid) != WIDE_ALL) return WIDE_ALL;
    const osc_implicit_transform* tf = q->transform;
    wide inverse_scale = w_set(q->inverse_scale);
    wide3 shifted = {w_sub(o.x, w_set(tf->translation.x)), w_sub(o.y, w_set(tf->translation.y)),
                     w_sub(o.z, w_set(tf->translation.z))};
    wide3 local = w_apply_transpose(&q->rotation, shifted);
    wide3 p = {w_add(w_mul(local.x, inverse_scale), w_set(tf->anchor.x)),
               w_add(w_mul(local.y, inverse_scale), w_set(tf->anchor.y)),
               w_add(w_mul(local.z, inverse_scale), w_set(tf->anchor.z))};
    local = w_apply_transpose(&q->rotation, d);
    wide3 v = {w_mul(local.x, inverse_scale), w_mul(local.y, inverse_scale), w_mul(local.z, inverse_scale)};
    wide_mask fallback;
    wide used = w_set(0.0);
    wide t = wide_conic_root(k, p, v, &fallback);
    wide_mask rooted = m_not(w_is_nan(t));
    if (q->path == PATH_CONIC) {
        // no root: the closest approach to the bounding sphere's centre (closest_approach)
        wide3 centre = {w_set(q->centre.x), w_set(q->centre.y), w_set(q->centre.z)};
        wide3 to_centre = {w_sub(centre.x, p.x), w_sub(centre.y, p.y), w_sub(centre.z, p.z)};
        t = w_select(rooted, t, w_div(w_dot(to_centre, v), w_dot(v, v)));
    } else {
        fallback = m_or(fallback, m_not(rooted)); // the beams
        t = wide_newton(k, p, v, &q->settings->fine, t, m_not(fallback), &fallback, &used);
        t = wide_newton(k, p, v, &q->settings->final_step, t, m_not(fallback), &fallback, &used);
    }
    // finish: the hit test and the normal
    wide_eval e = wide_sag_eval(k, p, v, t);
    wide_mask checked = q->path == PATH_CONIC ? rooted : m_not(fallback);
    fallback = m_or(fallback, m_and(checked, w_gt(e.r2, w_set(k->half2))));
    wide_mask hit = m_and(m_and(checked, w_le(w_abs(e.value), w_set(q->tolerance))),
                          m_and(w_le(e.r2, w_set(k->domain2)), w_ge(t, w_set(0.0))));
    double lanes[WIDE], counts[WIDE];
    w_store(lanes, t);
    w_store(counts, used);
    int hit_bits = m_bits(hit), fallback_bits = m_bits(fallback);
    // osc_normalize(R grad F), zero where the ray is not checked
    wide3 n = w_apply(&q->rotation, e.gradient);
    wide length = w_sqrt(w_dot(n, n));
    wide_mask usable = m_and(checked, m_and(w_gt(length, w_set(0.0)), w_is_finite(length)));
    wide inverse = w_div(w_set(1.0), length), zero = w_set(0.0);
    double nx[WIDE], ny[WIDE], nz[WIDE];
    w_store(nx, w_select(usable, w_mul(n.x, inverse), zero));
    w_store(ny, w_select(usable, w_mul(n.y, inverse), zero));
    w_store(nz, w_select(usable, w_mul(n.z, inverse), zero));
    for (int l = 0; l < WIDE; ++l) {
        if (fallback_bits >> l & 1) continue;
        long long i = first + l;
        osc_ray_hit* h = &hits[i];
        memset(h, 0, sizeof *h);
        h->t = lanes[l];
        h->point = osc_add_scaled(rays[i].origin, rays[i].direction, lanes[l]);
        h->normal = osc_v3(nx[l], ny[l], nz[l]);
        h->hit = hit_bits >> l & 1;
        h->iterations = (int)counts[l];
        if (statuses) statuses[i] = OSC_OK;
    }
    return fallback_bits;
}

// one ray of a batch on the scalar path: osc_ray_intersect without Jacobians; a bad ray gets t NaN,
// the rest zero, and status OSC_ERR_INVALID_ARGUMENT (its message comes at the end of the batch)
static int batch_one(const query* q, const osc_ray* rays, long long i, osc_ray_hit* hits, osc_status* statuses) {
    osc_vec3 o = rays[i].origin, d = rays[i].direction;
    osc_ray_hit* h = &hits[i];
    memset(h, 0, sizeof *h);
    int good = ray_is_valid(o, d);
    if (statuses) statuses[i] = good ? OSC_OK : OSC_ERR_INVALID_ARGUMENT;
    if (!good) {
        h->t = NAN;
        return 0;
    }
    local_ray ray = to_local(q, o, d);
    ray_answer answer;
    intersect(q, &ray, 1, &answer);
    h->t = answer.t;
    h->point = osc_add_scaled(o, d, answer.t);
    h->normal = answer.normal;
    h->hit = answer.hit;
    h->iterations = answer.iterations;
    return 1;
}

static int newton_without_clamp(const osc_ray_phase* phase) {
    return phase->algorithm == OSC_RAY_NEWTON && !(phase->max_step > 0.0);
}

// a batch, run by osc_batch_run in units: units [0, groups) are groups of WIDE rays on the wide
// path, the others single rays on the scalar path
typedef struct ray_batch {
    const query* q;
    const osc_ray* rays;
    osc_ray_hit* hits;
    osc_status* statuses;
    long long groups;
    atomic_llong first_bad; // the lowest ray with a bad origin or direction, or the count
} ray_batch;

enum { UNITS_PER_THREAD = 64 }; // a team only where each thread has at least this many units

// lowers batch->first_bad to `ray`
static void note_bad_ray(ray_batch* batch, long long ray) {
    long long seen = atomic_load_explicit(&batch->first_bad, memory_order_relaxed);
    while (ray < seen && !atomic_compare_exchange_weak_explicit(&batch->first_bad, &seen, ray, memory_order_relaxed,
                                                                memory_order_relaxed)) {}
}

static osc_status ray_unit(void* context, size_t index) {
    ray_batch* batch = context;
    long long unit = (long long)index, groups = batch->groups;
    long long first = unit < groups ? unit * WIDE : groups * WIDE + (unit - groups);
    int scalar = unit < groups ? wide_rays(batch->q, batch->rays, first, batch->hits, batch->statuses) : 1;
    for (int l = 0; scalar >> l; ++l)
        if (scalar >> l & 1 && !batch_one(batch->q, batch->rays, first + l, batch->hits, batch->statuses))
            note_bad_ray(batch, first + l);
    return OSC_OK;
}

osc_status osc_ray_intersect_batch(const osc_implicit* surface, const osc_implicit_transform* transform,
                                   const osc_ray* rays, size_t count, const osc_ray_settings* settings,
                                   osc_ray_hit* hits, osc_status* statuses, int threads) {
    osc_implicit_transform identity = osc_implicit_transform_identity();
    osc_ray_settings defaults = osc_ray_settings_default();
    if (!transform) transform = &identity;
    if (!settings) settings = &defaults;
    if (threads < 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads is %d; it must be >= 0", __func__, threads);
    if (count > 0 && (!rays || !hits))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count %zu", __func__, rays ? "hits" : "rays",
                        count);
    if (count > (size_t)LLONG_MAX / (sizeof(osc_ray) + sizeof(osc_ray_hit)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %zu is too large", __func__, count);
    if (count == 0) return OSC_OK;
    osc_status status = check_query(__func__, surface, transform, settings);
    if (status != OSC_OK) return status;
    const query q = make_query(surface, transform, settings);
    // groups of WIDE rays go through the wide path where it applies, the rest one by one
    int wide_path = q.path == PATH_CONIC || (q.path == PATH_ASPHERE && newton_without_clamp(&settings->fine) &&
                                             newton_without_clamp(&settings->final_step));
    long long n = (long long)count, groups = wide_path ? n / WIDE : 0;
    ray_batch batch = {&q, rays, hits, statuses, groups, n};
    status = osc_batch_run("osc_ray_intersect_batch", "ray unit", (size_t)(groups + (n - groups * WIDE)), threads,
                           UNITS_PER_THREAD, ray_unit, &batch, NULL);
    if (status != OSC_OK) return status;
    long long bad = atomic_load(&batch.first_bad);
    if (bad < n) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "rays[%lld] (its t is NaN): ", bad);
        return check_ray(__func__, prefix, rays[bad].origin, rays[bad].direction);
    }
    return OSC_OK;
}
