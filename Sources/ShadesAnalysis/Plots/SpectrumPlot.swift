import ShadesDSP
import ShadesPlatform

/// Ready-made plots of measurements: spectra on a log frequency axis and notch transfer functions.
package enum SpectrumPlot {
    /// Most points a curve gets: enough for a smooth line at any screen width, small enough to embed.
    package static let maxPoints = 600
    /// Lowest frequency plotted, in Hz.
    package static let lowestHz = 20.0
    /// Highest frequency plotted (when the Nyquist frequency allows), in Hz.
    package static let highestHz = 20_000.0

    /// Power spectral density in dB re FS²/Hz from 20 Hz to min(20 kHz, Nyquist), bins averaged (in power)
    /// into at most ``maxPoints`` log-spaced points.
    /// - Parameter idealSlopeDBPerOctave: adds the ideal straight line (e.g. −3.01 for pink noise) at the
    ///   mean level of the measured curve.
    package static func spectrum(_ spectrum: PowerSpectrum, title: String, sampleRate: Double,
                                idealSlopeDBPerOctave: Double? = nil) -> LinePlot {
        let top = max(min(highestHz, sampleRate / 2), 2 * lowestHz)
        let points = logAveraged(spectrum, from: lowestHz, to: top, count: maxPoints)
        var series = [PlotSeries(name: "Measured", points: points)]
        if let slope = idealSlopeDBPerOctave {
            let offsets = points.filter { $0.y.isFinite }.map { $0.y - slope * log2($0.x / 1000) }
            if !offsets.isEmpty {
                let level = offsets.reduce(0, +) / Double(offsets.count)
                series.append(PlotSeries(name: "Ideal \(signed(slope)) dB/octave",
                                         x: [lowestHz, top], y: [lowestHz, top].map { level + slope * log2($0 / 1000) },
                                         colour: PlotSeries.palette[1], dashed: true))
            }
        }
        return LinePlot(title: title,
                        xAxis: PlotAxis(label: "Frequency (Hz)", range: lowestHz...top, logarithmic: true),
                        yAxis: PlotAxis(label: "Power density (dB re FS²/Hz)", range: decibelRange(points.map(\.y))),
                        series: series)
    }

    /// Third-octave band levels in dB re FS² (mean square), drawn as steps across each band, for the
    /// bands from 20 Hz (nominal; 19.95 Hz exact) to min(20 kHz, Nyquist).
    package static func thirdOctaveLevels(_ spectrum: PowerSpectrum, title: String, sampleRate: Double) -> LinePlot {
        let bands = ThirdOctaveBand.bands(centredIn: lowestHz * 0.99...min(highestHz, sampleRate / 2))
            .filter { $0.upperEdgeHz <= sampleRate / 2 }
        let points = bands.flatMap { band in
            let level = Decibels.fromPower(spectrum.bandPower(from: band.lowerEdgeHz, to: band.upperEdgeHz))
            return [(x: band.lowerEdgeHz, y: level), (x: band.upperEdgeHz, y: level)]
        }
        let low = bands.first?.lowerEdgeHz ?? lowestHz, high = max(bands.last?.upperEdgeHz ?? highestHz, 2 * low)
        return LinePlot(title: title,
                        xAxis: PlotAxis(label: "Frequency (Hz)", range: low...high, logarithmic: true),
                        yAxis: PlotAxis(label: "Third-octave band level (dB re FS²)", range: decibelRange(points.map(\.y))),
                        series: [PlotSeries(name: "Band level", points: points)])
    }

    /// A filter's magnitude response in dB with the notch band `notchFromHz`…`toHz` shaded. Long curves are
    /// thinned to the lowest and highest point per log-spaced slot, so the notch depth survives.
    package static func transferFunction(frequenciesHz: [Double], magnitudeDB: [Double], notchFromHz: Double?, toHz: Double?,
                                        title: String) -> LinePlot {
        let frequencies = frequenciesHz.filter { $0 > 0 && $0.isFinite }
        let low = max(frequencies.min() ?? lowestHz, lowestHz)
        let high = max(min(frequencies.max() ?? highestHz, highestHz), 2 * low)
        let points = thinned(zip(frequenciesHz, magnitudeDB).map { (x: $0, y: $1) }.filter { $0.x > 0 && $0.x.isFinite })
        return LinePlot(title: title,
                        xAxis: PlotAxis(label: "Frequency (Hz)", range: low...high, logarithmic: true),
                        yAxis: PlotAxis(label: "Gain (dB)"),
                        series: [PlotSeries(name: "Magnitude", points: points)],
                        bands: notchFromHz.flatMap { from in toHz.map { [(from: from, to: $0, label: "Notch " + frequencySpan(from, $0))] } } ?? [])
    }

    /// Mean power of the bins in each of `count` log-spaced slots over [lowerHz, upperHz], in dB, at the
    /// slot's geometric mean frequency; empty slots (below the bin spacing) are left out.
    static func logAveraged(_ spectrum: PowerSpectrum, from lowerHz: Double, to upperHz: Double,
                            count: Int) -> [(x: Double, y: Double)] {
        guard spectrum.binWidthHz > 0, spectrum.binWidthHz.isFinite, lowerHz > 0, upperHz > lowerHz, count > 0 else { return [] }
        var power = [Double](repeating: 0, count: count)
        var logHz = [Double](repeating: 0, count: count)
        var bins = [Int](repeating: 0, count: count)
        let first = max(1, Int((lowerHz / spectrum.binWidthHz).rounded(.up)))
        let last = min(spectrum.density.count - 1, Int((upperHz / spectrum.binWidthHz).rounded(.down)))
        guard first <= last else { return [] }
        let slotsPerLog = Double(count) / log(upperHz / lowerHz)
        for k in first...last {
            let hz = Double(k) * spectrum.binWidthHz
            let slot = min(count - 1, max(0, Int(log(hz / lowerHz) * slotsPerLog)))
            power[slot] += spectrum.density[k]
            logHz[slot] += log(hz)
            bins[slot] += 1
        }
        return (0..<count).filter { bins[$0] > 0 }.map { slot in
            (x: exp(logHz[slot] / Double(bins[slot])), y: Decibels.fromPower(power[slot] / Double(bins[slot])))
        }
    }

    /// Keeps the lowest and highest point of each of ``maxPoints``/2 log-spaced slots, in order.
    static func thinned(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        guard points.count > maxPoints, let low = points.map(\.x).min(), let high = points.map(\.x).max(), high > low
        else { return points }
        let slots = maxPoints / 2
        var kept = Set<Int>()
        var extremes = [(low: Int, high: Int)?](repeating: nil, count: slots)
        for (i, p) in points.enumerated() where !p.y.isNaN {
            let slot = min(slots - 1, Int(log(p.x / low) / log(high / low) * Double(slots)))
            guard let e = extremes[slot] else { extremes[slot] = (i, i); continue }
            extremes[slot] = (p.y < points[e.low].y ? i : e.low, p.y > points[e.high].y ? i : e.high)
        }
        for e in extremes.compactMap({ $0 }) { kept.insert(e.low); kept.insert(e.high) }
        return kept.sorted().map { points[$0] }
    }

    /// 10 dB steps around the finite levels, at most 120 dB below the highest.
    static func decibelRange(_ levels: [Double]) -> ClosedRange<Double>? {
        let finite = levels.filter(\.isFinite)
        guard let highest = finite.max(), let lowest = finite.min() else { return nil }
        let top = ((highest + 1) / 10).rounded(.up) * 10
        let bottom = max(((lowest - 1) / 10).rounded(.down) * 10, top - 120)
        return bottom...max(top, bottom + 10)
    }

    /// "−3.0": one decimal with a true minus sign.
    private static func signed(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "\u{2212}" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// "4.24–8.49 kHz", "707 Hz–1.41 kHz": three significant figures at most.
    private static func frequencySpan(_ lowerHz: Double, _ upperHz: Double) -> String {
        let (lower, upper) = (frequency(lowerHz), frequency(upperHz))
        return lower.unit == upper.unit ? "\(lower.number)–\(upper.number) \(upper.unit)"
            : "\(lower.number) \(lower.unit)–\(upper.number) \(upper.unit)"
    }

    private static func frequency(_ hz: Double) -> (number: String, unit: String) {
        guard hz >= 999.5 else { return ("\(Int(hz.rounded()))", "Hz") }
        let kHz = hz / 1000
        let places = kHz >= 100 ? 0 : kHz >= 10 ? 1 : 2
        let scale = places == 0 ? 1.0 : places == 1 ? 10 : 100
        var text = "\(Int((kHz * scale).rounded()))"
        if places > 0 {
            text = String(repeating: "0", count: max(0, places + 1 - text.count)) + text
            text.insert(".", at: text.index(text.endIndex, offsetBy: -places))
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return (text, "kHz")
    }
}
