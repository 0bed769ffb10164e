import ShadesDSP

/// Noise of PSD ∝ f^−β: white, pink, brown, blue and violet by name, any β in −2 … 2 as "noise".
/// A stream (``NoiseSource``) at the level in expectation; a loop is synthesised whole by FFT with its
/// notches and shape in its own spectrum, or streams as periodic noise when longer than
/// ``LoopNoise/largestSynthesisFrames``.
package struct ColouredNoise: GeneratorKind {
    /// Spectral exponent β (checked when read).
    package var beta: Double
    package var distribution: WhiteDistribution

    package var colour: NoiseColour { (try? NoiseColour(beta: beta)) ?? .white }

    package static let names = NoiseColour.named.map(\.name) + ["noise"]
    package static let help = "white, pink, brown, blue, violet: noise of those colours; noise: any colour, --beta (PSD ∝ f^-β)"
    package static let example: String? = "shades render pink --am 10 --duration 10m -o pink-am.wav"
    package static var defaults: ColouredNoise { ColouredNoise(beta: 0, distribution: .gaussian) }
    package static var fields: [ParameterField<ColouredNoise>] {
        [.number(\.beta, .beta, key: "beta", help: "spectral exponent β in [-2, 2] (PSD ∝ f^-β)", names: ["noise"],
                 requiredAs: "a spectral exponent beta, -2 … 2"),
         .choice(\.distribution, .distribution, key: "distribution", help: "white-noise sample distribution, gaussian or uniform",
                 names: ["white", "noise"], omitted: .gaussian)]
    }

    package static func read(_ values: some ParameterValues, name: String) throws(ShadesError) -> ColouredNoise {
        var noise = defaults
        noise.beta = NoiseColour.named.first { $0.name == name }?.colour.beta ?? 0
        for field in fields(for: name) { try field.read(&noise, values, name) }
        do { _ = try NoiseColour(beta: noise.beta) } catch { throw values.located(error, at: fields[0]) }
        return noise
    }

    package var name: String { NoiseColour.named.first { $0.colour.beta == beta }?.name ?? "noise" }

    package var summary: String {
        "\(NoiseColour.named.first { $0.colour == colour }?.name ?? "noise") beta=\(formatNumber(beta))"
            + (beta == 0 ? " distribution=\(distribution.rawValue)" : "")
    }

    package var shortest: (seconds: Double, holding: String)? { nil }
    package var shapesLoopExactly: Bool { true }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        _ = try NoiseColour(beta: beta)
        if distribution == .uniform && beta != 0 {
            throw ShadesError(parameter: .distribution, value: "uniform", allowed: "uniform only for white noise (beta 0)")
        }
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let (colour, distribution) = (self.colour, self.distribution)
        let (rate, level, seed, frames) = (context.sampleRate, context.levelDBFS, context.seed, context.frames)
        let request = context.request
        if request.streamsPeriodicLoop {
            // A long loop: periodic noise, streamed (its notch and shape, if any, are filters primed by
            // the periodic source: periodic too).
            return GeneratorSignals(layout: context.layout) { s in
                try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                                 distribution: distribution, firstSignal: s, periodFrames: frames)
            }
        }
        if request.loop && (colour.beta != 0 || context.notches != nil || context.shape != nil) {
            // The notch and shape, if any, are applied to the loop's own spectrum, so the loop stays periodic.
            let (notches, shape) = context.takeFilters()
            let loops = SoundGraph.synthesise(context.layout.signalCount, frames: frames) { s, samples in
                LoopNoise.render(colour: colour, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                 shaping: notches == nil && shape == nil ? nil : { f in
                                     (notches?[s].idealGain(atFrequency: f) ?? 1) * (shape?.idealGain(atFrequency: f) ?? 1)
                                 }, into: samples)
            }
            return GeneratorSignals(layout: context.layout, synthesised: loops, sampleRate: rate)
        }
        var signals = GeneratorSignals(layout: context.layout) { s in
            try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                             distribution: distribution, firstSignal: s)
        }
        signals.powerScatter = NoiseShapingDesign.shared(colour: colour, sampleRate: rate).powerScatter(durationSeconds: Double(frames) / rate)
        if colour.beta != 0 {
            signals.powerForecast = PowerForecast(
                forecast: { NoisePowerForecast(colour: colour, sampleRate: rate, frames: frames) },
                key: { s in SeedStream.noise.key(seed: seed, channel: s) })
        }
        return signals
    }
}

extension Generator {
    /// Noise of PSD ∝ f^−β.
    public static func noise(colour: NoiseColour, distribution: WhiteDistribution = .gaussian) -> Generator {
        Generator(ColouredNoise(beta: colour.beta, distribution: distribution))
    }
}
