import ShadesPlatform
import ShadesDSP

/// Acoustic coordinated reset (``CoordinatedResetSource``): four tones around the tinnitus frequency in a
/// seeded order per cycle (Tass et al. 2012; Adamchic et al. 2017). One signal (diotic in stereo); the level
/// is the RMS of the whole file, silent cycles included. A timed pattern: no loop, notch, AM or pulses.
extension CoordinatedResetPattern: GeneratorKind {
    package static let names = ["cr"]
    package static let help = "cr: acoustic coordinated reset around --frequency (--tones, --tone-length, --tone-ramp, --cycle-rate, --on-cycles, --off-cycles, --tone-gains)"
    package static let example: String? = "shades render cr --frequency 6kHz --duration 60s -o cr.wav"
    package static var defaults: CoordinatedResetPattern { CoordinatedResetPattern(tinnitusFrequencyHz: 1000) }
    package static var fields: [ParameterField<CoordinatedResetPattern>] {
        [.frequency(\.tinnitusFrequencyHz, help: "the tinnitus frequency", requiredAs: "the tinnitus frequency"),
         .choice(\.toneSet, .toneSet, key: "toneSet", flag: "tones",
                 help: "tone frequencies, standard (0.766, 0.9, 1.1, 1.4 × F) or log-spaced (4 tones equally spaced in log frequency over 0.766 … 1.4 × F)"),
         .optionalNumber(\.toneSeconds, .toneLength, key: "toneSeconds", flag: "tone-length", form: .seconds,
                         help: "length of each tone, ramps included (default: the slot, 1/(4 × cycle rate))"),
         .number(\.rampSeconds, .toneRamp, key: "rampSeconds", flag: "tone-ramp", form: .seconds,
                 help: "raised-cosine rise and fall of each tone (default \(formatNumber(Parameter.toneRamp.defaultValue! * 1000))ms)"),
         .number(\.cycleRateHz, .cycleRate, key: "cycleRateHz", flag: "cycle-rate", form: .hertz,
                 help: "cycles per second, \(ParameterRange(allowedCycleRateHz, unit: .hertz)) (four tone slots per cycle)"),
         .count(\.onCycles, .onCycles, key: "onCycles", flag: "on-cycles", help: "cycles with tones before the silent cycles"),
         .count(\.offCycles, .offCycles, key: "offCycles", flag: "off-cycles", help: "silent cycles after the tone cycles"),
         .gains(\.toneGainsDB, .toneGains, key: "toneGainsDB", flag: "tone-gains",
                help: "four gains in dB, one per tone from the lowest, e.g. 0,-2,-3,1 (loudness matching)")]
    }

    package var summary: String {
        "cr frequency=\(formatNumber(tinnitusFrequencyHz))Hz tones=\(toneSet.rawValue)"
            + " tone_length=\(formatNumber((toneSeconds ?? slotSeconds) * 1000))ms ramp=\(formatNumber(rampSeconds * 1000))ms"
            + " cycle_rate=\(formatNumber(cycleRateHz))Hz on=\(onCycles) off=\(offCycles)"
            + (toneGainsDB.map { " tone_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
    }
    package var shortest: (seconds: Double, holding: String)? { (toneSeconds ?? slotSeconds, "one tone") }
    /// Read at the tinnitus frequency its four tones surround (0.77 … 1.4 × F; Tass et al. 2012).
    package var hearingReference: HearingReference { .frequency(hertz: tinnitusFrequencyHz, what: "the tinnitus frequency its tones surround") }

    /// Sham (nearest equivalent): the same pattern, timing and tone ratios around a tinnitus frequency moved
    /// away from F as a band of the tones' span (0.766 … 1.4 × F, 0.87 octave) moves (``ShamFrequency``):
    /// 2.5 octaves down, 6 kHz → 1,061 Hz, tones 813 … 1,485 Hz, so no tone comes near F. RESET2 (Hoare et
    /// al. 2013, Trials 14:207; Hall et al.) gave its placebo group the same device; tones moved away from F
    /// are the nearest a file can hold to a placebo pattern that does not stimulate the tinnitus region.
    package func sham() -> CoordinatedResetPattern? {
        var sham = self
        sham.tinnitusFrequencyHz = ShamFrequency.moved(tinnitusFrequencyHz, widthOctaves: log2(1.4 / 0.766))
        return sham
    }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validate(sampleRate: request.sampleRate)
        try request.refusePatternCombinations("coordinated reset")
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        // Set to the level over whole on+off periods.
        context.singleSignal { [self] rate, level, seed in
            try! CoordinatedResetSource(pattern: self, sampleRate: rate, levelDBFS: level, seed: seed)
        }
    }
}

extension ParameterID {
    /// The tone set of acoustic coordinated reset.
    package static let toneSet = ParameterID("toneSet", name: "tone set")
}

extension Parameter {
    /// Which four frequencies acoustic coordinated reset plays.
    package static let toneSet = Parameter(.toneSet, note: CoordinatedResetPattern.ToneSet.allCases.map(\.rawValue).joined(separator: ", "))
}

extension Generator {
    /// Acoustic coordinated reset.
    public static func coordinatedReset(_ pattern: CoordinatedResetPattern) -> Generator { Generator(pattern) }
}
