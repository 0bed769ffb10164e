import Testing
import Foundation
import ShadesCatalogue
import ShadesDSP
import ShadesRender
import ShadesTestSupport

/// The paths a user gives every command (issue 30): no output over an input by any spelling or link, no
/// input that is not a regular file (a FIFO must not hang a command), several or duplicate inputs, and one
/// true line for each bad path.
@Suite struct InputPathTests {
    let folder = temporaryFolder("input-paths")

    /// `song.wav` (1 s of pink noise), `match.json` (a `shades match` result), each with a symbolic link
    /// `link-NAME` and a hard link `hard-NAME`; `sub/` for `sub/../NAME`; `mix.json`, a `--sound` file
    /// playing song.wav.
    func makeInputs() throws {
        try Renderer.renderFile(RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 1),
                                to: "\(folder)/song.wav", sampleFormat: .s16)
        let match = try Shell.run(["match", "--simulate", "5kHz", "--seed", "3", "-o", "match.json"], in: folder)
        #expect(match.status == 0, "\(match.stderr)")
        for name in ["song.wav", "match.json"] {
            try FileManager.default.createSymbolicLink(atPath: "\(folder)/link-\(name)", withDestinationPath: name)
            try FileManager.default.linkItem(atPath: "\(folder)/\(name)", toPath: "\(folder)/hard-\(name)")
        }
        try FileManager.default.createDirectory(atPath: "\(folder)/sub", withIntermediateDirectories: false)
        try #"{"source": "file", "path": "song.wav"}"#.write(toFile: "\(folder)/mix.json", atomically: true, encoding: .utf8)
    }

    /// Every way to name `name` again: itself, `./`, `sub/../`, absolute, a symbolic and a hard link.
    func spellings(of name: String) -> [String] {
        [name, "./\(name)", "sub/../\(name)", "\(folder)/\(name)", "link-\(name)", "hard-\(name)"]
    }

    /// Runs `shades arguments` in the folder with its output in files; a run still going after `seconds`
    /// is killed and reported, so a command that hangs fails its test instead of stalling the suite.
    func run(_ arguments: [String], seconds: Double = 30) throws -> (status: Int32, stderr: String, timedOut: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Shell.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = NSTemporaryDirectory() + "shades-input-paths-stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errors) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOfFile: errors, encoding: .utf8), timedOut)
    }

    /// SHA-256 of each of `files` (in the folder).
    func hashes(_ files: [String]) -> [String] {
        files.map { SHA256.hex(ofFile: "\(folder)/\($0)") ?? "unreadable" }
    }

    /// `arguments` end in time with `status` and exactly one line on standard error that contains `naming`;
    /// `inputs` keep their bytes and the folder gains no file.
    func expectRefused(_ arguments: [String], status: Int32, naming: String, inputs: [String],
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let before = hashes(inputs), listing = try KillRun.listing(folder)
        let result = try run(arguments)
        #expect(!result.timedOut, "\(arguments) hung", sourceLocation: sourceLocation)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && lines.first?.hasPrefix("shades: error: ") == true && result.stderr.contains(naming),
                "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(hashes(inputs) == before, "\(arguments) changed an input", sourceLocation: sourceLocation)
        #expect(try KillRun.listing(folder) == listing, "\(arguments) left a file", sourceLocation: sourceLocation)
    }

    // MARK: No output over an input

    /// (command with OUT for the output, the input it reads, how the message names that input)
    static let overwrites: [([String], String, String)] = [
        (["render", "song.wav", "--notch", "3kHz", "--level", "-30", "-o", "OUT"], "song.wav", "the input song.wav"),
        (["notch", "song.wav", "--frequency", "3kHz", "-o", "OUT"], "song.wav", "the input song.wav"),
        (["render", "--sound", "mix.json", "--duration", "0.5s", "-o", "OUT"], "song.wav", "the input song.wav"),
        (["analyze", "song.wav", "--plot", "OUT"], "song.wav", "the input song.wav"),
        (["mml", "--from-match", "match.json", "--threshold", "-80", "--simulate", "19dB", "-o", "OUT"], "match.json",
         "--from-match match.json"),
        (["loudness-match", "--from-match", "match.json", "--threshold", "-80", "--simulate", "10dB", "-o", "OUT"], "match.json",
         "--from-match match.json"),
    ]

    @Test(arguments: overwrites)
    func noCommandWritesOverItsInputByAnySpellingOrLink(command: [String], input: String, named: String) throws {
        try makeInputs()
        for output in spellings(of: input) {
            let arguments = command.map { $0 == "OUT" ? output : $0 }
            try expectRefused(arguments, status: 2, naming: "\(output) is \(named)", inputs: [input])
        }
    }

    @Test func aStimulusSetDoesNotReplaceTheReferenceItWasMadeFrom() throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/ri", withIntermediateDirectories: false)
        let mml = try Shell.run(["mml", "--frequency", "6kHz", "--threshold", "-60", "--simulate", "19dB", "-o", "ri/index.json"], in: folder)
        #expect(mml.status == 0, "\(mml.stderr)")
        try expectRefused(["stimuli", "residual-inhibition", "--reference-from", "ri/index.json", "--format", "f32", "-o", "ri"],
                          status: 2, naming: "is --reference-from ri/index.json", inputs: ["ri/index.json"])
        #expect(try KillRun.listing("\(folder)/ri") == ["index.json"])
    }

    @Test func aCatalogueFolderIsNoInputHoldsNoneAndLiesInNone() throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: "\(folder)/music", withIntermediateDirectories: false)
        let personal = ["--tinnitus-frequency", "6kHz", "--music", "music"]
        for (output, problem) in [("presets", "is the presets folder presets"), ("./presets/", "is the presets folder presets"),
                                  (".", "holds the presets folder presets"), ("presets/catalogue", "is inside the presets folder presets"),
                                  ("music/catalogue", "is inside --music music")] {
            try expectRefused(["catalogue", "build", "presets", "-o", output] + personal, status: 2,
                              naming: "-o \(output) \(problem)", inputs: [])
        }
        #expect(try KillRun.listing("\(folder)/presets").isEmpty && KillRun.listing("\(folder)/music").isEmpty)
    }

    // MARK: Inputs that are not regular files

    @Test(arguments: [
        ["render", "fifo.wav", "-o", "out.wav"],
        ["notch", "fifo.wav", "--frequency", "3kHz", "-o", "out.wav"],
        ["analyze", "fifo.wav"],
        ["render", "--sound", "fifo.json", "--duration", "1s", "-o", "out.wav"],
        ["mml", "--frequency", "6kHz", "--audiogram", "fifo.json", "--simulate", "10dB", "-o", "out.json"],
        ["stimuli", "residual-inhibition", "--reference-from", "fifo.json", "-o", "ri/"],
    ])
    func aFIFOIsRefusedWithoutWaitingForAWriter(arguments: [String]) throws {
        #expect(mkfifo("\(folder)/fifo.wav", 0o644) == 0 && mkfifo("\(folder)/fifo.json", 0o644) == 0)
        let fifo = arguments.first { $0.hasPrefix("fifo.") }!
        try expectRefused(arguments, status: 1, naming: "\(fifo) is a named pipe (FIFO), not a file", inputs: [])
    }

    @Test func emptyFolderTextAndMissingInputsSayWhatIsTrueInOneLine() throws {
        _ = FileManager.default.createFile(atPath: "\(folder)/empty.mp3", contents: Data())
        try FileManager.default.createDirectory(atPath: "\(folder)/adir.mp3", withIntermediateDirectories: false)
        try String(repeating: "hello, this is text\n", count: 50).write(toFile: "\(folder)/text.mp3", atomically: true, encoding: .utf8)
        for command in [["notch", "INPUT", "--frequency", "3kHz", "-o", "out.wav"], ["render", "INPUT", "-o", "out.wav"], ["analyze", "INPUT"]] {
            // libmpg123 printed its own lines for text.mp3 ("Note: Illegal Audio-MPEG-Header …"): one line only.
            for (input, message) in [("empty.mp3", "empty.mp3 is empty"), ("adir.mp3", "adir.mp3 is a folder, not a file"),
                                     ("text.mp3", "text.mp3 is not an MP3 file (")] {
                try expectRefused(command.map { $0 == "INPUT" ? input : $0 }, status: 1, naming: message, inputs: [input])
            }
        }
        try expectRefused(["notch", "missing.mp3", "--frequency", "3kHz", "-o", "out.wav"], status: 1,
                          naming: "error: missing.mp3 does not exist", inputs: [])
        try expectRefused(["analyze", "missing.mp3"], status: 1, naming: "error: missing.mp3 does not exist", inputs: [])
    }

    @Test func aTextMusicFileInACatalogueIsSkippedWithoutLibmpg123sLines() throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/music", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try String(repeating: "hello, this is text\n", count: 50).write(toFile: "\(folder)/music/text.mp3", atomically: true, encoding: .utf8)
        try CatalogueFixture.small.write(toFile: "\(folder)/presets/small.json", atomically: true, encoding: .utf8)
        let result = try run(["catalogue", "build", "presets", "-o", "out", "--tinnitus-frequency", "6kHz", "--music", "music"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("shades: ") }, "\(result.stderr)")
    }

    @Test func outputPathsThatCannotBeWrittenSayWhy() throws {
        var result = try run(["render", "pink", "--duration", "0.1s", "-o", ""])
        #expect(result.status == 2 && result.stderr == "shades: error: -o is an empty path (allowed: the name of a file or folder to write)\n",
                "\(result.stderr)")
        result = try run(["render", "pink", "--duration", "0.1s", "-o", "/proc/shades-x.wav"])
        #expect(result.status == 1 && result.stderr.contains("/proc") && !result.stderr.contains("does not exist")
                && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    // MARK: Several inputs

    @Test func severalInputsNeedAFolderAndDuplicatesAreFoundBeforeAnyWork() throws {
        try makeInputs()
        try FileManager.default.copyItem(atPath: "\(folder)/song.wav", toPath: "\(folder)/other.wav")
        try expectRefused(["notch", "song.wav", "other.wav", "--frequency", "3kHz", "-o", "x.wav"], status: 2,
                          naming: "-o x.wav must be a folder for 2 inputs", inputs: ["song.wav", "other.wav"])
        for again in spellings(of: "song.wav") {
            try expectRefused(["notch", "song.wav", again, "--frequency", "3kHz", "-o", "d/"], status: 2,
                              naming: again == "song.wav" ? "the input song.wav is given twice" : "is also given as song.wav",
                              inputs: ["song.wav"])
        }
        try FileManager.default.copyItem(atPath: "\(folder)/song.wav", toPath: "\(folder)/sub/song.wav")
        try expectRefused(["notch", "song.wav", "sub/song.wav", "--frequency", "3kHz", "-o", "d/"], status: 2,
                          naming: "would both be written to d/song-notched.wav", inputs: ["song.wav"])
    }
}

/// A catalogue of one short sound, for builds that only need to start.
enum CatalogueFixture {
    static let small = """
    {
      "defaults": { "loudnessLUFS": -23, "rate": 48000, "lengthSeconds": 5 },
      "categories": [
        { "id": "noise", "titles": { "en": "Noise", "de": "Rauschen" }, "sounds": [
          { "id": "pink", "titles": { "en": "Pink", "de": "Rosa" }, "sound": { "layers": [ { "source": "pink" } ] } } ] }
      ]
    }
    """
}
