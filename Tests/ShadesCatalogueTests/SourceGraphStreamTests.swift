import Testing
import Foundation
import ShadesAnalysis
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// One source graph (issue 12): every sound Shades writes streams through the public API block by block,
/// and the stream's samples are what the file sink writes before its final gain. Checked for every
/// default catalogue sound, the personalised sounds at 6 kHz (with notched music from an MP3), a pulsed
/// audiometry tone and notched music from `shades notch`, all in random blocks of 1 … 5,000 frames.
@Suite struct SourceGraphStreamTests {
    static let presetsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path

    /// Renders `frames` frames of `source` in random blocks of 1 … `maxBlock` frames.
    static func stream(_ source: any AudioSource, frames: Int, seed: UInt64, maxBlock: Int = 5_000) -> AudioBuffer {
        let buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: frames)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var done = 0
        while done < frames {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let n = min(frames - done, 1 + Int((state >> 33) % UInt64(maxBlock)))
            buffer.withBlock(frames: done..<done + n) { source.render(into: $0) }
            done += n
        }
        return buffer
    }

    /// An 8-second stereo song as an MP3 (LAME), in a folder of its own.
    static func musicFolder() throws -> String {
        let folder = temporaryFolder("stream-music")
        let rate = 44_100.0
        let song = try AmplitudeModulatedSource(carrier: NoiseSource(colour: .pink, sampleRate: rate, layout: .stereo, levelDBFS: -18, seed: 4),
                                                rateHz: 3, depth: 0.5).renderBuffer(frameCount: Int(8 * rate))
        try FileSink.write(song, sampleRate: Int(rate), gains: [1, 1], to: "\(folder)/song.wav", sampleFormat: .s16, ditherKey: 1, comment: nil)
        try Lame.encode("\(folder)/song.wav", to: "\(folder)/song.mp3", options: ["-b", "128"])
        try FileManager.default.removeItem(atPath: "\(folder)/song.wav")
        return folder
    }

    /// Every default catalogue sound and the personalised ones (6 kHz, notched music from an MP3), 8 s
    /// each: the stream equals the builder's buffer to the bit, and the catalogue's f32 files are that
    /// buffer times the loudness gain.
    @Test func everyCatalogueSoundStreamsAsItsFileHoldsIt() throws {
        var documents = try PresetParser.loadCatalogue(folder: Self.presetsFolder)
        for i in documents.indices { documents[i].document.defaults.lengthSeconds = 8 }
        var (assets, categories) = try PresetAssets.resolve(documents)
        let music = try Self.musicFolder()
        defer { try? FileManager.default.removeItem(atPath: music) }
        let personal = try PresetAssets.personal(frequencyHz: 6_000, defaults: documents[0].document.defaults, musicFolder: music)
        assets += personal.assets
        categories.append(personal.category)
        #expect(assets.count == 23 + 8 && assets.contains { $0.request.sound.file != nil })
        for i in assets.indices { assets[i].sampleFormat = .f32 }

        let folder = temporaryFolder("stream-catalogue")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = try CatalogueBuilder.build(assets: assets, categories: categories, into: folder)
        for (k, asset) in assets.enumerated() {
            let stream = try asset.makeStream()
            let streamed = Self.stream(stream.source, frames: stream.frameCount, seed: UInt64(k))
            let built = try asset.renderBuffer()
            #expect(built.buffer.frameCapacity == stream.frameCount, "\(asset.id)")
            let sound = try #require(manifest.sounds.first { $0.id == asset.id })
            let file = try DecodedAudio(contentsOf: "\(folder)/\(sound.file)").buffer
            #expect(file.frameCapacity == stream.frameCount, "\(asset.id)")
            // The loudness gain the builder applied, from the level it recorded.
            let gain = Float(Decibels.amplitude(sound.levelGainDB))
            for c in 0..<streamed.channelCount {
                let x = streamed.samples(channel: c), y = built.buffer.samples(channel: c), z = file.samples(channel: c)
                #expect(x == y, "\(asset.id) channel \(c): the stream is not the builder's buffer")
                let worst = zip(x, z).map { abs($0 * gain - $1) / max(abs($1), 1e-30) }.max() ?? 0
                #expect(worst <= 3e-7, "\(asset.id) channel \(c): file differs from stream × gain by \(worst) (relative)")
            }
        }
    }

    /// A pulsed audiometry tone and a notched noise with AM streamed from their request: the unscaled
    /// stream times the file's gains is the f32 file, sample for sample.
    @Test(arguments: [
        RenderRequest(sound: .tone(frequencyHz: 1_000), durationSeconds: 3, layout: .right, levelDBFS: -30,
                      pulses: Pulses(onSeconds: 0.2, offSeconds: 0.2, rampSeconds: 0.025)),
        RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 4, seed: 3,
                      modulation: Modulation(rateHz: 10), fades: Fades(inSeconds: 0.5, outSeconds: 0.5),
                      notches: [NotchSpec(centreHz: 6_000)]),
    ])
    func renderRequestStreamsAsItsFileHoldsIt(request: RenderRequest) throws {
        let folder = temporaryFolder("stream-render")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/out.wav"
        let report = try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let graph = try SoundGraph(request)
        let file = try DecodedAudio(contentsOf: path).buffer
        let unscaled = Self.stream(graph.makeUnscaledSource(), frames: graph.frames, seed: 7)
        let scaled = Self.stream(graph.makeSource(gains: report.gains), frames: graph.frames, seed: 8)
        #expect(graph.exactGains() == report.gains)
        let channelGains = graph.channelGains(report.gains)
        for c in 0..<file.channelCount {
            let z = file.samples(channel: c)
            #expect(unscaled.samples(channel: c).map { $0 * channelGains[c] } == z, "channel \(c)")
            #expect(scaled.samples(channel: c) == z, "channel \(c)")
        }
    }

    /// Notched music from an MP3 as a stream (file source → notch with a silent past) equals what
    /// `NotchedMusic` writes, before its gain (f32, so nothing is dithered).
    @Test func notchedMusicFromAnMP3StreamsAsTheNotchWritesIt() throws {
        let music = try Self.musicFolder()
        defer { try? FileManager.default.removeItem(atPath: music) }
        let output = "\(music)/notched.wav"
        let report = try NotchedMusic.process(NotchJob(inputPath: "\(music)/song.mp3", outputPath: output,
                                                       notches: [NotchSpec(centreHz: 6_000)],
                                                       outputRateHz: 48_000, sampleFormat: .f32))
        let file = try AudioFileSource(path: "\(music)/song.mp3", sampleRate: 48_000)
        let notched = try NotchedSource(source: file, design: NotchDesign(notches: [NotchSpec(centreHz: 6_000)], sampleRate: 48_000),
                                        alignment: .silentPast)
        let streamed = Self.stream(notched, frames: report.frames + 1_000, seed: 3)
        #expect(file.frameCount == report.frames && file.failure == nil)
        let written = try DecodedAudio(contentsOf: output).buffer
        let gain = Float(Decibels.amplitude(report.gainDB))
        for c in 0..<2 {
            let x = Array(streamed.samples(channel: c)[0..<report.frames]), z = written.samples(channel: c)
            let worst = zip(x, z).map { abs($0 * gain - $1) / max(abs($1), 1e-30) }.max() ?? 0
            #expect(worst <= 3e-7, "channel \(c): \(worst)")
        }
    }

    /// A preset as `shades play --preset` plays it: the catalogue file's samples, looped, with the gain that
    /// brings them to the preset's loudness target (within 0.05 LU, as measured here again).
    @Test func aPresetLoopsAtItsCatalogueLoudness() throws {
        let sound = try PresetAssets.sound(id: "pink-am10", presetsFolder: Self.presetsFolder)
        let (loop, gainDB) = try sound.makeLoop()
        let frames = sound.request.frameCount
        let played = loop.renderBuffer(frameCount: frames + 100)
        for c in 0..<2 {
            #expect(played.samples(channel: c)[frames..<(frames + 100)] == played.samples(channel: c)[0..<100], "the loop wraps")
        }
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: loop.sampleRate, truePeak: false)
        let gain = Float(Decibels.amplitude(gainDB))
        let scaled = AudioBuffer(channelCount: 2, frameCapacity: frames)
        for c in 0..<2 { scaled.withChannel(c) { x in _ = x.update(fromContentsOf: played.samples(channel: c)[0..<frames].map { $0 * gain }) } }
        try scaled.withBlock { (block: AudioBlock) throws(ShadesError) in try meter.add(block) }
        let loudness = try #require(try meter.result().integratedLUFS)
        #expect(abs(loudness - sound.loudnessLUFS) <= 0.05, "\(loudness) LUFS, target \(sound.loudnessLUFS)")
    }
}

/// The README's library example, as written there (with its files in a temporary folder).
@Suite struct ReadmeLibraryExampleTests {
    /// The README's library example, line for line, with the engine rendered here instead of a sound card.
    @Test func theLibraryExampleRuns() throws {
        let folder = temporaryFolder("readme-library")
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let json = #"{ "source": "pink", "am": { "rateHz": 10 }, "notch": [ { "centreHz": 6000 } ] }"#
        let sound = Sound(.noise(colour: .pink, distribution: .gaussian)).modulated(rateHz: 10).notched(at: 6_000)
        #expect(try Sound.parse(json: Array(json.utf8), file: "sound.json") == sound)

        let request = RenderRequest(sound: sound, durationSeconds: 6, level: .rms(dBFS: -23))
        let graph = try SoundGraph(request)

        let stream = graph.makeSource()
        let buffer = AudioBuffer(channelCount: 2, frameCapacity: 512)
        buffer.withBlock { stream.render(into: $0) }
        #expect(buffer.samples(channel: 0).contains { $0 != 0 })

        let engine = PlayerEngine(sampleRate: 48_000, channelCount: 2)
        try engine.play(try graph.makeLiveStream().source, gainDB: 0, fadeInSeconds: 1)
        buffer.withBlock { engine.render(into: $0) }
        #expect(engine.framesRendered == 512)

        try Renderer.renderFile(request, to: "\(folder)/pink-am10-notched.flac", sampleFormat: .s24)
        #expect(try DecodedAudio(contentsOf: "\(folder)/pink-am10-notched.flac").buffer.frameCapacity == 6 * 48_000)
    }
}
