import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// `shades analyze` recovers known signals.
@Suite struct FileAnalysisTests {
    let folder = temporaryFolder("analysis")

    func render(_ request: RenderRequest, _ name: String, format: SampleFormat = .f32) throws -> String {
        let path = "\(folder)/\(name)"
        try Renderer.renderFile(request, to: path, sampleFormat: format)
        return path
    }

    @Test func pinkNoiseReadsItsSlopeLevelAndLoudness() throws {
        let path = try render(RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 60, seed: 3), "pink.wav",
                              format: .s16)
        let report = try FileAnalysis.analyze(path: path, options: AnalysisOptions(expectedColour: .pink)).report
        #expect(report.channels == 2 && report.frames == 2_880_000)
        #expect(abs(report.spectrum!.slopeDecibelsPerOctave + 3.0103) < 0.05)
        #expect(report.spectrum!.nearestColourName == "pink")
        for c in report.levels.channels { #expect(abs(c.rmsDBFS! + 20) < 0.01) }
        #expect(report.levels.clippedSamples == 0)
        #expect(abs(report.levels.correlation!) < 0.01)
        #expect(report.loudness.integratedLUFS != nil)
        #expect(report.loudness.truePeakDBTP! >= report.loudness.samplePeakDBFS! - 1e-6)
        #expect(report.tone == nil && report.modulation == nil)
    }

    @Test func toneReadsFrequencyAndPurity() throws {
        let path = try render(RenderRequest(sound: .tone(frequencyHz: 6_000.5), durationSeconds: 5, layout: .mono, levelDBFS: -12), "tone.wav")
        let report = try FileAnalysis.analyze(path: path).report
        let tone = try #require(report.tone)
        #expect(abs(tone.frequencyHz - 6_000.5) < 0.001)
        #expect(tone.thdPlusNoiseDB <= -130)
        #expect(abs(tone.levelDBFS + 12) < 0.01)
    }

    @Test func aSoundPerEarIsReadPerChannel() throws {
        // `render --sound FILE.json` of a tone in the left ear and pink noise in the right: each channel at
        // the mix's level, the left a tone, the right none; `analyze` prints both.
        let json = #"{ "seed": 5, "layers": [ { "source": "tone", "frequency": "1kHz", "ears": "left" }, { "source": "pink", "ears": "right" } ] }"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: "\(folder)/per-ear.json"))
        let result = try Shell.run(["render", "--sound", "per-ear.json", "--duration", "10s", "--format", "f32", "-o", "per-ear.wav"], in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let report = try FileAnalysis.analyze(path: "\(folder)/per-ear.wav").report
        #expect(report.channelTones.count == 2)
        let left = try #require(report.channelTones[0])
        #expect(abs(left.frequencyHz - 1_000) < 1e-6 && left.thdPlusNoiseDB < -100)
        #expect(report.channelTones[1] == nil)
        for c in report.levels.channels { #expect(abs(c.rmsDBFS! + 20) < 0.01) }
        let table = try Shell.run(["analyze", "per-ear.wav"], in: folder).stdout
        #expect(table.contains("tone        channel 1: 1000.0000 Hz"), "\(table)")
        #expect(table.contains("            channel 2: no tone (THD+N above -20 dB)"), "\(table)")
        // Binaural beats: a tone in each ear, the beat apart.
        let beats = try render(RenderRequest(sound: .binauralBeat(carrierHz: 200, beatHz: 10), durationSeconds: 10), "beats.wav")
        let tones = try FileAnalysis.analyze(path: beats).report.channelTones.map { try #require($0).frequencyHz }
        #expect(abs(tones[0] - 200) < 1e-6 && abs(tones[1] - 210) < 1e-6)
    }

    @Test func amplitudeModulationReadsRateAndDepth() throws {
        let path = try render(RenderRequest(sound: .noise(colour: .white, distribution: .gaussian), durationSeconds: 60, layout: .mono,
                                            modulation: Modulation(rateHz: 10, depth: 0.5)), "am.wav")
        let modulation = try #require(try FileAnalysis.analyze(path: path).report.modulation)
        #expect(abs(modulation.rateHz - 10) < 0.01)
        #expect(abs(modulation.depth - 0.5) < 0.01)
    }

    @Test func loopsAreSeamlessAndCutStreamsOfBrownAreNot() throws {
        let loop = try render(RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 10, loop: true), "loop.wav")
        #expect(try FileAnalysis.analyze(path: loop).report.seams.allSatisfy(\.isSeamless))
        let cut = try render(RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 10.3, seed: 9), "cut.wav")
        #expect(try FileAnalysis.analyze(path: cut).report.seams.contains { !$0.isSeamless })
    }

    /// A notch made by a reference method: zero the FFT bins of one octave at 4 kHz over the whole file.
    @Test func notchCheckAgainstTheReferenceMethod() throws {
        let frames = 48_000 * 20
        let input = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .mono, levelDBFS: -20).renderBuffer(frameCount: frames)
        let fft = RealFFT(size: frames)
        fft.withSignal { s in input.withChannel(0) { _ = s.update(fromContentsOf: $0) } }
        fft.forward()
        let (low, high) = (4000 / 2.0.squareRoot(), 4000 * 2.0.squareRoot())
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = Double(k) * 48_000 / Double(frames)
                if f >= low && f <= high { bins[2 * k] = 0; bins[2 * k + 1] = 0 }
            }
        }
        fft.inverse()
        let output = AudioBuffer(channelCount: 1, frameCapacity: frames)
        output.withChannel(0) { o in fft.withSignal { s in for i in 0..<frames { o[i] = s[i] / Float(frames) } } }
        let format = try AudioFileFormat(container: .wav, sampleFormat: .f32)
        try FileSink.write(input, sampleRate: 48_000, gains: [1], to: "\(folder)/in.wav", sampleFormat: format.sampleFormat, ditherKey: 1, comment: nil)
        try FileSink.write(output, sampleRate: 48_000, gains: [1], to: "\(folder)/out.wav", sampleFormat: format.sampleFormat, ditherKey: 1, comment: nil)
        let report = try #require(try FileAnalysis.analyze(path: "\(folder)/out.wav", options: AnalysisOptions(
            referencePath: "\(folder)/in.wav", notch: try OctaveBand(centreHz: 4000, widthOctaves: 1))).report.notch)
        #expect(report.depthDB < -100)
        #expect(report.worstInBandDB < -100)
        #expect(report.passbandRippleDB < 0.05)
        #expect(report.lagSamples == 0)
    }

    @Test func ambientLevelCalibrationAndDose() throws {
        // A 1 kHz tone at −20 dBFS RMS: A-weighting is 0 dB at 1 kHz.
        let path = try render(RenderRequest(sound: .tone(frequencyHz: 1000), durationSeconds: 10, layout: .mono, levelDBFS: -20), "mic.wav")
        let calibration = try SPLCalibration(parsing: "94dB@-20dBFS")
        let ambient = try FileAnalysis.analyze(path: path, options: AnalysisOptions(calibration: calibration, listeningSeconds: 7200)).report.ambient
        #expect(abs(ambient.laeqDBFS! + 20) < 0.1)
        #expect(abs(ambient.laeqDBA! - 94) < 0.1)
        // NIOSH: 94 dBA is allowed for 1 h, so 2 h is 200 %.
        #expect(abs(ambient.doseNIOSHPercent! - 200) < 5)
    }

    @Test func commandLineTableJsonPlotAndErrors() throws {
        let path = try render(RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 20), "brown.wav", format: .s16)
        var result = try Shell.run(["analyze", path, "--colour", "brown", "--plot", "\(folder)/brown.svg"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("nearest brown") && result.stdout.contains("LUFS") && result.stdout.contains("dBTP"))
        let svg = try String(contentsOfFile: "\(folder)/brown.svg", encoding: .utf8)
        #expect(svg.contains("<svg") && svg.contains("Frequency (Hz)"))

        result = try Shell.run(["analyze", path, "--json"], in: folder)
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect((json?["spectrum"] as? [String: Any])?["nearestColourName"] as? String == "brown")

        let silent = "\(folder)/silent.wav"
        try FileSink.write(AudioBuffer(channelCount: 1, frameCapacity: 48_000), sampleRate: 48_000, gains: [1], to: silent,
                                  sampleFormat: .s16, ditherKey: 1, comment: nil)
        for (arguments, status, mentions) in [
            (["analyze", "\(folder)/missing.wav"], Int32(1), "missing.wav"),
            (["analyze", silent, "--colour", "pink"], 1, "silent"),
            (["analyze", path, "--notch", "4kHz"], 2, "reference"),
            (["analyze", path, "--colour", "purple"], 2, "colour"),
            (["analyze", path, "--listen", "2h"], 2, "calibration"),
            (["analyze", path, "--calibration", "loud"], 2, "calibration"),
            (["analyze", path, "--reference", "\(folder)/missing.wav"], 1, "reference"),
        ] {
            let r = try Shell.run(arguments, in: folder)
            #expect(r.status == status, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(mentions), "\(arguments): \(r.stderr)")
        }
    }
}
