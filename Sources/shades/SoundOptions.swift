import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures
import ShadesPlatform

/// The options that describe a sound (everything but its name, length and destination), shared by
/// `shades render` and `shades play`.
struct SoundOptions: ParsableArguments {
    @OptionGroup var sampleRate: RateOption

    @Option(name: .customLong("sound"), parsing: .unconditional, help: "A sound in the preset format's JSON (Presets/README.md) instead of SOURCE.")
    var soundFile: String?

    @OptionGroup var layout: ChannelsOption

    @OptionGroup var level: LevelOption

    @OptionGroup var seed: SeedOption

    @Flag(help: "Make a seamless loop: noise shaped over the whole length, a tone adjusted to whole cycles.")
    var loop = false

    @Option(name: .customLong("from-match"), parsing: .unconditional, help: "The --frequency from a `shades match -o` result file (a flagged match is warned about).")
    var fromMatch: String?

    /// The generators' parameters: `--frequency`, `--width`, `--ramp`, `--density` …
    @OptionGroup var generator: SourceFlags

    @Option(parsing: .unconditional, help: "Amplitude modulation rate in Hz, 0.5 … 100 (10 in the studies).")
    var am: String?

    @Option(name: .customLong("am-depth"), parsing: .unconditional, help: "Modulation depth, 0 … 1 (default 1; with --am).")
    var amDepth: String?

    @Option(name: .customLong("am-phase"), parsing: .unconditional, help: "Modulation start phase in radians (default 0; with --am).")
    var amPhase: String?

    @Option(name: .customLong("am-keep"), parsing: .unconditional, help: "What modulation keeps equal to the unmodulated sound: rms (the default) or peak (with --am).")
    var amKeep: AmplitudeModulationLevel?

    @Option(parsing: .unconditional, help: "Cut a notch centred here (notched noise: Okamoto 2010), e.g. 6kHz.")
    var notch: String?

    @Option(name: .customLong("notch-width"), parsing: .unconditional, help: "Notch width in octaves (0 … 3; default 1 as in Okamoto 2010, 0.5 in Stein 2016; with --notch).")
    var notchWidth: String?

    @Option(name: .customLong("edge-boost"), parsing: .unconditional, help: "Raise the bands beside the notch by this gain (Stein 2016: 20dB).")
    var edgeBoost: String?

    @Option(name: .customLong("edge-width"), parsing: .unconditional, help: "Width of each boosted band beside the notch, in octaves (default 0.375; with --edge-boost).")
    var edgeWidth: String?

    @Option(parsing: .unconditional, help: "Pulses: on/off times, e.g. 200ms/200ms (audiometry).")
    var pulse: String?

    @Option(name: .customLong("pulse-count"), parsing: .unconditional, help: "Number of pulses (the duration follows if --duration is not given).")
    var pulseCount: String?

    @Option(parsing: .unconditional, help: "Raised-cosine fade-in and fade-out, e.g. 50ms.")
    var fade: String?

    @Option(name: .customLong("fade-in"), parsing: .unconditional, help: "Fade-in length (overrides --fade).")
    var fadeIn: String?

    @Option(name: .customLong("fade-out"), parsing: .unconditional, help: "Fade-out length (overrides --fade).")
    var fadeOut: String?

    @OptionGroup var shaping: AudiogramShapingOptions

    /// Flags that name another parameter with these options: `--width` gives the notch's width when the
    /// source's generator does not read it.
    func flagNames(source: String?) -> [ParameterID: String] {
        generator.width != nil && notchWidth == nil && !readsWidth(source) ? [.notchWidth: "--width"] : [:]
    }

    /// True when `--pulse-count` sets the length.
    var countsPulses: Bool { pulseCount != nil }

    /// The request for `source` (a sound name or a sound file) or for `--sound FILE.json`, with the options
    /// over it; `duration` nil takes `defaultSeconds` when given (an endless stream or live playback), and
    /// `includingFades` false leaves the fades to the caller (live playback fades in the player).
    func makeRequest(source: String?, duration: String?, defaultSeconds: Double? = nil,
                     includingFades: Bool = true) throws -> RenderRequest {
        try refuseModifierOptionsWithoutTheirBase(source: source)
        var sound = try withMatchedFrequency().baseSound(source: source)
        if let modulation = try am.map({ text throws in
            Modulation(rateHz: try ValueParsing.hertz(text, parameter: .amRate),
                       depth: try optionalNumber(amDepth, .amDepth) ?? Parameter.amDepth.defaultValue!,
                       startPhase: try optionalNumber(amPhase, .amPhase) ?? Parameter.amPhase.defaultValue!, keep: amKeep ?? .rms)
        }) { sound.modulation = modulation }
        let pulseCount = try self.pulseCount.map { try ValueParsing.count($0, .pulseCount) }
        if let pulse {
            let parts = pulse.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw ShadesError(parameter: "pulse", value: "'\(pulse)'", allowed: "on/off times such as 200ms/200ms")
            }
            sound.pulses = Pulses(onSeconds: try ValueParsing.seconds(String(parts[0]), parameter: "pulse"),
                                  offSeconds: try ValueParsing.seconds(String(parts[1]), parameter: "pulse"),
                                  rampSeconds: try pulseRampSeconds(), count: pulseCount)
        } else if pulseCount != nil {
            sound.pulses = Pulses(rampSeconds: try pulseRampSeconds(), count: pulseCount)
        }
        if includingFades && (fade != nil || fadeIn != nil || fadeOut != nil) {
            let both = try fade.map { try ValueParsing.seconds($0, parameter: .fade) } ?? 0
            try Parameter.fade.check(both)
            sound.fades = Fades(inSeconds: try fadeIn.map { try ValueParsing.seconds($0, parameter: "fade-in") } ?? both,
                                outSeconds: try fadeOut.map { try ValueParsing.seconds($0, parameter: "fade-out") } ?? both)
        }
        if let notch {
            let boost = try edgeBoost.map { try ValueParsing.decibels($0, parameter: .edgeBoost) } ?? Parameter.edgeBoost.defaultValue!
            let widthOctaves = try optionalNumber(notchWidth, .notchWidth) ?? (readsWidth(source) ? nil : optionalNumber(generator.width, .width)) ?? Parameter.notchWidth.defaultValue!
            sound.notches = [NotchSpec(centreHz: try ValueParsing.hertz(notch, parameter: "notch"), widthOctaves: widthOctaves,
                                       edgeBoostDB: boost, edgeWidthOctaves: try optionalNumber(edgeWidth, .edgeWidth) ?? Parameter.edgeWidth.defaultValue!)]
        }
        if let shape = try shaping.shape() {
            if let shaped = sound.generator.flatMap({ $0.kind.shaped(by: shape) }) {
                // A generator that takes the shape into its own parameters (band gains).
                guard generator.bandGains == nil else { throw ShadesError.usage("--audiogram gives the sound's --band-gains: give one or the other") }
                sound.source = .generator(shaped)
            } else {
                sound.shape = shape
            }
        }
        if let channels = layout.channels { sound.channels = channels }
        if let seed = try seed.value() { sound.seed = seed }
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
                throw ShadesError.usage("source '\(source)' is neither a sound (allowed: \(Generator.sourceNames.joined(separator: ", "))) nor an existing sound file")
            }
            try refuseGeneratorOptions(for: "a sound file")
            return Sound.file(path: source)
        }
        try refuseOptions(notFor: name)
        let texts = generator.given.filter { SourceFlags.generator(name, reads: $0.key) }
        return Sound(try Generator.read(name, from: CommandLineValues(texts))!)
    }

    /// These options with `--from-match`'s frequency as `--frequency`.
    private func withMatchedFrequency() throws -> SoundOptions {
        guard let fromMatch else { return self }
        guard generator.frequency == nil else { throw ShadesError.usage("--frequency cannot be combined with --from-match (allowed: one or the other)") }
        var options = self
        options.generator.frequency = "\(try matchedFrequency(fromMatch))"
        return options
    }

    /// Refuses an option that changes a modifier given without the option that asks for it (`--am-depth`
    /// without `--am`): it would be ignored.
    private func refuseModifierOptionsWithoutTheirBase(source: String?) throws {
        func refuse(_ option: String, _ base: String) throws {
            throw ShadesError.usage("\(option) applies to \(base), which is not given (allowed: \(option) with \(base))")
        }
        if am == nil {
            if amDepth != nil { try refuse("--am-depth", "--am") }
            if amPhase != nil { try refuse("--am-phase", "--am") }
            if amKeep != nil { try refuse("--am-keep", "--am") }
        }
        if notch == nil {
            if notchWidth != nil { try refuse("--notch-width", "--notch") }
            if edgeBoost != nil { try refuse("--edge-boost", "--notch") }
            if edgeWidth != nil { try refuse("--edge-width", "--notch") }
            if generator.width != nil && !readsWidth(source) { try refuse("--width", "\(sources(reading: "width")) or --notch") }
        } else if generator.width != nil && notchWidth != nil && !readsWidth(source) {
            throw ShadesError.usage("--width and --notch-width both set the notch's width (allowed: one of them)")
        }
        if edgeBoost == nil && edgeWidth != nil && notch != nil { try refuse("--edge-width", "--edge-boost") }
        if pulse == nil && pulseCount == nil && generator.ramp != nil && !SourceFlags.generator(source?.lowercased(), reads: "ramp") {
            try refuse("--ramp", "--pulse, --pulse-count or \(sources(reading: "ramp"))")
        }
    }

    /// The pulses' `--ramp`, or its default.
    private func pulseRampSeconds() throws(ShadesError) -> Double {
        try generator.ramp.map { (text: String) throws(ShadesError) in try ValueParsing.seconds(text, parameter: .ramp) } ?? Parameter.ramp.defaultValue!
    }

    /// True when source `source`'s generator reads `--width` (else it is the notch's).
    private func readsWidth(_ source: String?) -> Bool { SourceFlags.generator(source?.lowercased(), reads: "width") }

    /// The sources whose generators read `flag`, for a message: "white, noise".
    private func sources(reading flag: String) -> String {
        Generator.flags.first { $0.flag == flag }?.sources.joined(separator: ", ") ?? ""
    }

    /// Refuses the generator options of other sources than `source` (a source name): they would be ignored.
    private func refuseOptions(notFor source: String) throws {
        for flag in generator.givenGeneratorFlags {
            guard let row = Generator.flags.first(where: { $0.flag == flag }), !row.sources.contains(source) else { continue }
            let names = row.sources.map { "'\($0)'" }
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            throw ShadesError.usage("--\(flag) applies to \(list) only")
        }
    }

    /// Options that describe a generator make no sense with `what` (a sound file or `--sound`).
    private func refuseGeneratorOptions(for what: String) throws {
        if let flag = generator.givenGeneratorFlags.first {
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
    @Option(parsing: .unconditional, help: "Shape the sound by this audiogram (`shades audiometry -o`, dB HL): the half-gain rule per frequency (Cuesta et al. 2022), or a generator's own band gains (--band-gains).")
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
