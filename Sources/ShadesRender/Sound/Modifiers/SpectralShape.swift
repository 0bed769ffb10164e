import ShadesDSP

/// A gain over frequency applied to a sound, after its notches: gains at frequencies, linear in log frequency
/// between them and constant beyond. Made from an audiogram by a fitting rule (``halfGain(frequenciesHz:thresholdsDBHL:maximumGainDB:)``; ShadesProcedures reads it from an `Audiogram`),
/// it shapes any sound by the listener's hearing loss, as Cuesta et al. 2022 (Brain Sci 12:82) shaped therapy
/// noise by the patient's audiogram. A zero-phase FIR (FFTW frequency sampling, Hann window; a loop's spectrum
/// is shaped exactly); the sound's level policy applies to the shaped sound.
public struct SpectralShape: Sendable, Encodable, Equatable {
    /// Frequencies (Hz, increasing) and their gains (dB).
    public var frequenciesHz: [Double]
    public var gainsDB: [Double]
    /// Where the gains come from, for the record (e.g. "half-gain rule, right ear of audiogram.json").
    package var rule: String?

    public init(frequenciesHz: [Double], gainsDB: [Double], rule: String? = nil) {
        (self.frequenciesHz, self.gainsDB, self.rule) = (frequenciesHz, gainsDB, rule)
    }

    /// Allowed gains, dB, and the largest half-gain gain by default (Cuesta et al. 2022 capped theirs).
    package static let allowedGainDB: ClosedRange<Double> = -60...60
    package static let defaultMaximumGainDB = 30.0

    /// The half-gain rule: at each frequency, half the threshold in dB HL (none for thresholds at or below
    /// 0), capped at `maximumGainDB` (30 dB by default).
    public static func halfGain(frequenciesHz: [Double], thresholdsDBHL: [Double], maximumGainDB: Double = 30) -> SpectralShape {
        SpectralShape(frequenciesHz: frequenciesHz, gainsDB: thresholdsDBHL.map { min(maximumGainDB, max(0, $0 / 2)) },
                      rule: "half-gain rule (capped at \(formatNumber(maximumGainDB)) dB)")
    }

    /// The gain at `frequencyHz`, dB.
    package func gainDB(atHz frequencyHz: Double) -> Double { curve.gainDB(atHz: frequencyHz) }

    package var curve: GainCurve { GainCurve(frequenciesHz: frequenciesHz, gainsDB: gainsDB) }

    /// Checks the points: at least one, one gain per frequency, frequencies above 0 and increasing, gains
    /// within ``allowedGainDB``.
    package func validate() throws(ShadesError) {
        guard !frequenciesHz.isEmpty, frequenciesHz.count == gainsDB.count else {
            throw ShadesError(parameter: .shape, value: "\(frequenciesHz.count) frequencies, \(gainsDB.count) gains",
                              allowed: "one gain per frequency, at least one")
        }
        for (f, next) in zip(frequenciesHz, frequenciesHz.dropFirst() + [.infinity]) where !(f.isFinite && f > 0 && f < next) {
            throw ShadesError(parameter: .shape, value: "\(formatNumber(f)) Hz", allowed: "frequencies above 0 Hz, increasing")
        }
        for g in gainsDB where !(g.isFinite && Self.allowedGainDB.contains(g)) {
            throw ShadesError(parameter: .shape, value: "\(formatNumber(g)) dB", allowed: "-60 … 60 dB")
        }
    }
}

/// The `shape` modifier: `{ "frequenciesHz": [...], "gainsDB": [...], "rule": "…" }`. The command line gives it
/// as an audiogram and a fitting rule (`--audiogram`: the shared `AudiogramShapingOptions`), not as points.
package enum ShapeModifier: ModifierKind {
    package typealias Value = SpectralShape
    package static let key = "shape"
    package static var slot: WritableKeyPath<Sound, SpectralShape?> { \.shape }
    package static var parameters: [ModifierParameter] { [ModifierParameter(.shape, key: "shape")] }

    package static func read(in object: JSONObjectReader) throws(ShadesError) -> SpectralShape? {
        guard let value = object[key] else { return nil }
        let s = try object.reader.object(value, path: object.path(of: key), what: "shape", keys: ["frequenciesHz", "gainsDB", "rule"])
        guard let frequencies = try s.numbers("frequenciesHz") else { throw s.missing("frequenciesHz") }
        guard let gains = try s.numbers("gainsDB") else { throw s.missing("gainsDB") }
        return SpectralShape(frequenciesHz: frequencies, gainsDB: gains, rule: try s.string("rule"))
    }

    /// Its points, and in a loop a generator that keeps the seam (one synthesised whole).
    package static func validate(_ value: SpectralShape, in request: RenderRequest) throws(ShadesError) {
        try value.validate()
        if request.loop, let generator = request.sound.generator, !generator.shapesLoopExactly {
            throw ShadesError(parameter: .shape, value: value.rule ?? "gains", problem: "cannot be combined with loop here",
                              allowed: "a shaped loop of noise or grey noise (a streamed filter would break the seam)")
        }
    }

}
