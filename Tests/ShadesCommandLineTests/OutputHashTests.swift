import Testing
import Foundation
import ShadesCatalogue
import ShadesTestSupport

/// The files the command line writes are study data: the same command must write the same bytes in every
/// version, unless a change says otherwise (and records new hashes here, with the reason in its commit).
/// The README's examples (shortened where the length changes nothing but the size), a notch of a generated
/// file, both stimulus sets and the default and personalised catalogues, against SHA-256s recorded with the
/// Swift kernels before the C kernels replaced them.
///
/// Every hash was recorded anew in 0.2.0, over the bytes with the writing version masked
/// (``VersionNeutralBytes``), so a version number alone no longer changes them. 0.2.0 changed the decoded
/// samples of white.flac (written in one pass at its expected level, within 0.02 dB) and of every sound
/// drawn from the Gaussian generator (its square root is the correctly rounded instruction), and of every
/// sound made of narrow-band noise (now made at a low rate and interpolated): CHANGELOG 0.2.0. The catalogue manifests list their assets' SHA-256s, which hold the version in their comment tags.
@Suite struct OutputHashTests {
    static let presetsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Presets").path

    /// Commands and what each must write (an empty hash: an input for the next command of its group).
    static let commands: [(command: String, output: String, sha256: String)] = [
        // Recorded anew when coloured noise whose level scatters too much for one pass at the expected gain
        // came to be written once at its forecast gain (`NoisePowerForecast`) instead of measured, then
        // written at the exact gain: this pink noise (8221aaea…15e2 before) and the song the notches below
        // read (their outputs 5286f7af…b41e and 259616b1…5a3a before). Recorded anew when coloured noise that
        // does not loop came to draw its white noise's block sums first (`BlockSummedWhiteNoise`, session 47):
        // every coloured, non-looping sound here (pink 249c35c0…b784, tilt 027bf2b4…f69f, AM pink
        // e413e0db…1380, the notches of the pink song 56201e8c…02b8 and 78beb666…6fff, wavy 005e9f7b…aa76,
        // surf 7ee98c18…66c3 before); white noise, loops and the catalogue are unchanged.
        ("render pink --duration 10s --rate 48000 --channels stereo --level -20 --seed 7 --format s16 -o pink.wav",
         "pink.wav", "9be313b1868915573c3b7092d37da546501bc002c4acf532c031db7ee581a823"),
        ("render white --duration 9s -o white.flac", "white.flac", "e1302fd263277de17999655e0b30bcd905f7d8871675198d5f1a8381069503d0"),
        ("render brown --duration 10s --loop -o brown.wav", "brown.wav", "1d40a8023681eb918ac0c8518728aac3199a3e0367ee1c31ba614cd86926415a"),
        ("render noise --beta 0.5 --duration 3s -o tilt.wav", "tilt.wav", "566f810f00431ef29fe81845bc837bd1e6addf3f4f81b5dbd57c0cf7b311d645"),
        ("render tone --frequency 6kHz --duration 2s --channels left -o tone.wav",
         "tone.wav", "7f68ccde84b2300a676a1562da67bd83f9a2f893271163a129c73992ea041acb"),
        ("render tone --frequency 6000.3 --duration 1s --loop -o loop-tone.wav",
         "loop-tone.wav", "8a407f2cab137d1fa05e68dd54eca7c375358822acd054ee2478aa79ae2fde73"),
        ("render pink --am 10 --am-depth 1 --duration 3s -o am-pink.wav",
         "am-pink.wav", "83ba4065d7a43bab2d6aa77b73e286de5a0ad98eae007d8954565e7b94d337dd"),
        ("render tone --frequency 6kHz --am 40 --duration 3s -o am-tone.wav",
         "am-tone.wav", "8265376e94c4864f106ed14367a67f4acb919ab72a4d901877ebf6660c71afb3"),
        ("render nbn --frequency 4kHz --width 0.5 --duration 6s -o nbn.wav",
         "nbn.wav", "c4e3ce67ee234b7b3b5dea4bd214c3eaa5e41618855745582a8beb7859b1e506"),
        ("render tone --frequency 1kHz --pulse 200ms/200ms --ramp 25ms --duration 10s --channels right -o pulses.wav",
         "pulses.wav", "669c168e609fe505db3cab07d0053613dd4aca3ed9d73017275041669c1fa3a7"),
        ("render brown --am 10.3 --duration 60.05s --loop -o am-brown-loop.wav",
         "am-brown-loop.wav", "f7d20ac062a86523d416972262260d70d3bd3ca918bc7e8b5f9b822f2f40847f"),
        ("render pink --duration 20s --rate 44100 --seed 5 -o song.wav", "song.wav", ""),
        ("notch song.wav --frequency 6kHz -o song-notched.wav",
         "song-notched.wav", "352d99582cba9f450435cb09b08debc5e5a34ea699bf4c9d97a22d2d5327e0d2"),
        // Recorded anew when the best resampling became the rational FFT resampler (issue 21; libsamplerate's
        // best converter before: c3ab926b…fb4da).
        ("notch song.wav --frequency 4kHz --width 0.5 --edge-boost 20dB --rate 48000 --format f32 -o out.wav",
         "out.wav", "64feca5b73b13f77a17379b5f35e769f8ab91d51e57df4fb921bb50ebb0a231c"),
        // Recorded anew when file names took frequencies to 0.01 Hz ("nbn-1189.21Hz.wav", was "1189.207Hz"):
        // every file's bytes are unchanged (56c53fbe…b7871 before).
        ("stimuli pitch-match -o pitch", "pitch", "9c5545193175155b5e3c0cf8537d4c9f0786575548e91655797fedab35293d9e"),
        // Audiometry and the catalogues recorded anew when comments took numbers for people (12 significant
        // digits: `duration=1s`, not `duration=1.0000000000000002s`): every file's samples are unchanged.
        ("stimuli audiometry --ear both -o audiometry", "audiometry", "8fc0894d0d0a2248d569dbbc50c7309e122168a07adcb2d42139c402cc7f1efd"),
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
        ("catalogue build presets -o catalogue", "catalogue/manifest.json", "8c7903e7ef8a50124e650e7b2fc6f2d867153334d174f195bed91fa8aee5cbfc"),
        // Recorded anew when the build parameters named the tinnitus frequency ("tinnitus-frequency": "6000 Hz";
        // 7aeea1ae…67df9 before): nothing else in it changed. Recorded anew with surf and wavy brown noise
        // (c329c4cf…503cf6ec1 before).
        ("catalogue build presets -o personal --tinnitus-frequency 6kHz",
         "personal/manifest.json", "4667718e6267233741444b0d0c55eed926b28df33d6502d925f1e3fd402e58e3"),
        // The generative sounds (issue 24); the fractal's comment gives its frequencies to 12 significant
        // digits since issue 23 (its samples unchanged).
        ("render binaural --carrier 200Hz --beat 10Hz --duration 3s -o binaural.wav",
         "binaural.wav", "639ea308dd7080445836cad0fa5ecd54e989eff21f7941334ac9e11a4ba685fe"),
        ("render isochronic --frequency 200Hz --beat 10Hz --duty 0.5 --ramp 5ms --duration 3s -o isochronic.wav",
         "isochronic.wav", "09bef63aa082f35ed870de490896e7b47933e5da098f70578ec4f1fbd483fb9e"),
        ("render velvet --density 2000 --duration 3s -o velvet.wav", "velvet.wav", "e06a6d07d81dc959e98d2ade9063b686f27d6f6baa80e29cfa2a7ec7a0b53a54"),
        ("render fractal --scale pentatonic --tempo 80 --seed 4 --duration 10s -o fractal.wav",
         "fractal.wav", "6734b40b614a57701e22bc984a3317e8a7d489d7e185855b84f43576d807ab25"),
        // Random amplitude modulation and surf waves (issue 35).
        ("render brown --random-am 0.2 --random-am-depth 12 --duration 10s -o wavy.wav",
         "wavy.wav", "5131dda8c536717ecd75269c59f89f75f64aa4ce96313dbd2e1aa8fa35601267"),
        ("render pink --surf 5s --surf-decay 3s --level -26 --duration 10s -o surf.wav",
         "surf.wav", "83a8912dabdbfb2465908dbf377f65b6a275ad404ba0f510fa14532ed9ab2c40"),
        // Speech-shaped and high-tone noise, the tinnitus-like sounds and their set (issue 35).
        ("render speech-noise --duration 3s -o speech.wav", "speech.wav", "5499edec668a4fd9d8b0201afca1e60b9f092f93197c2c75b2ebd332191998e6"),
        ("render high-tone-noise --corner 2kHz --slope 12 --duration 3s -o high-tone.wav", "high-tone.wav", "8fd8301bdd30fa0525279d0188033f2b4274dfda34c4fe413a12f5e960b4a23b"),
        ("render tinnitus-tone --frequency 6kHz --harmonics -12,-20 --duration 3s -o tonal.wav", "tonal.wav", "250aa8643b304c4d7b5d88d71e7ce992e35b20e83045f3430e68382543128adc"),
        ("render tinnitus-hiss --frequency 6kHz --width 1 --duration 3s -o hiss.wav", "hiss.wav", "c3c0dbd2949235601e6553d93ab4e1a6df2bdeb0811c94caf272874c2c7061d4"),
        ("render tinnitus-pulse --frequency 500Hz --width 2 --heart-rate 72 --duration 3s -o pulsatile.wav", "pulsatile.wav", "dbec20af0c9aebc49e2f4a745408e3c9a6e97a2f40f30b40d0173ddd507d4753"),
        ("render tinnitus-roar --frequency 150Hz --width 2 --fluctuation 1 --fluctuation-depth 0.5 --duration 3s -o roar.wav",
         "roar.wav", "94dc11f410eca80da7935df73114b0442ea9f45447edfeccb3d82f3557092471"),
        ("render tinnitus-cricket --frequency 5kHz --chirp-rate 2.5 --syllables 3 --syllable-rate 30 --duration 3s -o cricket.wav",
         "cricket.wav", "59b9cc7fe1ac6468da2d7a07fe83cf7a092e7d61b155d5fff6b265e7216269e7"),
        ("stimuli tinnitus-quality --frequency 6kHz --duration 2s -o quality", "quality", "3f895a876eeeb7eb766f2e04b67babcf78ff7742a6488ab492a6fd4534d980e7"),
    ]

    /// SHA-256 of a file, or of a folder's files concatenated in name order, the version that wrote them
    /// masked (``VersionNeutralBytes``).
    static func hash(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "missing" }
        let names = isFolder.boolValue ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { "\(path)/\($0)" } : [path]
        var digest = SHA256()
        for name in names { digest.update(try VersionNeutralBytes.of(file: name)) }
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
            if !expected.isEmpty {
                let written = try Self.hash("\(folder)/\(output)")
                #expect(written == expected, "\(command) wrote \(written)")
            }
        }
    }
}
