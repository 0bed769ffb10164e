import ShadesDSP

/// High-tone noise (``HighToneSpectrum``): white above `cornerHz`, falling `slopeDBPerOctave` below it, the
/// "high tone" preset of hearing-aid sound generators; made by FFT synthesis over the whole file like grey
/// noise (a loop whether asked or not), notches and shape included exactly; longer and not a loop, white
/// noise streamed through the shape's FIR.
package struct HighToneNoise: GeneratorKind {
    /// Where the flat part begins, Hz.
    package var cornerHz: Double
    /// Fall below the corner, dB per octave.
    package var slopeDBPerOctave: Double

    package static let names = ["high-tone-noise"]
    package static let help = "high-tone-noise: white noise above --corner, falling --slope dB per octave below it"
    package static let example: String? = "shades render high-tone-noise --corner 2kHz --slope 12 --duration 60s -o high-tone.wav"
    package static var defaults: HighToneNoise {
        HighToneNoise(cornerHz: Parameter.corner.defaultValue!, slopeDBPerOctave: Parameter.slope.defaultValue!)
    }
    package static var fields: [ParameterField<HighToneNoise>] {
        [.number(\.cornerHz, .corner, key: "corner", form: .hertz,
                 help: "where the flat part begins, \(Parameter.corner.range!) and below Nyquist (default \(formatNumber(Parameter.corner.defaultValue!)) Hz)"),
         .number(\.slopeDBPerOctave, .slope, key: "slope", form: .decibels,
                 help: "the fall below the corner, \(Parameter.slope.range!) per octave (default \(formatNumber(Parameter.slope.defaultValue!)))")]
    }

    package var summary: String { "high-tone-noise corner=\(formatNumber(cornerHz))Hz slope=\(formatNumber(slopeDBPerOctave))dB/oct" }
    package var shortest: (seconds: Double, holding: String)? { nil }
    package var shapesLoopExactly: Bool { true }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try Parameter.corner.check(cornerHz)
        try Parameter.corner.check(cornerHz, within: .above(0, below: request.sampleRate / 2, unit: .hertz), note: "(Nyquist)")
        try Parameter.slope.check(slopeDBPerOctave)
        try request.validateWholeSynthesis("a loop of high-tone noise", streamsWhenLong: true)
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let spectrum = HighToneSpectrum(cornerHz: cornerHz, slopeDBPerOctave: slopeDBPerOctave)
        guard context.request.streamsLongSynthesis else {
            return GeneratorSignals(whiteNoiseShapedBy: spectrum.magnitude(atFrequency:), &context)
        }
        return try GeneratorSignals(whiteNoiseStreamedThrough: spectrum.curve, smoothingHz: 6, &context)
    }
}

extension Generator {
    /// High-tone noise: white above `cornerHz`, falling `slopeDBPerOctave` below it.
    public static func highToneNoise(cornerHz: Double, slopeDBPerOctave: Double) -> Generator {
        Generator(HighToneNoise(cornerHz: cornerHz, slopeDBPerOctave: slopeDBPerOctave))
    }
}

extension Parameter {
    /// Corner of high-tone noise, Hz: 250 Hz … 16 kHz (and below Nyquist), default 2 kHz.
    package static let corner = Parameter(.corner, unit: .hertz, range: ParameterRange(250...16_000, unit: .hertz), default: 2000)
    /// Fall of high-tone noise below its corner, dB per octave: 3 … 48, default 12.
    package static let slope = Parameter(.slope, unit: .decibels, range: ParameterRange(3...48, unit: .decibels), default: 12)
}

extension ParameterID {
    package static let corner = ParameterID("corner", name: "corner frequency")
    package static let slope = ParameterID("slope", name: "slope below the corner")
}
