/// Level measurements of sample buffers (Double accumulation).
package enum SignalLevel {
    /// Root mean square (linear, full scale 1.0).
    package static func rms(_ samples: UnsafeBufferPointer<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (sumOfSquares(samples) / Double(samples.count)).squareRoot()
    }

    /// Σx² in Double.
    package static func sumOfSquares(_ samples: UnsafeBufferPointer<Float>) -> Double { measure(samples).sumOfSquares }

    /// Largest absolute sample value.
    package static func peak(_ samples: UnsafeBufferPointer<Float>) -> Float { measure(samples).peak }

    /// Σx² (in Double, from 8-lane Float partial sums over 1,024 samples) and the largest |x|, in one pass
    /// (the C kernel `sum_of_squares_and_peak`).
    package static func measure(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Double, peak: Float) {
        guard let base = samples.baseAddress else { return (0, 0) }
        var total = 0.0
        var peak: Float = 0
        Kernels.table.sum_of_squares_and_peak!(base, samples.count, &total, &peak)
        return (total, peak)
    }

    /// RMS in dBFS.
    package static func rmsDBFS(_ samples: UnsafeBufferPointer<Float>) -> Double { Decibels.fromAmplitude(rms(samples)) }
}
