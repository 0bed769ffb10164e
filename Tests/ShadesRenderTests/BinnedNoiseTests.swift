import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Binned noise, the stimuli of reverse correlation (issue 35; Hoyland et al. 2023): every FFT bin of the whole
/// file at its bin's level and nothing outside the range, the RMS as asked, seeded, and read from a sound's JSON.
@Suite struct BinnedNoiseTests {
    let folder = temporaryFolder("binned-noise")

    /// Mean power of the FFT bins of the whole file between each pair of `edges`, dB re the largest.
    func binLevels(_ path: String, edges: [Double]) throws -> (bins: [Double], outside: Double) {
        let audio = try DecodedAudio(contentsOf: path)
        let x = audio.buffer.samples(channel: 0)
        let fft = RealFFT(size: x.count)
        fft.withSignal { s in for i in 0..<x.count { s[i] = x[i] } }
        fft.forward()
        var power = [Double](repeating: 0, count: fft.binCount)
        fft.addBinPowers(to: &power)
        let resolution = Double(audio.sampleRate) / Double(x.count)
        var sums = [Double](repeating: 0, count: edges.count - 1), counts = sums, outside = 0.0
        for (k, p) in power.enumerated() where k > 0 {
            let f = Double(k) * resolution
            if let j = (0..<(edges.count - 1)).first(where: { f >= edges[$0] && f < edges[$0 + 1] }) { sums[j] += p; counts[j] += 1 } else { outside = max(outside, p) }
        }
        let means = zip(sums, counts).map { $0 / $1 }
        let top = means.max()!
        return (means.map { 10 * log10($0 / top) }, 10 * log10(max(outside, 1e-30) / top))
    }

    @Test func everyBinIsAtItsLevelAndNothingOutsideTheRange() throws {
        let levels: [Double] = [0, -100, 0, -30, -100, 0, -6, -100]
        for scale in BinnedNoise.Scale.allCases {
            let generator = Generator.binnedNoise(lowHz: 100, highHz: 13_000, scale: scale, levelsDB: levels)
            let request = RenderRequest(sound: generator, durationSeconds: 0.5, layout: .mono, levelDBFS: -20, seed: 3)
            let path = "\(folder)/binned-\(scale).wav"
            let report = try Renderer.renderFile(request, to: path, sampleFormat: .f32)
            #expect(abs((report.rmsDBFS ?? 0) + 20) < 0.01)
            let edges = BinnedNoise.edgesHz(lowHz: 100, highHz: 13_000, count: 8, scale: scale)
            let (measured, outside) = try binLevels(path, edges: edges)
            // Exact magnitudes per FFT bin (float32 samples): within 0.05 dB; -100 dB bins within 1 dB.
            for (m, l) in zip(measured, levels) { #expect(abs(m - l) < (l < -60 ? 1 : 0.05), "\(scale): \(measured)") }
            #expect(outside < -120, "\(scale): \(outside) dB outside the range")
        }
    }

    /// The message of the error `body` throws, nil when it throws none.
    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch { return "\(error)" }
    }

    @Test func theSeedMakesTheFileAndTheJSONReadsIt() throws {
        let json = #"{ "source": "binned-noise", "lowHz": 200, "highHz": 8000, "binScale": "mel", "binLevelsDB": [0, -100, 0, -100] }"#
        let sound = try Sound.parse(json: Array(json.utf8), file: "s.json")
        #expect(sound.generator == .binnedNoise(lowHz: 200, highHz: 8_000, scale: .mel, levelsDB: [0, -100, 0, -100]))
        func bytes(_ seed: UInt64) throws -> Data {
            let path = "\(folder)/seed-\(seed).wav"
            try Renderer.renderFile(RenderRequest(sound: sound, durationSeconds: 0.25, seed: seed), to: path, sampleFormat: .s16)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(try bytes(5) == bytes(5) && bytes(5) != bytes(6))
        for bad in [#""binLevelsDB": [0, 5]"#, #""highHz": 30000"#, #""lowHz": 15000"#] {
            let text = #"{ "source": "binned-noise", "#  + bad + "}"
            let message = Self.refusal { try RenderRequest(sound: try Sound.parse(json: Array(text.utf8), file: "s.json"), durationSeconds: 0.5).validate() }
            #expect(message?.contains("allowed") == true, "\(bad): \(message ?? "accepted")")
        }
        // 512 bins over 100 … 200 Hz are narrower than 1/duration.
        #expect(throws: ShadesError.self) {
            try RenderRequest(sound: .binnedNoise(lowHz: 100, highHz: 200, scale: .log, levelsDB: [Double](repeating: 0, count: 512)), durationSeconds: 0.5).validate()
        }
    }
}
