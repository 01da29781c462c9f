// manifold_internal.h: the layout of an osc_body, shared by manifold_body.c (building it) and
// manifold.c (the contact pipeline). Never installed.
//
// Features are stored in the order the pipeline visits them: vertices sorted by convex group, then
// along a space-filling curve within the group (Beker et al. 2026 §IV-C.3), so a group is a contiguous range
// and neighbouring vertices are neighbours in space; edges sorted along the curve by midpoint, with a
// per-group list of edge positions (an edge whose corners lie in two groups is in both lists).

#ifndef OSC_MANIFOLD_INTERNAL_H
#define OSC_MANIFOLD_INTERNAL_H

#include "base_internal.h"
#include "grid_internal.h"
#include "osculate/manifold.h"

#include <stdint.h>

// A voxel grid of lower bounds: each voxel holds phi(centre) - L r (-INFINITY where that is < 0).
typedef struct body_voxels {
    int cells[3];
    double cell;
    osc_vec3 origin;
    double* bound; // [n_z][n_y][n_x]
} body_voxels;

struct osc_body {
    const osc_grid* grid; // spline SDF with its normal field, or
    const osc_sdf* sdf;   // any SDF (normal: normalised gradient); both borrowed

    // broad phase (Beker et al. 2026 §IV-C.2): phi(x) >= lower_bound(x) for every x, and an edge of length l
    // has phi >= min(lower_bound(corners)) - edge_lipschitz l / 2 along it
    double edge_lipschitz;
    // a grid body's Lipschitz bounds per block of OSC_BODY_BLOCK^3 cells (the largest L_v of its
    // cells that reach phi > 0), for tighter bounds over small balls, and the smallest voxel bound
    // on the region's boundary: outside the region phi >= boundary_bound + distance to the region
    int blocks[3];
    double* block_lipschitz;
    // and per block (i, j, k) and window w (bits 0-2 for x, y, z) the largest bound over blocks
    // i..i+w_x, j..j+w_y, k..k+w_z (within the region), the 8 windows of a block side by side
    // ([blocks][8], one cache line): a box of blocks is the union of windows of 2 or 1 along each axis
    // that lie inside it, so its largest bound is the largest of their entries, exactly
    double* block_lipschitz_windows;
    // and per block the largest bound over the blocks within r = 1 and r = 2 of it along each axis
    // ((2 r + 1)^3 blocks, within the region): one look-up for a ball of radius at most r blocks' sides
    double* block_lipschitz_near[2];
    double boundary_bound;
    // a grid body's voxel bounds, phi(centre) -/+ rho of each voxel as floats rounded outward
    // (lower, upper; [n_z][n_y][n_x][2]): one cache line per lookup instead of two and half the
    // grid's bytes, looser than the doubles by one float rounding (about 6e-8 relative)
    float* voxel_bounds;
    // an osc_sdf body's own voxel grids (a grid body uses the grid's voxels): the fine one over its
    // bounds padded as the description says, and a coarse one reaching three times its size beyond
    // them, so that far-apart bodies are ruled out too
    body_voxels voxels[2];

    int32_t vertex_count, edge_count, group_count;
    double* vertices;            // [vertex_count][3], body frame, in pipeline order
    int32_t* vertex_index;       // [vertex_count] the mesh's index of each stored vertex
    int32_t* vertex_group;       // [vertex_count] group of each stored vertex (-1: none)
    double* edges;               // [edge_count][6] the two corners, in pipeline order
    double* edge_lengths;        // [edge_count] |b - a| of each stored edge, body frame (for the broad phase)
    int32_t* edge_index;         // [edge_count] the mesh's edge index (osc_mesh_edges) of each stored edge
    int32_t* edge_group;         // [edge_count] first group of each stored edge (-1: none)
    int32_t* edge_vertices;      // [edge_count][2] stored positions of each stored edge's corners
    uint8_t* edge_shared;        // [edge_count] 1: the edge is in two groups' lists (visited twice)
    int32_t* group_vertex_start; // [group_count + 1] group g's vertices are [start[g], start[g + 1])
    int32_t* group_edge_start;   // [group_count + 1] ranges into group_edges
    int32_t* group_edges;        // stored-edge positions of each group's edges

    // bounding spheres (centre xyz, radius) of the whole mesh and of each run of OSC_BODY_CHUNK
    // consecutive stored vertices / edges: the broad phase rules out a whole run at once when
    // lower_bound(centre) - L radius > d_max (Beker et al. 2026 §IV-C.3: neighbours in memory are neighbours
    // in space, so runs are compact)
    double sphere[4];
    double* vertex_chunks; // [ceil(vertex_count / OSC_BODY_CHUNK)][4]
    double* edge_chunks;   // [ceil(edge_count / OSC_BODY_CHUNK)][4]
    // and of each convex group's features (its vertices and both corners of each of its edges): a
    // group whose sphere lies beyond d_max emits nothing
    double* group_spheres; // [group_count][4]
    // and of each block of consecutive features of a group (its stored vertices, and positions of its
    // edge list, whose blocks hold both corners of their edges): up to OSC_BODY_GROUP_BLOCK features
    // within a ball of 1.5 times the mean edge length, so that a block beyond d_max is decided by one test
    // instead of one per feature. Group g's vertex blocks are k = group_vertex_block_start[g] ..
    // group_vertex_block_start[g + 1] - 1, block k holding stored vertices [vertex_block_first[k],
    // vertex_block_first[k + 1]) (the blocks of consecutive groups are consecutive); likewise its edges
    int32_t* group_vertex_block_start; // [group_count + 1]
    int32_t* group_edge_block_start;   // [group_count + 1]
    int32_t* vertex_block_first;       // [vertex blocks + 1] first stored vertex of each block
    int32_t* edge_block_first;         // [edge blocks + 1] first position in group_edges of each block
    double* group_vertex_blocks;       // [vertex blocks][4]
    double* group_edge_blocks;         // [edge blocks][4]
};

#define OSC_BODY_CHUNK 32

#define OSC_BODY_GROUP_BLOCK 16

#define OSC_BODY_BLOCK 4

// A lower bound of the body's SDF at body-frame point y (-INFINITY where none is known): for a
// grid, osc_grid_lower_bound's (the voxel's phi(centre) - rho, as a float rounded down, plus the
// distance to the region).
static inline double body_lower_bound(const osc_body* body, osc_vec3 y) {
    if (body->grid) {
        double outside;
        size_t index = grid_voxel_of(body->grid, y, &outside);
        return (double)body->voxel_bounds[2 * index] + outside;
    }
    double p[3] = {y.x, y.y, y.z};
    size_t index = 0;
    for (int level = 0; level < 2; ++level) {
        const body_voxels* v = &body->voxels[level];
        double o[3] = {v->origin.x, v->origin.y, v->origin.z};
        bool inside = true;
        index = 0;
        for (int a = 2; a >= 0 && inside; --a) {
            double u = (p[a] - o[a]) / v->cell;
            inside = u >= 0.0 && u < v->cells[a];
            if (inside) index = index * (size_t)v->cells[a] + (size_t)(int)u;
        }
        if (inside) return v->bound[index];
    }
    // beyond both voxel grids nothing is known (the SDF need not grow like a distance there)
    return -INFINITY;
}

// The packed coordinates (i | j << 10 | k << 20) of a grid body's Lipschitz block holding voxel
// `cell` (blocks per axis are at most OSC_GRID_MAX_CELLS / OSC_BODY_BLOCK = 256)
static inline int32_t body_block_key(const int cell[3]) {
    return (int32_t)((unsigned)cell[0] / OSC_BODY_BLOCK | ((unsigned)cell[1] / OSC_BODY_BLOCK) << 10 |
                     ((unsigned)cell[2] / OSC_BODY_BLOCK) << 20);
}

// body_lower_bound at body-frame point y, with (grid bodies) the voxel's upper bound in *upper
// (+INFINITY outside the region, as body_upper_bound) and, in *block, the packed Lipschitz block of
// the voxel (body_block_key) when y lies in the region, else -1 (also for osc_sdf bodies, whose
// *upper is +INFINITY): one look-up for all three.
static inline double body_bounds_at(const osc_body* body, osc_vec3 y, double* upper, int32_t* block) {
    if (!body->grid) {
        *upper = INFINITY;
        *block = -1;
        return body_lower_bound(body, y);
    }
    double outside;
    int cell[3];
    size_t index = grid_voxel_cell_of(body->grid, y, &outside, cell);
    bool inside = outside == 0.0;
    *upper = inside ? (double)body->voxel_bounds[2 * index + 1] : INFINITY;
    *block = inside ? body_block_key(cell) : -1;
    return (double)body->voxel_bounds[2 * index] + outside;
}

// A bound on |grad phi| where phi > 0 over the segment between two points of a grid body's region
// whose voxels lie in Lipschitz blocks `block_a` and `block_b` (body_block_key): the largest block
// bound over the box of blocks between them, which holds the segment (the region is a box). Only
// for grid bodies and blocks >= 0.
double body_segment_lipschitz(const osc_body* body, int32_t block_a, int32_t block_b);

// An upper bound of a grid body's SDF at body-frame point y inside the grid's region (the voxel's
// phi(centre) + rho, as a float rounded up); +INFINITY elsewhere and for osc_sdf bodies.
static inline double body_upper_bound(const osc_body* body, osc_vec3 y) {
    if (!body->grid) return INFINITY;
    double outside;
    size_t index = grid_voxel_of(body->grid, y, &outside);
    return outside > 0.0 ? INFINITY : (double)body->voxel_bounds[2 * index + 1];
}

// Where a ball's centre lies, for the broad phase's tests of the ball (body_lower_bound_placed): its
// distance to a grid's region (0 inside it, and for osc_sdf bodies) and the voxel of the centre
// clamped to the region (grid bodies), so that the tests need one voxel look-up in all.
typedef struct body_place {
    double outside;
    int cell[3];
} body_place;

// body_lower_bound at body-frame point y, with where it lies in *place
static inline double body_lower_bound_placed(const osc_body* body, osc_vec3 y, body_place* place) {
    if (!body->grid) {
        place->outside = 0.0;
        return body_lower_bound(body, y);
    }
    size_t index = grid_voxel_cell_of(body->grid, y, &place->outside, place->cell);
    return (double)body->voxel_bounds[2 * index] + place->outside;
}

// A bound on |grad phi| over the part of the ball (c, radius) where phi > 0 (body frame).
double body_ball_lipschitz(const osc_body* body, osc_vec3 c, double radius);

// body_ball_lipschitz of the ball (c, radius) whose centre lies at `place` (body_lower_bound_placed)
double body_ball_lipschitz_placed(const osc_body* body, osc_vec3 c, double radius, const body_place* place);

// True when phi > d_max over the whole ball (c, radius) of s's frame by one of the broad phase's
// tests (docs/manifold.md, "Broad phase"): lb(c) - L R > d_max with L the global bound on
// |grad phi|, then with the ball's own (where lb(c) > d_max), or the ball lies outside a grid's region.
// With `lipschitz` (nullable) the ball's own L is formed and written there (the global bound where
// that alone rules the ball out).
bool body_ball_beyond(const osc_body* s, osc_vec3 c, double radius, double d_max, double* lipschitz);

// body_ball_beyond of many balls at once: for each ball k < count of `balls` (centre x, y, z in f's
// frame and radius: 4 doubles each), far[k] = body_ball_beyond(s, rel_r x + rel_p, R, d_max, NULL). Four
// balls per step in AVX2 lanes where the processor has them (not with OSC_GRID_KERNEL=portable or
// avx), with the bits of the one-ball tests, else one by one.
void body_balls_beyond(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls, int count,
                       double d_max, bool* far);
// its two paths (tests): one ball at a time, and four in AVX2 lanes (x86-64 with GCC or clang; only
// where body_balls_beyond_lanes() says the processor has them)
void body_balls_beyond_portable(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls,
                                int count, double d_max, bool* far);
void body_balls_beyond_avx2(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls,
                            int count, double d_max, bool* far);
bool body_balls_beyond_lanes(void);

// True when phi > d_max over the whole ball of `radius` around a centre at `place`
// (body_lower_bound_placed) because it lies outside a grid's region: every point of the ball is at
// least `gap` from the region, where phi >= boundary_bound + gap.
static inline bool body_ball_outside(const osc_body* body, const body_place* place, double radius, double d_max) {
    double gap = place->outside - radius;
    return body->grid && gap > 0.0 && body->boundary_bound + gap > d_max;
}

#endif // OSC_MANIFOLD_INTERNAL_H
