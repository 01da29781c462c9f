// test_mesh_orient.c: orientation and closedness of meshes (osc_mesh_get_orientation,
// osc_mesh_orient, the importers' orientation step and the spline baker's checks). The oracle is
// the analytic inside/outside of boxes: every mesh here is built from axis-aligned boxes with
// n x n quads per face, some of them flipped, some faces missing, and the sign of the baked
// spline SDF (and of the BVH's signed distance) is checked at lattice points at least three cells
// from every face, against the box's own answer.

#include "mesh_test_util.h"

// ---------------------------------------------------------------------------------------------
// boxes as OBJ text

typedef struct obj_text {
    char* text;
    size_t length, capacity;
    int vertices; // written so far (OBJ indices count from 1)
} obj_text;

static void obj_append(obj_text* obj, const char* format, double a, double b, double c) {
    char line[128];
    int n = snprintf(line, sizeof line, format, a, b, c);
    if (obj->length + (size_t)n + 1 > obj->capacity) {
        obj->capacity = 2 * (obj->length + (size_t)n + 1024);
        obj->text = realloc(obj->text, obj->capacity);
    }
    memcpy(obj->text + obj->length, line, (size_t)n + 1);
    obj->length += (size_t)n;
}

// which quads of a box to flip or leave out
typedef enum quad_mode { QUAD_KEEP, QUAD_FLIP, QUAD_MISSING } quad_mode;
typedef quad_mode (*quad_rule)(int face, int i, int j, int n);

// a box of half extent `half` centred at `centre`, n x n quads per face, each quad two triangles
// counter-clockwise seen from outside unless `rule` flips it (or leaves it out); `inward` turns
// every triangle. Faces: 0..5 = -x, +x, -y, +y, -z, +z. Shared vertices are written once per face
// (the importer welds the copies).
static void obj_box(obj_text* obj, osc_vec3 centre, double half, int n, quad_rule rule, int inward) {
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        double side = face % 2 ? 1.0 : -1.0;
        int first = obj->vertices + 1;
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                double p[3];
                p[axis] = side * half;
                p[u] = half * (2.0 * i / n - 1.0);
                p[v] = half * (2.0 * j / n - 1.0);
                obj_append(obj, "v %.17g %.17g %.17g\n", centre.x + p[0], centre.y + p[1], centre.z + p[2]);
            }
        obj->vertices += (n + 1) * (n + 1);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                quad_mode mode = rule ? rule(face, i, j, n) : QUAD_KEEP;
                if (mode == QUAD_MISSING) continue;
                // e_u x e_v = e_axis: counter-clockwise in (u, v) faces +axis
                int c00 = first + j * (n + 1) + i, c10 = c00 + 1, c01 = c00 + n + 1, c11 = c01 + 1;
                int faces_plus_axis = ((side > 0) != (mode == QUAD_FLIP)) != (inward != 0);
                if (faces_plus_axis) {
                    obj_append(obj, "f %.0f %.0f %.0f\n", c00, c10, c11);
                    obj_append(obj, "f %.0f %.0f %.0f\n", c00, c11, c01);
                } else {
                    obj_append(obj, "f %.0f %.0f %.0f\n", c00, c11, c10);
                    obj_append(obj, "f %.0f %.0f %.0f\n", c00, c01, c11);
                }
            }
    }
}

static quad_mode flip_face_zero(int face, int i, int j, int n) {
    (void)i, (void)j, (void)n;
    return face == 0 ? QUAD_FLIP : QUAD_KEEP;
}

// a 2 x 2 patch of quads on +y and one quad on -z
static quad_mode flip_patches(int face, int i, int j, int n) {
    (void)n;
    if (face == 3 && i >= 1 && i <= 2 && j >= 1 && j <= 2) return QUAD_FLIP;
    return face == 4 && i == 0 && j == 3 ? QUAD_FLIP : QUAD_KEEP;
}

// the +z face left out
static quad_mode open_top(int face, int i, int j, int n) {
    (void)i, (void)j, (void)n;
    return face == 5 ? QUAD_MISSING : QUAD_KEEP;
}

// ---------------------------------------------------------------------------------------------
// the analytic answer: a set of boxes, each solid or a cavity

typedef struct test_box {
    osc_vec3 centre;
    double half;
    int cavity; // a hole in the solid box that holds it
} test_box;

// -1 inside the solid, +1 outside it, 0 within `margin` of a face (not checked)
static int analytic_side(const test_box* boxes, int count, osc_vec3 p, double margin) {
    int inside = 0;
    for (int b = 0; b < count; ++b) {
        osc_vec3 d = osc_sub(p, boxes[b].centre);
        double m = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))) - boxes[b].half;
        if (fabs(m) < margin) return 0;
        if (m < 0.0) inside += boxes[b].cavity ? -1 : 1;
    }
    return inside > 0 ? -1 : 1;
}

typedef struct sign_count {
    int checked, wrong_grid, wrong_bvh;
} sign_count;

// bakes `mesh` (resolution 32) and compares the signs of the spline and of the BVH's signed
// distance with the boxes' at the points of a 25^3 lattice over the grid's region that are at
// least three cells from every face (and, where `skip` is given, outside the region it names)
static sign_count count_sign_errors(const osc_mesh* mesh, const test_box* boxes, int count, int (*skip)(osc_vec3 p)) {
    sign_count result = {0, 0, 0};
    osc_mesh_bvh* bvh = NULL;
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &bvh), OSC_OK);
    osc_grid_settings settings = osc_grid_settings_default();
    settings.resolution = 32;
    osc_grid* grid = NULL;
    CHECK_STATUS(osc_grid_create_from_mesh(bvh, &settings, &grid), OSC_OK);
    if (grid) {
        osc_vec3 lo, hi;
        osc_grid_bounds(grid, &lo, &hi);
        double cell = osc_grid_cells(grid, NULL);
        for (int k = 0; k <= 24; ++k)
            for (int j = 0; j <= 24; ++j)
                for (int i = 0; i <= 24; ++i) {
                    osc_vec3 p = osc_v3(lo.x + (hi.x - lo.x) * i / 24.0, lo.y + (hi.y - lo.y) * j / 24.0,
                                        lo.z + (hi.z - lo.z) * k / 24.0);
                    int side = analytic_side(boxes, count, p, 3.0 * cell);
                    if (side == 0 || (skip && skip(p))) continue;
                    ++result.checked;
                    result.wrong_grid += (osc_grid_eval(grid, p, NULL, NULL) < 0.0 ? -1 : 1) != side;
                    result.wrong_bvh += (osc_mesh_bvh_signed_distance(bvh, p, NULL) < 0.0 ? -1 : 1) != side;
                }
    }
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    return result;
}

// loads OBJ text with the default settings (the file as a user would read it)
static osc_mesh* load_obj(const obj_text* obj) {
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_load_memory(obj->text, obj->length, NULL, &mesh, NULL), OSC_OK);
    return mesh;
}

static void check_signs(const char* name, const obj_text* obj, const test_box* boxes, int count,
                        int (*skip)(osc_vec3 p)) {
    osc_mesh* mesh = load_obj(obj);
    if (!mesh) return;
    sign_count signs = count_sign_errors(mesh, boxes, count, skip);
    printf("  %-40s %5d points, wrong sign: spline %d, BVH %d\n", name, signs.checked, signs.wrong_grid,
           signs.wrong_bvh);
    CHECK(signs.checked > 200);
    CHECK_MSG(signs.wrong_grid == 0 && signs.wrong_bvh == 0, "%s: %d / %d wrong signs (spline / BVH) of %d", name,
              signs.wrong_grid, signs.wrong_bvh, signs.checked);
    osc_mesh_destroy(mesh);
}

// points above the open top of the box at the origin, within two half extents of the hole
static int near_open_top(osc_vec3 p) { return p.z > 0.0 && fabs(p.x) < 2.0 && fabs(p.y) < 2.0; }

// ---------------------------------------------------------------------------------------------
// the cases of the issue: the sign of the baked SDF far from the surface

static void test_loaded_signs(void) {
    const test_box one[1] = {{osc_v3(0, 0, 0), 1.0, 0}};
    struct {
        const char* name;
        quad_rule rule;
        int inward;
    } cases[] = {
        {"outward cube", NULL, 0},
        {"inverted cube", NULL, 1},
        {"cube with one flipped face", flip_face_zero, 0},
        {"cube with flipped patches", flip_patches, 0},
        {"inverted cube, flipped patches", flip_patches, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        obj_text obj = {0};
        obj_box(&obj, osc_v3(0, 0, 0), 1.0, 4, cases[c].rule, cases[c].inward);
        check_signs(cases[c].name, &obj, one, 1, NULL);
        free(obj.text);
    }
    for (int inward = 0; inward < 2; ++inward) {
        obj_text obj = {0};
        obj_box(&obj, osc_v3(0, 0, 0), 1.0, 4, open_top, inward);
        check_signs(inward ? "inverted open box (far from the hole)" : "open box (far from the hole)", &obj, one, 1,
                    near_open_top);
        free(obj.text);
    }
    // two components, the second inverted
    const test_box two[2] = {{osc_v3(-2, 0, 0), 1.0, 0}, {osc_v3(2, 0, 0), 1.0, 0}};
    obj_text obj = {0};
    obj_box(&obj, two[0].centre, 1.0, 4, NULL, 0);
    obj_box(&obj, two[1].centre, 1.0, 4, NULL, 1);
    check_signs("two cubes, one inverted", &obj, two, 2, NULL);
    free(obj.text);
    // a hollow cube: the cavity's faces point into it, and must stay so; then both shells inverted
    const test_box hollow[2] = {{osc_v3(0, 0, 0), 1.0, 0}, {osc_v3(0, 0, 0), 0.3, 1}};
    for (int inverted = 0; inverted < 2; ++inverted) {
        obj_text shells = {0};
        obj_box(&shells, hollow[0].centre, 1.0, 4, NULL, inverted);
        obj_box(&shells, hollow[1].centre, 0.3, 4, NULL, !inverted);
        check_signs(inverted ? "hollow cube, both shells inverted" : "hollow cube (cavity)", &shells, hollow, 2, NULL);
        free(shells.text);
    }
    // a solid cube inside another: solid throughout, inverted or not
    const test_box nested[2] = {{osc_v3(0, 0, 0), 1.0, 0}, {osc_v3(0, 0, 0), 0.3, 0}};
    for (int inverted = 0; inverted < 2; ++inverted) {
        obj_text nest = {0};
        obj_box(&nest, nested[0].centre, 1.0, 4, NULL, inverted);
        obj_box(&nest, nested[1].centre, 0.3, 4, NULL, inverted);
        check_signs(inverted ? "cube in a cube, both inverted" : "cube in a cube", &nest, nested, 2, NULL);
        free(nest.text);
    }
}

// ---------------------------------------------------------------------------------------------
// the analysis against counts made by hand

// OBJ text of the given vertices and 1-based faces
static obj_text obj_from(const double* v, int vertex_count, const int* f, int face_count) {
    obj_text obj = {0};
    for (int i = 0; i < vertex_count; ++i)
        obj_append(&obj, "v %.17g %.17g %.17g\n", v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    for (int i = 0; i < face_count; ++i) obj_append(&obj, "f %.0f %.0f %.0f\n", f[3 * i], f[3 * i + 1], f[3 * i + 2]);
    obj.vertices = vertex_count;
    return obj;
}

// the unit square twice, once each way: closed, consistent, no volume
static obj_text doubly_covered_square(void) {
    static const double v[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const int f[] = {1, 2, 3, 1, 3, 4, 1, 3, 2, 1, 4, 3};
    return obj_from(v, 4, f, 4);
}

// a Moebius strip of 8 quads (16 triangles), closed up with a half twist
static obj_text moebius_strip(void) {
    double v[48];
    int f[48], n = 8;
    for (int i = 0; i < n; ++i) {
        double angle = 2.0 * TEST_PI * i / n, twist = 0.5 * angle;
        for (int s = 0; s < 2; ++s) {
            double w = s ? 0.3 : -0.3, r = 1.0 + w * cos(twist);
            v[3 * (2 * i + s)] = r * cos(angle);
            v[3 * (2 * i + s) + 1] = r * sin(angle);
            v[3 * (2 * i + s) + 2] = w * sin(twist);
        }
    }
    for (int i = 0; i < n; ++i) {
        int a = 2 * i + 1, b = 2 * i + 2;                                 // this rung (1-based)
        int c = i + 1 < n ? 2 * i + 3 : 2, d = i + 1 < n ? 2 * i + 4 : 1; // the next, swapped at the seam
        int quad[6] = {a, c, d, a, d, b};
        memcpy(f + 6 * i, quad, sizeof quad);
    }
    return obj_from(v, 2 * n, f, 2 * n);
}

// an outward unit cube with a fin: one extra triangle on its edge x = y = 0
static void obj_fin(obj_text* obj) {
    obj_box(obj, osc_v3(0.5, 0.5, 0.5), 0.5, 1, NULL, 0);
    int base = obj->vertices;
    obj_append(obj, "v %.17g %.17g %.17g\n", -1.0, -1.0, 0.5);
    obj->vertices += 1;
    // the cube's corners (0, 0, 0) and (0, 0, 1) are its first face's vertices 1 and 3 (-x face:
    // u = y, v = z)
    obj_append(obj, "f %.0f %.0f %.0f\n", 1, 3, base + 1);
}

typedef struct expected_orientation {
    int patches, closed, boundary, non_manifold, inconsistent, non_orientable, flat, inverted, flipped, reliable;
    double volume; // NAN: not checked
} expected_orientation;

static void check_orientation(const char* name, const obj_text* obj, expected_orientation e) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.orient = 0;
    osc_mesh* raw = NULL;
    osc_mesh_load_report report;
    CHECK_STATUS(osc_mesh_load_memory(obj->text, obj->length, &settings, &raw, &report), OSC_OK);
    if (!raw) return;
    osc_mesh_orientation o;
    CHECK_STATUS(osc_mesh_get_orientation(raw, &o), OSC_OK);
    CHECK_MSG(memcmp(&o, &report.orientation, sizeof o) == 0, "%s: the load report differs from the analysis", name);
    printf("  %-34s patches %d closed %d boundary %d non-manifold %d inconsistent %d non-orientable %d flat %d "
           "inverted %d flipped %d reliable %d volume %g\n",
           name, o.patches, o.closed_patches, o.boundary_edges, o.non_manifold_edges, o.inconsistent_edges,
           o.non_orientable_patches, o.flat_patches, o.inverted_patches, o.triangles_flipped, o.sign_reliable,
           o.volume);
    CHECK_MSG(o.patches == e.patches && o.closed_patches == e.closed && o.boundary_edges == e.boundary &&
                  o.non_manifold_edges == e.non_manifold && o.inconsistent_edges == e.inconsistent &&
                  o.non_orientable_patches == e.non_orientable && o.flat_patches == e.flat &&
                  o.inverted_patches == e.inverted && o.triangles_flipped == e.flipped && o.sign_reliable == e.reliable,
              "%s: the counts differ from the expected ones", name);
    if (!isnan(e.volume)) CHECK_NEAR(o.volume, e.volume, 1e-12 * fmax(1.0, fabs(e.volume)));

    // orienting: the same vertices, the same triangles up to their winding, and idempotent
    osc_mesh *oriented = NULL, *again = NULL, *loaded = NULL;
    osc_mesh_orientation first;
    CHECK_STATUS(osc_mesh_orient(raw, &oriented, &first), OSC_OK);
    CHECK(memcmp(&first, &o, sizeof o) == 0);
    CHECK_STATUS(osc_mesh_load_memory(obj->text, obj->length, NULL, &loaded, NULL), OSC_OK);
    if (oriented && loaded) {
        int32_t n = osc_mesh_triangle_count(raw);
        const int32_t *a = osc_mesh_triangles(raw), *b = osc_mesh_triangles(oriented);
        int flipped = 0, same_set = 1;
        for (int32_t t = 0; t < n; ++t) {
            same_set &= a[3 * t] == b[3 * t] && ((a[3 * t + 1] == b[3 * t + 1] && a[3 * t + 2] == b[3 * t + 2]) ||
                                                 (a[3 * t + 1] == b[3 * t + 2] && a[3 * t + 2] == b[3 * t + 1]));
            flipped += a[3 * t + 1] != b[3 * t + 1];
        }
        CHECK_MSG(same_set && flipped == o.triangles_flipped, "%s: %d triangles turned, %d reported", name, flipped,
                  o.triangles_flipped);
        CHECK(osc_mesh_vertex_count(oriented) == osc_mesh_vertex_count(raw) &&
              memcmp(osc_mesh_vertices(oriented), osc_mesh_vertices(raw),
                     3 * sizeof(double) * (size_t)osc_mesh_vertex_count(raw)) == 0);
        // the importer's default gives the same mesh
        CHECK(osc_mesh_triangle_count(loaded) == n &&
              memcmp(osc_mesh_triangles(loaded), b, 3 * sizeof(int32_t) * (size_t)n) == 0);
        osc_mesh_orientation second;
        CHECK_STATUS(osc_mesh_orient(oriented, &again, &second), OSC_OK);
        CHECK_MSG(second.triangles_flipped == 0 && second.inverted_patches == 0 &&
                      (second.inconsistent_edges == 0 || second.non_orientable_patches > 0),
                  "%s: orienting twice turns %d triangles", name, second.triangles_flipped);
        CHECK(again && memcmp(osc_mesh_triangles(again), b, 3 * sizeof(int32_t) * (size_t)n) == 0);
    }
    osc_mesh_destroy(again);
    osc_mesh_destroy(oriented);
    osc_mesh_destroy(loaded);
    osc_mesh_destroy(raw);
}

static void test_orientation_counts(void) {
    struct {
        const char* name;
        quad_rule rule;
        int inward;
        expected_orientation e;
    } boxes[] = {
        // 4 x 4 quads per face: 192 triangles, 16 edges along each face's rim
        {"outward cube", NULL, 0, {1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 8.0}},
        {"inverted cube", NULL, 1, {1, 1, 0, 0, 0, 0, 0, 1, 192, 1, 8.0}},
        {"cube with one flipped face", flip_face_zero, 0, {1, 1, 0, 0, 16, 0, 0, 0, 32, 1, 8.0}},
        {"cube with flipped patches", flip_patches, 0, {1, 1, 0, 0, 12, 0, 0, 0, 10, 1, 8.0}},
        {"inverted cube, flipped patches", flip_patches, 1, {1, 1, 0, 0, 12, 0, 0, 1, 182, 1, 8.0}},
        {"open box", open_top, 0, {1, 0, 16, 0, 0, 0, 0, 0, 0, 0, NAN}},
        {"inverted open box", open_top, 1, {1, 0, 16, 0, 0, 0, 0, 1, 160, 0, NAN}},
    };
    for (size_t c = 0; c < sizeof boxes / sizeof boxes[0]; ++c) {
        obj_text obj = {0};
        obj_box(&obj, osc_v3(0, 0, 0), 1.0, 4, boxes[c].rule, boxes[c].inward);
        check_orientation(boxes[c].name, &obj, boxes[c].e);
        free(obj.text);
    }
    obj_text obj = {0};
    obj_box(&obj, osc_v3(-2, 0, 0), 1.0, 4, NULL, 0);
    obj_box(&obj, osc_v3(2, 0, 0), 1.0, 4, NULL, 1);
    check_orientation("two cubes, one inverted", &obj, (expected_orientation){2, 2, 0, 0, 0, 0, 0, 1, 192, 1, 16.0});
    free(obj.text);
    // a cavity faces into it (volume 8 - 0.216) and is left so; both shells inverted are turned
    for (int inverted = 0; inverted < 2; ++inverted) {
        obj_text shells = {0};
        obj_box(&shells, osc_v3(0, 0, 0), 1.0, 4, NULL, inverted);
        obj_box(&shells, osc_v3(0, 0, 0), 0.3, 4, NULL, !inverted);
        check_orientation(inverted ? "hollow cube, inverted" : "hollow cube", &shells,
                          (expected_orientation){2, 2, 0, 0, 0, 0, 0, 2 * inverted, 384 * inverted, 1, 7.784});
        free(shells.text);
    }
    // a solid inside a solid (both outward) is no cavity: left as it is, and so is the same nest
    // written inverted once turned over as a whole
    for (int inverted = 0; inverted < 2; ++inverted) {
        obj_text nest = {0};
        obj_box(&nest, osc_v3(0, 0, 0), 1.0, 4, NULL, inverted);
        obj_box(&nest, osc_v3(0, 0, 0), 0.3, 4, NULL, inverted);
        check_orientation(inverted ? "cube in a cube, both inverted" : "cube in a cube", &nest,
                          (expected_orientation){2, 2, 0, 0, 0, 0, 0, 2 * inverted, 384 * inverted, 1, 8.216});
        free(nest.text);
    }
    // two unit cubes sharing the edge x = y = 1 (four triangles on it): two closed patches
    obj = (obj_text){0};
    obj_box(&obj, osc_v3(0.5, 0.5, 0.5), 0.5, 1, NULL, 0);
    obj_box(&obj, osc_v3(1.5, 1.5, 0.5), 0.5, 1, NULL, 1);
    check_orientation("two cubes on an edge, one inverted", &obj,
                      (expected_orientation){2, 2, 0, 1, 0, 0, 0, 1, 12, 1, 2.0});
    free(obj.text);
    obj = (obj_text){0};
    obj_fin(&obj);
    check_orientation("cube with a fin", &obj, (expected_orientation){2, 1, 2, 1, 0, 0, 1, 0, 0, 0, NAN});
    free(obj.text);
    obj = doubly_covered_square();
    // the diagonal carries all four triangles: two closed, flat pillows of two triangles each
    check_orientation("doubly covered square", &obj, (expected_orientation){2, 2, 0, 1, 0, 0, 2, 0, 0, 0, 0.0});
    free(obj.text);
    obj = moebius_strip();
    // one edge runs the same way in both its triangles wherever the seam is put: kept as given
    check_orientation("Moebius strip", &obj, (expected_orientation){1, 0, 16, 0, 1, 1, 0, 0, 0, 0, NAN});
    free(obj.text);
}

// ---------------------------------------------------------------------------------------------
// the spline baker refuses a mesh whose sign it would get wrong, with the reason

static void check_bake_refused(const char* name, const obj_text* obj, const char* reason) {
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.orient = 0;
    osc_mesh* mesh = NULL;
    CHECK_STATUS(osc_mesh_load_memory(obj->text, obj->length, &settings, &mesh, NULL), OSC_OK);
    osc_mesh_bvh* bvh = NULL;
    CHECK_STATUS(osc_mesh_bvh_create(mesh, &bvh), OSC_OK);
    osc_grid* grid = (osc_grid*)bvh; // a sentinel the call must clear
    CHECK_STATUS(osc_grid_create_from_mesh(bvh, NULL, &grid), OSC_ERR_INVALID_ARGUMENT);
    CHECK(grid == NULL);
    CHECK_MSG(strstr(osc_last_error(), reason) != NULL, "%s: '%s' does not say '%s'", name, osc_last_error(), reason);
    printf("  %-28s %s\n", name, osc_last_error());
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(mesh);
}

static void test_bake_refusals(void) {
    obj_text obj = {0};
    obj_box(&obj, osc_v3(0, 0, 0), 1.0, 2, NULL, 1);
    check_bake_refused("inverted cube", &obj, "osc_mesh_orient");
    free(obj.text);
    obj = (obj_text){0};
    obj_box(&obj, osc_v3(0, 0, 0), 1.0, 2, flip_face_zero, 0);
    check_bake_refused("cube with one flipped face", &obj, "8 inconsistent edges");
    free(obj.text);
    obj = doubly_covered_square();
    check_bake_refused("doubly covered square", &obj, "encloses no volume");
    free(obj.text);
    obj = moebius_strip();
    check_bake_refused("Moebius strip", &obj, "not orientable");
    free(obj.text);

    // an SDF with no inside the marching cubes can see: the collision mesh says so (it used to be
    // an empty mesh, which osc_body_create then called "the mesh is empty")
    osc_sdf* torus = NULL;
    CHECK_STATUS(osc_sdf_create_torus(1.0, 1e-4, &torus), OSC_OK);
    osc_collision_mesh_settings cm = osc_collision_mesh_settings_default();
    cm.resolution = 16;
    osc_mesh* mesh = (osc_mesh*)torus;
    CHECK_STATUS(osc_collision_mesh_create(torus, &cm, &mesh), OSC_ERR_INVALID_ARGUMENT);
    CHECK(mesh == NULL);
    CHECK(strstr(osc_last_error(), "no surface") != NULL);
    printf("  %-28s %s\n", "hair-thin torus", osc_last_error());
    osc_sdf_destroy(torus);
}

static void test_bad_arguments(void) {
    osc_mesh_orientation o;
    memset(&o, 0xff, sizeof o);
    CHECK_STATUS(osc_mesh_get_orientation(NULL, &o), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "mesh is NULL") != NULL);
    CHECK(o.patches == 0 && o.triangles_flipped == 0);
    obj_text obj = {0};
    obj_box(&obj, osc_v3(0, 0, 0), 1.0, 1, NULL, 0);
    osc_mesh* mesh = load_obj(&obj);
    free(obj.text);
    CHECK_STATUS(osc_mesh_get_orientation(mesh, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "out is NULL") != NULL);
    osc_mesh* out = mesh;
    CHECK_STATUS(osc_mesh_orient(NULL, &out, &o), OSC_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && strstr(osc_last_error(), "mesh is NULL") != NULL);
    CHECK_STATUS(osc_mesh_orient(mesh, NULL, &o), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "out is NULL") != NULL);
    CHECK_STATUS(osc_mesh_orient(mesh, &out, NULL), OSC_OK); // the report is optional
    osc_mesh_destroy(out);
    // an empty mesh has no patch and no reliable sign
    osc_mesh* empty = NULL;
    CHECK_STATUS(osc_mesh_create(NULL, 0, NULL, 0, &empty), OSC_OK);
    CHECK_STATUS(osc_mesh_get_orientation(empty, &o), OSC_OK);
    CHECK(o.patches == 0 && o.sign_reliable == 0);
    osc_mesh_load_settings settings = osc_mesh_load_settings_default();
    settings.orient = 2;
    CHECK_STATUS(osc_mesh_load_memory("v 0 0 0\n", 8, &settings, &out, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "orient") != NULL);
    osc_mesh_destroy(empty);
    osc_mesh_destroy(mesh);
}

int main(void) {
    RUN(test_bad_arguments);
    RUN(test_orientation_counts);
    RUN(test_bake_refusals);
    RUN(test_loaded_signs);
    return test_finish();
}
