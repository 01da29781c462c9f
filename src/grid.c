// grid.c: spline SDFs (Beker et al. 2026 §III-B): building the tricubic B-spline of a mesh's or an SDF's
// signed distance and normal field, evaluating it with exact derivatives, the broad-phase voxel
// grid (Beker et al. 2026 §IV-C.2), and the osc_sdf leaf that shares a grid. Layout: grid_internal.h;
// derivations: docs/grid.md.

#include "grid_internal.h"
#include "mesh_internal.h"
#include "sdf_internal.h"

#include <float.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// the least work that gets a thread of its own (below it a batch runs on the calling thread)
#define GRID_POINTS_PER_THREAD 256 // spline evaluations
#define GRID_LINES_PER_THREAD 64   // tridiagonal solves

osc_grid_settings osc_grid_settings_default(void) {
    // every field by name; a field not named here is zero
    return (osc_grid_settings){.resolution = 64, .padding = -1.0, .normal_epsilon = -1.0, .threads = 0};
}

// ---------------------------------------------------------------------------------------------
// allocation and reference counting

osc_grid* grid_allocate(const int cells[3], double cell, osc_vec3 origin) {
    osc_grid* grid = osc_calloc(1, sizeof *grid);
    if (!grid) return NULL;
    atomic_init(&grid->references, 1);
    for (int a = 0; a < 3; ++a) grid->cells[a] = cells[a];
    grid->cell = cell;
    grid->inverse_cell = 1.0 / cell;
    grid->origin = origin;
    double lo[3] = {origin.x, origin.y, origin.z};
    for (int a = 0; a < 3; ++a) {
        grid->upper[a] = lo[a] + cells[a] * cell;
        grid->last_cell[a] = (double)(cells[a] - 1);
        grid->extent[a] = cells[a] * cell;
    }
    grid->coefficients = osc_calloc(grid_coefficient_count(grid), OSC_GRID_FIELDS * sizeof(double));
    grid->voxel_value = osc_calloc(grid_cell_count(grid), sizeof(double));
    grid->voxel_radius = osc_calloc(grid_cell_count(grid), sizeof(double));
    grid->distance = osc_calloc(grid_coefficient_count(grid), sizeof(double));
    if (!grid->coefficients || !grid->voxel_value || !grid->voxel_radius || !grid->distance) {
        grid_free(grid);
        return NULL;
    }
    return grid;
}

void grid_free(osc_grid* grid) {
    if (!grid) return;
    osc_free(grid->coefficients);
    osc_free(grid->voxel_value);
    osc_free(grid->voxel_radius);
    osc_free(grid->distance);
    osc_free(grid);
}

static void grid_retain(const void* context) { atomic_fetch_add(&((osc_grid*)context)->references, 1); }

static void grid_release(const void* context) {
    osc_grid* grid = (osc_grid*)context;
    if (atomic_fetch_sub(&grid->references, 1) == 1) grid_free(grid);
}

void osc_grid_destroy(osc_grid* grid) {
    if (grid) grid_release(grid);
}

// ---------------------------------------------------------------------------------------------
// the region: the input's bounds grown by the padding, cubic cells, centred

// true when every coordinate of the box lies within OSC_MESH_MAX_COORDINATE
static bool region_within_limit(osc_vec3 lo, osc_vec3 hi) {
    double m = OSC_MESH_MAX_COORDINATE;
    return fabs(lo.x) <= m && fabs(lo.y) <= m && fabs(lo.z) <= m && fabs(hi.x) <= m && fabs(hi.y) <= m &&
           fabs(hi.z) <= m;
}

static osc_status plan_region(const char* function, osc_vec3 lo, osc_vec3 hi, const osc_grid_settings* settings,
                              int cells[3], double* cell, osc_vec3* origin) {
    if (!osc_vec3_is_finite(lo) || !osc_vec3_is_finite(hi))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the input is unbounded or its bounds are not finite", function);
    if (lo.x > hi.x || lo.y > hi.y || lo.z > hi.z)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the input's bounds are empty", function);
    if (!region_within_limit(lo, hi))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the input's bounds (%g, %g, %g) .. (%g, %g, %g) exceed OSC_MESH_MAX_COORDINATE (%g)",
                        function, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, OSC_MESH_MAX_COORDINATE);
    osc_vec3 size = osc_sub(hi, lo);
    double longest = fmax(size.x, fmax(size.y, size.z));
    double padding = settings->padding < 0.0 ? 0.1 * longest : settings->padding;
    osc_vec3 pad = osc_v3(padding, padding, padding);
    if (!region_within_limit(osc_sub(lo, pad), osc_add(hi, pad)))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: padding %g takes the region beyond OSC_MESH_MAX_COORDINATE (%g)",
                        function, padding, OSC_MESH_MAX_COORDINATE);
    if (!(longest + 2.0 * padding > 0.0))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the region has no extent (padding %g)", function, padding);
    lo = osc_sub(lo, osc_v3(padding, padding, padding));
    size = osc_add(size, osc_v3(2.0 * padding, 2.0 * padding, 2.0 * padding));
    *cell = (longest + 2.0 * padding) / settings->resolution;
    double sides[3] = {size.x, size.y, size.z}, starts[3] = {lo.x, lo.y, lo.z};
    for (int a = 0; a < 3; ++a) {
        cells[a] = (int)ceil(sides[a] / *cell - 1e-9);
        if (cells[a] < 1) cells[a] = 1;
        starts[a] -= 0.5 * (cells[a] * *cell - sides[a]); // centre the grid on the region
    }
    *origin = osc_v3(starts[0], starts[1], starts[2]);
    return OSC_OK;
}

static osc_status check_settings(const char* function, const osc_grid_settings* settings) {
    if (settings->resolution < 4 || settings->resolution > OSC_GRID_MAX_CELLS)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: resolution must be in [4, %d] (got %d)", function,
                        OSC_GRID_MAX_CELLS, settings->resolution);
    if (isnan(settings->padding) || isinf(settings->padding))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: padding must be finite (got %g)", function, settings->padding);
    if (settings->padding > OSC_MESH_MAX_COORDINATE)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: padding %g exceeds OSC_MESH_MAX_COORDINATE (%g)", function,
                        settings->padding, OSC_MESH_MAX_COORDINATE);
    if (isnan(settings->normal_epsilon) || isinf(settings->normal_epsilon))
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: normal_epsilon must be finite (got %g)", function,
                        settings->normal_epsilon);
    if (settings->threads < 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: threads must be >= 0 (got %d)", function, settings->threads);
    return OSC_OK;
}

// ---------------------------------------------------------------------------------------------
// sampling the ground truth at the corners (Beker et al. 2026 §III-B.2), one z-layer at a time

typedef struct grid_source {
    const osc_mesh_bvh* bvh; // a mesh: distance and normal from the closest point
    const osc_sdf* sdf;      // or an SDF: value and normalised gradient
} grid_source;

static inline double* coefficient(const osc_grid* grid, int gx, int gy, int gz) {
    size_t nx = (size_t)grid->cells[0] + 3, ny = (size_t)grid->cells[1] + 3;
    return grid->coefficients + OSC_GRID_FIELDS * (((size_t)(gz + 1) * ny + (size_t)(gy + 1)) * nx + (size_t)(gx + 1));
}

static osc_status sample_corners(const char* function, osc_grid* grid, grid_source source, double normal_epsilon,
                                 int threads) {
    int nx = grid->cells[0] + 1, ny = grid->cells[1] + 1, nz = grid->cells[2] + 1;
    size_t layer = (size_t)nx * (size_t)ny;
    double* points = osc_calloc(layer, 3 * sizeof(double));
    double* values = osc_calloc(layer, sizeof(double));
    double* vectors = osc_calloc(layer, 3 * sizeof(double)); // closest points or gradients
    if (!points || !values || !vectors) {
        osc_free(points);
        osc_free(values);
        osc_free(vectors);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    osc_status status = OSC_OK;
    for (int k = 0; k < nz && !status; ++k) {
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                double* p = points + 3 * ((size_t)j * nx + i);
                p[0] = grid->origin.x + i * grid->cell;
                p[1] = grid->origin.y + j * grid->cell;
                p[2] = grid->origin.z + k * grid->cell;
            }
        status = source.bvh ? osc_mesh_bvh_signed_distance_batch(source.bvh, points, layer, values, vectors, threads)
                            : osc_sdf_eval_batch(source.sdf, points, layer, values, vectors, NULL, threads);
        for (int j = 0; j < ny && !status; ++j)
            for (int i = 0; i < nx; ++i) {
                size_t s = (size_t)j * nx + i;
                double* c = coefficient(grid, i, j, k);
                const double* v = vectors + 3 * s;
                double n[3];
                if (source.bvh) { // n = sign (x - proj) / (|x - proj| + eps)
                    double sign = values[s] < 0.0 ? -1.0 : 1.0;
                    double scale = sign / (fabs(values[s]) + normal_epsilon);
                    for (int a = 0; a < 3; ++a) n[a] = scale * (points[3 * s + a] - v[a]);
                } else { // n = grad / |grad|
                    double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                    for (int a = 0; a < 3; ++a) n[a] = length > 0.0 ? v[a] / length : 0.0;
                }
                if (!isfinite(values[s]) || !isfinite(n[0]) || !isfinite(n[1]) || !isfinite(n[2])) {
                    status = osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: the input is not finite at (%g, %g, %g)", function,
                                      points[3 * s], points[3 * s + 1], points[3 * s + 2]);
                    break;
                }
                c[0] = values[s];
                c[1] = n[0];
                c[2] = n[1];
                c[3] = n[2];
            }
    }
    if (status && status != OSC_ERR_INVALID_ARGUMENT) status = osc_fail_in(function, status);
    osc_free(points);
    osc_free(values);
    osc_free(vectors);
    return status;
}

// ---------------------------------------------------------------------------------------------
// the coefficients: interpolation (c_{i-1} + 4 c_i + c_{i+1}) / 6 = f_i at i = 0..n with natural
// end conditions c_{-1} - 2 c_0 + c_1 = 0 = c_{n-1} - 2 c_n + c_{n+1}. Substituting the end
// conditions into the first and last equations gives c_0 = f_0 and c_n = f_n; the interior is the
// tridiagonal system c_{i-1} + 4 c_i + c_{i+1} = 6 f_i, i = 1..n-1, solved by the Thomas algorithm
// with the elimination factors precomputed (they depend only on n). Separable: x lines, then y
// lines, then z lines, each over all four fields.

static void solve_line(double* data, ptrdiff_t stride, int n, const double* factor) {
    // data points at grid index -1 (coefficient slot); samples f_i are at slots 1..n+1
    double* f = data + stride; // f[i * stride] = value at grid index i
    for (int field = 0; field < OSC_GRID_FIELDS; ++field) {
        double first = f[field], last = f[(ptrdiff_t)n * stride + field];
        if (n >= 2) {
            // forward sweep over i = 1..n-1 (rhs_i = 6 f_i, minus the known ends)
            double previous = 0.0;
            for (int i = 1; i <= n - 1; ++i) {
                double rhs = 6.0 * f[(ptrdiff_t)i * stride + field];
                if (i == 1) rhs -= first;
                if (i == n - 1) rhs -= last;
                previous = (rhs - (i > 1 ? previous : 0.0)) * factor[i];
                f[(ptrdiff_t)i * stride + field] = previous;
            }
            // back substitution: c_i = d_i - (factor_i) c_{i+1}
            for (int i = n - 2; i >= 1; --i)
                f[(ptrdiff_t)i * stride + field] -= factor[i] * f[(ptrdiff_t)(i + 1) * stride + field];
        }
        // natural ends
        data[field] = 2.0 * first - f[stride + field];
        f[(ptrdiff_t)(n + 1) * stride + field] = 2.0 * last - f[(ptrdiff_t)(n - 1) * stride + field];
    }
}

// the grid lines along one axis, one item of osc_batch_run each
typedef struct axis_lines {
    osc_grid* grid;
    int axis, n;
    double factor[OSC_GRID_MAX_CELLS + 1];
    ptrdiff_t strides[3];
    int u, v, u_first, u_count, v_first;
} axis_lines;

static osc_status solve_axis_line(void* context, size_t line) {
    const axis_lines* a = context;
    int iu = a->u_first + (int)(line % (size_t)a->u_count), iv = a->v_first + (int)(line / (size_t)a->u_count);
    double* start = a->grid->coefficients + iu * a->strides[a->u] + iv * a->strides[a->v];
    solve_line(start, a->strides[a->axis], a->n, a->factor);
    return OSC_OK;
}

static void solve_axis(osc_grid* grid, int axis, int threads) {
    axis_lines a;
    a.grid = grid;
    a.axis = axis;
    a.n = grid->cells[axis];
    // Thomas factors for the matrix tridiag(1, 4, 1): factor_i = 1 / (4 - factor_{i-1}), factor_1 = 1/4
    for (int i = 1; i <= a.n - 1; ++i) a.factor[i] = 1.0 / (4.0 - (i > 1 ? a.factor[i - 1] : 0.0));
    int counts[3] = {grid->cells[0] + 3, grid->cells[1] + 3, grid->cells[2] + 3};
    a.strides[0] = OSC_GRID_FIELDS;
    a.strides[1] = (ptrdiff_t)OSC_GRID_FIELDS * counts[0];
    a.strides[2] = (ptrdiff_t)OSC_GRID_FIELDS * counts[0] * counts[1];
    // the two other axes: axes solved before span all coefficient slots, later ones the samples
    a.u = (axis + 1) % 3, a.v = (axis + 2) % 3;
    a.u_first = a.u < axis ? 0 : 1, a.u_count = a.u < axis ? counts[a.u] : grid->cells[a.u] + 1;
    a.v_first = a.v < axis ? 0 : 1;
    int v_count = a.v < axis ? counts[a.v] : grid->cells[a.v] + 1;
    size_t lines = (size_t)a.u_count * (size_t)v_count;
    // (threads was checked with the settings; the lines cannot fail)
    osc_batch_run("osc_grid_create", "line", lines, threads, GRID_LINES_PER_THREAD, solve_axis_line, &a, NULL);
}

void grid_copy_distance(osc_grid* grid) {
    int nx = grid->cells[0] + 3, ny = grid->cells[1] + 3, nz = grid->cells[2] + 3;
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j)
            for (int k = 0; k < nz; ++k)
                grid->distance[((size_t)i * ny + j) * nz + k] = coefficient(grid, i - 1, j - 1, k - 1)[0];
}

// ---------------------------------------------------------------------------------------------
// evaluation: uniform cubic B-spline weights of the local coordinate t in [0, 1] for the
// coefficients at offsets -1, 0, 1, 2, and their first and second derivatives (scaled by 1/h)

#if defined(__GNUC__)
// two doubles, one SSE2 register (two divisions at once; two z layers side by side)
typedef double grid_pair __attribute__((vector_size(16)));

static inline grid_pair grid_pair_load(const double* p) {
    grid_pair v;
    memcpy(&v, p, sizeof v);
    return v;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// AVX kernels (below) chosen at run time: the library itself is built for any x86-64
#define GRID_AVX 1
#define GRID_AVX_INLINE static inline __attribute__((target("avx"), always_inline))

// four doubles, one AVX register: four z layers of a column, or the four fields of a coefficient
typedef double grid_quad __attribute__((vector_size(32)));

// The widest kernels this process uses: the processor's (AVX, then AVX2 with FMA, then AVX-512F for
// the many-point kernels), capped by the environment variable OSC_GRID_KERNEL ("portable", "avx" or
// "fma"), read once, so that the tests run every path on one machine (docs/grid.md). 0: portable,
// 1: AVX, 2: FMA (many points in 4 lanes), 3: FMA (many points in 8 lanes).
static int grid_kernel_level(void) {
    static _Atomic int level = -1; // written once with the same value by whichever thread comes first
    int known = atomic_load_explicit(&level, memory_order_relaxed);
    if (known >= 0) return known;
    int widest = __builtin_cpu_supports("avx") ? 1 : 0;
#ifndef OSC_GRID_NO_FMA
    if (widest && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) widest = 2;
    if (widest == 2 && __builtin_cpu_supports("avx512f")) widest = 3;
#endif
    const char* cap = getenv("OSC_GRID_KERNEL");
    if (cap && strcmp(cap, "portable") == 0) widest = 0;
    if (cap && strcmp(cap, "avx") == 0 && widest > 1) widest = 1;
    if (cap && strcmp(cap, "fma") == 0 && widest > 2) widest = 2;
    atomic_store_explicit(&level, widest, memory_order_relaxed);
    return widest;
}

static inline bool grid_have_avx(void) { return grid_kernel_level() >= 1; }

static void grid_contract_fields_avx(const osc_grid* grid, osc_vec3 x, int order, jet* out);

// FMA kernels (below) where the processor has AVX2 and FMA; OSC_GRID_NO_FMA at build time leaves
// the portable and AVX kernels alone
#ifndef OSC_GRID_NO_FMA
#define GRID_FMA 1
#define GRID_FMA_INLINE static inline __attribute__((target("avx2,fma"), always_inline))
static inline bool grid_have_fma(void) { return grid_kernel_level() >= 2; }
static inline bool grid_have_avx512(void) { return grid_kernel_level() >= 3; }
static void grid_contract_fields_fma(const osc_grid* grid, osc_vec3 x, int order, jet* out);
static void grid_contract_fields_avx512(const osc_grid* grid, osc_vec3 x, int order, jet* out);
#endif

#include <immintrin.h>
#endif

// The weights by Horner's rule with multiplications by the constants 1/6 and 1/h (docs/grid.md):
//   w0 = (1 - t)^3 / 6,  w1 = t^2 (t / 2 - 1) + 2/3,  w2 = ((1/2 - t / 2) t + 1/2) t + 1/6,  w3 = t^3 / 6,
//   h w0' = -(1 - t)^2 / 2,  h w1' = (3 t / 2 - 2) t,  h w2' = (1 - 3 t / 2) t + 1/2,  h w3' = t^2 / 2.
// The portable and AVX kernels evaluate these expressions unfused, in this order, so they agree bit for
// bit; the FMA kernels fuse them (grid_place_fma).
#define GRID_SIXTH (1.0 / 6.0)

// the value weights alone (bspline_weights' first row)
static inline void bspline_values(double t, double w[4]) {
    double r = 1.0 - t, r2 = r * r, t2 = t * t;
    w[0] = r2 * r * GRID_SIXTH;
    w[1] = t2 * (0.5 * t - 1.0) + 2.0 / 3.0;
    w[2] = ((0.5 - 0.5 * t) * t + 0.5) * t + GRID_SIXTH;
    w[3] = t2 * t * GRID_SIXTH;
}

#if defined(__GNUC__)
// bspline_values and the first-derivative row of bspline_weights for two axes at once (the same
// expressions lane by lane, so the same bits); `slopes` nullable
static inline void bspline_pair(grid_pair t, double inv_h, grid_pair values[4], grid_pair slopes[4]) {
    grid_pair r = 1.0 - t, r2 = r * r, t2 = t * t;
    values[0] = r2 * r * GRID_SIXTH;
    values[1] = t2 * (0.5 * t - 1.0) + 2.0 / 3.0;
    values[2] = ((0.5 - 0.5 * t) * t + 0.5) * t + GRID_SIXTH;
    values[3] = t2 * t * GRID_SIXTH;
    if (!slopes) return;
    double half_inv_h = 0.5 * inv_h;
    slopes[0] = -(r2 * half_inv_h);
    slopes[1] = (1.5 * t - 2.0) * t * inv_h;
    slopes[2] = ((1.0 - 1.5 * t) * t + 0.5) * inv_h;
    slopes[3] = t2 * half_inv_h;
}
#endif

static inline void bspline_weights(double t, double inv_h, double w[3][4]) {
    double r = 1.0 - t, r2 = r * r, t2 = t * t, half_inv_h = 0.5 * inv_h;
    bspline_values(t, w[0]);
    w[1][0] = -(r2 * half_inv_h);
    w[1][1] = (1.5 * t - 2.0) * t * inv_h;
    w[1][2] = ((1.0 - 1.5 * t) * t + 0.5) * inv_h;
    w[1][3] = t2 * half_inv_h;
    double inv_h2 = inv_h * inv_h;
    w[2][0] = r * inv_h2;
    w[2][1] = (3.0 * t - 2.0) * inv_h2;
    w[2][2] = (1.0 - 3.0 * t) * inv_h2;
    w[2][3] = t * inv_h2;
}

// the cell containing x (clamped into the grid) and the local coordinates
static inline void locate(const osc_grid* grid, osc_vec3 x, int cell[3], double t[3]) {
    double p[3] = {x.x - grid->origin.x, x.y - grid->origin.y, x.z - grid->origin.z}, u[3];
    for (int a = 0; a < 3; ++a) u[a] = p[a] * grid->inverse_cell;
    for (int a = 0; a < 3; ++a) {
        // floor(u) clamped to [0, n - 1]: truncation is floor for u >= 0, and the clamp comes before
        // the conversion (u may be huge, infinite or NaN far outside the grid; NaN gives 0)
        int i = u[a] < grid->last_cell[a] ? (u[a] >= 0.0 ? (int)u[a] : 0) : grid->cells[a] - 1;
        cell[a] = i;
        t[a] = u[a] - i;
    }
}

// Sums the 64 terms for the first `fields` fields (1: distance; 4: distance and normal) up to
// derivative `order`, writing one jet per field. x must lie in the grid.
OSC_FORCE_INLINE void grid_contract(const osc_grid* grid, osc_vec3 x, int order, int fields, jet* out) {
    int cell[3];
    double t[3], w[3][3][4]; // [axis][derivative][offset]
    locate(grid, x, cell, t);
    double inv_h = grid->inverse_cell;
    for (int a = 0; a < 3; ++a) bspline_weights(t[a], inv_h, w[a]);
    // accumulators indexed by derivative orders (dx, dy, dz), packed; each z layer is summed over y
    // first and then weighted, in the order grid_distance_fast uses, so both give the same bits
    enum { V, GX, GY, GZ, HXX, HXY, HXZ, HYY, HYZ, HZZ, TERMS };
    enum { PV, PX, PY, PXX, PXY, PYY, PLANE }; // per-layer sums: y-weighted x contractions
    double acc[OSC_GRID_FIELDS][TERMS];
    for (int f = 0; f < fields; ++f)
        for (int k = 0; k < TERMS; ++k) acc[f][k] = 0.0;
    for (int c = 0; c < 4; ++c) {
        double plane[OSC_GRID_FIELDS][PLANE];
        for (int f = 0; f < fields; ++f)
            for (int k = 0; k < PLANE; ++k) plane[f][k] = 0.0;
        for (int b = 0; b < 4; ++b) {
            const double* row = coefficient(grid, cell[0] - 1, cell[1] - 1 + b, cell[2] - 1 + c);
            double wy0 = w[1][0][b];
            double wy1 = order >= 1 ? w[1][1][b] : 0.0, wy2 = order >= 2 ? w[1][2][b] : 0.0;
            for (int f = 0; f < fields; ++f) {
                double x0 = 0.0, x1 = 0.0, x2 = 0.0;
                for (int a = 0; a < 4; ++a) {
                    double coef = row[OSC_GRID_FIELDS * a + f];
                    x0 += coef * w[0][0][a];
                    if (order >= 1) x1 += coef * w[0][1][a];
                    if (order >= 2) x2 += coef * w[0][2][a];
                }
                plane[f][PV] += x0 * wy0;
                if (order >= 1) {
                    plane[f][PX] += x1 * wy0;
                    plane[f][PY] += x0 * wy1;
                }
                if (order >= 2) {
                    plane[f][PXX] += x2 * wy0;
                    plane[f][PXY] += x1 * wy1;
                    plane[f][PYY] += x0 * wy2;
                }
            }
        }
        double wz0 = w[2][0][c], wz1 = order >= 1 ? w[2][1][c] : 0.0, wz2 = order >= 2 ? w[2][2][c] : 0.0;
        for (int f = 0; f < fields; ++f) {
            acc[f][V] += plane[f][PV] * wz0;
            if (order >= 1) {
                acc[f][GX] += plane[f][PX] * wz0;
                acc[f][GY] += plane[f][PY] * wz0;
                acc[f][GZ] += plane[f][PV] * wz1;
            }
            if (order >= 2) {
                acc[f][HXX] += plane[f][PXX] * wz0;
                acc[f][HXY] += plane[f][PXY] * wz0;
                acc[f][HXZ] += plane[f][PX] * wz1;
                acc[f][HYY] += plane[f][PYY] * wz0;
                acc[f][HYZ] += plane[f][PY] * wz1;
                acc[f][HZZ] += plane[f][PV] * wz2;
            }
        }
    }
    for (int f = 0; f < fields; ++f) {
        out[f] = jet_const(acc[f][V], order);
        if (order >= 1)
            for (int k = 0; k < 3; ++k) out[f].g[k] = acc[f][GX + k];
        if (order >= 2)
            for (int k = 0; k < 6; ++k) out[f].h[k] = acc[f][HXX + k];
    }
}

#if defined(__GNUC__)
// grid_contract for all four fields up to the gradient (order 0 or 1), the fields side by side in
// two SSE2 pairs, (distance, n_x) and (n_y, n_z), adjacent in the interleaved array; each field's
// sums are the scalar loop's, in its order, so the bits are grid_contract's
OSC_FORCE_INLINE void grid_contract_fields(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    int cell[3];
    double t[3], w[3][3][4]; // [axis][derivative][offset]
    locate(grid, x, cell, t);
    double inv_h = grid->inverse_cell;
    for (int a = 0; a < 3; ++a) bspline_weights(t[a], inv_h, w[a]);
    enum { V, GX, GY, GZ, TERMS };
    enum { PV, PX, PY, PLANE };
    grid_pair zero = {0.0, 0.0}, acc[2][TERMS], wx0[4], wx1[4]; // the x weights broadcast once
    for (int a = 0; a < 4; ++a) {
        wx0[a] = (grid_pair){w[0][0][a], w[0][0][a]};
        wx1[a] = (grid_pair){w[0][1][a], w[0][1][a]};
    }
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < TERMS; ++k) acc[h][k] = zero;
    for (int c = 0; c < 4; ++c) {
        grid_pair plane[2][PLANE];
        for (int h = 0; h < 2; ++h)
            for (int k = 0; k < PLANE; ++k) plane[h][k] = zero;
        for (int b = 0; b < 4; ++b) {
            const double* row = coefficient(grid, cell[0] - 1, cell[1] - 1 + b, cell[2] - 1 + c);
            grid_pair wy0 = {w[1][0][b], w[1][0][b]}, wy1 = {w[1][1][b], w[1][1][b]};
            for (int h = 0; h < 2; ++h) {
                grid_pair x0 = zero, x1 = zero;
                for (int a = 0; a < 4; ++a) {
                    grid_pair coef = grid_pair_load(row + OSC_GRID_FIELDS * a + 2 * h);
                    x0 += coef * wx0[a];
                    if (order >= 1) x1 += coef * wx1[a];
                }
                plane[h][PV] += x0 * wy0;
                if (order >= 1) {
                    plane[h][PX] += x1 * wy0;
                    plane[h][PY] += x0 * wy1;
                }
            }
        }
        grid_pair wz0 = {w[2][0][c], w[2][0][c]}, wz1 = {w[2][1][c], w[2][1][c]};
        for (int h = 0; h < 2; ++h) {
            acc[h][V] += plane[h][PV] * wz0;
            if (order >= 1) {
                acc[h][GX] += plane[h][PX] * wz0;
                acc[h][GY] += plane[h][PY] * wz0;
                acc[h][GZ] += plane[h][PV] * wz1;
            }
        }
    }
    for (int f = 0; f < OSC_GRID_FIELDS; ++f) {
        out[f] = jet_const(acc[f / 2][V][f % 2], order);
        if (order >= 1)
            for (int k = 0; k < 3; ++k) out[f].g[k] = acc[f / 2][GX + k][f % 2];
    }
}
#endif

// grid_contract of the four fields, order 0 or 1
OSC_FORCE_INLINE void grid_contract4(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
#if defined(__GNUC__)
#ifdef GRID_FMA
    if (grid_have_avx512() && order >= 1) { // (values alone: fewer operations per load, slower)
        grid_contract_fields_avx512(grid, x, order, out);
        return;
    }
    if (grid_have_fma()) {
        grid_contract_fields_fma(grid, x, order, out);
        return;
    }
#endif
#ifdef GRID_AVX
    if (grid_have_avx()) {
        grid_contract_fields_avx(grid, x, order, out);
        return;
    }
#endif
    grid_contract_fields(grid, x, order, out);
#else
    grid_contract(grid, x, order, OSC_GRID_FIELDS, out);
#endif
}

// the grid box clamp of x: c = clamp(x), and which axes were clamped
static inline osc_vec3 clamp_to_grid(const osc_grid* grid, osc_vec3 x, int outside[3]) {
    double p[3] = {x.x, x.y, x.z}, lo[3] = {grid->origin.x, grid->origin.y, grid->origin.z};
    for (int a = 0; a < 3; ++a) {
        double hi = grid->upper[a]; // lo + n h
        outside[a] = p[a] < lo[a] || p[a] > hi;
        p[a] = p[a] < lo[a] ? lo[a] : (p[a] > hi ? hi : p[a]);
    }
    return osc_v3(p[0], p[1], p[2]);
}

// The continuation outside the grid: phi(x) = s(c) + |x - c|, c = clamp(x), added to the jet of
// s at c. grad = P_in grad s(c) + g, g = (x - c) / |x - c|;
// hess = P_in hess s(c) P_in + (P_out - g g^T) / |x - c|
OSC_FORCE_INLINE void continue_outside(osc_vec3 x, osc_vec3 c, const int outside[3], int order, jet* out) {
    if (!outside[0] && !outside[1] && !outside[2]) return;
    double u[3] = {x.x - c.x, x.y - c.y, x.z - c.z};
    double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    out->v += d;
    if (order < 1) return;
    double g[3];
    for (int a = 0; a < 3; ++a) {
        g[a] = u[a] / d;
        out->g[a] = outside[a] ? g[a] : out->g[a];
    }
    if (order < 2) return;
    for (int k = 0; k < 6; ++k) {
        int i = jet_hi[k], j = jet_hj[k];
        double inner = (outside[i] || outside[j]) ? 0.0 : out->h[k];
        double box = ((i == j && outside[i]) ? 1.0 : 0.0) - g[i] * g[j];
        out->h[k] = inner + box / d;
    }
}

// the distance with its continuation outside the grid (field_count 1), and with field_count 4 also
// the normal field at clamp(x), in one pass over the 64 coefficients (the batch's normals equal
// osc_grid_eval_normal's bit for bit: each field's sums are the same)
OSC_FORCE_INLINE void grid_fields(const osc_grid* grid, osc_vec3 x, int order, int field_count, jet* fields) {
    int outside[3];
    osc_vec3 c = clamp_to_grid(grid, x, outside);
    if (field_count == OSC_GRID_FIELDS && order <= 1)
        grid_contract4(grid, c, order, fields);
    else
        grid_contract(grid, c, order, field_count, fields);
    continue_outside(x, c, outside, order, &fields[0]);
}

// the continuation outside the grid of a distance (and gradient) at c = clamp(x), as continue_outside
OSC_FORCE_INLINE double distance_outside(osc_vec3 x, osc_vec3 c, const int outside[3], double value,
                                         double gradient[3]) {
    if (!outside[0] && !outside[1] && !outside[2]) return value;
    double u[3] = {x.x - c.x, x.y - c.y, x.z - c.z};
    double d = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (gradient)
        for (int a = 0; a < 3; ++a)
            if (outside[a]) gradient[a] = u[a] / d;
    return value + d;
}

// the distance and, when `gradient` is not NULL, its gradient (orders 0 and 1): the 64-term sums
// with the x contraction first, then y and z (a shorter dependency chain than grid_contract's
// general loop). Each z layer's sums are the scalar loop's, in its order, so every path gives the
// same bits; with vector extensions two layers go side by side in one register, read from the
// z-contiguous `distance` copy (grid_internal.h).
OSC_FORCE_INLINE double grid_distance_fast(const osc_grid* grid, osc_vec3 x, double gradient[3]) {
    int outside[3], cell[3];
    double t[3], w[3][3][4];
    osc_vec3 c = clamp_to_grid(grid, x, outside);
    locate(grid, c, cell, t);
    double inv_h = grid->inverse_cell;
    double value = 0.0, gx = 0.0, gy = 0.0, gz = 0.0;
#if defined(__GNUC__)
    { // x and y side by side, then z
        grid_pair values[4], slopes[4];
        bspline_pair((grid_pair){t[0], t[1]}, inv_h, values, gradient ? slopes : NULL);
        for (int k = 0; k < 4; ++k) {
            w[0][0][k] = values[k][0], w[1][0][k] = values[k][1];
            if (gradient) w[0][1][k] = slopes[k][0], w[1][1][k] = slopes[k][1];
        }
        if (gradient)
            bspline_weights(t[2], inv_h, w[2]);
        else
            bspline_values(t[2], w[2][0]);
    }
    size_t ny = (size_t)grid->cells[1] + 3, nz = (size_t)grid->cells[2] + 3, stride_x = ny * nz;
    const double* base = grid->distance + ((size_t)cell[0] * ny + (size_t)cell[1]) * nz + (size_t)cell[2];
    // the x weights broadcast once; planes of layers (0, 1) and (2, 3)
    grid_pair wx0 = {w[0][0][0], w[0][0][0]}, wx1 = {w[0][0][1], w[0][0][1]};
    grid_pair wx2 = {w[0][0][2], w[0][0][2]}, wx3 = {w[0][0][3], w[0][0][3]};
    grid_pair zero = {0.0, 0.0}, plane_low = zero, plane_high = zero;
    grid_pair plane_x_low = zero, plane_x_high = zero, plane_y_low = zero, plane_y_high = zero;
#define GRID_COLUMN(j)                                                                                                 \
    do {                                                                                                               \
        const double* at = base + (size_t)(j)*nz;                                                                      \
        grid_pair wy = {w[1][0][j], w[1][0][j]};                                                                       \
        grid_pair l0 = grid_pair_load(at), l1 = grid_pair_load(at + stride_x);                                         \
        grid_pair l2 = grid_pair_load(at + 2 * stride_x), l3 = grid_pair_load(at + 3 * stride_x);                      \
        grid_pair h0 = grid_pair_load(at + 2), h1 = grid_pair_load(at + stride_x + 2);                                 \
        grid_pair h2 = grid_pair_load(at + 2 * stride_x + 2), h3 = grid_pair_load(at + 3 * stride_x + 2);              \
        grid_pair line_low = l0 * wx0 + l1 * wx1 + l2 * wx2 + l3 * wx3;                                                \
        grid_pair line_high = h0 * wx0 + h1 * wx1 + h2 * wx2 + h3 * wx3;                                               \
        plane_low += line_low * wy;                                                                                    \
        plane_high += line_high * wy;                                                                                  \
        if (gradient) {                                                                                                \
            grid_pair dx0 = {w[0][1][0], w[0][1][0]}, dx1 = {w[0][1][1], w[0][1][1]};                                  \
            grid_pair dx2 = {w[0][1][2], w[0][1][2]}, dx3 = {w[0][1][3], w[0][1][3]};                                  \
            grid_pair dy = {w[1][1][j], w[1][1][j]};                                                                   \
            plane_x_low += (l0 * dx0 + l1 * dx1 + l2 * dx2 + l3 * dx3) * wy;                                           \
            plane_x_high += (h0 * dx0 + h1 * dx1 + h2 * dx2 + h3 * dx3) * wy;                                          \
            plane_y_low += line_low * dy;                                                                              \
            plane_y_high += line_high * dy;                                                                            \
        }                                                                                                              \
    } while (0)
    GRID_COLUMN(0);
    GRID_COLUMN(1);
    GRID_COLUMN(2);
    GRID_COLUMN(3);
#undef GRID_COLUMN
    grid_pair wz_low = {w[2][0][0], w[2][0][1]}, wz_high = {w[2][0][2], w[2][0][3]};
    grid_pair value_low = plane_low * wz_low, value_high = plane_high * wz_high;
    value = value + value_low[0] + value_low[1] + value_high[0] + value_high[1];
    if (gradient) {
        grid_pair x_low = plane_x_low * wz_low, x_high = plane_x_high * wz_high;
        grid_pair y_low = plane_y_low * wz_low, y_high = plane_y_high * wz_high;
        grid_pair dz_low = {w[2][1][0], w[2][1][1]}, dz_high = {w[2][1][2], w[2][1][3]};
        grid_pair z_low = plane_low * dz_low, z_high = plane_high * dz_high;
        gx = gx + x_low[0] + x_low[1] + x_high[0] + x_high[1];
        gy = gy + y_low[0] + y_low[1] + y_high[0] + y_high[1];
        gz = gz + z_low[0] + z_low[1] + z_high[0] + z_high[1];
    }
#else
    for (int a = 0; a < 3; ++a) {
        if (gradient)
            bspline_weights(t[a], inv_h, w[a]);
        else
            bspline_values(t[a], w[a][0]);
    }
    size_t nx = (size_t)grid->cells[0] + 3, ny = (size_t)grid->cells[1] + 3;
    size_t stride_y = OSC_GRID_FIELDS * nx, stride_z = stride_y * ny;
    const double* base = coefficient(grid, cell[0] - 1, cell[1] - 1, cell[2] - 1);
    const int f = OSC_GRID_FIELDS;
    for (int k = 0; k < 4; ++k) {
        double plane = 0.0, plane_x = 0.0, plane_y = 0.0;
        for (int j = 0; j < 4; ++j) {
            const double* row = base + k * stride_z + j * stride_y;
            double line = row[0] * w[0][0][0] + row[f] * w[0][0][1] + row[2 * f] * w[0][0][2] + row[3 * f] * w[0][0][3];
            plane += line * w[1][0][j];
            if (gradient) {
                double line_x =
                    row[0] * w[0][1][0] + row[f] * w[0][1][1] + row[2 * f] * w[0][1][2] + row[3 * f] * w[0][1][3];
                plane_x += line_x * w[1][0][j];
                plane_y += line * w[1][1][j];
            }
        }
        value += plane * w[2][0][k];
        if (gradient) {
            gx += plane_x * w[2][0][k];
            gy += plane_y * w[2][0][k];
            gz += plane * w[2][1][k];
        }
    }
#endif
    if (gradient) gradient[0] = gx, gradient[1] = gy, gradient[2] = gz;
    return distance_outside(x, c, outside, value, gradient);
}

// ---------------------------------------------------------------------------------------------
// AVX kernels, chosen at run time (the library itself is built for any x86-64): the same sums as
// the SSE2 pairs above, lane by lane and in the same order, four lanes wide. AVX has no fused
// multiply-add (FMA3 is a separate feature, never enabled here), so every product and sum is
// rounded as before and the bits are the SSE2 and scalar paths' (docs/grid.md).

#ifdef GRID_AVX

GRID_AVX_INLINE grid_quad grid_quad_load(const double* p) {
    grid_quad v;
    memcpy(&v, p, sizeof v);
    return v;
}

GRID_AVX_INLINE grid_quad grid_quad_splat(double v) { return (grid_quad){v, v, v, v}; }

// clamp_to_grid and locate() on the three axes at once (lane a: axis a): returns the clamped axes
// as bits 0-2, sets *clamped to c = clamp(x), cell[] to c's cell and *fraction to t, c's position in
// it. Lane by lane the scalar comparisons and selections, so c, the cell and t are theirs: past the
// clamp u = (c - origin) * (1 / h) is >= 0 or NaN, where truncation is floor and equals the scalar's
// (double)(int)u (the + 0.0 turns a truncated -0.0 into the +0.0 that conversion gives).
GRID_AVX_INLINE int grid_locate_avx(const osc_grid* grid, osc_vec3 x, osc_vec3* clamped, int cell[3],
                                    grid_quad* fraction) {
    // (x, y, z, z): the set of four scalars, and (x, y, z, 0) with a zeroing load of z, compiled to a
    // register form of vmovq that valgrind 3.19 cannot decode; lane 3 is never read
    __m256d xq = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&x.x)), _mm_set1_pd(x.z), 1);
    __m256d lo = _mm256_setr_pd(grid->origin.x, grid->origin.y, grid->origin.z, 0.0);
    __m256d hi = _mm256_setr_pd(grid->upper[0], grid->upper[1], grid->upper[2], 0.0);
    __m256d below = _mm256_cmp_pd(xq, lo, _CMP_LT_OQ), above = _mm256_cmp_pd(xq, hi, _CMP_GT_OQ);
    // max(a, b) is a > b ? a : b and min(a, b) a < b ? a : b, lane by lane: x below lo gives lo, above
    // hi gives hi, and x itself otherwise (a zero's sign and a NaN included), as the scalar clamp
    __m256d c = _mm256_min_pd(hi, _mm256_max_pd(lo, xq));
    int outside = _mm256_movemask_pd(_mm256_or_pd(below, above)) & 7;
    double cs[4];
    _mm256_storeu_pd(cs, c);
    *clamped = osc_v3(cs[0], cs[1], cs[2]);
    __m256d offset = _mm256_sub_pd(c, lo);
    __m256d u = _mm256_mul_pd(offset, _mm256_set1_pd(grid->inverse_cell));
    __m256d last = _mm256_setr_pd(grid->last_cell[0], grid->last_cell[1], grid->last_cell[2], 0.0);
    __m256d whole = _mm256_add_pd(_mm256_round_pd(u, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), _mm256_setzero_pd());
    // u < last ? trunc(u) : last, as min(trunc(u), last): for u >= 0, trunc(u) < last exactly when
    // u < last (last is a whole number), and a NaN u gives last
    __m256d floor_u = _mm256_min_pd(whole, last);
    int index[4];
    _mm_storeu_si128((__m128i*)index, _mm256_cvttpd_epi32(floor_u));
    cell[0] = index[0], cell[1] = index[1], cell[2] = index[2];
    __m256d t = _mm256_sub_pd(u, floor_u);
    memcpy(fraction, &t, sizeof *fraction);
    return outside;
}

// grid_locate_avx, then the value weights (and, with `slopes`, the first derivatives) of c's cell,
// values[k][a] for offset k along axis a: the expressions of bspline_pair and bspline_values, so the
// bits are theirs.
GRID_AVX_INLINE int grid_place_avx(const osc_grid* grid, osc_vec3 x, osc_vec3* clamped, int cell[3],
                                   grid_quad values[4], grid_quad slopes[4]) {
    grid_quad t;
    int outside = grid_locate_avx(grid, x, clamped, cell, &t);
    grid_quad r = 1.0 - t, r2 = r * r, t2 = t * t;
    values[0] = r2 * r * GRID_SIXTH;
    values[1] = t2 * (0.5 * t - 1.0) + 2.0 / 3.0;
    values[2] = ((0.5 - 0.5 * t) * t + 0.5) * t + GRID_SIXTH;
    values[3] = t2 * t * GRID_SIXTH;
    if (!slopes) return outside;
    double inv_h = grid->inverse_cell, half_inv_h = 0.5 * inv_h;
    slopes[0] = -(r2 * half_inv_h);
    slopes[1] = (1.5 * t - 2.0) * t * inv_h;
    slopes[2] = ((1.0 - 1.5 * t) * t + 0.5) * inv_h;
    slopes[3] = t2 * half_inv_h;
    return outside;
}

// grid_distance_fast with each (x, y) column's four z layers in one register
GRID_AVX_INLINE double grid_distance_avx(const osc_grid* grid, osc_vec3 x, double gradient[3]) {
    int cell[3];
    osc_vec3 c;
    grid_quad values[4], slopes[4];
    int clamped = grid_place_avx(grid, x, &c, cell, values, gradient ? slopes : NULL);
    size_t ny = (size_t)grid->cells[1] + 3, nz = (size_t)grid->cells[2] + 3, stride_x = ny * nz;
    const double* base = grid->distance + ((size_t)cell[0] * ny + (size_t)cell[1]) * nz + (size_t)cell[2];
    grid_quad wx0 = grid_quad_splat(values[0][0]), wx1 = grid_quad_splat(values[1][0]);
    grid_quad wx2 = grid_quad_splat(values[2][0]), wx3 = grid_quad_splat(values[3][0]);
    grid_quad zero = {0.0, 0.0, 0.0, 0.0}, plane = zero, plane_x = zero, plane_y = zero;
    for (int j = 0; j < 4; ++j) {
        const double* at = base + (size_t)j * nz;
        grid_quad wy = grid_quad_splat(values[j][1]);
        grid_quad l0 = grid_quad_load(at), l1 = grid_quad_load(at + stride_x);
        grid_quad l2 = grid_quad_load(at + 2 * stride_x), l3 = grid_quad_load(at + 3 * stride_x);
        grid_quad line = l0 * wx0 + l1 * wx1 + l2 * wx2 + l3 * wx3;
        plane += line * wy;
        if (gradient) {
            grid_quad dx0 = grid_quad_splat(slopes[0][0]), dx1 = grid_quad_splat(slopes[1][0]);
            grid_quad dx2 = grid_quad_splat(slopes[2][0]), dx3 = grid_quad_splat(slopes[3][0]);
            plane_x += (l0 * dx0 + l1 * dx1 + l2 * dx2 + l3 * dx3) * wy;
            plane_y += line * grid_quad_splat(slopes[j][1]);
        }
    }
    grid_quad wz = {values[0][2], values[1][2], values[2][2], values[3][2]};
    grid_quad layers = plane * wz;
    double value = 0.0;
    value = value + layers[0] + layers[1] + layers[2] + layers[3];
    if (gradient) {
        grid_quad dz = {slopes[0][2], slopes[1][2], slopes[2][2], slopes[3][2]};
        grid_quad lx = plane_x * wz, ly = plane_y * wz, lz = plane * dz;
        double gx = 0.0, gy = 0.0, gz = 0.0;
        gradient[0] = gx + lx[0] + lx[1] + lx[2] + lx[3];
        gradient[1] = gy + ly[0] + ly[1] + ly[2] + ly[3];
        gradient[2] = gz + lz[0] + lz[1] + lz[2] + lz[3];
    }
    if (!clamped) return value;
    int outside[3] = {clamped & 1, (clamped >> 1) & 1, (clamped >> 2) & 1};
    return distance_outside(x, c, outside, value, gradient);
}

__attribute__((target("avx"), noinline)) static double grid_distance_value_avx(const osc_grid* grid, osc_vec3 x) {
    return grid_distance_avx(grid, x, NULL);
}

__attribute__((target("avx"), noinline)) static double grid_distance_gradient_avx(const osc_grid* grid, osc_vec3 x,
                                                                                  double gradient[3]) {
    return grid_distance_avx(grid, x, gradient);
}

// grid_contract_fields with the four fields of a coefficient in one register
GRID_AVX_INLINE void grid_contract_fields_avx_body(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    int cell[3];
    osc_vec3 same; // x itself: it lies in the grid
    grid_quad values[4], slopes[4];
    grid_place_avx(grid, x, &same, cell, values, slopes);
    enum { V, GX, GY, GZ, TERMS };
    grid_quad zero = {0.0, 0.0, 0.0, 0.0}, acc[TERMS], wx0[4], wx1[4];
    for (int a = 0; a < 4; ++a) {
        wx0[a] = grid_quad_splat(values[a][0]);
        wx1[a] = grid_quad_splat(slopes[a][0]);
    }
    for (int k = 0; k < TERMS; ++k) acc[k] = zero;
    for (int c = 0; c < 4; ++c) {
        grid_quad plane_v = zero, plane_x = zero, plane_y = zero;
        for (int b = 0; b < 4; ++b) {
            const double* row = coefficient(grid, cell[0] - 1, cell[1] - 1 + b, cell[2] - 1 + c);
            grid_quad wy0 = grid_quad_splat(values[b][1]), wy1 = grid_quad_splat(slopes[b][1]);
            grid_quad x0 = zero, x1 = zero;
            for (int a = 0; a < 4; ++a) {
                grid_quad coef = grid_quad_load(row + OSC_GRID_FIELDS * a);
                x0 += coef * wx0[a];
                if (order >= 1) x1 += coef * wx1[a];
            }
            plane_v += x0 * wy0;
            if (order >= 1) {
                plane_x += x1 * wy0;
                plane_y += x0 * wy1;
            }
        }
        grid_quad wz0 = grid_quad_splat(values[c][2]), wz1 = grid_quad_splat(slopes[c][2]);
        acc[V] += plane_v * wz0;
        if (order >= 1) {
            acc[GX] += plane_x * wz0;
            acc[GY] += plane_y * wz0;
            acc[GZ] += plane_v * wz1;
        }
    }
    for (int f = 0; f < OSC_GRID_FIELDS; ++f) {
        out[f] = jet_const(acc[V][f], order);
        if (order >= 1)
            for (int k = 0; k < 3; ++k) out[f].g[k] = acc[GX + k][f];
    }
}

__attribute__((target("avx"), noinline)) static void grid_contract_fields_avx(const osc_grid* grid, osc_vec3 x,
                                                                              int order, jet* out) {
    grid_contract_fields_avx_body(grid, x, order, out);
}
#endif

// ---------------------------------------------------------------------------------------------
// FMA kernels, chosen at run time on x86-64 with AVX2 and FMA (docs/grid.md, "Kernels"): the AVX
// kernels' layout with every product-and-sum fused (one rounding instead of two), the weights by
// Horner's rule with multiplications by 1/6 and 1/h instead of divisions. They round differently
// from the portable kernels (within a few ulps of the value), but among themselves every entry point
// (value, value with gradient, the four fields) performs the same operations for the distance and
// its gradient, so they agree bit for bit as the portable ones do.

#ifdef GRID_FMA

GRID_FMA_INLINE grid_quad grid_quad_fma(grid_quad a, grid_quad b, grid_quad c) {
    return (grid_quad)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
}

GRID_FMA_INLINE grid_quad grid_quad_splat_fma(double v) { return (grid_quad){v, v, v, v}; }

// grid_place_avx with u by a multiplication and the weights by Horner's rule (lane a: axis a):
//   w0 = (1 - t)^3 / 6, w1 = (t / 2 - 1) t^2 + 2/3, w2 = ((1/2 - t / 2) t + 1/2) t + 1/6, w3 = t^3 / 6,
//   h w0' = -(1 - t)^2 / 2, h w1' = (3t / 2 - 2) t, h w2' = (1 - 3t / 2) t + 1/2, h w3' = t^2 / 2
GRID_FMA_INLINE int grid_place_fma(const osc_grid* grid, osc_vec3 x, osc_vec3* clamped, int cell[3],
                                   grid_quad values[4], grid_quad slopes[4]) {
    grid_quad t;
    int outside = grid_locate_avx(grid, x, clamped, cell, &t);
    const grid_quad sixth = grid_quad_splat_fma(1.0 / 6.0), half = grid_quad_splat_fma(0.5);
    grid_quad t2 = t * t, r = 1.0 - t, r2 = r * r;
    values[0] = r2 * r * sixth;
    values[1] = grid_quad_fma(t2, grid_quad_fma(half, t, grid_quad_splat_fma(-1.0)), grid_quad_splat_fma(2.0 / 3.0));
    values[2] = grid_quad_fma(grid_quad_fma(grid_quad_fma(-half, t, half), t, half), t, sixth);
    values[3] = t2 * t * sixth;
    if (!slopes) return outside;
    grid_quad inv_h = grid_quad_splat_fma(grid->inverse_cell), half_inv_h = half * inv_h;
    slopes[0] = -(r2 * half_inv_h);
    slopes[1] = grid_quad_fma(grid_quad_splat_fma(1.5), t, grid_quad_splat_fma(-2.0)) * t * inv_h;
    slopes[2] = grid_quad_fma(grid_quad_fma(grid_quad_splat_fma(-1.5), t, grid_quad_splat_fma(1.0)), t, half) * inv_h;
    slopes[3] = t2 * half_inv_h;
    return outside;
}

// grid_distance_avx with fused sums: per (x, y) column of four z layers, the x contraction, then y,
// then z, each a chain of FMAs from zero (the order of grid_contract_fields_fma_body's sums)
GRID_FMA_INLINE double grid_distance_fma(const osc_grid* grid, osc_vec3 x, double gradient[3]) {
    int cell[3];
    osc_vec3 c;
    grid_quad values[4], slopes[4];
    int clamped = grid_place_fma(grid, x, &c, cell, values, gradient ? slopes : NULL);
    size_t ny = (size_t)grid->cells[1] + 3, nz = (size_t)grid->cells[2] + 3, stride_x = ny * nz;
    const double* base = grid->distance + ((size_t)cell[0] * ny + (size_t)cell[1]) * nz + (size_t)cell[2];
    grid_quad wx0 = grid_quad_splat_fma(values[0][0]), wx1 = grid_quad_splat_fma(values[1][0]);
    grid_quad wx2 = grid_quad_splat_fma(values[2][0]), wx3 = grid_quad_splat_fma(values[3][0]);
    grid_quad zero = {0.0, 0.0, 0.0, 0.0}, plane = zero, plane_x = zero, plane_y = zero;
    for (int j = 0; j < 4; ++j) {
        const double* at = base + (size_t)j * nz;
        grid_quad wy = grid_quad_splat_fma(values[j][1]);
        grid_quad l0 = grid_quad_load(at), l1 = grid_quad_load(at + stride_x);
        grid_quad l2 = grid_quad_load(at + 2 * stride_x), l3 = grid_quad_load(at + 3 * stride_x);
        grid_quad line =
            grid_quad_fma(l3, wx3, grid_quad_fma(l2, wx2, grid_quad_fma(l1, wx1, grid_quad_fma(l0, wx0, zero))));
        plane = grid_quad_fma(line, wy, plane);
        if (gradient) {
            grid_quad dx0 = grid_quad_splat_fma(slopes[0][0]), dx1 = grid_quad_splat_fma(slopes[1][0]);
            grid_quad dx2 = grid_quad_splat_fma(slopes[2][0]), dx3 = grid_quad_splat_fma(slopes[3][0]);
            grid_quad line_x =
                grid_quad_fma(l3, dx3, grid_quad_fma(l2, dx2, grid_quad_fma(l1, dx1, grid_quad_fma(l0, dx0, zero))));
            plane_x = grid_quad_fma(line_x, wy, plane_x);
            plane_y = grid_quad_fma(line, grid_quad_splat_fma(slopes[j][1]), plane_y);
        }
    }
    double value = 0.0;
    for (int k = 0; k < 4; ++k) value = __builtin_fma(plane[k], values[k][2], value);
    if (gradient) {
        double gx = 0.0, gy = 0.0, gz = 0.0;
        for (int k = 0; k < 4; ++k) {
            gx = __builtin_fma(plane_x[k], values[k][2], gx);
            gy = __builtin_fma(plane_y[k], values[k][2], gy);
            gz = __builtin_fma(plane[k], slopes[k][2], gz);
        }
        gradient[0] = gx, gradient[1] = gy, gradient[2] = gz;
    }
    if (!clamped) return value;
    int outside[3] = {clamped & 1, (clamped >> 1) & 1, (clamped >> 2) & 1};
    return distance_outside(x, c, outside, value, gradient);
}

__attribute__((target("avx2,fma"), noinline)) static double grid_distance_value_fma(const osc_grid* grid, osc_vec3 x) {
    return grid_distance_fma(grid, x, NULL);
}

__attribute__((target("avx2,fma"), noinline)) static double grid_distance_gradient_fma(const osc_grid* grid, osc_vec3 x,
                                                                                       double gradient[3]) {
    return grid_distance_fma(grid, x, gradient);
}

// grid_contract_fields_avx_body with fused sums, in grid_distance_fma's order for the distance
GRID_FMA_INLINE void grid_contract_fields_fma_body(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    int cell[3];
    osc_vec3 same; // x itself: it lies in the grid
    grid_quad values[4], slopes[4];
    grid_place_fma(grid, x, &same, cell, values, slopes);
    enum { V, GX, GY, GZ, TERMS };
    grid_quad zero = {0.0, 0.0, 0.0, 0.0}, acc[TERMS], wx0[4], wx1[4];
    for (int a = 0; a < 4; ++a) {
        wx0[a] = grid_quad_splat_fma(values[a][0]);
        wx1[a] = grid_quad_splat_fma(slopes[a][0]);
    }
    for (int k = 0; k < TERMS; ++k) acc[k] = zero;
    for (int c = 0; c < 4; ++c) {
        grid_quad plane_v = zero, plane_x = zero, plane_y = zero;
        for (int b = 0; b < 4; ++b) {
            const double* row = coefficient(grid, cell[0] - 1, cell[1] - 1 + b, cell[2] - 1 + c);
            grid_quad wy0 = grid_quad_splat_fma(values[b][1]), wy1 = grid_quad_splat_fma(slopes[b][1]);
            grid_quad x0 = zero, x1 = zero;
            for (int a = 0; a < 4; ++a) {
                grid_quad coef = grid_quad_load(row + OSC_GRID_FIELDS * a);
                x0 = grid_quad_fma(coef, wx0[a], x0);
                if (order >= 1) x1 = grid_quad_fma(coef, wx1[a], x1);
            }
            plane_v = grid_quad_fma(x0, wy0, plane_v);
            if (order >= 1) {
                plane_x = grid_quad_fma(x1, wy0, plane_x);
                plane_y = grid_quad_fma(x0, wy1, plane_y);
            }
        }
        grid_quad wz0 = grid_quad_splat_fma(values[c][2]), wz1 = grid_quad_splat_fma(slopes[c][2]);
        acc[V] = grid_quad_fma(plane_v, wz0, acc[V]);
        if (order >= 1) {
            acc[GX] = grid_quad_fma(plane_x, wz0, acc[GX]);
            acc[GY] = grid_quad_fma(plane_y, wz0, acc[GY]);
            acc[GZ] = grid_quad_fma(plane_v, wz1, acc[GZ]);
        }
    }
    for (int f = 0; f < OSC_GRID_FIELDS; ++f) {
        out[f] = jet_const(acc[V][f], order);
        if (order >= 1)
            for (int k = 0; k < 3; ++k) out[f].g[k] = acc[GX + k][f];
    }
}

__attribute__((target("avx2,fma"), noinline)) static void grid_contract_fields_fma(const osc_grid* grid, osc_vec3 x,
                                                                                   int order, jet* out) {
    grid_contract_fields_fma_body(grid, x, order, out);
}

// ---------------------------------------------------------------------------------------------
// AVX-512 four-field contraction (processors with AVX-512F; level 3): grid_contract_fields_fma_body
// with two z layers side by side in one 512-bit register, layer c in the low half and c + 1 in the
// high half, so that one instruction does two layers' x chains and one their y chains; the z chain
// then takes the halves in turn. The operations on every element are the FMA kernel's, in its
// order, so the bits are its own (and grid_distance_fma's for the distance). With gradients only:
// without them a coefficient load feeds one FMA instead of two, and the kernel was slower than
// the FMA one (docs/grid.md).

#define GRID_AVX512_INLINE static inline __attribute__((target("avx512f,avx2,fma"), always_inline))

// four doubles at `low` (layer c) and four at `high` (layer c + 1)
GRID_AVX512_INLINE __m512d grid_layers_avx512(const double* low, const double* high) {
    return _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(low)), _mm256_loadu_pd(high), 1);
}

GRID_AVX512_INLINE grid_quad grid_low_avx512(__m512d v) { return (grid_quad)_mm512_castpd512_pd256(v); }
GRID_AVX512_INLINE grid_quad grid_high_avx512(__m512d v) { return (grid_quad)_mm512_extractf64x4_pd(v, 1); }

GRID_AVX512_INLINE void grid_contract_fields_avx512_body(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    int cell[3];
    osc_vec3 same; // x itself: it lies in the grid
    grid_quad values[4], slopes[4];
    grid_place_fma(grid, x, &same, cell, values, slopes);
    enum { V, GX, GY, GZ, TERMS };
    __m512d wx0[4], wx1[4], wy0[4], wy1[4];
    for (int a = 0; a < 4; ++a) {
        wx0[a] = _mm512_set1_pd(values[a][0]);
        wx1[a] = _mm512_set1_pd(slopes[a][0]);
        wy0[a] = _mm512_set1_pd(values[a][1]);
        wy1[a] = _mm512_set1_pd(slopes[a][1]);
    }
    size_t stride_y = OSC_GRID_FIELDS * ((size_t)grid->cells[0] + 3), stride_z = stride_y * ((size_t)grid->cells[1] + 3);
    const double* base = coefficient(grid, cell[0] - 1, cell[1] - 1, cell[2] - 1);
    grid_quad zero = {0.0, 0.0, 0.0, 0.0}, acc[TERMS] = {zero, zero, zero, zero};
    for (int m = 0; m < 2; ++m) { // layers (2m, 2m + 1)
        __m512d plane_v = _mm512_setzero_pd(), plane_x = plane_v, plane_y = plane_v;
        for (int b = 0; b < 4; ++b) {
            const double* row = base + (size_t)(2 * m) * stride_z + (size_t)b * stride_y;
            __m512d x0 = _mm512_setzero_pd(), x1 = x0;
            for (int a = 0; a < 4; ++a) {
                __m512d coef = grid_layers_avx512(row + OSC_GRID_FIELDS * a, row + stride_z + OSC_GRID_FIELDS * a);
                x0 = _mm512_fmadd_pd(coef, wx0[a], x0);
                if (order >= 1) x1 = _mm512_fmadd_pd(coef, wx1[a], x1);
            }
            plane_v = _mm512_fmadd_pd(x0, wy0[b], plane_v);
            if (order >= 1) {
                plane_x = _mm512_fmadd_pd(x1, wy0[b], plane_x);
                plane_y = _mm512_fmadd_pd(x0, wy1[b], plane_y);
            }
        }
        for (int half = 0; half < 2; ++half) {
            int c = 2 * m + half;
            grid_quad v = half ? grid_high_avx512(plane_v) : grid_low_avx512(plane_v);
            grid_quad wz0 = grid_quad_splat_fma(values[c][2]), wz1 = grid_quad_splat_fma(slopes[c][2]);
            acc[V] = grid_quad_fma(v, wz0, acc[V]);
            if (order >= 1) {
                acc[GX] = grid_quad_fma(half ? grid_high_avx512(plane_x) : grid_low_avx512(plane_x), wz0, acc[GX]);
                acc[GY] = grid_quad_fma(half ? grid_high_avx512(plane_y) : grid_low_avx512(plane_y), wz0, acc[GY]);
                acc[GZ] = grid_quad_fma(v, wz1, acc[GZ]);
            }
        }
    }
    for (int f = 0; f < OSC_GRID_FIELDS; ++f) {
        out[f] = jet_const(acc[V][f], order);
        if (order >= 1)
            for (int k = 0; k < 3; ++k) out[f].g[k] = acc[GX + k][f];
    }
}

__attribute__((target("avx512f,avx2,fma"), noinline)) static void
grid_contract_fields_avx512(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    grid_contract_fields_avx512_body(grid, x, order, out);
}
#endif

static double grid_distance_value(const osc_grid* grid, osc_vec3 x) {
#ifdef GRID_FMA
    if (grid_have_fma()) return grid_distance_value_fma(grid, x);
#endif
#ifdef GRID_AVX
    if (grid_have_avx()) return grid_distance_value_avx(grid, x);
#endif
    return grid_distance_fast(grid, x, NULL);
}

// The contact pipeline's entry points (grid_internal.h). Each is one call into a kernel that holds
// both points' evaluations and osc_grid_eval's NaN rule, and takes the points by address: a wrapper
// around a kernel call copied the two 24-byte points twice and saved six registers, which cost about
// a fifth of a value's instructions.

// a point with a NaN coordinate (osc_grid_eval returns NaN there)
static inline bool grid_point_nan(const osc_vec3* x) { return isnan(x->x) || isnan(x->y) || isnan(x->z); }

// the four entry kernels for one instruction set: `attributes` their linkage and target, `kernel`
// its spline evaluation (the two points' evaluations inlined into one block: their independent
// dependency chains overlap)
#define GRID_ENTRY_KERNELS(suffix, attributes, kernel)                                                                 \
    attributes double grid_distance_at_##suffix(const osc_grid* grid, const osc_vec3* x) {                             \
        return grid_point_nan(x) ? NAN : kernel(grid, *x, NULL);                                                       \
    }                                                                                                                  \
    attributes void grid_distances_at_##suffix(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1,           \
                                               double out[2]) {                                                        \
        double v0 = kernel(grid, *x0, NULL), v1 = kernel(grid, *x1, NULL);                                             \
        out[0] = grid_point_nan(x0) ? NAN : v0;                                                                        \
        out[1] = grid_point_nan(x1) ? NAN : v1;                                                                        \
    }                                                                                                                  \
    attributes void grid_gradients_at_##suffix(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1,           \
                                               double out[2], osc_vec3 gradient[2]) {                                  \
        double g[2][3];                                                                                                \
        double v0 = kernel(grid, *x0, g[0]), v1 = kernel(grid, *x1, g[1]);                                             \
        bool nan0 = grid_point_nan(x0), nan1 = grid_point_nan(x1);                                                     \
        out[0] = nan0 ? NAN : v0;                                                                                      \
        out[1] = nan1 ? NAN : v1;                                                                                      \
        gradient[0] = nan0 ? osc_v3(NAN, NAN, NAN) : osc_v3(g[0][0], g[0][1], g[0][2]);                                \
        gradient[1] = nan1 ? osc_v3(NAN, NAN, NAN) : osc_v3(g[1][0], g[1][1], g[1][2]);                                \
    }                                                                                                                  \
    attributes double grid_gradient_at_##suffix(const osc_grid* grid, const osc_vec3* x, osc_vec3* gradient) {         \
        double g[3];                                                                                                   \
        double v = kernel(grid, *x, g);                                                                                \
        bool nan = grid_point_nan(x);                                                                                  \
        *gradient = nan ? osc_v3(NAN, NAN, NAN) : osc_v3(g[0], g[1], g[2]);                                            \
        return nan ? NAN : v;                                                                                          \
    }

#ifdef GRID_AVX
GRID_ENTRY_KERNELS(avx, __attribute__((target("avx"), noinline)) static, grid_distance_avx)
#endif
#ifdef GRID_FMA
GRID_ENTRY_KERNELS(fma, __attribute__((target("avx2,fma"), noinline)) static, grid_distance_fma)
#endif
GRID_ENTRY_KERNELS(default, OSC_NOINLINE, grid_distance_fast)

#ifdef GRID_FMA
// the many-point kernels of the FMA path (values with gradients): 4 lanes (AVX2) and 8 lanes
// (AVX-512F)
#define GRID_LANES_WIDTH 4
#include "grid_lanes.h"
#undef GRID_LANES_WIDTH
#define GRID_LANES_WIDTH 8
#include "grid_lanes.h"
#undef GRID_LANES_WIDTH
#endif

// grid_distances and grid_distance_gradients: values with gradients in the lanes on the FMA path,
// else (and values alone on every path) the single-point kernels one point at a time. Values alone
// in eight lanes took 16.5 ns a point against 18 ns one at a time on a hot grid, but made Fig. 11's
// pipeline 5-12 % slower where it evaluated a group's vertices (docs/grid.md); in four lanes they
// were slower on their own.
static void grid_many(const osc_grid* grid, const osc_vec3* points, size_t count, double* values, osc_vec3* gradients) {
#ifdef GRID_FMA
    int level = grid_kernel_level();
    if (level >= 3 && gradients) {
        grid_lanes_many_x8(grid, points, count, values, gradients);
        return;
    }
    if (level == 2 && gradients) {
        grid_lanes_many_x4(grid, points, count, values, gradients);
        return;
    }
    if (level >= 2) {
        for (size_t i = 0; i < count; ++i) values[i] = grid_distance_at_fma(grid, &points[i]);
        return;
    }
#endif
    for (size_t i = 0; i < count; ++i) {
#ifdef GRID_AVX
        if (grid_have_avx()) {
            values[i] = gradients ? grid_gradient_at_avx(grid, &points[i], &gradients[i])
                                  : grid_distance_at_avx(grid, &points[i]);
            continue;
        }
#endif
        values[i] = gradients ? grid_gradient_at_default(grid, &points[i], &gradients[i])
                              : grid_distance_at_default(grid, &points[i]);
    }
}

void grid_distances(const osc_grid* grid, const osc_vec3* points, size_t count, double* values) {
    grid_many(grid, points, count, values, NULL);
}

void grid_distance_gradients(const osc_grid* grid, const osc_vec3* points, size_t count, double* values,
                             osc_vec3* gradients) {
    grid_many(grid, points, count, values, gradients);
}

double grid_distance(const osc_grid* grid, const osc_vec3* x) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 2) return grid_distance_at_fma(grid, x);
#endif
#ifdef GRID_AVX
    if (level == 1) return grid_distance_at_avx(grid, x);
#endif
    return grid_distance_at_default(grid, x);
}

void grid_distance_pair(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1, double out[2]) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 2) {
        grid_distances_at_fma(grid, x0, x1, out);
        return;
    }
#endif
#ifdef GRID_AVX
    if (level == 1) {
        grid_distances_at_avx(grid, x0, x1, out);
        return;
    }
#endif
    grid_distances_at_default(grid, x0, x1, out);
}

void grid_distance_gradient_pair(const osc_grid* grid, const osc_vec3* x0, const osc_vec3* x1, double out[2],
                                 osc_vec3 gradient[2]) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 2) {
        grid_gradients_at_fma(grid, x0, x1, out, gradient);
        return;
    }
#endif
#ifdef GRID_AVX
    if (level == 1) {
        grid_gradients_at_avx(grid, x0, x1, out, gradient);
        return;
    }
#endif
    grid_gradients_at_default(grid, x0, x1, out, gradient);
}

double grid_distance_gradient_at(const osc_grid* grid, const osc_vec3* x, osc_vec3* gradient) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 2) return grid_gradient_at_fma(grid, x, gradient);
#endif
#ifdef GRID_AVX
    if (level == 1) return grid_gradient_at_avx(grid, x, gradient);
#endif
    return grid_gradient_at_default(grid, x, gradient);
}

static double grid_distance_gradient(const osc_grid* grid, osc_vec3 x, double gradient[3]) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 2) return grid_distance_gradient_fma(grid, x, gradient);
#endif
#ifdef GRID_AVX
    if (level == 1) return grid_distance_gradient_avx(grid, x, gradient);
#endif
    return grid_distance_fast(grid, x, gradient);
}

static void grid_distance_order(const osc_grid* grid, osc_vec3 x, int order, jet* out) {
    if (order <= 0)
        *out = jet_const(grid_distance_value(grid, x), 0);
    else if (order == 1)
        out->v = grid_distance_gradient(grid, x, out->g);
    else
        grid_fields(grid, x, 2, 1, out);
}

double osc_grid_eval(const osc_grid* grid, osc_vec3 point, osc_vec3* gradient, osc_mat3* hessian) {
    int order = hessian ? 2 : (gradient ? 1 : 0);
    if (!grid || isnan(point.x) || isnan(point.y) || isnan(point.z)) {
        if (gradient) *gradient = osc_v3(NAN, NAN, NAN);
        if (hessian)
            for (int i = 0; i < 9; ++i) hessian->m[i / 3][i % 3] = NAN;
        return NAN;
    }
    jet j;
    grid_distance_order(grid, point, order, &j);
    if (gradient) *gradient = osc_v3(j.g[0], j.g[1], j.g[2]);
    if (hessian) *hessian = jet_hessian_mat3(j.h);
    return j.v;
}

// the normal field at clamp(x), with its Jacobian (columns of clamped axes are zero)
static osc_vec3 grid_normal(const osc_grid* grid, osc_vec3 x, osc_mat3* jacobian) {
    int outside[3];
    osc_vec3 c = clamp_to_grid(grid, x, outside);
    jet fields[OSC_GRID_FIELDS];
    if (jacobian)
        grid_contract4(grid, c, 1, fields);
    else
        grid_contract4(grid, c, 0, fields);
    if (jacobian)
        for (int r = 0; r < 3; ++r)
            for (int a = 0; a < 3; ++a) jacobian->m[r][a] = outside[a] ? 0.0 : fields[1 + r].g[a];
    return osc_v3(fields[1].v, fields[2].v, fields[3].v);
}

// grid_eval_contact's work, for the contraction `contract` (grid_contract4, or the AVX one inline)
#define GRID_EVAL_CONTACT(contract)                                                                                    \
    jet fields[OSC_GRID_FIELDS];                                                                                       \
    int outside[3];                                                                                                    \
    osc_vec3 c = clamp_to_grid(grid, *x, outside);                                                                     \
    if (derivatives)                                                                                                   \
        contract(grid, c, 1, fields);                                                                                  \
    else                                                                                                               \
        contract(grid, c, 0, fields);                                                                                  \
    continue_outside(*x, c, outside, derivatives ? 1 : 0, &fields[0]);                                                 \
    *normal = osc_v3(fields[1].v, fields[2].v, fields[3].v);                                                           \
    if (derivatives) {                                                                                                 \
        *gradient = osc_v3(fields[0].g[0], fields[0].g[1], fields[0].g[2]);                                            \
        /* the normal field is read at clamp(x): no change along the clamped axes */                                   \
        for (int r = 0; r < 3; ++r)                                                                                    \
            for (int a = 0; a < 3; ++a) normal_jacobian->m[r][a] = outside[a] ? 0.0 : fields[1 + r].g[a];              \
    }                                                                                                                  \
    return fields[0].v;

#ifdef GRID_AVX
// (one call with the contraction inside, as for the distance entry points)
__attribute__((target("avx"), noinline)) static double grid_eval_contact_avx(const osc_grid* grid, const osc_vec3* x,
                                                                             bool derivatives, osc_vec3* gradient,
                                                                             osc_vec3* normal,
                                                                             osc_mat3* normal_jacobian) {
    GRID_EVAL_CONTACT(grid_contract_fields_avx_body)
}
#endif

#ifdef GRID_FMA
__attribute__((target("avx2,fma"), noinline)) static double
grid_eval_contact_fma(const osc_grid* grid, const osc_vec3* x, bool derivatives, osc_vec3* gradient, osc_vec3* normal,
                      osc_mat3* normal_jacobian) {
    GRID_EVAL_CONTACT(grid_contract_fields_fma_body)
}

__attribute__((target("avx512f,avx2,fma"), noinline)) static double
grid_eval_contact_avx512(const osc_grid* grid, const osc_vec3* x, bool derivatives, osc_vec3* gradient,
                         osc_vec3* normal, osc_mat3* normal_jacobian) {
    GRID_EVAL_CONTACT(grid_contract_fields_avx512_body)
}
#endif

OSC_NOINLINE double grid_eval_contact_default(const osc_grid* grid, const osc_vec3* x, bool derivatives,
                                              osc_vec3* gradient, osc_vec3* normal, osc_mat3* normal_jacobian) {
    GRID_EVAL_CONTACT(grid_contract4)
}

double grid_eval_contact(const osc_grid* grid, const osc_vec3* x, bool derivatives, osc_vec3* gradient,
                         osc_vec3* normal, osc_mat3* normal_jacobian) {
#ifdef GRID_AVX
    int level = grid_kernel_level();
#endif
#ifdef GRID_FMA
    if (level >= 3 && derivatives)
        return grid_eval_contact_avx512(grid, x, derivatives, gradient, normal, normal_jacobian);
    if (level >= 2) return grid_eval_contact_fma(grid, x, derivatives, gradient, normal, normal_jacobian);
#endif
#ifdef GRID_AVX
    if (level == 1) return grid_eval_contact_avx(grid, x, derivatives, gradient, normal, normal_jacobian);
#endif
    return grid_eval_contact_default(grid, x, derivatives, gradient, normal, normal_jacobian);
}

osc_vec3 osc_grid_eval_normal(const osc_grid* grid, osc_vec3 point, osc_mat3* jacobian) {
    if (!grid || isnan(point.x) || isnan(point.y) || isnan(point.z)) {
        if (jacobian)
            for (int i = 0; i < 9; ++i) jacobian->m[i / 3][i % 3] = NAN;
        return osc_v3(NAN, NAN, NAN);
    }
    return grid_normal(grid, point, jacobian);
}

// the arrays of one osc_grid_eval_batch call
typedef struct grid_batch {
    const osc_grid* grid;
    const double* points;
    double *values, *gradients, *normals;
} grid_batch;

static osc_status grid_batch_point(void* context, size_t i) {
    const grid_batch* b = context;
    osc_vec3 x = osc_v3(b->points[3 * i], b->points[3 * i + 1], b->points[3 * i + 2]);
    jet fields[OSC_GRID_FIELDS];
    if (isnan(x.x) || isnan(x.y) || isnan(x.z)) {
        for (int f = 0; f < OSC_GRID_FIELDS; ++f) fields[f] = jet_const(NAN, 1);
        for (int a = 0; a < 3; ++a) fields[0].g[a] = NAN;
    } else if (b->gradients) {
        if (b->normals)
            grid_fields(b->grid, x, 1, OSC_GRID_FIELDS, fields);
        else
            grid_fields(b->grid, x, 1, 1, fields);
    } else {
        if (b->normals)
            grid_fields(b->grid, x, 0, OSC_GRID_FIELDS, fields);
        else
            grid_fields(b->grid, x, 0, 1, fields);
    }
    if (b->values) b->values[i] = fields[0].v;
    if (b->gradients)
        for (int a = 0; a < 3; ++a) b->gradients[3 * i + (size_t)a] = fields[0].g[a];
    if (b->normals)
        for (int a = 0; a < 3; ++a) b->normals[3 * i + (size_t)a] = fields[1 + a].v;
    return OSC_OK;
}

osc_status osc_grid_eval_batch(const osc_grid* grid, const double* points, size_t count, double* values,
                               double* gradients, double* normals, int threads) {
    const char* function = "osc_grid_eval_batch";
    if (!grid) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: grid is NULL", function);
    // every output is optional: `points` stands in for the required one
    osc_status status = osc_check_batch(function, points, points, "points", count, threads);
    if (status || count == 0) return status;
    grid_batch batch = {grid, points, values, gradients, normals};
    return osc_batch_run(function, "point", count, threads, GRID_POINTS_PER_THREAD, grid_batch_point, &batch, NULL);
}

// ---------------------------------------------------------------------------------------------
// the voxel grid (Beker et al. 2026 §IV-C.2). In cell (i, j, k) the x-derivative of the spline is a spline of
// the differences (c_{a+1} - c_a) / h with non-negative weights summing to 1 (quadratic B-splines
// times cubic ones), so |d phi / dx| <= max |c_{a+1} - c_a| / h over the cell's support; likewise
// for y and z. L_v = sqrt(Mx^2 + My^2 + Mz^2) bounds |grad phi| in the cell, and with the
// circumradius r = sqrt(3) h / 2, phi(x) >= phi(centre) - L_v r for every x in the cell.

static void cell_bound(const osc_grid* grid, int i, int j, int k, double* lipschitz, double* lowest) {
    double m[3] = {0.0, 0.0, 0.0};
    *lowest = INFINITY;
    for (int c = 0; c < 4; ++c)
        for (int b = 0; b < 4; ++b)
            for (int a = 0; a < 4; ++a) {
                double v = coefficient(grid, i - 1 + a, j - 1 + b, k - 1 + c)[0];
                *lowest = fmin(*lowest, v);
                if (a < 3) m[0] = fmax(m[0], fabs(coefficient(grid, i + a, j - 1 + b, k - 1 + c)[0] - v));
                if (b < 3) m[1] = fmax(m[1], fabs(coefficient(grid, i - 1 + a, j + b, k - 1 + c)[0] - v));
                if (c < 3) m[2] = fmax(m[2], fabs(coefficient(grid, i - 1 + a, j - 1 + b, k + c)[0] - v));
            }
    *lipschitz = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) / grid->cell;
}

// the extremes of one z layer of voxels (layer_bounds' items), combined in order afterwards: max
// and min are exact, so the grid is the same bits on any number of threads
typedef struct layer_extremes {
    double lipschitz, outside, boundary_min;
} layer_extremes;

typedef struct voxel_layers {
    osc_grid* grid;
    layer_extremes* layers; // [cells[2]]
} voxel_layers;

// the voxels of layer k: centre values, bound radii, and the layer's extremes
static osc_status voxel_layer(void* context, size_t layer) {
    voxel_layers* v = context;
    osc_grid* grid = v->grid;
    int nx = grid->cells[0], ny = grid->cells[1], nz = grid->cells[2], k = (int)layer;
    double radius = 0.5 * sqrt(3.0) * grid->cell;
    layer_extremes e = {0.0, 0.0, INFINITY};
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            size_t index = ((size_t)k * (size_t)ny + (size_t)j) * (size_t)nx + (size_t)i;
            osc_vec3 centre = osc_v3(grid->origin.x + (i + 0.5) * grid->cell, grid->origin.y + (j + 0.5) * grid->cell,
                                     grid->origin.z + (k + 0.5) * grid->cell);
            jet value;
            grid_contract(grid, centre, 0, 1, &value);
            double bound, lowest;
            cell_bound(grid, i, j, k, &bound, &lowest);
            grid->voxel_value[index] = value.v;
            grid->voxel_radius[index] = bound * radius;
            e.lipschitz = fmax(e.lipschitz, bound);
            if (value.v + bound * radius > 0.0) e.outside = fmax(e.outside, bound);
            // the spline on the boundary faces lies above the lowest coefficient of the boundary cells
            if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                e.boundary_min = fmin(e.boundary_min, lowest);
        }
    v->layers[layer] = e;
    return OSC_OK;
}

osc_status grid_compute_voxels(osc_grid* grid, int threads) {
    voxel_layers v = {grid, osc_calloc((size_t)grid->cells[2], sizeof(layer_extremes))};
    if (!v.layers) return OSC_ERR_NO_MEMORY;
    osc_batch_run("osc_grid_create", "voxel layer", (size_t)grid->cells[2], threads, 1, voxel_layer, &v, NULL);
    grid->lipschitz = grid->lipschitz_outside = 0.0;
    grid->boundary_min = INFINITY;
    for (int k = 0; k < grid->cells[2]; ++k) {
        grid->lipschitz = fmax(grid->lipschitz, v.layers[k].lipschitz);
        grid->lipschitz_outside = fmax(grid->lipschitz_outside, v.layers[k].outside);
        grid->boundary_min = fmin(grid->boundary_min, v.layers[k].boundary_min);
    }
    osc_free(v.layers);
    return OSC_OK;
}

double osc_grid_lower_bound(const osc_grid* grid, osc_vec3 point, double* centre_value, double* radius) {
    if (!grid || isnan(point.x) || isnan(point.y) || isnan(point.z)) return NAN;
    double outside;
    size_t index = grid_voxel_of(grid, point, &outside);
    if (centre_value) *centre_value = grid->voxel_value[index];
    if (radius) *radius = grid->voxel_radius[index];
    return grid->voxel_value[index] - grid->voxel_radius[index] + outside;
}

double osc_grid_lipschitz(const osc_grid* grid) { return grid ? grid->lipschitz : NAN; }

void osc_grid_bounds(const osc_grid* grid, osc_vec3* lo, osc_vec3* hi) {
    if (!grid) return;
    if (lo) *lo = grid->origin;
    if (hi)
        *hi = osc_add(grid->origin,
                      osc_v3(grid->cells[0] * grid->cell, grid->cells[1] * grid->cell, grid->cells[2] * grid->cell));
}

double osc_grid_cells(const osc_grid* grid, int cells[3]) {
    if (!grid) return NAN;
    if (cells)
        for (int a = 0; a < 3; ++a) cells[a] = grid->cells[a];
    return grid->cell;
}

// ---------------------------------------------------------------------------------------------
// building

static osc_status grid_build(const char* function, grid_source source, osc_vec3 lo, osc_vec3 hi,
                             const osc_grid_settings* settings, osc_grid** out) {
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    osc_grid_settings defaults = osc_grid_settings_default();
    if (!settings) settings = &defaults;
    osc_status status = check_settings(function, settings);
    if (status) return status;
    int cells[3] = {0, 0, 0};
    double cell = 0.0;
    osc_vec3 origin = osc_v3(0.0, 0.0, 0.0);
    if ((status = plan_region(function, lo, hi, settings, cells, &cell, &origin))) return status;
    osc_grid* grid = grid_allocate(cells, cell, origin);
    if (!grid) return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    grid->normal_epsilon = settings->normal_epsilon < 0.0 ? 1e-3 * cell : settings->normal_epsilon;
    status = sample_corners(function, grid, source, grid->normal_epsilon, settings->threads);
    if (status) {
        grid_free(grid);
        return status;
    }
    for (int axis = 0; axis < 3; ++axis) solve_axis(grid, axis, settings->threads);
    grid_copy_distance(grid);
    if (grid_compute_voxels(grid, settings->threads)) {
        grid_free(grid);
        return osc_fail_in(function, OSC_ERR_NO_MEMORY);
    }
    *out = grid;
    return OSC_OK;
}

// the sign of a mesh's spline comes from the winding number, which is right only for outward
// windings: a mesh that orienting would change, one that has no inside (not orientable) and one
// that encloses no volume (flat or open sheets: positive everywhere) are refused
static osc_status check_mesh_sign(const char* function, const osc_mesh_bvh* bvh) {
    const osc_mesh_orientation* o = mesh_bvh_orientation(bvh);
    if (o->non_orientable_patches > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the mesh has no inside: %d of its patches are not orientable (a Moebius strip)", function,
                        (int)o->non_orientable_patches);
    if (o->triangles_flipped > 0)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the mesh is not oriented outward: %d of its triangles face inward (%d "
                        "inconsistent edges, %d patches inside out); orient it with osc_mesh_orient (the "
                        "importers do by default)",
                        function, (int)o->triangles_flipped, (int)o->inconsistent_edges, (int)o->inverted_patches);
    if (o->flat_patches == o->patches)
        return osc_fail(OSC_ERR_INVALID_ARGUMENT,
                        "%s: the mesh encloses no volume (volume %g; its %d patches are flat or open sheets)", function,
                        o->volume, (int)o->patches);
    return OSC_OK;
}

osc_status osc_grid_create_from_mesh(const osc_mesh_bvh* bvh, const osc_grid_settings* settings, osc_grid** out) {
    const char* function = "osc_grid_create_from_mesh";
    if (!bvh) {
        if (out) *out = NULL;
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: bvh is NULL", function);
    }
    osc_status status = check_mesh_sign(function, bvh);
    if (status) {
        if (out) *out = NULL;
        return status;
    }
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(bvh, &lo, &hi);
    grid_source source = {bvh, NULL};
    return grid_build(function, source, lo, hi, settings, out);
}

osc_status osc_grid_create_from_sdf(const osc_sdf* sdf, const osc_grid_settings* settings, osc_grid** out) {
    const char* function = "osc_grid_create_from_sdf";
    if (!sdf) {
        if (out) *out = NULL;
        return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: sdf is NULL", function);
    }
    osc_vec3 lo, hi;
    osc_sdf_bounds(sdf, &lo, &hi);
    grid_source source = {NULL, sdf};
    return grid_build(function, source, lo, hi, settings, out);
}

// ---------------------------------------------------------------------------------------------
// the osc_sdf leaf sharing a grid

static void grid_leaf_eval(const void* context, osc_vec3 x, int order, jet* out) {
    grid_distance_order((const osc_grid*)context, x, order, out);
}

static const sdf_external_vtable grid_leaf_vtable = {grid_leaf_eval, grid_retain, grid_release};

osc_status osc_grid_to_sdf(const osc_grid* grid, osc_sdf** out) {
    const char* function = "osc_grid_to_sdf";
    if (!out) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: out is NULL", function);
    *out = NULL;
    if (!grid) return osc_fail(OSC_ERR_INVALID_ARGUMENT, "%s: grid is NULL", function);
    // {phi <= 0}: inside the grid box, or outside it where s(c) + |x - c| <= 0, within
    // -boundary_min of the box
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    double grow = grid->boundary_min < 0.0 ? -grid->boundary_min : 0.0;
    lo = osc_sub(lo, osc_v3(grow, grow, grow));
    hi = osc_add(hi, osc_v3(grow, grow, grow));
    // where phi > 0: inside the grid the cells that reach phi > 0 (bound L_out); outside the box the
    // continuation adds a unit gradient orthogonal to the clamped part, evaluated on boundary cells,
    // which reach phi > 0 whenever the continuation does
    double lipschitz = sqrt(grid->lipschitz_outside * grid->lipschitz_outside + 1.0);
    return sdf_create_external(function, &grid_leaf_vtable, grid, lo, hi, lipschitz, 1, out);
}
