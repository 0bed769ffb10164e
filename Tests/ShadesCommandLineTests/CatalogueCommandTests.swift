import Testing
import Foundation
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// `shades catalogue build|check` as `make catalogue` runs it.
@Suite struct CatalogueCommandTests {
    let folder = temporaryFolder("catalogue-cli")

    func writePresets(_ json: String, name: String = "small.json") throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try json.write(toFile: "\(folder)/presets/\(name)", atomically: true, encoding: .utf8)
    }

    let small = """
    {
      "defaults": { "loudnessLUFS": -23, "rate": 48000, "lengthSeconds": 5 },
      "categories": [
        { "id": "noise", "titles": { "en": "Noise", "de": "Rauschen" }, "sounds": [
          { "id": "pink", "titles": { "en": "Pink", "de": "Rosa" }, "sound": { "layers": [ { "source": "pink" } ] } },
          { "id": "surf", "titles": { "en": "Surf", "de": "Brandung" },
            "sound": { "layers": [ { "source": "brown", "swell": { "periodSeconds": 2.5, "depth": 0.6 } },
                                    { "source": "grey", "gainDB": -12 } ] } }
        ] }
      ]
    }
    """

    @Test func buildCheckRebuildAndPersonalise() throws {
        try writePresets(small)
        var result = try Shell.run(["catalogue", "build", "presets", "-o", "out"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = try Manifest.read(folder: "\(folder)/out")
        #expect(manifest.sounds.map(\.id) == ["pink", "surf"])
        for sound in manifest.sounds {
            #expect(abs(sound.integratedLoudnessLUFS - -23) <= 0.1 && sound.truePeakDBTP <= -1)
        }
        #expect(FileManager.default.fileExists(atPath: "\(folder)/out/index.html"))
        result = try Shell.run(["catalogue", "check", "out"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")

        // Nothing changed: every asset reused.
        result = try Shell.run(["catalogue", "build", "presets", "-o", "out"], in: folder)
        #expect(result.stdout.components(separatedBy: "(reused)").count - 1 == 2, "\(result.stdout)")

        result = try Shell.run(["catalogue", "build", "presets", "-o", "out", "--tinnitus-frequency", "6kHz"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let personal = try Manifest.read(folder: "\(folder)/out").sounds.filter { $0.frequencyHz == 6000 }
        #expect(personal.count == 7)

        // A tampered file is found.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(folder)/out/pink.wav"))
        try handle.seek(toOffset: 10_000); try handle.write(contentsOf: Data(repeating: 0x55, count: 1000)); try handle.close()
        result = try Shell.run(["catalogue", "check", "out"], in: folder)
        #expect(result.status == 1 && result.stderr.contains("pink"), "\(result.stderr)")
    }

    @Test func musicFolderBecomesNotchedMusicAtTheTinnitusFrequency() throws {
        try writePresets(small)
        try FileManager.default.createDirectory(atPath: "\(folder)/music", withIntermediateDirectories: true)
        var result = try Shell.run(["render", "pink", "--duration", "8s", "--format", "f32", "-o", "music/Song One.wav"], in: folder)
        #expect(result.status == 0)
        _ = FileManager.default.createFile(atPath: "\(folder)/music/cover.txt", contents: Data("not audio".utf8))
        // An MP3 (its length only estimated by libsndfile) at 44.1 kHz: the sound has its decoded length at 48 kHz.
        result = try Shell.run(["render", "pink", "--duration", "3s", "--rate", "44100", "--format", "s16", "-o", "song-two.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        try Lame.encode("\(folder)/song-two.wav", to: "\(folder)/music/Song Two.mp3", options: ["-V", "4"])
        let mp3 = try AudioFileInput(path: "\(folder)/music/Song Two.mp3")
        let block = AudioBuffer(channelCount: mp3.channelCount, frameCapacity: 65_536)
        while try block.withBlock({ try mp3.read(into: $0) }) > 0 {}
        result = try Shell.run(["catalogue", "build", "presets", "-o", "out", "--tinnitus-frequency", "4kHz", "--music", "music"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        // The file skipped is named on a line of its own; the frequency is a number in the manifest.
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("cover.txt") }.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("shades: warning: skipped music/cover.txt: not a sound file"))
        let manifestJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/out/manifest.json")))
        #expect((manifestJSON as? [String: Any])?["tinnitusFrequencyHz"] as? Double == 4_000)
        let sounds = try Manifest.read(folder: "\(folder)/out").sounds
        // A music sound's recipe names its file (relative to the music folder) with its bytes, frames and rate, and its notch.
        let recipe = try #require(sounds.first { $0.id == "personal-music-song-two" }?.recipe)
        #expect(recipe.file?.path == "Song Two.mp3" && recipe.file?.sampleRate == 44_100 && (recipe.file?.bytes ?? 0) > 0)
        #expect(recipe.notches == [NotchSpec(centreHz: 4_000, widthOctaves: 1)])
        let songTwo = try #require(sounds.first { $0.id == "personal-music-song-two" })
        #expect(songTwo.frames == StreamingResampler.outputFrameCount(inputFrames: mp3.framesRead, inputRate: 44_100, outputRate: 48_000))
        // The recipe's frames are the file's own (decoded at 44.1 kHz), not the 48 kHz asset's.
        #expect(songTwo.recipe.file?.frames == mp3.framesRead && songTwo.recipe.file?.sampleRate == 44_100 && songTwo.sampleFormat == .s24)
        #expect(abs(songTwo.integratedLoudnessLUFS - -23) <= 0.1 && songTwo.truePeakDBTP <= -1)
        let song = try #require(sounds.first { $0.id == "personal-music-song-one" })
        #expect(abs(song.integratedLoudnessLUFS - -23) <= 0.1 && song.truePeakDBTP <= -1 && song.frequencyHz == 4000)
        // The octave at 4 kHz is gone (16-bit output: its dither sets the floor near −75 dB).
        result = try Shell.run(["analyze", "out/\(song.file)", "--reference", "music/Song One.wav", "--notch", "4kHz", "--json"], in: folder)
        let notch = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["notch"] as? [String: Any]
        #expect(((notch?["worstInBandDB"] as? Double) ?? 0) < -60, "\(result.stdout.prefix(400))")
        #expect((notch?["lagSamples"] as? Int) == 0)

        try FileManager.default.createDirectory(atPath: "\(folder)/empty", withIntermediateDirectories: true)
        result = try Shell.run(["catalogue", "build", "presets", "-o", "out2", "--tinnitus-frequency", "4kHz", "--music", "empty"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("no readable sound files"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out2"))
    }

    /// A loudness too high for several sounds names each, with the highest it can reach, in one line.
    @Test func aLoudnessTooHighListsEverySoundThatCannotReachIt() throws {
        try writePresets(small)
        let result = try Shell.run(["catalogue", "build", "presets", "-o", "out", "--loudness", "-3"], in: folder)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("shades: error: 2 sounds cannot reach their loudness"), "\(result.stderr)")
        #expect(result.stderr.contains("pink (at most -") && result.stderr.contains("surf (at most -"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out"))
    }

    /// Music file names become readable ids.
    @Test func musicIDsAreReadable() {
        #expect(PresetAssets.readableID("machine_wars") == "machine-wars")
        #expect(PresetAssets.readableID("Machine Wars (live)") == "machine-wars-live")
        #expect(PresetAssets.readableID("Mächtige Straße") == "machtige-strasse")
        #expect(PresetAssets.readableID("  ") == "file")
    }

    @Test func badPresetsAreOneLinePerProblemAndNothingIsWritten() throws {
        try writePresets(small.replacingOccurrences(of: "\"titles\": { \"en\": \"Pink\"", with: "\"titels\": { \"en\": \"Pink\""))
        var result = try Shell.run(["catalogue", "build", "presets", "-o", "out"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("did you mean 'titles'"), "\(result.stderr)")
        try writePresets(small.replacingOccurrences(of: "\"rate\": 48000,", with: "\"rate\": 48000"))
        result = try Shell.run(["catalogue", "build", "presets", "-o", "out"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("small.json:2:"), "\(result.stderr)")
        try writePresets(small)
        result = try Shell.run(["catalogue", "build", "presets", "-o", "out", "--tinnitus-frequency", "23kHz"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("tinnitus-frequency"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out"))
    }
}
