// mesh_weld.c: merging of coincident and nearly coincident points, shared by the importers
// (mesh_io.c) and the simplifier (mesh_simplify.c): exact duplicates through a hash table of their
// bit patterns, near-duplicates through a hash grid of cells no smaller than the tolerance.

#include "mesh_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

// a 64-bit mix (splitmix64's finaliser)
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) { return mix64(a + mix64(b + mix64(c))); }

// the bit pattern of a coordinate, with -0 as +0 so that equal values hash equally
static uint64_t coordinate_bits(double value) {
    double canonical = value + 0.0;
    uint64_t bits;
    memcpy(&bits, &canonical, sizeof bits);
    return bits;
}

// the smallest power of two >= 2 count (at least 16)
static size_t table_size(size_t count) {
    size_t size = 16;
    while (size < 2 * count) size *= 2;
    return size;
}

// exact duplicates: remap[i] = the first vertex with the same coordinates; returns the number of
// distinct vertices (-1: out of memory)
static int64_t weld_exact(const double* vertices, size_t count, int32_t* remap) {
    size_t size = table_size(count);
    int32_t* table = osc_calloc(size, sizeof(int32_t));
    if (!table) return -1;
    for (size_t slot = 0; slot < size; ++slot) table[slot] = -1;
    int64_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        const double* p = vertices + 3 * i;
        size_t slot = (size_t)hash3(coordinate_bits(p[0]), coordinate_bits(p[1]), coordinate_bits(p[2])) & (size - 1);
        for (;; slot = (slot + 1) & (size - 1)) {
            int32_t other = table[slot];
            if (other < 0) {
                table[slot] = (int32_t)i;
                remap[i] = (int32_t)i;
                ++kept;
                break;
            }
            const double* q = vertices + 3 * (size_t)other;
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) {
                remap[i] = other;
                break;
            }
        }
    }
    osc_free(table);
    return kept;
}

// the hash grid of tolerance welding: cells of size `cell` from `origin`, each cell a chain of
// kept vertices (`next`), found through an open-addressing table of chain heads
typedef struct weld_grid {
    const double* vertices;
    double origin[3], cell;
    int32_t *heads, *next;
    size_t size;
} weld_grid;

// halves keep the differences finite near DBL_MAX; the box spans at most 2^40 cells
static void grid_cell(const weld_grid* grid, const double* p, int64_t cell[3]) {
    for (int axis = 0; axis < 3; ++axis) {
        double index = floor((0.5 * p[axis] - 0.5 * grid->origin[axis]) / (0.5 * grid->cell));
        cell[axis] = (int64_t)fmin(fmax(index, 0.0), 0x1.0p50);
    }
}

// the slot of the chain of `cell`: its head, or the empty slot where it would go
static size_t grid_slot(const weld_grid* grid, const int64_t cell[3]) {
    size_t slot = (size_t)hash3((uint64_t)cell[0], (uint64_t)cell[1], (uint64_t)cell[2]) & (grid->size - 1);
    for (;; slot = (slot + 1) & (grid->size - 1)) {
        int32_t head = grid->heads[slot];
        if (head < 0) return slot;
        int64_t other[3];
        grid_cell(grid, grid->vertices + 3 * (size_t)head, other);
        if (other[0] == cell[0] && other[1] == cell[1] && other[2] == cell[2]) return slot;
    }
}

// the lowest kept vertex closer than `tolerance` (max-norm) to p in the 27 cells around it, or -1
static int32_t grid_nearest_kept(const weld_grid* grid, const double* p, double tolerance) {
    int64_t center[3], cell[3];
    grid_cell(grid, p, center);
    int32_t best = -1;
    for (int neighbour = 0; neighbour < 27; ++neighbour) {
        cell[0] = center[0] + neighbour % 3 - 1;
        cell[1] = center[1] + neighbour / 3 % 3 - 1;
        cell[2] = center[2] + neighbour / 9 - 1;
        for (int32_t kept = grid->heads[grid_slot(grid, cell)]; kept >= 0; kept = grid->next[kept]) {
            const double* q = grid->vertices + 3 * (size_t)kept;
            if (fabs(p[0] - q[0]) < tolerance && fabs(p[1] - q[1]) < tolerance && fabs(p[2] - q[2]) < tolerance &&
                (best < 0 || kept < best))
                best = kept;
        }
    }
    return best;
}

// merges each vertex, in input order, into the lowest earlier kept vertex closer than `tolerance`
// (max-norm), or keeps it; returns the number kept (-1: out of memory). Cells are at least
// the tolerance, so a partner lies in one of the 27 cells around a vertex; they are enlarged when
// the box spans more than 2^40 of them, so that cell indices stay exact.
static int64_t weld_tolerance(const double* vertices, size_t count, double tolerance, int32_t* remap) {
    weld_grid grid = {vertices, {0.0, 0.0, 0.0}, 0.0, NULL, NULL, table_size(count)};
    double extent = 0.0;
    for (int axis = 0; axis < 3; ++axis) {
        double lo = count ? vertices[axis] : 0.0, hi = lo;
        for (size_t i = 0; i < count; ++i) {
            lo = fmin(lo, vertices[3 * i + (size_t)axis]);
            hi = fmax(hi, vertices[3 * i + (size_t)axis]);
        }
        grid.origin[axis] = lo;
        extent = fmax(extent, 0.5 * hi - 0.5 * lo);
    }
    grid.cell = fmin(fmax(tolerance, ldexp(extent, -39)) * (1.0 + 0x1.0p-20), DBL_MAX);
    grid.heads = osc_calloc(grid.size, sizeof(int32_t));
    grid.next = grid.heads ? osc_calloc(count ? count : 1, sizeof(int32_t)) : NULL;
    if (!grid.next) {
        osc_free(grid.heads);
        return -1;
    }
    for (size_t slot = 0; slot < grid.size; ++slot) grid.heads[slot] = -1;
    int64_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        const double* p = vertices + 3 * i;
        int32_t partner = grid_nearest_kept(&grid, p, tolerance);
        if (partner >= 0) {
            remap[i] = partner;
            continue;
        }
        int64_t cell[3];
        grid_cell(&grid, p, cell);
        size_t slot = grid_slot(&grid, cell);
        grid.next[i] = grid.heads[slot];
        grid.heads[slot] = (int32_t)i;
        remap[i] = (int32_t)i;
        ++kept;
    }
    osc_free(grid.heads);
    osc_free(grid.next);
    return kept;
}

int64_t mesh_weld_points(const double* points, size_t count, double tolerance, int32_t* remap) {
    if (tolerance == 0.0) return weld_exact(points, count, remap);
    if (tolerance > 0.0) return weld_tolerance(points, count, tolerance, remap);
    for (size_t i = 0; i < count; ++i) remap[i] = (int32_t)i;
    return (int64_t)count;
}
