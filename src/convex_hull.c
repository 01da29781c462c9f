// convex_hull.c: a DCOL polytope from a point cloud through its convex hull, computed by qhull's
// reentrant C library (libqhull_r) with its default merging of coplanar facets. Built only when
// CMake finds qhull; otherwise osc_convex_create_hull reports OSC_ERR_UNSUPPORTED.

#include "convex_internal.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef OSC_HAVE_QHULL
#include <libqhull_r/qhull_ra.h>
#endif

osc_status osc_convex_create_hull(const double* points, int count, osc_convex** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", __func__);
    *out = NULL;
    if (!points || count < 4)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s", __func__,
                        points ? "a hull needs at least 4 points" : "points is NULL");
    for (int i = 0; i < 3 * count; ++i)
        if (!isfinite(points[i]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: point %d is not finite", __func__, i / 3);
#ifndef OSC_HAVE_QHULL
    return osc_fail(OSC_ERR_UNSUPPORTED, "%s: osculate was built without qhull", __func__);
#else
    coordT* copy = osc_alloc(sizeof(coordT) * 3 * (size_t)count);
    if (!copy) return osc_fail_in(__func__, OSC_ERR_NO_MEMORY);
    for (int i = 0; i < 3 * count; ++i) copy[i] = points[i];
    FILE* quiet = fopen("/dev/null", "w");
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, quiet);
    char command[] = "qhull";
    int exit_code = qh_new_qhull(qh, 3, count, copy, False, command, NULL, quiet);
    osc_status status = OSC_OK;
    double normals[OSC_CONVEX_MAX_FACES * 3], offsets[OSC_CONVEX_MAX_FACES];
    int faces = 0;
    if (exit_code != 0) {
        status = osc_fail(OSC_ERR_INVALID_ARGUMENT,
                          "%s: qhull could not build a hull of the %d points (flat or repeated?)",
                          __func__, count);
    } else {
        facetT* facet;
        FORALLfacets {
            if (faces == OSC_CONVEX_MAX_FACES) {
                status = osc_fail(OSC_ERR_CAPACITY, "%s: the hull has %d facets; at most %d",
                                  __func__, qh->num_facets, OSC_CONVEX_MAX_FACES);
                break;
            }
            // qhull's plane: normal . p + offset = 0, outward unit normal
            for (int k = 0; k < 3; ++k) normals[3 * faces + k] = facet->normal[k];
            offsets[faces] = -facet->offset;
            if (!(offsets[faces] > 0.0)) {
                status = osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                  "%s: the origin is not strictly inside the hull (facet %d at "
                                  "distance %g)", __func__, faces, offsets[faces]);
                break;
            }
            ++faces;
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int current_long = 0, total_long = 0;
    qh_memfreeshort(qh, &current_long, &total_long);
    if (quiet) fclose(quiet);
    osc_free(copy);
    if (status != OSC_OK) return status;
    return convex_make_polytope(__func__, normals, offsets, faces, out);
#endif
}
