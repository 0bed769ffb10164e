import Foundation
import Testing
import ShadesDSP
import ShadesStudy

/// The protocol's JSON: the repository's example, and each refusal at its key.
struct StudyProtocolTests {
    /// Presets/studies/ in the package.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Presets/studies").path

    @Test func readsTheExampleStudy() throws {
        let path = Self.folder + "/example-study.json"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let study = try StudyProtocolReader.read(json: bytes, path: path)
        #expect(study.name == "example-study" && study.seed == 2026 && study.ceilingDBSPL == 85)
        #expect(study.calibrationPath == Self.folder + "/example-calibration.json")
        #expect(study.armNames == ["notched-music", "notched-music-sham", "am-noise", "am-noise-sham", "ripple", "ripple-sham"])
        #expect(study.arms.filter { $0.shamOf != nil }.map(\.shamOf) == ["notched-music", "am-noise", "ripple"])
        let music = study.arms[0].sounds[0]
        #expect(music.isMusic && music.durationSeconds == nil && !music.loop && music.level == .lufs(-30))
        #expect(study.arms[2].sounds[0].loop && study.arms[2].sounds[0].durationSeconds == 60)
    }

    /// The error of reading `json` (the arms part of a protocol), with the line and column it names.
    func error(_ arms: String, head: String = "\"calibration\": \"c.json\", \"ceilingDBSPL\": 85") -> String {
        let json = "{ \"name\": \"s\", \"seed\": 1, \(head),\n\"arms\": [\(arms)] }"
        do {
            _ = try StudyProtocolReader.read(json: Array(json.utf8), path: "p.json")
            return "read"
        } catch { return error.description }
    }

    @Test func refusesEachMistakeAtItsKey() {
        let tone = "\"sound\": { \"source\": \"tone\", \"frequency\": \"{tinnitusHz}\" }"
        #expect(error("") == "p.json:2:9: 'arms' is empty (allowed: one or more arms)")
        #expect(error("{ \"name\": \"a\", \"shamOf\": \"b\" }") == "p.json:2:25: shamOf 'b' is not an arm (did you mean 'a'?)")
        #expect(error("{ \"name\": \"a\" }") == "p.json:2:10: missing key 'sounds' in an arm (or 'shamOf' for a sham arm)")
        #expect(error("{ \"name\": \"a\", \"sounds\": [ { \"name\": \"t\", \"level\": \"0 dBFS\", \(tone) } ] }")
                == "p.json:2:37: missing key 'durationSeconds' in a study sound")
        #expect(error("{ \"name\": \"a\", \"sounds\": [ { \"name\": \"t\", \"level\": \"0 dBFS\", \"durationSeconds\": 5, \"sound\": { \"source\": \"tone\", \"frequncy\": 1 } } ] }")
                .hasPrefix("p.json:2:122: unknown key 'frequncy' (did you mean 'frequency'?)"))
        #expect(error("{ \"name\": \"a b\", \"sounds\": [] }") == "p.json:2:12: arm name 'a b' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')")
        #expect(error("{ \"name\": \"a\", \"shamOf\": \"a\" }") == "p.json:2:25: shamOf 'a' is itself a sham (allowed: an arm with sounds)")
        #expect(error("", head: "\"calibration\": \"c.json\", \"ceilingDBSPL\": 150")
                == "p.json:1:68: ceilingDBSPL 150 dB SPL is out of range (allowed: 0 … 140 dB SPL)")
        #expect(error("{ \"name\": \"m\", \"sounds\": [ { \"name\": \"t\", \"level\": \"-23 LUFS\", \"durationSeconds\": 5, \"sound\": { \"source\": \"file\", \"path\": \"{music}\" } } ] }")
                .contains("a song plays to its end"))
    }
}
