import ShadesDSP
import ShadesRender

extension SpectralShape {
    /// The half-gain rule of `ear`'s thresholds in `audiogram` (dB HL: a calibrated or simulated audiogram).
    package static func halfGain(_ audiogram: Audiogram, ear: Ears, maximumGainDB: Double = SpectralShape.defaultMaximumGainDB,
                                 source: String? = nil) throws(ShadesError) -> SpectralShape {
        guard audiogram.scale == .hearingLevel else {
            throw ShadesError(parameter: .ear, value: ear.rawValue, problem: "has thresholds in dB re full scale, not dB HL",
                              allowed: "an audiogram in dB HL (measured through a headphone calibration) for the half-gain rule")
        }
        let points = try audiogram.someThresholds(ear: ear)
        var shape = halfGain(frequenciesHz: points.map(\.frequencyHz), thresholdsDBHL: points.map(\.thresholdDB), maximumGainDB: maximumGainDB)
        shape.rule = (shape.rule ?? "") + ", \(ear.rawValue) ear" + (source.map { " of \($0)" } ?? "")
        return shape
    }

}
