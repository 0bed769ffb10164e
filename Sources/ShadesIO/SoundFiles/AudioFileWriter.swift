import ShadesDSP

/// A sound file being written frame block by frame block (WAV or FLAC through libsndfile), into the
/// file ``AtomicFile/write(to:_:)`` lends, so a failure or a killed process leaves nothing behind.
public final class AudioFileOutput {
    private let file: SoundFile
    public let channelCount: Int
    public let format: AudioFileFormat

    /// Starts a sound file of `frameCount` frames in `file` (the count picks RF64 for WAV files over 4 GiB and
    /// sizes the disk reservation); a second output on the same `file` replaces the first.
    public init(file: AtomicFile.Temporary, sampleRate: Int, channelCount: Int, format: AudioFileFormat, frameCount: Int,
                comment: String?) throws(ShadesError) {
        self.file = try SoundFile.create(file: file, sampleRate: sampleRate, channelCount: channelCount,
                                    format: format, frameCount: frameCount)
        self.file.setStrings(comment: comment, software: AudioFileWriter.software)
        self.channelCount = channelCount
        self.format = format
    }

    /// Appends interleaved 16-bit frames.
    public func write(_ interleaved: UnsafeBufferPointer<Int16>) throws(ShadesError) { try file.write(interleaved: interleaved) }

    /// Appends interleaved Float frames (stored as s24 or f32; libsndfile converts).
    public func write(_ interleaved: UnsafeBufferPointer<Float>) throws(ShadesError) { try file.write(interleaved: interleaved) }

    /// Finishes the header (the file itself stays open for ``AtomicFile``).
    public func close() throws(ShadesError) { try file.close() }
}

/// Writes whole buffers to WAV or FLAC through libsndfile, atomically.
public enum AudioFileWriter {
    /// Software tag stored in every file.
    public static let software = "shades \(ShadesVersion.string)"

    /// Writes `buffer`'s channels, each multiplied by its gain, to `path`.
    ///
    /// - Parameters:
    ///   - gains: linear gain per channel (the caller has checked that nothing clips).
    ///   - ditherKey: TPDF dither stream for 16-bit output (channel c uses `ditherKey &+ c`).
    ///   - comment: stored in the file's comment tag (the generating parameters).
    public static func write(_ buffer: AudioBuffer, sampleRate: Int, gains: [Float], to path: String,
                             format: AudioFileFormat, ditherKey: UInt64, comment: String?) throws(ShadesError) {
        precondition(gains.count == buffer.channelCount)
        let channelCount = buffer.channelCount
        let frameCount = buffer.frameCapacity
        try AtomicFile.write(to: path) { (temporary: AtomicFile.Temporary) throws(ShadesError) in
            let output = try AudioFileOutput(file: temporary, sampleRate: sampleRate, channelCount: channelCount,
                                             format: format, frameCount: frameCount, comment: comment)
            let chunk = 1 << 16
            var quantizers = (0..<channelCount).map { SignalQuantizer(ditherKey: ditherKey &+ UInt64($0)) }
            let planes16 = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * channelCount)
            let planesFloat = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channelCount)
            let interleaved16 = UnsafeMutablePointer<Int16>.allocate(capacity: chunk * channelCount)
            let interleavedFloat = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channelCount)
            defer { planes16.deallocate(); planesFloat.deallocate(); interleaved16.deallocate(); interleavedFloat.deallocate() }
            for start in stride(from: 0, to: frameCount, by: chunk) {
                let n = min(chunk, frameCount - start)
                for c in 0..<channelCount {
                    buffer.withChannel(c) { channel in
                        let samples = UnsafeBufferPointer(rebasing: channel[start..<start + n])
                        if format.sampleFormat == .s16 {
                            quantizers[c].quantize16(samples, gain: gains[c], into: UnsafeMutableBufferPointer(start: planes16 + c * chunk, count: n))
                        } else {
                            SignalQuantizer.scale(samples, gain: gains[c], into: UnsafeMutableBufferPointer(start: planesFloat + c * chunk, count: n))
                        }
                    }
                }
                if format.sampleFormat == .s16 {
                    Interleave.frames((0..<channelCount).map { UnsafePointer(planes16 + $0 * chunk) }, frames: n, into: interleaved16)
                    try output.write(UnsafeBufferPointer(start: interleaved16, count: n * channelCount))
                } else {
                    Interleave.frames((0..<channelCount).map { UnsafePointer(planesFloat + $0 * chunk) }, frames: n, into: interleavedFloat)
                    try output.write(UnsafeBufferPointer(start: interleavedFloat, count: n * channelCount))
                }
            }
            try output.close()
        }
    }
}

/// The library version, stored in files and manifests.
public enum ShadesVersion {
    public static let string = "0.1.0"
}
