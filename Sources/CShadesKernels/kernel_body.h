// The kernels' bodies, included once per instruction set by kernels_*.c with KERNEL(name) defined to give
// each variant its own names. Written with clang's vector extensions so every variant runs the same IEEE
// operations in the same order as the Swift reference they replaced (`fma` where the algorithm says
// fused; the file forbids contraction elsewhere), which keeps the output bits identical across variants.
#pragma clang fp contract(off)
// Vector arguments of inlined helpers: the ABI note does not apply (nothing crosses a call).
#pragma clang diagnostic ignored "-Wpsabi"

#include <string.h>
#include "CShadesKernels.h"

#include "kernel_types.h"

static inline __attribute__((always_inline)) f8 load8(const float *p) { f8 v; memcpy(&v, p, sizeof v); return v; }
static inline __attribute__((always_inline)) void store8(float *p, f8 v) { memcpy(p, &v, sizeof v); }
static inline __attribute__((always_inline)) f8 splat8(float x) { return (f8)x; }
static inline __attribute__((always_inline)) f16 load16(const float *p) { f16 v; memcpy(&v, p, sizeof v); return v; }
static inline __attribute__((always_inline)) void store16(float *p, f16 v) { memcpy(p, &v, sizeof v); }
/// Swift's `SIMD8<Float>.sum()`: lane 0 to 7 in order, from −0.
static inline __attribute__((always_inline)) float lane_sum(f8 x) {
    float sum = -0.0f;
    for (int lane = 0; lane < 8; lane++) sum += x[lane];
    return sum;
}
/// Two 8-lane vectors side by side.
static inline __attribute__((always_inline)) u32x16 join(u8 low, u8 high) {
    return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

// `fused(a, b, c)`: a·b + c rounded once, at 8 and 16 lanes.
#include "kernel_fused.h"
/// a·b + c, rounded once.
static inline __attribute__((always_inline)) f8 fma8(f8 a, f8 b, f8 c) { return fused(a, b, c); }

// The generators' and the quantiser's lane arithmetic, for 8 and for 16 lanes.
#define LANE_F f8
#define LANE_U u8
#define LANE_I i8
#include "kernel_lanes.h"
#define LANE_F f16
#define LANE_U u32x16
#define LANE_I i32x16
#include "kernel_lanes.h"

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

/// Box–Muller: each pair of random words gives a radius and a point on the unit circle (two samples).
static void KERNEL(white_gaussian)(float *output, size_t count, shades_lane_random *random) {
    u8 s[4];
    random_load(random, s);
    size_t i = 0;
#if SHADES_SIXTEEN_LANES
    // Two steps of the loop below at once, their arithmetic in the halves of 16-lane vectors.
    for (; i + 32 <= count; i += 32) {
        u8 radiusWords = random_next(s), angleWords = random_next(s);
        u8 nextRadiusWords = random_next(s), nextAngleWords = random_next(s);
        f16 radius = gaussian_radius(join(radiusWords, nextRadiusWords));
        f16 x, y;
        phasors(join(angleWords, nextAngleWords), &x, &y);
        f16 first = radius * x, second = radius * y;
        store8(output + i, first.lo);
        store8(output + i + 8, second.lo);
        store8(output + i + 16, first.hi);
        store8(output + i + 24, second.hi);
    }
#endif
    for (; i + 16 <= count; i += 16) {
        f8 radius = gaussian_radius(random_next(s));
        f8 x, y;
        phasors(random_next(s), &x, &y);
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
        f8 u = as_float((random_next(s) >> 9) | 0x40000000u) - (3.0f - 0.5f / 4194304);
        store8(output + i, u * 1.7320508f);
    }
    random_store(random, s);
}

static void KERNEL(replace_block_means)(float *samples, size_t count, size_t block, const float *unit_sums) {
    const float inverse = 1.0f / (float)block;  // exact: a power of two
    const float sum_to_mean = 1.0f / __builtin_sqrtf((float)block);
    for (size_t b = 0; b < count / block; b++) {
        float *x = samples + b * block;
        f8 lanes = splat8(0);
        for (size_t j = 0; j < block; j += 8) lanes = lanes + load8(x + j);
        f8 four = __builtin_shufflevector(lanes, lanes, 0, 1, 2, 3, 0, 1, 2, 3)
                  + __builtin_shufflevector(lanes, lanes, 4, 5, 6, 7, 4, 5, 6, 7);
        float sum = (four[0] + four[2]) + (four[1] + four[3]);
        f8 shift = splat8(unit_sums[b] * sum_to_mean - sum * inverse);
        for (size_t j = 0; j < block; j += 8) store8(x + j, load8(x + j) + shift);
    }
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
/// sum (the same bits): blocks of up to 1,024 samples, each group of 8 squared into one of two alternating
/// 8-lane Float partial sums (the even groups of the block in lanes 0–7 of `partials`, the odd ones in
/// lanes 8–15: a pair of groups is one 16-lane multiply-add), each block's sum added in Double; the peak
/// kept as bits (for non-negative floats the integer order is the float order); samples past the last
/// group of 8 in Double.
typedef struct {
    double total;
    i32x16 peakBits;
    f16 partials;
} square_sum;

static inline __attribute__((always_inline)) void square_sum_start_block(square_sum *m) { m->partials = (f16)0; }
/// A pair of groups: the first at an even position in the block.
static inline __attribute__((always_inline)) void square_sum_add16(square_sum *m, f16 x) {
    m->partials = fused(x, x, m->partials);
    m->peakBits = __builtin_elementwise_max(m->peakBits, magnitude_bits(x));
}
/// A block's last group when the block has an odd number of them (an even position).
static inline __attribute__((always_inline)) void square_sum_add8(square_sum *m, f8 x) {
    m->partials.lo = fma8(x, x, m->partials.lo);
    m->peakBits.lo = __builtin_elementwise_max(m->peakBits.lo, magnitude_bits(x));
}
static inline __attribute__((always_inline)) void square_sum_end_block(square_sum *m) {
    m->total += (double)lane_sum(m->partials.lo + m->partials.hi);
}
/// Adds the `count` samples of `tail` (fewer than 8) and gives the totals.
static inline __attribute__((always_inline)) void square_sum_finish(square_sum *m, const float *tail, size_t count,
                                                                    double *sum_of_squares, float *peak) {
    // Each lane's even and odd groups first, as bits (a NaN hides the rest of its lane, as it always has).
    i8 lanes = __builtin_elementwise_max(m->peakBits.lo, m->peakBits.hi);
    float largest = 0;
    for (int lane = 0; lane < 8; lane++) {
        float value = __builtin_bit_cast(float, (uint32_t)lanes[lane]);
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

typedef int16_t i16x8 __attribute__((ext_vector_type(8)));
typedef int16_t i16x16 __attribute__((ext_vector_type(16)));
typedef uint16_t u16x16 __attribute__((ext_vector_type(16)));

/// Rounded values clamped to 16 bits and narrowed: one saturating pack (packssdw, sqxtn).
static inline __attribute__((always_inline)) i16x8 clamp_to_16_bits8(i8 x) {
    return __builtin_convertvector(__builtin_elementwise_min(__builtin_elementwise_max(x, (i8)-32768), (i8)32767), i16x8);
}
static inline __attribute__((always_inline)) i16x16 clamp_to_16_bits16(i32x16 x) {
    return __builtin_convertvector(
        __builtin_elementwise_min(__builtin_elementwise_max(x, (i32x16)-32768), (i32x16)32767), i16x16);
}

/// Σx² (exact) and the largest |x| of the 16-bit values written. Neighbouring values' squares are summed in
/// pairs (pmaddwd: at most 2³¹, exact in 32 unsigned bits), each pair added as its high and low 16 bits to
/// 32-bit lanes: no lane overflows within `value_sums_fold_samples`; `value_sums_fold` then moves them into
/// the 64-bit total. The largest |x| is kept as 16 unsigned bits (|−32768| = 32768 fits).
typedef struct {
    u8 high, low;
    u16x16 largest;
    uint64_t total;
} value_sums;

/// Samples between folds: at most 4,096 adds per lane, so high < 2²⁷ and low < 2²⁸.
static const size_t value_sums_fold_samples = 65536;

static inline __attribute__((always_inline)) void value_sums_add16(value_sums *m, i16x16 values) {
    i32x16 wide = __builtin_convertvector(values, i32x16);
    u32x16 squares = (u32x16)(wide * wide);
    u8 pairs = __builtin_shufflevector(squares, squares, 0, 2, 4, 6, 8, 10, 12, 14)
               + __builtin_shufflevector(squares, squares, 1, 3, 5, 7, 9, 11, 13, 15);
    m->high += pairs >> 16;
    m->low += pairs & 0xFFFFu;
    m->largest = __builtin_elementwise_max(m->largest, (u16x16)__builtin_elementwise_abs(values));
}

static inline __attribute__((always_inline)) void value_sums_fold(value_sums *m) {
    uint64_t high = 0, low = 0;
    for (int lane = 0; lane < 8; lane++) {
        high += m->high[lane];
        low += m->low[lane];
    }
    m->total += (high << 16) + low;
    m->high = (u8)0;
    m->low = (u8)0;
}

/// Eight samples quantised with the next eight dither words, counted and stored.
static inline __attribute__((always_inline)) void quantize8(f8 x, float scale, u8 s[4], value_sums *sums,
                                                           int16_t *output) {
    i16x8 values = clamp_to_16_bits8(round_with_dither(x, splat8(scale), random_next(s)));
    value_sums_add16(sums, __builtin_shufflevector(values, (i16x8)0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    memcpy(output, &values, sizeof values);
}

/// Sixteen samples: the same as two calls of `quantize8`, in 16 lanes.
static inline __attribute__((always_inline)) void quantize16_lanes(f16 x, float scale, u8 s[4], value_sums *sums,
                                                                  int16_t *output) {
    u8 first = random_next(s);
    i16x16 values = clamp_to_16_bits16(round_with_dither(x, (f16)scale, join(first, random_next(s))));
    value_sums_add16(sums, values);
    memcpy(output, &values, sizeof values);
}

static void KERNEL(quantize16)(const float *samples, size_t count, float scale, int16_t *output,
                               shades_lane_random *random, int64_t *sum_of_squares, int32_t *peak,
                               double *input_sum_of_squares, float *input_peak) {
    u8 s[4];
    random_load(random, s);
    value_sums sums = {(u8)0, (u8)0, (u16x16)0, 0};
    size_t whole = count - count % 8, i = 0;
    if (input_sum_of_squares) {
        // The input measured as `sum_of_squares_and_peak` measures it, while the samples are at hand.
        square_sum input = {0};
        while (i < whole) {
            size_t end = whole < i + 1024 ? whole : i + 1024;
            square_sum_start_block(&input);
            for (; i + 16 <= end; i += 16) {
                f16 x = load16(samples + i);
                square_sum_add16(&input, x);
                quantize16_lanes(x, scale, s, &sums, output + i);
            }
            if (i < end) {
                f8 x = load8(samples + i);
                square_sum_add8(&input, x);
                quantize8(x, scale, s, &sums, output + i);
                i += 8;
            }
            square_sum_end_block(&input);
            value_sums_fold(&sums);
        }
        square_sum_finish(&input, samples + whole, count - whole, input_sum_of_squares, input_peak);
    }
    while (i + 16 <= whole) {
        size_t end = whole - i > value_sums_fold_samples ? i + value_sums_fold_samples : whole;
        for (; i + 16 <= end; i += 16) quantize16_lanes(load16(samples + i), scale, s, &sums, output + i);
        value_sums_fold(&sums);
    }
    for (; i < whole; i += 8) quantize8(load8(samples + i), scale, s, &sums, output + i);
    if (i < count) {
        float tail[8] = {0};
        int16_t values[8];
        memcpy(tail, samples + i, (count - i) * sizeof(float));
        // The tail's zeros stay zero (no dither on exact zeros): they add nothing to the sums.
        quantize8(load8(tail), scale, s, &sums, values);
        memcpy(output + i, values, (count - i) * sizeof(int16_t));
    }
    random_store(random, s);
    value_sums_fold(&sums);
    int32_t top = 0;
    for (int lane = 0; lane < 16; lane++) top = sums.largest[lane] > top ? sums.largest[lane] : top;
    *sum_of_squares = (int64_t)sums.total;
    *peak = top;
}

// MARK: - Modulation

typedef double d8 __attribute__((ext_vector_type(8)));

// Eight Doubles per vector: one 512-bit register where the set has them (clang would split them in two).
__attribute__((min_vector_width(512)))
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

static void KERNEL(interleave_stereo16)(const int16_t *left, const int16_t *right, size_t frames, int16_t *output) {
    size_t i = 0;
    for (; i + 16 <= frames; i += 16) {
        i16x16 l, r;
        memcpy(&l, left + i, sizeof l);
        memcpy(&r, right + i, sizeof r);
        i16x16 low = __builtin_shufflevector(l, r, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        i16x16 high = __builtin_shufflevector(l, r, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        memcpy(output + 2 * i, &low, sizeof low);
        memcpy(output + 2 * i + 16, &high, sizeof high);
    }
    for (; i < frames; i++) {
        output[2 * i] = left[i];
        output[2 * i + 1] = right[i];
    }
}

static void KERNEL(interleave_stereo32)(const float *left, const float *right, size_t frames, float *output) {
    size_t i = 0;
    for (; i + 8 <= frames; i += 8) {
        f8 l, r;
        memcpy(&l, left + i, sizeof l);
        memcpy(&r, right + i, sizeof r);
        f8 low = __builtin_shufflevector(l, r, 0, 8, 1, 9, 2, 10, 3, 11);
        f8 high = __builtin_shufflevector(l, r, 4, 12, 5, 13, 6, 14, 7, 15);
        memcpy(output + 2 * i, &low, sizeof low);
        memcpy(output + 2 * i + 8, &high, sizeof high);
    }
    for (; i < frames; i++) {
        output[2 * i] = left[i];
        output[2 * i + 1] = right[i];
    }
}

static void KERNEL(deinterleave_stereo32)(const float *input, size_t frames, float *left, float *right) {
    size_t i = 0;
    for (; i + 8 <= frames; i += 8) {
        f8 a, b;
        memcpy(&a, input + 2 * i, sizeof a);
        memcpy(&b, input + 2 * i + 8, sizeof b);
        f8 l = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        f8 r = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
        memcpy(left + i, &l, sizeof l);
        memcpy(right + i, &r, sizeof r);
    }
    for (; i < frames; i++) {
        left[i] = input[2 * i];
        right[i] = input[2 * i + 1];
    }
}

typedef int16_t i16x8 __attribute__((ext_vector_type(8)));

static void KERNEL(deinterleave_stereo16)(const int16_t *input, size_t frames, float scale, float *left, float *right) {
    size_t i = 0;
    for (; i + 8 <= frames; i += 8) {
        i16x16 v;
        memcpy(&v, input + 2 * i, sizeof v);
        i16x8 l16 = __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14);
        i16x8 r16 = __builtin_shufflevector(v, v, 1, 3, 5, 7, 9, 11, 13, 15);
        f8 l = __builtin_convertvector(l16, f8) * scale, r = __builtin_convertvector(r16, f8) * scale;
        memcpy(left + i, &l, sizeof l);
        memcpy(right + i, &r, sizeof r);
    }
    for (; i < frames; i++) {
        left[i] = (float)input[2 * i] * scale;
        right[i] = (float)input[2 * i + 1] * scale;
    }
}

static void KERNEL(multiply)(float *samples, const float *gains, size_t count) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) store16(samples + i, load16(samples + i) * load16(gains + i));
    for (; i < count; i++) samples[i] *= gains[i];
}

static void KERNEL(scale)(float *samples, size_t count, float gain) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) store16(samples + i, load16(samples + i) * gain);
    for (; i < count; i++) samples[i] *= gain;
}

// MARK: - Level

static void KERNEL(sum_of_squares_and_peak)(const float *samples, size_t count, double *sum_of_squares, float *peak) {
    square_sum sum = {0};
    size_t whole = count - count % 8, i = 0;
    while (i < whole) {
        size_t end = whole < i + 1024 ? whole : i + 1024;
        square_sum_start_block(&sum);
        for (; i + 16 <= end; i += 16) square_sum_add16(&sum, load16(samples + i));
        if (i < end) {
            square_sum_add8(&sum, load8(samples + i));
            i += 8;
        }
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
    .polyphase_complex = KERNEL(polyphase_complex),
    .white_gaussian = KERNEL(white_gaussian),
    .white_uniform = KERNEL(white_uniform),
    .replace_block_means = KERNEL(replace_block_means),
    .unit_phasors = KERNEL(unit_phasors),
    .quantize16 = KERNEL(quantize16),
    .am_gains = KERNEL(am_gains),
    .sum_of_squares_and_peak = KERNEL(sum_of_squares_and_peak),
    .multiply = KERNEL(multiply),
    .scale = KERNEL(scale),
    .interleave_stereo16 = KERNEL(interleave_stereo16),
    .interleave_stereo32 = KERNEL(interleave_stereo32),
    .deinterleave_stereo32 = KERNEL(deinterleave_stereo32),
    .deinterleave_stereo16 = KERNEL(deinterleave_stereo16),

    // MARK: analysis
    .true_peak = KERNEL(true_peak),
    .frame_power = KERNEL(frame_power),
    .ambient_level = KERNEL(ambient_level),
    .level_moments = KERNEL(level_moments),
    .level_moments_pair = KERNEL(level_moments_pair),
};
