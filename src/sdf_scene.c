// sdf_scene.c: collision points of every pair of many SDF bodies (seed 003 §5.2): a sort-and-sweep
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

size_t osc_sdf_scene_workspace_size(int count) {
    if (count <= 0) return 0;
    return (size_t)count * (sizeof(sweep_entry) + 2 * sizeof(osc_vec3)) + 16;
}

static int by_lower_x(const void* x, const void* y) {
    const sweep_entry *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->body - b->body;
}

osc_status osc_sdf_scene_collide(const osc_sdf_shape* shapes, const osc_pose* poses, int count,
                                 const osc_sdf_pair_settings* settings, int contacts_per_pair,
                                 osc_sdf_scene_pair* pairs, int pair_capacity,
                                 osc_sdf_contact* contacts, int* pair_count, int* pairs_needed,
                                 void* workspace, int threads) {
    const char* function = "osc_sdf_scene_collide";
    if (!pair_count || !pairs_needed)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: pair_count or pairs_needed is NULL", function);
    *pair_count = *pairs_needed = 0;
    if (count < 0 || pair_capacity < 0 || contacts_per_pair < 1 || threads < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: count %d, pair_capacity %d, "
                        "contacts_per_pair %d, threads %d: out of range", function, count,
                        pair_capacity, contacts_per_pair, threads);
    if (count == 0) return OSC_OK;
    if (!shapes || !poses || !workspace || (pair_capacity > 0 && (!pairs || !contacts)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: shapes, poses, pairs, contacts or workspace "
                        "is NULL", function);
    if ((size_t)pair_capacity > (size_t)INT32_MAX / (size_t)contacts_per_pair)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: pair_capacity x contacts_per_pair overflows",
                        function);
    // the workspace, aligned for doubles
    unsigned char* base = (unsigned char*)workspace;
    base += (16 - (size_t)((uintptr_t)base % 16)) % 16;
    scene_workspace ws = {(sweep_entry*)base, NULL, NULL};
    ws.lo = (osc_vec3*)(base + sizeof(sweep_entry) * (size_t)count);
    ws.hi = ws.lo + count;
    for (int i = 0; i < count; ++i) {
        char name[32];
        snprintf(name, sizeof name, "%d", i);
        osc_status status = sdf_pair_world_box(function, name, &shapes[i], poses[i], &ws.lo[i], &ws.hi[i]);
        if (status != OSC_OK) return status;
        ws.order[i].lo = ws.lo[i].x;
        ws.order[i].body = i;
    }
    // sort and sweep along x, then test y and z
    osc_sort(ws.order, (size_t)count, sizeof *ws.order, by_lower_x); // no allocation
    int found = 0;
    for (int i = 0; i < count; ++i) {
        int a = ws.order[i].body;
        for (int j = i + 1; j < count && ws.order[j].lo <= ws.hi[a].x; ++j) {
            int b = ws.order[j].body;
            if (ws.lo[a].y > ws.hi[b].y || ws.lo[b].y > ws.hi[a].y || ws.lo[a].z > ws.hi[b].z ||
                ws.lo[b].z > ws.hi[a].z)
                continue;
            if (found < pair_capacity) {
                osc_sdf_scene_pair* pair = &pairs[found];
                pair->a = a < b ? a : b;
                pair->b = a < b ? b : a;
                pair->first_contact = found * contacts_per_pair;
                pair->contact_count = 0;
                pair->status = OSC_OK;
            }
            ++found;
        }
    }
    *pairs_needed = found;
    int written = found < pair_capacity ? found : pair_capacity;
    *pair_count = written;
    // the narrow phase: each pair writes only its own slots
#ifdef OSC_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(osc_thread_count(threads))
#endif
    for (int k = 0; k < written; ++k) {
        osc_sdf_scene_pair* pair = &pairs[k];
        osc_sdf_pair_output out;
        memset(&out, 0, sizeof out);
        out.contacts = contacts + pair->first_contact;
        out.capacity = contacts_per_pair;
        pair->status = osc_sdf_pair_collide(&shapes[pair->a], poses[pair->a], &shapes[pair->b],
                                            poses[pair->b], settings, &out);
        pair->contact_count = out.count;
    }
    for (int k = 0; k < written; ++k)
        if (pairs[k].status != OSC_OK && pairs[k].status != OSC_ERR_CAPACITY)
            return osc_fail(pairs[k].status, "%s: the pair of bodies %d and %d failed", function,
                            pairs[k].a, pairs[k].b);
    if (found > pair_capacity)
        return osc_fail(OSC_ERR_CAPACITY, "%s: %d candidate pairs, capacity %d", function, found,
                        pair_capacity);
    return OSC_OK;
}
