import ShadesDSP

/// Surf (`SurfEnvelope`): waves of level, one per period on average, each a fast rise and a slow exponential
/// decay (*damped*, preferred in CJSLPA 2019) or its mirror (*ramped*), resting `depthDB` below the crest
/// between waves; at random intervals or periodic. The sound keeps its RMS; the level policy measures it.
public struct Surf: Sendable, Equatable, Encodable {
    /// Mean time from one wave to the next, seconds (1 … 120).
    public var periodSeconds: Double
    /// A wave's rise and decay, seconds (rise + decay ≤ period).
    public var riseSeconds: Double
    public var decaySeconds: Double
    /// The level between waves, dB below the crest (0 … 60).
    public var depthDB: Double
    public var shape: Shape
    public var intervals: Intervals

    /// A wave's shape: damped (a fast rise, a slow exponential decay) or ramped (its mirror image).
    public enum Shape: String, Sendable, CaseIterable, Codable { case damped, ramped }
    /// When waves come: random (each wave somewhere in its period) or periodic.
    public enum Intervals: String, Sendable, CaseIterable, Codable { case random, periodic }

    /// The defaults are the parameters' (`Parameter.surfRise` …; a test holds them equal).
    public init(periodSeconds: Double = 10, riseSeconds: Double = 0.8, decaySeconds: Double = 6, depthDB: Double = 12,
                shape: Shape = .damped, intervals: Intervals = .random) {
        (self.periodSeconds, self.riseSeconds, self.decaySeconds, self.depthDB) = (periodSeconds, riseSeconds, decaySeconds, depthDB)
        (self.shape, self.intervals) = (shape, intervals)
    }

    /// Its parameters in comment tags: "surf=10s surf_rise=0.8s surf_decay=6s surf_depth=12dB …".
    var summary: String {
        "surf=\(formatNumber(periodSeconds))s surf_rise=\(formatNumber(riseSeconds))s surf_decay=\(formatNumber(decaySeconds))s"
            + " surf_depth=\(formatNumber(depthDB))dB surf_shape=\(shape.rawValue) surf_intervals=\(intervals.rawValue)"
    }
}

/// The `surf` modifier: `{ "periodSeconds": 10, "riseSeconds": 0.8, "decaySeconds": 6, "depthDB": 15, "shape":
/// "damped", "intervals": "random" }`; `--surf 10s --surf-rise 0.8s --surf-decay 6s …`.
package enum SurfModifier: FieldModifierKind {
    package typealias Value = Surf
    package typealias Item = Surf
    package static let key = "surf"
    package static var slot: WritableKeyPath<Sound, Surf?> { \.surf }
    package static var defaults: Surf {
        Surf(periodSeconds: Parameter.surfPeriod.defaultValue!, riseSeconds: Parameter.surfRise.defaultValue!,
             decaySeconds: Parameter.surfDecay.defaultValue!, depthDB: Parameter.surfDepth.defaultValue!)
    }
    package static var fields: [ParameterField<Surf>] {
        [.number(\.periodSeconds, .surfPeriod, key: "periodSeconds", flag: "surf", form: .seconds,
                 help: "Surf: waves of level, one every this long on average, 1 … 120 s (e.g. 10s; a wave's rise and decay must fit)."),
         .number(\.riseSeconds, .surfRise, key: "riseSeconds", flag: "surf-rise", form: .seconds,
                 help: "A surf wave's rise, 0.01 … 60 s (default \(formatNumber(Parameter.surfRise.defaultValue!)) s; with --surf)."),
         .number(\.decaySeconds, .surfDecay, key: "decaySeconds", flag: "surf-decay", form: .seconds,
                 help: "A surf wave's decay, 0.01 … 60 s (default \(formatNumber(Parameter.surfDecay.defaultValue!)) s: damped waves decaying over 5–8 s were preferred, CJSLPA 2019; with --surf)."),
         .number(\.depthDB, .surfDepth, key: "depthDB", flag: "surf-depth", form: .decibels,
                 help: "The level between surf waves, 0 … 60 dB below the crest (default \(formatNumber(Parameter.surfDepth.defaultValue!)) dB; with --surf)."),
         .choice(\.shape, .surfShape, key: "shape", flag: "surf-shape",
                 help: "A surf wave's shape: damped (a fast rise, an exponential decay; the default) or ramped (its mirror image), with --surf."),
         .choice(\.intervals, .surfIntervals, key: "intervals", flag: "surf-intervals",
                 help: "When surf waves come: random (each at a random time within its period; the default) or periodic, with --surf.")]
    }

    /// Its values, and waves that fit a loop's periods.
    package static func validate(_ value: Surf, in request: RenderRequest) throws(ShadesError) {
        try SurfEnvelope.validate(riseSeconds: value.riseSeconds, decaySeconds: value.decaySeconds, periodSeconds: value.periodSeconds,
                                  depthDB: value.depthDB)
        // A loop holds whole periods (one, the loop itself, when it is shorter than a period): a wave must fit one.
        let periods = (request.durationSeconds / value.periodSeconds).rounded(.down)
        let loopPeriod = request.durationSeconds / max(1, periods)
        if request.loop && value.riseSeconds + value.decaySeconds > loopPeriod {
            throw ShadesError(parameter: .surfPeriod, value: "\(formatNumber(value.periodSeconds)) s",
                              problem: "leaves no room for a wave in this loop",
                              allowed: "a rise and decay (\(formatNumber(value.riseSeconds + value.decaySeconds)) s) within the loop's \(formatNumber(loopPeriod)) s")
        }
    }

    package static func apply(_ value: Surf, to chain: inout ModifierChain) throws(ShadesError) {
        let request = chain.request
        let envelope = try SurfEnvelope(riseSeconds: value.riseSeconds, decaySeconds: value.decaySeconds, periodSeconds: value.periodSeconds,
                                        shape: value.shape == .damped ? .damped : .ramped, randomIntervals: value.intervals == .random,
                                        depthDB: value.depthDB, sampleRate: request.sampleRate,
                                        key: SeedStream.envelope.key(seed: request.resolvedSeed, channel: 1),
                                        loopFrames: request.loop ? chain.frames : nil)
        chain.sustain(scatterFactor: nil) { source in EnvelopedSource(carrier: source, envelope: envelope) }
    }
}
