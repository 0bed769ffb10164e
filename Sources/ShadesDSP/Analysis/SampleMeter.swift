/// Anything that measures a signal chunk by chunk: Σx² and peak (``SignalMeasurement``), a true-peak
/// meter.
package protocol SampleMeter: Sendable {
    mutating func add(_ samples: UnsafeBufferPointer<Float>)
    /// Adds `samples` and quantises them × `scale` to 16 bits with `dither` (see
    /// ``LaneRandom/quantize16(_:scale:into:)``); returns the level of the values written.
    mutating func addQuantizing16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                  into output: UnsafeMutableBufferPointer<Int16>, dither: inout LaneRandom) -> SignalMeasurement
}

extension SampleMeter {
    /// Measures, then quantises: two passes over the samples.
    package mutating func addQuantizing16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                          into output: UnsafeMutableBufferPointer<Int16>, dither: inout LaneRandom) -> SignalMeasurement {
        add(samples)
        return dither.quantize16(samples, scale: scale, into: output)
    }
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

    /// Measures inside the quantiser: one pass over the samples, the same sums as ``add(_:)``.
    package mutating func addQuantizing16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                          into output: UnsafeMutableBufferPointer<Int16>, dither: inout LaneRandom) -> SignalMeasurement {
        dither.quantize16(samples, scale: scale, into: output, measuringInput: &self)
    }
}

