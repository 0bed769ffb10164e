import ShadesDSP
import ShadesPlatform

/// Third-octave band levels of a spectrum, its fitted slope, and how far it strays from a straight line
/// and from an ideal colour f^−β.
///
/// Levels are 10·log10 of the power in each band (full scale² per band: a full-scale sine gives −3 dB in
/// its band), floored at `levelFloorDB`. The slope is that of the power spectral density in dB per
/// octave (band levels of constant-relative-width bands rise 3.0103 dB/octave faster): pink noise reads
/// −3.01 and brown −6.02. It is the least-squares line through the bands' mean-density levels against
/// log2 of their centres, over bands centred from 20 Hz to min(20 kHz, 0.45 × rate).
public struct SpectrumReport: Sendable, Encodable, Equatable {
    /// One third-octave band (IEC 61260 base-10 centres, edges centre·10^(±1/20)).
    public struct Band: Sendable, Encodable, Equatable {
        /// Exact centre frequency in Hz.
        public let centreHz: Double
        /// Power in the band in dB re full scale² (10·log10), floored at `SpectrumReport.levelFloorDB`.
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
    /// when the spectrum is noise-like (`colourFlatness` at least `noiseLikeFlatness`); nil for a tone,
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

/// Third-octave bands (IEC 61260, base 10): centre 1000·10^(n/10) Hz, edges centre·10^(±1/20).
package struct ThirdOctaveBand: Sendable, Equatable {
    /// Exact (not nominal) centre frequency, in Hz.
    package let centreHz: Double
    package var lowerEdgeHz: Double { centreHz * pow(10, -0.05) }
    package var upperEdgeHz: Double { centreHz * pow(10, 0.05) }

    /// The bands whose nominal centres lie in `range` (Hz), e.g. 20…20,000 gives the 31 audio bands
    /// (the exact centre of the "20 Hz" band is 19.95 Hz; bands are 26 % apart, so ±2 % is unambiguous).
    package static func bands(centredIn range: ClosedRange<Double>) -> [ThirdOctaveBand] {
        (-20...20).map { ThirdOctaveBand(centreHz: 1000 * pow(10, Double($0) / 10)) }
            .filter { $0.centreHz * 1.02 >= range.lowerBound && $0.centreHz / 1.02 <= range.upperBound }
    }
}

/// How far measured band powers stray from an ideal f^−β line, with the offset fitted.
package enum SpectralSlopeCheck {
    /// Power of f^−β integrated over [lower, upper] (any scale).
    package static func idealBandPower(beta: Double, lowerHz: Double, upperHz: Double) -> Double {
        if abs(beta - 1) < 1e-12 { return log(upperHz / lowerHz) }
        return (pow(upperHz, 1 - beta) - pow(lowerHz, 1 - beta)) / (1 - beta)
    }

    /// Per band: measured minus ideal level in dB, after removing the mean difference (fitted offset).
    package static func deviations(of spectrum: PowerSpectrum, beta: Double, bands: [ThirdOctaveBand]) -> [Double] {
        let raw = bands.map { band in
            Decibels.fromPower(spectrum.bandPower(from: band.lowerEdgeHz, to: band.upperEdgeHz))
                - Decibels.fromPower(idealBandPower(beta: beta, lowerHz: band.lowerEdgeHz, upperHz: band.upperEdgeHz))
        }
        let offset = raw.reduce(0, +) / Double(raw.count)
        return raw.map { $0 - offset }
    }
}
