// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_surface.c: the geometry kernel of the B-Rep module: canonical surfaces and curves (the
// parametrisations of brep.h) with first and second derivatives, outward normals, closed-form
// orthogonal projections, frames moved by poses.

#include <math.h>

#include "brep_internal.h"
#include "osculate/math.h"


double osc_wrap_angle(double value, double lo) {
    double w = fmod(value - lo, k_two_pi);
    if (w < 0.0) w += k_two_pi;
    if (w >= k_two_pi) w = 0.0;
    return lo + w;
}

static osc_vec3 ring(const osc_geo* g, double u) {
    return osc_add(osc_scale(g->x, cos(u)), osc_scale(g->y, sin(u)));
}

static osc_vec3 ring_tangent(const osc_geo* g, double u) {
    return osc_add(osc_scale(g->x, -sin(u)), osc_scale(g->y, cos(u)));
}

void osc_geo_eval(const osc_geo* g, const double* t, osc_vec3* p, osc_vec3* d1, osc_vec3* d2) {
    const osc_vec3 zero = osc_v3(0, 0, 0);
    switch (g->kind) {
    case OSC_GEO_POINT:
        *p = g->o;
        return;
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
        if (d1) { d1[0] = g->x; d1[1] = g->y; }
        if (d2) { d2[0] = zero; d2[1] = zero; d2[2] = zero; }
        return;
    case OSC_GEO_CYLINDER: {
        osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
        *p = osc_add(g->o, osc_add(osc_scale(e, g->R), osc_scale(g->z, t[1])));
        if (d1) { d1[0] = osc_scale(f, g->R); d1[1] = g->z; }
        if (d2) { d2[0] = osc_scale(e, -g->R); d2[1] = zero; d2[2] = zero; }
        return;
    }
    case OSC_GEO_CONE: {
        osc_vec3 e = ring(g, t[0]), f = ring_tangent(g, t[0]);
        double sa = sin(g->a), ca = cos(g->a), rho = g->R + t[1] * sa;
        *p = osc_add(g->o, osc_add(osc_scale(e, rho), osc_scale(g->z, t[1] * ca)));
        if (d1) { d1[0] = osc_scale(f, rho); d1[1] = osc_add(osc_scale(e, sa), osc_scale(g->z, ca)); }
        if (d2) { d2[0] = osc_scale(e, -rho); d2[1] = osc_scale(f, sa); d2[2] = zero; }
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
    default: n = g->z; break;
    }
    return osc_scale(n, g->sense);
}

osc_geo osc_geo_from_surface(const osc_brep_surface* s) {
    osc_geo g;
    static const osc_geo_kind kinds[] = {OSC_GEO_PLANE, OSC_GEO_CYLINDER, OSC_GEO_CONE,
                                         OSC_GEO_SPHERE, OSC_GEO_TORUS};
    g.kind = kinds[s->type];
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
    case OSC_GEO_POINT: return 1;
    case OSC_GEO_LINE: t[0] = lz; return 1;
    case OSC_GEO_CIRCLE: t[0] = u; return rho > 0.0;
    case OSC_GEO_PLANE: t[0] = lx; t[1] = ly; return 1;
    case OSC_GEO_CYLINDER: t[0] = u; t[1] = lz; return rho > 0.0;
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

int osc_brep_project(const osc_brep_surface* surface, osc_vec3 x, double uv[2]) {
    if (!surface || !uv) return 0;
    osc_geo g = osc_geo_from_surface(surface);
    return osc_geo_project(&g, x, uv);
}

osc_vec3 osc_brep_surface_point(const osc_brep_surface* surface, double u, double v,
                                osc_vec3* normal) {
    osc_geo g = osc_geo_from_surface(surface);
    double t[2] = {u, v};
    osc_vec3 p;
    osc_geo_eval(&g, t, &p, NULL, NULL);
    if (normal) *normal = osc_geo_normal(&g, u, v);
    return p;
}
