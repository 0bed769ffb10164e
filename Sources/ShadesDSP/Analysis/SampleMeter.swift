/// Anything that measures a signal chunk by chunk: Σx² and peak (``SignalMeasurement``), a true-peak
/// meter.
public protocol SampleMeter: Sendable {
    mutating func add(_ samples: UnsafeBufferPointer<Float>)
}

extension TruePeakMeter: SampleMeter {}

/// Σx² and the peak |x| of one signal before its gain.
public struct SignalMeasurement: SampleMeter, Equatable {
    public var sumOfSquares: Double
    public var peak: Float

    public init(sumOfSquares: Double, peak: Float) { (self.sumOfSquares, self.peak) = (sumOfSquares, peak) }

    /// Adds one chunk's measurement (every pass sums chunks in the same order, so the sums agree to the bit).
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        let m = SignalLevel.measure(samples)
        sumOfSquares += m.sumOfSquares
        peak = max(peak, m.peak)
    }
}

