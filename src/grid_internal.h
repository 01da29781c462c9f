// grid_internal.h: the layout of an osc_grid, shared by grid.c (building, evaluation) and
// grid_io.c (save, load). Never installed.
//
// Coefficients: the spline of the distance and of the three normal components, interleaved
// (4 doubles per coefficient) in one array of (n_x + 3)(n_y + 3)(n_z + 3) entries, x fastest. The
// coefficient of grid index g in [-1, n + 1] along an axis sits at g + 1. Cell i along an axis is
// [origin + i h, origin + (i + 1) h], and a point in it depends on the coefficients g = i - 1 ..
// i + 2, through the uniform cubic B-spline weights of its local coordinate t in [0, 1].
//
// The distance coefficients are also kept alone, z fastest ([(n_x + 3)][(n_y + 3)][(n_z + 3)]): the
// distance-only evaluation (the sphere traces' hot loop) then reads each of its 16 (x, y) columns of
// 4 z-coefficients as two contiguous pairs, a quarter of the bytes of the interleaved array.

#ifndef OSC_GRID_INTERNAL_H
#define OSC_GRID_INTERNAL_H

#include "base_internal.h"
#include "osculate/grid.h"

#include <stdatomic.h>
#include <stdint.h>

#define OSC_GRID_FIELDS 4       // distance, normal x, normal y, normal z
#define OSC_GRID_MAX_CELLS 1024 // per axis

struct osc_grid {
    atomic_int references;    // the caller's handle plus every osc_sdf leaf sharing it
    int cells[3];             // n_x, n_y, n_z
    double cell;              // h
    double inverse_cell;      // 1 / h (the FMA kernels multiply by it)
    osc_vec3 origin;          // lower corner of the region
    double upper[3];          // its upper corner, origin + n h per axis (as the clamp computes it)
    double last_cell[3];      // n - 1 per axis, as doubles (the last cell's index)
    double extent[3];         // n h per axis
    double normal_epsilon;    // as used when building (informative)
    double* coefficients;     // [(n_z + 3)(n_y + 3)(n_x + 3)][4]
    double* distance;         // the distance coefficients again, [(n_x + 3)(n_y + 3)(n_z + 3)], z fastest
    double* voxel_value;      // distance at each cell centre, [n_z][n_y][n_x]
    double* voxel_radius;     // bound radius rho = L_v r of each cell, same layout
    double lipschitz;         // max over cells of L_v (distance field)
    double lipschitz_outside; // max of L_v over cells that reach phi > 0 (centre + radius > 0)
    double boundary_min;      // smallest distance sample on the region's boundary faces
};

// Allocates a grid with `cells` and zeroed arrays (references = 1); NULL on failure (message set).
osc_grid* grid_allocate(const int cells[3], double cell, osc_vec3 origin);

// Frees every array and the grid itself (ignores the reference count).
void grid_free(osc_grid* grid);

// Copies the distance coefficients into `distance` (after the coefficients are solved or loaded).
void grid_copy_distance(osc_grid* grid);

// Computes the voxel grid (centre values, bound radii, the Lipschitz bound) from the coefficients
// over osc_batch_run's team (the same bits on any number of threads). OSC_OK or OSC_ERR_NO_MEMORY.
osc_status grid_compute_voxels(osc_grid* grid, int threads);

// The distance at x (with its continuation outside the region) and the normal field, in one pass
// over the coefficients; with `derivatives`, also the gradient and the normal's Jacobian (zero
// columns along clamped axes), as osc_grid_eval and osc_grid_eval_normal give them. For the contact
// pipeline (manifold.c). x must not be NaN.
double grid_eval_contact(const osc_grid* grid, const osc_vec3* x, bool derivatives, osc_vec3* gradient,
                         osc_vec3* normal, osc_mat3* normal_jacobian);

// The distance at x (with the continuation outside the region), bit for bit osc_grid_eval's without
// derivatives, without its checks of the grid and the order. For the contact pipeline (manifold.c).
double grid_distance(const osc_grid* grid, const osc_vec3* x);

// The distances at x0 and x1 (with the continuation outside the region), bit for bit the values of
// osc_grid_eval without derivatives, evaluated side by side so that the two dependency chains
// overlap. For the contact pipeline's sphere traces (manifold.c).
void grid_distance_pair(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1, double out[2]);

// The same with the gradients, bit for bit osc_grid_eval's with a gradient.
void grid_distance_gradient_pair(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1, double out[2],
                                 osc_vec3 gradient[2]);

// The distance at x with its gradient, bit for bit osc_grid_eval's, without its checks.
double grid_distance_gradient_at(const osc_grid* grid, const osc_vec3* x, osc_vec3* gradient);

// The distances at points[0 .. count) into values[], each bit for bit grid_distance's at that point
// (osc_grid_eval's without derivatives), one point at a time in one call.
void grid_distances(const osc_grid* grid, const osc_vec3* points, size_t count, double* values);

// The same with the gradients, each bit for bit grid_distance_gradient_at's: on the FMA path the
// points go 8 (AVX-512F) or 4 (AVX2) at a time through SIMD lanes, one point per lane (docs/grid.md,
// "Many points at once").
void grid_distance_gradients(const osc_grid* grid, const osc_vec3* points, size_t count, double* values,
                             osc_vec3* gradients);

// The index of the voxel holding y (clamped into the region; [n_z][n_y][n_x] layout), its cell
// coordinates in `cell` and, in *outside, the distance from y to the region (0 inside): the voxel
// osc_grid_lower_bound reads.
static inline size_t grid_voxel_cell_of(const osc_grid* grid, osc_vec3 y, double* outside, int cell[3]) {
    double p[3] = {y.x - grid->origin.x, y.y - grid->origin.y, y.z - grid->origin.z}, beyond[3];
    size_t index = 0;
    for (int a = 2; a >= 0; --a) {
        double hi = grid->extent[a];
        double q = p[a] < 0.0 ? 0.0 : (p[a] > hi ? hi : p[a]);
        beyond[a] = p[a] - q;
        double f = q / grid->cell; // clamped before the conversion (inf or NaN with huge cells or points)
        int i = f < grid->last_cell[a] ? (f >= 0.0 ? (int)f : 0) : grid->cells[a] - 1;
        cell[a] = i;
        index = index * (size_t)grid->cells[a] + (size_t)i;
    }
    // (inside the region, the common case, without the square root of 0)
    bool out = beyond[0] != 0.0 || beyond[1] != 0.0 || beyond[2] != 0.0;
    *outside = out ? sqrt(beyond[0] * beyond[0] + beyond[1] * beyond[1] + beyond[2] * beyond[2]) : 0.0;
    return index;
}

// grid_voxel_cell_of without the cell coordinates
static inline size_t grid_voxel_of(const osc_grid* grid, osc_vec3 y, double* outside) {
    int cell[3];
    return grid_voxel_cell_of(grid, y, outside, cell);
}

// Number of coefficient entries (each of OSC_GRID_FIELDS doubles).
static inline size_t grid_coefficient_count(const osc_grid* grid) {
    return (size_t)(grid->cells[0] + 3) * (size_t)(grid->cells[1] + 3) * (size_t)(grid->cells[2] + 3);
}

// Number of cells (voxels).
static inline size_t grid_cell_count(const osc_grid* grid) {
    return (size_t)grid->cells[0] * (size_t)grid->cells[1] * (size_t)grid->cells[2];
}

#endif // OSC_GRID_INTERNAL_H
