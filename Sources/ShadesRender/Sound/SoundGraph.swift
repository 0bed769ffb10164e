import Dispatch
import ShadesPlatform
import ShadesDSP
import ShadesIO

/// The source graph of a ``RenderRequest``: the one function (``init(_:)``) that turns a ``Sound`` into
/// sources. Every pass and every stream starts from fresh sources, so all see exactly the same samples.
///
/// A **generator** is made as independent mono signals placed in the output channels by the layout (its
/// kind's `GeneratorKind.signals(_:)`: streams, or loops synthesised whole by FFT); the chain per signal
/// is generator → notches → shape → amplitude modulation → pulses → fades (`ModifierChain`), and each
/// signal gets its own gain.
/// A **mix**, a **file** or a sound with a **swell** is one multichannel group with one gain: each layer of
/// a mix is its own graph at the reference level (its sustained RMS), times its gain and swell, summed;
/// a file is decoded, resampled to the rate and notched with the filter delay removed (`FileChain`);
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
    /// For coloured-noise streams written as they are (no notch, shape, modulation, pulses or fades): each
    /// signal's power over ``frames``, forecast before rendering. nil for everything else.
    package internal(set) var powerForecast: PowerForecast?
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

    /// Validates `request` and builds its graph; loops (and sounds synthesised whole) are made here, over their
    /// whole length, up to `LoopNoise.largestSynthesisFrames`; longer loops of coloured noise stream.
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
        let (rate, frames) = (request.sampleRate, request.frameCount)
        self.frames = frames
        levelDBFS = request.levelDBFS
        sampleRate = rate
        self.level = request.level
        levelsEachSignal = true
        playsFileToEnd = false
        failures = GraphFailures()
        // Validated above: one notch design per signal (a stereo sound's signals are its ears). A generator
        // synthesised whole takes the notches and the shape into its own spectrum (``SignalContext/takeFilters()``);
        // for a stream they are filters after it.
        var context = SignalContext(
            request: request, notches: try request.notches.map { (n: [NotchSpec]) throws(ShadesError) in
                try NotchModifier.designs(n, channelCount: request.resolvedLayout.signalCount, sampleRate: rate)
            },
            shape: try request.sound.shape.map { (s: SpectralShape) throws(ShadesError) in try NotchDesign(shaping: s.curve, sampleRate: rate) })
        notchDelayFrames = context.notches?.map(\.halfLength).max() ?? 0
        let signals = try generator.kind.signals(&context)
        var measured = signals.measured
        var powerScatter = signals.powerScatter
        var powerForecast = signals.powerForecast
        if context.notches != nil || context.shape != nil {
            // The band's power is gone, or the shape changes it: measured, not at the asked level.
            (measured, powerScatter, powerForecast) = (nil, nil, nil)
        }
        let base = signals.make
        var chained = request.sound
        if let gate = signals.gate { chained.pulses = gate }  // a tone switched at its own rate
        let chain = try ModifierChain(base: { s in (base(s), nil) }, filters: .primedBySource(notches: context.notches, shape: context.shape),
                                      sound: chained, request: request, frames: frames, notes: context.notes)
        if chain.reshapesLevel {
            measured = nil  // the modulated sound is measured
            powerScatter = chain.powerScatterFactor.flatMap { factor in powerScatter.map { $0 * factor } }
            powerForecast = nil
        }
        levelRatio = request.modulation?.levelRatio ?? 1
        let (makeSustained, makeFinal) = (chain.sustained, chain.final)
        makeGroup = { s in makeFinal(s).source }
        makeChain = { s, isSustained in isSustained ? makeSustained(s) : makeFinal(s) }
        layout = signals.layout
        outputChannelCount = signals.layout.outputChannelCount
        channelMap = (0..<signals.layout.outputChannelCount).map(signals.layout.signal(forOutputChannel:))
        groupChannelCounts = Array(repeating: 1, count: signals.layout.signalCount)
        knownMeasurements = measured
        levelScatterDB = request.pulses == nil && request.fades == nil ? powerScatter.map { Decibels.fromPower(1 + $0) } : nil
        self.powerForecast = request.pulses == nil && request.fades == nil ? powerForecast : nil
        renderedFrequencyHz = signals.renderedFrequencyHz
        renderedModulationHz = chain.modulationRateHz
        notes = chain.notes
    }

    // MARK: Streams

    /// A fresh stream of the sound in its output channels, block by block, each signal times its linear
    /// gain: by default `expectedGains` (the asked level, exact where it is known without rendering);
    /// `exactGains()` gives the samples the file holds before quantisation. A stream goes on past
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

    /// The sustained sound measured by `meters` (one per signal), and the frames measured (`limit`: only the
    /// first frames of a generator).
    func measureSustained<M: SampleMeter>(meters: [M], limit: Int? = nil) -> (meters: [M], frames: Int) {
        measure(meters: meters, sustained: true, limit: limit)
    }

    /// The sound (by default as written, with pulses and fades) measured by `meters` (one per signal) over
    /// ``frames`` or a file's whole decoded length, and the frames measured.
    /// `limit` measures only the first frames of a generator.
    package func measure<M: SampleMeter>(meters: [M], sustained: Bool = false, limit: Int? = nil) -> (meters: [M], frames: Int) {
        let chunkFrames = layout == nil ? FileChain.blockFrames : FileSink.defaultChunkFrames
        if playsFileToEnd {
            let (source, file) = makeChain(0, sustained)
            guard let file else { return (meters, 0) }  // it could not be opened again: `failures` says why
            return FileSink.measure(SourceGroups([source]), length: .untilEndOf(file), meters: meters, chunkFrames: chunkFrames)
        }
        let groups = SourceGroups(channelCounts: groupChannelCounts, make: { makeChain($0, sustained).source })
        return FileSink.measure(groups, length: .frames(min(frames, limit ?? frames)), meters: meters, chunkFrames: chunkFrames)
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
}

extension SoundGraph {
    /// A stream for live playback at the gain the `level` policy chooses, as a file render would: a
    /// generator at its known or expected gains, or, where a file render measures first, at the gains its
    /// first 10 s measure; a mix or a file measured first (a file decoded to its end: its
    /// RMS, or its true peak under a ceiling). A level whose samples would pass full scale is refused. Not for
    /// a loudness target (the catalogue's: `CatalogueAsset.makeLoop()`).
    public struct LiveStream {
        public let source: any AudioSource
        /// Frames until the sound ends (a file's decoded length), nil for an endless stream.
        public let frames: Int?
        /// The gain applied to a mix or a file, dB (0 for a generator: its gains are inside the stream).
        public let gainDB: Double
        /// The largest |sample| measured before playing, linear, at the stream's gain (a generator: known or
        /// over its first 10 s; a file or a mix: over its length; under a ceiling its true peak); at most 1. A
        /// player's volume may rise by its inverse.
        public let peak: Double
    }

    /// Seconds of a generator measured before it plays live, whose peak must fit below full scale: enough to
    /// refuse a level that clips, short enough to start at once (10 s of pink noise take about 5 ms, of a
    /// spectral ripple 0.25 s). Noise's peaks grow slowly with time: an hour's are about 2 dB above those of
    /// its first 10 s.
    package static let liveClipCheckSeconds = 10.0

    public func makeLiveStream() throws(ShadesError) -> LiveStream {
        if layout != nil {
            let (gains, peak) = liveGainsAndPeak()
            if case .rms(let levelDBFS) = level, peak > 1 {
                // A measured noise may peak higher later: the level named fits the span measured.
                let span = knownMeasurements == nil ? " its first \(formatNumber(min(Self.liveClipCheckSeconds, Double(frames) / sampleRate))) s" : ""
                throw .runtime("level \(formatNumber(levelDBFS)) dBFS would clip when played (peak \(formatSigned(Decibels.fromAmplitude(peak), digits: 2)) "
                               + "dBFS\(span.isEmpty ? "" : " in" + span)); the highest level that fits\(span) is \(formatFloor(levelDBFS - Decibels.fromAmplitude(peak))) dBFS")
            }
            return LiveStream(source: makeSource(gains: gains), frames: nil, gainDB: 0, peak: peak)
        }
        if level.measurement == .loudness {
            throw .usage("a loudness target needs the whole sound rendered first (allowed live: an RMS level or a true-peak ceiling)")
        }
        let (measured, measuredFrames) = measureForLevel()
        if let failure = failures.error { throw failure }
        let gains = try level.gains(for: measured, format: .f32)
        let gain = gains.gains.first ?? 1
        let scaled = try! MixSource(layers: [MixSource.Layer(source: makeChain(0, false).source, gain: gain)])
        return LiveStream(source: scaled, frames: playsFileToEnd ? measuredFrames : nil, gainDB: Decibels.fromAmplitude(Double(gain)),
                          peak: gains.peak)
    }

    /// A generator's gains for live playback and its largest |sample| at them, linear (a sound card clips what
    /// passes 1). Tones and loops: known (measured when synthesised). Else its sustained sound is measured
    /// over its first ``liveClipCheckSeconds`` (pulses and fades only lower the peak): noise whose level is
    /// expected (coloured and narrow-band noise, modulated or not) plays at its expected gains, as a file
    /// render writes it in one pass; a sound whose level is neither known nor expected (a frequency-modulated
    /// tone, a notched or shaped noise, pulsed noise), which a file render measures first, plays at the gains
    /// that bring those seconds to the level.
    private func liveGainsAndPeak() -> (gains: [Float], peak: Double) {
        if let known = knownMeasurements { return gainsAndPeak(for: known) }
        let probeFrames = Int(min(Self.liveClipCheckSeconds, Double(frames) / sampleRate) * sampleRate)
        let (meters, _) = measureSustained(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: signalCount),
                                           limit: probeFrames)
        if levelScatterDB == nil { return gainsAndPeak(for: meters, frames: probeFrames) }
        let gains = expectedGains
        return (gains, zip(meters, gains).map { Double($0.peak) * Double($1) }.max() ?? 0)
    }
}
