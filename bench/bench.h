// bench.h: timing and reporting helpers shared by the benchmark programs. Each figure is printed as
// one JSON object per line in the format of docs/architecture.md §6:
//   {"suite": ..., "case": ..., "metric": ..., "value": ..., "unit": ...}
// bench/run.sh collects them into build/bench/results.jsonl.

#ifndef OSC_BENCH_H
#define OSC_BENCH_H

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "osculate/math.h"

// the directory of the fetched real models (tools/fetch_models.sh) into `out`: `given` when not
// NULL, else $OSC_MODEL_DIR, else models/ in the build directory (../models beside `program`)
static inline void bench_model_dir(const char* given, const char* program, char* out, size_t size) {
    const char* variable = getenv("OSC_MODEL_DIR");
    if (given || variable) {
        snprintf(out, size, "%s", given ? given : variable);
        return;
    }
    const char* slash = strrchr(program, '/');
    int length = slash ? (int)(slash - program) : 1;
    snprintf(out, size, "%.*s/../models", length, slash ? program : ".");
}

// the build directory into `out`: $OSC_BUILD_DIR, else the parent of the benchmark's own
// directory (benchmarks live in BUILD/bench/)
static inline void bench_build_dir(const char* program, char* out, size_t size) {
    const char* variable = getenv("OSC_BUILD_DIR");
    if (variable) {
        snprintf(out, size, "%s", variable);
        return;
    }
    const char* slash = strrchr(program, '/');
    snprintf(out, size, "%.*s/..", slash ? (int)(slash - program) : 1, slash ? program : ".");
}

// runs a peer's command and reads the first line it prints into `line`; false (with *why set)
// when `executable` does not exist or the command cannot be started
static inline int bench_peer_line(const char* executable, const char* command, char* line, size_t size,
                                  const char** why, const char* missing) {
    FILE* exists = fopen(executable, "rb");
    if (!exists) {
        *why = missing;
        return 0;
    }
    fclose(exists);
    FILE* pipe = popen(command, "r");
    if (!pipe) {
        *why = "could not start the peer";
        return 0;
    }
    line[0] = 0;
    if (!fgets(line, (int)size, pipe)) line[0] = 0;
    pclose(pipe);
    return 1;
}

// wall-clock time; with OSC_BENCH_CLOCK=thread in the environment, the calling thread's CPU time
// (for comparing single-threaded figures of two builds on a machine shared with other work)
static inline double bench_now(void) {
    static int clock_id = -1;
    if (clock_id < 0) {
        const char* which = getenv("OSC_BENCH_CLOCK");
        clock_id = which && !strcmp(which, "thread") ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    }
    struct timespec ts;
    clock_gettime((clockid_t)clock_id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// median of `count` values (sorts them)
static inline double bench_median(double* values, int count) {
    qsort(values, (size_t)count, sizeof *values, bench_compare);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static inline void bench_report(const char* suite, const char* name, const char* metric, double value,
                                const char* unit) {
    printf("{\"suite\": \"%s\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}\n", suite,
           name, metric, value, unit);
    fflush(stdout);
}

// a side-by-side figure: ours and the peer's, measured in the same run on the same inputs
static inline void bench_report_peer(const char* suite, const char* name, const char* metric, double value,
                                     const char* unit, const char* peer, double peer_value) {
    printf("{\"suite\": \"%s\", \"case\": \"%s\", \"metric\": \"%s\", \"value\": %.6g, \"unit\": \"%s\", "
           "\"peer\": \"%s\", \"peer_value\": %.6g}\n",
           suite, name, metric, value, unit, peer, peer_value);
    fflush(stdout);
}

// deterministic random numbers for benchmark inputs (a 64-bit LCG; the top 53 bits)
typedef struct bench_rng {
    unsigned long long state;
} bench_rng;

// uniform in [lo, hi)
static inline double bench_uniform(bench_rng* rng, double lo, double hi) {
    rng->state = rng->state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * ((double)(rng->state >> 11) * 0x1.0p-53);
}

// a uniformly distributed rotation (Shoemake)
static inline osc_quat bench_random_rotation(bench_rng* rng) {
    const double two_pi = 6.283185307179586;
    double u1 = bench_uniform(rng, 0, 1), u2 = bench_uniform(rng, 0, two_pi), u3 = bench_uniform(rng, 0, two_pi);
    double a = sqrt(1 - u1), b = sqrt(u1);
    osc_quat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return q;
}

#endif // OSC_BENCH_H
