// Shades' hot DSP kernels in C, compiled once per instruction set and chosen at run time.
//
// Why C: Swift has no per-function target attribute, so a plain `swift build -c release` (what an app
// depending on Shades gets) compiles Swift SIMD code for baseline x86-64 (SSE2, no FMA), where every
// fused multiply-add becomes a library call. These kernels are built for baseline, AVX2 + FMA and
// AVX-512 with clang's target attribute, and `shades_kernels_select` picks the best the CPU has, so
// the speed does not depend on compiler flags. Every variant computes the same IEEE operations in the
// same order (FMA where the algorithm says fused, never contracted elsewhere), so the samples are the
// same bits on every CPU: the baseline variant on x86-64 emulates the fused multiply-add exactly (in
// Double lanes, kernel_fused.h).
#ifndef SHADES_KERNELS_H
#define SHADES_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Instruction sets a kernel table is built for.
typedef enum {
    SHADES_KERNELS_BASELINE = 0,  ///< the compiler's default target (x86-64: SSE2; arm64: NEON with FMA)
    SHADES_KERNELS_AVX2_FMA = 1,  ///< x86-64 with AVX2 and FMA (Haswell, Zen and later)
    SHADES_KERNELS_AVX512 = 2,    ///< x86-64 with AVX-512 F, VL, BW, DQ (32 vector registers)
} shades_kernel_set;

/// The state of eight xoshiro128** generators, one per lane: s[word][lane].
typedef struct {
    uint32_t s[4][8];
} shades_lane_random;

/// One instruction set's kernels. Pointers to samples need no alignment.
typedef struct {
    // MARK: Filters
    /// Block modal IIR (see BlockIIRFilter.swift), in place on `count` samples (a multiple of the step).
    /// Up to 8 states, steps of 8: `state_from_input` 8 columns of 16 (low 8 used), `output_from_input`
    /// 8 columns of 8, `output_from_state` 8 columns of 8; `diagonal`, `partner` and `state` 16 each.
    void (*block_iir_eight)(float *samples, size_t count, const float *diagonal, const float *partner,
                            const float *state_from_input, const float *output_from_input,
                            const float *output_from_state, float *state);
    /// 9 to 16 states, steps of 8: `state_from_input` 8 columns of 16, the output maps columns of 8
    /// (8 from input, 16 from state). Both sixteen-state kernels take the maps as `BlockIIRFilter` builds
    /// them: an input reaches no earlier output (zeros above the diagonal of the output map from the
    /// inputs), and states above those in use are zero in every map (their multiply-adds are skipped).
    void (*block_iir_sixteen)(float *samples, size_t count, const float *diagonal, const float *partner,
                              const float *state_from_input, const float *output_from_input,
                              const float *output_from_state, float *state);
    /// 9 to 16 states, steps of 16: every map has columns of 16 (16 from input, 16 from state).
    void (*block_iir_sixteen_wide)(float *samples, size_t count, const float *diagonal, const float *partner,
                                   const float *state_from_input, const float *output_from_input,
                                   const float *output_from_state, float *state);
    /// 15 symmetric taps (`taps`: the first 8) over `work` (14 history samples, then `count` inputs, a
    /// multiple of 8, plus 8 readable samples of slack) into `output`.
    void (*fir_symmetric15)(const float *work, size_t count, const float *taps, float *output);
    /// Any `tap_count` taps (first on the newest sample) over `work` (tap_count − 1 history samples, then
    /// `count` inputs, a multiple of 8) into `output`.
    void (*fir_general)(const float *work, size_t count, const float *taps, size_t tap_count, float *output);
    /// Uniformly partitioned convolution's spectral sum (`PartitionedConvolver`): `sums` = Σₖ
    /// spectra[(newest − k) mod partitions] · kernels[k], complex products of interleaved bins, `floats`
    /// Floats per spectrum (a multiple of 8).
    void (*partition_sums)(const float *spectra, const float *kernels, size_t partitions, size_t newest,
                           size_t floats, float *sums);
    /// `count` outputs of a direct-form FIR: output[j] = Σᵤ taps[u]·line[j + u], u < `tap_count` (a multiple
    /// of 8); any `count`, each output computed alike.
    void (*dot_products)(const float *line, size_t count, const float *taps, size_t tap_count, float *output);
    /// Complex polyphase interpolation by `factor`, real part (narrow-band noise): for each of `count` inputs
    /// k, output[k·factor + p] = Σⱼ taps[2j][p]·re[k − j] + Σⱼ taps[2j + 1][p]·im[k − j], j < `length`, for p
    /// < `factor`; `re`, `im` point at input 0 with length − 1 history samples before it; each tap row has
    /// `stride` Floats (factor rounded up to a multiple of 8, padded with zeros).
    void (*polyphase_complex)(const float *re, const float *im, size_t count, const float *taps, size_t length,
                              size_t factor, size_t stride, float *output);

    // MARK: Generators, quantiser, level
    /// Fills `count` (a multiple of 16) unit-variance Gaussian samples (Box–Muller over 16 lanes).
    void (*white_gaussian)(float *output, size_t count, shades_lane_random *random);
    /// Fills `count` (a multiple of 8) unit-variance uniform samples on (−√3, √3).
    void (*white_uniform)(float *output, size_t count, shades_lane_random *random);
    /// Replaces the mean of each block of `block` samples (a multiple of 8) of `samples` (`count`, whole
    /// blocks) by unit_sums[b] / √block, so the block sums to √block · unit_sums[b] (`BlockSummedWhiteNoise`):
    /// x += unit_sums[b] · (1/√block) − Σx · (1/block), the sum in 8 lanes, then their halves.
    void (*replace_block_means)(float *samples, size_t count, size_t block, const float *unit_sums);
    /// Eight points uniformly on the unit circle from eight random words: (cos θ, sin θ).
    void (*unit_phasors)(const uint32_t words[8], float cosines[8], float sines[8]);
    /// `count` samples × `gain` × 32768 + TPDF dither (from `random`), rounded and clamped to 16 bits;
    /// exact zeros stay zero; `output` gets `count` values. Also gives the values' Σx² (exact) and largest |x|,
    /// and with `input_sum_of_squares` non-null the input's as `sum_of_squares_and_peak` gives them (the same bits).
    void (*quantize16)(const float *samples, size_t count, float scale, int16_t *output, shades_lane_random *random,
                       int64_t *sum_of_squares, int32_t *peak, double *input_sum_of_squares, float *input_peak);
    /// Amplitude-modulation gains (`AmplitudeModulatedSource`) of four segments of `count` (a multiple of 8)
    /// gains each, one after the other in `gains`: segment k starts from its 8 lanes' phasors re[8k …],
    /// im[8k …]; for each group of 8 gains, (float)(offset + scale·im) per lane, then the Double phasors
    /// turn by (c, s): re·c − im·s, re·s + im·c. (Four independent chains, interleaved: the turn is a
    /// dependency chain, so one segment alone waits on its latency.)
    void (*am_gains)(const double re[32], const double im[32], double c, double s, double offset, double scale,
                     size_t count, float *gains);
    /// Σx² (Double from 8-lane Float partial sums over 1,024 samples) and largest |x| of `count` samples.
    void (*sum_of_squares_and_peak)(const float *samples, size_t count, double *sum_of_squares, float *peak);
    /// samples[i] × gains[i] for `count` samples, in place (a gain curve: modulation, envelopes).
    void (*multiply)(float *samples, const float *gains, size_t count);
    /// samples[i] × gain for `count` samples, in place (white noise at its level).
    void (*scale)(float *samples, size_t count, float gain);
    /// Two planes of 16-bit samples into `frames` interleaved stereo frames (left, right).
    void (*interleave_stereo16)(const int16_t *left, const int16_t *right, size_t frames, int16_t *output);
    /// Two planes of Floats into `frames` interleaved stereo frames (left, right): the values copied.
    void (*interleave_stereo32)(const float *left, const float *right, size_t frames, float *output);
    /// `frames` interleaved stereo frames of Floats into two planes: the values copied.
    void (*deinterleave_stereo32)(const float *input, size_t frames, float *left, float *right);
    /// `frames` interleaved stereo frames of 16-bit samples into two planes of Floats, each times `scale`
    /// (a power of two: exact).
    void (*deinterleave_stereo16)(const int16_t *input, size_t frames, float scale, float *left, float *right);

    // MARK: Analysis
    /// True peak of one block (libebur128's polyphase interpolator, `TruePeakMeter`): `work` holds the
    /// `keep` inputs before the block, the block's `count` samples, then zeros to a whole group of 8; `taps`
    /// holds `factor` phases of `length` taps each (tap t applies to x[n − t]). The largest |output| and
    /// |input| is kept in `peak_bits` (eight lanes of |x| as bits). Segments of 64 inputs whose magnitudes
    /// times `bound` cannot beat the peak so far are skipped.
    void (*true_peak)(const float *work, size_t count, size_t keep, const float *taps, size_t length,
                      size_t factor, float bound, int32_t peak_bits[8]);
    /// Welch power of one FFT frame (`FramePowerAccumulator`): `padded` holds the interleaved bins with
    /// one mirrored bin on each side (8·groups + 8 Floats); adds the periodic-Hann-windowed re² and im²
    /// to `sums` (8·groups Floats).
    void (*frame_power)(const float *padded, size_t groups, float *sums);
    /// A-weighting, F weighting and Σx² of two channels in two Double lanes (`AmbientLevel`), `frames`
    /// samples each. `coefficients`: per section b0, b1, b2, −a1, −a2 (three sections), then α and 1 − α.
    /// `state` (lane pairs): six filter states, F, F maximum, Σx².
    void (*ambient_level)(const float *left, const float *right, size_t frames, const double coefficients[17],
                          double state[18]);
    /// Σx and Σx² (`sums`; Double from 8-lane Float partial sums over 1,024 samples), largest |x| and the
    /// count of |x| ≥ `clip_threshold` of `count` samples (`LevelStatistics`).
    void (*level_moments)(const float *samples, size_t count, float clip_threshold, double sums[2], float *peak,
                          int64_t *clipped);
    /// `level_moments` of two channels and Σa·b in one pass: sums = Σa, Σa², Σb, Σb², Σab.
    void (*level_moments_pair)(const float *a, const float *b, size_t count, float clip_threshold, double sums[5],
                               float peaks[2], int64_t clipped[2]);
} shades_kernels;

/// The turn of each of eight lanes l frames apart: cosines[l] and sines[l] of 2π·l·cycles_per_frame, the
/// values of libm's `cos` and `sin` (with glibc, mostly from one `sincos` call; see modulation.c).
void shades_modulation_lane_turns(double cycles_per_frame, double cosines[8], double sines[8]);

/// The lane phasors of four amplitude-modulation segments (`AmplitudeModulatedSource`): for segment k and
/// lane l, cosines[8k + l] and sines[8k + l] of 2π·segment_cycles[k] (libm's, as above) turned by lane l's
/// turn from `shades_modulation_lane_turns` (a complex product in Double: 4 libm calls per 4,096 frames
/// instead of 32).
void shades_modulation_phasors(const double segment_cycles[4], const double lane_cosines[8], const double lane_sines[8],
                               double cosines[32], double sines[32]);

/// SHA-256's compression (FIPS 180-4 §6.2.2) of `blocks` 64-byte blocks at `data` into `state` (A … H) with
/// the x86 SHA extensions (sha256.c); returns 0, having done nothing, when the CPU lacks them.
int shades_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// The kernels for `set`, or NULL when this CPU or build cannot run it.
const shades_kernels *shades_kernels_for(shades_kernel_set set);

/// The fastest set this CPU runs.
shades_kernel_set shades_kernels_best(void);

#endif
