// test_mesh_groups.c: convex groups (mesh.h: osc_mesh_groups_from_hulls, osc_mesh_groups_cluster,
// osc_mesh_edge_groups; Beker et al. 2026 §IV-D.1). A subdivided box split by its two half boxes must give
// exactly the sign of x (ties at x = 0 to the lower hull index), whatever the hulls' winding and
// with degenerate triangles in them; random points inside, between and outside overlapping boxes
// and an octahedron must go to the hull an independent analytic plane distance picks; k-means must
// find well-separated spheres exactly, be deterministic, end with every vertex nearest its own
// group's centroid (centroids computed here), number groups by first vertex and drop empty ones;
// edge groups must equal the corner groups and, on the split box, cross exactly where the corners
// lie on both sides; every bad argument must be refused with a message naming it, and no
// allocation failure may leak.

#include "osculate/mesh.h"

#include "mesh_test_util.h"

// ---------------------------------------------------------------------------------------------
// meshes

// the box [lo, hi] as 8 corners (bit 0: x, bit 1: y, bit 2: z at hi) and 12 triangles, outward;
// the triangles whose bit is set in `flip_mask` are turned inside out; `degenerate` adds the
// midpoint of the edge from corner 0 to corner 1 with a zero-area triangle on it
static osc_mesh* box_hull(const double lo[3], const double hi[3], unsigned flip_mask, int degenerate) {
    static const int32_t quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                        {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    double vertices[9][3];
    int32_t triangles[13][3];
    for (int c = 0; c < 8; ++c)
        for (int axis = 0; axis < 3; ++axis) vertices[c][axis] = (c >> axis) & 1 ? hi[axis] : lo[axis];
    for (int f = 0; f < 6; ++f) {
        const int32_t* q = quads[f];
        int32_t first[3] = {q[0], q[1], q[2]}, second[3] = {q[0], q[2], q[3]};
        memcpy(triangles[2 * f], first, sizeof first);
        memcpy(triangles[2 * f + 1], second, sizeof second);
    }
    for (int t = 0; t < 12; ++t)
        if (flip_mask >> t & 1u) {
            int32_t swap = triangles[t][1];
            triangles[t][1] = triangles[t][2];
            triangles[t][2] = swap;
        }
    int32_t vertex_count = 8, triangle_count = 12;
    if (degenerate) {
        for (int axis = 0; axis < 3; ++axis) vertices[8][axis] = 0.5 * (vertices[0][axis] + vertices[1][axis]);
        triangles[12][0] = 0, triangles[12][1] = 8, triangles[12][2] = 1;
        vertex_count = 9, triangle_count = 13;
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], vertex_count, &triangles[0][0], triangle_count, &mesh), OSC_OK);
    return mesh;
}

// the octahedron |x - centre|_1 <= radius, its triangles turned inside out where `flip_mask` says;
// `sliver` adds a point a fraction of the way along the edge from +x to +z (not exactly on it
// after rounding) and the sliver triangle on that edge, whose computed normal is rounding noise
static osc_mesh* octahedron_hull(const double centre[3], double radius, unsigned flip_mask, int sliver) {
    double vertices[7][3];
    for (int v = 0; v < 6; ++v) {
        for (int axis = 0; axis < 3; ++axis) vertices[v][axis] = centre[axis];
        vertices[v][v / 2] += v % 2 ? -radius : radius; // 0: +x, 1: -x, 2: +y, ...
    }
    int32_t triangles[9][3];
    for (int t = 0; t < 8; ++t) {
        int32_t x = t & 1, y = 2 + (t >> 1 & 1), z = 4 + (t >> 2 & 1);
        int odd = (t & 1) ^ (t >> 1 & 1) ^ (t >> 2 & 1); // the octant's orientation
        if (odd ^ (int)(flip_mask >> t & 1u))
            triangles[t][0] = x, triangles[t][1] = z, triangles[t][2] = y;
        else
            triangles[t][0] = x, triangles[t][1] = y, triangles[t][2] = z;
    }
    if (sliver) { // the first fraction 1/3, 1/5, ... of the edge that rounding moves off it
        double cross = 0.0;
        for (int divisor = 3; divisor < 64 && cross == 0.0; divisor += 2) {
            double u[3], w[3];
            for (int axis = 0; axis < 3; ++axis) {
                vertices[6][axis] = vertices[0][axis] + (vertices[4][axis] - vertices[0][axis]) / divisor;
                u[axis] = vertices[6][axis] - vertices[0][axis];
                w[axis] = vertices[4][axis] - vertices[0][axis];
            }
            cross = u[2] * w[0] - u[0] * w[2];
        }
        CHECK(cross != 0.0); // not exactly collinear: the test means something
        triangles[8][0] = 0, triangles[8][1] = 6, triangles[8][2] = 4;
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], sliver ? 7 : 6, &triangles[0][0], sliver ? 9 : 8, &mesh), OSC_OK);
    return mesh;
}

// the surface of the box [-half, half] with each face a grid of n x n squares, two triangles each
// (the faces do not share their border vertices: duplicates are fine for grouping)
static osc_mesh* subdivided_box(const double half[3], int n) {
    int32_t per_face = (n + 1) * (n + 1), vertex_count = 6 * per_face, triangle_count = 12 * n * n;
    double* vertices = malloc(3 * (size_t)vertex_count * sizeof *vertices);
    int32_t* triangles = malloc(3 * (size_t)triangle_count * sizeof *triangles);
    int32_t t = 0;
    for (int face = 0; face < 6; ++face) {
        int normal_axis = face / 2, u_axis = (normal_axis + 1) % 3, v_axis = (normal_axis + 2) % 3;
        double side = face % 2 ? -1.0 : 1.0;
        int32_t base = face * per_face;
        for (int i = 0; i <= n; ++i)
            for (int j = 0; j <= n; ++j) {
                double* p = vertices + 3 * (size_t)(base + i * (n + 1) + j);
                p[normal_axis] = side * half[normal_axis];
                p[u_axis] = half[u_axis] * (2.0 * i / n - 1.0);
                p[v_axis] = half[v_axis] * (2.0 * j / n - 1.0);
            }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                int32_t a = base + i * (n + 1) + j, b = a + n + 1, c = b + 1, d = a + 1;
                int32_t* first = triangles + 3 * t++;
                int32_t* second = triangles + 3 * t++;
                first[0] = a, first[1] = b, first[2] = c;
                second[0] = a, second[1] = c, second[2] = d;
            }
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_OK);
    free(vertices);
    free(triangles);
    return mesh;
}

// a mesh of `count` points [count][3] and no triangles
static osc_mesh* point_mesh(const double* points, int32_t count) {
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(points, count, NULL, 0, &mesh), OSC_OK);
    return mesh;
}

// a mesh of copies of `part` moved by each of `count` offsets [count][3], in that order
static osc_mesh* copies_of(const osc_mesh* part, const double* offsets, int count) {
    int32_t vertex_count = osc_mesh_vertex_count(part), triangle_count = osc_mesh_triangle_count(part);
    double* vertices = malloc(3 * (size_t)vertex_count * (size_t)count * sizeof *vertices);
    int32_t* triangles = malloc(3 * (size_t)triangle_count * (size_t)count * sizeof *triangles);
    for (int copy = 0; copy < count; ++copy) {
        for (int32_t i = 0; i < 3 * vertex_count; ++i)
            vertices[3 * (size_t)vertex_count * copy + i] = osc_mesh_vertices(part)[i] + offsets[3 * copy + i % 3];
        for (int32_t i = 0; i < 3 * triangle_count; ++i)
            triangles[3 * (size_t)triangle_count * copy + i] = osc_mesh_triangles(part)[i] + copy * vertex_count;
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count * count, triangles, triangle_count * count, &mesh), OSC_OK);
    free(vertices);
    free(triangles);
    return mesh;
}

// ---------------------------------------------------------------------------------------------
// oracles

// the edge groups must be the corner groups (brute force over osc_mesh_edges); returns the number
// of edges that cross two groups
static int32_t check_edge_groups(const osc_mesh* mesh, const int32_t* vertex_groups) {
    int32_t edge_count = osc_mesh_edge_count(mesh);
    int32_t* edge_groups = malloc(2 * ((size_t)edge_count + 1) * sizeof *edge_groups);
    CHECK_STATUS(osc_mesh_edge_groups(mesh, vertex_groups, edge_groups), OSC_OK);
    const int32_t* edges = osc_mesh_edges(mesh);
    int32_t bad = 0, crossing = 0;
    for (int32_t e = 0; e < edge_count; ++e) {
        int32_t a = vertex_groups[edges[2 * e]], b = vertex_groups[edges[2 * e + 1]];
        bad += edge_groups[2 * e] != a || edge_groups[2 * e + 1] != (a == b ? -1 : b);
        crossing += a != b;
    }
    CHECK_MSG(bad == 0, "%d of %d edge groups differ from their corner groups", bad, edge_count);
    free(edge_groups);
    return crossing;
}

// the groups must be 0..count-1, each used, numbered in order of first vertex
static void check_numbering(const int32_t* groups, int32_t vertex_count, int32_t count) {
    int32_t next = 0, bad = 0;
    for (int32_t i = 0; i < vertex_count; ++i) {
        if (groups[i] == next)
            ++next;
        else
            bad += groups[i] < 0 || groups[i] > next;
    }
    CHECK_MSG(bad == 0 && next == count, "groups not numbered 0..%d by first vertex (%d bad, %d seen)", count - 1, bad,
              next);
}

// k-means fixed point: every vertex is at least as close to the centroid of its own group as to
// any other group's (centroids computed here from the output); returns the number that are not
static int32_t kmeans_violations(const osc_mesh* mesh, const int32_t* groups, int32_t count) {
    int32_t vertex_count = osc_mesh_vertex_count(mesh);
    const double* v = osc_mesh_vertices(mesh);
    double* centroids = calloc(3 * (size_t)count, sizeof *centroids);
    int32_t* sizes = calloc((size_t)count, sizeof *sizes);
    double scale = 0.0;
    for (int32_t i = 0; i < vertex_count; ++i) {
        ++sizes[groups[i]];
        for (int a = 0; a < 3; ++a) {
            centroids[3 * groups[i] + a] += v[3 * i + a];
            scale = fmax(scale, fabs(v[3 * i + a]));
        }
    }
    for (int32_t c = 0; c < count; ++c)
        for (int a = 0; a < 3; ++a) centroids[3 * c + a] /= sizes[c];
    int32_t violations = 0;
    for (int32_t i = 0; i < vertex_count; ++i) {
        double own = 0.0;
        for (int a = 0; a < 3; ++a) own += pow(v[3 * i + a] - centroids[3 * groups[i] + a], 2);
        for (int32_t c = 0; c < count; ++c) {
            double other = 0.0;
            for (int a = 0; a < 3; ++a) other += pow(v[3 * i + a] - centroids[3 * c + a], 2);
            violations += own > other + 1e-12 * scale * scale;
        }
    }
    free(centroids);
    free(sizes);
    return violations;
}

// ---------------------------------------------------------------------------------------------
// groups from hulls

// the box [-1, 1] x [-0.5, 0.5]^2, subdivided so that vertices lie at x < 0, x = 0 and x > 0, split
// by its left and right halves (every vertex on a hull face): x < 0 goes left, x > 0 right, x = 0
// to the lower index; the same with the hulls swapped, with any winding and degenerate triangles
static void test_box_split_by_halves(void) {
    double half[3] = {1.0, 0.5, 0.5};
    osc_mesh* mesh = subdivided_box(half, 4);
    double left_lo[3] = {-1.0, -0.5, -0.5}, left_hi[3] = {0.0, 0.5, 0.5};
    double right_lo[3] = {0.0, -0.5, -0.5}, right_hi[3] = {1.0, 0.5, 0.5};
    int32_t vertex_count = osc_mesh_vertex_count(mesh);
    int32_t* groups = malloc((size_t)vertex_count * sizeof *groups);
    unsigned flips[3] = {0u, 0x5a5u, 0xfffu};
    for (int variant = 0; variant < 3; ++variant) {
        osc_mesh* left = box_hull(left_lo, left_hi, flips[variant], variant == 1);
        osc_mesh* right = box_hull(right_lo, right_hi, flips[2 - variant], variant == 2);
        if (variant == 0) CHECK(osc_mesh_volume(left) > 0.0 && osc_mesh_volume(right) < 0.0);
        if (variant == 2) CHECK(osc_mesh_volume(left) < 0.0);
        for (int swapped = 0; swapped < 2; ++swapped) {
            const osc_mesh* hulls[2] = {swapped ? right : left, swapped ? left : right};
            for (int32_t i = 0; i < vertex_count; ++i) groups[i] = -7;
            CHECK_STATUS(osc_mesh_groups_from_hulls(mesh, hulls, 2, groups), OSC_OK);
            int32_t bad = 0, counts[3] = {0, 0, 0};
            for (int32_t i = 0; i < vertex_count; ++i) {
                double x = osc_mesh_vertices(mesh)[3 * i];
                int32_t side = x < 0.0 ? 0 : x > 0.0 ? 1 : 2;
                int32_t expected = side == 2 ? 0 : swapped ? 1 - side : side;
                ++counts[side];
                bad += groups[i] != expected;
            }
            CHECK_MSG(bad == 0, "variant %d, swapped %d: %d of %d vertices in the wrong half", variant, swapped, bad,
                      vertex_count);
            CHECK(counts[0] > 0 && counts[1] > 0 && counts[2] > 0);
            // an edge crosses exactly when its corners lie on both sides of the split (x = 0 on
            // the side of the lower index)
            int32_t crossing = check_edge_groups(mesh, groups), expected_crossing = 0;
            const int32_t* edges = osc_mesh_edges(mesh);
            for (int32_t e = 0; e < osc_mesh_edge_count(mesh); ++e) {
                double xa = osc_mesh_vertices(mesh)[3 * edges[2 * e]];
                double xb = osc_mesh_vertices(mesh)[3 * edges[2 * e + 1]];
                int left_a = swapped ? xa < 0.0 : xa <= 0.0, left_b = swapped ? xb < 0.0 : xb <= 0.0;
                expected_crossing += left_a != left_b;
            }
            CHECK(crossing == expected_crossing && crossing > 0);
        }
        osc_mesh_destroy(left);
        osc_mesh_destroy(right);
    }
    free(groups);
    osc_mesh_destroy(mesh);
}

// the max signed plane distance of `p` from the box [lo, hi] (analytic)
static double box_distance(const double* p, const double lo[3], const double hi[3]) {
    double worst = -INFINITY;
    for (int a = 0; a < 3; ++a) worst = fmax(worst, fmax(lo[a] - p[a], p[a] - hi[a]));
    return worst;
}

// the max signed plane distance of `p` from the octahedron |x - centre|_1 <= radius (analytic)
static double octahedron_distance(const double* p, const double centre[3], double radius) {
    double l1 = fabs(p[0] - centre[0]) + fabs(p[1] - centre[1]) + fabs(p[2] - centre[2]);
    return (l1 - radius) / sqrt(3.0);
}

// vertices inside, between and outside hulls (two overlapping boxes, a box and an octahedron with
// mixed winding and a sliver triangle) go to the hull with the smallest analytic max plane distance; hand-picked points
// check outside-nearest, deepest-inside and the tie to the lower index
static void test_nearest_hull(void) {
    double box_lo[3][3] = {{0, 0, 0}, {3, 0, 0}, {-0.5, 0.25, 0.25}};
    double box_hi[3][3] = {{1, 1, 1}, {4, 1, 1}, {0.5, 0.75, 0.75}};
    double centre[3] = {2.0, 3.5, 0.5}, radius = 1.0;
    const osc_mesh* hulls[4];
    for (int b = 0; b < 3; ++b) hulls[b] = box_hull(box_lo[b], box_hi[b], 0x30cu * (unsigned)b, 0);
    hulls[3] = octahedron_hull(centre, radius, 0x96u, 1);
    enum { COUNT = 4000 };
    double* points = malloc(3 * COUNT * sizeof *points);
    test_rng rng = {2024};
    for (int i = 0; i < COUNT; ++i) {
        points[3 * i] = test_uniform(&rng, -2.0, 6.0);
        points[3 * i + 1] = test_uniform(&rng, -2.0, 8.0);
        points[3 * i + 2] = test_uniform(&rng, -2.0, 3.0);
    }
    osc_mesh* mesh = point_mesh(points, COUNT);
    int32_t* groups = malloc(COUNT * sizeof *groups);
    CHECK_STATUS(osc_mesh_groups_from_hulls(mesh, hulls, 4, groups), OSC_OK);
    int32_t bad = 0, near_ties = 0, exact_ties = 0, outside = 0, inside[4] = {0, 0, 0, 0}, nearest[4] = {0, 0, 0, 0};
    for (int i = 0; i < COUNT; ++i) {
        double d[4];
        for (int b = 0; b < 3; ++b) d[b] = box_distance(points + 3 * i, box_lo[b], box_hi[b]);
        d[3] = octahedron_distance(points + 3 * i, centre, radius);
        int best = 0; // exact ties (between boxes, whose planes are exact) to the lower index
        for (int h = 1; h < 4; ++h)
            if (d[h] < d[best]) best = h;
        int near = 0, octahedron_near = 0; // hulls within rounding of the best
        for (int h = 0; h < 4; ++h)
            if (d[h] - d[best] < 1e-9) ++near, octahedron_near |= h == 3;
        if (near > 1 && octahedron_near) { // rounding of the octahedron's planes may decide: skip
            ++near_ties;
            continue;
        }
        exact_ties += near > 1;
        bad += groups[i] != best;
        if (d[best] > 0.0)
            ++outside, ++nearest[best];
        else
            ++inside[best];
    }
    CHECK_MSG(bad == 0, "%d of %d points assigned to the wrong hull", bad, COUNT);
    CHECK(near_ties < 5 && exact_ties > 0);
    CHECK(outside > COUNT / 2);
    for (int h = 0; h < 4; ++h)
        CHECK_MSG(inside[h] > 0 && nearest[h] > 0, "hull %d: %d inside, %d nearest", h, inside[h], nearest[h]);
    printf("  %d random points: %d outside every hull, %d exact ties between boxes, %d near-ties "
           "with the octahedron skipped\n",
           COUNT, outside, exact_ties, near_ties);

    // by hand: nearer to box 0 or 1 from between them; exactly between them (1 each): the lower;
    // inside boxes 0 and 2: the one it is deeper inside; above and beside the octahedron
    // (0.29 from the octahedron, 1 from box 0: a plane from the sliver would make it 1.5)
    double picked[7][3] = {{1.4, 0.5, 0.5}, {2.6, 0.5, 0.5}, {2.0, 0.5, 0.5}, {0.3, 0.5, 0.5},
                           {0.1, 0.5, 0.5}, {2.0, 6.0, 4.0}, {2.0, 2.0, 0.5}};
    int32_t expected[7] = {0, 1, 0, 0, 2, 3, 3};
    osc_mesh* few = point_mesh(&picked[0][0], 7);
    int32_t few_groups[7];
    CHECK_STATUS(osc_mesh_groups_from_hulls(few, hulls, 4, few_groups), OSC_OK);
    for (int i = 0; i < 7; ++i)
        CHECK_MSG(few_groups[i] == expected[i], "point %d: hull %d, expected %d", i, few_groups[i], expected[i]);
    // one hull: everything is in group 0
    CHECK_STATUS(osc_mesh_groups_from_hulls(few, hulls + 3, 1, few_groups), OSC_OK);
    for (int i = 0; i < 7; ++i) CHECK(few_groups[i] == 0);
    osc_mesh_destroy(few);

    // a flat hull (a square in z = 0) is a slab of zero thickness: distance |z|
    double square[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    int32_t square_triangles[2][3] = {{0, 1, 2}, {0, 2, 3}};
    osc_mesh* flat = NULL;
    CHECK_STATUS(osc_mesh_create(&square[0][0], 4, &square_triangles[0][0], 2, &flat), OSC_OK);
    double above_lo[3] = {0, 0, 1}, above_hi[3] = {1, 1, 2}, below_lo[3] = {0, 0, -2}, below_hi[3] = {1, 1, -1};
    osc_mesh* above = box_hull(above_lo, above_hi, 0, 0);
    osc_mesh* below = box_hull(below_lo, below_hi, 0, 0);
    const osc_mesh* slab[3] = {flat, above, below};
    double probes[4][3] = {{0.5, 0.5, 0.3}, {0.5, 0.5, -0.3}, {0.5, 0.5, 0.8}, {0.5, 0.5, -0.8}};
    osc_mesh* probe_mesh = point_mesh(&probes[0][0], 4);
    int32_t probe_groups[4];
    CHECK_STATUS(osc_mesh_groups_from_hulls(probe_mesh, slab, 3, probe_groups), OSC_OK);
    CHECK(probe_groups[0] == 0 && probe_groups[1] == 0 && probe_groups[2] == 1 && probe_groups[3] == 2);
    osc_mesh_destroy(probe_mesh);
    osc_mesh_destroy(above);
    osc_mesh_destroy(below);
    osc_mesh_destroy(flat);

    free(groups);
    free(points);
    osc_mesh_destroy(mesh);
    for (int h = 0; h < 4; ++h) osc_mesh_destroy((osc_mesh*)hulls[h]);
}

// on the bunny, two hulls (the boxes of its lower and upper halves along y) give the split by y
// (vertices at exactly the split plane to the lower hull), and coordinates at the limit
// OSC_MESH_MAX_COORDINATE do no harm
static void test_bunny_halves_and_huge_coordinates(void) {
    osc_mesh* bunny = test_load_model(OSC_DATA_DIR "/bunny.obj");
    if (!bunny) return;
    int32_t vertex_count = osc_mesh_vertex_count(bunny);
    const double* v = osc_mesh_vertices(bunny);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < vertex_count; ++i)
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], v[3 * i + a]), hi[a] = fmax(hi[a], v[3 * i + a]);
    double split = 0.5 * (lo[1] + hi[1]);
    double lower_hi[3] = {hi[0], split, hi[2]}, upper_lo[3] = {lo[0], split, lo[2]};
    const osc_mesh* hulls[2] = {box_hull(lo, lower_hi, 0x0f0u, 0), box_hull(upper_lo, hi, 0, 1)};
    int32_t* groups = malloc((size_t)vertex_count * sizeof *groups);
    CHECK_STATUS(osc_mesh_groups_from_hulls(bunny, hulls, 2, groups), OSC_OK);
    int32_t bad = 0, upper = 0;
    for (int32_t i = 0; i < vertex_count; ++i) {
        bad += groups[i] != (v[3 * i + 1] > split);
        upper += v[3 * i + 1] > split;
    }
    CHECK_MSG(bad == 0, "%d bunny vertices on the wrong side of y = %g", bad, split);
    CHECK(upper > 0 && upper < vertex_count);
    int32_t crossing = check_edge_groups(bunny, groups);
    CHECK(crossing > 0 && crossing < osc_mesh_edge_count(bunny) / 10);
    osc_mesh_destroy((osc_mesh*)hulls[0]);
    osc_mesh_destroy((osc_mesh*)hulls[1]);
    free(groups);
    osc_mesh_destroy(bunny);

    // hulls spanning all the coordinates a mesh may have, points at the limits (beyond them, near
    // DBL_MAX, no mesh may hold)
    double beyond[1][3] = {{0x1.fffffffffffffp1023, 0, 0}};
    osc_mesh* refused = NULL;
    CHECK_STATUS(osc_mesh_create(&beyond[0][0], 1, NULL, 0, &refused), OSC_ERR_INVALID_ARGUMENT);
    double big = OSC_MESH_MAX_COORDINATE, huge_lo[2][3] = {{-big, -big, -big}, {0.75 * big, -big, -big}};
    double huge_hi[2][3] = {{0.5 * big, big, big}, {big, big, big}};
    const osc_mesh* huge[2] = {box_hull(huge_lo[0], huge_hi[0], 0x3u, 0), box_hull(huge_lo[1], huge_hi[1], 0, 0)};
    double points[4][3] = {{big, 0, 0}, {-big, big, -big}, {0.7 * big, 0, 0}, {0.6 * big, 0, 0}};
    osc_mesh* mesh = point_mesh(&points[0][0], 4);
    int32_t huge_groups[4];
    CHECK_STATUS(osc_mesh_groups_from_hulls(mesh, huge, 2, huge_groups), OSC_OK);
    CHECK(huge_groups[0] == 1 && huge_groups[1] == 0 && huge_groups[2] == 1 && huge_groups[3] == 0);
    int32_t count = 0;
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 2, huge_groups, &count), OSC_OK);
    CHECK(count == 2 && huge_groups[0] == 0 && huge_groups[2] == 0 && huge_groups[3] == 0 && huge_groups[1] == 1);
    osc_mesh_destroy(mesh);
    osc_mesh_destroy((osc_mesh*)huge[0]);
    osc_mesh_destroy((osc_mesh*)huge[1]);
}

// ---------------------------------------------------------------------------------------------
// groups by k-means

// copies of a marching-cubes sphere far apart: k-means finds exactly the spheres, numbered in the
// order of their vertices; the result is the same every time
static void test_cluster_separated_spheres(void) {
    osc_sdf* sphere = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sphere), OSC_OK);
    osc_mesh* part = test_extract_mesh(sphere, 16);
    osc_sdf_destroy(sphere);
    if (!part) return;
    int32_t part_count = osc_mesh_vertex_count(part);
    CHECK(part_count > 100);
    double two[2][3] = {{-4, 0, 0}, {4, 0.5, 0}};
    double three[3][3] = {{0, 5, 0}, {-6, 0, 1}, {6, 0, -1}};
    for (int spheres = 2; spheres <= 3; ++spheres) {
        osc_mesh* mesh = copies_of(part, spheres == 2 ? &two[0][0] : &three[0][0], spheres);
        int32_t vertex_count = osc_mesh_vertex_count(mesh);
        int32_t* groups = malloc((size_t)vertex_count * sizeof *groups);
        int32_t* again = malloc((size_t)vertex_count * sizeof *again);
        int32_t count = -1;
        CHECK_STATUS(osc_mesh_groups_cluster(mesh, spheres, groups, &count), OSC_OK);
        CHECK(count == spheres);
        int32_t bad = 0;
        for (int32_t i = 0; i < vertex_count; ++i) bad += groups[i] != i / part_count;
        CHECK_MSG(bad == 0, "%d spheres: %d of %d vertices not grouped with their sphere", spheres, bad, vertex_count);
        CHECK_STATUS(osc_mesh_groups_cluster(mesh, spheres, again, NULL), OSC_OK);
        CHECK(memcmp(groups, again, (size_t)vertex_count * sizeof *groups) == 0);
        CHECK(kmeans_violations(mesh, groups, count) == 0);
        int32_t crossing = check_edge_groups(mesh, groups);
        CHECK(crossing == 0); // the spheres share no edge
        free(again);
        free(groups);
        osc_mesh_destroy(mesh);
    }
    osc_mesh_destroy(part);
}

// on the bunny with 2 to 24 groups: deterministic, numbered by first vertex, every vertex nearest
// its own centroid, groups compact (k-means lowers the spread as groups are added)
static void test_cluster_bunny(void) {
    osc_mesh* bunny = test_load_model(OSC_DATA_DIR "/bunny.obj");
    if (!bunny) return;
    int32_t vertex_count = osc_mesh_vertex_count(bunny);
    int32_t* groups = malloc((size_t)vertex_count * sizeof *groups);
    int32_t* again = malloc((size_t)vertex_count * sizeof *again);
    int32_t sizes[4] = {2, 8, 16, 24};
    double previous_spread = INFINITY;
    for (int s = 0; s < 4; ++s) {
        int32_t count = -1, count_again = -1;
        double start = test_seconds();
        CHECK_STATUS(osc_mesh_groups_cluster(bunny, sizes[s], groups, &count), OSC_OK);
        double seconds = test_seconds() - start;
        CHECK_STATUS(osc_mesh_groups_cluster(bunny, sizes[s], again, &count_again), OSC_OK);
        CHECK(count == sizes[s] && count_again == count);
        CHECK(memcmp(groups, again, (size_t)vertex_count * sizeof *groups) == 0);
        check_numbering(groups, vertex_count, count);
        int32_t violations = kmeans_violations(bunny, groups, count);
        CHECK_MSG(violations == 0, "%d groups: %d vertex-centroid pairs break the k-means property", sizes[s],
                  violations);
        // the mean squared distance to the own centroid
        double* centroids = calloc(3 * (size_t)count, sizeof *centroids);
        int32_t* members = calloc((size_t)count, sizeof *members);
        const double* v = osc_mesh_vertices(bunny);
        for (int32_t i = 0; i < vertex_count; ++i) {
            ++members[groups[i]];
            for (int a = 0; a < 3; ++a) centroids[3 * groups[i] + a] += v[3 * i + a];
        }
        double spread = 0.0;
        for (int32_t i = 0; i < vertex_count; ++i)
            for (int a = 0; a < 3; ++a)
                spread += pow(v[3 * i + a] - centroids[3 * groups[i] + a] / members[groups[i]], 2) / vertex_count;
        CHECK(spread < previous_spread);
        previous_spread = spread;
        int32_t crossing = check_edge_groups(bunny, groups);
        CHECK(crossing > 0);
        printf("  bunny (%d vertices), %d groups: mean squared spread %.4f, %d crossing edges, %.2f ms\n", vertex_count,
               count, spread, crossing, 1e3 * seconds);
        free(centroids);
        free(members);
    }
    free(again);
    free(groups);
    osc_mesh_destroy(bunny);
}

// more groups than vertices (or as many): one vertex each, even for duplicates; fewer groups than
// distinct positions drops the empty clusters; one group; no vertices
static void test_cluster_counts(void) {
    double points[6][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {5, 1, 2}, {5, 1, 2}, {5, 1, 2}};
    osc_mesh* mesh = point_mesh(&points[0][0], 6);
    int32_t groups[6], count = -1;
    for (int32_t group_count = 6; group_count <= 9; group_count += 3) {
        CHECK_STATUS(osc_mesh_groups_cluster(mesh, group_count, groups, &count), OSC_OK);
        CHECK(count == 6);
        for (int i = 0; i < 6; ++i) CHECK(groups[i] == i);
    }
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 4, groups, &count), OSC_OK);
    CHECK(count == 2);
    for (int i = 0; i < 6; ++i) CHECK(groups[i] == i / 3);
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 1, groups, &count), OSC_OK);
    CHECK(count == 1);
    for (int i = 0; i < 6; ++i) CHECK(groups[i] == 0);
    osc_mesh_destroy(mesh);

    // four points on a line: two groups split the middle, 3 groups pair the closest two
    double line[4][3] = {{0, 0, 0}, {1, 0, 0}, {10, 0, 0}, {10.5, 0, 0}};
    mesh = point_mesh(&line[0][0], 4);
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 2, groups, &count), OSC_OK);
    CHECK(count == 2 && groups[0] == 0 && groups[1] == 0 && groups[2] == 1 && groups[3] == 1);
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 3, groups, &count), OSC_OK);
    CHECK(count == 3 && groups[0] == 0 && groups[1] == 1 && groups[2] == 2 && groups[3] == 2);
    osc_mesh_destroy(mesh);

    // ties to the lower index: {0, 2, 4} seeds at 2, then 0 (farthest, tied with 4); in
    // {0, 2, 4, 6} the point 4 is as far from the centroid 2 as from 6, at every iteration
    double three[3][3] = {{0, 0, 0}, {2, 0, 0}, {4, 0, 0}};
    mesh = point_mesh(&three[0][0], 3);
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 2, groups, &count), OSC_OK);
    CHECK(count == 2 && groups[0] == 0 && groups[1] == 1 && groups[2] == 1);
    osc_mesh_destroy(mesh);
    double four[4][3] = {{0, 0, 0}, {2, 0, 0}, {4, 0, 0}, {6, 0, 0}};
    mesh = point_mesh(&four[0][0], 4);
    CHECK_STATUS(osc_mesh_groups_cluster(mesh, 2, groups, &count), OSC_OK);
    CHECK(count == 2 && groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 1);
    CHECK(kmeans_violations(mesh, groups, count) == 0);
    osc_mesh_destroy(mesh);

    osc_mesh* empty = point_mesh(NULL, 0);
    count = -1;
    CHECK_STATUS(osc_mesh_groups_cluster(empty, 3, groups, &count), OSC_OK);
    CHECK(count == 0);
    CHECK_STATUS(osc_mesh_edge_groups(empty, groups, groups), OSC_OK);
    osc_mesh_destroy(empty);
}

// ---------------------------------------------------------------------------------------------
// errors

#define CHECK_REFUSED(expr, text)                                                                                      \
    do {                                                                                                               \
        osc_clear_error();                                                                                             \
        CHECK_STATUS(expr, OSC_ERR_INVALID_ARGUMENT);                                                                  \
        CHECK_MSG(strstr(osc_last_error(), text) != NULL, "message \"%s\" lacks \"%s\"", osc_last_error(), text);      \
    } while (0)

static void test_invalid_arguments(void) {
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    osc_mesh* box = box_hull(lo, hi, 0, 0);
    double line[3][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    int32_t line_triangle[3] = {0, 1, 2};
    osc_mesh* collinear = NULL;
    CHECK_STATUS(osc_mesh_create(&line[0][0], 3, line_triangle, 1, &collinear), OSC_OK);
    osc_mesh* points = point_mesh(&line[0][0], 3);
    int32_t groups[8] = {0}, edge_groups[2 * 18];

    const osc_mesh* hulls[2] = {box, NULL};
    CHECK_REFUSED(osc_mesh_groups_from_hulls(NULL, hulls, 1, groups), "osc_mesh_groups_from_hulls: mesh is NULL");
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, NULL, 1, groups), "hulls is NULL");
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, 1, NULL), "vertex_groups is NULL");
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, 0, groups), "hull_count is 0");
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, -3, groups), "hull_count is -3");
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, 2, groups), "hulls[1] is NULL");
    hulls[1] = points;
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, 2, groups), "hulls[1] has no triangles");
    hulls[1] = collinear;
    CHECK_REFUSED(osc_mesh_groups_from_hulls(box, hulls, 2, groups), "hulls[1] has no triangle that is not degenerate");

    CHECK_REFUSED(osc_mesh_groups_cluster(NULL, 2, groups, NULL), "osc_mesh_groups_cluster: mesh is NULL");
    CHECK_REFUSED(osc_mesh_groups_cluster(box, 2, NULL, NULL), "vertex_groups is NULL");
    CHECK_REFUSED(osc_mesh_groups_cluster(box, 0, groups, NULL), "group_count is 0");
    CHECK_REFUSED(osc_mesh_groups_cluster(box, INT32_MIN, groups, NULL), "group_count is -2147483648");

    for (int i = 0; i < 8; ++i) groups[i] = i % 2;
    CHECK_REFUSED(osc_mesh_edge_groups(NULL, groups, edge_groups), "osc_mesh_edge_groups: mesh is NULL");
    CHECK_REFUSED(osc_mesh_edge_groups(box, NULL, edge_groups), "vertex_groups is NULL");
    CHECK_REFUSED(osc_mesh_edge_groups(box, groups, NULL), "edge_groups is NULL");
    groups[5] = -1;
    for (int i = 0; i < 2 * 18; ++i) edge_groups[i] = 99;
    CHECK_REFUSED(osc_mesh_edge_groups(box, groups, edge_groups), "vertex_groups[5] is negative (-1)");
    int untouched = 1;
    for (int i = 0; i < 2 * 18; ++i) untouched &= edge_groups[i] == 99;
    CHECK(untouched); // nothing written on failure
    groups[5] = 1;
    CHECK_STATUS(osc_mesh_edge_groups(box, groups, edge_groups), OSC_OK);
    CHECK(osc_mesh_edge_count(box) == 18);
    CHECK(check_edge_groups(box, groups) > 0);

    osc_mesh_destroy(points);
    osc_mesh_destroy(collinear);
    osc_mesh_destroy(box);
}

// ---------------------------------------------------------------------------------------------
// allocation failures

static struct { long attempts, fail_at, live; } alloc_state;

static void* failing_allocate(size_t size, void* context) {
    (void)context;
    if (alloc_state.attempts++ == alloc_state.fail_at) return NULL;
    void* block = malloc(size);
    if (block) ++alloc_state.live;
    return block;
}

static void failing_release(void* pointer, void* context) {
    (void)context;
    if (pointer) --alloc_state.live;
    free(pointer);
}

// failing allocation k = 0, 1, ... of each function gives OSC_ERR_NO_MEMORY naming the function
// and leaks nothing, until a call needs no more than k allocations and succeeds
static void test_allocation_failures(void) {
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    osc_mesh* box = box_hull(lo, hi, 0, 0);
    const osc_mesh* hulls[2] = {box, box};
    int32_t groups[8];
    osc_allocator allocator = {failing_allocate, failing_release, NULL};
    osc_set_allocator(&allocator);
    for (int function = 0; function < 2; ++function) {
        int bad = 0, succeeded = 0;
        for (long k = 0; k < 10 && !succeeded; ++k) {
            alloc_state.attempts = 0, alloc_state.fail_at = k, alloc_state.live = 0;
            osc_clear_error();
            osc_status status = function == 0 ? osc_mesh_groups_from_hulls(box, hulls, 2, groups)
                                              : osc_mesh_groups_cluster(box, 3, groups, NULL);
            const char* name = function == 0 ? "osc_mesh_groups_from_hulls" : "osc_mesh_groups_cluster";
            if (status == OSC_OK)
                succeeded = 1;
            else
                bad += status != OSC_ERR_NO_MEMORY || !strstr(osc_last_error(), name) ||
                       !strstr(osc_last_error(), "out of memory");
            bad += alloc_state.live != 0;
        }
        CHECK_MSG(bad == 0 && succeeded, "function %d: %d misbehaving failures, succeeded %d", function, bad,
                  succeeded);
        CHECK(alloc_state.attempts >= 2); // both functions allocate twice
    }
    osc_set_allocator(NULL);
    osc_mesh_destroy(box);
}

int main(void) {
    RUN(test_box_split_by_halves);
    RUN(test_nearest_hull);
    RUN(test_bunny_halves_and_huge_coordinates);
    RUN(test_cluster_separated_spheres);
    RUN(test_cluster_bunny);
    RUN(test_cluster_counts);
    RUN(test_invalid_arguments);
    RUN(test_allocation_failures);
    return test_finish();
}
