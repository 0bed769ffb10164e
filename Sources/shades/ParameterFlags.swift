import ArgumentParser
import ShadesDSP
import ShadesProcedures

/// How the command line names the library's parameters: the option a user typed, e.g. `--am-depth` for
/// ``ParameterID/amDepth``. Errors are shown through ``ShadesError/described(naming:)`` with the running
/// command's names, so "AM depth 1.5 is out of range" reads `--am-depth 1.5 is out of range`.
enum ParameterFlags {
    /// The sound options of `render` and `play`, and the names other commands share with them.
    static let common: [ParameterID: String] = [
        .rate: "--rate", .duration: "--duration", .level: "--level", .seed: "--seed", .loop: "--loop",
        .layout: "--channels", .beta: "--beta", .distribution: "--distribution", .frequency: "--frequency",
        .width: "--width", .cycleRate: "--cycle-rate", .toneLength: "--tone-length", .toneRamp: "--tone-ramp",
        .onCycles: "--on-cycles", .offCycles: "--off-cycles", .toneGains: "--tone-gains", .bandGains: "--band-gains",
        .amRate: "--am", .amDepth: "--am-depth", .amPhase: "--am-phase",
        .fade: "--fade", .fadeIn: "--fade-in", .fadeOut: "--fade-out",
        .pulse: "--pulse", .pulseOn: "--pulse (on time)", .pulseOff: "--pulse (off time)", .ramp: "--ramp",
        .pulseCount: "--pulse-count",
        .notchCentre: "--notch", .notchWidth: "--notch-width", .edgeBoost: "--edge-boost", .edgeWidth: "--edge-width",
        .sampleFormat: "--format", .output: "--output", .loudness: "--loudness", .ceiling: "--ceiling",
        .mmlStep: "--mml-step", .calibration: "--calibration", .reference: "--reference",
        .frequencies: "--frequencies", .frequencyRange: "--from/--to", .step: "--step", .octaveCheck: "--octave-check",
        .silence: "--silence", .mmlRange: "--mml-from/--mml-to", .channels: "--channels", .device: "--device",
        .tinnitusFrequency: "--tinnitus-frequency", .listener: "--simulate",
        .ear: "--ear", .simulatedAudiogram: "--simulate-audiogram", .falseAlarms: "--false-alarms", .misses: "--misses",
        .startLevel: "--start-level", .fittingRule: "--rule", .maximumGain: "--max-gain",
        .carrier: "--carrier", .beat: "--beat", .duty: "--duty", .isochronicRamp: "--ramp", .density: "--density",
        .scale: "--scale", .lowPitch: "--low", .highPitch: "--high", .tempo: "--tempo",
    ]

    /// The names for `command`: `notch` and `notch-filter` give notches by `--frequency` and `--width`,
    /// `analyze` its band by `--notch` and `--width`.
    static func names(for command: any ParsableCommand) -> [ParameterID: String] {
        switch command {
        case is NotchCommand, is NotchFilterCommand:
            return common.merging([.notchCentre: "--frequency", .notchWidth: "--width"]) { $1 }
        case is AnalyzeCommand:
            return common.merging([.bandCentre: "--notch", .bandWidth: "--width"]) { $1 }
        case is StimuliCommand.ResidualInhibition:
            return common.merging([.fade: "--onset/--offset", .fadeIn: "--onset", .fadeOut: "--offset"]) { $1 }
        default:
            return common
        }
    }
}
