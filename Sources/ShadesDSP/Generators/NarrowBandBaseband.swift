import CShadesKernels
import ShadesPlatform

/// Narrow-band noise made at a low rate and interpolated (``NarrowBandNoiseSource`` for every band that
/// leaves room for it): a complex base band I + iQ of two independent Gaussian noises at r = rate/D,
/// each low-passed at r to ±B/2 (B the band width), interpolated by D and moved up to the band's middle:
/// y[n] = Re{v[n]·e^{iω₀n}} = v_I·cos ω₀n − v_Q·sin ω₀n, of unit variance at every phase.
///
/// Design, for the same band and transition Δf as ``NarrowBandDesign`` (stopbands from B/2 + Δf either
/// side of the middle, flat to B/2):
/// - low-pass at r: Kaiser, passband to B/2, stopband from B/2 + Δf, ``attenuationDB`` (86) down;
/// - interpolator at the rate: Kaiser low-pass with gain D, passband to B/2, stopband from r − B/2 − Δf
///   (where the first image of the base band's transition starts), ``attenuationDB`` down; its length a whole
///   number T of taps per phase;
/// - each stage's ripple is δ = 10^(−86/20), so the band's is within ±0.001 dB and everything from Δf
///   outside each edge at least 86 dB down (one stage or the other is in its stopband there);
/// - D: the largest with r ≥ ``rateOverBand`` × (B + 2Δf), and a multiple of 8 when that leaves D ≥ 8 (the
///   interpolator's phases fill whole vectors).
/// The interpolator's taps are modulated, g[m] = h[m]·e^{iω₀m}, and each low-rate sample z[k] is turned by
/// e^{iω₀Dk} (phase from k in Double), so y[kD + p] = Re Σⱼ g[p + jD]·z'[k − j]: no oscillator at the rate.
///
/// Examples at 48 kHz: 4 kHz ½ octave D = 16 (3 kHz), low-pass 97 taps, 12 taps per phase; 1 kHz ½ octave
/// D = 72; 250 Hz ⅓ octave D = 392; 12 kHz ½ octave D = 6; 2 kHz 4 octaves D = 4 (low-pass 2,593 taps).
/// Measured (the design tests' bands that take this path): ripple within ±0.001 dB, everything beyond 1/12 octave out at least
/// 80 dB down, the variance within 1 % of 1 before it is scaled away.
package struct NarrowBandBasebandDesign: Sendable {
    package let sampleRate: Double
    /// Band (passband) edges and the transition outside each, Hz (as ``NarrowBandDesign``).
    package let lowerEdgeHz: Double, upperEdgeHz: Double, transitionHz: Double
    /// D: the base band's rate is sampleRate/D.
    package let factor: Int
    /// The band's middle, (lower + upper)/2, Hz: where the base band's 0 Hz lands.
    package let middleHz: Double
    /// The base band's low-pass at the low rate: h[0] (centre) … h[M], unit energy, M a multiple of 8.
    package let lowPassHalfTaps: [Double]
    /// The interpolator's taps h[0] … h[T·D − 1] (symmetric, gain D in the passband), before modulation.
    package let interpolatorTaps: [Double]
    /// T: interpolator taps per output phase.
    package let tapsPerPhase: Int
    /// The output's variance for unit-variance I and Q noise, averaged over the D phases (close to 1).
    package let variance: Double

    /// Designed attenuation of each stage, dB (two stages: the band's ripple stays within ±0.001 dB).
    package static let attenuationDB = 86.0
    /// The low rate over B + 2Δf, at least (the base band's stopband must fit below its Nyquist with room
    /// for a short interpolator).
    package static let rateOverBand = 1.5

    /// The low rate, Hz.
    package var lowRate: Double { sampleRate / Double(factor) }
    /// Below this the response is at least ``attenuationDB`` down, Hz.
    package var lowerStopbandEdgeHz: Double { lowerEdgeHz - transitionHz }
    /// Above this (to Nyquist) the response is at least ``attenuationDB`` down, Hz.
    package var upperStopbandEdgeHz: Double { upperEdgeHz + transitionHz }

    /// The base-band design for `band`, or nil when it does not pay (D would be 1), when the band's
    /// stopbands would reach 0 Hz or Nyquist, or when the full-rate design's kernel was capped.
    /// `factor` overrides the choice of D (tests; at least 2, and the low rate above B + 2Δf).
    package init?(band: NarrowBandDesign, factor wanted: Int? = nil) {
        let fs = band.sampleRate, nyquist = fs / 2
        let (lower, upper, transition) = (band.lowerEdgeHz, band.upperEdgeHz, band.transitionHz)
        guard !band.isLengthCapped, lower - transition > 0, upper + transition < nyquist else { return nil }
        let width = upper - lower
        var d = wanted ?? Int((fs / (Self.rateOverBand * (width + 2 * transition))).rounded(.down))
        if wanted == nil && d >= 8 { d -= d % 8 }
        guard d >= 2, fs / Double(d) > width + 2 * transition else { return nil }
        let r = fs / Double(d)
        let lowPass = KaiserDesign(attenuationDB: Self.attenuationDB, transitionHz: transition, sampleRate: r,
                                   maximumHalfLength: NarrowBandDesign.maximumHalfLength)
        guard !lowPass.isLengthCapped else { return nil }
        sampleRate = fs
        (lowerEdgeHz, upperEdgeHz, transitionHz) = (lower, upper, transition)
        factor = d
        middleHz = (lower + upper) / 2
        let cutoff = (width + transition) / 2
        lowPassHalfTaps = NarrowBandDesign.kaiserBandPass(lowCutHz: -cutoff, highCutHz: cutoff, sampleRate: r, kaiser: lowPass)
        // Interpolator: passband to B/2, stopband from r − B/2 − Δf, cutoff in the middle.
        let stopHz = r - width / 2 - transition, passHz = width / 2
        let span = (Self.attenuationDB - 7.95) / (2.285 * 2 * Double.pi * (stopHz - passHz) / fs)   // 2·half length
        let t = Int(((span + 1) / Double(d)).rounded(.up))
        tapsPerPhase = t
        interpolatorTaps = Self.kaiserLowPass(length: t * d, cutoffHz: (passHz + stopHz) / 2, gain: Double(d), sampleRate: fs)
        variance = Self.phaseAveragedVariance(lowPassHalfTaps: lowPassHalfTaps, interpolatorTaps: interpolatorTaps, factor: d)
    }

    /// Magnitude at `frequencyHz` of the unit-variance output's spectrum, as a filter's on unit-variance white
    /// noise: √(rate·S(f)), S the two-sided power density. Exact for the taps (Double), images included.
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        func density(_ f: Double) -> Double {
            let lp = Self.symmetricResponse(halfTaps: lowPassHalfTaps, frequencyHz: f, sampleRate: lowRate)
            let ip = Self.interpolatorResponse(interpolatorTaps, frequencyHz: f, sampleRate: sampleRate)
            return lp * lp * ip * ip / (lowRate * Double(factor * factor))
        }
        // S_y(f) = ½[S_I(f − f₀) + S_I(f + f₀)] for y = Re{v·e^{iω₀n}}, I and Q alike and independent.
        let s = (density(frequencyHz - middleHz) + density(frequencyHz + middleHz)) / 2 / variance
        return (sampleRate * s).squareRoot()
    }

    /// |h[0] + 2Σ h[m]·cos(2πfm/rate)| for symmetric taps h[−m] = h[m].
    package static func symmetricResponse(halfTaps: [Double], frequencyHz: Double, sampleRate: Double) -> Double {
        let x = cos(2 * Double.pi * frequencyHz / sampleRate)
        var b1 = 0.0, b2 = 0.0
        for m in stride(from: halfTaps.count - 1, through: 1, by: -1) {
            let b0 = 2 * halfTaps[m] + 2 * x * b1 - b2
            b2 = b1
            b1 = b0
        }
        return abs(halfTaps[0] + x * b1 - b2)
    }

    /// |Σ h[m]·e^{−iθm}| for taps symmetric about (L − 1)/2: |Σ h[m]·cos(θ(m − c))|.
    static func interpolatorResponse(_ taps: [Double], frequencyHz: Double, sampleRate: Double) -> Double {
        let theta = 2 * Double.pi * frequencyHz / sampleRate, c = Double(taps.count - 1) / 2
        var sum = 0.0
        for (m, h) in taps.enumerated() { sum += h * cos(theta * (Double(m) - c)) }
        return abs(sum)
    }

    /// Ideal low-pass times a Kaiser window over all `length` taps (centred at (length − 1)/2), gain `gain`.
    static func kaiserLowPass(length: Int, cutoffHz: Double, gain: Double, sampleRate: Double) -> [Double] {
        let beta = 0.1102 * (attenuationDB - 8.7), i0 = KaiserDesign.besselI0(beta)
        let c = Double(length - 1) / 2, w = 2 * cutoffHz / sampleRate
        return (0..<length).map { m in
            let x = Double(m) - c
            let ideal = x == 0 ? w : sin(Double.pi * w * x) / (Double.pi * x)
            let r = x / c
            return gain * ideal * KaiserDesign.besselI0(beta * max(0, 1 - r * r).squareRoot()) / i0
        }
    }

    /// Var v_I averaged over the phases: (1/D) Σₚ Σⱼ Σⱼ' h[p + jD]·h[p + j'D]·R[j − j'], R the low-passed
    /// noise's autocorrelation at the low rate.
    static func phaseAveragedVariance(lowPassHalfTaps half: [Double], interpolatorTaps h: [Double], factor d: Int) -> Double {
        let m = half.count - 1, t = h.count / d
        let full = (-m...m).map { half[abs($0)] }
        let lags = (0..<t).map { l in l > 2 * m ? 0 : (0..<(full.count - l)).reduce(0.0) { $0 + full[$1] * full[$1 + l] } }
        var sum = 0.0
        for p in 0..<d {
            for j in 0..<t {
                for k in 0..<t { sum += h[p + j * d] * h[p + k * d] * lags[abs(j - k)] }
            }
        }
        return sum / Double(d)
    }
}

/// One ear's narrow-band noise from the base band (``NarrowBandBasebandDesign``): I and Q Gaussian noise
/// low-passed by overlap-save at the low rate, turned, and interpolated up by the C kernel.
struct NarrowBandBasebandKernel {
    private var inPhaseRandom: LaneRandom, quadratureRandom: LaneRandom
    private let inPhase: OverlapSaveFilter, quadrature: OverlapSaveFilter
    /// The turned base band: T − 1 samples of history, then one filter block (re and im planes).
    private let line: FloatScratch
    private let taps: FloatScratch   // 2T rows of `stride` Floats: Re g, then −Im g, per tap j
    private let factor: Int, tapsPerPhase: Int, stride: Int
    /// Low-rate samples per output chunk.
    let inputsPerChunk: Int
    /// Cycles the base band turns per low-rate sample: frac(f₀·D/rate).
    private let turnCycles: Double
    /// cos and sin of one low-rate sample's turn.
    private let turnStep: (Double, Double)
    private var next: Int   // index of the next low-rate sample in the line
    private var produced = 0   // low-rate samples made so far (the turn's phase)

    var chunkFrames: Int { inputsPerChunk * factor }
    private var blockFrames: Int { inPhase.blockFrames }
    private var lineCount: Int { tapsPerPhase - 1 + blockFrames }

    /// `amplitude`: the output's RMS (linear). Runs one block first: the output starts in steady state.
    init(design: NarrowBandBasebandDesign, inPhase: OverlapSaveFilter, key: UInt64, amplitude: Double) {
        var (i, q) = (LaneRandom(key: key), LaneRandom(key: FrequencyModulatedNarrowBandNoiseSource.quadratureKey(key)))
        let quadrature = OverlapSaveFilter(sharingResponseOf: inPhase)
        inPhase.withHistory { WhiteNoise.fill($0, distribution: .gaussian, random: &i) }
        quadrature.withHistory { WhiteNoise.fill($0, distribution: .gaussian, random: &q) }
        (inPhaseRandom, quadratureRandom, self.inPhase, self.quadrature) = (i, q, inPhase, quadrature)
        let d = design.factor, t = design.tapsPerPhase, stride = (d + 7) / 8 * 8
        (factor, tapsPerPhase, self.stride) = (d, t, stride)
        inputsPerChunk = max(4, 8_192 / d) / 4 * 4
        let cycles = design.middleHz * Double(d) / design.sampleRate
        turnCycles = cycles - cycles.rounded(.down)
        turnStep = (cos(2 * Double.pi * turnCycles), sin(2 * Double.pi * turnCycles))
        line = FloatScratch(count: 2 * (t - 1 + inPhase.blockFrames))
        taps = FloatScratch(count: 2 * t * stride)
        // g[m] = scale·h[m]·e^{iω₀m}; row 2j holds Re g[p + jD], row 2j + 1 holds −Im g[p + jD].
        let scale = amplitude / design.variance.squareRoot(), f0 = design.middleHz / design.sampleRate
        for j in 0..<t {
            for p in 0..<d {
                let m = p + j * d, cycles = f0 * Double(m)
                let angle = 2 * Double.pi * (cycles - cycles.rounded(.down))
                taps.buffer[2 * j * stride + p] = Float(scale * design.interpolatorTaps[m] * cos(angle))
                taps.buffer[(2 * j + 1) * stride + p] = Float(-scale * design.interpolatorTaps[m] * sin(angle))
            }
        }
        next = 0
        refill()
        next = lineCount
    }

    /// Moves the last T − 1 samples to the front and filters the next block behind them, turned.
    private mutating func refill() {
        let h = tapsPerPhase - 1, n = blockFrames, count = lineCount
        let re = UnsafeMutableBufferPointer(rebasing: line.buffer[0..<count])
        let im = UnsafeMutableBufferPointer(rebasing: line.buffer[count..<(2 * count)])
        for k in 0..<h {
            re[k] = re[n + k]
            im[k] = im[n + k]
        }
        var (i, q) = (inPhaseRandom, quadratureRandom)
        inPhase.process(into: UnsafeMutableBufferPointer(rebasing: re[h..<count])) { WhiteNoise.fill($0, distribution: .gaussian, random: &i) }
        quadrature.process(into: UnsafeMutableBufferPointer(rebasing: im[h..<count])) { WhiteNoise.fill($0, distribution: .gaussian, random: &q) }
        (inPhaseRandom, quadratureRandom) = (i, q)
        // The turn's phasor from the block's first index (Double), then stepped: no drift past one block.
        let cycles = turnCycles * Double(produced)
        let angle = 2 * Double.pi * (cycles - cycles.rounded(.down))
        var (c, s) = (cos(angle), sin(angle))
        let (stepC, stepS) = turnStep
        for k in h..<count {
            let (a, b) = (Double(re[k]), Double(im[k]))
            re[k] = Float(a * c - b * s)
            im[k] = Float(a * s + b * c)
            (c, s) = (c * stepC - s * stepS, c * stepS + s * stepC)
        }
        produced += n
        next = h
    }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        precondition(chunk.count == chunkFrames, "one chunk at a time")
        var done = 0
        let count = lineCount
        while done < inputsPerChunk {
            if next == count { refill() }
            let n = min(inputsPerChunk - done, count - next)
            let base = line.buffer.baseAddress!
            Kernels.table.polyphase_complex!(base + next, base + count + next, n, taps.buffer.baseAddress!, tapsPerPhase,
                                             factor, stride, chunk.baseAddress! + done * factor)
            next += n
            done += n
        }
    }
}
