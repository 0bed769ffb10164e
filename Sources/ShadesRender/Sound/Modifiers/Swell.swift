import ShadesDSP

/// A slow random-like amplitude swell (waves, gusts); rendered by `SwellEnvelope` where the sound's gain is
/// applied (a sound with a swell is one group of a mix: ``SoundGraph``).
public struct Swell: Sendable, Encodable, Equatable {
    /// Mean period of a swell, seconds (`SwellEnvelope.allowedPeriodSeconds`).
    public var periodSeconds: Double
    /// Depth 0 … 1 (0: none; 1: the level falls to silence between swells).
    public var depth: Double

    /// The default depth is the parameter's (`Parameter.swellDepth`; a test holds them equal).
    public init(periodSeconds: Double, depth: Double = 0.5) { (self.periodSeconds, self.depth) = (periodSeconds, depth) }

    /// Checks the period and depth against their definitions.
    package func validate() throws(ShadesError) {
        try Parameter.swellPeriod.check(periodSeconds)
        try Parameter.swellDepth.check(depth)
    }
}

/// The `swell` modifier: `{ "periodSeconds": 12, "depth": 0.5 }`; `--swell 12s --swell-depth 0.5`.
package enum SwellModifier: FieldModifierKind {
    package typealias Value = Swell
    package typealias Item = Swell
    package static let key = "swell"
    package static var slot: WritableKeyPath<Sound, Swell?> { \.swell }
    package static var defaults: Swell { Swell(periodSeconds: 0, depth: Parameter.swellDepth.defaultValue!) }
    package static var fields: [ParameterField<Swell>] {
        [.number(\.periodSeconds, .swellPeriod, key: "periodSeconds", flag: "swell", form: .seconds,
                 help: "A slow random-like swell of the level (surf, wind): its mean period, \(Parameter.swellPeriod.range!.description), e.g. 12s.",
                 requiredAs: "a period"),
         .number(\.depth, .swellDepth, key: "depth", flag: "swell-depth",
                 help: "Depth of the swell, 0 … 1 (default \(formatNumber(Parameter.swellDepth.defaultValue!)); 1: silence between swells; with --swell).")]
    }

    package static func validate(_ value: Swell, in request: RenderRequest) throws(ShadesError) { try value.validate() }
    // Applied with the sound's gain (``SoundGraph``), not in the chain.
}
