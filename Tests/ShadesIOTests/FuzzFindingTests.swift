import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

/// A replay of the audio-file fuzzer's corpus (Fuzz/, `make fuzz`): seeds in every container libsndfile
/// reads, hostile headers and samples, and any finding.
@Suite struct AudioFileFuzzCorpusTests {
    /// Every committed input of FuzzAudioFile reads exactly the frames its header announces, or fails with
    /// one error naming the file.
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
                #expect(total == input.frameCount, "\(name): read \(total) of \(input.frameCount) frames")
                readable += 1
            } catch {
                #expect(error.description.contains(path), "\(name): \(error)")
            }
        }
        #expect(readable >= 10, "only \(readable) of \(corpus.count) seeds readable")
    }
}
