// bench_simplify.c: osc_mesh_simplify on the marching-cubes meshes it is made for (the shapes of
// tests/test_mesh_simplify.c), against meshoptimizer's meshopt_simplify (Debian's
// libmeshoptimizer, loaded at run time; bench/peers/setup.sh installs it as root) on the same input
// in the same run. For each output: triangle count, closed and Euler characteristic, bad edges
// (boundary, non-manifold, inconsistently oriented), zero-area triangles, smallest angle, largest
// distance from the true surface (|phi| / |grad phi| at 15 points per triangle) and time (median of
// 3). Then time against input size, and the min_angle sweep on a sharp cube. JSON lines go to
// stdout; the tables of docs/simplify.md go to stderr.

#include "bench.h"

#include "osculate/osculate.h"

#include "../examples/cup_model.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>

#define BENCH_PI 3.14159265358979323846

typedef size_t (*meshopt_simplify_fn)(unsigned int* destination, const unsigned int* indices, size_t index_count,
                                      const float* vertex_positions, size_t vertex_count,
                                      size_t vertex_positions_stride, size_t target_index_count, float target_error,
                                      unsigned int options, float* result_error);

// meshopt_simplify from the shared library, or NULL (with the reason in `why`)
static meshopt_simplify_fn load_meshoptimizer(const char** why) {
    const char* names[] = {"libmeshoptimizer.so", "libmeshoptimizer.so.2d", "libmeshoptimizer.so.0.18"};
    for (int i = 0; i < 3; ++i) {
        void* library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library) continue;
        void* symbol = dlsym(library, "meshopt_simplify");
        if (symbol) {
            meshopt_simplify_fn function;
            memcpy(&function, &symbol, sizeof function);
            return function;
        }
    }
    *why = "libmeshoptimizer not found (Debian: libmeshoptimizer2d)";
    return NULL;
}

// ---------------------------------------------------------------------------------------------
// measurements of one output

typedef struct quality {
    int32_t triangles, bad_edges, zero_area, closed, euler;
    double min_angle, max_distance, seconds;
} quality;

static double smallest_angle(const double* p0, const double* p1, const double* p2) {
    const double* p[3] = {p0, p1, p2};
    double smallest = 180.0;
    for (int k = 0; k < 3; ++k) {
        osc_vec3 o = osc_v3(p[k][0], p[k][1], p[k][2]);
        osc_vec3 u = osc_sub(osc_v3(p[(k + 1) % 3][0], p[(k + 1) % 3][1], p[(k + 1) % 3][2]), o);
        osc_vec3 v = osc_sub(osc_v3(p[(k + 2) % 3][0], p[(k + 2) % 3][1], p[(k + 2) % 3][2]), o);
        smallest = fmin(smallest, atan2(osc_length(osc_cross(u, v)), osc_dot(u, v)) * 180.0 / BENCH_PI);
    }
    return smallest;
}

static quality measure(const osc_sdf* sdf, const osc_mesh* mesh, double seconds) {
    quality q = {0, 0, 0, 0, 0, 180.0, 0.0, seconds};
    osc_mesh_topology t;
    osc_mesh_get_topology(mesh, &t);
    q.triangles = t.triangle_count;
    q.bad_edges = t.boundary_edges + t.non_manifold_edges + t.inconsistent_edges;
    q.zero_area = t.degenerate_triangles;
    q.closed = t.closed;
    q.euler = t.euler_characteristic;
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* tri = osc_mesh_triangles(mesh);
    enum { STEPS = 4 }; // (STEPS + 1)(STEPS + 2) / 2 = 15 points per triangle
    for (int32_t i = 0; i < q.triangles; ++i) {
        const double* p[3] = {v + 3 * tri[3 * i], v + 3 * tri[3 * i + 1], v + 3 * tri[3 * i + 2]};
        q.min_angle = fmin(q.min_angle, smallest_angle(p[0], p[1], p[2]));
        for (int r = 0; r <= STEPS; ++r)
            for (int s = 0; r + s <= STEPS; ++s) {
                double a = (double)r / STEPS, b = (double)s / STEPS;
                osc_vec3 x = osc_v3(p[0][0] + a * (p[1][0] - p[0][0]) + b * (p[2][0] - p[0][0]),
                                    p[0][1] + a * (p[1][1] - p[0][1]) + b * (p[2][1] - p[0][1]),
                                    p[0][2] + a * (p[1][2] - p[0][2]) + b * (p[2][2] - p[0][2]));
                osc_vec3 g;
                double phi = osc_sdf_eval(sdf, x, &g, NULL);
                q.max_distance = fmax(q.max_distance, fabs(phi) / fmax(osc_length(g), 0.5));
            }
    }
    return q;
}

// ---------------------------------------------------------------------------------------------
// the two simplifiers

static osc_mesh* run_osculate(const osc_mesh* input, int32_t target, double* seconds, double* achieved) {
    osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
    settings.target_triangles = target;
    double times[3];
    osc_mesh* out = NULL;
    for (int r = 0; r < 3; ++r) {
        osc_mesh_destroy(out);
        out = NULL;
        double start = bench_now();
        if (osc_mesh_simplify(input, &settings, &out, achieved) != OSC_OK) {
            fprintf(stderr, "bench_simplify: %s\n", osc_last_error());
            return NULL;
        }
        times[r] = bench_now() - start;
    }
    *seconds = bench_median(times, 3);
    return out;
}

// meshopt_simplify with target error 1 (only the count stops it) on the input in single precision;
// triangles that repeat a vertex are dropped; the output keeps the input's vertices
static osc_mesh* run_meshoptimizer(meshopt_simplify_fn simplify, const osc_mesh* input, int32_t target,
                                   double* seconds) {
    size_t vertex_count = (size_t)osc_mesh_vertex_count(input),
           index_count = 3 * (size_t)osc_mesh_triangle_count(input);
    float* positions = malloc(3 * vertex_count * sizeof *positions);
    unsigned int* indices = malloc(index_count * sizeof *indices);
    unsigned int* output = malloc(index_count * sizeof *output);
    int32_t* triangles = malloc(index_count * sizeof *triangles);
    for (size_t i = 0; i < 3 * vertex_count; ++i) positions[i] = (float)osc_mesh_vertices(input)[i];
    for (size_t i = 0; i < index_count; ++i) indices[i] = (unsigned int)osc_mesh_triangles(input)[i];
    double times[3];
    size_t written = 0;
    for (int r = 0; r < 3; ++r) {
        double start = bench_now();
        written = simplify(output, indices, index_count, positions, vertex_count, 3 * sizeof(float), 3 * (size_t)target,
                           1.0f, 0, NULL);
        times[r] = bench_now() - start;
    }
    *seconds = bench_median(times, 3);
    int32_t kept = 0;
    for (size_t t = 0; t + 2 < written; t += 3) {
        unsigned int a = output[t], b = output[t + 1], c = output[t + 2];
        if (a == b || b == c || c == a) continue;
        triangles[3 * kept] = (int32_t)a;
        triangles[3 * kept + 1] = (int32_t)b;
        triangles[3 * kept + 2] = (int32_t)c;
        ++kept;
    }
    osc_mesh* out = NULL;
    if (osc_mesh_create(osc_mesh_vertices(input), (int32_t)vertex_count, triangles, kept, &out) != OSC_OK)
        fprintf(stderr, "bench_simplify: %s\n", osc_last_error());
    free(positions);
    free(indices);
    free(output);
    free(triangles);
    return out;
}

// ---------------------------------------------------------------------------------------------
// reporting

static void table_row(const char* label, const quality* q, double achieved) {
    char achieved_text[32] = "";
    if (achieved >= 0.0) snprintf(achieved_text, sizeof achieved_text, "%.2g", achieved);
    fprintf(stderr, "| | %s | %d | %s, %d | %d | %d | %.3g | %.2g | %s | %.3f |\n", label, q->triangles,
            q->closed ? "yes" : "**no**", q->euler, q->bad_edges, q->zero_area, q->min_angle, q->max_distance,
            achieved_text, q->seconds);
}

static void report(const char* shape, int32_t target, const char* who, const quality* q) {
    char name[96], metric[64];
    snprintf(name, sizeof name, "%s -> %d, %s", shape, (int)target, who);
    const char* metrics[] = {"triangles", "bad edges", "zero-area triangles", "min angle", "max distance", "time"};
    const char* units[] = {"triangles", "edges", "triangles", "degrees", "units", "s"};
    double values[] = {q->triangles, q->bad_edges, q->zero_area, q->min_angle, q->max_distance, q->seconds};
    for (int i = 0; i < 6; ++i) {
        snprintf(metric, sizeof metric, "%s", metrics[i]);
        bench_report("simplify", name, metric, values[i], units[i]);
    }
}

static void run_shape(const char* shape, const osc_sdf* sdf, int resolution, const int32_t* targets, int count,
                      meshopt_simplify_fn meshopt) {
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.resolution = resolution;
    osc_mesh* input = NULL;
    if (osc_isosurface_extract(sdf, &iso, &input) != OSC_OK) {
        fprintf(stderr, "bench_simplify: %s\n", osc_last_error());
        return;
    }
    quality in = measure(sdf, input, 0.0);
    fprintf(stderr, "| %s (%d cells, %d triangles) | input | %d | %s, %d | %d | %d | %.2g | %.2g | | |\n", shape,
            resolution, in.triangles, in.triangles, in.closed ? "yes" : "no", in.euler, in.bad_edges, in.zero_area,
            in.min_angle, in.max_distance);
    for (int i = 0; i < count; ++i) {
        double seconds = 0.0, achieved = 0.0;
        osc_mesh* ours = run_osculate(input, targets[i], &seconds, &achieved);
        if (!ours) continue;
        quality q = measure(sdf, ours, seconds);
        char label[48];
        snprintf(label, sizeof label, "osculate → %d", (int)targets[i]);
        table_row(label, &q, achieved);
        report(shape, targets[i], "osculate", &q);
        osc_mesh_destroy(ours);
        if (!meshopt) continue;
        osc_mesh* theirs = run_meshoptimizer(meshopt, input, targets[i], &seconds);
        if (!theirs) continue;
        quality p = measure(sdf, theirs, seconds);
        snprintf(label, sizeof label, "meshoptimizer → %d", (int)targets[i]);
        table_row(label, &p, -1.0);
        report(shape, targets[i], "meshoptimizer", &p);
        char name[96];
        snprintf(name, sizeof name, "%s -> %d", shape, (int)targets[i]);
        bench_report_peer("simplify", name, "max distance", q.max_distance, "units", "meshoptimizer", p.max_distance);
        bench_report_peer("simplify", name, "time", q.seconds, "s", "meshoptimizer", p.seconds);
        osc_mesh_destroy(theirs);
    }
    osc_mesh_destroy(input);
}

// time against size: spheres meshed ever finer, down to 1000 triangles
static void run_speed(void) {
    osc_sdf* sphere = NULL;
    osc_sdf_create_sphere(0.5, &sphere);
    const int resolutions[] = {104, 160, 200};
    fprintf(stderr, "\nspeed: sphere r 0.5 to 1000 triangles\n| cells | input triangles | time (s) |\n|---|---|---|\n");
    for (int i = 0; i < 3; ++i) {
        osc_isosurface_settings iso = osc_isosurface_settings_default();
        iso.resolution = resolutions[i];
        osc_mesh* input = NULL;
        if (osc_isosurface_extract(sphere, &iso, &input) != OSC_OK) continue;
        double seconds = 0.0, achieved = 0.0;
        osc_mesh_destroy(run_osculate(input, 1000, &seconds, &achieved));
        char name[64];
        snprintf(name, sizeof name, "sphere %d triangles -> 1000", (int)osc_mesh_triangle_count(input));
        bench_report("simplify", name, "time", seconds, "s");
        fprintf(stderr, "| %d | %d | %.3f |\n", resolutions[i], (int)osc_mesh_triangle_count(input), seconds);
        osc_mesh_destroy(input);
    }
    osc_sdf_destroy(sphere);
}

// min_angle on a sharp-edged input: a cube of half-size 0.5 at 80 cells to 100 triangles; with
// max_error infinite only the target stops the simplifier, so blocked cheap collapses make it take
// expensive ones
static void run_min_angle(void) {
    osc_sdf* cube = NULL;
    osc_sdf_create_box(osc_v3(0.5, 0.5, 0.5), 0.0, &cube);
    osc_isosurface_settings iso = osc_isosurface_settings_default();
    iso.resolution = 80;
    osc_mesh* input = NULL;
    if (osc_isosurface_extract(cube, &iso, &input) == OSC_OK) {
        fprintf(stderr,
                "\nmin_angle: cube half-size 0.5 at 80 cells (%d triangles) to 100 triangles\n"
                "| min_angle (°) | triangles | achieved | max dist |\n|---|---|---|---|\n",
                (int)osc_mesh_triangle_count(input));
        const double angles[] = {10.0, 15.0, 20.0, 25.0};
        for (int i = 0; i < 4; ++i) {
            osc_mesh_simplify_settings settings = osc_mesh_simplify_settings_default();
            settings.target_triangles = 100;
            settings.min_angle = angles[i];
            osc_mesh* out = NULL;
            double achieved = 0.0;
            if (osc_mesh_simplify(input, &settings, &out, &achieved) != OSC_OK) continue;
            quality q = measure(cube, out, 0.0);
            char name[64];
            snprintf(name, sizeof name, "cube -> 100, min_angle %g", angles[i]);
            bench_report("simplify", name, "triangles", q.triangles, "triangles");
            bench_report("simplify", name, "achieved error", achieved, "units");
            fprintf(stderr, "| %g | %d | %.2g | %.2g |\n", angles[i], q.triangles, achieved, q.max_distance);
            osc_mesh_destroy(out);
        }
        osc_mesh_destroy(input);
    }
    osc_sdf_destroy(cube);
}

int main(void) {
    const char* why = "";
    meshopt_simplify_fn meshopt = load_meshoptimizer(&why);
    if (!meshopt)
        printf("{\"suite\": \"simplify\", \"case\": \"meshoptimizer\", \"metric\": \"peer\", \"value\": null, "
               "\"unit\": \"\", \"note\": \"peer missing: %s\"}\n",
               why);
    fprintf(
        stderr,
        "| shape (cells, input triangles) | simplifier | triangles | closed, chi | bad edges | "
        "zero-area | min angle (°) | max dist | achieved | time (s) |\n|---|---|---|---|---|---|---|---|---|---|\n");

    osc_sdf *sphere = NULL, *torus = NULL, *ring = NULL, *turned = NULL, *linked = NULL, *left = NULL, *right = NULL,
            *genus2 = NULL, *box = NULL, *cup = NULL;
    osc_sdf_create_sphere(0.5, &sphere);
    osc_sdf_create_torus(0.5, 0.15, &torus);
    osc_sdf_create_torus(0.5, 0.12, &ring);
    osc_pose pose = {osc_v3(0.5, 0.0, 0.0), osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.5 * BENCH_PI)};
    osc_sdf_create_transformed(ring, pose, 1.0, &turned);
    const osc_sdf* pair[2] = {ring, turned};
    osc_sdf_create_union(pair, 2, 0.0, &linked);
    osc_pose to_left = {osc_v3(-0.45, 0.0, 0.0), osc_quat_identity()};
    osc_pose to_right = {osc_v3(0.45, 0.0, 0.0), osc_quat_identity()};
    osc_sdf_create_transformed(ring, to_left, 1.0, &left);
    osc_sdf_create_transformed(ring, to_right, 1.0, &right);
    const osc_sdf* halves[2] = {left, right};
    osc_sdf_create_union(halves, 2, 0.02, &genus2);
    osc_sdf_create_box(osc_v3(0.5, 0.3, 0.4), 0.0, &box);
    if (make_cup(&cup) != OSC_OK) cup = NULL;

    const int32_t curved[] = {2000, 500, 100}, sharp[] = {2000, 1000, 500, 300, 100, 12};
    run_shape("sphere r 0.5", sphere, 48, curved, 3, meshopt);
    run_shape("torus 0.5 / 0.15", torus, 64, curved, 3, meshopt);
    run_shape("two linked tori", linked, 64, curved, 3, meshopt);
    run_shape("double torus", genus2, 64, curved, 3, meshopt);
    run_shape("box 1 x 0.6 x 0.8, faces on grid planes", box, 96, sharp, 6, meshopt);
    if (cup) run_shape("cup, cm", cup, 64, curved, 3, meshopt);

    osc_sdf* models[] = {sphere, torus, ring, turned, linked, left, right, genus2, box, cup};
    for (int i = 0; i < 10; ++i) osc_sdf_destroy(models[i]);
    run_speed();
    run_min_angle();
    return 0;
}
