// bench_manifold.c: contact manifolds between two armadillos (issue 4), reproducing Beker et al. 2026 §V
// items 3) and 4) (Figs. 11 and 12) on the CPU, with MuJoCo's mesh-vs-mesh SDF collision measured
// in the same run on the same poses and the same geometry (bench/peers/mujoco_manifold.py).
//
// The model: CGAL's armadillo ($OSC_MODEL_DIR, else models/ in the build directory;
// tools/fetch_models.sh), centred on its bounding box and scaled to an x extent of 1.38 (the paper's §V.4).
// Its SDF is one of
//   spline    osc_grid_create_from_mesh (BVH, resolution 64), the library's mesh SDF;
//   sq K      a smooth union (temperature 0.01) of K = 1, 2, 4, 8, 18 superquadrics. There is no
//             fitted 18-SQ armadillo (the paper's Fig. 9 uses the method of its ref. [25]); this is a
//             deterministic STAND-IN with the same number of SQs: the vertices are split into K
//             clusters by k-means (osc_mesh_groups_cluster), and each cluster gets an SQ (eps1 = eps2
//             = 0.8) on its principal axes with semi-axes sqrt(3 variance) (the semi-axes of an
//             ellipsoidal shell with that covariance), placed by osc_sdf_create_transformed. It has
//             the cost of an 18-SQ armadillo, not its shape.
// The collision mesh of each body is that SDF's own zero set (osc_collision_mesh_create, 96 cells,
// simplified to at most 2000 triangles; the spline also with 500), so that every body's mesh lies on
// its SDF. Bodies have 16 convex groups (OSC_GROUPS_CLUSTER) and the default settings (blending on,
// d_max 0.02, 3 sphere-tracing steps); contacts are the blended group contacts the query returns.
//
// Fig. 11 (narrow phase, settings.broad_phase = 0): body A at the origin, B translated by a uniform
//   offset in +-0.3 x 1.38 on each axis; both randomly rotated (seeded); 100 configurations. Batches
//   of 1, 4, 16, 64, 256, 1024 configurations (cycled from the 100) through osc_manifold_collide_batch
//   on 1 and 2 threads, without and with derivatives (all four pose-Jacobian arrays requested). On
//   the 100 poses as one batch, 1 thread, also with the broad phase on (default settings): the
//   library as it is used, which is what MuJoCo (with its own broad phase) is compared with too.
// Fig. 12 (broad + narrow phase): A at the origin, B translated along x by B linearly spaced
//   distances in [1, 2] (the paper's text: the x extent being 1.38, the bounding boxes overlap by 0.38
//   at the first and are apart from 1.38 on), batches 1..1024, d_max in {0, 0.01, 0.05, 0.1}, with
//   derivatives, for the spline, the 18-SQ union and the 18-SQ union with a broad-phase voxel grid
//   padded to cover the whole range (padding 2.1, 64 cells: the default grid of an osc_sdf body
//   reaches half the body's size beyond its bounds, and features outside it are never skipped); the
//   narrow-phase-only figures of Fig. 11 at batch 1 and the largest batch measured are printed with
//   them (the paper's dashed lines).
// MuJoCo (peer): its SDF collision of two sdf geoms of the scaled armadillo (the 52,000-triangle mesh
//   written as OBJ; octree depth 6, sdf_iterations 10, sdf_initpoints 40; its own broad phase), one
//   thread, on the same 100 Fig. 11 poses and on the 1024 Fig. 12 poses. Its figures go next to
//   osculate's 1-thread ones ("peer": "mujoco", "peer_value"; null with "missing" when it is not set up).
//
// Timing: per figure one untimed warm-up call, then calls until at least 3 and 0.25 s in total (at
// most 9); the median call gives configurations / s and contacts / s. The machine has 2 shared cores
// and the whole program is meant to finish in under 5 minutes, so a cell whose 4 calls are estimated
// (from the rate at the previous batch size) to take more than the cap (2.5 s; three times that for
// the figures on the peer's poses; --cap S, --full for no cap) is not measured ("-" in the tables, no
// JSON line). Where the 100 poses were not affordable, the side-by-side figure is the largest batch
// measured on 1 thread (the first B of the 100 poses) and its metric says so. On a CPU a batch is a
// loop over threads, so configs/s is flat in the batch size once every thread has work.
//
// --quick: only the side-by-side figures of the spline body with 2000 triangles, with derivatives, 1 thread
//   (Fig. 11's 100 poses narrow and with the broad phase, Fig. 12's 1024 poses at d_max 0 and 0.1) and
//   MuJoCo's on the same poses: about 30 s, for comparing two builds in alternated runs.
//
// --once FIGURE (with --quick): one untimed call of one of those figures (narrow, broad, fig12-0, fig12-0.1) or
//   of Fig. 11's first configuration alone (narrow-1), for instruction and evaluation counts under
//   valgrind --tool=callgrind --toggle-collect=osc_manifold_collide_batch (docs/BENCHMARKS.md).
//
// --sq: Fig. 11's 100 poses, narrow phase, with derivatives, 1 thread, for the spline body (2000 triangles)
//   and the 1-, 2- and 18-SQ unions, with each body's time over the spline body's: the SQ bodies' cost in
//   about a minute, for alternated runs of two builds (no peer). --sq-once K: one untimed call of those
//   poses for the K-SQ body (0: the spline), for counts of osc_sdf_eval (points) and sdf_psq_eval
//   (superquadric evaluations), e.g. by uprobes, less those of --sq-once 3 (the same bodies, no call).
//
// MuJoCo gives no derivatives; a derivative user differentiates it by forward differences, 1 + 12 calls
// per configuration (the 6 + 6 pose coordinates), so the tables also show MuJoCo's rate divided by 13
// ("MuJoCo FD") and osculate's ratio to it. That figure is a best case: MuJoCo's contact set is not
// differentiable (separately measured on Fig. 11's poses: its contact count changes in 1-10 % of the
// perturbed calls at steps 1e-6 to 1e-4, and a matched contact moves more than 100 times the step in
// 43-70 % of them), so its difference quotients are not derivatives there.
//
// usage: bench_manifold [--full] [--quick [--once FIGURE]] [--sq | --sq-once K] [--cap SECONDS] [--no-peer];
// JSON lines on stdout, tables on stderr.

#include "bench.h"

#include "osculate/osculate.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#define SUITE "manifold"
#define EXTENT 1.38
#define CONFIGS 100
#define MAX_BATCH 1024
#define PADDING 2.1
#define TWO_PI 6.283185307179586
#define FD_CALLS 13 // forward differences of MuJoCo: 1 + 12 calls per configuration

enum { BATCH_COUNT = 6, SQ_VARIANTS = 5 };
static const int batches[BATCH_COUNT] = {1, 4, 16, 64, 256, 1024};
static const int sq_counts[SQ_VARIANTS] = {1, 2, 4, 8, 18};
static const double d_maxes[4] = {0.0, 0.01, 0.05, 0.1};

static double cap_seconds = 2.5;
static int full_run = 0;

static void fail(const char* what) {
    fprintf(stderr, "bench_manifold: %s: %s\n", what, osc_last_error());
    exit(1);
}

// ---------------------------------------------------------------------------------------------
// random numbers (fixed seed)

static bench_rng rng = {0x2545F4914F6CDD1Dull};
static double uniform(double lo, double hi) { return bench_uniform(&rng, lo, hi); }

static osc_quat random_rotation(void) { return bench_random_rotation(&rng); }

// ---------------------------------------------------------------------------------------------
// geometry

// the armadillo centred on its bounding box with x extent EXTENT
static osc_mesh* load_armadillo(const char* path) {
    osc_mesh* raw = NULL;
    if (osc_mesh_load(path, NULL, &raw, NULL) != OSC_OK) {
        fprintf(stderr, "bench_manifold: %s (run tools/fetch_models.sh)\n", osc_last_error());
        exit(1);
    }
    int32_t n = osc_mesh_vertex_count(raw);
    const double* v = osc_mesh_vertices(raw);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], v[3 * i + a]), hi[a] = fmax(hi[a], v[3 * i + a]);
    double scale = EXTENT / (hi[0] - lo[0]);
    double* w = malloc(sizeof(double) * 3 * (size_t)n);
    for (int32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) w[3 * i + a] = (v[3 * i + a] - 0.5 * (lo[a] + hi[a])) * scale;
    osc_mesh* mesh = NULL;
    if (osc_mesh_create(w, n, osc_mesh_triangles(raw), osc_mesh_triangle_count(raw), &mesh) != OSC_OK)
        fail("osc_mesh_create");
    free(w);
    osc_mesh_destroy(raw);
    return mesh;
}

// eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations: a becomes diagonal (the
// eigenvalues), the columns of v the eigenvectors
static void jacobi3(double a[3][3], double v[3][3]) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v[i][j] = i == j;
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (off < 1e-15 * (fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]))) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0) continue;
                double theta = 0.5 * (a[q][q] - a[p][p]) / a[p][q];
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { // a <- J^T a J
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq, a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk, a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq, v[k][q] = s * vkp + c * vkq;
                }
            }
    }
}

// the stand-in for a K-SQ armadillo (see the header): one SQ per k-means cluster of the vertices
static osc_sdf* sq_union(const osc_mesh* mesh, int count) {
    int32_t n = osc_mesh_vertex_count(mesh), groups = 0;
    const double* v = osc_mesh_vertices(mesh);
    int32_t* id = malloc(sizeof(int32_t) * (size_t)n);
    if (osc_mesh_groups_cluster(mesh, count, id, &groups) != OSC_OK) fail("osc_mesh_groups_cluster");
    osc_sdf** parts = calloc((size_t)groups, sizeof *parts);
    for (int32_t g = 0; g < groups; ++g) {
        double mean[3] = {0, 0, 0}, cov[3][3] = {{0}}, basis[3][3];
        int32_t members = 0;
        for (int32_t i = 0; i < n; ++i)
            if (id[i] == g) {
                ++members;
                for (int a = 0; a < 3; ++a) mean[a] += v[3 * i + a];
            }
        for (int a = 0; a < 3; ++a) mean[a] /= members;
        for (int32_t i = 0; i < n; ++i)
            if (id[i] == g)
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b) cov[a][b] += (v[3 * i + a] - mean[a]) * (v[3 * i + b] - mean[b]);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) cov[a][b] /= members;
        jacobi3(cov, basis);
        osc_mat3 r;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) r.m[a][b] = basis[a][b];
        if (osc_mat3_determinant(r) < 0)
            for (int a = 0; a < 3; ++a) r.m[a][2] = -r.m[a][2];
        osc_vec3 scales =
            osc_v3(fmax(sqrt(3.0 * fmax(cov[0][0], 0.0)), 0.02), fmax(sqrt(3.0 * fmax(cov[1][1], 0.0)), 0.02),
                   fmax(sqrt(3.0 * fmax(cov[2][2], 0.0)), 0.02));
        osc_sdf* sq = NULL;
        if (osc_sdf_create_superquadric(scales, 0.8, 0.8, &sq) != OSC_OK) fail("osc_sdf_create_superquadric");
        osc_pose pose = osc_pose_make(osc_v3(mean[0], mean[1], mean[2]), osc_quat_from_mat3(r));
        if (osc_sdf_create_transformed(sq, pose, 1.0, &parts[g]) != OSC_OK) fail("osc_sdf_create_transformed");
        osc_sdf_destroy(sq);
    }
    osc_sdf* sdf = NULL;
    if (osc_sdf_create_union((const osc_sdf* const*)parts, groups, 0.01, &sdf) != OSC_OK) fail("osc_sdf_create_union");
    for (int32_t g = 0; g < groups; ++g) osc_sdf_destroy(parts[g]);
    free(parts);
    free(id);
    return sdf;
}

static osc_mesh* collision_mesh(const osc_sdf* sdf, int32_t target) {
    osc_collision_mesh_settings settings = osc_collision_mesh_settings_default();
    settings.target_triangles = target;
    osc_mesh* mesh = NULL;
    if (osc_collision_mesh_create(sdf, &settings, &mesh) != OSC_OK) fail("osc_collision_mesh_create");
    return mesh;
}

// a body with 16 convex groups; padding / resolution < 0: the defaults of the broad-phase voxel grid
static osc_body* make_body(const osc_mesh* mesh, const osc_grid* grid, const osc_sdf* sdf, double padding,
                           int resolution) {
    osc_body_desc desc = osc_body_desc_default();
    if (padding >= 0.0) desc.broad_phase_padding = padding;
    if (resolution > 0) desc.broad_phase_resolution = resolution;
    desc.mesh = mesh;
    desc.grid = grid;
    desc.sdf = grid ? NULL : sdf;
    desc.groups = OSC_GROUPS_CLUSTER;
    desc.group_count = 16;
    osc_body* body = NULL;
    if (osc_body_create(&desc, &body) != OSC_OK) fail("osc_body_create");
    return body;
}

// ---------------------------------------------------------------------------------------------
// timing

typedef struct workspace {
    osc_pose pa[MAX_BATCH], pb[MAX_BATCH];
    osc_manifold_contact* contacts;
    double *point_j, *distance_j, *normal_j, *weight_j;
    int32_t capacity;
} workspace;

static workspace ws;

typedef struct rate {
    double configs, contacts; // per second (median call); NAN when not measured
    double mean_contacts;
    int calls;
} rate;

static const rate not_measured = {NAN, NAN, NAN, 0};

// one batch call; returns the contacts written (the items and outputs are built around the
// workspace's arrays, a few microseconds against a call of milliseconds)
static long call(const osc_body* body, size_t count, const osc_manifold_settings* settings, int derivatives,
                 int threads) {
    static osc_manifold_batch_item items[MAX_BATCH];
    static osc_manifold_output outputs[MAX_BATCH];
    for (size_t i = 0; i < count; ++i) {
        size_t at = i * (size_t)ws.capacity;
        items[i] = (osc_manifold_batch_item){body, ws.pa[i], body, ws.pb[i]};
        outputs[i] = (osc_manifold_output){ws.contacts + at,
                                           ws.capacity,
                                           0,
                                           0,
                                           derivatives ? ws.point_j + 36 * at : NULL,
                                           derivatives ? ws.distance_j + 12 * at : NULL,
                                           derivatives ? ws.normal_j + 36 * at : NULL,
                                           derivatives ? ws.weight_j + 12 * at : NULL};
    }
    osc_status status = osc_manifold_collide_batch(items, count, settings, outputs, NULL, threads);
    if (status != OSC_OK) fail("osc_manifold_collide_batch");
    long total = 0;
    for (size_t i = 0; i < count; ++i) total += outputs[i].count;
    return total;
}

// `batch` configurations cycled from poses[count] into the workspace
static void load_batch(const osc_pose* pa, const osc_pose* pb, int count, int batch) {
    for (int i = 0; i < batch; ++i) ws.pa[i] = pa[i % count], ws.pb[i] = pb[i % count];
}

// median-of-calls rate of one batch; `estimate` (configs/s, NAN: unknown) decides whether it fits the cap
static rate measure(const osc_body* body, int batch, const osc_manifold_settings* settings, int derivatives,
                    int threads, double estimate) {
    if (!full_run && isfinite(estimate) && 4.0 * batch / estimate > cap_seconds) return not_measured;
    double times[9];
    long contacts = call(body, (size_t)batch, settings, derivatives, threads); // warm-up
    int calls = 0;
    double total = 0.0;
    while (calls < 3 || (total < 0.25 && calls < 9)) {
        double start = bench_now();
        call(body, (size_t)batch, settings, derivatives, threads);
        times[calls] = bench_now() - start;
        total += times[calls++];
    }
    double t = bench_median(times, calls);
    rate r = {batch / t, contacts / t, (double)contacts / batch, calls};
    return r;
}

// ---------------------------------------------------------------------------------------------
// reporting

static void report(const char* name, const char* metric, double value, const char* unit) {
    if (isfinite(value)) bench_report(SUITE, name, metric, value, unit);
}

static void report_peer(const char* name, const char* metric, double value, const char* unit, double peer,
                        const char* missing) {
    if (!isfinite(value)) return;
    if (missing || !isfinite(peer)) {
        printf("{\"suite\": \"%s\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", "
               "\"peer\": \"mujoco\", \"peer_value\": null, \"missing\": \"%s\"}\n",
               SUITE, name, metric, value, unit, missing ? missing : "no figure");
        fflush(stdout);
        return;
    }
    bench_report_peer(SUITE, name, metric, value, unit, "mujoco", peer);
}

static const char* si(double value, char* buffer) {
    if (!isfinite(value))
        snprintf(buffer, 16, "-");
    else if (value >= 1e6)
        snprintf(buffer, 16, "%.2f M", value * 1e-6);
    else if (value >= 1e3)
        snprintf(buffer, 16, "%.2f k", value * 1e-3);
    else
        snprintf(buffer, 16, "%.1f", value);
    return buffer;
}

// the load of the (shared) machine: /proc/loadavg to stderr
static void print_load(void) {
    char text[64] = "?\n";
    FILE* f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(text, sizeof text, f)) snprintf(text, sizeof text, "?\n");
        fclose(f);
    }
    fputs(text, stderr);
}

// ---------------------------------------------------------------------------------------------
// the peer

typedef struct peer_result {
    double configs, contacts, mean_contacts;
    char version[32];
    char missing[256];
} peer_result;

static double json_number(const char* line, const char* key) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\": ", key);
    const char* at = strstr(line, needle);
    return at ? strtod(at + strlen(needle), NULL) : NAN;
}

static void json_string(const char* line, const char* key, char* out, size_t size) {
    char needle[64];
    snprintf(needle, sizeof needle, "\"%s\": \"", key);
    const char* at = strstr(line, needle);
    out[0] = 0;
    if (!at) return;
    at += strlen(needle);
    size_t k = 0;
    for (; at[k] && at[k] != '"' && k + 1 < size; ++k) out[k] = at[k] == '\\' ? ' ' : at[k];
    out[k] = 0;
}

static void write_poses(const char* path, const osc_pose* pa, const osc_pose* pb, int count) {
    FILE* f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_manifold: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "# pA (xyz) qA (wxyz) pB (xyz) qB (wxyz), world-from-body\n");
    for (int i = 0; i < count; ++i) {
        const osc_pose* p[2] = {&pa[i], &pb[i]};
        for (int b = 0; b < 2; ++b)
            fprintf(f, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g%s", p[b]->p.x, p[b]->p.y, p[b]->p.z, p[b]->q.w,
                    p[b]->q.x, p[b]->q.y, p[b]->q.z, b ? "\n" : " ");
    }
    fclose(f);
}

static peer_result run_peer(const char* script, const char* build, const char* obj, const char* poses) {
    peer_result r = {NAN, NAN, NAN, "", ""};
    char command[4096];
    snprintf(command, sizeof command, "python3 %s %s %s %s --peers-dir %s/peers 2>/dev/null", script, obj, obj, poses,
             build);
    FILE* pipe = popen(command, "r");
    if (!pipe) {
        snprintf(r.missing, sizeof r.missing, "cannot run python3");
        return r;
    }
    char line[8192], last[8192] = "";
    while (fgets(line, sizeof line, pipe))
        if (strchr(line, '{')) snprintf(last, sizeof last, "%s", line);
    if (last[0]) fprintf(stderr, "bench_manifold: peer: %s", last);
    int status = pclose(pipe);
    if (!last[0]) {
        snprintf(r.missing, sizeof r.missing, "mujoco_manifold.py printed nothing (exit status %d)", status);
        return r;
    }
    json_string(last, "missing", r.missing, sizeof r.missing);
    if (r.missing[0]) return r;
    json_string(last, "version", r.version, sizeof r.version);
    r.configs = json_number(last, "configs_per_s");
    r.contacts = json_number(last, "contacts_per_s");
    r.mean_contacts = json_number(last, "mean_contacts");
    if (!isfinite(r.configs)) snprintf(r.missing, sizeof r.missing, "unreadable output");
    return r;
}

// ---------------------------------------------------------------------------------------------

typedef struct variant {
    char name[48];
    osc_sdf* sdf;   // owned
    osc_mesh* mesh; // owned
    osc_body* body;
} variant;

// --quick --once FIGURE: one call of that figure with derivatives on 1 thread
static int quick_once(const osc_body* body, const char* figure, const osc_pose* fig11_a, const osc_pose* fig11_b) {
    osc_manifold_settings settings = osc_manifold_settings_default();
    int n = MAX_BATCH;
    if (!strcmp(figure, "narrow") || !strcmp(figure, "narrow-1") || !strcmp(figure, "broad")) {
        settings.broad_phase = strcmp(figure, "broad") == 0;
        n = strcmp(figure, "narrow-1") ? CONFIGS : 1;
        load_batch(fig11_a, fig11_b, CONFIGS, n);
    } else if (!strcmp(figure, "fig12-0") || !strcmp(figure, "fig12-0.1")) {
        settings.d_max = strcmp(figure, "fig12-0") ? 0.1 : 0.0;
        for (int i = 0; i < n; ++i) {
            ws.pa[i] = osc_pose_identity();
            ws.pb[i] = osc_pose_make(osc_v3(1.0 + (double)i / (MAX_BATCH - 1), 0, 0), osc_quat_identity());
        }
    } else {
        fprintf(stderr, "bench_manifold: --once takes narrow, narrow-1, broad, fig12-0 or fig12-0.1\n");
        return 2;
    }
    long contacts = call(body, (size_t)n, &settings, 1, 1);
    fprintf(stderr, "bench_manifold: --once %s: %d configurations, %ld contacts\n", figure, n, contacts);
    return 0;
}

// --quick: the side-by-side figures of one body with derivatives on 1 thread and MuJoCo's from the same
// run (Fig. 11's 100 poses narrow and with the broad phase, Fig. 12's 1024 poses at d_max 0 and 0.1)
static int quick_figures(const osc_body* body, const char* body_name, const osc_pose* fig11_a, const osc_pose* fig11_b,
                         const peer_result* peer11, const peer_result* peer12) {
    osc_manifold_settings narrow = osc_manifold_settings_default(), broad = narrow;
    narrow.broad_phase = 0;
    load_batch(fig11_a, fig11_b, CONFIGS, CONFIGS);
    rate r11[2] = {measure(body, CONFIGS, &narrow, 1, 1, NAN), measure(body, CONFIGS, &broad, 1, 1, NAN)};
    const double dm[2] = {0.0, 0.1};
    rate r12[2];
    for (int m = 0; m < 2; ++m) {
        for (int i = 0; i < MAX_BATCH; ++i) {
            ws.pa[i] = osc_pose_identity();
            ws.pb[i] = osc_pose_make(osc_v3(1.0 + (double)i / (MAX_BATCH - 1), 0, 0), osc_quat_identity());
        }
        osc_manifold_settings settings = osc_manifold_settings_default();
        settings.d_max = dm[m];
        r12[m] = measure(body, MAX_BATCH, &settings, 1, 1, NAN);
    }
    const char* names[4] = {"fig11 narrow, 100 poses", "fig11 broad (d_max 0.02), 100 poses",
                            "fig12 d_max 0, 1024 poses", "fig12 d_max 0.1, 1024 poses"};
    const rate* rates[4] = {&r11[0], &r11[1], &r12[0], &r12[1]};
    const peer_result* peers[4] = {peer11, peer11, peer12, peer12};
    char name[640], metric[256];
    snprintf(name, sizeof name, "armadillo %s", body_name);
    fprintf(stderr, "\nquick: %s, with derivatives, 1 thread, configurations / s; MuJoCo %s in the same run\n",
            body_name, peer11->version[0] ? peer11->version : "(missing)");
    for (int k = 0; k < 4; ++k) {
        double peer = peers[k]->missing[0] ? NAN : peers[k]->configs;
        fprintf(stderr, "  %-38s %10.1f   MuJoCo %10.1f   ratio %6.3f   MuJoCo FD %9.1f   ratio %6.3f\n", names[k],
                rates[k]->configs, peer, rates[k]->configs / peer, peer / FD_CALLS,
                rates[k]->configs / (peer / FD_CALLS));
        snprintf(metric, sizeof metric, "quick %s, 1 thread, with derivatives", names[k]);
        report_peer(name, metric, rates[k]->configs, "configs/s", peer,
                    peers[k]->missing[0] ? peers[k]->missing : NULL);
    }
    return 0;
}

// --sq: the spline body and the SQ unions on Fig. 11's 100 poses (narrow, with derivatives, 1 thread);
// --sq-once K (once_count >= 0): one untimed call for the K-SQ body (0: the spline)
static int sq_figures(const variant* variants, int count, const osc_pose* fig11_a, const osc_pose* fig11_b,
                      int once_count) {
    osc_manifold_settings narrow = osc_manifold_settings_default();
    narrow.broad_phase = 0;
    load_batch(fig11_a, fig11_b, CONFIGS, CONFIGS);
    if (once_count >= 0) {
        for (int k = 0; k < count; ++k) {
            if (!variants[k].body || (once_count == 0) != (k == 0) ||
                (k > 0 && osc_sdf_leaf_count(variants[k].sdf) != once_count))
                continue;
            long contacts = call(variants[k].body, CONFIGS, &narrow, 1, 1);
            fprintf(stderr, "bench_manifold: --sq-once %s: %d configurations, %ld contacts\n", variants[k].name,
                    CONFIGS, contacts);
            return 0;
        }
        fprintf(stderr, "bench_manifold: --sq-once takes 0 (the spline), 1, 2 or 18\n");
        return 2;
    }
    double spline = NAN;
    fprintf(stderr, "\nsq: Fig. 11's 100 poses, narrow phase, with derivatives, 1 thread\n");
    fprintf(stderr, "  %-20s %12s %14s %12s %9s\n", "SDF", "configs/s", "us / config", "/ spline", "contacts");
    for (int k = 0; k < count; ++k) {
        if (!variants[k].body) continue;
        rate r = measure(variants[k].body, CONFIGS, &narrow, 1, 1, NAN);
        if (k == 0) spline = r.configs;
        fprintf(stderr, "  %-20s %12.1f %14.1f %12.2f %9.1f\n", variants[k].name, r.configs, 1e6 / r.configs,
                spline / r.configs, r.mean_contacts);
        char name[640];
        snprintf(name, sizeof name, "armadillo %s", variants[k].name);
        report(name, "sq: fig11 narrow phase, the 100 poses, 1 thread, with derivatives", r.configs, "configs/s");
        if (k > 0)
            report(name, "sq: fig11 narrow phase, the 100 poses, time over the spline body's", spline / r.configs, "x");
    }
    return 0;
}

int main(int argc, char** argv) {
    int with_peer = 1, quick = 0, sq = 0, sq_once = -1;
    const char* once = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--full"))
            full_run = 1;
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--once") && i + 1 < argc)
            once = argv[++i];
        else if (!strcmp(argv[i], "--no-peer"))
            with_peer = 0;
        else if (!strcmp(argv[i], "--sq"))
            sq = 1;
        else if (!strcmp(argv[i], "--sq-once") && i + 1 < argc)
            sq = 1, sq_once = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cap") && i + 1 < argc)
            cap_seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_manifold [--full] [--quick [--once FIGURE]] [--sq | --sq-once K] [--cap "
                            "SECONDS] [--no-peer]\n");
            return 2;
        }
    }
    double program_start = bench_now();
    char load_at_start[64] = "?";
    FILE* loadavg = fopen("/proc/loadavg", "r");
    if (loadavg) {
        if (!fgets(load_at_start, sizeof load_at_start, loadavg)) snprintf(load_at_start, sizeof load_at_start, "?");
        fclose(loadavg);
        load_at_start[strcspn(load_at_start, "\n")] = 0;
    }
    const char* build = getenv("OSC_BUILD_DIR") ? getenv("OSC_BUILD_DIR") : "build";
    char models[1024], path[1200];
    bench_model_dir(NULL, argv[0], models, sizeof models);
    snprintf(path, sizeof path, "%s/armadillo.off", models);

    // --- models -------------------------------------------------------------------------------
    osc_mesh* armadillo = load_armadillo(path);
    osc_mesh_bvh* bvh = NULL;
    if (osc_mesh_bvh_create(armadillo, &bvh) != OSC_OK) fail("osc_mesh_bvh_create");
    osc_grid_settings grid_settings = osc_grid_settings_default();
    grid_settings.resolution = 64;
    osc_grid* grid = NULL;
    double start = bench_now();
    if (osc_grid_create_from_mesh(bvh, &grid_settings, &grid) != OSC_OK) fail("osc_grid_create_from_mesh");
    double grid_seconds = bench_now() - start;
    osc_sdf* spline = NULL;
    if (osc_grid_to_sdf(grid, &spline) != OSC_OK) fail("osc_grid_to_sdf");

    enum { VARIANTS = 2 + SQ_VARIANTS };
    variant variants[VARIANTS];
    memset(variants, 0, sizeof variants);
    // 0: spline, 2000 triangles; 1: spline, 500 triangles; 2..: SQ unions
    if (sq) with_peer = 0;
    for (int k = 0; k < (quick || sq ? 1 : 2); ++k) {
        start = bench_now();
        variants[k].mesh = collision_mesh(spline, k == 0 ? 2000 : 500);
        variants[k].body = make_body(variants[k].mesh, grid, NULL, -1.0, -1);
        snprintf(variants[k].name, sizeof variants[k].name, "spline, %d tris",
                 osc_mesh_triangle_count(variants[k].mesh));
        fprintf(stderr, "bench_manifold: %s: mesh + body %.2f s\n", variants[k].name, bench_now() - start);
    }
    for (int k = 0; k < (quick ? 0 : SQ_VARIANTS); ++k) {
        variant* v = &variants[2 + k];
        if (sq && sq_counts[k] != 1 && sq_counts[k] != 2 && sq_counts[k] != 18) continue;
        start = bench_now();
        v->sdf = sq_union(armadillo, sq_counts[k]);
        v->mesh = collision_mesh(v->sdf, 2000);
        v->body = make_body(v->mesh, NULL, v->sdf, -1.0, -1);
        snprintf(v->name, sizeof v->name, "%d SQ, %d tris", osc_sdf_leaf_count(v->sdf),
                 osc_mesh_triangle_count(v->mesh));
        fprintf(stderr, "bench_manifold: %s: SDF, mesh + body %.2f s\n", v->name, bench_now() - start);
    }
    // the 18-SQ body again with a broad-phase voxel grid that covers Fig. 12's range: an osc_sdf body's
    // voxel grid covers the SDF's bounds grown by half their longest side (default), and features
    // outside it are never skipped; B's features reach x = 2 + 0.69 in A's frame
    start = bench_now();
    osc_body* padded =
        quick || sq ? NULL : make_body(variants[VARIANTS - 1].mesh, NULL, variants[VARIANTS - 1].sdf, PADDING, 64);
    if (padded)
        fprintf(stderr, "bench_manifold: 18 SQ body with voxel padding %.1f (64 cells): %.2f s\n", PADDING,
                bench_now() - start);
    fprintf(stderr, "bench_manifold: armadillo %d V / %d T, x extent %.2f; spline 64 built in %.2f s\n",
            osc_mesh_vertex_count(armadillo), osc_mesh_triangle_count(armadillo), EXTENT, grid_seconds);
    for (int k = 0; k < (quick ? 1 : VARIANTS); ++k)
        if (variants[k].body)
            fprintf(stderr, "  body %-18s %5d vertices %5d edges %2d groups\n", variants[k].name,
                    osc_body_vertex_count(variants[k].body), osc_body_edge_count(variants[k].body),
                    osc_body_group_count(variants[k].body));

    int32_t capacity = 0;
    for (int k = 0; k < (quick ? 1 : VARIANTS); ++k)
        if (variants[k].body && 2 * osc_body_group_count(variants[k].body) > capacity)
            capacity = 2 * osc_body_group_count(variants[k].body); // blended: at most one contact per group
    ws.capacity = capacity;
    size_t slots = (size_t)MAX_BATCH * (size_t)capacity;
    ws.contacts = malloc(sizeof(osc_manifold_contact) * slots);
    ws.point_j = malloc(sizeof(double) * 36 * slots);
    ws.distance_j = malloc(sizeof(double) * 12 * slots);
    ws.normal_j = malloc(sizeof(double) * 36 * slots);
    ws.weight_j = malloc(sizeof(double) * 12 * slots);
    if (!ws.contacts || !ws.point_j || !ws.distance_j || !ws.normal_j || !ws.weight_j) {
        fprintf(stderr, "bench_manifold: out of memory\n");
        return 1;
    }

    // --- poses --------------------------------------------------------------------------------
    static osc_pose fig11_a[CONFIGS], fig11_b[CONFIGS], fig12_a[MAX_BATCH], fig12_b[MAX_BATCH];
    for (int i = 0; i < CONFIGS; ++i) {
        fig11_a[i] = osc_pose_make(osc_v3(0, 0, 0), random_rotation());
        osc_vec3 offset = osc_v3(uniform(-0.3, 0.3) * EXTENT, uniform(-0.3, 0.3) * EXTENT, uniform(-0.3, 0.3) * EXTENT);
        fig11_b[i] = osc_pose_make(offset, random_rotation());
    }

    // --- the peer -----------------------------------------------------------------------------
    peer_result peer11 = {NAN, NAN, NAN, "", "not run (--no-peer)"}, peer12 = peer11;
    if (with_peer) {
        char script[1200] = "bench/peers/mujoco_manifold.py";
        if (access(script, R_OK) != 0) { // not run from the repository root: next to OSC_DATA_DIR
            snprintf(script, sizeof script, "%s/../bench/peers/mujoco_manifold.py", OSC_DATA_DIR);
        }
        char directory[] = "/tmp/osc_bench_manifold_XXXXXX";
        if (!mkdtemp(directory)) {
            snprintf(peer11.missing, sizeof peer11.missing, "cannot create a temporary directory");
            peer12 = peer11;
        } else {
            char obj[256], poses11[256], poses12[256];
            snprintf(obj, sizeof obj, "%s/armadillo.obj", directory);
            snprintf(poses11, sizeof poses11, "%s/fig11.txt", directory);
            snprintf(poses12, sizeof poses12, "%s/fig12.txt", directory);
            if (osc_mesh_write_obj(armadillo, obj) != OSC_OK) fail("osc_mesh_write_obj");
            write_poses(poses11, fig11_a, fig11_b, CONFIGS);
            for (int i = 0; i < MAX_BATCH; ++i) {
                fig12_a[i] = osc_pose_identity();
                fig12_b[i] = osc_pose_make(osc_v3(1.0 + (double)i / (MAX_BATCH - 1), 0, 0), osc_quat_identity());
            }
            write_poses(poses12, fig12_a, fig12_b, MAX_BATCH);
            start = bench_now();
            peer11 = run_peer(script, build, obj, poses11);
            peer12 = run_peer(script, build, obj, poses12);
            fprintf(stderr, "bench_manifold: MuJoCo %s: %.1f s (two runs, compile included)%s%s\n",
                    peer11.version[0] ? peer11.version : "?", bench_now() - start,
                    peer11.missing[0] ? ": missing: " : "", peer11.missing);
            remove(obj), remove(poses11), remove(poses12), rmdir(directory);
        }
    }
    const char* missing11 = peer11.missing[0] ? peer11.missing : NULL;
    const char* missing12 = peer12.missing[0] ? peer12.missing : NULL;
    if (sq) return sq_figures(variants, VARIANTS, fig11_a, fig11_b, sq_once);
    if (quick && once) return quick_once(variants[0].body, once, fig11_a, fig11_b);
    if (quick) return quick_figures(variants[0].body, variants[0].name, fig11_a, fig11_b, &peer11, &peer12);

    // --- Fig. 11: narrow phase only -------------------------------------------------------------
    osc_manifold_settings narrow = osc_manifold_settings_default();
    narrow.broad_phase = 0;
    static rate fig11[VARIANTS][2][2][BATCH_COUNT]; // [variant][derivatives][threads - 1][batch]
    static rate same_poses[VARIANTS][2];            // 1 thread, the 100 poses once per call
    static rate same_poses_broad[VARIANTS][2];      // the same with the broad phase
    osc_manifold_settings defaults = osc_manifold_settings_default();
    for (int k = 0; k < VARIANTS; ++k) {
        const osc_body* body = variants[k].body;
        for (int dv = 0; dv < 2; ++dv) {
            for (int t = 0; t < 2; ++t) {
                double estimate = NAN;
                for (int b = 0; b < BATCH_COUNT; ++b) {
                    rate* r = &fig11[k][dv][t][b];
                    *r = not_measured;
                    if (t == 1 && batches[b] == 1) continue; // one configuration runs on one thread
                    if (t == 1 && !isfinite(estimate)) estimate = 1.8 * fig11[k][dv][0][0].configs;
                    load_batch(fig11_a, fig11_b, CONFIGS, batches[b]);
                    *r = measure(body, batches[b], &narrow, dv, t + 1, estimate);
                    if (isfinite(r->configs)) estimate = r->configs;
                }
            }
            // the peer's poses: the 100 configurations as one batch, 1 thread
            load_batch(fig11_a, fig11_b, CONFIGS, CONFIGS);
            // (three times the cap: the side-by-side figure is worth it)
            cap_seconds *= 3.0;
            same_poses[k][dv] = measure(body, CONFIGS, &narrow, dv, 1, fig11[k][dv][0][0].configs);
            // and with the broad phase (default settings: d_max 0.02), how the library is used
            same_poses_broad[k][dv] = measure(body, CONFIGS, &defaults, dv, 1, 2.0 * fig11[k][dv][0][0].configs);
            cap_seconds /= 3.0;
        }
        fprintf(stderr, "bench_manifold: fig. 11 %s done at %.0f s\n", variants[k].name, bench_now() - program_start);
    }

    // --- Fig. 12: broad + narrow phase ------------------------------------------------------------
    enum { FIG12 = 3 };
    static rate fig12[FIG12][4][2][BATCH_COUNT];                       // [body][d_max][threads - 1][batch]
    const int fig12_variants[FIG12] = {0, VARIANTS - 1, VARIANTS - 1}; // Fig. 11's row for the dashed lines
    const osc_body* fig12_bodies[FIG12] = {variants[0].body, variants[VARIANTS - 1].body, padded};
    char fig12_names[FIG12][64];
    snprintf(fig12_names[0], 64, "%s", variants[0].name);
    snprintf(fig12_names[1], 64, "%s", variants[VARIANTS - 1].name);
    snprintf(fig12_names[2], 64, "18 SQ, padded grid");
    for (int vi = 0; vi < FIG12; ++vi) {
        const osc_body* body = fig12_bodies[vi];
        for (int m = 0; m < 4; ++m) {
            osc_manifold_settings settings = osc_manifold_settings_default();
            settings.d_max = d_maxes[m];
            for (int t = 0; t < 2; ++t) {
                double estimate = NAN;
                for (int b = 0; b < BATCH_COUNT; ++b) {
                    rate* r = &fig12[vi][m][t][b];
                    *r = not_measured;
                    if (t == 1 && batches[b] == 1) continue;
                    int n = batches[b];
                    for (int i = 0; i < n; ++i) {
                        ws.pa[i] = osc_pose_identity();
                        ws.pb[i] =
                            osc_pose_make(osc_v3(n > 1 ? 1.0 + (double)i / (n - 1) : 1.0, 0, 0), osc_quat_identity());
                    }
                    // a batch of 1 holds the costliest configuration: the estimate only applies beyond it;
                    // the 1024 poses on 1 thread are the peer's: three times the cap
                    if (t == 0 && n == MAX_BATCH) cap_seconds *= 3.0;
                    *r = measure(body, n, &settings, 1, t + 1, b > 1 ? estimate : NAN);
                    if (t == 0 && n == MAX_BATCH) cap_seconds /= 3.0;
                    if (isfinite(r->configs)) estimate = r->configs;
                }
            }
        }
        fprintf(stderr, "bench_manifold: fig. 12 %s done at %.0f s\n", fig12_names[vi], bench_now() - program_start);
    }
    // --- output ---------------------------------------------------------------------------------
    static const char* deriv_name[2] = {"without derivatives", "with derivatives"};
    static const char* thread_name[2] = {"1 thread", "2 threads"};
    char name[640], metric[256], b1[16], b2[16], b3[16], b4[16];
    if (!missing11) {
        report("armadillo (mesh) mujoco", "fig11: 100 poses, 1 thread", peer11.configs, "configs/s");
        report("armadillo (mesh) mujoco", "fig11: 100 poses, 1 thread", peer11.contacts, "contacts/s");
        report("armadillo (mesh) mujoco", "fig11: 100 poses, mean contacts", peer11.mean_contacts, "contacts");
    }
    if (!missing12) {
        report("armadillo (mesh) mujoco", "fig12: 1024 poses, 1 thread", peer12.configs, "configs/s");
        report("armadillo (mesh) mujoco", "fig12: 1024 poses, 1 thread", peer12.contacts, "contacts/s");
        report("armadillo (mesh) mujoco", "fig12: 1024 poses, mean contacts", peer12.mean_contacts, "contacts");
    }
    fprintf(stderr, "\nFig. 11: narrow phase only (broad_phase = 0), armadillo vs armadillo, 100 random "
                    "configurations; "
                    "configurations / s (mean contacts per configuration)\n");
    fprintf(stderr, "%-18s %-7s %-9s", "SDF", "derivs", "threads");
    for (int b = 0; b < BATCH_COUNT; ++b) fprintf(stderr, " %10d", batches[b]);
    fprintf(stderr, "  contacts\n");
    for (int k = 0; k < VARIANTS; ++k)
        for (int dv = 0; dv < 2; ++dv)
            for (int t = 0; t < 2; ++t) {
                snprintf(name, sizeof name, "armadillo %s", variants[k].name);
                double mean = NAN;
                fprintf(stderr, "%-18s %-7s %-9s", variants[k].name, dv ? "yes" : "no", thread_name[t]);
                for (int b = 0; b < BATCH_COUNT; ++b) {
                    rate r = fig11[k][dv][t][b];
                    fprintf(stderr, " %10s", si(r.configs, b1));
                    if (!isfinite(r.configs)) continue;
                    mean = r.mean_contacts;
                    snprintf(metric, sizeof metric, "fig11 narrow phase: batch %d, %s, %s", batches[b], thread_name[t],
                             deriv_name[dv]);
                    report(name, metric, r.configs, "configs/s");
                    report(name, metric, r.contacts, "contacts/s");
                }
                fprintf(stderr, "  %8.1f\n", mean);
            }

    fprintf(stderr,
            "\nFig. 11 poses against MuJoCo %s, configurations / s on 1 thread (MuJoCo: its broad phase + "
            "mesh-SDF octree depth 6, sdf_iterations 10, sdf_initpoints 40; 100 poses)\n",
            peer11.version[0] ? peer11.version : "(missing)");
    fprintf(stderr, "%-18s %-9s %11s %11s %11s %11s %11s %11s %9s %9s %9s %9s %8s\n", "SDF", "poses", "narrow",
            "narrow+d", "broad", "broad+d", "MuJoCo", "MuJoCo FD", "narrow+d", "broad+d", "narrow+d", "broad+d",
            "contacts");
    fprintf(stderr, "%-18s %-9s %11s %11s %11s %11s %11s %11s %9s %9s %9s %9s %8s\n", "", "", "", "", "", "", "",
            "(13 calls)", "/ MuJoCo", "/ MuJoCo", "/ MJ FD", "/ MJ FD", "");
    for (int k = 0; k < VARIANTS; ++k) {
        snprintf(name, sizeof name, "armadillo %s", variants[k].name);
        double ours[2] = {NAN, NAN}, broad[2] = {NAN, NAN}, contacts = NAN;
        char which[2][64], poses[16] = "100";
        for (int dv = 0; dv < 2; ++dv) {
            rate r = same_poses[k][dv];
            snprintf(which[dv], sizeof which[dv], "the 100 poses");
            if (!isfinite(r.configs)) // capped: the largest batch measured on 1 thread (its first B poses)
                for (int bi = BATCH_COUNT - 1; bi >= 0; --bi)
                    if (isfinite(fig11[k][dv][0][bi].configs)) {
                        r = fig11[k][dv][0][bi];
                        snprintf(which[dv], sizeof which[dv], "the first %d of the 100 poses", batches[bi]);
                        if (dv == 1) snprintf(poses, sizeof poses, "first %d", batches[bi]);
                        break;
                    }
            ours[dv] = r.configs;
            if (dv == 1 && isfinite(r.configs)) contacts = r.mean_contacts;
            snprintf(metric, sizeof metric, "fig11 narrow phase: %s, 1 thread, %s", which[dv], deriv_name[dv]);
            report_peer(name, metric, r.configs, "configs/s", peer11.configs, missing11);
            report_peer(name, metric, r.contacts, "contacts/s", peer11.contacts, missing11);
            rate q = same_poses_broad[k][dv];
            broad[dv] = q.configs;
            snprintf(metric, sizeof metric, "fig11 poses, broad+narrow (d_max 0.02): the 100 poses, 1 thread, %s",
                     deriv_name[dv]);
            report_peer(name, metric, q.configs, "configs/s", peer11.configs, missing11);
            report_peer(name, metric, q.contacts, "contacts/s", peer11.contacts, missing11);
        }
        char b5[16], b6[16];
        double fd = peer11.configs / FD_CALLS;
        fprintf(stderr, "%-18s %-9s %11s %11s %11s %11s %11s %11s %9.3g %9.3g %9.3g %9.3g %8.1f\n", variants[k].name,
                poses, si(ours[0], b1), si(ours[1], b2), si(broad[0], b3), si(broad[1], b4), si(peer11.configs, b5),
                si(fd, b6), ours[1] / peer11.configs, broad[1] / peer11.configs, ours[1] / fd, broad[1] / fd, contacts);
        if (!missing11 && isfinite(fd)) { // the derivative user's ratio: MuJoCo with forward differences
            snprintf(metric, sizeof metric,
                     "fig11 poses, with derivatives, 1 thread, against MuJoCo with forward differences (13 calls): "
                     "narrow phase / broad+narrow (d_max 0.02)");
            bench_report_peer(SUITE, name, metric, ours[1], "configs/s", "mujoco-fd", fd);
            bench_report_peer(SUITE, name, metric, broad[1], "configs/s", "mujoco-fd", fd);
        }
    }
    if (!missing11)
        fprintf(stderr, "%-18s %-9s %11s %11s %11s %11s %11s %11s %9s %9s %9s %9s %8.1f\n", "MuJoCo (mesh)", "100", "",
                "", "", "", si(peer11.configs, b1), si(peer11.configs / FD_CALLS, b2), "", "", "", "",
                peer11.mean_contacts);
    fprintf(stderr, "MuJoCo FD: MuJoCo's rate over 13, forward differences in the 12 pose coordinates; a best case, "
                    "its contact set is not differentiable (bench_manifold.c's header)\n");

    fprintf(stderr, "\nFig. 12: broad + narrow phase, B translated along x by B distances in [1, 2] (x extent 1.38), "
                    "with derivatives; configurations / s (MuJoCo: the 1024 poses, 1 thread)\n");
    fprintf(stderr, "%-18s %-7s %-9s", "SDF", "d_max", "threads");
    for (int bi = 0; bi < BATCH_COUNT; ++bi) fprintf(stderr, " %9d", batches[bi]);
    fprintf(stderr, " %9s %8s %9s %8s\n", "MuJoCo", "1024/MJ", "MJ FD", "1024/FD");
    for (int vi = 0; vi < FIG12; ++vi) {
        int k = fig12_variants[vi];
        snprintf(name, sizeof name, "armadillo %s", fig12_names[vi]);
        for (int m = 0; m < 4; ++m)
            for (int t = 0; t < 2; ++t) {
                fprintf(stderr, "%-18s %-7g %-9s", fig12_names[vi], d_maxes[m], thread_name[t]);
                for (int bi = 0; bi < BATCH_COUNT; ++bi) {
                    rate r = fig12[vi][m][t][bi];
                    fprintf(stderr, " %9s", si(r.configs, b1));
                    if (!isfinite(r.configs)) continue;
                    snprintf(metric, sizeof metric, "fig12 broad+narrow, d_max %g: batch %d, %s, with derivatives",
                             d_maxes[m], batches[bi], thread_name[t]);
                    if (t == 0 && batches[bi] == MAX_BATCH) { // exactly the peer's 1024 poses
                        report_peer(name, metric, r.configs, "configs/s", peer12.configs, missing12);
                        report_peer(name, metric, r.contacts, "contacts/s", peer12.contacts, missing12);
                    } else {
                        report(name, metric, r.configs, "configs/s");
                        report(name, metric, r.contacts, "contacts/s");
                    }
                }
                if (t == 0)
                    fprintf(stderr, " %9s %8.3g %9s %8.3g\n", si(peer12.configs, b1),
                            fig12[vi][m][0][BATCH_COUNT - 1].configs / peer12.configs,
                            si(peer12.configs / FD_CALLS, b2),
                            fig12[vi][m][0][BATCH_COUNT - 1].configs / (peer12.configs / FD_CALLS));
                else
                    fprintf(stderr, "\n");
            }
        // the paper's dashed lines: Fig. 11's narrow phase (with derivatives) at batch 1 and the largest batch
        for (int t = 0; t < 2; ++t) {
            int last = -1;
            for (int bi = 0; bi < BATCH_COUNT; ++bi)
                if (isfinite(fig11[k][1][t][bi].configs)) last = bi;
            fprintf(stderr, "%-18s %-7s %-9s", fig12_names[vi], "narrow", thread_name[t]);
            for (int bi = 0; bi < BATCH_COUNT; ++bi)
                fprintf(stderr, " %9s", (bi == 0 || bi == last) ? si(fig11[k][1][t][bi].configs, b1) : "");
            fprintf(stderr, "\n");
        }
    }
    fprintf(stderr, "\nFig. 12 contacts / s (1 thread, with derivatives)\n");
    for (int vi = 0; vi < FIG12; ++vi)
        for (int m = 0; m < 4; ++m) {
            fprintf(stderr, "%-18s %-7g %-9s", fig12_names[vi], d_maxes[m], "1 thread");
            for (int bi = 0; bi < BATCH_COUNT; ++bi) fprintf(stderr, " %9s", si(fig12[vi][m][0][bi].contacts, b1));
            fprintf(stderr, "\n");
        }
    if (!missing12)
        fprintf(stderr, "MuJoCo on the 1024 poses: %s contacts / s, %.2f contacts per configuration\n",
                si(peer12.contacts, b1), peer12.mean_contacts);
    fprintf(stderr, "bench_manifold: %.0f s in all; load average at the start %s, at the end ",
            bench_now() - program_start, load_at_start);
    print_load();

    osc_body_destroy(padded);
    for (int k = 0; k < VARIANTS; ++k) {
        osc_body_destroy(variants[k].body);
        osc_mesh_destroy(variants[k].mesh);
        osc_sdf_destroy(variants[k].sdf);
    }
    free(ws.contacts), free(ws.point_j), free(ws.distance_j), free(ws.normal_j), free(ws.weight_j);
    osc_sdf_destroy(spline);
    osc_grid_destroy(grid);
    osc_mesh_bvh_destroy(bvh);
    osc_mesh_destroy(armadillo);
    return 0;
}
