import Testing
import Foundation
import ShadesDSP
import ShadesCatalogue
import ShadesTestSupport

/// Preset folders made to break the builder: odd ids, deep nesting, huge files, links and FIFOs. Each is
/// refused by `shades catalogue build` with exit 2 and one line per problem naming the file and the rule,
/// and nothing is written anywhere.
@Suite struct HostilePresetTests {
    let folder = temporaryFolder("hostile")

    /// A catalogue whose category is `category` and whose only sound is `sound`.
    static func catalogue(category: String = "c", sound: String = "s") -> String {
        """
        { "defaults": { "lengthSeconds": 1 },
          "categories": [ { "id": \(quoted(category)), "titles": { "en": "C", "de": "C" }, "sounds": [
            { "id": \(quoted(sound)), "titles": { "en": "S", "de": "S" }, "sound": { "layers": [ { "source": "pink" } ] } } ] } ] }
        """
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    func write(_ text: String, as name: String = "bad.json") throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try text.write(toFile: "\(folder)/presets/\(name)", atomically: false, encoding: .utf8)
    }

    /// Runs a build of `presets` into `out`; expects exit 2, stderr lines each containing one of `expected`
    /// in order, and the test folder holding only `presets` (nothing written, nothing outside).
    func expectRefused(_ expected: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let result = try Shell.run(["catalogue", "build", "presets", "-o", "out"], in: folder)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.count == expected.count, "\(result.stderr)", sourceLocation: sourceLocation)
        for (line, text) in zip(lines, expected) {
            #expect(line.contains(text), "\(line) lacks \(text)", sourceLocation: sourceLocation)
        }
        #expect(try KillRun.listing(folder) == ["presets"], sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("../x", "would escape the output folder"), ("/etc/x", "would escape the output folder"),
        ("a/b", "would escape the output folder"), ("..", "would escape the output folder"),
        (String(repeating: "a", count: 10_000), "has 10000 characters (allowed: 1 … 64 of a-z, 0-9, '-', '_')"),
        ("café", "is not allowed"), ("ピンク", "is not allowed"), ("a\u{2215}b", "is not allowed"),
        ("x\u{0}y", "is not allowed"), ("", "is not allowed"), ("PINK", "is not allowed"),
    ])
    func oddSoundAndCategoryIdsAreRefused(id: String, rule: String) throws {
        // Long ids are shown cut, control characters escaped, so the line stays one short line.
        let shown = id.count > 40 ? String(id.prefix(40)) + "…" : id.replacingOccurrences(of: "\u{0}", with: "\\u{0}")
        try write(Self.catalogue(sound: id))
        try expectRefused(["presets/bad.json:3:7: sound id '\(shown)' \(rule)"])
        try write(Self.catalogue(category: id))
        try expectRefused(["presets/bad.json:2:21: category id '\(shown)' \(rule)"])
    }

    @Test func deepNestingIsRefusedWithoutCrashing() throws {
        for depth in [257, 10_000, 100_000] {
            try write(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
            try expectRefused(["presets/bad.json:1:257: nested more than 256 levels deep (allowed: up to 256 levels)"])
            try write(String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth))
            try expectRefused(["presets/bad.json:1:1281: nested more than 256 levels deep"])
        }
        // Deeper still is larger than a preset file may be.
        try write(String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000))
        try expectRefused(["presets/bad.json: is 2 MB (allowed: up to 1 MB per preset file)"])
        // At the limit it reads, and fails on the schema instead.
        let text = #"{"categories":"# + String(repeating: "[", count: 255) + String(repeating: "]", count: 255) + "}"
        #expect(throws: ShadesError.self) { try PresetParser.parse(data: Data(text.utf8), file: "t.json") }
    }

    @Test func aFileOverOneMegabyteIsRefusedBeforeItIsRead() throws {
        try write(Self.catalogue(), as: "good.json")
        let path = "\(folder)/presets/huge.json"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 50_000_000)  // sparse: 50 MB without writing them
        try handle.close()
        let seconds = try KillRun.seconds { try expectRefused(["presets/huge.json: is 50 MB (allowed: up to 1 MB per preset file)"]) }
        #expect(seconds < 2)
    }

    @Test func linksOutsideTheFolderFIFOsAndFoldersAreRefused() throws {
        try write(Self.catalogue(), as: "good.json")
        let outside = "\(folder)/../\(URL(fileURLWithPath: folder).lastPathComponent)-outside.json"
        try Self.catalogue(sound: "t").write(toFile: outside, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let resolved = URL(fileURLWithPath: outside).standardizedFileURL.resolvingSymlinksInPath().path
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/presets/elsewhere.json", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/presets/passwd.json", withDestinationPath: "/etc/passwd")
        #expect(mkfifo("\(folder)/presets/fifo.json", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: "\(folder)/presets/folder.json", withIntermediateDirectories: false)
        try expectRefused([
            "presets/elsewhere.json: is a link to \(resolved), outside the preset folder (allowed: files inside presets)",
            "presets/fifo.json: is not a regular file (allowed: JSON files)",
            "presets/folder.json: is not a regular file (allowed: JSON files)",
            "presets/passwd.json: is a link to /etc/passwd, outside the preset folder",
        ])
    }

    @Test func aLinkInsideTheFolderIsReadLikeItsTarget() throws {
        try write(Self.catalogue(), as: "a.json")
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/presets/b.json", withDestinationPath: "a.json")
        try expectRefused(["presets/b.json:2:21: duplicate category id 'c' (first used at presets/a.json:2)",
                           "presets/b.json:3:7: duplicate sound id 's' (first used at presets/a.json:3)"])
    }
}
