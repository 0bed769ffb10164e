import Testing
import Foundation
import ShadesDSP
import ShadesRender

/// The spectral shape of a sound (issue 22): a shaped stream the same whatever the block sizes, the JSON form,
/// and the kernel's response against the curve.
@Suite struct SpectralShapeTests {
    /// The half-gain rule's shape of an audiogram's right ear (ShadesProceduresTests' HalfGainRuleTests make it
    /// from the audiogram: gains 0, 10, 25 and 30 dB).
    static let shape = SpectralShape.halfGain(frequenciesHz: [250, 1000, 4000, 8000], thresholdsDBHL: [-5, 20, 50, 80])

    @Test func theKernelFollowsTheCurve() throws {
        let shape = Self.shape
        for rate in [44_100.0, 48_000, 96_000] {
            let design = try NotchDesign(shaping: shape.curve, sampleRate: rate)
            var f = 125.0
            while f < 0.45 * rate {
                let response = Decibels.fromAmplitude(design.magnitude(atFrequency: f))
                // Away from the curve's corners the window's 6 Hz smoothing is invisible; at them, a fraction of a dB.
                #expect(abs(response - shape.gainDB(atHz: f)) <= 0.25, "\(f) Hz at \(rate): \(response) dB, curve \(shape.gainDB(atHz: f))")
                f *= pow(2, 1.0 / 12)
            }
        }
    }

    @Test func aShapedStreamIsTheSameWhateverTheBlocks() throws {
        let shape = Self.shape
        let request = RenderRequest(sound: Sound(.generator(.noise(colour: .pink, distribution: .gaussian)), shape: shape),
                                    durationSeconds: 2, level: .rms(dBFS: -20), seed: 5)
        let graph = try SoundGraph(request)
        func render(_ sizes: (Int) -> Int) -> [Float] {
            let source = graph.makeSource()
            let buffer = AudioBuffer(channelCount: 2, frameCapacity: 96_000)
            var done = 0, call = 0
            while done < 96_000 {
                let n = min(96_000 - done, sizes(call))
                buffer.withBlock(frames: done..<(done + n)) { source.render(into: $0) }
                done += n
                call += 1
            }
            return buffer.samples(channel: 0) + buffer.samples(channel: 1)
        }
        let whole = render { _ in 96_000 }
        #expect(render { 1 + ($0 * 7_919) % 5_000 } == whole)
        #expect(render { _ in 480 } == whole)
        // The JSON form carries the shape and reads back the same.
        let json = try JSONEncoder().encode(request.sound)
        #expect(String(decoding: json, as: UTF8.self).contains("\"shape\""))
        #expect(try JSONDecoder().decode(Sound.self, from: json) == request.sound)
    }
}
