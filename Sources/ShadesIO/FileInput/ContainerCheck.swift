import ShadesPlatform

/// What Shades checks in a container itself, around libsndfile:
/// - before opening, a RIFF LIST chunk whose sub-chunks libsndfile 1.2 would parse for ever;
/// - before opening, a file libsndfile would hand to libmpg123 that does not begin as MPEG audio;
/// - after opening, a truncated file, which libsndfile reads without complaint as a shorter one.
enum ContainerCheck {
    /// What a file libsndfile would hand to libmpg123 is when it is not MPEG audio ("is not an MP3 file (it
    /// begins with neither an ID3 tag nor an MPEG audio frame)"), or nil (an MP3 as far as its first frames
    /// go, or a file libsndfile reads by its own header).
    ///
    /// libsndfile 1.2 gives libmpg123 every file named `*.mp3` (any case) that has no header it knows, and
    /// every file that begins with an MPEG frame sync, whatever its name; libmpg123 then prints its own
    /// lines on standard error ("Note: Illegal Audio-MPEG-Header 0x00000000 at offset 1246.") and
    /// libsndfile says "File does not exist or is not a regular file (possibly a pipe?)". So such a file
    /// must begin (after any ID3v2 tags) with an MPEG audio frame header followed by a second one where
    /// the first frame ends (how decoders find the stream; a file that ends there passes). `path` is a
    /// regular file (``CommandPaths/checkReadableFile(_:)``).
    static func notMPEG(path: String) -> String? {
        guard let file = ChunkFile(path: path), let head = file.bytes(at: 0, count: 4) else { return nil }
        let namedMP3 = path.split(separator: "/").last?.lowercased().hasSuffix(".mp3") ?? false
        if namedMP3 && otherContainers.contains(where: { head.starts(with: $0.utf8) }) { return nil }
        var offset: Int64 = 0
        while let tag = file.bytes(at: offset, count: 10), tag.starts(with: "ID3".utf8) {
            // A syncsafe size: four 7-bit bytes, the tag's size after its 10-byte header (a footer adds 10).
            let size = tag[6..<10].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
            offset += 10 + size + (tag[5] & 0x10 != 0 ? 10 : 0)
        }
        let startsAsMPEG = offset > 0 || MPEGFrameHeader(file.bytes(at: 0, count: 4)) != nil
        guard namedMP3 || startsAsMPEG else { return nil }
        func refused(_ reason: String) -> String {
            namedMP3 ? "is not an MP3 file (\(reason))" : "is not a sound file (it begins as MPEG audio, but \(reason))"
        }
        guard let first = MPEGFrameHeader(file.bytes(at: offset, count: 4)) else {
            return refused(offset > 0 ? "no MPEG audio frame follows its ID3 tag at byte \(offset)"
                                      : "it begins with neither an ID3 tag nor an MPEG audio frame")
        }
        guard let length = first.bytes else { return nil }  // free format: the next frame cannot be placed
        let next = offset + Int64(length)
        if next + 4 > file.size || MPEGFrameHeader(file.bytes(at: next, count: 4)) != nil { return nil }
        return refused("the MPEG audio frame at byte \(offset) is not followed by another at byte \(next)")
    }

    /// The first bytes of the containers libsndfile recognises by their header (WAV, RF64, Wave64, AIFF,
    /// FLAC, Ogg, CAF, AU, NIST, VOC): a file of one of them named `*.mp3` is read by that header.
    private static let otherContainers = ["RIFF", "RIFX", "RF64", "BW64", "riff", "FORM", "fLaC", "OggS", "caff", ".snd",
                                          "dns.", "NIST", "Crea"]

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
                if let wrapping = wrappingSubChunk(file, listAt: offset, length: chunk.length) { return wrapping }
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

    /// A sub-chunk of the LIST chunk at `offset` whose size wraps libsndfile's count of the bytes it has read,
    /// described, or nil. libsndfile walks a LIST from its list type on: every marker but INFO and adtl is
    /// followed by a 32-bit size, rounded up to even, and the bytes read are counted in 32 bits; a size that
    /// wraps the count (FuzzAudioFile: an unknown list type followed by 0xFFFFFFF7) makes it skip about
    /// 4 GB, which takes it minutes. A marker whose size does not fit in the file is refused too (libsndfile
    /// would read a size past the end); an intact LIST ends where its last sub-chunk ends, so neither happens.
    private static func wrappingSubChunk(_ file: ChunkFile, listAt offset: Int64, length: Int64) -> String? {
        let listLength = min(length, file.size - offset - 8)
        var read: Int64 = 0
        while read < listLength {
            let position = offset + 8 + read
            guard let marker = file.bytes(at: position, count: 4) else { return nil }
            read += 4
            if marker == Array("INFO".utf8) || marker == Array("adtl".utf8) { continue }
            guard let member = file.header(at: position) else {
                return "LIST chunk at byte \(offset): sub-chunk at byte \(position) has no room for its size before the end of the file at \(file.size)"
            }
            read += 4
            let counted = (member.length + (member.length & 1)) & 0xFFFF_FFFF   // libsndfile's UInt32 arithmetic
            if read + counted >= 1 << 32 {
                return "LIST chunk at byte \(offset): sub-chunk of \(member.length) bytes at byte \(position), more than the chunk holds"
            }
            // What libsndfile does next: a sub-chunk past the LIST's end ends the walk, so does one as long as it.
            if read + counted > listLength || counted >= listLength { return nil }
            read += counted
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

/// An MPEG audio (layer I, II or III) frame header, as decoders check it: the 11-bit sync, a version,
/// layer, bit rate and sample rate that exist, and the frame's length in bytes.
private struct MPEGFrameHeader {
    /// Bytes from this header to the next one; nil for a free-format frame (bit rate index 0).
    let bytes: Int?

    /// Bit rates in kbit/s by bit rate index 1 … 14: MPEG-1 layers I, II, III, then MPEG-2/2.5 layer I and
    /// layers II/III (ISO/IEC 11172-3 2.4.2.3, 13818-3 2.5.2.3).
    private static let kilobitsPerSecond: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ]

    /// The header in `bytes` (4 of them), or nil where they are not one.
    init?(_ bytes: [UInt8]?) {
        guard let b = bytes, b.count == 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int(b[1] >> 3 & 3)   // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
        let layer = 4 - Int(b[1] >> 1 & 3)  // 4 (field 0) is reserved
        let rateIndex = Int(b[2] >> 4), sampleRateIndex = Int(b[2] >> 2 & 3)
        guard version != 1, layer != 4, rateIndex != 15, sampleRateIndex != 3 else { return nil }
        guard rateIndex != 0 else { self.bytes = nil; return }
        let sampleRate = [44_100, 48_000, 32_000][sampleRateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let table = version == 3 ? layer - 1 : (layer == 1 ? 3 : 4)
        let bitsPerSecond = Self.kilobitsPerSecond[table][rateIndex - 1] * 1_000
        let padding = Int(b[2] >> 1 & 1)
        switch layer {
        case 1: self.bytes = (12 * bitsPerSecond / sampleRate + padding) * 4
        case 3 where version != 3: self.bytes = 72 * bitsPerSecond / sampleRate + padding
        default: self.bytes = 144 * bitsPerSecond / sampleRate + padding
        }
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

    /// The `count` bytes at `offset`, or nil where they do not fit in the file.
    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        guard offset >= 0, offset + Int64(count) <= size, fseeko(file, off_t(offset), SEEK_SET) == 0,
              fread(&bytes, 1, count, file) == count else { return nil }
        return bytes
    }

    /// The four-character id and the 32-bit length at `offset`, or nil where 8 bytes do not fit.
    func header(at offset: Int64, bigEndian: Bool = false) -> (id: String, length: Int64)? {
        guard let bytes = bytes(at: offset, count: 8) else { return nil }
        let sizeBytes = bigEndian ? Array(bytes[4..<8]) : bytes[4..<8].reversed()
        let length = sizeBytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return (String(decoding: bytes[0..<4], as: UTF8.self), length)
    }
}
