/// Eight independent xoshiro128** generators in SIMD lanes: 8 random 32-bit words per call.
///
/// Each lane is seeded from `key` with SplitMix64, so streams with different keys are independent.
/// xoshiro128** (Blackman & Vigna 2018) passes BigCrush; lanes make the fill about 6× faster than one
/// scalar generator.
package struct LaneRandom: Sendable {
    // Inlinable from other modules (the quantiser's dither): a call per eight words cost a fifth of it.
    @usableFromInline var s0: SIMD8<UInt32>, s1: SIMD8<UInt32>, s2: SIMD8<UInt32>, s3: SIMD8<UInt32>

    /// Seeds all lanes from one 64-bit key.
    package init(key: UInt64) {
        var mixer = SplitMix64(seed: key)
        var words = [SIMD8<UInt32>](repeating: .zero, count: 4)
        for w in 0..<4 {
            for lane in 0..<8 {
                var v = UInt32(truncatingIfNeeded: mixer.next() >> 32)
                if v == 0 { v = 0x9E37_79B9 }  // an all-zero lane state would stay zero
                words[w][lane] = v
            }
        }
        (s0, s1, s2, s3) = (words[0], words[1], words[2], words[3])
    }

    @inlinable @inline(__always) static func rotl(_ x: SIMD8<UInt32>, _ k: UInt32) -> SIMD8<UInt32> {
        (x &<< SIMD8(repeating: k)) | (x &>> SIMD8(repeating: 32 - k))
    }

    /// The next eight uniformly distributed 32-bit words.
    @inlinable @inline(__always) package mutating func next() -> SIMD8<UInt32> {
        let result = Self.rotl(s1 &* 5, 7) &* 9
        let t = s1 &<< 9
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotl(s3, 11)
        return result
    }
}
