import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport

/// Long renders measured in third-octave bands against the ideal line (offset fitted).
/// Spec: 10-minute stereo render within ±0.12 dB from 40 Hz to 20 kHz and ±0.25 dB from 20 to 40 Hz;
/// loop mode (exact magnitudes) within ±0.1 dB from 20 Hz.
@Suite struct NoiseSpectrumTests {
    static let cases: [(beta: Double, rate: Double)] = [
        (1, 48_000), (2, 48_000), (-1, 48_000), (-2, 48_000), (0.5, 48_000), (0, 48_000),
        (1, 44_100), (2, 44_100), (-2, 44_100),
    ]

    @Test(arguments: 0..<cases.count)
    func tenMinuteStereoRenderMatchesTheIdealInThirdOctaves(index: Int) throws {
        let (beta, rate) = Self.cases[index]
        let frames = Int(rate) * 600
        let source = try NoiseSource(colour: try NoiseColour(beta: beta), sampleRate: rate, layout: .stereo, seed: 2026)
        let buffer = source.renderBuffer(frameCount: frames)
        var density = [Double]()
        var binWidth = 0.0
        for c in 0..<2 {
            let psd = try buffer.withSamples(channel: c) { try PowerSpectrum.welch($0, sampleRate: rate, segmentLength: 65_536) }
            density = density.isEmpty ? psd.density : zip(density, psd.density).map { $0 + $1 }
            binWidth = psd.binWidthHz
        }
        let spectrum = PowerSpectrum(binWidthHz: binWidth, density: density)
        let top = NoiseShapingDesign.accurateBandTopHz(sampleRate: rate)
        let bands = ThirdOctaveBand.bands(centredIn: 20...top).filter { $0.upperEdgeHz <= rate / 2 * 0.93 }
        let deviations = SpectralSlopeCheck.deviations(of: spectrum, beta: beta, bands: bands)
        for (band, deviation) in zip(bands, deviations) {
            let limit = band.centreHz < 40 ? 0.25 : 0.12
            #expect(abs(deviation) <= limit, "β \(beta) at \(rate) Hz: band \(Int(band.centreHz)) Hz off by \(deviation) dB")
        }
    }

    @Test(arguments: [1.0, 2.0, -1.0, -2.0, 0.7])
    func loopHasExactBandLevelsFrom20Hz(beta: Double) throws {
        let rate = 48_000.0
        let frames = Int(rate) * 60
        let loop = AudioBuffer(channelCount: 1, frameCapacity: frames)
        loop.withChannel(0) { LoopNoise.render(colour: try! NoiseColour(beta: beta), sampleRate: rate, key: 77, into: $0) }
        let spectrum = loop.withSamples(channel: 0) { PowerSpectrum.periodogram($0, sampleRate: rate) }
        let bands = ThirdOctaveBand.bands(centredIn: 20...20_000)
        let deviations = SpectralSlopeCheck.deviations(of: spectrum, beta: beta, bands: bands)
        for (band, deviation) in zip(bands, deviations) {
            #expect(abs(deviation) <= 0.1, "β \(beta): band \(Int(band.centreHz)) Hz off by \(deviation) dB")
        }
        // Unit RMS by construction.
        #expect(abs(loop.withSamples(channel: 0) { SignalLevel.rms($0) } - 1) < 1e-4)
    }

    @Test(arguments: [1.0, 2.0, -2.0])
    func loopSeamIsLikeAnyOtherStep(beta: Double) throws {
        let frames = 48_000 * 10
        let loop = AudioBuffer(channelCount: 1, frameCapacity: frames)
        loop.withChannel(0) { LoopNoise.render(colour: try! NoiseColour(beta: beta), sampleRate: 48_000, key: 5, into: $0) }
        // First and second differences across the seam against the file's own, with the analysis API.
        var seam = SeamAccumulator()
        loop.withChannel(0) { seam.add(UnsafeBufferPointer($0)) }
        let report = try seam.result()
        let (firstPercentile, secondPercentile) = (report.firstDifferencePercentile, report.secondDifferencePercentile)
        #expect(report.isSeamless,
                "seam at percentiles \(firstPercentile), \(secondPercentile)")
    }

    /// Periodic noise (long loops, streamed): its white noise repeats exactly, from any start, in any
    /// blocks.
    @Test func periodicWhiteNoiseRepeatsExactlyFromAnyStart() {
        let period = 10_007   // not a multiple of a tile or of 16
        let whole = PeriodicWhiteNoise(key: 3, distribution: .gaussian, periodFrames: period)
        var x = [Float](repeating: 0, count: 3 * period)
        x.withUnsafeMutableBufferPointer { whole.fill($0) }
        #expect((0..<2 * period).allSatisfy { x[$0] == x[$0 + period] })
        for start in [1, 4_096, 9_999] {
            let shifted = PeriodicWhiteNoise(key: 3, distribution: .gaussian, periodFrames: period, startFrame: start)
            var y = [Float](repeating: 0, count: period + 17)
            var done = 0
            for size in [5, 4_100, 17, period] where done < y.count {
                let n = min(size, y.count - done)
                y.withUnsafeMutableBufferPointer { shifted.fill(UnsafeMutableBufferPointer(rebasing: $0[done..<done + n])) }
                done += n
            }
            #expect((0..<y.count).allSatisfy { y[$0] == x[start + $0] }, "start \(start)")
        }
        #expect(abs(x.withUnsafeBufferPointer { SignalLevel.rms(UnsafeBufferPointer(rebasing: $0[0..<period])) } - 1) < 0.03)
    }

    /// A long loop of coloured (or notched) noise streams as periodic noise: frame t + P equals frame t
    /// (to Float rounding: the filters start in their periodic state), the seam is like any other step,
    /// the spectrum is the colour's, and the samples do not depend on the blocks.
    @Test(arguments: [1.0, 2.0, -2.0])
    func periodicNoiseRepeatsWithItsColourAndASeamlessSeam(beta: Double) throws {
        let rate = 48_000.0
        let period = 480_011   // 10 s and a bit
        let source = try NoiseSource(colour: try NoiseColour(beta: beta), sampleRate: rate, layout: .mono, levelDBFS: 0,
                                     seed: 9, periodFrames: period)
        let buffer = renderInRandomBlocks(source, frames: 2 * period + 1_000, maxBlock: 20_000, seed: 4)
        let again = try NoiseSource(colour: try NoiseColour(beta: beta), sampleRate: rate, layout: .mono, levelDBFS: 0,
                                    seed: 9, periodFrames: period).renderBuffer(frameCount: 2 * period + 1_000)
        #expect(buffer.samples(channel: 0) == again.samples(channel: 0))
        let y = buffer.samples(channel: 0)
        let rms = y.withUnsafeBufferPointer { SignalLevel.rms(UnsafeBufferPointer(rebasing: $0[0..<period])) }
        var worst: Float = 0
        for t in 0..<(period + 1_000) { worst = max(worst, abs(y[t + period] - y[t])) }
        #expect(Double(worst) <= 1e-5 * rms, "β \(beta): period differs by \(worst) (RMS \(rms))")
        var seam = SeamAccumulator()
        y.withUnsafeBufferPointer { seam.add(UnsafeBufferPointer(rebasing: $0[0..<period])) }
        #expect(try seam.result().isSeamless)
        let spectrum = y.withUnsafeBufferPointer { PowerSpectrum.periodogram(UnsafeBufferPointer(rebasing: $0[0..<period]), sampleRate: rate) }
        let bands = ThirdOctaveBand.bands(centredIn: 40...20_000)
        for (band, deviation) in zip(bands, SpectralSlopeCheck.deviations(of: spectrum, beta: beta, bands: bands)) {
            // One 10-s period: a third-octave band at 40 Hz holds about 90 bins (±0.5 dB at 3σ).
            #expect(abs(deviation) <= 0.6, "β \(beta): band \(Int(band.centreHz)) Hz off by \(deviation) dB")
        }
    }

    @Test func brownNoiseNeitherDriftsNorWandersNorStopsOverTwoHours() throws {
        let rate = 48_000.0
        let source = try NoiseSource(colour: .brown, sampleRate: rate, layout: .mono, levelDBFS: -20, seed: 8)
        let window = Int(rate) * 600
        let buffer = AudioBuffer(channelCount: 1, frameCapacity: window)
        for w in 0..<12 {
            buffer.withBlock { source.render(into: $0) }
            let x = buffer.samples(channel: 0)
            let mean = x.reduce(0.0) { $0 + Double($1) } / Double(window)
            let rmsDB = buffer.withSamples(channel: 0) { SignalLevel.rmsDBFS($0) }
            // DC below 1 % of the RMS, level within ±0.5 dB of −20 dBFS in every 10-minute window.
            #expect(abs(mean) < 0.001, "window \(w): mean \(mean)")
            #expect(abs(rmsDB + 20) < 0.5, "window \(w): RMS \(rmsDB) dBFS")
        }
    }

    @Test func streamHasTheAskedLevelInExpectation() throws {
        for colour in [NoiseColour.white, .pink, .brown, .blue, .violet] {
            let buffer = try NoiseSource(colour: colour, sampleRate: 48_000, layout: .stereo, levelDBFS: -26, seed: 4)
                .renderBuffer(frameCount: 48_000 * 120)
            for c in 0..<2 {
                let level = buffer.withSamples(channel: c) { SignalLevel.rmsDBFS($0) }
                #expect(abs(level + 26) < 0.15, "\(colour) channel \(c): \(level) dBFS")
            }
        }
    }
}
