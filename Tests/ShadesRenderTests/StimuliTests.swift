import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Therapy stimuli end to end: files as the studies specify them.
@Suite struct StimuliTests {
    let folder = temporaryFolder("stimuli")

    func channel(_ path: String, _ c: Int = 0) throws -> [Float] { try DecodedAudio(contentsOf: path).buffer.samples(channel: c) }

    @Test func amFileDemodulatesToTheAskedRateAndDepth() throws {
        // The issue's form: pink noise, 10 Hz, depth 1, three minutes.
        let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 180,
                                    layout: .stereo, seed: 4, modulation: Modulation(rateHz: 10, depth: 1))
        let path = "\(folder)/am-pink.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .s16)
        let x = try channel(path, 1)
        let estimate = try x.withUnsafeBufferPointer { try ModulationAnalysis.estimate($0, sampleRate: 48_000) }
        #expect(abs(estimate.rateHz - 10) < 0.01)
        #expect(abs(estimate.depth - 1) < 0.01)
        // The RMS of the modulated file is the asked level (loudness kept).
        let rms = x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }
        #expect(abs(rms + 20) < 0.01)
    }

    @Test func peakKeepingModulationLowersTheRMSByTheExactFactor() throws {
        let m = 0.6
        let request = RenderRequest(sound: .tone(frequencyHz: 6000), durationSeconds: 2, layout: .mono, levelDBFS: -20,
                                    modulation: Modulation(rateHz: 40, depth: m, keep: .peak))
        let path = "\(folder)/am-peak.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let x = try channel(path)
        let expected = -20 - 20 * log10((1 + m) / (1 + m * m / 2).squareRoot())
        #expect(abs(x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } - expected) < 0.01)
        // Peak equals the unmodulated tone's peak (−20 dBFS RMS sine: −16.99 dBFS).
        #expect(abs(Decibels.fromAmplitude(Double(x.map(abs).max()!)) + 16.99) < 0.01)
    }

    @Test func pulsedToneHasItsLevelWhileSoundingAndSilenceBetween() throws {
        let request = RenderRequest(sound: .tone(frequencyHz: 1000), durationSeconds: 2, layout: .right, levelDBFS: -20,
                                    pulses: Pulses(onSeconds: 0.2, offSeconds: 0.2, rampSeconds: 0.025))
        let path = "\(folder)/pulses.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let left = try channel(path, 0), right = try channel(path, 1)
        #expect(left.allSatisfy { $0 == 0 })
        for pulse in 0..<5 {
            let start = Int((Double(pulse) * 0.4 * 48_000).rounded())
            // Steady part (after the 25 ms rise, before the fall): the asked RMS.
            let steady = Array(right[(start + 1200)..<(start + 9600 - 1200)])
            #expect(abs(steady.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + 20) < 0.01, "pulse \(pulse)")
            // The gap is silent.
            #expect(right[(start + 9600)..<(start + 19_200)].allSatisfy { $0 == 0 }, "gap after pulse \(pulse)")
        }
    }

    @Test func loopedModulationHasWholeCyclesAndIsReported() throws {
        let request = RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 1.05,
                                    layout: .mono, loop: true, modulation: Modulation(rateHz: 10))
        let report = try Renderer.renderFile(request, to: "\(folder)/am-loop.wav", sampleFormat: .s16)
        #expect(report.notes.contains { $0.contains("modulation rate adjusted from 10 Hz") })
        let cycles = AmplitudeModulatedSource.loopRate(near: 10, frameCount: request.frameCount, sampleRate: 48_000)
            * Double(request.frameCount) / 48_000
        #expect(abs(cycles - cycles.rounded()) < 1e-9)
    }

    @Test func pitchMatchSetHasSeventeenFrequenciesOfToneAndNoiseAtEqualRMS() throws {
        let out = "\(folder)/pitch"
        let result = try Shell.run(["stimuli", "pitch-match", "-o", out, "--octave-check", "6kHz"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let index = try JSONDecoder().decode(StimulusIndex.self, from: Data(contentsOf: URL(fileURLWithPath: "\(out)/index.json")))
        let tones = index.files.filter { $0.kind == "tone" && !$0.file.hasPrefix("octave") }
        let noises = index.files.filter { $0.kind == "nbn" }
        #expect(tones.count == 17 && noises.count == 17)
        #expect(abs(tones.first!.frequency - 1000) < 1e-6 && abs(tones.last!.frequency - 16000) < 1e-3)
        #expect(index.files.filter { $0.file.hasPrefix("octave-check") }.map(\.frequency) == [3000, 6000, 12000])
        for entry in index.files {
            let x = try channel("\(out)/\(entry.file)")
            #expect(x.count == 48_000, "\(entry.file)")
            #expect(x.first == 0 && x.last == 0, "\(entry.file) begins and ends with a raised-cosine ramp")
            // Equal RMS: every stimulus has the asked level between its 10 ms ramps. A tone's is exact; a
            // noise was levelled over its whole second, so leaving out the 20 ms of ramps scatters its
            // level by ~0.023 dB (1σ for the narrowest band, 1 kHz ½ octave: 2 % of the energy with
            // 2·B·T ≈ 14 degrees of freedom); 0.08 dB is 3.5σ.
            let sustained = Array(x[480..<47_520]).withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }
            #expect(abs(sustained + 20) < (entry.kind == "tone" ? 0.005 : 0.08), "\(entry.file): \(sustained) dBFS")
        }
    }

    @Test func audiometrySetHasEveryFrequencyPerEarAndCustomLists() throws {
        let out = "\(folder)/audiometry"
        var result = try Shell.run(["stimuli", "audiometry", "--ear", "both", "-o", out], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        var index = try JSONDecoder().decode(StimulusIndex.self, from: Data(contentsOf: URL(fileURLWithPath: "\(out)/index.json")))
        #expect(index.files.count == 18)
        #expect(Set(index.files.map(\.frequency)) == Set(StimulusSets.audiometricFrequencies))
        let left = index.files.first { $0.ear == "left" && $0.frequency == 4000 }!
        let decoded = try DecodedAudio(contentsOf: "\(out)/\(left.file)").buffer
        #expect(decoded.samples(channel: 1).allSatisfy { $0 == 0 })

        result = try Shell.run(["stimuli", "audiometry", "--ear", "right", "--frequencies", "1kHz,1.5kHz,9000", "--extended", "-o", "custom"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        index = try JSONDecoder().decode(StimulusIndex.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/custom/index.json")))
        // 9 kHz is in both the custom list and the extended range: listed once.
        #expect(index.files.map(\.frequency) == [1000, 1500] + StimulusSets.extendedHighFrequencies)
        #expect(index.files.allSatisfy { $0.ear == "right" && $0.level == -20 })
    }

    @Test(arguments: [
        "render pink --am 10 --am-depth 1 --duration 3m -o out.wav",
        "render tone --frequency 6kHz --am 40 --duration 3m -o out.wav",
        "render nbn --frequency 4kHz --width 0.5 --duration 1m -o out.wav",
        "render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 10s --channels right -o out.wav",
    ])
    func issueExamplesWork(command: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == 0, "\(command): \(result.stderr)")
    }

    /// Bad input: one line naming the parameter, exit 2, no file and no folder.
    @Test(arguments: [
        ("render pink --am 10 --am-depth 1.5 --duration 1s -o out.wav", "am-depth"),
        ("render pink --am 10 --am-depth -0.1 --duration 1s -o out.wav", "am-depth"),
        ("render pink --am 0 --duration 1s -o out.wav", "am"),
        ("render pink --am -5 --duration 1s -o out.wav", "am"),
        ("render pink --am 101 --duration 1s -o out.wav", "am"),
        ("render nbn --frequency 20kHz --width 1 --duration 1s -o out.wav", "Nyquist"),
        ("render nbn --frequency 4kHz --width 0 --duration 1s -o out.wav", "width"),
        ("render nbn --frequency 4kHz --width 5 --duration 1s -o out.wav", "width"),
        ("render tone --frequency 1k --pulse 200ms/200ms --ramp 120ms --duration 1s -o out.wav", "ramp"),
        ("render tone --frequency 1k --pulse 200ms --duration 1s -o out.wav", "pulse"),
        ("render tone --frequency 1k --fade 600ms --duration 1s -o out.wav", "fade"),
        ("render pink --fade 50ms --loop --duration 1s -o out.wav", "fade"),
        ("render pink --am 99 --loop --duration 0.0155s -o out.wav", "whole cycles"),
        ("stimuli audiometry --frequencies , -o outdir", "frequencies"),
        ("stimuli audiometry --frequencies 125,,250 -o outdir", "frequencies"),
        ("stimuli audiometry --frequencies 125,12x -o outdir", "frequencies"),
        ("stimuli audiometry --frequencies 30kHz -o outdir", "--frequencies 30000 Hz"),
        ("stimuli audiometry --ear middle -o outdir", "ear"),
        ("stimuli pitch-match --from 4kHz --to 1kHz -o outdir", "--from/--to"),
        ("stimuli pitch-match --step 0 -o outdir", "step"),
        ("stimuli pitch-match --from 23kHz --to 23kHz -o outdir", "Nyquist"),
    ])
    func badStimulusInputGetsOneLineAndNoOutput(command: String, mentions: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == 2, "\(command): exit \(result.status), \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(command): \(result.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("out") || $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "\(command) left \(leftovers)")
    }
}
