import ShadesDSP

/// Turns non-interleaved Float channels into interleaved file samples, applying a gain per channel.
///
/// 16-bit output gets TPDF dither of ±1 LSB (the sum of two independent uniform values), drawn from its
/// own seeded stream, so the same render gives the same bytes every time.
struct Quantizer {
    private var dither: LaneRandom

    init(ditherKey: UInt64) { dither = LaneRandom(key: ditherKey) }

    /// Frames `frames` of `channels` × `gains` → interleaved Int16 in `output` (TPDF dithered, rounded).
    mutating func interleaveS16(_ channels: [UnsafeMutableBufferPointer<Float>], frames: Range<Int>, gains: [Float],
                                into output: UnsafeMutableBufferPointer<Int16>) {
        let channelCount = channels.count
        for (c, channel) in channels.enumerated() {
            let scale = SIMD8<Float>(repeating: gains[c] * 32_768)
            let source = UnsafeRawPointer(channel.baseAddress! + frames.lowerBound)
            var i = 0
            while i < frames.count {
                let words = dither.next()
                // Two independent 16-bit uniforms per word: their difference is triangular on (−1, 1) LSB.
                let tpdf = (floatOfSmall(words &>> 16) - floatOfSmall(words & 0xFFFF)) * (1 / 65_536)
                let count = min(8, frames.count - i)
                var x = SIMD8<Float>()
                if count == 8 {
                    x = source.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                } else {
                    for lane in 0..<count { x[lane] = channel[frames.lowerBound + i + lane] }
                }
                // Round to nearest with the 1.5·2²³ trick: exact for |v| < 2²², no int conversion call.
                let v = x * scale + tpdf
                let bits = unsafeBitCast(v + 12_582_912, to: SIMD8<Int32>.self) &- 0x4B40_0000
                let clamped = bits.clamped(lowerBound: SIMD8(repeating: -32_768), upperBound: SIMD8(repeating: 32_767))
                for lane in 0..<count {
                    output[(i + lane) * channelCount + c] = Int16(truncatingIfNeeded: clamped[lane])
                }
                i += 8
            }
        }
    }

    /// Frames `frames` of `channels` × `gains` → interleaved Float (for 24-bit and float files).
    static func interleaveFloat(_ channels: [UnsafeMutableBufferPointer<Float>], frames: Range<Int>, gains: [Float],
                                into output: UnsafeMutableBufferPointer<Float>) {
        let channelCount = channels.count
        for (c, channel) in channels.enumerated() {
            let g = gains[c]
            for i in 0..<frames.count {
                output[i * channelCount + c] = channel[frames.lowerBound + i] * g
            }
        }
    }

    @inline(__always) private func floatOfSmall(_ x: SIMD8<UInt32>) -> SIMD8<Float> {
        unsafeBitCast(x | 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_608
    }
}
