// fast_math.h: exp, exp2, log, log2 and pow for doubles in portable, branch-free C: only
// arithmetic, comparisons that compile to selects and bit manipulation of the representation, no
// tables and no calls, so that gcc vectorises a loop over any of them (SSE2, AVX2, AVX-512). Never
// installed. Accuracy (docs/sdf.md, "Fast elementary functions", measured by tests/test_fast_math.c
// against glibc over millions of points):
//
//   osc_fast_exp, osc_fast_exp2    within 2 ulp over the whole range, subnormal results included
//   osc_fast_log, osc_fast_log2    within 2 ulp over all positive doubles, subnormals included
//   osc_fast_pow(x, y) = exp2(y log2 x)   within (2 + |y log2 x|) ulp roughly: the rounding of the
//                                  logarithm is scaled by the exponent's magnitude, as in any pow
//                                  without an extended-precision logarithm
//
// Special values: exp(NaN) = NaN, exp(+inf) = +inf, exp(-inf) = 0, overflow to +inf and underflow to
// 0 as libm's; log(0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN; exp(0) = 1 and
// log(1) = 0 exactly, so pow(1, y) = 1 and pow(x, 0) = 1 for finite positive x.

#ifndef OSC_FAST_MATH_H
#define OSC_FAST_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

// every function here is inlined into its caller, so that a loop over them vectorises whole
#if defined(__GNUC__) || defined(__clang__)
#define OSC_FAST_INLINE static inline __attribute__((always_inline))
#else
#define OSC_FAST_INLINE static inline
#endif

OSC_FAST_INLINE uint64_t osc_fast_bits(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

OSC_FAST_INLINE double osc_fast_double(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/// `condition ? a : b` by the bits, without a branch: the loops that use it stay vectorisable
/// where the compiler's if-conversion gives up on many nested selects.
OSC_FAST_INLINE double osc_fast_select(int condition, double a, double b) {
    uint64_t mask = (uint64_t)0 - (uint64_t)(condition != 0);
    return osc_fast_double((osc_fast_bits(a) & mask) | (osc_fast_bits(b) & ~mask));
}

// the integer n (|n| < 2^51, held exactly in a double) as int64, by the shifter's bits
OSC_FAST_INLINE int64_t osc_fast_integer(double n) {
    return (int64_t)(osc_fast_bits(n + 0x1.8p52) - osc_fast_bits(0x1.8p52));
}

// 2^n for an integer n in [-1022, 1023] given as int64
OSC_FAST_INLINE double osc_fast_power_of_two(int64_t n) { return osc_fast_double((uint64_t)(n + 1023) << 52); }

// e^r for |r| <= 0.35 by its Taylor polynomial of degree 13 (truncation below 5e-18 relative), as
// 1 + (r + r^2 Q(r)) with Q by Estrin's scheme: a dependency chain of 6 multiply-adds instead of
// Horner's 13, and the leading terms added last so that their rounding stays below an ulp
OSC_FAST_INLINE double osc_fast_exp_reduced(double r) {
    double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    double a0 = 0.5 + r * (1.0 / 6.0), a1 = 1.0 / 24.0 + r * (1.0 / 120.0);
    double a2 = 1.0 / 720.0 + r * (1.0 / 5040.0), a3 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
    double a4 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0), a5 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
    double b0 = a0 + r2 * a1, b1 = a2 + r2 * a3, b2 = a4 + r2 * a5;
    double q = (b0 + r4 * b1) + r8 * b2;
    return 1.0 + (r + r2 * q);
}

// e^r 2^n for an integer n in [-1100, 1100] (a double): the power of two applied in two halves, so
// that an overflowing result is +inf and a subnormal one is rounded once
OSC_FAST_INLINE double osc_fast_scale(double e, double n) {
    double half = (n * 0.5 + 0x1.8p52) - 0x1.8p52; // n / 2 rounded to an integer
    int64_t n1 = osc_fast_integer(half), n2 = osc_fast_integer(n - half);
    return e * osc_fast_power_of_two(n1) * osc_fast_power_of_two(n2);
}

/// 2^x (within 2 ulp).
OSC_FAST_INLINE double osc_fast_exp2(double x) {
    double c = osc_fast_select(x < -1100.0, -1100.0, osc_fast_select(x > 1100.0, 1100.0, x)); // NaN stays NaN
    double n = (c + 0x1.8p52) - 0x1.8p52;                           // round to nearest
    double r = (c - n) * 0x1.62e42fefa39efp-1;                      // (x - n) ln 2, |r| <= 0.347
    return osc_fast_scale(osc_fast_exp_reduced(r), n);
}

/// e^x (within 2 ulp).
OSC_FAST_INLINE double osc_fast_exp(double x) {
    double c = osc_fast_select(x < -760.0, -760.0, osc_fast_select(x > 760.0, 760.0, x));
    double n = (c * 0x1.71547652b82fep0 + 0x1.8p52) - 0x1.8p52;
    // Cody and Waite: ln 2 = hi + lo with hi's last 11 bits zero, so n hi is exact for |n| < 2^11
    double r = (c - n * 0x1.62e42fefa3800p-1) - n * 0x1.ef35793c7673p-45;
    return osc_fast_scale(osc_fast_exp_reduced(r), n);
}

// For a positive finite x: x = 2^k m with m in [sqrt(1/2), sqrt(2)) and k an integer (written to
// *k as a double; subnormal x is scaled by 2^52 first), f = m - 1 (exact) to *f, and the correction
// c with log(m) = f - c. As in fdlibm: with s = f / (2 + f), log(1 + f) = 2 atanh(s) = 2 s + s R,
// R = sum_j 2 s^2j / (2j + 1) (here to s^22: truncation below 1e-18 relative, |s| <= 0.1716), and
// 2 s = f - s f, so c = h - s (h + R) with h = f^2 / 2: the exact f leads and c is small beside it.
OSC_FAST_INLINE double osc_fast_log_parts(double x, double* k, double* f_out) {
    int subnormal = x < 0x1p-1022;
    double y = osc_fast_select(subnormal, x * 0x1p52, x);
    uint64_t bits = osc_fast_bits(y);
    // the exponent relative to sqrt(1/2)'s, biased by 2^62 so that the shift is a logical one
    uint64_t shifted = (bits - 0x3fe6a09e667f3bcdull + (1ull << 62)) >> 52; // k + 1024
    double m = osc_fast_double(bits - (shifted << 52) + (1024ull << 52));
    *k = osc_fast_double(shifted | 0x4330000000000000ull) - (0x1p52 + 1024.0) - osc_fast_select(subnormal, 52.0, 0.0);
    double f = m - 1.0, s = f / (2.0 + f), s2 = s * s;
    // R / s2 = sum_j 2 s^(2j - 2) / (2j + 1), j = 1 .. 11, by Estrin's scheme in z = s2
    double z = s2, z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
    double a0 = 2.0 / 3.0 + z * (2.0 / 5.0), a1 = 2.0 / 7.0 + z * (2.0 / 9.0), a2 = 2.0 / 11.0 + z * (2.0 / 13.0);
    double a3 = 2.0 / 15.0 + z * (2.0 / 17.0), a4 = 2.0 / 19.0 + z * (2.0 / 21.0);
    double b0 = a0 + z2 * a1, b1 = a2 + z2 * a3, b2 = a4 + z2 * (2.0 / 23.0);
    double p = (b0 + z4 * b1) + z8 * b2;
    double h = 0.5 * f * f;
    *f_out = f;
    return h - s * (h + s2 * p);
}

// the value of log or log2 at 0, +inf, negative numbers and NaN; `regular` elsewhere
OSC_FAST_INLINE double osc_fast_log_special(double x, double regular) {
    double special =
        osc_fast_select(x == 0.0, -(double)INFINITY, osc_fast_select(x == (double)INFINITY, x, (double)NAN));
    return osc_fast_select((x > 0.0) & (x < (double)INFINITY), regular, special);
}

/// The natural logarithm (within 2 ulp); -inf at 0, NaN below.
OSC_FAST_INLINE double osc_fast_log(double x) {
    double k, f;
    double c = osc_fast_log_parts(x, &k, &f);
    // k ln2_hi is exact (|k| < 1100); the small terms are summed first
    double r = k * 0x1.62e42fefa3800p-1 + (f - (c - k * 0x1.ef35793c7673p-45));
    return osc_fast_log_special(x, r);
}

/// log2(x) (within 2 ulp); -inf at 0, NaN below.
OSC_FAST_INLINE double osc_fast_log2(double x) {
    double k, f;
    double c = osc_fast_log_parts(x, &k, &f);
    // log2(m) = (f - c) / ln 2 with 1 / ln 2 = h + l: f h leads, rounded once
    const double h = 0x1.71547652b82fep0, l = 0x1.777d0ffda0d24p-56;
    double r = k + (f * h + (f * l - c * h));
    return osc_fast_log_special(x, r);
}

/// x^y for x >= 0 as 2^(y log2 x): 0^y = 0 for y > 0, x^0 = 1 for finite x > 0 (error: see above).
OSC_FAST_INLINE double osc_fast_pow(double x, double y) { return osc_fast_exp2(y * osc_fast_log2(x)); }

#endif // OSC_FAST_MATH_H
