// bench_grid.c: spline SDFs of the armadillo (Beker et al. 2026's model): build time at 64^3 and 128^3 and
// evaluation throughput, with the peers measured in the same run on the same mesh by
// bench/peers/mesh_sdf_peers.py: MuJoCo's mesh SDF (octree of corner distances, trilinear; PyPI
// mujoco) and pysdf (distance to the triangles around the nearest vertex, ray-parity sign, no
// gradient; PyPI pysdf). Side-by-side figures carry "peer" and "peer_value"; every figure of the
// peers (including mesh-to-sdf at 64^3) is copied to the output too.
//
// The mesh is $OSC_BUILD_DIR/models/armadillo.off (tools/fetch_models.sh); the peers' virtual
// environment is $OSC_BUILD_DIR/peers/venv (bench/peers/setup.sh). A missing peer is reported.

#include "bench.h"

#include "osculate/osculate.h"

#include <math.h>
#include <string.h>

enum { POINTS = 1000000, RUNS = 5 };

static double points[3 * POINTS], values[POINTS], gradients[3 * POINTS], normals[3 * POINTS];

static double build_seconds(const osc_mesh_bvh* bvh, int resolution, int threads) {
    double times[3];
    for (int r = 0; r < 3; ++r) {
        osc_grid_settings settings = osc_grid_settings_default();
        settings.resolution = resolution;
        settings.threads = threads;
        osc_grid* grid = NULL;
        double start = bench_now();
        if (osc_grid_create_from_mesh(bvh, &settings, &grid) != OSC_OK) {
            fprintf(stderr, "bench_grid: %s\n", osc_last_error());
            exit(1);
        }
        times[r] = bench_now() - start;
        osc_grid_destroy(grid);
    }
    return bench_median(times, 3);
}

static double eval_rate(const osc_grid* grid, int threads, int with_normals) {
    double rates[RUNS];
    osc_grid_eval_batch(grid, points, POINTS, values, gradients, with_normals ? normals : NULL, threads);
    for (int r = 0; r < RUNS; ++r) {
        double start = bench_now();
        osc_grid_eval_batch(grid, points, POINTS, values, gradients, with_normals ? normals : NULL, threads);
        rates[r] = POINTS / (bench_now() - start);
    }
    return bench_median(rates, RUNS);
}

// one figure of the peer script: "case" ends with the peer's name, "metric" and "value" as printed
typedef struct peer_figure {
    char peer[64], metric[160];
    double value;
} peer_figure;

static int read_peers(const char* build, const char* mesh, int resolution, const char* peers, peer_figure* figures,
                      int capacity) {
    char command[1024];
    snprintf(command, sizeof command,
             "python3 bench/peers/mesh_sdf_peers.py %s %d 100000 --peers %s --peers-dir %s/peers 2>/dev/null", mesh,
             resolution, peers, build);
    FILE* pipe = popen(command, "r");
    if (!pipe) return 0;
    char line[1024];
    int count = 0;
    while (fgets(line, sizeof line, pipe)) {
        fputs(line, stdout); // the peer's own figures go to results.jsonl too
        char* c = strstr(line, "\"case\": \"");
        char* m = strstr(line, "\"metric\": \"");
        char* v = strstr(line, "\"value\": ");
        if (!c || !m || !v || count == capacity) continue;
        peer_figure* f = &figures[count];
        char* name_end = strchr(c + 9, '"');
        char* space = name_end ? memchr(c + 9, ' ', (size_t)(name_end - (c + 9))) : NULL;
        char* metric_end = strchr(m + 11, '"');
        if (!name_end || !space || !metric_end) continue;
        snprintf(f->peer, sizeof f->peer, "%.*s", (int)(name_end - space - 1), space + 1);
        snprintf(f->metric, sizeof f->metric, "%.*s", (int)(metric_end - (m + 11)), m + 11);
        f->value = strtod(v + 9, NULL);
        ++count;
    }
    pclose(pipe);
    return count;
}

static double find_peer(const peer_figure* figures, int count, const char* peer, const char* metric) {
    for (int i = 0; i < count; ++i)
        if (!strcmp(figures[i].peer, peer) && !strcmp(figures[i].metric, metric)) return figures[i].value;
    return NAN;
}

static void side_by_side(const char* name, const char* metric, double ours, const char* unit, const char* peer,
                         double theirs) {
    if (isnan(theirs)) {
        printf("{\"suite\": \"grid\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", "
               "\"peer\": \"%s\", \"peer_value\": null, \"note\": \"peer missing\"}\n",
               name, metric, ours, unit, peer);
        return;
    }
    bench_report_peer("grid", name, metric, ours, unit, peer, theirs);
}

int main(void) {
    const char* build = getenv("OSC_BUILD_DIR") ? getenv("OSC_BUILD_DIR") : "build";
    char mesh_path[512];
    snprintf(mesh_path, sizeof mesh_path, "%s/models/armadillo.off", build);
    osc_mesh* mesh = NULL;
    osc_mesh_bvh* bvh = NULL;
    if (osc_mesh_load(mesh_path, NULL, &mesh, NULL) != OSC_OK || osc_mesh_bvh_create(mesh, &bvh) != OSC_OK) {
        fprintf(stderr, "bench_grid: %s (run tools/fetch_models.sh)\n", osc_last_error());
        return 1;
    }
    double start = bench_now();
    osc_mesh_bvh* again = NULL;
    osc_mesh_bvh_create(mesh, &again);
    bench_report("grid", "armadillo", "bvh build", bench_now() - start, "s");
    osc_mesh_bvh_destroy(again);

    double build64_1 = build_seconds(bvh, 64, 1), build64_2 = build_seconds(bvh, 64, 2);
    double build128_2 = build_seconds(bvh, 128, 2);

    osc_grid_settings settings = osc_grid_settings_default();
    osc_grid* grid = NULL;
    osc_grid_create_from_mesh(bvh, &settings, &grid);
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(bvh, &lo, &hi);
    osc_vec3 centre = osc_scale(osc_add(lo, hi), 0.5), half = osc_scale(osc_sub(hi, lo), 0.55);
    unsigned long long state = 12345;
    for (int i = 0; i < 3 * POINTS; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u = 2.0 * ((double)(state >> 11) * 0x1.0p-53) - 1.0;
        points[i] = osc_vec3_get(centre, i % 3) + u * osc_vec3_get(half, i % 3);
    }
    double grad_1 = eval_rate(grid, 1, 0), grad_2 = eval_rate(grid, 2, 0);
    double normal_1 = eval_rate(grid, 1, 1), normal_2 = eval_rate(grid, 2, 1);

    peer_figure figures[64];
    // mesh-to-sdf takes minutes at 128^3: it is measured at 64^3 only
    int count = read_peers(build, mesh_path, 64, "mujoco,pysdf,mesh-to-sdf", figures, 32);
    count += read_peers(build, mesh_path, 128, "mujoco,pysdf", figures + count, 64 - count);

    side_by_side("armadillo", "build 64^3, 2 threads", build64_2, "s", "mujoco",
                 find_peer(figures, count, "mujoco", "build 64^3 (octree depth 6)"));
    side_by_side("armadillo", "build 64^3, 1 thread", build64_1, "s", "mujoco",
                 find_peer(figures, count, "mujoco", "build 64^3 (octree depth 6)"));
    side_by_side("armadillo", "build 128^3, 2 threads", build128_2, "s", "mujoco",
                 find_peer(figures, count, "mujoco", "build 128^3 (octree depth 7)"));
    side_by_side("armadillo", "eval distance+gradient, 1 thread", grad_1, "points/s", "mujoco",
                 find_peer(figures, count, "mujoco", "eval distance+gradient (octree depth 6), 1 thread"));
    side_by_side("armadillo", "eval distance+gradient, 2 threads", grad_2, "points/s", "mujoco (1 thread)",
                 find_peer(figures, count, "mujoco", "eval distance+gradient (octree depth 6), 1 thread"));
    side_by_side("armadillo", "eval distance+gradient, 1 thread", grad_1, "points/s", "pysdf (distance only)",
                 find_peer(figures, count, "pysdf", "eval distance, 1 thread"));
    bench_report("grid", "armadillo", "eval distance+gradient+normal, 1 thread", normal_1, "points/s");
    bench_report("grid", "armadillo", "eval distance+gradient+normal, 2 threads", normal_2, "points/s");
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
    return 0;
}
