// dump_outputs.c: every output of the five query families (DCOL, contact manifolds, SDF pairs, rays,
// local minimal distances) on fixed inputs, one value a line, so that a change of the API or of the
// numerics can be shown to leave the results unchanged: bit for bit, or within a stated rounding
// (tools/compare_dumps.py compares two dumps).
//
// FORMAT
// One line per output value, in a fixed order:
//     family case index field component = VALUE
// family   dcol, dcol_batch, manifold, manifold_batch, sdf_pair, ray, ray_batch, lmd
// case     the input: a pair of shapes and a pose, a scenario step, ... (no spaces)
// index    the pose, contact or ray within the case; -1 for a line about the whole query
//          (status, count)
// field    the output's name; the pose Jacobian of output X is "X.jacobian" (12 columns, the twist
//          of A, then of B; LMD's gap gradient is "gap.jacobian"), so that renaming X renames it
//          too; the ray Jacobians keep ray.h's names (t_origin, point_surface_pose, ...)
// component the element of a vector or matrix (row-major), 0 for a scalar
// VALUE    a double as C's %a (hexadecimal, exact), an integer (status, count, flag, index) as a
//          decimal integer
// Lines starting with '#' are comments. stderr gets progress and timings.
//
// INPUTS (fixed; every random number comes from bench.h's LCG with a fixed seed)
// dcol      the seven kinds of bench_dcol.c's make_shapes (a dodecahedron of inradius 0.4, capsule
//           radius 0.2 length 0.8, cylinder radius 0.3 length 0.7, cone height 1 half angle 0.5,
//           ellipsoid P = diag(4, 2, 9), sphere 0.5, a hexagon of offsets 0.4 padded by 0.1), every
//           ordered pair x 20 poses: A at a point in [-1, 1]^3, B at A's position plus f (s_A + s_B)
//           u, u a random unit vector, s the shapes' physical sizes (about their bounding radii), f
//           from 0.3 to 1.3 (overlapping and separated); poses 0 and 1 with both orientations the
//           identity and u = x (flat contacts for the flat shapes), the others random. Per pose:
//           osc_dcol_proximity with all six Jacobians, osc_dcol_alpha_gradient,
//           osc_dcol_alpha_parameter_gradient; then osc_dcol_proximity_batch over all 980 pairs
//           (family dcol_batch).
// manifold  bunny_demo: `make demo` (data/bunny.obj baked to a spline of 64 cells, a 2000-triangle
//           collision mesh from it, B turned half a turn about y and moved 8.3 along x, settings
//           for the model's size) and a second pose near it; armadillo: bench_manifold.c's spline
//           body (64 cells, 2000 triangles, 16 convex groups) on the first three of its Fig. 11
//           poses (narrow phase only) and two Fig. 12 poses at d_max 0.05 and 0.1 (skipped, with a
//           comment line, when models/armadillo.off is missing); sq_union: a smooth union of three
//           superquadrics with a collision mesh from its SDF and groups from its leaves, two poses.
//           All four pose-Jacobian arrays; then osc_manifold_collide_batch per body pair.
// sdf_pair  four pairs of library SDFs (spheres, rounded box and capsule, superquadrics, a union
//           against a torus), two poses each, hard mode and smooth mode (temperature 0.01) with
//           the point and penetration Jacobians; a scene of ten bodies (osc_sdf_scene_collide),
//           hard and smooth.
// ray       a sphere, a conic and an even asphere (bench_ray.c's, aperture 15) and a superquadric's
//           SDF, 200 rays each under the identity and under a general transform (anchor, scale,
//           rotation, translation), every Jacobian array the surface supports (the parameter
//           Jacobians for the sags only); then osc_ray_intersect_batch (family ray_batch).
// lmd       bench_lmd.c's two peg-in-hole scenarios at eight steps of their paths (the wobble of
//           each step shrunk as bench_lmd.c's clearance check shrinks it: the counts are tabulated
//           below), with a cache kept over the steps and without; four pairs of analytic solids
//           (sphere-box, crossed cylinders, frustum-sphere, and one with eps_a, eps_b > 0).
//
// Every batch result is also checked against the single calls, line for line: the line
// "FAMILY_batch check -1 lines_differing_from_single 0 = N" gives the count (0 expected), and a
// message on stderr names the first difference.
//
// usage: dump_outputs [--threads N] [--models DIR] [--only FAMILY[,FAMILY...]] > dump.txt
//   --threads  threads of the batch calls, the scene and the LMD footpoint stage (default 1); the
//              dump must not depend on it
//   --models   the fetched real models (default $OSC_MODEL_DIR, else models/ in the build directory)
//   --only     a comma-separated subset of dcol, manifold, sdf_pair, ray, lmd
// The whole dump takes about 4.5 s of CPU time (most of it baking the two spline SDFs), about
// 730,000 lines (47 MB).
//
// COMPARING TWO VERSIONS (bench/README.md)
//   build/bench/dump_outputs > /work/dumps/before.txt          # on the old version
//   build/bench/dump_outputs > /work/dumps/after.txt           # on the new one
//   python3 tools/compare_dumps.py /work/dumps/before.txt /work/dumps/after.txt
//       --rename manifold:depth=distance --rename sdf_pair:penetration=distance
//       --negate sdf_pair:distance --rename lmd:distance=raw_distance --rename lmd:gap=distance
//
// PORTING TO A NEW API
// Every call into the library sits in a few small functions per family (the "adapters" below:
// make_*, *_query, *_batch), and shapes are built from their physical description in this API's
// conventions (a capsule along body x with its full length, an ellipsoid by its matrix P). A port
// rewrites only those functions: a helper builds the same physical shape with the new constructor
// and records in the shape's `fix` the pose of the library's body frame in the physical one (a
// capsule along z: a quarter turn about y), which every query folds into the poses. World outputs
// and the Jacobians along world twists are unchanged by such a fixed rotation. What does change: a
// DCOL shape whose origin (the centre it is scaled about) moves has another alpha and everything
// computed from it, so `fix` must be a rotation only; an ellipsoid given by radii has P's entries
// to within a rounding; DCOL's shape-parameter gradients change with the parametrisation and must
// be mapped (tools/compare_dumps.py --scale, e.g. 2 for a half-length) or left unmatched.

#include "bench.h"
#include "lmd_scenarios.h"

#include "osculate/osculate.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TWO_PI 6.283185307179586

static int threads = 1; // --threads: batch calls, the scene, LMD's footpoint stage

static void die(const char* what) {
    fprintf(stderr, "dump_outputs: %s: %s\n", what, osc_last_error());
    exit(1);
}

static void* allocate(size_t count, size_t size) {
    void* p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "dump_outputs: out of memory\n");
        exit(1);
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// output

// where lines go and the family they are written under
typedef struct sink {
    FILE* file;
    const char* family;
} sink;

static void put_real(const sink* s, const char* name, int index, const char* field, int component, double value) {
    fprintf(s->file, "%s %s %d %s %d = %a\n", s->family, name, index, field, component, value);
}

static void put_int(const sink* s, const char* name, int index, const char* field, int component, long long value) {
    fprintf(s->file, "%s %s %d %s %d = %lld\n", s->family, name, index, field, component, value);
}

static void put_uint64(const sink* s, const char* name, int index, const char* field, uint64_t value) {
    fprintf(s->file, "%s %s %d %s 0 = %llu\n", s->family, name, index, field, (unsigned long long)value);
}

static void put_reals(const sink* s, const char* name, int index, const char* field, const double* values, int count) {
    for (int k = 0; k < count; ++k) put_real(s, name, index, field, k, values[k]);
}

static void put_vec3(const sink* s, const char* name, int index, const char* field, osc_vec3 v) {
    put_real(s, name, index, field, 0, v.x);
    put_real(s, name, index, field, 1, v.y);
    put_real(s, name, index, field, 2, v.z);
}

// lines written to memory, to compare a batch with the single calls
typedef struct capture {
    char* text;
    size_t size;
    FILE* file;
} capture;

static void capture_open(capture* c) {
    c->text = NULL;
    c->size = 0;
    c->file = open_memstream(&c->text, &c->size);
    if (!c->file) {
        fprintf(stderr, "dump_outputs: open_memstream failed\n");
        exit(1);
    }
}

static void capture_close(capture* c) { fclose(c->file); }

// the number of lines of `x` and `y` that differ after their first word (the family), counting a
// line present on one side only; the first difference goes to stderr
static long lines_differing(const char* x, const char* y, const char* family) {
    long differing = 0;
    while (*x || *y) {
        const char* x_end = *x ? strchr(x, '\n') : x;
        const char* y_end = *y ? strchr(y, '\n') : y;
        const char* x_rest = *x ? strchr(x, ' ') : x;
        const char* y_rest = *y ? strchr(y, ' ') : y;
        size_t x_length = (size_t)(x_end - x_rest), y_length = (size_t)(y_end - y_rest);
        if (!*x || !*y || x_length != y_length || memcmp(x_rest, y_rest, x_length)) {
            if (!differing)
                fprintf(stderr, "dump_outputs: %s: batch differs from the single calls: \"%.*s\" against \"%.*s\"\n",
                        family, (int)(x_end - x), x, (int)(y_end - y), y);
            ++differing;
        }
        x = *x ? x_end + 1 : x;
        y = *y ? y_end + 1 : y;
    }
    return differing;
}

// writes the single calls' lines and the batch's, then the count of lines where they differ
static void emit_with_batch_check(FILE* out, capture* single, capture* batch, const char* batch_family) {
    capture_close(single);
    capture_close(batch);
    fputs(single->text, out);
    fputs(batch->text, out);
    sink check = {out, batch_family};
    put_int(&check, "check", -1, "lines_differing_from_single", 0,
            lines_differing(single->text, batch->text, batch_family));
    free(single->text);
    free(batch->text);
}

// ---------------------------------------------------------------------------------------------
// inputs

static osc_vec3 random_unit(bench_rng* rng) {
    for (;;) {
        osc_vec3 v = osc_v3(bench_uniform(rng, -1, 1), bench_uniform(rng, -1, 1), bench_uniform(rng, -1, 1));
        double length = osc_length(v);
        if (length > 1e-3 && length <= 1.0) return osc_scale(v, 1.0 / length);
    }
}

// =============================================================================================
// DCOL (convex.h, dcol.h)
// =============================================================================================

// adapters ------------------------------------------------------------------------------------

// a convex shape built from a physical description; `fix` is the pose of the library's body frame
// in the physical body frame (the identity in this API's conventions)
typedef struct dcol_shape {
    const char* name;
    osc_convex* convex;
    int fixed; // 0: `fix` is the identity and is not applied (so that poses stay bit for bit)
    osc_pose fix;
    double size; // physical size (about the bounding radius): sets the pose offsets
} dcol_shape;

static dcol_shape dcol_shape_made(const char* name, osc_status status, osc_convex* convex, double size) {
    if (status != OSC_OK) die(name);
    dcol_shape shape = {name, convex, 0, osc_pose_identity(), size};
    return shape;
}

// the pose of the library's body frame for a physical pose
static osc_pose dcol_body_pose(const dcol_shape* shape, osc_pose physical) {
    return shape->fixed ? osc_pose_compose(physical, shape->fix) : physical;
}

// { y : n_i . y <= offsets_i }, normals [count][3]
static dcol_shape make_polytope(const double* normals, const double* offsets, int count, double size) {
    osc_convex* convex = NULL;
    osc_status status = osc_convex_create_polytope(normals, offsets, count, &convex);
    return dcol_shape_made("polytope", status, convex, size);
}

// the library's body frame of a capsule, cylinder or cone has its axis along z: `fix` turns it onto
// the physical x axis (z -> x, x -> y, y -> z: q = (1/2)(1, 1, 1, 1))
static dcol_shape along_x(dcol_shape shape) {
    shape.fixed = 1;
    shape.fix = osc_pose_make(osc_v3(0, 0, 0), (osc_quat){0.5, 0.5, 0.5, 0.5});
    return shape;
}

// the points within `radius` of the segment from (-full_length / 2, 0, 0) to (full_length / 2, 0, 0)
static dcol_shape make_capsule_x(double radius, double full_length) {
    osc_convex* convex = NULL;
    osc_status status = osc_convex_create_capsule(radius, 0.5 * full_length, &convex);
    return along_x(dcol_shape_made("capsule", status, convex, radius + 0.5 * full_length));
}

// |y_x| <= full_length / 2, y_y^2 + y_z^2 <= radius^2
static dcol_shape make_cylinder_x(double radius, double full_length) {
    osc_convex* convex = NULL;
    osc_status status = osc_convex_create_cylinder(radius, 0.5 * full_length, &convex);
    return along_x(dcol_shape_made("cylinder", status, convex, hypot(radius, 0.5 * full_length)));
}

// apex at (-3 height / 4, 0, 0), flat face at y_x = height / 4, half angle `half_angle`; the
// library's cone has its apex at +3 height / 4 along z: `fix` takes z -> -x, x -> y, y -> -z
// (q = (1/2)(1, -1, -1, 1))
static dcol_shape make_cone_x(double height, double half_angle) {
    osc_convex* convex = NULL;
    double base = height * tan(half_angle);
    osc_status status = osc_convex_create_cone(base, 0.5 * height, &convex);
    dcol_shape shape = dcol_shape_made("cone", status, convex, fmax(0.75 * height, hypot(0.25 * height, base)));
    shape.fixed = 1;
    shape.fix = osc_pose_make(osc_v3(0, 0, 0), (osc_quat){0.5, -0.5, -0.5, 0.5});
    return shape;
}

// { y : y^T P y <= 1 } for a diagonal P [3][3] row-major: semi-axes 1 / sqrt(P_ii)
static dcol_shape make_ellipsoid_matrix(const double P[9], double size) {
    osc_convex* convex = NULL;
    osc_status status =
        osc_convex_create_ellipsoid(osc_v3(1.0 / sqrt(P[0]), 1.0 / sqrt(P[4]), 1.0 / sqrt(P[8])), &convex);
    return dcol_shape_made("ellipsoid", status, convex, size);
}

static dcol_shape make_sphere(double radius) {
    osc_convex* convex = NULL;
    osc_status status = osc_convex_create_sphere(radius, &convex);
    return dcol_shape_made("sphere", status, convex, radius);
}

// the points within `radius` of the polygon { (u, v, 0) : C (u, v) <= d } in the body xy plane
static dcol_shape make_polygon_xy(const double* edge_normals, const double* edge_offsets, int count, double radius,
                                  double size) {
    osc_convex* convex = NULL;
    osc_status status = osc_convex_create_polygon(edge_normals, edge_offsets, count, radius, &convex);
    return dcol_shape_made("polygon", status, convex, size);
}

static void free_dcol_shape(dcol_shape* shape) { osc_convex_destroy(shape->convex); }

// one proximity query with all six Jacobian arrays
typedef struct dcol_answer {
    osc_status status;
    osc_dcol_result result;
    double alpha[12], point[36], point_a[36], point_b[36], distance[12], normal[36];
} dcol_answer;

static osc_dcol_jacobians dcol_jacobians_of(dcol_answer* answer) {
    osc_dcol_jacobians j = {answer->alpha,   answer->point,    answer->point_a,
                            answer->point_b, answer->distance, answer->normal};
    return j;
}

static void dcol_query(const dcol_shape* a, osc_pose pose_a, const dcol_shape* b, osc_pose pose_b,
                       dcol_answer* answer) {
    memset(answer, 0, sizeof *answer);
    osc_dcol_jacobians jacobians = dcol_jacobians_of(answer);
    answer->status = osc_dcol_proximity(a->convex, dcol_body_pose(a, pose_a), b->convex, dcol_body_pose(b, pose_b),
                                        NULL, &answer->result, &jacobians, NULL);
}

// the batch call over pairs (a[i], poses_a[i], b[i], poses_b[i])
static void dcol_batch(const dcol_shape* const* a, const osc_pose* poses_a, const dcol_shape* const* b,
                       const osc_pose* poses_b, int count, dcol_answer* answers) {
    osc_dcol_batch_item* items = allocate((size_t)count, sizeof *items);
    osc_dcol_result* results = allocate((size_t)count, sizeof *results);
    osc_dcol_jacobians* jacobians = allocate((size_t)count, sizeof *jacobians);
    osc_status* statuses = allocate((size_t)count, sizeof *statuses);
    for (int i = 0; i < count; ++i) {
        memset(&answers[i], 0, sizeof answers[i]);
        items[i] = (osc_dcol_batch_item){a[i]->convex, dcol_body_pose(a[i], poses_a[i]), b[i]->convex,
                                         dcol_body_pose(b[i], poses_b[i]), NULL};
        jacobians[i] = dcol_jacobians_of(&answers[i]);
    }
    osc_dcol_proximity_batch(items, (size_t)count, NULL, results, jacobians, statuses, threads);
    for (int i = 0; i < count; ++i) answers[i].status = statuses[i], answers[i].result = results[i];
    free(items), free(results), free(jacobians), free(statuses);
}

#define DCOL_MAX_PARAMETERS (4 * OSC_CONVEX_MAX_FACES + 1)

// alpha's pose gradient (the fast path) and its shape-parameter gradients
typedef struct dcol_gradients {
    osc_status status, parameter_status;
    double alpha, gradient[12];
    double parameter_alpha;
    int count_a, count_b;
    double gradient_a[DCOL_MAX_PARAMETERS], gradient_b[DCOL_MAX_PARAMETERS];
} dcol_gradients;

static void dcol_gradients_query(const dcol_shape* a, osc_pose pose_a, const dcol_shape* b, osc_pose pose_b,
                                 dcol_gradients* out) {
    memset(out, 0, sizeof *out);
    osc_pose body_a = dcol_body_pose(a, pose_a), body_b = dcol_body_pose(b, pose_b);
    out->status = osc_dcol_alpha_gradient(a->convex, body_a, b->convex, body_b, NULL, &out->alpha, out->gradient);
    out->count_a = osc_dcol_parameter_count(a->convex);
    out->count_b = osc_dcol_parameter_count(b->convex);
    out->parameter_status = osc_dcol_alpha_parameter_gradient(a->convex, body_a, b->convex, body_b, NULL,
                                                              &out->parameter_alpha, out->gradient_a, out->gradient_b);
}

// dump ----------------------------------------------------------------------------------------

static void dump_dcol_answer(const sink* s, const char* name, int index, const dcol_answer* a) {
    const osc_dcol_result* r = &a->result;
    put_int(s, name, index, "status", 0, a->status);
    put_real(s, name, index, "alpha", 0, r->alpha);
    put_vec3(s, name, index, "point", r->point);
    put_vec3(s, name, index, "point_a", r->point_a);
    put_vec3(s, name, index, "point_b", r->point_b);
    put_real(s, name, index, "distance", 0, r->distance);
    put_vec3(s, name, index, "normal", r->normal);
    put_int(s, name, index, "iterations", 0, r->iterations);
    put_int(s, name, index, "flags", 0, r->flags);
    put_reals(s, name, index, "alpha.jacobian", a->alpha, 12);
    put_reals(s, name, index, "point.jacobian", a->point, 36);
    put_reals(s, name, index, "point_a.jacobian", a->point_a, 36);
    put_reals(s, name, index, "point_b.jacobian", a->point_b, 36);
    put_reals(s, name, index, "distance.jacobian", a->distance, 12);
    put_reals(s, name, index, "normal.jacobian", a->normal, 36);
}

static void dump_dcol_gradients(const sink* s, const char* name, int index, const dcol_gradients* g) {
    put_int(s, name, index, "alpha_gradient.status", 0, g->status);
    put_real(s, name, index, "alpha_gradient.alpha", 0, g->alpha);
    put_reals(s, name, index, "alpha_gradient.gradient", g->gradient, 12);
    put_int(s, name, index, "parameter_gradient.status", 0, g->parameter_status);
    put_real(s, name, index, "parameter_gradient.alpha", 0, g->parameter_alpha);
    put_reals(s, name, index, "parameter_gradient.a", g->gradient_a, g->count_a);
    put_reals(s, name, index, "parameter_gradient.b", g->gradient_b, g->count_b);
}

// the family --------------------------------------------------------------------------------

enum { DCOL_KINDS = 7, DCOL_POSES = 20, DCOL_PAIRS = DCOL_KINDS * DCOL_KINDS * DCOL_POSES };

// bench_dcol.c's seven shapes, in the order of osc_convex_kind
static void make_dcol_shapes(dcol_shape shapes[DCOL_KINDS]) {
    const double phi = 0.5 * (1.0 + sqrt(5.0));
    double normals[12][3], offsets[12];
    const double base[3][3] = {{0, 1, phi}, {1, phi, 0}, {phi, 0, 1}}; // and their sign changes
    for (int k = 0, n = 0; k < 3; ++k)
        for (int s = 0; s < 4; ++s, ++n) {
            int bit = 0;
            for (int c = 0; c < 3; ++c) {
                normals[n][c] = base[k][c];
                if (base[k][c] != 0.0 && (s >> bit++ & 1)) normals[n][c] = -base[k][c];
            }
            offsets[n] = 0.4 * sqrt(1.0 + phi * phi); // inradius 0.4
        }
    shapes[0] = make_polytope(&normals[0][0], offsets, 12, 0.51); // circumradius 0.4 * 1.258
    shapes[1] = make_capsule_x(0.2, 0.8);
    shapes[2] = make_cylinder_x(0.3, 0.7);
    shapes[3] = make_cone_x(1.0, 0.5);
    const double P[9] = {4, 0, 0, 0, 2, 0, 0, 0, 9};
    shapes[4] = make_ellipsoid_matrix(P, 0.71);
    shapes[5] = make_sphere(0.5);
    double edges[6][2], edge_offsets[6];
    for (int k = 0; k < 6; ++k) {
        edges[k][0] = cos(TWO_PI * k / 6.0);
        edges[k][1] = sin(TWO_PI * k / 6.0);
        edge_offsets[k] = 0.4;
    }
    shapes[6] = make_polygon_xy(&edges[0][0], edge_offsets, 6, 0.1, 0.4 / cos(TWO_PI / 12.0) + 0.1);
}

static void dump_dcol(FILE* out) {
    dcol_shape shapes[DCOL_KINDS];
    make_dcol_shapes(shapes);
    bench_rng rng = {0x9E3779B97F4A7C15ull};
    const dcol_shape** pair_a = allocate(DCOL_PAIRS, sizeof *pair_a);
    const dcol_shape** pair_b = allocate(DCOL_PAIRS, sizeof *pair_b);
    osc_pose* poses_a = allocate(DCOL_PAIRS, sizeof *poses_a);
    osc_pose* poses_b = allocate(DCOL_PAIRS, sizeof *poses_b);
    char(*names)[48] = allocate(DCOL_PAIRS, sizeof *names);
    int n = 0;
    for (int ka = 0; ka < DCOL_KINDS; ++ka)
        for (int kb = 0; kb < DCOL_KINDS; ++kb)
            for (int k = 0; k < DCOL_POSES; ++k, ++n) {
                pair_a[n] = &shapes[ka], pair_b[n] = &shapes[kb];
                snprintf(names[n], sizeof names[n], "%s-%s", shapes[ka].name, shapes[kb].name);
                double f = 0.3 + (double)k / (DCOL_POSES - 1);
                double reach = f * (shapes[ka].size + shapes[kb].size);
                osc_vec3 p = osc_v3(bench_uniform(&rng, -1, 1), bench_uniform(&rng, -1, 1), bench_uniform(&rng, -1, 1));
                if (k < 2) {
                    f = k == 0 ? 0.8 : 1.2;
                    reach = f * (shapes[ka].size + shapes[kb].size);
                    poses_a[n] = osc_pose_make(p, osc_quat_identity());
                    poses_b[n] = osc_pose_make(osc_add(p, osc_v3(reach, 0, 0)), osc_quat_identity());
                } else {
                    poses_a[n] = osc_pose_make(p, bench_random_rotation(&rng));
                    osc_vec3 u = random_unit(&rng);
                    poses_b[n] = osc_pose_make(osc_add(p, osc_scale(u, reach)), bench_random_rotation(&rng));
                }
            }
    capture single, batch;
    capture_open(&single);
    capture_open(&batch);
    sink single_sink = {single.file, "dcol"}, batch_sink = {batch.file, "dcol_batch"};
    dcol_answer answer;
    dcol_gradients gradients;
    for (int i = 0; i < DCOL_PAIRS; ++i) {
        dcol_query(pair_a[i], poses_a[i], pair_b[i], poses_b[i], &answer);
        dump_dcol_answer(&single_sink, names[i], i % DCOL_POSES, &answer);
    }
    dcol_answer* answers = allocate(DCOL_PAIRS, sizeof *answers);
    dcol_batch(pair_a, poses_a, pair_b, poses_b, DCOL_PAIRS, answers);
    for (int i = 0; i < DCOL_PAIRS; ++i) dump_dcol_answer(&batch_sink, names[i], i % DCOL_POSES, &answers[i]);
    emit_with_batch_check(out, &single, &batch, "dcol_batch");
    // the gradients after the batch check (the batch has no counterpart of them)
    sink gradient_sink = {out, "dcol"};
    for (int i = 0; i < DCOL_PAIRS; ++i) {
        dcol_gradients_query(pair_a[i], poses_a[i], pair_b[i], poses_b[i], &gradients);
        dump_dcol_gradients(&gradient_sink, names[i], i % DCOL_POSES, &gradients);
    }
    free(answers), free(pair_a), free(pair_b), free(poses_a), free(poses_b), free(names);
    for (int k = 0; k < DCOL_KINDS; ++k) free_dcol_shape(&shapes[k]);
}

// =============================================================================================
// contact manifolds (manifold.h; bodies from grid.h, mesh.h, sdf.h)
// =============================================================================================

// adapters ------------------------------------------------------------------------------------

typedef struct manifold_body {
    osc_mesh* mesh; // collision mesh
    osc_grid* grid; // a spline body's SDF, or
    osc_sdf* sdf;   // an analytic body's (and the spline's as an osc_sdf, for its collision mesh)
    osc_body* body;
    double size; // the collision mesh's longest bounding-box side
} manifold_body;

typedef enum manifold_groups { GROUPS_NONE, GROUPS_CLUSTER_16, GROUPS_SDF_LEAVES } manifold_groups;

static double mesh_longest_side(const osc_mesh* mesh) {
    int32_t n = osc_mesh_vertex_count(mesh);
    const double* v = osc_mesh_vertices(mesh);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], v[3 * i + a]), hi[a] = fmax(hi[a], v[3 * i + a]);
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

// the body from its collision mesh (extracted from `sdf`, `triangles` after simplification) and
// its SDF: `grid` when not NULL, else `sdf`
static void manifold_body_finish(manifold_body* m, int32_t triangles, manifold_groups groups) {
    osc_collision_mesh_settings mesh_settings = osc_collision_mesh_settings_default();
    mesh_settings.target_triangles = triangles;
    if (osc_collision_mesh_create(m->sdf, &mesh_settings, &m->mesh) != OSC_OK) die("osc_collision_mesh_create");
    m->size = mesh_longest_side(m->mesh);
    osc_body_desc desc = osc_body_desc_default();
    desc.mesh = m->mesh;
    if (m->grid)
        desc.grid = m->grid;
    else
        desc.sdf = m->sdf;
    if (groups == GROUPS_CLUSTER_16) {
        desc.groups = OSC_GROUPS_CLUSTER;
        desc.group_count = 16;
    } else if (groups == GROUPS_SDF_LEAVES) {
        desc.groups = OSC_GROUPS_SDF_LEAVES;
    }
    if (osc_body_create(&desc, &m->body) != OSC_OK) die("osc_body_create");
}

// a spline body baked from a mesh (as `osculate contact` does: the mesh's BVH, a spline of
// `resolution` cells, a collision mesh from the spline)
static manifold_body make_spline_body(const osc_mesh* mesh, int resolution, int32_t triangles, manifold_groups groups) {
    manifold_body m = {0};
    osc_mesh_bvh* bvh = NULL;
    osc_grid_settings grid_settings = osc_grid_settings_default();
    grid_settings.resolution = resolution;
    if (osc_mesh_bvh_create(mesh, &bvh) != OSC_OK) die("osc_mesh_bvh_create");
    if (osc_grid_create_from_mesh(bvh, &grid_settings, &m.grid) != OSC_OK) die("osc_grid_create_from_mesh");
    osc_mesh_bvh_destroy(bvh);
    if (osc_grid_to_sdf(m.grid, &m.sdf) != OSC_OK) die("osc_grid_to_sdf");
    manifold_body_finish(&m, triangles, groups);
    return m;
}

// an analytic body: `sdf` (owned by the body from here on) and a collision mesh from it
static manifold_body make_sdf_body(osc_sdf* sdf, int32_t triangles, manifold_groups groups) {
    manifold_body m = {0};
    m.sdf = sdf;
    manifold_body_finish(&m, triangles, groups);
    return m;
}

static void free_manifold_body(manifold_body* m) {
    osc_body_destroy(m->body);
    osc_mesh_destroy(m->mesh);
    osc_sdf_destroy(m->sdf);
    osc_grid_destroy(m->grid);
}

// the settings: the defaults for bodies of `size`, d_max replaced when `d_max` >= 0, the broad
// phase on or off
static osc_manifold_settings manifold_settings(double size, double d_max, int broad_phase) {
    osc_manifold_settings settings =
        size == 1.0 ? osc_manifold_settings_default() : osc_manifold_settings_for_size(size);
    if (d_max >= 0.0) settings.d_max = d_max;
    settings.broad_phase = broad_phase;
    return settings;
}

// one query's contacts and pose Jacobians (views into a batch's slot or owned)
typedef struct manifold_answer {
    osc_status status;
    int32_t count, needed, capacity;
    osc_manifold_contact* contacts;
    double *point_jacobians, *distance_jacobians, *normal_jacobians, *weight_jacobians;
} manifold_answer;

static int32_t manifold_capacity(const manifold_body* a, const manifold_body* b, const osc_manifold_settings* s) {
    return osc_manifold_max_contacts(a->body, b->body, s);
}

static manifold_answer manifold_answer_alloc(int32_t capacity, size_t slots) {
    manifold_answer answer = {0};
    answer.capacity = capacity;
    size_t room = (size_t)capacity * slots;
    answer.contacts = allocate(room, sizeof(osc_manifold_contact));
    answer.point_jacobians = allocate(room * 36, sizeof(double));
    answer.distance_jacobians = allocate(room * 12, sizeof(double));
    answer.normal_jacobians = allocate(room * 36, sizeof(double));
    answer.weight_jacobians = allocate(room * 12, sizeof(double));
    return answer;
}

static void manifold_answer_free(manifold_answer* answer) {
    free(answer->contacts), free(answer->point_jacobians), free(answer->distance_jacobians);
    free(answer->normal_jacobians), free(answer->weight_jacobians);
}

static void manifold_query(const manifold_body* a, osc_pose pose_a, const manifold_body* b, osc_pose pose_b,
                           const osc_manifold_settings* settings, manifold_answer* answer) {
    osc_manifold_output out = {
        answer->contacts,         answer->capacity,        0, 0, answer->point_jacobians, answer->distance_jacobians,
        answer->normal_jacobians, answer->weight_jacobians};
    answer->status = osc_manifold_collide(a->body, pose_a, b->body, pose_b, settings, &out);
    answer->count = out.count;
    answer->needed = out.needed;
}

// the batch call over `count` pose pairs; answers[i] views slot i of `storage` (capacity slots x count)
static void manifold_batch(const manifold_body* a, const osc_pose* poses_a, const manifold_body* b,
                           const osc_pose* poses_b, int count, const osc_manifold_settings* settings,
                           manifold_answer* storage, manifold_answer* answers) {
    osc_manifold_batch_item* items = allocate((size_t)count, sizeof *items);
    osc_manifold_output* outputs = allocate((size_t)count, sizeof *outputs);
    osc_status* statuses = allocate((size_t)count, sizeof *statuses);
    for (int i = 0; i < count; ++i) {
        size_t slot = (size_t)i * (size_t)storage->capacity;
        items[i] = (osc_manifold_batch_item){a->body, poses_a[i], b->body, poses_b[i]};
        outputs[i] = (osc_manifold_output){storage->contacts + slot,
                                           storage->capacity,
                                           0,
                                           0,
                                           storage->point_jacobians + 36 * slot,
                                           storage->distance_jacobians + 12 * slot,
                                           storage->normal_jacobians + 36 * slot,
                                           storage->weight_jacobians + 12 * slot};
    }
    osc_manifold_collide_batch(items, (size_t)count, settings, outputs, statuses, threads);
    for (int i = 0; i < count; ++i) {
        manifold_answer view = {statuses[i],
                                outputs[i].count,
                                outputs[i].needed,
                                storage->capacity,
                                outputs[i].contacts,
                                outputs[i].point_jacobians,
                                outputs[i].distance_jacobians,
                                outputs[i].normal_jacobians,
                                outputs[i].weight_jacobians};
        answers[i] = view;
    }
    free(items), free(outputs), free(statuses);
}

// dump ----------------------------------------------------------------------------------------

static void dump_manifold_answer(const sink* s, const char* name, const manifold_answer* a) {
    put_int(s, name, -1, "status", 0, a->status);
    put_int(s, name, -1, "count", 0, a->count);
    put_int(s, name, -1, "needed", 0, a->needed);
    for (int32_t i = 0; i < a->count; ++i) {
        const osc_manifold_contact* c = &a->contacts[i];
        put_vec3(s, name, i, "point", c->point);
        put_real(s, name, i, "distance", 0, c->distance);
        put_vec3(s, name, i, "normal", c->normal);
        put_real(s, name, i, "weight", 0, c->weight);
        put_reals(s, name, i, "jacobian_a", &c->jacobian_a[0][0], 18);
        put_reals(s, name, i, "jacobian_b", &c->jacobian_b[0][0], 18);
        put_int(s, name, i, "feature", 0, c->feature);
        put_int(s, name, i, "kind", 0, c->kind);
        put_int(s, name, i, "body", 0, c->body);
        put_int(s, name, i, "group", 0, c->group);
        put_reals(s, name, i, "point.jacobian", a->point_jacobians + 36 * (size_t)i, 36);
        put_reals(s, name, i, "distance.jacobian", a->distance_jacobians + 12 * (size_t)i, 12);
        put_reals(s, name, i, "normal.jacobian", a->normal_jacobians + 36 * (size_t)i, 36);
        put_reals(s, name, i, "weight.jacobian", a->weight_jacobians + 12 * (size_t)i, 12);
    }
}

// the family --------------------------------------------------------------------------------

enum { MANIFOLD_MAX_POSES = 8 };

// one body pair, its poses and settings: every pose singly, then all of them as one batch
static void dump_manifold_case(capture* single, capture* batch, const char* name, const manifold_body* a,
                               const manifold_body* b, const osc_pose* poses_a, const osc_pose* poses_b, int count,
                               const osc_manifold_settings* settings) {
    sink single_sink = {single->file, "manifold"}, batch_sink = {batch->file, "manifold_batch"};
    int32_t capacity = manifold_capacity(a, b, settings);
    manifold_answer answer = manifold_answer_alloc(capacity, 1);
    char case_name[96];
    for (int i = 0; i < count; ++i) {
        snprintf(case_name, sizeof case_name, "%s.%d", name, i);
        manifold_query(a, poses_a[i], b, poses_b[i], settings, &answer);
        dump_manifold_answer(&single_sink, case_name, &answer);
        fprintf(stderr, "dump_outputs: manifold %s: %d contacts\n", case_name, (int)answer.count);
    }
    manifold_answer storage = manifold_answer_alloc(capacity, (size_t)count), views[MANIFOLD_MAX_POSES];
    manifold_batch(a, poses_a, b, poses_b, count, settings, &storage, views);
    for (int i = 0; i < count; ++i) {
        snprintf(case_name, sizeof case_name, "%s.%d", name, i);
        dump_manifold_answer(&batch_sink, case_name, &views[i]);
    }
    manifold_answer_free(&storage);
    manifold_answer_free(&answer);
}

// the armadillo centred on its bounding box with x extent 1.38 (bench_manifold.c's load_armadillo)
static osc_mesh* load_armadillo(const char* path) {
    osc_mesh* raw = NULL;
    if (osc_mesh_load(path, NULL, &raw, NULL) != OSC_OK) return NULL;
    int32_t n = osc_mesh_vertex_count(raw);
    const double* v = osc_mesh_vertices(raw);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], v[3 * i + a]), hi[a] = fmax(hi[a], v[3 * i + a]);
    double scale = 1.38 / (hi[0] - lo[0]);
    double* w = allocate(3 * (size_t)n, sizeof(double));
    for (int32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) w[3 * i + a] = (v[3 * i + a] - 0.5 * (lo[a] + hi[a])) * scale;
    osc_mesh* mesh = NULL;
    if (osc_mesh_create(w, n, osc_mesh_triangles(raw), osc_mesh_triangle_count(raw), &mesh) != OSC_OK)
        die("osc_mesh_create");
    free(w);
    osc_mesh_destroy(raw);
    return mesh;
}

static void dump_bunny(capture* single, capture* batch) {
    osc_mesh* bunny = NULL;
    if (osc_mesh_load(OSC_DATA_DIR "/bunny.obj", NULL, &bunny, NULL) != OSC_OK) die("osc_mesh_load bunny.obj");
    manifold_body body = make_spline_body(bunny, 64, 2000, GROUPS_NONE);
    osc_mesh_destroy(bunny);
    osc_manifold_settings settings = manifold_settings(body.size, -1.0, 1);
    // `make demo`'s pose (B turned half a turn about the vertical y and moved 8.3 along x), then one
    // near it
    osc_pose poses_a[2] = {osc_pose_identity(), osc_pose_identity()};
    osc_pose poses_b[2] = {
        osc_pose_make(osc_v3(8.3, 0, 0), (osc_quat){0, 0, 1, 0}),
        osc_pose_make(osc_v3(8.2, 0.05, -0.1),
                      osc_quat_mul(osc_quat_from_axis_angle(osc_v3(0.3, 0.2, 1), 0.04), (osc_quat){0, 0, 1, 0}))};
    dump_manifold_case(single, batch, "bunny_demo", &body, &body, poses_a, poses_b, 2, &settings);
    free_manifold_body(&body);
}

static void dump_armadillo(capture* single, capture* batch, const char* models) {
    char path[1200];
    snprintf(path, sizeof path, "%s/armadillo.off", models);
    osc_mesh* armadillo = load_armadillo(path);
    if (!armadillo) {
        fprintf(single->file, "# manifold armadillo skipped: %s (tools/fetch_models.sh)\n", osc_last_error());
        fprintf(stderr, "dump_outputs: armadillo skipped: %s\n", osc_last_error());
        return;
    }
    manifold_body body = make_spline_body(armadillo, 64, 2000, GROUPS_CLUSTER_16);
    osc_mesh_destroy(armadillo);
    // Fig. 11: bench_manifold.c's first three poses (its generator, seed and order), narrow phase
    bench_rng rng = {0x2545F4914F6CDD1Dull};
    osc_pose fig11_a[3], fig11_b[3];
    for (int i = 0; i < 3; ++i) {
        fig11_a[i] = osc_pose_make(osc_v3(0, 0, 0), bench_random_rotation(&rng));
        osc_vec3 offset = osc_v3(bench_uniform(&rng, -0.3, 0.3) * 1.38, bench_uniform(&rng, -0.3, 0.3) * 1.38,
                                 bench_uniform(&rng, -0.3, 0.3) * 1.38);
        fig11_b[i] = osc_pose_make(offset, bench_random_rotation(&rng));
    }
    osc_manifold_settings narrow = manifold_settings(1.0, -1.0, 0);
    dump_manifold_case(single, batch, "armadillo_fig11", &body, &body, fig11_a, fig11_b, 3, &narrow);
    // Fig. 12: B along x at 1.0 and 1.05 (the bounding boxes overlap by 0.38 and 0.33)
    osc_pose fig12_a[2] = {osc_pose_identity(), osc_pose_identity()};
    osc_pose fig12_b[2] = {osc_pose_make(osc_v3(1.0, 0, 0), osc_quat_identity()),
                           osc_pose_make(osc_v3(1.05, 0, 0), osc_quat_identity())};
    const double d_maxes[2] = {0.05, 0.1};
    for (int m = 0; m < 2; ++m) {
        osc_manifold_settings settings = manifold_settings(1.0, d_maxes[m], 1);
        char name[64];
        snprintf(name, sizeof name, "armadillo_fig12_dmax%g", d_maxes[m]);
        dump_manifold_case(single, batch, name, &body, &body, fig12_a, fig12_b, 2, &settings);
    }
    free_manifold_body(&body);
}

// a smooth union of three superquadrics, about 1 across
static osc_sdf* make_sq_union(void) {
    const osc_vec3 scales[3] = {{0.5, 0.3, 0.2}, {0.2, 0.2, 0.4}, {0.25, 0.25, 0.25}};
    const double eps[3][2] = {{0.5, 0.8}, {1.0, 0.3}, {0.3, 0.3}};
    const osc_pose poses[3] = {
        osc_pose_identity(),
        osc_pose_make(osc_v3(0.4, 0.0, 0.1), osc_quat_from_axis_angle(osc_v3(1, 1, 0), 0.6)),
        osc_pose_make(osc_v3(-0.35, 0.1, 0.0), osc_quat_from_axis_angle(osc_v3(0, 0, 1), 0.3)),
    };
    osc_sdf* parts[3];
    for (int k = 0; k < 3; ++k) {
        osc_sdf* sq = NULL;
        if (osc_sdf_create_superquadric(scales[k], eps[k][0], eps[k][1], &sq) != OSC_OK)
            die("osc_sdf_create_superquadric");
        if (osc_sdf_create_transformed(sq, poses[k], 1.0, &parts[k]) != OSC_OK) die("osc_sdf_create_transformed");
        osc_sdf_destroy(sq);
    }
    osc_sdf* sdf = NULL;
    if (osc_sdf_create_union((const osc_sdf* const*)parts, 3, 0.02, &sdf) != OSC_OK) die("osc_sdf_create_union");
    for (int k = 0; k < 3; ++k) osc_sdf_destroy(parts[k]);
    return sdf;
}

static void dump_sq_union(capture* single, capture* batch) {
    manifold_body body = make_sdf_body(make_sq_union(), 1000, GROUPS_SDF_LEAVES);
    osc_manifold_settings settings = manifold_settings(1.0, 0.05, 1);
    osc_pose poses_a[2] = {osc_pose_identity(),
                           osc_pose_make(osc_v3(0.1, 0, 0), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.2))};
    osc_pose poses_b[2] = {
        osc_pose_make(osc_v3(0.15, 0.05, 0.4), osc_quat_from_axis_angle(osc_v3(0.2, 1, 0.1), 0.5)),
        osc_pose_make(osc_v3(0.9, 0.2, -0.05), osc_quat_from_axis_angle(osc_v3(0, 0, 1), 2.0)),
    };
    dump_manifold_case(single, batch, "sq_union", &body, &body, poses_a, poses_b, 2, &settings);
    free_manifold_body(&body);
}

static void dump_manifold(FILE* out, const char* models) {
    capture single, batch;
    capture_open(&single);
    capture_open(&batch);
    dump_bunny(&single, &batch);
    dump_armadillo(&single, &batch, models);
    dump_sq_union(&single, &batch);
    emit_with_batch_check(out, &single, &batch, "manifold_batch");
}

// =============================================================================================
// collision points between SDFs (sdf_pair.h)
// =============================================================================================

// adapters ------------------------------------------------------------------------------------

enum { SDF_PAIR_CAPACITY = 64 };

typedef struct sdf_pair_answer {
    osc_status status;
    int smooth_mode;
    osc_sdf_pair_output output;
    osc_sdf_pair_contact contacts[SDF_PAIR_CAPACITY];
    double point_jacobians[SDF_PAIR_CAPACITY * 36], distance_jacobians[SDF_PAIR_CAPACITY * 12];
} sdf_pair_answer;

static osc_sdf_pair_settings sdf_pair_settings(double temperature) {
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.temperature = temperature;
    return settings;
}

// temperature 0: the hard mode; > 0: the smooth mode with its Jacobians
static void sdf_pair_query(const osc_sdf* a, osc_pose pose_a, const osc_sdf* b, osc_pose pose_b, double temperature,
                           sdf_pair_answer* answer) {
    memset(answer, 0, sizeof *answer);
    osc_sdf_shape shape_a = {0}, shape_b = {0};
    shape_a.sdf = a, shape_b.sdf = b;
    osc_sdf_pair_settings settings = sdf_pair_settings(temperature);
    answer->smooth_mode = temperature > 0.0;
    answer->output.contacts = answer->contacts;
    answer->output.capacity = SDF_PAIR_CAPACITY;
    if (answer->smooth_mode) {
        answer->output.point_jacobians = answer->point_jacobians;
        answer->output.distance_jacobians = answer->distance_jacobians;
    }
    answer->status = osc_sdf_pair_collide(&shape_a, pose_a, &shape_b, pose_b, &settings, &answer->output);
}

enum { SCENE_BODIES = 10, SCENE_PER_PAIR = 16, SCENE_PAIRS = SCENE_BODIES * (SCENE_BODIES - 1) / 2 };

typedef struct sdf_scene_answer {
    osc_status status;
    int pair_count, pairs_needed;
    osc_sdf_scene_pair pairs[SCENE_PAIRS];
    osc_sdf_pair_contact contacts[SCENE_PAIRS * SCENE_PER_PAIR];
} sdf_scene_answer;

static void sdf_scene_query(osc_sdf* const* sdfs, const osc_pose* poses, int count, double temperature,
                            sdf_scene_answer* answer) {
    memset(answer, 0, sizeof *answer);
    osc_sdf_shape shapes[SCENE_BODIES];
    osc_sdf_scene_body bodies[SCENE_BODIES];
    memset(shapes, 0, sizeof shapes);
    for (int i = 0; i < count; ++i) {
        shapes[i].sdf = sdfs[i];
        bodies[i] = (osc_sdf_scene_body){&shapes[i], poses[i]};
    }
    osc_sdf_pair_settings settings = sdf_pair_settings(temperature);
    void* workspace = allocate(osc_sdf_scene_workspace_size((size_t)count), 1);
    osc_sdf_scene_output out = {answer->pairs, SCENE_PAIRS, 0, 0, answer->contacts, SCENE_PER_PAIR};
    answer->status = osc_sdf_scene_collide(bodies, (size_t)count, &settings, &out, workspace, threads);
    answer->pair_count = out.count;
    answer->pairs_needed = out.needed;
    free(workspace);
}

// dump ----------------------------------------------------------------------------------------

static void dump_sdf_contact(const sink* s, const char* name, int index, const osc_sdf_pair_contact* c) {
    put_vec3(s, name, index, "point", c->point);
    put_vec3(s, name, index, "normal", c->normal);
    put_real(s, name, index, "distance", 0, c->distance);
    put_int(s, name, index, "iterations", 0, c->iterations);
    put_int(s, name, index, "smooth", 0, c->smooth);
}

static void dump_sdf_pair_answer(const sink* s, const char* name, const sdf_pair_answer* a) {
    const osc_sdf_pair_output* o = &a->output;
    put_int(s, name, -1, "status", 0, a->status);
    put_int(s, name, -1, "count", 0, o->count);
    put_int(s, name, -1, "needed", 0, o->needed);
    put_int(s, name, -1, "boxes_overlap", 0, o->boxes_overlap);
    put_int(s, name, -1, "spheres", 0, o->spheres);
    put_int(s, name, -1, "survivors", 0, o->survivors);
    for (int i = 0; i < o->count && i < SDF_PAIR_CAPACITY; ++i) {
        dump_sdf_contact(s, name, i, &a->contacts[i]);
        if (!a->smooth_mode) continue;
        put_reals(s, name, i, "point.jacobian", a->point_jacobians + 36 * i, 36);
        put_reals(s, name, i, "distance.jacobian", a->distance_jacobians + 12 * i, 12);
    }
}

static void dump_sdf_scene_answer(const sink* s, const char* name, const sdf_scene_answer* a) {
    put_int(s, name, -1, "status", 0, a->status);
    put_int(s, name, -1, "pair_count", 0, a->pair_count);
    put_int(s, name, -1, "pairs_needed", 0, a->pairs_needed);
    char contacts_name[96];
    snprintf(contacts_name, sizeof contacts_name, "%s.contacts", name);
    for (int k = 0; k < a->pair_count && k < SCENE_PAIRS; ++k) {
        const osc_sdf_scene_pair* p = &a->pairs[k];
        put_int(s, name, k, "pair.a", 0, p->a);
        put_int(s, name, k, "pair.b", 0, p->b);
        put_int(s, name, k, "pair.first_contact", 0, p->first_contact);
        put_int(s, name, k, "pair.contact_count", 0, p->contact_count);
        put_int(s, name, k, "pair.status", 0, p->status);
        for (int i = 0; i < p->contact_count && i < SCENE_PER_PAIR; ++i)
            dump_sdf_contact(s, contacts_name, p->first_contact + i, &a->contacts[p->first_contact + i]);
    }
}

// the family --------------------------------------------------------------------------------

static osc_sdf* checked_sdf(osc_status status, osc_sdf* sdf, const char* what) {
    if (status != OSC_OK) die(what);
    return sdf;
}

static osc_sdf* sdf_sphere(double radius) {
    osc_sdf* s = NULL;
    osc_status status = osc_sdf_create_sphere(radius, &s);
    return checked_sdf(status, s, "osc_sdf_create_sphere");
}

static osc_sdf* sdf_box(osc_vec3 half, double rounding) {
    osc_sdf* s = NULL;
    osc_status status = osc_sdf_create_box(half, rounding, &s);
    return checked_sdf(status, s, "osc_sdf_create_box");
}

static osc_sdf* sdf_capsule_z(double radius, double half_length) {
    osc_sdf* s = NULL;
    osc_status status = osc_sdf_create_capsule(radius, half_length, &s);
    return checked_sdf(status, s, "osc_sdf_create_capsule");
}

static osc_sdf* sdf_superquadric(osc_vec3 scales, double eps1, double eps2) {
    osc_sdf* s = NULL;
    osc_status status = osc_sdf_create_superquadric(scales, eps1, eps2, &s);
    return checked_sdf(status, s, "osc_sdf_create_superquadric");
}

static osc_sdf* sdf_torus(double major, double minor) {
    osc_sdf* s = NULL;
    osc_status status = osc_sdf_create_torus(major, minor, &s);
    return checked_sdf(status, s, "osc_sdf_create_torus");
}

// a sphere and a rounded box, smoothly united
static osc_sdf* sdf_sphere_box_union(void) {
    osc_sdf* sphere = sdf_sphere(0.3);
    osc_sdf* box = sdf_box(osc_v3(0.3, 0.2, 0.15), 0.03);
    osc_sdf* moved = NULL;
    if (osc_sdf_create_transformed(box, osc_pose_make(osc_v3(0.3, 0, 0), osc_quat_identity()), 1.0, &moved) != OSC_OK)
        die("osc_sdf_create_transformed");
    const osc_sdf* parts[2] = {sphere, moved};
    osc_sdf* both = NULL;
    if (osc_sdf_create_union(parts, 2, 0.05, &both) != OSC_OK) die("osc_sdf_create_union");
    osc_sdf_destroy(sphere), osc_sdf_destroy(box), osc_sdf_destroy(moved);
    return both;
}

static void dump_sdf_pair(FILE* out) {
    sink s = {out, "sdf_pair"};
    enum { PAIRS = 4, POSES = 2 };
    const char* names[PAIRS] = {"spheres", "box-capsule", "superquadrics", "union-torus"};
    osc_sdf* a[PAIRS] = {sdf_sphere(0.5), sdf_box(osc_v3(0.4, 0.3, 0.2), 0.05),
                         sdf_superquadric(osc_v3(0.4, 0.3, 0.25), 0.5, 0.8), sdf_sphere_box_union()};
    osc_sdf* b[PAIRS] = {sdf_sphere(0.4), sdf_capsule_z(0.15, 0.3), sdf_superquadric(osc_v3(0.3, 0.3, 0.35), 1.2, 0.4),
                         sdf_torus(0.4, 0.12)};
    const double reach[PAIRS] = {0.8, 0.45, 0.55, 0.6}; // centre distances that overlap by a little
    bench_rng rng = {0x853C49E6748FEA9Bull};
    sdf_pair_answer* answer = allocate(1, sizeof *answer);
    char name[96];
    for (int p = 0; p < PAIRS; ++p)
        for (int k = 0; k < POSES; ++k) {
            osc_pose pose_a = osc_pose_make(
                osc_v3(bench_uniform(&rng, -0.5, 0.5), bench_uniform(&rng, -0.5, 0.5), bench_uniform(&rng, -0.5, 0.5)),
                bench_random_rotation(&rng));
            osc_vec3 u = random_unit(&rng);
            osc_pose pose_b = osc_pose_make(osc_add(pose_a.p, osc_scale(u, reach[p])), bench_random_rotation(&rng));
            for (int mode = 0; mode < 2; ++mode) {
                snprintf(name, sizeof name, "%s.%d.%s", names[p], k, mode ? "smooth" : "hard");
                sdf_pair_query(a[p], pose_a, b[p], pose_b, mode ? 0.01 : 0.0, answer);
                dump_sdf_pair_answer(&s, name, answer);
            }
        }
    free(answer);
    // a scene of ten bodies (the eight above and two more) in a 1.6 cube
    osc_sdf* bodies[SCENE_BODIES];
    for (int p = 0; p < PAIRS; ++p) bodies[2 * p] = a[p], bodies[2 * p + 1] = b[p];
    bodies[8] = sdf_box(osc_v3(0.3, 0.3, 0.3), 0.0);
    bodies[9] = sdf_sphere(0.35);
    osc_pose poses[SCENE_BODIES];
    for (int i = 0; i < SCENE_BODIES; ++i)
        poses[i] =
            osc_pose_make(osc_v3(bench_uniform(&rng, 0, 1.6), bench_uniform(&rng, 0, 1.6), bench_uniform(&rng, 0, 1.6)),
                          bench_random_rotation(&rng));
    sdf_scene_answer* scene = allocate(1, sizeof *scene);
    for (int mode = 0; mode < 2; ++mode) {
        sdf_scene_query(bodies, poses, SCENE_BODIES, mode ? 0.01 : 0.0, scene);
        dump_sdf_scene_answer(&s, mode ? "scene.smooth" : "scene.hard", scene);
        fprintf(stderr, "dump_outputs: sdf scene (%s): %d candidate pairs\n", mode ? "smooth" : "hard",
                scene->pair_count);
    }
    free(scene);
    for (int i = 0; i < SCENE_BODIES; ++i) osc_sdf_destroy(bodies[i]);
}

// =============================================================================================
// rays (ray.h, implicit.h)
// =============================================================================================

// adapters ------------------------------------------------------------------------------------

typedef struct ray_surface {
    osc_implicit* implicit;
    osc_sdf* sdf;   // an SDF surface's SDF (owned; the surface borrows it)
    int parameters; // a sag's parameters (c, k, a_i): 2 + coefficients; 0 for other surfaces
} ray_surface;

// the even asphere x = g(r) of radius of curvature R, conic k, coefficients of r^4, r^6, ...
static ray_surface make_sag_surface(double radius_of_curvature, double conic, const double* coefficients, int count,
                                    double diameter) {
    osc_sag sag;
    memset(&sag, 0, sizeof sag);
    sag.curvature = 1.0 / radius_of_curvature;
    sag.conic = conic;
    sag.coefficient_count = count;
    for (int k = 0; k < count; ++k) sag.coefficients[k] = coefficients[k];
    sag.diameter = diameter;
    ray_surface s = {NULL, NULL, 2 + count};
    if (osc_implicit_create_sag(&sag, &s.implicit) != OSC_OK) die("osc_implicit_create_sag");
    return s;
}

// the surface phi = 0 of `sdf` (owned by the surface from here on)
static ray_surface make_sdf_surface(osc_sdf* sdf) {
    ray_surface s = {NULL, sdf, 0};
    if (osc_implicit_create_sdf(sdf, &s.implicit) != OSC_OK) die("osc_implicit_create_sdf");
    return s;
}

static void free_ray_surface(ray_surface* s) {
    osc_implicit_destroy(s->implicit);
    osc_sdf_destroy(s->sdf);
}

enum { RAY_MAX_PARAMETERS = 2 + OSC_SAG_MAX_COEFFICIENTS };

typedef struct ray_answer {
    osc_status status;
    osc_ray_hit hit;
    int parameters;
    double t_origin[3], t_direction[3], point_origin[9], point_direction[9], normal_origin[9], normal_direction[9];
    double t_surface_pose[6], point_surface_pose[18], normal_surface_pose[18];
    double t_parameters[RAY_MAX_PARAMETERS], point_parameters[3 * RAY_MAX_PARAMETERS],
        normal_parameters[3 * RAY_MAX_PARAMETERS];
    double t_anchor[3], t_scale[1];
} ray_answer;

static void ray_query(const ray_surface* s, const osc_implicit_transform* transform, osc_vec3 origin,
                      osc_vec3 direction, ray_answer* a) {
    memset(a, 0, sizeof *a);
    a->parameters = s->parameters;
    osc_ray_jacobians j;
    memset(&j, 0, sizeof j);
    j.t_origin = a->t_origin, j.t_direction = a->t_direction;
    j.point_origin = a->point_origin, j.point_direction = a->point_direction;
    j.normal_origin = a->normal_origin, j.normal_direction = a->normal_direction;
    j.t_surface_pose = a->t_surface_pose, j.point_surface_pose = a->point_surface_pose;
    j.normal_surface_pose = a->normal_surface_pose;
    j.t_anchor = a->t_anchor, j.t_scale = a->t_scale;
    if (s->parameters > 0) {
        j.t_parameters = a->t_parameters;
        j.point_parameters = a->point_parameters;
        j.normal_parameters = a->normal_parameters;
    }
    a->status = osc_ray_intersect(s->implicit, transform, (osc_ray){origin, direction}, NULL, &a->hit, &j);
}

// the batch call: t [count], points and normals [count][3], hits [count]
static osc_status ray_batch(const ray_surface* s, const osc_implicit_transform* transform, int count,
                            const double* origins, const double* directions, double* t, double* points, double* normals,
                            unsigned char* hits) {
    osc_ray* rays = allocate((size_t)count, sizeof *rays);
    osc_ray_hit* out = allocate((size_t)count, sizeof *out);
    for (int i = 0; i < count; ++i)
        rays[i] = (osc_ray){osc_v3(origins[3 * i], origins[3 * i + 1], origins[3 * i + 2]),
                            osc_v3(directions[3 * i], directions[3 * i + 1], directions[3 * i + 2])};
    osc_status status = osc_ray_intersect_batch(s->implicit, transform, rays, (size_t)count, NULL, out, NULL, threads);
    for (int i = 0; i < count; ++i) {
        t[i] = out[i].t;
        memcpy(points + 3 * i, &out[i].point, sizeof out[i].point);
        memcpy(normals + 3 * i, &out[i].normal, sizeof out[i].normal);
        hits[i] = (unsigned char)out[i].hit;
    }
    free(rays), free(out);
    return status;
}

// dump ----------------------------------------------------------------------------------------

static void dump_ray_answer(const sink* s, const char* name, int index, const ray_answer* a) {
    put_int(s, name, index, "status", 0, a->status);
    put_real(s, name, index, "t", 0, a->hit.t);
    put_vec3(s, name, index, "point", a->hit.point);
    put_vec3(s, name, index, "normal", a->hit.normal);
    put_int(s, name, index, "hit", 0, a->hit.hit);
    put_int(s, name, index, "grazing", 0, a->hit.grazing);
    put_int(s, name, index, "iterations", 0, a->hit.iterations);
    put_reals(s, name, index, "t_origin", a->t_origin, 3);
    put_reals(s, name, index, "t_direction", a->t_direction, 3);
    put_reals(s, name, index, "point_origin", a->point_origin, 9);
    put_reals(s, name, index, "point_direction", a->point_direction, 9);
    put_reals(s, name, index, "normal_origin", a->normal_origin, 9);
    put_reals(s, name, index, "normal_direction", a->normal_direction, 9);
    put_reals(s, name, index, "t_surface_pose", a->t_surface_pose, 6);
    put_reals(s, name, index, "point_surface_pose", a->point_surface_pose, 18);
    put_reals(s, name, index, "normal_surface_pose", a->normal_surface_pose, 18);
    if (a->parameters > 0) {
        put_reals(s, name, index, "t_parameters", a->t_parameters, a->parameters);
        put_reals(s, name, index, "point_parameters", a->point_parameters, 3 * a->parameters);
        put_reals(s, name, index, "normal_parameters", a->normal_parameters, 3 * a->parameters);
    }
    put_reals(s, name, index, "t_anchor", a->t_anchor, 3);
    put_real(s, name, index, "t_scale", 0, a->t_scale[0]);
}

// the family --------------------------------------------------------------------------------

enum { RAYS = 200 };

static void dump_ray(FILE* out) {
    sink single_sink = {out, "ray"};
    const double asphere[3] = {1e-4, -1e-6, 1e-8};
    enum { SURFACES = 4 };
    const char* names[SURFACES] = {"sphere", "conic", "asphere", "sdf_superquadric"};
    ray_surface surfaces[SURFACES] = {
        make_sag_surface(20, 0, NULL, 0, 15),
        make_sag_surface(20, -0.5, NULL, 0, 15),
        make_sag_surface(20, -1, asphere, 3, 15),
        make_sdf_surface(sdf_superquadric(osc_v3(1.0, 0.7, 0.5), 0.6, 0.9)),
    };
    osc_implicit_transform transforms[2] = {osc_implicit_transform_identity(), osc_implicit_transform_identity()};
    transforms[1].anchor = osc_v3(0.5, 0.2, 0.0);
    transforms[1].scale = 1.1;
    transforms[1].rotation = osc_quat_from_axis_angle(osc_v3(0.2, 0.3, 1.0), 0.05);
    transforms[1].translation = osc_v3(0.2, -0.3, 0.1);
    bench_rng rng = {0xDA942042E4DD58B5ull};
    double* origins = allocate(3 * RAYS, sizeof(double));
    double* directions = allocate(3 * RAYS, sizeof(double));
    double *t = allocate(RAYS, sizeof(double)), *points = allocate(3 * RAYS, sizeof(double)),
           *normals = allocate(3 * RAYS, sizeof(double));
    unsigned char* hits = allocate(RAYS, 1);
    ray_answer* answers = allocate(RAYS, sizeof *answers);
    long differing = 0;
    char name[96];
    for (int sf = 0; sf < SURFACES; ++sf)
        for (int tr = 0; tr < 2; ++tr) {
            snprintf(name, sizeof name, "%s.%s", names[sf], tr ? "transformed" : "identity");
            for (int i = 0; i < RAYS; ++i) {
                osc_vec3 o, d;
                if (sf < 3) { // bench_ray.c's rays, some beyond the aperture
                    o = osc_v3(-5.0, bench_uniform(&rng, -9, 9), bench_uniform(&rng, -9, 9));
                    d = osc_normalize(osc_v3(1.0, bench_uniform(&rng, -0.1, 0.1), bench_uniform(&rng, -0.1, 0.1)));
                } else { // from a sphere of radius 3 towards a point near the body
                    o = osc_scale(random_unit(&rng), 3.0);
                    osc_vec3 target = osc_v3(bench_uniform(&rng, -1, 1), bench_uniform(&rng, -0.8, 0.8),
                                             bench_uniform(&rng, -0.6, 0.6));
                    d = osc_normalize(osc_sub(target, o));
                }
                memcpy(origins + 3 * i, &o, sizeof o);
                memcpy(directions + 3 * i, &d, sizeof d);
                ray_query(&surfaces[sf], &transforms[tr], o, d, &answers[i]);
                dump_ray_answer(&single_sink, name, i, &answers[i]);
            }
            osc_status status =
                ray_batch(&surfaces[sf], &transforms[tr], RAYS, origins, directions, t, points, normals, hits);
            sink batch_sink = {out, "ray_batch"};
            put_int(&batch_sink, name, -1, "status", 0, status);
            for (int i = 0; i < RAYS; ++i) {
                put_real(&batch_sink, name, i, "t", 0, t[i]);
                put_reals(&batch_sink, name, i, "point", points + 3 * i, 3);
                put_reals(&batch_sink, name, i, "normal", normals + 3 * i, 3);
                put_int(&batch_sink, name, i, "hit", 0, hits[i]);
                const osc_ray_hit* h = &answers[i].hit;
                double single[7] = {h->t, h->point.x, h->point.y, h->point.z, h->normal.x, h->normal.y, h->normal.z};
                double batch[7] = {t[i],           points[3 * i],      points[3 * i + 1], points[3 * i + 2],
                                   normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]};
                int differs = memcmp(single, batch, sizeof single) != 0 || hits[i] != h->hit;
                if (differs && !differing)
                    fprintf(stderr, "dump_outputs: ray_batch %s ray %d differs from the single call\n", name, i);
                differing += differs;
            }
        }
    sink check = {out, "ray_batch"};
    put_int(&check, "check", -1, "rays_differing_from_single", 0, differing);
    free(origins), free(directions), free(t), free(points), free(normals), free(hits), free(answers);
    for (int sf = 0; sf < SURFACES; ++sf) free_ray_surface(&surfaces[sf]);
}

// =============================================================================================
// local minimal distances (lmd.h, brep.h)
// =============================================================================================

// adapters ------------------------------------------------------------------------------------

static osc_brep* checked_brep(osc_status status, osc_brep* brep, const char* what) {
    if (status != OSC_OK) die(what);
    return brep;
}

// a solid of revolution about z from an (r, z) profile [count][2]
static osc_brep* make_revolved(const double* profile, int count) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_revolved(profile, count, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_revolved");
}

// a box of half extents `half` with a blind hole of revolution from its top face
static osc_brep* make_block_with_hole(osc_vec3 half, const double* profile, int count) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_block_with_hole(half, profile, count, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_block_with_hole");
}

static osc_brep* make_brep_box(osc_vec3 half) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_box(half, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_box");
}

static osc_brep* make_brep_sphere(double radius) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_sphere(radius, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_sphere");
}

// a cylinder along z from -half_height to half_height
static osc_brep* make_brep_cylinder_z(double radius, double half_height) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_cylinder(radius, half_height, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_cylinder");
}

// a frustum along z: radius r_bottom at z = -half_height, r_top at +half_height
static osc_brep* make_brep_frustum_z(double r_bottom, double r_top, double half_height) {
    osc_brep* b = NULL;
    osc_status status = osc_brep_create_cone(r_bottom, r_top, half_height, NULL, &b);
    return checked_brep(status, b, "osc_brep_create_cone");
}

enum { LMD_CAPACITY = 4096 };

typedef struct lmd_answer {
    osc_status status;
    int count;
    int has_stats;
    osc_lmd_stats stats;
    osc_lmd_contact contacts[LMD_CAPACITY];
    double jacobians[LMD_CAPACITY][12];
} lmd_answer;

typedef struct lmd_inputs {
    double d_max, eps_a, eps_b;
} lmd_inputs;

static osc_lmd_cache* lmd_cache_new(void) {
    osc_lmd_cache* cache = NULL;
    if (osc_lmd_cache_create(&cache) != OSC_OK) die("osc_lmd_cache_create");
    return cache;
}

static void lmd_cache_free(osc_lmd_cache* cache) { osc_lmd_cache_destroy(cache); }

static void lmd_query(const osc_brep* a, osc_pose pose_a, const osc_brep* b, osc_pose pose_b, lmd_inputs inputs,
                      osc_lmd_cache* cache, lmd_answer* answer) {
    memset(answer, 0, sizeof *answer);
    osc_lmd_settings settings = osc_lmd_settings_default();
    settings.d_max = inputs.d_max;
    settings.eps_a = inputs.eps_a;
    settings.eps_b = inputs.eps_b;
    osc_lmd_output out = {answer->contacts, LMD_CAPACITY, 0, 0, &answer->jacobians[0][0], 0};
    answer->status = osc_lmd_query(a, pose_a, b, pose_b, &settings, cache, &out, threads);
    answer->count = out.needed;
    answer->has_stats = cache && osc_lmd_cache_stats(cache, &answer->stats) == OSC_OK;
}

// dump ----------------------------------------------------------------------------------------

static void dump_lmd_answer(const sink* s, const char* name, const lmd_answer* a) {
    put_int(s, name, -1, "status", 0, a->status);
    put_int(s, name, -1, "count", 0, a->count);
    if (a->has_stats) {
        put_int(s, name, -1, "stats.front_size", 0, a->stats.front_size);
        put_int(s, name, -1, "stats.culling_tests", 0, a->stats.culling_tests);
        put_int(s, name, -1, "stats.leaf_pairs", 0, a->stats.leaf_pairs);
        put_int(s, name, -1, "stats.newton_iterations", 0, a->stats.newton_iterations);
        put_int(s, name, -1, "stats.warm_starts", 0, a->stats.warm_starts);
    }
    for (int i = 0; i < a->count && i < LMD_CAPACITY; ++i) {
        const osc_lmd_contact* c = &a->contacts[i];
        put_vec3(s, name, i, "point_a", c->point_a);
        put_vec3(s, name, i, "point_b", c->point_b);
        put_reals(s, name, i, "param_a", c->param_a, 2);
        put_reals(s, name, i, "param_b", c->param_b, 2);
        put_int(s, name, i, "kind_a", 0, c->kind_a);
        put_int(s, name, i, "kind_b", 0, c->kind_b);
        put_int(s, name, i, "feature_a", 0, c->feature_a);
        put_int(s, name, i, "feature_b", 0, c->feature_b);
        put_real(s, name, i, "distance", 0, c->distance);
        put_vec3(s, name, i, "normal", c->normal);
        put_reals(s, name, i, "distance.jacobian", a->jacobians[i], 12);
        put_uint64(s, name, i, "key", c->key);
        put_int(s, name, i, "flags", 0, c->flags);
    }
}

// the family --------------------------------------------------------------------------------

enum { LMD_PATH_STEPS = 300, LMD_DUMP_STEPS = 8 }; // bench_lmd.c's path length, the steps dumped

// a scenario of bench/lmd_scenarios.h at the path steps dumped
typedef struct lmd_dump_case {
    const lmd_scenario* scenario;
    int shrinks[LMD_DUMP_STEPS]; // how often bench_lmd.c's clearance check shrinks each step's wobble
} lmd_dump_case;

static const int lmd_steps[LMD_DUMP_STEPS] = {70, 100, 101, 102, 134, 150, 151, 200};

static void dump_lmd_scenario(const sink* s, const lmd_dump_case* dump, lmd_answer* answer) {
    const lmd_scenario* scenario = dump->scenario;
    osc_brep* peg = make_revolved(scenario->peg, scenario->peg_count);
    osc_brep* block = make_block_with_hole(scenario->block_half, scenario->hole, scenario->hole_count);
    lmd_inputs inputs = {scenario->d_max, 0.0, 0.0};
    osc_lmd_cache* cache = lmd_cache_new();
    char name[96];
    for (int k = 0; k < LMD_DUMP_STEPS; ++k) {
        double wobble = 1.0;
        for (int shrink = 0; shrink < dump->shrinks[k]; ++shrink) wobble *= 0.7;
        // the peg's body frame is its profile's frame: the builder keeps the profile's coordinates
        // (bench_lmd.c moves the peg by minus its BVH box's lo.z, 0.14 mm up, from the pose it checked)
        int phase;
        osc_pose pose_peg = lmd_path_pose(scenario, lmd_steps[k], LMD_PATH_STEPS, wobble, &phase);
        for (int cached = 1; cached >= 0; --cached) {
            snprintf(name, sizeof name, "%s.step%03d.%s", scenario->name, lmd_steps[k], cached ? "cache" : "no_cache");
            lmd_query(peg, pose_peg, block, osc_pose_identity(), inputs, cached ? cache : NULL, answer);
            dump_lmd_answer(s, name, answer);
            if (cached) fprintf(stderr, "dump_outputs: lmd %s: %d contacts\n", name, answer->count);
        }
    }
    lmd_cache_free(cache);
    osc_brep_destroy(peg);
    osc_brep_destroy(block);
}

static void dump_lmd(FILE* out) {
    sink s = {out, "lmd"};
    lmd_answer* answer = allocate(1, sizeof *answer);
    const lmd_dump_case cases[2] = {{&lmd_scenarios[0], {7, 6, 6, 6, 8, 6, 6, 4}},
                                    {&lmd_scenarios[1], {0, 10, 10, 9, 11, 8, 8, 6}}};
    for (int k = 0; k < 2; ++k) dump_lmd_scenario(&s, &cases[k], answer);
    // analytic pairs (unit lengths)
    osc_brep* sphere = make_brep_sphere(1.0);
    osc_brep* small_sphere = make_brep_sphere(0.5);
    osc_brep* box = make_brep_box(osc_v3(1.0, 0.8, 0.6));
    osc_brep* cylinder = make_brep_cylinder_z(0.5, 1.0);
    osc_brep* frustum = make_brep_frustum_z(1.0, 0.5, 1.0);
    osc_quat quarter_x = osc_quat_from_axis_angle(osc_v3(1, 0, 0), 0.5 * 3.14159265358979323846);
    struct {
        const char* name;
        const osc_brep *a, *b;
        osc_pose pose_a, pose_b;
        lmd_inputs inputs;
    } pairs[4] = {
        {"sphere-box",
         sphere,
         box,
         osc_pose_identity(),
         osc_pose_make(osc_v3(2.4, 0.3, 0.2), osc_quat_from_axis_angle(osc_v3(0.1, 0.2, 1.0), 0.3)),
         {1.0, 0.0, 0.0}},
        {"crossed_cylinders",
         cylinder,
         cylinder,
         osc_pose_identity(),
         osc_pose_make(osc_v3(1.2, 0.1, 0.3), osc_quat_mul(osc_quat_from_axis_angle(osc_v3(0, 0, 1), 0.2), quarter_x)),
         {1.0, 0.0, 0.0}},
        {"frustum-sphere",
         frustum,
         small_sphere,
         osc_pose_identity(),
         osc_pose_make(osc_v3(0.9, 0.1, 1.4), osc_quat_identity()),
         {1.0, 0.0, 0.0}},
        {"box-cylinder_eps",
         box,
         cylinder,
         osc_pose_make(osc_v3(0.1, -0.2, 0.0), osc_quat_from_axis_angle(osc_v3(1, 1, 1), 0.4)),
         osc_pose_make(osc_v3(0.3, 0.1, 2.2), osc_quat_from_axis_angle(osc_v3(0, 1, 0), 0.7)),
         {1.5, 0.05, 0.1}},
    };
    osc_lmd_cache* cache = lmd_cache_new();
    char name[96];
    for (int p = 0; p < 4; ++p)
        for (int cached = 1; cached >= 0; --cached) {
            snprintf(name, sizeof name, "%s.%s", pairs[p].name, cached ? "cache" : "no_cache");
            if (cached) osc_lmd_cache_reset(cache);
            lmd_query(pairs[p].a, pairs[p].pose_a, pairs[p].b, pairs[p].pose_b, pairs[p].inputs, cached ? cache : NULL,
                      answer);
            dump_lmd_answer(&s, name, answer);
            if (cached) fprintf(stderr, "dump_outputs: lmd %s: %d contacts\n", name, answer->count);
        }
    lmd_cache_free(cache);
    osc_brep_destroy(sphere), osc_brep_destroy(small_sphere), osc_brep_destroy(box);
    osc_brep_destroy(cylinder), osc_brep_destroy(frustum);
    free(answer);
}

// =============================================================================================

static int wanted(const char* only, const char* family) {
    if (!only) return 1;
    size_t length = strlen(family);
    for (const char* p = only; (p = strstr(p, family)); p += length)
        if ((p == only || p[-1] == ',') && (p[length] == ',' || p[length] == 0)) return 1;
    return 0;
}

int main(int argc, char** argv) {
    const char* given_models = NULL;
    const char* only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--models") && i + 1 < argc)
            given_models = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: dump_outputs [--threads N] [--models DIR] [--only FAMILY[,FAMILY...]]\n"
                            "families: dcol, manifold, sdf_pair, ray, lmd\n");
            return 2;
        }
    }
    if (threads < 0) {
        fprintf(stderr, "dump_outputs: --threads must be >= 0\n");
        return 2;
    }
    char models[1024];
    bench_model_dir(given_models, argv[0], models, sizeof models);
    FILE* out = stdout;
    fprintf(out, "# dump_outputs: family case index field component = value (doubles as %%a)\n");
    struct {
        const char* name;
        int manifold;
        void (*run)(FILE*);
    } families[] = {{"dcol", 0, dump_dcol},
                    {"manifold", 1, NULL},
                    {"sdf_pair", 0, dump_sdf_pair},
                    {"ray", 0, dump_ray},
                    {"lmd", 0, dump_lmd}};
    for (size_t f = 0; f < sizeof families / sizeof *families; ++f) {
        if (!wanted(only, families[f].name)) continue;
        double start = bench_now();
        if (families[f].manifold)
            dump_manifold(out, models);
        else
            families[f].run(out);
        fflush(out);
        fprintf(stderr, "dump_outputs: %s done in %.2f s\n", families[f].name, bench_now() - start);
    }
    return 0;
}
