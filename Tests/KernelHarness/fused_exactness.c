// The baseline x86-64 kernels' emulated fused multiply-add (Sources/CShadesKernels/kernel_fused.h) against
// the CPU's FMA instruction, bit for bit, over random and adversarial inputs: every bit pattern, ties of the
// Float rounding with tails below the Double sum's precision, cancellation, results near the smallest
// subnormal and near overflow, signed zeros, infinities and NaN. Both `fused` (two roundings, with its test
// for doubtful lanes) and the sum rounded to odd it falls back to (`fused_exact4`, on every input) are checked. Needs an x86-64 CPU with FMA (`make test-kernels`).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma clang fp contract(off)
#pragma clang diagnostic ignored "-Wpsabi"

#include "kernel_types.h"
#define SHADES_EMULATED_FMA 1
#include "kernel_fused.h"

/// Eight Floats at any address.
typedef f8 unaligned8 __attribute__((aligned(4)));
#define load(p) (*(const unaligned8 *)(p))

/// The instruction, eight lanes.
__attribute__((target("fma"), noinline)) static void hardware8(const float *a, const float *b, const float *c,
                                                               float *out) {
    f8 r = __builtin_elementwise_fma(load(a), load(b), load(c));
    memcpy(out, &r, sizeof r);
}

/// The rounded-to-odd path alone, eight lanes.
__attribute__((noinline)) static void exact8(const float *a, const float *b, const float *c, float *out) {
    __m128 x0, x1, y0, y1, z0, z1;
    memcpy(&x0, a, 16), memcpy(&x1, a + 4, 16), memcpy(&y0, b, 16), memcpy(&y1, b + 4, 16);
    memcpy(&z0, c, 16), memcpy(&z1, c + 4, 16);
    __m128 r0 = fused_exact4(x0, y0, z0), r1 = fused_exact4(x1, y1, z1);
    memcpy(out, &r0, 16), memcpy(out + 4, &r1, 16);
}

__attribute__((noinline)) static void emulated8(const float *a, const float *b, const float *c, float *out) {
    f8 r = fused(load(a), load(b), load(c));
    memcpy(out, &r, sizeof r);
}

static uint64_t state = 0x5DEECE66DULL;
/// splitmix64.
static uint64_t next64(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint32_t next32(void) { return (uint32_t)(next64() >> 32); }
static float from_bits(uint32_t bits) { return __builtin_bit_cast(float, bits); }
static uint32_t bits_of(float x) { return __builtin_bit_cast(uint32_t, x); }
/// ±mantissa·2^exponent with a random 24-bit significand (exponent of the leading bit).
static float random_float(int exponent) {
    float m = (float)((next32() >> 8) | 0x800000u) / 8388608.0f;  // [1, 2)
    float x = ldexpf(m, exponent);
    return next32() & 1 ? -x : x;
}
static int random_int(int low, int high) { return low + (int)(next32() % (uint32_t)(high - low + 1)); }

enum { BATCH = 8 * 1024 };
static float A[BATCH], B[BATCH], C[BATCH];
static long checked, mismatches, nanPayloads;

/// Checks one batch: `fused` and its rounded-to-odd path against the instruction.
static void check_batch(const char *family) {
    static float expected[BATCH], vector[BATCH], exact[BATCH];
    for (int i = 0; i < BATCH; i += 8) {
        hardware8(A + i, B + i, C + i, expected + i);
        emulated8(A + i, B + i, C + i, vector + i);
        exact8(A + i, B + i, C + i, exact + i);
    }
    for (int i = 0; i < BATCH; i++) {
        uint32_t want = bits_of(expected[i]);
        for (int path = 0; path < 2; path++) {
            float got = path == 0 ? vector[i] : exact[i];
            if (bits_of(got) == want) continue;
            if (isnan(got) && isnan(expected[i])) {
                nanPayloads++;
                continue;
            }
            if (mismatches++ < 20) {
                printf("MISMATCH %s (%s): fma(%a, %a, %a) = %a, emulated %a\n", family, path == 0 ? "fused" : "rounded to odd",
                       A[i], B[i], C[i], expected[i], got);
            }
        }
    }
    checked += BATCH;
}

int main(int argc, char **argv) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("fma")) {
        printf("fused_exactness: skipped, this CPU has no FMA to compare with\n");
        return 0;
    }
    long rounds = argc > 1 ? atol(argv[1]) : 64;
    for (long round = 0; round < rounds; round++) {
        // Every bit pattern (NaN, infinities, subnormals included).
        for (int i = 0; i < BATCH; i++) A[i] = from_bits(next32()), B[i] = from_bits(next32()), C[i] = from_bits(next32());
        check_batch("bit patterns");
        // Audio-like magnitudes, c near a·b.
        for (int i = 0; i < BATCH; i++) {
            int ea = random_int(-30, 30), eb = random_int(-30, 30);
            A[i] = random_float(ea), B[i] = random_float(eb), C[i] = random_float(ea + eb + random_int(-30, 30));
        }
        check_batch("audio magnitudes");
        // Cancellation: c within a few Float steps of −a·b (exact zeros, large relative errors).
        for (int i = 0; i < BATCH; i++) {
            int ea = random_int(-60, 60), eb = random_int(-60, 60);
            A[i] = random_float(ea), B[i] = random_float(eb);
            uint32_t nearest = bits_of(-(float)((double)A[i] * B[i]));
            C[i] = from_bits(nearest + (uint32_t)random_int(-3, 3));
        }
        check_batch("cancellation");
        // Ties: a·b = ±2^k·(1 + u·2⁻²³)(1 + v·2⁻²³) beside a c whose half step is near 2^k: the Double sum
        // lands on a tie of the Float rounding, or (v = −u near ±512: a·b = 2^k·(1 − 2⁻²⁸ − small)) one Double
        // step beside it, with tails below its precision.
        for (int i = 0; i < BATCH; i++) {
            int ec = random_int(-100, 100), k = ec - 24 + random_int(-2, 1), ea = random_int(-20, 20);
            int u = random_int(-8, 8), v = random_int(-8, 8);
            if (next32() & 1) u = random_int(500, 524) * (next32() & 1 ? -1 : 1), v = -u;
            A[i] = ldexpf(1.0f + (float)u * 0x1p-23f, ea) * (next32() & 1 ? -1 : 1);
            B[i] = ldexpf(1.0f + (float)v * 0x1p-23f, k - ea) * (next32() & 1 ? -1 : 1);
            C[i] = random_float(ec);
            if (next32() & 1) C[i] = from_bits(bits_of(C[i]) & ~1u);  // even and odd last bits
        }
        check_batch("ties");
        // Tiny: results around the subnormal range and its smallest step (including ±0 and 2⁻¹⁵⁰ ties).
        for (int i = 0; i < BATCH; i++) {
            int ea = random_int(-90, -60), eb = random_int(-160, -60) - ea;
            A[i] = random_float(ea), B[i] = random_float(eb);
            switch (next32() % 4) {
            case 0: C[i] = from_bits(next32() & 0x807FFFFFu); break;  // a subnormal or zero
            case 1: C[i] = random_float(random_int(-149, -120)); break;
            case 2: C[i] = (next32() & 1) ? -0.0f : 0.0f; break;
            default: C[i] = -(float)((double)A[i] * B[i]); break;
            }
            if (next32() % 4 == 0) {
                // a·b = ±2⁻¹⁵⁰⁺ᵈ·(1 − i²·2⁻⁴⁶) beside a subnormal c: ties of the subnormal rounding, tails far below.
                int i2 = random_int(-8, 8), d = random_int(0, 2);
                ea = random_int(-40, 40);
                A[i] = ldexpf(1.0f + (float)i2 * 0x1p-23f, ea) * (next32() & 1 ? -1 : 1);
                B[i] = ldexpf(1.0f - (float)i2 * 0x1p-23f, -150 + d - ea);
                C[i] = from_bits(next32() & 0x807FFFFFu);
            }
        }
        check_batch("tiny");
        // Huge: results near the largest Float and overflow.
        for (int i = 0; i < BATCH; i++) {
            int ea = random_int(60, 70), eb = random_int(120, 128) - ea;
            A[i] = random_float(ea), B[i] = random_float(eb);
            C[i] = next32() & 1 ? random_float(127) : from_bits(0x7F7FFFFFu | (next32() & 0x80000000u));
        }
        check_batch("huge");
    }
    // Special values, every combination.
    const float specials[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, -0x1p-126f, 1.0f, -1.0f,
                              0x1.000002p0f, 0x1.fffffep-1f, 3.0f, 0x1p-75f, -0x1p-75f, 0x1.fffffep127f,
                              -0x1.fffffep127f, 0x1p64f, INFINITY, -INFINITY, NAN};
    const int n = sizeof specials / sizeof specials[0];
    int filled = 0;
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++)
            for (int z = 0; z < n; z++) {
                A[filled] = specials[x], B[filled] = specials[y], C[filled] = specials[z];
                if (++filled == BATCH) check_batch("specials"), filled = 0;
            }
    for (; filled < BATCH; filled++) A[filled] = B[filled] = C[filled] = 1.0f;
    check_batch("specials");
    printf("fused_exactness: %ld inputs, %ld differ from the FMA instruction (%ld NaN results with another payload)\n",
           checked, mismatches, nanPayloads);
    return mismatches != 0;
}
