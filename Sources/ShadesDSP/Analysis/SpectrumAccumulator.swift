import ShadesPlatform

/// Welch power spectrum of one channel, accumulated block by block (a file of any length in bounded
/// memory).
///
/// Hann-windowed segments of ``segmentLength(sampleRate:)`` frames overlapping by half; each segment's
/// periodogram is summed in Double and ``result()`` normalises the sum to a one-sided density, exactly as
/// ``PowerSpectrum/welch(_:sampleRate:segmentLength:)`` does for a whole buffer. The segments do not
/// depend on how the channel was cut into blocks, so neither does the result (to the bit).
///
/// - The last frames after the final whole segment (fewer than half a segment, under 0.7 s) are left
///   out, as in any Welch estimate.
/// - A channel shorter than one segment is analysed as one Hann-windowed segment of its whole length,
///   zero-padded to the next power of two (bin width rate / that size). At least
///   ``minimumFrameCount`` frames are needed.
///
/// Memory: about 1.3 MB at 48 kHz (one segment, its window, the FFT and the Double sum). Speed: one
/// 65,536-point real FFT per 32,768 frames: 10 minutes of stereo 48 kHz in 0.22 s on one core.
package struct SpectrumAccumulator: Sendable {
    /// Sample rate in Hz.
    package let sampleRate: Double
    /// Segment length in frames (a power of two).
    package var segmentLength: Int { queue.length }
    /// Frames added so far.
    package private(set) var frameCount = 0
    /// Whole segments analysed so far.
    package private(set) var segmentCount = 0

    /// Fewest frames ``result()`` accepts.
    package static let minimumFrameCount = 16

    private var queue: HalfOverlapQueue
    private let window: [Float]
    private let windowPower: Double
    private var fft: RealFFT
    private var powerSum: [Double]

    /// - Parameters:
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - segmentLength: frames per segment, a power of two from 256 to 2²²; nil (the default) picks
    ///     ``segmentLength(sampleRate:)``.
    package init(sampleRate: Double, segmentLength: Int? = nil) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        let length = segmentLength ?? Self.segmentLength(sampleRate: sampleRate)
        guard length & (length - 1) == 0 else {
            throw Parameter.segmentLength.outOfRange(Double(length))
        }
        try Parameter.segmentLength.check(Double(length))
        self.sampleRate = sampleRate
        queue = HalfOverlapQueue(length: length)
        window = WelchWindow.hann(length)
        windowPower = WelchWindow.power(window)
        fft = RealFFT(size: length)
        powerSum = [Double](repeating: 0, count: length / 2 + 1)
    }

    /// The segment length for `sampleRate`: the power of two nearest rate / 0.732 Hz, so the resolution
    /// stays near 0.73 Hz (65,536 at 44.1 and 48 kHz, 131,072 at 96 kHz, 8,192 at 8 kHz).
    package static func segmentLength(sampleRate: Double) -> Int {
        let exponent = log2(65_536 * sampleRate / 48_000).rounded()
        return 1 << Int(min(22, max(8, exponent)))
    }

    /// Adds the next frames of the channel (any count, including zero).
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        frameCount += samples.count
        var offset = 0
        while offset < samples.count {
            offset = queue.fill(from: samples, at: offset)
            if queue.isFull {
                analyseSegment()
                queue.slideHalf()
            }
        }
    }

    private mutating func analyseSegment() {
        if !isKnownUniquelyReferenced(&fft) { fft = RealFFT(size: queue.length) }  // a copy owns its scratch
        let length = queue.length
        queue.withSegment { segment in
            window.withUnsafeBufferPointer { w in
                fft.withSignal { s in
                    for i in 0..<length { s[i] = segment[i] * w[i] }
                }
            }
        }
        fft.forward()
        fft.addBinPowers(to: &powerSum)
        segmentCount += 1
    }

    /// The one-sided power spectral density (full scale² per Hz) of everything added so far.
    ///
    /// Throws for an empty channel or one under ``minimumFrameCount`` frames.
    package func result() throws(ShadesError) -> PowerSpectrum {
        if segmentCount > 0 {
            return WelchWindow.density(sum: powerSum, segments: segmentCount, windowPower: windowPower,
                                       size: queue.length, sampleRate: sampleRate)
        }
        try WelchWindow.checkShort(frameCount: frameCount, minimum: Self.minimumFrameCount, parameter: .signal)
        // Shorter than one segment: one Hann window over all of it, zero-padded to a power of two.
        let n = frameCount
        let size = WelchWindow.powerOfTwo(atLeast: n)
        let shortWindow = WelchWindow.hann(n)
        let shortFFT = RealFFT(size: size)
        queue.withSegment { segment in
            shortFFT.withSignal { s in
                for i in 0..<n { s[i] = segment[i] * shortWindow[i] }
                for i in n..<size { s[i] = 0 }
            }
        }
        shortFFT.forward()
        var sum = [Double](repeating: 0, count: shortFFT.binCount)
        shortFFT.addBinPowers(to: &sum)
        return WelchWindow.density(sum: sum, segments: 1, windowPower: WelchWindow.power(shortWindow),
                                   size: size, sampleRate: sampleRate)
    }
}

extension PowerSpectrum {
    /// The bin-by-bin mean of spectra with the same bins (e.g. the channels of a file); nil if `spectra`
    /// is empty or their bins differ.
    public static func average(_ spectra: [PowerSpectrum]) -> PowerSpectrum? {
        guard let first = spectra.first,
              spectra.allSatisfy({ $0.binWidthHz == first.binWidthHz && $0.density.count == first.density.count })
        else { return nil }
        var density = first.density
        for spectrum in spectra.dropFirst() {
            for k in density.indices { density[k] += spectrum.density[k] }
        }
        let scale = 1 / Double(spectra.count)
        return PowerSpectrum(binWidthHz: first.binWidthHz, density: density.map { $0 * scale })
    }
}

// MARK: - Spectrum report

/// Third-octave band levels of a spectrum, its fitted slope, and how far it strays from a straight line
/// and from an ideal colour f^−β.
///
/// Levels are 10·log10 of the power in each band (full scale² per band: a full-scale sine gives −3 dB in
/// its band), floored at ``levelFloorDB``. The slope is that of the power spectral density in dB per
/// octave (band levels of constant-relative-width bands rise 3.0103 dB/octave faster): pink noise reads
/// −3.01 and brown −6.02. It is the least-squares line through the bands' mean-density levels against
/// log2 of their centres, over bands centred from 20 Hz to min(20 kHz, 0.45 × rate).
public struct SpectrumReport: Sendable, Encodable, Equatable {
    /// One third-octave band (IEC 61260 base-10 centres, edges centre·10^(±1/20)).
    public struct Band: Sendable, Encodable, Equatable {
        /// Exact centre frequency in Hz.
        public let centreHz: Double
        /// Power in the band in dB re full scale² (10·log10), floored at ``SpectrumReport/levelFloorDB``.
        public let levelDB: Double
        /// Level minus the fitted line, in dB; nil outside the fitted range.
        package let fitDeviationDB: Double?
        /// Level minus the ideal f^−β band level (offset fitted over the fitted range), in dB; nil outside
        /// the fitted range or without an expected colour.
        package let idealDeviationDB: Double?
    }

    /// Bands centred from 20 Hz to 20 kHz whose upper edge is at or below Nyquist.
    public let bands: [Band]
    /// Centre frequencies (Hz) of the lowest and highest band in the fit.
    package let fitLowerHz: Double
    package let fitUpperHz: Double
    /// Fitted slope of the power spectral density in dB per octave.
    package let slopeDecibelsPerOctave: Double
    /// The band deviation from the fitted line with the largest magnitude (signed), in dB.
    package let largestFitDeviationDB: Double
    /// β of the fitted slope (slope / −3.0103): PSD ∝ f^−β.
    public let estimatedBeta: Double
    /// The named colour whose β is nearest ``estimatedBeta`` ("white", "pink", "brown", "blue", "violet"),
    /// when the spectrum is noise-like (``colourFlatness`` at least ``noiseLikeFlatness``); nil for a tone,
    /// music or a notched or band-limited noise, which have a slope but no colour.
    public let nearestColourName: String?
    /// Spectral flatness of the fitted third-octave bands around the fitted power law: the geometric over
    /// the arithmetic mean of each band's power divided by the line's, 1 for a pure power law (a noise
    /// colour), lower when a few bands hold the power (a 1 kHz tone: under 0.1; music: about 0.5).
    package let colourFlatness: Double
    /// β of the colour the spectrum was checked against, if any.
    package let expectedBeta: Double?
    /// The band deviation from the ideal f^−β line (offset fitted) with the largest magnitude (signed),
    /// in dB; nil without an expected colour.
    public let largestIdealDeviationDB: Double?

    /// Least ``colourFlatness`` of a noise-like spectrum: band deviations from the line of about ±2 dB
    /// (lognormal: flatness exp(−σ²/2) with σ in nepers); a minute of any colour reads above 0.99.
    package static let noiseLikeFlatness = 0.9

    /// Level given to bands with no power at all, in dB.
    package static let levelFloorDB = -300.0

    /// - Parameters:
    ///   - spectrum: a one-sided PSD (e.g. ``SpectrumAccumulator/result()``, or the channels' average).
    ///   - sampleRate: Hz, 8,000 … 192,000 (the rate of the analysed signal).
    ///   - expected: the colour to check the band levels against, if any.
    /// - Throws: if the spectrum has no power in the fitted range ("is silent").
    package init(spectrum: PowerSpectrum, sampleRate: Double, expected: NoiseColour? = nil) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        let nyquist = sampleRate / 2
        // Nominal centres 20 Hz … 20 kHz (exact centres 19.95 Hz … 19.95 kHz).
        let all = ThirdOctaveBand.bands(centredIn: 19.5...20_500).filter { $0.upperEdgeHz <= nyquist * (1 + 1e-12) }
        let fitTop = min(20_000, 0.45 * sampleRate)
        let fitted = all.filter { $0.centreHz <= fitTop * 1.0001 }
        let powers = all.map { spectrum.bandPower(from: $0.lowerEdgeHz, to: $0.upperEdgeHz) }
        guard fitted.count >= 2, powers.prefix(fitted.count).contains(where: { $0 > 0 }) else {
            throw ShadesError(.signal, .other("is silent"), value: .text("spectrum"),
                              allowed: AllowedValues(note: "a signal with power between 20 Hz and \(Int(fitTop)) Hz"))
        }
        let levels = powers.map { max(Self.levelFloorDB, Decibels.fromPower($0)) }

        // Least squares of the mean-density level against octaves.
        let x = fitted.map { log2($0.centreHz / 1000) }
        let y = fitted.indices.map { levels[$0] - Decibels.fromPower(fitted[$0].upperEdgeHz - fitted[$0].lowerEdgeHz) }
        let meanX = x.reduce(0, +) / Double(x.count), meanY = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0, sxx = 0.0
        for i in x.indices { sxy += (x[i] - meanX) * (y[i] - meanY); sxx += (x[i] - meanX) * (x[i] - meanX) }
        let slope = sxy / sxx
        let fitDeviations = x.indices.map { y[$0] - (meanY + slope * (x[$0] - meanX)) }
        let idealDeviations = expected.map { SpectralSlopeCheck.deviations(of: spectrum, beta: $0.beta, bands: fitted) }

        bands = all.indices.map { i in
            Band(centreHz: all[i].centreHz, levelDB: levels[i],
                 fitDeviationDB: i < fitted.count ? fitDeviations[i] : nil,
                 idealDeviationDB: i < fitted.count ? idealDeviations?[i] : nil)
        }
        fitLowerHz = fitted.first!.centreHz
        fitUpperHz = fitted.last!.centreHz
        slopeDecibelsPerOctave = slope
        largestFitDeviationDB = Self.largestMagnitude(fitDeviations)
        let nearest = Self.nearestNamedColour(slopeDecibelsPerOctave: slope)
        estimatedBeta = nearest.beta
        let ratios = fitDeviations.map { Decibels.power($0) }
        colourFlatness = exp(ratios.map { log($0) }.reduce(0, +) / Double(ratios.count)) / (ratios.reduce(0, +) / Double(ratios.count))
        nearestColourName = colourFlatness >= Self.noiseLikeFlatness ? nearest.name : nil
        expectedBeta = expected?.beta
        largestIdealDeviationDB = idealDeviations.map(Self.largestMagnitude)
    }

    /// β for a PSD slope (slope / −3.0103 dB per octave) and the named colour nearest it.
    package static func nearestNamedColour(slopeDecibelsPerOctave slope: Double) -> (beta: Double, name: String, colour: NoiseColour) {
        let beta = slope / NoiseColour.pink.slopeDecibelsPerOctave
        let nearest = NoiseColour.named.min { abs($0.colour.beta - beta) < abs($1.colour.beta - beta) }!
        return (beta, nearest.name, nearest.colour)
    }

    private static func largestMagnitude(_ values: [Double]) -> Double {
        values.max { abs($0) < abs($1) } ?? 0
    }
}

// MARK: - Welch segmenting shared by the accumulators

/// Collects one channel's samples into segments of `length` that overlap by half, whatever the block
/// sizes fed.
struct HalfOverlapQueue: Sendable {
    let length: Int
    private var pending: [Float]
    /// Samples in `pending` (the segment is complete at `length`).
    private(set) var filled = 0

    init(length: Int) {
        precondition(length >= 2 && length % 2 == 0)
        self.length = length
        pending = [Float](repeating: 0, count: length)
    }

    var isFull: Bool { filled == length }

    /// Copies samples from `offset` on until the segment is full or the input ends; returns the new offset.
    mutating func fill(from samples: UnsafeBufferPointer<Float>, at offset: Int) -> Int {
        let count = min(length - filled, samples.count - offset)
        guard count > 0 else { return offset }
        let start = filled
        pending.withUnsafeMutableBufferPointer { p in
            (p.baseAddress! + start).update(from: samples.baseAddress! + offset, count: count)
        }
        filled += count
        return offset + count
    }

    /// Keeps the second half of a full segment as the first half of the next.
    mutating func slideHalf() {
        let half = length / 2
        pending.withUnsafeMutableBufferPointer { p in
            p.baseAddress!.update(from: p.baseAddress! + half, count: half)
        }
        filled = half
    }

    /// Lends the `filled` samples collected.
    func withSegment<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try pending.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<filled])) }
    }
}

/// Window and normalisation of the Welch estimates (the same as ``PowerSpectrum/welch``).
enum WelchWindow {
    /// Periodic Hann window of `n` samples: 0.5 − 0.5·cos(2πi/n).
    static func hann(_ n: Int) -> [Float] {
        (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
    }

    /// Σw² in Double.
    static func power(_ window: [Float]) -> Double {
        window.reduce(0.0) { $0 + Double($1) * Double($1) }
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var size = 2
        while size < n { size *= 2 }
        return size
    }

    /// Throws unless `frameCount` ≥ `minimum`.
    static func checkShort(frameCount: Int, minimum: Int, parameter: ParameterID) throws(ShadesError) {
        if frameCount < minimum {
            throw ShadesError(parameter, .other(frameCount == 0 ? "is empty" : "is too short"), value: .number(Double(frameCount), .frames),
                              allowed: AllowedValues(range: .atLeast(Double(minimum), unit: .frames)))
        }
    }

    /// One-sided density from summed periodograms |X_k|² of `segments` windowed segments of FFT `size`.
    static func density(sum: [Double], segments: Int, windowPower: Double, size: Int, sampleRate: Double) -> PowerSpectrum {
        let scale = 1 / (Double(segments) * windowPower * sampleRate)
        let density = sum.indices.map { k in
            (k == 0 || k == size / 2 ? 1.0 : 2.0) * sum[k] * scale
        }
        return PowerSpectrum(binWidthHz: sampleRate / Double(size), density: density)
    }
}
