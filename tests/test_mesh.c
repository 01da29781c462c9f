// test_mesh.c: the mesh container against analytic volumes and areas, its input validation, and
// the OBJ writer against a small independent parser.

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
    CHECK_STATUS(osc_mesh_create(vertices, vertex_count, triangles, triangle_count, &mesh),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK(mesh == NULL);
    CHECK_MSG(strstr(osc_last_error(), needle) != NULL, "message '%s' lacks '%s'",
              osc_last_error(), needle);
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
static bool parse_obj(const char* path, double* vertices, int* vertex_count, int vertex_capacity,
                      int32_t* triangles, int* triangle_count, int triangle_capacity) {
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
    CHECK(parse_obj(path, read_vertices, &read_vertex_count, vertex_count, read_triangles,
                    &read_triangle_count, triangle_count));
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
    CHECK_MSG(strstr(osc_last_error(), path) != NULL, "message '%s' lacks the path",
              osc_last_error());
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

int main(void) {
    RUN(test_unit_cube_volume_and_area);
    RUN(test_random_tetrahedra);
    RUN(test_empty_mesh_and_null_accessors);
    RUN(test_mesh_copies_input);
    RUN(test_invalid_input);
    RUN(test_obj_round_trip);
    RUN(test_obj_errors);
    return test_finish();
}
