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

/// `shades stimuli …`: folders of study stimuli with an index.json.
struct StimuliCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stimuli",
        abstract: "Write a folder of study stimuli and an index.json describing each file.",
        subcommands: [Audiometry.self, PitchMatch.self, ResidualInhibition.self, TinnitusQuality.self, RevCorr.self])

    /// Options every set shares; `Level` words `--level`'s help for the set (its default, or that it has none).
    struct SetOptions<Level: OptionHelp>: ParsableArguments {
        @Option(name: .shortAndLong, parsing: .unconditional, help: "Output folder: new, empty, or holding a set, which the new set replaces whole (created if missing).")
        var output: String

        @OptionGroup var level: LevelOption<Level>

        @OptionGroup var sampleRate: RateOption<SetHelp.Rate>

        @OptionGroup var sampleFormat: SampleFormatOption<SetHelp.Format>

        @OptionGroup var fileType: ContainerOption

        func parsed() throws -> (level: Double, rate: Double, container: Container) {
            let container = try fileType.parsed() ?? .wav
            if let format = sampleFormat.format { _ = try AudioFileFormat(container: container, sampleFormat: format) }
            let rate = try sampleRate.hertz() ?? 48_000
            try Parameter.rate.check(rate, within: .wholeSampleRates)
            return (try level.dBFS() ?? -20, rate, container)
        }
    }

    struct Audiometry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pulsed tones at the audiometric frequencies, per ear.",
            usage: "shades stimuli audiometry [--ear <ear>] [<options>] --output <folder>",
            discussion: """
                Standard frequencies 125, 250, 500, 1000, 2000, 3000, 4000, 6000, 8000 Hz; --extended adds 9, 10, \
                11.2, 12.5, 14 and 16 kHz; --frequencies replaces the list (TinnitusNavigator's custom ones).
                Example:
                  shades stimuli audiometry --ear both -o audiometry/
                """)

        @OptionGroup var set: SetOptions<SetHelp.Level>

        @OptionGroup var ear: EarOption<AudiometryHelp.SetEar>

        @OptionGroup var frequencies: AudiometricFrequencyOptions<AudiometryHelp.SetFrequencies>

        @Option(parsing: .unconditional, help: "On/off times of the pulses.")
        var pulse: String = "200ms/200ms"

        @Option(parsing: .unconditional, help: "Raised-cosine rise/fall of each pulse.")
        var ramp: String = "25ms"

        @Option(name: .customLong("pulse-count"), parsing: .unconditional, help: "Pulses per file (default 3).")
        var pulseCount: String = "3"

        func run() throws {
            let (level, rate, container) = try set.parsed()
            // The set's files go left ear first.
            let ears: [ChannelLayout] = try ear.ears().reversed().map { $0 == .left ? .left : .right }
            let list = try frequencies.list()
            let parts = pulse.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw ShadesError(.pulse, .other("is not an on/off pair"), value: .text("'\(pulse)'"), allowed: AllowedValues(note: "on/off times such as 200ms/200ms"))
            }
            let pulses = Pulses(onSeconds: try ValueParsing.seconds(String(parts[0]), parameter: .pulseOn),
                                offSeconds: try ValueParsing.seconds(String(parts[1]), parameter: .pulseOff),
                                rampSeconds: try ValueParsing.seconds(ramp, parameter: .ramp),
                                count: try ValueParsing.count(pulseCount, .pulseCount))
            let items = try StimulusSets.audiometry(frequencies: list, ears: ears, pulses: pulses,
                                                    durationSeconds: pulses.countedDurationSeconds ?? 1,
                                                    levelDBFS: level, sampleRate: rate)
            try writeSet(items, name: "audiometry", options: set, container: container)
        }
    }

    struct PitchMatch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pitch-match",
            abstract: "Tones and ½-octave narrow-band noises on a quarter-octave grid for pitch matching.",
            usage: "shades stimuli pitch-match [<options>] --output <folder>",
            discussion: """
                For each frequency from --from to --to in --step octaves: a 1 s pure tone and a 1 s ½-octave \
                narrow-band noise with 10 ms raised-cosine ramps, all at equal RMS. --octave-check F also writes \
                the octave-confusion triple F/2, F, 2F.
                Example:
                  shades stimuli pitch-match -o pitch/
                """)

        @OptionGroup var set: SetOptions<SetHelp.Level>

        @Option(parsing: .unconditional, help: "Lowest frequency.")
        var from: String = "1kHz"

        @Option(parsing: .unconditional, help: "Highest frequency.")
        var to: String = "16kHz"

        @Option(parsing: .unconditional, help: "Grid step in octaves.")
        var step: String = "0.25"

        @Option(name: .customLong("octave-check"), parsing: .unconditional, help: "Also write tones at F/2, F and 2F.")
        var octaveCheck: String?

        @OptionGroup var layout: ChannelsOption<SetHelp.Channels>

        @OptionGroup var seed: SeedOption<SetHelp.Seed>

        func run() throws {
            let (level, rate, container) = try set.parsed()
            let channels = layout.channels ?? .diotic
            var items = try StimulusSets.pitchMatch(fromHz: try ValueParsing.hertz(from, parameter: .fromFrequency),
                                                    toHz: try ValueParsing.hertz(to, parameter: .toFrequency),
                                                    stepOctaves: try ValueParsing.number(step, parameter: .step),
                                                    layout: channels, levelDBFS: level, sampleRate: rate, seed: try seed.value(default: 1))
            if let octaveCheck {
                items += try StimulusSets.octaveCheck(frequencyHz: try ValueParsing.hertz(octaveCheck, parameter: .octaveCheck),
                                                      layout: channels, levelDBFS: level, sampleRate: rate)
            }
            try writeSet(items, name: "pitch-match", options: set, container: container)
        }
    }
}

extension StimuliCommand {
    struct ResidualInhibition: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "residual-inhibition",
            abstract: "A residual-inhibition masker (band noise at F, then silence) and minimum-masking-level probes.",
            usage: "shades stimuli residual-inhibition --frequency <f> [<options>] -o <dir>",
            discussion: """
                The masker: narrow-band noise centred on --frequency, --width octaves wide (e.g. 1 for a narrow \
                band, 2.6 for a broad 2–12 kHz band at 4.9 kHz), --masker long (60 s: Feldmann 1971; the effect \
                levels off there), at --above dB over --reference (the patient's threshold or minimum masking \
                level in dBFS; MML + 10 dB in clinical protocols), raised-cosine --onset ramp, --offset ramp (0:
                abrupt), then --silence of digital silence. The probes: the same noise, --probe long, from \
                --mml-from to --mml-to dB re the reference in --mml-step (1 or 2 dB) steps. --reference-from takes \
                the reference level, the frequency and the band width from a `shades mml` or `shades \
                loudness-match` result. \
                Examples:
                  shades stimuli residual-inhibition --frequency 4kHz -o ri/
                  shades stimuli residual-inhibition --reference-from mml.json -o ri/
                """)

        @OptionGroup var set: SetOptions<SetHelp.NoLevel>

        @Option(parsing: .unconditional, help: "Tinnitus frequency: the band's centre (default: --reference-from's).")
        var frequency: String?

        @Option(parsing: .unconditional, help: "Band width in octaves (default 1, or --reference-from's band).")
        var width: String?

        @Option(parsing: .unconditional, help: "Reference level (threshold or minimum masking level), dBFS (default -40).")
        var reference: String?

        @Option(name: .customLong("reference-from"), parsing: .unconditional, help: "The reference level, frequency and band from the JSON written by one of `shades mml`, `shades mril`, `shades loudness-match`.")
        var referenceFrom: String?

        @Option(parsing: .unconditional, help: "Masker level above the reference, dB.")
        var above: String = "10"

        @Option(parsing: .unconditional, help: "Masker length.")
        var masker: String = "60s"

        @Option(parsing: .unconditional, help: "Silence after the masker.")
        var silence: String = "60s"

        @Option(parsing: .unconditional, help: "Raised-cosine onset ramp.")
        var onset: String = "500ms"

        @Option(parsing: .unconditional, help: "Raised-cosine offset ramp (0 for an abrupt offset).")
        var offset: String = "10ms"

        @Option(name: .customLong("mml-from"), parsing: .unconditional, help: "Lowest probe level re the reference, dB.")
        var mmlFrom: String = "-10"

        @Option(name: .customLong("mml-to"), parsing: .unconditional, help: "Highest probe level re the reference, dB.")
        var mmlTo: String = "20"

        @Option(name: .customLong("mml-step"), parsing: .unconditional, help: "Probe step, 1 or 2 dB.")
        var mmlStep: String = "2"

        @Option(parsing: .unconditional, help: "Probe length.")
        var probe: String = "5s"

        @OptionGroup var layout: ChannelsOption<SetHelp.Channels>

        @OptionGroup var seed: SeedOption<SetHelp.Seed>

        func run() throws {
            if set.level.level != nil {
                throw ShadesError.usage("--level does not apply to residual-inhibition (allowed: --reference and --above for the masker, --mml-from and --mml-to for the probes)")
            }
            let (_, rate, container) = try set.parsed()
            func seconds(_ text: String, _ parameter: ParameterID) throws -> Double { try ValueParsing.seconds(text, parameter: parameter) }
            func decibels(_ text: String, _ parameter: ParameterID) throws -> Double { try ValueParsing.decibels(text, parameter: parameter) }
            let measured = try referenceFrom.map(readTinnitusReference)
            if reference != nil && measured != nil {
                throw ShadesError.usage("--reference cannot be combined with --reference-from (allowed: one or the other)")
            }
            guard let frequencyHz = try frequency.map({ try ValueParsing.hertz($0, parameter: .frequency) }) ?? measured?.frequencyHz else {
                throw ShadesError.usage("give the tinnitus frequency: --frequency F or --reference-from FILE")
            }
            let items = try StimulusSets.residualInhibition(
                frequencyHz: frequencyHz, widthOctaves: try optionalNumber(width, .width) ?? measured?.widthOctaves ?? 1,
                referenceDBFS: try measured?.levelDBFS ?? decibels(reference ?? "-40", .reference), aboveDB: try decibels(above, .above),
                maskerSeconds: try seconds(masker, .masker), silenceSeconds: try seconds(silence, .silence),
                onsetRampSeconds: try seconds(onset, .onsetRamp), offsetRampSeconds: try seconds(offset, .offsetRamp),
                probeFromDB: try decibels(mmlFrom, .probeFrom), probeToDB: try decibels(mmlTo, .probeTo),
                probeStepDB: try decibels(mmlStep, .mmlStep), probeSeconds: try seconds(probe, .probe),
                layout: layout.channels ?? .diotic, sampleRate: rate, seed: try seed.value(default: 1))
            try writeSet(items, name: "residual-inhibition", options: set, container: container,
                         inputs: referenceFrom.map { [CommandInput($0, name: "--reference-from")] } ?? [])
        }
    }
}

/// "125,250,1kHz" → [125, 250, 1000]; an empty list or an entry that does not parse is an error.
func parseFrequencyList(_ text: String) throws -> [Double] {
    let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmed }
    guard !entries.allSatisfy(\.isEmpty) else {
        throw ShadesError(parameter: .frequencies, value: "'\(text)'", problem: "is an empty list",
                          allowed: "one or more frequencies in Hz, e.g. 125,250,1kHz")
    }
    return try entries.map { entry in
        do { return try ValueParsing.hertz(entry, parameter: .frequencies) } catch {
            throw ShadesError(parameter: .frequencies, value: "entry '\(entry)'", problem: "does not parse",
                              allowed: "frequencies such as 125, 1kHz or 440Hz, separated by commas")
        }
    }
}

/// Writes the set into `-o`, after checking that none of its files is one of `inputs`, in the sample format
/// its quietest file needs (or the asked one, refused when it cannot carry that file).
func writeSet<Level>(_ items: [StimulusSets.Item], name: String, options: StimuliCommand.SetOptions<Level>, container: Container,
              inputs: [CommandInput] = [], bins: (edgesHz: [Double], scale: String)? = nil) throws {
    let files = items.map { "\($0.entry.file).\(container.rawValue)" } + ["index.json"]
    try CommandPaths.checkOutput(files: files, inFolder: options.output, inputs: inputs)
    let (format, reason) = try StimulusSets.sampleFormat(for: items, asked: options.sampleFormat.format, container: container)
    let index = try StimulusSets.write(items, set: name, to: options.output, sampleFormat: format, container: container, bins: bins)
    print("wrote \(index.files.count) files and index.json to \(options.output)" + (reason.map { " (\(format.rawValue): \($0))" } ?? ""))
}
