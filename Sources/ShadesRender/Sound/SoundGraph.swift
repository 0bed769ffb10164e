import Dispatch
import ShadesPlatform
import ShadesDSP
import ShadesIO

/// The source graph of a ``RenderRequest``: the one function (``init(_:)``) that turns a ``Sound`` into
/// sources. Every pass and every stream starts from fresh sources, so all see exactly the same samples.
///
/// A **generator** is made as independent mono signals placed in the output channels by the layout; the
/// chain per signal is generator (noise, tone, narrow-band noise; loops and grey noise pre-rendered by FFT
/// synthesis) → notches → amplitude modulation → pulses → fades, and each signal gets its own gain.
/// A **mix**, a **file** or a sound with a **swell** is one multichannel group with one gain: each layer of
/// a mix is its own graph at the reference level (its sustained RMS), times its gain and swell, summed;
/// a file is decoded, resampled to the rate and notched with the filter delay removed (``FileChain``);
/// then the same modifiers. The level refers to the *sustained* sound (after the modulation, before
/// pulses and fades), so a pulsed tone has the asked level while it sounds.
///
/// Stream it with ``makeSource(gains:)``; ``Renderer/renderFile(_:to:sampleFormat:)`` writes the same
/// samples times the gains its ``LevelPolicy`` chooses.
public struct SoundGraph: Sendable {
    /// Channels of the output.
    package let outputChannelCount: Int
    /// The signal each output channel carries, nil for a silent one (a stereo noise: 0, 1; a diotic tone:
    /// 0, 0; a left-ear tone: 0, nil; a stereo mix or file: 0, 1).
    package let channelMap: [Int?]
    /// Channels of each group of signals: a generator's signals are mono groups; a mix or a file is one group.
    let groupChannelCounts: [Int]
    /// The layout of a generator's signals (nil for a mix or a file).
    package let layout: ChannelLayout?
    /// Frames of the request (a stream goes on beyond them; loops repeat nothing, they end). For a file
    /// played to its end: the frames its header announces (``Renderer`` counts the decoded ones).
    public let frames: Int
    /// Sample rate, Hz.
    package let sampleRate: Double
    /// A fresh source of group `g` as written (with pulses and fades), before its gain.
    package let makeGroup: @Sendable (_ group: Int) -> any AudioSource
    /// A fresh source of group `g`, its sustained sound (what the level refers to) or as written, and the
    /// file it reads (to know where a file played to its end ends).
    let makeChain: @Sendable (_ group: Int, _ sustained: Bool) -> (source: any AudioSource, file: AudioFileSource?)
    /// Σx² and peak of each sustained signal when known without rendering (plain tones, loops), else nil.
    let knownMeasurements: [SignalMeasurement]?
    /// For signals written as streams at the asked level in expectation (noise and narrow-band noise
    /// streams, modulated or not; no notch, pulses or fades): the predicted standard deviation of a
    /// render's measured level around it, in dB. nil for everything else. A file whose scatter is small
    /// is written in one pass at the expected level and checked (``Renderer/renderFile(_:to:sampleFormat:)``).
    let levelScatterDB: Double?
    /// RMS of the written sound relative to the asked level's (below 1 when modulation keeps the peak).
    let levelRatio: Double
    /// True when each signal gets a gain of its own (a generator's independent signals); false: one gain.
    package let levelsEachSignal: Bool
    /// True when the sound is a file played to its end (its length is the decoded one).
    package let playsFileToEnd: Bool
    /// The tone frequency actually rendered (a loop adjusts it), in Hz.
    package let renderedFrequencyHz: Double?
    /// The modulation rate actually applied (a loop adjusts it), in Hz.
    package let renderedModulationHz: Double?
    /// Things the user should know, e.g. a loop's frequency adjustment.
    public let notes: [String]
    /// How the gain is chosen.
    package let level: LevelPolicy
    /// The RMS level the gains aim at, dBFS: the asked one, or the reference level for other policies.
    package let levelDBFS: Double

    /// A file that could no longer be opened by a pass (see ``GraphFailures``).
    let failures: GraphFailures
    /// The sound file of a file sound (opened once), nil for any other sound.
    package internal(set) var soundFile: GraphSoundFile?
    /// Frames the notch filters read ahead of their output, the longest kernel's half length (0 without a
    /// notch): a notched file played live is that much later than it is read.
    package internal(set) var notchDelayFrames = 0

    /// Independent signals (mono channels of the groups).
    package var signalCount: Int { groupChannelCounts.reduce(0, +) }

    init(outputChannelCount: Int, channelMap: [Int?], groupChannelCounts: [Int], layout: ChannelLayout?, frames: Int,
         sampleRate: Double, makeGroup: @escaping @Sendable (Int) -> any AudioSource,
         makeChain: @escaping @Sendable (Int, Bool) -> (source: any AudioSource, file: AudioFileSource?),
         knownMeasurements: [SignalMeasurement]?, levelScatterDB: Double?, levelRatio: Double, levelsEachSignal: Bool,
         playsFileToEnd: Bool, renderedFrequencyHz: Double?, renderedModulationHz: Double?, notes: [String],
         level: LevelPolicy, levelDBFS: Double, failures: GraphFailures) {
        self.outputChannelCount = outputChannelCount
        self.channelMap = channelMap
        self.groupChannelCounts = groupChannelCounts
        self.layout = layout
        self.frames = frames
        self.sampleRate = sampleRate
        self.makeGroup = makeGroup
        self.makeChain = makeChain
        self.knownMeasurements = knownMeasurements
        self.levelScatterDB = levelScatterDB
        self.levelRatio = levelRatio
        self.levelsEachSignal = levelsEachSignal
        self.playsFileToEnd = playsFileToEnd
        self.renderedFrequencyHz = renderedFrequencyHz
        self.renderedModulationHz = renderedModulationHz
        self.notes = notes
        self.level = level
        self.levelDBFS = levelDBFS
        self.failures = failures
    }

    /// A fresh mono source of signal `s` of a generator as written: its group (every group is mono).
    package func makeSignal(_ s: Int) -> any AudioSource { makeGroup(s) }

    /// Validates `request` and builds its graph; loops (and grey noise) are synthesised here, over their
    /// whole length, up to ``LoopNoise/largestSynthesisFrames``; longer loops of coloured noise stream.
    public init(_ request: RenderRequest) throws(ShadesError) {
        try self.init(request, opened: nil)
    }

    /// The graph of a file sound whose file's header has been read already (`opened`: the file the sound
    /// plays, not read yet), so it is opened once.
    package init(_ request: RenderRequest, opened: GraphSoundFile?) throws(ShadesError) {
        try request.validate()
        guard let generator = request.sound.generator, request.sound.swell == nil else {
            self = try Self.composite(request, opened: opened)
            return
        }
        let (rate, level, seed, frames) = (request.sampleRate, request.levelDBFS, request.resolvedSeed, request.frameCount)
        self.frames = frames
        levelDBFS = level
        sampleRate = rate
        self.level = request.level
        levelsEachSignal = true
        playsFileToEnd = false
        failures = GraphFailures()
        let layout: ChannelLayout
        var notes: [String] = []
        let base: @Sendable (Int) -> any AudioSource
        var measured: [SignalMeasurement]?
        var toneFrequency: Double?
        // An isochronic tone's switching, applied as pulses.
        var gate: Pulses?
        // Relative standard deviation of a stream's measured power over the file (nil: not a stream at level).
        var powerScatter: Double?
        let seconds = Double(frames) / rate
        // Validated above: one design per signal (a stereo sound's signals are its ears).
        var notch = request.notches.map { Self.notchDesigns($0, layout: request.resolvedLayout, sampleRate: rate) }
        notchDelayFrames = notch?.map(\.halfLength).max() ?? 0
        // A spectral shape: a loop's spectrum gets it exactly (below); a stream is filtered after its notches.
        var shape = try request.sound.shape.map { (s: SpectralShape) throws(ShadesError) in try NotchDesign(shaping: s.curve, sampleRate: rate) }

        switch generator {
        case .noise(let colour, let distribution):
            layout = request.resolvedLayout
            if request.streamsPeriodicLoop {
                // A long loop: periodic noise, streamed (its notch and shape, if any, are filters primed by
                // the periodic source: periodic too).
                base = { s in
                    try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                                     distribution: distribution, firstSignal: s, periodFrames: frames)
                }
            } else if request.loop && (colour.beta != 0 || notch != nil || shape != nil) {
                // The notch, if any, is applied to the loop's own spectrum (its ideal gain: the band removed
                // exactly, the rest untouched), so the loop stays periodic.
                let loopNotch = notch, loopShape = shape
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        LoopNoise.render(colour: colour, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                         shaping: loopNotch == nil && loopShape == nil ? nil : { f in
                                             (loopNotch?[s].idealGain(atFrequency: f) ?? 1) * (loopShape?.idealGain(atFrequency: f) ?? 1)
                                         }, into: $0)
                    }
                    return buffer
                }
                (base, measured) = Self.playBack(loops, sampleRate: rate)
                (notch, shape) = (nil, nil)
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
            layout = request.resolvedLayout
            let loopNotch = notch, loopShape = shape
            let greys = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                buffer.withChannel(0) {
                    LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                     shaping: { f in
                                         GreyNoise.magnitude(atFrequency: f) * (loopNotch?[s].idealGain(atFrequency: f) ?? 1)
                                             * (loopShape?.idealGain(atFrequency: f) ?? 1)
                                     }, into: $0)
                }
                return buffer
            }
            (base, measured) = Self.playBack(greys, sampleRate: rate)
            (notch, shape) = (nil, nil)
        case .narrowBandNoise(let centreHz, let widthOctaves):
            layout = request.resolvedLayout
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
            layout = request.resolvedLayout == .stereo ? .diotic : request.resolvedLayout
            var frequency = askedHz
            if request.loop {
                frequency = ToneSource.loopFrequency(near: askedHz, frameCount: frames, sampleRate: rate)
                if frequency != askedHz {
                    notes.append("loop: tone frequency adjusted from \(formatNumber(askedHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - askedHz)) Hz) for a whole number of cycles")
                }
                guard frequency < rate / 2 else {
                    throw ShadesError(parameter: .frequency, value: "\(askedHz) Hz",
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
            layout = request.resolvedLayout == .stereo ? .diotic : request.resolvedLayout
            base = { _ in try! CoordinatedResetSource(pattern: pattern, sampleRate: rate, levelDBFS: level, seed: seed) }
        case .spectralRipple(let ripple):
            // One signal (diotic in stereo). Every whole segment has the level; a file is measured.
            layout = request.resolvedLayout == .stereo ? .diotic : request.resolvedLayout
            base = { _ in try! SpectralRippleSource(ripple: ripple, sampleRate: rate, levelDBFS: level, seed: seed) }
        case .binauralBeat(let carrierHz, let beatHz):
            // Two signals, one tone per ear (validated: stereo), each at unit peak and brought to the level.
            layout = .stereo
            let left = Self.loopAdjusted(request, "carrier", carrierHz, notes: &notes)
            let right = left + Self.loopAdjusted(request, "beat", beatHz, notes: &notes)
            toneFrequency = left
            base = { s in try! ToneSource(frequencyHz: s == 0 ? left : right, sampleRate: rate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
            measured = [left, right].map { SignalMeasurement(sumOfSquares: Self.sineEnergy(cyclesPerSample: $0 / rate, frames: frames), peak: 1) }
        case .isochronicTone(let frequencyHz, let rateHz, let duty, let rampSeconds):
            // A tone (its sustained sound, at the level) gated by pulses with edges centred on the square
            // wave's: on for duty + ramp, off for the rest (validated: the ramp fits both).
            layout = request.resolvedLayout == .stereo ? .diotic : request.resolvedLayout
            let frequency = Self.loopAdjusted(request, "tone frequency", frequencyHz, notes: &notes)
            let period = 1 / Self.loopAdjusted(request, "beat", rateHz, notes: &notes)
            toneFrequency = frequency
            base = { _ in try! ToneSource(frequencyHz: frequency, sampleRate: rate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
            measured = [SignalMeasurement(sumOfSquares: Self.sineEnergy(cyclesPerSample: frequency / rate, frames: frames), peak: 1)]
            gate = Pulses(onSeconds: duty * period + rampSeconds, offSeconds: max(0, (1 - duty) * period - rampSeconds),
                          rampSeconds: rampSeconds)
        case .velvetNoise(let densityHz):
            // Independent signals (per ear in stereo), at the level over whole cells; a file is measured.
            layout = request.resolvedLayout
            let density = Self.loopAdjusted(request, "density", densityHz, unit: "impulses/s", notes: &notes)
            base = { s in
                try! VelvetNoiseSource(densityHz: density, sampleRate: rate, levelDBFS: level,
                                       key: SeedStream.noise.key(seed: seed, channel: s))
            }
        case .fractalTones:
            var tones = generator.fractal!
            // One signal (diotic in stereo), at the level in expectation; a file is measured. A loop holds
            // whole grid steps and its last note ends at the loop's end.
            layout = request.resolvedLayout == .stereo ? .diotic : request.resolvedLayout
            tones.tempoBPM = Self.loopAdjusted(request, "tempo", tones.tempoBPM / 60, scale: 60, unit: "BPM", notes: &notes)
            let loopFrames = request.loop ? frames : nil
            base = { [tones] _ in try! FractalToneSource(tones: tones, sampleRate: rate, levelDBFS: level, seed: seed, loopFrames: loopFrames) }
        }

        // A notch (streams): part of the sound. The filter is primed by the source, so the band is gone from
        // frame 0; the level is measured after it.
        var filtered: @Sendable (Int) -> any AudioSource
        if let notch {
            filtered = { s in try! NotchedSource(source: base(s), design: notch[s], primedBySource: true) }
            measured = nil
            powerScatter = nil  // the band's power is gone: not at the asked level
        } else {
            filtered = base
        }
        if let shape {
            let inner = filtered
            filtered = { s in try! NotchedSource(source: inner(s), design: shape, primedBySource: true) }
            measured = nil
            powerScatter = nil  // the shape changes the power: measured
        }
        let notched = filtered

        // Amplitude modulation: part of the sustained sound.
        var sustained = notched
        var modulationRate: Double?
        if let modulation = request.modulation {
            let rateHz = try modulation.appliedRateHz(loopFrames: request.loop ? frames : nil, sampleRate: rate, notes: &notes)
            modulationRate = rateHz
            let m = Modulation(rateHz: rateHz, depth: modulation.depth, startPhase: modulation.startPhase, keep: .rms)
            sustained = { s in
                try! AmplitudeModulatedSource(carrier: notched(s), rateHz: m.rateHz, depth: m.depth, startPhase: m.startPhase, keep: m.keep)
            }
            measured = nil  // the modulated sound is measured
        }
        levelRatio = request.modulation?.levelRatio ?? 1

        // Envelopes: pulses (or an isochronic tone's gate), then fades.
        var final = sustained
        if let pulses = gate ?? request.pulses {
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
        makeGroup = final
        let (makeSustained, makeFinal) = (sustained, final)
        makeChain = { s, isSustained in (isSustained ? makeSustained(s) : makeFinal(s), nil) }
        self.layout = layout
        outputChannelCount = layout.outputChannelCount
        channelMap = (0..<layout.outputChannelCount).map(layout.signal(forOutputChannel:))
        groupChannelCounts = Array(repeating: 1, count: layout.signalCount)
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
    /// ``frames`` (generators are endless; loops, files, pulses and fades end in silence).
    public func makeSource(gains: [Float]? = nil) -> any AudioSource {
        let gains = gains ?? expectedGains
        if let layout {
            return try! ChannelLayoutSource(signals: (0..<signalCount).map(makeGroup), layout: layout, gains: gains)
        }
        return try! MixSource(layers: [MixSource.Layer(source: makeGroup(0), channelGains: channelGains(gains))])
    }

    /// The signals before their gains, in their output channels: what ``FileSink`` multiplies by the gains.
    package func makeUnscaledSource() -> any AudioSource {
        if let layout { return try! ChannelLayoutSource(signals: (0..<signalCount).map(makeGroup), layout: layout) }
        return makeGroup(0)
    }

    /// Gains that put each signal at the asked level without a measuring pass: exact for tones and loops
    /// (measured when synthesised), in expectation for noise streams (their generators are set to the
    /// level; a notch lowers it by the power it removes); for a mix or a file, 1 (each layer at its exact
    /// reference level; a file as it is).
    package var expectedGains: [Float] {
        knownMeasurements.map { exactGains(for: $0) } ?? Array(repeating: Float(levelRatio), count: signalCount)
    }

    /// Gains that bring the sustained sound over ``frames`` exactly to the RMS level (``levelDBFS``), as
    /// the file holds it: measured by rendering the sustained sound once (not for tones and loops, whose
    /// measurement is known). Not real-time.
    package func exactGains() -> [Float] {
        exactGains(for: knownMeasurements ?? measureSustainedSignals().meters)
    }

    /// Each signal's sustained sound rendered over ``frames`` (a file: to its end) chunk by chunk (groups in
    /// parallel) and measured, nothing kept; and the frames measured.
    func measureSustainedSignals() -> (meters: [SignalMeasurement], frames: Int) {
        measureSustained(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: signalCount))
    }

    /// The sustained sound measured by `meters` (one per signal), and the frames measured.
    func measureSustained<M: SampleMeter>(meters: [M]) -> (meters: [M], frames: Int) {
        measure(meters: meters, sustained: true)
    }

    /// The sound (by default as written, with pulses and fades) measured by `meters` (one per signal) over
    /// ``frames`` or a file's whole decoded length, and the frames measured.
    package func measure<M: SampleMeter>(meters: [M], sustained: Bool = false) -> (meters: [M], frames: Int) {
        let chunkFrames = layout == nil ? FileChain.blockFrames : FileSink.defaultChunkFrames
        if playsFileToEnd {
            let (source, file) = makeChain(0, sustained)
            guard let file else { return (meters, 0) }  // it could not be opened again: `failures` says why
            return FileSink.measure(SourceGroups([source]), length: .untilEndOf(file), meters: meters, chunkFrames: chunkFrames)
        }
        let groups = SourceGroups(channelCounts: groupChannelCounts, make: { makeChain($0, sustained).source })
        return FileSink.measure(groups, length: .frames(frames), meters: meters, chunkFrames: chunkFrames)
    }

    /// Gain per signal bringing its sustained RMS to the asked level.
    func exactGains(for measurements: [SignalMeasurement], frames: Int? = nil) -> [Float] {
        gainsAndPeak(for: measurements, frames: frames).gains
    }

    /// Gain per signal bringing the sustained RMS to the asked level (each signal's own, or one gain for
    /// the mean power of a mix's or file's channels), and the resulting peak over all signals (pulses and
    /// fades only lower it).
    func gainsAndPeak(for measurements: [SignalMeasurement], frames: Int? = nil) -> (gains: [Float], peak: Double) {
        sustained(measurements, frames: frames ?? self.frames).gainsAndPeak(levelDBFS: levelDBFS)
    }

    /// `measurements` of the sustained signals over `frames`, with how the graph's signals share a level.
    func sustained(_ measurements: [SignalMeasurement], frames: Int) -> SustainedMeasurement {
        SustainedMeasurement(signals: measurements, frames: frames, levelsEachSignal: levelsEachSignal,
                             soundingSignals: Set(channelMap.compactMap { $0 }), levelRatio: levelRatio)
    }

    /// The measuring pass of the ``level`` policy (not for a loudness target, which the catalogue measures
    /// with libebur128): the sustained signals' RMS, or the written sound's true peak; and the frames
    /// measured (a file's decoded length).
    func measureForLevel() -> (measured: LevelMeasurement, frames: Int) {
        switch level.measurement {
        case .truePeak:
            let (peaks, frames) = measure(meters: Array(repeating: TruePeakMeter(sampleRate: sampleRate), count: signalCount))
            return (.truePeak(linear: peaks.map(\.peak).max() ?? 0, signalCount: signalCount), frames)
        case .sustainedRMS, .loudness:
            let (meters, frames) = knownMeasurements.map { ($0, self.frames) } ?? measureSustainedSignals()
            return (.sustained(sustained(meters, frames: frames)), frames)
        }
    }

    /// The per-signal `gains` as gains per output channel (1 for a silent channel).
    package func channelGains(_ gains: [Float]) -> [Float] {
        channelMap.map { signal in signal.map { gains[$0] } ?? 1 }
    }

    /// `asked` (a rate in Hz) with whole cycles in a loop (``RenderRequest/loopRate(_:)``), and a note when it
    /// moved; `scale` and `unit` show it in another unit (a tempo: 60, "BPM"). The rate, times `scale`.
    static func loopAdjusted(_ request: RenderRequest, _ name: String, _ asked: Double, scale: Double = 1, unit: String = "Hz",
                             notes: inout [String]) -> Double {
        let applied = request.loopRate(asked)
        if applied != asked {
            notes.append("loop: \(name) adjusted from \(formatNumber(asked * scale)) \(unit) to \(applied * scale) \(unit)"
                         + " (\(formatSigned((applied - asked) * scale)) \(unit)) for whole cycles")
        }
        return applied * scale
    }

    /// One design per signal of `layout` for `notches` (those of one ear go to that ear's signal of a stereo
    /// sound). The notches are valid at `sampleRate`.
    static func notchDesigns(_ notches: [NotchSpec], layout: ChannelLayout, sampleRate: Double) -> [NotchDesign] {
        if !notches.contains(where: { $0.ears != .both }) {
            let design = try! NotchDesign(notches: notches, sampleRate: sampleRate)
            return Array(repeating: design, count: layout.signalCount)
        }
        return [Ears.left, .right].prefix(layout.signalCount).map { ear in
            try! NotchDesign(notches: notches.filter { $0.ears == .both || $0.ears == ear }, sampleRate: sampleRate)
        }
    }
}

extension SoundGraph {
    /// A stream for live playback at the gain the ``level`` policy chooses, as a file render would: a
    /// generator at its expected gains (no measuring pass, so it starts at once); a mix or a file measured
    /// first (a file decoded to its end: its RMS, or its true peak under a ceiling). Not for a loudness
    /// target (the catalogue's: ``CatalogueAsset/makeLoop()``).
    public struct LiveStream {
        public let source: any AudioSource
        /// Frames until the sound ends (a file's decoded length), nil for an endless stream.
        public let frames: Int?
        /// The gain applied to a mix or a file, dB (0 for a generator, set to its level by construction).
        public let gainDB: Double
    }

    public func makeLiveStream() throws(ShadesError) -> LiveStream {
        if layout != nil { return LiveStream(source: makeSource(), frames: nil, gainDB: 0) }
        if level.measurement == .loudness {
            throw .usage("a loudness target needs the whole sound rendered first (allowed live: an RMS level or a true-peak ceiling)")
        }
        let (measured, measuredFrames) = measureForLevel()
        if let failure = failures.error { throw failure }
        let gain = try level.gains(for: measured, format: .f32).gains.first ?? 1
        let scaled = try! MixSource(layers: [MixSource.Layer(source: makeChain(0, false).source, gain: gain)])
        return LiveStream(source: scaled, frames: playsFileToEnd ? measuredFrames : nil, gainDB: Decibels.fromAmplitude(Double(gain)))
    }
}
