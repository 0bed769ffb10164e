import Testing
import Foundation
import ShadesDSP
import ShadesIO

@Suite struct AudioFileInputTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "shades-input-tests-\(getpid())-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func writeNoise(_ name: String, frames: Int = 20_000, format: SampleFormat = .s16) throws -> (String, AudioBuffer) {
        let path = "\(folder)/\(name)"
        let buffer = try NoiseSource(colour: .pink, sampleRate: 44_100, layout: .stereo).renderBuffer(frameCount: frames)
        try AudioFileWriter.write(buffer, sampleRate: 44_100, gains: [1, 1], to: path,
                                  format: try AudioFileFormat(container: try Container(path: path), sampleFormat: format),
                                  ditherKey: 1, comment: "c")
        return (path, buffer)
    }

    @Test(arguments: ["a.wav", "a.flac"])
    func blocksOfAnySizeReadTheWholeFile(name: String) throws {
        let (path, _) = try writeNoise(name)
        let whole = try DecodedAudio(contentsOf: path).buffer
        let input = try AudioFileInput(path: path)
        #expect(input.sampleRate == 44_100 && input.channelCount == 2 && input.frameCount == 20_000 && input.comment == "c")
        let read = AudioBuffer(channelCount: 2, frameCapacity: 20_000)
        var done = 0
        var size = 1
        while true {
            let n = try read.withBlock(frames: done..<min(20_000, done + size)) { try input.read(into: $0) }
            if n == 0 { break }
            done += n
            size = size * 3 + 1
        }
        #expect(done == 20_000)
        for c in 0..<2 { #expect(read.samples(channel: c) == whole.samples(channel: c)) }
    }

    @Test(arguments: ["empty.wav", "tiny.wav", "text.wav", "missing.wav"])
    func badFilesAreOneLineErrorsNamingTheFile(name: String) throws {
        let path = "\(folder)/\(name)"
        switch name {
        case "empty.wav": _ = FileManager.default.createFile(atPath: path, contents: Data())
        case "tiny.wav": _ = FileManager.default.createFile(atPath: path, contents: Data("RIFF\0\0".utf8))
        case "text.wav": _ = FileManager.default.createFile(atPath: path, contents: Data(String(repeating: "not audio ", count: 100).utf8))
        default: break
        }
        do {
            _ = try AudioFileInput(path: path)
            Issue.record("\(name) opened")
        } catch {
            #expect(error.description.contains(path) && !error.description.contains("\n"), "\(error)")
        }
    }

    @Test(arguments: ["cut.wav", "cut.flac"])
    func truncatedFilesAreErrorsOrEndEarlyButNeverInventSamples(name: String) throws {
        let (path, _) = try writeNoise(name, frames: 100_000)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        var failed = false
        var total = 0
        do {
            let input = try AudioFileInput(path: path)
            let block = AudioBuffer(channelCount: input.channelCount, frameCapacity: 8192)
            while true {
                let n = try block.withBlock { try input.read(into: $0) }
                if n == 0 { break }
                total += n
            }
        } catch {
            failed = true
            #expect("\(error)".contains("truncated") || "\(error)".contains("cannot read"), "\(error)")
        }
        // Either an error, or a file whose header was corrected to the frames actually there.
        #expect(failed || total < 100_000)
    }
}
