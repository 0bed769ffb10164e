import ShadesPlatform

/// True peak (ITU-R BS.1770 Annex 2) of one channel, fed in blocks: the largest |sample| of the signal
/// oversampled 4× (2× from 96 kHz, none from 192 kHz).
///
/// The interpolator is libebur128's — a 49-tap Hann-windowed sinc split into polyphase branches — so the
/// reading matches `ebur128_true_peak` (tested), but it runs in 8 SIMD lanes in Float (the C kernel
/// `true_peak`): about 30× faster than the library's per-sample Double loop, which dominated a file
/// analysis.
package struct TruePeakMeter: Sendable {
    /// Oversampling factor used at this rate.
    package let factor: Int
    private let taps: [Float]            // [phase · length + t], tap t applies to x[n − t]
    private let length: Int              // taps per phase
    private var history: [Float]         // the last length − 1 inputs
    private var peakBits = SIMD8<Int32>()  // largest |output| per lane, as bits
    private var scratch: [Float] = []
    /// Largest output per unit input magnitude: the largest phase's Σ|tap|, plus 1e-5 for Float rounding.
    private let interpolationBound: Float

    /// Taps of the prototype filter (libebur128: 49).
    package static let taps = 49

    package init(sampleRate: Double) {
        factor = sampleRate < 96_000 ? 4 : (sampleRate < 192_000 ? 2 : 1)
        let taps = Self.taps
        var phases = [[Float]](repeating: [], count: factor)
        for j in 0..<taps {
            let m = Double(j) - Double(taps - 1) / 2
            var c = 1.0
            if abs(m) > 0.000001 { c = sin(m * Double.pi / Double(factor)) / (m * Double.pi / Double(factor)) }
            c *= 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(taps - 1)))
            phases[j % factor].append(Float(c))
        }
        let longest = phases.map(\.count).max() ?? 1
        length = longest
        self.taps = phases.flatMap { phase in phase + [Float](repeating: 0, count: longest - phase.count) }
        history = [Float](repeating: 0, count: longest - 1 + 8)
        interpolationBound = Float(phases.map { $0.reduce(0) { $0 + Double(abs($1)) } }.max() ?? 1) * 1.000_01
    }

    /// Adds the next samples of the channel.
    ///
    /// Outputs are computed in segments of 64 inputs; a segment whose inputs are too small to beat the
    /// peak so far is not interpolated (most of a music file, once its loud parts have been met). The
    /// result is unchanged. The block is read where it is: only its first inputs (after the history) and
    /// its last few (short of a group of 8) go through a small work buffer.
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        guard !samples.isEmpty, let base = samples.baseAddress else { return }
        let keep = length - 1
        let n = samples.count
        // Head: the inputs whose predecessors include the history. Body: whole groups of 8 after it, whose
        // predecessors are all in the block. Tail: the rest (fewer than 8; the head is whole when there is one).
        let span = (keep + 7) / 8 * 8
        let head = min(n, span)
        let body = (n - head) / 8 * 8
        let tail = n - head - body
        if scratch.count < keep + span + 8 { scratch = [Float](repeating: 0, count: keep + span + 8) }
        let (factor, length, bound) = (self.factor, self.length, self.interpolationBound)
        var peak = peakBits
        withUnsafeMutableBytes(of: &peak) { peakBytes in
            let peakBits = peakBytes.baseAddress!.assumingMemoryBound(to: Int32.self)
            taps.withUnsafeBufferPointer { taps in
                scratch.withUnsafeMutableBufferPointer { work in
                    /// `count` inputs at `inputs + keep`, after their `keep` predecessors (readable to a group of 8).
                    func interpolate(_ inputs: UnsafePointer<Float>, _ count: Int) {
                        Kernels.table.true_peak!(inputs, count, keep, taps.baseAddress!, length, factor, bound, peakBits)
                    }
                    /// `count` inputs in the work buffer after their predecessors, padded with zeros.
                    func interpolateWork(_ count: Int) {
                        for i in count..<(count + 7) / 8 * 8 { work[keep + i] = 0 }
                        interpolate(work.baseAddress!, count)
                    }
                    for i in 0..<keep { work[i] = history[i] }
                    for i in 0..<head { work[keep + i] = base[i] }
                    interpolateWork(head)
                    if body > 0 { interpolate(base + head - keep, body) }
                    if tail > 0 {
                        let from = base + head + body - keep
                        for i in 0..<keep + tail { work[i] = from[i] }
                        interpolateWork(tail)
                    }
                }
            }
        }
        peakBits = peak
        // The history: the last `keep` inputs of history + block.
        if n >= keep {
            for i in 0..<keep { history[i] = base[n - keep + i] }
        } else {
            for i in 0..<keep - n { history[i] = history[i + n] }
            for i in 0..<n { history[keep - n + i] = base[i] }
        }
    }

    /// The largest of eight magnitudes kept as bit patterns (non-negative Floats order like their bits).
    @inline(__always) private static func largest(_ bits: SIMD8<Int32>) -> Float {
        Float(bitPattern: UInt32(bits.max()))
    }

    /// The true peak so far, linear (full scale 1.0).
    package var peak: Double { Double(Self.largest(peakBits)) }

    /// The true peak in dBTP (−∞ for silence).
    package var peakDBTP: Double { 20 * log10(peak) }
}
