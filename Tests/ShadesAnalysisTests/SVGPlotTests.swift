import Testing
import ShadesAnalysis
import ShadesDSP
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// SVG plots: well-formed, labelled with units, robust to non-finite data, small enough to embed.
@Suite struct SVGPlotTests {
    /// A 1/f spectrum with ±2 dB of deterministic ripple, as a 65,536-point Welch estimate at 48 kHz has.
    static func pinkSpectrum(bins: Int = 65_537, sampleRate: Double = 48_000) -> PowerSpectrum {
        let binWidth = sampleRate / Double(2 * (bins - 1))
        var state: UInt64 = 12_345
        let density = (0..<bins).map { k -> Double in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let ripple = Double(state >> 11) / Double(1 << 53) * 4 - 2
            return 1e-6 / max(Double(k) * binWidth, 1) * Decibels.amplitude(ripple)
        }
        return PowerSpectrum(binWidthHz: binWidth, density: density)
    }

    static func notch(fromHz: Double, toHz: Double) -> (frequencies: [Double], gains: [Double]) {
        let frequencies = (0...4_000).map { 20 * pow(1000, Double($0) / 4_000) }
        let centre = (fromHz * toHz).squareRoot()
        let gains = frequencies.map { f -> Double in
            let octaves = abs(log2(f / centre)) / log2(toHz / fromHz) * 2
            return octaves < 1 ? -40 * (1 - pow(octaves, 8)) : 0
        }
        return (frequencies, gains)
    }

    @Test func spectrumPlotIsWellFormedWithLabelledAxesAndTicks() throws {
        let plot = SpectrumPlot.spectrum(Self.pinkSpectrum(), title: "Pink noise", sampleRate: 48_000)
        let document = try SVGDocument(plot.svg())
        #expect(document.root == "svg")
        #expect(document.texts.contains("Frequency (Hz)"))
        #expect(document.texts.contains("Power density (dB re FS²/Hz)"))
        #expect(document.texts.contains("Pink noise"))
        for label in ["20", "50", "100", "200", "500", "1k", "2k", "5k", "10k", "20k"] {
            #expect(document.texts.contains(label), "tick label \(label)")
        }
        #expect(document.texts.contains { $0.hasPrefix("\u{2212}") && $0.hasSuffix("0") }, "negative dB ticks")
        #expect(document.count(of: "path", where: { $0["stroke"] == PlotSeries.palette[0] }) == 1)
        #expect(!document.texts.contains("Measured"), "no legend for a single series")
    }

    @Test func idealLineAddsADashedSeriesAndALegend() throws {
        let plot = SpectrumPlot.spectrum(Self.pinkSpectrum(), title: "Pink", sampleRate: 48_000, idealSlopeDBPerOctave: -3.0103)
        let document = try SVGDocument(plot.svg())
        #expect(document.texts.contains("Measured"))
        #expect(document.texts.contains("Ideal \u{2212}3.0 dB/octave"))
        #expect(document.count(of: "path", where: { $0["stroke-dasharray"] != nil }) == 2, "ideal curve and its legend sample")
    }

    @Test func largeSpectrumStaysSmallAndCoarse() throws {
        let plot = SpectrumPlot.spectrum(Self.pinkSpectrum(), title: "Pink", sampleRate: 48_000, idealSlopeDBPerOctave: -3.0103)
        #expect(plot.series[0].points.count <= SpectrumPlot.maxPoints)
        #expect(plot.series[0].points.allSatisfy { (20...20_000).contains($0.x) })
        let svg = plot.svg()
        #expect(svg.utf8.count < 60_000, "\(svg.utf8.count) bytes")
        #expect(!svg.contains(".00"), "coordinates rounded to 0.1 px")
    }

    @Test func transferFunctionShadesTheNotchBand() throws {
        let (frequencies, gains) = Self.notch(fromHz: 4_243, toHz: 8_485)
        let plot = SpectrumPlot.transferFunction(frequenciesHz: frequencies, magnitudeDB: gains,
                                                 notchFromHz: 4_243, toHz: 8_485, title: "Notch 1 octave at 6 kHz")
        #expect(plot.series[0].points.count <= SpectrumPlot.maxPoints)
        #expect(plot.series[0].points.map(\.y).min() == gains.min(), "thinning keeps the notch depth")
        let document = try SVGDocument(plot.svg())
        #expect(document.texts.contains("Gain (dB)"))
        #expect(document.texts.contains("Notch 4.24–8.49 kHz"))
        #expect(document.count(of: "rect", where: { $0["fill-opacity"] != nil }) == 1)
    }

    @Test func thirdOctaveLevelsAreSteps() throws {
        let plot = SpectrumPlot.thirdOctaveLevels(Self.pinkSpectrum(), title: "Bands", sampleRate: 48_000)
        #expect(plot.series[0].points.count == 2 * 31)
        let document = try SVGDocument(plot.svg())
        #expect(document.texts.contains("Third-octave band level (dB re FS²)"))
    }

    @Test func nonFinitePointsBreakOrClampTheLine() throws {
        let x = [20.0, 50, 100, 200, 500, 1_000, -5, 2_000, 5_000, .infinity]
        let y = [-10.0, -12, .nan, -14, -.infinity, -20, -21, .infinity, -30, -31]
        let plot = LinePlot(title: "Gaps", xAxis: PlotAxis(label: "Frequency (Hz)", logarithmic: true),
                            yAxis: PlotAxis(label: "Level (dB)"), series: [PlotSeries(name: "a", x: x, y: y)])
        let svg = plot.svg()
        let document = try SVGDocument(svg)
        let d = try #require(document.attributes(of: "path").first { $0["stroke"] == PlotSeries.palette[0] }?["d"])
        #expect(!d.lowercased().contains("nan") && !d.lowercased().contains("inf"))
        #expect(d.filter { $0 == "M" }.count == 3, "NaN y and x ≤ 0 on a log axis each start a new line: \(d)")
        #expect(d.filter { $0 == "," }.count == 7, "seven points drawn, −∞ and +∞ levels clamped to the edges: \(d)")
    }

    @Test func emptyPlotStillHasAxes() throws {
        let plot = LinePlot(title: "", xAxis: PlotAxis(label: "Time (s)"), yAxis: PlotAxis(label: "Level (dBFS)"),
                            series: [PlotSeries(name: "none", points: [])])
        let document = try SVGDocument(plot.svg())
        #expect(document.texts.contains("Time (s)") && document.texts.contains("Level (dBFS)"))
        #expect(document.texts.contains("0") && document.texts.contains("1"))
    }

    @Test func textIsEscapedAndInlineFormHasNoDeclaration() throws {
        let plot = LinePlot(title: "A <b> & \"c\" 'd'\u{1}", xAxis: PlotAxis(label: "x < 1"), yAxis: PlotAxis(label: "y & z"),
                            series: [PlotSeries(name: "s", x: [0, 1], y: [0, 1], colour: "red\"/><script"),
                                     PlotSeries(name: "<t>", x: [0, 1], y: [1, 0])])
        let standalone = plot.svg()
        let inline = plot.svg(standalone: false)
        #expect(standalone.hasPrefix("<?xml"))
        #expect(inline.hasPrefix("<svg") && !inline.contains("<?xml"))
        #expect(!inline.contains("<script") && !inline.contains("<b>"))
        let document = try SVGDocument(inline)
        #expect(document.texts.contains("A <b> & \"c\" 'd'"))
        #expect(document.texts.contains("<t>"))
        #expect(inline.contains("viewBox=\"0 0 720 405\"") && inline.contains("width=\"100%\""))
        #expect(!inline.contains("<style") && !inline.contains(" id=") && !inline.contains("href"), "self-contained, embeddable")
    }
}

/// The elements of an SVG parsed with Foundation's XMLParser: fails on malformed XML.
private final class SVGDocument: NSObject, XMLParserDelegate {
    private(set) var elements: [(name: String, attributes: [String: String])] = []
    private(set) var texts: [String] = []
    private var text = ""
    var root: String? { elements.first?.name }

    struct Malformed: Error { let description: String }

    init(_ svg: String) throws {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        guard parser.parse() else { throw Malformed(description: "\(parser.parserError.map { "\($0)" } ?? "unknown")") }
    }

    func attributes(of name: String) -> [[String: String]] { elements.filter { $0.name == name }.map(\.attributes) }
    func count(of name: String, where test: ([String: String]) -> Bool) -> Int { attributes(of: name).filter(test).count }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append((elementName, attributes))
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == "text" { texts.append(text) }
        text = ""
    }
}
