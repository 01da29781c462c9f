// mesh_orient.c: orientation and closedness of a mesh (osc_mesh_get_orientation, osc_mesh_orient;
// the importers call them too, docs/mesh.md "Orientation").
//
// 1. Patches: the triangles are split into patches, triangles joined across manifold edges (edges
//    with exactly two triangles). A breadth-first walk over each patch gives every triangle the
//    winding that makes the shared edges run opposite ways in its two triangles (the condition
//    of a consistently oriented surface); a patch where the walk meets a contradiction is not
//    orientable (a Moebius strip).
// 2. Closedness: a patch is closed when its oriented boundary is empty: no edge with one triangle,
//    and on every non-manifold edge its own triangles cancel (two cubes sharing an edge are two
//    closed patches; a fin on a cube's edge is an open one). A closed patch encloses the volume of
//    the divergence theorem, whatever the reference point.
// 3. The side of each patch: a closed patch whose volume is not zero within its rounding, or an
//    open one whose volume about its own centroid is at least VOLUME_SHARE of the largest its area
//    allows (a nearly closed scan with holes), bounds a volume. One that lies inside no other
//    faces outward (its volume made positive). One that lies inside another (all its extreme
//    vertices have |winding number| > 1/2 of the other, whose box holds its box) may be a cavity
//    (facing inward) or a solid embedded in a solid (facing outward): it keeps the winding of most
//    of its area as given, turned over with its outermost container when that container was
//    inside out (a whole nest written inverted). Every other orientable patch (flat, open sheets)
//    keeps the winding of most of its area as given; a patch that is not orientable keeps every
//    winding as given. Nesting tests stop after NEST_WORK solid angles (patches not reached count
//    as nested in nothing).
// Nothing here is a query: the work arrays are allocated, and released before returning.

#include "mesh_internal.h"

#include <string.h>

// an open patch's volume about its centroid must reach this share of the largest volume its area
// can enclose (a sphere's, A^(3/2) / (6 sqrt(pi))) for its side to be decided by that volume
#define VOLUME_SHARE 0.01
// the most solid angles the nesting tests evaluate (about a second)
#define NEST_WORK 2e8

typedef struct patch_info {
    double area;         // of its triangles
    double flipped_area; // of those the walk turned against their given winding
    double volume;       // with the walk's windings, about `centre` (closed: any point)
    double volume_bound; // sum of |terms|: the volume's rounding is far below 1e-12 of it
    osc_vec3 centre;     // area-weighted centroid of the triangles
    double lo[3], hi[3]; // bounds of the corners
    int32_t extreme[6];  // vertices at the bounds: lowest x, highest x, lowest y, ...
    bool open, non_orientable, by_volume;
    bool turned;   // its final windings reverse those of most of its area as given
    int32_t depth; // how many volume-decided patches hold it
    int32_t root;  // the largest of them (by |volume|), -1 for none
} patch_info;

typedef struct orient_work {
    const osc_mesh* mesh;
    const double* vertices;
    const int32_t* triangles;
    int32_t triangle_count, edge_count, patch_count;
    int32_t* edge_uses;  // [E]: triangles on each edge
    int32_t* patch_of;   // [T]
    int32_t* order;      // [T]: the walk's queue, then the triangles sorted by patch
    int32_t* first;      // [P + 1]: the start of each patch in order
    uint8_t* flip;       // [T]: 1 where the triangle's winding is reversed
    uint8_t* conflict;   // [T, indexed by patch]: the walk met a contradiction in the patch
    patch_info* patches; // [P], allocated once P is known
} orient_work;

static osc_vec3 vertex_at(const orient_work* w, int32_t v) {
    const double* x = w->vertices + 3 * (size_t)v;
    return osc_v3(x[0], x[1], x[2]);
}

// corner k of triangle t in its current winding (a flipped triangle runs a, c, b)
static int32_t corner(const orient_work* w, int32_t t, int k) {
    static const int reversed[3] = {0, 2, 1};
    return w->triangles[3 * (size_t)t + (size_t)(w->flip[t] ? reversed[k] : k)];
}

// true when triangle t, in its current winding, runs along edge (a, b) from a to b
static bool runs_from(const orient_work* w, int32_t t, int32_t a, int32_t b) {
    for (int k = 0; k < 3; ++k)
        if (corner(w, t, k) == a && corner(w, t, (k + 1) % 3) == b) return true;
    return false;
}

// ---------------------------------------------------------------------------------------------
// 1. patches by a breadth-first walk across manifold edges

static void walk_patches(orient_work* w) {
    const int32_t* triangle_edges = osc_mesh_triangle_edges(w->mesh);
    const int32_t* edge_triangles = osc_mesh_edge_triangles(w->mesh);
    for (int32_t t = 0; t < w->triangle_count; ++t) w->patch_of[t] = -1;
    int32_t* queue = w->order;
    int32_t tail = 0;
    for (int32_t seed = 0; seed < w->triangle_count; ++seed) {
        if (w->patch_of[seed] >= 0) continue;
        int32_t patch = w->patch_count++, head = tail;
        w->patch_of[seed] = patch;
        w->flip[seed] = 0;
        queue[tail++] = seed;
        while (head < tail) {
            int32_t t = queue[head++];
            for (int k = 0; k < 3; ++k) {
                int32_t e = triangle_edges[3 * (size_t)t + (size_t)k];
                if (w->edge_uses[e] != 2) continue;
                int32_t u = edge_triangles[2 * (size_t)e] == t ? edge_triangles[2 * (size_t)e + 1]
                                                               : edge_triangles[2 * (size_t)e];
                // the edge of corners k, k + 1 as given, in t's current direction: a to b
                int32_t a = w->triangles[3 * (size_t)t + (size_t)k],
                        b = w->triangles[3 * (size_t)t + (size_t)(k + 1) % 3];
                if (w->flip[t]) a = b, b = w->triangles[3 * (size_t)t + (size_t)k];
                if (w->patch_of[u] < 0) {
                    w->patch_of[u] = patch;
                    w->flip[u] = 0;
                    if (runs_from(w, u, a, b)) w->flip[u] = 1; // must run from b to a
                    queue[tail++] = u;
                } else if (runs_from(w, u, a, b)) {
                    w->conflict[patch] = 1;
                }
            }
        }
    }
}

// order[] lists the triangles patch by patch (a counting sort), first[p] where patch p starts
static void sort_by_patch(orient_work* w) {
    for (int32_t p = 0; p <= w->patch_count; ++p) w->first[p] = 0;
    for (int32_t t = 0; t < w->triangle_count; ++t) ++w->first[w->patch_of[t] + 1];
    for (int32_t p = 0; p < w->patch_count; ++p) w->first[p + 1] += w->first[p];
    for (int32_t t = 0; t < w->triangle_count; ++t) w->order[w->first[w->patch_of[t]]++] = t;
    for (int32_t p = w->patch_count; p > 0; --p) w->first[p] = w->first[p - 1];
    w->first[0] = 0;
}

// ---------------------------------------------------------------------------------------------
// 2. area, volume, bounds and closedness of each patch

static void measure_patch(orient_work* w, int32_t p) {
    patch_info* info = &w->patches[p];
    osc_vec3 weighted = osc_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < 3; ++k) info->lo[k] = INFINITY, info->hi[k] = -INFINITY;
    for (int32_t i = w->first[p]; i < w->first[p + 1]; ++i) {
        int32_t t = w->order[i];
        osc_vec3 a = vertex_at(w, corner(w, t, 0)), b = vertex_at(w, corner(w, t, 1)),
                 c = vertex_at(w, corner(w, t, 2));
        double area = 0.5 * osc_length(osc_cross(osc_sub(b, a), osc_sub(c, a)));
        info->area += area;
        if (w->flip[t]) info->flipped_area += area;
        weighted = osc_add_scaled(weighted, osc_add(a, osc_add(b, c)), area / 3.0);
        for (int k = 0; k < 3; ++k) {
            int32_t v = w->triangles[3 * (size_t)t + (size_t)k];
            const double* x = w->vertices + 3 * (size_t)v;
            for (int axis = 0; axis < 3; ++axis) {
                if (x[axis] < info->lo[axis]) info->lo[axis] = x[axis], info->extreme[2 * axis] = v;
                if (x[axis] > info->hi[axis]) info->hi[axis] = x[axis], info->extreme[2 * axis + 1] = v;
            }
        }
    }
    // the centroid of the area (of the corners when the area is zero)
    info->centre =
        info->area > 0.0
            ? osc_scale(weighted, 1.0 / info->area)
            : osc_scale(osc_v3(info->lo[0] + info->hi[0], info->lo[1] + info->hi[1], info->lo[2] + info->hi[2]), 0.5);
    for (int32_t i = w->first[p]; i < w->first[p + 1]; ++i) {
        int32_t t = w->order[i];
        osc_vec3 a = osc_sub(vertex_at(w, corner(w, t, 0)), info->centre);
        osc_vec3 b = osc_sub(vertex_at(w, corner(w, t, 1)), info->centre);
        osc_vec3 c = osc_sub(vertex_at(w, corner(w, t, 2)), info->centre);
        double term = osc_dot(a, osc_cross(b, c));
        info->volume += term / 6.0;
        info->volume_bound += osc_length(a) * osc_length(osc_cross(b, c)) / 6.0;
    }
}

// a half-edge on a non-manifold edge: its patch and its direction along the edge
typedef struct edge_side {
    int32_t edge, patch, direction; // +1 from the lower vertex index to the higher, -1 back
} edge_side;

static int compare_sides(const void* x, const void* y) {
    const edge_side *a = x, *b = y;
    if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
    return (a->patch > b->patch) - (a->patch < b->patch);
}

// marks open patches: a boundary edge, or a non-manifold edge where its triangles do not cancel
static osc_status find_open_patches(orient_work* w) {
    const int32_t* triangle_edges = osc_mesh_triangle_edges(w->mesh);
    size_t sides = 0;
    for (int32_t t = 0; t < w->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int32_t uses = w->edge_uses[triangle_edges[3 * (size_t)t + (size_t)k]];
            if (uses == 1) w->patches[w->patch_of[t]].open = true;
            sides += uses > 2;
        }
    if (sides == 0) return OSC_OK;
    edge_side* side = osc_calloc(sides, sizeof *side);
    if (!side) return OSC_ERR_NO_MEMORY;
    size_t n = 0;
    for (int32_t t = 0; t < w->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            int32_t e = triangle_edges[3 * (size_t)t + (size_t)k];
            if (w->edge_uses[e] <= 2) continue;
            int32_t a = w->triangles[3 * (size_t)t + (size_t)k], b = w->triangles[3 * (size_t)t + (size_t)(k + 1) % 3];
            int32_t direction = (a < b) != (w->flip[t] != 0) ? 1 : -1;
            side[n++] = (edge_side){e, w->patch_of[t], direction};
        }
    osc_sort(side, n, sizeof *side, compare_sides);
    for (size_t i = 0; i < n;) {
        size_t end = i;
        int32_t sum = 0;
        while (end < n && side[end].edge == side[i].edge && side[end].patch == side[i].patch)
            sum += side[end++].direction;
        if (sum != 0) w->patches[side[i].patch].open = true;
        i = end;
    }
    osc_free(side);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// 3. which way each patch faces

// true when the patch's volume decides its side (see the top of the file)
static bool decided_by_volume(const patch_info* info) {
    if (info->non_orientable) return false;
    if (!info->open) return fabs(info->volume) > 1e-12 * info->volume_bound;
    double largest = pow(info->area, 1.5) / (6.0 * sqrt(3.14159265358979323846));
    return fabs(info->volume) >= VOLUME_SHARE * largest && fabs(info->volume) > 1e-12 * info->volume_bound;
}

// the winding number of patch q (in its walk's windings) at point x, summed exactly
static double patch_winding(const orient_work* w, int32_t q, osc_vec3 x) {
    double omega = 0.0;
    for (int32_t i = w->first[q]; i < w->first[q + 1]; ++i) {
        int32_t t = w->order[i];
        omega += mesh_solid_angle(vertex_at(w, corner(w, t, 0)), vertex_at(w, corner(w, t, 1)),
                                  vertex_at(w, corner(w, t, 2)), x);
    }
    return omega / (4.0 * 3.14159265358979323846);
}

// true when every extreme vertex of patch p lies inside patch q (|winding number| > 1/2); *work
// counts the solid angles evaluated
static bool patch_inside(const orient_work* w, int32_t p, int32_t q, double* work) {
    const patch_info *inner = &w->patches[p], *outer = &w->patches[q];
    for (int axis = 0; axis < 3; ++axis)
        if (inner->lo[axis] < outer->lo[axis] || inner->hi[axis] > outer->hi[axis]) return false;
    for (int k = 0; k < 6; ++k) {
        *work += w->first[q + 1] - w->first[q];
        if (!(fabs(patch_winding(w, q, vertex_at(w, inner->extreme[k]))) > 0.5)) return false;
    }
    return true;
}

// the nesting depth of every volume-decided patch among the others, and its outermost container
static void nest_patches(orient_work* w) {
    double work = 0.0;
    for (int32_t p = 0; p < w->patch_count; ++p) {
        patch_info* info = &w->patches[p];
        info->root = -1;
        if (!info->by_volume) continue;
        for (int32_t q = 0; q < w->patch_count && work < NEST_WORK; ++q) {
            if (q == p || !w->patches[q].by_volume || !patch_inside(w, p, q, &work)) continue;
            ++info->depth;
            if (info->root < 0 || fabs(w->patches[q].volume) > fabs(w->patches[info->root].volume)) info->root = q;
        }
    }
}

// reverses the walk's windings throughout patch p
static void turn_patch(orient_work* w, int32_t p) {
    patch_info* info = &w->patches[p];
    for (int32_t i = w->first[p]; i < w->first[p + 1]; ++i) w->flip[w->order[i]] ^= 1;
    info->volume = -info->volume;
    info->flipped_area = info->area - info->flipped_area;
}

// whether patch p turns: outward when it bounds a volume inside nothing; otherwise the winding of
// most of its area as given, turned with its outermost container when that one was inside out
static bool should_turn(const orient_work* w, int32_t p) {
    const patch_info* info = &w->patches[p];
    bool majority = info->flipped_area > 0.5 * info->area;
    if (info->by_volume && info->depth == 0) return info->volume < 0.0;
    if (info->by_volume && info->root >= 0) return majority != w->patches[info->root].turned;
    return majority;
}

// the final windings, and the report's counts; containers are decided before what they hold
static void choose_sides(orient_work* w, osc_mesh_orientation* out) {
    int32_t deepest = 0;
    for (int32_t p = 0; p < w->patch_count; ++p) {
        patch_info* info = &w->patches[p];
        if (info->non_orientable) { // no windings are consistent: keep those given
            for (int32_t i = w->first[p]; i < w->first[p + 1]; ++i) w->flip[w->order[i]] = 0;
            info->flipped_area = 0.0;
        }
        deepest = info->depth > deepest ? info->depth : deepest;
    }
    for (int32_t depth = 0; depth <= deepest; ++depth)
        for (int32_t p = 0; p < w->patch_count; ++p) {
            patch_info* info = &w->patches[p];
            if (info->depth != depth) continue;
            bool majority = info->flipped_area > 0.5 * info->area;
            bool turn = should_turn(w, p);
            if (turn) turn_patch(w, p);
            info->turned = turn != majority;
            out->closed_patches += !info->open && !info->non_orientable;
            out->non_orientable_patches += info->non_orientable;
            out->flat_patches += !info->non_orientable && !info->by_volume;
            out->inverted_patches += info->flipped_area > 0.5 * info->area;
        }
    for (int32_t t = 0; t < w->triangle_count; ++t) out->triangles_flipped += w->flip[t];
    out->sign_reliable = w->patch_count > 0 && out->closed_patches == w->patch_count && out->flat_patches == 0;
}

// ---------------------------------------------------------------------------------------------
// the analysis

static void release_work(orient_work* w) {
    osc_free(w->edge_uses);
    osc_free(w->patch_of);
    osc_free(w->order);
    osc_free(w->first);
    osc_free(w->flip);
    osc_free(w->conflict);
    osc_free(w->patches);
}

// the edge counts of the report, and the triangles on each edge
static void count_edges(orient_work* w, osc_mesh_orientation* out) {
    const int32_t* triangle_edges = osc_mesh_triangle_edges(w->mesh);
    for (size_t h = 0; h < 3 * (size_t)w->triangle_count; ++h) ++w->edge_uses[triangle_edges[h]];
    osc_mesh_topology topology;
    osc_mesh_get_topology(w->mesh, &topology);
    out->boundary_edges = topology.boundary_edges;
    out->non_manifold_edges = topology.non_manifold_edges;
    out->inconsistent_edges = topology.inconsistent_edges;
}

// analyses `mesh` into `out`; w->flip holds the windings osc_mesh_orient applies (w is released
// by the caller)
static osc_status analyse(const osc_mesh* mesh, orient_work* w, osc_mesh_orientation* out) {
    memset(out, 0, sizeof *out);
    w->mesh = mesh;
    w->vertices = osc_mesh_vertices(mesh);
    w->triangles = osc_mesh_triangles(mesh);
    w->triangle_count = osc_mesh_triangle_count(mesh);
    w->edge_count = osc_mesh_edge_count(mesh);
    size_t t = (size_t)w->triangle_count;
    w->edge_uses = osc_calloc((size_t)w->edge_count + 1, sizeof(int32_t));
    w->patch_of = osc_calloc(t + 1, sizeof(int32_t));
    w->order = osc_calloc(t + 1, sizeof(int32_t));
    w->first = osc_calloc(t + 2, sizeof(int32_t));
    w->flip = osc_calloc(t + 1, 1);
    w->conflict = osc_calloc(t + 1, 1);
    if (!w->edge_uses || !w->patch_of || !w->order || !w->first || !w->flip || !w->conflict) return OSC_ERR_NO_MEMORY;
    count_edges(w, out);
    walk_patches(w);
    w->patches = osc_calloc((size_t)w->patch_count + 1, sizeof(patch_info));
    if (!w->patches) return OSC_ERR_NO_MEMORY;
    for (int32_t p = 0; p < w->patch_count; ++p) w->patches[p].non_orientable = w->conflict[p] != 0;
    sort_by_patch(w);
    for (int32_t p = 0; p < w->patch_count; ++p) measure_patch(w, p);
    osc_status status = find_open_patches(w);
    if (status) return status;
    for (int32_t p = 0; p < w->patch_count; ++p) w->patches[p].by_volume = decided_by_volume(&w->patches[p]);
    nest_patches(w);
    out->patches = w->patch_count;
    choose_sides(w, out);
    for (int32_t p = 0; p < w->patch_count; ++p) out->volume += w->patches[p].volume;
    return OSC_OK;
}

osc_status mesh_orientation_of(const osc_mesh* mesh, osc_mesh_orientation* out) {
    orient_work w;
    memset(&w, 0, sizeof w);
    osc_status status = analyse(mesh, &w, out);
    release_work(&w);
    if (status) memset(out, 0, sizeof *out);
    return status;
}

osc_status osc_mesh_get_orientation(const osc_mesh* mesh, osc_mesh_orientation* out) {
    static const char function[] = "osc_mesh_get_orientation";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    memset(out, 0, sizeof *out);
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: mesh is NULL", function);
    osc_status status = mesh_orientation_of(mesh, out);
    return status ? osc_fail_in(function, status) : OSC_OK;
}

osc_status mesh_orient_internal(const osc_mesh* mesh, osc_mesh** out, osc_mesh_orientation* report) {
    orient_work w;
    memset(&w, 0, sizeof w);
    osc_mesh_orientation local;
    osc_status status = analyse(mesh, &w, &local);
    size_t vertex_count = (size_t)osc_mesh_vertex_count(mesh), t = (size_t)w.triangle_count;
    double* vertices = status ? NULL : osc_calloc(vertex_count + 1, 3 * sizeof(double));
    int32_t* triangles = vertices ? osc_calloc(t + 1, 3 * sizeof(int32_t)) : NULL;
    if (!status && !triangles) status = OSC_ERR_NO_MEMORY;
    if (!status) {
        if (vertex_count) memcpy(vertices, w.vertices, vertex_count * 3 * sizeof(double));
        for (int32_t i = 0; i < w.triangle_count; ++i)
            for (int k = 0; k < 3; ++k) triangles[3 * (size_t)i + (size_t)k] = corner(&w, i, k);
        status = osc_mesh_create_owned(vertices, (int32_t)vertex_count, triangles, w.triangle_count, NULL, NULL, out);
        vertices = NULL; // owned by the mesh now, or released
        triangles = NULL;
    }
    osc_free(vertices);
    osc_free(triangles);
    release_work(&w);
    if (!status && report) *report = local;
    return status;
}

osc_status osc_mesh_orient(const osc_mesh* mesh, osc_mesh** out, osc_mesh_orientation* report) {
    static const char function[] = "osc_mesh_orient";
    if (report) memset(report, 0, sizeof *report);
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: mesh is NULL", function);
    osc_status status = mesh_orient_internal(mesh, out, report);
    return status ? osc_fail_in(function, status) : OSC_OK;
}
