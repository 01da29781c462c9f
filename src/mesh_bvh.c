// mesh_bvh.c: the BVH of osc_mesh_bvh (Beker et al. 2026 §III-B.2): exact closest points with the closest
// feature, generalised winding numbers evaluated hierarchically (Barill et al. 2018, "Fast winding
// numbers for soups and clouds") and signed distances built from both. docs/bvh.md has the details.
//
// LAYOUT (about 50 bytes per triangle for closest points, 60 more for the winding data)
// - nodes: 32 bytes, the root at 0; the children of an internal node are adjacent (first,
//   first + 1) and share a 64-byte line; a leaf holds `count` (1..4) consecutive slots from
//   `first`. Boxes are floats relative to `origin`, rounded outward and inflated by `margin`.
// - slots: the triangles in leaf order, 16 bytes: three indices into `positions` (the vertices
//   renumbered by first use, so a leaf's corners lie together; vertex_ids maps them back) and the
//   mesh triangle index, whose bit 31 marks a thin triangle (tri_closest_thin).
// - dipoles: per node, the area-weighted normal sum and centroid, and the squared radius of a
//   sphere around the centroid holding every corner under the node.
// - triangle_edges: per mesh triangle, the osc_mesh_edges index of each local edge (v_k, v_k+1).
//
// BUILD: binned SAH along the longest axis of the centroid bounds (16 bins), leaves of at most 4
// triangles; from depth 64 on, or when all centroids coincide, a node splits at the middle of its
// range, so the depth stays below 64 + 30 and the 128-entry query stacks cannot overflow.
//
// QUERIES: iterative with a fixed stack; nothing allocated.
// - closest: nearest child first; nodes are pruned by their box distance against the best so far;
//   Ericson's closest point on a triangle (Real-Time Collision Detection §5.1.5) with its
//   Voronoi-region feature.
// - winding number: a node whose centroid is farther than beta times its radius adds its dipole
//   term; leaves nearer add the exact solid angles of their triangles (Van Oosterom-Strackee).
//
// NUMERIC ROBUSTNESS
// - Determinism: the closest triangle is the lexicographic minimum of (computed squared distance,
//   triangle index) over all triangles, whatever the traversal. A point on an edge or at a vertex
//   is computed from the edge's endpoints in the order of their vertex indices, so the triangles
//   sharing it compute bit-identical points and distances and the tie goes to the lowest index. A
//   box is pruned only when its distance exceeds the best by a relative 1e-14 (the rounding of two
//   squared distances), and boxes are inflated by 1e-12 of the largest |coordinate| (more than the
//   rounding of any computed closest point), so no candidate of the minimum is ever pruned.
// - Thin and degenerate triangles (thickness below 1e-3 of the longest edge, zero area, repeated
//   positions) take tri_closest_thin: the nearest edge as a segment (a zero-length edge is a
//   point), or the plane projection when it falls inside and is nearer; no division by zero.
// - A query point with a NaN or infinite coordinate gives NaN results (triangle -1).

#include "osculate/mesh.h"

#include "base_internal.h"
#include "mesh_internal.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

enum {
    BVH_LEAF_SIZE = 4,              // triangles per leaf, at most
    BVH_BINS = 16,                  // SAH bins along the split axis
    BVH_SAH_DEPTH = 64,             // from this depth on nodes split at the middle of their range
    BVH_STACK = 128,                // query stack entries; the depth is below BVH_SAH_DEPTH + 30
    BVH_BATCH_BLOCK = 64,           // points a batch item takes in order (each bounded by the one before)
    BVH_BATCH_BLOCKS_PER_THREAD = 4 // the least work that gets a thread: 256 points
};

// prune a box when its squared distance exceeds best * (1 + BVH_PRUNE_SLACK)
#define BVH_PRUNE_SLACK 1e-14
// boxes are inflated by this fraction of the largest |coordinate|
#define BVH_BOX_MARGIN 1e-12
// triangles whose thickness (twice the area over the longest edge) is below this fraction of the
// longest edge take the robust closest-point path
#define BVH_THIN 1e-3
#define BVH_THIN_BIT 0x80000000u

#define BVH_FOUR_PI 12.566370614359172953850573533118

typedef struct bvh_node {
    float lo[3], hi[3]; // relative to origin, rounded outward, inflated by margin
    int32_t first;      // internal: left child (the right one follows); leaf: first slot
    int32_t count;      // leaf: number of slots (1..BVH_LEAF_SIZE); internal: 0
} bvh_node;

typedef struct bvh_dipole {
    double center[3]; // area-weighted centroid of the triangles under the node
    double normal[3]; // sum of their area vectors, (b - a) x (c - a) / 2
    double radius2;   // squared radius of the sphere around center holding all their corners
} bvh_dipole;

typedef struct bvh_slot {
    int32_t corner[3]; // indices into positions
    uint32_t info;     // mesh triangle index | BVH_THIN_BIT
} bvh_slot;

struct osc_mesh_bvh {
    void* node_memory;       // the allocation behind nodes (aligned inside it)
    bvh_node* nodes;         // nodes + 1 is 64-byte aligned: every child pair shares a line
    bvh_dipole* dipoles;     // [node_count]
    bvh_slot* slots;         // [triangle_count], leaf order
    double* positions;       // [position_count][3]
    int32_t* vertex_ids;     // [position_count]: mesh vertex index
    int32_t* triangle_edges; // [triangle_count][3], by mesh triangle index
    int32_t node_count, triangle_count, position_count;
    osc_vec3 origin;                  // centre of the bounds; node boxes are relative to it
    double margin;                    // box inflation
    osc_vec3 lo, hi;                  // bounds of the triangles' corners
    osc_mesh_orientation orientation; // of the mesh it was built from (the spline baker checks it)
};

// ---------------------------------------------------------------------------------------------
// closest point on one triangle

// a triangle's corners and their (renumbered) vertex indices
typedef struct tri_data {
    osc_vec3 v[3];
    int32_t id[3];
} tri_data;

// the feature a closest point lies on, local to its triangle
enum { HIT_FACE = 0, HIT_EDGE = 1 /* + k: edge (v_k, v_k+1) */, HIT_VERTEX = 4 /* + k */ };

typedef struct tri_hit {
    osc_vec3 point;
    double bary[3];
    int feature;
} tri_hit;

OSC_FORCE_INLINE double distance2(osc_vec3 p, osc_vec3 c) {
    double dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
    return dx * dx + dy * dy + dz * dz;
}

OSC_FORCE_INLINE double min3(double a, double b, double c) {
    double m = a < b ? a : b;
    return m < c ? m : c;
}

OSC_FORCE_INLINE double max3(double a, double b, double c) {
    double m = a > b ? a : b;
    return m > c ? m : c;
}

OSC_FORCE_INLINE osc_vec3 position(const osc_mesh_bvh* bvh, int32_t index) {
    const double* x = bvh->positions + 3 * (size_t)index;
    return osc_v3(x[0], x[1], x[2]);
}

OSC_FORCE_INLINE void load_tri(const osc_mesh_bvh* bvh, const bvh_slot* slot, tri_data* tri) {
    for (int k = 0; k < 3; ++k) {
        tri->id[k] = slot->corner[k];
        tri->v[k] = position(bvh, slot->corner[k]);
    }
}

// corner k as the closest point
static double hit_vertex(const tri_data* tri, int k, osc_vec3 p, tri_hit* hit) {
    hit->point = tri->v[k];
    hit->bary[0] = hit->bary[1] = hit->bary[2] = 0.0;
    hit->bary[k] = 1.0;
    hit->feature = HIT_VERTEX + k;
    return distance2(p, hit->point);
}

// closest point of edge k, computed from the endpoint with the lower vertex index so that every
// triangle sharing the edge computes the same bits
static double hit_edge(const tri_data* tri, int edge, osc_vec3 p, tri_hit* hit) {
    int i = edge, j = edge == 2 ? 0 : edge + 1;
    int lo = tri->id[i] < tri->id[j] ? i : j;
    int hi = i + j - lo;
    osc_vec3 start = tri->v[lo];
    osc_vec3 direction = osc_sub(tri->v[hi], start);
    double along = osc_dot(osc_sub(p, start), direction);
    double length2 = osc_dot(direction, direction);
    if (!(along > 0.0)) return hit_vertex(tri, lo, p, hit); // also a zero-length edge
    if (along >= length2) return hit_vertex(tri, hi, p, hit);
    double t = along / length2;
    if (!(t > 0.0)) return hit_vertex(tri, lo, p, hit); // underflow
    hit->point = osc_add_scaled(start, direction, t);
    hit->bary[0] = hit->bary[1] = hit->bary[2] = 0.0;
    hit->bary[lo] = 1.0 - t;
    hit->bary[hi] = t;
    hit->feature = HIT_EDGE + edge;
    return distance2(p, hit->point);
}

// nearest of the three edges (ties: the first edge)
static double hit_boundary(const tri_data* tri, osc_vec3 p, tri_hit* hit) {
    double best = hit_edge(tri, 0, p, hit);
    for (int edge = 1; edge < 3; ++edge) {
        tri_hit candidate;
        double d2 = hit_edge(tri, edge, p, &candidate);
        if (d2 < best) {
            best = d2;
            *hit = candidate;
        }
    }
    return best;
}

// closest point of a thin or degenerate triangle: the nearest edge, or the projection q onto the
// plane when it falls inside and is nearer. Written to stay accurate when two corners nearly meet
// (a needle): the normal is the cross product of the two edges at the largest angle; the
// barycentric numerators are ((v_k+1 - q) x (v_k+2 - v_k+1)) . n; the point is placed by the
// weight of the corner opposite the shortest edge (accurate) and by where it falls along that
// edge (whose error the edge's shortness makes harmless). Triangles flat to rounding (caps) keep an
// error of about eps |edge|^2 / thickness, never below the true distance by more than rounding.
static double tri_closest_thin(const tri_data* tri, osc_vec3 p, tri_hit* hit) {
    double best = hit_boundary(tri, p, hit);
    const osc_vec3* v = tri->v;
    osc_vec3 edge[3]; // edge[k] = v[k+1] - v[k], opposite corner k+2
    double length2[3];
    for (int k = 0; k < 3; ++k) {
        edge[k] = osc_sub(v[k == 2 ? 0 : k + 1], v[k]);
        length2[k] = osc_dot(edge[k], edge[k]);
    }
    int longest = 0, shortest = 0;
    for (int k = 1; k < 3; ++k) {
        if (length2[k] > length2[longest]) longest = k;
        if (length2[k] < length2[shortest]) shortest = k;
    }
    if (longest == shortest) shortest = longest == 0 ? 1 : 0; // equilateral: any two
    int apex = (longest + 2) % 3;                             // the corner at the largest angle
    osc_vec3 n = osc_cross(edge[apex], osc_neg(edge[(apex + 2) % 3]));
    double nn = osc_dot(n, n);
    if (!(nn > 0.0)) return best;
    osc_vec3 q = osc_add_scaled(p, n, -osc_dot(osc_sub(p, v[apex]), n) / nn);
    double area[3];
    for (int k = 0; k < 3; ++k) {
        int next = (k + 1) % 3;
        area[k] = osc_dot(osc_cross(osc_sub(v[next], q), edge[next]), n);
    }
    if (!(area[0] > 0.0 && area[1] > 0.0 && area[2] > 0.0)) return best;
    int far = (shortest + 2) % 3, i = shortest, j = (shortest + 1) % 3;
    double weight = area[far] / nn;               // of the corner opposite the shortest edge
    double along = area[j] / (area[i] + area[j]); // from v[i] toward v[j]
    if (!(weight < 1.0)) return best;
    tri_hit face;
    osc_vec3 on_edge = osc_add_scaled(v[i], edge[i], along);
    face.point = osc_add_scaled(on_edge, osc_sub(v[far], on_edge), weight);
    face.bary[far] = weight;
    face.bary[i] = (1.0 - weight) * (1.0 - along);
    face.bary[j] = (1.0 - weight) * along;
    face.feature = HIT_FACE;
    if (!(face.bary[0] > 0.0 && face.bary[1] > 0.0 && face.bary[2] > 0.0)) return best; // underflow
    double d2 = distance2(p, face.point);
    if (d2 < best) {
        best = d2;
        *hit = face;
    }
    return best;
}

// squared distance from p to a well-shaped triangle, with the closest point and feature in `hit`
// (Ericson §5.1.5); the face region also needs all three barycentric numerators positive
static double tri_closest(const tri_data* tri, osc_vec3 p, tri_hit* hit) {
    osc_vec3 a = tri->v[0], b = tri->v[1], c = tri->v[2];
    osc_vec3 ab = osc_sub(b, a), ac = osc_sub(c, a), ap = osc_sub(p, a);
    double d1 = osc_dot(ab, ap), d2 = osc_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) return hit_vertex(tri, 0, p, hit);
    osc_vec3 bp = osc_sub(p, b);
    double d3 = osc_dot(ab, bp), d4 = osc_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) return hit_vertex(tri, 1, p, hit);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return hit_edge(tri, 0, p, hit);
    osc_vec3 cp = osc_sub(p, c);
    double d5 = osc_dot(ab, cp), d6 = osc_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) return hit_vertex(tri, 2, p, hit);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return hit_edge(tri, 2, p, hit);
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) return hit_edge(tri, 1, p, hit);
    if (!(va > 0.0 && vb > 0.0 && vc > 0.0)) return hit_boundary(tri, p, hit);
    double scale = 1.0 / (va + vb + vc);
    double v = vb * scale, w = vc * scale;
    hit->point = osc_add_scaled(osc_add_scaled(a, ab, v), ac, w);
    hit->bary[0] = va * scale;
    hit->bary[1] = v;
    hit->bary[2] = w;
    hit->feature = HIT_FACE;
    return distance2(p, hit->point);
}

// solid angle of a triangle seen from p (mesh_solid_angle)
static double tri_solid_angle(const tri_data* tri, osc_vec3 p) {
    return mesh_solid_angle(tri->v[0], tri->v[1], tri->v[2], p);
}

// ---------------------------------------------------------------------------------------------
// build

typedef struct build_prim {
    double lo[3], hi[3], centroid[3]; // the triangle's box and its centre
    int32_t triangle;
} build_prim;

// the bounds of a range of prims: their boxes and their centroids
typedef struct build_bounds {
    double lo[3], hi[3], clo[3], chi[3];
} build_bounds;

typedef struct build_task {
    int32_t node, begin, end, depth;
    build_bounds bounds;
} build_task;

// half the surface area of a box
static double half_area(const double lo[3], const double hi[3]) {
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
}

static void box_empty(double lo[3], double hi[3]) {
    for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
}

OSC_FORCE_INLINE void box_grow(double lo[3], double hi[3], const double other_lo[3], const double other_hi[3]) {
    for (int k = 0; k < 3; ++k) {
        lo[k] = other_lo[k] < lo[k] ? other_lo[k] : lo[k];
        hi[k] = other_hi[k] > hi[k] ? other_hi[k] : hi[k];
    }
}

static void bounds_empty(build_bounds* b) {
    box_empty(b->lo, b->hi);
    box_empty(b->clo, b->chi);
}

OSC_FORCE_INLINE void bounds_add_prim(build_bounds* b, const build_prim* prim) {
    box_grow(b->lo, b->hi, prim->lo, prim->hi);
    box_grow(b->clo, b->chi, prim->centroid, prim->centroid);
}

static void bounds_merge(build_bounds* b, const build_bounds* other) {
    box_grow(b->lo, b->hi, other->lo, other->hi);
    box_grow(b->clo, b->chi, other->clo, other->chi);
}

// the bin of a centroid coordinate (the same function bins and partitions)
static int bin_of(double value, double origin, double scale) {
    int bin = (int)((value - origin) * scale);
    return bin < 0 ? 0 : (bin >= BVH_BINS ? BVH_BINS - 1 : bin);
}

// splits task's prims along the longest axis of their centroid bounds at the bin boundary of least
// surface area cost, partitions them and writes the bounds of both sides; returns the size of the
// left side, or 0 when every centroid coincides
static int32_t split_sah(build_prim* prims, const build_task* task, build_bounds* left, build_bounds* right) {
    const build_bounds* b = &task->bounds;
    int axis = b->chi[1] - b->clo[1] > b->chi[0] - b->clo[0] ? 1 : 0;
    axis = b->chi[2] - b->clo[2] > b->chi[axis] - b->clo[axis] ? 2 : axis;
    double extent = b->chi[axis] - b->clo[axis], origin = b->clo[axis], scale = BVH_BINS / extent;
    if (!(extent > 0.0) || !isfinite(scale)) return 0; // also a subnormal or overflowing extent
    build_bounds bins[BVH_BINS];
    int32_t counts[BVH_BINS] = {0};
    for (int k = 0; k < BVH_BINS; ++k) bounds_empty(&bins[k]);
    for (int32_t i = task->begin; i < task->end; ++i) {
        int k = bin_of(prims[i].centroid[axis], origin, scale);
        counts[k] += 1;
        bounds_add_prim(&bins[k], &prims[i]);
    }
    double right_cost[BVH_BINS], lo[3], hi[3], best_cost = INFINITY;
    int32_t side = 0, split = 0;
    box_empty(lo, hi);
    for (int k = BVH_BINS - 1; k >= 1; --k) { // the right side of the plane before bin k
        box_grow(lo, hi, bins[k].lo, bins[k].hi);
        side += counts[k];
        right_cost[k] = side ? half_area(lo, hi) * side : -1.0;
    }
    side = 0;
    box_empty(lo, hi);
    for (int k = 1; k < BVH_BINS; ++k) {
        box_grow(lo, hi, bins[k - 1].lo, bins[k - 1].hi);
        side += counts[k - 1];
        if (side == 0 || right_cost[k] < 0.0) continue;
        double cost = half_area(lo, hi) * side + right_cost[k];
        if (cost < best_cost) best_cost = cost, split = k;
    }
    if (split == 0) return 0; // cannot happen with a positive extent; be safe
    bounds_empty(left);
    bounds_empty(right);
    for (int k = 0; k < BVH_BINS; ++k) bounds_merge(k < split ? left : right, &bins[k]);
    int32_t i = task->begin, j = task->end - 1;
    while (i <= j) {
        if (bin_of(prims[i].centroid[axis], origin, scale) < split) {
            ++i;
        } else {
            build_prim swap = prims[i];
            prims[i] = prims[j];
            prims[j] = swap;
            --j;
        }
    }
    return i - task->begin;
}

// splits task's prims at the middle of their range (deep nodes, coincident centroids)
static int32_t split_middle(const build_prim* prims, const build_task* task, build_bounds* left, build_bounds* right) {
    int32_t middle = task->begin + (task->end - task->begin) / 2;
    bounds_empty(left);
    bounds_empty(right);
    for (int32_t i = task->begin; i < task->end; ++i) bounds_add_prim(i < middle ? left : right, &prims[i]);
    return middle - task->begin;
}

// the box of a node, relative to origin, inflated by margin and rounded outward to floats
static void store_box(const osc_mesh_bvh* bvh, bvh_node* node, const double lo[3], const double hi[3]) {
    const double origin[3] = {bvh->origin.x, bvh->origin.y, bvh->origin.z};
    for (int k = 0; k < 3; ++k) {
        double low = (lo[k] - bvh->margin) - origin[k], high = (hi[k] + bvh->margin) - origin[k];
        low = low < -FLT_MAX ? -INFINITY : (low > FLT_MAX ? FLT_MAX : low); // no float overflow
        high = high > FLT_MAX ? INFINITY : (high < -FLT_MAX ? -FLT_MAX : high);
        float low_f = (float)low, high_f = (float)high;
        if ((double)low_f > low) low_f = nextafterf(low_f, -INFINITY);
        if ((double)high_f < high) high_f = nextafterf(high_f, INFINITY);
        node->lo[k] = low_f;
        node->hi[k] = high_f;
    }
}

// builds the node tree over prims (reordered into leaf order), whose bounds are `root`
static void build_nodes(osc_mesh_bvh* bvh, build_prim* prims, const build_bounds* root, build_task* tasks) {
    int32_t task_count = 1;
    tasks[0] = (build_task){0, 0, bvh->triangle_count, 0, *root};
    bvh->node_count = 1;
    while (task_count > 0) {
        build_task task = tasks[--task_count];
        bvh_node* node = &bvh->nodes[task.node];
        store_box(bvh, node, task.bounds.lo, task.bounds.hi);
        if (task.end - task.begin <= BVH_LEAF_SIZE) {
            node->first = task.begin;
            node->count = task.end - task.begin;
            continue;
        }
        build_bounds left, right;
        int32_t left_count = task.depth < BVH_SAH_DEPTH ? split_sah(prims, &task, &left, &right) : 0;
        if (left_count == 0) left_count = split_middle(prims, &task, &left, &right);
        int32_t middle = task.begin + left_count;
        node->first = bvh->node_count;
        node->count = 0;
        bvh->node_count += 2;
        tasks[task_count++] = (build_task){node->first + 1, middle, task.end, task.depth + 1, right};
        tasks[task_count++] = (build_task){node->first, task.begin, middle, task.depth + 1, left};
    }
}

// dipole data bottom-up (children follow their parent in the array): sums from the children; the
// radius from the corners of a leaf, and for an internal node the smaller of two bounds: the
// children's spheres and the farthest corner of the node's box
static void build_dipoles(osc_mesh_bvh* bvh, double* area) {
    for (int32_t i = bvh->node_count - 1; i >= 0; --i) {
        const bvh_node* node = &bvh->nodes[i];
        bvh_dipole* dipole = &bvh->dipoles[i];
        double normal[3] = {0, 0, 0}, weighted[3] = {0, 0, 0};
        area[i] = 0.0;
        if (node->count > 0) {
            for (int32_t s = node->first; s < node->first + node->count; ++s) {
                tri_data tri;
                load_tri(bvh, &bvh->slots[s], &tri);
                osc_vec3 n = osc_scale(osc_cross(osc_sub(tri.v[1], tri.v[0]), osc_sub(tri.v[2], tri.v[0])), 0.5);
                double slot_area = osc_length(n);
                osc_vec3 centroid = osc_scale(osc_add(osc_add(tri.v[0], tri.v[1]), tri.v[2]), 1.0 / 3.0);
                normal[0] += n.x, normal[1] += n.y, normal[2] += n.z;
                weighted[0] += slot_area * centroid.x;
                weighted[1] += slot_area * centroid.y;
                weighted[2] += slot_area * centroid.z;
                area[i] += slot_area;
            }
        } else {
            for (int32_t c = node->first; c < node->first + 2; ++c) {
                for (int k = 0; k < 3; ++k) {
                    normal[k] += bvh->dipoles[c].normal[k];
                    weighted[k] += area[c] * bvh->dipoles[c].center[k];
                }
                area[i] += area[c];
            }
        }
        osc_vec3 lo = osc_add(osc_v3(node->lo[0], node->lo[1], node->lo[2]), bvh->origin);
        osc_vec3 hi = osc_add(osc_v3(node->hi[0], node->hi[1], node->hi[2]), bvh->origin);
        for (int k = 0; k < 3; ++k) {
            dipole->normal[k] = normal[k];
            dipole->center[k] = area[i] > 0.0 ? weighted[k] / area[i] : 0.5 * ((&lo.x)[k] + (&hi.x)[k]);
        }
        osc_vec3 center = osc_v3(dipole->center[0], dipole->center[1], dipole->center[2]);
        double radius2 = 0.0;
        if (node->count > 0) {
            for (int32_t s = node->first; s < node->first + node->count; ++s)
                for (int k = 0; k < 3; ++k)
                    radius2 = max3(radius2, distance2(position(bvh, bvh->slots[s].corner[k]), center), 0.0);
        } else {
            double spheres = 0.0;
            for (int32_t c = node->first; c < node->first + 2; ++c) {
                const bvh_dipole* child = &bvh->dipoles[c];
                osc_vec3 child_center = osc_v3(child->center[0], child->center[1], child->center[2]);
                spheres = max3(spheres, sqrt(distance2(center, child_center)) + sqrt(child->radius2), 0.0);
            }
            osc_vec3 far =
                osc_v3(max3(center.x - lo.x, hi.x - center.x, 0.0), max3(center.y - lo.y, hi.y - center.y, 0.0),
                       max3(center.z - lo.z, hi.z - center.z, 0.0));
            radius2 = min3(spheres * spheres, osc_length_squared(far), INFINITY);
        }
        dipole->radius2 = radius2;
    }
}

// the slots in leaf order and the positions renumbered by first use; `renumber` [vertex_count]
// is scratch filled with -1
static void fill_slots(osc_mesh_bvh* bvh, const osc_mesh* mesh, const build_prim* prims, int32_t* renumber) {
    const double* vertices = osc_mesh_vertices(mesh);
    const int32_t* triangles = osc_mesh_triangles(mesh);
    bvh->position_count = 0;
    for (int32_t s = 0; s < bvh->triangle_count; ++s) {
        bvh_slot* slot = &bvh->slots[s];
        int32_t t = prims[s].triangle;
        for (int k = 0; k < 3; ++k) {
            int32_t v = triangles[3 * (size_t)t + (size_t)k];
            if (renumber[v] < 0) {
                int32_t at = bvh->position_count++;
                renumber[v] = at;
                bvh->vertex_ids[at] = v;
                memcpy(bvh->positions + 3 * (size_t)at, vertices + 3 * (size_t)v, 3 * sizeof(double));
            }
            slot->corner[k] = renumber[v];
        }
        tri_data tri;
        load_tri(bvh, slot, &tri);
        double longest2 =
            fmax(fmax(distance2(tri.v[0], tri.v[1]), distance2(tri.v[1], tri.v[2])), distance2(tri.v[2], tri.v[0]));
        double nn = osc_length_squared(osc_cross(osc_sub(tri.v[1], tri.v[0]), osc_sub(tri.v[2], tri.v[0])));
        int thin = !(nn > BVH_THIN * BVH_THIN * longest2 * longest2);
        slot->info = (uint32_t)t | (thin ? BVH_THIN_BIT : 0u);
    }
}

// the prims, their bounds, the origin and the margin, from the triangles' corners
static void measure(osc_mesh_bvh* bvh, const osc_mesh* mesh, build_prim* prims, build_bounds* root) {
    const double* vertices = osc_mesh_vertices(mesh);
    const int32_t* triangles = osc_mesh_triangles(mesh);
    double largest = 0.0;
    bounds_empty(root);
    for (int32_t t = 0; t < bvh->triangle_count; ++t) {
        build_prim* prim = &prims[t];
        prim->triangle = t;
        box_empty(prim->lo, prim->hi);
        for (int k = 0; k < 3; ++k) {
            const double* x = vertices + 3 * (size_t)triangles[3 * (size_t)t + (size_t)k];
            box_grow(prim->lo, prim->hi, x, x);
        }
        for (int axis = 0; axis < 3; ++axis) {
            prim->centroid[axis] = 0.5 * (prim->lo[axis] + prim->hi[axis]);
            largest = fmax(largest, fmax(fabs(prim->lo[axis]), fabs(prim->hi[axis])));
        }
        bounds_add_prim(root, prim);
    }
    const double* lo = root->lo;
    const double* hi = root->hi;
    bvh->lo = osc_v3(lo[0], lo[1], lo[2]);
    bvh->hi = osc_v3(hi[0], hi[1], hi[2]);
    bvh->origin = osc_v3(0.5 * lo[0] + 0.5 * hi[0], 0.5 * lo[1] + 0.5 * hi[1], 0.5 * lo[2] + 0.5 * hi[2]);
    bvh->margin = BVH_BOX_MARGIN * largest;
}

// the node tree (built in a scratch array of the worst-case size, then moved into an aligned one
// of the actual size: nodes + 1 on a 64-byte boundary, so the child pairs (1, 2), (3, 4), ... each
// share a line), the slots and positions, the dipoles
static osc_status build(osc_mesh_bvh* bvh, const osc_mesh* mesh) {
    int32_t n = bvh->triangle_count, vertex_count = osc_mesh_vertex_count(mesh);
    build_prim* prims = osc_calloc((size_t)n, sizeof *prims);
    build_task* tasks = osc_calloc(2 * BVH_STACK, sizeof *tasks); // at most depth + 1 are pending
    bvh_node* scratch = osc_calloc(2 * (size_t)n, sizeof *scratch);
    int32_t* renumber = osc_calloc((size_t)vertex_count + 1, sizeof *renumber);
    double* area = NULL;
    osc_status status = OSC_OK;
    if (!prims || !tasks || !scratch || !renumber) goto no_memory;
    build_bounds root;
    measure(bvh, mesh, prims, &root);
    bvh->nodes = scratch;
    build_nodes(bvh, prims, &root, tasks);
    bvh->nodes = NULL;
    bvh->node_memory = osc_calloc((size_t)bvh->node_count + 3, sizeof(bvh_node));
    bvh->dipoles = osc_calloc((size_t)bvh->node_count, sizeof *bvh->dipoles);
    area = osc_calloc((size_t)bvh->node_count, sizeof *area);
    if (!bvh->node_memory || !bvh->dipoles || !area) goto no_memory;
    uintptr_t base = (uintptr_t)bvh->node_memory + sizeof(bvh_node);
    bvh->nodes = (bvh_node*)(void*)((base + 63u) / 64u * 64u - sizeof(bvh_node));
    memcpy(bvh->nodes, scratch, (size_t)bvh->node_count * sizeof *scratch);
    for (int32_t v = 0; v < vertex_count; ++v) renumber[v] = -1;
    fill_slots(bvh, mesh, prims, renumber);
    build_dipoles(bvh, area);
    goto done;
no_memory:
    status = osc_fail_in("osc_mesh_bvh_create", OSC_ERR_NO_MEMORY);
done:
    osc_free(prims);
    osc_free(tasks);
    osc_free(scratch);
    osc_free(renumber);
    osc_free(area);
    return status;
}

// ---------------------------------------------------------------------------------------------
// creation

osc_status osc_mesh_bvh_create(const osc_mesh* mesh, osc_mesh_bvh** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_bvh_create: out is NULL");
    *out = NULL;
    if (!mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_bvh_create: mesh is NULL");
    int32_t n = osc_mesh_triangle_count(mesh);
    if (n <= 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_bvh_create: the mesh has no triangles (triangle_count %d)",
                        (int)n);
    if (n > (INT32_C(1) << 29))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_mesh_bvh_create: %d triangles exceed the limit of 2^29", (int)n);
    osc_mesh_bvh* bvh = osc_calloc(1, sizeof *bvh);
    if (!bvh) return osc_fail_in("osc_mesh_bvh_create", OSC_ERR_NO_MEMORY);
    size_t positions = (size_t)osc_mesh_vertex_count(mesh);
    bvh->triangle_count = n;
    bvh->slots = osc_calloc((size_t)n, sizeof *bvh->slots);
    bvh->positions = osc_calloc(positions + 1, 3 * sizeof(double));
    bvh->vertex_ids = osc_calloc(positions + 1, sizeof *bvh->vertex_ids);
    bvh->triangle_edges = osc_calloc((size_t)n, 3 * sizeof *bvh->triangle_edges);
    osc_status status = OSC_OK;
    if (!bvh->slots || !bvh->positions || !bvh->vertex_ids || !bvh->triangle_edges)
        status = osc_fail_in("osc_mesh_bvh_create", OSC_ERR_NO_MEMORY);
    if (!status) // the mesh's own map: the edge of corner k -> k + 1 of each triangle
        memcpy(bvh->triangle_edges, osc_mesh_triangle_edges(mesh), (size_t)n * 3 * sizeof(int32_t));
    if (!status) status = build(bvh, mesh);
    if (!status && mesh_orientation_of(mesh, &bvh->orientation))
        status = osc_fail_in("osc_mesh_bvh_create", OSC_ERR_NO_MEMORY);
    if (status) {
        osc_mesh_bvh_destroy(bvh);
        return status;
    }
    *out = bvh;
    return OSC_OK;
}

void osc_mesh_bvh_destroy(osc_mesh_bvh* bvh) {
    if (!bvh) return;
    osc_free(bvh->node_memory);
    osc_free(bvh->dipoles);
    osc_free(bvh->slots);
    osc_free(bvh->positions);
    osc_free(bvh->vertex_ids);
    osc_free(bvh->triangle_edges);
    osc_free(bvh);
}

const osc_mesh_orientation* mesh_bvh_orientation(const osc_mesh_bvh* bvh) { return &bvh->orientation; }

void osc_mesh_bvh_bounds(const osc_mesh_bvh* bvh, osc_vec3* lo, osc_vec3* hi) {
    if (lo) *lo = bvh ? bvh->lo : osc_v3(INFINITY, INFINITY, INFINITY);
    if (hi) *hi = bvh ? bvh->hi : osc_v3(-INFINITY, -INFINITY, -INFINITY);
}

// ---------------------------------------------------------------------------------------------
// closest point

// distance from x to [lo, hi] along one axis
OSC_FORCE_INLINE double axis_gap(double x, double lo, double hi) {
    double below = lo - x, above = x - hi;
    return below > 0.0 ? below : (above > 0.0 ? above : 0.0);
}

// squared distance from p (relative to origin) to a node's box
OSC_FORCE_INLINE double box_distance2(const bvh_node* node, osc_vec3 p) {
    double dx = axis_gap(p.x, node->lo[0], node->hi[0]);
    double dy = axis_gap(p.y, node->lo[1], node->hi[1]);
    double dz = axis_gap(p.z, node->lo[2], node->hi[2]);
    return dx * dx + dy * dy + dz * dz;
}

typedef struct stack_entry {
    int32_t node;
    double distance2;
} stack_entry;

typedef struct closest_state {
    double best;            // squared distance
    uint32_t best_triangle; // mesh triangle index
    int32_t best_slot;
    tri_hit hit;
} closest_state;

// tests the slots of a leaf against the best so far
static void closest_leaf(const osc_mesh_bvh* bvh, const bvh_node* leaf, osc_vec3 p, closest_state* state) {
    for (int32_t s = leaf->first; s < leaf->first + leaf->count; ++s) {
        const bvh_slot* slot = &bvh->slots[s];
        tri_data tri;
        load_tri(bvh, slot, &tri);
        tri_hit hit;
        double d2 = slot->info & BVH_THIN_BIT ? tri_closest_thin(&tri, p, &hit) : tri_closest(&tri, p, &hit);
        uint32_t triangle = slot->info & ~BVH_THIN_BIT;
        if (d2 < state->best || (d2 == state->best && triangle < state->best_triangle)) {
            state->best = d2;
            state->best_triangle = triangle;
            state->best_slot = s;
            state->hit = hit;
        }
    }
}

// the lexicographic minimum of (squared distance, triangle index) over all triangles whose squared
// distance is at most `bound2` (INFINITY: all); best_slot stays -1 when there is none. The minimum
// over all triangles does not depend on the bound as long as it lies below it: the bound only
// prunes what could not beat it.
static void closest_search(const osc_mesh_bvh* bvh, osc_vec3 p, double bound2, closest_state* state) {
    stack_entry stack[BVH_STACK];
    int top = 0;
    int32_t node = 0;
    osc_vec3 local = osc_sub(p, bvh->origin);
    state->best = bound2;
    state->best_triangle = UINT32_MAX;
    state->best_slot = -1;
    for (;;) {
        const bvh_node* current = &bvh->nodes[node];
        if (current->count > 0) {
            closest_leaf(bvh, current, p, state);
        } else {
            int32_t near = current->first, far = near + 1;
            double near_d2 = box_distance2(&bvh->nodes[near], local);
            double far_d2 = box_distance2(&bvh->nodes[far], local);
            if (far_d2 < near_d2) {
                int32_t swap_node = near;
                near = far, far = swap_node;
                double swap_d2 = near_d2;
                near_d2 = far_d2, far_d2 = swap_d2;
            }
            double limit = state->best * (1.0 + BVH_PRUNE_SLACK);
            if (near_d2 <= limit) {
                if (far_d2 <= limit) stack[top++] = (stack_entry){far, far_d2};
                node = near;
                continue;
            }
        }
        for (;;) { // pop the next node that may still hold a candidate
            if (top == 0) return;
            --top;
            if (stack[top].distance2 <= state->best * (1.0 + BVH_PRUNE_SLACK)) {
                node = stack[top].node;
                break;
            }
        }
    }
}

// the closest point with its feature; NaN for a non-finite point or a NULL bvh. `hint` (nullable)
// is a point of the mesh near p (a previous answer): it bounds the search, which speeds it up and
// cannot change its result
static double bvh_closest(const osc_mesh_bvh* bvh, osc_vec3 p, const osc_vec3* hint, osc_mesh_closest* out) {
    if (!bvh || !osc_is_finite3(p.x, p.y, p.z)) {
        *out = (osc_mesh_closest){osc_v3(NAN, NAN, NAN), NAN, -1, OSC_MESH_FEATURE_FACE, -1, {NAN, NAN, NAN}};
        return NAN;
    }
    closest_state state;
    state.best_slot = -1;
    if (hint) closest_search(bvh, p, distance2(p, *hint) * (1.0 + 1e-12), &state);
    if (state.best_slot < 0) closest_search(bvh, p, INFINITY, &state);
    const bvh_slot* slot = &bvh->slots[state.best_slot];
    int32_t triangle = (int32_t)state.best_triangle;
    out->point = state.hit.point;
    out->distance = sqrt(state.best);
    out->triangle = triangle;
    for (int k = 0; k < 3; ++k) out->barycentric[k] = state.hit.bary[k];
    if (state.hit.feature == HIT_FACE) {
        out->feature = OSC_MESH_FEATURE_FACE;
        out->feature_index = triangle;
    } else if (state.hit.feature < HIT_VERTEX) {
        out->feature = OSC_MESH_FEATURE_EDGE;
        out->feature_index = bvh->triangle_edges[3 * (size_t)triangle + (size_t)(state.hit.feature - HIT_EDGE)];
    } else {
        out->feature = OSC_MESH_FEATURE_VERTEX;
        out->feature_index = bvh->vertex_ids[slot->corner[state.hit.feature - HIT_VERTEX]];
    }
    return out->distance;
}

double osc_mesh_bvh_closest(const osc_mesh_bvh* bvh, osc_vec3 point, osc_mesh_closest* out) {
    osc_mesh_closest local;
    return bvh_closest(bvh, point, NULL, out ? out : &local);
}

// ---------------------------------------------------------------------------------------------
// winding number (Barill et al. 2018): far clusters as dipoles, near leaves exactly

static double bvh_winding(const osc_mesh_bvh* bvh, osc_vec3 p, double beta2) {
    int32_t stack[BVH_STACK];
    int top = 0;
    int32_t node = 0;
    double omega = 0.0; // total solid angle
    for (;;) {
        const bvh_dipole* dipole = &bvh->dipoles[node];
        double rx = dipole->center[0] - p.x, ry = dipole->center[1] - p.y, rz = dipole->center[2] - p.z;
        double r2 = rx * rx + ry * ry + rz * rz;
        const bvh_node* current = &bvh->nodes[node];
        if (r2 > beta2 * dipole->radius2) {
            // the solid angle of the area vector N at c seen from p: N . (c - p) / |c - p|^3
            double flux = rx * dipole->normal[0] + ry * dipole->normal[1] + rz * dipole->normal[2];
            omega += flux / (r2 * sqrt(r2));
        } else if (current->count > 0) {
            for (int32_t s = current->first; s < current->first + current->count; ++s) {
                tri_data tri;
                load_tri(bvh, &bvh->slots[s], &tri);
                omega += tri_solid_angle(&tri, p);
            }
        } else {
            stack[top++] = current->first + 1;
            node = current->first;
            continue;
        }
        if (top == 0) break;
        node = stack[--top];
    }
    return omega / BVH_FOUR_PI;
}

double osc_mesh_bvh_winding_number(const osc_mesh_bvh* bvh, osc_vec3 point, double beta) {
    if (!bvh || !osc_is_finite3(point.x, point.y, point.z)) return NAN;
    if (!(beta > 0.0)) beta = 2.0;
    return bvh_winding(bvh, point, beta * beta);
}

// ---------------------------------------------------------------------------------------------
// signed distance

static double bvh_signed_distance(const osc_mesh_bvh* bvh, osc_vec3 p, const osc_vec3* hint, osc_mesh_closest* out) {
    double distance = bvh_closest(bvh, p, hint, out);
    if (distance > 0.0 && bvh_winding(bvh, p, 4.0) > 0.5) return -distance; // beta = 2
    return distance;
}

double osc_mesh_bvh_signed_distance(const osc_mesh_bvh* bvh, osc_vec3 point, osc_mesh_closest* closest) {
    osc_mesh_closest local;
    return bvh_signed_distance(bvh, point, NULL, closest ? closest : &local);
}

// one osc_mesh_bvh_signed_distance_batch call: the points in blocks of BVH_BATCH_BLOCK, each
// block one item of osc_batch_run
typedef struct distance_batch {
    const osc_mesh_bvh* bvh;
    const double* points;
    size_t count;
    double *distances, *closest_points;
} distance_batch;

// the points of one block in order: consecutive points are usually near each other (grids), so the
// previous closest point bounds the next search (bvh_closest: the result is the same bits)
static osc_status distance_block(void* context, size_t block) {
    const distance_batch* b = context;
    size_t first = block * BVH_BATCH_BLOCK,
           end = first + BVH_BATCH_BLOCK < b->count ? first + BVH_BATCH_BLOCK : b->count;
    osc_vec3 previous = osc_v3(0, 0, 0);
    int have_previous = 0;
    for (size_t i = first; i < end; ++i) {
        osc_mesh_closest closest;
        osc_vec3 x = osc_v3(b->points[3 * i], b->points[3 * i + 1], b->points[3 * i + 2]);
        b->distances[i] = bvh_signed_distance(b->bvh, x, have_previous ? &previous : NULL, &closest);
        if (closest.triangle >= 0) previous = closest.point, have_previous = 1;
        if (b->closest_points) {
            b->closest_points[3 * i] = closest.point.x;
            b->closest_points[3 * i + 1] = closest.point.y;
            b->closest_points[3 * i + 2] = closest.point.z;
        }
    }
    return OSC_OK;
}

osc_status osc_mesh_bvh_signed_distance_batch(const osc_mesh_bvh* bvh, const double* points, size_t count,
                                              double* distances, double* closest_points, int threads) {
    static const char function[] = "osc_mesh_bvh_signed_distance_batch";
    if (!bvh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: bvh is NULL", function);
    osc_status status = osc_check_batch(function, points, distances, "distances", count, threads);
    if (status || count == 0) return status;
    distance_batch batch = {bvh, points, count, distances, closest_points};
    size_t blocks = (count + BVH_BATCH_BLOCK - 1) / BVH_BATCH_BLOCK;
    return osc_batch_run(function, "block", blocks, threads, BVH_BATCH_BLOCKS_PER_THREAD, distance_block, &batch, NULL);
}
