/// Level measurements of sample buffers (Double accumulation).
public enum SignalLevel {
    /// Root mean square (linear, full scale 1.0).
    public static func rms(_ samples: UnsafeBufferPointer<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (sumOfSquares(samples) / Double(samples.count)).squareRoot()
    }

    /// Σx² in Double.
    public static func sumOfSquares(_ samples: UnsafeBufferPointer<Float>) -> Double { measure(samples).sumOfSquares }

    /// Largest absolute sample value.
    public static func peak(_ samples: UnsafeBufferPointer<Float>) -> Float { measure(samples).peak }

    /// Σx² (in Double, from 8-lane Float partial sums over 1,024 samples) and the largest |x|, in one pass
    /// (the C kernel `sum_of_squares_and_peak`).
    public static func measure(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Double, peak: Float) {
        guard let base = samples.baseAddress else { return (0, 0) }
        var total = 0.0
        var peak: Float = 0
        Kernels.table.sum_of_squares_and_peak!(base, samples.count, &total, &peak)
        return (total, peak)
    }

    /// RMS in dBFS.
    public static func rmsDBFS(_ samples: UnsafeBufferPointer<Float>) -> Double { Decibels.fromAmplitude(rms(samples)) }
}
