import ShadesPlatform

/// Catches a truncated WAV or AIFF, which libsndfile reads without complaint as a shorter file (it trusts
/// the file's length over the header's): the sound data chunk announces more bytes than the file holds.
/// Streamed headers (size 0 or 0xFFFFFFFF) and RF64 are not checked.
enum ContainerCheck {
    /// A description of the truncation, or nil if none is found.
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
