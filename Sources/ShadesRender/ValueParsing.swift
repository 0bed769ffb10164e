import ShadesDSP

/// Parses the text forms users type for durations, frequencies and levels. Text that does not read as the
/// kind of value asked for throws ``ParameterProblem/notParseable(expected:examples:)`` naming the
/// parameter and the text ("frequency '6 kHz': not a frequency (e.g. 6kHz, 6000)"); whether a value that
/// parses is allowed is the parameter's own check, with its range.
package enum ValueParsing {
    /// A kind of value and the suffixes it takes.
    struct Form {
        /// What the text should be, for the message: "a frequency".
        let expected: String
        /// Forms that parse, for the message: "6kHz, 6000".
        let examples: String
        /// Case-insensitive unit suffixes and their factors to the unit returned; longest first.
        let units: [(suffix: String, factor: Double)]

        static let duration = Form(expected: "a duration", examples: "90s, 10m, 1h, 50ms",
                                   units: [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)])
        static let frequency = Form(expected: "a frequency", examples: "6kHz, 6000", units: [("khz", 1000), ("hz", 1), ("k", 1000)])
        static let level = Form(expected: "a level", examples: "-20, -20dBFS", units: [("dbfs", 1), ("db", 1)])
        static let loudness = Form(expected: "a loudness", examples: "-23, -23LUFS", units: [("lufs", 1), ("lu", 1)])
        static let number = Form(expected: "a number", examples: "0.5, -2", units: [])
    }

    /// "90s", "10m", "1h", "1.5s", "50ms", "2min" or plain seconds → seconds.
    package static func seconds(_ text: String, parameter: ParameterID = .duration) throws(ShadesError) -> Double {
        try parse(text, parameter: parameter, form: .duration)
    }

    /// "6000", "6kHz", "6k", "440Hz" → Hz.
    package static func hertz(_ text: String, parameter: ParameterID = .frequency) throws(ShadesError) -> Double {
        try parse(text, parameter: parameter, form: .frequency)
    }

    /// "-20", "-20dB", "-20dBFS" → dBFS (or dB, for a gain).
    package static func decibels(_ text: String, parameter: ParameterID = .level) throws(ShadesError) -> Double {
        try parse(text, parameter: parameter, form: .level)
    }

    /// "-23", "-23LUFS", "-23LU" → LUFS (integrated loudness).
    package static func loudness(_ text: String, parameter: ParameterID = .loudness) throws(ShadesError) -> Double {
        try parse(text, parameter: parameter, form: .loudness)
    }

    /// A plain decimal number: "0.5", "-2", "1e3".
    package static func number(_ text: String, parameter: ParameterID) throws(ShadesError) -> Double {
        try parse(text, parameter: parameter, form: .number)
    }

    /// A whole number in `parameter`'s range ("3", "1e3"): the range is checked before the number becomes an
    /// `Int`, so no value typed (1e15, -1, 2.5) can overflow or be cut: each is out of range.
    package static func count(_ text: String, _ parameter: Parameter) throws(ShadesError) -> Int {
        let value = try number(text, parameter: parameter.id)
        try parameter.check(value)
        guard let count = Int(exactly: value) else { throw parameter.outOfRange(value) }
        return count
    }

    /// A seed: a whole number 0 … 2⁶⁴ − 1, exact ("18446744073709551615"); "-1" and "1e30" are out of
    /// ``Parameter/seed``'s range.
    package static func seed(_ text: String) throws(ShadesError) -> UInt64 {
        if let seed = UInt64(text.trimmingSpaces) { return seed }
        let value = try number(text, parameter: .seed)
        // Doubles from 2⁶³ up are whole; below 2⁶⁴ they fit (UInt64.max itself rounds up to 2⁶⁴).
        guard value >= 0, value < 0x1p64, let seed = UInt64(exactly: value) else { throw Parameter.seed.outOfRange(value) }
        return seed
    }

    private static func parse(_ text: String, parameter: ParameterID, form: Form) throws(ShadesError) -> Double {
        let trimmed = text.trimmingSpaces.lowercased()
        var body = Substring(trimmed)
        var factor = 1.0
        for unit in form.units where body.hasSuffix(unit.suffix) {
            body = body.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        // Only plain decimal numbers: no "nan", "inf", hex or empty strings; and finite with the unit's
        // factor too ("1e308kHz" overflowed to infinity, found by the value fuzzer).
        let allowed = Set("0123456789.-+e")
        guard !body.isEmpty, body.allSatisfy({ allowed.contains($0) }), body.contains(where: \.isNumber),
              let value = Double(body), (value * factor).isFinite else {
            throw ShadesError(parameter, .notParseable(expected: form.expected, examples: form.examples), value: .given(text),
                              allowed: Parameter.definition(of: parameter)?.allowed)
        }
        return value * factor
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
