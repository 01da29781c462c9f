// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// lmd.c: local minimal distances between two B-Rep solids (thesis chapter 4): the simultaneous BVH
// traversal with the culling tests of §2.4.3 (Algorithms 8-9), the BVTT front kept between calls
// with partial pruning (§4.5.1, Algorithms 15-17), warm-started footpoints (§4.5.3), the footpoint
// stage over threads (§4.6.3), de-duplication and the sorted output.

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "array_internal.h"
#include "lmd_internal.h"
#include "query_internal.h"
#include "osculate/math.h"


osc_lmd_settings osc_lmd_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_lmd_settings){
        .d_max = 1.0, .eps_a = 0.0, .eps_b = 0.0, .alpha = 0.05, .conformal_samples = 8, .culling = 1};
}

// ---- the cache ---------------------------------------------------------------------------------

enum { NODE_CULLED = 1, NODE_LEAF = 2 };

typedef struct bvtt_node {
    int a, b;
    int status;
} bvtt_node;

typedef struct warm_entry {
    uint64_t key;
    double x[4];
} warm_entry;

// A supermaximal search (group_key) seen in this query: its key (0: an empty slot) and whether its
// leaf pairs are searched once (1) or each on its own (0).
typedef struct group_entry {
    uint64_t key;
    int grouped;
} group_entry;

typedef struct tagged_contact {
    osc_lmd_contact c;
    size_t job; // the leaf pair's rank in the traversal (the sort's last key)
} tagged_contact;

// Every count and capacity is a size_t: leaf pairs are the product of two leaf counts, and a block
// of the footpoint stage holds up to BLOCK_SLOTS contact slots.
struct osc_lmd_cache {
    const osc_brep* a;
    const osc_brep* b;
    bvtt_node* front;
    size_t front_count, front_cap;
    bvtt_node* next;
    size_t next_count, next_cap;
    bvtt_node* stack;
    size_t stack_cap;
    lmd_job* jobs; // one block of leaf pairs
    size_t job_cap;
    lmd_job_result* results;
    size_t result_cap;
    osc_lmd_contact* slots;
    size_t slot_cap;
    tagged_contact* found;
    size_t found_count, found_cap;
    warm_entry* warm;
    size_t warm_count, warm_cap;
    warm_entry* warm_next;
    size_t warm_next_count, warm_next_cap;
    group_entry* groups; // open addressing over group_slots (a power of two), at most half full
    size_t group_slots, group_count;
    bvtt_node* deferred; // leaf pairs (leaf indices in a, b) left to their group's first pair
    size_t deferred_count, deferred_cap;
    osc_lmd_stats stats;
};

osc_status osc_lmd_cache_create(osc_lmd_cache** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_cache_create: out is NULL");
    *out = osc_calloc(1, sizeof(osc_lmd_cache));
    return *out ? OSC_OK : osc_fail_in("osc_lmd_cache_create", OSC_ERR_NO_MEMORY);
}

void osc_lmd_cache_reset(osc_lmd_cache* cache) {
    if (!cache) return;
    cache->a = cache->b = NULL;
    cache->front_count = 0;
    cache->warm_count = 0;
}

void osc_lmd_cache_destroy(osc_lmd_cache* cache) {
    if (!cache) return;
    osc_free(cache->front);
    osc_free(cache->next);
    osc_free(cache->stack);
    osc_free(cache->jobs);
    osc_free(cache->results);
    osc_free(cache->slots);
    osc_free(cache->found);
    osc_free(cache->warm);
    osc_free(cache->warm_next);
    osc_free(cache->groups);
    osc_free(cache->deferred);
    osc_free(cache);
}

osc_status osc_lmd_cache_stats(const osc_lmd_cache* cache, osc_lmd_stats* stats) {
    if (!cache || !stats)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_cache_stats: %s is NULL", cache ? "stats" : "cache");
    *stats = cache->stats;
    return OSC_OK;
}

// Grows the cache's array `array` (capacity `cap`) to hold `need` elements, at least doubling it
// (array_internal.h); false with OSC_ERR_NO_MEMORY's message when the memory cannot be had.
#define GROW(array, cap, need) (OSC_ARRAY_RESERVE(array, cap, need) == OSC_OK)

// A count for osc_lmd_stats and the int outputs, saturated at INT_MAX.
static int saturated(size_t count) { return count < (size_t)INT_MAX ? (int)count : INT_MAX; }

// ---- culling tests (§2.4.3) --------------------------------------------------------------------

typedef struct traversal {
    const lmd_body* a;
    const lmd_body* b;
    osc_mat3 rot; // B's frame to A's frame
    osc_vec3 trans;
    double d_max, alpha;
    double cos_antipodal; // cos(2 alpha): generators this close to antipodal defeat every plane
    double cos_2alpha, sin_2alpha;
    int culling;
    size_t tests;
} traversal;

// OBBs intersect once A's is enlarged by d_max (separating axes, A's body frame); d is B's centre
// less A's, in A's frame.
static bool obb_overlap(const traversal* t, const osc_brep_node* na, const osc_brep_node* nb, osc_vec3 d) {
    osc_vec3 bx[3];
    for (int j = 0; j < 3; j++) bx[j] = osc_mat3_apply(t->rot, nb->axis[j]);
    double ha[3] = {na->half.x + t->d_max, na->half.y + t->d_max, na->half.z + t->d_max};
    double hb[3] = {nb->half.x, nb->half.y, nb->half.z};
    double R[3][3], AR[3][3], tv[3];
    for (int i = 0; i < 3; i++) {
        tv[i] = osc_dot(d, na->axis[i]);
        for (int j = 0; j < 3; j++) {
            R[i][j] = osc_dot(na->axis[i], bx[j]);
            AR[i][j] = fabs(R[i][j]) + 1e-12;
        }
    }
    for (int i = 0; i < 3; i++)
        if (fabs(tv[i]) > ha[i] + hb[0] * AR[i][0] + hb[1] * AR[i][1] + hb[2] * AR[i][2]) return false;
    for (int j = 0; j < 3; j++)
        if (fabs(tv[0] * R[0][j] + tv[1] * R[1][j] + tv[2] * R[2][j]) >
            hb[j] + ha[0] * AR[0][j] + ha[1] * AR[1][j] + ha[2] * AR[2][j])
            return false;
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = ha[i1] * AR[i2][j] + ha[i2] * AR[i1][j];
            double rb = hb[j1] * AR[i][j2] + hb[j2] * AR[i][j1];
            if (fabs(tv[i2] * R[i1][j] - tv[i1] * R[i2][j]) > ra + rb) return false;
        }
    }
    return true;
}

// Polyhedral normal cones (Algorithm 4 with the quasi-LMD margin): true when a plane through the
// origin proves that no direction within alpha of A's cone is antipodal to one within alpha of B's.
static bool cones_separated(const traversal* t, const osc_brep_leaf* la, const osc_brep_leaf* lb) {
    if (la->gen_count == 0 || lb->gen_count == 0) return false;
    osc_vec3 g[16];
    int na = la->gen_count, n = 0;
    for (int i = 0; i < na; i++) g[n++] = la->gen[i];
    for (int i = 0; i < lb->gen_count; i++) g[n++] = osc_mat3_apply(t->rot, lb->gen[i]);
    // Quick answer: a generator a of A within 2 alpha of -b for a generator b of B. Any plane with
    // both cones above it lifts a by some angle and b by another whose sum is at most the angle
    // between a and -b, so no candidate below could pass the margin (the usual case for facing,
    // nearly conformal leaves: 9 in 10 calls on the insertion benchmarks).
    for (int i = 0; i < na; i++)
        for (int j = na; j < n; j++)
            if (-osc_dot(g[i], g[j]) >= t->cos_antipodal) return false;
    // candidate planes: normals of pairs of generators (Algorithm 4), the generators, their sum
    osc_vec3 sum = osc_v3(0, 0, 0);
    for (int i = 0; i < n; i++) sum = osc_add(sum, g[i]);
    int pairs = n * (n - 1) / 2;
    for (int c = -1; c < 2 * pairs + n; c++) {
        osc_vec3 m;
        if (c == -1)
            m = sum;
        else if (c < n)
            m = g[c];
        else {
            int k = (c - n) / 2, i = 0;
            while (k >= n - 1 - i) {
                k -= n - 1 - i;
                i++;
            }
            int j = i + 1 + k;
            m = osc_cross(g[i], g[j]);
            if ((c - n) & 1) m = osc_neg(m);
        }
        double len = osc_length(m);
        if (!(len > 1e-12)) continue;
        m = osc_scale(m, 1.0 / len);
        double min_a = 1.0, min_b = 1.0;
        for (int i = 0; i < na; i++) min_a = fmin(min_a, osc_dot(g[i], m));
        for (int i = na; i < n; i++) min_b = fmin(min_b, osc_dot(g[i], m));
        // all generators strictly on one side (Algorithm 4): every direction of A's cone is then at
        // least asin(min_a) above the plane, B's asin(min_b) (a normalised positive combination
        // of vectors above the plane is no lower than the lowest); dilated by alpha each,
        // antipodal directions would need asin(min_a) + asin(min_b) <= 2 alpha
        if (!(min_a > 0.0 && min_b > 0.0)) continue;
        if (asin(min_a) + asin(min_b) > 2.0 * t->alpha + 1e-12) return true;
    }
    return false;
}

// The culling test of §2.4.3: true when no local minimal distance can lie under the two nodes.
static bool culled(traversal* t, int ia, int ib) {
    if (!t->culling) return false;
    t->tests++;
    const osc_brep_node* na = &t->a->brep->nodes[ia];
    const osc_brep_node* nb = &t->b->brep->nodes[ib];
    if ((na->type_mask & nb->compat_mask) == 0) return true; // Table 2.2 (AND, see the paper notes)
    if (na->cone_angle + nb->cone_angle + 2.0 * t->alpha < k_pi) {
        // the angle between A's axis and -B's axis exceeds the sum of the half angles, dilated:
        // acos(c) > sum  <=>  c < cos(sum), expanded from the nodes' cosines and sines
        osc_vec3 axis_b = osc_mat3_apply(t->rot, nb->cone_axis);
        double c = -osc_dot(na->cone_axis, axis_b);
        double cab = na->cone_cos * nb->cone_cos - na->cone_sin * nb->cone_sin;
        double sab = na->cone_sin * nb->cone_cos + na->cone_cos * nb->cone_sin;
        if (c < cab * t->cos_2alpha - sab * t->sin_2alpha) return true;
    }
    // bounding spheres of the OBBs first: most pairs of the front are far apart
    osc_vec3 d = osc_sub(osc_add(osc_mat3_apply(t->rot, nb->center), t->trans), na->center);
    double reach = na->radius + nb->radius + t->d_max;
    if (osc_dot(d, d) > reach * reach) return true;
    if (!obb_overlap(t, na, nb, d)) return true;
    if (na->leaf >= 0 && nb->leaf >= 0 &&
        cones_separated(t, &t->a->brep->leaves[na->leaf], &t->b->brep->leaves[nb->leaf]))
        return true;
    return false;
}

static double obb_volume(const osc_brep_node* n) { return n->half.x * n->half.y * n->half.z; }

// ---- traversal (Algorithms 8, 9, 17) -----------------------------------------------------------

static bool push_node(bvtt_node** array, size_t* count, size_t* cap, int a, int b, int status) {
    if (!GROW(*array, *cap, *count + 1)) return false;
    (*array)[(*count)++] = (bvtt_node){a, b, status};
    return true;
}

// Traverses the BVTT below `start`, appending the nodes where it stops to the cache's next front.
static bool traverse(traversal* t, osc_lmd_cache* cache, bvtt_node start) {
    const osc_brep_node* nodes_a = t->a->brep->nodes;
    const osc_brep_node* nodes_b = t->b->brep->nodes;
    size_t top = 0;
    if (!GROW(cache->stack, cache->stack_cap, 1)) return false;
    cache->stack[top++] = start;
    while (top > 0) {
        bvtt_node n = cache->stack[--top];
        if (culled(t, n.a, n.b)) {
            if (!push_node(&cache->next, &cache->next_count, &cache->next_cap, n.a, n.b, NODE_CULLED)) return false;
            continue;
        }
        const osc_brep_node* na = &nodes_a[n.a];
        const osc_brep_node* nb = &nodes_b[n.b];
        bool leaf_a = na->leaf >= 0, leaf_b = nb->leaf >= 0;
        if (leaf_a && leaf_b) {
            if (!push_node(&cache->next, &cache->next_count, &cache->next_cap, n.a, n.b, NODE_LEAF)) return false;
            continue;
        }
        if (!GROW(cache->stack, cache->stack_cap, top + 2)) return false;
        if (leaf_b || (!leaf_a && obb_volume(na) > obb_volume(nb))) {
            cache->stack[top++] = (bvtt_node){na->right, n.b, 0};
            cache->stack[top++] = (bvtt_node){na->left, n.b, 0};
        } else {
            cache->stack[top++] = (bvtt_node){n.a, nb->right, 0};
            cache->stack[top++] = (bvtt_node){n.a, nb->left, 0};
        }
    }
    return true;
}

// Partial front pruning (§4.5.1): two adjacent culled siblings whose parent is culled too are
// replaced by the parent.
static void prune(traversal* t, osc_lmd_cache* cache) {
    const osc_brep_node* nodes_a = t->a->brep->nodes;
    const osc_brep_node* nodes_b = t->b->brep->nodes;
    size_t w = 0;
    for (size_t i = 0; i < cache->next_count; i++) {
        bvtt_node n = cache->next[i];
        if (i + 1 < cache->next_count && n.status == NODE_CULLED && cache->next[i + 1].status == NODE_CULLED) {
            bvtt_node m = cache->next[i + 1];
            int pa = -1, pb = -1;
            if (n.a == m.a && n.b != m.b && nodes_b[n.b].parent >= 0 && nodes_b[n.b].parent == nodes_b[m.b].parent) {
                pa = n.a;
                pb = nodes_b[n.b].parent;
            } else if (n.b == m.b && n.a != m.a && nodes_a[n.a].parent >= 0 &&
                       nodes_a[n.a].parent == nodes_a[m.a].parent) {
                pa = nodes_a[n.a].parent;
                pb = n.b;
            }
            if (pa >= 0 && culled(t, pa, pb)) {
                cache->next[w++] = (bvtt_node){pa, pb, NODE_CULLED};
                i++;
                continue;
            }
        }
        cache->next[w++] = n;
    }
    cache->next_count = w;
}

// ---- warm starts -------------------------------------------------------------------------------

static uint64_t pair_key(int la, int lb) { return ((uint64_t)(uint32_t)la << 32) | (uint32_t)lb; }

static const warm_entry* find_warm(const osc_lmd_cache* cache, uint64_t key) {
    size_t lo = 0, hi = cache->warm_count; // the entry, if any, lies in [lo, hi)
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cache->warm[mid].key == key) return &cache->warm[mid];
        if (cache->warm[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int compare_warm(const void* pa, const void* pb) {
    const warm_entry* a = pa;
    const warm_entry* b = pb;
    return a->key < b->key ? -1 : (a->key > b->key ? 1 : 0);
}

// ---- output ------------------------------------------------------------------------------------

static int compare_contacts(const void* pa, const void* pb) {
    const tagged_contact* x = pa;
    const tagged_contact* y = pb;
    const osc_lmd_contact* a = &x->c;
    const osc_lmd_contact* b = &y->c;
    if (a->kind_a != b->kind_a) return a->kind_a < b->kind_a ? -1 : 1;
    if (a->feature_a != b->feature_a) return a->feature_a < b->feature_a ? -1 : 1;
    if (a->kind_b != b->kind_b) return a->kind_b < b->kind_b ? -1 : 1;
    if (a->feature_b != b->feature_b) return a->feature_b < b->feature_b ? -1 : 1;
    if (a->flags != b->flags) return a->flags < b->flags ? -1 : 1;
    double ka[3] = {a->point_a.x, a->point_a.y, a->point_a.z};
    double kb[3] = {b->point_a.x, b->point_a.y, b->point_a.z};
    for (int i = 0; i < 3; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return x->job < y->job ? -1 : (x->job > y->job ? 1 : 0);
}

static bool same_contact(const osc_lmd_contact* a, const osc_lmd_contact* b, double tol) {
    return a->kind_a == b->kind_a && a->feature_a == b->feature_a && a->kind_b == b->kind_b &&
           a->feature_b == b->feature_b && a->flags == b->flags && osc_length(osc_sub(a->point_a, b->point_a)) <= tol &&
           osc_length(osc_sub(a->point_b, b->point_b)) <= tol;
}

// Sorts the contacts found and merges duplicates in place (one local minimum found from several
// leaf pairs, or on the flat valley of a near-conformal pair); returns how many are left.
static size_t merge_duplicates(osc_lmd_cache* cache, double tol) {
    osc_sort(cache->found, cache->found_count, sizeof(tagged_contact), compare_contacts);
    size_t unique = 0;
    for (size_t i = 0; i < cache->found_count; i++) {
        const osc_lmd_contact* c = &cache->found[i].c;
        bool dup = false;
        for (size_t j = unique; j-- > 0;) {
            const osc_lmd_contact* u = &cache->found[j].c;
            if (u->kind_a != c->kind_a || u->feature_a != c->feature_a || u->kind_b != c->kind_b ||
                u->feature_b != c->feature_b)
                break;
            if (same_contact(u, c, tol)) {
                dup = true;
                break;
            }
        }
        if (!dup) cache->found[unique++] = cache->found[i];
    }
    return unique;
}

// ---- the footpoint stage (§4.6.3), in blocks of leaf pairs ---------------------------------------

// The contact slots of one block: leaf pairs that may each write `conformal_samples` contacts are
// solved a block at a time, so that the slots never outgrow this (8.5 MB) whatever the number of
// leaf pairs.
enum { BLOCK_SLOTS = 1 << 15 };

typedef struct footpoint_stage {
    const lmd_body* a;
    const lmd_body* b;
    const osc_lmd_settings* settings;
    int threads;          // the query's threads argument (checked)
    size_t slots_per_job; // max(conformal_samples, 1) <= 1024
    size_t cursor;        // the next node of the front (phase 0) or deferred pair (phase 1) to look at
    size_t jobs_done;     // leaf pairs solved in earlier blocks
    size_t warm_starts;
    size_t iterations;
    size_t leaf_pairs; // of the traversal (jobs_done: those searched; the others were searched
                       // with their supermaximal group)
    int phase;         // 0: the front's leaf pairs; 1: the deferred ones of ungrouped searches
    bool no_memory;
} footpoint_stage;

// The key of the search of an edge or vertex leaf against a face's supermaximal group (side 2: the
// face is B's), or 0 when the leaf pair is no such pair.
static uint64_t group_key(const lmd_body* a, const lmd_body* b, int leaf_a, int leaf_b) {
    const osc_brep_leaf* la = &a->brep->leaves[leaf_a];
    const osc_brep_leaf* lb = &b->brep->leaves[leaf_b];
    bool face_a = la->kind == OSC_FEATURE_FACE, face_b = lb->kind == OSC_FEATURE_FACE;
    if (face_a == face_b) return 0;
    const osc_brep* surface = face_b ? b->brep : a->brep;
    int face = face_b ? lb->feature : la->feature;
    if (!surface->supermaximal || surface->face_data[face].geo.kind == OSC_GEO_NURBS_SURFACE) return 0;
    uint64_t curve = (uint32_t)(face_b ? leaf_a : leaf_b);
    uint64_t group = (uint32_t)surface->face_group[face];
    return ((uint64_t)(face_b ? 2 : 1) << 62 | curve << 31 | group) + 1;
}

// The entry of `key` in a group table of `slots` entries (an empty one, key 0, when absent).
static group_entry* find_group(group_entry* table, size_t slots, uint64_t key) {
    size_t mask = slots - 1, i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & mask;
    while (table[i].key != 0 && table[i].key != key) i = (i + 1) & mask;
    return &table[i];
}

// Room for one more entry in the cache's group table: doubled (and rehashed) when it would be more
// than half full. False when the memory cannot be had (the caller then solves the pair on its own).
static bool group_room(osc_lmd_cache* cache) {
    if (2 * (cache->group_count + 1) <= cache->group_slots) return true;
    size_t slots = cache->group_slots ? 2 * cache->group_slots : 64;
    group_entry* table = osc_calloc(slots, sizeof(group_entry));
    if (!table) return false;
    for (size_t i = 0; i < cache->group_slots; i++)
        if (cache->groups[i].key) *find_group(table, slots, cache->groups[i].key) = cache->groups[i];
    osc_free(cache->groups);
    cache->groups = table;
    cache->group_slots = slots;
    return true;
}

// The group table's entry of an edge or vertex leaf against a supermaximal face (NULL: none).
static group_entry* pair_group(const footpoint_stage* f, osc_lmd_cache* cache, int leaf_a, int leaf_b) {
    uint64_t key = group_key(f->a, f->b, leaf_a, leaf_b);
    if (!key || cache->group_slots == 0) return NULL;
    group_entry* g = find_group(cache->groups, cache->group_slots, key);
    return g->key == key ? g : NULL;
}

// Fills the cache's job block with the next leaf pairs (at most `capacity`), with their warm
// starts; returns how many. Phase 0 takes the front's: the first leaf pair of an edge or vertex
// leaf against a supermaximal face searches the whole face, the later ones are deferred (Crozet
// 2017 §4.2.3). Phase 1 takes the deferred pairs whose group search turned out not to be one.
static size_t next_block(footpoint_stage* f, osc_lmd_cache* cache, size_t capacity) {
    size_t count = 0;
    size_t end = f->phase == 0 ? cache->next_count : cache->deferred_count;
    for (; f->cursor < end && count < capacity; f->cursor++) {
        int leaf_a, leaf_b, whole = 0;
        if (f->phase == 0) {
            const bvtt_node* node = &cache->next[f->cursor];
            if (node->status != NODE_LEAF) continue;
            leaf_a = f->a->brep->nodes[node->a].leaf;
            leaf_b = f->b->brep->nodes[node->b].leaf;
            uint64_t key = group_key(f->a, f->b, leaf_a, leaf_b);
            if (key && group_room(cache)) {
                group_entry* g = find_group(cache->groups, cache->group_slots, key);
                if (g->key == 0) { // the first: the whole face, on the side of the face
                    cache->group_count++;
                    g->key = key;
                    g->grouped = 1;
                    whole = (int)(key >> 62);
                } else if (g->grouped) {
                    if (!GROW(cache->deferred, cache->deferred_cap, cache->deferred_count + 1)) {
                        f->no_memory = true;
                        return 0;
                    }
                    cache->deferred[cache->deferred_count++] = (bvtt_node){leaf_a, leaf_b, 0};
                    continue;
                }
            }
        } else {
            leaf_a = cache->deferred[f->cursor].a;
            leaf_b = cache->deferred[f->cursor].b;
            const group_entry* g = pair_group(f, cache, leaf_a, leaf_b);
            if (g && g->grouped) continue; // found by the group's search
        }
        lmd_job* job = &cache->jobs[count++];
        memset(job, 0, sizeof *job);
        job->leaf_a = leaf_a;
        job->leaf_b = leaf_b;
        job->whole = whole;
        const warm_entry* w = find_warm(cache, pair_key(job->leaf_a, job->leaf_b));
        if (w) {
            job->has_warm = 1;
            memcpy(job->warm, w->x, sizeof job->warm);
            f->warm_starts++;
        }
    }
    return count;
}

// Appends the block's contacts to the cache's found list and its converged footpoints to the next
// warm starts.
static bool collect_block(footpoint_stage* f, osc_lmd_cache* cache, size_t count) {
    size_t contacts = 0, converged = 0;
    for (size_t i = 0; i < count; i++) {
        contacts += (size_t)cache->results[i].count;
        converged += (size_t)cache->results[i].converged;
    }
    if (!GROW(cache->found, cache->found_cap, cache->found_count + contacts) ||
        !GROW(cache->warm_next, cache->warm_next_cap, cache->warm_next_count + converged))
        return false;
    for (size_t i = 0; i < count; i++) {
        const lmd_job_result* r = &cache->results[i];
        f->iterations += (size_t)r->iterations;
        if (r->ungrouped) { // its deferred pairs are searched in phase 1, the later ones at once
            group_entry* g = pair_group(f, cache, cache->jobs[i].leaf_a, cache->jobs[i].leaf_b);
            if (g) g->grouped = 0;
        }
        for (int k = 0; k < r->count; k++) {
            tagged_contact* t = &cache->found[cache->found_count++];
            t->c = cache->slots[i * f->slots_per_job + (size_t)k];
            t->job = f->jobs_done + i;
        }
        if (r->converged) {
            warm_entry* w = &cache->warm_next[cache->warm_next_count++];
            w->key = pair_key(cache->jobs[i].leaf_a, cache->jobs[i].leaf_b);
            memcpy(w->x, r->x, sizeof r->x);
        }
    }
    f->jobs_done += count;
    return true;
}

// One block of leaf pairs for osc_batch_run: leaf pair i writes its own slots and result.
typedef struct footpoint_block {
    const footpoint_stage* stage;
    const lmd_job* jobs;
    lmd_job_result* results;
    osc_lmd_contact* slots;
} footpoint_block;

static osc_status solve_block_item(void* context, size_t index) {
    const footpoint_block* block = context;
    const footpoint_stage* f = block->stage;
    osc_lmd_solve_pair(f->a, f->b, f->settings, &block->jobs[index], &block->slots[index * f->slots_per_job],
                       (int)f->slots_per_job, &block->results[index]);
    return OSC_OK;
}

// A thread of the footpoint stage takes at least this many leaf pairs (a few microseconds each):
// fewer do not pay for starting a team, and run on the calling thread.
enum { LEAF_PAIRS_PER_THREAD = 16 };

// Solves every leaf pair of the cache's next front, a block at a time, into the found list and
// the next warm starts, on osc_batch_run's team for `threads`.
static osc_status solve_leaf_pairs(footpoint_stage* f, osc_lmd_cache* cache) {
    size_t leaf_pairs = 0;
    for (size_t i = 0; i < cache->next_count; i++) leaf_pairs += cache->next[i].status == NODE_LEAF;
    f->leaf_pairs = leaf_pairs;
    size_t block = BLOCK_SLOTS / f->slots_per_job;
    if (block > leaf_pairs) block = leaf_pairs;
    if (!GROW(cache->jobs, cache->job_cap, block) || !GROW(cache->results, cache->result_cap, block) ||
        !GROW(cache->slots, cache->slot_cap, block * f->slots_per_job))
        return OSC_ERR_NO_MEMORY;
    if (cache->group_slots) memset(cache->groups, 0, cache->group_slots * sizeof(group_entry));
    cache->group_count = 0;
    cache->deferred_count = 0;
    cache->found_count = 0;
    cache->warm_next_count = 0;
    footpoint_block work = {f, cache->jobs, cache->results, cache->slots};
    for (f->phase = 0; f->phase < 2; f->phase++, f->cursor = 0) {
        for (size_t count; (count = next_block(f, cache, block)) > 0;) {
            osc_status status = osc_batch_run("osc_lmd_query", "leaf pair", count, f->threads, LEAF_PAIRS_PER_THREAD,
                                              solve_block_item, &work, NULL);
            if (status != OSC_OK) return status;
            if (!collect_block(f, cache, count)) return OSC_ERR_NO_MEMORY;
        }
        if (f->no_memory) return OSC_ERR_NO_MEMORY;
    }
    return OSC_OK;
}

// ---- the query ---------------------------------------------------------------------------------

// A length setting in [lo, OSC_LMD_MAX_LENGTH] (or (0, OSC_LMD_MAX_LENGTH] when `positive`).
static osc_status check_length(const char* name, double value, bool positive) {
    if ((positive ? value > 0.0 : value >= 0.0) && value <= OSC_LMD_MAX_LENGTH) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_query: settings.%s %g is outside %s0, %g]", name, value,
                    positive ? "(" : "[", OSC_LMD_MAX_LENGTH);
}

static osc_status check_count(const char* name, int value, int lo, int hi) {
    if (value >= lo && value <= hi) return OSC_OK;
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_query: settings.%s %d is outside [%d, %d]", name, value, lo, hi);
}

// Each setting in its range; the message names the first that is not.
static osc_status check_settings(const osc_lmd_settings* s) {
    osc_status status = check_length("d_max", s->d_max, true);
    if (status == OSC_OK) status = check_length("eps_a", s->eps_a, false);
    if (status == OSC_OK) status = check_length("eps_b", s->eps_b, false);
    if (status == OSC_OK && !(s->alpha >= 0.0 && s->alpha <= 0.25 * k_pi))
        status = osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_query: settings.alpha %g is outside [0, pi/4]", s->alpha);
    if (status == OSC_OK) status = check_count("conformal_samples", s->conformal_samples, 0, 1024);
    if (status == OSC_OK) status = check_count("culling", s->culling, 0, 1);
    return status;
}

// The traversal's constants for the relative pose of the two bodies.
static traversal make_traversal(const lmd_body* a, const lmd_body* b, const osc_lmd_settings* s) {
    traversal t;
    memset(&t, 0, sizeof t);
    t.a = a;
    t.b = b;
    t.rot = osc_mat3_mul(osc_mat3_transpose(a->rotation), b->rotation);
    t.trans = osc_mat3_apply_transpose(a->rotation, osc_sub(b->pose.p, a->pose.p));
    t.d_max = s->d_max;
    t.alpha = s->alpha;
    t.cos_antipodal = cos(2.0 * s->alpha + 1e-12);
    t.cos_2alpha = cos(2.0 * s->alpha);
    t.sin_2alpha = sin(2.0 * s->alpha);
    t.culling = s->culling;
    return t;
}

// Swaps the next front in as the front of the next call, and the next warm starts likewise; the
// buffers swapped out grow to the size of those swapped in, so that a warm query on the same pair
// that needs no more than this one allocates nothing.
static bool keep_for_next_call(osc_lmd_cache* cache) {
    bvtt_node* nodes = cache->front;
    size_t cap = cache->front_cap;
    cache->front = cache->next;
    cache->front_cap = cache->next_cap;
    cache->front_count = cache->next_count;
    cache->next = nodes;
    cache->next_cap = cap;
    cache->next_count = 0;
    osc_sort(cache->warm_next, cache->warm_next_count, sizeof(warm_entry), compare_warm);
    warm_entry* entries = cache->warm;
    cap = cache->warm_cap;
    cache->warm = cache->warm_next;
    cache->warm_cap = cache->warm_next_cap;
    cache->warm_count = cache->warm_next_count;
    cache->warm_next = entries;
    cache->warm_next_cap = cap;
    cache->warm_next_count = 0;
    return GROW(cache->next, cache->next_cap, cache->front_cap) &&
           GROW(cache->warm_next, cache->warm_next_cap, cache->warm_cap);
}

// The distance's Jacobian of contact c (eq. 1.14, grad g = -J^T n along left world twists):
// dd = n . (dp_b + dth_b x r_b - dp_a - dth_a x r_a), r the footpoint from its body's position.
static void distance_jacobian(const osc_lmd_contact* c, const lmd_body* a, const lmd_body* b, double jacobian[12]) {
    osc_vec3 n = c->normal;
    osc_vec3 ra = osc_sub(c->point_a, a->pose.p), rb = osc_sub(c->point_b, b->pose.p);
    osc_vec3 ma = osc_cross(ra, n), mb = osc_cross(rb, n);
    double row[12] = {-n.x, -n.y, -n.z, -ma.x, -ma.y, -ma.z, n.x, n.y, n.z, mb.x, mb.y, mb.z};
    memcpy(jacobian, row, sizeof row);
}

static osc_status run_query(const lmd_body* a, const lmd_body* b, const osc_lmd_settings* s, int threads,
                            osc_lmd_cache* cache, osc_lmd_output* out) {
    traversal t = make_traversal(a, b, s);
    // 1. the front (or the root) -> the next front and the leaf pairs
    if (cache->a != a->brep || cache->b != b->brep || cache->front_count == 0) {
        cache->a = a->brep;
        cache->b = b->brep;
        cache->front_count = 0;
        cache->warm_count = 0;
        if (!push_node(&cache->front, &cache->front_count, &cache->front_cap, 0, 0, 0)) return OSC_ERR_NO_MEMORY;
    }
    cache->next_count = 0;
    for (size_t i = 0; i < cache->front_count; i++)
        if (!traverse(&t, cache, cache->front[i])) return OSC_ERR_NO_MEMORY;
    prune(&t, cache);
    // 2. footpoints of the leaf pairs, from their warm starts
    footpoint_stage f;
    memset(&f, 0, sizeof f);
    f.a = a;
    f.b = b;
    f.settings = s;
    f.threads = threads;
    f.slots_per_job = s->conformal_samples > 1 ? (size_t)s->conformal_samples : 1;
    osc_status status = solve_leaf_pairs(&f, cache);
    if (status != OSC_OK) return status;
    // 3. sorted, duplicates merged
    size_t unique = merge_duplicates(cache, 1e-5 * fmax(a->brep->scale, b->brep->scale));
    out->needed = saturated(unique);
    out->count = out->needed < out->capacity ? out->needed : out->capacity;
    for (int32_t i = 0; i < out->count; i++) {
        out->contacts[i] = cache->found[i].c;
        if (out->distance_jacobians)
            distance_jacobian(&out->contacts[i], a, b, out->distance_jacobians + 12 * (size_t)i);
    }
    // 4. the front and footpoints for the next call
    if (!keep_for_next_call(cache)) return OSC_ERR_NO_MEMORY;
    cache->stats.front_size = saturated(cache->front_count);
    cache->stats.culling_tests = saturated(t.tests);
    cache->stats.leaf_pairs = saturated(f.leaf_pairs);
    cache->stats.searches = saturated(f.jobs_done);
    cache->stats.newton_iterations = saturated(f.iterations);
    cache->stats.warm_starts = saturated(f.warm_starts);
    return osc_finish_output("osc_lmd_query", out->needed, out->capacity);
}

// Are two boxes (centres c, unit axes, half extents h; world) within d of each other? The 15
// separating axes of two boxes, each gap compared with d: never false for boxes within d (a box
// further than d may still pass; the count it feeds is conservative).
static bool boxes_within(osc_vec3 ca, const osc_vec3 axa[3], osc_vec3 ha, osc_vec3 cb, const osc_vec3 axb[3],
                         osc_vec3 hb, double d) {
    osc_vec3 axes[15], t = osc_sub(cb, ca);
    int n = 0;
    for (int i = 0; i < 3; i++) axes[n++] = axa[i];
    for (int i = 0; i < 3; i++) axes[n++] = axb[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            osc_vec3 l = osc_cross(axa[i], axb[j]);
            double len = osc_length(l);
            if (len > 1e-9) axes[n++] = osc_scale(l, 1.0 / len);
        }
    double a[3] = {ha.x, ha.y, ha.z}, b[3] = {hb.x, hb.y, hb.z};
    for (int k = 0; k < n; k++) {
        double ra = 0.0, rb = 0.0;
        for (int i = 0; i < 3; i++) {
            ra += a[i] * fabs(osc_dot(axes[k], axa[i]));
            rb += b[i] * fabs(osc_dot(axes[k], axb[i]));
        }
        if (fabs(osc_dot(axes[k], t)) > ra + rb + d) return false;
    }
    return true;
}

// The left-out faces of `from` (at pose_from) whose boxes come within d of `to`'s bounding box (its
// BVH root) at pose_to.
static int32_t skipped_reached(const osc_brep* from, osc_pose pose_from, const osc_brep* to, osc_pose pose_to,
                               double d) {
    if (from->skipped_count == 0 || to->node_count == 0) return 0;
    osc_mat3 rf = osc_quat_to_mat3(osc_quat_normalize(pose_from.q));
    osc_mat3 rt = osc_quat_to_mat3(osc_quat_normalize(pose_to.q));
    const osc_brep_node* root = &to->nodes[0];
    osc_vec3 axf[3], axt[3];
    for (int i = 0; i < 3; i++) {
        axf[i] = osc_mat3_column(rf, i);
        axt[i] = osc_mat3_apply(rt, root->axis[i]);
    }
    osc_vec3 ct = osc_pose_apply(pose_to, root->center);
    int32_t count = 0;
    for (int i = 0; i < from->skipped_count; i++) {
        const osc_brep_skipped* s = &from->skipped[i];
        osc_vec3 c = osc_pose_apply(pose_from, osc_scale(osc_add(s->lo, s->hi), 0.5));
        osc_vec3 h = osc_scale(osc_sub(s->hi, s->lo), 0.5);
        count += boxes_within(c, axf, h, ct, axt, root->half, d);
    }
    return count;
}

// A body of the query in the frame whose origin is A's position: the footpoint stage then works
// with the relative offset of the solids (accurate wherever they are), and the world footpoints are
// moved back at the end.
static lmd_body make_body(const osc_brep* brep, osc_pose pose, osc_vec3 origin) {
    lmd_body body = {brep, {osc_sub(pose.p, origin), osc_quat_normalize(pose.q)}, osc_mat3_identity()};
    body.rotation = osc_quat_to_mat3(body.pose.q);
    return body;
}

osc_status osc_lmd_query(const osc_brep* a, osc_pose pose_a, const osc_brep* b, osc_pose pose_b,
                         const osc_lmd_settings* settings, osc_lmd_cache* cache, osc_lmd_output* out, int threads) {
    const char* function = "osc_lmd_query";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output is NULL", function);
    out->count = out->needed = out->skipped_faces = 0;
    osc_status st = osc_check_output(function, out->contacts, out->capacity);
    if (st == OSC_OK && (!a || !b)) st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function, a ? "b" : "a");
    if (st == OSC_OK && threads < 0)
        st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads is %d; it must be >= 0", function, threads);
    if (st == OSC_OK)
        st = osc_check_pose(function, "pose_a", pose_a, OSC_LMD_MAX_LENGTH, "OSC_LMD_MAX_LENGTH", &pose_a);
    if (st == OSC_OK)
        st = osc_check_pose(function, "pose_b", pose_b, OSC_LMD_MAX_LENGTH, "OSC_LMD_MAX_LENGTH", &pose_b);
    osc_lmd_settings s = settings ? *settings : osc_lmd_settings_default();
    if (st == OSC_OK) st = check_settings(&s);
    if (st != OSC_OK) return st;
    lmd_body ba = make_body(a, pose_a, pose_a.p), bb = make_body(b, pose_b, pose_a.p);
    // the left-out faces the search region reaches, with the poses relative to A's position
    out->skipped_faces = skipped_reached(a, ba.pose, b, bb.pose, s.d_max + s.eps_a + s.eps_b) +
                         skipped_reached(b, bb.pose, a, ba.pose, s.d_max + s.eps_a + s.eps_b);
    osc_lmd_cache* own = NULL;
    if (!cache) {
        st = osc_lmd_cache_create(&own);
        if (st != OSC_OK) return osc_fail_in(function, st);
        cache = own;
    }
    st = run_query(&ba, &bb, &s, threads, cache, out);
    osc_lmd_cache_destroy(own);
    if (st == OSC_ERR_NO_MEMORY) return osc_fail_in(function, st);
    if (st != OSC_OK && st != OSC_ERR_CAPACITY) {
        out->count = out->needed = 0;
        return st;
    }
    for (int32_t i = 0; i < out->count; i++) { // back to world coordinates
        out->contacts[i].point_a = osc_add(out->contacts[i].point_a, pose_a.p);
        out->contacts[i].point_b = osc_add(out->contacts[i].point_b, pose_a.p);
    }
    return st;
}

// slot i of a batch: the single call, on one thread, into outputs[i]
static osc_status batch_slot(const osc_query_batch* batch, size_t i) {
    const osc_lmd_batch_item* item = (const osc_lmd_batch_item*)batch->items + i;
    return osc_lmd_query(item->a, item->pose_a, item->b, item->pose_b, batch->settings, item->cache,
                         (osc_lmd_output*)batch->outputs + i, 1);
}

osc_status osc_lmd_query_batch(const osc_lmd_batch_item* items, size_t count, const osc_lmd_settings* settings,
                               osc_lmd_output* outputs, osc_status* statuses, int threads) {
    const osc_query_batch batch = {"osc_lmd_query_batch", "outputs", items, outputs, settings, NULL, batch_slot, 1};
    return osc_query_batch_run(&batch, count, statuses, threads);
}
