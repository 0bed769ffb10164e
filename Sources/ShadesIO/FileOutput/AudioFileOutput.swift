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

/// What every file Shades writes says of its maker.
public enum AudioFileWriter {
    /// Software tag stored in every file.
    public static let software = "shades \(ShadesVersion.string)"
}

/// The library version, stored in files and manifests.
public enum ShadesVersion {
    public static let string = "0.1.0"
}
