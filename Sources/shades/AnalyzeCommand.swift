import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender

/// `shades analyze FILE`: proves a sound is what it claims.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Measure a sound file: levels, loudness, spectrum, tone, modulation, loop seam, ambient level, notch.",
        usage: "shades analyze <file> [--reference <file>] [--notch <freq>] [<options>]",
        discussion: """
            Reads any file libsndfile reads, block by block (a 2-hour file is fine), and prints a table \
            (--json for machines). Tone and modulation are reported when present (THD+N below -20 dB; \
            depth of at least 2 %, the envelope's line significant at a 0.1 % false-alarm rate and no other \
            line beside it, as music's rhythm has), measured on the first 3 minutes of the first channel. \
            The loop seam is checked for loops (comment loop=true, or --loop); a noise colour is named for \
            noise-like spectra only. With --reference the notch check compares the files where the \
            reference has content: at least 60 dB above the output's own noise (a reference at another \
            rate is resampled with libsamplerate). \
            Examples:
              shades analyze pink.wav --colour pink --plot pink.svg
              shades analyze out.wav --reference song.wav --notch 6kHz --plot notch.svg
              shades analyze street.wav --calibration 94dB@-20dBFS --listen 2h --json
            """)

    @Argument(help: "The file to measure.")
    var file: String

    @OptionGroup var printing: JSONOption

    @Option(parsing: .unconditional, help: "Write an SVG plot: the spectrum, or with --reference the notch's transfer function.")
    var plot: String?

    @Option(parsing: .unconditional, help: "Expected colour (white, pink, brown, blue, violet or a β in [-2, 2]): report the deviation from its line.")
    var colour: String?

    @Option(parsing: .unconditional, help: "The unprocessed input, for a notch check of FILE against it.")
    var reference: String?

    @Option(parsing: .unconditional, help: "Notch centre frequency (with --reference); found from the transfer function if omitted.")
    var notch: String?

    @Option(parsing: .unconditional, help: "Notch width in octaves (default 1; with --notch).")
    var width: String?

    @Flag(help: "Check the loop seam: the file is a loop (files whose comment says loop=true are checked anyway).")
    var loop = false

    @OptionGroup var calibration: SPLCalibrationOption

    @Option(parsing: .unconditional, help: "Listening time for a NIOSH daily noise dose (needs --calibration), e.g. 2h.")
    var listen: String?

    func run() throws {
        var options = AnalysisOptions()
        if let colour {
            if let named = NoiseColour.named.first(where: { $0.name == colour.lowercased() }) {
                options.expectedColour = named.colour
            } else {
                let allowed = AllowedValues(note: "white, pink, brown, blue, violet or a β in [-2, 2]")
                guard let beta = try? ValueParsing.number(colour, parameter: .colour) else {
                    throw ShadesError(.colour, .other("is unknown"), value: .given(colour), allowed: allowed)
                }
                guard NoiseColour.allowedBeta.contains(beta) else { throw ShadesError(.colour, .outOfRange, value: .number(beta, .none), allowed: allowed) }
                options.expectedColour = try NoiseColour(beta: beta)
            }
        }
        if notch != nil && reference == nil {
            throw ShadesError(.bandCentre, .other("needs a reference"), value: .given(notch!),
                              allowed: AllowedValues(note: "--notch together with --reference INPUT"))
        }
        options.referencePath = reference
        options.loop = loop
        if let notch {
            options.notch = try OctaveBand(centreHz: try ValueParsing.hertz(notch, parameter: .bandCentre),
                                           widthOctaves: try optionalNumber(width, .bandWidth) ?? 1)
        } else if width != nil {
            throw ShadesError.usage("--width applies to --notch, which is not given (allowed: --width with --notch)")
        }
        options.calibration = try calibration.parsed()
        if let listen {
            guard options.calibration != nil else {
                throw ShadesError(parameter: .listeningTime, value: listen, problem: "needs a calibration",
                                  allowed: "--listen together with --calibration 94dB@-20dBFS")
            }
            let seconds = try ValueParsing.seconds(listen, parameter: .listeningTime)
            try Parameter(.listeningTime, unit: .seconds, range: Parameter.duration.range).check(seconds)
            options.listeningSeconds = seconds
        }
        if let plot {
            let inputs = [CommandInput(file)] + (reference.map { [CommandInput($0, name: "--reference")] } ?? [])
            try CommandPaths.checkOutput(plot, option: "--plot", inputs: inputs)
        }

        let analysis = try FileAnalysis.analyze(path: file, options: options)
        if let warning = analysis.report.lengthWarning { printWarning(warning) }
        if let plot { try writePlot(analysis, to: plot) }
        if printing.json {
            print(String(decoding: try prettyJSON(analysis.report), as: UTF8.self))
        } else {
            print(ReportTable.text(analysis.report))
        }
    }

    func writePlot(_ analysis: FileAnalysis, to path: String) throws {
        let report = analysis.report
        let name = report.file.lastPathComponent
        let svg: String
        if let notch = report.notch {
            // Bands where the reference has no content above the output's noise are gaps, not levels.
            svg = SpectrumPlot.transferFunction(frequenciesHz: notch.curve.map(\.frequencyHz),
                                                magnitudeDB: notch.curve.map { $0.compared ? $0.levelDB : .nan },
                                                notchFromHz: notch.band?.lowerEdgeHz, toHz: notch.band?.upperEdgeHz,
                                                title: "Notch check: \(name) against \(reference.map(\.lastPathComponent) ?? "reference")").svg()
        } else if let spectrum = analysis.spectrum {
            let ideal = report.spectrum.map { NoiseColour.pink.slopeDecibelsPerOctave * ($0.expectedBeta ?? $0.estimatedBeta) }
            svg = SpectrumPlot.spectrum(spectrum, title: "Spectrum of \(name)", sampleRate: report.sampleRate,
                                        idealSlopeDBPerOctave: ideal).svg()
        } else {
            throw ShadesError.runtime("\(report.file) is silent: there is no spectrum to plot")
        }
        try AtomicFile.write(Array(svg.utf8), to: path)
    }
}
