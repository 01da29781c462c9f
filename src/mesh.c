// mesh.c: the triangle mesh container (copies of vertices and triangles, validated on creation),
// its unique edges with their adjacent triangles and its topology (computed once, at creation),
// its enclosed volume and area, and the Wavefront OBJ writer.

#include "osculate/mesh.h"

#include "base_internal.h"
#include "mesh_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct osc_mesh {
    double* vertices;        // [vertex_count][3]; NULL when empty
    int32_t* triangles;      // [triangle_count][3], 0-based; NULL when empty
    int32_t* edges;          // [edge_count][2], edges[e][0] < edges[e][1]; NULL without triangles
    int32_t* edge_triangles; // [edge_count][2], the first two adjacent triangles, -1 when fewer
    int32_t* triangle_edges; // [triangle_count][3], edge of corner k -> k + 1
    int32_t vertex_count;
    int32_t triangle_count;
    int32_t edge_count;
    osc_mesh_topology topology;
};

// ---------------------------------------------------------------------------------------------
// validation (every failure names the argument and the element)

// checks the counts and that a non-empty array is not NULL
static osc_status check_arrays(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                               int32_t triangle_count) {
    if (vertex_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: vertex_count is negative (%d)", (int)vertex_count);
    if (triangle_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: triangle_count is negative (%d)",
                        (int)triangle_count);
    if (triangle_count > OSC_MESH_MAX_TRIANGLES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: triangle_count %d exceeds the maximum %d",
                        (int)triangle_count, (int)OSC_MESH_MAX_TRIANGLES);
    if (!vertices && vertex_count > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: vertices is NULL with vertex_count %d",
                        (int)vertex_count);
    if (!triangles && triangle_count > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: triangles is NULL with triangle_count %d",
                        (int)triangle_count);
    return OSC_OK;
}

// checks that every coordinate is finite and within OSC_MESH_MAX_COORDINATE
static osc_status check_vertices(const double* vertices, int32_t vertex_count) {
    for (int32_t i = 0; i < vertex_count; ++i) {
        for (int axis = 0; axis < 3; ++axis) {
            double value = vertices[3 * (size_t)i + (size_t)axis];
            if (!isfinite(value))
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_mesh_create: vertices[%d] coordinate %d is not finite (%g)", (int)i, axis, value);
            if (fabs(value) > OSC_MESH_MAX_COORDINATE)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_mesh_create: vertices[%d] coordinate %d = %g exceeds "
                                "OSC_MESH_MAX_COORDINATE (%g)",
                                (int)i, axis, value, OSC_MESH_MAX_COORDINATE);
        }
    }
    return OSC_OK;
}

// checks that every index is in range and that no triangle repeats a vertex
static osc_status check_triangles(const int32_t* triangles, int32_t triangle_count, int32_t vertex_count) {
    for (int32_t t = 0; t < triangle_count; ++t) {
        const int32_t* corner = triangles + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            if (corner[k] < 0 || corner[k] >= vertex_count)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_mesh_create: triangles[%d] index %d out of range [0, %d)", (int)t, (int)corner[k],
                                (int)vertex_count);
        }
        if (corner[0] == corner[1] || corner[1] == corner[2] || corner[2] == corner[0])
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_mesh_create: triangles[%d] = (%d, %d, %d) repeats a vertex index", (int)t,
                            (int)corner[0], (int)corner[1], (int)corner[2]);
    }
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// unique edges and topology

// true when the three vertices are collinear (mesh_cross_is_zero of two edges)
static bool triangle_is_degenerate(const double* a, const double* b, const double* c) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    return mesh_cross_is_zero(ab, ac);
}

// root of `vertex` in the union-find forest `parent`, halving the path on the way
static int32_t find_root(int32_t* parent, int32_t vertex) {
    while (parent[vertex] != vertex) {
        parent[vertex] = parent[parent[vertex]];
        vertex = parent[vertex];
    }
    return vertex;
}

// vertex counts of the topology: isolated vertices, and components of the triangles (a
// union-find over the vertices; `parent` is scratch [vertex_count], -1 marks an unused vertex)
static void count_components(osc_mesh* mesh, int32_t* parent) {
    for (int32_t v = 0; v < mesh->vertex_count; ++v) parent[v] = -1;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k)
            if (parent[corner[k]] < 0) parent[corner[k]] = corner[k];
        for (int k = 1; k < 3; ++k) {
            int32_t a = find_root(parent, corner[0]), b = find_root(parent, corner[k]);
            if (a < b)
                parent[b] = a;
            else if (b < a)
                parent[a] = b;
        }
    }
    osc_mesh_topology* topology = &mesh->topology;
    for (int32_t v = 0; v < mesh->vertex_count; ++v) {
        if (parent[v] < 0)
            ++topology->isolated_vertices;
        else if (parent[v] == v)
            ++topology->components;
    }
}

// the key of half-edge h = 3 t + k, from corner k of triangle t to corner (k + 1) % 3: its lower
// vertex index in the high 32 bits, the higher in the low 32 bits
static void half_edge_keys(const osc_mesh* mesh, uint64_t* keys) {
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            uint32_t a = (uint32_t)corner[k], b = (uint32_t)corner[(k + 1) % 3];
            keys[3 * (size_t)t + (size_t)k] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
        }
    }
}

// sorts the 3 T half-edges by (key, half-edge) into `sorted` with two stable counting sorts (by
// the higher vertex, then by the lower); `count` is scratch [vertex_count + 1], `by_hi` [3 T]
static void sort_half_edges(const osc_mesh* mesh, const uint64_t* keys, int32_t* count, int32_t* by_hi,
                            int32_t* sorted) {
    int32_t half_edges = 3 * mesh->triangle_count;
    for (int pass = 0; pass < 2; ++pass) {
        int shift = pass == 0 ? 0 : 32;
        memset(count, 0, ((size_t)mesh->vertex_count + 1) * sizeof *count);
        for (int32_t h = 0; h < half_edges; ++h) ++count[(uint32_t)(keys[h] >> shift) + 1];
        for (int32_t v = 0; v < mesh->vertex_count; ++v) count[v + 1] += count[v];
        const int32_t* from = pass == 0 ? NULL : by_hi;
        int32_t* to = pass == 0 ? by_hi : sorted;
        for (int32_t i = 0; i < half_edges; ++i) {
            int32_t h = from ? from[i] : i;
            to[count[(uint32_t)(keys[h] >> shift)]++] = h;
        }
    }
}

// the edge counts of the topology for one run of `count` half-edges sharing an edge
static void count_edge_run(osc_mesh* mesh, const int32_t* run, int32_t count) {
    osc_mesh_topology* topology = &mesh->topology;
    if (count == 1) ++topology->boundary_edges;
    if (count > 2) ++topology->non_manifold_edges;
    if (count == 2) {
        // both forward (from the lower index) or both backward: the same direction
        bool forward[2];
        for (int i = 0; i < 2; ++i) {
            const int32_t* corner = mesh->triangles + 3 * (size_t)(run[i] / 3);
            forward[i] = corner[run[i] % 3] < corner[(run[i] % 3 + 1) % 3];
        }
        if (forward[0] == forward[1]) ++topology->inconsistent_edges;
    }
}

// computes the unique edges (lexicographic), their adjacent triangles, the triangle-to-edge map
// and the topology; leaves the mesh unchanged on failure
static osc_status build_edges(osc_mesh* mesh) {
    int32_t vertex_count = mesh->vertex_count, half_edges = 3 * mesh->triangle_count;
    // scratch: keys [3 T] (uint64), then count [V + 1] (later the union-find parents [V]),
    // by_hi [3 T] and sorted [3 T]
    size_t ints = (size_t)vertex_count + 1 + 2 * (size_t)half_edges;
    uint64_t* keys = osc_calloc((size_t)half_edges + (ints + 1) / 2, sizeof(uint64_t));
    if (!keys) return OSC_ERR_NO_MEMORY;
    int32_t* count = (int32_t*)(keys + half_edges);
    int32_t *by_hi = count + vertex_count + 1, *sorted = by_hi + half_edges;
    half_edge_keys(mesh, keys);
    sort_half_edges(mesh, keys, count, by_hi, sorted);

    int32_t edge_count = 0;
    for (int32_t i = 0; i < half_edges; ++i) edge_count += i == 0 || keys[sorted[i]] != keys[sorted[i - 1]];
    int32_t *edges = NULL, *edge_triangles = NULL, *triangle_edges = NULL;
    if (edge_count > 0) { // (no triangles: no arrays)
        edges = osc_calloc(2 * (size_t)edge_count, sizeof(int32_t));
        edge_triangles = edges ? osc_calloc(2 * (size_t)edge_count, sizeof(int32_t)) : NULL;
        triangle_edges = edge_triangles ? osc_calloc((size_t)half_edges, sizeof(int32_t)) : NULL;
    }
    if (edge_count > 0 && !triangle_edges) {
        osc_free(edges);
        osc_free(edge_triangles);
        osc_free(keys);
        return OSC_ERR_NO_MEMORY;
    }

    memset(&mesh->topology, 0, sizeof mesh->topology);
    for (int32_t i = 0, e = 0; i < half_edges; ++e) {
        uint64_t key = keys[sorted[i]];
        int32_t end = i + 1;
        while (end < half_edges && keys[sorted[end]] == key) ++end;
        edges[2 * e] = (int32_t)(key >> 32);
        edges[2 * e + 1] = (int32_t)(key & 0xffffffffu);
        edge_triangles[2 * e] = sorted[i] / 3;
        edge_triangles[2 * e + 1] = end - i > 1 ? sorted[i + 1] / 3 : -1;
        for (int32_t j = i; j < end; ++j) triangle_edges[sorted[j]] = e;
        count_edge_run(mesh, sorted + i, end - i);
        i = end;
    }
    mesh->edges = edges;
    mesh->edge_triangles = edge_triangles;
    mesh->triangle_edges = triangle_edges;
    mesh->edge_count = edge_count;

    osc_mesh_topology* topology = &mesh->topology;
    count_components(mesh, count);
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        topology->degenerate_triangles +=
            triangle_is_degenerate(mesh->vertices + 3 * (size_t)corner[0], mesh->vertices + 3 * (size_t)corner[1],
                                   mesh->vertices + 3 * (size_t)corner[2]);
    }
    topology->vertex_count = vertex_count;
    topology->triangle_count = mesh->triangle_count;
    topology->edge_count = edge_count;
    topology->closed = mesh->triangle_count > 0 && topology->boundary_edges == 0 && topology->non_manifold_edges == 0 &&
                       topology->inconsistent_edges == 0;
    topology->euler_characteristic = (vertex_count - topology->isolated_vertices) - edge_count + mesh->triangle_count;
    osc_free(keys);
    return OSC_OK;
}

// puts the edges in the order a callback gives (order[new] = current index); checks that it is a
// permutation
static osc_status permute_edges(osc_mesh* mesh, osc_mesh_edge_order_fn order_edges, void* context) {
    size_t edge_count = (size_t)mesh->edge_count;
    // scratch: order [E], inverse [E]; new edges [E][2] and edge triangles [E][2]
    int32_t* scratch = osc_calloc(2 * edge_count, sizeof(int32_t));
    int32_t* edges = scratch ? osc_calloc(2 * edge_count, sizeof(int32_t)) : NULL;
    int32_t* edge_triangles = edges ? osc_calloc(2 * edge_count, sizeof(int32_t)) : NULL;
    if (!edge_triangles) {
        osc_free(scratch);
        osc_free(edges);
        return OSC_ERR_NO_MEMORY;
    }
    int32_t *order = scratch, *inverse = scratch + edge_count;
    osc_status status = order_edges(mesh, order, context);
    for (size_t e = 0; e < edge_count; ++e) inverse[e] = -1;
    for (size_t e = 0; !status && e < edge_count; ++e) {
        if (order[e] < 0 || (size_t)order[e] >= edge_count || inverse[order[e]] >= 0)
            status =
                osc_fail(OSC_ERR_INVALID_ARGUMENT, "edge order: entry %zu (%d) is not a permutation", e, (int)order[e]);
        else
            inverse[order[e]] = (int32_t)e;
    }
    if (status) {
        osc_free(scratch);
        osc_free(edges);
        osc_free(edge_triangles);
        return status;
    }
    for (size_t e = 0; e < edge_count; ++e) {
        memcpy(edges + 2 * e, mesh->edges + 2 * (size_t)order[e], 2 * sizeof(int32_t));
        memcpy(edge_triangles + 2 * e, mesh->edge_triangles + 2 * (size_t)order[e], 2 * sizeof(int32_t));
    }
    for (size_t h = 0; h < 3 * (size_t)mesh->triangle_count; ++h)
        mesh->triangle_edges[h] = inverse[mesh->triangle_edges[h]];
    osc_free(mesh->edges);
    osc_free(mesh->edge_triangles);
    mesh->edges = edges;
    mesh->edge_triangles = edge_triangles;
    osc_free(scratch);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// creation and accessors

// builds the edges of a mesh holding its arrays, orders them, and hands it out; destroys it on
// failure (the caller names itself in the message)
static osc_status finish_mesh(osc_mesh* mesh, osc_mesh_edge_order_fn order_edges, void* context, osc_mesh** out) {
    osc_status status = build_edges(mesh);
    if (!status && order_edges && mesh->edge_count > 0) status = permute_edges(mesh, order_edges, context);
    if (status) {
        osc_mesh_destroy(mesh);
        return status;
    }
    *out = mesh;
    return OSC_OK;
}

// validates the input, then copies it into a new mesh
osc_status osc_mesh_create(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                           int32_t triangle_count, osc_mesh** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: out is NULL");
    *out = NULL;
    osc_status status = check_arrays(vertices, vertex_count, triangles, triangle_count);
    if (!status) status = check_vertices(vertices, vertex_count);
    if (!status) status = check_triangles(triangles, triangle_count, vertex_count);
    if (status) return status;

    osc_mesh* mesh = osc_calloc(1, sizeof *mesh);
    if (!mesh) return osc_fail_in("osc_mesh_create", OSC_ERR_NO_MEMORY);
    if (vertex_count > 0) {
        mesh->vertices = osc_calloc((size_t)vertex_count, 3 * sizeof(double));
        if (!mesh->vertices) goto no_memory;
        memcpy(mesh->vertices, vertices, (size_t)vertex_count * 3 * sizeof(double));
    }
    if (triangle_count > 0) {
        mesh->triangles = osc_calloc((size_t)triangle_count, 3 * sizeof(int32_t));
        if (!mesh->triangles) goto no_memory;
        memcpy(mesh->triangles, triangles, (size_t)triangle_count * 3 * sizeof(int32_t));
    }
    mesh->vertex_count = vertex_count;
    mesh->triangle_count = triangle_count;
    status = finish_mesh(mesh, NULL, NULL, out);
    return status ? osc_fail_in("osc_mesh_create", status) : OSC_OK;

no_memory:
    osc_mesh_destroy(mesh);
    return osc_fail_in("osc_mesh_create", OSC_ERR_NO_MEMORY);
}

// the internal path of the importers and the reorderer: adopts the arrays instead of copying them
osc_status osc_mesh_create_owned(double* vertices, int32_t vertex_count, int32_t* triangles, int32_t triangle_count,
                                 osc_mesh_edge_order_fn order_edges, void* context, osc_mesh** out) {
    osc_status status = check_arrays(vertices, vertex_count, triangles, triangle_count);
    if (!status) status = check_vertices(vertices, vertex_count);
    if (!status) status = check_triangles(triangles, triangle_count, vertex_count);
    osc_mesh* mesh = status ? NULL : osc_calloc(1, sizeof *mesh);
    if (!mesh) {
        osc_free(vertices);
        osc_free(triangles);
        return status ? status : OSC_ERR_NO_MEMORY;
    }
    mesh->vertices = vertex_count > 0 ? vertices : NULL;
    mesh->triangles = triangle_count > 0 ? triangles : NULL;
    if (vertex_count == 0) osc_free(vertices);
    if (triangle_count == 0) osc_free(triangles);
    mesh->vertex_count = vertex_count;
    mesh->triangle_count = triangle_count;
    return finish_mesh(mesh, order_edges, context, out);
}

// releases the arrays and the mesh
void osc_mesh_destroy(osc_mesh* mesh) {
    if (!mesh) return;
    osc_free(mesh->vertices);
    osc_free(mesh->triangles);
    osc_free(mesh->edges);
    osc_free(mesh->edge_triangles);
    osc_free(mesh->triangle_edges);
    osc_free(mesh);
}

// number of vertices (0 for NULL)
int32_t osc_mesh_vertex_count(const osc_mesh* mesh) { return mesh ? mesh->vertex_count : 0; }

// number of triangles (0 for NULL)
int32_t osc_mesh_triangle_count(const osc_mesh* mesh) { return mesh ? mesh->triangle_count : 0; }

// vertex array (NULL for NULL or an empty mesh)
const double* osc_mesh_vertices(const osc_mesh* mesh) { return mesh ? mesh->vertices : NULL; }

// triangle array (NULL for NULL or a mesh without triangles)
const int32_t* osc_mesh_triangles(const osc_mesh* mesh) { return mesh ? mesh->triangles : NULL; }

// number of unique edges (0 for NULL)
int32_t osc_mesh_edge_count(const osc_mesh* mesh) { return mesh ? mesh->edge_count : 0; }

// edge array (NULL for NULL or a mesh without triangles)
const int32_t* osc_mesh_edges(const osc_mesh* mesh) { return mesh ? mesh->edges : NULL; }

// adjacent triangles of the edges (NULL for NULL or a mesh without triangles)
const int32_t* osc_mesh_edge_triangles(const osc_mesh* mesh) { return mesh ? mesh->edge_triangles : NULL; }

// edge of each triangle corner (NULL for NULL or a mesh without triangles)
const int32_t* osc_mesh_triangle_edges(const osc_mesh* mesh) { return mesh ? mesh->triangle_edges : NULL; }

// the topology computed at creation (all zero for NULL)
void osc_mesh_get_topology(const osc_mesh* mesh, osc_mesh_topology* out) {
    if (!out) return;
    if (!mesh)
        memset(out, 0, sizeof *out);
    else
        *out = mesh->topology;
}

// ---------------------------------------------------------------------------------------------
// volume and area

// vertex i of the mesh as a vector
static osc_vec3 mesh_vertex(const osc_mesh* mesh, int32_t i) {
    const double* v = mesh->vertices + 3 * (size_t)i;
    return osc_v3(v[0], v[1], v[2]);
}

// mean of the vertices, the reference point of the volume sum
static osc_vec3 mesh_centroid(const osc_mesh* mesh) {
    osc_vec3 sum = osc_v3(0.0, 0.0, 0.0);
    for (int32_t i = 0; i < mesh->vertex_count; ++i) sum = osc_add(sum, mesh_vertex(mesh, i));
    return mesh->vertex_count > 0 ? osc_scale(sum, 1.0 / mesh->vertex_count) : sum;
}

// divergence theorem: the sum of the signed tetrahedra (c, v0, v1, v2), c the centroid, so the
// terms stay small when the mesh is far from the origin
double osc_mesh_volume(const osc_mesh* mesh) {
    if (!mesh || mesh->triangle_count == 0) return 0.0;
    osc_vec3 center = mesh_centroid(mesh);
    double sum = 0.0;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        osc_vec3 a = osc_sub(mesh_vertex(mesh, corner[0]), center);
        osc_vec3 b = osc_sub(mesh_vertex(mesh, corner[1]), center);
        osc_vec3 c = osc_sub(mesh_vertex(mesh, corner[2]), center);
        sum += osc_dot(a, osc_cross(b, c));
    }
    return sum / 6.0;
}

// sum of |(v1 - v0) x (v2 - v0)| / 2
double osc_mesh_area(const osc_mesh* mesh) {
    if (!mesh) return 0.0;
    double sum = 0.0;
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        osc_vec3 a = mesh_vertex(mesh, corner[0]);
        osc_vec3 ab = osc_sub(mesh_vertex(mesh, corner[1]), a);
        osc_vec3 ac = osc_sub(mesh_vertex(mesh, corner[2]), a);
        sum += osc_length(osc_cross(ab, ac));
    }
    return 0.5 * sum;
}

// ---------------------------------------------------------------------------------------------
// OBJ writer

// writes the v and f lines; returns false on the first failed write
static bool write_obj_lines(const osc_mesh* mesh, FILE* file) {
    for (int32_t i = 0; i < mesh->vertex_count; ++i) {
        const double* v = mesh->vertices + 3 * (size_t)i;
        if (fprintf(file, "v %.17g %.17g %.17g\n", v[0], v[1], v[2]) < 0) return false;
    }
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        const int32_t* corner = mesh->triangles + 3 * (size_t)t;
        if (fprintf(file, "f %ld %ld %ld\n", (long)corner[0] + 1, (long)corner[1] + 1, (long)corner[2] + 1) < 0)
            return false;
    }
    return true;
}

// writes the mesh to `path`; OSC_ERR_IO naming the path when opening, writing or closing fails
osc_status osc_mesh_write_obj(const osc_mesh* mesh, const char* path) {
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_write_obj: mesh is NULL");
    if (!path) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_write_obj: path is NULL");
    FILE* file = fopen(path, "w");
    if (!file)
        return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot open '%s' for writing: %s", path, strerror(errno));
    bool written = write_obj_lines(mesh, file);
    int write_errno = errno;
    if (fclose(file) != 0 && written)
        return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot close '%s': %s", path, strerror(errno));
    if (!written) return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot write '%s': %s", path, strerror(write_errno));
    return OSC_OK;
}
