// lmd_baseline.c: the tessellation baseline of bench_lmd; the definitions are in lmd_baseline.h.

#include "lmd_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osculate/base.h"

enum { BISECTIONS = 40, TRIMMED_MIN_CELLS = 8, MAX_CELLS = 4096 };

// growable arrays of the mesh under construction
typedef struct builder {
    double* vertices;
    int32_t vertex_count, vertex_capacity;
    int32_t* triangles;
    int32_t triangle_count, triangle_capacity;
    int failed;
} builder;

static int32_t add_vertex(builder* b, osc_vec3 x) {
    if (b->vertex_count == b->vertex_capacity) {
        int32_t capacity = b->vertex_capacity ? 2 * b->vertex_capacity : 1024;
        double* grown = realloc(b->vertices, (size_t)capacity * 3 * sizeof(double));
        if (!grown) {
            b->failed = 1;
            return 0;
        }
        b->vertices = grown;
        b->vertex_capacity = capacity;
    }
    double* v = b->vertices + 3 * (size_t)b->vertex_count;
    v[0] = x.x, v[1] = x.y, v[2] = x.z;
    return b->vertex_count++;
}

static void add_triangle(builder* b, int32_t i, int32_t j, int32_t k) {
    if (b->triangle_count == b->triangle_capacity) {
        int32_t capacity = b->triangle_capacity ? 2 * b->triangle_capacity : 1024;
        int32_t* grown = realloc(b->triangles, (size_t)capacity * 3 * sizeof(int32_t));
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->triangles = grown;
        b->triangle_capacity = capacity;
    }
    int32_t* t = b->triangles + 3 * (size_t)b->triangle_count++;
    t[0] = i, t[1] = j, t[2] = k;
}

static osc_vec3 vertex_at(const builder* b, int32_t i) {
    const double* v = b->vertices + 3 * (size_t)i;
    return osc_v3(v[0], v[1], v[2]);
}

// ---------------------------------------------------------------------------------------------
// grid steps

// the angular step whose chord deviates from a circle of radius `radius` by at most `tol`
static double angular_step(double radius, double tol) {
    const double quarter = 0.7853981633974483;
    if (!(radius > tol)) return quarter;
    double step = 2.0 * acos(1.0 - tol / radius);
    return step < quarter ? step : quarter;
}

static int cells_for(double extent, double step) {
    if (!(step > 0) || !(extent > 0)) return 1;
    double cells = ceil(extent / step - 1e-9);
    if (cells < 1) cells = 1;
    if (cells > MAX_CELLS) cells = MAX_CELLS;
    return (int)cells;
}

// The largest deviation from its chord of the surface between grid nodes along direction `k` (0: u,
// 1: v) with `cells` cells, at the chords' midpoints on 17 lines across the face
static double chord_deviation(const osc_brep* brep, int face_index, int k, int cells) {
    const osc_brep_face* f = &osc_brep_description(brep)->faces[face_index];
    double lo[2] = {f->umin, f->vmin}, hi[2] = {f->umax, f->vmax}, worst = 0.0;
    for (int line = 0; line <= 16; ++line)
        for (int c = 0; c < cells; ++c) {
            double a[2], b[2], m[2];
            a[1 - k] = b[1 - k] = m[1 - k] = lo[1 - k] + (hi[1 - k] - lo[1 - k]) * line / 16.0;
            a[k] = lo[k] + (hi[k] - lo[k]) * c / cells;
            b[k] = lo[k] + (hi[k] - lo[k]) * (c + 1) / cells;
            m[k] = 0.5 * (a[k] + b[k]);
            osc_vec3 pa = osc_brep_face_point(brep, face_index, a[0], a[1], NULL);
            osc_vec3 pb = osc_brep_face_point(brep, face_index, b[0], b[1], NULL);
            osc_vec3 pm = osc_brep_face_point(brep, face_index, m[0], m[1], NULL);
            double d = osc_length(osc_sub(pm, osc_scale(osc_add(pa, pb), 0.5)));
            if (d > worst) worst = d;
        }
    return worst;
}

// cells along u and v for face `face` (see lmd_baseline.h, TESSELLATION)
static void face_grid(const osc_brep* brep, int face_index, double tol, int* nu, int* nv) {
    const osc_brep_desc* desc = osc_brep_description(brep);
    const osc_brep_face* face = &desc->faces[face_index];
    const osc_brep_surface* s = &desc->surfaces[face->surface];
    double du = face->umax - face->umin, dv = face->vmax - face->vmin;
    *nu = *nv = 1;
    switch (s->type) {
        case OSC_SURFACE_PLANE: break;
        case OSC_SURFACE_CYLINDER: *nu = cells_for(du, angular_step(s->radius, tol)); break;
        case OSC_SURFACE_CONE: {
            double r0 = fabs(s->radius + face->vmin * sin(s->angle));
            double r1 = fabs(s->radius + face->vmax * sin(s->angle));
            *nu = cells_for(du, angular_step(r0 > r1 ? r0 : r1, tol));
            break;
        }
        case OSC_SURFACE_SPHERE:
            *nu = cells_for(du, angular_step(s->radius, tol));
            *nv = cells_for(dv, angular_step(s->radius, tol));
            break;
        case OSC_SURFACE_TORUS:
            *nu = cells_for(du, angular_step(s->radius + s->radius2, tol));
            *nv = cells_for(dv, angular_step(s->radius2, tol));
            break;
        case OSC_SURFACE_NURBS: // cells doubled until the midpoints of the grid's chords are within tol
            for (int k = 0; k < 2; ++k) {
                int* n = k ? nv : nu;
                while (*n < MAX_CELLS && chord_deviation(brep, face_index, k, *n) > tol) *n *= 2;
            }
            break;
    }
    if (face->loop_count == 0) return;
    if (*nu < TRIMMED_MIN_CELLS) *nu = TRIMMED_MIN_CELLS;
    if (*nv < TRIMMED_MIN_CELLS) *nv = TRIMMED_MIN_CELLS;
    if (s->type != OSC_SURFACE_PLANE) return;
    double smallest_arc = INFINITY;
    for (int l = face->loop_begin; l < face->loop_begin + face->loop_count; ++l)
        for (int t = desc->loops[l].trim_begin; t < desc->loops[l].trim_begin + desc->loops[l].trim_count; ++t)
            if (desc->trims[t].kind == OSC_TRIM_ARC && desc->trims[t].radius < smallest_arc)
                smallest_arc = desc->trims[t].radius;
    if (isfinite(smallest_arc)) {
        double cell = sqrt(4.0 * smallest_arc * tol);
        int cu = cells_for(du, cell), cv = cells_for(dv, cell);
        if (cu > *nu) *nu = cu;
        if (cv > *nv) *nv = cv;
    }
}

// ---------------------------------------------------------------------------------------------
// marching squares on the containment test

typedef struct face_mesher {
    const osc_brep* brep;
    const osc_brep_surface* surface;
    int face, nu, nv;
    double umin, vmin, du, dv; // origin and cell sizes
    unsigned char* inside;     // [(nv + 1) * (nu + 1)]
    int32_t* node;             // mesh vertex of a grid node, or -1
    int32_t* cross_u;          // crossing on the edge (i, j)-(i + 1, j): [(nv + 1) * nu]
    int32_t* cross_v;          // crossing on the edge (i, j)-(i, j + 1): [nv * (nu + 1)]
    builder* out;
} face_mesher;

static void node_uv(const face_mesher* m, int i, int j, double uv[2]) {
    const osc_brep_desc* desc = osc_brep_description(m->brep);
    const osc_brep_face* f = &desc->faces[m->face];
    uv[0] = i == m->nu ? f->umax : m->umin + i * m->du;
    uv[1] = j == m->nv ? f->vmax : m->vmin + j * m->dv;
}

static int32_t node_vertex(face_mesher* m, int i, int j) {
    int32_t* slot = &m->node[j * (m->nu + 1) + i];
    if (*slot < 0) {
        double uv[2];
        node_uv(m, i, j, uv);
        *slot = add_vertex(m->out, osc_brep_face_point(m->brep, m->face, uv[0], uv[1], NULL));
    }
    return *slot;
}

// the crossing on the grid edge from node (i0, j0) to node (i1, j1), found by bisection
static int32_t crossing_vertex(face_mesher* m, int i0, int j0, int i1, int j1) {
    int horizontal = j0 == j1;
    int i = i0 < i1 ? i0 : i1, j = j0 < j1 ? j0 : j1;
    int32_t* slot = horizontal ? &m->cross_u[j * m->nu + i] : &m->cross_v[j * (m->nu + 1) + i];
    if (*slot >= 0) return *slot;
    double a[2], b[2];
    node_uv(m, i0, j0, a);
    node_uv(m, i1, j1, b);
    if (!m->inside[j0 * (m->nu + 1) + i0]) {
        double t[2] = {a[0], a[1]};
        a[0] = b[0], a[1] = b[1], b[0] = t[0], b[1] = t[1];
    }
    // a inside, b outside
    for (int k = 0; k < BISECTIONS; ++k) {
        double mid[2] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
        if (osc_brep_face_contains(m->brep, m->face, mid[0], mid[1]))
            a[0] = mid[0], a[1] = mid[1];
        else
            b[0] = mid[0], b[1] = mid[1];
    }
    *slot = add_vertex(m->out, osc_brep_face_point(m->brep, m->face, a[0], a[1], NULL));
    return *slot;
}

// adds the triangle (uv corners given for orientation), facing the solid's outward normal
static void emit(face_mesher* m, int32_t p, int32_t q, int32_t r, const double uv_centroid[2]) {
    if (p == q || q == r || r == p) return;
    osc_vec3 normal;
    osc_brep_face_point(m->brep, m->face, uv_centroid[0], uv_centroid[1], &normal);
    osc_vec3 x0 = vertex_at(m->out, p), x1 = vertex_at(m->out, q), x2 = vertex_at(m->out, r);
    osc_vec3 n = osc_cross(osc_sub(x1, x0), osc_sub(x2, x0));
    if (osc_dot(n, normal) < 0)
        add_triangle(m->out, p, r, q);
    else
        add_triangle(m->out, p, q, r);
}

static void mesh_cell(face_mesher* m, int i, int j) {
    static const int corner_di[4] = {0, 1, 1, 0}, corner_dj[4] = {0, 0, 1, 1};
    int in[4], mask = 0;
    for (int k = 0; k < 4; ++k) {
        in[k] = m->inside[(j + corner_dj[k]) * (m->nu + 1) + i + corner_di[k]];
        mask |= in[k] << k;
    }
    if (mask == 0) return;
    double centre[2];
    node_uv(m, i, j, centre);
    centre[0] += 0.5 * m->du, centre[1] += 0.5 * m->dv;
    int32_t polygon[8];
    int size = 0;
    if (mask == 5 || mask == 10) { // saddle: the two inside corners, each with its two crossings
        for (int k = 0; k < 4; ++k) {
            if (!in[k]) continue;
            int next = (k + 1) & 3, previous = (k + 3) & 3;
            int32_t c = node_vertex(m, i + corner_di[k], j + corner_dj[k]);
            int32_t e0 =
                crossing_vertex(m, i + corner_di[k], j + corner_dj[k], i + corner_di[next], j + corner_dj[next]);
            int32_t e1 = crossing_vertex(m, i + corner_di[previous], j + corner_dj[previous], i + corner_di[k],
                                         j + corner_dj[k]);
            emit(m, c, e0, e1, centre);
        }
        return;
    }
    for (int k = 0; k < 4; ++k) {
        int next = (k + 1) & 3;
        if (in[k]) polygon[size++] = node_vertex(m, i + corner_di[k], j + corner_dj[k]);
        if (in[k] != in[next])
            polygon[size++] =
                crossing_vertex(m, i + corner_di[k], j + corner_dj[k], i + corner_di[next], j + corner_dj[next]);
    }
    for (int k = 1; k + 1 < size; ++k) emit(m, polygon[0], polygon[k], polygon[k + 1], centre);
}

static int mesh_face(const osc_brep* brep, int face, double tol, builder* out) {
    const osc_brep_desc* desc = osc_brep_description(brep);
    const osc_brep_face* f = &desc->faces[face];
    face_mesher m = {brep, &desc->surfaces[f->surface], face, 1, 1, f->umin, f->vmin, 0, 0, NULL, NULL, NULL, NULL,
                     out};
    face_grid(brep, face, tol, &m.nu, &m.nv);
    m.du = (f->umax - f->umin) / m.nu;
    m.dv = (f->vmax - f->vmin) / m.nv;
    size_t nodes = (size_t)(m.nu + 1) * (size_t)(m.nv + 1);
    m.inside = malloc(nodes);
    m.node = malloc(nodes * sizeof(int32_t));
    m.cross_u = malloc((size_t)(m.nv + 1) * (size_t)m.nu * sizeof(int32_t));
    m.cross_v = malloc((size_t)m.nv * (size_t)(m.nu + 1) * sizeof(int32_t));
    if (!m.inside || !m.node || !m.cross_u || !m.cross_v) {
        free(m.inside), free(m.node), free(m.cross_u), free(m.cross_v);
        return -1;
    }
    for (int j = 0; j <= m.nv; ++j)
        for (int i = 0; i <= m.nu; ++i) {
            double uv[2];
            node_uv(&m, i, j, uv);
            m.inside[j * (m.nu + 1) + i] = (unsigned char)(osc_brep_face_contains(brep, face, uv[0], uv[1]) != 0);
        }
    memset(m.node, 0xff, nodes * sizeof(int32_t));
    memset(m.cross_u, 0xff, (size_t)(m.nv + 1) * (size_t)m.nu * sizeof(int32_t));
    memset(m.cross_v, 0xff, (size_t)m.nv * (size_t)(m.nu + 1) * sizeof(int32_t));
    int32_t before = out->triangle_count;
    for (int j = 0; j < m.nv; ++j)
        for (int i = 0; i < m.nu; ++i) mesh_cell(&m, i, j);
    free(m.inside), free(m.node), free(m.cross_u), free(m.cross_v);
    return out->triangle_count > before;
}

// ---------------------------------------------------------------------------------------------
// welding and topology

static int32_t find_root(int32_t* parent, int32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static const double* sort_vertices; // for compare_x only (qsort has no context argument)
static int compare_x(const void* a, const void* b) {
    double x = sort_vertices[3 * (size_t) * (const int32_t*)a], y = sort_vertices[3 * (size_t) * (const int32_t*)b];
    return (x > y) - (x < y);
}

// merges vertices closer than `eps`, drops triangles that then repeat a vertex and vertices no
// triangle uses; compacts `b` in place
static int weld(builder* b, double eps) {
    int32_t n = b->vertex_count;
    int32_t* order = malloc((size_t)n * sizeof(int32_t));
    int32_t* parent = malloc((size_t)n * sizeof(int32_t));
    int32_t* remap = malloc((size_t)n * sizeof(int32_t));
    if (!order || !parent || !remap) {
        free(order), free(parent), free(remap);
        return -1;
    }
    for (int32_t i = 0; i < n; ++i) order[i] = parent[i] = i;
    sort_vertices = b->vertices;
    qsort(order, (size_t)n, sizeof(int32_t), compare_x);
    for (int32_t s = 0; s < n; ++s) {
        osc_vec3 x = vertex_at(b, order[s]);
        for (int32_t t = s + 1; t < n; ++t) {
            osc_vec3 y = vertex_at(b, order[t]);
            if (y.x - x.x > eps) break;
            if (osc_length(osc_sub(x, y)) <= eps) {
                int32_t p = find_root(parent, order[s]), q = find_root(parent, order[t]);
                if (p != q) parent[p > q ? p : q] = p < q ? p : q;
            }
        }
    }
    // keep triangles whose welded corners differ
    int32_t kept = 0;
    for (int32_t t = 0; t < b->triangle_count; ++t) {
        int32_t c[3];
        for (int k = 0; k < 3; ++k) c[k] = find_root(parent, b->triangles[3 * (size_t)t + k]);
        if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0]) continue;
        memcpy(b->triangles + 3 * (size_t)kept++, c, sizeof c);
    }
    b->triangle_count = kept;
    // compact the used roots
    for (int32_t i = 0; i < n; ++i) remap[i] = -1;
    int32_t used = 0;
    for (int32_t t = 0; t < 3 * kept; ++t) {
        int32_t v = b->triangles[t];
        if (remap[v] < 0) {
            remap[v] = used;
            memmove(b->vertices + 3 * (size_t)used, b->vertices + 3 * (size_t)v, 3 * sizeof(double));
            ++used;
        }
        b->triangles[t] = remap[v];
    }
    b->vertex_count = used;
    free(order), free(parent), free(remap);
    return 0;
}

int lmd_baseline_tessellate(const osc_brep* brep, double chordal_error, lmd_baseline_mesh* out) {
    memset(out, 0, sizeof *out);
    const osc_brep_desc* desc = osc_brep_description(brep);
    if (!desc || !(chordal_error > 0)) {
        fprintf(stderr, "lmd_baseline: no description or a chordal error <= 0\n");
        return -1;
    }
    builder b = {0};
    for (int f = 0; f < desc->face_count && !b.failed; ++f) {
        int meshed = mesh_face(brep, f, chordal_error, &b);
        if (meshed < 0) b.failed = 1;
        out->faces_meshed += meshed > 0;
    }
    if (b.failed || b.triangle_count == 0) {
        fprintf(stderr, "lmd_baseline: meshing failed (%d triangles)\n", b.triangle_count);
        free(b.vertices), free(b.triangles);
        return -1;
    }
    // vertices are still in face order here, so the merge window is the model's size
    osc_vec3 lo = vertex_at(&b, 0), hi = lo;
    for (int32_t i = 1; i < b.vertex_count; ++i) {
        osc_vec3 x = vertex_at(&b, i);
        lo = osc_v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
        hi = osc_v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
    }
    double size = osc_length(osc_sub(hi, lo));
    if (weld(&b, 1e-9 * size) != 0) {
        free(b.vertices), free(b.triangles);
        return -1;
    }
    osc_mesh* mesh = NULL;
    if (osc_mesh_create(b.vertices, b.vertex_count, b.triangles, b.triangle_count, &mesh) != OSC_OK ||
        osc_mesh_bvh_create(mesh, &out->bvh) != OSC_OK) {
        fprintf(stderr, "lmd_baseline: %s\n", osc_last_error());
        osc_mesh_destroy(mesh);
        free(b.vertices), free(b.triangles);
        return -1;
    }
    out->vertex_count = b.vertex_count;
    out->triangle_count = b.triangle_count;
    out->vertices = b.vertices;
    out->triangles = b.triangles;
    out->lo = lo, out->hi = hi;
    // 1-rings from the unique edges
    int32_t edge_count = osc_mesh_edge_count(mesh);
    const int32_t* edges = osc_mesh_edges(mesh);
    out->ring_begin = calloc((size_t)out->vertex_count + 1, sizeof(int32_t));
    out->ring = malloc((size_t)(2 * edge_count + 1) * sizeof(int32_t));
    out->distance = malloc((size_t)out->vertex_count * sizeof(double));
    out->closest_vertex = malloc((size_t)out->vertex_count * sizeof(int32_t));
    out->closest_point = malloc((size_t)out->vertex_count * 3 * sizeof(double));
    int32_t* fill = calloc((size_t)out->vertex_count, sizeof(int32_t));
    if (!out->ring_begin || !out->ring || !out->distance || !out->closest_vertex || !out->closest_point || !fill) {
        free(fill);
        osc_mesh_destroy(mesh);
        lmd_baseline_free(out);
        return -1;
    }
    for (int32_t e = 0; e < edge_count; ++e) {
        ++out->ring_begin[edges[2 * e] + 1];
        ++out->ring_begin[edges[2 * e + 1] + 1];
    }
    for (int32_t v = 0; v < out->vertex_count; ++v) out->ring_begin[v + 1] += out->ring_begin[v];
    for (int32_t e = 0; e < edge_count; ++e) {
        int32_t p = edges[2 * e], q = edges[2 * e + 1];
        out->ring[out->ring_begin[p] + fill[p]++] = q;
        out->ring[out->ring_begin[q] + fill[q]++] = p;
    }
    free(fill);
    osc_mesh_destroy(mesh);
    return 0;
}

void lmd_baseline_free(lmd_baseline_mesh* mesh) {
    if (!mesh) return;
    free(mesh->vertices), free(mesh->triangles), free(mesh->ring_begin), free(mesh->ring);
    free(mesh->distance), free(mesh->closest_vertex), free(mesh->closest_point);
    osc_mesh_bvh_destroy(mesh->bvh);
    memset(mesh, 0, sizeof *mesh);
}

int lmd_baseline_write_obj(const lmd_baseline_mesh* mesh, const char* path) {
    FILE* file = fopen(path, "w");
    if (!file) return -1;
    for (int32_t v = 0; v < mesh->vertex_count; ++v)
        fprintf(file, "v %.9g %.9g %.9g\n", mesh->vertices[3 * v], mesh->vertices[3 * v + 1],
                mesh->vertices[3 * v + 2]);
    for (int32_t t = 0; t < mesh->triangle_count; ++t)
        fprintf(file, "f %d %d %d\n", mesh->triangles[3 * t] + 1, mesh->triangles[3 * t + 1] + 1,
                mesh->triangles[3 * t + 2] + 1);
    return fclose(file) == 0 ? 0 : -1;
}

// ---------------------------------------------------------------------------------------------
// contacts

// d(v) for every vertex of `from` against `to` (both posed), its closest point on `to` in `from`'s
// body frame, and the closest vertex of `to` when the closest feature is one; returns the number of
// closest-point queries
static int side_distances(lmd_baseline_mesh* from, osc_pose pose_from, const lmd_baseline_mesh* to, osc_pose pose_to,
                          double d_max, double* smallest) {
    osc_pose relative = osc_pose_compose(osc_pose_inverse(pose_to), pose_from); // to <- from
    osc_pose back = osc_pose_inverse(relative);
    osc_vec3 lo = osc_sub(to->lo, osc_v3(d_max, d_max, d_max));
    osc_vec3 hi = osc_add(to->hi, osc_v3(d_max, d_max, d_max));
    int queried = 0;
    for (int32_t v = 0; v < from->vertex_count; ++v) {
        const double* p = from->vertices + 3 * (size_t)v;
        osc_vec3 x = osc_pose_apply(relative, osc_v3(p[0], p[1], p[2]));
        from->closest_vertex[v] = -1;
        if (x.x < lo.x || x.y < lo.y || x.z < lo.z || x.x > hi.x || x.y > hi.y || x.z > hi.z) {
            from->distance[v] = INFINITY;
            continue;
        }
        osc_mesh_closest closest;
        double d = osc_mesh_bvh_closest(to->bvh, x, &closest);
        from->distance[v] = d;
        osc_vec3 b = osc_pose_apply(back, closest.point);
        double* out = from->closest_point + 3 * (size_t)v;
        out[0] = b.x, out[1] = b.y, out[2] = b.z;
        if (closest.feature == OSC_MESH_FEATURE_VERTEX) from->closest_vertex[v] = closest.feature_index;
        if (d < *smallest) *smallest = d;
        ++queried;
    }
    return queried;
}

// vertex v is a (quasi-)local minimum: within d_max, and no incident edge leads toward its closest
// point by more than the dilation angle (lmd_baseline.h, CONTACTS)
static int is_contact(const lmd_baseline_mesh* mesh, int32_t v, double d_max, double sin_alpha) {
    double d = mesh->distance[v];
    if (!(d <= d_max) || !(d > 0)) return 0;
    const double* p = mesh->vertices + 3 * (size_t)v;
    const double* c = mesh->closest_point + 3 * (size_t)v;
    osc_vec3 a = osc_v3(p[0], p[1], p[2]);
    osc_vec3 direction = osc_scale(osc_sub(osc_v3(c[0], c[1], c[2]), a), 1.0 / d);
    for (int32_t k = mesh->ring_begin[v]; k < mesh->ring_begin[v + 1]; ++k) {
        const double* q = mesh->vertices + 3 * (size_t)mesh->ring[k];
        osc_vec3 edge = osc_sub(osc_v3(q[0], q[1], q[2]), a);
        if (osc_dot(direction, edge) > sin_alpha * osc_length(edge)) return 0;
    }
    return 1;
}

lmd_baseline_result lmd_baseline_contacts(lmd_baseline_mesh* a, osc_pose pose_a, lmd_baseline_mesh* b, osc_pose pose_b,
                                          double d_max, double alpha) {
    lmd_baseline_result result = {0, 0, 0, 0, 0, INFINITY};
    double sin_alpha = sin(alpha);
    result.queried = side_distances(a, pose_a, b, pose_b, d_max, &result.min_distance);
    result.queried += side_distances(b, pose_b, a, pose_a, d_max, &result.min_distance);
    for (int32_t v = 0; v < a->vertex_count; ++v) {
        if (!is_contact(a, v, d_max, sin_alpha)) {
            a->closest_vertex[v] = -1; // marks "not a contact" for the duplicate test below
            continue;
        }
        ++result.contacts_a;
    }
    for (int32_t v = 0; v < b->vertex_count; ++v) {
        if (!is_contact(b, v, d_max, sin_alpha)) continue;
        ++result.contacts_b;
        int32_t w = b->closest_vertex[v];
        result.duplicates += w >= 0 && a->closest_vertex[w] == v;
    }
    result.contacts = result.contacts_a + result.contacts_b - result.duplicates;
    return result;
}
