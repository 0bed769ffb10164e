// The lane phasors of the amplitude-modulation gain curve (`AmplitudeModulatedSource`): libm's sine and
// cosine of each segment's start, turned to its eight lanes. Not a per-instruction-set kernel: the work is
// libm's.
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

void shades_modulation_lane_turns(double cycles_per_frame, double cosines[8], double sines[8]) {
    const double two_pi = 2 * 3.141592653589793;
    for (int lane = 0; lane < 8; lane++) sine_and_cosine(two_pi * ((double)lane * cycles_per_frame), &sines[lane], &cosines[lane]);
}

void shades_modulation_phasors(const double segment_cycles[4], const double lane_cosines[8], const double lane_sines[8],
                               double cosines[32], double sines[32]) {
    const double two_pi = 2 * 3.141592653589793;
    for (int k = 0; k < 4; k++) {
        double sine, cosine;
        sine_and_cosine(two_pi * segment_cycles[k], &sine, &cosine);
        for (int lane = 0; lane < 8; lane++) {
            cosines[8 * k + lane] = cosine * lane_cosines[lane] - sine * lane_sines[lane];
            sines[8 * k + lane] = sine * lane_cosines[lane] + cosine * lane_sines[lane];
        }
    }
}
