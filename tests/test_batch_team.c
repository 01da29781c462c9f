// test_batch_team.c: the batch runner (osc_batch_run, base.c) enters OpenMP only for a team of two
// or more. Every item records, from inside the runner, omp_get_level() (1 inside a parallel region,
// even a team of one; 0 on the calling thread outside any), the size of its team and whether it ran
// on the calling thread. One thread asked for, a team resolved to one (omp_set_num_threads(1) with
// threads = 0), a batch below the threshold, and a call from inside the caller's own parallel
// region at the nesting limit must all loop on the calling thread at level 0 (or at the caller's
// level); the positive controls (a large batch on two threads, nesting allowed) must see the team,
// so the probe itself is tested. The same is checked through the public batches that call user
// code: osc_sdf_pair_collide_batch with a user SDF, osc_ray_intersect_batch with a user surface.

#define _POSIX_C_SOURCE 200809L

#include "base_internal.h"
#include "osculate/osculate.h"
#include "test_common.h"

#include <pthread.h>
#include <stdatomic.h>

#ifdef _OPENMP
#include <omp.h>

// what the items saw: the deepest level, the largest team, how many ran off the calling thread
typedef struct probe {
    pthread_t caller;
    atomic_int calls, max_level, max_team, elsewhere;
} probe;

static void probe_start(probe* p) {
    p->caller = pthread_self();
    atomic_init(&p->calls, 0);
    atomic_init(&p->max_level, -1);
    atomic_init(&p->max_team, 0);
    atomic_init(&p->elsewhere, 0);
}

static void atomic_max(atomic_int* target, int value) {
    int seen = atomic_load(target);
    while (value > seen && !atomic_compare_exchange_weak(target, &seen, value)) {}
}

static void probe_record(probe* p) {
    atomic_fetch_add(&p->calls, 1);
    atomic_max(&p->max_level, omp_get_level());
    atomic_max(&p->max_team, omp_get_num_threads());
    if (!pthread_equal(pthread_self(), p->caller)) atomic_fetch_add(&p->elsewhere, 1);
}

static osc_status probe_item(void* context, size_t index) {
    (void)index;
    probe_record(context);
    return OSC_OK;
}

// runs `count` probe items through osc_batch_run on `threads` with `min_per_thread`
static void run_probe(probe* p, size_t count, int threads, size_t min_per_thread) {
    probe_start(p);
    CHECK_STATUS(osc_batch_run("test", "item", count, threads, min_per_thread, probe_item, p, NULL), OSC_OK);
    CHECK(atomic_load(&p->calls) == (int)count);
}

static void check_inline(const char* what, const probe* p, int level) {
    CHECK_MSG(atomic_load(&p->max_level) == level && atomic_load(&p->elsewhere) == 0,
              "%s: items saw level %d (expected %d), %d ran off the calling thread", what, atomic_load(&p->max_level),
              level, atomic_load(&p->elsewhere));
}

static void test_runner(void) {
    probe p;
    run_probe(&p, 1000, 1, 1);
    check_inline("threads = 1, 1000 items", &p, 0);
    run_probe(&p, 3, 2, 2); // room for one thread of two items only
    check_inline("threads = 2, 3 items, 2 a thread", &p, 0);
    run_probe(&p, 1, 0, 1);
    check_inline("threads = 0, 1 item", &p, 0);
    int saved = omp_get_max_threads();
    omp_set_num_threads(1); // the default team resolves to one thread
    run_probe(&p, 1000, 0, 1);
    check_inline("threads = 0 with OMP_NUM_THREADS 1, 1000 items", &p, 0);
    omp_set_num_threads(saved);
    CHECK(osc_batch_team(1, 1000000, 1) == 1);
    CHECK(osc_batch_team(2, 3, 2) == 1);
    CHECK(osc_batch_team(2, 4, 2) == 2);
    CHECK(osc_batch_team(3, 4, 2) == 2);

    // positive control: a large batch on two threads runs in a region of two
    run_probe(&p, 1000, 2, 1);
    CHECK_MSG(atomic_load(&p.max_level) == 1 && atomic_load(&p.max_team) == 2,
              "threads = 2, 1000 items: level %d, team %d (expected 1 and 2)", atomic_load(&p.max_level),
              atomic_load(&p.max_team));
}

// a batch called from each thread of the caller's own region of two
static void test_nested(void) {
    int saved = omp_get_max_active_levels();
    for (int allowed = 1; allowed <= 2; ++allowed) {
        omp_set_max_active_levels(allowed);
        atomic_int bad = 0;
#pragma omp parallel num_threads(2)
        {
            probe p;
            run_probe(&p, 1000, 2, 1);
            int level = atomic_load(&p.max_level), team = atomic_load(&p.max_team);
            // at the limit: on the calling thread, inside the caller's region only (level 1, its
            // team); with nesting allowed, a nested team of two (level 2)
            bool expected = allowed == 1 ? level == 1 && atomic_load(&p.elsewhere) == 0 : level == 2 && team == 2;
            if (!expected) {
                fprintf(stderr, "nested, max active levels %d: level %d, team %d, %d items elsewhere\n", allowed, level,
                        team, atomic_load(&p.elsewhere));
                atomic_fetch_add(&bad, 1);
            }
        }
        CHECK_MSG(atomic_load(&bad) == 0, "nested batches with max active levels %d", allowed);
    }
    omp_set_max_active_levels(saved);
}

// a user SDF (a ball of radius 0.5) that records where it runs
static double probe_ball(void* context, const double point[3], double gradient[3]) {
    probe_record(context);
    double r = sqrt(point[0] * point[0] + point[1] * point[1] + point[2] * point[2]);
    if (gradient) {
        double s = r > 0 ? 1.0 / r : 0.0;
        gradient[0] = point[0] * s, gradient[1] = point[1] * s, gradient[2] = point[2] * s;
    }
    return r - 0.5;
}

static void test_sdf_pair_batch(void) {
    enum { PAIRS = 8, CAPACITY = 64 };
    probe p;
    osc_sdf_shape ball = {NULL, probe_ball, &p, {-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5}, 1.0};
    osc_sdf_pair_batch_item items[PAIRS];
    osc_sdf_pair_output outputs[PAIRS];
    static osc_sdf_pair_contact contacts[PAIRS][CAPACITY];
    for (int i = 0; i < PAIRS; ++i) {
        items[i] = (osc_sdf_pair_batch_item){&ball, osc_pose_identity(), &ball,
                                             osc_pose_make(osc_v3(0.9, 0.0, 0.0), osc_quat_identity())};
        outputs[i] = (osc_sdf_pair_output){.contacts = contacts[i], .capacity = CAPACITY};
    }
    struct {
        size_t count;
        int threads, level; // the level the SDF must see; -1: the team of two
    } cases[] = {{1, 2, 0}, {PAIRS, 1, 0}, {PAIRS, 2, -1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        probe_start(&p);
        CHECK_STATUS(osc_sdf_pair_collide_batch(items, cases[c].count, NULL, outputs, NULL, cases[c].threads), OSC_OK);
        CHECK(atomic_load(&p.calls) > 0 && outputs[0].count > 0);
        if (cases[c].level >= 0) {
            check_inline(cases[c].count == 1 ? "sdf pair batch of 1 on 2 threads" : "sdf pair batch on 1 thread", &p,
                         cases[c].level);
        } else {
            CHECK_MSG(atomic_load(&p.max_level) == 1 && atomic_load(&p.max_team) == 2,
                      "sdf pair batch of %d on 2 threads: level %d, team %d", PAIRS, atomic_load(&p.max_level),
                      atomic_load(&p.max_team));
        }
    }
}

// a user surface (the plane z = 0) for rays
static double probe_plane(void* context, const double point[3], double gradient[3]) {
    probe_record(context);
    if (gradient) gradient[0] = 0.0, gradient[1] = 0.0, gradient[2] = 1.0;
    return point[2];
}

static void test_ray_batch(void) {
    enum { RAYS = 1024 };
    probe p;
    osc_implicit* plane = NULL;
    CHECK_STATUS(osc_implicit_create_function(probe_plane, &p, osc_v3(0, 0, 0), 1.0, &plane), OSC_OK);
    if (!plane) return;
    static osc_ray rays[RAYS];
    static osc_ray_hit hits[RAYS];
    for (int i = 0; i < RAYS; ++i) rays[i] = (osc_ray){osc_v3(0.001 * (i % 100), 0.0, 1.0), osc_v3(0.0, 0.0, -1.0)};
    size_t small = 100; // 12 groups of 8 rays and 4 single rays: 16 units, under 64 a thread
    probe_start(&p);
    CHECK_STATUS(osc_ray_intersect_batch(plane, NULL, rays, small, NULL, hits, NULL, 2), OSC_OK);
    CHECK(atomic_load(&p.calls) > 0);
    check_inline("ray batch of 100 on 2 threads", &p, 0);
    probe_start(&p);
    CHECK_STATUS(osc_ray_intersect_batch(plane, NULL, rays, RAYS, NULL, hits, NULL, 1), OSC_OK);
    check_inline("ray batch of 1024 on 1 thread", &p, 0);
    probe_start(&p);
    CHECK_STATUS(osc_ray_intersect_batch(plane, NULL, rays, RAYS, NULL, hits, NULL, 2), OSC_OK);
    CHECK_MSG(atomic_load(&p.max_level) == 1 && atomic_load(&p.max_team) == 2,
              "ray batch of %d on 2 threads: level %d, team %d", RAYS, atomic_load(&p.max_level),
              atomic_load(&p.max_team));
    osc_implicit_destroy(plane);
}
#endif

int main(void) {
#ifdef _OPENMP
    RUN(test_runner);
    RUN(test_nested);
    RUN(test_sdf_pair_batch);
    RUN(test_ray_batch);
#else
    printf("test_batch_team: built without OpenMP; every batch runs on the calling thread\n");
    CHECK(osc_batch_team(2, 1000000, 1) == 1);
#endif
    return test_finish();
}
