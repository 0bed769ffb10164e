import Testing
import Foundation
import ShadesCatalogue
import ShadesTestSupport

/// The files the command line writes are study data: the same command must write the same bytes in every
/// version, unless a change says otherwise (and records new hashes here, with the reason in its commit).
/// The README's examples (shortened where the length changes nothing but the size), a notch of a generated
/// file, both stimulus sets and the default and personalised catalogues, against SHA-256s recorded with the
/// Swift kernels before the C kernels replaced them.
@Suite struct OutputHashTests {
    static let presetsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path

    /// Commands and what each must write (an empty hash: an input for the next command of its group).
    static let commands: [(command: String, output: String, sha256: String)] = [
        ("render pink --duration 10s --rate 48000 --channels stereo --level -20 --seed 7 --format s16 -o pink.wav",
         "pink.wav", "e591d54947bc17827c6b9542338c5087ffe0a5c511fb15bb20e9c44e6feda3d0"),
        ("render white --duration 9s -o white.flac", "white.flac", "b7ab3baf170943a5a09e17a4f1cc5930c15abdee80ed090bb94019462cef0f38"),
        ("render brown --duration 10s --loop -o brown.wav", "brown.wav", "dcb81049d7bd58caff887ba7ed37363958910f42ef9e6eca876d53d9535e6af0"),
        ("render noise --beta 0.5 --duration 3s -o tilt.wav", "tilt.wav", "c619f13c0bc62cfedfb70f2807a97ee6a5a640cac571c1264c46e82eadc5e1f8"),
        ("render tone --frequency 6kHz --duration 2s --channels left -o tone.wav",
         "tone.wav", "765d5e6ef405da23345290b46d50cabe3bf6762c3b99c50ab96e64f86d2f011c"),
        ("render tone --frequency 6000.3 --duration 1s --loop -o loop-tone.wav",
         "loop-tone.wav", "263cc9fe4610165adcea914ff040e85f41720682b34404119396e6f14f3769e9"),
        ("render pink --am 10 --am-depth 1 --duration 3s -o am-pink.wav",
         "am-pink.wav", "b3f17c297dc99f399c4f2910d803e9b1f970eb04cf11975d187019f1181111b7"),
        ("render tone --frequency 6kHz --am 40 --duration 3s -o am-tone.wav",
         "am-tone.wav", "9f63f32832142706d9be365e27c3f210c2f3ce48346516273f861f96d7d10baa"),
        ("render nbn --frequency 4kHz --width 0.5 --duration 6s -o nbn.wav",
         "nbn.wav", "f0bfb7cd815d127d986c596e10c3b25b89515585b604eb9b64036d3e11262941"),
        ("render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 10s --channels right -o pulses.wav",
         "pulses.wav", "67bb3543593edc7499ecfc6ef286f27e8d5cb13edb011a6b4a1123c7486cb999"),
        ("render brown --am 10.3 --duration 60.05s --loop -o am-brown-loop.wav",
         "am-brown-loop.wav", "10a794c71b4e8cfcf9b5b8d1cd3fe540be2a60ecdde8ebbec358c486a10962ef"),
        ("render pink --duration 20s --rate 44100 --seed 5 -o song.wav", "song.wav", ""),
        ("notch song.wav --frequency 6kHz -o song-notched.wav",
         "song-notched.wav", "05f999e5dd84ed2757bae6c0782c55da435c8fb2a842e58f0c8e4796cfeff32e"),
        // Recorded anew when the best resampling became the rational FFT resampler (issue 21; libsamplerate's
        // best converter before: c3ab926b…fb4da).
        ("notch song.wav --frequency 4kHz --width 0.5 --edge-boost 20dB --rate 48000 --format f32 -o out.wav",
         "out.wav", "4c73eb9f0f9a96ab24a9c03f9aca300c4a13685206354172f1f6b639f553c95d"),
        // Recorded anew when file names took frequencies to 0.01 Hz ("nbn-1189.21Hz.wav", was "1189.207Hz"):
        // every file's bytes are unchanged (56c53fbe…b7871 before).
        ("stimuli pitch-match -o pitch", "pitch", "80dc7d2c15dd95b988fd9db2c8601408762e4ff5b40e955ff20ce72cbb6dd475"),
        // Audiometry and the catalogues recorded anew when comments took numbers for people (12 significant
        // digits: `duration=1s`, not `duration=1.0000000000000002s`): every file's samples are unchanged.
        ("stimuli audiometry --ear both -o audiometry", "audiometry", "1b7f9e9727be70112717acd680553dfa173ab158be4e270af962febb9828466d"),
        // The manifest holds every asset's SHA-256 (and the resolved recipes, loudness and true peaks) and the
        // presets folder. Recorded anew with manifest schema 2 (the recipe is the asset's Sound; notched assets
        // are 24-bit); every noise, tone and AM asset's hash in it is unchanged. Before that: and the
        // presets folder as given: `presets`, a link to the repository's, so the bytes do not depend on where
        // the repository is (the hashes recorded with an absolute path held only in one checkout).
        // Recorded anew when the default presets gained velvet noise, fractal tones, binaural beats, an
        // isochronic tone and a sound per ear (issue 24): every earlier asset's hash in them is unchanged (the
        // old presets still give 01a74388… and 28678835…, the hashes recorded before). Recorded anew again when
        // comments took numbers for people (issue 23): the assets' samples are unchanged. Recorded anew when the
        // nature category gained surf and wavy brown noise (issue 35): the presets without them still give
        // 02eb167a…c3fb7309, the hash recorded before, so every earlier asset is unchanged.
        ("catalogue build presets -o catalogue", "catalogue/manifest.json", "39a693137e18f12a4c4e11326f9ddbb8179f8b4434ab4caeaa3bd8947ed94c7b"),
        // Recorded anew when the build parameters named the tinnitus frequency ("tinnitus-frequency": "6000 Hz";
        // 7aeea1ae…67df9 before): nothing else in it changed. Recorded anew with surf and wavy brown noise
        // (c329c4cf…503cf6ec1 before).
        ("catalogue build presets -o personal --tinnitus-frequency 6kHz",
         "personal/manifest.json", "52d82c050eb6028363229a427664d8fa1afaf2a87d5cd757ac690433168481a2"),
        // The generative sounds (issue 24); the fractal's comment gives its frequencies to 12 significant
        // digits since issue 23 (its samples unchanged).
        ("render binaural --carrier 200Hz --beat 10Hz --duration 3s -o binaural.wav",
         "binaural.wav", "1689178d6e68665cf96baee2a4fc91ab59596e58011cb55f16e9e63d56da4d8f"),
        ("render isochronic --frequency 200Hz --beat 10Hz --duty 0.5 --ramp 5ms --duration 3s -o isochronic.wav",
         "isochronic.wav", "308204126d4b1e61ab2efe3f737c836e58e7d26c3e56f66e3f621a93ea5c7ec8"),
        ("render velvet --density 2000 --duration 3s -o velvet.wav", "velvet.wav", "ae52afb40decc51a2e47721a58439531741b654d67a79f9bf878c64cd724f020"),
        ("render fractal --scale pentatonic --tempo 80 --seed 4 --duration 10s -o fractal.wav",
         "fractal.wav", "fe14664d009c496c52a5bd903e28f7b83416cf47fd97bb37eeebb1a3cb046a55"),
        // Random amplitude modulation and surf waves (issue 35).
        ("render brown --random-am 0.2 --random-am-depth 12 --duration 10s -o wavy.wav",
         "wavy.wav", "f882eddc2dad7241c19a3e4920f6d41f38e4d1068266dfe5d4bf1e417f494510"),
        ("render pink --surf 5s --surf-decay 3s --level -26 --duration 10s -o surf.wav",
         "surf.wav", "6a07c66fd644599a664bce130c904fe5d196c70304cefe48de77657360a11633"),
        // Speech-shaped and high-tone noise, the tinnitus-like sounds and their set (issue 35).
        ("render speech-noise --duration 3s -o speech.wav", "speech.wav", "bc095f0037e066e109c3d01127f57c4bc7e8e0a3e57fb30d00e765010f5d108c"),
        ("render high-tone-noise --corner 2kHz --slope 12 --duration 3s -o high-tone.wav", "high-tone.wav", "8b4eaac350222acb2b5d7b5fc670619352d0adb0ed99d980f629b314b8750baa"),
        ("render tinnitus-tone --frequency 6kHz --harmonics -12,-20 --duration 3s -o tonal.wav", "tonal.wav", "9351b5711b9857a992831e87d638d04d332070ff2050bf1d5e265e9709a05eeb"),
        ("render tinnitus-hiss --frequency 6kHz --width 1 --duration 3s -o hiss.wav", "hiss.wav", "e00b6d763ac61c477c350fddb9c29aa4af171e8e19a48058f6ec66e1ae37aa6b"),
        ("render tinnitus-pulse --frequency 500Hz --width 2 --heart-rate 72 --duration 3s -o pulsatile.wav", "pulsatile.wav", "2989044c4f9be7e1b3a7791b49e0c66a9cda3ad59919c555d155a79020967b51"),
        ("render tinnitus-roar --frequency 150Hz --width 2 --fluctuation 1 --fluctuation-depth 0.5 --duration 3s -o roar.wav",
         "roar.wav", "a5c98f434559506fbb0cf1d3a0bd56dcaa7c945d2d2a50e04865500c8c987d56"),
        ("render tinnitus-cricket --frequency 5kHz --chirp-rate 2.5 --syllables 3 --syllable-rate 30 --duration 3s -o cricket.wav",
         "cricket.wav", "c142daa0fe0aad645d95a64f779bd4d7861f36d8277f722f6da0aafa07d24ffa"),
        ("stimuli tinnitus-quality --frequency 6kHz --duration 2s -o quality", "quality", "8ab8c4eb89c98e3d0bd1928ca87c3f4e2b43ce4e18892e2ea16ab234bd156a01"),
    ]

    /// SHA-256 of a file, or of a folder's files concatenated in name order.
    static func hash(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "missing" }
        guard isFolder.boolValue else { return SHA256.hex(ofFile: path) ?? "unreadable" }
        var digest = SHA256()
        for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
            digest.update(try Data(contentsOf: URL(fileURLWithPath: "\(path)/\(name)")))
        }
        return SHA256.hexString(digest.finalize())
    }

    /// Groups run in parallel, each in its own folder: renders, the two notches (after their input), the
    /// stimulus sets, the two catalogues, the generative sounds, the sounds of issue 35.
    static let groups: [Range<Int>] = [0..<11, 11..<14, 14..<16, 16..<17, 17..<18, 18..<22, 22..<32]

    @Test(arguments: groups)
    func everyRecordedOutputHasItsRecordedBytes(group: Range<Int>) throws {
        let folder = temporaryFolder("hashes")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/presets", withDestinationPath: Self.presetsFolder)
        for (command, output, expected) in Self.commands[group] {
            let arguments = command.split(separator: " ").map(String.init)
            let result = try Shell.run(arguments, in: folder)
            try #require(result.status == 0, "\(command): \(result.stderr)")
            if !expected.isEmpty { #expect(try Self.hash("\(folder)/\(output)") == expected, "\(command)") }
        }
    }
}
