import ShadesPlatform
import ShadesDSP

/// Gaussian noise limited to the band centreHz·2^(±width/2), geometrically centred
/// (``NarrowBandNoiseSource``); a loop is synthesised whole (``LoopNarrowBandNoise``). With `fm` the band
/// moves with the curve (``FrequencyModulatedNarrowBandNoiseSource``), its width in Hz kept.
package struct NarrowBandNoise: FrequencyModulatedKind {
    /// Centre of the band, Hz.
    package var centreHz: Double
    /// Width of the band, octaves.
    package var widthOctaves: Double

    package static let names = ["nbn"]
    package static let help = "nbn: narrow-band noise centred at --frequency, --width octaves wide"
    package static let example: String? = "shades render nbn --frequency 6kHz --width 0.5 --duration 60s -o band.wav"
    package static var defaults: NarrowBandNoise { NarrowBandNoise(centreHz: 1000, widthOctaves: Parameter.width.defaultValue!) }
    package static var fields: [ParameterField<NarrowBandNoise>] {
        [.frequency(\.centreHz, help: "the band's centre", requiredAs: "a centre frequency"),
         .number(\.widthOctaves, .width, key: "width",
                 help: "the band's width in octaves (default \(formatNumber(Parameter.width.defaultValue!)): edges at frequency·2^±\(formatNumber(Parameter.width.defaultValue! / 2)))")]
    }

    package var summary: String { "nbn frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct" }
    package var shortest: (seconds: Double, holding: String)? { nil }
    /// Read at its centre, as the MML's noise is (Henry et al. 2013).
    package var hearingReference: HearingReference { .frequency(hertz: centreHz, what: "the band's centre") }

    /// Sham (no published one for noise at F; nearest equivalent): the same band moved away from F by its
    /// width rounded up plus 1.5 octaves (``ShamFrequency``): 6 kHz, half an octave wide → 1,061 Hz.
    package func sham() -> NarrowBandNoise? {
        NarrowBandNoise(centreHz: ShamFrequency.moved(centreHz, widthOctaves: widthOctaves), widthOctaves: widthOctaves)
    }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        let rate = request.sampleRate
        _ = try NarrowBandNoiseSource.validate(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate)
        guard request.loop else { return }
        try request.refuseLongSynthesis("a loop of narrow-band noise")
        do throws(ShadesError) {
            _ = try LoopNarrowBandNoise.validate(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate, frameCount: request.frameCount)
        } catch {
            throw ShadesError(parameter: .duration, value: "\(request.durationSeconds) s", problem: "is too short a loop for this band",
                              allowed: error.allowed ?? "")
        }
        // A moving band's loop holds its half width in base-band bins: at least one.
        let (lower, upper) = try NarrowBandNoiseSource.validate(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate)
        let needed = (2 * rate / (upper - lower)).rounded(.up)
        if request.sound.frequencyModulation != nil, Double(request.frameCount) < needed {
            throw ShadesError(parameter: .duration, value: "\(request.durationSeconds) s", problem: "is too short a loop for this band",
                              allowed: "at least \(formatNumber(needed)) samples for a frequency-modulated band")
        }
    }

    package func checkFrequencyModulation(depthCents: Double, sampleRate: Double) throws(ShadesError) {
        try FrequencyModulatedNarrowBandNoiseSource.validateDepth(depthCents, centreHz: centreHz, widthOctaves: widthOctaves,
                                                                  sampleRate: sampleRate)
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        if let fm = context.request.sound.frequencyModulation { return modulatedSignals(fm, &context) }
        let (centreHz, widthOctaves) = (self.centreHz, self.widthOctaves)
        let (rate, level, seed, frames) = (context.sampleRate, context.levelDBFS, context.seed, context.frames)
        if context.request.loop {
            let loops = SoundGraph.synthesise(context.layout.signalCount, frames: frames) { s, samples in
                try! LoopNarrowBandNoise.render(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                                key: SeedStream.noise.key(seed: seed, channel: s), into: samples)
            }
            return GeneratorSignals(layout: context.layout, synthesised: loops, sampleRate: rate)
        }
        var signals = GeneratorSignals(layout: context.layout) { s in
            try! NarrowBandNoiseSource(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                       layout: .mono, levelDBFS: level, seed: seed, firstSignal: s)
        }
        signals.powerScatter = powerScatter(context)
        return signals
    }

    /// The relative scatter of a stream's power over the request, for a flat band B wide: √(1 / (T·B)).
    private func powerScatter(_ context: SignalContext) -> Double {
        let bandHz = centreHz * (pow(2, widthOctaves / 2) - pow(2, -widthOctaves / 2))
        return (1 / (Double(context.frames) / context.sampleRate * bandHz)).squareRoot()
    }

    /// The band moved by `fm`: a loop synthesised whole (its middle moved by under half a bin so the phase
    /// closes), else a stream at the level in expectation.
    private func modulatedSignals(_ fm: FrequencyModulation, _ context: inout SignalContext) -> GeneratorSignals {
        let (centreHz, widthOctaves) = (self.centreHz, self.widthOctaves)
        let (rate, level, seed, frames) = (context.sampleRate, context.levelDBFS, context.seed, context.frames)
        let curve = fm.curve(&context)
        if context.request.loop {
            let loops = SoundGraph.synthesise(context.layout.signalCount, frames: frames) { s, samples in
                _ = try! FrequencyModulatedNarrowBandNoiseSource.renderLoop(centreHz: centreHz, widthOctaves: widthOctaves, curve: curve,
                                                                            sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                                                            into: samples)
            }
            return GeneratorSignals(layout: context.layout, synthesised: loops, sampleRate: rate)
        }
        var signals = GeneratorSignals(layout: context.layout) { s in
            try! FrequencyModulatedNarrowBandNoiseSource(centreHz: centreHz, widthOctaves: widthOctaves, curve: curve, sampleRate: rate,
                                                         levelDBFS: level, key: SeedStream.noise.key(seed: seed, channel: s))
        }
        signals.powerScatter = powerScatter(context)
        return signals
    }
}

extension Generator {
    /// Gaussian noise limited to the band centreHz·2^(±width/2).
    public static func narrowBandNoise(centreHz: Double, widthOctaves: Double) -> Generator {
        Generator(NarrowBandNoise(centreHz: centreHz, widthOctaves: widthOctaves))
    }
}
