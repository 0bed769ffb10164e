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

// Reverse correlation of the tinnitus spectrum (Hoyland et al. 2023): `stimuli revcorr` writes the random
// binned spectra, `revcorr simulate` answers them as a simulated listener, `revcorr reconstruct` estimates the
// spectrum from the answers (ReverseCorrelation in ShadesProcedures).

extension StimuliCommand {
    struct RevCorr: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            commandName: "revcorr",
            abstract: "Random binned-spectrum noises for reverse correlation of the tinnitus spectrum.",
            usage: "shades stimuli revcorr [--count <n>] [--bins <n>] [<options>] -o <dir>",
            discussion: """
                Each stimulus: noise whose range (--from … --to) is split into --bins bins of equal width in log \
                frequency (--scale mel: in mels, as the paper), of which a random number in --filled (each \
                count equally likely) are at 0 dB and the rest at --unfilled dB; random phases, one inverse FFT \
                over the whole --duration, 10 ms ramps, at --level RMS. The defaults are Hoyland et al. 2023's \
                (IEEE Open J Eng Med Biol 4): 8 bins, 100 Hz … 13 kHz, 2 … 7 filled, -100 dB, 500 ms. The \
                listener answers yes or no ("like my tinnitus?") to each, and the spectrum comes from \
                `shades revcorr reconstruct`. index.json lists the bin edges (binEdgesHz) and each file's bin levels \
                (binLevelsDB).
                Example:
                  shades stimuli revcorr --count 200 --seed 3 -o revcorr/
                """)

        @OptionGroup var set: StimuliCommand.SetOptions<SetHelp.Level>

        @Option(parsing: .unconditional, help: "Number of stimuli, 1 … 20000 (default 200: the paper's two blocks of 100).")
        var count: String = "200"

        @Option(parsing: .unconditional, help: "Number of frequency bins, 2 … 512 (default 8).")
        var bins: String = "8"

        @Option(parsing: .unconditional, help: "The lowest bin's lower edge (default 100Hz).")
        var from: String = "100Hz"

        @Option(parsing: .unconditional, help: "The highest bin's upper edge, below Nyquist (default 13kHz).")
        var to: String = "13kHz"

        @Option(parsing: .unconditional, help: "log or mel: bins of equal width in log frequency or in mels (default log).")
        var scale: String = "log"

        @Option(parsing: .unconditional, help: "How many bins are filled: MIN-MAX or N, 1 … bins - 1 (default 2-7).")
        var filled: String = "2-7"

        @Option(parsing: .unconditional, help: "Level of the unfilled bins, -120 … -10 dB (default -100).")
        var unfilled: String = "-100"

        @Option(parsing: .unconditional, help: "Length of each stimulus (default 500ms).")
        var duration: String = "500ms"

        @OptionGroup var layout: ChannelsOption<SetHelp.Channels>

        @OptionGroup var seed: SeedOption<SetHelp.Seed>

        static let parameters: [ParameterID: String] = [.stimulusCount: "count", .binCount: "bins", .binLow: "from", .binHigh: "to",
                                                         .binScale: "scale", .filledBins: "filled", .unfilledLevel: "unfilled"]

        func run() throws {
            let (level, rate, container) = try set.parsed()
            guard let scale = BinnedNoise.Scale(rawValue: scale.lowercased()) else {
                throw ShadesError(parameter: .binScale, value: "'\(self.scale)'", problem: "is not a bin scale", allowed: "log or mel")
            }
            let binCount = try ValueParsing.count(bins, .binCount)
            let parts = filled.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(parts.count), parts.allSatisfy({ Double($0) != nil }) else {
                throw ShadesError(parameter: .filledBins, value: "'\(filled)'", problem: "is not a count or a range", allowed: "MIN-MAX or N, e.g. 2-7")
            }
            let fewest = try ValueParsing.count(parts[0], .filledBins), most = try ValueParsing.count(parts.last!, .filledBins)
            let design = try ReverseCorrelation.Design(
                lowHz: try ValueParsing.hertz(from, parameter: .binLow), highHz: try ValueParsing.hertz(to, parameter: .binHigh),
                binCount: binCount, scale: scale, fewestFilled: fewest, mostFilled: most,
                unfilledDB: try ValueParsing.decibels(unfilled, parameter: .unfilledLevel))
            let items = try ReverseCorrelation.stimuli(design, count: try ValueParsing.count(count, .stimulusCount),
                                                       durationSeconds: try ValueParsing.seconds(duration, parameter: .duration),
                                                       levelDBFS: level, layout: layout.channels ?? .diotic, sampleRate: rate,
                                                       seed: try seed.value(default: 1))
            try writeSet(items, name: "revcorr", options: set, container: container, bins: (design.edgesHz, scale.rawValue))
        }
    }
}

/// `shades revcorr …`: the answers to a reverse-correlation set, and the spectrum they give.
struct RevCorrCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revcorr",
        abstract: "Reconstruct the tinnitus spectrum from yes/no answers to `stimuli revcorr` (reverse correlation).",
        subcommands: [Reconstruct.self, Simulate.self])

    /// The index.json at `path` (the file, or the folder holding it).
    static func readIndex(_ path: String) throws -> StimulusIndex {
        var info = stat()
        let file = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? path + "/index.json" : path
        let index = try readProcedureFile(StimulusIndex.self, file, option: .indexFile, what: "a stimulus index",
                                          allowed: "the index.json `shades stimuli revcorr` writes")
        guard index.binEdgesHz != nil, index.files.allSatisfy({ $0.binLevelsDB != nil }) else {
            throw ShadesError(parameter: .indexFile, value: file, problem: "has no bin levels", allowed: "the index.json of `shades stimuli revcorr`")
        }
        return index
    }

    struct Reconstruct: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            abstract: "Estimate the tinnitus spectrum from the answers to a `stimuli revcorr` set.",
            usage: "shades revcorr reconstruct <answers> [--index <index.json>] [<options>]",
            discussion: """
                ANSWERS is a CSV file, one `stimulus,answer` per line (an optional header line `stimulus,answer`; \
                # comments), or a JSON array of {"stimulus": …, "answer": …}: the stimulus is a file name of \
                index.json (with or without its extension) or its number there from 1; the answer yes or no \
                (y/n, 1/0, true/false). --method linear is Hoyland et al. 2023's Eq. 2, x = (1/p)·Ψᵀy with each \
                bin's levels centred and y = ±1 (the mean "yes" stimulus minus the mean "no" one); ridge the \
                full Normal equation (ΨᵀΨ + λI)⁻¹Ψᵀy; cs the paper's compressed sensing (sparse in the DCT \
                basis, Zhang et al. 2014's one-bit passive algorithm, 32 coefficients). The result lists each bin's edges, centre, weight and \
                standardised weight (mean 0, SD 1; higher: more like the tinnitus).
                Example:
                  shades revcorr reconstruct answers.csv --index revcorr/index.json \\
                    -o spectrum.json
                """)

        @Argument(help: "The answers: CSV (stimulus,answer) or JSON.")
        var answers: String

        @Option(parsing: .unconditional, help: "The set's index.json or its folder (default: index.json beside ANSWERS).")
        var index: String?

        @Option(parsing: .unconditional, help: "linear (the paper's Eq. 2), ridge or cs (compressed sensing; default linear).")
        var method: String = "linear"

        @OptionGroup var result: ResultOptions

        static let parameters: [ParameterID: String] = [.answersFile: "answers", .indexFile: "index", .reconstruction: "method"]

        /// The reconstruction as written.
        struct Spectrum: Encodable {
            let procedure = "reverse correlation"
            let method: String
            let answers: Int
            let yes: Int
            let scale: String?
            let binEdgesHz: [Double]
            let binCentresHz: [Double]
            let weights: [Double]
            let standardised: [Double]
            /// The centre of the bin with the largest weight, Hz.
            let peakHz: Double
        }

        func run() throws {
            guard let method = ReverseCorrelation.Method(rawValue: method.lowercased()) else {
                throw ShadesError(parameter: .reconstruction, value: "'\(self.method)'", problem: "is not a reconstruction method", allowed: "linear, ridge or cs")
            }
            let indexPath = index ?? answers.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + (answers.contains("/") ? "" : ".")
            try result.checkOutput(inputs: [CommandInput(answers, name: "ANSWERS"), CommandInput(indexPath, name: "--index")])
            let index = try RevCorrCommand.readIndex(indexPath)
            let rows = try readAnswers(answers)
            let (stimuli, answered) = try ReverseCorrelation.answered(rows, index: index)
            let weights = try ReverseCorrelation.reconstruct(stimuli: stimuli, answers: answered, method: method)
            let edges = index.binEdgesHz!
            let centres = zip(edges, edges.dropFirst()).map { ($0 * $1).squareRoot() }
            let peak = centres[weights.indices.max { weights[$0] < weights[$1] }!]
            let spectrum = Spectrum(method: method.rawValue, answers: answered.count, yes: answered.filter { $0 }.count, scale: index.binScale,
                                    binEdgesHz: edges, binCentresHz: centres, weights: weights,
                                    standardised: ReverseCorrelation.standardised(weights), peakHz: peak)
            // The run of bins above the mean around the strongest one.
            let top = weights.indices.max { weights[$0] < weights[$1] }!
            var (first, last) = (top, top)
            while first > 0, spectrum.standardised[first - 1] > 0 { first -= 1 }
            while last < weights.count - 1, spectrum.standardised[last + 1] > 0 { last += 1 }
            try result.write(spectrum, summary: [
                "spectrum from \(spectrum.answers) answers (\(spectrum.yes) yes), \(method.rawValue): strongest in the bin around "
                    + "\(formatNumber(peak, roundedTo: 0)) Hz, above the mean from \(formatNumber(edges[first], roundedTo: 0)) to "
                    + "\(formatNumber(edges[last + 1], roundedTo: 0)) Hz",
            ])
        }

        /// The rows of the answers file: CSV, or JSON by its first character.
        private func readAnswers(_ path: String) throws -> [ReverseCorrelation.TypedAnswer] {
            let bytes = try FileSystem.readFile(path, upTo: 16 << 20)
            guard bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") else {
                return try ReverseCorrelation.csvRows(String(decoding: bytes, as: UTF8.self))
            }
            struct Row: Decodable {
                let stimulus: String, answer: String
                enum Keys: String, CodingKey { case stimulus, answer }
                init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: Keys.self)
                    stimulus = try (try? c.decode(String.self, forKey: .stimulus)) ?? String(c.decode(Int.self, forKey: .stimulus))
                    answer = try (try? c.decode(String.self, forKey: .answer)) ?? String(c.decode(Bool.self, forKey: .answer))
                }
            }
            do {
                return try JSONDecoder().decode([Row].self, from: Data(bytes)).map { ReverseCorrelation.TypedAnswer(stimulus: $0.stimulus, answer: $0.answer) }
            } catch {
                throw ShadesError(parameter: .answersFile, value: path, problem: "is not a list of answers",
                                  allowed: #"a JSON array of {"stimulus": "revcorr-0001.wav", "answer": "yes"}, or CSV lines stimulus,answer"#)
            }
        }
    }

    struct Simulate: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            abstract: "Answer a `stimuli revcorr` set as a simulated listener with a known tinnitus spectrum (CSV).",
            usage: "shades revcorr simulate --index <f> --frequency <hz> [<options>] -o <csv>",
            discussion: """
                The simulated tinnitus is a peak at --frequency, --width octaves wide at half its height (40 dB, \
                Gaussian in log frequency) in the set's bins. It answers yes when a stimulus' bin levels correlate \
                with it (Pearson's r) above 0 after Gaussian noise of SD --noise is added to r (0: the paper's \
                ideal listener).
                Example:
                  shades revcorr simulate --index revcorr/index.json --frequency 4kHz \\
                    -o answers.csv
                """)

        @Option(parsing: .unconditional, help: "The set's index.json or its folder.")
        var index: String

        @Option(parsing: .unconditional, help: "The simulated tinnitus' peak, within the set's range.")
        var frequency: String

        @Option(parsing: .unconditional, help: "Its width in octaves at half height, 0.1 … 6 (default 1).")
        var width: String = "1"

        @Option(parsing: .unconditional, help: "SD of the noise added to the correlation, 0 … 1 (default 0.1).")
        var noise: String = "0.1"

        @OptionGroup var seed: SeedOption<ProcedureHelp.SimulationSeed>

        @Option(name: .shortAndLong, parsing: .unconditional, help: "The answers CSV to write.")
        var output: String

        static let parameters: [ParameterID: String] = [.indexFile: "index", .frequency: "frequency", .width: "width", .listenerNoise: "noise"]

        func run() throws {
            try CommandPaths.checkOutput(output, inputs: [CommandInput(index, name: "--index")])
            let index = try RevCorrCommand.readIndex(index)
            let edges = index.binEdgesHz!
            let peakHz = try ValueParsing.hertz(frequency, parameter: .frequency)
            try Parameter(.frequency, unit: .hertz).check(peakHz, within: ParameterRange(edges.first!...edges.last!, unit: .hertz),
                                                          note: "(the set's range)")
            let widthOctaves = try ValueParsing.number(width, parameter: .width)
            try Parameter(.width, unit: .octaves).check(widthOctaves, within: ParameterRange(0.1...6, unit: .octaves))
            let noiseSD = try ValueParsing.number(noise, parameter: .listenerNoise)
            try Parameter(.listenerNoise, unit: .none).check(noiseSD, within: ParameterRange(0...1))
            let centres = zip(edges, edges.dropFirst()).map { ($0 * $1).squareRoot() }
            var listener = SimulatedSpectrumListener(spectrumDB: SimulatedSpectrumListener.peak(at: peakHz, widthOctaves: widthOctaves, centresHz: centres),
                                                     noise: noiseSD, seed: try seed.value(default: 1))
            var csv = "stimulus,answer\n"
            var yes = 0
            for file in index.files {
                let answer = listener.answer(file.binLevelsDB!)
                yes += answer ? 1 : 0
                csv += "\(file.file),\(answer ? "yes" : "no")\n"
            }
            try AtomicFile.write(Array(csv.utf8), to: output)
            print("wrote \(index.files.count) answers (\(yes) yes) to \(output)")
        }
    }
}

extension ParameterID {
    /// `revcorr`: the set's index, the reconstruction method, a simulated listener's noise.
    static let indexFile = ParameterID(rawValue: "index file")
    static let reconstruction = ParameterID(rawValue: "reconstruction method")
    static let listenerNoise = ParameterID(rawValue: "listener noise")
}
