// test_convex.c: the DCOL primitives (convex.h): validation, vertices, gauges against closed forms,
// support points against surface samples (support . d is the maximum of sample . d), bounding
// radii, and hulls through qhull, exact and bounded in faces (on the bunny's vertices).

#include "convex_internal.h"
#include "convex_test_util.h"
#include "mesh_test_util.h"

#include <string.h>

static void test_bad_shapes(void) {
    osc_convex* shape = (osc_convex*)&shape; // must be reset to NULL on failure
    CHECK_STATUS(osc_convex_create_sphere(0.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(shape == NULL);
    CHECK(strstr(osc_last_error(), "radius") != NULL);
    CHECK_STATUS(osc_convex_create_sphere(NAN, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_sphere(1.0, NULL), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_capsule(-1.0, 1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_capsule(1.0, -1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_capsule(1.0, 0.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_capsule", "half_length"));
    CHECK_STATUS(osc_convex_create_cylinder(1.0, 0.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_cylinder", "half_length"));
    CHECK_STATUS(osc_convex_create_cylinder(INFINITY, 1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_cone(1.0, 0.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_cone", "half_length"));
    CHECK_STATUS(osc_convex_create_cone(0.0, 1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_cone", "radius"));
    CHECK_STATUS(osc_convex_create_cone(-1.0, 0.5, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_box(osc_v3(1, 0, 1), &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "half_extents.y") != NULL);
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(1, -1, 1), &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_ellipsoid", "radii.y"));
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(1, 1, 0), &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_ellipsoid", "radii.z"));
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(NAN, 1, 1), &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_ellipsoid", "radii.x"));

    // a cube, then variations: origin outside (b <= 0), a zero normal, unbounded, too few faces
    double normals[6 * 3] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
    double offsets[6] = {1, 1, 1, 1, 1, 1};
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_OK);
    osc_convex_destroy(shape);
    offsets[3] = -0.5;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "offset 3") != NULL);
    offsets[3] = 0.0;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
    offsets[3] = 1.0;
    normals[6] = normals[7] = normals[8] = 0.0;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "normal 2 is zero") != NULL);
    normals[7] = 1.0;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 5, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "bound") != NULL); // without -z the cube is an open column
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 3, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, OSC_CONVEX_MAX_FACES + 1, &shape),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_polytope(NULL, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
    normals[0] = NAN;
    CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "not finite") != NULL);

    // polygons: a square, then unbounded (three edges on one side) and the origin outside
    double C[4 * 2] = {1, 0, 0, 1, -1, 0, 0, -1}, d[4] = {1, 1, 1, 1};
    CHECK_STATUS(osc_convex_create_polygon(C, d, 4, 0.1, &shape), OSC_OK);
    CHECK(osc_convex_vertex_count(shape) == 4);
    osc_convex_destroy(shape);
    CHECK_STATUS(osc_convex_create_polygon(C, d, 3, 0.1, &shape), OSC_ERR_INVALID_ARGUMENT);
    d[1] = -1.0;
    CHECK_STATUS(osc_convex_create_polygon(C, d, 4, 0.1, &shape), OSC_ERR_INVALID_ARGUMENT);
    d[1] = 1.0;
    CHECK_STATUS(osc_convex_create_polygon(C, d, 4, 0.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_polygon(C, d, 2, 0.1, &shape), OSC_ERR_INVALID_ARGUMENT);
}

// whether the calling thread's message names `name` and shows the value `value` (as %g prints it)
static bool message_shows(const char* name, double value) {
    char printed[32];
    snprintf(printed, sizeof printed, "%g", value);
    return strstr(osc_last_error(), name) && strstr(osc_last_error(), printed);
}

// Every length of a shape must lie in [OSC_CONVEX_MIN_LENGTH, OSC_CONVEX_MAX_LENGTH] (1e-100 to
// 1e100): a pair's sum of bounding radii, its squares and the ratios of its sizes are then
// representable. Outside, creation fails naming the length and its value. Before, a sphere of
// radius 1e308 was created, and a query with it returned OSC_OK, a false COINCIDENT flag and NaN
// Jacobians (the pair's size overflowed).
static void test_length_ranges(void) {
    osc_convex* shape = NULL;
    const double outside[4] = {1e308, 1e101, 1e-101, 1e-300};
    for (int i = 0; i < 4; ++i) {
        double v = outside[i];
        CHECK_STATUS(osc_convex_create_sphere(v, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_names("osc_convex_create_sphere", "radius") && message_shows("radius", v));
        CHECK_STATUS(osc_convex_create_capsule(0.5, v, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("half_length", v));
        CHECK_STATUS(osc_convex_create_cylinder(v, 1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("radius", v));
        CHECK_STATUS(osc_convex_create_cone(v, 0.5, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("radius", v));
        CHECK_STATUS(osc_convex_create_cone(0.5, v, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("half_length", v));
        CHECK_STATUS(osc_convex_create_box(osc_v3(1, 1, v), &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("half_extents.z", v));
        double normals[18] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
        double offsets[6] = {1, 1, 1, 1, v, 1};
        CHECK_STATUS(osc_convex_create_polytope(normals, offsets, 6, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("offset 4", v));
        double C[8] = {1, 0, 0, 1, -1, 0, 0, -1}, d[4] = {1, v, 1, 1};
        CHECK_STATUS(osc_convex_create_polygon(C, d, 4, 0.1, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("offset 1", v));
        d[1] = 1.0;
        CHECK_STATUS(osc_convex_create_polygon(C, d, 4, v, &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_shows("radius", v));
        CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(1, v, 1), &shape), OSC_ERR_INVALID_ARGUMENT);
        CHECK(message_names("osc_convex_create_ellipsoid", "radii.y") && message_shows("radii.y", v));
    }
    // lengths a shape derives: a cone's bounding radius (3/4 of its height 2 half_length) and inner
    // radius (its side 3/4 of the height times the sine of the half angle from the centroid), and
    // a polytope's far vertex
    CHECK_STATUS(osc_convex_create_cone(1.0, 1e100, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_cone", "bounding radius") && message_shows("bounding radius", 1.5e100));
    CHECK_STATUS(osc_convex_create_cone(1e-100, 1.0, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_cone", "inner radius") && message_shows("inner radius", 7.5e-101));
    double sliver[15] = {1, 1e-110, 0, 1, -1e-110, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
    double sliver_offsets[5] = {1, 1, 1, 1, 1};
    CHECK_STATUS(osc_convex_create_polytope(sliver, sliver_offsets, 5, &shape), OSC_ERR_INVALID_ARGUMENT);
    // a hull's points (checked before the hull is taken, with or without qhull)
    double points[24] = {1, 1, 1, 1, 1, -1, 1, -1, 1, 1, -1, -1, -1, 1, 1, -1, 1, -1, -1, -1, 1, -1, -1, -1};
    points[10] = 1e200;
    CHECK_STATUS(osc_convex_create_hull(points, 8, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(message_names("osc_convex_create_hull", "point") && message_shows("point 3", 1e200));
    CHECK_STATUS(osc_convex_create_hull_bounded(points, 8, 6, NULL, &shape), OSC_ERR_INVALID_ARGUMENT);
    // the bounds themselves are accepted
    CHECK_STATUS(osc_convex_create_sphere(OSC_CONVEX_MAX_LENGTH, &shape), OSC_OK);
    osc_convex_destroy(shape);
    CHECK_STATUS(osc_convex_create_sphere(OSC_CONVEX_MIN_LENGTH, &shape), OSC_OK);
    osc_convex_destroy(shape);
    CHECK_STATUS(osc_convex_create_capsule(1e-90, 0.5e90, &shape), OSC_OK);
    osc_convex_destroy(shape);
}

// Every pointer argument of convex.h, NULL one at a time (the others valid). A function that
// returns a status answers OSC_ERR_INVALID_ARGUMENT with a message naming the function and the
// argument; osc_convex_destroy(NULL) does nothing; a getter returns its documented sentinel for a
// NULL shape and names it in osc_last_error(). Before, every getter read through the NULL shape.
static const null_argument null_status_cases[] = {
    {"osc_convex_create_polytope", "normals"},
    {"osc_convex_create_polytope", "offsets"},
    {"osc_convex_create_polytope", "out"},
    {"osc_convex_create_hull", "points"},
    {"osc_convex_create_hull", "out"},
    {"osc_convex_create_hull_bounded", "points"},
    {"osc_convex_create_hull_bounded", "out"},
    {"osc_convex_create_box", "out"},
    {"osc_convex_create_capsule", "out"},
    {"osc_convex_create_cylinder", "out"},
    {"osc_convex_create_cone", "out"},
    {"osc_convex_create_ellipsoid", "out"},
    {"osc_convex_create_sphere", "out"},
    {"osc_convex_create_polygon", "edge_normals"},
    {"osc_convex_create_polygon", "edge_offsets"},
    {"osc_convex_create_polygon", "out"},
};

// case `index` of null_status_cases, with valid arguments besides the NULL one
static osc_status call_with_null(int index, osc_convex** shape) {
    const double normals[18] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
    const double offsets[6] = {1, 1, 1, 1, 1, 1};
    const double points[24] = {1, 1, 1, 1, 1, -1, 1, -1, 1, 1, -1, -1, -1, 1, 1, -1, 1, -1, -1, -1, 1, -1, -1, -1};
    const double edges[8] = {1, 0, -1, 0, 0, 1, 0, -1};
    switch (index) {
        case 0: return osc_convex_create_polytope(NULL, offsets, 6, shape);
        case 1: return osc_convex_create_polytope(normals, NULL, 6, shape);
        case 2: return osc_convex_create_polytope(normals, offsets, 6, NULL);
        case 3: return osc_convex_create_hull(NULL, 8, shape);
        case 4: return osc_convex_create_hull(points, 8, NULL);
        case 5: return osc_convex_create_hull_bounded(NULL, 8, 6, NULL, shape);
        case 6: return osc_convex_create_hull_bounded(points, 8, 6, NULL, NULL);
        case 7: return osc_convex_create_box(osc_v3(1, 1, 1), NULL);
        case 8: return osc_convex_create_capsule(0.5, 0.5, NULL);
        case 9: return osc_convex_create_cylinder(0.5, 0.5, NULL);
        case 10: return osc_convex_create_cone(0.5, 0.5, NULL);
        case 11: return osc_convex_create_ellipsoid(osc_v3(1, 1, 1), NULL);
        case 12: return osc_convex_create_sphere(1.0, NULL);
        case 13: return osc_convex_create_polygon(NULL, offsets, 4, 0.1, shape);
        case 14: return osc_convex_create_polygon(edges, NULL, 4, 0.1, shape);
        default: return osc_convex_create_polygon(edges, offsets, 4, 0.1, NULL);
    }
}

static void test_null_arguments(void) {
    int count = (int)(sizeof null_status_cases / sizeof null_status_cases[0]);
    for (int i = 0; i < count; ++i) {
        const null_argument* c = &null_status_cases[i];
        osc_convex* shape = (osc_convex*)&shape; // reset to NULL on failure where out is given
        osc_status status = call_with_null(i, &shape);
        CHECK_MSG(status == OSC_ERR_INVALID_ARGUMENT && message_names(c->function, c->argument),
                  "%s with %s NULL: status %d, \"%s\"", c->function, c->argument, (int)status, osc_last_error());
        if (strcmp(c->argument, "out") != 0) CHECK(shape == NULL);
    }
    osc_convex_destroy(NULL); // nothing
    // the getters' sentinels for a NULL shape, the shape named in the message
    osc_pose pose = osc_pose_identity();
    double vertices[3];
    osc_vec3 support = osc_convex_support(NULL, pose, osc_v3(1, 0, 0));
    CHECK(isnan(support.x) && isnan(support.y) && isnan(support.z));
    CHECK(message_names("osc_convex_support", "shape"));
    CHECK(isnan(osc_convex_gauge(NULL, osc_v3(0.1, 0, 0))));
    CHECK(message_names("osc_convex_gauge", "shape"));
    // NaN in, NaN out: a non-finite point, pose or direction has no gauge or support point (the
    // gauge's fmax dropped a NaN term and gave 0; the support gave (NaN, 0.5, 0.5) for a NaN pose)
    osc_convex* cube = NULL;
    CHECK_STATUS(osc_convex_create_box(osc_v3(0.5, 0.5, 0.5), &cube), OSC_OK);
    const double bad_values[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3 && cube; ++k) {
        double v = bad_values[k];
        CHECK_MSG(isnan(osc_convex_gauge(cube, osc_v3(v, 0.1, 0.1))), "gauge at x = %g", v);
        CHECK_MSG(isnan(osc_convex_gauge(cube, osc_v3(0.1, 0.1, v))), "gauge at z = %g", v);
        osc_pose far = osc_pose_identity();
        far.p.x = v;
        osc_vec3 s = osc_convex_support(cube, far, osc_v3(1, 0, 0));
        CHECK_MSG(isnan(s.x) && isnan(s.y) && isnan(s.z), "support with pose.p.x = %g: (%g, %g, %g)", v, s.x, s.y, s.z);
        osc_pose turned = osc_pose_identity();
        turned.q.x = v;
        s = osc_convex_support(cube, turned, osc_v3(1, 0, 0));
        CHECK_MSG(isnan(s.x) && isnan(s.y) && isnan(s.z), "support with pose.q.x = %g", v);
        s = osc_convex_support(cube, osc_pose_identity(), osc_v3(0, v, 1));
        CHECK_MSG(isnan(s.x) && isnan(s.y) && isnan(s.z), "support along (0, %g, 1)", v);
    }
    if (cube) { // a zero direction: the pose's origin, as documented
        osc_vec3 s = osc_convex_support(cube, osc_pose_identity(), osc_v3(0, 0, 0));
        CHECK(s.x == 0.0 && s.y == 0.0 && s.z == 0.0);
    }
    osc_convex_destroy(cube);
    CHECK(isnan(osc_convex_bounding_radius(NULL)));
    CHECK(message_names("osc_convex_bounding_radius", "shape"));
    CHECK(osc_convex_get_kind(NULL) == OSC_CONVEX_INVALID);
    CHECK(message_names("osc_convex_get_kind", "shape"));
    CHECK(strcmp(osc_convex_kind_name(OSC_CONVEX_INVALID), "unknown") == 0);
    CHECK(osc_convex_face_count(NULL) == 0);
    CHECK(message_names("osc_convex_face_count", "shape"));
    CHECK(osc_convex_vertex_count(NULL) == 0);
    CHECK(message_names("osc_convex_vertex_count", "shape"));
    CHECK(osc_convex_vertices(NULL, vertices, 1) == 0);
    CHECK(message_names("osc_convex_vertices", "shape"));
    // a NULL vertices buffer is a size query
    osc_convex* box = NULL;
    CHECK_STATUS(osc_convex_create_box(osc_v3(1, 2, 3), &box), OSC_OK);
    CHECK(osc_convex_vertices(box, NULL, 8) == 8);
    osc_convex_destroy(box);
}

static void test_box_vertices_and_gauge(void) {
    osc_convex* box = NULL;
    CHECK_STATUS(osc_convex_create_box(osc_v3(0.5, 0.4, 0.3), &box), OSC_OK);
    CHECK(osc_convex_get_kind(box) == OSC_CONVEX_POLYTOPE);
    CHECK(osc_convex_face_count(box) == 6);
    CHECK(osc_convex_vertex_count(box) == 8);
    double vertices[8 * 3];
    CHECK(osc_convex_vertices(box, vertices, 8) == 8);
    for (int i = 0; i < 8; ++i) {
        CHECK_NEAR(fabs(vertices[3 * i]), 0.5, 1e-15);
        CHECK_NEAR(fabs(vertices[3 * i + 1]), 0.4, 1e-15);
        CHECK_NEAR(fabs(vertices[3 * i + 2]), 0.3, 1e-15);
    }
    CHECK_NEAR(osc_convex_bounding_radius(box), sqrt(0.25 + 0.16 + 0.09), 1e-15);
    CHECK_NEAR(osc_convex_gauge(box, osc_v3(0.25, 0.1, -0.3)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(box, osc_v3(1.0, 0.0, 0.0)), 2.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(box, osc_v3(0.0, 0.0, 0.0)), 0.0, 0.0);
    osc_convex_destroy(box);
}

// closed-form gauges of the round shapes at chosen points, in the body frames of convex.h (the
// axis of the capsule, cylinder and cone along z)
static void test_gauges(void) {
    osc_convex *capsule, *cylinder, *cone, *ellipsoid, *sphere;
    CHECK_STATUS(osc_convex_create_capsule(0.2, 0.4, &capsule), OSC_OK);
    CHECK_STATUS(osc_convex_create_cylinder(0.3, 0.35, &cylinder), OSC_OK);
    CHECK_STATUS(osc_convex_create_cone(tan(0.5), 0.5, &cone), OSC_OK); // height 1, half angle 0.5
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(0.5, 1, 2), &ellipsoid), OSC_OK);
    CHECK_STATUS(osc_convex_create_sphere(0.45, &sphere), OSC_OK);
    // capsule: the side, the end cap's pole, a point on the cap at 45 degrees
    CHECK_NEAR(osc_convex_gauge(capsule, osc_v3(0.2, 0.0, 0.1)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(capsule, osc_v3(0.0, 0.0, 0.6)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(capsule, osc_v3(0, 0.2 * sqrt(0.5), -0.4 - 0.2 * sqrt(0.5))), 1.0, 1e-14);
    CHECK_NEAR(osc_convex_gauge(capsule, osc_v3(0.0, 0.0, 1.2)), 2.0, 1e-15);
    CHECK_NEAR(osc_convex_bounding_radius(capsule), 0.6, 1e-15);
    // cylinder: the end face, the side
    CHECK_NEAR(osc_convex_gauge(cylinder, osc_v3(0.1, 0.1, 0.35)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(cylinder, osc_v3(0.0, -0.6, 0.1)), 2.0, 1e-15);
    // cone: the apex at 3/4 of the height above the origin, the rim a quarter below it with the
    // base radius
    CHECK_NEAR(osc_convex_gauge(cone, osc_v3(0.0, 0.0, 0.75)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(cone, osc_v3(tan(0.5), 0.0, -0.25)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(cone, osc_v3(0.0, 0.0, -0.5)), 2.0, 1e-15);
    CHECK_NEAR(osc_convex_bounding_radius(cone), fmax(0.75, hypot(0.25, tan(0.5))), 1e-15);
    // ellipsoid semi-axes, and its bounding radius (the largest semi-axis)
    CHECK_NEAR(osc_convex_gauge(ellipsoid, osc_v3(0.5, 0, 0)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(ellipsoid, osc_v3(0, -1, 0)), 1.0, 1e-15);
    CHECK_NEAR(osc_convex_gauge(ellipsoid, osc_v3(0, 0, 4)), 2.0, 1e-15);
    CHECK_NEAR(osc_convex_bounding_radius(ellipsoid), 2.0, 1e-12);
    CHECK_NEAR(osc_convex_gauge(sphere, osc_v3(0.3, 0.0, 0.4)), 0.5 / 0.45, 1e-15);
    osc_convex_destroy(capsule);
    osc_convex_destroy(cylinder);
    osc_convex_destroy(cone);
    osc_convex_destroy(ellipsoid);
    osc_convex_destroy(sphere);
}

// The same constructor arguments make the same solid in convex.h and sdf.h: points on the convex
// shape's surface (gauge 1, along random directions) lie on the SDF's zero set, and points at
// gauge 0.9 and 1.1 inside and outside it; the cone's origin is its centroid, half_length / 2
// above the SDF cone's (the middle of its axis)
static void test_same_solids_as_sdf(void) {
    osc_convex* convex[4] = {NULL, NULL, NULL, NULL};
    osc_sdf* sdf[4] = {NULL, NULL, NULL, NULL};
    const double shift[4] = {0.0, 0.0, -0.5 * 0.7, 0.0}; // the cone's centroid above the axis' middle
    CHECK_STATUS(osc_convex_create_capsule(0.3, 0.5, &convex[0]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_capsule(0.3, 0.5, &sdf[0]), OSC_OK);
    CHECK_STATUS(osc_convex_create_cylinder(0.4, 0.6, &convex[1]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_cylinder(0.4, 0.6, &sdf[1]), OSC_OK);
    CHECK_STATUS(osc_convex_create_cone(0.5, 0.7, &convex[2]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_cone(0.5, 0.0, 0.7, &sdf[2]), OSC_OK);
    CHECK_STATUS(osc_convex_create_ellipsoid(osc_v3(0.8, 0.5, 0.3), &convex[3]), OSC_OK);
    CHECK_STATUS(osc_sdf_create_ellipsoid(osc_v3(0.8, 0.5, 0.3), &sdf[3]), OSC_OK);
    test_rng rng = {23};
    double worst = 0.0;
    for (int k = 0; k < 4; ++k) {
        if (!convex[k] || !sdf[k]) continue;
        for (int trial = 0; trial < 1000; ++trial) {
            osc_vec3 y = random_surface_point(convex[k], &rng);
            osc_vec3 at = osc_v3(y.x, y.y, y.z + shift[k]); // the SDF's frame
            worst = fmax(worst, fabs(osc_sdf_eval(sdf[k], at, NULL, NULL)));
            osc_vec3 inside = osc_scale(y, 0.9), outside = osc_scale(y, 1.1);
            CHECK(osc_sdf_eval(sdf[k], osc_v3(inside.x, inside.y, inside.z + shift[k]), NULL, NULL) < 0.0);
            CHECK(osc_sdf_eval(sdf[k], osc_v3(outside.x, outside.y, outside.z + shift[k]), NULL, NULL) > 0.0);
        }
        osc_convex_destroy(convex[k]);
        osc_sdf_destroy(sdf[k]);
    }
    printf("  convex surface points on the SDF's zero set to %.2g\n", worst);
    CHECK(worst < 1e-14);
}

// for every kind: the support point lies on the surface (gauge 1), maximises d . p over 4006
// surface samples (along the six axis directions, then 4000 random ones: the cone's apex, on its
// axis, is within 3 % of the bounding radius along a random direction with probability 7e-5), is
// within the bounding radius, and moves with the pose
static void test_support_against_samples(void) {
    osc_convex* shapes[OSC_CONVEX_KIND_COUNT];
    make_test_shapes(shapes);
    test_rng rng = {11};
    for (int kind = 0; kind < OSC_CONVEX_KIND_COUNT; ++kind) {
        const osc_convex* shape = shapes[kind];
        enum { AXES = 6, SAMPLES = AXES + 4000 };
        static osc_vec3 samples[SAMPLES];
        double radius = 0.0;
        for (int i = 0; i < SAMPLES; ++i) {
            if (i < AXES) {
                osc_vec3 axis = osc_v3(i / 2 == 0, i / 2 == 1, i / 2 == 2);
                if (i % 2) axis = osc_neg(axis);
                samples[i] = osc_scale(axis, 1.0 / osc_convex_gauge(shape, axis));
            } else {
                samples[i] = random_surface_point(shape, &rng);
            }
            radius = fmax(radius, osc_length(samples[i]));
        }
        double bound = osc_convex_bounding_radius(shape);
        CHECK_MSG(radius <= bound * (1 + 1e-12) && radius >= 0.97 * bound, "%s: samples reach %g, bounding radius %g",
                  osc_convex_kind_name(kind), radius, bound);
        int worst_kind = -1;
        for (int trial = 0; trial < 200; ++trial) {
            osc_vec3 d =
                osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
            osc_vec3 p = osc_convex_support(shape, osc_pose_identity(), d);
            double best = -INFINITY;
            for (int i = 0; i < SAMPLES; ++i) best = fmax(best, osc_dot(samples[i], d));
            if (!(osc_dot(p, d) >= best - 1e-12)) worst_kind = kind;
            CHECK_NEAR(osc_convex_gauge(shape, p), 1.0, 1e-9);
            CHECK(osc_length(p) <= bound * (1 + 1e-12));
            // posed: the support of the rotated shape is the rotated support
            osc_pose pose = random_pose(&rng, 2.0);
            osc_vec3 posed = osc_convex_support(shape, pose, osc_quat_rotate(pose.q, d));
            osc_vec3 expected = osc_pose_apply(pose, p);
            CHECK_NEAR(osc_length(osc_sub(posed, expected)), 0.0, 1e-12);
        }
        CHECK_MSG(worst_kind < 0, "%s: a surface sample beats the support point", osc_convex_kind_name(kind));
        // a zero direction gives the pose's position
        osc_pose pose = random_pose(&rng, 1.0);
        osc_vec3 origin = osc_convex_support(shape, pose, osc_v3(0, 0, 0));
        CHECK(origin.x == pose.p.x && origin.y == pose.p.y && origin.z == pose.p.z);
    }
    CHECK(strcmp(osc_convex_kind_name(OSC_CONVEX_POLYGON), "polygon") == 0);
    CHECK(strcmp(osc_convex_kind_name((osc_convex_kind)42), "unknown") == 0);
    destroy_test_shapes(shapes);
}

static void test_hull(void) {
    test_rng rng = {5};
    enum { COUNT = 40 };
    double points[COUNT * 3];
    for (int i = 0; i < COUNT; ++i) {
        // points on a sphere of radius 1 around (0.1, 0, 0), a few inside
        osc_vec3 v =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        double r = i % 5 == 0 ? 0.5 : 1.0;
        points[3 * i] = 0.1 + r * v.x;
        points[3 * i + 1] = r * v.y;
        points[3 * i + 2] = r * v.z;
    }
    osc_convex* hull = NULL;
    osc_status status = osc_convex_create_hull(points, COUNT, &hull);
#ifdef OSC_HAVE_QHULL_EXPECTED
    CHECK_STATUS(status, OSC_OK);
#endif
    if (status == OSC_ERR_UNSUPPORTED) {
        printf("  osc_convex_create_hull: built without qhull (%s)\n", osc_last_error());
        return;
    }
    CHECK_STATUS(status, OSC_OK);
    if (!hull) return;
    // every point inside or on the hull, every vertex one of the points, the outer points on it
    int vertex_count = osc_convex_vertex_count(hull);
    CHECK(vertex_count >= 4 && vertex_count <= COUNT);
    for (int i = 0; i < COUNT; ++i) {
        double g = osc_convex_gauge(hull, osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2]));
        CHECK(g <= 1.0 + 1e-9);
        if (i % 5 != 0) CHECK(g > 0.5);
    }
    double vertices[COUNT * 3];
    osc_convex_vertices(hull, vertices, COUNT);
    for (int v = 0; v < vertex_count; ++v) {
        double nearest = INFINITY;
        for (int i = 0; i < COUNT; ++i)
            nearest =
                fmin(nearest, hypot(hypot(vertices[3 * v] - points[3 * i], vertices[3 * v + 1] - points[3 * i + 1]),
                                    vertices[3 * v + 2] - points[3 * i + 2]));
        CHECK(nearest < 1e-9);
    }
    osc_convex_destroy(hull);
    // the origin outside the hull, flat points, too few points, NaN
    double shifted[COUNT * 3];
    for (int i = 0; i < COUNT * 3; ++i) shifted[i] = points[i] + (i % 3 == 0 ? 3.0 : 0.0);
    CHECK_STATUS(osc_convex_create_hull(shifted, COUNT, &hull), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "origin") != NULL);
    double flat[8 * 3];
    for (int i = 0; i < 8; ++i) {
        flat[3 * i] = cos(i * 0.8);
        flat[3 * i + 1] = sin(i * 0.8);
        flat[3 * i + 2] = 0.0;
    }
    CHECK_STATUS(osc_convex_create_hull(flat, 8, &hull), OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_hull(points, 3, &hull), OSC_ERR_INVALID_ARGUMENT);
    points[7] = NAN;
    CHECK_STATUS(osc_convex_create_hull(points, COUNT, &hull), OSC_ERR_INVALID_ARGUMENT);
    // a dense sphere has more facets than a DCOL polytope may have
    enum { DENSE = 400 };
    static double dense[DENSE * 3];
    for (int i = 0; i < DENSE; ++i) {
        osc_vec3 v =
            osc_normalize(osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1)));
        dense[3 * i] = v.x;
        dense[3 * i + 1] = v.y;
        dense[3 * i + 2] = v.z;
    }
    CHECK_STATUS(osc_convex_create_hull(dense, DENSE, &hull), OSC_ERR_CAPACITY);
}

// The bunny's vertices about their mean (634 hull facets) bounded by 6 to 64 faces: every point
// inside, every face plane touching the points, the excess falling with the faces and never above
// the farthest corner's distance to its nearest point (an upper bound on its distance to the hull,
// which the excess bounds from below); a hull of few facets comes back exact; bad arguments
static void test_hull_bounded(void) {
    osc_mesh* bunny = test_load_model(OSC_DATA_DIR "/bunny.obj");
    if (!bunny) return;
    int count = osc_mesh_vertex_count(bunny);
    double* points = malloc(sizeof(double) * 3 * (size_t)count);
    const double* vertices = osc_mesh_vertices(bunny);
    double mean[3] = {0, 0, 0};
    for (int i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) mean[k] += vertices[3 * i + k] / count;
    for (int i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) points[3 * i + k] = vertices[3 * i + k] - mean[k];
    osc_mesh_destroy(bunny);
    osc_convex* shape = NULL;
    osc_status status = osc_convex_create_hull_bounded(points, count, 64, NULL, &shape);
    if (status == OSC_ERR_UNSUPPORTED) {
        printf("  osc_convex_create_hull_bounded: built without qhull (%s)\n", osc_last_error());
        free(points);
        return;
    }
    osc_convex_destroy(shape);
    CHECK_STATUS(osc_convex_create_hull(points, count, &shape), OSC_ERR_CAPACITY);
    CHECK(strstr(osc_last_error(), "osc_convex_create_hull_bounded") != NULL);
    double size = 0.0;
    for (int i = 0; i < 3 * count; ++i) size = fmax(size, fabs(points[i]));
    const int budgets[4] = {6, 12, 24, 64};
    double excesses[4];
    for (int b = 0; b < 4; ++b) {
        double excess = -1.0;
        CHECK_STATUS(osc_convex_create_hull_bounded(points, count, budgets[b], &excess, &shape), OSC_OK);
        if (!shape) continue;
        excesses[b] = excess;
        int faces = osc_convex_face_count(shape);
        CHECK(faces >= 6 && faces <= budgets[b]);
        double outside = 0.0;
        for (int i = 0; i < count; ++i)
            outside =
                fmax(outside, osc_convex_gauge(shape, osc_v3(points[3 * i], points[3 * i + 1], points[3 * i + 2])));
        CHECK_MSG(outside <= 1.0 + 1e-9, "budget %d: a point at gauge %.12f", budgets[b], outside);
        for (int f = 0; f < faces; ++f) {
            const double* n = shape->normals + 3 * f;
            double support = -INFINITY;
            for (int i = 0; i < count; ++i)
                support = fmax(support, n[0] * points[3 * i] + n[1] * points[3 * i + 1] + n[2] * points[3 * i + 2]);
            CHECK_MSG(fabs(support - shape->offsets[f]) <= 1e-9 * size, "budget %d: face %d at %.3e from the points",
                      budgets[b], f, shape->offsets[f] - support);
        }
        double farthest = 0.0;
        int corners = osc_convex_vertex_count(shape);
        for (int v = 0; v < corners; ++v) {
            const double* y = shape->vertices + 3 * v;
            double nearest = INFINITY;
            for (int i = 0; i < count; ++i)
                nearest = fmin(nearest,
                               hypot(hypot(y[0] - points[3 * i], y[1] - points[3 * i + 1]), y[2] - points[3 * i + 2]));
            farthest = fmax(farthest, nearest);
        }
        CHECK_MSG(excess > 0.0 && excess <= farthest + 1e-12, "budget %d: excess %g, farthest %g", budgets[b], excess,
                  farthest);
        printf("  bunny hull in %2d faces: excess %.3e of size %.3e, farthest corner %.3e\n", budgets[b], excess, size,
               farthest);
        osc_convex_destroy(shape);
    }
    for (int b = 1; b < 4; ++b) CHECK(excesses[b] <= excesses[b - 1]);
    CHECK(excesses[3] < 0.2 * excesses[0]);
    // random clouds, stretched and rotated, with random budgets: inside, within budget, touching
    test_rng rng = {17};
    enum { CLOUD = 300 };
    static double cloud[CLOUD * 3];
    for (int trial = 0; trial < 20; ++trial) {
        osc_mat3 rotation = osc_quat_to_mat3(random_rotation(&rng));
        osc_vec3 stretch =
            osc_v3(test_uniform(&rng, 0.05, 2.0), test_uniform(&rng, 0.05, 2.0), test_uniform(&rng, 0.05, 2.0));
        for (int i = 0; i < CLOUD; ++i) {
            osc_vec3 y = osc_v3(test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1), test_uniform(&rng, -1, 1));
            if (trial % 2) y = osc_normalize(y); // a sphere's surface, else a cube's volume
            y = osc_mat3_apply(rotation, osc_v3(stretch.x * y.x, stretch.y * y.y, stretch.z * y.z));
            cloud[3 * i] = y.x;
            cloud[3 * i + 1] = y.y;
            cloud[3 * i + 2] = y.z;
        }
        int budget = 6 + (int)test_uniform(&rng, 0, OSC_CONVEX_MAX_FACES - 6 + 0.999);
        double cloud_excess;
        CHECK_STATUS(osc_convex_create_hull_bounded(cloud, CLOUD, budget, &cloud_excess, &shape), OSC_OK);
        if (!shape) continue;
        CHECK(osc_convex_face_count(shape) <= budget && cloud_excess >= 0.0);
        double largest = 0.0, extent = 0.0;
        for (int i = 0; i < CLOUD; ++i) {
            osc_vec3 y = osc_v3(cloud[3 * i], cloud[3 * i + 1], cloud[3 * i + 2]);
            largest = fmax(largest, osc_convex_gauge(shape, y));
            extent = fmax(extent, osc_length(y));
        }
        CHECK_MSG(largest <= 1.0 + 1e-9, "trial %d: a point at gauge %.12f", trial, largest);
        for (int f = 0; f < osc_convex_face_count(shape); ++f) {
            double support = -INFINITY;
            for (int i = 0; i < CLOUD; ++i)
                support =
                    fmax(support,
                         osc_dot(osc_v3(shape->normals[3 * f], shape->normals[3 * f + 1], shape->normals[3 * f + 2]),
                                 osc_v3(cloud[3 * i], cloud[3 * i + 1], cloud[3 * i + 2])));
            CHECK_MSG(fabs(support - shape->offsets[f]) <= 1e-9 * extent, "trial %d: face %d off by %.3e", trial, f,
                      shape->offsets[f] - support);
        }
        osc_convex_destroy(shape);
    }
    // a cube with inner points: its six facets, exactly
    double cube[12 * 3];
    for (int i = 0; i < 12; ++i)
        for (int k = 0; k < 3; ++k) cube[3 * i + k] = i < 8 ? ((i >> k & 1) ? 0.5 : -0.5) : 0.05 * (i - 9) * (k + 1);
    double excess = -1.0;
    CHECK_STATUS(osc_convex_create_hull_bounded(cube, 12, 6, &excess, &shape), OSC_OK);
    CHECK(excess == 0.0);
    if (shape) {
        CHECK(osc_convex_face_count(shape) == 6 && osc_convex_vertex_count(shape) == 8);
        osc_convex_destroy(shape);
    }
    CHECK_STATUS(osc_convex_create_hull_bounded(points, count, 5, NULL, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(shape == NULL && strstr(osc_last_error(), "max_faces") != NULL);
    CHECK_STATUS(osc_convex_create_hull_bounded(points, count, OSC_CONVEX_MAX_FACES + 1, NULL, &shape),
                 OSC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(osc_convex_create_hull_bounded(points, count, 64, NULL, NULL), OSC_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < count; ++i) points[3 * i] += 10.0 * size;
    CHECK_STATUS(osc_convex_create_hull_bounded(points, count, 64, NULL, &shape), OSC_ERR_INVALID_ARGUMENT);
    CHECK(strstr(osc_last_error(), "origin") != NULL);
    free(points);
}

int main(void) {
    RUN(test_bad_shapes);
    RUN(test_null_arguments);
    RUN(test_length_ranges);
    RUN(test_box_vertices_and_gauge);
    RUN(test_gauges);
    RUN(test_same_solids_as_sdf);
    RUN(test_support_against_samples);
    RUN(test_hull);
    RUN(test_hull_bounded);
    return test_finish();
}
