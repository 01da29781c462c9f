// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_surface.c: the geometry kernel of the B-Rep module: canonical surfaces and curves (the
// parametrisations of brep.h) with first and second derivatives, outward normals, closed-form
// orthogonal projections, frames moved by poses.

#include <math.h>
#include <string.h>

#include "brep_internal.h"
#include "osculate/math.h"

double osc_wrap_angle(double value, double lo) {
    double w = fmod(value - lo, k_two_pi);
    if (w < 0.0) w += k_two_pi;
    if (w >= k_two_pi) w = 0.0;
    return lo + w;
}

static osc_vec3 ring(const osc_geo* g, double u) { return osc_add(osc_scale(g->x, cos(u)), osc_scale(g->y, sin(u))); }

static osc_vec3 ring_tangent(const osc_geo* g, double u) {
    return osc_add(osc_scale(g->x, -sin(u)), osc_scale(g->y, cos(u)));
}

// A vector of a B-spline's body coordinates in the geo's frame.
static osc_vec3 frame_vector(const osc_geo* g, osc_vec3 v) {
    return osc_add(osc_add(osc_scale(g->x, v.x), osc_scale(g->y, v.y)), osc_scale(g->z, v.z));
}

static osc_vec3 frame_point(const osc_geo* g, osc_vec3 v) { return osc_add(g->o, frame_vector(g, v)); }

// The inverse of frame_point.
static osc_vec3 frame_local(const osc_geo* g, osc_vec3 x) {
    osc_vec3 d = osc_sub(x, g->o);
    return osc_v3(osc_dot(d, g->x), osc_dot(d, g->y), osc_dot(d, g->z));
}

static void nurbs_eval(const osc_geo* g, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2) {
    osc_vec3 e1[2], e2[3];
    osc_nurbs_eval(g->nurbs, t, p, d1 ? e1 : NULL, d2 ? e2 : NULL);
    *p = frame_point(g, *p);
    for (int i = 0; d1 && i < g->dim; i++) d1[i] = frame_vector(g, e1[i]);
    for (int i = 0; d2 && i < (g->dim == 2 ? 3 : 1); i++) d2[i] = frame_vector(g, e2[i]);
}

void osc_geo_eval(const osc_geo* g, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2) {
    const osc_vec3 zero = osc_v3(0, 0, 0);
    switch (g->kind) {
        case OSC_GEO_NURBS_CURVE:
        case OSC_GEO_NURBS_SURFACE: nurbs_eval(g, t, p, d1, d2); return;
        case OSC_GEO_POINT: *p = g->o; return;
        case OSC_GEO_LINE:
            *p = osc_add_scaled(g->o, g->z, t[0]);
            if (d1) d1[0] = g->z;
            if (d2) d2[0] = zero;
            return;
        case OSC_GEO_CIRCLE: {
            osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
            *p = osc_add_scaled(g->o, e, g->R);
            if (d1) d1[0] = osc_scale(f, g->R);
            if (d2) d2[0] = osc_scale(e, -g->R);
            return;
        }
        case OSC_GEO_PLANE:
            *p = osc_add(g->o, osc_add(osc_scale(g->x, t[0]), osc_scale(g->y, t[1])));
            if (d1) {
                d1[0] = g->x;
                d1[1] = g->y;
            }
            if (d2) {
                d2[0] = zero;
                d2[1] = zero;
                d2[2] = zero;
            }
            return;
        case OSC_GEO_CYLINDER: {
            osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
            *p = osc_add(g->o, osc_add(osc_scale(e, g->R), osc_scale(g->z, t[1])));
            if (d1) {
                d1[0] = osc_scale(f, g->R);
                d1[1] = g->z;
            }
            if (d2) {
                d2[0] = osc_scale(e, -g->R);
                d2[1] = zero;
                d2[2] = zero;
            }
            return;
        }
        case OSC_GEO_CONE: {
            osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
            double sa = sin(g->a), ca = cos(g->a), rho = g->R + t[1] * sa;
            *p = osc_add(g->o, osc_add(osc_scale(e, rho), osc_scale(g->z, t[1] * ca)));
            if (d1) {
                d1[0] = osc_scale(f, rho);
                d1[1] = osc_add(osc_scale(e, sa), osc_scale(g->z, ca));
            }
            if (d2) {
                d2[0] = osc_scale(e, -rho);
                d2[1] = osc_scale(f, sa);
                d2[2] = zero;
            }
            return;
        }
        case OSC_GEO_SPHERE: {
            osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
            double cv = cos(t[1]), sv = sin(t[1]);
            *p = osc_add(g->o, osc_add(osc_scale(e, g->R * cv), osc_scale(g->z, g->R * sv)));
            if (d1) {
                d1[0] = osc_scale(f, g->R * cv);
                d1[1] = osc_add(osc_scale(e, -g->R * sv), osc_scale(g->z, g->R * cv));
            }
            if (d2) {
                d2[0] = osc_scale(e, -g->R * cv);
                d2[1] = osc_scale(f, -g->R * sv);
                d2[2] = osc_add(osc_scale(e, -g->R * cv), osc_scale(g->z, -g->R * sv));
            }
            return;
        }
        case OSC_GEO_TORUS: {
            osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
            double cv = cos(t[1]), sv = sin(t[1]), rho = g->R + g->r * cv;
            *p = osc_add(g->o, osc_add(osc_scale(e, rho), osc_scale(g->z, g->r * sv)));
            if (d1) {
                d1[0] = osc_scale(f, rho);
                d1[1] = osc_add(osc_scale(e, -g->r * sv), osc_scale(g->z, g->r * cv));
            }
            if (d2) {
                d2[0] = osc_scale(e, -rho);
                d2[1] = osc_scale(f, -g->r * sv);
                d2[2] = osc_add(osc_scale(e, -g->r * cv), osc_scale(g->z, -g->r * sv));
            }
            return;
        }
    }
}

osc_vec3 osc_geo_normal(const osc_geo* g, double u, double v) {
    osc_vec3 n;
    switch (g->kind) {
        case OSC_GEO_PLANE: n = g->z; break;
        case OSC_GEO_CYLINDER: n = ring(g, u); break;
        case OSC_GEO_CONE: n = osc_add(osc_scale(ring(g, u), cos(g->a)), osc_scale(g->z, -sin(g->a))); break;
        case OSC_GEO_SPHERE:
        case OSC_GEO_TORUS: n = osc_add(osc_scale(ring(g, u), cos(v)), osc_scale(g->z, sin(v))); break;
        case OSC_GEO_NURBS_SURFACE: n = frame_vector(g, osc_nurbs_normal(g->nurbs, u, v)); break;
        default: n = g->z; break;
    }
    return osc_scale(n, g->sense);
}

osc_geo osc_geo_from_nurbs(const osc_nurbs* n, int sense) {
    osc_geo g;
    memset(&g, 0, sizeof g);
    g.kind = n->dim == 2 ? OSC_GEO_NURBS_SURFACE : OSC_GEO_NURBS_CURVE;
    g.dim = n->dim;
    g.x = osc_v3(1, 0, 0);
    g.y = osc_v3(0, 1, 0);
    g.z = osc_v3(0, 0, 1);
    g.sense = sense >= 0 ? 1.0 : -1.0;
    g.nurbs = n;
    return g;
}

osc_geo osc_geo_from_surface(const osc_brep_surface* s) {
    osc_geo g;
    memset(&g, 0, sizeof g);
    static const osc_geo_kind kinds[] = {OSC_GEO_PLANE, OSC_GEO_CYLINDER, OSC_GEO_CONE, OSC_GEO_SPHERE, OSC_GEO_TORUS};
    g.kind = s->type <= OSC_SURFACE_TORUS ? kinds[s->type] : OSC_GEO_PLANE; // (B-splines: osc_geo_from_nurbs)
    g.dim = 2;
    g.o = s->origin;
    g.z = s->axis;
    g.x = s->ref;
    g.y = osc_cross(s->axis, s->ref);
    g.R = s->radius;
    g.r = s->radius2;
    g.a = s->angle;
    g.sense = s->sense >= 0 ? 1.0 : -1.0;
    g.branch = 0;
    return g;
}

osc_geo osc_geo_from_edge(const osc_brep_edge* e) {
    osc_geo g;
    memset(&g, 0, sizeof g);
    g.kind = e->type == OSC_CURVE_LINE ? OSC_GEO_LINE : OSC_GEO_CIRCLE;
    g.dim = 1;
    g.o = e->origin;
    g.z = e->axis;
    if (e->type == OSC_CURVE_CIRCLE) {
        g.x = e->ref;
        g.y = osc_cross(e->axis, e->ref);
    } else {
        // any frame completing the direction (only z is used)
        osc_vec3 t = fabs(e->axis.x) < 0.9 ? osc_v3(1, 0, 0) : osc_v3(0, 1, 0);
        g.x = osc_normalize(osc_cross(t, e->axis));
        g.y = osc_cross(e->axis, g.x);
    }
    g.R = e->radius;
    g.r = 0.0;
    g.a = 0.0;
    g.sense = 1.0;
    g.branch = 0;
    return g;
}

osc_geo osc_geo_transform(const osc_geo* g, osc_pose pose) {
    osc_geo w = *g;
    w.o = osc_pose_apply(pose, g->o);
    w.x = osc_quat_rotate(pose.q, g->x);
    w.y = osc_quat_rotate(pose.q, g->y);
    w.z = osc_quat_rotate(pose.q, g->z);
    return w;
}

int osc_geo_project(const osc_geo* g, osc_vec3 x, double* t) {
    osc_vec3 d = osc_sub(x, g->o);
    double lx = osc_dot(d, g->x), ly = osc_dot(d, g->y), lz = osc_dot(d, g->z);
    double rho = sqrt(lx * lx + ly * ly);
    double u = atan2(ly, lx);
    switch (g->kind) {
        case OSC_GEO_NURBS_CURVE:
        case OSC_GEO_NURBS_SURFACE: return osc_nurbs_project(g->nurbs, frame_local(g, x), NULL, t);
        case OSC_GEO_POINT: return 1;
        case OSC_GEO_LINE: t[0] = lz; return 1;
        case OSC_GEO_CIRCLE: t[0] = u; return rho > 0.0;
        case OSC_GEO_PLANE:
            t[0] = lx;
            t[1] = ly;
            return 1;
        case OSC_GEO_CYLINDER:
            t[0] = u;
            t[1] = lz;
            return rho > 0.0;
        case OSC_GEO_CONE:
            // the generatrix in the half-plane of x: (R, 0) + v (sin a, cos a)
            t[0] = u;
            t[1] = (rho - g->R) * sin(g->a) + lz * cos(g->a);
            return rho > 0.0;
        case OSC_GEO_SPHERE:
            t[0] = u;
            t[1] = atan2(lz, rho);
            return rho > 0.0 || lz != 0.0;
        case OSC_GEO_TORUS: {
            // the tube circle of the half-plane of x (centre rho = R) or of the opposite one (centre
            // rho = -R, where R + r cos v < 0, a spindle torus's inner branch): the face's, or the nearer
            int far = g->branch < 0 ||
                      (g->branch == 0 && fabs(hypot(rho + g->R, lz) - g->r) < fabs(hypot(rho - g->R, lz) - g->r));
            t[0] = far ? atan2(-ly, -lx) : u;
            t[1] = far ? atan2(lz, -rho - g->R) : atan2(lz, rho - g->R);
            return rho > 0.0 && (far || rho != g->R || lz != 0.0);
        }
    }
    return 0;
}

// H = (P - c a a^T - b f f^T) / L with P the identity less n n^T (or less z z^T and e e^T); see
// docs/lmd.md for the derivation per surface.
static void outer_add(double h[3][3], osc_vec3 a, double c) {
    const double v[3] = {a.x, a.y, a.z};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) h[i][j] += c * v[i] * v[j];
}

int osc_geo_distance(const osc_geo* g, osc_vec3 x, double* sd, osc_vec3* grad, double hess[3][3]) {
    osc_vec3 w = osc_sub(x, g->o);
    double lz = osc_dot(w, g->z);
    osc_vec3 radial = osc_sub(w, osc_scale(g->z, lz));
    double rho = osc_length(radial);
    memset(hess, 0, 9 * sizeof(double));
    const double tiny = 1e-12 * (g->R + g->r + rho + fabs(lz));
    switch (g->kind) {
        case OSC_GEO_PLANE:
            *sd = lz;
            *grad = g->z;
            return 1;
        case OSC_GEO_SPHERE: {
            double L = osc_length(w);
            if (!(L > tiny)) return 0;
            osc_vec3 n = osc_scale(w, 1.0 / L);
            *sd = L - g->R;
            *grad = n;
            for (int i = 0; i < 3; i++) hess[i][i] = 1.0 / L;
            outer_add(hess, n, -1.0 / L);
            return 1;
        }
        case OSC_GEO_CYLINDER:
        case OSC_GEO_CONE: {
            if (!(rho > tiny)) return 0;
            osc_vec3 e = osc_scale(radial, 1.0 / rho);
            double ca = g->kind == OSC_GEO_CONE ? cos(g->a) : 1.0, sa = g->kind == OSC_GEO_CONE ? sin(g->a) : 0.0;
            // the generatrix through (R, 0) along (sin a, cos a) in the meridian half-plane of x
            if (g->kind == OSC_GEO_CONE && !(g->R + ((rho - g->R) * sa + lz * ca) * sa > tiny)) return 0;
            *sd = (rho - g->R) * ca - lz * sa;
            *grad = osc_sub(osc_scale(e, ca), osc_scale(g->z, sa));
            for (int i = 0; i < 3; i++) hess[i][i] = ca / rho;
            outer_add(hess, g->z, -ca / rho);
            outer_add(hess, e, -ca / rho);
            return 1;
        }
        case OSC_GEO_TORUS: {
            if (!(rho > tiny)) return 0;
            osc_vec3 e = osc_scale(radial, 1.0 / rho), f = osc_cross(g->z, e);
            // the tube circle of x's half-plane (centre R e) or, on the inner branch of a spindle
            // torus, of the opposite one (centre -R e); the same choice as osc_geo_project
            int far = g->branch < 0 ||
                      (g->branch == 0 && fabs(hypot(rho + g->R, lz) - g->r) < fabs(hypot(rho - g->R, lz) - g->r));
            double b = far ? -1.0 : 1.0;
            osc_vec3 q = osc_sub(w, osc_scale(e, b * g->R));
            double L = osc_length(q);
            if (!(L > tiny)) return 0;
            osc_vec3 n = osc_scale(q, 1.0 / L);
            *sd = L - g->r;
            *grad = n;
            for (int i = 0; i < 3; i++) hess[i][i] = 1.0 / L;
            outer_add(hess, n, -1.0 / L);
            outer_add(hess, f, -b * g->R / (rho * L));
            return 1;
        }
        default: return 0;
    }
}

static bool surface_type_ok(const osc_brep_surface* surface) {
    return (int)surface->type >= (int)OSC_SURFACE_PLANE && (int)surface->type <= (int)OSC_SURFACE_TORUS;
}

int osc_brep_project(const osc_brep_surface* surface, osc_vec3 x, double uv[2]) {
    if (!surface || !uv || !surface_type_ok(surface) || !osc_is_finite3(x.x, x.y, x.z)) return 0;
    osc_geo g = osc_geo_from_surface(surface);
    return osc_geo_project(&g, x, uv);
}

osc_vec3 osc_brep_surface_point(const osc_brep_surface* surface, double u, double v, osc_vec3* normal) {
    // NaN in, NaN out: a plane's normal, say, would otherwise come out finite at a NaN (u, v)
    if (!surface || !surface_type_ok(surface) || !isfinite(u) || !isfinite(v)) {
        if (!surface)
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_surface_point: surface is NULL");
        else if (surface->type == OSC_SURFACE_NURBS)
            osc_fail(OSC_ERR_INVALID_ARGUMENT,
                     "osc_brep_surface_point: a B-spline surface is evaluated through its model (osc_brep_face_point)");
        else if (!surface_type_ok(surface))
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_surface_point: surface->type %d is not a surface type",
                     (int)surface->type);
        else
            osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_surface_point: (u, v) = (%g, %g) is not finite", u, v);
        osc_vec3 nan3 = osc_v3(NAN, NAN, NAN);
        if (normal) *normal = nan3;
        return nan3;
    }
    osc_geo g = osc_geo_from_surface(surface);
    double t[2] = {u, v};
    osc_vec3 p;
    osc_geo_eval(&g, t, &p, NULL, NULL);
    if (normal) *normal = osc_geo_normal(&g, u, v);
    return p;
}

osc_vec3 osc_brep_face_point(const osc_brep* brep, int face, double u, double v, osc_vec3* normal) {
    osc_vec3 nan3 = osc_v3(NAN, NAN, NAN);
    if (normal) *normal = nan3;
    if (!brep) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_face_point: brep is NULL");
        return nan3;
    }
    if (face < 0 || face >= brep->desc.face_count) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_face_point: face %d is outside [0, %d)", face,
                 brep->desc.face_count);
        return nan3;
    }
    if (!isfinite(u) || !isfinite(v)) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_face_point: (u, v) = (%g, %g) is not finite", u, v);
        return nan3;
    }
    const osc_geo* g = &brep->face_data[face].geo;
    double t[2] = {u, v};
    osc_vec3 p;
    osc_geo_eval(g, t, &p, NULL, NULL);
    if (normal) *normal = osc_geo_normal(g, u, v);
    return p;
}

osc_vec3 osc_brep_edge_point(const osc_brep* brep, int edge, double t) {
    osc_vec3 nan3 = osc_v3(NAN, NAN, NAN);
    if (!brep) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_edge_point: brep is NULL");
        return nan3;
    }
    if (edge < 0 || edge >= brep->desc.edge_count) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_edge_point: edge %d is outside [0, %d)", edge,
                 brep->desc.edge_count);
        return nan3;
    }
    if (!isfinite(t)) {
        osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_edge_point: t = %g is not finite", t);
        return nan3;
    }
    osc_vec3 p;
    osc_geo_eval(&brep->edge_data[edge].geo, &t, &p, NULL, NULL);
    return p;
}
