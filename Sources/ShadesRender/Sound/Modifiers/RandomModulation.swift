import ShadesDSP

/// Random amplitude modulation (`ShadesDSP.RandomModulation`): the level wanders within ±depth/2 dB along a
/// band-limited random curve that never repeats (in a loop it repeats with the loop); the sound keeps its RMS
/// in expectation and the level policy measures it as written.
public struct RandomAmplitudeModulation: Sendable, Equatable, Encodable {
    /// Highest frequency of the level's curve, Hz (0.01 … 20; 0.1 for a slow "wavy" sound).
    public var bandwidthHz: Double
    /// Range of the level, dB peak to peak (0 … 40).
    public var depthDB: Double

    /// The default depth is the parameter's (`Parameter.randomAMDepth`; a test holds them equal).
    public init(bandwidthHz: Double, depthDB: Double = 10) { (self.bandwidthHz, self.depthDB) = (bandwidthHz, depthDB) }

    /// Its parameters in comment tags: "random_am=0.1Hz random_am_depth=10dB".
    var summary: String { "random_am=\(formatNumber(bandwidthHz))Hz random_am_depth=\(formatNumber(depthDB))dB" }
}

/// The `randomAM` modifier: `{ "bandwidthHz": 0.1, "depthDB": 10 }`; `--random-am 0.1 --random-am-depth 10`.
package enum RandomModulationModifier: FieldModifierKind {
    package typealias Value = RandomAmplitudeModulation
    package typealias Item = RandomAmplitudeModulation
    package static let key = "randomAM"
    package static var slot: WritableKeyPath<Sound, RandomAmplitudeModulation?> { \.randomModulation }
    package static var defaults: RandomAmplitudeModulation {
        RandomAmplitudeModulation(bandwidthHz: 0, depthDB: Parameter.randomAMDepth.defaultValue!)
    }
    package static var fields: [ParameterField<RandomAmplitudeModulation>] {
        [.number(\.bandwidthHz, .randomAMBandwidth, key: "bandwidthHz", flag: "random-am", form: .hertz,
                 help: "Random amplitude modulation: the level wanders along a random curve up to this bandwidth, 0.01 … 20 Hz (0.1 for slow waves), never repeating.",
                 requiredAs: "a bandwidth"),
         .number(\.depthDB, .randomAMDepth, key: "depthDB", flag: "random-am-depth", form: .decibels,
                 help: "The range of the random modulation's level, 0 … 40 dB peak to peak (default \(formatNumber(Parameter.randomAMDepth.defaultValue!)) dB; with --random-am).")]
    }

    package static func validate(_ value: RandomAmplitudeModulation, in request: RenderRequest) throws(ShadesError) {
        try RandomModulation.validate(bandwidthHz: value.bandwidthHz, depthDB: value.depthDB)
    }

    package static func apply(_ value: RandomAmplitudeModulation, to chain: inout ModifierChain) throws(ShadesError) {
        let request = chain.request
        let envelope = try RandomModulation(bandwidthHz: value.bandwidthHz, depthDB: value.depthDB, sampleRate: request.sampleRate,
                                            key: SeedStream.envelope.key(seed: request.resolvedSeed, channel: 0),
                                            loopFrames: request.loop ? chain.frames : nil)
        chain.sustain(scatterFactor: nil) { source in EnvelopedSource(carrier: source, envelope: envelope) }
    }
}
