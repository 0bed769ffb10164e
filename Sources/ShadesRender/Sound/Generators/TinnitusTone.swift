import ShadesDSP

/// Tonal tinnitus, the first of the five quality clusters (tonal, steady noise, pulsatile, low-frequency
/// fluctuating, high-frequency fluctuating: PMC8060060): a tone at `frequencyHz` with optional harmonics at
/// 2f, 3f … each `harmonicGainsDB` re the fundamental (ringing, whistling; a buzzing tone with harmonics).
/// One signal (diotic in stereo), the tones summed at unit peak over the fundamental and brought to the level
/// in expectation; a file is measured. In a loop the frequency moves to whole cycles, and so do the harmonics.
package struct TinnitusTone: GeneratorKind {
    /// The fundamental, Hz.
    package var frequencyHz: Double
    /// Gains of the 2nd, 3rd … harmonics re the fundamental, dB (nil: a pure tone).
    package var harmonicGainsDB: [Double]?

    package static let names = ["tinnitus-tone"]
    package static let help = "tinnitus-tone: tonal tinnitus, a tone at --frequency with --harmonics (gains of 2f, 3f …)"
    package static let example: String? = "shades render tinnitus-tone --frequency 6kHz --harmonics -12,-20 --duration 30s -o tonal.wav"
    package static var defaults: TinnitusTone { TinnitusTone(frequencyHz: 1000, harmonicGainsDB: nil) }
    package static var fields: [ParameterField<TinnitusTone>] {
        [.number(\.frequencyHz, .frequency, key: "frequency", form: .hertz, help: "the tone",
                 requiredAs: "a frequency"),
         .gains(\.harmonicGainsDB, .harmonics, key: "harmonics",
                help: "gains of the 2nd, 3rd … harmonics re the fundamental, each \(Parameter.harmonics.range!), up to \(maximumHarmonics) (default none: a pure tone)")]
    }

    /// Most harmonics above the fundamental.
    package static let maximumHarmonics = 8

    package var summary: String {
        "tinnitus-tone frequency=\(formatNumber(frequencyHz))Hz" + (harmonicGainsDB.map { " harmonics=" + $0.map { formatNumber($0) }.joined(separator: ",") } ?? "")
    }
    package var shortest: (seconds: Double, holding: String)? { (1 / frequencyHz, "one period of the tone") }
    /// Read at the fundamental.
    package var hearingReference: HearingReference { .frequency(hertz: frequencyHz, what: "the fundamental") }

    /// Amplitude of each tone re the fundamental's, linear: 1, then each harmonic's.
    var amplitudes: [Double] { [1] + (harmonicGainsDB ?? []).map(Decibels.amplitude) }

    package func validate(in request: RenderRequest) throws(ShadesError) {
        let rate = request.sampleRate
        try validateFrequency(frequencyHz, sampleRate: rate)
        let gains = harmonicGainsDB ?? []
        guard gains.count <= Self.maximumHarmonics else {
            throw ShadesError(parameter: .harmonics, value: "\(gains.count) gains", allowed: "at most \(Self.maximumHarmonics) harmonics")
        }
        for gain in gains { try Parameter.harmonics.check(gain) }
        let frequency = request.loop ? request.loopRate(frequencyHz) : frequencyHz
        try Parameter.frequency.check(frequency * Double(gains.count + 1), within: .above(0, below: rate / 2, unit: .hertz),
                                      note: "for the highest harmonic (\(gains.count + 1) × the frequency) below Nyquist")
    }

    package func signals(_ context: inout SignalContext) throws(ShadesError) -> GeneratorSignals {
        let frequency = context.loopAdjusted("tone frequency", frequencyHz)
        let (rate, amplitudes) = (context.sampleRate, self.amplitudes)
        // Unit-peak tones; the RMS of their sum is √(Σa²/2) in expectation.
        let gain = Decibels.amplitude(context.levelDBFS) / (amplitudes.reduce(0) { $0 + $1 * $1 } / 2).squareRoot()
        var signals = GeneratorSignals(layout: context.singleSignalLayout) { _ in
            try! MixSource(layers: amplitudes.indices.map { k in
                (source: try! ToneSource(frequencyHz: frequency * Double(k + 1), sampleRate: rate, layout: .mono,
                                         levelDBFS: ToneSource.highestLevelDBFS) as any AudioSource,
                 gain: Float(gain * amplitudes[k]))
            })
        }
        signals.renderedFrequencyHz = frequency
        return signals
    }
}

extension Generator {
    /// Tonal tinnitus: a tone at `frequencyHz` with harmonics `harmonicGainsDB` re the fundamental (none: pure).
    public static func tinnitusTone(frequencyHz: Double, harmonicGainsDB: [Double]? = nil) -> Generator {
        Generator(TinnitusTone(frequencyHz: frequencyHz, harmonicGainsDB: harmonicGainsDB))
    }
}

extension Parameter {
    /// Gain of a harmonic of tonal tinnitus re the fundamental, dB: −60 … 0.
    package static let harmonics = Parameter(.harmonics, unit: .decibels, range: ParameterRange(-60...0, unit: .decibels))
}

extension ParameterID {
    package static let harmonics = ParameterID("harmonics", name: "harmonic gain")
}
