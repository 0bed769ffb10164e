import ShadesDSP
import ShadesRender
import ShadesPlatform

/// Pure-tone audiometry by the modified Hughson–Westlake method (Carhart & Jerger 1959; ASHA 2005, "Guidelines
/// for manual pure-tone threshold audiometry"), as a pure state machine: it says which tone to present
/// (ear, frequency, level), takes "heard" or "not heard", and ends with an ``Audiogram`` holding every trial.
/// A terminal (`shades audiometry`), an app or a simulated listener drives it.
///
/// Per ear and frequency (1 kHz first, then upwards, then the frequencies below 1 kHz downwards):
/// 1. Familiarisation: the tone starts audible (30 dB HL, or −40 dBFS without a calibration); not heard,
///    it rises by 20 dB, then by 10 dB, until it is heard.
/// 2. Threshold search: 10 dB down after each response, 5 dB up after each miss. A presentation after a
///    miss is an ascending one.
/// 3. The threshold is the lowest level with responses on at least 2 ascending presentations and on at least
///    half of them there ("2 of 3 ascending runs").
/// A tone missed twice at the highest level ends with no threshold ("no response"); one heard twice at the
/// lowest level ends there (the threshold may be lower); 40 presentations without a threshold end with none.
///
/// Levels are dB HL through an ``AudiometerCalibration`` (the tone played at the reference level in dBFS plus
/// the hearing level), or dB re full scale (the tone's RMS in dBFS) without one.
public struct Audiometry: Sendable {
    /// One tone to present: a pulsed tone (three 200 ms pulses, 25 ms ramps) in one ear.
    public struct Presentation: Sendable, Equatable {
        public let ear: Ears
        public let frequencyHz: Double
        /// The level in the audiogram's scale (dB HL or dBFS).
        public let levelDB: Double
        /// The tone's RMS level to play, dBFS; nil for dB HL without a calibration (a simulated listener).
        public let levelDBFS: Double?
    }

    /// The tone to present next; nil when the procedure has ended (see ``result``).
    public private(set) var presentation: Presentation?
    /// The scale of the levels.
    package let scale: AudiogramScale
    package let calibration: AudiometerCalibration?

    /// The lowest and highest levels in dB HL, and the highest tone level in dBFS (RMS: a pulse's peak
    /// stays 3 dB below full scale).
    package static let hearingLevelRangeDB: ClosedRange<Double> = -10...120
    package static let fullScaleRangeDB: ClosedRange<Double> = -120 ... -6
    /// Presentations of one frequency after which it ends without a threshold.
    package static let maximumTrials = 40

    private var tests: [(ear: Ears, frequencyHz: Double)]
    private var current = 0
    private let startLevelDB: Double
    private var state: SearchState
    private var finished: [Ears: [Audiogram.Threshold]] = [:]

    /// The search at one ear and frequency.
    private struct SearchState: Sendable {
        var level: Double
        var range: ClosedRange<Double>
        var trials: [Audiogram.Trial] = []
        var familiarised = false
        var lastMissed = false
        var raisedOnce = false
        var ascending: [Double: (presented: Int, heard: Int)] = [:]
        var missesAtTop = 0
        var responsesAtBottom = 0
    }

    /// - Parameters:
    ///   - ears: left and/or right, in the order tested.
    ///   - frequenciesHz: 125 … 16,000 Hz (repeats dropped); with a calibration each must be calibrated.
    ///   - scale: dB HL (with a calibration to play, or without one for a simulated listener) or dB re full
    ///     scale (no calibration).
    ///   - calibration: the headphones' 0 dB HL per frequency (dBFS), to play in dB HL; nil for dB re full
    ///     scale or a simulated listener.
    ///   - startLevelDB: the familiarisation level (default 30 dB HL or −40 dBFS).
    public init(ears: [Ears], frequenciesHz: [Double], scale: AudiogramScale, calibration: AudiometerCalibration? = nil,
                startLevelDB: Double? = nil) throws(ShadesError) {
        guard !ears.isEmpty, !ears.contains(.both) else {
            throw ShadesError(parameter: .ear, value: ears.map(\.rawValue).joined(separator: ","), allowed: "left and/or right")
        }
        var unique: [Double] = []
        for f in frequenciesHz where !unique.contains(f) {
            try Self.checkFrequency(f, as: .frequencies)
            unique.append(f)
        }
        guard !unique.isEmpty else { throw ShadesError(parameter: .frequencies, value: "none", allowed: "one or more of 125 … 16000 Hz") }
        if scale == .fullScale && calibration != nil {
            throw ShadesError.usage("a calibration gives dB HL, not dB re full scale")
        }
        if let calibration { for f in unique { _ = try calibration.referenceDBFS(atHz: f) } }
        let start = startLevelDB ?? (scale == .hearingLevel ? 30 : -40)
        let widest = scale == .hearingLevel ? Self.hearingLevelRangeDB : Self.fullScaleRangeDB
        guard start.isFinite, widest.contains(start) else {
            throw ShadesError(parameter: .startLevel, value: "\(formatNumber(start)) \(scale.rawValue)",
                              allowed: "\(formatNumber(widest.lowerBound)) … \(formatNumber(widest.upperBound)) \(scale.rawValue)")
        }
        // ASHA: 1 kHz first, then upwards, then the frequencies below 1 kHz downwards.
        let order = unique.filter { $0 >= 1_000 }.sorted() + unique.filter { $0 < 1_000 }.sorted(by: >)
        tests = ears.flatMap { ear in order.map { (ear, $0) } }
        (self.scale, self.calibration, self.startLevelDB) = (scale, calibration, start)
        state = SearchState(level: start, range: widest)
        state = try! searchState(for: 0)
        presentation = makePresentation()
    }

    /// Frequencies an audiogram may hold, Hz.
    package static let allowedFrequencyHz: ClosedRange<Double> = 125...16_000

    /// Throws `parameter` out of range unless `frequencyHz` is in ``allowedFrequencyHz``.
    package static func checkFrequency(_ frequencyHz: Double, as parameter: ParameterID) throws(ShadesError) {
        guard frequencyHz.isFinite, allowedFrequencyHz.contains(frequencyHz) else {
            throw ShadesError(parameter: parameter, value: "\(formatNumber(frequencyHz)) Hz", allowed: "125 … 16000 Hz")
        }
    }

    /// Takes the listener's answer to ``presentation`` and moves on.
    public mutating func answer(heard: Bool) {
        guard presentation != nil else { return }
        let ascending = state.familiarised && state.lastMissed
        state.trials.append(Audiogram.Trial(levelDB: state.level, heard: heard, ascending: ascending))
        let level = state.level, range = state.range
        if !state.familiarised {
            if heard {
                state.familiarised = true
                state.level = max(range.lowerBound, level - 10)
            } else if level >= range.upperBound {
                state.missesAtTop += 1
                if state.missesAtTop >= 2 { return finish(nil, note: "no response at the highest level, \(formatNumber(level)) \(scale.rawValue)") }
            } else {
                state.level = min(range.upperBound, level + (state.raisedOnce ? 10 : 20))
                state.raisedOnce = true
            }
        } else {
            if ascending {
                var count = state.ascending[level] ?? (0, 0)
                count.presented += 1
                if heard { count.heard += 1 }
                state.ascending[level] = count
                if let threshold = state.ascending.filter({ $0.value.heard >= 2 && 2 * $0.value.heard >= $0.value.presented }).keys.min() {
                    return finish(threshold, note: nil)
                }
            }
            if heard {
                if level <= range.lowerBound {
                    state.responsesAtBottom += 1
                    if state.responsesAtBottom >= 2 {
                        return finish(level, note: "heard at the lowest level, \(formatNumber(level)) \(scale.rawValue): the threshold may be lower")
                    }
                }
                state.level = max(range.lowerBound, level - 10)
            } else {
                if level >= range.upperBound {
                    state.missesAtTop += 1
                    if state.missesAtTop >= 2 { return finish(nil, note: "no response at the highest level, \(formatNumber(level)) \(scale.rawValue)") }
                }
                state.level = min(range.upperBound, level + 5)
            }
        }
        state.lastMissed = !heard
        if state.trials.count >= Self.maximumTrials {
            return finish(nil, note: "no threshold after \(Self.maximumTrials) presentations")
        }
        presentation = makePresentation()
    }

    /// The audiogram once ``presentation`` is nil.
    public var result: Audiogram? {
        guard presentation == nil else { return nil }
        return Audiogram(scale: scale, calibration: calibration, left: finished[.left]?.sorted { $0.frequencyHz < $1.frequencyHz },
                         right: finished[.right]?.sorted { $0.frequencyHz < $1.frequencyHz })
    }

    /// Where the procedure stands, for a progress line: the ear tested now, and its frequency's place among
    /// that ear's frequencies (1-based), of how many.
    public var progress: (ear: Ears, frequency: Int, of: Int) {
        let test = min(current, tests.count - 1)
        let ear = tests[test].ear
        let ofEar = tests.indices.filter { tests[$0].ear == ear }
        return (ear, ofEar.firstIndex(of: test)! + 1, ofEar.count)
    }

    // MARK: Steps

    private mutating func finish(_ threshold: Double?, note: String?) {
        let test = tests[current]
        finished[test.ear, default: []].append(Audiogram.Threshold(frequencyHz: test.frequencyHz, thresholdDB: threshold, note: note,
                                                                  trials: state.trials))
        current += 1
        guard current < tests.count else { presentation = nil; return }
        state = try! searchState(for: current)
        presentation = makePresentation()
    }

    /// A fresh search for test `index`, its levels within what the calibration can play.
    private func searchState(for index: Int) throws(ShadesError) -> SearchState {
        var range = scale == .hearingLevel ? Self.hearingLevelRangeDB : Self.fullScaleRangeDB
        if let calibration {
            let top = Self.fullScaleRangeDB.upperBound - (try calibration.referenceDBFS(atHz: tests[index].frequencyHz))
            range = range.lowerBound ... max(range.lowerBound, min(range.upperBound, top))
        }
        return SearchState(level: min(startLevelDB, range.upperBound), range: range)
    }

    private func makePresentation() -> Presentation {
        let test = tests[current]
        let dbfs: Double?
        switch scale {
        case .fullScale: dbfs = state.level
        case .hearingLevel: dbfs = calibration.map { state.level + (try! $0.referenceDBFS(atHz: test.frequencyHz)) }
        }
        return Presentation(ear: test.ear, frequencyHz: test.frequencyHz, levelDB: state.level, levelDBFS: dbfs)
    }

    /// The pulsed tone of `presentation`: three 200 ms pulses with 25 ms raised-cosine ramps, 200 ms apart,
    /// in its ear; play it at ``Presentation/levelDBFS``.
    public static func tone(for presentation: Presentation) -> Sound {
        Sound(.generator(.tone(frequencyHz: presentation.frequencyHz)), pulses: Pulses(onSeconds: 0.2, offSeconds: 0.2, rampSeconds: 0.025, count: 3),
              channels: presentation.ear == .left ? .left : .right)
    }
}

/// The scale of an audiogram's levels.
public enum AudiogramScale: String, Sendable, Codable {
    /// dB hearing level: 0 is the reference equivalent threshold (through a calibration).
    case hearingLevel = "dB HL"
    /// dB re full scale: the tone's RMS level in dBFS (no calibration; depends on the volume setting).
    case fullScale = "dB re full scale"
}

/// The calibration of one set of headphones for audiometry: per frequency, the level in dBFS (RMS of the
/// pure tone) that is 0 dB HL, that is the reference equivalent threshold level (ISO 389) as this system
/// plays it. A tone of L dB HL is played at reference + L dBFS.
///
/// JSON: `{"headphones": "Sennheiser HDA 300", "referenceDBFS": {"1000": -95.5, "2000": -97, …}}`.
public struct AudiometerCalibration: Sendable, Codable, Equatable {
    /// The headphones (and volume setting) this calibration holds for.
    public private(set) var headphones: String?
    /// Per frequency in Hz (the key, e.g. "1000"), the level in dBFS heard at 0 dB HL.
    package var referenceDBFS: [String: Double]

    public init(headphones: String? = nil, referenceDBFS: [Double: Double]) {
        self.headphones = headphones
        self.referenceDBFS = Dictionary(uniqueKeysWithValues: referenceDBFS.map { (formatNumber($0.key), $0.value) })
    }

    /// The reference level at `frequencyHz`, dBFS; refused for a frequency the calibration does not hold.
    public func referenceDBFS(atHz frequencyHz: Double) throws(ShadesError) -> Double {
        for (key, value) in referenceDBFS {
            if let f = Double(key), abs(f - frequencyHz) <= 1e-6 * frequencyHz, value.isFinite { return value }
        }
        let held = referenceDBFS.keys.compactMap(Double.init).sorted().map { formatNumber($0) }.joined(separator: ", ")
        throw ShadesError(parameter: .frequencies, value: "\(formatNumber(frequencyHz)) Hz", problem: "is not in the calibration",
                          allowed: held.isEmpty ? "none: the calibration holds no frequency" : "\(held) Hz")
    }
}

/// Hearing thresholds per ear and frequency, with every trial that found them (``Audiometry``'s result;
/// `shades audiometry -o` writes it as JSON).
public struct Audiogram: Sendable, Codable, Equatable {
    /// One presentation: its level, whether it was heard, and whether it followed a miss.
    package struct Trial: Sendable, Codable, Equatable {
        package let levelDB: Double
        package let heard: Bool
        package let ascending: Bool
    }

    /// One frequency of one ear.
    public struct Threshold: Sendable, Codable, Equatable {
        public let frequencyHz: Double
        /// The threshold in the audiogram's scale; nil when none was found (see `note`).
        public let thresholdDB: Double?
        /// Why there is no threshold, or what limits it.
        package let note: String?
        package let trials: [Trial]

        package init(frequencyHz: Double, thresholdDB: Double?, note: String? = nil) {
            self.init(frequencyHz: frequencyHz, thresholdDB: thresholdDB, note: note, trials: [])
        }

        package init(frequencyHz: Double, thresholdDB: Double?, note: String?, trials: [Trial]) {
            (self.frequencyHz, self.thresholdDB, self.note, self.trials) = (frequencyHz, thresholdDB, note, trials)
        }
    }

    public let scale: AudiogramScale
    package let method: String
    package let calibration: AudiometerCalibration?
    public let left: [Threshold]?
    public let right: [Threshold]?
    /// For an audiogram a simulated listener answered: who it was (not a person's hearing).
    package var simulatedListener: String?

    package init(scale: AudiogramScale, calibration: AudiometerCalibration? = nil, left: [Threshold]?, right: [Threshold]?) {
        (self.scale, self.calibration, self.left, self.right) = (scale, calibration, left, right)
        method = "modified Hughson-Westlake (ASHA 2005): 10 dB down after a response, 5 dB up after a miss; "
            + "threshold: lowest level heard on at least 2 ascending presentations and half of them"
    }

    /// The thresholds of `ear` (left or right) that were found, by frequency.
    package func thresholds(ear: Ears) -> [(frequencyHz: Double, thresholdDB: Double)] {
        ((ear == .left ? left : ear == .right ? right : nil) ?? [])
            .compactMap { t in t.thresholdDB.map { (t.frequencyHz, $0) } }.sorted { $0.frequencyHz < $1.frequencyHz }
    }

    /// ``thresholds(ear:)``, at least one: throws when the ear has none, naming the ears that have some.
    package func someThresholds(ear: Ears) throws(ShadesError) -> [(frequencyHz: Double, thresholdDB: Double)] {
        let points = thresholds(ear: ear)
        guard !points.isEmpty else {
            let measured = [Ears.right, .left].filter { !thresholds(ear: $0).isEmpty }
            guard !measured.isEmpty else { throw Self.noThresholds }
            throw ShadesError(parameter: .ear, value: ear.rawValue, problem: "has no thresholds in the audiogram",
                              allowed: measured.map(\.rawValue).joined(separator: " or ")
                                + (measured.count == 1 ? ", the only ear it has thresholds for" : ""))
        }
        return points
    }

    /// The ears of `ears` (right, left or both) whose thresholds to use: one ear must have thresholds; of
    /// both, those that have some (the one ear's when the audiogram holds one ear's). Throws when none has.
    package func earsWithThresholds(_ ears: [Ears]) throws(ShadesError) -> [Ears] {
        let measured = ears.filter { !thresholds(ear: $0).isEmpty }
        guard !measured.isEmpty else {
            if ears.count == 1 { _ = try someThresholds(ear: ears[0]) }
            throw Self.noThresholds
        }
        return measured
    }

    /// An audiogram in which no tone was heard at any frequency.
    private static let noThresholds = ShadesError.input("the audiogram has no threshold in either ear (no response at any frequency)")

    /// The threshold of `ear` at `frequencyHz`, linear in log frequency between the measured ones and the
    /// nearest one's beyond them; throws when the ear has none.
    public func thresholdDB(atHz frequencyHz: Double, ear: Ears) throws(ShadesError) -> Double {
        let points = try someThresholds(ear: ear)
        return GainCurve.interpolate(points.map { ($0.frequencyHz, $0.thresholdDB) }, atHz: frequencyHz)
    }

    /// The threshold of `ear` at `frequencyHz` as a tone's RMS level in dBFS: dB re full scale as it is, dB HL
    /// through the audiogram's calibration (each measured threshold at its reference level, then interpolated);
    /// throws for dB HL without a calibration (a simulated listener's).
    package func thresholdDBFS(atHz frequencyHz: Double, ear: Ears) throws(ShadesError) -> Double {
        guard scale == .hearingLevel else { return try thresholdDB(atHz: frequencyHz, ear: ear) }
        guard let calibration else {
            throw ShadesError(parameter: .ear, value: ear.rawValue, problem: "has thresholds in dB HL without a calibration",
                              allowed: "an audiogram measured through a headphone calibration, or in dB re full scale")
        }
        var points: [(Double, Double)] = []
        for t in thresholds(ear: ear) { points.append((t.frequencyHz, t.thresholdDB + (try calibration.referenceDBFS(atHz: t.frequencyHz)))) }
        guard !points.isEmpty else { return try thresholdDB(atHz: frequencyHz, ear: ear) }
        return GainCurve.interpolate(points, atHz: frequencyHz)
    }
}

/// A simulated listener for ``Audiometry``: hearing thresholds per frequency (linear in log frequency between
/// them), a psychometric function of `spreadDB` (cumulative normal: heard half the time at the threshold),
/// false alarms (a response to a tone below the threshold) and misses (none to one above), drawn from a seed.
/// The probability of a response at level L is fa + (1 − fa − miss)·Φ((L − T)/spread).
package struct SimulatedAudiometryListener: Sendable {
    package let thresholds: [(frequencyHz: Double, thresholdDB: Double)]
    package let falseAlarmProbability: Double
    package let missProbability: Double
    package let spreadDB: Double
    private var random: SplitMix64

    package init(thresholds: [(frequencyHz: Double, thresholdDB: Double)], falseAlarmProbability: Double = 0,
                 missProbability: Double = 0, spreadDB: Double = 2, seed: UInt64 = 1) throws(ShadesError) {
        guard !thresholds.isEmpty else { throw ShadesError(parameter: .simulatedAudiogram, value: "no thresholds", allowed: "one or more frequency:dB pairs") }
        for (p, id) in [(falseAlarmProbability, ParameterID.falseAlarms), (missProbability, .misses)] where !(p >= 0 && p <= 0.5) {
            throw ShadesError(parameter: id, value: formatNumber(p), allowed: "a probability of 0 … 0.5")
        }
        self.thresholds = thresholds.sorted { $0.frequencyHz < $1.frequencyHz }
        (self.falseAlarmProbability, self.missProbability, self.spreadDB) = (falseAlarmProbability, missProbability, spreadDB)
        random = SplitMix64(seed: SeedStream.schedule.key(seed: seed, channel: 1))
    }

    /// The listener's threshold at `frequencyHz`, dB.
    package func thresholdDB(atHz frequencyHz: Double) -> Double {
        GainCurve.interpolate(thresholds.map { ($0.frequencyHz, $0.thresholdDB) }, atHz: frequencyHz)
    }

    /// Whether the listener responds to `presentation` (both ears hear alike).
    package mutating func hears(_ presentation: Audiometry.Presentation) -> Bool {
        let x = (presentation.levelDB - thresholdDB(atHz: presentation.frequencyHz)) / max(spreadDB, 1e-9)
        let audible = 0.5 * erfc(-x / 2.0.squareRoot())
        let p = falseAlarmProbability + (1 - falseAlarmProbability - missProbability) * audible
        return random.nextUnit() < p
    }

    /// Runs `procedure` to its end with this listener; the audiogram says who answered.
    package mutating func run(_ procedure: Audiometry) -> Audiogram {
        var p = procedure
        while let presentation = p.presentation { p.answer(heard: hears(presentation)) }
        var audiogram = p.result!
        audiogram.simulatedListener = thresholds.map { "\(formatNumber($0.frequencyHz)):\(formatNumber($0.thresholdDB))" }.joined(separator: ",")
            + " dB HL, false alarms \(formatNumber(falseAlarmProbability)), misses \(formatNumber(missProbability)), spread \(formatNumber(spreadDB)) dB"
        return audiogram
    }
}
