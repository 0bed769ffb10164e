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

    @Option(parsing: .unconditional, help: "Spectral exponent β in [-2, 2] for 'noise' (PSD ∝ f^-β).")
    var beta: String?

    @Option(parsing: .unconditional, help: "Tone frequency, centre of narrow-band noise, or the tinnitus frequency of cr and ripple: 6000, 6kHz, 440Hz.")
    var frequency: String?

    @Option(name: .customLong("from-match"), parsing: .unconditional, help: "The --frequency from a `shades match -o` result file (a flagged match is warned about).")
    var fromMatch: String?

    @Option(parsing: .unconditional, help: "cr: tone frequencies, standard (0.766, 0.9, 1.1, 1.4 × F) or log-spaced (4 tones equally spaced in log frequency over 0.766 … 1.4 × F).")
    var tones: CoordinatedResetPattern.ToneSet?

    @Option(name: .customLong("tone-length"), parsing: .unconditional, help: "cr: length of each tone, ramps included (default: the slot, 1/(4 × cycle rate)).")
    var toneLength: String?

    @Option(name: .customLong("tone-ramp"), parsing: .unconditional, help: "cr: raised-cosine rise and fall of each tone.")
    var toneRamp: String?

    @Option(name: .customLong("cycle-rate"), parsing: .unconditional, help: "cr: cycles per second, 0.1 … 10 Hz (four tone slots per cycle).")
    var cycleRate: String?

    @Option(name: .customLong("on-cycles"), parsing: .unconditional, help: "cr: cycles with tones before the silent cycles.")
    var onCycles: String?

    @Option(name: .customLong("off-cycles"), parsing: .unconditional, help: "cr: silent cycles after the tone cycles.")
    var offCycles: String?

    @Option(name: .customLong("tone-gains"), parsing: .unconditional, help: "cr: four gains in dB, one per tone from the lowest, e.g. 0,-2,-3,1 (loudness matching).")
    var toneGains: String?

    @Option(parsing: .unconditional, help: "ripple: amplitude, phase or noise.")
    var condition: SpectralRipple.Condition?

    @Flag(help: "ripple: modulate the octave far from the tinnitus frequency (the sham arm).")
    var sham = false

    @Option(name: .customLong("band-gains"), parsing: .unconditional, help: "ripple: eight gains in dB, one per half-octave band from 1 kHz up (hearing-loss compensation).")
    var bandGains: String?

    @Option(parsing: .unconditional, help: "binaural: the left ear's tone, e.g. 200Hz (the right ear's is carrier + beat).")
    var carrier: String?

    @Option(parsing: .unconditional, help: "binaural: the beat, the right ear's tone minus the left's; isochronic: the switching rate. 0.1 … 100 Hz (default 10).")
    var beat: String?

    @Option(parsing: .unconditional, help: "isochronic: the share of each period the tone sounds, at half amplitude, above 0 and below 1 (default 0.5).")
    var duty: String?

    @Option(parsing: .unconditional, help: "velvet: impulses per second, 1 … half the sample rate (default 2000).")
    var density: String?

    @Option(parsing: .unconditional, help: "fractal: the scale, pentatonic, minor-pentatonic, major, minor, dorian, mixolydian or whole-tone (default pentatonic).")
    var scale: String?

    @Option(parsing: .unconditional, help: "fractal: the lowest pitch, the scale's tonic (default C5, 523.25 Hz).")
    var low: String?

    @Option(parsing: .unconditional, help: "fractal: the highest pitch (default C7, 2093 Hz).")
    var high: String?

    @Option(parsing: .unconditional, help: "fractal: grid steps per minute, 20 … 240 (default 80); each note lasts 1 … 4 steps.")
    var tempo: String?

    @Option(parsing: .unconditional, help: "Width in octaves: of the narrow-band noise for nbn (default 0.5: edges at frequency·2^±0.25), else of the --notch (as --notch-width).")
    var width: String?

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

    @Option(parsing: .unconditional, help: "Raised-cosine rise and fall of each pulse (default 25ms; 20–50 ms is the audiometric convention; with --pulse or --pulse-count), or the edges of an isochronic tone (default 5ms).")
    var ramp: String?

    @Option(name: .customLong("pulse-count"), parsing: .unconditional, help: "Number of pulses (the duration follows if --duration is not given).")
    var pulseCount: String?

    @Option(parsing: .unconditional, help: "Raised-cosine fade-in and fade-out, e.g. 50ms.")
    var fade: String?

    @Option(name: .customLong("fade-in"), parsing: .unconditional, help: "Fade-in length (overrides --fade).")
    var fadeIn: String?

    @Option(name: .customLong("fade-out"), parsing: .unconditional, help: "Fade-out length (overrides --fade).")
    var fadeOut: String?

    @Option(parsing: .unconditional, help: "White-noise sample distribution: gaussian or uniform.")
    var distribution: WhiteDistribution?

    @OptionGroup var shaping: AudiogramShapingOptions

    /// Flags that name another parameter with these options: `--width` gives the notch's width when it is
    /// not nbn's.
    func flagNames(source: String?) -> [ParameterID: String] {
        width != nil && notchWidth == nil && !isNarrowBandNoise(source) ? [.notchWidth: "--width"] : [:]
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
            Modulation(rateHz: try ValueParsing.hertz(text, parameter: .amRate), depth: try optionalNumber(amDepth, .amDepth) ?? 1,
                       startPhase: try optionalNumber(amPhase, .amPhase) ?? 0, keep: amKeep ?? .rms)
        }) { sound.modulation = modulation }
        let pulseCount = try self.pulseCount.map { try ValueParsing.count($0, .pulseCount) }
        if let pulse {
            let parts = pulse.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw ShadesError(parameter: "pulse", value: "'\(pulse)'", allowed: "on/off times such as 200ms/200ms")
            }
            sound.pulses = Pulses(onSeconds: try ValueParsing.seconds(String(parts[0]), parameter: "pulse"),
                                  offSeconds: try ValueParsing.seconds(String(parts[1]), parameter: "pulse"),
                                  rampSeconds: try ValueParsing.seconds(ramp ?? "25ms", parameter: "ramp"), count: pulseCount)
        } else if pulseCount != nil {
            sound.pulses = Pulses(rampSeconds: try ValueParsing.seconds(ramp ?? "25ms", parameter: "ramp"), count: pulseCount)
        }
        if includingFades && (fade != nil || fadeIn != nil || fadeOut != nil) {
            let both = try fade.map { try ValueParsing.seconds($0, parameter: .fade) } ?? 0
            try Parameter.fade.check(both)
            sound.fades = Fades(inSeconds: try fadeIn.map { try ValueParsing.seconds($0, parameter: "fade-in") } ?? both,
                                outSeconds: try fadeOut.map { try ValueParsing.seconds($0, parameter: "fade-out") } ?? both)
        }
        if let notch {
            let boost = try edgeBoost.map { try ValueParsing.decibels($0, parameter: "edge-boost") } ?? 0
            let widthOctaves = try optionalNumber(notchWidth, .notchWidth) ?? (isNarrowBandNoise(source) ? nil : optionalNumber(width, .width)) ?? 1
            sound.notches = [NotchSpec(centreHz: try ValueParsing.hertz(notch, parameter: "notch"), widthOctaves: widthOctaves,
                                       edgeBoostDB: boost, edgeWidthOctaves: try optionalNumber(edgeWidth, .edgeWidth) ?? 0.375)]
        }
        if let shape = try shaping.shape() {
            if case .spectralRipple(var ripple) = sound.generator {
                // A ripple's own band gains (its half-octave bands from 1 kHz), at each band's centre.
                guard bandGains == nil else { throw ShadesError.usage("--audiogram gives ripple's --band-gains: give one or the other") }
                ripple.bandGainsDB = (0..<8).map { shape.gainDB(atHz: 1_000 * pow(2, (2 * Double($0) + 1) / 4)) }
                sound.source = .generator(.spectralRipple(ripple))
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
        guard let source else { throw ShadesError.usage("give a SOURCE (\(Self.sourceNames.joined(separator: ", ")), or a sound file) or --sound FILE.json") }
        let generator: Generator
        switch source.lowercased() {
        case "tone":
            guard let frequency else { throw ShadesError.usage("tone needs --frequency (above 0 and below Nyquist)") }
            generator = .tone(frequencyHz: try ValueParsing.hertz(frequency))
        case "nbn":
            guard let frequency else { throw ShadesError.usage("nbn needs --frequency (the band centre) and --width in octaves") }
            generator = .narrowBandNoise(centreHz: try ValueParsing.hertz(frequency), widthOctaves: try optionalNumber(width, .width) ?? 0.5)
        case "grey", "gray":
            generator = .grey
        case "cr":
            guard let frequency else { throw ShadesError.usage("cr needs --frequency (the tinnitus frequency)") }
            generator = .coordinatedReset(CoordinatedResetPattern(
                tinnitusFrequencyHz: try ValueParsing.hertz(frequency), toneSet: tones ?? .standard,
                toneSeconds: try toneLength.map { try ValueParsing.seconds($0, parameter: "tone-length") },
                rampSeconds: try toneRamp.map { try ValueParsing.seconds($0, parameter: .toneRamp) } ?? Parameter.toneRamp.defaultValue!,
                cycleRateHz: try cycleRate.map { try ValueParsing.hertz($0, parameter: .cycleRate) } ?? Parameter.cycleRate.defaultValue!,
                onCycles: try onCycles.map { try ValueParsing.count($0, .onCycles) } ?? Int(Parameter.onCycles.defaultValue!),
                offCycles: try offCycles.map { try ValueParsing.count($0, .offCycles) } ?? Int(Parameter.offCycles.defaultValue!),
                toneGainsDB: try toneGains.map { try Self.decibelList($0, parameter: "tone-gains") }))
        case "ripple":
            guard let frequency else { throw ShadesError.usage("ripple needs --frequency (the tinnitus frequency, 1 … 16 kHz)") }
            generator = .spectralRipple(SpectralRipple(
                tinnitusFrequencyHz: try ValueParsing.hertz(frequency), condition: condition ?? .amplitude, sham: sham,
                bandGainsDB: try bandGains.map { try Self.decibelList($0, parameter: "band-gains") }))
        case "binaural":
            guard let carrier else { throw ShadesError.usage("binaural needs --carrier (the left ear's tone, e.g. 200Hz) and --beat (e.g. 10Hz)") }
            generator = .binauralBeat(carrierHz: try ValueParsing.hertz(carrier, parameter: .carrier),
                                      beatHz: try beat.map { try ValueParsing.hertz($0, parameter: .beat) } ?? Parameter.beat.defaultValue!)
        case "isochronic":
            guard let frequency else { throw ShadesError.usage("isochronic needs --frequency (the tone, e.g. 200Hz) and --beat (the rate, e.g. 10Hz)") }
            generator = .isochronicTone(
                frequencyHz: try ValueParsing.hertz(frequency), rateHz: try beat.map { try ValueParsing.hertz($0, parameter: .beat) } ?? Parameter.beat.defaultValue!,
                duty: try optionalNumber(duty, .duty) ?? Parameter.duty.defaultValue!,
                rampSeconds: try ramp.map { try ValueParsing.seconds($0, parameter: .isochronicRamp) } ?? Parameter.isochronicRamp.defaultValue!)
        case "velvet":
            generator = .velvetNoise(densityHz: try optionalNumber(density, .density) ?? Parameter.density.defaultValue!)
        case "fractal":
            let defaults = FractalTones()
            generator = .fractalTones(FractalTones(
                scale: try scale.map(Self.scale) ?? defaults.scale, lowHz: try low.map { try ValueParsing.hertz($0, parameter: .lowPitch) } ?? defaults.lowHz,
                highHz: try high.map { try ValueParsing.hertz($0, parameter: .highPitch) } ?? defaults.highHz,
                tempoBPM: try optionalNumber(tempo, .tempo) ?? defaults.tempoBPM))
        case "noise":
            guard let beta = try optionalNumber(beta, .beta) else { throw ShadesError.usage("noise needs --beta (allowed: -2 … 2)") }
            generator = .noise(colour: try NoiseColour(beta: beta), distribution: distribution ?? .gaussian)
        default:
            if let colour = NoiseColour.named.first(where: { $0.name == source.lowercased() })?.colour {
                if beta != nil { throw ShadesError.usage("--beta applies to 'noise' only (\(source) has beta \(colour.beta))") }
                generator = .noise(colour: colour, distribution: distribution ?? .gaussian)
            } else if access(source, F_OK) == 0 {
                try refuseGeneratorOptions(for: "a sound file")
                return Sound.file(path: source)
            } else {
                throw ShadesError.usage("source '\(source)' is neither a sound (allowed: \(Self.sourceNames.joined(separator: ", "))) nor an existing sound file")
            }
        }
        try refuseOptions(notFor: source.lowercased())
        return Sound(generator)
    }

    /// These options with `--from-match`'s frequency as `--frequency`.
    private func withMatchedFrequency() throws -> SoundOptions {
        guard let fromMatch else { return self }
        guard frequency == nil else { throw ShadesError.usage("--frequency cannot be combined with --from-match (allowed: one or the other)") }
        var options = self
        options.frequency = "\(try matchedFrequency(fromMatch))"
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
            if width != nil && !isNarrowBandNoise(source) { try refuse("--width", "nbn or --notch") }
        } else if width != nil && notchWidth != nil && !isNarrowBandNoise(source) {
            throw ShadesError.usage("--width and --notch-width both set the notch's width (allowed: one of them)")
        }
        if edgeBoost == nil && edgeWidth != nil && notch != nil { try refuse("--edge-width", "--edge-boost") }
        if pulse == nil && pulseCount == nil && ramp != nil && source?.lowercased() != "isochronic" {
            try refuse("--ramp", "--pulse, --pulse-count or isochronic")
        }
    }

    private func isNarrowBandNoise(_ source: String?) -> Bool { source?.lowercased() == "nbn" }

    /// The sound names a SOURCE can be.
    static let sourceNames = ["white", "pink", "brown", "blue", "violet", "grey", "noise", "velvet", "tone", "nbn", "binaural",
                              "isochronic", "fractal", "cr", "ripple"]

    /// The options of some sources only: (flag, given, the sources it applies to).
    private var sourceOptions: [(flag: String, given: Bool, sources: [String])] {
        let cr = ["cr"], ripple = ["ripple"]
        return [("--frequency", frequency != nil, ["tone", "nbn", "isochronic", "cr", "ripple"]), ("--beta", beta != nil, ["noise"]),
                ("--distribution", distribution != nil, ["white", "noise"]),
                ("--tones", tones != nil, cr), ("--tone-length", toneLength != nil, cr), ("--tone-ramp", toneRamp != nil, cr),
                ("--cycle-rate", cycleRate != nil, cr), ("--on-cycles", onCycles != nil, cr), ("--off-cycles", offCycles != nil, cr),
                ("--tone-gains", toneGains != nil, cr),
                ("--condition", condition != nil, ripple), ("--sham", sham, ripple), ("--band-gains", bandGains != nil, ripple),
                ("--carrier", carrier != nil, ["binaural"]), ("--beat", beat != nil, ["binaural", "isochronic"]),
                ("--duty", duty != nil, ["isochronic"]), ("--density", density != nil, ["velvet"]),
                ("--scale", scale != nil, ["fractal"]), ("--low", low != nil, ["fractal"]), ("--high", high != nil, ["fractal"]),
                ("--tempo", tempo != nil, ["fractal"])]
    }

    /// Refuses the options of other sources than `source` (a source name): they would be ignored.
    private func refuseOptions(notFor source: String) throws {
        for option in sourceOptions where option.given && !option.sources.contains(source) {
            let names = option.sources.map { "'\($0)'" }
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            throw ShadesError.usage("\(option.flag) applies to \(list) only")
        }
    }

    /// Options that describe a generator make no sense with `what` (a sound file or `--sound`).
    private func refuseGeneratorOptions(for what: String) throws {
        if let option = sourceOptions.first(where: \.given) {
            throw ShadesError.usage("\(option.flag) describes a generator, not \(what)")
        }
    }
}

/// The number typed for an option of `parameter`, nil when the option is not given.
func optionalNumber(_ text: String?, _ parameter: ParameterID) throws(ShadesError) -> Double? {
    try text.map { (text: String) throws(ShadesError) in try ValueParsing.number(text, parameter: parameter) }
}

extension SoundOptions {
    /// A scale by name (ArgumentParser would list seven names on lines of their own: one line here).
    static func scale(_ text: String) throws -> FractalTones.Scale {
        guard let scale = FractalTones.Scale(rawValue: text.lowercased()) else {
            throw ShadesError(parameter: .scale, value: "'\(text)'", problem: "is not a scale",
                              allowed: FractalTones.Scale.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return scale
    }

    /// A comma-separated list of gains in dB ("0,-2,3dB").
    static func decibelList(_ text: String, parameter: String) throws -> [Double] {
        try text.split(separator: ",").map { try ValueParsing.decibels(String($0.filter { $0 != " " }), parameter: parameter) }
    }
}

/// `--audiogram FILE --ear E --rule half-gain --max-gain DB`: a spectral shape from an audiogram (`render`, `play`,
/// `catalogue build`).
struct AudiogramShapingOptions: ParameterOptions {
    @Option(parsing: .unconditional, help: "Shape the sound by this audiogram (`shades audiometry -o`, dB HL): the half-gain rule per frequency (Cuesta et al. 2022); for ripple its --band-gains.")
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
