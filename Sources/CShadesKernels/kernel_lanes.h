// Lane arithmetic of the generators and the quantiser (part of kernel_body.h), included twice: with
// LANE_F, LANE_U and LANE_I the 8-lane and then the 16-lane Float, UInt32 and Int32 vectors. The
// functions are overloaded on the width (clang's `overloadable`), and every lane runs the same IEEE
// operations at either width, so a 16-lane call gives the bits of two 8-lane calls.

/// The bits of `x` as Floats, and back.
OVERLOADED LANE_F as_float(LANE_U x) { return __builtin_bit_cast(LANE_F, x); }
OVERLOADED LANE_U as_bits(LANE_F x) { return __builtin_bit_cast(LANE_U, x); }

/// |x| as bits: for non-negative floats the integer order is the float order.
OVERLOADED LANE_I magnitude_bits(LANE_F x) { return (LANE_I)(as_bits(x) & 0x7FFFFFFFu); }

/// Exact Float of integers below 2²³.
OVERLOADED LANE_F float_of_small(LANE_U x) { return as_float(x | 0x4B000000u) - 8388608.0f; }

/// √x for x ≥ 0, correctly rounded: IEEE 754 defines the square root as exactly as an addition, so the
/// instruction (sqrtps, vsqrtps, fsqrt) gives the same bits on every CPU. It replaced a bit-hack guess with
/// two Newton steps in 0.2.0: the Gaussian generator took 18 % less time (AVX-512; 20 % on AVX2).
OVERLOADED LANE_F square_root(LANE_F x) { return __builtin_elementwise_sqrt(x); }

/// Natural log for x in (0, 1] (atanh series on [√½, √2)).
OVERLOADED LANE_F log_of_unit_interval(LANE_F x) {
    const LANE_I offset = (LANE_I)0x3F3504F3;
    LANE_I shifted = (LANE_I)(as_bits(x) - (LANE_U)offset);
    LANE_F exponent = float_of_small((LANE_U)((shifted >> 23) + 0x400000)) - 4194304.0f;
    LANE_F mantissa = as_float((LANE_U)((shifted & 0x7FFFFF) + offset));
    LANE_F t = (mantissa - 1.0f) / (mantissa + 1.0f);
    LANE_F t2 = t * t;
    LANE_F series = (LANE_F)(1.0f / 9);
    series = fused(series, t2, (LANE_F)(1.0f / 7));
    series = fused(series, t2, (LANE_F)(1.0f / 5));
    series = fused(series, t2, (LANE_F)(1.0f / 3));
    series = fused(series, t2, (LANE_F)1.0f);
    return fused(exponent, (LANE_F)0.69314718f, 2.0f * t * series);
}

/// sin and cos for |φ| ≤ π/4 (Taylor to φ⁹ and φ¹⁰).
OVERLOADED void sin_cos_small(LANE_F phi, LANE_F *sine, LANE_F *cosine) {
    LANE_F p2 = phi * phi;
    LANE_F s = (LANE_F)(1.0f / 362880);
    s = fused(s, p2, (LANE_F)(-1.0f / 5040));
    s = fused(s, p2, (LANE_F)(1.0f / 120));
    s = fused(s, p2, (LANE_F)(-1.0f / 6));
    s = fused(s, p2, (LANE_F)1.0f);
    LANE_F c = (LANE_F)(-1.0f / 3628800);
    c = fused(c, p2, (LANE_F)(1.0f / 40320));
    c = fused(c, p2, (LANE_F)(-1.0f / 720));
    c = fused(c, p2, (LANE_F)(1.0f / 24));
    c = fused(c, p2, (LANE_F)(-0.5f));
    c = fused(c, p2, (LANE_F)1.0f);
    *sine = phi * s;
    *cosine = c;
}

/// Points on the unit circle: the low 2 bits of each word pick a quadrant, the top 23 the angle inside it.
OVERLOADED void phasors(LANE_U words, LANE_F *x, LANE_F *y) {
    LANE_F fraction = fused(float_of_small(words >> 9), (LANE_F)(1.0f / 8388608),
                                                (LANE_F)(0.5f / 8388608));
    // Swift's Float.pi / 2 (π rounded toward zero), so the angles match the reference bit for bit.
    LANE_F s, c;
    sin_cos_small((fraction - 0.5f) * 0x1.921fb4p+0f, &s, &c);
    LANE_U quadrant = words & 3u;
    LANE_U swap = (LANE_U)0u - (quadrant & 1u);
    LANE_U cBits = as_bits(c), sBits = as_bits(s);
    LANE_U xBits = cBits ^ ((cBits ^ sBits) & swap);
    LANE_U yBits = sBits ^ ((cBits ^ sBits) & swap);
    LANE_U xSign = ((quadrant + 1u) & 2u) << 30;
    LANE_U ySign = (quadrant & 2u) << 30;
    *x = as_float(xBits ^ xSign);
    *y = as_float(yBits ^ ySign);
}

/// The Box–Muller radius √(−2 ln u), u in (0, 1) from all 32 bits of each word (two exact 16-bit halves).
OVERLOADED LANE_F gaussian_radius(LANE_U words) {
    LANE_F u = fused(float_of_small(words >> 16), (LANE_F)(1.0f / 65536),
                                         (float_of_small(words & 0xFFFFu) + 0.5f) * (1.0f / 4294967296.0f));
    return square_root(-2.0f * log_of_unit_interval(u));
}

/// x × scale + TPDF dither from `words`, rounded to an integer (in 32-bit lanes; exact while |x × scale| <
/// 2²², the clamp to 16 bits is the caller's). Exact zeros get no dither.
OVERLOADED LANE_I round_with_dither(LANE_F x, LANE_F scale, LANE_U words) {
    // The difference of the word's two 16-bit halves, exact as an integer and as a Float.
    LANE_I halves = (LANE_I)(words >> 16) - (LANE_I)(words & 0xFFFFu);
    LANE_F tpdf = __builtin_convertvector(halves, LANE_F) * (1.0f / 65536);
    // All ones where x ≠ 0 (zero for +0 and −0; all ones for a NaN).
    LANE_U nonZero = (LANE_U)(x != 0.0f);
    LANE_F dither = as_float(as_bits(tpdf) & nonZero);
    // Round to nearest with the 1.5·2²³ trick (exact for |v| < 2²²).
    return (LANE_I)(as_bits(x * scale + dither + 12582912.0f) - 0x4B400000u);
}

#undef LANE_F
#undef LANE_U
#undef LANE_I
