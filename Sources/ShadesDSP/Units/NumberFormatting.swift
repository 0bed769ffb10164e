import ShadesPlatform

/// Numbers in messages, comment tags and reports: the same text everywhere (no locale).

/// A number for people: 12 significant digits at most, without a trailing ".0" ("1" for a duration
/// computed as 1.0000000000000002, "0.3" for 0.1 + 0.2).
package func formatNumber(_ value: Double) -> String {
    guard value.isFinite, value != 0 else { return value == 0 ? "0" : String(value) }
    if abs(value) >= 1e15 {
        // "1e+15", "3.6e+18": the mantissa as any number, then the power of ten.
        var exponent = 0, power = 1.0
        while abs(value) / (power * 10) >= 1 { (exponent, power) = (exponent + 1, power * 10) }
        return formatNumber(value / power) + "e+\(exponent)"
    }
    var shown = value
    if abs(value) < 1e15 {
        let digits = 11 - Int(log10(abs(value)).rounded(.down))
        var scale = 1.0
        for _ in 0..<abs(digits) { scale *= 10 }
        shown = digits >= 0 ? (value * scale).rounded() / scale : (value / scale).rounded() * scale
    }
    return shown == shown.rounded() && abs(shown) < 1e15 ? String(Int(shown)) : String(shown)
}

/// A number rounded to `decimals` decimals, without a trailing ".0": "12.5", "25".
package func formatNumber(_ value: Double, roundedTo decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return formatNumber((value * scale).rounded() / scale)
}

/// `value` with `digits` decimals and a sign, e.g. "+2.31".
package func formatSigned(_ value: Double, digits: Int = 4) -> String {
    let text = String(format: value, digits: digits)
    return value >= 0 ? "+" + text : text
}

/// The value rounded down to 0.1 (a level that surely fits).
package func formatFloor(_ value: Double) -> String { String(format: (value * 10).rounded(.down) / 10, digits: 1) }

extension String {
    /// `value` with `digits` decimals.
    package init(format value: Double, digits: Int) {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (abs(value) * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
            if digits == 0 { text = String(text[..<dot]) }
        }
        self = (value < 0 && rounded != 0 ? "-" : "") + text
    }
}

/// "1 sound", "15 sounds", "2 categories" (`plural` when adding "s" is wrong).
package func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}
