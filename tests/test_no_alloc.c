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

static atomic_long allocations;   // calls to an allocating function while counting
static atomic_int counting;       // 1 between count_start and count_stop

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

INTERPOSED void free(void* pointer) {
    __libc_free(pointer);
}

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

#define EXPECT_NO_ALLOCATION(label, call)                                                          \
    do {                                                                                           \
        count_start();                                                                             \
        osc_status status_ = (call);                                                               \
        long made_ = count_stop();                                                                 \
        CHECK_MSG(status_ == OSC_OK, "%s: %s", label, osc_last_error());                         \
        CHECK_MSG(made_ == 0, "%s: %ld allocations during the query", label, made_);             \
    } while (0)

#define MUST(call)                                                                                 \
    do {                                                                                           \
        osc_status status_ = (call);                                                               \
        if (status_ != OSC_OK) {                                                                   \
            fprintf(stderr, "%s failed: %s\n", #call, osc_last_error());                         \
            exit(1);                                                                               \
        }                                                                                          \
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

static osc_pose pose_at(double x, double y, double z, double angle) {
    osc_pose pose = {osc_v3(x, y, z), osc_quat_from_axis_angle(osc_v3(0.3, 0.8, 0.52), angle)};
    return pose;
}

static const int batch_threads[] = {1, 2};

// SDFs, spline grids and mesh BVHs: single evaluations and batches
static void test_shape_queries(void) {
    osc_sdf *sphere = NULL, *box = NULL, *both = NULL, *grid_sdf = NULL;
    MUST(osc_sdf_create_sphere(0.5, &sphere));
    MUST(osc_sdf_create_box(osc_v3(0.4, 0.3, 0.6), 0.05, &box));
    const osc_sdf* parts[2] = {sphere, box};
    MUST(osc_sdf_create_union(parts, 2, 0.05, &both));
    osc_grid_settings grid_settings = osc_grid_settings_default();
    grid_settings.resolution = 24;
    osc_grid* grid = NULL;
    MUST(osc_grid_create_from_sdf(both, &grid_settings, &grid));
    MUST(osc_grid_to_sdf(grid, &grid_sdf));
    osc_mesh* mesh = NULL;
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = 400;
    MUST(osc_collision_mesh_create(both, &mesh_settings, &mesh));
    osc_mesh_bvh* bvh = NULL;
    MUST(osc_mesh_bvh_create(mesh, &bvh));

    static double points[3 * BATCH], values[BATCH], gradients[3 * BATCH];
    for (int i = 0; i < BATCH; ++i) {
        points[3 * i] = -0.8 + 1.6 * i / BATCH;
        points[3 * i + 1] = 0.1 * sin(i);
        points[3 * i + 2] = 0.2 * cos(i);
    }
    osc_vec3 gradient;
    osc_mat3 hessian;
    double sum = 0.0;
    count_start();
    for (int i = 0; i < BATCH; ++i) {
        osc_vec3 p = osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
        sum += osc_sdf_eval(both, p, &gradient, &hessian);
        sum += osc_grid_eval(grid, p, &gradient, &hessian);
        sum += osc_grid_eval_normal(grid, p, &hessian).x;
        osc_mesh_closest closest;
        sum += osc_mesh_bvh_closest(bvh, p, &closest);
        sum += osc_mesh_bvh_signed_distance(bvh, p, &closest);
        sum += osc_mesh_bvh_winding_number(bvh, p, 2.0);
    }
    long made = count_stop();
    CHECK_MSG(made == 0 && isfinite(sum), "single SDF, grid and BVH evaluations: %ld allocations", made);
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_sdf_eval_batch(both, points, BATCH, values, gradients, NULL, threads)); // warm-up
        char label[64];
        snprintf(label, sizeof label, "osc_sdf_eval_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_sdf_eval_batch(both, points, BATCH, values, gradients, NULL, threads));
        snprintf(label, sizeof label, "osc_grid_eval_batch, threads %d", threads);
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_grid_eval_batch(grid, points, BATCH, values, gradients, NULL, threads));
        EXPECT_NO_ALLOCATION(label, osc_grid_eval_batch(grid, points, BATCH, values, gradients, NULL, threads));
        snprintf(label, sizeof label, "osc_mesh_bvh_signed_distance_batch, threads %d", threads);
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_mesh_bvh_signed_distance_batch(bvh, points, BATCH, values, gradients, threads));
        EXPECT_NO_ALLOCATION(label, osc_mesh_bvh_signed_distance_batch(bvh, points, BATCH, values, gradients,
                                                                       threads));
    }
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
    osc_sdf_destroy(grid_sdf);
    osc_grid_destroy(grid);
    osc_sdf_destroy(both);
    osc_sdf_destroy(box);
    osc_sdf_destroy(sphere);
}

// contact manifolds: a superquadric slab against a sphere body, single call and batches
static void test_manifold(void) {
    osc_sdf *slab = NULL, *ball = NULL;
    MUST(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &slab));
    MUST(osc_sdf_create_sphere(0.4, &ball));
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = 600;
    osc_mesh *slab_mesh = NULL, *ball_mesh = NULL;
    MUST(osc_collision_mesh_create(slab, &mesh_settings, &slab_mesh));
    MUST(osc_collision_mesh_create(ball, &mesh_settings, &ball_mesh));
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = slab_mesh;
    desc.sdf = slab;
    osc_body *a = NULL, *b = NULL;
    MUST(osc_body_create(&desc, &a));
    desc = osc_body_desc_default();
    desc.mesh = ball_mesh;
    desc.sdf = ball;
    MUST(osc_body_create(&desc, &b));

    enum { CAPACITY = 512, CONFIGS = 8 };
    static osc_contact contacts[CONFIGS * CAPACITY];
    static double depth_jacobians[CONFIGS * CAPACITY * 12], point_jacobians[CONFIGS * CAPACITY * 36];
    osc_pose pose_a = pose_at(0.0, 0.0, 0.0, 0.0);
    osc_pose poses_a[CONFIGS], poses_b[CONFIGS];
    for (int i = 0; i < CONFIGS; ++i) {
        poses_a[i] = pose_a;
        poses_b[i] = pose_at(0.05 * i, 0.62, 0.0, 0.1 * i);
    }
    osc_manifold_settings settings = osc_manifold_settings_default();
    osc_manifold_output out = {contacts, CAPACITY, 0, 0, point_jacobians, depth_jacobians, NULL, NULL};
    EXPECT_NO_ALLOCATION("osc_manifold_collide", osc_manifold_collide(a, pose_a, b, poses_b[0], &settings, &out));
    CHECK_MSG(out.count > 0, "the manifold test configuration has no contacts (%d)", (int)out.count);
    settings.blend = 0;
    settings.trace_temperature = settings.clip_temperature = settings.blend_temperature = 0.0;
    EXPECT_NO_ALLOCATION("osc_manifold_collide, hard operators",
                         osc_manifold_collide(a, pose_a, b, poses_b[1], &settings, &out));
    settings = osc_manifold_settings_default();
    int32_t counts[CONFIGS], needed[CONFIGS];
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_manifold_collide_batch(a, poses_a, b, poses_b, CONFIGS, &settings, contacts, CAPACITY, counts,
                                        needed, point_jacobians, depth_jacobians, NULL, NULL, threads));
        char label[64];
        snprintf(label, sizeof label, "osc_manifold_collide_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_manifold_collide_batch(a, poses_a, b, poses_b, CONFIGS, &settings, contacts,
                                                               CAPACITY, counts, needed, point_jacobians,
                                                               depth_jacobians, NULL, NULL, threads));
    }
    osc_body_destroy(a);
    osc_body_destroy(b);
    osc_mesh_destroy(slab_mesh);
    osc_mesh_destroy(ball_mesh);
    osc_sdf_destroy(slab);
    osc_sdf_destroy(ball);
}

// DCOL: every Jacobian, the alpha gradients, the batch
static void test_dcol(void) {
    osc_convex *box = NULL, *capsule = NULL;
    MUST(osc_convex_create_box(osc_v3(0.5, 0.4, 0.3), &box));
    MUST(osc_convex_create_capsule(0.2, 0.8, &capsule));
    osc_pose pose_a = pose_at(0.0, 0.0, 0.0, 0.2), pose_b = pose_at(0.6, 0.3, 0.1, 0.7);
    osc_dcol_result result;
    double alpha[12], point[36], point_a[36], point_b[36], normal[36], distance[12];
    osc_dcol_jacobians jacobians = {alpha, point, point_a, point_b, distance, normal};
    EXPECT_NO_ALLOCATION("osc_dcol_proximity",
                         osc_dcol_proximity(box, pose_a, capsule, pose_b, NULL, &result, &jacobians, NULL));
    double gradient[12], alpha_value = 0.0;
    EXPECT_NO_ALLOCATION("osc_dcol_alpha_gradient",
                         osc_dcol_alpha_gradient(box, pose_a, capsule, pose_b, NULL, &alpha_value, gradient));
    double parameters_a[64], parameters_b[64];
    EXPECT_NO_ALLOCATION("osc_dcol_alpha_parameter_gradient",
                         osc_dcol_alpha_parameter_gradient(box, pose_a, capsule, pose_b, NULL, &alpha_value,
                                                           parameters_a, parameters_b));
    const osc_convex* shapes_a[BATCH];
    const osc_convex* shapes_b[BATCH];
    osc_pose poses_a[BATCH], poses_b[BATCH];
    static osc_dcol_result results[BATCH];
    osc_status statuses[BATCH];
    for (int i = 0; i < BATCH; ++i) {
        shapes_a[i] = box;
        shapes_b[i] = capsule;
        poses_a[i] = pose_a;
        poses_b[i] = pose_at(0.5 + 0.01 * i, 0.3, 0.1, 0.05 * i);
    }
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_dcol_proximity_batch(shapes_a, poses_a, shapes_b, poses_b, BATCH, NULL, results, NULL, statuses,
                                      threads));
        char label[64];
        snprintf(label, sizeof label, "osc_dcol_proximity_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_dcol_proximity_batch(shapes_a, poses_a, shapes_b, poses_b, BATCH, NULL,
                                                             results, NULL, statuses, threads));
    }
    osc_convex_destroy(box);
    osc_convex_destroy(capsule);
}

// collision points between two SDFs: hard mode (sorted by depth), smooth mode with Jacobians,
// and a scene over threads
static void test_sdf_pair(void) {
    osc_sdf *ball = NULL, *box = NULL;
    MUST(osc_sdf_create_sphere(0.5, &ball));
    MUST(osc_sdf_create_box(osc_v3(0.4, 0.4, 0.4), 0.02, &box));
    osc_sdf_shape a = {0}, b = {0};
    a.sdf = ball;
    b.sdf = box;
    osc_pose pose_a = pose_at(0.0, 0.0, 0.0, 0.0), pose_b = pose_at(0.75, 0.1, 0.05, 0.3);
    enum { CAPACITY = 4096 };
    static osc_sdf_contact contacts[CAPACITY];
    static double point_jacobians[CAPACITY * 36], penetration_jacobians[CAPACITY * 12];
    osc_sdf_pair_output out = {contacts, CAPACITY, 0, 0, NULL, NULL, 0, 0, 0};
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.resolution = 32;
    settings.merge_distance = 0.5;
    EXPECT_NO_ALLOCATION("osc_sdf_pair_collide, hard mode",
                         osc_sdf_pair_collide(&a, pose_a, &b, pose_b, &settings, &out));
    // glibc's qsort takes its merge buffer from malloc above 1 KB (elements over 32 bytes are
    // sorted through two pointers each)
    CHECK_MSG(2 * out.count * sizeof(void*) + sizeof(osc_sdf_contact) >= 1024,
              "the hard-mode configuration should give over 1 KB of points to sort (%d)", out.count);
    settings = osc_sdf_pair_settings_default();
    settings.temperature = 0.05;
    out.point_jacobians = point_jacobians;
    out.penetration_jacobians = penetration_jacobians;
    EXPECT_NO_ALLOCATION("osc_sdf_pair_collide, smooth mode",
                         osc_sdf_pair_collide(&a, pose_a, &b, pose_b, &settings, &out));

    enum { BODIES = 6 };
    osc_sdf_shape shapes[BODIES];
    osc_pose poses[BODIES];
    for (int i = 0; i < BODIES; ++i) {
        shapes[i] = i % 2 ? b : a;
        poses[i] = pose_at(0.7 * i, 0.05 * i, 0.0, 0.2 * i);
    }
    settings = osc_sdf_pair_settings_default();
    static unsigned char workspace[1 << 16];
    CHECK(osc_sdf_scene_workspace_size(BODIES) <= sizeof workspace);
    osc_sdf_scene_pair pairs[BODIES * BODIES];
    static osc_sdf_contact scene_contacts[BODIES * BODIES * 16];
    int pair_count = 0, pairs_needed = 0;
    for (size_t t = 0; t < sizeof batch_threads / sizeof batch_threads[0]; ++t) {
        int threads = batch_threads[t];
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_sdf_scene_collide(shapes, poses, BODIES, &settings, 16, pairs, BODIES * BODIES, scene_contacts,
                                   &pair_count, &pairs_needed, workspace, threads));
        char label[64];
        snprintf(label, sizeof label, "osc_sdf_scene_collide, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_sdf_scene_collide(shapes, poses, BODIES, &settings, 16, pairs,
                                                          BODIES * BODIES, scene_contacts, &pair_count,
                                                          &pairs_needed, workspace, threads));
        CHECK(pair_count > 0);
    }
    osc_sdf_destroy(ball);
    osc_sdf_destroy(box);
}

// rays: a sag surface with every Jacobian, an SDF surface, the batch
static void test_ray(void) {
    osc_sag sag = {0};
    sag.curvature = 0.5;
    sag.conic = -0.5;
    sag.coefficient_count = 1;
    sag.coefficients[0] = 1e-3;
    sag.diameter = 1.5;
    osc_implicit* lens = NULL;
    MUST(osc_implicit_create_sag(&sag, &lens));
    osc_sdf* ball = NULL;
    MUST(osc_sdf_create_sphere(0.5, &ball));
    osc_implicit* sphere = NULL;
    MUST(osc_implicit_create_sdf(ball, &sphere));
    osc_ray_settings settings = osc_ray_settings_default();
    osc_ray_hit hit;
    double t_origin[3], t_direction[3], point_origin[9], normal_origin[9], t_pose[6], t_parameters[8];
    osc_ray_jacobians jacobians = {0};
    jacobians.t_origin = t_origin;
    jacobians.t_direction = t_direction;
    jacobians.point_origin = point_origin;
    jacobians.normal_origin = normal_origin;
    jacobians.t_surface_pose = t_pose;
    jacobians.t_parameters = t_parameters;
    EXPECT_NO_ALLOCATION("osc_ray_intersect, sag", osc_ray_intersect(lens, NULL, osc_v3(-2.0, 0.2, 0.1),
                                                                     osc_v3(1.0, 0.0, 0.0), &settings, &hit,
                                                                     &jacobians));
    CHECK(hit.hit == 1);
    jacobians.t_parameters = NULL;
    EXPECT_NO_ALLOCATION("osc_ray_intersect, SDF", osc_ray_intersect(sphere, NULL, osc_v3(-2.0, 0.1, 0.1),
                                                                     osc_v3(1.0, 0.0, 0.0), &settings, &hit,
                                                                     &jacobians));
    static double origins[3 * BATCH], directions[3 * BATCH], t[BATCH], points[3 * BATCH], normals[3 * BATCH];
    static unsigned char hits[BATCH];
    for (int i = 0; i < BATCH; ++i) {
        origins[3 * i] = -2.0;
        origins[3 * i + 1] = -0.5 + i / (double)BATCH;
        origins[3 * i + 2] = 0.1;
        directions[3 * i] = 1.0;
        directions[3 * i + 1] = directions[3 * i + 2] = 0.0;
    }
    for (size_t k = 0; k < sizeof batch_threads / sizeof batch_threads[0]; ++k) {
        int threads = batch_threads[k];
        if (threads > 1) // warm-up: the OpenMP pool
            MUST(osc_ray_intersect_batch(lens, NULL, BATCH, origins, directions, &settings, t, points, normals, hits,
                                     threads));
        char label[64];
        snprintf(label, sizeof label, "osc_ray_intersect_batch, threads %d", threads);
        EXPECT_NO_ALLOCATION(label, osc_ray_intersect_batch(lens, NULL, BATCH, origins, directions, &settings, t,
                                                            points, normals, hits, threads));
    }
    osc_implicit_destroy(lens);
    osc_implicit_destroy(sphere);
    osc_sdf_destroy(ball);
}

// local minimal distances: a warm query with a cache (the first call sizes the cache; after it,
// queries at nearby poses allocate nothing), on one thread and on two
static void test_lmd(void) {
    osc_brep *box = NULL, *cylinder = NULL;
    MUST(osc_brep_create_box(osc_v3(0.5, 0.4, 0.3), NULL, &box));
    MUST(osc_brep_create_cylinder(0.3, 0.5, NULL, &cylinder));
    osc_lmd_cache* cache = NULL;
    MUST(osc_lmd_cache_create(&cache));
    osc_lmd_settings settings = osc_lmd_settings_default();
    settings.d_max = 0.5;
    enum { CAPACITY = 64 };
    osc_lmd_contact contacts[CAPACITY];
    int count = 0;
    osc_pose pose_a = pose_at(0.0, 0.0, 0.0, 0.0);
    for (size_t k = 0; k < sizeof batch_threads / sizeof batch_threads[0]; ++k) {
        settings.threads = batch_threads[k];
        osc_lmd_cache_reset(cache);
        MUST(osc_lmd_query(box, pose_a, cylinder, pose_at(0.0, 0.0, 0.95, 0.1), &settings, cache, contacts,
                           CAPACITY, &count));
        for (int step = 1; step <= 5; ++step) {
            char label[64];
            snprintf(label, sizeof label, "osc_lmd_query warm, threads %d, step %d", settings.threads, step);
            EXPECT_NO_ALLOCATION(label, osc_lmd_query(box, pose_a, cylinder, pose_at(0.0, 0.0, 0.95, 0.1 + 0.002 * step),
                                                      &settings, cache, contacts, CAPACITY, &count));
        }
        CHECK_MSG(count > 0, "the LMD configuration has no contacts");
    }
    osc_lmd_cache_destroy(cache);
    osc_brep_destroy(box);
    osc_brep_destroy(cylinder);
}

int main(void) {
    RUN(test_counter_counts);
    RUN(test_dcol); // first: its threads = 1 batch runs before anything has started OpenMP
    RUN(test_shape_queries);
    RUN(test_manifold);
    RUN(test_sdf_pair);
    RUN(test_ray);
    RUN(test_lmd);
    return test_finish();
}
