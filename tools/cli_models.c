// cli_models.c: reading a mesh file for the osculate program (cli_models.h).
//
// Stray slivers: a triangle whose height over its longest edge is under SLIVER_THICKNESS of that
// edge is a sliver; one with a corner farther than STRAY_MARGIN of the model's size beyond the
// bounds of the other triangles (the model) is a stray: a broken facet reaching out to a stray
// vertex, as exporters and scanners leave. It bounds no volume, but it would stretch the spline's
// region and so coarsen it (a sliver to a vertex 10 model sizes away leaves the model about 6 of
// the 64 cells). They are dropped and counted unless --keep-stray.
//
// The model's size (the unit of the contact command's defaults) comes from the bounds of the
// connected parts of its collision mesh that hold at least MAIN_AREA_SHARE of its area, so a speck
// of the iso-surface far away does not change it.

#include "cli_models.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#endif

#define SLIVER_THICKNESS 0.02
#define STRAY_MARGIN 0.5
#define MAIN_AREA_SHARE 0.01

// ---------------------------------------------------------------------------------------------
// geometry of one triangle

static const double* corner_of(const osc_mesh* mesh, int32_t t, int k) {
    return osc_mesh_vertices(mesh) + 3 * (size_t)osc_mesh_triangles(mesh)[3 * (size_t)t + (size_t)k];
}

// twice the area of triangle t, and its longest edge
static double double_area(const osc_mesh* mesh, int32_t t, double* longest) {
    const double *a = corner_of(mesh, t, 0), *b = corner_of(mesh, t, 1), *c = corner_of(mesh, t, 2);
    osc_vec3 ab = osc_v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]), ac = osc_v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]);
    osc_vec3 bc = osc_sub(ac, ab);
    *longest = fmax(osc_length(ab), fmax(osc_length(ac), osc_length(bc)));
    return osc_length(osc_cross(ab, ac));
}

// its height over the longest edge (twice the area over that edge) is under SLIVER_THICKNESS of it
static int is_sliver(const osc_mesh* mesh, int32_t t) {
    double longest, area2 = double_area(mesh, t, &longest);
    return !(longest > 0.0) || area2 < SLIVER_THICKNESS * longest * longest;
}

static void bounds_add(double lo[3], double hi[3], const double* x) {
    for (int axis = 0; axis < 3; ++axis) lo[axis] = fmin(lo[axis], x[axis]), hi[axis] = fmax(hi[axis], x[axis]);
}

static double longest_side(const double lo[3], const double hi[3]) {
    double side = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    return side > 0.0 ? side : 0.0;
}

// ---------------------------------------------------------------------------------------------
// stray slivers

// marks the stray slivers in `stray` [T]; returns how many, their farthest reach in *reach
static int32_t find_strays(const osc_mesh* mesh, unsigned char* stray, double* reach) {
    int32_t n = osc_mesh_triangle_count(mesh), count = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t t = 0; t < n; ++t) {
        stray[t] = (unsigned char)is_sliver(mesh, t);
        if (!stray[t])
            for (int k = 0; k < 3; ++k) bounds_add(lo, hi, corner_of(mesh, t, k));
    }
    *reach = 0.0;
    if (!(lo[0] <= hi[0])) { // slivers only: nothing to measure against
        memset(stray, 0, (size_t)n);
        return 0;
    }
    double margin = STRAY_MARGIN * longest_side(lo, hi);
    for (int32_t t = 0; t < n; ++t) {
        if (!stray[t]) continue;
        double beyond = 0.0;
        for (int k = 0; k < 3; ++k)
            for (int axis = 0; axis < 3; ++axis) {
                double x = corner_of(mesh, t, k)[axis];
                beyond = fmax(beyond, fmax(lo[axis] - x, x - hi[axis]));
            }
        stray[t] = beyond > margin;
        if (stray[t]) ++count, *reach = fmax(*reach, beyond);
    }
    return count;
}

// a copy of `mesh` without the triangles marked in `drop` (the vertices kept as they are)
static osc_status without_triangles(const osc_mesh* mesh, const unsigned char* drop, osc_mesh** out) {
    int32_t n = osc_mesh_triangle_count(mesh), kept = 0;
    int32_t* triangles = malloc(3 * sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!triangles) return OSC_ERR_NO_MEMORY;
    for (int32_t t = 0; t < n; ++t)
        if (!drop[t])
            memcpy(triangles + 3 * (size_t)kept++, osc_mesh_triangles(mesh) + 3 * (size_t)t, 3 * sizeof(int32_t));
    osc_status status = osc_mesh_create(osc_mesh_vertices(mesh), osc_mesh_vertex_count(mesh), triangles, kept, out);
    free(triangles);
    return status;
}

osc_status cli_load_mesh(const char* path, const cli_model_options* models, osc_mesh** out, cli_import* import) {
    memset(import, 0, sizeof *import);
    *out = NULL;
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.degenerate = models->degenerate;
    osc_mesh* mesh = NULL;
    osc_status status = osc_mesh_load(path, &settings, &mesh, &import->report);
    if (status) return status;
    if (!models->keep_stray) {
        int32_t n = osc_mesh_triangle_count(mesh);
        unsigned char* stray = malloc((size_t)(n > 0 ? n : 1));
        if (!stray)
            status = OSC_ERR_NO_MEMORY;
        else
            import->stray_triangles = find_strays(mesh, stray, &import->stray_reach);
        if (!status && import->stray_triangles > 0) {
            osc_mesh* kept = NULL;
            status = without_triangles(mesh, stray, &kept);
            osc_mesh_destroy(mesh);
            mesh = kept;
        }
        free(stray);
    }
    if (!status) status = osc_mesh_get_orientation(mesh, &import->baked);
    if (status) {
        osc_mesh_destroy(mesh);
        return status;
    }
    import->vertices = osc_mesh_vertex_count(mesh);
    import->triangles = osc_mesh_triangle_count(mesh);
    *out = mesh;
    return OSC_OK;
}

osc_status cli_bake_mesh(const osc_mesh* mesh, int resolution, osc_grid** out) {
    osc_mesh_bvh* bvh = NULL;
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = resolution;
    osc_status status = osc_mesh_bvh_create(mesh, &bvh);
    if (!status) status = osc_grid_create_from_mesh(bvh, &settings, out);
    osc_mesh_bvh_destroy(bvh);
    return status;
}

// ---------------------------------------------------------------------------------------------
// the size of a model

// the root of vertex v in the union-find forest `parent`, halving the path on the way
static int32_t find_root(int32_t* parent, int32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

double cli_model_size(const osc_mesh* mesh) {
    int32_t vertex_count = osc_mesh_vertex_count(mesh), n = osc_mesh_triangle_count(mesh);
    const int32_t* triangles = osc_mesh_triangles(mesh);
    int32_t* parent = malloc(sizeof(int32_t) * (size_t)(vertex_count > 0 ? vertex_count : 1));
    double* area = calloc((size_t)(vertex_count > 0 ? vertex_count : 1), sizeof(double));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, total = 0.0;
    if (!parent || !area) {
        free(parent);
        free(area);
        return NAN;
    }
    for (int32_t v = 0; v < vertex_count; ++v) parent[v] = v;
    for (int32_t t = 0; t < n; ++t)
        for (int k = 1; k < 3; ++k) {
            int32_t a = find_root(parent, triangles[3 * t]), b = find_root(parent, triangles[3 * t + k]);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    for (int32_t t = 0; t < n; ++t) {
        double longest, part = 0.5 * double_area(mesh, t, &longest);
        area[find_root(parent, triangles[3 * t])] += part;
        total += part;
    }
    for (int32_t t = 0; t < n; ++t)
        if (area[find_root(parent, triangles[3 * t])] >= MAIN_AREA_SHARE * total)
            for (int k = 0; k < 3; ++k) bounds_add(lo, hi, corner_of(mesh, t, k));
    free(parent);
    free(area);
    return lo[0] <= hi[0] ? longest_side(lo, hi) : 0.0;
}

// ---------------------------------------------------------------------------------------------
// what is said about an import

static const char* format_name(osc_mesh_format format) {
    switch (format) {
        case OSC_MESH_FORMAT_OBJ: return "obj";
        case OSC_MESH_FORMAT_STL: return "stl";
        case OSC_MESH_FORMAT_OFF: return "off";
        case OSC_MESH_FORMAT_PLY: return "ply";
        case OSC_MESH_FORMAT_AUTO: break;
    }
    return "unknown";
}

static const char* boolean(int value) { return value ? "true" : "false"; }

void cli_json_import(FILE* f, const cli_import* import) {
    const osc_mesh_load_report* r = &import->report;
    const osc_mesh_orientation* o = &import->baked;
    fprintf(f,
            "{\"format\": \"%s\", \"binary\": %s, \"vertices_read\": %lld, \"faces_read\": %lld, "
            "\"vertices_welded\": %d, \"vertices_unreferenced\": %d, \"degenerate_faces_dropped\": %d, "
            "\"polygons_triangulated\": %d,\n      \"triangles_flipped\": %d, \"inverted_patches\": %d, "
            "\"stray_triangles_dropped\": %d, \"stray_reach\": %.9g, \"vertices\": %d, \"triangles\": %d,\n"
            "      \"closed\": %s, \"patches\": %d, \"boundary_edges\": %d, \"non_manifold_edges\": %d, "
            "\"non_orientable_patches\": %d, \"flat_patches\": %d, \"volume\": %.17g, \"sign_reliable\": %s}",
            format_name(r->format), boolean(r->binary), (long long)r->vertices_read, (long long)r->faces_read,
            (int)r->vertices_welded, (int)r->vertices_unreferenced, (int)r->faces_dropped,
            (int)r->polygons_triangulated, (int)r->orientation.triangles_flipped, (int)r->orientation.inverted_patches,
            (int)import->stray_triangles, import->stray_reach, (int)import->vertices, (int)import->triangles,
            boolean(o->patches > 0 && o->closed_patches == o->patches), (int)o->patches, (int)o->boundary_edges,
            (int)o->non_manifold_edges, (int)o->non_orientable_patches, (int)o->flat_patches,
            isfinite(o->volume) ? o->volume : 0.0, boolean(o->sign_reliable));
}

int cli_print_import_remarks(FILE* f, const char* prefix, const cli_import* import) {
    const osc_mesh_load_report* r = &import->report;
    const osc_mesh_orientation* o = &import->baked;
    int lines = 0;
    if (r->orientation.triangles_flipped > 0)
        lines++,
            fprintf(f, "%striangles turned to face outward: %d of %d (%d inconsistent edges, %d patches inside out)\n",
                    prefix, (int)r->orientation.triangles_flipped, (int)import->triangles,
                    (int)r->orientation.inconsistent_edges, (int)r->orientation.inverted_patches);
    if (r->faces_dropped > 0)
        lines++, fprintf(f, "%sdegenerate faces dropped: %d (corners that coincide: zero area)\n", prefix,
                         (int)r->faces_dropped);
    if (import->stray_triangles > 0)
        lines++,
            fprintf(f,
                    "%sstray sliver triangles dropped: %d, reaching %.3g beyond the model (--keep-stray keeps them)\n",
                    prefix, (int)import->stray_triangles, import->stray_reach);
    if (!o->sign_reliable) {
        lines++;
        fprintf(f, "%swarning: the SDF's sign cannot be trusted everywhere:", prefix);
        if (o->boundary_edges) fprintf(f, " open (%d boundary edges)", (int)o->boundary_edges);
        if (o->non_manifold_edges) fprintf(f, " %d non-manifold edges", (int)o->non_manifold_edges);
        if (o->non_orientable_patches) fprintf(f, " %d non-orientable patches", (int)o->non_orientable_patches);
        if (o->flat_patches) fprintf(f, " %d patches enclose no volume", (int)o->flat_patches);
        fprintf(f, "; inside and outside come from winding numbers, unreliable near these\n");
    }
    return lines;
}

// ---------------------------------------------------------------------------------------------
// files

int cli_same_file(const char* a, const char* b) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
#else
    return !strcmp(a, b);
#endif
}

int cli_is_grid_file(const char* path) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat info; // a pipe or device is never opened here (a FIFO would block): the loader refuses it
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) return 0;
#endif
    FILE* f = fopen(path, "rb");
    if (!f) return 0; // the mesh loader reports the I/O error
    char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return got == sizeof magic && !memcmp(magic, "OSCGRID", 8);
}
