import ShadesDSP

/// Raised-cosine fade-in and fade-out (`FadedSource`); the sound ends with its fade-out at the file's end,
/// or earlier at `endSeconds` with silence after it (a residual-inhibition masker and the silence that
/// follows it).
public struct Fades: Sendable, Equatable, Encodable {
    public var inSeconds: Double
    /// 0 for an abrupt end.
    public var outSeconds: Double
    /// Where the fade-out ends and silence begins, in seconds from the start; nil: the file's end.
    public var endSeconds: Double?

    public init(inSeconds: Double, outSeconds: Double, endSeconds: Double? = nil) {
        (self.inSeconds, self.outSeconds, self.endSeconds) = (inSeconds, outSeconds, endSeconds)
    }

    /// Frames until silence in a file of `frames` frames at `sampleRate`.
    func soundFrames(sampleRate: Double, frames: Int) -> Int {
        endSeconds.map { Int(($0 * sampleRate).rounded()) } ?? frames
    }

    /// Its parameters in comment tags and messages: "50ms/50ms".
    var summary: String {
        "\(formatNumber(inSeconds * 1000))ms/\(formatNumber(outSeconds * 1000))ms" + (endSeconds.map { " fade_end=\(formatNumber($0))s" } ?? "")
    }
}

/// The `fades` modifier: `{ "inSeconds": 5, "outSeconds": 5, "endSeconds": 60 }`; `--fade 5s` (both ends),
/// `--fade-in`, `--fade-out`.
package enum FadesModifier: FieldModifierKind {
    package typealias Value = Fades
    package typealias Item = Fades
    package static let key = "fades"
    package static var slot: WritableKeyPath<Sound, Fades?> { \.fades }
    package static var baseFlags: [String] { ["fade", "fade-in", "fade-out"] }
    package static var defaults: Fades { Fades(inSeconds: Parameter.fadeIn.defaultValue!, outSeconds: Parameter.fadeOut.defaultValue!) }
    package static var fields: [ParameterField<Fades>] {
        [.number(\.inSeconds, .fadeIn, key: "inSeconds", flag: "fade-in", form: .seconds, help: "Fade-in length (overrides --fade)."),
         .number(\.outSeconds, .fadeOut, key: "outSeconds", flag: "fade-out", form: .seconds, help: "Fade-out length (overrides --fade)."),
         .optionalNumber(\.endSeconds, .fadeEnd, key: "endSeconds", flag: "", help: "")]
    }
    package static var otherFlags: [(parameter: ParameterID, flag: String, help: String)] {
        [(.fade, "fade", "Raised-cosine fade-in and fade-out, e.g. 50ms.")]
    }

    /// `--fade` for both ends, each overridden by `--fade-in` or `--fade-out`.
    package static func read(commandLine values: CommandLineValues) throws(ShadesError) -> Fades? {
        guard isAsked(by: values) else { return nil }
        let both = try values.texts["fade"].map { (text: String) throws(ShadesError) in try ValueParsing.seconds(text, parameter: .fade) } ?? 0
        try Parameter.fade.check(both)
        var fades = Fades(inSeconds: both, outSeconds: both)
        try readFlags(values, into: &fades)
        return fades
    }

    /// Its lengths within the sound's (a stream's: unbounded); a loop has no ends to fade.
    package static func validate(_ value: Fades, in request: RenderRequest) throws(ShadesError) {
        let frames = request.frameCount > 0 ? request.frameCount : Int.max / 2
        let rate = request.sampleRate
        if let endSeconds = value.endSeconds {
            guard endSeconds.isFinite, endSeconds > 0, value.soundFrames(sampleRate: rate, frames: frames) <= frames else {
                throw ShadesError(parameter: .fadeEnd, value: "\(formatNumber(endSeconds)) s",
                                  allowed: "above 0 and at most the duration, \(formatNumber(Double(frames) / rate)) s")
            }
        }
        try FadedSource.validate(fadeInSeconds: value.inSeconds, fadeOutSeconds: value.outSeconds,
                                 totalFrames: value.soundFrames(sampleRate: rate, frames: frames), sampleRate: rate)
        if request.loop {
            throw ShadesError(parameter: .fade, value: value.summary, problem: "cannot be combined with loop",
                              allowed: "fades on a file that is not a loop (a loop has no ends)")
        }
    }

    package static func apply(_ value: Fades, to chain: inout ModifierChain) throws(ShadesError) {
        let soundFrames = value.soundFrames(sampleRate: chain.request.sampleRate, frames: chain.frames)
        chain.envelope { source in
            try! FadedSource(source: source, fadeInSeconds: value.inSeconds, fadeOutSeconds: value.outSeconds, totalFrames: soundFrames)
        }
    }
}

extension Parameter {
    /// Where a fade-out ends and silence begins, seconds from the start (at most the duration).
    package static let fadeEnd = Parameter(.fadeEnd, unit: .seconds, range: .above(0, atMost: longestSeconds, unit: .seconds))
}
