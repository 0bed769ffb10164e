import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

@Suite struct AudioFileInputTests {
    let folder = temporaryFolder("input-tests")

    func writeNoise(_ name: String, frames: Int = 20_000, format: SampleFormat = .s16) throws -> (String, AudioBuffer) {
        let path = "\(folder)/\(name)"
        let buffer = try NoiseSource(colour: .pink, sampleRate: 44_100, layout: .stereo).renderBuffer(frameCount: frames)
        try FileSink.write(buffer, sampleRate: 44_100, gains: [1, 1], to: path,
                                  sampleFormat: format,
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

    /// A file source prepared for real time (``RealTimePreparation``: its reader decodes ahead, then no
    /// render call waits) begins without an underrun, with the file's first samples (resampled to 48 kHz
    /// here, so the decoder and the resampler both have to have run), and counts in the preparation's
    /// counter when its reader is behind.
    @Test func aPreparedFileSourceStartsWithoutAnUnderrun() throws {
        let (path, _) = try writeNoise("first-block.wav")
        let reference = try AudioFileSource(path: path, sampleRate: 48_000, blockFrames: 4_096).renderBuffer(frameCount: 512)
        let live = try AudioFileSource(path: path, sampleRate: 48_000, blockFrames: 4_096)
        #expect(live.waitsForReader)
        let counter = RealTimePreparation.prepare(live, readerUnderruns: UnderrunCounter())
        #expect(!live.waitsForReader)
        let first = live.renderBuffer(frameCount: 512)
        #expect(counter.count == 0)
        for c in 0..<2 { #expect(first.samples(channel: c) == reference.samples(channel: c)) }
    }

    /// A file source released mid-file with its reader's ring full (a player stopped by its timer or by
    /// Ctrl-C) stops the reader and frees everything; it once stopped the process (libdispatch: "semaphore
    /// object deallocated while in use").
    @Test func aSourceReleasedMidFileWithItsRingFullStopsCleanly() throws {
        let (path, _) = try writeNoise("mid-file.wav", frames: 40_000)
        for _ in 0..<3 {
            let source = try AudioFileSource(path: path, blockFrames: 4_096)
            _ = source.renderBuffer(frameCount: 100)
            usleep(100_000)   // the reader fills the three free slots and waits
            #expect(source.waitsForReader && source.frameCount == nil)  // it waits: never an underrun
        }
    }

    /// 16-bit PCM is read as integers and converted here: every value v comes out as v / 32768 exactly
    /// (libsndfile's own conversion), in its channel, for stereo and for other channel counts.
    @Test(arguments: [1, 2, 3])
    func sixteenBitPCMReadsAsExactFractionsOfFullScale(channels: Int) throws {
        let frames = 65_536
        var samples = [Int16](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            for c in 0..<channels { samples[frame * channels + c] = Int16(truncatingIfNeeded: frame &* (2 * c + 1) &+ 31 * c) }
        }
        // A canonical 44-byte WAV header, then the samples (little-endian).
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        let dataBytes = UInt32(samples.count * 2)
        var file = Array("RIFF".utf8) + le(36 + dataBytes) + Array("WAVEfmt ".utf8) + le(UInt32(16)) + le(UInt16(1))
        file += le(UInt16(channels)) + le(UInt32(48_000)) + le(UInt32(48_000 * 2 * channels)) + le(UInt16(2 * channels)) + le(UInt16(16))
        file += Array("data".utf8) + le(dataBytes)
        samples.withUnsafeBytes { file += Array($0) }
        let path = "\(folder)/pcm16-\(channels).wav"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(file)))

        let input = try AudioFileInput(path: path)
        let read = AudioBuffer(channelCount: channels, frameCapacity: frames)
        var done = 0
        while done < frames {
            done += try read.withBlock(frames: done..<min(frames, done + 10_000)) { try input.read(into: $0) }
        }
        for c in 0..<channels {
            let expected = (0..<frames).map { Float(samples[$0 * channels + c]) / 32_768 }
            #expect(read.samples(channel: c) == expected, "channel \(c) of \(channels)")
        }
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
