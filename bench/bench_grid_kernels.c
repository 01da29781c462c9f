// bench_grid_kernels.c: the spline kernels the contact pipeline calls one point at a time
// (grid_internal.h: grid_distance, grid_distance_pair, grid_distance_gradient_at,
// grid_distance_gradient_pair, grid_eval_contact), timed and checked on points near the armadillo's
// surface (the pipeline's sphere traces and contact points lie within a few cells of it).
//
// For each entry point: throughput (independent points) and latency (each point moved by 0 times the
// previous result, so every call waits for the one before, as a sphere trace's steps do), in ns per
// evaluation, the fastest of RUNS passes (the points in runs of 16 along short segments, so that
// consecutive calls share most of their coefficients' cache lines, as the traces' steps do); then
// the errors of every output against a long-double evaluation of the same spline from the stored
// coefficients, maximum and 95th percentile, at the exact cell coordinate of each point and at the
// one the kernels compute.
// The kernel path is the widest the processor has, capped by OSC_GRID_KERNEL (docs/grid.md):
//   for k in portable avx fma ""; do OSC_GRID_KERNEL=$k build/bench/bench_grid_kernels; done
// (--timing: the times alone; --accuracy: the errors alone)

#include "bench.h"
#include "grid_internal.h"
#include "osculate/osculate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { POINTS = 1 << 16, RUNS = 7 };

static osc_vec3 points[POINTS];

// ---------------------------------------------------------------------------------------------
// the reference: the tricubic spline of the stored coefficients in long double

static void reference_weights(long double t, long double inv_h, long double w[2][4]) {
    long double r = 1.0L - t;
    w[0][0] = r * r * r / 6.0L;
    w[0][1] = (3.0L * t * t * t - 6.0L * t * t + 4.0L) / 6.0L;
    w[0][2] = (-3.0L * t * t * t + 3.0L * t * t + 3.0L * t + 1.0L) / 6.0L;
    w[0][3] = t * t * t / 6.0L;
    w[1][0] = -0.5L * r * r * inv_h;
    w[1][1] = (1.5L * t * t - 2.0L * t) * inv_h;
    w[1][2] = (-1.5L * t * t + t + 0.5L) * inv_h;
    w[1][3] = 0.5L * t * t * inv_h;
}

// value and gradient of the four fields at x (inside the region): out[field][0 value, 1-3 gradient].
// The cell coordinate u = (x - origin) / h exactly, or with `rounded` as the kernels round it,
// (x - origin) * (1 / h) in doubles: then the difference is the kernels' arithmetic alone.
static int rounded;

static void reference_fields(const osc_grid* grid, osc_vec3 x, long double out[OSC_GRID_FIELDS][4]) {
    int cell[3];
    long double w[3][2][4];
    for (int a = 0; a < 3; ++a) {
        long double u = ((long double)(&x.x)[a] - (long double)(&grid->origin.x)[a]) / (long double)grid->cell;
        if (rounded) u = ((&x.x)[a] - (&grid->origin.x)[a]) * grid->inverse_cell;
        int i = (int)floorl(u);
        i = i < 0 ? 0 : (i > grid->cells[a] - 1 ? grid->cells[a] - 1 : i);
        cell[a] = i;
        reference_weights(u - i, 1.0L / (long double)grid->cell, w[a]);
    }
    size_t nx = (size_t)grid->cells[0] + 3, ny = (size_t)grid->cells[1] + 3;
    memset(out, 0, sizeof(long double) * OSC_GRID_FIELDS * 4);
    for (int c = 0; c < 4; ++c)
        for (int b = 0; b < 4; ++b)
            for (int a = 0; a < 4; ++a) {
                size_t index = ((size_t)(cell[2] + c) * ny + (size_t)(cell[1] + b)) * nx + (size_t)(cell[0] + a);
                const double* coefficient = grid->coefficients + OSC_GRID_FIELDS * index;
                long double weight[4] = {w[0][0][a] * w[1][0][b] * w[2][0][c], w[0][1][a] * w[1][0][b] * w[2][0][c],
                                         w[0][0][a] * w[1][1][b] * w[2][0][c], w[0][0][a] * w[1][0][b] * w[2][1][c]};
                for (int f = 0; f < OSC_GRID_FIELDS; ++f)
                    for (int k = 0; k < 4; ++k) out[f][k] += weight[k] * (long double)coefficient[f];
            }
}

// ---------------------------------------------------------------------------------------------
// timing: ns per evaluation, throughput and latency

typedef enum { VALUE, VALUE_PAIR, GRADIENT, GRADIENT_PAIR, CONTACT, CONTACT_VALUE, ENTRY_COUNT } entry;
static const char* entry_name[ENTRY_COUNT] = {"grid_distance",          "grid_distance_pair",
                                              "grid_distance_gradient_at", "grid_distance_gradient_pair",
                                              "grid_eval_contact",      "grid_eval_contact (no derivatives)"};

static double sink;

// one pass over the points; `chain`: each point moved by 0 times the previous result
static double pass(const osc_grid* grid, entry e, int chain) {
    double carry = 0.0, total = 0.0;
    double start = bench_now();
    for (int i = 0; i + 1 < POINTS; i += 2) {
        osc_vec3 p = points[i], q = points[i + 1];
        if (chain) p.x += carry, q.x += carry;
        double v[2];
        osc_vec3 g[2], n;
        osc_mat3 dn;
        switch (e) {
        case VALUE:
            v[0] = grid_distance(grid, &p);
            if (chain) q.x += 0.0 * v[0];
            v[1] = grid_distance(grid, &q);
            break;
        case VALUE_PAIR: grid_distance_pair(grid, &p, &q, v); break;
        case GRADIENT:
            v[0] = grid_distance_gradient_at(grid, &p, &g[0]);
            if (chain) q.x += 0.0 * (v[0] + g[0].x);
            v[1] = grid_distance_gradient_at(grid, &q, &g[1]);
            v[1] += g[1].x;
            break;
        case GRADIENT_PAIR:
            grid_distance_gradient_pair(grid, &p, &q, v, g);
            v[1] += g[0].x + g[1].x;
            break;
        case CONTACT:
        case CONTACT_VALUE: {
            int with = e == CONTACT;
            v[0] = grid_eval_contact(grid, &p, with, &g[0], &n, &dn);
            v[0] += n.z + (with ? dn.m[2][2] + g[0].x : 0.0);
            if (chain) q.x += 0.0 * v[0];
            v[1] = grid_eval_contact(grid, &q, with, &g[1], &n, &dn);
            v[1] += n.z + (with ? dn.m[2][2] + g[1].x : 0.0);
            break;
        }
        default: v[0] = v[1] = 0.0;
        }
        carry = 0.0 * v[1];
        total += v[0] + v[1];
    }
    double seconds = bench_now() - start;
    sink += total;
    return seconds / POINTS * 1e9;
}

// the fastest of RUNS passes (on a machine shared with other work the slower passes measure the
// others' load)
static double best_ns(const osc_grid* grid, entry e, int chain) {
    double best = INFINITY;
    pass(grid, e, chain); // warm the caches
    for (int r = 0; r < RUNS; ++r) best = fmin(best, pass(grid, e, chain));
    return best;
}

// ---------------------------------------------------------------------------------------------
// accuracy

static int compare_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double errors[4][POINTS];

static void report_errors(const char* path, const char* what, double* e, size_t count) {
    double worst = 0.0;
    for (size_t i = 0; i < count; ++i) worst = fmax(worst, e[i]);
    qsort(e, count, sizeof *e, compare_double);
    printf("{\"suite\": \"grid_kernels\", \"case\": \"%s\", \"metric\": \"%s error max / p95%s\", \"value\": %.3g, "
           "\"p95\": %.3g}\n",
           path, what, rounded ? " (kernel's cell coordinate)" : "", worst, e[(size_t)(0.95 * (double)(count - 1))]);
}

static long double absl(long double x) { return x < 0 ? -x : x; }

// every output of the entry points against the long-double reference: value (grid_distance), gradient
// (grid_distance_gradient_at; its value is checked to equal the first), and grid_eval_contact's
// value, gradient, normal field and Jacobian (largest absolute component error)
static void accuracy(const osc_grid* grid, const char* path) {
    double value[POINTS], gradient[POINTS], contact[3][POINTS];
    size_t count = 0;
    int differ = 0;
    for (int i = 0; i < POINTS; ++i) {
        long double r[OSC_GRID_FIELDS][4];
        reference_fields(grid, points[i], r);
        osc_vec3 g, gc, n;
        osc_mat3 dn;
        double v = grid_distance(grid, &points[i]), vg = grid_distance_gradient_at(grid, &points[i], &g);
        double vc = grid_eval_contact(grid, &points[i], true, &gc, &n, &dn);
        differ += v != vg || v != vc;
        value[count] = (double)absl((long double)v - r[0][0]);
        double ge = 0.0, gce = 0.0, ne = 0.0, je = 0.0;
        for (int a = 0; a < 3; ++a) {
            ge = fmax(ge, (double)absl((long double)(&g.x)[a] - r[0][1 + a]));
            gce = fmax(gce, (double)absl((long double)(&gc.x)[a] - r[0][1 + a]));
            ne = fmax(ne, (double)absl((long double)(&n.x)[a] - r[1 + a][0]));
            for (int b = 0; b < 3; ++b) je = fmax(je, (double)absl((long double)dn.m[a][b] - r[1 + a][1 + b]));
        }
        gradient[count] = fmax(ge, gce);
        contact[0][count] = (double)absl((long double)vc - r[0][0]);
        contact[1][count] = ne;
        contact[2][count] = je;
        ++count;
    }
    memcpy(errors[0], value, sizeof(double) * count);
    report_errors(path, "value (grid_distance)", errors[0], count);
    memcpy(errors[0], contact[0], sizeof(double) * count);
    report_errors(path, "value (grid_eval_contact)", errors[0], count);
    memcpy(errors[1], gradient, sizeof(double) * count);
    report_errors(path, "gradient", errors[1], count);
    memcpy(errors[2], contact[1], sizeof(double) * count);
    report_errors(path, "normal field", errors[2], count);
    memcpy(errors[3], contact[2], sizeof(double) * count);
    report_errors(path, "normal Jacobian", errors[3], count);
    printf("{\"suite\": \"grid_kernels\", \"case\": \"%s\", \"metric\": \"values differing between entry points\", "
           "\"value\": %d}\n",
           path, differ);
}

int main(int argc, char** argv) {
    char build[512], mesh_path[600];
    bench_build_dir(argv[0], build, sizeof build);
    snprintf(mesh_path, sizeof mesh_path, "%s/models/armadillo.off", build);
    osc_mesh* mesh = NULL;
    osc_mesh_bvh* bvh = NULL;
    osc_grid* grid = NULL;
    osc_grid_settings settings = osc_grid_settings_default(); // 64 cells, as bench_manifold's bodies
    if (osc_mesh_load(mesh_path, NULL, &mesh, NULL) != OSC_OK || osc_mesh_bvh_create(mesh, &bvh) != OSC_OK ||
        osc_grid_create_from_mesh(bvh, &settings, &grid) != OSC_OK) {
        fprintf(stderr, "bench_grid_kernels: %s (run tools/fetch_models.sh)\n", osc_last_error());
        return 1;
    }
    // points within 3 cells of the surface, in runs along segments as the sphere traces step along
    // an edge: from 1.5 h before a vertex along a random direction, 16 points 0.2 h apart
    int32_t vertices = osc_mesh_vertex_count(mesh);
    const double* vertex = osc_mesh_vertices(mesh);
    bench_rng rng = {2026};
    double h = grid->cell;
    for (int i = 0; i < POINTS; i += 16) {
        int32_t k = (int32_t)bench_uniform(&rng, 0.0, (double)vertices) % vertices;
        osc_vec3 v = osc_v3(vertex[3 * k], vertex[3 * k + 1], vertex[3 * k + 2]), d;
        do d = osc_v3(bench_uniform(&rng, -1, 1), bench_uniform(&rng, -1, 1), bench_uniform(&rng, -1, 1));
        while (osc_length(d) > 1.0 || osc_length(d) < 0.1);
        d = osc_scale(d, h / osc_length(d));
        for (int j = 0; j < 16; ++j) points[i + j] = osc_add(v, osc_scale(d, -1.5 + 0.2 * j));
    }
    const char* cap = getenv("OSC_GRID_KERNEL");
    const char* path = cap && *cap ? cap : "widest";
    int timing = !(argc > 1 && strcmp(argv[1], "--accuracy") == 0);
    int errors_too = !(argc > 1 && strcmp(argv[1], "--timing") == 0);
    if (timing)
        for (int e = 0; e < ENTRY_COUNT; ++e) {
            double throughput = best_ns(grid, (entry)e, 0), latency = best_ns(grid, (entry)e, 1);
            printf("{\"suite\": \"grid_kernels\", \"case\": \"%s\", \"metric\": \"%s ns/eval throughput / latency\", "
                   "\"value\": %.1f, \"latency\": %.1f}\n",
                   path, entry_name[e], throughput, latency);
        }
    if (errors_too)
        for (rounded = 0; rounded < 2; ++rounded) accuracy(grid, path);
    if (sink == 12345.0) printf("\n");
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
    return 0;
}
