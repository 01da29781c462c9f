// test_mesh.c: the mesh container against analytic volumes and areas, its input validation, the
// OBJ writer against a small independent parser, and its unique edges, adjacent triangles and
// topology against brute force and hand-computed values (closed, open, non-manifold,
// inconsistently oriented, multi-component, degenerate, torus, Moebius strip).

#include "osculate/mesh.h"

#include "test_common.h"

// the unit cube [0, 1]^3 shifted by `offset`, triangles counter-clockwise seen from outside
static const int32_t cube_triangles[12][3] = {
    {0, 2, 1}, {0, 3, 2}, // z = 0, normal -z
    {4, 5, 6}, {4, 6, 7}, // z = 1, normal +z
    {0, 1, 5}, {0, 5, 4}, // y = 0, normal -y
    {3, 7, 6}, {3, 6, 2}, // y = 1, normal +y
    {0, 4, 7}, {0, 7, 3}, // x = 0, normal -x
    {1, 2, 6}, {1, 6, 5}, // x = 1, normal +x
};

// fills the 8 corners of the unit cube, shifted by `offset`
static void cube_vertices(double offset, double vertices[8][3]) {
    static const double corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                         {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (int i = 0; i < 8; ++i)
        for (int a = 0; a < 3; ++a) vertices[i][a] = corners[i][a] + offset;
}

static void test_unit_cube_volume_and_area(void) {
    double vertices[8][3];
    cube_vertices(0.0, vertices);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    CHECK(mesh != NULL);
    CHECK(osc_mesh_vertex_count(mesh) == 8);
    CHECK(osc_mesh_triangle_count(mesh) == 12);
    CHECK_NEAR(osc_mesh_volume(mesh), 1.0, 1e-15);
    CHECK_NEAR(osc_mesh_area(mesh), 6.0, 1e-15);
    osc_mesh_destroy(mesh);

    // far from the origin the centroid-relative sum keeps full precision
    cube_vertices(1e6, vertices);
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    CHECK_NEAR(osc_mesh_volume(mesh), 1.0, 1e-12);
    CHECK_NEAR(osc_mesh_area(mesh), 6.0, 1e-9);
    osc_mesh_destroy(mesh);

    // reversed triangles: negative volume, same area
    int32_t reversed[12][3];
    for (int t = 0; t < 12; ++t) {
        reversed[t][0] = cube_triangles[t][0];
        reversed[t][1] = cube_triangles[t][2];
        reversed[t][2] = cube_triangles[t][1];
    }
    cube_vertices(0.0, vertices);
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &reversed[0][0], 12, &mesh), OSC_OK);
    CHECK_NEAR(osc_mesh_volume(mesh), -1.0, 1e-15);
    CHECK_NEAR(osc_mesh_area(mesh), 6.0, 1e-15);
    osc_mesh_destroy(mesh);
}

// random tetrahedra: volume |det(b - a, c - a, d - a)| / 6, area from Heron-free cross products
static void test_random_tetrahedra(void) {
    test_rng rng = {42};
    static const int32_t triangles[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
    for (int trial = 0; trial < 100; ++trial) {
        double v[4][3];
        for (int i = 0; i < 4; ++i)
            for (int a = 0; a < 3; ++a) v[i][a] = test_uniform(&rng, -2.0, 2.0);
        osc_vec3 p[4];
        for (int i = 0; i < 4; ++i) p[i] = osc_v3(v[i][0], v[i][1], v[i][2]);
        osc_vec3 e1 = osc_sub(p[1], p[0]), e2 = osc_sub(p[2], p[0]), e3 = osc_sub(p[3], p[0]);
        double det = osc_dot(e1, osc_cross(e2, e3));
        // with this winding the faces point out when det > 0; swap two vertices otherwise
        if (det < 0) {
            for (int a = 0; a < 3; ++a) {
                double s = v[0][a];
                v[0][a] = v[1][a];
                v[1][a] = s;
            }
            osc_vec3 s = p[0];
            p[0] = p[1];
            p[1] = s;
        }
        double area = 0.0;
        for (int t = 0; t < 4; ++t) {
            osc_vec3 a = p[triangles[t][0]], b = p[triangles[t][1]], c = p[triangles[t][2]];
            area += 0.5 * osc_length(osc_cross(osc_sub(b, a), osc_sub(c, a)));
        }
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_mesh_create(&v[0][0], 4, &triangles[0][0], 4, &mesh), OSC_OK);
        CHECK_NEAR(osc_mesh_volume(mesh), fabs(det) / 6.0, 1e-13);
        CHECK_NEAR(osc_mesh_area(mesh), area, 1e-13);
        osc_mesh_destroy(mesh);
    }
}

static void test_empty_mesh_and_null_accessors(void) {
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(NULL, 0, NULL, 0, &mesh), OSC_OK);
    CHECK(mesh != NULL);
    CHECK(osc_mesh_vertex_count(mesh) == 0);
    CHECK(osc_mesh_triangle_count(mesh) == 0);
    CHECK(osc_mesh_volume(mesh) == 0.0);
    CHECK(osc_mesh_area(mesh) == 0.0);
    CHECK_STATUS(osc_mesh_write_obj(mesh, "test_mesh_empty.obj"), OSC_OK);
    remove("test_mesh_empty.obj");
    osc_mesh_destroy(mesh);

    // vertices without triangles are a valid (empty-surface) mesh too
    double point[3] = {1.0, 2.0, 3.0};
    CHECK_STATUS(osc_mesh_create(point, 1, NULL, 0, &mesh), OSC_OK);
    CHECK(osc_mesh_vertex_count(mesh) == 1);
    CHECK(osc_mesh_vertices(mesh)[2] == 3.0);
    CHECK(osc_mesh_triangles(mesh) == NULL);
    osc_mesh_destroy(mesh);

    CHECK(osc_mesh_vertex_count(NULL) == 0);
    CHECK(osc_mesh_triangle_count(NULL) == 0);
    CHECK(osc_mesh_vertices(NULL) == NULL);
    CHECK(osc_mesh_triangles(NULL) == NULL);
    CHECK(osc_mesh_volume(NULL) == 0.0);
    CHECK(osc_mesh_area(NULL) == 0.0);
    osc_mesh_destroy(NULL);
}

// the mesh owns copies: changing the caller's arrays afterwards changes nothing
static void test_mesh_copies_input(void) {
    double vertices[8][3];
    int32_t triangles[12][3];
    cube_vertices(0.0, vertices);
    memcpy(triangles, cube_triangles, sizeof triangles);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &triangles[0][0], 12, &mesh), OSC_OK);
    CHECK(osc_mesh_vertices(mesh) != &vertices[0][0]);
    CHECK(osc_mesh_triangles(mesh) != &triangles[0][0]);
    vertices[6][0] = 100.0;
    triangles[0][0] = 5;
    CHECK(osc_mesh_vertices(mesh)[18] == 1.0);
    CHECK(osc_mesh_triangles(mesh)[0] == 0);
    CHECK_NEAR(osc_mesh_volume(mesh), 1.0, 1e-15);
    osc_mesh_destroy(mesh);
}

// osc_mesh_create must fail with OSC_ERR_INVALID_ARGUMENT, reset *out to NULL, and leave a message
// containing `needle`
static void expect_invalid(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                           int32_t triangle_count, const char* needle) {
    osc_mesh* mesh = (osc_mesh*)&mesh; // a non-NULL sentinel, never dereferenced
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(mesh == NULL);
    CHECK_MSG(strstr(osc_last_error(), needle) != NULL, "message '%s' lacks '%s'", osc_last_error(), needle);
}

static void test_invalid_input(void) {
    double vertices[8][3];
    int32_t triangles[12][3];
    cube_vertices(0.0, vertices);
    memcpy(triangles, cube_triangles, sizeof triangles);
    const double* v = &vertices[0][0];
    const int32_t* t = &triangles[0][0];
    osc_mesh* mesh = NULL;

    CHECK_STATUS(osc_mesh_create(v, 8, t, 12, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "out") != NULL);
    expect_invalid(v, -1, t, 12, "vertex_count");
    expect_invalid(v, 8, t, -3, "triangle_count");
    expect_invalid(NULL, 8, t, 12, "vertices is NULL");
    expect_invalid(v, 8, NULL, 12, "triangles is NULL");

    vertices[2][1] = NAN;
    expect_invalid(v, 8, t, 12, "vertices[2] coordinate 1");
    vertices[2][1] = 1.0;
    vertices[7][2] = -INFINITY;
    expect_invalid(v, 8, t, 12, "vertices[7] coordinate 2");
    vertices[7][2] = 1.0;

    // indices are checked against the vertex count given, not the array
    expect_invalid(v, 5, t, 12, "triangles[2] index 5 out of range [0, 5)");
    triangles[11][1] = -1;
    expect_invalid(v, 8, t, 12, "triangles[11] index -1 out of range [0, 8)");
    triangles[11][1] = 6;
    triangles[4][2] = 0;
    expect_invalid(v, 8, t, 12, "triangles[4]");
    CHECK(strstr(osc_last_error(), "repeats") != NULL);
    triangles[4][2] = 5;
    CHECK_STATUS(osc_mesh_create(v, 8, t, 12, &mesh), OSC_OK);
    osc_mesh_destroy(mesh);
}

// ---------------------------------------------------------------------------------------------
// OBJ

// reads "v x y z" and "f a b c" lines written by osc_mesh_write_obj; returns false on anything else
static bool parse_obj(const char* path, double* vertices, int* vertex_count, int vertex_capacity, int32_t* triangles,
                      int* triangle_count, int triangle_capacity) {
    FILE* file = fopen(path, "r");
    if (!file) return false;
    char line[256];
    bool ok = true;
    *vertex_count = *triangle_count = 0;
    while (ok && fgets(line, sizeof line, file)) {
        char* end = NULL;
        if (line[0] == 'v' && line[1] == ' ' && *vertex_count < vertex_capacity) {
            char* cursor = line + 2;
            for (int a = 0; a < 3; ++a, cursor = end) {
                vertices[3 * *vertex_count + a] = strtod(cursor, &end);
                ok = ok && end != cursor;
            }
            ++*vertex_count;
        } else if (line[0] == 'f' && line[1] == ' ' && *triangle_count < triangle_capacity) {
            char* cursor = line + 2;
            for (int k = 0; k < 3; ++k, cursor = end) {
                triangles[3 * *triangle_count + k] = (int32_t)strtol(cursor, &end, 10);
                ok = ok && end != cursor;
            }
            ++*triangle_count;
        } else {
            ok = false;
        }
    }
    fclose(file);
    return ok;
}

static void test_obj_round_trip(void) {
    enum { vertex_count = 50, triangle_count = 40 };
    double vertices[vertex_count * 3];
    int32_t triangles[triangle_count * 3];
    test_rng rng = {7};
    for (int i = 0; i < vertex_count * 3; ++i) {
        double magnitude = pow(10.0, test_uniform(&rng, -30.0, 30.0));
        vertices[i] = (test_uniform(&rng, -1.0, 1.0) < 0 ? -1.0 : 1.0) * magnitude;
    }
    vertices[0] = 0.1; // not exactly representable: needs all 17 digits
    vertices[1] = -0.0;
    vertices[2] = 5e-324; // the smallest subnormal
    for (int t = 0; t < triangle_count; ++t) {
        int32_t a = (int32_t)(test_rng_next(&rng) % vertex_count);
        triangles[3 * t] = a;
        triangles[3 * t + 1] = (a + 1 + (int32_t)(test_rng_next(&rng) % 10)) % vertex_count;
        triangles[3 * t + 2] = (a + 11 + (int32_t)(test_rng_next(&rng) % 10)) % vertex_count;
    }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_OK);
    const char* path = "test_mesh_round_trip.obj";
    CHECK_STATUS(osc_mesh_write_obj(mesh, path), OSC_OK);

    double read_vertices[vertex_count * 3];
    int32_t read_triangles[triangle_count * 3];
    int read_vertex_count = 0, read_triangle_count = 0;
    CHECK(parse_obj(path, read_vertices, &read_vertex_count, vertex_count, read_triangles, &read_triangle_count,
                    triangle_count));
    CHECK(read_vertex_count == vertex_count);
    CHECK(read_triangle_count == triangle_count);
    int coordinate_mismatches = 0, index_mismatches = 0;
    for (int i = 0; i < read_vertex_count * 3; ++i)
        coordinate_mismatches += memcmp(&read_vertices[i], &vertices[i], sizeof(double)) != 0;
    for (int i = 0; i < read_triangle_count * 3; ++i)
        index_mismatches += read_triangles[i] != triangles[i] + 1; // OBJ is 1-based
    CHECK_MSG(coordinate_mismatches == 0, "%d coordinates differ", coordinate_mismatches);
    CHECK_MSG(index_mismatches == 0, "%d indices differ", index_mismatches);
    remove(path);
    osc_mesh_destroy(mesh);
}

static void test_obj_errors(void) {
    double vertices[8][3];
    cube_vertices(0.0, vertices);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    const char* path = "no_such_directory_for_osculate/cube.obj";
    CHECK_STATUS(osc_mesh_write_obj(mesh, path), OSC_ERR_IO);
    CHECK_MSG(strstr(osc_last_error(), path) != NULL, "message '%s' lacks the path", osc_last_error());
    CHECK_STATUS(osc_mesh_write_obj(mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "path") != NULL);
    CHECK_STATUS(osc_mesh_write_obj(NULL, "unused.obj"), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "mesh") != NULL);
#ifdef __linux__
    // a write that fails after the open succeeded: /dev/full accepts the open, fails the flush
    FILE* probe = fopen("/dev/full", "w");
    if (probe) {
        fclose(probe);
        CHECK_STATUS(osc_mesh_write_obj(mesh, "/dev/full"), OSC_ERR_IO);
        CHECK(strstr(osc_last_error(), "/dev/full") != NULL);
    }
#endif
    osc_mesh_destroy(mesh);
}

// ---------------------------------------------------------------------------------------------
// unique edges and topology, against a brute-force oracle and hand-computed values

// the topology and edges of a mesh by brute force: every vertex pair, every triangle
typedef struct brute_edges {
    int32_t count;
    int32_t edges[512][2];
    int32_t triangles[512][2]; // the first two adjacent triangles, -1 when fewer
    osc_mesh_topology topology;
} brute_edges;

// true when the triangle runs from a to b (b follows a cyclically)
static bool runs_from(const int32_t* corner, int32_t a, int32_t b) {
    for (int k = 0; k < 3; ++k)
        if (corner[k] == a && corner[(k + 1) % 3] == b) return true;
    return false;
}

static bool has_vertex(const int32_t* corner, int32_t v) { return corner[0] == v || corner[1] == v || corner[2] == v; }

static void brute_force_topology(const double* vertices, int32_t vertex_count, const int32_t* triangles,
                                 int32_t triangle_count, brute_edges* out) {
    memset(out, 0, sizeof *out);
    osc_mesh_topology* topology = &out->topology;
    for (int32_t a = 0; a < vertex_count; ++a) {
        for (int32_t b = a + 1; b < vertex_count; ++b) {
            int32_t adjacent = 0, first[2] = {-1, -1};
            bool forward[2] = {false, false};
            for (int32_t t = 0; t < triangle_count; ++t) {
                const int32_t* corner = triangles + 3 * t;
                if (!has_vertex(corner, a) || !has_vertex(corner, b)) continue;
                if (adjacent < 2) {
                    first[adjacent] = t;
                    forward[adjacent] = runs_from(corner, a, b);
                }
                ++adjacent;
            }
            if (adjacent == 0) continue;
            if (out->count < 512) {
                out->edges[out->count][0] = a;
                out->edges[out->count][1] = b;
                out->triangles[out->count][0] = first[0];
                out->triangles[out->count][1] = first[1];
            }
            ++out->count;
            topology->boundary_edges += adjacent == 1;
            topology->non_manifold_edges += adjacent > 2;
            topology->inconsistent_edges += adjacent == 2 && forward[0] == forward[1];
        }
    }
    // components: flood over triangles that share a vertex
    int32_t component[256];
    for (int32_t t = 0; t < triangle_count; ++t) component[t] = -1;
    for (int32_t seed = 0; seed < triangle_count; ++seed) {
        if (component[seed] >= 0) continue;
        component[seed] = topology->components++;
        for (bool grew = true; grew;) {
            grew = false;
            for (int32_t t = 0; t < triangle_count; ++t) {
                if (component[t] != component[seed]) continue;
                for (int32_t u = 0; u < triangle_count; ++u) {
                    if (component[u] >= 0) continue;
                    for (int k = 0; k < 3; ++k) {
                        if (has_vertex(triangles + 3 * u, triangles[3 * t + k])) {
                            component[u] = component[seed];
                            grew = true;
                            break;
                        }
                    }
                }
            }
        }
    }
    for (int32_t v = 0; v < vertex_count; ++v) {
        bool used = false;
        for (int32_t t = 0; t < triangle_count && !used; ++t) used = has_vertex(triangles + 3 * t, v);
        topology->isolated_vertices += !used;
    }
    for (int32_t t = 0; t < triangle_count; ++t) {
        const double* p[3];
        for (int k = 0; k < 3; ++k) p[k] = vertices + 3 * triangles[3 * t + k];
        double ab[3], ac[3];
        for (int a = 0; a < 3; ++a) {
            ab[a] = p[1][a] - p[0][a];
            ac[a] = p[2][a] - p[0][a];
        }
        // exact for the dyadic coordinates these tests use
        topology->degenerate_triangles +=
            ab[1] * ac[2] == ab[2] * ac[1] && ab[2] * ac[0] == ab[0] * ac[2] && ab[0] * ac[1] == ab[1] * ac[0];
    }
    topology->vertex_count = vertex_count;
    topology->triangle_count = triangle_count;
    topology->edge_count = out->count;
    topology->closed = triangle_count > 0 && topology->boundary_edges == 0 && topology->non_manifold_edges == 0 &&
                       topology->inconsistent_edges == 0;
    topology->euler_characteristic = vertex_count - topology->isolated_vertices - out->count + triangle_count;
}

// creates the mesh, compares its edges, adjacent triangles and topology with brute force, and
// returns the topology
static osc_mesh_topology check_against_brute_force(const double* vertices, int32_t vertex_count,
                                                   const int32_t* triangles, int32_t triangle_count, const char* name) {
    osc_mesh* mesh = NULL;
    osc_mesh_topology topology;
    memset(&topology, 0, sizeof topology);
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh), OSC_OK);
    if (!mesh) return topology;
    static brute_edges expected; // large: keep it off the stack
    brute_force_topology(vertices, vertex_count, triangles, triangle_count, &expected);
    osc_mesh_get_topology(mesh, &topology);
    int32_t edge_count = osc_mesh_edge_count(mesh);
    CHECK_MSG(edge_count == expected.count, "%s: %d edges, expected %d", name, edge_count, expected.count);
    const int32_t* edges = osc_mesh_edges(mesh);
    const int32_t* adjacent = osc_mesh_edge_triangles(mesh);
    int mismatches = 0;
    for (int32_t e = 0; e < edge_count && e < expected.count && e < 512; ++e) {
        mismatches += edges[2 * e] != expected.edges[e][0] || edges[2 * e + 1] != expected.edges[e][1];
        mismatches += adjacent[2 * e] != expected.triangles[e][0] || adjacent[2 * e + 1] != expected.triangles[e][1];
    }
    CHECK_MSG(mismatches == 0, "%s: %d edge or adjacency mismatches", name, mismatches);
    const osc_mesh_topology* want = &expected.topology;
    CHECK_MSG(memcmp(&topology, want, sizeof topology) == 0,
              "%s: topology V %d T %d E %d bnd %d nm %d inc %d iso %d deg %d comp %d closed %d "
              "chi %d, brute force V %d T %d E %d bnd %d nm %d inc %d iso %d deg %d comp %d "
              "closed %d chi %d",
              name, topology.vertex_count, topology.triangle_count, topology.edge_count, topology.boundary_edges,
              topology.non_manifold_edges, topology.inconsistent_edges, topology.isolated_vertices,
              topology.degenerate_triangles, topology.components, topology.closed, topology.euler_characteristic,
              want->vertex_count, want->triangle_count, want->edge_count, want->boundary_edges,
              want->non_manifold_edges, want->inconsistent_edges, want->isolated_vertices, want->degenerate_triangles,
              want->components, want->closed, want->euler_characteristic);
    osc_mesh_destroy(mesh);
    return topology;
}

// the closed cube: 18 edges (12 sides, 6 diagonals), hand-checked adjacency, chi = 2
static void test_cube_edges_and_topology(void) {
    double vertices[8][3];
    cube_vertices(0.0, vertices);
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &cube_triangles[0][0], 12, &mesh), OSC_OK);
    CHECK(osc_mesh_edge_count(mesh) == 18);
    const int32_t* edges = osc_mesh_edges(mesh);
    const int32_t* adjacent = osc_mesh_edge_triangles(mesh);
    // (0, 1): triangles 0 (0 2 1) and 4 (0 1 5); (0, 2), the bottom diagonal: 0 and 1;
    // (6, 7): 3 (4 6 7) and 6 (3 7 6), the last edge
    CHECK(edges[0] == 0 && edges[1] == 1 && adjacent[0] == 0 && adjacent[1] == 4);
    CHECK(edges[2] == 0 && edges[3] == 2 && adjacent[2] == 0 && adjacent[3] == 1);
    CHECK(edges[34] == 6 && edges[35] == 7 && adjacent[34] == 3 && adjacent[35] == 6);
    int sorted = 1;
    for (int e = 0; e < 18; ++e) {
        sorted &= edges[2 * e] < edges[2 * e + 1];
        if (e > 0)
            sorted &= edges[2 * e - 2] < edges[2 * e] ||
                      (edges[2 * e - 2] == edges[2 * e] && edges[2 * e - 1] < edges[2 * e + 1]);
    }
    CHECK(sorted);
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.vertex_count == 8 && topology.triangle_count == 12 && topology.edge_count == 18);
    CHECK(topology.boundary_edges == 0 && topology.non_manifold_edges == 0);
    CHECK(topology.inconsistent_edges == 0 && topology.isolated_vertices == 0);
    CHECK(topology.degenerate_triangles == 0 && topology.components == 1);
    CHECK(topology.closed == 1 && topology.euler_characteristic == 2);
    osc_mesh_destroy(mesh);
    check_against_brute_force(&vertices[0][0], 8, &cube_triangles[0][0], 12, "cube");
}

// the cube without its top (triangles 2 and 3): the top diagonal goes, four boundary edges
static void test_open_mesh(void) {
    double vertices[8][3];
    int32_t triangles[10][3];
    cube_vertices(0.0, vertices);
    memcpy(triangles, cube_triangles, 2 * sizeof triangles[0]);
    memcpy(triangles + 2, cube_triangles + 4, 8 * sizeof triangles[0]);
    osc_mesh_topology topology = check_against_brute_force(&vertices[0][0], 8, &triangles[0][0], 10, "open cube");
    CHECK(topology.edge_count == 17 && topology.boundary_edges == 4);
    CHECK(topology.closed == 0 && topology.components == 1);
    CHECK(topology.euler_characteristic == 1); // a disc
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], 8, &triangles[0][0], 10, &mesh), OSC_OK);
    // boundary edge (4, 5) has one triangle: the open cube's triangle 3 (0 5 4)... then -1
    const int32_t* edges = osc_mesh_edges(mesh);
    const int32_t* adjacent = osc_mesh_edge_triangles(mesh);
    int found = 0;
    for (int e = 0; e < osc_mesh_edge_count(mesh); ++e) {
        if (edges[2 * e] == 4 && edges[2 * e + 1] == 5) {
            found = 1;
            CHECK(adjacent[2 * e] == 3 && adjacent[2 * e + 1] == -1);
        }
    }
    CHECK(found);
    osc_mesh_destroy(mesh);
}

// three triangles on one edge (a fin), two triangles running the same way along an edge, and the
// cube with one triangle flipped
static void test_non_manifold_and_inconsistent(void) {
    const double fin_vertices[5][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {0.5, -1, 0}, {0.5, 0, 1}};
    const int32_t fin[3][3] = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
    osc_mesh_topology topology = check_against_brute_force(&fin_vertices[0][0], 5, &fin[0][0], 3, "fin");
    CHECK(topology.edge_count == 7 && topology.non_manifold_edges == 1);
    CHECK(topology.boundary_edges == 6 && topology.inconsistent_edges == 0);
    CHECK(topology.closed == 0 && topology.euler_characteristic == 1);

    const int32_t same_way[2][3] = {{0, 1, 2}, {0, 1, 3}};
    topology = check_against_brute_force(&fin_vertices[0][0], 5, &same_way[0][0], 2, "same way");
    CHECK(topology.inconsistent_edges == 1 && topology.boundary_edges == 4);
    CHECK(topology.isolated_vertices == 1 && topology.closed == 0);

    double vertices[8][3];
    int32_t flipped[12][3];
    cube_vertices(0.0, vertices);
    memcpy(flipped, cube_triangles, sizeof flipped);
    flipped[5][1] = cube_triangles[5][2];
    flipped[5][2] = cube_triangles[5][1];
    topology = check_against_brute_force(&vertices[0][0], 8, &flipped[0][0], 12, "flipped");
    CHECK(topology.inconsistent_edges == 3 && topology.boundary_edges == 0);
    CHECK(topology.closed == 0 && topology.euler_characteristic == 2);
}

// two disjoint cubes, a bowtie (two triangles sharing one vertex), isolated vertices
static void test_components_and_isolated_vertices(void) {
    double vertices[18][3];
    int32_t triangles[24][3];
    double cube[8][3];
    for (int copy = 0; copy < 2; ++copy) {
        cube_vertices(5.0 * copy, cube);
        memcpy(vertices[8 * copy], cube, sizeof cube);
    }
    vertices[16][0] = 9, vertices[16][1] = 9, vertices[16][2] = 9;
    vertices[17][0] = -9, vertices[17][1] = 0, vertices[17][2] = 0;
    for (int t = 0; t < 12; ++t)
        for (int k = 0; k < 3; ++k) {
            triangles[t][k] = cube_triangles[t][k];
            triangles[t + 12][k] = cube_triangles[t][k] + 8;
        }
    osc_mesh_topology topology = check_against_brute_force(&vertices[0][0], 18, &triangles[0][0], 24, "two cubes");
    CHECK(topology.components == 2 && topology.closed == 1);
    CHECK(topology.isolated_vertices == 2 && topology.euler_characteristic == 4);

    const double bowtie_vertices[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {-1, 0, 0}, {-1, -1, 0}};
    const int32_t bowtie[2][3] = {{0, 1, 2}, {0, 3, 4}};
    topology = check_against_brute_force(&bowtie_vertices[0][0], 5, &bowtie[0][0], 2, "bowtie");
    CHECK(topology.components == 1 && topology.boundary_edges == 6);
    CHECK(topology.euler_characteristic == 1);
}

// collinear triangles count as degenerate wherever they lie; a thin but non-zero one does not
static void test_degenerate_triangles(void) {
    const double vertices[9][3] = {{0, 0, 0},
                                   {1, 1, 1},
                                   {3, 3, 3}, // collinear at the origin
                                   {1e6, 1e6, 1e6},
                                   {1e6 + 0.5, 1e6 + 1, 1e6 + 1.5},
                                   {1e6 + 2, 1e6 + 4, 1e6 + 6}, // far
                                   {0, 0, 0},
                                   {1, 0, 0},
                                   {0.5, 0x1p-30, 0}}; // thin, area 2^-31
    const int32_t triangles[4][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {1, 0, 7}};
    osc_mesh_topology topology = check_against_brute_force(&vertices[0][0], 9, &triangles[0][0], 4, "degenerate");
    CHECK(topology.degenerate_triangles == 2);
    // collinear in decimal, not exactly in binary (0.1 * 0.9 != 0.3 * 0.3 in doubles, so the cross
    // product's terms differ): zero area within the rounding of the cross product
    const double decimal[4][3] = {{0, 0, 0}, {0.1, 0.1, 0.3}, {0.3, 0.3, 0.9}, {0.3, 0.3, 0.9000001}};
    const int32_t two[6] = {0, 1, 2, 0, 1, 3};
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&decimal[0][0], 4, two, 2, &mesh), OSC_OK);
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.degenerate_triangles == 1);
    osc_mesh_destroy(mesh);
}

// a torus of n x m quads (chi = 0) and a Moebius strip (one-sided: an inconsistent edge)
static void test_torus_and_moebius(void) {
    enum { N = 6, M = 4 };
    double vertices[N * M][3];
    int32_t triangles[2 * N * M][3];
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < M; ++j) {
            double u = 2 * TEST_PI * i / N, v = 2 * TEST_PI * j / M;
            vertices[i * M + j][0] = (2 + cos(v)) * cos(u);
            vertices[i * M + j][1] = (2 + cos(v)) * sin(u);
            vertices[i * M + j][2] = sin(v);
            int a = i * M + j, b = ((i + 1) % N) * M + j, c = ((i + 1) % N) * M + (j + 1) % M, d = i * M + (j + 1) % M;
            int32_t* t = triangles[2 * (i * M + j)];
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
        }
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(&vertices[0][0], N * M, &triangles[0][0], 2 * N * M, &mesh), OSC_OK);
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.edge_count == 3 * N * M && topology.closed == 1);
    CHECK(topology.euler_characteristic == 0 && topology.components == 1);
    CHECK(osc_mesh_volume(mesh) > 0.0);
    osc_mesh_destroy(mesh);
    check_against_brute_force(&vertices[0][0], N * M, &triangles[0][0], 2 * N * M, "torus");

    // strip: bottom b_i = i, top t_i = N + i; quad i joins column i to i + 1, and the last one
    // joins column N - 1 to column 0 with top and bottom swapped
    double strip[2 * N][3];
    int32_t quads[2 * N][3];
    for (int i = 0; i < N; ++i) {
        double u = 2 * TEST_PI * i / N;
        for (int side = 0; side < 2; ++side) {
            double w = side ? 0.5 : -0.5;
            strip[side * N + i][0] = (2 + w * cos(u / 2)) * cos(u);
            strip[side * N + i][1] = (2 + w * cos(u / 2)) * sin(u);
            strip[side * N + i][2] = w * sin(u / 2);
        }
        int b0 = i, t0 = N + i;
        int b1 = i + 1 < N ? i + 1 : N, t1 = i + 1 < N ? N + i + 1 : 0; // swapped at the seam
        int32_t* q = quads[2 * i];
        q[0] = b0, q[1] = b1, q[2] = t1, q[3] = b0, q[4] = t1, q[5] = t0;
    }
    osc_mesh_topology moebius = check_against_brute_force(&strip[0][0], 2 * N, &quads[0][0], 2 * N, "moebius");
    CHECK(moebius.boundary_edges == 2 * N && moebius.euler_characteristic == 0);
    CHECK(moebius.inconsistent_edges >= 1 && moebius.closed == 0);
}

// random triangle soups over few vertices: shared, non-manifold and inconsistent edges galore
static void test_random_soups_against_brute_force(void) {
    test_rng rng = {2024};
    for (int trial = 0; trial < 200; ++trial) {
        int32_t vertex_count = 3 + (int32_t)(test_rng_next(&rng) % 12);
        int32_t triangle_count = (int32_t)(test_rng_next(&rng) % 40);
        double vertices[15][3];
        int32_t triangles[40][3];
        for (int i = 0; i < vertex_count; ++i)
            for (int a = 0; a < 3; ++a) vertices[i][a] = test_uniform(&rng, -1.0, 1.0);
        for (int t = 0; t < triangle_count; ++t) {
            int32_t a = (int32_t)(test_rng_next(&rng) % (uint64_t)vertex_count);
            int32_t b = (a + 1 + (int32_t)(test_rng_next(&rng) % (uint64_t)(vertex_count - 1))) % vertex_count;
            int32_t c = a;
            while (c == a || c == b) c = (int32_t)(test_rng_next(&rng) % (uint64_t)vertex_count);
            triangles[t][0] = a, triangles[t][1] = b, triangles[t][2] = c;
        }
        char name[32];
        snprintf(name, sizeof name, "soup %d", trial);
        check_against_brute_force(&vertices[0][0], vertex_count, &triangles[0][0], triangle_count, name);
    }
}

static void test_empty_topology(void) {
    osc_mesh_topology topology;
    memset(&topology, 0xff, sizeof topology);
    osc_mesh_get_topology(NULL, &topology);
    osc_mesh_topology zero;
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&topology, &zero, sizeof zero) == 0);
    osc_mesh_get_topology(NULL, NULL); // no crash
    double point[3] = {1, 2, 3};
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_create(point, 1, NULL, 0, &mesh), OSC_OK);
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.vertex_count == 1 && topology.isolated_vertices == 1 && topology.closed == 0);
    CHECK(topology.edge_count == 0 && topology.components == 0 && topology.euler_characteristic == 0);
    CHECK(osc_mesh_edge_count(mesh) == 0 && osc_mesh_edges(mesh) == NULL);
    CHECK(osc_mesh_edge_triangles(mesh) == NULL);
    osc_mesh_destroy(mesh);
    CHECK(osc_mesh_edge_count(NULL) == 0 && osc_mesh_edges(NULL) == NULL);
    CHECK(osc_mesh_edge_triangles(NULL) == NULL);
}

int main(void) {
    RUN(test_unit_cube_volume_and_area);
    RUN(test_random_tetrahedra);
    RUN(test_empty_mesh_and_null_accessors);
    RUN(test_mesh_copies_input);
    RUN(test_invalid_input);
    RUN(test_obj_round_trip);
    RUN(test_obj_errors);
    RUN(test_cube_edges_and_topology);
    RUN(test_open_mesh);
    RUN(test_non_manifold_and_inconsistent);
    RUN(test_components_and_isolated_vertices);
    RUN(test_degenerate_triangles);
    RUN(test_torus_and_moebius);
    RUN(test_random_soups_against_brute_force);
    RUN(test_empty_topology);
    return test_finish();
}
