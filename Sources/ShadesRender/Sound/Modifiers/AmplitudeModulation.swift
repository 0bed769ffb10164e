import ShadesDSP

/// Amplitude modulation x(t)·(1 + m·sin(2π·fm·t + φ)) (Neff 2017/2019, Schoisswohl 2019); rendered by
/// `AmplitudeModulatedSource` with the level kept.
public struct Modulation: Sendable, Equatable, Encodable {
    /// Modulation rate fm in Hz (0.5 … 100; 10 Hz in the studies).
    public var rateHz: Double
    /// Depth m in [0, 1].
    public var depth: Double
    /// Start phase φ in radians.
    public var startPhase: Double
    /// What stays equal to the unmodulated sound: its RMS (default) or its peak.
    public var keep: AmplitudeModulationLevel

    /// The defaults are the parameters' (`Parameter.amRate` …; a test holds them equal).
    public init(rateHz: Double = 10, depth: Double = 1, startPhase: Double = 0, keep: AmplitudeModulationLevel = .rms) {
        (self.rateHz, self.depth, self.startPhase, self.keep) = (rateHz, depth, startPhase, keep)
    }

    /// The rate applied, Hz: the asked one, or in a loop of `loopFrames` the nearest with whole cycles
    /// (a note says so); refused when a loop that short holds no whole cycles within 0.5 … 100 Hz.
    func appliedRateHz(loopFrames: Int?, sampleRate: Double, notes: inout [String]) throws(ShadesError) -> Double {
        guard let loopFrames else { return rateHz }
        let applied = AmplitudeModulatedSource.loopRate(near: rateHz, frameCount: loopFrames, sampleRate: sampleRate)
        if applied != rateHz {
            notes.append("loop: modulation rate adjusted from \(formatNumber(rateHz)) Hz to \(applied) Hz (\(formatSigned(applied - rateHz)) Hz) for a whole number of cycles")
        }
        guard AmplitudeModulatedSource.allowedRateHz.contains(applied) else {
            throw ShadesError(parameter: .amRate, value: "\(formatNumber(rateHz)) Hz", problem: "becomes \(applied) Hz with whole cycles in this loop",
                              allowed: "a loop long enough to hold whole cycles of 0.5 … 100 Hz")
        }
        return applied
    }

    /// RMS of the modulated sound relative to the unmodulated one (1 when the RMS is kept).
    package var levelRatio: Double {
        keep == .rms ? 1 : (1 + depth * depth / 2).squareRoot() / (1 + depth)
    }

    /// Its parameters in comment tags.
    var summary: String {
        "am=\(formatNumber(rateHz))Hz am_depth=\(formatNumber(depth)) am_phase=\(formatNumber(startPhase)) am_keep=\(keep.rawValue)"
    }
}

/// The `am` modifier: `{ "rateHz": 10, "depth": 1, "startPhase": 0, "keep": "rms" }`, `--am 10 --am-depth 1`.
package enum AmplitudeModulationModifier: FieldModifierKind {
    package typealias Value = Modulation
    package typealias Item = Modulation
    package static let key = "am"
    package static var slot: WritableKeyPath<Sound, Modulation?> { \.modulation }
    package static var defaults: Modulation {
        Modulation(rateHz: Parameter.amRate.defaultValue!, depth: Parameter.amDepth.defaultValue!, startPhase: Parameter.amPhase.defaultValue!)
    }
    package static var fields: [ParameterField<Modulation>] {
        [.number(\.rateHz, .amRate, key: "rateHz", flag: "am", form: .hertz,
                 help: "Amplitude modulation rate in Hz, 0.5 … 100 (10 in the studies)."),
         .number(\.depth, .amDepth, key: "depth", flag: "am-depth",
                 help: "Modulation depth, 0 … 1 (default \(formatNumber(Parameter.amDepth.defaultValue!)); with --am)."),
         .number(\.startPhase, .amPhase, key: "startPhase", flag: "am-phase",
                 help: "Modulation start phase in radians (default \(formatNumber(Parameter.amPhase.defaultValue!)); with --am)."),
         .choice(\.keep, .amKeep, key: "keep", flag: "am-keep",
                 help: "What modulation keeps equal to the unmodulated sound: rms (the default) or peak (with --am).")]
    }

    /// Sham (no published one; nearest equivalent): a fifth of the rate, at least 0.5 Hz, depth, phase and
    /// level kept: 10 Hz → 2 Hz. The studies chose 10 Hz for the alpha band, 8–12 Hz (Neff 2017/2019,
    /// Schoisswohl 2019); 2 Hz is over two octaves below it, and the sham still audibly fluctuates as deeply.
    package static func sham(_ value: Modulation) -> Modulation? {
        var sham = value
        sham.rateHz = max(AmplitudeModulatedSource.allowedRateHz.lowerBound, value.rateHz / 5)
        return sham
    }
    package static let declaresSham = true

    package static func validate(_ value: Modulation, in request: RenderRequest) throws(ShadesError) {
        try validateSampleRate(request.sampleRate)
        try AmplitudeModulatedSource.validate(rateHz: value.rateHz, depth: value.depth, startPhase: value.startPhase)
    }

    package static func apply(_ value: Modulation, to chain: inout ModifierChain) throws(ShadesError) {
        let appliedHz = try value.appliedRateHz(loopFrames: chain.request.loop ? chain.frames : nil,
                                                sampleRate: chain.request.sampleRate, notes: &chain.notes)
        chain.modulationRateHz = appliedHz
        // Modulation keeps the RMS in expectation (keep: .rms); its gain curve can double the variance.
        chain.sustain(scatterFactor: 2.0.squareRoot()) { source in
            try! AmplitudeModulatedSource(carrier: source, rateHz: appliedHz, depth: value.depth, startPhase: value.startPhase, keep: .rms)
        }
    }
}

extension Parameter {
    /// What amplitude modulation keeps equal to the unmodulated sound.
    package static let amKeep = Parameter(.amKeep, note: "rms or peak")
}

extension ParameterID {
    package static let amKeep = ParameterID("amKeep", name: "level to keep")
}
