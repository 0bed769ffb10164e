import Testing
import Foundation
import ShadesTestSupport
import ShadesProcedures

/// The clinician's procedures from the command line (issue 22): `audiometry`, `loudness-match` and `mml`
/// answered by simulated listeners, their JSON, the files that read it, and every bad input refused in one line
/// with no file written.
@Suite struct ProcedureCommandTests {
    static let audiogram = "250:10,500:15,1000:20,2000:35,4000:50,8000:60"

    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test func simulatedAudiometryWritesEveryTrialAndThresholdsWithin5dB() throws {
        let folder = temporaryFolder("audiometry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Shell.run(["audiometry", "--simulate-audiogram", Self.audiogram, "--false-alarms", "0.05", "--misses", "0.05",
                                 "--frequencies", "250,500,1k,2k,4k,8k", "--seed", "11", "-o", "audiogram.json"], in: folder)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("dB HL (simulated listener)") && run.stdout.contains("right") && run.stdout.contains("left"), "\(run.stdout)")
        let result = try json("\(folder)/audiogram.json")
        #expect(result["scale"] as? String == "dB HL" && (result["simulatedListener"] as? String)?.contains("false alarms 0.05") == true)
        let expected: [Double: Double] = [250: 10, 500: 15, 1000: 20, 2000: 35, 4000: 50, 8000: 60]
        for ear in ["left", "right"] {
            let rows = try #require(result[ear] as? [[String: Any]])
            #expect(rows.count == 6)
            for row in rows {
                let f = try #require(row["frequencyHz"] as? Double), threshold = try #require(row["thresholdDB"] as? Double)
                #expect(abs(threshold - expected[f]!) <= 5, "\(ear) \(f) Hz: \(threshold) dB HL")
                let trials = try #require(row["trials"] as? [[String: Any]])
                #expect(trials.count >= 4 && trials.allSatisfy { $0["levelDB"] is Double && $0["heard"] is Bool && $0["ascending"] is Bool })
            }
        }
        // The same seed, the same audiogram.
        let again = try Shell.run(["audiometry", "--simulate-audiogram", Self.audiogram, "--false-alarms", "0.05", "--misses", "0.05",
                                   "--frequencies", "250,500,1k,2k,4k,8k", "--seed", "11", "--json"], in: folder)
        #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == (try String(contentsOfFile: "\(folder)/audiogram.json", encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func badAudiometryInputsAreRefusedWithoutAFile() throws {
        let folder = temporaryFolder("audiometry-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"headphones": "x", "referenceDBFS": {"1000": -90}}"#.utf8).write(to: URL(fileURLWithPath: "\(folder)/cal.json"))
        let cases: [([String], String)] = [
            (["--ear", "up"], "--ear"),
            (["--frequencies", "50"], "--frequencies"),
            (["--false-alarms", "0.7"], "--false-alarms"),
            (["--simulate-audiogram", "1000-20"], "--simulate-audiogram"),
            (["--start-level", "200"], "--start-level"),
        ]
        for (arguments, named) in cases {
            let result = try Shell.run(["audiometry", "--simulate-audiogram", Self.audiogram] + arguments + ["-o", "a.json"], in: folder)
            #expect(result.status == 2 && result.stderr.contains(named) && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.status) \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/a.json"))
        }
        let live = try Shell.run(["audiometry", "--calibration", "cal.json", "--frequencies", "2000", "-o", "a.json"], in: folder)
        #expect(live.status == 2 && live.stderr.contains("2000 Hz is not in the calibration (allowed: 1000 Hz)"), "\(live.stderr)")
        // A study's calibration (dB SPL per frequency and RETSPL, no referenceDBFS) gives audiometry its dB HL too.
        try Data(#"{"fullScaleDBSPL": {"1000": 100, "4000": 101}, "retsplDB": {"1000": 7}}"#.utf8).write(to: URL(fileURLWithPath: "\(folder)/study.json"))
        let study = try Shell.run(["audiometry", "--calibration", "study.json", "--frequencies", "4000", "-o", "a.json"], in: folder)
        #expect(study.status == 2 && study.stderr.contains("4000 Hz is not in the calibration (allowed: 1000 Hz)"), "\(study.stderr)")
        let terminal = try Shell.run(["audiometry", "-o", "a.json"], in: folder)
        #expect(terminal.status == 2 && terminal.stderr.contains("needs a terminal"), "\(terminal.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/a.json"))
    }

    /// An audiogram of one ear (issue 30): with the default --ear both, the loudness match and the MML take that
    /// ear's threshold and say so in a warning; --ear for the other ear is refused naming the ear it has; an
    /// audiogram with no threshold at all is refused as such.
    @Test func anAudiogramOfOneEarGivesThatEarsThreshold() throws {
        let folder = temporaryFolder("one-ear")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func audiogram(_ name: String, rightThreshold: String) throws {
            try Data("""
                {"scale": "dB re full scale", "method": "by hand",
                 "right": [{"frequencyHz": 6000, "thresholdDB": \(rightThreshold), "trials": []}]}
                """.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        try audiogram("right.json", rightThreshold: "-70")
        try audiogram("none.json", rightThreshold: "null")
        for command in ["loudness-match", "mml"] {
            let both = try Shell.run([command, "--frequency", "6kHz", "--audiogram", "right.json", "--simulate", "10dB", "-o", "\(command).json"],
                                     in: folder)
            try #require(both.status == 0, "\(command): \(both.stderr)")
            #expect(both.stderr == "shades: warning: right.json has thresholds for the right ear only: the threshold is the right ear's\n",
                    "\(command): \(both.stderr)")
            #expect(try json("\(folder)/\(command).json")["thresholdDBFS"] as? Double == -70)

            let left = try Shell.run([command, "--frequency", "6kHz", "--audiogram", "right.json", "--ear", "left", "--simulate", "10dB",
                                      "-o", "left.json"], in: folder)
            #expect(left.status == 2 && left.stderr == "shades: error: --ear left has no thresholds in the audiogram "
                    + "(allowed: right, the only ear it has thresholds for)\n", "\(command): \(left.stderr)")
            let none = try Shell.run([command, "--frequency", "6kHz", "--audiogram", "none.json", "--simulate", "10dB", "-o", "none.json.out"],
                                     in: folder)
            #expect(none.status == 1 && none.stderr == "shades: error: the audiogram has no threshold in either ear (no response at any "
                    + "frequency)\n", "\(command): \(none.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/left.json") && !FileManager.default.fileExists(atPath: "\(folder)/none.json.out"))
        }
        let help = try Shell.run(["loudness-match", "--help"], in: folder)
        #expect(help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    .contains("--ear both (the default) takes the better threshold of the ears the audiogram has thresholds for"), "\(help.stdout)")
    }

    /// A loudness match and an MML, simulated, feed `stimuli residual-inhibition --reference-from`: its masker is at
    /// the measured level plus --above, at the measured frequency and band.
    @Test func loudnessAndMMLFeedResidualInhibition() throws {
        let folder = temporaryFolder("tinnitus-loudness")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loudness = try Shell.run(["loudness-match", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "12dB", "--step", "1",
                                      "-o", "loudness.json"], in: folder)
        try #require(loudness.status == 0, "\(loudness.stderr)")
        #expect(loudness.stdout.contains("+12.0 dB above the threshold"), "\(loudness.stdout)")
        let l = try json("\(folder)/loudness.json")
        #expect(l["levelDBFS"] as? Double == -68 && l["sensationLevelDB"] as? Double == 12 && l["procedure"] as? String == "loudness match")

        let mml = try Shell.run(["mml", "--frequency", "5kHz", "--width", "0.5", "--threshold", "-80", "--simulate", "19dB",
                                 "-o", "mml.json"], in: folder)
        try #require(mml.status == 0, "\(mml.stderr)")
        let m = try json("\(folder)/mml.json")
        #expect(m["levelDBFS"] as? Double == -60 && m["widthOctaves"] as? Double == 0.5, "\(m)")

        for (file, level, frequency, width) in [("mml.json", -60.0, 5_000.0, 0.5), ("loudness.json", -68, 6_000, 1)] {
            let ri = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", file, "--above", "10", "--masker", "1s",
                                    "--silence", "1s", "--probe", "1s", "--mml-from", "0", "--mml-to", "2", "-o", "ri-\(file)"], in: folder)
            try #require(ri.status == 0, "\(ri.stderr)")
            let index = try json("\(folder)/ri-\(file)/index.json")
            let masker = try #require((index["files"] as? [[String: Any]])?.first { $0["kind"] as? String == "ri-masker" })
            #expect(masker["level"] as? Double == level + 10 && masker["frequency"] as? Double == frequency
                    && masker["widthOctaves"] as? Double == width, "\(file): \(masker)")
        }
        let both = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "mml.json", "--reference", "-40", "-o", "x"], in: folder)
        #expect(both.status == 2 && both.stderr.contains("--reference-from"))
        let notResult = try Shell.run(["stimuli", "residual-inhibition", "--reference-from", "ri-mml.json/index.json", "-o", "x"], in: folder)
        #expect(notResult.status == 2 && notResult.stderr.contains("is not a `shades mml`"), "\(notResult.stderr)")
        for (arguments, named) in [(["loudness-match", "--frequency", "6kHz", "--simulate", "12dB"], "--threshold"),
                                   (["loudness-match", "--frequency", "6kHz", "--threshold", "-80", "--simulate", "12dB", "--step", "3"], "--step"),
                                   (["mml", "--frequency", "30kHz", "--threshold", "-80", "--simulate", "10dB"], "--frequency"),
                                   (["mml", "--frequency", "6kHz", "--width", "9", "--threshold", "-80", "--simulate", "10dB"], "--width"),
                                   (["mml", "--threshold", "-80", "--simulate", "10dB"], "--frequency")] {
            let result = try Shell.run(arguments + ["-o", "bad.json"], in: folder)
            #expect(result.status == 2 && result.stderr.contains(named) && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/bad.json"))
        }
        let live = try Shell.run(["mml", "--frequency", "6kHz"], in: folder)
        #expect(live.status == 2 && live.stderr.contains("needs a terminal"))
    }
}
