import ShadesDSP

/// A sound's level as a study asks for it: re full scale, loudness, or relative to the patient's hearing and
/// headphones. Every level but LUFS is of the sustained sound's RMS (``LevelPolicy/rms(dBFS:)``: after
/// modulation, before pulses and fades). JSON and text form: "-20 dBFS", "-23 LUFS", "60 dB SPL",
/// "40 dB HL", "20 dB SL", "MML+6 dB" (read also "MML+6", "mml - 3 dB", "20dB SL").
public enum PatientLevel: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// RMS re full scale, dBFS (−150 … 0).
    case dBFS(Double)
    /// Integrated loudness (ITU-R BS.1770), LUFS (−70 … 0), true peak under −1 dBTP.
    case lufs(Double)
    /// Sound pressure level through the headphone calibration, dB SPL re 20 µPa (0 … 140), at the sound's
    /// defining frequency or broadband (``HearingReference``).
    case dBSPL(Double)
    /// Hearing level, dB HL (−10 … 120): dB SPL − RETSPL at the sound's defining frequency (ISO 389).
    case dBHL(Double)
    /// Sensation level, dB SL (−20 … 100): above the patient's own threshold at the sound's defining
    /// frequency (Neff et al. 2019: AM tones at 60 dB SL; hearing-aid sound generators 5–10 dB above the
    /// threshold).
    case dBSL(Double)
    /// Re the patient's minimum masking level, dB (−40 … 40): MML + x (Neff et al. 2019: MML + 6 dB;
    /// residual inhibition: MML + 10 dB, Henry et al. 2013).
    case reMML(Double)

    /// The number, in the level's own scale.
    public var value: Double {
        switch self {
        case .dBFS(let v), .lufs(let v), .dBSPL(let v), .dBHL(let v), .dBSL(let v), .reMML(let v): return v
        }
    }

    /// The same scale at another number.
    public func with(value v: Double) -> PatientLevel {
        switch self {
        case .dBFS: return .dBFS(v)
        case .lufs: return .lufs(v)
        case .dBSPL: return .dBSPL(v)
        case .dBHL: return .dBHL(v)
        case .dBSL: return .dBSL(v)
        case .reMML: return .reMML(v)
        }
    }

    /// True for a level relative to the sound's defining frequency (dB SL, dB HL).
    public var needsDefiningFrequency: Bool {
        switch self { case .dBSL, .dBHL: return true; default: return false }
    }

    /// The scale's name in messages: "dB SL", "MML".
    public var scaleName: String {
        switch self {
        case .dBFS: return "dBFS"
        case .lufs: return "LUFS"
        case .dBSPL: return "dB SPL"
        case .dBHL: return "dB HL"
        case .dBSL: return "dB SL"
        case .reMML: return "MML"
        }
    }

    /// "20 dB SL", "MML+6 dB", "-20 dBFS".
    public var description: String {
        if case .reMML(let v) = self { return "MML" + (v >= 0 ? "+" : "-") + formatNumber(abs(v)) + " dB" }
        return "\(formatNumber(value)) \(scaleName)"
    }

    /// The allowed values of each scale.
    static func allowedRange(_ level: PatientLevel) -> ClosedRange<Double> {
        switch level {
        case .dBFS: return -150...0
        case .lufs: return -70...0
        case .dBSPL: return 0...140
        case .dBHL: return -10...120
        case .dBSL: return -20...100
        case .reMML: return -40...40
        }
    }

    /// The forms a level is written in, for refusals.
    public static let allowedForms = "-20 dBFS, -23 LUFS, 60 dB SPL, 40 dB HL, 20 dB SL or MML+6 dB"

    /// Reads the text form; refused in one line naming the level and the allowed forms, or its range.
    public init(_ text: String) throws(ShadesError) {
        let squeezed = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined().lowercased()
        let notALevel = ShadesError(.level, .notParseable(expected: "a level", examples: Self.allowedForms), value: .given(text),
                                     allowed: AllowedValues(note: "a number and its scale"))
        var level: PatientLevel?
        if squeezed.hasPrefix("mml") {
            var rest = Substring(squeezed.dropFirst(3))
            if rest.hasSuffix("db") { rest = rest.dropLast(2) }
            if rest.isEmpty { level = .reMML(0) } else if rest.first == "+" || rest.first == "-", let v = Double(rest.dropFirst()), !(rest.dropFirst().first == "+" || rest.dropFirst().first == "-") {
                level = .reMML(rest.first == "-" ? -v : v)
            }
        } else {
            let units: [(String, (Double) -> PatientLevel)] = [("dbfs", PatientLevel.dBFS), ("lufs", PatientLevel.lufs),
                                                               ("dbspl", PatientLevel.dBSPL), ("dbhl", PatientLevel.dBHL), ("dbsl", PatientLevel.dBSL)]
            for (unit, make) in units where squeezed.hasSuffix(unit) {
                if let v = Double(squeezed.dropLast(unit.count)) { level = make(v) }
                break
            }
        }
        guard let level, level.value.isFinite else { throw notALevel }
        try Self.check(level)
        self = level
    }

    /// Throws out of range unless the number lies in its scale's range: "level 200 dB SPL is out of range
    /// (allowed: 0 dB SPL … 140 dB SPL)".
    public static func check(_ level: PatientLevel) throws(ShadesError) {
        let range = allowedRange(level)
        guard level.value.isFinite, range.contains(level.value) else {
            throw ShadesError(.level, .outOfRange, value: .text(level.description),
                              allowed: AllowedValues(note: "\(level.with(value: range.lowerBound)) … \(level.with(value: range.upperBound))"))
        }
    }

    public init(from decoder: any Decoder) throws {
        self = try PatientLevel(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
