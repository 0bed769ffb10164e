import ShadesDSP
import ShadesPlatform

/// Notch check: the transfer magnitude from a reference (input) channel to a processed (output) channel,
/// accumulated block by block, and their time alignment.
///
/// Fed matching blocks of the two signals (same frame counts), it first keeps the first
/// ``lagSearchSeconds`` of both and finds the lag D of the output behind the reference from the peak of
/// their FFT cross-correlation. From then on it pairs x[n] with y[n + D] (the signal that is ahead waits
/// in a FIFO of |D| frames) and accumulates Welch auto-spectra S_xx and S_yy and the cross-spectrum S_xy
/// over aligned segments, with the segmenting of ``SpectrumAccumulator`` (Hann, half overlap,
/// ``SpectrumAccumulator/segmentLength(sampleRate:)``; one zero-padded segment of the aligned overlap if
/// that is shorter). The |D| frames at the ends without a partner are left out.
///
/// Estimator: |H| = √(S_yy/S_xx). For an output that is a filtered copy of the reference it reads the
/// true depth down to the Float32 floor (about −130 dB for white noise), it does not depend on phase or
/// polarity, and it measures what a listener gets: all the power left in the band. The cross-spectral
/// estimate |S_xy|/S_xx is reported beside it: it rejects output noise uncorrelated with the input, but
/// only down to a floor √(S_nn/(K·S_xx)) set by the number K of averaged segments, and any misalignment
/// left between the segments biases it low by the window's overlap with itself shifted (false ripple).
///
/// Memory: 2 × 10 s of samples until the lag is known, then the FIFO and one segment per signal.
package struct NotchCheckAccumulator: Sendable {
    /// Sample rate in Hz.
    package let sampleRate: Double
    /// The notch to check; nil to find it from the transfer curve.
    package let band: OctaveBand?
    /// Frames added so far.
    package private(set) var frameCount = 0

    /// Seconds at the start of the signals searched for the lag (lags up to this long are found).
    package static let lagSearchSeconds = 10.0
    /// Fewest aligned frames ``result()`` accepts.
    package static let minimumFrameCount = 16

    private let segmentLength: Int
    private let window: [Float]
    private let windowPower: Double
    private var referenceFFT: RealFFT
    private var outputFFT: RealFFT
    private var spectra: CrossSpectra
    private var segmentCount = 0
    /// The starts of both signals, kept until the lag is known.
    private var referenceStart: [Float] = []
    private var outputStart: [Float] = []
    private let lagFrames: Int
    /// Lag found (whole samples) and refined; nil until ``lagFrames`` frames have come (or `result()`).
    private var lag: (whole: Int, fine: Double)?
    /// Samples waiting to be analysed, aligned: reference[n] pairs with output[n].
    private var referencePending = SampleFIFO()
    private var outputPending = SampleFIFO()

    /// - Parameters:
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - band: the notch to check; nil to find it (see ``NotchCheckReport/bandWasDetected``).
    ///   - segmentLength: as for ``SpectrumAccumulator``; nil picks the default for the rate.
    package init(sampleRate: Double, band: OctaveBand?, segmentLength: Int? = nil) throws(ShadesError) {
        let probe = try SpectrumAccumulator(sampleRate: sampleRate, segmentLength: segmentLength)
        if let band, band.upperEdgeHz >= sampleRate / 2 {
            throw Parameter.bandCentre.outOfRange(
                band.centreHz, range: .above(0, below: sampleRate / 2 / pow(2, band.widthOctaves / 2), unit: .hertz),
                note: "for this width, so the band ends below Nyquist (\(formatLimit(sampleRate / 2)) Hz)")
        }
        let length = probe.segmentLength
        self.sampleRate = sampleRate
        self.band = band
        self.segmentLength = length
        window = WelchWindow.hann(length)
        windowPower = WelchWindow.power(window)
        referenceFFT = RealFFT(size: length)
        outputFFT = RealFFT(size: length)
        spectra = CrossSpectra(bins: length / 2 + 1)
        lagFrames = Int(Self.lagSearchSeconds * sampleRate)
    }

    /// Adds the next frames of both signals; `reference` and `output` must have the same count.
    package mutating func add(reference: UnsafeBufferPointer<Float>, output: UnsafeBufferPointer<Float>) {
        precondition(reference.count == output.count, "reference and output blocks must have the same frame count")
        var offset = 0
        if lag == nil {
            offset = min(reference.count, lagFrames - frameCount)
            referenceStart.append(contentsOf: reference[0..<offset])
            outputStart.append(contentsOf: output[0..<offset])
            frameCount += offset
            if frameCount < lagFrames { return }
            startAligning()
        }
        frameCount += reference.count - offset
        referencePending.append(UnsafeBufferPointer(rebasing: reference[offset...]))
        outputPending.append(UnsafeBufferPointer(rebasing: output[offset...]))
        analyseSegments()
    }

    /// Finds the lag from the kept starts and feeds them, aligned, to the segmenting.
    private mutating func startAligning() {
        let found = Self.estimateLag(reference: referenceStart, output: outputStart)
        lag = found
        referenceStart.withUnsafeBufferPointer { referencePending.append(UnsafeBufferPointer(rebasing: $0[max(0, -found.whole)...])) }
        outputStart.withUnsafeBufferPointer { outputPending.append(UnsafeBufferPointer(rebasing: $0[max(0, found.whole)...])) }
        referenceStart = []
        outputStart = []
        analyseSegments()
    }

    private mutating func analyseSegments() {
        let length = segmentLength
        while referencePending.count >= length && outputPending.count >= length {
            if !isKnownUniquelyReferenced(&referenceFFT) { referenceFFT = RealFFT(size: length) }
            if !isKnownUniquelyReferenced(&outputFFT) { outputFFT = RealFFT(size: length) }
            let (xFFT, yFFT) = (referenceFFT, outputFFT)
            window.withUnsafeBufferPointer { w in
                referencePending.withSamples { segment in
                    xFFT.withSignal { s in for i in 0..<length { s[i] = segment[i] * w[i] } }
                }
                outputPending.withSamples { segment in
                    yFFT.withSignal { s in for i in 0..<length { s[i] = segment[i] * w[i] } }
                }
            }
            xFFT.forward()
            yFFT.forward()
            xFFT.withSpectrum { x in
                yFFT.withSpectrum { y in spectra.accumulate(x: UnsafeBufferPointer(x), y: UnsafeBufferPointer(y)) }
            }
            segmentCount += 1
            referencePending.removeFirst(length / 2)
            outputPending.removeFirst(length / 2)
        }
    }

    /// Margin of the reference's power (at the passband gain) over the output's noise for a band to be
    /// compared, dB: the output's noise then moves a level by under 10·log10(1 + 10⁻⁶) ≈ 4·10⁻⁶ dB.
    package static let comparedMarginDB = 60.0
    /// Least depth below the passband of a notch found without being given, dB.
    package static let detectionDepthDB = 20.0

    /// The notch report for everything added so far.
    ///
    /// Throws for fewer than ``minimumFrameCount`` aligned frames, a silent reference or a silent output.
    package func result() throws(ShadesError) -> NotchCheckReport {
        try WelchWindow.checkShort(frameCount: frameCount, minimum: Self.minimumFrameCount, parameter: .signal)
        var state = self
        if state.lag == nil { state.startAligning() }
        let lag = state.lag!
        let spectra: CrossSpectra, size: Int
        if state.segmentCount > 0 {
            (spectra, size) = (state.spectra, segmentLength)
        } else {
            let aligned = min(state.referencePending.count, state.outputPending.count)
            try WelchWindow.checkShort(frameCount: aligned, minimum: Self.minimumFrameCount, parameter: .signal)
            (spectra, size) = state.shortSpectra(frames: aligned)
        }
        guard spectra.xx.contains(where: { $0 > 0 }) else {
            throw ShadesError(.reference, .other("is silent"), value: .number(Double(frameCount), .frames),
                              allowed: AllowedValues(note: "a signal with power in the checked band"))
        }
        guard spectra.yy.contains(where: { $0 > 0 }) else {
            throw ShadesError(.signal, .other("is silent"), value: .number(Double(frameCount), .frames),
                              allowed: AllowedValues(note: "a signal with power outside the notch"))
        }
        let grid = TransferGrid(spectra: spectra, binWidthHz: sampleRate / Double(size))
        let nyquist = sampleRate / 2
        let top = 0.9 * nyquist
        let halfBand = pow(2, 1.0 / 96)
        let gridStep = pow(2, 1.0 / 48)
        let margin = Decibels.power(Self.comparedMarginDB)

        // Every 1/48-octave band wholly in [20 Hz, 0.9·Nyquist], with its sums.
        var bands: [(f: Double, sums: TransferGrid.Sums)] = []
        var f = 20 * halfBand
        while f * halfBand <= top { bands.append((f, grid.sums(centredOn: f))); f *= gridStep }
        // The passband gain: first over bands whose output is coherent with the reference 60 dB above its
        // noise (the output's level is then the reference's at the gain), then the bands it compares.
        func passband(_ notch: OctaveBand?, _ f: Double) -> Bool {
            guard let notch else { return true }
            return f * halfBand <= notch.lowerEdgeHz * pow(2, -1.0 / 12) || f / halfBand >= notch.upperEdgeHz * pow(2, 1.0 / 12)
        }
        func meanLevel(_ notch: OctaveBand?, where use: (TransferGrid.Sums) -> Bool) -> Double? {
            let levels = bands.filter { passband(notch, $0.f) && use($0.sums) }.map { $0.sums.levelDB }
            return levels.isEmpty ? nil : levels.reduce(0, +) / Double(levels.count)
        }
        let coherentGain = meanLevel(band) { $0.y >= margin * $0.noise } ?? 0
        func compared(_ s: TransferGrid.Sums, gainDB: Double) -> Bool { s.x * Decibels.power(gainDB) >= margin * s.noise }

        let notch: OctaveBand?
        if let band { notch = band } else {
            notch = try TransferGrid.detectBand(bands.map { ($0.f, $0.sums.levelDB - coherentGain, compared($0.sums, gainDB: coherentGain)) },
                                                depthDB: Self.detectionDepthDB)
        }
        // Without a notch the compared bands may still hold an attenuation (a low-pass): the gain is then
        // the coherent bands' alone.
        let gain = notch == nil ? coherentGain : meanLevel(notch) { compared($0, gainDB: coherentGain) } ?? coherentGain
        let passLevels = bands.filter { passband(notch, $0.f) && compared($0.sums, gainDB: gain) }
        let ripple = passLevels.map { abs($0.sums.levelDB - gain) }.max()
        let comparedPassband = Self.ranges(passLevels.map(\.f), step: gridStep)

        var depth: Double?, crossDepth: Double?, worst: Double?, noise: Double?
        var judged: [Double] = []
        if let notch {
            let centre = grid.sums(centredOn: notch.centreHz)
            if compared(centre, gainDB: gain) {
                depth = max(TransferGrid.floorDB, centre.levelDB - gain)
                crossDepth = max(TransferGrid.floorDB, grid.crossLevelDB(centredOn: notch.centreHz) - gain)
            }
            let innerLow = notch.lowerEdgeHz * pow(2, 1.0 / 24), innerHigh = notch.upperEdgeHz * pow(2, -1.0 / 24)
            var inside: [(f: Double, sums: TransferGrid.Sums)] = []
            f = innerLow * halfBand
            while f * halfBand <= innerHigh * (1 + 1e-12) { inside.append((f, grid.sums(centredOn: f))); f *= gridStep }
            if inside.isEmpty { inside = [(notch.centreHz, centre)] }
            for (f, sums) in inside where compared(sums, gainDB: gain) {
                judged.append(f)
                worst = max(worst ?? -.infinity, max(TransferGrid.floorDB, sums.coherentLevelDB - gain))
                noise = max(noise ?? -.infinity, max(TransferGrid.floorDB, sums.noiseLevelDB - gain))
            }
        }

        var curve: [NotchCheckReport.Point] = []
        f = 20
        let curveStep = pow(2, 1.0 / 24)
        while f <= 0.95 * nyquist {
            let sums = grid.sums(centredOn: f)
            curve.append(.init(frequencyHz: f, levelDB: max(TransferGrid.floorDB, sums.levelDB - gain),
                               compared: compared(sums, gainDB: gain)))
            f *= curveStep
        }

        return NotchCheckReport(band: notch, bandWasDetected: band == nil && notch != nil, passbandGainDB: gain,
                                depthDB: depth, crossSpectralDepthDB: crossDepth, worstInBandDB: worst,
                                inBandNoiseDB: noise, passbandRippleDB: ripple,
                                judgedInBandHz: Self.ranges(judged, step: gridStep), comparedPassbandHz: comparedPassband,
                                lagSamples: lag.whole, fineLagSamples: lag.fine, curve: curve)
    }

    /// Runs of consecutive 1/48-octave bands (centres `centres`, ascending, `step` apart) as Hz ranges
    /// from the first band's lower edge to the last one's upper edge.
    private static func ranges(_ centres: [Double], step: Double) -> [ClosedRange<Double>] {
        var runs: [ClosedRange<Double>] = []
        let half = step.squareRoot()
        for c in centres {
            if let last = runs.last, c / last.upperBound < half * 1.0001 {
                runs[runs.count - 1] = last.lowerBound...(c * half)
            } else {
                runs.append((c / half)...(c * half))
            }
        }
        return runs
    }

    /// Spectra of one Hann segment over the first `n` aligned frames, zero-padded to a power of two.
    private func shortSpectra(frames n: Int) -> (CrossSpectra, Int) {
        let size = WelchWindow.powerOfTwo(atLeast: n)
        let shortWindow = WelchWindow.hann(n)
        let (x, y) = (RealFFT(size: size), RealFFT(size: size))
        for (pending, fft) in [(referencePending, x), (outputPending, y)] {
            pending.withSamples { segment in
                fft.withSignal { s in
                    for i in 0..<n { s[i] = segment[i] * shortWindow[i] }
                    for i in n..<size { s[i] = 0 }
                }
            }
            fft.forward()
        }
        var spectra = CrossSpectra(bins: size / 2 + 1)
        x.withSpectrum { xs in y.withSpectrum { ys in spectra.accumulate(x: UnsafeBufferPointer(xs), y: UnsafeBufferPointer(ys)) } }
        return (spectra, size)
    }

    /// Peak of |Σ x[n]·y[n + k]| (k > 0: output later), and a parabola through it; (0, 0) for silence.
    private static func estimateLag(reference: [Float], output: [Float]) -> (whole: Int, fine: Double) {
        let n = reference.count
        guard n >= 2 else { return (0, 0) }
        let size = WelchWindow.powerOfTwo(atLeast: 2 * n)
        let x = RealFFT(size: size), y = RealFFT(size: size)
        for (samples, fft) in [(reference, x), (output, y)] {
            fft.withSignal { s in
                for i in 0..<n { s[i] = samples[i] }
                for i in n..<size { s[i] = 0 }
            }
            fft.forward()
        }
        // conj(X)·Y, into y's spectrum.
        x.withSpectrum { xs in
            y.withSpectrum { ys in
                for k in 0..<y.binCount {
                    let (xr, xi, yr, yi) = (xs[2 * k], xs[2 * k + 1], ys[2 * k], ys[2 * k + 1])
                    ys[2 * k] = xr * yr + xi * yi
                    ys[2 * k + 1] = xr * yi - xi * yr
                }
            }
        }
        y.inverse()
        return y.withSignal { r in
            func value(_ lag: Int) -> Double { Double(abs(r[(lag + size) % size])) }
            var best = 0, bestValue = 0.0
            for lag in -(n - 1)...(n - 1) {
                let v = value(lag)
                if v > bestValue { (best, bestValue) = (lag, v) }
            }
            guard bestValue > 0 else { return (0, 0) }
            let (l, c, h) = (value(best - 1), bestValue, value(best + 1))
            let denominator = l - 2 * c + h
            let offset = denominator < 0 ? min(0.5, max(-0.5, 0.5 * (l - h) / denominator)) : 0
            return (best, Double(best) + offset)
        }
    }
}
