import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ToneTests {
    /// Least-squares amplitude of sin/cos at `frequency` and the residual (THD+N) in dB re the tone.
    func fit(_ x: [Float], frequency: Double, rate: Double, startFrame: Int = 0) -> (phase: Double, thdnDB: Double) {
        var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
        for (i, v) in x.enumerated() {
            let angle = 2 * Double.pi * frequency * Double(startFrame + i) / rate
            let s = sin(angle), c = cos(angle)
            ss += s * s; cc += c * c; sc += s * c; xs += Double(v) * s; xc += Double(v) * c
        }
        let det = ss * cc - sc * sc
        let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
        var residual = 0.0, signal = 0.0
        for (i, v) in x.enumerated() {
            let angle = 2 * Double.pi * frequency * Double(startFrame + i) / rate
            let model = a * sin(angle) + b * cos(angle)
            residual += (Double(v) - model) * (Double(v) - model)
            signal += model * model
        }
        return (atan2(b, a), 10 * log10(residual / signal))
    }

    /// Measured with the analysis API (ToneAnalysis): frequency and THD+N of one second.
    @Test func thdPlusNoiseIsBelowMinus130dB() throws {
        for (frequency, rate) in [(997.0, 48_000.0), (6_000.0, 44_100.0), (15_123.4, 96_000.0)] {
            let x = try ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono, levelDBFS: -20)
                .renderBuffer(frameCount: Int(rate)).samples(channel: 0)
            let estimate = try x.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
            #expect(estimate.thdPlusNoiseDB <= -130, "\(frequency) Hz at \(rate): THD+N \(estimate.thdPlusNoiseDB) dB")
            #expect(abs(estimate.frequencyHz - frequency) < 1e-6)
            #expect(abs(estimate.levelDBFS + 20) < 0.001)
        }
    }

    @Test func aOneHourToneKeepsItsFrequencyTo1mHz() throws {
        let rate = 48_000.0, frequency = 6_000.123
        let source = try ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono)
        let second = Int(rate)
        let first = source.renderBuffer(frameCount: second).samples(channel: 0)
        let skip = AudioBuffer(channelCount: 1, frameCapacity: second * 60)
        for _ in 0..<59 { skip.withBlock { source.render(into: $0) } }  // up to 59 min 1 s
        skip.withBlock(frames: 0..<second * 58) { source.render(into: $0) }
        let lastFrame = second * (1 + 59 * 60 + 58)
        let last = source.renderBuffer(frameCount: second).samples(channel: 0)
        // Phase of each second against the ideal tone: a frequency error δ drifts the phase by 2π·δ·t.
        let p0 = fit(first, frequency: frequency, rate: rate).phase
        let p1 = fit(last, frequency: frequency, rate: rate, startFrame: lastFrame).phase
        let elapsed = Double(lastFrame) / rate
        let frequencyError = abs(p1 - p0) / (2 * Double.pi * elapsed)
        #expect(elapsed > 3590)
        #expect(frequencyError < 0.001, "frequency error \(frequencyError) Hz after \(elapsed) s")
    }

    @Test func loopFrequencyHasWholeCycles() {
        let f = ToneSource.loopFrequency(near: 6_000.5, frameCount: 48_000 * 7 / 3, sampleRate: 48_000)
        let cycles = f * Double(48_000 * 7 / 3) / 48_000
        #expect(abs(cycles - cycles.rounded()) < 1e-9)
        #expect(abs(f - 6_000.5) <= 0.5 * 48_000 / Double(48_000 * 7 / 3))
    }

    @Test func levelIsRMS() throws {
        let x = try ToneSource(frequencyHz: 1_000, sampleRate: 48_000, layout: .mono, levelDBFS: -20)
            .renderBuffer(frameCount: 48_000)
        #expect(abs(x.withSamples(channel: 0) { SignalLevel.rmsDBFS($0) } + 20) < 0.001)
        #expect(throws: ShadesError.self) { try ToneSource(frequencyHz: 1000, sampleRate: 48_000, levelDBFS: -2) }
    }
}
