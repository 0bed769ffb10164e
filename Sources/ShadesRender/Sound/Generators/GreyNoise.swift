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

    package func validate(in request: RenderRequest) throws(ShadesError) {
        if request.frameCount < RenderRequest.minimumLoopFrames {
            throw ShadesError(parameter: .duration, value: "\(request.durationSeconds) s",
                              allowed: "at least \(RenderRequest.minimumLoopFrames) samples for grey noise")
        }
        try request.refuseLongSynthesis("grey noise")
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let (rate, seed) = (context.sampleRate, context.seed)
        let (notches, shape) = context.takeFilters()
        let greys = SoundGraph.synthesise(context.layout.signalCount, frames: context.frames) { s, samples in
            LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                             shaping: { f in
                                 GreyNoiseSpectrum.magnitude(atFrequency: f) * (notches?[s].idealGain(atFrequency: f) ?? 1)
                                     * (shape?.idealGain(atFrequency: f) ?? 1)
                             }, into: samples)
        }
        return GeneratorSignals(layout: context.layout, synthesised: greys, sampleRate: rate)
    }
}

extension Generator {
    /// Grey noise (``GreyNoiseSpectrum``), synthesised over the whole file.
    public static var grey: Generator { Generator(GreyNoise()) }
}
