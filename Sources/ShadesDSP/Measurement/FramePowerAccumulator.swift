/// Welch's method over frames something else has already transformed: sums the Hann-windowed power of each
/// unwindowed FFT frame it is shown.
///
/// A periodic Hann window is a 3-tap convolution of the bins, X_w[k] = ½·X[k] − ¼·(X[k−1] + X[k+1]), so a
/// filter that transforms its input anyway (``OverlapSaveFilter``) gets the input's spectrum for about one
/// SIMD operation per sample (the C kernel `frame_power`) instead of a second FFT per half segment. The
/// frames are the caller's (an overlap-save filter's overlap 2M), so the estimate is Welch's with that
/// overlap.
///
/// The first frame is set aside and used only if no other follows: a filter's first frame holds the
/// silence before the signal, and a signal that starts abruptly splatters there (a sine at −6 dBFS
/// raised a −60 dB noise floor near it by 1 dB).
///
/// Memory is allocated in `init`; ``add(spectrum:)`` allocates nothing.
final class FramePowerAccumulator {
    /// FFT length N of the frames.
    let size: Int
    /// Frames added so far.
    private(set) var frameCount = 0
    /// Floats in an interleaved spectrum of bins 0 … N/2: N + 2.
    private let floatCount: Int
    /// The spectrum with its mirror images X[−1] = X[1]* and X[N/2 + 1] = X[N/2 − 1]* around it: two Floats on
    /// each side, then zeros to a whole number of SIMD groups.
    private let padded: UnsafeMutablePointer<Float>
    /// Σ over recent frames of the windowed re² and im², per Float (a Float sum, moved to `total` every
    /// ``framesPerFlush`` frames so rounding stays near 1e-5).
    private let recent: UnsafeMutablePointer<Float>
    private var total: [Double]
    /// The first frame's power, used only if it stays the only one.
    private var first: [Double]
    private var framesInRecent = 0
    private let groups: Int

    private static let framesPerFlush = 64

    init(size: Int) {
        precondition(size >= 8 && size % 2 == 0, "frames of at least 8 samples, an even count")
        self.size = size
        floatCount = size + 2
        groups = (floatCount + 7) / 8
        padded = .allocate(capacity: groups * 8 + 8)
        padded.initialize(repeating: 0, count: groups * 8 + 8)
        recent = .allocate(capacity: groups * 8)
        recent.initialize(repeating: 0, count: groups * 8)
        total = [Double](repeating: 0, count: size / 2 + 1)
        first = total
    }

    deinit {
        padded.deallocate()
        recent.deallocate()
    }

    /// Adds one frame's interleaved (re, im) spectrum of bins 0 … N/2 (unnormalised, as FFTW's).
    func add(spectrum bins: UnsafeBufferPointer<Float>) {
        precondition(bins.count == floatCount, "one spectrum of N/2 + 1 bins")
        let n = size
        (padded + 2).update(from: bins.baseAddress!, count: floatCount)
        padded[0] = bins[2]; padded[1] = -bins[3]                   // X[−1] = X[1]*
        padded[n + 4] = bins[n - 2]; padded[n + 5] = -bins[n - 1]   // X[N/2 + 1] = X[N/2 − 1]*
        Kernels.table.frame_power!(padded, groups, recent)   // recent += windowed re², im²
        frameCount += 1
        framesInRecent += 1
        if frameCount == 1 {
            flush(into: &first)
        } else if framesInRecent == Self.framesPerFlush {
            flush(into: &total)
        }
    }

    private func flush(into sum: inout [Double]) {
        for k in 0..<sum.count { sum[k] += Double(recent[2 * k]) + Double(recent[2 * k + 1]) }
        recent.update(repeating: 0, count: groups * 8)
        framesInRecent = 0
    }

    /// The one-sided power spectral density (full scale² per Hz) of the frames added; nil before the first.
    func spectrum(sampleRate: Double) -> PowerSpectrum? {
        guard frameCount > 0 else { return nil }
        var sum = frameCount == 1 ? first : total
        for k in 0..<sum.count { sum[k] += Double(recent[2 * k]) + Double(recent[2 * k + 1]) }
        // Σw² of the periodic Hann window is 3N/8.
        return WelchWindow.density(sum: sum, segments: max(1, frameCount - 1), windowPower: 3 * Double(size) / 8,
                                   size: size, sampleRate: sampleRate)
    }
}
