// test_common.h: a minimal test harness shared by the C tests. Each test program runs its cases,
// prints every failed check with file and line, and exits non-zero when any check failed.

#ifndef OSC_TEST_COMMON_H
#define OSC_TEST_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEST_PI 3.14159265358979323846

static int test_failures = 0;
static int test_checks = 0;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        ++test_checks;                                                                                                 \
        if (!(cond)) {                                                                                                 \
            ++test_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
        }                                                                                                              \
    } while (0)

// like CHECK, with a printf-style explanation printed on failure
#define CHECK_MSG(cond, ...)                                                                                           \
    do {                                                                                                               \
        ++test_checks;                                                                                                 \
        if (!(cond)) {                                                                                                 \
            ++test_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

// |a - b| <= tol
#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double check_a_ = (a), check_b_ = (b), check_t_ = (tol);                                                       \
        ++test_checks;                                                                                                 \
        if (!(fabs(check_a_ - check_b_) <= check_t_)) {                                                                \
            ++test_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %.3g\n", __FILE__, __LINE__, #a,    \
                    check_a_, #b, check_b_, check_t_);                                                                 \
        }                                                                                                              \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                                                   \
    do {                                                                                                               \
        int check_s_ = (int)(expr);                                                                                    \
        ++test_checks;                                                                                                 \
        if (check_s_ != (int)(expected)) {                                                                             \
            ++test_failures;                                                                                           \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, __LINE__, #expr, check_s_,          \
                    (int)(expected), osc_last_error());                                                                \
        }                                                                                                              \
    } while (0)

#define RUN(test_function)                                                                                             \
    do {                                                                                                               \
        int before_ = test_failures;                                                                                   \
        test_function();                                                                                               \
        printf("%-52s %s\n", #test_function, test_failures == before_ ? "ok" : "FAILED");                              \
    } while (0)

static inline int test_finish(void) {
    printf("%d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// deterministic random numbers (splitmix64)

typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline uint64_t test_rng_next(test_rng* rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// uniform in [lo, hi)
static inline double test_uniform(test_rng* rng, double lo, double hi) {
    return lo + (hi - lo) * ((double)(test_rng_next(rng) >> 11) * 0x1.0p-53);
}

// the threads of this process (Linux's /proc/self/status), 0 where it cannot be read
static inline int process_threads(void) {
    FILE* status = fopen("/proc/self/status", "r");
    if (!status) return 0;
    char line[256];
    int threads = 0;
    while (fgets(line, sizeof line, status))
        if (sscanf(line, "Threads: %d", &threads) == 1) break;
    fclose(status);
    return threads;
}

// seconds of wall time since an arbitrary origin (for the timings the tests print)
static inline double test_seconds(void) {
    struct timespec now;
    timespec_get(&now, TIME_UTC);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

// relative error |a - b| / max(|b|, floor)
static inline double test_rel_error(double a, double b, double floor) {
    double scale = fabs(b) > floor ? fabs(b) : floor;
    return fabs(a - b) / scale;
}

#endif // OSC_TEST_COMMON_H
