/// A long linear-phase FIR applied by FFT overlap-save, centred (no delay), in fixed blocks.
///
/// The filter has 2M + 1 symmetric taps h[−M] … h[M] (h[−m] = h[m]) and is zero-phase: output sample t is
/// Σ h[k]·x[t − k] for k in −M … M, so the output lines up with the input it came from. Because the taps
/// are centred at index 0 of the FFT frame (wrapped around its end), the response is real: filtering a
/// frame costs one forward FFT, one real multiply per bin and one inverse FFT.
///
/// Each call filters exactly ``blockFrames`` = fftSize − 2M new samples. The filter keeps the last 2M
/// input samples as history between calls; ``withHistory(_:)`` lends them, e.g. to fill them with the
/// signal's own past so the first block is already in steady state.
///
/// All memory and the FFT plans are made in `init`; `process` allocates nothing and takes no locks.
/// One filter serves one signal; ``init(sharingResponseOf:)`` makes another with the same response and
/// its own history (for the other ear).
package final class OverlapSaveFilter {
    /// Transform length in samples.
    package let fftSize: Int
    /// M: taps run from −M to M.
    package let halfLength: Int
    /// New samples filtered by each call: fftSize − 2M (a multiple of 16).
    package var blockFrames: Int { fftSize - 2 * halfLength }
    private let response: BinGains
    private let fft: RealFFT
    private let history: UnsafeMutablePointer<Float>   // 2M, oldest first
    /// The input's power per frame, when asked for (``measureInputSpectrum()``).
    private var inputPower: FramePowerAccumulator?

    /// A filter with taps h[0] … h[M] = `halfTaps` (mirrored for negative indices).
    ///
    /// - Parameters:
    ///   - halfTaps: centre tap first; M = halfTaps.count − 1 must be a multiple of 8 (so blocks are
    ///     whole groups of 16 samples).
    ///   - fftSize: transform length, a power of two above 2M (``recommendedFFTSize(halfLength:)``).
    package init(halfTaps: [Double], fftSize: Int) {
        let m = halfTaps.count - 1
        precondition(m >= 0 && m % 8 == 0, "the half length must be a multiple of 8")
        precondition(fftSize > 2 * m && fftSize % 16 == 0, "the FFT must be longer than the kernel")
        self.fftSize = fftSize
        halfLength = m
        let fft = RealFFT(size: fftSize)
        self.fft = fft
        // The wrapped, centred kernel has a real spectrum; the imaginary parts are rounding only.
        // Computed in the filter's own FFT (single precision: errors near 1e-7, far below any stopband
        // asked of it), with the inverse transform's factor 1/fftSize folded in.
        fft.withSignal { frame in
            frame.update(repeating: 0)
            frame[0] = Float(halfTaps[0])
            for k in stride(from: 1, through: m, by: 1) {
                frame[k] = Float(halfTaps[k])
                frame[fftSize - k] = Float(halfTaps[k])
            }
        }
        fft.forward()
        let scale = 1 / Float(fftSize)
        response = fft.withSpectrum { bins in BinGains(binCount: fft.binCount) { bins[2 * $0] * scale } }
        history = .allocate(capacity: max(1, 2 * m))
        history.initialize(repeating: 0, count: max(1, 2 * m))
    }

    /// A filter with `other`'s response and its own history (zero).
    package init(sharingResponseOf other: OverlapSaveFilter) {
        fftSize = other.fftSize
        halfLength = other.halfLength
        response = other.response
        fft = RealFFT(size: fftSize)
        history = .allocate(capacity: max(1, 2 * halfLength))
        history.initialize(repeating: 0, count: max(1, 2 * halfLength))
    }

    deinit { history.deallocate() }

    /// Four times the power of two at or above 2M, and at least 4,096: blocks of ¾ of the transform or
    /// more. (Measured here: twice or eight times that size ran within 10 % of it; 4× was fastest for
    /// long kernels.)
    package static func recommendedFFTSize(halfLength: Int) -> Int {
        var span = 1
        while span < 2 * halfLength { span *= 2 }
        return max(4096, 4 * span)
    }

    /// From now on, sums the Hann-windowed power of every frame the filter transforms (its input, 2M of
    /// overlap): ``inputSpectrum(sampleRate:)`` then costs about one SIMD operation per sample, not an FFT.
    /// Call it before the first sample.
    package func measureInputSpectrum() {
        if inputPower == nil { inputPower = FramePowerAccumulator(size: fftSize) }
    }

    /// The input's Welch spectrum (Hann frames of ``fftSize`` samples, hop ``blockFrames``) since
    /// ``measureInputSpectrum()``; nil if not measuring or no frame was filtered yet. The first frame (the
    /// silence before the first sample, and the onset) counts only when it is the only one; the last
    /// frames hold whatever was fed after the signal (zeros, when flushed), so the density's absolute level
    /// is the frames'. Ratios of band powers are the input's.
    package func inputSpectrum(sampleRate: Double) -> PowerSpectrum? {
        inputPower?.spectrum(sampleRate: sampleRate)
    }

    /// Lends the 2M most recent input samples, oldest first (all zero after `init`); writing them sets the
    /// past that the next block is filtered against. The buffer must not escape `body`.
    package func withHistory<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: history, count: 2 * halfLength))
    }

    /// Filters the next ``blockFrames`` input samples into `output` (``blockFrames`` samples).
    ///
    /// `input` writes the new samples straight into the FFT frame (the buffer it gets must not escape).
    @inline(__always)
    package func process(into output: UnsafeMutableBufferPointer<Float>,
                        input: (UnsafeMutableBufferPointer<Float>) -> Void) {
        let m = halfLength, n = fftSize, block = n - 2 * m
        precondition(output.count == block, "one block at a time")
        fft.withSignal { frame in
            let base = frame.baseAddress!
            base.update(from: history, count: 2 * m)
            input(UnsafeMutableBufferPointer(start: base + 2 * m, count: block))
            history.update(from: base + block, count: 2 * m)
        }
        fft.forward()
        if let inputPower { fft.withSpectrum { bins in inputPower.add(spectrum: UnsafeBufferPointer(bins)) } }
        fft.withSpectrum { bins in response.apply(to: bins) }
        fft.inverse()
        // The centred kernel reaches M samples either way: frame samples M ..< n − M are free of wrap-around.
        fft.withSignal { frame in output.baseAddress!.update(from: frame.baseAddress! + m, count: block) }
    }

    /// Lends the part of the FFT frame the next block's ``blockFrames`` new samples go in, to be filled
    /// (in any number of calls) before ``processPendingInput(into:)``: a streaming caller's input needs no
    /// buffer of its own. Between blocks nothing else writes there. The buffer must not escape `body`.
    @inline(__always)
    package func withPendingInput<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        let m = halfLength, block = blockFrames
        return try fft.withSignal { frame in try body(UnsafeMutableBufferPointer(start: frame.baseAddress! + 2 * m, count: block)) }
    }

    /// Filters the block written through ``withPendingInput(_:)`` into `output` (``blockFrames`` samples),
    /// as ``process(_:into:)`` filters the same samples.
    package func processPendingInput(into output: UnsafeMutableBufferPointer<Float>) {
        process(into: output) { _ in }
    }

    /// Filters ``blockFrames`` samples of `input` into `output` (which may be the same memory).
    package func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == blockFrames, "one block at a time")
        process(into: output) { frame in frame.baseAddress!.update(from: input.baseAddress!, count: input.count) }
    }
}

/// A real gain per FFT bin, stored twice per bin to match the interleaved (re, im) spectrum, so applying
/// it is one SIMD multiply per eight Floats.
private final class BinGains {
    private let gains: UnsafeMutablePointer<Float>
    private let count: Int   // Floats: 2 × bins, rounded up to a multiple of 8 (padding gains are 0)

    init(binCount: Int, gain: (Int) -> Float) {
        count = 2 * binCount
        gains = LargeAllocation.allocateFloats(count)
        for k in 0..<binCount {
            let g = gain(k)
            gains[2 * k] = g
            gains[2 * k + 1] = g
        }
    }

    deinit { LargeAllocation.free(gains) }

    @inline(__always) func apply(to bins: UnsafeMutableBufferPointer<Float>) {
        precondition(bins.count == count)
        let raw = UnsafeMutableRawPointer(bins.baseAddress!)
        let g = UnsafeRawPointer(gains)
        var i = 0
        while i + 8 <= count {
            let x = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: x * g.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self), toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { bins[i] *= gains[i]; i += 1 }
    }
}
