// test_no_alloc.c: queries allocate nothing. The test interposes malloc, calloc, realloc and
// their aligned forms (glibc routes its own internal calls, qsort's and the OpenMP runtime's among
// them, through these symbols), builds one model of every query family, and then counts the
// allocations made during every family's single and batch calls: there must be none. Batches run
// with threads = 1 (which must not enter OpenMP at all) and threads = 2 after one warm-up call
// (OpenMP builds its thread pool once; later parallel regions of the same size reuse it).
//
// The sanitizers interpose the allocator themselves: under them the counting is skipped.

#define _GNU_SOURCE // __libc_malloc and friends are glibc's own entry points

#include "osculate/osculate.h"
#include "query_fixtures.h"
#include "test_common.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define OSC_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OSC_TEST_SANITIZED 1
#endif

#if defined(__GLIBC__) && !defined(OSC_TEST_SANITIZED)
#define OSC_TEST_COUNTING 1

static atomic_long allocations; // calls to an allocating function while counting
static atomic_int counting;     // 1 between count_start and count_stop

void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);

// the project builds with hidden visibility: these must be exported to replace libc's
#define INTERPOSED __attribute__((visibility("default")))

static void note_allocation(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

INTERPOSED void* malloc(size_t size) {
    note_allocation();
    return __libc_malloc(size);
}

INTERPOSED void* calloc(size_t count, size_t size) {
    note_allocation();
    return __libc_calloc(count, size);
}

INTERPOSED void* realloc(void* pointer, size_t size) {
    note_allocation();
    return __libc_realloc(pointer, size);
}

INTERPOSED void free(void* pointer) { __libc_free(pointer); }

INTERPOSED void* aligned_alloc(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

INTERPOSED void* memalign(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

INTERPOSED int posix_memalign(void** out, size_t alignment, size_t size) {
    note_allocation();
    void* pointer = __libc_memalign(alignment, size);
    if (!pointer) return 12; // ENOMEM
    *out = pointer;
    return 0;
}
#endif

static void count_start(void) {
#ifdef OSC_TEST_COUNTING
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
#endif
}

// the allocations since count_start
static long count_stop(void) {
#ifdef OSC_TEST_COUNTING
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
#else
    return 0;
#endif
}

#define EXPECT_NO_ALLOCATION(label, call)                                                                              \
    do {                                                                                                               \
        count_start();                                                                                                 \
        osc_status status_ = (call);                                                                                   \
        long made_ = count_stop();                                                                                     \
        CHECK_MSG(status_ == OSC_OK, "%s: %s", label, osc_last_error());                                               \
        CHECK_MSG(made_ == 0, "%s: %ld allocations during the query", label, made_);                                   \
    } while (0)

// the counter itself: a malloc between count_start and count_stop is seen (else every check
// below would pass for nothing)
static void test_counter_counts(void) {
#ifdef OSC_TEST_COUNTING
    count_start();
    void* volatile pointer = malloc(64);
    long made = count_stop();
    free(pointer);
    CHECK_MSG(made == 1, "the interposed malloc counted %ld calls, expected 1", made);
#else
    printf("  (allocation counting skipped: a sanitizer or a libc other than glibc owns malloc)\n");
#endif
}

enum { BATCH = 64 };

static query_models models;
static const int batch_threads[] = {1, 2};

// DCOL: every Jacobian, the alpha gradients, the batch. First: its threads = 1 batch runs before
// anything has started OpenMP (the models of the other families are built later)
static void test_dcol(void) {
    static dcol_answer answer;
    EXPECT_NO_ALLOCATION("osc_dcol_proximity and its gradients", query_dcol(&models, 0, &answer));
    static osc_dcol_batch_item items[BATCH];
    static osc_dcol_result results[BATCH];
    osc_status statuses[BATCH];
    fixture_dcol_batch(&models, BATCH, items);
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            FIXTURE_MUST(osc_dcol_proximity_batch(items, BATCH, NULL, results, NULL, statuses, threads));
        char label[64];
        snprintf(label, sizeof label, "osc_dcol_proximity_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_dcol_proximity_batch(items, BATCH, NULL, results, NULL, statuses, threads));
    }
}

// SDFs, spline grids and mesh BVHs: single evaluations and batches
static void test_shape_queries(void) {
    static shape_answer answer;
    for (int i = 0; i < BATCH; ++i) {
        char label[64];
        snprintf(label, sizeof label, "SDF, grid and BVH evaluations at point %d", i);
        EXPECT_NO_ALLOCATION(label, query_shapes(&models, i, &answer));
    }
    static double points[3 * BATCH], values[BATCH], gradients[3 * BATCH];
    for (int i = 0; i < BATCH; ++i) {
        osc_vec3 p = fixture_point(i);
        points[3 * i] = p.x;
        points[3 * i + 1] = p.y;
        points[3 * i + 2] = p.z;
    }
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        char label[64];
        snprintf(label, sizeof label, "osc_sdf_eval_batch, threads %d", threads);
        if (threads > 1) // warm-up: the OpenMP pool
            FIXTURE_MUST(osc_sdf_eval_batch(models.both, points, BATCH, values, gradients, NULL, threads));
        EXPECT_NO_ALLOCATION(label, osc_sdf_eval_batch(models.both, points, BATCH, values, gradients, NULL, threads));
        snprintf(label, sizeof label, "osc_grid_eval_batch, threads %d", threads);
        if (threads > 1)
            FIXTURE_MUST(osc_grid_eval_batch(models.grid, points, BATCH, values, gradients, NULL, threads));
        EXPECT_NO_ALLOCATION(label, osc_grid_eval_batch(models.grid, points, BATCH, values, gradients, NULL, threads));
        snprintf(label, sizeof label, "osc_mesh_bvh_signed_distance_batch, threads %d", threads);
        if (threads > 1)
            FIXTURE_MUST(osc_mesh_bvh_signed_distance_batch(models.bvh, points, BATCH, values, gradients, threads));
        EXPECT_NO_ALLOCATION(label,
                             osc_mesh_bvh_signed_distance_batch(models.bvh, points, BATCH, values, gradients, threads));
    }
}

// contact manifolds: the slab against the ball, smooth and hard operators, and batches
static void test_manifold(void) {
    static manifold_answer answer;
    EXPECT_NO_ALLOCATION("osc_manifold_collide", query_manifold(&models, 0, 0, &answer));
    CHECK_MSG(answer.count > 0, "the manifold test configuration has no contacts (%d)", (int)answer.count);
    EXPECT_NO_ALLOCATION("osc_manifold_collide, hard operators", query_manifold(&models, 1, 1, &answer));
    enum { CONFIGS = 8, CAPACITY = FIXTURE_MANIFOLD_CAPACITY };
    static osc_manifold_contact contacts[CONFIGS * CAPACITY];
    static double distance_jacobians[CONFIGS * CAPACITY * 12], point_jacobians[CONFIGS * CAPACITY * 36];
    osc_manifold_batch_item items[CONFIGS];
    osc_manifold_output outputs[CONFIGS];
    for (int i = 0; i < CONFIGS; ++i) {
        items[i] = (osc_manifold_batch_item){models.slab_body, fixture_pose(0.0, 0.0, 0.0, 0.0), models.ball_body,
                                             manifold_pose_b(i)};
        outputs[i] = (osc_manifold_output){.contacts = contacts + i * CAPACITY,
                                           .capacity = CAPACITY,
                                           .point_jacobians = point_jacobians + 36 * i * CAPACITY,
                                           .distance_jacobians = distance_jacobians + 12 * i * CAPACITY};
    }
    osc_manifold_settings settings = osc_manifold_settings_default();
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            FIXTURE_MUST(osc_manifold_collide_batch(items, CONFIGS, &settings, outputs, NULL, threads));
        char label[64];
        snprintf(label, sizeof label, "osc_manifold_collide_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_manifold_collide_batch(items, CONFIGS, &settings, outputs, NULL, threads));
    }
}

// contact forces over the manifold's contacts, with both wrench Jacobians
static osc_status force_of_manifold(const manifold_answer* answer) {
    static osc_force_contact contacts[FIXTURE_MANIFOLD_CAPACITY];
    osc_manifold_output output = {.contacts = (osc_manifold_contact*)answer->contacts,
                                  .capacity = FIXTURE_MANIFOLD_CAPACITY,
                                  .count = answer->count,
                                  .point_jacobians = (double*)&answer->point_jacobians[0][0],
                                  .distance_jacobians = (double*)&answer->distance_jacobians[0][0]};
    for (int i = 0; i < answer->count; ++i) contacts[i] = osc_force_contact_from_manifold(&output, i);
    double pose_jacobian[144], velocity_jacobian[144];
    osc_force_output out = {.pose_jacobian = pose_jacobian, .velocity_jacobian = velocity_jacobian};
    osc_body_velocity va = {{0.1, 0, 0}, {0, 0.2, 0}}, vb = {{0, -0.1, 0}, {0.3, 0, 0}};
    return osc_force_evaluate(contacts, answer->count, fixture_pose(0.0, 0.0, 0.0, 0.0), va, manifold_pose_b(0), vb,
                              NULL, &out);
}

static void test_force(void) {
    static manifold_answer answer;
    FIXTURE_MUST(query_manifold(&models, 0, 0, &answer));
    EXPECT_NO_ALLOCATION("osc_force_evaluate", force_of_manifold(&answer));
}

// collision points between two SDFs: hard mode (many points, sorted by depth), smooth mode with
// Jacobians, and a scene over threads
static void test_sdf_pair(void) {
    static sdf_pair_answer answer;
    EXPECT_NO_ALLOCATION("osc_sdf_pair_collide, hard mode", query_sdf_pair(&models, 0, 0, &answer));
    // glibc's qsort takes its merge buffer from malloc above 1 KB (elements over 32 bytes are
    // sorted through two pointers each): the hard mode's sort must be exercised above that
    CHECK_MSG(2 * answer.count * sizeof(void*) + sizeof(osc_sdf_pair_contact) >= 1024,
              "the hard-mode configuration should give over 1 KB of points to sort (%d)", answer.count);
    EXPECT_NO_ALLOCATION("osc_sdf_pair_collide, smooth mode", query_sdf_pair(&models, 0, 1, &answer));

    enum { BODIES = 6 };
    osc_sdf_scene_body bodies[BODIES];
    for (int i = 0; i < BODIES; ++i)
        bodies[i] = (osc_sdf_scene_body){i % 2 ? &models.pair_box : &models.pair_ball,
                                         fixture_pose(0.7 * i, 0.05 * i, 0.0, 0.2 * i)};
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    static unsigned char workspace[1 << 16];
    CHECK(osc_sdf_scene_workspace_size(BODIES) <= sizeof workspace);
    osc_sdf_scene_pair pairs[BODIES * BODIES];
    static osc_sdf_pair_contact scene_contacts[BODIES * BODIES * 16];
    osc_sdf_scene_output scene = {
        .pairs = pairs, .capacity = BODIES * BODIES, .contacts = scene_contacts, .contacts_per_pair = 16};
    // the same pairs as a batch of pair queries
    static osc_sdf_pair_contact batch_contacts[BODIES - 1][64];
    osc_sdf_pair_batch_item items[BODIES - 1];
    osc_sdf_pair_output outputs[BODIES - 1];
    for (int i = 0; i + 1 < BODIES; ++i) {
        items[i] = (osc_sdf_pair_batch_item){bodies[i].shape, bodies[i].pose, bodies[i + 1].shape, bodies[i + 1].pose};
        outputs[i] = (osc_sdf_pair_output){.contacts = batch_contacts[i], .capacity = 64};
    }
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) { // warm-up: the OpenMP pool
            FIXTURE_MUST(osc_sdf_scene_collide(bodies, BODIES, &settings, &scene, workspace, threads));
            FIXTURE_MUST(osc_sdf_pair_collide_batch(items, BODIES - 1, &settings, outputs, NULL, threads));
        }
        char label[64];
        snprintf(label, sizeof label, "osc_sdf_scene_collide, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_sdf_scene_collide(bodies, BODIES, &settings, &scene, workspace, threads));
        CHECK(scene.count > 0);
        snprintf(label, sizeof label, "osc_sdf_pair_collide_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_sdf_pair_collide_batch(items, BODIES - 1, &settings, outputs, NULL, threads));
    }
}

// rays: a sag surface with every Jacobian, an SDF surface, the batch
static void test_ray(void) {
    static ray_answer answer;
    EXPECT_NO_ALLOCATION("osc_ray_intersect", query_ray(&models, 0, &answer));
    CHECK(answer.hit[0].hit == 1 && answer.hit[1].hit == 1);
    static osc_ray rays[BATCH];
    static osc_ray_hit hits[BATCH];
    for (int i = 0; i < BATCH; ++i)
        rays[i] = (osc_ray){osc_v3(-2.0, -0.5 + i / (double)BATCH, 0.1), osc_v3(1.0, 0.0, 0.0)};
    osc_ray_settings settings = osc_ray_settings_default();
    for (size_t k = 0; k < sizeof batch_threads / sizeof batch_threads[0]; ++k) {
        int threads = batch_threads[k];
        if (threads > 1) // warm-up: the OpenMP pool
            FIXTURE_MUST(osc_ray_intersect_batch(models.lens, NULL, rays, BATCH, &settings, hits, NULL, threads));
        char label[64];
        snprintf(label, sizeof label, "osc_ray_intersect_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label,
                             osc_ray_intersect_batch(models.lens, NULL, rays, BATCH, &settings, hits, NULL, threads));
    }
}

// local minimal distances: warm queries with a cache (the first query sizes the cache; after it,
// queries at nearby poses allocate nothing), on one thread and on two
static void test_lmd(void) {
    osc_lmd_cache* cache = NULL;
    FIXTURE_MUST(osc_lmd_cache_create(&cache));
    static lmd_answer answer;
    for (size_t k = 0; k < sizeof batch_threads / sizeof batch_threads[0]; ++k) {
        int threads = batch_threads[k];
        osc_lmd_cache_reset(cache);
        FIXTURE_MUST(query_lmd(&models, 0, threads, cache, &answer));
        for (int step = 1; step <= 5; ++step) {
            char label[64];
            snprintf(label, sizeof label, "osc_lmd_query warm, threads %d, step %d", threads, step);
            EXPECT_NO_ALLOCATION(label, query_lmd(&models, step, threads, cache, &answer));
        }
        // enough contacts that glibc's qsort would have taken its buffer from malloc
        CHECK_MSG(2 * answer.count * sizeof(void*) + sizeof(osc_lmd_contact) >= 1024,
                  "the LMD configuration should give over 1 KB of contacts to sort (%d)", (int)answer.count);
    }
    osc_lmd_cache_destroy(cache);
    // a batch of warm queries, a cache each
    enum { ITEMS = 4 };
    osc_lmd_cache* caches[ITEMS];
    osc_lmd_batch_item items[ITEMS];
    static osc_lmd_contact contacts[ITEMS][FIXTURE_LMD_CAPACITY];
    osc_lmd_output outputs[ITEMS];
    osc_lmd_settings settings = fixture_lmd_settings();
    for (int i = 0; i < ITEMS; ++i) {
        FIXTURE_MUST(osc_lmd_cache_create(&caches[i]));
        items[i] = fixture_lmd_item(&models, i, caches[i]);
        outputs[i] = (osc_lmd_output){.contacts = contacts[i], .capacity = FIXTURE_LMD_CAPACITY};
    }
    for (size_t k = 0; k < sizeof batch_threads / sizeof batch_threads[0]; ++k) {
        int threads = batch_threads[k];
        FIXTURE_MUST(osc_lmd_query_batch(items, ITEMS, &settings, outputs, NULL, threads)); // sizes the caches
        for (int i = 0; i < ITEMS; ++i) items[i] = fixture_lmd_item(&models, i + 1, caches[i]);
        char label[64];
        snprintf(label, sizeof label, "osc_lmd_query_batch warm, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_lmd_query_batch(items, ITEMS, &settings, outputs, NULL, threads));
    }
    for (int i = 0; i < ITEMS; ++i) osc_lmd_cache_destroy(caches[i]);
}

// a cable swaying in a bore: a first pass over the steps sizes the cache, the second allocates nothing
static osc_status query_cable(const osc_brep* block, int step, int threads, osc_lmd_cable_cache* cache) {
    static osc_lmd_contact contacts[64];
    static double pose_jacobians[64 * 6], control_jacobians[64 * 5 * 3];
    double phase = 0.3 * step;
    osc_vec3 pts[5] = {osc_v3(0, 0, 1.2), osc_v3(0.1 * sin(phase), 0.05, 0.8), osc_v3(0.2 * cos(phase), 0, 0.4),
                       osc_v3(-0.2, 0.1 * sin(phase), 0.0), osc_v3(0.15 * sin(phase), 0.1, -0.2)};
    osc_cable cable = {4, pts, 0.05, 16};
    osc_lmd_settings s = osc_lmd_settings_default();
    s.d_max = 0.3;
    osc_lmd_cable_output out = {contacts, 64, 0, 0, pose_jacobians, control_jacobians, 0};
    return osc_lmd_cable_query(block, osc_pose_identity(), &cable, &s, cache, &out, threads);
}

static void test_lmd_cable(void) {
    double hole[] = {0.3, 0.5, 0.3, -0.3};
    osc_brep* block = NULL;
    FIXTURE_MUST(osc_brep_create_block_with_hole(osc_v3(0.6, 0.6, 0.5), hole, 2, NULL, &block));
    osc_lmd_cable_cache* cache = NULL;
    FIXTURE_MUST(osc_lmd_cable_cache_create(&cache));
    for (int threads = 1; threads <= 2; ++threads) {
        for (int step = 0; step < 6; ++step) FIXTURE_MUST(query_cable(block, step, threads, cache));
        for (int step = 0; step < 6; ++step) {
            char label[96];
            snprintf(label, sizeof label, "osc_lmd_cable_query warm, threads %d, step %d", threads, step);
            EXPECT_NO_ALLOCATION(label, query_cable(block, step, threads, cache));
        }
    }
    osc_lmd_cable_cache_destroy(cache);
    osc_brep_destroy(block);
}

int main(void) {
    RUN(test_counter_counts);
    // DCOL's models are built first and queried before any other model is built: nothing has
    // started OpenMP when its threads = 1 batch runs
    FIXTURE_MUST(osc_convex_create_box(osc_v3(0.5, 0.4, 0.3), &models.convex_box));
    FIXTURE_MUST(osc_convex_create_capsule(0.2, 0.4, &models.capsule));
    RUN(test_dcol);
    osc_convex_destroy(models.convex_box);
    osc_convex_destroy(models.capsule);
    query_models_create(&models);
    RUN(test_shape_queries);
    RUN(test_manifold);
    RUN(test_force);
    RUN(test_sdf_pair);
    RUN(test_ray);
    RUN(test_lmd);
    RUN(test_lmd_cable);
    query_models_destroy(&models);
    return test_finish();
}
