/// Unit-variance Gaussian white noise whose sums over blocks of ``blockLength`` samples are drawn first,
/// from a stream of their own, so that ``NoisePowerForecast`` can read a coloured noise's low band without
/// drawing the samples (the white noise of every coloured ``NoiseSource`` that does not loop).
///
/// Each block is drawn as D independent Gaussians z with their mean replaced by the block's own:
/// x = z − z̄ + S / D, where S = √D · g and g is the next value of the sums' stream. The departures z − z̄
/// are independent of z̄, and S / D has z̄'s distribution N(0, 1/D), so x is again independent unit-variance
/// Gaussian noise, and each block of x sums to S (to Float rounding). The forecast draws only g: one value
/// per block instead of D.
package struct BlockSummedWhiteNoise: Sendable {
    /// Samples per block: ``NoisePowerForecast/decimation(sampleRate:)``, a power of two (8 at 8 kHz, 32 at
    /// 44.1 and 48 kHz, 128 at 192 kHz).
    package let blockLength: Int
    private var samples: LaneRandom
    private var sums: LaneRandom
    /// One drawn sum per block of the largest fill (scratch).
    private var unitSums: [Float]

    /// The white noise of stream `key` at `sampleRate`, in fills of at most `maximumFrames` samples.
    package init(key: UInt64, sampleRate: Double, maximumFrames: Int) {
        blockLength = NoisePowerForecast.decimation(sampleRate: sampleRate)
        samples = LaneRandom(key: key)
        sums = Self.sumsRandom(key: key)
        unitSums = [Float](repeating: 0, count: max(16, maximumFrames / blockLength))
    }

    /// The block sums' stream of noise stream `key`: each value is a block's sum over √D (unit variance),
    /// drawn with `WhiteNoise.fill` (Gaussian) one block after another, as ``fill(_:)`` draws them.
    package static func sumsRandom(key: UInt64) -> LaneRandom {
        var mixer = SplitMix64(seed: key ^ 0xB10C_5A35_0F5E_ED00)
        return LaneRandom(key: mixer.next())
    }

    /// Fills `output` (whole groups of 16 blocks, at most `maximumFrames` samples) with the next samples.
    package mutating func fill(_ output: UnsafeMutableBufferPointer<Float>) {
        let blocks = output.count / blockLength
        precondition(blocks * blockLength == output.count && blocks <= unitSums.count, "whole blocks, at most the largest fill")
        WhiteNoise.fill(output, distribution: .gaussian, random: &samples)
        let length = blockLength
        unitSums.withUnsafeMutableBufferPointer { drawn in
            let these = UnsafeMutableBufferPointer(rebasing: drawn[0..<blocks])
            WhiteNoise.fill(these, distribution: .gaussian, random: &sums)
            // x = z + (g / √D − Σz / D) in each block (the C kernel `replace_block_means`).
            Kernels.table.replace_block_means!(output.baseAddress!, output.count, length, these.baseAddress!)
        }
    }
}
