// isosurface.c: marching cubes without a triangle table (Beker et al. 2026 §IV-A; docs/isosurface.md).
//
// The grid is swept slab by slab along z with two layers of corner values in memory. Each grid edge
// whose corners lie on different sides of the level gets one vertex (linear interpolation),
// shared by every cell around the edge. A cell's surface is built from its six faces: each face
// gives 0, 1 or 2 oriented segments between its crossings (the asymptotic decider pairs the
// crossings of a face with 4), the segments chain into closed loops through the cell's crossings,
// and each loop is triangulated by a small dynamic program.
//
// Cell conventions: corner c (0..7) sits at offset (c & 1, (c >> 1) & 1, (c >> 2) & 1). Edge
// 4 * axis + k runs along `axis` from the corner with that bit clear; k packs the two other bits,
// the lower axis first. Face 2 * axis + side holds the corners whose `axis` bit equals `side`.

#include "osculate/isosurface.h"

#include "array_internal.h"
#include "base_internal.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#define ISO_T_MIN 1e-6                    // crossings stay this fraction of an edge from corners
#define ISO_MAX_AXIS_CORNERS 1048576.0    // 2^20 corners per axis
#define ISO_MAX_SLAB_CORNERS 2147483648.0 // 2^31 corners per z-layer

// cell topology, built once per extraction by build_tables
typedef struct iso_tables {
    int8_t face_corners[6][4]; // counter-clockwise seen from outside the cell
    int8_t face_edges[6][4];   // face_edges[f][k] joins face_corners[f][k] and [f][(k + 1) % 4]
    bool share_face[12][12];   // two distinct edges on a common face
} iso_tables;

// the sampling grid: corner (i, j, k) is at origin + (i, j, k) * cell
typedef struct iso_grid {
    double origin[3];
    double cell;
    int64_t cells[3];   // cells per axis
    int64_t corners[3]; // cells + 1
} iso_grid;

// everything one extraction allocates; released by work_release
typedef struct iso_work {
    double* values[2];   // phi - iso_value on the bottom and top layers, [ny + 1][nx + 1]
    double* points;      // sample points of one layer, [ny + 1][nx + 1][3]
    int32_t* x_edges[2]; // vertex on each x-edge of the two layers, [ny + 1][nx], -1 when none
    int32_t* y_edges[2]; // vertex on each y-edge of the two layers, [ny][nx + 1]
    int32_t* z_edges;    // vertex on each z-edge between the layers, [ny + 1][nx + 1]
    double* vertices;    // output vertices, [vertex_count][3]
    int32_t* triangles;  // output triangles, [triangle_count][3]
    size_t vertex_count, vertex_capacity;
    size_t triangle_count, triangle_capacity;
} iso_work;

// ---------------------------------------------------------------------------------------------
// settings

// lo > hi (unset region), 64 cells, level 0, default threads
osc_isosurface_settings osc_isosurface_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_isosurface_settings){.lo = {INFINITY, INFINITY, INFINITY},
                                     .hi = {-INFINITY, -INFINITY, -INFINITY},
                                     .padding = 0.0,
                                     .resolution = 64,
                                     .iso_value = 0.0,
                                     .threads = 0};
}

// ---------------------------------------------------------------------------------------------
// cell topology tables

// the edge joining two corners that differ in one bit
static int8_t edge_between(int c0, int c1) {
    int axis = (c0 ^ c1) == 1 ? 0 : ((c0 ^ c1) == 2 ? 1 : 2);
    int low = c0 & c1;
    int other_bits = axis == 0 ? low >> 1 : (axis == 1 ? (low & 1) | ((low >> 2) << 1) : low & 3);
    return (int8_t)(4 * axis + other_bits);
}

// faces as corner cycles counter-clockwise seen from outside: (u, v, axis) is right-handed, so
// the cycle goes 00, 10, 11, 01 in (u, v) on the +axis side and the reverse on the -axis side
static void build_tables(iso_tables* tables) {
    static const int cycle_plus[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    static const int cycle_minus[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    memset(tables, 0, sizeof *tables);
    for (int axis = 0; axis < 3; ++axis) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            int face = 2 * axis + side;
            const int(*cycle)[2] = side ? cycle_plus : cycle_minus;
            for (int k = 0; k < 4; ++k)
                tables->face_corners[face][k] = (int8_t)((side << axis) | (cycle[k][0] << u) | (cycle[k][1] << v));
            for (int k = 0; k < 4; ++k)
                tables->face_edges[face][k] =
                    edge_between(tables->face_corners[face][k], tables->face_corners[face][(k + 1) % 4]);
            for (int a = 0; a < 4; ++a)
                for (int b = 0; b < 4; ++b)
                    if (a != b) tables->share_face[tables->face_edges[face][a]][tables->face_edges[face][b]] = true;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// one cell: face segments, loops, triangulation

// asymptotic decider: the bilinear interpolant of a face has the saddle value
// (g00 g11 - g10 g01) / (g00 + g11 - g10 - g01). With strict classification (inside g < 0,
// outside g >= 0) the denominator is the sum of two negative and two non-negative terms with
// opposite signs on the two diagonals, never zero, so the saddle is inside (and the inside
// corners connected) exactly when the product of the inside diagonal exceeds the product of the
// outside one. The values are scaled by their largest magnitude first so that the products cannot
// overflow; a tie (saddle value 0, or both products underflowing) counts as outside. Both cells
// sharing the face evaluate the same symmetric expression on the same numbers.
static bool inside_corners_connected(double in0, double in1, double out0, double out1) {
    double g[4] = {in0, in1, out0, out1}, largest = 0.0;
    for (int k = 0; k < 4; ++k) {
        g[k] = fmax(-DBL_MAX, fmin(DBL_MAX, g[k]));
        largest = fmax(largest, fabs(g[k]));
    }
    for (int k = 0; k < 4; ++k) g[k] /= largest;
    return g[0] * g[1] > g[2] * g[3];
}

// bit f is set when face f has 4 crossings and the decider connects its inside corners
static unsigned face_decisions(const iso_tables* tables, const double g[8], unsigned inside) {
    unsigned connect = 0;
    for (int face = 0; face < 6; ++face) {
        const int8_t* c = tables->face_corners[face];
        unsigned in0 = (inside >> c[0]) & 1u, in1 = (inside >> c[1]) & 1u;
        unsigned in2 = (inside >> c[2]) & 1u, in3 = (inside >> c[3]) & 1u;
        if (in0 != in2 || in1 != in3 || in0 == in1) continue; // not a diagonal pattern
        bool connected = in0 ? inside_corners_connected(g[c[0]], g[c[2]], g[c[1]], g[c[3]])
                             : inside_corners_connected(g[c[1]], g[c[3]], g[c[0]], g[c[2]]);
        if (connected) connect |= 1u << face;
    }
    return connect;
}

// oriented face segments as a successor map over the cell's edges: walking a face
// counter-clockwise seen from outside, a segment runs from a crossing that enters the inside to
// one that leaves it, which keeps the outside corners on its left; the cell's loops then come out
// counter-clockwise seen from outside the surface. With 4 crossings an entering crossing pairs
// with the next crossing (inside corners cut off one by one) or the previous one (inside corners
// connected). next[e] = -1 where edge e has no crossing.
static void cell_segments(const iso_tables* tables, unsigned inside, unsigned connect, int8_t next[12]) {
    memset(next, -1, 12);
    for (int face = 0; face < 6; ++face) {
        const int8_t* c = tables->face_corners[face];
        int entering[4], leaving[4], entering_count = 0, leaving_count = 0;
        for (int k = 0; k < 4; ++k) {
            unsigned from = (inside >> c[k]) & 1u, to = (inside >> c[(k + 1) % 4]) & 1u;
            if (!from && to) entering[entering_count++] = k;
            if (from && !to) leaving[leaving_count++] = k;
        }
        if (entering_count == 1) {
            next[tables->face_edges[face][entering[0]]] = tables->face_edges[face][leaving[0]];
        } else if (entering_count == 2) {
            int step = (connect >> face) & 1u ? 3 : 1;
            for (int s = 0; s < 2; ++s)
                next[tables->face_edges[face][entering[s]]] = tables->face_edges[face][(entering[s] + step) % 4];
        }
    }
}

// chains the successor map into loops; loop_edges receives the edges loop after loop and
// loop_sizes their lengths. Returns the number of loops (at most 4).
static int cell_loops(const int8_t next[12], int8_t loop_edges[12], int loop_sizes[4]) {
    bool visited[12] = {false};
    int loop_count = 0, written = 0;
    for (int start = 0; start < 12; ++start) {
        if (next[start] < 0 || visited[start]) continue;
        int size = 0;
        for (int e = start; e >= 0 && !visited[e] && size < 12; e = next[e]) {
            visited[e] = true;
            loop_edges[written + size++] = (int8_t)e;
        }
        loop_sizes[loop_count++] = size;
        written += size;
    }
    return loop_count;
}

// the score of a partial triangulation, compared lexicographically: first the number of diagonals
// joining two crossings of the same face (fewer is better: such a diagonal lies in the face and
// the neighbour cell could choose it too, putting an edge into four triangles), then the quality
// of the worst triangle, then the total quality (larger is better)
typedef struct iso_score {
    int same_face;
    double worst, total;
} iso_score;

// true when a is better than b
static bool score_better(iso_score a, iso_score b) {
    if (a.same_face != b.same_face) return a.same_face < b.same_face;
    if (a.worst != b.worst) return a.worst > b.worst;
    return a.total > b.total;
}

// triangle quality 2 sqrt(3) |ab x ac| / (|ab|^2 + |bc|^2 + |ca|^2): 1 when equilateral, 0 when
// degenerate (a monotone stand-in for the smallest angle)
static double triangle_quality(const double* a, const double* b, const double* c) {
    double ab[3], ac[3], bc[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        bc[k] = c[k] - b[k];
    }
    double cross[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    double squares = 0.0, area2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        squares += ab[k] * ab[k] + ac[k] * ac[k] + bc[k] * bc[k];
        area2 += cross[k] * cross[k];
    }
    return squares > 0.0 ? 3.4641016151377546 * sqrt(area2) / squares : 0.0;
}

// triangulates the loop (n >= 3 vertices, indices into `vertices`) by the dynamic program over
// sub-polygons i..j that maximises the score above (the max-min triangle quality, an O(n^3)
// program on at most 12 vertices); triangles (i, k, j) with i < k < j keep the loop's
// orientation. Writes (n - 2) triangles to `out` and returns true when no diagonal joins two
// crossings of one face; otherwise writes nothing and returns false (some loops of 8 or more
// crossings that wind around the cell have no such triangulation: see triangulate_around_center).
static bool triangulate_loop(const iso_tables* tables, const int8_t* edges, const int32_t* ids, int n,
                             const double* vertices, int32_t* out) {
    iso_score score[12][12];
    int8_t split[12][12];
    for (int i = 0; i + 1 < n; ++i) score[i][i + 1] = (iso_score){0, INFINITY, 0.0};
    for (int gap = 2; gap < n; ++gap) {
        for (int i = 0; i + gap < n; ++i) {
            int j = i + gap;
            // the side (i, j) closing this sub-polygon is a diagonal unless it is (0, n - 1)
            int same_face = !(i == 0 && j == n - 1) && tables->share_face[edges[i]][edges[j]];
            iso_score best = {INT32_MAX, -INFINITY, -INFINITY};
            for (int k = i + 1; k < j; ++k) {
                double quality = triangle_quality(vertices + 3 * (size_t)ids[i], vertices + 3 * (size_t)ids[k],
                                                  vertices + 3 * (size_t)ids[j]);
                iso_score candidate = {score[i][k].same_face + score[k][j].same_face + same_face,
                                       fmin(quality, fmin(score[i][k].worst, score[k][j].worst)),
                                       score[i][k].total + score[k][j].total + quality};
                if (score_better(candidate, best)) {
                    best = candidate;
                    split[i][j] = (int8_t)k;
                }
            }
            score[i][j] = best;
        }
    }
    if (score[0][n - 1].same_face > 0) return false;
    // unwind the splits with an explicit stack of sub-polygons
    int stack[12][2], depth = 0, written = 0;
    stack[depth][0] = 0;
    stack[depth++][1] = n - 1;
    while (depth > 0) {
        --depth;
        int i = stack[depth][0], j = stack[depth][1];
        if (j - i < 2) continue;
        int k = split[i][j];
        out[written++] = ids[i];
        out[written++] = ids[k];
        out[written++] = ids[j];
        stack[depth][0] = i;
        stack[depth++][1] = k;
        stack[depth][0] = k;
        stack[depth++][1] = j;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// output arrays

// appends a vertex and writes its index to `index`
static osc_status add_vertex(iso_work* work, double x, double y, double z, int32_t* index) {
    if (work->vertex_count >= (size_t)INT32_MAX)
        return osc_fail(OSC_ERR_CAPACITY,
                        "osc_isosurface_extract: more than %d vertices; lower "
                        "settings->resolution",
                        (int)INT32_MAX);
    osc_status status =
        osc_array_grow(&work->vertices, &work->vertex_capacity, work->vertex_count + 1, 3 * sizeof(double));
    if (status) return status;
    double* v = work->vertices + 3 * work->vertex_count;
    v[0] = x;
    v[1] = y;
    v[2] = z;
    *index = (int32_t)work->vertex_count++;
    return OSC_OK;
}

// makes room for `count` more triangles and points `slot` at where they go
static osc_status reserve_triangles(iso_work* work, size_t count, int32_t** slot) {
    if (work->triangle_count + count > (size_t)INT32_MAX)
        return osc_fail(OSC_ERR_CAPACITY,
                        "osc_isosurface_extract: more than %d triangles; lower "
                        "settings->resolution",
                        (int)INT32_MAX);
    osc_status status =
        osc_array_grow(&work->triangles, &work->triangle_capacity, work->triangle_count + count, 3 * sizeof(int32_t));
    if (!status) *slot = work->triangles + 3 * work->triangle_count;
    return status;
}

// fans the loop around a new vertex at the mean of its vertices: (center, v_k, v_k+1) keeps the
// loop's orientation, and every new edge ends at the new vertex, so it belongs to this cell alone
static osc_status triangulate_around_center(const int32_t* ids, int n, iso_work* work) {
    double center[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < n; ++k)
        for (int a = 0; a < 3; ++a) center[a] += work->vertices[3 * (size_t)ids[k] + (size_t)a] / n;
    int32_t center_id = -1, *out = NULL;
    osc_status status = add_vertex(work, center[0], center[1], center[2], &center_id);
    if (!status) status = reserve_triangles(work, (size_t)n, &out);
    if (status) return status;
    for (int k = 0; k < n; ++k) {
        out[3 * k] = center_id;
        out[3 * k + 1] = ids[k];
        out[3 * k + 2] = ids[(k + 1) % n];
    }
    work->triangle_count += (size_t)n;
    return OSC_OK;
}

// polygonises one cell from its corner values g (phi - iso) and the vertices of its edges
static osc_status polygonize_cell(const iso_tables* tables, const double g[8], const int32_t vertex_of_edge[12],
                                  iso_work* work) {
    unsigned inside = 0;
    for (int c = 0; c < 8; ++c) inside |= (unsigned)(g[c] < 0.0) << c;
    if (inside == 0 || inside == 0xFFu) return OSC_OK;
    int8_t next[12], loop_edges[12];
    int loop_sizes[4];
    cell_segments(tables, inside, face_decisions(tables, g, inside), next);
    int loop_count = cell_loops(next, loop_edges, loop_sizes);
    for (int loop = 0, first = 0; loop < loop_count; first += loop_sizes[loop++]) {
        int n = loop_sizes[loop];
        int32_t ids[12];
        for (int k = 0; k < n; ++k) ids[k] = vertex_of_edge[loop_edges[first + k]];
        int32_t* out = NULL;
        osc_status status = reserve_triangles(work, (size_t)(n - 2), &out);
        if (status) return status;
        if (triangulate_loop(tables, loop_edges + first, ids, n, work->vertices, out))
            work->triangle_count += (size_t)(n - 2);
        else if ((status = triangulate_around_center(ids, n, work)))
            return status;
    }
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// the region and the grid

// reports a region that cannot be meshed
static osc_status region_error(const char* what, const double lo[3], const double hi[3]) {
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_isosurface_extract: %s: lo (%g, %g, %g), hi (%g, %g, %g)", what,
                    lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

// cubic cells of (longest side) / resolution over [lo, hi]; with `margin`, two more cells on
// every side and the grid centred on the box, otherwise the grid starts at lo
static osc_status grid_from_box(const double lo[3], const double hi[3], int resolution, bool margin, iso_grid* grid) {
    double longest = 0.0;
    for (int a = 0; a < 3; ++a) {
        if (!(fabs(lo[a]) <= OSC_MESH_MAX_COORDINATE && fabs(hi[a]) <= OSC_MESH_MAX_COORDINATE))
            return region_error("the region (settings->lo, settings->hi, or the SDF's bounds grown by "
                                "settings->padding) is not finite or exceeds OSC_MESH_MAX_COORDINATE",
                                lo, hi);
        longest = fmax(longest, hi[a] - lo[a]);
    }
    if (!(longest > 0.0) || !isfinite(longest))
        return region_error("the region has no extent or is not finite", lo, hi);
    grid->cell = longest / resolution;
    if (!(grid->cell > 0.0)) return region_error("the cells underflow", lo, hi);
    for (int a = 0; a < 3; ++a) {
        double cells = fmax(1.0, ceil((hi[a] - lo[a]) / grid->cell - 1e-9)) + (margin ? 4.0 : 0.0);
        if (cells + 1.0 > ISO_MAX_AXIS_CORNERS)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_isosurface_extract: %.0f corners along "
                            "axis %d exceed 2^20; lower settings->resolution",
                            cells + 1.0, a);
        grid->cells[a] = (int64_t)cells;
        grid->corners[a] = grid->cells[a] + 1;
        grid->origin[a] = margin ? 0.5 * (lo[a] + hi[a]) - 0.5 * cells * grid->cell : lo[a];
    }
    if ((double)grid->corners[0] * (double)grid->corners[1] > ISO_MAX_SLAB_CORNERS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "osc_isosurface_extract: %lld x %lld corners per "
                        "layer exceed 2^31; lower settings->resolution",
                        (long long)grid->corners[0], (long long)grid->corners[1]);
    return OSC_OK;
}

// the region from the settings or from the SDF's bounds; *empty when the bounds prove that there
// is no surface
static osc_status resolve_grid(const osc_sdf* sdf, const osc_isosurface_settings* settings, iso_grid* grid,
                               bool* empty) {
    double lo[3] = {settings->lo.x, settings->lo.y, settings->lo.z};
    double hi[3] = {settings->hi.x, settings->hi.y, settings->hi.z};
    *empty = false;
    if (isnan(lo[0]) || isnan(lo[1]) || isnan(lo[2]) || isnan(hi[0]) || isnan(hi[1]) || isnan(hi[2]))
        return region_error("settings->lo or settings->hi is NaN", lo, hi);
    if (lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])
        return grid_from_box(lo, hi, settings->resolution, false, grid);

    osc_vec3 bound_lo, bound_hi;
    osc_sdf_bounds(sdf, &bound_lo, &bound_hi);
    double blo[3] = {bound_lo.x, bound_lo.y, bound_lo.z}, bhi[3] = {bound_hi.x, bound_hi.y, bound_hi.z};
    if (blo[0] > bhi[0] || blo[1] > bhi[1] || blo[2] > bhi[2]) {
        if (settings->iso_value > 0.0)
            return region_error("the SDF's bounds are empty but iso_value > 0; give settings->lo "
                                "and settings->hi",
                                blo, bhi);
        *empty = true;
        return OSC_OK;
    }
    // {phi <= iso} lies within iso of {phi <= 0} for exact and distance-like SDFs (|phi| >= distance)
    double grow = settings->padding + fmax(settings->iso_value, 0.0);
    for (int a = 0; a < 3; ++a) {
        if (!isfinite(blo[a]) || !isfinite(bhi[a]))
            return region_error("the SDF is unbounded (a half-space?); give settings->lo and "
                                "settings->hi",
                                blo, bhi);
        lo[a] = blo[a] - grow;
        hi[a] = bhi[a] + grow;
    }
    return grid_from_box(lo, hi, settings->resolution, true, grid);
}

// checks the arguments and settings that do not depend on the region
static osc_status check_arguments(const osc_sdf* sdf, const osc_isosurface_settings* settings, osc_mesh** out) {
    const char* function = "osc_isosurface_extract";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!sdf) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sdf is NULL", function);
    if (settings->resolution < 2)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->resolution must be >= 2 (got %d)", function,
                        settings->resolution);
    if (!(settings->padding >= 0.0 && settings->padding <= OSC_MESH_MAX_COORDINATE))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings->padding must be in [0, "
                        "OSC_MESH_MAX_COORDINATE = %g] (got %g)",
                        function, OSC_MESH_MAX_COORDINATE, settings->padding);
    if (!(fabs(settings->iso_value) <= OSC_MESH_MAX_COORDINATE))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: settings->iso_value must be finite and within "
                        "OSC_MESH_MAX_COORDINATE = %g (got %g)",
                        function, OSC_MESH_MAX_COORDINATE, settings->iso_value);
    if (settings->threads < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->threads must be >= 0 (got %d)", function,
                        settings->threads);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// the sweep

// coordinate of corner `index` along `axis`
static double grid_coordinate(const iso_grid* grid, int axis, int64_t index) {
    return grid->origin[axis] + (double)index * grid->cell;
}

// samples layer z = k into `values` (phi - iso) with one batch call
static osc_status sample_layer(const osc_sdf* sdf, const iso_grid* grid, int64_t k,
                               const osc_isosurface_settings* settings, iso_work* work, double* values) {
    int64_t nx = grid->corners[0], ny = grid->corners[1];
    double z = grid_coordinate(grid, 2, k);
    for (int64_t j = 0; j < ny; ++j) {
        double y = grid_coordinate(grid, 1, j);
        for (int64_t i = 0; i < nx; ++i) {
            double* p = work->points + 3 * (size_t)(j * nx + i);
            p[0] = grid_coordinate(grid, 0, i);
            p[1] = y;
            p[2] = z;
        }
    }
    size_t count = (size_t)(nx * ny);
    osc_status status = osc_sdf_eval_batch(sdf, work->points, count, values, NULL, NULL, settings->threads);
    if (status) return status;
    for (size_t n = 0; n < count; ++n) {
        if (isnan(values[n])) {
            const double* p = work->points + 3 * n;
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_isosurface_extract: the SDF is NaN at "
                            "(%g, %g, %g)",
                            p[0], p[1], p[2]);
        }
        values[n] -= settings->iso_value; // the sign of phi - iso is that of phi < iso
    }
    return OSC_OK;
}

// the vertex on the edge from corner p0 (value g0) to p1 (value g1), or -1 without a crossing:
// linear interpolation, kept at least ISO_T_MIN of the edge from both corners (a NaN parameter,
// from two infinite values, lands on ISO_T_MIN)
static osc_status edge_vertex(iso_work* work, double g0, double g1, const double p0[3], const double p1[3],
                              int32_t* index) {
    *index = -1;
    if ((g0 < 0.0) == (g1 < 0.0)) return OSC_OK;
    double t = g0 / (g0 - g1);
    t = t >= ISO_T_MIN ? (t <= 1.0 - ISO_T_MIN ? t : 1.0 - ISO_T_MIN) : ISO_T_MIN;
    return add_vertex(work, p0[0] + t * (p1[0] - p0[0]), p0[1] + t * (p1[1] - p0[1]), p0[2] + t * (p1[2] - p0[2]),
                      index);
}

// vertices on the x- and y-edges of layer k
static osc_status layer_edges(const iso_grid* grid, int64_t k, const double* values, int32_t* x_edges, int32_t* y_edges,
                              iso_work* work) {
    int64_t cx = grid->corners[0], cy = grid->corners[1], nx = grid->cells[0];
    double z = grid_coordinate(grid, 2, k);
    for (int64_t j = 0; j < cy; ++j) {
        for (int64_t i = 0; i < cx; ++i) {
            double p0[3] = {grid_coordinate(grid, 0, i), grid_coordinate(grid, 1, j), z};
            double g0 = values[j * cx + i];
            osc_status status = OSC_OK;
            if (i + 1 < cx) {
                double p1[3] = {grid_coordinate(grid, 0, i + 1), p0[1], z};
                status = edge_vertex(work, g0, values[j * cx + i + 1], p0, p1, &x_edges[j * nx + i]);
            }
            if (!status && j + 1 < cy) {
                double p1[3] = {p0[0], grid_coordinate(grid, 1, j + 1), z};
                status = edge_vertex(work, g0, values[(j + 1) * cx + i], p0, p1, &y_edges[j * cx + i]);
            }
            if (status) return status;
        }
    }
    return OSC_OK;
}

// vertices on the z-edges between layers k and k + 1
static osc_status slab_edges(const iso_grid* grid, int64_t k, const double* bottom, const double* top, int32_t* z_edges,
                             iso_work* work) {
    int64_t cx = grid->corners[0], cy = grid->corners[1];
    double z0 = grid_coordinate(grid, 2, k), z1 = grid_coordinate(grid, 2, k + 1);
    for (int64_t j = 0; j < cy; ++j) {
        for (int64_t i = 0; i < cx; ++i) {
            double p0[3] = {grid_coordinate(grid, 0, i), grid_coordinate(grid, 1, j), z0};
            double p1[3] = {p0[0], p0[1], z1};
            int64_t n = j * cx + i;
            osc_status status = edge_vertex(work, bottom[n], top[n], p0, p1, &z_edges[n]);
            if (status) return status;
        }
    }
    return OSC_OK;
}

// polygonises every cell of the slab between the two layers in memory
static osc_status process_slab(const iso_tables* tables, const iso_grid* grid, iso_work* work) {
    int64_t cx = grid->corners[0], nx = grid->cells[0], ny = grid->cells[1];
    for (int64_t j = 0; j < ny; ++j) {
        for (int64_t i = 0; i < nx; ++i) {
            double g[8];
            for (int c = 0; c < 8; ++c) g[c] = work->values[c >> 2][(j + ((c >> 1) & 1)) * cx + i + (c & 1)];
            bool all_inside = true, all_outside = true;
            for (int c = 0; c < 8; ++c) {
                all_inside = all_inside && g[c] < 0.0;
                all_outside = all_outside && !(g[c] < 0.0);
            }
            if (all_inside || all_outside) continue;
            int32_t vertex_of_edge[12];
            for (int k = 0; k < 4; ++k) {
                int low = k & 1, high = k >> 1; // the two other bits, lower axis first
                vertex_of_edge[k] = work->x_edges[high][(j + low) * nx + i];
                vertex_of_edge[4 + k] = work->y_edges[high][j * cx + i + low];
                vertex_of_edge[8 + k] = work->z_edges[(j + high) * cx + i + low];
            }
            osc_status status = polygonize_cell(tables, g, vertex_of_edge, work);
            if (status) return status;
        }
    }
    return OSC_OK;
}

// allocates the two-layer buffers
static osc_status work_allocate(const iso_grid* grid, iso_work* work) {
    size_t cx = (size_t)grid->corners[0], cy = (size_t)grid->corners[1];
    size_t layer = cx * cy;
    for (int s = 0; s < 2; ++s) {
        work->values[s] = osc_calloc(layer, sizeof(double));
        work->x_edges[s] = osc_calloc((cx - 1) * cy, sizeof(int32_t));
        work->y_edges[s] = osc_calloc(cx * (cy - 1), sizeof(int32_t));
        if (!work->values[s] || !work->x_edges[s] || !work->y_edges[s]) return OSC_ERR_NO_MEMORY;
    }
    work->points = osc_calloc(layer, 3 * sizeof(double));
    work->z_edges = osc_calloc(layer, sizeof(int32_t));
    return work->points && work->z_edges ? OSC_OK : OSC_ERR_NO_MEMORY;
}

// releases everything work_allocate and the output arrays hold
static void work_release(iso_work* work) {
    for (int s = 0; s < 2; ++s) {
        osc_free(work->values[s]);
        osc_free(work->x_edges[s]);
        osc_free(work->y_edges[s]);
    }
    osc_free(work->points);
    osc_free(work->z_edges);
    osc_free(work->vertices);
    osc_free(work->triangles);
}

// swaps the bottom and top layers
static void swap_layers(iso_work* work) {
    double* values = work->values[0];
    work->values[0] = work->values[1];
    work->values[1] = values;
    int32_t* x_edges = work->x_edges[0];
    work->x_edges[0] = work->x_edges[1];
    work->x_edges[1] = x_edges;
    int32_t* y_edges = work->y_edges[0];
    work->y_edges[0] = work->y_edges[1];
    work->y_edges[1] = y_edges;
}

// samples layer after layer and polygonises each slab
static osc_status sweep(const osc_sdf* sdf, const osc_isosurface_settings* settings, const iso_grid* grid,
                        iso_work* work) {
    iso_tables tables;
    build_tables(&tables);
    osc_status status = work_allocate(grid, work);
    if (!status) status = sample_layer(sdf, grid, 0, settings, work, work->values[0]);
    if (!status) status = layer_edges(grid, 0, work->values[0], work->x_edges[0], work->y_edges[0], work);
    for (int64_t k = 0; !status && k < grid->cells[2]; ++k) {
        status = sample_layer(sdf, grid, k + 1, settings, work, work->values[1]);
        if (!status) status = layer_edges(grid, k + 1, work->values[1], work->x_edges[1], work->y_edges[1], work);
        if (!status) status = slab_edges(grid, k, work->values[0], work->values[1], work->z_edges, work);
        if (!status) status = process_slab(&tables, grid, work);
        swap_layers(work);
    }
    return status;
}

// region, sweep, then the mesh from the output arrays
osc_status osc_isosurface_extract(const osc_sdf* sdf, const osc_isosurface_settings* settings, osc_mesh** out) {
    osc_isosurface_settings defaults = osc_isosurface_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_arguments(sdf, settings, out);
    if (status) return status;
    iso_grid grid;
    bool empty = false;
    status = resolve_grid(sdf, settings, &grid, &empty);
    if (status) return status;
    if (empty) return osc_mesh_create(NULL, 0, NULL, 0, out);

    iso_work work;
    memset(&work, 0, sizeof work);
    status = sweep(sdf, settings, &grid, &work);
    if (!status)
        status = osc_mesh_create(work.vertices, (int32_t)work.vertex_count, work.triangles,
                                 (int32_t)work.triangle_count, out);
    work_release(&work);
    return status == OSC_ERR_NO_MEMORY ? osc_fail_in("osc_isosurface_extract", status) : status;
}
