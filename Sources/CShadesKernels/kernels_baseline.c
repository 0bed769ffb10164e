// The kernels for the compiler's default target (baseline x86-64, arm64).
#define KERNEL(name) baseline_##name
#include "kernel_body.h"

const shades_kernels *shades_kernels_baseline(void) { return &baseline_table; }
