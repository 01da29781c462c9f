// bench_mesh_bvh.c: the mesh BVH on CGAL's armadillo (52,000 triangles): build time, closest-point,
// winding-number (beta = 1, 2, 4) and signed-distance throughput at random points near the surface
// (within 5% of the bounding-box diagonal, "near") and in the bounding box grown by a quarter
// ("box"), on 1 thread, and signed distances over a 40^3 grid in the box grown by a tenth in grid
// order ("grid", what the spline-SDF builder asks) on 1 and 2 threads; and a brute-force loop over
// all triangles for comparison (the only peer this suite has: the same answers, computed without
// the hierarchy). Each figure is the median of 5 runs. Then the winding number's error against the
// exact sum over all triangles, for beta = 1, 2, 4, at 1,000 near and 1,000 box points on each real
// model (CGAL's armadillo, bunny00 and ChineseDragon-10kv, the npm bunny and the open teapot of
// data/), with the number of near points whose inside/outside decision (w > 1/2) differs from the
// exact one; the table of docs/bvh.md goes to stderr.
//
// usage: bench_mesh_bvh [MODEL_DIR]; the default is ../models next to this program's directory
// (build/models, filled by tools/fetch_models.sh).

#include "bench.h"

#include "osculate/mesh.h"

#include <math.h>
#include <string.h>

enum { POINTS = 50000, GRID = 40, GRID_POINTS = GRID * GRID * GRID, BRUTE_POINTS = 200, RUNS = 5 };

static double near_points[3 * POINTS], box_points[3 * POINTS], grid_points[3 * GRID_POINTS];
static double distances[GRID_POINTS > POINTS ? GRID_POINTS : POINTS];

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * ((double)(rng_state >> 11) * 0x1.0p-53);
}

static osc_vec3 corner(const osc_mesh* mesh, int32_t triangle, int k) {
    const double* v = osc_mesh_vertices(mesh) + 3 * (size_t)osc_mesh_triangles(mesh)[3 * (size_t)triangle + (size_t)k];
    return osc_v3(v[0], v[1], v[2]);
}

static void fill_points(const osc_mesh* mesh, osc_vec3 lo, osc_vec3 hi) {
    osc_vec3 size = osc_sub(hi, lo);
    double diagonal = osc_length(size);
    int32_t triangles = osc_mesh_triangle_count(mesh);
    for (int i = 0; i < POINTS; ++i) {
        int32_t t = (int32_t)uniform(0, triangles);
        double u = uniform(0, 1), v = uniform(0, 1);
        if (u + v > 1) u = 1 - u, v = 1 - v;
        osc_vec3 a = corner(mesh, t, 0);
        osc_vec3 p =
            osc_add_scaled(osc_add_scaled(a, osc_sub(corner(mesh, t, 1), a), u), osc_sub(corner(mesh, t, 2), a), v);
        osc_vec3 offset;
        do offset = osc_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        while (osc_length_squared(offset) > 1.0);
        p = osc_add_scaled(p, offset, 0.05 * diagonal);
        memcpy(near_points + 3 * i, &p, sizeof p);
        box_points[3 * i] = lo.x - 0.25 * size.x + 1.5 * size.x * uniform(0, 1);
        box_points[3 * i + 1] = lo.y - 0.25 * size.y + 1.5 * size.y * uniform(0, 1);
        box_points[3 * i + 2] = lo.z - 0.25 * size.z + 1.5 * size.z * uniform(0, 1);
    }
    int n = 0;
    for (int k = 0; k < GRID; ++k)
        for (int j = 0; j < GRID; ++j)
            for (int i = 0; i < GRID; ++i, ++n) {
                grid_points[3 * n] = lo.x + size.x * (1.2 * i / (GRID - 1) - 0.1);
                grid_points[3 * n + 1] = lo.y + size.y * (1.2 * j / (GRID - 1) - 0.1);
                grid_points[3 * n + 2] = lo.z + size.z * (1.2 * k / (GRID - 1) - 0.1);
            }
}

typedef enum query { CLOSEST, WINDING, SIGNED } query;

// queries per second over the first `count` points, median of RUNS (a warm-up run first)
static double rate(const osc_mesh_bvh* bvh, const double* points, int count, query kind, double beta, int threads) {
    double rates[RUNS];
    for (int r = -1; r < RUNS; ++r) {
        double sum = 0.0, start = bench_now();
        if (kind == SIGNED) {
            osc_mesh_bvh_signed_distance_batch(bvh, points, (size_t)count, distances, NULL, threads);
        } else {
            for (int i = 0; i < count; ++i) {
                osc_vec3 p = osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
                sum += kind == CLOSEST ? osc_mesh_bvh_closest(bvh, p, NULL) : osc_mesh_bvh_winding_number(bvh, p, beta);
            }
        }
        double elapsed = bench_now() - start;
        if (r >= 0) rates[r] = count / elapsed;
        if (sum == 12345.678) printf("%g\n", sum); // keep the loop
    }
    return bench_median(rates, RUNS);
}

// brute force: every triangle's distance (Ericson-free: projection or the nearest edge) and solid
// angle, queries per second
static double segment_distance2(osc_vec3 a, osc_vec3 b, osc_vec3 p) {
    osc_vec3 d = osc_sub(b, a);
    double length2 = osc_dot(d, d);
    double t = length2 > 0 ? osc_dot(osc_sub(p, a), d) / length2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return osc_length_squared(osc_sub(p, osc_add_scaled(a, d, t)));
}

static double brute_closest(const osc_mesh* mesh, osc_vec3 p) {
    double best = INFINITY;
    for (int32_t t = 0; t < osc_mesh_triangle_count(mesh); ++t) {
        osc_vec3 a = corner(mesh, t, 0), b = corner(mesh, t, 1), c = corner(mesh, t, 2);
        osc_vec3 n = osc_cross(osc_sub(b, a), osc_sub(c, a));
        double nn = osc_dot(n, n), d2 = INFINITY;
        if (nn > 0) {
            osc_vec3 q = osc_add_scaled(p, n, -osc_dot(osc_sub(p, a), n) / nn);
            if (osc_dot(osc_cross(osc_sub(b, a), osc_sub(q, a)), n) >= 0 &&
                osc_dot(osc_cross(osc_sub(c, b), osc_sub(q, b)), n) >= 0 &&
                osc_dot(osc_cross(osc_sub(a, c), osc_sub(q, c)), n) >= 0)
                d2 = osc_length_squared(osc_sub(p, q));
        }
        if (d2 == INFINITY)
            d2 = fmin(fmin(segment_distance2(a, b, p), segment_distance2(b, c, p)), segment_distance2(c, a, p));
        best = fmin(best, d2);
    }
    return sqrt(best);
}

static double brute_winding(const osc_mesh* mesh, osc_vec3 p) {
    double sum = 0.0;
    for (int32_t t = 0; t < osc_mesh_triangle_count(mesh); ++t) {
        osc_vec3 a = osc_sub(corner(mesh, t, 0), p), b = osc_sub(corner(mesh, t, 1), p),
                 c = osc_sub(corner(mesh, t, 2), p);
        double la = osc_length(a), lb = osc_length(b), lc = osc_length(c);
        sum += 2 * atan2(osc_dot(a, osc_cross(b, c)),
                         la * lb * lc + osc_dot(a, b) * lc + osc_dot(b, c) * la + osc_dot(c, a) * lb);
    }
    return sum / (4 * 3.14159265358979323846);
}

static double brute_rate(const osc_mesh* mesh, int winding) {
    double sum = 0.0, start = bench_now();
    for (int i = 0; i < BRUTE_POINTS; ++i) {
        osc_vec3 p = osc_v3(near_points[3 * i], near_points[3 * i + 1], near_points[3 * i + 2]);
        sum += winding ? brute_winding(mesh, p) : brute_closest(mesh, p);
    }
    double elapsed = bench_now() - start;
    if (sum == 12345.678) printf("%g\n", sum);
    return BRUTE_POINTS / elapsed;
}

// the winding number's error at 1,000 near and 1,000 box points of `mesh`, against brute force
static void winding_accuracy(const char* name, const osc_mesh* mesh) {
    enum { SAMPLES = 1000 };
    osc_mesh_bvh* bvh = NULL;
    if (osc_mesh_bvh_create(mesh, &bvh) != OSC_OK) return;
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(bvh, &lo, &hi);
    fill_points(mesh, lo, hi);
    const double betas[3] = {1.0, 2.0, 4.0};
    double near_max[3] = {0}, near_mean[3] = {0}, box_max[3] = {0};
    int wrong_side[3] = {0};
    for (int i = 0; i < SAMPLES; ++i) {
        osc_vec3 near = osc_v3(near_points[3 * i], near_points[3 * i + 1], near_points[3 * i + 2]);
        osc_vec3 box = osc_v3(box_points[3 * i], box_points[3 * i + 1], box_points[3 * i + 2]);
        double exact_near = brute_winding(mesh, near), exact_box = brute_winding(mesh, box);
        for (int b = 0; b < 3; ++b) {
            double w = osc_mesh_bvh_winding_number(bvh, near, betas[b]);
            near_max[b] = fmax(near_max[b], fabs(w - exact_near));
            near_mean[b] += fabs(w - exact_near) / SAMPLES;
            wrong_side[b] += (w > 0.5) != (exact_near > 0.5);
            box_max[b] = fmax(box_max[b], fabs(osc_mesh_bvh_winding_number(bvh, box, betas[b]) - exact_box));
        }
    }
    char metric[64];
    for (int b = 0; b < 3; ++b) {
        snprintf(metric, sizeof metric, "winding_error_near_max_beta%g", betas[b]);
        bench_report("mesh_bvh", name, metric, near_max[b], "");
        snprintf(metric, sizeof metric, "winding_error_near_mean_beta%g", betas[b]);
        bench_report("mesh_bvh", name, metric, near_mean[b], "");
        snprintf(metric, sizeof metric, "winding_error_box_max_beta%g", betas[b]);
        bench_report("mesh_bvh", name, metric, box_max[b], "");
        snprintf(metric, sizeof metric, "winding_wrong_side_near_beta%g", betas[b]);
        bench_report("mesh_bvh", name, metric, wrong_side[b], "points of 1000");
    }
    fprintf(stderr, "| %s | %.2g / %.2g / %.2g | %.2g / %.2g / %.2g | %.2g / %.2g / %.2g | %d / %d / %d |\n", name,
            near_max[0], near_max[1], near_max[2], near_mean[0], near_mean[1], near_mean[2], box_max[0], box_max[1],
            box_max[2], wrong_side[0], wrong_side[1], wrong_side[2]);
    osc_mesh_bvh_destroy(bvh);
}

int main(int argc, char** argv) {
    char models[4096], path[4200];
    bench_model_dir(argc > 1 ? argv[1] : NULL, argv[0], models, sizeof models);
    snprintf(path, sizeof path, "%s/armadillo.off", models);
    osc_mesh* mesh = NULL;
    if (osc_mesh_load(path, NULL, &mesh, NULL) != OSC_OK) {
        fprintf(stderr, "bench_mesh_bvh: cannot load %s (%s): run tools/fetch_models.sh\n", path, osc_last_error());
        return 1;
    }
    const char* suite = "mesh_bvh";
    double builds[RUNS];
    osc_mesh_bvh* bvh = NULL;
    for (int r = 0; r < RUNS; ++r) {
        osc_mesh_bvh_destroy(bvh);
        double start = bench_now();
        if (osc_mesh_bvh_create(mesh, &bvh) != OSC_OK) {
            fprintf(stderr, "bench_mesh_bvh: %s\n", osc_last_error());
            return 1;
        }
        builds[r] = bench_now() - start;
    }
    bench_report(suite, "armadillo", "build_time", 1e3 * bench_median(builds, RUNS), "ms");
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(bvh, &lo, &hi);
    fill_points(mesh, lo, hi);

    const struct {
        const char* name;
        const double* points;
    } sets[2] = {{"armadillo_near", near_points}, {"armadillo_box", box_points}};
    for (int s = 0; s < 2; ++s) {
        bench_report(suite, sets[s].name, "closest", rate(bvh, sets[s].points, POINTS, CLOSEST, 0, 1), "queries/s");
        bench_report(suite, sets[s].name, "winding_beta1", rate(bvh, sets[s].points, POINTS / 4, WINDING, 1.0, 1),
                     "queries/s");
        bench_report(suite, sets[s].name, "winding_beta2", rate(bvh, sets[s].points, POINTS / 4, WINDING, 2.0, 1),
                     "queries/s");
        bench_report(suite, sets[s].name, "winding_beta4", rate(bvh, sets[s].points, POINTS / 8, WINDING, 4.0, 1),
                     "queries/s");
        bench_report(suite, sets[s].name, "signed_distance", rate(bvh, sets[s].points, POINTS, SIGNED, 0, 1),
                     "queries/s");
    }
    bench_report(suite, "armadillo_grid", "signed_distance_1thread", rate(bvh, grid_points, GRID_POINTS, SIGNED, 0, 1),
                 "queries/s");
    bench_report(suite, "armadillo_grid", "signed_distance_2threads", rate(bvh, grid_points, GRID_POINTS, SIGNED, 0, 2),
                 "queries/s");
    bench_report(suite, "armadillo_near", "closest_brute_force", brute_rate(mesh, 0), "queries/s");
    bench_report(suite, "armadillo_near", "winding_brute_force", brute_rate(mesh, 1), "queries/s");
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);

    fprintf(stderr, "| mesh | near: max error beta = 1 / 2 / 4 | near: mean | box: max | near: wrong side of 1/2 |\n"
                    "|---|---|---|---|---|\n");
    const char* names[5] = {"armadillo", "bunny00", "ChineseDragon-10kv", "bunny (npm)", "teapot (open)"};
    for (int m = 0; m < 5; ++m) {
        if (m < 3)
            snprintf(path, sizeof path, "%s/%s.off", models, names[m]);
        else
            snprintf(path, sizeof path, "%s/%s", OSC_DATA_DIR, m == 3 ? "bunny.obj" : "teapot.obj");
        osc_mesh* model = NULL;
        if (osc_mesh_load(path, NULL, &model, NULL) != OSC_OK) {
            fprintf(stderr, "bench_mesh_bvh: cannot load %s (%s)\n", path, osc_last_error());
            continue;
        }
        winding_accuracy(names[m], model);
        osc_mesh_destroy(model);
    }
    return 0;
}
