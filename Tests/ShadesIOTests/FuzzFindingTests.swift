import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// A replay of the audio-file fuzzer's corpus (Fuzz/, `make fuzz`): seeds in every container libsndfile
/// reads, hostile headers and samples, and any finding.
@Suite struct AudioFileFuzzCorpusTests {
    /// Every committed input of FuzzAudioFile reads exactly the frames its header announces (an estimated
    /// length: at most that many, and a warning when none is announced, as for the cut Opus stream
    /// `opus-no-length.ogg` the fuzzer found), or fails with one error naming the file.
    @Test func theAudioCorpusReadsWholeOrFailsNamingTheFile() throws {
        let corpus = fuzzCorpus("FuzzAudioFile")
        #expect(corpus.count >= 10)
        let folder = temporaryFolder("fuzz-corpus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var readable = 0
        for (name, bytes) in corpus {
            let path = "\(folder)/\(name)"
            try bytes.write(to: URL(fileURLWithPath: path))
            do throws(ShadesError) {
                let input = try AudioFileInput(path: path)
                let buffer = AudioBuffer(channelCount: input.channelCount, frameCapacity: 333, zeroed: false)
                var total = 0
                while case let got = try buffer.withBlock({ (block: AudioBlock) throws(ShadesError) in try input.read(into: block) }), got > 0 {
                    total += got
                }
                if input.lengthIsExact {
                    #expect(total == input.frameCount, "\(name): read \(total) of \(input.frameCount) frames")
                } else {
                    #expect(total <= input.frameCount, "\(name): read \(total) of about \(input.frameCount) frames")
                    if input.frameCount == Int.max { #expect(input.lengthWarning != nil, "\(name): no length and no warning") }
                }
                readable += 1
            } catch {
                #expect(error.description.contains(path), "\(name): \(error)")
            }
        }
        #expect(readable >= 10, "only \(readable) of \(corpus.count) seeds readable")
    }

    /// FuzzAudioFile, `list-subchunk-past-end.wav` (92 bytes): a LIST chunk whose sub-chunks announce
    /// 4 GB in a file of 92 bytes sent libsndfile 1.2's `sf_open` into an endless loop (libsndfile issue
    /// 1118). So did `list-type-size-wraps.wav` (54 bytes, session 45): an unknown list type followed by a
    /// size that wraps libsndfile's 32-bit count of the bytes read. Both are refused before libsndfile sees
    /// them; an intact file with a LIST chunk still opens, even when its last INFO string has an odd length
    /// and no padding byte (common in the wild), or its list type is one libsndfile does not know.
    @Test func aListChunkRunningPastTheFileIsRefusedBeforeLibsndfileSeesIt() throws {
        let folder = temporaryFolder("list-chunk")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func wav(list: [UInt8], after: [UInt8] = []) -> [UInt8] {
            func le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            let format = Array("fmt ".utf8) + le(16) + [1, 0, 1, 0] + le(8_000) + le(16_000) + [2, 0, 16, 0]
            let data = Array("data".utf8) + le(16) + [UInt8](repeating: 0, count: 16)
            let body = Array("WAVE".utf8) + format + data + Array("LIST".utf8) + le(list.count) + list + after
            return Array("RIFF".utf8) + le(body.count) + body
        }
        func open(_ bytes: [UInt8], _ name: String) -> ShadesError? {
            let path = "\(folder)/\(name)"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            do throws(ShadesError) { _ = try AudioFileInput(path: path); return nil } catch { return error }
        }
        let past = open(wav(list: Array("INFO".utf8) + Array("ICxx".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0xFF, count: 8)), "past.wav")
        #expect(past?.description.contains("past.wav") == true && past?.description.contains("LIST chunk") == true, "\(String(describing: past))")
        let fuzzed = fuzzCorpus("FuzzAudioFile").first { $0.name == "list-subchunk-past-end.wav" }
        let found = open(Array(try #require(fuzzed).bytes), "found.wav")
        #expect(found?.description.contains("LIST chunk at byte 36") == true, "\(String(describing: found))")
        let wrapping = fuzzCorpus("FuzzAudioFile").first { $0.name == "list-type-size-wraps.wav" }
        let wraps = open(Array(try #require(wrapping).bytes), "wraps.wav")
        #expect(wraps?.description.contains("LIST chunk at byte 36: sub-chunk of 4294967287 bytes") == true, "\(String(describing: wraps))")
        // A list type libsndfile does not know, then an intact sub-chunk: still read.
        #expect(open(wav(list: Array("exif".utf8) + Array("ever".utf8) + [4, 0, 0, 0] + Array("0220".utf8)), "exif.wav") == nil)
        // An odd-length title, its padding byte missing at the end of the file: still read.
        #expect(open(wav(list: Array("INFO".utf8) + Array("INAM".utf8) + [5, 0, 0, 0] + Array("Rain!".utf8)), "odd.wav") == nil)
    }
}

