// The filter kernels (part of kernel_body.h, included once per instruction set).

// MARK: - Block modal IIR

// Both kernels keep the loop-carried path short: the input terms of the next state are summed first
// (they do not depend on the state), and the state enters last through two multiply-adds. Outputs are
// summed in independent partial sums. Waiting on long chains was 3× slower.

/// Up to 8 states, steps of 8 samples: `state_from_input` holds 8 columns of 16 (the low 8 are used).
static void KERNEL(block_iir_eight)(float *samples, size_t count, const float *diagonal16, const float *partner16,
                                    const float *state_from_input16, const float *output_from_input,
                                    const float *output_from_state, float *state16) {
    f8 diagonal = load8(diagonal16), partner = load8(partner16), s = load8(state16);
    f8 fromInput[8], outFromInput[8], outFromState[8];
    for (int i = 0; i < 8; i++) {
        fromInput[i] = load8(state_from_input16 + 16 * i);
        outFromInput[i] = load8(output_from_input + 8 * i);
        outFromState[i] = load8(output_from_state + 8 * i);
    }
    for (size_t offset = 0; offset + 8 <= count; offset += 8) {
        f8 x = load8(samples + offset);
        f8 inputEven = x[0] * fromInput[0], inputOdd = x[1] * fromInput[1];
        f8 yEven = x[0] * outFromInput[0], yOdd = x[1] * outFromInput[1];
        for (int i = 2; i < 8; i += 2) {
            inputEven = fma8(splat8(x[i]), fromInput[i], inputEven);
            inputOdd = fma8(splat8(x[i + 1]), fromInput[i + 1], inputOdd);
            yEven = fma8(splat8(x[i]), outFromInput[i], yEven);
            yOdd = fma8(splat8(x[i + 1]), outFromInput[i + 1], yOdd);
        }
        f8 yStateEven = s[0] * outFromState[0], yStateOdd = s[1] * outFromState[1];
        for (int k = 2; k < 8; k += 2) {
            yStateEven = fma8(splat8(s[k]), outFromState[k], yStateEven);
            yStateOdd = fma8(splat8(s[k + 1]), outFromState[k + 1], yStateOdd);
        }
        // Lane k's partner is lane k ^ 1: swap neighbouring lanes.
        f8 swapped = __builtin_shufflevector(s, s, 1, 0, 3, 2, 5, 4, 7, 6);
        f8 next = fma8(swapped, partner, fma8(s, diagonal, inputEven + inputOdd));
        store8(samples + offset, (yEven + yOdd) + (yStateEven + yStateOdd));
        s = next;
    }
    store8(state16, s);
    store8(state16 + 8, splat8(0));
}

static inline __attribute__((always_inline)) f16 splat16(float x) { return (f16)x; }
static inline __attribute__((always_inline)) f16 fma16(f16 a, f16 b, f16 c) { return fused(a, b, c); }

/// y += x · column for the input at step position `i` (steps of 8: the whole vector).
static inline __attribute__((always_inline)) void add_input8(f8 *y, float x, f8 column, int i) {
    (void)i;
    *y = fma8(splat8(x), column, *y);
}
/// The same for steps of 16. An input reaches no earlier output (its column's first `i` lanes are exact
/// zeros), so where a 16-lane vector is two registers (AVX2, baseline) the inputs of the second half add to
/// the upper register only: 8 of 96 multiply-adds a step, the same sums.
static inline __attribute__((always_inline)) void add_input16(f16 *y, float x, f16 column, int i) {
#if SHADES_SIXTEEN_LANES
    (void)i;
    *y = fma16(splat16(x), column, *y);
#else
    if (i < 8) *y = fma16(splat16(x), column, *y);
    else y->hi = fma8(splat8(x), column.hi, y->hi);
#endif
}

/// States in use, rounded up to a pair: the lanes above them hold zeros that stay zero (no input, no
/// decay, no output), and their multiply-adds would only add zeros. Pink noise has 13 of 16.
static inline __attribute__((always_inline)) int states_in_use(const float *diagonal16, const float *partner16,
                                                               const float *state_from_input, int steps,
                                                               const float *output_from_state, int outputs,
                                                               const float *state16) {
    int used = 16;
    for (; used > 0; used--) {
        int k = used - 1;
        int idle = diagonal16[k] == 0 && partner16[k] == 0 && state16[k] == 0;
        for (int i = 0; i < steps && idle; i++) idle = state_from_input[16 * i + k] == 0;
        for (int j = 0; j < outputs && idle; j++) idle = output_from_state[outputs * k + j] == 0;
        if (!idle) break;
    }
    return (used + 1) & ~1;
}

/// 9 to 16 states in one 16-lane vector, steps of `STEP` samples (8 or 16) with outputs in vectors `V`.
#define BLOCK_IIR_SIXTEEN(NAME, V, STEP, LOADV, STOREV, SPLATV, FMAV, ADD_INPUT)                               \
static void KERNEL(NAME)(float *samples, size_t count, const float *diagonal16, const float *partner16,         \
                         const float *state_from_input, const float *output_from_input,                         \
                         const float *output_from_state, float *state16) {                                      \
    int used = states_in_use(diagonal16, partner16, state_from_input, STEP, output_from_state, STEP, state16);   \
    f16 diagonal = load16(diagonal16), partner = load16(partner16), s = load16(state16);                        \
    f16 fromInput[STEP];                                                                                        \
    V outFromInput[STEP], outFromState[16];                                                                     \
    for (int i = 0; i < STEP; i++) {                                                                            \
        fromInput[i] = load16(state_from_input + 16 * i);                                                       \
        outFromInput[i] = LOADV(output_from_input + STEP * i);                                                  \
    }                                                                                                           \
    for (int k = 0; k < 16; k++) outFromState[k] = LOADV(output_from_state + STEP * k);                        \
    for (size_t offset = 0; offset + STEP <= count; offset += STEP) {                                           \
        V x = LOADV(samples + offset);                                                                          \
        f16 inputEven = x[0] * fromInput[0], inputOdd = x[1] * fromInput[1];                                    \
        V yEven = x[0] * outFromInput[0], yOdd = x[1] * outFromInput[1];                                        \
        for (int i = 2; i < STEP; i += 2) {                                                                     \
            inputEven = fma16(splat16(x[i]), fromInput[i], inputEven);                                          \
            inputOdd = fma16(splat16(x[i + 1]), fromInput[i + 1], inputOdd);                                    \
            ADD_INPUT(&yEven, x[i], outFromInput[i], i);                                                        \
            ADD_INPUT(&yOdd, x[i + 1], outFromInput[i + 1], i + 1);                                             \
        }                                                                                                       \
        V yStateEven = s[0] * outFromState[0], yStateOdd = s[1] * outFromState[1];                              \
        for (int k = 2; k < 16; k += 2) {                                                                       \
            if (k >= used) break;                                                                               \
            yStateEven = FMAV(SPLATV(s[k]), outFromState[k], yStateEven);                                       \
            yStateOdd = FMAV(SPLATV(s[k + 1]), outFromState[k + 1], yStateOdd);                                 \
        }                                                                                                       \
        f16 swapped = __builtin_shufflevector(s, s, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);       \
        f16 next = fma16(swapped, partner, fma16(s, diagonal, inputEven + inputOdd));                           \
        STOREV(samples + offset, (yEven + yOdd) + (yStateEven + yStateOdd));                                    \
        s = next;                                                                                               \
    }                                                                                                           \
    store16(state16, s);                                                                                        \
}

BLOCK_IIR_SIXTEEN(block_iir_sixteen, f8, 8, load8, store8, splat8, fma8, add_input8)
// Steps of 16 samples: 16 outputs per multiply-add, half the state broadcasts per sample.
BLOCK_IIR_SIXTEEN(block_iir_sixteen_wide, f16, 16, load16, store16, splat16, fma16, add_input16)

// MARK: - FIR

/// The noise-shaping correction: 15 symmetric taps (`taps` holds the first 8), mirrored inputs added
/// before multiplying (8 multiply-adds instead of 15). `AT(k)` is the vector of inputs k … k + WIDTH − 1
/// of the step, `T0` … `T7` the taps in vectors.
#define SYMMETRIC_FIFTEEN_STEP(V, AT, STOREV, FMAV, T0, T1, T2, T3, T4, T5, T6, T7)                              \
    {                                                                                                           \
        V even = T7 * AT(7);                                                                                    \
        V odd = T0 * (AT(0) + AT(14));                                                                          \
        even = FMAV(T1, AT(1) + AT(13), even);                                                                  \
        odd = FMAV(T2, AT(2) + AT(12), odd);                                                                    \
        even = FMAV(T3, AT(3) + AT(11), even);                                                                  \
        odd = FMAV(T4, AT(4) + AT(10), odd);                                                                    \
        even = FMAV(T5, AT(5) + AT(9), even);                                                                   \
        odd = FMAV(T6, AT(6) + AT(8), odd);                                                                     \
        STOREV(output + j, even + odd);                                                                         \
    }

/// `work` holds 14 samples of history, then the input. Sixteen outputs per step, then eight; the same
/// operations per output. The taps are held in registers (the compiler cannot tell that `output` does not
/// overwrite them, so it would load them again every step).
static void KERNEL(fir_symmetric15)(const float *work, size_t count, const float *taps, float *output) {
    size_t j = 0;
    size_t wide = count - count % 16;
    f16 w0 = taps[0], w1 = taps[1], w2 = taps[2], w3 = taps[3], w4 = taps[4], w5 = taps[5], w6 = taps[6], w7 = taps[7];
#if SHADES_SIXTEEN_LANES
    // The shifted inputs come from two vectors by lane rotation (valignd): 15 unaligned loads per step,
    // most of them across two cache lines, were the bottleneck (0.28 → 0.18 ns per sample).
    f16 now = load16(work);
    for (; j < wide; j += 16) {
        f16 next = load16(work + j + 16);
#define SHIFTED(k) __builtin_shufflevector(now, next, k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7, k + 8, \
                                           k + 9, k + 10, k + 11, k + 12, k + 13, k + 14, k + 15)
        SYMMETRIC_FIFTEEN_STEP(f16, SHIFTED, store16, fma16, w0, w1, w2, w3, w4, w5, w6, w7)
#undef SHIFTED
        now = next;
    }
#else
    for (; j < wide; j += 16) {
#define LOADED(k) load16(work + j + (k))
        SYMMETRIC_FIFTEEN_STEP(f16, LOADED, store16, fma16, w0, w1, w2, w3, w4, w5, w6, w7)
#undef LOADED
    }
#endif
    for (; j + 8 <= count; j += 8) {
#define LOADED(k) load8(work + j + (k))
        SYMMETRIC_FIFTEEN_STEP(f8, LOADED, store8, fma8, w0.lo, w1.lo, w2.lo, w3.lo, w4.lo, w5.lo, w6.lo, w7.lo)
#undef LOADED
    }
}

/// Any taps (`tap_count`, first tap on the newest sample); `work` holds tap_count − 1 samples of history,
/// then the input; `count` a multiple of 8.
static void KERNEL(fir_general)(const float *work, size_t count, const float *taps, size_t tap_count, float *output) {
    size_t history = tap_count - 1;
    for (size_t j = 0; j + 8 <= count; j += 8) {
        f8 y = splat8(0);
        for (size_t t = 0; t <= history; t++) y = fma8(splat8(taps[t]), load8(work + j + history - t), y);
        store8(output + j, y);
    }
}

/// Partitioned convolution, frequency domain: `sums` = Σₖ spectra[slot(k)] · kernels[k] for k = 0 …
/// partitions − 1, slot(k) = (newest − k) mod partitions, complex products of interleaved (re, im) bins;
/// `floats` Floats per spectrum (a multiple of 8), spectra `floats` apart. Plain multiplies and adds
/// (no fusing), k in order: the same bits on every instruction set.
static void KERNEL(partition_sums)(const float *spectra, const float *kernels, size_t partitions, size_t newest,
                                   size_t floats, float *sums) {
    for (size_t i = 0; i < floats; i += 8) store8(sums + i, splat8(0));
    for (size_t k = 0; k < partitions; k++) {
        size_t slot = (newest + partitions - k) % partitions;
        const float *x = spectra + slot * floats, *h = kernels + k * floats;
        for (size_t i = 0; i < floats; i += 8) {
            f8 a = load8(x + i), b = load8(h + i);
            f8 b_re = __builtin_shufflevector(b, b, 0, 0, 2, 2, 4, 4, 6, 6);
            f8 b_im = __builtin_shufflevector(b, b, 1, 1, 3, 3, 5, 5, 7, 7);
            f8 a_swapped = __builtin_shufflevector(a, a, 1, 0, 3, 2, 5, 4, 7, 6);
            f8 sign = {-1, 1, -1, 1, -1, 1, -1, 1};
            store8(sums + i, load8(sums + i) + (a * b_re + a_swapped * (b_im * sign)));
        }
    }
}

/// Direct-form FIR, one output at a time: output[j] = Σᵤ taps[u]·line[j + u] for u < `tap_count` (a
/// multiple of 8), eight lanes summed in order. Each output is computed the same way whatever `count`,
/// so a stream gives the same bits in blocks of any size.
static void KERNEL(dot_products)(const float *line, size_t count, const float *taps, size_t tap_count, float *output) {
    for (size_t j = 0; j < count; j++) {
        const float *x = line + j;
        f8 even = splat8(0), odd = splat8(0);
        size_t u = 0;
        for (; u + 16 <= tap_count; u += 16) {
            even = even + load8(taps + u) * load8(x + u);
            odd = odd + load8(taps + u + 8) * load8(x + u + 8);
        }
        if (u < tap_count) even = even + load8(taps + u) * load8(x + u);
        output[j] = lane_sum(even + odd);
    }
}

/// Complex polyphase interpolation, real part (`NarrowBandNoiseSource`): for each of `count` inputs k,
/// `factor` outputs output[k·factor + p] = Σⱼ taps[2j][p]·re[k − j] + Σⱼ taps[2j + 1][p]·im[k − j], each sum
/// fused multiply-adds in order j = 0 … length − 1 from 0, then the two added. `re` and `im` point at input 0
/// with length − 1 samples of history before it; tap rows are `stride` Floats (factor rounded up to 8, the
/// padding zero). Four inputs at a time (eight independent sums), then one: the same operations per output.
static void KERNEL(polyphase_complex)(const float *re, const float *im, size_t count, const float *taps,
                                      size_t length, size_t factor, size_t stride, float *output) {
    size_t k = 0;
    for (; k + 4 <= count; k += 4) {
        for (size_t p = 0; p < factor; p += 8) {
            f8 a0 = splat8(0), a1 = splat8(0), a2 = splat8(0), a3 = splat8(0);
            f8 b0 = splat8(0), b1 = splat8(0), b2 = splat8(0), b3 = splat8(0);
            for (size_t j = 0; j < length; j++) {
                f8 tr = load8(taps + 2 * j * stride + p), ti = load8(taps + (2 * j + 1) * stride + p);
                const float *r = re + k - j, *i = im + k - j;
                a0 = fma8(tr, splat8(r[0]), a0);
                b0 = fma8(ti, splat8(i[0]), b0);
                a1 = fma8(tr, splat8(r[1]), a1);
                b1 = fma8(ti, splat8(i[1]), b1);
                a2 = fma8(tr, splat8(r[2]), a2);
                b2 = fma8(ti, splat8(i[2]), b2);
                a3 = fma8(tr, splat8(r[3]), a3);
                b3 = fma8(ti, splat8(i[3]), b3);
            }
            f8 y[4] = {a0 + b0, a1 + b1, a2 + b2, a3 + b3};
            size_t n = factor - p < 8 ? factor - p : 8;
            for (int m = 0; m < 4; m++) {
                if (n == 8) store8(output + (k + m) * factor + p, y[m]);
                else memcpy(output + (k + m) * factor + p, &y[m], n * sizeof(float));
            }
        }
    }
    for (; k < count; k++) {
        for (size_t p = 0; p < factor; p += 8) {
            f8 a = splat8(0), b = splat8(0);
            for (size_t j = 0; j < length; j++) {
                a = fma8(load8(taps + 2 * j * stride + p), splat8(*(re + k - j)), a);
                b = fma8(load8(taps + (2 * j + 1) * stride + p), splat8(*(im + k - j)), b);
            }
            f8 y = a + b;
            size_t n = factor - p < 8 ? factor - p : 8;
            memcpy(output + k * factor + p, &y, n * sizeof(float));
        }
    }
}
