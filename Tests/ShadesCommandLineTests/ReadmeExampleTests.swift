import Testing
import Foundation
import ShadesTestSupport

/// The examples of README.md and of every guide in docs/, run as written: every `$ …` line of a document's
/// ```text blocks runs, in order, in a folder of the document's own holding the real music of the tests
/// (`make test-deps`: asc-music's MP3s, planetblupi's Oggs) and `Presets/`, and prints what the document
/// shows below it. So each document's examples run on their own, as a reader copying them would run them.
/// `$ cat FILE` writes the lines below it into FILE. A line that is only "…" stands for any number of
/// lines; "  # words" after a command or a line is the document's comment.
/// Commands that need a sound card (`play`, `meter`, a procedure without `--simulate…`) and commands other
/// than `shades` and `cat` (`make load-test`) are not run here: the live tests play and meter through a real
/// audio server.
@Suite struct ReadmeExampleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let musicFixtures = packageRoot + "/.build-fixtures/music"

    /// README.md and every docs/*.md, as paths from the package root.
    static let documents: [String] = {
        let guides = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/docs")) ?? []
        return ["README.md"] + guides.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// One `$ …` line and the lines the document shows after it.
    struct Example: CustomStringConvertible {
        let command: String
        let shown: [String]
        /// Line of the command in the document, from 1.
        let line: Int
        var document = "README.md"
        var description: String { "\(document):\(line): $ \(command)" }
    }

    /// The examples of `markdown`'s ```text blocks, in order.
    static func examples(in markdown: String) -> [Example] {
        var examples: [Example] = []
        var inBlock = false
        var current: (command: String, shown: [String], line: Int)?
        func finish() {
            if let c = current { examples.append(Example(command: c.command, shown: c.shown, line: c.line)) }
            current = nil
        }
        for (index, raw) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.hasPrefix("```") {
                if inBlock { finish() }
                inBlock = !inBlock && line == "```text"
                continue
            }
            guard inBlock else { continue }
            if line.hasPrefix("$ ") {
                finish()
                current = (withoutComment(String(line.dropFirst(2))), [], index + 1)
            } else {
                current?.shown.append(line)
            }
        }
        return examples
    }

    /// `text` without a trailing "  # comment" (two spaces or more before the "#").
    static func withoutComment(_ text: String) -> String {
        guard let range = text.range(of: #"\s{2,}# .*$"#, options: .regularExpression) else { return text }
        return String(text[..<range.lowerBound])
    }

    /// Why the example is not run here, or nil.
    static func notRunHere(_ command: String) -> String? {
        let words = command.split(separator: " ").map(String.init)
        guard words.first == "shades" else { return "not a shades command" }
        let procedures = ["match", "audiometry", "loudness-match", "mml", "mril"]
        if ["play", "meter"].contains(words.dropFirst().first ?? "") { return "needs a sound card" }
        if procedures.contains(words.dropFirst().first ?? ""), !words.contains(where: { $0.hasPrefix("--simulate") }) {
            return "needs a sound card"
        }
        return nil
    }

    /// Whether `actual` reads as `shown`, a whole-line "…" standing for any number of lines.
    static func matches(_ actual: [String], _ shown: [String]) -> Bool {
        guard let first = shown.first else { return actual.isEmpty }
        if first.trimmingCharacters(in: .whitespaces) == "…" {
            let rest = Array(shown.dropFirst())
            return (0...actual.count).contains { matches(Array(actual.dropFirst($0)), rest) }
        }
        guard let line = actual.first, line == first else { return false }
        return matches(Array(actual.dropFirst()), Array(shown.dropFirst()))
    }

    static func trimmedLines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Together the documents show the examples of every command (a guide may show none).
    @Test func theDocumentsHoldTheExamples() throws {
        let counts = try Self.documents.map { try Self.examples(in: String(contentsOfFile: Self.packageRoot + "/" + $0, encoding: .utf8)).count }
        #expect(Self.documents.count > 10 && counts[0] >= 6 && counts.reduce(0, +) > 100, "\(zip(Self.documents, counts).map { "\($0): \($1)" })")
    }

    @Test(arguments: documents) func everyExampleRunsAsWritten(document: String) throws {
        let markdown = try String(contentsOfFile: Self.packageRoot + "/" + document, encoding: .utf8)
        let examples = Self.examples(in: markdown).map { example in
            var example = example
            example.document = document
            return example
        }
        guard !examples.isEmpty else { return }
        let music = try FileManager.default.contentsOfDirectory(atPath: Self.musicFixtures)
        try #require(music.contains("frontiers.mp3"), "no music fixtures in \(Self.musicFixtures): run make test-deps")
        let folder = temporaryFolder("readme")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in music where !name.hasPrefix(".") {
            try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(name)", withDestinationPath: "\(Self.musicFixtures)/\(name)")
        }
        // As in a clone of the repository: its presets beside the music.
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/Presets", withDestinationPath: "\(Self.packageRoot)/Presets")
        // `shades` as the document types it: the built binary first on the PATH.
        let binFolder = URL(fileURLWithPath: Shell.executable).deletingLastPathComponent().path
        let path = binFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for example in examples {
            let words = example.command.split(separator: " ")
            if words.first == "cat", words.count == 2 {
                try (example.shown.joined(separator: "\n") + "\n").write(toFile: "\(folder)/\(words[1])", atomically: true, encoding: .utf8)
                continue
            }
            if Self.notRunHere(example.command) != nil { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", example.command + " 2>&1"]
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let actual = Self.trimmedLines(text)
            let shown = Self.trimmedLines(example.shown.map(Self.withoutComment).joined(separator: "\n"))
            #expect(Self.matches(actual, shown), "\(example) printed:\n\(actual.joined(separator: "\n"))\n\(document) shows:\n\(shown.joined(separator: "\n"))")
        }
    }

    /// The matcher itself: "…" takes any number of lines, other lines must be equal; comments are cut.
    @Test func theMatcherReadsTheReadmeConventions() {
        #expect(Self.matches(["a", "b", "c"], ["a", "…", "c"]))
        #expect(Self.matches(["a", "c"], ["a", "…", "c"]))
        #expect(!Self.matches(["a", "b"], ["a", "c"]))
        #expect(!Self.matches(["a"], ["a", "b"]))
        #expect(Self.withoutComment("wrote 17 files   # the masker") == "wrote 17 files")
        #expect(Self.withoutComment("matched 5039.7 Hz (range 4756.8 … 5339.4 Hz)") == "matched 5039.7 Hz (range 4756.8 … 5339.4 Hz)")
        let parsed = Self.examples(in: "x\n```text\n$ cat a.json\n{}\n$ shades render x  # why\nwrote\n```\n```sh\n$ make\n```\n")
        #expect(parsed.map(\.command) == ["cat a.json", "shades render x"] && parsed[1].shown == ["wrote"] && parsed[1].line == 5)
    }
}
