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

    /// Rhythm is not modulation: noise in 20 ms bursts at 8 Hz, every fourth louder (2 Hz beat) and every
    /// sixteenth louder still (0.5 Hz bar), has a strong 8 Hz envelope line but others beside it; sinusoidal
    /// AM at 8 Hz with m = 0.3 on the same noise is found.
    @Test func musicalRhythmIsNotReportedAsModulation() throws {
        let rate = 48_000.0, frames = 48_000 * 30
        let noise = try NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, levelDBFS: -20, seed: 5).renderBuffer(frameCount: frames)
        let rhythm = AudioBuffer(channelCount: 1, frameCapacity: frames), am = AudioBuffer(channelCount: 1, frameCapacity: frames)
        noise.withChannel(0) { x in
            rhythm.withChannel(0) { r in
                am.withChannel(0) { a in
                    for i in 0..<frames {
                        let t = Double(i) / rate
                        let pulse = Int(t * 8), since = t - Double(pulse) / 8
                        let accent = pulse % 16 == 0 ? 2.0 : (pulse % 4 == 0 ? 1.4 : 1)
                        r[i] = x[i] * Float(accent * exp(-since / 0.02))
                        a[i] = x[i] * Float(1 + 0.3 * sin(2 * Double.pi * 8 * t))
                    }
                }
            }
        }
        try FileSink.write(rhythm, sampleRate: 48_000, gains: [1], to: "\(folder)/rhythm.wav", sampleFormat: .f32, ditherKey: 1, comment: nil)
        try FileSink.write(am, sampleRate: 48_000, gains: [1], to: "\(folder)/am8.wav", sampleFormat: .f32, ditherKey: 1, comment: nil)
        #expect(try FileAnalysis.analyze(path: "\(folder)/rhythm.wav").report.modulation == nil)
        let found = try #require(try FileAnalysis.analyze(path: "\(folder)/am8.wav").report.modulation)
        #expect(abs(found.rateHz - 8) < 0.01 && abs(found.depth - 0.3) < 0.02, "\(found)")
    }

    @Test func loopsAreSeamlessAndCutStreamsOfBrownAreNot() throws {
        let loop = try render(RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 10, loop: true), "loop.wav")
        let looped = try FileAnalysis.analyze(path: loop).report
        #expect(looped.isLoop && looped.seams.count == 2 && looped.seams.allSatisfy(\.isSeamless))
        let cut = try render(RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 10.3, seed: 9), "cut.wav")
        #expect(try FileAnalysis.analyze(path: cut, options: AnalysisOptions(loop: true)).report.seams.contains { !$0.isSeamless })
        // Not a loop (its comment says loop=false, and no --loop): no seam is measured or reported.
        let plain = try FileAnalysis.analyze(path: cut).report
        #expect(!plain.isLoop && plain.seams.isEmpty)
        let table = try Shell.run(["analyze", cut], in: folder)
        #expect(table.status == 0 && !table.stdout.contains("loop seam") && !table.stdout.contains("seamless"), "\(table.stdout)")
        #expect(try Shell.run(["analyze", cut, "--loop"], in: folder).stdout.contains("audible jump"))
    }

    /// A tone has a slope but no colour: only a noise-like spectrum (flatness about its power law at least
    /// 0.9) is classed; a minute of pink noise reads above 0.99.
    @Test func onlyNoiseLikeSpectraGetAColour() throws {
        let tone = try render(RenderRequest(sound: .tone(frequencyHz: 1_000), durationSeconds: 5, layout: .mono), "tone1k.wav")
        let toneSpectrum = try #require(try FileAnalysis.analyze(path: tone).report.spectrum)
        #expect(toneSpectrum.nearestColourName == nil && toneSpectrum.colourFlatness < 0.1, "\(toneSpectrum.colourFlatness)")
        let table = try Shell.run(["analyze", tone], in: folder)
        #expect(!table.stdout.contains("nearest") && table.stdout.contains("not noise-like"), "\(table.stdout)")
        for colour in [NoiseColour.white, .pink, .brown] {
            let path = try render(RenderRequest(sound: .noise(colour: colour, distribution: .gaussian), durationSeconds: 10, layout: .mono), "c\(colour.beta).wav")
            let spectrum = try #require(try FileAnalysis.analyze(path: path).report.spectrum)
            #expect(spectrum.colourFlatness > 0.99 && spectrum.nearestColourName != nil, "β \(colour.beta): \(spectrum.colourFlatness)")
        }
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
        #expect((report.depthDB ?? .nan) < -100)
        #expect((report.worstInBandDB ?? .nan) < -100)
        #expect((report.passbandRippleDB ?? .nan) < 0.05)
        #expect(report.lagSamples == 0)
    }

    /// A reference at another rate is resampled to the output's before the check, as a file source resamples
    /// (`shades notch --rate` makes such outputs): white noise at 22,050 Hz, resampled to 44,100 Hz and
    /// notched at 3 kHz. Above the reference's Nyquist (less the resampler's transition) nothing is compared.
    @Test func notchCheckResamplesAReferenceAtAnotherRate() throws {
        let input = try NoiseSource(colour: .white, sampleRate: 22_050, layout: .mono, levelDBFS: -20).renderBuffer(frameCount: 22_050 * 10)
        try FileSink.write(input, sampleRate: 22_050, gains: [1], to: "\(folder)/in22.wav", sampleFormat: .f32, ditherKey: 1, comment: nil)
        let resampled = try AudioFileSource(path: "\(folder)/in22.wav", sampleRate: 44_100).renderBuffer(frameCount: 44_100 * 10)
        let frames = resampled.frameCapacity
        let fft = RealFFT(size: frames)
        fft.withSignal { s in resampled.withChannel(0) { _ = s.update(fromContentsOf: $0) } }
        fft.forward()
        let band = try OctaveBand(centreHz: 3_000, widthOctaves: 1)
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount where (band.lowerEdgeHz...band.upperEdgeHz).contains(Double(k) * 44_100 / Double(frames)) {
                bins[2 * k] = 0; bins[2 * k + 1] = 0
            }
        }
        fft.inverse()
        let output = AudioBuffer(channelCount: 1, frameCapacity: frames)
        output.withChannel(0) { o in fft.withSignal { s in for i in 0..<frames { o[i] = s[i] / Float(frames) } } }
        try FileSink.write(output, sampleRate: 44_100, gains: [1], to: "\(folder)/out44.wav", sampleFormat: .f32, ditherKey: 1, comment: nil)
        let analysis = try FileAnalysis.analyze(path: "\(folder)/out44.wav", options: AnalysisOptions(referencePath: "\(folder)/in22.wav", notch: band))
        #expect(analysis.report.referenceSampleRate == 22_050)
        let report = try #require(analysis.report.notch)
        #expect((report.worstInBandDB ?? .nan) <= -85 && (report.passbandRippleDB ?? .nan) <= 0.01,
                "worst \(String(describing: report.worstInBandDB)), ripple \(String(describing: report.passbandRippleDB))")
        #expect(report.lagSamples == 0)
        let top = try #require(report.comparedPassbandHz.last?.upperBound)
        #expect(top > 10_000 && top < 11_025, "compared up to \(top) Hz")
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
