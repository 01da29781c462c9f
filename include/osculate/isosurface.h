// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// isosurface.h: marching cubes, turning any SDF into a triangle mesh (Beker et al. 2026 §IV-A, where the
// collision SDF is converted into an iso-surface mesh).
//
// SUMMARY
// The SDF is sampled at the corners of a grid of cubic cells (in parallel); each cell's part of
// the iso-surface is built from its edge crossings. Face ambiguities are resolved by the
// asymptotic decider from the four values of the face, which both cells sharing the face see
// identically, so the output has no cracks: on a closed iso-surface inside the region every edge
// is shared by exactly two triangles with opposite orientations. Triangles are counter-clockwise
// seen from outside (the side where phi > iso_value). Vertices on shared cell edges are shared.
//
// NUMERIC ROBUSTNESS
// A corner is inside when phi < iso_value; a value exactly equal to iso_value counts as outside,
// so the sign pattern of every cell is well defined. A crossing is kept strictly inside its edge
// (at least 1e-6 of the edge from either corner), so no two vertices coincide and no triangle is
// ever dropped: the topology guarantees above hold exactly.

#ifndef OSCULATE_ISOSURFACE_H
#define OSCULATE_ISOSURFACE_H

#include "osculate/base.h"
#include "osculate/math.h"
#include "osculate/mesh.h"
#include "osculate/sdf.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Settings of osc_isosurface_extract; get them from osc_isosurface_settings_default().
typedef struct osc_isosurface_settings {
    osc_vec3 lo, hi;  ///< region to mesh; when lo > hi on any axis (the default), the SDF's
                      ///< bounds grown by `padding` on every side
    double padding;   ///< absolute margin around the SDF's bounds (default 0: two cells)
    int resolution;   ///< number of cells along the longest axis of the region (default 64, >= 2)
    double iso_value; ///< level to extract (default 0)
    int threads;      ///< threads for sampling (0: osc_default_thread_count(); clamped to
                      ///< OSC_MAX_THREADS)
} osc_isosurface_settings;

/// Returns the default settings: region from the SDF's bounds with a two-cell margin, 64 cells
/// along the longest axis, level 0, default threads.
OSC_API osc_isosurface_settings osc_isosurface_settings_default(void);

/// Extracts the iso-surface {phi = iso_value} of `sdf` with `settings` (NULL: the defaults) by
/// marching cubes into a new mesh written to `out`. Fails with OSC_ERR_INVALID_ARGUMENT, naming
/// the argument and its value, for a NULL sdf or out, a region that is unbounded (half-spaces: give
/// lo and hi), not finite or beyond OSC_MESH_MAX_COORDINATE (padding and iso_value included), a
/// resolution < 2 or one that would exceed 2^20 corners along an axis or 2^31 per slab, and
/// OSC_ERR_NO_MEMORY when allocation fails. An empty iso-surface gives an empty mesh.
OSC_API osc_status osc_isosurface_extract(const osc_sdf* sdf, const osc_isosurface_settings* settings, osc_mesh** out);

#ifdef __cplusplus
}
#endif

#endif // OSCULATE_ISOSURFACE_H
