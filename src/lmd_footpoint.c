// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// lmd_footpoint.c: the footpoints of one BVH leaf pair (thesis §4.3-§4.4): Newton's method on the
// squared distance between the two untrimmed features, the validation of the critical point
// (isolated minimum, trimming, tangent cone polars dilated by alpha), the conformal contacts of
// coaxial surfaces of revolution and circles (§4.3.2, sampled), and the gap gradient (eq. 1.14).

#include <math.h>
#include <string.h>

#include "dense.h"
#include "lmd_internal.h"
#include "osculate/math.h"

// A leaf's feature in world coordinates; `restricted` surfaces and circles are evaluated along a
// line of their parameters t = t0 + s dt (a meridian of a surface of revolution, a fixed point of a
// circle), for the conformal analysis.
typedef struct wfeat {
    osc_geo geo;
    const lmd_body* body;
    const osc_brep_leaf* leaf;
    int dim; // Newton parameters contributed
    int restricted;
    double t0[2], dt[2];
    osc_vec3 center; // world centre of the leaf's OBB
    double reach2;   // squared distance from it beyond which an iterate has left the leaf
    osc_geo orig;    // the feature's own parametrisation (world); `geo` may be a re-framed sphere
    int reframed;    // 1: the solver's parameters (geo) differ from the face's (orig)
    int whole;       // 1: a face searched over its whole supermaximal face (no leaf confinement)
} wfeat;

static void feature_init(wfeat* f, const lmd_body* body, int leaf_index) {
    const osc_brep* b = body->brep;
    const osc_brep_leaf* leaf = &b->leaves[leaf_index];
    memset(f, 0, sizeof *f);
    f->body = body;
    f->leaf = leaf;
    if (leaf->kind == OSC_FEATURE_FACE) {
        f->geo = osc_geo_transform(&b->face_data[leaf->feature].geo, body->pose);
    } else if (leaf->kind == OSC_FEATURE_EDGE) {
        f->geo = osc_geo_transform(&b->edge_data[leaf->feature].geo, body->pose);
    } else {
        memset(&f->geo, 0, sizeof f->geo);
        f->geo.kind = OSC_GEO_POINT;
        f->geo.o = osc_pose_apply(body->pose, b->vertices[leaf->feature]);
    }
    f->dim = f->geo.kind == OSC_GEO_POINT ? 0 : f->geo.dim;
    const osc_brep_node* box = &b->nodes[leaf->node];
    f->center = osc_pose_apply(body->pose, box->center);
    f->reach2 = 4.0 * osc_length_squared(box->half);
    f->orig = f->geo;
}

// A sphere's parameters are singular at its poles, where Newton's method stalls (du has no
// effect). The solver takes a sphere in a frame whose equator faces the other leaf: x toward the
// other leaf's OBB centre, so the footpoint lies near (0, 0), away from the poles and the seam.
static void reframe_sphere(wfeat* f, osc_vec3 toward) {
    if (f->geo.kind != OSC_GEO_SPHERE || f->dim != 2) return;
    osc_vec3 d = osc_sub(toward, f->geo.o);
    double length = osc_length(d);
    if (!(length > 1e-12 * f->geo.R)) return;
    osc_vec3 x = osc_scale(d, 1.0 / length);
    osc_vec3 any = fabs(x.x) < 0.6 ? osc_v3(1, 0, 0) : osc_v3(0, 1, 0);
    osc_vec3 z = osc_normalize(osc_cross(x, any));
    f->geo.x = x;
    f->geo.y = osc_cross(z, x);
    f->geo.z = z;
    f->reframed = 1;
}

// Parameters between the solver's frame and the face's own (identity unless re-framed).
static void to_original(const wfeat* f, const double* t, double* out) {
    out[0] = t[0];
    out[1] = f->dim == 2 ? t[1] : 0.0;
    if (!f->reframed) return;
    osc_vec3 p;
    osc_geo_eval(&f->geo, t, &p, NULL, NULL);
    osc_geo_project(&f->orig, p, out);
}

static void to_solver(const wfeat* f, const double* t, double* out) {
    out[0] = t[0];
    out[1] = f->dim == 2 ? t[1] : 0.0;
    if (!f->reframed) return;
    osc_vec3 p;
    osc_geo_eval(&f->orig, t, &p, NULL, NULL);
    osc_geo_project(&f->geo, p, out);
}

static void feature_eval(const wfeat* f, const double* s, osc_vec3* p, osc_vec3* d1, osc_vec3* d2) {
    if (!f->restricted) {
        osc_geo_eval(&f->geo, s, p, d1, d2);
        return;
    }
    double t[2] = {f->t0[0] + (f->dim ? s[0] : 0.0) * f->dt[0], f->t0[1] + (f->dim ? s[0] : 0.0) * f->dt[1]};
    osc_vec3 e1[2], e2[3];
    osc_geo_eval(&f->geo, t, p, e1, e2);
    if (f->dim == 0 || !d1) return;
    if (f->geo.dim == 1) { // (a circle restricted to a line is a point: dim 0)
        d1[0] = e1[0];
        d2[0] = e2[0];
        return;
    }
    double a = f->dt[0], c = f->dt[1];
    d1[0] = osc_add(osc_scale(e1[0], a), osc_scale(e1[1], c));
    d2[0] = osc_add(osc_add(osc_scale(e2[0], a * a), osc_scale(e2[1], 2.0 * a * c)), osc_scale(e2[2], c * c));
}

// ---- Newton's method on f = |P_A - P_B|^2 / 2 -------------------------------------------------

typedef struct newton_state {
    int n, na;
    osc_vec3 r;
    double f, g[4], H[4][4], crit;
} newton_state;

static void evaluate(const wfeat* A, const wfeat* B, const double* x, newton_state* st) {
    osc_vec3 pa, pb, da[2], db[2], ha[3], hb[3];
    feature_eval(A, x, &pa, da, ha);
    feature_eval(B, x + A->dim, &pb, db, hb);
    int na = A->dim, nb = B->dim, n = na + nb;
    st->n = n;
    st->na = na;
    st->r = osc_sub(pa, pb);
    st->f = 0.5 * osc_dot(st->r, st->r);
    osc_vec3 J[4];
    for (int i = 0; i < na; i++) J[i] = da[i];
    for (int i = 0; i < nb; i++) J[na + i] = osc_neg(db[i]);
    double rl = osc_length(st->r);
    st->crit = 0.0;
    for (int i = 0; i < n; i++) {
        st->g[i] = osc_dot(J[i], st->r);
        double jl = osc_length(J[i]);
        if (jl > 0.0 && rl > 0.0) st->crit = fmax(st->crit, fabs(st->g[i]) / (jl * rl));
        for (int j = 0; j < n; j++) st->H[i][j] = osc_dot(J[i], J[j]);
    }
    // second-order terms: r . d2P_A (A's block) and -r . d2P_B (B's block)
    if (na == 1) st->H[0][0] += osc_dot(st->r, ha[0]);
    if (na == 2) {
        st->H[0][0] += osc_dot(st->r, ha[0]);
        st->H[0][1] += osc_dot(st->r, ha[1]);
        st->H[1][0] += osc_dot(st->r, ha[1]);
        st->H[1][1] += osc_dot(st->r, ha[2]);
    }
    if (nb == 1) st->H[na][na] -= osc_dot(st->r, hb[0]);
    if (nb == 2) {
        st->H[na][na] -= osc_dot(st->r, hb[0]);
        st->H[na][na + 1] -= osc_dot(st->r, hb[1]);
        st->H[na + 1][na] -= osc_dot(st->r, hb[1]);
        st->H[na + 1][na + 1] -= osc_dot(st->r, hb[2]);
    }
}

// Cholesky solve of (H + mu I) x = b (b NULL: the factor alone); returns 0 when not positive
// definite (a pivot below 1e-12 of the largest diagonal entry plus mu).
static int cholesky_solve(int n, double H[4][4], double mu, const double* b, double* x) {
    double L[4][4];
    double scale = 0.0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(H[i][i]));
    if (dense_cholesky(n, &H[0][0], 4, mu, 1e-12 * (scale + mu), &L[0][0], 4) < n) return 0;
    if (!b) return 1;
    for (int i = 0; i < n; i++) x[i] = b[i];
    dense_cholesky_solve(n, &L[0][0], 4, x);
    return 1;
}

// Has a point p left the feature's leaf: is it farther from the centre of the leaf's OBB than
// twice the box's half diagonal? A minimum out there lies under another leaf pair, which the
// culling keeps, so the search stops (a flat valley between nearly conformal leaves otherwise takes
// tens of damped steps to cross, to a minimum that other pairs find anyway).
static int out_of_reach(const wfeat* f, osc_vec3 p) {
    return !f->whole && osc_length_squared(osc_sub(p, f->center)) > f->reach2;
}

// The same for the feature's point at parameters t.
static int escaped(const wfeat* f, const double* t) {
    if (f->restricted || f->dim == 0 || f->whole) return 0;
    osc_vec3 p;
    osc_geo_eval(&f->geo, t, &p, NULL, NULL);
    return out_of_reach(f, p);
}

// Levenberg-Marquardt-damped Newton from x; returns 1 at a critical point (angle between r and
// the tangent spaces below 1e-11), *isolated = 1 when the Hessian there is positive definite.
// With `confine`, gives up (returns 0) once the iterate escapes either leaf.
static int newton(const wfeat* A, const wfeat* B, double* x, int confine, int* iterations, int* isolated) {
    newton_state st;
    evaluate(A, B, x, &st);
    int n = st.n;
    *isolated = 0;
    double mu = 0.0;
    int it = 0;
    for (; it < 60; it++) {
        if (n == 0 || st.crit < 1e-11 || st.f == 0.0) break;
        double step[4], minus_g[4];
        for (int i = 0; i < n; i++) minus_g[i] = -st.g[i];
        double trace = 0.0;
        for (int i = 0; i < n; i++) trace += fabs(st.H[i][i]);
        bool moved = false;
        for (int tries = 0; tries < 30; tries++) {
            if (!cholesky_solve(n, st.H, mu, minus_g, step)) {
                mu = mu > 0.0 ? mu * 8.0 : 1e-9 * (trace + 1e-300);
                continue;
            }
            double xn[4];
            for (int i = 0; i < n; i++) xn[i] = x[i] + step[i];
            // an undamped step on a convex model that lands outside the leaves: the model's
            // minimum is out there, under another leaf pair
            if (confine && mu == 0.0 && (escaped(A, xn) || escaped(B, xn + A->dim))) {
                *iterations += it + 1;
                return 0;
            }
            newton_state sn;
            evaluate(A, B, xn, &sn);
            if (sn.f <= st.f * (1.0 + 1e-14)) {
                // (an undamped step was checked above)
                if (confine && mu > 0.0 && (escaped(A, xn) || escaped(B, xn + A->dim))) {
                    *iterations += it + 1;
                    return 0;
                }
                for (int i = 0; i < n; i++) x[i] = xn[i];
                st = sn;
                mu *= 0.25;
                if (mu < 1e-18 * (trace + 1e-300)) mu = 0.0;
                moved = true;
                break;
            }
            mu = mu > 0.0 ? mu * 8.0 : 1e-9 * (trace + 1e-300);
        }
        if (!moved) break;
    }
    *iterations += it;
    if (n > 0 && !(st.crit < 1e-9) && st.f > 0.0) return 0;
    *isolated = n == 0 || cholesky_solve(n, st.H, 0.0, NULL, NULL);
    return 1;
}

// Grid of parameters over a leaf's rectangle: 3 x 3 for faces, 3 for edges, 1 for vertices.
static int start_grid(const wfeat* f, double pts[9][2]) {
    const osc_brep_leaf* l = f->leaf;
    if (f->dim == 0) return 1;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (f->dim == 1) {
            pts[n][0] = l->lo[0] + (l->hi[0] - l->lo[0]) * (0.1 + 0.4 * i);
            pts[n][1] = 0.0;
            n++;
            continue;
        }
        for (int j = 0; j < 3; j++) {
            double t[2] = {l->lo[0] + (l->hi[0] - l->lo[0]) * (0.1 + 0.4 * i),
                           l->lo[1] + (l->hi[1] - l->lo[1]) * (0.1 + 0.4 * j)};
            to_solver(f, t, pts[n]);
            n++;
        }
    }
    return n;
}

// ---- an edge or a vertex against a surface: one parameter (docs/lmd.md) ------------------------

// h(t) = sign sd_S(C(t)), the distance from the curve's point to the untrimmed surface, with h', h''
// and |C'| (dh NULL: not wanted), the point and the surface's unit normal at its foot; 0 where not
// smooth.
static int curve_distance(const wfeat* E, const wfeat* S, double t, double sign, double* h, double* dh, double* ddh,
                          double* speed, osc_vec3* p, osc_vec3* normal) {
    osc_vec3 d1[1], d2[1];
    double sd, H[3][3];
    feature_eval(E, &t, p, E->dim ? d1 : NULL, E->dim ? d2 : NULL);
    if (!osc_geo_distance(&S->geo, *p, &sd, normal, H)) return 0;
    *h = sign * sd;
    if (dh) {
        const double c[3] = {d1[0].x, d1[0].y, d1[0].z};
        double quad = 0.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) quad += c[i] * H[i][j] * c[j];
        *dh = sign * osc_dot(*normal, d1[0]);
        *ddh = sign * (quad + osc_dot(*normal, d2[0]));
        *speed = osc_length(d1[0]);
    }
    return 1;
}

// The critical point of the distance from edge (or vertex) E to surface S along E, by Newton's
// method on h(t) from the closest of E's start grid, safeguarded by halving; the footpoints'
// parameters in te (E's) and ts (S's). Returns 1 when found, 0 when there is none under the leaf
// pair (the iterate left the leaves, or crossed the surface), -1 when the distance is not smooth
// at the start (the caller then solves the whole problem).
static int curve_surface(const wfeat* E, const wfeat* S, double* te, double* ts, int* iterations) {
    double grid[9][2] = {{0.0, 0.0}}, t = 0.0, h = INFINITY, dh = 0.0, ddh = 0.0, speed = 0.0;
    osc_vec3 p, n;
    int count = start_grid(E, grid);
    for (int i = 0; i < count; i++) {
        double hi;
        osc_vec3 pi, ni;
        if (!curve_distance(E, S, grid[i][0], 1.0, &hi, NULL, NULL, NULL, &pi, &ni)) return -1;
        if (fabs(hi) < fabs(h)) h = hi, t = grid[i][0];
    }
    double sign = h < 0.0 ? -1.0 : 1.0;
    if (!(fabs(h) > 0.0)) return 0;
    const double span = E->dim ? E->leaf->hi[0] - E->leaf->lo[0] : 0.0;
    for (int it = 0; E->dim && it < 40; it++) {
        if (!curve_distance(E, S, t, sign, &h, &dh, &ddh, &speed, &p, &n)) return 0;
        if (fabs(dh) <= 1e-13 * speed) break; // the direction is normal to the curve
        double step = ddh > 0.0 ? -dh / ddh : (dh > 0.0 ? -0.25 * span : 0.25 * span);
        double hn = h;
        osc_vec3 pn, nn;
        int halvings = 0;
        for (; halvings < 40; halvings++, step *= 0.5)
            if (curve_distance(E, S, t + step, sign, &hn, NULL, NULL, NULL, &pn, &nn) && hn < h) break;
        if (halvings == 40) break; // no decrease left: at the minimum to rounding
        t += step;
        ++*iterations;
        if (hn <= 0.0 || escaped(E, &t)) return 0;
    }
    if (!curve_distance(E, S, t, sign, &h, NULL, NULL, NULL, &p, &n) || !(h > 0.0)) return 0;
    osc_vec3 foot = osc_sub(p, osc_scale(n, sign * h));
    if (out_of_reach(S, foot)) return 0;
    te[0] = t;
    ts[0] = ts[1] = 0.0;
    osc_geo_project(&S->geo, foot, ts);
    return 1;
}

// ---- validation --------------------------------------------------------------------------------

// The feature of a footpoint at world point p with parameters t on the leaf's feature: the face or
// edge of the leaf's supermaximal group that holds it (brep_supermax.c: the lower face of a seam
// between two pieces, so that a contact there is one contact), its parameters in `param`; -1
// when no piece holds it. A vertex holds its point.
static int feature_of(const wfeat* f, osc_vec3 p, const double* t, double* param) {
    const osc_brep* b = f->body->brep;
    const osc_brep_leaf* leaf = f->leaf;
    param[0] = t[0];
    param[1] = f->dim == 2 ? t[1] : 0.0;
    if (leaf->kind == OSC_FEATURE_VERTEX) {
        param[0] = 0.0;
        return leaf->feature;
    }
    osc_vec3 pb = osc_pose_apply_inverse(f->body->pose, p);
    if (leaf->kind == OSC_FEATURE_EDGE) return osc_brep_group_edge(b, leaf->feature, pb, 1e-9 * b->scale, param);
    return osc_brep_group_face(b, leaf->feature, pb, 1e-9 * b->scale, param);
}

// The cosine of the angle between the unit vector d and the convex cone spanned by `count` unit
// generators: 1 inside it; outside, the nearest point of the cone lies on a ray or on a face
// spanned by two generators, and the cosine is d's component along it.
static double cone_cosine(osc_vec3 d, const osc_vec3* g, int count) {
    double best = -1.0;
    for (int i = 0; i < count; i++) best = fmax(best, osc_dot(d, g[i]));
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++) {
            osc_vec3 w = osc_cross(g[i], g[j]);
            double wl = osc_length(w);
            if (!(wl > 1e-12)) continue; // parallel or opposite: the rays answer
            w = osc_scale(w, 1.0 / wl);
            osc_vec3 p = osc_sub(d, osc_scale(w, osc_dot(d, w))); // d projected on their plane
            double c = osc_dot(g[i], g[j]), pi = osc_dot(g[i], p), pj = osc_dot(g[j], p);
            if (pi - c * pj >= 0.0 && pj - c * pi >= 0.0) best = fmax(best, osc_length(p));
            for (int k = j + 1; k < count; k++) { // d inside the cone of three generators
                double det = osc_dot(w, g[k]) * wl;
                if (!(fabs(det) > 1e-12)) continue;
                double a = osc_dot(d, osc_cross(g[j], g[k])) / det;
                double b = osc_dot(g[i], osc_cross(d, g[k])) / det;
                double e = osc_dot(g[i], osc_cross(g[j], d)) / det;
                if (a >= 0.0 && b >= 0.0 && e >= 0.0) return 1.0;
            }
        }
    return best;
}

// Is the unit direction `dir` (world, pointing away from the solid at p) within `alpha` of the
// polar of the solid's tangent cone at the world point p with parameters `param` (its normal
// cone)? A face point: the face's normal. An edge point: the cone of its two faces' normals there
// (a convex edge). A vertex: the cone of its faces' normals, which holds the polar of every
// tangent cone at the vertex (exact where the solid is convex there), and the outgoing edge
// tangents t with dir . t <= sin alpha (which rules out the directions that a vertex where convex
// and concave edges meet does not allow). These are the generators of the leaves' polyhedral
// normal cones (brep_bvh.c), so the culling tests never remove a pair whose contact passes here.
static int in_polar(const wfeat* f, int feature, osc_vec3 p, const double* param, osc_vec3 dir, double alpha) {
    const lmd_body* body = f->body;
    const osc_brep* b = body->brep;
    const osc_brep_leaf* leaf = f->leaf;
    osc_vec3 d = osc_mat3_apply_transpose(body->rotation, dir); // body frame
    osc_vec3 pb = osc_pose_apply_inverse(body->pose, p);
    double ca = cos(alpha);
    if (leaf->kind == OSC_FEATURE_FACE) {
        osc_vec3 n = osc_geo_normal(&b->face_data[feature].geo, param[0], param[1]);
        return osc_dot(d, n) >= ca;
    }
    if (leaf->kind == OSC_FEATURE_EDGE) {
        osc_vec3 q, tangent, normals[2];
        osc_geo_eval(&b->edge_data[feature].geo, param, &q, &tangent, NULL);
        tangent = osc_normalize(tangent);
        for (int s = 0; s < 2; s++) osc_brep_edge_side(b, feature, s, pb, tangent, &normals[s]);
        return cone_cosine(d, normals, 2) >= ca;
    }
    const osc_vertex_data* vd = &b->vertex_data[feature];
    double sa = sin(alpha);
    for (int i = 0; i < vd->tangent_count; i++)
        if (osc_dot(d, b->vertex_vectors[vd->tangent_begin + i]) > sa) return 0;
    return cone_cosine(d, &b->vertex_vectors[vd->normal_begin], vd->normal_count) >= ca;
}

// The BVH piece of a feature holding the parameters: keys follow the footpoint, not the leaf pair
// that found it (the same with or without a cache).
static uint64_t piece_cell(const wfeat* f, int feature, const double* param) {
    const osc_brep* b = f->body->brep;
    const osc_brep_leaf* leaf = f->leaf;
    if (leaf->kind == OSC_FEATURE_VERTEX) return 0;
    if (leaf->kind == OSC_FEATURE_EDGE) {
        const osc_brep_edge* e = &b->edges[feature];
        double c = floor(b->edge_data[feature].grid * (param[0] - e->t0) / (e->t1 - e->t0));
        return (uint64_t)(int64_t)c;
    }
    const osc_brep_face* face = &b->faces[feature];
    const int* grid = b->face_data[feature].grid;
    double cu = floor(grid[0] * (param[0] - face->umin) / (face->umax - face->umin));
    double cv = floor(grid[1] * (param[1] - face->vmin) / (face->vmax - face->vmin));
    return ((uint64_t)(int64_t)cu << 20) ^ (uint64_t)(int64_t)cv;
}

static uint64_t mix64(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

// Validates a pair of world footpoints and writes the contact; returns 1 when written.
static int emit(const wfeat* A, const wfeat* B, const double* ta, const double* tb, osc_vec3 pa, osc_vec3 pb,
                const osc_lmd_settings* s, int sample, int flags, osc_lmd_contact* c) {
    double param_a[2], param_b[2];
    int feature_a = feature_of(A, pa, ta, param_a);
    int feature_b = feature_a < 0 ? -1 : feature_of(B, pb, tb, param_b);
    if (feature_b < 0) return 0;
    osc_vec3 diff = osc_sub(pb, pa);
    double d = osc_length(diff);
    double scale = fmax(A->body->brep->scale, B->body->brep->scale);
    if (!(d > 1e-12 * scale) || d > s->d_max) return 0;
    osc_vec3 n = osc_scale(diff, 1.0 / d);
    double alpha = fmax(s->alpha, 1e-6);
    if (!in_polar(A, feature_a, pa, param_a, n, alpha) || !in_polar(B, feature_b, pb, param_b, osc_neg(n), alpha))
        return 0;
    memset(c, 0, sizeof *c);
    c->point_a = pa;
    c->point_b = pb;
    c->param_a[0] = param_a[0];
    c->param_a[1] = param_a[1];
    c->param_b[0] = param_b[0];
    c->param_b[1] = param_b[1];
    c->kind_a = (osc_feature_kind)A->leaf->kind;
    c->kind_b = (osc_feature_kind)B->leaf->kind;
    c->feature_a = feature_a;
    c->feature_b = feature_b;
    c->distance = d - s->eps_a - s->eps_b; // the signed gap g of eq. 1.19; its Jacobian: lmd.c
    c->normal = n;
    uint64_t h = 1469598103934665603ull;
    h = mix64(h, (uint64_t)c->kind_a);
    h = mix64(h, (uint64_t)(uint32_t)c->feature_a);
    h = mix64(h, (uint64_t)c->kind_b);
    h = mix64(h, (uint64_t)(uint32_t)c->feature_b);
    h = mix64(h, piece_cell(A, feature_a, param_a));
    h = mix64(h, piece_cell(B, feature_b, param_b));
    h = mix64(h, (uint64_t)(uint32_t)(sample + 1));
    c->key = h;
    c->flags = flags;
    return 1;
}

// ---- conformal contacts (§4.3.2) --------------------------------------------------------------

// The axis of symmetry of a feature: 1 for surfaces of revolution and circles (a line o + s z),
// 2 for a plane (any line along z), 3 for a sphere (any line through o), 0 otherwise.
static int symmetry(const osc_geo* g) {
    switch (g->kind) {
        case OSC_GEO_CYLINDER:
        case OSC_GEO_CONE:
        case OSC_GEO_TORUS:
        case OSC_GEO_CIRCLE: return 1;
        case OSC_GEO_PLANE: return 2;
        case OSC_GEO_SPHERE: return 3;
        default: return 0;
    }
}

// Finds a common axis of rotational symmetry of the two features (o, z), or returns 0.
static int common_axis(const osc_geo* a, const osc_geo* b, double scale, osc_vec3* o, osc_vec3* z) {
    int sa = symmetry(a), sb = symmetry(b);
    if (!sa || !sb) return 0;
    const double angle_tol = 1e-9, dist_tol = 1e-9 * scale;
    if (sa == 2 && sb == 2) return 0; // parallel planes: polyhedral, bounded by their vertices
    if (sa == 3 && sb == 3) {
        if (osc_length(osc_sub(a->o, b->o)) > dist_tol) return 0;
        *o = a->o;
        *z = a->z;
        return 1;
    }
    if (sa == 3 || sb == 3) { // a sphere and a line of the other
        const osc_geo* sph = sa == 3 ? a : b;
        const osc_geo* other = sa == 3 ? b : a;
        osc_vec3 d = osc_sub(sph->o, other->o);
        if (symmetry(other) == 1 && osc_length(osc_sub(d, osc_scale(other->z, osc_dot(d, other->z)))) > dist_tol)
            return 0;
        *o = symmetry(other) == 1 ? other->o : sph->o;
        *z = other->z;
        return 1;
    }
    if (osc_length(osc_cross(a->z, b->z)) > angle_tol) return 0;
    if (sa == 2 || sb == 2) { // a plane and a line perpendicular to it
        const osc_geo* line = sa == 2 ? b : a;
        *o = line->o;
        *z = line->z;
        return 1;
    }
    osc_vec3 d = osc_sub(b->o, a->o);
    if (osc_length(osc_sub(d, osc_scale(a->z, osc_dot(d, a->z)))) > dist_tol) return 0;
    *o = a->o;
    *z = a->z;
    return 1;
}

// Restricts a feature to the meridian (or point) in the half-plane of direction w from the axis.
static void restrict_to_meridian(wfeat* f, osc_vec3 o, osc_vec3 w) {
    const osc_geo* g = &f->geo;
    f->restricted = 1;
    if (g->kind == OSC_GEO_PLANE) {
        osc_vec3 foot = osc_sub(o, g->o);
        f->t0[0] = osc_dot(foot, g->x);
        f->t0[1] = osc_dot(foot, g->y);
        f->dt[0] = osc_dot(w, g->x);
        f->dt[1] = osc_dot(w, g->y);
        f->dim = 1;
        return;
    }
    double u = atan2(osc_dot(w, g->y), osc_dot(w, g->x));
    if (g->kind == OSC_GEO_TORUS && g->branch < 0) u += k_pi; // its points lie across the axis
    f->t0[0] = u;
    f->t0[1] = 0.0;
    f->dt[0] = 0.0;
    f->dt[1] = 1.0;
    f->dim = g->dim == 2 ? 1 : 0;
}

// Start values along a restricted feature's meridian: v over the leaf (surfaces of revolution),
// the distance from the axis (planes), none (a circle's point).
static int meridian_samples(const wfeat* f, const osc_brep_leaf* leaf, double scale, double* out) {
    if (f->dim == 0) {
        out[0] = 0.0;
        return 1;
    }
    for (int i = 0; i < 9; i++)
        out[i] = f->geo.kind == OSC_GEO_PLANE    ? scale * i / 4.0
                 : f->geo.kind == OSC_GEO_SPHERE ? -1.5 + 3.0 * i / 8.0 // re-framed: any latitude
                                                 : leaf->lo[1] + (leaf->hi[1] - leaf->lo[1]) * i / 8.0;
    return 9;
}

// Rotation of v by angle t about the unit axis z.
static osc_vec3 rotate_about(osc_vec3 v, osc_vec3 z, double t) {
    return osc_quat_rotate(osc_quat_from_axis_angle(z, t), v);
}

// Samples a conformal contact circle; returns the number of contacts written.
static int conformal(const wfeat* A0, const wfeat* B0, osc_vec3 o, osc_vec3 z, const osc_lmd_settings* s,
                     osc_lmd_contact* out, int slots, int* iterations) {
    // a deterministic reference direction perpendicular to the axis (from A's solid frame)
    osc_vec3 ref = osc_mat3_column(A0->body->rotation, 0);
    if (osc_length(osc_cross(ref, z)) < 0.3) ref = osc_mat3_column(A0->body->rotation, 1);
    osc_vec3 w = osc_normalize(osc_sub(ref, osc_scale(z, osc_dot(ref, z))));
    wfeat A = *A0, B = *B0;
    // a sphere is symmetric about any line through its centre: align its frame with the axis
    wfeat* both[2] = {&A, &B};
    for (int k = 0; k < 2; k++)
        if (both[k]->geo.kind == OSC_GEO_SPHERE) {
            both[k]->geo.z = z;
            both[k]->geo.x = w;
            both[k]->geo.y = osc_cross(z, w);
        }
    restrict_to_meridian(&A, o, w);
    restrict_to_meridian(&B, o, w);
    // the meridian problem, started from the closest of a few samples of each meridian
    const double* lo_a = A0->leaf->lo;
    const double* hi_a = A0->leaf->hi;
    const double* lo_b = B0->leaf->lo;
    const double* hi_b = B0->leaf->hi;
    double sa[9], sb[9];
    int na = meridian_samples(&A, A0->leaf, A0->body->brep->scale, sa);
    int nb = meridian_samples(&B, B0->leaf, B0->body->brep->scale, sb);
    double x[2] = {0.0, 0.0}, best = INFINITY;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            double tt[2];
            int k = 0;
            if (A.dim) tt[k++] = sa[i];
            if (B.dim) tt[k++] = sb[j];
            osc_vec3 pa, pb;
            feature_eval(&A, tt, &pa, NULL, NULL);
            feature_eval(&B, tt + A.dim, &pb, NULL, NULL);
            double dd = osc_length_squared(osc_sub(pa, pb));
            if (dd < best) {
                best = dd;
                x[0] = tt[0];
                x[1] = tt[1];
            }
        }
    int isolated;
    if (!newton(&A, &B, x, 0, iterations, &isolated) || !isolated) return 0;
    osc_vec3 pa, pb;
    feature_eval(&A, x, &pa, NULL, NULL);
    feature_eval(&B, x + A.dim, &pb, NULL, NULL);
    // both footpoints on the axis (a sphere over a plane, a disc's centre): one isolated contact
    double tol = 1e-9 * fmax(A0->body->brep->scale, B0->body->brep->scale);
    osc_vec3 ra = osc_sub(pa, o), rb = osc_sub(pb, o);
    bool on_axis = osc_length(osc_sub(ra, osc_scale(z, osc_dot(ra, z)))) <= tol &&
                   osc_length(osc_sub(rb, osc_scale(z, osc_dot(rb, z)))) <= tol;
    int samples = on_axis ? 1 : s->conformal_samples;
    if (samples <= 0) return 0;
    int count = 0;
    for (int k = 0; k < samples && count < slots; k++) {
        double angle = k_two_pi * k / s->conformal_samples;
        osc_vec3 qa = osc_add(o, rotate_about(osc_sub(pa, o), z, angle));
        osc_vec3 qb = osc_add(o, rotate_about(osc_sub(pb, o), z, angle));
        double ta[2] = {0.0, 0.0}, tb[2] = {0.0, 0.0};
        if (A0->dim) osc_geo_project(&A0->orig, qa, ta);
        if (B0->dim) osc_geo_project(&B0->orig, qb, tb);
        // emit each sample once: from the leaf pair whose rectangles hold it
        double wa[2] = {ta[0], ta[1]}, wb[2] = {tb[0], tb[1]};
        if (A0->dim) wa[0] = osc_wrap_angle(wa[0], lo_a[0]);
        if (B0->dim) wb[0] = osc_wrap_angle(wb[0], lo_b[0]);
        if (A0->geo.kind == OSC_GEO_PLANE) wa[0] = ta[0];
        if (B0->geo.kind == OSC_GEO_PLANE) wb[0] = tb[0];
        if (A0->geo.kind == OSC_GEO_TORUS) wa[1] = osc_wrap_angle(wa[1], lo_a[1]);
        if (B0->geo.kind == OSC_GEO_TORUS) wb[1] = osc_wrap_angle(wb[1], lo_b[1]);
        bool in_a = A0->dim == 0 || A0->whole ||
                    (wa[0] >= lo_a[0] - 1e-12 && wa[0] <= hi_a[0] + 1e-12 &&
                     (A0->dim < 2 || (wa[1] >= lo_a[1] - 1e-12 && wa[1] <= hi_a[1] + 1e-12)));
        bool in_b = B0->dim == 0 || B0->whole ||
                    (wb[0] >= lo_b[0] - 1e-12 && wb[0] <= hi_b[0] + 1e-12 &&
                     (B0->dim < 2 || (wb[1] >= lo_b[1] - 1e-12 && wb[1] <= hi_b[1] + 1e-12)));
        if (!in_a || !in_b) continue;
        count += emit(A0, B0, ta, tb, qa, qb, s, on_axis ? -1 : k, on_axis ? 0 : OSC_LMD_CONFORMAL, &out[count]);
    }
    return count;
}

// ---- one leaf pair ------------------------------------------------------------------------------

// The closest pair of points of the two leaves' start grids, as Newton's first iterate x.
static void grid_start(const wfeat* A, const wfeat* B, double* x) {
    double ga[9][2], gb[9][2];
    osc_vec3 pb[9];
    int na = start_grid(A, ga), nb = start_grid(B, gb);
    for (int j = 0; j < nb; j++) feature_eval(B, gb[j], &pb[j], NULL, NULL);
    double best = INFINITY;
    for (int i = 0; i < na; i++) {
        osc_vec3 pa;
        feature_eval(A, ga[i], &pa, NULL, NULL);
        for (int j = 0; j < nb; j++) {
            double d = osc_length_squared(osc_sub(pa, pb[j]));
            if (d < best) {
                best = d;
                int k = 0;
                for (int q = 0; q < A->dim; q++) x[k++] = ga[i][q];
                for (int q = 0; q < B->dim; q++) x[k++] = gb[j][q];
            }
        }
    }
}

void osc_lmd_solve_pair(const lmd_body* a, const lmd_body* b, const osc_lmd_settings* settings, const lmd_job* job,
                        osc_lmd_contact* out, int slots, lmd_job_result* result) {
    memset(result, 0, sizeof *result);
    wfeat A, B;
    feature_init(&A, a, job->leaf_a);
    feature_init(&B, b, job->leaf_b);
    A.whole = job->whole == 1;
    B.whole = job->whole == 2;
    reframe_sphere(&A, B.center);
    reframe_sphere(&B, A.center);
    double scale = fmax(a->brep->scale, b->brep->scale);
    osc_vec3 axis_o, axis_z;
    if (common_axis(&A.geo, &B.geo, scale, &axis_o, &axis_z)) {
        // the meridian problem of a whole supermaximal face starts from one leaf's samples: on a
        // line (plane, cylinder, cone) its minimum is unique, on a circle (sphere, torus) Newton's
        // method could end at the maximum, so those are searched leaf pair by leaf pair
        const wfeat* whole = A.whole ? &A : B.whole ? &B : NULL;
        if (whole && (whole->geo.kind == OSC_GEO_SPHERE || whole->geo.kind == OSC_GEO_TORUS)) {
            result->ungrouped = 1;
            A.whole = B.whole = 0;
        }
        result->count = conformal(&A, &B, axis_o, axis_z, settings, out, slots, &result->iterations);
        return;
    }
    double x[4] = {0, 0, 0, 0};
    int isolated = 0, converged = 0;
    // an edge or vertex against a surface: one parameter, then the whole problem's Newton step to
    // confirm the critical point and test it (isolated minimum)
    if (A.dim < 2 && B.dim == 2 && B.geo.dim == 2) {
        int found = curve_surface(&A, &B, x, x + A.dim, &result->iterations);
        if (found == -1 && B.whole) { // not the one-parameter search: leaf pair by leaf pair
            result->ungrouped = 1;
            B.whole = 0;
        }
        if (found == 0) return;
        if (found == 1) converged = newton(&A, &B, x, 1, &result->iterations, &isolated);
        if (found == 1 && !converged) return;
    } else if (B.dim < 2 && A.dim == 2 && A.geo.dim == 2) {
        double tb[2] = {0.0, 0.0};
        int found = curve_surface(&B, &A, tb, x, &result->iterations);
        if (found == -1 && A.whole) {
            result->ungrouped = 1;
            A.whole = 0;
        }
        if (found == 0) return;
        if (B.dim) x[2] = tb[0];
        if (found == 1) converged = newton(&A, &B, x, 1, &result->iterations, &isolated);
        if (found == 1 && !converged) return;
    }
    // from the cached footpoints; when they lead out of the leaves, from the grid as without a cache
    if (!converged && job->has_warm) { // cached in the faces' own parameters
        to_solver(&A, job->warm, x);
        double tb[2];
        to_solver(&B, job->warm + A.dim, tb);
        for (int i = 0; i < B.dim; i++) x[A.dim + i] = tb[i];
        converged = newton(&A, &B, x, 1, &result->iterations, &isolated);
    }
    if (!converged) {
        grid_start(&A, &B, x);
        converged = newton(&A, &B, x, 1, &result->iterations, &isolated);
    }
    if (!converged) return;
    double ta[2], tb[2];
    to_original(&A, x, ta);
    to_original(&B, x + A.dim, tb);
    result->converged = 1;
    for (int i = 0; i < A.dim; i++) result->x[i] = ta[i];
    for (int i = 0; i < B.dim; i++) result->x[A.dim + i] = tb[i];
    if (!isolated || slots < 1) return;
    osc_vec3 pa, pb;
    feature_eval(&A, x, &pa, NULL, NULL);
    feature_eval(&B, x + A.dim, &pb, NULL, NULL);
    result->count = emit(&A, &B, ta, tb, pa, pb, settings, -1, 0, &out[0]);
}
