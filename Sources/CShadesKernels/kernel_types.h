// The kernels' lane types (part of kernel_body.h; also used by Tests/KernelHarness).
#include <stdint.h>

typedef float f8 __attribute__((ext_vector_type(8)));
typedef float f16 __attribute__((ext_vector_type(16)));
typedef uint32_t u8 __attribute__((ext_vector_type(8)));
typedef int32_t i8 __attribute__((ext_vector_type(8)));
typedef uint32_t u32x16 __attribute__((ext_vector_type(16)));
typedef int32_t i32x16 __attribute__((ext_vector_type(16)));

/// Lane helpers overloaded on the width (clang's `overloadable`).
#define OVERLOADED static inline __attribute__((always_inline, overloadable))
