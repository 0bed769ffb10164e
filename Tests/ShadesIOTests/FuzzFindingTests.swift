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
}
