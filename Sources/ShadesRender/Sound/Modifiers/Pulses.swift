import ShadesDSP

/// Pulses (audiometry): `onSeconds` on, `offSeconds` off, raised-cosine ramps inside the on time; rendered by
/// `PulsedSource` after the sustained sound, so a pulsed tone has the asked level while it sounds.
public struct Pulses: Sendable, Equatable, Encodable {
    public var onSeconds: Double
    public var offSeconds: Double
    public var rampSeconds: Double
    /// Number of pulses, or nil for as many as the duration holds.
    public var count: Int?

    /// The defaults are the parameters' (`Parameter.pulseOn` …; a test holds them equal).
    public init(onSeconds: Double = 0.2, offSeconds: Double = 0.2, rampSeconds: Double = 0.025, count: Int? = nil) {
        (self.onSeconds, self.offSeconds, self.rampSeconds, self.count) = (onSeconds, offSeconds, rampSeconds, count)
    }

    /// Length of `count` pulses (the last one without its off time), in seconds.
    package var countedDurationSeconds: Double? {
        count.map { Double($0) * (onSeconds + offSeconds) - offSeconds }
    }

    /// Its parameters in comment tags and messages: "200ms/200ms ramp=25ms".
    var summary: String {
        "\(formatNumber(onSeconds * 1000))ms/\(formatNumber(offSeconds * 1000))ms ramp=\(formatNumber(rampSeconds * 1000))ms"
            + (count.map { " pulses=\($0)" } ?? "")
    }
}

/// The `pulses` modifier: `{ "onSeconds": 0.2, "offSeconds": 0.2, "rampSeconds": 0.025, "count": 10 }`;
/// `--pulse 200ms/200ms --pulse-count 10 --ramp 25ms`.
package enum PulsesModifier: FieldModifierKind {
    package typealias Value = Pulses
    package typealias Item = Pulses
    package static let key = "pulses"
    package static var slot: WritableKeyPath<Sound, Pulses?> { \.pulses }
    package static var baseFlags: [String] { ["pulse", "pulse-count"] }
    package static var defaults: Pulses {
        Pulses(onSeconds: Parameter.pulseOn.defaultValue!, offSeconds: Parameter.pulseOff.defaultValue!,
               rampSeconds: Parameter.ramp.defaultValue!)
    }
    package static var fields: [ParameterField<Pulses>] {
        [.number(\.onSeconds, .pulseOn, key: "onSeconds", flag: "", help: ""),
         .number(\.offSeconds, .pulseOff, key: "offSeconds", flag: "", help: ""),
         .number(\.rampSeconds, .ramp, key: "rampSeconds", flag: "ramp", form: .seconds,
                 help: "The raised-cosine rise and fall of each pulse (default \(formatNumber(Parameter.ramp.defaultValue! * 1000))ms; 20–50 ms is the audiometric convention; with --pulse or --pulse-count)."),
         .optionalCount(\.count, .pulseCount, key: "count", flag: "pulse-count",
                        help: "Number of pulses (the duration follows if --duration is not given).")]
    }
    package static var otherFlags: [(parameter: ParameterID, flag: String, help: String)] {
        [(.pulse, "pulse", "Pulses: on/off times, e.g. 200ms/200ms (audiometry).")]
    }

    /// `--pulse ON/OFF` (or the default times with `--pulse-count` alone), `--ramp`, `--pulse-count`.
    package static func read(commandLine values: CommandLineValues) throws(ShadesError) -> Pulses? {
        guard isAsked(by: values) else { return nil }
        var pulses = defaults
        try readFlags(values, into: &pulses)
        if let pulse = values.texts["pulse"] {
            let parts = pulse.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw ShadesError(parameter: .pulse, value: "'\(pulse)'", problem: "is not an on/off pair", allowed: "on/off times such as 200ms/200ms")
            }
            pulses.onSeconds = try ValueParsing.seconds(String(parts[0]), parameter: .pulse)
            pulses.offSeconds = try ValueParsing.seconds(String(parts[1]), parameter: .pulse)
        }
        return pulses
    }

    /// Its times at the rate; a loop has no room for pulses.
    package static func validate(_ value: Pulses, in request: RenderRequest) throws(ShadesError) {
        try PulsedSource.validate(onSeconds: value.onSeconds, offSeconds: value.offSeconds, rampSeconds: value.rampSeconds,
                                  pulseCount: value.count, sampleRate: request.sampleRate)
        if request.loop {
            throw ShadesError(parameter: .pulse, value: value.summary, problem: "cannot be combined with loop",
                              allowed: "pulses in a file of their own length")
        }
    }

    package static func apply(_ value: Pulses, to chain: inout ModifierChain) throws(ShadesError) {
        chain.envelope { source in
            try! PulsedSource(source: source, onSeconds: value.onSeconds, offSeconds: value.offSeconds,
                              rampSeconds: value.rampSeconds, pulseCount: value.count)
        }
    }
}
