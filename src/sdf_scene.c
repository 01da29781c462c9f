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
static bool workspace_fits(int count) { return (size_t)count <= (SIZE_MAX - ALIGNMENT_SLACK) / BODY_BYTES; }

size_t osc_sdf_scene_workspace_size(int count) {
    if (count <= 0) return 0;
    if (!workspace_fits(count)) return SIZE_MAX; // no allocation can hold it
    return (size_t)count * BODY_BYTES + ALIGNMENT_SLACK;
}

static int by_lower_x(const void* x, const void* y) {
    const sweep_entry *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->body - b->body;
}

// each argument checked on its own, the message naming it and its value
static osc_status check_arguments(const char* function, const osc_sdf_shape* shapes, const osc_pose* poses, int count,
                                  int contacts_per_pair, const osc_sdf_scene_pair* pairs, int pair_capacity,
                                  const osc_sdf_contact* contacts, const void* workspace, int threads) {
    const char* name = NULL;
    int value = 0, minimum = 0;
    if (count < 0)
        name = "count", value = count;
    else if (pair_capacity < 0)
        name = "pair_capacity", value = pair_capacity;
    else if (contacts_per_pair < 1)
        name = "contacts_per_pair", value = contacts_per_pair, minimum = 1;
    else if (threads < 0)
        name = "threads", value = threads;
    if (name)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is %d; it must be >= %d", function, name, value, minimum);
    if (count == 0) return OSC_OK;
    if (!workspace_fits(count))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count is %d; its workspace exceeds SIZE_MAX", function, count);
    if (!shapes)
        name = "shapes";
    else if (!poses)
        name = "poses";
    else if (!workspace)
        name = "workspace";
    if (name) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count %d", function, name, count);
    if (pair_capacity > 0 && (!pairs || !contacts))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL with pair_capacity %d", function,
                        pairs ? "contacts" : "pairs", pair_capacity);
    if ((size_t)pair_capacity * (size_t)contacts_per_pair > (size_t)INT32_MAX)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: pair_capacity %d x contacts_per_pair %d exceeds "
                        "2^31 - 1 contacts",
                        function, pair_capacity, contacts_per_pair);
    return OSC_OK;
}

// the narrow phase, run by osc_batch_run: each pair writes only its own slots
typedef struct scene_batch {
    const osc_sdf_shape* shapes;
    const osc_pose* poses;
    const osc_sdf_pair_settings* settings;
    int contacts_per_pair;
    osc_sdf_scene_pair* pairs;
    osc_sdf_contact* contacts;
} scene_batch;

// a pair's failure other than running out of its slots fails the scene, naming both bodies
static osc_status scene_pair(void* context, size_t index) {
    const scene_batch* batch = context;
    osc_sdf_scene_pair* pair = &batch->pairs[index];
    osc_sdf_pair_output out;
    memset(&out, 0, sizeof out);
    out.contacts = batch->contacts + pair->first_contact;
    out.capacity = batch->contacts_per_pair;
    pair->status = osc_sdf_pair_collide(&batch->shapes[pair->a], batch->poses[pair->a], &batch->shapes[pair->b],
                                        batch->poses[pair->b], batch->settings, &out);
    pair->contact_count = out.count;
    if (pair->status == OSC_OK || pair->status == OSC_ERR_CAPACITY) return OSC_OK;
    char message[512];
    snprintf(message, sizeof message, "%s", osc_last_error());
    return osc_fail(pair->status, "bodies %d and %d: %s", pair->a, pair->b, message);
}

osc_status osc_sdf_scene_collide(const osc_sdf_shape* shapes, const osc_pose* poses, int count,
                                 const osc_sdf_pair_settings* settings, int contacts_per_pair,
                                 osc_sdf_scene_pair* pairs, int pair_capacity, osc_sdf_contact* contacts,
                                 int* pair_count, int* pairs_needed, void* workspace, int threads) {
    const char* function = "osc_sdf_scene_collide";
    if (!pair_count || !pairs_needed)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function,
                        pair_count ? "pairs_needed" : "pair_count");
    *pair_count = *pairs_needed = 0;
    osc_status status = check_arguments(function, shapes, poses, count, contacts_per_pair, pairs, pair_capacity,
                                        contacts, workspace, threads);
    if (status != OSC_OK || count == 0) return status;
    osc_sdf_pair_settings pair_settings = settings ? *settings : osc_sdf_pair_settings_default();
    if ((status = sdf_pair_check_settings(function, &pair_settings)) != OSC_OK) return status;
    // the workspace, aligned for doubles
    unsigned char* base = (unsigned char*)workspace;
    base += (ALIGNMENT_SLACK - (size_t)((uintptr_t)base % ALIGNMENT_SLACK)) % ALIGNMENT_SLACK;
    scene_workspace ws = {(sweep_entry*)base, NULL, NULL};
    ws.lo = (osc_vec3*)(base + sizeof(sweep_entry) * (size_t)count);
    ws.hi = ws.lo + count;
    for (int i = 0; i < count; ++i) {
        char name[32];
        snprintf(name, sizeof name, "%d", i);
        status = sdf_pair_world_box(function, name, &shapes[i], poses[i], &ws.lo[i], &ws.hi[i]);
        if (status != OSC_OK) return status;
        ws.order[i].lo = ws.lo[i].x;
        ws.order[i].body = i;
    }
    // sort and sweep along x, then test y and z
    osc_sort(ws.order, (size_t)count, sizeof *ws.order, by_lower_x); // no allocation
    int64_t found = 0;
    for (int i = 0; i < count; ++i) {
        int a = ws.order[i].body;
        const osc_vec3 lo_a = ws.lo[a], hi_a = ws.hi[a];
        for (int j = i + 1; j < count && ws.order[j].lo <= hi_a.x; ++j) {
            int b = ws.order[j].body;
            if (lo_a.y > ws.hi[b].y || ws.lo[b].y > hi_a.y || lo_a.z > ws.hi[b].z || ws.lo[b].z > hi_a.z) continue;
            if (found < pair_capacity) {
                osc_sdf_scene_pair* pair = &pairs[found];
                pair->a = a < b ? a : b;
                pair->b = a < b ? b : a;
                pair->first_contact = (int)found * contacts_per_pair;
                pair->contact_count = 0;
                pair->status = OSC_OK;
            }
            ++found;
        }
    }
    *pairs_needed = found < INT32_MAX ? (int)found : INT32_MAX;
    int written = found < pair_capacity ? (int)found : pair_capacity;
    *pair_count = written;
    scene_batch batch = {shapes, poses, &pair_settings, contacts_per_pair, pairs, contacts};
    status = osc_batch_run(function, "pair", (size_t)written, threads, 1, scene_pair, &batch, NULL);
    if (status != OSC_OK) return status;
    if (found > pair_capacity)
        return osc_fail(OSC_ERR_CAPACITY, "%s: %lld candidate pairs, capacity %d", function, (long long)found,
                        pair_capacity);
    return OSC_OK;
}
