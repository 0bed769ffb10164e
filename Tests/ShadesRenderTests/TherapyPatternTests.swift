import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Coordinated reset and spectral ripple through the render path: requests, files, streams, the command.
@Suite struct TherapyPatternTests {
    let folder = temporaryFolder("therapy-patterns")

    func channel(_ path: String, _ c: Int = 0) throws -> [Float] { try DecodedAudio(contentsOf: path).buffer.samples(channel: c) }

    @Test func coordinatedResetFileHasTheLevelSilentCyclesAndOneSignal() throws {
        // 7 s: not a whole number of 10/3-s periods, so the file is measured (two passes) to the level.
        let request = RenderRequest(sound: .coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4000)),
                                    durationSeconds: 7, layout: .stereo, levelDBFS: -24, seed: 3)
        let path = "\(folder)/cr.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .s16)
        let left = try channel(path, 0), right = try channel(path, 1)
        #expect(left == right)
        #expect(abs(left.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + 24) < 0.01)
        // Cycles 3 and 4 (2 … 3.33 s) are silent: exact zeros even in s16 (dither spares digital silence).
        #expect(left[96_000..<160_000].allSatisfy { $0 == 0 })
        // The stream at the expected gain matches the pattern's own level over whole periods.
        let graph = try SoundGraph(request)
        let stream = graph.makeSource().renderBuffer(frameCount: 160_000).samples(channel: 0)
        #expect(abs(stream.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + 24) < 0.01)
    }

    @Test func rippleFileHasTheLevelAndWholeSegmentsNeedNoCorrection() throws {
        let ripple = SpectralRipple(tinnitusFrequencyHz: 6000, condition: .phase)
        let request = RenderRequest(sound: .spectralRipple(ripple), durationSeconds: 8, layout: .mono, levelDBFS: -30, seed: 2)
        let path = "\(folder)/ripple.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let x = try channel(path)
        #expect(abs(x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + 30) < 0.001)
        let graph = try SoundGraph(request)
        #expect(abs(Double(graph.exactGains()[0]) - 1) < 1e-4)
    }

    @Test func combinationsThatMakeNoSenseAreRefused() {
        let cr = Generator.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4000))
        let ripple = Generator.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4000))
        for sound in [cr, ripple] {
            let base = RenderRequest(sound: sound, durationSeconds: 10)
            var pulsed = base; pulsed.pulses = Pulses()
            var notched = base; notched.notches = [NotchSpec(centreHz: 4000, widthOctaves: 1)]
            var modulated = base; modulated.modulation = Modulation()
            var looped = base; looped.loop = true
            for (request, parameter) in [(pulsed, ParameterID.pulse), (notched, .notchCentre), (modulated, .amRate), (looped, .loop)] {
                do { try request.validate(); Issue.record("\(parameter) accepted") } catch { #expect(error.parameter == parameter) }
            }
            var faded = base; faded.fades = Fades(inSeconds: 1, outSeconds: 1)
            #expect(throws: Never.self) { try faded.validate() }
        }
    }

    @Test(arguments: [
        "render cr --frequency 4kHz --duration 6s --seed 3 -o cr.wav",
        "render cr --frequency 3kHz --tones log-spaced --tone-length 120ms --tone-ramp 5ms --cycle-rate 1.5 --on-cycles 3 --off-cycles 2 --tone-gains 0,-2,1,3 --duration 4s -o cr2.wav",
        "render ripple --frequency 4kHz --condition amplitude --duration 8s -o ripple.wav",
        "render ripple --frequency 4kHz --condition noise --sham --band-gains 0,0,0,0,3,6,9,12 --duration 4s -o ripple2.wav",
    ])
    func commandsWork(command: String) throws {
        let arguments = command.split(separator: " ").map(String.init)
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(result.stdout.contains("wrote"))
    }

    @Test func badCommandsNameTheParameter() throws {
        for (command, parameter) in [("render cr --frequency 20kHz --duration 2s -o x.wav", "frequency"),
                                     ("render cr --frequency 4kHz --tone-gains 0,1 --duration 2s -o x.wav", "tone-gains"),
                                     ("render ripple --frequency 500 --duration 2s -o x.wav", "frequency"),
                                     ("render ripple --frequency 4kHz --pulse 1s/1s --duration 2s -o x.wav", "pulse")] {
            let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
            #expect(result.status != 0)
            #expect(result.stderr.contains(parameter), "\(command): \(result.stderr)")
        }
    }
}
