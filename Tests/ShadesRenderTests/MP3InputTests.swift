import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// MP3 input (issue 11): libsndfile only estimates an MP3's length, so the notch takes the decoded length,
/// and warns when a file decodes far shorter than announced or libsndfile stops at its estimate.
/// The fixtures are encoded by the LAME command-line tool from audio Shades makes.
@Suite struct MP3InputTests {
    let folder = temporaryFolder("mp3")

    /// One kind of MP3: constant or variable bit rate, with or without the LAME/Xing header (`lame -t`
    /// leaves it out), mono 22.05 kHz or stereo 44.1 kHz.
    struct Fixture: CustomTestStringConvertible, Sendable {
        let variableBitRate: Bool
        let header: Bool
        let stereo: Bool

        var name: String { "\(stereo ? "stereo44" : "mono22")-\(variableBitRate ? "vbr" : "cbr")\(header ? "" : "-noheader")" }
        var testDescription: String { name }
        var options: [String] { (variableBitRate ? ["-V", "4"] : ["-b", stereo ? "128" : "64"]) + (header ? [] : ["-t"]) }

        static let all = [false, true].flatMap { stereo in
            [false, true].flatMap { vbr in [true, false].map { Fixture(variableBitRate: vbr, header: $0, stereo: stereo) } }
        }
    }

    /// 2 s made by Shades: a loud white-noise burst (¼ s), then quiet pink noise. A VBR encoder spends
    /// its largest frames on the burst, so a headerless VBR file's first frame is far larger than average.
    func sourceWAV(stereo: Bool) throws -> String {
        let rate = stereo ? 44_100.0 : 22_050
        let layout: ChannelLayout = stereo ? .stereo : .mono
        let frames = Int(2 * rate)
        let burst = try NoiseSource(colour: .white, sampleRate: rate, layout: layout, levelDBFS: -12, seed: 1, distribution: .uniform)
            .renderBuffer(frameCount: frames / 8)
        let quiet = try NoiseSource(colour: .pink, sampleRate: rate, layout: layout, levelDBFS: -30, seed: 2)
            .renderBuffer(frameCount: frames - frames / 8)
        let source = AudioBuffer(channelCount: burst.channelCount, frameCapacity: burst.frameCapacity + quiet.frameCapacity)
        for c in 0..<source.channelCount {
            let samples = burst.samples(channel: c) + quiet.samples(channel: c)
            source.withChannel(c) { x in _ = x.update(fromContentsOf: samples) }
        }
        let path = "\(folder)/source-\(stereo ? "stereo" : "mono").wav"
        try FileSink.write(source, sampleRate: Int(rate), gains: Array(repeating: 1, count: source.channelCount), to: path,
                                  sampleFormat: .s16, ditherKey: 1, comment: nil)
        return path
    }

    func mp3(_ fixture: Fixture) throws -> String {
        let path = "\(folder)/\(fixture.name).mp3"
        try Lame.encode(try sourceWAV(stereo: fixture.stereo), to: path, options: fixture.options)
        return path
    }

    /// The first `fraction` of the file's bytes, as `name`.
    func cut(_ path: String, to fraction: Double, as name: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = "\(folder)/\(name)"
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    /// Every frame libsndfile decodes from `path`, read block by block until the decoder ends, written to
    /// a float WAV: the reference the MP3's notch must match. Returns its path and the frame count.
    func decodedToFloatWAV(_ path: String) throws -> (path: String, frames: Int) {
        let input = try AudioFileInput(path: path)
        var channels = [[Float]](repeating: [], count: input.channelCount)
        let block = AudioBuffer(channelCount: input.channelCount, frameCapacity: 10_000)
        while true {
            let n = try block.withBlock { try input.read(into: $0) }
            if n == 0 { break }
            for c in channels.indices { channels[c] += block.samples(channel: c).prefix(n) }
        }
        let decoded = AudioBuffer(channelCount: input.channelCount, frameCapacity: input.framesRead)
        for c in channels.indices { decoded.withChannel(c) { x in _ = x.update(fromContentsOf: channels[c]) } }
        let wav = path + ".decoded.wav"
        try FileSink.write(decoded, sampleRate: input.sampleRate, gains: Array(repeating: 1, count: decoded.channelCount),
                                  to: wav, sampleFormat: .f32, ditherKey: 1, comment: nil)
        return (wav, input.framesRead)
    }

    /// Notches `input` at 3 kHz (½ octave, +20 dB edges: the issue's command) into `output` as f32.
    func notch(_ input: String, _ output: String, rate: Double? = nil) throws(ShadesError) -> NotchReport {
        try NotchedMusic.process(NotchJob(inputPath: input, outputPath: output,
                                          notches: [NotchSpec(centreHz: 3_000, widthOctaves: 0.5, edgeBoostDB: 20)],
                                          outputRateHz: rate, sampleFormat: .f32))
    }

    /// The notched MP3 is the notch of its decoded audio, sample for sample, and as long as decoded (also
    /// resampled to 48 kHz: round(n · 48000 / rate) frames). A headerless VBR file's length mpg123 estimates
    /// from its first frame (here the loud burst's, far larger than the average), and libsndfile never
    /// decodes past its estimate: that is found and reported.
    @Test(arguments: Fixture.all)
    func notchedMP3IsTheNotchOfItsDecodedAudioFrameForFrame(fixture: Fixture) throws {
        let path = try mp3(fixture)
        let reference = try decodedToFloatWAV(path)
        let input = try AudioFileInput(path: path)
        #expect(!input.lengthIsExact)
        for rate in [nil, 48_000.0] {
            let suffix = rate.map { "-\(Int($0))" } ?? ""
            let report = try notch(path, "\(folder)/\(fixture.name)\(suffix).wav", rate: rate)
            _ = try notch(reference.path, "\(folder)/\(fixture.name)-reference\(suffix).wav", rate: rate)
            let expectedFrames = rate.map {
                StreamingResampler.outputFrameCount(inputFrames: reference.frames, inputRate: Double(input.sampleRate), outputRate: $0)
            } ?? reference.frames
            let output = try DecodedAudio(contentsOf: "\(folder)/\(fixture.name)\(suffix).wav").buffer
            let expected = try DecodedAudio(contentsOf: "\(folder)/\(fixture.name)-reference\(suffix).wav").buffer
            #expect(report.inputFrames == reference.frames && report.frames == expectedFrames && output.frameCapacity == expectedFrames)
            if fixture.variableBitRate && !fixture.header {
                #expect(report.lengthWarning?.hasSuffix("\(fixture.name).mp3 is read only in part (libsndfile stops at its estimate of "
                                                        + "\(input.frameCount) frames, but the decoder has more: an MP3 of variable bit rate "
                                                        + "without a Xing/LAME header? Another decoder reads it whole)") == true,
                        "\(report.lengthWarning ?? "no warning")")
            } else {
                #expect(report.lengthWarning == nil, "\(report.lengthWarning ?? "")")
            }
            for c in 0..<output.channelCount {
                #expect(output.samples(channel: c) == expected.samples(channel: c), "\(fixture.name)\(suffix): channel \(c) differs")
            }
        }
        // With the header, libsndfile's count is the source's exactly (LAME's delay and padding removed).
        if fixture.header { #expect(reference.frames == input.frameCount && reference.frames == (fixture.stereo ? 88_200 : 44_100)) }
        if fixture.variableBitRate && !fixture.header {
            #expect(reference.frames == input.frameCount && reference.frames < (fixture.stereo ? 88_200 : 44_100) * 8 / 10,
                    "\(reference.frames) frames decoded")
            #expect(throws: ShadesError.self) { try DecodedAudio(contentsOf: path) }
        } else {
            #expect(try DecodedAudio(contentsOf: path).buffer.frameCapacity == reference.frames)
        }
    }

    /// Half an MP3 with its header announces the whole length: it is notched as far as it goes, with a
    /// one-line warning. Without a header the estimate shrinks with the file: nothing tells the cut.
    @Test func cutMP3IsNotchedAsFarAsItGoesWithAWarningWhenItsHeaderTellsTheCut() throws {
        let whole = try mp3(Fixture(variableBitRate: true, header: true, stereo: true))
        let half = try cut(whole, to: 0.5, as: "half.mp3")
        let reference = try decodedToFloatWAV(half)
        let report = try notch(half, "\(folder)/half-notched.wav")
        #expect(report.inputFrames == reference.frames && report.frames == reference.frames)
        #expect(reference.frames < 88_200 * 6 / 10)
        let warning = try #require(report.lengthWarning)
        #expect(warning.contains("half.mp3 is shorter than its header announces (\(reference.frames) of about 88200 frames decoded"), "\(warning)")
        #expect(throws: ShadesError.self) { try DecodedAudio(contentsOf: half) }

        let result = try Shell.run(["notch", "half.mp3", "--frequency", "3kHz", "--width", "0.5", "--edge-boost", "20dB", "-o", "cli.wav"],
                                   in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        // libmpg123 prints its own note on a cut file ("Xing stream size off …"); Shades says it once.
        let ours = result.stderr.split(separator: "\n").filter { $0.hasPrefix("shades:") }.map(String.init)
        let expected = "shades: warning: " + warning.replacingOccurrences(of: "\(folder)/", with: "")
        #expect(ours == [expected], "\(result.stderr)")

        let headerless = try cut(try mp3(Fixture(variableBitRate: false, header: false, stereo: true)), to: 0.5, as: "half-noheader.mp3")
        let silent = try notch(headerless, "\(folder)/half-noheader-notched.wav")
        let decoded = try decodedToFloatWAV(headerless).frames
        #expect(silent.lengthWarning == nil && silent.frames == decoded)
    }

    /// Truncation stays an error where the length is exact: the CLI's one line for WAV and FLAC.
    @Test(arguments: ["wav", "flac"])
    func truncatedWAVAndFLACAreStillRefused(kind: String) throws {
        let name = "cut.\(kind)"
        try Renderer.renderFile(RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 2),
                                to: "\(folder)/whole.\(kind)", sampleFormat: .s16)
        _ = try cut("\(folder)/whole.\(kind)", to: 0.5, as: name)
        let result = try Shell.run(["notch", name, "--frequency", "3kHz", "-o", "out.wav"], in: folder)
        #expect(result.status == 1 && !FileManager.default.fileExists(atPath: "\(folder)/out.wav"))
        #expect(result.stderr.hasPrefix("shades: error: cannot read \(name): the file is truncated or corrupt (")
                && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// `analyze` measures a truncated WAV but says that it is shorter than its header announces.
    @Test func analyzeWarnsOnATruncatedWAVAndMeasuresWhatIsThere() throws {
        try Renderer.renderFile(RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 2),
                                to: "\(folder)/whole.wav", sampleFormat: .s16)
        _ = try cut("\(folder)/whole.wav", to: 0.5, as: "cut.wav")
        let result = try Shell.run(["analyze", "cut.wav", "--json"], in: folder)
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("shades: warning: cut.wav is shorter than its header announces (data chunk of"),
                "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let frames = try #require(report?["frames"] as? Int)
        #expect(abs(frames - 48_000) < 100, "\(frames) frames measured")
        #expect((report?["lengthWarning"] as? String) == String(lines[0].dropFirst("shades: warning: ".count)))
    }
}
