/// Any source with notches applied per channel (notched white or pink noise for the catalogue, notched
/// music), delay compensated: frame t of the output is frame t of the source filtered by the zero-phase
/// (centred) kernel, Σ h[k]·x[t − k] with the source taken as silent before its frame 0. For a stationary
/// source (noise) `primedBySource` starts in steady state instead: the source's first M frames become the
/// filter's past and output frame t is filtered source frame t + M, so the notch is complete from the
/// first frame (with silence as the past, the first M frames of the output are not yet fully notched).
///
/// Okamoto et al. 2010 (one octave at the tinnitus frequency); Stein et al. 2016 (½ octave, 3/8-octave
/// bands beside it +20 dB); see ``NotchSpec``. For bilateral tinnitus give one ``NotchDesign`` per
/// channel (left and right frequencies); an ear without a notch gets `NotchDesign(notches: [], …)`.
///
/// How: the source is rendered M frames ahead of the output (M: the longest kernel's half length) in
/// fixed chunks aligned to frame 0 and filtered by FFT overlap-save (``OverlapSaveFilter``), one filter
/// per channel; shorter kernels are zero-padded to M so all channels share the chunking. `init` renders
/// the first M source frames (2M when primed: the pre-roll). Rendering allocates nothing and takes no locks; whole
/// aligned chunks are rendered and filtered in the caller's buffer, the rest goes through one chunk of
/// buffered output, so the output does not depend on how the caller slices its render calls.
///
/// The boosted bands of a notch raise the level: with a full-scale source the output can exceed 0 dBFS.
public final class NotchedSource: AudioSource {
    /// The filtered source; this modifier renders it and owns its position from now on.
    public let source: any AudioSource
    /// One design per channel.
    public let designs: [NotchDesign]
    public var sampleRate: Double { source.sampleRate }
    public var channelCount: Int { source.channelCount }
    /// Frames the source is rendered ahead of the output: the longest kernel's half length M.
    public let lookaheadFrames: Int
    /// Frames per chunk (the FFT block): fftSize − 2M.
    public var chunkFrames: Int { filters[0].blockFrames }

    private let filters: [OverlapSaveFilter]
    private let sourceChunk: AudioBuffer   // the source's next chunk (partial calls only)
    private let pending: AudioBuffer       // the output's current chunk (partial calls only)
    private var readPosition: Int

    /// The same notches on every channel of `source`.
    ///
    /// Throws `rate` when the design's rate is not the source's.
    public convenience init(source: any AudioSource, design: NotchDesign, primedBySource: Bool = false) throws(ShadesError) {
        try self.init(source: source, designs: Array(repeating: design, count: source.channelCount),
                      primedBySource: primedBySource)
    }

    /// One design per channel of `source` (channel c gets `designs[c]`).
    ///
    /// - Parameters:
    ///   - primedBySource: false (default): the source is silent before its frame 0 and output frame t is
    ///     filtered source frame t. True: the source's first ``lookaheadFrames`` frames serve as the past
    ///     and output frame t is filtered source frame t + ``lookaheadFrames`` (steady state from the start,
    ///     for noise).
    /// - Throws: `channels` when the count of designs is not the source's channel count, `rate` when a
    ///   design's rate is not the source's.
    public init(source: any AudioSource, designs: [NotchDesign], primedBySource: Bool = false) throws(ShadesError) {
        guard designs.count == source.channelCount else {
            throw ShadesError(parameter: "channels", value: "\(designs.count) notch designs",
                              allowed: "one design per source channel (\(source.channelCount))")
        }
        for design in designs where design.sampleRate != source.sampleRate {
            throw ShadesError(parameter: "rate", value: "\(design.sampleRate) Hz (notch design)",
                              allowed: "the source's rate, \(source.sampleRate) Hz")
        }
        self.source = source
        self.designs = designs
        let m = designs.map(\.halfLength).max()!
        lookaheadFrames = m
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
        // is centred M frames back. Silence then source frames 0 ..< M, or source frames 0 ..< 2M.
        let preRoll = primedBySource ? 2 * m : m
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

    public func render(into block: AudioBlock) {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        let chunk = chunkFrames
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
