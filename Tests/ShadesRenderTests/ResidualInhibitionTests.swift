import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// The residual-inhibition set (issue 14): the masker sounds at the asked level over the reference for
/// exactly its length, its offset ramp ends on the asked frame and digital silence follows; the
/// minimum-masking-level probes step by exactly the asked dB; the index says so.
@Suite struct ResidualInhibitionTests {
    @Test func maskerThenSilenceAndProbesInSteps() throws {
        let folder = temporaryFolder("ri")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rate = 48_000.0
        let items = try StimulusSets.residualInhibition(
            frequencyHz: 4_000, widthOctaves: 1, referenceDBFS: -40, aboveDB: 10, maskerSeconds: 10, silenceSeconds: 5,
            onsetRampSeconds: 0.5, offsetRampSeconds: 0.01, probeFromDB: -4, probeToDB: 4, probeStepDB: 2, probeSeconds: 2,
            layout: .diotic, sampleRate: rate, seed: 3)
        let index = try StimulusSets.write(items, set: "residual-inhibition", to: folder, sampleFormat: .f32, container: .wav)
        #expect(index.files.map(\.kind) == ["ri-masker"] + Array(repeating: "mml-probe", count: 5))
        #expect(index.files[0].soundSeconds == 10 && index.files[0].relativeLevel == 10 && index.files[0].level == -30)

        let masker = try DecodedAudio(contentsOf: "\(folder)/\(index.files[0].file)").buffer.samples(channel: 0)
        #expect(masker.count == 15 * Int(rate))
        // Sound up to frame 480,000 (the offset ramp's last non-zero sample just before it), silence after.
        let end = 10 * Int(rate)
        #expect(masker[end...].allSatisfy { $0 == 0 })
        #expect(masker[(end - 100)..<end].contains { $0 != 0 })
        // The sustained part (after the onset ramp, before the offset ramp) at -30 dBFS RMS.
        let sustained = masker[Int(0.5 * rate)..<(end - Int(0.01 * rate))]
        let rms = (sustained.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(sustained.count)).squareRoot()
        #expect(abs(20 * log10(rms) + 30) < 0.05, "masker at \(20 * log10(rms)) dBFS")
        // The onset ramp is a raised cosine: the first 10 ms hold far less power than 10 ms in the middle.
        let first = masker[0..<480].reduce(0.0) { $0 + Double($1) * Double($1) }
        let middle = masker[240_000..<240_480].reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(first < middle * 1e-3)

        // Probes: -44 … -36 dBFS in 2 dB steps, each measured.
        var levels: [Double] = []
        for file in index.files.dropFirst() {
            let x = try DecodedAudio(contentsOf: "\(folder)/\(file.file)").buffer.samples(channel: 0)
            let part = x[Int(0.5 * rate)..<(x.count - Int(0.01 * rate))]
            levels.append(20 * log10((part.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(part.count)).squareRoot()))
        }
        for (k, level) in levels.enumerated() { #expect(abs(level - (-44 + 2 * Double(k))) < 0.1, "probe \(k): \(level) dBFS") }
        #expect(index.files.dropFirst().map { $0.relativeLevel! } == [-4, -2, 0, 2, 4])
    }

    @Test func badStepsAndRangesAreRefused() {
        func attempt(step: Double = 2, from: Double = -10, to: Double = 20, silence: Double = 60) -> String? {
            do {
                _ = try StimulusSets.residualInhibition(
                    frequencyHz: 4_000, widthOctaves: 1, referenceDBFS: -40, aboveDB: 10, maskerSeconds: 60, silenceSeconds: silence,
                    onsetRampSeconds: 0.5, offsetRampSeconds: 0, probeFromDB: from, probeToDB: to, probeStepDB: step, probeSeconds: 5,
                    layout: .diotic, sampleRate: 48_000, seed: 1)
                return nil
            } catch { return error.parameter?.rawValue }
        }
        #expect(attempt() == nil)
        #expect(attempt(step: 3) == "mmlStep")
        #expect(attempt(from: 10, to: 0) == "mmlRange")
        #expect(attempt(silence: -1) == "silence")
    }
}
