/// Anything that measures a signal chunk by chunk: Σx² and peak (``SignalMeasurement``), a true-peak
/// meter.
package protocol SampleMeter: Sendable {
    /// Adds the next samples of the signal (any count).
    mutating func add(_ samples: UnsafeBufferPointer<Float>)
}

extension TruePeakMeter: SampleMeter {}

/// Σx² and the peak |x| of one signal before its gain.
package struct SignalMeasurement: SampleMeter, Equatable {
    package var sumOfSquares: Double
    package var peak: Float

    package init(sumOfSquares: Double, peak: Float) { (self.sumOfSquares, self.peak) = (sumOfSquares, peak) }

    /// Adds one chunk's measurement (every pass sums chunks in the same order, so the sums agree to the bit).
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        let m = SignalLevel.measure(samples)
        sumOfSquares += m.sumOfSquares
        peak = max(peak, m.peak)
    }
}

