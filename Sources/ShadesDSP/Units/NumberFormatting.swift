/// Numbers in messages, comment tags and reports: the same text everywhere (no locale).

/// A number without a trailing ".0".
package func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
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
