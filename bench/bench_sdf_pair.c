// bench_sdf_pair.c: collision points between SDFs (issue 6), Al-Ameri 2025 §5.2's two scenes, with the
// Rust crate thimni (the paper's implementation; bench/peers/thimni, built by
// bench/peers/setup_thimni.sh) on the same scenes in the same run, and a table of accuracy against
// speed over the packing resolution.
//
// Scenes (fixed seed; written to BUILD/bench/*.scene for the peer):
//   spheres   1000 spheres of radius 1, centres uniform in [0, 40]^3
//   menger    100 Menger sponges of half size 1 and 3 levels, centres uniform in [0, 12]^3, axis
//             aligned (the peer's scene format has no rotations)
// osculate: osc_sdf_scene_collide (sort-and-sweep broad phase, then every candidate pair) with the
// default settings, on 1 and 2 threads, in two modes: "first-point" (first_only: one point per
// colliding pair, which is what thimni's query returns) and "all-points" (up to 64 per pair); the
// figure is the median over repeats of the whole scene's time. For the sphere scene the colliding
// pairs are checked against the exact test |c_i - c_j| < 2 (false negatives and positives).
// thimni: bench/peers/thimni's `thimni_scene` on the same file (a sort-and-sweep broad phase in the
// harness, thimni 0.3.4's query with its default parameters), one thread, the median it reports.
//
// Accuracy against speed: 200 random pairs of analytic SDFs (spheres, rounded boxes, tori,
// ellipsoids, superquadrics) at random poses; for each resolution the time per pair and the
// collisions missed, against a 40^3 brute-force sampling of the box intersection, split into
// collisions deeper than one packing spacing and shallower ones.
//
// Timing: CLOCK_MONOTONIC; medians. stdout: one JSON object per figure (bench.h).

#include "bench.h"

#include "osculate/osculate.h"

#include <math.h>
#include <string.h>

enum { SPHERES = 1000, SPONGES = 100, PER_PAIR = 64, PAIR_CAPACITY = 20000, REPEATS = 5 };

static bench_rng rng = {0x2545F4914F6CDD1Dull};

typedef struct scene {
    const char* name;
    int count;
    osc_sdf** sdfs;
    osc_sdf_shape* shapes;
    osc_pose* poses;
    osc_sdf_scene_body* bodies;
} scene;

static scene make_scene(const char* name, int count, double region, bool sponges, const char* file) {
    scene s = {name, count, calloc((size_t)count, sizeof(osc_sdf*)), calloc((size_t)count, sizeof(osc_sdf_shape)),
               calloc((size_t)count, sizeof(osc_pose)), calloc((size_t)count, sizeof(osc_sdf_scene_body))};
    FILE* out = file ? fopen(file, "w") : NULL;
    if (out) fprintf(out, "# %s: written by bench_sdf_pair\n", name);
    for (int i = 0; i < count; ++i) {
        osc_vec3 c =
            osc_v3(bench_uniform(&rng, 0, region), bench_uniform(&rng, 0, region), bench_uniform(&rng, 0, region));
        if (sponges)
            osc_sdf_create_menger(1.0, 3, &s.sdfs[i]);
        else
            osc_sdf_create_sphere(1.0, &s.sdfs[i]);
        s.shapes[i].sdf = s.sdfs[i];
        s.poses[i] = osc_pose_make(c, osc_quat_identity());
        s.bodies[i] = (osc_sdf_scene_body){&s.shapes[i], s.poses[i]};
        if (out) {
            if (sponges)
                fprintf(out, "menger %.17g %.17g %.17g 1 3\n", c.x, c.y, c.z);
            else
                fprintf(out, "sphere %.17g %.17g %.17g 1\n", c.x, c.y, c.z);
        }
    }
    if (out) fclose(out);
    return s;
}

static void free_scene(scene* s) {
    for (int i = 0; i < s->count; ++i) osc_sdf_destroy(s->sdfs[i]);
    free(s->sdfs);
    free(s->shapes);
    free(s->poses);
    free(s->bodies);
}

// runs the peer on `file`; its median scene time in ms, or NAN (with *why) when it is missing
static double run_thimni(const char* build, const char* file, int* points, const char** why) {
    char executable[1024], command[2048], line[4096];
    snprintf(executable, sizeof executable, "%s/peers/thimni/release/thimni_scene", build);
    snprintf(command, sizeof command, "%s %s --repeats %d 2>/dev/null", executable, file, REPEATS);
    if (!bench_peer_line(executable, command, line, sizeof line, why,
                         "thimni_scene not built (bench/peers/setup_thimni.sh)"))
        return NAN;
    const char* median = strstr(line, "\"median_ms\":");
    const char* found = strstr(line, "\"points\":");
    if (!median) {
        *why = "thimni_scene printed no median_ms";
        return NAN;
    }
    if (found) *points = atoi(found + 9);
    return atof(median + 12);
}

// exact overlaps of a sphere scene (unit spheres: centres closer than 2)
static int sphere_overlaps(const scene* s) {
    int count = 0;
    for (int i = 0; i < s->count; ++i)
        for (int j = i + 1; j < s->count; ++j) count += osc_length(osc_sub(s->poses[i].p, s->poses[j].p)) < 2.0;
    return count;
}

// the scene in one mode (first point per pair, as thimni, or all points) on 1 and 2 threads
static void time_scene(scene* s, bool first_only, double medians[2], int* candidates, int* colliding, int* points,
                       int* false_negatives, int* false_positives, double* missed_depth) {
    static osc_sdf_scene_pair pairs[PAIR_CAPACITY];
    static osc_sdf_pair_contact contacts[(size_t)PAIR_CAPACITY * PER_PAIR];
    osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
    settings.first_only = first_only;
    void* workspace = malloc(osc_sdf_scene_workspace_size((size_t)s->count));
    for (int threads = 1; threads <= 2; ++threads) {
        double times[REPEATS];
        for (int r = 0; r < REPEATS; ++r) {
            osc_sdf_scene_output out = {pairs, PAIR_CAPACITY, 0, 0, contacts, PER_PAIR};
            double start = bench_now();
            osc_status status = osc_sdf_scene_collide(s->bodies, (size_t)s->count, &settings, &out, workspace, threads);
            times[r] = bench_now() - start;
            int count = out.count;
            if (status != OSC_OK) fprintf(stderr, "bench_sdf_pair: %s\n", osc_last_error());
            *candidates = count;
            *colliding = *points = *false_negatives = *false_positives = 0;
            *missed_depth = 0.0;
            for (int k = 0; k < count; ++k) {
                bool hit = pairs[k].contact_count > 0;
                *colliding += hit;
                *points += pairs[k].contact_count;
                // unit spheres overlap when their centres are closer than 2 (the Menger scene has
                // no closed form: these counts are for spheres only)
                double gap = osc_length(osc_sub(s->poses[pairs[k].a].p, s->poses[pairs[k].b].p));
                *false_negatives += !hit && gap < 2.0;
                if (!hit && gap < 2.0) *missed_depth = fmax(*missed_depth, 2.0 - gap);
                *false_positives += hit && gap >= 2.0;
            }
        }
        medians[threads - 1] = bench_median(times, REPEATS);
    }
    free(workspace);
}

static void run_scene(scene* s, const char* build, const char* file, bool spheres) {
    int peer_points = -1;
    const char* why = "";
    double peer = run_thimni(build, file, &peer_points, &why);
    if (spheres) bench_report(s->name, "scene", "exact_overlaps", sphere_overlaps(s), "count");
    for (int mode = 0; mode < 2; ++mode) {
        bool first_only = mode == 0;
        const char* name = first_only ? "first-point" : "all-points";
        double medians[2];
        int candidates, colliding, points, false_negatives, false_positives;
        double missed_depth;
        time_scene(s, first_only, medians, &candidates, &colliding, &points, &false_negatives, &false_positives,
                   &missed_depth);
        bench_report(s->name, name, "candidate_pairs", candidates, "count");
        bench_report(s->name, name, "colliding_pairs", colliding, "count");
        bench_report(s->name, name, "points", points, "count");
        if (spheres) {
            bench_report(s->name, name, "false_negatives", false_negatives, "count");
            bench_report(s->name, name, "false_positives", false_positives, "count");
            bench_report(s->name, name, "deepest_missed_overlap", missed_depth, "1");
        }
        if (isnan(peer))
            printf("{\"suite\": \"%s\", \"case\": \"%s\", \"metric\": \"time_1_thread\", \"value\": "
                   "%.6g, \"unit\": \"ms\", \"peer\": \"thimni\", \"peer_value\": null, \"missing\": \"%s\"}\n",
                   s->name, name, 1e3 * medians[0], why);
        else
            bench_report_peer(s->name, name, "time_1_thread", 1e3 * medians[0], "ms", "thimni", peer);
        bench_report(s->name, name, "time_2_threads", 1e3 * medians[1], "ms");
        char exact[160] = "";
        if (spheres)
            snprintf(exact, sizeof exact,
                     " (%d false negatives, deepest overlap missed %.3f; %d false "
                     "positives)",
                     false_negatives, missed_depth, false_positives);
        fprintf(stderr,
                "%-18s %-11s %d bodies: %d candidate pairs, %d colliding%s, %d points; %.2f ms "
                "on 1 thread, %.2f ms on 2; thimni %.2f ms (%d points)%s%s\n",
                s->name, name, s->count, candidates, colliding, exact, points, 1e3 * medians[0], 1e3 * medians[1], peer,
                peer_points, isnan(peer) ? ": " : "", why);
    }
}

// ---------------------------------------------------------------------------------------------
// accuracy against speed

static osc_sdf* random_shape(int kind) {
    osc_sdf* sdf = NULL;
    switch (kind % 5) {
        case 0: osc_sdf_create_sphere(bench_uniform(&rng, 0.3, 1.0), &sdf); break;
        case 1:
            osc_sdf_create_box(
                osc_v3(bench_uniform(&rng, 0.2, 0.8), bench_uniform(&rng, 0.2, 0.8), bench_uniform(&rng, 0.2, 0.8)),
                0.05, &sdf);
            break;
        case 2: osc_sdf_create_torus(bench_uniform(&rng, 0.5, 0.8), bench_uniform(&rng, 0.1, 0.3), &sdf); break;
        case 3:
            osc_sdf_create_ellipsoid(
                osc_v3(bench_uniform(&rng, 0.2, 0.9), bench_uniform(&rng, 0.2, 0.9), bench_uniform(&rng, 0.2, 0.9)),
                &sdf);
            break;
        default:
            osc_sdf_create_superquadric(
                osc_v3(bench_uniform(&rng, 0.3, 0.8), bench_uniform(&rng, 0.3, 0.8), bench_uniform(&rng, 0.3, 0.8)),
                0.5, 0.8, &sdf);
    }
    return sdf;
}

static double world_eval(const osc_sdf* sdf, osc_pose pose, osc_vec3 x) {
    return osc_sdf_eval(sdf, osc_pose_apply_inverse(pose, x), NULL, NULL);
}

static void accuracy_table(void) {
    enum { PAIRS = 200, N = 40 };
    static osc_sdf *as[PAIRS], *bs[PAIRS];
    static osc_pose pas[PAIRS], pbs[PAIRS];
    static double deepest[PAIRS], size[PAIRS];
    for (int i = 0; i < PAIRS; ++i) {
        as[i] = random_shape(i);
        bs[i] = random_shape(i / 5 + 1);
        for (int side = 0; side < 2; ++side) {
            osc_pose p = {
                osc_v3(bench_uniform(&rng, -0.5, 0.5), bench_uniform(&rng, -0.5, 0.5), bench_uniform(&rng, -0.5, 0.5)),
                bench_random_rotation(&rng)};
            if (side)
                pbs[i] = p;
            else
                pas[i] = p;
        }
        // brute force over the intersection of the world boxes (the query's own box)
        osc_sdf_shape a = {.sdf = as[i]}, b = {.sdf = bs[i]};
        osc_sdf_pair_contact dummy[1];
        osc_sdf_pair_output out = {.contacts = dummy, .capacity = 1};
        osc_sdf_pair_settings one = osc_sdf_pair_settings_default();
        one.resolution = 1;
        one.first_only = 1;
        osc_sdf_pair_collide(&a, pas[i], &b, pbs[i], &one, &out);
        // reconstruct the world boxes as the query does: corners of the rotated body boxes
        osc_vec3 lo = osc_v3(-INFINITY, -INFINITY, -INFINITY), hi = osc_v3(INFINITY, INFINITY, INFINITY);
        const osc_sdf* sdfs[2] = {as[i], bs[i]};
        osc_pose poses[2] = {pas[i], pbs[i]};
        for (int s = 0; s < 2; ++s) {
            osc_vec3 bl, bh, wl = osc_v3(INFINITY, INFINITY, INFINITY), wh = osc_v3(-INFINITY, -INFINITY, -INFINITY);
            osc_sdf_bounds(sdfs[s], &bl, &bh);
            for (int c = 0; c < 8; ++c) {
                osc_vec3 corner = osc_v3(c & 1 ? bh.x : bl.x, c & 2 ? bh.y : bl.y, c & 4 ? bh.z : bl.z);
                osc_vec3 w = osc_pose_apply(poses[s], corner);
                wl = osc_v3(fmin(wl.x, w.x), fmin(wl.y, w.y), fmin(wl.z, w.z));
                wh = osc_v3(fmax(wh.x, w.x), fmax(wh.y, w.y), fmax(wh.z, w.z));
            }
            lo = osc_v3(fmax(lo.x, wl.x), fmax(lo.y, wl.y), fmax(lo.z, wl.z));
            hi = osc_v3(fmin(hi.x, wh.x), fmin(hi.y, wh.y), fmin(hi.z, wh.z));
        }
        deepest[i] = INFINITY;
        size[i] = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
        if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z)) continue;
        for (int x = 0; x < N; ++x)
            for (int y = 0; y < N; ++y)
                for (int z = 0; z < N; ++z) {
                    osc_vec3 p = osc_v3(lo.x + (x + 0.5) * (hi.x - lo.x) / N, lo.y + (y + 0.5) * (hi.y - lo.y) / N,
                                        lo.z + (z + 0.5) * (hi.z - lo.z) / N);
                    deepest[i] = fmin(deepest[i], fmax(world_eval(as[i], pas[i], p), world_eval(bs[i], pbs[i], p)));
                }
    }
    int resolutions[] = {4, 6, 8, 12, 16, 24};
    fprintf(stderr, "\n| resolution | us per pair | deeper than a spacing: missed / collisions | shallower: missed / "
                    "collisions |\n|---|---|---|---|\n");
    for (size_t r = 0; r < sizeof resolutions / sizeof *resolutions; ++r) {
        osc_sdf_pair_settings settings = osc_sdf_pair_settings_default();
        settings.resolution = resolutions[r];
        static osc_sdf_pair_contact contacts[PER_PAIR];
        int deep = 0, deep_missed = 0, shallow = 0, shallow_missed = 0;
        double start = bench_now();
        for (int i = 0; i < PAIRS; ++i) {
            osc_sdf_shape a = {.sdf = as[i]}, b = {.sdf = bs[i]};
            osc_sdf_pair_output out = {.contacts = contacts, .capacity = PER_PAIR};
            osc_sdf_pair_collide(&a, pas[i], &b, pbs[i], &settings, &out);
            if (deepest[i] < 0.0) {
                double spacing = size[i] / settings.resolution;
                if (deepest[i] < -spacing) {
                    ++deep;
                    deep_missed += out.needed == 0;
                } else {
                    ++shallow;
                    shallow_missed += out.needed == 0;
                }
            }
        }
        double us = 1e6 * (bench_now() - start) / PAIRS;
        char name[32];
        snprintf(name, sizeof name, "resolution-%d", resolutions[r]);
        bench_report("sdf_pair_accuracy", name, "us_per_pair", us, "us");
        bench_report("sdf_pair_accuracy", name, "deep_missed", deep_missed, "count");
        bench_report("sdf_pair_accuracy", name, "shallow_missed", shallow_missed, "count");
        fprintf(stderr, "| %d | %.1f | %d / %d | %d / %d |\n", resolutions[r], us, deep_missed, deep, shallow_missed,
                shallow);
    }
    for (int i = 0; i < PAIRS; ++i) {
        osc_sdf_destroy(as[i]);
        osc_sdf_destroy(bs[i]);
    }
}

int main(int argc, char** argv) {
    (void)argc;
    char build[1024];
    bench_build_dir(argv[0], build, sizeof build);
    char spheres_file[1100], menger_file[1100];
    snprintf(spheres_file, sizeof spheres_file, "%s/bench/spheres.scene", build);
    snprintf(menger_file, sizeof menger_file, "%s/bench/menger.scene", build);
    scene spheres = make_scene("sdf_scene_spheres", SPHERES, 40.0, false, spheres_file);
    scene sponges = make_scene("sdf_scene_menger", SPONGES, 12.0, true, menger_file);
    run_scene(&spheres, build, spheres_file, true);
    run_scene(&sponges, build, menger_file, false);
    free_scene(&spheres);
    free_scene(&sponges);
    accuracy_table();
    return 0;
}
