import CSndFile
import ShadesDSP
import ShadesPlatform

/// The one place that calls libsndfile: opening, reading, writing and closing sound files.
final class SoundFile {
    private let handle: OpaquePointer
    let sampleRate: Int
    let channelCount: Int
    /// Frames libsndfile announces: exact for PCM containers and FLAC, the decoder's estimate for MPEG and
    /// Ogg (see ``lengthIsExact``); `Int.max` (SF_COUNT_MAX) when it found no end, e.g. a cut-off Ogg stream.
    let frameCount: Int
    /// False for MPEG (mpg123's estimate: a Xing/LAME header's count, else the file's size over its first
    /// frame's) and Ogg (Vorbis, Opus: the last page's position), whose decoded length may differ.
    let lengthIsExact: Bool
    /// Frames read so far.
    private(set) var position = 0
    /// True once libsndfile stopped a read at ``frameCount`` while the decoder still had frames: it never
    /// reads past the count it announced, and an MPEG estimate can fall far short (a variable-bit-rate MP3
    /// without a Xing/LAME header: 43,781 of 133,632 frames here).
    private(set) var stoppedAtAnnouncedLength = false
    /// True for uncompressed 16-bit PCM (WAV, RF64, W64, AIFF, CAF): ``read(interleaved:)`` into Int16 then
    /// reads the file's bytes in one call, not through libsndfile's 8 KB conversion buffer.
    let isPlainPCM16: Bool
    private let path: String
    private var isOpen = true

    private init(handle: OpaquePointer, info: SF_INFO, path: String) {
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = Int(info.frames)
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        lengthIsExact = major != Int32(SF_FORMAT_MPEG) && major != Int32(SF_FORMAT_OGG)
        let plainContainers = [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64, SF_FORMAT_W64, SF_FORMAT_AIFF, SF_FORMAT_CAF]
        isPlainPCM16 = info.format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_PCM_16)
            && plainContainers.contains { Int32($0) == info.format & Int32(SF_FORMAT_TYPEMASK) }
        self.path = path
    }

    deinit { if isOpen { sf_close(handle) } }

    /// Starts a sound file in `file`, a file being written by ``AtomicFile`` (`sf_open_fd`, SFM_WRITE; the
    /// descriptor stays open: AtomicFile syncs and closes it). Starts from an empty file, so a second
    /// call on the same `file` replaces the first one's bytes.
    /// `startsWriteback`: ask the disk to write every few MB (for a file about to be synced; not for scratch).
    static func create(file: AtomicFile.Temporary, sampleRate: Int, channelCount: Int, format: AudioFileFormat,
                       frameCount: Int, startsWriteback: Bool = true) throws(ShadesError) -> SoundFile {
        let bytesPerSample = format.sampleFormat == .s16 ? 2 : (format.sampleFormat == .s24 ? 3 : 4)
        let sampleBytes = frameCount * channelCount * bytesPerSample
        let needsRF64 = format.container == .wav && sampleBytes > 0xFFFF_0000
        let major: Int32
        switch format.container {
        case .wav: major = Int32(needsRF64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        }
        let minor: Int32
        switch format.sampleFormat {
        case .s16: minor = Int32(SF_FORMAT_PCM_16)
        case .s24: minor = Int32(SF_FORMAT_PCM_24)
        case .f32: minor = Int32(SF_FORMAT_FLOAT)
        }
        var info = SF_INFO(frames: 0, samplerate: Int32(sampleRate), channels: Int32(channelCount),
                           format: major | minor, sections: 0, seekable: 0)
        // A FLAC file needs less than its samples' bytes: its disk-full message says "up to".
        let needed = (bytes: sampleBytes + 4_096, upTo: format.container == .flac)
        do throws(ShadesError) {
            try FileSystem.truncate(file.descriptor, to: 0)
            try FileSystem.seek(file.descriptor, to: 0)
            // An uncompressed file's blocks are reserved first: the writes then only copy (10-minute stereo
            // 16-bit: 11 ms instead of 20 here), and a disk too small for the file fails here, before the work.
            if format.container == .wav { try FileSystem.reserve(file.descriptor, bytes: needed.bytes) }
        } catch {
            throw error.isNoSpace ? AtomicFile.noSpace(writing: file.path, neededBytes: needed.bytes, upTo: needed.upTo)
                                  : .runtime("cannot write \(file.path): \(error.reason)")
        }
        guard let handle = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) else {
            throw .runtime("cannot write \(file.path): \(String(cString: sf_strerror(nil)))")
        }
        let soundFile = SoundFile(handle: handle, info: info, path: file.path)
        soundFile.neededBytes = needed
        if startsWriteback { soundFile.writeback = (file.descriptor, bytesPerSample * channelCount, 0) }
        if format.sampleFormat == .f32 {
            // No PEAK chunk: its timestamp would make identical renders differ byte for byte.
            sf_command(handle, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        }
        return soundFile
    }

    /// Opens `path` for reading (`sf_open`, SFM_READ). What is not a readable, non-empty regular file is
    /// refused before anything opens it (``CommandPaths/checkReadableFile(_:)``: a FIFO would wait for a
    /// writer for ever), and so is what libsndfile would give libmpg123 that is no MP3 (libmpg123 would
    /// print on standard error: ``ContainerCheck/notMPEG(path:)``).
    static func open(path: String) throws(ShadesError) -> SoundFile {
        try CommandPaths.checkReadableFile(path)
        if let problem = ContainerCheck.notMPEG(path: path) { throw .input("\(path) \(problem)") }
        if let defect = ContainerCheck.malformedListChunk(path: path) {
            throw .input("cannot read \(path): a malformed WAV header (\(defect))")
        }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw .input("cannot read \(path): \(String(cString: sf_strerror(nil)))")
        }
        return SoundFile(handle: handle, info: info, path: path)
    }

    /// Sets a string tag (`sf_set_string`): comment and software.
    func setStrings(comment: String?, software: String) {
        if let comment { sf_set_string(handle, Int32(SF_STR_COMMENT), comment) }
        sf_set_string(handle, Int32(SF_STR_SOFTWARE), software)
    }

    /// The comment tag (`sf_get_string`), if any.
    var comment: String? {
        sf_get_string(handle, Int32(SF_STR_COMMENT)).map { String(cString: $0) }
    }

    /// The container's name as libsndfile gives it, e.g. "WAV (Microsoft)" (`SFC_GET_FORMAT_INFO`).
    var containerName: String {
        var info = SF_FORMAT_INFO()
        info.format = formatCode & Int32(SF_FORMAT_TYPEMASK)
        guard sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
              let name = info.name else { return "unknown" }
        return String(cString: name)
    }

    /// Major format name, e.g. "WAV" or "FLAC", and the sample format.
    var formatCode: Int32 {
        var info = SF_INFO()
        sf_command(handle, Int32(SFC_GET_CURRENT_SF_INFO), &info, Int32(MemoryLayout<SF_INFO>.size))
        return info.format
    }

    func write(interleaved samples: UnsafeBufferPointer<Int16>) throws(ShadesError) {
        let frames = samples.count / channelCount
        guard sf_writef_short(handle, samples.baseAddress, sf_count_t(frames)) == frames else { throw writeError(errno) }
        wrote(frames: frames)
    }

    func write(interleaved samples: UnsafeBufferPointer<Float>) throws(ShadesError) {
        let frames = samples.count / channelCount
        guard sf_writef_float(handle, samples.baseAddress, sf_count_t(frames)) == frames else { throw writeError(errno) }
        wrote(frames: frames)
    }

    /// The descriptor written to, bytes per frame and bytes written since the disk last got them.
    private var writeback: (descriptor: Int32, frameBytes: Int, pending: Int)?
    /// Bytes after which the disk is asked to start writing (the final fsync then waits for less).
    private static let writebackBytes = 8 << 20

    /// Starts writeback every ``writebackBytes`` so the final `fsync` of a long file waits for its last
    /// part only.
    private func wrote(frames: Int) {
        guard var state = writeback else { return }
        state.pending += frames * state.frameBytes
        if state.pending >= Self.writebackBytes {
            FileSystem.startWriteback(state.descriptor)
            state.pending = 0
        }
        writeback = state
    }

    /// Reads up to `samples.count / channelCount` frames (`sf_readf_float`); returns the frames read, 0 at
    /// the end.
    ///
    /// For an estimated length it also finds where libsndfile, not the decoder, ended the stream (sets
    /// ``stoppedAtAnnouncedLength``): `sf_readf_float` cuts a read that would pass the announced count and
    /// zero-fills the rest of the request, while a decoder that ends leaves the rest untouched. So the last
    /// sample asked for is set to 1 first, and no read is asked to end exactly at the announced count (it
    /// would then stop without zero-filling): such a read is one frame shorter.
    func read(interleaved samples: UnsafeMutableBufferPointer<Float>) -> Int {
        var frames = samples.count / channelCount
        guard !lengthIsExact, frames > 0 else { return advance(Int(sf_readf_float(handle, samples.baseAddress, sf_count_t(frames)))) }
        let left = frameCount - position
        if frames == left && frames > 1 { frames -= 1 }
        let last = frames * channelCount - 1
        samples[last] = 1
        let got = Int(sf_readf_float(handle, samples.baseAddress, sf_count_t(frames)))
        if left > 0 && frames > left && got == left && samples[last] == 0 { stoppedAtAnnouncedLength = true }
        return advance(got)
    }

    /// Reads up to `samples.count / channelCount` frames of 16-bit integers (`sf_readf_short`; exact lengths
    /// only); returns the frames read.
    func read(interleaved samples: UnsafeMutableBufferPointer<Int16>) -> Int {
        precondition(lengthIsExact, "16-bit reads are for files of exact length")
        return advance(Int(sf_readf_short(handle, samples.baseAddress, sf_count_t(samples.count / channelCount))))
    }

    private func advance(_ frames: Int) -> Int {
        position += max(0, frames)
        return frames
    }

    /// Finishes the header and closes (`sf_close`); reports a failure to finish the file.
    func close() throws(ShadesError) {
        guard isOpen else { return }
        let pending = sf_error(handle)
        let error = pending == 0 ? nil : writeError(0)
        isOpen = false
        let code = sf_close(handle)
        let closeErrno = errno
        if let error { throw error }
        guard code == 0 else {
            let message = String(cString: sf_error_number(code))
            if isNoSpace(closeErrno, libsndfileMessage: message) { throw noSpaceError() }
            throw .runtime("cannot finish \(path): \(message)")
        }
    }

    /// Bytes the file needs, for the disk-full message (set by ``create(file:sampleRate:channelCount:format:frameCount:)``).
    private var neededBytes = (bytes: 0, upTo: false)

    /// The error for a failed write; `code` is the errno read right after the libsndfile call.
    private func writeError(_ code: Int32) -> ShadesError {
        let message = String(cString: sf_strerror(handle))
        return isNoSpace(code, libsndfileMessage: message) ? noSpaceError() : .runtime("cannot write \(path): \(message)")
    }

    /// Whether a write ran out of disk: by errno, or by libsndfile's text ("System error : No space left on
    /// device.") when errno was overwritten.
    private func isNoSpace(_ code: Int32, libsndfileMessage message: String) -> Bool {
        code == ENOSPC || code == EDQUOT || message.contains(String(cString: strerror(ENOSPC)))
    }

    private func noSpaceError() -> ShadesError {
        AtomicFile.noSpace(writing: path, neededBytes: neededBytes.bytes, upTo: neededBytes.upTo)
    }
}
