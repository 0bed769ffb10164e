import ShadesDSP

/// A sound file read block by block (any format libsndfile reads: WAV, FLAC, OGG/Vorbis, Opus, MP3,
/// AIFF …), de-interleaved to Float, so a two-hour file needs only one block of memory.
package final class AudioFileInput {
    private let file: SoundFile
    package let path: String
    /// Sample rate in Hz.
    package let sampleRate: Int
    package let channelCount: Int
    /// Frames the header announces: the file's length when ``lengthIsExact``, else an estimate the decoded
    /// length may fall short of (libsndfile never decodes more); `Int.max` when no length is announced (a
    /// stream cut off before its end).
    package let frameCount: Int
    /// True for PCM containers (WAV, RF64, AIFF …) and FLAC; false for MPEG and Ogg (Vorbis, Opus), whose
    /// length is the decoder's estimate and known only once ``isAtEnd``.
    package let lengthIsExact: Bool
    /// The container, e.g. "WAV (Microsoft)".
    package let containerName: String
    /// The comment tag, if any.
    package let comment: String?
    /// Frames handed out so far: the decoded length once ``isAtEnd``.
    package private(set) var framesRead = 0
    /// True once ``read(into:)`` has returned 0.
    package private(set) var isAtEnd = false
    /// Largest shortfall of the decoded length against an estimated one that is not reported, as a fraction
    /// (2 %). mpg123 estimates the length of an MP3 without a Xing/LAME header from the file's size over its
    /// first frame's size; that frame without the padding byte that later frames carry now and then, the
    /// estimate runs over by up to one byte per frame (0.15 … 0.47 % measured for LAME at 192 … 32 kbps; the
    /// Debian asc-music files 0.09 %), 2 % only below about 16 kbps. Half an MP3 with a LAME header falls
    /// 51 % short; without a header the estimate shrinks with the file: nothing tells the cut.
    package static let estimatedLengthTolerance = 0.02
    /// A WAV or AIFF whose sound data chunk announces more bytes than the file holds (libsndfile reads it as
    /// a shorter file without complaint), e.g. "data chunk of 384044 bytes, 192022 present"; found on opening.
    private let containerTruncation: String?
    private var interleaved: UnsafeMutableBufferPointer<Float>
    private var interleaved16: UnsafeMutableBufferPointer<Int16>

    /// Opens `path`; a missing, empty, unreadable or unsupported file is an error naming the file.
    package init(path: String) throws(ShadesError) {
        file = try SoundFile.open(path: path)
        self.path = path
        sampleRate = file.sampleRate
        channelCount = file.channelCount
        frameCount = file.frameCount
        lengthIsExact = file.lengthIsExact
        containerName = file.containerName
        comment = file.comment
        guard channelCount > 0, sampleRate > 0 else { throw .input("cannot read \(path): no audio channels") }
        guard frameCount > 0 else { throw .input("cannot read \(path): the file holds no audio") }
        containerTruncation = ContainerCheck.truncation(path: path)
        interleaved = .allocate(capacity: 0)
        interleaved16 = .allocate(capacity: 0)
    }

    deinit {
        interleaved.deallocate()
        interleaved16.deallocate()
    }

    /// How the file falls short of what its header announces, or nil: for a WAV or AIFF whose data chunk is
    /// cut, from opening (e.g. "data chunk of 384044 bytes, 192022 present"); for an estimated length, once
    /// ``isAtEnd``, when the decoded length is more than ``estimatedLengthTolerance`` short (e.g. "64559 of
    /// about 132300 frames decoded, 51.2 % short") or no length was announced.
    package var truncation: String? {
        if let containerTruncation { return containerTruncation }
        guard !lengthIsExact, isAtEnd else { return nil }
        guard frameCount != Int.max else { return "no length announced, \(framesRead) frames decoded" }
        let shortfall = Double(frameCount - framesRead) / Double(frameCount)
        guard shortfall > Self.estimatedLengthTolerance else { return nil }
        return "\(framesRead) of about \(frameCount) frames decoded, \(String(format: shortfall * 100, digits: 1)) % short"
    }

    /// libsndfile's format code (major | minor).
    package var formatCode: Int32 { file.formatCode }

    /// Set when libsndfile stopped at its estimated length while the decoder had more: it never decodes past
    /// the count it announced, and mpg123's estimate for a variable-bit-rate MP3 without a Xing/LAME header
    /// comes from its first frame (here 43,781 of 133,632 frames). How much is lost is not known.
    package var cutAtEstimate: String? {
        file.stoppedAtAnnouncedLength
            ? "libsndfile stops at its estimate of \(frameCount) frames, but the decoder has more: "
                + "an MP3 of variable bit rate without a Xing/LAME header? Another decoder reads it whole"
            : nil
    }

    /// One line naming the file when the frames read are not all it holds or announces, or nil: it is
    /// shorter than its header announces (``truncation``), or libsndfile stopped at its estimate of the
    /// length while the decoder had more.
    package var lengthWarning: String? {
        if let cutAtEstimate { return "\(path) is read only in part (\(cutAtEstimate))" }
        return truncation.map { "\(path) is shorter than its header announces (\($0))" }
    }

    /// Reads the next frames into `block` (whose channel count must match); returns the frames read,
    /// 0 at the end. A file of exact length that ends early is an error (truncated or corrupt); one of
    /// estimated length is read until the decoder (or libsndfile, at its estimate) ends: see
    /// ``lengthWarning``.
    package func read(into block: AudioBlock) throws(ShadesError) -> Int {
        precondition(block.channelCount == channelCount, "block has the wrong channel count")
        guard !isAtEnd, block.frameCount > 0 else { return 0 }
        let wanted = lengthIsExact ? min(block.frameCount, frameCount - framesRead) : block.frameCount
        let got = wanted <= 0 ? 0 : file.isPlainPCM16 ? readPCM16(wanted, into: block) : readFloat(wanted, into: block)
        if lengthIsExact && got != wanted {
            throw .input("cannot read \(path): the file is truncated or corrupt (\(framesRead + max(0, got)) of \(frameCount) frames)")
        }
        guard got > 0 else {
            isAtEnd = true
            return 0
        }
        framesRead += got
        return got
    }

    /// libsndfile's Float conversion, de-interleaved.
    private func readFloat(_ frames: Int, into block: AudioBlock) -> Int {
        let buffer = Self.reserve(&interleaved, frames * channelCount)
        let got = file.read(interleaved: buffer)
        if channelCount == 2 && got > 0 {
            Kernels.deinterleaveStereo(buffer.baseAddress!, frames: got, left: block.channel(0).baseAddress!, right: block.channel(1).baseAddress!)
        } else {
            deinterleave(UnsafePointer(buffer.baseAddress!), frames: got, into: block) { $0 }
        }
        return got
    }

    /// 16-bit PCM read as integers and converted here: the same Floats as libsndfile's (x / 32768, exact),
    /// without its 8 KB conversion buffer (one read call per block instead of one per 2,048 samples).
    private func readPCM16(_ frames: Int, into block: AudioBlock) -> Int {
        let buffer = Self.reserve(&interleaved16, frames * channelCount)
        let got = file.read(interleaved: buffer)
        if channelCount == 2 && got > 0 {
            Kernels.deinterleaveStereo16(buffer.baseAddress!, frames: got, scale: 1.0 / 32_768,
                                         left: block.channel(0).baseAddress!, right: block.channel(1).baseAddress!)
        } else {
            deinterleave(UnsafePointer(buffer.baseAddress!), frames: got, into: block) { Float($0) * (1.0 / 32_768) }
        }
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
