import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// ``CommandPaths``: the one check of the paths a command reads and writes.
@Suite struct CommandPathsTests {
    let folder = temporaryFolder("command-paths")

    /// The message `body` throws, or nil.
    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func anInputMustBeAReadableNonEmptyRegularFileAndNothingIsOpened() throws {
        let f = folder
        _ = FileManager.default.createFile(atPath: "\(f)/song.wav", contents: Data([1, 2, 3]))
        _ = FileManager.default.createFile(atPath: "\(f)/empty.wav", contents: Data())
        try FileManager.default.createDirectory(atPath: "\(f)/adir.wav", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: "\(f)/dangling.wav", withDestinationPath: "nowhere.wav")
        try FileManager.default.createSymbolicLink(atPath: "\(f)/link.wav", withDestinationPath: "song.wav")
        #expect(mkfifo("\(f)/fifo.wav", 0o644) == 0)
        #expect(message { try CommandPaths.checkReadableFile("\(f)/song.wav") } == nil)
        #expect(message { try CommandPaths.checkReadableFile("\(f)/link.wav") } == nil)
        #expect(message { try CommandPaths.checkReadableFile("\(f)/fifo.wav") } == "\(f)/fifo.wav is a named pipe (FIFO), not a file")
        #expect(message { try CommandPaths.checkReadableFile("\(f)/adir.wav") } == "\(f)/adir.wav is a folder, not a file")
        #expect(message { try CommandPaths.checkReadableFile("\(f)/empty.wav") } == "\(f)/empty.wav is empty")
        #expect(message { try CommandPaths.checkReadableFile("\(f)/missing.wav") } == "\(f)/missing.wav does not exist")
        #expect(message { try CommandPaths.checkReadableFile("\(f)/dangling.wav") } == "\(f)/dangling.wav is a link to a file that does not exist")
        #expect(message { try CommandPaths.checkReadableFile("/dev/null") } == "/dev/null is a device, not a file")
        // JSON inputs are read through the same check.
        #expect(message { _ = try FileSystem.readFile("\(f)/fifo.wav", upTo: 100) } == "\(f)/fifo.wav is a named pipe (FIFO), not a file")
    }

    @Test func anOutputIsNoInputByAnySpellingOrLink() throws {
        let f = folder
        _ = FileManager.default.createFile(atPath: "\(f)/in.wav", contents: Data([1]))
        try FileManager.default.createSymbolicLink(atPath: "\(f)/link.wav", withDestinationPath: "in.wav")
        try FileManager.default.linkItem(atPath: "\(f)/in.wav", toPath: "\(f)/hard.wav")
        try FileManager.default.createDirectory(atPath: "\(f)/sub", withIntermediateDirectories: false)
        let inputs = [CommandInput("\(f)/in.wav")]
        for output in ["\(f)/in.wav", "\(f)/./in.wav", "\(f)/sub/../in.wav", "\(f)/link.wav", "\(f)/hard.wav", "\(f)//in.wav"] {
            #expect(message { try CommandPaths.checkOutput(output, inputs: inputs) }
                    == "-o \(output) is the input \(f)/in.wav (allowed: another file; an input is never overwritten)")
        }
        #expect(message { try CommandPaths.checkOutput("\(f)/out.wav", inputs: inputs) } == nil)
        #expect(message { try CommandPaths.checkOutput("\(f)/new/out.wav", inputs: inputs, createsFolders: true) } == nil)
        #expect(message { try CommandPaths.checkOutput("", option: "--plot", inputs: inputs) }
                == "--plot is an empty path (allowed: the name of a file or folder to write)")
        #expect(message { try CommandPaths.checkOutput(files: ["a.wav", "in.wav"], inFolder: f + "/sub/..", inputs: inputs) }?
                    .hasPrefix("-o \(f)/sub/../in.wav is the input") == true)
    }

    @Test func anOutputFolderNeitherIsNorHoldsNorLiesInAnInput() throws {
        let f = folder
        try FileManager.default.createDirectory(atPath: "\(f)/presets", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: "\(f)/out", withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: "\(f)/match.json", contents: Data([1]))
        try FileManager.default.createSymbolicLink(atPath: "\(f)/out/elsewhere.json", withDestinationPath: "\(f)/match.json")
        let presets = CommandInput("\(f)/presets", name: "the presets folder")
        func problem(_ output: String, _ inputs: [CommandInput]) -> String? {
            message { try CommandPaths.checkOutputFolder(output, inputs: inputs) }
        }
        #expect(problem("\(f)/presets/", [presets])?.contains("is the presets folder") == true)
        #expect(problem(f, [presets])?.contains("holds the presets folder") == true)
        #expect(problem("\(f)/presets/catalogue", [presets])?.contains("is inside the presets folder") == true)
        #expect(problem("\(f)/catalogue", [presets]) == nil)
        // A link inside the folder goes with it, wherever it leads.
        #expect(problem("\(f)/out", [CommandInput("\(f)/out/elsewhere.json", name: "--from-match")])?.contains("holds --from-match") == true)
    }

    @Test func anInputGivenTwiceIsFoundBySpellingAndLink() throws {
        let f = folder
        _ = FileManager.default.createFile(atPath: "\(f)/a.wav", contents: Data([1]))
        try FileManager.default.linkItem(atPath: "\(f)/a.wav", toPath: "\(f)/b.wav")
        #expect(message { try CommandPaths.checkDistinct([CommandInput("\(f)/a.wav"), CommandInput("\(f)/a.wav")]) }?
                    .hasSuffix("is given twice (allowed: each file once)") == true)
        #expect(message { try CommandPaths.checkDistinct([CommandInput("\(f)/a.wav"), CommandInput("\(f)/b.wav")]) }
                == "the input \(f)/b.wav is also given as \(f)/a.wav (allowed: each file once)")
    }

    /// libsndfile hands these to libmpg123, which prints on standard error: they are refused first.
    @Test func whatIsNoMP3IsRefusedBeforeLibsndfileOpensIt() throws {
        let f = folder
        let text = Data(String(repeating: "hello, this is text\n", count: 50).utf8)
        try text.write(to: URL(fileURLWithPath: "\(f)/text.mp3"))
        try (Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0, 10]) + Data(repeating: 0, count: 10) + text)
            .write(to: URL(fileURLWithPath: "\(f)/tagged.mp3"))
        // An MPEG-1 layer III header (128 kbit/s, 44.1 kHz: 417-byte frames) followed by text, under any name.
        try (Data([0xFF, 0xFB, 0x90, 0x00]) + text).write(to: URL(fileURLWithPath: "\(f)/sync.wav"))
        func opening(_ name: String) -> String? { message { _ = try AudioFileInput(path: "\(f)/\(name)") } }
        #expect(opening("text.mp3") == "\(f)/text.mp3 is not an MP3 file (it begins with neither an ID3 tag nor an MPEG audio frame)")
        #expect(opening("tagged.mp3") == "\(f)/tagged.mp3 is not an MP3 file (no MPEG audio frame follows its ID3 tag at byte 20)")
        #expect(opening("sync.wav") == "\(f)/sync.wav is not a sound file (it begins as MPEG audio, but the MPEG audio frame "
                + "at byte 0 is not followed by another at byte 417)")
    }
}
