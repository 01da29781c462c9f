// test_base.c: version, status names, the thread-local error message, the replaceable allocator
// (counting and failure injection over every model constructor) and NULL handling (base.h).

#define _POSIX_C_SOURCE 200809L // mkstemp, fdopen

#include "base_internal.h" // osc_alloc / osc_calloc / osc_free: the allocator's own contract
#include "osculate/osculate.h"
#include "test_common.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>

#if !defined(__STDC_NO_THREADS__)
#include <threads.h>
#else
#include <pthread.h>
#endif

// ---------------------------------------------------------------------------------------------
// version and status names

// osc_version() is major * 10000 + minor * 100 + patch; the string is "major.minor.patch"
static void test_version(void) {
    CHECK(osc_version() == OSC_VERSION_MAJOR * 10000 + OSC_VERSION_MINOR * 100 + OSC_VERSION_PATCH);
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", OSC_VERSION_MAJOR, OSC_VERSION_MINOR, OSC_VERSION_PATCH);
    CHECK(osc_version_string() != NULL);
    CHECK_MSG(strcmp(osc_version_string(), expected) == 0, "got \"%s\", expected \"%s\"", osc_version_string(),
              expected);
}

// base.h promises OSC_OK is zero: checked at compile time
_Static_assert(OSC_OK == 0, "OSC_OK is zero");

// every enumerator maps to its exact name; unknown values give OSC_ERR_UNKNOWN
static void test_status_strings(void) {
    static const struct {
        osc_status status;
        const char* name;
    } table[] = {
        {OSC_OK, "OSC_OK"},
        {OSC_ERR_INVALID_ARGUMENT, "OSC_ERR_INVALID_ARGUMENT"},
        {OSC_ERR_PARSE, "OSC_ERR_PARSE"},
        {OSC_ERR_NO_MEMORY, "OSC_ERR_NO_MEMORY"},
        {OSC_ERR_NOT_CONVERGED, "OSC_ERR_NOT_CONVERGED"},
        {OSC_ERR_CAPACITY, "OSC_ERR_CAPACITY"},
        {OSC_ERR_IO, "OSC_ERR_IO"},
        {OSC_ERR_UNSUPPORTED, "OSC_ERR_UNSUPPORTED"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const char* name = osc_status_string(table[i].status);
        CHECK_MSG(name && strcmp(name, table[i].name) == 0, "status %d: got \"%s\", expected \"%s\"",
                  (int)table[i].status, name ? name : "(null)", table[i].name);
    }
    CHECK(strcmp(osc_status_string((osc_status)99), "OSC_ERR_UNKNOWN") == 0);
    CHECK(strcmp(osc_status_string((osc_status)-1), "OSC_ERR_UNKNOWN") == 0);
    CHECK(osc_default_thread_count() >= 1);
}

// ---------------------------------------------------------------------------------------------
// the thread-local error message

// "" after osc_clear_error; a failing call names the function, the argument and the value; a
// later successful call leaves the message alone
static void test_last_error(void) {
    osc_clear_error();
    CHECK(osc_last_error() != NULL && osc_last_error()[0] == '\0');
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(-1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    const char* message = osc_last_error();
    CHECK_MSG(strstr(message, "osc_sdf_create_sphere") && strstr(message, "radius") && strstr(message, "-1"),
              "message \"%s\"", message);
    char saved[512];
    snprintf(saved, sizeof saved, "%s", message);
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &out), OSC_OK);
    CHECK(strcmp(osc_last_error(), saved) == 0);
    osc_sdf_destroy(out);
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.75, &out), OSC_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(osc_last_error(), "osc_sdf_create_torus") != NULL, "message \"%s\"", osc_last_error());
    osc_clear_error();
    CHECK(osc_last_error()[0] == '\0');
}

enum { ERROR_THREADS = 3, ERROR_ROUNDS = 20000 };

typedef struct error_worker {
    int id;
    int started_empty;   // the thread's message was "" before its first failure
    int mismatches;      // rounds whose message was not this thread's own
    char first_bad[512]; // the first foreign message seen
} error_worker;

static atomic_int error_ready;

// fails osc_sdf_create_sphere with radius -(1000 id + round % 997 + 0.5) and checks that the
// message names exactly that value, before and after yielding to the other threads
static int error_worker_run(void* argument) {
    error_worker* worker = argument;
    worker->started_empty = osc_last_error()[0] == '\0';
    atomic_fetch_add(&error_ready, 1);
    while (atomic_load(&error_ready) < ERROR_THREADS) {
#if !defined(__STDC_NO_THREADS__)
        thrd_yield();
#endif
    }
    for (int round = 0; round < ERROR_ROUNDS; ++round) {
        double radius = -(1000.0 * worker->id + round % 997 + 0.5);
        osc_sdf* out = NULL;
        osc_status status = osc_sdf_create_sphere(radius, &out);
        char expected[64];
        snprintf(expected, sizeof expected, "radius is %g;", radius);
        for (int look = 0; look < 2; ++look) {
            const char* message = osc_last_error();
            if (status != OSC_ERR_INVALID_ARGUMENT || out != NULL || !strstr(message, expected) ||
                !strstr(message, "osc_sdf_create_sphere: radius")) {
                if (worker->mismatches++ == 0) snprintf(worker->first_bad, sizeof worker->first_bad, "%s", message);
            }
#if !defined(__STDC_NO_THREADS__)
            thrd_yield();
#endif
        }
    }
    return 0;
}

#if defined(__STDC_NO_THREADS__)
static void* error_worker_trampoline(void* argument) {
    error_worker_run(argument);
    return NULL;
}
#endif

// two threads and the main thread fail concurrently with different values: each always reads its
// own message, a new thread starts with "", and the main thread's earlier message survives
static void test_last_error_is_thread_local(void) {
    osc_sdf* out = NULL;
    CHECK_STATUS(osc_sdf_create_capsule(-2.5, 1.0, &out), OSC_ERR_INVALID_ARGUMENT);
    char main_message[512];
    snprintf(main_message, sizeof main_message, "%s", osc_last_error());
    CHECK(strstr(main_message, "osc_sdf_create_capsule") && strstr(main_message, "-2.5"));

    error_worker workers[ERROR_THREADS];
    memset(workers, 0, sizeof workers);
    atomic_store(&error_ready, 0);
    int created = 0;
#if !defined(__STDC_NO_THREADS__)
    thrd_t threads[ERROR_THREADS - 1];
    for (int i = 0; i < ERROR_THREADS - 1; ++i) {
        workers[i].id = i + 1;
        created += thrd_create(&threads[i], error_worker_run, &workers[i]) == thrd_success;
    }
#else
    pthread_t threads[ERROR_THREADS - 1];
    for (int i = 0; i < ERROR_THREADS - 1; ++i) {
        workers[i].id = i + 1;
        created += pthread_create(&threads[i], NULL, error_worker_trampoline, &workers[i]) == 0;
    }
#endif
    CHECK(created == ERROR_THREADS - 1);
    if (created != ERROR_THREADS - 1) return; // (a failed start would leave the others spinning)
    // the main thread takes part with the last id; its own message was not empty, so skip that check
    error_worker* self = &workers[ERROR_THREADS - 1];
    self->id = ERROR_THREADS;
    error_worker_run(self);
    for (int i = 0; i < ERROR_THREADS - 1; ++i) {
#if !defined(__STDC_NO_THREADS__)
        thrd_join(threads[i], NULL);
#else
        pthread_join(threads[i], NULL);
#endif
    }
    for (int i = 0; i < ERROR_THREADS; ++i) {
        CHECK_MSG(workers[i].mismatches == 0, "thread %d saw %d foreign messages, first \"%s\"", workers[i].id,
                  workers[i].mismatches, workers[i].first_bad);
        if (i < ERROR_THREADS - 1) CHECK(workers[i].started_empty);
    }
    // the workers never touched the main thread's buffer: its last message is its own
    char expected[64];
    snprintf(expected, sizeof expected, "radius is %g;", -(1000.0 * ERROR_THREADS + (ERROR_ROUNDS - 1) % 997 + 0.5));
    CHECK_MSG(strstr(osc_last_error(), expected) != NULL, "main thread message \"%s\"", osc_last_error());
}

// ---------------------------------------------------------------------------------------------
// a counting allocator that can fail on request

enum { MAX_LIVE = 4096 };

typedef struct counting_state {
    long attempts;     // calls to allocate
    long allocations;  // successful allocations
    long releases;     // calls to release
    long live;         // allocations not yet released
    size_t live_bytes; // bytes not yet released
    long fail_at;      // the attempt (counted from arm()) that fails; -1: never
    long armed_at;     // attempts when arm() was called
    int errors;        // bad context, foreign or double release, zero size, misalignment, overflow
    void* pointers[MAX_LIVE];
    size_t sizes[MAX_LIVE];
} counting_state;

static counting_state counter;

static void* counting_allocate(size_t size, void* context) {
    counting_state* state = context;
    if (state != &counter) {
        ++counter.errors;
        return NULL;
    }
    long index = state->attempts++ - state->armed_at;
    if (state->fail_at >= 0 && index == state->fail_at) return NULL;
    if (size == 0) ++state->errors; // osc_alloc promises to ask for at least one byte
    int slot = 0;
    while (slot < MAX_LIVE && state->pointers[slot]) ++slot;
    if (slot == MAX_LIVE) {
        ++state->errors;
        return NULL;
    }
    void* pointer = malloc(size);
    if (!pointer) return NULL;
    if ((uintptr_t)pointer % alignof(max_align_t) != 0) ++state->errors;
    state->pointers[slot] = pointer;
    state->sizes[slot] = size;
    ++state->allocations;
    ++state->live;
    state->live_bytes += size;
    return pointer;
}

static void counting_release(void* pointer, void* context) {
    counting_state* state = context;
    if (state != &counter) {
        ++counter.errors;
        return;
    }
    ++state->releases;
    if (!pointer) return;
    for (int slot = 0; slot < MAX_LIVE; ++slot) {
        if (state->pointers[slot] == pointer) {
            state->pointers[slot] = NULL;
            --state->live;
            state->live_bytes -= state->sizes[slot];
            free(pointer);
            return;
        }
    }
    ++state->errors; // not ours, or released twice: do not free
}

// counts from zero again: the next allocation is attempt 0, and attempt `fail_at` fails
static void arm(long fail_at) {
    counter.armed_at = counter.attempts;
    counter.fail_at = fail_at;
}

static int owns(const void* pointer) {
    for (int slot = 0; slot < MAX_LIVE; ++slot)
        if (pointer && counter.pointers[slot] == pointer) return 1;
    return 0;
}

static void install_counting_allocator(void) {
    memset(&counter, 0, sizeof counter);
    counter.fail_at = -1;
    osc_allocator allocator = {counting_allocate, counting_release, &counter};
    osc_set_allocator(&allocator);
}

// ---------------------------------------------------------------------------------------------
// every model constructor, as a case with fixed inputs

static osc_sdf* inputs[4]; // sphere, PSQ with planes, XPSQ with planes, a CSG tree of the three

static const osc_plane psq_planes[3] = {{{1.0, 0.0, 0.0}, -0.1}, {{0.0, 2.0, 1.0}, -0.2}, {{-0.3, 0.0, -1.0}, -0.25}};

static osc_status make_sphere(osc_sdf** out) { return osc_sdf_create_sphere(0.5, out); }
static osc_status make_box(osc_sdf** out) { return osc_sdf_create_box(osc_v3(0.3, 0.4, 0.5), 0.0, out); }
static osc_status make_rounded_box(osc_sdf** out) { return osc_sdf_create_box(osc_v3(0.3, 0.4, 0.5), 0.1, out); }
static osc_status make_capsule(osc_sdf** out) { return osc_sdf_create_capsule(0.2, 0.5, out); }
static osc_status make_cylinder(osc_sdf** out) { return osc_sdf_create_cylinder(0.3, 0.4, out); }
static osc_status make_cone(osc_sdf** out) { return osc_sdf_create_cone(0.4, 0.1, 0.5, out); }
static osc_status make_torus(osc_sdf** out) { return osc_sdf_create_torus(0.5, 0.15, out); }
static osc_status make_halfspace(osc_sdf** out) { return osc_sdf_create_halfspace(osc_v3(0.0, 1.0, 1.0), 0.1, out); }
static osc_status make_ellipsoid(osc_sdf** out) { return osc_sdf_create_ellipsoid(osc_v3(0.3, 0.4, 0.5), out); }
static osc_status make_superquadric(osc_sdf** out) {
    return osc_sdf_create_superquadric(osc_v3(0.3, 0.4, 0.5), 0.5, 1.5, out);
}
static osc_status make_psq(osc_sdf** out) {
    return osc_sdf_create_psq(osc_v3(0.4, 0.3, 0.5), 0.7, 1.2, psq_planes, 3, 0.02, out);
}
static osc_status make_xpsq(osc_sdf** out) {
    static const osc_plane_profile planes[2] = {{{{1, 0, 0.3}, -0.1}, {{1, 0.2, 0}, -0.05}, {{0.8, -0.3, 0.1}, -0.15}},
                                                {{{0, 1, 0}, -0.2}, {{0, 1, 0}, -0.2}, {{0, 1, 0}, -0.2}}};
    osc_xpsq_desc desc = osc_xpsq_desc_default();
    desc.control_points[0] = osc_v3(-0.5, 0.0, 0.0);
    desc.control_points[1] = osc_v3(0.0, 0.0, 0.6); // curved
    desc.control_points[2] = osc_v3(0.5, 0.0, 0.0);
    desc.scale[0] = osc_profile_linear(0.2, 0.15);
    desc.scale[1] = osc_profile_constant(0.25);
    desc.scale[2] = osc_profile_constant(0.1);
    desc.planes = planes;
    desc.plane_count = 2;
    return osc_sdf_create_xpsq(&desc, out);
}
static osc_status make_union(osc_sdf** out) {
    return osc_sdf_create_union((const osc_sdf* const*)inputs, 3, 0.05, out);
}
static osc_status make_intersection(osc_sdf** out) {
    const osc_sdf* children[3] = {inputs[3], inputs[1], inputs[2]};
    return osc_sdf_create_intersection(children, 3, 0.02, out);
}
static osc_status make_subtraction(osc_sdf** out) {
    return osc_sdf_create_subtraction(inputs[3], inputs[2], 0.01, out);
}
static osc_status make_transformed(osc_sdf** out) {
    osc_pose pose = {osc_v3(0.1, -0.2, 0.3), osc_quat_from_axis_angle(osc_v3(1, 1, 0), 0.7)};
    return osc_sdf_create_transformed(inputs[3], pose, 1.5, out);
}
static osc_status make_offset(osc_sdf** out) { return osc_sdf_create_offset(inputs[3], 0.05, out); }

// a sphere at 24 cells: over 1024 vertices and triangles, so the output arrays grow
static osc_status make_isosurface(osc_mesh** out) {
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = 24;
    return osc_isosurface_extract(inputs[0], &settings, out);
}
// the CSG tree of a PSQ and an XPSQ, coarse
static osc_status make_isosurface_tree(osc_mesh** out) {
    osc_isosurface_settings settings = osc_isosurface_settings_default();
    settings.resolution = 12;
    return osc_isosurface_extract(inputs[3], &settings, out);
}
static const double tetra_vertices[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const int32_t tetra_triangles[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
static osc_status make_mesh(osc_mesh** out) { return osc_mesh_create(tetra_vertices, 4, tetra_triangles, 4, out); }
static osc_status make_empty_mesh(osc_mesh** out) { return osc_mesh_create(NULL, 0, NULL, 0, out); }
// the importers: OBJ from memory (a polygon, a duplicate vertex welded, an unreferenced one
// removed), OFF welded with a tolerance (the hash grid), and files of each binary format
static const char obj_text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 0 0\nv 7 7 7\n"
                               "f 1 3 2\nf 5 2 4\nf 1 4 3\nf 2 3 4 4\n";
static osc_status make_obj(osc_mesh** out) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.degenerate = OSC_MESH_DEGENERATE_DROP;
    return osc_mesh_load_memory(obj_text, sizeof obj_text - 1, &settings, out, NULL);
}
static osc_status make_off_welded(osc_mesh** out) {
    static const char text[] = "OFF\n5 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1e-9 0 0\n"
                               "3 0 2 1\n3 4 1 3\n3 0 3 2\n3 1 2 3\n";
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.weld_tolerance = 1e-6;
    return osc_mesh_load_memory(text, sizeof text - 1, &settings, out, NULL);
}
static osc_status make_stl_file(osc_mesh** out) {
    return osc_mesh_load(OSC_TEST_DATA_DIR "/mesh/box_binary.stl", NULL, out, NULL);
}
static osc_status make_ply_file(osc_mesh** out) {
    return osc_mesh_load(OSC_TEST_DATA_DIR "/mesh/box_be.ply", NULL, out, NULL);
}
// a reordered copy of the tetrahedron (its input is made and released inside the case)
static osc_status make_reordered(osc_mesh** out) {
    osc_mesh* input = NULL;
    osc_status status = make_mesh(&input);
    if (status) {
        *out = NULL;
        return status;
    }
    int32_t vertex_order[4], edge_order[6];
    status = osc_mesh_reorder(input, OSC_CURVE_HILBERT, out, vertex_order, edge_order);
    osc_mesh_destroy(input);
    return status;
}

typedef struct constructor_case {
    const char* name;
    osc_status (*make_sdf)(osc_sdf** out);
    osc_status (*make_mesh)(osc_mesh** out);
} constructor_case;

static const constructor_case cases[] = {
    {"sphere", make_sphere, NULL},
    {"box", make_box, NULL},
    {"rounded box", make_rounded_box, NULL},
    {"capsule", make_capsule, NULL},
    {"cylinder", make_cylinder, NULL},
    {"cone", make_cone, NULL},
    {"torus", make_torus, NULL},
    {"halfspace", make_halfspace, NULL},
    {"ellipsoid", make_ellipsoid, NULL},
    {"superquadric", make_superquadric, NULL},
    {"psq with planes", make_psq, NULL},
    {"xpsq with planes", make_xpsq, NULL},
    {"union", make_union, NULL},
    {"intersection", make_intersection, NULL},
    {"subtraction", make_subtraction, NULL},
    {"transformed", make_transformed, NULL},
    {"offset", make_offset, NULL},
    {"obj loader", NULL, make_obj},
    {"off loader, tolerance welding", NULL, make_off_welded},
    {"binary stl file loader", NULL, make_stl_file},
    {"binary ply file loader", NULL, make_ply_file},
    {"reorder", NULL, make_reordered},
    {"isosurface", NULL, make_isosurface},
    {"isosurface of a tree", NULL, make_isosurface_tree},
    {"mesh", NULL, make_mesh},
    {"empty mesh", NULL, make_empty_mesh},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

// a non-NULL value that a constructor must overwrite with NULL on failure
static max_align_t sentinel;

// runs one constructor; *model receives what it wrote (a model, NULL or the sentinel)
static osc_status run_case(const constructor_case* c, void** model) {
    osc_status status;
    if (c->make_sdf) {
        osc_sdf* out = (osc_sdf*)(void*)&sentinel;
        status = c->make_sdf(&out);
        *model = out;
    } else {
        osc_mesh* out = (osc_mesh*)(void*)&sentinel;
        status = c->make_mesh(&out);
        *model = out;
    }
    return status;
}

static void destroy_case(const constructor_case* c, void* model) {
    if (c->make_sdf)
        osc_sdf_destroy(model);
    else
        osc_mesh_destroy(model);
}

// sphere, PSQ and XPSQ inputs, and a tree of all three, so that combinators copy planes and XPSQs
static int make_inputs(void) {
    int ok = make_sphere(&inputs[0]) == OSC_OK && make_psq(&inputs[1]) == OSC_OK && make_xpsq(&inputs[2]) == OSC_OK;
    osc_pose pose = {osc_v3(0.2, 0.0, 0.0), osc_quat_identity()};
    osc_sdf* moved = NULL;
    ok = ok && osc_sdf_create_transformed(inputs[2], pose, 1.0, &moved) == OSC_OK;
    const osc_sdf* children[3] = {inputs[0], inputs[1], moved};
    ok = ok && osc_sdf_create_union(children, 3, 0.02, &inputs[3]) == OSC_OK;
    osc_sdf_destroy(moved);
    return ok;
}

static void destroy_inputs(void) {
    for (int i = 0; i < 4; ++i) {
        osc_sdf_destroy(inputs[i]);
        inputs[i] = NULL;
    }
}

// queries on a model never allocate (base.h): evaluation with derivatives, batch, bounds, mesh
static void check_queries_do_not_allocate(const constructor_case* c, void* model) {
    long before = counter.attempts;
    if (c->make_sdf) {
        osc_vec3 g, lo, hi;
        osc_mat3 h;
        double points[3 * 300], values[300], gradients[3 * 300], hessians[9 * 300];
        for (int i = 0; i < 3 * 300; ++i) points[i] = 0.01 * (i % 97) - 0.4;
        (void)osc_sdf_eval(model, osc_v3(0.1, 0.2, 0.3), &g, &h);
        CHECK_STATUS(osc_sdf_eval_batch(model, points, 300, values, gradients, hessians, 0), OSC_OK);
        osc_sdf_bounds(model, &lo, &hi);
        (void)osc_sdf_lipschitz(model);
        (void)osc_sdf_eval_leaf(model, 0, osc_v3(0.1, 0.2, 0.3), &g, &h);
    } else {
        osc_mesh_topology topology;
        (void)osc_mesh_volume(model);
        (void)osc_mesh_area(model);
        osc_mesh_get_topology(model, &topology);
        (void)osc_mesh_edges(model);
        (void)osc_mesh_edge_triangles(model);
    }
    CHECK_MSG(counter.attempts == before, "%s: queries allocated %ld times", c->name, counter.attempts - before);
}

// every constructor allocates through the installed allocator (the model itself is one of its
// blocks), queries do not, and destroying everything returns the live count and bytes to 0
static void test_counting_allocator(void) {
    install_counting_allocator();
    CHECK(make_inputs());
    CHECK(counter.allocations > 0 && counter.live > 0);
    void* models[CASE_COUNT];
    for (int i = 0; i < CASE_COUNT; ++i) {
        long before = counter.allocations;
        CHECK_STATUS(run_case(&cases[i], &models[i]), OSC_OK);
        CHECK_MSG(counter.allocations > before, "%s: the custom allocator was not used", cases[i].name);
        CHECK_MSG(owns(models[i]), "%s: the model is not a block of the custom allocator", cases[i].name);
        if (owns(models[i])) check_queries_do_not_allocate(&cases[i], models[i]);
    }
    CHECK(osc_mesh_triangle_count(models[CASE_COUNT - 4]) > 1024); // the grown isosurface
    CHECK(osc_mesh_triangle_count(models[CASE_COUNT - 2]) == 4);
    for (int i = 0; i < CASE_COUNT; ++i)
        if (owns(models[i])) destroy_case(&cases[i], models[i]);
    destroy_inputs();
    CHECK_MSG(counter.live == 0 && counter.live_bytes == 0, "%ld blocks, %zu bytes still live", counter.live,
              counter.live_bytes);
    CHECK(counter.releases == counter.allocations);
    CHECK_MSG(counter.errors == 0, "%d allocator errors (context, foreign/double release, size)", counter.errors);
    osc_set_allocator(NULL);
}

// fail allocation k = 0, 1, 2, ... of each constructor until it succeeds: before that, every call
// returns OSC_ERR_NO_MEMORY with an out-of-memory message, writes NULL to *out and leaks nothing;
// the first success comes at k = the number of allocations of an undisturbed call
static void test_allocation_failures(void) {
    install_counting_allocator();
    CHECK(make_inputs());
    for (int i = 0; i < CASE_COUNT; ++i) {
        const constructor_case* c = &cases[i];
        arm(-1);
        void* model = NULL;
        CHECK_STATUS(run_case(c, &model), OSC_OK);
        long needed = counter.attempts - counter.armed_at;
        if (owns(model)) destroy_case(c, model);
        CHECK_MSG(needed > 0, "%s: no allocation to fail", c->name);
        int bad = 0;
        long k = 0;
        for (;; ++k) {
            long live = counter.live;
            size_t live_bytes = counter.live_bytes;
            osc_clear_error();
            arm(k);
            osc_status status = run_case(c, &model);
            if (status == OSC_OK) break;
            if (status != OSC_ERR_NO_MEMORY || model != NULL || counter.live != live ||
                counter.live_bytes != live_bytes || !strstr(osc_last_error(), "out of memory")) {
                if (bad++ < 3)
                    fprintf(stderr,
                            "%s, failing allocation %ld: status %s, out %s, %ld blocks "
                            "leaked, message \"%s\"\n",
                            c->name, k, osc_status_string(status), model == NULL ? "NULL" : "not NULL",
                            counter.live - live, osc_last_error());
                if (model != NULL && model != (void*)&sentinel && owns(model)) destroy_case(c, model);
                counter.live = live; // count each leak once
                counter.live_bytes = live_bytes;
            }
            if (k > 10 * needed + 100) break; // keeps a runaway loop finite
        }
        CHECK_MSG(bad == 0, "%s: %d of %ld injected failures misbehaved", c->name, bad, k);
        CHECK_MSG(k == needed, "%s: first success at k = %ld, expected %ld allocations", c->name, k, needed);
        if (owns(model)) destroy_case(c, model);
    }
    arm(-1);
    destroy_inputs();
    CHECK_MSG(counter.live == 0 && counter.live_bytes == 0, "%ld blocks, %zu bytes still live", counter.live,
              counter.live_bytes);
    CHECK_MSG(counter.errors == 0, "%d allocator errors", counter.errors);
    osc_set_allocator(NULL);
}

// ---------------------------------------------------------------------------------------------
// the internal helpers and NULL handling

// osc_alloc asks for >= 1 byte; osc_calloc zeroes and refuses an overflowing size without calling
// the allocator; osc_free(NULL) does not call release
static void test_internal_helpers(void) {
    install_counting_allocator();
    unsigned char* bytes = osc_alloc(0);
    CHECK(bytes != NULL && owns(bytes) && counter.sizes[0] >= 1);
    osc_free(bytes);
    unsigned char* zeroed = osc_calloc(100, 3);
    int all_zero = zeroed != NULL;
    for (int i = 0; zeroed && i < 300; ++i) all_zero &= zeroed[i] == 0;
    CHECK(all_zero && counter.live_bytes == 300);
    osc_free(zeroed);
    long attempts = counter.attempts;
    osc_clear_error();
    CHECK(osc_calloc(SIZE_MAX / 2 + 2, 2) == NULL);
    CHECK(counter.attempts == attempts);
    CHECK_MSG(strstr(osc_last_error(), "overflows") != NULL, "message \"%s\"", osc_last_error());
    long releases = counter.releases;
    osc_free(NULL);
    CHECK(counter.releases == releases);
    arm(0);
    osc_clear_error();
    CHECK(osc_alloc(16) == NULL);
    CHECK(strstr(osc_last_error(), "out of memory") != NULL);
    arm(-1);
    CHECK(counter.live == 0 && counter.errors == 0);
    osc_set_allocator(NULL);
}

// destroy functions accept NULL without releasing anything; an allocator with a NULL function
// pointer (or a NULL allocator) restores malloc/free
static void test_null_handling(void) {
    install_counting_allocator();
    osc_sdf_destroy(NULL);
    osc_mesh_destroy(NULL);
    CHECK(counter.releases == 0 && counter.attempts == 0);

    const osc_allocator variants[3] = {
        {NULL, NULL, NULL}, {counting_allocate, NULL, &counter}, {NULL, counting_release, &counter}};
    for (int v = 0; v < 3; ++v) {
        osc_allocator allocator = {counting_allocate, counting_release, &counter};
        osc_set_allocator(&allocator);
        osc_set_allocator(&variants[v]);
        osc_sdf* sphere = NULL;
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
        CHECK_STATUS(make_mesh(&mesh), OSC_OK);
        CHECK_MSG(counter.attempts == 0, "variant %d still uses the custom allocator", v);
        osc_sdf_destroy(sphere);
        osc_mesh_destroy(mesh);
        CHECK(counter.releases == 0);
    }
    osc_set_allocator(NULL);
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_sdf_destroy(sphere);
    CHECK(counter.attempts == 0 && counter.errors == 0);
}

// ---------------------------------------------------------------------------------------------
// osc_sort: stable, in place, against a reference (insertion sort) on keys with many ties, for
// element sizes below, at and above the swap buffer (64 bytes)

typedef struct sort_item {
    int key;           // compared
    int serial;        // the original position: equal keys must keep increasing serials
    char payload[120]; // carried along (the element is `size` bytes of this struct)
} sort_item;

static int compare_sort_items(const void* a, const void* b) {
    int x = ((const sort_item*)a)->key, y = ((const sort_item*)b)->key;
    return (x > y) - (x < y);
}

static void test_sort(void) {
    static sort_item items[1200], expected[1200];
    const size_t sizes[] = {2 * sizeof(int), 2 * sizeof(int) + 56, sizeof(sort_item)};
    const size_t counts[] = {0, 1, 2, 3, 19, 20, 21, 40, 41, 100, 257, 1200};
    unsigned state = 12345u;
    for (size_t si = 0; si < 3; ++si) {
        size_t size = sizes[si];
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ++ci) {
            size_t count = counts[ci];
            int range = ci % 2 ? 7 : 1000; // many ties, or few
            unsigned char* packed = (unsigned char*)items;
            for (size_t i = 0; i < count; ++i) {
                sort_item item;
                state = state * 1664525u + 1013904223u;
                item.key = (int)(state >> 8) % range - range / 2;
                item.serial = (int)i;
                for (size_t k = 0; k < sizeof item.payload; ++k) item.payload[k] = (char)(i + k);
                memcpy(packed + i * size, &item, size);
                expected[i] = item;
            }
            // reference: stable insertion sort of full items
            for (size_t i = 1; i < count; ++i)
                for (size_t j = i; j > 0 && expected[j].key < expected[j - 1].key; --j) {
                    sort_item t = expected[j];
                    expected[j] = expected[j - 1];
                    expected[j - 1] = t;
                }
            osc_sort(packed, count, size, compare_sort_items);
            int wrong = 0;
            for (size_t i = 0; i < count; ++i) {
                sort_item got;
                memset(&got, 0, sizeof got);
                memcpy(&got, packed + i * size, size);
                if (got.key != expected[i].key || got.serial != expected[i].serial ||
                    memcmp(got.payload, expected[i].payload, size - 2 * sizeof(int)) != 0)
                    ++wrong;
            }
            CHECK_MSG(wrong == 0, "size %zu count %zu: %d elements out of place", size, count, wrong);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// osc_batch_run: every item runs once whatever the others return, statuses per slot, the lowest
// failing index reported with its message, threads clamped and checked

typedef struct batch_probe {
    atomic_int calls[1000];
    size_t fail_from; // items at or after this index (and odd) fail
} batch_probe;

static osc_status probe_item(void* context, size_t index) {
    batch_probe* probe = context;
    atomic_fetch_add(&probe->calls[index], 1);
    if (index >= probe->fail_from && index % 2 == 1)
        return osc_fail(OSC_ERR_NOT_CONVERGED, "probe item %zu failed", index);
    return OSC_OK;
}

static void test_batch_runner(void) {
    static batch_probe probe;
    static osc_status statuses[1000];
    const int thread_counts[] = {0, 1, 2, 3, 100000};
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
        for (size_t i = 0; i < 1000; ++i) atomic_store(&probe.calls[i], 0);
        probe.fail_from = 600;
        osc_status status =
            osc_batch_run("batch_test", "item", 1000, thread_counts[t], 1, probe_item, &probe, statuses);
        CHECK(status == OSC_ERR_NOT_CONVERGED);
        CHECK_MSG(strcmp(osc_last_error(), "batch_test: item 601: probe item 601 failed") == 0, "threads %d: \"%s\"",
                  thread_counts[t], osc_last_error());
        int wrong = 0;
        for (size_t i = 0; i < 1000; ++i) {
            osc_status want = i >= 600 && i % 2 == 1 ? OSC_ERR_NOT_CONVERGED : OSC_OK;
            if (atomic_load(&probe.calls[i]) != 1 || statuses[i] != want) ++wrong;
        }
        CHECK_MSG(wrong == 0, "threads %d: %d items ran other than once or have the wrong status", thread_counts[t],
                  wrong);
        probe.fail_from = 1000;
        CHECK(osc_batch_run("batch_test", "item", 1000, thread_counts[t], 1, probe_item, &probe, NULL) == OSC_OK);
    }
    CHECK(osc_batch_run("batch_test", "item", 0, 4, 1, probe_item, &probe, statuses) == OSC_OK);
    CHECK(osc_batch_run("batch_test", "item", 10, -1, 1, probe_item, &probe, statuses) == OSC_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(osc_last_error(), "threads") && strstr(osc_last_error(), "-1"), "\"%s\"", osc_last_error());
    // the team: clamped to OSC_MAX_THREADS, never more threads than items allow, at least one
    CHECK(osc_thread_count(100000) == OSC_MAX_THREADS);
    CHECK(osc_thread_count(3) == 3);
    CHECK(osc_batch_team(8, 3, 1) <= 3);
    CHECK(osc_batch_team(8, 100, 64) == 1);
    CHECK(osc_batch_team(1, 100000, 1) == 1);
    CHECK(osc_batch_team(100000, 1000000, 1) <= OSC_MAX_THREADS);
    CHECK(osc_default_thread_count() <= OSC_MAX_THREADS);
}

// an endless stream (/dev/zero), a directory and a pipe are refused at once, not read until memory
// runs out; a regular file is read whole
static void test_read_file_refuses_streams(void) {
    unsigned char* data = NULL;
    size_t size = 0;
    const char* streams[] = {"/dev/zero", "/dev/urandom", "/tmp"};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; ++i) {
        osc_status status = osc_read_file("reader", streams[i], &data, &size);
        CHECK_MSG(status == OSC_ERR_IO && data == NULL && size == 0, "%s: status %d", streams[i], status);
        CHECK_MSG(strstr(osc_last_error(), "not a regular file") && strstr(osc_last_error(), streams[i]), "\"%s\"",
                  osc_last_error());
    }
    char path[] = "/tmp/osc_read_file_XXXXXX";
    int descriptor = mkstemp(path);
    CHECK(descriptor >= 0);
    if (descriptor < 0) return;
    FILE* file = fdopen(descriptor, "wb");
    fputs("abc", file);
    fclose(file);
    CHECK(osc_read_file("reader", path, &data, &size) == OSC_OK && size == 3 && memcmp(data, "abc", 3) == 0);
    osc_free(data);
    remove(path);
}

int main(void) {
    RUN(test_version);
    RUN(test_status_strings);
    RUN(test_last_error);
    RUN(test_last_error_is_thread_local);
    RUN(test_counting_allocator);
    RUN(test_allocation_failures);
    RUN(test_internal_helpers);
    RUN(test_null_handling);
    RUN(test_sort);
    RUN(test_batch_runner);
    RUN(test_read_file_refuses_streams);
    return test_finish();
}
