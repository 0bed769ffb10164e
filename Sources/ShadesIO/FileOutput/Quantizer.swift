import ShadesDSP

/// Turns one signal's Float samples into file samples with a gain: 16-bit with TPDF dither of ±1 LSB
/// (the difference of two independent uniform values) from the signal's own seeded stream, so the same
/// render gives the same bytes every time and whatever the threading. Exact zeros need no dither and
/// stay zero: the gaps between pulses and the ends of fades are digital silence.
package struct SignalQuantizer: Sendable {
    private var dither: LaneRandom

    /// `ditherKey` selects the dither stream (see `SeedStream.dither`).
    package init(ditherKey: UInt64) { dither = LaneRandom(key: ditherKey) }

    /// `samples` × `gain` → 16-bit values in `output` (same count), TPDF dithered and rounded; returns the
    /// level of the values written (full scale 1.0).
    @discardableResult
    package mutating func quantize16(_ samples: UnsafeBufferPointer<Float>, gain: Float,
                                    into output: UnsafeMutableBufferPointer<Int16>) -> SignalMeasurement {
        dither.quantize16(samples, scale: gain * 32_768, into: output)
    }

    /// ``quantize16(_:gain:into:)`` that also adds `samples` (before the gain) to `meter`: a
    /// ``SignalMeasurement`` inside the quantiser's pass over the samples (the same sums as its `add`), any
    /// other meter in a pass of its own first.
    package mutating func quantize16<M: SampleMeter>(_ samples: UnsafeBufferPointer<Float>, gain: Float,
                                                    into output: UnsafeMutableBufferPointer<Int16>, measuring meter: inout M) -> SignalMeasurement {
        if var level = meter as? SignalMeasurement {
            let written = dither.quantize16(samples, scale: gain * 32_768, into: output, measuringInput: &level)
            meter = level as! M
            return written
        }
        meter.add(samples)
        return dither.quantize16(samples, scale: gain * 32_768, into: output)
    }

    /// `samples` × `gain` → Float `output` (for 24-bit and float files; libsndfile converts).
    package static func scale(_ samples: UnsafeBufferPointer<Float>, gain: Float, into output: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<samples.count { output[i] = samples[i] * gain }
    }
}

/// Interleaves planar channels (some silent) into one frame-ordered buffer.
package enum Interleave {
    /// `planes[c]` (nil = silence) → `output[frame * planes.count + c]` for `frames` frames.
    package static func frames(_ planes: [UnsafePointer<Int16>?], frames: Int, into output: UnsafeMutablePointer<Int16>) {
        if planes.count == 2, let left = planes[0], let right = planes[1] {
            Kernels.interleaveStereo16(left: left, right: right, frames: frames, into: output)
            return
        }
        interleave(planes, frames: frames, into: output)
    }

    /// `planes[c]` (nil = silence) → `output[frame * planes.count + c]` for `frames` frames.
    package static func frames(_ planes: [UnsafePointer<Float>?], frames: Int, into output: UnsafeMutablePointer<Float>) {
        if planes.count == 2, let left = planes[0], let right = planes[1] {
            Kernels.interleaveStereo(left: left, right: right, frames: frames, into: output)
            return
        }
        interleave(planes, frames: frames, into: output)
    }

    @inline(__always)
    private static func interleave<T: Numeric>(_ planes: [UnsafePointer<T>?], frames: Int, into output: UnsafeMutablePointer<T>) {
        let channels = planes.count
        for (c, plane) in planes.enumerated() {
            if let plane {
                for i in 0..<frames { output[i * channels + c] = plane[i] }
            } else {
                for i in 0..<frames { output[i * channels + c] = 0 }
            }
        }
    }
}
