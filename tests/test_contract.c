// test_contract.c: the query contract of docs/api.md, family by family, on the small models of
// query_fixtures.h. For the manifold, DCOL, SDF pairs and LMD: NULL settings give the defaults' answer
// bit for bit; a bad pose is refused with the one message every family gives; the outputs of a
// variable number of contacts report the count that was needed and write the first `capacity`;
// a batch reports a status per slot and its lowest failing item, computes the other items exactly as
// single calls, and checks its own arguments (threads, items) before any item runs. Rays keep the
// parts of the contract that apply to them (no poses: a ray and the surface's placement).

#include "osculate/osculate.h"
#include "query_fixtures.h"
#include "test_common.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum { CAP = 512, BATCH = 6, CONTACT_BYTES = 384 }; // CONTACT_BYTES: room for the largest contact struct

_Static_assert(sizeof(osc_manifold_contact) <= CONTACT_BYTES && sizeof(osc_dcol_result) <= CONTACT_BYTES &&
                   sizeof(osc_sdf_pair_contact) <= CONTACT_BYTES && sizeof(osc_lmd_contact) <= CONTACT_BYTES,
               "CONTACT_BYTES holds every contact struct");

static query_models M;

// Everything a query returned: its status, its contacts as bytes and their distance Jacobians.
// DCOL returns one result; it is stored as one contact.
typedef struct answer {
    osc_status status;
    int32_t count, needed;
    size_t stride, contact_size; // the contact struct's size, and its bytes before any trailing padding
    _Alignas(double) unsigned char contacts[CAP * CONTACT_BYTES];
    double distance_jacobians[CAP][12];
    char message[512];
} answer;

// One query family, behind one signature: the single call with NULL or default settings and a
// given capacity, and the batch call over BATCH pairs of poses.
typedef struct family {
    const char* single_name;
    const char* batch_name;
    osc_pose pose_a, pose_b; // a configuration in contact
    int variable_count;      // 1: an output of capacity, count and needed
    void (*single)(osc_pose pose_a, osc_pose pose_b, int null_settings, int32_t capacity, int null_contacts,
                   answer* out);
    void (*batch)(const osc_pose* poses_a, const osc_pose* poses_b, size_t count, int null_settings, answer* outs,
                  osc_status* statuses, int threads);
} family;

static answer g_single, g_other, g_batch[BATCH];

// contact i of an answer
static const unsigned char* contact(const answer* out, int32_t i) { return out->contacts + (size_t)i * out->stride; }

static void finish(answer* out, osc_status status) {
    out->status = status;
    snprintf(out->message, sizeof out->message, "%s", status == OSC_OK ? "" : osc_last_error());
}

// ---- the manifold --------------------------------------------------------------------------------

static void manifold_output(answer* out, int32_t capacity, int null_contacts, osc_manifold_output* output) {
    memset(out, 0, sizeof *out);
    out->stride = out->contact_size = sizeof(osc_manifold_contact);
    *output = (osc_manifold_output){.contacts = null_contacts ? NULL : (osc_manifold_contact*)out->contacts,
                                    .capacity = capacity,
                                    .distance_jacobians = &out->distance_jacobians[0][0]};
}

static void manifold_single(osc_pose pose_a, osc_pose pose_b, int null_settings, int32_t capacity, int null_contacts,
                            answer* out) {
    osc_manifold_output output;
    manifold_output(out, capacity, null_contacts, &output);
    osc_manifold_settings defaults = osc_manifold_settings_default();
    osc_status status =
        osc_manifold_collide(M.slab_body, pose_a, M.ball_body, pose_b, null_settings ? NULL : &defaults, &output);
    out->count = output.count;
    out->needed = output.needed;
    finish(out, status);
}

static void manifold_batch(const osc_pose* poses_a, const osc_pose* poses_b, size_t count, int null_settings,
                           answer* outs, osc_status* statuses, int threads) {
    osc_manifold_batch_item items[BATCH];
    osc_manifold_output outputs[BATCH];
    for (size_t i = 0; i < count; ++i) {
        items[i] = (osc_manifold_batch_item){M.slab_body, poses_a[i], M.ball_body, poses_b[i]};
        manifold_output(&outs[i], CAP, 0, &outputs[i]);
    }
    osc_manifold_settings defaults = osc_manifold_settings_default();
    osc_status status =
        osc_manifold_collide_batch(items, count, null_settings ? NULL : &defaults, outputs, statuses, threads);
    for (size_t i = 0; i < count; ++i) {
        outs[i].count = outputs[i].count;
        outs[i].needed = outputs[i].needed;
        outs[i].status = statuses ? statuses[i] : OSC_OK;
    }
    finish(&g_other, status);
}

// ---- DCOL ----------------------------------------------------------------------------------------

static void dcol_single(osc_pose pose_a, osc_pose pose_b, int null_settings, int32_t capacity, int null_contacts,
                        answer* out) {
    (void)capacity;
    (void)null_contacts;
    memset(out, 0, sizeof *out);
    out->stride = out->contact_size = sizeof(osc_dcol_result);
    osc_dcol_settings defaults = osc_dcol_settings_default();
    osc_dcol_jacobians jacobians = {.distance = out->distance_jacobians[0]};
    osc_status status = osc_dcol_proximity(M.convex_box, pose_a, M.capsule, pose_b, null_settings ? NULL : &defaults,
                                           (osc_dcol_result*)out->contacts, &jacobians, NULL);
    out->count = out->needed = 1;
    finish(out, status);
}

static void dcol_batch(const osc_pose* poses_a, const osc_pose* poses_b, size_t count, int null_settings, answer* outs,
                       osc_status* statuses, int threads) {
    osc_dcol_batch_item items[BATCH];
    osc_dcol_result results[BATCH];
    osc_dcol_jacobians jacobians[BATCH];
    for (size_t i = 0; i < count; ++i) {
        items[i] = (osc_dcol_batch_item){M.convex_box, poses_a[i], M.capsule, poses_b[i], NULL};
        memset(&outs[i], 0, sizeof outs[i]);
        outs[i].stride = outs[i].contact_size = sizeof(osc_dcol_result);
        jacobians[i] = (osc_dcol_jacobians){.distance = outs[i].distance_jacobians[0]};
    }
    memset(results, 0, sizeof results);
    osc_dcol_settings defaults = osc_dcol_settings_default();
    osc_status status =
        osc_dcol_proximity_batch(items, count, null_settings ? NULL : &defaults, results, jacobians, statuses, threads);
    for (size_t i = 0; i < count; ++i) {
        memcpy(outs[i].contacts, &results[i], sizeof results[i]);
        outs[i].count = outs[i].needed = 1;
        outs[i].status = statuses ? statuses[i] : OSC_OK;
    }
    finish(&g_other, status);
}

// ---- SDF pairs -----------------------------------------------------------------------------------

static void sdf_pair_output(answer* out, int32_t capacity, int null_contacts, osc_sdf_pair_output* output) {
    memset(out, 0, sizeof *out);
    out->stride = out->contact_size = sizeof(osc_sdf_pair_contact);
    *output = (osc_sdf_pair_output){.contacts = null_contacts ? NULL : (osc_sdf_pair_contact*)out->contacts,
                                    .capacity = capacity};
}

static void sdf_pair_single(osc_pose pose_a, osc_pose pose_b, int null_settings, int32_t capacity, int null_contacts,
                            answer* out) {
    osc_sdf_pair_output output;
    sdf_pair_output(out, capacity, null_contacts, &output);
    osc_sdf_pair_settings defaults = osc_sdf_pair_settings_default();
    osc_status status =
        osc_sdf_pair_collide(&M.pair_ball, pose_a, &M.pair_box, pose_b, null_settings ? NULL : &defaults, &output);
    out->count = output.count;
    out->needed = output.needed;
    finish(out, status);
}

static void sdf_pair_batch(const osc_pose* poses_a, const osc_pose* poses_b, size_t count, int null_settings,
                           answer* outs, osc_status* statuses, int threads) {
    osc_sdf_pair_batch_item items[BATCH];
    osc_sdf_pair_output outputs[BATCH];
    for (size_t i = 0; i < count; ++i) {
        items[i] = (osc_sdf_pair_batch_item){&M.pair_ball, poses_a[i], &M.pair_box, poses_b[i]};
        sdf_pair_output(&outs[i], CAP, 0, &outputs[i]);
    }
    osc_sdf_pair_settings defaults = osc_sdf_pair_settings_default();
    osc_status status =
        osc_sdf_pair_collide_batch(items, count, null_settings ? NULL : &defaults, outputs, statuses, threads);
    for (size_t i = 0; i < count; ++i) {
        outs[i].count = outputs[i].count;
        outs[i].needed = outputs[i].needed;
        outs[i].status = statuses ? statuses[i] : OSC_OK;
    }
    finish(&g_other, status);
}

// ---- LMD -----------------------------------------------------------------------------------------

static void lmd_output(answer* out, int32_t capacity, int null_contacts, osc_lmd_output* output) {
    memset(out, 0, sizeof *out);
    out->stride = sizeof(osc_lmd_contact);
    out->contact_size = offsetof(osc_lmd_contact, flags) + sizeof(int32_t); // not the trailing padding
    *output = (osc_lmd_output){.contacts = null_contacts ? NULL : (osc_lmd_contact*)out->contacts,
                               .capacity = capacity,
                               .distance_jacobians = &out->distance_jacobians[0][0]};
}

static void lmd_single(osc_pose pose_a, osc_pose pose_b, int null_settings, int32_t capacity, int null_contacts,
                       answer* out) {
    osc_lmd_output output;
    lmd_output(out, capacity, null_contacts, &output);
    osc_lmd_settings defaults = osc_lmd_settings_default();
    osc_status status =
        osc_lmd_query(M.brep_box, pose_a, M.cylinder, pose_b, null_settings ? NULL : &defaults, NULL, &output, 1);
    out->count = output.count;
    out->needed = output.needed;
    finish(out, status);
}

static void lmd_batch(const osc_pose* poses_a, const osc_pose* poses_b, size_t count, int null_settings, answer* outs,
                      osc_status* statuses, int threads) {
    osc_lmd_batch_item items[BATCH];
    osc_lmd_output outputs[BATCH];
    for (size_t i = 0; i < count; ++i) {
        items[i] = (osc_lmd_batch_item){M.brep_box, poses_a[i], M.cylinder, poses_b[i], NULL};
        lmd_output(&outs[i], CAP, 0, &outputs[i]);
    }
    osc_lmd_settings defaults = osc_lmd_settings_default();
    osc_status status = osc_lmd_query_batch(items, count, null_settings ? NULL : &defaults, outputs, statuses, threads);
    for (size_t i = 0; i < count; ++i) {
        outs[i].count = outputs[i].count;
        outs[i].needed = outputs[i].needed;
        outs[i].status = statuses ? statuses[i] : OSC_OK;
    }
    finish(&g_other, status);
}

// ---- the four families with poses ------------------------------------------------------------------

static family g_families[4];

static void make_families(void) {
    g_families[0] = (family){"osc_manifold_collide",
                             "osc_manifold_collide_batch",
                             fixture_pose(0, 0, 0, 0),
                             manifold_pose_b(1),
                             1,
                             manifold_single,
                             manifold_batch};
    g_families[1] = (family){"osc_dcol_proximity",
                             "osc_dcol_proximity_batch",
                             fixture_pose(0, 0, 0, 0.2),
                             dcol_pose_b(3),
                             0,
                             dcol_single,
                             dcol_batch};
    g_families[2] = (family){"osc_sdf_pair_collide",
                             "osc_sdf_pair_collide_batch",
                             fixture_pose(0, 0, 0, 0),
                             fixture_pose(0.75, 0.1, 0.05, 0.3),
                             1,
                             sdf_pair_single,
                             sdf_pair_batch};
    g_families[3] = (family){"osc_lmd_query",
                             "osc_lmd_query_batch",
                             fixture_pose(0, 0, 0, 0),
                             osc_pose_make(osc_v3(0.01, 0.0, 0.81), osc_quat_identity()),
                             1,
                             lmd_single,
                             lmd_batch};
}

// 1 when the two answers hold the same status, counts, contacts and Jacobians, bit for bit
static int same_answer(const answer* x, const answer* y) {
    if (x->status != y->status || x->count != y->count || x->needed != y->needed) return 0;
    int32_t n = x->count < CAP ? x->count : CAP;
    for (int32_t i = 0; i < n; ++i)
        if (memcmp(contact(x, i), contact(y, i), x->contact_size) != 0 ||
            memcmp(x->distance_jacobians[i], y->distance_jacobians[i], sizeof x->distance_jacobians[i]) != 0)
            return 0;
    return 1;
}

// NULL settings are the defaults: the same answer bit for bit, single and batch
static void test_null_settings(void) {
    for (int f = 0; f < 4; ++f) {
        const family* F = &g_families[f];
        F->single(F->pose_a, F->pose_b, 1, CAP, 0, &g_single);
        F->single(F->pose_a, F->pose_b, 0, CAP, 0, &g_other);
        CHECK_MSG(g_single.status == OSC_OK && g_single.count >= 1, "%s: status %d, %d contacts (%s)", F->single_name,
                  g_single.status, g_single.count, g_single.message);
        CHECK_MSG(same_answer(&g_single, &g_other), "%s: NULL settings differ from the defaults", F->single_name);
        osc_pose pa[2] = {F->pose_a, F->pose_a}, pb[2] = {F->pose_b, F->pose_b};
        osc_status statuses[2];
        F->batch(pa, pb, 2, 1, g_batch, statuses, 1);
        CHECK_MSG(g_other.status == OSC_OK, "%s: %s", F->batch_name, g_other.message);
        CHECK_MSG(same_answer(&g_batch[0], &g_single) && same_answer(&g_batch[1], &g_single),
                  "%s with NULL settings differs from the single call", F->batch_name);
    }
}

// a bad pose: OSC_ERR_INVALID_ARGUMENT and the message of docs/api.md, word for word, in every
// family; a quaternion of any positive norm is the unit one (scaling by 2 is exact, so the answers
// match bit for bit)
static void test_pose_checks(void) {
    for (int f = 0; f < 4; ++f) {
        const family* F = &g_families[f];
        char expected[256];
        osc_pose bad = F->pose_b;
        bad.p = osc_v3(NAN, 0, 1);
        F->single(F->pose_a, bad, 1, CAP, 0, &g_single);
        snprintf(expected, sizeof expected, "%s: pose_b.p = (nan, 0, 1) is not finite", F->single_name);
        CHECK(g_single.status == OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strcmp(g_single.message, expected) == 0, "got \"%s\", expected \"%s\"", g_single.message, expected);
        bad = F->pose_a;
        bad.q = (osc_quat){0, 0, 0, 0};
        F->single(bad, F->pose_b, 1, CAP, 0, &g_single);
        snprintf(expected, sizeof expected, "%s: pose_a.q = (0, 0, 0, 0) cannot be normalised", F->single_name);
        CHECK(g_single.status == OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strcmp(g_single.message, expected) == 0, "got \"%s\", expected \"%s\"", g_single.message, expected);
        bad = F->pose_a;
        bad.q = (osc_quat){INFINITY, 0, 0, 0};
        F->single(bad, F->pose_b, 1, CAP, 0, &g_single);
        snprintf(expected, sizeof expected, "%s: pose_a.q = (inf, 0, 0, 0) cannot be normalised", F->single_name);
        CHECK_MSG(strcmp(g_single.message, expected) == 0, "got \"%s\", expected \"%s\"", g_single.message, expected);

        F->single(F->pose_a, F->pose_b, 1, CAP, 0, &g_single);
        osc_pose scaled = F->pose_b;
        scaled.q = (osc_quat){2 * scaled.q.w, 2 * scaled.q.x, 2 * scaled.q.y, 2 * scaled.q.z};
        F->single(F->pose_a, scaled, 1, CAP, 0, &g_other);
        CHECK_MSG(same_answer(&g_single, &g_other), "%s: a quaternion of norm 2 is not normalised on input",
                  F->single_name);
    }
    // the families whose arithmetic bounds the translation say so, naming the limit
    g_families[3].single(osc_pose_make(osc_v3(1e200, 0, 0), osc_quat_identity()), g_families[3].pose_b, 1, CAP, 0,
                         &g_single);
    CHECK(strcmp(g_single.message, "osc_lmd_query: pose_a.p = (1e+200, 0, 0) is beyond 1e+100 (OSC_LMD_MAX_LENGTH)") ==
          0);
    g_families[2].single(g_families[2].pose_a, osc_pose_make(osc_v3(0, -1e200, 0), osc_quat_identity()), 1, CAP, 0,
                         &g_single);
    CHECK_MSG(g_single.status == OSC_ERR_INVALID_ARGUMENT &&
                  strstr(g_single.message, "osc_sdf_pair_collide: pose_b.p = (0, -1e+200, 0) is beyond") ==
                      g_single.message &&
                  strstr(g_single.message, "(OSC_SDF_LENGTH_MAX)") != NULL,
              "%s", g_single.message);
}

// a full buffer: the first `capacity` contacts as the roomy call writes them, `needed` the count
// found, OSC_ERR_CAPACITY and its message; capacity 0 with no buffer asks for the count; a
// negative capacity or a missing buffer is refused
static void test_capacity(void) {
    for (int f = 0; f < 4; ++f) {
        const family* F = &g_families[f];
        if (!F->variable_count) continue;
        F->single(F->pose_a, F->pose_b, 1, CAP, 0, &g_single);
        int32_t n = g_single.count;
        CHECK_MSG(g_single.status == OSC_OK && n >= 2 && g_single.needed == n, "%s: %d contacts", F->single_name, n);
        if (n < 2) continue;
        F->single(F->pose_a, F->pose_b, 1, n - 1, 0, &g_other);
        char expected[256];
        CHECK(g_other.status == OSC_ERR_CAPACITY && g_other.count == n - 1);
        // SDF pairs: once the buffer is full, a point that would have merged with a dropped one
        // counts again (sdf_pair.h), so `needed` is an upper bound there
        CHECK_MSG(f == 2 ? g_other.needed >= n : g_other.needed == n, "%s: needed %d of %d", F->single_name,
                  g_other.needed, n);
        snprintf(expected, sizeof expected, "%s: %d contacts found, capacity is %d", F->single_name, g_other.needed,
                 n - 1);
        CHECK_MSG(strcmp(g_other.message, expected) == 0, "got \"%s\"", g_other.message);
        for (int32_t i = 0; i < n - 1; ++i) {
            CHECK_MSG(memcmp(contact(&g_single, i), contact(&g_other, i), g_single.contact_size) == 0,
                      "%s: contact %d of %d differs in a full buffer", F->single_name, i, n - 1);
            CHECK(memcmp(g_single.distance_jacobians[i], g_other.distance_jacobians[i],
                         sizeof g_single.distance_jacobians[i]) == 0);
        }
        F->single(F->pose_a, F->pose_b, 1, 0, 1, &g_other);
        CHECK(g_other.status == OSC_ERR_CAPACITY && g_other.count == 0 && g_other.needed >= n);
        F->single(F->pose_a, F->pose_b, 1, -1, 0, &g_other);
        snprintf(expected, sizeof expected, "%s: output->capacity is -1; it must be >= 0", F->single_name);
        CHECK(g_other.status == OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strcmp(g_other.message, expected) == 0, "got \"%s\"", g_other.message);
        F->single(F->pose_a, F->pose_b, 1, 4, 1, &g_other);
        snprintf(expected, sizeof expected, "%s: output->contacts is NULL with capacity 4", F->single_name);
        CHECK(g_other.status == OSC_ERR_INVALID_ARGUMENT);
        CHECK_MSG(strcmp(g_other.message, expected) == 0, "got \"%s\"", g_other.message);
    }
}

// a batch with two bad items: a status per slot, the lowest failing item's status and message
// ("batch: item i: <the single call's message>"), every other item equal to its single call bit for
// bit, on 1, 2 and a clamped 100,000 threads
static void test_batch_statuses(void) {
    for (int f = 0; f < 4; ++f) {
        const family* F = &g_families[f];
        osc_pose pa[BATCH], pb[BATCH];
        for (int i = 0; i < BATCH; ++i) {
            pa[i] = F->pose_a;
            pb[i] = F->pose_b;
            pb[i].p.x += 0.003 * i;
        }
        pb[1].p = osc_v3(NAN, 0, 1);
        pa[4].q = (osc_quat){0, 0, 0, 0};
        char expected[512];
        snprintf(expected, sizeof expected, "%s: item 1: %s: pose_b.p = (nan, 0, 1) is not finite", F->batch_name,
                 F->single_name);
        const int thread_counts[3] = {1, 2, 100000};
        for (int t = 0; t < 3; ++t) {
            osc_status statuses[BATCH];
            F->batch(pa, pb, BATCH, 1, g_batch, statuses, thread_counts[t]);
            CHECK(g_other.status == OSC_ERR_INVALID_ARGUMENT);
            CHECK_MSG(strcmp(g_other.message, expected) == 0, "%d threads: got \"%s\"", thread_counts[t],
                      g_other.message);
            for (int i = 0; i < BATCH; ++i) {
                F->single(pa[i], pb[i], 1, CAP, 0, &g_single);
                CHECK(statuses[i] == g_single.status);
                CHECK(statuses[i] == ((i == 1 || i == 4) ? OSC_ERR_INVALID_ARGUMENT : OSC_OK));
                if (statuses[i] == OSC_OK)
                    CHECK_MSG(same_answer(&g_batch[i], &g_single), "%s item %d, %d threads: not the single call's",
                              F->batch_name, i, thread_counts[t]);
            }
        }
        // the call's own arguments, checked before any item runs
        osc_status statuses[BATCH] = {99, 99, 99, 99, 99, 99};
        F->batch(pa, pb, 2, 1, g_batch, statuses, -1);
        CHECK(g_other.status == OSC_ERR_INVALID_ARGUMENT && strstr(g_other.message, "threads") != NULL);
        CHECK(statuses[0] == 99 && statuses[1] == 99);
        F->batch(pa, pb, 0, 1, g_batch, NULL, 1);
        CHECK(g_other.status == OSC_OK);
    }
    // NULL items with a positive count
    osc_manifold_output output = {0};
    CHECK_STATUS(osc_manifold_collide_batch(NULL, 3, NULL, &output, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(osc_last_error(), "osc_manifold_collide_batch: items is NULL with count 3") == 0);
    osc_dcol_result result;
    CHECK_STATUS(osc_dcol_proximity_batch(NULL, 3, NULL, &result, NULL, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(osc_last_error(), "osc_dcol_proximity_batch: items is NULL with count 3") == 0);
    osc_sdf_pair_output pair_output = {0};
    CHECK_STATUS(osc_sdf_pair_collide_batch(NULL, 3, NULL, &pair_output, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(osc_last_error(), "osc_sdf_pair_collide_batch: items is NULL with count 3") == 0);
    osc_lmd_output lmd_output_ = {0};
    CHECK_STATUS(osc_lmd_query_batch(NULL, 3, NULL, &lmd_output_, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(osc_last_error(), "osc_lmd_query_batch: items is NULL with count 3") == 0);
}

// ---- rays ----------------------------------------------------------------------------------------

// rays: NULL settings and a NULL transform are the defaults and the identity; a batch with a bad
// ray reports it per slot and computes the others as single calls do
static void test_rays(void) {
    enum { RAYS = 40 };
    osc_ray rays[RAYS];
    osc_ray_hit hits[RAYS], single, defaults_hit;
    osc_status statuses[RAYS];
    for (int i = 0; i < RAYS; ++i) rays[i] = (osc_ray){osc_v3(-2.0, -0.5 + 0.025 * i, 0.1), osc_v3(1, 0, 0)};
    osc_ray_settings defaults = osc_ray_settings_default();
    osc_implicit_transform identity = osc_implicit_transform_identity();
    for (int s = 0; s < 2; ++s) {
        const osc_implicit* surface = s ? M.sphere_surface : M.lens;
        CHECK_STATUS(osc_ray_intersect(surface, NULL, rays[7], NULL, &single, NULL), OSC_OK);
        CHECK_STATUS(osc_ray_intersect(surface, &identity, rays[7], &defaults, &defaults_hit, NULL), OSC_OK);
        CHECK(single.hit == 1 && memcmp(&single, &defaults_hit, sizeof single) == 0);
        osc_ray bad[RAYS];
        memcpy(bad, rays, sizeof bad);
        bad[3].origin.y = NAN;
        bad[21].direction = osc_v3(0, 0, 0);
        for (int threads = 1; threads <= 2; ++threads) {
            osc_status status = osc_ray_intersect_batch(surface, NULL, bad, RAYS, NULL, hits, statuses, threads);
            CHECK(status == OSC_ERR_INVALID_ARGUMENT);
            CHECK_MSG(strstr(osc_last_error(), "osc_ray_intersect_batch: rays[3]") == osc_last_error(), "got \"%s\"",
                      osc_last_error());
            for (int i = 0; i < RAYS; ++i) {
                osc_status expected = osc_ray_intersect(surface, NULL, bad[i], NULL, &single, NULL);
                CHECK(statuses[i] == expected);
                CHECK(statuses[i] == ((i == 3 || i == 21) ? OSC_ERR_INVALID_ARGUMENT : OSC_OK));
                if (expected == OSC_OK) CHECK(memcmp(&single, &hits[i], sizeof single) == 0);
            }
        }
        CHECK_STATUS(osc_ray_intersect_batch(surface, NULL, rays, RAYS, NULL, hits, NULL, -1),
                     OSC_ERR_INVALID_ARGUMENT);
        CHECK(strstr(osc_last_error(), "threads") != NULL);
    }
}

int main(void) {
    query_models_create(&M);
    make_families();
    RUN(test_null_settings);
    RUN(test_pose_checks);
    RUN(test_capacity);
    RUN(test_batch_statuses);
    RUN(test_rays);
    query_models_destroy(&M);
    return test_finish();
}
