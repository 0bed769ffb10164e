import Testing
import Foundation
import ShadesDSP
import ShadesRender

/// The pitch-matching procedure (issue 14; Henry et al. 2001), driven by simulated listeners: one who picks
/// the tone closer in log frequency to a hidden target lands within one whole tone of it for targets from
/// 500 Hz to 16 kHz and is never flagged; one who hears the tinnitus an octave low while matching is
/// flagged by the octave-confusion check.
@Suite struct PitchMatchTests {
    static let targets: [Double] = (0...60).map { 500 * pow(32, Double($0) / 60) }   // 500 Hz … 16 kHz

    @Test func idealListenerLandsWithinAWholeTone() throws {
        for target in Self.targets {
            let result = try SimulatedListener(targetHz: target).run(try PitchMatch())
            let error = abs(log2(result.frequency / target))
            #expect(error <= 1.0 / 6 + 1e-9, "target \(target) Hz: matched \(result.frequency) Hz (\(error * 6) whole tones off)")
            #expect(!result.octaveConfusion, "target \(target) Hz")
            #expect(result.rangeLow < result.frequency && result.frequency < result.rangeHigh)
            // Every frequency heard was balanced first; every choice is recorded, the stages in order.
            let heard = Set(result.choices.flatMap { [$0.firstHz, $0.secondHz] })
            #expect(heard.isSubset(of: Set(result.loudness.map(\.frequencyHz))))
            let stages = result.choices.map(\.stage)
            #expect(stages.first == .octave && stages.last == .octaveCheck)
            #expect(stages == stages.sorted { order($0) < order($1) })
        }
    }

    @Test func octaveConfusionIsFlagged() throws {
        for target in Self.targets where target >= 1_000 {
            let result = try SimulatedListener(targetHz: target, octaveConfusion: true).run(try PitchMatch())
            #expect(result.octaveConfusion, "target \(target) Hz matched at \(result.frequency) Hz")
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

    func order(_ stage: PitchMatch.Stage) -> Int { [.octave: 0, .wholeTone: 1, .octaveCheck: 2][stage]! }
}
