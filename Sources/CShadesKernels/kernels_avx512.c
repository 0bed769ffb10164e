// The kernels for x86-64 with AVX-512 (F, VL, BW, DQ): 256-bit vectors with 32 registers, and 512-bit ones
// where a kernel works in 16 Float or 8 Double lanes (the block IIR, the FIR, the quantiser, the level
// sums, the modulation's gains, and with SHADES_SIXTEEN_LANES the white noise).
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,prefer-256-bit"))), apply_to = function)
#define KERNEL(name) avx512_##name
// The white noise in 16 lanes and the FIR's shifted inputs by lane rotation (valignd), the same bits. Not
// for AVX2: with its 16 registers the white noise gained nothing from 16 lanes, and it has no rotation
// across a whole vector.
#define SHADES_SIXTEEN_LANES 1
#include "kernel_body.h"
#pragma clang attribute pop

const shades_kernels *shades_kernels_avx512(void) { return &avx512_table; }
#endif
