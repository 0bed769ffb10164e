// Shades' hot DSP kernels in C, compiled once per instruction set and chosen at run time.
//
// Why C: Swift has no per-function target attribute, so a plain `swift build -c release` (what an app
// depending on Shades gets) compiles Swift SIMD code for baseline x86-64 (SSE2, no FMA), where every
// fused multiply-add becomes a library call. These kernels are built for baseline, AVX2 + FMA and
// AVX-512 with clang's target attribute, and `shades_kernels_select` picks the best the CPU has, so
// the speed does not depend on compiler flags. Every variant computes the same IEEE operations in the
// same order (FMA where the algorithm says fused, never contracted elsewhere), so the samples are the
// same bits on every CPU: the baseline variant gets exact fused results from libm's fmaf.
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

    // MARK: Generators, quantiser, level
    /// Fills `count` (a multiple of 16) unit-variance Gaussian samples (Box–Muller over 16 lanes).
    void (*white_gaussian)(float *output, size_t count, shades_lane_random *random);
    /// Fills `count` (a multiple of 8) unit-variance uniform samples on (−√3, √3).
    void (*white_uniform)(float *output, size_t count, shades_lane_random *random);
    /// Eight points uniformly on the unit circle from eight random words: (cos θ, sin θ).
    void (*unit_phasors)(const uint32_t words[8], float cosines[8], float sines[8]);
    /// `count` samples × `gain` × 32768 + TPDF dither (from `random`), rounded and clamped to 16 bits;
    /// exact zeros stay zero. `count` whole groups of 8 only; `output` gets `count` values.
    void (*quantize16)(const float *samples, size_t count, float scale, int16_t *output, shades_lane_random *random);
    /// Σx² (Double from 8-lane Float partial sums over 1,024 samples) and largest |x| of `count` samples.
    void (*sum_of_squares_and_peak)(const float *samples, size_t count, double *sum_of_squares, float *peak);

    // MARK: Analysis
} shades_kernels;

/// The kernels for `set`, or NULL when this CPU or build cannot run it.
const shades_kernels *shades_kernels_for(shades_kernel_set set);

/// The fastest set this CPU runs.
shades_kernel_set shades_kernels_best(void);

#endif
