/// Parameters defined as data (after AudioKit's `NodeParameterDef`): each parameter's identity, unit,
/// allowed range and default are stated once, here, and the library's checks and error messages use them.
/// A caller names parameters its own way (a command-line option, a JSON key path) by mapping the
/// identity: ``ShadesError/described(naming:)``.

/// A parameter's identity: stable, spelled in Swift's style (`amDepth`), never a command-line flag. It
/// carries the library's own neutral name for messages ("AM depth"). Two identities are equal when their
/// ``rawValue``s are.
///
/// The identities of the library's parameters are the static members below; another module may add its
/// own in an extension (`static let fadeEnd = ParameterID("fadeEnd", name: "fade end")`).
public struct ParameterID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    /// The library's neutral name for the parameter in messages, e.g. "AM depth".
    public let name: String

    /// An identity without a name of its own: messages name it by `rawValue`.
    public init(rawValue: String) { (self.rawValue, self.name) = (rawValue, rawValue) }

    package init(_ rawValue: String, name: String) { (self.rawValue, self.name) = (rawValue, name) }

    public static func == (a: ParameterID, b: ParameterID) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }
}

extension ParameterID {
    // MARK: Every sound
    package static let rate = ParameterID("rate", name: "sample rate")
    package static let duration = ParameterID("duration", name: "duration")
    package static let level = ParameterID("level", name: "level")
    package static let seed = ParameterID("seed", name: "seed")
    package static let loop = ParameterID("loop", name: "loop")
    package static let layout = ParameterID("layout", name: "channel layout")
    package static let channels = ParameterID("channels", name: "channels")
    /// An audio device (playback or recording).
    package static let device = ParameterID("device", name: "device")

    // MARK: Generators
    package static let beta = ParameterID("beta", name: "beta")
    package static let distribution = ParameterID("distribution", name: "distribution")
    package static let frequency = ParameterID("frequency", name: "frequency")
    package static let width = ParameterID("width", name: "width")
    package static let loopLength = ParameterID("loopLength", name: "loop length")
    package static let startFrame = ParameterID("startFrame", name: "start frame")
    package static let cycleRate = ParameterID("cycleRate", name: "cycle rate")
    package static let toneLength = ParameterID("toneLength", name: "tone length")
    package static let toneRamp = ParameterID("toneRamp", name: "tone ramp")
    package static let onCycles = ParameterID("onCycles", name: "on cycles")
    package static let offCycles = ParameterID("offCycles", name: "off cycles")
    package static let toneGains = ParameterID("toneGains", name: "tone gains")
    package static let bandGains = ParameterID("bandGains", name: "band gains")
    package static let density = ParameterID("density", name: "impulse density")
    package static let scale = ParameterID("scale", name: "scale")
    package static let lowPitch = ParameterID("lowPitch", name: "low pitch")
    package static let highPitch = ParameterID("highPitch", name: "high pitch")
    package static let tempo = ParameterID("tempo", name: "tempo")

    // MARK: Modifiers
    package static let amRate = ParameterID("amRate", name: "AM rate")
    package static let amDepth = ParameterID("amDepth", name: "AM depth")
    package static let amPhase = ParameterID("amPhase", name: "AM phase")
    package static let fade = ParameterID("fade", name: "fade")
    package static let fadeIn = ParameterID("fadeIn", name: "fade-in")
    package static let fadeOut = ParameterID("fadeOut", name: "fade-out")
    package static let pulse = ParameterID("pulse", name: "pulse")
    package static let pulseOn = ParameterID("pulseOn", name: "pulse on time")
    package static let pulseOff = ParameterID("pulseOff", name: "pulse off time")
    package static let ramp = ParameterID("ramp", name: "ramp")
    package static let pulseCount = ParameterID("pulseCount", name: "pulse count")
    package static let swellPeriod = ParameterID("swellPeriod", name: "swell period")
    package static let swellDepth = ParameterID("swellDepth", name: "swell depth")
    package static let layers = ParameterID("layers", name: "layers")

    // MARK: Filters
    package static let notchCentre = ParameterID("notchCentre", name: "notch centre")
    package static let notchWidth = ParameterID("notchWidth", name: "notch width")
    package static let edgeBoost = ParameterID("edgeBoost", name: "edge boost")
    package static let edgeWidth = ParameterID("edgeWidth", name: "edge width")
    package static let bandCentre = ParameterID("bandCentre", name: "band centre")
    package static let bandWidth = ParameterID("bandWidth", name: "band width")

    // MARK: Files and jobs (defined where they are checked: ShadesIO, ShadesRender, ShadesCatalogue)
    package static let sampleFormat = ParameterID("sampleFormat", name: "sample format")
    package static let output = ParameterID("output", name: "output")
    package static let loudness = ParameterID("loudness", name: "loudness")
    package static let ceiling = ParameterID("ceiling", name: "true-peak ceiling")
    package static let mmlStep = ParameterID("mmlStep", name: "MML step")

    // MARK: Analysis
    package static let signal = ParameterID("signal", name: "signal")
    package static let reference = ParameterID("reference", name: "reference")
    package static let segmentLength = ParameterID("segmentLength", name: "segment length")
    package static let modulationRates = ParameterID("modulationRates", name: "modulation rate range")
    package static let carrierBand = ParameterID("carrierBand", name: "carrier band")
    package static let calibration = ParameterID("calibration", name: "calibration")

    /// The identities above, for tests and for callers that list their names.
    package static let known: [ParameterID] = [
        .rate, .duration, .level, .seed, .loop, .layout, .channels,
        .beta, .distribution, .frequency, .width, .loopLength, .startFrame, .cycleRate, .toneLength, .toneRamp,
        .onCycles, .offCycles, .toneGains, .bandGains, .density, .scale, .lowPitch, .highPitch, .tempo,
        .amRate, .amDepth, .amPhase, .fade, .fadeIn, .fadeOut, .pulse, .pulseOn, .pulseOff, .ramp, .pulseCount,
        .swellPeriod, .swellDepth, .layers,
        .notchCentre, .notchWidth, .edgeBoost, .edgeWidth, .bandCentre, .bandWidth,
        .sampleFormat, .output, .loudness, .ceiling, .mmlStep,
        .signal, .reference, .segmentLength, .modulationRates, .carrierBand, .calibration,
    ]

}

/// The unit of a parameter's values; every value and range in a message carries it.
package enum ParameterUnit: String, Sendable, Hashable, CaseIterable {
    case hertz = "Hz"
    /// A gain or level difference.
    case decibels = "dB"
    case dBFS
    case dBTP
    case LUFS
    /// Shown in milliseconds when every value shown together is under one second ("25 ms", "0 … 100 ms"),
    /// in hours when every one is a whole number of hours ("24 h").
    case seconds = "s"
    case octaves
    /// Hundredths of an equal-tempered semitone (1200 to the octave).
    case cents
    case radians = "rad"
    case frames
    /// Beats (grid steps) per minute.
    case beatsPerMinute = "BPM"
    /// A plain number (a depth, a count, β).
    case none = ""

    /// How values shown together are written: milliseconds for seconds all under one second.
    func display(_ values: [Double]) -> (scale: Double, symbol: String) {
        guard self == .seconds, values.contains(where: { $0 != 0 && $0.isFinite }) else { return (1, rawValue) }
        if values.allSatisfy({ !$0.isFinite || abs($0) < 1 }) { return (1000, "ms") }
        if values.allSatisfy({ !$0.isFinite || ($0 / 3600).rounded() == $0 / 3600 && abs($0) < 1e9 }) { return (1.0 / 3600, "h") }
        return (1, rawValue)
    }

    /// `text` followed by the unit symbol, if any.
    static func append(_ symbol: String, to text: String) -> String { symbol.isEmpty ? text : text + " " + symbol }
}

/// A value a caller gave, as an error shows it.
package enum ParameterValue: Sendable, CustomStringConvertible {
    /// A number in a unit: "30000 Hz", "25 ms", "1.5".
    case number(Double, ParameterUnit)
    /// Text as the caller typed it, shown in quotes: `'6 kHz'`.
    case given(String)
    /// A description of the value, shown as it is: "3 values", "uniform", "on".
    case text(String)

    package var description: String {
        switch self {
        case .number(let value, let unit):
            let (scale, symbol) = unit.display([value])
            return ParameterUnit.append(symbol, to: scale == 1 ? formatNumber(value) : formatNumber(value * scale, roundedTo: 6))
        case .given(let text): return "'\(text)'"
        case .text(let text): return text
        }
    }
}

extension ParameterValue: Equatable {
    /// Numbers compare by value, with NaN equal to NaN (an error about a NaN equals itself).
    package static func == (a: ParameterValue, b: ParameterValue) -> Bool {
        switch (a, b) {
        case let (.number(x, u), .number(y, v)): return u == v && (x == y || (x.isNaN && y.isNaN))
        case let (.given(x), .given(y)), let (.text(x), .text(y)): return x == y
        default: return false
        }
    }
}

/// The values a parameter allows: bounds (each included or not), a unit, and whether only whole numbers.
/// Values that are not finite are never contained.
package struct ParameterRange: Sendable, Hashable, CustomStringConvertible {
    package enum Bound: Sendable, Hashable {
        case included(Double)
        case excluded(Double)

        package var value: Double {
            switch self { case .included(let v), .excluded(let v): return v }
        }
        var isIncluded: Bool { if case .included = self { return true } else { return false } }
    }

    package var lower: Bound?
    package var upper: Bound?
    package var unit: ParameterUnit
    /// Only whole numbers are allowed (a sample rate).
    package var wholeNumbers: Bool

    package init(lower: Bound?, upper: Bound?, unit: ParameterUnit = .none, wholeNumbers: Bool = false) {
        (self.lower, self.upper, self.unit, self.wholeNumbers) = (lower, upper, unit, wholeNumbers)
    }

    /// `range.lowerBound … range.upperBound`, both included.
    package init(_ range: ClosedRange<Double>, unit: ParameterUnit = .none, wholeNumbers: Bool = false) {
        self.init(lower: .included(range.lowerBound), upper: .included(range.upperBound), unit: unit, wholeNumbers: wholeNumbers)
    }

    /// Any finite value.
    package static func finite(unit: ParameterUnit = .none) -> ParameterRange { ParameterRange(lower: nil, upper: nil, unit: unit) }
    /// Above `low` (not `low` itself).
    package static func above(_ low: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: .excluded(low), upper: nil, unit: unit)
    }
    /// `low` or more.
    package static func atLeast(_ low: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: .included(low), upper: nil, unit: unit)
    }
    /// `high` or less.
    package static func atMost(_ high: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: nil, upper: .included(high), unit: unit)
    }
    /// Above `low` and at most `high`.
    package static func above(_ low: Double, atMost high: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: .excluded(low), upper: .included(high), unit: unit)
    }
    /// Above `low` and below `high`.
    package static func above(_ low: Double, below high: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: .excluded(low), upper: .excluded(high), unit: unit)
    }
    /// `low` or more and below `high`.
    package static func from(_ low: Double, below high: Double, unit: ParameterUnit = .none) -> ParameterRange {
        ParameterRange(lower: .included(low), upper: .excluded(high), unit: unit)
    }

    /// The same bounds with another upper bound (a limit that depends on the rate or on another parameter).
    package func with(upper: Bound?) -> ParameterRange {
        var range = self
        range.upper = upper
        return range
    }

    package func contains(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if wholeNumbers && value != value.rounded() { return false }
        if let lower, lower.isIncluded ? value < lower.value : value <= lower.value { return false }
        if let upper, upper.isIncluded ? value > upper.value : value >= upper.value { return false }
        return true
    }

    /// "0 … 1", "0.1 … 10 Hz", "above 0 and at most 4 octaves", "at most 0 dBFS", "from 30 to below 16018.1 Hz".
    package var description: String {
        let (scale, symbol) = unit.display([lower?.value, upper?.value].compactMap { $0 })
        func limit(_ bound: Bound) -> String { formatLimit(bound.value * scale) }
        var text: String
        switch (lower, upper) {
        case let (lower?, upper?):
            switch (lower.isIncluded, upper.isIncluded) {
            case (true, true): text = "\(limit(lower)) … \(limit(upper))"
            case (false, true): text = "above \(limit(lower)) and at most \(limit(upper))"
            case (false, false): text = "above \(limit(lower)) and below \(limit(upper))"
            case (true, false): text = "from \(limit(lower)) to below \(limit(upper))"
            }
        case let (lower?, nil): text = (lower.isIncluded ? "at least " : "above ") + limit(lower)
        case let (nil, upper?): text = (upper.isIncluded ? "at most " : "below ") + limit(upper)
        case (nil, nil): text = "any finite value" + (symbol.isEmpty ? "" : " in")
        }
        text = ParameterUnit.append(symbol, to: text)
        return wholeNumbers ? text + " (whole numbers)" : text
    }
}

/// What a parameter allows, as an error states it: a range, words, or a range with words after it.
package struct AllowedValues: Sendable, Hashable, CustomStringConvertible {
    package var range: ParameterRange?
    /// Words about the range or in place of one: "(Nyquist at 48000 Hz)", "gaussian or uniform".
    package var note: String?

    package init(range: ParameterRange? = nil, note: String? = nil) { (self.range, self.note) = (range, note) }

    /// The range, then the note: after a space when the note starts with "(", else after a comma.
    package var description: String {
        switch (range, note) {
        case let (range?, note?): return "\(range)" + (note.hasPrefix("(") ? " " : ", ") + note
        case let (range?, nil): return "\(range)"
        case let (nil, note?): return note
        case (nil, nil): return ""
        }
    }
}

/// What is wrong with a parameter's value.
package enum ParameterProblem: Sendable, Hashable {
    /// The value is outside what is allowed: "AM depth 1.5 is out of range (allowed: 0 … 1)".
    case outOfRange
    /// The text does not read as the kind of value expected: `'6 kHz': not a frequency (e.g. 6kHz, 6000)`;
    /// `expected` is "a frequency", `examples` "6kHz, 6000".
    case notParseable(expected: String, examples: String)
    /// The value cannot be used together with another parameter: "fade 50 ms cannot be combined with loop".
    case conflicts(with: ParameterID)
    /// No value was given where one is needed: "notch centre is missing".
    case missing
    /// Anything else, in words after the value: "is silent", "is longer than half the 200 ms pulse".
    case other(String)
}

/// A parameter's definition: identity, unit, allowed values and default, stated once. Checks throw
/// ``ShadesError``s carrying the identity, the value and the allowed range as fields.
package struct Parameter: Sendable, Hashable, Identifiable {
    package let id: ParameterID
    package let unit: ParameterUnit
    /// What is allowed wherever the parameter is used; a check may narrow it (below Nyquist, within the slot).
    package let allowed: AllowedValues
    package let defaultValue: Double?

    package init(_ id: ParameterID, unit: ParameterUnit = .none, range: ParameterRange? = nil, note: String? = nil,
                default defaultValue: Double? = nil) {
        self.id = id
        self.unit = unit
        allowed = AllowedValues(range: range, note: note)
        self.defaultValue = defaultValue
    }

    /// The library's neutral name, e.g. "AM depth".
    package var name: String { id.name }
    /// The allowed range, if the parameter has one.
    package var range: ParameterRange? { allowed.range }

    /// Throws ``ParameterProblem/outOfRange`` unless `value` lies in ``range`` (finite, within the bounds).
    package func check(_ value: Double) throws(ShadesError) {
        if let range = allowed.range, !range.contains(value) { throw outOfRange(value) }
    }

    /// Throws ``ParameterProblem/outOfRange`` unless `value` lies in `range`, the values allowed here (e.g.
    /// with Nyquist at this rate as the upper bound); `note` says why, after the range.
    package func check(_ value: Double, within range: ParameterRange, note: String? = nil) throws(ShadesError) {
        if !range.contains(value) { throw outOfRange(value, allowed: AllowedValues(range: range, note: note)) }
    }

    /// The error for `value` outside `allowed` (by default the definition's allowed values).
    package func outOfRange(_ value: Double, allowed: AllowedValues? = nil) -> ShadesError {
        ShadesError(id, .outOfRange, value: .number(value, unit), allowed: allowed ?? self.allowed)
    }

    /// The error for `value` outside `range`, with `note` after it.
    package func outOfRange(_ value: Double, range: ParameterRange, note: String? = nil) -> ShadesError {
        outOfRange(value, allowed: AllowedValues(range: range, note: note))
    }

    /// Any other problem with this parameter; `allowed` nil states the definition's allowed values.
    package func error(_ problem: ParameterProblem, value: ParameterValue? = nil, allowed: AllowedValues? = nil) -> ShadesError {
        ShadesError(id, problem, value: value, allowed: allowed ?? self.allowed)
    }

    /// The definition of `id`, if the library has one.
    package static func definition(of id: ParameterID) -> Parameter? { byID[id] }

    private static let byID: [ParameterID: Parameter] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
}

/// A range limit in a message: whole numbers as they are, others to 0.1 from 1000 (Nyquist, centres), to
/// 0.01 from 10 and to four decimals below (ratios, a frame in milliseconds).
package func formatLimit(_ value: Double) -> String {
    formatNumber(value, roundedTo: abs(value) >= 1000 ? 1 : abs(value) >= 10 ? 2 : 4)
}
