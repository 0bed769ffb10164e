import ArgumentParser
import ShadesDSP
import ShadesRender

/// The options of the generators' parameters (`--frequency`, `--density`, `--tones` …), each declared once
/// with the help its generators give it (``Generator/help(forFlag:)``). Which source a flag applies to, its
/// unit and range, and how it is read come from the generators' descriptors: a new generator that reuses
/// these flags needs nothing here, and a new flag is one declaration (``validate()`` refuses a descriptor
/// flag that is not declared).
struct SourceFlags: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "frequency")))
    var frequency: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "width") + " Else the width of the --notch (as --notch-width)."))
    var width: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "beta")))
    var beta: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "distribution")))
    var distribution: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "density")))
    var density: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "carrier")))
    var carrier: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "beat")))
    var beat: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "duty")))
    var duty: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(
        Generator.help(forFlag: "ramp") + " Else the raised-cosine rise and fall of each pulse (default 25ms; 20–50 ms is the audiometric convention; with --pulse or --pulse-count)."))
    var ramp: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "scale")))
    var scale: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "low")))
    var low: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "high")))
    var high: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "tempo")))
    var tempo: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "tones")))
    var tones: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "tone-length")))
    var toneLength: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "tone-ramp")))
    var toneRamp: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "cycle-rate")))
    var cycleRate: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "on-cycles")))
    var onCycles: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "off-cycles")))
    var offCycles: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "tone-gains")))
    var toneGains: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "condition")))
    var condition: String?
    @Flag(help: ArgumentHelp(Generator.help(forFlag: "sham")))
    var sham = false
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "band-gains")))
    var bandGains: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "bin-low")))
    var binLow: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "bin-high")))
    var binHigh: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "bin-scale")))
    var binScale: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(Generator.help(forFlag: "bin-levels")))
    var binLevels: String?

    /// Flags that are also a modifier's: `--width` (the notch's) and `--ramp` (the pulses').
    static let sharedWithModifiers: Set<String> = ["width", "ramp"]

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
    static var declared: Set<String> {
        Set(Mirror(reflecting: SourceFlags()).children.compactMap { $0.label.map { flag(forProperty: String($0.dropFirst())) } })
    }

    /// `toneLength` → `tone-length`, as ArgumentParser names a property's option.
    static func flag(forProperty name: String) -> String {
        name.reduce(into: "") { text, c in text += c.isUppercase ? "-" + c.lowercased() : String(c) }
    }

    /// The flags given that belong to a generator (not shared with a modifier).
    var givenGeneratorFlags: [String] { given.keys.filter { !Self.sharedWithModifiers.contains($0) }.sorted() }

    /// True when source `name`'s generator reads `flag`.
    static func generator(_ name: String?, reads flag: String) -> Bool {
        guard let name else { return false }
        return Generator.flags.contains { $0.flag == flag && $0.sources.contains(name) }
    }

    func validate() throws {
        let undeclared = Set(Generator.flags.map(\.flag)).subtracting(Self.declared)
        guard undeclared.isEmpty else { throw ValidationError("internal: generator flags without an option: \(undeclared.sorted())") }
    }
}
