import ShadesDSP

/// A sound file read block by block (any format libsndfile reads: WAV, FLAC, OGG/Vorbis, Opus, MP3,
/// AIFF …), de-interleaved to Float, so a two-hour file needs only one block of memory.
public final class AudioFileInput {
    private let file: SoundFile
    public let path: String
    /// Sample rate in Hz.
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames the header announces.
    public let frameCount: Int
    /// The container, e.g. "WAV (Microsoft)".
    public let containerName: String
    /// The comment tag, if any.
    public let comment: String?
    /// Frames handed out so far.
    public private(set) var framesRead = 0
    private var interleaved: UnsafeMutableBufferPointer<Float>

    /// Opens `path`; a missing, empty, unreadable or unsupported file is an error naming the file.
    public init(path: String) throws(AudioFileError) {
        file = try SoundFile.open(path: path)
        self.path = path
        sampleRate = file.sampleRate
        channelCount = file.channelCount
        frameCount = file.frameCount
        containerName = file.containerName
        comment = file.comment
        guard channelCount > 0, sampleRate > 0 else { throw .runtime("cannot read \(path): no audio channels") }
        guard frameCount > 0 else { throw .runtime("cannot read \(path): the file holds no audio") }
        interleaved = .allocate(capacity: 0)
    }

    deinit { interleaved.deallocate() }

    /// Reads the next frames into `block` (whose channel count must match); returns the frames read,
    /// 0 at the end. A file that ends before its announced length is an error (truncated or corrupt).
    public func read(into block: AudioBlock) throws(AudioFileError) -> Int {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        let wanted = min(block.frameCount, frameCount - framesRead)
        guard wanted > 0 else { return 0 }
        if interleaved.count < wanted * channelCount {
            interleaved.deallocate()
            interleaved = .allocate(capacity: wanted * channelCount)
        }
        let got = file.read(interleaved: UnsafeMutableBufferPointer(rebasing: interleaved[0..<wanted * channelCount]))
        guard got == wanted else {
            throw .runtime("cannot read \(path): the file is truncated or corrupt (\(framesRead + max(0, got)) of \(frameCount) frames)")
        }
        for c in 0..<channelCount {
            let destination = block.channel(c)
            var i = c
            for frame in 0..<got {
                destination[frame] = interleaved[i]
                i += channelCount
            }
        }
        framesRead += got
        return got
    }
}
