// The kernels' fused multiply-add in Float lanes, `fused(a, b, c)` = a·b + c rounded once (part of
// kernel_body.h; also included by Tests/KernelHarness to check it against the hardware instruction).
//
// With SHADES_EMULATED_FMA (the baseline set on x86-64, whose SSE2 has no FMA) it is computed in Double,
// exactly as the instruction would: a·b is exact in Double (24 + 24 significant bits fit in 53, and the
// exponents of two Floats' product fit in Double's range), then the sum is rounded to Double and that to
// Float. Two roundings give the one rounding's result except where the Double sum is inexact and lands on
// a tie of the Float rounding (its low 29 bits 1 followed by 28 zeros), or where the result is below the
// smallest normal Float (the Float rounding falls at a higher bit); those rare lanes are redone with the
// Double sum rounded to odd, after which one rounding to Float is correct (Boldo and Melquiond, "Emulation
// of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57,
// 2008). Exact for every input, signed zeros, subnormals and infinities included; a NaN gives a NaN (its
// payload may be another operand's than the instruction's). libm's fmaf, which this replaces, was a call
// per lane: 11 times as slow as the AVX2 set for pink noise.
// Elsewhere (AVX2, AVX-512, arm64) it is the hardware instruction.

#if SHADES_EMULATED_FMA
typedef double fused_d8 __attribute__((ext_vector_type(8)));
typedef uint64_t fused_u64x8 __attribute__((ext_vector_type(8)));

/// a·b + c rounded once, one lane: the Double sum rounded to odd (TwoSum gives its exact error), then to
/// Float.
static inline float fused_exact(float a, float b, float c) {
    double product = (double)a * (double)b;
    double sum = product + (double)c;
    double cPart = sum - product;
    double error = (product - (sum - cPart)) + ((double)c - cPart);
    if (error != 0 && __builtin_isfinite(error)) {
        uint64_t bits = __builtin_bit_cast(uint64_t, sum);
        // An even last bit after an inexact rounding: the odd neighbour toward the exact sum.
        if ((bits & 1) == 0) bits += (error < 0) == (sum < 0) ? 1 : (uint64_t)-1;
        sum = __builtin_bit_cast(double, bits);
    }
    return (float)sum;
}

/// The lanes of `result` marked in `rare` redone exactly (kept out of line: they are rare).
__attribute__((noinline, cold)) static f8 fused_redo(f8 a, f8 b, f8 c, f8 result, i8 rare) {
    for (int lane = 0; lane < 8; lane++) {
        if (rare[lane]) result[lane] = fused_exact(a[lane], b[lane], c[lane]);
    }
    return result;
}
#endif

/// a·b + c, rounded once.
OVERLOADED f8 fused(f8 a, f8 b, f8 c) {
#if SHADES_EMULATED_FMA
    fused_d8 sum = __builtin_convertvector(a, fused_d8) * __builtin_convertvector(b, fused_d8)
                 + __builtin_convertvector(c, fused_d8);
    f8 result = __builtin_convertvector(sum, f8);
    fused_u64x8 bits = __builtin_bit_cast(fused_u64x8, sum);
    u8 low = __builtin_convertvector(bits, u8), high = __builtin_convertvector(bits >> 32, u8);
    // A tie of the Float rounding, or 0 < |sum| < 2⁻¹²⁶ (biased exponent 1 … 896; a nonzero sum is at
    // least 2⁻²⁹⁸, never a Double subnormal).
    i8 rare = ((low & 0x1FFFFFFFu) == 0x10000000u) | ((high & 0x7FF00000u) - 0x00100000u < 0x38000000u);
    if (__builtin_expect(__builtin_reduce_or(rare) != 0, 0)) result = fused_redo(a, b, c, result, rare);
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
