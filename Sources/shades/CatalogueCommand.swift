import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesPlatform

/// `shades catalogue build|check`: the app's sound catalogue from Presets/.
struct CatalogueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalogue",
        abstract: "Build the app's sound catalogue from Presets/, or check a built one.",
        subcommands: [Build.self, Check.self])

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render Presets/*.json into loudness-matched, seamless assets with manifest.json and index.html.",
            usage: "shades catalogue build [<presets>] [--output <folder>] [<options>]",
            discussion: """
                Every asset is brought to the loudness target within ±0.1 LU with a true peak of at most -1 dBTP \
                (measured on the written file), loops are checked for seams, and the build is written \
                into a temporary folder and moved into place. Assets whose recipe did not change are reused. \
                Examples:
                  shades catalogue build Presets -o catalogue
                  shades catalogue build Presets -o catalogue --tinnitus-frequency 6kHz
                """)

        @Argument(help: "Folder of preset JSON files.")
        var presets: String = "Presets"

        @Option(name: .shortAndLong, parsing: .unconditional, help: "Output folder.")
        var output: String = "catalogue"

        @OptionGroup var tinnitusFrequency: TinnitusFrequencyOption<CatalogueHelp.TinnitusFrequency>

        @OptionGroup var match: FromMatchOption

        @Option(parsing: .unconditional, help: "With --tinnitus-frequency: every readable file in this folder as notched music.")
        var music: String?

        @OptionGroup var sampleRate: RateOption<CatalogueHelp.Rate>

        @Option(parsing: .unconditional, help: "wav or flac.")
        var format: String?

        @Option(parsing: .unconditional, help: "Integrated loudness target, e.g. -23LUFS.")
        var loudness: String?

        @OptionGroup var shaping: AudiogramShapingOptions

        func run() throws {
            if tinnitusFrequency.tinnitusFrequency != nil && match.fromMatch != nil {
                throw ShadesError.usage("--tinnitus-frequency cannot be combined with --from-match (allowed: one or the other)")
            }
            let frequency = try tinnitusFrequency.hertz() ?? match.frequencyHz()
            if let frequency { try Parameter.tinnitusFrequency.check(frequency) }
            if music != nil && frequency == nil {
                throw ShadesError.usage("--music needs --tinnitus-frequency (the notch is at the patient's frequency)")
            }
            var options = CatalogueOptions(tinnitusFrequencyHz: frequency, musicFolder: music)
            options.shape = try shaping.shape()
            if options.shape != nil && frequency == nil {
                throw ShadesError.usage("--audiogram shapes the personalised sounds: it needs --tinnitus-frequency or --from-match")
            }
            options.sampleRate = try sampleRate.hertz()
            if let rate = options.sampleRate { try Parameter.rate.check(rate, within: .wholeSampleRates) }
            options.loudnessLUFS = try loudness.map { try ValueParsing.loudness($0) }
            if let loudness = options.loudnessLUFS {
                try Parameter.loudness.check(loudness)
            }
            if let format {
                guard let container = Container(rawValue: format), [.wav, .flac].contains(container) else {
                    throw ShadesError(parameter: .sampleFormat, value: "'\(format)'", problem: "is unknown", allowed: "wav, flac")
                }
                options.container = container
            }
            var inputs = [CommandInput(presets, name: "the presets folder")]
            if let music { inputs.append(CommandInput(music, name: "--music")) }
            if let audiogram = shaping.audiogram { inputs.append(CommandInput(audiogram, name: "--audiogram")) }
            if let input = match.input { inputs.append(input) }
            try CommandPaths.checkOutputFolder(output, inputs: inputs)
            options.parameters = ["presets": presets]
            if let frequency { options.parameters["tinnitus-frequency"] = formatNumber(frequency, roundedTo: 2) + " Hz" }
            if let fromMatch = match.fromMatch { options.parameters["from-match"] = fromMatch }
            if let music { options.parameters["music"] = music }
            if let rate = sampleRate.rate { options.parameters["rate"] = rate }
            if let format { options.parameters["format"] = format }
            if let loudness { options.parameters["loudness"] = loudness }
            if let audiogram = shaping.audiogram { options.parameters["audiogram"] = audiogram }

            let terminal = isatty(STDOUT_FILENO) == 1
            let manifest: Manifest
            do {
                manifest = try Catalogue.build(presets: presets, into: output, options: options, warning: printWarning) { done, total, id, reused in
                    if terminal {
                        let width = 30, filled = total == 0 ? width : width * done / total
                        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
                        print("\r[\(bar)] \(done)/\(total) \(id)\(reused ? " (reused)" : "")\u{1B}[K", terminator: "")
                        fflush(nil)
                    } else {
                        print("\(done)/\(total) \(id)\(reused ? " (reused)" : "")")
                    }
                }
            } catch {
                if terminal { print("") }
                throw error
            }
            if terminal { print("") }
            print("catalogue: \(counted(manifest.sounds.count, "sound")) in \(counted(manifest.categories.count, "category", "categories")) in \(output) (manifest.json, index.html)")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-verify a built catalogue: files, hashes, loudness, true peak, seams.")

        @Argument(help: "The catalogue folder.")
        var folder: String = "catalogue"

        func run() throws {
            let problems = try Catalogue.check(folder: folder)
            guard problems.isEmpty else {
                for problem in problems.dropLast() { printError(problem) }
                throw ShadesError.runtime(problems.last!)
            }
            print("catalogue \(folder): every sound present, hashes, loudness, true peak and seams as built")
        }
    }
}
