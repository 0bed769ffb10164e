import ShadesDSP

/// A pure tone (``ToneSource``) at unit peak, brought to the level by its exactly known energy. In a loop
/// its frequency moves to the nearest with whole cycles. With `fm` its frequency is modulated
/// (``FrequencyModulatedToneSource``) and its level measured.
package struct Tone: FrequencyModulatedKind {
    /// Frequency, Hz; below Nyquist.
    package var frequencyHz: Double

    package static let names = ["tone"]
    package static let help = "tone: a pure tone at --frequency"
    package static let example: String? = "shades render tone --frequency 6kHz --duration 30s -o tone.wav"
    package static var defaults: Tone { Tone(frequencyHz: 1000) }
    package static var fields: [ParameterField<Tone>] {
        [.frequency(\.frequencyHz, help: "the tone's frequency (6000, 6kHz, 440Hz)", requiredAs: "a frequency")]
    }

    package var summary: String { "tone frequency=\(formatNumber(frequencyHz))Hz" }
    package var shortest: (seconds: Double, holding: String)? { (1 / frequencyHz, "one period of the tone") }
    /// Read at its frequency: Neff et al. 2019 set tones at the tinnitus frequency to 60 dB SL.
    package var hearingReference: HearingReference { .frequency(hertz: frequencyHz, what: "the tone's frequency") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try validateFrequency(frequencyHz, sampleRate: request.sampleRate)
    }

    /// Sham (no published one for a tone at F; nearest equivalent): the tone 1.5 octaves below F, or above
    /// when that is under 100 Hz (``ShamFrequency``): 6 kHz → 2,121 Hz.
    package func sham() -> Tone? { Tone(frequencyHz: ShamFrequency.moved(frequencyHz, widthOctaves: 0)) }

    package func checkFrequencyModulation(depthCents: Double, sampleRate: Double) throws(ShadesError) {
        try FrequencyModulatedToneSource.validateDepth(depthCents, frequencyHz: frequencyHz, sampleRate: sampleRate)
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        if let fm = context.request.sound.frequencyModulation { return try modulatedSignals(fm, &context) }
        let (rate, frames) = (context.sampleRate, context.frames)
        var frequency = frequencyHz
        if context.request.loop {
            frequency = ToneSource.loopFrequency(near: frequencyHz, frameCount: frames, sampleRate: rate)
            if frequency != frequencyHz {
                context.notes.append("loop: tone frequency adjusted from \(formatNumber(frequencyHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - frequencyHz)) Hz) for a whole number of cycles")
            }
            guard frequency < rate / 2 else {
                throw ShadesError(parameter: .frequency, value: "\(frequencyHz) Hz",
                                  allowed: "below Nyquist (\(rate / 2) Hz) after the whole-cycle loop adjustment")
            }
        }
        return GeneratorSignals(layout: context.singleSignalLayout, tonesHz: [frequency], sampleRate: rate, frames: frames)
    }
}

extension Tone {
    /// The tone frequency-modulated by `fm`: in a loop its centre moves to the nearest whose phase goes through
    /// whole cycles over the loop (a note says so). Measured, not known.
    private func modulatedSignals(_ fm: FrequencyModulation, _ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let (rate, frames) = (context.sampleRate, context.frames)
        let curve = fm.curve(&context)
        var frequency = frequencyHz
        if context.request.loop {
            frequency = FrequencyModulatedToneSource.loopFrequency(near: frequencyHz, curve: curve, frames: frames, sampleRate: rate)
            if frequency != frequencyHz {
                context.notes.append("loop: tone frequency adjusted from \(formatNumber(frequencyHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - frequencyHz)) Hz) for a whole number of cycles")
            }
            try FrequencyModulatedToneSource.validateDepth(fm.depthCents, frequencyHz: frequency, sampleRate: rate)
        }
        let centre = frequency
        var signals = GeneratorSignals(layout: context.singleSignalLayout) { _ in
            try! FrequencyModulatedToneSource(frequencyHz: centre, curve: curve, sampleRate: rate)
        }
        signals.renderedFrequencyHz = frequency
        return signals
    }
}

extension Generator {
    /// A pure tone.
    public static func tone(frequencyHz: Double) -> Generator { Generator(Tone(frequencyHz: frequencyHz)) }
}
