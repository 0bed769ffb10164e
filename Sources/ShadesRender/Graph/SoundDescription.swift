import ShadesDSP

/// What to render: a source and its own parameters (duration, rate, level … are in ``RenderRequest``).
public enum SoundDescription: Sendable, Equatable, Codable {
    /// Noise of PSD ∝ f^−β.
    case noise(colour: NoiseColour, distribution: WhiteDistribution)
    /// A pure tone.
    case tone(frequencyHz: Double)
    /// Gaussian noise limited to the band centreHz·2^(±width/2), geometrically centred.
    case narrowBandNoise(centreHz: Double, widthOctaves: Double)
    /// Grey noise: perceptually flat, shaped by the inverse A-weighting (see `GreyNoise`); made by FFT
    /// synthesis over the whole file.
    case grey

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
        }
    }
}
