import Dispatch
import ShadesPlatform
import ShadesDSP
import ShadesIO

/// The source graph of a ``RenderRequest``: how to make each independent signal as a mono source
/// starting at frame 0, and how the signals map to output channels. Every pass and every stream starts
/// from fresh sources, so all see exactly the same samples.
///
/// Chain per signal: generator (noise, tone, narrow-band noise; loops and grey noise pre-rendered by FFT
/// synthesis) → notches → amplitude modulation → pulses → fades. The level refers to the *sustained*
/// sound (after the modulation, before pulses and fades), so a pulsed tone has the asked level while it
/// sounds.
///
/// Stream it with ``makeSource(gains:)``; ``Renderer/renderFile(_:to:sampleFormat:)`` writes the same
/// samples times the exact gains (``exactGains()``).
public struct SoundGraph: Sendable {
    /// Layout of the output (a stereo tone is diotic: one signal in both ears).
    public let layout: ChannelLayout
    /// Frames of the request (a stream goes on beyond them; loops repeat nothing, they end).
    public let frames: Int
    /// Sample rate, Hz.
    public let sampleRate: Double
    /// A fresh mono source of signal `s` as written (with pulses and fades), before its gain.
    public let makeSignal: @Sendable (_ signal: Int) -> any AudioSource
    /// A fresh mono source of signal `s`'s sustained sound: what the level refers to.
    public let makeSustainedSignal: @Sendable (_ signal: Int) -> any AudioSource
    /// Σx² and peak of each sustained signal when known without rendering (plain tones, loops), else nil.
    let knownMeasurements: [SignalMeasurement]?
    /// For signals written as streams at the asked level in expectation (noise and narrow-band noise
    /// streams, modulated or not; no notch, pulses or fades): the predicted standard deviation of a
    /// render's measured level around it, in dB. nil for everything else. A file whose scatter is small
    /// is written in one pass at the expected level and checked (``Renderer/renderFile(_:to:sampleFormat:)``).
    let levelScatterDB: Double?
    /// RMS of the written sound relative to the asked level's (below 1 when modulation keeps the peak).
    let levelRatio: Double
    /// The tone frequency actually rendered (a loop adjusts it), in Hz.
    public let renderedFrequencyHz: Double?
    /// The modulation rate actually applied (a loop adjusts it), in Hz.
    public let renderedModulationHz: Double?
    /// Things the user should know, e.g. a loop's frequency adjustment.
    public let notes: [String]
    /// The asked level, dBFS.
    public let levelDBFS: Double

    /// Independent signals (mono sources) of the layout.
    public var signalCount: Int { layout.signalCount }

    /// Validates `request` and builds its graph; loops (and grey noise) are synthesised here, over their
    /// whole length.
    public init(_ request: RenderRequest) throws(ShadesError) {
        try request.validate()
        let (rate, level, seed, frames) = (request.sampleRate, request.levelDBFS, request.seed, request.frameCount)
        self.frames = frames
        levelDBFS = level
        sampleRate = rate
        var notes: [String] = []
        let base: @Sendable (Int) -> any AudioSource
        var measured: [SignalMeasurement]?
        var toneFrequency: Double?
        // Relative standard deviation of a stream's measured power over the file (nil: not a stream at level).
        var powerScatter: Double?
        let seconds = Double(frames) / rate
        // Validated above.
        var notch = request.notches.flatMap { $0.isEmpty ? nil : try! NotchDesign(notches: $0, sampleRate: rate) }

        switch request.sound {
        case .noise(let colour, let distribution):
            layout = request.layout
            if request.loop && (colour.beta != 0 || notch != nil) {
                // The notch, if any, is applied to the loop's own spectrum (its ideal gain: the band removed
                // exactly, the rest untouched), so the loop stays periodic.
                let loopNotch = notch
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        LoopNoise.render(colour: colour, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                         shaping: loopNotch.map { design in { design.idealGain(atFrequency: $0) } }, into: $0)
                    }
                    return buffer
                }
                (base, measured) = Self.playBack(loops, sampleRate: rate)
                notch = nil
            } else {
                // Validated above: the source cannot throw.
                powerScatter = NoiseShapingDesign.shared(colour: colour, sampleRate: rate).powerScatter(durationSeconds: seconds)
                base = { s in
                    try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                                     distribution: distribution, firstSignal: s)
                }
            }
        case .grey:
            // FFT synthesis over the whole file (a loop whether asked or not), notches included exactly.
            layout = request.layout
            let loopNotch = notch
            let greys = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                buffer.withChannel(0) {
                    LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                     shaping: { f in GreyNoise.magnitude(atFrequency: f) * (loopNotch?.idealGain(atFrequency: f) ?? 1) },
                                     into: $0)
                }
                return buffer
            }
            (base, measured) = Self.playBack(greys, sampleRate: rate)
            notch = nil
        case .narrowBandNoise(let centreHz, let widthOctaves):
            layout = request.layout
            if request.loop {
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        try! LoopNarrowBandNoise.render(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                                   key: SeedStream.noise.key(seed: seed, channel: s), into: $0)
                    }
                    return buffer
                }
                (base, measured) = Self.playBack(loops, sampleRate: rate)
            } else {
                // A flat band B wide: √(1 / (T·B)).
                let bandHz = centreHz * (pow(2, widthOctaves / 2) - pow(2, -widthOctaves / 2))
                powerScatter = (1 / (seconds * bandHz)).squareRoot()
                base = { s in
                    try! NarrowBandNoiseSource(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                               layout: .mono, levelDBFS: level, seed: seed, firstSignal: s)
                }
            }
        case .tone(let askedHz):
            layout = request.layout == .stereo ? .diotic : request.layout
            var frequency = askedHz
            if request.loop {
                frequency = ToneSource.loopFrequency(near: askedHz, frameCount: frames, sampleRate: rate)
                if frequency != askedHz {
                    notes.append("loop: tone frequency adjusted from \(formatNumber(askedHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - askedHz)) Hz) for a whole number of cycles")
                }
                guard frequency < rate / 2 else {
                    throw ShadesError(parameter: "frequency", value: "\(askedHz) Hz",
                                      allowed: "below Nyquist (\(rate / 2) Hz) after the whole-cycle loop adjustment")
                }
            }
            toneFrequency = frequency
            let rendered = frequency
            // Unit peak; the gain sets the level.
            base = { _ in try! ToneSource(frequencyHz: rendered, sampleRate: rate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
            measured = [SignalMeasurement(sumOfSquares: Self.sineEnergy(cyclesPerSample: frequency / rate, frames: frames), peak: 1)]
        case .coordinatedReset(let pattern):
            // One signal (diotic in stereo). Set to the level over whole on+off periods; a file is measured.
            layout = request.layout == .stereo ? .diotic : request.layout
            base = { _ in try! CoordinatedResetSource(pattern: pattern, sampleRate: rate, levelDBFS: level, seed: seed) }
        case .spectralRipple(let ripple):
            // One signal (diotic in stereo). Every whole segment has the level; a file is measured.
            layout = request.layout == .stereo ? .diotic : request.layout
            base = { _ in try! SpectralRippleSource(ripple: ripple, sampleRate: rate, levelDBFS: level, seed: seed) }
        }

        // A notch (streams): part of the sound. The filter is primed by the source, so the band is gone from
        // frame 0; the level is measured after it.
        let notched: @Sendable (Int) -> any AudioSource
        if let notch {
            notched = { s in try! NotchedSource(source: base(s), design: notch, primedBySource: true) }
            measured = nil
            powerScatter = nil  // the band's power is gone: not at the asked level
        } else {
            notched = base
        }

        // Amplitude modulation: part of the sustained sound.
        var sustained = notched
        var modulationRate: Double?
        if let modulation = request.modulation {
            var rateHz = modulation.rateHz
            if request.loop {
                rateHz = AmplitudeModulatedSource.loopRate(near: modulation.rateHz, frameCount: frames, sampleRate: rate)
                if rateHz != modulation.rateHz {
                    notes.append("loop: modulation rate adjusted from \(formatNumber(modulation.rateHz)) Hz to \(rateHz) Hz (\(formatSigned(rateHz - modulation.rateHz)) Hz) for a whole number of cycles")
                }
            }
            guard AmplitudeModulatedSource.allowedRateHz.contains(rateHz) else {
                throw ShadesError(parameter: "am", value: "\(formatNumber(modulation.rateHz)) Hz",
                                  problem: "becomes \(rateHz) Hz with whole cycles in this loop",
                                  allowed: "a loop long enough to hold whole cycles of 0.5 … 100 Hz")
            }
            modulationRate = rateHz
            let m = Modulation(rateHz: rateHz, depth: modulation.depth, startPhase: modulation.startPhase, keep: .rms)
            sustained = { s in
                try! AmplitudeModulatedSource(carrier: notched(s), rateHz: m.rateHz, depth: m.depth, startPhase: m.startPhase, keep: m.keep)
            }
            measured = nil  // the modulated sound is measured
        }
        levelRatio = request.modulation?.levelRatio ?? 1

        // Envelopes: pulses, then fades.
        var final = sustained
        if let pulses = request.pulses {
            let inner = final
            final = { s in
                try! PulsedSource(source: inner(s), onSeconds: pulses.onSeconds, offSeconds: pulses.offSeconds,
                                  rampSeconds: pulses.rampSeconds, pulseCount: pulses.count)
            }
        }
        if let fades = request.fades {
            let inner = final
            final = { s in
                try! FadedSource(source: inner(s), fadeInSeconds: fades.inSeconds, fadeOutSeconds: fades.outSeconds,
                                  totalFrames: fades.soundFrames(sampleRate: rate, frames: frames))
            }
        }
        makeSignal = final
        makeSustainedSignal = sustained
        knownMeasurements = measured
        // Modulation keeps the RMS in expectation (keep: .rms above); its gain curve can double the variance.
        if request.modulation != nil { powerScatter = powerScatter.map { $0 * 2.0.squareRoot() } }
        levelScatterDB = request.pulses == nil && request.fades == nil ? powerScatter.map { Decibels.fromPower(1 + $0) } : nil
        renderedFrequencyHz = toneFrequency
        renderedModulationHz = modulationRate
        self.notes = notes
    }

    // MARK: Streams

    /// A fresh stream of the sound in its output channels, block by block, each signal times its linear
    /// gain: by default ``expectedGains`` (the asked level, exact where it is known without rendering);
    /// ``exactGains()`` gives the samples the file holds before quantisation. A stream goes on past
    /// ``frames`` (generators are endless; loops, pulses and fades end in silence).
    public func makeSource(gains: [Float]? = nil) -> any AudioSource {
        try! ChannelLayoutSource(signals: (0..<signalCount).map(makeSignal), layout: layout, gains: gains ?? expectedGains)
    }

    /// The signals before their gains, in their output channels: what ``FileSink`` multiplies by the gains.
    public func makeUnscaledSource() -> any AudioSource {
        try! ChannelLayoutSource(signals: (0..<signalCount).map(makeSignal), layout: layout)
    }

    /// Gains that put each signal at the asked level without a measuring pass: exact for tones and loops
    /// (measured when synthesised), in expectation for noise streams (their generators are set to the
    /// level; a notch lowers it by the power it removes).
    public var expectedGains: [Float] {
        knownMeasurements.map { exactGains(for: $0) } ?? Array(repeating: Float(levelRatio), count: signalCount)
    }

    /// Gains that bring each signal's sustained sound over ``frames`` exactly to the asked level, as the
    /// file holds it: measured by rendering the sustained sound once (not for tones and loops, whose
    /// measurement is known). Not real-time.
    public func exactGains() -> [Float] {
        exactGains(for: knownMeasurements ?? measureSustainedSignals())
    }

    /// Each signal's sustained sound rendered over ``frames`` chunk by chunk (signals in parallel) and
    /// measured, nothing kept.
    func measureSustainedSignals() -> [SignalMeasurement] {
        let groups = SourceGroups(channelCounts: Array(repeating: 1, count: signalCount), make: makeSustainedSignal)
        return FileSink.measure(groups, length: .frames(frames),
                                meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: signalCount)).meters
    }

    /// Gain per signal bringing its sustained RMS to the asked level.
    func exactGains(for measurements: [SignalMeasurement]) -> [Float] { gainsAndPeak(for: measurements).gains }

    /// Gain per signal bringing its sustained RMS to the asked level, and the resulting peak over all
    /// signals (pulses and fades only lower it).
    func gainsAndPeak(for measurements: [SignalMeasurement]) -> (gains: [Float], peak: Double) {
        let target = Decibels.amplitude(levelDBFS) * levelRatio
        var peak = 0.0
        let gains = measurements.map { m -> Float in
            let rms = (m.sumOfSquares / Double(frames)).squareRoot()
            let gain = rms > 0 ? Float(target / rms) : 1
            peak = max(peak, Double(m.peak) * Double(gain))
            return gain
        }
        return (gains, peak)
    }

    /// The per-signal `gains` as gains per output channel (1 for a silent channel).
    public func channelGains(_ gains: [Float]) -> [Float] {
        (0..<layout.outputChannelCount).map { c in layout.signal(forOutputChannel: c).map { gains[$0] } ?? 1 }
    }
}
