import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streaming analysers: Welch spectrum and its report, tone fit, seam check, notch check.
/// Spec: pink/brown streams read −3.01/−6.02 dB/octave within ±0.05; results identical whatever the
/// block sizes; a 1 s tone's frequency within 0.001 Hz, a Float32 tone's THD+N ≤ −130 dB; loops made by
/// Shades are seamless and cut streams with a jump are not; a brick-wall notch reads deeper than −100 dB
/// with no ripple and the right lag.
@Suite struct AnalysisAccumulatorTests {
    // MARK: Helpers

    /// Calls `body` on consecutive slices of `samples` of pseudo-random sizes 0 … maxBlock.
    static func forEachRandomBlock(_ samples: UnsafeBufferPointer<Float>, maxBlock: Int, seed: UInt64,
                                   _ body: (UnsafeBufferPointer<Float>, Range<Int>) -> Void) {
        var state = seed
        var done = 0
        while done < samples.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let size = min(samples.count - done, Int(state >> 33) % (maxBlock + 1))
            body(UnsafeBufferPointer(rebasing: samples[done..<done + size]), done..<done + size)
            done += size
        }
    }

    static func renderChannel(_ source: some AudioSource, frames: Int, channel: Int = 0) -> [Float] {
        source.renderBuffer(frameCount: frames).samples(channel: channel)
    }

    static func whiteNoise(frames: Int, seed: UInt64) throws -> [Float] {
        Self.renderChannel(try NoiseSource(colour: .white, sampleRate: 48_000, layout: .mono, levelDBFS: -20, seed: seed), frames: frames)
    }

    static func spectrum(of x: [Float], rate: Double = 48_000) throws -> PowerSpectrum {
        var accumulator = try SpectrumAccumulator(sampleRate: rate)
        x.withUnsafeBufferPointer { accumulator.add($0) }
        return try accumulator.result()
    }

    static func seam(of x: [Float]) throws -> SeamReport {
        var accumulator = SeamAccumulator()
        x.withUnsafeBufferPointer { accumulator.add($0) }
        return try accumulator.result()
    }

    /// Parameter named by the error `body` throws, or nil.
    static func rejectedParameter(_ body: () throws -> Void) -> ParameterID? {
        do { try body() } catch { return (error as? ShadesError)?.parameter ?? ParameterID(rawValue: "\(error)") }
        return nil
    }

    // MARK: Spectrum

    @Test(arguments: [1.0, 2.0])
    func colouredStreamReadsItsSlope(beta: Double) throws {
        let rate = 48_000.0
        let source = try NoiseSource(colour: try NoiseColour(beta: beta), sampleRate: rate, layout: .stereo, seed: 11)
        let buffer = source.renderBuffer(frameCount: Int(rate) * 30)
        var spectra: [PowerSpectrum] = []
        for c in 0..<2 {
            var accumulator = try SpectrumAccumulator(sampleRate: rate)
            buffer.withSamples(channel: c) { x in Self.forEachRandomBlock(x, maxBlock: 9_000, seed: 3) { block, _ in accumulator.add(block) } }
            spectra.append(try accumulator.result())
        }
        let report = try SpectrumReport(spectrum: PowerSpectrum.average(spectra)!, sampleRate: rate, expected: try NoiseColour(beta: beta))
        #expect(abs(report.slopeDecibelsPerOctave + 3.0103 * beta) <= 0.05, "slope \(report.slopeDecibelsPerOctave)")
        #expect(abs(report.largestFitDeviationDB) <= 0.5, "fit deviation \(report.largestFitDeviationDB)")
        #expect(abs(report.largestIdealDeviationDB!) <= 0.5, "ideal deviation \(report.largestIdealDeviationDB!)")
        #expect(report.nearestColourName == (beta == 1 ? "pink" : "brown"))
        #expect(abs(report.estimatedBeta - beta) <= 0.02)
        #expect(report.bands.count == 31 && report.fitLowerHz < 20 && report.fitUpperHz > 19_900)
        // Bands above 1 kHz (over 230 Hz wide: scatter about ±0.03 dB in 60 s of noise) are on the line.
        let upper = report.bands.filter { $0.centreHz > 1_000 }.compactMap(\.idealDeviationDB).map(abs).max()!
        #expect(upper <= 0.1, "ideal deviation above 1 kHz \(upper)")
    }

    @Test func reportKeepsBandsBelowNyquistAndFitsTo045TimesRate() throws {
        // White noise at 44.1 kHz: the 20 kHz band (upper edge 22.4 kHz) is above Nyquist; the fit stops at 16 kHz.
        let x = Self.renderChannel(try NoiseSource(colour: .white, sampleRate: 44_100, layout: .mono, seed: 2), frames: 44_100 * 5)
        let report = try SpectrumReport(spectrum: try Self.spectrum(of: x, rate: 44_100), sampleRate: 44_100)
        #expect(report.bands.count == 30)
        #expect(abs(report.fitUpperHz - 15_849) < 1)
        #expect(report.nearestColourName == "white")
        #expect(report.expectedBeta == nil && report.largestIdealDeviationDB == nil)
        // Band level of full-band white noise at −20 dBFS: −20 dB + 10·log10(bandwidth / Nyquist).
        let band = report.bands.first { abs($0.centreHz - 1000) < 1 }!
        let expected = -20 + 10 * log10(1000 * (pow(10, 0.05) - pow(10, -0.05)) / 22_050)
        #expect(abs(band.levelDB - expected) < 0.3, "1 kHz band \(band.levelDB) dB, expected \(expected)")
    }

    @Test func accumulatorEqualsWelchOverAWholeBuffer() throws {
        let x = try Self.whiteNoise(frames: 300_000, seed: 5)
        let streamed = try Self.spectrum(of: x)
        let whole = try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000, segmentLength: 65_536) }
        #expect(streamed.binWidthHz == whole.binWidthHz && streamed.density.count == whole.density.count)
        let worst = zip(streamed.density, whole.density).map { abs($0 - $1) / $1 }.max()!
        #expect(worst < 1e-12)
    }

    @Test func segmentLengthKeepsTheResolutionNear073Hz() {
        #expect(SpectrumAccumulator.segmentLength(sampleRate: 48_000) == 65_536)
        #expect(SpectrumAccumulator.segmentLength(sampleRate: 44_100) == 65_536)
        #expect(SpectrumAccumulator.segmentLength(sampleRate: 96_000) == 131_072)
        #expect(SpectrumAccumulator.segmentLength(sampleRate: 192_000) == 262_144)
        #expect(SpectrumAccumulator.segmentLength(sampleRate: 8_000) == 8_192)
    }

    @Test func shortInputIsOneZeroPaddedSegment() throws {
        // 0.1 s of a 1 kHz tone at −20 dBFS: one Hann segment padded to 8,192 points.
        let x = Self.renderChannel(try ToneSource(frequencyHz: 1_000, sampleRate: 48_000, layout: .mono), frames: 4_800)
        let spectrum = try Self.spectrum(of: x)
        #expect(spectrum.density.count == 4_097)
        let power = spectrum.bandPower(from: 900, to: 1_100)
        #expect(abs(Decibels.fromPower(power) + 20) < 0.05, "tone power \(Decibels.fromPower(power)) dB")
    }

    @Test func emptyTinyAndSilentInputsAreRejected() throws {
        #expect(Self.rejectedParameter { _ = try SpectrumAccumulator(sampleRate: 48_000).result() } == .signal)
        #expect(Self.rejectedParameter { _ = try Self.spectrum(of: [1, 2, 3]) } == .signal)
        #expect(Self.rejectedParameter { _ = try SpectrumAccumulator(sampleRate: 1_000) } == .rate)
        #expect(Self.rejectedParameter { _ = try SpectrumAccumulator(sampleRate: 48_000, segmentLength: 1000) } == .segmentLength)
        let silent = try Self.spectrum(of: [Float](repeating: 0, count: 100_000))
        #expect(Self.rejectedParameter { _ = try SpectrumReport(spectrum: silent, sampleRate: 48_000) } == .signal)
    }

    // MARK: Block-size invariance

    @Test func accumulatorsGiveTheSameResultsWhateverTheBlocks() throws {
        let x = try Self.whiteNoise(frames: 250_000, seed: 9)
        let y = x.indices.map { $0 >= 37 ? 0.5 * x[$0 - 37] : 0 }
        // The notch check runs at 8 kHz so the lag is found (after 10 s) in the middle of a block.
        let band = try OctaveBand(centreHz: 1_000, widthOctaves: 1)
        var spectrum = try SpectrumAccumulator(sampleRate: 48_000)
        var seam = SeamAccumulator()
        var notch = try NotchCheckAccumulator(sampleRate: 8_000, band: band)
        for seed: UInt64 in [1, 2] {
            var spectrumBlocks = try SpectrumAccumulator(sampleRate: 48_000)
            var seamBlocks = SeamAccumulator()
            var notchBlocks = try NotchCheckAccumulator(sampleRate: 8_000, band: band)
            x.withUnsafeBufferPointer { xs in
                y.withUnsafeBufferPointer { ys in
                    Self.forEachRandomBlock(xs, maxBlock: seed == 1 ? 7 : 50_000, seed: seed) { block, range in
                        spectrumBlocks.add(block)
                        seamBlocks.add(block)
                        notchBlocks.add(reference: block, output: UnsafeBufferPointer(rebasing: ys[range]))
                    }
                    if seed == 1 {
                        spectrum.add(xs)
                        seam.add(xs)
                        notch.add(reference: xs, output: ys)
                    }
                }
            }
            #expect(try spectrumBlocks.result().density == spectrum.result().density)
            #expect(try seamBlocks.result() == seam.result())
            #expect(try notchBlocks.result() == notch.result())
            #expect(try notchBlocks.result().lagSamples == 37)
        }
        // Copies are independent values (each owns its FFT scratch).
        var copy = spectrum
        x.withUnsafeBufferPointer { copy.add($0) }
        #expect(copy.segmentCount == (2 * x.count - 65_536) / 32_768 + 1)
        #expect(try spectrum.result().density == Self.spectrum(of: x).density)
    }

    // MARK: Tone

    @Test func toneFrequencyAmplitudeAndTHDN() throws {
        for (seconds, limit) in [(1.0, 1e-4), (10.0, 1e-5)] {
            let frequency = 997.3, rate = 48_000.0
            let x = Self.renderChannel(try ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono, levelDBFS: -20, startPhase: 0.3),
                           frames: Int(seconds * rate))
            let tone = try x.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
            #expect(abs(tone.frequencyHz - frequency) <= limit, "\(seconds) s: \(tone.frequencyHz - frequency) Hz off")
            #expect(abs(tone.levelDBFS + 20) <= 1e-4, "level \(tone.levelDBFS)")
            #expect(abs(tone.phaseRadians - 0.3) <= 1e-5, "phase \(tone.phaseRadians)")
            #expect(tone.thdPlusNoiseDB <= -130, "THD+N \(tone.thdPlusNoiseDB) dB")
            #expect(abs(tone.dcOffset) < 1e-7)
            #expect(tone.analysedFrames == Int(seconds * rate))
        }
    }

    @Test func toneAcrossTheRange() throws {
        for (frequency, rate) in [(31.7, 44_100.0), (6_000.123, 48_000), (19_876.5, 48_000), (15_123.4, 96_000)] {
            let x = Self.renderChannel(try ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono, levelDBFS: -6), frames: Int(rate))
            let tone = try x.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
            #expect(abs(tone.frequencyHz - frequency) <= 1e-4, "\(frequency) Hz: \(tone.frequencyHz - frequency) off")
            #expect(tone.thdPlusNoiseDB <= -130, "\(frequency) Hz: THD+N \(tone.thdPlusNoiseDB)")
        }
    }

    @Test func ditheredSixteenBitToneShowsTheDitherFloor() throws {
        // TPDF dither of ±1 LSB: error power Δ²/4 with Δ = 2⁻¹⁵, so THD+N = −96.3 dBFS − (−20 dBFS).
        let rate = 48_000.0
        let x = Self.renderChannel(try ToneSource(frequencyHz: 997.3, sampleRate: rate, layout: .mono, levelDBFS: -20), frames: Int(rate) * 2)
        var state: UInt64 = 12345
        func uniform() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) - 0.5
        }
        let quantised = x.map { (($0 * 32_768 + uniform() + uniform()).rounded()) / 32_768 }
        let tone = try quantised.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
        let expected = Decibels.fromPower(pow(2, -30) / 4) + 20
        #expect(abs(tone.thdPlusNoiseDB - expected) < 0.2, "THD+N \(tone.thdPlusNoiseDB) dB, expected \(expected)")
        #expect(abs(tone.frequencyHz - 997.3) < 1e-4)
    }

    @Test func toneUsesTheFirstTenSecondsAndRejectsBadInput() throws {
        let rate = 8_000.0
        var x = Self.renderChannel(try ToneSource(frequencyHz: 440, sampleRate: rate, layout: .mono), frames: Int(rate) * 10)
        x += [Float](repeating: 0.5, count: Int(rate))   // after 10 s: ignored
        let tone = try x.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
        #expect(tone.analysedFrames == 80_000 && tone.thdPlusNoiseDB < -130)
        // A DC offset is fitted, not counted as distortion.
        let shifted = x.prefix(8_000).map { $0 + 0.25 }
        let withDC = try shifted.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
        #expect(abs(withDC.dcOffset - 0.25) < 1e-6 && withDC.thdPlusNoiseDB < -120)

        func estimate(_ samples: [Float]) throws { _ = try samples.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) } }
        #expect(Self.rejectedParameter { try estimate([]) } == .signal)
        #expect(Self.rejectedParameter { try estimate([Float](repeating: 0.1, count: 100)) } == .signal)
        #expect(Self.rejectedParameter { try estimate([Float](repeating: 0, count: 10_000)) } == .signal)
        #expect(Self.rejectedParameter { try estimate([Float](repeating: 0.3, count: 10_000)) } == .signal)
        #expect(Self.rejectedParameter { _ = try x.withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: 5) } } == .rate)
    }

    // MARK: Seam

    @Test(arguments: [1.0, 2.0])
    func loopNoiseIsSeamless(beta: Double) throws {
        var x = [Float](repeating: 0, count: 48_000 * 5)
        x.withUnsafeMutableBufferPointer {
            LoopNoise.render(colour: try! NoiseColour(beta: beta), sampleRate: 48_000, key: 21, into: $0)
        }
        let report = try Self.seam(of: x)
        #expect(report.isSeamless, "β \(beta): \(report)")
    }

    @Test func wholeCycleTonesAreSeamlessAndCutOnesAreNot() throws {
        let rate = 48_000.0
        // 1 kHz over 1 s, and 997.3 Hz moved to whole cycles over 1.5 s.
        let loopFrames = Int(rate * 1.5)
        let loopFrequency = ToneSource.loopFrequency(near: 997.3, frameCount: loopFrames, sampleRate: rate)
        for (frequency, frames) in [(1_000.0, Int(rate)), (loopFrequency, loopFrames)] {
            let x = Self.renderChannel(try ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono), frames: frames)
            let report = try Self.seam(of: x)
            #expect(report.isSeamless, "\(frequency) Hz: \(report)")
        }
        // 1 kHz cut 11/48 of a cycle in: from sin(2π·11/48) ≈ 0.99 of the peak straight back to 0.
        let cut = Self.renderChannel(try ToneSource(frequencyHz: 1_000, sampleRate: rate, layout: .mono), frames: Int(rate) + 12)
        let report = try Self.seam(of: cut)
        #expect(!report.isSeamless)
        #expect(report.firstDifferencePercentile == 100 && report.secondDifferencePercentile == 100)
        #expect(abs(report.firstDifference - 0.1414 * sin(2 * Double.pi * 11 / 48)) < 1e-3)
    }

    @Test func brownStreamCutAtRandomIsNotSeamless() throws {
        let x = Self.renderChannel(try NoiseSource(colour: .brown, sampleRate: 48_000, layout: .mono, seed: 3), frames: 48_000 * 10)
        let report = try Self.seam(of: x)
        // The chosen stretch ends far from where it starts (a seam of about the signal's RMS, 0.1).
        #expect(report.firstDifference > 0.03)
        #expect(!report.isSeamless && report.firstDifferencePercentile == 100, "\(report)")
    }

    @Test func seamEdgeCases() throws {
        #expect(Self.rejectedParameter { _ = try SeamAccumulator().result() } == .signal)
        #expect(Self.rejectedParameter { _ = try Self.seam(of: [0, 1, 0]) } == .signal)
        // Silence loops seamlessly: every step, the seam's included, is zero.
        let silent = try Self.seam(of: [Float](repeating: 0, count: 1_000))
        #expect(silent.isSeamless && silent.firstDifference == 0 && silent.firstDifferencePercentile == 50)
        // A ramp 0, 1, 2, 3: steps of 1, second differences 0; the seam jumps by 3.
        let ramp = try Self.seam(of: [0, 1, 2, 3])
        #expect(ramp.firstDifference == 3 && ramp.secondDifference == 4 && !ramp.isSeamless)
    }

    // MARK: Notch check

    /// White noise and the same with a brick-wall notch: the bins of [lower, upper] zeroed in one FFT of
    /// the whole buffer.
    static func brickWallPair(frames: Int, band: OctaveBand, rate: Double) throws -> (x: [Float], y: [Float]) {
        let x = try whiteNoise(frames: frames, seed: 17)
        let fft = RealFFT(size: frames)
        fft.withSignal { s in for i in 0..<frames { s[i] = x[i] } }
        fft.forward()
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = Double(k) * rate / Double(frames)
                if f >= band.lowerEdgeHz && f <= band.upperEdgeHz { bins[2 * k] = 0; bins[2 * k + 1] = 0 }
            }
        }
        fft.inverse()
        let y = fft.withSignal { s in (0..<frames).map { s[$0] / Float(frames) } }
        return (x, y)
    }

    static func notchReport(x: [Float], y: [Float], band: OctaveBand?, rate: Double = 48_000) throws -> NotchCheckReport {
        var accumulator = try NotchCheckAccumulator(sampleRate: rate, band: band)
        x.withUnsafeBufferPointer { xs in y.withUnsafeBufferPointer { ys in accumulator.add(reference: xs, output: ys) } }
        return try accumulator.result()
    }

    @Test func brickWallNotchIsDeepFlatAndAligned() throws {
        let rate = 48_000.0
        let band = try OctaveBand(centreHz: 4_000, widthOctaves: 1)
        let (x, y) = try Self.brickWallPair(frames: 1 << 20, band: band, rate: rate)
        let report = try Self.notchReport(x: x, y: y, band: band)
        #expect((report.depthDB ?? .nan) < -100, "depth \((report.depthDB ?? .nan))")
        #expect((report.worstInBandDB ?? .nan) < -100, "worst \((report.worstInBandDB ?? .nan))")
        #expect((report.passbandRippleDB ?? .nan) < 0.01, "ripple \((report.passbandRippleDB ?? .nan))")
        #expect(abs(report.passbandGainDB) < 0.01)
        #expect(report.lagSamples == 0 && abs(report.fineLagSamples) < 0.01)
        #expect(!report.bandWasDetected && report.band == band)
        #expect(report.curve.count > 200 && report.curve.first!.frequencyHz == 20)

        // The output 37 samples late (and 6 dB quieter): same depth and flatness, lag 37.
        let late = [Float](repeating: 0, count: 37) + y.dropLast(37).map { $0 * 0.5 }
        let delayed = try Self.notchReport(x: x, y: late, band: band)
        #expect(delayed.lagSamples == 37 && abs(delayed.fineLagSamples - 37) < 0.05, "lag \(delayed.fineLagSamples)")
        #expect((delayed.depthDB ?? .nan) < -100 && (delayed.worstInBandDB ?? .nan) < -100, "\((delayed.depthDB ?? .nan)), \((delayed.worstInBandDB ?? .nan))")
        #expect((delayed.passbandRippleDB ?? .nan) < 0.01, "ripple \((delayed.passbandRippleDB ?? .nan))")
        #expect(abs(delayed.passbandGainDB + 6.0206) < 0.01, "gain \(delayed.passbandGainDB)")
        // 6,000 samples late (1/8 s), or 500 early: the segments are aligned by the lag, so nothing changes.
        for shift in [6_000, -500] {
            let moved = shift > 0 ? [Float](repeating: 0, count: shift) + y.dropLast(shift)
                                  : Array(y.dropFirst(-shift)) + [Float](repeating: 0, count: -shift)
            let report = try Self.notchReport(x: x, y: moved, band: band)
            #expect(report.lagSamples == shift, "lag \(report.lagSamples)")
            #expect((report.depthDB ?? .nan) < -100 && (report.worstInBandDB ?? .nan) < -100 && (report.passbandRippleDB ?? .nan) < 0.01,
                    "shift \(shift): \((report.depthDB ?? .nan)), \((report.worstInBandDB ?? .nan)), \((report.passbandRippleDB ?? .nan))")
        }
        // Found without being told: edges at the −3 dB crossings (grid 1/48 octave).
        let found = try Self.notchReport(x: x, y: y, band: nil)
        #expect(found.bandWasDetected)
        #expect(abs(log2((found.band?.centreHz ?? .nan) / 4_000)) < 1.0 / 48 && abs((found.band?.widthOctaves ?? .nan) - 1) < 1.0 / 24, "\(String(describing: found.band))")
    }

    @Test func powerRatioReadsOutputNoiseThatTheCrossSpectrumAveragesAway() throws {
        // Independent noise 80 dB below the signal added to the output: the power ratio reads it in the
        // notch (about −80 dB), the cross-spectral estimate sits lower, at its averaging floor.
        let rate = 48_000.0
        let band = try OctaveBand(centreHz: 2_000, widthOctaves: 0.5)
        let (x, y) = try Self.brickWallPair(frames: 1 << 20, band: band, rate: rate)
        let noise = try Self.whiteNoise(frames: 1 << 20, seed: 99)
        let noisy = zip(y, noise).map { $0 + 1e-4 * $1 }
        let report = try Self.notchReport(x: x, y: noisy, band: band)
        #expect(abs((report.depthDB ?? .nan) + 80) < 1, "depth \((report.depthDB ?? .nan))")
        #expect((report.crossSpectralDepthDB ?? .nan) < (report.depthDB ?? .nan) - 5, "cross-spectral \((report.crossSpectralDepthDB ?? .nan))")
    }

    @Test func notchEdgeCases() throws {
        let band = try OctaveBand(centreHz: 1_000, widthOctaves: 1)
        #expect(Self.rejectedParameter { _ = try NotchCheckAccumulator(sampleRate: 48_000, band: band).result() } == .signal)
        #expect(Self.rejectedParameter { _ = try OctaveBand(centreHz: 0, widthOctaves: 1) } == .bandCentre)
        #expect(Self.rejectedParameter { _ = try OctaveBand(centreHz: 1_000, widthOctaves: -1) } == .bandWidth)
        #expect(Self.rejectedParameter { _ = try NotchCheckAccumulator(sampleRate: 8_000, band: try OctaveBand(centreHz: 6_000, widthOctaves: 1)) } == .bandCentre)
        let x = try Self.whiteNoise(frames: 20_000, seed: 1)
        let zeros = [Float](repeating: 0, count: 20_000)
        #expect(Self.rejectedParameter { _ = try Self.notchReport(x: zeros, y: x, band: band) } == .reference)
        #expect(Self.rejectedParameter { _ = try Self.notchReport(x: x, y: zeros, band: band) } == .signal)
        // No notch to find in an unprocessed copy.
        #expect(try Self.notchReport(x: x, y: x, band: nil).band == nil)
        // Short input (0.4 s): one segment; an identical copy has 0 dB everywhere.
        let same = try Self.notchReport(x: x, y: x, band: band)
        #expect((same.depthDB ?? .nan) == 0 && (same.passbandRippleDB ?? .nan) == 0 && same.lagSamples == 0)
    }

    /// Music-like: white noise shaped in one FFT of the whole buffer to a pink slope (−3 dB/octave) and cut
    /// off above 16 kHz, as a Vorbis encoder's low-pass leaves it (the empty bins keep 10⁻⁷ of their
    /// amplitude: a decoder's residue); the output is the same times `outputGain`, with the bins of `notch`
    /// zeroed, plus white noise at the 24-bit TPDF dither's power (LSB²/4, LSB 2⁻²³) that a file adds.
    static func musicLikePair(frames: Int, rate: Double, notch: OctaveBand?, outputGain: Float = 0.7) throws -> (x: [Float], y: [Float]) {
        let white = try whiteNoise(frames: frames, seed: 23)
        let fft = RealFFT(size: frames)
        fft.withSignal { s in for i in 0..<frames { s[i] = white[i] } }
        fft.forward()
        var shaped = [Float](repeating: 0, count: 2 * fft.binCount)
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = max(Double(k) * rate / Double(frames), 20)
                let gain = Float((1_000 / f).squareRoot() * (f > 16_000 ? 1e-7 : 1))
                (bins[2 * k], bins[2 * k + 1]) = (bins[2 * k] * gain, bins[2 * k + 1] * gain)
                (shaped[2 * k], shaped[2 * k + 1]) = (bins[2 * k], bins[2 * k + 1])
            }
        }
        fft.inverse()
        let x = fft.withSignal { s in (0..<frames).map { s[$0] / Float(frames) } }
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = Double(k) * rate / Double(frames)
                let cut = notch.map { f >= $0.lowerEdgeHz && f <= $0.upperEdgeHz } ?? false
                (bins[2 * k], bins[2 * k + 1]) = cut ? (0, 0) : (shaped[2 * k], shaped[2 * k + 1])
            }
        }
        fft.inverse()
        // White noise of RMS 0.1 (−20 dBFS) scaled to LSB/2 of 24 bits: power LSB²/4.
        let dither = try whiteNoise(frames: frames, seed: 29).map { $0 * 10 * 0.5 / 8_388_608 }
        let y = fft.withSignal { s in (0..<frames).map { s[$0] / Float(frames) * outputGain + dither[$0] } }
        return (x, y)
    }

    /// A 12 kHz notch in music low-passed at 16 kHz: where the reference is empty (16 kHz and up) the
    /// output holds only its own noise, and the check leaves those bands out instead of reading a notch
    /// "closing" there and a passband ripple of decibels.
    @Test func notchCheckComparesOnlyWhereTheReferenceHasContent() throws {
        let rate = 44_100.0
        let band = try OctaveBand(centreHz: 12_000, widthOctaves: 1)
        let (x, y) = try Self.musicLikePair(frames: 1 << 20, rate: rate, notch: band)
        let report = try Self.notchReport(x: x, y: y, band: band, rate: rate)
        #expect((report.worstInBandDB ?? .nan) <= -85, "worst \(String(describing: report.worstInBandDB))")
        #expect((report.passbandRippleDB ?? .nan) <= 0.01, "ripple \(String(describing: report.passbandRippleDB))")
        #expect(abs(report.passbandGainDB - Decibels.fromAmplitude(0.7)) < 0.01, "gain \(report.passbandGainDB)")
        // Judged from the inner lower edge up to the low-pass, not beyond it.
        let judged = try #require(report.judgedInBandHz.first)
        #expect(report.judgedInBandHz.count == 1 && abs(log2(judged.lowerBound / (band.lowerEdgeHz * pow(2, 1.0 / 24)))) < 1.0 / 48)
        #expect(judged.upperBound <= 16_000 * pow(2, 1.0 / 48) && judged.upperBound > 15_000, "judged \(judged)")
        let high = report.curve.filter { $0.frequencyHz > 16_200 }, low = report.curve.filter { $0.frequencyHz < 8_000 }
        #expect(high.allSatisfy { !$0.compared })
        #expect(low.allSatisfy { $0.compared })
        // The output's own noise is told apart: the power ratio there reads far above the filter's depth.
        #expect((report.inBandNoiseDB ?? .nan) > (report.worstInBandDB ?? .nan))

        // Found without being told; the same music without a notch has none, whether found or given.
        let found = try Self.notchReport(x: x, y: y, band: nil, rate: rate)
        #expect(found.band == nil, "a 12 kHz notch running into the low-pass has no upper edge to see: \(String(describing: found.band))")
        let (x3, y3) = try Self.musicLikePair(frames: 1 << 20, rate: rate, notch: try OctaveBand(centreHz: 3_000, widthOctaves: 1))
        let found3 = try #require(try Self.notchReport(x: x3, y: y3, band: nil, rate: rate).band)
        #expect(abs(log2(found3.centreHz / 3_000)) < 1.0 / 48 && abs(found3.widthOctaves - 1) < 1.0 / 24, "\(found3)")
        let (plainX, plain) = try Self.musicLikePair(frames: 1 << 20, rate: rate, notch: nil)
        let none = try Self.notchReport(x: plainX, y: plain, band: nil, rate: rate)
        #expect(none.band == nil && none.depthDB == nil && none.worstInBandDB == nil)
        #expect((none.passbandRippleDB ?? .nan) <= 0.01)
        let given = try Self.notchReport(x: plainX, y: plain, band: band, rate: rate)
        #expect(abs(given.worstInBandDB ?? .nan) < 0.01 && abs(given.depthDB ?? .nan) < 0.01)
    }
}
