import Testing
import Foundation
import ShadesCatalogue
import ShadesTestSupport

/// What `--level` means where channels differ, the sample format a stimulus set chooses, and what the
/// catalogue's index and manifest say of a personalised build.
@Suite struct LevelAndFormatTests {
    let folder = temporaryFolder("level-format")

    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(path)"))) as! [String: Any]
    }

    /// A sound per ear keeps its balance; its sounding channels' mean power is the asked level, and the
    /// summary line says so with each channel's RMS. A generator's channels are equal: no breakdown.
    @Test func aMixsLevelIsItsChannelsMeanPowerAndTheSummarySaysSo() throws {
        try #"{ "layers": [ { "source": "tone", "frequency": "6kHz", "ears": "left" }, { "source": "pink", "ears": "right", "gainDB": -6 } ] }"#
            .write(toFile: "\(folder)/ears.json", atomically: true, encoding: .utf8)
        let mix = try Shell.run(["render", "--sound", "ears.json", "--duration", "2s", "--level", "-25", "-o", "ears.wav"], in: folder)
        #expect(mix.status == 0, "\(mix.stderr)")
        #expect(mix.stdout.contains("RMS -25.0 dBFS (mean power of left -22.96, right -28.96)"), "\(mix.stdout)")
        let pink = try Shell.run(["render", "pink", "--duration", "2s", "--level", "-25", "-o", "pink.wav"], in: folder)
        #expect(pink.stdout.contains("RMS -25.0 dBFS, peak"), "\(pink.stdout)")
        let help = try Shell.run(["render", "--help"], in: folder)
        let helpText = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // as wrapped at any width
        #expect(helpText.contains("mean power of its sounding channels"), "the help says what --level means for a mix")
    }

    /// The README's pipeline: an MML of -60 dBFS puts the lowest probe at -70 dBFS, below what s16 carries;
    /// without --format the set is written in s24 and says why; `--format s16` is refused in one line naming
    /// --format and the quietest file, and writes nothing.
    @Test func aStimulusSetChoosesTheFormatItsQuietestFileNeeds() throws {
        let mml = try Shell.run(["mml", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "19dB", "-o", "mml.json"], in: folder)
        try #require(mml.status == 0, "\(mml.stderr)")
        let set = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "mml.json", "--masker", "2s", "--silence", "1s",
                                 "--probe", "1s", "-o", "ri"], in: folder)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("(s24: its quietest file, mml-probe-6000Hz-at-10dB at -70 dBFS, is below what s16 carries)"), "\(set.stdout)")
        #expect(try json("ri/index.json")["format"] as? String == "wav s24")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/ri/mml-probe-6000Hz-at+20dB.wav"))

        let refused = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "mml.json", "--format", "s16", "-o", "ri16"], in: folder)
        #expect(refused.status == 2 && refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(refused.stderr.split(separator: "\n").count == 1
                && refused.stderr.contains("--format s16 cannot carry the set's quietest file, mml-probe-6000Hz-at-10dB at -70 dBFS")
                && refused.stderr.contains("allowed: s24"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/ri16"))

        // Ramps that do not fit in a probe are refused by the options typed (not a --fade the user never gave).
        let ramps = try Shell.run(["stimuli", "residual-inhibition", "--frequency", "4kHz", "--probe", "0.5s", "-o", "ramps"], in: folder)
        #expect(ramps.status == 2 && ramps.stderr == "shades: error: --onset/--offset 500 ms + 10 ms do not fit in the 500 ms probe (allowed: together at most the shorter of the masker and the probe)\n", "\(ramps.stderr)")

        // A set every file of which s16 carries stays s16, and says nothing of it.
        let loud = try Shell.run(["stimuli", "pitch-match", "--from", "4kHz", "--to", "4kHz", "-o", "pitch"], in: folder)
        #expect(loud.status == 0 && loud.stdout == "wrote 2 files and index.json to pitch\n", "\(loud.stdout)")
        #expect(try json("pitch/index.json")["format"] as? String == "wav s16")
    }

    /// Durations as a player's clock shows them (whole seconds cut, not rounded), and the build parameters
    /// of a personalised catalogue name its tinnitus frequency.
    @Test func theIndexCutsDurationsAndNamesTheTinnitusFrequency() throws {
        #expect(IndexPage.duration(440.764) == "7:20")
        #expect(IndexPage.duration(59.999) == "0:59" && IndexPage.duration(60) == "1:00" && IndexPage.duration(3723.9) == "1:02:03")
        #expect(IndexPage.duration(5.04) == "5.0 s")
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try #"{ "categories": [ { "id": "c", "titles": { "en": "C", "de": "C" }, "sounds": [ { "id": "pink", "titles": { "en": "Pink", "de": "Rosa" }, "sound": { "source": "pink" }, "lengthSeconds": 2 } ] } ] }"#
            .write(toFile: "\(folder)/presets/p.json", atomically: true, encoding: .utf8)
        let build = try Shell.run(["catalogue", "build", "presets", "-o", "cat", "--tinnitus-frequency", "6349.60420787"], in: folder)
        try #require(build.status == 0, "\(build.stderr)")
        let manifest = try Manifest.read(folder: "\(folder)/cat")
        #expect(manifest.parameters["tinnitus-frequency"] == "6349.6 Hz", "\(manifest.parameters)")
        let index = try String(contentsOfFile: "\(folder)/cat/index.html", encoding: .utf8)
        #expect(index.contains("tinnitus-frequency = 6349.6 Hz"))
    }
}

/// Frequencies in the procedures' summaries to 0.01 Hz: a matched frequency such as 6349.60420787 Hz (a
/// quarter-octave grid point) is "6349.6 Hz", not its 12 significant digits.
@Suite struct ProcedureSummaryTests {
    @Test func summariesGiveFrequenciesToAHundredthOfAHertz() throws {
        let folder = temporaryFolder("summaries")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loudness = try Shell.run(["loudness-match", "--frequency", "6349.60420787", "--threshold", "-80", "--simulate", "12dB",
                                      "-o", "loudness.json"], in: folder)
        #expect(loudness.status == 0 && loudness.stdout.contains("as loud as a 6349.6 Hz tone"), "\(loudness.stdout)\(loudness.stderr)")
        let mml = try Shell.run(["mml", "--frequency", "6349.60420787", "--threshold", "-80", "--simulate", "19dB", "-o", "mml.json"], in: folder)
        #expect(mml.status == 0 && mml.stdout.contains("minimum masking level at 6349.6 Hz"), "\(mml.stdout)\(mml.stderr)")
    }
}
