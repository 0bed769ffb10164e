import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesPlatform

/// The options that describe a sound (everything but its name, length and destination), shared by
/// `shades render` and `shades play`.
struct SoundOptions: ParsableArguments {
    @OptionGroup var sampleRate: RateOption<SoundHelp.Rate>

    @Option(name: .customLong("sound"), parsing: .unconditional, help: "A sound in the preset format's JSON (Presets/README.md) instead of SOURCE.")
    var soundFile: String?

    @OptionGroup var layout: ChannelsOption<SoundHelp.Channels>

    @OptionGroup var level: LevelOption<SoundHelp.Level>

    @OptionGroup var seed: SeedOption<SoundHelp.Seed>

    @Flag(help: "Make a seamless loop: noise shaped over the whole length, a tone adjusted to whole cycles.")
    var loop = false

    @Option(name: .customLong("from-match"), parsing: .unconditional, help: "The --frequency from a `shades match -o` result file (a flagged match is warned about).")
    var fromMatch: String?

    /// The generators' and the modifiers' parameters: `--frequency`, `--density` …, `--am`, `--notch`, `--pulse` …
    @OptionGroup var flags: SoundFlags

    @OptionGroup var shaping: AudiogramShapingOptions

    /// Flags that name another parameter with these options: `--width` gives the notch's width when the
    /// source's generator does not read it.
    func flagNames(source: String?) -> [ParameterID: String] {
        flags.width != nil && flags.notchWidth == nil && !readsWidth(source) ? [.notchWidth: "--width"] : [:]
    }

    /// True when `--pulse-count` sets the length.
    var countsPulses: Bool { flags.pulseCount != nil }

    /// The request for `source` (a sound name or a sound file) or for `--sound FILE.json`, with the options
    /// over it; `duration` nil takes `defaultSeconds` when given (an endless stream or live playback), and
    /// `includingFades` false leaves the fades to the caller (live playback fades in the player).
    func makeRequest(source: String?, duration: String?, defaultSeconds: Double? = nil,
                     includingFades: Bool = true) throws -> RenderRequest {
        let modifierTexts = flags.split(source: source?.lowercased()).modifiers
        try refuseModifierOptionsWithoutTheirBase(modifierTexts)
        var sound = try withMatchedFrequency().baseSound(source: source)
        // Each modifier from its flags, by its descriptor.
        for kind in Sound.modifierKinds where includingFades || kind != FadesModifier.self {
            try kind.read(commandLine: CommandLineValues(modifierTexts), into: &sound)
        }
        if let shape = try shaping.shape() {
            if let shaped = sound.generator.flatMap({ $0.kind.shaped(by: shape) }) {
                // A generator that takes the shape into its own parameters (band gains).
                guard flags.bandGains == nil else { throw ShadesError.usage("--audiogram gives the sound's --band-gains: give one or the other") }
                sound.source = .generator(shaped)
            } else {
                sound.shape = shape
            }
        }
        if let channels = layout.channels { sound.channels = channels }
        if let seed = try seed.value() { sound.seed = seed }
        if flags.sham { sound = try sound.shamTwin() }
        let seconds: Double
        if let duration {
            seconds = try ValueParsing.seconds(duration)
        } else if let counted = sound.pulses?.countedDurationSeconds, counted > 0 {
            seconds = counted
        } else if sound.file != nil {
            seconds = RenderRequest.untilEndOfFile
        } else if let defaultSeconds {
            seconds = defaultSeconds
        } else {
            throw ShadesError.usage("--duration is required (e.g. 90s, 10m, 1h) unless --pulse-count sets it")
        }
        // A file keeps its own rate unless one is asked (no resampling by default).
        let fileRate = try sound.file.map { (f: SoundFileReference) throws(ShadesError) in Double(try AudioFileSource.openInput(path: f.path).sampleRate) }
        let request = RenderRequest(
            sound: sound, durationSeconds: seconds, sampleRate: try sampleRate.hertz() ?? fileRate ?? 48_000,
            level: try level.dBFS().map { .rms(dBFS: $0) }, loop: loop)
        do { try request.validate() } catch {
            // A value of the sound file is named by its key, at its place in the file.
            guard let soundFile, let bytes = try? FileSystem.readFile(soundFile, upTo: 1 << 20),
                  let document = try? SoundDocument(json: bytes, file: soundFile) else { throw error }
            throw document.locate(error)
        }
        return request
    }

    /// The sound before the modifier options: `--sound FILE.json`, a sound name with its options, or a sound file.
    private func baseSound(source: String?) throws -> Sound {
        if let soundFile {
            if source != nil { throw ShadesError.usage("give a SOURCE or --sound FILE.json, not both") }
            let bytes = try FileSystem.readFile(soundFile, upTo: 1 << 20)
            let sound = try SoundDocument(json: bytes, file: soundFile).sound
            try refuseGeneratorOptions(for: "--sound")
            return sound
        }
        guard let source else { throw ShadesError.usage("give a SOURCE (\(Generator.sourceNames.joined(separator: ", ")), or a sound file) or --sound FILE.json") }
        let name = source.lowercased()
        guard Generator.kind(named: name) != nil else {
            guard access(source, F_OK) == 0 else {
                // A word with no '/' or '.' was meant as a sound's name: suggest the nearest one.
                let looksLikeName = !source.contains("/") && !source.contains(".")
                let sounds = looksLikeName
                    ? suggestion(for: source, among: Generator.sourceNames, noun: "sounds", maxEdits: min(3, source.count / 2))
                    : " (allowed: \(Generator.sourceNames.joined(separator: ", ")))"
                throw ShadesError.usage("source '\(source)' is neither a sound\(sounds) nor an existing sound file")
            }
            try refuseGeneratorOptions(for: "a sound file")
            return Sound.file(path: source)
        }
        try refuseOptions(notFor: name)
        return Sound(try Generator.read(name, from: CommandLineValues(flags.split(source: name).generator))!)
    }

    /// These options with `--from-match`'s frequency as `--frequency`.
    private func withMatchedFrequency() throws -> SoundOptions {
        guard let fromMatch else { return self }
        guard flags.frequency == nil else { throw ShadesError.usage("--frequency cannot be combined with --from-match (allowed: one or the other)") }
        var options = self
        options.flags.frequency = "\(try matchedFrequency(fromMatch))"
        return options
    }

    /// Refuses an option that changes a modifier given without an option that asks for it (`--am-depth`
    /// without `--am`): it would be ignored. `texts` are the modifiers' (the flags the source's generator
    /// does not read).
    private func refuseModifierOptionsWithoutTheirBase(_ texts: [String: String]) throws {
        for kind in Sound.modifierKinds where !kind.baseFlags.contains(where: { texts[$0] != nil }) {
            for flag in kind.flags + (kind == NotchModifier.self ? ["width"] : []) where texts[flag] != nil && !kind.baseFlags.contains(flag) {
                let base = kind.baseFlags.map { "--" + $0 }.joined(separator: " or ")
                let sources = Generator.flags.first { $0.flag == flag }?.sources.joined(separator: ", ")
                let also = sources.map { ", which is not given, or to the sources \($0)" } ?? ", which is not given"
                throw ShadesError.usage("--\(flag) applies to \(base)\(also) (allowed: --\(flag) with \(base))")
            }
        }
        if texts["notch"] != nil {
            if texts["width"] != nil && texts["notch-width"] != nil {
                throw ShadesError.usage("--width and --notch-width both set the notch's width (allowed: one of them)")
            }
            if texts["edge-boost"] == nil && texts["edge-width"] != nil {
                throw ShadesError.usage("--edge-width applies to --edge-boost, which is not given (allowed: --edge-width with --edge-boost)")
            }
        }
    }

    /// True when source `source`'s generator reads `--width` (else it is the notch's).
    private func readsWidth(_ source: String?) -> Bool { SoundFlags.generator(source?.lowercased(), reads: "width") }

    /// Refuses the generator options of other sources than `source` (a source name): they would be ignored.
    private func refuseOptions(notFor source: String) throws {
        for flag in flags.givenGeneratorFlags {
            guard let row = Generator.flags.first(where: { $0.flag == flag }), !row.sources.contains(source) else { continue }
            let names = row.sources.map { "'\($0)'" }
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            throw ShadesError.usage("--\(flag) applies to \(list) only")
        }
    }

    /// Options that describe a generator make no sense with `what` (a sound file or `--sound`).
    private func refuseGeneratorOptions(for what: String) throws {
        if let flag = flags.givenGeneratorFlags.first {
            throw ShadesError.usage("--\(flag) describes a generator, not \(what)")
        }
    }
}

/// The number typed for an option of `parameter`, nil when the option is not given.
func optionalNumber(_ text: String?, _ parameter: ParameterID) throws(ShadesError) -> Double? {
    try text.map { (text: String) throws(ShadesError) in try ValueParsing.number(text, parameter: parameter) }
}

/// `--audiogram FILE --ear E --rule half-gain --max-gain DB`: a spectral shape from an audiogram (`render`, `play`,
/// `catalogue build`).
struct AudiogramShapingOptions: ParameterOptions {
    @Option(parsing: .unconditional, help: "Shape the sound by this audiogram (dB HL, from `shades audiometry -o`): the half-gain rule per frequency (Cuesta et al. 2022), or a generator's own band gains (--band-gains).")
    var audiogram: String?

    @Option(parsing: .unconditional, help: "The audiogram's ear for --audiogram: left or right (default: its only ear).")
    var ear: String?

    @Option(parsing: .unconditional, help: "The fitting rule for --audiogram: half-gain (gain = half the threshold; the default).")
    var rule: String?

    @Option(name: .customLong("max-gain"), parsing: .unconditional, help: "The largest gain of the rule, 0 … 60 dB (default \(formatNumber(SpectralShape.defaultMaximumGainDB)) dB).")
    var maxGain: String?

    static let parameters: [ParameterID: String] = [.audiogram: "audiogram", .ear: "ear", .fittingRule: "rule", .maximumGain: "maxGain"]

    /// The shape `--audiogram` asks for, nil without it.
    func shape() throws -> SpectralShape? {
        guard let audiogram else {
            // Without an audiogram they would be ignored.
            for (flag, given) in [("--ear", ear != nil), ("--rule", rule != nil), ("--max-gain", maxGain != nil)] where given {
                throw ShadesError.usage("\(flag) applies to --audiogram, which is not given (allowed: \(flag) with --audiogram)")
            }
            return nil
        }
        let rule = self.rule ?? "half-gain"
        guard rule == "half-gain" else { throw ShadesError(parameter: .fittingRule, value: "'\(rule)'", allowed: "half-gain") }
        let maxGain = try ValueParsing.decibels(self.maxGain ?? "\(SpectralShape.defaultMaximumGainDB)", parameter: .maximumGain)
        guard (0...60).contains(maxGain) else {
            throw ShadesError(.maximumGain, .outOfRange, value: .number(maxGain, .decibels), allowed: AllowedValues(range: ParameterRange(0...60, unit: .decibels)))
        }
        let file = try readAudiogram(audiogram)
        let chosen: Ears
        if let ear {
            chosen = try parseEars(ear, allowingBoth: false)[0]
        } else {
            let ears = [Ears.left, .right].filter { !file.thresholds(ear: $0).isEmpty }
            guard ears.count == 1 else {
                throw ShadesError.usage("--audiogram \(audiogram) has both ears: choose one with --ear left or --ear right")
            }
            chosen = ears[0]
        }
        return try SpectralShape.halfGain(file, ear: chosen, maximumGainDB: maxGain, source: audiogram.lastPathComponent)
    }
}
