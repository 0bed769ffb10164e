import ShadesDSP
import ShadesPlatform

/// Welch power spectrum of one channel, accumulated block by block (a file of any length in bounded
/// memory).
///
/// Hann-windowed segments of ``segmentLength(sampleRate:)`` frames overlapping by half; each segment's
/// periodogram is summed in Double and ``result()`` normalises the sum to a one-sided density, exactly as
/// a periodogram average over a whole buffer does. The segments do not
/// depend on how the channel was cut into blocks, so neither does the result (to the bit).
///
/// - The last frames after the final whole segment (fewer than half a segment, under 0.7 s) are left
///   out, as in any Welch estimate.
/// - A channel shorter than one segment is analysed as one Hann-windowed segment of its whole length,
///   zero-padded to the next power of two (bin width rate / that size). At least
///   ``minimumFrameCount`` frames are needed.
///
/// Memory: about 1.3 MB at 48 kHz (one segment, its window, the FFT and the Double sum). Speed: one
/// 65,536-point real FFT per 32,768 frames: 10 minutes of stereo 48 kHz in 0.22 s on one core.
package struct SpectrumAccumulator: Sendable {
    /// Sample rate in Hz.
    package let sampleRate: Double
    /// Segment length in frames (a power of two).
    package var segmentLength: Int { queue.length }
    /// Frames added so far.
    package private(set) var frameCount = 0
    /// Whole segments analysed so far.
    package private(set) var segmentCount = 0

    /// Fewest frames ``result()`` accepts.
    package static let minimumFrameCount = WelchWindow.minimumFrameCount

    private var queue: HalfOverlapQueue
    private let window: [Float]
    private let windowPower: Double
    private var fft: RealFFT
    private var powerSum: [Double]

    /// - Parameters:
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - segmentLength: frames per segment, a power of two from 256 to 2²²; nil (the default) picks
    ///     ``segmentLength(sampleRate:)``.
    package init(sampleRate: Double, segmentLength: Int? = nil) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        let length = segmentLength ?? Self.segmentLength(sampleRate: sampleRate)
        guard length & (length - 1) == 0 else {
            throw Parameter.segmentLength.outOfRange(Double(length))
        }
        try Parameter.segmentLength.check(Double(length))
        self.sampleRate = sampleRate
        queue = HalfOverlapQueue(length: length)
        window = WelchWindow.hann(length)
        windowPower = WelchWindow.power(window)
        fft = RealFFT(size: length)
        powerSum = [Double](repeating: 0, count: length / 2 + 1)
    }

    /// The segment length for `sampleRate`: the power of two nearest rate / 0.732 Hz, so the resolution
    /// stays near 0.73 Hz (65,536 at 44.1 and 48 kHz, 131,072 at 96 kHz, 8,192 at 8 kHz).
    package static func segmentLength(sampleRate: Double) -> Int {
        let exponent = log2(65_536 * sampleRate / 48_000).rounded()
        return 1 << Int(min(22, max(8, exponent)))
    }

    /// Adds the next frames of the channel (any count, including zero).
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        frameCount += samples.count
        var offset = 0
        while offset < samples.count {
            offset = queue.fill(from: samples, at: offset)
            if queue.isFull {
                analyseSegment()
                queue.slideHalf()
            }
        }
    }

    private mutating func analyseSegment() {
        if !isKnownUniquelyReferenced(&fft) { fft = RealFFT(size: queue.length) }  // a copy owns its scratch
        let length = queue.length
        queue.withSegment { segment in
            window.withUnsafeBufferPointer { w in
                fft.withSignal { s in
                    for i in 0..<length { s[i] = segment[i] * w[i] }
                }
            }
        }
        fft.forward()
        fft.addBinPowers(to: &powerSum)
        segmentCount += 1
    }

    /// The one-sided power spectral density (full scale² per Hz) of everything added so far.
    ///
    /// Throws for an empty channel or one under ``minimumFrameCount`` frames.
    package func result() throws(ShadesError) -> PowerSpectrum {
        if segmentCount > 0 {
            return WelchWindow.density(sum: powerSum, segments: segmentCount, windowPower: windowPower,
                                       size: queue.length, sampleRate: sampleRate)
        }
        try WelchWindow.checkShort(frameCount: frameCount, minimum: Self.minimumFrameCount, parameter: .signal)
        // Shorter than one segment: one Hann window over all of it, zero-padded to a power of two.
        let n = frameCount
        let size = WelchWindow.powerOfTwo(atLeast: n)
        let shortWindow = WelchWindow.hann(n)
        let shortFFT = RealFFT(size: size)
        queue.withSegment { segment in
            shortFFT.withSignal { s in
                for i in 0..<n { s[i] = segment[i] * shortWindow[i] }
                for i in n..<size { s[i] = 0 }
            }
        }
        shortFFT.forward()
        var sum = [Double](repeating: 0, count: shortFFT.binCount)
        shortFFT.addBinPowers(to: &sum)
        return WelchWindow.density(sum: sum, segments: 1, windowPower: WelchWindow.power(shortWindow),
                                   size: size, sampleRate: sampleRate)
    }
}

// MARK: - Welch segmenting shared by the accumulators

/// Collects one channel's samples into segments of `length` that overlap by half, whatever the block
/// sizes fed.
struct HalfOverlapQueue: Sendable {
    let length: Int
    private var pending: [Float]
    /// Samples in `pending` (the segment is complete at `length`).
    private(set) var filled = 0

    init(length: Int) {
        precondition(length >= 2 && length % 2 == 0)
        self.length = length
        pending = [Float](repeating: 0, count: length)
    }

    var isFull: Bool { filled == length }

    /// Copies samples from `offset` on until the segment is full or the input ends; returns the new offset.
    mutating func fill(from samples: UnsafeBufferPointer<Float>, at offset: Int) -> Int {
        let count = min(length - filled, samples.count - offset)
        guard count > 0 else { return offset }
        let start = filled
        pending.withUnsafeMutableBufferPointer { p in
            (p.baseAddress! + start).update(from: samples.baseAddress! + offset, count: count)
        }
        filled += count
        return offset + count
    }

    /// Keeps the second half of a full segment as the first half of the next.
    mutating func slideHalf() {
        let half = length / 2
        pending.withUnsafeMutableBufferPointer { p in
            p.baseAddress!.update(from: p.baseAddress! + half, count: half)
        }
        filled = half
    }

    /// Lends the `filled` samples collected.
    func withSegment<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try pending.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<filled])) }
    }
}
