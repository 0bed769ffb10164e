import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Notched noise for the catalogue: the band is gone, loops stay seamless.
@Suite struct NotchedNoiseTests {
    let folder = temporaryFolder("notched-noise")

    /// Mean power density inside the notch (excluding the outer 1/24 octave) relative to the passband
    /// beside it (from 1/12 octave outside the edges to an octave away), in dB.
    func depth(of samples: UnsafeBufferPointer<Float>, centre: Double, width: Double, periodic: Bool) -> Double {
        let spectrum = periodic ? PowerSpectrum.periodogram(samples, sampleRate: 48_000)
                                : try! PowerSpectrum.welch(samples, sampleRate: 48_000, segmentLength: 1 << 17)
        let lower = centre * pow(2, -width / 2), upper = centre * pow(2, width / 2)
        let inner = spectrum.bandPower(from: lower * pow(2, 1.0 / 24), to: upper * pow(2, -1.0 / 24))
            / (upper * pow(2, -1.0 / 24) - lower * pow(2, 1.0 / 24))
        let below = spectrum.bandPower(from: lower / 2, to: lower * pow(2, -1.0 / 12)) / (lower * pow(2, -1.0 / 12) - lower / 2)
        let above = spectrum.bandPower(from: upper * pow(2, 1.0 / 12), to: upper * 1.5) / (upper * 1.5 - upper * pow(2, 1.0 / 12))
        return 10 * log10(inner / ((below + above) / 2))
    }

    @Test func notchedLoopHasTheBandGoneAndNoSeam() throws {
        let request = RenderRequest(sound: .noise(colour: .white, distribution: .gaussian), durationSeconds: 10, layout: .mono,
                                    loop: true, notches: [NotchSpec(centreHz: 6000, widthOctaves: 1)])
        let path = "\(folder)/loop.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let x = try DecodedAudio(contentsOf: path).buffer
        let d = x.withChannel(0) { depth(of: UnsafeBufferPointer($0), centre: 6000, width: 1, periodic: true) }
        #expect(d < -100, "depth \(d) dB")
        var seam = SeamAccumulator()
        x.withChannel(0) { seam.add(UnsafeBufferPointer($0)) }
        #expect(try seam.result().isSeamless)
    }

    @Test func notchedStreamIsAHundredDecibelsDownFromTheFirstFrame() throws {
        let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 30, layout: .mono,
                                    notches: [NotchSpec(centreHz: 4000, widthOctaves: 0.5, edgeBoostDB: 20)])
        let path = "\(folder)/stream.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let x = try DecodedAudio(contentsOf: path).buffer
        #expect(abs(x.withChannel(0) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) } + 20) < 0.01)
        // The first second already has the band removed (the filter is primed by the source).
        let first = x.withChannel(0) { depth(of: UnsafeBufferPointer(rebasing: $0[0..<48_000]), centre: 4000, width: 0.5, periodic: false) }
        #expect(first < -100, "first second: \(first) dB")
        #expect(RenderRequest(sound: .tone(frequencyHz: 1000), durationSeconds: 1, loop: true,
                                  notches: [NotchSpec(centreHz: 4000)]).validateThrows())
    }

    @Test(arguments: [
        ("render pink --notch 30kHz --duration 1s -o out.wav", "notch"),
        ("render pink --notch 6kHz --notch-width 4 --duration 1s -o out.wav", "width"),
        ("render pink --notch 6kHz --edge-boost 40dB --duration 1s -o out.wav", "edge-boost"),
        ("render pink --edge-boost 20dB --duration 1s -o out.wav", "edge-boost"),
        ("render tone --frequency 1k --notch 4kHz --loop --duration 1s -o out.wav", "notch"),
    ])
    func badNotchInputIsOneLineAndNoFile(command: String, mentions: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(mentions), "\(command): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.wav"))
    }
}

extension RenderRequest {
    /// True when validation throws.
    func validateThrows() -> Bool {
        do { try validate(); return false } catch { return true }
    }
}
