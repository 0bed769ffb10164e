import ArgumentParser
import ShadesDSP
import ShadesRender

/// The options of a sound's parameters: the generators' (`--frequency`, `--density`, `--tones` …) and the
/// modifiers' (`--am`, `--notch`, `--pulse`, `--fade` …), each declared once with the help its descriptors
/// give it. Which source or modifier a flag applies to, its unit and range, and how it is read come from
/// the descriptors (``GeneratorKind``, ``ModifierKind``): a new sound that reuses these flags needs nothing
/// here, and a new flag is one declaration (``validate()`` refuses a descriptor flag that is not declared).
struct SoundFlags: ParsableArguments {
    // The generators'.
    @Option(parsing: .unconditional, help: help("frequency")) var frequency: String?
    @Option(parsing: .unconditional, help: help("width", else: "the width of the --notch (as --notch-width).")) var width: String?
    @Option(parsing: .unconditional, help: help("beta")) var beta: String?
    @Option(parsing: .unconditional, help: help("distribution")) var distribution: String?
    @Option(parsing: .unconditional, help: help("density")) var density: String?
    @Option(parsing: .unconditional, help: help("carrier")) var carrier: String?
    @Option(parsing: .unconditional, help: help("beat")) var beat: String?
    @Option(parsing: .unconditional, help: help("duty")) var duty: String?
    @Option(parsing: .unconditional, help: help("ramp")) var ramp: String?
    @Option(parsing: .unconditional, help: help("scale")) var scale: String?
    @Option(parsing: .unconditional, help: help("low")) var low: String?
    @Option(parsing: .unconditional, help: help("high")) var high: String?
    @Option(parsing: .unconditional, help: help("tempo")) var tempo: String?
    @Option(parsing: .unconditional, help: help("tones")) var tones: String?
    @Option(parsing: .unconditional, help: help("tone-length")) var toneLength: String?
    @Option(parsing: .unconditional, help: help("tone-ramp")) var toneRamp: String?
    @Option(parsing: .unconditional, help: help("cycle-rate")) var cycleRate: String?
    @Option(parsing: .unconditional, help: help("on-cycles")) var onCycles: String?
    @Option(parsing: .unconditional, help: help("off-cycles")) var offCycles: String?
    @Option(parsing: .unconditional, help: help("tone-gains")) var toneGains: String?
    @Option(parsing: .unconditional, help: help("condition")) var condition: String?
    @Flag(help: "Make the sound's sham twin: its therapeutic frequency or modulation moved out of the therapeutic range (README \"Shams\"); ripple: the far octave (Yukhnovich 2025).")
    var sham = false
    @Option(parsing: .unconditional, help: help("band-gains")) var bandGains: String?
    @Option(parsing: .unconditional, help: help("corner")) var corner: String?
    @Option(parsing: .unconditional, help: help("slope")) var slope: String?
    @Option(parsing: .unconditional, help: help("harmonics")) var harmonics: String?
    @Option(parsing: .unconditional, help: help("heart-rate")) var heartRate: String?
    @Option(parsing: .unconditional, help: help("fluctuation")) var fluctuation: String?
    @Option(parsing: .unconditional, help: help("fluctuation-depth")) var fluctuationDepth: String?
    @Option(parsing: .unconditional, help: help("chirp-rate")) var chirpRate: String?
    @Option(parsing: .unconditional, help: help("syllables")) var syllables: String?
    @Option(parsing: .unconditional, help: help("syllable-rate")) var syllableRate: String?
    @Option(parsing: .unconditional, help: help("bin-low")) var binLow: String?
    @Option(parsing: .unconditional, help: help("bin-high")) var binHigh: String?
    @Option(parsing: .unconditional, help: help("bin-scale")) var binScale: String?
    @Option(parsing: .unconditional, help: help("bin-levels")) var binLevels: String?
    // The modifiers', in the chain's order.
    @Option(parsing: .unconditional, help: help("fm")) var fm: String?
    @Option(parsing: .unconditional, help: help("fm-depth")) var fmDepth: String?
    @Option(parsing: .unconditional, help: help("fm-shape")) var fmShape: String?
    @Option(parsing: .unconditional, help: help("notch")) var notch: String?
    @Option(parsing: .unconditional, help: help("notch-width")) var notchWidth: String?
    @Option(parsing: .unconditional, help: help("edge-boost")) var edgeBoost: String?
    @Option(parsing: .unconditional, help: help("edge-width")) var edgeWidth: String?
    @Option(parsing: .unconditional, help: help("am")) var am: String?
    @Option(parsing: .unconditional, help: help("am-depth")) var amDepth: String?
    @Option(parsing: .unconditional, help: help("am-phase")) var amPhase: String?
    @Option(parsing: .unconditional, help: help("am-keep")) var amKeep: String?
    @Option(parsing: .unconditional, help: help("random-am")) var randomAm: String?
    @Option(parsing: .unconditional, help: help("random-am-depth")) var randomAmDepth: String?
    @Option(parsing: .unconditional, help: help("surf")) var surf: String?
    @Option(parsing: .unconditional, help: help("surf-rise")) var surfRise: String?
    @Option(parsing: .unconditional, help: help("surf-decay")) var surfDecay: String?
    @Option(parsing: .unconditional, help: help("surf-depth")) var surfDepth: String?
    @Option(parsing: .unconditional, help: help("surf-shape")) var surfShape: String?
    @Option(parsing: .unconditional, help: help("surf-intervals")) var surfIntervals: String?
    @Option(parsing: .unconditional, help: help("pulse")) var pulse: String?
    @Option(parsing: .unconditional, help: help("pulse-count")) var pulseCount: String?
    @Option(parsing: .unconditional, help: help("fade")) var fade: String?
    @Option(parsing: .unconditional, help: help("fade-in")) var fadeIn: String?
    @Option(parsing: .unconditional, help: help("fade-out")) var fadeOut: String?
    @Option(parsing: .unconditional, help: help("swell")) var swell: String?
    @Option(parsing: .unconditional, help: help("swell-depth")) var swellDepth: String?

    /// The help of `flag`: the generators' sentences, then the modifier's (after "Else" when both have it),
    /// then `otherwise` (after "Else").
    private static func help(_ flag: String, else otherwise: String? = nil) -> ArgumentHelp {
        let generators = Generator.flags.contains { $0.flag == flag } ? Generator.help(forFlag: flag) : nil
        var modifier = Sound.modifier(withFlag: flag)?.help ?? otherwise
        if generators != nil, let text = modifier { modifier = "Else " + text.prefix(1).lowercased() + text.dropFirst() }
        return ArgumentHelp([generators, modifier].compactMap { $0 }.joined(separator: " "))
    }

    /// Every option declared here and its text when given, by flag (a switch given: "true").
    var given: [String: String] {
        var texts: [String: String] = [:]
        for child in Mirror(reflecting: self).children {
            guard let label = child.label?.dropFirst() else { continue }  // "_toneLength"
            let flag = Self.flag(forProperty: String(label))
            if let option = child.value as? Option<String?>, let text = option.wrappedValue { texts[flag] = text }
            if let toggle = child.value as? Flag<Bool>, toggle.wrappedValue { texts[flag] = "true" }
        }
        return texts
    }

    /// The flags declared here.
    static let declared: Set<String> =
        Set(Mirror(reflecting: SoundFlags()).children.compactMap { $0.label.map { flag(forProperty: String($0.dropFirst())) } })

    /// `toneLength` → `tone-length`, as ArgumentParser names a property's option.
    static func flag(forProperty name: String) -> String {
        name.reduce(into: "") { text, c in text += c.isUppercase ? "-" + c.lowercased() : String(c) }
    }

    /// True when source `name`'s generator reads `flag`.
    static func generator(_ name: String?, reads flag: String) -> Bool {
        guard let name else { return false }
        return Generator.flags.contains { $0.flag == flag && $0.sources.contains(name) }
    }

    /// The flags given that belong to a generator and to no modifier (`--width` and `--ramp` are also the
    /// notch's and the pulses').
    var givenGeneratorFlags: [String] {
        let generatorFlags = Set(Generator.flags.map(\.flag))
        return given.keys.filter { generatorFlags.contains($0) && Sound.modifier(withFlag: $0) == nil && !Self.sharedWithModifiers.contains($0) }.sorted()
    }

    /// Generator flags that a modifier reads when the source's generator does not: `--width` (the notch's).
    static let sharedWithModifiers: Set<String> = ["width"]

    /// The texts of the flags given, split between source `name`'s generator (the flags it reads) and the
    /// modifiers (the rest).
    func split(source name: String?) -> (generator: [String: String], modifiers: [String: String]) {
        var generator: [String: String] = [:], modifiers: [String: String] = [:]
        for (flag, text) in given {
            if Self.generator(name, reads: flag) { generator[flag] = text } else { modifiers[flag] = text }
        }
        return (generator, modifiers)
    }

    func validate() throws {
        let descriptors = Set(Generator.flags.map(\.flag) + Sound.modifierKinds.flatMap { $0.flags })
        let undeclared = descriptors.subtracting(Self.declared)
        guard undeclared.isEmpty else { throw ValidationError("internal: flags without an option: \(undeclared.sorted())") }
    }
}
