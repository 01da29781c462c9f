// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// grid.h: spline SDFs (Beker et al. 2026 §III-B): a tricubic B-spline interpolating the signed distance of a
// mesh (or of any osc_sdf) at the corners of a voxel grid, with a separate, twice differentiable
// spline of the surface normal, and the voxel grid of distances at voxel centres that the broad
// phase reads (Beker et al. 2026 §IV-C.2).
//
// SUMMARY
// - The grid covers the bounds of the input grown by `padding` on every side, with cubic cells:
//   `resolution` cells along the longest axis. Ground truth is sampled at the (n + 1)^3 corners:
//   for a mesh, phi = sign |x - proj(x)| (closest point on the surface, sign from the generalised
//   winding number) and n = sign (x - proj(x)) / (|x - proj(x)| + normal_epsilon) (the paper's §III-B.2);
//   for an osc_sdf, its value and its normalised gradient.
// - The spline coefficients solve the interpolation conditions at every corner with natural end
//   conditions (zero second derivative across the grid's faces), one tridiagonal solve per grid
//   line along each axis in turn (the 3D system separates). Evaluation sums the 64 non-zero terms.
// - Points outside the grid box get phi(clamp(x)) + |x - clamp(x)|: continuous everywhere; the
//   normal field is the value at clamp(x). Both derivatives are exact for this continuation.
// - Voxel grid: one voxel per spline cell. Each stores phi at its centre and a bound radius rho such
//   that phi(x) >= phi(centre) - rho for every x in the voxel: rho = L_v r, with r the voxel's
//   circumradius and L_v a bound on |grad phi| over the voxel from the spline coefficients (the
//   derivative of a B-spline is a B-spline of the coefficient differences), so the bound is
//   rigorous for the spline itself.
// - A grid is an immutable, reference-counted model: osc_grid_to_sdf makes an osc_sdf leaf that
//   shares it, so spline SDFs take part in CSG, transforms, marching cubes and every query that
//   takes an osc_sdf.
//
// NUMERIC ROBUSTNESS
// The spline reproduces the sampled distance exactly at the corners and smooths features finer than
// a cell (Beker et al. 2026 Fig. 4: the resolution controls the smoothing). Far outside the grid the
// continuation grows like the distance to the box, which under-estimates the distance to the shape.

#ifndef OSCULATE_GRID_H
#define OSCULATE_GRID_H

#include "osculate/base.h"
#include "osculate/math.h"
#include "osculate/mesh.h"
#include "osculate/sdf.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A spline SDF with its normal field and broad-phase voxel grid. Create with osc_grid_create_*
/// or osc_grid_load*, release with osc_grid_destroy.
typedef struct osc_grid osc_grid;

/// Settings for building a spline SDF; get them from osc_grid_settings_default().
typedef struct osc_grid_settings {
    int resolution;        ///< cells along the longest axis of the region (default 64, 4..1024)
    double padding;        ///< absolute margin around the input's bounds; < 0 (the default):
                           ///< 10% of the bounds' longest side. The region must stay within
                           ///< OSC_MESH_MAX_COORDINATE
    double normal_epsilon; ///< epsilon of the normal samples (the paper's §III-B.2); < 0 (the default):
                           ///< 1e-3 times the cell size
    int threads;           ///< threads for sampling and solving (0: osc_default_thread_count(); more
                           ///< than OSC_MAX_THREADS run on OSC_MAX_THREADS)
} osc_grid_settings;

/// Returns the default settings: 64 cells, 10% padding, normal epsilon 1e-3 cells, default threads.
OSC_API osc_grid_settings osc_grid_settings_default(void);

/// Builds the spline SDF of a closed (or nearly closed) mesh from its BVH: distances from exact
/// closest points, signs from the generalised winding number, which needs outward windings.
/// OSC_ERR_INVALID_ARGUMENT, saying why, for a mesh whose sign would be wrong: one that
/// osc_mesh_orient would change (inverted or partly flipped; the importers orient by default), one
/// with a patch that is not orientable, one that encloses no volume (flat or sheet-like patches
/// only). An open or non-manifold mesh is baked; its sign may be wrong near the holes
/// (osc_mesh_orientation.sign_reliable is 0 for it).
OSC_API osc_status osc_grid_create_from_mesh(const osc_mesh_bvh* bvh, const osc_grid_settings* settings,
                                             osc_grid** out);

/// Builds the spline approximation of any bounded `sdf`: values and normalised gradients sampled at
/// the corners. OSC_ERR_INVALID_ARGUMENT for an unbounded SDF, one whose bounds exceed
/// OSC_MESH_MAX_COORDINATE, and (as for osc_grid_create_from_mesh) a NULL input or out, a
/// resolution outside [4, 1024], a padding or normal_epsilon that is not finite, a padding that takes
/// the region beyond OSC_MESH_MAX_COORDINATE, threads < 0; each message names the value. NULL
/// settings: the defaults.
OSC_API osc_status osc_grid_create_from_sdf(const osc_sdf* sdf, const osc_grid_settings* settings, osc_grid** out);

/// Releases the caller's reference to a grid (NULL is fine); SDF leaves sharing it keep it alive.
OSC_API void osc_grid_destroy(osc_grid* grid);

/// Returns phi(point) and writes its gradient and Hessian (nullable; NULL costs nothing).
/// NaN for a NaN point or a NULL grid.
OSC_API double osc_grid_eval(const osc_grid* grid, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian);

/// Returns the normal field n(point) (not normalised: unit length only where the data is) and
/// writes its Jacobian dn/dx (row-major, nullable).
OSC_API osc_vec3 osc_grid_eval_normal(const osc_grid* grid, osc_vec3 point, osc_mat3* jacobian);

/// Evaluates `count` points [count][3]: `values` [count] (nullable), `gradients` [count][3]
/// (nullable), `normals` [count][3] (nullable), over `threads` threads (0: default); each result
/// equals the single-point functions' bit for bit.
OSC_API osc_status osc_grid_eval_batch(const osc_grid* grid, const double* points, size_t count, double* values,
                                       double* gradients, double* normals, int threads);

/// Writes the grid's region (the box the spline covers) to `lo` and `hi` (each nullable; nothing is
/// written for a NULL grid).
OSC_API void osc_grid_bounds(const osc_grid* grid, osc_vec3* lo, osc_vec3* hi);

/// Writes the number of cells along each axis to `cells` (nullable) and returns the cell size; NaN,
/// and nothing written, for a NULL grid.
OSC_API double osc_grid_cells(const osc_grid* grid, int cells[3]);

/// Returns the broad-phase lower bound at `point`: phi(c) - rho of the voxel containing the point
/// (clamped into the grid, plus the distance to the grid box outside it), a value the spline never
/// goes below in that voxel. Writes the voxel centre's value and the bound radius (nullable). NaN
/// for a NULL grid or a NaN point.
OSC_API double osc_grid_lower_bound(const osc_grid* grid, osc_vec3 point, double* centre_value, double* radius);

/// Returns a bound on |grad phi| over the whole grid (the largest voxel L_v); at least 1 outside.
/// NaN for a NULL grid.
OSC_API double osc_grid_lipschitz(const osc_grid* grid);

/// Creates an osc_sdf leaf that evaluates the grid (sharing it: no copy). Its normal field is not
/// part of the osc_sdf interface; use osc_grid_eval_normal.
OSC_API osc_status osc_grid_to_sdf(const osc_grid* grid, osc_sdf** out);

/// Saves the grid to `path` in the versioned binary format of docs/grid.md (header, dimensions,
/// coefficients, voxel grid, checksum). OSC_ERR_IO naming the path on failure,
/// OSC_ERR_INVALID_ARGUMENT for a NULL grid or path.
OSC_API osc_status osc_grid_save(const osc_grid* grid, const char* path);

/// Loads a grid saved by osc_grid_save. OSC_ERR_IO when the file cannot be read or is not a regular
/// file (a device such as /dev/zero, a pipe, a directory); OSC_ERR_PARSE with the byte offset for a
/// wrong magic or version, inconsistent sizes, truncation, a bad checksum or a region beyond
/// OSC_MESH_MAX_COORDINATE; OSC_ERR_INVALID_ARGUMENT for a NULL path or out.
OSC_API osc_status osc_grid_load(const char* path, osc_grid** out);

/// Loads a grid from `size` bytes at `data` (same format and errors, never reading past `size`).
OSC_API osc_status osc_grid_load_memory(const void* data, size_t size, osc_grid** out);

// ---------------------------------------------------------------------------------------------
// collision meshes (Beker et al. 2026 §IV-A)

/// Settings of osc_collision_mesh_create; get them from osc_collision_mesh_settings_default().
typedef struct osc_collision_mesh_settings {
    int resolution;           ///< marching-cubes cells along the longest axis (default 96)
    int32_t target_triangles; ///< triangle count to simplify down to (default 2000; 0: no
                              ///< simplification)
    double max_error;         ///< no collapse whose quadric error (a distance) exceeds this fraction
                              ///< of the bounds' longest side (default 0.01)
    int project_iterations;   ///< Newton steps p <- p - phi(p) grad phi / |grad phi|^2 onto the
                              ///< zero level set after simplification (default 0)
    int threads;              ///< threads for sampling (0: default; clamped to OSC_MAX_THREADS)
} osc_collision_mesh_settings;

/// Returns the default collision-mesh settings.
OSC_API osc_collision_mesh_settings osc_collision_mesh_settings_default(void);

/// Creates the collision mesh of a (bounded) SDF: its zero level set by marching cubes, simplified by
/// osc_mesh_simplify to at most `target_triangles` well-shaped triangles (or fewer collapses where
/// `max_error` stops them) and optionally projected onto the level set. A closed iso-surface gives a
/// closed mesh with the same Euler characteristic. OSC_ERR_INVALID_ARGUMENT when the SDF's samples
/// never change sign (it has no inside, or one thinner than a cell): there is no surface to mesh.
OSC_API osc_status osc_collision_mesh_create(const osc_sdf* sdf, const osc_collision_mesh_settings* settings,
                                             osc_mesh** out);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_GRID_H
