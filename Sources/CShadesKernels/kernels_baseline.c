// The kernels for the compiler's default target (baseline x86-64, arm64).
// x86-64's baseline (SSE2) has no fused multiply-add: the kernels' `fused` emulates it exactly in Double
// lanes (kernel_fused.h). arm64 has the instruction.
#if defined(__x86_64__) && !defined(__FMA__)
#define SHADES_EMULATED_FMA 1
#endif
#define KERNEL(name) baseline_##name
#include "kernel_body.h"

const shades_kernels *shades_kernels_baseline(void) { return &baseline_table; }
