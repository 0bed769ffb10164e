import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesPlatform

extension Resampler.Quality: ExpressibleByArgument {}

/// The shape of every notch: width and the boosted bands beside it (Stein 2016).
struct NotchShapeOptions: ParameterOptions {
    @Option(parsing: .unconditional, help: "Notch width in octaves, (0, 3] (1 by default; Stein 2016: 0.5).")
    var width: String?

    @Option(name: .customLong("edge-boost"), parsing: .unconditional, help: "Gain of the bands beside each notch, 0 … 30 dB (Stein 2016: 20dB).")
    var edgeBoost: String?

    @Option(name: .customLong("edge-width"), parsing: .unconditional, help: "Width of each boosted band in octaves (default and Stein 2016: 0.375; with --edge-boost).")
    var edgeWidth: String?

    static let parameters: [ParameterID: String] = [.notchWidth: "width", .edgeBoost: "edgeBoost", .edgeWidth: "edgeWidth"]

    /// Notches at the centres in `texts` (each may hold several separated by commas), of this shape.
    func specs(_ texts: [String], parameter: ParameterID) throws -> [NotchSpec] {
        if edgeBoost == nil && edgeWidth != nil {
            throw ShadesError.usage("--edge-width applies to --edge-boost, which is not given (allowed: --edge-width with --edge-boost)")
        }
        let boost = try edgeBoost.map { try ValueParsing.decibels($0, parameter: .edgeBoost) } ?? Parameter.edgeBoost.defaultValue!
        let width = try optionalNumber(width, .notchWidth) ?? Parameter.notchWidth.defaultValue!
        let edgeWidth = try optionalNumber(edgeWidth, .edgeWidth) ?? Parameter.edgeWidth.defaultValue!
        return try texts.flatMap { text in
            try text.split(separator: ",", omittingEmptySubsequences: false).map { entry in
                NotchSpec(centreHz: try ValueParsing.hertz(String(entry), parameter: parameter), widthOctaves: width,
                          edgeBoostDB: boost, edgeWidthOctaves: edgeWidth)
            }
        }
    }
}

/// `shades notch-filter --frequency F -o ir.wav --pipewire notch.conf`: a system-wide notch; with `--audiogram`,
/// a hearing profile (each ear's compensation and the notch).
struct NotchFilterCommand: ParsableCommand, ParameterOptions {
    static let configuration = CommandConfiguration(
        commandName: "notch-filter",
        abstract: "Write a notch's impulse response (float WAV) and a PipeWire filter-chain configuration that applies it.",
        usage: "shades notch-filter --frequency <frequency> [<options>] -o <file>",
        discussion: """
            The same linear-phase notch as `shades notch` (at least 100 dB deep in the band), as a convolution \
            kernel for PipeWire's builtin convolver: a stereo virtual sink that notches everything played into \
            it (streaming services, videos). The kernel delays the sound by half its length (printed). \
            Run the configuration with `pipewire -c /absolute/path/notch.conf` (its first lines say how to start \
            it with PipeWire).
            With --audiogram it is a hearing profile, one filter per ear: the ear's half-gain compensation \
            (capped at --max-gain) and the notch, lowered by the largest gain (the preamp: turn the volume up \
            instead); the impulse response is stereo (left ear, right ear), which EasyEffects' convolver also \
            loads, and --parametric writes an AutoEq-style list of peaking filters that approximates it.
            Examples:
              shades notch-filter --frequency 6kHz -o notch-6k.wav --pipewire notch-6k.conf
              shades notch-filter --frequency 6kHz --audiogram audiogram.json \\
                -o profile.wav --pipewire profile.conf --parametric profile.txt
            """)

    @Option(parsing: .unconditionalSingleValue, help: "Notch centre(s): 6000, 6kHz; several separated by commas.")
    var frequency: [String] = []

    @OptionGroup var shape: NotchShapeOptions

    @OptionGroup var sampleRate: RateOption<NotchHelp.FilterRate>

    @Option(name: .shortAndLong, parsing: .unconditional, help: "The impulse response (.wav, 32-bit float; mono, or stereo per ear with --audiogram).")
    var output: String

    @Option(parsing: .unconditional, help: "Also write a PipeWire filter-chain configuration loading the impulse response (run it: pipewire -c FILE).")
    var pipewire: String?

    @Option(parsing: .unconditional, help: "A hearing profile: each ear of this audiogram (`shades audiometry -o`, dB HL) compensated by the half-gain rule, with the notch.")
    var audiogram: String?

    @Option(name: .customLong("max-gain"), parsing: .unconditional, help: "The largest compensation, 0 … 60 dB (default \(formatNumber(SpectralShape.defaultMaximumGainDB)) dB; with --audiogram).")
    var maxGain: String?

    @Option(parsing: .unconditional, help: "Also write the profile as an AutoEq-style parametric equaliser list (.txt; with --audiogram).")
    var parametric: String?

    static let parameters: [ParameterID: String] = [.audiogram: "audiogram", .maximumGain: "maxGain"]

    func run() throws {
        let notches = try shape.specs(frequency, parameter: .notchCentre)
        guard !notches.isEmpty else { throw ShadesError.usage("notch frequency is missing (allowed: --frequency F, e.g. 6kHz)") }
        let rate = try sampleRate.hertz() ?? 48_000
        let design = try NotchDesign(notches: notches, sampleRate: rate)
        try CommandPaths.checkOutput(output, inputs: [])
        guard output.lowercased().hasSuffix(".wav") else {
            throw ShadesError(parameter: .output, value: output, allowed: "a .wav file (PipeWire's convolver reads WAV)")
        }
        for (flag, given) in [("--max-gain", maxGain != nil), ("--parametric", parametric != nil)] where given && audiogram == nil {
            throw ShadesError.usage("\(flag) applies to --audiogram, which is not given (allowed: \(flag) with --audiogram)")
        }
        let profile = try audiogram.map { try profileFilter($0, notch: design) }
        // The configuration names the impulse response: one must not replace the other, nor the list either.
        var written = [CommandInput(output, name: "-o")] + (audiogram.map { [CommandInput($0, name: "--audiogram")] } ?? [])
        if let pipewire {
            try CommandPaths.checkOutput(pipewire, option: "--pipewire", inputs: written)
            written.append(CommandInput(pipewire, name: "--pipewire"))
        }
        if let parametric { try CommandPaths.checkOutput(parametric, option: "--parametric", inputs: written) }
        if let profile {
            try profile.writeImpulseResponse(to: output)
        } else {
            try NotchFilterExport.writeImpulseResponse(of: design, to: output)
        }
        if let pipewire {
            let text = NotchFilterExport.pipeWireConfiguration(impulseResponsePath: PathIdentity.canonical(output),
                                                               configurationPath: PathIdentity.canonical(pipewire), design: design, profile: profile)
            try AtomicFile.write(Array(text.utf8), to: pipewire)
        }
        var list: ParametricProfile?
        if let parametric, let profile {
            list = ParametricProfile(profile)
            let comment = "Shades hearing profile: half-gain compensation of \(audiogram!.lastPathComponent), notch \(profile.notchSummary), \(formatNumber(rate)) Hz"
            try AtomicFile.write(Array(list!.text(comment: comment).utf8), to: parametric)
        }
        let latencyFrames = profile?.latencyFrames ?? design.groupDelayFrames
        let latency = Double(latencyFrames) / rate
        print("wrote \(output): \(2 * latencyFrames + 1) taps\(profile == nil ? "" : " per ear") at \(formatNumber(rate)) Hz, latency \(latencyFrames) frames "
              + "(\(formatNumber(latency * 1000, roundedTo: 2)) ms)" + (profile.map { ", preamp \(formatNumber($0.preampDB, roundedTo: 1)) dB" } ?? "")
              + (pipewire.map { "; PipeWire configuration \($0)" } ?? ""))
        if let parametric, let list {
            print("wrote \(parametric): \(list.peaks[0].count) peaking filters per ear, within \(formatNumber(list.worstCompensationErrorDB, roundedTo: 1)) dB "
                  + "of the compensation outside the notch, notch at least \(formatNumber(-list.shallowestNotchDB, roundedTo: 0)) dB deep")
        }
        if design.isLengthCapped { print("note: the kernel is at its length cap: transitions wider than specified") }
    }

    /// The hearing profile of `path`'s ears (half-gain rule, capped at --max-gain) with the notch `design`.
    private func profileFilter(_ path: String, notch design: NotchDesign) throws -> HearingProfileFilter {
        let maxGain = try ValueParsing.decibels(self.maxGain ?? "\(SpectralShape.defaultMaximumGainDB)", parameter: .maximumGain)
        guard (0...60).contains(maxGain) else {
            throw ShadesError(.maximumGain, .outOfRange, value: .number(maxGain, .decibels), allowed: AllowedValues(range: ParameterRange(0...60, unit: .decibels)))
        }
        let file = try readAudiogram(path)
        let ears = [Ears.left, .right].filter { !file.thresholds(ear: $0).isEmpty }
        guard !ears.isEmpty else { throw ShadesError(parameter: .audiogram, value: path, allowed: "an audiogram with thresholds of at least one ear") }
        // An ear the audiogram lacks takes the other's compensation.
        let curves = try [Ears.left, .right].map { ear in
            try SpectralShape.halfGain(file, ear: ears.contains(ear) ? ear : ears[0], maximumGainDB: maxGain, source: path.lastPathComponent).curve
        }
        return try HearingProfileFilter(notch: design, compensations: curves)
    }
}

/// `shades notch FILE… --frequency F -o OUT`: tailor-made notched music.
struct NotchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notch",
        abstract: "Remove the band around a tinnitus frequency from any music file (tailor-made notched music).",
        discussion: """
            Reads any format libsndfile reads (WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF …), block by block, and \
            writes WAV or FLAC of exactly the input's length, sample-aligned with it (the filter delay is \
            removed). Notches are at least 100 dB deep inside the band (Okamoto 2010: 1 octave; Stein 2016:
            ½ octave with the 3/8-octave bands beside it raised by 20 dB). The whole file is lowered just \
            enough for its true peak to stay at or below --ceiling (-1 dBTP); the gain is reported. \
            Warns when the music has less than 1 % of its power in the notch and the half octaves beside it. \
            Several inputs are processed in parallel on all cores; -o is then a folder.

            Examples:
              shades notch song.mp3 --frequency 6kHz -o song-notched.wav
              shades notch song.ogg --frequency 4kHz --width 0.5 --edge-boost 20dB \\
                -o out.wav
              shades notch song.flac --left 4kHz --right 6.3kHz -o song-notched.flac
              shades notch a.flac b.flac --frequency 5.2kHz -o outdir/
            """)

    @Argument(help: "Input files (any format libsndfile reads).")
    var inputs: [String]

    @Option(parsing: .unconditionalSingleValue, help: "Notch centre for every channel: 6000, 6kHz; several separated by commas or repeated.")
    var frequency: [String] = []

    @OptionGroup var match: FromMatchOption

    @Option(parsing: .unconditionalSingleValue, help: "Notch centre(s) for the left channel only (bilateral tinnitus; stereo input).")
    var left: [String] = []

    @Option(parsing: .unconditionalSingleValue, help: "Notch centre(s) for the right channel only.")
    var right: [String] = []

    @OptionGroup var shape: NotchShapeOptions

    @OptionGroup var sampleRate: RateOption<NotchHelp.Rate>

    @Option(parsing: .unconditional, help: "Resampler quality with --rate: best (passband to 0.95 × the lower Nyquist, 140 dB; the default), medium (0.90, 120 dB) or fastest (0.80, 100 dB).")
    var quality: Resampler.Quality?

    @OptionGroup var sampleFormat: SampleFormatOption<NotchHelp.Format>

    @Option(parsing: .unconditional, help: "Highest true peak of the output in dBTP, -20 … 0.")
    var ceiling: String?

    @OptionGroup var fileType: ContainerOption

    @OptionGroup var printing: JSONOption

    @Option(name: .shortAndLong, parsing: .unconditional, help: "Output file (.wav or .flac) in an existing folder, or a folder (ending in /, made if missing) for one or more inputs.")
    var output: String

    func run() throws {
        let jobs = try makeJobs()
        let results = jobs.count == 1 ? [Result { () throws(ShadesError) in try NotchedMusic.process(jobs[0]) }]
                                      : NotchedMusic.processBatch(jobs)
        var reports: [NotchReport] = []
        var failures: [(String, ShadesError)] = []
        for (job, result) in zip(jobs, results) {
            switch result {
            case .success(let report):
                reports.append(report)
                if let warning = report.lengthWarning { printWarning(warning) }
            case .failure(let error): failures.append((job.inputPath, error))
            }
        }
        if printing.json {
            print(String(decoding: try prettyJSON(reports), as: UTF8.self))
        } else {
            for report in reports { print(Self.summary(report)) }
        }
        if jobs.count == 1, let (_, error) = failures.first { throw error }
        if !failures.isEmpty {
            // One line per failed file; the last one ends the command.
            for (input, error) in failures.dropLast() {
                printError("\(input): \(error.described(naming: { ParameterFlags.names(for: self)[$0] }))")
            }
            let (input, error) = failures.last!
            let usage = failures.allSatisfy { $0.1.kind == .parameter }
            throw ShadesError(usage ? .parameter : .runtime,
                              "\(input): \(error.described(naming: { ParameterFlags.names(for: self)[$0] })) (\(failures.count) of \(jobs.count) files failed)")
        }
    }

    func makeJobs() throws -> [NotchJob] {
        guard !inputs.isEmpty else { throw ShadesError.usage("no input file given") }
        func specs(_ texts: [String], parameter: ParameterID) throws -> [NotchSpec] { try shape.specs(texts, parameter: parameter) }
        let notches: [NotchSpec]
        if !left.isEmpty || !right.isEmpty {
            guard frequency.isEmpty else {
                throw ShadesError.usage("--frequency cannot be combined with --left/--right (allowed: one or the other)")
            }
            notches = .perEar(left: try specs(left, parameter: .leftNotches), right: try specs(right, parameter: .rightNotches))
        } else {
            var centres = frequency
            if match.fromMatch != nil {
                guard frequency.isEmpty else {
                    throw ShadesError.usage("--frequency cannot be combined with --from-match (allowed: one or the other)")
                }
                centres = try match.frequencyHz().map { [String($0)] } ?? []
            }
            guard !centres.isEmpty else {
                throw ShadesError.usage("notch needs --frequency (or --left and/or --right) (allowed: a frequency such as 6kHz)")
            }
            notches = try specs(centres, parameter: .notchCentre)
        }
        let outputRate = try sampleRate.hertz()
        if quality != nil && outputRate == nil {
            throw ShadesError.usage("--quality applies to --rate, which is not given (allowed: --quality with --rate)")
        }
        let ceiling = try self.ceiling.map { try ValueParsing.decibels($0, parameter: .ceiling) } ?? -1
        var info = stat()
        let toFolder = output.hasSuffix("/") || (stat(output, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR)
        if inputs.count > 1 && !toFolder {
            throw ShadesError.usage("-o \(output) must be a folder for \(inputs.count) inputs (allowed: an existing folder or a path ending in /)")
        }
        if fileType.container != nil && !toFolder {
            throw ShadesError.usage("--container applies to a folder of outputs; -o \(output) is a file, whose name ends in its type (allowed: --container with -o FOLDER/)")
        }
        let ext = (try fileType.parsed() ?? .wav).rawValue
        let files = inputs.map { CommandInput($0) }
        for file in files { try CommandPaths.checkReadableFile(file.path) }
        try CommandPaths.checkDistinct(files)
        let read = files + [match.input].compactMap { $0 }
        var jobs: [NotchJob] = []
        for input in inputs {
            var path = output
            if toFolder {
                let name = input.lastPathComponent.deletingPathExtension
                path = (output.hasSuffix("/") ? output : output + "/") + "\(name)-notched.\(ext)"
            }
            try CommandPaths.checkOutput(path, inputs: read, createsFolders: toFolder)
            if let other = jobs.first(where: { PathIdentity($0.outputPath) == PathIdentity(path) }) {
                throw ShadesError.usage("-o \(output): \(other.inputPath) and \(input) would both be written to \(path) "
                                        + "(allowed: inputs of different names)")
            }
            jobs.append(NotchJob(inputPath: input, outputPath: path, notches: notches, outputRateHz: outputRate,
                                 resamplerQuality: quality ?? .best, sampleFormat: sampleFormat.format ?? .s24, ceilingDBTP: ceiling))
        }
        return jobs
    }

    static func summary(_ r: NotchReport) -> String {
        func db(_ v: Double) -> String { String(format: "%+.2f", v) }
        var lines = ["wrote \(r.output): \(String(format: "%.1f", Double(r.frames) / r.sampleRate)) s, \(Int(r.sampleRate)) Hz, \(r.channels) ch, \(r.sampleFormat.rawValue); true peak \(db(r.inputTruePeakDBTP)) dBTP in, \(db(r.truePeakBeforeGainDBTP)) notched, gain \(db(r.gainDB)) dB → \(db(r.truePeakDBTP)) dBTP"]
        for s in r.suitability {
            lines.append("  notch \(Int(s.lowerEdgeHz.rounded()))–\(Int(s.upperEdgeHz.rounded())) Hz (channels \(s.channels.map { String($0 + 1) }.joined(separator: ","))): \(String(format: "%.2f", s.bandSharePercent)) % of the power in the band, \(String(format: "%.2f", s.belowSharePercent)) % in the half octave below, \(String(format: "%.2f", s.aboveSharePercent)) % above (\(String(format: "%.1f", s.nearLevelDB)) dB together)")
            if let w = s.warning { lines.append("  warning: \(w)") }
        }
        for note in r.notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }
}
