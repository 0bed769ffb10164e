import ShadesDSP

/// A sound file read whole through libsndfile (any format it reads), de-interleaved to Float.
public struct DecodedAudio {
    public let sampleRate: Int
    public let buffer: AudioBuffer
    /// The file's comment tag, if any.
    public let comment: String?
    /// libsndfile's format code (major | minor).
    public let formatCode: Int32

    /// Reads all of `path`.
    public init(contentsOf path: String) throws(AudioFileError) {
        let file = try SoundFile.open(path: path)
        sampleRate = file.sampleRate
        comment = file.comment
        formatCode = file.formatCode
        let channels = file.channelCount
        let frames = file.frameCount
        let buffer = AudioBuffer(channelCount: channels, frameCapacity: frames)
        let chunk = 1 << 16
        let interleaved = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunk * channels)
        defer { interleaved.deallocate() }
        var done = 0
        while done < frames {
            let got = file.read(interleaved: UnsafeMutableBufferPointer(rebasing: interleaved[0..<min(chunk, frames - done) * channels]))
            if got <= 0 { break }
            for c in 0..<channels {
                buffer.withChannel(c) { out in
                    for i in 0..<got { out[done + i] = interleaved[i * channels + c] }
                }
            }
            done += got
        }
        guard done == frames else { throw .runtime("cannot read \(path): file is truncated (\(done) of \(frames) frames)") }
        self.buffer = buffer
    }
}
