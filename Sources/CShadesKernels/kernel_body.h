// The kernels' bodies, included once per instruction set by kernels_*.c with KERNEL(name) defined to give
// each variant its own names. Written with clang's vector extensions so every variant runs the same IEEE
// operations in the same order as the Swift reference they replaced (`fma` where the algorithm says
// fused; the file forbids contraction elsewhere), which keeps the output bits identical across variants.
#pragma clang fp contract(off)
// Vector arguments of inlined helpers: the ABI note does not apply (nothing crosses a call).
#pragma clang diagnostic ignored "-Wpsabi"

#include <string.h>
#include "CShadesKernels.h"

typedef float f8 __attribute__((ext_vector_type(8)));
typedef float f16 __attribute__((ext_vector_type(16)));
typedef uint32_t u8 __attribute__((ext_vector_type(8)));
typedef int32_t i8 __attribute__((ext_vector_type(8)));
typedef uint32_t u4 __attribute__((ext_vector_type(4)));

static inline __attribute__((always_inline)) f8 load8(const float *p) { f8 v; memcpy(&v, p, sizeof v); return v; }
static inline __attribute__((always_inline)) void store8(float *p, f8 v) { memcpy(p, &v, sizeof v); }
static inline __attribute__((always_inline)) f8 splat8(float x) { return (f8)x; }
/// a·b + c, rounded once.
static inline __attribute__((always_inline)) f8 fma8(f8 a, f8 b, f8 c) { return __builtin_elementwise_fma(a, b, c); }
/// Swift's `SIMD8<Float>.sum()`: lane 0 to 7 in order, from −0.
static inline __attribute__((always_inline)) float lane_sum(f8 x) {
    float sum = -0.0f;
    for (int lane = 0; lane < 8; lane++) sum += x[lane];
    return sum;
}
static inline __attribute__((always_inline)) f8 bits_to_f8(u8 x) { return __builtin_bit_cast(f8, x); }
static inline __attribute__((always_inline)) u8 f8_to_bits(f8 x) { return __builtin_bit_cast(u8, x); }

// MARK: - Random words

static inline __attribute__((always_inline)) u8 rotl8(u8 x, uint32_t k) { return (x << k) | (x >> (32 - k)); }

static inline __attribute__((always_inline)) void random_load(const shades_lane_random *r, u8 s[4]) {
    for (int w = 0; w < 4; w++) memcpy(&s[w], r->s[w], sizeof s[w]);
}
static inline __attribute__((always_inline)) void random_store(shades_lane_random *r, const u8 s[4]) {
    for (int w = 0; w < 4; w++) memcpy(r->s[w], &s[w], sizeof s[w]);
}

/// xoshiro128** in eight lanes: the next eight words.
static inline __attribute__((always_inline)) u8 random_next(u8 s[4]) {
    u8 result = rotl8(s[1] * 5u, 7) * 9u;
    u8 t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl8(s[3], 11);
    return result;
}

// MARK: - White noise

/// Exact Float of integers below 2²³.
static inline __attribute__((always_inline)) f8 float_of_small(u8 x) { return bits_to_f8(x | 0x4B000000u) - 8388608.0f; }

/// √x for x ≥ 0: bit-hack guess and two Newton steps.
static inline __attribute__((always_inline)) f8 square_root(f8 x) {
    f8 y = bits_to_f8(0x5F3759DFu - (f8_to_bits(x) >> 1));
    f8 half = x * 0.5f;
    for (int k = 0; k < 2; k++) y = y * fma8(-(half * y), y, splat8(1.5f));
    return x * y;
}

/// Natural log for x in (0, 1] (atanh series on [√½, √2)).
static inline __attribute__((always_inline)) f8 log_of_unit_interval(f8 x) {
    const i8 offset = (i8)0x3F3504F3;
    i8 shifted = (i8)(f8_to_bits(x) - (u8)offset);
    f8 exponent = float_of_small((u8)((shifted >> 23) + 0x400000)) - 4194304.0f;
    f8 mantissa = bits_to_f8((u8)((shifted & 0x7FFFFF) + offset));
    f8 t = (mantissa - 1.0f) / (mantissa + 1.0f);
    f8 t2 = t * t;
    f8 series = splat8(1.0f / 9);
    series = fma8(series, t2, splat8(1.0f / 7));
    series = fma8(series, t2, splat8(1.0f / 5));
    series = fma8(series, t2, splat8(1.0f / 3));
    series = fma8(series, t2, splat8(1.0f));
    return fma8(exponent, splat8(0.69314718f), 2.0f * t * series);
}

/// sin and cos for |φ| ≤ π/4 (Taylor to φ⁹ and φ¹⁰).
static inline __attribute__((always_inline)) void sin_cos_small(f8 phi, f8 *sine, f8 *cosine) {
    f8 p2 = phi * phi;
    f8 s = splat8(1.0f / 362880);
    s = fma8(s, p2, splat8(-1.0f / 5040));
    s = fma8(s, p2, splat8(1.0f / 120));
    s = fma8(s, p2, splat8(-1.0f / 6));
    s = fma8(s, p2, splat8(1.0f));
    f8 c = splat8(-1.0f / 3628800);
    c = fma8(c, p2, splat8(1.0f / 40320));
    c = fma8(c, p2, splat8(-1.0f / 720));
    c = fma8(c, p2, splat8(1.0f / 24));
    c = fma8(c, p2, splat8(-0.5f));
    c = fma8(c, p2, splat8(1.0f));
    *sine = phi * s;
    *cosine = c;
}

/// Eight points on the unit circle: the low 2 bits pick a quadrant, the top 23 the angle inside it.
static inline __attribute__((always_inline)) void phasors(u8 words, f8 *x, f8 *y) {
    f8 fraction = fma8(float_of_small(words >> 9), splat8(1.0f / 8388608), splat8(0.5f / 8388608));
    // Swift's Float.pi / 2 (π rounded toward zero), so the angles match the reference bit for bit.
    f8 s, c;
    sin_cos_small((fraction - 0.5f) * 0x1.921fb4p+0f, &s, &c);
    u8 quadrant = words & 3u;
    u8 swap = (u8)0u - (quadrant & 1u);
    u8 cBits = f8_to_bits(c), sBits = f8_to_bits(s);
    u8 xBits = cBits ^ ((cBits ^ sBits) & swap);
    u8 yBits = sBits ^ ((cBits ^ sBits) & swap);
    u8 xSign = ((quadrant + 1u) & 2u) << 30;
    u8 ySign = (quadrant & 2u) << 30;
    *x = bits_to_f8(xBits ^ xSign);
    *y = bits_to_f8(yBits ^ ySign);
}

static void KERNEL(white_gaussian)(float *output, size_t count, shades_lane_random *random) {
    u8 s[4];
    random_load(random, s);
    for (size_t i = 0; i + 16 <= count; i += 16) {
        u8 w1 = random_next(s);
        u8 w2 = random_next(s);
        // u1 in (0, 1) from all 32 bits (two exact 16-bit halves).
        f8 u1 = fma8(float_of_small(w1 >> 16), splat8(1.0f / 65536),
                     (float_of_small(w1 & 0xFFFFu) + 0.5f) * (1.0f / 4294967296.0f));
        f8 radius = square_root(-2.0f * log_of_unit_interval(u1));
        f8 x, y;
        phasors(w2, &x, &y);
        store8(output + i, radius * x);
        store8(output + i + 8, radius * y);
    }
    random_store(random, s);
}

static void KERNEL(white_uniform)(float *output, size_t count, shades_lane_random *random) {
    u8 s[4];
    random_load(random, s);
    for (size_t i = 0; i + 8 <= count; i += 8) {
        // 23 random bits → [2, 4) → centred on 0 → unit variance.
        f8 u = bits_to_f8((random_next(s) >> 9) | 0x40000000u) - (3.0f - 0.5f / 4194304);
        store8(output + i, u * 1.7320508f);
    }
    random_store(random, s);
}

static void KERNEL(unit_phasors)(const uint32_t words[8], float cosines[8], float sines[8]) {
    u8 w;
    memcpy(&w, words, sizeof w);
    f8 x, y;
    phasors(w, &x, &y);
    store8(cosines, x);
    store8(sines, y);
}

// MARK: - Level sums

/// Σx² and the largest |x| of a run of samples, summed as `sum_of_squares_and_peak` and the quantiser both
/// sum (the same bits): blocks of up to 1,024 samples in two alternating 8-lane Float partial sums (so each
/// add waits on the one before last), each block's sum added in Double; the peak kept as bits (for
/// non-negative floats the integer order is the float order); samples past the last group of 8 in Double.
typedef struct {
    double total;
    i8 peakBits;
    f8 partial0, partial1;
    int odd;
} square_sum;

static inline __attribute__((always_inline)) void square_sum_start_block(square_sum *m) {
    m->partial0 = splat8(0);
    m->partial1 = splat8(0);
    m->odd = 0;
}
static inline __attribute__((always_inline)) void square_sum_add8(square_sum *m, f8 x) {
    if (m->odd) m->partial1 = fma8(x, x, m->partial1); else m->partial0 = fma8(x, x, m->partial0);
    m->odd = !m->odd;
    i8 magnitude = (i8)(f8_to_bits(x) & 0x7FFFFFFFu);
    i8 difference = (i8)((u8)m->peakBits - (u8)magnitude);
    m->peakBits = (i8)((u8)m->peakBits - (u8)(difference & (difference >> 31)));
}
static inline __attribute__((always_inline)) void square_sum_end_block(square_sum *m) {
    m->total += (double)lane_sum(m->partial0 + m->partial1);
}
/// Adds the `count` samples of `tail` (fewer than 8) and gives the totals.
static inline __attribute__((always_inline)) void square_sum_finish(square_sum *m, const float *tail, size_t count,
                                                                    double *sum_of_squares, float *peak) {
    float largest = 0;
    for (int lane = 0; lane < 8; lane++) {
        float value = __builtin_bit_cast(float, (uint32_t)m->peakBits[lane]);
        largest = value >= largest ? value : largest;
    }
    double total = m->total;
    for (size_t k = 0; k < count; k++) {
        total += (double)tail[k] * (double)tail[k];
        float value = __builtin_fabsf(tail[k]);
        largest = value >= largest ? value : largest;
    }
    *sum_of_squares = total;
    *peak = largest;
}

// MARK: - Quantiser

/// Eight samples × scale + TPDF dither, rounded and clamped to 16 bits (in 32-bit lanes).
static inline __attribute__((always_inline)) i8 quantize_eight(f8 x, f8 scale, u8 s[4]) {
    u8 words = random_next(s);
    f8 tpdf = (float_of_small(words >> 16) - float_of_small(words & 0xFFFFu)) * (1.0f / 65536);
    // Exact zeros get no dither: all ones where x ≠ 0.
    i8 magnitude = (i8)(f8_to_bits(x) & 0x7FFFFFFFu);
    u8 nonZero = (u8)(((i8)0 - magnitude) >> 31);
    f8 dither = bits_to_f8(f8_to_bits(tpdf) & nonZero);
    // Round to nearest with the 1.5·2²³ trick (exact for |v| < 2²²).
    i8 rounded = (i8)(f8_to_bits(x * scale + dither + 12582912.0f) - 0x4B400000u);
    i8 aboveTop = rounded - 32767;
    i8 belowTop = rounded - (aboveTop & ~(aboveTop >> 31));
    i8 aboveBottom = belowTop + 32768;
    return belowTop - (aboveBottom & (aboveBottom >> 31));
}

/// Eight 16-bit values in 32-bit lanes, packed two to a word.
static inline __attribute__((always_inline)) u4 pack16(i8 values) {
    u8 words = (u8)values;
    return (words.even & 0xFFFFu) | (words.odd << 16);
}

typedef uint64_t u64x4 __attribute__((ext_vector_type(4)));

/// Adds the squares of eight 16-bit values (x² ≤ 2³⁰, so a pair sums in 32 bits unsigned; pairs are summed
/// in 64-bit lanes: exact) and keeps their largest magnitude.
static inline __attribute__((always_inline)) void measure_eight16(i8 values, u64x4 *sums, i8 *largest) {
    u8 squares = (u8)(values * values);
    *sums += __builtin_convertvector(squares.even + squares.odd, u64x4);
    i8 sign = values >> 31;
    i8 difference = ((values ^ sign) - sign) - *largest;
    *largest += difference & ~(difference >> 31);
}

static void KERNEL(quantize16)(const float *samples, size_t count, float scale, int16_t *output,
                               shades_lane_random *random, int64_t *sum_of_squares, int32_t *peak,
                               double *input_sum_of_squares, float *input_peak) {
    u8 s[4];
    random_load(random, s);
    f8 scales = splat8(scale);
    u64x4 sums = (u64x4)0;
    i8 largest = (i8)0;
    size_t whole = count - count % 8, i = 0;
    if (input_sum_of_squares) {
        // The input measured as `sum_of_squares_and_peak` measures it, while the samples are at hand.
        square_sum input = {0};
        while (i < whole) {
            size_t end = whole < i + 1024 ? whole : i + 1024;
            square_sum_start_block(&input);
            for (; i < end; i += 8) {
                f8 x = load8(samples + i);
                square_sum_add8(&input, x);
                i8 values = quantize_eight(x, scales, s);
                measure_eight16(values, &sums, &largest);
                u4 packed = pack16(values);
                memcpy(output + i, &packed, sizeof packed);
            }
            square_sum_end_block(&input);
        }
        square_sum_finish(&input, samples + whole, count - whole, input_sum_of_squares, input_peak);
    }
    for (; i < whole; i += 8) {
        i8 values = quantize_eight(load8(samples + i), scales, s);
        measure_eight16(values, &sums, &largest);
        u4 packed = pack16(values);
        memcpy(output + i, &packed, sizeof packed);
    }
    if (i < count) {
        float tail[8] = {0};
        memcpy(tail, samples + i, (count - i) * sizeof(float));
        i8 values = quantize_eight(load8(tail), scales, s);
        // The tail's zeros stay zero (no dither on exact zeros): they add nothing to the sums.
        measure_eight16(values, &sums, &largest);
        u4 packed = pack16(values);
        int16_t words[8];
        memcpy(words, &packed, sizeof packed);
        memcpy(output + i, words, (count - i) * sizeof(int16_t));
    }
    random_store(random, s);
    int64_t total = 0;
    int32_t top = 0;
    for (int lane = 0; lane < 8; lane++) top = largest[lane] > top ? largest[lane] : top;
    for (int lane = 0; lane < 4; lane++) total += (int64_t)sums[lane];
    *sum_of_squares = total;
    *peak = top;
}

// MARK: - Modulation

typedef double d8 __attribute__((ext_vector_type(8)));

static void KERNEL(am_gains)(const double re0[32], const double im0[32], double c, double s, double offset, double scale,
                             size_t count, float *gains) {
    d8 re[4], im[4];
    memcpy(re, re0, sizeof re);
    memcpy(im, im0, sizeof im);
    d8 cs = (d8)c, sn = (d8)s, offsets = (d8)offset, scales = (d8)scale;
    for (size_t i = 0; i + 8 <= count; i += 8) {
        for (int k = 0; k < 4; k++) {
            store8(gains + k * count + i, __builtin_convertvector(offsets + scales * im[k], f8));
            d8 turned = re[k] * cs - im[k] * sn;
            im[k] = re[k] * sn + im[k] * cs;
            re[k] = turned;
        }
    }
}

// MARK: - Level

static void KERNEL(sum_of_squares_and_peak)(const float *samples, size_t count, double *sum_of_squares, float *peak) {
    square_sum sum = {0};
    size_t whole = count - count % 8, i = 0;
    while (i < whole) {
        size_t end = whole < i + 1024 ? whole : i + 1024;
        square_sum_start_block(&sum);
        for (; i < end; i += 8) square_sum_add8(&sum, load8(samples + i));
        square_sum_end_block(&sum);
    }
    square_sum_finish(&sum, samples + whole, count - whole, sum_of_squares, peak);
}

#include "kernel_filters.h"
#include "kernel_analysis.h"

static const shades_kernels KERNEL(table) = {
    // MARK: filters
    .block_iir_eight = KERNEL(block_iir_eight),
    .block_iir_sixteen = KERNEL(block_iir_sixteen),
    .block_iir_sixteen_wide = KERNEL(block_iir_sixteen_wide),
    .fir_symmetric15 = KERNEL(fir_symmetric15),
    .fir_general = KERNEL(fir_general),
    .partition_sums = KERNEL(partition_sums),
    .dot_products = KERNEL(dot_products),
    .white_gaussian = KERNEL(white_gaussian),
    .white_uniform = KERNEL(white_uniform),
    .unit_phasors = KERNEL(unit_phasors),
    .quantize16 = KERNEL(quantize16),
    .am_gains = KERNEL(am_gains),
    .sum_of_squares_and_peak = KERNEL(sum_of_squares_and_peak),

    // MARK: analysis
    .true_peak = KERNEL(true_peak),
    .frame_power = KERNEL(frame_power),
    .ambient_level = KERNEL(ambient_level),
    .level_moments = KERNEL(level_moments),
    .level_moments_pair = KERNEL(level_moments_pair),
};
