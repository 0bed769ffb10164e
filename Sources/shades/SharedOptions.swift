import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesProcedures

// The options several commands share, each declared once here; a command takes them with `@OptionGroup`.
// Values are text that Shades parses itself (``ValueParsing``: units, ranges, one-line messages), and every
// option takes its value even when it starts with a dash (`--level -20`).

/// An option group whose options give library parameters: a message about one of them names the option as
/// the user typed it (``ParameterFlags``).
protocol ParameterOptions: ParsableArguments {
    /// The parameters these options give, each with the name of the property that declares its option.
    static var parameters: [ParameterID: String] { get }
}

/// One command's wording of a shared option's help, so that its notes speak of that command only (a
/// command's `--rate` says what its own default is, not another command's).
protocol OptionHelp {
    static var text: String { get }
}

extension ParameterOptions {
    /// The flag of each of ``parameters``: its property's name as ArgumentParser spells it.
    static var flags: [ParameterID: String] { parameters.mapValues(longFlag) }
}

/// The flag ArgumentParser gives a property without a name of its own: `--` and the name in kebab case
/// (`startLevel`: `--start-level`).
func longFlag(_ property: some StringProtocol) -> String {
    "--" + property.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
}

/// `--rate`: the sample rate, Hz.
struct RateOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var rate: String?

    static var parameters: [ParameterID: String] { [.rate: "rate"] }

    /// The rate given, nil without `--rate`.
    func hertz() throws(ShadesError) -> Double? {
        try rate.map { (text: String) throws(ShadesError) in try ValueParsing.hertz(text, parameter: .rate) }
    }
}

/// `--level`: an RMS level, dBFS.
struct LevelOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var level: String?

    static var parameters: [ParameterID: String] { [.level: "level"] }

    /// The level given, nil without `--level`.
    func dBFS() throws(ShadesError) -> Double? {
        try level.map { (text: String) throws(ShadesError) in try ValueParsing.decibels(text) }
    }
}

/// `--seed`: the seed of a sound's noise or of a procedure's random choices.
struct SeedOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var seed: String?

    static var parameters: [ParameterID: String] { [.seed: "seed"] }

    /// The seed given, nil without `--seed`.
    func value() throws(ShadesError) -> UInt64? {
        try seed.map { (text: String) throws(ShadesError) in try ValueParsing.seed(text) }
    }

    /// The seed given, else `defaultSeed`.
    func value(default defaultSeed: UInt64) throws(ShadesError) -> UInt64 { try value() ?? defaultSeed }

    /// The seed given, else a fresh one (a procedure's, written in its result).
    func valueOrFresh() throws(ShadesError) -> UInt64 { try value() ?? UInt64(UInt32.random(in: 0 ... .max)) }
}

/// `--channels`: the layout of a sound.
struct ChannelsOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var channels: ChannelLayout?

    static var parameters: [ParameterID: String] { [.layout: "channels"] }
}

/// `--format`: the sample format of the files written.
struct SampleFormatOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var format: SampleFormat?

    static var parameters: [ParameterID: String] { [.sampleFormat: "format"] }
}

/// `--container`: the file type of the files written into a folder.
struct ContainerOption: ParameterOptions {
    @Option(parsing: .unconditional, help: "File type of the files written into a folder: wav (the default) or flac.")
    var container: String?

    static let parameters: [ParameterID: String] = [.container: "container"]

    /// The file type given, nil without `--container`.
    func parsed() throws(ShadesError) -> Container? {
        guard let container else { return nil }
        guard let type = [Container.wav, .flac].first(where: { $0.rawValue == container.lowercased() }) else {
            throw ShadesError(parameter: .container, value: "'\(container)'", problem: "is unknown", allowed: "wav, flac")
        }
        return type
    }
}

/// `--duration`: how long a sound or a recording lasts.
struct DurationOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var duration: String?

    static var parameters: [ParameterID: String] { [.duration: "duration"] }
}

/// `--device`: the sound card a command plays through.
struct OutputDeviceOption: ParameterOptions {
    @Option(parsing: .unconditional, help: "Output device: an index or part of a name (list them: `shades play --device list`).")
    var device: String?

    static let parameters: [ParameterID: String] = [.device: "device"]
}

/// Refuses the options given (`flag`, `given`) that a simulated listener (`simulate`, the option that asks
/// for one) would ignore: it plays no sound.
func refuseSoundOptions(_ options: [(flag: String, given: Bool)], simulatedBy simulate: String) throws(ShadesError) {
    for (flag, given) in options where given {
        throw ShadesError.usage("\(flag) does not apply to \(simulate), which plays no sound (allowed: \(flag) without \(simulate))")
    }
}

/// `--calibration` of a level in dB SPL: `94dB@-20dBFS`.
struct SPLCalibrationOption: ParameterOptions {
    @Option(parsing: .unconditional, help: "Calibration for dB SPL, e.g. 94dB@-20dBFS (a calibrator at 94 dB SPL read -20 dBFS).")
    var calibration: String?

    static let parameters: [ParameterID: String] = [.calibration: "calibration"]

    /// The calibration given, nil without `--calibration`.
    func parsed() throws(ShadesError) -> SPLCalibration? {
        try calibration.map { (text: String) throws(ShadesError) in try SPLCalibration(parsing: text) }
    }
}

/// `--ear`: the ears a procedure or a stimulus set is for.
struct EarOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var ear: String = "both"

    static var parameters: [ParameterID: String] { [.ear: "ear"] }

    /// The ears, right first.
    func ears() throws -> [Ears] { try parseEars(ear) }
}

/// `--frequencies` and `--extended`: the frequencies of audiometry, Hz.
struct AudiometricFrequencyOptions<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var frequencies: String?

    @Flag(help: "Add the extended high frequencies 9–16 kHz.")
    var extended = false

    /// A frequency of audiometry is one of the list.
    static var parameters: [ParameterID: String] { [.frequencies: "frequencies", .frequency: "frequencies"] }

    /// `--frequencies` (else the audiometric frequencies) and `--extended` (the high ones added), Hz.
    func list() throws -> [Double] {
        var list = try frequencies.map(parseFrequencyList) ?? StimulusSets.audiometricFrequencies
        if extended { list += StimulusSets.extendedHighFrequencies }
        return list
    }
}

/// `--start-level`: the first level of a procedure.
struct StartLevelOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var startLevel: String?

    static var parameters: [ParameterID: String] { [.startLevel: "startLevel"] }

    /// The level given, dB; nil without `--start-level`.
    func decibels() throws(ShadesError) -> Double? {
        try startLevel.map { (text: String) throws(ShadesError) in try ValueParsing.decibels(text, parameter: .startLevel) }
    }
}

/// `--tinnitus-frequency`: the frequency the catalogue's personalised sounds are made for.
struct TinnitusFrequencyOption<Help: OptionHelp>: ParameterOptions {
    @Option(parsing: .unconditional, help: ArgumentHelp(Help.text))
    var tinnitusFrequency: String?

    static var parameters: [ParameterID: String] { [.tinnitusFrequency: "tinnitusFrequency"] }

    /// The frequency given, Hz, within the allowed range; nil without `--tinnitus-frequency`.
    func hertz() throws(ShadesError) -> Double? {
        guard let tinnitusFrequency else { return nil }
        let frequency = try ValueParsing.hertz(tinnitusFrequency, parameter: .tinnitusFrequency)
        try Parameter.tinnitusFrequency.check(frequency)
        return frequency
    }
}

/// `--from-match`: the tinnitus frequency from a `shades match -o` result.
struct FromMatchOption: ParameterOptions {
    @Option(parsing: .unconditional, help: "The tinnitus frequency from a `shades match -o` result file (a flagged match is warned about).")
    var fromMatch: String?

    static let parameters: [ParameterID: String] = [.matchFile: "fromMatch"]

    /// The result file as an input of the command, nil without `--from-match`.
    var input: CommandInput? { fromMatch.map { CommandInput($0, name: "--from-match") } }

    /// The matched frequency, Hz; nil without `--from-match`.
    func frequencyHz() throws -> Double? { try fromMatch.map(matchedFrequency) }
}

/// `--json`: the result printed for machines.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print the result as JSON instead of text.")
    var json = false
}

/// `--json` and `-o`: a procedure's result, printed and written as JSON.
struct ResultOptions: ParameterOptions {
    @OptionGroup var printing: JSONOption

    @Option(name: .shortAndLong, parsing: .unconditional, help: "Write the result as JSON to this file.")
    var output: String?

    static let parameters: [ParameterID: String] = [.output: "output"]

    var json: Bool { printing.json }

    /// Checks `-o`, when given, against the files the command reads, before the procedure runs
    /// (``CommandPaths/checkOutput(_:option:inputs:createsFolders:)``).
    func checkOutput(inputs: [CommandInput]) throws {
        if let output { try CommandPaths.checkOutput(output, inputs: inputs) }
    }

    /// Writes `result` to `-o` when given, and prints it as JSON with `--json`, else `summary` (paragraphs,
    /// each wrapped to the terminal).
    func write<T: Encodable>(_ result: T, summary: [String]) throws {
        let data = try prettyJSON(result)
        if let output { try AtomicFile.write(Array(data), to: output) }
        if json {
            print(String(decoding: data, as: UTF8.self))
        } else {
            summary.forEach(printWrapped)
        }
    }
}
