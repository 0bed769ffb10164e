// The kernels for x86-64 with AVX-512 (F, VL, BW, DQ): 256-bit vectors with 32 registers.
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,prefer-256-bit"))), apply_to = function)
#define KERNEL(name) avx512_##name
#include "kernel_body.h"
#pragma clang attribute pop

const shades_kernels *shades_kernels_avx512(void) { return &avx512_table; }
#endif
