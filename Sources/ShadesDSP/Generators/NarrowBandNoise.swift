import ShadesPlatform

/// Endless narrow-band noise for a player (residual-inhibition masker, pitch-matching stimulus):
/// Gaussian noise limited to the band, scaled so the RMS level is `levelDBFS` in expectation.
///
/// The band is centred geometrically: w octaves at f span f·2^(−w/2) … f·2^(w/2) (e.g. ½ octave at
/// 4 kHz: 3,364 … 4,757 Hz). The spectrum is flat inside the band (±0.001 dB) and at least 60 dB down
/// (80 dB by design) from 1/12 octave outside each edge. Two ways to make it, the same spec:
/// - from a complex base band at a low rate, interpolated and moved up (``NarrowBandBasebandDesign``):
///   every band whose stopbands stay inside (0, Nyquist) and that leaves a rate/D of at least 1.5 × its
///   width plus both transitions with D ≥ 2 (every stream case of the tests: 250 Hz to 12 kHz, ⅓ and ½ octave);
/// - otherwise white noise at the rate through the ``NarrowBandDesign`` band-pass by FFT overlap-save
///   (``OverlapSaveFilter``).
///
/// Each independent signal (ear) draws from its own random stream keyed by the seed and the channel, as
/// ``NoiseSource`` does (the base band's Q from a stream derived from it). Filter histories are filled with
/// the stream's own noise before the first block, so the first sample already has the full spectrum and level.
///
/// Cost (measured, AMD EPYC family 25, 10 minutes of stereo at 48 kHz, ½ octave at 4 kHz, CPU time over a
/// tone's): from the base band (D = 16) about 0.09 s, 600 M samples/s per core, on the AVX-512 or AVX2
/// kernels; at the full rate 0.28–0.30 s (200 M samples/s). A real-time caller gets chunks of about 8,192
/// frames; one in about D/2 also filters the next block of the base band (two 4,096-point FFTs for each of
/// I and Q). Memory (allocated, stereo): base band about 0.3 MB (two 4,096-point transforms, the base band's
/// line and the taps per ear, the chunks); at the full rate about 0.9 MB for 1 kHz ½ octave, at most about
/// 28 MB (longest kernel).
package final class NarrowBandNoiseSource: AudioSource {
    package let sampleRate: Double
    /// Geometric centre of the band, in Hz.
    package let centreHz: Double
    /// Band width in octaves.
    package let widthOctaves: Double
    /// Band edges in Hz: centre·2^(∓width/2).
    package let lowerEdgeHz: Double, upperEdgeHz: Double
    package let layout: ChannelLayout
    /// RMS level in dBFS (in expectation).
    package let levelDBFS: Double
    /// The base-band design in use, or nil when the band is rendered at the full rate (``NarrowBandDesign``).
    package let baseband: NarrowBandBasebandDesign?
    /// The full-rate band-pass (the response when ``baseband`` is nil).
    private let design: NarrowBandDesign
    package var channelCount: Int { layout.outputChannelCount }
    private var renderer: ChunkedRenderer<NarrowBandNoiseKernel>

    /// Widest band accepted, in octaves.
    package static let maximumWidthOctaves = 4.0

    /// - Parameters:
    ///   - centreHz: geometric centre of the band, Hz, above 0; the upper edge must lie below Nyquist.
    ///   - widthOctaves: band width, above 0 and at most 4 octaves.
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - layout: channel layout (stereo: independent noise per ear).
    ///   - levelDBFS: RMS level in dBFS, ≤ 0.
    ///   - seed: makes the output reproducible.
    ///   - firstSignal: index of the first independent signal's random stream. A stereo source's right
    ///     ear equals a mono source with `firstSignal: 1`, so ears can be rendered on separate threads.
    ///   - basebandFactor: D for the base-band path (tests): 1 renders at the full rate; nil chooses from the band.
    package init(centreHz: Double, widthOctaves: Double, sampleRate: Double, layout: ChannelLayout = .stereo,
                levelDBFS: Double = -20, seed: UInt64 = 1, firstSignal: Int = 0,
                basebandFactor: Int? = nil) throws(ShadesError) {
        let design = try NarrowBandDesign(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        try Parameter.level.check(levelDBFS)
        self.sampleRate = sampleRate
        self.centreHz = centreHz
        self.widthOctaves = widthOctaves
        (lowerEdgeHz, upperEdgeHz) = (design.lowerEdgeHz, design.upperEdgeHz)
        self.layout = layout
        self.levelDBFS = levelDBFS
        self.design = design
        let amplitude = Decibels.amplitude(levelDBFS)
        let keys = (0..<layout.signalCount).map { SeedStream.noise.key(seed: seed, channel: firstSignal + $0) }
        if let wanted = basebandFactor {
            baseband = wanted >= 2 ? NarrowBandBasebandDesign(band: design, factor: wanted) : nil
        } else {
            baseband = NarrowBandBasebandDesign(band: design)
        }
        if let baseband {
            let lowPass = OverlapSaveFilter(halfTaps: baseband.lowPassHalfTaps,
                                            fftSize: OverlapSaveFilter.recommendedFFTSize(halfLength: baseband.lowPassHalfTaps.count - 1))
            let kernels = keys.enumerated().map { signal, key in
                NarrowBandNoiseKernel.baseband(NarrowBandBasebandKernel(
                    design: baseband, inPhase: signal == 0 ? lowPass : OverlapSaveFilter(sharingResponseOf: lowPass), key: key,
                    amplitude: amplitude))
            }
            renderer = ChunkedRenderer(kernels: kernels, layout: layout, chunkFrames: kernels[0].chunkFrames)
            return
        }
        // Unit-energy taps turn unit-variance noise into unit-variance noise; the level rides on the taps.
        let first = OverlapSaveFilter(halfTaps: design.halfTaps.map { $0 * amplitude },
                                      fftSize: OverlapSaveFilter.recommendedFFTSize(halfLength: design.halfLength))
        let kernels = keys.enumerated().map { signal, key in
            NarrowBandNoiseKernel.fullRate(NarrowBandFullRateKernel(
                filter: signal == 0 ? first : OverlapSaveFilter(sharingResponseOf: first), key: key))
        }
        renderer = ChunkedRenderer(kernels: kernels, layout: layout, chunkFrames: first.blockFrames)
    }

    /// The output's magnitude response at `frequencyHz` (its spectrum over that of unit-variance white noise,
    /// at 0 dBFS): ``NarrowBandBasebandDesign/magnitude(atFrequency:)`` or ``NarrowBandDesign/magnitude(atFrequency:)``.
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        baseband?.magnitude(atFrequency: frequencyHz) ?? design.magnitude(atFrequency: frequencyHz)
    }

    deinit { renderer.deallocate() }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) { renderer.render(into: block) }

    /// Checks a band request and returns its edges, centre·2^(∓width/2), in Hz.
    ///
    /// Throws for a rate outside 8,000 … 192,000 Hz; a centre (``ParameterID/frequency``) that is not finite and above
    /// 0; a `width` outside (0, 4] octaves; or a band whose upper edge is at or above Nyquist.
    package static func validate(centreHz: Double, widthOctaves: Double,
                                sampleRate: Double) throws(ShadesError) -> (lowerHz: Double, upperHz: Double) {
        try validateSampleRate(sampleRate)
        let nyquist = sampleRate / 2
        try Parameter.frequency.check(centreHz)
        try Parameter.width.check(widthOctaves)
        let band = OctaveBand(uncheckedCentreHz: centreHz, widthOctaves: widthOctaves)
        let lower = band.lowerEdgeHz, upper = band.upperEdgeHz
        guard upper < nyquist, lower > 0 else {
            throw Parameter.frequency.outOfRange(
                centreHz, range: .above(0, below: nyquist * pow(2, -widthOctaves / 2), unit: .hertz),
                note: "for a band \(formatNumber(widthOctaves)) \(widthOctaves == 1 ? "octave" : "octaves") wide: its edges (here \(formatLimit(lower)) … "
                    + "\(formatLimit(upper)) Hz) must lie below Nyquist (\(formatLimit(nyquist)) Hz)")
        }
        return (lower, upper)
    }
}

/// One ear's narrow-band noise, made at the full rate or from the base band.
enum NarrowBandNoiseKernel: ChunkKernel {
    case fullRate(NarrowBandFullRateKernel)
    case baseband(NarrowBandBasebandKernel)

    var chunkFrames: Int {
        switch self {
        case .fullRate(let kernel): kernel.chunkFrames
        case .baseband(let kernel): kernel.chunkFrames
        }
    }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        switch self {
        case .fullRate(var kernel):
            kernel.renderChunk(into: chunk)
            self = .fullRate(kernel)
        case .baseband(var kernel):
            kernel.renderChunk(into: chunk)
            self = .baseband(kernel)
        }
    }
}

/// One ear's narrow-band noise at the full rate: white noise written straight into the overlap-save frame,
/// filtered.
struct NarrowBandFullRateKernel {
    private var random: LaneRandom
    private let filter: OverlapSaveFilter

    /// Fills the filter's history from the stream first: the output starts in steady state.
    init(filter: OverlapSaveFilter, key: UInt64) {
        var random = LaneRandom(key: key)
        filter.withHistory { WhiteNoise.fill($0, distribution: .gaussian, random: &random) }
        self.random = random
        self.filter = filter
    }

    var chunkFrames: Int { filter.blockFrames }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        var random = self.random
        filter.process(into: chunk) { WhiteNoise.fill($0, distribution: .gaussian, random: &random) }
        self.random = random
    }
}

/// The linear-phase band-pass behind ``NarrowBandNoiseSource``: a Kaiser-windowed ideal band-pass,
/// designed in Double, and its exact response.
///
/// Requirements (from the tinnitus-study spec): flat inside the band; at least 60 dB down from 1/12 octave
/// outside each edge. Design:
/// - passband edges at the band edges, stopband edges ``transitionShare`` (0.9) of the way to the 1/12-octave
///   points; one window serves both edges, so the narrower lower transition, Δf = 0.9·fLow·(1 − 2^(−1/12)),
///   sets the length (the upper transition is as narrow);
/// - cutoffs (−6 dB) in the middle of each transition; when the upper transition would reach Nyquist the
///   band-pass becomes a high-pass (flat up to Nyquist, which lies outside the spec's stopband anyway);
/// - Kaiser window for ``stopbandAttenuationDB`` (80 dB): β = 0.1102·(A − 8.7) = 7.86 and
///   2M = (A − 7.95)/(2.285·2π·Δf/fs) ≈ 5.02·fs/Δf taps (Kaiser 1974), M rounded up to a multiple of 8.
///   The same δ = 10^(−A/20) bounds the passband ripple: ±0.001 dB from the edges inward.
/// - taps capped at 2·``maximumHalfLength`` + 1 = 262,145 (5.5 s at 48 kHz, 1.4 s at 192 kHz). Bands whose
///   lower edge lies below about 3.8e−4·rate (18 Hz at 48 kHz, 73 Hz at 192 kHz) then get a wider
///   transition (``transitionHz``, ``isLengthCapped``): still flat from the edges inward and 80 dB down
///   beyond the widened transition. (Below about 1 Hz the widened lower transition reaches DC and the
///   attenuation right at DC is lost; such bands are outside any use here.)
/// Examples: 1 kHz ½ octave at 48 kHz 5,681 taps; 250 Hz ⅓ octave 21,425; 12 kHz ½ octave 481;
/// 125 Hz ⅓ octave at 192 kHz 171,297. Measured: ripple ±0.0008 dB, −81 dB or less from 1/12 octave out.
package struct NarrowBandDesign: Sendable {
    package let sampleRate: Double
    /// Band (passband) edges in Hz.
    package let lowerEdgeHz: Double, upperEdgeHz: Double
    /// Width of each transition band, Hz: from a band edge to where the stopband starts.
    package let transitionHz: Double
    /// Taps h[0] (centre) … h[M]; h[−m] = h[m]. Unit energy: h[0]² + 2Σ h[m]² = 1, so unit-variance white
    /// noise comes out at unit variance.
    package let halfTaps: [Double]
    /// True when the kernel hit the length cap and ``transitionHz`` is wider than the spec asks.
    package let isLengthCapped: Bool
    /// The window and length of the design.
    private let kaiser: KaiserDesign

    /// Designed attenuation in the stopbands, dB (the spec asks for 60).
    package static let stopbandAttenuationDB = 80.0
    /// The spec's transition allowance outside each band edge, in octaves.
    package static let transitionOctaves = 1.0 / 12
    /// Share of that allowance the design uses (the rest is margin).
    package static let transitionShare = 0.9
    /// Longest half kernel, M (taps −M … M).
    package static let maximumHalfLength = 131_072

    /// M: the kernel runs from −M to M.
    package var halfLength: Int { halfTaps.count - 1 }
    /// Taps in the kernel, 2M + 1.
    package var tapCount: Int { 2 * halfLength + 1 }
    /// Below this the response is at least ``stopbandAttenuationDB`` down, Hz.
    package var lowerStopbandEdgeHz: Double { max(0, lowerEdgeHz - transitionHz) }
    /// Above this (up to Nyquist) the response is at least ``stopbandAttenuationDB`` down, Hz; infinity
    /// when the band is so close to Nyquist that the filter is a high-pass (no upper stopband; the spec's
    /// 1/12-octave point then lies above Nyquist too).
    package var upperStopbandEdgeHz: Double {
        upperEdgeHz + transitionHz >= sampleRate / 2 ? .infinity : upperEdgeHz + transitionHz
    }

    /// Designs the band-pass for a band of `widthOctaves` centred at `centreHz`; throws as
    /// ``NarrowBandNoiseSource/validate(centreHz:widthOctaves:sampleRate:)``.
    package init(centreHz: Double, widthOctaves: Double, sampleRate: Double) throws(ShadesError) {
        let (lower, upper) = try NarrowBandNoiseSource.validate(centreHz: centreHz, widthOctaves: widthOctaves,
                                                                sampleRate: sampleRate)
        self.sampleRate = sampleRate
        (lowerEdgeHz, upperEdgeHz) = (lower, upper)
        let wanted = Self.transitionShare * lower * (1 - pow(2, -Self.transitionOctaves))
        let kaiser = KaiserDesign(attenuationDB: Self.stopbandAttenuationDB, transitionHz: wanted, sampleRate: sampleRate,
                                  maximumHalfLength: Self.maximumHalfLength)
        (isLengthCapped, transitionHz) = (kaiser.isLengthCapped, kaiser.transitionHz)
        self.kaiser = kaiser
        let nyquist = sampleRate / 2
        let lowCut = max(0, lower - transitionHz / 2)
        let highCut = upper + transitionHz >= nyquist ? nyquist : upper + transitionHz / 2
        halfTaps = Self.kaiserBandPass(lowCutHz: lowCut, highCutHz: highCut, sampleRate: sampleRate, kaiser: kaiser)
    }

    /// Magnitude of the (unit-energy) filter at `frequencyHz`: |h[0] + 2Σ h[m]·cos(mω)|, summed in Double
    /// by Clenshaw's recurrence.
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        let x = cos(2 * Double.pi * frequencyHz / sampleRate)
        var b1 = 0.0, b2 = 0.0
        for m in stride(from: halfLength, through: 1, by: -1) {
            let b0 = 2 * halfTaps[m] + 2 * x * b1 - b2
            b2 = b1
            b1 = b0
        }
        return abs(halfTaps[0] + x * b1 - b2)
    }

    /// The band as a complex base band for heterodyning (``FrequencyModulatedNarrowBandNoiseSource``): the
    /// low-pass half of the band-pass, cutoff (band width + transition)/2 with the same window (taps of unit
    /// energy), and the band's middle, (lower + upper)/2, Hz, that it is moved to. Its upper transition is
    /// kept whole even where the band-pass would turn into a high-pass near Nyquist.
    package func baseband() -> (halfTaps: [Double], middleHz: Double) {
        let cutoff = (upperEdgeHz - lowerEdgeHz + transitionHz) / 2
        return (Self.kaiserBandPass(lowCutHz: -cutoff, highCutHz: cutoff, sampleRate: sampleRate, kaiser: kaiser),
                (lowerEdgeHz + upperEdgeHz) / 2)
    }

    /// Ideal band-pass (cutoffs in Hz) times the Kaiser window, normalised to unit energy.
    static func kaiserBandPass(lowCutHz: Double, highCutHz: Double, sampleRate: Double, kaiser: KaiserDesign) -> [Double] {
        let nyquist = sampleRate / 2, m = kaiser.halfLength
        var taps = [Double](repeating: 0, count: m + 1)
        taps[0] = 2 * (highCutHz - lowCutHz) / sampleRate
        for k in stride(from: 1, through: m, by: 1) {
            // sin(πk) = 0 exactly at Nyquist.
            let high = highCutHz >= nyquist ? 0 : KaiserDesign.sine(highCutHz, sampleRate: sampleRate, tap: k)
            let ideal = (high - KaiserDesign.sine(lowCutHz, sampleRate: sampleRate, tap: k)) / (Double.pi * Double(k))
            taps[k] = kaiser.windowed(ideal, at: k)
        }
        let energy = taps.indices.reduce(0.0) { $0 + ($1 == 0 ? 1 : 2) * taps[$1] * taps[$1] }
        let scale = 1 / energy.squareRoot()
        return taps.map { $0 * scale }
    }
}

/// Seamless loops of narrow-band noise by FFT synthesis over the whole loop.
///
/// Every bin inside the band (edges included) gets magnitude 1 and a uniformly random phase; all other
/// bins are zero. The inverse FFT of the whole length is periodic by construction, so the step from the
/// last sample back to the first is like any other, and nothing lies outside the band but Float rounding
/// (about 130 dB below the in-band bins). The band's bins are rate/length apart, so a loop needs at least
/// rate/(upper − lower) frames.
package enum LoopNarrowBandNoise {
    /// The band's FFT bins in a loop of `frameCount` frames. Throws for a bad band, or ``ParameterID/loopLength`` when the
    /// loop is too short for any bin to fall inside the band.
    package static func validate(centreHz: Double, widthOctaves: Double, sampleRate: Double,
                                frameCount n: Int) throws(ShadesError) -> (firstBin: Int, lastBin: Int) {
        let (lower, upper) = try NarrowBandNoiseSource.validate(centreHz: centreHz, widthOctaves: widthOctaves,
                                                                sampleRate: sampleRate)
        let firstBin = Int((lower * Double(n) / sampleRate).rounded(.up))
        let lastBin = Int((upper * Double(n) / sampleRate).rounded(.down))
        guard n >= 2, firstBin <= lastBin else {
            let needed = Int((sampleRate / (upper - lower)).rounded(.up))
            throw Parameter.loopLength.outOfRange(Double(n), range: .atLeast(Double(needed), unit: .frames),
                                                  note: "for this band (its bins are rate/length apart)")
        }
        return (firstBin, lastBin)
    }

    /// Renders `output.count` frames of one signal at unit RMS into `output`.
    ///
    /// - Parameters:
    ///   - centreHz, widthOctaves, sampleRate: as ``NarrowBandNoiseSource``, checked the same way.
    ///   - key: the signal's random stream (see ``SeedStream``).
    /// - Throws: ``ShadesError`` for a bad band, or ``ParameterID/loopLength`` when the loop is too short for any bin
    ///   to fall inside the band.
    package static func render(centreHz: Double, widthOctaves: Double, sampleRate: Double, key: UInt64,
                              into output: UnsafeMutableBufferPointer<Float>) throws(ShadesError) {
        let n = output.count
        let (firstBin, lastBin) = try validate(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate,
                                               frameCount: n)
        // 0 < lower and upper < Nyquist: neither DC nor the Nyquist bin is ever in the band.
        render(bins: firstBin...lastBin, key: key, into: output)
    }

    /// Renders one signal at unit RMS into `output` whose FFT `bins` (within 1 ..< output.count/2) have unit
    /// magnitude and a random phase, every other bin zero: periodic over `output.count` frames.
    package static func render(bins: ClosedRange<Int>, key: UInt64, into output: UnsafeMutableBufferPointer<Float>) {
        let n = output.count
        let (firstBin, lastBin) = (bins.lowerBound, bins.upperBound)
        precondition(firstBin >= 1 && 2 * lastBin < n, "bins between DC and Nyquist")
        let fft = RealFFT(size: n)
        var random = LaneRandom(key: key)
        fft.withSpectrum { bins in
            bins.update(repeating: 0)
            var k = firstBin
            while k <= lastBin {
                let (c, s) = WhiteNoise.unitPhasors(random.next())
                for lane in 0..<8 where k + lane <= lastBin {
                    bins[2 * (k + lane)] = c[lane]
                    bins[2 * (k + lane) + 1] = s[lane]
                }
                k += 8
            }
        }
        fft.inverse()
        // Parseval with FFTW's unnormalised inverse: mean square = Σ over both sides of |X_k|² = 2 × bins.
        let scale = Float(1 / (2 * Double(lastBin - firstBin + 1)).squareRoot())
        fft.withSignal { signal in
            for i in 0..<n { output[i] = signal[i] * scale }
        }
    }
}

extension Parameter {
    /// Width of a narrow noise band, octaves: ``NarrowBandNoiseSource/maximumWidthOctaves``.
    package static let width = Parameter(.width, unit: .octaves,
                                        range: .above(0, atMost: NarrowBandNoiseSource.maximumWidthOctaves, unit: .octaves), default: 0.5)
    /// Length of a loop of narrow-band noise, frames (at least one FFT bin inside the band).
    package static let loopLength = Parameter(.loopLength, unit: .frames, range: .atLeast(2, unit: .frames))
}
