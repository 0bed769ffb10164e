import Testing
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Spectral-ripple modulation (Yukhnovich et al. 2025).
@Suite struct SpectralRippleTests {
    let rate = 48_000.0

    func source(_ condition: SpectralRipple.Condition = .amplitude, sham: Bool = false, seed: UInt64 = 5,
                level: Double = -30) throws -> SpectralRippleSource {
        try SpectralRippleSource(ripple: SpectralRipple(tinnitusFrequencyHz: 4000, condition: condition, sham: sham),
                                 sampleRate: rate, levelDBFS: level, seed: seed)
    }

    /// Amplitude of the component at `hz` around frame `centre`: a Hann-weighted complex demodulation
    /// 4,000 frames long (its sidelobes at the next harmonic, ≥ 96 Hz away, are below −60 dB).
    func amplitude(_ x: [Float], hz: Double, centre: Int, halfWidth: Int = 2_000) -> Double {
        var re = 0.0, im = 0.0, weights = 0.0
        for n in centre - halfWidth..<centre + halfWidth {
            let w = 0.5 - 0.5 * cos(Double.pi * Double(n - centre + halfWidth) / Double(halfWidth))
            let angle = 2 * Double.pi * hz * Double(n) / rate
            re += w * Double(x[n]) * cos(angle)
            im += w * Double(x[n]) * sin(angle)
            weights += w
        }
        return 2 * (re * re + im * im).squareRoot() / weights
    }

    /// Fraction of the power within ±`margin` Hz of the multiples of `f0` in 1 … 16 kHz.
    func harmonicFraction(_ spectrum: PowerSpectrum, f0: Double, margin: Double = 10) -> Double {
        var inside = 0.0, total = 0.0
        for (k, p) in spectrum.density.enumerated() {
            let f = Double(k) * spectrum.binWidthHz
            total += p
            let h = (f / f0).rounded()
            if abs(f - h * f0) <= margin, h * f0 >= 1000 - 1e-9, h * f0 <= 16_000 + 1e-9 { inside += p }
        }
        return inside / total
    }

    @Test func spectralLinesOnlyAtHarmonicsOfTheSegmentsF0() throws {
        for condition in [SpectralRipple.Condition.amplitude, .phase] {
            let ripple = try source(condition)
            let frames = ripple.segmentFrames
            let x = ripple.renderBuffer(frameCount: 3 * frames).samples(channel: 0)
            var fundamentals: [Int] = []
            for k in 0..<3 {
                let segment = Array(x[k * frames..<(k + 1) * frames]).withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: rate) }
                let f0 = ripple.segmentChoices(k).fundamentalHz
                fundamentals.append(f0)
                let fraction = harmonicFraction(segment, f0: Double(f0))
                #expect(fraction > 1 - 1e-5, "\(condition) segment \(k), f0 \(f0) Hz: \(1 - fraction) of the power elsewhere")
                // The segment's lines fit no other fundamental in 96 … 256 Hz except its own divisors.
                let best = (96...256).filter { harmonicFraction(segment, f0: Double($0), margin: 8) > 0.999 }.max()
                #expect(best == f0, "segment \(k): analysed f0 \(String(describing: best)) Hz, drawn \(f0) Hz")
            }
            // f0 is drawn anew at each boundary (for this seed all three differ).
            #expect(fundamentals[0] != fundamentals[1] && fundamentals[1] != fundamentals[2], "\(fundamentals)")
        }
    }

    @Test func amplitudeRippleSpansZeroToTwiceAndDriftsAtOneHertz() throws {
        let ripple = try source(.amplitude)
        let x = ripple.renderBuffer(frameCount: ripple.segmentFrames).samples(channel: 0)
        let choices = ripple.segmentChoices(0)
        let f0 = Double(choices.fundamentalHz)
        let octave = ripple.ripple.modulatedOctaveHz
        let centre = (octave.lowerBound * octave.upperBound).squareRoot()
        // The reference: an unmodulated harmonic (in 8 … 16 kHz, far from the 2.8–5.7 kHz octave).
        let reference = (8_000 / f0).rounded(.up) * f0
        let times = stride(from: 1.05, through: 2.95, by: 0.05).map { $0 }
        let unit = amplitude(x, hz: reference, centre: Int(2 * rate))
        for t in times {
            let a = amplitude(x, hz: reference, centre: Int(t * rate)) / unit
            #expect(abs(a - 1) < 0.005, "unmodulated harmonic at \(t) s: \(a)")
        }
        let modulated = (Int((octave.lowerBound / f0).rounded(.up))...Int((octave.upperBound / f0).rounded(.down))).map { Double($0) * f0 }
        for hz in [modulated.first!, modulated[modulated.count / 2], modulated.last!] {
            let xOct = log2(hz / centre)
            var low = 2.0, high = 0.0
            for t in times {
                let measured = amplitude(x, hz: hz, centre: Int(t * rate)) / unit
                // Θ/2π = φ0 + r·t + s(t)·x with r = 1 Hz: the envelope's phase advances one cycle a second.
                let density = 4.5 + 3 * sin(choices.densityPhase + 2 * Double.pi * t / 8)
                let predicted = 1 + sin(2 * Double.pi * (choices.ripplePhaseCycles + 1 * t + density * xOct))
                #expect(abs(measured - predicted) < 0.03, "\(hz) Hz at \(t) s: \(measured), expected \(predicted)")
                (low, high) = (min(low, measured), max(high, measured))
            }
            #expect(low < 0.05 && high > 1.95, "\(hz) Hz envelope spans \(low) … \(high)")
        }
    }

    @Test func everySegmentHasTheAskedRMS() throws {
        for condition in SpectralRipple.Condition.allCases {
            let ripple = try source(condition, level: -27)
            let frames = ripple.segmentFrames
            let x = ripple.renderBuffer(frameCount: 3 * frames).samples(channel: 0)
            for k in 0..<3 {
                let rms = Array(x[k * frames..<(k + 1) * frames]).withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) }
                #expect(abs(rms + 27) < 0.001, "\(condition) segment \(k): \(rms) dBFS")
            }
            // Raised-cosine ramps: each segment starts from 0.
            #expect(x[0] == 0 && x[frames] == 0 && x[2 * frames] == 0)
        }
    }

    @Test func shamModulatesTheFarOctave() throws {
        #expect(SpectralRipple(tinnitusFrequencyHz: 4000).modulatedBandPair == 3)   // 2.83 – 5.66 kHz
        #expect(SpectralRipple(tinnitusFrequencyHz: 4000, sham: true).modulatedBandPair == 0)  // 1 – 2 kHz (tie: lower)
        #expect(SpectralRipple(tinnitusFrequencyHz: 3000, sham: true).modulatedBandPair == 6)  // 8 – 16 kHz
        #expect(SpectralRipple(tinnitusFrequencyHz: 9000, sham: true).modulatedBandPair == 0)
        #expect(SpectralRipple(tinnitusFrequencyHz: 1000).modulatedBandPair == 0)
        #expect(SpectralRipple(tinnitusFrequencyHz: 16_000).modulatedBandPair == 6)
        for f in stride(from: 1000.0, through: 16_000, by: 250) {
            #expect(SpectralRipple(tinnitusFrequencyHz: f).modulatedOctaveHz.contains(f))
        }
        // By analysis: with sham, harmonics in 1 – 2 kHz swing and those around 4 kHz do not.
        let ripple = try source(.amplitude, sham: true)
        let x = ripple.renderBuffer(frameCount: ripple.segmentFrames).samples(channel: 0)
        let f0 = Double(ripple.segmentChoices(0).fundamentalHz)
        func swing(_ hz: Double) -> Double {
            let a = stride(from: 1.05, through: 2.95, by: 0.1).map { amplitude(x, hz: hz, centre: Int($0 * rate)) }
            return a.max()! / max(a.min()!, 1e-12)
        }
        #expect(swing((1400 / f0).rounded() * f0) > 10)
        #expect(swing((4000 / f0).rounded() * f0) < 1.01)
    }

    @Test func noiseReplacesTheOctaveWithTheSamePower() throws {
        // Same seed: the phase condition's octave holds the harmonics at their own power.
        let frames = Int(4 * rate)
        let noise = try source(.noise).renderBuffer(frameCount: frames).samples(channel: 0)
        let phase = try source(.phase).renderBuffer(frameCount: frames).samples(channel: 0)
        let octave = SpectralRipple(tinnitusFrequencyHz: 4000).modulatedOctaveHz
        let n = noise.withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: rate) }
        let p = phase.withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: rate) }
        let inN = n.bandPower(from: octave.lowerBound - 5, to: octave.upperBound + 5)
        let inP = p.bandPower(from: octave.lowerBound - 5, to: octave.upperBound + 5)
        #expect(abs(Decibels.fromPower(inN / inP)) < 0.1, "octave power \(Decibels.fromPower(inN / inP)) dB apart")
        // The noise is flat: the two half-octave bands carry equal power (within 0.2 dB).
        let mid = (octave.lowerBound * octave.upperBound).squareRoot()
        let lower = n.bandPower(from: octave.lowerBound + 20, to: mid), upper = n.bandPower(from: mid, to: octave.upperBound - 20)
        let expected = (mid - octave.lowerBound - 20) / (octave.upperBound - 20 - mid)
        #expect(abs(Decibels.fromPower(lower / upper / expected)) < 0.2)
    }

    @Test func bandGainsRaiseTheirHalfOctave() throws {
        let gains: [Double] = [0, 0, 0, 0, 0, 0, 0, 6]
        let frames = Int(4 * rate)
        func bandRatioDB(_ bandGainsDB: [Double]?) throws -> Double {
            let x = try SpectralRippleSource(ripple: SpectralRipple(tinnitusFrequencyHz: 4000, condition: .phase, bandGainsDB: bandGainsDB),
                                             sampleRate: rate, levelDBFS: -30, seed: 5).renderBuffer(frameCount: frames).samples(channel: 0)
            let spectrum = x.withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: rate) }
            let edges = SpectralRipple.bandEdgesHz
            return Decibels.fromPower(spectrum.bandPower(from: edges[7], to: edges[8]) / spectrum.bandPower(from: edges[6], to: edges[7]))
        }
        #expect(abs(try bandRatioDB(gains) - bandRatioDB(nil) - 6) < 0.05)
    }

    @Test func blockSizesAndSeedsBehave() throws {
        let frames = Int(8.5 * rate)
        let whole = try source(.phase).renderBuffer(frameCount: frames).samples(channel: 0)
        let blocks = renderInRandomBlocks(try source(.phase), frames: frames, maxBlock: 5_000, seed: 9).samples(channel: 0)
        #expect(blocks == whole)
        let later = try SpectralRippleSource(ripple: SpectralRipple(tinnitusFrequencyHz: 4000, condition: .phase),
                                             sampleRate: rate, levelDBFS: -30, seed: 5, startFrame: 200_000)
            .renderBuffer(frameCount: frames - 200_000).samples(channel: 0)
        #expect(Array(whole[200_000...]) == later)
        #expect(try source(.phase, seed: 6).renderBuffer(frameCount: 1000).samples(channel: 0) != Array(whole[0..<1000]))
    }

    @Test func badParametersNameTheParameter() {
        let cases: [(SpectralRipple, Double, ParameterID)] = [
            (SpectralRipple(tinnitusFrequencyHz: 500), 48_000, .frequency),
            (SpectralRipple(tinnitusFrequencyHz: 4000), 32_000, .rate),
            (SpectralRipple(tinnitusFrequencyHz: 4000, bandGainsDB: [0, 0]), 48_000, .bandGains),
            (SpectralRipple(tinnitusFrequencyHz: 4000, bandGainsDB: [0, 0, 0, 0, 0, 0, 0, 99]), 48_000, .bandGains),
        ]
        for (r, rate, parameter) in cases {
            do { try r.validate(sampleRate: rate); Issue.record("\(parameter) accepted") } catch { #expect(error.parameter == parameter) }
        }
    }
}
