// test_mesh_bvh.c: the mesh BVH against brute force. Closest points against a loop over every
// triangle with an independent point-triangle distance (plane projection, else the nearest edge),
// with the feature, its index and the barycentric coordinates checked for consistency and ties
// checked to go to the lowest triangle index; winding numbers against the exact sum of the
// triangles' solid angles (error measured for beta = 1, 2, 4); signed distances against both;
// batches bit for bit against single calls. Meshes: a cube (every Voronoi region), a sphere and a
// torus from marching cubes, random soups, degenerate triangles, a closed mesh with holes, and the
// real models of tools/fetch_models.sh and data/.

#include "osculate/isosurface.h"
#include "osculate/mesh.h"
#include "osculate/sdf.h"

#include "mesh_test_util.h"

// ---------------------------------------------------------------------------------------------
// a mesh under test with its BVH

typedef struct model {
    const char* label;
    osc_mesh* mesh;
    osc_mesh_bvh* bvh;
    const double* vertices;
    const int32_t* triangles;
    const int32_t* edges;
    int32_t triangle_count, edge_count;
    double size;      // diagonal of the bounding box
    double scale;     // the larger of size and the largest |coordinate|: the scale of rounding
    double* distance; // [triangle_count] scratch: brute-force distance of each triangle
} model;

// takes ownership of `mesh` and builds its BVH; on failure nothing is left to release
static int model_init(model* m, osc_mesh* mesh, const char* label) {
    memset(m, 0, sizeof *m);
    m->label = label;
    if (!mesh) return 0;
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &m->bvh), OSC_OK);
    if (!m->bvh) {
        osc_mesh_destroy(mesh);
        return 0;
    }
    m->mesh = mesh;
    m->vertices = osc_mesh_vertices(mesh);
    m->triangles = osc_mesh_triangles(mesh);
    m->edges = osc_mesh_edges(mesh);
    m->triangle_count = osc_mesh_triangle_count(mesh);
    m->edge_count = osc_mesh_edge_count(mesh);
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(m->bvh, &lo, &hi);
    m->size = osc_length(osc_sub(hi, lo));
    m->scale = fmax(
        m->size, fmax(fmax(fmax(fabs(lo.x), fabs(lo.y)), fmax(fabs(lo.z), fabs(hi.x))), fmax(fabs(hi.y), fabs(hi.z))));
    m->distance = malloc((size_t)m->triangle_count * sizeof(double));
    return 1;
}

static void model_free(model* m) {
    osc_mesh_bvh_destroy(m->bvh);
    osc_mesh_destroy(m->mesh);
    free(m->distance);
    memset(m, 0, sizeof *m);
}

static osc_vec3 corner(const model* m, int32_t triangle, int k) {
    const double* v = m->vertices + 3 * (size_t)m->triangles[3 * (size_t)triangle + (size_t)k];
    return osc_v3(v[0], v[1], v[2]);
}

static osc_mesh* mesh_from_arrays(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                                  int32_t triangle_count) {
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_OK);
    return mesh;
}

static osc_mesh* sphere_mesh(int resolution) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_sphere(1.0, &sdf), OSC_OK);
    osc_mesh* mesh = test_extract_mesh(sdf, resolution);
    osc_sdf_destroy(sdf);
    return mesh;
}

static osc_mesh* torus_mesh(int resolution) {
    osc_sdf* sdf = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 0.35, &sdf), OSC_OK);
    osc_mesh* mesh = test_extract_mesh(sdf, resolution);
    osc_sdf_destroy(sdf);
    return mesh;
}

// ---------------------------------------------------------------------------------------------
// oracles

// squared distance from p to the segment [a, b], closest point in q
static double oracle_segment(osc_vec3 a, osc_vec3 b, osc_vec3 p, osc_vec3* q) {
    osc_vec3 d = osc_sub(b, a);
    double length2 = osc_dot(d, d);
    double t = length2 > 0.0 ? osc_dot(osc_sub(p, a), d) / length2 : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    *q = osc_add_scaled(a, d, t);
    return osc_length_squared(osc_sub(p, *q));
}

// squared distance from p to triangle abc: the projection onto the plane when it falls inside,
// else the nearest of the three edges (always the edges for a degenerate triangle)
static double oracle_triangle(osc_vec3 a, osc_vec3 b, osc_vec3 c, osc_vec3 p, osc_vec3* q) {
    osc_vec3 n = osc_cross(osc_sub(b, a), osc_sub(c, a));
    double nn = osc_dot(n, n);
    double scale = osc_length_squared(osc_sub(b, a)) * osc_length_squared(osc_sub(c, a));
    if (nn > 1e-24 * scale) {
        osc_vec3 projection = osc_add_scaled(p, n, -osc_dot(osc_sub(p, a), n) / nn);
        double sa = osc_dot(osc_cross(osc_sub(b, a), osc_sub(projection, a)), n);
        double sb = osc_dot(osc_cross(osc_sub(c, b), osc_sub(projection, b)), n);
        double sc = osc_dot(osc_cross(osc_sub(a, c), osc_sub(projection, c)), n);
        if (sa >= 0.0 && sb >= 0.0 && sc >= 0.0) {
            *q = projection;
            return osc_length_squared(osc_sub(p, projection));
        }
    }
    osc_vec3 candidate;
    double best = oracle_segment(a, b, p, q);
    double d2 = oracle_segment(b, c, p, &candidate);
    if (d2 < best) best = d2, *q = candidate;
    d2 = oracle_segment(c, a, p, &candidate);
    if (d2 < best) best = d2, *q = candidate;
    return best;
}

// brute-force distance to the mesh; fills m->distance and returns the minimum
static double oracle_closest(const model* m, osc_vec3 p) {
    double best = INFINITY;
    for (int32_t t = 0; t < m->triangle_count; ++t) {
        osc_vec3 q;
        m->distance[t] = sqrt(oracle_triangle(corner(m, t, 0), corner(m, t, 1), corner(m, t, 2), p, &q));
        if (m->distance[t] < best) best = m->distance[t];
    }
    return best;
}

// solid angle of triangle abc seen from p (Van Oosterom & Strackee)
static double oracle_solid_angle(osc_vec3 a, osc_vec3 b, osc_vec3 c, osc_vec3 p) {
    a = osc_sub(a, p), b = osc_sub(b, p), c = osc_sub(c, p);
    double la = osc_length(a), lb = osc_length(b), lc = osc_length(c);
    double det = osc_dot(a, osc_cross(b, c));
    double den = la * lb * lc + osc_dot(a, b) * lc + osc_dot(b, c) * la + osc_dot(c, a) * lb;
    return 2.0 * atan2(det, den);
}

// exact winding number: the sum of every triangle's solid angle over 4 pi
static double oracle_winding(const model* m, osc_vec3 p) {
    double sum = 0.0;
    for (int32_t t = 0; t < m->triangle_count; ++t)
        sum += oracle_solid_angle(corner(m, t, 0), corner(m, t, 1), corner(m, t, 2), p);
    return sum / (4.0 * TEST_PI);
}

// the lowest triangle that holds vertices u and v (v < 0: only u) and whose brute-force distance
// is within tol of `best`
static int32_t lowest_tied(const model* m, int32_t u, int32_t v, double best, double tol) {
    for (int32_t t = 0; t < m->triangle_count; ++t) {
        const int32_t* tri = m->triangles + 3 * (size_t)t;
        int has_u = tri[0] == u || tri[1] == u || tri[2] == u;
        int has_v = v < 0 || tri[0] == v || tri[1] == v || tri[2] == v;
        if (has_u && has_v && fabs(m->distance[t] - best) <= tol) return t;
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------
// the closest-point check: distance against brute force, the point on its triangle, the
// barycentric coordinates, the feature and its index, and the tie rule; returns the error and, in
// `reference` (nullable), the brute-force distance

typedef struct closest_error {
    double relative; // largest |d - brute| / brute where brute > 1e-3 size
    double absolute; // largest |d - brute| / size
} closest_error;

static double check_closest_ref(const model* m, osc_vec3 p, double* reference) {
    osc_mesh_closest c;
    double distance = osc_mesh_bvh_closest(m->bvh, p, &c);
    double best = oracle_closest(m, p);
    if (reference) *reference = best;
    double tol = 1e-12 * best + 1e-14 * m->scale;
    CHECK_MSG(fabs(distance - best) <= tol, "%s: at (%.17g, %.17g, %.17g) distance %.17g, brute %.17g", m->label, p.x,
              p.y, p.z, distance, best);
    CHECK(distance == c.distance);
    CHECK_NEAR(osc_length(osc_sub(p, c.point)), distance, 1e-14 * (distance + m->scale));
    if (c.triangle < 0 || c.triangle >= m->triangle_count) {
        CHECK_MSG(0, "%s: triangle %d out of range", m->label, (int)c.triangle);
        return INFINITY;
    }
    CHECK_NEAR(m->distance[c.triangle], best, tol); // a closest triangle
    osc_vec3 combination = osc_v3(0, 0, 0);
    double sum = 0.0;
    int zeros = 0, ones = 0, zero_at = -1, one_at = -1;
    for (int k = 0; k < 3; ++k) {
        CHECK(c.barycentric[k] >= 0.0 && c.barycentric[k] <= 1.0);
        combination = osc_add_scaled(combination, corner(m, c.triangle, k), c.barycentric[k]);
        sum += c.barycentric[k];
        if (c.barycentric[k] == 0.0) zeros += 1, zero_at = k;
        if (c.barycentric[k] == 1.0) ones += 1, one_at = k;
    }
    CHECK_NEAR(sum, 1.0, 1e-14);
    CHECK_NEAR(osc_length(osc_sub(combination, c.point)), 0.0, 1e-14 * m->scale);
    const int32_t* tri = m->triangles + 3 * (size_t)c.triangle;
    if (c.feature == OSC_MESH_FEATURE_FACE) {
        CHECK_MSG(zeros == 0, "%s: face with a zero barycentric", m->label);
        CHECK(c.feature_index == c.triangle);
    } else if (c.feature == OSC_MESH_FEATURE_EDGE) {
        CHECK_MSG(zeros == 1 && ones == 0, "%s: edge with %d zero barycentrics", m->label, zeros);
        int32_t u = tri[(zero_at + 1) % 3], v = tri[(zero_at + 2) % 3];
        int32_t lo = u < v ? u : v, hi = u < v ? v : u;
        CHECK_MSG(c.feature_index >= 0 && c.feature_index < m->edge_count && m->edges[2 * c.feature_index] == lo &&
                      m->edges[2 * c.feature_index + 1] == hi,
                  "%s: edge index %d is not the edge (%d, %d)", m->label, (int)c.feature_index, (int)lo, (int)hi);
        CHECK_MSG(c.triangle == lowest_tied(m, u, v, best, tol), "%s: edge tie went to triangle %d", m->label,
                  (int)c.triangle);
    } else {
        CHECK(c.feature == OSC_MESH_FEATURE_VERTEX);
        CHECK_MSG(ones == 1 && zeros == 2, "%s: vertex with barycentrics (%g, %g, %g)", m->label, c.barycentric[0],
                  c.barycentric[1], c.barycentric[2]);
        CHECK(one_at >= 0 && c.feature_index == tri[one_at]);
        CHECK_MSG(c.triangle == lowest_tied(m, c.feature_index, -1, best, tol), "%s: vertex tie went to triangle %d",
                  m->label, (int)c.triangle);
    }
    return fabs(distance - best);
}

static void check_closest(const model* m, osc_vec3 p) { check_closest_ref(m, p, NULL); }

// a random point on a random triangle
static osc_vec3 random_surface_point(const model* m, test_rng* rng) { return test_random_surface_point(m->mesh, rng); }

static osc_vec3 random_in_ball(test_rng* rng, double radius) {
    for (;;) {
        osc_vec3 x = osc_v3(test_uniform(rng, -1, 1), test_uniform(rng, -1, 1), test_uniform(rng, -1, 1));
        if (osc_length_squared(x) <= 1.0) return osc_scale(x, radius);
    }
}

static osc_vec3 random_in_box(const model* m, test_rng* rng, double grow) {
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(m->bvh, &lo, &hi);
    osc_vec3 pad = osc_scale(osc_sub(hi, lo), grow);
    lo = osc_sub(lo, pad), hi = osc_add(hi, pad);
    return osc_v3(test_uniform(rng, lo.x, hi.x), test_uniform(rng, lo.y, hi.y), test_uniform(rng, lo.z, hi.z));
}

// closest points near the surface (within 5% of the size), on it, at vertices, in the bounding box
// and far away; returns the largest errors
static closest_error check_closest_many(const model* m, test_rng* rng, int count) {
    closest_error worst = {0, 0};
    for (int i = 0; i < count; ++i) {
        osc_vec3 p;
        switch (i % 5) {
            case 0: p = osc_add(random_surface_point(m, rng), random_in_ball(rng, 0.05 * m->size)); break;
            case 1: p = random_surface_point(m, rng); break;
            case 2: p = corner(m, (int32_t)(test_rng_next(rng) % (uint64_t)m->triangle_count), i % 3); break;
            case 3: p = random_in_box(m, rng, 0.25); break;
            default: p = osc_scale(random_in_ball(rng, 1.0), 50.0 * m->size); break;
        }
        double reference = 0.0;
        double e = check_closest_ref(m, p, &reference);
        worst.absolute = fmax(worst.absolute, e / m->size);
        if (reference > 1e-3 * m->size) worst.relative = fmax(worst.relative, e / reference);
    }
    return worst;
}

// ---------------------------------------------------------------------------------------------
// the cube [-1, 1]^3: every Voronoi region, exact distances and the tie rule

static const int32_t cube_triangles[12][3] = {
    {0, 2, 3}, {0, 3, 1}, // z = -1
    {4, 5, 7}, {4, 7, 6}, // z = +1
    {0, 1, 5}, {0, 5, 4}, // y = -1
    {2, 6, 7}, {2, 7, 3}, // y = +1
    {0, 4, 6}, {0, 6, 2}, // x = -1
    {1, 3, 7}, {1, 7, 5}, // x = +1
};

// vertex i is (x, y, z) with x = bit 0, y = bit 1, z = bit 2 (0: -1, 1: +1)
static osc_vec3 cube_corner(int i) { return osc_v3(i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? 1.0 : -1.0); }

static osc_mesh* cube_mesh(void) {
    double vertices[8][3];
    for (int i = 0; i < 8; ++i) {
        osc_vec3 v = cube_corner(i);
        vertices[i][0] = v.x, vertices[i][1] = v.y, vertices[i][2] = v.z;
    }
    return mesh_from_arrays(&vertices[0][0], 8, &cube_triangles[0][0], 12);
}

// the lowest cube triangle holding vertices u and v (v < 0: only u)
static int32_t cube_lowest(int u, int v) {
    for (int t = 0; t < 12; ++t) {
        const int32_t* tri = cube_triangles[t];
        if ((tri[0] == u || tri[1] == u || tri[2] == u) && (v < 0 || tri[0] == v || tri[1] == v || tri[2] == v))
            return t;
    }
    return -1;
}

static int32_t edge_index(const model* m, int32_t u, int32_t v) {
    int32_t lo = u < v ? u : v, hi = u < v ? v : u;
    for (int32_t e = 0; e < m->edge_count; ++e)
        if (m->edges[2 * e] == lo && m->edges[2 * e + 1] == hi) return e;
    return -1;
}

static void expect_feature(const model* m, osc_vec3 p, osc_mesh_feature feature, int32_t index, int32_t triangle,
                           double distance, const char* what) {
    osc_mesh_closest c;
    double d = osc_mesh_bvh_closest(m->bvh, p, &c);
    CHECK_MSG(c.feature == feature && c.feature_index == index && c.triangle == triangle,
              "cube %s: got feature %d index %d triangle %d, expected %d %d %d", what, (int)c.feature,
              (int)c.feature_index, (int)c.triangle, (int)feature, (int)index, (int)triangle);
    CHECK_NEAR(d, distance, 1e-15);
    check_closest(m, p);
}

static void test_cube_regions(void) {
    model m;
    if (!model_init(&m, cube_mesh(), "cube")) return;
    CHECK_NEAR(osc_mesh_volume(m.mesh), 8.0, 1e-14);
    for (int32_t t = 0; t < 12; ++t) { // face regions: above each triangle's centroid
        osc_vec3 a = corner(&m, t, 0), b = corner(&m, t, 1), c = corner(&m, t, 2);
        osc_vec3 normal = osc_normalize(osc_cross(osc_sub(b, a), osc_sub(c, a)));
        osc_vec3 centroid = osc_scale(osc_add(osc_add(a, b), c), 1.0 / 3.0);
        expect_feature(&m, osc_add_scaled(centroid, normal, 0.5), OSC_MESH_FEATURE_FACE, t, t, 0.5, "face");
        // the face diagonal (the edge shared by the two triangles of a side), from outside
        if (t % 2 == 0) {
            osc_vec3 on_diagonal = osc_add_scaled(a, osc_sub(c, a), 0.3);
            expect_feature(&m, osc_add_scaled(on_diagonal, normal, 0.25), OSC_MESH_FEATURE_EDGE,
                           edge_index(&m, cube_triangles[t][0], cube_triangles[t][2]), t, 0.25, "diagonal");
        }
    }
    for (int u = 0; u < 8; ++u) { // vertex regions and the 12 cube edges
        expect_feature(&m, osc_scale(cube_corner(u), 1.5), OSC_MESH_FEATURE_VERTEX, u, cube_lowest(u, -1),
                       0.5 * sqrt(3.0), "vertex");
        for (int bit = 1; bit < 8; bit <<= 1) {
            int v = u | bit;
            if (v == u) continue;
            osc_vec3 p = osc_scale(osc_add(cube_corner(u), cube_corner(v)), 0.75); // 1.5 x midpoint
            p = osc_add_scaled(p, osc_sub(cube_corner(v), cube_corner(u)), 0.15);  // off the middle
            expect_feature(&m, p, OSC_MESH_FEATURE_EDGE, edge_index(&m, u, v), cube_lowest(u, v), sqrt(0.5), "edge");
        }
    }
    test_rng rng = {11};
    for (int i = 0; i < 200; ++i) { // inside: distance to the nearest side, negative sign
        osc_vec3 p =
            osc_v3(test_uniform(&rng, -0.9, 0.9), test_uniform(&rng, -0.9, 0.9), test_uniform(&rng, -0.9, 0.9));
        double expected = fmin(fmin(1.0 - fabs(p.x), 1.0 - fabs(p.y)), 1.0 - fabs(p.z));
        CHECK_NEAR(osc_mesh_bvh_signed_distance(m.bvh, p, NULL), -expected, 1e-15);
        CHECK_NEAR(osc_mesh_bvh_winding_number(m.bvh, p, 2.0), 1.0, 1e-12);
        check_closest(&m, p);
    }
    osc_vec3 center = osc_v3(0, 0, 0);
    CHECK_NEAR(oracle_winding(&m, center), 1.0, 1e-15); // the oracle itself
    CHECK_NEAR(oracle_winding(&m, osc_v3(3, 0.5, -0.2)), 0.0, 1e-15);
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(m.bvh, &lo, &hi);
    CHECK(lo.x == -1 && lo.y == -1 && lo.z == -1 && hi.x == 1 && hi.y == 1 && hi.z == 1);
    model_free(&m);
}

// ---------------------------------------------------------------------------------------------
// marching-cubes meshes, random soups, degenerate triangles

static void test_closest_isosurfaces(void) {
    test_rng rng = {21};
    model m;
    if (model_init(&m, sphere_mesh(24), "sphere")) {
        closest_error e = check_closest_many(&m, &rng, 1000);
        printf("  sphere (%d triangles): closest distance error max %.1e relative, %.1e of the size\n",
               (int)m.triangle_count, e.relative, e.absolute);
    }
    model_free(&m);
    if (model_init(&m, torus_mesh(40), "torus")) {
        closest_error e = check_closest_many(&m, &rng, 1000);
        printf("  torus (%d triangles): closest distance error max %.1e relative, %.1e of the size\n",
               (int)m.triangle_count, e.relative, e.absolute);
    }
    model_free(&m);
}

// a mesh whose unique edges follow a Hilbert curve instead of the lexicographic order: edge indices
// and vertex indices of the features still match osc_mesh_edges and the vertex numbering
static void test_closest_reordered(void) {
    osc_mesh* torus = torus_mesh(24);
    osc_mesh* reordered = NULL;
    if (torus) CHECK_STATUS(osc_mesh_reorder(torus, OSC_CURVE_HILBERT, &reordered, NULL, NULL), OSC_OK);
    osc_mesh_destroy(torus);
    model m;
    if (!model_init(&m, reordered, "reordered torus")) return;
    int sorted = 1;
    for (int32_t e = 1; e < m.edge_count; ++e)
        sorted &= m.edges[2 * e - 2] < m.edges[2 * e] ||
                  (m.edges[2 * e - 2] == m.edges[2 * e] && m.edges[2 * e - 1] < m.edges[2 * e + 1]);
    CHECK(!sorted); // the map from triangle edges to unique edges cannot rely on the order
    test_rng rng = {35};
    check_closest_many(&m, &rng, 600);
    model_free(&m);
}

// the torus moved a million sizes away from the origin: boxes are stored relative to the mesh's
// centre, so pruning and exactness do not depend on where the mesh is
static void test_far_from_origin(void) {
    osc_mesh* torus = torus_mesh(24);
    if (!torus) return;
    int32_t vertex_count = osc_mesh_vertex_count(torus);
    double* moved = malloc(3 * (size_t)vertex_count * sizeof(double));
    const double offset[3] = {1e6, -2e6, 3e5};
    for (int32_t i = 0; i < 3 * vertex_count; ++i) moved[i] = osc_mesh_vertices(torus)[i] + offset[i % 3];
    model m;
    if (model_init(&m, mesh_from_arrays(moved, vertex_count, osc_mesh_triangles(torus), osc_mesh_triangle_count(torus)),
                   "moved torus")) {
        test_rng rng = {37};
        check_closest_many(&m, &rng, 600);
        for (int i = 0; i < 40; ++i) {
            osc_vec3 p = osc_add(random_surface_point(&m, &rng), random_in_ball(&rng, 0.1 * m.size));
            // rounding level (measured 4.4e-15)
            CHECK_NEAR(osc_mesh_bvh_winding_number(m.bvh, p, 1e6), oracle_winding(&m, p), 5e-13);
        }
    }
    model_free(&m);
    free(moved);
    osc_mesh_destroy(torus);
}

static void test_closest_soups(void) {
    test_rng rng = {31};
    for (int round = 0; round < 6; ++round) {
        int32_t triangle_count = round == 0 ? 1 : 5 + 60 * round;
        int32_t vertex_count = 3 * triangle_count;
        double* vertices = malloc(3 * (size_t)vertex_count * sizeof(double));
        int32_t* triangles = malloc(3 * (size_t)triangle_count * sizeof(int32_t));
        for (int32_t t = 0; t < triangle_count; ++t) {
            osc_vec3 center = osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1));
            double size = pow(10.0, test_uniform(&rng, -3, 0));
            for (int k = 0; k < 3; ++k) {
                osc_vec3 v = osc_add(center, random_in_ball(&rng, size));
                vertices[9 * t + 3 * k] = v.x, vertices[9 * t + 3 * k + 1] = v.y, vertices[9 * t + 3 * k + 2] = v.z;
                triangles[3 * t + k] = 3 * t + k;
            }
        }
        model m;
        if (model_init(&m, mesh_from_arrays(vertices, vertex_count, triangles, triangle_count), "soup"))
            check_closest_many(&m, &rng, 400);
        // the winding number of a soup is defined too: against the exact sum
        for (int i = 0; i < 50 && m.bvh; ++i) {
            osc_vec3 p = random_in_box(&m, &rng, 0.2);
            CHECK_NEAR(osc_mesh_bvh_winding_number(m.bvh, p, 1e6), oracle_winding(&m, p), 1e-12);
        }
        model_free(&m);
        free(vertices);
        free(triangles);
    }
}

// centroids at x = 1.3^-k (each SAH split peels off a few triangles, which would make the tree as
// deep as the mesh is long without the depth limit) and many identical triangles (coincident
// centroids): the tree stays shallow enough for the fixed query stacks, the answers exact
static void test_deep_distributions(void) {
    enum { COUNT = 3000 };
    double* vertices = malloc(9 * (size_t)COUNT * sizeof(double));
    int32_t* triangles = malloc(3 * (size_t)COUNT * sizeof(int32_t));
    for (int32_t t = 0; t < COUNT; ++t) {
        double x = t < 2000 ? pow(1.3, -(double)t) : 0.5; // the last 1000 identical
        const double corners[3][3] = {{x, 0, 0}, {x, 1e-3, 0}, {x, 0, 1e-3}};
        for (int k = 0; k < 3; ++k) {
            memcpy(vertices + 9 * t + 3 * k, corners[k], sizeof corners[k]);
            triangles[3 * t + k] = 3 * t + k;
        }
    }
    model m;
    if (model_init(&m, mesh_from_arrays(vertices, 3 * COUNT, triangles, COUNT), "deep")) {
        test_rng rng = {45};
        check_closest_many(&m, &rng, 300);
        for (int i = 0; i < 20; ++i) {
            osc_vec3 p = random_in_box(&m, &rng, 0.5);
            // rounding level (measured 3.9e-16)
            CHECK_NEAR(osc_mesh_bvh_winding_number(m.bvh, p, 1e6), oracle_winding(&m, p), 5e-14);
        }
    }
    model_free(&m);
    free(vertices);
    free(triangles);
}

static void test_degenerate_triangles(void) {
    const double vertices[][3] = {
        {0, 0, 0},    {1, 0, 0},      {2, 0, 0},      // 0-2: collinear, exactly
        {0, 1, 0},    {0, 1, 0},      {1, 1, 1},      // 3-5: two corners at one position
        {3, 3, 3},    {3, 3, 3},      {3, 3, 3},      // 6-8: all three at one position (a point)
        {0, 0, 5},    {1, 0, 5},      {2, 1e-14, 5},  // 9-11: a sliver
        {0, 2, 0},    {1e-9, 2.5, 0}, {2e-9, 3, 0},   // 12-14: nearly collinear needle
        {-1, -1, -1}, {-0.5, -1, -1}, {-1, -0.5, -1}, // 15-17: a proper triangle
    };
    const int32_t triangles[][3] = {{0, 1, 2},    {3, 4, 5},    {6, 7, 8}, {9, 10, 11},
                                    {12, 13, 14}, {15, 16, 17}, {2, 0, 1}, {1, 2, 0}};
    model m;
    if (!model_init(&m, mesh_from_arrays(&vertices[0][0], 18, &triangles[0][0], 8), "degenerate")) return;
    test_rng rng = {41};
    check_closest_many(&m, &rng, 2000);
    for (int i = 0; i < 300; ++i) { // points near the degenerate ones
        osc_vec3 p = osc_add(corner(&m, (int32_t)(test_rng_next(&rng) % 5), i % 3), random_in_ball(&rng, 0.8));
        check_closest(&m, p);
        CHECK(isfinite(osc_mesh_bvh_winding_number(m.bvh, p, 2.0)));
        CHECK(isfinite(osc_mesh_bvh_signed_distance(m.bvh, p, NULL)));
    }
    // on the collinear triangle: a point of its segment at distance 0, never its face
    osc_mesh_closest c;
    CHECK(osc_mesh_bvh_closest(m.bvh, osc_v3(1.5, 0.5, 0), &c) == 0.5);
    CHECK(c.feature != OSC_MESH_FEATURE_FACE);
    CHECK(c.triangle == 0); // triangles 6 and 7 repeat it: the tie goes to the lowest
    CHECK(osc_mesh_bvh_closest(m.bvh, osc_v3(3, 3, 4), &c) == 1.0);
    CHECK(c.triangle == 2 && c.feature == OSC_MESH_FEATURE_VERTEX && c.feature_index == 6);
    model_free(&m);
}

// ---------------------------------------------------------------------------------------------
// winding numbers

// bounds on |w - exact| for beta = 1, 2, 4: the largest errors measured on every mesh of this file
// (0.354, 0.073, 0.015, the torus and the armadillo) with a margin
#define WINDING_ERROR_1 0.5
#define WINDING_ERROR_2 0.11
#define WINDING_ERROR_4 0.03

// the approximation against the exact sum at `count` points (near the surface and in the box)
static void check_winding(const model* m, test_rng* rng, int count) {
    struct {
        double beta1, beta2, beta4; // largest |w - exact| for beta = 1, 2, 4
    } e = {0, 0, 0};
    for (int i = 0; i < count; ++i) {
        osc_vec3 p = i % 2 ? random_in_box(m, rng, 0.2)
                           : osc_add(random_surface_point(m, rng), random_in_ball(rng, 0.05 * m->size));
        double exact = oracle_winding(m, p);
        double w1 = osc_mesh_bvh_winding_number(m->bvh, p, 1.0);
        double w2 = osc_mesh_bvh_winding_number(m->bvh, p, 2.0);
        double w4 = osc_mesh_bvh_winding_number(m->bvh, p, 4.0);
        e.beta1 = fmax(e.beta1, fabs(w1 - exact));
        e.beta2 = fmax(e.beta2, fabs(w2 - exact));
        e.beta4 = fmax(e.beta4, fabs(w4 - exact));
        // all exact: rounding level (measured 1.5e-14)
        CHECK_NEAR(osc_mesh_bvh_winding_number(m->bvh, p, 1e6), exact, 1.5e-12);
        CHECK(osc_mesh_bvh_winding_number(m->bvh, p, 0.0) == w2); // the default
        CHECK(osc_mesh_bvh_winding_number(m->bvh, p, -1.0) == w2);
        CHECK(osc_mesh_bvh_winding_number(m->bvh, p, NAN) == w2);
    }
    printf("  %s: winding number max error beta=1 %.2e, beta=2 %.2e, beta=4 %.2e\n", m->label, e.beta1, e.beta2,
           e.beta4);
    CHECK_MSG(e.beta1 < WINDING_ERROR_1 && e.beta2 < WINDING_ERROR_2 && e.beta4 < WINDING_ERROR_4,
              "%s: winding errors %g %g %g", m->label, e.beta1, e.beta2, e.beta4);
    CHECK(e.beta4 <= e.beta2 && e.beta2 <= e.beta1);
}

// a closed mesh: 1 inside and 0 outside to within the beta = 2 error, points off the surface
static void check_inside_outside(const model* m, osc_sdf* sdf, test_rng* rng, double band) {
    int tested = 0;
    for (int i = 0; i < 400; ++i) {
        osc_vec3 p = random_in_box(m, rng, 0.2);
        double phi = osc_sdf_eval(sdf, p, NULL, NULL);
        if (fabs(phi) < band) continue; // the mesh is within `band` of the analytic surface
        tested += 1;
        double w = osc_mesh_bvh_winding_number(m->bvh, p, 2.0);
        CHECK_NEAR(w, phi < 0.0 ? 1.0 : 0.0, WINDING_ERROR_2);
        double sd = osc_mesh_bvh_signed_distance(m->bvh, p, NULL);
        CHECK_MSG((sd < 0.0) == (phi < 0.0), "%s: sign at (%g, %g, %g): %g vs analytic %g", m->label, p.x, p.y, p.z, sd,
                  phi);
    }
    CHECK_MSG(tested >= 300, "%s: only %d of 400 points away from the surface", m->label, tested);
}

static void test_winding_isosurfaces(void) {
    test_rng rng = {51};
    model m;
    osc_sdf* sdf = NULL;
    if (model_init(&m, sphere_mesh(24), "sphere")) {
        check_winding(&m, &rng, 300);
        CHECK_STATUS(osc_sdf_create_sphere(1.0, &sdf), OSC_OK);
        check_inside_outside(&m, sdf, &rng, 0.02);
        osc_sdf_destroy(sdf);
    }
    model_free(&m);
    if (model_init(&m, torus_mesh(40), "torus")) {
        check_winding(&m, &rng, 300);
        CHECK_STATUS(osc_sdf_create_torus(1.0, 0.35, &sdf), OSC_OK);
        check_inside_outside(&m, sdf, &rng, 0.02);
        osc_sdf_destroy(sdf);
    }
    model_free(&m);
}

// a sphere with three small holes: points a few hole diameters away keep the right sign
static void test_winding_holes(void) {
    osc_mesh* full = sphere_mesh(32);
    if (!full) return;
    const osc_vec3 holes[3] = {{1, 0, 0}, {0, -1, 0}, {0.57735, 0.57735, 0.57735}};
    const double hole_radius = 0.06;
    int32_t n = osc_mesh_triangle_count(full), kept = 0;
    const int32_t* all = osc_mesh_triangles(full);
    const double* vertices = osc_mesh_vertices(full);
    int32_t* triangles = malloc(3 * (size_t)n * sizeof(int32_t));
    for (int32_t t = 0; t < n; ++t) {
        osc_vec3 centroid = osc_v3(0, 0, 0);
        for (int k = 0; k < 3; ++k) {
            const double* v = vertices + 3 * all[3 * t + k];
            centroid = osc_add_scaled(centroid, osc_v3(v[0], v[1], v[2]), 1.0 / 3.0);
        }
        int in_hole = 0;
        for (int h = 0; h < 3; ++h) in_hole |= osc_length(osc_sub(centroid, holes[h])) < hole_radius;
        if (in_hole) continue;
        memcpy(triangles + 3 * kept, all + 3 * t, 3 * sizeof(int32_t));
        kept += 1;
    }
    CHECK(kept < n && kept > n - 40); // a few triangles removed
    model m;
    if (model_init(&m, mesh_from_arrays(vertices, osc_mesh_vertex_count(full), triangles, kept), "holes")) {
        osc_mesh_topology topology;
        osc_mesh_get_topology(m.mesh, &topology);
        CHECK(topology.boundary_edges > 0 && !topology.closed);
        test_rng rng = {61};
        int tested = 0;
        for (int i = 0; i < 2000; ++i) {
            osc_vec3 p = random_in_box(&m, &rng, 0.3);
            double r = osc_length(p), clearance = INFINITY;
            for (int h = 0; h < 3; ++h) clearance = fmin(clearance, osc_length(osc_sub(p, holes[h])));
            if (clearance < 3 * 2 * hole_radius || fabs(r - 1.0) < 0.02) continue;
            tested += 1;
            double w = osc_mesh_bvh_winding_number(m.bvh, p, 2.0);
            CHECK_MSG((w > 0.5) == (r < 1.0), "holes: w = %g at radius %g", w, r);
            CHECK((osc_mesh_bvh_signed_distance(m.bvh, p, NULL) < 0.0) == (r < 1.0));
        }
        CHECK(tested > 500);
        double at_hole = oracle_winding(&m, holes[0]); // fractional at the hole itself
        CHECK_MSG(at_hole > 0.2 && at_hole < 0.8, "holes: exact w at a hole %g", at_hole);
        CHECK_NEAR(osc_mesh_bvh_winding_number(m.bvh, holes[0], 2.0), at_hole, WINDING_ERROR_2);
    }
    model_free(&m);
    free(triangles);
    osc_mesh_destroy(full);
}

// ---------------------------------------------------------------------------------------------
// signed distance, batches, bad input

static int same_closest(const osc_mesh_closest* a, const osc_mesh_closest* b) {
    return memcmp(&a->point, &b->point, sizeof a->point) == 0 && a->triangle == b->triangle &&
           memcmp(&a->distance, &b->distance, sizeof a->distance) == 0 && a->feature == b->feature &&
           a->feature_index == b->feature_index && memcmp(a->barycentric, b->barycentric, sizeof a->barycentric) == 0;
}

static void check_signed_distance(const model* m, osc_vec3 p) {
    osc_mesh_closest c, d;
    double sd = osc_mesh_bvh_signed_distance(m->bvh, p, &c);
    double distance = osc_mesh_bvh_closest(m->bvh, p, &d);
    CHECK(fabs(sd) == distance);
    CHECK(same_closest(&c, &d));
    double w = osc_mesh_bvh_winding_number(m->bvh, p, 2.0);
    CHECK_MSG((sd < 0.0) == (distance > 0.0 && w > 0.5), "%s: sd %g with w %g", m->label, sd, w);
}

static void check_batch(const model* m, test_rng* rng, size_t count) {
    double* points = malloc(3 * count * sizeof(double));
    double* single = malloc(count * sizeof(double));
    double* single_points = malloc(3 * count * sizeof(double));
    double* batch = malloc(count * sizeof(double));
    double* batch_points = malloc(3 * count * sizeof(double));
    for (size_t i = 0; i < count; ++i) {
        osc_vec3 p = i % 97 == 5 ? osc_v3(NAN, 0, 1) : random_in_box(m, rng, 0.2);
        points[3 * i] = p.x, points[3 * i + 1] = p.y, points[3 * i + 2] = p.z;
        osc_mesh_closest c;
        single[i] = osc_mesh_bvh_signed_distance(m->bvh, p, &c);
        single_points[3 * i] = c.point.x, single_points[3 * i + 1] = c.point.y, single_points[3 * i + 2] = c.point.z;
        if (i % 7 == 0 && !isnan(p.x)) check_signed_distance(m, p);
    }
    for (int threads = 0; threads <= 2; ++threads) {
        memset(batch, 0, count * sizeof(double));
        memset(batch_points, 0, 3 * count * sizeof(double));
        CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(m->bvh, points, count, batch, batch_points, threads), OSC_OK);
        CHECK_MSG(memcmp(batch, single, count * sizeof(double)) == 0, "%s: batch differs (threads %d)", m->label,
                  threads);
        CHECK(memcmp(batch_points, single_points, 3 * count * sizeof(double)) == 0);
        CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(m->bvh, points, count, batch, NULL, threads), OSC_OK);
        CHECK(memcmp(batch, single, count * sizeof(double)) == 0);
    }
    free(points), free(single), free(single_points), free(batch), free(batch_points);
}

static void test_signed_distance(void) {
    test_rng rng = {71};
    model m;
    if (model_init(&m, torus_mesh(32), "torus")) {
        check_batch(&m, &rng, 100);  // below the threading threshold
        check_batch(&m, &rng, 3001); // threaded
        for (int i = 0; i < 300; ++i) check_signed_distance(&m, random_surface_point(&m, &rng));
    }
    model_free(&m);
}

static void test_bad_input(void) {
    osc_mesh_bvh* bvh = (osc_mesh_bvh*)&bvh;
    CHECK_STATUS(osc_mesh_bvh_create(NULL, &bvh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(bvh == NULL);
    const double vertices[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int32_t triangle[] = {0, 1, 2};
    osc_mesh* empty = mesh_from_arrays(vertices, 3, triangle, 0);
    CHECK_STATUS(osc_mesh_bvh_create(empty, &bvh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "no triangles") != NULL);
    osc_mesh_destroy(empty);
    osc_mesh* one = mesh_from_arrays(vertices, 3, triangle, 1);
    CHECK_STATUS(osc_mesh_bvh_create(one, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_bvh_create(one, &bvh), OSC_OK);
    osc_mesh_destroy(one); // the BVH holds its own copy
    osc_mesh_bvh_destroy(NULL);
    if (!bvh) return;
    osc_mesh_closest c;
    CHECK(osc_mesh_bvh_closest(bvh, osc_v3(0.2, 0.2, 1.0), &c) == 1.0); // after the mesh is gone
    CHECK(c.feature == OSC_MESH_FEATURE_FACE && c.triangle == 0);
    CHECK_NEAR(osc_mesh_bvh_closest(bvh, osc_v3(2, 0, 0), NULL), 1.0, 0.0); // NULL output is fine
    const osc_vec3 bad[] = {{NAN, 0, 0}, {0, NAN, 0}, {0, 0, INFINITY}, {-INFINITY, NAN, 1}};
    for (int i = 0; i < 4; ++i) {
        CHECK(isnan(osc_mesh_bvh_closest(bvh, bad[i], &c)));
        CHECK(isnan(c.distance) && isnan(c.point.x) && c.triangle == -1 && c.feature_index == -1);
        CHECK(isnan(osc_mesh_bvh_winding_number(bvh, bad[i], 2.0)));
        CHECK(isnan(osc_mesh_bvh_signed_distance(bvh, bad[i], &c)));
        CHECK(isnan(c.point.x));
    }
    double points[6] = {0.1, 0.1, 0.5, NAN, 0, 0}, out[2], closest[6];
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, points, 2, out, closest, 1), OSC_OK);
    CHECK(out[0] == 0.5 && isnan(out[1]) && isnan(closest[3]));
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(NULL, points, 2, out, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, NULL, 2, out, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, points, 2, NULL, NULL, 1), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, points, 2, out, NULL, -1), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_bvh_signed_distance_batch(bvh, NULL, 0, NULL, NULL, 0), OSC_OK);
    CHECK(isnan(osc_mesh_bvh_closest(NULL, osc_v3(0, 0, 0), &c)));
    CHECK(isnan(osc_mesh_bvh_winding_number(NULL, osc_v3(0, 0, 0), 2.0)));
    // a far point (coordinates 1e200): the squared distance overflows, no crash, an infinite
    // distance and still a triangle
    CHECK(osc_mesh_bvh_closest(bvh, osc_v3(1e200, 0, 0), &c) == INFINITY);
    CHECK(c.triangle == 0);
    osc_vec3 lo, hi;
    osc_mesh_bvh_bounds(bvh, &lo, &hi);
    CHECK(lo.x == 0 && lo.y == 0 && lo.z == 0 && hi.x == 1 && hi.y == 1 && hi.z == 0);
    osc_mesh_bvh_destroy(bvh);
}

// an allocator that fails from its `budget`-th allocation on and counts what is outstanding
typedef struct failing_allocator {
    int budget, outstanding;
} failing_allocator;

static void* failing_allocate(size_t size, void* context) {
    failing_allocator* state = context;
    if (state->budget-- <= 0) return NULL;
    state->outstanding += 1;
    return malloc(size);
}

static void failing_release(void* pointer, void* context) {
    failing_allocator* state = context;
    if (pointer) state->outstanding -= 1;
    free(pointer);
}

// every allocation of osc_mesh_bvh_create failing in turn: OSC_ERR_NO_MEMORY, nothing leaked
static void test_out_of_memory(void) {
    osc_mesh* mesh = torus_mesh(12);
    if (!mesh) return;
    int failures = 0, succeeded = 0;
    for (int budget = 0; budget < 40 && !succeeded; ++budget) {
        failing_allocator state = {budget, 0};
        osc_allocator allocator = {failing_allocate, failing_release, &state};
        osc_set_allocator(&allocator);
        osc_mesh_bvh* bvh = NULL;
        osc_status status = osc_mesh_bvh_create(mesh, &bvh);
        if (status == OSC_OK) {
            succeeded = 1;
            CHECK(bvh != NULL && state.outstanding > 0);
            CHECK(osc_mesh_bvh_closest(bvh, osc_v3(2, 0, 0), NULL) > 0.0);
            osc_mesh_bvh_destroy(bvh);
        } else {
            failures += 1;
            CHECK(status == OSC_ERR_NO_MEMORY && bvh == NULL);
            CHECK(strstr(osc_last_error(), "osc_mesh_bvh_create") != NULL);
        }
        CHECK_MSG(state.outstanding == 0, "budget %d: %d allocations leaked", budget, state.outstanding);
        osc_set_allocator(NULL);
    }
    CHECK(succeeded && failures >= 8);
    osc_mesh_destroy(mesh);
}

// ---------------------------------------------------------------------------------------------
// real models

static void check_real_model(const char* path, const char* label, int closed) {
    model m;
    if (!model_init(&m, test_load_model(path), label)) return;
    osc_mesh_topology topology;
    osc_mesh_get_topology(m.mesh, &topology);
    CHECK_MSG(topology.closed == closed, "%s: closed %d, expected %d", label, (int)topology.closed, closed);
    test_rng rng = {81};
    closest_error worst = check_closest_many(&m, &rng, 150);
    check_winding(&m, &rng, 30);
    check_batch(&m, &rng, 1000);
    osc_vec3 lo = osc_v3(INFINITY, INFINITY, INFINITY), hi = osc_neg(lo), bvh_lo, bvh_hi;
    for (int32_t t = 0; t < m.triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            osc_vec3 v = corner(&m, t, k);
            lo = osc_v3(fmin(lo.x, v.x), fmin(lo.y, v.y), fmin(lo.z, v.z));
            hi = osc_v3(fmax(hi.x, v.x), fmax(hi.y, v.y), fmax(hi.z, v.z));
        }
    osc_mesh_bvh_bounds(m.bvh, &bvh_lo, &bvh_hi);
    CHECK(memcmp(&lo, &bvh_lo, sizeof lo) == 0 && memcmp(&hi, &bvh_hi, sizeof hi) == 0);
    // sign: consistent with the winding number, and with the exact one away from 1/2
    for (int i = 0; i < 60; ++i) {
        osc_vec3 p = osc_add(random_surface_point(&m, &rng), random_in_ball(&rng, 0.05 * m.size));
        check_signed_distance(&m, p);
        double exact = oracle_winding(&m, p);
        if (fabs(exact - 0.5) > WINDING_ERROR_2)
            CHECK((osc_mesh_bvh_signed_distance(m.bvh, p, NULL) < 0.0) == (exact > 0.5));
        if (closed) CHECK(fabs(exact - 1.0) < 1e-6 || fabs(exact) < 1e-6 || oracle_closest(&m, p) < 1e-9 * m.size);
    }
    printf("  %s (%d triangles, %d boundary edges): closest distance error max %.1e relative, %.1e of "
           "the size\n",
           label, (int)m.triangle_count, (int)topology.boundary_edges, worst.relative, worst.absolute);
    model_free(&m);
}

static void test_real_models(void) {
    check_real_model(OSC_MODEL_DIR "/armadillo.off", "armadillo", 1);
    check_real_model(OSC_MODEL_DIR "/bunny00.off", "bunny00", 1);
    check_real_model(OSC_MODEL_DIR "/ChineseDragon-10kv.off", "dragon", 0);
    check_real_model(OSC_DATA_DIR "/bunny.obj", "npm bunny", 1);
    check_real_model(OSC_DATA_DIR "/teapot.obj", "teapot", 0);
}

int main(void) {
    RUN(test_bad_input);
    RUN(test_cube_regions);
    RUN(test_closest_isosurfaces);
    RUN(test_closest_reordered);
    RUN(test_far_from_origin);
    RUN(test_closest_soups);
    RUN(test_deep_distributions);
    RUN(test_degenerate_triangles);
    RUN(test_winding_isosurfaces);
    RUN(test_winding_holes);
    RUN(test_signed_distance);
    RUN(test_out_of_memory);
    RUN(test_real_models);
    return test_finish();
}
