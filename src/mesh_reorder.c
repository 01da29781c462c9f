// mesh_reorder.c: orders along space-filling curves (Beker et al. 2026 §IV-C.3). Points are binned on a
// 2^21 grid per axis over the cube that encloses their bounding box (cells are cubes, so an
// elongated mesh is not stretched), keyed by Morton (bit interleaving) or 3D Hilbert index, and
// sorted stably by key with an LSD radix sort. osc_mesh_reorder sorts the vertices, re-indexes the
// triangles (kept in their order) and sorts the unique edges by their midpoints.

#include "mesh_internal.h"

#include <string.h>

enum { CURVE_BITS = 21 };

// ---------------------------------------------------------------------------------------------
// keys

// spreads the low 21 bits of v to every third bit (bit i -> bit 3 i)
static uint64_t spread_bits(uint32_t v) {
    uint64_t x = v & 0x1fffffu;
    x = (x | x << 32) & UINT64_C(0x1f00000000ffff);
    x = (x | x << 16) & UINT64_C(0x1f0000ff0000ff);
    x = (x | x << 8) & UINT64_C(0x100f00f00f00f00f);
    x = (x | x << 4) & UINT64_C(0x10c30c30c30c30c3);
    x = (x | x << 2) & UINT64_C(0x1249249249249249);
    return x;
}

// Morton key: bit 3 i + a is bit i of axis a (x the lowest)
static uint64_t morton_key(const uint32_t cell[3]) {
    return spread_bits(cell[0]) | spread_bits(cell[1]) << 1 | spread_bits(cell[2]) << 2;
}

// Hilbert key of a cell of a 2^bits grid, after J. Skilling, "Programming the Hilbert curve", AIP
// Conf. Proc. 707 (2004): turn the axes into the curve's "transposed" index (undo the rotations
// and reflections of each level from the coarsest down, then Gray-decode), then interleave its
// bits, the most significant level first and x first within a level.
static uint64_t hilbert_key(const uint32_t cell[3], int bits) {
    uint32_t x[3] = {cell[0], cell[1], cell[2]};
    uint32_t top = 1u << (bits - 1);
    for (uint32_t q = top; q > 1; q >>= 1) {
        uint32_t p = q - 1;
        for (int i = 0; i < 3; ++i) {
            // bit q of axis i set: reflect the low bits of axis 0; clear: exchange the low bits of
            // axes 0 and i (branch-free: the bit is random, a branch would mispredict)
            uint32_t set = 0u - (uint32_t)((x[i] & q) != 0);
            uint32_t t = (x[0] ^ x[i]) & p & ~set;
            x[0] ^= (p & set) | t;
            x[i] ^= t;
        }
    }
    for (int i = 1; i < 3; ++i) x[i] ^= x[i - 1];
    uint32_t t = 0;
    for (uint32_t q = top; q > 1; q >>= 1)
        if (x[2] & q) t ^= q - 1;
    for (int i = 0; i < 3; ++i) x[i] ^= t;
    // interleave, x[0] the most significant of each level's three bits
    return spread_bits(x[0]) << 2 | spread_bits(x[1]) << 1 | spread_bits(x[2]);
}

// the cell of each point on the 2^21 grid over the cube around the bounding box, keyed
static void compute_keys(const double* points, size_t count, osc_curve curve, uint64_t* keys) {
    double lo[3], extent = 0.0;
    for (int axis = 0; axis < 3; ++axis) {
        double low = points[axis], high = points[axis];
        for (size_t i = 1; i < count; ++i) {
            low = fmin(low, points[3 * i + (size_t)axis]);
            high = fmax(high, points[3 * i + (size_t)axis]);
        }
        lo[axis] = low;
        extent = fmax(extent, 0.5 * high - 0.5 * low); // halves: no overflow near DBL_MAX
    }
    const double cells = (double)(1u << CURVE_BITS);
    for (size_t i = 0; i < count; ++i) {
        uint32_t cell[3];
        for (int axis = 0; axis < 3; ++axis) {
            double offset = 0.5 * points[3 * i + (size_t)axis] - 0.5 * lo[axis];
            double scaled = extent > 0.0 ? floor(offset / extent * cells) : 0.0;
            cell[axis] = scaled >= cells - 1.0 ? (1u << CURVE_BITS) - 1u : (uint32_t)scaled;
        }
        keys[i] = curve == OSC_CURVE_MORTON ? morton_key(cell) : hilbert_key(cell, CURVE_BITS);
    }
}

// stable LSD radix sort of `order` by keys[order[i]], 11 bits (6 passes over 63 bits)
static void radix_sort(const uint64_t* keys, size_t count, int32_t* order, int32_t* scratch, size_t* histogram) {
    enum { DIGIT = 11, BUCKETS = 1 << DIGIT };
    int32_t *from = order, *to = scratch;
    for (int shift = 0; shift < 63; shift += DIGIT) {
        memset(histogram, 0, (BUCKETS + 1) * sizeof *histogram);
        for (size_t i = 0; i < count; ++i) ++histogram[((keys[from[i]] >> shift) & (BUCKETS - 1)) + 1];
        for (size_t b = 0; b < BUCKETS; ++b) histogram[b + 1] += histogram[b];
        for (size_t i = 0; i < count; ++i) to[histogram[(keys[from[i]] >> shift) & (BUCKETS - 1)]++] = from[i];
        int32_t* swap = from;
        from = to;
        to = swap;
    }
    if (from != order) memcpy(order, from, count * sizeof *order);
}

// ---------------------------------------------------------------------------------------------
// public ordering

osc_status osc_curve_order(const double* points, int32_t count, osc_curve curve, int32_t* order) {
    if (count < 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_curve_order: count is negative (%d)", (int)count);
    if (count > 0 && (!points || !order))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_curve_order: %s is NULL with count %d",
                        points ? "order" : "points", (int)count);
    if (curve != OSC_CURVE_MORTON && curve != OSC_CURVE_HILBERT)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_curve_order: curve %d is not a curve", (int)curve);
    for (int32_t i = 0; i < count; ++i) {
        const double* p = points + 3 * (size_t)i;
        if (!osc_is_finite3(p[0], p[1], p[2]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_curve_order: points[%d] = (%g, %g, %g) is not finite",
                            (int)i, p[0], p[1], p[2]);
    }
    if (count == 0) return OSC_OK;
    uint64_t* keys = osc_calloc((size_t)count, sizeof *keys);
    int32_t* scratch = keys ? osc_calloc((size_t)count, sizeof *scratch) : NULL;
    size_t* histogram = scratch ? osc_calloc((1 << 11) + 1, sizeof *histogram) : NULL;
    if (!histogram) {
        osc_free(keys);
        osc_free(scratch);
        return osc_fail_in("osc_curve_order", OSC_ERR_NO_MEMORY);
    }
    compute_keys(points, (size_t)count, curve, keys);
    for (int32_t i = 0; i < count; ++i) order[i] = i;
    radix_sort(keys, (size_t)count, order, scratch, histogram);
    osc_free(keys);
    osc_free(scratch);
    osc_free(histogram);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// mesh reordering

// the edge order of the reordered mesh: its lexicographic edges sorted along the curve by midpoint
static osc_status order_edges_by_midpoint(const osc_mesh* mesh, int32_t* order, void* context) {
    const osc_curve* curve = context;
    int32_t edge_count = osc_mesh_edge_count(mesh);
    const int32_t* edges = osc_mesh_edges(mesh);
    const double* vertices = osc_mesh_vertices(mesh);
    double* midpoints = osc_calloc((size_t)edge_count, 3 * sizeof(double));
    if (!midpoints) return OSC_ERR_NO_MEMORY;
    for (int32_t e = 0; e < edge_count; ++e) {
        const double* a = vertices + 3 * (size_t)edges[2 * e];
        const double* b = vertices + 3 * (size_t)edges[2 * e + 1];
        for (int axis = 0; axis < 3; ++axis) midpoints[3 * (size_t)e + (size_t)axis] = 0.5 * a[axis] + 0.5 * b[axis];
    }
    osc_status status = osc_curve_order(midpoints, edge_count, *curve, order);
    osc_free(midpoints);
    return status;
}

// new edge -> old edge: an edge's first triangle keeps its index and its corner order, so the
// corner that holds the edge in the new mesh holds it in the old one too
static void map_edges_back(const osc_mesh* old_mesh, const osc_mesh* new_mesh, int32_t* edge_order) {
    const int32_t* old_corners = osc_mesh_triangle_edges(old_mesh);
    const int32_t* new_corners = osc_mesh_triangle_edges(new_mesh);
    const int32_t* edge_triangles = osc_mesh_edge_triangles(new_mesh);
    for (int32_t e = 0; e < osc_mesh_edge_count(new_mesh); ++e) {
        size_t t = (size_t)edge_triangles[2 * e];
        int k = new_corners[3 * t] == e ? 0 : new_corners[3 * t + 1] == e ? 1 : 2;
        edge_order[e] = old_corners[3 * t + (size_t)k];
    }
}

osc_status osc_mesh_reorder(const osc_mesh* mesh, osc_curve curve, osc_mesh** out, int32_t* vertex_order,
                            int32_t* edge_order) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_reorder: out is NULL");
    *out = NULL;
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_reorder: mesh is NULL");
    if (curve != OSC_CURVE_MORTON && curve != OSC_CURVE_HILBERT)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_reorder: curve %d is not a curve", (int)curve);
    size_t vertex_count = (size_t)osc_mesh_vertex_count(mesh);
    size_t triangle_count = (size_t)osc_mesh_triangle_count(mesh);
    const double* vertices = osc_mesh_vertices(mesh);
    const int32_t* triangles = osc_mesh_triangles(mesh);

    // order [V] (new -> old), inverse [V] (old -> new); the new arrays go to the mesh
    int32_t* order = osc_calloc(2 * vertex_count + 1, sizeof(int32_t));
    double* new_vertices = order ? osc_calloc(vertex_count + 1, 3 * sizeof(double)) : NULL;
    int32_t* new_triangles = new_vertices ? osc_calloc(3 * triangle_count + 1, sizeof(int32_t)) : NULL;
    osc_status status = new_triangles ? OSC_OK : OSC_ERR_NO_MEMORY;
    if (!status) status = osc_curve_order(vertices, (int32_t)vertex_count, curve, order);
    if (status) {
        osc_free(order);
        osc_free(new_vertices);
        osc_free(new_triangles);
        return status == OSC_ERR_NO_MEMORY ? osc_fail_in("osc_mesh_reorder", status) : status;
    }
    int32_t* inverse = order + vertex_count;
    for (size_t i = 0; i < vertex_count; ++i) {
        inverse[order[i]] = (int32_t)i;
        memcpy(new_vertices + 3 * i, vertices + 3 * (size_t)order[i], 3 * sizeof(double));
    }
    for (size_t i = 0; i < 3 * triangle_count; ++i) new_triangles[i] = inverse[triangles[i]];

    osc_mesh* reordered = NULL;
    status = osc_mesh_create_owned(new_vertices, (int32_t)vertex_count, new_triangles, (int32_t)triangle_count,
                                   order_edges_by_midpoint, &curve, &reordered);
    if (!status) {
        if (vertex_order) memcpy(vertex_order, order, vertex_count * sizeof *order);
        if (edge_order) map_edges_back(mesh, reordered, edge_order);
        *out = reordered;
    }
    osc_free(order);
    return status == OSC_ERR_NO_MEMORY ? osc_fail_in("osc_mesh_reorder", status) : status;
}
