// test_manifold.c: the contact manifold of Beker et al. 2026 §IV (include/osculate/manifold.h), tested
// against oracles that do not share its code:
//  1. closed forms in the hard mode (all temperatures 0, bandwidth 0, d_max 0) and the smooth one:
//     a meshed sphere against an analytic sphere, a tilted box resting on a plate (vertex depths,
//     weights, normals, the sphere trace replayed step by step with the smooth operators written
//     out from their definitions, and its hard limit: the midpoint of the penetrating part);
//  2. brute force on a real model: the bunny's spline SDF evaluated at every transformed vertex,
//     and the zero crossing of each edge found by bisection;
//  3. central finite differences of every Jacobian (point, depth, normal, weight; 12 columns) on
//     random poses of real models (the bunny's spline body, a union of superquadrics, the XPSQ cup
//     of Beker et al. 2026 Fig. 9), blended and not, and the contact Jacobians against the velocity of the
//     body point;
//  4. the broad phase never changes a result (bit for bit; long edges through small bodies
//     included) and does skip work; without it, where edges are ruled out by phi at their corners
//     and a spline's Lipschitz bounds, every settled edge is reported exactly where the spline at
//     its midpoint is within d_max;
//  5. the batch equals the single call bit for bit, capacity handling included;
//  6. smoothness sweeps through parallel faces, a slide, and a vertex leaving d_max (the paper's Fig. 10,
//     docs/architecture.md §5), with the hard pipeline shown to jump in the same sweeps;
//  7. bad input: every documented status, with osc_last_error naming the argument;
//  8. convex groups from SDF leaves, and blending recomputed independently from the unblended
//     contacts of the same configuration;
//  9. (white box) a spline body's broad-phase bounds hold for the spline as evaluated: voxel lower
//     and upper bounds, and the Lipschitz bounds of blocks and of boxes of blocks where phi > 0.

#include "mesh_test_util.h"
#include "manifold_internal.h" // the body's voxel bounds and Lipschitz blocks (test 9)
#include "../examples/cup_model.h"

#include <stdbool.h>

static test_rng rng = {0x6d616e69666f6cull};

// ---------------------------------------------------------------------------------------------
// bodies

typedef struct tbody {
    osc_mesh* mesh; // the collision mesh (body frame)
    osc_sdf* sdf;   // the body's SDF (owned), or
    osc_grid* grid; // or its spline SDF
    osc_body* body;
    bool owns_shape; // the mesh and SDF are released with the body (false: another tbody's)
} tbody;

static void tbody_free(tbody* b) {
    osc_body_destroy(b->body);
    if (b->owns_shape) {
        osc_mesh_destroy(b->mesh);
        osc_sdf_destroy(b->sdf);
        osc_grid_destroy(b->grid);
    }
    memset(b, 0, sizeof *b);
}

// a body over `mesh` and exactly one of `sdf` / `grid` (ownership passes to the tbody)
static bool tbody_make(tbody* b, osc_mesh* mesh, osc_sdf* sdf, osc_grid* grid, osc_group_source groups,
                       int32_t group_count, bool owns) {
    memset(b, 0, sizeof *b);
    b->mesh = mesh;
    b->sdf = sdf;
    b->grid = grid;
    b->owns_shape = owns;
    if (!mesh || (!sdf && !grid)) return false;
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = mesh;
    desc.sdf = sdf;
    desc.grid = grid;
    desc.groups = groups;
    desc.group_count = group_count;
    osc_status status = osc_body_create(&desc, &b->body);
    CHECK_MSG(status == OSC_OK, "osc_body_create: %s", osc_last_error());
    return status == OSC_OK;
}

static osc_vec3 mesh_vertex(const osc_mesh* mesh, int32_t i) {
    const double* v = osc_mesh_vertices(mesh) + 3 * (size_t)i;
    return osc_v3(v[0], v[1], v[2]);
}

// an axis-aligned box mesh of half extents `half` centred at `centre`: 8 vertices (bit 0 of the
// index: +x, bit 1: +y, bit 2: +z), 12 outward triangles; the +z face's diagonal is the edge 5-6,
// from (+x, -y) to (-x, +y)
static osc_mesh* box_mesh(osc_vec3 half, osc_vec3 centre) {
    double v[24];
    for (int c = 0; c < 8; ++c) {
        v[3 * c] = centre.x + (c & 1 ? half.x : -half.x);
        v[3 * c + 1] = centre.y + (c & 2 ? half.y : -half.y);
        v[3 * c + 2] = centre.z + (c & 4 ? half.z : -half.z);
    }
    int32_t t[36] = {0, 2, 1, 1, 2, 3,  // -z
                     4, 5, 6, 5, 7, 6,  // +z (diagonal 5-6)
                     0, 1, 4, 1, 5, 4,  // -y
                     2, 6, 3, 3, 6, 7,  // +y
                     0, 4, 2, 2, 4, 6,  // -x
                     1, 3, 5, 3, 7, 5}; // +x
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(v, 8, t, 12, &mesh), OSC_OK);
    return mesh;
}

static osc_mesh* scaled_mesh(const osc_mesh* mesh, double scale, osc_vec3 shift) {
    int32_t n = osc_mesh_vertex_count(mesh);
    double* v = malloc(3 * (size_t)n * sizeof(double));
    const double* src = osc_mesh_vertices(mesh);
    for (int32_t i = 0; i < n; ++i) {
        v[3 * i] = scale * src[3 * i] + shift.x;
        v[3 * i + 1] = scale * src[3 * i + 1] + shift.y;
        v[3 * i + 2] = scale * src[3 * i + 2] + shift.z;
    }
    osc_mesh* out = NULL;
    CHECK_STATUS(osc_mesh_create(v, n, osc_mesh_triangles(mesh), osc_mesh_triangle_count(mesh), &out), OSC_OK);
    free(v);
    return out;
}

static osc_quat random_rotation(void) {
    osc_quat q;
    do {
        q = (osc_quat){test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1),
                       test_uniform(&rng, -1, 1)};
    } while (osc_quat_norm(q) < 0.2 || osc_quat_norm(q) > 1.0);
    return osc_quat_normalize(q);
}

static osc_vec3 random_direction(void) {
    osc_vec3 d;
    do {
        d = osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1));
    } while (osc_length(d) < 0.2 || osc_length(d) > 1.0);
    return osc_normalize(d);
}

// ---------------------------------------------------------------------------------------------
// query outputs

typedef struct result {
    int32_t capacity, count, needed;
    osc_status status;
    osc_manifold_contact* contacts;
    double *point_j, *distance_j, *normal_j, *weight_j; // [capacity][3][12], [capacity][12], ...
    int32_t* index;         // optional (result_index): [body][kind][feature] -> contact, -1 for none
    int32_t index_features; // features per (body, kind) in the index
} result;

// builds the lookup table of find_contact (for long outputs matched many times)
static void result_index(result* r, int32_t features) {
    size_t size = 6 * (size_t)features;
    if (!r->index || r->index_features != features) {
        free(r->index);
        r->index = malloc(size * sizeof(int32_t));
        r->index_features = features;
    }
    for (size_t i = 0; i < size; ++i) r->index[i] = -1;
    for (int i = 0; i < r->count; ++i) {
        const osc_manifold_contact* c = &r->contacts[i];
        r->index[((size_t)c->body * 3 + (size_t)c->kind) * (size_t)features + (size_t)c->feature] = i;
    }
}

static void result_init(result* r, int32_t capacity) {
    memset(r, 0, sizeof *r);
    r->capacity = capacity;
    r->contacts = calloc((size_t)capacity, sizeof(osc_manifold_contact));
    r->point_j = calloc((size_t)capacity * 36, sizeof(double));
    r->distance_j = calloc((size_t)capacity * 12, sizeof(double));
    r->normal_j = calloc((size_t)capacity * 36, sizeof(double));
    r->weight_j = calloc((size_t)capacity * 12, sizeof(double));
}

static void result_free(result* r) {
    free(r->index);
    free(r->contacts);
    free(r->point_j);
    free(r->distance_j);
    free(r->normal_j);
    free(r->weight_j);
    memset(r, 0, sizeof *r);
}

static osc_status collide(const tbody* a, osc_pose pa, const tbody* b, osc_pose pb, const osc_manifold_settings* s,
                          result* r, bool derivatives) {
    osc_manifold_output out = {r->contacts,
                               r->capacity,
                               -1,
                               -1,
                               derivatives ? r->point_j : NULL,
                               derivatives ? r->distance_j : NULL,
                               derivatives ? r->normal_j : NULL,
                               derivatives ? r->weight_j : NULL};
    r->status = osc_manifold_collide(a->body, pa, b->body, pb, s, &out);
    r->count = out.count;
    r->needed = out.needed;
    if (r->index) result_index(r, r->index_features);
    return r->status;
}

static int find_contact(const result* r, int32_t body, int32_t kind, int32_t feature) {
    if (r->index && feature >= 0 && feature < r->index_features && kind >= 0 && kind < 3 && body >= 0 && body < 2)
        return r->index[((size_t)body * 3 + (size_t)kind) * (size_t)r->index_features + (size_t)feature];
    for (int i = 0; i < r->count; ++i)
        if (r->contacts[i].body == body && r->contacts[i].kind == kind && r->contacts[i].feature == feature) return i;
    return -1;
}

static osc_manifold_settings hard_settings(int iterations) {
    osc_manifold_settings s = osc_manifold_settings_default();
    s.d_max = 0.0;
    s.bandwidth = 0.0;
    s.trace_temperature = 0.0;
    s.clip_temperature = 0.0;
    s.blend_temperature = 0.0;
    s.blend = 0;
    s.iterations = iterations;
    return s;
}

// the settings of the closed-form tests: 0, 1 hard (3 and 60 trace steps), 2 the defaults, 3 wide
// bands and temperatures; all unblended
static osc_manifold_settings closed_form_settings(int which) {
    if (which < 2) return hard_settings(which ? 60 : 3);
    osc_manifold_settings s = osc_manifold_settings_default();
    s.blend = 0;
    if (which == 3) {
        s.d_max = 0.05;
        s.bandwidth = 0.04;
        s.trace_temperature = 0.01;
        s.clip_temperature = 0.01;
        s.iterations = 5;
    }
    return s;
}

// the smallest depth of the unblended contacts (d_max when there are none)
static double min_depth(const result* r, double d_max) {
    double m = d_max;
    for (int i = 0; i < r->count; ++i) m = fmin(m, r->contacts[i].distance);
    return m;
}

// poses where the two bodies touch: random orientations, B's origin on a random ray from A's,
// moved in from far away until the deepest (unblended, default-settings) contact is about
// `penetration` deep
static void touching_poses(const tbody* a, const tbody* b, double start, double penetration, osc_pose* pa,
                           osc_pose* pb) {
    osc_manifold_settings s = osc_manifold_settings_default();
    s.blend = 0;
    result r;
    result_init(&r, 8192);
    for (int attempt = 0; attempt < 20; ++attempt) {
        *pa =
            osc_pose_make(osc_v3(test_uniform(&rng, -0.2, 0.2), test_uniform(&rng, -0.2, 0.2), 0.0), random_rotation());
        osc_vec3 u = random_direction();
        osc_quat qb = random_rotation();
        // coarse steps until the first contact, then fine ones
        double d = start, step = 0.04;
        for (; d > 0.0; d -= step) {
            *pb = osc_pose_make(osc_add_scaled(pa->p, u, d), qb);
            collide(a, *pa, b, *pb, &s, &r, false);
            double depth = min_depth(&r, s.d_max);
            if (depth < -penetration) {
                result_free(&r);
                return;
            }
            if (depth < s.d_max && step > 0.004) {
                d += step; // back to the last clear distance, then on in fine steps
                step = 0.004;
            }
        }
    }
    CHECK_MSG(0, "no touching configuration found");
    result_free(&r);
}

// ---------------------------------------------------------------------------------------------
// the shared models, built once

static tbody bunny;          // spline SDF of the npm bunny scaled to ~1 unit, ~600-triangle mesh
static tbody bunny_clusters; // the same with OSC_GROUPS_CLUSTER (8 groups)
static tbody sq_union;       // a smooth union of 3 superquadrics, groups from its leaves
static tbody cup;            // the XPSQ cup of Beker et al. 2026 Fig. 9 (examples/cup_model.h) at 0.1 scale, its
                             // leaves as groups
static osc_grid* bunny_grid;

static void build_models(void) {
    double start = test_seconds();
    osc_mesh* raw = test_load_model(OSC_DATA_DIR "/bunny.obj");
    if (!raw) return;
    // 0.1 x: about 1 unit across (-0.5..0.5, 0..0.97, -0.37..0.38), centred near the origin
    osc_mesh* mesh = scaled_mesh(raw, 0.1, osc_v3(0.0, -0.48, 0.0));
    osc_mesh_destroy(raw);
    osc_mesh_bvh* bvh = NULL;
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &bvh), OSC_OK);
    osc_grid_settings gs = osc_grid_settings_default();
    gs.resolution = 48;
    CHECK_STATUS(osc_grid_create_from_mesh(bvh, &gs, &bunny_grid), OSC_OK);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
    osc_sdf* leaf = NULL;
    CHECK_STATUS(osc_grid_to_sdf(bunny_grid, &leaf), OSC_OK);
    osc_collision_mesh_settings cs = osc_collision_mesh_settings_default();
    cs.resolution = 64;
    cs.target_triangles = 600;
    osc_mesh* collision = NULL;
    CHECK_STATUS(osc_collision_mesh_create(leaf, &cs, &collision), OSC_OK);
    osc_sdf_destroy(leaf);
    tbody_make(&bunny, collision, NULL, bunny_grid, OSC_GROUPS_NONE, 0, true);
    tbody_make(&bunny_clusters, collision, NULL, bunny_grid, OSC_GROUPS_CLUSTER, 8, false);

    // three superquadrics (exponents <= 1: C2 away from their centres) in a smooth union
    osc_sdf *parts[3] = {NULL, NULL, NULL}, *placed[3] = {NULL, NULL, NULL}, *un = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(0.35, 0.2, 0.15), 0.6, 0.8, &parts[0]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(0.12, 0.12, 0.3), 1.0, 0.5, &parts[1]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(0.2, 0.15, 0.15), 0.8, 1.0, &parts[2]), OSC_OK);
    osc_pose where[3] = {osc_pose_identity(),
                         osc_pose_make(osc_v3(0.3, 0.0, 0.2), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.4)),
                         osc_pose_make(osc_v3(-0.3, 0.1, -0.1), osc_quat_from_axis_angle(osc_v3(1, 1, 0), 0.7))};
    for (int i = 0; i < 3; ++i) CHECK_STATUS(osc_sdf_create_transformed(parts[i], where[i], 1.0, &placed[i]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)placed, 3, 0.02, &un), OSC_OK);
    for (int i = 0; i < 3; ++i) osc_sdf_destroy(parts[i]), osc_sdf_destroy(placed[i]);
    osc_mesh* sq_mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(un, &cs, &sq_mesh), OSC_OK);
    tbody_make(&sq_union, sq_mesh, un, NULL, OSC_GROUPS_SDF_LEAVES, 0, true);
    // the cup: three XPSQs in cm, scaled to about 1 unit (0.8 wide, 1.08 tall with the handle)
    osc_sdf *cup_cm = NULL, *cup_sdf = NULL;
    CHECK_STATUS(make_cup(&cup_cm), OSC_OK);
    CHECK_STATUS(
        osc_sdf_create_transformed(cup_cm, osc_pose_make(osc_v3(0.0, 0.0, -0.5), osc_quat_identity()), 0.1, &cup_sdf),
        OSC_OK);
    osc_sdf_destroy(cup_cm);
    osc_collision_mesh_settings cup_settings = osc_collision_mesh_settings_default();
    cup_settings.resolution = 96;
    cup_settings.target_triangles = 1500;
    osc_mesh* cup_mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(cup_sdf, &cup_settings, &cup_mesh), OSC_OK);
    tbody_make(&cup, cup_mesh, cup_sdf, NULL, OSC_GROUPS_SDF_LEAVES, 0, true);
    printf("  models: bunny %d vertices / %d edges, %d clusters; SQ union %d vertices / %d edges, %d groups; cup "
           "%d vertices / %d edges, %d groups (%.2f s)\n",
           osc_body_vertex_count(bunny.body), osc_body_edge_count(bunny.body),
           osc_body_group_count(bunny_clusters.body), osc_body_vertex_count(sq_union.body),
           osc_body_edge_count(sq_union.body), osc_body_group_count(sq_union.body), osc_body_vertex_count(cup.body),
           osc_body_edge_count(cup.body), osc_body_group_count(cup.body), test_seconds() - start);
}

static void free_models(void) {
    tbody_free(&bunny_clusters);
    tbody_free(&bunny);
    tbody_free(&sq_union);
    tbody_free(&cup);
}

// ---------------------------------------------------------------------------------------------
// 1-2. closed forms and brute force, in the hard and the smooth modes

// the SDF of the body a feature meets, evaluated independently of the library in world
// coordinates: its value and outward unit normal (nullable)
typedef struct field field;
struct field {
    double (*eval)(const field* f, osc_vec3 x, osc_vec3* normal);
    osc_pose pose; // of the SDF's body
    double radius; // sphere
    osc_vec3 half; // box
    const osc_grid* grid;
    bool ambiguous; // set by eval: the normal is not defined there (a box's medial plane)
};

static double field_sphere(const field* f, osc_vec3 x, osc_vec3* normal) {
    osc_vec3 y = osc_sub(x, f->pose.p); // a sphere does not care about its rotation
    double r = osc_length(y);
    if (normal) *normal = osc_scale(y, 1.0 / r);
    return r - f->radius;
}

// the exact box distance: |max(q, 0)| + min(max_i q_i, 0), q = |y| - half
static double field_box(const field* cf, osc_vec3 x, osc_vec3* normal) {
    field* f = (field*)cf;
    osc_vec3 y = osc_pose_apply_inverse(f->pose, x);
    double yv[3] = {y.x, y.y, y.z}, h[3] = {f->half.x, f->half.y, f->half.z}, q[3], outside = 0.0;
    int arg = 0;
    for (int i = 0; i < 3; ++i) {
        q[i] = fabs(yv[i]) - h[i];
        outside += q[i] > 0.0 ? q[i] * q[i] : 0.0;
        if (q[i] > q[arg]) arg = i;
    }
    outside = sqrt(outside);
    double inside = fmin(q[arg], 0.0);
    if (normal) {
        double g[3] = {0, 0, 0};
        f->ambiguous = false;
        if (outside > 0.0) {
            for (int i = 0; i < 3; ++i) g[i] = q[i] > 0.0 ? copysign(q[i] / outside, yv[i]) : 0.0;
        } else {
            g[arg] = copysign(1.0, yv[arg]);
            for (int i = 0; i < 3; ++i) // a tie: the medial plane of two faces
                if (i != arg && q[arg] - q[i] < 1e-9) f->ambiguous = true;
        }
        *normal = osc_quat_rotate(f->pose.q, osc_v3(g[0], g[1], g[2]));
    }
    return outside + inside;
}

// the spline by brute force: osc_grid_eval at the point mapped into the body frame; the normal is
// the normalised normal field (what a spline body reports, the paper's §III-B.2)
static double field_grid(const field* f, osc_vec3 x, osc_vec3* normal) {
    osc_vec3 y = osc_pose_apply_inverse(f->pose, x);
    if (normal) *normal = osc_quat_rotate(f->pose.q, osc_normalize(osc_grid_eval_normal(f->grid, y, NULL)));
    return osc_grid_eval(f->grid, y, NULL, NULL);
}

typedef struct hard_tally {
    int vertices, edges, limits; // contacts compared; edges compared with the limit
    double worst_depth, worst_weight, worst_point, worst_normal, worst_limit;
} hard_tally;

// |p - segment [a, b]|
static double segment_distance(osc_vec3 p, osc_vec3 a, osc_vec3 b) {
    osc_vec3 e = osc_sub(b, a);
    double t = osc_dot(osc_sub(p, a), e) / osc_dot(e, e);
    t = fmax(0.0, fmin(1.0, t));
    return osc_length(osc_sub(p, osc_add_scaled(a, e, t)));
}

// the smooth operators of Beker et al. 2026 §II / §IV-C.1, written out here from their definitions (the
// library's osc_sigmoid, osc_softclip and osc_transition are not used): temperature 0 is the hard
// operator
static double ref_sigmoid(double x, double tau) {
    return tau > 0.0 ? 1.0 / (1.0 + exp(-x / tau)) : (x > 0.0 ? 1.0 : 0.0);
}

static double ref_softplus(double x, double tau) { // tau log(1 + e^(x / tau)), without overflow
    return x > 0.0 ? x + tau * log1p(exp(-x / tau)) : tau * log1p(exp(x / tau));
}

static double ref_softclip(double x, double lo, double hi, double tau) {
    if (!(tau > 0.0)) return fmin(fmax(x, lo), hi);
    return lo + ref_softplus(x - lo, tau) - ref_softplus(x - hi, tau);
}

// f_t: 1 below d_max - bandwidth, 0 above d_max, 1 - (6 s^5 - 15 s^4 + 10 s^3) in between
static double ref_transition(double d, double d_max, double bandwidth) {
    if (!(bandwidth > 0.0)) return d <= d_max ? 1.0 : 0.0;
    double s = (d - (d_max - bandwidth)) / bandwidth;
    if (s <= 0.0) return 1.0;
    if (s >= 1.0) return 0.0;
    return 1.0 - s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
}

// the sphere trace of the paper's §IV-B.2 replayed, s <- s + [phi > 0] phi with the smoothed bracket,
// then soft-clipped into the edge
static double replay_trace(const field* f, osc_vec3 start, osc_vec3 dir, double length,
                           const osc_manifold_settings* st) {
    double s = 0.0;
    for (int k = 0; k < st->iterations; ++k) {
        double phi = f->eval(f, osc_add_scaled(start, dir, s), NULL);
        s += ref_sigmoid(phi, st->trace_temperature) * phi;
    }
    return ref_softclip(s, 0.0, length, st->clip_temperature);
}

// the limit of the trace for an edge that crosses the surface once: the zero crossing by bisection
// and the midpoint of the penetrating part. Returns false (no prediction) unless the edge crosses
// exactly once (dense sampling) and the trace from its outside corner contracts by at least 0.3 per
// step (every secant slope phi(s) / (s* - s) in [0.3, 1]), so `iterations` >= 50 steps leave less
// than 0.7^50 ~ 2e-8 of the distance.
static bool crossing_limit(const field* f, osc_vec3 a, osc_vec3 b, osc_vec3* expected) {
    enum { SAMPLES = 256 };
    double phi[SAMPLES + 1];
    int changes = 0;
    for (int i = 0; i <= SAMPLES; ++i) {
        phi[i] = f->eval(f, osc_lerp(a, b, (double)i / SAMPLES), NULL);
        if (i > 0 && (phi[i] > 0.0) != (phi[i - 1] > 0.0)) ++changes;
    }
    if (changes != 1 || phi[0] == 0.0 || phi[SAMPLES] == 0.0) return false;
    osc_vec3 out = phi[0] > 0.0 ? a : b, in = phi[0] > 0.0 ? b : a;
    double lo = 0.0, hi = 1.0; // from `out` (phi > 0) to `in` (phi <= 0)
    for (int k = 0; k < 200 && hi - lo > 1e-17; ++k) {
        double mid = 0.5 * (lo + hi);
        if (f->eval(f, osc_lerp(out, in, mid), NULL) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    double l = osc_length(osc_sub(b, a)), star = 0.5 * (lo + hi) * l;
    for (int i = 0; i <= SAMPLES; ++i) {
        double sigma = (double)i / SAMPLES * l;
        if (sigma >= star - 1e-9 * l) break;
        double value = f->eval(f, osc_lerp(out, in, sigma / l), NULL);
        double secant = value / (star - sigma);
        if (!(secant >= 0.3 && secant <= 1.0)) return false;
    }
    *expected = osc_scale(osc_add(osc_lerp(out, in, star / l), in), 0.5);
    return true;
}

// every vertex and edge of body `index` (F at pose_f) against the other body's field `f`, unblended:
// a feature is a contact exactly when f_t(phi) > 0 at its point (phi < d_max; phi <= 0 in the hard
// mode with d_max 0); a vertex is its own point; an edge's point is the replayed trace's midpoint;
// depth f_t phi + (1 - f_t) d_max, weight f_t, normal (A to B) at the point and, in the hard mode
// with iterations >= 50, the limit of the trace
static void check_direction(const char* name, const tbody* fb, osc_pose pose_f, int index, const field* f,
                            const osc_manifold_settings* s, const result* r, hard_tally* t) {
    double sign = index == 0 ? -1.0 : 1.0; // the normal from A to B is -n_B at A's features
    bool hard = !(s->trace_temperature > 0.0) && !(s->clip_temperature > 0.0) && !(s->bandwidth > 0.0);
    int32_t n = osc_mesh_vertex_count(fb->mesh);
    int misses = 0;
    for (int32_t i = 0; i < n; ++i) {
        osc_vec3 x = osc_pose_apply(pose_f, mesh_vertex(fb->mesh, i)), normal;
        double phi = f->eval(f, x, &normal), w = ref_transition(phi, s->d_max, s->bandwidth);
        double depth = w * phi + (1.0 - w) * s->d_max;
        int k = find_contact(r, index, OSC_CONTACT_VERTEX, i);
        if (fabs(phi - s->d_max) < 1e-12) continue; // on the edge of d_max: either answer is right
        if ((w > 0.0) != (k >= 0)) {
            if (misses++ < 5)
                fprintf(stderr, "  %s: vertex %d of body %d at phi = %.3g (d_max %g) is %s\n", name, (int)i, index, phi,
                        s->d_max, k >= 0 ? "a contact" : "missing");
            continue;
        }
        if (k < 0) continue;
        const osc_manifold_contact* c = &r->contacts[k];
        ++t->vertices;
        double ep = osc_length(osc_sub(c->point, x)), en = osc_length(osc_sub(c->normal, osc_scale(normal, sign)));
        t->worst_depth = fmax(t->worst_depth, fabs(c->distance - depth));
        t->worst_weight = fmax(t->worst_weight, fabs(c->weight - w));
        t->worst_point = fmax(t->worst_point, ep);
        if (!f->ambiguous) t->worst_normal = fmax(t->worst_normal, en);
        if (fabs(c->distance - depth) > 1e-12 || ep > 1e-12 || (!f->ambiguous && en > 1e-12) ||
            fabs(c->weight - w) > 1e-12 || c->group != -1) {
            if (misses++ < 5)
                fprintf(stderr,
                        "  %s: vertex %d of body %d: depth %.17g (closed form %.17g), weight %.17g (%.17g), "
                        "point error %.3g, normal error %.3g, group %d\n",
                        name, (int)i, index, c->distance, depth, c->weight, w, ep, en, (int)c->group);
        }
    }
    CHECK_MSG(misses == 0, "%s: %d vertex contacts of body %d disagree with the closed form", name, misses, index);

    const int32_t* edges = osc_mesh_edges(fb->mesh);
    int32_t e = osc_mesh_edge_count(fb->mesh);
    int edge_misses = 0;
    for (int32_t i = 0; i < e; ++i) {
        osc_vec3 a = osc_pose_apply(pose_f, mesh_vertex(fb->mesh, edges[2 * i]));
        osc_vec3 b = osc_pose_apply(pose_f, mesh_vertex(fb->mesh, edges[2 * i + 1]));
        double l = osc_length(osc_sub(b, a));
        osc_vec3 dir = osc_scale(osc_sub(b, a), 1.0 / l);
        double sa = replay_trace(f, a, dir, l, s), sb = replay_trace(f, b, osc_neg(dir), l, s);
        osc_vec3 p = osc_add_scaled(osc_scale(osc_add(a, b), 0.5), dir, 0.5 * (sa - sb));
        double phi = f->eval(f, p, NULL);
        int k = find_contact(r, index, OSC_CONTACT_EDGE, i);
        if (fabs(phi - s->d_max) < 1e-9) continue;
        if ((phi < s->d_max) != (k >= 0)) {
            if (edge_misses++ < 5)
                fprintf(stderr, "  %s: edge %d of body %d with replayed phi = %.3g (d_max %g) is %s\n", name, (int)i,
                        index, phi, s->d_max, k >= 0 ? "a contact" : "missing");
            continue;
        }
        if (k < 0) continue;
        const osc_manifold_contact* c = &r->contacts[k];
        ++t->edges;
        osc_vec3 normal;
        double at = f->eval(f, c->point, &normal); // the closed form at the reported point
        double w = ref_transition(at, s->d_max, s->bandwidth), depth = w * at + (1.0 - w) * s->d_max;
        double ep = osc_length(osc_sub(c->point, p)), en = osc_length(osc_sub(c->normal, osc_scale(normal, sign)));
        double off = segment_distance(c->point, a, b);
        t->worst_depth = fmax(t->worst_depth, fabs(c->distance - depth));
        t->worst_weight = fmax(t->worst_weight, fabs(c->weight - w));
        t->worst_point = fmax(t->worst_point, ep);
        if (!f->ambiguous) t->worst_normal = fmax(t->worst_normal, en);
        bool bad = fabs(c->distance - depth) > 1e-12 || fabs(c->weight - w) > 1e-12 || ep > 1e-10 || off > 1e-12 ||
                   (!f->ambiguous && en > 1e-10);
        osc_vec3 expected;
        if (hard && s->iterations >= 50 && crossing_limit(f, a, b, &expected)) {
            // the trace ends at the crossing: 2 p - (inside corner) is where it stopped
            double error = 2.0 * osc_length(osc_sub(c->point, expected));
            t->worst_limit = fmax(t->worst_limit, error);
            ++t->limits;
            if (error > 1e-6) bad = true;
        }
        if (bad && edge_misses++ < 5)
            fprintf(stderr,
                    "  %s: edge %d of body %d: depth %.17g (closed form at its point %.17g), weight %.17g "
                    "(%.17g), point error %.3g, off the edge %.3g, normal error %.3g\n",
                    name, (int)i, index, c->distance, depth, c->weight, w, ep, off, en);
    }
    CHECK_MSG(edge_misses == 0, "%s: %d edge contacts of body %d disagree with the replayed trace or its limit", name,
              edge_misses, index);
}

static void print_hard(const char* name, const hard_tally* t) {
    printf("  %-34s %5d vertex, %5d edge contacts (%4d at the trace's limit): max errors depth %.2g, weight %.2g, "
           "point %.2g, normal %.2g, crossing %.2g\n",
           name, t->vertices, t->edges, t->limits, t->worst_depth, t->worst_weight, t->worst_point, t->worst_normal,
           t->worst_limit);
}

static osc_mesh* sphere_mesh(double radius, int resolution) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(radius, &sphere), OSC_OK);
    osc_mesh* mesh = test_extract_mesh(sphere, resolution);
    osc_sdf_destroy(sphere);
    return mesh;
}

static bool sphere_body(tbody* b, double radius, int resolution) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(radius, &sphere), OSC_OK);
    return tbody_make(b, sphere_mesh(radius, resolution), sphere, NULL, OSC_GROUPS_NONE, 0, true);
}

// 1a: a finely meshed sphere (A, radius 0.4) against an analytic sphere (B, radius 0.5), both ways,
// in the hard mode (3 and 60 trace steps) and with two smooth settings
static void test_closed_form_spheres(void) {
    tbody a, b;
    if (!sphere_body(&a, 0.4, 40) || !sphere_body(&b, 0.5, 24)) {
        tbody_free(&a), tbody_free(&b);
        return;
    }
    result r;
    result_init(&r, 20000);
    hard_tally t[2] = {{0}, {0}}; // hard, smooth
    for (int config = 0; config < 10; ++config) {
        osc_manifold_settings s = closed_form_settings(config % 4);
        hard_tally* tally = &t[config % 4 >= 2];
        osc_pose pa =
            osc_pose_make(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), 0.3), random_rotation());
        osc_pose pb =
            osc_pose_make(osc_add_scaled(pa.p, random_direction(), test_uniform(&rng, 0.55, 0.85)), random_rotation());
        CHECK_STATUS(collide(&a, pa, &b, pb, &s, &r, false), OSC_OK);
        field fa = {field_sphere, pa, 0.4, {0, 0, 0}, NULL, false};
        field fb = {field_sphere, pb, 0.5, {0, 0, 0}, NULL, false};
        check_direction("spheres", &a, pa, 0, &fb, &s, &r, tally);
        check_direction("spheres", &b, pb, 1, &fa, &s, &r, tally);
    }
    print_hard("spheres, hard", &t[0]);
    print_hard("spheres, smooth", &t[1]);
    CHECK_MSG(t[0].vertices > 1000 && t[0].edges > 2000 && t[0].limits > 200,
              "spheres: only %d vertex, %d edge, %d limit checks", t[0].vertices, t[0].edges, t[0].limits);
    CHECK_MSG(t[1].vertices > 1000 && t[1].edges > 2000, "spheres, smooth: only %d vertex, %d edge checks",
              t[1].vertices, t[1].edges);
    result_free(&r);
    tbody_free(&a);
    tbody_free(&b);
}

// 1b: a box (A, half 0.2 x 0.15 x 0.1, 8 vertices, exact box SDF) tilted by a few hundredths of a
// radian and resting on a plate (B, a 4 x 4 x 0.5 box whose top face is z = 0) with its lowest
// corner 0.01 deep: vertex depths are plane distances (mollified in the smooth mode), normals -z
// (from A into B), edge points the replayed trace (3 steps) or, with 50 steps in the hard mode, the
// midpoint of the part of the edge below the plane
static void test_closed_form_box_on_plate(void) {
    osc_vec3 half = osc_v3(0.2, 0.15, 0.1), plate_half = osc_v3(2.0, 2.0, 0.25);
    tbody box, plate;
    osc_sdf *box_sdf = NULL, *plate_sdf = NULL;
    CHECK_STATUS(osc_sdf_create_box(half, 0.0, &box_sdf), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(plate_half, 0.0, &plate_sdf), OSC_OK);
    // the plate's top diagonal runs from (+x, -y) to (-x, +y): about 1 unit from the box
    bool ok = tbody_make(&box, box_mesh(half, osc_v3(0, 0, 0)), box_sdf, NULL, OSC_GROUPS_NONE, 0, true);
    ok &= tbody_make(&plate, box_mesh(plate_half, osc_v3(0, 0, 0)), plate_sdf, NULL, OSC_GROUPS_NONE, 0, true);
    if (!ok) {
        tbody_free(&box), tbody_free(&plate);
        return;
    }
    osc_pose pb = osc_pose_make(osc_v3(0.6, 0.9, -0.25), osc_quat_identity());
    result r;
    result_init(&r, 1000);
    hard_tally t[2] = {{0}, {0}}; // hard, smooth
    int plane_checks = 0;
    const double tilts[4][2] = {{0.02, 0.0}, {0.02, 0.01}, {0.05, 0.0}, {-0.03, 0.02}};
    for (int config = 0; config < 12; ++config) {
        // 8 hard (3 and 50 steps), then 4 smooth
        osc_manifold_settings s =
            config < 8 ? hard_settings(config % 2 ? 50 : 3) : closed_form_settings(2 + config % 2);
        hard_tally* tally = &t[config >= 8];
        osc_quat q = osc_quat_mul(osc_quat_from_axis_angle(osc_v3(1, 0, 0), tilts[config % 4][1]),
                                  osc_quat_from_axis_angle(osc_v3(0, 1, 0), tilts[config % 4][0]));
        osc_mat3 rot = osc_quat_to_mat3(q);
        // lowest corner at z = -0.01: p_z - sum_i |R_2i| h_i = -0.01
        double reach = fabs(rot.m[2][0]) * half.x + fabs(rot.m[2][1]) * half.y + fabs(rot.m[2][2]) * half.z;
        osc_pose pa = osc_pose_make(osc_v3(0.05, -0.02, reach - 0.01), q);
        CHECK_STATUS(collide(&box, pa, &plate, pb, &s, &r, false), OSC_OK);
        field fa = {field_box, pa, 0, half, NULL, false};
        field fb = {field_box, pb, 0, plate_half, NULL, false};
        check_direction("box on plate", &box, pa, 0, &fb, &s, &r, tally);
        check_direction("box on plate", &plate, pb, 1, &fa, &s, &r, tally);
        // the plate's top face is the plane z = 0: depth = z (mollified), normal (0, 0, -1) from the
        // box into it
        int deepest = 0;
        for (int i = 0; i < r.count; ++i) {
            const osc_manifold_contact* c = &r.contacts[i];
            CHECK_MSG(c->body == 0, "box on plate: a contact of the plate's features (feature %d)", (int)c->feature);
            if (c->body != 0) continue;
            ++plane_checks;
            double w = ref_transition(c->point.z, s.d_max, s.bandwidth);
            CHECK_NEAR(c->distance, w * c->point.z + (1.0 - w) * s.d_max, 1e-12);
            CHECK_NEAR(osc_length(osc_sub(c->normal, osc_v3(0, 0, -1))), 0.0, 1e-12);
            if (c->kind == OSC_CONTACT_VERTEX && fabs(c->distance + 0.01) < 1e-12) ++deepest;
        }
        CHECK_MSG(deepest >= 1, "box on plate: no vertex contact at the lowest corner's depth -0.01");
    }
    print_hard("box on plate, hard", &t[0]);
    print_hard("box on plate, smooth", &t[1]);
    CHECK_MSG(t[0].vertices >= 20 && t[0].edges >= 60 && t[0].limits >= 16 && t[1].vertices >= 10 && t[1].edges >= 30 &&
                  plane_checks >= 150,
              "box on plate: only %d vertex, %d edge, %d limit checks (hard), %d vertex, %d edge (smooth) and %d "
              "plane checks",
              t[0].vertices, t[0].edges, t[0].limits, t[1].vertices, t[1].edges, plane_checks);
    result_free(&r);
    tbody_free(&box);
    tbody_free(&plate);
}

// 2: the bunny's spline body (A) against a sphere body (B, radius 0.25) centred near its surface:
// B's vertices and edges against the spline by brute force (osc_grid_eval at the transformed
// point, bisection along each edge), A's against the sphere in closed form; hard and smooth modes
static void test_bunny_brute_force(void) {
    if (!bunny.body) return;
    tbody ball;
    if (!sphere_body(&ball, 0.25, 24)) {
        tbody_free(&ball);
        return;
    }
    result r;
    result_init(&r, 20000);
    hard_tally ta[2] = {{0}, {0}}, tb[2] = {{0}, {0}}; // hard, smooth
    for (int config = 0; config < 10; ++config) {
        osc_manifold_settings s = closed_form_settings(config % 4);
        int smooth = config % 4 >= 2;
        osc_pose pa = osc_pose_make(osc_v3(test_uniform(&rng, -1, 1), 0.2, 0.0), random_rotation());
        osc_vec3 surface = osc_pose_apply(pa, test_random_surface_point(bunny.mesh, &rng));
        osc_pose pb = osc_pose_make(osc_add_scaled(surface, random_direction(), 0.1), random_rotation());
        CHECK_STATUS(collide(&bunny, pa, &ball, pb, &s, &r, false), OSC_OK);
        field fa = {field_grid, pa, 0, {0, 0, 0}, bunny_grid, false};
        field fb = {field_sphere, pb, 0.25, {0, 0, 0}, NULL, false};
        check_direction("bunny vs sphere", &bunny, pa, 0, &fb, &s, &r, &ta[smooth]);
        check_direction("sphere vs bunny spline", &ball, pb, 1, &fa, &s, &r, &tb[smooth]);
    }
    print_hard("bunny features vs sphere, hard", &ta[0]);
    print_hard("bunny features vs sphere, smooth", &ta[1]);
    print_hard("sphere vs bunny spline, hard", &tb[0]);
    print_hard("sphere vs bunny spline, smooth", &tb[1]);
    for (int k = 0; k < 2; ++k) {
        CHECK_MSG(tb[k].vertices > 300 && tb[k].edges > 600 && (k || tb[k].limits > 100),
                  "bunny: only %d vertex, %d edge, %d limit checks against the spline", tb[k].vertices, tb[k].edges,
                  tb[k].limits);
        CHECK_MSG(ta[k].vertices > 20 && ta[k].edges > 40, "bunny: only %d vertex, %d edge checks against the sphere",
                  ta[k].vertices, ta[k].edges);
    }
    result_free(&r);
    tbody_free(&ball);
}

// ---------------------------------------------------------------------------------------------
// 3. finite differences

typedef struct fd_tally {
    long entries, checked, unconverged, failed; // Jacobian entries of contacts present at all 4 steps
    long contacts, contacts_skipped;            // contact-columns compared / skipped (set changed)
    long jacobian_checks, velocity_checks, edge_checks;
    double worst[4]; // point, depth, normal, weight (relative, floor 1)
    double worst_velocity, worst_formula, worst_off_edge;
} fd_tally;

// the 8 outputs of a contact: point, depth, normal, weight
static void contact_values(const osc_manifold_contact* c, double v[8]) {
    v[0] = c->point.x, v[1] = c->point.y, v[2] = c->point.z, v[3] = c->distance;
    v[4] = c->normal.x, v[5] = c->normal.y, v[6] = c->normal.z, v[7] = c->weight;
}

// the analytic derivative of output `row` (as contact_values) of contact k along column `col`
static double contact_derivative(const result* r, int k, int row, int col) {
    if (row < 3) return r->point_j[(size_t)k * 36 + row * 12 + col];
    if (row == 3) return r->distance_j[(size_t)k * 12 + col];
    if (row < 7) return r->normal_j[(size_t)k * 36 + (row - 4) * 12 + col];
    return r->weight_j[(size_t)k * 12 + col];
}

// the contact Jacobians: J_X = weight [I | -[x - p_X]x] built here, and J_X xi against the central
// difference of the world position of the body-X material point at x when X moves along xi
static void check_contact_jacobians(const osc_manifold_contact* c, osc_pose pose[2], fd_tally* t) {
    for (int x = 0; x < 2; ++x) {
        const double(*j)[6] = x == 0 ? c->jacobian_a : c->jacobian_b;
        osc_vec3 arm = osc_sub(c->point, pose[x].p);
        double formula[3][6] = {{1, 0, 0, 0, arm.z, -arm.y}, {0, 1, 0, -arm.z, 0, arm.x}, {0, 0, 1, arm.y, -arm.x, 0}};
        double worst = 0.0;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 6; ++k) worst = fmax(worst, fabs(j[i][k] - c->weight * formula[i][k]));
        t->worst_formula = fmax(t->worst_formula, worst);
        CHECK_MSG(worst <= 1e-15, "contact Jacobian %c differs from weight [I | -[x - p]x] by %.3g", 'a' + x, worst);
        ++t->jacobian_checks;
        double xi[6], h = 1e-6;
        for (int k = 0; k < 6; ++k) xi[k] = test_uniform(&rng, -1, 1);
        osc_vec3 y = osc_pose_apply_inverse(pose[x], c->point); // the material point
        double step[6];
        for (int k = 0; k < 6; ++k) step[k] = h * xi[k];
        osc_vec3 plus = osc_pose_apply(osc_pose_apply_twist(pose[x], step), y);
        for (int k = 0; k < 6; ++k) step[k] = -h * xi[k];
        osc_vec3 minus = osc_pose_apply(osc_pose_apply_twist(pose[x], step), y);
        osc_vec3 velocity = osc_scale(osc_sub(plus, minus), c->weight / (2.0 * h));
        double jv[3];
        for (int i = 0; i < 3; ++i) {
            jv[i] = 0.0;
            for (int k = 0; k < 6; ++k) jv[i] += j[i][k] * xi[k];
        }
        double error = osc_length(osc_sub(osc_v3(jv[0], jv[1], jv[2]), velocity)) / fmax(osc_length(velocity), 1.0);
        t->worst_velocity = fmax(t->worst_velocity, error);
        ++t->velocity_checks;
        CHECK_MSG(error <= 1e-8, "contact Jacobian %c times a twist is off the material point's velocity by %.3g",
                  'a' + x, error);
    }
}

// an edge contact lies on its edge (smooth mode too: the soft clip keeps it inside)
static void check_on_edge(const osc_manifold_contact* c, const tbody* bodies[2], osc_pose pose[2], fd_tally* t) {
    if (c->kind != OSC_CONTACT_EDGE) return;
    const tbody* f = bodies[c->body];
    const int32_t* edges = osc_mesh_edges(f->mesh);
    osc_vec3 a = osc_pose_apply(pose[c->body], mesh_vertex(f->mesh, edges[2 * c->feature]));
    osc_vec3 b = osc_pose_apply(pose[c->body], mesh_vertex(f->mesh, edges[2 * c->feature + 1]));
    double off = segment_distance(c->point, a, b);
    t->worst_off_edge = fmax(t->worst_off_edge, off);
    ++t->edge_checks;
    CHECK_MSG(off <= 1e-12, "edge contact %d of body %d lies %.3g off its edge", (int)c->feature, (int)c->body, off);
}

// every Jacobian entry of every contact against central differences with steps h and h / 4 of the
// pose perturbed along each twist direction: compared where the two agree to the tolerance (the
// h / 4 difference's own error is then about 1/15 of it), relative with a floor of 1 (bodies ~1
// unit across)
static void fd_config(const char* name, const tbody* a, osc_pose pa, const tbody* b, osc_pose pb,
                      const osc_manifold_settings* s, double tolerance, fd_tally* t) {
    result base, at[4]; // +h, -h, +h/4, -h/4
    result_init(&base, 4096);
    for (int i = 0; i < 4; ++i) result_init(&at[i], 4096);
    CHECK_STATUS(collide(a, pa, b, pb, s, &base, true), OSC_OK);
    osc_pose pose[2] = {pa, pb};
    const tbody* bodies[2] = {a, b};
    for (int k = 0; k < base.count; ++k) {
        check_contact_jacobians(&base.contacts[k], pose, t);
        check_on_edge(&base.contacts[k], bodies, pose, t);
    }
    const double h = 1e-5;
    int printed = 0;
    for (int col = 0; col < 12; ++col) {
        for (int i = 0; i < 4; ++i) {
            double xi[6] = {0, 0, 0, 0, 0, 0};
            xi[col % 6] = (i % 2 ? -1.0 : 1.0) * (i < 2 ? h : 0.25 * h);
            osc_pose qa = col < 6 ? osc_pose_apply_twist(pa, xi) : pa, qb = col < 6 ? pb : osc_pose_apply_twist(pb, xi);
            CHECK_STATUS(collide(a, qa, b, qb, s, &at[i], false), OSC_OK);
        }
        for (int k = 0; k < base.count; ++k) {
            const osc_manifold_contact* c = &base.contacts[k];
            int m[4];
            bool all = true;
            for (int i = 0; i < 4; ++i) all &= (m[i] = find_contact(&at[i], c->body, c->kind, c->feature)) >= 0;
            if (!all) {
                ++t->contacts_skipped;
                continue;
            }
            ++t->contacts;
            double v[4][8];
            for (int i = 0; i < 4; ++i) contact_values(&at[i].contacts[m[i]], v[i]);
            for (int row = 0; row < 8; ++row) {
                double fd1 = (v[0][row] - v[1][row]) / (2.0 * h), fd2 = (v[2][row] - v[3][row]) / (0.5 * h);
                double scale = fmax(fabs(fd2), 1.0), analytic = contact_derivative(&base, k, row, col);
                ++t->entries;
                if (fabs(fd1 - fd2) > tolerance * scale) {
                    ++t->unconverged;
                    continue;
                }
                ++t->checked;
                double error = fabs(analytic - fd2) / scale;
                int kind = row < 3 ? 0 : (row == 3 ? 1 : (row < 7 ? 2 : 3));
                t->worst[kind] = fmax(t->worst[kind], error);
                if (error > tolerance) {
                    ++t->failed;
                    if (printed++ < 6)
                        fprintf(stderr,
                                "  %s: contact (body %d, kind %d, feature %d) output %d column %d: analytic "
                                "%.10g, differences %.10g (h) %.10g (h/4), error %.3g\n",
                                name, (int)c->body, (int)c->kind, (int)c->feature, row, col, analytic, fd1, fd2, error);
                }
            }
        }
    }
    result_free(&base);
    for (int i = 0; i < 4; ++i) result_free(&at[i]);
}

static void fd_pair(const char* name, const tbody* a, const tbody* b, int configs, fd_tally* total) {
    const double tolerance = 1e-5;
    for (int blend = 0; blend < 2; ++blend) {
        fd_tally t;
        memset(&t, 0, sizeof t);
        osc_manifold_settings s = osc_manifold_settings_default();
        s.blend = blend;
        for (int config = 0; config < configs; ++config) {
            osc_pose pa, pb;
            touching_poses(a, b, 1.5, 0.03, &pa, &pb);
            fd_config(name, a, pa, b, pb, &s, tolerance, &t);
        }
        printf("  %-28s %-9s %5ld contact-columns (%ld skipped), %6ld of %6ld entries compared: max rel. error "
               "point %.2g, depth %.2g, normal %.2g, weight %.2g\n",
               name, blend ? "blended" : "unblended", t.contacts, t.contacts_skipped, t.checked, t.entries, t.worst[0],
               t.worst[1], t.worst[2], t.worst[3]);
        CHECK_MSG(t.failed == 0, "%s (%s): %ld of %ld compared Jacobian entries disagree with finite differences", name,
                  blend ? "blended" : "unblended", t.failed, t.checked);
        CHECK_MSG(t.contacts >= 12 * configs, "%s: only %ld contact-columns compared", name, t.contacts);
        CHECK_MSG(t.checked >= 0.9 * t.entries, "%s (%s): only %ld of %ld entries converged", name,
                  blend ? "blended" : "unblended", t.checked, t.entries);
        total->checked += t.checked;
        total->entries += t.entries;
        total->jacobian_checks += t.jacobian_checks;
        total->velocity_checks += t.velocity_checks;
        total->edge_checks += t.edge_checks;
        total->worst_velocity = fmax(total->worst_velocity, t.worst_velocity);
        total->worst_formula = fmax(total->worst_formula, t.worst_formula);
        total->worst_off_edge = fmax(total->worst_off_edge, t.worst_off_edge);
    }
}

static void test_finite_differences(void) {
    if (!bunny.body || !sq_union.body) return;
    fd_tally total;
    memset(&total, 0, sizeof total);
    fd_pair("bunny vs bunny (clusters)", &bunny, &bunny_clusters, 4, &total);
    fd_pair("SQ union vs bunny", &sq_union, &bunny, 4, &total);
    fd_pair("bunny (clusters) vs SQ union", &bunny_clusters, &sq_union, 4, &total);
    if (cup.body) fd_pair("cup (XPSQ) vs bunny", &cup, &bunny, 3, &total);
    printf("  contact Jacobians: %ld against the formula (max %.2g), %ld against the point's velocity (max %.2g); "
           "%ld edge contacts on their edges (max off %.2g)\n",
           total.jacobian_checks, total.worst_formula, total.velocity_checks, total.worst_velocity, total.edge_checks,
           total.worst_off_edge);
}

// ---------------------------------------------------------------------------------------------
// 4-5. the broad phase and the batch change nothing

// the first `count` contacts and Jacobian rows of two outputs are equal bit for bit
static bool same_output(const result* x, const result* y, int count) {
    size_t n = (size_t)count;
    return memcmp(x->contacts, y->contacts, n * sizeof(osc_manifold_contact)) == 0 &&
           memcmp(x->point_j, y->point_j, n * 36 * sizeof(double)) == 0 &&
           memcmp(x->distance_j, y->distance_j, n * 12 * sizeof(double)) == 0 &&
           memcmp(x->normal_j, y->normal_j, n * 36 * sizeof(double)) == 0 &&
           memcmp(x->weight_j, y->weight_j, n * 12 * sizeof(double)) == 0;
}

static void broad_phase_pair(const char* name, const tbody* a, const tbody* b, int configs) {
    result on, off;
    result_init(&on, 4096);
    result_init(&off, 4096);
    int compared = 0, nonempty = 0, differ = 0;
    for (int config = 0; config < configs; ++config) {
        osc_pose pa, pb;
        touching_poses(a, b, 1.5, 0.01, &pa, &pb);
        // then apart by up to 0.08: features near and beyond d_max, where the bounds decide
        pb.p = osc_add_scaled(pb.p, random_direction(), test_uniform(&rng, 0.0, 0.08));
        for (int mode = 0; mode < 4; ++mode) {
            osc_manifold_settings s = osc_manifold_settings_default();
            s.blend = mode & 1;
            if (mode & 2) s.d_max = 0.06, s.bandwidth = 0.03;
            s.broad_phase = 1;
            CHECK_STATUS(collide(a, pa, b, pb, &s, &on, true), OSC_OK);
            s.broad_phase = 0;
            CHECK_STATUS(collide(a, pa, b, pb, &s, &off, true), OSC_OK);
            ++compared;
            nonempty += on.count > 0;
            if (on.count != off.count || on.needed != off.needed || !same_output(&on, &off, on.count)) {
                if (differ++ < 3)
                    fprintf(stderr, "  %s: config %d mode %d: broad phase on gives %d contacts, off %d%s\n", name,
                            config, mode, on.count, off.count, on.count == off.count ? " (values differ)" : "");
            }
        }
    }
    printf("  %-28s %d outputs compared with the broad phase on and off (%d not empty)\n", name, compared, nonempty);
    CHECK_MSG(differ == 0, "%s: the broad phase changed %d of %d outputs", name, differ, compared);
    CHECK_MSG(nonempty >= compared / 2, "%s: only %d of %d outputs had contacts", name, nonempty, compared);
    result_free(&on);
    result_free(&off);
}

// the fastest of `repeats` runs of `calls` queries, in seconds
static double time_queries(const tbody* a, osc_pose pa, const tbody* b, osc_pose pb, const osc_manifold_settings* s,
                           result* r, int calls, int repeats) {
    double best = INFINITY;
    for (int k = 0; k < repeats; ++k) {
        double start = test_seconds();
        for (int i = 0; i < calls; ++i) collide(a, pa, b, pb, s, r, false);
        best = fmin(best, test_seconds() - start);
    }
    return best;
}

// a long edge through a small body: the plate's top diagonal (1.7 long) passes through a sphere of
// radius 0.08 whose voxel grid (or spline grid) reaches the plate's corners, where the bound is ~0.8;
// only the L l / 2 term of the edge bound keeps that edge (the paper's §IV-C.2, Fig. 6 right)
static void long_edge_case(const char* name, tbody* plate, tbody* ball) {
    const int32_t* edges = osc_mesh_edges(plate->mesh);
    int32_t diagonal = -1;
    for (int32_t i = 0; i < osc_mesh_edge_count(plate->mesh); ++i)
        if (edges[2 * i] == 5 && edges[2 * i + 1] == 6) diagonal = i;
    CHECK_MSG(diagonal >= 0, "the plate mesh has no edge 5-6");
    result on, off;
    result_init(&on, 4096);
    result_init(&off, 4096);
    int found = 0;
    for (int k = 0; k < 3; ++k) {
        double u = 0.3 + 0.2 * k; // along the diagonal from corner 5 (0.6, -0.6) to corner 6 (-0.6, 0.6)
        osc_pose pb = osc_pose_make(osc_v3(0.6 - 1.2 * u, -0.6 + 1.2 * u, 0.05 + 0.08 - 0.03), random_rotation());
        osc_manifold_settings s = osc_manifold_settings_default();
        s.blend = 0;
        s.broad_phase = 1;
        CHECK_STATUS(collide(plate, osc_pose_identity(), ball, pb, &s, &on, true), OSC_OK);
        s.broad_phase = 0;
        CHECK_STATUS(collide(plate, osc_pose_identity(), ball, pb, &s, &off, true), OSC_OK);
        found += find_contact(&off, 0, OSC_CONTACT_EDGE, diagonal) >= 0;
        CHECK_MSG(find_contact(&on, 0, OSC_CONTACT_EDGE, diagonal) >= 0,
                  "%s: the broad phase dropped the long edge through the sphere (at %g of it)", name, u);
        CHECK_MSG(on.count == off.count && same_output(&on, &off, on.count),
                  "%s: the broad phase changed the output (%d vs %d contacts)", name, on.count, off.count);
    }
    CHECK_MSG(found == 3, "%s: the long edge is a contact in only %d of 3 places without the broad phase", name, found);
    result_free(&on);
    result_free(&off);
}

// bodies far apart, as far as doubles reach: no contacts, never garbage (an SDF body 1e200 away
// gave 1202 contacts with OSC_OK: its superquadric's powers overflowed to NaN); both bodies far
// from the origin but near each other give the answer at the origin (the relative pose is exact)
static void test_far_poses(void) {
    tbody slab, ball, grid_ball;
    osc_sdf *slab_sdf = NULL, *ball_sdf = NULL, *grid_sdf_source = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(osc_v3(1.0, 0.3, 1.0), 0.3, 0.3, &slab_sdf), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.4, &ball_sdf), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.4, &grid_sdf_source), OSC_OK);
    osc_collision_mesh_settings ms = osc_collision_mesh_settings_default();
    ms.target_triangles = 600;
    osc_mesh* slab_mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(slab_sdf, &ms, &slab_mesh), OSC_OK);
    osc_grid_settings gs = osc_grid_settings_default();
    gs.resolution = 24;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(grid_sdf_source, &gs, &grid), OSC_OK);
    osc_sdf_destroy(grid_sdf_source);
    bool ok = tbody_make(&slab, slab_mesh, slab_sdf, NULL, OSC_GROUPS_NONE, 0, true);
    ok &= tbody_make(&ball, sphere_mesh(0.4, 16), ball_sdf, NULL, OSC_GROUPS_NONE, 0, true);
    ok &= tbody_make(&grid_ball, sphere_mesh(0.4, 16), NULL, grid, OSC_GROUPS_NONE, 0, true);
    result r;
    result_init(&r, 4096);
    osc_manifold_settings settings = osc_manifold_settings_default();
    const tbody* partners[2] = {&ball, &grid_ball};
    const double far[] = {1e100, 1e200, 1e300, 1.7e308, -1.7e308};
    for (int k = 0; ok && k < 2; ++k) {
        const char* name = k ? "spline ball" : "SDF ball";
        osc_manifold_output out = {r.contacts, r.capacity, 0, 0, r.point_j, r.distance_j, NULL, NULL};
        osc_pose origin = osc_pose_identity(), near = osc_pose_make(osc_v3(0.1, 0.62, 0.0), osc_quat_identity());
        CHECK_STATUS(osc_manifold_collide(slab.body, origin, partners[k]->body, near, &settings, &out), OSC_OK);
        int32_t touching = out.count;
        double deepest = INFINITY;
        for (int32_t i = 0; i < out.count; ++i) deepest = fmin(deepest, r.contacts[i].distance);
        CHECK_MSG(touching > 0, "%s: no contacts at the origin", name);
        for (size_t f = 0; f < sizeof far / sizeof far[0]; ++f) {
            osc_pose away = osc_pose_make(osc_v3(far[f], 0.62, 0.0), osc_quat_identity());
            osc_status status = osc_manifold_collide(slab.body, origin, partners[k]->body, away, &settings, &out);
            CHECK_MSG(status == OSC_OK && out.count == 0, "%s at x = %g: status %d, %d contacts (%s)", name, far[f],
                      (int)status, (int)out.count, osc_last_error());
            // both far out along x, 0.62 apart in y: the same contacts (their points lose the x
            // digits, the depths do not)
            osc_pose a = osc_pose_make(osc_v3(far[f], 0.0, 0.0), osc_quat_identity());
            osc_pose b = osc_pose_make(osc_v3(far[f], 0.62, 0.0), osc_quat_identity());
            b.p.x += 0.1 * (fabs(far[f]) < 1e15); // (0.1 is lost beyond 1e16 anyway)
            status = osc_manifold_collide(slab.body, a, partners[k]->body, b, &settings, &out);
            double far_deepest = INFINITY;
            int bad = 0;
            for (int32_t i = 0; i < out.count; ++i) {
                far_deepest = fmin(far_deepest, r.contacts[i].distance);
                bad += !isfinite(r.contacts[i].distance) || !isfinite(r.distance_j[12 * i]);
            }
            CHECK_MSG(status == OSC_OK && out.count > 0 && bad == 0 && fabs(far_deepest - deepest) < 0.05,
                      "%s, both at x = %g: status %d, %d contacts (%d at the origin), %d non-finite, deepest %g "
                      "(%g at the origin)",
                      name, far[f], (int)status, (int)out.count, (int)touching, bad, far_deepest, deepest);
        }
    }
    result_free(&r);
    tbody_free(&slab);
    tbody_free(&ball);
    tbody_free(&grid_ball);
}

static void test_long_edges(void) {
    osc_vec3 plate_half = osc_v3(0.6, 0.6, 0.05);
    osc_sdf *plate_sdf = NULL, *sphere = NULL, *sphere2 = NULL;
    CHECK_STATUS(osc_sdf_create_box(plate_half, 0.0, &plate_sdf), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.08, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_sphere(0.08, &sphere2), OSC_OK);
    tbody plate, ball, grid_ball;
    bool ok = tbody_make(&plate, box_mesh(plate_half, osc_v3(0, 0, 0)), plate_sdf, NULL, OSC_GROUPS_NONE, 0, true);
    // the sphere's voxel grid padded to 1 on every side
    memset(&ball, 0, sizeof ball);
    ball.mesh = sphere_mesh(0.08, 12);
    ball.sdf = sphere;
    ball.owns_shape = true;
    osc_body_desc d = osc_body_desc_default();
    d.mesh = ball.mesh;
    d.sdf = sphere;
    d.broad_phase_padding = 1.0;
    CHECK_STATUS(osc_body_create(&d, &ball.body), OSC_OK);
    // and as a spline grid covering the same region
    osc_grid_settings gs = osc_grid_settings_default();
    gs.resolution = 32;
    gs.padding = 0.9;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(sphere2, &gs, &grid), OSC_OK);
    osc_sdf_destroy(sphere2);
    ok &= tbody_make(&grid_ball, sphere_mesh(0.08, 12), NULL, grid, OSC_GROUPS_NONE, 0, true);
    if (ok && ball.body) {
        long_edge_case("long edge through an SDF sphere", &plate, &ball);
        long_edge_case("long edge through a spline sphere", &plate, &grid_ball);
    }
    tbody_free(&plate);
    tbody_free(&ball);
    tbody_free(&grid_ball);
}

static void test_broad_phase(void) {
    test_long_edges();
    if (!bunny.body || !sq_union.body) return;
    broad_phase_pair("bunny vs bunny (clusters)", &bunny, &bunny_clusters, 12);
    broad_phase_pair("SQ union vs bunny (clusters)", &sq_union, &bunny_clusters, 12);
    broad_phase_pair("bunny vs SQ union", &bunny, &sq_union, 12);
    if (cup.body) broad_phase_pair("cup (XPSQ) vs bunny (clusters)", &cup, &bunny_clusters, 6);

    // far apart: nothing within d_max; a d_max that reaches across gives contacts, the same both ways
    result on, off;
    result_init(&on, 4096);
    result_init(&off, 4096);
    osc_pose pa = osc_pose_make(osc_v3(0, 0, 0), random_rotation());
    osc_pose pb = osc_pose_make(osc_v3(2.5, 0.3, 0), random_rotation());
    osc_manifold_settings s = osc_manifold_settings_default();
    s.blend = 0;
    const tbody* pairs[2][2] = {{&bunny, &bunny_clusters}, {&sq_union, &bunny}};
    for (int p = 0; p < 2; ++p) {
        s.d_max = 0.02;
        s.broad_phase = 1;
        CHECK_STATUS(collide(pairs[p][0], pa, pairs[p][1], pb, &s, &on, true), OSC_OK);
        CHECK_MSG(on.count == 0 && on.needed == 0, "far apart: %d contacts within d_max", on.count);
        s.d_max = 4.0;
        CHECK_STATUS(collide(pairs[p][0], pa, pairs[p][1], pb, &s, &on, true), OSC_OK);
        s.broad_phase = 0;
        CHECK_STATUS(collide(pairs[p][0], pa, pairs[p][1], pb, &s, &off, true), OSC_OK);
        int features = osc_body_vertex_count(pairs[p][0]->body) + osc_body_vertex_count(pairs[p][1]->body);
        CHECK_MSG(on.count >= features,
                  "far apart with d_max 4: %d contacts, expected every one of %d vertices at least", on.count,
                  features);
        CHECK_MSG(on.count == off.count && same_output(&on, &off, on.count),
                  "far apart with d_max 4: the broad phase changed the output (%d vs %d contacts)", on.count,
                  off.count);
    }
    // and the broad phase does skip the narrow phase there: the fastest of 7 runs with it is several
    // times faster than without it (measured x100 with per-feature bounds, 2 look-ups per feature
    // against 1-7 SDF evaluations, and x4000 once whole runs of features are skipped at once; 3x
    // leaves room for a busy machine)
    s.d_max = 0.02;
    s.broad_phase = 1;
    double with = time_queries(&bunny, pa, &bunny_clusters, pb, &s, &on, 20, 7);
    s.broad_phase = 0;
    double without = time_queries(&bunny, pa, &bunny_clusters, pb, &s, &on, 20, 7);
    printf("  far apart, 20 queries: %.3g ms with the broad phase, %.3g ms without (x%.1f)\n", 1e3 * with,
           1e3 * without, without / with);
    CHECK_MSG(without >= 3.0 * with, "the broad phase saves little far apart: %.3g s with, %.3g s without", with,
              without);
    result_free(&on);
    result_free(&off);
}

// 4b. (white box) without the broad phase, a settled edge against a spline body is saturated without
// the look at its point where phi at its corners and the spline's global Lipschitz bound rule it out
// (docs/manifold.md, "Settled edges decided at their corners"). The oracle: the spline evaluated here
// at the edge's midpoint. An edge whose corners lie so far outside that both traces settle at
// their first step has its midpoint as its point, so it is reported exactly where
// f_t(phi(midpoint)) > 0, with that distance; a wrong skip drops one. The bound is tight here: a
// needle (a box 0.2 long) pointing at a spline sphere, with small temperatures and d_max 0.5, so
// that its long edges settle with phi(midpoint) = max(phi_a, phi_b) - l / 2 (the bound with
// L = 1, the sphere's |grad phi|, which the spline's bounds exceed) on both sides of d_max.
static void test_corner_bounds(void) {
    osc_sdf *sphere = NULL, *box = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.08, &sphere), OSC_OK);
    osc_vec3 half = osc_v3(0.1, 0.01, 0.01);
    CHECK_STATUS(osc_sdf_create_box(half, 0.0, &box), OSC_OK);
    osc_grid_settings gs = osc_grid_settings_default();
    gs.resolution = 32;
    gs.padding = 1.0;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(sphere, &gs, &grid), OSC_OK);
    osc_sdf_destroy(sphere);
    tbody needle, grid_ball;
    bool ok = tbody_make(&needle, box_mesh(half, osc_v3(0.0, 0.0, 0.0)), box, NULL, OSC_GROUPS_NONE, 0, true);
    ok &= tbody_make(&grid_ball, sphere_mesh(0.08, 12), NULL, grid, OSC_GROUPS_NONE, 0, true);
    if (!ok) {
        tbody_free(&needle), tbody_free(&grid_ball);
        return;
    }
    osc_manifold_settings s = osc_manifold_settings_default();
    s.blend = 0;
    s.broad_phase = 0;
    s.d_max = 0.5;
    s.bandwidth = 0.1;
    s.trace_temperature = s.clip_temperature = 1e-4;
    result r;
    result_init(&r, 4096);
    const osc_mesh* mesh = needle.mesh;
    int32_t edges = osc_mesh_edge_count(mesh);
    const int32_t* ends = osc_mesh_edges(mesh);
    long settled = 0, within = 0, close = 0, tight = 0, wrong = 0;
    double worst_distance = 0.0, worst_point = 0.0;
    for (int pose = 0; pose < 400; ++pose) {
        osc_pose pa = osc_pose_make(osc_v3(0.0, 0.0, 0.0), random_rotation());
        // the sphere on the needle's axis (nearly), its midpoint about d_max from the sphere
        osc_vec3 at = osc_v3(0.18 + test_uniform(&rng, 0.35, 0.45), test_uniform(&rng, -0.02, 0.02),
                             test_uniform(&rng, -0.02, 0.02));
        osc_pose pb = osc_pose_make(osc_pose_apply(pa, at), random_rotation());
        for (int derivatives = 0; derivatives < 2; ++derivatives) {
            CHECK_STATUS(collide(&needle, pa, &grid_ball, pb, &s, &r, derivatives), OSC_OK);
            for (int32_t e = 0; e < edges; ++e) {
                osc_vec3 a = osc_pose_apply_inverse(pb, osc_pose_apply(pa, mesh_vertex(mesh, ends[2 * e])));
                osc_vec3 b = osc_pose_apply_inverse(pb, osc_pose_apply(pa, mesh_vertex(mesh, ends[2 * e + 1])));
                double phi_a = osc_grid_eval(grid, a, NULL, NULL), phi_b = osc_grid_eval(grid, b, NULL, NULL);
                double l = osc_length(osc_sub(b, a));
                // both traces settle at their first step, with a wide margin (docs/manifold.md,
                // "Stopping a trace early": past l by 41 clip temperatures and what 2 steps take back)
                double far = l + 50.0 * s.clip_temperature + 50.0 * s.trace_temperature;
                if (!(phi_a > far && phi_b > far)) continue;
                osc_vec3 mid = osc_scale(osc_add(a, b), 0.5);
                double phi = osc_grid_eval(grid, mid, NULL, NULL);
                if (fabs(phi - s.d_max) < 1e-9) continue; // (the pipeline's points round differently)
                int k = find_contact(&r, 0, OSC_CONTACT_EDGE, e);
                settled += !derivatives;
                within += !derivatives && phi < s.d_max;
                close += !derivatives && fabs(phi - s.d_max) < 0.01;
                tight += !derivatives && fabs(phi - s.d_max) < 0.01 && fmax(phi_a, phi_b) - 0.5 * l > phi - 1e-3;
                if ((k >= 0) != (phi < s.d_max)) {
                    if (wrong++ < 5)
                        printf("  edge %d: phi %.17g at its midpoint (corners %.6g, %.6g, l %.6g) but %s\n", e, phi,
                               phi_a, phi_b, l, k >= 0 ? "reported" : "not reported");
                    continue;
                }
                if (k < 0) continue;
                double depth = osc_mollified_depth(phi, s.d_max, s.bandwidth, NULL, NULL);
                worst_distance = fmax(worst_distance, fabs(r.contacts[k].distance - depth));
                worst_point = fmax(worst_point, osc_length(osc_sub(r.contacts[k].point, osc_pose_apply(pb, mid))));
            }
        }
    }
    printf("  settled edges of a needle against a spline sphere: %ld, %ld with the midpoint within d_max, %ld "
           "within 0.01 of d_max (%ld of them within 1e-3 of the bound with L = 1); %ld wrong; distance %.2g, "
           "point %.2g from the midpoint's\n",
           settled, within, close, tight, wrong, worst_distance, worst_point);
    CHECK_MSG(wrong == 0, "%ld settled edges reported where their midpoint says otherwise", wrong);
    CHECK_MSG(worst_distance < 1e-12 && worst_point < 1e-12, "settled edges: distance off by %.3g, point by %.3g",
              worst_distance, worst_point);
    CHECK_MSG(settled > 1000 && within > 200 && tight > 100,
              "settled edges: only %ld (%ld within d_max, %ld close to it and to the bound)", settled, within, tight);
    result_free(&r);
    tbody_free(&needle);
    tbody_free(&grid_ball);
}

static void test_batch(void) {
    if (!bunny.body) return;
    enum { CONFIGS = 50 };
    osc_pose poses_a[CONFIGS], poses_b[CONFIGS];
    for (int i = 0; i < CONFIGS; ++i) {
        if (i % 5 == 0) {
            touching_poses(&bunny, &bunny_clusters, 1.5, 0.02, &poses_a[i], &poses_b[i]);
        } else { // small random twists of the last touching configuration
            double xi[6];
            for (int k = 0; k < 6; ++k) xi[k] = test_uniform(&rng, -0.03, 0.03);
            poses_a[i] = osc_pose_apply_twist(poses_a[i - i % 5], xi);
            for (int k = 0; k < 6; ++k) xi[k] = test_uniform(&rng, -0.03, 0.03);
            poses_b[i] = osc_pose_apply_twist(poses_b[i - i % 5], xi);
        }
    }
    for (int blend = 0; blend < 2; ++blend) {
        osc_manifold_settings s = osc_manifold_settings_default();
        s.blend = blend;
        result single[CONFIGS];
        int32_t capacity = 1, total = 0;
        for (int i = 0; i < CONFIGS; ++i) {
            result_init(&single[i], 4096);
            CHECK_STATUS(collide(&bunny, poses_a[i], &bunny_clusters, poses_b[i], &s, &single[i], true), OSC_OK);
            if (single[i].needed > capacity) capacity = single[i].needed;
            total += single[i].needed;
        }
        for (int round = 0; round < 2; ++round) {
            // round 0: room for every configuration; round 1: half of the largest
            int32_t cap = round == 0 ? capacity : capacity / 2;
            size_t slots = (size_t)CONFIGS * (size_t)cap;
            result batch;
            memset(&batch, 0, sizeof batch);
            batch.contacts = calloc(slots, sizeof(osc_manifold_contact));
            batch.point_j = calloc(slots * 36, sizeof(double));
            batch.distance_j = calloc(slots * 12, sizeof(double));
            batch.normal_j = calloc(slots * 36, sizeof(double));
            batch.weight_j = calloc(slots * 12, sizeof(double));
            osc_manifold_batch_item items[CONFIGS];
            osc_manifold_output outputs[CONFIGS];
            int32_t counts[CONFIGS], needed[CONFIGS];
            for (int i = 0; i < CONFIGS; ++i) {
                items[i] = (osc_manifold_batch_item){bunny.body, poses_a[i], bunny_clusters.body, poses_b[i]};
                outputs[i] = (osc_manifold_output){batch.contacts + (size_t)i * cap,
                                                   cap,
                                                   0,
                                                   0,
                                                   batch.point_j + (size_t)i * cap * 36,
                                                   batch.distance_j + (size_t)i * cap * 12,
                                                   batch.normal_j + (size_t)i * cap * 36,
                                                   batch.weight_j + (size_t)i * cap * 12};
            }
            osc_status statuses[CONFIGS];
            osc_status status = osc_manifold_collide_batch(items, CONFIGS, &s, outputs, statuses, 2);
            int first_short = -1, mismatches = 0;
            for (int i = 0; i < CONFIGS; ++i) {
                counts[i] = outputs[i].count;
                needed[i] = outputs[i].needed;
                CHECK(statuses[i] == (single[i].needed > cap ? OSC_ERR_CAPACITY : OSC_OK));
                if (single[i].needed > cap && first_short < 0) first_short = i;
                int expect = single[i].needed < cap ? single[i].needed : cap;
                result slot = {cap,
                               counts[i],
                               needed[i],
                               OSC_OK,
                               batch.contacts + (size_t)i * cap,
                               batch.point_j + (size_t)i * cap * 36,
                               batch.distance_j + (size_t)i * cap * 12,
                               batch.normal_j + (size_t)i * cap * 36,
                               batch.weight_j + (size_t)i * cap * 12,
                               NULL,
                               0};
                if (counts[i] != expect || needed[i] != single[i].needed || !same_output(&slot, &single[i], expect)) {
                    if (mismatches++ < 3)
                        fprintf(stderr,
                                "  batch (blend %d, capacity %d): configuration %d has %d / %d contacts "
                                "(single call: %d needed)%s\n",
                                blend, (int)cap, i, (int)counts[i], (int)needed[i], (int)single[i].needed,
                                counts[i] == expect ? ", values differ" : "");
                }
            }
            CHECK_MSG(mismatches == 0,
                      "batch (blend %d, capacity %d): %d of %d configurations differ from the single call", blend,
                      (int)cap, mismatches, CONFIGS);
            if (round == 0) {
                CHECK_STATUS(status, OSC_OK);
            } else {
                char expected[64];
                snprintf(expected, sizeof expected, "item %d:", first_short);
                CHECK_MSG(status == OSC_ERR_CAPACITY && first_short >= 0 && strstr(osc_last_error(), expected),
                          "batch with capacity %d: status %d, message '%s' (expected OSC_ERR_CAPACITY naming %s)",
                          (int)cap, (int)status, osc_last_error(), expected);
            }
            result_free(&batch);
        }
        printf("  batch of %d (blend %d, 2 threads): %d contacts in all, up to %d in one\n", CONFIGS, blend, (int)total,
               (int)capacity);
        // the single call with too little room: the first `capacity` contacts, and how many there were
        int worst = 0;
        for (int i = 1; i < CONFIGS; ++i)
            if (single[i].needed > single[worst].needed) worst = i;
        result small;
        result_init(&small, single[worst].needed / 3);
        CHECK_STATUS(collide(&bunny, poses_a[worst], &bunny_clusters, poses_b[worst], &s, &small, true),
                     OSC_ERR_CAPACITY);
        CHECK_MSG(strstr(osc_last_error(), "capacity") != NULL, "capacity message: %s", osc_last_error());
        CHECK_MSG(small.count == small.capacity && small.needed == single[worst].needed &&
                      same_output(&small, &single[worst], small.count),
                  "capacity %d: wrote %d, needed %d (single call with room: %d)", small.capacity, small.count,
                  small.needed, single[worst].needed);
        result_free(&small);
        for (int i = 0; i < CONFIGS; ++i) result_free(&single[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 7. bad input

static void expect_error(osc_status got, osc_status want, const char* needle, const char* what) {
    const char* message = osc_last_error();
    CHECK_MSG(got == want && message && strstr(message, needle),
              "%s: status %d (expected %d), message '%s' (expected to name '%s')", what, (int)got, (int)want,
              message ? message : "(null)", needle);
}

static void test_bad_input(void) {
    tbody a, b;
    if (!sphere_body(&a, 0.4, 16) || !sphere_body(&b, 0.3, 16)) {
        tbody_free(&a), tbody_free(&b);
        return;
    }
    osc_pose pa = osc_pose_make(osc_v3(0, 0, 0), osc_quat_identity());
    osc_pose pb = osc_pose_make(osc_v3(0.6, 0, 0), osc_quat_identity());
    osc_manifold_settings s = osc_manifold_settings_default();
    result r;
    result_init(&r, 4096);
    osc_manifold_output out = {r.contacts, r.capacity, 0, 0, NULL, NULL, NULL, NULL};
    const osc_status INVALID = OSC_ERR_INVALID_ARGUMENT;
    CHECK_STATUS(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), OSC_OK);
    CHECK_MSG(out.count > 0, "the valid configuration has no contacts");

    expect_error(osc_manifold_collide(NULL, pa, b.body, pb, &s, &out), INVALID, "body a", "NULL body a");
    expect_error(osc_manifold_collide(a.body, pa, NULL, pb, &s, &out), INVALID, "body b", "NULL body b");
    // NULL settings are the defaults: the same contacts, bit for bit
    int32_t with_defaults = out.count;
    osc_manifold_contact* first = malloc((size_t)with_defaults * sizeof *first);
    memcpy(first, r.contacts, (size_t)with_defaults * sizeof *first);
    CHECK_STATUS(osc_manifold_collide(a.body, pa, b.body, pb, NULL, &out), OSC_OK);
    CHECK(out.count == with_defaults && memcmp(first, r.contacts, (size_t)with_defaults * sizeof *first) == 0);
    free(first);
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, NULL), INVALID, "output", "NULL output");
    osc_pose bad = pa;
    bad.p.y = NAN;
    expect_error(osc_manifold_collide(a.body, bad, b.body, pb, &s, &out), INVALID, "pose_a.p", "NaN position");
    bad = pb;
    bad.p.z = INFINITY;
    expect_error(osc_manifold_collide(a.body, pa, b.body, bad, &s, &out), INVALID, "pose_b.p", "infinite position");
    bad = pa;
    bad.q = (osc_quat){0, 0, 0, 0};
    expect_error(osc_manifold_collide(a.body, bad, b.body, pb, &s, &out), INVALID, "pose_a.q", "zero quaternion");
    bad = pb;
    bad.q.x = NAN;
    expect_error(osc_manifold_collide(a.body, pa, b.body, bad, &s, &out), INVALID, "pose_b.q", "NaN quaternion");
    struct {
        const char* name;
        double* field;
        double value;
    } doubles[] = {{"d_max", &s.d_max, -0.01},
                   {"d_max", &s.d_max, NAN},
                   {"bandwidth", &s.bandwidth, -1e-3},
                   {"trace_temperature", &s.trace_temperature, -1e-3},
                   {"clip_temperature", &s.clip_temperature, -1e-3},
                   {"blend_temperature", &s.blend_temperature, -1e-3},
                   {"blend_temperature", &s.blend_temperature, INFINITY}};
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; ++i) {
        double keep = *doubles[i].field;
        *doubles[i].field = doubles[i].value;
        char what[64];
        snprintf(what, sizeof what, "settings %s = %g", doubles[i].name, doubles[i].value);
        expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, doubles[i].name, what);
        *doubles[i].field = keep;
    }
    s.iterations = -1;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, "iterations", "iterations -1");
    s = osc_manifold_settings_default();
    s.blend = 2;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, "settings->blend is 2", "blend 2");
    // the message names the bad switch alone, not a list of every switch
    s = osc_manifold_settings_default();
    s.edges = 3;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, "settings->edges is 3", "edges 3");
    CHECK_MSG(!strstr(osc_last_error(), "blend"), "the message names other switches too: '%s'", osc_last_error());
    s = osc_manifold_settings_default();
    out.capacity = -1;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, "capacity", "capacity -1");
    out.capacity = 4;
    out.contacts = NULL;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), INVALID, "contacts", "NULL contacts");
    out.contacts = r.contacts;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), OSC_ERR_CAPACITY, "capacity",
                 "capacity too small");
    CHECK_MSG(out.count == 4 && out.needed > 4, "capacity 4: count %d, needed %d", out.count, out.needed);
    out.capacity = 0;
    out.contacts = NULL;
    expect_error(osc_manifold_collide(a.body, pa, b.body, pb, &s, &out), OSC_ERR_CAPACITY, "capacity", "capacity 0");
    CHECK_MSG(out.count == 0 && out.needed > 4, "capacity 0: count %d, needed %d", out.count, out.needed);

    // the batch: arguments refused as a whole, an item's failure in its own status
    osc_manifold_batch_item items[4];
    osc_manifold_output outputs[4];
    osc_status statuses[4];
    osc_manifold_contact* contacts = calloc(4 * 4096, sizeof(osc_manifold_contact));
    for (int i = 0; i < 4; ++i) {
        items[i] = (osc_manifold_batch_item){a.body, pa, b.body, pb};
        outputs[i] = (osc_manifold_output){.contacts = contacts + 4096 * i, .capacity = 4096};
    }
    expect_error(osc_manifold_collide_batch(items, 4, &s, outputs, NULL, -1), INVALID, "threads", "batch threads -1");
    expect_error(osc_manifold_collide_batch(NULL, 4, &s, outputs, NULL, 2), INVALID, "items", "batch NULL items");
    expect_error(osc_manifold_collide_batch(items, 4, &s, NULL, NULL, 2), INVALID, "outputs", "batch NULL outputs");
    items[1].a = NULL;
    expect_error(osc_manifold_collide_batch(items, 4, &s, outputs, statuses, 2), INVALID, "item 1: ", "batch NULL a");
    CHECK(strstr(osc_last_error(), "body a"));
    CHECK(statuses[0] == OSC_OK && statuses[1] == INVALID && statuses[2] == OSC_OK && statuses[3] == OSC_OK);
    CHECK(outputs[0].count > 0 && outputs[2].count == outputs[0].count && outputs[3].count == outputs[0].count);
    items[1].a = a.body;
    items[3].pose_b.p.x = NAN;
    expect_error(osc_manifold_collide_batch(items, 4, &s, outputs, statuses, 2), INVALID, "item 3: ", "batch NaN pose");
    CHECK(strstr(osc_last_error(), "pose_b.p"));
    CHECK(statuses[0] == OSC_OK && statuses[1] == OSC_OK && statuses[2] == OSC_OK && statuses[3] == INVALID);
    items[3].pose_b = pb;
    s.bandwidth = -1.0;
    expect_error(osc_manifold_collide_batch(items, 4, &s, outputs, NULL, 2), INVALID, "bandwidth",
                 "batch negative bandwidth");
    s = osc_manifold_settings_default();
    CHECK_STATUS(osc_manifold_collide_batch(NULL, 0, &s, NULL, NULL, 2), OSC_OK);
    free(contacts);

    // bodies
    osc_body* body = (osc_body*)&body; // must be reset to NULL on failure
    osc_body_desc d = osc_body_desc_default();
    d.mesh = a.mesh;
    d.sdf = a.sdf;
    expect_error(osc_body_create(NULL, &body), INVALID, "desc", "NULL desc");
    CHECK(body == NULL);
    expect_error(osc_body_create(&d, NULL), INVALID, "out", "NULL out");
    d.mesh = NULL;
    expect_error(osc_body_create(&d, &body), INVALID, "mesh", "NULL mesh");
    double one_vertex[3] = {0.4, 0, 0};
    osc_mesh* empty = NULL;
    CHECK_STATUS(osc_mesh_create(one_vertex, 1, NULL, 0, &empty), OSC_OK);
    d.mesh = empty;
    expect_error(osc_body_create(&d, &body), INVALID, "empty", "mesh without triangles");
    osc_mesh_destroy(empty);
    empty = NULL;
    if (osc_mesh_create(NULL, 0, NULL, 0, &empty) == OSC_OK) { // a mesh with nothing at all, if it can exist
        d.mesh = empty;
        expect_error(osc_body_create(&d, &body), INVALID, "empty", "mesh without vertices");
        osc_mesh_destroy(empty);
    }
    d.mesh = a.mesh;
    d.sdf = NULL;
    expect_error(osc_body_create(&d, &body), INVALID, "neither", "neither grid nor sdf");
    d.sdf = a.sdf;
    d.grid = bunny_grid;
    if (bunny_grid) expect_error(osc_body_create(&d, &body), INVALID, "both", "both grid and sdf");
    d.grid = NULL;
    // the SDF does not cover the mesh: a sphere of radius 0.5 with the mesh of one of radius 1
    osc_sdf* small = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &small), OSC_OK);
    osc_mesh* big = sphere_mesh(1.0, 12);
    d.mesh = big;
    d.sdf = small;
    expect_error(osc_body_create(&d, &body), INVALID, "does not describe", "SDF smaller than the mesh");
    CHECK(body == NULL);
    // a grid body whose mesh lies outside the grid's region
    if (bunny_grid) {
        osc_mesh* far = scaled_mesh(a.mesh, 1.0, osc_v3(5.0, 0, 0));
        d.mesh = far;
        d.sdf = NULL;
        d.grid = bunny_grid;
        expect_error(osc_body_create(&d, &body), INVALID, "outside the grid", "mesh outside the grid");
        osc_mesh_destroy(far);
        d.grid = NULL;
    }
    osc_mesh_destroy(big);
    osc_sdf_destroy(small);
    d.mesh = a.mesh;
    d.sdf = a.sdf;
    // groups
    int32_t n = osc_mesh_vertex_count(a.mesh), e = osc_mesh_edge_count(a.mesh);
    int32_t* groups = calloc((size_t)n, sizeof(int32_t));
    int32_t* edge_groups = calloc(2 * (size_t)e, sizeof(int32_t));
    d.groups = OSC_GROUPS_GIVEN;
    expect_error(osc_body_create(&d, &body), INVALID, "vertex_groups", "GIVEN without vertex_groups");
    d.vertex_groups = groups;
    groups[n / 2] = -1;
    expect_error(osc_body_create(&d, &body), INVALID, "vertex_groups", "a negative group id");
    groups[n / 2] = n;
    expect_error(osc_body_create(&d, &body), INVALID, "vertex_groups", "a group id >= vertex count");
    for (int32_t i = 0; i < n; ++i) groups[i] = i % 3;
    for (int32_t i = 0; i < e; ++i) edge_groups[2 * i] = 0, edge_groups[2 * i + 1] = -1;
    edge_groups[2 * (e / 2)] = 3; // only groups 0..2 exist
    d.edge_groups = edge_groups;
    expect_error(osc_body_create(&d, &body), INVALID, "edge_groups", "an edge group id out of range");
    edge_groups[2 * (e / 2)] = 0;
    edge_groups[2 * (e / 2) + 1] = -2;
    expect_error(osc_body_create(&d, &body), INVALID, "edge_groups", "a second edge group below -1");
    edge_groups[2 * (e / 2) + 1] = 2;
    CHECK_STATUS(osc_body_create(&d, &body), OSC_OK); // valid now
    CHECK(osc_body_group_count(body) == 3);
    osc_body_destroy(body);
    body = NULL;
    d.edge_groups = NULL;
    d.vertex_groups = NULL;
    d.groups = (osc_group_source)7;
    expect_error(osc_body_create(&d, &body), INVALID, "groups", "groups 7");
    d.groups = OSC_GROUPS_CLUSTER;
    d.group_count = 0;
    expect_error(osc_body_create(&d, &body), INVALID, "group_count", "group_count 0");
    d.group_count = 16;
    if (bunny.body) {
        osc_body_desc g = osc_body_desc_default();
        g.mesh = bunny.mesh;
        g.grid = bunny_grid;
        g.groups = OSC_GROUPS_SDF_LEAVES;
        expect_error(osc_body_create(&g, &body), INVALID, "OSC_GROUPS_SDF_LEAVES", "SDF leaves of a grid");
    }
    d.groups = OSC_GROUPS_NONE;
    d.surface_tolerance = -0.1;
    expect_error(osc_body_create(&d, &body), INVALID, "surface_tolerance", "negative surface tolerance");
    d.surface_tolerance = 0.05;
    d.broad_phase_resolution = 0;
    expect_error(osc_body_create(&d, &body), INVALID, "broad_phase_resolution", "broad-phase resolution 0");
    d.broad_phase_resolution = 32;
    d.broad_phase_padding = NAN;
    expect_error(osc_body_create(&d, &body), INVALID, "broad_phase_padding", "NaN padding");
    d.broad_phase_padding = -1.0;
    d.curve = (osc_curve)9;
    expect_error(osc_body_create(&d, &body), INVALID, "curve", "curve 9");
    d.curve = OSC_CURVE_HILBERT;
    osc_sdf* half_space = NULL;
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &half_space), OSC_OK);
    osc_mesh* slab = box_mesh(osc_v3(0.5, 0.5, 0.1), osc_v3(0, 0, -0.1));
    d.mesh = slab;
    d.sdf = half_space;
    expect_error(osc_body_create(&d, &body), INVALID, "bounded", "an unbounded SDF");
    CHECK(body == NULL);
    osc_mesh_destroy(slab);
    osc_sdf_destroy(half_space);
    free(groups);
    free(edge_groups);
    // NULL bodies in the accessors
    CHECK(osc_body_vertex_count(NULL) == 0 && osc_body_edge_count(NULL) == 0 && osc_body_group_count(NULL) == 0);
    osc_body_vertex_groups(NULL, NULL);
    osc_body_destroy(NULL);
    result_free(&r);
    tbody_free(&a);
    tbody_free(&b);
}

// ---------------------------------------------------------------------------------------------
// 8. convex groups and blending

// the groups of each body's edges from its vertices' groups (an edge joins its corners' groups)
static void check_blending(const char* name, const tbody* bodies[2], osc_pose pose[2],
                           const osc_manifold_settings* blended_settings, double* worst, int* groups_checked,
                           int* partial, int* features) {
    osc_manifold_settings s = *blended_settings;
    result blended, plain;
    result_init(&blended, 16384);
    result_init(&plain, 16384);
    s.blend = 1;
    CHECK_STATUS(collide(bodies[0], pose[0], bodies[1], pose[1], &s, &blended, false), OSC_OK);
    s.blend = 0;
    CHECK_STATUS(collide(bodies[0], pose[0], bodies[1], pose[1], &s, &plain, false), OSC_OK);
    double tau = s.blend_temperature;
    for (int i = 0; i < plain.count; ++i) *partial += plain.contacts[i].weight > 0.0 && plain.contacts[i].weight < 1.0;
    *features += plain.count;
    for (int x = 0; x < 2; ++x) {
        const tbody* f = bodies[x];
        int32_t group_count = osc_body_group_count(f->body), n = osc_mesh_vertex_count(f->mesh);
        int32_t* vgroups = malloc((size_t)n * sizeof(int32_t));
        osc_body_vertex_groups(f->body, vgroups);
        const int32_t* edges = osc_mesh_edges(f->mesh);
        int on_body = 0;
        for (int i = 0; i < blended.count; ++i) on_body += blended.contacts[i].body == x;
        CHECK_MSG(on_body <= group_count, "%s: %d blended contacts on body %d with %d groups", name, on_body, x,
                  group_count);
        for (int32_t g = 0; g < group_count; ++g) {
            // the group's features in the unblended output: every one must be there (none saturated)
            int expected_features = 0, found = 0;
            double ref = INFINITY;
            for (int32_t i = 0; i < n; ++i) expected_features += vgroups[i] == g;
            for (int32_t i = 0; i < osc_mesh_edge_count(f->mesh); ++i)
                expected_features += vgroups[edges[2 * i]] == g || vgroups[edges[2 * i + 1]] == g;
            for (int pass = 0; pass < 2; ++pass) {
                double z = 0, sd = 0, sf = 0, sp[3] = {0, 0, 0}, sn[3] = {0, 0, 0};
                int best = -1;
                for (int i = 0; i < plain.count; ++i) {
                    const osc_manifold_contact* c = &plain.contacts[i];
                    if (c->body != x) continue;
                    bool in = c->kind == OSC_CONTACT_VERTEX
                                  ? vgroups[c->feature] == g
                                  : (vgroups[edges[2 * c->feature]] == g || vgroups[edges[2 * c->feature + 1]] == g);
                    if (!in) continue;
                    if (pass == 0) {
                        ++found;
                        ref = fmin(ref, c->distance);
                        continue;
                    }
                    if (best < 0 || c->distance < plain.contacts[best].distance) best = i;
                    // the softmax numerator: exp(-(d - ref) / tau), times f unless blend_saturated
                    double w = exp(-(c->distance - ref) / tau) * (s.blend_saturated ? 1.0 : c->weight);
                    z += w, sd += w * c->distance, sf += w * c->weight;
                    double p[3] = {c->point.x, c->point.y, c->point.z}, nv[3] = {c->normal.x, c->normal.y, c->normal.z};
                    for (int k = 0; k < 3; ++k) sp[k] += w * c->weight * p[k], sn[k] += w * c->weight * nv[k];
                }
                if (pass == 0) {
                    CHECK_MSG(found == expected_features,
                              "%s: group %d of body %d has %d features, %d in the unblended output", name, (int)g, x,
                              expected_features, found);
                    continue;
                }
                int k = find_contact(&blended, x, OSC_CONTACT_GROUP, g);
                CHECK_MSG(k >= 0, "%s: no blended contact for group %d of body %d", name, (int)g, x);
                if (k < 0 || found == 0) continue;
                const osc_manifold_contact* c = &blended.contacts[k];
                CHECK(c->group == g);
                ++*groups_checked;
                double length = sqrt(sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]);
                double errors[4] = {
                    fabs(c->distance - sd / z), fabs(c->weight - sf / z),
                    osc_length(osc_sub(c->point, osc_v3(sp[0] / sf, sp[1] / sf, sp[2] / sf))),
                    osc_length(osc_sub(c->normal, osc_v3(sn[0] / length, sn[1] / length, sn[2] / length)))};
                if (!(tau > 0.0)) { // the hard blend: the deepest feature
                    const osc_manifold_contact* d = &plain.contacts[best];
                    errors[0] = fabs(c->distance - d->distance), errors[1] = fabs(c->weight - d->weight);
                    errors[2] = osc_length(osc_sub(c->point, d->point));
                    errors[3] = osc_length(osc_sub(c->normal, d->normal));
                }
                for (int q = 0; q < 4; ++q) worst[q] = fmax(worst[q], errors[q]);
                CHECK_MSG(errors[0] <= 1e-12 && errors[1] <= 1e-12 && errors[2] <= 1e-12 && errors[3] <= 1e-12,
                          "%s (tau %g): group %d of body %d: blended depth %.17g weight %.17g; recomputed from %d "
                          "features: errors depth %.3g weight %.3g point %.3g normal %.3g",
                          name, tau, (int)g, x, c->distance, c->weight, found, errors[0], errors[1], errors[2], errors[3]);
            }
        }
        free(vgroups);
    }
    result_free(&blended);
    result_free(&plain);
}

static void test_groups(void) {
    // two separated spheres in a smooth union: each vertex belongs to its own sphere's leaf
    osc_sdf *spheres[2] = {NULL, NULL}, *placed[2] = {NULL, NULL}, *pair = NULL;
    osc_vec3 centres[2] = {osc_v3(-0.45, 0.05, 0.0), osc_v3(0.4, -0.05, 0.1)};
    double radii[2] = {0.3, 0.25};
    for (int i = 0; i < 2; ++i) {
        CHECK_STATUS(osc_sdf_create_sphere(radii[i], &spheres[i]), OSC_OK);
        CHECK_STATUS(
            osc_sdf_create_transformed(spheres[i], osc_pose_make(centres[i], osc_quat_identity()), 1.0, &placed[i]),
            OSC_OK);
    }
    CHECK_STATUS(osc_sdf_create_union((const osc_sdf* const*)placed, 2, 0.01, &pair), OSC_OK);
    for (int i = 0; i < 2; ++i) osc_sdf_destroy(spheres[i]), osc_sdf_destroy(placed[i]);
    osc_mesh* mesh = test_extract_mesh(pair, 24);
    tbody twins;
    if (!tbody_make(&twins, mesh, pair, NULL, OSC_GROUPS_SDF_LEAVES, 0, true)) {
        tbody_free(&twins);
        return;
    }
    int32_t n = osc_mesh_vertex_count(mesh);
    int32_t* groups = malloc((size_t)n * sizeof(int32_t));
    osc_body_vertex_groups(twins.body, groups);
    int wrong = 0, counts[2] = {0, 0};
    for (int32_t i = 0; i < n; ++i) {
        osc_vec3 v = mesh_vertex(mesh, i);
        double d0 = osc_length(osc_sub(v, centres[0])) - radii[0], d1 = osc_length(osc_sub(v, centres[1])) - radii[1];
        int expect = d0 <= d1 ? 0 : 1;
        if (groups[i] != expect)
            ++wrong;
        else
            ++counts[expect];
    }
    CHECK_MSG(osc_body_group_count(twins.body) == 2, "two spheres: %d groups", osc_body_group_count(twins.body));
    CHECK_MSG(wrong == 0 && counts[0] > 50 && counts[1] > 50,
              "two spheres: %d of %d vertices in the wrong group (%d and %d right)", wrong, (int)n, counts[0],
              counts[1]);
    free(groups);

    // blending, recomputed from the unblended contacts of the same configuration: d_max and the
    // band wide enough that no feature saturates and most weights lie strictly inside (0, 1)
    if (bunny_clusters.body) {
        double worst[4] = {0, 0, 0, 0};
        int checked = 0, partial = 0, features = 0;
        const double taus[3] = {0.05, 0.005, 0.0};
        for (int config = 0; config < 6; ++config) {
            osc_pose pose[2];
            touching_poses(&twins, &bunny_clusters, 1.5, 0.02, &pose[0], &pose[1]);
            const tbody* bodies[2] = {&twins, &bunny_clusters};
            osc_manifold_settings s = osc_manifold_settings_default();
            s.d_max = 4.0;
            s.bandwidth = 3.9; // f_t < 1 wherever phi > 0.1
            s.blend_temperature = taus[config % 3];
            s.blend_saturated = config % 2; // both forms, each with every temperature
            check_blending("two spheres vs bunny (clusters)", bodies, pose, &s, worst, &checked, &partial, &features);
        }
        printf("  blending recomputed for %d groups (%d features, %d with 0 < f < 1): max errors depth %.2g, weight "
               "%.2g, point %.2g, normal %.2g\n",
               checked, features, partial, worst[0], worst[1], worst[2], worst[3]);
        CHECK_MSG(checked >= 6 * 10, "only %d blended groups recomputed", checked);
        CHECK_MSG(partial >= features / 2, "only %d of %d features with a weight strictly inside (0, 1)", partial,
                  features);
    }
    tbody_free(&twins);
}

// ---------------------------------------------------------------------------------------------
// 6. smoothness sweeps (Beker et al. 2026 Fig. 10, docs/architecture.md §5)
//
// Two boxes stacked 0.01 deep; the upper one is tilted through the parallel-face configuration,
// slid along x until it overhangs the lower one's edge, and lifted through d_max. Each output is
// followed along the path, contact by contact (matched by body, kind and feature). A contact that
// is absent has depth d_max and weight 0, so the tracked quantities are those that are continuous
// through a contact's appearance: depth, weight W, W x and W n (the paper's n_c = f_t n, and
// J_c = W J); the point x and normal n themselves where W >= 0.5 at both samples. Their path
// derivatives come from the Jacobian column of the path's twist.
// The boxes are superquadric boxes (exponents 0.3): their SDF is C2, unlike osc_sdf_create_box's,
// whose Hessian jumps across the planes that bound its edge regions (and whose gradient jumps on
// its medial planes inside), which would put jumps into the normal's derivative that belong to the
// SDF, not to the pipeline.

enum { Q_DEPTH, Q_WEIGHT, Q_WX, Q_WN, Q_X, Q_N, QUANTITIES };
static const char* quantity_names[QUANTITIES] = {"depth", "W", "W x", "W n", "x", "n"};

typedef struct sweep_stats {
    double c1[QUANTITIES];          // max |f(t + dt) - f(t)| / dt
    double c2[QUANTITIES];          // max |f'(t + dt) - f'(t)| / dt
    double consistency[QUANTITIES]; // max |(f(t + dt) - f(t)) / dt - (f'(t) + f'(t + dt)) / 2|
    double vertex_w;                // max |W(t + dt) - W(t)| / dt of vertex contacts alone
    int pairs;                      // contact-steps compared
} sweep_stats;

// the 14 tracked values of a contact (k < 0: absent) and their derivatives along column `col`;
// `raw` says whether x and n are tracked (present with W >= 0.5)
static bool tracked_values(const result* r, int k, int col, double d_max, double f[14], double g[14]) {
    memset(f, 0, 14 * sizeof(double));
    memset(g, 0, 14 * sizeof(double));
    f[0] = d_max;
    if (k < 0) return false;
    const osc_manifold_contact* c = &r->contacts[k];
    double w = c->weight, x[3] = {c->point.x, c->point.y, c->point.z}, n[3] = {c->normal.x, c->normal.y, c->normal.z};
    bool d = r->weight_j != NULL; // derivatives computed
    double dw = d ? r->weight_j[(size_t)k * 12 + col] : 0.0;
    f[0] = c->distance, g[0] = d ? r->distance_j[(size_t)k * 12 + col] : 0.0;
    f[1] = w, g[1] = dw;
    for (int i = 0; i < 3; ++i) {
        double dx = d ? r->point_j[(size_t)k * 36 + i * 12 + col] : 0.0;
        double dn = d ? r->normal_j[(size_t)k * 36 + i * 12 + col] : 0.0;
        f[2 + i] = w * x[i], g[2 + i] = dw * x[i] + w * dx;
        f[5 + i] = w * n[i], g[5 + i] = dw * n[i] + w * dn;
        f[8 + i] = x[i], g[8 + i] = dx;
        f[11 + i] = n[i], g[11 + i] = dn;
    }
    return w >= 0.5;
}

static const int quantity_of[14] = {Q_DEPTH, Q_WEIGHT, Q_WX, Q_WX, Q_WX, Q_WN, Q_WN,
                                    Q_WN,    Q_X,      Q_X,  Q_X,  Q_N,  Q_N,  Q_N};

static void sweep_step(const result* r0, const result* r1, double dt, int col, double d_max, bool derivatives,
                       sweep_stats* st) {
    for (int side = 0; side < 2; ++side) {
        const result* here = side ? r1 : r0;
        const result* there = side ? r0 : r1;
        for (int i = 0; i < here->count; ++i) {
            const osc_manifold_contact* c = &here->contacts[i];
            int j = find_contact(there, c->body, c->kind, c->feature);
            if (side == 1 && j >= 0) continue; // counted from r0's side
            int k0 = side ? j : i, k1 = side ? i : j;
            double f0[14], g0[14], f1[14], g1[14];
            bool raw = tracked_values(r0, k0, col, d_max, f0, g0);
            raw &= tracked_values(r1, k1, col, d_max, f1, g1);
            ++st->pairs;
            for (int q = 0; q < 14; ++q) {
                int quantity = quantity_of[q];
                if ((quantity == Q_X || quantity == Q_N) && !raw) continue;
                double slope = (f1[q] - f0[q]) / dt;
                st->c1[quantity] = fmax(st->c1[quantity], fabs(slope));
                if (quantity == Q_WEIGHT && c->kind == OSC_CONTACT_VERTEX)
                    st->vertex_w = fmax(st->vertex_w, fabs(slope));
                if (!derivatives) continue;
                st->c2[quantity] = fmax(st->c2[quantity], fabs(g1[q] - g0[q]) / dt);
                st->consistency[quantity] = fmax(st->consistency[quantity], fabs(slope - 0.5 * (g0[q] + g1[q])));
            }
        }
    }
}

typedef enum { PATH_TILT, PATH_SLIDE, PATH_LIFT } path_kind;

// the upper box's pose at path parameter t, and the twist column that moves along the path
static osc_pose path_pose(path_kind kind, double t, double base_z) {
    switch (kind) {
        case PATH_TILT: return osc_pose_make(osc_v3(0.05, 0.02, base_z), osc_quat_from_axis_angle(osc_v3(0, 1, 0), t));
        case PATH_SLIDE: return osc_pose_make(osc_v3(t, 0.02, base_z), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.01));
        case PATH_LIFT:
        default: return osc_pose_make(osc_v3(0.05, 0.02, base_z + t), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.01));
    }
}

static const int path_column[3] = {6 + 4, 6 + 0, 6 + 2}; // B's dtheta_y, dp_x, dp_z

// runs one sweep of `steps` steps over [from, to] with the given settings, in batches of 40 poses
// over 2 threads (the batch equals the single call bit for bit: test_batch)
static sweep_stats run_sweep(const tbody* lower, const tbody* upper, path_kind kind, double from, double to, int steps,
                             double base_z, const osc_manifold_settings* s, bool derivatives, int* max_contacts) {
    enum { CHUNK = 40 };
    const int32_t capacity = 512;
    sweep_stats st;
    memset(&st, 0, sizeof st);
    int32_t features = 0;
    for (int b = 0; b < 2; ++b) {
        const osc_body* body = b ? upper->body : lower->body;
        int32_t most = osc_body_edge_count(body) > osc_body_vertex_count(body) ? osc_body_edge_count(body)
                                                                               : osc_body_vertex_count(body);
        if (most > features) features = most;
    }
    size_t slots = (size_t)CHUNK * capacity;
    osc_manifold_contact* contacts = calloc(slots, sizeof(osc_manifold_contact));
    double* point_j = derivatives ? calloc(slots * 36, sizeof(double)) : NULL;
    double* distance_j = derivatives ? calloc(slots * 12, sizeof(double)) : NULL;
    double* normal_j = derivatives ? calloc(slots * 36, sizeof(double)) : NULL;
    double* weight_j = derivatives ? calloc(slots * 12, sizeof(double)) : NULL;
    result prev, view;
    result_init(&prev, capacity);
    memset(&view, 0, sizeof view);
    result_index(&prev, features);
    double dt = (to - from) / steps;
    osc_manifold_batch_item items[CHUNK];
    osc_manifold_output outputs[CHUNK];
    for (int first = 0; first <= steps; first += CHUNK) {
        int n = steps + 1 - first < CHUNK ? steps + 1 - first : CHUNK;
        for (int i = 0; i < n; ++i) {
            size_t at = (size_t)i * capacity;
            items[i] = (osc_manifold_batch_item){lower->body, osc_pose_identity(), upper->body,
                                                 path_pose(kind, from + (first + i) * dt, base_z)};
            outputs[i] = (osc_manifold_output){contacts + at,
                                               capacity,
                                               0,
                                               0,
                                               derivatives ? point_j + 36 * at : NULL,
                                               derivatives ? distance_j + 12 * at : NULL,
                                               derivatives ? normal_j + 36 * at : NULL,
                                               derivatives ? weight_j + 12 * at : NULL};
        }
        CHECK_STATUS(osc_manifold_collide_batch(items, (size_t)n, s, outputs, NULL, 2), OSC_OK);
        for (int i = 0; i < n; ++i) {
            size_t at = (size_t)i * capacity;
            view.capacity = capacity;
            view.count = outputs[i].count;
            view.contacts = contacts + at;
            view.point_j = derivatives ? point_j + 36 * at : NULL;
            view.distance_j = derivatives ? distance_j + 12 * at : NULL;
            view.normal_j = derivatives ? normal_j + 36 * at : NULL;
            view.weight_j = derivatives ? weight_j + 12 * at : NULL;
            result_index(&view, features);
            if (view.count > *max_contacts) *max_contacts = view.count;
            if (first + i > 0) sweep_step(&prev, &view, dt, path_column[kind], s->d_max, derivatives, &st);
            // keep this sample for the next step
            size_t count = (size_t)view.count;
            prev.count = view.count;
            memcpy(prev.contacts, view.contacts, count * sizeof(osc_manifold_contact));
            if (derivatives) {
                memcpy(prev.point_j, view.point_j, count * 36 * sizeof(double));
                memcpy(prev.distance_j, view.distance_j, count * 12 * sizeof(double));
                memcpy(prev.normal_j, view.normal_j, count * 36 * sizeof(double));
                memcpy(prev.weight_j, view.weight_j, count * 12 * sizeof(double));
            }
            result_index(&prev, features);
        }
    }
    free(view.index);
    result_free(&prev);
    free(contacts);
    free(point_j);
    free(distance_j);
    free(normal_j);
    free(weight_j);
    return st;
}

static void print_sweep(const char* name, const char* mode, const sweep_stats* st, bool derivatives) {
    printf("    %-22s %-16s |df|/dt:", name, mode);
    for (int q = 0; q < QUANTITIES; ++q) printf(" %s %.3g", quantity_names[q], st->c1[q]);
    printf(" (vertex W %.3g)\n", st->vertex_w);
    if (!derivatives) return;
    printf("    %-22s %-16s |df'|/dt:", "", "");
    for (int q = 0; q < QUANTITIES; ++q) printf(" %s %.3g", quantity_names[q], st->c2[q]);
    printf("\n    %-22s %-16s path FD:", "", "");
    for (int q = 0; q < QUANTITIES; ++q) printf(" %s %.2g", quantity_names[q], st->consistency[q]);
    printf("\n");
}

static bool sq_box(tbody* b, osc_vec3 scales, int32_t triangles) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_superquadric(scales, 0.3, 0.3, &sdf), OSC_OK);
    osc_collision_mesh_settings cs = osc_collision_mesh_settings_default();
    cs.resolution = 64;
    cs.target_triangles = triangles;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_collision_mesh_create(sdf, &cs, &mesh), OSC_OK);
    return tbody_make(b, mesh, sdf, NULL, OSC_GROUPS_CLUSTER, 1, true); // one group: the box is convex
}

// Bounds on the smooth pipeline's outputs along each path: |f(t + dt) - f(t)| <= C1 dt and
// |f'(t + dt) - f'(t)| <= C2 dt for each quantity (depth, W, W x, W n, x, n), about twice the
// measured maxima (listed beside them). Where they come from: a vertex contact's depth moves with
// |grad phi| times the feature's speed (|grad phi| <= 1.9 for these superquadrics, which report a
// radial distance; the tilt's lever arm is <= 0.35) and its weight with f_t' <= (15/8) / bandwidth
// = 187.5 times that (vertex W slopes measured: 105, 106 and 353, against 187.5 x 1.9 x speed =
// 125, 125 and 356). Edge contacts are steeper: for an edge with both corners above the surface,
// the trace walks along it away from the surface and each of its 3 steps multiplies the motion by up
// to 1 + (sigma + sigma' phi / tau) |d phi / ds| ~ 2.6 (~17x over 3 steps; smooth, and the path
// differences below agree with the derivatives, but steep), which sets the unblended figures.
// Blended outputs are softmax averages over a group: their slopes are those of the features times
// at most (depth spread) / blend_temperature, far smaller. The second-derivative bounds scale in the
// same way with 1 / bandwidth^2 and 1 / tau^2.
typedef struct sweep_bounds {
    double c1[QUANTITIES], c2[QUANTITIES];
} sweep_bounds;

static const sweep_bounds smooth_bounds[3][2] = {
    // [path][blend]: unblended, blended (the default blending: softmax weights times f)
    {// tilt: measured c1 14.1 1510 473 1510 3.88 5.65, c2 3e4 3.85e6 1.21e6 3.85e6 2160 3070;
     //       blended c1 0.441 0.0257 7.44 0.75 7.44 0.75, c2 25.2 75.5 238 75.9 238 30.4
     {{30, 3000, 1000, 3000, 8, 12}, {6e4, 8e6, 2.5e6, 8e6, 4500, 6500}},
     {{0.9, 0.06, 15, 1.5, 15, 1.5}, {51, 151, 480, 152, 480, 61}}},
    {// slide: measured c1 3.32 361 158 361 2.02 16.4, c2 1730 2.28e5 1e5 2.27e5 159 1020;
     //        blended c1 0.0277 0.0453 0.663 0.344 0.663 0.344, c2 1.56 35.9 32.2 48 42.1 47.4
     {{6.7, 730, 320, 730, 4.1, 33}, {3500, 4.6e5, 2e5, 4.6e5, 320, 2100}},
     {{0.06, 0.091, 1.4, 0.7, 1.4, 0.7}, {3.2, 72, 65, 96, 85, 95}}},
    {// lift: measured c1 32.3 3430 874 3430 9.56 18.9, c2 1.56e5 1.96e7 5.01e6 1.96e7 1.38e4 2.11e4;
     //       blended c1 1.65 159 33.4 159 7.01 2.41, c2 351 5.03e4 1.07e4 5.03e4 4620 1580
     {{65, 6900, 1800, 6900, 20, 38}, {3.2e5, 4e7, 1e7, 4e7, 2.8e4, 4.3e4}},
     {{3.3, 320, 67, 320, 14, 4.9}, {710, 1e5, 2.2e4, 1e5, 9300, 3200}}},
};

static void test_smoothness(void) {
    tbody lower, upper;
    if (!sq_box(&lower, osc_v3(0.6, 0.6, 0.2), 300) || !sq_box(&upper, osc_v3(0.3, 0.25, 0.15), 200)) {
        tbody_free(&lower), tbody_free(&upper);
        return;
    }
    const double base_z = 0.2 + 0.15 - 0.01; // the upper box's bottom 0.01 below the lower's top
    // tilt: through parallel faces at 0; slide: the upper box's edge passes the lower's at x = 0.3;
    // lift: every feature leaves d_max (the deepest starts ~0.012 deep)
    struct {
        const char* name;
        path_kind kind;
        double from, to;
        int steps;
    } paths[3] = {{"tilt -0.05..0.05 rad", PATH_TILT, -0.05, 0.05, 2000},
                  {"slide x 0.2..0.45", PATH_SLIDE, 0.2, 0.45, 1000},
                  {"lift 0..0.036", PATH_LIFT, 0.0, 0.036, 1200}};
    for (int p = 0; p < 3; ++p) {
        int steps = paths[p].steps;
        double dt = (paths[p].to - paths[p].from) / steps;
        printf("  %s (%d steps)\n", paths[p].name, steps);
        for (int blend = 1; blend >= 0; --blend) {
            const char* mode = blend ? "blended" : "unblended";
            osc_manifold_settings smooth = osc_manifold_settings_default();
            smooth.blend = blend;
            osc_manifold_settings hard = hard_settings(3);
            hard.d_max = smooth.d_max; // the same features, with hard operators
            hard.blend = blend;
            int most = 0;
            sweep_stats st = run_sweep(&lower, &upper, paths[p].kind, paths[p].from, paths[p].to, steps, base_z,
                                       &smooth, true, &most);
            sweep_stats sh = run_sweep(&lower, &upper, paths[p].kind, paths[p].from, paths[p].to, steps, base_z, &hard,
                                       false, &most);
            print_sweep(paths[p].name, blend ? "smooth blended" : "smooth", &st, true);
            print_sweep(paths[p].name, blend ? "hard blended" : "hard", &sh, false);
            const sweep_bounds* bound = &smooth_bounds[p][blend];
            CHECK_MSG(st.pairs >= steps, "%s (%s): only %d contact-steps", paths[p].name, mode, st.pairs);
            for (int q = 0; q < QUANTITIES; ++q) {
                CHECK_MSG(st.c1[q] <= bound->c1[q], "%s (%s): %s jumps: max |df| / dt = %.4g > %.4g", paths[p].name,
                          mode, quantity_names[q], st.c1[q], bound->c1[q]);
                CHECK_MSG(st.c2[q] <= bound->c2[q], "%s (%s): the derivative of %s jumps: max |df'| / dt = %.4g > %.4g",
                          paths[p].name, mode, quantity_names[q], st.c2[q], bound->c2[q]);
                // the difference quotient is the mean of f' over the step: within C2 dt / 2 of the
                // mean of its ends when f' is C2-Lipschitz
                CHECK_MSG(st.consistency[q] <= 0.5 * bound->c2[q] * dt,
                          "%s (%s): %s's path derivative disagrees with its differences by %.4g (allowed %.4g)",
                          paths[p].name, mode, quantity_names[q], st.consistency[q], 0.5 * bound->c2[q] * dt);
            }
            // the same sweep with the hard operators does jump
            if (blend) {
                double ratio = 0.0;
                for (int q = Q_WEIGHT; q < QUANTITIES; ++q)
                    if (st.c1[q] > 0.0) ratio = fmax(ratio, sh.c1[q] / st.c1[q]);
                printf("    hard / smooth max |df| / dt: x%.0f\n", ratio);
                CHECK_MSG(ratio >= 10.0,
                          "%s (blended): the hard pipeline's largest step is only %.3g x the smooth one's",
                          paths[p].name, ratio);
            } else {
                printf("    hard / smooth max |dW| / dt of vertex contacts: x%.0f; hard max |dW| %.3g\n",
                       sh.vertex_w / st.vertex_w, sh.c1[Q_WEIGHT] * dt);
                CHECK_MSG(sh.vertex_w >= 10.0 * st.vertex_w,
                          "%s: the hard vertex weights step by only %.3g x the smooth ones' (%.3g)", paths[p].name,
                          sh.vertex_w / st.vertex_w, st.vertex_w);
                CHECK_MSG(sh.c1[Q_WEIGHT] * dt >= 0.99, "%s: no contact of the hard pipeline appears or disappears",
                          paths[p].name);
            }
        }
    }
    tbody_free(&lower);
    tbody_free(&upper);
}

// test 9: random points of the bunny grid's region, half of them within two cells of its collision
// mesh: the voxel bounds (body_bounds_at) hold phi as evaluated, and where phi > 0 the gradient is
// within the bound of the point's Lipschitz block and the body's global one; and along random short
// segments, within the bound of the box of blocks between the ends' (body_segment_lipschitz)
static void test_body_bounds(void) {
    if (!bunny.body || !bunny_grid) return;
    const osc_body* body = bunny.body;
    test_rng local = {0x626f756e6473ull}; // its own sequence: the other tests' draws are unchanged
    osc_vec3 lo, hi;
    osc_grid_bounds(bunny_grid, &lo, &hi);
    double cell = osc_grid_cells(bunny_grid, NULL);
    const double* vertices = osc_mesh_vertices(bunny.mesh);
    int32_t vertex_count = osc_mesh_vertex_count(bunny.mesh);
    int bad_value = 0, bad_gradient = 0, bad_segment = 0, positive = 0, samples = 0;
    double gap = 0.0, ratio = 0.0, segment_ratio = 0.0;
    for (int n = 0; n < 200000; ++n) {
        osc_vec3 y;
        if (n % 2) {
            y = osc_v3(test_uniform(&local, lo.x, hi.x), test_uniform(&local, lo.y, hi.y),
                       test_uniform(&local, lo.z, hi.z));
        } else {
            const double* v = vertices + 3 * (size_t)(test_rng_next(&local) % (uint64_t)vertex_count);
            y = osc_v3(v[0] + test_uniform(&local, -2, 2) * cell, v[1] + test_uniform(&local, -2, 2) * cell,
                       v[2] + test_uniform(&local, -2, 2) * cell);
        }
        double upper;
        int32_t block;
        double lower = body_bounds_at(body, y, &upper, &block);
        if (block < 0) continue; // outside the region (clamped voxels)
        osc_vec3 gradient;
        double phi = osc_grid_eval(bunny_grid, y, &gradient, NULL);
        samples++;
        bad_value += !(lower <= phi && phi <= upper);
        gap += phi - lower;
        if (!(phi > 0.0)) continue;
        positive++;
        double slope = osc_length(gradient), own = body_segment_lipschitz(body, block, block);
        bad_gradient += !(slope <= own && slope <= body->edge_lipschitz);
        ratio = fmax(ratio, slope / own);
        // a segment to a point up to one block away along each axis, both in the region
        osc_vec3 z = osc_v3(y.x + test_uniform(&local, -4, 4) * cell, y.y + test_uniform(&local, -4, 4) * cell,
                            y.z + test_uniform(&local, -4, 4) * cell);
        double unused;
        int32_t other;
        body_bounds_at(body, z, &unused, &other);
        if (other < 0) continue;
        double along = body_segment_lipschitz(body, block, other);
        for (int k = 0; k <= 8; ++k) {
            osc_vec3 x = osc_lerp(y, z, k / 8.0), g;
            if (!(osc_grid_eval(bunny_grid, x, &g, NULL) > 0.0)) continue;
            bad_segment += !(osc_length(g) <= along);
            segment_ratio = fmax(segment_ratio, osc_length(g) / along);
        }
    }
    printf("  body bounds: %d points in the region, %d with phi > 0: mean phi - lower bound %.3g cells, largest "
           "|grad phi| / block bound %.3f, / segment bound %.3f; global bound %.3f\n",
           samples, positive, gap / samples / cell, ratio, segment_ratio, body->edge_lipschitz);
    CHECK_MSG(samples > 100000 && positive > 10000, "too few samples (%d, %d with phi > 0)", samples, positive);
    CHECK_MSG(bad_value == 0, "%d points lie outside their voxel's bounds", bad_value);
    CHECK_MSG(bad_gradient == 0, "%d points have |grad phi| above their block's bound", bad_gradient);
    CHECK_MSG(bad_segment == 0, "%d segment points have |grad phi| above the bound of their box of blocks",
              bad_segment);
}

// the blocks of each group's features (a ball beyond d_max rules out the block: the ball must hold
// every feature, and the blocks must cover each group's vertices and edge list in order), and the
// one-look-up Lipschitz bound of small balls against the largest block bound over the box of blocks
// the clamped ball touches (the exact bound) and against |grad phi| sampled in the ball
static void test_body_blocks(void) {
    if (!bunny_clusters.body || !bunny_grid) return;
    const osc_body* body = bunny_clusters.body;
    int bad_cover = 0, bad_order = 0, blocks = 0;
    for (int edges = 0; edges < 2; ++edges)
        for (int32_t g = 0; g < body->group_count; ++g) {
            const int32_t* start = edges ? body->group_edge_block_start : body->group_vertex_block_start;
            const int32_t* first = edges ? body->edge_block_first : body->vertex_block_first;
            const double* spheres = edges ? body->group_edge_blocks : body->group_vertex_blocks;
            const int32_t* range = edges ? body->group_edge_start : body->group_vertex_start;
            bad_order += first[start[g]] != range[g] || first[start[g + 1]] != range[g + 1];
            for (int32_t k = start[g]; k < start[g + 1]; ++k) {
                blocks++;
                bad_order += !(first[k] < first[k + 1] && first[k + 1] - first[k] <= OSC_BODY_GROUP_BLOCK);
                const double* c = spheres + 4 * (size_t)k;
                for (int32_t i = first[k]; i < first[k + 1]; ++i)
                    for (int corner = 0; corner < (edges ? 2 : 1); ++corner) {
                        const double* v = edges ? body->edges + 6 * (size_t)body->group_edges[i] + 3 * corner
                                                : body->vertices + 3 * (size_t)i;
                        double r = sqrt((v[0] - c[0]) * (v[0] - c[0]) + (v[1] - c[1]) * (v[1] - c[1]) +
                                        (v[2] - c[2]) * (v[2] - c[2]));
                        bad_cover += !(r <= c[3] * (1.0 + 1e-12));
                    }
            }
        }
    CHECK_MSG(blocks > 0 && bad_order == 0, "%d of %d feature blocks out of order", bad_order, blocks);
    CHECK_MSG(bad_cover == 0, "%d features outside their block's sphere", bad_cover);

    test_rng local = {0x626c6f636b73ull};
    osc_vec3 lo, hi;
    osc_grid_bounds(bunny_grid, &lo, &hi);
    double cell = osc_grid_cells(bunny_grid, NULL), span = OSC_BODY_BLOCK * cell;
    int balls = 0, looser = 0, bad_exact = 0, bad_sample = 0;
    for (int n = 0; n < 20000; ++n) {
        // centres in and around the region, radii up to two blocks' sides
        osc_vec3 c = osc_v3(test_uniform(&local, lo.x - span, hi.x + span),
                            test_uniform(&local, lo.y - span, hi.y + span),
                            test_uniform(&local, lo.z - span, hi.z + span));
        double radius = test_uniform(&local, 0.0, 2.0 * span), bound = body_ball_lipschitz(body, c, radius);
        // the exact bound: the blocks of the ball's box clamped to the region, with the unit slope outside
        double p[3] = {c.x - lo.x, c.y - lo.y, c.z - lo.z}, extent[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
        int from[3], to[3];
        bool leaves = false;
        for (int a = 0; a < 3; ++a) {
            leaves |= p[a] - radius < 0.0 || p[a] + radius > extent[a];
            double x0 = fmin(fmax(p[a] - radius, 0.0), extent[a]), x1 = fmin(fmax(p[a] + radius, 0.0), extent[a]);
            from[a] = (int)fmin(x0 / span, body->blocks[a] - 1), to[a] = (int)fmin(x1 / span, body->blocks[a] - 1);
        }
        double exact = 0.0;
        for (int k = from[2]; k <= to[2]; ++k)
            for (int j = from[1]; j <= to[1]; ++j)
                for (int i = from[0]; i <= to[0]; ++i)
                    exact = fmax(exact, body->block_lipschitz[((size_t)k * body->blocks[1] + j) * body->blocks[0] + i]);
        if (leaves) exact = sqrt(exact * exact + 1.0);
        balls++;
        bad_exact += !(bound >= exact);
        looser += bound > exact;
        // |grad phi| where phi > 0 at points of the ball inside the region
        for (int m = 0; m < 8; ++m) {
            osc_vec3 x = osc_add(c, osc_scale(osc_v3(test_uniform(&local, -1, 1), test_uniform(&local, -1, 1),
                                                     test_uniform(&local, -1, 1)),
                                              radius / sqrt(3.0))),
                     g;
            if (x.x < lo.x || x.y < lo.y || x.z < lo.z || x.x > hi.x || x.y > hi.y || x.z > hi.z) continue;
            if (!(osc_grid_eval(bunny_grid, x, &g, NULL) > 0.0)) continue;
            bad_sample += !(osc_length(g) <= bound);
        }
    }
    printf("  feature blocks: %d; small balls: %d, the one-look-up bound looser than the box's in %d\n", blocks,
           balls, looser);
    CHECK_MSG(bad_exact == 0, "%d balls got a bound below the largest bound of their box of blocks", bad_exact);
    CHECK_MSG(bad_sample == 0, "%d sampled points have |grad phi| above their ball's bound", bad_sample);

    // the largest bound over a box of blocks from the windows of one or two blocks (the segments'
    // bound, body_segment_lipschitz) against the blocks one by one: equal, for boxes of 1 to 6
    // blocks along each axis anywhere in the region (its last blocks included)
    int boxes = 0, bad_box = 0;
    for (int n = 0; n < 20000; ++n) {
        int from[3], to[3];
        for (int a = 0; a < 3; ++a) {
            int size = 1 + (int)(test_rng_next(&local) % 6u);
            size = size < body->blocks[a] ? size : body->blocks[a];
            from[a] = (int)(test_rng_next(&local) % (uint64_t)(body->blocks[a] - size + 1));
            to[a] = from[a] + size - 1;
        }
        double exact = 0.0;
        for (int k = from[2]; k <= to[2]; ++k)
            for (int j = from[1]; j <= to[1]; ++j)
                for (int i = from[0]; i <= to[0]; ++i)
                    exact = fmax(exact, body->block_lipschitz[((size_t)k * body->blocks[1] + j) * body->blocks[0] + i]);
        bool flip = n % 2; // the ends in either order, and corners swapped along an axis
        int32_t a_key = from[0] | (flip ? to[1] : from[1]) << 10 | from[2] << 20;
        int32_t b_key = to[0] | (flip ? from[1] : to[1]) << 10 | to[2] << 20;
        double bound = flip ? body_segment_lipschitz(body, b_key, a_key) : body_segment_lipschitz(body, a_key, b_key);
        boxes++;
        bad_box += bound != exact;
    }
    printf("  boxes of blocks: %d, the windows' bound differs from the blocks' largest in %d\n", boxes, bad_box);
    CHECK_MSG(boxes > 0 && bad_box == 0, "%d of %d boxes got another bound than their blocks' largest", bad_box, boxes);
}

// the broad phase's ball tests many at a time (body_balls_beyond): the AVX2 lanes give the verdicts
// of the one-ball test (body_ball_beyond) on balls small and big, inside, across and outside the
// grid's region, in random poses and at several d_max, with counts that leave tails of 1-3 balls;
// and every ball ruled out has phi > d_max at points sampled in it (the spline as evaluated, with its
// continuation outside the region)
static void test_body_balls(void) {
    if (!bunny_clusters.body || !bunny_grid) return;
    const osc_body* body = bunny_clusters.body;
    test_rng local = {0x62616c6c73ull};
    osc_vec3 lo, hi;
    osc_grid_bounds(bunny_grid, &lo, &hi);
    double cell = osc_grid_cells(bunny_grid, NULL), span = OSC_BODY_BLOCK * cell;
    osc_vec3 size = osc_sub(hi, lo);
    enum { MOST = 67 };
    double balls[4 * MOST];
    bool portable[MOST], lanes[MOST];
    bool have_lanes = body_balls_beyond_lanes();
    int tested = 0, ruled = 0, mismatched = 0, bad_sample = 0, samples = 0;
    for (int n = 0; n < 3000; ++n) {
        osc_quat q = osc_quat_normalize((osc_quat){test_uniform(&local, -1, 1), test_uniform(&local, -1, 1),
                                                   test_uniform(&local, -1, 1), test_uniform(&local, -1, 1)});
        osc_mat3 rel_r = osc_quat_to_mat3(q);
        osc_vec3 rel_p = osc_v3(test_uniform(&local, -0.5, 0.5) * size.x, test_uniform(&local, -0.5, 0.5) * size.y,
                                test_uniform(&local, -0.5, 0.5) * size.z);
        double d_max = (n % 3) * cell;
        int count = 1 + (int)(test_rng_next(&local) % MOST);
        for (int k = 0; k < count; ++k) {
            // centres in the body's frame in and around the region, radii up to 3 blocks' sides (a
            // tenth of them up to 12: the big balls' own bounds, one by one)
            balls[4 * k] = test_uniform(&local, lo.x - 0.3 * size.x, hi.x + 0.3 * size.x);
            balls[4 * k + 1] = test_uniform(&local, lo.y - 0.3 * size.y, hi.y + 0.3 * size.y);
            balls[4 * k + 2] = test_uniform(&local, lo.z - 0.3 * size.z, hi.z + 0.3 * size.z);
            balls[4 * k + 3] = test_uniform(&local, 0.0, (k % 10 == 9 ? 12.0 : 3.0) * span);
        }
        body_balls_beyond_portable(body, &rel_r, rel_p, balls, count, d_max, portable);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        if (have_lanes) body_balls_beyond_avx2(body, &rel_r, rel_p, balls, count, d_max, lanes);
#endif
        for (int k = 0; k < count; ++k) {
            const double* ball = balls + 4 * k;
            osc_vec3 c = osc_add(osc_mat3_apply(rel_r, osc_v3(ball[0], ball[1], ball[2])), rel_p);
            tested++;
            mismatched += portable[k] != body_ball_beyond(body, c, ball[3], d_max, NULL);
            if (have_lanes) mismatched += lanes[k] != portable[k];
            if (!portable[k]) continue;
            ruled++;
            for (int m = 0; m < 4; ++m) {
                osc_vec3 u = osc_v3(test_uniform(&local, -1, 1), test_uniform(&local, -1, 1), test_uniform(&local, -1, 1));
                double length = osc_length(u);
                if (!(length > 0.0 && length <= 1.0)) continue;
                osc_vec3 x = osc_add(c, osc_scale(u, ball[3])); // a point of the ball
                samples++;
                bad_sample += !(osc_grid_eval(bunny_grid, x, NULL, NULL) > d_max);
            }
        }
    }
    printf("  balls: %d tested (%s), %d ruled out, %d points sampled in them\n", tested,
           have_lanes ? "AVX2 lanes and one by one" : "one by one only", ruled, samples);
    CHECK_MSG(ruled > tested / 10 && ruled < tested - tested / 10, "%d of %d balls ruled out", ruled, tested);
    CHECK_MSG(mismatched == 0, "%d verdicts differ between the paths", mismatched);
    CHECK_MSG(bad_sample == 0, "%d points of balls ruled out have phi <= d_max", bad_sample);
}

int main(void) {
    double start = test_seconds();
    build_models();
    RUN(test_closed_form_spheres);
    RUN(test_closed_form_box_on_plate);
    RUN(test_bunny_brute_force);
    RUN(test_finite_differences);
    RUN(test_broad_phase);
    RUN(test_corner_bounds);
    RUN(test_batch);
    RUN(test_smoothness);
    RUN(test_bad_input);
    RUN(test_far_poses);
    RUN(test_groups);
    RUN(test_body_bounds);
    RUN(test_body_blocks);
    RUN(test_body_balls);
    free_models();
    printf("%.1f s\n", test_seconds() - start);
    return test_finish();
}
