import ShadesDSP

/// A sound file being written frame block by frame block (WAV or FLAC through libsndfile), into the
/// file ``AtomicFile/write(to:_:)`` lends, so a failure or a killed process leaves nothing behind.
package final class AudioFileOutput {
    private let file: SoundFile
    package let channelCount: Int
    package let format: AudioFileFormat

    /// Starts a sound file of `frameCount` frames in `file` (the count picks RF64 for WAV files over 4 GiB and
    /// sizes the disk reservation); a second output on the same `file` replaces the first.
    package init(file: AtomicFile.Temporary, sampleRate: Int, channelCount: Int, format: AudioFileFormat, frameCount: Int,
                comment: String?) throws(ShadesError) {
        self.file = try SoundFile.create(file: file, sampleRate: sampleRate, channelCount: channelCount,
                                    format: format, frameCount: frameCount)
        self.file.setStrings(comment: comment, software: AudioFileWriter.software)
        self.channelCount = channelCount
        self.format = format
    }

    /// Appends interleaved 16-bit frames.
    package func write(_ interleaved: UnsafeBufferPointer<Int16>) throws(ShadesError) { try file.write(interleaved: interleaved) }

    /// Appends interleaved Float frames (stored as s24 or f32; libsndfile converts).
    package func write(_ interleaved: UnsafeBufferPointer<Float>) throws(ShadesError) { try file.write(interleaved: interleaved) }

    /// Finishes the header (the file itself stays open for ``AtomicFile``).
    package func close() throws(ShadesError) { try file.close() }
}

/// What every file Shades writes says of its maker.
package enum AudioFileWriter {
    /// Software tag stored in every file.
    package static let software = "shades \(ShadesVersion.string)"
}

/// The library version, stored in files and manifests.
package enum ShadesVersion {
    package static let string = "0.2.0"
}
