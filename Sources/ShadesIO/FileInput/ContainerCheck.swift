import ShadesPlatform

/// What Shades checks in a WAV or AIFF container itself, around libsndfile:
/// - before opening, a RIFF LIST chunk whose sub-chunks libsndfile 1.2 would parse forever;
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
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        guard fseeko(file, 0, SEEK_END) == 0 else { return nil }
        let size = Int64(ftello(file))
        var header = [UInt8](repeating: 0, count: 8)
        func read(at offset: Int64) -> (id: String, length: Int64)? {
            guard offset + 8 <= size, fseeko(file, off_t(offset), SEEK_SET) == 0, fread(&header, 1, 8, file) == 8 else { return nil }
            let length = Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24
            return (String(decoding: header[0..<4], as: UTF8.self), length)
        }
        guard let riff = read(at: 0), ["RIFF", "RF64", "BW64"].contains(riff.id) else { return nil }
        var offset: Int64 = 12
        while let chunk = read(at: offset) {
            if chunk.id == "LIST" {
                // The list type (INFO, adtl …), then sub-chunks up to the LIST's end or the file's.
                let end = min(offset + 8 + chunk.length, size)
                var sub = offset + 12
                while sub + 8 <= end, let member = read(at: sub) {
                    if sub + 8 + member.length > size {
                        return "LIST chunk at byte \(offset): sub-chunk of \(member.length) bytes at byte \(sub), the file ends at \(size)"
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
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        guard fseeko(file, 0, SEEK_END) == 0 else { return nil }
        let size = Int64(ftello(file))
        var header = [UInt8](repeating: 0, count: 12)
        guard fseeko(file, 0, SEEK_SET) == 0, fread(&header, 1, 12, file) == 12 else { return nil }
        let magic = String(decoding: header[0..<4], as: UTF8.self), kind = String(decoding: header[8..<12], as: UTF8.self)
        let bigEndian: Bool, dataID: String
        switch (magic, kind) {
        case ("RIFF", "WAVE"): (bigEndian, dataID) = (false, "data")
        case ("FORM", "AIFF"), ("FORM", "AIFC"): (bigEndian, dataID) = (true, "SSND")
        default: return nil
        }
        var offset: Int64 = 12
        var chunk = [UInt8](repeating: 0, count: 8)
        while offset + 8 <= size {
            guard fseeko(file, off_t(offset), SEEK_SET) == 0, fread(&chunk, 1, 8, file) == 8 else { return nil }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let bytes = chunk[4..<8].map(UInt32.init)
            let length = bigEndian ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
                                   : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
            if id == dataID {
                guard length != 0, length != 0xFFFF_FFFF else { return nil }
                let available = size - offset - 8
                return Int64(length) > available ? "\(id) chunk of \(length) bytes, \(available) present" : nil
            }
            offset += 8 + Int64(length) + Int64(length & 1)
        }
        return nil
    }
}
