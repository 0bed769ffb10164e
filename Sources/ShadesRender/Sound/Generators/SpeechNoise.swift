import ShadesDSP

/// Speech-shaped noise: white noise shaped to the long-term average speech spectrum of Byrne et al. 1994
/// (``SpeechSpectrum``: its third-octave band levels from 63 Hz to 16 kHz, nothing outside 56 Hz …
/// 17.8 kHz), made by FFT synthesis over the whole file like grey noise (a loop whether asked or not),
/// notches and shape included exactly; longer than ``LoopNoise/largestSynthesisFrames`` and not a loop, white
/// noise streamed through the curve's FIR.
package struct SpeechNoise: GeneratorKind {
    package static let names = ["speech-noise"]
    package static let help = "speech-noise: noise with the long-term average speech spectrum (Byrne et al. 1994)"
    package static let example: String? = "shades render speech-noise --duration 60s -o speech.wav"
    package static var defaults: SpeechNoise { SpeechNoise() }
    package static var fields: [ParameterField<SpeechNoise>] { [] }

    package var summary: String { "speech-noise" }
    package var shortest: (seconds: Double, holding: String)? { nil }
    package var shapesLoopExactly: Bool { true }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try request.validateWholeSynthesis("a loop of speech noise", streamsWhenLong: true)
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        guard context.request.streamsLongSynthesis else {
            return GeneratorSignals(whiteNoiseShapedBy: SpeechSpectrum.magnitude(atFrequency:), &context)
        }
        // 1.5 Hz of smoothing keeps the 63 Hz band (14.5 Hz wide) and the steep bands above it.
        return try GeneratorSignals(whiteNoiseStreamedThrough: SpeechSpectrum.streamCurve, smoothingHz: 1.5, &context)
    }
}

extension Generator {
    /// Speech-shaped noise (`SpeechSpectrum`), synthesised over the whole file.
    public static var speechNoise: Generator { Generator(SpeechNoise()) }
}
