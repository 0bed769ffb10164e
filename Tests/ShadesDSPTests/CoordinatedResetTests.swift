import Testing
import ShadesAnalysis
import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Acoustic coordinated reset (Tass et al. 2012; timing after Adamchic et al. 2017, Fig. 1).
@Suite struct CoordinatedResetTests {
    let rate = 48_000.0
    let pattern = CoordinatedResetPattern(tinnitusFrequencyHz: 4000)

    func source(seed: UInt64 = 3, pattern: CoordinatedResetPattern? = nil, startFrame: Int = 0) throws -> CoordinatedResetSource {
        try CoordinatedResetSource(pattern: pattern ?? self.pattern, sampleRate: rate, levelDBFS: -20, seed: seed, startFrame: startFrame)
    }

    /// The tone index (0 … 3) sounding in each slot of `x` (which starts at slot `firstSlot`), by fitting a
    /// sinusoid to the slot without its ramps; nil for a silent slot.
    func slotTones(_ x: [Float], source: CoordinatedResetSource, firstSlot: Int, slots: Int) throws -> [Int?] {
        let frequencies = pattern.toneFrequenciesHz
        let base = source.onsetFrame(slot: firstSlot)
        let ramp = Int(pattern.rampSeconds * rate)
        return try (firstSlot..<firstSlot + slots).map { k -> Int? in
            let range = source.onsetFrame(slot: k) - base + ramp..<source.onsetFrame(slot: k + 1) - base - ramp
            let slot = Array(x[range])
            if slot.allSatisfy({ $0 == 0 }) { return nil }
            let estimate = try slot.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
            let nearest = frequencies.indices.min { abs(frequencies[$0] - estimate.frequencyHz) < abs(frequencies[$1] - estimate.frequencyHz) }!
            #expect(abs(estimate.frequencyHz - frequencies[nearest]) < 0.01, "slot \(k): \(estimate.frequencyHz) Hz")
            return nearest
        }
    }

    @Test func everyOnCycleHoldsEachToneOnceAndOffCyclesAreDigitalSilence() throws {
        let cr = try source()
        let cycles = 10  // two whole periods of 3 on + 2 off
        let x = cr.renderBuffer(frameCount: cr.onsetFrame(slot: 4 * cycles)).samples(channel: 0)
        let tones = try slotTones(x, source: cr, firstSlot: 0, slots: 4 * cycles)
        for c in 0..<cycles {
            let cycle = Array(tones[4 * c..<4 * c + 4])
            if c % 5 < 3 {
                #expect(cycle.compactMap { $0 }.sorted() == [0, 1, 2, 3], "cycle \(c): \(cycle)")
                #expect(cycle.map { $0 ?? -1 } == cr.toneOrder(cycle: c))
            } else {
                let silent = x[cr.onsetFrame(slot: 4 * c)..<cr.onsetFrame(slot: 4 * c + 4)]
                #expect(silent.allSatisfy { $0 == 0 }, "cycle \(c) is not digital silence")
                #expect(cr.toneOrder(cycle: c) == nil)
            }
        }
        // Slots are 1/6 s: 8,000 frames at 48 kHz.
        #expect(cr.onsetFrame(slot: 1) == 8_000)
    }

    @Test func orderFollowsTheSeed() throws {
        let orders = { (seed: UInt64) in try (0..<30).compactMap { try self.source(seed: seed).toneOrder(cycle: $0) } }
        #expect(try orders(3) == orders(3))
        #expect(try orders(3) != orders(4))
        // Over 18 on-cycles the orders vary (not one fixed permutation).
        #expect(Set(try orders(3)).count > 5)
        // And the audio follows the order: the same seed gives the same samples, another seed others.
        let a = try source(seed: 3).renderBuffer(frameCount: 32_000).samples(channel: 0)
        let b = try source(seed: 3).renderBuffer(frameCount: 32_000).samples(channel: 0)
        let c = try source(seed: 4).renderBuffer(frameCount: 32_000).samples(channel: 0)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func onsetsAreFrameExactAfterOneHour() throws {
        // Slots around hour 1 (a stream starting there: every sample is computed from its absolute frame).
        let short = CoordinatedResetPattern(tinnitusFrequencyHz: 4000, toneSeconds: 0.1)
        for (p, rateHere) in [(pattern, 48_000.0), (short, 44_100.0)] {
            let firstSlot = Int(3600 * 1.5 * 4)  // the slot starting at 1 h
            let probe = try CoordinatedResetSource(pattern: p, sampleRate: rateHere, seed: 3)
            let start = probe.onsetFrame(slot: firstSlot) - 100
            #expect(probe.onsetFrame(slot: firstSlot) == 3600 * Int(rateHere))
            let cr = try CoordinatedResetSource(pattern: p, sampleRate: rateHere, seed: 3, startFrame: start)
            let x = cr.renderBuffer(frameCount: probe.onsetFrame(slot: firstSlot + 20) - start).samples(channel: 0)
            for k in firstSlot..<firstSlot + 20 {
                let onset = Int((Double(k) * rateHere / 6).rounded())
                #expect(cr.onsetFrame(slot: k) == onset)
                guard cr.toneOrder(cycle: k / 4) != nil else { continue }
                // The ramp is 0 at the onset frame: the first non-zero sample is the next one; before it, the
                // previous tone has ended (its fall reached 0 at this onset) or the slot follows silence.
                let i = onset - start
                #expect(x[i] == 0)
                #expect(x[i + 1] != 0, "slot \(k)")
                let previousSilent = p.toneSeconds != nil || k % 4 == 0 && cr.toneOrder(cycle: k / 4 - 1) == nil
                if previousSilent { #expect(x[i - 20..<i].allSatisfy { $0 == 0 }, "slot \(k)") }
            }
        }
    }

    @Test func aStreamStartedLaterMatchesTheSameFramesFromZero() throws {
        let whole = try source().renderBuffer(frameCount: 50_000).samples(channel: 0)
        let later = try source(startFrame: 12_345).renderBuffer(frameCount: 50_000 - 12_345).samples(channel: 0)
        #expect(Array(whole[12_345...]) == later)
    }

    @Test func blockSizesDoNotChangeTheSamples() throws {
        let frames = 100_000
        let whole = try source().renderBuffer(frameCount: frames).samples(channel: 0)
        for (maxBlock, seed) in [(1, 1), (37, 2), (4_096, 3)] as [(Int, UInt64)] {
            let blocks = renderInRandomBlocks(try source(), frames: frames, maxBlock: maxBlock, seed: seed).samples(channel: 0)
            #expect(blocks == whole, "blocks up to \(maxBlock)")
        }
    }

    @Test func levelIsTheRMSOverWholePeriodsAndToneGainsApply() throws {
        let gains = CoordinatedResetPattern(tinnitusFrequencyHz: 4000, toneGainsDB: [0, -6, 3, 0])
        for p in [pattern, gains] {
            let cr = try source(pattern: p)
            let x = cr.renderBuffer(frameCount: cr.onsetFrame(slot: 40)).samples(channel: 0)  // two periods
            let rms = x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }
            #expect(abs(rms + 20) < 0.01, "RMS \(rms) dBFS")
        }
        let cr = try source(pattern: gains)
        #expect(abs(Decibels.fromAmplitude(cr.toneAmplitudes[1] / cr.toneAmplitudes[0]) + 6) < 1e-9)
        #expect(abs(Decibels.fromAmplitude(cr.toneAmplitudes[2] / cr.toneAmplitudes[0]) - 3) < 1e-9)
    }

    @Test func logSpacedTonesAreEquallySpacedInLogFrequency() {
        let f = CoordinatedResetPattern(tinnitusFrequencyHz: 1000, toneSet: .logSpaced).toneFrequenciesHz
        #expect(abs(f[0] - 766) < 1e-9 && abs(f[3] - 1400) < 1e-9)
        let steps = (1..<4).map { log2(f[$0] / f[$0 - 1]) }
        #expect(steps.allSatisfy { abs($0 - steps[0]) < 1e-12 })
    }

    @Test func badParametersNameTheParameter() {
        let cases: [(CoordinatedResetPattern, ParameterID)] = [
            (CoordinatedResetPattern(tinnitusFrequencyHz: 20_000), .frequency),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, toneSeconds: 0.2), .toneLength),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, rampSeconds: 0.1), .toneRamp),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, cycleRateHz: 0), .cycleRate),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, onCycles: 0), .onCycles),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, offCycles: -1), .offCycles),
            (CoordinatedResetPattern(tinnitusFrequencyHz: 4000, toneGainsDB: [0, 0, 0]), .toneGains),
        ]
        for (p, parameter) in cases {
            #expect(throws: ShadesError.self) { try p.validate(sampleRate: 48_000) }
            do { try p.validate(sampleRate: 48_000) } catch { #expect(error.parameter == parameter) }
        }
    }
}
