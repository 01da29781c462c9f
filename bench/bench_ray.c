// bench_ray.c: rays against optical surfaces (issue 7): rays per second for a sphere, a conic and
// an even asphere at 1M rays on 1 and 2 threads, and in the same run torchlensmaker (PyPI; GPL,
// run as a peer only) on the same surfaces and rays (bench/peers/tlm_rays.py in the virtual
// environment bench/peers/setup_tlm.sh makes; reported missing otherwise).
//
// Surfaces (vertex at the origin, optical axis x, aperture D = 15):
//   sphere   R = 20
//   conic    R = 20, k = -0.5
//   asphere  R = 20, k = -1, a4 = 1e-4, a6 = -1e-6, a8 = 1e-8
// Rays: origins on the plane x = -5 with y, z uniform in [-5, 5], directions (1, u, w) normalised
// with u, w uniform in [-0.1, 0.1] (fixed seed), written to BUILD/bench/rays.bin as float64
// [N][6] for the peer. osculate: osc_ray_intersect_batch with the default settings (4 beams over
// the bounding sphere's chord, Newton 6 + 20 + 1 iterations); the figure is the median of 3 runs.
// Accuracy: the largest |t - t_exact| over the hits against the closed-form intersection (sphere,
// conic), and the largest |x - g(r)| at the hit points (asphere).

#include "bench.h"

#include "osculate/osculate.h"

#include <math.h>
#include <string.h>

enum { RAYS = 1000000, REPEATS = 3 };

typedef struct surface_case {
    const char* name;
    double radius, conic;
    int count;
    double coefficients[3];
    const char* peer_arguments;
} surface_case;

// the vertex-side root of (1 + k) x^2 - 2 R x + r^2 = 0, or NAN
static double conic_root(double R, double k, osc_vec3 origin, osc_vec3 direction) {
    const double p[3] = {origin.x, origin.y, origin.z}, v[3] = {direction.x, direction.y, direction.z};
    double a = (1 + k) * v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double b = 2 * ((1 + k) * p[0] * v[0] - R * v[0] + p[1] * v[1] + p[2] * v[2]);
    double c = (1 + k) * p[0] * p[0] - 2 * R * p[0] + p[1] * p[1] + p[2] * p[2];
    double disc = b * b - 4 * a * c;
    if (disc < 0) return NAN;
    double q = -0.5 * (b + copysign(sqrt(disc), b)), t1 = q / a, t2 = c / q;
    return fmin(t1 >= 0 ? t1 : INFINITY, t2 >= 0 ? t2 : INFINITY);
}

static double run_peer(const char* build, const surface_case* sc, int threads, const char** why) {
    char python[1024], command[2048];
    snprintf(python, sizeof python, "%s/peers/tlm-venv/bin/python", build);
    snprintf(command, sizeof command,
             "%s bench/peers/tlm_rays.py %s/bench/rays.bin %s --threads %d --repeats 3 2>/dev/null", python, build,
             sc->peer_arguments, threads);
    char line[4096];
    if (!bench_peer_line(python, command, line, sizeof line, why,
                         "torchlensmaker not installed (bench/peers/setup_tlm.sh)"))
        return NAN;
    const char* rate = strstr(line, "\"rays_per_s\":");
    if (!rate) {
        *why = "tlm_rays.py printed no rays_per_s";
        return NAN;
    }
    return atof(rate + 13);
}

int main(int argc, char** argv) {
    (void)argc;
    char build[1024];
    bench_build_dir(argv[0], build, sizeof build);
    osc_ray* rays = malloc(sizeof(osc_ray) * RAYS);
    osc_ray_hit* hits = malloc(sizeof(osc_ray_hit) * RAYS);
    bench_rng rng = {0x9E3779B97F4A7C15ull};
    char rays_file[1100];
    snprintf(rays_file, sizeof rays_file, "%s/bench/rays.bin", build);
    FILE* out = fopen(rays_file, "wb");
    for (int i = 0; i < RAYS; ++i) {
        osc_vec3 o = osc_v3(-5.0, bench_uniform(&rng, -5, 5), bench_uniform(&rng, -5, 5));
        osc_vec3 d = osc_normalize(osc_v3(1.0, bench_uniform(&rng, -0.1, 0.1), bench_uniform(&rng, -0.1, 0.1)));
        rays[i] = (osc_ray){o, d};
        double row[6] = {o.x, o.y, o.z, d.x, d.y, d.z};
        if (out) fwrite(row, sizeof row, 1, out);
    }
    if (out) fclose(out);
    surface_case cases[3] = {{"sphere", 20.0, 0.0, 0, {0}, "--surface sphere --radius 20 --diameter 15"},
                             {"conic", 20.0, -0.5, 0, {0}, "--surface conic --radius 20 --k -0.5 --diameter 15"},
                             {"asphere",
                              20.0,
                              -1.0,
                              3,
                              {1e-4, -1e-6, 1e-8},
                              "--surface asphere --radius 20 --k -1 --coeffs 1e-4,-1e-6,1e-8 --diameter 15"}};
    for (int c = 0; c < 3; ++c) {
        const surface_case* sc = &cases[c];
        osc_sag sag;
        memset(&sag, 0, sizeof sag);
        sag.curvature = 1.0 / sc->radius;
        sag.conic = sc->conic;
        sag.coefficient_count = sc->count;
        memcpy(sag.coefficients, sc->coefficients, sizeof sc->coefficients);
        sag.diameter = 15.0;
        osc_implicit* surface = NULL;
        osc_implicit_create_sag(&sag, &surface);
        double rates[2];
        for (int threads = 1; threads <= 2; ++threads) {
            double times[REPEATS];
            for (int r = 0; r < REPEATS; ++r) {
                double start = bench_now();
                osc_ray_intersect_batch(surface, NULL, rays, RAYS, NULL, hits, NULL, threads);
                times[r] = bench_now() - start;
            }
            rates[threads - 1] = RAYS / bench_median(times, REPEATS);
        }
        // accuracy against the closed form (sphere, conic) or the sag (asphere)
        double worst = 0.0;
        int hit_count = 0;
        for (int i = 0; i < RAYS; ++i) {
            if (!hits[i].hit) continue;
            ++hit_count;
            if (sc->count == 0) {
                worst =
                    fmax(worst, fabs(hits[i].t - conic_root(sc->radius, sc->conic, rays[i].origin, rays[i].direction)));
            } else {
                double r = hypot(hits[i].point.y, hits[i].point.z);
                worst = fmax(worst, fabs(hits[i].point.x - osc_implicit_sag(surface, r, NULL)));
            }
        }
        const char* why = "";
        double peer[2] = {run_peer(build, sc, 1, &why), run_peer(build, sc, 2, &why)};
        for (int threads = 1; threads <= 2; ++threads) {
            char metric[32];
            snprintf(metric, sizeof metric, "rays_per_s_%d_thread%s", threads, threads > 1 ? "s" : "");
            if (isnan(peer[threads - 1]))
                printf("{\"suite\": \"ray\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": "
                       "\"1/s\", \"peer\": \"torchlensmaker\", \"peer_value\": null, \"missing\": \"%s\"}\n",
                       sc->name, metric, rates[threads - 1], why);
            else
                bench_report_peer("ray", sc->name, metric, rates[threads - 1], "1/s", "torchlensmaker",
                                  peer[threads - 1]);
        }
        bench_report("ray", sc->name, "hits", hit_count, "count");
        bench_report("ray", sc->name, "worst_error", worst, "1");
        fprintf(stderr,
                "%-8s %d hits of %d; %.3g rays/s on 1 thread, %.3g on 2; worst error %.2g; "
                "torchlensmaker %.3g / %.3g rays/s%s%s\n",
                sc->name, hit_count, RAYS, rates[0], rates[1], worst, peer[0], peer[1], isnan(peer[0]) ? ": " : "",
                why);
        osc_implicit_destroy(surface);
    }
    free(rays);
    free(hits);
    return 0;
}
