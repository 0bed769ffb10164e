import Testing
import Foundation
import ShadesDSP

/// The real-time player engine (issue 13): a schedule of commands (play with a fade-in, a gain ramp, an
/// equal-power crossfade, pause and resume, a sleep timer with a raised-cosine fade) rendered in random
/// blocks gives the samples a non-real-time rendering of the same schedule computes from the formulas,
/// the same in any blocks, and ends frame-exactly at the timer.
@Suite struct PlayerEngineTests {
    static let rate = 48_000.0
    static let frames = 100_000

    /// Stereo white noise in memory, so the reference can read the source at any index.
    static func noise(seed: UInt64) throws -> AudioBuffer {
        try NoiseSource(colour: .white, sampleRate: rate, layout: .stereo, levelDBFS: -12, seed: seed).renderBuffer(frameCount: frames)
    }

    /// Runs the schedule, rendering in blocks from `blockSize` (nil: random sizes 1 … 700).
    static func run(_ a: AudioBuffer, _ b: AudioBuffer, blockSize: Int?) throws -> (AudioBuffer, PlayerEngine) {
        let engine = PlayerEngine(sampleRate: rate, channelCount: 2, maximumBlockFrames: 1_024)
        let voiceA = try engine.play(BufferSource(buffer: a, sampleRate: rate), gainDB: -6, fadeInSeconds: 0.1)
        engine.setTimer(seconds: 2, fadeOutSeconds: 0.5)
        engine.setGain(voiceA, gainDB: 0, rampSeconds: 0.05, atFrame: 10_000)
        let voiceB = try engine.crossfade(voiceA, to: BufferSource(buffer: b, sampleRate: rate), seconds: 0.5, atFrame: 20_000)
        engine.pause(voiceB, fadeSeconds: 0.1, atFrame: 50_000)
        engine.resume(voiceB, fadeSeconds: 0.1, atFrame: 60_000)
        let out = AudioBuffer(channelCount: 2, frameCapacity: frames)
        var state: UInt64 = 12_345
        var done = 0
        while done < frames {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let n = min(frames - done, blockSize ?? (1 + Int((state >> 33) % 700)))
            out.withBlock(frames: done..<done + n) { engine.render(into: $0) }
            done += n
        }
        return (out, engine)
    }

    /// The schedule's gains computed directly, in Double: (gain on A, index into A, gain on B, index into B).
    static func reference(frame t: Int) -> (Double, Int, Double, Int) {
        func raised(_ x: Double) -> Double { (1 - cos(Double.pi * min(max(x, 0), 1))) / 2 }
        let gainA = t < 10_000 ? pow(10, -6.0 / 20) : pow(10, -6.0 / 20) + (1 - pow(10, -6.0 / 20)) * min(1, Double(t - 10_000) / 2_400)
        var a = gainA * raised(Double(t) / 4_800)
        var b = 0.0
        var indexB = 0
        if t >= 20_000 {
            let x = min(1, Double(t - 20_000) / 24_000)
            a = t < 44_000 ? gainA * cos(Double.pi / 2 * x) : 0
            b = sin(Double.pi / 2 * x)
            indexB = t - 20_000
        }
        if t >= 50_000 && t < 60_000 {
            b = 1 - raised(Double(t - 50_000) / 4_800)
            indexB = min(t, 54_800) - 20_000
        } else if t >= 60_000 {
            b = raised(Double(t - 60_000) / 4_800)
            indexB = 34_800 + (t - 60_000)
        }
        // The timer: fade from 72,000 to 96,000, then silence.
        let timer = t >= 96_000 ? 0 : (t < 72_000 ? 1 : 1 - raised(Double(t - 72_000) / 24_000))
        return (a * timer, t, b * timer, indexB)
    }

    @Test func scheduleMatchesTheFormulasInAnyBlocks() throws {
        let a = try Self.noise(seed: 1), b = try Self.noise(seed: 2)
        let (random, engine) = try Self.run(a, b, blockSize: nil)
        let (fixed, _) = try Self.run(a, b, blockSize: 512)
        var worst = (difference: 0.0, frame: 0)
        for c in 0..<2 {
            let x = random.samples(channel: c), y = fixed.samples(channel: c)
            let firstDifferent = x.indices.first { x[$0] != y[$0] }
            #expect(firstDifferent == nil, "channel \(c): block sizes changed the samples from frame \(firstDifferent ?? 0)")
            let sa = a.samples(channel: c), sb = b.samples(channel: c)
            for t in 0..<Self.frames {
                let (ga, ia, gb, ib) = Self.reference(frame: t)
                let expected = ga * Double(sa[ia]) + gb * Double(sb[ib])
                let d = abs(Double(x[t]) - expected)
                if d > worst.difference { worst = (d, t) }
            }
        }
        #expect(worst.difference < 2e-6, "largest difference from the formulas: \(worst.difference) at frame \(worst.frame)")
        // The timer ends at frame 96,000 exactly: the frame before is not yet silent everywhere, all after are.
        let left = random.samples(channel: 0)
        #expect(left[96_000...].allSatisfy { $0 == 0 })
        #expect(left[95_000..<96_000].contains { $0 != 0 })
        #expect(engine.isFinished && engine.framesRendered == Self.frames)
        engine.collectGarbage()
        #expect(engine.activeVoices == 1)   // B, silent after the timer; A was removed after its crossfade
    }

    /// An equal-power crossfade between two independent noises of the same level keeps the power: the
    /// 10 ms power of the mix stays within 0.3 dB of the level all through the crossfade.
    @Test func crossfadeKeepsThePower() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 2)
        let a = try NoiseSource(colour: .white, sampleRate: Self.rate, layout: .stereo, levelDBFS: -20, seed: 5)
        let b = try NoiseSource(colour: .white, sampleRate: Self.rate, layout: .stereo, levelDBFS: -20, seed: 6)
        let voice = try engine.play(a, fadeInSeconds: 0)
        try engine.crossfade(voice, to: b, seconds: 1, atFrame: 4_800)
        let out = engine.renderBuffer(frameCount: 72_000)
        let x = out.samples(channel: 0)
        for start in stride(from: 0, to: 72_000 - 4_800, by: 4_800) {
            let power = x[start..<start + 4_800].reduce(0.0) { $0 + Double($1) * Double($1) } / 4_800
            #expect(abs(10 * log10(power) + 20) < 0.3, "at \(start): \(10 * log10(power)) dB")
        }
    }

    /// Finishing (Ctrl-C) during a timer's fade never lengthens playback, and a finish fades from where
    /// the sound is: no step larger than the noise's own.
    @Test func finishFadesOutAndNeverExtendsATimer() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 1)
        _ = try engine.play(try ToneSource(frequencyHz: 100, sampleRate: Self.rate, layout: .mono, levelDBFS: -10), fadeInSeconds: 0)
        engine.setTimer(seconds: 1, fadeOutSeconds: 0.5)
        engine.finish(fadeSeconds: 0.3, atFrame: 30_000)     // inside the timer's fade (24,000 … 48,000): ends at 44,400
        engine.finish(fadeSeconds: 5, atFrame: 40_000)       // later than the end: ignored
        let out = engine.renderBuffer(frameCount: 60_000).samples(channel: 0)
        #expect(out[44_400...].allSatisfy { $0 == 0 })
        #expect(out[44_000..<44_400].contains { $0 != 0 })
        let steps = zip(out.dropFirst(), out).map { abs($0 - $1) }
        #expect(steps.max()! < 0.006, "largest step \(steps.max()!)")   // a 100 Hz tone at -10 dBFS moves by up to 0.0056
    }

    /// Sources handed back by the audio thread are released by the control thread, not in `render`.
    @Test func removedSourcesAreReleasedByTheControlThread() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 1)
        weak var weakSource: ToneSource?
        do {
            let source = try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .mono)
            weakSource = source
            let voice = try engine.play(source, fadeInSeconds: 0)
            engine.stop(voice, fadeSeconds: 0.01)
        }
        _ = engine.renderBuffer(frameCount: 4_800)
        #expect(weakSource != nil)        // on the garbage ring, not freed by the audio thread
        engine.collectGarbage()
        #expect(weakSource == nil)
    }

    /// Pausing everything stops the played time and the sleep timer: 4 s paused during an 8 s timer give
    /// 8 s of sound (the pausing and resuming fades count as played), and the played clock says so.
    @Test func pauseStopsTheClockAndTheTimer() throws {
        let rate = 8_000.0
        let engine = PlayerEngine(sampleRate: rate, channelCount: 1)
        try engine.play(try ToneSource(frequencyHz: 100, sampleRate: rate, layout: .mono, levelDBFS: -10), fadeInSeconds: 0)
        engine.setTimer(seconds: 8, fadeOutSeconds: 0.5)
        engine.setPaused(true, fadeSeconds: 0.05, atFrame: 16_000)     // at 2 s
        engine.setPaused(false, fadeSeconds: 0.05, atFrame: 48_400)    // 4 s after the pause's fade ended
        let out = engine.renderBuffer(frameCount: 100_000).samples(channel: 0)
        // Sound from 0 to 2.05 s, silence while paused, sound again from 6.05 s until 8 s of play: 12.0 s.
        #expect(out[16_400..<48_400].allSatisfy { $0 == 0 }, "paused, yet not silent")
        #expect(out[96_000...].allSatisfy { $0 == 0 })
        #expect(out[95_000..<96_000].contains { $0 != 0 }, "the timer ended before 8 s of play")
        #expect(engine.isFinished && engine.framesPlayed == 100_000 - 32_000)
    }

    /// Ctrl-C while everything is paused (and silent) ends at once instead of waiting for a resume.
    @Test func finishWhilePausedEndsAtOnce() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 1)
        try engine.play(try ToneSource(frequencyHz: 100, sampleRate: Self.rate, layout: .mono, levelDBFS: -10), fadeInSeconds: 0)
        engine.setPaused(true, fadeSeconds: 0.05)
        _ = engine.renderBuffer(frameCount: 4_800)
        engine.finish(fadeSeconds: 0.3)
        _ = engine.renderBuffer(frameCount: 480)
        #expect(engine.isFinished)
    }

    /// A source of another rate or channel count is refused with an error naming what differs, and
    /// nothing traps; the engine goes on playing what it had.
    @Test func mismatchedSourcesAreRefused() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 2)
        let voice = try engine.play(try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .stereo), fadeInSeconds: 0)
        #expect(throws: ShadesError.self) { try engine.play(try ToneSource(frequencyHz: 440, sampleRate: 44_100, layout: .stereo)) }
        #expect(throws: ShadesError.self) { try engine.play(try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .mono)) }
        #expect(throws: ShadesError.self) {
            try engine.crossfade(voice, to: try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .mono), seconds: 1)
        }
        do {
            _ = try engine.play(try ToneSource(frequencyHz: 440, sampleRate: 44_100, layout: .stereo))
        } catch {
            #expect(error.description.contains("44100") && error.description.contains("48000"), "\(error.description)")
        }
        #expect(engine.renderBuffer(frameCount: 480).samples(channel: 0).contains { $0 != 0 })
    }

    /// The engine never holds more sources than its garbage ring can hand back: with the voices full and
    /// the audio thread never run, further sources are refused (counted), none is released on the audio
    /// thread, and all come back to the control thread.
    @Test func sourcesBeyondWhatCanBeHandedBackAreRefused() throws {
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 1, maximumVoices: 2, commandCapacity: 4)
        var sources: [ToneSource] = []
        for _ in 0..<10 {
            let source = try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .mono)
            sources.append(source)
            try engine.play(source, fadeInSeconds: 0)
        }
        #expect(engine.droppedCommands == 6, "4 queued (the command ring), the rest refused: \(engine.droppedCommands)")
        _ = engine.renderBuffer(frameCount: 480)     // 2 voices start, 2 have no slot: back to the control thread
        for _ in 0..<6 { try engine.play(try ToneSource(frequencyHz: 440, sampleRate: Self.rate, layout: .mono), fadeInSeconds: 0) }
        _ = engine.renderBuffer(frameCount: 480)
        engine.collectGarbage()
        #expect(engine.activeVoices == 2)
        weak let released: ToneSource? = sources[9]
        sources.removeAll()
        #expect(released == nil, "a refused source is the caller's again")
    }
}
