import Foundation
import Testing
import ShadesAnalysis
import ShadesDSP

@Suite struct LoudnessMeterTests {
    /// `channels` copies of x[n] = amplitude·sin(2π·f·n/rate + phase).
    func sine(frequencyHz: Double, peakDBFS: Double, seconds: Double, sampleRate: Double = 48_000,
              channels: Int = 2, phase: Double = 0) -> AudioBuffer {
        let frames = Int(seconds * sampleRate)
        let amplitude = Decibels.amplitude(peakDBFS)
        let buffer = AudioBuffer(channelCount: channels, frameCapacity: frames)
        for c in 0..<channels {
            buffer.withChannel(c) { out in
                for i in 0..<frames { out[i] = Float(amplitude * sin(2 * Double.pi * frequencyHz * Double(i) / sampleRate + phase)) }
            }
        }
        return buffer
    }

    func measure(_ buffer: AudioBuffer, sampleRate: Double = 48_000, dualMono: Bool = true) throws -> LoudnessReport {
        let meter = try LoudnessMeter(channelCount: buffer.channelCount, sampleRate: sampleRate, dualMono: dualMono)
        try buffer.withBlock { try meter.add($0) }
        return try meter.result()
    }

    /// EBU Tech 3341 cases 1 and 2: a stereo 1 kHz sine at −23 (−33) dBFS peak in both channels reads
    /// −23.0 (−33.0) LUFS ± 0.1 LU.
    @Test(arguments: [(-23.0, 48_000.0), (-33.0, 48_000.0), (-23.0, 44_100.0)])
    func stereoSineReadsItsPeakLevelInLUFS(level: Double, sampleRate: Double) throws {
        let report = try measure(sine(frequencyHz: 1_000, peakDBFS: level, seconds: 20, sampleRate: sampleRate), sampleRate: sampleRate)
        #expect(abs(report.integratedLUFS! - level) <= 0.1, "\(report.integratedLUFS!) LUFS")
        #expect(report.loudnessRangeLU < 0.1)
        #expect(abs(report.samplePeakDBFS! - level) < 0.01)
        #expect(report.truePeakDBTP! >= level - 0.4 && report.truePeakDBTP! <= level + 0.2)
        #expect(report.samplePeakDBFSPerChannel.count == 2 && report.truePeakDBTPPerChannel!.count == 2)
        #expect(abs(report.durationSeconds - 20) < 1e-9)
    }

    @Test func monoCountsTwiceAsDualMonoAndOnceOtherwise() throws {
        let mono = sine(frequencyHz: 1_000, peakDBFS: -23, seconds: 10, channels: 1)
        let dual = try measure(mono)
        #expect(dual.dualMono)
        #expect(abs(dual.integratedLUFS! + 23) <= 0.1)
        let single = try measure(mono, dualMono: false)
        #expect(!single.dualMono)
        #expect(abs(dual.integratedLUFS! - single.integratedLUFS! - 10 * log10(2.0)) < 0.001)
    }

    /// A sine at fs/4 with 45° phase has its samples at ±A/√2: the sample peak is 3.01 dB below the true
    /// peak, which the 4× oversampling finds (EBU Tech 3341 tolerance +0.2/−0.4 dB).
    @Test func truePeakFindsTheIntersamplePeak() throws {
        let report = try measure(sine(frequencyHz: 12_000, peakDBFS: -6, seconds: 5, phase: Double.pi / 4))
        #expect(abs(report.samplePeakDBFS! - (-6 - 3.0103)) < 0.01)
        #expect(report.truePeakDBTP! >= -6 - 0.4 && report.truePeakDBTP! <= -6 + 0.2, "\(report.truePeakDBTP!) dBTP")
    }

    @Test func silenceHasNoLoudnessAndNoPeaks() throws {
        let report = try measure(AudioBuffer(channelCount: 2, frameCapacity: 96_000))
        #expect(report.integratedLUFS == nil)
        #expect(report.loudnessRangeLU == 0)
        #expect(report.samplePeakDBFS == nil && report.truePeakDBTP == nil)
        #expect(report.samplePeakDBFSPerChannel == [nil, nil])
        // Silence encodes to JSON (no infinities).
        let json = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["integratedLUFS"] == nil && object["truePeakDBTP"] == nil && object["samplePeakDBFS"] == nil)
        #expect(object["loudnessRangeLU"] as? Double == 0)
        #expect((object["samplePeakDBFSPerChannel"] as? [Any])?.count == 2)
        #expect(object["channelCount"] as? Int == 2 && object["durationSeconds"] as? Double == report.durationSeconds)
    }

    @Test func blockSizesAndInputShapesDoNotChangeTheResult() throws {
        let noise = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, levelDBFS: -18)
            .renderBuffer(frameCount: 8 * 48_000 + 17)
        let whole = try measure(noise)
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        var state: UInt64 = 11
        var done = 0
        while done < noise.frameCapacity {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let size = min(noise.frameCapacity - done, Int(state >> 33) % 20_000 + 1)
            try noise.withBlock(frames: done..<done + size) { try meter.add($0) }
            done += size
        }
        #expect(try meter.result() == whole)
        // Interleaved input in one call.
        let left = noise.samples(channel: 0), right = noise.samples(channel: 1)
        var interleaved = [Float](repeating: 0, count: 2 * left.count)
        for i in 0..<left.count { interleaved[2 * i] = left[i]; interleaved[2 * i + 1] = right[i] }
        let interleavedMeter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        try interleaved.withUnsafeBufferPointer { try interleavedMeter.add(interleaved: $0, frames: left.count) }
        #expect(try interleavedMeter.result() == whole)
        // Planar arrays.
        let planarMeter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        try left.withUnsafeBufferPointer { l in try right.withUnsafeBufferPointer { r in try planarMeter.add([l, r]) } }
        #expect(try planarMeter.result() == whole)
    }

    @Test func gainToReachMovesTheLoudnessToTheTarget() throws {
        let noise = try NoiseSource(colour: .brown, sampleRate: 48_000, layout: .stereo, levelDBFS: -30)
            .renderBuffer(frameCount: 10 * 48_000)
        let before = try measure(noise)
        let gainDB = LoudnessMeter.gainToReach(targetLUFS: -23, measuredLUFS: before.integratedLUFS!)
        let gain = Float(Decibels.amplitude(gainDB))
        for c in 0..<2 { noise.withChannel(c) { x in for i in x.indices { x[i] *= gain } } }
        let after = try measure(noise)
        #expect(abs(after.integratedLUFS! + 23) < 0.01)
        #expect(abs(after.truePeakDBTP! - before.truePeakDBTP! - gainDB) < 0.01)
    }

    @Test func badInputIsATypedErrorNamingTheProblem() throws {
        #expect(throws: ShadesError.self) { try LoudnessMeter(channelCount: 0, sampleRate: 48_000) }
        #expect(throws: ShadesError.self) { try LoudnessMeter(channelCount: 2, sampleRate: 1_000) }
        #expect(throws: ShadesError.self) { try LoudnessMeter(channelCount: 2, sampleRate: 44_100.5) }
        do {
            _ = try LoudnessMeter(channelCount: 65, sampleRate: 48_000)
            Issue.record("65 channels accepted")
        } catch {
            #expect(error.description.contains("channels 65"))
            #expect(!error.description.contains("\n"))
        }
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        let three = AudioBuffer(channelCount: 3, frameCapacity: 10)
        #expect(throws: ShadesError.self) { try three.withBlock { try meter.add($0) } }
        #expect(throws: ShadesError.self) {
            try [Float](repeating: 0, count: 5).withUnsafeBufferPointer { try meter.add(interleaved: $0, frames: 3) }
        }
        #expect(meter.frameCount == 0)
    }

    @Test func withoutTruePeakTheReportSaysSo() throws {
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000, truePeak: false)
        try sine(frequencyHz: 1_000, peakDBFS: -23, seconds: 5).withBlock { try meter.add($0) }
        let report = try meter.result()
        #expect(report.truePeakDBTP == nil && report.truePeakDBTPPerChannel == nil)
        #expect(abs(report.integratedLUFS! + 23) <= 0.1)
    }
}
