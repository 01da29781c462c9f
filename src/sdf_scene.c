// sdf_scene.c: collision points of every pair of many SDF bodies (Al-Ameri 2025 §5.2): a sort-and-sweep
// broad phase over the bodies' world boxes, then the pair query (sdf_pair.c) on each candidate
// pair over threads.

#include "sdf_pair_internal.h"

#include "base_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct sweep_entry {
    double lo; // the box's lower x
    int body;
} sweep_entry;

typedef struct scene_workspace {
    sweep_entry* order;
    osc_vec3* lo;
    osc_vec3* hi;
} scene_workspace;

enum { BODY_BYTES = sizeof(sweep_entry) + 2 * sizeof(osc_vec3), ALIGNMENT_SLACK = 16 };

// true when `count` bodies' workspace has a size in size_t (always with 64-bit sizes)
static bool workspace_fits(size_t count) { return count <= (SIZE_MAX - ALIGNMENT_SLACK) / BODY_BYTES; }

size_t osc_sdf_scene_workspace_size(size_t count) {
    if (count == 0) return 0;
    if (!workspace_fits(count)) return SIZE_MAX; // no allocation can hold it
    return count * BODY_BYTES + ALIGNMENT_SLACK;
}

static int by_lower_x(const void* x, const void* y) {
    const sweep_entry *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->body - b->body;
}

// each argument checked on its own, the message naming it and its value
static osc_status check_arguments(const char* function, const osc_sdf_scene_body* bodies, size_t count,
                                  const osc_sdf_scene_output* out, const void* workspace) {
    if (out->capacity < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output->capacity is %d; it must be >= 0", function,
                        (int)out->capacity);
    if (out->contacts_per_pair < 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output->contacts_per_pair is %d; it must be >= 1", function,
                        (int)out->contacts_per_pair);
    if (out->capacity > 0 && (!out->pairs || !out->contacts))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output->%s is NULL with capacity %d", function,
                        out->pairs ? "contacts" : "pairs", (int)out->capacity);
    if ((size_t)out->capacity * (size_t)out->contacts_per_pair > (size_t)INT32_MAX)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: output->capacity %d x contacts_per_pair %d exceeds 2^31 - 1 contacts", function,
                        (int)out->capacity, (int)out->contacts_per_pair);
    if (count == 0) return OSC_OK;
    if (count > (size_t)INT32_MAX || !workspace_fits(count))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count is %zu; at most 2^31 - 1 bodies", function, count);
    if (!bodies) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: bodies is NULL with count %zu", function, count);
    if (!workspace) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: workspace is NULL with count %zu", function, count);
    return OSC_OK;
}

// the narrow phase, run by osc_batch_run: each pair writes only its own slots
typedef struct scene_batch {
    const osc_sdf_scene_body* bodies;
    const osc_sdf_pair_settings* settings;
    osc_sdf_scene_output* out;
} scene_batch;

// a pair's failure other than running out of its slots fails the scene, naming both bodies
static osc_status scene_pair(void* context, size_t index) {
    const scene_batch* batch = context;
    osc_sdf_scene_pair* pair = &batch->out->pairs[index];
    osc_sdf_pair_output out;
    memset(&out, 0, sizeof out);
    out.contacts = batch->out->contacts + pair->first_contact;
    out.capacity = batch->out->contacts_per_pair;
    const osc_sdf_scene_body *a = &batch->bodies[pair->a], *b = &batch->bodies[pair->b];
    pair->status = osc_sdf_pair_collide(a->shape, a->pose, b->shape, b->pose, batch->settings, &out);
    pair->contact_count = out.count;
    if (pair->status == OSC_OK || pair->status == OSC_ERR_CAPACITY) return OSC_OK;
    char message[512];
    snprintf(message, sizeof message, "%s", osc_last_error());
    return osc_fail(pair->status, "bodies %d and %d: %s", (int)pair->a, (int)pair->b, message);
}

// checks body i and writes its world box; the names in a message are formatted only on failure
static osc_status body_box(const char* function, const osc_sdf_scene_body* body, size_t i, osc_vec3* lo, osc_vec3* hi) {
    osc_status status = body->shape ? sdf_pair_world_box(function, "", "pose", body->shape, body->pose, lo, hi)
                                    : OSC_ERR_INVALID_ARGUMENT;
    if (status == OSC_OK) return OSC_OK;
    char shape[48], pose[48];
    snprintf(shape, sizeof shape, "bodies[%zu].shape", i);
    snprintf(pose, sizeof pose, "bodies[%zu].pose", i);
    if (!body->shape) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function, shape);
    return sdf_pair_world_box(function, shape, pose, body->shape, body->pose, lo, hi);
}

osc_status osc_sdf_scene_collide(const osc_sdf_scene_body* bodies, size_t count, const osc_sdf_pair_settings* settings,
                                 osc_sdf_scene_output* out, void* workspace, int threads) {
    const char* function = "osc_sdf_scene_collide";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output is NULL", function);
    out->count = out->needed = 0;
    if (threads < 0) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads is %d; it must be >= 0", function, threads);
    osc_status status = check_arguments(function, bodies, count, out, workspace);
    if (status != OSC_OK || count == 0) return status;
    osc_sdf_pair_settings pair_settings = settings ? *settings : osc_sdf_pair_settings_default();
    if ((status = sdf_pair_check_settings(function, &pair_settings)) != OSC_OK) return status;
    // the workspace, aligned for doubles
    unsigned char* base = (unsigned char*)workspace;
    base += (ALIGNMENT_SLACK - (size_t)((uintptr_t)base % ALIGNMENT_SLACK)) % ALIGNMENT_SLACK;
    scene_workspace ws = {(sweep_entry*)base, NULL, NULL};
    ws.lo = (osc_vec3*)(base + sizeof(sweep_entry) * count);
    ws.hi = ws.lo + count;
    for (size_t i = 0; i < count; ++i) {
        if ((status = body_box(function, &bodies[i], i, &ws.lo[i], &ws.hi[i])) != OSC_OK) return status;
        ws.order[i].lo = ws.lo[i].x;
        ws.order[i].body = (int)i;
    }
    // sort and sweep along x, then test y and z
    osc_sort(ws.order, count, sizeof *ws.order, by_lower_x); // no allocation
    int64_t found = 0;
    for (size_t i = 0; i < count; ++i) {
        int a = ws.order[i].body;
        const osc_vec3 lo_a = ws.lo[a], hi_a = ws.hi[a];
        for (size_t j = i + 1; j < count && ws.order[j].lo <= hi_a.x; ++j) {
            int b = ws.order[j].body;
            if (lo_a.y > ws.hi[b].y || ws.lo[b].y > hi_a.y || lo_a.z > ws.hi[b].z || ws.lo[b].z > hi_a.z) continue;
            if (found < out->capacity) {
                osc_sdf_scene_pair* pair = &out->pairs[found];
                pair->a = a < b ? a : b;
                pair->b = a < b ? b : a;
                pair->first_contact = (int32_t)found * out->contacts_per_pair;
                pair->contact_count = 0;
                pair->status = OSC_OK;
            }
            ++found;
        }
    }
    out->needed = found < INT32_MAX ? (int32_t)found : INT32_MAX;
    out->count = found < out->capacity ? (int32_t)found : out->capacity;
    scene_batch batch = {bodies, &pair_settings, out};
    status = osc_batch_run(function, "pair", (size_t)out->count, threads, 1, scene_pair, &batch, NULL);
    if (status != OSC_OK) return status;
    if (found > out->capacity)
        return osc_fail(OSC_ERR_CAPACITY, "%s: %lld candidate pairs found, capacity is %d", function, (long long)found,
                        (int)out->capacity);
    return OSC_OK;
}
