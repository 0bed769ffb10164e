import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport

@Suite struct LevelStatisticsTests {
    func measure(_ buffer: AudioBuffer) -> LevelReport {
        var stats = LevelStatistics(channelCount: buffer.channelCount)
        buffer.withBlock { stats.add($0) }
        return stats.report()
    }

    @Test func sineHasKnownRMSPeakAndNoDC() throws {
        let report = measure(buffer([sine(frequencyHz: 997, levelDBFS: -20, frames: 48_000)]))
        let channel = report.channels[0]
        #expect(abs(channel.rmsDBFS! + 20) < 0.001)
        #expect(abs(channel.samplePeakDBFS! - (-20 + 3.0103)) < 0.001)
        #expect(abs(channel.dcOffset) < 1e-5)
        #expect(channel.clippedSamples == 0)
        #expect(report.correlation == nil)
        #expect(report.frameCount == 48_000)
    }

    @Test func correlationOfIdenticalInvertedAndIndependentChannels() throws {
        let x = sine(frequencyHz: 440, levelDBFS: -10, frames: 48_001)
        #expect(abs(measure(buffer([x, x])).correlation! - 1) < 1e-9)
        #expect(abs(measure(buffer([x, x.map { -$0 }])).correlation! + 1) < 1e-9)
        // A DC offset on one channel leaves the Pearson correlation at 1.
        let shifted = measure(buffer([x, x.map { $0 + 0.1 }]))
        #expect(abs(shifted.correlation! - 1) < 1e-6)
        #expect(abs(shifted.channels[1].dcOffset - 0.1) < 1e-6)
        // Independent white noise: |r| ≈ 1/√n ≈ 0.0014 for 480,000 frames.
        let noise = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .stereo, levelDBFS: -20)
            .renderBuffer(frameCount: 480_000)
        #expect(abs(measure(noise).correlation!) < 0.01)
    }

    @Test func clippedSamplesAreCountedExactly() {
        // 1 − 2⁻¹⁵ is the threshold (counts); one Float step below it does not.
        let threshold = LevelStatistics.clipThreshold
        let below = threshold.nextDown
        var x = [Float](repeating: 0.25, count: 1_037)  // odd length: SIMD body and scalar tail
        let clips: [(Int, Float)] = [(0, 1), (9, -1), (100, threshold), (101, -threshold), (500, 1.5), (1_030, -2), (1_036, 1)]
        for (i, v) in clips { x[i] = v }
        x[200] = below
        x[1_031] = -below
        let report = measure(buffer([x, x.map { -$0 }, x]))  // channels 0, 1 paired; channel 2 alone
        for channel in report.channels { #expect(channel.clippedSamples == clips.count) }
        #expect(report.clippedSamples == 3 * clips.count)
        #expect(report.samplePeakDBFS! == Decibels.fromAmplitude(2))
    }

    @Test func silenceHasNoLevelsAndNoCorrelation() {
        let report = measure(buffer([[Float](repeating: 0, count: 1_000), [Float](repeating: 0, count: 1_000)]))
        #expect(report.channels.allSatisfy { $0.rmsDBFS == nil && $0.samplePeakDBFS == nil })
        #expect(report.correlation == nil)
        #expect(LevelStatistics(channelCount: 1).report().channels[0].rmsDBFS == nil)
    }

    @Test func blockSizesDoNotChangeTheResult() throws {
        let noise = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, levelDBFS: -15)
            .renderBuffer(frameCount: 200_003)
        let whole = measure(noise)
        var stats = LevelStatistics(channelCount: 2)
        feedInRandomBlocks(noise, maxBlock: 3_000, seed: 7) { stats.add($0) }
        let blocks = stats.report()
        for c in 0..<2 {
            #expect(abs(whole.channels[c].rmsDBFS! - blocks.channels[c].rmsDBFS!) < 1e-5)
            #expect(whole.channels[c].samplePeakDBFS == blocks.channels[c].samplePeakDBFS)
            #expect(abs(whole.channels[c].dcOffset - blocks.channels[c].dcOffset) < 1e-8)
        }
        #expect(abs(whole.correlation! - blocks.correlation!) < 1e-6)
        // The planar-array entry point agrees with the block one.
        var planar = LevelStatistics(channelCount: 2)
        noise.withChannel(0) { a in noise.withChannel(1) { b in planar.add([UnsafeBufferPointer(a), UnsafeBufferPointer(b)]) } }
        #expect(planar.report() == whole)
    }
}
