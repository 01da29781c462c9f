// test_fast_math.c: src/fast_math.h against long-double libm (expl, logl, exp2l, log2l, powl) on
// millions of points over the whole double range: random bit patterns (every exponent, subnormals
// included), uniform samples of the arguments' useful ranges and the points near 0 and 1 where
// reductions are delicate. Errors are in units in the last place of the exact result rounded to
// double; the maxima are printed and asserted against the bounds of fast_math.h's header, and the
// special values (0, subnormals, inf, NaN, overflow, underflow) are checked exactly.

#include "test_common.h"

#include "fast_math.h"

#include <float.h>

static test_rng rng = {0xfa57};

// the error of `got` in units of the last place of the exact value `exact` (as a double)
static double ulp_error(double got, long double exact) {
    double rounded = (double)exact;
    if (isinf(rounded)) return isinf(got) && (got > 0) == (rounded > 0) ? 0.0 : INFINITY;
    double magnitude = fabs(rounded);
    double ulp = magnitude < DBL_MIN ? 0x1p-1074 : nextafter(magnitude, INFINITY) - magnitude;
    if (magnitude >= DBL_MAX) ulp = 0x1p971;
    return (double)(fabsl((long double)got - exact) / (long double)ulp);
}

// a positive double with random bits: every exponent equally likely, subnormals included
static double random_positive(void) {
    uint64_t bits = test_rng_next(&rng) & 0x7fffffffffffffffull;
    while ((bits >> 52) == 0x7ff) bits = test_rng_next(&rng) & 0x7fffffffffffffffull; // not inf or NaN
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

enum { SAMPLES = 2000000 };

static void test_exp(void) {
    double worst = 0.0, worst_at = 0.0, worst2 = 0.0, worst2_at = 0.0;
    for (int i = 0; i < SAMPLES; ++i) {
        // exp: its whole finite range and a little beyond, and small arguments
        double x = i % 4 == 0 ? test_uniform(&rng, -1e-3, 1e-3) : test_uniform(&rng, -750.0, 712.0);
        double e = ulp_error(osc_fast_exp(x), expl((long double)x));
        if (e > worst) worst = e, worst_at = x;
        double y = i % 4 == 0 ? test_uniform(&rng, -1e-3, 1e-3) : test_uniform(&rng, -1080.0, 1025.0);
        double e2 = ulp_error(osc_fast_exp2(y), exp2l((long double)y));
        if (e2 > worst2) worst2 = e2, worst2_at = y;
    }
    printf("  exp:  max %.3f ulp (at %.17g) over %d points in [-750, 712]\n", worst, worst_at, SAMPLES);
    printf("  exp2: max %.3f ulp (at %.17g) over %d points in [-1080, 1025]\n", worst2, worst2_at, SAMPLES);
    CHECK(worst <= 2.0);
    CHECK(worst2 <= 2.0);
}

static void test_log(void) {
    double worst = 0.0, worst_at = 0.0, worst2 = 0.0, worst2_at = 0.0;
    for (int i = 0; i < SAMPLES; ++i) {
        // every positive double, and points near 1 (where log is small and relative error counts)
        double x = i % 3 == 0 ? 1.0 + test_uniform(&rng, -0.3, 0.4) : random_positive();
        if (i % 3 == 1) x = 1.0 + test_uniform(&rng, -1e-6, 1e-6);
        double e = ulp_error(osc_fast_log(x), logl((long double)x));
        if (e > worst) worst = e, worst_at = x;
        double e2 = ulp_error(osc_fast_log2(x), log2l((long double)x));
        if (e2 > worst2) worst2 = e2, worst2_at = x;
    }
    printf("  log:  max %.3f ulp (at %.17g) over %d positive doubles\n", worst, worst_at, SAMPLES);
    printf("  log2: max %.3f ulp (at %.17g) over %d positive doubles\n", worst2, worst2_at, SAMPLES);
    CHECK(worst <= 2.0);
    CHECK(worst2 <= 2.0);
}

// the superquadric's powers: bases in [0, 1] (down to 2^-60) and exponents in [0.05, 20]
// (OSC_SQ_EXPONENT_MIN/MAX give 2 / eps in [1, 20], eps2 / eps1 in [0.05, 20], -eps1 / 2 in
// [-1, -0.05]), and bases in [1, 3] with exponents in [-1, -0.05]. The bound: exp2's 2 ulp, and
// log2's rounding (2 ulp of z = y log2 x, with the product's) scaled by z's magnitude, ln 2 |z|
// 2.5 eps relative, below 2 |z| ulp: the error over (2 + 2 |y log2 x|) ulp is at most 1
static void test_pow(void) {
    double worst = 0.0, worst_at[2] = {0.0, 0.0}, worst_plain = 0.0;
    for (int i = 0; i < SAMPLES; ++i) {
        double x, y;
        if (i % 2) {
            x = exp2(test_uniform(&rng, -60.0, 0.0));
            y = test_uniform(&rng, 0.05, 20.0);
        } else {
            x = test_uniform(&rng, 1.0, 3.0);
            y = test_uniform(&rng, -1.0, -0.05);
        }
        double e = ulp_error(osc_fast_pow(x, y), powl((long double)x, (long double)y));
        worst_plain = fmax(worst_plain, e);
        double scaled = e / (2.0 + 2.0 * fabs(y * log2(x)));
        if (scaled > worst) worst = scaled, worst_at[0] = x, worst_at[1] = y;
    }
    printf("  pow:  max %.3f ulp, max %.3f of (2 + 2 |y log2 x|) ulp (at x %.17g, y %.17g)\n", worst_plain, worst,
           worst_at[0], worst_at[1]);
    CHECK(worst <= 1.0);
}

static void test_special_values(void) {
    CHECK(osc_fast_exp(0.0) == 1.0 && osc_fast_exp2(0.0) == 1.0);
    CHECK(osc_fast_log(1.0) == 0.0 && osc_fast_log2(1.0) == 0.0);
    CHECK(osc_fast_pow(1.0, 7.3) == 1.0 && osc_fast_pow(0.37, 0.0) == 1.0);
    CHECK(osc_fast_pow(0.0, 2.5) == 0.0);
    CHECK(isnan(osc_fast_exp(NAN)) && isnan(osc_fast_exp2(NAN)));
    CHECK(osc_fast_exp(INFINITY) == INFINITY && osc_fast_exp2(INFINITY) == INFINITY);
    CHECK(osc_fast_exp(-INFINITY) == 0.0 && osc_fast_exp2(-INFINITY) == 0.0);
    CHECK(osc_fast_exp(710.0) == INFINITY && osc_fast_exp2(1024.0) == INFINITY);
    CHECK(osc_fast_exp(-746.0) == 0.0 && osc_fast_exp2(-1075.5) == 0.0);
    CHECK(osc_fast_exp2(-1074.0) == 0x1p-1074 && osc_fast_exp2(-1030.0) == 0x1p-1030); // subnormal results
    CHECK(osc_fast_exp2(1023.0) == 0x1p1023);
    CHECK(osc_fast_log(0.0) == -INFINITY && osc_fast_log2(0.0) == -INFINITY);
    CHECK(osc_fast_log(-0.0) == -INFINITY && osc_fast_log2(-0.0) == -INFINITY);
    CHECK(isnan(osc_fast_log(-1.0)) && isnan(osc_fast_log2(-1e-300)) && isnan(osc_fast_log(-INFINITY)));
    CHECK(isnan(osc_fast_log(NAN)) && isnan(osc_fast_log2(NAN)));
    CHECK(osc_fast_log(INFINITY) == INFINITY && osc_fast_log2(INFINITY) == INFINITY);
    CHECK(osc_fast_log2(0x1p-1074) == -1074.0 && osc_fast_log2(0x1p-1050) == -1050.0); // subnormal arguments
    CHECK(osc_fast_log2(DBL_MAX) == 1024.0 && osc_fast_log(DBL_MAX) == (double)logl(DBL_MAX));
    for (int k = -1074; k <= 1023; ++k) CHECK(osc_fast_log2(ldexp(1.0, k)) == (double)k);
}

// the loops the SQ lanes run: the same values whether or not the compiler vectorises them
static void test_loop_matches_scalar(void) {
    enum { N = 4096 };
    static double x[N], y[N], out[N];
    for (int i = 0; i < N; ++i) x[i] = random_positive(), y[i] = test_uniform(&rng, -3.0, 3.0);
    for (int i = 0; i < N; ++i) out[i] = osc_fast_exp(y[i]) + osc_fast_log2(x[i]);
    int same = 1;
    for (int i = 0; i < N; ++i) {
        volatile double a = y[i], b = x[i];
        same &= out[i] == osc_fast_exp(a) + osc_fast_log2(b);
    }
    CHECK(same);
}

int main(void) {
    RUN(test_exp);
    RUN(test_log);
    RUN(test_pow);
    RUN(test_special_values);
    RUN(test_loop_matches_scalar);
    return test_finish();
}
