import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Constant samples in every channel: a modifier's output is then its gain curve.
final class ConstantSource: AudioSource {
    let sampleRate: Double
    let channelCount: Int
    let value: Float

    init(sampleRate: Double = 48_000, channelCount: Int = 1, value: Float = 1) {
        (self.sampleRate, self.channelCount, self.value) = (sampleRate, channelCount, value)
    }

    func prepareForRealTime(_ preparation: RealTimePreparation) {}

    func render(into block: AudioBlock) {
        for c in 0..<block.channelCount { block.channel(c).update(repeating: value) }
    }
}

/// The parameter named by the error `body` throws, or nil if it does not throw.
private func rejectedParameter(_ body: () throws -> Void) -> ParameterID? {
    do { try body() } catch { return (error as? ShadesError)?.parameter ?? ParameterID(rawValue: "\(error)") }
    return nil
}

/// Raised-cosine ramp value `x` frames into `n` (the spec's formula, written out independently).
private func ramp(_ x: Int, _ n: Int) -> Double { 0.5 - 0.5 * cos(Double.pi * Double(x) / Double(n)) }

/// Fades, pulses and amplitude modulation. Spec: the AM gain curve is the formula to Float precision at
/// any time; a 3-minute AM render demodulates to the asked rate within 0.01 Hz and the asked depth within
/// ±1 % of itself (relative: ±0.01·m), noise-carrier scatter included; RMS kept; pulse and fade shapes
/// exact to the frame.
@Suite struct ModifierTests {
    // MARK: Amplitude modulation

    /// The Double formula (1 + m·sin(2π·fm·n/rate + φ))·k, written independently of the source.
    static func amGain(_ n: Int, rate: Double, fm: Double, m: Double, phase: Double, keep: AmplitudeModulationLevel) -> Double {
        let k = keep == .rms ? 1 / (1 + m * m / 2).squareRoot() : 1 / (1 + m)
        return k * (1 + m * sin(2 * Double.pi * fm * Double(n) / rate + phase))
    }

    @Test func amGainCurveIsTheFormulaToFloatPrecisionAtStartAndAfterAnHour() throws {
        let cases: [(rate: Double, fm: Double, m: Double, phase: Double, keep: AmplitudeModulationLevel)] = [
            (48_000, 10, 1, 0, .rms), (44_100, 40, 0.5, 1, .peak), (48_000, 0.5, 0.3, -2, .rms), (96_000, 99.7, 1, 3, .peak),
        ]
        var worst = 0.0
        for (rate, fm, m, phase, keep) in cases {
            let am = try AmplitudeModulatedSource(carrier: ConstantSource(sampleRate: rate, channelCount: 2),
                                                  rateHz: fm, depth: m, startPhase: phase, keep: keep)
            let x = renderInRandomBlocks(am, frames: Int(rate), maxBlock: 3000, seed: 4)
            let peak = (1 + m) * AmplitudeModulatedSource.levelFactor(depth: m, keep: keep)
            for c in 0..<2 {
                let samples = x.samples(channel: c)
                for n in samples.indices {
                    let expected = Self.amGain(n, rate: rate, fm: fm, m: m, phase: phase, keep: keep)
                    worst = max(worst, abs(Double(samples[n]) - expected) / peak)
                    if n % 997 == 0 { #expect(abs(am.gain(atFrame: n) - expected) < 1e-12) }
                }
            }
        }
        #expect(worst < 1e-6, "largest error \(worst) of the peak gain")

        // One hour later (mono, 48 kHz, 10.3 Hz): still the formula, no drift.
        let rate = 48_000.0, fm = 10.3
        let am = try AmplitudeModulatedSource(carrier: ConstantSource(sampleRate: rate), rateHz: fm, depth: 0.8, startPhase: 0.4)
        let hour = Int(rate) * 3600
        let skip = AudioBuffer(channelCount: 1, frameCapacity: 1 << 16, zeroed: false)
        var done = 0
        while done < hour {
            let n = min(1 << 16, hour - done)
            skip.withBlock(frames: 0..<n) { am.render(into: $0) }
            done += n
        }
        let later = am.renderBuffer(frameCount: 10_000).samples(channel: 0)
        var worstLater = 0.0
        for (i, v) in later.enumerated() {
            let expected = Self.amGain(hour + i, rate: rate, fm: fm, m: 0.8, phase: 0.4, keep: .rms)
            worstLater = max(worstLater, abs(Double(v) - expected))
        }
        #expect(worstLater < 1e-6, "after an hour: largest error \(worstLater)")
    }

    static let demodulationCases: [(name: String, fm: Double, m: Double, phase: Double)] = [
        ("pink noise", 10, 1, 0), ("1 kHz tone", 40, 0.5, 1), ("white noise", 10, 0.3, 0),
    ]

    @Test(arguments: 0..<demodulationCases.count)
    func threeMinuteRenderDemodulatesToTheAskedRateAndDepth(index: Int) throws {
        let (name, fm, m, phase) = Self.demodulationCases[index]
        let rate = 48_000.0
        let carrier: any AudioSource = switch index {
        case 0: try NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, seed: 17)
        case 1: try ToneSource(frequencyHz: 1_000, sampleRate: rate, layout: .mono)
        default: try NoiseSource(colour: .white, sampleRate: rate, layout: .mono, seed: 18)
        }
        let am = try AmplitudeModulatedSource(carrier: carrier, rateHz: fm, depth: m, startPhase: phase)
        let x = am.renderBuffer(frameCount: Int(rate) * 180)
        let found = try x.withSamples(channel: 0) { try ModulationAnalysis.estimate($0, sampleRate: rate) }
        #expect(abs(found.rateHz - fm) < 0.01, "\(name): rate \(found.rateHz) Hz for \(fm) Hz")
        #expect(abs(found.depth - m) <= 0.01 * m, "\(name): depth \(found.depth) for \(m)")
        #expect(abs(remainder(found.phase - phase, 2 * Double.pi)) < 0.01, "\(name): phase \(found.phase) for \(phase)")
    }

    @Test func rmsIsKeptAndPeakModePeaksAtOne() throws {
        let rate = 48_000.0, frames = Int(rate) * 300
        // Noise: same seed with and without AM; 3,000 whole cycles, so only the noise's own scatter is left:
        // its power near the modulation's 10 and 20 Hz moves the difference by about 0.012 dB (one standard
        // deviation over 5 minutes, from pink noise's spectrum), so 0.05 dB is four of them.
        let plain = try NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, seed: 5).renderBuffer(frameCount: frames)
        let modulated = try AmplitudeModulatedSource(
            carrier: NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, seed: 5), rateHz: 10, depth: 1)
            .renderBuffer(frameCount: frames)
        let noiseDifference = modulated.withSamples(channel: 0) { SignalLevel.rmsDBFS($0) }
            - plain.withSamples(channel: 0) { SignalLevel.rmsDBFS($0) }
        #expect(abs(noiseDifference) < 0.05, "AM pink noise RMS differs by \(noiseDifference) dB")
        // Tone: exact (whole cycles of carrier and modulation in one second).
        let tone = try AmplitudeModulatedSource(carrier: ToneSource(frequencyHz: 1_000, sampleRate: rate, layout: .mono),
                                                rateHz: 40, depth: 0.5).renderBuffer(frameCount: Int(rate))
        #expect(abs(tone.withSamples(channel: 0) { SignalLevel.rmsDBFS($0) } + 20) < 0.001)
        // Peak mode: the gain curve's largest value is 1, and a tone's peak stays at its own.
        for m in [1.0, 0.5, 0.1] {
            let am = try AmplitudeModulatedSource(carrier: ConstantSource(), rateHz: 10, depth: m, keep: .peak)
            let peak = am.renderBuffer(frameCount: 4_800).withSamples(channel: 0) { SignalLevel.peak($0) }
            #expect(abs(Double(peak) - 1) < 1e-6, "depth \(m): peak gain \(peak)")
            #expect((0..<4_800).allSatisfy { am.gain(atFrame: $0) <= 1 + 1e-15 })
        }
        let peakTone = try AmplitudeModulatedSource(carrier: ToneSource(frequencyHz: 1_000, sampleRate: rate, layout: .mono),
                                                    rateHz: 10, depth: 1, keep: .peak).renderBuffer(frameCount: Int(rate))
        let tonePeak = Decibels.amplitude(-20) * 2.0.squareRoot()
        #expect(abs(Double(peakTone.withSamples(channel: 0) { SignalLevel.peak($0) }) / tonePeak - 1) < 1e-4)
    }

    @Test func loopRateHasWholeCycles() throws {
        for (asked, frames, rate) in [(10.0, 48_000 * 7 / 3, 48_000.0), (40.0, 44_100 * 10 + 17, 44_100), (0.5, 4_800, 48_000)] {
            let loop = AmplitudeModulatedSource.loopRate(near: asked, frameCount: frames, sampleRate: rate)
            let cycles = loop * Double(frames) / rate
            #expect(abs(cycles - cycles.rounded()) < 1e-9 && cycles.rounded() >= 1)
            #expect(abs(loop - asked) <= max(0.5 * rate / Double(frames), rate / Double(frames) - asked) + 1e-12)
            if AmplitudeModulatedSource.allowedRateHz.contains(loop) {
                let am = try AmplitudeModulatedSource(carrier: ConstantSource(sampleRate: rate), rateHz: loop, startPhase: 0.3)
                // The gain curve repeats after one loop: seamless.
                #expect((0..<100).allSatisfy { abs(am.gain(atFrame: $0 * 37) - am.gain(atFrame: $0 * 37 + frames)) < 1e-9 })
            }
        }
        // A loop too short for one cycle at the asked rate gets exactly one.
        #expect(AmplitudeModulatedSource.loopRate(near: 0.5, frameCount: 4_800, sampleRate: 48_000) == 10)
    }

    // MARK: Fades

    @Test func fadesAreRaisedCosinesWithSilenceOutside() throws {
        let total = 48_000
        let faded = try FadedSource(source: ConstantSource(channelCount: 2), fadeInSeconds: 0.05, fadeOutSeconds: 0.02, totalFrames: total)
        #expect(faded.fadeInFrames == 2_400 && faded.fadeOutFrames == 960)
        let x = renderInRandomBlocks(faded, frames: total + 5_000, maxBlock: 700, seed: 9)
        for c in 0..<2 {
            let g = x.samples(channel: c)
            for n in [0, 1, 600, 1_200, 1_800, 2_399] { #expect(abs(Double(g[n]) - ramp(n, 2_400)) < 1e-7, "fade-in frame \(n)") }
            #expect(g[0] == 0 && g[1_200] == 0.5)
            #expect(g[2_400..<(total - 960 + 1)].allSatisfy { $0 == 1 })
            for k in [1, 2, 240, 480, 720, 959] { #expect(abs(Double(g[total - k]) - ramp(k, 960)) < 1e-7, "fade-out frame T−\(k)") }
            #expect(g[total - 480] == 0.5)
            #expect(g[total...].allSatisfy { $0 == 0 })
        }
        // The same fade at both ends is symmetric in time: gain(n) = gain(T − n).
        let both = try FadedSource(source: ConstantSource(), fadeSeconds: 0.05, totalFrames: 10_000)
        let g = both.renderBuffer(frameCount: 10_001).samples(channel: 0)
        #expect((1..<10_000).allSatisfy { g[$0] == g[10_000 - $0] } && g[0] == 0 && g[10_000] == 0)
        // Fades as long as the whole sound are allowed.
        let full = try FadedSource(source: ConstantSource(), fadeInSeconds: 0.125, fadeOutSeconds: 0.125, totalFrames: 12_000)
        #expect(full.renderBuffer(frameCount: 12_000).samples(channel: 0)[6_000] == 1)
    }

    // MARK: Pulses

    @Test func pulsesKeepExactTimingShapeAndCount() throws {
        // 44.1 kHz and a period of 17,851.68 frames: starts fall between frames and must be rounded, not accumulated.
        let rate = 44_100.0, on = 0.2137, off = 0.1911, rampSeconds = 0.025
        let pulses = try PulsedSource(source: ConstantSource(sampleRate: rate), onSeconds: on, offSeconds: off,
                                      rampSeconds: rampSeconds, pulseCount: 1_001)
        let onFrames = Int((on * rate).rounded()), rampFrames = Int((rampSeconds * rate).rounded())
        #expect(pulses.onFrames == onFrames && pulses.rampFrames == rampFrames)
        func start(_ k: Int) -> Int { Int((Double(k) * (on + off) * rate).rounded()) }
        func expected(_ n: Int) -> Double {
            var k = Int(Double(n) / ((on + off) * rate))
            while k > 0 && start(k) > n { k -= 1 }
            while k < 1_000 && start(k + 1) <= n { k += 1 }
            let j = n - start(k)
            if j >= onFrames { return 0 }
            return min(j < rampFrames ? ramp(j, rampFrames) : 1, onFrames - j < rampFrames ? ramp(onFrames - j, rampFrames) : 1)
        }
        // Pulses 0 … 2, then skip to just before pulse 1,000 in odd-sized blocks.
        let head = pulses.renderBuffer(frameCount: start(3)).samples(channel: 0)
        #expect((0..<start(3)).allSatisfy { abs(Double(head[$0]) - expected($0)) < 1e-7 })
        let skip = AudioBuffer(channelCount: 1, frameCapacity: 50_001, zeroed: false)
        var position = start(3)
        while position < start(1_000) - 1_000 {
            let n = min(50_001, start(1_000) - 1_000 - position)
            skip.withBlock(frames: 0..<n) { pulses.render(into: $0) }
            position += n
        }
        let tail = pulses.renderBuffer(frameCount: start(1_001) - position).samples(channel: 0)
        for (i, v) in tail.enumerated() {
            #expect(abs(Double(v) - expected(position + i)) < 1e-7, "frame \(position + i)")
            if abs(Double(v) - expected(position + i)) >= 1e-7 { break }
        }
        // Pulse 1,000 starts exactly at round(1000·period·rate): silent before, rising after.
        let s = start(1_000) - position
        #expect(start(1_000) == 17_851_680 && pulses.pulseStartFrame(1_000) == start(1_000))
        #expect(tail[s - 1] == 0 && tail[s] == 0 && tail[s + 1] > 0 && tail[s + rampFrames] == 1)
        #expect(tail[s + onFrames] == 0 && tail[s + onFrames - 1] > 0)
        // After pulse 1,000 (the last of 1,001), silence.
        #expect(pulses.endFrame == start(1_000) + onFrames)
        #expect(pulses.renderBuffer(frameCount: 30_000).samples(channel: 0).allSatisfy { $0 == 0 })

        // Default timing, 3 pulses: three rising edges, 200 ms on, 200 ms off, 25 ms ramps.
        let three = try PulsedSource(source: ConstantSource(), pulseCount: 3).renderBuffer(frameCount: 48_000).samples(channel: 0)
        let rises = (1..<three.count).filter { three[$0 - 1] == 0 && three[$0] > 0 }
        #expect(rises == [1, 19_201, 38_401])
        #expect(three[9_600] == 0 && three[9_599] > 0 && three[9_600..<19_200].allSatisfy { $0 == 0 })
        #expect(three[1_200...8_400].allSatisfy { $0 == 1 } && three[1_199] < 1 && three[8_401] < 1)
        // Ramp 0: rectangular gating; off 0: pulses back to back.
        let gate = try PulsedSource(source: ConstantSource(), onSeconds: 0.01, offSeconds: 0.01, rampSeconds: 0).renderBuffer(frameCount: 1_920).samples(channel: 0)
        #expect(gate[0..<480].allSatisfy { $0 == 1 } && gate[480..<960].allSatisfy { $0 == 0 } && gate[960] == 1)
        let joined = try PulsedSource(source: ConstantSource(), onSeconds: 0.01, offSeconds: 0, rampSeconds: 0.005).renderBuffer(frameCount: 1_440).samples(channel: 0)
        #expect(joined[0] == 0 && joined[240] == 1 && joined[480] == 0 && joined[720] == 1)
    }

    @Test func aRampLongerThanHalfThePulseIsRejected() throws {
        do {
            _ = try PulsedSource(source: ConstantSource(), onSeconds: 0.2, rampSeconds: 0.12)
            Issue.record("ramp 120 ms accepted")
        } catch {
            #expect(error.parameter == .ramp && error.value == .number(0.12, .seconds) && error.allowedValues?.range == ParameterRange(0...0.1, unit: .seconds))
            #expect(error.description == "ramp 120 ms is longer than half the 200 ms pulse (allowed: 0 … 100 ms, so rise and fall fit in the on time)")
        }
        #expect(try PulsedSource(source: ConstantSource(), onSeconds: 0.2, rampSeconds: 0.1).rampFrames == 4_800)
    }

    // MARK: Render contract and bad input

    @Test func stackedModifiersGiveBitIdenticalSamplesForAnyBlockSizes() throws {
        let rate = 48_000.0, frames = 50_000
        let stacks: [(String, () throws -> any AudioSource)] = [
            ("pulses of AM tone", {
                try PulsedSource(source: AmplitudeModulatedSource(
                    carrier: ToneSource(frequencyHz: 1_000, sampleRate: rate, layout: .stereo), rateHz: 40, depth: 0.5),
                                 onSeconds: 0.05, offSeconds: 0.0301, rampSeconds: 0.01)
            }),
            ("faded AM pink stereo", {
                try FadedSource(source: AmplitudeModulatedSource(
                    carrier: NoiseSource(colour: .pink, sampleRate: rate, layout: .stereo, seed: 2), rateHz: 10.3, depth: 1, startPhase: 2),
                                fadeInSeconds: 0.2, fadeOutSeconds: 0.3, totalFrames: 40_000)
            }),
            ("AM of pulsed white, peak", {
                try AmplitudeModulatedSource(carrier: PulsedSource(
                    source: NoiseSource(colour: .white, sampleRate: rate, layout: .left, seed: 3), onSeconds: 0.1, offSeconds: 0, rampSeconds: 0.02, pulseCount: 7),
                                             rateHz: 0.7, depth: 0.3, keep: .peak)
            }),
            ("faded pulses of AM brown", {
                try FadedSource(source: PulsedSource(source: AmplitudeModulatedSource(
                    carrier: NoiseSource(colour: .brown, sampleRate: rate, layout: .mono, seed: 4), rateHz: 99), pulseCount: 2),
                                fadeSeconds: 0.01, totalFrames: 49_999)
            }),
        ]
        for (name, make) in stacks {
            let whole = try make().renderBuffer(frameCount: frames)
            #expect(whole.samples(channel: 0).contains { $0 != 0 }, "\(name) is silent")
            for (seed, maxBlock) in [(1 as UInt64, 7), (2, 300), (3, 5_000)] {
                let pieces = renderInRandomBlocks(try make(), frames: frames, maxBlock: maxBlock, seed: seed)
                for c in 0..<whole.channelCount {
                    #expect(whole.samples(channel: c) == pieces.samples(channel: c), "\(name), blocks up to \(maxBlock), channel \(c)")
                }
            }
        }
    }

    @Test func badParametersAreRejectedByName() {
        let c = ConstantSource()
        let rejected: [(ParameterID, ParameterID?)] = [
            (.amRate, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, rateHz: 0.49) }),
            (.amRate, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, rateHz: 100.01) }),
            (.amRate, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, rateHz: .nan) }),
            (.amDepth, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, depth: -0.01) }),
            (.amDepth, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, depth: 1.01) }),
            (.amDepth, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, depth: .nan) }),
            (.amPhase, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, startPhase: .infinity) }),
            (.amPhase, rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, startPhase: .nan) }),
            (.fadeIn, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: -0.001, fadeOutSeconds: 0, totalFrames: 48_000) }),
            (.fadeIn, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: .nan, fadeOutSeconds: 0, totalFrames: 48_000) }),
            (.fadeIn, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: 1.01, fadeOutSeconds: 0, totalFrames: 48_000) }),
            (.fadeOut, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: 0, fadeOutSeconds: -1, totalFrames: 48_000) }),
            (.fadeOut, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: 0, fadeOutSeconds: .infinity, totalFrames: 48_000) }),
            (.fade, rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: 0.6, fadeOutSeconds: 0.5, totalFrames: 48_000) }),
            (.fade, rejectedParameter { _ = try FadedSource(source: c, fadeSeconds: 0.51, totalFrames: 48_000) }),
            (.fade, rejectedParameter { _ = try FadedSource(source: c, fadeSeconds: -0.1, totalFrames: 48_000) }),
            (.duration, rejectedParameter { _ = try FadedSource(source: c, fadeSeconds: 0, totalFrames: -1) }),
            (.pulseOn, rejectedParameter { _ = try PulsedSource(source: c, onSeconds: 0) }),
            (.pulseOn, rejectedParameter { _ = try PulsedSource(source: c, onSeconds: 0.000_001) }),
            (.pulseOn, rejectedParameter { _ = try PulsedSource(source: c, onSeconds: .nan) }),
            (.pulseOff, rejectedParameter { _ = try PulsedSource(source: c, offSeconds: -0.1) }),
            (.pulseOff, rejectedParameter { _ = try PulsedSource(source: c, offSeconds: .infinity) }),
            (.ramp, rejectedParameter { _ = try PulsedSource(source: c, rampSeconds: -0.001) }),
            (.ramp, rejectedParameter { _ = try PulsedSource(source: c, rampSeconds: 0.101) }),
            (.ramp, rejectedParameter { _ = try PulsedSource(source: c, rampSeconds: .nan) }),
            (.pulseCount, rejectedParameter { _ = try PulsedSource(source: c, pulseCount: 0) }),
            (.pulseCount, rejectedParameter { _ = try PulsedSource(source: c, pulseCount: -3) }),
        ]
        for (name, found) in rejected { #expect(found == name, "expected \(name), got \(found?.rawValue ?? "no error")") }
        // Edges of the ranges are accepted.
        #expect(rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, rateHz: 0.5, depth: 0) } == nil)
        #expect(rejectedParameter { _ = try AmplitudeModulatedSource(carrier: c, rateHz: 100, depth: 1, startPhase: -7) } == nil)
        #expect(rejectedParameter { _ = try FadedSource(source: c, fadeInSeconds: 0, fadeOutSeconds: 0, totalFrames: 0) } == nil)
        #expect(rejectedParameter { _ = try PulsedSource(source: c, onSeconds: 0.05, offSeconds: 0, rampSeconds: 0, pulseCount: 1) } == nil)
        // Analysis inputs.
        let short = [Float](repeating: 0, count: 48_000)
        short.withUnsafeBufferPointer { x in
            #expect(rejectedParameter { _ = try ModulationAnalysis.estimate(x, sampleRate: 48_000) } == .duration)
            #expect(rejectedParameter { _ = try ModulationAnalysis.estimate(x, sampleRate: 48_000, rateRangeHz: 10...5_000) } == .modulationRates)
            #expect(rejectedParameter { _ = try ModulationAnalysis.estimate(x, sampleRate: 48_000, carrierBandHz: 30_000...40_000) } == .carrierBand)
            #expect(rejectedParameter { _ = try ModulationAnalysis.estimate(x, sampleRate: 1_000) } == .rate)
        }
    }
}
