// bench_mesh.c: the mesh container and importers on real models: load from memory (parse, exact
// welding, unreferenced-vertex check, unique edges and topology), the container alone
// (osc_mesh_create of the loaded arrays: copy, validation, edges and topology), from a file, reordering along
// Morton and Hilbert curves, and the ordering of a million random points. Best of 15 (loads) or
// median of 5; the tables of docs/mesh.md go to stderr.
//
// usage: bench_mesh [MODEL_DIR]; the default is ../models next to this program's directory.

#include "bench.h"

#include "osculate/mesh.h"

#include <string.h>

enum { LOADS = 15, RUNS = 5, RANDOM_POINTS = 1000000 };

static double random_points[3 * RANDOM_POINTS];
static int32_t order[RANDOM_POINTS];

static unsigned char* read_file(const char* path, size_t* size) {
    FILE* file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char* data = length > 0 ? malloc((size_t)length) : NULL;
    if (data && fread(data, 1, (size_t)length, file) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(file);
    *size = data ? (size_t)length : 0;
    return data;
}

static double best(const double* times, int count) {
    double smallest = times[0];
    for (int i = 1; i < count; ++i) smallest = times[i] < smallest ? times[i] : smallest;
    return smallest;
}

static void load_speed(const char* name, const char* path) {
    size_t size = 0;
    unsigned char* data = read_file(path, &size);
    if (!data) {
        fprintf(stderr, "bench_mesh: cannot read %s\n", path);
        return;
    }
    double memory[LOADS], container[LOADS], file[LOADS];
    osc_mesh* mesh = NULL;
    for (int r = 0; r < LOADS; ++r) {
        osc_mesh_destroy(mesh);
        double start = bench_now();
        if (osc_mesh_load_memory(data, size, NULL, &mesh, NULL) != OSC_OK) {
            fprintf(stderr, "bench_mesh: %s\n", osc_last_error());
            free(data);
            return;
        }
        memory[r] = bench_now() - start;
        osc_mesh* copy = NULL;
        start = bench_now();
        osc_mesh_create(osc_mesh_vertices(mesh), osc_mesh_vertex_count(mesh), osc_mesh_triangles(mesh),
                        osc_mesh_triangle_count(mesh), &copy);
        container[r] = bench_now() - start;
        osc_mesh_destroy(copy);
        osc_mesh* loaded = NULL;
        start = bench_now();
        osc_mesh_load(path, NULL, &loaded, NULL);
        file[r] = bench_now() - start;
        osc_mesh_destroy(loaded);
    }
    bench_report("mesh", name, "load from memory (best of 15)", 1e3 * best(memory, LOADS), "ms");
    bench_report("mesh", name, "osc_mesh_create of the loaded arrays (best of 15)", 1e3 * best(container, LOADS), "ms");
    bench_report("mesh", name, "load from a file (best of 15)", 1e3 * best(file, LOADS), "ms");
    fprintf(stderr, "| %s | %.1f MB | %d / %d | %.2g ms | %.2g ms | %.2g ms |\n", name, size / 1e6,
            (int)osc_mesh_vertex_count(mesh), (int)osc_mesh_triangle_count(mesh), 1e3 * best(memory, LOADS),
            1e3 * best(container, LOADS), 1e3 * best(file, LOADS));
    osc_mesh_destroy(mesh);
    free(data);
}

static void reorder_speed(const char* path) {
    osc_mesh* mesh = NULL;
    if (osc_mesh_load(path, NULL, &mesh, NULL) != OSC_OK) return;
    const char* curves[2] = {"Morton", "Hilbert"};
    for (int c = 0; c < 2; ++c) {
        double times[RUNS];
        for (int r = 0; r < RUNS; ++r) {
            osc_mesh* reordered = NULL;
            double start = bench_now();
            osc_mesh_reorder(mesh, (osc_curve)c, &reordered, NULL, NULL);
            times[r] = bench_now() - start;
            osc_mesh_destroy(reordered);
        }
        char metric[64];
        snprintf(metric, sizeof metric, "reorder, %s (median of 5)", curves[c]);
        double ms = 1e3 * bench_median(times, RUNS);
        bench_report("mesh", "armadillo", metric, ms, "ms");
        fprintf(stderr, "reorder the armadillo along %s: %.1f ms\n", curves[c], ms);
    }
    osc_mesh_destroy(mesh);
    unsigned long long state = 7;
    for (int i = 0; i < 3 * RANDOM_POINTS; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        random_points[i] = (double)(state >> 11) * 0x1.0p-53;
    }
    for (int c = 0; c < 2; ++c) {
        double times[RUNS];
        for (int r = 0; r < RUNS; ++r) {
            double start = bench_now();
            osc_curve_order(random_points, RANDOM_POINTS, (osc_curve)c, order);
            times[r] = bench_now() - start;
        }
        char metric[64];
        snprintf(metric, sizeof metric, "order 1M random points, %s (median of 5)", curves[c]);
        double ns = 1e9 * bench_median(times, RUNS) / RANDOM_POINTS;
        bench_report("mesh", "random points", metric, ns, "ns/point");
        fprintf(stderr, "order a million random points along %s: %.0f ns a point\n", curves[c], ns);
    }
}

int main(int argc, char** argv) {
    char models[4096], path[4200];
    bench_model_dir(argc > 1 ? argv[1] : NULL, argv[0], models, sizeof models);
    fprintf(stderr,
            "| model | size | vertices / triangles | load from memory | osc_mesh_create of the "
            "same arrays (copy, validation, edges, topology) | load from a file |\n|---|---|---|---|---|---|\n");
    snprintf(path, sizeof path, "%s/armadillo.off", models);
    load_speed("armadillo.off (CGAL)", path);
    snprintf(path, sizeof path, "%s/bunny00.off", models);
    load_speed("bunny00.off (CGAL)", path);
    load_speed("bunny.obj (data/)", OSC_DATA_DIR "/bunny.obj");
    snprintf(path, sizeof path, "%s/armadillo.off", models);
    reorder_speed(path);
    return 0;
}
