import ShadesDSP

/// Velvet noise (``VelvetNoiseSource``): one impulse of random sign at a random position in each cell of
/// 1/density s (Järveläinen & Karjalainen 2007; Välimäki et al. 2013); flat spectrum, RMS at the level over
/// whole cells. Independent signals per ear in stereo.
package struct VelvetNoise: GeneratorKind {
    /// Impulses per second.
    package var densityHz: Double

    package static let names = ["velvet"]
    package static let help = "velvet: velvet noise, --density impulses per second"
    package static let example: String? = "shades render velvet --density 2000 --duration 60s -o velvet.wav"
    package static var defaults: VelvetNoise { VelvetNoise(densityHz: Parameter.density.defaultValue!) }
    package static var fields: [ParameterField<VelvetNoise>] {
        [.number(\.densityHz, .density, key: "density", form: .hertz,
                 help: "impulses per second, 1 … half the sample rate (default \(formatNumber(Parameter.density.defaultValue!)))")]
    }

    package var summary: String { "velvet density=\(formatNumber(densityHz))" }
    package var shortest: (seconds: Double, holding: String)? { (1 / densityHz, "one impulse") }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        try VelvetNoiseSource.validate(densityHz: densityHz, sampleRate: request.sampleRate)
        if request.loop {
            try Parameter.density.check(request.loopRate(densityHz), within: ParameterRange(1...request.sampleRate / 2, unit: .hertz),
                                        note: "with whole cells in the loop")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        // At the level over whole cells; a file is measured.
        let (rate, level, seed) = (context.sampleRate, context.levelDBFS, context.seed)
        let density = context.loopAdjusted("density", densityHz, unit: "impulses/s")
        return GeneratorSignals(layout: context.layout) { s in
            try! VelvetNoiseSource(densityHz: density, sampleRate: rate, levelDBFS: level, key: SeedStream.noise.key(seed: seed, channel: s))
        }
    }
}

extension Generator {
    /// Velvet noise of `densityHz` impulses per second.
    public static func velvetNoise(densityHz: Double) -> Generator { Generator(VelvetNoise(densityHz: densityHz)) }
}
