import ShadesDSP

/// A generator of a ``Sound``: a source and its own parameters (duration, rate, level … are the
/// ``RenderRequest``'s).
public enum Generator: Sendable, Equatable, Codable {
    /// Noise of PSD ∝ f^−β.
    case noise(colour: NoiseColour, distribution: WhiteDistribution)
    /// A pure tone.
    case tone(frequencyHz: Double)
    /// Gaussian noise limited to the band centreHz·2^(±width/2), geometrically centred.
    case narrowBandNoise(centreHz: Double, widthOctaves: Double)
    /// Grey noise: perceptually flat, shaped by the inverse A-weighting (see `GreyNoise`); made by FFT
    /// synthesis over the whole file.
    case grey
    /// Acoustic coordinated reset: four tones around the tinnitus frequency in a seeded order per cycle
    /// (Tass et al. 2012; Adamchic et al. 2017). The level is the RMS of the whole file, silent cycles included.
    case coordinatedReset(CoordinatedResetPattern)
    /// Spectral-ripple modulated harmonic complexes in 4-s segments (Yukhnovich et al. 2025). Each whole
    /// segment has the asked RMS; the file's RMS is the asked level.
    case spectralRipple(SpectralRipple)

    /// Whether a loop of it is synthesised over its whole length with its spectrum shaped exactly (noise of
    /// any colour, grey noise): a spectral shape then keeps the seam.
    var shapesLoopExactly: Bool {
        switch self {
        case .noise, .grey: return true
        default: return false
        }
    }

    /// Short text for comments and messages, e.g. "pink (beta 1)" or "tone 6000 Hz".
    public var summary: String {
        switch self {
        case .noise(let colour, let distribution):
            let name = NoiseColour.named.first { $0.colour == colour }?.name ?? "noise"
            return "\(name) beta=\(formatNumber(colour.beta))" + (colour.beta == 0 ? " distribution=\(distribution.rawValue)" : "")
        case .tone(let frequencyHz):
            return "tone frequency=\(formatNumber(frequencyHz))Hz"
        case .narrowBandNoise(let centreHz, let widthOctaves):
            return "nbn frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct"
        case .grey:
            return "grey"
        case .coordinatedReset(let p):
            return "cr frequency=\(formatNumber(p.tinnitusFrequencyHz))Hz tones=\(p.toneSet.rawValue)"
                + " tone_length=\(formatNumber((p.toneSeconds ?? p.slotSeconds) * 1000))ms ramp=\(formatNumber(p.rampSeconds * 1000))ms"
                + " cycle_rate=\(formatNumber(p.cycleRateHz))Hz on=\(p.onCycles) off=\(p.offCycles)"
                + (p.toneGainsDB.map { " tone_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
        case .spectralRipple(let r):
            return "ripple frequency=\(formatNumber(r.tinnitusFrequencyHz))Hz condition=\(r.condition.rawValue)"
                + (r.sham ? " sham" : "") + " octave=\(formatNumber(r.modulatedOctaveHz.lowerBound.rounded()))-\(formatNumber(r.modulatedOctaveHz.upperBound.rounded()))Hz"
                + (r.bandGainsDB.map { " band_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
        }
    }
}
