import ShadesDSP
import ShadesPlatform

/// Overlap-save analytic band filter: FFT segments of `segmentFrames` with `guardFrames` of context each
/// side (the filter's impulse response decays to about 1e-5 within the guard).
struct EnvelopePlan {
    let sampleRate: Double
    let segmentFrames: Int
    let guardFrames: Int
    private let low: Double, high: Double, skirtTop: Double
    private var weights: [Float] = []   // H at bins 0 … segmentFrames/2

    init(band: ClosedRange<Double>, sampleRate: Double) {
        self.sampleRate = sampleRate
        let nyquist = sampleRate / 2
        low = band.lowerBound
        high = min(band.upperBound, nyquist)
        skirtTop = min(2 * high, nyquist)
        // The narrowest skirt sets the impulse response's length (a raised-cosine edge of width W
        // decays as 1/t³ after about 1/W).
        let narrowest = min(low / 2, skirtTop > high ? skirtTop - high : .infinity)
        var guardFrames = 4096
        while Double(guardFrames) < 32 * sampleRate / narrowest { guardFrames *= 2 }
        self.guardFrames = guardFrames
        segmentFrames = max(1 << 17, 4 * guardFrames)
        let size = segmentFrames
        weights = (0...size / 2).map { k in Float(weight(Double(k) * sampleRate / Double(size))) }
    }

    /// The band weight H at `frequencyHz` (any real frequency; aliased into (−rate/2, rate/2], and 0 for
    /// negative frequencies, DC and Nyquist: the analytic signal).
    func weight(_ frequencyHz: Double) -> Double {
        let f = frequencyHz - sampleRate * (frequencyHz / sampleRate).rounded()
        if f <= low / 2 || f >= sampleRate / 2 { return 0 }
        if f < low { return 0.5 - 0.5 * cos(Double.pi * (f - low / 2) / (low / 2)) }
        if f <= high { return 1 }
        if f < skirtTop { return 0.5 + 0.5 * cos(Double.pi * (f - high) / (skirtTop - high)) }
        return 0
    }

    /// The depth m whose expected power envelope has first harmonic / mean = `ratio` at `rateHz`, for a
    /// carrier with power spectrum `spectrum` (bins 0 … segmentFrames/2).
    func depth(powerEnvelopeRatio ratio: Double, rateHz: Double, spectrum: [Double]) -> Double {
        // Two-sided sums over the carrier's frequencies f: P0 = Σ S·H(f)², PS = Σ S·(H(f+fm)² + H(f−fm)²),
        // Q = Σ S·H(f)·(H(f+fm) + H(f−fm)). Mean = P0 + m²/4·PS, first harmonic = m·Q.
        var p0 = 0.0, ps = 0.0, q = 0.0
        let binHz = sampleRate / Double(segmentFrames)
        for k in 0..<spectrum.count {
            let isEdge = k == 0 || k == spectrum.count - 1
            for f in isEdge ? [Double(k) * binHz] : [Double(k) * binHz, -Double(k) * binHz] {
                let h = weight(f), up = weight(f + rateHz), down = weight(f - rateHz)
                p0 += spectrum[k] * h * h
                ps += spectrum[k] * (up * up + down * down)
                q += spectrum[k] * h * (up + down)
            }
        }
        // ratio·PS/4·m² − Q·m + ratio·P0 = 0: the root that is 0 for ratio 0.
        guard ratio > 0, ps > 0 else { return 0 }
        let a = ratio * ps / 4, discriminant = q * q - 4 * a * ratio * p0
        return (q - max(0, discriminant).squareRoot()) / (2 * a)
    }

    /// Block means of the power envelope |analytic signal|² over blocks of `blockFrames` (whole blocks
    /// only), and the power spectrum of the input summed over the segments.
    func analyse(_ samples: UnsafeBufferPointer<Float>, blockFrames: Int) -> (envelope: [Double], spectrum: [Double]) {
        let count = samples.count
        let blocks = count / blockFrames
        var envelope = [Double](repeating: 0, count: blocks)
        var spectrum = [Double](repeating: 0, count: weights.count)
        guard blocks > 0 else { return (envelope, spectrum) }
        let size = segmentFrames, valid = segmentFrames - 2 * guardFrames
        let fft = RealFFT(size: size)
        let saved = UnsafeMutableBufferPointer<Float>.allocate(capacity: size + 2)
        let real = UnsafeMutableBufferPointer<Float>.allocate(capacity: valid)
        defer { saved.deallocate(); real.deallocate() }
        let scale = 1 / Float(size)
        var blockIndex = 0, inBlock = 0, blockSum = 0.0
        var start = 0
        while start < blocks * blockFrames {
            // Input frames start − guard ..< start − guard + size, zero outside the signal.
            fft.withSignal { signal in
                signal.update(repeating: 0)
                let from = max(0, start - guardFrames), to = min(count, start - guardFrames + size)
                if to > from {
                    (signal.baseAddress! + (from - (start - guardFrames)))
                        .update(from: samples.baseAddress! + from, count: to - from)
                }
            }
            fft.forward()
            fft.withSpectrum { bins in
                for k in 0..<weights.count {
                    let re = bins[2 * k], im = bins[2 * k + 1]
                    spectrum[k] += Double(re * re + im * im)
                    bins[2 * k] = re * weights[k]
                    bins[2 * k + 1] = im * weights[k]
                }
                _ = saved.update(fromContentsOf: bins)
            }
            fft.inverse()
            let n = min(valid, count - start)
            fft.withSignal { signal in
                real.baseAddress!.update(from: signal.baseAddress! + guardFrames, count: n)
            }
            // Hilbert transform: multiply the positive-frequency bins by −i.
            fft.withSpectrum { bins in
                for k in 0..<weights.count {
                    bins[2 * k] = saved[2 * k + 1]
                    bins[2 * k + 1] = -saved[2 * k]
                }
            }
            fft.inverse()
            fft.withSignal { signal in
                let imaginary = signal.baseAddress! + guardFrames
                for i in 0..<n {
                    let re = real[i] * scale, im = imaginary[i] * scale
                    blockSum += Double(re * re + im * im)
                    inBlock += 1
                    if inBlock == blockFrames {
                        if blockIndex < blocks { envelope[blockIndex] = blockSum / Double(blockFrames) }
                        blockIndex += 1
                        inBlock = 0
                        blockSum = 0
                    }
                }
            }
            start += valid
        }
        return (envelope, spectrum)
    }
}
