// osculate: the command-line program. It grows with the library; today it reports the build,
// evaluates any analytic primitive with its derivatives, bakes spline SDFs and computes the contact
// manifold between two models.
//
//   osculate version | info
//   osculate eval <shape> <parameters...> <x> <y> <z>     (prints JSON: value, gradient, hessian)
//   osculate bake MESH OUT [options]                      (spline SDF of a mesh, osc_grid_save)
//   osculate contact A B [options]                        (prints JSON: settings, bodies, contacts)
//   osculate box-sweep OUT.csv [--hard]                   (diagnostic: the data of Beker et al. 2026 Fig. 10)
//   osculate COMMAND --help                               (its options; exit status 0)
//
// The command line is parsed by cli_options.c (without doing anything), mesh files are read by
// cli_models.c (the import report, stray slivers, the size of a model). `contact` takes two models,
// each a mesh file (OBJ, STL, OFF, PLY: its spline SDF is baked from the mesh's BVH) or a spline SDF
// saved by `bake` (told apart by the file's magic); the collision mesh of each is extracted from its
// SDF (Beker et al. 2026 §IV-A). Exit status: 0 done, 1 a library call failed (its message is printed), 2 a
// bad command line.

#include "cli_models.h"
#include "cli_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// reports a failed library call with its message; returns the exit status 1
static int fail(const char* command) {
    fprintf(stderr, "osculate %s: %s\n", command, osc_last_error());
    return 1;
}

// reports a refused request (not a library failure); returns the exit status 1
static int refuse(const char* command, const char* reason, const char* path) {
    fprintf(stderr, "osculate %s: %s '%s'\n", command, reason, path);
    return 1;
}

static double now_seconds(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ---------------------------------------------------------------------------------------------
// JSON output

// a number, or null where JSON has none (NaN, infinities)
static void json_number(FILE* f, double value) {
    if (isfinite(value))
        fprintf(f, "%.17g", value);
    else
        fputs("null", f);
}

static void json_vec3(FILE* f, osc_vec3 v) {
    fputc('[', f);
    json_number(f, v.x);
    fputs(", ", f);
    json_number(f, v.y);
    fputs(", ", f);
    json_number(f, v.z);
    fputc(']', f);
}

// a row-major rows x columns matrix as nested arrays (one flat array when rows is 1)
static void json_matrix(FILE* f, const double* m, int rows, int columns) {
    if (rows > 1) fputc('[', f);
    for (int i = 0; i < rows; ++i) {
        fputs(i ? ", [" : "[", f);
        for (int j = 0; j < columns; ++j) {
            if (j) fputs(", ", f);
            json_number(f, m[i * columns + j]);
        }
        fputc(']', f);
    }
    if (rows > 1) fputc(']', f);
}

// a string with the characters JSON escapes escaped
static void json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_pose(FILE* f, osc_pose pose) {
    double v[7] = {pose.p.x, pose.p.y, pose.p.z, pose.q.w, pose.q.x, pose.q.y, pose.q.z};
    json_matrix(f, v, 1, 7);
}

// ---------------------------------------------------------------------------------------------
// eval

static osc_status create_shape(const char* name, const double* p, osc_sdf** out) {
    if (!strcmp(name, "sphere")) return osc_sdf_create_sphere(p[0], out);
    if (!strcmp(name, "box")) return osc_sdf_create_box(osc_v3(p[0], p[1], p[2]), p[3], out);
    if (!strcmp(name, "capsule")) return osc_sdf_create_capsule(p[0], p[1], out);
    if (!strcmp(name, "cylinder")) return osc_sdf_create_cylinder(p[0], p[1], out);
    if (!strcmp(name, "cone")) return osc_sdf_create_cone(p[0], p[1], p[2], out);
    if (!strcmp(name, "torus")) return osc_sdf_create_torus(p[0], p[1], out);
    if (!strcmp(name, "halfspace")) return osc_sdf_create_halfspace(osc_v3(p[0], p[1], p[2]), p[3], out);
    if (!strcmp(name, "ellipsoid")) return osc_sdf_create_ellipsoid(osc_v3(p[0], p[1], p[2]), out);
    return osc_sdf_create_superquadric(osc_v3(p[0], p[1], p[2]), p[3], p[4], out);
}

static int command_eval(const cli_eval_options* o) {
    const cli_shape* shape = &cli_shapes[o->shape];
    osc_sdf* sdf = NULL;
    if (create_shape(shape->name, o->values, &sdf) != OSC_OK) return fail("eval");
    const double* x = o->values + shape->parameters;
    osc_vec3 g;
    osc_mat3 h;
    double phi = osc_sdf_eval(sdf, osc_v3(x[0], x[1], x[2]), &g, &h);
    printf("{\"shape\": \"%s\", \"point\": [%.17g, %.17g, %.17g], \"value\": %.17g, "
           "\"gradient\": [%.17g, %.17g, %.17g], \"hessian\": [",
           shape->name, x[0], x[1], x[2], phi, g.x, g.y, g.z);
    for (int i = 0; i < 9; ++i) printf("%s%.17g", i ? ", " : "", h.m[i / 3][i % 3]);
    printf("], \"lipschitz\": %.17g}\n", osc_sdf_lipschitz(sdf));
    osc_sdf_destroy(sdf);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// models: a mesh file or a saved spline SDF, its collision mesh and its osc_body

// the summary's line about an imported mesh (cli_print_import_remarks gives the details on stderr)
static void print_import(FILE* f, const char* prefix, char name, const cli_import* import) {
    const osc_mesh_orientation* o = &import->baked;
    fprintf(f, "%s%c     %lld vertices, %lld faces read; %s", prefix, name, (long long)import->report.vertices_read,
            (long long)import->report.faces_read,
            o->patches > 0 && o->closed_patches == o->patches ? "closed" : "open");
    if (import->report.orientation.triangles_flipped)
        fprintf(f, "; %d triangles turned outward", (int)import->report.orientation.triangles_flipped);
    if (import->report.faces_dropped) fprintf(f, "; %d degenerate faces dropped", (int)import->report.faces_dropped);
    if (import->stray_triangles) fprintf(f, "; %d stray slivers dropped", (int)import->stray_triangles);
    fprintf(f, "%s\n", o->sign_reliable ? "" : "; its sign cannot be trusted everywhere");
}

typedef struct model {
    const char* path;
    int from_grid;     // 1: a saved spline SDF; 0: a mesh file
    int same_as_a;     // 1: body b is body a's model (same file)
    cli_import import; // what reading the mesh file did (mesh inputs)
    osc_grid* grid;
    osc_sdf* sdf; // the grid as an osc_sdf (for the collision mesh)
    osc_mesh* collision;
    osc_body* body;
    double size; // cli_model_size of the collision mesh
    double load_s, spline_s, collision_s, body_s;
} model;

static void model_release(model* m) {
    osc_body_destroy(m->body);
    osc_mesh_destroy(m->collision);
    osc_sdf_destroy(m->sdf);
    osc_grid_destroy(m->grid);
}

// loads or bakes the SDF of m->path (saying on stderr what the import fixed or found), extracts its
// collision mesh and creates the body
static osc_status model_build(const cli_model_options* options, char name, model* m) {
    osc_status status;
    double start = now_seconds();
    m->from_grid = cli_is_grid_file(m->path);
    if (m->from_grid) {
        status = osc_grid_load(m->path, &m->grid);
        m->load_s = now_seconds() - start;
    } else {
        osc_mesh* mesh = NULL;
        status = cli_load_mesh(m->path, options, &mesh, &m->import);
        m->load_s = now_seconds() - start;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "osculate contact: %c: ", name);
        if (!status) cli_print_import_remarks(stderr, prefix, &m->import);
        start = now_seconds();
        if (!status) status = cli_bake_mesh(mesh, options->resolution, &m->grid);
        m->spline_s = now_seconds() - start;
        osc_mesh_destroy(mesh);
    }
    if (status) return status;
    start = now_seconds();
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.resolution = options->mesh_resolution;
    mesh_settings.target_triangles = options->triangles;
    if ((status = osc_grid_to_sdf(m->grid, &m->sdf)) ||
        (status = osc_collision_mesh_create(m->sdf, &mesh_settings, &m->collision)))
        return status;
    m->collision_s = now_seconds() - start;
    m->size = cli_model_size(m->collision);
    start = now_seconds();
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = m->collision;
    desc.grid = m->grid;
    if (options->groups > 0) {
        desc.groups = OSC_GROUPS_CLUSTER;
        desc.group_count = options->groups;
    }
    status = osc_body_create(&desc, &m->body);
    m->body_s = now_seconds() - start;
    return status;
}

static void json_model(FILE* f, const char* name, const model* m, osc_pose pose) {
    fputs("    {\"name\": ", f);
    json_string(f, name);
    fputs(", \"path\": ", f);
    json_string(f, m->path);
    fprintf(f, ", \"source\": \"%s\", \"same_as_a\": %s", m->from_grid ? "spline SDF file" : "mesh",
            m->same_as_a ? "true" : "false");
    if (!m->from_grid) {
        fprintf(f, ", \"input_vertices\": %d, \"input_triangles\": %d,\n     \"import\": ", (int)m->import.vertices,
                (int)m->import.triangles);
        cli_json_import(f, &m->import);
    }
    int cells[3];
    double cell = osc_grid_cells(m->grid, cells);
    fprintf(f, ",\n     \"spline_cells\": [%d, %d, %d], \"cell_size\": ", cells[0], cells[1], cells[2]);
    json_number(f, cell);
    fprintf(f, ", \"vertices\": %d, \"edges\": %d, \"triangles\": %d, \"groups\": %d, \"size\": ",
            (int)osc_body_vertex_count(m->body), (int)osc_body_edge_count(m->body),
            (int)osc_mesh_triangle_count(m->collision), (int)osc_body_group_count(m->body));
    json_number(f, m->size);
    fputs(",\n     \"pose\": ", f);
    json_pose(f, pose);
    fprintf(f,
            ", \"build_s\": {\"load\": %.6f, \"spline\": %.6f, \"collision_mesh\": %.6f, \"body\": %.6f, "
            "\"total\": %.6f}}",
            m->load_s, m->spline_s, m->collision_s, m->body_s, m->load_s + m->spline_s + m->collision_s + m->body_s);
}

// ---------------------------------------------------------------------------------------------
// bake

static int command_bake(const cli_bake_options* o) {
    if (cli_same_file(o->mesh, o->out)) return refuse("bake", "will not overwrite its input: OUT is the mesh", o->out);
    if (cli_is_grid_file(o->mesh))
        return refuse("bake", "MESH is a spline SDF already (saved by bake), not a mesh:", o->mesh);
    osc_grid* grid = NULL;
    osc_mesh* mesh = NULL;
    cli_import import;
    double start = now_seconds(), load_s = 0.0;
    osc_status status = cli_load_mesh(o->mesh, &o->models, &mesh, &import);
    load_s = now_seconds() - start;
    if (!status) cli_print_import_remarks(stderr, "osculate bake: ", &import);
    start = now_seconds();
    if (!status) status = cli_bake_mesh(mesh, o->models.resolution, &grid);
    double spline_s = now_seconds() - start;
    osc_mesh_destroy(mesh);
    if (status || osc_grid_save(grid, o->out)) {
        osc_grid_destroy(grid);
        return fail("bake");
    }
    int cells[3];
    double cell = osc_grid_cells(grid, cells);
    printf("{\"mesh\": ");
    json_string(stdout, o->mesh);
    printf(", \"vertices\": %d, \"triangles\": %d, \"import\": ", (int)import.vertices, (int)import.triangles);
    cli_json_import(stdout, &import);
    printf(",\n \"spline_cells\": [%d, %d, %d], \"cell_size\": %.17g, \"load_s\": %.6f, \"spline_s\": %.6f, "
           "\"wrote\": ",
           cells[0], cells[1], cells[2], cell, load_s, spline_s);
    json_string(stdout, o->out);
    printf("}\n");
    osc_grid_destroy(grid);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// contact

// the settings: given values, else the library's defaults times the scale
static void resolve_settings(cli_contact_options* o, double scale) {
    osc_manifold_settings d = osc_manifold_settings_for_size(scale);
    double defaults[5] = {d.d_max, d.bandwidth, d.trace_temperature, d.clip_temperature, d.blend_temperature};
    double* fields[5] = {&o->settings.d_max, &o->settings.bandwidth, &o->settings.trace_temperature,
                         &o->settings.clip_temperature, &o->settings.blend_temperature};
    for (int k = 0; k < 5; ++k) *fields[k] = isnan(o->lengths[k]) ? defaults[k] : o->lengths[k];
}

// where the scale came from, for the summary
static const char* scale_source(const cli_contact_options* o, const model* models[2]) {
    if (o->scale != fmin(models[0]->size, models[1]->size)) return ", given";
    if (models[0]->size == models[1]->size) return "";
    return models[0]->size < models[1]->size ? ", the size of a" : ", the size of b";
}

// an output file that is one of the inputs or another output is refused before any work
static int check_outputs(const cli_contact_options* o) {
    const char* outputs[4] = {o->json_path, o->ply_path, o->obj_path, o->scene_path};
    for (int k = 0; k < 4; ++k) {
        if (!outputs[k]) continue;
        for (int input = 0; input < 2; ++input)
            if (cli_same_file(outputs[k], o->paths[input]) || !strcmp(outputs[k], o->paths[input]))
                return refuse("contact", "will not overwrite an input with an output:", outputs[k]);
        for (int other = 0; other < k; ++other)
            if (outputs[other] && (!strcmp(outputs[k], outputs[other]) || cli_same_file(outputs[k], outputs[other])))
                return refuse("contact", "two outputs name the same file:", outputs[k]);
    }
    return 0;
}

// the contacts and their pose Jacobians (nullable) of one query
typedef struct contact_result {
    osc_manifold_output out;
    double query_s; // median time of one query
    int repeats;
} contact_result;

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// runs the query, then repeats it (about 0.2 s, at most 101 runs) for its median time
static osc_status run_query(const model* a, const model* b, const cli_contact_options* o, contact_result* r) {
    osc_status status = osc_manifold_collide(a->body, o->poses[0], b->body, o->poses[1], &o->settings, &r->out);
    if (status) return status;
    enum { MOST = 101 };
    double times[MOST], total = 0.0;
    osc_manifold_output scratch = r->out;
    r->repeats = 0;
    while (r->repeats < MOST && (r->repeats < 3 || total < 0.2)) {
        double start = now_seconds();
        osc_manifold_collide(a->body, o->poses[0], b->body, o->poses[1], &o->settings, &scratch);
        times[r->repeats] = now_seconds() - start;
        total += times[r->repeats++];
    }
    qsort(times, (size_t)r->repeats, sizeof times[0], compare_doubles);
    r->query_s = times[r->repeats / 2];
    return OSC_OK;
}

static const char* kind_name(int32_t kind) {
    return kind == OSC_CONTACT_VERTEX ? "vertex" : kind == OSC_CONTACT_EDGE ? "edge" : "group";
}

typedef struct contact_summary {
    int32_t kinds[3];
    int32_t penetrating;
    double deepest, total_weight;
} contact_summary;

static contact_summary summarise(const osc_manifold_output* out) {
    contact_summary s = {{0, 0, 0}, 0, INFINITY, 0.0};
    for (int32_t i = 0; i < out->count; ++i) {
        const osc_manifold_contact* c = &out->contacts[i];
        if (c->kind >= 0 && c->kind < 3) s.kinds[c->kind]++;
        s.penetrating += c->distance < 0.0;
        s.deepest = fmin(s.deepest, c->distance);
        s.total_weight += c->weight;
    }
    return s;
}

static void json_contact(FILE* f, const osc_manifold_output* out, int32_t i) {
    const osc_manifold_contact* c = &out->contacts[i];
    fputs("    {\"point\": ", f);
    json_vec3(f, c->point);
    fputs(", \"distance\": ", f);
    json_number(f, c->distance);
    fputs(", \"normal\": ", f);
    json_vec3(f, c->normal);
    fputs(", \"weight\": ", f);
    json_number(f, c->weight);
    fprintf(f, ", \"kind\": \"%s\", \"body\": %d, \"feature\": %d, \"group\": %d,\n     \"jacobian_a\": ",
            kind_name(c->kind), (int)c->body, (int)c->feature, (int)c->group);
    json_matrix(f, &c->jacobian_a[0][0], 3, 6);
    fputs(", \"jacobian_b\": ", f);
    json_matrix(f, &c->jacobian_b[0][0], 3, 6);
    if (out->point_jacobians) {
        fputs(",\n     \"point_jacobian\": ", f);
        json_matrix(f, out->point_jacobians + 36 * (size_t)i, 3, 12);
        fputs(",\n     \"distance_jacobian\": ", f);
        json_matrix(f, out->distance_jacobians + 12 * (size_t)i, 1, 12);
        fputs(",\n     \"normal_jacobian\": ", f);
        json_matrix(f, out->normal_jacobians + 36 * (size_t)i, 3, 12);
        fputs(",\n     \"weight_jacobian\": ", f);
        json_matrix(f, out->weight_jacobians + 12 * (size_t)i, 1, 12);
    }
    fputc('}', f);
}

static void write_contact_json(FILE* f, const cli_contact_options* o, const model* models[2], const contact_result* r,
                               double build_s) {
    const osc_manifold_settings* s = &o->settings;
    fprintf(f,
            "{\n  \"command\": \"contact\", \"version\": \"%s\",\n  \"settings\": {\"d_max\": ", osc_version_string());
    json_number(f, s->d_max);
    fputs(", \"bandwidth\": ", f);
    json_number(f, s->bandwidth);
    fputs(", \"trace_temperature\": ", f);
    json_number(f, s->trace_temperature);
    fputs(", \"clip_temperature\": ", f);
    json_number(f, s->clip_temperature);
    fputs(", \"blend_temperature\": ", f);
    json_number(f, s->blend_temperature);
    fprintf(f,
            ",\n    \"iterations\": %d, \"blend\": %s, \"blend_saturated\": %s, \"edges\": %s, \"broad_phase\": %s, "
            "\"scale\": ",
            s->iterations, s->blend ? "true" : "false", s->blend_saturated ? "true" : "false",
            s->edges ? "true" : "false", s->broad_phase ? "true" : "false");
    json_number(f, o->scale);
    fprintf(f,
            ", \"groups\": %d, \"resolution\": %d, \"mesh_resolution\": %d, \"triangles\": %d, \"derivatives\": %s},\n",
            o->models.groups, o->models.resolution, o->models.mesh_resolution, o->models.triangles,
            o->derivatives ? "true" : "false");
    fputs("  \"bodies\": [\n", f);
    json_model(f, "a", models[0], o->poses[0]);
    fputs(",\n", f);
    json_model(f, "b", models[1], o->poses[1]);
    fputs("\n  ],\n  \"contacts\": [", f);
    for (int32_t i = 0; i < r->out.count; ++i) {
        fputs(i ? ",\n" : "\n", f);
        json_contact(f, &r->out, i);
    }
    contact_summary sum = summarise(&r->out);
    fprintf(f,
            "%s],\n  \"summary\": {\"count\": %d, \"vertex\": %d, \"edge\": %d, \"group\": %d, \"penetrating\": %d, "
            "\"min_distance\": ",
            r->out.count ? "\n  " : "", (int)r->out.count, (int)sum.kinds[0], (int)sum.kinds[1], (int)sum.kinds[2],
            (int)sum.penetrating);
    json_number(f, r->out.count ? sum.deepest : NAN);
    fputs(", \"total_weight\": ", f);
    json_number(f, sum.total_weight);
    fprintf(f, ",\n    \"query_s\": %.9f, \"query_repeats\": %d, \"build_s\": %.6f}\n}\n", r->query_s, r->repeats,
            build_s);
}

// the contact points as an ASCII PLY point set: position, normal, distance, weight, body, kind
static int write_points_ply(const char* path, const cli_contact_options* o, const osc_manifold_output* out) {
    FILE* f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "osculate contact: cannot write %s\n", path);
        return 0;
    }
    fprintf(f,
            "ply\nformat ascii 1.0\ncomment osculate contact points: %s vs %s (distance < 0: penetration)\n"
            "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
            "property float nx\nproperty float ny\nproperty float nz\nproperty float distance\n"
            "property float weight\nproperty int body\nproperty int kind\nend_header\n",
            o->paths[0], o->paths[1], (int)out->count);
    for (int32_t i = 0; i < out->count; ++i) {
        const osc_manifold_contact* c = &out->contacts[i];
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %d %d\n", c->point.x, c->point.y, c->point.z, c->normal.x,
                c->normal.y, c->normal.z, c->distance, c->weight, (int)c->body, (int)c->kind);
    }
    int ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "osculate contact: error writing %s\n", path);
    return ok;
}

// the contact points as OBJ vertices
static int write_points_obj(const char* path, const cli_contact_options* o, const osc_manifold_output* out) {
    FILE* f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "osculate contact: cannot write %s\n", path);
        return 0;
    }
    fprintf(f, "# osculate contact points: %s vs %s, %d points (x y z, world)\n", o->paths[0], o->paths[1],
            (int)out->count);
    for (int32_t i = 0; i < out->count; ++i)
        fprintf(f, "v %.17g %.17g %.17g\n", out->contacts[i].point.x, out->contacts[i].point.y,
                out->contacts[i].point.z);
    int ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "osculate contact: error writing %s\n", path);
    return ok;
}

// both collision meshes at their poses, in world coordinates
static int write_scene(const char* path, const model* models[2], const osc_pose poses[2]) {
    FILE* f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "osculate contact: cannot write %s\n", path);
        return 0;
    }
    fprintf(f, "# osculate contact: the collision meshes of a (%s) and b (%s) at their poses\n", models[0]->path,
            models[1]->path);
    int32_t base = 1;
    for (int b = 0; b < 2; ++b) {
        const osc_mesh* mesh = models[b]->collision;
        const double* v = osc_mesh_vertices(mesh);
        const int32_t* t = osc_mesh_triangles(mesh);
        fprintf(f, "o %s\n", b ? "b" : "a");
        for (int32_t i = 0; i < osc_mesh_vertex_count(mesh); ++i) {
            osc_vec3 x = osc_pose_apply(poses[b], osc_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
            fprintf(f, "v %.9g %.9g %.9g\n", x.x, x.y, x.z);
        }
        for (int32_t i = 0; i < osc_mesh_triangle_count(mesh); ++i)
            fprintf(f, "f %d %d %d\n", (int)(base + t[3 * i]), (int)(base + t[3 * i + 1]), (int)(base + t[3 * i + 2]));
        base += osc_mesh_vertex_count(mesh);
    }
    int ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "osculate contact: error writing %s\n", path);
    return ok;
}

static void print_summary(const cli_contact_options* o, const model* models[2], const contact_result* r,
                          double build_s) {
    contact_summary sum = summarise(&r->out);
    printf("osculate contact: %s (a) against %s (b)\n", o->paths[0], o->paths[1]);
    for (int b = 0; b < 2; ++b) {
        const model* m = models[b];
        if (b == 1 && m->same_as_a) {
            printf("  body b     the same model as a\n");
            continue;
        }
        int cells[3];
        osc_grid_cells(m->grid, cells);
        printf("  body %c     %d vertices, %d edges, %d groups; spline %dx%dx%d %s %.2f s, collision mesh %.2f s\n",
               'a' + b, (int)osc_body_vertex_count(m->body), (int)osc_body_edge_count(m->body),
               (int)osc_body_group_count(m->body), cells[0], cells[1], cells[2],
               m->from_grid ? "loaded in" : "baked in", m->load_s + m->spline_s, m->collision_s);
        if (!m->from_grid) print_import(stdout, "  mesh ", 'a' + b, &m->import);
    }
    printf("  settings   d_max %.3g, bandwidth %.3g, temperatures trace %.3g clip %.3g blend %.3g (scale %.3g%s)\n",
           o->settings.d_max, o->settings.bandwidth, o->settings.trace_temperature, o->settings.clip_temperature,
           o->settings.blend_temperature, o->scale, scale_source(o, models));
    printf("  contacts   %d (%d vertex, %d edge, %d group), %d penetrating\n", (int)r->out.count, (int)sum.kinds[0],
           (int)sum.kinds[1], (int)sum.kinds[2], (int)sum.penetrating);
    if (r->out.count) printf("  deepest    %.4g    total weight %.4g\n", sum.deepest, sum.total_weight);
    printf("  query      %.3f ms (median of %d)%s; models built in %.2f s\n", 1e3 * r->query_s, r->repeats,
           o->derivatives ? " with pose Jacobians" : "", build_s);
    printf("  wrote      %s", o->json_path);
    if (o->ply_path) printf(", %s", o->ply_path);
    if (o->obj_path) printf(", %s", o->obj_path);
    if (o->scene_path) printf(", %s", o->scene_path);
    printf("\n");
}

static int write_contact_outputs(const cli_contact_options* o, const model* models[2], const contact_result* r,
                                 double build_s) {
    FILE* f = stdout;
    if (o->json_path && !(f = fopen(o->json_path, "w"))) {
        fprintf(stderr, "osculate contact: cannot write %s\n", o->json_path);
        return 1;
    }
    write_contact_json(f, o, models, r, build_s);
    int ok = !ferror(f);
    if (f != stdout) ok = (fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "osculate contact: error writing %s\n", o->json_path ? o->json_path : "stdout");
        return 1;
    }
    if (o->ply_path && !write_points_ply(o->ply_path, o, &r->out)) return 1;
    if (o->obj_path && !write_points_obj(o->obj_path, o, &r->out)) return 1;
    if (o->scene_path && !write_scene(o->scene_path, models, o->poses)) return 1;
    if (o->json_path) print_summary(o, models, r, build_s);
    return 0;
}

// room for every feature of both bodies: a query never produces more contacts
static osc_status allocate_output(const model* models[2], int derivatives, osc_manifold_output* out) {
    int64_t room = 1;
    for (int b = 0; b < 2; ++b)
        room += (int64_t)osc_body_vertex_count(models[b]->body) + osc_body_edge_count(models[b]->body);
    memset(out, 0, sizeof *out);
    out->capacity = (int32_t)room;
    out->contacts = malloc((size_t)room * sizeof *out->contacts);
    if (derivatives) {
        out->point_jacobians = malloc((size_t)room * 36 * sizeof(double));
        out->distance_jacobians = malloc((size_t)room * 12 * sizeof(double));
        out->normal_jacobians = malloc((size_t)room * 36 * sizeof(double));
        out->weight_jacobians = malloc((size_t)room * 12 * sizeof(double));
    }
    if (!out->contacts || (derivatives && (!out->point_jacobians || !out->distance_jacobians || !out->normal_jacobians ||
                                           !out->weight_jacobians))) {
        fprintf(stderr, "osculate contact: out of memory for %lld contacts\n", (long long)room);
        return OSC_ERR_NO_MEMORY;
    }
    return OSC_OK;
}

static void free_output(osc_manifold_output* out) {
    free(out->contacts);
    free(out->point_jacobians);
    free(out->distance_jacobians);
    free(out->normal_jacobians);
    free(out->weight_jacobians);
}

static int command_contact(cli_contact_options* o) {
    if (check_outputs(o)) return 1;
    model storage[2];
    memset(storage, 0, sizeof storage);
    const model* models[2] = {&storage[0], &storage[1]};
    contact_result result;
    memset(&result, 0, sizeof result);
    int code = 0;
    double start = now_seconds();
    storage[0].path = o->paths[0];
    if (model_build(&o->models, 'a', &storage[0])) {
        code = fail("contact");
        goto done;
    }
    if (!strcmp(o->paths[0], o->paths[1]) || cli_same_file(o->paths[0], o->paths[1])) {
        storage[1] = storage[0];
        storage[1].path = o->paths[1];
        storage[1].same_as_a = 1;
        storage[1].load_s = storage[1].spline_s = storage[1].collision_s = storage[1].body_s = 0.0;
    } else {
        storage[1].path = o->paths[1];
        if (model_build(&o->models, 'b', &storage[1])) {
            code = fail("contact");
            goto done;
        }
    }
    double build_s = now_seconds() - start;
    // the defaults suit a body about 1 across: the smaller body sets the unit, so that a small body
    // touching a large one keeps a d_max of 2% of its own size
    if (!(o->scale > 0.0)) o->scale = fmin(storage[0].size, storage[1].size);
    if (!(o->scale > 0.0)) {
        fprintf(stderr, "osculate contact: a body has no size (scale %g): give --scale\n", o->scale);
        code = 1;
        goto done;
    }
    resolve_settings(o, o->scale);
    if (allocate_output(models, o->derivatives, &result.out)) {
        code = 1;
        goto done;
    }
    if (run_query(models[0], models[1], o, &result)) {
        code = fail("contact");
        goto done;
    }
    code = write_contact_outputs(o, models, &result, build_s);
done:
    free_output(&result.out);
    model_release(&storage[0]);
    if (!storage[1].same_as_a) model_release(&storage[1]);
    return code;
}

// ---------------------------------------------------------------------------------------------
// box-sweep: the data of Beker et al. 2026 Fig. 10 (tools/plot_box_stack.py plots it against MuJoCo's)
//
// Two boxes of half extents (0.5, 0.5, 0.25), slightly rounded: A fixed at the origin, B centred at
// z = 0.49 (0.01 penetration when level) and tilted about the world y axis by t, 401 steps of t in
// [-0.05, 0.05] (bench/peers/mujoco_manifold.py --box-sweep runs the same sweep in MuJoCo). Each box
// is one convex group, so the blended manifold has one contact per direction. Per step: tilt, contact
// count, the weight-averaged contact x, the smallest distance, d(mean x)/d(tilt) from the pose
// Jacobians (B's rotation about y, column 10) and the total weight.

enum { BOX_STEPS = 401 };
static const double box_half[3] = {0.5, 0.5, 0.25};
static const double box_centre_z = 0.49, box_tilt = 0.05;
static const double box_rounding = 0.01;

// settings for this geometry: 0.01 penetration, features that penetrate count fully and those more
// than 0.005 outside not at all; temperatures a fraction of the depth differences the tilt makes
// (0.05 rad across a 1-wide face: up to 0.05). --hard: every temperature and the bandwidth 0.
static osc_manifold_settings box_settings(int hard) {
    osc_manifold_settings s = osc_manifold_settings_default();
    s.d_max = 0.005;
    s.bandwidth = hard ? 0.0 : 0.005;
    s.trace_temperature = hard ? 0.0 : 0.0005;
    s.clip_temperature = hard ? 0.0 : 0.0005;
    s.blend_temperature = hard ? 0.0 : 0.002;
    return s;
}

static osc_status box_body(osc_sdf** sdf, osc_mesh** mesh, osc_body** body) {
    osc_status status = osc_sdf_create_box(osc_v3(box_half[0], box_half[1], box_half[2]), box_rounding, sdf);
    if (status) return status;
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    if ((status = osc_collision_mesh_create(*sdf, &mesh_settings, mesh))) return status;
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = *mesh;
    desc.sdf = *sdf;
    desc.groups = OSC_GROUPS_SDF_LEAVES; // one leaf: one group per box
    return osc_body_create(&desc, body);
}

// weight-averaged contact x and its derivative along column `column` of the pose Jacobians
static void mean_x(const osc_manifold_output* out, int column, double* mean, double* slope, double* total) {
    double sw = 0.0, swx = 0.0, dsw = 0.0, dswx = 0.0;
    for (int32_t i = 0; i < out->count; ++i) {
        double w = out->contacts[i].weight, x = out->contacts[i].point.x;
        double dw = out->weight_jacobians[12 * i + column], dx = out->point_jacobians[36 * i + column];
        sw += w, swx += w * x;
        dsw += dw, dswx += dw * x + w * dx;
    }
    *total = sw;
    *mean = sw > 0.0 ? swx / sw : NAN;
    *slope = sw > 0.0 ? (dswx - *mean * dsw) / sw : NAN;
}

static int command_box_sweep(const cli_box_sweep_options* o) {
    const char* path = o->path;
    int hard = o->hard, blend = o->blend;
    osc_sdf* sdf = NULL;
    osc_mesh* mesh = NULL;
    osc_body* body = NULL;
    osc_manifold_output out;
    memset(&out, 0, sizeof out);
    int code = 0;
    FILE* f = NULL;
    if (box_body(&sdf, &mesh, &body)) {
        code = fail("box-sweep");
        goto done;
    }
    const model boxes[2] = {{.body = body}, {.body = body}};
    const model* pair[2] = {&boxes[0], &boxes[1]};
    if (allocate_output(pair, 1, &out)) {
        code = 1;
        goto done;
    }
    if (!(f = fopen(path, "w"))) {
        fprintf(stderr, "osculate box-sweep: cannot write %s\n", path);
        code = 1;
        goto done;
    }
    osc_manifold_settings settings = box_settings(hard);
    settings.blend = blend;
    fprintf(f,
            "# osculate %s box sweep (Beker et al. 2026 Fig. 10): %s, d_max %g, bandwidth %g, temperatures trace %g "
            "clip %g blend %g; box %d vertices %d edges\n",
            osc_version_string(), hard ? "hard" : "smooth", settings.d_max, settings.bandwidth,
            settings.trace_temperature, settings.clip_temperature, settings.blend_temperature,
            (int)osc_body_vertex_count(body), (int)osc_body_edge_count(body));
    fprintf(f, "tilt,count,mean_x,min_distance,dmean_x_dtilt,total_weight\n");
    for (int step = 0; step < BOX_STEPS; ++step) {
        double tilt = -box_tilt + 2.0 * box_tilt * step / (BOX_STEPS - 1);
        osc_pose lower = osc_pose_identity();
        osc_pose upper = {osc_v3(0.0, 0.0, box_centre_z), osc_quat_from_axis_angle(osc_v3(0.0, 1.0, 0.0), tilt)};
        if (osc_manifold_collide(body, lower, body, upper, &settings, &out)) {
            code = fail("box-sweep");
            goto done;
        }
        double mean, slope, total, deepest = INFINITY;
        mean_x(&out, 6 + 3 + 1, &mean, &slope, &total); // B's rotation about y
        for (int32_t i = 0; i < out.count; ++i) deepest = fmin(deepest, out.contacts[i].distance);
        fprintf(f, "%.17g,%d,", tilt, (int)out.count);
        if (out.count)
            fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", mean, deepest, slope, total);
        else
            fprintf(f, ",,,0\n");
    }
    if (ferror(f)) {
        fprintf(stderr, "osculate box-sweep: error writing %s\n", path);
        code = 1;
    }
done:
    if (f && fclose(f) && !code) {
        fprintf(stderr, "osculate box-sweep: error writing %s\n", path);
        code = 1;
    }
    free_output(&out);
    osc_body_destroy(body);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(sdf);
    return code;
}

int main(int argc, char** argv) {
    cli_options options;
    char message[256];
    cli_outcome outcome = cli_parse(argc, argv, &options, message, sizeof message);
    if (outcome == CLI_HELP) {
        cli_print_help(stdout, options.command);
        return 0;
    }
    if (outcome == CLI_BAD) {
        fprintf(stderr, "osculate%s%s: %s\n", options.command ? " " : "", options.command ? argv[1] : "", message);
        cli_print_help(stderr, options.command);
        return 2;
    }
    switch (options.command) {
        case CLI_VERSION: printf("%s\n", osc_version_string()); return 0;
        case CLI_INFO:
            printf("{\"version\": \"%s\", \"threads\": %d}\n", osc_version_string(), osc_default_thread_count());
            return 0;
        case CLI_EVAL: return command_eval(&options.eval);
        case CLI_BAKE: return command_bake(&options.bake);
        case CLI_CONTACT: return command_contact(&options.contact);
        case CLI_BOX_SWEEP: return command_box_sweep(&options.box_sweep);
        case CLI_NONE: break;
    }
    cli_print_help(stderr, CLI_NONE);
    return 2;
}
