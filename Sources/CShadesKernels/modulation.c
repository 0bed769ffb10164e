// The lane phasors of the amplitude-modulation gain curve (`AmplitudeModulatedSource`): libm's sine and
// cosine of 32 angles per 4,096 frames. Not a per-instruction-set kernel: the work is libm's.
#define _GNU_SOURCE
#include <math.h>
#include "CShadesKernels.h"

// The angles as Swift computes them: no multiply-add fused.
#pragma clang fp contract(off)

void shades_modulation_phasors(const double segment_cycles[4], double cycles_per_frame, double cosines[32],
                               double sines[32]) {
    const double two_pi = 2 * 3.141592653589793;
    for (int k = 0; k < 4; k++) {
        for (int lane = 0; lane < 8; lane++) {
            double angle = two_pi * (segment_cycles[k] + (double)lane * cycles_per_frame);
#if defined(__GLIBC__)
            // One argument reduction for both: glibc's sincos gives the bits of its sin and cos.
            sincos(angle, &sines[8 * k + lane], &cosines[8 * k + lane]);
#else
            sines[8 * k + lane] = sin(angle);
            cosines[8 * k + lane] = cos(angle);
#endif
        }
    }
}
