// ray.c: rays against implicit surfaces (seed 004): transform into the surface frame, beams, the
// coarse / fine / final phases, the hit test, and implicit-function derivatives (docs/ray.md).

#include "implicit_internal.h"
#include "osculate/ray.h"

#include "base_internal.h"

#include <string.h>

enum { MAX_BEAMS = 16 };

osc_implicit_transform osc_implicit_transform_identity(void) {
    osc_implicit_transform t = {osc_v3(0, 0, 0), 1.0, osc_quat_identity(), osc_v3(0, 0, 0)};
    return t;
}

osc_ray_settings osc_ray_settings_default(void) {
    osc_ray_settings s;
    memset(&s, 0, sizeof s);
    s.init = OSC_RAY_INIT_BOUNDING_SPHERE;
    s.beams = 4;
    s.coarse = (osc_ray_phase){OSC_RAY_NEWTON, 6, 1.0, -1.0}; // -1: half the bounding radius
    s.fine = (osc_ray_phase){OSC_RAY_NEWTON, 20, 1.0, 0.0};
    s.final_step = (osc_ray_phase){OSC_RAY_NEWTON, 1, 1.0, 0.0};
    s.tolerance = 1e-10;
    s.analytic_conics = 1;
    return s;
}

// the ray in the surface frame
typedef struct local_ray {
    osc_vec3 p, v;
    osc_mat3 rotation; // world-from-surface R
    double scale;
} local_ray;

static double q_eval(const osc_implicit* s, const local_ray* ray, double t, double* slope) {
    osc_vec3 g;
    double value = osc_implicit_eval(s, osc_add_scaled(ray->p, ray->v, t), &g, NULL);
    *slope = osc_dot(g, ray->v);
    return value;
}

// one update of `phase`'s algorithm from t (Q and Q' there)
static double update(const osc_ray_phase* phase, double max_step, double t, double q, double dq,
                     double speed) {
    double step = 0.0;
    switch (phase->algorithm) {
    case OSC_RAY_NEWTON:
        step = dq != 0.0 ? -phase->damping * q / dq : 0.0;
        if (max_step > 0.0 && fabs(step) > max_step) step = copysign(max_step, step);
        break;
    case OSC_RAY_GRADIENT_DESCENT:
        step = -phase->damping * dq * q;
        break;
    case OSC_RAY_LEVENBERG_MARQUARDT:
        step = dq * dq + phase->damping > 0.0 ? -dq * q / (dq * dq + phase->damping) : 0.0;
        break;
    case OSC_RAY_SPHERE_TRACING:
        step = q / speed;
        break;
    }
    return isfinite(step) ? t + step : t;
}

static double run_phase(const osc_implicit* s, const local_ray* ray, const osc_ray_phase* phase,
                        double max_step, double t, int* used) {
    double speed = osc_length(ray->v);
    for (int k = 0; k < phase->iterations; ++k) {
        double dq, q = q_eval(s, ray, t, &dq);
        double next = update(phase, max_step, t, q, dq, speed);
        ++*used;
        // converged to rounding: further iterations would not move t
        bool done = fabs(next - t) <= 1e-15 * (1.0 + fabs(t));
        t = next;
        if (done) break;
    }
    return t;
}

static osc_status check_phase(const char* name, const osc_ray_phase* p) {
    if ((int)p->algorithm < 0 || (int)p->algorithm > OSC_RAY_SPHERE_TRACING || p->iterations < 0 ||
        p->iterations > 10000 || !isfinite(p->damping) || p->damping < 0.0 || !isfinite(p->max_step))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: settings.%s is out of range "
                        "(algorithm %d, iterations %d, damping %g)", name, (int)p->algorithm,
                        p->iterations, p->damping);
    return OSC_OK;
}

static osc_status check(const osc_implicit* surface, const osc_implicit_transform* transform,
                        osc_vec3 origin, osc_vec3 direction, const osc_ray_settings* settings) {
    if (!surface) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: surface is NULL");
    if (!osc_vec3_is_finite(origin) || !osc_vec3_is_finite(direction) ||
        !(osc_length_squared(direction) > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: the origin or direction is not "
                        "finite, or the direction is zero");
    if (!(transform->scale > 0.0) || !isfinite(transform->scale) ||
        !osc_vec3_is_finite(transform->anchor) || !osc_vec3_is_finite(transform->translation) ||
        !osc_quat_is_normalizable(transform->rotation))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: the transform is not finite, "
                        "its scale (%g) not positive or its rotation not normalisable", transform->scale);
    if (settings->beams < 1 || settings->beams > MAX_BEAMS || (int)settings->init < 0 ||
        (int)settings->init > OSC_RAY_INIT_BOUNDING_SPHERE || !(settings->tolerance > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: settings.beams (%d), init or "
                        "tolerance (%g) is out of range", settings->beams, settings->tolerance);
    osc_status status = check_phase("coarse", &settings->coarse);
    if (status == OSC_OK) status = check_phase("fine", &settings->fine);
    if (status == OSC_OK) status = check_phase("final_step", &settings->final_step);
    return status;
}

// ---------------------------------------------------------------------------------------------
// derivatives at the root (docs/ray.md §3): with n = grad F (surface frame), q = n . V',
// M = R^T / s (world to surface for vectors): dt/dP = -M^T n / q, dt/dV = t dt/dP

static void fill_jacobians(const osc_implicit* s, const local_ray* ray, osc_vec3 origin,
                           osc_vec3 direction, const osc_implicit_transform* transform, double t,
                           osc_ray_hit* hit, const osc_ray_jacobians* jac) {
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
                osc_vec3 dx = osc_add_scaled(
                    osc_scale(osc_mat3_apply_transpose(ray->rotation, e), base / ray->scale), ray->v,
                    osc_vec3_get(row_vector, j));
                osc_vec3 dn = osc_mat3_apply(ray->rotation, osc_mat3_apply(h, dx));
                osc_vec3 dN = hit->grazing ? osc_v3(0, 0, 0)
                                           : osc_scale(osc_add_scaled(dn, normal, -osc_dot(normal, dn)),
                                                       1.0 / scale_n);
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
    if (s->kind == IMPLICIT_SAG &&
        (jac->t_parameters || jac->point_parameters || jac->normal_parameters)) {
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
                osc_vec3 dn = osc_add(osc_mat3_apply(h, osc_scale(ray->v, dt)),
                                      osc_v3(gradient_of_gradient[i][0], gradient_of_gradient[i][1],
                                             gradient_of_gradient[i][2]));
                osc_vec3 dN = osc_mat3_apply(ray->rotation, dn);
                dN = hit->grazing ? osc_v3(0, 0, 0)
                                  : osc_scale(osc_add_scaled(dN, hit->normal, -osc_dot(hit->normal, dN)),
                                              1.0 / scale_n);
                jac->normal_parameters[i] = dN.x;
                jac->normal_parameters[count + i] = dN.y;
                jac->normal_parameters[2 * count + i] = dN.z;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the query

// a conic sag in closed form: along X' = P' + t V', c (1 + k) x^2 - 2 x + c r^2 = 0 (the sag's
// equation times c, so c = 0 is the plane x = 0); the smallest root t >= 0 on the vertex branch
// ((1 + k) c x <= 1) within the aperture, or NAN
static double conic_root(const osc_implicit* s, const local_ray* ray) {
    double c = s->sag.curvature, k1 = 1.0 + s->sag.conic;
    osc_vec3 p = ray->p, v = ray->v;
    double a = c * (k1 * v.x * v.x + v.y * v.y + v.z * v.z);
    double b = 2.0 * c * (k1 * p.x * v.x + p.y * v.y + p.z * v.z) - 2.0 * v.x;
    double c0 = c * (k1 * p.x * p.x + p.y * p.y + p.z * p.z) - 2.0 * p.x;
    double roots[2] = {NAN, NAN};
    double scale = fabs(b) + fabs(a) * fabs(c0) + 1e-300;
    if (fabs(a) <= 1e-15 * scale) {
        if (b != 0.0) roots[0] = -c0 / b;
    } else {
        double disc = b * b - 4.0 * a * c0;
        if (disc < 0.0) return NAN;
        double q = -0.5 * (b + copysign(sqrt(disc), b));
        roots[0] = q / a;
        roots[1] = q != 0.0 ? c0 / q : NAN;
    }
    double best = NAN, half = s->half_aperture;
    for (int i = 0; i < 2; ++i) {
        double t = roots[i];
        if (!(t >= 0.0)) continue;
        osc_vec3 x = osc_add_scaled(p, v, t);
        if (k1 * c * x.x > 1.0 || x.y * x.y + x.z * x.z > half * half) continue;
        if (isnan(best) || t < best) best = t;
    }
    return best;
}


// the transform's rotation and inverse scale, formed once per call (or batch)
typedef struct placement {
    osc_mat3 rotation; // world-from-surface R
    double inverse_scale;
} placement;

static placement place(const osc_implicit_transform* transform) {
    placement pl = {osc_quat_to_mat3(osc_quat_normalize(transform->rotation)), 1.0 / transform->scale};
    return pl;
}

// the hit test and normal at the final t: |F| <= tolerance, in the domain, in front of the origin
static void finish(const osc_implicit* s, const local_ray* ray, double t, double tolerance,
                   osc_ray_hit* hit) {
    osc_vec3 x = osc_add_scaled(ray->p, ray->v, t), g;
    double value = osc_implicit_eval(s, x, &g, NULL);
    hit->hit = fabs(value) <= tolerance && osc_implicit_in_domain(s, x) && t >= 0.0;
    hit->normal = osc_normalize(osc_mat3_apply(ray->rotation, g));
}

static void intersect(const osc_implicit* s, const osc_implicit_transform* transform,
                      const placement* pl, osc_vec3 origin, osc_vec3 direction,
                      const osc_ray_settings* settings, osc_ray_hit* hit,
                      const osc_ray_jacobians* jacobians) {
    local_ray ray;
    ray.rotation = pl->rotation;
    ray.scale = transform->scale;
    ray.p = osc_add(osc_scale(osc_mat3_apply_transpose(pl->rotation, osc_sub(origin, transform->translation)),
                              pl->inverse_scale),
                    transform->anchor);
    ray.v = osc_scale(osc_mat3_apply_transpose(pl->rotation, direction), pl->inverse_scale);
    osc_vec3 centre;
    double radius;
    osc_implicit_bounding_sphere(s, &centre, &radius);
    double vv = osc_dot(ray.v, ray.v);
    double closest = osc_dot(osc_sub(centre, ray.p), ray.v) / vv; // to the bounding sphere's centre
    osc_vec3 off = osc_sub(osc_add_scaled(ray.p, ray.v, closest), centre);
    double chord2 = (radius * radius - osc_dot(off, off)) / vv;
    memset(hit, 0, sizeof *hit);
    double t = closest;
    // an asphere starts from its base conic's closed-form root and goes through the fine and final
    // phases only; the beams remain for rays whose base conic has no root
    double conic_start = settings->analytic_conics && s->kind == IMPLICIT_SAG &&
                                 s->sag.coefficient_count > 0
                             ? conic_root(s, &ray)
                             : NAN;
    if (!isnan(conic_start)) {
        int iterations = 0;
        t = run_phase(s, &ray, &settings->fine, settings->fine.max_step, conic_start, &iterations);
        t = run_phase(s, &ray, &settings->final_step, settings->final_step.max_step, t, &iterations);
        hit->iterations = iterations;
        finish(s, &ray, t, settings->tolerance * radius, hit);
    } else if (settings->analytic_conics && s->kind == IMPLICIT_SAG && s->sag.coefficient_count == 0) {
        double root = conic_root(s, &ray);
        if (!isnan(root)) {
            t = root;
            finish(s, &ray, t, settings->tolerance * radius, hit);
        }
    } else if (chord2 >= 0.0) {
        // beams over the chord (or from the chosen start), then the phases
        double half_chord = sqrt(chord2), tb[MAX_BEAMS];
        int beams = settings->beams;
        for (int b = 0; b < beams; ++b) {
            if (settings->init == OSC_RAY_INIT_ZERO)
                tb[b] = 0.0;
            else if (settings->init == OSC_RAY_INIT_CLOSEST)
                tb[b] = -osc_dot(ray.p, ray.v) / vv;
            else
                tb[b] = closest - half_chord + 2.0 * half_chord * (b + 0.5) / beams;
        }
        double max_step = settings->coarse.max_step < 0.0 ? 0.5 * radius / sqrt(vv)
                                                          : settings->coarse.max_step;
        int used[MAX_BEAMS] = {0}, best = 0; // stays 0 when every beam's |Q| is NaN
        double best_q = INFINITY, best_t = INFINITY;
        double tolerance = settings->tolerance * radius;
        for (int b = 0; b < beams; ++b) {
            tb[b] = run_phase(s, &ray, &settings->coarse, max_step, tb[b], &used[b]);
            double dq, q = fabs(q_eval(s, &ray, tb[b], &dq));
            bool valid = q <= 1e3 * tolerance && tb[b] >= 0.0 &&
                         osc_implicit_in_domain(s, osc_add_scaled(ray.p, ray.v, tb[b]));
            // the nearest valid root in front of the origin, else the smallest |Q|
            if ((valid && (best_t == INFINITY || tb[b] < best_t)) || (best_t == INFINITY && q < best_q)) {
                best = b;
                best_q = q;
                if (valid) best_t = tb[b];
            }
        }
        t = tb[best];
        int iterations = used[best];
        t = run_phase(s, &ray, &settings->fine, settings->fine.max_step, t, &iterations);
        t = run_phase(s, &ray, &settings->final_step, settings->final_step.max_step, t, &iterations);
        hit->iterations = iterations;
        finish(s, &ray, t, tolerance, hit);
    }
    hit->t = t;
    hit->point = osc_add_scaled(origin, direction, t);
    if (jacobians && hit->hit)
        fill_jacobians(s, &ray, origin, direction, transform, t, hit, jacobians);
}

osc_status osc_ray_intersect(const osc_implicit* surface, const osc_implicit_transform* transform,
                             osc_vec3 origin, osc_vec3 direction, const osc_ray_settings* settings,
                             osc_ray_hit* hit, const osc_ray_jacobians* jacobians) {
    osc_implicit_transform identity = osc_implicit_transform_identity();
    osc_ray_settings defaults = osc_ray_settings_default();
    if (!transform) transform = &identity;
    if (!settings) settings = &defaults;
    if (!hit) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: hit is NULL");
    osc_status status = check(surface, transform, origin, direction, settings);
    if (status != OSC_OK) return status;
    if (jacobians && (jacobians->t_parameters || jacobians->point_parameters ||
                      jacobians->normal_parameters) && surface->kind != IMPLICIT_SAG)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect: t_parameters asked of a "
                        "surface that is not a sag");
    placement pl = place(transform);
    intersect(surface, transform, &pl, origin, direction, settings, hit, jacobians);
    return OSC_OK;
}

osc_status osc_ray_intersect_batch(const osc_implicit* surface,
                                   const osc_implicit_transform* transform, size_t count,
                                   const double* origins, const double* directions,
                                   const osc_ray_settings* settings, double* t, double* points,
                                   double* normals, unsigned char* hits, int threads) {
    osc_implicit_transform identity = osc_implicit_transform_identity();
    osc_ray_settings defaults = osc_ray_settings_default();
    if (!transform) transform = &identity;
    if (!settings) settings = &defaults;
    osc_status status = osc_check_batch("osc_ray_intersect_batch", origins, t, "t", count, threads);
    if (status != OSC_OK) return status;
    if (count > 0 && !directions)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect_batch: directions is NULL");
    if (count > 0) {
        status = check(surface, transform, osc_v3(origins[0], origins[1], origins[2]),
                       osc_v3(directions[0], directions[1], directions[2]), settings);
        if (status != OSC_OK) return status;
    }
    long long n = (long long)count, bad = -1;
    placement pl = place(transform);
#ifdef OSC_HAVE_OPENMP
#pragma omp parallel for schedule(static, 1024) num_threads(osc_thread_count(threads))
#endif
    for (long long i = 0; i < n; ++i) {
        osc_vec3 o = osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]);
        osc_vec3 d = osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]);
        osc_ray_hit h;
        if (!osc_vec3_is_finite(o) || !osc_vec3_is_finite(d) || !(osc_length_squared(d) > 0.0)) {
            memset(&h, 0, sizeof h);
            h.t = NAN;
#ifdef OSC_HAVE_OPENMP
#pragma omp critical(osc_ray_batch_bad)
#endif
            if (bad < 0 || i < bad) bad = i;
        } else {
            intersect(surface, transform, &pl, o, d, settings, &h, NULL);
        }
        t[i] = h.t;
        if (points) memcpy(points + 3 * i, &h.point, sizeof(double) * 3);
        if (normals) memcpy(normals + 3 * i, &h.normal, sizeof(double) * 3);
        if (hits) hits[i] = (unsigned char)h.hit;
    }
    if (bad >= 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_ray_intersect_batch: ray %lld has a non-finite "
                        "origin or direction, or a zero direction (its t is NaN)", bad);
    return OSC_OK;
}
