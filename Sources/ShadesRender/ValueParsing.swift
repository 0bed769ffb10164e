import ShadesDSP

/// Parses the text forms users type for durations, frequencies and levels.
public enum ValueParsing {
    /// "90s", "10m", "1h", "1.5s", "50ms", "2min" or plain seconds → seconds.
    public static func seconds(_ text: String, parameter: String = "duration") throws(ShadesError) -> Double {
        let units: [(suffix: String, factor: Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)]
        return try number(text, parameter: parameter, units: units, example: "a time such as 90s, 10m, 1h, 1.5s, 50ms or plain seconds")
    }

    /// "6000", "6kHz", "6k", "440Hz" → Hz.
    public static func hertz(_ text: String, parameter: String = "frequency") throws(ShadesError) -> Double {
        let units: [(suffix: String, factor: Double)] = [("khz", 1000), ("hz", 1), ("k", 1000)]
        return try number(text, parameter: parameter, units: units, example: "a frequency such as 6000, 6kHz or 440Hz")
    }

    /// "-20", "-20dB", "-20dBFS" → dBFS.
    public static func decibels(_ text: String, parameter: String = "level") throws(ShadesError) -> Double {
        let units: [(suffix: String, factor: Double)] = [("dbfs", 1), ("db", 1)]
        return try number(text, parameter: parameter, units: units, example: "a level in dBFS such as -20 or -20dBFS")
    }

    /// "-23", "-23LUFS", "-23LU" → LUFS (integrated loudness).
    public static func loudness(_ text: String, parameter: String = "loudness") throws(ShadesError) -> Double {
        let units: [(suffix: String, factor: Double)] = [("lufs", 1), ("lu", 1)]
        return try number(text, parameter: parameter, units: units, example: "a loudness in LUFS such as -23 or -23LUFS")
    }

    private static func number(_ text: String, parameter: String, units: [(suffix: String, factor: Double)],
                               example: String) throws(ShadesError) -> Double {
        let trimmed = text.trimmingSpaces.lowercased()
        var body = Substring(trimmed)
        var factor = 1.0
        for unit in units where body.hasSuffix(unit.suffix) {
            body = body.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        // Only plain decimal numbers: no "nan", "inf", hex or empty strings; and finite with the unit's
        // factor too ("1e308kHz" overflowed to infinity, found by the value fuzzer).
        let allowed = Set("0123456789.-+e")
        guard !body.isEmpty, body.allSatisfy({ allowed.contains($0) }), body.contains(where: \.isNumber),
              let value = Double(body.trimmingSpaces), (value * factor).isFinite else {
            throw ShadesError(parameter: parameter, value: "'\(text)'", allowed: example)
        }
        return value * factor
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
