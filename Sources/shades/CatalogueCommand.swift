import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesCatalogue
import ShadesDSP
import ShadesRender
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

        @Option(name: .shortAndLong, help: "Output folder.")
        var output: String = "catalogue"

        @Option(name: .customLong("tinnitus-frequency"), help: "Add the personalised category for this frequency, e.g. 6kHz.")
        var tinnitusFrequency: String?

        @Option(name: .customLong("from-match"), help: "The tinnitus frequency from a `shades match -o` result file.")
        var fromMatch: String?

        @Option(help: "With --tinnitus-frequency: every readable file in this folder as notched music.")
        var music: String?

        @Option(help: "Sample rate of every asset (44100 or 48000 …).")
        var rate: String?

        @Option(help: "wav or flac.")
        var format: String?

        @Option(parsing: .unconditional, help: "Integrated loudness target, e.g. -23LUFS.")
        var loudness: String?

        @OptionGroup var shaping: AudiogramShapingOptions

        func run() throws {
            var overrides = CatalogueOverrides()
            overrides.rate = try rate.map { try ValueParsing.hertz($0, parameter: "rate") }
            overrides.loudnessLUFS = try loudness.map { try ValueParsing.loudness($0) }
            if tinnitusFrequency != nil && fromMatch != nil {
                throw ShadesError.usage("--tinnitus-frequency cannot be combined with --from-match (allowed: one or the other)")
            }
            let frequency = try tinnitusFrequency.map { try ValueParsing.hertz($0, parameter: "tinnitus-frequency") }
                ?? fromMatch.map(matchedFrequency)
            if let format {
                guard ["wav", "flac"].contains(format) else { throw ShadesError.usage("format \(format) is unknown (allowed: wav, flac)") }
                overrides.format = format
            }
            let documents: [(file: String, document: CatalogueDocument)]
            // Every problem in every file, one line each: the catalogue's files are the caller's input.
            do { documents = try PresetParser.loadCatalogue(folder: presets) } catch {
                throw ShadesError.usage(error.description)
            }
            var (assets, categories) = try PresetAssets.resolve(documents, overrides: overrides)
            if music != nil && frequency == nil {
                throw ShadesError.usage("--music needs --tinnitus-frequency (the notch is at the patient's frequency)")
            }
            let shape = try shaping.shape()
            if shape != nil && frequency == nil {
                throw ShadesError.usage("--audiogram shapes the personalised sounds: it needs --tinnitus-frequency or --from-match")
            }
            if let frequency, let defaults = documents.first?.document.defaults {
                let personal = try PresetAssets.personal(frequencyHz: frequency, defaults: defaults, overrides: overrides,
                                                         musicFolder: music, shape: shape)
                for skipped in personal.skipped { printWarning(skipped) }
                assets += personal.assets
                categories.append(personal.category)
            }

            let terminal = isatty(STDOUT_FILENO) == 1
            var parameters = ["presets": presets]
            if let music { parameters["music"] = music }
            if let rate { parameters["rate"] = rate }
            if let format { parameters["format"] = format }
            if let loudness { parameters["loudness"] = loudness }
            if let audiogram = shaping.audiogram { parameters["audiogram"] = audiogram }
            let manifest: Manifest
            do {
                manifest = try CatalogueBuilder.build(assets: assets, categories: categories, parameters: parameters, into: output) { p in
                    if terminal {
                        let width = 30, filled = p.total == 0 ? width : width * p.done / p.total
                        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
                        print("\r[\(bar)] \(p.done)/\(p.total) \(p.assetID)\(p.reused ? " (reused)" : "")\u{1B}[K", terminator: "")
                        fflush(nil)
                    } else {
                        print("\(p.done)/\(p.total) \(p.assetID)\(p.reused ? " (reused)" : "")")
                    }
                }
            } catch {
                if terminal { print("") }
                throw error
            }
            if terminal { print("") }
            print("catalogue: \(manifest.sounds.count) sounds in \(manifest.categories.count) categories in \(output) (manifest.json, index.html)")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-verify a built catalogue: files, hashes, loudness, true peak, seams.")

        @Argument(help: "The catalogue folder.")
        var folder: String = "catalogue"

        func run() throws {
            let problems = try CatalogueBuilder.check(folder: folder)
            guard problems.isEmpty else {
                for problem in problems.dropLast() { printError(problem) }
                throw ShadesError.runtime(problems.last!)
            }
            print("catalogue \(folder): every sound present, hashes, loudness, true peak and seams as built")
        }
    }
}
