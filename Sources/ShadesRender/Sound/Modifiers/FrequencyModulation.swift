import ShadesDSP

/// Frequency modulation of a tone or a narrow-band noise (Neff 2017 compared 10 Hz AM with FM tones and
/// noise): the frequency (a band's centre) moves to f·2^(±depth/1200) along a sine at the rate or a
/// band-limited random curve up to it (seeded, never repeating). It changes the carrier's phase, so the
/// generator makes it (`FrequencyModulatedToneSource`, `FrequencyModulatedNarrowBandNoiseSource`); it
/// combines with amplitude modulation, which follows it in the chain. The level is unchanged.
public struct FrequencyModulation: Sendable, Equatable, Encodable {
    /// Rate of the sine, or bandwidth of the random curve, Hz (0.01 … 100; 10 in Neff 2017).
    public var rateHz: Double
    /// Peak deviation, cents (0 … 2400; 1200 cents = 1 octave).
    public var depthCents: Double
    /// Sine or random.
    public var shape: Shape

    /// A sine at the rate, or a band-limited random curve up to it.
    public enum Shape: String, Sendable, CaseIterable, Codable { case sine, random }

    /// The defaults are the parameters' (`Parameter.fmRate` …; a test holds them equal).
    public init(rateHz: Double = 10, depthCents: Double = 100, shape: Shape = .sine) {
        (self.rateHz, self.depthCents, self.shape) = (rateHz, depthCents, shape)
    }

    /// Peak deviation, octaves.
    public var depthOctaves: Double { depthCents / 1200 }

    /// Its parameters in comment tags: "fm=10Hz fm_depth=100cents fm_shape=sine".
    var summary: String { "fm=\(formatNumber(rateHz))Hz fm_depth=\(formatNumber(depthCents))cents fm_shape=\(shape.rawValue)" }

    /// Its curve for `context`'s request: in a loop a sine's rate has whole cycles (a note says when it
    /// moved) and a random curve repeats with the loop.
    func curve(_ context: inout SignalContext) -> FrequencyModulationCurve {
        let request = context.request
        let rate = shape == .sine ? context.loopAdjusted("FM rate", rateHz) : rateHz
        return try! FrequencyModulationCurve(shape: shape == .sine ? .sine : .random, rateHz: rate, depthCents: depthCents,
                                             sampleRate: request.sampleRate, key: SeedStream.envelope.key(seed: request.resolvedSeed, channel: 2),
                                             loopFrames: request.loop ? request.frameCount : nil)
    }
}

extension Parameter {
    /// Frequency modulation's peak deviation in octaves (JSON `depthOctaves`), the cents' range over 1200.
    package static let fmDepthOctaves = Parameter(.fmDepthOctaves, unit: .octaves,
                                                  range: ParameterRange(0...(FrequencyModulationCurve.allowedDepthCents.upperBound / 1200), unit: .octaves))
}

extension ParameterID {
    package static let fmDepthOctaves = ParameterID("fmDepthOctaves", name: "FM depth")
}

/// A generator that `--fm` moves: its carrier's phase is its own (a tone, a narrow-band noise).
package protocol FrequencyModulatedKind: GeneratorKind {
    /// The deepest modulation, cents, that keeps its frequencies above 0 and below Nyquist at `sampleRate`,
    /// and what that keeps ("for a tone at 1000 Hz: …").
    func checkFrequencyModulation(depthCents: Double, sampleRate: Double) throws(ShadesError)
}

/// The `fm` modifier: `{ "rateHz": 10, "depthCents": 100, "shape": "sine" }` (or `"depthOctaves": 0.25`);
/// `--fm 10 --fm-depth 100 --fm-shape sine`. Only tones and narrow-band noise carry it; it adds no stage to the chain (the
/// generator reads it from its request).
package enum FrequencyModulationModifier: FieldModifierKind {
    package typealias Value = FrequencyModulation
    package typealias Item = FrequencyModulation
    package static let key = "fm"
    package static var slot: WritableKeyPath<Sound, FrequencyModulation?> { \.frequencyModulation }
    package static var defaults: FrequencyModulation {
        FrequencyModulation(rateHz: Parameter.fmRate.defaultValue!, depthCents: Parameter.fmDepth.defaultValue!)
    }
    package static var fields: [ParameterField<FrequencyModulation>] {
        [.number(\.rateHz, .fmRate, key: "rateHz", flag: "fm", form: .hertz,
                 help: "Frequency modulation of a tone or narrow-band noise: a sine at this rate (or a random curve up to it), 0.01 … 100 Hz (10 in Neff 2017)."),
         .number(\.depthCents, .fmDepth, key: "depthCents", flag: "fm-depth",
                 help: "The frequency modulation's peak deviation in cents, 0 … 2400 (1200 = an octave; default \(formatNumber(Parameter.fmDepth.defaultValue!)); with --fm)."),
         .choice(\.shape, .fmShape, key: "shape", flag: "fm-shape",
                 help: "The frequency modulation's curve: sine (the default) or random (band-limited up to the rate, seeded, never repeating), with --fm.")]
    }

    /// Its fields' parameters, and `depthOctaves`: the depth in octaves, read from JSON in place of `depthCents`.
    package static var parameters: [ModifierParameter] {
        fields.map { ModifierParameter($0.parameter.id, key: "\(key).\($0.key)", flag: $0.flag) }
            + [ModifierParameter(.fmDepthOctaves, key: "\(key).depthOctaves")]
    }

    /// Its fields over the defaults; the depth may be given in octaves instead (`"depthOctaves": 0.25`),
    /// written back in cents.
    package static func read(in object: JSONObjectReader) throws(ShadesError) -> FrequencyModulation? {
        guard let json = object[key] else { return nil }
        let o = try object.reader.object(json, path: object.path(of: key), what: key, keys: fields.map(\.key) + ["depthOctaves"])
        var value = defaults
        for field in fields { _ = try field.readValue(&value, o, field) }
        guard let octaves = try o.number("depthOctaves") else { return value }
        if o["depthCents"] != nil {
            throw object.reader.error(o.location(of: "depthOctaves"), "\(key) has 'depthCents' or 'depthOctaves', not both")
        }
        let depth = Parameter.fmDepthOctaves
        guard depth.range?.contains(octaves) ?? true else {
            throw object.reader.error(o.location(of: "depthOctaves"),
                                      "\(key).depthOctaves \(ParameterValue.number(octaves, .octaves)) is out of range (allowed: \(depth.allowed))")
        }
        value.depthCents = octaves * 1200
        return value
    }

    /// The sources it applies to, by name.
    package static var sourceNames: [String] {
        Generator.kinds.filter { $0 is any FrequencyModulatedKind.Type }.flatMap { $0.names }
    }

    /// Its values; a source that carries it; frequencies kept in (0, Nyquist).
    package static func validate(_ value: FrequencyModulation, in request: RenderRequest) throws(ShadesError) {
        try FrequencyModulationCurve.validate(rateHz: value.rateHz, depthCents: value.depthCents)
        guard let kind = request.sound.generator?.kind as? any FrequencyModulatedKind else {
            let source = request.sound.generator.map { "source '\($0.kind.name)'" } ?? (request.sound.file != nil ? "a sound file" : "a mix")
            throw ShadesError(parameter: .fmRate, value: "\(formatNumber(value.rateHz)) Hz", problem: "does not apply to \(source)",
                              allowed: "the sources \(sourceNames.joined(separator: ", "))")
        }
        try kind.checkFrequencyModulation(depthCents: value.depthCents, sampleRate: request.sampleRate)
    }
}
