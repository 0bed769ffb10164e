import ShadesPlatform

/// One curve of a ``LinePlot``: points in data units joined by straight lines.
package struct PlotSeries: Sendable {
    /// Shown in the legend (the legend appears when a plot has more than one series).
    package var name: String
    /// Points in data units, in drawing order. A NaN coordinate, an infinite x, or x ≤ 0 on a logarithmic
    /// axis breaks the line; y = ±∞ runs to the edge of the plot; anything outside the axes is clipped.
    package var points: [(x: Double, y: Double)]
    /// Stroke colour: any SVG colour, e.g. `"#1f5fa8"`.
    package var colour: String
    package var dashed: Bool

    package init(name: String, points: [(x: Double, y: Double)], colour: String = PlotSeries.palette[0], dashed: Bool = false) {
        self.name = name
        self.points = points
        self.colour = colour
        self.dashed = dashed
    }

    /// A series from parallel arrays of x and y values (extra values in the longer array are ignored).
    package init(name: String, x: [Double], y: [Double], colour: String = PlotSeries.palette[0], dashed: Bool = false) {
        self.init(name: name, points: zip(x, y).map { (x: $0, y: $1) }, colour: colour, dashed: dashed)
    }

    /// Colours that stay distinct in print and for the common colour-vision deficiencies.
    package static let palette = ["#1f5fa8", "#c8402a", "#2a8a3e", "#7a4fb0", "#b8860b"]
}

/// One axis of a ``LinePlot``.
package struct PlotAxis: Sendable {
    /// The quantity and its unit, e.g. `"Frequency (Hz)"`.
    package var label: String
    /// Data units; nil fits the data (rounded out to tick values).
    package var range: ClosedRange<Double>?
    /// Log10 scale with 1-2-5 ticks labelled 20, 50, 100, … 1k, 2k; needs a positive range.
    package var logarithmic: Bool

    package init(label: String, range: ClosedRange<Double>? = nil, logarithmic: Bool = false) {
        self.label = label
        self.range = range
        self.logarithmic = logarithmic
    }
}

/// A line plot with title, labelled axes, grid, legend and shaded vertical bands, written as SVG.
///
/// The SVG is self-contained (no fonts, scripts, style sheets or ids), scales to its container's width
/// through its viewBox, and can be inlined in HTML (`svg(standalone: false)`).
package struct LinePlot: Sendable {
    package var title: String
    package var xAxis: PlotAxis
    package var yAxis: PlotAxis
    package var series: [PlotSeries]
    /// Shaded spans of x (data units), e.g. a notch band; the label is written at the top of the span.
    package var bands: [(from: Double, to: Double, label: String)]
    /// Size of the drawing (the viewBox) in CSS px; text sizes are relative to it.
    package var size: (width: Double, height: Double)

    package init(title: String, xAxis: PlotAxis, yAxis: PlotAxis, series: [PlotSeries],
                bands: [(from: Double, to: Double, label: String)] = [],
                size: (width: Double, height: Double) = (720, 405)) {
        self.title = title
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.series = series
        self.bands = bands
        self.size = size
    }

    /// The plot as SVG text. `standalone` adds the XML declaration for an `.svg` file; leave it out to
    /// inline the plot in an HTML page.
    package func svg(standalone: Bool = true) -> String {
        let width = size.width.isFinite ? max(size.width, 200) : 720
        let height = size.height.isFinite ? max(size.height, 150) : 405
        let xRange = Self.resolvedRange(xAxis, values: series.flatMap { $0.points.map(\.x) }, padded: false)
        let yRange = Self.resolvedRange(yAxis, values: series.flatMap { $0.points.map(\.y) }, padded: true)

        // Vertical layout first: the y tick labels decide the left margin.
        let top = (title.isEmpty ? 12.0 : 36) + (series.count > 1 ? 22 : 0)
        let bottom = height - 46
        let yTicks = AxisTicks(range: yRange, logarithmic: yAxis.logarithmic, lengthPx: bottom - top, labelWidth: { _ in 28 })
        let widestYLabel = yTicks.major.map { textWidth($0.label) }.max() ?? 0
        let left = (26 + widestYLabel + 8).rounded()
        let right = width - 20
        let xTicks = AxisTicks(range: xRange, logarithmic: xAxis.logarithmic, lengthPx: right - left,
                               labelWidth: { textWidth($0) + 8 })
        let x = AxisScale(range: xRange, logarithmic: xAxis.logarithmic, from: left, to: right)
        let y = AxisScale(range: yRange, logarithmic: yAxis.logarithmic, from: bottom, to: top)
        let plot = "x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" height=\"\(n(bottom - top))\""

        var svg = standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
        svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(width)) \(n(height))\" width=\"100%\""
            + " font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif\""
            + " font-size=\"12\" fill=\"#222\" role=\"img\">\n"
        svg += "<title>\(xmlEscaped(title))</title>\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"

        // Bands, grid and curves are drawn in a nested viewport, which clips them to the plot area.
        svg += "<svg \(plot) viewBox=\"\(n(left)) \(n(top)) \(n(right - left)) \(n(bottom - top))\" overflow=\"hidden\">\n"
        for band in bands {
            let (a, b) = (x.position(band.from), x.position(band.to))
            guard a.isFinite, b.isFinite else { continue }
            svg += "<rect x=\"\(n(min(a, b)))\" y=\"\(n(top))\" width=\"\(n(abs(b - a)))\" height=\"\(n(bottom - top))\""
                + " fill=\"#e8a33d\" fill-opacity=\"0.2\"/>\n"
        }
        let minorGrid = xTicks.minor.map { "M\(n(x.position($0))) \(n(top))V\(n(bottom))" }
            + yTicks.minor.map { "M\(n(left)) \(n(y.position($0)))H\(n(right))" }
        let majorGrid = xTicks.major.map { "M\(n(x.position($0.value))) \(n(top))V\(n(bottom))" }
            + yTicks.major.map { "M\(n(left)) \(n(y.position($0.value)))H\(n(right))" }
        if !minorGrid.isEmpty { svg += "<path d=\"\(minorGrid.joined())\" stroke=\"#f0f0f0\"/>\n" }
        if !majorGrid.isEmpty { svg += "<path d=\"\(majorGrid.joined())\" stroke=\"#d8d8d8\"/>\n" }
        for s in series {
            let d = Self.pathData(s.points, x: x, y: y)
            guard !d.isEmpty else { continue }
            svg += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(xmlEscaped(s.colour))\" stroke-width=\"1.5\""
                + " stroke-linejoin=\"round\"\(s.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
        }
        svg += "</svg>\n"
        svg += "<rect \(plot) fill=\"none\" stroke=\"#666\"/>\n"

        // Band labels, inside the top of the plot area.
        for band in bands {
            let centre = x.position(middle(band.from, band.to, logarithmic: xAxis.logarithmic))
            guard centre.isFinite, !band.label.isEmpty else { continue }
            svg += "<text x=\"\(n(min(max(centre, left + 4), right - 4)))\" y=\"\(n(top + 14))\" text-anchor=\"middle\""
                + " font-size=\"11\" fill=\"#8a5a00\">\(xmlEscaped(band.label))</text>\n"
        }

        // Tick labels and axis labels.
        svg += "<g text-anchor=\"middle\" fill=\"#444\">\n"
        for tick in xTicks.major {
            svg += "<text x=\"\(n(x.position(tick.value)))\" y=\"\(n(bottom + 16))\">\(xmlEscaped(tick.label))</text>\n"
        }
        svg += "</g>\n<g text-anchor=\"end\" fill=\"#444\">\n"
        for tick in yTicks.major {
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(y.position(tick.value)))\" dy=\"0.35em\">\(xmlEscaped(tick.label))</text>\n"
        }
        svg += "</g>\n"
        svg += "<text x=\"\(n((left + right) / 2))\" y=\"\(n(height - 10))\" text-anchor=\"middle\" font-size=\"13\">"
            + "\(xmlEscaped(xAxis.label))</text>\n"
        svg += "<text transform=\"translate(16 \(n((top + bottom) / 2))) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">"
            + "\(xmlEscaped(yAxis.label))</text>\n"
        if !title.isEmpty {
            svg += "<text x=\"\(n((left + right) / 2))\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">"
                + "\(xmlEscaped(title))</text>\n"
        }

        // Legend: one row under the title, left-aligned with the plot.
        if series.count > 1 {
            var itemX = left
            let rowY = top - 14
            for s in series {
                svg += "<path d=\"M\(n(itemX)) \(n(rowY))h24\" stroke=\"\(xmlEscaped(s.colour))\" stroke-width=\"2\""
                    + "\(s.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
                svg += "<text x=\"\(n(itemX + 30))\" y=\"\(n(rowY))\" dy=\"0.35em\">\(xmlEscaped(s.name))</text>\n"
                itemX += 30 + textWidth(s.name) + 18
            }
        }
        svg += "</svg>\n"
        return svg
    }

    /// The axis range, or the finite data (positive only on a log axis) rounded out to tick values;
    /// `padded` keeps a linear curve off the frame (for y, where the frame would hide half the line).
    private static func resolvedRange(_ axis: PlotAxis, values: [Double], padded: Bool) -> ClosedRange<Double> {
        if let range = axis.range, range.lowerBound.isFinite, range.upperBound.isFinite,
           range.lowerBound < range.upperBound, !axis.logarithmic || range.lowerBound > 0 {
            return range
        }
        let data = values.filter { $0.isFinite && (!axis.logarithmic || $0 > 0) }
        guard var low = data.min(), var high = data.max() else { return axis.logarithmic ? 20...20_000 : 0...1 }
        if axis.logarithmic {
            if high / low < 1.01 { low /= 2; high *= 2 }
            return AxisTicks.logFloor(low)...AxisTicks.logCeiling(high)
        }
        if high - low < 1e-9 * max(1, abs(high)) { low -= max(1, abs(low) * 0.1); high += max(1, abs(high) * 0.1) }
        let padding = padded ? (high - low) * 0.03 : 0
        let step = AxisTicks.niceStep((high - low) / 6)
        return ((low - padding) / step).rounded(.down) * step...((high + padding) / step).rounded(.up) * step
    }

    /// SVG path data for points: gaps at unplottable points, points far outside the x range dropped,
    /// coordinates rounded to 0.1 px and repeats removed.
    private static func pathData(_ points: [(x: Double, y: Double)], x: AxisScale, y: AxisScale) -> String {
        let (xLow, xHigh) = (min(x.from, x.to), max(x.from, x.to))
        let (yLow, yHigh) = (min(y.from, y.to), max(y.from, y.to))
        let pixels: [(x: Double, y: Double)?] = points.map { p in
            guard !p.y.isNaN, p.x.isFinite else { return nil }
            let px = x.position(p.x)
            let beyond = (y.to - y.from) * 0.01
            var py = p.y.isInfinite ? (p.y > 0 ? y.to + beyond : y.from - beyond) : y.position(p.y)
            guard px.isFinite, !py.isNaN else { return nil }
            py = min(max(py, yLow - (yHigh - yLow)), yHigh + (yHigh - yLow))
            return (min(max(px, xLow - (xHigh - xLow)), xHigh + (xHigh - xLow)), py)
        }
        func inside(_ i: Int) -> Bool {
            guard i >= 0, i < pixels.count, let p = pixels[i] else { return false }
            return p.x >= xLow && p.x <= xHigh
        }
        var d = ""
        var penDown = false
        var last = ""
        for (i, pixel) in pixels.enumerated() {
            guard let p = pixel, inside(i) || inside(i - 1) || inside(i + 1) else { penDown = false; continue }
            let pair = "\(n(p.x)),\(n(p.y))"
            if penDown && pair == last { continue }
            d += penDown ? " " + pair : "M" + pair
            penDown = true
            last = pair
        }
        return d
    }
}

/// Maps data values to pixels along one axis (`from` is the pixel of the range's lower bound).
private struct AxisScale {
    let low: Double, high: Double, logarithmic: Bool, from: Double, to: Double

    init(range: ClosedRange<Double>, logarithmic: Bool, from: Double, to: Double) {
        self.logarithmic = logarithmic
        low = logarithmic ? log10(range.lowerBound) : range.lowerBound
        high = logarithmic ? log10(range.upperBound) : range.upperBound
        self.from = from
        self.to = to
    }

    /// NaN for values a log axis cannot show (≤ 0).
    func position(_ value: Double) -> Double {
        let t = logarithmic ? (value > 0 ? log10(value) : .nan) : value
        return from + (t - low) / (high - low) * (to - from)
    }
}

/// Labelled (major) and unlabelled (minor) tick values of one axis, spaced so labels do not collide.
private struct AxisTicks {
    var major: [(value: Double, label: String)] = []
    var minor: [Double] = []

    /// - Parameter labelWidth: the room a label needs along the axis, in px.
    init(range: ClosedRange<Double>, logarithmic: Bool, lengthPx: Double, labelWidth: (String) -> Double) {
        if logarithmic, let ticks = Self.logTicks(range, lengthPx: lengthPx, labelWidth: labelWidth) {
            self = ticks
            return
        }
        // Linear: the finest 1-2-5 step whose labels fit, at most one per 28 px.
        let span = range.upperBound - range.lowerBound
        var step = Self.niceStep(span / max(1, (lengthPx / 28).rounded(.down)))
        while true {
            let values = Self.multiples(of: step, in: range)
            let labels = values.map { Self.label($0) }
            let spacing = lengthPx * step / span
            if zip(labels, labels.dropFirst()).allSatisfy({ (labelWidth($0) + labelWidth($1)) / 2 <= spacing }) {
                major = zip(values, labels).map { ($0, $1) }
                return
            }
            step = Self.niceStep(step * 1.5)
        }
    }

    private init(major: [(value: Double, label: String)], minor: [Double]) {
        self.major = major
        self.minor = minor
    }

    /// Decade ticks thinned from 1…9 to 1-2-5 to 1 to every few decades until the labels fit;
    /// nil when fewer than two fit (a range under a decade), for linear ticks instead.
    private static func logTicks(_ range: ClosedRange<Double>, lengthPx: Double,
                                 labelWidth: (String) -> Double) -> AxisTicks? {
        let (lowDecade, highDecade) = (Int(log10(range.lowerBound).rounded(.down)), Int(log10(range.upperBound).rounded(.up)))
        let pxPerDecade = lengthPx / log10(range.upperBound / range.lowerBound)
        func values(_ mantissas: [Double], everyDecades k: Int = 1) -> [Double] {
            var values: [Double] = []
            for decade in lowDecade...highDecade where decade % k == 0 {
                let power = pow(10, Double(abs(decade)))
                for mantissa in mantissas {
                    let value = decade >= 0 ? mantissa * power : mantissa / power
                    if value >= range.lowerBound * (1 - 1e-9) && value <= range.upperBound * (1 + 1e-9) { values.append(value) }
                }
            }
            return values
        }
        let all = Array(stride(from: 1.0, through: 9, by: 1))
        let candidates = [values(all), values([1, 2, 5]), values([1])] + [2, 3, 5, 10].map { values([1], everyDecades: $0) }
        for major in candidates where major.count >= 2 {
            let labels = major.map(label)
            let fits = major.indices.dropFirst().allSatisfy { i in
                log10(major[i] / major[i - 1]) * pxPerDecade >= (labelWidth(labels[i]) + labelWidth(labels[i - 1])) / 2
            }
            guard fits else { continue }
            let minor = pxPerDecade >= 40 ? values(all).filter { !major.contains($0) } : []
            return AxisTicks(major: zip(major, labels).map { ($0, $1) }, minor: minor)
        }
        return nil
    }

    /// The 1-2-5 × 10ⁿ step at or above `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw.isFinite, raw > 0 else { return 1 }
        let magnitude = pow(10, log10(raw).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw * (1 - 1e-9) } ?? 10 * magnitude
    }

    /// The 1-2-5 × 10ⁿ value at or below (``logFloor(_:)``) or above (``logCeiling(_:)``) a positive value.
    static func logFloor(_ value: Double) -> Double {
        let magnitude = pow(10, log10(value).rounded(.down))
        return [5.0, 2, 1].map { $0 * magnitude }.first { $0 <= value * (1 + 1e-9) } ?? magnitude
    }

    static func logCeiling(_ value: Double) -> Double {
        let magnitude = pow(10, log10(value).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= value * (1 - 1e-9) } ?? 10 * magnitude
    }

    static func multiples(of step: Double, in range: ClosedRange<Double>) -> [Double] {
        let first = (range.lowerBound / step - 1e-9).rounded(.up), last = (range.upperBound / step + 1e-9).rounded(.down)
        guard first <= last else { return [] }
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    /// A tick label: shortest decimal form, k and M for thousands and millions, a true minus sign.
    static func label(_ value: Double) -> String {
        let (scaled, suffix) = abs(value) >= 999_999.5 ? (value / 1e6, "M") : abs(value) >= 999.5 ? (value / 1e3, "k") : (value, "")
        let text = shortestDecimal(scaled) + suffix
        return text.hasPrefix("-") ? "\u{2212}" + text.dropFirst() : text
    }
}

/// The shortest decimal (up to 6 places) that rounds back to `value` within a part per million.
private func shortestDecimal(_ value: Double) -> String {
    guard abs(value) < 1e12 else { return "\(value)" }
    var places = 0
    var scale = 1.0
    while places < 6 && abs(value * scale - (value * scale).rounded()) > 1e-6 * max(1, abs(value * scale)) {
        places += 1
        scale *= 10
    }
    let digits = Int(abs(value * scale).rounded())
    guard digits != 0 else { return "0" }
    let unit = Int(scale)
    var text = (value < 0 ? "-" : "") + String(digits / unit)
    if places > 0 {
        let fraction = String(digits % unit)
        text += "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
    return text
}

/// A coordinate rounded to 0.1 px, without a trailing ".0".
private func n(_ value: Double) -> String {
    let tenths = value.isFinite ? Int((min(max(value, -1e9), 1e9) * 10).rounded()) : 0
    let magnitude = abs(tenths)
    return (tenths < 0 ? "-" : "") + String(magnitude / 10) + (magnitude % 10 == 0 ? "" : "." + String(magnitude % 10))
}

/// Width of 12 px text, estimated generously (0.6 em per character) so labels never touch.
private func textWidth(_ text: String) -> Double { Double(text.count) * 7.2 }

/// The middle of a span: geometric on a log axis.
private func middle(_ a: Double, _ b: Double, logarithmic: Bool) -> Double { logarithmic ? (a * b).squareRoot() : (a + b) / 2 }

/// Text safe inside XML and HTML elements and attributes (&, <, >, both quotes); characters XML 1.0
/// forbids are dropped. The SVG plots and the catalogue's index page use it.
package func xmlEscaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
        default:
            if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
            escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
