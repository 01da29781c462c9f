// bench_dcol.c: DCOL between convex primitives (issue 5): the time of one query, without and with
// all derivatives, for every ordered pair of the seven primitive kinds, against Tracy et al. 2023's Table I
// and against libccd's MPR and GJK + EPA penetration and coal's GJK / EPA measured in the same run on the
// same shapes and poses. libccd runs twice: through native support functions written for each shape from
// its parameters as a libccd user writes them (bench/peers/ccd_native.h: the peer at its best, peers
// "libccd-mpr-native", "libccd-gjk-epa-native"), and through osc_convex_support (bench/peers/ccd_adapter.h:
// "libccd-mpr", "libccd-gjk-epa", the names this variant had before the native supports, kept for the
// history). coal 3 (bench/peers/coal_dcol.cc, built by bench/peers/setup_coal.sh from the PyPI wheels into
// BUILD/peers/coal_dcol.so and loaded here with dlopen when present) through its own shape classes and
// coal::ComputeDistance (signed distance: GJK, then EPA on overlap; "coal-distance") and
// coal::ComputeCollision (one contact with depth, normal and position; "coal-collide").
//
// Shapes (body frames of include/osculate/convex.h), fixed sizes of the order of 1:
//   polytope   a regular dodecahedron (12 faces: normals the icosahedron's vertices), inradius 0.4
//   capsule    radius 0.2, half-length 0.4
//   cylinder   radius 0.3, half-length 0.35
//   cone       base radius tan(0.5) = 0.55, half-length 0.5 (height 1.0, half angle 0.5)
//   ellipsoid  semi-axes 0.5, 1 / sqrt(2) = 0.71, 1 / 3
//   sphere     radius 0.5
//   polygon    a regular hexagon (edge offsets 0.4) padded by 0.1
//   box        half extents (0.5, 0.4, 0.3), a six-face polytope: an extra row "box-<kind>" against
//              each of the seven, not part of the 49 pairs or the per-kind figures
//   polytope64 64 faces whose normals are a Fibonacci sphere's points, inradius 0.45 (124 vertices):
//              a second extra row, "polytope64-<kind>", for the convex hulls of real models
//
// Poses: for each ordered pair (A, B), --poses (1000) configurations from a fixed seed: A at a point uniform
// in [-1, 1]^3, B at A's position plus s u with u uniform in [-1, 1]^3, both orientations uniformly
// random (Shoemake). Exactly half of them overlap: with the orientations fixed, alpha is the gauge of
// the Minkowski difference at the offset (both shapes are scaled about their own origins), so it is
// homogeneous of degree 1 in the offset; alpha is computed once at s = 1 (untimed) and s is set to
// 1 / median(alpha), which puts the median configuration exactly at contact.
//
// Per configuration, each call once untimed (its status, iterations, alpha and the peers' answers are what
// is counted) and then --repeats (4) more times timed together (bench_now); the DCOL calls first and the
// peers' after on even configurations, the peers first on odd ones (alternated sides):
//   solve        osc_dcol_proximity, default settings, no Jacobians, no warm start
//   solve+derivs osc_dcol_proximity with all six Jacobian arrays (alpha, point, point_a, point_b,
//                distance, normal: 14 rows of 12)
//   solve+dz     osc_dcol_proximity with the Jacobians of alpha and x only: the solution's
//                sensitivities, what Tracy et al. 2023's Table I times as "differentiate" (eq. (8))
//   alpha_grad   osc_dcol_alpha_gradient (alpha and its 12-gradient)
//   mpr          libccd ccdMPRPenetration (depth, direction, position; no derivatives), native supports
//   gjk_epa      libccd ccdGJKPenetration (GJK, then EPA when they overlap), native supports
//   mpr_osc, gjk_epa_osc  the same two through osc_convex_support
//   coal_distance coal::ComputeDistance (signed distance, nearest points, normal)
//   coal_collide coal::ComputeCollision (collision flag; on overlap one contact: depth, normal, position)
// libccd is configured as it ships (CCD_INIT: tolerances 1e-4 for MPR and EPA, 1e-6 for GJK, no
// iteration limit); coal with its default requests (GJK and EPA tolerances 1e-6). Both libccd calls
// and coal's collision return as soon as they find a separating direction and compute nothing more for
// a separated pair, whereas DCOL (and coal's distance) return their answer in every case; so every
// figure is given over all configurations and over the overlapping half alone ("overlap": DCOL's
// alpha < 1).
// A figure is the median over configurations of the per-call time (block time / repeats), in
// microseconds; "derivs" is the median of the per-configuration difference solve+derivs - solve, "dz"
// that of solve+dz - solve. Per kind, the configurations of the 13 ordered pairs that contain the
// kind are pooled (the paper's Table I averages "over each primitive"; it gives means: we give
// medians, and against Table I means too). Also counted: failures (a status other than OSC_OK
// from any of the three DCOL calls), the median iteration count, DEGENERATE flags, and
// disagreements between DCOL and native libccd MPR, and between DCOL and coal's signed distance, on
// whether the pair overlaps (ignoring |alpha - 1| < 1e-3, where the peers' tolerances decide): the
// check that the native shapes are the same shapes.
//
// Batch: osc_dcol_proximity_batch with all Jacobians over BATCH_PAIRS pairs cycling through the 49
// pairs and their configurations, on 1 and 2 threads: one untimed call, then the median of 5 calls,
// as pairs / s.
//
// Warm start: for each of the 49 pairs a trajectory of WARM_STEPS small motions from its first
// configuration: per step B moves by 0.002 (rA + rB) and each body turns by 0.01 rad, about fixed
// random directions (rA, rB: bounding radii). At each step (from the second on) the solve without
// Jacobians is run cold (a warm-start struct with valid = 0) and warm (the iterate of the previous
// step's warm solve); both copy a warm-start struct before each call, so they pay the same overhead.
// Reported: median iterations and median per-call time over all steps, and the largest |alpha_warm -
// alpha_cold|.
//
// Timing: CLOCK_MONOTONIC around the repeated calls of one kind on one configuration, the calls of the five
// kinds interleaved per configuration so that noise on the shared 2-core machine hits them alike,
// after WARM_UP_SECONDS (3) of the same calls untimed over every pair (warm_up).
// Without libccd at build time (OSC_HAVE_CCD undefined) its figures are printed with "peer_value":
// null and a "missing" note.
//
// JSON (suite "dcol"): per pair ("<A>-<B>"), per kind ("<kind>": the pooled figures) and over the 49
// pairs ("all"): solve_us, derivs_us, dz_us, alpha_grad_us, iterations, solve_derivs_us with peer
// "libccd-mpr" and solve_derivs_us_vs_gjk_epa with peer "libccd-gjk-epa" (through osc_convex_support),
// solve_derivs_us_vs_mpr_native and solve_derivs_us_vs_gjk_epa_native (peers "libccd-mpr-native",
// "libccd-gjk-epa-native"), solve_derivs_us_vs_coal_distance and solve_derivs_us_vs_coal_collide (peers
// "coal-distance", "coal-collide"), the same six as solve_derivs_overlap_us* over the overlapping half,
// failures (pairs and "all"), mpr_disagreements (native MPR) and coal_disagreements ("all");
// "batch-1-thread" / "batch-2-threads" pairs_per_s; per pair and "warm-all" cold_iterations,
// warm_iterations, cold_us, warm_us, and alpha_max_difference ("warm-all");
// "resting-<body>-tilt-<t>" solve_us, solve_derivs_us, iterations (the mean) and degenerate (a count).
//
// Resting contact: a body on the box's top face: a copy of the box (face on face), the capsule and
// the cylinder lying on their sides, the cylinder standing on its end, the cone on its base (which
// overhangs the face), the polygon lying flat; turned about the vertical at random,
// moved sideways by up to 0.3 and vertically by up to 0.01 about touching, and tilted by t about a
// random horizontal axis, for t = 0, 1e-10, 1e-8, 1e-6, 1e-3 (500 poses each): what a settled
// simulation asks, where the contact is a face or a line.
//
// --ccd-tight runs libccd with the tolerances of the tests' oracle instead (ccd_adapter_config: 1e-8
// for MPR, EPA and GJK, at most 500 iterations); its figures then carry the peer names with "-tight"
// appended ("libccd-mpr-native-tight", ...).
//
// --coal PATH loads the coal peer from PATH instead of BUILD/peers/coal_dcol.so (BUILD: $OSC_BUILD_DIR, else
// the parent of this program's directory); without it coal's figures are reported missing with the reason.
//
// --once none|solve|derivs|mpr|gjk makes each call of one kind (DCOL's solve, with all Jacobians, native MPR,
// native GJK + EPA) once per configuration of the 49 pairs and exits, for instruction counts under
// valgrind --tool=callgrind ("none": the setup alone, to subtract); --once dump prints every output of
// the call with all Jacobians, one configuration a line, to compare two builds (bench/compare_dcol_dumps.py); --no-peers skips the peers and
// --pairs-only the batch, warm-start and resting sections. --pair A,B (kind indices 0-6, either -1 for
// any) restricts --once to the ordered pairs that match, for a profile per pair.
//
// usage: bench_dcol [--poses N] [--repeats R] [--ccd-tight] [--coal PATH] [--no-peers] [--pairs-only]
//                   [--once KIND [--pair A,B]]; JSON lines on stdout, tables on stderr.

#include "bench.h"

#include "osculate/osculate.h"

#ifdef OSC_HAVE_CCD
#include "ccd_adapter.h"
#include "ccd_native.h"
#endif

#include <dlfcn.h>
#include <math.h>
#include <string.h>

#define SUITE "dcol"
#define KINDS OSC_CONVEX_KIND_COUNT
#define SHAPES (KINDS + 2) // the seven kinds, then the box and the 64-face polytope
#define BOX KINDS
#define POLYTOPE64 (KINDS + 1)
#define PAIRS (KINDS * KINDS + 2 * KINDS) // 49, then box-<kind> and polytope64-<kind>
#define MAX_POSES 20000
#define BATCH_PAIRS 10000
#define WARM_STEPS 300
#define TWO_PI 6.283185307179586
#define WARM_UP_SECONDS 3.0
#define ROWS 14 // Jacobian rows of all six arrays: 1 + 3 + 3 + 3 + 1 + 3

#ifdef OSC_HAVE_CCD
#define PEER_MISSING NULL
#else
#define PEER_MISSING "libccd not found at build time"
#endif

enum {
    SOLVE,
    DERIVS,
    GRAD,
    MPR,     // libccd, native supports
    GJK,     //
    MPR_OSC, // libccd through osc_convex_support
    GJK_OSC, //
    COAL_DISTANCE,
    COAL_COLLIDE,
    DERIVS_ONLY,
    SOLVE_DZ,
    DZ_ONLY,
    MEASURES
};

// Tracy et al. 2023 Table I, average times per primitive in us (evaluate, differentiate), in kind order
// (polytope, capsule, cylinder, cone, ellipsoid, sphere, polygon; the paper has no sphere column)
static const double table_i[OSC_CONVEX_KIND_COUNT][2] = {{5.9, 1.4}, {8.5, 1.4}, {8.4, 1.6}, {5.0, 1.3},
                                                         {6.8, 1.3}, {NAN, NAN}, {9.4, 1.7}};

static int poses = 1000;
static int repeats = 4;
static int ccd_tight = 0;           // --ccd-tight: libccd with the test oracle's tolerances (ccd_adapter_config)
static int no_peers = 0;            // --no-peers: DCOL alone (for profiles), the peers reported missing
static int once_pair[2] = {-1, -1}; // --pair A,B: the kinds of the pairs --once runs (-1: any)

static void fail(const char* what) {
    fprintf(stderr, "bench_dcol: %s: %s\n", what, osc_last_error());
    exit(1);
}

static void* checked_calloc(size_t count, size_t size) {
    void* p = calloc(count, size);
    if (!p) {
        fprintf(stderr, "bench_dcol: out of memory\n");
        exit(1);
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// random numbers (fixed seed)

static bench_rng rng = {0x9E3779B97F4A7C15ull};
static double uniform(double lo, double hi) { return bench_uniform(&rng, lo, hi); }

static osc_quat random_rotation(void) { return bench_random_rotation(&rng); }

static osc_vec3 random_box(double half) {
    return osc_v3(uniform(-half, half), uniform(-half, half), uniform(-half, half));
}

static osc_vec3 random_direction(void) {
    for (;;) {
        osc_vec3 v = random_box(1.0);
        double length = osc_length(v);
        if (length > 1e-3 && length <= 1.0) return osc_scale(v, 1.0 / length);
    }
}

// ---------------------------------------------------------------------------------------------
// shapes

static const char* shape_name(int shape) {
    if (shape == BOX) return "box";
    return shape == POLYTOPE64 ? "polytope64" : osc_convex_kind_name((osc_convex_kind)shape);
}

// the sizes of the round kinds, given to osculate's constructors and to the peers' native shapes: radius and
// half-length (capsule, cylinder, cone), the semi-axes (ellipsoid), the radius (sphere), the padding (polygon)
static void kind_parameters(int kind, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    switch (kind) {
        case OSC_CONVEX_CAPSULE: out[0] = 0.2, out[1] = 0.4; break;
        case OSC_CONVEX_CYLINDER: out[0] = 0.3, out[1] = 0.35; break;
        case OSC_CONVEX_CONE: out[0] = tan(0.5), out[1] = 0.5; break;
        case OSC_CONVEX_ELLIPSOID: out[0] = 0.5, out[1] = 1.0 / sqrt(2.0), out[2] = 1.0 / 3.0; break;
        case OSC_CONVEX_SPHERE: out[0] = 0.5; break;
        case OSC_CONVEX_POLYGON: out[0] = 0.1; break;
        default: break; // the polytopes are given by their halfspaces (make_shapes)
    }
}

static void make_shapes(osc_convex* shapes[SHAPES]) {
    const double phi = 0.5 * (1.0 + sqrt(5.0));
    double normals[12][3], offsets[12];
    const double base[3][3] = {{0, 1, phi}, {1, phi, 0}, {phi, 0, 1}}; // and their sign changes
    for (int k = 0, n = 0; k < 3; ++k)
        for (int s = 0; s < 4; ++s, ++n) {
            int bit = 0; // sign bit `bit` of s flips the bit-th non-zero entry
            for (int c = 0; c < 3; ++c) {
                normals[n][c] = base[k][c];
                if (base[k][c] != 0.0 && (s >> bit++ & 1)) normals[n][c] = -base[k][c];
            }
            offsets[n] = 0.4 * sqrt(1.0 + phi * phi); // inradius 0.4 (the normals have this length)
        }
    if (osc_convex_create_polytope(&normals[0][0], offsets, 12, &shapes[OSC_CONVEX_POLYTOPE]) != OSC_OK)
        fail("osc_convex_create_polytope");
    double size[KINDS][3];
    for (int kind = 0; kind < KINDS; ++kind) kind_parameters(kind, size[kind]);
    if (osc_convex_create_capsule(size[OSC_CONVEX_CAPSULE][0], size[OSC_CONVEX_CAPSULE][1],
                                  &shapes[OSC_CONVEX_CAPSULE]) != OSC_OK)
        fail("capsule");
    if (osc_convex_create_cylinder(size[OSC_CONVEX_CYLINDER][0], size[OSC_CONVEX_CYLINDER][1],
                                   &shapes[OSC_CONVEX_CYLINDER]) != OSC_OK)
        fail("cylinder");
    if (osc_convex_create_cone(size[OSC_CONVEX_CONE][0], size[OSC_CONVEX_CONE][1], &shapes[OSC_CONVEX_CONE]) != OSC_OK)
        fail("cone");
    const double* radii = size[OSC_CONVEX_ELLIPSOID];
    if (osc_convex_create_ellipsoid(osc_v3(radii[0], radii[1], radii[2]), &shapes[OSC_CONVEX_ELLIPSOID]) != OSC_OK)
        fail("ellipsoid");
    if (osc_convex_create_sphere(size[OSC_CONVEX_SPHERE][0], &shapes[OSC_CONVEX_SPHERE]) != OSC_OK) fail("sphere");
    double edges[6][2], edge_offsets[6];
    for (int k = 0; k < 6; ++k) {
        edges[k][0] = cos(TWO_PI * k / 6.0);
        edges[k][1] = sin(TWO_PI * k / 6.0);
        edge_offsets[k] = 0.4;
    }
    if (osc_convex_create_polygon(&edges[0][0], edge_offsets, 6, size[OSC_CONVEX_POLYGON][0],
                                  &shapes[OSC_CONVEX_POLYGON]) != OSC_OK)
        fail("polygon");
    if (osc_convex_create_box(osc_v3(0.5, 0.4, 0.3), &shapes[BOX]) != OSC_OK) fail("box");
    double sphere_normals[64][3], sphere_offsets[64];
    for (int i = 0; i < 64; ++i) {
        // the Fibonacci sphere: heights evenly spaced, longitudes by the golden angle
        double z = 1.0 - (2.0 * i + 1.0) / 64.0, r = sqrt(1.0 - z * z), longitude = TWO_PI * i / (phi * phi);
        sphere_normals[i][0] = r * cos(longitude);
        sphere_normals[i][1] = r * sin(longitude);
        sphere_normals[i][2] = z;
        sphere_offsets[i] = 0.45;
    }
    if (osc_convex_create_polytope(&sphere_normals[0][0], sphere_offsets, 64, &shapes[POLYTOPE64]) != OSC_OK)
        fail("polytope64");
    for (int s = 0; s < KINDS; ++s)
        if (osc_convex_get_kind(shapes[s]) != (osc_convex_kind)s) {
            fprintf(stderr, "bench_dcol: shape %d has kind %d\n", s, (int)osc_convex_get_kind(shapes[s]));
            exit(1);
        }
}

// pair p: (shape_a, shape_b); 0..48 the 7 x 7 kinds, then box-<kind> and polytope64-<kind>
static int pair_a(int p) { return p < KINDS * KINDS ? p / KINDS : p < KINDS * KINDS + KINDS ? BOX : POLYTOPE64; }
static int pair_b(int p) { return p < KINDS * KINDS ? p % KINDS : (p - KINDS * KINDS) % KINDS; }

// ---------------------------------------------------------------------------------------------
// the peers' own shapes: libccd's native supports and coal's shape classes, built from each shape's
// parameters (a polytope's and a polygon's vertices are read from the osculate shape once)

static int shape_kind(int shape) { return shape < KINDS ? shape : OSC_CONVEX_POLYTOPE; }

#ifdef OSC_HAVE_CCD
static ccd_native_shape native_shapes[SHAPES];

static void make_native_shapes(osc_convex* const shapes[SHAPES]) {
    for (int s = 0; s < SHAPES; ++s) {
        ccd_native_shape* n = &native_shapes[s];
        double size[3];
        kind_parameters(shape_kind(s), size);
        n->kind = (osc_convex_kind)shape_kind(s);
        n->radius = size[0];
        n->half_length = size[1];
        for (int k = 0; k < 3; ++k) n->radii[k] = size[k];
        n->vertex_count = osc_convex_vertex_count(shapes[s]);
        if (n->vertex_count > CCD_NATIVE_MAX_VERTICES) {
            fprintf(stderr, "bench_dcol: %s has %d vertices, more than ccd_native.h holds\n", shape_name(s),
                    n->vertex_count);
            exit(1);
        }
        osc_convex_vertices(shapes[s], &n->vertices[0][0], CCD_NATIVE_MAX_VERTICES);
    }
    // the native supports are the shapes' own: their support values h(d) = max over the shape of d . y
    // agree with osc_convex_support's along random directions at random poses
    double worst = 0.0;
    bench_rng saved = rng; // the poses' random numbers stay those of a run without the check
    for (int s = 0; s < SHAPES; ++s)
        for (int i = 0; i < 1000; ++i) {
            osc_pose pose = osc_pose_make(random_box(1.0), random_rotation());
            osc_vec3 direction = random_direction();
            ccd_native_body body = ccd_native_place(&native_shapes[s], pose);
            ccd_vec3_t d = {{direction.x, direction.y, direction.z}}, native;
            ccd_native_support(&body, &d, &native);
            osc_vec3 ours = osc_convex_support(shapes[s], pose, direction);
            double difference = fabs(osc_dot(direction, osc_sub(osc_v3(native.v[0], native.v[1], native.v[2]), ours)));
            if (!(difference <= worst)) worst = difference;
        }
    rng = saved;
    fprintf(stderr,
            "bench_dcol: native libccd supports: largest support-value difference from osc_convex_support %.2g\n",
            worst);
    if (!(worst <= 1e-12)) {
        fprintf(stderr, "bench_dcol: the native support functions are not the shapes'\n");
        exit(1);
    }
}
#endif

// coal (bench/peers/coal_dcol.cc) loaded at run time
typedef struct coal_peer {
    void* (*shape_create)(int kind, const double* params, const double* vertices, int count);
    void (*shape_destroy)(void* shape);
    void* (*pair_create)(const void* a, const void* b);
    void (*pair_destroy)(void* pair);
    double (*distance)(void* pair, const double pose_a[7], const double pose_b[7], double points[6], double normal[3]);
    int (*collide)(void* pair, const double pose_a[7], const double pose_b[7], double* depth);
    const char* (*version)(void);
    void* shapes[SHAPES];
    char missing[1024]; // empty when loaded
} coal_peer;

static coal_peer coal;

static void* coal_symbol(void* library, const char* name) {
    void* symbol = dlsym(library, name);
    if (!symbol && !coal.missing[0]) snprintf(coal.missing, sizeof coal.missing, "coal_dcol.so lacks %s", name);
    return symbol;
}

// loads coal_dcol.so from `path` (NULL: BUILD/peers/coal_dcol.so) and makes its shapes; on failure the reason
// is in coal.missing
static void load_coal(const char* path, const char* program, osc_convex* const shapes[SHAPES]) {
    char build[1024], file[1200];
    if (!path) {
        bench_build_dir(program, build, sizeof build);
        snprintf(file, sizeof file, "%s/peers/coal_dcol.so", build);
        path = file;
    }
    void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(coal.missing, sizeof coal.missing,
                 "cannot load %.400s (bench/peers/setup_coal.sh BUILD builds it): %.400s", path, dlerror());
        return;
    }
    void* symbols[7] = {coal_symbol(library, "osc_coal_shape_create"), coal_symbol(library, "osc_coal_shape_destroy"),
                        coal_symbol(library, "osc_coal_pair_create"),  coal_symbol(library, "osc_coal_pair_destroy"),
                        coal_symbol(library, "osc_coal_distance"),     coal_symbol(library, "osc_coal_collide"),
                        coal_symbol(library, "osc_coal_version")};
    if (coal.missing[0]) return;
    memcpy(&coal.shape_create, &symbols[0], sizeof(void*));
    memcpy(&coal.shape_destroy, &symbols[1], sizeof(void*));
    memcpy(&coal.pair_create, &symbols[2], sizeof(void*));
    memcpy(&coal.pair_destroy, &symbols[3], sizeof(void*));
    memcpy(&coal.distance, &symbols[4], sizeof(void*));
    memcpy(&coal.collide, &symbols[5], sizeof(void*));
    memcpy(&coal.version, &symbols[6], sizeof(void*));
    for (int s = 0; s < SHAPES; ++s) {
        double size[3], vertices[128][3];
        kind_parameters(shape_kind(s), size);
        int count = osc_convex_vertices(shapes[s], &vertices[0][0], 128);
        coal.shapes[s] = coal.shape_create(shape_kind(s), size, &vertices[0][0], count);
        if (!coal.shapes[s]) {
            snprintf(coal.missing, sizeof coal.missing, "coal could not make the %s", shape_name(s));
            return;
        }
    }
}

static void pose_array(osc_pose pose, double out[7]) {
    out[0] = pose.p.x, out[1] = pose.p.y, out[2] = pose.p.z;
    out[3] = pose.q.w, out[4] = pose.q.x, out[5] = pose.q.y, out[6] = pose.q.z;
}

// ---------------------------------------------------------------------------------------------
// measurement

typedef struct pair_data {
    osc_pose* pa; // [poses]
    osc_pose* pb;
    double* t[MEASURES];    // [poses] microseconds per call
    int* iterations;        // [poses]
    unsigned char* overlap; // [poses] alpha < 1
    double scale;           // s
    int failures, degenerate, disagreements, ccd_failures, coal_disagreements, coal_failures;
} pair_data;

static double jac_alpha[12], jac_point[36], jac_point_a[36], jac_point_b[36], jac_distance[12], jac_normal[36];
static const osc_dcol_jacobians all_jacobians = {jac_alpha,   jac_point,    jac_point_a,
                                                 jac_point_b, jac_distance, jac_normal};
static const osc_dcol_jacobians solution_jacobians = {.alpha = jac_alpha, .point = jac_point};

static double median_of(const double* values, int count, const unsigned char* mask, int want) {
    double* copy = checked_calloc((size_t)(count > 0 ? count : 1), sizeof *copy);
    int n = 0;
    for (int i = 0; i < count; ++i)
        if (!mask || mask[i] == want) copy[n++] = values[i];
    double m = n ? bench_median(copy, n) : NAN;
    free(copy);
    return m;
}

// the configurations of pair p, half of them overlapping (see the header)
static void make_poses(pair_data* d, const osc_convex* a, const osc_convex* b) {
    double* alphas = checked_calloc((size_t)poses, sizeof *alphas);
    osc_vec3* offsets = checked_calloc((size_t)poses, sizeof *offsets);
    for (int i = 0; i < poses; ++i) {
        osc_vec3 center = random_box(1.0);
        offsets[i] = random_box(1.0);
        d->pa[i] = osc_pose_make(center, random_rotation());
        d->pb[i] = osc_pose_make(osc_add(center, offsets[i]), random_rotation());
        osc_dcol_result r;
        if (osc_dcol_proximity(a, d->pa[i], b, d->pb[i], NULL, &r, NULL, NULL) != OSC_OK)
            fprintf(stderr, "bench_dcol: calibration: %s\n", osc_last_error());
        alphas[i] = r.alpha;
    }
    double m = bench_median(alphas, poses);
    d->scale = 1.0 / m;
    for (int i = 0; i < poses; ++i) d->pb[i].p = osc_add(d->pa[i].p, osc_scale(offsets[i], d->scale));
    free(alphas);
    free(offsets);
}

// osc_dcol_proximity once untimed (a failure counted, its result in *r), then `repeats` times
// timed together: microseconds per call
static double time_proximity(const osc_convex* a, osc_pose pa, const osc_convex* b, osc_pose pb,
                             const osc_dcol_jacobians* jacobians, osc_dcol_result* r, int* failures) {
    *failures += osc_dcol_proximity(a, pa, b, pb, NULL, r, jacobians, NULL) != OSC_OK;
    osc_dcol_result timed;
    double start = bench_now();
    for (int k = 0; k < repeats; ++k) osc_dcol_proximity(a, pa, b, pb, NULL, &timed, jacobians, NULL);
    return 1e6 * (bench_now() - start) / repeats;
}

// the DCOL calls of one configuration (measure_pair)
static void measure_dcol(pair_data* d, int i, const osc_convex* a, const osc_convex* b, double* solve_alpha) {
    osc_pose pa = d->pa[i], pb = d->pb[i];
    osc_dcol_result r;
    double alpha, gradient[12];
    // solve (its result counted), then with all derivatives and with those of alpha and x
    d->t[SOLVE][i] = time_proximity(a, pa, b, pb, NULL, &r, &d->failures);
    d->iterations[i] = r.iterations;
    d->degenerate += (r.flags & OSC_DCOL_DEGENERATE) != 0;
    d->overlap[i] = r.alpha < 1.0;
    *solve_alpha = r.alpha;
    d->t[DERIVS][i] = time_proximity(a, pa, b, pb, &all_jacobians, &r, &d->failures);
    d->t[SOLVE_DZ][i] = time_proximity(a, pa, b, pb, &solution_jacobians, &r, &d->failures);
    // alpha and its gradient
    d->failures += osc_dcol_alpha_gradient(a, pa, b, pb, NULL, &alpha, gradient) != OSC_OK;
    double start = bench_now();
    for (int k = 0; k < repeats; ++k) osc_dcol_alpha_gradient(a, pa, b, pb, NULL, &alpha, gradient);
    d->t[GRAD][i] = 1e6 * (bench_now() - start) / repeats;
}

#ifdef OSC_HAVE_CCD
// libccd's MPR and GJK + EPA on one configuration, `sa` and `sb` the objects its support functions read;
// returns MPR's answer (0: overlap, -1: apart), counts allocation failures of GJK + EPA
static int time_ccd(const ccd_t* ccd, const void* sa, const void* sb, double* mpr_us, double* gjk_us, int* failures) {
    ccd_real_t depth;
    ccd_vec3_t direction, position;
    int hit = ccdMPRPenetration(sa, sb, ccd, &depth, &direction, &position);
    double start = bench_now();
    for (int k = 0; k < repeats; ++k) ccdMPRPenetration(sa, sb, ccd, &depth, &direction, &position);
    *mpr_us = 1e6 * (bench_now() - start) / repeats;
    *failures += ccdGJKPenetration(sa, sb, ccd, &depth, &direction, &position) == -2;
    start = bench_now();
    for (int k = 0; k < repeats; ++k) ccdGJKPenetration(sa, sb, ccd, &depth, &direction, &position);
    *gjk_us = 1e6 * (bench_now() - start) / repeats;
    return hit;
}
#endif

// the peers' calls of one configuration (measure_pair); `sa`, `sb` the shapes' indices
static void measure_peers(pair_data* d, int i, const osc_convex* a, const osc_convex* b, int sa, int sb,
                          double solve_alpha, void* coal_pair) {
    osc_pose pa = d->pa[i], pb = d->pb[i];
    int decided = fabs(solve_alpha - 1.0) > 1e-3; // beyond the peers' tolerances
    if (no_peers) {
        for (int m = MPR; m <= COAL_COLLIDE; ++m) d->t[m][i] = NAN;
        return;
    }
#ifdef OSC_HAVE_CCD
    ccd_t ccd = ccd_tight ? ccd_adapter_config() : ccd_native_config();
    ccd.support1 = ccd.support2 = ccd_native_support;
    ccd.center1 = ccd.center2 = ccd_native_center;
    // native supports: the shapes placed at the poses (a rotation matrix each), as a user does per query
    ccd_native_body na = ccd_native_place(&native_shapes[sa], pa), nb = ccd_native_place(&native_shapes[sb], pb);
    int hit = time_ccd(&ccd, &na, &nb, &d->t[MPR][i], &d->t[GJK][i], &d->ccd_failures);
    if (hit == (solve_alpha < 1.0 ? -1 : 0) && decided) ++d->disagreements;
    // through osc_convex_support
    ccd.support1 = ccd.support2 = ccd_shape_support;
    ccd.center1 = ccd.center2 = ccd_shape_center;
    ccd_shape oa = {a, pa, 1.0}, ob = {b, pb, 1.0};
    time_ccd(&ccd, &oa, &ob, &d->t[MPR_OSC][i], &d->t[GJK_OSC][i], &d->ccd_failures);
#else
    (void)a, (void)b, (void)sa, (void)sb, (void)decided;
    d->t[MPR][i] = d->t[GJK][i] = d->t[MPR_OSC][i] = d->t[GJK_OSC][i] = NAN;
#endif
    if (!coal_pair) {
        d->t[COAL_DISTANCE][i] = d->t[COAL_COLLIDE][i] = NAN;
        return;
    }
    double qa[7], qb[7], points[6], normal[3], depth;
    pose_array(pa, qa);
    pose_array(pb, qb);
    double distance = coal.distance(coal_pair, qa, qb, points, normal);
    d->coal_failures += !isfinite(distance);
    if ((distance < 0.0) != (solve_alpha < 1.0) && decided) ++d->coal_disagreements;
    double start = bench_now();
    for (int k = 0; k < repeats; ++k) {
        pose_array(pa, qa);
        pose_array(pb, qb);
        coal.distance(coal_pair, qa, qb, points, normal);
    }
    d->t[COAL_DISTANCE][i] = 1e6 * (bench_now() - start) / repeats;
    d->coal_failures += coal.collide(coal_pair, qa, qb, &depth) < 0;
    start = bench_now();
    for (int k = 0; k < repeats; ++k) {
        pose_array(pa, qa);
        pose_array(pb, qb);
        coal.collide(coal_pair, qa, qb, &depth);
    }
    d->t[COAL_COLLIDE][i] = 1e6 * (bench_now() - start) / repeats;
}

// every configuration of a pair: DCOL's calls and the peers', the DCOL calls first on even
// configurations and last on odd ones
static void measure_pair(pair_data* d, osc_convex* const shapes[SHAPES], int sa, int sb) {
    const osc_convex *a = shapes[sa], *b = shapes[sb];
    void* coal_pair = coal.missing[0] ? NULL : coal.pair_create(coal.shapes[sa], coal.shapes[sb]);
    for (int i = 0; i < poses; ++i) {
        double solve_alpha = NAN;
        if (i % 2 == 0) {
            measure_dcol(d, i, a, b, &solve_alpha);
            measure_peers(d, i, a, b, sa, sb, solve_alpha, coal_pair);
        } else {
            // the peers first: DCOL's alpha from an untimed solve decides the disagreement counts
            osc_dcol_result r;
            osc_dcol_proximity(a, d->pa[i], b, d->pb[i], NULL, &r, NULL, NULL);
            measure_peers(d, i, a, b, sa, sb, r.alpha, coal_pair);
            measure_dcol(d, i, a, b, &solve_alpha);
        }
        d->t[DERIVS_ONLY][i] = d->t[DERIVS][i] - d->t[SOLVE][i];
        d->t[DZ_ONLY][i] = d->t[SOLVE_DZ][i] - d->t[SOLVE][i];
    }
    if (coal_pair) coal.pair_destroy(coal_pair);
}

// The calls measured, untimed, cycling through the pairs' configurations for WARM_UP_SECONDS:
// this machine's cores run the first part of a process slowly (measured: the first 0.3-3 s at
// 1.5-1.7 times the later time per call, libccd less so), which without it inflated the pairs
// measured first (every polytope-<kind> pair, sometimes the capsule's too) by up to 60 %.
static void warm_up(osc_convex* const shapes[SHAPES], const pair_data* data) {
    double start = bench_now();
    osc_dcol_result r;
    for (int i = 0; bench_now() - start < WARM_UP_SECONDS; i = (i + 1) % poses)
        for (int p = 0; p < PAIRS; ++p)
            osc_dcol_proximity(shapes[pair_a(p)], data[p].pa[i], shapes[pair_b(p)], data[p].pb[i], NULL, &r,
                               &all_jacobians, NULL);
}

// --once dump: one line per configuration on stdout, the pair, the pose and every output with all
// six Jacobians (%.17g), to compare two builds' answers on these poses
static void dump_outputs(int pair, int pose, const osc_dcol_result* r) {
    printf("%d %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g", pair, pose,
           r->alpha, r->distance, r->point.x, r->point.y, r->point.z, r->point_a.x, r->point_a.y, r->point_a.z,
           r->point_b.x, r->point_b.y, r->point_b.z, r->normal.x, r->normal.y, r->normal.z);
    const double* arrays[6] = {jac_alpha, jac_point, jac_point_a, jac_point_b, jac_distance, jac_normal};
    const int sizes[6] = {12, 36, 36, 36, 12, 36};
    for (int a = 0; a < 6; ++a)
        for (int i = 0; i < sizes[a]; ++i) printf(" %.17g", arrays[a][i]);
    printf("\n");
}

// --once KIND: each call of one kind once per configuration of the 49 pairs, untimed, for instruction
// counts (valgrind --tool=callgrind; "none" is the setup alone, to subtract)
static int run_once(const char* kind, osc_convex* const shapes[SHAPES], const pair_data* data) {
    int mode = !strcmp(kind, "none")     ? 0
               : !strcmp(kind, "solve")  ? 1
               : !strcmp(kind, "derivs") ? 2
               : !strcmp(kind, "mpr")    ? 3
               : !strcmp(kind, "gjk")    ? 4
               : !strcmp(kind, "dump")   ? 5
                                         : -1;
    if (mode < 0) {
        fprintf(stderr, "bench_dcol: --once takes none, solve, derivs, mpr, gjk or dump\n");
        return 2;
    }
#ifdef OSC_HAVE_CCD
    ccd_t ccd = ccd_native_config();
#else
    if (mode >= 3) {
        fprintf(stderr, "bench_dcol: libccd not found at build time\n");
        return 2;
    }
#endif
    int failures = 0, calls = 0;
    for (int p = 0; p < KINDS * KINDS; ++p)
        for (int i = 0; i < poses; ++i) {
            if ((once_pair[0] >= 0 && pair_a(p) != once_pair[0]) || (once_pair[1] >= 0 && pair_b(p) != once_pair[1]))
                break;
            ++calls;
            const osc_convex *a = shapes[pair_a(p)], *b = shapes[pair_b(p)];
            osc_pose pa = data[p].pa[i], pb = data[p].pb[i];
            osc_dcol_result r;
            if (mode == 1 || mode == 2 || mode == 5)
                failures +=
                    osc_dcol_proximity(a, pa, b, pb, NULL, &r, mode >= 2 ? &all_jacobians : NULL, NULL) != OSC_OK;
            if (mode == 5) dump_outputs(p, i, &r);
#ifdef OSC_HAVE_CCD
            ccd_native_body na = ccd_native_place(&native_shapes[pair_a(p)], pa);
            ccd_native_body nb = ccd_native_place(&native_shapes[pair_b(p)], pb);
            ccd_real_t depth;
            ccd_vec3_t direction, position;
            if (mode == 3) ccdMPRPenetration(&na, &nb, &ccd, &depth, &direction, &position);
            if (mode == 4) failures += ccdGJKPenetration(&na, &nb, &ccd, &depth, &direction, &position) == -2;
#endif
        }
    fprintf(stderr, "bench_dcol: --once %s: %d calls, %d failures\n", kind, calls, failures);
    return failures != 0;
}

// ---------------------------------------------------------------------------------------------
// reporting

// the peers compared with DCOL's solve with all Jacobians: measure, JSON peer name, metric suffix, table name
typedef struct peer_column {
    int measure;
    const char* peer;
    const char* suffix;
    const char* label;
} peer_column;

enum { PEER_COLUMNS = 6 };
static const peer_column peer_columns[PEER_COLUMNS] = {
    {MPR, "libccd-mpr-native", "_vs_mpr_native", "MPR"},
    {GJK, "libccd-gjk-epa-native", "_vs_gjk_epa_native", "GJK+EPA"},
    {COAL_DISTANCE, "coal-distance", "_vs_coal_distance", "coal distance"},
    {COAL_COLLIDE, "coal-collide", "_vs_coal_collide", "coal collide"},
    {MPR_OSC, "libccd-mpr", "", "MPR (osc support)"},
    {GJK_OSC, "libccd-gjk-epa", "_vs_gjk_epa", "GJK+EPA (osc support)"},
};

static const char* peer_missing(int measure) {
    if (measure == COAL_DISTANCE || measure == COAL_COLLIDE) return coal.missing[0] ? coal.missing : NULL;
    return no_peers ? "--no-peers" : PEER_MISSING;
}

// DCOL's solve with all Jacobians against every peer: solve_derivs[_overlap]_us<suffix>
static void report_peers(const char* name, const double* ours, const double* overlap) {
    for (int pass = 0; pass < 2; ++pass)
        for (int c = 0; c < PEER_COLUMNS; ++c) {
            const peer_column* column = &peer_columns[c];
            const double* t = pass ? overlap : ours;
            char metric[96], peer[64];
            snprintf(metric, sizeof metric, "solve_derivs%s_us%s", pass ? "_overlap" : "", column->suffix);
            int is_ccd = column->measure != COAL_DISTANCE && column->measure != COAL_COLLIDE;
            snprintf(peer, sizeof peer, "%s%s", column->peer, is_ccd && ccd_tight ? "-tight" : "");
            const char* missing = peer_missing(column->measure);
            double value = t[column->measure];
            if (missing || !isfinite(value)) {
                printf("{\"suite\": \"%s\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": "
                       "\"us\", \"peer\": \"%s\", \"peer_value\": null, \"missing\": \"%s\"}\n",
                       SUITE, name, metric, t[DERIVS], peer, missing ? missing : "no figure");
                fflush(stdout);
                continue;
            }
            bench_report_peer(SUITE, name, metric, t[DERIVS], "us", peer, value);
        }
}

static double mean_of(const double* values, int count) {
    double sum = 0.0;
    for (int i = 0; i < count; ++i) sum += values[i];
    return count > 0 ? sum / count : NAN;
}

// the medians of one set of configurations: all, or overlapping only
typedef struct figures {
    double t[MEASURES];
    double iterations;
    int count;
} figures;

static figures summarize(const double* const* t, const int* iterations, const unsigned char* overlap, int count,
                         int overlapping_only) {
    figures f;
    const unsigned char* mask = overlapping_only ? overlap : NULL;
    for (int m = 0; m < MEASURES; ++m) f.t[m] = median_of(t[m], count, mask, 1);
    double* it = checked_calloc((size_t)count, sizeof *it);
    for (int i = 0; i < count; ++i) it[i] = iterations[i];
    f.iterations = median_of(it, count, mask, 1);
    free(it);
    f.count = 0;
    for (int i = 0; i < count; ++i) f.count += !mask || mask[i];
    return f;
}

static void print_load(const char* when) {
    char text[64] = "?\n";
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(text, sizeof text, f)) snprintf(text, sizeof text, "?\n");
        fclose(f);
    }
    fprintf(stderr, "bench_dcol: load average %s: %s", when, text);
}

// the per-kind table: medians, then DCOL's solve with all Jacobians over each peer's time, over all
// configurations and over the overlapping half
static void print_ratio_header(void) {
    fprintf(stderr, "| kind | solve | derivs | solve+derivs | alpha_grad | iters |");
    for (int c = 0; c < PEER_COLUMNS; ++c) fprintf(stderr, " %s |", peer_columns[c].label);
    for (int c = 0; c < PEER_COLUMNS; ++c) fprintf(stderr, " / %s |", peer_columns[c].label);
    fprintf(stderr, " overlap: solve+derivs |");
    for (int c = 0; c < PEER_COLUMNS; ++c) fprintf(stderr, " overlap: / %s |", peer_columns[c].label);
    fprintf(stderr, "\n|");
    for (int c = 0; c < 7 + 3 * PEER_COLUMNS; ++c) fprintf(stderr, "---|");
    fprintf(stderr, "\n");
}

static void print_ratio_row(const char* name, const figures* all, const figures* over) {
    fprintf(stderr, "| %s | %.2f | %.2f | %.2f | %.2f | %.0f |", name, all->t[SOLVE], all->t[DERIVS_ONLY],
            all->t[DERIVS], all->t[GRAD], all->iterations);
    for (int c = 0; c < PEER_COLUMNS; ++c) fprintf(stderr, " %.2f |", all->t[peer_columns[c].measure]);
    for (int c = 0; c < PEER_COLUMNS; ++c) fprintf(stderr, " %.2f |", all->t[DERIVS] / all->t[peer_columns[c].measure]);
    fprintf(stderr, " %.2f |", over->t[DERIVS]);
    for (int c = 0; c < PEER_COLUMNS; ++c)
        fprintf(stderr, " %.2f |", over->t[DERIVS] / over->t[peer_columns[c].measure]);
    fprintf(stderr, "\n");
}

// ---------------------------------------------------------------------------------------------
// batch throughput

static double batch_rate(osc_convex* const shapes[SHAPES], pair_data* data, int threads, int* failures) {
    osc_dcol_batch_item* items = checked_calloc(BATCH_PAIRS, sizeof *items);
    osc_dcol_result* results = checked_calloc(BATCH_PAIRS, sizeof *results);
    osc_status* statuses = checked_calloc(BATCH_PAIRS, sizeof *statuses);
    osc_dcol_jacobians* jacobians = checked_calloc(BATCH_PAIRS, sizeof *jacobians);
    double* storage = checked_calloc((size_t)BATCH_PAIRS * ROWS * 12, sizeof *storage);
    for (int i = 0; i < BATCH_PAIRS; ++i) {
        int p = i % (KINDS * KINDS), pose = (i / (KINDS * KINDS)) % poses;
        items[i] =
            (osc_dcol_batch_item){shapes[pair_a(p)], data[p].pa[pose], shapes[pair_b(p)], data[p].pb[pose], NULL};
        double* s = storage + (size_t)i * ROWS * 12;
        osc_dcol_jacobians j = {s, s + 12, s + 48, s + 84, s + 120, s + 132};
        jacobians[i] = j;
    }
    osc_dcol_proximity_batch(items, BATCH_PAIRS, NULL, results, jacobians, statuses, threads);
    *failures = 0;
    for (int i = 0; i < BATCH_PAIRS; ++i) *failures += statuses[i] != OSC_OK;
    double times[5];
    for (int c = 0; c < 5; ++c) {
        double start = bench_now();
        osc_dcol_proximity_batch(items, BATCH_PAIRS, NULL, results, jacobians, statuses, threads);
        times[c] = bench_now() - start;
    }
    free(items);
    free(results);
    free(statuses);
    free(jacobians);
    free(storage);
    return BATCH_PAIRS / bench_median(times, 5);
}

// ---------------------------------------------------------------------------------------------
// warm start along a trajectory

typedef struct warm_figures {
    double cold_iterations, warm_iterations, cold_us, warm_us, alpha_difference;
    int cold_failures, warm_failures;
} warm_figures;

static osc_quat turn(osc_quat q, osc_vec3 axis, double angle) {
    return osc_quat_normalize(osc_quat_mul(osc_quat_from_axis_angle(axis, angle), q));
}

// one pair's trajectory; appends its per-step figures to the pooled arrays at *n
static warm_figures warm_pair(const osc_convex* a, const osc_convex* b, osc_pose pa, osc_pose pb, double* pooled[4],
                              int* n) {
    static osc_dcol_warm_start previous, scratch, cold_template;
    memset(&previous, 0, sizeof previous);
    memset(&cold_template, 0, sizeof cold_template);
    double step = 0.002 * (osc_convex_bounding_radius(a) + osc_convex_bounding_radius(b));
    osc_vec3 velocity = osc_scale(random_direction(), step);
    osc_vec3 axis_a = random_direction(), axis_b = random_direction();
    double values[4][WARM_STEPS];
    warm_figures w = {0, 0, 0, 0, 0, 0, 0};
    int count = 0;
    for (int t = 0; t < WARM_STEPS; ++t) {
        if (t > 0) {
            pb.p = osc_add(pb.p, velocity);
            pa.q = turn(pa.q, axis_a, 0.01);
            pb.q = turn(pb.q, axis_b, 0.01);
        }
        osc_dcol_result cold, warm;
        // cold
        memcpy(&scratch, &cold_template, sizeof scratch);
        w.cold_failures += t > 0 && osc_dcol_proximity(a, pa, b, pb, NULL, &cold, NULL, &scratch) != OSC_OK;
        double start = bench_now();
        for (int k = 0; k < repeats; ++k) {
            memcpy(&scratch, &cold_template, sizeof scratch);
            osc_dcol_proximity(a, pa, b, pb, NULL, &cold, NULL, &scratch);
        }
        double cold_us = 1e6 * (bench_now() - start) / repeats;
        // warm, from the previous step's warm solve (the first step has none: cold)
        memcpy(&scratch, &previous, sizeof scratch);
        w.warm_failures += t > 0 && osc_dcol_proximity(a, pa, b, pb, NULL, &warm, NULL, &scratch) != OSC_OK;
        start = bench_now();
        for (int k = 0; k < repeats; ++k) {
            memcpy(&scratch, &previous, sizeof scratch);
            osc_dcol_proximity(a, pa, b, pb, NULL, &warm, NULL, &scratch);
        }
        double warm_us = 1e6 * (bench_now() - start) / repeats;
        memcpy(&previous, &scratch, sizeof previous);
        if (t == 0) continue;
        values[0][count] = cold.iterations;
        values[1][count] = warm.iterations;
        values[2][count] = cold_us;
        values[3][count] = warm_us;
        for (int m = 0; m < 4; ++m) pooled[m][*n] = values[m][count];
        ++*n;
        ++count;
        double difference = fabs(warm.alpha - cold.alpha);
        if (!(difference <= w.alpha_difference)) w.alpha_difference = difference; // NaN propagates
    }
    w.cold_iterations = bench_median(values[0], count);
    w.warm_iterations = bench_median(values[1], count);
    w.cold_us = bench_median(values[2], count);
    w.warm_us = bench_median(values[3], count);
    return w;
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    const char *coal_path = NULL, *once = NULL;
    int pairs_only = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--poses") && i + 1 < argc)
            poses = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ccd-tight"))
            ccd_tight = 1;
        else if (!strcmp(argv[i], "--coal") && i + 1 < argc)
            coal_path = argv[++i];
        else if (!strcmp(argv[i], "--no-peers"))
            no_peers = 1;
        else if (!strcmp(argv[i], "--pairs-only"))
            pairs_only = 1;
        else if (!strcmp(argv[i], "--once") && i + 1 < argc)
            once = argv[++i];
        else if (!strcmp(argv[i], "--pair") && i + 1 < argc &&
                 sscanf(argv[++i], "%d,%d", &once_pair[0], &once_pair[1]) == 2 && once_pair[0] < KINDS &&
                 once_pair[1] < KINDS)
            continue;
        else {
            fprintf(stderr, "usage: bench_dcol [--poses N] [--repeats R] [--ccd-tight] [--coal PATH] [--no-peers] "
                            "[--pairs-only] [--once none|solve|derivs|mpr|gjk|dump [--pair A,B]]\n");
            return 2;
        }
    }
    if (poses < 2 || poses > MAX_POSES || repeats < 1) {
        fprintf(stderr, "bench_dcol: --poses must be 2..%d and --repeats >= 1\n", MAX_POSES);
        return 2;
    }
    double program_start = bench_now();
    print_load("at start");
    osc_convex* shapes[SHAPES];
    make_shapes(shapes);
    for (int k = 0; k < SHAPES; ++k)
        fprintf(stderr, "bench_dcol: %-9s %2d faces, %2d vertices, bounding radius %.3f\n", shape_name(k),
                osc_convex_face_count(shapes[k]), osc_convex_vertex_count(shapes[k]),
                osc_convex_bounding_radius(shapes[k]));
    fprintf(stderr, "bench_dcol: %d configurations per pair, %d timed repetitions per call, libccd %s\n", poses,
            repeats,
            PEER_MISSING ? "missing"
            : ccd_tight  ? "present (--ccd-tight: tolerances 1e-8, 500 iterations)"
                         : "present (CCD_INIT tolerances)");
#ifdef OSC_HAVE_CCD
    make_native_shapes(shapes);
#endif
    if (no_peers)
        snprintf(coal.missing, sizeof coal.missing, "--no-peers");
    else
        load_coal(coal_path, argv[0], shapes);
    fprintf(stderr, "bench_dcol: coal %s%s\n", coal.missing[0] ? "missing: " : "",
            coal.missing[0] ? coal.missing : coal.version());

    // --- per pair ---------------------------------------------------------------------------------
    pair_data* data = checked_calloc(PAIRS, sizeof *data);
    for (int p = 0; p < PAIRS; ++p) {
        pair_data* d = &data[p];
        d->pa = checked_calloc((size_t)poses, sizeof *d->pa);
        d->pb = checked_calloc((size_t)poses, sizeof *d->pb);
        for (int m = 0; m < MEASURES; ++m) d->t[m] = checked_calloc((size_t)poses, sizeof(double));
        d->iterations = checked_calloc((size_t)poses, sizeof *d->iterations);
        d->overlap = checked_calloc((size_t)poses, 1);
        make_poses(d, shapes[pair_a(p)], shapes[pair_b(p)]);
    }
    if (once) return run_once(once, shapes, data);
    warm_up(shapes, data);
    for (int p = 0; p < PAIRS; ++p) measure_pair(&data[p], shapes, pair_a(p), pair_b(p));
    double pairs_seconds = bench_now() - program_start;

    fprintf(stderr, "\n**Per pair (median us per call; all configurations, then the overlapping half; peers: "
                    "libccd with native supports, coal)**\n\n");
    fprintf(stderr, "| pair | s | iters | solve | solve+derivs | alpha_grad | MPR | GJK+EPA | coal distance | coal "
                    "collide | MPR (osc support) | solve+derivs (overlap) | MPR (overlap) | GJK+EPA (overlap) | coal "
                    "distance (overlap) | failures | degenerate | MPR disagrees | coal disagrees |\n");
    fprintf(stderr, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < PAIRS; ++p) {
        pair_data* d = &data[p];
        char name[64];
        snprintf(name, sizeof name, "%s-%s", shape_name(pair_a(p)), shape_name(pair_b(p)));
        const double* t[MEASURES];
        for (int m = 0; m < MEASURES; ++m) t[m] = d->t[m];
        figures all = summarize(t, d->iterations, d->overlap, poses, 0);
        figures over = summarize(t, d->iterations, d->overlap, poses, 1);
        bench_report(SUITE, name, "solve_us", all.t[SOLVE], "us");
        report_peers(name, all.t, over.t);
        bench_report(SUITE, name, "derivs_us", all.t[DERIVS_ONLY], "us");
        bench_report(SUITE, name, "dz_us", all.t[DZ_ONLY], "us");
        bench_report(SUITE, name, "alpha_grad_us", all.t[GRAD], "us");
        bench_report(SUITE, name, "iterations", all.iterations, "count");
        bench_report(SUITE, name, "failures", d->failures, "count");
        fprintf(stderr,
                "| %s | %.3g | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                "%.2f | %d | %d | %d | %d |\n",
                name, d->scale, all.iterations, all.t[SOLVE], all.t[DERIVS], all.t[GRAD], all.t[MPR], all.t[GJK],
                all.t[COAL_DISTANCE], all.t[COAL_COLLIDE], all.t[MPR_OSC], over.t[DERIVS], over.t[MPR], over.t[GJK],
                over.t[COAL_DISTANCE], d->failures, d->degenerate, d->disagreements, d->coal_disagreements);
    }

    // --- per kind: the configurations of the 13 ordered pairs that contain it ----------------------
    fprintf(stderr, "\n**Per kind (pooled over the 13 pairs containing it; median us; ratios: DCOL's solve with "
                    "all Jacobians / the peer)**\n\n");
    print_ratio_header();
    int pooled_capacity = 13 * poses;
    double* pooled[MEASURES];
    for (int m = 0; m < MEASURES; ++m) pooled[m] = checked_calloc((size_t)pooled_capacity, sizeof(double));
    int* pooled_iterations = checked_calloc((size_t)pooled_capacity, sizeof(int));
    unsigned char* pooled_overlap = checked_calloc((size_t)pooled_capacity, 1);
    double kind_solve[KINDS], kind_dz[KINDS], kind_derivs[KINDS];
    double kind_mean[KINDS][3]; // solve, dz, derivs: means, the statistic of Table I
    for (int kind = 0; kind < KINDS; ++kind) {
        int n = 0;
        for (int p = 0; p < KINDS * KINDS; ++p) {
            if (pair_a(p) != kind && pair_b(p) != kind) continue;
            for (int i = 0; i < poses; ++i, ++n) {
                for (int m = 0; m < MEASURES; ++m) pooled[m][n] = data[p].t[m][i];
                pooled_iterations[n] = data[p].iterations[i];
                pooled_overlap[n] = data[p].overlap[i];
            }
        }
        const double* t[MEASURES];
        for (int m = 0; m < MEASURES; ++m) t[m] = pooled[m];
        figures all = summarize(t, pooled_iterations, pooled_overlap, n, 0);
        figures over = summarize(t, pooled_iterations, pooled_overlap, n, 1);
        const char* name = shape_name(kind);
        bench_report(SUITE, name, "solve_us", all.t[SOLVE], "us");
        bench_report(SUITE, name, "derivs_us", all.t[DERIVS_ONLY], "us");
        bench_report(SUITE, name, "dz_us", all.t[DZ_ONLY], "us");
        report_peers(name, all.t, over.t);
        bench_report(SUITE, name, "alpha_grad_us", all.t[GRAD], "us");
        bench_report(SUITE, name, "iterations", all.iterations, "count");
        kind_solve[kind] = all.t[SOLVE];
        kind_dz[kind] = all.t[DZ_ONLY];
        kind_derivs[kind] = all.t[DERIVS_ONLY];
        kind_mean[kind][0] = mean_of(pooled[SOLVE], n);
        kind_mean[kind][1] = mean_of(pooled[DZ_ONLY], n);
        kind_mean[kind][2] = mean_of(pooled[DERIVS_ONLY], n);
        bench_report(SUITE, name, "solve_mean_us", kind_mean[kind][0], "us");
        bench_report(SUITE, name, "dz_mean_us", kind_mean[kind][1], "us");
        bench_report(SUITE, name, "derivs_mean_us", kind_mean[kind][2], "us");
        print_ratio_row(name, &all, &over);
    }
    // all 49 pairs together
    {
        int n = 0;
        double* everything[MEASURES];
        for (int m = 0; m < MEASURES; ++m)
            everything[m] = checked_calloc((size_t)(KINDS * KINDS * poses), sizeof(double));
        int* iterations = checked_calloc((size_t)(KINDS * KINDS * poses), sizeof(int));
        unsigned char* overlap = checked_calloc((size_t)(KINDS * KINDS * poses), 1);
        int failures = 0, disagreements = 0, degenerate = 0, ccd_failures = 0, coal_disagreements = 0,
            coal_failures = 0;
        for (int p = 0; p < KINDS * KINDS; ++p) {
            failures += data[p].failures;
            disagreements += data[p].disagreements;
            degenerate += data[p].degenerate;
            ccd_failures += data[p].ccd_failures;
            coal_disagreements += data[p].coal_disagreements;
            coal_failures += data[p].coal_failures;
            for (int i = 0; i < poses; ++i, ++n) {
                for (int m = 0; m < MEASURES; ++m) everything[m][n] = data[p].t[m][i];
                iterations[n] = data[p].iterations[i];
                overlap[n] = data[p].overlap[i];
            }
        }
        const double* t[MEASURES];
        for (int m = 0; m < MEASURES; ++m) t[m] = everything[m];
        figures all = summarize(t, iterations, overlap, n, 0);
        figures over = summarize(t, iterations, overlap, n, 1);
        bench_report(SUITE, "all", "solve_us", all.t[SOLVE], "us");
        bench_report(SUITE, "all", "derivs_us", all.t[DERIVS_ONLY], "us");
        bench_report(SUITE, "all", "dz_us", all.t[DZ_ONLY], "us");
        report_peers("all", all.t, over.t);
        bench_report(SUITE, "all", "alpha_grad_us", all.t[GRAD], "us");
        bench_report(SUITE, "all", "iterations", all.iterations, "count");
        bench_report(SUITE, "all", "failures", failures, "count");
        bench_report(SUITE, "all", "mpr_disagreements", disagreements, "count");
        bench_report(SUITE, "all", "coal_disagreements", coal_disagreements, "count");
        print_ratio_row("all 49", &all, &over);
        fprintf(stderr,
                "\n49 pairs x %d configurations: %d DCOL failures, %d DEGENERATE flags, %d disagreements "
                "with native MPR on overlap, %d with coal's signed distance, %d libccd allocation failures, %d coal "
                "failures\n",
                poses, failures, degenerate, disagreements, coal_disagreements, ccd_failures, coal_failures);
        for (int m = 0; m < MEASURES; ++m) free(everything[m]);
        free(iterations);
        free(overlap);
    }
    // against Tracy et al. 2023's Table I (the target is 0.2: five times faster)
    fprintf(stderr, "\n**Against Tracy et al. 2023 Table I (pooled medians here / the paper's averages)**\n\n");
    fprintf(stderr, "| kind | solve | Table I evaluate | ratio | dz | Table I differentiate | ratio | "
                    "all derivs | ratio |\n");
    fprintf(stderr, "|---|---|---|---|---|---|---|---|---|\n");
    for (int kind = 0; kind < KINDS; ++kind) {
        if (isnan(table_i[kind][0])) continue;
        fprintf(stderr, "| %s | %.2f | %.1f | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f |\n", shape_name(kind),
                kind_solve[kind], table_i[kind][0], kind_solve[kind] / table_i[kind][0], kind_dz[kind],
                table_i[kind][1], kind_dz[kind] / table_i[kind][1], kind_derivs[kind],
                kind_derivs[kind] / table_i[kind][1]);
    }
    fprintf(stderr, "\n**Against Tracy et al. 2023 Table I (pooled means here, the statistic of Table I)**\n\n");
    fprintf(stderr, "| kind | solve | ratio | dz | ratio | all derivs | ratio |\n");
    fprintf(stderr, "|---|---|---|---|---|---|---|\n");
    for (int kind = 0; kind < KINDS; ++kind) {
        if (isnan(table_i[kind][0])) continue;
        fprintf(stderr, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", shape_name(kind), kind_mean[kind][0],
                kind_mean[kind][0] / table_i[kind][0], kind_mean[kind][1], kind_mean[kind][1] / table_i[kind][1],
                kind_mean[kind][2], kind_mean[kind][2] / table_i[kind][1]);
    }
    for (int m = 0; m < MEASURES; ++m) free(pooled[m]);
    free(pooled_iterations);
    free(pooled_overlap);

    if (pairs_only) {
        fprintf(stderr, "\nbench_dcol: pairs %.1f s (--pairs-only)\n", pairs_seconds);
        goto done;
    }
    // --- batch throughput -------------------------------------------------------------------------
    double batch_start = bench_now();
    fprintf(stderr, "\n**Batch: osc_dcol_proximity_batch, all Jacobians, %d mixed pairs**\n\n", BATCH_PAIRS);
    double rate1 = NAN;
    for (int threads = 1; threads <= 2; ++threads) {
        int failures = 0;
        double rate = batch_rate(shapes, data, threads, &failures);
        if (threads == 1) rate1 = rate;
        char name[32];
        snprintf(name, sizeof name, "batch-%d-thread%s", threads, threads > 1 ? "s" : "");
        bench_report(SUITE, name, "pairs_per_s", rate, "pairs/s");
        fprintf(stderr, "- %d thread%s: %.0f pairs/s (%.2f us a pair%s), %d failures\n", threads,
                threads > 1 ? "s" : "", rate, 1e6 / rate, threads > 1 ? "" : " on one core", failures);
        if (threads == 2) fprintf(stderr, "- speed-up: %.2f\n", rate / rate1);
    }
    double batch_seconds = bench_now() - batch_start;

    // --- warm start ---------------------------------------------------------------------------------
    double warm_start_time = bench_now();
    fprintf(stderr, "\n**Warm start along trajectories (%d steps a pair, solve without Jacobians)**\n\n", WARM_STEPS);
    fprintf(stderr, "| pair | cold iters | warm iters | cold us | warm us | max abs alpha difference | failures "
                    "cold/warm |\n|---|---|---|---|---|---|---|\n");
    int warm_capacity = KINDS * KINDS * WARM_STEPS;
    double* warm_pooled[4];
    for (int m = 0; m < 4; ++m) warm_pooled[m] = checked_calloc((size_t)warm_capacity, sizeof(double));
    int warm_n = 0, cold_failures = 0, warm_failures = 0;
    double worst_difference = 0.0;
    for (int p = 0; p < KINDS * KINDS; ++p) {
        char name[64];
        snprintf(name, sizeof name, "%s-%s", shape_name(pair_a(p)), shape_name(pair_b(p)));
        warm_figures w =
            warm_pair(shapes[pair_a(p)], shapes[pair_b(p)], data[p].pa[0], data[p].pb[0], warm_pooled, &warm_n);
        bench_report(SUITE, name, "cold_iterations", w.cold_iterations, "count");
        bench_report(SUITE, name, "warm_iterations", w.warm_iterations, "count");
        bench_report(SUITE, name, "cold_us", w.cold_us, "us");
        bench_report(SUITE, name, "warm_us", w.warm_us, "us");
        fprintf(stderr, "| %s | %.0f | %.0f | %.2f | %.2f | %.2g | %d/%d |\n", name, w.cold_iterations,
                w.warm_iterations, w.cold_us, w.warm_us, w.alpha_difference, w.cold_failures, w.warm_failures);
        cold_failures += w.cold_failures;
        warm_failures += w.warm_failures;
        if (!(w.alpha_difference <= worst_difference)) worst_difference = w.alpha_difference;
    }
    double warm_medians[4];
    for (int m = 0; m < 4; ++m) warm_medians[m] = bench_median(warm_pooled[m], warm_n);
    bench_report(SUITE, "warm-all", "cold_iterations", warm_medians[0], "count");
    bench_report(SUITE, "warm-all", "warm_iterations", warm_medians[1], "count");
    bench_report(SUITE, "warm-all", "cold_us", warm_medians[2], "us");
    bench_report(SUITE, "warm-all", "warm_us", warm_medians[3], "us");
    bench_report(SUITE, "warm-all", "alpha_max_difference", worst_difference, "1");
    fprintf(stderr, "| all 49 | %.0f | %.0f | %.2f | %.2f | %.2g | %d/%d |\n", warm_medians[0], warm_medians[1],
            warm_medians[2], warm_medians[3], worst_difference, cold_failures, warm_failures);
    for (int m = 0; m < 4; ++m) free(warm_pooled[m]);
    double warm_seconds = bench_now() - warm_start_time;

    // --- resting contact ----------------------------------------------------------------------------
    double resting_start = bench_now();
    fprintf(stderr, "\n**Resting contact: a body on the box's top face, tilted by t (median us, mean iterations, "
                    "500 poses)**\n\n| body | t | solve | solve + derivs | iterations | DEGENERATE | failures |\n"
                    "|---|---|---|---|---|---|---|\n");
    enum { RESTING = 500 };
    const double tilts[5] = {0.0, 1e-10, 1e-8, 1e-6, 1e-3};
    // the body, its frame (a capsule and a cylinder lying, their axis z turned onto x by a quarter
    // turn about y, a cylinder standing on it, a cone on its base, a quarter of its height below its
    // origin, the polygon flat) and the height of its origin above the face when touching
    enum { RESTING_BODIES = 6 };
    const int resting_shapes[RESTING_BODIES] = {
        BOX, OSC_CONVEX_CAPSULE, OSC_CONVEX_CYLINDER, OSC_CONVEX_CYLINDER, OSC_CONVEX_CONE, OSC_CONVEX_POLYGON};
    const char* resting_names[RESTING_BODIES] = {"box",       "capsule", "cylinder", "cylinder-standing",
                                                 "cone-base", "polygon"};
    const double h = 0.7071067811865476;
    const osc_quat resting_frames[RESTING_BODIES] = {{1, 0, 0, 0}, {h, 0, h, 0}, {h, 0, h, 0},
                                                     {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    const double resting_heights[RESTING_BODIES] = {0.3, 0.2, 0.3, 0.35, 0.25, 0.1};
    double* resting_times[2];
    for (int m = 0; m < 2; ++m) resting_times[m] = checked_calloc(RESTING, sizeof(double));
    for (int body = 0; body < RESTING_BODIES; ++body)
        for (int ti = 0; ti < 5; ++ti) {
            const osc_convex* resting = shapes[resting_shapes[body]];
            int failures = 0, degenerate = 0;
            double iterations = 0.0;
            for (int i = 0; i < RESTING; ++i) {
                osc_vec3 axis = random_direction();
                axis.z = 0.0;
                axis = osc_normalize(osc_add(axis, osc_v3(1e-9, 0.0, 0.0)));
                double yaw = uniform(0.0, 6.283185307179586);
                osc_quat turn_z = {cos(0.5 * yaw), 0.0, 0.0, sin(0.5 * yaw)};
                osc_quat q =
                    osc_quat_mul(osc_quat_exp(osc_scale(axis, tilts[ti])), osc_quat_mul(turn_z, resting_frames[body]));
                osc_pose pa = {osc_v3(0.0, 0.0, 0.0), {1.0, 0.0, 0.0, 0.0}};
                osc_pose pb = {
                    osc_v3(uniform(-0.3, 0.3), uniform(-0.3, 0.3), 0.3 + resting_heights[body] + uniform(-0.01, 0.01)),
                    q};
                osc_dcol_result r;
                resting_times[0][i] = time_proximity(shapes[BOX], pa, resting, pb, NULL, &r, &failures);
                resting_times[1][i] = time_proximity(shapes[BOX], pa, resting, pb, &all_jacobians, &r, &failures);
                iterations += r.iterations;
                degenerate += (r.flags & OSC_DCOL_DEGENERATE) != 0;
            }
            double medians[2];
            for (int m = 0; m < 2; ++m) medians[m] = bench_median(resting_times[m], RESTING);
            iterations /= RESTING;
            char name[64];
            snprintf(name, sizeof name, "resting-%s-tilt-%g", resting_names[body], tilts[ti]);
            bench_report(SUITE, name, "solve_us", medians[0], "us");
            bench_report(SUITE, name, "solve_derivs_us", medians[1], "us");
            bench_report(SUITE, name, "iterations", iterations, "count");
            bench_report(SUITE, name, "degenerate", degenerate, "count");
            fprintf(stderr, "| %s | %g | %.2f | %.2f | %.2f | %d | %d |\n", resting_names[body], tilts[ti], medians[0],
                    medians[1], iterations, degenerate, failures);
        }
    for (int m = 0; m < 2; ++m) free(resting_times[m]);
    double resting_seconds = bench_now() - resting_start;

    fprintf(stderr, "\nbench_dcol: pairs %.1f s, batch %.1f s, warm start %.1f s, resting %.1f s, total %.1f s\n",
            pairs_seconds, batch_seconds, warm_seconds, resting_seconds, bench_now() - program_start);
done:
    print_load("at end");
    for (int p = 0; p < PAIRS; ++p) {
        free(data[p].pa);
        free(data[p].pb);
        for (int m = 0; m < MEASURES; ++m) free(data[p].t[m]);
        free(data[p].iterations);
        free(data[p].overlap);
    }
    free(data);
    for (int s = 0; s < SHAPES; ++s) {
        osc_convex_destroy(shapes[s]);
        if (!coal.missing[0]) coal.shape_destroy(coal.shapes[s]);
    }
    return 0;
}
