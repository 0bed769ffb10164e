import ShadesPlatform

/// What Shades checks in a WAV or AIFF container itself, around libsndfile:
/// - before opening, a RIFF LIST chunk whose sub-chunks libsndfile 1.2 would parse for ever;
/// - after opening, a truncated file, which libsndfile reads without complaint as a shorter one.
enum ContainerCheck {
    /// A RIFF/RF64 WAVE file whose LIST chunk holds a sub-chunk announcing more bytes than the file holds
    /// (e.g. "LIST chunk at byte 36: sub-chunk of 4294967295 bytes at byte 48, the file ends at 92"), or nil.
    ///
    /// libsndfile 1.2's `sf_open` spins for ever on some such files (FuzzAudioFile found a 92-byte one;
    /// libsndfile issue 1118 reports the same hang in 1.2.2), so they are refused before it sees them. The
    /// rule is stricter than the hang needs, but no intact file breaks it: a sub-chunk's padding byte is
    /// not counted, so an odd-length string at the very end of the file still passes.
    static func malformedListChunk(path: String) -> String? {
        guard let file = ChunkFile(path: path), let riff = file.header(at: 0), ["RIFF", "RF64", "BW64"].contains(riff.id) else {
            return nil
        }
        var offset: Int64 = 12
        while let chunk = file.header(at: offset) {
            if chunk.id == "LIST" {
                // The list type (INFO, adtl …), then sub-chunks up to the LIST's end or the file's.
                let end = min(offset + 8 + chunk.length, file.size)
                var sub = offset + 12
                while sub + 8 <= end, let member = file.header(at: sub) {
                    if sub + 8 + member.length > file.size {
                        return "LIST chunk at byte \(offset): sub-chunk of \(member.length) bytes at byte \(sub), the file ends at \(file.size)"
                    }
                    sub += 8 + member.length + (member.length & 1)
                }
            }
            // Streamed sizes (0xFFFFFFFF) and RF64's data size run past the end: nothing follows them.
            offset += 8 + chunk.length + (chunk.length & 1)
        }
        return nil
    }

    /// A WAV or AIFF whose sound data chunk announces more bytes than the file holds, described, or nil.
    /// Streamed headers (size 0 or 0xFFFFFFFF) and RF64 are not checked.
    static func truncation(path: String) -> String? {
        guard let file = ChunkFile(path: path), let form = file.header(at: 0), let kind = file.header(at: 8)?.id else { return nil }
        let bigEndian: Bool, dataID: String
        switch (form.id, kind) {
        case ("RIFF", "WAVE"): (bigEndian, dataID) = (false, "data")
        case ("FORM", "AIFF"), ("FORM", "AIFC"): (bigEndian, dataID) = (true, "SSND")
        default: return nil
        }
        var offset: Int64 = 12
        while let chunk = file.header(at: offset, bigEndian: bigEndian) {
            if chunk.id == dataID {
                guard chunk.length != 0, chunk.length != 0xFFFF_FFFF else { return nil }
                let available = file.size - offset - 8
                return chunk.length > available ? "\(chunk.id) chunk of \(chunk.length) bytes, \(available) present" : nil
            }
            offset += 8 + chunk.length + (chunk.length & 1)
        }
        return nil
    }
}

/// A container file read one chunk header at a time.
private final class ChunkFile {
    /// Bytes in the file.
    let size: Int64
    private let file: UnsafeMutablePointer<FILE>

    init?(path: String) {
        guard let file = fopen(path, "rb") else { return nil }
        self.file = file
        guard fseeko(file, 0, SEEK_END) == 0 else { fclose(file); return nil }
        size = Int64(ftello(file))
    }

    deinit { fclose(file) }

    /// The four-character id and the 32-bit length at `offset`, or nil where 8 bytes do not fit.
    func header(at offset: Int64, bigEndian: Bool = false) -> (id: String, length: Int64)? {
        var bytes = [UInt8](repeating: 0, count: 8)
        guard offset + 8 <= size, fseeko(file, off_t(offset), SEEK_SET) == 0, fread(&bytes, 1, 8, file) == 8 else { return nil }
        let sizeBytes = bigEndian ? Array(bytes[4..<8]) : bytes[4..<8].reversed()
        let length = sizeBytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return (String(decoding: bytes[0..<4], as: UTF8.self), length)
    }
}
