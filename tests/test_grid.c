// test_grid.c: spline SDFs (Beker et al. 2026 §III-B) built from analytic SDFs, whose exact distance is
// known: interpolation at the corners, convergence with resolution, derivatives against finite
// differences inside and outside the grid, the normal field, the rigorous voxel lower bound, the
// Lipschitz bound, the shared osc_sdf leaf, save / load and its corruption checks, bad input.
// Spline SDFs of real meshes are tested in test_grid_mesh.c.

#include "grid_internal.h" // grid_distances, the pipeline's many-point kernels
#include "sdf_test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_rng rng = {2024};

static osc_grid* grid_of(const osc_sdf* sdf, int resolution) {
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = resolution;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_sdf(sdf, &settings, &grid), OSC_OK);
    return grid;
}

static osc_vec3 random_in(osc_vec3 lo, osc_vec3 hi) {
    return osc_v3(test_uniform(&rng, lo.x, hi.x), test_uniform(&rng, lo.y, hi.y), test_uniform(&rng, lo.z, hi.z));
}

// the spline interpolates the samples: at every grid corner it equals the SDF exactly
static void test_interpolates_corners(void) {
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    osc_grid* grid = grid_of(torus, 24);
    int cells[3];
    double h = osc_grid_cells(grid, cells);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    CHECK_NEAR(hi.x - lo.x, cells[0] * h, 1e-12);
    double worst = 0.0;
    for (int k = 0; k <= cells[2]; ++k)
        for (int j = 0; j <= cells[1]; ++j)
            for (int i = 0; i <= cells[0]; ++i) {
                osc_vec3 p = osc_v3(lo.x + i * h, lo.y + j * h, lo.z + k * h);
                worst = fmax(worst, fabs(osc_grid_eval(grid, p, NULL, NULL) - osc_sdf_eval(torus, p, NULL, NULL)));
            }
    CHECK_MSG(worst < 1e-13, "spline differs from the samples at the corners by %g", worst);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
}

// error against the exact sphere distance in a band of +-0.1 around the surface falls with the
// cell size (cubic interpolation of a smooth function: O(h^4); figures quoted in docs/grid.md)
static void test_convergence(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.5, &sphere), OSC_OK);
    // bounds on the normal error and on |n| - 1 at 16, 32, 64, 128: about 2x the measured
    // 3.9e-4, 7.8e-5, 1.4e-5, 2.0e-6 and 3.9e-4, 9.0e-6, 1.3e-6, 1.2e-7
    const double normal_bound[4] = {8e-4, 1.5e-4, 3e-5, 4e-6};
    const double unit_bound[4] = {8e-4, 1.8e-5, 2.5e-6, 2.5e-7};
    double previous = INFINITY;
    printf("  %-10s %-12s %-12s %-12s\n", "resolution", "band error", "normal error", "|n| - 1");
    for (int level = 0, resolution = 16; resolution <= 128; ++level, resolution *= 2) {
        osc_grid* grid = grid_of(sphere, resolution);
        double error = 0.0, normal_error = 0.0, unit = 0.0;
        for (int i = 0; i < 20000; ++i) {
            osc_vec3 d =
                osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
            osc_vec3 p = osc_scale(d, 0.5 + test_uniform(&rng, -0.1, 0.1));
            error = fmax(error, fabs(osc_grid_eval(grid, p, NULL, NULL) - (osc_length(p) - 0.5)));
            osc_vec3 n = osc_grid_eval_normal(grid, p, NULL);
            normal_error = fmax(normal_error, osc_length(osc_sub(n, d)));
            unit = fmax(unit, fabs(osc_length(n) - 1.0));
        }
        printf("  %-10d %-12.3g %-12.3g %-12.3g\n", resolution, error, normal_error, unit);
        CHECK_MSG(error < previous / 6.0, "resolution %d: error %g did not fall enough from %g", resolution, error,
                  previous);
        CHECK_MSG(normal_error < normal_bound[level], "resolution %d: normal error %g (bound %g)", resolution,
                  normal_error, normal_bound[level]);
        CHECK_MSG(unit < unit_bound[level], "resolution %d: |n| - 1 up to %g (bound %g)", resolution, unit,
                  unit_bound[level]);
        previous = error;
        osc_grid_destroy(grid);
    }
    CHECK_MSG(previous < 1.5e-7, "error at resolution 128 is %g", previous); // measured 7.7e-8
    osc_sdf_destroy(sphere);
}

// derivatives of the distance against finite differences, inside the grid and in the continuation
// outside it, through the osc_sdf leaf; the leaf and osc_grid_eval agree bit for bit
static void test_derivatives(void) {
    osc_sdf *box = NULL, *leaf = NULL;
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.5, 0.3, 0.4), 0.1, &box), OSC_OK);
    osc_grid* grid = grid_of(box, 32);
    CHECK_STATUS(osc_grid_to_sdf(grid, &leaf), OSC_OK);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    fd_stats inside = fd_check_box("spline inside", leaf, lo, hi, 3000, 0.001, &rng);
    // outside: a shell around the grid box, away from its edges' kink planes only by chance
    fd_stats outside = fd_check_box("spline outside", leaf, osc_sub(lo, osc_v3(1, 1, 1)), osc_add(hi, osc_v3(1, 1, 1)),
                                    3000, 0.02, &rng);
    // the leaf's Lipschitz value bounds |grad| wherever phi > 0, inside and outside the grid
    double worst =
        check_lipschitz("spline leaf", leaf, osc_sub(lo, osc_v3(1, 1, 1)), osc_add(hi, osc_v3(1, 1, 1)), 100000, &rng);
    printf("  leaf L %.3f (grid L %.3f), largest |grad| / L where phi > 0: %.3f\n", osc_sdf_lipschitz(leaf),
           osc_grid_lipschitz(grid), worst);
    printf("  fd inside: %d compared (worst %.1e / %.1e), outside: %d compared (worst %.1e / %.1e)\n", inside.checked,
           inside.worst_grad, inside.worst_hess, outside.checked, outside.worst_grad, outside.worst_hess);
    for (int i = 0; i < 1000; ++i) {
        osc_vec3 p = random_in(osc_sub(lo, osc_v3(1, 1, 1)), osc_add(hi, osc_v3(1, 1, 1)));
        osc_vec3 g1, g2;
        osc_mat3 h1, h2;
        double v1 = osc_grid_eval(grid, p, &g1, &h1), v2 = osc_sdf_eval(leaf, p, &g2, &h2);
        CHECK(v1 == v2 && g1.x == g2.x && g1.y == g2.y && g1.z == g2.z && h1.m[0][1] == h2.m[0][1]);
    }
    // the continuation is continuous across the grid's faces: 1e-9 on either side of a face the
    // value is the first-order prediction from the face value with that side's gradient (the
    // spline's inside; outside, the continuation's slope of 1 along the face normal)
    double jump = 0.0;
    for (int i = 0; i < 1000; ++i) {
        osc_vec3 p = random_in(lo, hi);
        p.x = hi.x;
        double on = osc_grid_eval(grid, p, NULL, NULL);
        for (int side = -1; side <= 1; side += 2) {
            osc_vec3 q = osc_v3(hi.x + side * 1e-9, p.y, p.z), g;
            double value = osc_grid_eval(grid, q, &g, NULL);
            jump = fmax(jump, fabs(value - (on + g.x * (q.x - hi.x))));
        }
    }
    // rounding level (measured 2.5e-16)
    CHECK_MSG(jump < 3e-14, "the continuation departs from its first-order prediction by %g at the grid's faces", jump);
    osc_sdf_destroy(leaf);
    osc_grid_destroy(grid);
    osc_sdf_destroy(box);
}

// the normal field's Jacobian against finite differences of the field
static void test_normal_jacobian(void) {
    osc_sdf* ellipsoid = NULL;
    CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(0.6, 0.4, 0.3), &ellipsoid), OSC_OK);
    osc_grid* grid = grid_of(ellipsoid, 32);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    double worst = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 p = random_in(lo, hi);
        osc_mat3 jacobian;
        osc_grid_eval_normal(grid, p, &jacobian);
        const double step = 1e-6;
        for (int a = 0; a < 3; ++a) {
            osc_vec3 np = osc_grid_eval_normal(grid, fd_axis(p, a, step), NULL);
            osc_vec3 nm = osc_grid_eval_normal(grid, fd_axis(p, a, -step), NULL);
            osc_vec3 fd = osc_scale(osc_sub(np, nm), 0.5 / step);
            for (int r = 0; r < 3; ++r) {
                double scale = fmax(1.0, fabs(osc_vec3_get(fd, r)));
                worst = fmax(worst, fabs(jacobian.m[r][a] - osc_vec3_get(fd, r)) / scale);
            }
        }
    }
    // mostly the finite differences' truncation (measured 7.7e-9)
    CHECK_MSG(worst < 3e-8, "normal Jacobian differs from finite differences by %g", worst);
    osc_grid_destroy(grid);
    osc_sdf_destroy(ellipsoid);
}

// the voxel lower bound never exceeds the spline in its voxel, inside or outside the grid, and
// |grad phi| stays below osc_grid_lipschitz inside the grid
static void test_voxel_bound_and_lipschitz(void) {
    osc_sdf *torus = NULL, *box = NULL, *parts = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.5, 0.15, &torus), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.2, 0.2, 0.6), 0.02, &box), OSC_OK);
    const osc_sdf* both[2] = {torus, box};
    CHECK_STATUS(osc_sdf_create_union(both, 2, 0.02, &parts), OSC_OK);
    osc_grid* grid = grid_of(parts, 40);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    double lipschitz = osc_grid_lipschitz(grid), worst_gradient = 0.0, slack = 0.0;
    int violations = 0, count = 0;
    for (int i = 0; i < 200000; ++i) {
        osc_vec3 p = random_in(osc_sub(lo, osc_v3(0.3, 0.3, 0.3)), osc_add(hi, osc_v3(0.3, 0.3, 0.3)));
        osc_vec3 g;
        double value = osc_grid_eval(grid, p, &g, NULL);
        double bound = osc_grid_lower_bound(grid, p, NULL, NULL);
        if (bound > value + 1e-12) ++violations;
        if (p.x > lo.x && p.y > lo.y && p.z > lo.z && p.x < hi.x && p.y < hi.y && p.z < hi.z) {
            worst_gradient = fmax(worst_gradient, osc_length(g));
            slack += value - bound;
            ++count;
        }
    }
    CHECK_MSG(violations == 0, "the voxel lower bound exceeds the spline at %d points", violations);
    CHECK_MSG(worst_gradient <= lipschitz, "|grad| %g above the Lipschitz bound %g", worst_gradient, lipschitz);
    double h = osc_grid_cells(grid, NULL);
    printf("  max |grad| %.3f <= L %.3f; mean slack of the voxel bound %.3f cells\n", worst_gradient, lipschitz,
           slack / count / h);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
    osc_sdf_destroy(box);
    osc_sdf_destroy(parts);
}

// the osc_sdf leaf shares the grid: it outlives the caller's handle, works in CSG and transforms,
// and its bounds hold the shape
static void test_shared_leaf(void) {
    osc_sdf *sphere = NULL, *leaf = NULL, *moved = NULL, *both = NULL, *box = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(0.4, &sphere), OSC_OK);
    osc_grid* grid = grid_of(sphere, 24);
    CHECK_STATUS(osc_grid_to_sdf(grid, &leaf), OSC_OK);
    osc_grid_destroy(grid); // the leaf keeps it alive
    osc_pose pose = {osc_v3(1, 0, 0), osc_quat_from_axis_angle(osc_v3(0, 0, 1), 0.3)};
    CHECK_STATUS(osc_sdf_create_transformed(leaf, pose, 2.0, &moved), OSC_OK);
    CHECK_STATUS(osc_sdf_create_box(osc_v3(0.3, 0.3, 0.3), 0.0, &box), OSC_OK);
    const osc_sdf* parts[2] = {moved, box};
    CHECK_STATUS(osc_sdf_create_union(parts, 2, 0.0, &both), OSC_OK);
    osc_sdf_destroy(leaf);
    osc_sdf_destroy(moved);
    CHECK(osc_sdf_lipschitz_is_bound(both));
    // the sphere of radius 0.4 scaled by 2 around (1, 0, 0): distance 0.8 - |x - (1, 0, 0)|, to
    // 5e-6 (the spline's error, measured 2.0e-6)
    double worst = 0.0;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 p =
            osc_add(osc_v3(1, 0, 0), osc_scale(osc_normalize(random_in(osc_v3(-1, -1, -1), osc_v3(1, 1, 1))), 0.8));
        double expected = fmin(osc_length(osc_sub(p, osc_v3(1, 0, 0))) - 0.8, osc_sdf_eval(box, p, NULL, NULL));
        worst = fmax(worst, fabs(osc_sdf_eval(both, p, NULL, NULL) - expected));
    }
    CHECK_MSG(worst < 5e-6, "shared spline leaf in a tree differs by %g", worst);
    check_bounds_contain("spline in a tree", both, osc_v3(-1, -1.5, -1.5), osc_v3(2.5, 1.5, 1.5), 20000, &rng);
    osc_sdf_destroy(both);
    osc_sdf_destroy(box);
    osc_sdf_destroy(sphere);
}

// batch results equal the single-point functions bit for bit, with 1 and 2 threads
static void test_batch(void) {
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    osc_grid* grid = grid_of(torus, 24);
    enum { N = 4000 };
    static double points[3 * N], values[2][N], gradients[2][3 * N], normals[2][3 * N];
    for (int i = 0; i < 3 * N; ++i) points[i] = test_uniform(&rng, -1.2, 1.2);
    for (int t = 0; t < 2; ++t)
        CHECK_STATUS(osc_grid_eval_batch(grid, points, N, values[t], gradients[t], normals[t], t + 1), OSC_OK);
    int mismatches = 0;
    for (int i = 0; i < N; ++i) {
        osc_vec3 p = osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]), g;
        double v = osc_grid_eval(grid, p, &g, NULL);
        osc_vec3 n = osc_grid_eval_normal(grid, p, NULL);
        for (int t = 0; t < 2; ++t)
            if (v != values[t][i] || g.x != gradients[t][3 * i] || g.z != gradients[t][3 * i + 2] ||
                n.y != normals[t][3 * i + 1])
                ++mismatches;
    }
    CHECK(mismatches == 0);
    CHECK_STATUS(osc_grid_eval_batch(grid, NULL, N, values[0], NULL, NULL, 0), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_grid_eval_batch(NULL, points, N, values[0], NULL, NULL, 0), OSC_ERR_INVALID_ARGUMENT);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
}

static size_t read_file(const char* path, unsigned char** data) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)n);
    size_t got = fread(*data, 1, (size_t)n, f);
    fclose(f);
    return got;
}

// save / load: identical evaluation; every corruption is OSC_ERR_PARSE naming the problem
static void test_save_load(void) {
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    osc_grid *grid = grid_of(torus, 20), *loaded = NULL;
    CHECK_STATUS(osc_grid_save(grid, "grid_roundtrip.oscgrid"), OSC_OK);
    CHECK_STATUS(osc_grid_load("grid_roundtrip.oscgrid", &loaded), OSC_OK);
    int identical = 1;
    for (int i = 0; i < 2000; ++i) {
        osc_vec3 p = random_in(osc_v3(-1.5, -1.5, -1.5), osc_v3(1.5, 1.5, 1.5)), g1, g2;
        identical &= osc_grid_eval(grid, p, &g1, NULL) == osc_grid_eval(loaded, p, &g2, NULL) && g1.y == g2.y;
        identical &= osc_grid_lower_bound(grid, p, NULL, NULL) == osc_grid_lower_bound(loaded, p, NULL, NULL);
    }
    CHECK(identical);
    CHECK(osc_grid_lipschitz(grid) == osc_grid_lipschitz(loaded));
    unsigned char* data = NULL;
    size_t size = read_file("grid_roundtrip.oscgrid", &data);
    CHECK(size > 100);
    osc_grid* bad = NULL;
    // a flipped bit anywhere: checksum (or header) error
    unsigned char* copy = malloc(size);
    size_t positions[4] = {100, size / 2, size - 9, size - 1};
    for (int k = 0; k < 4; ++k) {
        memcpy(copy, data, size);
        copy[positions[k]] ^= 0x10;
        CHECK_STATUS(osc_grid_load_memory(copy, size, &bad), OSC_ERR_PARSE);
        CHECK(strstr(osc_last_error(), "checksum") != NULL);
    }
    memcpy(copy, data, size);
    copy[0] = 'X';
    CHECK_STATUS(osc_grid_load_memory(copy, size, &bad), OSC_ERR_PARSE);
    CHECK(strstr(osc_last_error(), "magic") != NULL);
    memcpy(copy, data, size);
    copy[8] = 9; // version
    CHECK_STATUS(osc_grid_load_memory(copy, size, &bad), OSC_ERR_PARSE);
    CHECK(strstr(osc_last_error(), "version") != NULL);
    memcpy(copy, data, size);
    int32_t huge = 5000;
    memcpy(copy + 16, &huge, 4);
    CHECK_STATUS(osc_grid_load_memory(copy, size, &bad), OSC_ERR_PARSE);
    CHECK(strstr(osc_last_error(), "cell count") != NULL);
    CHECK_STATUS(osc_grid_load_memory(data, size - 100, &bad), OSC_ERR_PARSE); // truncated
    CHECK(strstr(osc_last_error(), "truncated") != NULL);
    CHECK_STATUS(osc_grid_load_memory(data, 20, &bad), OSC_ERR_PARSE);
    CHECK(bad == NULL);
    CHECK_STATUS(osc_grid_load("no/such/file.oscgrid", &bad), OSC_ERR_IO);
    CHECK(strstr(osc_last_error(), "no/such/file.oscgrid") != NULL);
    // values with a valid checksum that no writer produces: a NaN coefficient, a negative bound
    // radius (the last 8 bytes before the checksum) are refused, naming their byte
    size_t places[2] = {96 + 8 * 5, size - 16};
    double values[2] = {NAN, -1.0};
    for (int k = 0; k < 2; ++k) {
        memcpy(copy, data, size);
        memcpy(copy + places[k], &values[k], 8);
        uint64_t hash = 14695981039346656037ull; // FNV-1a 64 of every byte before the checksum
        for (size_t i = 0; i + 8 < size; ++i) hash = (hash ^ copy[i]) * 1099511628211ull;
        memcpy(copy + size - 8, &hash, 8);
        CHECK_STATUS(osc_grid_load_memory(copy, size, &bad), OSC_ERR_PARSE);
        char needle[32];
        snprintf(needle, sizeof needle, "byte %zu:", places[k]);
        CHECK_MSG(strstr(osc_last_error(), needle) != NULL && bad == NULL, "%s", osc_last_error());
    }
    // every truncation of the file is rejected without reading past the buffer
    int accepted = 0;
    for (size_t n = 0; n < size; n += 37) accepted += osc_grid_load_memory(data, n, &bad) == OSC_OK;
    CHECK(accepted == 0);
    free(copy);
    free(data);
    remove("grid_roundtrip.oscgrid");
    osc_grid_destroy(grid);
    osc_grid_destroy(loaded);
    osc_sdf_destroy(torus);
}

static void test_bad_input(void) {
    osc_sdf *sphere = NULL, *plane = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    CHECK_STATUS(osc_sdf_create_halfspace(osc_v3(0, 0, 1), 0.0, &plane), OSC_OK);
    osc_grid* grid = (osc_grid*)&rng;
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = 2;
    CHECK_STATUS(osc_grid_create_from_sdf(sphere, &settings, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK(grid == NULL && strstr(osc_last_error(), "resolution") != NULL);
    settings = osc_grid_settings_default();
    settings.padding = NAN;
    CHECK_STATUS(osc_grid_create_from_sdf(sphere, &settings, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "padding") != NULL);
    CHECK_STATUS(osc_grid_create_from_sdf(plane, NULL, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "unbounded") != NULL);
    CHECK_STATUS(osc_grid_create_from_sdf(NULL, NULL, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_grid_create_from_mesh(NULL, NULL, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK(isnan(osc_grid_eval(NULL, osc_v3(0, 0, 0), NULL, NULL)));
    CHECK_STATUS(osc_grid_create_from_sdf(sphere, NULL, &grid), OSC_OK);
    osc_vec3 g;
    CHECK(isnan(osc_grid_eval(grid, osc_v3(NAN, 0, 0), &g, NULL)) && isnan(g.x));
    CHECK(isnan(osc_grid_eval_normal(grid, osc_v3(0, NAN, 0), NULL).x));
    osc_grid_destroy(grid);
    osc_grid_destroy(NULL);
    osc_sdf_destroy(sphere);
    osc_sdf_destroy(plane);
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// the 95th percentile of values[0 .. count) (sorts them)
static double percentile95(double* values, size_t count) {
    qsort(values, count, sizeof *values, compare_doubles);
    return values[(size_t)(0.95 * (double)(count - 1))];
}

// the many-point kernels (grid_distances, grid_distance_gradients: SIMD lanes on the FMA path, one
// point at a time on the others) give, point by point, the bits of the single-point entry points
// on whichever path OSC_GRID_KERNEL leaves (CTest runs this test on each), inside the region, outside
// it, at a NaN point and in a tail shorter than the lanes; against the portable reference (the
// order-2 contraction, never fused) the differences stay at rounding level (docs/grid.md quotes them)
static void test_many_points(void) {
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    osc_grid* grid = grid_of(torus, 24);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    osc_vec3 grow = osc_scale(osc_sub(hi, lo), 0.15);
    enum { COUNT = 4003 }; // a tail of 3 after whole groups of 4 and 8
    static osc_vec3 points[COUNT], gradients[COUNT];
    static double values[COUNT], with_gradient[COUNT], value_error[COUNT], gradient_error[COUNT];
    for (int i = 0; i < COUNT; ++i) points[i] = random_in(osc_sub(lo, grow), osc_add(hi, grow));
    points[5] = osc_v3(NAN, 0.0, 0.0);
    points[6] = lo; // the region's corners and a point on its upper face
    points[7] = hi;
    points[8] = osc_v3(hi.x, 0.0, 0.0);
    grid_distances(grid, points, COUNT, values);
    grid_distance_gradients(grid, points, COUNT, with_gradient, gradients);
    int mismatches = 0, outside = 0;
    size_t compared = 0;
    for (int i = 0; i < COUNT; ++i) {
        osc_vec3 g;
        double v = grid_distance(grid, &points[i]), vg = grid_distance_gradient_at(grid, &points[i], &g);
        if (memcmp(&v, &values[i], sizeof v) != 0 || memcmp(&vg, &with_gradient[i], sizeof vg) != 0 ||
            memcmp(&g, &gradients[i], sizeof g) != 0)
            ++mismatches;
        if (i == 5) {
            CHECK(isnan(values[i]) && isnan(gradients[i].x) && isnan(gradients[i].z));
            continue;
        }
        outside += points[i].x < lo.x || points[i].x > hi.x || points[i].y < lo.y || points[i].y > hi.y ||
                   points[i].z < lo.z || points[i].z > hi.z;
        osc_vec3 reference_gradient;
        osc_mat3 hessian;
        double reference = osc_grid_eval(grid, points[i], &reference_gradient, &hessian);
        value_error[compared] = fabs(values[i] - reference);
        gradient_error[compared] = osc_length(osc_sub(gradients[i], reference_gradient));
        ++compared;
    }
    CHECK_MSG(mismatches == 0, "%d of %d points differ from the single-point kernels", mismatches, COUNT);
    CHECK(outside > 100);
    double worst_value = 0.0, worst_gradient = 0.0;
    for (size_t i = 0; i < compared; ++i) {
        worst_value = fmax(worst_value, value_error[i]);
        worst_gradient = fmax(worst_gradient, gradient_error[i]);
    }
    double p95_value = percentile95(value_error, compared), p95_gradient = percentile95(gradient_error, compared);
    printf("  many points (%s): against the portable reference, value max %.2g p95 %.2g, gradient max %.2g p95 %.2g\n",
           getenv("OSC_GRID_KERNEL") ? getenv("OSC_GRID_KERNEL") : "widest", worst_value, p95_value, worst_gradient,
           p95_gradient);
    CHECK_MSG(worst_value < 1e-14, "value differs from the portable reference by %g", worst_value);
    CHECK_MSG(worst_gradient < 1e-12, "gradient differs from the portable reference by %g", worst_gradient);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
}

// grid_eval_contact (the contact pipeline's evaluation: value, gradient, normal field and its
// Jacobian in one pass) on whichever path OSC_GRID_KERNEL leaves: its value and gradient have the
// bits of grid_distance and grid_distance_gradient_at and its normal field and Jacobian those of
// osc_grid_eval_normal on the same path (the pipeline relies on it); the gradient and the Jacobian
// match central differences of its own value and normal field; value and gradient stay at rounding
// level from the portable reference (the order-2 contraction, never fused)
static void test_contact_evaluation(void) {
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(0.6, 0.2, &torus), OSC_OK);
    osc_grid* grid = grid_of(torus, 24);
    osc_vec3 lo, hi;
    osc_grid_bounds(grid, &lo, &hi);
    osc_vec3 grow = osc_scale(osc_sub(hi, lo), 0.1);
    int mismatches = 0;
    double worst_gradient_fd = 0.0, worst_jacobian_fd = 0.0, worst_value = 0.0, worst_gradient = 0.0;
    for (int i = 0; i < 3000; ++i) {
        osc_vec3 p = random_in(osc_sub(lo, grow), osc_add(hi, grow));
        osc_vec3 g, n, g_distance, n_field;
        osc_mat3 dn, dn_field;
        double v = grid_eval_contact(grid, &p, true, &g, &n, &dn);
        osc_vec3 n_only;
        double v_only = grid_eval_contact(grid, &p, false, NULL, &n_only, NULL);
        double v_distance = grid_distance(grid, &p), v_gradient = grid_distance_gradient_at(grid, &p, &g_distance);
        n_field = osc_grid_eval_normal(grid, p, &dn_field);
        if (memcmp(&v, &v_distance, sizeof v) != 0 || memcmp(&v, &v_gradient, sizeof v) != 0 ||
            memcmp(&v, &v_only, sizeof v) != 0 || memcmp(&g, &g_distance, sizeof g) != 0 ||
            memcmp(&n, &n_field, sizeof n) != 0 || memcmp(&n, &n_only, sizeof n) != 0 ||
            memcmp(&dn, &dn_field, sizeof dn) != 0)
            ++mismatches;
        osc_vec3 reference_gradient;
        osc_mat3 hessian;
        double reference = osc_grid_eval(grid, p, &reference_gradient, &hessian);
        worst_value = fmax(worst_value, fabs(v - reference));
        worst_gradient = fmax(worst_gradient, osc_length(osc_sub(g, reference_gradient)));
        const double step = 1e-6;
        for (int a = 0; a < 3; ++a) {
            osc_vec3 pp = fd_axis(p, a, step), pm = fd_axis(p, a, -step), np, nm;
            double vp = grid_eval_contact(grid, &pp, false, NULL, &np, NULL);
            double vm = grid_eval_contact(grid, &pm, false, NULL, &nm, NULL);
            double fd = (vp - vm) / (2.0 * step);
            worst_gradient_fd = fmax(worst_gradient_fd, fabs(osc_vec3_get(g, a) - fd) / fmax(1.0, fabs(fd)));
            for (int r = 0; r < 3; ++r) {
                double fd_n = (osc_vec3_get(np, r) - osc_vec3_get(nm, r)) / (2.0 * step);
                worst_jacobian_fd = fmax(worst_jacobian_fd, fabs(dn.m[r][a] - fd_n) / fmax(1.0, fabs(fd_n)));
            }
        }
    }
    printf("  contact evaluation (%s): against central differences gradient %.2g, Jacobian %.2g; against the "
           "portable reference value %.2g, gradient %.2g\n",
           getenv("OSC_GRID_KERNEL") ? getenv("OSC_GRID_KERNEL") : "widest", worst_gradient_fd, worst_jacobian_fd,
           worst_value, worst_gradient);
    CHECK_MSG(mismatches == 0, "%d points: grid_eval_contact differs from the other entry points", mismatches);
    // the finite differences' truncation and rounding (points near the grid's faces and the
    // continuation's kinks included); test_normal_jacobian measures 7.7e-9 inside
    CHECK_MSG(worst_gradient_fd < 1e-6, "gradient differs from central differences by %g", worst_gradient_fd);
    CHECK_MSG(worst_jacobian_fd < 1e-6, "normal Jacobian differs from central differences by %g", worst_jacobian_fd);
    CHECK_MSG(worst_value < 1e-14, "value differs from the portable reference by %g", worst_value);
    CHECK_MSG(worst_gradient < 1e-12, "gradient differs from the portable reference by %g", worst_gradient);
    osc_grid_destroy(grid);
    osc_sdf_destroy(torus);
}

int main(void) {
    RUN(test_interpolates_corners);
    RUN(test_convergence);
    RUN(test_derivatives);
    RUN(test_normal_jacobian);
    RUN(test_voxel_bound_and_lipschitz);
    RUN(test_shared_leaf);
    RUN(test_batch);
    RUN(test_many_points);
    RUN(test_contact_evaluation);
    RUN(test_save_load);
    RUN(test_bad_input);
    return test_finish();
}
