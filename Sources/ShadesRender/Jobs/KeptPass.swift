import ShadesDSP
import ShadesIO

/// Pass 1 of a two-pass job on a stream that ends with its file (`shades notch`, the catalogue's music):
/// renders `source` chunk by chunk until `file`'s end, measures each signal with `meters`, and keeps every
/// frame in a ``ScratchSoundFile`` so that pass 2 reads the stream back instead of decoding, resampling
/// and filtering it again. Memory: a few chunks, whatever the stream's length.
enum KeptPass {
    /// The meters, the frames up to the file's end, and the kept stream (nil when the temporary folder had
    /// no room for it: pass 2 then renders the stream again).
    static func run<M: SampleMeter>(_ source: any AudioSource, until file: AudioFileSource, meters: [M],
                                    expectedFrames: Int) -> (meters: [M], frames: Int, kept: ScratchSoundFile?) {
        let scratch = try? ScratchSoundFile(channelCount: source.channelCount, sampleRate: Int(source.sampleRate.rounded()),
                                            expectedFrames: expectedFrames)
        let measured: any AudioSource = scratch.map { KeepingTap(source: source, scratch: $0) } ?? source
        let (meters, frames) = FileSink.measure(SourceGroups([measured]), length: .untilEndOf(file), meters: meters,
                                                chunkFrames: FileChain.blockFrames)
        guard let scratch, (try? scratch.finishWriting()) != nil, scratch.frames >= frames else { return (meters, frames, nil) }
        return (meters, frames, scratch)
    }

    /// The kept stream read back, block by block (its frames past the stream's end are not read).
    static func readBack(_ kept: ScratchSoundFile) throws(ShadesError) -> AudioFileSource {
        try AudioFileSource(path: kept.readPath, blockFrames: FileChain.blockFrames)
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

/// A sound that plays a file to its end (music, notched or shaped), made in two passes in bounded memory
/// as `shades notch` makes its output: pass 1 renders the stream once (decoded, resampled, filtered) at the
/// reference level, hands every frame within the file's length to an observer (the catalogue measures
/// loudness and true peak there) and keeps it in a scratch file; pass 2 writes it at one gain.
package final class FileSoundPasses {
    package let request: RenderRequest
    /// Frames of the stream: the file's decoded length (at the request's rate).
    package private(set) var frames = 0
    package var channelCount: Int { graph.outputChannelCount }
    /// The tone frequency rendered, Hz (none for music).
    package var renderedFrequencyHz: Double? { graph.renderedFrequencyHz }
    private let graph: SoundGraph
    private var kept: ScratchSoundFile?
    private var decodedInput: Int?
    /// Frames the file decoded to, at its own rate (after ``measure(_:)``): what a recipe records of it.
    package var decodedInputFrames: Int? { decodedInput }

    /// The request's sound at its reference level; nil when it does not play a file to its end.
    package init?(_ request: RenderRequest) throws(ShadesError) {
        graph = try SoundGraph(request)
        guard graph.playsFileToEnd else { return nil }
        self.request = request
    }

    /// Pass 1: renders the stream to the file's end, handing `observe` every block's frames within it.
    /// Throws when the file cannot be read whole (a cut MP3: ``AudioFileSource/lengthWarning``).
    package func measure(_ observe: @escaping (AudioBlock) -> Void) throws(ShadesError) {
        let (source, file) = try openChain()
        let tap = ObservingTap(source: source, file: file, observe: observe)
        let expected = StreamingResampler.outputFrameCount(inputFrames: file.announcedInputFrames,
                                                           inputRate: file.inputSampleRate, outputRate: file.sampleRate)
        let (_, frames, kept) = KeptPass.run(tap, until: file, meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0), count: channelCount),
                                         expectedFrames: expected)
        if let failure = file.failure ?? graph.failures.error { throw failure }
        if let warning = file.lengthWarning { throw .input(warning) }
        self.frames = frames
        self.kept = kept
        decodedInput = file.inputFramesDecoded
    }

    /// Pass 2: the stream of pass 1 (read back, or rendered again when it could not be kept) into `sink`
    /// at `gain` on every channel.
    package func write(to sink: FileSink, gain: Float) throws(ShadesError) {
        precondition(decodedInput != nil, "measure first")
        let gains = Array(repeating: gain, count: channelCount)
        if let kept {
            let stream = try KeptPass.readBack(kept)
            try sink.write(SourceGroups([stream]), frames: frames, gains: gains)
            if let failure = stream.failure { throw failure }
            return
        }
        let (source, file) = try openChain()
        try sink.write(SourceGroups([source]), frames: frames, gains: gains)
        if let failure = file.failure ?? graph.failures.error { throw failure }
        guard file.inputFramesDecoded == decodedInput else {
            throw .input("cannot read \(request.sound.file?.path ?? "the sound file"): the file changed while it was being processed")
        }
    }

    private func openChain() throws(ShadesError) -> (source: any AudioSource, file: AudioFileSource) {
        let (source, opened) = graph.makeChain(0, false)
        guard let file = opened else { throw graph.failures.error ?? .input("the sound file could not be opened again") }
        return (source, file)
    }
}
