/// Sample-rate conversion by a ratio of whole numbers L/M (48,000/22,050 = 320/147) in the frequency
/// domain: FFT overlap-save with the spectrum resized between the transforms.
///
/// Each frame of N_in = M·j input samples is transformed (N_in-point real FFT), its bins below the lower
/// Nyquist are weighted by the anti-imaging/anti-aliasing low-pass, the spectrum is zero-padded (up) or
/// cut (down) to N_out = L·j bins and transformed back: N_out output samples covering the same time, the
/// band-limited interpolation of the filtered frame. The low-pass has a finite kernel (half span
/// ``RationalResamplerDesign/halfSpanOutput`` output samples), so output samples that far from the frame's
/// ends are exact (up to the stop band); consecutive frames overlap by that much and advance by
/// ``RationalResamplerDesign/hopInput`` input = ``RationalResamplerDesign/hopOutput`` output samples.
///
/// The low-pass: a Kaiser-windowed sinc (Kaiser 1974) at the higher rate, passband to
/// ``RationalResamplerDesign/passbandShare`` (0.95 for the best quality) × the lower Nyquist, stop band
/// from the lower Nyquist on, ``RationalResamplerDesign/attenuationDB`` (140 dB for the best quality) down.
/// Images (up) and aliases (down) lie in its stop band; the passband ripple is the same δ = 10^(−A/20).
/// Measured with tones (ResamplerQualityTests: 11.025, 22.05, 44.1 → 48 kHz; 48, 96 → 44.1 and 22.05
/// kHz): passband within ±0.00001 dB up to 0.95 × the lower Nyquist, every image and alias below
/// −150 dB (Float32 rounding sets the floor).
///
/// A ratio whose terms have a prime factor over 7 (44,101 → 48,000 Hz), or whose frames would be longer
/// than ``RationalResamplerDesign/largestFFTSize``, has no design: it takes two stages (this resampler to
/// a power-of-two multiple of the input rate, then ``FractionalResampler``).
///
/// Cost: two real FFTs (N_in + N_out points) per ``RationalResamplerDesign/hopOutput`` output samples
/// (about 85 % of N_out). Measured 22.05 → 48 kHz, one channel (AMD EPYC, AVX-512, a loaded machine):
/// about 70 M output frames/s; libsamplerate's best sinc converter about 1.1 M, medium 3.5 M, fastest 7.5 M.
package struct RationalResamplerDesign: Sendable {
    /// Input and output rates, Hz.
    package let inputRate: Int
    package let outputRate: Int
    /// outputRate / inputRate = up / down, in lowest terms.
    package let up: Int
    package let down: Int
    /// Transform lengths: inputFFTSize / outputFFTSize = down / up.
    package let inputFFTSize: Int
    package let outputFFTSize: Int
    /// Output samples of the low-pass kernel on each side of its centre.
    package let halfSpanOutput: Int
    /// Output samples before the first one taken from a frame (a multiple of `up`, ≥ halfSpanOutput); the
    /// first frame starts this long (in time) before input sample 0, in silence.
    package let leadOutput: Int
    /// The same lead in input samples: leadOutput · down / up.
    package var leadInput: Int { leadOutput / up * down }
    /// Input samples each frame advances, and the output samples it yields.
    package let hopInput: Int
    package let hopOutput: Int
    /// Stop-band attenuation of the low-pass, dB (140 for the best quality).
    package let attenuationDB: Double
    /// The passband ends at this share of the band limit (0.95 for the best quality); the stop band starts at it.
    package let passbandShare: Double
    /// The band limit: the lower Nyquist, or less when asked, Hz.
    package let bandLimitHz: Double
    /// The best quality's attenuation and passband share.
    package static let bestAttenuationDB = 140.0
    package static let bestPassbandShare = 0.95
    /// The largest FFT length a design takes (larger ones, and prime factors over 7, go to two stages:
    /// ``FractionalResamplerDesign``).
    package static let largestFFTSize = 1 << 17

    /// The weights of bins 0 ..< ``weightCount`` of the input spectrum, the inverse FFT's 1/N_in folded in
    /// (and the halving of the input's Nyquist bin when it moves inside a longer spectrum).
    let weights: [Float]
    /// Bins carried from the input spectrum to the output one: min(N_in, N_out)/2 + 1.
    var weightCount: Int { weights.count }

    /// The design for `inputRate` → `outputRate`, or nil when their ratio in lowest terms has a prime
    /// factor over 7 or needs FFTs longer than ``largestFFTSize`` (FFT lengths FFTW runs fast), or the rates
    /// are equal without a `bandLimitHz`.
    ///
    /// - Parameters:
    ///   - bandLimitHz: where the stop band starts, Hz; nil: the lower Nyquist. Below it, equal rates are
    ///     allowed (a band-limiting filter).
    ///   - attenuationDB: the stop band's depth, and the passband's ripple δ = 10^(−A/20).
    ///   - passbandShare: the passband ends at this share of the band limit (0.5 … 0.99).
    package init?(inputRate: Int, outputRate: Int, bandLimitHz: Double? = nil,
                  attenuationDB: Double = bestAttenuationDB, passbandShare: Double = bestPassbandShare) {
        guard inputRate > 0, outputRate > 0, inputRate != outputRate || bandLimitHz != nil else { return nil }
        var (a, b) = (inputRate, outputRate)
        while b != 0 { (a, b) = (b, a % b) }
        let (up, down) = (outputRate / a, inputRate / a)
        guard Self.isSmooth(up), Self.isSmooth(down) else { return nil }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.up = up
        self.down = down
        self.attenuationDB = attenuationDB
        self.passbandShare = passbandShare

        // The kernel at the higher rate R: cut-off in the middle of the transition.
        let highRate = Double(max(inputRate, outputRate))
        let lowNyquist = bandLimitHz ?? Double(min(inputRate, outputRate)) / 2
        self.bandLimitHz = lowNyquist
        let transitionHz = (1 - passbandShare) * lowNyquist
        let kaiser = KaiserDesign(attenuationDB: attenuationDB, transitionHz: transitionHz, sampleRate: highRate,
                                  maximumHalfLength: 1 << 20)
        let halfHigh = kaiser.halfLength
        halfSpanOutput = outputRate >= inputRate ? halfHigh : (halfHigh * up + down - 1) / down
        leadOutput = (halfSpanOutput + up - 1) / up * up

        // Frames: N_out ≥ 4 × (lead + half span) and at least 8,192 on the longer side; j 7-smooth.
        let wanted = max(4 * (leadOutput + halfSpanOutput), 8_192 * up / max(up, down))
        var j = (wanted + up - 1) / up
        while !Self.isSmooth(j) { j += 1 }
        guard max(up, down) * j <= Self.largestFFTSize else { return nil }
        inputFFTSize = down * j
        outputFFTSize = up * j
        let hops = (outputFFTSize - leadOutput - halfSpanOutput) / up
        hopOutput = hops * up
        hopInput = hops * down

        // The kernel's spectrum on the bins of the longer transform (both share the bin spacing).
        let highSize = max(inputFFTSize, outputFFTSize)
        let cutoff = (passbandShare + 1) / 2 * lowNyquist
        var taps = [Double](repeating: 0, count: halfHigh + 1)
        for k in 0...halfHigh {
            let ideal = k == 0 ? 2 * cutoff / highRate : KaiserDesign.sine(cutoff, sampleRate: highRate, tap: k) / (Double.pi * Double(k))
            taps[k] = kaiser.windowed(ideal, at: k)
        }
        let dc = taps[0] + 2 * taps[1...].reduce(0, +)
        let fft = RealFFT(size: highSize)
        fft.withSignal { frame in
            frame.update(repeating: 0)
            frame[0] = Float(taps[0] / dc)
            for k in stride(from: 1, through: halfHigh, by: 1) {
                frame[k] = Float(taps[k] / dc)
                frame[highSize - k] = Float(taps[k] / dc)
            }
        }
        fft.forward()
        let count = min(inputFFTSize, outputFFTSize) / 2 + 1
        let scale = 1 / Float(inputFFTSize)
        let inputNyquist = outputRate > inputRate ? inputFFTSize / 2 : -1
        weights = fft.withSpectrum { bins in
            (0..<count).map { k in bins[2 * k] * scale * (k == inputNyquist ? 0.5 : 1) }
        }
    }

    /// Output frames a stream of `inputFrames` becomes: round(inputFrames · up / down).
    package func outputFrames(forInput inputFrames: Int) -> Int {
        (inputFrames * up * 2 + down) / (2 * down)
    }

    static func isSmooth(_ n: Int) -> Bool {
        var n = n
        for p in [2, 3, 5, 7] { while n % p == 0 { n /= p } }
        return n == 1
    }
}

/// One channel of a ``RationalResamplerDesign``: input samples are pushed into the current frame; each
/// full frame is converted into ``RationalResamplerDesign/hopOutput`` output samples. Starts in silence
/// (the first output sample is the input's sample 0, time-aligned). Allocates nothing after `init`.
package final class RationalResampler {
    package let design: RationalResamplerDesign
    private let input: RealFFT
    private let output: RealFFT
    /// Input samples in the current frame (the frame is `input`'s signal buffer).
    package private(set) var frameFill: Int

    package init(design: RationalResamplerDesign) {
        self.design = design
        input = RealFFT(size: design.inputFFTSize)
        output = RealFFT(size: design.outputFFTSize)
        frameFill = design.leadInput
        input.withSignal { $0.update(repeating: 0) }
    }

    /// True when the frame is full: ``convert(into:)`` is due.
    package var isFrameFull: Bool { frameFill == design.inputFFTSize }

    /// Copies up to the frame's free space from `samples`; returns how many were taken.
    package func push(_ samples: UnsafeBufferPointer<Float>) -> Int {
        let n = min(samples.count, design.inputFFTSize - frameFill)
        guard n > 0 else { return 0 }
        input.withSignal { frame in (frame.baseAddress! + frameFill).update(from: samples.baseAddress!, count: n) }
        frameFill += n
        return n
    }

    /// Pushes up to `count` zeros (the silence after the end); returns how many.
    package func pushSilence(_ count: Int) -> Int {
        let n = min(count, design.inputFFTSize - frameFill)
        guard n > 0 else { return 0 }
        input.withSignal { frame in (frame.baseAddress! + frameFill).update(repeating: 0, count: n) }
        frameFill += n
        return n
    }

    /// Converts the full frame into ``RationalResamplerDesign/hopOutput`` samples of `destination`, then
    /// moves the frame on by ``RationalResamplerDesign/hopInput``.
    package func convert(into destination: UnsafeMutablePointer<Float>) {
        precondition(isFrameFull, "the frame is not full")
        input.forward()   // preserves the frame (FFTW's default for real-to-complex)
        let count = design.weightCount
        input.withSpectrum { bins in
            output.withSpectrum { out in
                design.weights.withUnsafeBufferPointer { w in
                    shadesWeighBins(bins.baseAddress!, w.baseAddress!, count, out.baseAddress!, out.count)
                }
            }
        }
        output.inverse()
        output.withSignal { frame in destination.update(from: frame.baseAddress! + design.leadOutput, count: design.hopOutput) }
        let keep = design.inputFFTSize - design.hopInput
        input.withSignal { frame in
            let base = frame.baseAddress!
            base.update(from: base + design.hopInput, count: keep)
        }
        frameFill = keep
    }

    /// Forgets all input: silence before the next sample, as after `init`.
    package func reset() {
        input.withSignal { $0.update(repeating: 0) }
        frameFill = design.leadInput
    }
}

/// out[k] = bins[k] · w[k] for the first `count` complex bins, zero for the rest of `outFloats` Floats.
@inline(__always)
private func shadesWeighBins(_ bins: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ count: Int,
                             _ out: UnsafeMutablePointer<Float>, _ outFloats: Int) {
    var k = 0
    let raw = UnsafeMutableRawPointer(bins), target = UnsafeMutableRawPointer(out)
    while k + 4 <= count {
        let x = raw.loadUnaligned(fromByteOffset: 8 * k, as: SIMD8<Float>.self)
        let g = SIMD4<Float>(w[k], w[k + 1], w[k + 2], w[k + 3])
        let gg = SIMD8<Float>(g[0], g[0], g[1], g[1], g[2], g[2], g[3], g[3])
        target.storeBytes(of: x * gg, toByteOffset: 8 * k, as: SIMD8<Float>.self)
        k += 4
    }
    while k < count {
        out[2 * k] = bins[2 * k] * w[k]
        out[2 * k + 1] = bins[2 * k + 1] * w[k]
        k += 1
    }
    if 2 * count < outFloats { (out + 2 * count).update(repeating: 0, count: outFloats - 2 * count) }
}
