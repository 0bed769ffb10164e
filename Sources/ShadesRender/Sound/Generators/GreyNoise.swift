import ShadesDSP

/// Grey noise: perceptually flat, white noise shaped by the inverse A-weighting (``GreyNoiseSpectrum``),
/// made by FFT synthesis over the whole file (a loop whether asked or not), notches and shape included
/// exactly.
package struct GreyNoise: GeneratorKind {
    package static let names = ["grey"]
    package static let aliases = ["gray"]
    package static let help = "grey: noise shaped by the inverse A-weighting (about equally loud in every band)"
    package static var defaults: GreyNoise { GreyNoise() }
    package static var fields: [ParameterField<GreyNoise>] { [] }

    package var summary: String { "grey" }
    package var shortest: (seconds: Double, holding: String)? { nil }
    package var shapesLoopExactly: Bool { true }

    package func validate(in request: RenderRequest) throws(ShadesError) { try request.validateWholeSynthesis("grey noise") }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        GeneratorSignals(whiteNoiseShapedBy: GreyNoiseSpectrum.magnitude(atFrequency:), &context)
    }
}

extension Generator {
    /// Grey noise (`GreyNoiseSpectrum`), synthesised over the whole file.
    public static var grey: Generator { Generator(GreyNoise()) }
}
