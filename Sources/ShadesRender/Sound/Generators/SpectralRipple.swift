import ShadesPlatform
import ShadesDSP

/// Spectral-ripple modulated harmonic complexes in 4-s segments (``SpectralRippleSource``; Yukhnovich et
/// al. 2025). One signal (diotic in stereo); each whole segment has the asked RMS, made at −30 dBFS unless
/// asked (its sine-phase harmonic complex has a crest factor near 20 dB). A timed pattern: no loop, notch,
/// AM or pulses; an audiogram's shape becomes its band gains.
extension SpectralRipple: GeneratorKind {
    package static let names = ["ripple"]
    package static let help = "ripple: spectral-ripple modulation around --frequency (--condition, --sham, --band-gains)"
    package static let example: String? = "shades render ripple --frequency 4kHz --duration 60s -o ripple.wav"
    package static var defaults: SpectralRipple { SpectralRipple(tinnitusFrequencyHz: 4000) }
    package static let defaultLevelDBFS = -30.0
    package static var fields: [ParameterField<SpectralRipple>] {
        [.frequency(\.tinnitusFrequencyHz, help: "the tinnitus frequency, 1 … 16 kHz", requiredAs: "the tinnitus frequency"),
         .choice(\.condition, .condition, key: "condition", help: "amplitude, phase or noise"),
         .toggle(\.sham, .sham, key: "sham", flag: "", help: "modulate the octave far from the tinnitus frequency (its sham: ``sham()``)"),
         .gains(\.bandGainsDB, .bandGains, key: "bandGainsDB", flag: "band-gains",
                help: "eight gains in dB, one per half-octave band from 1 kHz up (hearing-loss compensation)")]
    }

    package var summary: String {
        "ripple frequency=\(formatNumber(tinnitusFrequencyHz))Hz condition=\(condition.rawValue)"
            + " octave=\(formatNumber(modulatedOctaveHz.lowerBound.rounded()))-\(formatNumber(modulatedOctaveHz.upperBound.rounded()))Hz"
            + (bandGainsDB.map { " band_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
    }
    package var shortest: (seconds: Double, holding: String)? { (Self.rampSeconds, "its onset ramp") }
    /// Read at the tinnitus frequency, for the sham too (its modulated octave is far from it: Yukhnovich et al.
    /// 2025), so twins get one level; the complexes themselves span 1 … 16 kHz.
    package var hearingReference: HearingReference { .frequency(hertz: tinnitusFrequencyHz, what: "the tinnitus frequency") }

    /// Sham (published: Yukhnovich et al. 2025): the same ripple in the outermost octave far from F (1–2 or
    /// 8–16 kHz, ``SpectralRipple/modulatedBandPair``). Its JSON keeps `"sham": true` among its own keys.
    package func sham() -> SpectralRipple? {
        var sham = self
        sham.sham = true
        return sham
    }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validate(sampleRate: request.sampleRate)
        try request.refusePatternCombinations("spectral ripple")
    }

    /// The audiogram's shape as its own band gains, at each half-octave band's centre.
    package func shaped(by shape: SpectralShape) -> Generator? {
        var shaped = self
        shaped.bandGainsDB = (0..<8).map { (band: Int) -> Double in shape.gainDB(atHz: 1_000 * pow(2, (2 * Double(band) + 1) / 4)) }
        return Generator(shaped)
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        // Every whole segment has the level.
        context.singleSignal { [self] rate, level, seed in
            try! SpectralRippleSource(ripple: self, sampleRate: rate, levelDBFS: level, seed: seed)
        }
    }
}

extension ParameterID {
    /// The condition of a spectral ripple.
    package static let condition = ParameterID("condition", name: "condition")
}

extension Parameter {
    package static let condition = Parameter(.condition, note: SpectralRipple.Condition.allCases.map(\.rawValue).joined(separator: ", "))
}

extension Generator {
    /// Spectral-ripple modulated harmonic complexes.
    public static func spectralRipple(_ ripple: SpectralRipple) -> Generator { Generator(ripple) }
}
