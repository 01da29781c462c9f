// bench_sdf.c: SDF evaluation throughput (points per second) for every primitive, the cup of
// Beker et al. 2026 Fig. 9 and a union of 18 random superquadrics (the size of Beker et al. 2026's armadillo), with
// value + gradient on 1 and 2 threads, and value + gradient + Hessian on 1 thread. Each figure is
// the median of 7 runs over the same 200,000 points. There is no peer for analytic SDF evaluation
// in this suite; docs/BENCHMARKS.md records the figures with the machine and date.

#include "bench.h"

#include "../examples/cup_model.h"

#include <math.h>
#include <string.h>

enum { POINTS = 200000, RUNS = 7 };

static double points[3 * POINTS], values[POINTS], gradients[3 * POINTS], hessians[9 * POINTS];

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * ((double)(rng_state >> 11) * 0x1.0p-53);
}

// points in the model's bounds grown by a quarter of their size on each side (a box of side 4 for
// unbounded models)
static void fill_points(const osc_sdf* sdf) {
    osc_vec3 lo, hi;
    osc_sdf_bounds(sdf, &lo, &hi);
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi)) {
        lo = osc_v3(-2, -2, -2);
        hi = osc_v3(2, 2, 2);
    }
    osc_vec3 size = osc_sub(hi, lo);
    lo = osc_sub(lo, osc_scale(size, 0.25));
    size = osc_scale(size, 1.5);
    for (int i = 0; i < POINTS; ++i) {
        points[3 * i] = lo.x + size.x * uniform(0, 1);
        points[3 * i + 1] = lo.y + size.y * uniform(0, 1);
        points[3 * i + 2] = lo.z + size.z * uniform(0, 1);
    }
}

static double throughput(const osc_sdf* sdf, int threads, int hessian) {
    double rates[RUNS];
    // untimed warm-up: starts the thread pool and touches the output pages
    osc_sdf_eval_batch(sdf, points, POINTS, values, gradients, hessian ? hessians : NULL, threads);
    for (int r = 0; r < RUNS; ++r) {
        double start = bench_now();
        osc_sdf_eval_batch(sdf, points, POINTS, values, gradients, hessian ? hessians : NULL, threads);
        rates[r] = POINTS / (bench_now() - start);
    }
    return bench_median(rates, RUNS);
}

static void measure(const char* name, osc_sdf* sdf) {
    if (!sdf) {
        fprintf(stderr, "bench_sdf: %s: %s\n", name, osc_last_error());
        exit(1);
    }
    fill_points(sdf);
    bench_report("sdf", name, "value_gradient_1_thread", throughput(sdf, 1, 0), "points/s");
    bench_report("sdf", name, "value_gradient_2_threads", throughput(sdf, 2, 0), "points/s");
    bench_report("sdf", name, "value_gradient_hessian_1_thread", throughput(sdf, 1, 1), "points/s");
    osc_sdf_destroy(sdf);
}

// creates a model with `call` (which writes to `sdf`) and measures it
#define MEASURE(name, call)                                                                                            \
    do {                                                                                                               \
        osc_sdf* sdf = NULL;                                                                                           \
        measure(name, (call) == OSC_OK ? sdf : NULL);                                                                  \
    } while (0)

// 18 superquadrics with random shapes, sizes and poses, smoothly united (Beker et al. 2026 Fig. 1)
static osc_sdf* make_sq_union(void) {
    osc_sdf* parts[18];
    for (int i = 0; i < 18; ++i) {
        osc_sdf* sq = NULL;
        osc_sdf_create_superquadric(osc_v3(uniform(0.1, 0.4), uniform(0.1, 0.4), uniform(0.1, 0.4)), uniform(0.2, 1.5),
                                    uniform(0.2, 1.5), &sq);
        osc_quat q = osc_quat_normalize((osc_quat){uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)});
        osc_pose pose = {osc_v3(uniform(-0.5, 0.5), uniform(-0.5, 0.5), uniform(-0.7, 0.7)), q};
        osc_sdf_create_transformed(sq, pose, 1.0, &parts[i]);
        osc_sdf_destroy(sq);
    }
    osc_sdf* u = NULL;
    osc_sdf_create_union((const osc_sdf* const*)parts, 18, 0.02, &u);
    for (int i = 0; i < 18; ++i) osc_sdf_destroy(parts[i]);
    return u;
}

static osc_sdf* make_curved_xpsq(void) {
    osc_xpsq_desc d = osc_xpsq_desc_default();
    d.control_points[0] = osc_v3(0, 0, 0);
    d.control_points[1] = osc_v3(1, 0, 1);
    d.control_points[2] = osc_v3(2, 0, 0);
    d.scale[0] = osc_profile_constant(0.2);
    d.scale[1] = osc_profile_linear(0.3, 0.15);
    d.scale[2] = osc_profile_constant(0.1);
    d.exponent[0] = osc_profile_constant(0.5);
    d.exponent[1] = osc_profile_constant(0.4);
    osc_sdf* s = NULL;
    osc_sdf_create_xpsq(&d, &s);
    return s;
}

int main(void) {
    // untimed warm-up of the whole process (CPU clock, thread pool) before the first figure
    osc_sdf* warm = NULL;
    osc_sdf_create_sphere(1.0, &warm);
    fill_points(warm);
    for (int i = 0; i < 20; ++i) throughput(warm, 2, 0);
    osc_sdf_destroy(warm);
    MEASURE("sphere", osc_sdf_create_sphere(1.0, &sdf));
    MEASURE("box", osc_sdf_create_box(osc_v3(1, 0.5, 0.7), 0.0, &sdf));
    MEASURE("rounded_box", osc_sdf_create_box(osc_v3(1, 0.5, 0.7), 0.1, &sdf));
    MEASURE("capsule", osc_sdf_create_capsule(0.3, 0.8, &sdf));
    MEASURE("cylinder", osc_sdf_create_cylinder(0.5, 0.8, &sdf));
    MEASURE("cone", osc_sdf_create_cone(0.6, 0.2, 0.8, &sdf));
    MEASURE("torus", osc_sdf_create_torus(1.0, 0.3, &sdf));
    MEASURE("halfspace", osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &sdf));
    MEASURE("ellipsoid", osc_sdf_create_ellipsoid(osc_v3(1, 0.6, 0.4), &sdf));
    MEASURE("superquadric", osc_sdf_create_superquadric(osc_v3(1, 0.6, 0.4), 0.4, 0.8, &sdf));
    osc_plane planes[2] = {{{1, 0, 0}, -0.5}, {{0, 0, -1}, -0.1}};
    MEASURE("psq_2_planes", osc_sdf_create_psq(osc_v3(1, 0.6, 0.4), 0.4, 0.8, planes, 2, 0.02, &sdf));
    measure("xpsq_curved", make_curved_xpsq());
    MEASURE("cup_3_xpsq", make_cup(&sdf));
    measure("union_18_sq", make_sq_union());
    return 0;
}
