import ShadesDSP

/// Turns one signal's Float samples into file samples with a gain: 16-bit with TPDF dither of ±1 LSB
/// (the difference of two independent uniform values) from the signal's own seeded stream, so the same
/// render gives the same bytes every time and whatever the threading. Exact zeros need no dither and
/// stay zero: the gaps between pulses and the ends of fades are digital silence.
public struct SignalQuantizer: Sendable {
    private var dither: LaneRandom

    /// `ditherKey` selects the dither stream (see `SeedStream.dither`).
    public init(ditherKey: UInt64) { dither = LaneRandom(key: ditherKey) }

    /// `samples` × `gain` → 16-bit values in `output` (same count), TPDF dithered and rounded.
    public mutating func quantize16(_ samples: UnsafeBufferPointer<Float>, gain: Float,
                                    into output: UnsafeMutableBufferPointer<Int16>) {
        precondition(output.count >= samples.count)
        let scale = SIMD8<Float>(repeating: gain * 32_768)
        let source = UnsafeRawPointer(samples.baseAddress!)
        let target = UnsafeMutableRawPointer(output.baseAddress!)
        let n = samples.count, whole = n - n % 8
        var i = 0
        while i < whole {
            let x = source.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            target.storeBytes(of: quantizeEight(x, scale: scale), toByteOffset: i * 2, as: SIMD4<UInt32>.self)
            i += 8
        }
        if i < n {
            var x = SIMD8<Float>()
            for lane in 0..<n - i { x[lane] = samples[i + lane] }
            let last = quantizeEight(x, scale: scale)
            for lane in 0..<n - i { output[i + lane] = Int16(truncatingIfNeeded: last[lane / 2] >> (16 * UInt32(lane % 2))) }
        }
    }

    /// Eight samples × `scale` + TPDF dither, rounded to nearest and clamped to 16 bits, packed two to a
    /// 32-bit word (the first in the low half: little-endian order in memory).
    @inline(__always) private mutating func quantizeEight(_ x: SIMD8<Float>, scale: SIMD8<Float>) -> SIMD4<UInt32> {
        let words = dither.next()
        // Two independent 16-bit uniforms per word: their difference is triangular on (−1, 1) LSB.
        let tpdf = (floatOfSmall(words &>> 16) - floatOfSmall(words & 0xFFFF)) * (1 / 65_536)
        // Exact zeros get no dither and stay zero: all ones where x ≠ 0 (its magnitude bits are positive).
        let magnitude = unsafeBitCast(x, to: SIMD8<Int32>.self) & 0x7FFF_FFFF
        let nonZero = unsafeBitCast((SIMD8<Int32>.zero &- magnitude) &>> 31, to: SIMD8<UInt32>.self)
        let dither = unsafeBitCast(unsafeBitCast(tpdf, to: SIMD8<UInt32>.self) & nonZero, to: SIMD8<Float>.self)
        // Round to nearest with the 1.5·2²³ trick (exact for |v| < 2²²).
        let rounded = unsafeBitCast(x * scale + dither + 12_582_912, to: SIMD8<Int32>.self) &- 0x4B40_0000
        // Clamped to −32768 … 32767 with shifts and masks (the generic clamp ran in half-width registers).
        let aboveTop = rounded &- 32_767
        let belowTop = rounded &- (aboveTop & ~(aboveTop &>> 31))
        let aboveBottom = belowTop &+ 32_768
        let clamped = belowTop &- (aboveBottom & (aboveBottom &>> 31))
        // Pairs packed with 32-bit lane shuffles (a 16-bit narrowing went lane by lane).
        let values = unsafeBitCast(clamped, to: SIMD8<UInt32>.self)
        return (values.evenHalf & 0xFFFF) | (values.oddHalf &<< 16)
    }

    /// `samples` × `gain` → Float `output` (for 24-bit and float files; libsndfile converts).
    public static func scale(_ samples: UnsafeBufferPointer<Float>, gain: Float, into output: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<samples.count { output[i] = samples[i] * gain }
    }

    @inline(__always) private func floatOfSmall(_ x: SIMD8<UInt32>) -> SIMD8<Float> {
        unsafeBitCast(x | 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_608
    }
}

/// Interleaves planar channels (some silent) into one frame-ordered buffer.
public enum Interleave {
    /// `planes[c]` (nil = silence) → `output[frame * planes.count + c]` for `frames` frames.
    public static func frames(_ planes: [UnsafePointer<Int16>?], frames: Int, into output: UnsafeMutablePointer<Int16>) {
        if planes.count == 2, let left = planes[0], let right = planes[1] {
            // Stereo: pack each pair of 16-bit samples into one 32-bit word.
            output.withMemoryRebound(to: UInt32.self, capacity: frames) { words in
                for i in 0..<frames {
                    words[i] = UInt32(UInt16(bitPattern: left[i])) | UInt32(UInt16(bitPattern: right[i])) << 16
                }
            }
            return
        }
        interleave(planes, frames: frames, into: output)
    }

    /// `planes[c]` (nil = silence) → `output[frame * planes.count + c]` for `frames` frames.
    public static func frames(_ planes: [UnsafePointer<Float>?], frames: Int, into output: UnsafeMutablePointer<Float>) {
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
