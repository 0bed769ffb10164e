import ShadesDSP
import ShadesRender

/// Tinnitus loudness matching, as a pure state machine: a tone at the tinnitus frequency, starting 10 dB above
/// the threshold there, moves up or down in steps of 1 or 2 dB as the listener says it is softer or louder than
/// the tinnitus, until "equal" (or, after six reversals, the mean of the last four reversal levels). The match
/// is reported as sensation level, dB above the threshold at that frequency (Henry et al. 2013, "Tinnitus
/// Evaluation"; Neff et al. 2019 set their stimuli in dB SL). A tone still softer than the tinnitus at the
/// highest level (−6 dBFS), never having been louder, ends the procedure without a match. Levels are the
/// tone's RMS in dBFS.
public struct LoudnessMatch: Sendable {
    /// The listener's judgement of the tone against the tinnitus.
    public enum Answer: String, Sendable, Codable {
        /// The tone is softer than the tinnitus: up a step.
        case softer
        /// The tone is louder: down a step.
        case louder
        /// As loud: the match.
        case equal
    }

    /// One judgement.
    package struct Trial: Sendable, Codable, Equatable {
        package let levelDBFS: Double
        package let answer: Answer
    }

    /// The outcome; `stimuli residual-inhibition --reference-from` reads `frequencyHz` and `levelDBFS`.
    public struct Result: Sendable, Codable, Equatable {
        package let procedure: String
        public let frequencyHz: Double
        /// The threshold at the frequency, dBFS (tone RMS).
        package let thresholdDBFS: Double
        /// The tone as loud as the tinnitus, dBFS, and its sensation level (dB above the threshold); nil when
        /// the tone was still softer than the tinnitus at the highest level (−6 dBFS).
        public let levelDBFS: Double?
        public let sensationLevelDB: Double?
        package let stepDB: Double
        package let trials: [Trial]
        package let method: String
    }

    package let frequencyHz: Double
    package let thresholdDBFS: Double
    package let stepDB: Double
    /// The tone's level now, dBFS; nil once the match is done (see ``result``).
    public private(set) var levelDBFS: Double?
    package private(set) var trials: [Trial] = []
    private var reversals: [Double] = []
    /// The match once done: the level, or nil when the tinnitus was louder than the highest level.
    private var matched: Double??

    /// The highest tone level, dBFS (a pure tone's peak 3 dB below full scale).
    package static let highestLevelDBFS = -6.0
    /// Judgements after which the match ends at the mean of the reversals (or the last level).
    package static let maximumTrials = 40

    /// - Parameters:
    ///   - frequencyHz: the tinnitus frequency, 125 … 16,000 Hz.
    ///   - thresholdDBFS: the threshold there, −130 … −6 dBFS.
    ///   - stepDB: 1 or 2 dB.
    public init(frequencyHz: Double, thresholdDBFS: Double, stepDB: Double = 2) throws(ShadesError) {
        try Audiometry.checkFrequency(frequencyHz, as: .frequency)
        guard thresholdDBFS.isFinite, (-130...Self.highestLevelDBFS).contains(thresholdDBFS) else {
            throw ShadesError(parameter: .reference, value: "\(formatNumber(thresholdDBFS)) dBFS", allowed: "-130 … -6 dBFS")
        }
        try checkStep(stepDB, as: .step)
        (self.frequencyHz, self.thresholdDBFS, self.stepDB) = (frequencyHz, thresholdDBFS, stepDB)
        levelDBFS = min(Self.highestLevelDBFS, thresholdDBFS + 10)
    }

    /// Takes the listener's judgement of the tone at ``levelDBFS``.
    public mutating func answer(_ answer: Answer) {
        guard let level = levelDBFS else { return }
        trials.append(Trial(levelDBFS: level, answer: answer))
        if answer == .equal { return finish(level) }
        // Softer at the highest level, and never louder: the tone cannot be made as loud as the tinnitus.
        // (After a "louder" the staircase goes on: the reversals decide.)
        if answer == .softer, level >= Self.highestLevelDBFS, !trials.contains(where: { $0.answer == .louder }) { return finish(nil) }
        let direction = answer == .softer ? 1.0 : -1.0
        if let previous = trials.dropLast().last, previous.answer != .equal, previous.answer != answer { reversals.append(level) }
        if reversals.count >= 6 || trials.count >= Self.maximumTrials {
            let last = reversals.suffix(4)
            return finish(last.isEmpty ? level : last.reduce(0, +) / Double(last.count))
        }
        levelDBFS = min(Self.highestLevelDBFS, max(thresholdDBFS - 10, level + direction * stepDB))
    }

    /// The match once ``levelDBFS`` is nil.
    public var result: Result? {
        guard let matched else { return nil }
        return Result(procedure: "loudness match", frequencyHz: frequencyHz, thresholdDBFS: thresholdDBFS, levelDBFS: matched,
                      sensationLevelDB: matched.map { $0 - thresholdDBFS }, stepDB: stepDB, trials: trials,
                      method: "tone at the tinnitus frequency from 10 dB above threshold, up/down in \(formatNumber(stepDB)) dB steps until as loud as the tinnitus")
    }

    private mutating func finish(_ level: Double?) {
        matched = level
        levelDBFS = nil
    }
}

/// The minimum masking level (MML), as a pure state machine: narrow-band noise centred on the tinnitus frequency
/// rises in 2 dB steps (from the threshold, or a start level) until the listener no longer hears the tinnitus;
/// that level is the MML (Henry et al. 2013). Residual inhibition is tested with a masker at MML + 10 dB
/// (`stimuli residual-inhibition --reference-from`). Levels are the noise's RMS in dBFS.
public struct MinimumMaskingLevel: Sendable {
    /// One presentation: the noise level and whether the tinnitus was still heard under it.
    package struct Trial: Sendable, Codable, Equatable {
        package let levelDBFS: Double
        package let tinnitusHeard: Bool
    }

    /// The outcome; `stimuli residual-inhibition --reference-from` reads `frequencyHz`, `widthOctaves` and `levelDBFS`.
    public struct Result: Sendable, Codable, Equatable {
        package let procedure: String
        public let frequencyHz: Double
        public let widthOctaves: Double
        /// The lowest noise level that covered the tinnitus, dBFS; nil when the highest level did not.
        public let levelDBFS: Double?
        /// The MML above the threshold given, dB.
        public let sensationLevelDB: Double?
        package let thresholdDBFS: Double?
        package let stepDB: Double
        package let trials: [Trial]
        package let method: String
    }

    package let frequencyHz: Double
    package let widthOctaves: Double
    package let thresholdDBFS: Double?
    package let stepDB: Double
    /// The noise level to present now, dBFS; nil once done.
    public private(set) var levelDBFS: Double?
    package private(set) var trials: [Trial] = []
    private var masked: Double?

    /// The highest noise level, dBFS RMS. Band noise's peaks reach 16 dB above its RMS within an hour (an
    /// octave at 6 kHz at −12 dBFS for an hour, `render nbn`: peak +3.96 dBFS), so −18 keeps them below
    /// full scale.
    package static let highestLevelDBFS = -18.0

    /// - Parameters:
    ///   - frequencyHz: the band's centre, 125 … 16,000 Hz.
    ///   - widthOctaves: the band's width, 0.1 … 3 octaves.
    ///   - thresholdDBFS: the listener's threshold for the band, dBFS, if known.
    ///   - startDBFS: the first level (default: the threshold, else −70 dBFS), −130 … −18 dBFS.
    ///   - stepDB: 1 or 2 dB.
    public init(frequencyHz: Double, widthOctaves: Double = 1, thresholdDBFS: Double? = nil, startDBFS: Double? = nil,
                stepDB: Double = 2) throws(ShadesError) {
        try Audiometry.checkFrequency(frequencyHz, as: .frequency)
        guard widthOctaves.isFinite, (0.1...3).contains(widthOctaves) else {
            throw ShadesError(parameter: .width, value: "\(formatNumber(widthOctaves)) octaves", allowed: "0.1 … 3 octaves")
        }
        try checkStep(stepDB, as: .mmlStep)
        let start = startDBFS ?? thresholdDBFS ?? -70
        guard start.isFinite, (-130...Self.highestLevelDBFS).contains(start) else {
            throw ShadesError(parameter: .startLevel, value: "\(formatNumber(start)) dBFS", allowed: "-130 … \(formatNumber(Self.highestLevelDBFS)) dBFS")
        }
        (self.frequencyHz, self.widthOctaves, self.thresholdDBFS, self.stepDB) = (frequencyHz, widthOctaves, thresholdDBFS, stepDB)
        levelDBFS = start
    }

    /// Takes whether the tinnitus is still heard under the noise at ``levelDBFS``.
    public mutating func answer(tinnitusHeard: Bool) {
        guard let level = levelDBFS else { return }
        trials.append(Trial(levelDBFS: level, tinnitusHeard: tinnitusHeard))
        if !tinnitusHeard {
            masked = level
            levelDBFS = nil
        } else {
            levelDBFS = level + stepDB <= Self.highestLevelDBFS + 1e-9 ? level + stepDB : nil
        }
    }

    /// The result once ``levelDBFS`` is nil.
    public var result: Result? {
        guard levelDBFS == nil else { return nil }
        return Result(procedure: "minimum masking level", frequencyHz: frequencyHz, widthOctaves: widthOctaves, levelDBFS: masked,
                      sensationLevelDB: masked.flatMap { m in thresholdDBFS.map { m - $0 } }, thresholdDBFS: thresholdDBFS,
                      stepDB: stepDB, trials: trials,
                      method: "narrow-band noise at the tinnitus frequency rising in \(formatNumber(stepDB)) dB steps until the tinnitus is no longer heard")
    }
}

/// A simulated tinnitus for ``LoudnessMatch`` and ``MinimumMaskingLevel``: as loud as a tone `loudnessDBFS` at its
/// frequency, covered by noise from `maskingLevelDBFS` on.
package struct SimulatedTinnitus: Sendable {
    package let loudnessDBFS: Double
    package let maskingLevelDBFS: Double

    package init(loudnessDBFS: Double = -60, maskingLevelDBFS: Double = -50) {
        (self.loudnessDBFS, self.maskingLevelDBFS) = (loudnessDBFS, maskingLevelDBFS)
    }

    /// Equal within half a step.
    package func judge(toneDBFS level: Double, stepDB: Double) -> LoudnessMatch.Answer {
        abs(level - loudnessDBFS) <= stepDB / 2 ? .equal : level < loudnessDBFS ? .softer : .louder
    }

    package func run(_ procedure: LoudnessMatch) -> LoudnessMatch.Result {
        var p = procedure
        while let level = p.levelDBFS { p.answer(judge(toneDBFS: level, stepDB: p.stepDB)) }
        return p.result!
    }

    package func run(_ procedure: MinimumMaskingLevel) -> MinimumMaskingLevel.Result {
        var p = procedure
        while let level = p.levelDBFS { p.answer(tinnitusHeard: level < maskingLevelDBFS) }
        return p.result!
    }
}

/// What `stimuli residual-inhibition --reference-from` reads of a loudness match or an MML result: the
/// frequency, the level, and a noise band's width.
package struct TinnitusReference: Sendable, Codable, Equatable {
    package let procedure: String
    package let frequencyHz: Double
    package let levelDBFS: Double?
    package let widthOctaves: Double?
}

/// Throws `parameter` out of range unless `stepDB` is 1 or 2 dB (the procedures' level steps).
private func checkStep(_ stepDB: Double, as parameter: ParameterID) throws(ShadesError) {
    guard stepDB == 1 || stepDB == 2 else {
        throw ShadesError(parameter: parameter, value: "\(formatNumber(stepDB)) dB", allowed: "1 or 2 dB")
    }
}
