import Testing
import Foundation
import ShadesTestSupport

/// `shades match` (issue 14): the simulated procedure from the command line, its JSON read back by
/// `notch --from-match` and `catalogue build --from-match`, and the interactive form refused without a
/// terminal.
@Suite struct MatchCommandTests {
    @Test func simulatedMatchFeedsNotchAndCatalogue() throws {
        let folder = temporaryFolder("match")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let match = try Shell.run(["match", "--simulate", "5.2kHz", "--json", "-o", "match.json"], in: folder)
        try #require(match.status == 0, "\(match.stderr)")
        let result = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/match.json"))) as! [String: Any]
        let frequency = try #require(result["frequency"] as? Double)
        #expect(abs(log2(frequency / 5_200)) <= 1.0 / 6)
        #expect(result["octaveConfusion"] as? Bool == false && (result["choices"] as? [Any])?.isEmpty == false)
        #expect(match.stdout.contains("\"frequency\""))

        let confused = try Shell.run(["match", "--simulate", "4kHz", "--octave-confusion"], in: folder)
        #expect(confused.status == 0 && confused.stdout.contains("octave confusion"))

        try #require(try Shell.run(["render", "pink", "--duration", "3s", "-o", "song.wav"], in: folder).status == 0)
        let notch = try Shell.run(["notch", "song.wav", "--from-match", "match.json", "--json", "-o", "notched.wav"], in: folder)
        try #require(notch.status == 0, "\(notch.stderr)")
        #expect(notch.stdout.contains("\"centreHz\" : \(frequency)") || notch.stdout.contains("\(Int(frequency))"), "\(notch.stdout.prefix(400))")

        let both = try Shell.run(["notch", "song.wav", "--from-match", "match.json", "--frequency", "6kHz", "-o", "x.wav"], in: folder)
        #expect(both.status == 2 && both.stderr.contains("--from-match"))
        let bad = try Shell.run(["notch", "song.wav", "--from-match", "song.wav", "-o", "x.wav"], in: folder)
        #expect(bad.status == 2 && bad.stderr.contains("from-match"), "\(bad.stderr)")

        // A presets folder of one short sound: the personalised category comes with the tool, at its length.
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try """
            {"defaults": {"lengthSeconds": 1}, "categories": [{"id": "c", "titles": {"en": "C", "de": "C"},
             "sounds": [{"id": "s", "titles": {"en": "S", "de": "S"}, "sound": {"source": "pink"}}]}]}
            """.write(toFile: "\(folder)/presets/p.json", atomically: false, encoding: .utf8)
        let catalogue = try Shell.run(["catalogue", "build", "presets", "-o", "catalogue", "--from-match", "match.json"], in: folder)
        try #require(catalogue.status == 0, "\(catalogue.stderr)")
        let manifest = try String(contentsOfFile: "\(folder)/catalogue/manifest.json", encoding: .utf8)
        #expect(manifest.contains("personal-tone"))
    }

    /// Issue 22: a match at the range's end is flagged in the JSON and on screen; the commands that read it warn
    /// in one line; the seed is written and repeats the procedure; a listener's frequency outside 20 Hz … 20 kHz
    /// is refused.
    @Test func flaggedMatchesAreSaidAndWarnedAbout() throws {
        let folder = temporaryFolder("match-flags")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let high = try Shell.run(["match", "--simulate", "20kHz", "--seed", "5", "-o", "high.json"], in: folder)
        try #require(high.status == 0, "\(high.stderr)")
        #expect(high.stdout.contains("seed 5") && high.stdout.contains("flagged: the match is at the upper limit"), "\(high.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/high.json"))) as! [String: Any]
        #expect(json["atLimit"] as? String == "upper" && json["seed"] as? Int == 5 && json["frequency"] as? Double == 16_000)
        let low = try Shell.run(["match", "--simulate", "400", "--json"], in: folder)
        #expect(low.status == 0 && low.stdout.contains("\"atLimit\" : \"lower\""), "\(low.stdout.prefix(300))")
        let middle = try Shell.run(["match", "--simulate", "5.2kHz", "--json", "--seed", "9"], in: folder)
        #expect(!middle.stdout.contains("atLimit") && middle.stdout.contains("\"inconsistent\" : false"))
        #expect(try Shell.run(["match", "--simulate", "5.2kHz", "--json", "--seed", "9"], in: folder).stdout == middle.stdout)

        try #require(try Shell.run(["render", "pink", "--duration", "2s", "-o", "song.wav"], in: folder).status == 0)
        let notch = try Shell.run(["notch", "song.wav", "--from-match", "high.json", "-o", "n.wav"], in: folder)
        #expect(notch.status == 0)
        let warnings = notch.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1 && warnings[0].contains("high.json") && warnings[0].contains("upper limit"), "\(notch.stderr)")
        let render = try Shell.run(["render", "tone", "--from-match", "high.json", "--duration", "1s", "-o", "t.wav"], in: folder)
        #expect(render.status == 0 && render.stderr.contains("upper limit"), "\(render.stderr)")
        let both = try Shell.run(["render", "tone", "--from-match", "high.json", "--frequency", "1kHz", "--duration", "1s", "-o", "t.wav"], in: folder)
        #expect(both.status == 2 && both.stderr.contains("--from-match"))

        for bad in ["0", "=-5", "25kHz"] {
            let result = try Shell.run(bad.hasPrefix("=") ? ["match", "--simulate" + bad] : ["match", "--simulate", bad], in: folder)
            #expect(result.status == 2 && result.stderr.contains("--simulate") && result.stderr.contains("20 … 20000 Hz"), "\(bad): \(result.stderr)")
        }
    }

    @Test func interactiveMatchNeedsATerminal() throws {
        let folder = temporaryFolder("match-tty")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(["match"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("needs a terminal"))
    }
}
