// The kernels' fused multiply-add in Float lanes, `fused(a, b, c)` = a·b + c rounded once (part of
// kernel_body.h; also included by Tests/KernelHarness to check it against the hardware instruction).
//
// With SHADES_EMULATED_FMA (the baseline set on x86-64, whose SSE2 has no FMA) it is computed in Double
// lanes, exactly as the instruction would: a·b is exact in Double (24 + 24 significant bits fit in 53, and
// the exponents of two Floats' product fit in Double's range), then the sum is rounded to Double and that
// to Float. The two roundings give the one rounding's result except where the Double sum is inexact and
// lands on a tie of the Float rounding (its low 29 bits a 1 and 28 zeros), or where the result is below the
// smallest normal Float (the Float rounding falls at a higher bit). Where a lane may be one of those, the
// eight lanes are redone with the Double sum rounded to odd, after which one rounding to Float is correct
// (S. Boldo and G. Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
// to odd", IEEE Transactions on Computers 57(4), 2008). Exact for every input, signed zeros, subnormals and
// infinities included; a NaN gives a NaN (its payload may be another operand's than the instruction's).
// libm's fmaf is a call per lane instead (pink noise took 25 times as long as with AVX2 that way).
// Elsewhere (AVX2, AVX-512, arm64) it is the hardware instruction.

#if SHADES_EMULATED_FMA
#include <emmintrin.h>

/// The Double sums a·b + c of four Float lanes, two per vector.
typedef struct {
    __m128d low, high;
} fused_sums;

static inline __attribute__((always_inline)) fused_sums fused_sum4(__m128 a, __m128 b, __m128 c, fused_sums *products) {
    products->low = _mm_mul_pd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
    products->high = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), _mm_cvtps_pd(_mm_movehl_ps(b, b)));
    return (fused_sums){_mm_add_pd(products->low, _mm_cvtps_pd(c)),
                        _mm_add_pd(products->high, _mm_cvtps_pd(_mm_movehl_ps(c, c)))};
}

/// All ones in the lanes whose two roundings may differ from one: a tie of the Float rounding (low 29 bits
/// 1 and 28 zeros), or 0 < |sum| < 2⁻¹²⁶ (biased exponent 1 … 896; a nonzero sum is at least 2⁻²⁹⁸, never
/// a Double subnormal).
static inline __attribute__((always_inline)) __m128i fused_doubtful(fused_sums s) {
    __m128i low = _mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(s.low), _mm_castpd_ps(s.high), 0x88));
    __m128i high = _mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(s.low), _mm_castpd_ps(s.high), 0xDD));
    __m128i tie = _mm_cmpeq_epi32(_mm_slli_epi32(low, 3), _mm_set1_epi32((int)0x80000000u));
    // (exponent bits + 0x7FF00000) mod 2³²: below 0xB8000000 as signed exactly for biased exponents 1 … 896.
    __m128i exponent = _mm_add_epi32(_mm_and_si128(high, _mm_set1_epi32(0x7FF00000)), _mm_set1_epi32(0x7FF00000));
    __m128i tiny = _mm_cmpgt_epi32(_mm_set1_epi32((int)0xB8000000u), exponent);
    return _mm_or_si128(tie, tiny);
}

/// The Double sum `s` = product + c rounded to odd instead of to nearest: when inexact (TwoSum gives the
/// exact error) and even, its neighbour toward the exact sum.
static inline __attribute__((always_inline)) __m128d fused_round_to_odd(__m128d product, __m128d c, __m128d s) {
    __m128d cPart = _mm_sub_pd(s, product);
    __m128d error = _mm_add_pd(_mm_sub_pd(product, _mm_sub_pd(s, cPart)), _mm_sub_pd(c, cPart));
    // Inexact: the error is nonzero and not NaN (infinite operands).
    __m128d magnitude = _mm_and_pd(error, _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFLL)));
    __m128i inexact = _mm_castpd_si128(_mm_cmplt_pd(_mm_setzero_pd(), magnitude));
    __m128i bits = _mm_castpd_si128(s);
    __m128i even = _mm_shuffle_epi32(_mm_cmpeq_epi32(_mm_and_si128(bits, _mm_set1_epi64x(1)), _mm_setzero_si128()), 0xA0);
    // +1 toward a larger magnitude (the error has the sum's sign), −1 toward a smaller one.
    __m128i opposite = _mm_srli_epi64(_mm_xor_si128(_mm_castpd_si128(error), bits), 63);
    __m128i step = _mm_sub_epi64(_mm_set1_epi64x(1), _mm_add_epi64(opposite, opposite));
    return _mm_castsi128_pd(_mm_add_epi64(bits, _mm_and_si128(step, _mm_and_si128(inexact, even))));
}

static inline __attribute__((always_inline)) __m128 fused_to_float(fused_sums s) {
    return _mm_movelh_ps(_mm_cvtpd_ps(s.low), _mm_cvtpd_ps(s.high));
}

/// a·b + c rounded once, every lane through the sum rounded to odd (what `fused` does to doubtful lanes).
static inline __attribute__((always_inline)) __m128 fused_exact4(__m128 a, __m128 b, __m128 c) {
    fused_sums products, s = fused_sum4(a, b, c, &products);
    s.low = fused_round_to_odd(products.low, _mm_cvtps_pd(c), s.low);
    s.high = fused_round_to_odd(products.high, _mm_cvtps_pd(_mm_movehl_ps(c, c)), s.high);
    return fused_to_float(s);
}
#endif

/// a·b + c, rounded once.
OVERLOADED f8 fused(f8 a, f8 b, f8 c) {
#if SHADES_EMULATED_FMA
    __m128 a0 = (__m128)a.lo, a1 = (__m128)a.hi, b0 = (__m128)b.lo, b1 = (__m128)b.hi;
    __m128 c0 = (__m128)c.lo, c1 = (__m128)c.hi;
    fused_sums p0, p1, s0 = fused_sum4(a0, b0, c0, &p0), s1 = fused_sum4(a1, b1, c1, &p1);
    f8 result;
    result.lo = (typeof(result.lo))fused_to_float(s0);
    result.hi = (typeof(result.hi))fused_to_float(s1);
    if (__builtin_expect(_mm_movemask_epi8(_mm_or_si128(fused_doubtful(s0), fused_doubtful(s1))) != 0, 0)) {
        result.lo = (typeof(result.lo))fused_exact4(a0, b0, c0);
        result.hi = (typeof(result.hi))fused_exact4(a1, b1, c1);
    }
    return result;
#else
    return __builtin_elementwise_fma(a, b, c);
#endif
}

OVERLOADED f16 fused(f16 a, f16 b, f16 c) {
#if SHADES_EMULATED_FMA
    f16 result;
    result.lo = fused(a.lo, b.lo, c.lo);
    result.hi = fused(a.hi, b.hi, c.hi);
    return result;
#else
    return __builtin_elementwise_fma(a, b, c);
#endif
}
