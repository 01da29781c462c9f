// manifold.c: the contact pipeline of Beker et al. 2026 §IV between two bodies: broad phase (§IV-C.2),
// vertex-SDF and sphere-traced edge-SDF contacts (§IV-B), mollification at d_max (§IV-C.1) and
// softmax blending within convex groups (§IV-D.2), with the exact derivatives of every output with
// respect to both poses carried as forward-mode tangents, one per direction of the twist of the
// body whose features are traced (6 columns), expanded to the output's 12 (A's twist, then B's) at
// emission. The derivation is docs/manifold.md; the equation tags below refer to it.

#include "grid_internal.h"
#include "manifold_internal.h"
#include "query_internal.h"
#include "osculate/smooth.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

// tangent columns: the twist (dp_F, dtheta_F) of the current direction's f body; every quantity
// before emission depends on the relative pose only, so s's columns follow from these
// (docs/manifold.md, "Six tangent columns"; expand_tangents). The arrays and loops have COLUMNS,
// two whole AVX vectors: the last two columns are zero seeds, kept zero by every (linear) step,
// and never read (with 6 GCC leaves the loops scalar)
#define TWIST_COLUMNS 6
#define COLUMNS 8
// before a loop over the columns: keeps it a loop, which GCC vectorises (it unrolls a loop of 8
// short steps whole, and then leaves most of it scalar)
#if defined(__GNUC__) && !defined(__clang__)
#define COLUMN_LOOP _Pragma("GCC unroll 1")
#else
#define COLUMN_LOOP
#endif
#define OUTPUT_COLUMNS 12 // the output's: (dp_A, dtheta_A, dp_B, dtheta_B)

osc_manifold_settings osc_manifold_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_manifold_settings){.d_max = 0.02,
                                   .bandwidth = 0.01,
                                   .trace_temperature = 0.002,
                                   .clip_temperature = 0.002,
                                   .blend_temperature = 0.005,
                                   .iterations = 3,
                                   .blend = 1,
                                   .broad_phase = 1,
                                   .edges = 1};
}

osc_manifold_settings osc_manifold_settings_for_size(double size) {
    osc_manifold_settings s = osc_manifold_settings_default();
    double scale = size > 0.0 ? size : NAN;
    s.d_max *= scale;
    s.bandwidth *= scale;
    s.trace_temperature *= scale;
    s.clip_temperature *= scale;
    s.blend_temperature *= scale;
    return s;
}

static int32_t body_max_contacts(const osc_body* f, const osc_manifold_settings* settings) {
    if (settings->blend && f->group_count > 0) return f->group_count;
    return f->vertex_count + (settings->edges ? f->edge_count : 0);
}

int32_t osc_manifold_max_contacts(const osc_body* a, const osc_body* b, const osc_manifold_settings* settings) {
    if (!a || !b) return 0;
    osc_manifold_settings defaults = osc_manifold_settings_default();
    if (!settings) settings = &defaults;
    return body_max_contacts(a, settings) + body_max_contacts(b, settings);
}

// One direction of the pipeline: the features of body `f` against the SDF of body `s`. Feature
// points are mapped into s's frame once: y = R_S^T (R_F v + p_F - p_S) = rel_r v + rel_p.
typedef struct direction {
    const osc_body* f;
    const osc_body* s;
    osc_mat3 r_s;         // R_S
    osc_vec3 p_s;         // p_S
    osc_mat3 rel_r;       // R_S^T R_F
    osc_vec3 rel_p;       // R_S^T (p_F - p_S)
    int col_f, col_s;     // first output column of each body's twist
    double sign;          // the normal from A to B is sign R_S n_S (-1 when s is B)
    double length_margin; // above the rounding of an edge's length between its s-frame corners
    int body;             // 0: f is A
} direction;

// The result of one feature (vertex or edge) with its tangents (filled only with derivatives).
typedef struct feature {
    double distance, weight; // mollified distance d_c and transition weight f_t
    osc_vec3 point;          // world contact point
    osc_vec3 normal;         // world unit normal from A to B
    double d_distance[COLUMNS], d_weight[COLUMNS];
    double d_point[3][COLUMNS], d_normal[3][COLUMNS];
    bool tangents; // the tangents above are filled (with derivatives, unless the feature's blend
                   // weight is negligible: tangents_negligible); last, which keeps their offsets
} feature;

// The broad phase's verdicts on runs of stored vertices (the current run: a group's vertices are
// contiguous) and of stored edges (a small direct-mapped table: a group's edges come from runs all
// over the curve, so its visits go back and forth between them).
#define EDGE_RUN_TABLE 128
typedef struct runs {
    int32_t vertex_run;               // which run the verdict is for (-1: none yet)
    bool vertex_skip;                 // the whole run lies beyond d_max
    int32_t edge_run[EDGE_RUN_TABLE]; // -1: empty
    bool edge_skip[EDGE_RUN_TABLE];
    double edge_run_lipschitz[EDGE_RUN_TABLE];
    double edge_lipschitz;    // bound on |grad phi| over the last edge run's ball (where phi > 0)
    bool vertex_bounds_known; // the corner table holds the group's vertices' bounds (group_corners):
                              // their own bounds decide, without their runs' spheres
} runs;

// What is known at a stored vertex of f (a vertex feature or an edge corner) in the current
// direction: its s-frame point y, the broad phase's bounds there, and phi (with its gradient). A
// corner is shared by about six edges, consecutive edges along the curve share corners, and a
// group's edges mostly have its own vertices as corners, so a small direct-mapped table keyed by the
// stored vertex position saves most of this work; an entry gives exactly the bits a fresh
// computation would (same point, same function)
typedef struct corner {
    int32_t vertex; // the stored vertex (-1: empty)
    int32_t block;  // the Lipschitz block of y's voxel (body_bounds_at; -1: none)
    bool has_bounds, has_phi, has_gradient;
    double lower, upper; // the broad phase's bounds at y (body_bounds_at)
    double phi;
    osc_vec3 y, gradient;
} corner;

#define CORNER_CACHE 256
typedef struct corner_table {
    corner entry[CORNER_CACHE];
} corner_table;

// stored edges in two groups' lists, met once in the current direction: the second visit takes the
// first's result (it depends on the edge and the poses only), a saturated edge's verdict or an
// active edge's feature from a small pool (when there is room; else it is computed again, which gives
// the same bits). Direct-mapped, keyed by edge.
#define SHARED_EDGES 512
#define SHARED_POOL 64 // features kept (37 KB with their tangents)
enum { SHARED_SATURATED = -2, SHARED_NOT_KEPT = -1 };
typedef struct shared_edges {
    int32_t edge[SHARED_EDGES];   // -1: empty
    int16_t result[SHARED_EDGES]; // SHARED_SATURATED, SHARED_NOT_KEPT or the feature's pool slot
    int16_t free_count;           // pool slots not in use, listed in free_slots
    int16_t free_slots[SHARED_POOL];
    feature pool[SHARED_POOL];
} shared_edges;

// the tangents of the s-frame points of stored vertices (point_tangents) met in the current
// direction, for the edges that have them as corners (about six each): direct-mapped, keyed by vertex
#define TANGENT_CACHE 64
typedef struct corner_tangents {
    int32_t vertex[TANGENT_CACHE]; // -1: empty
    double dy[TANGENT_CACHE][3][COLUMNS];
} corner_tangents;

typedef struct pipeline {
    const osc_manifold_settings* settings;
    bool derivatives;
    osc_pose pose[2]; // A, B
    osc_manifold_output* out;
    corner_table* cache;       // the current direction's corner values
    shared_edges* shared;      // and its saturated shared edges
    corner_tangents* tangents; // and its corners' point tangents
    // with derivatives and blending: a feature of the current group whose mollified distance is
    // above this needs no tangents (its blend weight is negligible: blend_cutoff); +INFINITY: all do
    double tangent_cutoff;
} pipeline;

// ---------------------------------------------------------------------------------------------
// SDF evaluation in the s body's frame

static inline double sdf_value(const osc_body* s, osc_vec3 y, osc_vec3* gradient) {
    if (!s->grid) return osc_sdf_eval(s->sdf, y, gradient, NULL);
    return gradient ? grid_distance_gradient_at(s->grid, &y, gradient) : grid_distance(s->grid, &y);
}

// phi with its gradient, the unit normal n and, with derivatives, dn/dy (docs/manifold.md eq. N):
// spline bodies normalise their normal field m: dn = (I - n n^T) dm / |m|; SDF bodies use
// m = grad phi, dm = Hessian. A zero m gives a zero normal and Jacobian.
static double sdf_contact(const osc_body* s, osc_vec3 y, bool derivatives, osc_vec3* gradient, osc_vec3* normal,
                          osc_mat3* normal_jacobian) {
    osc_vec3 m;
    osc_mat3 dm = osc_mat3_zero();
    double phi;
    if (s->grid) {
        phi = grid_eval_contact(s->grid, &y, derivatives, gradient, &m, &dm);
    } else {
        phi = osc_sdf_eval(s->sdf, y, &m, derivatives ? &dm : NULL);
        *gradient = m;
    }
    double length = osc_length(m);
    if (!(length > 0.0)) {
        *normal = osc_v3(0.0, 0.0, 0.0);
        if (derivatives) *normal_jacobian = osc_mat3_zero();
        return phi;
    }
    osc_vec3 n = osc_scale(m, 1.0 / length);
    *normal = n;
    if (derivatives) {
        osc_mat3 projector = osc_mat3_add(osc_mat3_identity(), osc_mat3_scale(osc_outer(n, n), -1.0));
        *normal_jacobian = osc_mat3_scale(osc_mat3_mul(projector, dm), 1.0 / length);
    }
    return phi;
}

// ---------------------------------------------------------------------------------------------
// features (Beker et al. 2026 §IV-B)

static inline osc_vec3 to_s_frame(const direction* d, const double* v) {
    return osc_add(osc_mat3_apply(d->rel_r, osc_v3(v[0], v[1], v[2])), d->rel_p);
}

// tangents of y = R_S^T (R_F v + p_F - p_S) along f's twist (eq. Y): with u_j = R_S^T e_j (row j
// of R_S) and w = R_S^T R_F v: dp_F -> u_j, dtheta_F -> u_j x w (s's twist: expand_tangents)
OSC_AVX_CLONES
static void point_tangents(const direction* d, const double* v, double dy[3][COLUMNS]) {
    osc_vec3 w = osc_mat3_apply(d->rel_r, osc_v3(v[0], v[1], v[2]));
    for (int j = 0; j < 3; ++j) {
        osc_vec3 u = osc_v3(d->r_s.m[j][0], d->r_s.m[j][1], d->r_s.m[j][2]);
        osc_vec3 rf = osc_cross(u, w);
        double cols[2][3] = {{u.x, u.y, u.z}, {rf.x, rf.y, rf.z}};
        for (int k = 0; k < 3; ++k) {
            dy[k][j] = cols[0][k];
            dy[k][3 + j] = cols[1][k];
        }
    }
    for (int k = 0; k < 3; ++k)
        for (int j = TWIST_COLUMNS; j < COLUMNS; ++j) dy[k][j] = 0.0;
}

// point_tangents of stored vertex `vertex`, from the tangent cache when it is
// there (an edge's corners are copies of its vertices: the same bits); returns the cached rows, which
// stay valid until another vertex with the same slot is asked for
static double (*vertex_tangents(const pipeline* pl, const direction* d, int32_t vertex))[COLUMNS] {
    int slot = vertex & (TANGENT_CACHE - 1);
    corner_tangents* cache = pl->tangents;
    if (cache->vertex[slot] != vertex) {
        cache->vertex[slot] = vertex;
        point_tangents(d, &d->f->vertices[3 * (size_t)vertex], cache->dy[slot]);
    }
    return cache->dy[slot];
}

// a feature beyond d_max: exactly what the narrow phase gives it there (distance d_max, weight 0, no
// normal, zero derivatives), so skipping it in the broad phase changes nothing (the paper's §IV-C.2)
static void saturate(const pipeline* pl, feature* out) {
    out->distance = pl->settings->d_max;
    out->weight = 0.0;
}

// a value-only look at a contact point before its normal field and tangents: most features the
// broad phase lets through still end beyond d_max (skipped where the voxel's upper bound already
// says phi < d_max). True when the feature is saturated. With the broad phase on (which has just
// read the voxels near y) a spline's voxel lower bound (Beker et al. 2026 §IV-C.2, rigorous for the spline)
// decides first where it lies beyond d_max, with a margin far above the value's rounding: f_t(phi)
// is 0 there, as the look would find. Without it, the voxel's cache miss costs about as much as the
// look itself, whose coefficients the traces have just read.
OSC_FORCE_INLINE bool beyond_by_value(const pipeline* pl, const direction* d, osc_vec3 y) {
    const osc_manifold_settings* st = pl->settings;
    const osc_grid* grid = d->s->grid;
    if (grid && st->broad_phase) {
        double outside;
        size_t index = grid_voxel_of(grid, y, &outside);
        // lower and upper bounds (float, rounded outward); |centre| + rho = max(upper, -lower)
        double lower = d->s->voxel_bounds[2 * index], upper = d->s->voxel_bounds[2 * index + 1];
        if (lower + outside > st->d_max + 1e-9 * (upper > -lower ? upper : -lower)) return true; // (no fmax call)
        if (outside == 0.0 && upper < st->d_max) return false;
    } else if (!grid && body_upper_bound(d->s, y) < st->d_max) {
        return false;
    }
    return osc_transition(sdf_value(d->s, y, NULL), st->d_max, st->bandwidth, NULL, NULL) == 0.0;
}

// mollified contact at s-frame point y with tangents dy (eq. M, X, N): distance, weight, world point
// and normal, for a feature that beyond_by_value kept; without tangents (and without the normal
// field's Jacobian) when there are no derivatives or dy is NULL (a feature whose blend weight is
// negligible). Returns false when the weight is 0 (the feature is saturated).
OSC_AVX_CLONES
static bool finish(const pipeline* pl, const direction* d, osc_vec3 y, double (*restrict dy)[COLUMNS],
                   feature* restrict out) {
    const osc_manifold_settings* st = pl->settings;
    bool tangents = pl->derivatives && dy != NULL;
    out->tangents = tangents;
    osc_vec3 gradient = osc_v3(0.0, 0.0, 0.0), n;
    osc_mat3 dn = osc_mat3_zero();
    double phi = sdf_contact(d->s, y, tangents, &gradient, &n, &dn);
    double distance_slope, weight_slope;
    out->distance = osc_mollified_depth(phi, st->d_max, st->bandwidth, &distance_slope, NULL);
    out->weight = osc_transition(phi, st->d_max, st->bandwidth, &weight_slope, NULL);
    if (out->weight == 0.0) { // the gradient-carrying evaluation can differ by rounding
        saturate(pl, out);
        return false;
    }
    out->point = osc_add(osc_mat3_apply(d->r_s, y), d->p_s);
    out->normal = osc_scale(osc_mat3_apply(d->r_s, n), d->sign);
    if (!tangents) return true;
    // column by column: dphi = grad phi . t, dx = R_S t, dn_world = sign R_S (dn t), in arrays over
    // the columns (osc_dot's and osc_mat3_apply's operations in their order), which vectorise
    osc_mat3 rotation = d->r_s; // (copies: no aliasing with the outputs)
    double(*r)[3] = rotation.m, (*m)[3] = dn.m;
    double sign = d->sign;
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) {
        double t0 = dy[0][j], t1 = dy[1][j], t2 = dy[2][j];
        double dphi = gradient.x * t0 + gradient.y * t1 + gradient.z * t2;
        out->d_distance[j] = distance_slope * dphi;
        out->d_weight[j] = weight_slope * dphi;
        double u0 = m[0][0] * t0 + m[0][1] * t1 + m[0][2] * t2;
        double u1 = m[1][0] * t0 + m[1][1] * t1 + m[1][2] * t2;
        double u2 = m[2][0] * t0 + m[2][1] * t1 + m[2][2] * t2;
        for (int k = 0; k < 3; ++k) {
            out->d_point[k][j] = r[k][0] * t0 + r[k][1] * t1 + r[k][2] * t2;
            out->d_normal[k][j] = sign * (r[k][0] * u0 + r[k][1] * u1 + r[k][2] * u2);
        }
    }
    return true;
}

// a fresh corner entry for stored vertex `vertex`: its s-frame point only
static inline void corner_start(const direction* d, int32_t vertex, corner* c) {
    c->vertex = vertex;
    c->has_bounds = c->has_phi = c->has_gradient = false;
    c->y = to_s_frame(d, &d->f->vertices[3 * (size_t)vertex]);
}

// the corner table's entry for stored vertex `vertex`, started when it holds another one
static inline corner* corner_at(const pipeline* pl, const direction* d, int32_t vertex) {
    corner* c = &pl->cache->entry[vertex & (CORNER_CACHE - 1)];
    if (c->vertex != vertex) corner_start(d, vertex, c);
    return c;
}

// the broad phase's lower bound at a corner (and its upper bound and block, kept in the entry)
static inline double corner_lower(const direction* d, corner* c) {
    if (!c->has_bounds) {
        c->lower = body_bounds_at(d->s, c->y, &c->upper, &c->block);
        c->has_bounds = true;
    }
    return c->lower;
}

// true when every point within sphere[3] of the f-frame centre sphere[0..2] has phi > d_max
// (body_ball_beyond): phi cannot fall faster than L (a bound on |grad phi| over the ball) along a
// segment before it first reaches 0; or the ball lies outside a grid's region, where phi grows like
// the distance to it. With `lipschitz` (an edge run, whose edges take its L) the ball's L is written
// there.
static bool sphere_beyond(const pipeline* pl, const direction* d, const double sphere[4], double* lipschitz) {
    return body_ball_beyond(d->s, to_s_frame(d, sphere), sphere[3], pl->settings->d_max, lipschitz);
}

// the broad phase's verdict for stored vertex (or edge) i's run, computed once per run
static bool run_beyond(const pipeline* pl, const direction* d, runs* r, int32_t i, bool edge) {
    int32_t run = i / OSC_BODY_CHUNK;
    if (edge) {
        int slot = run & (EDGE_RUN_TABLE - 1);
        if (r->edge_run[slot] != run) {
            r->edge_run[slot] = run;
            r->edge_skip[slot] =
                sphere_beyond(pl, d, d->f->edge_chunks + 4 * (size_t)run, &r->edge_run_lipschitz[slot]);
        }
        r->edge_lipschitz = r->edge_run_lipschitz[slot];
        return r->edge_skip[slot];
    }
    if (r->vertex_run != run) {
        r->vertex_run = run;
        r->vertex_skip = sphere_beyond(pl, d, d->f->vertex_chunks + 4 * (size_t)run, NULL);
    }
    return r->vertex_skip;
}

#define CORNER_BATCH 16

// phi at the points of `count` pending corner entries, by the spline's many-point entry; lowers
// *deepest to the smallest of them that is at most `full`
static void corner_phis(const osc_grid* grid, corner* const* pending, const osc_vec3* points, int count, double full,
                        double* deepest) {
    double phi[CORNER_BATCH];
    grid_distances(grid, points, (size_t)count, phi);
    for (int k = 0; k < count; ++k) {
        pending[k]->phi = phi[k], pending[k]->has_phi = true;
        if (phi[k] <= full && phi[k] < *deepest) *deepest = phi[k];
    }
}

// balls tested at once (body_balls_beyond): a group's blocks of edges, the groups' spheres
#define BALL_BATCH 64

// the verdicts kept for a group's blocks of vertices (group_corners); later blocks are not tested
#define GROUP_BLOCKS_KEPT 256

// The points and (with the broad phase) the broad-phase bounds of group g's stored vertices into
// the corner table, in a loop of independent look-ups whose cache misses overlap, and
// for a spline body phi at the vertices whose value-only look will need it (vertex_beyond_by_value:
// not ruled out by the lower bound, not decided by the upper one), CORNER_BATCH at a time in one
// call of the spline's many-point entry (each value has grid_distance's bits, docs/grid.md).
// The group's vertices and edges then find them. A batch's vertices lie within CORNER_CACHE stored
// positions, so their entries in the direct-mapped table are distinct.
// With the broad phase (`far` not NULL), each block of the group's vertices (osc_body) whose sphere
// lies beyond d_max is skipped whole, its verdict kept in far[k] (k < GROUP_BLOCKS_KEPT) for the
// vertex loop: every vertex in it is saturated.
// Returns the smallest upper bound of phi these bounds give at a vertex of the group with
// f_t(phi) = 1 (phi <= d_max - bandwidth): the voxel's upper bound, or phi where it is known first
// (+INFINITY: none); blend_cutoff's bound on the group's deepest term.
static double group_corners(const pipeline* pl, const direction* d, int32_t g, bool* far) {
    const osc_body* f = d->f;
    int32_t k0 = f->group_vertex_block_start[g], k1 = f->group_vertex_block_start[g + 1];
    bool broad = pl->settings->broad_phase;
    double d_max = pl->settings->d_max, full = d_max - pl->settings->bandwidth, deepest = INFINITY;
    const osc_grid* grid = d->s->grid;
    corner* pending[CORNER_BATCH];
    osc_vec3 points[CORNER_BATCH];
    int count = 0;
    // the blocks' verdicts all at once (body_balls_beyond)
    int32_t kept = k1 - k0 < GROUP_BLOCKS_KEPT ? k1 - k0 : GROUP_BLOCKS_KEPT;
    if (far) body_balls_beyond(d->s, &d->rel_r, d->rel_p, f->group_vertex_blocks + 4 * (size_t)k0, kept, d_max, far);
    for (int32_t k = k0; k < k1; ++k) {
        if (far && k - k0 < GROUP_BLOCKS_KEPT && far[k - k0]) continue;
        for (int32_t i = f->vertex_block_first[k]; i < f->vertex_block_first[k + 1]; ++i) {
            if (count > 0 && i - pending[0]->vertex >= CORNER_CACHE) { // (the batch's entries stay distinct)
                corner_phis(grid, pending, points, count, full, &deepest);
                count = 0;
            }
            corner* c = corner_at(pl, d, i);
            if (broad && corner_lower(d, c) > d_max) continue;
            bool decided = broad && c->upper < d_max; // no look at phi needed
            double known = c->has_phi ? c->phi : decided ? c->upper : INFINITY;
            if (known <= full && known < deepest) deepest = known;
            if (!grid || c->has_phi || decided) continue;
            pending[count] = c;
            points[count++] = c->y;
            if (count == CORNER_BATCH) {
                corner_phis(grid, pending, points, count, full, &deepest);
                count = 0;
            }
        }
    }
    if (count > 0) corner_phis(grid, pending, points, count, full, &deepest);
    return deepest;
}

// phi at a corner (below)
OSC_FORCE_INLINE double corner_value(const pipeline* pl, const direction* d, corner* c, osc_vec3* gradient);

// the value-only look of beyond_by_value at a vertex, whose voxel bounds the broad phase has read
// (`c`, with the broad phase on): the lower bound has not ruled it out, so only the upper bound
// can decide before phi is evaluated. A spline's phi is kept in the entry, where the edges that
// have the vertex as a corner find it (corner_value gives it the same bits); an osc_sdf's is kept
// there too, as corner_value evaluates it for the edges (with its gradient when there are derivatives).
static bool vertex_beyond_by_value(const pipeline* pl, const direction* d, corner* c) {
    const osc_manifold_settings* st = pl->settings;
    if (!d->s->grid) return osc_transition(corner_value(pl, d, c, NULL), st->d_max, st->bandwidth, NULL, NULL) == 0.0;
    if (c->has_bounds && c->upper < st->d_max) return false;
    if (!c->has_phi) {
        c->phi = grid_distance(d->s->grid, &c->y);
        c->has_phi = true;
    }
    return osc_transition(c->phi, st->d_max, st->bandwidth, NULL, NULL) == 0.0;
}

// true when a feature whose phi is at least `phi_lower` needs no tangents: its mollified distance,
// at least min(phi, d_max) (a convex combination of phi and d_max), is above the group's cutoff
static inline bool tangents_negligible(const pipeline* pl, double phi_lower) {
    double d_max = pl->settings->d_max; // (fmin is a library call here)
    return (phi_lower < d_max ? phi_lower : d_max) > pl->tangent_cutoff;
}

// tangents_negligible at a vertex that vertex_beyond_by_value kept: by the voxel's lower bound when
// it decides, else by phi (evaluated here, and kept in the entry, only where the voxel's upper bound
// leaves it open)
static bool vertex_negligible(const pipeline* pl, const direction* d, corner* c) {
    if (!(pl->tangent_cutoff < pl->settings->d_max)) return false; // no distance is above it
    if (c->has_bounds && tangents_negligible(pl, c->lower)) return true;
    if (!c->has_phi) {
        if (c->has_bounds && !tangents_negligible(pl, c->upper)) return false;
        corner_value(pl, d, c, NULL);
    }
    return tangents_negligible(pl, c->phi);
}

// vertex-SDF contact (the paper's §IV-B) of stored vertex i: the vertex itself
static bool vertex_contact(const pipeline* pl, const direction* d, runs* r, int32_t i, feature* out) {
    if (pl->settings->broad_phase && !r->vertex_bounds_known && run_beyond(pl, d, r, i, false)) {
        saturate(pl, out);
        return false;
    }
    corner* c = corner_at(pl, d, i);
    if (pl->settings->broad_phase && corner_lower(d, c) > pl->settings->d_max) {
        saturate(pl, out);
        return false;
    }
    if (vertex_beyond_by_value(pl, d, c)) {
        saturate(pl, out);
        return false;
    }
    osc_vec3 y = c->y;
    // (its tangents kept for the edges that have it as a corner)
    bool tangents = pl->derivatives && !vertex_negligible(pl, d, c);
    return finish(pl, d, y, tangents ? vertex_tangents(pl, d, i) : NULL, out);
}

// phi at y for a pass without tangents, with the bits the pass with tangents sees: a spline's value
// does not depend on whether its gradient is asked for (grid_distance_fast); an osc_sdf's may, so
// with derivatives it is asked for the gradient too
static inline double pass_value(const pipeline* pl, const direction* d, osc_vec3 y) {
    osc_vec3 unused;
    return sdf_value(d->s, y, pl->derivatives && !d->s->grid ? &unused : NULL);
}

// The exponentials of an edge's pass without tangents that its pass with tangents needs again:
// exp(-|phi / tau|) of each trace step's two points (the first TRACE_KEPT steps) and the soft
// clips' exp(-|s| / tau), exp(-|s - l| / tau) of both distances. NaN where the pass computed none;
// a trace's steps from `taken` on (those after its clip settled) hold nothing and are not read.
// An osc_sdf body's pass without tangents also keeps each step's point with phi and its gradient
// (pass_value asks for it with derivatives; `has_value`, not read for a spline), which the pass
// with tangents takes instead of evaluating the same point again (its s has the same bits, so its
// points are the same).
#define TRACE_KEPT 8
typedef struct trace_exps {
    double step[TRACE_KEPT][2];
    int taken[2]; // the steps each trace took
    double clip[2][2];
    bool has_value[TRACE_KEPT][2]; // step k of trace e kept its point, phi and gradient
    osc_vec3 point[TRACE_KEPT][2], gradient[TRACE_KEPT][2];
    double phi[TRACE_KEPT][2];
} trace_exps;

// osc_sigmoid(x, tau) for tau > 0, with its slope (nullable), from the exponential exp(-|x / tau|)
// a pass without tangents kept (NaN: none, computed here)
static inline double sigmoid_kept(double x, double tau, double kept, double* slope) {
    return osc_sigmoid_from_exp(x, tau, isnan(kept) ? exp(-fabs(x / tau)) : kept, slope, NULL);
}

// A trace step at a point deep inside, phi / tau_t below -TRACE_DEEP, is taken as no step: its
// sigma(phi / tau_t) phi is below 45 e^-45 tau_t < 1.3e-18 tau_t in magnitude and its gain
// sigma' phi + sigma = sigma (1 + (1 - sigma) phi / tau_t) below 46 e^-45 < 1.3e-18, so s and the
// tangent ds it would add are below 2^-59 of tau_t and of the tangents they join (docs/manifold.md,
// "Stopping a trace early"); both passes skip it alike, so they keep the same s.
#define TRACE_DEEP 45.0

// sigma(phi / tau) of a trace step without its slope, with its exponential in *kept (NaN: none):
// osc_sigmoid's value, whose 1 / (1 + e) is exactly 1 once e = exp(-phi / tau) < 2^-54
// (phi / tau > 37.5), so the exp is skipped there; 0 below -TRACE_DEEP
static inline double trace_bracket(double phi, double tau, double* kept) {
    *kept = NAN;
    if (!(tau > 0.0)) return osc_sigmoid(phi, tau, NULL, NULL);
    if (phi / tau > 40.0) return 1.0;
    if (phi / tau < -TRACE_DEEP) return 0.0;
    *kept = exp(-fabs(phi / tau));
    return osc_sigmoid_from_exp(phi, tau, *kept, NULL, NULL);
}

// the two trace points of step k, q_e = start_e + s_e dir_e, and whether each moved since the
// last evaluation (never on the first step, whose values are the corners'); a step too small to
// move a point (a corner deep inside, where sigma underflows) leaves its phi and gradient as they were
OSC_FORCE_INLINE void trace_points(int k, const osc_vec3 start[2], const osc_vec3 dir[2], const double s[2],
                                   osc_vec3 previous[2], osc_vec3 q[2], bool moved[2]) {
    for (int e = 0; e < 2; ++e) {
        q[e] = osc_add_scaled(start[e], dir[e], s[e]);
        moved[e] = k > 0 && (q[e].x != previous[e].x || q[e].y != previous[e].y || q[e].z != previous[e].z);
        if (moved[e]) previous[e] = q[e];
    }
}

// one trace step's tangent, ds += gain grad phi . (dstart + sd ddir + ds dir) (below; separate
// arrays, which lets the compiler vectorise the loop)
OSC_FORCE_INLINE void trace_step_tangents(double gain, osc_vec3 g, osc_vec3 u, double sd,
                                          double (*restrict d0)[COLUMNS], double (*restrict d1)[COLUMNS],
                                          double* restrict ds) {
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) {
        double dq0 = d0[0][j] + sd * d1[0][j] + ds[j] * u.x;
        double dq1 = d0[1][j] + sd * d1[1][j] + ds[j] * u.y;
        double dq2 = d0[2][j] + sd * d1[2][j] + ds[j] * u.z;
        ds[j] += gain * (g.x * dq0 + g.y * dq1 + g.z * dq2);
    }
}

// the two sphere traces of an edge (eq. T), from a along t and from b along -t, s <- s + sigma(phi)
// phi for `iterations` steps, with their tangents: ds accumulates
// (sigma' phi + sigma) grad phi . (dstart + s ddir + ds dir), where ddir is the first trace's (dt;
// the second's is -dt, taken as -s times dt). `phi0` and `gradient0` are phi and
// its gradient at the starts (the first steps' points). The traces step side by side (a spline
// evaluates both points with their gradients in one call, so that the two chains overlap); each is
// the same sequence of operations alone, and s has the bits of trace_both's pass without tangents,
// whose exponentials it reuses (`kept`, nullable).
OSC_AVX_CLONES
static void trace_tangents(const pipeline* pl, const direction* d, const osc_vec3 start[2], const osc_vec3 dir[2],
                           const double phi0[2], const osc_vec3 gradient0[2], double (*dstart[2])[COLUMNS],
                           double (*ddir)[COLUMNS], double* ds[2], const trace_exps* kept, double traced[2]) {
    const osc_manifold_settings* st = pl->settings;
    osc_vec3 previous[2] = {start[0], start[1]}, gradient[2] = {gradient0[0], gradient0[1]};
    double phi[2] = {phi0[0], phi0[1]}, s[2] = {0.0, 0.0};
    for (int e = 0; e < 2; ++e)
        for (int j = 0; j < COLUMNS; ++j) ds[e][j] = 0.0;
    for (int k = 0; k < st->iterations; ++k) {
        osc_vec3 q[2];
        bool moved[2];
        trace_points(k, start, dir, s, previous, q, moved);
        if (moved[0] && moved[1] && d->s->grid) {
            grid_distance_gradient_pair(d->s->grid, &q[0], &q[1], phi, gradient);
        } else {
            for (int e = 0; e < 2; ++e) {
                if (!moved[e]) continue;
                if (kept && !d->s->grid && k < kept->taken[e] && k < TRACE_KEPT && kept->has_value[k][e] &&
                    kept->point[k][e].x == q[e].x && kept->point[k][e].y == q[e].y && kept->point[k][e].z == q[e].z) {
                    phi[e] = kept->phi[k][e], gradient[e] = kept->gradient[k][e]; // the same point's
                } else {
                    phi[e] = sdf_value(d->s, q[e], &gradient[e]);
                }
            }
        }
        for (int e = 0; e < 2; ++e) {
            double slope, tau = st->trace_temperature;
            double exponential = kept && k < kept->taken[e] && k < TRACE_KEPT ? kept->step[k][e] : NAN;
            double bracket, gain;
            if (tau > 0.0 && phi[e] / tau > 42.0) {
                // sigma = 1 / (1 + e) is 1 and its slope term sigma (1 - sigma) phi / tau = e phi / tau
                // < 2.5e-17 < 2^-53 rounds away in the gain, which is exactly 1: no exp needed
                bracket = gain = 1.0;
            } else if (tau > 0.0 && phi[e] / tau < -TRACE_DEEP) {
                bracket = gain = 0.0; // trace_bracket's 0
            } else {
                bracket =
                    tau > 0.0 ? sigmoid_kept(phi[e], tau, exponential, &slope) : osc_sigmoid(phi[e], tau, &slope, NULL);
                gain = slope * phi[e] + bracket;
            }
            // the second trace's ddir is -ddir: (-s) d1 has the bits of s (-d1)
            double sd = e == 0 ? s[e] : -s[e];
            if (gain != 0.0) trace_step_tangents(gain, gradient[e], dir[e], sd, dstart[e], ddir, ds[e]);
            s[e] += bracket * phi[e];
        }
    }
    traced[0] = s[0], traced[1] = s[1];
}

// the edge's part of clip_settled's bound: l (1 + 1e-14) + 41 tau_c, or +INFINITY when tau_c >= 4 l
// (never settled); l (1 + 1e-14) for a hard clip
static inline double settle_limit(const osc_manifold_settings* st, double l) {
    double tau = st->clip_temperature;
    if (!(tau > 0.0)) return l + 1e-14 * l;
    return tau < 4.0 * l ? l + 1e-14 * l + 41.0 * tau : INFINITY;
}

// the most a trace step can take back: -W(1/e) tau_t < 0.28 tau_t (0 with the hard bracket)
static inline double settle_drop(const osc_manifold_settings* st) {
    return st->trace_temperature > 0.0 ? 0.28 * st->trace_temperature : 0.0;
}

// true when the clip of a traced distance s into [0, l] (eq. C) is l exactly whatever the trace's
// `remaining` steps do (docs/manifold.md, "Stopping a trace early"): a step adds sigma(phi) phi,
// never below -W(1/e) tau_t > -0.2785 tau_t (nothing below 0 with the hard bracket), so s stays
// more than 40 clip temperatures past l, where clip_value returns l itself (with tau_c < 4 l; a hard
// clip returns l for any s > l). The margin of one clip temperature and 1e-14 (|s| + l) holds every
// rounding of the steps' sums and of clip_value's test. The test is
// s - 1e-14 s > l + 1e-14 l + 41 tau_c + remaining drop (only an s > 0 passes, so |s| = s), with
// `limit` = settle_limit(l) and `drop` = settle_drop formed once per edge.
static inline bool clip_settled(double s, double limit, double drop, int remaining) {
    return s - 1e-14 * s > limit + (double)remaining * drop;
}

// true when an edge's trace from a corner with phi > 40 tau_t there settles at its first step: that
// step adds sigma(phi) phi = phi exactly (trace_bracket's 1), and clip_settled holds for s = phi
// with the steps after it remaining
static inline bool corner_settles(const osc_manifold_settings* st, double phi, double limit) {
    return st->trace_temperature > 0.0 && phi / st->trace_temperature > 40.0 && st->iterations >= 1 &&
           clip_settled(phi, limit, settle_drop(st), st->iterations - 1);
}

// phi_c - L r > d_max + margin for a spline body: phi exceeds d_max at every point within r of a point
// with phi_c there (both as evaluated), L a bound on |grad phi| where phi > 0 over those points (phi
// cannot fall faster than L before it first reaches 0); the margin, 1e-9 of phi_c and of L times r
// and a cell, is far above the rounding of the values and of the points
static inline bool lipschitz_beyond(const osc_grid* grid, double phi_c, double lipschitz, double r, double d_max) {
    return phi_c - lipschitz * r > d_max + 1e-9 * (phi_c + lipschitz * (2.0 * r + grid->cell));
}

// With the broad phase off, true when phi at a spline body's edge's corners a, b (which the narrow
// phase evaluates first) says that edge_narrow's look at a settled edge's point saturates it, so that
// the look is not needed (docs/manifold.md, "Settled edges decided at their corners"): when both
// corners settle (corner_settles) the point is the midpoint, l / 2 from both, where phi is at least
// max(phi_a, phi_b) - L l / 2 with L the body's global bound on |grad phi| (not the broad phase's
// voxel bounds). The edge's length lies in [l_low, l_high] (its stored length less and plus the
// margin of its rounding, or its length twice): the test holds for every length there.
OSC_FORCE_INLINE bool corners_beyond(const pipeline* pl, const direction* d, double phi_a, double phi_b,
                                     double l_low, double l_high) {
    const osc_manifold_settings* st = pl->settings;
    double tau = st->clip_temperature;
    // settle_limit's at l_high is the largest over the lengths when tau_c < 4 l at all of them
    double limit = tau < 4.0 * l_low || !(tau > 0.0) ? settle_limit(st, l_high) : INFINITY;
    if (!corner_settles(st, phi_a, limit) || !corner_settles(st, phi_b, limit)) return false;
    return lipschitz_beyond(d->s->grid, phi_a > phi_b ? phi_a : phi_b, d->s->edge_lipschitz, 0.5 * l_high,
                            st->d_max);
}

// the pass without tangents of both traces of an edge (eq. T), from a along t and from b along -t,
// step by step side by side (a spline evaluates the two points in one call, so that the two chains
// of dependent evaluations overlap); each distance has the bits trace_tangents gives it, except that
// a trace whose clip into [0, l] is settled (clip_settled) stops there: its distance then differs
// but clips to the same l. Keeps its exponentials in `kept` (and the steps taken).
OSC_FORCE_INLINE void trace_both(const pipeline* pl, const direction* d, osc_vec3 a, osc_vec3 b, osc_vec3 t, double l,
                                 double phi_a, double phi_b, double traced[2], trace_exps* kept) {
    const osc_manifold_settings* st = pl->settings;
    osc_vec3 start[2] = {a, b}, dir[2] = {t, osc_neg(t)}, previous[2] = {a, b};
    double phi[2] = {phi_a, phi_b};
    bool done[2] = {false, false};
    double limit = settle_limit(st, l), drop = settle_drop(st);
    traced[0] = traced[1] = 0.0;
    kept->taken[0] = kept->taken[1] = st->iterations;
    for (int k = 0; k < st->iterations; ++k) {
        for (int e = 0; e < 2; ++e)
            if (!done[e] && k > 0 && clip_settled(traced[e], limit, drop, st->iterations - k)) {
                done[e] = true;
                kept->taken[e] = k;
            }
        if (done[0] && done[1]) break;
        osc_vec3 q[2];
        bool moved[2];
        trace_points(k, start, dir, traced, previous, q, moved);
        moved[0] = moved[0] && !done[0], moved[1] = moved[1] && !done[1];
        if (moved[0] && moved[1] && d->s->grid) {
            grid_distance_pair(d->s->grid, &q[0], &q[1], phi);
        } else if (pl->derivatives && !d->s->grid && k < TRACE_KEPT) { // its points' phi and gradients
            for (int e = 0; e < 2; ++e) {
                kept->has_value[k][e] = moved[e];
                if (!moved[e]) continue;
                phi[e] = sdf_value(d->s, q[e], &kept->gradient[k][e]); // pass_value's evaluation
                kept->phi[k][e] = phi[e], kept->point[k][e] = q[e];
            }
        } else {
            for (int e = 0; e < 2; ++e)
                if (moved[e]) phi[e] = pass_value(pl, d, q[e]);
        }
        for (int e = 0; e < 2; ++e) {
            if (done[e]) continue;
            double exponential;
            traced[e] += trace_bracket(phi[e], st->trace_temperature, &exponential) * phi[e];
            if (k < TRACE_KEPT) kept->step[k][e] = exponential;
        }
    }
}

// soft clip of a traced distance into [0, l] (eq. C) in the pass without tangents, keeping its
// exponentials exp(-|s| / tau), exp(-|s - l| / tau) in `kept` (NaN: none computed)
OSC_FORCE_INLINE double clip_value(const pipeline* pl, double s, double l, double kept[2]) {
    double tau = pl->settings->clip_temperature;
    kept[0] = kept[1] = NAN;
    // past the far end by 40 tau (with tau < 4 l) the value is l exactly: in its form
    // l + s+(-s) - s+(l - s) both terms are below tau e^-40 < ulp(l) / 4 (skips two exp and log1p)
    if (tau > 0.0 && (s - l) / tau > 40.0 && tau < 4.0 * l) return l;
    if (!(tau > 0.0)) return osc_softclip(s, 0.0, l, tau, NULL, NULL);
    // (s is exactly 0 after traces from a corner deep inside: exp(-0) is 1)
    kept[0] = s == 0.0 ? 1.0 : exp(-fabs(s - 0.0) / tau), kept[1] = exp(-fabs(s - l) / tau);
    return osc_softclip_from_exp(s, 0.0, l, tau, kept[0], kept[1], NULL, NULL);
}

// the tangent of the soft clip (tau > 0) alone, for a distance whose clipped value is known: the
// sigmoids osc_softclip's branch takes for d/ds, and sigma(s - l) for d/dl (in the branch s <= l / 2
// the same call as its second sigmoid), so dc has clip()'s bits without the value's log1ps, and
// without its exps where clip_value kept them (`kept`: exp(-|s| / tau), exp(-|s - l| / tau))
static void clip_tangents(double tau, double s, double l, const double ds[COLUMNS], const double dl[COLUMNS],
                          const double kept[2], double dc[COLUMNS]) {
    const double lo = 0.0, hi = l;
    double slope, upper;
    if (s <= 0.5 * (lo + hi)) {
        upper = sigmoid_kept(s - hi, tau, kept[1], NULL);
        slope = sigmoid_kept(s - lo, tau, kept[0], NULL) - upper;
    } else {
        slope = sigmoid_kept(hi - s, tau, kept[1], NULL) - sigmoid_kept(lo - s, tau, kept[0], NULL);
        upper = sigmoid_kept(s - l, tau, kept[1], NULL);
    }
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) dc[j] = slope * ds[j] + upper * dl[j];
}

// soft clip of a traced distance into [0, l] with its tangent (eq. C): d/ds and d/dl = sigma(s - l).
// With tau > 0 the value is clip_value's and the tangent clip_tangents', which share the soft clip's
// two exponentials (osc_softclip and osc_sigmoid(s - l) would take three)
static double clip(const pipeline* pl, double s, double l, const double ds[COLUMNS], const double dl[COLUMNS],
                   double dc[COLUMNS]) {
    double tau = pl->settings->clip_temperature;
    if (tau > 0.0) {
        double kept[2];
        double c = clip_value(pl, s, l, kept);
        clip_tangents(tau, s, l, ds, dl, kept, dc);
        return c;
    }
    double slope = 0.0;
    double c = osc_softclip(s, 0.0, l, tau, &slope, NULL);
    double upper = s > l ? 1.0 : 0.0;
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) dc[j] = slope * ds[j] + upper * dl[j];
    return c;
}

// phi at a corner, with its gradient when `gradient` is not NULL, from its entry when it is there
// (a gradient asked for later is added to the entry; phi keeps the bits of pass_value)
OSC_FORCE_INLINE double corner_value(const pipeline* pl, const direction* d, corner* c, osc_vec3* gradient) {
    if (!c->has_phi) {
        bool with_gradient = gradient || (pl->derivatives && !d->s->grid);
        c->phi = sdf_value(d->s, c->y, with_gradient ? &c->gradient : NULL);
        c->has_phi = true;
        c->has_gradient = with_gradient;
    } else if (gradient && !c->has_gradient) { // a spline: the same value
        sdf_value(d->s, c->y, &c->gradient);
        c->has_gradient = true;
    }
    if (gradient) *gradient = c->gradient;
    return c->phi;
}

// phi at both corners of an edge (corner_value without gradients); a spline evaluates two missing
// corners in one call
OSC_FORCE_INLINE void corner_values(const pipeline* pl, const direction* d, corner* ca, corner* cb, double* phi_a,
                                    double* phi_b) {
    if (d->s->grid && !ca->has_phi && !cb->has_phi) {
        double phi[2];
        grid_distance_pair(d->s->grid, &ca->y, &cb->y, phi);
        ca->phi = *phi_a = phi[0], cb->phi = *phi_b = phi[1];
        ca->has_phi = cb->has_phi = true;
        ca->has_gradient = cb->has_gradient = false;
        return;
    }
    *phi_a = corner_value(pl, d, ca, NULL);
    *phi_b = corner_value(pl, d, cb, NULL);
}

// the gradients at both corners of an edge (corner_value with gradients); a spline evaluates two
// missing ones in one call
OSC_FORCE_INLINE void corner_gradients(const pipeline* pl, const direction* d, corner* ca, corner* cb, osc_vec3* ga,
                                       osc_vec3* gb) {
    if (d->s->grid && ca->has_phi && cb->has_phi && !ca->has_gradient && !cb->has_gradient) {
        double phi[2]; // the entries' phi, the same values
        osc_vec3 g[2];
        grid_distance_gradient_pair(d->s->grid, &ca->y, &cb->y, phi, g);
        ca->gradient = *ga = g[0], cb->gradient = *gb = g[1];
        ca->has_gradient = cb->has_gradient = true;
        return;
    }
    corner_value(pl, d, ca, ga);
    corner_value(pl, d, cb, gb);
}

// A bound on |grad phi| along an edge: its run's, tightened to the edge's own when needed.
typedef struct edge_bound {
    double lipschitz;
    bool tight; // already over the edge itself
} edge_bound;

// tightens `bound` to the edge between corners a and b (length at most l): the blocks between
// theirs when both lie in a grid's region (body_segment_lipschitz), else the edge's ball
static void edge_tighten(const direction* d, const corner* ca, const corner* cb, double l, edge_bound* bound) {
    bound->tight = true;
    double own = ca->has_bounds && cb->has_bounds && ca->block >= 0 && cb->block >= 0
                     ? body_segment_lipschitz(d->s, ca->block, cb->block)
                     : body_ball_lipschitz(d->s, osc_lerp(ca->y, cb->y, 0.5), 0.5 * l);
    bound->lipschitz = own < bound->lipschitz ? own : bound->lipschitz;
}

// edge_beyond's test again once the bound is tightened to the edge
OSC_NOINLINE bool edge_beyond_tight(const direction* d, const corner* ca, const corner* cb, double mean, double l,
                                    double d_max, edge_bound* bound) {
    edge_tighten(d, ca, cb, l, bound);
    return mean - 0.5 * bound->lipschitz * l > d_max;
}

// true when lower bounds `at_a`, `at_b` of phi at the corners rule the edge out: a point at distance
// s from a has phi >= at_a - L s or, failing that, phi >= at_b - L (l - s) > d_max, as long as
// (at_a + at_b - L l) / 2 > d_max (docs/manifold.md, Broad phase); l may be a bound on the length
static inline bool edge_beyond(const direction* d, const corner* ca, const corner* cb, double at_a, double at_b,
                               double l, double d_max, edge_bound* bound) {
    double mean = 0.5 * (at_a + at_b);
    if (mean - 0.5 * bound->lipschitz * l > d_max) return true;
    if (bound->tight || !(mean > d_max)) return false;
    return edge_beyond_tight(d, ca, cb, mean, l, d_max, bound);
}

// a guess that an edge's point will lie above the group's tangent cutoff, from phi at its corners and
// a bound on the change of phi along it (where phi > 0): a corner inside (phi < 0) does not move,
// so an edge inside ends near its middle, one that crosses the surface near the crossing, and one
// outside no deeper than its corners less the change
static inline bool edge_expected(const pipeline* pl, double phi_a, double phi_b, double change) {
    if (!(pl->tangent_cutoff < pl->settings->d_max)) return false;
    double low = phi_a < phi_b ? phi_a : phi_b, high = phi_a < phi_b ? phi_b : phi_a;
    double guess = high < 0.0 ? 0.5 * (phi_a + phi_b) : low < 0.0 ? 0.0 : low - 0.5 * change;
    return tangents_negligible(pl, guess);
}

// tangents_negligible at the point p of an edge that beyond_by_value kept, by phi there
static inline bool edge_negligible(const pipeline* pl, const direction* d, osc_vec3 p) {
    return pl->tangent_cutoff < pl->settings->d_max && tangents_negligible(pl, pass_value(pl, d, p));
}

// edge_contact for an edge the broad phase's lower bounds have not ruled out, with its corners'
// entries and the Lipschitz bound so far; compiled for AVX too (its tangent loops), with the traces
// without tangents, the soft clips and the corner look-ups inlined into it (the clone cannot call
// into them cheaply). (A function with clones is never inlined; clang refuses `noinline` on it.)
OSC_AVX_CLONES
static bool edge_narrow(const pipeline* pl, const direction* d, int32_t i, corner* ca, corner* cb, edge_bound* bound_in,
                        feature* out) {
    edge_bound bound = *bound_in;
    const osc_manifold_settings* st = pl->settings;
    const double* corners = &d->f->edges[6 * (size_t)i];
    osc_vec3 a = ca->y, b = cb->y;
    osc_vec3 e = osc_sub(b, a);
    double l = osc_length(e);
    // phi at the corners (the traces' first points): with (phi_a + phi_b - L l) / 2 > d_max the whole
    // edge is beyond d_max and the narrow phase would saturate it
    double phi_a, phi_b;
    bool known = ca->has_phi && cb->has_phi; // (then edge_contact has tried corners_beyond)
    corner_values(pl, d, ca, cb, &phi_a, &phi_b);
    if (st->broad_phase ? edge_beyond(d, ca, cb, phi_a, phi_b, l, st->d_max, &bound)
                        : !known && d->s->grid && corners_beyond(pl, d, phi_a, phi_b, l, l)) {
        saturate(pl, out);
        return false;
    }
    if (!(l > 0.0)) { // a zero-length edge (the mesh forbids them; kept safe): its corner
        if (beyond_by_value(pl, d, a)) {
            saturate(pl, out);
            return false;
        }
        double da[3][COLUMNS];
        if (pl->derivatives) point_tangents(d, corners, da);
        return finish(pl, d, a, da, out);
    }
    osc_vec3 t = osc_scale(e, 1.0 / l), p;
    // first without tangents: most edges end beyond d_max; one that does not is traced again with
    // them (the same steps give the same bits). An osc_sdf body's pass without tangents evaluates
    // the gradient too (pass_value) and keeps it with phi, so its pass with tangents evaluates only
    // the steps the first pass stopped before (trace_exps).
    // An edge with a corner inside (phi < 0) almost always ends within d_max (on the benchmark's
    // poses: all but 4 % at d_max 0, none at d_max 0.02), and so does one whose corners' mean phi is
    // below d_max (its point is near the middle when it does not cross the surface: 92-100 % at
    // d_max 0.01-0.1): it is traced once, with tangents, as the pass without them would be wasted.
    // (Where it does end beyond, the tangents are; the output is the same either way.)
    // An edge whose point is expected above the group's tangent cutoff (edge_expected) goes first
    // without tangents too, as they will likely not be needed (edge_negligible decides).
    bool value_first = !(pl->derivatives && (phi_a < 0.0 || phi_b < 0.0 || 0.5 * (phi_a + phi_b) < st->d_max)) ||
                       edge_expected(pl, phi_a, phi_b, bound.lipschitz * l);
    double s = 0.0, u = 0.0, sc = 0.0, uc = 0.0;
    trace_exps kept; // the pass without tangents' exponentials, for the pass with them
    // most edges of deep overlaps have both corners so far outside that both traces settle at their
    // first step (corner_settles): both clip to l, the point is the midpoint, and the look there
    // decides without the traces' bookkeeping (the passes below run only for an edge it keeps)
    bool looked = false;
    if (value_first) {
        double limit = settle_limit(st, l);
        if (corner_settles(st, phi_a, limit) && corner_settles(st, phi_b, limit)) {
            p = osc_add_scaled(osc_scale(osc_add(a, b), 0.5), t, 0.5 * (l - l));
            if (beyond_by_value(pl, d, p)) {
                saturate(pl, out);
                return false;
            }
            looked = true;
        }
    }
    if (value_first) {
        double traced[2];
        trace_both(pl, d, a, b, t, l, phi_a, phi_b, traced, &kept);
        s = traced[0], u = traced[1];
        sc = clip_value(pl, s, l, kept.clip[0]), uc = clip_value(pl, u, l, kept.clip[1]);
        // midpoint p = (a + b) / 2 + (sc - uc) t / 2 (eq. P)
        p = osc_add_scaled(osc_scale(osc_add(a, b), 0.5), t, 0.5 * (sc - uc));
        if (!looked && beyond_by_value(pl, d, p)) {
            saturate(pl, out);
            return false;
        }
        if (!pl->derivatives || edge_negligible(pl, d, p)) return finish(pl, d, p, NULL, out);
    }
    osc_vec3 ga, gb;
    corner_gradients(pl, d, ca, cb, &ga, &gb);
    double dt[3][COLUMNS], dl[COLUMNS], own[3][COLUMNS];
    int32_t vertex_a = ca->vertex, vertex_b = cb->vertex;
    double(*da)[COLUMNS] = vertex_tangents(pl, d, vertex_a), (*db)[COLUMNS] = own;
    if (((vertex_a ^ vertex_b) & (TANGENT_CACHE - 1)) != 0)
        db = vertex_tangents(pl, d, vertex_b);
    else
        point_tangents(d, corners + 3, own);
    // dl = t . de, dt = (de - t (t . de)) / l
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) {
        double de[3] = {db[0][j] - da[0][j], db[1][j] - da[1][j], db[2][j] - da[2][j]};
        dl[j] = t.x * de[0] + t.y * de[1] + t.z * de[2];
        dt[0][j] = (de[0] - t.x * dl[j]) / l;
        dt[1][j] = (de[1] - t.y * dl[j]) / l;
        dt[2][j] = (de[2] - t.z * dl[j]) / l;
    }
    double ds[COLUMNS], du[COLUMNS], dsc[COLUMNS], duc[COLUMNS];
    {
        osc_vec3 start[2] = {a, b}, dir[2] = {t, osc_neg(t)}, g0[2] = {ga, gb};
        double phi0[2] = {phi_a, phi_b}, traced[2];
        double(*dstart[2])[COLUMNS] = {da, db};
        double* dtraced[2] = {ds, du};
        trace_tangents(pl, d, start, dir, phi0, g0, dstart, dt, dtraced, value_first ? &kept : NULL, traced);
        s = traced[0], u = traced[1];
    }
    if (value_first && pl->settings->clip_temperature > 0.0) { // sc, uc: the pass without tangents'
        clip_tangents(pl->settings->clip_temperature, s, l, ds, dl, kept.clip[0], dsc);
        clip_tangents(pl->settings->clip_temperature, u, l, du, dl, kept.clip[1], duc);
    } else {
        sc = clip(pl, s, l, ds, dl, dsc);
        uc = clip(pl, u, l, du, dl, duc);
    }
    if (!value_first) {
        p = osc_add_scaled(osc_scale(osc_add(a, b), 0.5), t, 0.5 * (sc - uc));
        // an edge expected within d_max (a corner inside) goes to finish() directly, which
        // saturates it where f_t = 0: a spline's contact evaluation gives phi the bits of the
        // value-only look's (docs/grid.md); an osc_sdf's may differ from them by rounding, which
        // moves the cut at f_t = 0 by as much
    }
    double dp[3][COLUMNS];
    {
        double tv[3] = {t.x, t.y, t.z};
        for (int k = 0; k < 3; ++k)
            COLUMN_LOOP
            for (int j = 0; j < COLUMNS; ++j)
                dp[k][j] = 0.5 * (da[k][j] + db[k][j] + tv[k] * (dsc[j] - duc[j]) + (sc - uc) * dt[k][j]);
    }
    return finish(pl, d, p, dp, out);
}

// corners_beyond for stored edge i with phi known at its corners, before edge_narrow: its length from
// the stored one and the margin of its rounding (a function of its own, which keeps the group loop
// as it is with the broad phase on)
OSC_NOINLINE bool edge_corners_beyond(const pipeline* pl, const direction* d, int32_t i, const corner* ca,
                                      const corner* cb) {
    double l = d->f->edge_lengths[i];
    return corners_beyond(pl, d, ca->phi, cb->phi, l - d->length_margin, l + d->length_margin);
}

// edge-SDF contact (the paper's §IV-B.2, Fig. 5) of stored edge i: trace both corners towards each other,
// clip into the edge, take the midpoint. The broad phase's tests are inline (most edges end there);
// the rest is edge_narrow.
OSC_FORCE_INLINE bool edge_contact(const pipeline* pl, const direction* d, runs* r, int32_t i, feature* out) {
    const osc_manifold_settings* st = pl->settings;
    if (st->broad_phase && run_beyond(pl, d, r, i, true)) {
        saturate(pl, out);
        return false;
    }
    int32_t vertex_a = d->f->edge_vertices[2 * (size_t)i], vertex_b = d->f->edge_vertices[2 * (size_t)i + 1];
    // the corners' entries (a corner whose slot the other holds gets one of its own)
    corner* ca = corner_at(pl, d, vertex_a);
    corner own_b, *cb = &own_b;
    if (((vertex_a ^ vertex_b) & (CORNER_CACHE - 1)) != 0)
        cb = corner_at(pl, d, vertex_b);
    else
        corner_start(d, vertex_b, &own_b);
    edge_bound bound = {r->edge_lipschitz, false};
    // first with the stored length, rounded up past the s-frame corners' rounding: most edges end
    // here, without their own length
    if (st->broad_phase && edge_beyond(d, ca, cb, corner_lower(d, ca), corner_lower(d, cb),
                                       d->f->edge_lengths[i] + d->length_margin, st->d_max, &bound)) {
        saturate(pl, out);
        return false;
    }
    // without the broad phase, phi at both corners is mostly known here (group_corners): an edge
    // that corners_beyond rules out ends before edge_narrow's frame
    if (!st->broad_phase && d->s->grid && ca->has_phi && cb->has_phi && edge_corners_beyond(pl, d, i, ca, cb)) {
        saturate(pl, out);
        return false;
    }
    return edge_narrow(pl, d, i, ca, cb, &bound, out);
}

// ---------------------------------------------------------------------------------------------
// output

// One row of an output's pose Jacobian (12 columns, A's twist then B's) from its tangents `g`
// along f's twist (docs/manifold.md, "Six tangent columns"): a rigid motion of both bodies together
// moves the row's quantity as a world point, normal or scalar does, so s's columns are that motion's
// effect (`own` of translation e_j: e_j for a point, else 0; `turn` of rotation e_j about p_S:
// e_j x (x - p_S), e_j x n or 0) less f's part of the same motion, with lever = p_F - p_S:
//     dp_S,j -> own_j - g_p,j,   dtheta_S,j -> turn_j - g_theta,j - g_p . (e_j x lever)
// (dp_S,j is -g_p,j where own_j is 0, the bits of the 12-column tangents)
static void expand_tangents(const direction* d, osc_vec3 lever, const double g[COLUMNS], const double own[3],
                            const double turn[3], double row[OUTPUT_COLUMNS]) {
    // e_j x lever for j = 0, 1, 2, component by component
    double moved[3][3] = {{0.0, -lever.z, lever.y}, {lever.z, 0.0, -lever.x}, {-lever.y, lever.x, 0.0}};
    for (int j = 0; j < TWIST_COLUMNS; ++j) row[d->col_f + j] = g[j];
    for (int j = 0; j < 3; ++j) {
        double shift = g[0] * moved[j][0] + g[1] * moved[j][1] + g[2] * moved[j][2];
        row[d->col_s + j] = own[j] != 0.0 ? own[j] - g[j] : -g[j];
        row[d->col_s + 3 + j] = turn[j] - g[3 + j] - shift;
    }
}

// writes one contact with its pose Jacobians; counts it even when there is no room
static void emit(pipeline* pl, const direction* d, const feature* c, osc_contact_kind kind, int32_t index,
                 int32_t group) {
    osc_manifold_output* out = pl->out;
    int32_t slot = out->needed++;
    if (slot >= out->capacity) return;
    out->count = slot + 1;
    osc_manifold_contact* contact = &out->contacts[slot];
    contact->point = c->point;
    contact->distance = c->distance;
    contact->normal = c->normal;
    contact->weight = c->weight;
    contact->feature = index;
    contact->kind = (int32_t)kind;
    contact->body = d->body;
    contact->group = group;
    // J_X = weight [I | -[x - p_X]x]: column 3 + j is weight e_j x (x - p_X)
    for (int b = 0; b < 2; ++b) {
        double(*jacobian)[6] = b == 0 ? contact->jacobian_a : contact->jacobian_b;
        osc_vec3 arm = osc_sub(c->point, pl->pose[b].p);
        for (int j = 0; j < 3; ++j) {
            osc_vec3 e = osc_v3(j == 0, j == 1, j == 2), r = osc_scale(osc_cross(e, arm), c->weight);
            for (int i = 0; i < 3; ++i) jacobian[i][j] = i == j ? c->weight : 0.0;
            jacobian[0][3 + j] = r.x, jacobian[1][3 + j] = r.y, jacobian[2][3 + j] = r.z;
        }
    }
    if (!pl->derivatives) return;
    // the contact's tangents along f's twist, expanded to both bodies' twists
    osc_vec3 lever = osc_sub(pl->pose[d->body].p, d->p_s), arm = osc_sub(c->point, d->p_s);
    double zero[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; ++k) {
        osc_vec3 e = osc_v3(k == 0, k == 1, k == 2);
        double point_own[3] = {e.x, e.y, e.z};
        // row k of e_j x (x - p_S) and of e_j x n: (e_j x v)_k = (v x e_k)_j
        osc_vec3 rx = osc_cross(arm, e), rn = osc_cross(c->normal, e);
        double point_turn[3] = {rx.x, rx.y, rx.z}, normal_turn[3] = {rn.x, rn.y, rn.z};
        if (out->point_jacobians)
            expand_tangents(d, lever, c->d_point[k], point_own, point_turn,
                            out->point_jacobians + ((size_t)slot * 3 + (size_t)k) * OUTPUT_COLUMNS);
        if (out->normal_jacobians)
            expand_tangents(d, lever, c->d_normal[k], zero, normal_turn,
                            out->normal_jacobians + ((size_t)slot * 3 + (size_t)k) * OUTPUT_COLUMNS);
    }
    if (out->distance_jacobians)
        expand_tangents(d, lever, c->d_distance, zero, zero, out->distance_jacobians + (size_t)slot * OUTPUT_COLUMNS);
    if (out->weight_jacobians)
        expand_tangents(d, lever, c->d_weight, zero, zero, out->weight_jacobians + (size_t)slot * OUTPUT_COLUMNS);
}

// ---------------------------------------------------------------------------------------------
// blending within a convex group (the paper's §IV-D.2, docs/manifold.md eq. B): softmax weights
// w_i = e_i / Z, e_i = exp(-(d_i - ref) / tau), accumulated in one pass; ref is the smallest distance of
// the features with weight so far and the sums are rescaled when it moves, which leaves every ratio
// unchanged. The numerators are g_i = e_i f_i by default and e_i in the paper's verbatim form, where
// saturated features (distance d_max, weight 0) are only counted and added at the end.

typedef struct blend {
    int items;     // features added with a positive weight (hard mode: best is set)
    int saturated; // features added at distance d_max with weight 0: each adds
                   // exp(-(d_max - ref) / tau) to z and d_max times that to sd, at the end
    double ref;
    double z, sd, sf, sp[3], sn[3];
    double dz[COLUMNS], dsd[COLUMNS], dsf[COLUMNS], dsp[3][COLUMNS], dsn[3][COLUMNS];
    // with derivatives: a feature with a larger distance needs no tangents (blend_cutoff), from the
    // group's vertices' bounds (`prior`) and from the features added so far
    // (sf_cut: S_f when the cutoff was last formed, in the sums' scale)
    double prior, cutoff, sf_cut;
    feature best; // hard mode (tau = 0): the deepest feature, first on ties
    bool seen;    // hard mode: any feature added
} blend;

// ln of the largest relative blend term whose tangents are dropped (docs/manifold.md, "Features
// below rounding in the blend"): eps = 2^-53, half an ulp of 1
#define BLEND_LOG_EPS (-36.7368005696771) // ln(2^-53)

// A distance above which a feature's term in the blend needs no tangents: with tau > 0, its term
// e = exp(-(d - ref) / tau) is below eps S_f, S_f = sum e f^2 over the features so far (which only
// grows in a fixed scale; rescaling leaves ref - tau ln S_f unchanged), so below eps of the final
// S_f (formed again each time S_f doubles: the cut of a smaller S_f holds too); and below eps of the term of a vertex whose phi is at most `deepest` with f_t = 1 (the
// prior, from group_corners), which the group will add. With tau = 0 the deepest feature alone
// is kept: one above the best so far or above `deepest` is never it. (+INFINITY without
// derivatives, or where nothing is known.)
OSC_NOINLINE double blend_cutoff(const pipeline* pl, const blend* b) {
    double tau = pl->settings->blend_temperature;
    if (!(tau > 0.0)) return b->items && b->best.distance < b->prior ? b->best.distance : b->prior;
    if (!b->items || !(b->sf > 0.0)) return b->prior;
    double cut = b->ref - tau * (BLEND_LOG_EPS + log(b->sf));
    return cut < b->prior ? cut : b->prior;
}

// starts a group's blend; `deepest` bounds phi at one of its vertices with f_t = 1 (group_corners;
// +INFINITY: none known), with a margin above the rounding of the distance that vertex will get
static void blend_start(const pipeline* pl, blend* b, double deepest) {
    memset(b, 0, offsetof(blend, best));
    b->seen = false;
    double tau = pl->settings->blend_temperature;
    b->prior = INFINITY;
    if (pl->derivatives && deepest < INFINITY)
        b->prior = deepest + (tau > 0.0 ? -BLEND_LOG_EPS * tau : 0.0) + 1e-12 * (fabs(deepest) + pl->settings->d_max);
    b->cutoff = b->prior;
}

static void blend_rescale(blend* b, double factor, bool derivatives) {
    b->z *= factor, b->sd *= factor, b->sf *= factor, b->sf_cut *= factor;
    for (int k = 0; k < 3; ++k) b->sp[k] *= factor, b->sn[k] *= factor;
    if (!derivatives) return;
    for (int j = 0; j < COLUMNS; ++j) {
        b->dz[j] *= factor, b->dsd[j] *= factor, b->dsf[j] *= factor;
        for (int k = 0; k < 3; ++k) b->dsp[k][j] *= factor, b->dsn[k][j] *= factor;
    }
}

// adds one feature (blend_add's work but for saturated features with tau > 0)
OSC_AVX_CLONES
static void blend_add_feature(const pipeline* pl, blend* restrict b, const feature* restrict c, bool active) {
    double tau = pl->settings->blend_temperature;
    if (!(tau > 0.0)) {
        if (!b->seen || c->distance < b->best.distance) {
            if (active)
                b->best = *c;
            else
                saturate(pl, &b->best);
            b->items = active;
        }
        b->seen = true;
        if (pl->derivatives) b->cutoff = blend_cutoff(pl, b);
        return;
    }
    bool verbatim = pl->settings->blend_saturated;
    if (!active) { // f = 0 and zero tangents: in the paper's form, the denominator and distance change
        b->saturated += verbatim;
        return;
    }
    if (!b->items) {
        b->ref = c->distance;
    } else if (c->distance < b->ref) {
        blend_rescale(b, exp((c->distance - b->ref) / tau), pl->derivatives);
        b->ref = c->distance;
    }
    // the softmax numerator g = e (the paper's form) or e f (contacts with weight only)
    double e = exp(-(c->distance - b->ref) / tau);
    double g = verbatim ? e : e * c->weight;
    b->z += g;
    b->sd += g * c->distance;
    b->items++;
    double gf = g * c->weight;
    b->sf += gf;
    double x[3] = {c->point.x, c->point.y, c->point.z}, n[3] = {c->normal.x, c->normal.y, c->normal.z};
    for (int k = 0; k < 3; ++k) b->sp[k] += gf * x[k], b->sn[k] += gf * n[k];
    if (!pl->derivatives) return;
    if (b->sf > 2.0 * b->sf_cut) { // (a cutoff from a smaller S_f holds too: one log per doubling)
        b->sf_cut = b->sf;
        b->cutoff = blend_cutoff(pl, b);
    }
    if (!c->tangents) return; // its term is negligible (blend_cutoff): its tangents are dropped
    // the tangents column by column, in loops without branches (they vectorise): dg = de or
    // de f + e df
    double dg[COLUMNS], dgf[COLUMNS];
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) dg[j] = -e * c->d_distance[j] / tau;
    if (!verbatim)
        COLUMN_LOOP
        for (int j = 0; j < COLUMNS; ++j) dg[j] = dg[j] * c->weight + e * c->d_weight[j];
    COLUMN_LOOP
    for (int j = 0; j < COLUMNS; ++j) {
        dgf[j] = dg[j] * c->weight + g * c->d_weight[j];
        b->dz[j] += dg[j];
        b->dsd[j] += dg[j] * c->distance + g * c->d_distance[j];
        b->dsf[j] += dgf[j];
    }
    for (int k = 0; k < 3; ++k)
        COLUMN_LOOP
        for (int j = 0; j < COLUMNS; ++j) {
            b->dsp[k][j] += dgf[j] * x[k] + gf * c->d_point[k][j];
            b->dsn[k][j] += dgf[j] * n[k] + gf * c->d_normal[k][j];
        }
}

// adds one feature; `active` is false for a saturated one (distance d_max, weight 0, no tangents),
// which with tau > 0 is only counted (most features: inline, without the call)
static inline void blend_add(const pipeline* pl, blend* b, const feature* c, bool active) {
    if (!active && pl->settings->blend_temperature > 0.0) {
        b->saturated += pl->settings->blend_saturated;
        return;
    }
    blend_add_feature(pl, b, c, active);
}

// adds `count` saturated features (blend_add's work for each)
static void blend_add_saturated(const pipeline* pl, blend* b, int32_t count) {
    if (pl->settings->blend_temperature > 0.0) {
        b->saturated += count * pl->settings->blend_saturated;
        return;
    }
    feature c;
    saturate(pl, &c);
    for (int32_t k = 0; k < count; ++k) blend_add_feature(pl, b, &c, false);
}

// the blended contact: distance sd / z, weight W = sf / z, point sp / sf, normal sn / |sn|
// (eq. B); false when the group carries no weight
static bool blend_finish(const pipeline* pl, blend* b, feature* out) {
    if (!(pl->settings->blend_temperature > 0.0)) {
        if (!b->items) return false;
        *out = b->best;
        return true;
    }
    if (!b->items || !(b->sf > 0.0)) return false;
    // the saturated features' terms (their distance d_max is never below ref, so no overflow)
    double d_max = pl->settings->d_max;
    double e_saturated = b->saturated * exp(-(d_max - b->ref) / pl->settings->blend_temperature);
    double z = b->z + e_saturated, sd = b->sd + e_saturated * d_max;
    double distance = sd / z, weight = b->sf / z;
    osc_vec3 point = osc_v3(b->sp[0] / b->sf, b->sp[1] / b->sf, b->sp[2] / b->sf);
    osc_vec3 m = osc_v3(b->sn[0], b->sn[1], b->sn[2]);
    double length = osc_length(m);
    osc_vec3 n = length > 0.0 ? osc_scale(m, 1.0 / length) : osc_v3(0.0, 0.0, 0.0);
    out->distance = distance;
    out->weight = weight;
    out->point = point;
    out->normal = n;
    if (!pl->derivatives) return true;
    double p[3] = {point.x, point.y, point.z}, nv[3] = {n.x, n.y, n.z};
    for (int j = 0; j < COLUMNS; ++j) {
        out->d_distance[j] = (b->dsd[j] - distance * b->dz[j]) / z;
        out->d_weight[j] = (b->dsf[j] - weight * b->dz[j]) / z;
        for (int k = 0; k < 3; ++k) out->d_point[k][j] = (b->dsp[k][j] - p[k] * b->dsf[j]) / b->sf;
        double along = 0.0;
        for (int k = 0; k < 3; ++k) along += nv[k] * b->dsn[k][j];
        for (int k = 0; k < 3; ++k) out->d_normal[k][j] = length > 0.0 ? (b->dsn[k][j] - nv[k] * along) / length : 0.0;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// the pipeline

// copies a feature (its tangents only with `derivatives`, else it has none)
static void feature_copy(feature* to, const feature* from, bool derivatives) {
    if (derivatives) {
        *to = *from;
        return;
    }
    to->distance = from->distance, to->weight = from->weight;
    to->point = from->point, to->normal = from->normal;
    to->tangents = false;
}

// empties the tables of the direction about to run: corners, their tangents and the shared edges
// (whose pool is all free)
static void clear_direction_tables(pipeline* pl) {
    for (int k = 0; k < CORNER_CACHE; ++k) pl->cache->entry[k].vertex = -1;
    for (int k = 0; k < TANGENT_CACHE; ++k) pl->tangents->vertex[k] = -1;
    shared_edges* shared = pl->shared;
    memset(shared->edge, 0xff, sizeof shared->edge); // all -1
    shared->free_count = SHARED_POOL;
    for (int k = 0; k < SHARED_POOL; ++k) shared->free_slots[k] = (int16_t)(SHARED_POOL - 1 - k);
}

// edge_contact of stored edge e, which lies in two groups' lists, blended into `b`: its second
// visit in the current direction takes the first's result from the shared-edge table (a saturated
// verdict, or the feature kept in the pool), and a first visit leaves its result there
OSC_FORCE_INLINE void shared_edge_contact(pipeline* pl, const direction* d, runs* r, int32_t e, blend* b) {
    shared_edges* shared = pl->shared;
    int slot = e & (SHARED_EDGES - 1);
    bool second = shared->edge[slot] == e;
    feature c;
    if (second && shared->result[slot] >= 0 && !shared->pool[shared->result[slot]].tangents && pl->derivatives &&
        !(shared->pool[shared->result[slot]].distance > pl->tangent_cutoff)) {
        // kept without tangents (negligible in the first group), not negligible here: again
        shared->free_slots[shared->free_count++] = shared->result[slot];
        shared->result[slot] = SHARED_NOT_KEPT;
    }
    if (second && shared->result[slot] != SHARED_NOT_KEPT) {
        int kept = shared->result[slot];
        shared->edge[slot] = -1;
        if (kept == SHARED_SATURATED) {
            saturate(pl, &c);
            blend_add(pl, b, &c, false);
        } else {
            blend_add(pl, b, &shared->pool[kept], true);
            shared->free_slots[shared->free_count++] = (int16_t)kept;
        }
        return;
    }
    bool active = edge_contact(pl, d, r, e, &c);
    blend_add(pl, b, &c, active);
    if (second) { // its first visit's feature was not kept
        shared->edge[slot] = -1;
        return;
    }
    if (shared->edge[slot] >= 0 && shared->result[slot] >= 0) // another edge's kept feature
        shared->free_slots[shared->free_count++] = shared->result[slot];
    shared->edge[slot] = e;
    shared->result[slot] = active ? SHARED_NOT_KEPT : SHARED_SATURATED;
    if (active && shared->free_count > 0) {
        int16_t kept = shared->free_slots[--shared->free_count];
        feature_copy(&shared->pool[kept], &c, pl->derivatives && c.tangents);
        shared->result[slot] = kept;
    }
}

static void run_direction(pipeline* pl, const direction* d) {
    const osc_manifold_settings* st = pl->settings;
    const osc_body* f = d->f;
    // the whole mesh beyond d_max: every feature is saturated and nothing is emitted (before the
    // tables are cleared: 23 KB written for nothing in every configuration far apart)
    if (st->broad_phase && sphere_beyond(pl, d, f->sphere, NULL)) return;
    clear_direction_tables(pl);
    runs r;
    r.vertex_run = -1;
    r.vertex_skip = false;
    r.edge_lipschitz = 0.0;
    r.vertex_bounds_known = false;
    for (int k = 0; k < EDGE_RUN_TABLE; ++k) r.edge_run[k] = -1;
    feature c;
    if (st->blend && f->group_count > 0) {
        blend b;
        bool far_groups[BALL_BATCH]; // the verdicts of the next BALL_BATCH groups' spheres
        for (int32_t g = 0; g < f->group_count; ++g) {
            if (st->broad_phase && g % BALL_BATCH == 0)
                body_balls_beyond(d->s, &d->rel_r, d->rel_p, f->group_spheres + 4 * (size_t)g,
                                  f->group_count - g < BALL_BATCH ? f->group_count - g : BALL_BATCH, st->d_max,
                                  far_groups);
            // every feature of the group beyond d_max: all saturated, so it emits nothing
            if (st->broad_phase && far_groups[g % BALL_BATCH]) continue;
            double deepest = INFINITY;
            bool far[GROUP_BLOCKS_KEPT]; // the group's blocks of vertices beyond d_max (group_corners)
            if (st->broad_phase || d->s->grid) deepest = group_corners(pl, d, g, st->broad_phase ? far : NULL);
            blend_start(pl, &b, deepest);
            r.vertex_bounds_known = st->broad_phase;
            // a block of the group's vertices or edges beyond d_max is saturated whole
            for (int32_t k = f->group_vertex_block_start[g]; k < f->group_vertex_block_start[g + 1]; ++k) {
                int32_t from = f->vertex_block_first[k], to = f->vertex_block_first[k + 1];
                int32_t kept = k - f->group_vertex_block_start[g];
                if (st->broad_phase && kept < GROUP_BLOCKS_KEPT && far[kept]) {
                    blend_add_saturated(pl, &b, to - from);
                    continue;
                }
                for (int32_t i = from; i < to; ++i) {
                    pl->tangent_cutoff = b.cutoff;
                    bool active = vertex_contact(pl, d, &r, i, &c);
                    blend_add(pl, &b, &c, active);
                }
            }
            bool far_edges[BALL_BATCH]; // the verdicts of the next BALL_BATCH edge blocks (body_balls_beyond)
            for (int32_t k0 = f->group_edge_block_start[g], k1 = f->group_edge_block_start[g + 1]; st->edges && k0 < k1;
                 k0 += BALL_BATCH) {
                int batch = k1 - k0 < BALL_BATCH ? k1 - k0 : BALL_BATCH;
                if (st->broad_phase)
                    body_balls_beyond(d->s, &d->rel_r, d->rel_p, f->group_edge_blocks + 4 * (size_t)k0, batch, st->d_max,
                                      far_edges);
                for (int j = 0; j < batch; ++j) {
                    int32_t from = f->edge_block_first[k0 + j], to = f->edge_block_first[k0 + j + 1];
                    if (st->broad_phase && far_edges[j]) {
                        blend_add_saturated(pl, &b, to - from);
                        continue;
                    }
                    for (int32_t i = from; i < to; ++i) {
                        int32_t e = f->group_edges[i];
                        pl->tangent_cutoff = b.cutoff;
                        if (f->edge_shared[e]) {
                            shared_edge_contact(pl, d, &r, e, &b);
                            continue;
                        }
                        bool active = edge_contact(pl, d, &r, e, &c);
                        blend_add(pl, &b, &c, active);
                    }
                }
            }
            if (blend_finish(pl, &b, &c)) emit(pl, d, &c, OSC_CONTACT_GROUP, g, g);
        }
        pl->tangent_cutoff = INFINITY;
        return;
    }
    for (int32_t i = 0; i < f->vertex_count; ++i)
        if (vertex_contact(pl, d, &r, i, &c))
            emit(pl, d, &c, OSC_CONTACT_VERTEX, f->vertex_index[i], f->vertex_group[i]);
    for (int32_t i = 0; st->edges && i < f->edge_count; ++i)
        if (edge_contact(pl, d, &r, i, &c)) emit(pl, d, &c, OSC_CONTACT_EDGE, f->edge_index[i], f->edge_group[i]);
}

static direction make_direction(const osc_body* f, osc_pose pose_f, const osc_body* s, osc_pose pose_s, int f_is_a) {
    direction d;
    d.f = f;
    d.s = s;
    d.r_s = osc_quat_to_mat3(pose_s.q);
    d.p_s = pose_s.p;
    osc_mat3 r_st = osc_mat3_transpose(d.r_s);
    d.rel_r = osc_mat3_mul(r_st, osc_quat_to_mat3(pose_f.q));
    d.rel_p = osc_mat3_apply(r_st, osc_sub(pose_f.p, pose_s.p));
    d.col_f = f_is_a ? 0 : 6;
    d.col_s = f_is_a ? 6 : 0;
    d.sign = f_is_a ? -1.0 : 1.0;
    d.body = f_is_a ? 0 : 1;
    // the s-frame corners are rounded by a few ulps of |rel_r v| + |rel_p| each
    double reach = osc_length(osc_v3(f->sphere[0], f->sphere[1], f->sphere[2])) + f->sphere[3];
    d.length_margin = 1e-12 * (reach + osc_length(d.rel_p));
    return d;
}

static osc_status check_settings(const char* function, const osc_manifold_settings* s) {
    struct {
        const char* name;
        double value;
    } lengths[] = {{"d_max", s->d_max},
                   {"bandwidth", s->bandwidth},
                   {"trace_temperature", s->trace_temperature},
                   {"clip_temperature", s->clip_temperature},
                   {"blend_temperature", s->blend_temperature}};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; ++i)
        if (!(lengths[i].value >= 0.0) || !isfinite(lengths[i].value))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->%s is %g (must be finite and >= 0)", function,
                            lengths[i].name, lengths[i].value);
    if (s->iterations < 0 || s->iterations > 64)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->iterations is %d (must be in 0..64)", function,
                        s->iterations);
    struct {
        const char* name;
        int value;
    } switches[] = {{"blend", s->blend},
                    {"broad_phase", s->broad_phase},
                    {"edges", s->edges},
                    {"blend_saturated", s->blend_saturated}};
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; ++i)
        if (switches[i].value != 0 && switches[i].value != 1)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: settings->%s is %d (must be 0 or 1)", function,
                            switches[i].name, switches[i].value);
    return OSC_OK;
}

// the query itself, on validated arguments (normalised quaternions)
static void collide(const osc_body* a, osc_pose pose_a, const osc_body* b, osc_pose pose_b,
                    const osc_manifold_settings* settings, osc_manifold_output* out) {
    pipeline pl;
    pl.settings = settings;
    pl.derivatives = out->point_jacobians || out->distance_jacobians || out->normal_jacobians || out->weight_jacobians;
    pl.pose[0] = pose_a;
    pl.pose[1] = pose_b;
    pl.out = out;
    corner_table cache;
    pl.cache = &cache;
    shared_edges shared;
    pl.shared = &shared;
    corner_tangents tangents;
    pl.tangents = &tangents;
    pl.tangent_cutoff = INFINITY;
    out->count = 0;
    out->needed = 0;
    direction ab = make_direction(a, pose_a, b, pose_b, 1);
    run_direction(&pl, &ab);
    direction ba = make_direction(b, pose_b, a, pose_a, 0);
    run_direction(&pl, &ba);
}

osc_status osc_manifold_collide(const osc_body* a, osc_pose pose_a, const osc_body* b, osc_pose pose_b,
                                const osc_manifold_settings* settings, osc_manifold_output* out) {
    const char* function = "osc_manifold_collide";
    if (!a) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: body a is NULL", function);
    if (!b) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: body b is NULL", function);
    osc_manifold_settings defaults = osc_manifold_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_settings(function, settings);
    if (status) return status;
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output is NULL", function);
    if ((status = osc_check_output(function, out->contacts, out->capacity))) return status;
    if ((status = osc_check_pose(function, "pose_a", pose_a, INFINITY, NULL, &pose_a)) ||
        (status = osc_check_pose(function, "pose_b", pose_b, INFINITY, NULL, &pose_b)))
        return status;
    collide(a, pose_a, b, pose_b, settings, out);
    return osc_finish_output(function, out->needed, out->capacity);
}

// slot i of a batch: the single call into outputs[i]
static osc_status batch_slot(const osc_query_batch* batch, size_t i) {
    const osc_manifold_batch_item* item = (const osc_manifold_batch_item*)batch->items + i;
    return osc_manifold_collide(item->a, item->pose_a, item->b, item->pose_b, batch->settings,
                                (osc_manifold_output*)batch->outputs + i);
}

osc_status osc_manifold_collide_batch(const osc_manifold_batch_item* items, size_t count,
                                      const osc_manifold_settings* settings, osc_manifold_output* outputs,
                                      osc_status* statuses, int threads) {
    const osc_query_batch batch = {
        "osc_manifold_collide_batch", "outputs", items, outputs, settings, NULL, batch_slot, 1};
    return osc_query_batch_run(&batch, count, statuses, threads);
}
