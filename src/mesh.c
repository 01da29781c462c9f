// mesh.c: the triangle mesh container (copies of vertices and triangles, validated on creation),
// its enclosed volume and area, and the Wavefront OBJ writer.

#include "osculate/mesh.h"

#include "base_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct osc_mesh {
    double* vertices;       // [vertex_count][3]; NULL when empty
    int32_t* triangles;     // [triangle_count][3], 0-based; NULL when empty
    int32_t vertex_count;
    int32_t triangle_count;
};

// ---------------------------------------------------------------------------------------------
// validation (every failure names the argument and the element)

// checks the counts and that a non-empty array is not NULL
static osc_status check_arrays(const double* vertices, int32_t vertex_count,
                               const int32_t* triangles, int32_t triangle_count) {
    if (vertex_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_create: vertex_count is negative (%d)",
                        (int)vertex_count);
    if (triangle_count < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "osc_mesh_create: triangle_count is negative (%d)", (int)triangle_count);
    if (!vertices && vertex_count > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "osc_mesh_create: vertices is NULL with vertex_count %d", (int)vertex_count);
    if (!triangles && triangle_count > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "osc_mesh_create: triangles is NULL with triangle_count %d",
                        (int)triangle_count);
    return OSC_OK;
}

// checks that every coordinate is finite
static osc_status check_vertices(const double* vertices, int32_t vertex_count) {
    for (int32_t i = 0; i < vertex_count; ++i) {
        for (int axis = 0; axis < 3; ++axis) {
            double value = vertices[3 * (size_t)i + (size_t)axis];
            if (!isfinite(value))
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_mesh_create: vertices[%d] coordinate %d is not finite (%g)",
                                (int)i, axis, value);
        }
    }
    return OSC_OK;
}

// checks that every index is in range and that no triangle repeats a vertex
static osc_status check_triangles(const int32_t* triangles, int32_t triangle_count,
                                  int32_t vertex_count) {
    for (int32_t t = 0; t < triangle_count; ++t) {
        const int32_t* corner = triangles + 3 * (size_t)t;
        for (int k = 0; k < 3; ++k) {
            if (corner[k] < 0 || corner[k] >= vertex_count)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_mesh_create: triangles[%d] index %d out of range [0, %d)",
                                (int)t, (int)corner[k], (int)vertex_count);
        }
        if (corner[0] == corner[1] || corner[1] == corner[2] || corner[2] == corner[0])
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_mesh_create: triangles[%d] = (%d, %d, %d) repeats a vertex index",
                            (int)t, (int)corner[0], (int)corner[1], (int)corner[2]);
    }
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// creation and accessors

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
    *out = mesh;
    return OSC_OK;

no_memory:
    osc_mesh_destroy(mesh);
    return osc_fail_in("osc_mesh_create", OSC_ERR_NO_MEMORY);
}

// releases the arrays and the mesh
void osc_mesh_destroy(osc_mesh* mesh) {
    if (!mesh) return;
    osc_free(mesh->vertices);
    osc_free(mesh->triangles);
    osc_free(mesh);
}

// number of vertices (0 for NULL)
int32_t osc_mesh_vertex_count(const osc_mesh* mesh) {
    return mesh ? mesh->vertex_count : 0;
}

// number of triangles (0 for NULL)
int32_t osc_mesh_triangle_count(const osc_mesh* mesh) {
    return mesh ? mesh->triangle_count : 0;
}

// vertex array (NULL for NULL or an empty mesh)
const double* osc_mesh_vertices(const osc_mesh* mesh) {
    return mesh ? mesh->vertices : NULL;
}

// triangle array (NULL for NULL or a mesh without triangles)
const int32_t* osc_mesh_triangles(const osc_mesh* mesh) {
    return mesh ? mesh->triangles : NULL;
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
        if (fprintf(file, "f %ld %ld %ld\n", (long)corner[0] + 1, (long)corner[1] + 1,
                    (long)corner[2] + 1) < 0)
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
        return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot open '%s' for writing: %s", path,
                        strerror(errno));
    bool written = write_obj_lines(mesh, file);
    int write_errno = errno;
    if (fclose(file) != 0 && written)
        return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot close '%s': %s", path,
                        strerror(errno));
    if (!written)
        return osc_fail(OSC_ERR_IO, "osc_mesh_write_obj: cannot write '%s': %s", path,
                        strerror(write_errno));
    return OSC_OK;
}
