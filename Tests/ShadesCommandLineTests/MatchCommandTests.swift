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

        try FileManager.default.createSymbolicLink(atPath: "\(folder)/presets", withDestinationPath: OutputHashPresets.folder)
        let catalogue = try Shell.run(["catalogue", "build", "presets", "-o", "catalogue", "--from-match", "match.json"], in: folder)
        try #require(catalogue.status == 0, "\(catalogue.stderr)")
        let manifest = try String(contentsOfFile: "\(folder)/catalogue/manifest.json", encoding: .utf8)
        #expect(manifest.contains("personal-tone"))
    }

    @Test func interactiveMatchNeedsATerminal() throws {
        let folder = temporaryFolder("match-tty")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(["match"], in: folder)
        #expect(result.status == 2 && result.stderr.contains("needs a terminal"))
    }
}

enum OutputHashPresets {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Presets").path
}
