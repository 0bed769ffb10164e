import ShadesDSP
import ShadesRender
import ShadesPlatform

/// Interactive pitch matching by the binary (bracketing) two-alternative method (Henry et al. 2001,
/// J Rehabil Res Dev 38:557–566), as a pure state machine: it says what to present next, takes the
/// listener's answer, and ends with the matched frequency, its range and every choice. A terminal (`shades
/// match`), an app, or a simulated listener drives it.
///
/// 1. Loudness balance: the first time a frequency is to be heard, the listener sets its level to match the
///    tinnitus loudness (``Step/balance(frequencyHz:)``; answer ``Answer/level(_:)`` in dB re the start level).
/// 2. Octave stage: a pair L, H = 2L (from 1 and 2 kHz); H closer → up an octave, L closer → down an
///    octave; it stops at the first reversal or at the range's ends (500 Hz, 16 kHz). The last tone chosen
///    is the octave stage's winner W.
/// 3. Within-octave stage in whole-tone steps (2^(1/6)): from W, the pair (c, c·s) and then (c/s, c); the
///    match walks towards the tone chosen until a reversal or W·2^(±½); it ends at the tone that beat both
///    neighbours.
/// 4. Octave-confusion check: the match F against F/2 and against 2F (Stein 2016); choosing F/2 or 2F
///    flags octave confusion, which the result reports (the match is kept; the clinician decides).
/// 5. Repeats: the pairs that decided the match (the octave stage's last, and the whole-tone pairs with
///    the match in them) again, each in the reverse order. The share answered with the same tone is the
///    consistency; fewer than half the same flags the match as inconsistent.
///
/// The order of every pair (which tone is heard first) is drawn from the seed, so a listener who favours
/// one position (order effects are a known bias of two-alternative matching) does not steer the match;
/// one who always answers the same position answers every repeat the other way and is flagged. A match
/// at the range's end is flagged too (``Result/atLimit``): the tinnitus may lie beyond it.
public struct PitchMatch: Sendable {
    /// What to present next.
    public enum Step: Sendable, Equatable {
        /// Play a tone at `frequencyHz` and let the listener set its level to the tinnitus loudness.
        case balance(frequencyHz: Double)
        /// Play `first` then `second` (1 s each, 10 ms ramps, a gap between) at their balanced levels; the
        /// listener says which is closer to the tinnitus pitch.
        case pair(first: Double, second: Double, stage: Stage)
        /// The procedure has ended: see ``result``.
        case done
    }

    public enum Stage: String, Sendable, Codable {
        case octave, wholeTone = "whole-tone", octaveCheck = "octave-check", `repeat`
    }

    /// The listener's answer to the current step.
    public enum Answer: Sendable, Equatable {
        /// The level set in a loudness balance, dB re the start level.
        case level(Double)
        case first
        case second
    }

    /// One answered pair, in the order heard.
    package struct Choice: Sendable, Codable, Equatable {
        package let stage: Stage
        package let firstHz: Double
        package let secondHz: Double
        package let chosenHz: Double
        /// For a repeat: the index in ``Result/choices`` of the pair it repeats (in the reverse order).
        package let repeatOf: Int?
    }

    /// A tone's loudness balance.
    package struct Balance: Sendable, Codable, Equatable {
        package let frequencyHz: Double
        /// The level the listener set, dB re the start level.
        package let levelDB: Double
    }

    /// Which end of the range a match lies at.
    public enum Limit: String, Sendable, Codable { case lower, upper }

    /// The outcome: the matched frequency, the range it stands for, its flags, the loudness balances and
    /// every choice. Fields added after the first version are optional, so older results still read.
    public struct Result: Sendable, Codable, Equatable {
        /// The matched tinnitus frequency, Hz.
        public let frequencyHz: Double
        /// The range the match stands for: half a whole tone each side (the step of the last stage), Hz.
        public let rangeLowHz: Double
        public let rangeHighHz: Double
        /// True when the listener chose F/2 or 2F over F in the octave-confusion check.
        public let octaveConfusion: Bool
        /// Set when the match is the lowest or highest frequency of the range: the tinnitus may lie beyond.
        public let atLimit: Limit?
        /// Pairs repeated in the reverse order, and how many of them got the same tone.
        package let repeatedPairs: Int?
        package let sameAnswers: Int?
        /// True when fewer than half the repeats got the same tone (e.g. a listener answering by position).
        public let inconsistent: Bool?
        /// The seed the pair orders were drawn from (the same seed and answers give the same procedure).
        public let seed: UInt64?
        /// The balanced level of each frequency heard, in frequency order.
        package let loudness: [Balance]
        package let choices: [Choice]
        package let method: String

        /// The JSON keys of the first version (`frequency`, `rangeLow`, `rangeHigh`: Hz), so results read both ways.
        private enum CodingKeys: String, CodingKey {
            case frequencyHz = "frequency", rangeLowHz = "rangeLow", rangeHighHz = "rangeHigh", octaveConfusion, atLimit,
                 repeatedPairs, sameAnswers, inconsistent, seed, loudness, choices, method
        }

        /// One line per flag, for a screen or a warning ("the match is at the upper limit …"); empty when
        /// the match is unflagged.
        public var warnings: [String] {
            var lines: [String] = []
            switch atLimit {
            case .lower?: lines.append("the match is at the lower limit of the range (\(formatNumber(frequencyHz)) Hz): the tinnitus may be lower")
            case .upper?: lines.append("the match is at the upper limit of the range (\(formatNumber(frequencyHz)) Hz): the tinnitus may be higher")
            case nil: break
            }
            if octaveConfusion { lines.append("octave confusion: F/2 or 2F was chosen over the match F") }
            if inconsistent == true, let repeatedPairs, let sameAnswers {
                lines.append("inconsistent: \(sameAnswers) of \(repeatedPairs) repeated pairs got the same answer")
            }
            return lines
        }
    }

    /// Lowest and highest frequencies of the octave stage, Hz.
    package let lowestHz: Double
    package let highestHz: Double
    /// The seed of the pair orders.
    package let seed: UInt64
    /// The whole-tone step, 2^(1/6).
    package static let wholeTone: Double = pow(2.0, 1.0 / 6)
    /// The frequencies a procedure's range may span, Hz.
    package static let allowedRangeHz: ClosedRange<Double> = 20...20_000

    public private(set) var step: Step
    package private(set) var choices: [Choice] = []
    package private(set) var levels: [Double: Double] = [:]

    private var pending: (first: Double, second: Double, stage: Stage, repeatOf: Int?)?
    private var random: SplitMix64
    private var octaveDirection = 0          // +1 going up, −1 going down, 0 not yet
    private var winner = 0.0
    private var current = 0.0
    /// Where the whole-tone stage stands: its first pair above the winner, walking up, its first pair
    /// below, walking down.
    private enum WholeTonePhase { case firstAbove, goingUp, firstBelow, goingDown }
    private var phase = WholeTonePhase.firstAbove
    private var checks: [(Double, Double)] = []
    private var confusion = false
    /// Indices of the choices still to repeat.
    private var repeats: [Int] = []

    /// A procedure over `lowestHz` … `highestHz` (500 Hz … 16 kHz by default, within 20 Hz … 20 kHz),
    /// starting from the pair `startHz`, 2·`startHz`; the order of each pair drawn from `seed`.
    public init(lowestHz: Double = 500, highestHz: Double = 16_000, startHz: Double = 1_000, seed: UInt64 = 1) throws(ShadesError) {
        guard lowestHz.isFinite, highestHz.isFinite, Self.allowedRangeHz.contains(lowestHz), Self.allowedRangeHz.contains(highestHz),
              highestHz >= 2 * lowestHz else {
            throw ShadesError(parameter: .matchRange, value: "\(formatNumber(lowestHz)) … \(formatNumber(highestHz)) Hz",
                              allowed: "within 20 … 20000 Hz, at least an octave wide")
        }
        guard startHz >= lowestHz, 2 * startHz <= highestHz else {
            throw ShadesError(parameter: .matchStart, value: "\(formatNumber(startHz)) Hz",
                              allowed: "\(formatNumber(lowestHz)) … \(formatNumber(highestHz / 2)) Hz (its octave inside the range)")
        }
        (self.lowestHz, self.highestHz, self.seed) = (lowestHz, highestHz, seed)
        random = SplitMix64(seed: SeedStream.schedule.key(seed: seed, channel: 0))
        step = .done
        present(startHz, 2 * startHz, stage: .octave)
    }

    /// The result once ``step`` is ``Step/done``.
    public var result: Result? {
        guard step == .done else { return nil }
        let half = Self.wholeTone.squareRoot()
        let repeated = choices.filter { $0.repeatOf != nil }
        let same = repeated.filter { $0.chosenHz == choices[$0.repeatOf!].chosenHz }.count
        let limit: Limit? = current <= lowestHz * (1 + 1e-9) ? .lower : current >= highestHz * (1 - 1e-9) ? .upper : nil
        return Result(frequencyHz: current, rangeLowHz: current / half, rangeHighHz: current * half, octaveConfusion: confusion,
                      atLimit: limit, repeatedPairs: repeated.count, sameAnswers: same, inconsistent: 2 * same < repeated.count,
                      seed: seed, loudness: levels.sorted { $0.key < $1.key }.map { Balance(frequencyHz: $0.key, levelDB: $0.value) },
                      choices: choices, method: "binary two-alternative forced choice (Henry et al. 2001), pair order randomised, decisive pairs repeated reversed")
    }

    /// Takes the answer to the current step and moves on.
    public mutating func answer(_ answer: Answer) throws(ShadesError) {
        switch (step, answer) {
        case (.balance(let f), .level(let db)):
            guard db.isFinite, abs(db) <= 60 else {
                throw ShadesError(parameter: .level, value: "\(formatNumber(db)) dB", allowed: "-60 … 60 dB re the start level")
            }
            levels[f] = db
            advance()
        case (.pair(let a, let b, let stage), .first), (.pair(let a, let b, let stage), .second):
            let chosen = answer == .first ? a : b
            let repeatOf = stage == .repeat ? repeats.removeFirst() : nil
            choices.append(Choice(stage: stage, firstHz: a, secondHz: b, chosenHz: chosen, repeatOf: repeatOf))
            choose(chosen, from: a, b, stage: stage)
        default:
            throw ShadesError(parameter: .answer, value: "\(answer)", allowed: "a level for a balance, first or second for a pair")
        }
    }

    // MARK: The stages

    /// Asks for the pair `a`, `b` in an order drawn from the seed, balancing any frequency not heard yet first.
    private mutating func present(_ a: Double, _ b: Double, stage: Stage) {
        pending = random.next() & 1 == 0 ? (a, b, stage, nil) : (b, a, stage, nil)
        advance()
    }

    private mutating func advance() {
        guard let p = pending else { step = .done; return }
        if levels[p.first] == nil { step = .balance(frequencyHz: p.first); return }
        if levels[p.second] == nil { step = .balance(frequencyHz: p.second); return }
        step = .pair(first: p.first, second: p.second, stage: p.stage)
        pending = nil
    }

    private mutating func choose(_ chosen: Double, from a: Double, _ b: Double, stage: Stage) {
        let low = min(a, b), high = max(a, b)
        switch stage {
        case .octave:
            let direction = chosen == high ? 1 : -1
            let reversal = octaveDirection != 0 && direction != octaveDirection
            octaveDirection = direction
            if reversal || (direction > 0 && high * 2 > highestHz * (1 + 1e-9)) || (direction < 0 && low / 2 < lowestHz * (1 - 1e-9)) {
                winner = chosen
                current = chosen
                startWholeTones()
            } else if direction > 0 {
                present(high, high * 2, stage: .octave)
            } else {
                present(low / 2, low, stage: .octave)
            }
        case .wholeTone:
            switch phase {
            case .firstAbove, .goingUp:
                if chosen == high {
                    current = high
                    phase = .goingUp
                    tryAbove() ?? finishWholeTones()
                } else if phase == .firstAbove {
                    phase = .firstBelow
                    tryBelow() ?? finishWholeTones()
                } else {
                    finishWholeTones()   // a reversal
                }
            case .firstBelow, .goingDown:
                if chosen == low {
                    current = low
                    phase = .goingDown
                    tryBelow() ?? finishWholeTones()
                } else {
                    finishWholeTones()
                }
            }
        case .octaveCheck:
            let (_, other) = checks.removeFirst()
            if chosen == other { confusion = true }
            nextCheck()
        case .repeat:
            nextRepeat()
        }
    }

    private mutating func startWholeTones() {
        phase = .firstAbove
        if tryAbove() != nil { return }
        phase = .firstBelow
        tryBelow() ?? finishWholeTones()
    }

    /// The pair (current, current·s) when it stays within half an octave of the winner and the range.
    private mutating func tryAbove() -> Void? {
        let up = current * Self.wholeTone
        guard up <= winner * 2.0.squareRoot() * (1 + 1e-9), up <= highestHz * (1 + 1e-9) else { return nil }
        present(current, up, stage: .wholeTone)
        return ()
    }

    /// The pair (current/s, current) likewise.
    private mutating func tryBelow() -> Void? {
        let down = current / Self.wholeTone
        guard down >= winner / 2.0.squareRoot() * (1 - 1e-9), down >= lowestHz * (1 - 1e-9) else { return nil }
        present(down, current, stage: .wholeTone)
        return ()
    }

    private mutating func finishWholeTones() {
        checks = [(current, current / 2), (current, current * 2)].filter { Self.allowedRangeHz.contains($0.1) }
        nextCheck()
    }

    private mutating func nextCheck() {
        guard let (f, other) = checks.first else { startRepeats(); return }
        present(f, other, stage: .octaveCheck)
    }

    /// The decisive pairs: the octave stage's last, and the last two whole-tone pairs with the match in them.
    private mutating func startRepeats() {
        let lastOctave = choices.lastIndex { $0.stage == .octave }
        let aroundMatch = choices.indices.filter { choices[$0].stage == .wholeTone && (choices[$0].firstHz == current || choices[$0].secondHz == current) }
        repeats = (lastOctave.map { [$0] } ?? []) + aroundMatch.suffix(2)
        nextRepeat()
    }

    /// The next pair to repeat, in the reverse order of its first hearing (not drawn: a listener who favours
    /// a position then answers it the other way).
    private mutating func nextRepeat() {
        guard let index = repeats.first else { pending = nil; step = .done; return }
        pending = (choices[index].secondHz, choices[index].firstHz, .repeat, index)
        advance()
    }
}

/// A simulated listener for ``PitchMatch``: it picks the tone closer in log frequency to its target and
/// balances every tone to 0 dB. With `octaveConfusion`, it hears its tinnitus an octave low while matching
/// (it matches half its target) but knows it in the octave check: the check flags it.
package struct SimulatedListener: Sendable {
    package let targetHz: Double
    package let octaveConfusion: Bool
    /// A listener who answers every pair with this position whatever it hears (an order bias).
    package var alwaysAnswers: PitchMatch.Answer?

    package init(targetHz: Double, octaveConfusion: Bool = false) { (self.targetHz, self.octaveConfusion) = (targetHz, octaveConfusion) }

    /// A listener who always answers `position` (``PitchMatch/Answer/first`` or ``PitchMatch/Answer/second``).
    package init(alwaysAnswering position: PitchMatch.Answer) {
        self.init(targetHz: 1_000)
        alwaysAnswers = position
    }

    /// The answer to `step`.
    package func answer(_ step: PitchMatch.Step) -> PitchMatch.Answer? {
        switch step {
        case .balance: return .level(0)
        case .pair(let a, let b, let stage):
            if let alwaysAnswers { return alwaysAnswers }
            let target = octaveConfusion && stage != .octaveCheck ? targetHz / 2 : targetHz
            return abs(log2(a / target)) <= abs(log2(b / target)) ? .first : .second
        case .done: return nil
        }
    }

    /// Runs `procedure` to its end with this listener.
    package func run(_ procedure: PitchMatch) throws(ShadesError) -> PitchMatch.Result {
        var p = procedure
        while let answer = answer(p.step) { try p.answer(answer) }
        return p.result!
    }
}
