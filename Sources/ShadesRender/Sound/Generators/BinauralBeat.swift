import ShadesDSP

/// Binaural beats: a tone at `carrierHz` in the left ear and one at carrierHz + beatHz in the right (stereo
/// only; the beat arises in the brainstem, so it needs headphones). Each ear's tone is at the level; phases
/// run in Double, exact over hours.
package struct BinauralBeat: GeneratorKind {
    /// The left ear's tone, Hz.
    package var carrierHz: Double
    /// The right ear's tone minus the left's, Hz.
    package var beatHz: Double

    package static let names = ["binaural"]
    package static let help = "binaural: binaural beats, --carrier in the left ear, carrier + --beat in the right (stereo only)"
    package static let example: String? = "shades render binaural --carrier 200Hz --beat 10Hz --duration 10m -o binaural.wav"
    package static var defaults: BinauralBeat { BinauralBeat(carrierHz: 200, beatHz: Parameter.beat.defaultValue!) }
    package static var fields: [ParameterField<BinauralBeat>] {
        [.number(\.carrierHz, .carrier, key: "carrier", form: .hertz, help: "the left ear's tone, e.g. 200Hz (the right ear's is carrier + beat)",
                 requiredAs: "the carrier frequency, the left ear's tone"),
         .number(\.beatHz, .beat, key: "beat", form: .hertz,
                 help: "the beat, the right ear's tone minus the left's, \(ParameterRange(Parameter.allowedBeatHz, unit: .hertz)) (default \(formatNumber(Parameter.beat.defaultValue!)))")]
    }

    package var summary: String { "binaural carrier=\(formatNumber(carrierHz))Hz beat=\(formatNumber(beatHz))Hz" }
    package var shortest: (seconds: Double, holding: String)? { (1 / carrierHz, "one period of the carrier") }
    /// Read at the carrier: the two ears' tones are a few hertz apart.
    package var hearingReference: HearingReference { .frequency(hertz: carrierHz, what: "the carrier (the right ear's tone is the beat above it)") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        let rate = request.sampleRate
        try Parameter.beat.check(beatHz)
        try Parameter.carrier.check(carrierHz, within: .above(0, below: rate / 2 - beatHz, unit: .hertz),
                                    note: "(carrier + beat below Nyquist, \(formatNumber(rate / 2)) Hz)")
        let (left, beat) = (request.loopRate(carrierHz), request.loopRate(beatHz))
        try Parameter.beat.check(beat, within: ParameterRange(Parameter.allowedBeatHz, unit: .hertz),
                                 note: "with whole cycles in the loop (it becomes \(beat) Hz)")
        if left + beat >= rate / 2 {
            throw Parameter.carrier.outOfRange(carrierHz, range: .above(0, below: rate / 2 - beat, unit: .hertz),
                                               note: "with whole cycles in the loop (carrier + beat below Nyquist)")
        }
        guard request.resolvedLayout == .stereo else {
            throw ShadesError(parameter: .layout, value: request.resolvedLayout.rawValue, problem: "cannot carry binaural beats",
                              allowed: "stereo (one tone per ear)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        // Two signals, one tone per ear (validated: stereo), each at unit peak and brought to the level.
        let left = context.loopAdjusted("carrier", carrierHz)
        let right = left + context.loopAdjusted("beat", beatHz)
        return GeneratorSignals(layout: .stereo, tonesHz: [left, right], sampleRate: context.sampleRate, frames: context.frames)
    }
}

extension Generator {
    /// Binaural beats: `carrierHz` in the left ear, carrierHz + beatHz in the right (stereo only).
    public static func binauralBeat(carrierHz: Double, beatHz: Double) -> Generator {
        Generator(BinauralBeat(carrierHz: carrierHz, beatHz: beatHz))
    }
}

extension Parameter {
    /// Carrier of binaural beats (the left ear's tone), Hz; the right ear's tone below Nyquist.
    package static let carrier = Parameter(.carrier, unit: .hertz, range: .above(0, unit: .hertz))
    /// A beat (the right ear's tone minus the left's) or a switching rate, Hz:
    /// ``allowedBeatHz``.
    package static let beat = Parameter(.beat, unit: .hertz, range: ParameterRange(allowedBeatHz, unit: .hertz), default: 10)
    /// Allowed beat and switching rates, Hz (delta 0.5–4 Hz to gamma 40 Hz and beyond).
    package static let allowedBeatHz: ClosedRange<Double> = 0.1...100
}

extension ParameterID {
    package static let carrier = ParameterID("carrier", name: "carrier frequency")
    package static let beat = ParameterID("beat", name: "beat rate")
}
