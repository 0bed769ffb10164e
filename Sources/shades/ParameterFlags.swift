import ArgumentParser
import ShadesDSP
import ShadesProcedures
import ShadesRender

/// How the command line names the library's parameters: the option a user typed, e.g. `--am-depth` for
/// ``ParameterID/amDepth``. Errors are shown through ``ShadesError/described(naming:)`` with the running
/// command's names, so "AM depth 1.5 is out of range" reads `--am-depth 1.5 is out of range`.
enum ParameterFlags {
    /// The option groups commands share, whose flags every command's messages use (a command's own
    /// declarations, below, win over them).
    static let sharedGroups: [any ParameterOptions.Type] = [
        // The flags are the same whatever a command's help says: one wording of each stands for all.
        RateOption<SoundHelp.Rate>.self, LevelOption<SoundHelp.Level>.self, SeedOption<SoundHelp.Seed>.self,
        ChannelsOption<SoundHelp.Channels>.self, SampleFormatOption<SoundHelp.Format>.self, ContainerOption.self,
        DurationOption<SoundHelp.Duration>.self, OutputDeviceOption.self, SPLCalibrationOption.self, EarOption<AudiometryHelp.Ear>.self,
        AudiometricFrequencyOptions<AudiometryHelp.Frequencies>.self, StartLevelOption<AudiometryHelp.StartLevel>.self,
        TinnitusFrequencyOption<CatalogueHelp.TinnitusFrequency>.self, FromMatchOption.self, ResultOptions.self, AudiogramShapingOptions.self,
    ]

    /// The options of `render` and `play`, and the names other commands share with them: the shared groups',
    /// the generators' and the modifiers' flags (from their descriptors; `--frequency`, not the audiometric
    /// `--frequencies`) and the options declared by one command only.
    static let common: [ParameterID: String] = sharedGroups.reduce([:]) { $0.merging($1.flags) { $1 } }
        .merging(Dictionary(Generator.flags.map { ($0.parameter, "--" + $0.flag) }) { first, _ in first }) { $1 }
        .merging(Dictionary(Sound.modifierKinds.flatMap { $0.parameters }.compactMap { row in row.flag.map { (row.parameter, "--" + $0) } }) { first, _ in first }) { $1 }
        .merging([
        .loop: "--loop",
        .pulseOn: "--pulse (on time)", .pulseOff: "--pulse (off time)",
        .loudness: "--loudness", .ceiling: "--ceiling",
        .mmlStep: "--mml-step", .reference: "--reference",
        .frequencyRange: "--from/--to", .step: "--step", .octaveCheck: "--octave-check",
        .silence: "--silence", .mmlRange: "--mml-from/--mml-to", .channels: "--channels",
        .listener: "--simulate", .simulatedAudiogram: "--simulate-audiogram", .falseAlarms: "--false-alarms", .misses: "--misses",
        .leftNotches: "--left", .rightNotches: "--right", .colour: "--colour",
        .listeningTime: "--listen", .referenceFile: "--reference-from",
        .fromFrequency: "--from", .toFrequency: "--to", .buffer: "--buffer", .timer: "--timer", .latency: "--latency",
        .masker: "--masker", .onsetRamp: "--onset", .offsetRamp: "--offset", .probe: "--probe", .above: "--above",
        .probeFrom: "--mml-from", .probeTo: "--mml-to",
    ]) { $1 }

    /// The names for `command`: the common names, those of the option groups it declares (`notch` and
    /// `notch-filter` give notches by `--width`, `loudness-match` and `mml` the reference by `--threshold`), and
    /// the names that depend on the options given.
    static func names(for command: any ParsableCommand) -> [ParameterID: String] {
        let declared = common.merging(groupFlags(of: command)) { $1 }
        switch command {
        case let notch as NotchCommand where notch.frequency.isEmpty && !(notch.left + notch.right).isEmpty:
            // Notches of one channel: their centres are --left's and --right's.
            let flag = [("--left", !notch.left.isEmpty), ("--right", !notch.right.isEmpty)].filter(\.1).map(\.0).joined(separator: "/")
            return declared.merging([.notchCentre: flag]) { $1 }
        case is NotchCommand, is NotchFilterCommand:
            return declared.merging([.notchCentre: "--frequency"]) { $1 }
        case is AnalyzeCommand:
            return declared.merging([.bandCentre: "--notch", .bandWidth: "--width"]) { $1 }
        case let render as RenderCommand:
            return declared.merging(render.sound.flagNames(source: render.source)) { $1 }
        case let play as PlayCommand:
            return declared.merging(play.sound.flagNames(source: play.source)) { $1 }
        case let mml as MMLCommand where mml.startLevel.startLevel == nil:
            // The threshold is the noise's first level unless --start-level gives one.
            return declared.merging([.startLevel: "--threshold"]) { $1 }
        case let mril as MRILCommand where mril.startLevel.startLevel == nil:
            return declared.merging([.startLevel: "--threshold"]) { $1 }
        case is StimuliCommand.ResidualInhibition:
            return declared.merging([.fade: "--onset/--offset", .fadeIn: "--onset", .fadeOut: "--offset"]) { $1 }
        default:
            return declared
        }
    }

    /// The flags of the ``ParameterOptions`` groups `arguments` declares, those of groups within groups included.
    private static func groupFlags(of arguments: any ParsableArguments) -> [ParameterID: String] {
        var flags = (type(of: arguments) as? any ParameterOptions.Type)?.flags ?? [:]
        for child in Mirror(reflecting: arguments).children {
            if let group = child.value as? any OptionGroupContents { flags.merge(groupFlags(of: group.contents)) { $1 } }
        }
        return flags
    }
}

/// Parameters only the command line has, named by their flags in messages.
extension ParameterID {
    /// `notch --left` and `--right`: notch centres for one channel.
    static let leftNotches = ParameterID(rawValue: "left notches")
    static let rightNotches = ParameterID(rawValue: "right notches")
    /// The file type of outputs written into a folder.
    static let container = ParameterID(rawValue: "container")
    /// `analyze --colour`: the expected noise colour.
    static let colour = ParameterID(rawValue: "colour")
    /// `analyze --listen`: listening time for a noise dose.
    static let listeningTime = ParameterID(rawValue: "listening time")
    /// Result files of the procedures: a pitch match, an audiogram, a loudness match or MML.
    static let matchFile = ParameterID(rawValue: "match file")
    static let audiogram = ParameterID(rawValue: "audiogram")
    static let referenceFile = ParameterID(rawValue: "reference file")
    /// `play`: the callback's length, the timer and the device latency.
    static let buffer = ParameterID(rawValue: "buffer")
    static let timer = ParameterID(rawValue: "timer")
    static let latency = ParameterID(rawValue: "latency")
}

extension ParsableArguments {
    /// The flags of the options given a value other than their default (`--am`, `--loop`), in the order
    /// they are declared, those of option groups included: what a mode that uses none of them refuses.
    /// An option's flag is its property's name in kebab case (`amDepth`: `--am-depth`) unless `renamed`.
    func flagsGiven(renamed: [String: String] = [:]) throws -> [String] {
        try Self.flagsGiven(self, defaults: Self.parse([]), renamed: renamed)
    }

    private static func flagsGiven(_ given: any ParsableArguments, defaults: any ParsableArguments,
                                   renamed: [String: String]) throws -> [String] {
        var flags: [String] = []
        for (value, otherwise) in zip(Mirror(reflecting: given).children, Mirror(reflecting: defaults).children) {
            guard let label = value.label?.dropFirst() else { continue }
            if let group = value.value as? any OptionGroupContents, let defaultGroup = otherwise.value as? any OptionGroupContents {
                flags += try flagsGiven(group.contents, defaults: defaultGroup.contents, renamed: renamed)
            } else if String(describing: value.value) != String(describing: otherwise.value) {
                flags.append(renamed[String(label)] ?? longFlag(label))
            }
        }
        return flags
    }
}

/// An `@OptionGroup`'s options, for ``ParsableArguments/flagsGiven(renamed:)``.
fileprivate protocol OptionGroupContents { var contents: any ParsableArguments { get } }
extension OptionGroup: OptionGroupContents { fileprivate var contents: any ParsableArguments { wrappedValue } }
