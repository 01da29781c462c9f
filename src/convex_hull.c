// convex_hull.c: DCOL polytopes from a point cloud through its convex hull, computed by qhull's
// reentrant C library (libqhull_r) with its default merging of coplanar facets: the hull itself,
// or a polytope of at most a given number of faces that contains it (docs/dcol.md §2.1). Built
// only when CMake finds qhull; otherwise both constructors report OSC_ERR_UNSUPPORTED.

#include "convex_internal.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef OSC_HAVE_QHULL
#include <libqhull_r/qhull_ra.h>
#endif

static osc_status check_points(const char* function, const double* points, int count, osc_convex** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!points || count < 4)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s", function,
                        points ? "a hull needs at least 4 points" : "points is NULL");
    for (size_t i = 0; i < 3 * (size_t)count; ++i) {
        if (!isfinite(points[i]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: point %zu is not finite", function, i / 3);
        if (!(fabs(points[i]) <= OSC_CONVEX_MAX_LENGTH))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: point %zu has the coordinate %g; a length must lie in [%g, %g]", function, i / 3,
                            points[i], OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH);
    }
    return OSC_OK;
}

// The hull's facets: unit outward normals [facets][3] and offsets, n . y <= b inside, in one
// allocation (*normals; offsets after them) that the caller frees. The origin must be strictly
// inside (every b > 0). OSC_ERR_UNSUPPORTED without qhull.
static osc_status hull_facets(const char* function, const double* points, int count, double** normals, double** offsets,
                              int* facets) {
    *normals = NULL;
    *offsets = NULL;
    *facets = 0;
#ifndef OSC_HAVE_QHULL
    (void)points;
    (void)count;
    return osc_fail(OSC_ERR_UNSUPPORTED, "%s: osculate was built without qhull", function);
#else
    coordT* copy = osc_alloc(sizeof(coordT) * 3 * (size_t)count);
    if (!copy) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    for (size_t i = 0; i < 3 * (size_t)count; ++i) copy[i] = points[i];
    FILE* quiet = fopen("/dev/null", "w");
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, quiet);
    char command[] = "qhull";
    int exit_code = qh_new_qhull(qh, 3, count, copy, False, command, NULL, quiet);
    osc_status status = OSC_OK;
    if (exit_code != 0) {
        status = osc_fail(OSC_ERR_INVALID_ARGUMENT,
                          "%s: qhull could not build a hull of the %d points (flat or repeated?)", function, count);
    } else {
        double* planes = osc_alloc(sizeof(double) * 4 * (size_t)qh->num_facets);
        if (!planes) status = osc_fail_in(function, OSC_ERR_NO_MEMORY);
        int found = 0;
        facetT* facet;
        FORALLfacets {
            if (status != OSC_OK || found == qh->num_facets) break;
            // qhull's plane: normal . p + offset = 0, outward unit normal
            for (int k = 0; k < 3; ++k) planes[3 * found + k] = facet->normal[k];
            planes[3 * qh->num_facets + found] = -facet->offset;
            if (!(-facet->offset > 0.0))
                status = osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                  "%s: the origin is not strictly inside the hull (facet %d at "
                                  "distance %g)",
                                  function, found, -facet->offset);
            ++found;
        }
        if (status == OSC_OK) {
            // the offsets follow the normals of all num_facets; close the gap if fewer were listed
            memmove(planes + 3 * found, planes + 3 * qh->num_facets, sizeof(double) * (size_t)found);
            *normals = planes;
            *offsets = planes + 3 * found;
            *facets = found;
        } else {
            osc_free(planes);
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int current_long = 0, total_long = 0;
    qh_memfreeshort(qh, &current_long, &total_long);
    if (quiet) fclose(quiet);
    osc_free(copy);
    return status;
#endif
}

osc_status osc_convex_create_hull(const double* points, int count, osc_convex** out) {
    osc_status status = check_points(__func__, points, count, out);
    if (status != OSC_OK) return status;
    double *normals, *offsets;
    int facets;
    status = hull_facets(__func__, points, count, &normals, &offsets, &facets);
    if (status != OSC_OK) return status;
    if (facets > OSC_CONVEX_MAX_FACES)
        status = osc_fail(OSC_ERR_CAPACITY,
                          "%s: the hull has %d facets; at most %d (osc_convex_create_hull_bounded "
                          "makes a polytope of fewer faces that contains it)",
                          __func__, facets, OSC_CONVEX_MAX_FACES);
    else
        status = convex_make_polytope(__func__, normals, offsets, facets, out);
    osc_free(normals);
    return status;
}

// the largest n_f . v - b_f over the corners v [corner_count][3] and the hull's facets f, and the
// facet where it is reached
static double farthest_beyond(const double* corners, int corner_count, const double* normals, const double* offsets,
                              int facets, int* facet) {
    double worst = -INFINITY;
    *facet = -1;
    for (int f = 0; f < facets; ++f) {
        const double* n = normals + 3 * f;
        for (int v = 0; v < corner_count; ++v) {
            const double* y = corners + 3 * v;
            double beyond = n[0] * y[0] + n[1] * y[1] + n[2] * y[2] - offsets[f];
            if (beyond > worst) {
                worst = beyond;
                *facet = f;
            }
        }
    }
    return worst;
}

osc_status osc_convex_create_hull_bounded(const double* points, int count, int max_faces, double* excess,
                                          osc_convex** out) {
    osc_status status = check_points(__func__, points, count, out);
    if (status != OSC_OK) return status;
    if (excess) *excess = 0.0;
    if (max_faces < 6 || max_faces > OSC_CONVEX_MAX_FACES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: max_faces is %d; it must lie in 6..%d", __func__, max_faces,
                        OSC_CONVEX_MAX_FACES);
    double *hull_normals, *hull_offsets;
    int facets;
    status = hull_facets(__func__, points, count, &hull_normals, &hull_offsets, &facets);
    if (status != OSC_OK) return status;
    if (facets <= max_faces) {
        status = convex_make_polytope(__func__, hull_normals, hull_offsets, facets, out);
        osc_free(hull_normals);
        return status;
    }
    // The box of the points' extents (six planes that support the hull), then, one at a time,
    // the hull facet whose plane a corner of the current polytope lies farthest beyond, which cuts
    // that corner off. Every plane supports the hull, so the polytope contains it throughout.
    double normals[OSC_CONVEX_MAX_FACES * 3] = {0}, offsets[OSC_CONVEX_MAX_FACES];
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            int face = 2 * axis + side;
            double sign = side == 0 ? 1.0 : -1.0, support = -INFINITY;
            for (size_t i = 0; i < (size_t)count; ++i) support = fmax(support, sign * points[3 * i + axis]);
            normals[3 * face + axis] = sign;
            offsets[face] = support;
        }
    double size = 0.0;
    for (int f = 0; f < 6; ++f) size = fmax(size, offsets[f]);
    double corners[2 * OSC_CONVEX_MAX_FACES * 3];
    int faces = 6;
    double worst = 0.0;
    for (;;) {
        int corner_count = convex_polytope_vertices(normals, offsets, faces, corners, 2 * OSC_CONVEX_MAX_FACES);
        int facet;
        worst = farthest_beyond(corners, corner_count, hull_normals, hull_offsets, facets, &facet);
        if (faces == max_faces || !(worst > 1e-9 * size) || facet < 0) break;
        for (int k = 0; k < 3; ++k) normals[3 * faces + k] = hull_normals[3 * facet + k];
        offsets[faces++] = hull_offsets[facet];
    }
    osc_free(hull_normals);
    // (corners within the enumeration's 1e-9 of the size of every facet: the hull itself)
    if (excess) *excess = worst > 1e-9 * size ? worst : 0.0;
    return convex_make_polytope(__func__, normals, offsets, faces, out);
}
