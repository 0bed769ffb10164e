import Testing
import ShadesDSP
#if canImport(Glibc)
import Glibc
#endif

/// Frequency modulation (FrequencyModulation.swift): the tone's instantaneous frequency and the band's
/// centre measured against the asked curve; level, block size, seed.
@Suite struct FrequencyModulationTests {
    static let rate = 48_000.0

    static func curve(_ shape: FrequencyModulationShape, rateHz: Double = 10, depthCents: Double = 100, key: UInt64 = 5,
                      loopFrames: Int? = nil) throws -> FrequencyModulationCurve {
        try FrequencyModulationCurve(shape: shape, rateHz: rateHz, depthCents: depthCents, sampleRate: rate, key: key, loopFrames: loopFrames)
    }

    /// Prints a measured figure when SHADES_PRINT_FIGURES is set (for the README and reports).
    static func figure(_ text: @autoclosure () -> String) {
        if getenv("SHADES_PRINT_FIGURES") != nil { print("figure: " + text()) }
    }

    static func render(_ source: some AudioSource, frames: Int) -> [Float] {
        source.renderBuffer(frameCount: frames).samples(channel: 0)
    }

    /// The phase step from frame n to n + 1 of the analytic signal x + j·H{x} (the Hilbert transform by FFT:
    /// −j on every positive-frequency bin), as a frequency in Hz.
    static func instantaneousFrequencies(_ x: [Float]) -> [Double] {
        let n = x.count
        let fft = RealFFT(size: n)
        fft.withSignal { s in for i in 0..<n { s[i] = x[i] } }
        fft.forward()
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount { (bins[2 * k], bins[2 * k + 1]) = (bins[2 * k + 1], -bins[2 * k]) }
            (bins[0], bins[1], bins[2 * (n / 2)], bins[2 * (n / 2) + 1]) = (0, 0, 0, 0)
        }
        fft.inverse()
        let h = fft.withSignal { s in (0..<n).map { Double(s[$0]) / Double(n) } }
        // x = sin φ has H{x} = −cos φ.
        let phase = (0..<n).map { atan2(Double(x[$0]), -h[$0]) }
        return (0..<n - 1).map { i in
            var step = phase[i + 1] - phase[i]
            step -= 2 * Double.pi * (step / (2 * Double.pi)).rounded(.down)
            return step / (2 * Double.pi) * rate
        }
    }

    /// Within 0.1 % of f·2^(depth·m(n)/1200) at every frame. The tone is a loop of the FFT's length (whole
    /// cycles of the curve and of the phase), so the FFT's Hilbert transform sees no wrap.
    @Test(arguments: [FrequencyModulationShape.sine, .random])
    func aToneFollowsItsCurveWithinAThousandth(shape: FrequencyModulationShape) throws {
        let frames = 1 << 16
        let rateHz = (10 * Double(frames) / Self.rate).rounded() * Self.rate / Double(frames)
        let curve = try Self.curve(shape, rateHz: rateHz, depthCents: 200, loopFrames: frames)
        let centre = FrequencyModulatedToneSource.loopFrequency(near: 1_000, curve: curve, frames: frames, sampleRate: Self.rate)
        let tone = try FrequencyModulatedToneSource(frequencyHz: centre, curve: curve, sampleRate: Self.rate)
        let measured = Self.instantaneousFrequencies(Self.render(tone, frames: frames))
        var worst = 0.0
        for n in 0..<(frames - 1) {
            let asked = centre * curve.ratio(atFrame: n)
            worst = max(worst, abs(measured[n] / asked - 1))
        }
        #expect(worst < 1e-3, "worst relative error \(worst)")
        Self.figure("FM tone \(shape): instantaneous frequency within \(worst) of the curve")
        // And the curve is the asked one: within ±200 cents, a sine reaching both.
        let cents = (0..<frames).map { 1200 * log2(curve.ratio(atFrame: $0)) }
        #expect(cents.allSatisfy { abs($0) <= 200 + 1e-9 })
        if shape == .sine { #expect(abs(cents.max()! - 200) < 1e-6 && abs(cents.min()! + 200) < 1e-6) }
    }

    /// A narrow band's short-time spectral centroid follows the moved middle, f_mid + f·(ratio − 1), and its
    /// spread (bandwidth) stays the unmodulated band's.
    @Test func aNarrowBandsCentreFollowsTheCurveAndKeepsItsWidth() throws {
        let curve = try Self.curve(.sine, rateHz: 0.1, depthCents: 300)
        let (centre, width) = (2_000.0, 1.0 / 3)
        let moved = try FrequencyModulatedNarrowBandNoiseSource(centreHz: centre, widthOctaves: width, curve: curve, sampleRate: Self.rate,
                                                                levelDBFS: -20, key: 3)
        let still = try NarrowBandNoiseSource(centreHz: centre, widthOctaves: width, sampleRate: Self.rate, layout: .mono, levelDBFS: -20, seed: 3)
        let window = 1 << 14, frames = 480_000  // one period of 10 s
        let (x, y) = (Self.render(moved, frames: frames), Self.render(still, frames: frames))
        let middle = centre * (pow(2, width / 2) + pow(2, -width / 2)) / 2
        let fft = RealFFT(size: window)
        func moments(_ s: ArraySlice<Float>) -> (centroid: Double, spread: Double) {
            let start = s.startIndex
            fft.withSignal { f in for i in 0..<window { f[i] = s[start + i] * Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(window))) } }
            fft.forward()
            var p = [Double](repeating: 0, count: fft.binCount)
            fft.addBinPowers(to: &p)
            let hz = (0..<p.count).map { Double($0) * Self.rate / Double(window) }
            let total = p.reduce(0, +)
            let mean = zip(hz, p).reduce(0) { $0 + $1.0 * $1.1 } / total
            let variance = zip(hz, p).reduce(0) { $0 + ($1.0 - mean) * ($1.0 - mean) * $1.1 } / total
            return (mean, variance.squareRoot())
        }
        var squaredError = 0.0, stillSquaredError = 0.0, spreads = [Double](), stillSpreads = [Double]()
        var count = 0
        for start in stride(from: 0, through: frames - window, by: window) {
            let got = moments(x[start..<start + window])
            // The asked centre over the window, Hann-weighted like the spectrum.
            var (sum, weights) = (0.0, 0.0)
            for i in stride(from: 0, to: window, by: 16) {
                let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(window))
                sum += w * w * (middle + centre * (curve.ratio(atFrame: start + i) - 1))
                weights += w * w
            }
            let asked = sum / weights
            #expect(abs(got.centroid - asked) < 60, "window at \(start): \(got.centroid) Hz, asked \(asked) Hz")
            squaredError += (got.centroid - asked) * (got.centroid - asked)
            let stillCentroid = moments(y[start..<start + window]).centroid
            stillSquaredError += (stillCentroid - middle) * (stillCentroid - middle)
            spreads.append(got.spread)
            stillSpreads.append(moments(y[start..<start + window]).spread)
            count += 1
        }
        // As close to the moving curve as an unmodulated band's centroid is to its fixed middle (the
        // estimator's own scatter), where the curve swings ±350 Hz.
        let (error, stillError) = ((squaredError / Double(count)).squareRoot(), (stillSquaredError / Double(count)).squareRoot())
        Self.figure("FM band centroid: RMS error \(error) Hz (unmodulated band: \(stillError) Hz); spread \(spreads.reduce(0, +) / Double(count)) Hz vs \(stillSpreads.reduce(0, +) / Double(count)) Hz")
        #expect(error < 1.5 * stillError + 2, "RMS error \(error) Hz, unmodulated \(stillError) Hz")
        let (spread, stillSpread) = (spreads.reduce(0, +) / Double(count), stillSpreads.reduce(0, +) / Double(count))
        #expect(abs(spread / stillSpread - 1) < 0.05, "spread \(spread) Hz, unmodulated \(stillSpread) Hz")
    }

    /// The level is the unmodulated sound's: a tone's RMS is its peak/√2, a band's the asked RMS (within
    /// 0.05 dB of the same band unmodulated over 20 s of a one-octave band).
    @Test func theLevelIsTheUnmodulatedSounds() throws {
        let tone = try FrequencyModulatedToneSource(frequencyHz: 1_000, curve: try Self.curve(.random, depthCents: 600), sampleRate: Self.rate)
        let t = Self.render(tone, frames: 48_000)
        #expect(abs(t.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + 3.0103) < 0.01)
        let curve = try Self.curve(.sine, rateHz: 10, depthCents: 300)
        let moved = try FrequencyModulatedNarrowBandNoiseSource(centreHz: 4_000, widthOctaves: 1, curve: curve, sampleRate: Self.rate,
                                                                levelDBFS: -20, key: 9)
        let still = try NarrowBandNoiseSource(centreHz: 4_000, widthOctaves: 1, sampleRate: Self.rate, layout: .mono, levelDBFS: -20, seed: 9)
        let frames = 20 * 48_000
        let (a, b) = (Self.render(moved, frames: frames), Self.render(still, frames: frames))
        let (la, lb) = (a.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }, b.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) })
        Self.figure("FM levels: tone \(t.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }) dBFS (peak 1); band \(la) dBFS, unmodulated \(lb) dBFS")
        #expect(abs(la - lb) < 0.05, "modulated \(la) dBFS, unmodulated \(lb) dBFS")
        #expect(abs(la + 20) < 0.05)
    }

    /// Any block sizes give the same samples; the same key the same samples, another key others.
    @Test func blockSizeInvariantAndSeeded() throws {
        let curve = try Self.curve(.random, rateHz: 5, depthCents: 150)
        let frames = 100_000
        func tone() throws -> FrequencyModulatedToneSource { try FrequencyModulatedToneSource(frequencyHz: 3_000, curve: curve, sampleRate: Self.rate) }
        func band(_ key: UInt64) throws -> FrequencyModulatedNarrowBandNoiseSource {
            try FrequencyModulatedNarrowBandNoiseSource(centreHz: 3_000, widthOctaves: 0.5, curve: curve, sampleRate: Self.rate, levelDBFS: -20, key: key)
        }
        for (a, b) in [(try tone() as any AudioSource, try tone() as any AudioSource), (try band(1), try band(1))] {
            let whole = Self.render(a, frames: frames)
            let blocks = renderInRandomBlocks(b, frames: frames, maxBlock: 5_000, seed: 4).samples(channel: 0)
            #expect(whole == blocks)
        }
        #expect(Self.render(try band(1), frames: 10_000) != Self.render(try band(2), frames: 10_000))
        let other = try Self.curve(.random, rateHz: 5, depthCents: 150, key: 6)
        #expect((0..<48_000).contains { curve.ratio(atFrame: $0) != other.ratio(atFrame: $0) })
    }

    /// A loop's tone closes its phase (whole cycles under the curve): the next loop starts where the first did.
    @Test(arguments: [FrequencyModulationShape.sine, .random])
    func aLoopedToneRepeatsExactly(shape: FrequencyModulationShape) throws {
        let frames = 72_000
        let curve = try Self.curve(shape, rateHz: shape == .sine ? 10 : 7, depthCents: 100, loopFrames: frames)
        let f = FrequencyModulatedToneSource.loopFrequency(near: 997.3, curve: curve, frames: frames, sampleRate: Self.rate)
        #expect(abs(f - 997.3) < Self.rate / Double(frames))
        let x = Self.render(try FrequencyModulatedToneSource(frequencyHz: f, curve: curve, sampleRate: Self.rate), frames: 2 * frames)
        let worst = (0..<frames).map { abs(x[$0] - x[frames + $0]) }.max()!
        Self.figure("FM tone loop \(shape): \(f) Hz, second loop within \(worst) of the first")
        #expect(worst < 1e-4, "\(worst)")
    }

    /// A depth that takes the frequency to Nyquist or a band's edge below 0 Hz is refused, naming the range.
    @Test func depthsBeyondNyquistOrZeroAreRefused() throws {
        #expect(throws: ShadesError.self) { try FrequencyModulatedToneSource(frequencyHz: 16_000, curve: try Self.curve(.sine, depthCents: 900), sampleRate: Self.rate) }
        let deepest = FrequencyModulatedToneSource.maximumDepthCents(frequencyHz: 16_000, sampleRate: Self.rate)
        #expect(abs(deepest - 1200 * log2(1.5)) < 1e-9)
        _ = try FrequencyModulatedToneSource(frequencyHz: 16_000, curve: try Self.curve(.sine, depthCents: 700), sampleRate: Self.rate)
        // A 2-octave band at 1 kHz: its lower edge (500 Hz) reaches 0 Hz when the centre falls by 500 Hz.
        #expect(abs(FrequencyModulatedNarrowBandNoiseSource.maximumDepthCents(centreHz: 1_000, widthOctaves: 2, sampleRate: Self.rate) - 1200) < 1e-9)
        do {
            _ = try FrequencyModulatedNarrowBandNoiseSource(centreHz: 1_000, widthOctaves: 2, curve: try Self.curve(.sine, depthCents: 1300),
                                                            sampleRate: Self.rate, levelDBFS: -20, key: 1)
            Issue.record("not refused")
        } catch {
            #expect("\(error)".contains("1300 cents") && "\(error)".contains("0 … below 1200 cents") || "\(error)".contains("below 1200"), "\(error)")
        }
    }
}
