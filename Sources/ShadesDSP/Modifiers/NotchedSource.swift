import Dispatch

/// Any source with notches applied per channel (notched white or pink noise for the catalogue, notched
/// music from a file source), delay compensated: frame t of the output is frame t of the source filtered
/// by the zero-phase (centred) kernel, Σ h[k]·x[t − k] with the source taken as silent before its frame 0
/// (``Alignment/silentPast``: a file, whose output is sample-aligned with it and exactly as long). For a
/// stationary source (noise) ``Alignment/primedBySource`` starts in steady state instead: the source's
/// first M frames become the filter's past and output frame t is filtered source frame t + M, so the notch
/// is complete from the first frame (with silence as the past, the first M frames of the output are not
/// yet fully notched).
///
/// Okamoto et al. 2010 (one octave at the tinnitus frequency); Stein et al. 2016 (½ octave, 3/8-octave
/// bands beside it +20 dB); see ``NotchSpec``. For bilateral tinnitus give one ``NotchDesign`` per
/// channel (left and right frequencies); an ear without a notch gets `NotchDesign(notches: [], …)`.
///
/// Offline, primed by the source: the source is rendered M frames ahead of the output (M: the longest
/// kernel's half length) in fixed chunks aligned to frame 0 and filtered by FFT overlap-save
/// (``OverlapSaveFilter``), one filter per channel; shorter kernels are zero-padded to M so all channels
/// share the chunking. The engine first renders the source's first 2M frames (the pre-roll). Whole
/// aligned chunks are rendered and filtered in the caller's buffer, the rest goes through one chunk of
/// buffered output.
///
/// Offline, with a silent past: each channel runs its own streaming ``NotchFilter`` (output delay
/// D_c = M_c + one FFT block), fed through a ``SampleDelay`` of D − D_c so every channel lags by the
/// largest delay D; the engine first renders the source's first D frames and drops their outputs. After
/// the source's end (a file source renders silence) the filters flush its tail.
///
/// Real time (``prepareForRealTime(_:)``): each channel runs a ``PartitionedConvolver`` of its causal
/// kernel (no latency of its own; partitions of ``partitionFrames(sampleRate:)``, about 5 ms, so every
/// audio callback does about the same work), behind a ``SampleDelay`` of M − M_c so every channel has
/// the longest kernel's group delay M. Before the first output it takes the source's first M frames
/// (silent past) or 2M frames (primed) without computing outputs. Output frame t is then the same
/// filtered frame as offline, within single-precision rounding (the two paths sum in different orders;
/// `NotchFilterTests` bounds the difference), and the source is rendered only M frames ahead of the
/// output it becomes (silent past): the kernel's group delay, the only latency a notch adds.
///
/// Offline (the first render call comes without a preparation) the engines above filter whole FFT blocks
/// of about ¾ of the transform: fewer operations per sample, but one block's work lands in one call.
///
/// Either way rendering allocates nothing and takes no locks (the offline engine is made by the first
/// render call: prepare a source that will render on a real-time thread), and the output does not
/// depend on how the caller slices its render calls.
///
/// The boosted bands of a notch raise the level: with a full-scale source the output can exceed 0 dBFS.
package final class NotchedSource: AudioSource {
    /// Where the filter's past comes from.
    package enum Alignment: Sendable {
        /// The source is silent before its frame 0; output frame t is filtered source frame t (files).
        case silentPast
        /// The source's first M frames are the past; output frame t is filtered source frame t + M
        /// (stationary sources: noise).
        case primedBySource
    }

    /// The filtered source; this modifier renders it and owns its position from now on.
    package let source: any AudioSource
    /// One design per channel.
    package let designs: [NotchDesign]
    package let alignment: Alignment
    package var sampleRate: Double { source.sampleRate }
    package var channelCount: Int { source.channelCount }
    /// M: the longest kernel's half length, frames (its group delay).
    package let halfLength: Int
    /// Frames the source is rendered ahead of the output: primed, M; with a silent past, offline the
    /// largest filter output delay D (``NotchDesign/outputDelayFrames``), in real time M.
    package var lookaheadFrames: Int {
        let offlineDelay = designs.map { $0.isIdentity ? 0 : $0.outputDelayFrames }.max() ?? 0
        switch engine {
        case .streaming, .primed: return halfLength
        case .silentPast: return offlineDelay
        case nil: return alignment == .primedBySource ? halfLength : offlineDelay
        }
    }
    /// Frames per FFT block of the offline engine: fftSize − 2M (primed), or the first notched channel's
    /// (silent past); the partition in real time.
    package var chunkFrames: Int {
        switch makeEngineIfNeeded() {
        case .primed(let primed): return primed.filters[0].blockFrames
        case .silentPast(let channels): return channels.compactMap(\.filter).first?.blockFrames ?? 0
        case .streaming(let streaming): return streaming.partitionFrames
        }
    }
    /// True once prepared for real time (the partitioned engine renders).
    package var isStreamingInPartitions: Bool {
        if case .streaming = engine { return true }
        return false
    }

    private var engine: Engine?
    private let measuringInputSpectrum: Bool

    private enum Engine {
        case primed(PrimedEngine)
        case silentPast([DelayedNotch])
        case streaming(StreamingNotch)
    }

    /// The same notches on every channel of `source`.
    ///
    /// Throws `rate` when the design's rate is not the source's.
    package convenience init(source: any AudioSource, design: NotchDesign, alignment: Alignment) throws(ShadesError) {
        try self.init(source: source, designs: Array(repeating: design, count: source.channelCount), alignment: alignment)
    }

    /// The same notches on every channel; `primedBySource` picks ``Alignment/primedBySource``.
    package convenience init(source: any AudioSource, design: NotchDesign, primedBySource: Bool = false) throws(ShadesError) {
        try self.init(source: source, design: design, alignment: primedBySource ? .primedBySource : .silentPast)
    }

    /// One design per channel; `primedBySource` picks ``Alignment/primedBySource``.
    package convenience init(source: any AudioSource, designs: [NotchDesign], primedBySource: Bool = false) throws(ShadesError) {
        try self.init(source: source, designs: designs, alignment: primedBySource ? .primedBySource : .silentPast)
    }

    /// One design per channel of `source` (channel c gets `designs[c]`; a design without notches passes
    /// its channel through, delayed like the others). Nothing is rendered yet: the first render call
    /// (offline) or ``prepareForRealTime(_:)`` makes the engine and renders the pre-roll.
    ///
    /// - Parameters:
    ///   - measuringInputSpectrum: with a silent past, sum each notched channel's input power per FFT
    ///     frame from the first frame on, for ``inputSpectrum(channel:)`` (notched music's suitability);
    ///     offline only (the engine is made now).
    /// - Throws: `channels` when the count of designs is not the source's channel count, `rate` when a
    ///   design's rate is not the source's.
    package init(source: any AudioSource, designs: [NotchDesign], alignment: Alignment,
                measuringInputSpectrum: Bool = false) throws(ShadesError) {
        guard designs.count == source.channelCount else {
            throw ShadesError(.channels, .other("do not match the notch designs"), value: .number(Double(source.channelCount), .none),
                              allowed: AllowedValues(note: "one design per source channel (\(designs.count) designs)"))
        }
        for design in designs where design.sampleRate != source.sampleRate {
            throw ShadesError(.rate, .other("differs from a notch design's"), value: .number(source.sampleRate, .hertz),
                              allowed: AllowedValues(note: "the designs' rate, \(formatNumber(design.sampleRate)) Hz"))
        }
        self.source = source
        self.designs = designs
        self.alignment = alignment
        halfLength = designs.map(\.halfLength).max() ?? 0
        self.measuringInputSpectrum = measuringInputSpectrum && alignment == .silentPast
        if self.measuringInputSpectrum { _ = makeEngineIfNeeded() }
    }

    /// Prepares the source, then streams in partitions from here on (the pre-roll rendered now). A source
    /// already rendered offline keeps its offline engine.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {
        source.prepareForRealTime(preparation)
        guard engine == nil else { return }
        engine = .streaming(StreamingNotch(source: source, designs: designs,
                                           preRollFrames: alignment == .primedBySource ? 2 * halfLength : halfLength))
    }

    /// Frames per partition of the real-time engine at `sampleRate`: the power of two at or above 4 ms
    /// (256 at 44.1 and 48 kHz, 512 at 96 kHz), at least 64.
    package static func partitionFrames(sampleRate: Double) -> Int {
        var p = 64
        while Double(p) < sampleRate * 0.004 { p *= 2 }
        return p
    }

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        switch makeEngineIfNeeded() {
        case .primed(let primed): primed.render(into: block)
        case .silentPast(let channels): renderSilentPast(into: block, channels)
        case .streaming(let streaming): streaming.render(into: block)
        }
    }

    /// The engine; the offline one (with its pre-roll) if none was made yet.
    private func makeEngineIfNeeded() -> Engine {
        if let engine { return engine }
        let made: Engine
        switch alignment {
        case .primedBySource:
            made = .primed(PrimedEngine(source: source, designs: designs))
        case .silentPast:
            let channels = DelayedNotch.channels(for: designs)
            if measuringInputSpectrum { for channel in channels { channel.filter?.measureInputSpectrum() } }
            made = .silentPast(channels)
            // Pre-roll: the first D outputs are the filters' start-up, dropped.
            let delay = channels.first?.commonDelay ?? 0
            if delay > 0 {
                let preRoll = AudioBuffer(channelCount: source.channelCount, frameCapacity: delay, zeroed: false)
                preRoll.withBlock { renderSilentPast(into: $0, channels) }
            }
        }
        engine = made
        return made
    }

    /// Blocks of at least this many frames have their channels filtered at once, one thread each (offline
    /// only: notched stereo music takes one core per ear instead of both ears on one).
    static let parallelChannelFrames = 16_384

    private func renderSilentPast(into block: AudioBlock, _ channels: [DelayedNotch]) {
        source.render(into: block)
        if channels.count > 1 && block.frameCount >= Self.parallelChannelFrames {
            // The offline engine never renders on an audio thread (a prepared source streams in partitions),
            // and each channel's filter has its own FFT plan and buffers.
            let work = ParallelChannels(block: block, channels: channels)
            DispatchQueue.concurrentPerform(iterations: channels.count) { c in work.channels[c].process(work.block.channel(c)) }
        } else {
            for (c, channel) in channels.enumerated() { channel.process(block.channel(c)) }
        }
    }

    /// Channel `c`'s input Welch spectrum, from the filter's own FFT frames (see
    /// ``NotchFilter/inputSpectrum(sampleRate:)``); nil when not measuring, for a channel without a notch,
    /// or before a whole FFT frame was filtered.
    package func inputSpectrum(channel c: Int) -> PowerSpectrum? {
        guard case .silentPast(let channels) = engine else { return nil }
        return channels[c].filter?.inputSpectrum(sampleRate: sampleRate)
    }
}

/// One filter per channel: nil for a design without notches, else made from the design, or sharing the
/// response of an earlier channel's filter with the same notches (the other ear).
private func filtersPerChannel<Filter>(_ designs: [NotchDesign], make: (NotchDesign) -> Filter,
                                       sharing: (Filter) -> Filter) -> [Filter?] {
    var filters: [Filter?] = []
    for (c, design) in designs.enumerated() {
        guard !design.isIdentity else { filters.append(nil); continue }
        if let twin = (0..<c).first(where: { filters[$0] != nil && designs[$0].halfTaps == design.halfTaps }) {
            filters.append(sharing(filters[twin]!))
        } else {
            filters.append(make(design))
        }
    }
    return filters
}

/// The real-time engine: per channel a delay up to the longest kernel's group delay, then the channel's
/// zero-latency partitioned convolution (none for a channel without a notch). Channels with the same
/// notches share one kernel.
private final class StreamingNotch {
    let source: any AudioSource
    let partitionFrames: Int
    private let convolvers: [PartitionedConvolver?]
    private let delays: [SampleDelay?]

    init(source: any AudioSource, designs: [NotchDesign], preRollFrames: Int) {
        self.source = source
        let p = NotchedSource.partitionFrames(sampleRate: source.sampleRate)
        partitionFrames = p
        let convolvers = filtersPerChannel(designs, make: { PartitionedConvolver(taps: Self.causalTaps($0), partitionFrames: p) },
                                           sharing: PartitionedConvolver.init(sharingKernelOf:))
        self.convolvers = convolvers
        let longest = designs.map { $0.isIdentity ? 0 : $0.halfLength }.max() ?? 0
        delays = designs.map { design in
            let own = design.isIdentity ? 0 : design.halfLength
            return longest > own ? SampleDelay(frames: longest - own) : nil
        }
        // Pre-roll: the source's first frames go into the delay lines and filters, their outputs unneeded.
        let chunk = 4_096
        let buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: chunk, zeroed: false)
        var done = 0
        while done < preRollFrames {
            let n = min(chunk, preRollFrames - done)
            buffer.withBlock(frames: 0..<n) { block in
                source.render(into: block)
                for c in 0..<block.channelCount {
                    let samples = block.channel(c)
                    delays[c]?.process(UnsafeBufferPointer(samples), into: samples)
                    convolvers[c]?.skip(UnsafeBufferPointer(samples))
                }
            }
            done += n
        }
    }

    /// h[0] … h[2M] of the causal kernel (the centred one shifted by M), single precision.
    static func causalTaps(_ design: NotchDesign) -> [Float] {
        let m = design.halfLength
        return (0...2 * m).map { Float(design.halfTaps[abs($0 - m)]) }
    }

    func render(into block: AudioBlock) {
        source.render(into: block)
        for c in 0..<block.channelCount {
            let samples = block.channel(c)
            delays[c]?.process(UnsafeBufferPointer(samples), into: samples)
            convolvers[c]?.process(UnsafeBufferPointer(samples), into: samples)
        }
    }
}

/// One channel with a silent past: a delay up to the common output delay, then its streaming notch
/// filter (none: the channel is only delayed). Channels with the same notches share one response.
private final class DelayedNotch {
    let filter: NotchFilter?
    let delay: SampleDelay?
    /// The largest output delay over the channels, frames.
    let commonDelay: Int

    init(filter: NotchFilter?, commonDelay: Int) {
        self.filter = filter
        self.commonDelay = commonDelay
        let own = filter?.outputDelayFrames ?? 0
        delay = commonDelay > own ? SampleDelay(frames: commonDelay - own) : nil
    }

    static func channels(for designs: [NotchDesign]) -> [DelayedNotch] {
        let filters = filtersPerChannel(designs, make: NotchFilter.init(design:), sharing: NotchFilter.init(sharingResponseOf:))
        let common = filters.map { $0?.outputDelayFrames ?? 0 }.max() ?? 0
        return filters.map { DelayedNotch(filter: $0, commonDelay: common) }
    }

    /// Delays and filters `samples` in place.
    func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        if let delay { delay.process(UnsafeBufferPointer(samples), into: samples) }
        if let filter { filter.process(UnsafeBufferPointer(samples), into: samples) }
    }
}

/// One block's channels handed to one thread each: thread c touches only channel c's samples and filter.
private struct ParallelChannels: @unchecked Sendable {
    let block: AudioBlock
    let channels: [DelayedNotch]
}

/// The primed engine: shared chunking over all channels, the source's first 2M frames as the past.
private final class PrimedEngine {
    let source: any AudioSource
    let filters: [OverlapSaveFilter]
    let halfLength: Int
    private let sourceChunk: AudioBuffer   // the source's next chunk (partial calls only)
    private let pending: AudioBuffer       // the output's current chunk (partial calls only)
    private var readPosition: Int

    init(source: any AudioSource, designs: [NotchDesign]) {
        self.source = source
        let m = designs.map(\.halfLength).max()!
        halfLength = m
        let fftSize = OverlapSaveFilter.recommendedFFTSize(halfLength: m)
        var filters: [OverlapSaveFilter] = []
        for (c, design) in designs.enumerated() {
            if let same = designs[..<c].firstIndex(where: { $0.halfTaps == design.halfTaps }) {
                filters.append(OverlapSaveFilter(sharingResponseOf: filters[same]))
            } else {
                let padded = design.halfTaps + repeatElement(0, count: m - design.halfLength)
                filters.append(OverlapSaveFilter(halfTaps: padded, fftSize: fftSize))
            }
        }
        self.filters = filters
        let chunk = fftSize - 2 * m
        sourceChunk = AudioBuffer(channelCount: source.channelCount, frameCapacity: chunk)
        pending = AudioBuffer(channelCount: source.channelCount, frameCapacity: chunk)
        readPosition = chunk
        // Pre-roll (chunk ≥ 6M): the filter's history is the 2M frames before the first chunk, whose output
        // is centred M frames back: source frames 0 ..< 2M.
        let preRoll = 2 * m
        sourceChunk.withBlock(frames: 0..<preRoll) { source.render(into: $0) }
        for (c, filter) in filters.enumerated() {
            sourceChunk.withChannel(c) { frames in
                filter.withHistory { history in
                    history.update(repeating: 0)
                    (history.baseAddress! + 2 * m - preRoll).update(from: frames.baseAddress!, count: preRoll)
                }
            }
        }
    }

    func render(into block: AudioBlock) {
        let chunk = filters[0].blockFrames
        var done = 0
        while done < block.frameCount {
            let remaining = block.frameCount - done
            if readPosition == chunk && remaining >= chunk {
                // A whole aligned chunk: render and filter in place in the caller's buffer.
                let part = block.frames(done..<done + chunk)
                source.render(into: part)
                for c in filters.indices {
                    let samples = part.channel(c)
                    filters[c].process(UnsafeBufferPointer(samples), into: samples)
                }
                done += chunk
                continue
            }
            if readPosition == chunk {
                sourceChunk.withBlock { source.render(into: $0) }
                for c in filters.indices {
                    sourceChunk.withChannel(c) { input in
                        pending.withChannel(c) { output in filters[c].process(UnsafeBufferPointer(input), into: output) }
                    }
                }
                readPosition = 0
            }
            let n = min(remaining, chunk - readPosition)
            for c in filters.indices {
                let destination = block.channel(c).baseAddress! + done
                pending.withChannel(c) { output in destination.update(from: output.baseAddress! + readPosition, count: n) }
            }
            readPosition += n
            done += n
        }
    }
}
