import ShadesDSP
import ShadesIO

/// A sound made for one output: the ``Sound`` and its output settings (length, rate, channels, seed, loop,
/// level). The same request and seed always give the same samples.
public struct RenderRequest: Sendable, Equatable, Codable {
    public var sound: Sound
    /// Length in seconds (> 0, up to 24 h); ``untilEndOfFile`` for a sound that is a file: its whole length.
    public var durationSeconds: Double
    /// Sample rate in Hz (8,000 … 192,000).
    public var sampleRate: Double
    /// Channel layout, unless the sound fixes its own (``Sound/channels``).
    public var layout: ChannelLayout
    /// How loud: see ``LevelPolicy``.
    public var level: LevelPolicy
    /// Random seed, unless the sound fixes its own (``Sound/seed``).
    public var seed: UInt64
    /// libsamplerate's converter when a sound file is resampled to ``sampleRate`` (best by default; not
    /// encoded: `shades notch --quality`).
    package var resamplerQuality: Resampler.Quality = .best
    /// Loop mode: the file repeats seamlessly (noise shaped over the whole length, tones and modulation
    /// with whole cycles).
    public var loop: Bool

    /// The length of a file sound: all of it.
    public static let untilEndOfFile = Double.infinity

    private enum CodingKeys: String, CodingKey { case sound, durationSeconds, sampleRate, layout, level, seed, loop }

    /// The JSON form: `durationSeconds` absent for ``untilEndOfFile``.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sound, forKey: .sound)
        if durationSeconds.isFinite { try c.encode(durationSeconds, forKey: .durationSeconds) }
        try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(layout, forKey: .layout)
        try c.encode(level, forKey: .level)
        try c.encode(seed, forKey: .seed)
        try c.encode(loop, forKey: .loop)
    }

    /// Reads the JSON form ``encode(to:)`` writes (a study's plan); the request is not validated here.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(sound: try c.decode(Sound.self, forKey: .sound),
                  durationSeconds: try c.decodeIfPresent(Double.self, forKey: .durationSeconds) ?? Self.untilEndOfFile,
                  sampleRate: try c.decode(Double.self, forKey: .sampleRate), layout: try c.decode(ChannelLayout.self, forKey: .layout),
                  level: try c.decode(LevelPolicy.self, forKey: .level), seed: try c.decode(UInt64.self, forKey: .seed),
                  loop: try c.decode(Bool.self, forKey: .loop))
    }

    public init(sound: Sound, durationSeconds: Double, sampleRate: Double = 48_000, layout: ChannelLayout = .stereo,
                level: LevelPolicy? = nil, seed: UInt64 = 1, loop: Bool = false) {
        self.sound = sound
        self.durationSeconds = durationSeconds
        self.sampleRate = sampleRate
        self.layout = layout
        self.level = level ?? .default(for: sound)
        self.seed = seed
        self.loop = loop
    }

    /// A generator with its modifiers at an RMS level: the common case, spelled out.
    package init(sound generator: Generator, durationSeconds: Double, sampleRate: Double = 48_000,
                layout: ChannelLayout = .stereo, levelDBFS: Double = -20, seed: UInt64 = 1, loop: Bool = false,
                modulation: Modulation? = nil, pulses: Pulses? = nil, fades: Fades? = nil, notches: [NotchSpec]? = nil) {
        self.init(sound: Sound(.generator(generator), notches: notches, modulation: modulation, pulses: pulses, fades: fades),
                  durationSeconds: durationSeconds, sampleRate: sampleRate, layout: layout, level: .rms(dBFS: levelDBFS),
                  seed: seed, loop: loop)
    }

    /// The layout made: the sound's own, else the request's.
    package var resolvedLayout: ChannelLayout { sound.channels ?? layout }
    /// The seed used: the sound's own, else the request's.
    package var resolvedSeed: UInt64 { sound.seed ?? seed }

    /// The sound with its channels and seed stated: what a manifest records.
    package var resolvedSound: Sound {
        var s = sound
        s.channels = resolvedLayout
        s.seed = resolvedSeed
        return s
    }

    /// The RMS level asked, dBFS (``LevelPolicy/rms(dBFS:)``); for other policies the reference level a
    /// graph is first made at (−20 dBFS).
    package var levelDBFS: Double {
        get { level.rmsDBFS ?? Self.referenceLevelDBFS }
        set { level = .rms(dBFS: newValue) }
    }

    /// The level a sound is first made at when a loudness target or a ceiling decides its final gain, and
    /// each layer of a mix is brought to, dBFS.
    package static let referenceLevelDBFS = -20.0

    /// The top-level modifiers of the sound.
    package var modulation: Modulation? {
        get { sound.modulation }
        set { sound.modulation = newValue }
    }
    package var pulses: Pulses? {
        get { sound.pulses }
        set { sound.pulses = newValue }
    }
    package var fades: Fades? {
        get { sound.fades }
        set { sound.fades = newValue }
    }
    /// The notches (nil when there are none).
    package var notches: [NotchSpec]? {
        get { sound.notches.flatMap { $0.isEmpty ? nil : $0 } }
        set { sound.notches = newValue }
    }

    /// Frames in the file: duration × rate, rounded (0 for ``untilEndOfFile``: the graph knows them).
    package var frameCount: Int { durationSeconds.isFinite ? Int((durationSeconds * sampleRate).rounded()) : 0 }

    /// Shortest loop, in frames.
    package static let minimumLoopFrames = 64

    /// Checks every parameter of the request and of each part of its sound; the error names the parameter
    /// and its allowed range.
    package func validate() throws(ShadesError) {
        try validateSampleRate(sampleRate)
        guard sampleRate == sampleRate.rounded() else {
            throw ShadesError(parameter: .rate, value: "\(sampleRate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
        }
        if durationSeconds == Self.untilEndOfFile {
            guard sound.file != nil else {
                throw ShadesError(parameter: .duration, value: "until the end of the file", allowed: "a length for a sound that is not a file")
            }
        } else {
            // The range first: frames are counted only for a length that fits (1e15 s would overflow them).
            try Parameter.duration.check(durationSeconds)
            guard frameCount >= 1 else {
                throw Parameter.duration.outOfRange(durationSeconds, range: .above(0, atMost: Parameter.longestSeconds, unit: .seconds),
                                                    note: "and at least one sample, \(ParameterValue.number(1 / sampleRate, .seconds))")
            }
        }
        if loop && frameCount < Self.minimumLoopFrames {
            throw ShadesError(parameter: .duration, value: "\(durationSeconds) s",
                              allowed: "at least \(Self.minimumLoopFrames) samples for a loop")
        }
        try level.validate()
        try validateSound()
    }

    /// The sound's parts, each at this request's rate, length and loop mode: its modifiers (each by its
    /// descriptor, in the chain's order), then its source.
    func validateSound() throws(ShadesError) {
        for kind in Sound.modifierKinds { try kind.validate(sound, in: self) }
        try sound.source.kind.validate(in: self)
    }

    /// True for a loop of coloured or notched noise longer than ``LoopNoise/largestSynthesisFrames``: it
    /// streams as periodic noise (``NoiseSource`` with a period) instead of being synthesised whole, and
    /// its comment tag says `loop_method=periodic`.
    package var streamsPeriodicLoop: Bool {
        guard loop, frameCount > LoopNoise.largestSynthesisFrames, sound.swell == nil,
              let noise = sound.generator?.as(ColouredNoise.self) else { return false }
        return noise.beta != 0 || !(notches ?? []).isEmpty || sound.shape != nil
    }

    /// Refuses a sound synthesised whole in memory (``LoopNoise``) longer than
    /// ``LoopNoise/largestSynthesisFrames``, before any work.
    func refuseLongSynthesis(_ what: String) throws(ShadesError) {
        guard frameCount > LoopNoise.largestSynthesisFrames else { return }
        let longest = Double(LoopNoise.largestSynthesisFrames) / sampleRate
        throw ShadesError(parameter: .duration, value: "\(formatNumber(durationSeconds)) s",
                          problem: "is too long for \(what), synthesised whole in memory",
                          allowed: "at most \(formatNumber((longest * 10).rounded(.down) / 10)) s at \(formatNumber(sampleRate)) Hz")
    }
}

extension RenderRequest {
    /// `hertz` in a loop: the nearest rate with a whole number of cycles (at least one) in the loop's frames,
    /// so the loop closes without a seam; else `hertz` itself.
    package func loopRate(_ hertz: Double) -> Double {
        loop ? ToneSource.loopFrequency(near: hertz, frameCount: frameCount, sampleRate: sampleRate) : hertz
    }

    /// Timed therapy patterns carry their own timing and spectrum: loops, notches, modulation and pulses
    /// are refused (fades are allowed).
    func refusePatternCombinations(_ name: String) throws(ShadesError) {
        if loop {
            throw ShadesError(parameter: .loop, value: "on", problem: "cannot be combined with \(name)",
                              allowed: "a file of its own length (the pattern does not repeat within a loop)")
        }
        if let notches, !notches.isEmpty {
            throw ShadesError(parameter: .notchCentre, value: notches.map { "\(formatNumber($0.centreHz)) Hz" }.joined(separator: ", "),
                              problem: "cannot be combined with \(name)",
                              allowed: "no notch (the stimulus defines its own spectrum)")
        }
        if let modulation {
            throw ShadesError(parameter: .amRate, value: "\(formatNumber(modulation.rateHz)) Hz", problem: "cannot be combined with \(name)",
                              allowed: "no amplitude modulation (the stimulus defines its own envelope)")
        }
        if let pulses {
            throw ShadesError(parameter: .pulse, value: pulses.summary, problem: "cannot be combined with \(name)",
                              allowed: "no pulses (the stimulus defines its own timing)")
        }
    }
}
