import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesCatalogue
import ShadesTestSupport

/// One sound, one description: what the catalogue writes is what `shades render --sound` makes of the
/// manifest's recipe, and a sound file given to `render --sound` reads as the preset format.
@Suite struct SameSoundTests {
    static let presetsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path

    /// The largest difference allowed between a catalogue file and a render scaled by one gain: the
    /// quantisation of the asset's format (rounding and TPDF dither: at most 1.5 LSB) plus Float rounding.
    static func tolerance(_ format: SampleFormat) -> Float {
        switch format {
        case .s16: return 2 / 32_768
        case .s24: return 2 / 8_388_608
        case .f32: return 1e-6
        }
    }

    /// Every default and personalised (6 kHz) sound, 4 s long: its manifest recipe rendered by `shades
    /// render --sound` with the entry's duration, rate and loop setting (channels and seed are the
    /// recipe's) gives the catalogue file's samples up to a gain per channel, within the file's quantisation.
    @Test func everyManifestRecipeRendersAsTheCatalogueFile() throws {
        let folder = temporaryFolder("same-sound")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/presets", withIntermediateDirectories: true)
        let presets = try String(contentsOfFile: Self.presetsFolder + "/default.json", encoding: .utf8)
            .replacingOccurrences(of: #""lengthSeconds": 60"#, with: #""lengthSeconds": 4"#)
            .replacingOccurrences(of: #""decaySeconds": 6"#, with: #""decaySeconds": 2"#)  // a surf wave in a 4 s loop
        try presets.write(toFile: folder + "/presets/default.json", atomically: true, encoding: .utf8)
        let build = try Shell.run(["catalogue", "build", "presets", "-o", "cat", "--tinnitus-frequency", "6kHz"], in: folder)
        try #require(build.status == 0, "\(build.stderr)")
        let manifest = try Manifest.read(folder: folder + "/cat")
        #expect(manifest.sounds.count == 30)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        for sound in manifest.sounds {
            try encoder.encode(sound.recipe).write(to: URL(fileURLWithPath: folder + "/recipe.json"))
            var arguments = ["render", "--sound", "recipe.json", "--duration", "\(sound.durationSeconds)", "--rate", "\(sound.sampleRate)",
                             "--format", "f32", "-o", "render.wav"]
            if sound.loop { arguments.append("--loop") }
            let render = try Shell.run(arguments, in: folder)
            try #require(render.status == 0, "\(sound.id): \(render.stderr)")
            let asset = try DecodedAudio(contentsOf: folder + "/cat/" + sound.file).buffer
            let rendered = try DecodedAudio(contentsOf: folder + "/render.wav").buffer
            #expect(asset.channelCount == rendered.channelCount && asset.frameCapacity == rendered.frameCapacity, "\(sound.id)")
            // A gain per channel, by least squares: a render written in one pass at the expected gain puts
            // each channel within the level tolerance of the asked level, where the catalogue levels both
            // exactly, so the channels' gains may differ by up to twice the tolerance.
            var gains: [Float] = []
            for c in 0..<asset.channelCount {
                var product = 0.0, power = 0.0
                for (a, r) in zip(asset.samples(channel: c), rendered.samples(channel: c)) {
                    product += Double(a) * Double(r)
                    power += Double(r) * Double(r)
                }
                let gain = Float(power > 0 ? product / power : 1)
                if power > 0 { gains.append(gain) }  // a silent channel has no gain to compare
                var worst: Float = 0
                for (a, r) in zip(asset.samples(channel: c), rendered.samples(channel: c)) { worst = max(worst, abs(a - gain * r)) }
                #expect(worst <= Self.tolerance(sound.sampleFormat) + 1e-6 * gain,
                        "\(sound.id) channel \(c): the file differs from the render × \(gain) by \(worst)")
            }
            if let lowest = gains.min(), let highest = gains.max() {
                #expect(Decibels.fromAmplitude(Double(highest / lowest)) <= 2 * Renderer.levelToleranceDB + 1e-4,
                        "\(sound.id): the channels' gains \(gains) differ by more than the level tolerance allows")
            }
        }
    }

    /// A sound file in the preset format: read with positions in its errors, rendered like the same sound
    /// given as options.
    @Test func aSoundFileRendersAsTheSameOptionsDo() throws {
        let folder = temporaryFolder("sound-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{ "source": "pink", "am": { "rateHz": 10, "depth": 1 }, "seed": 7 }"#.write(toFile: folder + "/am.json", atomically: true, encoding: .utf8)
        let fromFile = try Shell.run(["render", "--sound", "am.json", "--duration", "3s", "-o", "a.wav"], in: folder)
        let fromOptions = try Shell.run(["render", "pink", "--am", "10", "--seed", "7", "--duration", "3s", "-o", "b.wav"], in: folder)
        #expect(fromFile.status == 0 && fromOptions.status == 0, "\(fromFile.stderr) \(fromOptions.stderr)")
        let a = try DecodedAudio(contentsOf: folder + "/a.wav").buffer, b = try DecodedAudio(contentsOf: folder + "/b.wav").buffer
        #expect((0..<2).allSatisfy { a.samples(channel: $0) == b.samples(channel: $0) })

        try "{ \"source\": \"pink\",\n  \"am\": { \"rate\": 10 } }".write(toFile: folder + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try Shell.run(["render", "--sound", "bad.json", "--duration", "1s", "-o", "c.wav"], in: folder)
        #expect(bad.status == 2)
        #expect(bad.stderr == "shades: error: bad.json:2:11: unknown key 'rate' (did you mean 'rateHz'?)\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.wav"))
    }

    /// A mix of a tone in the left ear and pink noise in the right: each ear has only its layer.
    @Test func aMixPutsEachLayerInItsEars() throws {
        let sound = Sound.mix([Layer(Sound(.tone(frequencyHz: 1_000)), ears: .left),
                               Layer(Sound(.noise(colour: .pink, distribution: .gaussian)), gainDB: -6, ears: .right)])
        let rendered = try Renderer.render(RenderRequest(sound: sound, durationSeconds: 2))
        let left = rendered.buffer.samples(channel: 0), right = rendered.buffer.samples(channel: 1)
        // The left ear is the tone alone: a sine of one frequency, whose samples obey x[n+1] + x[n−1] = 2cos(ω)·x[n].
        let twoCos = Float(2 * cos(2 * Double.pi * 1_000 / 48_000))
        var worst: Float = 0
        for n in 1..<left.count - 1 {
            let predicted: Float = twoCos * left[n] - left[n - 1]
            worst = max(worst, abs(left[n + 1] - predicted))
        }
        #expect(worst < 1e-5)
        // The right ear is noise (not a sine) at 6 dB below the tone's reference level.
        let rms = { (x: [Float]) in (x.map { Double($0) * Double($0) }.reduce(0, +) / Double(x.count)).squareRoot() }
        #expect(abs(Decibels.fromAmplitude(rms(right) / rms(left)) + 6) < 0.01)
    }

    /// One level policy: a loud file notched by `notch`, rendered by `render` and streamed for `play` is
    /// lowered by the same gain to its −1 dBTP ceiling.
    @Test func aLoudFileIsLoweredAlikeByNotchRenderAndPlay() throws {
        let folder = temporaryFolder("one-ceiling")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loud = folder + "/loud.wav"
        try Renderer.renderFile(RenderRequest(sound: .tone(frequencyHz: 1_000), durationSeconds: 5, levelDBFS: -3.5),
                                to: loud, sampleFormat: .f32)
        let notched = try NotchedMusic.process(NotchJob(inputPath: loud, outputPath: folder + "/notched.wav",
                                                        notches: [NotchSpec(centreHz: 4_000)], sampleFormat: .f32))
        #expect(notched.gainDB < -0.5, "the file is not loud enough to be lowered: \(notched.gainDB) dB")
        let request = RenderRequest(sound: Sound.file(path: loud).notched(at: 4_000), durationSeconds: RenderRequest.untilEndOfFile,
                                    sampleRate: 48_000)
        #expect(request.level == .truePeakCeiling(dBTP: -1))
        let live = try SoundGraph(request).makeLiveStream()
        let rendered = try Renderer.renderFile(request, to: folder + "/rendered.wav", sampleFormat: .f32)
        #expect(abs(live.gainDB - notched.gainDB) < 0.001, "play \(live.gainDB) dB, notch \(notched.gainDB) dB")
        #expect(abs(Decibels.fromAmplitude(Double(rendered.gains[0])) - notched.gainDB) < 0.001)
        #expect(live.frames == notched.frames && rendered.frames == notched.frames)
    }
}
