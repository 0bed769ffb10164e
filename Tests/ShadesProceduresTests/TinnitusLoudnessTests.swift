import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// Tinnitus loudness matching and the minimum masking level (issue 22), driven by simulated tinnitus: the loudness
/// lands within half a step of the simulated one at every level tried, in steps of 1 or 2 dB; the MML is the first
/// level of the 2 dB ladder at or above the simulated one; a listener who never says "equal" ends at the mean of
/// the reversals; bad settings are refused.
@Suite struct TinnitusLoudnessTests {
    @Test(arguments: [1.0, 2.0])
    func loudnessLandsWithinHalfAStep(stepDB: Double) throws {
        for threshold in [-95.0, -80, -62.5, -30] {
            for sl in stride(from: -5.0, through: 45, by: 0.7) {
                let target = threshold + sl
                let result = SimulatedTinnitus(loudnessDBFS: target).run(try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: threshold, stepDB: stepDB))
                if let matched = result.sensationLevelDB, let level = result.levelDBFS {
                    #expect(abs(matched - sl) <= stepDB / 2 + 1e-9, "threshold \(threshold), SL \(sl): matched \(matched)")
                    #expect(level - result.thresholdDBFS == matched)
                } else {
                    // No match only when the tinnitus is louder than the highest tone, by more than half a step,
                    // and the last answer was "softer" at that level.
                    #expect(target > LoudnessMatch.highestLevelDBFS + stepDB / 2, "threshold \(threshold), SL \(sl): no match")
                    #expect(result.trials.last?.levelDBFS == LoudnessMatch.highestLevelDBFS && result.trials.last?.answer == .softer)
                }
                #expect(result.trials.first?.levelDBFS == min(-6, threshold + 10))
                for (a, b) in zip(result.trials, result.trials.dropFirst()) {
                    let moved = b.levelDBFS - a.levelDBFS
                    #expect(moved == (a.answer == .softer ? stepDB : -stepDB) || b.levelDBFS == -6 || b.levelDBFS == threshold - 10)
                }
            }
        }
    }

    /// A tinnitus louder than the highest tone ends without a match; one "louder" before keeps the staircase going.
    @Test func aTinnitusLouderThanTheHighestToneHasNoMatch() throws {
        var match = try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: -20, stepDB: 2)
        while match.levelDBFS != nil { match.answer(.softer) }
        let none = try #require(match.result)
        #expect(none.levelDBFS == nil && none.sensationLevelDB == nil)
        #expect(none.trials.map(\.levelDBFS) == [-10, -8, -6] && none.trials.allSatisfy { $0.answer == .softer })

        var wavering = try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: -20, stepDB: 2)
        wavering.answer(.softer)   // −10 → −8
        wavering.answer(.softer)   // −8 → −6
        wavering.answer(.louder)   // −6 → −8
        wavering.answer(.softer)   // −8 → −6
        wavering.answer(.softer)   // at −6 again: after a "louder", the staircase goes on
        #expect(wavering.levelDBFS == -6)
    }

    @Test func aListenerWhoNeverSaysEqualEndsAtTheMeanOfTheReversals() throws {
        var match = try LoudnessMatch(frequencyHz: 4_000, thresholdDBFS: -70, stepDB: 2)
        // Softer below −61 dBFS, louder from there: the tone swings between −62 and −60.
        while let level = match.levelDBFS { match.answer(level < -61 ? .softer : .louder) }
        let result = try #require(match.result)
        #expect(result.levelDBFS == -61 && result.trials.count < 12, "\(String(describing: result.levelDBFS)) after \(result.trials.count)")
        #expect(throws: ShadesError.self) { try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: -80, stepDB: 3) }
        #expect(throws: ShadesError.self) { try LoudnessMatch(frequencyHz: 20_000, thresholdDBFS: -80) }
        #expect(throws: ShadesError.self) { try LoudnessMatch(frequencyHz: 6_000, thresholdDBFS: 0) }
    }

    @Test func mmlIsTheFirstLevelThatCoversTheTinnitus() throws {
        for mml in stride(from: -80.0, through: -20, by: 0.9) {
            let result = SimulatedTinnitus(maskingLevelDBFS: mml).run(try MinimumMaskingLevel(frequencyHz: 6_000, widthOctaves: 1, thresholdDBFS: -85))
            let level = try #require(result.levelDBFS)
            #expect(level >= mml && level < mml + 2, "MML \(mml): found \(level)")
            #expect(result.sensationLevelDB == level + 85)
            #expect(result.trials.first?.levelDBFS == -85 && result.trials.last?.tinnitusHeard == false)
            #expect(zip(result.trials, result.trials.dropFirst()).allSatisfy { $1.levelDBFS - $0.levelDBFS == 2 && $0.tinnitusHeard })
        }
        let loud = SimulatedTinnitus(maskingLevelDBFS: 0).run(try MinimumMaskingLevel(frequencyHz: 6_000, startDBFS: -30))
        #expect(loud.levelDBFS == nil && loud.trials.last?.levelDBFS == MinimumMaskingLevel.highestLevelDBFS)
        #expect(throws: ShadesError.self) { try MinimumMaskingLevel(frequencyHz: 6_000, widthOctaves: 5) }
        #expect(throws: ShadesError.self) { try MinimumMaskingLevel(frequencyHz: 6_000, startDBFS: 0) }
    }

    @Test func audiogramsGiveThresholdsInDBFS() throws {
        let calibration = AudiometerCalibration(referenceDBFS: [4_000: -100, 8_000: -90])
        let hl = Audiogram(scale: .hearingLevel, calibration: calibration, left: nil,
                           right: [.init(frequencyHz: 4_000, thresholdDB: 20), .init(frequencyHz: 8_000, thresholdDB: 40)])
        // 4 kHz: 20 dB HL at −100 dBFS; 8 kHz: 40 at −90; 6 kHz between them in log frequency.
        #expect(try hl.thresholdDBFS(atHz: 4_000, ear: .right) == -80)
        let t = log(1.5) / log(2.0)
        #expect(abs(try hl.thresholdDBFS(atHz: 6_000, ear: .right) - (-80 + t * 30)) < 1e-9)
        let simulated = Audiogram(scale: .hearingLevel, left: nil, right: [.init(frequencyHz: 4_000, thresholdDB: 20)])
        #expect(throws: ShadesError.self) { try simulated.thresholdDBFS(atHz: 4_000, ear: .right) }
        let plain = Audiogram(scale: .fullScale, left: [.init(frequencyHz: 4_000, thresholdDB: -75)], right: nil)
        #expect(try plain.thresholdDBFS(atHz: 6_000, ear: .left) == -75)
    }
}
