import ShadesDSP

/// Writes audio to WAV or FLAC through libsndfile, atomically.
public enum AudioFileWriter {
    /// Software tag stored in every file.
    public static let software = "shades \(ShadesVersion.string)"

    /// Writes `buffer`'s channels, each multiplied by its gain, to `path`.
    ///
    /// - Parameters:
    ///   - gains: linear gain per channel (already checked not to clip: see ``clipHeadroom``).
    ///   - ditherKey: the TPDF dither stream for 16-bit output.
    ///   - comment: stored in the file's comment tag (the generating parameters).
    public static func write(_ buffer: AudioBuffer, sampleRate: Int, gains: [Float], to path: String,
                             format: AudioFileFormat, ditherKey: UInt64, comment: String?) throws(AudioFileError) {
        precondition(gains.count == buffer.channelCount)
        let channelCount = buffer.channelCount
        let frameCount = buffer.frameCapacity
        var channels: [UnsafeMutableBufferPointer<Float>] = []
        for c in 0..<channelCount { buffer.withChannel(c) { channels.append($0) } }
        try AtomicFile.write(to: path) { (temporary: String) throws(AudioFileError) in
            let file = try SoundFile.create(path: temporary, sampleRate: sampleRate, channelCount: channelCount,
                                            format: format, frameCount: frameCount)
            file.setStrings(comment: comment, software: software)
            let chunk = 1 << 16
            switch format.sampleFormat {
            case .s16:
                var quantizer = Quantizer(ditherKey: ditherKey)
                let interleaved = UnsafeMutableBufferPointer<Int16>.allocate(capacity: chunk * channelCount)
                defer { interleaved.deallocate() }
                for start in stride(from: 0, to: frameCount, by: chunk) {
                    let range = start..<min(frameCount, start + chunk)
                    quantizer.interleaveS16(channels, frames: range, gains: gains, into: interleaved)
                    try file.write(interleaved: UnsafeBufferPointer(rebasing: interleaved[0..<range.count * channelCount]))
                }
            case .s24, .f32:
                let interleaved = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunk * channelCount)
                defer { interleaved.deallocate() }
                for start in stride(from: 0, to: frameCount, by: chunk) {
                    let range = start..<min(frameCount, start + chunk)
                    Quantizer.interleaveFloat(channels, frames: range, gains: gains, into: interleaved)
                    try file.write(interleaved: UnsafeBufferPointer(rebasing: interleaved[0..<range.count * channelCount]))
                }
            }
            try file.close()
        }
    }
}

/// The library version, stored in files and manifests.
public enum ShadesVersion {
    public static let string = "0.1.0"
}
