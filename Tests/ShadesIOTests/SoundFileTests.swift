import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesTestSupport

@Suite struct SoundFileTests {
    let folder = temporaryFolder("io-tests")

    func ramp(channels: Int, frames: Int) -> AudioBuffer {
        let buffer = AudioBuffer(channelCount: channels, frameCapacity: frames)
        for c in 0..<channels {
            buffer.withChannel(c) { x in for i in 0..<frames { x[i] = Float(sin(Double(i) * 0.01 * Double(c + 1))) * 0.5 } }
        }
        return buffer
    }

    @Test(arguments: [("wav", SampleFormat.s16), ("wav", .s24), ("wav", .f32), ("flac", .s16), ("flac", .s24)])
    func roundTripKeepsSamplesRateChannelsAndComment(ext: String, sampleFormat: SampleFormat) throws {
        let path = "\(folder)/round.\(ext)"
        let source = ramp(channels: 2, frames: 10_000)
        try FileSink.write(source, sampleRate: 44_100, gains: [1, 0.5], to: path,
                                  sampleFormat: sampleFormat,
                                  ditherKey: 1, comment: "shades test comment")
        let decoded = try DecodedAudio(contentsOf: path)
        #expect(decoded.sampleRate == 44_100)
        #expect(decoded.buffer.channelCount == 2 && decoded.buffer.frameCapacity == 10_000)
        #expect(decoded.comment == "shades test comment")
        let tolerance: Float = sampleFormat == .s16 ? 1.6 / 32_768 : (sampleFormat == .s24 ? 1 / 4_000_000 : 0)
        for c in 0..<2 {
            let expected = source.samples(channel: c).map { $0 * (c == 0 ? 1 : 0.5) }
            let got = decoded.buffer.samples(channel: c)
            let worst = zip(expected, got).map { abs($0 - $1) }.max()!
            #expect(worst <= tolerance, "\(ext) \(sampleFormat) channel \(c): error \(worst)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func sixteenBitOutputIsTPDFDithered() throws {
        // A constant a quarter LSB above zero: plain rounding would give all zeros; TPDF dither gives a
        // mean of 0.25 LSB and an error variance of 1/4 LSB² (1/6 dither + 1/12 rounding).
        let frames = 200_000
        let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames)
        buffer.withChannel(0) { $0.update(repeating: 0.25 / 32_768) }
        let path = "\(folder)/dither.wav"
        try FileSink.write(buffer, sampleRate: 48_000, gains: [1], to: path,
                                  sampleFormat: .s16, ditherKey: 3, comment: nil)
        let x = try DecodedAudio(contentsOf: path).buffer.samples(channel: 0).map { Double($0) * 32_768 }
        let mean = x.reduce(0, +) / Double(frames)
        let variance = x.map { ($0 - 0.25) * ($0 - 0.25) }.reduce(0, +) / Double(frames)
        #expect(abs(mean - 0.25) < 0.01)
        #expect(abs(variance - 0.25) < 0.01)
        #expect(Set(x).isSubset(of: [-1, 0, 1, 2]))
    }

    /// The quantiser measures as it goes: the input as `SignalMeasurement.add` does (the same bits, so a
    /// one-pass render decides alike), and the 16-bit values it wrote exactly (integers), clipped ones too.
    @Test(arguments: [5, 13, 1_024, 1_030, 262_144 + 21])
    func theQuantiserMeasuresItsInputAndItsOutput(count: Int) throws {
        var random = SplitMix64(seed: 9)
        let samples = (0..<count).map { i -> Float in
            Float(random.nextUnit() * 2 - 1) * (i % 97 == 0 ? 1.3 : 0.4)  // a few beyond full scale
        }
        var fused = SignalQuantizer(ditherKey: 4), plain = SignalQuantizer(ditherKey: 4)
        var out1 = [Int16](repeating: 0, count: count), out2 = out1
        var input = SignalMeasurement(sumOfSquares: 0.5, peak: 0.1), reference = input
        let (written1, written2) = samples.withUnsafeBufferPointer { x in
            (out1.withUnsafeMutableBufferPointer { fused.quantize16(x, gain: 0.9, into: $0, measuring: &input) },
             out2.withUnsafeMutableBufferPointer { o -> SignalMeasurement in reference.add(x); return plain.quantize16(x, gain: 0.9, into: o) })
        }
        #expect(out1 == out2)
        #expect(input == reference)
        #expect(written1 == written2)
        let exact = out1.reduce(0.0) { $0 + Double($1) * Double($1) } / (32_768 * 32_768)
        #expect(written1.sumOfSquares == exact)
        #expect(written1.peak == Float(out1.map { abs(Int32($0)) }.max()!) / 32_768)
    }

    @Test func failedWriteLeavesNothingAndKeepsTheOldFile() throws {
        let path = "\(folder)/keep.wav"
        try Data("good".utf8).write(to: URL(fileURLWithPath: path))
        var failed = false
        do {
            try AtomicFile.write(to: path) { (temporary: AtomicFile.Temporary) throws(ShadesError) in
                try temporary.write(Array("partial".utf8))
                throw ShadesError.runtime("simulated failure")
            }
        } catch { failed = true }
        #expect(failed)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "good")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func unwritableFoldersAndBadExtensionsAreRefused() throws {
        #expect(throws: ShadesError.self) { try AtomicFile.checkWritable("/nonexistent-folder/x.wav") }
        #expect(throws: ShadesError.self) { try Container(path: "x.mp3") }
        #expect(throws: ShadesError.self) { try AudioFileFormat(container: .flac, sampleFormat: .f32) }
        #expect(try Container(path: "dir.v2/Out.FLAC") == .flac)
    }

    @Test func unreadableFilesAreReported() throws {
        let path = "\(folder)/garbage.wav"
        try Data("not a sound file".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ShadesError.self) { try DecodedAudio(contentsOf: path) }
        #expect(throws: ShadesError.self) { try DecodedAudio(contentsOf: "\(folder)/missing.wav") }
    }

    @Test func resamplingKeepsAToneItsFrequency() throws {
        let tone = try ToneSource(frequencyHz: 1_000, sampleRate: 48_000, layout: .mono).renderBuffer(frameCount: 48_000)
        let converted = try Resampler.convert(tone, from: 48_000, to: 44_100)
        #expect(abs(converted.frameCapacity - 44_100) <= 1)
        // Count upward zero crossings in the steady middle second: 1 kHz → about 1000 per second.
        let x = converted.samples(channel: 0)
        var crossings = 0
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 { crossings += 1 }
        #expect(abs(crossings - 1000) <= 2)
    }
}
