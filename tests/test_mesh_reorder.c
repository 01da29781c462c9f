// test_mesh_reorder.c: space-filling-curve orders (mesh.h: osc_curve_order, osc_mesh_reorder).
// The Hilbert order of full 2^k grids (k = 1..5) must step between face-adjacent cells only; the
// Morton order of the 8^3 grid must equal an independent bit-interleaving sort; ties keep their
// input order; a reordered mesh must be the same mesh under the returned permutations, with its
// edges sorted along the curve; and on the armadillo both curves must bring consecutive vertices
// far closer than a random order (the figures are printed for docs/mesh.md).

#include "osculate/mesh.h"

#include "mesh_test_util.h"

// a deterministic shuffle of order[0..count)
static void shuffle(int32_t* order, int32_t count, test_rng* rng) {
    for (int32_t i = count - 1; i > 0; --i) {
        int32_t j = (int32_t)(test_rng_next(rng) % (uint64_t)(i + 1));
        int32_t swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
}

// the points (i, j, k) of an n^3 grid in a shuffled order; cells[p] = the grid cell of point p
static double* shuffled_grid(int n, int32_t* cells, test_rng* rng) {
    int32_t count = n * n * n;
    for (int32_t p = 0; p < count; ++p) cells[p] = p;
    shuffle(cells, count, rng);
    double* points = malloc(3 * (size_t)count * sizeof *points);
    for (int32_t p = 0; p < count; ++p) {
        points[3 * p] = cells[p] % n;
        points[3 * p + 1] = cells[p] / n % n;
        points[3 * p + 2] = cells[p] / (n * n);
    }
    return points;
}

// true when order[0..count) is a permutation
static bool is_permutation(const int32_t* order, int32_t count) {
    char* seen = calloc((size_t)count + 1, 1);
    bool ok = true;
    for (int32_t i = 0; i < count && ok; ++i) {
        ok = order[i] >= 0 && order[i] < count && !seen[order[i]];
        if (ok) seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}

// On an n^3 grid of points 0..n-1, the 2^21 binning puts point i of an axis in the level-k block
// i (floor(i 2^21 / (n - 1)) >> (21 - k) = i), and the Hilbert curve fills each block before the
// next, so the points are visited in the order of the level-k curve: every step is one unit along
// one axis, and the curve starts at a corner
static void test_hilbert_steps_between_face_neighbours(void) {
    test_rng rng = {11};
    for (int k = 1; k <= 5; ++k) {
        int n = 1 << k;
        int32_t count = n * n * n;
        int32_t* cells = malloc((size_t)count * sizeof *cells);
        int32_t* order = malloc((size_t)count * sizeof *order);
        double* points = shuffled_grid(n, cells, &rng);
        CHECK_STATUS(osc_curve_order(points, count, OSC_CURVE_HILBERT, order), OSC_OK);
        CHECK(is_permutation(order, count));
        int bad_steps = 0;
        for (int32_t i = 1; i < count; ++i) {
            const double* a = points + 3 * order[i - 1];
            const double* b = points + 3 * order[i];
            double steps = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
            bad_steps += steps != 1.0;
        }
        CHECK_MSG(bad_steps == 0, "%d^3 grid: %d steps are not to a face neighbour", n, bad_steps);
        const double* first = points + 3 * order[0];
        CHECK(first[0] == 0.0 && first[1] == 0.0 && first[2] == 0.0);
        free(points);
        free(cells);
        free(order);
    }
}

// the Morton key of a cell by bit loops (bit 3 b + axis = bit b of that axis)
static uint64_t reference_morton(uint32_t x, uint32_t y, uint32_t z) {
    uint64_t key = 0;
    for (int bit = 0; bit < 21; ++bit) {
        key |= (uint64_t)((x >> bit) & 1u) << (3 * bit);
        key |= (uint64_t)((y >> bit) & 1u) << (3 * bit + 1);
        key |= (uint64_t)((z >> bit) & 1u) << (3 * bit + 2);
    }
    return key;
}

// the 8^3 grid in Morton order equals a sort by reference keys (distinct, so the order is
// unique); on the 8^3 grid the Morton order jumps (steps longer than one cell) where Hilbert does
// not
static void test_morton_order_of_a_grid(void) {
    test_rng rng = {5};
    enum { N = 8, COUNT = N * N * N };
    int32_t cells[COUNT], order[COUNT];
    double* points = shuffled_grid(N, cells, &rng);
    CHECK_STATUS(osc_curve_order(points, COUNT, OSC_CURVE_MORTON, order), OSC_OK);
    CHECK(is_permutation(order, COUNT));
    int mismatches = 0, jumps = 0;
    for (int32_t i = 0; i < COUNT; ++i) {
        const double* p = points + 3 * order[i];
        // the i-th smallest reference key belongs to the cell whose interleaved index is i;
        // on 3-bit coordinates scaled to 21 bits the reference key is i << 54
        uint32_t x = (uint32_t)p[0] << 18, y = (uint32_t)p[1] << 18, z = (uint32_t)p[2] << 18;
        mismatches += reference_morton(x, y, z) != (uint64_t)i << 54;
        if (i > 0) {
            const double* q = points + 3 * order[i - 1];
            jumps += fabs(p[0] - q[0]) + fabs(p[1] - q[1]) + fabs(p[2] - q[2]) > 1.0;
        }
    }
    CHECK_MSG(mismatches == 0, "%d points out of Morton order", mismatches);
    CHECK(jumps > 0);
    free(points);
}

// equal points keep their input order; all-equal points give the identity; errors name the input
static void test_ties_and_errors(void) {
    double points[6][3] = {{1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}};
    int32_t order[6];
    for (int curve = 0; curve < 2; ++curve) {
        CHECK_STATUS(osc_curve_order(&points[0][0], 6, (osc_curve)curve, order), OSC_OK);
        CHECK(order[0] == 1 && order[1] == 3 && order[2] == 5);
        CHECK(order[3] == 0 && order[4] == 2 && order[5] == 4);
    }
    double same[4][3] = {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}};
    CHECK_STATUS(osc_curve_order(&same[0][0], 4, OSC_CURVE_HILBERT, order), OSC_OK);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3);
    // extreme but finite coordinates
    double wide[3][3] = {{-1.7e308, 0, 0}, {1.7e308, 1e-300, 0}, {0, 0, 0}};
    CHECK_STATUS(osc_curve_order(&wide[0][0], 3, OSC_CURVE_HILBERT, order), OSC_OK);
    CHECK(is_permutation(order, 3));
    CHECK_STATUS(osc_curve_order(NULL, 0, OSC_CURVE_MORTON, NULL), OSC_OK);

    points[4][1] = NAN;
    CHECK_STATUS(osc_curve_order(&points[0][0], 6, OSC_CURVE_MORTON, order), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "points[4]") != NULL);
    points[4][1] = 1;
    CHECK_STATUS(osc_curve_order(&points[0][0], -1, OSC_CURVE_MORTON, order), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "count is negative") != NULL);
    CHECK_STATUS(osc_curve_order(NULL, 6, OSC_CURVE_MORTON, order), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "points is NULL") != NULL);
    CHECK_STATUS(osc_curve_order(&points[0][0], 6, OSC_CURVE_MORTON, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "order is NULL") != NULL);
    CHECK_STATUS(osc_curve_order(&points[0][0], 6, (osc_curve)7, order), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "curve 7 is not a curve") != NULL);

    osc_mesh* out = (osc_mesh*)&out;
    CHECK_STATUS(osc_mesh_reorder(NULL, OSC_CURVE_MORTON, &out, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && strstr(osc_last_error(), "mesh is NULL") != NULL);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&same[0][0], 1, NULL, 0, &mesh), OSC_OK);
    CHECK_STATUS(osc_mesh_reorder(mesh, (osc_curve)-1, &out, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_reorder(mesh, OSC_CURVE_MORTON, NULL, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    osc_mesh_destroy(mesh);
}

// the reordered mesh is the same mesh: new vertex i is old vertex vertex_order[i], triangles keep
// their order with re-indexed corners, new edge e is old edge edge_order[e] with the same adjacent
// triangles, the topology and volume are unchanged, and the edges follow the curve (ordering
// their midpoints again changes nothing)
static void check_reordered(const osc_mesh* mesh, const osc_mesh* reordered, const int32_t* vertex_order,
                            const int32_t* edge_order, osc_curve curve, const char* name) {
    int32_t vertex_count = osc_mesh_vertex_count(mesh), triangle_count = osc_mesh_triangle_count(mesh);
    int32_t edge_count = osc_mesh_edge_count(mesh);
    CHECK(osc_mesh_vertex_count(reordered) == vertex_count);
    CHECK(osc_mesh_triangle_count(reordered) == triangle_count);
    CHECK(osc_mesh_edge_count(reordered) == edge_count);
    CHECK(is_permutation(vertex_order, vertex_count));
    CHECK(is_permutation(edge_order, edge_count));
    int32_t* inverse = malloc(((size_t)vertex_count + 1) * sizeof *inverse);
    const double *old_vertices = osc_mesh_vertices(mesh), *new_vertices = osc_mesh_vertices(reordered);
    int bad = 0;
    for (int32_t i = 0; i < vertex_count; ++i) {
        inverse[vertex_order[i]] = i;
        bad += memcmp(new_vertices + 3 * i, old_vertices + 3 * vertex_order[i], 3 * sizeof(double)) != 0;
    }
    const int32_t *old_triangles = osc_mesh_triangles(mesh), *new_triangles = osc_mesh_triangles(reordered);
    for (int32_t i = 0; i < 3 * triangle_count; ++i) bad += new_triangles[i] != inverse[old_triangles[i]];
    const int32_t *old_edges = osc_mesh_edges(mesh), *new_edges = osc_mesh_edges(reordered);
    const int32_t *old_adjacent = osc_mesh_edge_triangles(mesh), *new_adjacent = osc_mesh_edge_triangles(reordered);
    for (int32_t e = 0; e < edge_count; ++e) {
        int32_t old = edge_order[e];
        int32_t a = inverse[old_edges[2 * old]], b = inverse[old_edges[2 * old + 1]];
        bad += new_edges[2 * e] != (a < b ? a : b) || new_edges[2 * e + 1] != (a < b ? b : a);
        bad += new_edges[2 * e] >= new_edges[2 * e + 1];
        bad += new_adjacent[2 * e] != old_adjacent[2 * old] || new_adjacent[2 * e + 1] != old_adjacent[2 * old + 1];
    }
    CHECK_MSG(bad == 0, "%s: %d mismatches between the mesh and its reordered copy", name, bad);
    osc_mesh_topology before, after;
    osc_mesh_get_topology(mesh, &before);
    osc_mesh_get_topology(reordered, &after);
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    CHECK_NEAR(osc_mesh_volume(reordered), osc_mesh_volume(mesh), 1e-12 * (1.0 + fabs(osc_mesh_volume(mesh))));

    double* midpoints = malloc(3 * ((size_t)edge_count + 1) * sizeof *midpoints);
    int32_t* order = malloc(((size_t)edge_count + 1) * sizeof *order);
    for (int32_t e = 0; e < edge_count; ++e)
        for (int a = 0; a < 3; ++a)
            midpoints[3 * e + a] =
                0.5 * new_vertices[3 * new_edges[2 * e] + a] + 0.5 * new_vertices[3 * new_edges[2 * e + 1] + a];
    CHECK_STATUS(osc_curve_order(midpoints, edge_count, curve, order), OSC_OK);
    int moved = 0;
    for (int32_t e = 0; e < edge_count; ++e) moved += order[e] != e;
    CHECK_MSG(moved == 0, "%s: %d edges are not in curve order", name, moved);
    // and the vertices are in curve order
    int32_t* vertex_again = malloc(((size_t)vertex_count + 1) * sizeof *vertex_again);
    CHECK_STATUS(osc_curve_order(new_vertices, vertex_count, curve, vertex_again), OSC_OK);
    moved = 0;
    for (int32_t i = 0; i < vertex_count; ++i) moved += vertex_again[i] != i;
    CHECK_MSG(moved == 0, "%s: %d vertices are not in curve order", name, moved);
    free(vertex_again);
    free(midpoints);
    free(order);
    free(inverse);
}

// a random closed surface (a subdivided, shuffled sphere), reordered, and reordered again (the
// second input has curve-ordered, not lexicographic, edges)
static void test_reorder_mesh(void) {
    enum { RINGS = 12, SEGMENTS = 16 };
    int32_t vertex_count = 2 + (RINGS - 1) * SEGMENTS, triangle_count = 2 * SEGMENTS * (RINGS - 1);
    double* vertices = malloc(3 * (size_t)vertex_count * sizeof *vertices);
    int32_t* triangles = malloc(3 * (size_t)triangle_count * sizeof *triangles);
    int32_t* relabel = malloc((size_t)vertex_count * sizeof *relabel);
    test_rng rng = {77};
    for (int32_t i = 0; i < vertex_count; ++i) relabel[i] = i;
    shuffle(relabel, vertex_count, &rng);
    // vertex 0 north pole, then rings, last the south pole (before relabelling)
    for (int32_t v = 0; v < vertex_count; ++v) {
        double theta, phi;
        if (v == 0)
            theta = 0, phi = 0;
        else if (v == vertex_count - 1)
            theta = TEST_PI, phi = 0;
        else
            theta = TEST_PI * (1 + (v - 1) / SEGMENTS) / RINGS, phi = 2 * TEST_PI * ((v - 1) % SEGMENTS) / SEGMENTS;
        double* p = vertices + 3 * relabel[v];
        p[0] = sin(theta) * cos(phi), p[1] = sin(theta) * sin(phi), p[2] = cos(theta);
    }
    int32_t t = 0;
    for (int s = 0; s < SEGMENTS; ++s) {
        int a = 1 + s, b = 1 + (s + 1) % SEGMENTS;
        int32_t* top = triangles + 3 * t++;
        top[0] = relabel[0], top[1] = relabel[a], top[2] = relabel[b];
        int32_t* bottom = triangles + 3 * t++;
        int c = 1 + (RINGS - 2) * SEGMENTS + s, d = 1 + (RINGS - 2) * SEGMENTS + (s + 1) % SEGMENTS;
        bottom[0] = relabel[vertex_count - 1], bottom[1] = relabel[d], bottom[2] = relabel[c];
    }
    for (int r = 0; r + 1 < RINGS - 1; ++r)
        for (int s = 0; s < SEGMENTS; ++s) {
            int a = 1 + r * SEGMENTS + s, b = 1 + r * SEGMENTS + (s + 1) % SEGMENTS;
            int c = a + SEGMENTS, d = b + SEGMENTS;
            int32_t* first = triangles + 3 * t++;
            first[0] = relabel[a], first[1] = relabel[c], first[2] = relabel[d];
            int32_t* second = triangles + 3 * t++;
            second[0] = relabel[a], second[1] = relabel[d], second[2] = relabel[b];
        }
    CHECK(t == triangle_count);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_OK);
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.closed == 1 && topology.euler_characteristic == 2);
    CHECK(osc_mesh_volume(mesh) > 0.0);

    int32_t edge_count = osc_mesh_edge_count(mesh);
    int32_t* vertex_order = malloc((size_t)vertex_count * sizeof *vertex_order);
    int32_t* edge_order = malloc((size_t)edge_count * sizeof *edge_order);
    for (int curve = 0; curve < 2; ++curve) {
        osc_mesh* reordered = NULL;
        CHECK_STATUS(osc_mesh_reorder(mesh, (osc_curve)curve, &reordered, vertex_order, edge_order), OSC_OK);
        check_reordered(mesh, reordered, vertex_order, edge_order, (osc_curve)curve, curve ? "hilbert" : "morton");
        // again, from the reordered mesh along the other curve
        osc_mesh* twice = NULL;
        CHECK_STATUS(osc_mesh_reorder(reordered, (osc_curve)(1 - curve), &twice, vertex_order, edge_order), OSC_OK);
        check_reordered(reordered, twice, vertex_order, edge_order, (osc_curve)(1 - curve), "twice");
        // the outputs are nullable
        osc_mesh* plain = NULL;
        CHECK_STATUS(osc_mesh_reorder(mesh, (osc_curve)curve, &plain, NULL, NULL), OSC_OK);
        CHECK(test_mesh_equal(plain, reordered));
        osc_mesh_destroy(plain);
        osc_mesh_destroy(twice);
        osc_mesh_destroy(reordered);
    }
    // empty and triangle-free meshes
    osc_mesh* empty = NULL;
    osc_mesh* out = NULL;
    CHECK_STATUS(osc_mesh_create(NULL, 0, NULL, 0, &empty), OSC_OK);
    CHECK_STATUS(osc_mesh_reorder(empty, OSC_CURVE_HILBERT, &out, NULL, NULL), OSC_OK);
    CHECK(out != NULL && osc_mesh_vertex_count(out) == 0 && osc_mesh_edge_count(out) == 0);
    osc_mesh_destroy(out);
    osc_mesh_destroy(empty);
    CHECK_STATUS(osc_mesh_create(vertices, 5, NULL, 0, &empty), OSC_OK);
    CHECK_STATUS(osc_mesh_reorder(empty, OSC_CURVE_MORTON, &out, vertex_order, edge_order), OSC_OK);
    CHECK(osc_mesh_vertex_count(out) == 5 && is_permutation(vertex_order, 5));
    osc_mesh_destroy(out);
    osc_mesh_destroy(empty);

    osc_mesh_destroy(mesh);
    free(vertex_order);
    free(edge_order);
    free(vertices);
    free(triangles);
    free(relabel);
}

// mean distance between consecutive points in the given order (identity when order is NULL)
static double mean_step(const double* points, int32_t count, const int32_t* order) {
    double sum = 0.0;
    for (int32_t i = 1; i < count; ++i) {
        const double* a = points + 3 * (order ? order[i - 1] : i - 1);
        const double* b = points + 3 * (order ? order[i] : i);
        sum += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    }
    return count > 1 ? sum / (count - 1) : 0.0;
}

// the armadillo (fetched by tools/fetch_models.sh): both curves bring consecutive vertices and
// edge midpoints far closer than a random order; Hilbert closer than Morton
static void test_armadillo_locality(void) {
    osc_mesh* mesh = test_load_model(OSC_MODEL_DIR "/armadillo.off");
    if (!mesh) return;
    int32_t vertex_count = osc_mesh_vertex_count(mesh), edge_count = osc_mesh_edge_count(mesh);
    const double* vertices = osc_mesh_vertices(mesh);
    int32_t* shuffled = malloc((size_t)vertex_count * sizeof *shuffled);
    test_rng rng = {3};
    for (int32_t i = 0; i < vertex_count; ++i) shuffled[i] = i;
    shuffle(shuffled, vertex_count, &rng);
    double file_order = mean_step(vertices, vertex_count, NULL);
    double random_order = mean_step(vertices, vertex_count, shuffled);
    double steps[2], edge_steps[2], edge_file_order = 0.0, seconds[2];
    double* midpoints = malloc(3 * (size_t)edge_count * sizeof *midpoints);
    for (int curve = 0; curve < 2; ++curve) {
        osc_mesh* reordered = NULL;
        double start = test_seconds();
        CHECK_STATUS(osc_mesh_reorder(mesh, (osc_curve)curve, &reordered, NULL, NULL), OSC_OK);
        seconds[curve] = test_seconds() - start;
        steps[curve] = mean_step(osc_mesh_vertices(reordered), vertex_count, NULL);
        for (int pass = 0; pass < 2; ++pass) {
            const osc_mesh* which = pass == 0 ? mesh : reordered;
            const int32_t* edges = osc_mesh_edges(which);
            const double* v = osc_mesh_vertices(which);
            for (int32_t e = 0; e < edge_count; ++e)
                for (int a = 0; a < 3; ++a)
                    midpoints[3 * e + a] = 0.5 * (v[3 * edges[2 * e] + a] + v[3 * edges[2 * e + 1] + a]);
            if (pass == 0)
                edge_file_order = mean_step(midpoints, edge_count, NULL);
            else
                edge_steps[curve] = mean_step(midpoints, edge_count, NULL);
        }
        osc_mesh_destroy(reordered);
    }
    printf("  armadillo, %d vertices: mean distance between consecutive vertices: file order %.3f, "
           "random %.3f, Morton %.3f, Hilbert %.3f\n",
           vertex_count, file_order, random_order, steps[0], steps[1]);
    printf("  %d edges: mean distance between consecutive edge midpoints: lexicographic %.3f, "
           "Morton %.3f, Hilbert %.3f\n",
           edge_count, edge_file_order, edge_steps[0], edge_steps[1]);
    printf("  reorder time: Morton %.1f ms, Hilbert %.1f ms\n", 1e3 * seconds[0], 1e3 * seconds[1]);
    CHECK(steps[0] < random_order / 10 && steps[1] < random_order / 10);
    CHECK(steps[1] < steps[0]);
    CHECK(edge_steps[1] < edge_steps[0] && edge_steps[0] < edge_file_order);
    free(midpoints);
    free(shuffled);
    osc_mesh_destroy(mesh);
}

int main(void) {
    RUN(test_hilbert_steps_between_face_neighbours);
    RUN(test_morton_order_of_a_grid);
    RUN(test_ties_and_errors);
    RUN(test_reorder_mesh);
    RUN(test_armadillo_locality);
    return test_finish();
}
