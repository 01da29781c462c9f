// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_bvh.c: the offline structure of thesis chapters 2-3: quasi-flat pieces of faces and edges
// (Algorithm 3, specialised per canonical surface as §2.4.1 suggests), pieces wholly outside the
// trimming loops dropped, one leaf per piece and per vertex of a convex edge, each with an OBB, a
// polyhedral normal cone (meridian / latitude rules of §3.3) and a cone of revolution, curvature
// masks (Tables 2.1-2.2), and the binary tree built top-down at the median of the principal axis
// (§2.4.4).

#include <math.h>
#include <string.h>

#include "array_internal.h"
#include "brep_internal.h"
#include "osculate/lmd.h"
#include "osculate/math.h"

// ---- curvature classes and masks (thesis Table 2.2) -------------------------------------------

enum {
    CLASS_PLANE = 0,
    CLASS_CONVEX_CYLINDER = 1, // convex cylinders and cones, line edges (a cylinder of radius 0)
    CLASS_CONCAVE_SCC = 2,     // concave spheres, cylinders, cones
    CLASS_CONCAVE_TORUS = 3,
    CLASS_CONVEX_SPHERE = 4, // and vertices (compatible with everything)
    CLASS_CONVEX_TORUS = 5,  // and circular edges (compatible with everything)
    CLASS_COUNT = 6
};

// incompatible pairs of Table 2.2 (a cross); every other pair may hold an isolated minimum
static bool incompatible(int a, int b) {
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if (a == CLASS_PLANE) return b <= CLASS_CONCAVE_TORUS;
    if (a == CLASS_CONVEX_CYLINDER) return b == CLASS_CONCAVE_SCC;
    if (a == CLASS_CONCAVE_SCC) return b == CLASS_CONCAVE_SCC || b == CLASS_CONCAVE_TORUS;
    if (a == CLASS_CONCAVE_TORUS) return b == CLASS_CONCAVE_TORUS;
    return false;
}

static uint32_t compat_mask(int cls) {
    uint32_t m = 0;
    for (int k = 0; k < CLASS_COUNT; k++)
        if (!incompatible(cls, k)) m |= 1u << k;
    return m;
}

static int face_class(const osc_face_data* fd) {
    switch (fd->geo.kind) {
        case OSC_GEO_PLANE: return CLASS_PLANE;
        case OSC_GEO_CYLINDER:
        case OSC_GEO_CONE: return fd->convexity > 0 ? CLASS_CONVEX_CYLINDER : CLASS_CONCAVE_SCC;
        case OSC_GEO_SPHERE: return fd->convexity > 0 ? CLASS_CONVEX_SPHERE : CLASS_CONCAVE_SCC;
        case OSC_GEO_TORUS: return fd->convexity > 0 ? CLASS_CONVEX_TORUS : CLASS_CONCAVE_TORUS;
        default: return CLASS_CONVEX_SPHERE;
    }
}

// ---- normal cones -----------------------------------------------------------------------------

typedef struct cone_builder {
    osc_vec3 gen[8];
    int count;
    bool unbounded;
} cone_builder;

static void cone_add(cone_builder* c, osc_vec3 g) {
    double len = osc_length(g);
    if (!(len > 0.0)) return;
    g = osc_scale(g, 1.0 / len);
    for (int i = 0; i < c->count; i++)
        if (osc_dot(c->gen[i], g) > 1.0 - 1e-13) return;
    if (c->count < 8)
        c->gen[c->count++] = g;
    else
        c->unbounded = true;
}

// Adds generators bounding a circular arc of unit normals through n0, nm (middle), n1: the two ends
// and the intersection of the arc's end tangents (thesis Fig. 3.8; the arc lies in their cone).
static void cone_add_arc(cone_builder* c, osc_vec3 n0, osc_vec3 nm, osc_vec3 n1) {
    cone_add(c, n0);
    cone_add(c, n1);
    osc_vec3 mid = osc_scale(osc_add(n0, n1), 0.5), w = osc_sub(nm, mid);
    double wl = osc_length(w), chord = osc_length(osc_sub(n1, n0));
    if (wl < 1e-14 || chord < 1e-14) {
        cone_add(c, nm);
        return;
    }
    double h = 2.0 * atan(2.0 * wl / chord);
    if (cos(h) < 0.05) {
        c->unbounded = true;
        return;
    }
    cone_add(c, osc_add(nm, osc_scale(w, 1.0 / cos(h))));
}

static void cone_finish(const cone_builder* c, osc_brep_leaf* leaf, osc_brep_node* node) {
    leaf->gen_count = c->unbounded ? 0 : c->count;
    for (int i = 0; i < leaf->gen_count; i++) leaf->gen[i] = c->gen[i];
    osc_vec3 s = osc_v3(0, 0, 0);
    for (int i = 0; i < c->count; i++) s = osc_add(s, c->gen[i]);
    double len = osc_length(s);
    if (c->unbounded || c->count == 0 || len < 1e-9) {
        node->cone_axis = osc_v3(0, 0, 1);
        node->cone_angle = k_pi;
        return;
    }
    node->cone_axis = osc_scale(s, 1.0 / len);
    double angle = 0.0;
    for (int i = 0; i < c->count; i++) {
        double d = osc_dot(c->gen[i], node->cone_axis);
        angle = fmax(angle, acos(d > 1.0 ? 1.0 : (d < -1.0 ? -1.0 : d)));
    }
    node->cone_angle = angle + 1e-9;
}

// ---- OBBs -------------------------------------------------------------------------------------

// OBB with the given orthonormal axes around `count` points, inflated by `margin`.
static void obb_fit(osc_brep_node* node, const osc_vec3 axes[3], const osc_vec3* points, int count, double margin) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            double d = osc_dot(points[i], axes[k]);
            lo[k] = fmin(lo[k], d);
            hi[k] = fmax(hi[k], d);
        }
    osc_vec3 c = osc_v3(0, 0, 0);
    double h[3];
    for (int k = 0; k < 3; k++) {
        node->axis[k] = axes[k];
        c = osc_add_scaled(c, axes[k], 0.5 * (lo[k] + hi[k]));
        h[k] = 0.5 * (hi[k] - lo[k]) + margin;
    }
    node->center = c;
    node->half = osc_v3(h[0], h[1], h[2]);
}

static void frame_from(osc_vec3 a, osc_vec3 n, osc_vec3 axes[3]) {
    osc_vec3 z = osc_normalize(n);
    osc_vec3 x = osc_sub(a, osc_scale(z, osc_dot(a, z)));
    if (osc_length(x) < 1e-12) x = fabs(z.x) < 0.9 ? osc_v3(1, 0, 0) : osc_v3(0, 1, 0);
    x = osc_normalize(osc_sub(x, osc_scale(z, osc_dot(x, z))));
    axes[0] = x;
    axes[1] = osc_cross(z, x);
    axes[2] = z;
}

// The smallest radius of curvature of a face over v in [v0, v1] (for the OBB's sag margin).
static double min_curvature_radius(const osc_geo* g, double v0, double v1) {
    switch (g->kind) {
        case OSC_GEO_CYLINDER:
        case OSC_GEO_SPHERE: return g->R;
        case OSC_GEO_CONE: {
            double r0 = g->R + v0 * sin(g->a), r1 = g->R + v1 * sin(g->a);
            return fmax(fmin(fabs(r0), fabs(r1)), 1e-12) / cos(g->a);
        }
        case OSC_GEO_TORUS: {
            // the meridian radius r and the parallel's |R + r cos v| / |cos v| = |R / cos v + r|, monotone
            // in cos v on each sign: its least value at an end of [v0, v1] or where cos v = +-1
            double best = g->r;
            double vs[4] = {v0, v1, 0.0, k_pi};
            for (int k = 0; k < 4; k++) {
                double v = vs[k];
                if (k >= 2) {
                    v += k_two_pi * ceil((v0 - v) / k_two_pi);
                    if (v > v1) continue;
                }
                double c = cos(v);
                if (fabs(c) > 1e-12) best = fmin(best, fabs(g->R / c + g->r));
            }
            return fmax(best, 1e-12);
        }
        default: return INFINITY;
    }
}

// The largest distance from a face's piece over v in [v0, v1] to the convex hull of its samples
// spaced du x dv (the OBB's margin). A surface of revolution is swept by its meridian (a line, or a
// circle of radius r) along parallels of radius |rho(v)|: a point lies within max |rho| (1 - cos(du/2))
// of the chord of its parallel between two sample meridians, whose ends lie within r (1 - cos(dv/2))
// of those meridians' chords. It stays bounded where the parallels shrink to a cone's apex or a
// spindle torus's cusp, where the sag estimate of the least radius of curvature grows without bound,
// and caps it there.
static double sample_sag(const osc_geo* g, double du, double dv, double v0, double v1) {
    double across = 1.0 - cos(0.5 * du), along = 1.0 - cos(0.5 * dv);
    switch (g->kind) {
        case OSC_GEO_CYLINDER:
        case OSC_GEO_SPHERE: return g->R * (across + (g->kind == OSC_GEO_SPHERE ? along : 0.0));
        case OSC_GEO_CONE: return fmax(fabs(g->R + v0 * sin(g->a)), fabs(g->R + v1 * sin(g->a))) * across;
        case OSC_GEO_TORUS: {
            // |R + r cos v| is largest at an end of [v0, v1] or where cos v = +-1 inside it
            double rho = fmax(fabs(g->R + g->r * cos(v0)), fabs(g->R + g->r * cos(v1)));
            double extremes[2] = {0.0, k_pi};
            for (int k = 0; k < 2; k++) {
                double v = extremes[k] + k_two_pi * ceil((v0 - extremes[k]) / k_two_pi);
                if (v <= v1) rho = fmax(rho, fabs(g->R + g->r * cos(v)));
            }
            return rho * across + g->r * along;
        }
        default: return 0.0;
    }
}

// ---- leaves -----------------------------------------------------------------------------------

typedef struct leaf_list {
    osc_brep_leaf* leaves;
    osc_brep_node* boxes; // per leaf: OBB and cone of revolution
    int count;            // at most settings.max_leaf_count <= OSC_BREP_MAX_LEAVES
    size_t capacity;
} leaf_list;

static osc_status leaf_push(leaf_list* l, int max_count, osc_brep_leaf** leaf, osc_brep_node** box) {
    if (l->count >= max_count)
        return osc_fail(OSC_ERR_CAPACITY,
                        "osc_brep_create: the BVH needs more than %d leaves "
                        "(settings.max_leaf_count)",
                        max_count);
    if ((size_t)l->count == l->capacity) {
        // the boxes grow to what the leaves will: the two share one capacity
        size_t box_capacity = l->capacity;
        osc_status status = OSC_ARRAY_RESERVE(l->boxes, box_capacity, (size_t)l->count + 1);
        if (!status) status = OSC_ARRAY_RESERVE(l->leaves, l->capacity, (size_t)l->count + 1);
        if (status) return status;
    }
    *leaf = &l->leaves[l->count];
    *box = &l->boxes[l->count];
    memset(*leaf, 0, sizeof **leaf);
    memset(*box, 0, sizeof **box);
    l->count++;
    return OSC_OK;
}

// Is the parameter rectangle possibly (partly) inside the face's trimmed domain?
static bool cell_may_be_inside(const osc_brep* b, int face, double u0, double u1, double v0, double v1) {
    const osc_face_data* fd = &b->face_data[face];
    if (fd->piece_count == 0) return true;
    for (int i = 0; i < fd->piece_count; i++) {
        const osc_trim_piece* p = &b->pieces[fd->piece_begin + i];
        double pu0, pu1;
        if (p->branch == 0.0) {
            pu0 = fmin(p->u0, p->u1);
            pu1 = fmax(p->u0, p->u1);
        } else {
            pu0 = p->cu - p->radius;
            pu1 = p->cu + p->radius;
        }
        double pv0 = fmin(p->v0, p->v1), pv1 = fmax(p->v0, p->v1);
        if (pu1 >= u0 && pu0 <= u1 && pv1 >= v0 && pv0 <= v1) return true; // a trim crosses it
    }
    return osc_brep_face_contains_wrapped(b, face, 0.5 * (u0 + u1), 0.5 * (v0 + v1)) != 0;
}

static int pieces_for(double span, double piece, int cap) {
    if (!(piece > 0.0)) return 1;
    double n = ceil(span / piece - 1e-9);
    return n < 1.0 ? 1 : (n > cap ? cap : (int)n);
}

// ---- free-form faces and edges (Crozet 2017 §3.3.3, §3.5) --------------------------------------

// The distinct parameters where a B-spline's pieces meet inside [lo, hi], with lo and hi: breaks
// [count], at most count[k] - degree[k] + 1.
static int knot_breaks(const osc_nurbs* n, int k, double lo, double hi, double* breaks) {
    int count = 0;
    breaks[count++] = lo;
    for (int j = n->degree[k] + 1; j < n->count[k]; j++) {
        double t = n->knots[k][j];
        if (t > breaks[count - 1] && t < hi) breaks[count++] = t;
    }
    breaks[count++] = hi;
    return count;
}

// Generators of a polyhedral cone holding the cone of revolution (axis, half angle theta): six
// about a regular hexagon circumscribing its circle (at angle atan(tan theta / cos(pi / 6))), none
// (no bound) past 1.2 rad.
static void hexagon_cone(osc_vec3 axis, double theta, osc_brep_leaf* leaf, osc_brep_node* box) {
    box->cone_axis = axis;
    box->cone_angle = theta >= k_pi ? k_pi : theta + 1e-9;
    leaf->gen_count = 0;
    if (!(theta <= 1.2)) return;
    osc_vec3 e[3];
    frame_from(osc_v3(1, 0, 0), axis, e);
    double phi = atan(tan(theta) / cos(k_pi / 6.0)) + 1e-9;
    for (int k = 0; k < 6; k++) {
        double a = k_two_pi * k / 6.0;
        osc_vec3 side = osc_add(osc_scale(e[0], cos(a)), osc_scale(e[1], sin(a)));
        leaf->gen[k] = osc_normalize(osc_add(osc_scale(axis, cos(phi)), osc_scale(side, sin(phi))));
    }
    leaf->gen_count = 6;
}

// Scratch memory for the Bezier pieces of one B-spline.
typedef struct bezier_scratch {
    double* patch; // [(p + 1)(q + 1)][4]
    double* work;  // osc_nurbs_normal_work
    double* net;   // [(3p)(3q)][3]
    osc_vec3* points;
} bezier_scratch;

static osc_status scratch_init(bezier_scratch* s, int p, int q) {
    size_t pts = (size_t)(p + 1) * (q + 1);
    s->patch = osc_calloc(4 * pts, sizeof(double));
    s->work = osc_calloc(osc_nurbs_normal_work(p, q) + 16 * (size_t)(p + 1), sizeof(double));
    s->net = osc_calloc(3 * (size_t)(3 * p) * (3 * (q > 0 ? q : 1)) + 6 * (size_t)p, sizeof(double));
    s->points = osc_calloc(pts, sizeof(osc_vec3));
    return s->patch && s->work && s->net && s->points ? OSC_OK : OSC_ERR_NO_MEMORY;
}

static void scratch_free(bezier_scratch* s) {
    osc_free(s->patch);
    osc_free(s->work);
    osc_free(s->net);
    osc_free(s->points);
}

// The Euclidean control points of a homogeneous Bezier net (the piece lies in their convex hull,
// weights being positive).
static void euclidean_points(const double* cw, int count, osc_vec3* out) {
    for (int i = 0; i < count; i++)
        out[i] = osc_scale(osc_v3(cw[4 * i], cw[4 * i + 1], cw[4 * i + 2]), 1.0 / cw[4 * i + 3]);
}

// A leaf over [u0, u1] x [v0, v1] of NURBS face `face`: its OBB holds the Bezier patch's control
// points, its cones the control vectors of the scaled normal surface.
static osc_status nurbs_face_leaf(osc_brep* b, int face, const double* lo, const double* hi, const bezier_scratch* s,
                                  osc_vec3 axis, double theta, leaf_list* list) {
    const osc_face_data* fd = &b->face_data[face];
    const osc_nurbs* n = fd->geo.nurbs;
    osc_brep_leaf* leaf;
    osc_brep_node* box;
    osc_status st = leaf_push(list, b->settings.max_leaf_count, &leaf, &box);
    if (st != OSC_OK) return st;
    leaf->kind = OSC_FEATURE_FACE;
    leaf->feature = face;
    leaf->lo[0] = lo[0];
    leaf->hi[0] = hi[0];
    leaf->lo[1] = lo[1];
    leaf->hi[1] = hi[1];
    leaf->type_mask = 1u << CLASS_CONVEX_SPHERE; // any curvature: compatible with every class
    leaf->compat_mask = compat_mask(CLASS_CONVEX_SPHERE);
    int count = (n->degree[0] + 1) * (n->degree[1] + 1);
    euclidean_points(s->patch, count, s->points);
    double tc[2] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])};
    osc_vec3 pc, d1[2], axes[3];
    osc_geo_eval(&fd->geo, tc, &pc, d1, NULL);
    frame_from(d1[0], osc_geo_normal(&fd->geo, tc[0], tc[1]), axes);
    obb_fit(box, axes, s->points, count, 1e-12 * b->scale);
    hexagon_cone(osc_scale(axis, fd->geo.sense), theta, leaf, box);
    return OSC_OK;
}

// The largest angle between the normals at the ends and the middle of three iso-lines of direction
// d (0: u, 1: v) across the piece [lo, hi].
static double normal_turn(const osc_nurbs* n, const double* lo, const double* hi, int d) {
    double worst = 0.0;
    for (int line = 0; line < 3; line++) {
        double t[2];
        osc_vec3 m[3];
        t[1 - d] = lo[1 - d] + 0.5 * line * (hi[1 - d] - lo[1 - d]);
        for (int k = 0; k < 3; k++) {
            t[d] = lo[d] + 0.5 * k * (hi[d] - lo[d]);
            m[k] = osc_nurbs_normal(n, t[0], t[1]);
        }
        for (int k = 0; k < 3; k++) {
            osc_vec3 x = m[k], y = m[(k + 1) % 3];
            worst = fmax(worst, atan2(osc_length(osc_cross(x, y)), osc_dot(x, y)));
        }
    }
    return worst;
}

// The leaves of a NURBS face: its knot spans inside the face's box, each halved (in the direction
// along which its normals turn more; Algorithm 3 quarters instead) until the scaled
// normal surface's control vectors lie within alpha_max / 2 of their axis (Algorithm 3 on the
// Bezier pieces, Crozet 2017 §3.3.3), at most 10 times; cells outside the trimming loops are
// dropped.
static osc_status add_nurbs_face_leaves(osc_brep* b, int face, leaf_list* list) {
    const osc_brep_face* f = &b->faces[face];
    const osc_nurbs* n = b->face_data[face].geo.nurbs;
    int p = n->degree[0], q = n->degree[1];
    b->face_data[face].grid[0] = b->face_data[face].grid[1] = 64;
    const int BREAKS = n->count[0] + 2;
    double* breaks = osc_calloc((size_t)BREAKS + n->count[1] + 2, sizeof(double));
    bezier_scratch s;
    osc_status st = scratch_init(&s, p, q);
    if (!breaks) st = OSC_ERR_NO_MEMORY;
    int nu = st == OSC_OK ? knot_breaks(n, 0, f->umin, f->umax, breaks) : 0;
    int nv = st == OSC_OK ? knot_breaks(n, 1, f->vmin, f->vmax, breaks + BREAKS) : 0;
    for (int i = 0; i + 1 < nu && st == OSC_OK; i++)
        for (int j = 0; j + 1 < nv && st == OSC_OK; j++) {
            struct {
                double lo[2], hi[2];
                int depth;
            } stack[32];
            int top = 0;
            stack[top].lo[0] = breaks[i];
            stack[top].hi[0] = breaks[i + 1];
            stack[top].lo[1] = breaks[BREAKS + j];
            stack[top].hi[1] = breaks[BREAKS + j + 1];
            stack[top++].depth = 0;
            while (top > 0 && st == OSC_OK) {
                --top;
                double lo[2] = {stack[top].lo[0], stack[top].lo[1]}, hi[2] = {stack[top].hi[0], stack[top].hi[1]};
                int depth = stack[top].depth;
                if (!cell_may_be_inside(b, face, lo[0], hi[0], lo[1], hi[1])) continue;
                osc_nurbs_bezier(n, lo, hi, s.patch);
                int vectors = osc_nurbs_normal_net(s.patch, p, q, n->rational, s.work, s.net);
                osc_vec3 axis;
                double theta = osc_vectors_cone(s.net, vectors, &axis);
                if (2.0 * theta <= b->settings.alpha_max || depth >= 10) {
                    st = nurbs_face_leaf(b, face, lo, hi, &s, axis, theta, list);
                    continue;
                }
                // split the direction along which the normals turn more (a blend's normals turn
                // across its short side, where halving the longer side narrows nothing; and an
                // S-shaped profile's halves each span its whole turn, so the halves' cones do not
                // tell either); on a tie, the side longer in space (the control net's extent)
                double along_u = 0.0, along_v = 0.0;
                euclidean_points(s.patch, (p + 1) * (q + 1), s.points);
                for (int a = 0; a <= p; a++)
                    for (int c = 0; c <= q; c++) {
                        osc_vec3 x = s.points[a * (q + 1) + c];
                        if (a < p) along_u = fmax(along_u, osc_length(osc_sub(s.points[(a + 1) * (q + 1) + c], x)));
                        if (c < q) along_v = fmax(along_v, osc_length(osc_sub(s.points[a * (q + 1) + c + 1], x)));
                    }
                double turn_u = normal_turn(n, lo, hi, 0), turn_v = normal_turn(n, lo, hi, 1);
                int k = fabs(turn_u - turn_v) > 1e-9 ? (turn_u > turn_v ? 0 : 1) : (along_u * p >= along_v * q ? 0 : 1);
                double mid = 0.5 * (lo[k] + hi[k]);
                for (int half = 0; half < 2; half++) {
                    stack[top].lo[0] = lo[0];
                    stack[top].lo[1] = lo[1];
                    stack[top].hi[0] = hi[0];
                    stack[top].hi[1] = hi[1];
                    if (half == 0)
                        stack[top].hi[k] = mid;
                    else
                        stack[top].lo[k] = mid;
                    stack[top++].depth = depth + 1;
                }
            }
        }
    scratch_free(&s);
    osc_free(breaks);
    return st;
}

// The leaves of a NURBS edge: its knot spans inside [t0, t1], each halved until the hodograph's
// control vectors lie within alpha_max / 2 of their axis (Crozet 2017 §3.5), at most 8 times. The
// OBBs hold the Bezier control points; the normal cones are unbounded (the faces' normals along a
// free-form edge are not bounded here).
static osc_status add_nurbs_edge_leaves(osc_brep* b, int edge, leaf_list* list) {
    const osc_brep_edge* e = &b->edges[edge];
    const osc_geo* g = &b->edge_data[edge].geo;
    const osc_nurbs* n = g->nurbs;
    int p = n->degree[0];
    b->edge_data[edge].grid = 64;
    double* breaks = osc_calloc((size_t)n->count[0] + 2, sizeof(double));
    bezier_scratch s;
    osc_status st = scratch_init(&s, p, 0);
    if (!breaks) st = OSC_ERR_NO_MEMORY;
    int nt = st == OSC_OK ? knot_breaks(n, 0, e->t0, e->t1, breaks) : 0;
    for (int i = 0; i + 1 < nt && st == OSC_OK; i++) {
        struct {
            double lo, hi;
            int depth;
        } stack[32];
        int top = 0;
        stack[top].lo = breaks[i];
        stack[top].hi = breaks[i + 1];
        stack[top++].depth = 0;
        while (top > 0 && st == OSC_OK) {
            --top;
            double lo = stack[top].lo, hi = stack[top].hi;
            int depth = stack[top].depth;
            osc_nurbs_bezier(n, &lo, &hi, s.patch);
            int vectors = osc_nurbs_tangent_net(s.patch, p, n->rational, s.work, s.net);
            osc_vec3 axis;
            double theta = osc_vectors_cone(s.net, vectors, &axis);
            if (!(2.0 * theta <= b->settings.alpha_max) && depth < 8) {
                double mid = 0.5 * (lo + hi);
                stack[top].lo = lo;
                stack[top].hi = mid;
                stack[top++].depth = depth + 1;
                stack[top].lo = mid;
                stack[top].hi = hi;
                stack[top++].depth = depth + 1;
                continue;
            }
            osc_brep_leaf* leaf;
            osc_brep_node* box;
            if ((st = leaf_push(list, b->settings.max_leaf_count, &leaf, &box)) != OSC_OK) break;
            leaf->kind = OSC_FEATURE_EDGE;
            leaf->feature = edge;
            leaf->lo[0] = lo;
            leaf->hi[0] = hi;
            leaf->type_mask = 1u << CLASS_CONVEX_TORUS;
            leaf->compat_mask = compat_mask(CLASS_CONVEX_TORUS);
            euclidean_points(s.patch, p + 1, s.points);
            double tm = 0.5 * (lo + hi);
            osc_vec3 pm, d1, d2, axes[3];
            osc_geo_eval(g, &tm, &pm, &d1, &d2);
            osc_vec3 side = osc_cross(d1, d2);
            if (!(osc_length(side) > 1e-12 * osc_length(d1) * osc_length(d2))) side = osc_cross(d1, osc_v3(1, 0, 0));
            if (!(osc_length(side) > 1e-12 * osc_length(d1))) side = osc_cross(d1, osc_v3(0, 1, 0));
            frame_from(d1, side, axes);
            obb_fit(box, axes, s.points, p + 1, 1e-12 * b->scale);
            hexagon_cone(axis, k_pi, leaf, box);
        }
    }
    scratch_free(&s);
    osc_free(breaks);
    return st;
}

static osc_status add_face_leaves(osc_brep* b, int face, leaf_list* list) {
    const osc_brep_face* f = &b->faces[face];
    const osc_face_data* fd = &b->face_data[face];
    const osc_geo* g = &fd->geo;
    if (g->kind == OSC_GEO_NURBS_SURFACE) return add_nurbs_face_leaves(b, face, list);
    double du = f->umax - f->umin, dv = f->vmax - f->vmin;
    double amax = b->settings.alpha_max;
    int nu, nv;
    switch (g->kind) {
        case OSC_GEO_PLANE: {
            double side = fmax(du, dv) * b->settings.plane_cell;
            nu = pieces_for(du, side, 64);
            nv = pieces_for(dv, side, 64);
            break;
        }
        case OSC_GEO_CYLINDER:
            nu = pieces_for(du, amax, 256);
            nv = pieces_for(dv, 2.0 * g->R, 64);
            break;
        case OSC_GEO_CONE: {
            double rmax = fmax(fabs(g->R + f->vmin * sin(g->a)), fabs(g->R + f->vmax * sin(g->a)));
            nu = pieces_for(du, amax, 256);
            nv = pieces_for(dv, fmax(2.0 * rmax, 1e-6 * b->scale), 64);
            break;
        }
        default:
            nu = pieces_for(du, amax, 256);
            nv = pieces_for(dv, amax, 256);
            break;
    }
    b->face_data[face].grid[0] = nu;
    b->face_data[face].grid[1] = nv;
    for (int i = 0; i < nu; i++) {
        for (int j = 0; j < nv; j++) {
            double u0 = f->umin + du * i / nu, u1 = f->umin + du * (i + 1) / nu;
            double v0 = f->vmin + dv * j / nv, v1 = f->vmin + dv * (j + 1) / nv;
            if (!cell_may_be_inside(b, face, u0, u1, v0, v1)) continue;
            osc_brep_leaf* leaf;
            osc_brep_node* box;
            osc_status st = leaf_push(list, b->settings.max_leaf_count, &leaf, &box);
            if (st != OSC_OK) return st;
            leaf->kind = OSC_FEATURE_FACE;
            leaf->feature = face;
            leaf->lo[0] = u0;
            leaf->hi[0] = u1;
            leaf->lo[1] = v0;
            leaf->hi[1] = v1;
            int cls = face_class(fd);
            leaf->type_mask = 1u << cls;
            leaf->compat_mask = compat_mask(cls);
            // polyhedral normal cone: latitude rows at v0 and v1 (one row when n(u) only)
            double um = 0.5 * (u0 + u1);
            cone_builder cb;
            memset(&cb, 0, sizeof cb);
            bool two_rows = g->kind == OSC_GEO_SPHERE || g->kind == OSC_GEO_TORUS;
            for (int r = 0; r < (two_rows ? 2 : 1); r++) {
                double v = r == 0 ? v0 : v1;
                cone_add_arc(&cb, osc_geo_normal(g, u0, v), osc_geo_normal(g, um, v), osc_geo_normal(g, u1, v));
            }
            // OBB: 5 x 5 samples, frame from the centre's tangent and normal, sag margin
            enum { S = 5 };
            osc_vec3 pts[S * S];
            for (int a = 0; a < S; a++)
                for (int c = 0; c < S; c++) {
                    double t[2] = {u0 + (u1 - u0) * a / (S - 1), v0 + (v1 - v0) * c / (S - 1)};
                    osc_geo_eval(g, t, &pts[a * S + c], NULL, NULL);
                }
            double tc[2] = {um, 0.5 * (v0 + v1)};
            osc_vec3 pc, d1[2];
            osc_geo_eval(g, tc, &pc, d1, NULL);
            osc_vec3 axes[3];
            frame_from(d1[0], osc_geo_normal(g, tc[0], tc[1]), axes);
            double spacing = 0.0;
            for (int a = 0; a + 1 < S; a++)
                for (int c = 0; c + 1 < S; c++) {
                    spacing = fmax(spacing, osc_length(osc_sub(pts[(a + 1) * S + c], pts[a * S + c])));
                    spacing = fmax(spacing, osc_length(osc_sub(pts[a * S + c + 1], pts[a * S + c])));
                }
            double rho = min_curvature_radius(g, v0, v1);
            double estimate = isfinite(rho) ? spacing * spacing / (8.0 * rho) * 1.5 : 0.0;
            double sag = fmin(estimate, sample_sag(g, (u1 - u0) / (S - 1), (v1 - v0) / (S - 1), v0, v1));
            obb_fit(box, axes, pts, S * S, sag + 1e-12 * b->scale);
            cone_finish(&cb, leaf, box);
        }
    }
    return OSC_OK;
}

static osc_status add_edge_leaves(osc_brep* b, int edge, leaf_list* list) {
    const osc_brep_edge* e = &b->edges[edge];
    osc_edge_data* ed = &b->edge_data[edge];
    if (ed->status != OSC_EDGE_CONVEX) return OSC_OK; // thesis §1.3.1.3: no LMD on them
    const osc_geo* g = &ed->geo;
    if (g->kind == OSC_GEO_NURBS_CURVE) return add_nurbs_edge_leaves(b, edge, list);
    // the faces' normals along the edge are bounded only on canonical surfaces
    bool free_form = b->face_data[e->face[0]].geo.kind == OSC_GEO_NURBS_SURFACE ||
                     b->face_data[e->face[1]].geo.kind == OSC_GEO_NURBS_SURFACE;
    int n = g->kind == OSC_GEO_LINE ? pieces_for(e->t1 - e->t0, b->scale / 8.0, 64)
                                    : pieces_for(e->t1 - e->t0, b->settings.alpha_max, 256);
    b->edge_data[edge].grid = n;
    for (int i = 0; i < n; i++) {
        double t0 = e->t0 + (e->t1 - e->t0) * i / n, t1 = e->t0 + (e->t1 - e->t0) * (i + 1) / n;
        double tm = 0.5 * (t0 + t1);
        osc_brep_leaf* leaf;
        osc_brep_node* box;
        osc_status st = leaf_push(list, b->settings.max_leaf_count, &leaf, &box);
        if (st != OSC_OK) return st;
        leaf->kind = OSC_FEATURE_EDGE;
        leaf->feature = edge;
        leaf->lo[0] = t0;
        leaf->hi[0] = t1;
        int cls = g->kind == OSC_GEO_LINE ? CLASS_CONVEX_CYLINDER : CLASS_CONVEX_TORUS;
        leaf->type_mask = 1u << cls;
        leaf->compat_mask = compat_mask(cls);
        // polyhedral cone: each face's normals along the piece (arcs of circles on the sphere)
        cone_builder cb;
        memset(&cb, 0, sizeof cb);
        osc_vec3 p0, pm, p1, tangent;
        osc_geo_eval(g, &t0, &p0, NULL, NULL);
        osc_geo_eval(g, &tm, &pm, &tangent, NULL);
        osc_geo_eval(g, &t1, &p1, NULL, NULL);
        for (int s = 0; s < 2; s++)
            cone_add_arc(&cb, osc_brep_face_normal_at(b, e->face[s], p0), osc_brep_face_normal_at(b, e->face[s], pm),
                         osc_brep_face_normal_at(b, e->face[s], p1));
        enum { S = 9 };
        osc_vec3 pts[S];
        for (int k = 0; k < S; k++) {
            double t = t0 + (t1 - t0) * k / (S - 1);
            osc_geo_eval(g, &t, &pts[k], NULL, NULL);
        }
        osc_vec3 axes[3];
        osc_vec3 side = g->kind == OSC_GEO_CIRCLE ? osc_sub(pm, g->o) : g->x;
        frame_from(tangent, osc_cross(tangent, side), axes);
        double sag = 0.0;
        if (g->kind == OSC_GEO_CIRCLE) {
            double h = g->R * (t1 - t0) / (S - 1);
            sag = 1.5 * h * h / (8.0 * g->R);
        }
        obb_fit(box, axes, pts, S, sag + 1e-12 * b->scale);
        cone_finish(&cb, leaf, box);
        if (free_form) hexagon_cone(osc_v3(0, 0, 1), k_pi, leaf, box);
    }
    return OSC_OK;
}

static osc_status add_vertex_leaf(osc_brep* b, int vertex, leaf_list* list) {
    const osc_vertex_data* vd = &b->vertex_data[vertex];
    if (!vd->active) return OSC_OK;
    osc_brep_leaf* leaf;
    osc_brep_node* box;
    osc_status st = leaf_push(list, b->settings.max_leaf_count, &leaf, &box);
    if (st != OSC_OK) return st;
    leaf->kind = OSC_FEATURE_VERTEX;
    leaf->feature = vertex;
    leaf->type_mask = 1u << CLASS_CONVEX_SPHERE;
    leaf->compat_mask = compat_mask(CLASS_CONVEX_SPHERE);
    cone_builder cb;
    memset(&cb, 0, sizeof cb);
    for (int i = 0; i < vd->normal_count; i++) cone_add(&cb, b->vertex_vectors[vd->normal_begin + i]);
    osc_vec3 axes[3] = {osc_v3(1, 0, 0), osc_v3(0, 1, 0), osc_v3(0, 0, 1)};
    obb_fit(box, axes, &b->vertices[vertex], 1, 1e-12 * b->scale);
    cone_finish(&cb, leaf, box);
    return OSC_OK;
}

// ---- the tree ---------------------------------------------------------------------------------

// Power iteration on a symmetric 3 x 3 matrix from `start` (unit; kept when c is zero).
static osc_vec3 dominant_eigenvector(double c[3][3], osc_vec3 start) {
    double x[3] = {start.x, start.y, start.z};
    for (int it = 0; it < 32; it++) {
        double y[3];
        for (int r = 0; r < 3; r++) y[r] = c[r][0] * x[0] + c[r][1] * x[1] + c[r][2] * x[2];
        double n = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
        if (!(n > 0.0)) break;
        for (int r = 0; r < 3; r++) x[r] = y[r] / n;
    }
    return osc_v3(x[0], x[1], x[2]);
}

static osc_vec3 principal_axis(const osc_brep_node* boxes, const int* index, int count) {
    osc_vec3 mean = osc_v3(0, 0, 0);
    for (int i = 0; i < count; i++) mean = osc_add(mean, boxes[index[i]].center);
    mean = osc_scale(mean, 1.0 / count);
    double c[3][3] = {{0}};
    for (int i = 0; i < count; i++) {
        osc_vec3 d = osc_sub(boxes[index[i]].center, mean);
        double v[3] = {d.x, d.y, d.z};
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) c[r][k] += v[r] * v[k];
    }
    // from the axis of largest variance
    int best = 0;
    for (int k = 1; k < 3; k++)
        if (c[k][k] > c[best][best]) best = k;
    return dominant_eigenvector(c, osc_v3(best == 0, best == 1, best == 2));
}

typedef struct keyed {
    double key;
    int index;
} keyed;

static int compare_keyed(const void* pa, const void* pb) {
    const keyed* a = pa;
    const keyed* b = pb;
    if (a->key < b->key) return -1;
    if (a->key > b->key) return 1;
    return a->index - b->index;
}

static void obb_corners(const osc_brep_node* n, osc_vec3 out[8]) {
    for (int k = 0; k < 8; k++) {
        osc_vec3 p = n->center;
        p = osc_add_scaled(p, n->axis[0], (k & 1) ? n->half.x : -n->half.x);
        p = osc_add_scaled(p, n->axis[1], (k & 2) ? n->half.y : -n->half.y);
        p = osc_add_scaled(p, n->axis[2], (k & 4) ? n->half.z : -n->half.z);
        out[k] = p;
    }
}

static void merge_cones(const osc_brep_node* a, const osc_brep_node* b, osc_brep_node* out) {
    if (a->cone_angle >= k_pi || b->cone_angle >= k_pi) {
        out->cone_axis = osc_v3(0, 0, 1);
        out->cone_angle = k_pi;
        return;
    }
    double c = osc_dot(a->cone_axis, b->cone_axis);
    double theta = acos(c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c));
    if (theta + b->cone_angle <= a->cone_angle) {
        out->cone_axis = a->cone_axis;
        out->cone_angle = a->cone_angle;
        return;
    }
    if (theta + a->cone_angle <= b->cone_angle) {
        out->cone_axis = b->cone_axis;
        out->cone_angle = b->cone_angle;
        return;
    }
    double angle = 0.5 * (theta + a->cone_angle + b->cone_angle);
    if (angle >= 0.5 * k_pi || theta < 1e-12) {
        out->cone_axis = osc_v3(0, 0, 1);
        out->cone_angle = k_pi;
        return;
    }
    // rotate a's axis towards b's by angle - a.angle
    double s = angle - a->cone_angle;
    osc_vec3 perp = osc_normalize(osc_sub(b->cone_axis, osc_scale(a->cone_axis, c)));
    out->cone_axis = osc_add(osc_scale(a->cone_axis, cos(s)), osc_scale(perp, sin(s)));
    out->cone_angle = angle + 1e-12;
}

typedef struct tree_builder {
    osc_brep* brep;
    const osc_brep_node* boxes;
    keyed* scratch;
} tree_builder;

static int build_node(tree_builder* t, int* index, int count, int parent) {
    osc_brep* b = t->brep;
    int id = b->node_count++;
    osc_brep_node* node = &b->nodes[id];
    node->parent = parent;
    if (count == 1) {
        *node = t->boxes[index[0]];
        node->parent = parent;
        node->left = node->right = -1;
        node->leaf = index[0];
        b->leaves[index[0]].node = id;
        node->type_mask = b->leaves[index[0]].type_mask;
        node->compat_mask = b->leaves[index[0]].compat_mask;
        return id;
    }
    osc_vec3 axis = principal_axis(t->boxes, index, count);
    for (int i = 0; i < count; i++) {
        t->scratch[i].key = osc_dot(t->boxes[index[i]].center, axis);
        t->scratch[i].index = index[i];
    }
    osc_sort(t->scratch, (size_t)count, sizeof(keyed), compare_keyed);
    for (int i = 0; i < count; i++) index[i] = t->scratch[i].index;
    int half = count / 2;
    int left = build_node(t, index, half, id);
    int right = build_node(t, index + half, count - half, id);
    node = &b->nodes[id]; // (the array does not move, but keep the access explicit)
    node->left = left;
    node->right = right;
    node->leaf = -1;
    node->parent = parent;
    const osc_brep_node* l = &b->nodes[left];
    const osc_brep_node* r = &b->nodes[right];
    node->type_mask = l->type_mask | r->type_mask;
    node->compat_mask = l->compat_mask | r->compat_mask;
    merge_cones(l, r, node);
    // OBB around the children's corners, axes from their principal directions
    osc_vec3 pts[16];
    obb_corners(l, pts);
    obb_corners(r, pts + 8);
    osc_vec3 mean = osc_v3(0, 0, 0);
    for (int i = 0; i < 16; i++) mean = osc_add(mean, pts[i]);
    mean = osc_scale(mean, 1.0 / 16.0);
    double c[3][3] = {{0}};
    for (int i = 0; i < 16; i++) {
        osc_vec3 d = osc_sub(pts[i], mean);
        double v[3] = {d.x, d.y, d.z};
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) c[p][q] += v[p] * v[q];
    }
    osc_vec3 a0 = dominant_eigenvector(c, axis);
    // second axis: principal direction of the residual in the plane perpendicular to a0
    osc_vec3 guess = fabs(a0.x) < 0.9 ? osc_v3(1, 0, 0) : osc_v3(0, 1, 0);
    osc_vec3 a1 = osc_normalize(osc_sub(guess, osc_scale(a0, osc_dot(guess, a0))));
    for (int it = 0; it < 24; it++) {
        double y[3], v[3] = {a1.x, a1.y, a1.z};
        for (int p = 0; p < 3; p++) y[p] = c[p][0] * v[0] + c[p][1] * v[1] + c[p][2] * v[2];
        osc_vec3 w = osc_v3(y[0], y[1], y[2]);
        w = osc_sub(w, osc_scale(a0, osc_dot(w, a0)));
        if (osc_length(w) < 1e-300) break;
        a1 = osc_normalize(w);
    }
    osc_vec3 axes[3] = {a0, a1, osc_cross(a0, a1)};
    obb_fit(node, axes, pts, 16, 0.0);
    return id;
}

osc_status osc_brep_build_bvh(osc_brep* b) {
    leaf_list list;
    memset(&list, 0, sizeof list);
    osc_status st = OSC_OK;
    for (int i = 0; i < b->desc.face_count && st == OSC_OK; i++) st = add_face_leaves(b, i, &list);
    for (int i = 0; i < b->desc.edge_count && st == OSC_OK; i++) st = add_edge_leaves(b, i, &list);
    for (int i = 0; i < b->desc.vertex_count && st == OSC_OK; i++) st = add_vertex_leaf(b, i, &list);
    if (st == OSC_OK && list.count == 0)
        st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_brep_create: no part of any face lies inside its trimming loops");
    if (st != OSC_OK) {
        osc_free(list.leaves);
        osc_free(list.boxes);
        return st;
    }
    b->leaves = list.leaves;
    b->leaf_count = list.count;
    b->nodes = osc_calloc(2 * (size_t)list.count, sizeof(osc_brep_node));
    int* index = osc_calloc((size_t)list.count, sizeof(int));
    keyed* scratch = osc_calloc((size_t)list.count, sizeof(keyed));
    if (!b->nodes || !index || !scratch) {
        osc_free(index);
        osc_free(scratch);
        osc_free(list.boxes);
        return OSC_ERR_NO_MEMORY;
    }
    for (int i = 0; i < list.count; i++) index[i] = i;
    tree_builder t = {b, list.boxes, scratch};
    b->node_count = 0;
    build_node(&t, index, list.count, -1);
    for (int i = 0; i < b->node_count; i++) {
        b->nodes[i].radius = osc_length(b->nodes[i].half);
        b->nodes[i].cone_cos = cos(b->nodes[i].cone_angle);
        b->nodes[i].cone_sin = sin(b->nodes[i].cone_angle);
    }
    // the solid's box from the leaves' OBBs
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_scale(lo, -1.0);
    for (int i = 0; i < list.count; i++) {
        osc_vec3 c[8];
        obb_corners(&list.boxes[i], c);
        for (int k = 0; k < 8; k++) {
            lo = osc_v3(fmin(lo.x, c[k].x), fmin(lo.y, c[k].y), fmin(lo.z, c[k].z));
            hi = osc_v3(fmax(hi.x, c[k].x), fmax(hi.y, c[k].y), fmax(hi.z, c[k].z));
        }
    }
    b->lo = lo;
    b->hi = hi;
    osc_free(index);
    osc_free(scratch);
    osc_free(list.boxes);
    return OSC_OK;
}
