// osculate: smoothly differentiable collision detection and contact generation.
// SPDX-License-Identifier: MIT
//
// lmd_cable.c: local minimal distances between a B-Rep solid and a cable, a Bezier curve dilated
// by a radius whose control points move every step (Crozet 2017, §3.5 and §4.3.3): the hybrid
// subdivision (a BVH over a few static pieces of the curve refitted at each call, traversed
// against the B-Rep's BVH, its leaf pairs split at query time until the piece is quasi-flat), the
// footpoints of lmd_footpoint.c, and the gap's gradients with respect to the control points
// (docs/lmd.md, "Cables").

#include <math.h>
#include <string.h>

#include "array_internal.h"
#include "lmd_internal.h"
#include "query_internal.h"
#include "osculate/math.h"

struct osc_lmd_cable_cache {
    lmd_cable_job* jobs;
    size_t job_count, job_cap;
    lmd_job_result* results;
    size_t result_cap;
    osc_lmd_contact* slots;
    size_t slot_cap;
    tagged_contact* found;
    size_t found_cap;
    int* stack; // pairs (cable node, B-Rep node)
    size_t stack_cap;
};

osc_status osc_lmd_cable_cache_create(osc_lmd_cable_cache** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_lmd_cable_cache_create: out is NULL");
    *out = osc_calloc(1, sizeof(osc_lmd_cable_cache));
    return *out ? OSC_OK : osc_fail_in("osc_lmd_cable_cache_create", OSC_ERR_NO_MEMORY);
}

void osc_lmd_cable_cache_destroy(osc_lmd_cable_cache* cache) {
    if (!cache) return;
    osc_free(cache->jobs);
    osc_free(cache->results);
    osc_free(cache->slots);
    osc_free(cache->found);
    osc_free(cache->stack);
    osc_free(cache);
}

#define GROW(array, cap, need) (OSC_ARRAY_RESERVE(array, cap, need) == OSC_OK)

// ---- the curve's bounds --------------------------------------------------------------------------

// A node of the cable's BVH, or a piece split at query time: the parameters [t0, t1], a ball
// around the piece's control polygon, the cone of revolution around its hodograph's control
// vectors (every tangent of the piece, thesis eq. 3.31); children -1 at the static pieces.
typedef struct cable_node {
    double t0, t1;
    osc_vec3 center;
    double radius;
    osc_vec3 cone_axis;
    double cone_angle; // >= pi: no bound
    int left, right;
} cable_node;

// The bounds of the piece [t0, t1] from its Bezier control points (blossoms of the curve).
static void piece_bounds(const lmd_cable* c, double t0, double t1, cable_node* node) {
    const int p = c->nurbs.degree[0];
    double cw[4 * OSC_CABLE_MAX_CONTROL_POINTS], work[16 * OSC_CABLE_MAX_CONTROL_POINTS],
        net[3 * 2 * OSC_CABLE_MAX_CONTROL_POINTS];
    osc_nurbs_bezier(&c->nurbs, &t0, &t1, cw);
    osc_vec3 lo = osc_v3(cw[0], cw[1], cw[2]), hi = lo;
    for (int i = 1; i <= p; i++) {
        osc_vec3 q = osc_v3(cw[4 * i], cw[4 * i + 1], cw[4 * i + 2]);
        lo = osc_v3(fmin(lo.x, q.x), fmin(lo.y, q.y), fmin(lo.z, q.z));
        hi = osc_v3(fmax(hi.x, q.x), fmax(hi.y, q.y), fmax(hi.z, q.z));
    }
    node->t0 = t0;
    node->t1 = t1;
    node->center = osc_scale(osc_add(lo, hi), 0.5);
    node->radius = 0.0;
    for (int i = 0; i <= p; i++)
        node->radius =
            fmax(node->radius, osc_length(osc_sub(osc_v3(cw[4 * i], cw[4 * i + 1], cw[4 * i + 2]), node->center)));
    int vectors = osc_nurbs_tangent_net(cw, p, 0, work, net);
    node->cone_angle = osc_vectors_cone(net, vectors, &node->cone_axis);
    node->left = node->right = -1;
}

// The smallest ball holding two balls.
static void merge_balls(osc_vec3 ca, double ra, osc_vec3 cb, double rb, osc_vec3* c, double* r) {
    osc_vec3 d = osc_sub(cb, ca);
    double l = osc_length(d);
    if (l + rb <= ra) {
        *c = ca;
        *r = ra;
    } else if (l + ra <= rb) {
        *c = cb;
        *r = rb;
    } else {
        *r = 0.5 * (l + ra + rb);
        *c = osc_add(ca, osc_scale(d, (*r - ra) / l));
    }
}

// A cone of revolution holding two (pi: none).
static void merge_cones(osc_vec3 aa, double ta, osc_vec3 ab, double tb, osc_vec3* axis, double* angle) {
    if (ta >= k_pi || tb >= k_pi) {
        *axis = aa;
        *angle = k_pi;
        return;
    }
    double phi = acos(fmax(-1.0, fmin(1.0, osc_dot(aa, ab))));
    if (phi + tb <= ta) {
        *axis = aa;
        *angle = ta;
        return;
    }
    if (phi + ta <= tb) {
        *axis = ab;
        *angle = tb;
        return;
    }
    double half = 0.5 * (phi + ta + tb);
    if (half >= k_pi || phi > k_pi - 1e-9) {
        *axis = aa;
        *angle = k_pi;
        return;
    }
    // the axis turned from aa toward ab by half - ta, in their plane
    osc_vec3 w = osc_sub(ab, osc_scale(aa, osc_dot(aa, ab)));
    double wl = osc_length(w);
    double turn = half - ta;
    *axis = wl > 1e-300 ? osc_normalize(osc_add(osc_scale(aa, cos(turn)), osc_scale(w, sin(turn) / wl))) : aa;
    *angle = half + 1e-12;
}

// Builds the BVH over the static pieces [lo, hi) of the curve (the tree's shape depends only on the
// piece count; its bounds are refitted from the control points at every call); returns the node.
static int build_nodes(const lmd_cable* c, int lo, int hi, cable_node* nodes, int* count) {
    int index = (*count)++;
    cable_node* n = &nodes[index];
    if (hi - lo == 1) {
        piece_bounds(c, (double)lo / c->pieces, (double)hi / c->pieces, n);
        return index;
    }
    int mid = (lo + hi) / 2;
    int left = build_nodes(c, lo, mid, nodes, count);
    int right = build_nodes(c, mid, hi, nodes, count);
    n = &nodes[index];
    n->t0 = nodes[left].t0;
    n->t1 = nodes[right].t1;
    merge_balls(nodes[left].center, nodes[left].radius, nodes[right].center, nodes[right].radius, &n->center,
                &n->radius);
    merge_cones(nodes[left].cone_axis, nodes[left].cone_angle, nodes[right].cone_axis, nodes[right].cone_angle,
                &n->cone_axis, &n->cone_angle);
    n->left = left;
    n->right = right;
    return index;
}

// ---- culling --------------------------------------------------------------------------------------

typedef struct cable_traversal {
    const lmd_body* body;
    const lmd_cable* cable;
    double reach; // d_max + radius: the largest centre-curve distance of interest
    double alpha; // the quasi-LMD dilation angle
    double flat;  // a piece is quasi-flat when its tangent cone's full angle is at most this
    int culling;  // settings.culling: 0 keeps every pair (for testing)
    osc_lmd_cable_cache* cache;
} cable_traversal;

// The distance from the body-frame point x to a B-Rep node's OBB.
static double obb_distance(const osc_brep_node* n, osc_vec3 x) {
    osc_vec3 d = osc_sub(x, n->center);
    double h[3] = {n->half.x, n->half.y, n->half.z}, s = 0.0;
    for (int i = 0; i < 3; i++) {
        double e = fabs(osc_dot(d, n->axis[i])) - h[i];
        if (e > 0.0) s += e * e;
    }
    return sqrt(s);
}

// True when no local minimal distance can lie between the cable's piece (ball, tangent cone; world)
// and the B-Rep node: the ball is farther than `reach` from the OBB, or no direction within alpha
// of the node's normal cone is within alpha of orthogonal to a tangent of the piece (the
// orthogonality test of thesis §3.5.1.1, the B-Rep's normals standing for the solution lines: an
// LMD's direction lies in both the B-Rep's normal cone and the curve's normal plane).
static bool culled(const cable_traversal* t, const cable_node* c, const osc_brep_node* n, bool orthogonality) {
    if (!t->culling) return false;
    osc_vec3 center = osc_pose_apply_inverse(t->body->pose, c->center);
    if (obb_distance(n, center) > c->radius + t->reach) return true;
    if (!orthogonality || n->cone_angle >= k_pi || c->cone_angle >= k_pi) return false;
    osc_vec3 axis = osc_mat3_apply_transpose(t->body->rotation, c->cone_axis);
    double phi = acos(fmax(-1.0, fmin(1.0, osc_dot(axis, n->cone_axis))));
    return fabs(phi - 0.5 * k_pi) > n->cone_angle + c->cone_angle + 2.0 * t->alpha + 1e-12;
}

static bool push_job(cable_traversal* t, int leaf, int end, const cable_node* piece) {
    osc_lmd_cable_cache* cache = t->cache;
    if (!GROW(cache->jobs, cache->job_cap, cache->job_count + 1)) return false;
    lmd_cable_job* job = &cache->jobs[cache->job_count++];
    job->leaf = leaf;
    job->end = end;
    job->t0 = piece->t0;
    job->t1 = piece->t1;
    job->center = piece->center;
    job->reach = piece->radius;
    return true;
}

// The dynamic part of the hybrid subdivision (thesis Algorithm 14): a static piece against a B-Rep
// leaf, split at its middle parameter until quasi-flat (or 8 levels down), each half culled again.
static bool subdivide(cable_traversal* t, const cable_node* piece, const osc_brep_node* leaf_node) {
    struct {
        cable_node node;
        int depth;
    } stack[16];
    int top = 0;
    stack[top].node = *piece;
    stack[top++].depth = 0;
    while (top > 0) {
        --top;
        cable_node n = stack[top].node;
        int depth = stack[top].depth;
        if (2.0 * n.cone_angle <= t->flat || depth >= 8) {
            if (!push_job(t, leaf_node->leaf, -1, &n)) return false;
            continue;
        }
        double mid = 0.5 * (n.t0 + n.t1);
        cable_node halves[2];
        piece_bounds(t->cable, mid, n.t1, &halves[0]); // pushed first: the second half runs last
        piece_bounds(t->cable, n.t0, mid, &halves[1]);
        for (int k = 0; k < 2; k++)
            if (!culled(t, &halves[k], leaf_node, true)) {
                stack[top].node = halves[k];
                stack[top++].depth = depth + 1;
            }
    }
    return true;
}

// The simultaneous traversal of the cable's BVH and the B-Rep's (thesis Algorithm 14), appending
// the jobs of the quasi-flat pieces.
static bool traverse(cable_traversal* t, const cable_node* nodes) {
    const osc_brep_node* bn = t->body->brep->nodes;
    osc_lmd_cable_cache* cache = t->cache;
    size_t top = 0;
    if (!GROW(cache->stack, cache->stack_cap, 2)) return false;
    cache->stack[top++] = 0;
    cache->stack[top++] = 0;
    while (top > 0) {
        int ib = cache->stack[--top], ic = cache->stack[--top];
        const cable_node* c = &nodes[ic];
        const osc_brep_node* n = &bn[ib];
        if (culled(t, c, n, true)) continue;
        bool leaf_c = c->left < 0, leaf_b = n->leaf >= 0;
        if (leaf_c && leaf_b) {
            if (!subdivide(t, c, n)) return false;
            continue;
        }
        if (!GROW(cache->stack, cache->stack_cap, top + 4)) return false;
        if (leaf_b || (!leaf_c && c->radius > n->radius)) {
            cache->stack[top++] = c->right;
            cache->stack[top++] = ib;
            cache->stack[top++] = c->left;
            cache->stack[top++] = ib;
        } else {
            cache->stack[top++] = ic;
            cache->stack[top++] = n->right;
            cache->stack[top++] = ic;
            cache->stack[top++] = n->left;
        }
    }
    return true;
}

// The jobs of the curve's ends (a point: the distance test alone) against the B-Rep's leaves.
static bool traverse_end(cable_traversal* t, int end) {
    const osc_brep_node* bn = t->body->brep->nodes;
    osc_lmd_cable_cache* cache = t->cache;
    cable_node point;
    memset(&point, 0, sizeof point);
    point.t0 = point.t1 = end;
    double te = end;
    osc_geo_eval(&t->cable->geo, &te, &point.center, NULL, NULL);
    point.cone_angle = k_pi;
    size_t top = 0;
    if (!GROW(cache->stack, cache->stack_cap, 1)) return false;
    cache->stack[top++] = 0;
    while (top > 0) {
        const osc_brep_node* n = &bn[cache->stack[--top]];
        if (culled(t, &point, n, false)) continue;
        if (n->leaf >= 0) {
            if (!push_job(t, n->leaf, end, &point)) return false;
            continue;
        }
        if (!GROW(cache->stack, cache->stack_cap, top + 2)) return false;
        cache->stack[top++] = n->right;
        cache->stack[top++] = n->left;
    }
    return true;
}

// ---- the footpoint stage --------------------------------------------------------------------------

typedef struct cable_stage {
    const lmd_body* body;
    const lmd_cable* cable;
    const osc_lmd_settings* settings;
    const lmd_cable_job* jobs;
    lmd_job_result* results;
    osc_lmd_contact* slots;
} cable_stage;

static osc_status solve_item(void* context, size_t index) {
    const cable_stage* s = context;
    osc_lmd_solve_cable_pair(s->body, s->cable, s->settings, &s->jobs[index], &s->slots[index], &s->results[index]);
    return OSC_OK;
}

// A thread of the footpoint stage takes at least this many jobs (as osc_lmd_query's leaf pairs).
enum { JOBS_PER_THREAD = 16 };

// ---- the query ------------------------------------------------------------------------------------

// Bernstein polynomials B_i^n(t), i = 0..n (de Casteljau's recurrence).
static void bernstein(int n, double t, double* b) {
    b[0] = 1.0;
    for (int k = 1; k <= n; k++) {
        b[k] = t * b[k - 1];
        for (int j = k - 1; j >= 1; j--) b[j] = (1.0 - t) * b[j] + t * b[j - 1];
        b[0] *= 1.0 - t;
    }
}

static osc_status check_cable(const char* function, const osc_cable* cable) {
    if (!cable) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable is NULL", function);
    if (cable->degree < 1 || cable->degree > OSC_CABLE_MAX_CONTROL_POINTS - 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable.degree %d is outside [1, %d]", function, cable->degree,
                        OSC_CABLE_MAX_CONTROL_POINTS - 1);
    if (!cable->control_points) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable.control_points is NULL", function);
    for (int i = 0; i <= cable->degree; i++) {
        osc_vec3 p = cable->control_points[i];
        if (!osc_is_finite3(p.x, p.y, p.z) || fabs(p.x) > OSC_LMD_MAX_LENGTH || fabs(p.y) > OSC_LMD_MAX_LENGTH ||
            fabs(p.z) > OSC_LMD_MAX_LENGTH)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "%s: cable.control_points[%d] (%g, %g, %g) is not finite or beyond OSC_LMD_MAX_LENGTH",
                            function, i, p.x, p.y, p.z);
    }
    bool moves = false;
    for (int i = 1; i <= cable->degree; i++)
        moves = moves || osc_length(osc_sub(cable->control_points[i], cable->control_points[0])) > 0.0;
    if (!moves)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable.control_points all coincide: the curve is a point",
                        function);
    if (!(cable->radius > 0.0 && cable->radius <= OSC_LMD_MAX_LENGTH))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable.radius %g is outside (0, %g]", function, cable->radius,
                        OSC_LMD_MAX_LENGTH);
    if (cable->pieces < 0 || cable->pieces > OSC_CABLE_MAX_PIECES)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: cable.pieces %d is outside [0, %d]", function, cable->pieces,
                        OSC_CABLE_MAX_PIECES);
    return OSC_OK;
}

// The cable in the frame whose origin is `origin`, as a one-span clamped B-spline.
static void make_cable(const osc_cable* in, osc_vec3 origin, lmd_cable* c) {
    memset(c, 0, sizeof *c);
    const int p = in->degree;
    for (int i = 0; i <= p; i++) {
        osc_vec3 q = osc_sub(in->control_points[i], origin);
        c->cw[4 * i] = q.x;
        c->cw[4 * i + 1] = q.y;
        c->cw[4 * i + 2] = q.z;
        c->cw[4 * i + 3] = 1.0;
        c->knots[i] = 0.0;
        c->knots[p + 1 + i] = 1.0;
        c->scale = fmax(c->scale, 2.0 * osc_length(osc_sub(in->control_points[i], in->control_points[0])));
    }
    osc_nurbs* n = &c->nurbs;
    n->dim = 1;
    n->degree[0] = p;
    n->count[0] = p + 1;
    n->count[1] = 1;
    n->knots[0] = c->knots;
    n->cw = c->cw;
    n->hi[0] = 1.0;
    n->extent = 0.5 * c->scale;
    c->scale = fmax(c->scale, in->radius);
    c->geo = osc_geo_from_nurbs(n, 1);
    c->radius = in->radius;
    c->pieces = in->pieces > 0 ? in->pieces : 8;
}

// The left-out faces of the B-Rep (body at `body`) whose boxes come within `reach` of the ball.
static int32_t skipped_reached(const lmd_body* body, osc_vec3 center, double radius, double reach) {
    const osc_brep* b = body->brep;
    osc_vec3 x = osc_pose_apply_inverse(body->pose, center);
    int32_t count = 0;
    for (int i = 0; i < b->skipped_count; i++) {
        const osc_brep_skipped* s = &b->skipped[i];
        double e2 = 0.0;
        double lo[3] = {s->lo.x, s->lo.y, s->lo.z}, hi[3] = {s->hi.x, s->hi.y, s->hi.z}, p[3] = {x.x, x.y, x.z};
        for (int k = 0; k < 3; k++) {
            double e = fmax(lo[k] - p[k], p[k] - hi[k]);
            if (e > 0.0) e2 += e * e;
        }
        count += sqrt(e2) <= radius + reach;
    }
    return count;
}

static osc_status run_query(const lmd_body* body, const lmd_cable* cable, const osc_lmd_settings* s, int threads,
                            osc_lmd_cable_cache* cache, osc_lmd_cable_output* out, const cable_node* nodes) {
    cable_traversal t = {body,       cable, s->d_max + cable->radius, s->alpha, body->brep->settings.alpha_max,
                         s->culling, cache};
    cache->job_count = 0;
    if (body->brep->node_count > 0) {
        if (!traverse(&t, nodes) || !traverse_end(&t, 0) || !traverse_end(&t, 1)) return OSC_ERR_NO_MEMORY;
    }
    size_t jobs = cache->job_count;
    if (!GROW(cache->results, cache->result_cap, jobs) || !GROW(cache->slots, cache->slot_cap, jobs))
        return OSC_ERR_NO_MEMORY;
    cable_stage stage = {body, cable, s, cache->jobs, cache->results, cache->slots};
    osc_status status =
        osc_batch_run("osc_lmd_cable_query", "job", jobs, threads, JOBS_PER_THREAD, solve_item, &stage, NULL);
    if (status != OSC_OK) return status;
    size_t found = 0;
    for (size_t i = 0; i < jobs; i++) found += (size_t)cache->results[i].count;
    if (!GROW(cache->found, cache->found_cap, found)) return OSC_ERR_NO_MEMORY;
    found = 0;
    for (size_t i = 0; i < jobs; i++)
        if (cache->results[i].count > 0) {
            cache->found[found].c = cache->slots[i];
            cache->found[found++].job = i;
        }
    size_t unique = osc_lmd_merge_duplicates(cache->found, found, 1e-5 * fmax(body->brep->scale, cable->scale));
    out->needed = unique < (size_t)INT32_MAX ? (int32_t)unique : INT32_MAX;
    out->count = out->needed < out->capacity ? out->needed : out->capacity;
    const int p = cable->nurbs.degree[0];
    for (int32_t i = 0; i < out->count; i++) {
        osc_lmd_contact* c = &out->contacts[i];
        *c = cache->found[i].c;
        osc_vec3 n = c->normal;
        if (out->pose_jacobians) { // the B-Rep is A: -(n, r_a x n), r_a from its position (the origin)
            osc_vec3 m = osc_cross(osc_sub(c->point_a, body->pose.p), n);
            double row[6] = {-n.x, -n.y, -n.z, -m.x, -m.y, -m.z};
            memcpy(out->pose_jacobians + 6 * (size_t)i, row, sizeof row);
        }
        if (out->control_jacobians) { // d g / d P_j = B_j(t*) n (docs/lmd.md, "Cables")
            double b[OSC_CABLE_MAX_CONTROL_POINTS];
            bernstein(p, c->param_b[0], b);
            double* row = out->control_jacobians + 3 * (size_t)(p + 1) * (size_t)i;
            for (int j = 0; j <= p; j++) {
                row[3 * j] = b[j] * n.x;
                row[3 * j + 1] = b[j] * n.y;
                row[3 * j + 2] = b[j] * n.z;
            }
        }
    }
    return osc_finish_output("osc_lmd_cable_query", out->needed, out->capacity);
}

osc_status osc_lmd_cable_query(const osc_brep* brep, osc_pose pose, const osc_cable* cable,
                               const osc_lmd_settings* settings, osc_lmd_cable_cache* cache, osc_lmd_cable_output* out,
                               int threads) {
    const char* function = "osc_lmd_cable_query";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: output is NULL", function);
    out->count = out->needed = out->skipped_faces = 0;
    osc_status st = osc_check_output(function, out->contacts, out->capacity);
    if (st == OSC_OK && !brep) st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: brep is NULL", function);
    if (st == OSC_OK) st = check_cable(function, cable);
    if (st == OSC_OK && threads < 0)
        st = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads is %d; it must be >= 0", function, threads);
    if (st == OSC_OK) st = osc_check_pose(function, "pose", pose, OSC_LMD_MAX_LENGTH, "OSC_LMD_MAX_LENGTH", &pose);
    osc_lmd_settings s = settings ? *settings : osc_lmd_settings_default();
    if (st == OSC_OK) st = osc_lmd_check_settings(function, &s);
    if (st != OSC_OK) return st;
    // the query's frame: the B-Rep's position at the origin (as osc_lmd_query's)
    lmd_body body = {brep, {osc_v3(0, 0, 0), osc_quat_normalize(pose.q)}, osc_mat3_identity()};
    body.rotation = osc_quat_to_mat3(body.pose.q);
    lmd_cable c;
    make_cable(cable, pose.p, &c);
    cable_node nodes[2 * OSC_CABLE_MAX_PIECES];
    int node_count = 0;
    build_nodes(&c, 0, c.pieces, nodes, &node_count);
    out->skipped_faces = skipped_reached(&body, nodes[0].center, nodes[0].radius, s.d_max + c.radius);
    osc_lmd_cable_cache* own = NULL;
    if (!cache) {
        st = osc_lmd_cable_cache_create(&own);
        if (st != OSC_OK) return osc_fail_in(function, st);
        cache = own;
    }
    st = run_query(&body, &c, &s, threads, cache, out, nodes);
    osc_lmd_cable_cache_destroy(own);
    if (st == OSC_ERR_NO_MEMORY) return osc_fail_in(function, st);
    if (st != OSC_OK && st != OSC_ERR_CAPACITY) {
        out->count = out->needed = 0;
        return st;
    }
    for (int32_t i = 0; i < out->count; i++) { // back to world coordinates
        out->contacts[i].point_a = osc_add(out->contacts[i].point_a, pose.p);
        out->contacts[i].point_b = osc_add(out->contacts[i].point_b, pose.p);
    }
    return st;
}
