import ShadesDSP
import ShadesIO

/// Everything that defines a rendered file; the same request and seed always give the same bytes.
public struct RenderRequest: Sendable, Equatable, Codable {
    public var sound: SoundDescription
    /// Length in seconds (> 0).
    public var durationSeconds: Double
    /// Sample rate in Hz (8,000 … 192,000).
    public var sampleRate: Double
    public var layout: ChannelLayout
    /// RMS level in dBFS of each sounding channel.
    public var levelDBFS: Double
    public var seed: UInt64
    /// Loop mode: the file repeats seamlessly (noise shaped over the whole length, tones with whole cycles).
    public var loop: Bool

    public init(sound: SoundDescription, durationSeconds: Double, sampleRate: Double = 48_000,
                layout: ChannelLayout = .stereo, levelDBFS: Double = -20, seed: UInt64 = 1, loop: Bool = false) {
        self.sound = sound
        self.durationSeconds = durationSeconds
        self.sampleRate = sampleRate
        self.layout = layout
        self.levelDBFS = levelDBFS
        self.seed = seed
        self.loop = loop
    }

    /// Frames in the file: duration × rate, rounded.
    public var frameCount: Int { Int((durationSeconds * sampleRate).rounded()) }

    /// Shortest loop, in frames.
    public static let minimumLoopFrames = 64

    /// Checks every parameter; the error names the parameter and its allowed range.
    public func validate() throws(ParameterError) {
        try validateSampleRate(sampleRate)
        guard sampleRate == sampleRate.rounded() else {
            throw ParameterError(parameter: "rate", value: "\(sampleRate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
        }
        guard durationSeconds.isFinite, durationSeconds > 0, frameCount >= 1 else {
            throw ParameterError(parameter: "duration", value: "\(durationSeconds) s", allowed: "longer than 0 s (at least one sample)")
        }
        guard durationSeconds <= 24 * 3600 else {
            throw ParameterError(parameter: "duration", value: "\(durationSeconds) s", allowed: "up to 24 h")
        }
        if loop && frameCount < Self.minimumLoopFrames {
            throw ParameterError(parameter: "duration", value: "\(durationSeconds) s",
                                 allowed: "at least \(Self.minimumLoopFrames) samples for a loop")
        }
        guard levelDBFS.isFinite, levelDBFS <= 0, levelDBFS >= -150 else {
            throw ParameterError(parameter: "level", value: "\(levelDBFS) dBFS", allowed: "-150 … 0 dBFS")
        }
        switch sound {
        case .noise(let colour, let distribution):
            _ = try NoiseColour(beta: colour.beta)
            if distribution == .uniform && colour.beta != 0 {
                throw ParameterError(parameter: "distribution", value: "uniform", allowed: "uniform only for white noise (beta 0)")
            }
        case .tone(let frequencyHz):
            try validateFrequency(frequencyHz, sampleRate: sampleRate)
        }
    }
}
