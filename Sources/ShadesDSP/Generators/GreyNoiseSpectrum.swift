/// Grey noise: white noise shaped by the inverse of the A-weighting, so every band sounds about equally
/// loud (there is no single definition; DOMAIN.md). The boost is capped at +24 dB (reached below about
/// 100 Hz and near 20 kHz) and the spectrum ends below 10 Hz, so the bass does not run away.
package enum GreyNoiseSpectrum {
    /// Largest boost over the 1 kHz level, in dB.
    package static let maximumBoostDB = 24.0

    /// Linear magnitude of the shaping at `frequencyHz` (1 at 1 kHz).
    package static func magnitude(atFrequency frequencyHz: Double) -> Double {
        guard frequencyHz >= 10 else { return 0 }
        return Decibels.amplitude(min(maximumBoostDB, -AWeighting.analogResponseDB(frequencyHz: frequencyHz)))
    }
}
