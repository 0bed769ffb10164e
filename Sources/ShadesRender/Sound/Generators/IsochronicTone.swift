import ShadesDSP

/// An isochronic tone: a tone at `frequencyHz` switched on and off `rateHz` times a second, on for `duty`
/// of each period (measured at half amplitude), with raised-cosine edges of `rampSeconds` centred on the
/// square wave's edges: a ``ToneSource`` gated as pulses. The level is the tone's while it sounds.
package struct IsochronicTone: GeneratorKind {
    /// The tone, Hz.
    package var frequencyHz: Double
    /// Switchings per second, Hz.
    package var rateHz: Double
    /// Share of each period the tone sounds, at half amplitude.
    package var duty: Double
    /// Raised-cosine edges, s.
    package var rampSeconds: Double

    package static let names = ["isochronic"]
    package static let help = "isochronic: a tone at --frequency switched on and off --beat times a second (--duty, --ramp)"
    package static let example: String? = "shades render isochronic --frequency 200Hz --beat 10Hz --duty 0.5 --ramp 5ms --duration 10m -o iso.wav"
    package static var defaults: IsochronicTone {
        IsochronicTone(frequencyHz: 200, rateHz: Parameter.beat.defaultValue!, duty: Parameter.duty.defaultValue!,
                       rampSeconds: Parameter.isochronicRamp.defaultValue!)
    }
    package static var fields: [ParameterField<IsochronicTone>] {
        [.frequency(\.frequencyHz, help: "the tone", requiredAs: "the tone's frequency"),
         .number(\.rateHz, .beat, key: "beat", form: .hertz, help: "the switching rate"),
         .number(\.duty, .duty, key: "duty",
                 help: "the share of each period the tone sounds, at half amplitude, above 0 and below 1 (default \(formatNumber(Parameter.duty.defaultValue!)))"),
         .number(\.rampSeconds, .isochronicRamp, key: "rampSeconds", flag: "ramp", form: .seconds,
                 help: "the raised-cosine edges (default \(formatNumber(Parameter.isochronicRamp.defaultValue! * 1000))ms)")]
    }

    package var summary: String {
        "isochronic frequency=\(formatNumber(frequencyHz))Hz beat=\(formatNumber(rateHz))Hz duty=\(formatNumber(duty))"
            + " ramp=\(formatNumber(rampSeconds * 1000))ms"
    }
    package var shortest: (seconds: Double, holding: String)? { (1 / rateHz, "one period of the beat") }
    /// Read at its tone's frequency (the level is the tone's while it sounds).
    package var hearingReference: HearingReference { .frequency(hertz: frequencyHz, what: "the tone's frequency") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validateFrequency(frequencyHz, sampleRate: request.sampleRate)
        try Parameter.beat.check(rateHz)
        try Parameter.duty.check(duty)
        let rate = request.loopRate(rateHz)
        try Parameter.beat.check(rate, within: ParameterRange(Parameter.allowedBeatHz, unit: .hertz),
                                 note: "with whole periods in the loop (it becomes \(rate) Hz)")
        let longest = min(duty, 1 - duty) / rate
        try Parameter.isochronicRamp.check(rampSeconds, within: ParameterRange(0...longest, unit: .seconds),
                                           note: "the shorter of the on and off times at this beat and duty")
        if request.loop { try validateFrequency(request.loopRate(frequencyHz), sampleRate: request.sampleRate) }
        if let pulses = request.pulses {
            throw ShadesError(parameter: .pulse, value: pulses.summary, problem: "cannot be combined with an isochronic tone",
                              allowed: "no pulses (the tone is switched at its own rate)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        // A tone (its sustained sound, at the level) gated by pulses with edges centred on the square
        // wave's: on for duty + ramp, off for the rest (validated: the ramp fits both).
        let frequency = context.loopAdjusted("tone frequency", frequencyHz)
        let period = 1 / context.loopAdjusted("beat", rateHz)
        var signals = GeneratorSignals(layout: context.singleSignalLayout, tonesHz: [frequency], sampleRate: context.sampleRate,
                                       frames: context.frames)
        signals.gate = Pulses(onSeconds: duty * period + rampSeconds, offSeconds: max(0, (1 - duty) * period - rampSeconds),
                              rampSeconds: rampSeconds)
        return signals
    }
}

extension Generator {
    /// An isochronic tone: `frequencyHz` switched on and off `rateHz` times a second.
    public static func isochronicTone(frequencyHz: Double, rateHz: Double, duty: Double, rampSeconds: Double) -> Generator {
        Generator(IsochronicTone(frequencyHz: frequencyHz, rateHz: rateHz, duty: duty, rampSeconds: rampSeconds))
    }
}

extension Parameter {
    /// Fraction of each isochronic period the tone sounds, measured at half amplitude.
    package static let duty = Parameter(.duty, range: .above(0, below: 1), default: 0.5)
    /// Raised-cosine edges of an isochronic tone, s, centred on the square wave's edges; at most the shorter
    /// of the on and off times.
    package static let isochronicRamp = Parameter(.isochronicRamp, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0.005)
}

extension ParameterID {
    package static let duty = ParameterID("duty", name: "duty cycle")
    package static let isochronicRamp = ParameterID("isochronicRamp", name: "ramp")
}
