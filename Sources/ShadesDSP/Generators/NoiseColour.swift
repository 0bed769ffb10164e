/// A noise colour: power spectral density ∝ f^−β.
public struct NoiseColour: Sendable, Equatable, Hashable, Encodable, CustomStringConvertible {
    /// Spectral exponent β in [−2, 2]: PSD ∝ f^−β, a slope of −3.0103·β dB per octave.
    public let beta: Double

    /// β must lie in `allowedBeta`.
    public init(beta: Double) throws(ShadesError) {
        try Parameter.beta.check(beta)
        self.beta = beta
    }

    private init(exactly beta: Double) { self.beta = beta }

    /// The allowed range of β.
    package static let allowedBeta: ClosedRange<Double> = -2...2
    public static let white = NoiseColour(exactly: 0)
    public static let pink = NoiseColour(exactly: 1)
    public static let brown = NoiseColour(exactly: 2)
    public static let blue = NoiseColour(exactly: -1)
    public static let violet = NoiseColour(exactly: -2)

    /// The named colours, by name.
    package static let named: [(name: String, colour: NoiseColour)] =
        [("white", .white), ("pink", .pink), ("brown", .brown), ("blue", .blue), ("violet", .violet)]

    /// Slope of the PSD in dB per octave.
    package var slopeDecibelsPerOctave: Double { -3.010_299_956_639_812 * beta }

    public var description: String {
        Self.named.first { $0.colour == self }?.name ?? "noise (beta \(beta))"
    }
}

extension Parameter {
    /// Spectral exponent β of coloured noise (PSD ∝ f^−β): ``NoiseColour/allowedBeta``.
    package static let beta = Parameter(.beta, range: ParameterRange(NoiseColour.allowedBeta))
}
