// mesh_simplify.c: quadric edge collapse (Garland and Heckbert, SIGGRAPH 1997) with topology and
// quality guards, for the collision meshes that marching cubes makes from an SDF (Beker et al. 2026 §IV-A;
// issue 3: keep sharp features within a stated tolerance, stay closed when the input is closed).
//
// SUMMARY
// 1. weld: each vertex, in input order, merges into the lowest earlier kept vertex closer than
//    weld_tolerance (max-norm; the importers' rule, mesh_weld.c); triangles that then repeat a
//    vertex are dropped.
// 2. classify: a vertex whose triangles form one consistently oriented fan (a disc, or a half-disc
//    on the boundary) may move; any other vertex (non-manifold, inconsistently oriented) is locked,
//    and so is every edge that touches it.
// 3. quadrics: one plane per triangle, weighted by its area, plus, for each boundary edge, the
//    plane through the edge perpendicular to its triangle, weighted by the squared edge length.
// 4. collapse: edges leave a binary heap in order of quadric error plus a small edge-length term
//    (LENGTH_WEIGHT; ties by vertex index; stale entries are recognised by per-vertex stamps, so
//    the order, and the output, depend on the input alone). Each is checked when it leaves the heap:
//    link condition, no flipped or degenerate triangle, minimum angle, max_error (see
//    placement_is_valid and link_condition_holds). A collapse whose best valid placement costs more
//    than its queued priority goes back into the heap with the higher priority; a refused one is
//    queued again when a collapse changes the one-ring of either end.
// 5. compact: used vertices in input order, surviving triangles in input order.
//
// ERROR
// The error of a vertex position p is the root-mean-square distance, weighted by plane weight,
// from p to the planes of the quadric: sqrt(Q(p) / W), where Q(p) = sum_i w_i (n_i . p + d_i)^2 and
// W = sum_i w_i over the planes merged into the vertex (a triangle counts once per corner among the
// merged vertices; boundary constraint planes count like triangles). docs/simplify.md has more.
//
// NUMERIC ROBUSTNESS
// Quadrics are accumulated about the centre of the bounding box, so their constant terms do not
// swamp the distances of a mesh far from the origin. The 3x3 system is solved only when its
// Frobenius condition number is below CONDITION_MAX and the solution lies within one edge length of
// the edge's midpoint; otherwise the midpoint or an endpoint is used. A new triangle is degenerate
// when its cross product vanishes within rounding (the criterion of osc_mesh_get_topology), and is
// never created. Slivers of the input (sine of the smallest angle below SHAPE_RELIABLE_SIN) have no
// reliable normal: their flip test uses the summed normal of the collapse region instead.

#include "osculate/mesh.h"

#include "array_internal.h"
#include "base_internal.h"
#include "mesh_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIMPLIFY_PI 3.14159265358979323846

enum {
    VERTEX_BOUNDARY = 1, // its fan is a half-disc: it lies on a boundary edge
    VERTEX_LOCKED = 2,   // its fan is neither a disc nor a half-disc: never moved
    VERTEX_REMOVED = 4,  // collapsed into another vertex
    VERTEX_BLOCKED = 8   // one of its edges was refused: queue them again when its one-ring changes
};

// a collapse turns no surviving triangle's normal by more than acos(0.2), about 78 degrees
static const double NORMAL_MIN_COS = 0.2;
// below this sine of its smallest angle (about 0.6 degree) a triangle's normal is not a reference
static const double SHAPE_RELIABLE_SIN = 0.01;
// the quadric's 3x3 system is solved only below this Frobenius condition number
static const double CONDITION_MAX = 1e6;
// a boundary constraint plane weighs this times its edge's squared length (an area, like triangles)
static const double BOUNDARY_WEIGHT = 1.0;
// priority = quadric error + LENGTH_WEIGHT * W * |ab|^2. Among collapses of equal error (flat
// regions, where it is zero) the shortest edges go first, which keeps triangles well shaped. It
// also removes the one-cell chamfers marching cubes cuts along sharp edges before zero-error
// collapses along the chamfer stretch its triangles into needles that the min_angle guard then
// protects: with 1e-3 a box meshed at 96 cells keeps its chamfers (corners 1.2e-2 from the nearest
// vertex at 100 triangles), with 1e-2 the corners come back (2e-3). The price is a more uniform,
// less curvature-adaptive sizing: the torus at 1000 triangles deviates 8e-3 instead of 5e-3.
static const double LENGTH_WEIGHT = 1e-2;

// the quadric sum_i w_i (n_i . p + d_i)^2 = p^T A p + 2 b . p + c, p about the mesh centre
typedef struct quadric {
    double a[6]; // symmetric A: xx, xy, xz, yy, yz, zz
    double b[3];
    double c;
    double weight; // W = sum_i w_i
} quadric;

// a queued collapse of edge (a, b), a < b; stale when a stamp differs from the vertex's
typedef struct collapse_entry {
    double priority;
    int32_t a, b;
    uint32_t stamp_a, stamp_b;
} collapse_entry;

// a placement of the merged vertex with its quadric error Q(p)
typedef struct candidate {
    double position[3];
    double error;
} candidate;

typedef struct simplifier {
    int32_t vertex_count, triangle_count, alive_triangles;
    double* position;  // [vertex_count][3], absolute
    quadric* quadrics; // [vertex_count]
    uint8_t* flags;    // [vertex_count] VERTEX_*
    uint32_t* stamp;   // [vertex_count] bumped whenever the vertex moves (its quadric changes)
    uint64_t* mark;    // [vertex_count] scratch marks, compared with mark_counter values
    uint64_t* member;  // [vertex_count] scratch marks of the set being re-queued
    uint64_t mark_counter;
    int32_t* set;       // [vertex_count] scratch list
    int32_t* triangles; // [triangle_count][3]; -1 once removed
    int32_t* head;      // [vertex_count] first corner (3 t + k) around the vertex, -1 when none
    int32_t* next;      // [3 triangle_count] doubly linked corner lists around each vertex
    int32_t* prev;
    collapse_entry* heap;
    size_t heap_size, heap_capacity;
    double centre[3];
    double max_error, min_sin, achieved;
} simplifier;

// ---------------------------------------------------------------------------------------------
// small vector helpers

static void sub3(const double x[3], const double y[3], double out[3]) {
    out[0] = x[0] - y[0];
    out[1] = x[1] - y[1];
    out[2] = x[2] - y[2];
}

static void cross3(const double x[3], const double y[3], double out[3]) {
    out[0] = x[1] * y[2] - x[2] * y[1];
    out[1] = x[2] * y[0] - x[0] * y[2];
    out[2] = x[0] * y[1] - x[1] * y[0];
}

static double dot3(const double x[3], const double y[3]) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; }

// the cross product (p1 - p0) x (p2 - p0); *degenerate (nullable) when every component vanishes
// within the rounding of its two products (exactly collinear points always do)
static void triangle_normal(const double* p0, const double* p1, const double* p2, double n[3], bool* degenerate) {
    double u[3], v[3];
    sub3(p1, p0, u);
    sub3(p2, p0, v);
    cross3(u, v, n);
    if (degenerate) *degenerate = mesh_cross_is_zero(u, v);
}

// the sine of the triangle's smallest angle, |n| / (product of its two longest edges); 0 when
// two vertices coincide
static double triangle_min_sin(const double* p0, const double* p1, const double* p2, const double n[3]) {
    double e[3][3];
    sub3(p1, p0, e[0]);
    sub3(p2, p1, e[1]);
    sub3(p0, p2, e[2]);
    double l0 = dot3(e[0], e[0]), l1 = dot3(e[1], e[1]), l2 = dot3(e[2], e[2]);
    double shortest = fmin(l0, fmin(l1, l2));
    double product = l0 == shortest ? l1 * l2 : l1 == shortest ? l0 * l2 : l0 * l1;
    return product > 0.0 ? sqrt(dot3(n, n) / product) : 0.0;
}

// ---------------------------------------------------------------------------------------------
// quadrics

static void quadric_add_plane(quadric* q, const double n[3], double d, double weight) {
    q->a[0] += weight * n[0] * n[0];
    q->a[1] += weight * n[0] * n[1];
    q->a[2] += weight * n[0] * n[2];
    q->a[3] += weight * n[1] * n[1];
    q->a[4] += weight * n[1] * n[2];
    q->a[5] += weight * n[2] * n[2];
    for (int k = 0; k < 3; ++k) q->b[k] += weight * d * n[k];
    q->c += weight * d * d;
    q->weight += weight;
}

static quadric quadric_sum(const quadric* x, const quadric* y) {
    quadric q;
    for (int k = 0; k < 6; ++k) q.a[k] = x->a[k] + y->a[k];
    for (int k = 0; k < 3; ++k) q.b[k] = x->b[k] + y->b[k];
    q.c = x->c + y->c;
    q.weight = x->weight + y->weight;
    return q;
}

// adds the plane through `point` (absolute) with unit normal `n`
static void quadric_add_plane_at(simplifier* s, quadric* q, const double point[3], const double n[3], double weight) {
    double local[3];
    sub3(point, s->centre, local);
    quadric_add_plane(q, n, -dot3(n, local), weight);
}

// Q(p) for an absolute position p, clamped at 0 against rounding
static double quadric_error(const simplifier* s, const quadric* q, const double position[3]) {
    double p[3];
    sub3(position, s->centre, p);
    const double* a = q->a;
    double ax = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
    double ay = a[1] * p[0] + a[3] * p[1] + a[4] * p[2];
    double az = a[2] * p[0] + a[4] * p[1] + a[5] * p[2];
    double error = p[0] * ax + p[1] * ay + p[2] * az + 2.0 * dot3(q->b, p) + q->c;
    return error > 0.0 ? error : 0.0;
}

// the error as a distance, sqrt(Q / W)
static double quadric_distance(const quadric* q, double error) {
    return q->weight > 0.0 ? sqrt(error / q->weight) : 0.0;
}

// writes argmin Q (absolute) when A is well conditioned; false otherwise
static bool quadric_minimum(const simplifier* s, const quadric* q, double position[3]) {
    const double* a = q->a;
    double c00 = a[3] * a[5] - a[4] * a[4], c01 = a[2] * a[4] - a[1] * a[5];
    double c02 = a[1] * a[4] - a[2] * a[3], c11 = a[0] * a[5] - a[2] * a[2];
    double c12 = a[1] * a[2] - a[0] * a[4], c22 = a[0] * a[3] - a[1] * a[1];
    double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    double norm_a = a[0] * a[0] + a[3] * a[3] + a[5] * a[5] + 2.0 * (a[1] * a[1] + a[2] * a[2] + a[4] * a[4]);
    double norm_c = c00 * c00 + c11 * c11 + c22 * c22 + 2.0 * (c01 * c01 + c02 * c02 + c12 * c12);
    // kappa_F = |A|_F |A^-1|_F = |A|_F |adj A|_F / det
    if (!(det > 0.0) || !(sqrt(norm_a * norm_c) < CONDITION_MAX * det)) return false;
    const double* b = q->b;
    position[0] = s->centre[0] - (c00 * b[0] + c01 * b[1] + c02 * b[2]) / det;
    position[1] = s->centre[1] - (c01 * b[0] + c11 * b[1] + c12 * b[2]) / det;
    position[2] = s->centre[2] - (c02 * b[0] + c12 * b[1] + c22 * b[2]) / det;
    return osc_is_finite3(position[0], position[1], position[2]);
}

// the placements allowed for the merged vertex of edge (a, b), sorted by error (ties keep the
// order optimum, midpoint, a, b). A boundary vertex stays where it is: when one endpoint is on the
// boundary the merged vertex takes its position, so boundary vertices are always input boundary
// vertices. Returns the count.
static int collapse_candidates(const simplifier* s, int32_t a, int32_t b, const quadric* q, candidate out[4]) {
    const double* pa = s->position + 3 * (size_t)a;
    const double* pb = s->position + 3 * (size_t)b;
    bool boundary_a = s->flags[a] & VERTEX_BOUNDARY, boundary_b = s->flags[b] & VERTEX_BOUNDARY;
    int count = 0;
    if (!boundary_a && !boundary_b) {
        double mid[3] = {0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2])};
        double optimum[3], to_mid[3], edge[3];
        sub3(pb, pa, edge);
        if (quadric_minimum(s, q, optimum)) {
            sub3(optimum, mid, to_mid);
            if (dot3(to_mid, to_mid) <= dot3(edge, edge)) memcpy(out[count++].position, optimum, sizeof optimum);
        }
        memcpy(out[count++].position, mid, sizeof mid);
    }
    if (boundary_a || !boundary_b) memcpy(out[count++].position, pa, 3 * sizeof(double));
    if (boundary_b || !boundary_a) memcpy(out[count++].position, pb, 3 * sizeof(double));
    for (int i = 0; i < count; ++i) out[i].error = quadric_error(s, q, out[i].position);
    for (int i = 1; i < count; ++i) // insertion sort, stable
        for (int j = i; j > 0 && out[j].error < out[j - 1].error; --j) {
            candidate swap = out[j];
            out[j] = out[j - 1];
            out[j - 1] = swap;
        }
    return count;
}

// the heap priority of a placement: its error plus a small multiple of W |ab|^2 (LENGTH_WEIGHT)
static double collapse_priority(const simplifier* s, int32_t a, int32_t b, const quadric* q, double error) {
    double edge[3];
    sub3(s->position + 3 * (size_t)b, s->position + 3 * (size_t)a, edge);
    return error + LENGTH_WEIGHT * q->weight * dot3(edge, edge);
}

// ---------------------------------------------------------------------------------------------
// corner lists (corner c = 3 t + k is vertex k of triangle t)

static int32_t corner_next_vertex(const simplifier* s, int32_t corner) {
    return s->triangles[corner - corner % 3 + (corner % 3 + 1) % 3];
}

static int32_t corner_prev_vertex(const simplifier* s, int32_t corner) {
    return s->triangles[corner - corner % 3 + (corner % 3 + 2) % 3];
}

static void corner_link(simplifier* s, int32_t corner, int32_t vertex) {
    s->prev[corner] = -1;
    s->next[corner] = s->head[vertex];
    if (s->head[vertex] >= 0) s->prev[s->head[vertex]] = corner;
    s->head[vertex] = corner;
}

static void corner_unlink(simplifier* s, int32_t corner, int32_t vertex) {
    if (s->prev[corner] >= 0)
        s->next[s->prev[corner]] = s->next[corner];
    else
        s->head[vertex] = s->next[corner];
    if (s->next[corner] >= 0) s->prev[s->next[corner]] = s->prev[corner];
}

// the fan of `vertex`: each corner is a link edge next -> prev. 0: no triangles; 1: a disc (the
// link edges form one cycle); 2: a half-disc (one path); -1: anything else (a link vertex starts
// or ends two link edges, or the link edges form several cycles or paths). *first and *last
// receive the corners at the ends of a path: the boundary half-edges are vertex -> next of *first
// and prev of *last -> vertex. O(degree): s->mark flags the starts of link edges, s->member their
// ends, s->set (free once the triangles are welded) the corner starting at each link vertex.
static int fan_kind(simplifier* s, int32_t vertex, int32_t* first, int32_t* last) {
    uint64_t stamp = ++s->mark_counter;
    int32_t count = 0;
    *first = *last = -1;
    for (int32_t c = s->head[vertex]; c >= 0; c = s->next[c], ++count) {
        int32_t x = corner_next_vertex(s, c), y = corner_prev_vertex(s, c);
        if (s->mark[x] == stamp || s->member[y] == stamp) return -1;
        s->mark[x] = stamp;
        s->member[y] = stamp;
        s->set[x] = c;
    }
    if (count == 0) return 0;
    for (int32_t c = s->head[vertex]; c >= 0; c = s->next[c]) {
        if (s->member[corner_next_vertex(s, c)] != stamp) { // no link edge ends where c starts
            if (*first >= 0) return -1;
            *first = c;
        }
        if (s->mark[corner_prev_vertex(s, c)] != stamp) *last = c;
    }
    int32_t start = *first >= 0 ? *first : s->head[vertex], corner = start, steps = 1;
    for (;;) {
        int32_t y = corner_prev_vertex(s, corner);
        if (s->mark[y] != stamp || s->set[y] == start) break;
        corner = s->set[y];
        if (++steps > count) return -1;
    }
    if (steps != count) return -1;
    return *first >= 0 ? 2 : 1;
}

// ---------------------------------------------------------------------------------------------
// binary heap of collapses (min-priority; ties by vertex indices)

static bool entry_less(const collapse_entry* x, const collapse_entry* y) {
    if (x->priority != y->priority) return x->priority < y->priority;
    if (x->a != y->a) return x->a < y->a;
    return x->b < y->b;
}

static void heap_sift_down(simplifier* s, size_t i) {
    collapse_entry* h = s->heap;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= s->heap_size) return;
        if (child + 1 < s->heap_size && entry_less(&h[child + 1], &h[child])) ++child;
        if (!entry_less(&h[child], &h[i])) return;
        collapse_entry swap = h[i];
        h[i] = h[child];
        h[child] = swap;
        i = child;
    }
}

static bool entry_is_current(const simplifier* s, const collapse_entry* e) {
    return !((s->flags[e->a] | s->flags[e->b]) & VERTEX_REMOVED) && s->stamp[e->a] == e->stamp_a &&
           s->stamp[e->b] == e->stamp_b;
}

// drops stale entries; doubles the capacity when at least half of the entries are current
static osc_status heap_make_room(simplifier* s) {
    size_t kept = 0;
    for (size_t i = 0; i < s->heap_size; ++i)
        if (entry_is_current(s, &s->heap[i])) s->heap[kept++] = s->heap[i];
    s->heap_size = kept;
    for (size_t i = kept / 2; i-- > 0;) heap_sift_down(s, i);
    if (kept < s->heap_capacity / 2) return OSC_OK;
    return OSC_ARRAY_RESERVE(s->heap, s->heap_capacity, s->heap_capacity + 1); // (it doubles)
}

static osc_status heap_push(simplifier* s, collapse_entry entry) {
    if (s->heap_size == s->heap_capacity) {
        osc_status status = heap_make_room(s);
        if (status) return status;
    }
    collapse_entry* h = s->heap;
    size_t i = s->heap_size++;
    while (i > 0 && entry_less(&entry, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = entry;
    return OSC_OK;
}

// removes the smallest entry: the hole at the root goes down to a leaf along the smaller children,
// then the last entry rises from there (about half the comparisons of a plain sift-down, since
// the last entry rarely rises far)
static collapse_entry heap_pop(simplifier* s) {
    collapse_entry* h = s->heap;
    collapse_entry top = h[0], last = h[--s->heap_size];
    size_t size = s->heap_size, i = 0;
    if (size == 0) return top;
    for (size_t child = 1; child < size; child = 2 * i + 1) {
        if (child + 1 < size && entry_less(&h[child + 1], &h[child])) ++child;
        h[i] = h[child];
        i = child;
    }
    while (i > 0 && entry_less(&last, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = last;
    return top;
}

// queues edge (a, b) at the priority of its best placement, unless it touches a locked vertex or
// even that placement exceeds max_error
static osc_status push_edge(simplifier* s, int32_t a, int32_t b) {
    if (a > b) {
        int32_t swap = a;
        a = b;
        b = swap;
    }
    if ((s->flags[a] | s->flags[b]) & (VERTEX_LOCKED | VERTEX_REMOVED)) return OSC_OK;
    quadric q = quadric_sum(&s->quadrics[a], &s->quadrics[b]);
    candidate candidates[4];
    collapse_candidates(s, a, b, &q, candidates);
    if (!(quadric_distance(&q, candidates[0].error) <= s->max_error)) return OSC_OK;
    collapse_entry entry = {collapse_priority(s, a, b, &q, candidates[0].error), a, b, s->stamp[a], s->stamp[b]};
    return heap_push(s, entry);
}

// ---------------------------------------------------------------------------------------------
// the guards

// Dey et al.'s link condition for collapsing edge ab of a 2-manifold, link(a) ^ link(b) =
// link(ab), with the boundary coned to a dummy vertex. For manifold fans it comes down to: the
// common neighbours of a and b are exactly the vertices opposite ab; an interior edge does not
// join two boundary vertices; the mesh is not a tetrahedron (interior edge, both ends of degree 3)
// and not a lone triangle (boundary edge, both ends in one triangle).
static bool link_condition_holds(simplifier* s, int32_t a, int32_t b) {
    uint64_t mark_a = ++s->mark_counter;
    int32_t shared = 0, count_a = 0, count_b = 0, common = 0;
    for (int32_t c = s->head[a]; c >= 0; c = s->next[c], ++count_a) {
        int32_t x = corner_next_vertex(s, c), y = corner_prev_vertex(s, c);
        if (x == b || y == b) ++shared;
        s->mark[x] = mark_a;
        s->mark[y] = mark_a;
    }
    if (shared < 1 || shared > 2) return false;
    uint64_t mark_b = ++s->mark_counter;
    for (int32_t c = s->head[b]; c >= 0; c = s->next[c], ++count_b) {
        int32_t ring[2] = {corner_next_vertex(s, c), corner_prev_vertex(s, c)};
        for (int k = 0; k < 2; ++k) {
            if (ring[k] != a && s->mark[ring[k]] == mark_a) {
                s->mark[ring[k]] = mark_b;
                ++common;
            }
        }
    }
    if (common != shared) return false;
    bool boundary_a = s->flags[a] & VERTEX_BOUNDARY, boundary_b = s->flags[b] & VERTEX_BOUNDARY;
    if (shared == 2 && boundary_a && boundary_b) return false;
    if (shared == 2 && !boundary_a && !boundary_b && count_a == 3 && count_b == 3) return false;
    if (shared == 1 && count_a == 1 && count_b == 1) return false;
    return true;
}

// true when moving a and b to `p` keeps every surviving triangle around them non-degenerate,
// unflipped (its normal turns by less than acos(NORMAL_MIN_COS) from its old normal, or from the
// summed old normal of the region when it was a sliver), and the smallest angle of the changed
// triangles at least min(min_angle, the smallest angle of the triangles they replace)
static bool placement_is_valid(const simplifier* s, int32_t a, int32_t b, const double p[3]) {
    double region[3] = {0.0, 0.0, 0.0}, old_min = 1.0, new_min = 1.0;
    const int32_t ends[2] = {a, b};
    for (int e = 0; e < 2; ++e) {
        for (int32_t c = s->head[ends[e]]; c >= 0; c = s->next[c]) {
            const int32_t* t = s->triangles + (c - c % 3);
            double n[3];
            triangle_normal(s->position + 3 * (size_t)t[0], s->position + 3 * (size_t)t[1],
                            s->position + 3 * (size_t)t[2], n, NULL);
            for (int k = 0; k < 3; ++k) region[k] += n[k];
        }
    }
    double region_length = sqrt(dot3(region, region));
    for (int e = 0; e < 2; ++e) {
        int32_t moved = ends[e], other = ends[1 - e];
        for (int32_t c = s->head[moved]; c >= 0; c = s->next[c]) {
            const int32_t* t = s->triangles + (c - c % 3);
            const double* old_p[3];
            for (int k = 0; k < 3; ++k) old_p[k] = s->position + 3 * (size_t)t[k];
            double old_n[3], new_n[3];
            bool new_degenerate;
            triangle_normal(old_p[0], old_p[1], old_p[2], old_n, NULL);
            double old_sin = triangle_min_sin(old_p[0], old_p[1], old_p[2], old_n);
            old_min = fmin(old_min, old_sin);
            if (t[0] == other || t[1] == other || t[2] == other) continue; // removed by the collapse
            const double* new_p[3] = {old_p[0], old_p[1], old_p[2]};
            new_p[c % 3] = p;
            triangle_normal(new_p[0], new_p[1], new_p[2], new_n, &new_degenerate);
            if (new_degenerate) return false;
            new_min = fmin(new_min, triangle_min_sin(new_p[0], new_p[1], new_p[2], new_n));
            double new_length = sqrt(dot3(new_n, new_n));
            double turn = old_sin >= SHAPE_RELIABLE_SIN ? dot3(new_n, old_n) / (new_length * sqrt(dot3(old_n, old_n)))
                                                        : dot3(new_n, region) / (new_length * region_length);
            if (!(turn > NORMAL_MIN_COS)) return false;
        }
    }
    return new_min >= fmin(s->min_sin, old_min);
}

// ---------------------------------------------------------------------------------------------
// collapsing

// unlinks the corners of triangle t and marks it removed
static void remove_triangle(simplifier* s, int32_t t) {
    for (int k = 0; k < 3; ++k) corner_unlink(s, 3 * t + k, s->triangles[3 * t + k]);
    for (int k = 0; k < 3; ++k) s->triangles[3 * t + k] = -1;
    --s->alive_triangles;
}

// queues again the edges of `vertex` (its quadric and position changed: its stamp is bumped) and
// those of its neighbours that had an edge refused (their one-ring changed, so the guards may now
// allow it); the other queued entries of the neighbours stay current
static osc_status requeue_neighbourhood(simplifier* s, int32_t vertex) {
    uint64_t in_set = ++s->mark_counter;
    int32_t size = 0;
    ++s->stamp[vertex];
    s->flags[vertex] &= (uint8_t)~VERTEX_BLOCKED;
    s->set[size++] = vertex;
    s->member[vertex] = in_set;
    for (int32_t c = s->head[vertex]; c >= 0; c = s->next[c]) {
        int32_t ring[2] = {corner_next_vertex(s, c), corner_prev_vertex(s, c)};
        for (int k = 0; k < 2; ++k) {
            if (s->member[ring[k]] == in_set || !(s->flags[ring[k]] & VERTEX_BLOCKED)) continue;
            s->flags[ring[k]] &= (uint8_t)~VERTEX_BLOCKED;
            s->member[ring[k]] = in_set;
            s->set[size++] = ring[k];
        }
    }
    for (int32_t i = 0; i < size; ++i) {
        int32_t x = s->set[i];
        uint64_t seen = ++s->mark_counter;
        for (int32_t c = s->head[x]; c >= 0; c = s->next[c]) {
            int32_t ring[2] = {corner_next_vertex(s, c), corner_prev_vertex(s, c)};
            for (int k = 0; k < 2; ++k) {
                int32_t y = ring[k];
                if (s->mark[y] == seen || (s->member[y] == in_set && y < x)) continue;
                s->mark[y] = seen;
                osc_status status = push_edge(s, x, y);
                if (status) return status;
            }
        }
    }
    return OSC_OK;
}

// merges b into a at `p`: removes the triangles on edge ab, relabels b's corners, sums the quadrics
static osc_status collapse_edge(simplifier* s, int32_t a, int32_t b, const double p[3]) {
    for (int32_t c = s->head[b], following; c >= 0; c = following) {
        following = s->next[c];
        int32_t t = c / 3;
        const int32_t* v = s->triangles + 3 * t;
        if (v[0] == a || v[1] == a || v[2] == a) remove_triangle(s, t);
    }
    int32_t tail = -1;
    for (int32_t c = s->head[b]; c >= 0; c = s->next[c]) {
        s->triangles[c] = a;
        tail = c;
    }
    if (tail >= 0) {
        s->next[tail] = s->head[a];
        if (s->head[a] >= 0) s->prev[s->head[a]] = tail;
        s->head[a] = s->head[b];
    }
    s->head[b] = -1;
    memcpy(s->position + 3 * (size_t)a, p, 3 * sizeof(double));
    s->quadrics[a] = quadric_sum(&s->quadrics[a], &s->quadrics[b]);
    s->flags[a] |= s->flags[b] & VERTEX_BOUNDARY;
    s->flags[b] |= VERTEX_REMOVED;
    return requeue_neighbourhood(s, a);
}

// pops collapses until the target is met or none is allowed
static osc_status run_collapses(simplifier* s, int32_t target) {
    while (s->alive_triangles > target && s->heap_size > 0) {
        collapse_entry entry = heap_pop(s);
        if (!entry_is_current(s, &entry)) continue;
        if (!link_condition_holds(s, entry.a, entry.b)) {
            s->flags[entry.a] |= VERTEX_BLOCKED;
            s->flags[entry.b] |= VERTEX_BLOCKED;
            continue;
        }
        quadric q = quadric_sum(&s->quadrics[entry.a], &s->quadrics[entry.b]);
        candidate candidates[4];
        int count = collapse_candidates(s, entry.a, entry.b, &q, candidates), chosen = -1;
        for (int i = 0; i < count && chosen < 0; ++i) {
            if (!(quadric_distance(&q, candidates[i].error) <= s->max_error)) break;
            if (placement_is_valid(s, entry.a, entry.b, candidates[i].position)) chosen = i;
        }
        if (chosen < 0) { // queued again when the one-ring of a or b changes
            s->flags[entry.a] |= VERTEX_BLOCKED;
            s->flags[entry.b] |= VERTEX_BLOCKED;
            continue;
        }
        double priority = collapse_priority(s, entry.a, entry.b, &q, candidates[chosen].error);
        if (priority > entry.priority) { // a worse placement than queued: wait for its turn
            entry.priority = priority;
            osc_status status = heap_push(s, entry);
            if (status) return status;
            continue;
        }
        s->achieved = fmax(s->achieved, quadric_distance(&q, candidates[chosen].error));
        osc_status status = collapse_edge(s, entry.a, entry.b, candidates[chosen].position);
        if (status) return status;
    }
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// set-up: weld, corner lists, classification, quadrics

// area-weighted triangle planes (so that the many slivers and the tiny triangles of vertex
// clusters that marching cubes leaves count for their area, not their number, and the error is a
// mean over the surface), plus the boundary constraint planes of the half-disc fans
static void accumulate_quadrics(simplifier* s) {
    for (int32_t t = 0; t < s->triangle_count; ++t) {
        const int32_t* v = s->triangles + 3 * t;
        if (v[0] < 0) continue;
        double n[3];
        triangle_normal(s->position + 3 * (size_t)v[0], s->position + 3 * (size_t)v[1], s->position + 3 * (size_t)v[2],
                        n, NULL);
        double length = sqrt(dot3(n, n));
        if (!(length > 0.0)) continue;
        double unit[3] = {n[0] / length, n[1] / length, n[2] / length};
        quadric plane = {{0}, {0}, 0, 0};
        quadric_add_plane_at(s, &plane, s->position + 3 * (size_t)v[0], unit, 0.5 * length);
        for (int k = 0; k < 3; ++k) s->quadrics[v[k]] = quadric_sum(&s->quadrics[v[k]], &plane);
    }
}

// adds to `vertex` the plane through the boundary half-edge from -> to that is perpendicular to the
// triangle of `corner`
static void add_boundary_plane(simplifier* s, int32_t vertex, int32_t corner, int32_t from, int32_t to) {
    const int32_t* t = s->triangles + (corner - corner % 3);
    double n[3], edge[3], m[3];
    triangle_normal(s->position + 3 * (size_t)t[0], s->position + 3 * (size_t)t[1], s->position + 3 * (size_t)t[2], n,
                    NULL);
    sub3(s->position + 3 * (size_t)to, s->position + 3 * (size_t)from, edge);
    cross3(edge, n, m);
    double length = sqrt(dot3(m, m));
    if (!(length > 0.0)) return;
    for (int k = 0; k < 3; ++k) m[k] /= length;
    quadric_add_plane_at(s, &s->quadrics[vertex], s->position + 3 * (size_t)from, m,
                         BOUNDARY_WEIGHT * dot3(edge, edge));
}

// classifies every vertex and adds the boundary planes; then queues every edge once: an interior
// edge from the corner of its smaller end whose next vertex is the larger, a boundary edge from the
// corner of its only half-edge
static osc_status classify_and_queue(simplifier* s) {
    for (int32_t v = 0; v < s->vertex_count; ++v) {
        int32_t first, last;
        int kind = fan_kind(s, v, &first, &last);
        if (kind < 0) s->flags[v] |= VERTEX_LOCKED;
        if (kind != 2) continue;
        s->flags[v] |= VERTEX_BOUNDARY;
        add_boundary_plane(s, v, first, v, corner_next_vertex(s, first));
        add_boundary_plane(s, v, last, corner_prev_vertex(s, last), v);
    }
    for (int32_t v = 0; v < s->vertex_count; ++v) {
        if (s->flags[v] & VERTEX_LOCKED) continue;
        int32_t first, last;
        fan_kind(s, v, &first, &last);
        for (int32_t c = s->head[v]; c >= 0; c = s->next[c]) {
            int32_t to = corner_next_vertex(s, c);
            if (v < to || c == first) {
                osc_status status = push_edge(s, v, to);
                if (status) return status;
            }
        }
    }
    return OSC_OK;
}

// allocates the state and fills it from the mesh, welded
static osc_status simplifier_init(simplifier* s, const osc_mesh* mesh, double weld_tolerance) {
    int32_t n = osc_mesh_vertex_count(mesh), m = osc_mesh_triangle_count(mesh);
    size_t vertices = (size_t)n + 1, corners = 3 * (size_t)m + 1;
    s->vertex_count = n;
    s->triangle_count = m;
    s->position = osc_calloc(vertices, 3 * sizeof(double));
    s->quadrics = osc_calloc(vertices, sizeof(quadric));
    s->flags = osc_calloc(vertices, sizeof(uint8_t));
    s->stamp = osc_calloc(vertices, sizeof(uint32_t));
    s->mark = osc_calloc(vertices, sizeof(uint64_t));
    s->member = osc_calloc(vertices, sizeof(uint64_t));
    s->set = osc_calloc(vertices, sizeof(int32_t));
    s->head = osc_calloc(vertices, sizeof(int32_t));
    s->triangles = osc_calloc(corners, sizeof(int32_t));
    s->next = osc_calloc(corners, sizeof(int32_t));
    s->prev = osc_calloc(corners, sizeof(int32_t));
    s->heap_capacity = (size_t)m + 64; // grows once for the 3m / 2 edges of a closed mesh
    s->heap = osc_calloc(s->heap_capacity, sizeof(collapse_entry));
    if (!s->position || !s->quadrics || !s->flags || !s->stamp || !s->mark || !s->member || !s->set || !s->head ||
        !s->triangles || !s->next || !s->prev || !s->heap)
        return OSC_ERR_NO_MEMORY;
    if (n > 0) memcpy(s->position, osc_mesh_vertices(mesh), (size_t)n * 3 * sizeof(double));
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int32_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            double x = s->position[3 * (size_t)v + (size_t)k];
            lo[k] = v == 0 ? x : fmin(lo[k], x);
            hi[k] = v == 0 ? x : fmax(hi[k], x);
        }
    for (int k = 0; k < 3; ++k) s->centre[k] = 0.5 * (lo[k] + hi[k]);
    if (mesh_weld_points(s->position, (size_t)n, weld_tolerance, s->set) < 0) return OSC_ERR_NO_MEMORY;
    const int32_t* input = osc_mesh_triangles(mesh);
    for (int32_t v = 0; v < n; ++v) s->head[v] = -1;
    for (int32_t t = m; t-- > 0;) { // linked in reverse, so that each list runs in triangle order
        int32_t* v = s->triangles + 3 * t;
        for (int k = 0; k < 3; ++k) v[k] = s->set[input[3 * t + k]];
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
            v[0] = v[1] = v[2] = -1;
            continue;
        }
        for (int k = 0; k < 3; ++k) corner_link(s, 3 * t + k, v[k]);
        ++s->alive_triangles;
    }
    accumulate_quadrics(s);
    return classify_and_queue(s);
}

static void simplifier_free(simplifier* s) {
    osc_free(s->position);
    osc_free(s->quadrics);
    osc_free(s->flags);
    osc_free(s->stamp);
    osc_free(s->mark);
    osc_free(s->member);
    osc_free(s->set);
    osc_free(s->head);
    osc_free(s->triangles);
    osc_free(s->next);
    osc_free(s->prev);
    osc_free(s->heap);
}

// the used vertices in input order and the surviving triangles in input order, as a new mesh
static osc_status build_output(simplifier* s, osc_mesh** out) {
    int32_t* remap = s->set;
    for (int32_t v = 0; v < s->vertex_count; ++v) remap[v] = -1;
    for (int32_t i = 0; i < 3 * s->triangle_count; ++i)
        if (s->triangles[i] >= 0) remap[s->triangles[i]] = 0;
    int32_t used = 0;
    for (int32_t v = 0; v < s->vertex_count; ++v)
        if (remap[v] == 0) remap[v] = used++;
    double* vertices = osc_calloc((size_t)used, 3 * sizeof(double));
    int32_t* triangles = osc_calloc((size_t)s->alive_triangles, 3 * sizeof(int32_t));
    if (!vertices || !triangles) {
        osc_free(vertices);
        osc_free(triangles);
        return OSC_ERR_NO_MEMORY;
    }
    for (int32_t v = 0; v < s->vertex_count; ++v)
        if (remap[v] >= 0) memcpy(vertices + 3 * (size_t)remap[v], s->position + 3 * (size_t)v, 3 * sizeof(double));
    size_t written = 0;
    for (int32_t i = 0; i < 3 * s->triangle_count; ++i)
        if (s->triangles[i] >= 0) triangles[written++] = remap[s->triangles[i]];
    return osc_mesh_create_owned(vertices, used, triangles, s->alive_triangles, NULL, NULL, out);
}

// ---------------------------------------------------------------------------------------------
// public API

osc_mesh_simplify_settings osc_mesh_simplify_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_mesh_simplify_settings){
        .target_triangles = 1000, .max_error = INFINITY, .min_angle = 10.0, .weld_tolerance = 0.0};
}

static osc_status check_settings(const osc_mesh_simplify_settings* settings) {
    const char* function = "osc_mesh_simplify";
    if (settings->target_triangles < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->target_triangles is negative (%d)", function,
                        (int)settings->target_triangles);
    if (!(settings->max_error >= 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->max_error must be >= 0 (got %g)", function,
                        settings->max_error);
    if (!(settings->min_angle >= 0.0 && settings->min_angle < 60.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->min_angle must be in [0, 60) degrees (got %g)",
                        function, settings->min_angle);
    if (!(settings->weld_tolerance >= 0.0 && isfinite(settings->weld_tolerance)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->weld_tolerance must be finite and >= 0 (got %g)",
                        function, settings->weld_tolerance);
    return OSC_OK;
}

osc_status osc_mesh_simplify(const osc_mesh* mesh, const osc_mesh_simplify_settings* settings, osc_mesh** out,
                             double* achieved_error) {
    if (achieved_error) *achieved_error = 0.0;
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_simplify: out is NULL");
    *out = NULL;
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_simplify: mesh is NULL");
    osc_mesh_simplify_settings defaults = osc_mesh_simplify_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_settings(settings);
    if (status) return status;

    simplifier s;
    memset(&s, 0, sizeof s);
    s.max_error = settings->max_error;
    s.min_sin = sin(settings->min_angle * SIMPLIFY_PI / 180.0);
    status = simplifier_init(&s, mesh, settings->weld_tolerance);
    if (!status) status = run_collapses(&s, settings->target_triangles);
    if (!status) status = build_output(&s, out);
    if (!status && achieved_error) *achieved_error = s.achieved;
    simplifier_free(&s);
    if (status == OSC_ERR_NO_MEMORY) return osc_fail_in("osc_mesh_simplify", status);
    return status;
}
