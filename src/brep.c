// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep.c: the B-Rep solid (Crozet 2017, thesis §1.4.3): checking and copying the description, the
// even-odd trimming test (thesis Fig. 1.32), face convexity (Fig. 1.26) and edge status (eq. 1.27),
// the vertices' tangent cones. The BVH is built in brep_bvh.c.

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "brep_internal.h"
#include "osculate/math.h"

osc_brep_settings osc_brep_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_brep_settings){.alpha_max = 0.5, .plane_cell = 0.25, .max_leaf_count = 1000000};
}

// ---- checking the description ---------------------------------------------------------------

// the settings' ranges, naming the first value outside its own
static osc_status check_settings(const char* fn, const osc_brep_settings* s) {
    if (!(s->alpha_max > 0.0 && s->alpha_max <= 0.5 * k_pi))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.alpha_max %g is outside (0, pi/2]", fn, s->alpha_max);
    if (!(s->plane_cell > 0.0 && s->plane_cell <= 1.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.plane_cell %g is outside (0, 1]", fn, s->plane_cell);
    if (s->max_leaf_count < 1 || s->max_leaf_count > OSC_BREP_MAX_LEAVES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings.max_leaf_count %d is outside [1, %d]", fn,
                        s->max_leaf_count, OSC_BREP_MAX_LEAVES);
    return OSC_OK;
}

static bool finite3(osc_vec3 v) { return osc_is_finite3(v.x, v.y, v.z); }

// finite and within OSC_BREP_MAX_LENGTH
static bool length_ok(double x) { return isfinite(x) && fabs(x) <= OSC_BREP_MAX_LENGTH; }

static bool point_ok(osc_vec3 v) { return length_ok(v.x) && length_ok(v.y) && length_ok(v.z); }

static bool unit(osc_vec3 v) { return finite3(v) && fabs(osc_length(v) - 1.0) <= 1e-6; }

// The sign of the radius factor R + r cos v of a torus over a face's v range [v0, v1]: +1 or -1, or 0
// when it changes sign inside the range (a spindle torus, r > R, has its cusps where R + r cos v =
// 0: a face may end there, as a cone's may at its apex, but not cross).
static int torus_branch(double R, double r, double v0, double v1) {
    if (r < R) return 1;
    double cusp = acos(-R / r), tol = 1e-9; // in (pi/2, pi); R + r cos v < 0 on (cusp, 2 pi - cusp)
    if (v1 - v0 >= k_two_pi) return 0;
    double a = v0 - k_two_pi * floor((v0 + cusp) / k_two_pi); // in [-cusp, 2 pi - cusp)
    double b = a + (v1 - v0);
    if (b <= cusp + tol) return 1;
    if (a >= cusp - tol && b <= k_two_pi - cusp + tol) return -1;
    if (a >= k_two_pi - cusp - tol) return 1; // rounding at the wrap
    return 0;
}

// a B-spline entry of the description of the right dimension (1 curve, 2 surface)
static bool nurbs_ok(const osc_brep_desc* d, int index, int dim) {
    return index >= 0 && index < d->nurbs_count && (d->nurbs[index].degree[1] != 0) == (dim == 2);
}

static osc_status check_surface(const osc_brep_desc* d, const osc_brep_surface* s, int i) {
    const char* fn = "osc_brep_create";
    if ((int)s->type < 0 || (int)s->type > OSC_SURFACE_NURBS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surfaces[%d].type %d is not a surface type", fn, i,
                        (int)s->type);
    if (s->type == OSC_SURFACE_NURBS) {
        if (!nurbs_ok(d, s->nurbs, 2))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: surfaces[%d].nurbs %d is not a B-spline surface of desc->nurbs", fn, i, s->nurbs);
        if (s->sense != 1 && s->sense != -1)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surfaces[%d].sense %d is not +1 or -1", fn, i, s->sense);
        return OSC_OK;
    }
    if (!point_ok(s->origin))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: surfaces[%d].origin (%g, %g, %g) is not finite or "
                        "beyond %g",
                        fn, i, s->origin.x, s->origin.y, s->origin.z, OSC_BREP_MAX_LENGTH);
    if (!unit(s->axis) || !unit(s->ref) || fabs(osc_dot(s->axis, s->ref)) > 1e-6)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: surfaces[%d].axis (%g, %g, %g) and ref (%g, %g, %g) must be unit and "
                        "perpendicular",
                        fn, i, s->axis.x, s->axis.y, s->axis.z, s->ref.x, s->ref.y, s->ref.z);
    if (s->sense != 1 && s->sense != -1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surfaces[%d].sense %d is not +1 or -1", fn, i, s->sense);
    if (s->type == OSC_SURFACE_PLANE) return OSC_OK;
    bool radius_ok = length_ok(s->radius) && (s->type == OSC_SURFACE_CONE ? s->radius >= 0.0 : s->radius > 0.0);
    if (!radius_ok)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surfaces[%d].radius %g is out of range", fn, i, s->radius);
    if (s->type == OSC_SURFACE_CONE && !(s->angle > 0.0 && s->angle < 0.5 * k_pi))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: surfaces[%d].angle %g: a cone's half-angle must lie in (0, pi/2)", fn, i, s->angle);
    if (s->type == OSC_SURFACE_TORUS &&
        !(length_ok(s->radius2) && s->radius2 > 0.0 && fabs(s->radius2 - s->radius) > 1e-9 * s->radius))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surfaces[%d].radius2 %g: a torus needs r > 0 and r != R = %g",
                        fn, i, s->radius2, s->radius);
    return OSC_OK;
}

// trims[i]: a line or an arc within the length range
static osc_status check_trim(const osc_brep_desc* d, int i) {
    const char* fn = "osc_brep_create";
    const osc_brep_trim* t = &d->trims[i];
    bool ok;
    if (t->kind == OSC_TRIM_LINE)
        ok = length_ok(t->start[0]) && length_ok(t->start[1]) && length_ok(t->end[0]) && length_ok(t->end[1]);
    else if (t->kind == OSC_TRIM_ARC)
        ok = length_ok(t->center[0]) && length_ok(t->center[1]) && length_ok(t->radius) && t->radius > 0.0 &&
             length_ok(t->angle0) && isfinite(t->sweep) && t->sweep != 0.0 && fabs(t->sweep) <= k_two_pi + 1e-9;
    else
        ok = false;
    if (!ok) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: trims[%d] is malformed", fn, i);
    return OSC_OK;
}

// faces[i]: its surface and loops in range, its parameter box within its surface's
static osc_status check_face(const osc_brep_desc* d, int i) {
    const char* fn = "osc_brep_create";
    const osc_brep_face* f = &d->faces[i];
    if (f->surface < 0 || f->surface >= d->surface_count)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: faces[%d].surface %d is out of range", fn, i, f->surface);
    if (f->loop_count < 0 || f->loop_begin < 0 || f->loop_begin > d->loop_count - f->loop_count)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: faces[%d] loops are out of range", fn, i);
    if (!(length_ok(f->umin) && length_ok(f->umax) && length_ok(f->vmin) && length_ok(f->vmax)) ||
        !(f->umin < f->umax) || !(f->vmin < f->vmax))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: faces[%d] parameter box [%g, %g] x [%g, %g] is empty, not finite or beyond "
                        "OSC_BREP_MAX_LENGTH",
                        fn, i, f->umin, f->umax, f->vmin, f->vmax);
    osc_surface_type type = d->surfaces[f->surface].type;
    if (type == OSC_SURFACE_NURBS) {
        const osc_brep_nurbs* n = &d->nurbs[d->surfaces[f->surface].nurbs];
        const double* U = d->reals + n->knot_begin;
        const double* V = U + n->count[0] + n->degree[0] + 1;
        double u0 = U[n->degree[0]], u1 = U[n->count[0]], v0 = V[n->degree[1]], v1 = V[n->count[1]];
        double tu = 1e-9 * (u1 - u0), tv = 1e-9 * (v1 - v0);
        if (f->umin < u0 - tu || f->umax > u1 + tu || f->vmin < v0 - tv || f->vmax > v1 + tv)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: faces[%d] parameter box [%g, %g] x [%g, %g] leaves its B-spline surface's range "
                            "[%g, %g] x [%g, %g]",
                            fn, i, f->umin, f->umax, f->vmin, f->vmax, u0, u1, v0, v1);
        return OSC_OK;
    }
    if (type != OSC_SURFACE_PLANE && f->umax - f->umin > k_two_pi + 1e-9)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: faces[%d] spans more than one turn in u", fn, i);
    if (type == OSC_SURFACE_SPHERE && (f->vmin < -0.5 * k_pi - 1e-9 || f->vmax > 0.5 * k_pi + 1e-9))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: faces[%d] sphere latitude outside [-pi/2, pi/2]", fn, i);
    const osc_brep_surface* s = &d->surfaces[f->surface];
    if (type == OSC_SURFACE_TORUS && !torus_branch(s->radius, s->radius2, f->vmin, f->vmax))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: faces[%d] crosses the cusp of a spindle torus (R + r cos v = 0 for v "
                        "in [%g, %g])",
                        fn, i, f->vmin, f->vmax);
    return OSC_OK;
}

// edges[i]: its curve, range, faces and vertices
static osc_status check_edge(const osc_brep_desc* d, int i) {
    const char* fn = "osc_brep_create";
    const osc_brep_edge* e = &d->edges[i];
    if (e->type == OSC_CURVE_NURBS) {
        if (!nurbs_ok(d, e->nurbs, 1))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: edges[%d].nurbs %d is not a B-spline curve of desc->nurbs",
                            fn, i, e->nurbs);
        const osc_brep_nurbs* n = &d->nurbs[e->nurbs];
        const double* U = d->reals + n->knot_begin;
        double t0 = U[n->degree[0]], t1 = U[n->count[0]], tol = 1e-9 * (t1 - t0);
        if (!(e->t0 < e->t1) || !(e->t0 >= t0 - tol) || !(e->t1 <= t1 + tol))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: edges[%d] range [%g, %g] is empty or leaves its curve's range [%g, %g]", fn, i, e->t0,
                            e->t1, t0, t1);
    } else if ((int)e->type < 0 || (int)e->type > OSC_CURVE_CIRCLE || !point_ok(e->origin) || !unit(e->axis) ||
               !length_ok(e->t0) || !length_ok(e->t1) || !(e->t0 < e->t1))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: edges[%d] needs a curve type (%d), an origin within %g (%g, %g, %g), a unit "
                        "axis and t0 < t1 within %g (%g, %g)",
                        fn, i, (int)e->type, OSC_BREP_MAX_LENGTH, e->origin.x, e->origin.y, e->origin.z,
                        OSC_BREP_MAX_LENGTH, e->t0, e->t1);
    if (e->type == OSC_CURVE_CIRCLE && (!unit(e->ref) || fabs(osc_dot(e->ref, e->axis)) > 1e-6 || !(e->radius > 0.0) ||
                                        !length_ok(e->radius) || e->t1 - e->t0 > k_two_pi + 1e-9))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: edges[%d] circle needs a unit ref perpendicular to its axis, a "
                        "positive radius and at most one turn",
                        fn, i);
    for (int k = 0; k < 2; k++) {
        if (e->face[k] < 0 || e->face[k] >= d->face_count)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: edges[%d].face[%d] %d is out of range", fn, i, k,
                            e->face[k]);
        if (e->vertex[k] < -1 || e->vertex[k] >= d->vertex_count)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: edges[%d].vertex[%d] %d is out of range", fn, i, k,
                            e->vertex[k]);
    }
    return OSC_OK;
}

static osc_status check_description(const osc_brep_desc* d) {
    const char* fn = "osc_brep_create";
    if (d->surface_count < 0 || d->face_count < 1 || d->loop_count < 0 || d->trim_count < 0 || d->edge_count < 0 ||
        d->vertex_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: counts must be >= 0 and face_count >= 1 (got %d faces)", fn,
                        d->face_count);
    const struct {
        const void* array;
        int count;
        const char* name;
    } arrays[] = {{d->surfaces, d->surface_count, "surfaces"}, {d->faces, d->face_count, "faces"},
                  {d->loops, d->loop_count, "loops"},          {d->trims, d->trim_count, "trims"},
                  {d->edges, d->edge_count, "edges"},          {d->vertices, d->vertex_count, "vertices"}};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (arrays[k].count > 0 && !arrays[k].array)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc->%s is NULL with a count of %d", fn, arrays[k].name,
                            arrays[k].count);
    // the model indexes 4 pieces per trim and 6 vertex vectors per edge with int
    if (d->trim_count > INT_MAX / 4 || d->edge_count > INT_MAX / 6)
        return osc_fail(OSC_ERR_CAPACITY, "%s: %d trims and %d edges: at most %d and %d", fn, d->trim_count,
                        d->edge_count, INT_MAX / 4, INT_MAX / 6);
    osc_status nst = osc_brep_check_nurbs(d);
    if (nst != OSC_OK) return nst;
    for (int i = 0; i < d->surface_count; i++) {
        osc_status st = check_surface(d, &d->surfaces[i], i);
        if (st != OSC_OK) return st;
    }
    for (int i = 0; i < d->trim_count; i++) {
        osc_status st = check_trim(d, i);
        if (st != OSC_OK) return st;
    }
    for (int i = 0; i < d->loop_count; i++) {
        const osc_brep_loop* l = &d->loops[i];
        if (l->trim_count < 1 || l->trim_begin < 0 || l->trim_begin > d->trim_count - l->trim_count)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: loops[%d] (trims %d..+%d) is empty or out of range", fn, i,
                            l->trim_begin, l->trim_count);
    }
    for (int i = 0; i < d->face_count; i++) {
        osc_status st = check_face(d, i);
        if (st != OSC_OK) return st;
    }
    for (int i = 0; i < d->vertex_count; i++)
        if (!point_ok(d->vertices[i]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: vertices[%d] (%g, %g, %g) is not finite or beyond %g", fn, i,
                            d->vertices[i].x, d->vertices[i].y, d->vertices[i].z, OSC_BREP_MAX_LENGTH);
    for (int i = 0; i < d->edge_count; i++) {
        osc_status st = check_edge(d, i);
        if (st != OSC_OK) return st;
    }
    return OSC_OK;
}

// ---- trimming --------------------------------------------------------------------------------

static int count_pieces(const osc_brep_trim* t) {
    if (t->kind == OSC_TRIM_LINE) return 1;
    return 4; // an arc of at most one turn crosses at most 3 extreme angles: at most 4 pieces
}

// Splits an arc at its extreme points in v (angles pi/2 + k pi) into v-monotone pieces.
static int arc_pieces(const osc_brep_trim* t, osc_trim_piece* out) {
    double a0 = t->angle0, a1 = t->angle0 + t->sweep;
    double lo = fmin(a0, a1), hi = fmax(a0, a1);
    double cuts[6];
    int n = 0;
    cuts[n++] = lo;
    double k = ceil((lo - 0.5 * k_pi) / k_pi);
    for (double c = 0.5 * k_pi + k * k_pi; c < hi && n < 5; c += k_pi)
        if (c > lo) cuts[n++] = c;
    cuts[n++] = hi;
    int count = 0;
    for (int i = 0; i + 1 < n; i++) {
        double p0 = cuts[i], p1 = cuts[i + 1], mid = 0.5 * (p0 + p1);
        osc_trim_piece* p = &out[count++];
        p->v0 = t->center[1] + t->radius * sin(p0);
        p->v1 = t->center[1] + t->radius * sin(p1);
        p->cu = t->center[0];
        p->cv = t->center[1];
        p->radius = t->radius;
        p->branch = cos(mid) >= 0.0 ? 1.0 : -1.0;
        p->u0 = p->u1 = 0.0;
        p->umax = p->branch > 0.0 ? t->center[0] + t->radius : t->center[0] + t->radius * fmax(cos(p0), cos(p1));
    }
    return count;
}

static int compare_double_ptr(const void* a, const void* b) {
    double x = **(double*const*)a, y = **(double*const*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

// Makes the v values of piece ends that agree to `tol` identical, so that a loop is closed for the
// even-odd test (sin(2 pi) is not sin(0) in floating point, a line's end not an arc's start).
static bool snap_piece_ends(osc_trim_piece* pieces, int count, double tol) {
    if (count < 2) return true;
    double** ends = osc_calloc(2 * (size_t)count, sizeof(double*));
    if (!ends) return false;
    for (int i = 0; i < count; i++) {
        ends[2 * i] = &pieces[i].v0;
        ends[2 * i + 1] = &pieces[i].v1;
    }
    qsort(ends, 2 * (size_t)count, sizeof(double*), compare_double_ptr);
    for (size_t i = 1; i < 2 * (size_t)count; i++)
        if (*ends[i] - *ends[i - 1] <= tol) *ends[i] = *ends[i - 1];
    osc_free(ends);
    return true;
}

int osc_brep_face_contains_wrapped(const osc_brep* brep, int face, double u, double v) {
    const osc_brep_face* f = &brep->faces[face];
    double tu = 1e-9 * (f->umax - f->umin), tv = 1e-9 * (f->vmax - f->vmin);
    if (u < f->umin - tu || u > f->umax + tu || v < f->vmin - tv || v > f->vmax + tv) return 0;
    const osc_face_data* fd = &brep->face_data[face];
    if (fd->piece_count == 0) return 1;
    int inside = 0;
    for (int i = 0; i < fd->piece_count; i++) {
        const osc_trim_piece* p = &brep->pieces[fd->piece_begin + i];
        if (p->umax <= u) continue;
        if ((p->v0 > v) == (p->v1 > v)) continue;
        double uc;
        if (p->branch == 0.0) {
            uc = p->u0 + (v - p->v0) * (p->u1 - p->u0) / (p->v1 - p->v0);
        } else {
            double h = p->radius * p->radius - (v - p->cv) * (v - p->cv);
            uc = p->cu + p->branch * sqrt(h > 0.0 ? h : 0.0);
        }
        if (uc > u) inside ^= 1;
    }
    return inside;
}

void osc_brep_face_wrap(const osc_brep* brep, int face, double* u, double* v) {
    const osc_brep_face* f = &brep->faces[face];
    const osc_face_data* fd = &brep->face_data[face];
    if (fd->periodic_u) {
        double w = osc_wrap_angle(*u, f->umin);
        if (w > f->umax && w - k_two_pi > f->umin - 1e-9 * k_two_pi) w -= k_two_pi;
        if (w > f->umax && fabs(w - k_two_pi - f->umin) < 1e-9) w = f->umin;
        *u = w;
    }
    if (fd->periodic_v) {
        double w = osc_wrap_angle(*v, f->vmin);
        if (w > f->vmax && w - k_two_pi > f->vmin - 1e-9 * k_two_pi) w -= k_two_pi;
        *v = w;
    }
}

int osc_brep_face_contains(const osc_brep* brep, int face, double u, double v) {
    if (!brep || face < 0 || face >= brep->desc.face_count || !isfinite(u) || !isfinite(v)) return 0;
    osc_brep_face_wrap(brep, face, &u, &v);
    return osc_brep_face_contains_wrapped(brep, face, u, v);
}

// ---- edge status and vertex cones -------------------------------------------------------------

osc_geo osc_brep_face_geo(const osc_brep* brep, int face) {
    const osc_brep_surface* s = &brep->surfaces[brep->faces[face].surface];
    if (s->type == OSC_SURFACE_NURBS) return osc_geo_from_nurbs(&brep->nurbs[s->nurbs], s->sense);
    return osc_geo_from_surface(s);
}

osc_geo osc_brep_edge_geo(const osc_brep* brep, int edge) {
    const osc_brep_edge* e = &brep->edges[edge];
    if (e->type == OSC_CURVE_NURBS) return osc_geo_from_nurbs(&brep->nurbs[e->nurbs], 1);
    return osc_geo_from_edge(e);
}

osc_vec3 osc_brep_face_normal_at(const osc_brep* brep, int face, osc_vec3 p) {
    const osc_face_data* fd = &brep->face_data[face];
    double t[2] = {0.0, 0.0};
    osc_geo_project(&fd->geo, p, t);
    return osc_geo_normal(&fd->geo, t[0], t[1]);
}

osc_vec3 osc_brep_edge_side(const osc_brep* brep, int edge, int side, osc_vec3 p, osc_vec3 tangent,
                            osc_vec3* face_normal) {
    int face = brep->edges[edge].face[side];
    osc_vec3 n = osc_brep_face_normal_at(brep, face, p);
    if (face_normal) *face_normal = n;
    return osc_scale(osc_normalize(osc_cross(n, tangent)), brep->edge_data[edge].side[side]);
}

// Is the body point p + h m (projected onto face's surface) inside the face?
static int probe_inside(const osc_brep* brep, int face, osc_vec3 p, osc_vec3 m, double h) {
    const osc_face_data* fd = &brep->face_data[face];
    double t[2] = {0.0, 0.0};
    if (!osc_geo_project(&fd->geo, osc_add_scaled(p, m, h), t)) return 0;
    return osc_brep_face_contains(brep, face, t[0], t[1]);
}

static void classify_edge(osc_brep* brep, int i) {
    const osc_brep_edge* e = &brep->edges[i];
    osc_edge_data* ed = &brep->edge_data[i];
    ed->geo = osc_brep_edge_geo(brep, i);
    ed->side[0] = ed->side[1] = 1.0;
    if (e->face[0] == e->face[1]) {
        ed->status = OSC_EDGE_SMOOTH;
        return;
    }
    double tm = 0.5 * (e->t0 + e->t1);
    osc_vec3 p, d1;
    osc_geo_eval(&ed->geo, &tm, &p, &d1, NULL);
    osc_vec3 tau = osc_normalize(d1);
    osc_vec3 n[2], m[2];
    bool found[2] = {false, false};
    for (int s = 0; s < 2; s++) {
        n[s] = osc_brep_face_normal_at(brep, e->face[s], p);
        m[s] = osc_normalize(osc_cross(n[s], tau));
        for (double h = 1e-3 * brep->scale; h > 1e-9 * brep->scale && !found[s]; h *= 0.1) {
            int plus = probe_inside(brep, e->face[s], p, m[s], h);
            int minus = probe_inside(brep, e->face[s], p, m[s], -h);
            if (plus != minus) {
                ed->side[s] = plus ? 1.0 : -1.0;
                found[s] = true;
            }
        }
        m[s] = osc_scale(m[s], ed->side[s]);
    }
    double c = osc_dot(n[0], n[1]);
    if (c > 1.0 - 1e-10) {
        ed->status = OSC_EDGE_SMOOTH; // G1 (thesis Fig. 1.27b)
    } else if (!found[0] || !found[1]) {
        ed->status = OSC_EDGE_CONVEX; // cannot tell: keep it (conservative for the search)
    } else {
        // convex when moving into face 0 goes below face 1's tangent plane (and vice versa)
        double s = osc_dot(m[0], n[1]) + osc_dot(m[1], n[0]);
        ed->status = s < 0.0 ? OSC_EDGE_CONVEX : OSC_EDGE_CONCAVE;
    }
}

// the edges at each vertex, in edge order, each once: CSR lists `begin` [nv + 1] and `edges`
static osc_status vertex_edges(const osc_brep* brep, int** begin, int** edges) {
    int nv = brep->desc.vertex_count, ne = brep->desc.edge_count;
    *begin = osc_calloc((size_t)nv + 2, sizeof(int));
    *edges = osc_calloc(2 * (size_t)ne + 1, sizeof(int));
    if (!*begin || !*edges) return OSC_ERR_NO_MEMORY;
    for (int pass = 0; pass < 2; pass++) { // count at begin[v + 1], then fill through begin[v]
        for (int i = 0; i < ne; i++)
            for (int k = 0; k < 2; k++) {
                int v = brep->edges[i].vertex[k];
                if (v < 0 || (k == 1 && brep->edges[i].vertex[0] == v)) continue;
                if (pass == 0)
                    (*begin)[v + 1]++;
                else
                    (*edges)[(*begin)[v]++] = i;
            }
        if (pass == 0)
            for (int v = 0; v < nv; v++) (*begin)[v + 1] += (*begin)[v];
    }
    for (int v = nv; v > 0; v--) (*begin)[v] = (*begin)[v - 1];
    (*begin)[0] = 0;
    return OSC_OK;
}

static osc_status build_vertex_data(osc_brep* brep) {
    int nv = brep->desc.vertex_count, ne = brep->desc.edge_count;
    brep->vertex_data = osc_calloc((size_t)(nv > 0 ? nv : 1), sizeof(osc_vertex_data));
    // at most one tangent per edge end and two normals per edge end
    brep->vertex_vectors = osc_calloc(6 * (size_t)ne + 1, sizeof(osc_vec3));
    int *begin = NULL, *incident = NULL;
    osc_status st =
        brep->vertex_data && brep->vertex_vectors ? vertex_edges(brep, &begin, &incident) : OSC_ERR_NO_MEMORY;
    int used = 0;
    for (int v = 0; v < nv && st == OSC_OK; v++) {
        osc_vertex_data* vd = &brep->vertex_data[v];
        osc_vec3 x = brep->vertices[v];
        vd->tangent_begin = used;
        for (int m = begin[v]; m < begin[v + 1]; m++) {
            int i = incident[m];
            const osc_brep_edge* e = &brep->edges[i];
            if (brep->edge_data[i].status == OSC_EDGE_SMOOTH && e->face[0] == e->face[1]) continue;
            for (int k = 0; k < 2; k++) {
                if (e->vertex[k] != v) continue;
                double t = k == 0 ? e->t0 : e->t1;
                osc_vec3 p, d1;
                osc_geo_eval(&brep->edge_data[i].geo, &t, &p, &d1, NULL);
                brep->vertex_vectors[used++] = osc_scale(osc_normalize(d1), k == 0 ? 1.0 : -1.0);
                if (brep->edge_data[i].status == OSC_EDGE_CONVEX) vd->active = true;
            }
        }
        vd->tangent_count = used - vd->tangent_begin;
        vd->normal_begin = used;
        for (int m = begin[v]; m < begin[v + 1]; m++) {
            const osc_brep_edge* e = &brep->edges[incident[m]];
            for (int s = 0; s < 2; s++) {
                osc_vec3 n = osc_brep_face_normal_at(brep, e->face[s], x);
                bool dup = false;
                for (int j = vd->normal_begin; j < used; j++)
                    if (osc_dot(brep->vertex_vectors[j], n) > 1.0 - 1e-12) dup = true;
                if (!dup) brep->vertex_vectors[used++] = n;
            }
        }
        vd->normal_count = used - vd->normal_begin;
    }
    osc_free(begin);
    osc_free(incident);
    return st;
}

// ---- creation ----------------------------------------------------------------------------------

static void* copy_array(const void* src, int count, size_t size) {
    void* dst = osc_calloc((size_t)(count > 0 ? count : 1), size);
    if (dst && count > 0) memcpy(dst, src, (size_t)count * size);
    return dst;
}

void osc_brep_destroy(osc_brep* brep) {
    if (!brep) return;
    osc_free(brep->surfaces);
    osc_free(brep->faces);
    osc_free(brep->loops);
    osc_free(brep->trims);
    osc_free(brep->edges);
    osc_free(brep->vertices);
    osc_free(brep->face_data);
    osc_free(brep->edge_data);
    osc_free(brep->vertex_data);
    osc_free(brep->vertex_vectors);
    osc_free(brep->pieces);
    osc_free(brep->leaves);
    osc_free(brep->nodes);
    osc_free(brep->shells);
    osc_free(brep->nurbs_desc);
    osc_free(brep->control_points);
    osc_free(brep->reals);
    osc_free(brep->nurbs);
    osc_free(brep->nurbs_data);
    osc_free(brep->skipped);
    osc_free(brep->face_group);
    osc_free(brep->face_next);
    osc_free(brep->edge_group);
    osc_free(brep->edge_next);
    osc_free(brep->inner_begin);
    osc_free(brep->inner_edges);
    osc_free(brep->inner_vertex);
    osc_free(brep);
}

osc_status osc_brep_set_skipped(osc_brep* brep, const osc_brep_skipped* skipped, int count) {
    osc_free(brep->skipped);
    brep->skipped = NULL;
    brep->skipped_count = 0;
    if (count <= 0) return OSC_OK;
    brep->skipped = osc_calloc((size_t)count, sizeof *skipped);
    if (!brep->skipped) return OSC_ERR_NO_MEMORY;
    memcpy(brep->skipped, skipped, (size_t)count * sizeof *skipped);
    brep->skipped_count = count;
    return OSC_OK;
}

int osc_brep_skipped_face_count(const osc_brep* brep) { return brep ? brep->skipped_count : 0; }

osc_status osc_brep_get_skipped_face(const osc_brep* brep, int index, osc_vec3* lo, osc_vec3* hi, int* shell) {
    const char* fn = "osc_brep_get_skipped_face";
    if (!brep) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: brep is NULL", fn);
    if (!lo || !hi) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, lo ? "hi" : "lo");
    if (index < 0 || index >= brep->skipped_count)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: index %d is outside [0, %d)", fn, index, brep->skipped_count);
    *lo = brep->skipped[index].lo;
    *hi = brep->skipped[index].hi;
    if (shell) *shell = brep->skipped[index].shell;
    return OSC_OK;
}

static osc_status fill(osc_brep* b, const osc_brep_desc* d) {
    b->surfaces = copy_array(d->surfaces, d->surface_count, sizeof(osc_brep_surface));
    b->faces = copy_array(d->faces, d->face_count, sizeof(osc_brep_face));
    b->loops = copy_array(d->loops, d->loop_count, sizeof(osc_brep_loop));
    b->trims = copy_array(d->trims, d->trim_count, sizeof(osc_brep_trim));
    b->edges = copy_array(d->edges, d->edge_count, sizeof(osc_brep_edge));
    b->vertices = copy_array(d->vertices, d->vertex_count, sizeof(osc_vec3));
    b->face_data = osc_calloc((size_t)d->face_count, sizeof(osc_face_data));
    b->edge_data = osc_calloc((size_t)(d->edge_count > 0 ? d->edge_count : 1), sizeof(osc_edge_data));
    size_t pieces = 1; // at most 4 a trim: fits an int (check_description)
    for (int i = 0; i < d->trim_count; i++) pieces += (size_t)count_pieces(&d->trims[i]);
    b->pieces = osc_calloc(pieces, sizeof(osc_trim_piece));
    if (!b->surfaces || !b->faces || !b->loops || !b->trims || !b->edges || !b->vertices || !b->face_data ||
        !b->edge_data || !b->pieces)
        return OSC_ERR_NO_MEMORY;
    b->desc = *d;
    b->desc.surfaces = b->surfaces;
    b->desc.faces = b->faces;
    b->desc.loops = b->loops;
    b->desc.trims = b->trims;
    b->desc.edges = b->edges;
    b->desc.vertices = b->vertices;
    b->nurbs_desc = copy_array(d->nurbs, d->nurbs_count, sizeof(osc_brep_nurbs));
    b->control_points = copy_array(d->control_points, d->control_point_count, sizeof(osc_vec3));
    b->reals = copy_array(d->reals, d->real_count, sizeof(double));
    if (!b->nurbs_desc || !b->control_points || !b->reals) return OSC_ERR_NO_MEMORY;
    b->desc.nurbs = b->nurbs_desc;
    b->desc.control_points = b->control_points;
    b->desc.reals = b->reals;
    osc_status nst = osc_brep_build_nurbs(b);
    if (nst != OSC_OK) return nst;
    // normalise the frames (they were checked to be unit within 1e-6)
    for (int i = 0; i < d->surface_count; i++) {
        osc_brep_surface* s = &b->surfaces[i];
        if (s->type == OSC_SURFACE_NURBS) continue;
        s->axis = osc_normalize(s->axis);
        s->ref = osc_normalize(osc_sub(s->ref, osc_scale(s->axis, osc_dot(s->ref, s->axis))));
    }
    for (int i = 0; i < d->edge_count; i++) {
        osc_brep_edge* e = &b->edges[i];
        e->axis = osc_normalize(e->axis);
        if (e->type == OSC_CURVE_CIRCLE)
            e->ref = osc_normalize(osc_sub(e->ref, osc_scale(e->axis, osc_dot(e->ref, e->axis))));
    }
    // faces: geometry, convexity, trimming pieces
    int np = 0;
    for (int i = 0; i < d->face_count; i++) {
        const osc_brep_face* f = &b->faces[i];
        const osc_brep_surface* s = &b->surfaces[f->surface];
        osc_face_data* fd = &b->face_data[i];
        fd->geo = osc_brep_face_geo(b, i);
        if (s->type == OSC_SURFACE_TORUS) fd->geo.branch = torus_branch(s->radius, s->radius2, f->vmin, f->vmax);
        fd->periodic_u = s->type != OSC_SURFACE_PLANE && s->type != OSC_SURFACE_NURBS;
        fd->periodic_v = s->type == OSC_SURFACE_TORUS;
        fd->convexity = s->type == OSC_SURFACE_PLANE || s->type == OSC_SURFACE_NURBS ? 0 : (s->sense > 0 ? 1 : -1);
        fd->piece_begin = np;
        for (int l = 0; l < f->loop_count; l++) {
            const osc_brep_loop* loop = &b->loops[f->loop_begin + l];
            for (int k = 0; k < loop->trim_count; k++) {
                const osc_brep_trim* t = &b->trims[loop->trim_begin + k];
                if (t->kind == OSC_TRIM_LINE) {
                    osc_trim_piece* p = &b->pieces[np++];
                    memset(p, 0, sizeof *p);
                    p->u0 = t->start[0];
                    p->v0 = t->start[1];
                    p->u1 = t->end[0];
                    p->v1 = t->end[1];
                    p->umax = fmax(p->u0, p->u1);
                } else {
                    np += arc_pieces(t, &b->pieces[np]);
                }
            }
        }
        fd->piece_count = np - fd->piece_begin;
        if (!snap_piece_ends(&b->pieces[fd->piece_begin], fd->piece_count, 1e-10 * (f->vmax - f->vmin)))
            return OSC_ERR_NO_MEMORY;
    }
    b->piece_count = np;
    // the scale for probes: the box of vertices and surface origins (refined by the BVH later)
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_scale(lo, -1.0);
    for (int i = 0; i < d->vertex_count; i++) {
        lo = osc_v3(fmin(lo.x, b->vertices[i].x), fmin(lo.y, b->vertices[i].y), fmin(lo.z, b->vertices[i].z));
        hi = osc_v3(fmax(hi.x, b->vertices[i].x), fmax(hi.y, b->vertices[i].y), fmax(hi.z, b->vertices[i].z));
    }
    double size = d->vertex_count > 1 ? osc_length(osc_sub(hi, lo)) : 0.0;
    for (int i = 0; i < d->surface_count; i++)
        if (b->surfaces[i].type != OSC_SURFACE_NURBS) size = fmax(size, 2.0 * b->surfaces[i].radius);
    if (d->vertex_count <= 1) // no vertices: the control points' box
        for (int i = 0; i < d->control_point_count; i++) {
            lo = osc_v3(fmin(lo.x, b->control_points[i].x), fmin(lo.y, b->control_points[i].y),
                        fmin(lo.z, b->control_points[i].z));
            hi = osc_v3(fmax(hi.x, b->control_points[i].x), fmax(hi.y, b->control_points[i].y),
                        fmax(hi.z, b->control_points[i].z));
            size = fmax(size, osc_length(osc_sub(hi, lo)));
        }
    b->scale = size > 0.0 ? size : 1.0;
    for (int i = 0; i < d->edge_count; i++) classify_edge(b, i);
    return build_vertex_data(b);
}

// the shells of a new model: copies of `shells` (checked: consecutive ranges inside the description,
// each edge's faces and vertices inside its shell's), or one shell holding everything
static osc_status copy_shells(osc_brep* b, const osc_brep_shell* shells, int count) {
    const char* fn = "osc_brep_create";
    const osc_brep_desc* d = &b->desc;
    b->shell_count = shells ? count : 1;
    b->shells = osc_calloc((size_t)b->shell_count, sizeof(osc_brep_shell));
    if (!b->shells) return OSC_ERR_NO_MEMORY;
    if (!shells) {
        osc_brep_shell* whole = &b->shells[0];
        whole->face_count = d->face_count;
        whole->edge_count = d->edge_count;
        whole->vertex_count = d->vertex_count;
        whole->placement = osc_pose_identity();
        whole->scale = 1.0;
        return OSC_OK;
    }
    for (int i = 0; i < count; i++) {
        const osc_brep_shell* s = &shells[i];
        if (s->face_count < 1 || s->face_begin < 0 || s->face_begin > d->face_count - s->face_count ||
            s->edge_count < 0 || s->edge_begin < 0 || s->edge_begin > d->edge_count - s->edge_count ||
            s->vertex_count < 0 || s->vertex_begin < 0 || s->vertex_begin > d->vertex_count - s->vertex_count)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shells[%d] ranges lie outside the description", fn, i);
        for (int e = s->edge_begin; e < s->edge_begin + s->edge_count; e++)
            for (int k = 0; k < 2; k++) {
                const osc_brep_edge* edge = &d->edges[e];
                int vertex = edge->vertex[k];
                if (edge->face[k] < s->face_begin || edge->face[k] >= s->face_begin + s->face_count ||
                    (vertex >= 0 && (vertex < s->vertex_begin || vertex >= s->vertex_begin + s->vertex_count)))
                    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: edges[%d] leaves shells[%d]", fn, e, i);
            }
        b->shells[i] = *s;
    }
    return OSC_OK;
}

osc_status osc_brep_create_shells(const osc_brep_desc* desc, const osc_brep_shell* shells, int shell_count,
                                  const osc_brep_settings* settings, osc_brep** out) {
    const char* fn = "osc_brep_create";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!desc) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc is NULL", fn);
    osc_brep_settings s = settings ? *settings : osc_brep_settings_default();
    osc_status st = check_settings(fn, &s);
    if (st == OSC_OK) st = check_description(desc);
    if (st == OSC_OK && shells && shell_count < 1)
        st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shell_count %d must be >= 1", fn, shell_count);
    if (st != OSC_OK) return st;
    osc_brep* b = osc_calloc(1, sizeof(osc_brep));
    if (!b) return osc_fail_in(fn, OSC_ERR_NO_MEMORY);
    b->settings = s;
    st = fill(b, desc);
    if (st == OSC_OK) st = copy_shells(b, shells, shell_count);
    if (st == OSC_OK) st = osc_brep_build_supermaximal(b);
    if (st == OSC_OK) st = osc_brep_build_bvh(b);
    if (st != OSC_OK) {
        osc_brep_destroy(b);
        return st == OSC_ERR_NO_MEMORY ? osc_fail_in(fn, st) : st;
    }
    *out = b;
    return OSC_OK;
}

osc_status osc_brep_create(const osc_brep_desc* desc, const osc_brep_settings* settings, osc_brep** out) {
    return osc_brep_create_shells(desc, NULL, 0, settings, out);
}

int osc_brep_shell_count(const osc_brep* brep) { return brep ? brep->shell_count : 0; }

osc_status osc_brep_get_shell(const osc_brep* brep, int index, osc_brep_shell* shell) {
    const char* fn = "osc_brep_get_shell";
    if (!brep) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: brep is NULL", fn);
    if (!shell) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shell is NULL", fn);
    if (index < 0 || index >= brep->shell_count)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: index %d is outside [0, %d)", fn, index, brep->shell_count);
    *shell = brep->shells[index];
    return OSC_OK;
}

// the description of one shell: its faces with a surface each, their loops and trims, its edges
// and vertices, indices rebased
static osc_status shell_description(const osc_brep* brep, const osc_brep_shell* shell, osc_brep_desc* d) {
    const osc_brep_desc* all = &brep->desc;
    int loops = 0, trims = 0;
    for (int f = shell->face_begin; f < shell->face_begin + shell->face_count; f++) {
        const osc_brep_face* face = &all->faces[f];
        loops += face->loop_count;
        for (int l = face->loop_begin; l < face->loop_begin + face->loop_count; l++) trims += all->loops[l].trim_count;
    }
    memset(d, 0, sizeof *d);
    osc_brep_surface* surfaces = osc_calloc((size_t)shell->face_count, sizeof *surfaces);
    osc_brep_face* faces = osc_calloc((size_t)shell->face_count, sizeof *faces);
    osc_brep_loop* new_loops = osc_calloc((size_t)loops + 1, sizeof *new_loops);
    osc_brep_trim* new_trims = osc_calloc((size_t)trims + 1, sizeof *new_trims);
    osc_brep_edge* edges = osc_calloc((size_t)shell->edge_count + 1, sizeof *edges);
    osc_vec3* vertices = osc_calloc((size_t)shell->vertex_count + 1, sizeof *vertices);
    d->surfaces = surfaces;
    d->faces = faces;
    d->loops = new_loops;
    d->trims = new_trims;
    d->edges = edges;
    d->vertices = vertices;
    if (!surfaces || !faces || !new_loops || !new_trims || !edges || !vertices) return OSC_ERR_NO_MEMORY;
    for (int i = 0; i < shell->face_count; i++) {
        const osc_brep_face* face = &all->faces[shell->face_begin + i];
        surfaces[i] = all->surfaces[face->surface];
        faces[i] = *face;
        faces[i].surface = i;
        faces[i].loop_begin = d->loop_count;
        for (int l = face->loop_begin; l < face->loop_begin + face->loop_count; l++) {
            const osc_brep_loop* loop = &all->loops[l];
            new_loops[d->loop_count].trim_begin = d->trim_count;
            new_loops[d->loop_count++].trim_count = loop->trim_count;
            memcpy(new_trims + d->trim_count, all->trims + loop->trim_begin,
                   (size_t)loop->trim_count * sizeof *new_trims);
            d->trim_count += loop->trim_count;
        }
    }
    for (int i = 0; i < shell->edge_count; i++) {
        edges[i] = all->edges[shell->edge_begin + i];
        for (int k = 0; k < 2; k++) {
            edges[i].face[k] -= shell->face_begin;
            if (edges[i].vertex[k] >= 0) edges[i].vertex[k] -= shell->vertex_begin;
        }
    }
    memcpy(vertices, all->vertices + shell->vertex_begin, (size_t)shell->vertex_count * sizeof *vertices);
    // the B-splines whole (surfaces and edges keep their indices into them)
    d->nurbs = all->nurbs;
    d->nurbs_count = all->nurbs_count;
    d->control_points = all->control_points;
    d->control_point_count = all->control_point_count;
    d->reals = all->reals;
    d->real_count = all->real_count;
    d->surface_count = d->face_count = shell->face_count;
    d->edge_count = shell->edge_count;
    d->vertex_count = shell->vertex_count;
    return OSC_OK;
}

osc_status osc_brep_create_from_shell(const osc_brep* brep, int index, const osc_brep_settings* settings,
                                      osc_brep** out) {
    const char* fn = "osc_brep_create_from_shell";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    osc_brep_shell shell;
    osc_status st = osc_brep_get_shell(brep, index, &shell);
    if (st != OSC_OK) return osc_fail_in(fn, st);
    osc_brep_desc d;
    st = shell_description(brep, &shell, &d);
    shell.face_begin = shell.edge_begin = shell.vertex_begin = 0;
    if (st == OSC_OK) st = osc_brep_create_shells(&d, &shell, 1, settings, out);
    for (int i = 0; st == OSC_OK && i < brep->skipped_count; i++) { // the shell's left-out faces
        if (brep->skipped[i].shell != index) continue;
        osc_brep* m = *out;
        osc_brep_skipped* grown = osc_calloc((size_t)m->skipped_count + 1, sizeof *grown);
        if (!grown) {
            st = OSC_ERR_NO_MEMORY;
            break;
        }
        if (m->skipped_count) memcpy(grown, m->skipped, (size_t)m->skipped_count * sizeof *grown);
        grown[m->skipped_count] = brep->skipped[i];
        grown[m->skipped_count].shell = 0;
        osc_free(m->skipped);
        m->skipped = grown;
        m->skipped_count++;
    }
    if (st != OSC_OK) {
        osc_brep_destroy(*out);
        *out = NULL;
    }
    osc_free((void*)d.surfaces);
    osc_free((void*)d.faces);
    osc_free((void*)d.loops);
    osc_free((void*)d.trims);
    osc_free((void*)d.edges);
    osc_free((void*)d.vertices);
    return st == OSC_OK ? OSC_OK : osc_fail_in(fn, st);
}

const osc_brep_desc* osc_brep_description(const osc_brep* brep) { return brep ? &brep->desc : NULL; }

osc_status osc_brep_get_info(const osc_brep* brep, osc_brep_info* info) {
    if (!brep) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_get_info: brep is NULL");
    if (!info) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_get_info: info is NULL");
    memset(info, 0, sizeof *info);
    info->face_count = brep->desc.face_count;
    info->edge_count = brep->desc.edge_count;
    info->vertex_count = brep->desc.vertex_count;
    for (int i = 0; i < brep->desc.edge_count; i++) {
        switch (brep->edge_data[i].status) {
            case OSC_EDGE_CONVEX: info->convex_edge_count++; break;
            case OSC_EDGE_CONCAVE: info->concave_edge_count++; break;
            case OSC_EDGE_SMOOTH: info->smooth_edge_count++; break;
        }
    }
    info->leaf_count = brep->leaf_count;
    info->node_count = brep->node_count;
    info->lo = brep->lo;
    info->hi = brep->hi;
    return OSC_OK;
}
