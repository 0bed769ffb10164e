import ShadesDSP
import ShadesIO

/// A sound file read whole through libsndfile (any format it reads), de-interleaved to Float: what a test
/// compares (the library streams files through ``AudioFileInput``).
package struct DecodedAudio {
    package let sampleRate: Int
    /// Every frame decoded: for MP3 and Ogg, whose header only estimates the length, as many as the decoder
    /// gives (see ``AudioFileInput/truncation``).
    package let buffer: AudioBuffer
    /// The file's comment tag, if any.
    package let comment: String?
    /// libsndfile's format code (major | minor).
    package let formatCode: Int32

    /// Reads all of `path`. A file not read whole is an error (see ``AudioFileInput/lengthWarning``): one of
    /// exact length that ends early, a WAV or AIFF whose data chunk is cut, one of estimated length more
    /// than ``AudioFileInput/estimatedLengthTolerance`` short, announcing no length, or cut by libsndfile
    /// at its estimate.
    package init(contentsOf path: String) throws(ShadesError) {
        let input = try AudioFileInput(path: path)
        sampleRate = input.sampleRate
        comment = input.comment
        formatCode = input.formatCode
        let announced = input.frameCount
        func truncated(_ problem: String) -> ShadesError {
            .input("cannot read \(path): the file is truncated or corrupt (\(problem))")
        }
        if let problem = input.truncation { throw truncated(problem) }
        guard announced != Int.max else { throw truncated("no length announced") }
        // libsndfile never decodes more than it announces: the whole file fits; the chunk may reach past
        // the announced end, so the read that gets there can tell whether the decoder ended there too.
        let whole = AudioBuffer(channelCount: input.channelCount, frameCapacity: announced, zeroed: false)
        let chunk = AudioBuffer(channelCount: input.channelCount, frameCapacity: 1 << 16, zeroed: false)
        var done = 0
        while true {
            let got = try chunk.withBlock { (b: AudioBlock) throws(ShadesError) in try input.read(into: b) }
            if got == 0 { break }
            guard got <= announced - done else {
                throw .input("cannot read \(path): the decoder gave more than the \(announced) frames announced")
            }
            for c in 0..<input.channelCount {
                chunk.withChannel(c) { from in
                    whole.withChannel(c) { to in
                        _ = UnsafeMutableBufferPointer(rebasing: to[done..<done + got]).update(fromContentsOf: from[0..<got])
                    }
                }
            }
            done += got
        }
        if let problem = input.truncation { throw truncated(problem) }
        if let problem = input.cutAtEstimate { throw .input("cannot read \(path): \(problem)") }
        guard done < announced else {
            buffer = whole
            return
        }
        buffer = AudioBuffer(channelCount: input.channelCount, frameCapacity: done, zeroed: false)
        for c in 0..<input.channelCount {
            whole.withChannel(c) { from in buffer.withChannel(c) { to in _ = to.update(fromContentsOf: from[0..<done]) } }
        }
    }
}
