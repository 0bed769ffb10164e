import ShadesPlatform

/// The parameters of a spectral-ripple ("cross-frequency de-correlating") modulation stimulus (Yukhnovich,
/// Harrison, Wray, Alter, Sedley 2025, Hearing Research, "Chronic tinnitus is quietened by sound therapy using
/// a novel cross-frequency de-correlating stimulus modulation"; materials DOI 10.25405/data.ncl.27109693).
///
/// The sound is a sequence of 4-s segments. Each is a harmonic complex on a fundamental f0 drawn uniformly
/// from 96 … 256 Hz (whole Hz), anew for each segment, keeping the harmonics in 1 … 16 kHz (equal amplitude,
/// sine phase). The span is divided into eight half-octave bands with edges 1000 · 2^(k/2) Hz, k = 0…8, and one
/// octave (two adjacent bands) is modulated by a ripple drifting across it:
/// Θ(t, x) = 2π·(φ0 + r·t + s(t)·x), r = 1 Hz, s(t) = 4.5 + 3·sin(φs + 2πt / 8 s) cycles/octave, where x is
/// the harmonic's distance in octaves from the octave's centre (−0.5 … 0.5), t the time in the segment, and
/// φ0, φs are drawn per segment.
///
/// Which octave (documented choice, `modulatedBandPair`): active — the band pair whose centre is nearest F
/// in log frequency (lower band j = round(2·log2(F / 1 kHz)) − 1, clamped to 0…6; so the octave contains F and
/// is centred on it as well as the half-octave edges allow); sham — of the two outermost pairs (1–2 kHz and
/// 8–16 kHz), the one whose centre is farther from F in log frequency (the lower one on a tie).
public struct SpectralRipple: Sendable, Equatable, Encodable {
    /// How the modulated octave is treated.
    public enum Condition: String, Sendable, Equatable, Codable, CaseIterable {
        /// Each modulated harmonic × (1 + sin Θ): envelopes 0 … 2.
        case amplitude
        /// Each modulated harmonic's phase offset by (π/2)·(1 + sin Θ); amplitudes constant.
        case phase
        /// The modulated harmonics replaced by flat-spectrum random-phase noise over the same octave with
        /// their (unmodulated) power: FFT noise over the segment, unit magnitude and random phase in every
        /// 0.25-Hz bin of the octave, per-band gains applied.
        case noise
    }

    /// Tinnitus frequency F in Hz (1,000 … 16,000).
    public var tinnitusFrequencyHz: Double
    public var condition: Condition
    /// Modulate the octave far from F instead of the one around it (the sham arm).
    public var sham: Bool
    /// Hearing-loss compensation: a gain in dB for each of the eight half-octave bands (ascending), applied to
    /// the harmonics (and noise) in it; nil: flat. The published mild/moderate/severe profiles were not
    /// available when this was written, so none are built in.
    public var bandGainsDB: [Double]?

    public init(tinnitusFrequencyHz: Double, condition: Condition = .amplitude, sham: Bool = false, bandGainsDB: [Double]? = nil) {
        self.tinnitusFrequencyHz = tinnitusFrequencyHz
        self.condition = condition
        self.sham = sham
        self.bandGainsDB = bandGainsDB
    }

    /// Segment length, s.
    package static let segmentSeconds = 4.0
    /// Raised-cosine on and off ramps of each segment, s.
    package static let rampSeconds = 1.0
    /// Range of the fundamental, Hz (whole Hz, uniform).
    package static let fundamentalRangeHz: ClosedRange<Int> = 96...256
    /// Harmonics kept, Hz.
    package static let carrierRangeHz: ClosedRange<Double> = 1000...16000
    /// Ripple drift r, Hz.
    package static let rippleRateHz = 1.0
    /// Ripple density s(t) = mean + depth · sin(φs + 2πt / period), cycles/octave.
    package static let densityMean = 4.5, densityDepth = 3.0, densityPeriodSeconds = 8.0
    /// Edges of the eight half-octave bands, Hz: 1000 · 2^(k/2), k = 0…8.
    package static let bandEdgesHz: [Double] = (0...8).map { 1000 * pow(2, Double($0) / 2) }
    /// Allowed band gains, dB.
    package static let allowedBandGainDB: ClosedRange<Double> = -40...40

    /// The lower band (0…6) of the modulated octave: bands j and j + 1, from 1000·2^(j/2) to 1000·2^(j/2+1) Hz.
    package var modulatedBandPair: Int {
        let active = min(6, max(0, Int((2 * log2(tinnitusFrequencyHz / 1000)).rounded()) - 1))
        guard sham else { return active }
        // Centre of pair j: 1000 · 2^((j + 1)/2); distances in octaves from F.
        let low = abs(log2(tinnitusFrequencyHz / (1000 * pow(2, 0.5))))
        let high = abs(log2(tinnitusFrequencyHz / (1000 * pow(2, 3.5))))
        return high > low + 1e-9 ? 6 : 0  // a tie (F = 4 kHz) goes to the lower pair
    }

    /// The modulated octave's edges, Hz.
    package var modulatedOctaveHz: ClosedRange<Double> {
        let j = modulatedBandPair
        return Self.bandEdgesHz[j]...Self.bandEdgesHz[j + 2]
    }

    /// Checks every parameter at `sampleRate`; the error names the parameter and its allowed range.
    package func validate(sampleRate: Double) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        var rates = Parameter.rate.range!
        rates.lower = .excluded(2 * Self.carrierRangeHz.upperBound)
        rates.wholeNumbers = true
        try Parameter.rate.check(sampleRate, within: rates, note: "(harmonics up to \(formatLimit(Self.carrierRangeHz.upperBound)) Hz)")
        try Parameter.frequency.check(tinnitusFrequencyHz, within: ParameterRange(Self.carrierRangeHz, unit: .hertz),
                                      note: "(the carrier's span)")
        if let bandGainsDB {
            guard bandGainsDB.count == 8 else {
                throw Parameter.bandGains.error(.other("do not match the eight bands"), value: .text("\(bandGainsDB.count) values"))
            }
            for g in bandGainsDB { try Parameter.bandGains.check(g) }
        }
    }
}

/// One segment's random choices, drawn from the seed and the segment index alone.
package struct SpectralRippleSegment: Sendable, Equatable {
    /// Fundamental, Hz (96 … 256).
    package let fundamentalHz: Int
    /// Ripple start phase φ0, cycles (0 ..< 1).
    package let ripplePhaseCycles: Double
    /// Density start phase φs, radians (0 ..< 2π).
    package let densityPhase: Double
    /// Seed of the noise condition's random phases.
    let noiseKey: UInt64

    init(key: UInt64, segment: Int) {
        var rng = SplitMix64(seed: key ^ (UInt64(segment) &* 0xD6E8_FEB8_6659_FD93))
        let span = UInt64(SpectralRipple.fundamentalRangeHz.count)
        fundamentalHz = SpectralRipple.fundamentalRangeHz.lowerBound + Int(rng.next() % span)
        ripplePhaseCycles = rng.nextUnit()
        densityPhase = 2 * Double.pi * rng.nextUnit()
        noiseKey = rng.next()
    }
}

extension Parameter {
    /// Gain of each spectral-ripple band, dB: ``SpectralRipple/allowedBandGainDB``.
    package static let bandGains = Parameter(.bandGains, unit: .decibels,
                                            range: ParameterRange(SpectralRipple.allowedBandGainDB, unit: .decibels),
                                            note: "eight gains, one per half-octave band from 1 kHz up")
}
