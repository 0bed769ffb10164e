// The kernels for x86-64 with AVX-512 (F, VL, BW, DQ): 256-bit vectors with 32 registers, and 512-bit ones
// where a kernel says 16 lanes (the block IIR, the FIR, the level sums, and with SHADES_SIXTEEN_LANES the
// generators' and the quantiser's arithmetic).
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,prefer-256-bit"))), apply_to = function)
#define KERNEL(name) avx512_##name
// The white noise and the quantiser in 16 lanes, the FIR's shifted inputs by lane rotation (valignd):
// 10-minute stereo pink noise 0.141 → 0.128 s (compare-peers), the same bits.
#define SHADES_SIXTEEN_LANES 1
#include "kernel_body.h"
#pragma clang attribute pop

const shades_kernels *shades_kernels_avx512(void) { return &avx512_table; }
#endif
