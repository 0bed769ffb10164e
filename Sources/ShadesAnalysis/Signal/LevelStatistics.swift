import ShadesDSP

/// Per-file level statistics accumulated block by block: RMS, sample peak, clipped samples and DC offset
/// per channel, and the correlation of channels 0 and 1.
///
/// Sums are taken in 8-lane Float partial sums over at most 1,024 samples and accumulated in Double (as
/// ``SignalLevel/measure(_:)``), so results agree across block sizes to rounding (about 1e-6 relative).
package struct LevelStatistics: Sendable {
    /// |x| at or above this counts as clipped: 1 − 2⁻¹⁵ = 32767/32768, the largest positive 16-bit
    /// sample (−1.0 is the most negative one). A Float file that went over full scale and a 16-bit file
    /// that hit its limits both count.
    package static let clipThreshold: Float = LevelKernel.clipThreshold

    /// Channels per frame.
    package let channelCount: Int
    /// Frames added so far.
    package private(set) var frameCount = 0
    private var sums: [Double]
    private var sumsOfSquares: [Double]
    private var peaks: [Float]
    private var clipped: [Int]
    /// Σ x₀·x₁ (channels 0 and 1).
    private var crossSum = 0.0

    /// An empty accumulator for `channelCount` channels (≥ 1).
    package init(channelCount: Int) {
        precondition(channelCount >= 1, "LevelStatistics needs at least one channel")
        self.channelCount = channelCount
        sums = Array(repeating: 0, count: channelCount)
        sumsOfSquares = Array(repeating: 0, count: channelCount)
        peaks = Array(repeating: 0, count: channelCount)
        clipped = Array(repeating: 0, count: channelCount)
    }

    /// Adds planar channels: one buffer per channel, all of the same length.
    package mutating func add(_ channels: [UnsafeBufferPointer<Float>]) {
        precondition(channels.count == channelCount, "expected \(channelCount) channels, got \(channels.count)")
        let frames = channels[0].count
        precondition(channels.allSatisfy { $0.count == frames }, "channels must have the same length")
        add(frames: frames) { channels[$0] }
    }

    /// Adds the frames of `block` (whose channel count must match).
    package mutating func add(_ block: AudioBlock) {
        precondition(block.channelCount == channelCount, "expected \(channelCount) channels, got \(block.channelCount)")
        add(frames: block.frameCount) { UnsafeBufferPointer(block.channel($0)) }
    }

    private mutating func add(frames: Int, channel: (Int) -> UnsafeBufferPointer<Float>) {
        var first = 0
        if channelCount >= 2 {
            let pair = LevelKernel.measurePair(channel(0), channel(1))
            accumulate(pair.0, channel: 0)
            accumulate(pair.1, channel: 1)
            crossSum += pair.crossSum
            first = 2
        }
        for c in first..<channelCount { accumulate(LevelKernel.measure(channel(c)), channel: c) }
        frameCount += frames
    }

    private mutating func accumulate(_ m: LevelKernel.Moments, channel c: Int) {
        sums[c] += m.sum
        sumsOfSquares[c] += m.sumOfSquares
        peaks[c] = max(peaks[c], m.peak)
        clipped[c] += m.clipped
    }

    /// The statistics of everything added so far.
    package func report() -> LevelReport {
        let n = Double(frameCount)
        let channels = (0..<channelCount).map { c in
            LevelReport.Channel(
                rmsDBFS: frameCount > 0 && sumsOfSquares[c] > 0 ? Decibels.fromPower(sumsOfSquares[c] / n) : nil,
                samplePeakDBFS: peaks[c] > 0 ? Decibels.fromAmplitude(Double(peaks[c])) : nil,
                clippedSamples: clipped[c],
                dcOffset: frameCount > 0 ? sums[c] / n : 0)
        }
        var correlation: Double?
        if channelCount >= 2, frameCount > 1 {
            // Pearson: (nΣxy − ΣxΣy) / √((nΣx² − (Σx)²)(nΣy² − (Σy)²)).
            let varianceX = n * sumsOfSquares[0] - sums[0] * sums[0]
            let varianceY = n * sumsOfSquares[1] - sums[1] * sums[1]
            // A constant channel (silence, pure DC) has no correlation; allow for rounding of the sums.
            let floorX = 1e-12 * n * sumsOfSquares[0], floorY = 1e-12 * n * sumsOfSquares[1]
            if varianceX > floorX, varianceY > floorY {
                let r = (n * crossSum - sums[0] * sums[1]) / (varianceX * varianceY).squareRoot()
                correlation = min(1, max(-1, r))
            }
        }
        return LevelReport(frameCount: frameCount, channels: channels, correlation: correlation)
    }
}

/// What `LevelStatistics` measured. Levels of silence (−∞ dB) are nil.
public struct LevelReport: Encodable, Sendable, Equatable {
    /// One channel's statistics.
    public struct Channel: Encodable, Sendable, Equatable {
        /// RMS level in dBFS: 10·log10(mean of x²), full scale 1.0 (a full-scale sine is −3.01 dBFS).
        public let rmsDBFS: Double?
        /// Largest |x| in dBFS.
        public let samplePeakDBFS: Double?
        /// Samples with |x| ≥ `LevelStatistics.clipThreshold` (1 − 2⁻¹⁵).
        public let clippedSamples: Int
        /// Mean sample value (linear, full scale 1.0).
        package let dcOffset: Double
    }

    /// Frames measured.
    package let frameCount: Int
    public let channels: [Channel]
    /// Pearson correlation of channels 0 and 1 (mean removed), −1 … 1: 1 for identical channels, −1 for
    /// one inverted, near 0 for independent noise. nil for one channel or when a channel is constant.
    public let correlation: Double?

    /// Largest sample peak over all channels in dBFS; nil when all are silent.
    package var samplePeakDBFS: Double? { channels.compactMap(\.samplePeakDBFS).max() }
    /// Clipped samples over all channels.
    package var clippedSamples: Int { channels.reduce(0) { $0 + $1.clippedSamples } }
}
