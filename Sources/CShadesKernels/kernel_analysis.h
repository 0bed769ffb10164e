// The analysis kernels (part of kernel_body.h, included once per instruction set).
//
// Each is the whole hot loop of a Swift accumulator (true peak, Welch frame power, A-weighted ambient
// level, level statistics): the Swift side lends its state and makes one call per block.

typedef double analysis_d2 __attribute__((ext_vector_type(2)));
typedef int64_t analysis_l2 __attribute__((ext_vector_type(2)));

/// The largest lane of non-negative Int32 values.
static inline __attribute__((always_inline)) int32_t analysis_max_lane(i8 x) {
    int32_t largest = x[0];
    for (int lane = 1; lane < 8; lane++) largest = x[lane] > largest ? x[lane] : largest;
    return largest;
}

// MARK: - True peak

/// Keeps the larger magnitudes of `y` in `peak`; lanes outside `valid` (padding beyond the block) are
/// not samples and count as zero.
static inline __attribute__((always_inline)) i8 true_peak_keep_larger(i8 peak, f8 y, i8 valid) {
    return __builtin_elementwise_max(peak, magnitude_bits(y) & valid);
}

/// The oversampled outputs belonging to inputs j … j + 7 (newest input at work[keep + j]), and those
/// inputs themselves, kept in `peak`. `factor` is a constant where inlined, so the phases unroll.
static inline __attribute__((always_inline)) i8 true_peak_outputs(const float *work, size_t keep, size_t j,
                                                                  const float *taps, size_t length, size_t factor,
                                                                  i8 peak, i8 valid) {
    const float *newest = work + keep + j;
    if (factor == 4) {
        // Every phase shares the loads.
        f8 y0 = splat8(0), y1 = splat8(0), y2 = splat8(0), y3 = splat8(0);
        for (size_t t = 0; t < length; t++) {
            f8 x = load8(newest - t);
            y0 = fma8(splat8(taps[t]), x, y0);
            y1 = fma8(splat8(taps[length + t]), x, y1);
            y2 = fma8(splat8(taps[2 * length + t]), x, y2);
            y3 = fma8(splat8(taps[3 * length + t]), x, y3);
        }
        peak = true_peak_keep_larger(peak, y0, valid);
        peak = true_peak_keep_larger(peak, y1, valid);
        peak = true_peak_keep_larger(peak, y2, valid);
        peak = true_peak_keep_larger(peak, y3, valid);
    } else {
        for (size_t p = 0; p < factor; p++) {
            f8 y = splat8(0);
            for (size_t t = 0; t < length; t++) y = fma8(splat8(taps[p * length + t]), load8(newest - t), y);
            peak = true_peak_keep_larger(peak, y, valid);
        }
    }
    // The input samples themselves (libebur128 reports the larger of true and sample peak).
    return true_peak_keep_larger(peak, load8(newest), valid);
}

static inline __attribute__((always_inline)) void true_peak_run(const float *work, size_t count, size_t keep,
                                                                const float *taps, size_t length, size_t factor,
                                                                float bound, int32_t peak_bits[8]) {
    const size_t segment = 64;
    size_t padded = (count + 7) / 8 * 8;
    i8 peak;
    memcpy(&peak, peak_bits, sizeof peak);
    float peakSoFar = __builtin_bit_cast(float, analysis_max_lane(peak));
    const i8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    const i8 all = (i8)-1;
    for (size_t start = 0; start < padded;) {
        size_t end = start + segment < padded ? start + segment : padded;
        // Outputs start ..< end read inputs start − keep ..< end (work[start ..< keep + end]); no output can
        // exceed `bound` times their largest magnitude. Skip when that cannot beat the peak.
        i8 largest = (i8)0;
        size_t last = keep + end - 8;
        for (size_t i = start;; i += 8) {
            size_t at = i < last ? i : last;
            largest = __builtin_elementwise_max(largest, magnitude_bits(load8(work + at)));
            if (at == last) break;
        }
        int32_t inputPeak = analysis_max_lane(largest);
        // A NaN or infinity (bits ≥ 0x7F80_0000) is always interpolated.
        if (inputPeak < 0x7F800000 && !(__builtin_bit_cast(float, inputPeak) * bound > peakSoFar)) {
            start = end;
            continue;
        }
        for (size_t j = start; j < end; j += 8) {
            // Lanes beyond the block (padding) are not samples: mask them out.
            i8 valid = j + 8 > count ? lanes < (i8)(int32_t)(count - j) : all;
            peak = true_peak_outputs(work, keep, j, taps, length, factor, peak, valid);
        }
        peakSoFar = __builtin_bit_cast(float, analysis_max_lane(peak));
        start = end;
    }
    memcpy(peak_bits, &peak, sizeof peak);
}

static void KERNEL(true_peak)(const float *work, size_t count, size_t keep, const float *taps, size_t length,
                              size_t factor, float bound, int32_t peak_bits[8]) {
    switch (factor) {
    case 4: true_peak_run(work, count, keep, taps, length, 4, bound, peak_bits); break;
    case 2: true_peak_run(work, count, keep, taps, length, 2, bound, peak_bits); break;
    case 1: true_peak_run(work, count, keep, taps, length, 1, bound, peak_bits); break;
    default: true_peak_run(work, count, keep, taps, length, factor, bound, peak_bits); break;
    }
}

// MARK: - Frame power

static void KERNEL(frame_power)(const float *padded, size_t groups, float *sums) {
    for (size_t g = 0; g < groups; g++) {
        const float *bins = padded + 8 * g;
        // Periodic Hann as a 3-tap convolution of the bins: X_w[k] = ½·X[k] − ¼·(X[k−1] + X[k+1]), where a
        // bin is two Floats (re, im).
        f8 windowed = 0.5f * load8(bins + 2) - 0.25f * (load8(bins) + load8(bins + 4));
        store8(sums + 8 * g, fma8(windowed, windowed, load8(sums + 8 * g)));
    }
}

// MARK: - A-weighted ambient level

static inline __attribute__((always_inline)) analysis_d2 ambient_load(const double *p) {
    analysis_d2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline __attribute__((always_inline)) void ambient_store(double *p, analysis_d2 v) { memcpy(p, &v, sizeof v); }
/// a·b + c, rounded once.
static inline __attribute__((always_inline)) analysis_d2 ambient_fma(analysis_d2 a, analysis_d2 b, analysis_d2 c) {
    return __builtin_elementwise_fma(a, b, c);
}
/// `x` with lanes where `mask` is set replaced by `y`.
static inline __attribute__((always_inline)) analysis_d2 ambient_select(analysis_l2 mask, analysis_d2 y, analysis_d2 x) {
    analysis_l2 xBits = __builtin_bit_cast(analysis_l2, x), yBits = __builtin_bit_cast(analysis_l2, y);
    return __builtin_bit_cast(analysis_d2, (yBits & mask) | (xBits & ~mask));
}
/// Silence decays the states towards subnormal numbers, which are slow: set tiny ones to zero (their effect
/// on any level is below 10⁻³⁰⁰).
static inline __attribute__((always_inline)) analysis_d2 ambient_flush(analysis_d2 s) {
    return ambient_select((s < 1e-200) & (s > -1e-200), (analysis_d2)0.0, s);
}

static void KERNEL(ambient_level)(const float *left, const float *right, size_t frames, const double coefficients[17],
                                  double state[18]) {
    // Coefficients as lanes; the recursions are written as fused multiply-adds so each loop-carried path is
    // one FMA per section (y → next state → next y), the F weighting one FMA.
    analysis_d2 b0[3], b1[3], b2[3], na1[3], na2[3];
    for (int s = 0; s < 3; s++) {
        b0[s] = (analysis_d2)coefficients[5 * s];
        b1[s] = (analysis_d2)coefficients[5 * s + 1];
        b2[s] = (analysis_d2)coefficients[5 * s + 2];
        na1[s] = (analysis_d2)coefficients[5 * s + 3];
        na2[s] = (analysis_d2)coefficients[5 * s + 4];
    }
    analysis_d2 alpha = (analysis_d2)coefficients[15], keep = (analysis_d2)coefficients[16];
    analysis_d2 u0 = ambient_load(state), u1 = ambient_load(state + 2), v0 = ambient_load(state + 4),
                v1 = ambient_load(state + 6), w0 = ambient_load(state + 8), w1 = ambient_load(state + 10);
    analysis_d2 f = ambient_load(state + 12), fMax = ambient_load(state + 14), sum = ambient_load(state + 16);
    for (size_t start = 0; start < frames;) {
        size_t end = frames < start + 4096 ? frames : start + 4096;
        for (size_t i = start; i < end; i++) {
            analysis_d2 x = {(double)left[i], (double)right[i]};
            // Three sections in direct form II transposed.
            analysis_d2 y0 = ambient_fma(b0[0], x, u0);
            u0 = ambient_fma(na1[0], y0, ambient_fma(b1[0], x, u1));
            u1 = ambient_fma(na2[0], y0, b2[0] * x);
            analysis_d2 y1 = ambient_fma(b0[1], y0, v0);
            v0 = ambient_fma(na1[1], y1, ambient_fma(b1[1], y0, v1));
            v1 = ambient_fma(na2[1], y1, b2[1] * y0);
            analysis_d2 y2 = ambient_fma(b0[2], y1, w0);
            w0 = ambient_fma(na1[2], y2, ambient_fma(b1[2], y1, w1));
            w1 = ambient_fma(na2[2], y2, b2[2] * y1);
            // Σx², and the F weighting: an exponential average of x², and its largest value.
            analysis_d2 e = y2 * y2;
            sum = sum + e;
            f = ambient_fma(keep, f, alpha * e);
            fMax = ambient_select(f > fMax, f, fMax);
        }
        u0 = ambient_flush(u0); u1 = ambient_flush(u1); v0 = ambient_flush(v0); v1 = ambient_flush(v1);
        w0 = ambient_flush(w0); w1 = ambient_flush(w1); f = ambient_flush(f);
        start = end;
    }
    ambient_store(state, u0); ambient_store(state + 2, u1); ambient_store(state + 4, v0);
    ambient_store(state + 6, v1); ambient_store(state + 8, w0); ambient_store(state + 10, w1);
    ambient_store(state + 12, f); ambient_store(state + 14, fMax); ambient_store(state + 16, sum);
}

// MARK: - Level statistics

/// Lane state of one channel within a chunk of at most 1,024 samples.
typedef struct {
    f8 sum;
    f8 squares;
    i8 peak;     // |x| as bits
    i8 clipped;  // samples with |x| ≥ the threshold
} level_lanes;

static inline __attribute__((always_inline)) void level_add(level_lanes *l, f8 x, i8 clipBits) {
    l->sum = l->sum + x;
    l->squares = fma8(x, x, l->squares);
    i8 magnitude = magnitude_bits(x);
    l->peak = __builtin_elementwise_max(l->peak, magnitude);
    l->clipped = l->clipped - (magnitude >= clipBits);  // a true comparison is −1
}

/// Adds the lanes into the Double sums (sums[0] = Σx, sums[1] = Σx²) and the count, and clears them (the
/// peak is kept).
static inline __attribute__((always_inline)) void level_flush(level_lanes *l, double sums[2], int64_t *clipped) {
    sums[0] += (double)lane_sum(l->sum);
    sums[1] += (double)lane_sum(l->squares);
    int64_t count = 0;
    for (int lane = 0; lane < 8; lane++) count += l->clipped[lane];
    *clipped += count;
    l->sum = splat8(0);
    l->squares = splat8(0);
    l->clipped = (i8)0;
}

/// The largest lane of the peak, as Swift's `max(p, lane)` from 0 (a NaN lane is passed over).
static inline __attribute__((always_inline)) float level_peak(const level_lanes *l) {
    float p = 0;
    for (int lane = 0; lane < 8; lane++) {
        // (The element is copied first: clang 21 bit-casts a vector element lvalue from lane 0 whatever the index.)
        int32_t bits = l->peak[lane];
        float value = __builtin_bit_cast(float, bits);
        p = value >= p ? value : p;
    }
    return p;
}

static inline __attribute__((always_inline)) void level_add_scalar(float x, float clip, double sums[2], float *peak,
                                                                   int64_t *clipped) {
    sums[0] += (double)x;
    sums[1] += (double)x * (double)x;
    float magnitude = __builtin_fabsf(x);
    *peak = magnitude >= *peak ? magnitude : *peak;
    if (magnitude >= clip) *clipped += 1;
}

/// One channel, or with `pair` two and Σa·b: sums = Σa, Σa², [Σb, Σb², Σab]. `pair` is a constant where
/// inlined.
static inline __attribute__((always_inline)) void level_run(const float *a, const float *b, int pair, size_t count,
                                                            float clip, double *sums, float *peaks, int64_t *clipped) {
    const size_t chunk = 1024;
    const i8 clipBits = (i8)__builtin_bit_cast(int32_t, clip);
    level_lanes lanesA = {splat8(0), splat8(0), (i8)0, (i8)0}, lanesB = lanesA;
    double cross = 0;
    for (int k = 0; k < (pair ? 4 : 2); k++) sums[k] = 0;
    for (int k = 0; k < (pair ? 2 : 1); k++) clipped[k] = 0;
    size_t i = 0;
    while (i + 8 <= count) {
        size_t whole = count - (count - i) % 8, end = whole < i + chunk ? whole : i + chunk;
        f8 products = splat8(0);
        for (; i < end; i += 8) {
            f8 x = load8(a + i);
            level_add(&lanesA, x, clipBits);
            if (pair) {
                f8 y = load8(b + i);
                level_add(&lanesB, y, clipBits);
                products = fma8(x, y, products);
            }
        }
        level_flush(&lanesA, sums, clipped);
        if (pair) {
            level_flush(&lanesB, sums + 2, clipped + 1);
            cross += (double)lane_sum(products);
        }
    }
    peaks[0] = level_peak(&lanesA);
    if (pair) peaks[1] = level_peak(&lanesB);
    for (; i < count; i++) {
        level_add_scalar(a[i], clip, sums, peaks, clipped);
        if (pair) {
            level_add_scalar(b[i], clip, sums + 2, peaks + 1, clipped + 1);
            cross += (double)a[i] * (double)b[i];
        }
    }
    if (pair) sums[4] = cross;
}

static void KERNEL(level_moments)(const float *samples, size_t count, float clip_threshold, double sums[2],
                                  float *peak, int64_t *clipped) {
    level_run(samples, NULL, 0, count, clip_threshold, sums, peak, clipped);
}

static void KERNEL(level_moments_pair)(const float *a, const float *b, size_t count, float clip_threshold,
                                       double sums[5], float peaks[2], int64_t clipped[2]) {
    level_run(a, b, 1, count, clip_threshold, sums, peaks, clipped);
}
