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
    private var interleaved16: UnsafeMutableBufferPointer<Int16>

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
        interleaved16 = .allocate(capacity: 0)
    }

    deinit {
        interleaved.deallocate()
        interleaved16.deallocate()
    }

    /// Reads the next frames into `block` (whose channel count must match); returns the frames read,
    /// 0 at the end. A file that ends before its announced length is an error (truncated or corrupt).
    public func read(into block: AudioBlock) throws(AudioFileError) -> Int {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        let wanted = min(block.frameCount, frameCount - framesRead)
        guard wanted > 0 else { return 0 }
        let got = file.isPlainPCM16 ? readPCM16(wanted, into: block) : readFloat(wanted, into: block)
        guard got == wanted else {
            throw .runtime("cannot read \(path): the file is truncated or corrupt (\(framesRead + max(0, got)) of \(frameCount) frames)")
        }
        framesRead += got
        return got
    }

    /// libsndfile's Float conversion, de-interleaved.
    private func readFloat(_ frames: Int, into block: AudioBlock) -> Int {
        let buffer = Self.reserve(&interleaved, frames * channelCount)
        let got = file.read(interleaved: buffer)
        deinterleave(UnsafePointer(buffer.baseAddress!), frames: got, into: block) { $0 }
        return got
    }

    /// 16-bit PCM read as integers and converted here: the same Floats as libsndfile's (x / 32768, exact),
    /// without its 8 KB conversion buffer (one read call per block instead of one per 2,048 samples).
    private func readPCM16(_ frames: Int, into block: AudioBlock) -> Int {
        let buffer = Self.reserve(&interleaved16, frames * channelCount)
        let got = file.read(interleaved: buffer)
        deinterleave(UnsafePointer(buffer.baseAddress!), frames: got, into: block) { Float($0) * (1.0 / 32_768) }
        return got
    }

    /// The first `count` elements of `buffer`, grown first if it is shorter.
    private static func reserve<T>(_ buffer: inout UnsafeMutableBufferPointer<T>, _ count: Int) -> UnsafeMutableBufferPointer<T> {
        if buffer.count < count {
            buffer.deallocate()
            buffer = .allocate(capacity: count)
        }
        return UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
    }

    /// Interleaved frames → the block's channels, each sample through `convert`.
    @inline(__always)
    private func deinterleave<T>(_ source: UnsafePointer<T>, frames: Int, into block: AudioBlock, convert: (T) -> Float) {
        if channelCount == 2 {
            let left = block.channel(0).baseAddress!, right = block.channel(1).baseAddress!
            for frame in 0..<max(0, frames) {
                left[frame] = convert(source[2 * frame])
                right[frame] = convert(source[2 * frame + 1])
            }
            return
        }
        for c in 0..<channelCount {
            let destination = block.channel(c).baseAddress!
            for frame in 0..<max(0, frames) { destination[frame] = convert(source[frame * channelCount + c]) }
        }
    }
}
