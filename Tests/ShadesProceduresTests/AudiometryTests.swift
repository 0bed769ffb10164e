import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// Pure-tone audiometry (issue 22; modified Hughson–Westlake, ASHA 2005) driven by simulated listeners of known
/// thresholds: the thresholds found lie within 5 dB of the listener's at every frequency, also with false
/// alarms and misses; every step follows the rule (10 dB down after a response, 5 dB up after a miss); the
/// threshold has responses on at least 2 ascending presentations and half of them; the limits end a search.
@Suite struct AudiometryTests {
    /// The issue's audiogram (dB HL).
    static let audiogram: [(frequencyHz: Double, thresholdDB: Double)] =
        [(250, 10), (500, 15), (1000, 20), (2000, 35), (4000, 50), (8000, 60)]
    /// The audiogram's frequencies (on the 5 dB grid of the search: within 5 dB is the method's resolution) and
    /// two between them, where the listener's threshold is interpolated off the grid.
    static let frequencies: [Double] = [250, 500, 1000, 2000, 4000, 8000]
    static let between: [Double] = [3000, 6000]

    func run(falseAlarms: Double, misses: Double, seed: UInt64, thresholds: [(frequencyHz: Double, thresholdDB: Double)] = audiogram,
             frequencies: [Double] = frequencies) throws -> (Audiogram, SimulatedAudiometryListener) {
        var listener = try SimulatedAudiometryListener(thresholds: thresholds, falseAlarmProbability: falseAlarms,
                                                       missProbability: misses, seed: seed)
        let procedure = try Audiometry(ears: [.right, .left], frequenciesHz: frequencies, scale: .hearingLevel)
        return (listener.run(procedure), listener)
    }

    /// Every threshold within 5 dB, with no false alarms and misses and with 5 % of each (25 seeds, two ears);
    /// with 10 % of each, at least 97 % within 5 dB and none beyond 10 dB (a false alarm on two ascending
    /// presentations can end a search 5 dB early, two misses late). Off the grid, within the grid step plus
    /// the listener's spread: 5 dB + 2 σ.
    @Test(arguments: [(0.0, 0.0), (0.05, 0.05), (0.1, 0.1)])
    func thresholdsLandWithin5dBOfTheListeners(falseAlarms: Double, misses: Double) throws {
        var errors: [Double] = [], between: [Double] = []
        for seed in UInt64(1)...25 {
            let (audiogram, listener) = try run(falseAlarms: falseAlarms, misses: misses, seed: seed,
                                                frequencies: Self.frequencies + Self.between)
            #expect(audiogram.scale == .hearingLevel)
            for ear in [Ears.left, .right] {
                let found = audiogram.thresholds(ear: ear)
                #expect(found.map(\.frequencyHz) == (Self.frequencies + Self.between).sorted(), "seed \(seed) \(ear): \(found)")
                for (f, threshold) in found {
                    let error = threshold - listener.thresholdDB(atHz: f)
                    if Self.between.contains(f) { between.append(error); continue }
                    errors.append(error)
                    #expect(abs(error) <= (falseAlarms > 0.05 ? 10 : 5),
                            "fa \(falseAlarms), misses \(misses), seed \(seed), \(ear) \(f) Hz: \(threshold) dB HL against \(listener.thresholdDB(atHz: f))")
                }
            }
        }
        let within = Double(errors.filter { abs($0) <= 5 }.count) / Double(errors.count)
        #expect(within >= (falseAlarms > 0.05 ? 0.97 : 1), "\(within * 100) % within 5 dB")
        if falseAlarms == 0 { #expect(between.allSatisfy { $0 >= -5 && $0 <= 5 + 2 * 2 }, "\(between)") }
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("audiometry: false alarms \(falseAlarms), misses \(misses): \(errors.count) thresholds, \(String(format: "%.1f", within * 100)) % within 5 dB, error mean \(String(format: "%+.2f", mean)) dB, from \(errors.min()!) to \(errors.max()!) dB; between the grid: from \(String(format: "%+.2f", between.min()!)) to \(String(format: "%+.2f", between.max()!)) dB")
    }

    @Test func everyStepFollowsTheRule() throws {
        let (audiogram, _) = try run(falseAlarms: 0.1, misses: 0.1, seed: 3)
        for threshold in (audiogram.left ?? []) + (audiogram.right ?? []) {
            let trials = threshold.trials
            #expect(trials.first?.levelDB == 30, "starts at 30 dB HL")
            let firstHeard = try #require(trials.firstIndex { $0.heard })
            // Familiarisation: up 20 dB, then 10 dB, until heard; never an ascending presentation.
            for i in 0..<firstHeard {
                #expect(trials[i + 1].levelDB - trials[i].levelDB == (i == 0 ? 20 : 10))
                #expect(!trials[i].ascending)
            }
            for i in firstHeard..<(trials.count - 1) {
                // Within the audiometer's range, −10 … 120 dB HL.
                let level = trials[i].levelDB, next = trials[i].heard ? max(-10, level - 10) : min(120, level + 5)
                #expect(trials[i + 1].levelDB == next, "\(threshold.frequencyHz) Hz trial \(i): \(trials[i]) then \(trials[i + 1])")
                #expect(trials[i + 1].ascending == !trials[i].heard)
            }
            // The threshold: ≥ 2 ascending responses there and on at least half its ascending presentations;
            // no lower level has that.
            let level = try #require(threshold.thresholdDB)
            func counts(_ l: Double) -> (Int, Int) {
                let a = trials.filter { $0.ascending && $0.levelDB == l }
                return (a.count, a.filter(\.heard).count)
            }
            let (presented, heard) = counts(level)
            #expect(heard >= 2 && 2 * heard >= presented, "\(threshold.frequencyHz) Hz: \(heard) of \(presented) at \(level)")
            for lower in Set(trials.map(\.levelDB)) where lower < level {
                let (p, h) = counts(lower)
                #expect(!(h >= 2 && 2 * h >= p), "\(threshold.frequencyHz) Hz: \(lower) dB met the rule before \(level)")
            }
        }
    }

    /// The progress a screen shows counts the frequencies of the ear tested (issue 30: "tone 1 of 18" counted
    /// ears × frequencies), in the order tested: 1 kHz first, then upwards, then downwards.
    @Test func progressCountsTheFrequenciesOfTheEarTested() throws {
        var procedure = try Audiometry(ears: [.right, .left], frequenciesHz: [500, 1000, 2000], scale: .fullScale)
        var shown: [String] = []
        while let presentation = procedure.presentation {
            let (ear, frequency, count) = procedure.progress
            let line = "\(ear.rawValue) \(formatNumber(presentation.frequencyHz)) Hz \(frequency) of \(count)"
            if shown.last != line { shown.append(line) }
            procedure.answer(heard: presentation.levelDB >= -60)
        }
        #expect(shown == ["right 1000 Hz 1 of 3", "right 2000 Hz 2 of 3", "right 500 Hz 3 of 3",
                          "left 1000 Hz 1 of 3", "left 2000 Hz 2 of 3", "left 500 Hz 3 of 3"])
    }

    @Test func limitsEndASearch() throws {
        let (audiogram, _) = try run(falseAlarms: 0, misses: 0, seed: 1, thresholds: [(1000, 130), (4000, -30)], frequencies: [1000, 4000])
        let right = try #require(audiogram.right)
        #expect(right[0].thresholdDB == nil && right[0].note?.contains("no response at the highest level, 120 dB HL") == true)
        #expect(right[1].thresholdDB == -10 && right[1].note?.contains("lowest level") == true)
        #expect(right.allSatisfy { $0.trials.count <= Audiometry.maximumTrials })
        // A listener who answers at random ends every search within the trial limit.
        let (random, _) = try run(falseAlarms: 0.5, misses: 0.5, seed: 2)
        #expect(((random.left ?? []) + (random.right ?? [])).allSatisfy { $0.trials.count <= Audiometry.maximumTrials })
    }

    @Test func calibrationGivesTheToneLevelsAndLimits() throws {
        let calibration = AudiometerCalibration(headphones: "test", referenceDBFS: [1000: -90, 4000: -30])
        var procedure = try Audiometry(ears: [.left], frequenciesHz: [4000, 1000], scale: .hearingLevel, calibration: calibration)
        let first = try #require(procedure.presentation)
        #expect(first.frequencyHz == 1000 && first.ear == .left && first.levelDB == 30 && first.levelDBFS == -60)
        // At 4 kHz this system reaches only 24 dB HL (−6 dBFS): the search starts and stops there.
        var listener = try SimulatedAudiometryListener(thresholds: [(1000, 20), (4000, 80)])
        while let p = procedure.presentation {
            if p.frequencyHz == 4000 { #expect(p.levelDB <= 24 && p.levelDBFS! <= -6) }
            procedure.answer(heard: listener.hears(p))
        }
        let left = try #require(procedure.result?.left)
        #expect(left[0].thresholdDB == 20 && left[1].thresholdDB == nil && left[1].note?.contains("24 dB HL") == true)
        #expect(throws: ShadesError.self) { try Audiometry(ears: [.left], frequenciesHz: [2000], scale: .hearingLevel, calibration: calibration) }
        #expect(throws: ShadesError.self) { try Audiometry(ears: [.both], frequenciesHz: [1000], scale: .fullScale) }
        #expect(throws: ShadesError.self) { try Audiometry(ears: [.left], frequenciesHz: [50], scale: .fullScale) }
        // Without a calibration: dB re full scale, the tone played at the level itself.
        let plain = try Audiometry(ears: [.right], frequenciesHz: [1000], scale: .fullScale)
        #expect(plain.presentation?.levelDBFS == -40 && plain.presentation?.levelDB == -40)
    }

    @Test func interpolationIsLinearInLogFrequency() throws {
        let audiogram = Audiogram(scale: .hearingLevel, left: nil, right: [
            .init(frequencyHz: 1000, thresholdDB: 20), .init(frequencyHz: 4000, thresholdDB: 40), .init(frequencyHz: 8000, thresholdDB: nil)])
        #expect(try audiogram.thresholdDB(atHz: 2000, ear: .right) == 30)
        #expect(try audiogram.thresholdDB(atHz: 500, ear: .right) == 20)
        #expect(try audiogram.thresholdDB(atHz: 8000, ear: .right) == 40)
        #expect(throws: ShadesError.self) { try audiogram.thresholdDB(atHz: 1000, ear: .left) }
    }
}
