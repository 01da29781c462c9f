// test_threads.c: models are read-only and shared. Several threads run every query family at once
// on the same models (query_fixtures.h), each in its own order, and every answer must equal the one
// computed alone on the main thread, bit for bit; batches run inside the threads too, and each
// thread's error messages stay its own. Built with -DOSC_SANITIZE_THREAD=ON (`make test-tsan`), the
// same program lets ThreadSanitizer look for data races in the library.

#define _POSIX_C_SOURCE 200809L // pthreads: ThreadSanitizer intercepts pthread_create, not thrd_create

#include "osculate/osculate.h"
#include "query_fixtures.h"
#include "test_common.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>

enum { THREADS = 4, CONFIGS = 6, ROUNDS = 2 };

static query_models models;

// the answers computed alone, on the main thread
typedef struct reference {
    shape_answer shapes[CONFIGS];
    manifold_answer manifold[CONFIGS];
    dcol_answer dcol[CONFIGS];
    sdf_pair_answer pair_hard, pair_smooth;
    ray_answer ray[CONFIGS];
    lmd_answer lmd[CONFIGS]; // the steps of one trajectory, with a cache
} reference;

static reference* alone;
static atomic_int mismatches;
static atomic_int failures;

// ---------------------------------------------------------------------------------------------
// bit-for-bit comparison, field by field where a struct has padding

static bool same(const void* a, const void* b, size_t size) { return memcmp(a, b, size) == 0; }

static bool same_closest(const osc_mesh_closest* a, const osc_mesh_closest* b) {
    return same(&a->point, &b->point, sizeof a->point) && same(&a->distance, &b->distance, sizeof a->distance) &&
           a->triangle == b->triangle && a->feature == b->feature && a->feature_index == b->feature_index &&
           same(a->barycentric, b->barycentric, sizeof a->barycentric);
}

static bool same_shapes(const shape_answer* a, const shape_answer* b) {
    return same(a->values, b->values, sizeof a->values) && same(a->gradients, b->gradients, sizeof a->gradients) &&
           same(a->hessians, b->hessians, sizeof a->hessians) && same_closest(&a->closest, &b->closest);
}

static bool same_manifold(const manifold_answer* a, const manifold_answer* b) {
    size_t n = (size_t)(a->count < FIXTURE_MANIFOLD_CAPACITY ? a->count : FIXTURE_MANIFOLD_CAPACITY);
    return a->count == b->count && a->needed == b->needed &&
           same(a->contacts, b->contacts, n * sizeof a->contacts[0]) &&
           same(a->distance_jacobians, b->distance_jacobians, n * sizeof a->distance_jacobians[0]) &&
           same(a->point_jacobians, b->point_jacobians, n * sizeof a->point_jacobians[0]);
}

static bool same_sdf_pair(const sdf_pair_answer* a, const sdf_pair_answer* b) {
    size_t n = (size_t)(a->count < FIXTURE_PAIR_CAPACITY ? a->count : FIXTURE_PAIR_CAPACITY);
    return a->count == b->count && a->needed == b->needed && a->spheres == b->spheres && a->survivors == b->survivors &&
           same(a->contacts, b->contacts, n * sizeof a->contacts[0]) &&
           same(a->point_jacobians, b->point_jacobians, n * sizeof a->point_jacobians[0]) &&
           same(a->distance_jacobians, b->distance_jacobians, n * sizeof a->distance_jacobians[0]);
}

static bool same_ray(const ray_answer* a, const ray_answer* b) {
    size_t hit_bytes = offsetof(osc_ray_hit, iterations) + sizeof(int); // not the tail padding
    return same(&a->hit[0], &b->hit[0], hit_bytes) && same(&a->hit[1], &b->hit[1], hit_bytes) &&
           same(a->t_origin, b->t_origin, sizeof a->t_origin) &&
           same(a->t_direction, b->t_direction, sizeof a->t_direction) &&
           same(a->point_origin, b->point_origin, sizeof a->point_origin) &&
           same(a->normal_origin, b->normal_origin, sizeof a->normal_origin) &&
           same(a->t_pose, b->t_pose, sizeof a->t_pose) &&
           same(a->t_parameters, b->t_parameters, sizeof a->t_parameters);
}

static bool same_lmd(const lmd_answer* a, const lmd_answer* b) {
    if (a->count != b->count) return false;
    size_t contact_bytes = offsetof(osc_lmd_contact, flags) + sizeof(int32_t); // not the tail padding
    for (int i = 0; i < a->count && i < FIXTURE_LMD_CAPACITY; ++i)
        if (!same(&a->contacts[i], &b->contacts[i], contact_bytes) ||
            !same(a->distance_jacobians[i], b->distance_jacobians[i], sizeof a->distance_jacobians[i]))
            return false;
    return true;
}

// ---------------------------------------------------------------------------------------------

static void compute_reference(void) {
    alone = calloc(1, sizeof *alone);
    osc_lmd_cache* cache = NULL;
    FIXTURE_MUST(osc_lmd_cache_create(&cache));
    for (int i = 0; i < CONFIGS; ++i) {
        FIXTURE_MUST(query_shapes(&models, i, &alone->shapes[i]));
        FIXTURE_MUST(query_manifold(&models, i, 0, &alone->manifold[i]));
        FIXTURE_MUST(query_dcol(&models, i, &alone->dcol[i]));
        FIXTURE_MUST(query_ray(&models, i, &alone->ray[i]));
        FIXTURE_MUST(query_lmd(&models, i, 1, cache, &alone->lmd[i]));
    }
    FIXTURE_MUST(query_sdf_pair(&models, 0, 0, &alone->pair_hard));
    FIXTURE_MUST(query_sdf_pair(&models, 0, 1, &alone->pair_smooth));
    osc_lmd_cache_destroy(cache);
}

static void note(bool ok, int thread, const char* what, int config) {
    if (ok) return;
    if (atomic_fetch_add(&mismatches, 1) < 8)
        fprintf(stderr, "  thread %d: %s, configuration %d, differs from the answer computed alone\n", thread, what,
                config);
}

// what one thread does: every family in its own order, ROUNDS times, plus batches and errors
static void* worker(void* argument) {
    int thread = (int)(intptr_t)argument;
    reference* mine = calloc(1, sizeof *mine); // answers of this thread
    osc_lmd_cache* cache = NULL;
    if (!mine || osc_lmd_cache_create(&cache) != OSC_OK) {
        atomic_fetch_add(&failures, 1);
        free(mine);
        return NULL;
    }
    for (int round = 0; round < ROUNDS; ++round) {
        for (int k = 0; k < CONFIGS; ++k) {
            int i = (k + thread) % CONFIGS; // each thread its own order
            int bad = 0;
            bad |= query_shapes(&models, i, &mine->shapes[i]) != OSC_OK;
            bad |= query_manifold(&models, i, 0, &mine->manifold[i]) != OSC_OK;
            bad |= query_dcol(&models, i, &mine->dcol[i]) != OSC_OK;
            bad |= query_ray(&models, i, &mine->ray[i]) != OSC_OK;
            if (bad) atomic_fetch_add(&failures, 1);
            note(same_shapes(&mine->shapes[i], &alone->shapes[i]), thread, "SDF, grid and BVH evaluations", i);
            note(same_manifold(&mine->manifold[i], &alone->manifold[i]), thread, "osc_manifold_collide", i);
            note(same(&mine->dcol[i], &alone->dcol[i], sizeof mine->dcol[i]), thread, "osc_dcol_proximity", i);
            note(same_ray(&mine->ray[i], &alone->ray[i]), thread, "osc_ray_intersect", i);
        }
        // the LMD trajectory in order, from a reset cache of this thread's own
        osc_lmd_cache_reset(cache);
        for (int i = 0; i < CONFIGS; ++i) {
            if (query_lmd(&models, i, 1, cache, &mine->lmd[i]) != OSC_OK) atomic_fetch_add(&failures, 1);
            note(same_lmd(&mine->lmd[i], &alone->lmd[i]), thread, "osc_lmd_query (warm)", i);
        }
        if (query_sdf_pair(&models, 0, round % 2, &mine->pair_hard) != OSC_OK) atomic_fetch_add(&failures, 1);
        note(same_sdf_pair(&mine->pair_hard, round % 2 ? &alone->pair_smooth : &alone->pair_hard), thread,
             "osc_sdf_pair_collide", round % 2);

        // a batch inside the thread (its own team when OpenMP is on)
        osc_dcol_batch_item items[CONFIGS];
        osc_dcol_result results[CONFIGS];
        fixture_dcol_batch(&models, CONFIGS, items);
        if (osc_dcol_proximity_batch(items, CONFIGS, NULL, results, NULL, NULL, 2) != OSC_OK)
            atomic_fetch_add(&failures, 1);
        for (int i = 0; i < CONFIGS; ++i)
            note(same(&results[i], &alone->dcol[i].result, sizeof results[i]), thread, "osc_dcol_proximity_batch", i);

        // an error of this thread's own: its message names this thread's value, whatever the
        // others do meanwhile
        osc_sdf* none = NULL;
        double radius = -1.0 - thread;
        char expected[32];
        snprintf(expected, sizeof expected, "%g", radius);
        if (osc_sdf_create_sphere(radius, &none) != OSC_ERR_INVALID_ARGUMENT || !strstr(osc_last_error(), expected)) {
            if (atomic_fetch_add(&mismatches, 1) < 8)
                fprintf(stderr, "  thread %d: its error message is \"%s\" (expected one naming %s)\n", thread,
                        osc_last_error(), expected);
        }
    }
    osc_lmd_cache_destroy(cache);
    free(mine);
    return NULL;
}

static void test_threads_share_models(void) {
    pthread_t threads[THREADS];
    int started = 0;
    for (int t = 0; t < THREADS; ++t)
        if (pthread_create(&threads[started], NULL, worker, (void*)(intptr_t)t) == 0) ++started;
    for (int t = 0; t < started; ++t) pthread_join(threads[t], NULL);
    CHECK_MSG(started == THREADS, "only %d of %d threads started", started, THREADS);
    CHECK_MSG(atomic_load(&failures) == 0, "%d queries failed in the threads", atomic_load(&failures));
    CHECK_MSG(atomic_load(&mismatches) == 0, "%d answers differ from those computed alone", atomic_load(&mismatches));
}

int main(void) {
    double start = test_seconds();
    query_models_create(&models);
    compute_reference();
    RUN(test_threads_share_models);
    free(alone);
    query_models_destroy(&models);
    printf("%d threads x %d rounds of every family in %.1f s\n", THREADS, ROUNDS, test_seconds() - start);
    return test_finish();
}
