import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// The pitch-matching procedure (issue 14; Henry et al. 2001), driven by simulated listeners: one who picks
/// the tone closer in log frequency to a hidden target lands within one whole tone of it for targets from
/// 500 Hz to 16 kHz and is never flagged; one who hears the tinnitus an octave low while matching is
/// flagged by the octave-confusion check. Issue 22: the order within each pair is drawn from the seed (both
/// orders, about equally often), a listener who answers by position is flagged whatever the seed, and a match
/// at the range's ends is flagged.
@Suite struct PitchMatchTests {
    static let targets: [Double] = (0...60).map { 500 * pow(32, Double($0) / 60) }   // 500 Hz … 16 kHz

    @Test func idealListenerLandsWithinAWholeTone() throws {
        for target in Self.targets {
            let result = try SimulatedListener(targetHz: target).run(try PitchMatch())
            let error = abs(log2(result.frequencyHz / target))
            #expect(error <= 1.0 / 6 + 1e-9, "target \(target) Hz: matched \(result.frequencyHz) Hz (\(error * 6) whole tones off)")
            #expect(!result.octaveConfusion, "target \(target) Hz")
            #expect(result.inconsistent == false && (result.repeatedPairs ?? 0) >= 2, "target \(target) Hz: \(result.sameAnswers ?? -1) of \(result.repeatedPairs ?? -1)")
            let inside = target > 500 * PitchMatch.wholeTone.squareRoot() && target < 16_000 / PitchMatch.wholeTone.squareRoot()
            if inside { #expect(result.atLimit == nil && result.warnings.isEmpty, "target \(target) Hz: \(result.warnings)") }
            #expect(result.rangeLowHz < result.frequencyHz && result.frequencyHz < result.rangeHighHz)
            // Every frequency heard was balanced first; every choice is recorded, the stages in order.
            let heard = Set(result.choices.flatMap { [$0.firstHz, $0.secondHz] })
            #expect(heard.isSubset(of: Set(result.loudness.map(\.frequencyHz))))
            let stages = result.choices.map(\.stage)
            #expect(stages.first == .octave && stages.last == .repeat && stages.contains(.octaveCheck))
            #expect(stages == stages.sorted { order($0) < order($1) })
        }
    }

    @Test func octaveConfusionIsFlagged() throws {
        for target in Self.targets where target >= 1_000 {
            let result = try SimulatedListener(targetHz: target, octaveConfusion: true).run(try PitchMatch())
            #expect(result.octaveConfusion, "target \(target) Hz matched at \(result.frequencyHz) Hz")
        }
    }

    @Test func answersOutOfTurnAndBadRangesAreRefused() throws {
        var match = try PitchMatch()
        guard case .balance(let f) = match.step else { Issue.record("starts with a balance"); return }
        #expect(f == 1_000)
        #expect(throws: ShadesError.self) { try match.answer(.first) }
        #expect(throws: ShadesError.self) { try match.answer(.level(.nan)) }
        try match.answer(.level(-3))
        #expect(throws: ShadesError.self) { try PitchMatch(lowestHz: 500, highestHz: 800) }
        #expect(throws: ShadesError.self) { try PitchMatch(startHz: 12_000) }
    }

    @Test func pairOrderIsDrawnFromTheSeedAndRecorded() throws {
        var lowerFirst = 0, pairs = 0
        for seed in UInt64(1)...40 {
            let result = try SimulatedListener(targetHz: 5_200).run(try PitchMatch(seed: seed))
            #expect(result.seed == seed)
            for choice in result.choices where choice.stage != .repeat {
                pairs += 1
                if choice.firstHz < choice.secondHz { lowerFirst += 1 }
            }
            // The same seed gives the same procedure.
            #expect(try SimulatedListener(targetHz: 5_200).run(try PitchMatch(seed: seed)) == result)
        }
        // Binomial(pairs, ½): the share of lower-first pairs within 4 standard deviations of a half.
        let share = Double(lowerFirst) / Double(pairs)
        print("pitch match: \(lowerFirst) of \(pairs) pairs over 40 seeds had the lower tone first")
        #expect(abs(share - 0.5) < 4 * (0.25 / Double(pairs)).squareRoot(), "\(lowerFirst) of \(pairs) pairs had the lower tone first")
        let a = try SimulatedListener(targetHz: 5_200).run(try PitchMatch(seed: 1))
        let b = try SimulatedListener(targetHz: 5_200).run(try PitchMatch(seed: 2))
        #expect(a.choices.map(\.firstHz) != b.choices.map(\.firstHz))
    }

    /// Before issue 22 a listener answering "2" every time matched 16 kHz and one answering "1" 500 Hz, unflagged.
    @Test func listenersWhoAnswerByPositionAreAlwaysFlagged() throws {
        for position in [PitchMatch.Answer.first, .second] {
            var matched: Set<Double> = []
            for seed in UInt64(1)...200 {
                let result = try SimulatedListener(alwaysAnswering: position).run(try PitchMatch(seed: seed))
                matched.insert(result.frequencyHz)
                #expect(!result.warnings.isEmpty, "always \(position), seed \(seed): unflagged match at \(result.frequencyHz) Hz")
                #expect(result.inconsistent == true && result.sameAnswers == 0, "always \(position), seed \(seed)")
                // Every repeat is the pair it repeats, reversed.
                for choice in result.choices where choice.stage == .repeat {
                    let original = result.choices[choice.repeatOf!]
                    #expect(choice.firstHz == original.secondHz && choice.secondHz == original.firstHz)
                }
            }
            // The order no longer steers such a listener to one end of the range.
            #expect(matched.count > 3, "always \(position): matched only \(matched.sorted())")
        }
    }

    @Test func matchesAtTheRangeEndsAreFlagged() throws {
        for (target, limit) in [(20_000.0, PitchMatch.Limit.upper), (17_000, .upper), (400, .lower), (100, .lower)] {
            let result = try SimulatedListener(targetHz: target).run(try PitchMatch(seed: 3))
            #expect(result.atLimit == limit, "target \(target) Hz: matched \(result.frequencyHz) Hz, atLimit \(String(describing: result.atLimit))")
            #expect(result.frequencyHz == (limit == .upper ? 16_000 : 500))
            #expect(result.warnings.contains { $0.contains("\(limit.rawValue) limit") })
        }
        #expect(throws: ShadesError.self) { try PitchMatch(lowestHz: 10, highestHz: 800) }
        #expect(throws: ShadesError.self) { try PitchMatch(lowestHz: 500, highestHz: 30_000) }
    }

    func order(_ stage: PitchMatch.Stage) -> Int { [.octave: 0, .wholeTone: 1, .octaveCheck: 2, .repeat: 3][stage]! }
}
