// test_mesh_io.c: the mesh importers (mesh.h: osc_mesh_load, osc_mesh_load_memory). Oracles: one
// box written in every format (tests/data/mesh/make_fixtures.py) must load into the same arrays
// bit for bit, the welded STL included; OBJ written by osc_mesh_write_obj loads back exactly;
// numbers parse exactly as strtod does; PLY of every type combination and both byte orders equals
// its ascii form; tolerance welding equals a brute-force greedy merge; every malformed fixture
// fails with OSC_ERR_PARSE and the expected line or byte offset; every truncation of a valid file
// fails or yields the whole mesh; real models (bundled and fetched) load with their known counts
// and topology, the armadillo well under 0.1 s.

#include "osculate/mesh.h"

#include "mesh_io_internal.h"
#include "mesh_test_util.h"

#define MESH_DATA OSC_TEST_DATA_DIR "/mesh/"

// the box of make_fixtures.py: vertices in the order its fan-triangulated faces first use them
static const double box_vertices[8][3] = {{-0.5, 0.25, -1.75}, {-0.5, 2.5, -1.75},  {1.25, 2.5, -1.75},
                                          {1.25, 0.25, -1.75}, {-0.5, 0.25, 0.125}, {1.25, 0.25, 0.125},
                                          {1.25, 2.5, 0.125},  {-0.5, 2.5, 0.125}};
static const int32_t box_triangles[12][3] = {{0, 1, 2}, {0, 2, 3}, {4, 5, 6}, {4, 6, 7}, {0, 3, 5}, {0, 5, 4},
                                             {1, 7, 6}, {1, 6, 2}, {0, 4, 7}, {0, 7, 1}, {3, 2, 6}, {3, 6, 5}};

// reads a whole file with stdio (the tests' own reader); NULL when it cannot
static unsigned char* read_whole_file(const char* path, size_t* size) {
    FILE* file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 1 << 16, used = 0;
    unsigned char* data = malloc(capacity);
    for (size_t got; data && (got = fread(data + used, 1, capacity - used, file)) > 0;) {
        used += got;
        if (used == capacity) data = realloc(data, capacity *= 2);
    }
    fclose(file);
    *size = used;
    return data;
}

static bool is_box(const osc_mesh* mesh) {
    return test_mesh_has_arrays(mesh, &box_vertices[0][0], 8, &box_triangles[0][0], 12);
}

// loads `text` in `format` with `settings` (NULL: defaults); the mesh or NULL
static osc_mesh* load_text(const char* text, osc_mesh_format format, osc_mesh_load_settings* settings,
                           osc_mesh_load_report* report, osc_status* status) {
    osc_mesh_load_settings chosen = settings ? *settings : osc_mesh_load_settings_default();
    chosen.format = format;
    osc_mesh* mesh = NULL;
    *status = osc_mesh_load_memory(text, strlen(text), &chosen, &mesh, report);
    return mesh;
}

// ---------------------------------------------------------------------------------------------
// the box in every format

typedef struct valid_fixture {
    const char* file;
    osc_mesh_format format;
    int32_t binary;
    int64_t vertices_read, faces_read;
    int32_t welded, polygons;
} valid_fixture;

static const valid_fixture valid_fixtures[] = {
    {"box.obj", OSC_MESH_FORMAT_OBJ, 0, 8, 6, 0, 6},           {"box.off", OSC_MESH_FORMAT_OFF, 0, 8, 6, 0, 6},
    {"box_ascii.ply", OSC_MESH_FORMAT_PLY, 0, 8, 6, 0, 6},     {"box_le.ply", OSC_MESH_FORMAT_PLY, 1, 8, 6, 0, 6},
    {"box_be.ply", OSC_MESH_FORMAT_PLY, 1, 8, 6, 0, 6},        {"box_ascii.stl", OSC_MESH_FORMAT_STL, 0, 36, 12, 28, 0},
    {"box_binary.stl", OSC_MESH_FORMAT_STL, 1, 36, 12, 28, 0},
};
enum { VALID_COUNT = sizeof valid_fixtures / sizeof valid_fixtures[0] };

// every fixture, by path (format from the extension), from memory with the format detected and
// with it forced, gives the box's arrays exactly and the report the fixture implies
static void test_box_in_every_format(void) {
    for (int i = 0; i < VALID_COUNT; ++i) {
        const valid_fixture* fixture = &valid_fixtures[i];
        char path[512];
        snprintf(path, sizeof path, MESH_DATA "%s", fixture->file);
        osc_mesh* mesh = NULL;
        osc_mesh_load_report report;
        CHECK_STATUS(osc_mesh_load(path, NULL, &mesh, &report), OSC_OK);
        CHECK_MSG(is_box(mesh), "%s does not load as the box", fixture->file);
        CHECK(report.format == fixture->format && report.binary == fixture->binary);
        CHECK_MSG(report.vertices_read == fixture->vertices_read && report.faces_read == fixture->faces_read,
                  "%s: read %lld vertices, %lld faces", fixture->file, (long long)report.vertices_read,
                  (long long)report.faces_read);
        CHECK(report.vertices_welded == fixture->welded && report.polygons_triangulated == fixture->polygons);
        CHECK(report.vertices_unreferenced == 0 && report.faces_dropped == 0);
        osc_mesh_topology topology;
        osc_mesh_get_topology(mesh, &topology);
        CHECK(topology.closed == 1 && topology.euler_characteristic == 2);
        CHECK_NEAR(osc_mesh_volume(mesh), 1.75 * 2.25 * 1.875, 1e-14);
        osc_mesh_destroy(mesh);

        size_t size = 0;
        unsigned char* data = read_whole_file(path, &size);
        CHECK(data != NULL);
        for (int forced = 0; data && forced < 2; ++forced) {
            osc_mesh_load_settings settings = osc_mesh_load_settings_default();
            settings.format = forced ? fixture->format : OSC_MESH_FORMAT_AUTO;
            mesh = NULL;
            CHECK_STATUS(osc_mesh_load_memory(data, size, &settings, &mesh, &report), OSC_OK);
            CHECK_MSG(is_box(mesh) && report.format == fixture->format, "%s from memory (format %s): not the box",
                      fixture->file, forced ? "forced" : "detected");
            osc_mesh_destroy(mesh);
        }
        free(data);
    }
}

// the extension picks the format whatever its case; an unknown one falls back to the content
static void test_extension_and_content_detection(void) {
    size_t size = 0;
    unsigned char* data = read_whole_file(MESH_DATA "box.off", &size);
    CHECK(data != NULL);
    if (!data) return;
    const char* names[3] = {"test_mesh_io_box.OFF", "test_mesh_io_box.Off", "test_mesh_io_box.dat"};
    for (int i = 0; i < 3; ++i) {
        FILE* file = fopen(names[i], "wb");
        CHECK(file != NULL);
        if (!file) continue;
        fwrite(data, 1, size, file);
        fclose(file);
        osc_mesh* mesh = NULL;
        osc_mesh_load_report report;
        CHECK_STATUS(osc_mesh_load(names[i], NULL, &mesh, &report), OSC_OK);
        CHECK(is_box(mesh) && report.format == OSC_MESH_FORMAT_OFF);
        osc_mesh_destroy(mesh);
        remove(names[i]);
    }
    // an OFF file named .obj is parsed as OBJ: OFF lines are no OBJ statements, so it is empty
    FILE* file = fopen("test_mesh_io_box.obj", "wb");
    if (file) {
        fwrite(data, 1, size, file);
        fclose(file);
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_mesh_load("test_mesh_io_box.obj", NULL, &mesh, NULL), OSC_OK);
        CHECK(osc_mesh_vertex_count(mesh) == 0);
        osc_mesh_destroy(mesh);
        remove("test_mesh_io_box.obj");
    }
    free(data);

    // content that is no format
    osc_mesh* mesh = (osc_mesh*)&mesh;
    CHECK_STATUS(osc_mesh_load_memory("", 0, NULL, &mesh, NULL), OSC_ERR_PARSE);
    CHECK(mesh == NULL && strstr(osc_last_error(), "empty") != NULL);
    CHECK_STATUS(osc_mesh_load_memory(NULL, 0, NULL, &mesh, NULL), OSC_ERR_PARSE);
    const char prose[] = "hello world\nthis is not a mesh\n";
    CHECK_STATUS(osc_mesh_load_memory(prose, sizeof prose - 1, NULL, &mesh, NULL), OSC_ERR_PARSE);
    CHECK(strstr(osc_last_error(), "cannot detect the format") != NULL);
    // a forced OBJ of the same text is an empty mesh (OBJ ignores unknown statements)
    osc_status status;
    mesh = load_text(prose, OSC_MESH_FORMAT_OBJ, NULL, NULL, &status);
    CHECK(status == OSC_OK && osc_mesh_vertex_count(mesh) == 0 && osc_mesh_triangle_count(mesh) == 0);
    osc_mesh_destroy(mesh);
}

// the box written by osc_mesh_write_obj, and a random mesh with extreme magnitudes, load back bit
// for bit
static void test_obj_round_trip(void) {
    enum { VERTICES = 300, TRIANGLES = 400 };
    static double vertices[VERTICES][3];
    static int32_t triangles[TRIANGLES][3];
    test_rng rng = {99};
    for (int i = 0; i < VERTICES; ++i)
        for (int a = 0; a < 3; ++a) {
            double magnitude = pow(10.0, test_uniform(&rng, -30.0, 11.9));
            vertices[i][a] = (test_rng_next(&rng) & 1 ? -1.0 : 1.0) * magnitude;
        }
    vertices[0][0] = 0.1, vertices[0][1] = -0.0, vertices[0][2] = 5e-324;
    for (int t = 0; t < TRIANGLES; ++t) {
        int32_t a = (int32_t)(test_rng_next(&rng) % VERTICES);
        triangles[t][0] = a;
        triangles[t][1] = (a + 1 + (int32_t)(test_rng_next(&rng) % 50)) % VERTICES;
        triangles[t][2] = (a + 51 + (int32_t)(test_rng_next(&rng) % 50)) % VERTICES;
    }
    triangles[7][0] = 0; // keep vertex 0 referenced
    const double* arrays[2] = {&box_vertices[0][0], &vertices[0][0]};
    const int32_t* indices[2] = {&box_triangles[0][0], &triangles[0][0]};
    const int32_t counts[2][2] = {{8, 12}, {VERTICES, TRIANGLES}};
    for (int which = 0; which < 2; ++which) {
        osc_mesh* mesh = NULL;
        CHECK_STATUS(osc_mesh_create(arrays[which], counts[which][0], indices[which], counts[which][1], &mesh), OSC_OK);
        CHECK_STATUS(osc_mesh_write_obj(mesh, "test_mesh_io_round_trip.obj"), OSC_OK);
        osc_mesh_load_settings settings = osc_mesh_load_settings_default();
        settings.keep_unreferenced = 1;
        settings.orient = 0; // a random soup: the windings as written (orienting: test_mesh_orient.c)
        osc_mesh* loaded = NULL;
        CHECK_STATUS(osc_mesh_load("test_mesh_io_round_trip.obj", &settings, &loaded, NULL), OSC_OK);
        int vertex_count = osc_mesh_vertex_count(loaded);
        CHECK_MSG(test_mesh_has_arrays(loaded, arrays[which], counts[which][0], indices[which], counts[which][1]),
                  "round trip %d: %d vertices come back, not the same arrays", which, vertex_count);
        osc_mesh_destroy(loaded);
        osc_mesh_destroy(mesh);
    }
    remove("test_mesh_io_round_trip.obj");
}

// ---------------------------------------------------------------------------------------------
// numbers

// every spelling of a number parses to strtod's value, bit for bit
static void test_numbers_match_strtod(void) {
    static const char* const fixed[] = {
        "0",
        "-0",
        "+0.0",
        "1",
        "-1",
        "1.",
        ".5",
        "-.5",
        "00012.5000",
        "1e0",
        "1E+2",
        "1e-2",
        "2.5e-3",
        "123456789012345678901234567890",
        "0.000000000000000000000000000001234567",
        "9007199254740993",
        "9007199254740992.5",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "4.9e-324",
        "2.4703282292062328e-324",
        "1e-400",
        "0.1",
        "0.3",
        "3.141592653589793238462643383279502884197",
        "1e22",
        "1e23",
        "8.98846567431158e307",
        "123.456e-5",
        "7e-23",
        "0.30000000000000004",
        "4503599627370497.5",
        "1.00000000000000011102230246251565404236316680908203125",
    };
    enum { RANDOM = 3000 };
    // %.15f of the largest doubles spells 309 digits and 15 decimals: room for two per line
    char number[352];
    char* text = malloc((2 * sizeof number + 8) * (RANDOM + 64));
    double expected[(RANDOM + 64) * 3];
    size_t length = 0, count = 0, truncated = 0;
    int parser_mismatches = 0;
    test_rng rng = {1234};
    const char* formats[6] = {"%.17g", "%.6g", "%.3e", "%.15f", "%+.10E", "%.1f"};
    for (int i = 0; i < RANDOM + (int)(sizeof fixed / sizeof fixed[0]); ++i) {
        if (i < RANDOM) {
            uint64_t bits = test_rng_next(&rng);
            double value;
            if (i % 3 == 0) {
                memcpy(&value, &bits, sizeof value); // any finite double
                if (!isfinite(value)) value = 1.0;
            } else {
                value = test_uniform(&rng, -1.0, 1.0) * pow(10.0, test_uniform(&rng, -20.0, 20.0));
            }
            int written = snprintf(number, sizeof number, formats[i % 6], value);
            truncated += written <= 0 || (size_t)written >= sizeof number;
        } else {
            snprintf(number, sizeof number, "%s", fixed[i - RANDOM]);
        }
        // every spelling through the number parser; those a mesh may hold through the loader too
        double direct = 0.0, reference = strtod(number, NULL);
        parser_mismatches +=
            !text_parse_double(number, strlen(number), &direct) || memcmp(&direct, &reference, sizeof direct) != 0;
        if (!(fabs(reference) <= OSC_MESH_MAX_COORDINATE)) continue;
        length += (size_t)sprintf(text + length, "v %s 0 %s\n", number, number);
        expected[3 * count] = strtod(number, NULL);
        expected[3 * count + 1] = 0.0;
        expected[3 * count + 2] = expected[3 * count];
        ++count;
    }
    CHECK_MSG(truncated == 0, "%zu spellings do not fit the buffer", truncated);
    CHECK_MSG(parser_mismatches == 0, "%d spellings parse otherwise than strtod", parser_mismatches);
    CHECK(count > 2000);
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.weld_tolerance = -1.0;
    settings.keep_unreferenced = 1;
    settings.max_coordinate = OSC_MESH_MAX_COORDINATE;
    osc_status status;
    osc_mesh* mesh = load_text(text, OSC_MESH_FORMAT_OBJ, &settings, NULL, &status);
    CHECK_STATUS(status, OSC_OK);
    CHECK(osc_mesh_vertex_count(mesh) == (int32_t)count);
    int mismatches = 0;
    for (size_t i = 0; mesh && i < 3 * count; ++i) {
        if (memcmp(&osc_mesh_vertices(mesh)[i], &expected[i], sizeof(double)) != 0) {
            if (mismatches++ < 5)
                fprintf(stderr, "vertex %zu: %.17g, strtod %.17g\n", i / 3, osc_mesh_vertices(mesh)[i], expected[i]);
        }
    }
    CHECK_MSG(mismatches == 0, "%d numbers differ from strtod", mismatches);
    osc_mesh_destroy(mesh);
    free(text);

    // not numbers
    static const char* const bad[] = {"1e", "--1", "1.2.3", "0x10", ".", "e5", "1e+", "+", "1,5", "1d5", "nano", "in"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char line[64];
        snprintf(line, sizeof line, "v 0 0 0\nv %s 0 0\n", bad[i]);
        mesh = load_text(line, OSC_MESH_FORMAT_OBJ, NULL, NULL, &status);
        CHECK_MSG(status == OSC_ERR_PARSE && mesh == NULL, "'%s' was accepted", bad[i]);
        CHECK_MSG(strstr(osc_last_error(), "OBJ line 2: v coordinate x:") != NULL &&
                      strstr(osc_last_error(), "is not a number") != NULL,
                  "'%s': message '%s'", bad[i], osc_last_error());
    }
}

// ---------------------------------------------------------------------------------------------
// format features

static void test_obj_features(void) {
    const char text[] = "# comment\r\n"
                        "mtllib a.mtl\no thing\ng a b\ns 1\nusemtl red\n"
                        "v 0 0 0\nv\t1 0 0\nv 1 1 0 1.0\nv 0 1 0 0.5 0.5 0.5\n"
                        "vt 0 0\nvt 1 0\nvn 0 0 1\nvp 0.5\n"
                        "f 1/1/1 2/2/1 3//1 4/1\r\n"                                 // a quad: (0 1 2) (0 2 3)
                        "f -4 -1 7 # forward reference to vertex 7, and a comment\n" // (0 3 6)
                        "fo 1 2 3\nl 1 2\np 1\ncurv 0 1 1 2\n"
                        "v 0 0 1\nv 1 0 1\nv 0.5 0.5 2\n"
                        "f 5 6 7 -2\n" // relative -2 is vertex 6: (4 5 6) (4 6 5)
                        "f 1 2 6 5 7"; // a pentagon without a final newline: (0 1 5) (0 5 4) (0 4 6)
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.degenerate = OSC_MESH_DEGENERATE_DROP;
    settings.orient = 0; // the windings as written (orienting: test_mesh_orient.c)
    osc_mesh_load_report report;
    osc_status status;
    osc_mesh* mesh = load_text(text, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    CHECK_STATUS(status, OSC_OK);
    static const int32_t expected[][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 6}, {4, 5, 6},
                                          {4, 6, 5}, {0, 1, 5}, {0, 5, 4}, {0, 4, 6}};
    const double vertices[7][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0.5, 0.5, 2}};
    CHECK(test_mesh_has_arrays(mesh, &vertices[0][0], 7, &expected[0][0], 8));
    CHECK(report.vertices_read == 7 && report.faces_read == 4 && report.polygons_triangulated == 3);
    CHECK(report.faces_dropped == 0 && report.format == OSC_MESH_FORMAT_OBJ && report.binary == 0);
    osc_mesh_destroy(mesh);

    // a quad whose last corner repeats its first: the fan's second triangle is dropped
    const char collapsed[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3 1\n";
    mesh = load_text(collapsed, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    CHECK(status == OSC_OK && osc_mesh_triangle_count(mesh) == 1 && report.faces_dropped == 1);
    osc_mesh_destroy(mesh);
    mesh = load_text(collapsed, OSC_MESH_FORMAT_OBJ, NULL, NULL, &status);
    CHECK(status == OSC_ERR_PARSE && mesh == NULL);
    CHECK(strstr(osc_last_error(), "OBJ line 4: degenerate face: it repeats a vertex") != NULL);
}

static void test_off_features(void) {
    // counts on the keyword line, colours on vertices and faces, comments and blank lines anywhere
    const char* texts[] = {
        "OFF 3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        ("COFF\n# colours\n\n3 1\n0 0 0 255 0 0 255\n1 0 0 255 0 0 255\n# between\n0 1 0 1 1 1 1\n"
         "3 0 1 2 0.1 0.2 0.3 0.4\n\n# the end\n"),
        "NOFF\n3 1 3\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2 4\n",
        "STOFF\r\n3 1 0\r\n0 0 0 0 0\r\n1 0 0 1 0\r\n0 1 0 0 1\r\n3 0 1 2 255 255 255\r\n",
        "  # leading comment\nOFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2",
    };
    const double vertices[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const int32_t triangle[3] = {0, 1, 2};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        osc_status status;
        osc_mesh_load_report report;
        osc_mesh* mesh = load_text(texts[i], OSC_MESH_FORMAT_OFF, NULL, &report, &status);
        CHECK_MSG(status == OSC_OK && test_mesh_has_arrays(mesh, &vertices[0][0], 3, triangle, 1), "OFF text %zu: %s",
                  i, osc_last_error());
        osc_mesh_destroy(mesh);
        mesh = load_text(texts[i], OSC_MESH_FORMAT_AUTO, NULL, &report, &status);
        CHECK(status == OSC_OK && report.format == OSC_MESH_FORMAT_OFF);
        osc_mesh_destroy(mesh);
    }
    osc_status status;
    osc_mesh* mesh = load_text("OFF\n0 0 0\n", OSC_MESH_FORMAT_OFF, NULL, NULL, &status);
    CHECK(status == OSC_OK && osc_mesh_vertex_count(mesh) == 0);
    osc_mesh_destroy(mesh);
}

static void test_stl_features(void) {
    // any case, several solids, names or none
    const char text[] = "SOLID\nFACET NORMAL 0 0 1\n OUTER LOOP\n  VERTEX 0 0 0\n  VERTEX 1 0 0\n  VERTEX 0 1 0\n"
                        " ENDLOOP\nENDFACET\nENDSOLID\n"
                        "solid second one\nfacet normal nan nan nan\nouter loop\nvertex 1 0 0\nvertex 1 1 0\n"
                        "vertex 0 1 0\nendloop\nendfacet\nendsolid another name\n\n";
    const double vertices[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    const int32_t triangles[2][3] = {{0, 1, 2}, {1, 3, 2}};
    osc_status status;
    osc_mesh_load_report report;
    osc_mesh* mesh = load_text(text, OSC_MESH_FORMAT_AUTO, NULL, &report, &status);
    CHECK_STATUS(status, OSC_OK);
    CHECK(test_mesh_has_arrays(mesh, &vertices[0][0], 4, &triangles[0][0], 2));
    CHECK(report.format == OSC_MESH_FORMAT_STL && report.binary == 0 && report.vertices_welded == 2);
    osc_mesh_destroy(mesh);
    // welding off: STL shares nothing
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.weld_tolerance = -1.0;
    mesh = load_text(text, OSC_MESH_FORMAT_STL, &settings, &report, &status);
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(status == OSC_OK && osc_mesh_vertex_count(mesh) == 6 && topology.components == 2);
    osc_mesh_destroy(mesh);
    // a binary STL with no triangles is the 84-byte header alone
    unsigned char empty[84] = "solid but binary";
    mesh = NULL;
    CHECK_STATUS(osc_mesh_load_memory(empty, sizeof empty, NULL, &mesh, &report), OSC_OK);
    CHECK(report.format == OSC_MESH_FORMAT_STL && report.binary == 1 && osc_mesh_vertex_count(mesh) == 0);
    osc_mesh_destroy(mesh);
}

// ---------------------------------------------------------------------------------------------
// PLY of every type

typedef enum { T_INT8, T_UINT8, T_INT16, T_UINT16, T_INT32, T_UINT32, T_FLOAT32, T_FLOAT64 } ply_test_type;
static const char* const ply_names[8] = {"char", "uchar", "int16", "ushort", "int", "uint32", "float", "double"};
static const size_t ply_sizes[8] = {1, 1, 2, 2, 4, 4, 4, 8};

typedef struct byte_writer {
    unsigned char data[8192];
    size_t size;
    int encoding; // 0 ascii, 1 little, 2 big
} byte_writer;

static void put_text(byte_writer* w, const char* text) {
    size_t length = strlen(text);
    memcpy(w->data + w->size, text, length);
    w->size += length;
}

static void put_value(byte_writer* w, ply_test_type type, double value) {
    if (w->encoding == 0) {
        char text[64];
        if (type >= T_FLOAT32)
            snprintf(text, sizeof text, "%.17g ", value);
        else
            snprintf(text, sizeof text, "%lld ", (long long)value);
        put_text(w, text);
        return;
    }
    unsigned char bytes[8];
    uint64_t bits = 0;
    switch (type) {
        case T_INT8:
        case T_INT16:
        case T_INT32: bits = (uint64_t)(int64_t)value; break;
        case T_UINT8:
        case T_UINT16:
        case T_UINT32: bits = (uint64_t)value; break;
        case T_FLOAT32: {
            float narrow = (float)value;
            uint32_t b32;
            memcpy(&b32, &narrow, 4);
            bits = b32;
            break;
        }
        case T_FLOAT64: memcpy(&bits, &value, 8); break;
    }
    size_t size = ply_sizes[type];
    for (size_t i = 0; i < size; ++i) bytes[w->encoding == 2 ? size - 1 - i : i] = (unsigned char)(bits >> (8 * i));
    memcpy(w->data + w->size, bytes, size);
    w->size += size;
}

// a tetrahedron with small integer coordinates (exact in every type), its faces as a list of
// `count_type` / `index_type` between an "extra" element with a list before and one after
static void write_tetra_ply(byte_writer* w, ply_test_type coordinate, ply_test_type count_type,
                            ply_test_type index_type, bool faces_first) {
    static const double vertices[4][3] = {{0, 0, 0}, {100, 0, 0}, {0, 100, 0}, {0, 0, 100}};
    static const int32_t faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    static const char* const encodings[3] = {"ascii", "binary_little_endian", "binary_big_endian"};
    char line[256];
    w->size = 0;
    put_text(w, "ply\n");
    snprintf(line, sizeof line, "format %s 1.0\ncomment generated by test_mesh_io.c\n", encodings[w->encoding]);
    put_text(w, line);
    put_text(w, "element extra 2\nproperty list uchar int16 values\nproperty float weight\n");
    for (int part = 0; part < 2; ++part) {
        if ((part == 0) == faces_first) {
            snprintf(line, sizeof line,
                     "element face 4\nproperty uchar flag\nproperty list %s %s vertex_indices\n"
                     "property list uchar double texcoord\n",
                     ply_names[count_type], ply_names[index_type]);
        } else {
            snprintf(line, sizeof line,
                     "element vertex 4\nproperty %s z\nproperty %s x\nproperty list uchar uchar tags\n"
                     "property %s y\nproperty uchar red\n",
                     ply_names[coordinate], ply_names[coordinate], ply_names[coordinate]);
        }
        put_text(w, line);
    }
    put_text(w, "element last 1\nproperty list uint8 float64 values\nend_header\n");
    for (int i = 0; i < 2; ++i) {
        put_value(w, T_UINT8, 2);
        put_value(w, T_INT16, -7);
        put_value(w, T_INT16, 300);
        put_value(w, T_FLOAT32, 0.5);
        if (w->encoding == 0) put_text(w, "\n");
    }
    for (int part = 0; part < 2; ++part) {
        if ((part == 0) == faces_first) {
            for (int f = 0; f < 4; ++f) {
                put_value(w, T_UINT8, 1);
                put_value(w, count_type, 3);
                for (int k = 0; k < 3; ++k) put_value(w, index_type, faces[f][k]);
                put_value(w, T_UINT8, f % 2);
                if (f % 2) put_value(w, T_FLOAT64, 0.25);
                if (w->encoding == 0) put_text(w, "\n");
            }
        } else {
            for (int v = 0; v < 4; ++v) {
                put_value(w, coordinate, vertices[v][2]);
                put_value(w, coordinate, vertices[v][0]);
                put_value(w, T_UINT8, 1);
                put_value(w, T_UINT8, 9);
                put_value(w, coordinate, vertices[v][1]);
                put_value(w, T_UINT8, 255);
                if (w->encoding == 0) put_text(w, "\n");
            }
        }
    }
    put_value(w, T_UINT8, 0);
}

static void test_ply_types_and_layouts(void) {
    static const double vertices[4][3] = {{0, 0, 0}, {100, 0, 0}, {0, 100, 0}, {0, 0, 100}};
    static const int32_t faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    static byte_writer writer;
    int failures = 0, cases = 0;
    for (int encoding = 0; encoding < 3; ++encoding)
        for (int coordinate = 0; coordinate < 8; ++coordinate)
            for (int count_type = 0; count_type < 8; ++count_type)
                for (int faces_first = 0; faces_first < 2; ++faces_first) {
                    ply_test_type index_type = (ply_test_type)((coordinate + count_type + faces_first) % 8);
                    writer.encoding = encoding;
                    write_tetra_ply(&writer, (ply_test_type)coordinate, (ply_test_type)count_type, index_type,
                                    faces_first);
                    osc_mesh* mesh = NULL;
                    osc_mesh_load_report report;
                    osc_status status = osc_mesh_load_memory(writer.data, writer.size, NULL, &mesh, &report);
                    ++cases;
                    if (status != OSC_OK || !test_mesh_has_arrays(mesh, &vertices[0][0], 4, &faces[0][0], 4) ||
                        report.format != OSC_MESH_FORMAT_PLY || report.binary != (encoding > 0)) {
                        if (failures++ < 5)
                            fprintf(stderr, "PLY %d %s %s/%s faces first %d: %s\n", encoding, ply_names[coordinate],
                                    ply_names[count_type], ply_names[index_type], faces_first, osc_last_error());
                    }
                    osc_mesh_destroy(mesh);
                }
    CHECK_MSG(failures == 0, "%d of %d PLY layouts failed", failures, cases);
}

// ---------------------------------------------------------------------------------------------
// welding, the degenerate policy, unreferenced vertices, max_coordinate

// the greedy rule by brute force: each vertex, in order, joins the lowest earlier kept vertex
// closer than the tolerance in every axis, or is kept; remap[i] = its place among the kept
static int32_t brute_force_weld(const double* points, int32_t count, double tolerance, int32_t* kept, int32_t* remap) {
    int32_t kept_count = 0;
    for (int32_t i = 0; i < count; ++i) {
        int32_t partner = -1;
        for (int32_t k = 0; k < kept_count && partner < 0; ++k) {
            const double* q = points + 3 * kept[k];
            const double* p = points + 3 * i;
            if (fabs(p[0] - q[0]) < tolerance && fabs(p[1] - q[1]) < tolerance && fabs(p[2] - q[2]) < tolerance)
                partner = k;
        }
        if (partner < 0) kept[partner = kept_count++] = i;
        remap[i] = partner;
    }
    return kept_count;
}

static void test_welding(void) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    osc_mesh_load_report report;
    osc_status status;
    // -0 and 0 are the same point
    osc_mesh* mesh = load_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv -0 0 -0\nf 1 2 3\nf 1 4 2\n", OSC_MESH_FORMAT_OBJ,
                               &settings, &report, &status);
    CHECK(status == OSC_ERR_PARSE &&
          strstr(osc_last_error(), "line 6: degenerate face: two of its vertices were welded"));
    osc_mesh_destroy(mesh);

    // a square whose second triangle uses perturbed copies of two corners
    const char square[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 1e-7 0 0\nv 1 1.0000001 0\nf 1 2 3\nf 5 6 4\n";
    settings.weld_tolerance = 1e-6;
    mesh = load_text(square, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    const double welded[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    const int32_t welded_triangles[2][3] = {{0, 1, 2}, {0, 2, 3}};
    CHECK(status == OSC_OK && test_mesh_has_arrays(mesh, &welded[0][0], 4, &welded_triangles[0][0], 2));
    CHECK(report.vertices_welded == 2 && report.vertices_read == 6);
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(topology.edge_count == 5 && topology.boundary_edges == 4 && topology.components == 1);
    osc_mesh_destroy(mesh);
    for (int disabled = 0; disabled < 2; ++disabled) {
        settings.weld_tolerance = disabled ? -1.0 : 0.0;
        mesh = load_text(square, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
        osc_mesh_get_topology(mesh, &topology);
        CHECK(status == OSC_OK && osc_mesh_vertex_count(mesh) == 6 && topology.components == 2);
        CHECK(report.vertices_welded == 0);
        osc_mesh_destroy(mesh);
    }

    // greedy and deterministic: 0.6 joins 0, 1.2 does not (1.2 from the kept 0); max-norm (0.9 in
    // each axis joins); exactly the tolerance does not; the lowest kept vertex wins
    settings.weld_tolerance = 1.0;
    settings.keep_unreferenced = 1;
    mesh = load_text("v 0 0 0\nv 0.6 0 0\nv 1.2 0 0\nv 0.9 0.9 -0.9\nv 0 -1 0\nv 0.6 -0.9 0\nv -1 0 0\n"
                     "v 0 0 -1\nf 4 5 7\n",
                     OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    const double greedy[5][3] = {{0, 0, 0}, {1.2, 0, 0}, {0, -1, 0}, {-1, 0, 0}, {0, 0, -1}};
    const int32_t greedy_triangle[3] = {0, 2, 3}; // (0.9 0.9 -0.9) joins (0 0 0), not (1.2 0 0)
    CHECK(status == OSC_OK && test_mesh_has_arrays(mesh, &greedy[0][0], 5, greedy_triangle, 1));
    CHECK(report.vertices_welded == 3);
    osc_mesh_destroy(mesh);

    // clusters straddling cell boundaries, with a triangle over every three points, against the
    // brute-force rule (triangles that welding makes degenerate are dropped)
    enum { POINTS = 3000 };
    static double points[POINTS][3];
    static int32_t kept[POINTS], remap[POINTS], expected_triangles[POINTS / 3][3];
    static char text[POINTS * 80 + POINTS / 3 * 24];
    test_rng rng = {8};
    const double tolerance = 0.01;
    size_t length = 0;
    for (int i = 0; i < POINTS; ++i) {
        for (int a = 0; a < 3; ++a) {
            double lattice = tolerance * (double)(test_rng_next(&rng) % 5);
            points[i][a] = lattice + test_uniform(&rng, -0.7, 0.7) * tolerance;
        }
        length +=
            (size_t)snprintf(text + length, 80, "v %.17g %.17g %.17g\n", points[i][0], points[i][1], points[i][2]);
    }
    int32_t expected = brute_force_weld(&points[0][0], POINTS, tolerance, kept, remap);
    int32_t triangle_count = 0;
    for (int i = 0; i + 2 < POINTS; i += 3) {
        length += (size_t)snprintf(text + length, 24, "f %d %d %d\n", i + 1, i + 2, i + 3);
        int32_t a = remap[i], b = remap[i + 1], c = remap[i + 2];
        if (a == b || b == c || c == a) continue;
        expected_triangles[triangle_count][0] = a, expected_triangles[triangle_count][1] = b;
        expected_triangles[triangle_count++][2] = c;
    }
    settings.weld_tolerance = tolerance;
    settings.degenerate = OSC_MESH_DEGENERATE_DROP;
    settings.orient = 0; // a soup: the windings as written
    mesh = load_text(text, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    CHECK_STATUS(status, OSC_OK);
    CHECK_MSG(osc_mesh_vertex_count(mesh) == expected, "%d vertices kept, brute force %d", osc_mesh_vertex_count(mesh),
              expected);
    int mismatches = 0;
    for (int32_t k = 0; mesh && k < expected && k < osc_mesh_vertex_count(mesh); ++k)
        mismatches += memcmp(osc_mesh_vertices(mesh) + 3 * k, points[kept[k]], 3 * sizeof(double)) != 0;
    CHECK_MSG(mismatches == 0, "%d kept vertices differ from brute force", mismatches);
    CHECK(osc_mesh_triangle_count(mesh) == triangle_count && triangle_count > 100);
    CHECK(report.faces_dropped == POINTS / 3 - triangle_count && report.faces_dropped > 10);
    CHECK(mesh &&
          memcmp(osc_mesh_triangles(mesh), expected_triangles, 3 * (size_t)triangle_count * sizeof(int32_t)) == 0);
    CHECK(expected > 50 && expected < POINTS / 4); // merges many, keeps many
    osc_mesh_destroy(mesh);
}

static void test_degenerate_unreferenced_and_limits(void) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    osc_mesh_load_report report;
    osc_status status;
    const char text[] = "v 9 9 9\nv 0 0 0\nv 1 0 0\nv 5 5 5\nv 0 1 0\nf 2 3 5\nf 2 3 3\nf 3 5 2\n";
    // default: the repeated vertex is an error naming the line
    osc_mesh* mesh = load_text(text, OSC_MESH_FORMAT_OBJ, NULL, NULL, &status);
    CHECK(status == OSC_ERR_PARSE && mesh == NULL);
    CHECK(strstr(osc_last_error(), "osc_mesh_load_memory: OBJ line 7: degenerate face") != NULL);
    // DROP: gone and counted; unreferenced 9 9 9 and 5 5 5 removed, the order of the rest kept
    // (and the windings as written: orienting would turn one of the two coinciding triangles)
    settings.degenerate = OSC_MESH_DEGENERATE_DROP;
    settings.orient = 0;
    mesh = load_text(text, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    const double used[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const int32_t triangles[2][3] = {{0, 1, 2}, {1, 2, 0}};
    CHECK(status == OSC_OK && test_mesh_has_arrays(mesh, &used[0][0], 3, &triangles[0][0], 2));
    CHECK(report.faces_dropped == 1 && report.vertices_unreferenced == 2 && report.faces_read == 3);
    osc_mesh_destroy(mesh);
    settings.keep_unreferenced = 1;
    mesh = load_text(text, OSC_MESH_FORMAT_OBJ, &settings, &report, &status);
    const double all[5][3] = {{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {5, 5, 5}, {0, 1, 0}};
    const int32_t kept_triangles[2][3] = {{1, 2, 4}, {2, 4, 1}};
    osc_mesh_topology topology;
    osc_mesh_get_topology(mesh, &topology);
    CHECK(status == OSC_OK && osc_mesh_vertex_count(mesh) == 5 && report.vertices_unreferenced == 0);
    CHECK(test_mesh_has_arrays(mesh, &all[0][0], 5, &kept_triangles[0][0], 2));
    CHECK(topology.isolated_vertices == 2);
    osc_mesh_destroy(mesh);

    // max_coordinate: above is an error, equal is fine; the default is 1e12
    settings = osc_mesh_load_settings_default();
    settings.max_coordinate = 10.0;
    mesh = load_text("v 0 0 0\nv 10 -10 10\nv 0 0 -11\n", OSC_MESH_FORMAT_OBJ, &settings, NULL, &status);
    CHECK(status == OSC_ERR_PARSE &&
          strstr(osc_last_error(), "line 3: vertex 2: coordinate z = -11 exceeds max_coordinate 10"));
    mesh = load_text("v 0 0 0\nv 10 -10 10\n", OSC_MESH_FORMAT_OBJ, &settings, NULL, &status);
    CHECK(status == OSC_OK);
    osc_mesh_destroy(mesh);
    mesh = load_text("v 1e12 0 0\nv 1.0000001e12 0 0\n", OSC_MESH_FORMAT_OBJ, NULL, NULL, &status);
    CHECK(status == OSC_ERR_PARSE && strstr(osc_last_error(), "line 2:"));

    // the settings are checked
    const char* needles[5] = {"format", "weld_tolerance", "degenerate", "max_coordinate", "max_coordinate"};
    for (int i = 0; i < 5; ++i) {
        settings = osc_mesh_load_settings_default();
        if (i == 0) settings.format = (osc_mesh_format)9;
        if (i == 1) settings.weld_tolerance = NAN;
        if (i == 2) settings.degenerate = (osc_mesh_degenerate_policy)5;
        if (i == 3) settings.max_coordinate = 0.0;
        if (i == 4) settings.max_coordinate = NAN;
        mesh = (osc_mesh*)&mesh;
        CHECK_STATUS(osc_mesh_load_memory("v 0 0 0\n", 8, &settings, &mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
        CHECK(mesh == NULL && strstr(osc_last_error(), needles[i]) != NULL);
        CHECK_STATUS(osc_mesh_load(MESH_DATA "box.obj", &settings, &mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
    }
    CHECK_STATUS(osc_mesh_load_memory(NULL, 5, NULL, &mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "data") != NULL);
    CHECK_STATUS(osc_mesh_load_memory("v 0 0 0\n", 8, NULL, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_mesh_load(NULL, NULL, &mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "path") != NULL);
    CHECK_STATUS(osc_mesh_load(MESH_DATA "box.obj", NULL, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    settings = osc_mesh_load_settings_default();
    CHECK(settings.format == OSC_MESH_FORMAT_AUTO && settings.weld_tolerance == 0.0);
    CHECK(settings.degenerate == OSC_MESH_DEGENERATE_REJECT && settings.keep_unreferenced == 0);
    CHECK(settings.max_coordinate == 1e12);
}

// ---------------------------------------------------------------------------------------------
// malformed input

// tests/data/mesh/expected_errors.tsv: "file<TAB>needle" lines, '#' comments; the fixtures and the
// regression crashers of tests/fuzz_mesh.sh (crashers/...)
typedef struct malformed_fixture {
    char file[64];
    char needle[192]; // in the message, after "osc_mesh_load: '<path>': "
} malformed_fixture;

// reads the table; the number of entries (0 when it cannot)
static int read_expected_errors(malformed_fixture* fixtures, int capacity) {
    FILE* file = fopen(MESH_DATA "expected_errors.tsv", "r");
    if (!file) return 0;
    char line[320];
    int count = 0;
    while (count < capacity && fgets(line, sizeof line, file)) {
        char* tab = strchr(line, '\t');
        if (line[0] == '#' || !tab) continue;
        *tab = '\0';
        line[strcspn(tab + 1, "\r\n") + (size_t)(tab + 1 - line)] = '\0';
        snprintf(fixtures[count].file, sizeof fixtures[count].file, "%.63s", line);
        snprintf(fixtures[count].needle, sizeof fixtures[count].needle, "%.191s", tab + 1);
        ++count;
    }
    fclose(file);
    return count;
}

// each fails with OSC_ERR_PARSE, *out NULL and the expected place and reason, by path (the
// message names the path) and from memory (the message names osc_mesh_load_memory)
static void test_malformed_fixtures(void) {
    static malformed_fixture fixtures[128];
    int count = read_expected_errors(fixtures, 128);
    CHECK_MSG(count >= 56, "%d entries in expected_errors.tsv", count);
    for (int i = 0; i < count; ++i) {
        const malformed_fixture* fixture = &fixtures[i];
        char path[512], expected[768];
        snprintf(path, sizeof path, MESH_DATA "%.63s", fixture->file);
        snprintf(expected, sizeof expected, "osc_mesh_load: '%.500s': %.191s", path, fixture->needle);
        osc_mesh* mesh = (osc_mesh*)&mesh;
        osc_mesh_load_report report;
        memset(&report, 0xab, sizeof report);
        CHECK_STATUS(osc_mesh_load(path, NULL, &mesh, &report), OSC_ERR_PARSE);
        CHECK(mesh == NULL && report.vertices_read == 0);
        CHECK_MSG(strstr(osc_last_error(), expected) != NULL, "%s: message '%s', expected '%s'", fixture->file,
                  osc_last_error(), expected);
        size_t size = 0;
        unsigned char* data = read_whole_file(path, &size);
        CHECK(data != NULL);
        const char* extension = strrchr(fixture->file, '.');
        osc_mesh_load_settings settings = osc_mesh_load_settings_default();
        settings.format = !strcmp(extension, ".obj")   ? OSC_MESH_FORMAT_OBJ
                          : !strcmp(extension, ".off") ? OSC_MESH_FORMAT_OFF
                          : !strcmp(extension, ".ply") ? OSC_MESH_FORMAT_PLY
                                                       : OSC_MESH_FORMAT_STL;
        snprintf(expected, sizeof expected, "osc_mesh_load_memory: %.191s", fixture->needle);
        mesh = (osc_mesh*)&mesh;
        CHECK_STATUS(osc_mesh_load_memory(data, size, &settings, &mesh, NULL), OSC_ERR_PARSE);
        CHECK(mesh == NULL);
        CHECK_MSG(strstr(osc_last_error(), expected) != NULL, "%s from memory: message '%s'", fixture->file,
                  osc_last_error());
        free(data);
    }
}

// every proper prefix of every valid fixture fails with OSC_ERR_PARSE or loads the whole box
// (text formats may end early after the last face); the OBJ's prefixes may load a part of it.
// Every byte of the binary fixtures set to 0xff, and to 0x00, in turn: never a crash, and a
// success is a valid mesh
static void test_truncations_and_corruptions(void) {
    for (int i = 0; i < VALID_COUNT; ++i) {
        const valid_fixture* fixture = &valid_fixtures[i];
        char path[512];
        snprintf(path, sizeof path, MESH_DATA "%s", fixture->file);
        size_t size = 0;
        unsigned char* data = read_whole_file(path, &size);
        CHECK(data != NULL);
        if (!data) continue;
        osc_mesh_load_settings settings = osc_mesh_load_settings_default();
        settings.format = fixture->format;
        int bad = 0, loaded = 0;
        for (size_t length = 0; length < size; ++length) {
            unsigned char* prefix = malloc(length + 1); // exactly sized: the sanitizers see over-reads
            memcpy(prefix, data, length);
            osc_mesh* mesh = NULL;
            osc_status status = osc_mesh_load_memory(prefix, length, &settings, &mesh, NULL);
            if (status == OSC_OK) {
                ++loaded;
                bool acceptable = fixture->format == OSC_MESH_FORMAT_OBJ ? osc_mesh_triangle_count(mesh) <= 12
                                                                         : !fixture->binary && is_box(mesh);
                bad += !acceptable || test_mesh_breaches(mesh) != 0;
            } else {
                bad += status != OSC_ERR_PARSE || mesh != NULL;
            }
            osc_mesh_destroy(mesh);
            free(prefix);
        }
        CHECK_MSG(bad == 0, "%s: %d prefixes misbehaved (%d loaded)", fixture->file, bad, loaded);
        if (fixture->binary) {
            int crashes_survived = 0, corrupt_loaded = 0;
            bad = 0;
            for (size_t at = 0; at < size; ++at) {
                for (int value = 0; value < 2; ++value) {
                    unsigned char* copy = malloc(size);
                    memcpy(copy, data, size);
                    copy[at] = value ? 0xff : 0x00;
                    osc_mesh* mesh = NULL;
                    osc_status status = osc_mesh_load_memory(copy, size, &settings, &mesh, NULL);
                    bad += (status == OSC_OK) != (mesh != NULL) || (status != OSC_OK && status != OSC_ERR_PARSE);
                    if (status == OSC_OK && mesh) { // a success is a valid mesh
                        ++corrupt_loaded;
                        bad += test_mesh_breaches(mesh) != 0;
                    }
                    ++crashes_survived;
                    osc_mesh_destroy(mesh);
                    free(copy);
                }
            }
            CHECK_MSG(bad == 0, "%s: %d corruptions misbehaved of %d (%d loaded)", fixture->file, bad, crashes_survived,
                      corrupt_loaded);
        }
        free(data);
    }
}

// OSC_ERR_IO names the path: a missing file, a directory
static void test_io_errors(void) {
    const char* missing = "no_such_directory_for_osculate/mesh.obj";
    osc_mesh* mesh = (osc_mesh*)&mesh;
    CHECK_STATUS(osc_mesh_load(missing, NULL, &mesh, NULL), OSC_ERR_IO);
    CHECK(mesh == NULL);
    CHECK_MSG(strstr(osc_last_error(), missing) != NULL, "message '%s'", osc_last_error());
    CHECK_STATUS(osc_mesh_load(OSC_TEST_DATA_DIR, NULL, &mesh, NULL), OSC_ERR_IO);
    CHECK_MSG(strstr(osc_last_error(), OSC_TEST_DATA_DIR) != NULL, "message '%s'", osc_last_error());
}

// ---------------------------------------------------------------------------------------------
// real models

typedef struct real_model {
    const char* path;
    int32_t vertices, triangles, boundary_edges, closed, euler_characteristic;
} real_model;

// the bundled models (data/README.md) and the fetched ones (tools/fetch_models.sh), with the
// counts their sources state and the topology they are known to have
static void test_real_models(void) {
    enum { ANY = -99 }; // the Euler characteristic of a model whose genus no source states
    const real_model models[] = {
        {OSC_DATA_DIR "/bunny.obj", 1839, 3674, 0, 1, 2},
        {OSC_DATA_DIR "/teapot.obj", 529, 992, 64, 0, ANY}, // welded seams (data/README.md)
        {OSC_MODEL_DIR "/armadillo.off", 26002, 52000, 0, 1, 2},
        {OSC_MODEL_DIR "/bunny00.off", 37706, 75408, 0, 1, 2},
        {OSC_MODEL_DIR "/ChineseDragon-10kv.off", 10000, 19994, 6, 0, ANY},
        {OSC_MODEL_DIR "/fandisk.off", 6475, 12946, 0, 1, 2},
        {OSC_MODEL_DIR "/elephant.off", 2775, 5558, 0, 1, ANY},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i) {
        const real_model* model = &models[i];
        osc_mesh* mesh = test_load_model(model->path);
        if (!mesh) continue;
        osc_mesh_topology topology;
        osc_mesh_get_topology(mesh, &topology);
        CHECK_MSG(topology.vertex_count == model->vertices && topology.triangle_count == model->triangles,
                  "%s: %d vertices, %d triangles", model->path, topology.vertex_count, topology.triangle_count);
        CHECK_MSG(topology.boundary_edges == model->boundary_edges && topology.closed == model->closed,
                  "%s: %d boundary edges, closed %d", model->path, topology.boundary_edges, topology.closed);
        CHECK(topology.non_manifold_edges == 0 && topology.inconsistent_edges == 0);
        CHECK(topology.isolated_vertices == 0 && topology.degenerate_triangles == 0);
        CHECK_MSG(model->euler_characteristic == ANY || topology.euler_characteristic == model->euler_characteristic,
                  "%s: euler characteristic %d", model->path, topology.euler_characteristic);
        CHECK(osc_mesh_volume(mesh) > 0.0);
        osc_mesh_destroy(mesh);
    }
}

// the armadillo loads in well under 0.1 s (best of 5, timing printed), and written as OBJ it loads
// back identical
static void test_armadillo_speed_and_round_trip(void) {
    const char* path = OSC_MODEL_DIR "/armadillo.off";
    size_t size = 0;
    unsigned char* data = read_whole_file(path, &size);
    CHECK_MSG(data != NULL, "cannot read %s: run tools/fetch_models.sh", path);
    if (!data) return;
    double best = HUGE_VAL, best_file = HUGE_VAL;
    osc_mesh* mesh = NULL;
    for (int run = 0; run < 5; ++run) {
        osc_mesh_destroy(mesh);
        mesh = NULL;
        double start = test_seconds();
        CHECK_STATUS(osc_mesh_load_memory(data, size, NULL, &mesh, NULL), OSC_OK);
        best = fmin(best, test_seconds() - start);
        osc_mesh* from_file = NULL;
        start = test_seconds();
        CHECK_STATUS(osc_mesh_load(path, NULL, &from_file, NULL), OSC_OK);
        best_file = fmin(best_file, test_seconds() - start);
        osc_mesh_destroy(from_file);
    }
    printf("  armadillo.off (%zu bytes, 52000 triangles): best of 5 %.1f ms from memory, %.1f ms from the file\n", size,
           1e3 * best, 1e3 * best_file);
#if defined(__SANITIZE_ADDRESS__)
    const double limit = 0.5; // instrumented build
#else
    const double limit = 0.1;
#endif
    CHECK_MSG(best_file < limit, "loading the armadillo took %.3f s", best_file);
    CHECK_STATUS(osc_mesh_write_obj(mesh, "test_mesh_io_armadillo.obj"), OSC_OK);
    osc_mesh* again = NULL;
    CHECK_STATUS(osc_mesh_load("test_mesh_io_armadillo.obj", NULL, &again, NULL), OSC_OK);
    CHECK(test_mesh_equal(again, mesh));
    remove("test_mesh_io_armadillo.obj");
    osc_mesh_destroy(again);
    osc_mesh_destroy(mesh);
    free(data);
}

int main(void) {
    RUN(test_box_in_every_format);
    RUN(test_extension_and_content_detection);
    RUN(test_obj_round_trip);
    RUN(test_numbers_match_strtod);
    RUN(test_obj_features);
    RUN(test_off_features);
    RUN(test_stl_features);
    RUN(test_ply_types_and_layouts);
    RUN(test_welding);
    RUN(test_degenerate_unreferenced_and_limits);
    RUN(test_malformed_fixtures);
    RUN(test_truncations_and_corruptions);
    RUN(test_io_errors);
    RUN(test_real_models);
    RUN(test_armadillo_speed_and_round_trip);
    return test_finish();
}
