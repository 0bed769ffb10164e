import ShadesPlatform

/// The long-term average speech spectrum (LTASS) of Byrne et al. 1994, "An international comparison of
/// long-term average speech spectra", J. Acoust. Soc. Am. 96(4):2108–2120: the universal LTASS (male and
/// female talkers combined, 12 languages) in third-octave bands from 63 Hz to 16 kHz, dB SPL at an overall
/// level of 70 dB SPL (the 25 bands' powers sum to 70.03 dB). Hearing-aid sound generators offer it as
/// "speech noise" (ReSound's presets: high tone, white, speech, pink).
///
/// The noise's power spectral density is a curve through the band centres, linear in dB over log
/// frequency (``densityCurve``), whose power in each IEC 61260 third-octave band (edges centre·10^(±1/20))
/// equals the table's level to 0.001 dB: solved once by fixed-point iteration. It is constant from the
/// outer centres to the outer band edges (56.2 Hz and 17.8 kHz) and zero outside them (a stream's filter:
/// ``streamCurve``).
package enum SpeechSpectrum {
    /// Nominal band centres, Hz (exact centres 1000·10^(n/10), n = −12 … 12).
    package static let nominalCentresHz: [Double] = [63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250,
                                                     1600, 2000, 2500, 3150, 4000, 5000, 6300, 8000, 10_000, 12_500, 16_000]
    /// Byrne et al. 1994, the universal LTASS: third-octave band levels, dB SPL, one per centre.
    package static let bandLevelsDB: [Double] = [38.6, 43.5, 54.4, 57.7, 56.8, 60.2, 60.3, 59.0, 62.1, 62.1, 60.5, 56.8, 53.7, 53.0,
                                                 52.0, 48.7, 48.1, 46.8, 45.6, 44.5, 44.3, 43.7, 43.4, 41.3, 40.7]

    /// Exact band centres, Hz: 1000·10^(n/10).
    package static let centresHz: [Double] = (-12...12).map { 1000 * pow(10, Double($0) / 10) }
    /// Lowest and highest band edge, Hz: where the spectrum starts and ends.
    package static var lowestHz: Double { centresHz[0] * pow(10, -0.05) }
    package static var highestHz: Double { centresHz[centresHz.count - 1] * pow(10, 0.05) }

    /// Each band's level re the table's total (the power sum of its bands, 70.03 dB), dB.
    package static var relativeBandLevelsDB: [Double] {
        let total = Decibels.fromPower(bandLevelsDB.reduce(0) { $0 + Decibels.power($1) })
        return bandLevelsDB.map { $0 - total }
    }

    /// Power spectral density, dB re the table's unit per Hz, at the band centres: the curve whose band
    /// powers are the table's.
    package static let densityCurve: GainCurve = solveDensity()

    /// The density as a curve for a stream's shaping filter (``NotchDesign/init(shaping:sampleRate:smoothingHz:)``):
    /// ``densityCurve`` held to the outer band edges, −120 dB re its lowest node from 1 % beyond them.
    package static let streamCurve: GainCurve = {
        let (nodes, floor) = (densityCurve.gainsDB, densityCurve.gainsDB.min()! - 120)
        return GainCurve(frequenciesHz: [lowestHz / 1.01, lowestHz] + centresHz + [highestHz, highestHz * 1.01],
                         gainsDB: [floor, nodes[0]] + nodes + [nodes[nodes.count - 1], floor])
    }()

    /// Linear amplitude of the spectrum at `frequencyHz` (√density, arbitrary scale): 0 outside
    /// ``lowestHz`` … ``highestHz``.
    package static func magnitude(atFrequency frequencyHz: Double) -> Double {
        guard frequencyHz >= lowestHz, frequencyHz <= highestHz else { return 0 }
        return Decibels.amplitude(densityCurve.gainDB(atHz: frequencyHz))
    }

    /// Power of `curve` (dB per Hz) over each band, by the trapezoid rule on 400 log-spaced points per band.
    package static func bandPowers(_ curve: GainCurve) -> [Double] {
        centresHz.map { centre in
            let (low, high) = (centre * pow(10, -0.05), centre * pow(10, 0.05))
            let points = 400
            var power = 0.0
            var (previousF, previousP) = (low, Decibels.power(curve.gainDB(atHz: low)))
            for i in 1...points {
                let f = low * pow(high / low, Double(i) / Double(points))
                let p = Decibels.power(curve.gainDB(atHz: f))
                power += (f - previousF) * (p + previousP) / 2
                (previousF, previousP) = (f, p)
            }
            return power
        }
    }

    /// Starts from each band's mean density and corrects every node by its band's error until the largest is
    /// under 0.0001 dB (a band's power depends mostly on its own node, so this converges in a few dozen steps).
    private static func solveDensity() -> GainCurve {
        var density = centresHz.indices.map { i in
            bandLevelsDB[i] - Decibels.fromPower(centresHz[i] * (pow(10, 0.05) - pow(10, -0.05)))
        }
        for _ in 0..<200 {
            let powers = bandPowers(GainCurve(frequenciesHz: centresHz, gainsDB: density))
            let errors = powers.indices.map { bandLevelsDB[$0] - Decibels.fromPower(powers[$0]) }
            if errors.allSatisfy({ abs($0) < 1e-4 }) { break }
            for i in density.indices { density[i] += errors[i] }
        }
        return GainCurve(frequenciesHz: centresHz, gainsDB: density)
    }
}

/// "High-tone" noise: white noise with its low frequencies removed, flat above a corner and falling by a
/// slope in dB per octave below it. Hearing-aid tinnitus sound generators offer it as a preset beside
/// white, pink and speech noise (ReSound Aventa 3.6: "High Tone Noise", Piskosz 2014, GN ReSound blog),
/// for tinnitus and hearing loss in the high frequencies; no manufacturer publishes its curve, so this is
/// the definition: power spectral density 1 at and above `cornerHz`, (f / cornerHz)^(slope / 3.0103)
/// below it (`slopeDBPerOctave` dB per octave).
package struct HighToneSpectrum: Sendable, Equatable {
    /// Where the flat part begins, Hz.
    package let cornerHz: Double
    /// Fall below the corner, dB per octave.
    package let slopeDBPerOctave: Double

    package init(cornerHz: Double, slopeDBPerOctave: Double) { (self.cornerHz, self.slopeDBPerOctave) = (cornerHz, slopeDBPerOctave) }

    /// The level of the power spectral density re the flat part at `frequencyHz`, dB (0 at and above the
    /// corner).
    package func levelDB(atFrequency frequencyHz: Double) -> Double {
        frequencyHz >= cornerHz ? 0 : slopeDBPerOctave * log2(frequencyHz / cornerHz)
    }

    /// The shape as a curve for a stream's shaping filter: the slope from 1 Hz to the corner, flat above.
    package var curve: GainCurve {
        GainCurve(frequenciesHz: [1, cornerHz], gainsDB: [levelDB(atFrequency: 1), 0])
    }

    /// Linear amplitude at `frequencyHz` (1 in the flat part, 0 at DC).
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        frequencyHz > 0 ? Decibels.amplitude(levelDB(atFrequency: frequencyHz)) : 0
    }
}
