/// The SIMD passes behind ShadesAnalysis' `LevelStatistics` (the C kernels `level_moments` and
/// `level_moments_pair`).
package enum LevelKernel {
    /// |x| at or above which a sample counts as clipped: 1 − 2⁻¹⁵ (ShadesAnalysis' `LevelStatistics.clipThreshold`).
    package static let clipThreshold: Float = 1 - 1.0 / 32768

    /// One channel's Σx, Σx² (Double), largest |x| and clipped samples.
    package struct Moments {
        package var sum = 0.0
        package var sumOfSquares = 0.0
        package var peak: Float = 0
        package var clipped = 0
    }

    /// Σx, Σx², largest |x| and clipped samples of one channel.
    package static func measure(_ x: UnsafeBufferPointer<Float>) -> Moments {
        guard let base = x.baseAddress else { return Moments() }
        var sums = (0.0, 0.0), peak: Float = 0, clipped: Int64 = 0
        withUnsafeMutableBytes(of: &sums) { sums in
            Kernels.table.level_moments!(base, x.count, clipThreshold,
                                         sums.baseAddress!.assumingMemoryBound(to: Double.self), &peak, &clipped)
        }
        return Moments(sum: sums.0, sumOfSquares: sums.1, peak: peak, clipped: Int(clipped))
    }

    /// Both channels' moments and Σ a·b in one pass.
    package static func measurePair(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>)
        -> (Moments, Moments, crossSum: Double) {
        guard let baseA = a.baseAddress, let baseB = b.baseAddress else { return (Moments(), Moments(), 0) }
        var sums = (0.0, 0.0, 0.0, 0.0, 0.0), peaks: (Float, Float) = (0, 0), clipped: (Int64, Int64) = (0, 0)
        withUnsafeMutableBytes(of: &sums) { sums in
            withUnsafeMutableBytes(of: &peaks) { peaks in
                withUnsafeMutableBytes(of: &clipped) { clipped in
                    Kernels.table.level_moments_pair!(baseA, baseB, min(a.count, b.count), clipThreshold,
                                                      sums.baseAddress!.assumingMemoryBound(to: Double.self),
                                                      peaks.baseAddress!.assumingMemoryBound(to: Float.self),
                                                      clipped.baseAddress!.assumingMemoryBound(to: Int64.self))
                }
            }
        }
        return (Moments(sum: sums.0, sumOfSquares: sums.1, peak: peaks.0, clipped: Int(clipped.0)),
                Moments(sum: sums.2, sumOfSquares: sums.3, peak: peaks.1, clipped: Int(clipped.1)), sums.4)
    }
}
