// sdf_lanes.c: the superquadrics of a culled union's voxel list evaluated together, one per SIMD
// lane (docs/sdf.md, "Superquadrics in lanes"). Each lane runs sq_radial_distance_shape, the scalar
// leaf's branch-free code, on its own SQ, with the powers of fast_math.h, then maps the jet to the
// world as sdf_leaf_eval_rotated does (phi = s phi_l, grad = R grad_l, hess = R hess_l R^T / s). The
// same loop over SDF_LANES lanes is compiled three times: portable (SSE2 on x86-64), AVX2 with FMA and
// AVX-512F with FMA (this file is compiled with -ffp-contract=fast), picked at run time.

#include "sdf_superquadric.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void sdf_cull_pack_lanes(osc_sdf* sdf) {
    sdf_cull* c = sdf->cull;
    for (int32_t k = 0; k < c->child_count; ++k) {
        sdf_sq_lane* lane = &c->sq_lanes[k];
        memset(lane, 0, sizeof *lane);
        int32_t first = c->child_first[k];
        if (c->child_op[k] - first != 1 || sdf->program[first].op != SDF_OP_LEAF) continue;
        const sdf_leaf* leaf = &sdf->leaves[sdf->program[first].index];
        if (leaf->kind != SDF_LEAF_PSQ || leaf->p.psq.plane_count != 0) continue;
        const sdf_psq* q = &leaf->p.psq;
        lane->is_sq = 1;
        lane->shape = sq_constants_make(q->scale, q->inverse_scale, q->eps1, q->eps2);
        // f(t) <= 2^k + 1 where every |t_i| <= 1, and c < 0 (docs/sdf.md, "Culled unions"); rounded
        // down by a relative 1e-12, far beyond pow's rounding
        lane->inner = pow(pow(2.0, lane->shape.k) + 1.0, lane->shape.c) * (1.0 - 1e-12);
        osc_mat3 r = leaf->has_transform ? leaf->rotation : osc_mat3_identity();
        memcpy(lane->rotation, r.m, sizeof lane->rotation);
        lane->scale = leaf->has_transform ? leaf->scale : 1.0;
        lane->inverse_scale = 1.0 / lane->scale; // sdf_leaf_eval_rotated's factor, the same bits
    }
}

// the lanes' parameters, one array per quantity
typedef struct lane_parameters {
    double rotation[3][3][SDF_LANES];
    double scale[SDF_LANES], inverse_scale[SDF_LANES];
    double inverse_a[3][SDF_LANES], p[SDF_LANES], q[SDF_LANES], k[SDF_LANES], c[SDF_LANES], centre[SDF_LANES];
    double x[3][SDF_LANES]; // the point in the leaf's frame, R^T (x - t) / s
} lane_parameters;

// The kernel: every lane the same operations (the loop over lanes vectorises); lanes from `count`
// on repeat lane 0's SQ and are not written.
OSC_FORCE_INLINE void lanes_body(const sdf_sq_lane* const sq[SDF_LANES], int count,
                                 double rotated[3][SDF_LANES], int order, double value[SDF_LANES],
                                 double gradient[3][SDF_LANES], double hessian[6][SDF_LANES]) {
    lane_parameters a;
    for (int l = 0; l < SDF_LANES; ++l) {
        const sdf_sq_lane* s = sq[l < count ? l : 0];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) a.rotation[i][j][l] = s->rotation[i][j];
        a.scale[l] = s->scale;
        a.inverse_scale[l] = s->inverse_scale;
        for (int i = 0; i < 3; ++i) a.inverse_a[i][l] = s->shape.inverse_a[i];
        a.p[l] = s->shape.p, a.q[l] = s->shape.q, a.k[l] = s->shape.k, a.c[l] = s->shape.c;
        a.centre[l] = s->shape.centre;
        for (int i = 0; i < 3; ++i) a.x[i][l] = rotated[i][l < count ? l : 0] * s->inverse_scale;
    }
    double v[SDF_LANES], g[3][SDF_LANES], h[6][SDF_LANES];
    for (int l = 0; l < SDF_LANES; ++l) {
        sq_constants shape = {{a.inverse_a[0][l], a.inverse_a[1][l], a.inverse_a[2][l]},
                              a.p[l],
                              a.q[l],
                              a.k[l],
                              a.c[l],
                              a.centre[l]};
        double inverse_scale = a.inverse_scale[l];
        jet j = sq_radial_distance_shape(a.x[0][l], a.x[1][l], a.x[2][l], &shape, order, 1);
        v[l] = a.scale[l] * j.v;
        if (order >= 1)
            for (int i = 0; i < 3; ++i)
                g[i][l] = a.rotation[i][0][l] * j.g[0] + a.rotation[i][1][l] * j.g[1] + a.rotation[i][2][l] * j.g[2];
        if (order >= 2) {
            // R hess_l R^T / s, packed by averaging the off-diagonal pairs: sdf_leaf_eval_rotated's
            // operations in its order, so a lane's jet has the scalar leaf's bits
            double full[3][3] = {{j.h[0], j.h[1], j.h[2]}, {j.h[1], j.h[3], j.h[4]}, {j.h[2], j.h[4], j.h[5]}};
            double rh[3][3], world[3][3];
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k)
                    rh[i][k] = a.rotation[i][0][l] * full[0][k] + a.rotation[i][1][l] * full[1][k] +
                               a.rotation[i][2][l] * full[2][k];
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k)
                    world[i][k] = (rh[i][0] * a.rotation[k][0][l] + rh[i][1] * a.rotation[k][1][l] +
                                   rh[i][2] * a.rotation[k][2][l]) *
                                  inverse_scale;
            for (int e = 0; e < 6; ++e) {
                int i = jet_hi[e], k = jet_hj[e];
                h[e][l] = i == k ? world[i][i] : 0.5 * (world[i][k] + world[k][i]);
            }
        }
    }
    for (int l = 0; l < count; ++l) {
        value[l] = v[l];
        if (order >= 1)
            for (int i = 0; i < 3; ++i) gradient[i][l] = g[i][l];
        if (order >= 2)
            for (int e = 0; e < 6; ++e) hessian[e][l] = h[e][l];
    }
}

#define LANES_DEFINE(name, attributes)                                                                                 \
    attributes static void name(const sdf_sq_lane* const sq[SDF_LANES], int count,                                     \
                                double rotated[3][SDF_LANES], int order, double value[SDF_LANES],                \
                                double gradient[3][SDF_LANES], double hessian[6][SDF_LANES]) {                         \
        if (order <= 0)                                                                                                \
            lanes_body(sq, count, rotated, 0, value, gradient, hessian);                                               \
        else if (order == 1)                                                                                           \
            lanes_body(sq, count, rotated, 1, value, gradient, hessian);                                               \
        else                                                                                                           \
            lanes_body(sq, count, rotated, 2, value, gradient, hessian);                                               \
    }

LANES_DEFINE(lanes_portable, )

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SDF_LANES_X86 1
LANES_DEFINE(lanes_avx2, __attribute__((target("avx2,fma"))))
LANES_DEFINE(lanes_avx512, __attribute__((target("avx512f,fma"))))
#endif

static _Atomic int lanes_level = -2; // unknown until read; written with the same value by whichever thread comes first

// the processor's widest level
static int lanes_supported(void) {
#ifdef SDF_LANES_X86
    if (!__builtin_cpu_supports("fma")) return 0;
    if (__builtin_cpu_supports("avx512f")) return 2;
    if (__builtin_cpu_supports("avx2")) return 1;
#endif
    return 0;
}

int sdf_lanes_level(void) {
    int known = atomic_load_explicit(&lanes_level, memory_order_relaxed);
    if (known >= -1) return known;
    // the portable lanes (SSE2: two doubles) cost more than the scalar leaves with libm's pow
    // (docs/sdf.md), so they run only when asked for
    int level = lanes_supported() > 0 ? lanes_supported() : -1;
    const char* cap = getenv("OSC_SDF_LANES");
    if (cap && strcmp(cap, "off") == 0) level = -1;
    if (cap && strcmp(cap, "portable") == 0) level = 0;
    if (cap && strcmp(cap, "avx2") == 0 && level > 1) level = 1;
    atomic_store_explicit(&lanes_level, level, memory_order_relaxed);
    return level;
}

int sdf_lanes_set_level(int level) {
    int supported = lanes_supported();
    level = level < -1 ? -1 : (level > supported ? supported : level);
    atomic_store_explicit(&lanes_level, level, memory_order_relaxed);
    return level;
}

void sdf_sq_lanes_eval(const sdf_sq_lane* const sq[SDF_LANES], int count, double rotated[3][SDF_LANES],
                       int order, double value[SDF_LANES], double gradient[3][SDF_LANES],
                       double hessian[6][SDF_LANES]) {
#ifdef SDF_LANES_X86
    int level = sdf_lanes_level();
    if (level == 2) {
        lanes_avx512(sq, count, rotated, order, value, gradient, hessian);
        return;
    }
    if (level == 1) {
        lanes_avx2(sq, count, rotated, order, value, gradient, hessian);
        return;
    }
#endif
    lanes_portable(sq, count, rotated, order, value, gradient, hessian);
}
