// Chooses the kernel table for this CPU.
#include "CShadesKernels.h"

const shades_kernels *shades_kernels_baseline(void);
#if defined(__x86_64__)
const shades_kernels *shades_kernels_avx2(void);
const shades_kernels *shades_kernels_avx512(void);

static int has_avx2_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static int has_avx512(void) {
    __builtin_cpu_init();
    return has_avx2_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}
#endif

const shades_kernels *shades_kernels_for(shades_kernel_set set) {
    switch (set) {
    case SHADES_KERNELS_BASELINE: return shades_kernels_baseline();
#if defined(__x86_64__)
    case SHADES_KERNELS_AVX2_FMA: return has_avx2_fma() ? shades_kernels_avx2() : 0;
    case SHADES_KERNELS_AVX512: return has_avx512() ? shades_kernels_avx512() : 0;
#endif
    default: return 0;
    }
}

shades_kernel_set shades_kernels_best(void) {
#if defined(__x86_64__)
    if (has_avx512()) return SHADES_KERNELS_AVX512;
    if (has_avx2_fma()) return SHADES_KERNELS_AVX2_FMA;
#endif
    return SHADES_KERNELS_BASELINE;
}
