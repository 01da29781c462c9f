// manifold_body.c: rigid-body models for the contact pipeline (Beker et al. 2026 §IV-A): the SDF, the
// collision mesh's vertices and edges in pipeline order, convex groups (§IV-D.1) and the
// broad-phase voxel grid (§IV-C.2).

#include "manifold_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BODY_BALLS_X86 1
#include <immintrin.h>
#endif

osc_body_desc osc_body_desc_default(void) {
    osc_body_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.groups = OSC_GROUPS_NONE;
    desc.group_count = 16;
    desc.curve = OSC_CURVE_HILBERT;
    desc.broad_phase_resolution = 32;
    desc.broad_phase_padding = -1.0;
    desc.surface_tolerance = 0.05;
    return desc;
}

void osc_body_destroy(osc_body* body) {
    if (!body) return;
    osc_free(body->voxels[0].bound);
    osc_free(body->voxels[1].bound);
    osc_free(body->block_lipschitz);
    osc_free(body->block_lipschitz_near[0]);
    osc_free(body->block_lipschitz_near[1]);
    osc_free(body->block_lipschitz_windows);
    osc_free(body->voxel_bounds);
    osc_free(body->vertices);
    osc_free(body->vertex_index);
    osc_free(body->vertex_group);
    osc_free(body->edges);
    osc_free(body->edge_lengths);
    osc_free(body->edge_index);
    osc_free(body->edge_group);
    osc_free(body->edge_vertices);
    osc_free(body->edge_shared);
    osc_free(body->group_vertex_start);
    osc_free(body->group_edge_start);
    osc_free(body->group_edges);
    osc_free(body->vertex_chunks);
    osc_free(body->edge_chunks);
    osc_free(body->group_spheres);
    osc_free(body->group_vertex_block_start);
    osc_free(body->group_edge_block_start);
    osc_free(body->vertex_block_first);
    osc_free(body->edge_block_first);
    osc_free(body->group_vertex_blocks);
    osc_free(body->group_edge_blocks);
    osc_free(body);
}

int32_t osc_body_vertex_count(const osc_body* body) { return body ? body->vertex_count : 0; }

int32_t osc_body_edge_count(const osc_body* body) { return body ? body->edge_count : 0; }

int32_t osc_body_group_count(const osc_body* body) { return body ? body->group_count : 0; }

void osc_body_vertex_groups(const osc_body* body, int32_t* vertex_groups) {
    if (!body || !vertex_groups) return;
    for (int32_t i = 0; i < body->vertex_count; ++i) vertex_groups[body->vertex_index[i]] = body->vertex_group[i];
}

// the largest block Lipschitz bound over blocks lo..hi (inclusive, per axis), one by one
static double block_box_scan(const osc_body* body, const int lo[3], const int hi[3]) {
    size_t nx = (size_t)body->blocks[0], ny = (size_t)body->blocks[1];
    double lipschitz = 0.0;
    for (int k = lo[2]; k <= hi[2]; ++k)
        for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) {
                double block = body->block_lipschitz[((size_t)k * ny + (size_t)j) * nx + (size_t)i];
                lipschitz = block > lipschitz ? block : lipschitz;
            }
    return lipschitz;
}

// block_box_scan's bound (the same value: a largest element is exact) from the windows of blocks
// (block_lipschitz_windows): along each axis of two or more blocks, windows of two starting at lo,
// lo + 2, ... (the last moved back to end at hi), else one block; a box of 4 x 4 x 4 blocks takes 8
// look-ups instead of 64, a segment's box of at most two blocks along each axis one
static double block_box_max(const osc_body* body, const int lo[3], const int hi[3]) {
    if (!body->block_lipschitz_windows) return block_box_scan(body, lo, hi);
    size_t nx = (size_t)body->blocks[0], ny = (size_t)body->blocks[1];
    int w[3];
    for (int a = 0; a < 3; ++a) w[a] = hi[a] > lo[a];
    const double* windows = body->block_lipschitz_windows + (w[0] | w[1] << 1 | w[2] << 2);
    double lipschitz = 0.0;
    for (int k = lo[2];; k += 2) {
        int z = k < hi[2] - w[2] ? k : hi[2] - w[2];
        for (int j = lo[1];; j += 2) {
            int y = j < hi[1] - w[1] ? j : hi[1] - w[1];
            for (int i = lo[0];; i += 2) {
                int x = i < hi[0] - w[0] ? i : hi[0] - w[0];
                double window = windows[8 * (((size_t)z * ny + (size_t)y) * nx + (size_t)x)];
                lipschitz = window > lipschitz ? window : lipschitz;
                if (x + w[0] >= hi[0]) break;
            }
            if (y + w[1] >= hi[1]) break;
        }
        if (z + w[2] >= hi[2]) break;
    }
    return lipschitz;
}

double body_ball_lipschitz(const osc_body* body, osc_vec3 c, double radius) {
    body_place place = {0.0, {0, 0, 0}};
    if (body->grid) grid_voxel_cell_of(body->grid, c, &place.outside, place.cell);
    return body_ball_lipschitz_placed(body, c, radius, &place);
}

double body_ball_lipschitz_placed(const osc_body* body, osc_vec3 c, double radius, const body_place* place) {
    if (!body->block_lipschitz) return body->edge_lipschitz;
    const osc_grid* g = body->grid;
    double p[3] = {c.x - g->origin.x, c.y - g->origin.y, c.z - g->origin.z};
    double span = OSC_BODY_BLOCK * g->cell;
    // a ball of radius at most r = 1 or 2 blocks' sides: clamped to the region (as the continuation
    // outside it clamps its points) it lies within r blocks of the block of its clamped centre's
    // voxel, one look-up
    if (radius <= 2.0 * span) {
        size_t index = 0;
        bool leaves = false;
        for (int a = 2; a >= 0; --a) {
            leaves |= p[a] - radius < 0.0 || p[a] + radius > g->extent[a];
            index = index * (size_t)body->blocks[a] + (size_t)(place->cell[a] / OSC_BODY_BLOCK);
        }
        double near = body->block_lipschitz_near[radius > span][index];
        return leaves ? sqrt(near * near + 1.0) : near;
    }
    int lo[3], hi[3];
    bool leaves = false;
    for (int a = 0; a < 3; ++a) {
        double extent = g->extent[a];
        leaves |= p[a] - radius < 0.0 || p[a] + radius > extent;
        double from = p[a] - radius > 0.0 ? p[a] - radius : 0.0;
        double to = p[a] + radius < extent ? p[a] + radius : extent;
        if (from > to) from = to = p[a] < 0.0 ? 0.0 : extent; // beside the region: its nearest face
        lo[a] = (int)(from / span);
        hi[a] = (int)(to / span);
        lo[a] = lo[a] > body->blocks[a] - 1 ? body->blocks[a] - 1 : lo[a];
        hi[a] = hi[a] > body->blocks[a] - 1 ? body->blocks[a] - 1 : hi[a];
    }
    // a big ball: the global bound is as good and cheaper
    if ((size_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1) > 64) return body->edge_lipschitz;
    double lipschitz = block_box_max(body, lo, hi);
    // outside the region the continuation adds the unit slope of |x - clamp(x)|
    return leaves ? sqrt(lipschitz * lipschitz + 1.0) : lipschitz;
}

bool body_ball_beyond(const osc_body* s, osc_vec3 c, double radius, double d_max, double* lipschitz) {
    body_place place; // (one voxel look-up for all three tests)
    double lower = body_lower_bound_placed(s, c, &place), global = s->edge_lipschitz;
    if (lower - global * radius > d_max) {
        if (lipschitz) *lipschitz = global;
        return true;
    }
    // the ball's own L where it is asked for, else only where it can decide: the global bound is at
    // least it, and with lower <= d_max no L >= 0 rules the ball out
    if (lipschitz || lower > d_max) {
        double own = body_ball_lipschitz_placed(s, c, radius, &place);
        if (lipschitz) *lipschitz = own;
        if (lower - own * radius > d_max) return true;
    }
    return body_ball_outside(s, &place, radius, d_max);
}

// a ball of f's frame (centre x, y, z, radius) in s's frame: to_s_frame's operations in their order
static inline osc_vec3 ball_centre(const osc_mat3* rel_r, osc_vec3 rel_p, const double* ball) {
    return osc_add(osc_mat3_apply(*rel_r, osc_v3(ball[0], ball[1], ball[2])), rel_p);
}

void body_balls_beyond_portable(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls,
                                int count, double d_max, bool* far) {
    for (int k = 0; k < count; ++k) {
        const double* ball = balls + 4 * (size_t)k;
        far[k] = body_ball_beyond(s, ball_centre(rel_r, rel_p, ball), ball[3], d_max, NULL);
    }
}

#ifdef BODY_BALLS_X86
_Static_assert(OSC_BODY_BLOCK == 4, "body_balls_beyond_avx2 finds a voxel's block by a shift");

// four balls per step in the lanes of AVX2 registers, body_ball_beyond's three tests with its
// operations (no FMA: every lane has the one-ball test's bits): the centre's products and sums, the
// clamp to the region, the cell (a division, truncated) and the distance to the region as
// grid_voxel_cell_of forms them, the voxels' lower bounds by one gather, a small ball's L from its
// block's neighbourhood (two gathers); a lane that only a big ball's L could still decide, and the
// last count % 4 balls, one by one
__attribute__((target("avx2"))) void body_balls_beyond_avx2(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p,
                                                            const double* balls, int count, double d_max, bool* far) {
    const osc_grid* g = s->grid;
    int k = 0;
    if (g && s->block_lipschitz) {
        __m256d m[3][3], p[3], origin[3], extent[3], last[3];
        double rp[3] = {rel_p.x, rel_p.y, rel_p.z}, o[3] = {g->origin.x, g->origin.y, g->origin.z};
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) m[a][b] = _mm256_set1_pd(rel_r->m[a][b]);
            p[a] = _mm256_set1_pd(rp[a]);
            origin[a] = _mm256_set1_pd(o[a]);
            extent[a] = _mm256_set1_pd(g->extent[a]);
            last[a] = _mm256_set1_pd(g->last_cell[a]);
        }
        double span = OSC_BODY_BLOCK * g->cell;
        __m256d cell = _mm256_set1_pd(g->cell), zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
        __m256d one_span = _mm256_set1_pd(span), two_spans = _mm256_set1_pd(2.0 * span);
        __m256d global = _mm256_set1_pd(s->edge_lipschitz), limit = _mm256_set1_pd(d_max);
        __m256d boundary = _mm256_set1_pd(s->boundary_bound);
        __m128i cells_x = _mm_set1_epi32(g->cells[0]), cells_y = _mm_set1_epi32(g->cells[1]);
        __m128i blocks_x = _mm_set1_epi32(s->blocks[0]), blocks_y = _mm_set1_epi32(s->blocks[1]);
        const float* bounds = s->voxel_bounds;
        for (; k + 4 <= count; k += 4) {
            const double* b = balls + 4 * (size_t)k;
            __m256d r0 = _mm256_loadu_pd(b), r1 = _mm256_loadu_pd(b + 4), r2 = _mm256_loadu_pd(b + 8),
                    r3 = _mm256_loadu_pd(b + 12);
            __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1); // x0 x1 z0 z1, y0 y1 R0 R1
            __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            __m256d v[3] = {_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                            _mm256_permute2f128_pd(t0, t2, 0x31)};
            __m256d radius = _mm256_permute2f128_pd(t1, t3, 0x31);
            __m256d beyond[3], leaves = zero;
            __m128i cell_index[3];
            for (int a = 0; a < 3; ++a) {
                __m256d c = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m[a][0], v[0]),
                                                                      _mm256_mul_pd(m[a][1], v[1])),
                                                        _mm256_mul_pd(m[a][2], v[2])),
                                          p[a]);
                __m256d u = _mm256_sub_pd(c, origin[a]);
                // q = u < 0 ? 0 : (u > extent ? extent : u)
                __m256d q = _mm256_blendv_pd(u, extent[a], _mm256_cmp_pd(u, extent[a], _CMP_GT_OQ));
                q = _mm256_blendv_pd(q, zero, _mm256_cmp_pd(u, zero, _CMP_LT_OQ));
                beyond[a] = _mm256_sub_pd(u, q);
                // the cell: f < n - 1 ? (int)f : n - 1 (f >= 0 here)
                __m256d f = _mm256_div_pd(q, cell);
                f = _mm256_blendv_pd(last[a], f, _mm256_cmp_pd(f, last[a], _CMP_LT_OQ));
                cell_index[a] = _mm256_cvttpd_epi32(f);
                // the ball leaves the region along this axis
                leaves = _mm256_or_pd(leaves, _mm256_or_pd(_mm256_cmp_pd(_mm256_sub_pd(u, radius), zero, _CMP_LT_OQ),
                                                           _mm256_cmp_pd(_mm256_add_pd(u, radius), extent[a],
                                                                         _CMP_GT_OQ)));
            }
            __m128i index = _mm_add_epi32(
                _mm_mullo_epi32(_mm_add_epi32(_mm_mullo_epi32(cell_index[2], cells_y), cell_index[1]), cells_x),
                cell_index[0]);
            __m256d outside = _mm256_sqrt_pd(_mm256_add_pd(
                _mm256_add_pd(_mm256_mul_pd(beyond[0], beyond[0]), _mm256_mul_pd(beyond[1], beyond[1])),
                _mm256_mul_pd(beyond[2], beyond[2])));
            __m256d lower = _mm256_add_pd(_mm256_cvtps_pd(_mm_i32gather_ps(bounds, _mm_slli_epi32(index, 1), 4)), outside);
            // the global bound; a small ball's own (body_ball_lipschitz_placed); outside the region
            __m256d ruled = _mm256_cmp_pd(_mm256_sub_pd(lower, _mm256_mul_pd(global, radius)), limit, _CMP_GT_OQ);
            __m128i block = _mm_add_epi32(
                _mm_mullo_epi32(_mm_add_epi32(_mm_mullo_epi32(_mm_srli_epi32(cell_index[2], 2), blocks_y),
                                              _mm_srli_epi32(cell_index[1], 2)),
                                blocks_x),
                _mm_srli_epi32(cell_index[0], 2));
            __m256d near = _mm256_blendv_pd(_mm256_i32gather_pd(s->block_lipschitz_near[0], block, 8),
                                            _mm256_i32gather_pd(s->block_lipschitz_near[1], block, 8),
                                            _mm256_cmp_pd(radius, one_span, _CMP_GT_OQ));
            near = _mm256_blendv_pd(near, _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(near, near), one)), leaves);
            __m256d small = _mm256_cmp_pd(radius, two_spans, _CMP_LE_OQ);
            __m256d above = _mm256_cmp_pd(lower, limit, _CMP_GT_OQ);
            ruled = _mm256_or_pd(
                ruled, _mm256_and_pd(_mm256_and_pd(small, above),
                                     _mm256_cmp_pd(_mm256_sub_pd(lower, _mm256_mul_pd(near, radius)), limit, _CMP_GT_OQ)));
            __m256d gap = _mm256_sub_pd(outside, radius);
            ruled = _mm256_or_pd(ruled, _mm256_and_pd(_mm256_cmp_pd(gap, zero, _CMP_GT_OQ),
                                                      _mm256_cmp_pd(_mm256_add_pd(boundary, gap), limit, _CMP_GT_OQ)));
            int beyond_mask = _mm256_movemask_pd(ruled);
            // a big ball not ruled out yet, whose own L could still decide: the one-ball test
            int open = _mm256_movemask_pd(_mm256_andnot_pd(small, above)) & ~beyond_mask;
            for (int j = 0; j < 4; ++j)
                far[k + j] = open >> j & 1 ? body_ball_beyond(s, ball_centre(rel_r, rel_p, b + 4 * j), b[4 * j + 3], d_max, NULL)
                                           : beyond_mask >> j & 1;
        }
    }
    body_balls_beyond_portable(s, rel_r, rel_p, balls + 4 * (size_t)k, count - k, d_max, far + k);
}
#else
// without x86 lanes the entry point exists for the tests and gives the one-by-one verdicts
void body_balls_beyond_avx2(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls, int count,
                            double d_max, bool* far) {
    body_balls_beyond_portable(s, rel_r, rel_p, balls, count, d_max, far);
}
#endif

bool body_balls_beyond_lanes(void) {
#ifdef BODY_BALLS_X86
    static _Atomic int level = -1; // written once with the same value by whichever thread comes first
    int known = atomic_load_explicit(&level, memory_order_relaxed);
    if (known < 0) {
        const char* cap = getenv("OSC_GRID_KERNEL"); // "portable" or "avx": the portable path
        known = __builtin_cpu_supports("avx2") && !(cap && (!strcmp(cap, "portable") || !strcmp(cap, "avx")));
        atomic_store_explicit(&level, known, memory_order_relaxed);
    }
    return known;
#else
    return false;
#endif
}

void body_balls_beyond(const osc_body* s, const osc_mat3* rel_r, osc_vec3 rel_p, const double* balls, int count,
                       double d_max, bool* far) {
#ifdef BODY_BALLS_X86
    if (body_balls_beyond_lanes()) {
        body_balls_beyond_avx2(s, rel_r, rel_p, balls, count, d_max, far);
        return;
    }
#endif
    body_balls_beyond_portable(s, rel_r, rel_p, balls, count, d_max, far);
}

double body_segment_lipschitz(const osc_body* body, int32_t block_a, int32_t block_b) {
    int lo[3], hi[3], window = 0;
    for (int a = 0; a < 3; ++a) {
        int u = (block_a >> (10 * a)) & 1023, v = (block_b >> (10 * a)) & 1023;
        lo[a] = u < v ? u : v;
        hi[a] = u < v ? v : u;
        window |= (hi[a] - lo[a] == 1 ? 1 : hi[a] - lo[a] == 0 ? 0 : 8) << a;
    }
    // (most edges: at most two blocks along each axis, one window)
    if (window < 8 && body->block_lipschitz_windows)
        return body->block_lipschitz_windows[8 * (((size_t)lo[2] * (size_t)body->blocks[1] + (size_t)lo[1]) *
                                                      (size_t)body->blocks[0] +
                                                  (size_t)lo[0]) +
                                             (size_t)window];
    return block_box_max(body, lo, hi);
}

// the largest float <= x and the smallest float >= x (x finite: the loader refuses other voxels)
static float float_below(double x) {
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static float float_above(double x) {
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

// the uniform cubic B-spline segment with coefficients c[0..3] (offsets -1..2 of a cell) in Bezier
// form over the cell, times 6: 6 b0 = c0 + 4 c1 + c2, 6 b1 = 4 c1 + 2 c2, 6 b2 = 2 c1 + 4 c2,
// 6 b3 = c1 + 4 c2 + c3, read and written `stride` doubles apart
static inline void bspline_to_bezier6(double* c, size_t stride) {
    double c0 = c[0], c1 = c[stride], c2 = c[2 * stride], c3 = c[3 * stride];
    c[0] = c0 + 4.0 * c1 + c2;
    c[stride] = 4.0 * c1 + 2.0 * c2;
    c[2 * stride] = 2.0 * c1 + 4.0 * c2;
    c[3 * stride] = c1 + 4.0 * c2 + c3;
}

// Bounds of a grid's spline over cell (i, j, k), rigorous for its computed values: the cell's
// tricubic in Bezier form (its 4 x 4 x 4 control points) lies between the smallest and the largest
// control point (convex hull property), and d phi / dx is the quadratic-cubic-cubic Bezier with
// control points 3 (b_{a+1} - b_a) / h, so |d phi / dx| <= Mx, their largest magnitude (likewise My,
// Mz) and |grad phi| <= sqrt(Mx^2 + My^2 + Mz^2). The Bezier points are averages of the B-spline
// coefficients, and their differences averages of the coefficients' differences, so these are never
// looser than the grid's voxel bounds (docs/grid.md). Every bound is widened by `margin`, 1e-12 of the largest
// coefficient, far above the rounding of the control points and of an evaluation of the spline.
static void cell_bounds(const osc_grid* g, int i, int j, int k, double* lower, double* upper, double* lipschitz,
                        double* margin) {
    size_t ny = (size_t)g->cells[1] + 3, nz = (size_t)g->cells[2] + 3;
    const double* base = g->distance + ((size_t)i * ny + (size_t)j) * nz + (size_t)k; // [x][y][z], z fastest
    double b[4][4][4], largest = 0.0; // 216 times the control points (no divisions)
    for (int x = 0; x < 4; ++x)
        for (int y = 0; y < 4; ++y) {
            const double* c = base + ((size_t)x * ny + (size_t)y) * nz;
            for (int z = 0; z < 4; ++z) {
                double a = fabs(c[z]);
                largest = a > largest ? a : largest;
                b[x][y][z] = c[z];
            }
            bspline_to_bezier6(&b[x][y][0], 1);
        }
    for (int x = 0; x < 4; ++x)
        for (int z = 0; z < 4; ++z) bspline_to_bezier6(&b[x][0][z], 4);
    for (int y = 0; y < 4; ++y)
        for (int z = 0; z < 4; ++z) bspline_to_bezier6(&b[0][y][z], 16);
    const double* v = &b[0][0][0];
    double lo = v[0], hi = v[0], m[3] = {0.0, 0.0, 0.0};
    for (int n = 1; n < 64; ++n) {
        lo = v[n] < lo ? v[n] : lo;
        hi = v[n] > hi ? v[n] : hi;
    }
    for (int n = 0; n < 48; ++n) { // along x: control points n and n + 16
        double d = fabs(v[n + 16] - v[n]);
        m[0] = d > m[0] ? d : m[0];
    }
    for (int x = 0; x < 4; ++x)
        for (int n = 0; n < 12; ++n) { // along y: n and n + 4 within the x layer
            double d = fabs(v[16 * x + n + 4] - v[16 * x + n]);
            m[1] = d > m[1] ? d : m[1];
        }
    for (int line = 0; line < 16; ++line)
        for (int z = 0; z < 3; ++z) {
            double d = fabs(v[4 * line + z + 1] - v[4 * line + z]);
            m[2] = d > m[2] ? d : m[2];
        }
    *margin = 1e-12 * largest;
    *lower = lo / 216.0 - *margin;
    *upper = hi / 216.0 + *margin;
    *lipschitz = (3.0 * sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) / 216.0 + *margin) / g->cell * (1.0 + 1e-12);
}

// one z layer of blocks of a grid body (build_blocks' items): a thread owns the layer's blocks and
// voxels; the slab's extremes are combined in order afterwards (max and min are exact, so the body
// is the same bits on any number of threads)
typedef struct block_slabs {
    osc_body* body;
    double* outside;  // [slabs]: the largest L where phi > 0 may be reached
    double* boundary; // [slabs]: the least lower bound on the grid's boundary cells
} block_slabs;

static osc_status block_slab(void* context, size_t index) {
    block_slabs* b = context;
    osc_body* body = b->body;
    const osc_grid* g = body->grid;
    int slab = (int)index;
    double circumradius = 0.5 * sqrt(3.0) * g->cell, outside = 0.0, boundary = INFINITY;
    for (int k = slab * OSC_BODY_BLOCK; k < g->cells[2] && k < (slab + 1) * OSC_BODY_BLOCK; ++k)
        for (int j = 0; j < g->cells[1]; ++j)
            for (int i = 0; i < g->cells[0]; ++i) {
                size_t v = ((size_t)k * g->cells[1] + j) * g->cells[0] + i;
                double lower, upper, lipschitz, margin, value = g->voxel_value[v];
                cell_bounds(g, i, j, k, &lower, &upper, &lipschitz, &margin);
                // (phi(c) is an evaluation of the spline: widened like the control points)
                double below = value - lipschitz * circumradius - margin;
                double above = value + lipschitz * circumradius + margin;
                lower = below > lower ? below : lower;
                upper = above < upper ? above : upper;
                body->voxel_bounds[2 * v] = float_below(lower);
                body->voxel_bounds[2 * v + 1] = float_above(upper);
                if (i == 0 || j == 0 || k == 0 || i == g->cells[0] - 1 || j == g->cells[1] - 1 || k == g->cells[2] - 1)
                    boundary = lower < boundary ? lower : boundary;
                if (upper <= 0.0) continue; // never reaches phi > 0
                outside = lipschitz > outside ? lipschitz : outside;
                double* block = &body->block_lipschitz[((size_t)slab * body->blocks[1] + (size_t)(j / OSC_BODY_BLOCK)) *
                                                           body->blocks[0] +
                                                       (size_t)(i / OSC_BODY_BLOCK)];
                *block = lipschitz > *block ? lipschitz : *block;
            }
    b->outside[slab] = outside;
    b->boundary[slab] = boundary;
    return OSC_OK;
}

// a grid body's block Lipschitz bounds, boundary bound, float voxel bounds and global bound on
// |grad phi| where phi > 0, from each cell's bounds (cell_bounds, and the voxel's centre value
// phi(c) with phi(c) -/+ L r, r the circumradius, where that is tighter), one slab of blocks per
// item of osc_batch_run on the default threads
static osc_status build_blocks(osc_body* body) {
    const osc_grid* g = body->grid;
    size_t count = 1;
    for (int a = 0; a < 3; ++a) {
        body->blocks[a] = (g->cells[a] + OSC_BODY_BLOCK - 1) / OSC_BODY_BLOCK;
        count *= (size_t)body->blocks[a];
    }
    size_t slabs = (size_t)body->blocks[2];
    body->block_lipschitz = osc_calloc(count, sizeof(double));
    body->voxel_bounds = osc_calloc(2 * grid_cell_count(g), sizeof(float));
    block_slabs b = {body, osc_calloc(2 * slabs, sizeof(double)), NULL};
    if (!body->block_lipschitz || !body->voxel_bounds || !b.outside) {
        osc_free(b.outside);
        return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    }
    b.boundary = b.outside + slabs;
    osc_batch_run("osc_body_create", "slab", slabs, 0, 1, block_slab, &b, NULL);
    double outside = 0.0, boundary = INFINITY;
    for (size_t slab = 0; slab < slabs; ++slab) {
        outside = b.outside[slab] > outside ? b.outside[slab] : outside;
        boundary = b.boundary[slab] < boundary ? b.boundary[slab] : boundary;
    }
    osc_free(b.outside);
    body->boundary_bound = boundary;
    // each block's windows of one or two blocks along each axis (block_box_max)
    body->block_lipschitz_windows = osc_calloc(8 * count, sizeof(double));
    if (!body->block_lipschitz_windows) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    for (int k = 0; k < body->blocks[2]; ++k)
        for (int j = 0; j < body->blocks[1]; ++j)
            for (int i = 0; i < body->blocks[0]; ++i)
                for (int w = 0; w < 8; ++w) {
                    int lo[3] = {i, j, k}, hi[3];
                    for (int a = 0; a < 3; ++a) {
                        hi[a] = lo[a] + (w >> a & 1);
                        hi[a] = hi[a] < body->blocks[a] ? hi[a] : body->blocks[a] - 1;
                    }
                    body->block_lipschitz_windows[8 * (((size_t)k * (size_t)body->blocks[1] + (size_t)j) *
                                                           (size_t)body->blocks[0] +
                                                       (size_t)i) +
                                                  (size_t)w] = block_box_scan(body, lo, hi);
                }
    // each block's bound over its neighbourhoods (body_ball_lipschitz's small balls)
    for (int reach = 1; reach <= 2; ++reach) {
        double* near = body->block_lipschitz_near[reach - 1] = osc_calloc(count, sizeof(double));
        if (!near) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
        for (int k = 0; k < body->blocks[2]; ++k)
            for (int j = 0; j < body->blocks[1]; ++j)
                for (int i = 0; i < body->blocks[0]; ++i) {
                    int at[3] = {i, j, k}, lo[3], hi[3];
                    for (int a = 0; a < 3; ++a) {
                        lo[a] = at[a] > reach ? at[a] - reach : 0;
                        hi[a] = at[a] + reach < body->blocks[a] ? at[a] + reach : body->blocks[a] - 1;
                    }
                    near[((size_t)k * (size_t)body->blocks[1] + (size_t)j) * (size_t)body->blocks[0] + (size_t)i] =
                        block_box_max(body, lo, hi);
                }
    }
    // the continuation outside the region adds |x - clamp(x)|: |grad| <= sqrt(L^2 + 1)
    body->edge_lipschitz = sqrt(outside * outside + 1.0);
    return OSC_OK;
}

// a voxel grid of an osc_sdf body over its bounds (lo, hi) grown by `padding`, `resolution` voxels
// along the longest side: phi at each voxel centre minus L r, L the SDF's bound on |grad phi| where
// phi > 0 and r the circumradius. Along a segment from the centre, phi cannot fall below
// phi(c) - L |x - c| before it first reaches 0, so phi(c) - L r >= 0 bounds phi from below in the
// whole voxel (a negative value is stored as -INFINITY: no bound).
static osc_status build_voxel_level(const osc_body* body, osc_vec3 lo, osc_vec3 hi, double padding, int resolution,
                                    body_voxels* v) {
    double size[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    double longest = fmax(size[0], fmax(size[1], size[2]));
    v->cell = (longest + 2.0 * padding) / resolution;
    v->origin = osc_v3(lo.x - padding, lo.y - padding, lo.z - padding);
    for (int a = 0; a < 3; ++a) {
        v->cells[a] = (int)ceil((size[a] + 2.0 * padding) / v->cell);
        if (v->cells[a] < 1) v->cells[a] = 1;
    }
    size_t count = (size_t)v->cells[0] * v->cells[1] * v->cells[2];
    v->bound = osc_calloc(count, sizeof(double));
    if (!v->bound) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    double radius = 0.5 * sqrt(3.0) * v->cell;
    for (int k = 0; k < v->cells[2]; ++k)
        for (int j = 0; j < v->cells[1]; ++j)
            for (int i = 0; i < v->cells[0]; ++i) {
                osc_vec3 centre = osc_v3(v->origin.x + (i + 0.5) * v->cell, v->origin.y + (j + 0.5) * v->cell,
                                         v->origin.z + (k + 0.5) * v->cell);
                double bound = osc_sdf_eval(body->sdf, centre, NULL, NULL) - body->edge_lipschitz * radius;
                v->bound[((size_t)k * v->cells[1] + j) * v->cells[0] + i] = bound >= 0.0 ? bound : -INFINITY;
            }
    return OSC_OK;
}

#define OSC_BODY_COARSE_RESOLUTION 20 // voxels along the coarse grid's longest side
#define OSC_BODY_COARSE_REACH 3.0     // its padding, in multiples of the bounds' longest side

// the two voxel grids of an osc_sdf body
static osc_status build_voxels(osc_body* body, const osc_body_desc* desc) {
    osc_vec3 lo, hi;
    osc_sdf_bounds(body->sdf, &lo, &hi);
    double longest = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    if (!isfinite(longest) || !(longest > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "osc_body_create: the SDF's bounds are not a finite box (%g across): a body needs "
                        "a bounded SDF",
                        longest);
    double padding = desc->broad_phase_padding >= 0.0 ? desc->broad_phase_padding : 0.5 * longest;
    body->edge_lipschitz = osc_sdf_lipschitz(body->sdf) * (osc_sdf_lipschitz_is_bound(body->sdf) ? 1.0 : 2.0);
    osc_status status = build_voxel_level(body, lo, hi, padding, desc->broad_phase_resolution, &body->voxels[0]);
    if (status) return status;
    return build_voxel_level(body, lo, hi, fmax(padding, OSC_BODY_COARSE_REACH * longest), OSC_BODY_COARSE_RESOLUTION,
                             &body->voxels[1]);
}

static double body_value(const osc_body* body, osc_vec3 y) {
    return body->grid ? osc_grid_eval(body->grid, y, NULL, NULL) : osc_sdf_eval(body->sdf, y, NULL, NULL);
}

// refuses a body whose SDF does not describe its own mesh: a vertex outside a grid's region or
// with |phi| beyond the tolerance
static osc_status check_cover(const osc_body* body, const osc_mesh* mesh, double tolerance) {
    const double* v = osc_mesh_vertices(mesh);
    int32_t n = osc_mesh_vertex_count(mesh);
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_v3(-INFINITY, -INFINITY, -INFINITY);
    for (int32_t i = 0; i < n; ++i) {
        lo = osc_v3(fmin(lo.x, v[3 * i]), fmin(lo.y, v[3 * i + 1]), fmin(lo.z, v[3 * i + 2]));
        hi = osc_v3(fmax(hi.x, v[3 * i]), fmax(hi.y, v[3 * i + 1]), fmax(hi.z, v[3 * i + 2]));
    }
    double limit = tolerance * osc_length(osc_sub(hi, lo));
    osc_vec3 grid_lo = lo, grid_hi = hi;
    if (body->grid) osc_grid_bounds(body->grid, &grid_lo, &grid_hi);
    for (int32_t i = 0; i < n; ++i) {
        osc_vec3 y = osc_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
        if (y.x < grid_lo.x || y.y < grid_lo.y || y.z < grid_lo.z || y.x > grid_hi.x || y.y > grid_hi.y ||
            y.z > grid_hi.z)
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_body_create: mesh vertex %d (%g, %g, %g) lies outside the grid's region: "
                            "the SDF does not cover the mesh",
                            (int)i, y.x, y.y, y.z);
        double phi = body_value(body, y);
        if (!(fabs(phi) <= limit))
            return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                            "osc_body_create: the SDF is %g at mesh vertex %d, beyond the surface tolerance "
                            "%g (%g of the mesh's diagonal): the SDF does not describe this mesh",
                            phi, (int)i, limit, tolerance);
    }
    return OSC_OK;
}

// vertex groups from the description: given, SDF leaves or clusters; -1 everywhere for none
static osc_status vertex_groups(osc_body* body, const osc_body_desc* desc, int32_t* groups) {
    const osc_mesh* mesh = desc->mesh;
    int32_t n = osc_mesh_vertex_count(mesh);
    const double* v = osc_mesh_vertices(mesh);
    switch (desc->groups) {
        case OSC_GROUPS_NONE:
            for (int32_t i = 0; i < n; ++i) groups[i] = -1;
            body->group_count = 0;
            return OSC_OK;
        case OSC_GROUPS_GIVEN: {
            if (!desc->vertex_groups)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_body_create: groups is OSC_GROUPS_GIVEN but vertex_groups is NULL");
            int32_t count = 0;
            for (int32_t i = 0; i < n; ++i) {
                int32_t g = desc->vertex_groups[i];
                if (g < 0 || g >= n)
                    return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                    "osc_body_create: vertex_groups[%d] = %d is outside [0, %d)", (int)i, (int)g,
                                    (int)n);
                groups[i] = g;
                if (g + 1 > count) count = g + 1;
            }
            body->group_count = count;
            return OSC_OK;
        }
        case OSC_GROUPS_SDF_LEAVES: {
            if (!body->sdf)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_body_create: OSC_GROUPS_SDF_LEAVES needs an osc_sdf body, not a grid");
            int leaves = osc_sdf_leaf_count(body->sdf);
            for (int32_t i = 0; i < n; ++i) {
                osc_vec3 y = osc_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
                double best = INFINITY;
                groups[i] = 0;
                for (int leaf = 0; leaf < leaves; ++leaf) {
                    double value = osc_sdf_eval_leaf(body->sdf, leaf, y, NULL, NULL);
                    if (value < best) {
                        best = value;
                        groups[i] = leaf;
                    }
                }
            }
            body->group_count = leaves;
            return OSC_OK;
        }
        case OSC_GROUPS_CLUSTER: {
            if (desc->group_count < 1)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_body_create: group_count is %d (must be >= 1)",
                                (int)desc->group_count);
            int32_t count = 0;
            osc_status status = osc_mesh_groups_cluster(mesh, desc->group_count, groups, &count);
            if (status) return osc_fail_in("osc_body_create", status);
            body->group_count = count;
            return OSC_OK;
        }
    }
    return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_body_create: groups = %d is not an osc_group_source",
                    (int)desc->groups);
}

// edge groups [edge_count][2]: given (checked against group_count) or from the corners
static osc_status edge_groups(const osc_body* body, const osc_body_desc* desc, const int32_t* vgroups,
                              int32_t* egroups) {
    int32_t e = osc_mesh_edge_count(desc->mesh);
    if (body->group_count == 0) {
        for (int32_t i = 0; i < 2 * e; ++i) egroups[i] = -1;
        return OSC_OK;
    }
    if (desc->groups == OSC_GROUPS_GIVEN && desc->edge_groups) {
        for (int32_t i = 0; i < e; ++i) {
            int32_t g0 = desc->edge_groups[2 * i], g1 = desc->edge_groups[2 * i + 1];
            if (g0 < 0 || g0 >= body->group_count || g1 < -1 || g1 >= body->group_count)
                return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                                "osc_body_create: edge_groups[%d] = (%d, %d): the first must be a group in "
                                "[0, %d), the second a group or -1",
                                (int)i, (int)g0, (int)g1, (int)body->group_count);
            egroups[2 * i] = g0;
            egroups[2 * i + 1] = g1 == g0 ? -1 : g1;
        }
        return OSC_OK;
    }
    osc_status status = osc_mesh_edge_groups(desc->mesh, vgroups, egroups);
    return status ? osc_fail_in("osc_body_create", status) : OSC_OK;
}

// stores vertices and edges in pipeline order: by group (stable), along the curve within a group
static osc_status store_features(osc_body* body, const osc_body_desc* desc, const int32_t* vgroups,
                                 const int32_t* egroups) {
    const osc_mesh* mesh = desc->mesh;
    const double* v = osc_mesh_vertices(mesh);
    const int32_t* mesh_edges = osc_mesh_edges(mesh);
    int32_t n = body->vertex_count, e = body->edge_count, groups = body->group_count;
    int32_t* order = osc_calloc((size_t)(n > e ? n : e), sizeof(int32_t));
    double* midpoints = osc_calloc((size_t)e * 3, sizeof(double));
    int32_t* cursor = osc_calloc((size_t)groups + 1, sizeof(int32_t));
    int32_t* slot_of = osc_calloc((size_t)n, sizeof(int32_t)); // mesh vertex -> stored position
    osc_status status = OSC_ERR_NO_MEMORY;
    if (!order || !midpoints || !cursor || !slot_of) goto done;

    // vertices: curve order, then a stable counting sort by group (ungrouped bodies: one bucket)
    if ((status = osc_curve_order(v, n, desc->curve, order))) goto done;
    for (int32_t i = 0; i < n; ++i) body->group_vertex_start[(vgroups[i] < 0 ? 0 : vgroups[i]) + 1]++;
    for (int32_t g = 0; g < groups; ++g) body->group_vertex_start[g + 1] += body->group_vertex_start[g];
    for (int32_t g = 0; g <= groups; ++g) cursor[g] = body->group_vertex_start[g];
    for (int32_t r = 0; r < n; ++r) {
        int32_t i = order[r], g = vgroups[i] < 0 ? 0 : vgroups[i];
        int32_t slot = groups ? cursor[g]++ : r;
        memcpy(&body->vertices[3 * slot], &v[3 * i], 3 * sizeof(double));
        body->vertex_index[slot] = i;
        body->vertex_group[slot] = vgroups[i];
        slot_of[i] = slot;
    }

    // edges: curve order of their midpoints
    for (int32_t i = 0; i < e; ++i)
        for (int a = 0; a < 3; ++a)
            midpoints[3 * i + a] = 0.5 * (v[3 * mesh_edges[2 * i] + a] + v[3 * mesh_edges[2 * i + 1] + a]);
    if ((status = osc_curve_order(midpoints, e, desc->curve, order))) goto done;
    for (int32_t r = 0; r < e; ++r) {
        int32_t i = order[r];
        memcpy(&body->edges[6 * r], &v[3 * mesh_edges[2 * i]], 3 * sizeof(double));
        memcpy(&body->edges[6 * r + 3], &v[3 * mesh_edges[2 * i + 1]], 3 * sizeof(double));
        body->edge_index[r] = i;
        body->edge_group[r] = egroups[2 * i];
        body->edge_shared[r] = egroups[2 * i] >= 0 && egroups[2 * i + 1] >= 0;
        body->edge_vertices[2 * r] = slot_of[mesh_edges[2 * i]];
        body->edge_vertices[2 * r + 1] = slot_of[mesh_edges[2 * i + 1]];
        const double* c = &body->edges[6 * r];
        double dx = c[3] - c[0], dy = c[4] - c[1], dz = c[5] - c[2];
        body->edge_lengths[r] = sqrt(dx * dx + dy * dy + dz * dz);
    }
    // each group's list of stored edges, in curve order
    for (int32_t r = 0; r < e && groups; ++r)
        for (int k = 0; k < 2; ++k)
            if (egroups[2 * order[r] + k] >= 0) body->group_edge_start[egroups[2 * order[r] + k] + 1]++;
    for (int32_t g = 0; g < groups; ++g) body->group_edge_start[g + 1] += body->group_edge_start[g];
    for (int32_t g = 0; g <= groups; ++g) cursor[g] = body->group_edge_start[g];
    for (int32_t r = 0; r < e && groups; ++r)
        for (int k = 0; k < 2; ++k) {
            int32_t g = egroups[2 * order[r] + k];
            if (g >= 0) body->group_edges[cursor[g]++] = r;
        }
    status = OSC_OK;
done:
    osc_free(order);
    osc_free(midpoints);
    osc_free(cursor);
    osc_free(slot_of);
    return status ? osc_fail_in("osc_body_create", status) : OSC_OK;
}

// the bounding sphere (centroid, largest distance) of `count` points, `stride` doubles apart
static void bounding_sphere(const double* points, int32_t count, int stride, double sphere[4]) {
    double c[3] = {0.0, 0.0, 0.0}, r2 = 0.0;
    for (int32_t i = 0; i < count; ++i)
        for (int a = 0; a < 3; ++a) c[a] += points[(size_t)i * stride + a] / count;
    for (int32_t i = 0; i < count; ++i) {
        const double* p = points + (size_t)i * stride;
        double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
        r2 = d2 > r2 ? d2 : r2;
    }
    for (int a = 0; a < 3; ++a) sphere[a] = c[a];
    sphere[3] = sqrt(r2);
}

// bounding spheres of the whole mesh and of every run of OSC_BODY_CHUNK stored vertices and edges
// (an edge run's sphere holds both corners of each edge, hence every point of its edges)
static osc_status build_chunks(osc_body* body) {
    int32_t vchunks = (body->vertex_count + OSC_BODY_CHUNK - 1) / OSC_BODY_CHUNK;
    int32_t echunks = (body->edge_count + OSC_BODY_CHUNK - 1) / OSC_BODY_CHUNK;
    body->vertex_chunks = osc_calloc((size_t)vchunks * 4 + 4, sizeof(double));
    body->edge_chunks = osc_calloc((size_t)echunks * 4 + 4, sizeof(double));
    if (!body->vertex_chunks || !body->edge_chunks) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    bounding_sphere(body->vertices, body->vertex_count, 3, body->sphere);
    for (int32_t k = 0; k < vchunks; ++k) {
        int32_t first = k * OSC_BODY_CHUNK, count = body->vertex_count - first;
        bounding_sphere(body->vertices + 3 * (size_t)first, count < OSC_BODY_CHUNK ? count : OSC_BODY_CHUNK, 3,
                        body->vertex_chunks + 4 * (size_t)k);
    }
    for (int32_t k = 0; k < echunks; ++k) {
        int32_t first = k * OSC_BODY_CHUNK, count = body->edge_count - first;
        count = count < OSC_BODY_CHUNK ? count : OSC_BODY_CHUNK;
        // the corners as 2 count points of 3 doubles
        bounding_sphere(body->edges + 6 * (size_t)first, 2 * count, 3, body->edge_chunks + 4 * (size_t)k);
    }
    return OSC_OK;
}

// the bounding sphere (centroid, largest distance) of each group's vertices and its edges' corners,
// which holds every point of its features
static osc_status build_group_spheres(osc_body* body) {
    body->group_spheres = osc_calloc((size_t)body->group_count * 4 + 4, sizeof(double));
    if (!body->group_spheres) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    for (int32_t g = 0; g < body->group_count; ++g) {
        int32_t v0 = body->group_vertex_start[g], v1 = body->group_vertex_start[g + 1];
        int32_t e0 = body->group_edge_start[g], e1 = body->group_edge_start[g + 1];
        double count = (double)(v1 - v0) + 2.0 * (e1 - e0), c[3] = {0.0, 0.0, 0.0}, r2 = 0.0;
        double* sphere = body->group_spheres + 4 * (size_t)g;
        if (!(count > 0.0)) continue; // no features: nothing to rule out
        for (int pass = 0; pass < 2; ++pass)
            for (int32_t k = v0; k < v1 + 2 * (e1 - e0); ++k) {
                const double* p = k < v1 ? body->vertices + 3 * (size_t)k
                                         : body->edges + 6 * (size_t)body->group_edges[e0 + (k - v1) / 2] +
                                               3 * (size_t)((k - v1) % 2);
                if (pass == 0) {
                    for (int a = 0; a < 3; ++a) c[a] += p[a] / count;
                } else {
                    double d2 =
                        (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
                    r2 = d2 > r2 ? d2 : r2;
                }
            }
        for (int a = 0; a < 3; ++a) sphere[a] = c[a];
        sphere[3] = sqrt(r2);
    }
    return OSC_OK;
}

// the corners of the feature at position i of a group's vertices (edges: false) or of its edge list
// (true) into `to` (1 or 2 points); returns how many
static int feature_points(const osc_body* body, bool edges, int32_t i, double* to) {
    const double* from = edges ? body->edges + 6 * (size_t)body->group_edges[i] : body->vertices + 3 * (size_t)i;
    memcpy(to, from, (edges ? 6 : 3) * sizeof(double));
    return edges ? 2 : 1;
}

// splits positions [begin, end) (a group's vertices, or its edge list) into blocks of consecutive
// features: each grows while it has fewer than OSC_BODY_GROUP_BLOCK features and its bounding sphere
// stays within radius `cap`. Writes each block's first position to first[] and its sphere to
// spheres[] (NULL: count only); returns the number of blocks
static int32_t split_blocks(const osc_body* body, bool edges, int32_t begin, int32_t end, double cap, int32_t* first,
                            double* spheres) {
    int32_t blocks = 0;
    double points[6 * OSC_BODY_GROUP_BLOCK], sphere[4], grown[4];
    for (int32_t i = begin; i < end; ++blocks) {
        int count = feature_points(body, edges, i, points);
        bounding_sphere(points, count, 3, sphere);
        int32_t next = i + 1;
        for (; next < end && next - i < OSC_BODY_GROUP_BLOCK; ++next) {
            int more = feature_points(body, edges, next, points + 3 * count);
            bounding_sphere(points, count + more, 3, grown);
            if (grown[3] > cap) break;
            count += more;
            memcpy(sphere, grown, sizeof sphere);
        }
        if (first) first[blocks] = i;
        if (spheres) memcpy(spheres + 4 * (size_t)blocks, sphere, sizeof sphere);
        i = next;
    }
    return blocks;
}

// the blocks of each group's vertices and edge list (split_blocks, within 1.5 times the mean edge length)
static osc_status build_group_blocks(osc_body* body) {
    int32_t groups = body->group_count;
    double cap = 0.0;
    for (int32_t i = 0; i < body->edge_count; ++i) cap += body->edge_lengths[i];
    cap = body->edge_count > 0 ? 1.5 * cap / body->edge_count : 0.0;
    body->group_vertex_block_start = osc_calloc((size_t)groups + 1, sizeof(int32_t));
    body->group_edge_block_start = osc_calloc((size_t)groups + 1, sizeof(int32_t));
    if (!body->group_vertex_block_start || !body->group_edge_block_start)
        return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    for (int pass = 0; pass < 2; ++pass) { // count, then fill
        for (int32_t g = 0; g < groups; ++g) {
            int32_t *vstart = body->group_vertex_block_start, *estart = body->group_edge_block_start;
            bool fill = pass == 1;
            int32_t v0 = body->group_vertex_start[g], v1 = body->group_vertex_start[g + 1];
            int32_t e0 = body->group_edge_start[g], e1 = body->group_edge_start[g + 1];
            vstart[g + 1] = vstart[g] + split_blocks(body, false, v0, v1, cap,
                                                     fill ? body->vertex_block_first + vstart[g] : NULL,
                                                     fill ? body->group_vertex_blocks + 4 * (size_t)vstart[g] : NULL);
            estart[g + 1] = estart[g] + split_blocks(body, true, e0, e1, cap,
                                                     fill ? body->edge_block_first + estart[g] : NULL,
                                                     fill ? body->group_edge_blocks + 4 * (size_t)estart[g] : NULL);
        }
        if (pass == 1) break;
        size_t vblocks = (size_t)body->group_vertex_block_start[groups];
        size_t eblocks = (size_t)body->group_edge_block_start[groups];
        body->vertex_block_first = osc_calloc(vblocks + 1, sizeof(int32_t));
        body->edge_block_first = osc_calloc(eblocks + 1, sizeof(int32_t));
        body->group_vertex_blocks = osc_calloc(4 * vblocks + 4, sizeof(double));
        body->group_edge_blocks = osc_calloc(4 * eblocks + 4, sizeof(double));
        if (!body->vertex_block_first || !body->edge_block_first || !body->group_vertex_blocks ||
            !body->group_edge_blocks)
            return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
        body->vertex_block_first[vblocks] = groups > 0 ? body->group_vertex_start[groups] : 0;
        body->edge_block_first[eblocks] = groups > 0 ? body->group_edge_start[groups] : 0;
    }
    return OSC_OK;
}

static osc_status check_desc(const osc_body_desc* desc) {
    const char* f = "osc_body_create";
    if (!desc) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc is NULL", f);
    if (!desc->mesh) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: desc->mesh is NULL", f);
    if (osc_mesh_vertex_count(desc->mesh) < 1 || osc_mesh_triangle_count(desc->mesh) < 1)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the mesh is empty (%d vertices, %d triangles)", f,
                        (int)osc_mesh_vertex_count(desc->mesh), (int)osc_mesh_triangle_count(desc->mesh));
    if (!desc->grid == !desc->sdf)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: set exactly one of desc->grid and desc->sdf (%s)", f,
                        desc->grid ? "both are set" : "neither is set");
    if (!desc->grid && (desc->broad_phase_resolution < 1 || desc->broad_phase_resolution > 1024))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: broad_phase_resolution is %d (must be in 1..1024)", f,
                        desc->broad_phase_resolution);
    if (!isfinite(desc->broad_phase_padding))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: broad_phase_padding is %g", f, desc->broad_phase_padding);
    if (!(desc->surface_tolerance >= 0.0) || !isfinite(desc->surface_tolerance))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: surface_tolerance is %g (must be finite and >= 0)", f,
                        desc->surface_tolerance);
    if (desc->curve != OSC_CURVE_MORTON && desc->curve != OSC_CURVE_HILBERT)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: curve = %d is not an osc_curve", f, (int)desc->curve);
    return OSC_OK;
}

osc_status osc_body_create(const osc_body_desc* desc, osc_body** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "osc_body_create: out is NULL");
    *out = NULL;
    osc_status status = check_desc(desc);
    if (status) return status;
    osc_body* body = osc_calloc(1, sizeof *body);
    if (!body) return osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
    body->grid = desc->grid;
    body->sdf = desc->sdf;
    body->vertex_count = osc_mesh_vertex_count(desc->mesh);
    body->edge_count = osc_mesh_edge_count(desc->mesh);
    size_t n = (size_t)body->vertex_count, e = (size_t)body->edge_count;
    int32_t* vgroups = osc_calloc(n, sizeof(int32_t));
    int32_t* egroups = osc_calloc(2 * e + 1, sizeof(int32_t));
    if (!vgroups || !egroups) {
        status = osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
        goto fail;
    }
    if (body->grid) {
        if ((status = build_blocks(body))) goto fail;
    } else if ((status = build_voxels(body, desc))) {
        goto fail;
    }
    if ((status = check_cover(body, desc->mesh, desc->surface_tolerance))) goto fail;
    if ((status = vertex_groups(body, desc, vgroups))) goto fail;
    if ((status = edge_groups(body, desc, vgroups, egroups))) goto fail;
    size_t groups = (size_t)body->group_count;
    size_t items = 0;
    for (size_t i = 0; i < 2 * e; ++i) items += egroups[i] >= 0;
    body->vertices = osc_calloc(3 * n, sizeof(double));
    body->vertex_index = osc_calloc(n, sizeof(int32_t));
    body->vertex_group = osc_calloc(n, sizeof(int32_t));
    body->edges = osc_calloc(6 * e + 1, sizeof(double));
    body->edge_lengths = osc_calloc(e + 1, sizeof(double));
    body->edge_index = osc_calloc(e + 1, sizeof(int32_t));
    body->edge_group = osc_calloc(e + 1, sizeof(int32_t));
    body->edge_vertices = osc_calloc(2 * e + 1, sizeof(int32_t));
    body->edge_shared = osc_calloc(e + 1, sizeof(uint8_t));
    body->group_vertex_start = osc_calloc(groups + 2, sizeof(int32_t));
    body->group_edge_start = osc_calloc(groups + 2, sizeof(int32_t));
    body->group_edges = osc_calloc(items + 1, sizeof(int32_t));
    if (!body->vertices || !body->vertex_index || !body->vertex_group || !body->edges || !body->edge_lengths ||
        !body->edge_index || !body->edge_group || !body->edge_vertices || !body->edge_shared ||
        !body->group_vertex_start || !body->group_edge_start || !body->group_edges) {
        status = osc_fail_in("osc_body_create", OSC_ERR_NO_MEMORY);
        goto fail;
    }
    if ((status = store_features(body, desc, vgroups, egroups))) goto fail;
    if ((status = build_chunks(body))) goto fail;
    if ((status = build_group_spheres(body))) goto fail;
    if ((status = build_group_blocks(body))) goto fail;
    osc_free(vgroups);
    osc_free(egroups);
    *out = body;
    return OSC_OK;
fail:
    osc_free(vgroups);
    osc_free(egroups);
    osc_body_destroy(body);
    return status;
}
