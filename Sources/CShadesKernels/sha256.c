// SHA-256's compression function with the x86 SHA extensions, for the catalogue's file hashes (`SHA256`
// in ShadesCatalogue: plain Swift hashes about 250 MB/s here, a catalogue song's 86 MB in a third of a
// second; the extensions do several GB/s). Not a per-instruction-set kernel: one variant, used when the CPU
// has the extensions (AMD since Zen, Intel since Ice Lake and Goldmont); otherwise Swift hashes.
#include "CShadesKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/// FIPS 180-4 §6.2.2 on `blocks` 64-byte blocks: four rounds per step, `sha256rnds2` doing two; the message
/// schedule four words at a time (`sha256msg1`, `sha256msg2`). The state is kept as ABEF and CDGH, the
/// order the instructions take.
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i w[4];   // message words 4g … 4g + 3 of the last four steps, w[g mod 4]
        for (int g = 0; g < 16; g++) {
            __m128i words;
            if (g < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            } else {
                __m128i partial = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                partial = _mm_add_epi32(partial, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(partial, w[(g + 3) & 3]);
            }
            w[g & 3] = words;
            __m128i sums = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sums);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sums, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/// CPUID: SHA (leaf 7, EBX bit 29), SSSE3 and SSE4.1 (leaf 1, ECX bits 9 and 19).
static int has_sha_extensions(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19))) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 29) & 1;
}
#endif

int shades_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
#if defined(__x86_64__)
    // Checked once; threads hashing at the same time may each check, so the flag is read and written
    // atomically (relaxed: every thread computes the same value).
    static int available = -1;
    int known = __atomic_load_n(&available, __ATOMIC_RELAXED);
    if (known < 0) {
        known = has_sha_extensions();
        __atomic_store_n(&available, known, __ATOMIC_RELAXED);
    }
    if (known) {
        sha256_blocks_extensions(state, data, blocks);
        return 1;
    }
#endif
    (void)state, (void)data, (void)blocks;
    return 0;
}
