import ShadesDSP
import ShadesRender

/// The minimum residual-inhibition level (MRIL), as a pure state machine beside ``MinimumMaskingLevel``
/// (Fournier et al. 2018, "A new method for assessing masking and residual inhibition of tinnitus", Trends Hear
/// 22, 10.1177/2331216518769996; its reliability, test–retest within 3 dB on average: Front. Audiol. Otol. 2024,
/// 10.3389/fauot.2023.1298936). Narrow-band noise centred on the tinnitus frequency plays as repeated bursts
/// with silences between them (``Bursts``; 2018: "pulsed stimuli, which included a fixed stimulus duration and
/// interstimulus interval"), rising in steps:
/// 1. masking: after each level, is the tinnitus still heard *during* the bursts? The first level at which it
///    is not is the minimum masking level (MML; 2018: "raising the stimulus intensity until the tinnitus was
///    unheard during the stimulus presentation");
/// 2. inhibition: from the MML on (little or no RI comes from a masker that does not cover the tinnitus, Terry
///    et al. 1983), is the tinnitus *in the silences* after the bursts unchanged, reduced or gone? The first
///    level at which it is reduced or gone is the MRIL (2018: "further increased until the tinnitus was
///    suppressed during the silence interval"); the first at which it is gone, the complete MRIL (2024 reports
///    "complete MRIL" apart). The procedure ends there, or at the highest level.
/// Levels are the noise's RMS at a burst's peak, dBFS. Where each default comes from: docs/procedures.md (the
/// burst times, the step and the start level are Shades' own: the papers' abstracts do not give them).
public struct MinimumResidualInhibitionLevel: Sendable {
    /// The shape of each burst, the two of Front. Audiol. Otol. 2024 ("triangular and trapezoidal-shaped NBN
    /// signals"; "comparable MRIL", the triangle "more listening comfort", hence the default): a triangle (rise
    /// over the first half, fall over the second) or a trapezoid (``Bursts/rampSeconds`` rise and fall). Rises
    /// and falls are raised-cosine (Shades' pulses), where the shapes' names suggest straight lines.
    public enum Envelope: String, CaseIterable, Sendable, Codable { case triangular, trapezoidal }

    /// The bursts: each `burstSeconds` long, `silenceSeconds` apart.
    public struct Bursts: Sendable, Codable, Equatable {
        public let burstSeconds: Double
        public let silenceSeconds: Double
        public let envelope: Envelope
        /// Rise and fall of a trapezoid, s (a triangle's are half the burst).
        public let rampSeconds: Double

        /// 3 s triangular bursts, 3 s apart, 250 ms trapezoid ramps. The triangle is Front. Audiol. Otol. 2024's
        /// more comfortable shape. The times are Shades' own: the abstracts say only "a fixed stimulus duration and
        /// interstimulus interval" (2018) and "short sounds separated by short periods of silence" (2024). 3 s
        /// is long enough to judge the tinnitus under a burst and in a silence, and a level takes 6 s.
        public static let standard = Bursts(burstSeconds: 3, silenceSeconds: 3, envelope: .triangular, rampSeconds: 0.25)

        public init(burstSeconds: Double, silenceSeconds: Double, envelope: Envelope, rampSeconds: Double = 0.25) {
            (self.burstSeconds, self.silenceSeconds, self.envelope, self.rampSeconds) = (burstSeconds, silenceSeconds, envelope, rampSeconds)
        }

        /// Bursts 0.5 … 10 s, silences 0.5 … 10 s, a trapezoid's ramps 0.01 s … half the burst.
        package func validate() throws(ShadesError) {
            try Parameter(.burst, unit: .seconds).check(burstSeconds, within: ParameterRange(0.5...10, unit: .seconds))
            try Parameter(.burstSilence, unit: .seconds).check(silenceSeconds, within: ParameterRange(0.5...10, unit: .seconds))
            if envelope == .trapezoidal {
                try Parameter(.burstRamp, unit: .seconds).check(rampSeconds, within: ParameterRange(0.01...burstSeconds / 2, unit: .seconds),
                                                                note: "(half the burst at most)")
            }
        }

        /// The bursts as pulses (endless).
        public var pulses: Pulses {
            Pulses(onSeconds: burstSeconds, offSeconds: silenceSeconds, rampSeconds: envelope == .triangular ? burstSeconds / 2 : rampSeconds)
        }
    }

    /// What the listener says of the tinnitus in the silences after the bursts.
    public enum Silence: String, CaseIterable, Sendable, Codable { case unchanged, reduced, gone }

    /// The question asked at ``levelDBFS``.
    public enum Stage: String, Sendable, Codable {
        /// Is the tinnitus still heard during the bursts?
        case masking
        /// How is the tinnitus in the silences?
        case inhibition
    }

    /// One presentation: the level, and the answer of its stage.
    package struct Trial: Sendable, Codable, Equatable {
        package let levelDBFS: Double
        package let tinnitusHeard: Bool?
        package let silence: Silence?
    }

    /// The outcome; `stimuli residual-inhibition --reference-from` reads `frequencyHz`, `widthOctaves` and
    /// `levelDBFS` (the MRIL).
    public struct Result: Sendable, Codable, Equatable {
        package let procedure: String
        public let frequencyHz: Double
        public let widthOctaves: Double
        /// The MRIL: the lowest level after whose bursts the tinnitus was reduced or gone, dBFS; nil when none was.
        public let levelDBFS: Double?
        /// The lowest level after whose bursts the tinnitus was gone, dBFS.
        public let completeLevelDBFS: Double?
        /// The MML found on the way, dBFS; nil when the tinnitus was heard during the bursts at the highest level.
        public let maskingLevelDBFS: Double?
        /// The MRIL above the threshold given, and above the MML, dB.
        public let sensationLevelDB: Double?
        public let aboveMaskingDB: Double?
        package let thresholdDBFS: Double?
        package let stepDB: Double
        public let bursts: Bursts
        package let trials: [Trial]
        package let method: String
    }

    package let frequencyHz: Double
    package let widthOctaves: Double
    package let thresholdDBFS: Double?
    package let stepDB: Double
    package let bursts: Bursts
    /// The level to present now, dBFS; nil once done.
    public private(set) var levelDBFS: Double?
    /// The question at ``levelDBFS``.
    public private(set) var stage: Stage = .masking
    package private(set) var trials: [Trial] = []
    private var masking: Double?
    private var partial: Double?
    private var complete: Double?

    /// The highest level, dBFS RMS during a burst (as ``MinimumMaskingLevel``'s).
    package static let highestLevelDBFS = MinimumMaskingLevel.highestLevelDBFS

    /// - Parameters:
    ///   - frequencyHz: the band's centre, 125 … 16,000 Hz.
    ///   - widthOctaves: the band's width, 0.1 … 3 octaves (1 by default: the "1 octave width" pulsed
    ///     narrow-band noises of Bourez, Fournier & Noreña, hal-03420699).
    ///   - thresholdDBFS: the listener's threshold for the band, dBFS, if known.
    ///   - startDBFS: the first level (default: the threshold, else −70 dBFS), −130 … −18 dBFS.
    ///   - stepDB: 1, 2 or 5 dB; 2 by default (Shades' own, below the 3 dB mean test–retest difference of 2024).
    ///   - bursts: the masker's bursts and silences.
    public init(frequencyHz: Double, widthOctaves: Double = 1, thresholdDBFS: Double? = nil, startDBFS: Double? = nil,
                stepDB: Double = 2, bursts: Bursts = .standard) throws(ShadesError) {
        // The band, the start and the threshold as the MML checks them.
        _ = try MinimumMaskingLevel(frequencyHz: frequencyHz, widthOctaves: widthOctaves, thresholdDBFS: thresholdDBFS, startDBFS: startDBFS)
        guard [1, 2, 5].contains(stepDB) else { throw ShadesError(parameter: .mrilStep, value: "\(formatNumber(stepDB)) dB", allowed: "1, 2 or 5 dB") }
        try bursts.validate()
        (self.frequencyHz, self.widthOctaves, self.thresholdDBFS, self.stepDB, self.bursts) = (frequencyHz, widthOctaves, thresholdDBFS, stepDB, bursts)
        levelDBFS = startDBFS ?? thresholdDBFS ?? -70
    }

    /// Masking stage: whether the tinnitus is still heard during the bursts at ``levelDBFS``.
    public mutating func answer(tinnitusHeard: Bool) {
        guard let level = levelDBFS, stage == .masking else { return }
        trials.append(Trial(levelDBFS: level, tinnitusHeard: tinnitusHeard, silence: nil))
        if tinnitusHeard { return rise(from: level) }
        masking = level
        stage = .inhibition   // the silences after the bursts at the MML are asked about next
    }

    /// Inhibition stage: the tinnitus in the silences after the bursts at ``levelDBFS``.
    public mutating func answer(silence: Silence) {
        guard let level = levelDBFS, stage == .inhibition else { return }
        trials.append(Trial(levelDBFS: level, tinnitusHeard: nil, silence: silence))
        if silence != .unchanged, partial == nil { partial = level }
        if silence == .gone {
            complete = level
            levelDBFS = nil
        } else {
            rise(from: level)
        }
    }

    private mutating func rise(from level: Double) {
        levelDBFS = level + stepDB <= Self.highestLevelDBFS + 1e-9 ? level + stepDB : nil
    }

    /// The result once ``levelDBFS`` is nil.
    public var result: Result? {
        guard levelDBFS == nil else { return nil }
        return Result(procedure: "minimum residual-inhibition level", frequencyHz: frequencyHz, widthOctaves: widthOctaves,
                      levelDBFS: partial, completeLevelDBFS: complete, maskingLevelDBFS: masking,
                      sensationLevelDB: partial.flatMap { p in thresholdDBFS.map { p - $0 } },
                      aboveMaskingDB: partial.flatMap { p in masking.map { p - $0 } }, thresholdDBFS: thresholdDBFS, stepDB: stepDB,
                      bursts: bursts, trials: trials,
                      method: "narrow-band noise bursts (\(bursts.envelope.rawValue), \(formatNumber(bursts.burstSeconds)) s every "
                          + "\(formatNumber(bursts.burstSeconds + bursts.silenceSeconds)) s) rising in \(formatNumber(stepDB)) dB steps: "
                          + "the tinnitus masked during the bursts (MML), then reduced or gone in the silences (MRIL; Fournier et al. 2018)")
    }
}

/// A simulated tinnitus for ``MinimumResidualInhibitionLevel``: covered by the bursts from `maskingLevelDBFS`,
/// reduced in the silences from `inhibitionLevelDBFS`, gone from `completeLevelDBFS` (never when nil).
package struct SimulatedInhibition: Sendable {
    package let maskingLevelDBFS: Double
    package let inhibitionLevelDBFS: Double
    package let completeLevelDBFS: Double?

    package init(maskingLevelDBFS: Double, inhibitionLevelDBFS: Double, completeLevelDBFS: Double? = nil) {
        (self.maskingLevelDBFS, self.inhibitionLevelDBFS, self.completeLevelDBFS) = (maskingLevelDBFS, inhibitionLevelDBFS, completeLevelDBFS)
    }

    package func run(_ procedure: MinimumResidualInhibitionLevel) -> MinimumResidualInhibitionLevel.Result {
        var p = procedure
        while let level = p.levelDBFS {
            switch p.stage {
            case .masking: p.answer(tinnitusHeard: level < maskingLevelDBFS)
            case .inhibition:
                p.answer(silence: completeLevelDBFS.map { level >= $0 } == true ? .gone : level >= inhibitionLevelDBFS ? .reduced : .unchanged)
            }
        }
        return p.result!
    }
}

extension ParameterID {
    /// The MRIL's bursts and step.
    package static let burst = ParameterID("burst", name: "burst length")
    package static let burstSilence = ParameterID("burstSilence", name: "silence between bursts")
    package static let burstRamp = ParameterID("burstRamp", name: "burst ramp")
    package static let burstEnvelope = ParameterID("burstEnvelope", name: "burst envelope")
    package static let mrilStep = ParameterID("mrilStep", name: "MRIL step")
}
