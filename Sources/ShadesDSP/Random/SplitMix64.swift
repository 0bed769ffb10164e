/// SplitMix64: turns a seed into well-mixed 64-bit words; seeds the lane generators, and draws the random
/// choices of patterns and procedures (the order of a pitch-matching pair, a simulated listener).
package struct SplitMix64: Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in [0, 1) (53 bits).
    package mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// Derives independent stream keys from one user seed: one per (purpose, channel).
package enum SeedStream: UInt64, Sendable {
    case noise = 1
    case dither = 2
    case phase = 3
    /// Choices of timed patterns: coordinated-reset tone orders, spectral-ripple segments.
    case schedule = 4
    /// Random envelopes: random amplitude modulation's knots, surf's wave times.
    case envelope = 5

    /// A 64-bit key for `channel` of this purpose under `seed`.
    package func key(seed: UInt64, channel: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (rawValue &* 0xD1B5_4A32_D192_ED03))
        var key = mixer.next()
        for _ in 0...channel { key = mixer.next() }
        return key
    }
}
