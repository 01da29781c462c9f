// grid_lanes.h: the spline's distance and gradient at many points, one point per SIMD lane, for
// the FMA path (docs/grid.md, "Many points at once"). Included twice by grid.c, with
// GRID_LANES_WIDTH 4 (AVX2: 4 lanes) and 8 (AVX-512F: 8 lanes); never on its own.
//
// Each lane performs grid_distance_fma's operations on its point in the same order (the clamp, the
// cell by a multiplication by 1/h, the weights by Horner's rule, then per z layer the x, y and z
// contractions as chains of FMAs from zero), so every value and gradient has the bits of
// grid_distance_fma: the coefficients are gathered one per lane instead of loaded four z layers at a
// time. Points outside the region take the scalar continuation (distance_outside) afterwards.

#if GRID_LANES_WIDTH == 4
#define GRID_LANES_TARGET "avx2,fma"
#define LANES(name) name##_x4
typedef __m256d LANES(lanes);
typedef __m128i LANES(lane_index);
#define lanes_splat _mm256_set1_pd
#define lanes_fma _mm256_fmadd_pd
#define lanes_mul _mm256_mul_pd
#define lanes_sub _mm256_sub_pd
#define lanes_add _mm256_add_pd
#define lanes_min _mm256_min_pd
#define lanes_max _mm256_max_pd
#define lanes_zero _mm256_setzero_pd
#define lanes_neg(x) _mm256_xor_pd(x, _mm256_set1_pd(-0.0))
#define lanes_load _mm256_loadu_pd
#define lanes_store _mm256_storeu_pd
#define lanes_trunc(u) _mm256_round_pd(u, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define lanes_to_index _mm256_cvttpd_epi32
#define lanes_index_add(i, k) _mm_add_epi32(i, _mm_set1_epi32(k))
#define lanes_gather(base, i) _mm256_i32gather_pd(base, i, 8)
#elif GRID_LANES_WIDTH == 8
#define GRID_LANES_TARGET "avx512f,avx2,fma"
#define LANES(name) name##_x8
typedef __m512d LANES(lanes);
typedef __m256i LANES(lane_index);
#define lanes_splat _mm512_set1_pd
#define lanes_fma _mm512_fmadd_pd
#define lanes_mul _mm512_mul_pd
#define lanes_sub _mm512_sub_pd
#define lanes_add _mm512_add_pd
#define lanes_min _mm512_min_pd
#define lanes_max _mm512_max_pd
#define lanes_zero _mm512_setzero_pd
#define lanes_neg(x) _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MIN)))
#define lanes_load _mm512_loadu_pd
#define lanes_store _mm512_storeu_pd
#define lanes_trunc(u) _mm512_roundscale_pd(u, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define lanes_to_index _mm512_cvttpd_epi32
#define lanes_index_add(i, k) _mm256_add_epi32(i, _mm256_set1_epi32(k))
#define lanes_gather(base, i) _mm512_i32gather_pd(i, base, 8)
#else
#error "grid_lanes.h: GRID_LANES_WIDTH must be 4 or 8"
#endif

#define W GRID_LANES_WIDTH

// The distance and its gradient at points[0 .. W), each lane grid_distance_fma's operations on one
// point, and the clamped points; returns the lanes whose point lies outside the region (bit i:
// point i), which the caller continues.
static inline __attribute__((target(GRID_LANES_TARGET), always_inline)) unsigned
LANES(grid_lanes_distance)(const osc_grid* grid, const osc_vec3* points, double values[W], double gradients[3][W],
                           double clamped[3][W]) {
    double coordinate[3][W];
    for (int i = 0; i < W; ++i) {
        coordinate[0][i] = points[i].x;
        coordinate[1][i] = points[i].y;
        coordinate[2][i] = points[i].z;
    }
    LANES(lanes) t[3], fl[3];
    unsigned outside = 0;
    for (int a = 0; a < 3; ++a) {
        // grid_locate_avx lane by lane: the clamp (max, then min, with its NaN rule), u = (c - lo) / h
        // by the multiplication, floor clamped to the last cell, t = u - floor
        LANES(lanes) x = lanes_load(coordinate[a]);
        LANES(lanes) lo = lanes_splat((&grid->origin.x)[a]), hi = lanes_splat(grid->upper[a]);
        LANES(lanes) c = lanes_min(hi, lanes_max(lo, x));
        lanes_store(clamped[a], c);
        for (int i = 0; i < W; ++i)
            if (coordinate[a][i] < (&grid->origin.x)[a] || coordinate[a][i] > grid->upper[a]) outside |= 1u << i;
        LANES(lanes) u = lanes_mul(lanes_sub(c, lo), lanes_splat(grid->inverse_cell));
        LANES(lanes) whole = lanes_add(lanes_trunc(u), lanes_zero());
        fl[a] = lanes_min(whole, lanes_splat(grid->last_cell[a]));
        t[a] = lanes_sub(u, fl[a]);
    }
    // the index of each lane's first coefficient in the z-fastest copy, exact in doubles (< 2^31)
    double ny = (double)(grid->cells[1] + 3), nz = (double)(grid->cells[2] + 3);
    LANES(lane_index)
    base = lanes_to_index(lanes_fma(lanes_fma(fl[0], lanes_splat(ny), fl[1]), lanes_splat(nz), fl[2]));
    int stride_y = grid->cells[2] + 3, stride_x = (grid->cells[1] + 3) * stride_y;
    // grid_place_fma's weights (Horner's rule), [offset][axis]
    const LANES(lanes) sixth = lanes_splat(1.0 / 6.0), half = lanes_splat(0.5), one = lanes_splat(1.0);
    LANES(lanes) w[4][3], s[4][3];
    for (int a = 0; a < 3; ++a) {
        LANES(lanes) ta = t[a], t2 = lanes_mul(ta, ta), r = lanes_sub(one, ta), r2 = lanes_mul(r, r);
        w[0][a] = lanes_mul(lanes_mul(r2, r), sixth);
        w[1][a] = lanes_fma(t2, lanes_fma(half, ta, lanes_splat(-1.0)), lanes_splat(2.0 / 3.0));
        w[2][a] = lanes_fma(lanes_fma(lanes_fma(lanes_splat(-0.5), ta, half), ta, half), ta, sixth);
        w[3][a] = lanes_mul(lanes_mul(t2, ta), sixth);
        LANES(lanes) inv_h = lanes_splat(grid->inverse_cell), half_inv_h = lanes_mul(half, inv_h);
        s[0][a] = lanes_neg(lanes_mul(r2, half_inv_h));
        s[1][a] = lanes_mul(lanes_mul(lanes_fma(lanes_splat(1.5), ta, lanes_splat(-2.0)), ta), inv_h);
        s[2][a] = lanes_mul(lanes_fma(lanes_fma(lanes_splat(-1.5), ta, one), ta, half), inv_h);
        s[3][a] = lanes_mul(t2, half_inv_h);
    }
    LANES(lanes) plane[4], plane_x[4], plane_y[4];
    for (int k = 0; k < 4; ++k) plane[k] = plane_x[k] = plane_y[k] = lanes_zero();
    for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
            LANES(lane_index) at = lanes_index_add(base, j * stride_y + k);
            LANES(lanes) l[4];
            for (int a = 0; a < 4; ++a) l[a] = lanes_gather(grid->distance, lanes_index_add(at, a * stride_x));
            LANES(lanes) line = lanes_zero();
            for (int a = 0; a < 4; ++a) line = lanes_fma(l[a], w[a][0], line);
            plane[k] = lanes_fma(line, w[j][1], plane[k]);
            LANES(lanes) line_x = lanes_zero();
            for (int a = 0; a < 4; ++a) line_x = lanes_fma(l[a], s[a][0], line_x);
            plane_x[k] = lanes_fma(line_x, w[j][1], plane_x[k]);
            plane_y[k] = lanes_fma(line, s[j][1], plane_y[k]);
        }
    LANES(lanes) value = lanes_zero();
    for (int k = 0; k < 4; ++k) value = lanes_fma(plane[k], w[k][2], value);
    lanes_store(values, value);
    LANES(lanes) gx = lanes_zero(), gy = lanes_zero(), gz = lanes_zero();
    for (int k = 0; k < 4; ++k) {
        gx = lanes_fma(plane_x[k], w[k][2], gx);
        gy = lanes_fma(plane_y[k], w[k][2], gy);
        gz = lanes_fma(plane[k], s[k][2], gz);
    }
    lanes_store(gradients[0], gx);
    lanes_store(gradients[1], gy);
    lanes_store(gradients[2], gz);
    return outside;
}

// grid_distance_gradients' kernel for this width: whole groups of W points in lanes, the rest (fewer
// than W) one at a time by the single-point FMA kernel; osc_grid_eval's NaN rule
static __attribute__((target(GRID_LANES_TARGET), noinline)) void LANES(grid_lanes_many)(const osc_grid* grid,
                                                                                        const osc_vec3* points,
                                                                                        size_t count, double* values,
                                                                                        osc_vec3* gradients) {
    size_t i = 0;
    for (; i + W <= count; i += W) {
        double v[W], g[3][W], c[3][W];
        unsigned outside = LANES(grid_lanes_distance)(grid, points + i, v, g, c);
        for (int k = 0; k < W; ++k) {
            const osc_vec3* x = &points[i + (size_t)k];
            double gradient[3] = {g[0][k], g[1][k], g[2][k]};
            if (outside >> k & 1) {
                int axes[3];
                for (int a = 0; a < 3; ++a) axes[a] = (&x->x)[a] < (&grid->origin.x)[a] || (&x->x)[a] > grid->upper[a];
                v[k] = distance_outside(*x, osc_v3(c[0][k], c[1][k], c[2][k]), axes, v[k], gradient);
            }
            bool nan = grid_point_nan(x);
            values[i + (size_t)k] = nan ? NAN : v[k];
            gradients[i + (size_t)k] = nan ? osc_v3(NAN, NAN, NAN) : osc_v3(gradient[0], gradient[1], gradient[2]);
        }
    }
    for (; i < count; ++i) values[i] = grid_gradient_at_fma(grid, &points[i], &gradients[i]);
}

#undef W
#undef GRID_LANES_TARGET
#undef LANES
#undef lanes_splat
#undef lanes_fma
#undef lanes_mul
#undef lanes_sub
#undef lanes_add
#undef lanes_min
#undef lanes_max
#undef lanes_zero
#undef lanes_neg
#undef lanes_load
#undef lanes_store
#undef lanes_trunc
#undef lanes_to_index
#undef lanes_index_add
#undef lanes_gather
