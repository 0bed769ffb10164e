import ShadesDSP
import ShadesIO

/// The renderer's strategy for a sound that plays a file to its end (music, notched or shaped), in two
/// passes in bounded memory: pass 1 renders the stream once (decoded, resampled, filtered) before its gain,
/// measures each signal, hands every frame within the file's length to an observer (the catalogue measures
/// loudness there) and keeps the stream in a scratch file (``ScratchSoundFile``, Float: the same samples);
/// pass 2 reads it back and writes it at the gains the level policy chose. So the music is decoded,
/// resampled and notched once (without room for the scratch file, pass 2 runs the chain again). Memory: a
/// few blocks, whatever the song's length. `render FILE`, `notch` and the catalogue's music use it.
package final class FileSoundPasses {
    /// The sound's graph: ``SoundGraph/playsFileToEnd``.
    package let graph: SoundGraph
    /// Frames of the stream: the file's decoded length (at the graph's rate), after ``measure(meters:observe:)``.
    package private(set) var frames = 0
    /// Frames the file decoded to, at its own rate (after pass 1): what a recipe records of it.
    package private(set) var decodedInputFrames: Int?
    /// Set when the frames read are not all the file announces or holds (a cut MP3: ``AudioFileSource/lengthWarning``).
    package private(set) var lengthWarning: String?
    package var channelCount: Int { graph.outputChannelCount }
    private var kept: ScratchSoundFile?

    /// The strategy for `graph`, which must play a file to its end.
    package init(_ graph: SoundGraph) {
        precondition(graph.playsFileToEnd, "a file sound played to its end")
        self.graph = graph
    }

    /// The request's sound before its gain; nil when it does not play a file to its end.
    package convenience init?(_ request: RenderRequest) throws(ShadesError) {
        let graph = try SoundGraph(request)
        guard graph.playsFileToEnd else { return nil }
        self.init(graph)
    }

    /// Pass 1: renders the stream (as written) to the file's end, measures each signal with `meters`, hands
    /// `observe` every block's frames within the file, and keeps the stream.
    package func measure<M: SampleMeter>(meters: [M], observe: ((AudioBlock) -> Void)? = nil) throws(ShadesError) -> [M] {
        let (source, file) = try openChain()
        let observed: any AudioSource = observe.map { ObservingTap(source: source, file: file, observe: $0) } ?? source
        let expected = StreamingResampler.outputFrameCount(inputFrames: file.announcedInputFrames,
                                                           inputRate: file.inputSampleRate, outputRate: file.sampleRate)
        let scratch = try? ScratchSoundFile(channelCount: channelCount, sampleRate: Int(graph.sampleRate.rounded()),
                                            expectedFrames: expected)
        let measured: any AudioSource = scratch.map { KeepingTap(source: observed, scratch: $0) } ?? observed
        let (meters, frames) = FileSink.measure(SourceGroups([measured]), length: .untilEndOf(file), meters: meters,
                                                chunkFrames: FileChain.blockFrames)
        if let failure = file.failure ?? graph.failures.error { throw failure }
        self.frames = frames
        decodedInputFrames = file.inputFramesDecoded
        lengthWarning = file.lengthWarning
        if let scratch, (try? scratch.finishWriting()) != nil, scratch.frames >= frames { kept = scratch }
        return meters
    }

    /// The measurement of pass 1 its ``SoundGraph/level`` policy needs (the written sound's true peak, or
    /// its RMS: a file's sustained sound is the one written).
    package func measureForLevel() throws(ShadesError) -> LevelMeasurement {
        switch graph.level.measurement {
        case .truePeak:
            let peaks = try measure(meters: Array(repeating: TruePeakMeter(sampleRate: graph.sampleRate), count: graph.signalCount))
            return .truePeak(linear: peaks.map(\.peak).max() ?? 0, signalCount: graph.signalCount)
        case .sustainedRMS, .loudness:
            let meters = try measure(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: graph.signalCount))
            return .sustained(graph.sustained(meters, frames: frames))
        }
    }

    /// Pass 2: the stream of pass 1 (read back, or rendered again when it could not be kept) into `sink`
    /// at `gains` (one per signal); the level written.
    @discardableResult
    package func write(to sink: FileSink, gains: [Float]) throws(ShadesError) -> WrittenLevel {
        precondition(decodedInputFrames != nil, "measure first")
        if let kept {
            // The kept stream read back, block by block (its frames past the stream's end are not read).
            let stream = try AudioFileSource(path: kept.readPath, blockFrames: FileChain.blockFrames)
            let written = try sink.write(SourceGroups([stream]), frames: frames, gains: gains)
            if let failure = stream.failure { throw failure }
            return written
        }
        let (source, file) = try openChain()
        let written = try sink.write(SourceGroups([source]), frames: frames, gains: gains)
        if let failure = file.failure ?? graph.failures.error { throw failure }
        guard file.inputFramesDecoded == decodedInputFrames else {
            throw .input("cannot read \(graph.soundFile?.path ?? "the sound file"): the file changed while it was being processed")
        }
        return written
    }

    private func openChain() throws(ShadesError) -> (source: any AudioSource, file: AudioFileSource) {
        let (source, opened) = graph.makeChain(0, false)
        guard let file = opened else { throw graph.failures.error ?? .input("the sound file could not be opened again") }
        return (source, file)
    }
}

/// Passes `source` through and appends every frame it renders to `scratch`.
final class KeepingTap: AudioSource {
    let source: any AudioSource
    let scratch: ScratchSoundFile
    var sampleRate: Double { source.sampleRate }
    var channelCount: Int { source.channelCount }

    init(source: any AudioSource, scratch: ScratchSoundFile) {
        self.source = source
        self.scratch = scratch
    }

    /// Prepares its source (a tap runs offline, but it answers like every source).
    func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    func render(into block: AudioBlock) {
        source.render(into: block)
        scratch.append(block)
    }
}

/// Hands the frames of each block that lie within `file`'s length (known once it is decoded to its end)
/// to `observe`, and passes the block through: a measurement of a stream over its file's frames only.
final class ObservingTap: AudioSource {
    let source: any AudioSource
    let file: AudioFileSource
    private let observe: (AudioBlock) -> Void
    private var position = 0
    var sampleRate: Double { source.sampleRate }
    var channelCount: Int { source.channelCount }

    init(source: any AudioSource, file: AudioFileSource, observe: @escaping (AudioBlock) -> Void) {
        (self.source, self.file, self.observe) = (source, file, observe)
    }

    /// Prepares its source (a tap runs offline, but it answers like every source).
    func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    func render(into block: AudioBlock) {
        source.render(into: block)
        let valid = max(0, min(block.frameCount, (file.frameCount ?? Int.max) - position))
        if valid > 0 { observe(block.frames(0..<valid)) }
        position += block.frameCount
    }
}
