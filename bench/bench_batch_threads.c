// bench_batch_threads.c: what a thread team costs and what it leaves behind (docs/api.md, Batches).
//
// - threshold: batches of 1..512 items (manifold: 1..16) of three runners, DCOL pairs (a capsule and a box, with and
//   without all Jacobians), manifold pairs (two meshed-and-analytic spheres) and SDF evaluation
//   blocks (64 points of a sphere with gradients and Hessians, as osc_sdf_eval_batch's block), run
//   by osc_batch_run on the calling thread (threads 1) and forced onto a team of two (threads 2,
//   one item a thread), alternating the two sides, median time per batch; "team/inline" below 1
//   means the team pays.
// - spin: the process CPU time (getrusage) over a 50 ms sleep right after a two-thread batch of
//   1,000 SDF points, median of 11: what OpenMP's idle threads burn after the call returns.
//   OMP_WAIT_POLICY and GOMP_SPINCOUNT are read once by the OpenMP runtime, so run it once per
//   environment to compare (bench/README.md).
// - back to back: the median time of a two-thread batch of 100 DCOL pairs (all Jacobians) and of
//   1,000 SDF points called back to back, and the same on one thread; and of one batch of 100 DCOL
//   pairs 1 ms after the last (the team has gone to sleep unless it spins that long).
// Arguments: none (all three), or "threshold" / "spin" for one part.

#include "bench.h"

#include "base_internal.h"
#include "osculate/osculate.h"

#include <sys/resource.h>

enum { ROUNDS = 31, SDF_BLOCK = 64, MAX_ITEMS = 512, MANIFOLD_ITEMS = 16 };

static void fail(const char* what) {
    fprintf(stderr, "bench_batch_threads: %s: %s\n", what, osc_last_error());
    exit(1);
}

// ---------------------------------------------------------------------------------------------
// the items

typedef struct dcol_case {
    osc_convex *a, *b;
    osc_pose pose_a[MAX_ITEMS], pose_b[MAX_ITEMS];
    osc_dcol_result results[MAX_ITEMS];
    double jacobian_storage[MAX_ITEMS][16 * 12];
    bool with_jacobians;
} dcol_case;

static osc_status dcol_item(void* context, size_t i) {
    dcol_case* c = context;
    double* s = c->jacobian_storage[i];
    osc_dcol_jacobians j = {s, s + 12, s + 48, s + 84, s + 120, s + 132};
    return osc_dcol_proximity(c->a, c->pose_a[i], c->b, c->pose_b[i], NULL, &c->results[i],
                              c->with_jacobians ? &j : NULL, NULL);
}

enum { MANIFOLD_CAPACITY = 2048 };

typedef struct manifold_case {
    osc_body *a, *b;
    osc_pose pose_a[MANIFOLD_ITEMS], pose_b[MANIFOLD_ITEMS];
    osc_manifold_contact contacts[MANIFOLD_ITEMS][MANIFOLD_CAPACITY];
} manifold_case;

static osc_status manifold_item(void* context, size_t i) {
    manifold_case* c = context;
    osc_manifold_output out = {.contacts = c->contacts[i], .capacity = MANIFOLD_CAPACITY};
    return osc_manifold_collide(c->a, c->pose_a[i], c->b, c->pose_b[i], NULL, &out);
}

typedef struct sdf_case {
    osc_sdf* sdf;
    double points[MAX_ITEMS * SDF_BLOCK * 3], values[MAX_ITEMS * SDF_BLOCK], gradients[MAX_ITEMS * SDF_BLOCK * 3],
        hessians[MAX_ITEMS * SDF_BLOCK * 9];
} sdf_case;

static osc_status sdf_item(void* context, size_t i) {
    sdf_case* c = context;
    size_t o = i * SDF_BLOCK;
    return osc_sdf_eval_batch(c->sdf, c->points + 3 * o, SDF_BLOCK, c->values + o, c->gradients + 3 * o,
                              c->hessians + 9 * o, 1);
}

// the median seconds of one batch of `count` items, inline (threads 1) and on a team of two, over
// ROUNDS alternating rounds of `repeat` batches each
static void time_batch(osc_batch_item item, void* context, size_t count, int repeat, double* inline_s, double* team_s) {
    double a[ROUNDS], b[ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) {
        for (int side = 0; side < 2; ++side) {
            int threads = (side + r) % 2 ? 2 : 1; // alternate which side goes first
            double start = bench_now();
            for (int k = 0; k < repeat; ++k)
                if (osc_batch_run("bench", "item", count, threads, 1, item, context, NULL) != OSC_OK) fail("batch");
            double t = (bench_now() - start) / repeat;
            if (threads == 1)
                a[r] = t;
            else
                b[r] = t;
        }
    }
    *inline_s = bench_median(a, ROUNDS);
    *team_s = bench_median(b, ROUNDS);
}

// `repeat` batches of about a millisecond of work for one item of `seconds`
static int repeat_for(double seconds, size_t count) {
    double r = 2e-3 / (seconds * (double)count);
    return r < 1 ? 1 : r > 2000 ? 2000 : (int)r;
}

static double one_item_seconds(osc_batch_item item, void* context, size_t items) {
    double start = bench_now();
    int n = 0;
    while (bench_now() - start < 0.02) {
        if (item(context, (size_t)n % items) != OSC_OK) fail("item");
        ++n;
    }
    return (bench_now() - start) / n;
}

static void threshold_sweep(const char* name, osc_batch_item item, void* context, size_t max_items) {
    static const size_t counts[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
    double single = one_item_seconds(item, context, max_items);
    fprintf(stderr, "\n%s: one item %.2f us\n  items  inline us  team us  team/inline\n", name, 1e6 * single);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && counts[k] <= max_items; ++k) {
        double inline_s, team_s;
        time_batch(item, context, counts[k], repeat_for(single, counts[k]), &inline_s, &team_s);
        fprintf(stderr, "  %5zu  %9.2f  %7.2f  %11.2f\n", counts[k], 1e6 * inline_s, 1e6 * team_s, team_s / inline_s);
        char label[96];
        snprintf(label, sizeof label, "%s-%zu-items", name, counts[k]);
        bench_report("batch_threads", label, "team_over_inline", team_s / inline_s, "ratio");
    }
}

static osc_mesh* sphere_mesh(const osc_sdf* sphere) {
    osc_isosurface_settings s = osc_isosurface_settings_default();
    s.resolution = 24;
    osc_mesh* mesh = NULL;
    if (osc_isosurface_extract(sphere, &s, &mesh) != OSC_OK) fail("osc_isosurface_extract");
    return mesh;
}

static osc_body* sphere_body(double radius, osc_sdf** sdf, osc_mesh** mesh) {
    if (osc_sdf_create_sphere(radius, sdf) != OSC_OK) fail("osc_sdf_create_sphere");
    *mesh = sphere_mesh(*sdf);
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = *mesh;
    desc.sdf = *sdf;
    osc_body* body = NULL;
    if (osc_body_create(&desc, &body) != OSC_OK) fail("osc_body_create");
    return body;
}

static void fill_dcol(dcol_case* c, bench_rng* rng) {
    if (osc_convex_create_capsule(0.2, 0.5, &c->a) != OSC_OK || osc_convex_create_box(osc_v3(0.3, 0.4, 0.5), &c->b))
        fail("convex");
    for (int i = 0; i < MAX_ITEMS; ++i) {
        c->pose_a[i] = osc_pose_make(osc_v3(0, 0, 0), bench_random_rotation(rng));
        c->pose_b[i] = osc_pose_make(osc_v3(bench_uniform(rng, 0.5, 1.5), bench_uniform(rng, -0.3, 0.3), 0.1),
                                     bench_random_rotation(rng));
    }
}

static void fill_sdf(sdf_case* c, bench_rng* rng) {
    if (osc_sdf_create_sphere(0.5, &c->sdf) != OSC_OK) fail("osc_sdf_create_sphere");
    for (int i = 0; i < MAX_ITEMS * SDF_BLOCK * 3; ++i) c->points[i] = bench_uniform(rng, -1, 1);
}

static void run_threshold(void) {
    bench_rng rng = {12345};
    static dcol_case dcol;
    fill_dcol(&dcol, &rng);
    dcol.with_jacobians = false;
    threshold_sweep("dcol", dcol_item, &dcol, MAX_ITEMS);
    dcol.with_jacobians = true;
    threshold_sweep("dcol-jacobians", dcol_item, &dcol, MAX_ITEMS);

    static manifold_case manifold;
    osc_sdf *sa, *sb;
    osc_mesh *ma, *mb;
    manifold.a = sphere_body(0.4, &sa, &ma);
    manifold.b = sphere_body(0.5, &sb, &mb);
    for (int i = 0; i < MANIFOLD_ITEMS; ++i) {
        manifold.pose_a[i] = osc_pose_make(osc_v3(0, 0, 0), bench_random_rotation(&rng));
        manifold.pose_b[i] = osc_pose_make(osc_v3(bench_uniform(&rng, 0.8, 0.88), 0, 0), bench_random_rotation(&rng));
    }
    threshold_sweep("manifold", manifold_item, &manifold, MANIFOLD_ITEMS);

    static sdf_case sdf;
    fill_sdf(&sdf, &rng);
    threshold_sweep("sdf-block-of-64-points", sdf_item, &sdf, MAX_ITEMS);

    osc_body_destroy(manifold.a), osc_body_destroy(manifold.b);
    osc_mesh_destroy(ma), osc_mesh_destroy(mb);
    osc_sdf_destroy(sa), osc_sdf_destroy(sb), osc_sdf_destroy(sdf.sdf);
    osc_convex_destroy(dcol.a), osc_convex_destroy(dcol.b);
}

// ---------------------------------------------------------------------------------------------
// after the call

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

static double cpu_over_sleep(void) {
    double start = cpu_seconds();
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    return cpu_seconds() - start;
}

static void run_spin(void) {
    enum { SPIN_ROUNDS = 11, SDF_POINTS = 1000, DCOL_PAIRS = 100, BACK_TO_BACK = 400 };
    bench_rng rng = {777};
    static sdf_case sdf;
    fill_sdf(&sdf, &rng);
    const char* policy = getenv("OMP_WAIT_POLICY");
    const char* spincount = getenv("GOMP_SPINCOUNT");
    fprintf(stderr, "\nOMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n", policy ? policy : "(unset)",
            spincount ? spincount : "(unset)");

    double quiet[SPIN_ROUNDS], after[SPIN_ROUNDS];
    for (int r = 0; r < SPIN_ROUNDS; ++r) {
        quiet[r] = cpu_over_sleep();
        if (osc_sdf_eval_batch(sdf.sdf, sdf.points, SDF_POINTS, sdf.values, sdf.gradients, sdf.hessians, 2) != OSC_OK)
            fail("osc_sdf_eval_batch");
        after[r] = cpu_over_sleep();
    }
    double q = bench_median(quiet, SPIN_ROUNDS), a = bench_median(after, SPIN_ROUNDS);
    fprintf(stderr, "  cpu over a 50 ms sleep: %.2f ms after a 2-thread batch, %.2f ms before it\n", 1e3 * a, 1e3 * q);
    bench_report("batch_threads", "cpu-after-2-thread-batch", "cpu_over_50ms_sleep", 1e3 * a, "ms");

    static dcol_case dcol;
    fill_dcol(&dcol, &rng);
    static osc_dcol_batch_item items[DCOL_PAIRS];
    static osc_dcol_result results[DCOL_PAIRS];
    static double storage[DCOL_PAIRS][16 * 12];
    static osc_dcol_jacobians j[DCOL_PAIRS];
    for (int i = 0; i < DCOL_PAIRS; ++i) {
        double* s = storage[i];
        j[i] = (osc_dcol_jacobians){s, s + 12, s + 48, s + 84, s + 120, s + 132};
    }
    for (int i = 0; i < DCOL_PAIRS; ++i)
        items[i] = (osc_dcol_batch_item){dcol.a, dcol.pose_a[i], dcol.b, dcol.pose_b[i], NULL};
    for (int threads = 2; threads >= 1; --threads) {
        double d[ROUNDS], e[ROUNDS];
        for (int r = 0; r < ROUNDS; ++r) {
            double start = bench_now();
            for (int k = 0; k < BACK_TO_BACK / 20; ++k)
                if (osc_dcol_proximity_batch(items, DCOL_PAIRS, NULL, results, j, NULL, threads) != OSC_OK)
                    fail("osc_dcol_proximity_batch");
            d[r] = (bench_now() - start) / (BACK_TO_BACK / 20);
            start = bench_now();
            for (int k = 0; k < BACK_TO_BACK; ++k)
                if (osc_sdf_eval_batch(sdf.sdf, sdf.points, SDF_POINTS, sdf.values, sdf.gradients, sdf.hessians,
                                       threads) != OSC_OK)
                    fail("osc_sdf_eval_batch");
            e[r] = (bench_now() - start) / BACK_TO_BACK;
        }
        double dm = bench_median(d, ROUNDS), em = bench_median(e, ROUNDS);
        fprintf(stderr, "  back to back on %d thread%s: 100 DCOL pairs %.1f us, 1,000 SDF points %.1f us\n", threads,
                threads > 1 ? "s" : "", 1e6 * dm, 1e6 * em);
        char label[64];
        snprintf(label, sizeof label, "dcol-100-pairs-%d-threads", threads);
        bench_report("batch_threads", label, "time", 1e6 * dm, "us");
        snprintf(label, sizeof label, "sdf-1000-points-%d-threads", threads);
        bench_report("batch_threads", label, "time", 1e6 * em, "us");
    }
    // one batch at a time, 1 ms apart (a simulation step's other work): the team is asleep or not
    double iso[2][ROUNDS];
    for (int r = 0; r < ROUNDS; ++r)
        for (int side = 0; side < 2; ++side) {
            int threads = (side + r) % 2 ? 2 : 1;
            struct timespec gap = {0, 1000 * 1000};
            nanosleep(&gap, NULL);
            double start = bench_now();
            if (osc_dcol_proximity_batch(items, DCOL_PAIRS, NULL, results, j, NULL, threads) != OSC_OK)
                fail("osc_dcol_proximity_batch");
            iso[threads - 1][r] = bench_now() - start;
        }
    double one = bench_median(iso[0], ROUNDS), two = bench_median(iso[1], ROUNDS);
    fprintf(stderr, "  one batch of 100 DCOL pairs 1 ms after the last: %.1f us on 2 threads, %.1f us on 1\n",
            1e6 * two, 1e6 * one);
    bench_report("batch_threads", "dcol-100-pairs-1ms-apart-2-threads", "time", 1e6 * two, "us");
    bench_report("batch_threads", "dcol-100-pairs-1ms-apart-1-thread", "time", 1e6 * one, "us");
    osc_sdf_destroy(sdf.sdf);
    osc_convex_destroy(dcol.a), osc_convex_destroy(dcol.b);
}

int main(int argc, char** argv) {
    const char* part = argc > 1 ? argv[1] : "all";
    if (strcmp(part, "all") == 0 || strcmp(part, "threshold") == 0) run_threshold();
    if (strcmp(part, "all") == 0 || strcmp(part, "spin") == 0) run_spin();
    return 0;
}
