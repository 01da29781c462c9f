// mesh_groups.c: convex groups of a collision mesh (Beker et al. 2026 §IV-D.1): vertices are assigned to the
// convex primitive they lie inside of, edges to every primitive they touch. Three sources of
// groups: the parts of a convex decomposition (osc_mesh_groups_from_hulls; tools/coacd_hulls.py
// writes them with CoACD), deterministic k-means on the vertex positions when no decomposition is
// at hand (osc_mesh_groups_cluster), and the primitive leaves of an SDF tree (elsewhere).
//
// NUMERIC ROBUSTNESS
// - Hull planes are computed from edge vectors scaled by a power of two, so no cross product
//   overflows whatever the coordinates; degenerate triangles (collinear corners, by
//   mesh_cross_is_zero) give no plane. Signed plane distances are evaluated on coordinates divided
//   by 4 (exact for normal numbers), which keeps them finite for any finite input: only their
//   order matters.
// - A hull whose centroid lies on one of its planes (a flat hull) gets that plane in both
//   orientations, i.e. a slab of zero thickness.
// - k-means runs on positions moved to the centre of their bounding box and scaled by a power of
//   two into [-1, 1], so sums and squared distances cannot overflow.

#include "mesh_internal.h"

#include <string.h>

enum {
    CLUSTER_MAX_ITERATIONS = 100 // Lloyd iterations of osc_mesh_groups_cluster, at most
};

// ---------------------------------------------------------------------------------------------
// groups from convex hulls

// a face plane of a hull: unit outward normal and a point on it, divided by 4
typedef struct hull_plane {
    double normal[3];
    double point[3];
} hull_plane;

// the unit normal of triangle (a, b, c) in `normal`, from edge vectors of halved coordinates (so
// they cannot overflow; exact for normal numbers) scaled by a power of two into [-1, 1]; false
// when the triangle is degenerate
static bool triangle_normal(const double* a, const double* b, const double* c, double normal[3]) {
    double u[3], v[3], scale = 0.0;
    for (int axis = 0; axis < 3; ++axis) {
        u[axis] = 0.5 * b[axis] - 0.5 * a[axis];
        v[axis] = 0.5 * c[axis] - 0.5 * a[axis];
        scale = fmax(scale, fmax(fabs(u[axis]), fabs(v[axis])));
    }
    if (!(scale > 0.0)) return false;
    int exponent = 0;
    frexp(scale, &exponent);
    for (int axis = 0; axis < 3; ++axis) {
        u[axis] = ldexp(u[axis], -exponent);
        v[axis] = ldexp(v[axis], -exponent);
    }
    if (mesh_cross_is_zero(u, v)) return false;
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double largest = fmax(fabs(n[0]), fmax(fabs(n[1]), fabs(n[2])));
    if (!(largest > 0.0)) return false;
    for (int axis = 0; axis < 3; ++axis) n[axis] /= largest;
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int axis = 0; axis < 3; ++axis) normal[axis] = n[axis] / length;
    return true;
}

// the signed distance of `quarter` (a point divided by 4) from a plane, divided by 4
static inline double plane_distance(const hull_plane* plane, const double quarter[3]) {
    return plane->normal[0] * (quarter[0] - plane->point[0]) + plane->normal[1] * (quarter[1] - plane->point[1]) +
           plane->normal[2] * (quarter[2] - plane->point[2]);
}

// checks hull `index`: not NULL, with triangles and finite vertices
static osc_status check_hull(const osc_mesh* hull, int32_t index) {
    const char* function = "osc_mesh_groups_from_hulls";
    if (!hull) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hulls[%d] is NULL", function, (int)index);
    if (osc_mesh_triangle_count(hull) < 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hulls[%d] has no triangles", function, (int)index);
    const double* vertices = osc_mesh_vertices(hull);
    for (int32_t v = 0; v < osc_mesh_vertex_count(hull); ++v) {
        const double* p = vertices + 3 * (size_t)v;
        if (!osc_is_finite3(p[0], p[1], p[2]))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hulls[%d] vertex %d is not finite (%g, %g, %g)", function,
                            (int)index, (int)v, p[0], p[1], p[2]);
    }
    return OSC_OK;
}

// writes the outward face planes of `hull` to `planes` (room for 2 per triangle: a plane through
// the centroid is kept in both orientations) and returns how many
static size_t hull_planes(const osc_mesh* hull, hull_plane* planes) {
    int32_t vertex_count = osc_mesh_vertex_count(hull), triangle_count = osc_mesh_triangle_count(hull);
    const double* vertices = osc_mesh_vertices(hull);
    const int32_t* triangles = osc_mesh_triangles(hull);
    // the vertex centroid and the size of the bounding box, divided by 4
    double centroid[3] = {0.0, 0.0, 0.0}, lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) lo[axis] = INFINITY, hi[axis] = -INFINITY;
    for (int32_t v = 0; v < vertex_count; ++v) {
        for (int axis = 0; axis < 3; ++axis) {
            double x = 0.25 * vertices[3 * (size_t)v + (size_t)axis];
            centroid[axis] += x / vertex_count;
            lo[axis] = fmin(lo[axis], x);
            hi[axis] = fmax(hi[axis], x);
        }
    }
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double on_plane = 64.0 * DBL_EPSILON * extent; // the centroid's rounding error, generously
    size_t count = 0;
    for (int32_t t = 0; t < triangle_count; ++t) {
        const int32_t* corner = triangles + 3 * (size_t)t;
        const double* a = vertices + 3 * (size_t)corner[0];
        hull_plane plane;
        if (!triangle_normal(a, vertices + 3 * (size_t)corner[1], vertices + 3 * (size_t)corner[2], plane.normal))
            continue;
        for (int axis = 0; axis < 3; ++axis) plane.point[axis] = 0.25 * a[axis];
        double side = plane_distance(&plane, centroid);
        if (side > on_plane || side < -on_plane) {
            if (side > 0.0) // the centroid is in front: the normal points inward
                for (int axis = 0; axis < 3; ++axis) plane.normal[axis] = -plane.normal[axis];
            planes[count++] = plane;
        } else {
            planes[count++] = plane;
            for (int axis = 0; axis < 3; ++axis) plane.normal[axis] = -plane.normal[axis];
            planes[count++] = plane;
        }
    }
    return count;
}

// the group of vertex `point`: the hull with the smallest max signed plane distance, ties to the
// lower index; `first` [hull_count + 1] delimits each hull's planes
static int32_t nearest_hull(const double* point, const hull_plane* planes, const size_t* first, int32_t hull_count) {
    double quarter[3] = {0.25 * point[0], 0.25 * point[1], 0.25 * point[2]};
    double best = INFINITY;
    int32_t best_hull = 0;
    for (int32_t h = 0; h < hull_count; ++h) {
        double worst = -INFINITY;
        for (size_t p = first[h]; p < first[h + 1] && worst < best; ++p)
            worst = fmax(worst, plane_distance(planes + p, quarter));
        if (worst < best) { // a hull that reached `best` cannot win: ties go to the lower index
            best = worst;
            best_hull = h;
        }
    }
    return best_hull;
}

osc_status osc_mesh_groups_from_hulls(const osc_mesh* mesh, const osc_mesh* const* hulls, int32_t hull_count,
                                      int32_t* vertex_groups) {
    const char* function = "osc_mesh_groups_from_hulls";
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: mesh is NULL", function);
    if (!hulls) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hulls is NULL", function);
    if (!vertex_groups) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: vertex_groups is NULL", function);
    if (hull_count < 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hull_count is %d (must be >= 1)", function, (int)hull_count);
    size_t capacity = 0;
    for (int32_t h = 0; h < hull_count; ++h) {
        osc_status status = check_hull(hulls[h], h);
        if (status != OSC_OK) return status;
        capacity += 2 * (size_t)osc_mesh_triangle_count(hulls[h]);
    }
    hull_plane* planes = osc_calloc(capacity, sizeof *planes);
    size_t* first = planes ? osc_calloc((size_t)hull_count + 1, sizeof *first) : NULL;
    if (!first) {
        osc_free(planes);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    for (int32_t h = 0; h < hull_count; ++h) {
        size_t count = hull_planes(hulls[h], planes + first[h]);
        if (count == 0) {
            osc_free(first);
            osc_free(planes);
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: hulls[%d] has no triangle that is not degenerate", function,
                            (int)h);
        }
        first[h + 1] = first[h] + count;
    }
    const double* vertices = osc_mesh_vertices(mesh);
    for (int32_t v = 0; v < osc_mesh_vertex_count(mesh); ++v)
        vertex_groups[v] = nearest_hull(vertices + 3 * (size_t)v, planes, first, hull_count);
    osc_free(first);
    osc_free(planes);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// groups by k-means

// copies `vertices` [count][3] to `points`, moved to the centre of their bounding box and scaled
// by a power of two into [-1, 1]
static void normalise_points(const double* vertices, int32_t count, double* points) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < count; ++i)
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = fmin(lo[axis], vertices[3 * (size_t)i + (size_t)axis]);
            hi[axis] = fmax(hi[axis], vertices[3 * (size_t)i + (size_t)axis]);
        }
    double centre[3], half = 0.0;
    for (int axis = 0; axis < 3; ++axis) {
        centre[axis] = 0.5 * lo[axis] + 0.5 * hi[axis];
        half = fmax(half, fmax(hi[axis] - centre[axis], centre[axis] - lo[axis]));
    }
    int exponent = 0;
    if (half > 0.0) frexp(half, &exponent);
    for (size_t i = 0; i < 3 * (size_t)count; ++i) points[i] = ldexp(vertices[i] - centre[i % 3], -exponent);
}

static inline double squared_distance(const double* a, const double* b) {
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

// farthest-point seeding: the first seed is the point nearest the centroid, each next one the
// point farthest from the seeds so far (ties to the lower index); writes the seeds' positions to
// `centroids` [k][3]; `nearest` is scratch [count]
static void seed_clusters(const double* points, int32_t count, int32_t k, double* centroids, double* nearest) {
    double mean[3] = {0.0, 0.0, 0.0};
    for (int32_t i = 0; i < count; ++i)
        for (int axis = 0; axis < 3; ++axis) mean[axis] += points[3 * (size_t)i + (size_t)axis];
    for (int axis = 0; axis < 3; ++axis) mean[axis] /= count;
    int32_t seed = 0;
    double best = INFINITY;
    for (int32_t i = 0; i < count; ++i) {
        double d = squared_distance(points + 3 * (size_t)i, mean);
        if (d < best) best = d, seed = i;
    }
    for (int32_t i = 0; i < count; ++i) nearest[i] = INFINITY;
    for (int32_t c = 0; c < k; ++c) {
        memcpy(centroids + 3 * (size_t)c, points + 3 * (size_t)seed, 3 * sizeof *centroids);
        nearest[seed] = -1.0; // chosen: never again, even where every point left is a duplicate
        int32_t next = seed;
        double farthest = -1.0;
        for (int32_t i = 0; i < count; ++i) {
            if (nearest[i] < 0.0) continue;
            nearest[i] = fmin(nearest[i], squared_distance(points + 3 * (size_t)i, centroids + 3 * (size_t)c));
            if (nearest[i] > farthest) farthest = nearest[i], next = i;
        }
        seed = next;
    }
}

// assigns every point to its nearest centroid (ties to the lower index); returns how many changed
static int32_t assign_points(const double* points, int32_t count, const double* centroids, int32_t k, int32_t* groups) {
    int32_t changed = 0;
    for (int32_t i = 0; i < count; ++i) {
        const double* p = points + 3 * (size_t)i;
        int32_t best_group = 0;
        double best = squared_distance(p, centroids);
        for (int32_t c = 1; c < k; ++c) {
            double d = squared_distance(p, centroids + 3 * (size_t)c);
            if (d < best) best = d, best_group = c;
        }
        changed += groups[i] != best_group;
        groups[i] = best_group;
    }
    return changed;
}

// moves every centroid to the mean of its points (an empty cluster keeps its centroid);
// `sizes` is scratch [k]
static void update_centroids(const double* points, int32_t count, const int32_t* groups, int32_t k, double* centroids,
                             int32_t* sizes) {
    memset(sizes, 0, (size_t)k * sizeof *sizes);
    for (int32_t i = 0; i < count; ++i) ++sizes[groups[i]];
    for (int32_t c = 0; c < k; ++c)
        if (sizes[c] > 0)
            for (int axis = 0; axis < 3; ++axis) centroids[3 * (size_t)c + (size_t)axis] = 0.0;
    for (int32_t i = 0; i < count; ++i)
        for (int axis = 0; axis < 3; ++axis)
            centroids[3 * (size_t)groups[i] + (size_t)axis] += points[3 * (size_t)i + (size_t)axis];
    for (int32_t c = 0; c < k; ++c)
        if (sizes[c] > 0)
            for (int axis = 0; axis < 3; ++axis) centroids[3 * (size_t)c + (size_t)axis] /= sizes[c];
}

// renumbers the groups 0.. in order of first point, dropping empty ones; returns how many are
// left; `relabel` is scratch [k]
static int32_t renumber_groups(int32_t* groups, int32_t count, int32_t k, int32_t* relabel) {
    for (int32_t c = 0; c < k; ++c) relabel[c] = -1;
    int32_t next = 0;
    for (int32_t i = 0; i < count; ++i) {
        if (relabel[groups[i]] < 0) relabel[groups[i]] = next++;
        groups[i] = relabel[groups[i]];
    }
    return next;
}

osc_status osc_mesh_groups_cluster(const osc_mesh* mesh, int32_t group_count, int32_t* vertex_groups,
                                   int32_t* out_count) {
    const char* function = "osc_mesh_groups_cluster";
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: mesh is NULL", function);
    if (!vertex_groups) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: vertex_groups is NULL", function);
    if (group_count < 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: group_count is %d (must be >= 1)", function, (int)group_count);
    int32_t count = osc_mesh_vertex_count(mesh);
    if (group_count >= count) { // one vertex each (none for an empty mesh)
        for (int32_t i = 0; i < count; ++i) vertex_groups[i] = i;
        if (out_count) *out_count = count;
        return OSC_OK;
    }
    int32_t k = group_count;
    // scratch: points [count][3], nearest [count], centroids [k][3]; sizes [k], relabel [k]
    double* scratch = osc_calloc(4 * (size_t)count + 3 * (size_t)k, sizeof *scratch);
    int32_t* sizes = scratch ? osc_calloc(2 * (size_t)k, sizeof *sizes) : NULL;
    if (!sizes) {
        osc_free(scratch);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    double *points = scratch, *nearest = points + 3 * (size_t)count, *centroids = nearest + count;
    normalise_points(osc_mesh_vertices(mesh), count, points);
    seed_clusters(points, count, k, centroids, nearest);
    for (int32_t i = 0; i < count; ++i) vertex_groups[i] = -1;
    assign_points(points, count, centroids, k, vertex_groups);
    for (int iteration = 0; iteration < CLUSTER_MAX_ITERATIONS; ++iteration) {
        update_centroids(points, count, vertex_groups, k, centroids, sizes);
        if (assign_points(points, count, centroids, k, vertex_groups) == 0) break;
    }
    int32_t groups = renumber_groups(vertex_groups, count, k, sizes + k);
    osc_free(sizes);
    osc_free(scratch);
    if (out_count) *out_count = groups;
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// edge groups

osc_status osc_mesh_edge_groups(const osc_mesh* mesh, const int32_t* vertex_groups, int32_t* edge_groups) {
    const char* function = "osc_mesh_edge_groups";
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: mesh is NULL", function);
    if (!vertex_groups) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: vertex_groups is NULL", function);
    if (!edge_groups) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: edge_groups is NULL", function);
    for (int32_t v = 0; v < osc_mesh_vertex_count(mesh); ++v)
        if (vertex_groups[v] < 0)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: vertex_groups[%d] is negative (%d)", function, (int)v,
                            (int)vertex_groups[v]);
    const int32_t* edges = osc_mesh_edges(mesh);
    for (int32_t e = 0; e < osc_mesh_edge_count(mesh); ++e) {
        int32_t first = vertex_groups[edges[2 * (size_t)e]];
        int32_t second = vertex_groups[edges[2 * (size_t)e + 1]];
        edge_groups[2 * (size_t)e] = first;
        edge_groups[2 * (size_t)e + 1] = second == first ? -1 : second;
    }
    return OSC_OK;
}
