import ShadesPlatform

/// How a processed signal's spectrum compares with its reference's around a notch.
///
/// Transfer levels are 10·log10(S_yy/S_xx) (|H| from the power ratio, see ``NotchCheckAccumulator``),
/// in 1/48-octave bands (ratio of the bands' summed powers, at least the nearest bin), relative to the
/// passband gain and floored at −300 dB.
public struct NotchCheckReport: Sendable, Encodable, Equatable {
    /// The notch checked: as given, or found from the transfer curve (see ``bandWasDetected``).
    public let band: OctaveBand
    /// True if no band was given and it was found from the curve: the deepest point of the curve between
    /// 20 Hz and 0.9 × Nyquist, and the −3 dB crossings either side of it as edges.
    public let bandWasDetected: Bool
    /// Mean level (dB) of the passband points of the curve (from 20 Hz to 0.9 × Nyquist, outside the notch
    /// and 1/12 octave around each edge): the output's gain. Every other level is relative to it.
    public let passbandGainDB: Double
    /// Level of the 1/48-octave band centred on the notch centre, in dB (negative: attenuation).
    public let depthDB: Double
    /// The same band measured with the cross-spectral estimate |S_xy|/S_xx (20·log10, relative to the
    /// passband gain), for comparison: it reads below ``depthDB`` when the output carries noise
    /// uncorrelated with the reference, and is biased by a lag between the signals.
    package let crossSpectralDepthDB: Double
    /// The highest level (least attenuation) among 1/48-octave bands wholly inside the notch less its outer
    /// 1/24 octave at each edge, in dB (the centre band if no band fits).
    public let worstInBandDB: Double
    /// Largest |level| of 1/48-octave bands wholly between 20 Hz and 0.9 × Nyquist, outside the notch and
    /// 1/12 octave around each edge, in dB.
    public let passbandRippleDB: Double
    /// Lag of the output behind the reference, in whole samples (positive: the output is later), from the
    /// peak of |cross-correlation| over the first ``NotchCheckAccumulator/lagSearchSeconds``.
    package let lagSamples: Int
    /// The lag refined by a parabola through the correlation peak, in samples.
    package let fineLagSamples: Double
    /// Transfer curve on a log grid, 24 points per octave from 20 Hz to 0.95 × Nyquist: level in dB of
    /// the 1/48-octave band centred on each frequency.
    package let curve: [Point]

    /// One point of the transfer curve.
    package struct Point: Sendable, Encodable, Equatable {
        /// Hz.
        package let frequencyHz: Double
        /// dB relative to the passband gain.
        package let levelDB: Double
    }
}

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
        if let band, band.lowerEdgeHz >= sampleRate / 2 {
            throw Parameter.bandCentre.outOfRange(
                band.centreHz, range: .above(0, below: sampleRate / 2 * pow(2, band.widthOctaves / 2), unit: .hertz),
                note: "so the band starts below Nyquist (\(formatLimit(sampleRate / 2)) Hz)")
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

    /// The notch report for everything added so far.
    ///
    /// Throws for fewer than ``minimumFrameCount`` aligned frames, a silent reference or a silent output,
    /// or a band that cannot be found (no point of the curve 3 dB below the passband).
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
        let notch: OctaveBand
        if let band { notch = band } else { notch = try grid.detectBand(from: 20, to: top) }

        // Passband: bands wholly in [20 Hz, lower·2^(−1/12)] ∪ [upper·2^(1/12), 0.9·Nyquist].
        let passLow = notch.lowerEdgeHz * pow(2, -1.0 / 12), passHigh = notch.upperEdgeHz * pow(2, 1.0 / 12)
        let gridStep = pow(2, 1.0 / 48)
        var passLevels: [Double] = []
        var f = 20 * halfBand
        while f * halfBand <= top {
            if f * halfBand <= passLow || f / halfBand >= passHigh { passLevels.append(grid.levelDB(centredOn: f)) }
            f *= gridStep
        }
        let gain = passLevels.isEmpty ? 0 : passLevels.reduce(0, +) / Double(passLevels.count)
        let ripple = passLevels.map { abs($0 - gain) }.max() ?? 0

        let depth = grid.levelDB(centredOn: notch.centreHz) - gain
        let crossDepth = grid.crossLevelDB(centredOn: notch.centreHz) - gain
        let innerLow = notch.lowerEdgeHz * pow(2, 1.0 / 24), innerHigh = notch.upperEdgeHz * pow(2, -1.0 / 24)
        var worst = depth
        f = innerLow * halfBand
        while f * halfBand <= innerHigh * (1 + 1e-12) {
            worst = max(worst, grid.levelDB(centredOn: f) - gain)
            f *= gridStep
        }

        var curve: [NotchCheckReport.Point] = []
        f = 20
        let curveStep = pow(2, 1.0 / 24)
        while f <= 0.95 * nyquist {
            curve.append(.init(frequencyHz: f, levelDB: max(TransferGrid.floorDB, grid.levelDB(centredOn: f) - gain)))
            f *= curveStep
        }

        return NotchCheckReport(band: notch, bandWasDetected: band == nil, passbandGainDB: gain,
                                depthDB: max(TransferGrid.floorDB, depth),
                                crossSpectralDepthDB: max(TransferGrid.floorDB, crossDepth),
                                worstInBandDB: max(TransferGrid.floorDB, worst), passbandRippleDB: ripple,
                                lagSamples: lag.whole, fineLagSamples: lag.fine, curve: curve)
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

/// A first-in first-out queue of samples (append at the end, drop from the front).
struct SampleFIFO: Sendable {
    private var storage: [Float] = []
    private var start = 0

    /// Samples waiting.
    var count: Int { storage.count - start }

    mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        if start > 0 && start >= storage.count / 2 {
            storage.removeFirst(start)   // compact: amortised O(1) per sample
            start = 0
        }
        storage.append(contentsOf: samples)
    }

    mutating func removeFirst(_ n: Int) {
        precondition(n <= count)
        start += n
    }

    /// Lends the waiting samples, oldest first.
    func withSamples<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start...])) }
    }
}

/// Summed Welch periodograms: Σ|X|², Σ|Y|², Σ conj(X)·Y per bin.
struct CrossSpectra: Sendable {
    var xx: [Double], yy: [Double], xyRe: [Double], xyIm: [Double]

    init(bins: Int) {
        xx = [Double](repeating: 0, count: bins)
        (yy, xyRe, xyIm) = (xx, xx, xx)
    }

    /// Adds one segment's interleaved (re, im) spectra.
    mutating func accumulate(x: UnsafeBufferPointer<Float>, y: UnsafeBufferPointer<Float>) {
        let bins = xx.count
        xx.withUnsafeMutableBufferPointer { xx in
            yy.withUnsafeMutableBufferPointer { yy in
                xyRe.withUnsafeMutableBufferPointer { re in
                    xyIm.withUnsafeMutableBufferPointer { im in
                        for k in 0..<bins {
                            let (xr, xi) = (Double(x[2 * k]), Double(x[2 * k + 1]))
                            let (yr, yi) = (Double(y[2 * k]), Double(y[2 * k + 1]))
                            xx[k] += xr * xr + xi * xi
                            yy[k] += yr * yr + yi * yi
                            re[k] += xr * yr + xi * yi
                            im[k] += xr * yi - xi * yr
                        }
                    }
                }
            }
        }
    }
}

/// Band levels of the transfer from summed spectra.
private struct TransferGrid {
    let spectra: CrossSpectra
    let binWidthHz: Double
    static let floorDB = -300.0

    /// The bins with centres in [f·2^(−1/96), f·2^(1/96)), or the nearest one.
    private func bins(centredOn f: Double) -> ClosedRange<Int> {
        let last = spectra.xx.count - 1
        let low = Int((f * pow(2, -1.0 / 96) / binWidthHz).rounded(.up))
        let high = Int((f * pow(2, 1.0 / 96) / binWidthHz).rounded(.up)) - 1
        if low <= high, low >= 0, high <= last { return low...high }
        let nearest = min(last, max(0, Int((f / binWidthHz).rounded())))
        return nearest...nearest
    }

    /// 10·log10(ΣS_yy/ΣS_xx) over the 1/48-octave band centred on `f` (Hz), absolute (not gain-relative).
    func levelDB(centredOn f: Double) -> Double {
        var x = 0.0, y = 0.0
        for k in bins(centredOn: f) { x += spectra.xx[k]; y += spectra.yy[k] }
        return Self.ratioDB(y, x)
    }

    /// 20·log10(|ΣS_xy|/ΣS_xx) over the same band.
    func crossLevelDB(centredOn f: Double) -> Double {
        var x = 0.0, re = 0.0, im = 0.0
        for k in bins(centredOn: f) { x += spectra.xx[k]; re += spectra.xyRe[k]; im += spectra.xyIm[k] }
        return Self.ratioDB(re * re + im * im, x * x)
    }

    private static func ratioDB(_ numerator: Double, _ denominator: Double) -> Double {
        if numerator <= 0 { return floorDB }
        if denominator <= 0 { return -floorDB }
        return max(floorDB, min(-floorDB, Decibels.fromPower(numerator / denominator)))
    }

    /// The deepest 1/48-octave point between `low` and `high` Hz, with its −3 dB edges (relative to the
    /// median level of the range).
    func detectBand(from low: Double, to high: Double) throws(ShadesError) -> OctaveBand {
        var frequencies: [Double] = [], levels: [Double] = []
        var f = low
        while f <= high { frequencies.append(f); levels.append(levelDB(centredOn: f)); f *= pow(2, 1.0 / 48) }
        let reference = levels.sorted()[levels.count / 2]
        guard let deepest = levels.indices.min(by: { levels[$0] < levels[$1] }), levels[deepest] < reference - 3 else {
            throw ShadesError(.bandCentre, .missing, allowed: AllowedValues(
                note: "a notch found: an output at least 3 dB below the reference somewhere from \(Int(low)) to \(Int(high)) Hz, or a given band"))
        }
        var lower = deepest, upper = deepest
        while lower > 0, levels[lower - 1] < reference - 3 { lower -= 1 }
        while upper < levels.count - 1, levels[upper + 1] < reference - 3 { upper += 1 }
        // Edges: interpolate the −3 dB crossing in log frequency between the grid points either side.
        func crossing(_ inside: Int, _ outside: Int) -> Double {
            guard outside >= 0, outside < levels.count else { return frequencies[inside] }
            let t = (reference - 3 - levels[inside]) / (levels[outside] - levels[inside])
            return frequencies[inside] * pow(frequencies[outside] / frequencies[inside], min(1, max(0, t)))
        }
        let lowerEdge = crossing(lower, lower - 1), upperEdge = crossing(upper, upper + 1)
        return try OctaveBand(centreHz: (lowerEdge * upperEdge).squareRoot(),
                             widthOctaves: max(1.0 / 48, log2(upperEdge / lowerEdge)))
    }
}
