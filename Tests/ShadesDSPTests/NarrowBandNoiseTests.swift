import Testing
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Narrow-band noise against its spec: band f·2^(∓w/2); flat inside; energy beyond 1/12 octave outside
/// each edge at least 60 dB below the in-band level; streams (level, steady start, render contract) and
/// loops (nothing outside the band, seamless).
@Suite struct NarrowBandNoiseTests {
    /// (centre Hz, width octaves, rate Hz) measured from a stream.
    static let streamCases: [(Double, Double, Double)] = [
        (250, 0.5, 48_000), (250, 1.0 / 3, 48_000), (1_000, 0.5, 48_000), (1_000, 1.0 / 3, 48_000),
        (4_000, 0.5, 48_000), (4_000, 1.0 / 3, 48_000), (12_000, 0.5, 48_000), (12_000, 1.0 / 3, 48_000),
        (6_000, 0.5, 44_100),
    ]

    /// Design cases: the stream cases plus the extremes (192 kHz, 125 Hz, 8 kHz, 4 octaves, near Nyquist;
    /// the last is so close to Nyquist that the filter becomes a high-pass).
    static let designCases: [(Double, Double, Double)] = streamCases + [
        (125, 1.0 / 3, 192_000), (125, 0.5, 48_000), (16_000, 0.5, 48_000), (20_000, 0.25, 48_000),
        (2_000, 4, 48_000), (1_000, 0.5, 8_000), (60_000, 1, 192_000), (22_000, 1.0 / 6, 48_000),
    ]

    // MARK: Design (exact, no noise)

    /// The FIR's own response on a grid 8× finer than its length resolves: ripple within ±0.005 dB over the
    /// band (designed ±0.001), at least 80 dB down beyond 1/12 octave outside each edge (spec: 60) and
    /// 77 dB down beyond the design's stopband edges (designed 80, Kaiser's estimate is ±2 dB).
    @Test(arguments: 0..<designCases.count)
    func designIsFlatInTheBandAndFarDownOutside(index: Int) throws {
        let (centre, width, rate) = Self.designCases[index]
        let design = try NarrowBandDesign(centreHz: centre, widthOctaves: width, sampleRate: rate)
        #expect(!design.isLengthCapped)
        var size = 1 << 14
        while size < 8 * design.tapCount { size *= 2 }
        let fft = RealFFT(size: size)
        fft.withSignal { s in
            s.update(repeating: 0)
            s[0] = Float(design.halfTaps[0])
            for k in 1...design.halfLength { s[k] = Float(design.halfTaps[k]); s[size - k] = Float(design.halfTaps[k]) }
        }
        fft.forward()
        let lowLimit = design.lowerEdgeHz * pow(2, -1.0 / 12), highLimit = design.upperEdgeHz * pow(2, 1.0 / 12)
        var passMin = Double.infinity, passMax = -Double.infinity, beyondLimits = -Double.infinity, beyondDesign = -Double.infinity
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = Double(k) * rate / Double(size)
                let level = Decibels.fromPower(max(1e-30, Double(bins[2 * k]) * Double(bins[2 * k]) + Double(bins[2 * k + 1]) * Double(bins[2 * k + 1])))
                if f >= design.lowerEdgeHz && f <= design.upperEdgeHz { passMin = min(passMin, level); passMax = max(passMax, level) }
                if f <= lowLimit || f >= highLimit { beyondLimits = max(beyondLimits, level) }
                if f <= design.lowerStopbandEdgeHz || f >= design.upperStopbandEdgeHz { beyondDesign = max(beyondDesign, level) }
            }
        }
        let passband = (passMax + passMin) / 2
        let label = "\(centre) Hz, \(width) oct at \(rate) Hz (\(design.tapCount) taps)"
        #expect((passMax - passMin) / 2 <= 0.005, "\(label): ripple ±\((passMax - passMin) / 2) dB")
        #expect(beyondLimits - passband <= -80, "\(label): \(beyondLimits - passband) dB beyond 1/12 octave")
        #expect(beyondDesign - passband <= -77, "\(label): \(beyondDesign - passband) dB beyond the design's stopband")
        // The exact evaluator agrees with the FFT at the centre, and the transition lies in the allowance.
        let centreGain = Decibels.fromAmplitude(design.magnitude(atFrequency: centre))
        #expect(abs(centreGain - passband) < 0.005)
        #expect(design.lowerStopbandEdgeHz >= lowLimit)
        #expect(design.upperStopbandEdgeHz <= highLimit || (design.upperStopbandEdgeHz == .infinity && highLimit > rate / 2))
    }

    /// The base-band design's response (both stages, images included) on a grid 8× finer than either stage
    /// resolves, from 0 to Nyquist: the interpolator's by FFT of its taps, the low-pass's exact: ripple
    /// within ±0.001 dB over the band (two stages of ±0.00043), at least 80 dB down beyond 1/12 octave
    /// outside each edge and 83 dB beyond the design's stopband edges (designed 86); the exact evaluator
    /// agrees at the centre. Bands that leave no room for a base band keep the full rate.
    @Test(arguments: 0..<designCases.count)
    func basebandDesignIsFlatInTheBandAndFarDownOutside(index: Int) throws {
        let (centre, width, rate) = Self.designCases[index]
        let band = try NarrowBandDesign(centreHz: centre, widthOctaves: width, sampleRate: rate)
        guard let design = NarrowBandBasebandDesign(band: band) else {
            #expect(band.upperEdgeHz + band.transitionHz >= rate / 2
                || rate < 2 * NarrowBandBasebandDesign.rateOverBand * (band.upperEdgeHz - band.lowerEdgeHz + 2 * band.transitionHz))
            return
        }
        let (d, lowRate, taps) = (design.factor, design.lowRate, design.interpolatorTaps)
        let lobe = min(lowRate / Double(2 * design.lowPassHalfTaps.count - 1), rate / Double(taps.count))
        var size = 1 << 14
        while rate / Double(size) > lobe / 8 { size *= 2 }
        let fft = RealFFT(size: size)
        fft.withSignal { s in
            s.update(repeating: 0)
            for (m, h) in taps.enumerated() { s[m] = Float(h / Double(d)) }
        }
        fft.forward()
        var interpolator = [Double](repeating: 0, count: fft.binCount)
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount { interpolator[k] = Double(bins[2 * k]) * Double(bins[2 * k]) + Double(bins[2 * k + 1]) * Double(bins[2 * k + 1]) }
        }
        let binHz = rate / Double(size)
        func power(_ f: Double) -> Double {   // of I (or Q) after both stages, at base-band frequency f
            let k = Int((abs(f) / binHz).rounded()) % size
            let lp = NarrowBandBasebandDesign.symmetricResponse(halfTaps: design.lowPassHalfTaps, frequencyHz: f, sampleRate: lowRate)
            return lp * lp * interpolator[k <= size / 2 ? k : size - k]
        }
        let lowLimit = band.lowerEdgeHz * pow(2, -1.0 / 12), highLimit = band.upperEdgeHz * pow(2, 1.0 / 12)
        var passMin = Double.infinity, passMax = -Double.infinity, beyondLimits = -Double.infinity, beyondDesign = -Double.infinity
        for k in 0..<fft.binCount {
            let f = Double(k) * binHz
            let level = Decibels.fromPower(max(1e-30, power(f - design.middleHz) + power(f + design.middleHz)))
            if f >= band.lowerEdgeHz && f <= band.upperEdgeHz { passMin = min(passMin, level); passMax = max(passMax, level) }
            if f <= lowLimit || f >= highLimit { beyondLimits = max(beyondLimits, level) }
            if f <= design.lowerStopbandEdgeHz || f >= design.upperStopbandEdgeHz { beyondDesign = max(beyondDesign, level) }
        }
        let passband = (passMax + passMin) / 2
        let label = "\(centre) Hz, \(width) oct at \(rate) Hz (D = \(d), \(design.tapsPerPhase) taps per phase)"
        #expect((passMax - passMin) / 2 <= 0.001, "\(label): ripple ±\((passMax - passMin) / 2) dB")
        #expect(beyondLimits - passband <= -80, "\(label): \(beyondLimits - passband) dB beyond 1/12 octave")
        #expect(beyondDesign - passband <= -83, "\(label): \(beyondDesign - passband) dB beyond the design's stopband")
        #expect(design.lowerStopbandEdgeHz >= lowLimit && design.upperStopbandEdgeHz <= highLimit)
        // Unit variance: about the in-band gain of the full-rate band-pass's unit-energy taps (≈ rate/(2B); its
        // 80 dB window's transitions hold a little more energy than the 86 dB ones: 0.011 … 0.016 dB); the exact
        // evaluator agrees with the grid.
        let exact = Decibels.fromAmplitude(design.magnitude(atFrequency: centre))
        let fullRate = Decibels.fromAmplitude(band.magnitude(atFrequency: centre))
        #expect(abs(exact - fullRate) <= 0.03, "\(label): centre \(exact) dB, full rate \(fullRate) dB")
        let gridCentre = Decibels.fromPower(power(centre - design.middleHz) + power(centre + design.middleHz))
        #expect(abs(exact - gridCentre - Decibels.fromPower(rate / (2 * lowRate * design.variance))) <= 0.001)
        #expect(abs(design.variance - 1) < 0.01)
    }

    @Test func lowBandsAtHighRatesCapTheKernelAndSayHow() throws {
        let design = try NarrowBandDesign(centreHz: 40, widthOctaves: 1, sampleRate: 192_000)
        #expect(design.isLengthCapped)
        #expect(design.halfLength == NarrowBandDesign.maximumHalfLength)
        #expect(design.transitionHz > design.lowerEdgeHz * (1 - pow(2, -1.0 / 12)))
        // Still flat from the band edges inward and far down beyond the widened transition.
        let passband = Decibels.fromAmplitude(design.magnitude(atFrequency: 40))
        for f in [design.lowerEdgeHz, 35.0, 50, design.upperEdgeHz] {
            #expect(abs(Decibels.fromAmplitude(design.magnitude(atFrequency: f)) - passband) < 0.005)
        }
        #expect(Decibels.fromAmplitude(design.magnitude(atFrequency: design.lowerStopbandEdgeHz)) - passband < -75)
    }

    // MARK: Stream

    /// 60 s of mono noise, Welch-averaged with Hann segments of at least 65,536 samples, long enough that
    /// the window's main lobe (±2 bins) fits in the design's margin before the 1/12-octave point (a tenth
    /// of the allowance, 0.0056·fLow): bins ≤ 0.0014·fLow (0.18 Hz for 250 Hz, 0.73 Hz from 1 kHz up).
    /// With coarser bins the analysis, not the filter, smears the transition past that point.
    /// - Out of band: the largest bin beyond 1/12 octave outside either edge is ≥ 60 dB below the in-band
    ///   mean (the spec).
    /// - In band: each ⅙-octave sub-band's power per Hz matches the design's response within 4.5 standard
    ///   errors of the estimate, 4.5 × 4.34/√(B·T) dB for a sub-band of B Hz over T s (0.47 dB at 250 Hz
    ///   ⅓ octave, 0.06 dB at 12 kHz ½ octave).
    @Test(arguments: 0..<streamCases.count)
    func streamIsFlatInBandAndSixtyDBDownBeyondAOneTwelfthOctave(index: Int) throws {
        let (centre, width, rate) = Self.streamCases[index]
        let seconds = 60.0
        let level = -20.0
        let source = try NarrowBandNoiseSource(centreHz: centre, widthOctaves: width, sampleRate: rate,
                                               layout: .mono, levelDBFS: level, seed: 2026)
        let buffer = source.renderBuffer(frameCount: Int(rate * seconds))
        let (lower, upper) = (source.lowerEdgeHz, source.upperEdgeHz)
        var segment = 1 << 16
        while rate / Double(segment) > 0.0014 * lower { segment *= 2 }
        let spectrum = try buffer.withSamples(channel: 0) { try PowerSpectrum.welch($0, sampleRate: rate, segmentLength: segment) }
        let label = "\(centre) Hz, \(width) oct at \(rate) Hz"

        let inBand = spectrum.bandPower(from: lower, to: upper) / (upper - lower)
        var worst = 0.0
        for (k, density) in spectrum.density.enumerated() {
            let f = Double(k) * spectrum.binWidthHz
            if f <= lower * pow(2, -1.0 / 12) || f >= upper * pow(2, 1.0 / 12) { worst = max(worst, density) }
        }
        let attenuation = Decibels.fromPower(worst / inBand)
        #expect(attenuation <= -60, "\(label): out-of-band peak \(attenuation) dB re in-band")

        let subBands = Int((width * 6).rounded())
        for b in 0..<subBands {
            let lo = lower * pow(2, Double(b) / 6), hi = lower * pow(2, Double(b + 1) / 6)
            let measured = spectrum.bandPower(from: lo, to: hi) / (hi - lo)
            // One-sided PSD of white noise of variance σ² is 2σ²/rate; the design's gain is flat in band.
            let gain = source.magnitude(atFrequency: (lo * hi).squareRoot())
            let expected = 2 * Decibels.amplitude(level) * Decibels.amplitude(level) * gain * gain / rate
            let tolerance = 4.5 * 4.343 / ((hi - lo) * seconds).squareRoot()
            let deviation = Decibels.fromPower(measured / expected)
            #expect(abs(deviation) <= tolerance, "\(label): sub-band \(b) off by \(deviation) dB (allowed \(tolerance))")
        }
    }

    /// 60 s stereo at −26 dBFS: each ear within ±0.1 dB. Standard error of a band-limited level estimate is
    /// 4.34/√(B·T) dB: 0.03 dB for 1 kHz ½ octave, 0.02 dB for 4 kHz ⅓ octave.
    @Test(arguments: [(1_000.0, 0.5), (4_000, 1.0 / 3)] as [(Double, Double)])
    func streamHasTheAskedLevel(centre: Double, width: Double) throws {
        let rate = 48_000.0
        let buffer = try NarrowBandNoiseSource(centreHz: centre, widthOctaves: width, sampleRate: rate,
                                               layout: .stereo, levelDBFS: -26, seed: 4)
            .renderBuffer(frameCount: Int(rate) * 60)
        for c in 0..<2 {
            let level = buffer.withSamples(channel: c) { SignalLevel.rmsDBFS($0) }
            #expect(abs(level + 26) <= 0.1, "\(centre) Hz channel \(c): \(level) dBFS")
        }
    }

    /// The first sample already has the full level: over 600 independent ears, the mean of x[0]² is the
    /// asked power within 4 standard errors (√(2/600) → 0.25 dB each; a filter starting from silence would
    /// give half the power at x[0], −3 dB).
    @Test func streamStartsInSteadyState() throws {
        var sum = 0.0
        let sources = 300
        for seed in 0..<sources {
            let buffer = try NarrowBandNoiseSource(centreHz: 8_000, widthOctaves: 1, sampleRate: 48_000,
                                                   layout: .stereo, levelDBFS: 0, seed: UInt64(seed))
                .renderBuffer(frameCount: 16)
            for c in 0..<2 { sum += Double(buffer.samples(channel: c)[0] * buffer.samples(channel: c)[0]) }
        }
        let power = Decibels.fromPower(sum / Double(2 * sources))
        #expect(abs(power) <= 1.0, "first-sample power \(power) dB re the asked level")
    }

    @Test func blocksOfAnySizeGiveBitIdenticalSamples() throws {
        let makers: [(String, () throws -> NarrowBandNoiseSource)] = [
            ("1 kHz ½ oct stereo", { try NarrowBandNoiseSource(centreHz: 1_000, widthOctaves: 0.5, sampleRate: 48_000, layout: .stereo, seed: 3) }),
            ("12 kHz ⅓ oct diotic", { try NarrowBandNoiseSource(centreHz: 12_000, widthOctaves: 1.0 / 3, sampleRate: 48_000, layout: .diotic, seed: 4) }),
            ("4 kHz ½ oct left 44.1k", { try NarrowBandNoiseSource(centreHz: 4_000, widthOctaves: 0.5, sampleRate: 44_100, layout: .left, seed: 5) }),
        ]
        let frames = 80_000
        for (name, make) in makers {
            let whole = try make().renderBuffer(frameCount: frames)
            for (seed, maxBlock) in [(1 as UInt64, 7), (2, 300), (3, 40_000)] {
                let pieces = renderInRandomBlocks(try make(), frames: frames, maxBlock: maxBlock, seed: seed)
                for c in 0..<whole.channelCount {
                    #expect(whole.samples(channel: c) == pieces.samples(channel: c), "\(name), blocks up to \(maxBlock), channel \(c)")
                }
            }
        }
    }

    @Test func seedsChannelsAndLayouts() throws {
        func make(_ layout: ChannelLayout, seed: UInt64, firstSignal: Int = 0) throws -> AudioBuffer {
            try NarrowBandNoiseSource(centreHz: 4_000, widthOctaves: 0.5, sampleRate: 48_000, layout: layout,
                                      seed: seed, firstSignal: firstSignal).renderBuffer(frameCount: 48_000)
        }
        let a = try make(.stereo, seed: 11), b = try make(.stereo, seed: 11), c = try make(.stereo, seed: 12)
        #expect(a.samples(channel: 0) == b.samples(channel: 0) && a.samples(channel: 1) == b.samples(channel: 1))
        #expect(a.samples(channel: 0) != c.samples(channel: 0))
        // Ears independent: correlation within 4 standard errors of zero; a band of B Hz over T s gives
        // about 2·B·T independent values (B ≈ 1.4 kHz, T = 1 s).
        let left = a.samples(channel: 0), right = a.samples(channel: 1)
        var cross = 0.0, l2 = 0.0, r2 = 0.0
        for i in left.indices {
            cross += Double(left[i]) * Double(right[i]); l2 += Double(left[i] * left[i]); r2 += Double(right[i] * right[i])
        }
        #expect(abs(cross / (l2 * r2).squareRoot()) < 4 / (2 * 1_400.0).squareRoot())
        #expect(try make(.mono, seed: 11, firstSignal: 1).samples(channel: 0) == right)
        #expect(try make(.mono, seed: 11).samples(channel: 0) == left)
        let diotic = try make(.diotic, seed: 11)
        #expect(diotic.samples(channel: 0) == diotic.samples(channel: 1) && diotic.samples(channel: 0) == left)
        let onlyRight = try make(.right, seed: 11)
        #expect(onlyRight.samples(channel: 0).allSatisfy { $0 == 0 } && onlyRight.samples(channel: 1) == left)
    }

    // MARK: Loop

    /// Periodogram of the loop (exact for a periodic signal): every bin outside the band at least 100 dB
    /// below the in-band bins, every in-band bin within ±0.01 dB of the others, unit RMS.
    @Test(arguments: [(1_000.0, 0.5), (250, 1.0 / 3), (12_000, 0.5)] as [(Double, Double)])
    func loopHasNothingOutsideTheBandAndEqualBinsInside(centre: Double, width: Double) throws {
        let rate = 48_000.0
        let loop = AudioBuffer(channelCount: 1, frameCapacity: Int(rate) * 10)
        try loop.withChannel(0) { try LoopNarrowBandNoise.render(centreHz: centre, widthOctaves: width, sampleRate: rate, key: 77, into: $0) }
        let spectrum = loop.withSamples(channel: 0) { PowerSpectrum.periodogram($0, sampleRate: rate) }
        let (lower, upper) = try NarrowBandNoiseSource.validate(centreHz: centre, widthOctaves: width, sampleRate: rate)
        var inside: [Double] = [], outsideMax = 0.0
        for (k, density) in spectrum.density.enumerated() {
            let f = Double(k) * spectrum.binWidthHz
            if f >= lower && f <= upper { inside.append(density) } else { outsideMax = max(outsideMax, density) }
        }
        let mean = inside.reduce(0, +) / Double(inside.count)
        #expect(Decibels.fromPower(outsideMax / mean) < -100, "\(centre) Hz: outside \(Decibels.fromPower(outsideMax / mean)) dB")
        #expect(inside.allSatisfy { abs(Decibels.fromPower($0 / mean)) < 0.01 })
        #expect(abs(loop.withSamples(channel: 0) { SignalLevel.rms($0) } - 1) < 1e-4)
    }

    @Test(arguments: [(1_000.0, 0.5), (4_000, 1.0 / 3), (12_000, 0.5)] as [(Double, Double)])
    func loopSeamIsLikeAnyOtherStep(centre: Double, width: Double) throws {
        let frames = 48_000 * 10
        let loop = AudioBuffer(channelCount: 1, frameCapacity: frames)
        try loop.withChannel(0) { try LoopNarrowBandNoise.render(centreHz: centre, widthOctaves: width, sampleRate: 48_000, key: 5, into: $0) }
        // First and second differences across the seam against the file's own, with the analysis API.
        var seam = SeamAccumulator()
        loop.withChannel(0) { seam.add(UnsafeBufferPointer($0)) }
        let report = try seam.result()
        let (firstPercentile, secondPercentile) = (report.firstDifferencePercentile, report.secondDifferencePercentile)
        #expect(report.isSeamless, "seam at percentiles \(firstPercentile), \(secondPercentile)")
    }

    // MARK: Bad input

    @Test func badParametersAreRejectedWithTheirRange() {
        func error(_ body: () throws(ShadesError) -> Void) -> ShadesError? {
            do { try body(); return nil } catch { return error }
        }
        func source(_ f: Double, _ w: Double, rate: Double = 48_000, level: Double = -20) -> ShadesError? {
            error { () throws(ShadesError) in _ = try NarrowBandNoiseSource(centreHz: f, widthOctaves: w, sampleRate: rate, levelDBFS: level) }
        }
        for f in [0, -1000, .nan, .infinity] {
            #expect(source(f, 0.5)?.parameter == .frequency, "centre \(f)")
        }
        for w in [0, -0.5, 4.01, .nan, .infinity] {
            #expect(source(1_000, w)?.parameter == .width, "width \(w)")
        }
        #expect(source(1_000, 4) == nil)
        // Upper edge at Nyquist exactly (12 kHz · 2^1) and beyond it.
        for (f, w) in [(12_000.0, 2.0), (21_000, 0.5), (23_500, 1.0 / 12)] {
            let e = source(f, w)
            #expect(e?.parameter == .frequency, "\(f) Hz, \(w) oct")
            #expect(e?.allowed?.contains("must lie below Nyquist (24000 Hz)") == true, "\(e?.description ?? "no error")")
        }
        #expect(source(21_000, 0.5)?.description
            == "frequency 21000 Hz is out of range (allowed: above 0 and below 20181.5 Hz, for a band 0.5 octaves wide: its edges (here 17658.8 … 24973.3 Hz) must lie below Nyquist (24000 Hz))")
        #expect(source(21_000, 0.5)?.allowedValues?.range == .above(0, below: 24_000 * pow(2, -0.25), unit: .hertz))
        #expect(source(1_000, 0.5, rate: 7_999)?.parameter == .rate)
        #expect(source(1_000, 0.5, level: 1)?.parameter == .level)
        #expect(source(1_000, 0.5, level: .nan)?.parameter == .level)
        #expect(source(1_000, 6)?.description == "width 6 octaves is out of range (allowed: above 0 and at most 4 octaves)")
        // The loop checks the same way, and needs enough frames for a bin inside the band.
        let loop = UnsafeMutableBufferPointer<Float>.allocate(capacity: 48_000)
        defer { loop.deallocate() }
        #expect(error { () throws(ShadesError) in try LoopNarrowBandNoise.render(centreHz: 0, widthOctaves: 0.5, sampleRate: 48_000, key: 1, into: loop) }?.parameter == .frequency)
        #expect(error { () throws(ShadesError) in try LoopNarrowBandNoise.render(centreHz: 1_000, widthOctaves: 5, sampleRate: 48_000, key: 1, into: loop) }?.parameter == .width)
        #expect(error { () throws(ShadesError) in try LoopNarrowBandNoise.render(centreHz: 23_000, widthOctaves: 0.5, sampleRate: 48_000, key: 1, into: loop) }?.parameter == .frequency)
        let short = UnsafeMutableBufferPointer(rebasing: loop[0..<100])
        #expect(error { () throws(ShadesError) in try LoopNarrowBandNoise.render(centreHz: 1_000, widthOctaves: 0.01, sampleRate: 48_000, key: 1, into: short) }?.parameter == .loopLength)
    }
}
