/// Sample distribution of white noise.
public enum WhiteDistribution: String, CaseIterable, Sendable, Codable {
    /// Normal distribution (default): what a sum of many independent sources gives.
    case gaussian
    /// Uniform on [−√3, √3].
    case uniform
}

/// Unit-variance white noise over SIMD lanes, made by the C kernels (`CShadesKernels`, Box–Muller with
/// fixed polynomials for log, sin and cos and the correctly rounded √ instruction, no libm calls).
/// Deterministic to the bit on every CPU.
package enum WhiteNoise {
    /// Fills `output` (a multiple of 16 samples) with unit-variance white noise drawn from `random`.
    package static func fill(_ output: UnsafeMutableBufferPointer<Float>, distribution: WhiteDistribution,
                            random: inout LaneRandom) {
        precondition(output.count % 16 == 0, "white noise fills whole groups of 16 samples")
        guard let base = output.baseAddress else { return }
        random.withKernelState { state in
            switch distribution {
            case .gaussian: Kernels.table.white_gaussian!(base, output.count, state)
            case .uniform: Kernels.table.white_uniform!(base, output.count, state)
            }
        }
    }

    /// Eight points uniformly distributed on the unit circle: (cos θ, sin θ). The low 2 bits of each word
    /// pick a quadrant, the top 23 the angle inside it.
    package static func unitPhasors(_ words: SIMD8<UInt32>) -> (SIMD8<Float>, SIMD8<Float>) {
        var words = words
        var cosines = SIMD8<Float>(), sines = SIMD8<Float>()
        withUnsafeBytes(of: &words) { w in
            withUnsafeMutableBytes(of: &cosines) { c in
                withUnsafeMutableBytes(of: &sines) { s in
                    Kernels.table.unit_phasors!(w.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                               c.baseAddress!.assumingMemoryBound(to: Float.self),
                                               s.baseAddress!.assumingMemoryBound(to: Float.self))
                }
            }
        }
        return (cosines, sines)
    }
}
