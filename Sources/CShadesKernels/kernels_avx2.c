// The kernels for x86-64 with AVX2 and FMA.
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#define KERNEL(name) avx2_##name
#include "kernel_body.h"
#pragma clang attribute pop

const shades_kernels *shades_kernels_avx2(void) { return &avx2_table; }
#endif
