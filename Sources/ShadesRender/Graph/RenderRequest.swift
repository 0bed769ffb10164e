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
    /// RMS level in dBFS of each sounding channel, measured on the sustained sound (before fades and
    /// pulses; with amplitude modulation, after it).
    public var levelDBFS: Double
    public var seed: UInt64
    /// Loop mode: the file repeats seamlessly (noise shaped over the whole length, tones and modulation
    /// with whole cycles).
    public var loop: Bool
    /// Amplitude modulation applied to the sound (Neff 2017/2019, Schoisswohl 2019).
    public var modulation: Modulation?
    /// Pulses (audiometry): on/off times with raised-cosine ramps.
    public var pulses: Pulses?
    /// Raised-cosine fade-in and fade-out, in seconds.
    public var fades: Fades?
    /// Notches cut from the sound (notched noise for the catalogue; Okamoto 2010, Stein 2016).
    public var notches: [NotchSpec]?

    public init(sound: SoundDescription, durationSeconds: Double, sampleRate: Double = 48_000,
                layout: ChannelLayout = .stereo, levelDBFS: Double = -20, seed: UInt64 = 1, loop: Bool = false,
                modulation: Modulation? = nil, pulses: Pulses? = nil, fades: Fades? = nil, notches: [NotchSpec]? = nil) {
        self.sound = sound
        self.durationSeconds = durationSeconds
        self.sampleRate = sampleRate
        self.layout = layout
        self.levelDBFS = levelDBFS
        self.seed = seed
        self.loop = loop
        self.modulation = modulation
        self.pulses = pulses
        self.fades = fades
        self.notches = notches
    }

    /// Frames in the file: duration × rate, rounded.
    public var frameCount: Int { Int((durationSeconds * sampleRate).rounded()) }

    /// Shortest loop, in frames.
    public static let minimumLoopFrames = 64

    /// Checks every parameter; the error names the parameter and its allowed range.
    public func validate() throws(ShadesError) {
        try validateSampleRate(sampleRate)
        guard sampleRate == sampleRate.rounded() else {
            throw ShadesError(parameter: "rate", value: "\(sampleRate) Hz", allowed: "a whole number of Hz, 8000 … 192000")
        }
        guard durationSeconds.isFinite, durationSeconds > 0, frameCount >= 1 else {
            throw ShadesError(parameter: "duration", value: "\(durationSeconds) s", allowed: "longer than 0 s (at least one sample)")
        }
        guard durationSeconds <= 24 * 3600 else {
            throw ShadesError(parameter: "duration", value: "\(durationSeconds) s", allowed: "up to 24 h")
        }
        if loop && frameCount < Self.minimumLoopFrames {
            throw ShadesError(parameter: "duration", value: "\(durationSeconds) s",
                              allowed: "at least \(Self.minimumLoopFrames) samples for a loop")
        }
        guard levelDBFS.isFinite, levelDBFS <= 0, levelDBFS >= -150 else {
            throw ShadesError(parameter: "level", value: "\(levelDBFS) dBFS", allowed: "-150 … 0 dBFS")
        }
        switch sound {
        case .noise(let colour, let distribution):
            _ = try NoiseColour(beta: colour.beta)
            if distribution == .uniform && colour.beta != 0 {
                throw ShadesError(parameter: "distribution", value: "uniform", allowed: "uniform only for white noise (beta 0)")
            }
        case .tone(let frequencyHz):
            try validateFrequency(frequencyHz, sampleRate: sampleRate)
        case .grey:
            if frameCount < Self.minimumLoopFrames {
                throw ShadesError(parameter: "duration", value: "\(durationSeconds) s",
                                  allowed: "at least \(Self.minimumLoopFrames) samples for grey noise")
            }
        case .narrowBandNoise(let centreHz, let widthOctaves):
            _ = try NarrowBandNoiseSource.validate(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
            if loop {
                do throws(ShadesError) {
                    _ = try LoopNarrowBandNoise.validate(centreHz: centreHz, widthOctaves: widthOctaves,
                                                         sampleRate: sampleRate, frameCount: frameCount)
                } catch {
                    throw ShadesError(parameter: "duration", value: "\(durationSeconds) s", problem: "is too short a loop for this band",
                                      allowed: error.allowed ?? "")
                }
            }
        case .coordinatedReset(let pattern):
            try pattern.validate(sampleRate: sampleRate)
            try refusePatternCombinations("coordinated reset")
        case .spectralRipple(let ripple):
            try ripple.validate(sampleRate: sampleRate)
            try refusePatternCombinations("spectral ripple")
        }
        if let notches, !notches.isEmpty {
            _ = try NotchDesign(notches: notches, sampleRate: sampleRate)
            if loop {
                switch sound {
                case .noise, .grey: break
                default:
                    throw ShadesError(parameter: "notch", value: notches.map { "\(formatNumber($0.centreHz)) Hz" }.joined(separator: ", "),
                                      problem: "cannot be combined with loop for this source",
                                      allowed: "notched loops of noise colours (shaped in the loop's own spectrum)")
                }
            }
        }
        if let modulation { try modulation.validate(sampleRate: sampleRate) }
        if let pulses {
            try pulses.validate(sampleRate: sampleRate)
            if loop {
                throw ShadesError(parameter: "pulse", value: pulses.summary, problem: "cannot be combined with loop",
                                  allowed: "pulses in a file of their own length")
            }
        }
        if let fades {
            try fades.validate(sampleRate: sampleRate, frames: frameCount)
            if loop {
                throw ShadesError(parameter: "fade", value: fades.summary, problem: "cannot be combined with loop",
                                  allowed: "fades on a file that is not a loop (a loop has no ends)")
            }
        }
    }
}

extension RenderRequest {
    /// Timed therapy patterns carry their own timing and spectrum: loops, notches, modulation and pulses
    /// are refused (fades are allowed).
    func refusePatternCombinations(_ name: String) throws(ShadesError) {
        if loop {
            throw ShadesError(parameter: "loop", value: "on", problem: "cannot be combined with \(name)",
                              allowed: "a file of its own length (the pattern does not repeat within a loop)")
        }
        if let notches, !notches.isEmpty {
            throw ShadesError(parameter: "notch", value: notches.map { "\(formatNumber($0.centreHz)) Hz" }.joined(separator: ", "),
                              problem: "cannot be combined with \(name)",
                              allowed: "no notch (the stimulus defines its own spectrum)")
        }
        if let modulation {
            throw ShadesError(parameter: "am", value: "\(formatNumber(modulation.rateHz)) Hz", problem: "cannot be combined with \(name)",
                              allowed: "no amplitude modulation (the stimulus defines its own envelope)")
        }
        if let pulses {
            throw ShadesError(parameter: "pulse", value: pulses.summary, problem: "cannot be combined with \(name)",
                              allowed: "no pulses (the stimulus defines its own timing)")
        }
    }
}

/// Amplitude modulation x(t)·(1 + m·sin(2π·fm·t + φ)).
public struct Modulation: Sendable, Equatable, Codable {
    /// Modulation rate fm in Hz (0.5 … 100; 10 Hz in the studies).
    public var rateHz: Double
    /// Depth m in [0, 1].
    public var depth: Double
    /// Start phase φ in radians.
    public var startPhase: Double
    /// What stays equal to the unmodulated sound: its RMS (default) or its peak.
    public var keep: AmplitudeModulationLevel

    public init(rateHz: Double = 10, depth: Double = 1, startPhase: Double = 0, keep: AmplitudeModulationLevel = .rms) {
        (self.rateHz, self.depth, self.startPhase, self.keep) = (rateHz, depth, startPhase, keep)
    }

    func validate(sampleRate: Double) throws(ShadesError) {
        _ = try AmplitudeModulatedSource(carrier: SilenceSource(sampleRate: sampleRate), rateHz: rateHz, depth: depth, startPhase: startPhase, keep: keep)
    }

    /// RMS of the modulated sound relative to the unmodulated one (1 when the RMS is kept).
    var levelRatio: Double {
        keep == .rms ? 1 : (1 + depth * depth / 2).squareRoot() / (1 + depth)
    }

    var summary: String {
        "am=\(formatNumber(rateHz))Hz am_depth=\(formatNumber(depth)) am_phase=\(formatNumber(startPhase)) am_keep=\(keep.rawValue)"
    }
}

/// Pulses: `onSeconds` on, `offSeconds` off, raised-cosine ramps inside the on time.
public struct Pulses: Sendable, Equatable, Codable {
    public var onSeconds: Double
    public var offSeconds: Double
    public var rampSeconds: Double
    /// Number of pulses, or nil for as many as the duration holds.
    public var count: Int?

    public init(onSeconds: Double = 0.2, offSeconds: Double = 0.2, rampSeconds: Double = 0.025, count: Int? = nil) {
        (self.onSeconds, self.offSeconds, self.rampSeconds, self.count) = (onSeconds, offSeconds, rampSeconds, count)
    }

    func validate(sampleRate: Double) throws(ShadesError) {
        _ = try PulsedSource(source: SilenceSource(sampleRate: sampleRate), onSeconds: onSeconds, offSeconds: offSeconds,
                             rampSeconds: rampSeconds, pulseCount: count)
    }

    /// Length of `count` pulses (the last one without its off time), in seconds.
    public var countedDurationSeconds: Double? {
        count.map { Double($0) * (onSeconds + offSeconds) - offSeconds }
    }

    var summary: String {
        "\(formatNumber(onSeconds * 1000))ms/\(formatNumber(offSeconds * 1000))ms ramp=\(formatNumber(rampSeconds * 1000))ms"
            + (count.map { " pulses=\($0)" } ?? "")
    }
}

/// Raised-cosine fade-in and fade-out; the sound ends with its fade-out at the file's end, or earlier at
/// `endSeconds` with silence after it (a residual-inhibition masker and the silence that follows it).
public struct Fades: Sendable, Equatable, Codable {
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

    func validate(sampleRate: Double, frames: Int) throws(ShadesError) {
        if let endSeconds {
            guard endSeconds.isFinite, endSeconds > 0, soundFrames(sampleRate: sampleRate, frames: frames) <= frames else {
                throw ShadesError(parameter: "fade-end", value: "\(formatNumber(endSeconds)) s",
                                  allowed: "above 0 and at most the duration, \(formatNumber(Double(frames) / sampleRate)) s")
            }
        }
        _ = try FadedSource(source: SilenceSource(sampleRate: sampleRate), fadeInSeconds: inSeconds,
                            fadeOutSeconds: outSeconds, totalFrames: soundFrames(sampleRate: sampleRate, frames: frames))
    }

    var summary: String {
        "\(formatNumber(inSeconds * 1000))ms/\(formatNumber(outSeconds * 1000))ms" + (endSeconds.map { " fade_end=\(formatNumber($0))s" } ?? "")
    }
}
