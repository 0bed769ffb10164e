import ShadesDSP

/// High-frequency fluctuating tinnitus (cricket-like; the fifth quality cluster, PMC8060060): a tone at
/// `frequencyHz` in chirps, `chirpRateHz` a second, each of `syllables` raised-cosine pulses at
/// `syllableRateHz` (``BeatPattern/chirps(chirpRateHz:syllables:syllableRateHz:)``; a field cricket: a
/// 4–5 kHz carrier, 3–5 syllables at about 30 a second, 2–3 chirps a second), normalised to the tone's RMS
/// in expectation; a file is measured. In a loop the tone and the chirp rate move to whole cycles.
package struct TinnitusCricket: GeneratorKind {
    /// The carrier, Hz.
    package var frequencyHz: Double
    /// Chirps per second, Hz.
    package var chirpRateHz: Double
    /// Pulses in a chirp.
    package var syllables: Int
    /// Pulses per second inside a chirp, Hz.
    package var syllableRateHz: Double

    package static let names = ["tinnitus-cricket"]
    package static let help = "tinnitus-cricket: cricket-like tinnitus, chirps of --syllables pulses of a tone at --frequency"
    package static let example: String? = "shades render tinnitus-cricket --frequency 5kHz --chirp-rate 2.5 --syllables 3 --syllable-rate 30 --duration 30s -o cricket.wav"
    package static var defaults: TinnitusCricket {
        TinnitusCricket(frequencyHz: 1000, chirpRateHz: Parameter.chirpRate.defaultValue!, syllables: Int(Parameter.syllables.defaultValue!),
                        syllableRateHz: Parameter.syllableRate.defaultValue!)
    }
    package static var fields: [ParameterField<TinnitusCricket>] {
        [.number(\.frequencyHz, .frequency, key: "frequency", form: .hertz, help: "the chirps' tone", requiredAs: "a frequency"),
         .number(\.chirpRateHz, .chirpRate, key: "chirpRate", flag: "chirp-rate", form: .hertz,
                 help: "chirps per second, \(Parameter.chirpRate.range!) (default \(formatNumber(Parameter.chirpRate.defaultValue!)))"),
         .count(\.syllables, .syllables, key: "syllables",
                help: "pulses per chirp, \(Parameter.syllables.range!) (default \(formatNumber(Parameter.syllables.defaultValue!)))"),
         .number(\.syllableRateHz, .syllableRate, key: "syllableRate", flag: "syllable-rate", form: .hertz,
                 help: "pulses per second inside a chirp, \(Parameter.syllableRate.range!) (default \(formatNumber(Parameter.syllableRate.defaultValue!)))")]
    }

    package var summary: String {
        "tinnitus-cricket frequency=\(formatNumber(frequencyHz))Hz chirp-rate=\(formatNumber(chirpRateHz))Hz syllables=\(syllables)"
            + " syllable-rate=\(formatNumber(syllableRateHz))Hz"
    }
    package var shortest: (seconds: Double, holding: String)? { (1 / chirpRateHz, "one chirp") }
    /// Read at the chirps' carrier.
    package var hearingReference: HearingReference { .frequency(hertz: frequencyHz, what: "the carrier") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validateFrequency(frequencyHz, sampleRate: request.sampleRate)
        if request.loop { try validateFrequency(request.loopRate(frequencyHz), sampleRate: request.sampleRate) }
        try Parameter.chirpRate.check(chirpRateHz)
        try Parameter.syllables.check(Double(syllables))
        try Parameter.syllableRate.check(syllableRateHz)
        let chirpRate = request.loop ? request.loopRate(chirpRateHz) : chirpRateHz
        if request.loop {
            try Parameter.chirpRate.check(chirpRate, within: Parameter.chirpRate.range!,
                                          note: "with whole chirps in the loop (it becomes \(formatNumber(chirpRate)) Hz)")
        }
        // The syllables fit in a chirp's period.
        let fitting = (syllableRateHz / chirpRate).rounded(.down)
        try Parameter.syllables.check(Double(syllables), within: ParameterRange(1...max(1, fitting), wholeNumbers: true),
                                      note: "(those that fit in one chirp at \(formatNumber(chirpRate)) chirps and \(formatNumber(syllableRateHz)) pulses a second)")
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let frequency = context.loopAdjusted("tone frequency", frequencyHz)
        let pattern = BeatPattern.chirps(chirpRateHz: context.loopAdjusted("chirp rate", chirpRateHz), syllables: syllables,
                                         syllableRateHz: syllableRateHz)
        let (rate, gain) = (context.sampleRate, Decibels.amplitude(context.levelDBFS) * 2.0.squareRoot())  // a unit-peak tone to the level
        var signals = GeneratorSignals(layout: context.singleSignalLayout) { _ in
            BeatPatternSource(source: try! ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono, levelDBFS: ToneSource.highestLevelDBFS),
                              pattern: pattern, gain: gain)
        }
        signals.renderedFrequencyHz = frequency
        return signals
    }
}

extension Generator {
    /// Cricket-like tinnitus: chirps of `syllables` pulses of a tone at `frequencyHz`.
    public static func tinnitusCricket(frequencyHz: Double, chirpRateHz: Double, syllables: Int, syllableRateHz: Double) -> Generator {
        Generator(TinnitusCricket(frequencyHz: frequencyHz, chirpRateHz: chirpRateHz, syllables: syllables, syllableRateHz: syllableRateHz))
    }
}

extension Parameter {
    /// Chirps per second of cricket-like tinnitus, Hz: 0.5 … 10, default 2.5.
    package static let chirpRate = Parameter(.chirpRate, unit: .hertz, range: ParameterRange(0.5...10, unit: .hertz), default: 2.5)
    /// Pulses (syllables) per chirp: 1 … 10, default 3.
    package static let syllables = Parameter(.syllables, range: ParameterRange(1...10, wholeNumbers: true), default: 3)
    /// Pulses per second inside a chirp, Hz: 10 … 100, default 30.
    package static let syllableRate = Parameter(.syllableRate, unit: .hertz, range: ParameterRange(10...100, unit: .hertz), default: 30)
}

extension ParameterID {
    package static let chirpRate = ParameterID("chirpRate", name: "chirp rate")
    package static let syllables = ParameterID("syllables", name: "pulses per chirp")
    package static let syllableRate = ParameterID("syllableRate", name: "pulse rate in a chirp")
}
