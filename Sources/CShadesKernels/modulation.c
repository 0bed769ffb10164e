// The lane phasors of the amplitude-modulation gain curve (`AmplitudeModulatedSource`): libm's sine and
// cosine of 32 angles per 4,096 frames. Not a per-instruction-set kernel: the work is libm's.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include "CShadesKernels.h"

// The angles as Swift computes them: no multiply-add fused.
#pragma clang fp contract(off)

/// sin(x) and cos(x), the values libm's `sin` and `cos` give. glibc's `sincos` shares one argument
/// reduction and gives `cos`'s value everywhere, and `sin`'s everywhere but for |x| in [2⁻²⁷, 2⁻²⁶) and
/// [0.85546875, 2.42626…) (sysdeps/ieee754/dbl-64/s_sincos.c against s_sin.c: there it reaches the same
/// sine through another sum); in a band around those the sine comes from `sin` itself.
static inline void sine_and_cosine(double x, double *sine, double *cosine) {
#if defined(__GLIBC__)
    sincos(x, sine, cosine);
    double magnitude = fabs(x);
    if (magnitude < 0x1p-26 || (magnitude >= 0.85 && magnitude < 2.43)) *sine = sin(x);
#else
    *sine = sin(x);
    *cosine = cos(x);
#endif
}

void shades_modulation_phasors(const double segment_cycles[4], double cycles_per_frame, double cosines[32],
                               double sines[32]) {
    const double two_pi = 2 * 3.141592653589793;
    for (int k = 0; k < 4; k++) {
        for (int lane = 0; lane < 8; lane++) {
            double angle = two_pi * (segment_cycles[k] + (double)lane * cycles_per_frame);
            sine_and_cosine(angle, &sines[8 * k + lane], &cosines[8 * k + lane]);
        }
    }
}
