import Testing
import ShadesAnalysis
import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SIMD true-peak meter reads what libebur128's own true-peak mode reads.
@Suite struct TruePeakTests {
    func libebur128TruePeak(_ x: [Float], rate: Double) throws -> Double {
        let meter = try LoudnessMeter(channelCount: 1, sampleRate: rate, dualMono: false, truePeak: true)
        try x.withUnsafeBufferPointer { try meter.add([$0]) }
        return try meter.result().truePeakDBTP!
    }

    func simdTruePeak(_ x: [Float], rate: Double, block: Int) -> Double {
        var meter = TruePeakMeter(sampleRate: rate)
        x.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: block) {
                meter.add(UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + block)]))
            }
        }
        return meter.peakDBTP
    }

    @Test(arguments: [44_100.0, 48_000, 96_000])
    func agreesWithLibebur128(rate: Double) throws {
        // An intersample peak (a sine at rate/4, 45° phase: samples at 0.707 of the peak) and pink noise.
        let n = Int(rate)
        let sine = (0..<n).map { Float(0.5 * sin(Double.pi / 2 * Double($0) + Double.pi / 4)) }
        let pink = try NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, levelDBFS: -12).renderBuffer(frameCount: n).samples(channel: 0)
        // Quiet noise with two short bursts of that sine, the later one louder: the meter skips stretches
        // that cannot beat the peak so far, and must not skip the burst whose peak lies between samples.
        var bursts = try NoiseSource(colour: .pink, sampleRate: rate, layout: .mono, levelDBFS: -40).renderBuffer(frameCount: n).samples(channel: 0)
        for (start, gain) in [(n / 3, Float(0.6)), (2 * n / 3, Float(1))] {
            for i in start..<start + 101 { bursts[i] += gain * sine[i] }
        }
        for (name, x) in [("sine at rate/4", sine), ("pink", pink), ("bursts", bursts)] {
            let reference = try libebur128TruePeak(x, rate: rate)
            for block in [n, 1000, 7] {
                let ours = simdTruePeak(x, rate: rate, block: block)
                #expect(abs(ours - reference) < 0.01, "\(name) at \(rate) Hz, blocks of \(block): \(ours) vs libebur128 \(reference)")
                #expect(ours == simdTruePeak(x, rate: rate, block: n), "\(name): the same reading whatever the blocks")
            }
        }
        #expect(simdTruePeak(sine, rate: rate, block: n) > -6.5)  // the sample peak is −9.03 dBFS
        #expect(simdTruePeak(bursts, rate: rate, block: 7) > -6.5)
    }
}
