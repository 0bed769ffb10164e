// Runs every function of one kernel table (Sources/CShadesKernels) on fixed inputs and prints a digest of
// each one's outputs, one line per function: `kernel_digest SET` (baseline, avx2, avx512). Every set, on
// every CPU and architecture, must print the same lines (`make test-kernels` compares the x86-64 sets,
// `make test-arm64` the aarch64 build under qemu). The inputs include silence, subnormal and clipping
// samples, and counts that are not a multiple of the vector width.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CShadesKernels.h"

// The inputs the same on every machine: no fused multiply-adds here, no libm beyond √.
#pragma clang fp contract(off)

// MARK: - Inputs and digests

static uint64_t seed;
/// splitmix64.
static uint64_t next64(void) {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/// Uniform on [low, high), from 24 random bits (exact, the same on every machine).
static float uniform(float low, float high) { return low + (high - low) * ((float)(next64() >> 40) / 16777216.0f); }

static float *floats(size_t count, float low, float high) {
    float *x = calloc(count + 64, sizeof *x);
    for (size_t i = 0; i < count; i++) x[i] = uniform(low, high);
    return x;
}

/// A test signal: noise in ±1 with a run of silence, a run of subnormal samples and some beyond ±1.
static float *signal(size_t count) {
    float *x = floats(count, -1, 1);
    for (size_t i = count / 4; i < count / 4 + count / 16; i++) x[i] = 0;
    for (size_t i = count / 2; i < count / 2 + count / 16; i++) x[i] *= 0x1p-130f;
    for (size_t i = 3 * count / 4; i < 3 * count / 4 + 8; i++) x[i] *= 3;
    return x;
}

static void random_state(shades_lane_random *r) {
    for (int w = 0; w < 4; w++)
        for (int lane = 0; lane < 8; lane++) r->s[w][lane] = (uint32_t)next64() | 1u;
}

/// FNV-1a, 64 bits, over bytes.
typedef struct {
    uint64_t hash;
} digest;
static void add(digest *d, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < count; i++) d->hash = (d->hash ^ p[i]) * 0x100000001B3ULL;
}
static digest start(uint64_t case_seed) {
    seed = case_seed;
    return (digest){0xCBF29CE484222325ULL};
}
static int covered;
static void report(const char *name, digest d) {
    printf("%-24s %016llx\n", name, (unsigned long long)d.hash);
    covered++;
}

// MARK: - Filters

/// Stable modal matrices: pairs of states turning by a random angle, shrinking by a factor below 1.
static void modal(float *diagonal, float *partner, int states) {
    for (int k = 0; k < 16; k += 2) {
        float radius = k < states ? uniform(0.6f, 0.95f) : 0, cosine = uniform(-1, 1);
        float sine = sqrtf(1 - cosine * cosine);
        diagonal[k] = diagonal[k + 1] = radius * cosine;
        partner[k] = -radius * sine;
        partner[k + 1] = radius * sine;
    }
}

typedef void (*block_iir)(float *, size_t, const float *, const float *, const float *, const float *, const float *,
                          float *);
/// Adds a run of `states` states to `d`.
static void run_block_iir(digest *d, block_iir run, int states, int step, int outputStates) {
    const size_t count = 4096;
    float diagonal[16], partner[16], state[16] = {0};
    modal(diagonal, partner, states);
    float *fromInput = floats(16 * (size_t)step, -0.3f, 0.3f);
    float *outFromInput = floats((size_t)step * (size_t)step, -0.3f, 0.3f);
    float *outFromState = floats((size_t)step * (size_t)outputStates, -0.3f, 0.3f);
    // As `BlockIIRFilter` builds them: no state above `states` (zero rows and columns), and no input
    // reaches an earlier output (the output map from the inputs is causal).
    for (int i = 0; i < step; i++) {
        for (int k = states; k < 16; k++) fromInput[16 * i + k] = 0;
        for (int j = 0; j < i; j++) outFromInput[step * i + j] = 0;
    }
    for (int k = states; k < outputStates; k++) {
        for (int j = 0; j < step; j++) outFromState[step * k + j] = 0;
    }
    float *x = signal(count);
    // In two calls: the state carries over.
    run(x, count / 2, diagonal, partner, fromInput, outFromInput, outFromState, state);
    run(x + count / 2, count / 2, diagonal, partner, fromInput, outFromInput, outFromState, state);
    add(d, x, count * sizeof *x);
    add(d, state, sizeof state);
    free(fromInput), free(outFromInput), free(outFromState), free(x);
}
/// Runs of each state count in `states` (ending with 0).
static void check_block_iir(const char *name, block_iir run, const int *states, int step, int outputStates) {
    digest d = start(1000 + (uint64_t)states[0] * 16 + (uint64_t)step);
    for (; *states; states++) run_block_iir(&d, run, *states, step, outputStates);
    report(name, d);
}

static void check_filters(const shades_kernels *k) {
    // The sixteen-state kernels skip unused pairs of states (pink noise has 13).
    check_block_iir("block_iir_eight", k->block_iir_eight, (const int[]){8, 0}, 8, 8);
    check_block_iir("block_iir_sixteen", k->block_iir_sixteen, (const int[]){14, 16, 0}, 8, 16);
    check_block_iir("block_iir_sixteen_wide", k->block_iir_sixteen_wide, (const int[]){16, 13, 0}, 16, 16);
    {
        digest d = start(2000);
        const size_t count = 1000;  // not a multiple of 16
        float *work = signal(14 + count + 8), *taps = floats(8, -0.5f, 0.5f), *out = floats(count, 0, 0);
        k->fir_symmetric15(work, count, taps, out);
        add(&d, out, count * sizeof *out);
        report("fir_symmetric15", d);
        free(work), free(taps), free(out);
    }
    {
        digest d = start(2100);
        const size_t count = 512, tapCount = 31;
        float *work = signal(tapCount - 1 + count), *taps = floats(tapCount, -0.2f, 0.2f), *out = floats(count, 0, 0);
        k->fir_general(work, count, taps, tapCount, out);
        add(&d, out, count * sizeof *out);
        report("fir_general", d);
        free(work), free(taps), free(out);
    }
    {
        digest d = start(2200);
        const size_t partitions = 5, binFloats = 64;
        float *spectra = floats(partitions * binFloats, -4, 4), *kernels = floats(partitions * binFloats, -1, 1);
        float *sums = floats(binFloats, 0, 0);
        for (size_t newest = 0; newest < partitions; newest += 2) {
            k->partition_sums(spectra, kernels, partitions, newest, binFloats, sums);
            add(&d, sums, binFloats * sizeof *sums);
        }
        report("partition_sums", d);
        free(spectra), free(kernels), free(sums);
    }
    {
        digest d = start(2300);
        const size_t count = 333, tapCount = 40;
        float *line = signal(count + tapCount), *taps = floats(tapCount, -0.2f, 0.2f), *out = floats(count, 0, 0);
        k->dot_products(line, count, taps, tapCount, out);
        add(&d, out, count * sizeof *out);
        report("dot_products", d);
        free(line), free(taps), free(out);
    }
    {
        digest d = start(2400);
        // Ten phases (a partial group of 8) and seven inputs (four at a time, then one at a time).
        const size_t count = 7, length = 5, factor = 10, stride = 16;
        float *re = signal(length - 1 + count), *im = signal(length - 1 + count);
        float *taps = floats(2 * length * stride, -0.3f, 0.3f), *out = floats(count * factor, 0, 0);
        k->polyphase_complex(re + length - 1, im + length - 1, count, taps, length, factor, stride, out);
        add(&d, out, count * factor * sizeof *out);
        report("polyphase_complex", d);
        free(re), free(im), free(taps), free(out);
    }
}

// MARK: - Generators, quantiser, level

static void check_generators(const shades_kernels *k) {
    shades_lane_random random;
    {
        digest d = start(3000);
        random_state(&random);
        float *out = floats(4096, 0, 0);
        k->white_gaussian(out, 4096, &random);
        add(&d, out, 4096 * sizeof *out);
        k->white_gaussian(out, 48, &random);  // 16 lanes and a last group of 16
        add(&d, out, 48 * sizeof *out);
        add(&d, &random, sizeof random);
        report("white_gaussian", d);
        free(out);
    }
    {
        digest d = start(3100);
        random_state(&random);
        float *out = floats(1000, 0, 0);
        k->white_uniform(out, 1000, &random);
        add(&d, out, 1000 * sizeof *out);
        add(&d, &random, sizeof random);
        report("white_uniform", d);
        free(out);
    }
    {
        digest d = start(3150);
        // Blocks of 8, 32 and 256 samples (8 kHz, 48 kHz, 192 kHz).
        for (size_t block = 8; block <= 256; block *= block == 8 ? 4 : 8) {
            float *x = floats(4096, -3, 3), *sums = floats(4096 / block, -3, 3);
            k->replace_block_means(x, 4096, block, sums);
            add(&d, x, 4096 * sizeof *x);
            free(x), free(sums);
        }
        report("replace_block_means", d);
    }
    {
        digest d = start(3200);
        uint32_t words[8];
        float cosines[8], sines[8];
        for (int round = 0; round < 256; round++) {
            for (int lane = 0; lane < 8; lane++) words[lane] = round == 0 ? (uint32_t)(-(lane & 1)) : (uint32_t)next64();
            k->unit_phasors(words, cosines, sines);
            add(&d, cosines, sizeof cosines);
            add(&d, sines, sizeof sines);
        }
        report("unit_phasors", d);
    }
    {
        digest d = start(3300);
        random_state(&random);
        const size_t count = 3000 + 5;  // a last odd group of 8 and a tail
        float *x = signal(count);
        int16_t *out = calloc(count, sizeof *out);
        for (int measuring = 0; measuring < 2; measuring++) {
            int64_t sumOfSquares;
            int32_t peak;
            double inputSum = 0;
            float inputPeak = 0;
            k->quantize16(x, count, 0.5f * 32768, out, &random, &sumOfSquares, &peak, measuring ? &inputSum : NULL,
                          measuring ? &inputPeak : NULL);
            add(&d, out, count * sizeof *out);
            add(&d, &sumOfSquares, sizeof sumOfSquares);
            add(&d, &peak, sizeof peak);
            add(&d, &inputSum, sizeof inputSum);
            add(&d, &inputPeak, sizeof inputPeak);
        }
        add(&d, &random, sizeof random);
        free(x), free(out);
        // Beyond the quantiser's fold of its 32-bit sums (65,536 samples), at full scale: every value clipped
        // to ±32,767 or −32,768, the largest squares. The sums must be the values' own.
        const size_t loud = 3 * 65536 + 21;
        x = floats(loud, -4, 4);
        out = calloc(loud, sizeof *out);
        for (int measuring = 0; measuring < 2; measuring++) {
            int64_t sumOfSquares, expected = 0;
            int32_t peak;
            double inputSum = 0;
            float inputPeak = 0;
            k->quantize16(x, loud, 32768, out, &random, &sumOfSquares, &peak, measuring ? &inputSum : NULL,
                          measuring ? &inputPeak : NULL);
            for (size_t i = 0; i < loud; i++) expected += (int64_t)out[i] * out[i];
            if (sumOfSquares != expected) {
                fprintf(stderr, "quantize16: sum of squares %lld, the values' own %lld\n", (long long)sumOfSquares,
                        (long long)expected);
                exit(1);
            }
            add(&d, out, loud * sizeof *out);
            add(&d, &sumOfSquares, sizeof sumOfSquares);
            add(&d, &peak, sizeof peak);
        }
        report("quantize16", d);
        free(x), free(out);
    }
    {
        digest d = start(3400);
        double re[32], im[32], cycles[4] = {0.1, 12.25, 1e5 + 0.3, 7.5e6}, laneCosines[8], laneSines[8];
        shades_modulation_lane_turns(10.0 / 48000, laneCosines, laneSines);
        shades_modulation_phasors(cycles, laneCosines, laneSines, re, im);
        add(&d, re, sizeof re);
        add(&d, im, sizeof im);
        report("modulation_phasors", d);
        d = start(3450);
        float *gains = floats(4 * 64, 0, 0);
        // The turn of 80 Hz at 48 kHz.
        k->am_gains(re, im, 0.99998629224742674, 0.0052358897417550099, 0.6, 0.4, 64, gains);
        add(&d, gains, 4 * 64 * sizeof *gains);
        report("am_gains", d);
        free(gains);
    }
    {
        digest d = start(3500);
        const size_t count = 3001;
        float *x = signal(count), peak;
        double sum;
        k->sum_of_squares_and_peak(x, count, &sum, &peak);
        add(&d, &sum, sizeof sum);
        add(&d, &peak, sizeof peak);
        report("sum_of_squares_and_peak", d);
        free(x);
    }
    {
        digest d = start(3600);
        const size_t count = 1003;
        float *x = signal(count), *gains = floats(count, 0, 1);
        k->multiply(x, gains, count);
        add(&d, x, count * sizeof *x);
        report("multiply", d);
        free(x), free(gains);
    }
    {
        digest d = start(3650);
        const size_t count = 1003;
        float *x = signal(count);
        k->scale(x, count, 0.1f);
        add(&d, x, count * sizeof *x);
        report("scale", d);
        free(x);
    }
    {
        digest d = start(3700);
        const size_t frames = 1003;
        int16_t *left = calloc(frames, 2), *right = calloc(frames, 2), *out = calloc(2 * frames, 2);
        for (size_t i = 0; i < frames; i++) left[i] = (int16_t)next64(), right[i] = (int16_t)next64();
        k->interleave_stereo16(left, right, frames, out);
        add(&d, out, 2 * frames * sizeof *out);
        report("interleave_stereo16", d);
        free(left), free(right), free(out);
    }
    {
        digest d = start(3800);
        const size_t frames = 1003;
        float *left = signal(frames), *right = signal(frames), *out = calloc(2 * frames, sizeof(float));
        k->interleave_stereo32(left, right, frames, out);
        add(&d, out, 2 * frames * sizeof *out);
        report("interleave_stereo32", d);
        free(left), free(right), free(out);
    }
    {
        digest d = start(3900);
        const size_t frames = 1003;
        float *in = signal(2 * frames), *left = calloc(frames, sizeof(float)), *right = calloc(frames, sizeof(float));
        k->deinterleave_stereo32(in, frames, left, right);
        add(&d, left, frames * sizeof *left);
        add(&d, right, frames * sizeof *right);
        report("deinterleave_stereo32", d);
        free(in), free(left), free(right);
    }
    {
        digest d = start(3950);
        const size_t frames = 1003;
        int16_t *in = calloc(2 * frames, 2);
        float *left = calloc(frames, sizeof(float)), *right = calloc(frames, sizeof(float));
        for (size_t i = 0; i < 2 * frames; i++) in[i] = (int16_t)next64();
        k->deinterleave_stereo16(in, frames, 1.0f / 32768, left, right);
        add(&d, left, frames * sizeof *left);
        add(&d, right, frames * sizeof *right);
        report("deinterleave_stereo16", d);
        free(in), free(left), free(right);
    }
}

// MARK: - Analysis

static void check_analysis(const shades_kernels *k) {
    {
        digest d = start(4000);
        const size_t length = 12, count = 1000, keep = length - 1;
        for (size_t factor = 1; factor <= 4; factor++) {
            float *taps = floats(factor * length, -0.4f, 0.6f), *work = signal(keep + count + 8);
            memset(work + keep + count, 0, 8 * sizeof *work);
            for (int pass = 0; pass < 2; pass++) {
                int32_t peak[8] = {0};
                // A bound of 3 interpolates every segment; 0.2 lets most be skipped.
                k->true_peak(work, count, keep, taps, length, factor, pass ? 0.2f : 3.0f, peak);
                add(&d, peak, sizeof peak);
            }
            free(taps), free(work);
        }
        report("true_peak", d);
    }
    {
        digest d = start(4100);
        const size_t groups = 40;
        float *padded = floats(8 * groups + 8, -30, 30), *sums = floats(8 * groups, 0, 1);
        k->frame_power(padded, groups, sums);
        k->frame_power(padded, groups, sums);
        add(&d, sums, 8 * groups * sizeof *sums);
        report("frame_power", d);
        free(padded), free(sums);
    }
    {
        digest d = start(4200);
        const size_t frames = 5000;
        float *left = signal(frames), *right = signal(frames);
        // Three stable biquads (b0, b1, b2, −a1, −a2), then α and 1 − α.
        double coefficients[17] = {0.8, -1.2, 0.45, 1.6, -0.7, 1.0, -2.0, 1.0, 1.9, -0.905,
                                   0.3, 0.2, 0.1, 0.5, -0.25, 1.0 / 6000, 1 - 1.0 / 6000};
        double state[18] = {0};
        k->ambient_level(left, right, frames, coefficients, state);
        add(&d, state, sizeof state);
        report("ambient_level", d);
        free(left), free(right);
    }
    {
        digest d = start(4300);
        const size_t count = 2003;
        float *a = signal(count), *b = signal(count), peaks[2];
        double sums[5];
        int64_t clipped[2];
        k->level_moments(a, count, 0.99f, sums, peaks, clipped);
        add(&d, sums, 2 * sizeof *sums);
        add(&d, peaks, sizeof *peaks);
        add(&d, clipped, sizeof *clipped);
        report("level_moments", d);
        d = start(4350);
        k->level_moments_pair(a, b, count, 0.99f, sums, peaks, clipped);
        add(&d, sums, sizeof sums);
        add(&d, peaks, sizeof peaks);
        add(&d, clipped, sizeof clipped);
        report("level_moments_pair", d);
        free(a), free(b);
    }
}

int main(int argc, char **argv) {
    const char *names[] = {"baseline", "avx2", "avx512"};
    int set = -1;
    for (int s = 0; s < 3; s++)
        if (argc > 1 && strcmp(argv[1], names[s]) == 0) set = s;
    if (set < 0) {
        fprintf(stderr, "usage: kernel_digest baseline|avx2|avx512\n");
        return 2;
    }
    const shades_kernels *k = shades_kernels_for((shades_kernel_set)set);
    if (!k) {
        printf("%s: not available on this CPU\n", names[set]);
        return 0;
    }
    check_filters(k);
    check_generators(k);
    check_analysis(k);
    // Every function of the table (and the modulation phasors beside it) has its line.
    size_t functions = sizeof(shades_kernels) / sizeof(void (*)(void));
    if ((size_t)covered != functions + 1) {
        fprintf(stderr, "kernel_digest covers %d functions; the table has %zu (and the modulation phasors)\n",
                covered, functions);
        return 1;
    }
    return 0;
}
