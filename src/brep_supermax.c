// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// brep_supermax.c: supermaximal features (Crozet 2017 §2.3): the faces of a model that lie on the
// same canonical surface with the same orientation, and the edges on the same line or circle
// between the same supermaximal faces, grouped at creation, so that the query searches a group
// once and validates a footpoint against the union of its pieces (docs/lmd.md, "Supermaximal
// features").

#include <math.h>
#include <string.h>

#include "brep_internal.h"
#include "osculate/math.h"

// Relative tolerances of the grouping conditions (Crozet 2017 Fig. 2.4): lengths to this fraction
// of the model's size, directions to this angle.
static const double k_same_length = 1e-9, k_same_angle = 1e-9;

static bool parallel(osc_vec3 a, osc_vec3 b) { return osc_length(osc_cross(a, b)) <= k_same_angle; }

// Distance of point p from the line through o along the unit z.
static double line_distance(osc_vec3 p, osc_vec3 o, osc_vec3 z) {
    osc_vec3 d = osc_sub(p, o);
    return osc_length(osc_sub(d, osc_scale(z, osc_dot(d, z))));
}

// Are two canonical surfaces (body frame) the same untrimmed surface (Fig. 2.4: planes with
// parallel normals and coplanar, cylinders on one axis with one radius, cones with one axis,
// apex and half-angle, spheres with one centre and radius, tori with one axis, centre and radii),
// whatever their frames?
static bool same_surface(const osc_geo* a, const osc_geo* b, double tol) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
        case OSC_GEO_PLANE: return parallel(a->z, b->z) && fabs(osc_dot(osc_sub(b->o, a->o), a->z)) <= tol;
        case OSC_GEO_CYLINDER:
            return parallel(a->z, b->z) && fabs(a->R - b->R) <= tol && line_distance(b->o, a->o, a->z) <= tol;
        case OSC_GEO_CONE: {
            // apex o - R cot(a) z; the nappe opens along z
            if (osc_dot(a->z, b->z) <= 0.0 || !parallel(a->z, b->z) || fabs(a->a - b->a) > k_same_angle) return false;
            osc_vec3 apex_a = osc_sub(a->o, osc_scale(a->z, a->R / tan(a->a)));
            osc_vec3 apex_b = osc_sub(b->o, osc_scale(b->z, b->R / tan(b->a)));
            return osc_length(osc_sub(apex_a, apex_b)) <= tol;
        }
        case OSC_GEO_SPHERE: return fabs(a->R - b->R) <= tol && osc_length(osc_sub(a->o, b->o)) <= tol;
        case OSC_GEO_TORUS:
            return parallel(a->z, b->z) && fabs(a->R - b->R) <= tol && fabs(a->r - b->r) <= tol &&
                   osc_length(osc_sub(a->o, b->o)) <= tol && a->branch == b->branch;
        default: return false; // B-spline surfaces are not grouped
    }
}

// The outward normal of face `face` at the middle of its parameter box.
static osc_vec3 face_middle_normal(const osc_brep* b, int face, osc_vec3* point) {
    const osc_brep_face* f = &b->faces[face];
    double t[2] = {0.5 * (f->umin + f->umax), 0.5 * (f->vmin + f->vmax)};
    osc_geo_eval(&b->face_data[face].geo, t, point, NULL, NULL);
    return osc_geo_normal(&b->face_data[face].geo, t[0], t[1]);
}

// Do faces i and j lie on the same surface with the same outward orientation?
static bool same_face_surface(const osc_brep* b, int i, int j) {
    const osc_geo* a = &b->face_data[i].geo;
    const osc_geo* c = &b->face_data[j].geo;
    if (!same_surface(a, c, k_same_length * b->scale)) return false;
    // the orientation: face i's outward normal against face j's at the same point
    osc_vec3 p, n = face_middle_normal(b, i, &p);
    double t[2] = {0.0, 0.0};
    if (!osc_geo_project(c, p, t)) return false;
    return osc_dot(n, osc_geo_normal(c, t[0], t[1])) > 0.0;
}

// Are two edges (body frame) on the same line or circle?
static bool same_curve(const osc_geo* a, const osc_geo* b, double tol) {
    if (a->kind != b->kind || !parallel(a->z, b->z)) return false;
    if (a->kind == OSC_GEO_LINE) return line_distance(b->o, a->o, a->z) <= tol;
    if (a->kind == OSC_GEO_CIRCLE) return fabs(a->R - b->R) <= tol && osc_length(osc_sub(a->o, b->o)) <= tol;
    return false;
}

// Union-find over `parent` [count]; the representative of a set is its lowest index.
static int find_root(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void unite(int* parent, int i, int j) {
    int a = find_root(parent, i), c = find_root(parent, j);
    if (a < c)
        parent[c] = a;
    else if (c < a)
        parent[a] = c;
}

// Lists `next` [count] as circular member lists of the sets of `group` (each set's members in
// increasing order, the last pointing back to the first).
static void link_members(const int* group, int* next, int count) {
    for (int i = 0; i < count; i++) next[i] = i;
    for (int i = count - 1; i >= 0; i--) {
        int g = group[i];
        if (g == i) continue;
        next[i] = next[g];
        next[g] = i;
    }
}

static bool edge_groupable(const osc_brep* b, int e) {
    const osc_brep_edge* edge = &b->edges[e];
    return edge->type != OSC_CURVE_NURBS && b->edge_data[e].status == OSC_EDGE_CONVEX;
}

// The two faces' groups of edge e as an ordered pair.
static void edge_face_groups(const osc_brep* b, int e, int out[2]) {
    int g0 = b->face_group[b->edges[e].face[0]], g1 = b->face_group[b->edges[e].face[1]];
    out[0] = g0 < g1 ? g0 : g1;
    out[1] = g0 < g1 ? g1 : g0;
}

// A vertex where exactly two ends of edges of one supermaximal edge meet, with nothing else but
// seams and inner edges of supermaximal faces, lies inside that edge: it is no feature (its
// tangents are +-t, and its polar, dilated by alpha, would let in points of the edge that are not
// local minima). Marks them and makes them inactive (no BVH leaf).
static void mark_inner_vertices(osc_brep* b) {
    int nv = b->desc.vertex_count, ne = b->desc.edge_count;
    int* group = osc_calloc((size_t)nv + 1, sizeof(int));
    int* ends = osc_calloc((size_t)nv + 1, sizeof(int));
    if (!group || !ends) { // (an optimisation only: without memory every vertex stays a feature)
        osc_free(group);
        osc_free(ends);
        return;
    }
    for (int v = 0; v < nv; v++) group[v] = -1;
    for (int e = 0; e < ne; e++) {
        const osc_brep_edge* edge = &b->edges[e];
        bool seam = edge->face[0] == edge->face[1];
        bool inner = b->face_group[edge->face[0]] == b->face_group[edge->face[1]];
        if (seam || inner) continue;
        for (int k = 0; k < 2; k++) {
            int v = edge->vertex[k];
            if (v < 0) continue;
            int g = edge_groupable(b, e) ? b->edge_group[e] : -2 - e; // not groupable: its own
            if (ends[v] == 0 || group[v] == g)
                group[v] = g;
            else
                group[v] = -2 - ne; // two groups meet: a genuine vertex
            ends[v]++;
        }
    }
    for (int v = 0; v < nv; v++) {
        b->inner_vertex[v] = ends[v] == 2 && group[v] >= 0;
        if (b->inner_vertex[v]) b->vertex_data[v].active = false;
    }
    osc_free(group);
    osc_free(ends);
}

osc_status osc_brep_build_supermaximal(osc_brep* b) {
    int nf = b->desc.face_count, ne = b->desc.edge_count;
    b->face_group = osc_calloc((size_t)nf + 1, sizeof(int));
    b->face_next = osc_calloc((size_t)nf + 1, sizeof(int));
    b->edge_group = osc_calloc((size_t)ne + 1, sizeof(int));
    b->edge_next = osc_calloc((size_t)ne + 1, sizeof(int));
    b->inner_begin = osc_calloc((size_t)nf + 2, sizeof(int));
    b->inner_edges = osc_calloc((size_t)ne + 1, sizeof(int));
    b->inner_vertex = osc_calloc((size_t)b->desc.vertex_count + 1, sizeof(bool));
    if (!b->face_group || !b->face_next || !b->edge_group || !b->edge_next || !b->inner_begin || !b->inner_edges ||
        !b->inner_vertex)
        return OSC_ERR_NO_MEMORY;
    b->supermaximal = true;
    // faces: O(n^2) over pairs of one solid (shell; Crozet 2017 §2.3.1)
    for (int i = 0; i < nf; i++) b->face_group[i] = i;
    for (int i = 0; i < nf; i++) {
        if (b->face_data[i].geo.kind == OSC_GEO_NURBS_SURFACE) continue;
        int end = nf; // the end of face i's shell (shells are consecutive ranges of faces)
        for (int k = 0; k < b->shell_count; k++)
            if (i >= b->shells[k].face_begin && i < b->shells[k].face_begin + b->shells[k].face_count)
                end = b->shells[k].face_begin + b->shells[k].face_count;
        for (int j = i + 1; j < end; j++)
            if (find_root(b->face_group, j) != find_root(b->face_group, i) && same_face_surface(b, i, j))
                unite(b->face_group, i, j);
    }
    for (int i = 0; i < nf; i++) b->face_group[i] = find_root(b->face_group, i);
    link_members(b->face_group, b->face_next, nf);
    // edges: on one line or circle, convex, between the same two supermaximal faces
    for (int i = 0; i < ne; i++) b->edge_group[i] = i;
    for (int i = 0; i < ne; i++) {
        if (!edge_groupable(b, i)) continue;
        int gi[2];
        edge_face_groups(b, i, gi);
        for (int j = i + 1; j < ne; j++) {
            if (!edge_groupable(b, j) || find_root(b->edge_group, j) == find_root(b->edge_group, i)) continue;
            int gj[2];
            edge_face_groups(b, j, gj);
            if (gi[0] == gj[0] && gi[1] == gj[1] &&
                same_curve(&b->edge_data[i].geo, &b->edge_data[j].geo, k_same_length * b->scale))
                unite(b->edge_group, i, j);
        }
    }
    for (int i = 0; i < ne; i++) b->edge_group[i] = find_root(b->edge_group, i);
    link_members(b->edge_group, b->edge_next, ne);
    // the inner edges of each face group: between two of its faces (G1 there, so no feature)
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < ne; e++) {
            const osc_brep_edge* edge = &b->edges[e];
            int g = b->face_group[edge->face[0]];
            if (edge->face[0] == edge->face[1] || g != b->face_group[edge->face[1]]) continue;
            if (pass == 0)
                b->inner_begin[g + 1]++;
            else
                b->inner_edges[b->inner_begin[g]++] = e;
        }
        if (pass == 0)
            for (int g = 0; g < nf; g++) b->inner_begin[g + 1] += b->inner_begin[g];
    }
    for (int g = nf; g > 0; g--) b->inner_begin[g] = b->inner_begin[g - 1];
    b->inner_begin[0] = 0;
    mark_inner_vertices(b);
    for (int i = 0; i < nf; i++) b->supermaximal_face_count += b->face_group[i] == i;
    for (int i = 0; i < ne; i++) b->supermaximal_edge_count += b->edge_group[i] == i;
    return OSC_OK;
}

osc_status osc_brep_set_supermaximal(osc_brep* b, bool on) {
    if (on || !b->supermaximal) return OSC_OK; // (built at creation; this only turns them off, for tests)
    b->supermaximal = false;
    for (int v = 0; v < b->desc.vertex_count; v++)
        if (b->inner_vertex[v]) b->vertex_data[v].active = true;
    memset(b->inner_vertex, 0, (size_t)b->desc.vertex_count * sizeof(bool));
    for (int i = 0; i < b->desc.face_count; i++) b->face_group[i] = b->face_next[i] = i;
    for (int i = 0; i < b->desc.edge_count; i++) b->edge_group[i] = b->edge_next[i] = i;
    for (int g = 0; g <= b->desc.face_count; g++) b->inner_begin[g] = 0;
    b->supermaximal_face_count = b->desc.face_count;
    b->supermaximal_edge_count = b->desc.edge_count;
    osc_free(b->leaves);
    osc_free(b->nodes);
    b->leaves = NULL;
    b->nodes = NULL;
    b->leaf_count = b->node_count = 0;
    return osc_brep_build_bvh(b);
}

// ---- the union of a group's pieces --------------------------------------------------------------

int osc_brep_group_face(const osc_brep* b, int face, osc_vec3 p, double tol, double* param) {
    int g = b->face_group[face];
    // near an inner edge: its lower face, so that the two sides of a seam give one feature
    for (int k = b->inner_begin[g]; k < b->inner_begin[g + 1]; k++) {
        int e = b->inner_edges[k];
        const osc_brep_edge* edge = &b->edges[e];
        double t = 0.0;
        if (!osc_geo_project(&b->edge_data[e].geo, p, &t)) continue;
        if (edge->type == OSC_CURVE_CIRCLE) t = osc_wrap_angle(t, edge->t0);
        if (t < edge->t0 || t > edge->t1) continue;
        osc_vec3 q;
        osc_geo_eval(&b->edge_data[e].geo, &t, &q, NULL, NULL);
        if (osc_length(osc_sub(p, q)) > tol) continue;
        int f = edge->face[0] < edge->face[1] ? edge->face[0] : edge->face[1];
        param[0] = param[1] = 0.0;
        osc_geo_project(&b->face_data[f].geo, p, param);
        osc_brep_face_wrap(b, f, &param[0], &param[1]);
        return f;
    }
    // else the first member (in index order) whose trimmed domain holds it
    int f = g;
    do {
        double t[2] = {0.0, 0.0};
        if (f == face || osc_geo_project(&b->face_data[f].geo, p, t)) {
            if (f == face) { // the caller's parameters: exact on its own face
                t[0] = param[0];
                t[1] = param[1];
            }
            osc_brep_face_wrap(b, f, &t[0], &t[1]);
            if (osc_brep_face_contains_wrapped(b, f, t[0], t[1])) {
                param[0] = t[0];
                param[1] = t[1];
                return f;
            }
        }
        f = b->face_next[f];
    } while (f != g);
    return -1;
}

int osc_brep_group_edge(const osc_brep* b, int edge, osc_vec3 p, double tol, double* param) {
    int g = b->edge_group[edge], e = g;
    // at an inner vertex: the lowest member ending there, so that the two sides give one feature
    do {
        const osc_brep_edge* ed = &b->edges[e];
        for (int k = 0; k < 2; k++) {
            int v = ed->vertex[k];
            if (v >= 0 && b->inner_vertex[v] && osc_length(osc_sub(p, b->vertices[v])) <= tol) {
                param[0] = k == 0 ? ed->t0 : ed->t1;
                return e;
            }
        }
        e = b->edge_next[e];
    } while (e != g);
    do {
        const osc_brep_edge* ed = &b->edges[e];
        double s = param[0];
        if (e != edge) osc_geo_project(&b->edge_data[e].geo, p, &s);
        if (ed->type == OSC_CURVE_CIRCLE) s = osc_wrap_angle(s, ed->t0);
        double end_tol = 1e-10 * (ed->t1 - ed->t0);
        if ((ed->type == OSC_CURVE_CIRCLE && ed->t1 - ed->t0 >= k_two_pi - 1e-12) ||
            (s > ed->t0 + end_tol && s < ed->t1 - end_tol)) {
            param[0] = s;
            return e;
        }
        e = b->edge_next[e];
    } while (e != g);
    return -1;
}
