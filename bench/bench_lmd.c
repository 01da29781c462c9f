// bench_lmd.c: local minimal distances between exact B-Rep solids (issue 8, Crozet 2017 chapter 5):
// the thesis' two insertion scenarios (and the second with free-form faces), osc_lmd_query along an insertion path against the
// tessellation baseline of lmd_baseline.h on the same poses in the same run.
//
// Scenarios (millimetres; solids of revolution from osc_brep_create_revolved, receptacles from
// osc_brep_create_block_with_hole; the shapes are ours, the sizes follow §5.1-5.2):
//   peg_1pct   scenario 1 (§5.1, Table 5.1): a peg of radius 24.75 with a conical tip, four grooves
//              with conical flanks and a collar (23 faces) in a receptacle whose hole is a conical entry, a cylinder of
//              radius 25 (1% radial clearance, 0.25 mm) and a conical bottom that follows the tip;
//              meshes at a chordal error equal to the clearance (as the thesis did for LMD++);
//              d_max 2.5 mm.
//   hotstab    scenario 2 (§5.2, Figs 5.15-5.16): a hotstab of diameter 40 mm, three cylindrical
//              steps (radii 14, 17, 20) with conical transitions, a conical tip and a collar, in a
//              receptacle with a chamfered entry and the same steps 0.1 mm wider in radius; meshes
//              at 0.1 mm chordal error; d_max 1 mm.
//   hotstab_nurbs  scenario 2 with free-form faces, as the thesis' original hotstab has at its tip
//              (§5.2.1): the same solids with the tip's cone, the two transitions and the
//              receptacle's entry chamfer and two transitions replaced by G1 blends, cubic Bezier
//              profiles tangent to the neighbouring segments revolved into exact rational NURBS
//              surfaces (degree 2 x 3; the receptacle's blends are the peg's moved out by the
//              clearance in radius); the path's clearance check follows the curves (32 chords each).
//              The baseline meshes the NURBS faces to the same 0.1 mm.
// Arguments: the names of the scenarios to run (default: all).
// Path (STEPS poses): the peg starts with its tip 5 mm above the receptacle, descends along the
// axis to full insertion (45% of the steps), turns about its axis by up to 3 degrees back and forth
// (10%), and comes back out (45%). A wobble (lateral offset of up to 2 mm and a tilt of up to
// 0.02 rad, varying sinusoidally) rides on the path, shrunk by factors of 0.7 at each step until the
// peg clears the hole by at least a fifth of the clearance (checked on 1 mm x 2 degree samples of
// the peg's surface against the hole's exact profile), so contacts are made and broken as in a
// teleoperated insertion and the solids never overlap.
// Per step: osc_lmd_query with a persistent cache on 1 thread and on 2 threads, without cache on
// 1 thread, and the baseline (one thread). Each pass over the path starts from fresh caches; the
// time of a step is the smallest over PASSES passes. Figures: medians and maxima over the steps,
// the counts after full insertion, and the steps where the variants disagree on the count.
// Cable (thesis §4.3.3): a cable of radius 2 mm, a Bezier curve of degree 5, draped across the
// hotstab receptacle's top face over the bore, sagging onto the chamfered rim, sliding and turning
// for CABLE_STEPS steps (raised until the tube clears the block by a fifth of the clearance, so
// it rests on the rim within 0.02 mm at one point at least); per step osc_lmd_cable_query
// on 1 and 2 threads (each with its cache) against the cable as a chain of balls on the
// receptacle's mesh (cable_baseline), in the same run.
// CSV per scenario: BUILD/bench/lmd_<case>.csv. stdout: one JSON object per figure (bench.h).

#include "bench.h"
#include "lmd_baseline.h"
#include "lmd_scenarios.h"

#include "osculate/brep.h"
#include "osculate/lmd.h"

#include <math.h>
#include <string.h>

enum { STEPS = 300, PASSES = 3, CAPACITY = 8192, RING_SAMPLES = 180, SHRINKS = 24 };

// ---------------------------------------------------------------------------------------------
// free-form blends: profile segments replaced by cubic Bezier curves revolved into NURBS faces

enum { BLEND_SAMPLES = 32 };

static void unit_direction(const double* a, const double* b, double* t) {
    double l = hypot(b[0] - a[0], b[1] - a[1]);
    t[0] = (b[0] - a[0]) / l, t[1] = (b[1] - a[1]) / l;
}

// The (r, z) control points of the cubic Bezier that replaces profile segment k: tangent to the
// segments before and after it (G1 joints; before a hole's first segment lies the block's top face,
// run inward), its inner control points a third of the chord from its ends.
static void blend_controls(const double* profile, int count, int k, double c[4][2]) {
    const double *p0 = profile + 2 * k, *p1 = profile + 2 * (k + 1);
    double t0[2] = {-1.0, 0.0}, t1[2] = {0.0, 0.0}, third = hypot(p1[0] - p0[0], p1[1] - p0[1]) / 3.0;
    if (k > 0) unit_direction(profile + 2 * (k - 1), p0, t0);
    if (k + 2 < count)
        unit_direction(p1, profile + 2 * (k + 2), t1);
    else
        unit_direction(p0, p1, t1);
    for (int m = 0; m < 2; ++m) {
        c[0][m] = p0[m];
        c[1][m] = p0[m] + third * t0[m];
        c[2][m] = p1[m] - third * t1[m];
        c[3][m] = p1[m];
    }
}

static int is_blend(const int* blends, int blend_count, int k) {
    for (int i = 0; i < blend_count; ++i)
        if (blends[i] == k) return 1;
    return 0;
}

// The profile with its blended segments replaced by BLEND_SAMPLES chords of their curves (for the
// path's clearance check; chords within 1e-4 mm of the curves here); *out_count points, malloc'd.
static double* dense_profile(const double* profile, int count, const int* blends, int blend_count, int* out_count) {
    double* out = malloc((size_t)count * BLEND_SAMPLES * 2 * sizeof(double));
    int n = 0;
    for (int k = 0; k < count; ++k) {
        if (k > 0 && is_blend(blends, blend_count, k - 1)) {
            double c[4][2];
            blend_controls(profile, count, k - 1, c);
            for (int i = 1; i < BLEND_SAMPLES; ++i) {
                double t = (double)i / BLEND_SAMPLES,
                       b[4] = {(1 - t) * (1 - t) * (1 - t), 3 * t * (1 - t) * (1 - t), 3 * t * t * (1 - t), t * t * t};
                for (int m = 0; m < 2; ++m)
                    out[2 * n + m] = b[0] * c[0][m] + b[1] * c[1][m] + b[2] * c[2][m] + b[3] * c[3][m];
                ++n;
            }
        }
        out[2 * n] = profile[2 * k], out[2 * n + 1] = profile[2 * k + 1];
        ++n;
    }
    *out_count = n;
    return out;
}

// A copy of the solid of revolution `canonical` (axis z through the origin) whose conical faces on
// the blended segments of `profile` are exact NURBS surfaces of revolution of the blends: the
// rational quadratic circle (9 points, weights 1 and 1/sqrt 2) times the cubic, degree (2, 3), the
// whole parameter box [0, 1]^2 with no trims; the circular edges and the other faces stay. `hole`:
// the profile runs down a hole (the solid's material outside it).
static osc_status with_blends(const osc_brep* canonical, const double* profile, int count, const int* blends,
                              int blend_count, int hole, osc_brep** out) {
    static const double circle_knots[12] = {0, 0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1, 1};
    static const double circle_xy[9][2] = {{1, 0},   {1, 1},  {0, 1},  {-1, 1}, {-1, 0},
                                           {-1, -1}, {0, -1}, {1, -1}, {1, 0}};
    const double w = 0.70710678118654752440;
    const osc_brep_desc* c = osc_brep_description(canonical);
    osc_brep_desc d = *c;
    osc_brep_surface* surfaces = malloc((size_t)(c->surface_count + blend_count) * sizeof *surfaces);
    osc_brep_face* faces = malloc((size_t)c->face_count * sizeof *faces);
    osc_brep_nurbs* nurbs = malloc((size_t)blend_count * sizeof *nurbs);
    osc_vec3* points = malloc((size_t)blend_count * 36 * sizeof *points);
    double* reals = malloc((size_t)blend_count * (12 + 8 + 36) * sizeof *reals);
    memcpy(surfaces, c->surfaces, (size_t)c->surface_count * sizeof *surfaces);
    memcpy(faces, c->faces, (size_t)c->face_count * sizeof *faces);
    int replaced = 0;
    for (int f = 0; f < c->face_count && replaced < blend_count; ++f) {
        if (c->surfaces[c->faces[f].surface].type != OSC_SURFACE_CONE) continue;
        const osc_brep_face* face = &c->faces[f];
        double u = 0.5 * (face->umin + face->umax);
        osc_vec3 e0 = osc_brep_face_point(canonical, f, u, face->vmin, NULL);
        osc_vec3 e1 = osc_brep_face_point(canonical, f, u, face->vmax, NULL);
        double r0 = hypot(e0.x, e0.y), r1 = hypot(e1.x, e1.y);
        for (int b = 0; b < blend_count; ++b) {
            const double *p0 = profile + 2 * blends[b], *p1 = p0 + 2;
            double dz;
            if (fabs(r0 - p0[0]) < 1e-9 && fabs(r1 - p1[0]) < 1e-9)
                dz = e0.z - p0[1];
            else if (fabs(r1 - p0[0]) < 1e-9 && fabs(r0 - p1[0]) < 1e-9)
                dz = e1.z - p0[1];
            else
                continue;
            double ctrl[4][2];
            blend_controls(profile, count, blends[b], ctrl);
            int n = replaced++;
            double* knots = reals + n * (12 + 8 + 36);
            memcpy(knots, circle_knots, sizeof circle_knots);
            const double v_knots[8] = {0, 0, 0, 0, 1, 1, 1, 1};
            memcpy(knots + 12, v_knots, sizeof v_knots);
            for (int i = 0; i < 9; ++i)
                for (int j = 0; j < 4; ++j) {
                    points[n * 36 + 4 * i + j] =
                        osc_v3(ctrl[j][0] * circle_xy[i][0], ctrl[j][0] * circle_xy[i][1], ctrl[j][1] + dz);
                    knots[20 + 4 * i + j] = i % 2 ? w : 1.0;
                }
            nurbs[n] = (osc_brep_nurbs){{2, 3}, {9, 4}, n * (12 + 8 + 36), n * 36, n * (12 + 8 + 36) + 20};
            // natural normal r (z' e, -r'): outward (+e on a peg, -e in a hole) when z' has the sign
            osc_brep_surface* s = &surfaces[c->surface_count + n];
            memset(s, 0, sizeof *s);
            s->type = OSC_SURFACE_NURBS;
            s->nurbs = n;
            s->sense = ((ctrl[3][1] > ctrl[0][1]) != (hole != 0)) ? 1 : -1;
            faces[f].surface = c->surface_count + n;
            faces[f].loop_count = 0;
            faces[f].umin = faces[f].vmin = 0.0;
            faces[f].umax = faces[f].vmax = 1.0;
            break;
        }
    }
    d.surfaces = surfaces;
    d.surface_count = c->surface_count + replaced;
    d.faces = faces;
    d.nurbs = nurbs;
    d.nurbs_count = replaced;
    d.control_points = points;
    d.control_point_count = replaced * 36;
    d.reals = reals;
    d.real_count = replaced * (12 + 8 + 36);
    osc_status status = replaced == blend_count ? osc_brep_create(&d, NULL, out) : OSC_ERR_INVALID_ARGUMENT;
    if (replaced != blend_count) fprintf(stderr, "bench_lmd: %d of %d blends found\n", replaced, blend_count);
    free(surfaces), free(faces), free(nurbs), free(points), free(reals);
    return status;
}

// ---------------------------------------------------------------------------------------------
// the path and its clearance check

typedef struct peg_samples {
    double* points; // [count][3] on the peg's surface, profile frame
    int count;
} peg_samples;

static peg_samples sample_peg(const lmd_scenario* s) {
    int count = 0;
    for (int k = 0; k + 1 < s->peg_count; ++k) {
        const double* p = s->peg + 2 * k;
        count += ((int)ceil(hypot(p[2] - p[0], p[3] - p[1]) / 1.0) + 1) * RING_SAMPLES;
    }
    peg_samples samples = {malloc((size_t)count * 3 * sizeof(double)), 0};
    for (int k = 0; k + 1 < s->peg_count; ++k) {
        const double* p = s->peg + 2 * k;
        double length = hypot(p[2] - p[0], p[3] - p[1]);
        int pieces = (int)ceil(length / 1.0);
        for (int i = 0; i <= pieces; ++i) {
            double t = (double)i / pieces, r = p[0] + t * (p[2] - p[0]), z = p[1] + t * (p[3] - p[1]);
            for (int a = 0; a < RING_SAMPLES; ++a) {
                double angle = 2 * lmd_scenario_pi * a / RING_SAMPLES;
                double* out = samples.points + 3 * (size_t)samples.count++;
                out[0] = r * cos(angle), out[1] = r * sin(angle), out[2] = z;
            }
        }
    }
    return samples;
}

static double segment_distance(double r, double z, const double* a, const double* b) {
    double dr = b[0] - a[0], dz = b[1] - a[1];
    double t = ((r - a[0]) * dr + (z - a[1]) * dz) / (dr * dr + dz * dz);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(r - a[0] - t * dr, z - a[1] - t * dz);
}

// signed distance of a world point to the receptacle in the (r, z) half-plane: the boundary is the
// top face outside the opening and the hole's wall; negative inside the block (below the top and
// outside the hole); the block's sides and bottom are never approached
static double point_clearance(const lmd_scenario* s, osc_vec3 x) {
    double top = s->block_half.z, r = hypot(x.x, x.y), z = x.z;
    double far = 4 * (s->block_half.x + s->block_half.y);
    double rim[2] = {s->hole[0], top}, outer[2] = {far, top};
    double distance = segment_distance(r, z, rim, outer);
    int inside_hole = 0;
    // the hole's closed polygon: (0, top), the profile, whose last point is on the axis
    for (int k = -1; k + 1 < s->hole_count; ++k) {
        double a[2] = {0, top}, b[2] = {s->hole[2 * (k + 1)], s->hole[2 * (k + 1) + 1]};
        if (k >= 0) a[0] = s->hole[2 * k], a[1] = s->hole[2 * k + 1];
        if ((a[1] > z) != (b[1] > z) && r < a[0] + (z - a[1]) * (b[0] - a[0]) / (b[1] - a[1])) inside_hole ^= 1;
        if (k >= 0) distance = fmin(distance, segment_distance(r, z, a, b));
    }
    int in_block = z < top && !inside_hole;
    return in_block ? -distance : distance;
}

static double peg_clearance(const lmd_scenario* s, const peg_samples* samples, osc_pose world_from_profile) {
    double clearance = INFINITY;
    for (int i = 0; i < samples->count; ++i) {
        const double* p = samples->points + 3 * (size_t)i;
        double c = point_clearance(s, osc_pose_apply(world_from_profile, osc_v3(p[0], p[1], p[2])));
        if (c < clearance) clearance = c;
    }
    return clearance;
}

typedef struct path_step {
    osc_pose world_from_profile;
    double clearance; // sampled
    int phase;        // 0 insertion, 1 turning at full insertion, 2 extraction
} path_step;

static void make_path(const lmd_scenario* s, path_step* path) {
    peg_samples samples = sample_peg(s);
    for (int k = 0; k < STEPS; ++k) {
        double wobble = 1.0;
        for (int shrink = 0; shrink < SHRINKS; ++shrink, wobble *= 0.7) {
            path[k].world_from_profile = lmd_path_pose(s, k, STEPS, wobble, &path[k].phase);
            path[k].clearance = peg_clearance(s, &samples, path[k].world_from_profile);
            if (path[k].clearance >= 0.2 * s->clearance) break;
        }
        if (path[k].clearance < 0.2 * s->clearance) { // no wobble at all
            path[k].world_from_profile = lmd_path_pose(s, k, STEPS, 0.0, &path[k].phase);
            path[k].clearance = peg_clearance(s, &samples, path[k].world_from_profile);
        }
    }
    free(samples.points);
}

// ---------------------------------------------------------------------------------------------
// the measurements

typedef struct step_record {
    int contacts[3];     // cache on 1 thread, cache on 2 threads, no cache
    double time[3];      // seconds, the smallest over the passes
    double min_distance; // of the contacts found without cache (inf when none)
    int baseline_contacts;
    double baseline_time, baseline_min_distance;
    int status[3];
    osc_lmd_stats stats; // of the query with a cache on 1 thread (first pass)
} step_record;

static osc_lmd_contact contacts[3][CAPACITY];
static double jacobians[3][CAPACITY * 12]; // the distances' Jacobians: part of each query's work

// 1 when the two contact lists agree (features, and distances to 1e-9 of the clearance)
static int same_contacts(const osc_lmd_contact* x, int nx, const osc_lmd_contact* y, int ny, double tol) {
    if (nx != ny) return 0;
    for (int i = 0; i < nx; ++i)
        if (x[i].kind_a != y[i].kind_a || x[i].kind_b != y[i].kind_b || x[i].feature_a != y[i].feature_a ||
            x[i].feature_b != y[i].feature_b || fabs(x[i].distance - y[i].distance) > tol)
            return 0;
    return 1;
}

static double median_of(const step_record* records, int count, int field, int baseline, int from, int to,
                        int want_max) {
    double* values = malloc((size_t)(to - from) * sizeof(double));
    double best = -INFINITY;
    for (int k = from; k < to; ++k) {
        const step_record* r = &records[k];
        double v;
        if (baseline)
            v = field == 0 ? r->baseline_contacts : 1e3 * r->baseline_time;
        else
            v = field < 3 ? r->contacts[field] : 1e3 * r->time[field - 3];
        values[k - from] = v;
        best = fmax(best, v);
    }
    (void)count;
    double m = bench_median(values, to - from);
    free(values);
    return want_max ? best : m;
}

static osc_pose translate_z(double dz) { return osc_pose_make(osc_v3(0, 0, dz), osc_quat_identity()); }

static void run_scenario(const lmd_scenario* s, const char* build) {
    osc_brep *peg = NULL, *block = NULL;
    if (osc_brep_create_revolved(s->peg, s->peg_count, NULL, &peg) != OSC_OK ||
        osc_brep_create_block_with_hole(s->block_half, s->hole, s->hole_count, NULL, &block) != OSC_OK) {
        fprintf(stderr, "bench_lmd %s: %s\n", s->name, osc_last_error());
        osc_brep_destroy(peg);
        return;
    }
    lmd_scenario sampled = *s; // the profiles the path's clearance check follows
    double *dense_peg = NULL, *dense_hole = NULL;
    if (s->peg_blend_count || s->hole_blend_count) {
        osc_brep *free_peg = NULL, *free_block = NULL;
        if (with_blends(peg, s->peg, s->peg_count, s->peg_blends, s->peg_blend_count, 0, &free_peg) != OSC_OK ||
            with_blends(block, s->hole, s->hole_count, s->hole_blends, s->hole_blend_count, 1, &free_block) != OSC_OK) {
            fprintf(stderr, "bench_lmd %s: %s\n", s->name, osc_last_error());
            osc_brep_destroy(free_peg), osc_brep_destroy(peg), osc_brep_destroy(block);
            return;
        }
        osc_brep_destroy(peg), osc_brep_destroy(block);
        peg = free_peg, block = free_block;
        dense_peg = dense_profile(s->peg, s->peg_count, s->peg_blends, s->peg_blend_count, &sampled.peg_count);
        dense_hole = dense_profile(s->hole, s->hole_count, s->hole_blends, s->hole_blend_count, &sampled.hole_count);
        sampled.peg = dense_peg, sampled.hole = dense_hole;
    }
    osc_brep_info peg_info, block_info;
    osc_brep_get_info(peg, &peg_info);
    osc_brep_get_info(block, &block_info);
    // the builder may centre the profile: body = profile + (0, 0, shift)
    double shift = peg_info.lo.z;
    osc_pose body_from_profile = translate_z(shift), profile_from_body = translate_z(-shift);
    (void)body_from_profile;

    double start = bench_now();
    lmd_baseline_mesh peg_mesh, block_mesh;
    if (lmd_baseline_tessellate(peg, s->chordal_error, &peg_mesh) != 0 ||
        lmd_baseline_tessellate(block, s->chordal_error, &block_mesh) != 0) {
        fprintf(stderr, "bench_lmd %s: tessellation failed\n", s->name);
        osc_brep_destroy(peg), osc_brep_destroy(block);
        return;
    }
    double tessellation_time = bench_now() - start;
    char path_name[1200];
    snprintf(path_name, sizeof path_name, "%s/bench/lmd_%s_peg.obj", build, s->name);
    lmd_baseline_write_obj(&peg_mesh, path_name);
    snprintf(path_name, sizeof path_name, "%s/bench/lmd_%s_receptacle.obj", build, s->name);
    lmd_baseline_write_obj(&block_mesh, path_name);

    path_step* path = malloc(STEPS * sizeof(path_step));
    make_path(&sampled, path);
    free(dense_peg), free(dense_hole);
    double smallest_clearance = INFINITY;
    for (int k = 0; k < STEPS; ++k) smallest_clearance = fmin(smallest_clearance, path[k].clearance);

    step_record* records = calloc(STEPS, sizeof(step_record));
    osc_lmd_settings settings[3];
    for (int v = 0; v < 3; ++v) {
        settings[v] = osc_lmd_settings_default();
        settings[v].d_max = s->d_max;
    }
    const int threads[3] = {1, 2, 1};
    int mismatched_threads = 0, mismatched_cache = 0, failures = 0;
    for (int pass = 0; pass < PASSES; ++pass) {
        osc_lmd_cache* caches[2] = {NULL, NULL};
        osc_lmd_cache_create(&caches[0]);
        osc_lmd_cache_create(&caches[1]);
        for (int k = 0; k < STEPS; ++k) {
            step_record* r = &records[k];
            osc_pose pose_peg = osc_pose_compose(path[k].world_from_profile, profile_from_body);
            osc_pose pose_block = osc_pose_identity();
            int counts[3];
            for (int v = 0; v < 3; ++v) {
                counts[v] = 0;
                double t0 = bench_now();
                osc_lmd_output out = {contacts[v], CAPACITY, 0, 0, jacobians[v], 0};
                osc_status status = osc_lmd_query(peg, pose_peg, block, pose_block, &settings[v],
                                                  v < 2 ? caches[v] : NULL, &out, threads[v]);
                counts[v] = out.needed;
                double t = bench_now() - t0;
                if (status != OSC_OK) {
                    if (pass == 0 && failures++ < 5)
                        fprintf(stderr, "bench_lmd %s step %d variant %d: %s\n", s->name, k, v, osc_last_error());
                    r->status[v] = status;
                }
                if (pass == 0 || t < r->time[v]) r->time[v] = t;
                r->contacts[v] = counts[v];
                if (pass == 0 && v == 0) osc_lmd_cache_stats(caches[0], &r->stats);
            }
            if (pass == 0) {
                int n0 = counts[0] < CAPACITY ? counts[0] : CAPACITY;
                int n1 = counts[1] < CAPACITY ? counts[1] : CAPACITY;
                int n2 = counts[2] < CAPACITY ? counts[2] : CAPACITY;
                double tol = 1e-9 * s->clearance + 1e-12;
                int differ_threads = !same_contacts(contacts[0], n0, contacts[1], n1, tol);
                int differ_cache = !same_contacts(contacts[0], n0, contacts[2], n2, tol);
                if ((differ_threads || differ_cache) && mismatched_threads + mismatched_cache < 5)
                    fprintf(stderr,
                            "bench_lmd %s step %d: %d contacts with cache on 1 thread, %d on 2, %d "
                            "without cache\n",
                            s->name, k, counts[0], counts[1], counts[2]);
                mismatched_threads += differ_threads;
                mismatched_cache += differ_cache;
                r->min_distance = INFINITY;
                for (int i = 0; i < n2; ++i) r->min_distance = fmin(r->min_distance, contacts[2][i].distance);
            }
            double t0 = bench_now();
            lmd_baseline_result base =
                lmd_baseline_contacts(&peg_mesh, pose_peg, &block_mesh, pose_block, s->d_max, settings[0].alpha);
            double t = bench_now() - t0;
            if (pass == 0 || t < r->baseline_time) r->baseline_time = t;
            r->baseline_contacts = base.contacts;
            r->baseline_min_distance = base.min_distance;
        }
        osc_lmd_cache_destroy(caches[0]);
        osc_lmd_cache_destroy(caches[1]);
    }

    // CSV for the curves of thesis Figs 5.5-5.6 and 5.17-5.18
    snprintf(path_name, sizeof path_name, "%s/bench/lmd_%s.csv", build, s->name);
    FILE* csv = fopen(path_name, "w");
    if (csv) {
        fprintf(csv, "step,phase,z,sampled_clearance,contacts_cache_1t,time_ms_cache_1t,contacts_cache_2t,"
                     "time_ms_cache_2t,contacts_no_cache,time_ms_no_cache,min_distance,baseline_contacts,"
                     "baseline_time_ms,baseline_min_distance\n");
        for (int k = 0; k < STEPS; ++k) {
            const step_record* r = &records[k];
            fprintf(csv, "%d,%d,%.6f,%.6f,%d,%.6f,%d,%.6f,%d,%.6f,%.6g,%d,%.6f,%.6g\n", k, path[k].phase,
                    path[k].world_from_profile.p.z, path[k].clearance, r->contacts[0], 1e3 * r->time[0], r->contacts[1],
                    1e3 * r->time[1], r->contacts[2], 1e3 * r->time[2], r->min_distance, r->baseline_contacts,
                    1e3 * r->baseline_time, r->baseline_min_distance);
        }
        fclose(csv);
    }

    // figures
    const char* suite = "lmd";
    char name[64];
    snprintf(name, sizeof name, "%s", s->name);
    bench_report(suite, name, "peg_faces", peg_info.face_count, "count");
    bench_report(suite, name, "peg_leaves", peg_info.leaf_count, "count");
    bench_report(suite, name, "receptacle_faces", block_info.face_count, "count");
    bench_report(suite, name, "receptacle_leaves", block_info.leaf_count, "count");
    bench_report(suite, name, "peg_triangles", peg_mesh.triangle_count, "count");
    bench_report(suite, name, "receptacle_triangles", block_mesh.triangle_count, "count");
    bench_report(suite, name, "chordal_error", s->chordal_error, "mm");
    bench_report(suite, name, "smallest_sampled_clearance", smallest_clearance, "mm");
    // full insertion: the turning phase
    int from = 0, to = 0;
    for (int k = 0; k < STEPS; ++k)
        if (path[k].phase == 1) {
            if (to == 0) from = k;
            to = k + 1;
        }
    static const char* variants[3] = {"cache_1_thread", "cache_2_threads", "no_cache_1_thread"};
    double summary[3][4];
    for (int v = 0; v < 3; ++v) {
        double time_median = median_of(records, STEPS, 3 + v, 0, 0, STEPS, 0);
        double time_max = median_of(records, STEPS, 3 + v, 0, 0, STEPS, 1);
        double inserted_time = median_of(records, STEPS, 3 + v, 0, from, to, 0);
        char metric[96];
        snprintf(metric, sizeof metric, "time_median_%s", variants[v]);
        bench_report_peer(suite, name, metric, time_median, "ms", "tessellation",
                          median_of(records, STEPS, 1, 1, 0, STEPS, 0));
        snprintf(metric, sizeof metric, "time_max_%s", variants[v]);
        bench_report_peer(suite, name, metric, time_max, "ms", "tessellation",
                          median_of(records, STEPS, 1, 1, 0, STEPS, 1));
        snprintf(metric, sizeof metric, "time_median_inserted_%s", variants[v]);
        bench_report_peer(suite, name, metric, inserted_time, "ms", "tessellation",
                          median_of(records, STEPS, 1, 1, from, to, 0));
        summary[v][0] = time_median, summary[v][1] = time_max, summary[v][2] = inserted_time;
    }
    double contacts_median = median_of(records, STEPS, 2, 0, 0, STEPS, 0);
    double contacts_max = median_of(records, STEPS, 2, 0, 0, STEPS, 1);
    double contacts_inserted = median_of(records, STEPS, 2, 0, from, to, 0);
    double contacts_inserted_max = median_of(records, STEPS, 2, 0, from, to, 1);
    double base_median = median_of(records, STEPS, 0, 1, 0, STEPS, 0);
    double base_max = median_of(records, STEPS, 0, 1, 0, STEPS, 1);
    double base_inserted = median_of(records, STEPS, 0, 1, from, to, 0);
    double base_inserted_max = median_of(records, STEPS, 0, 1, from, to, 1);
    bench_report_peer(suite, name, "contacts_median", contacts_median, "count", "tessellation", base_median);
    bench_report_peer(suite, name, "contacts_max", contacts_max, "count", "tessellation", base_max);
    bench_report_peer(suite, name, "contacts_inserted_median", contacts_inserted, "count", "tessellation",
                      base_inserted);
    bench_report_peer(suite, name, "contacts_inserted_max", contacts_inserted_max, "count", "tessellation",
                      base_inserted_max);
    bench_report(suite, name, "steps_count_differs_2_threads", mismatched_threads, "count");
    bench_report(suite, name, "steps_count_differs_no_cache", mismatched_cache, "count");
    bench_report(suite, name, "failed_queries", failures, "count");
    // the work of the cached query once inserted (medians over those steps)
    double work[6];
    {
        double* values = malloc((size_t)(to - from) * sizeof(double));
        for (int f = 0; f < 6; ++f) {
            for (int k = from; k < to; ++k) {
                const osc_lmd_stats* st = &records[k].stats;
                int field[6] = {st->front_size,        st->culling_tests, st->leaf_pairs,
                                st->newton_iterations, st->warm_starts,   st->searches};
                values[k - from] = field[f];
            }
            work[f] = bench_median(values, to - from);
        }
        free(values);
    }
    static const char* work_names[6] = {"inserted_front_size",        "inserted_culling_tests", "inserted_leaf_pairs",
                                        "inserted_newton_iterations", "inserted_warm_starts",   "inserted_searches"};
    for (int f = 0; f < 6; ++f) bench_report(suite, name, work_names[f], work[f], "count");

    fprintf(stderr, "%s: edges convex / concave / smooth: peg %d / %d / %d, receptacle %d / %d / %d\n", s->name,
            peg_info.convex_edge_count, peg_info.concave_edge_count, peg_info.smooth_edge_count,
            block_info.convex_edge_count, block_info.concave_edge_count, block_info.smooth_edge_count);
    fprintf(stderr,
            "%s: peg %d faces %d leaves, receptacle %d faces %d leaves; meshes %d + %d triangles at %.2f mm "
            "(%.2f s); %d steps, smallest sampled clearance %.4f mm, d_max %.2f mm\n"
            "  contacts (ours / tessellation): median %.0f / %.0f, max %.0f / %.0f, inserted median %.0f / %.0f "
            "(max %.0f / %.0f)\n",
            s->name, peg_info.face_count, peg_info.leaf_count, block_info.face_count, block_info.leaf_count,
            peg_mesh.triangle_count, block_mesh.triangle_count, s->chordal_error, tessellation_time, STEPS,
            smallest_clearance, s->d_max, contacts_median, base_median, contacts_max, base_max, contacts_inserted,
            base_inserted, contacts_inserted_max, base_inserted_max);
    for (int v = 0; v < 3; ++v)
        fprintf(stderr, "  %-18s time median %.3f ms, max %.3f ms, inserted median %.3f ms\n", variants[v],
                summary[v][0], summary[v][1], summary[v][2]);
    fprintf(stderr, "  %-18s time median %.3f ms, max %.3f ms, inserted median %.3f ms\n", "tessellation",
            median_of(records, STEPS, 1, 1, 0, STEPS, 0), median_of(records, STEPS, 1, 1, 0, STEPS, 1),
            median_of(records, STEPS, 1, 1, from, to, 0));
    fprintf(stderr, "  steps whose contacts differ: 2 threads %d, no cache %d; failed queries %d\n", mismatched_threads,
            mismatched_cache, failures);
    fprintf(stderr,
            "  inserted, cached query (medians): front %.0f, culling tests %.0f, leaf pairs %.0f, Newton "
            "iterations %.0f, warm starts %.0f, footpoint searches %.0f\n",
            work[0], work[1], work[2], work[3], work[4], work[5]);

    free(records);
    free(path);
    lmd_baseline_free(&peg_mesh), lmd_baseline_free(&block_mesh);
    osc_brep_destroy(peg), osc_brep_destroy(block);
}

// ---------------------------------------------------------------------------------------------
// the cable scenario (thesis §4.3.3): a cable of radius 2 mm draped over the hotstab receptacle's
// bore, its control points moved at every step

enum { CABLE_STEPS = 200, CABLE_DEGREE = 5, CABLE_SAMPLES_MAX = 1024 };

static const double k_cable_radius = 2.0;

// the control points at step k, raised by `lift`: a cable draped across the block's top face over
// the bore's opening, its middle sagging into the opening onto the chamfered rim; it slides across
// the opening (14 mm either side of the axis), sags more or less, and turns half a turn about the
// axis over the steps
static void cable_points(int k, double lift, osc_vec3* p) {
    double theta = 2 * lmd_scenario_pi * k / CABLE_STEPS, c = cos(0.5 * theta), s = sin(0.5 * theta);
    double y = 14 * sin(theta), sag = 70 + 3 * sin(2 * theta);
    const osc_vec3 base[CABLE_DEGREE + 1] = {osc_v3(-40, y, 82.3), osc_v3(-24, y, 82.3), osc_v3(-8, y, sag),
                                             osc_v3(8, y, sag),    osc_v3(24, y, 82.3),  osc_v3(40, y, 82.3)};
    for (int i = 0; i <= CABLE_DEGREE; ++i)
        p[i] = osc_v3(c * base[i].x - s * base[i].y, s * base[i].x + c * base[i].y, base[i].z + lift);
}

static osc_vec3 cable_point(const osc_vec3* p, double t) {
    osc_vec3 q[CABLE_DEGREE + 1];
    for (int i = 0; i <= CABLE_DEGREE; ++i) q[i] = p[i];
    for (int r = 1; r <= CABLE_DEGREE; ++r)
        for (int i = 0; i <= CABLE_DEGREE - r; ++i) q[i] = osc_add(osc_scale(q[i], 1 - t), osc_scale(q[i + 1], t));
    return q[0];
}

// the tessellation baseline for a cable: the cable as a chain of balls of its radius along the
// curve, spaced so that the chain's surface deviates from the tube by at most the chordal error,
// against the receptacle's mesh; a contact is a ball whose gap (closest point on the mesh, less the
// radius) is at most d_max and no larger than its neighbours' (a discrete local minimum along the
// cable, the ends one-sided)
static int cable_baseline(const lmd_baseline_mesh* mesh, const osc_vec3* p, int samples, double d_max, double* gap) {
    static double d[CABLE_SAMPLES_MAX];
    for (int k = 0; k < samples; ++k)
        d[k] = osc_mesh_bvh_closest(mesh->bvh, cable_point(p, (double)k / (samples - 1)), NULL);
    int minima = 0;
    *gap = INFINITY;
    for (int k = 0; k < samples; ++k) {
        double g = d[k] - k_cable_radius;
        *gap = fmin(*gap, g);
        if (g <= d_max && (k == 0 || d[k] <= d[k - 1]) && (k == samples - 1 || d[k] < d[k + 1])) ++minima;
    }
    return minima;
}

static void run_cable(const lmd_scenario* s) {
    osc_brep* block = NULL;
    if (osc_brep_create_block_with_hole(s->block_half, s->hole, s->hole_count, NULL, &block) != OSC_OK) {
        fprintf(stderr, "bench_lmd cable: %s\n", osc_last_error());
        return;
    }
    lmd_baseline_mesh mesh;
    if (lmd_baseline_tessellate(block, s->chordal_error, &mesh) != 0) {
        osc_brep_destroy(block);
        return;
    }
    // the lift of each step, raised until the tube clears the receptacle by a fifth of the
    // scenario's clearance (checked on 2,000 samples of the curve against the hole's profile)
    static double lift[CABLE_STEPS], clearance[CABLE_STEPS];
    double length = 0.0;
    for (int k = 0; k < CABLE_STEPS; ++k) {
        osc_vec3 p[CABLE_DEGREE + 1];
        lift[k] = 0.0;
        for (int raise = 0; raise < 200; ++raise) {
            cable_points(k, lift[k], p);
            clearance[k] = INFINITY;
            for (int i = 0; i <= 2000; ++i)
                clearance[k] = fmin(clearance[k], point_clearance(s, cable_point(p, i / 2000.0)) - k_cable_radius);
            if (clearance[k] >= 0.2 * s->clearance) break;
            lift[k] += 0.05;
        }
        double l = 0.0;
        for (int i = 0; i < 200; ++i)
            l += osc_length(osc_sub(cable_point(p, (i + 1) / 200.0), cable_point(p, i / 200.0)));
        length = fmax(length, l);
    }
    // balls no farther apart than 2 sqrt(r^2 - (r - e)^2): the chain's sag below the tube is e
    double e = s->chordal_error,
           spacing = 2 * sqrt(k_cable_radius * k_cable_radius - (k_cable_radius - e) * (k_cable_radius - e));
    int samples = (int)ceil(length / spacing) + 1;
    if (samples > CABLE_SAMPLES_MAX) samples = CABLE_SAMPLES_MAX;
    osc_lmd_settings settings = osc_lmd_settings_default();
    settings.d_max = s->d_max;
    static double times[3][CABLE_STEPS], counts[2][CABLE_STEPS], gaps[2][CABLE_STEPS];
    static osc_lmd_contact found[2][CAPACITY];
    static double pose_jac[CAPACITY * 6], control_jac[2][CAPACITY * 3 * (CABLE_DEGREE + 1)];
    int differ = 0, failures = 0;
    for (int pass = 0; pass < PASSES; ++pass) {
        osc_lmd_cable_cache* caches[2];
        osc_lmd_cable_cache_create(&caches[0]);
        osc_lmd_cable_cache_create(&caches[1]);
        for (int k = 0; k < CABLE_STEPS; ++k) {
            osc_vec3 p[CABLE_DEGREE + 1];
            cable_points(k, lift[k], p);
            osc_cable cable = {CABLE_DEGREE, p, k_cable_radius, 8};
            int n[2];
            for (int v = 0; v < 2; ++v) {
                osc_lmd_cable_output out = {found[v], CAPACITY, 0, 0, pose_jac, control_jac[v], 0};
                double t0 = bench_now();
                osc_status st =
                    osc_lmd_cable_query(block, osc_pose_identity(), &cable, &settings, caches[v], &out, v + 1);
                double t = bench_now() - t0;
                if (st != OSC_OK && pass == 0 && failures++ < 5)
                    fprintf(stderr, "bench_lmd cable step %d: %s\n", k, osc_last_error());
                if (pass == 0 || t < times[v][k]) times[v][k] = t;
                n[v] = out.count;
                if (v > 0) continue;
                counts[0][k] = out.needed;
                gaps[0][k] = INFINITY;
                for (int i = 0; i < out.count; ++i) gaps[0][k] = fmin(gaps[0][k], found[0][i].distance);
            }
            if (pass == 0) differ += !same_contacts(found[0], n[0], found[1], n[1], 1e-12);
            double t0 = bench_now();
            counts[1][k] = cable_baseline(&mesh, p, samples, s->d_max, &gaps[1][k]);
            double t = bench_now() - t0;
            if (pass == 0 || t < times[2][k]) times[2][k] = t;
        }
        osc_lmd_cable_cache_destroy(caches[0]);
        osc_lmd_cable_cache_destroy(caches[1]);
    }
    double med[3], mx[3], cmed[2], cmax[2], smallest = INFINITY, gap_error = 0.0;
    double* values = malloc(CABLE_STEPS * sizeof(double));
    for (int v = 0; v < 3; ++v) {
        mx[v] = 0;
        for (int k = 0; k < CABLE_STEPS; ++k) values[k] = 1e3 * times[v][k], mx[v] = fmax(mx[v], values[k]);
        med[v] = bench_median(values, CABLE_STEPS);
    }
    for (int v = 0; v < 2; ++v) {
        cmax[v] = 0;
        for (int k = 0; k < CABLE_STEPS; ++k) values[k] = counts[v][k], cmax[v] = fmax(cmax[v], values[k]);
        cmed[v] = bench_median(values, CABLE_STEPS);
    }
    // how far the balls' smallest gap is from the exact one, where both see one
    for (int k = 0; k < CABLE_STEPS; ++k) {
        smallest = fmin(smallest, clearance[k]);
        if (isfinite(gaps[0][k]) && gaps[1][k] <= s->d_max) gap_error = fmax(gap_error, fabs(gaps[1][k] - gaps[0][k]));
    }
    free(values);
    const char* suite = "lmd";
    const char* name = "cable_hotstab";
    bench_report(suite, name, "cable_balls", samples, "count");
    bench_report(suite, name, "receptacle_triangles", mesh.triangle_count, "count");
    bench_report_peer(suite, name, "time_median_1_thread", med[0], "ms", "tessellation", med[2]);
    bench_report_peer(suite, name, "time_median_2_threads", med[1], "ms", "tessellation", med[2]);
    bench_report_peer(suite, name, "time_max_1_thread", mx[0], "ms", "tessellation", mx[2]);
    bench_report_peer(suite, name, "time_max_2_threads", mx[1], "ms", "tessellation", mx[2]);
    bench_report_peer(suite, name, "contacts_median", cmed[0], "count", "tessellation", cmed[1]);
    bench_report_peer(suite, name, "contacts_max", cmax[0], "count", "tessellation", cmax[1]);
    bench_report(suite, name, "largest_smallest_gap_difference", gap_error, "mm");
    bench_report(suite, name, "steps_contacts_differ_2_threads", differ, "count");
    bench_report(suite, name, "failed_queries", failures, "count");
    fprintf(stderr,
            "cable_hotstab: degree %d, radius %.1f mm, %d steps, smallest sampled clearance %.3f mm, d_max %.1f mm; "
            "baseline %d balls against %d triangles\n"
            "  contacts (ours / tessellation): median %.0f / %.0f, max %.0f / %.0f\n"
            "  time median (ms): 1 thread %.3f, 2 threads %.3f, tessellation %.3f; max %.3f, %.3f, %.3f\n"
            "  largest difference of the smallest gap (balls - exact) %.4f mm; steps whose contacts differ on "
            "2 threads %d; failed queries %d\n",
            CABLE_DEGREE, k_cable_radius, CABLE_STEPS, smallest, s->d_max, samples, mesh.triangle_count, cmed[0],
            cmed[1], cmax[0], cmax[1], med[0], med[1], med[2], mx[0], mx[1], mx[2], gap_error, differ, failures);
    lmd_baseline_free(&mesh);
    osc_brep_destroy(block);
}

int main(int argc, char** argv) {
    char build[1024];
    bench_build_dir(argv[0], build, sizeof build);
    // arguments: the scenarios to run (all by default; "cable" the cable alone)
    int cable = argc < 2;
    for (int a = 1; a < argc; ++a) cable |= strcmp(argv[a], "cable") == 0;
    for (int i = 0; i < LMD_SCENARIO_COUNT; ++i) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; ++a) wanted |= strcmp(argv[a], lmd_scenarios[i].name) == 0;
        if (wanted) run_scenario(&lmd_scenarios[i], build);
    }
    if (cable) run_cable(&lmd_scenarios[1]);
    return 0;
}
