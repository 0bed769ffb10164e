#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ShadesDSP
import ShadesIO
import ShadesRender

/// Finds what would unblind a patient's folder: a word or number of the study's arms in its text (file names,
/// the manifest) or in its files' metadata (every text field of a file: tags, comments, chunks that are not audio).
///
/// The text is cut into words at every character that is not a letter or a digit, and each word is compared
/// whole, ignoring case, with the words that tell an arm: every arm's and arm sound's name, "sham" and its
/// synonyms, the songs' names, the sources' names (`ripple`, `pink` …), the level scales and the patient's
/// tinnitus frequencies. Whole words, so a hex digest never matches by chance.
public enum BlindingScan {
    /// The words that would tell an arm, from the whole plan.
    public struct Words: Sendable {
        public private(set) var words: Set<String> = ["sham", "placebo", "active", "arm", "notch", "notched", "lufs", "spl", "dbspl",
                                                      "sl", "hl", "mml", "dbfs", "recipe", "tinnitus", "frequency", "hz", "khz"]

        /// The plan's patients' ids.
        public private(set) var patients = Set<String>()

        public init() {}

        /// Adds the arm, its sounds, songs and sources of `patient`'s plan.
        public mutating func add(_ patient: StudyPlan.PatientPlan) {
            patients.insert(patient.id)
            insertWords(of: patient.arm)
            for sound in patient.sounds {
                insertWords(of: sound.armSound)
                if let song = sound.song { insertWords(of: song) }
                for s in [sound.request.sound] + (sound.twin.map { [$0] } ?? []) {
                    if let generator = s.generator { insertWords(of: generator.kind.name) }
                }
            }
        }

        private mutating func insertWords(of text: String) {
            for word in BlindingScan.words(in: Array(text.utf8)) where !BlindingScan.neutralWords.contains(word) { words.insert(word) }
        }
    }

    /// Words every folder has whatever its arm (the manifest's keys and the files' extension).
    static let neutralWords: Set<String> = ["study", "patient", "plan", "sounds", "code", "file", "loop", "bytes", "sha256", "true", "false",
                                            "flac", "wav", "mp3", "ogg", "music", "song", "sound", "noise"]

    /// The unblinding words in `text` (each once, in order of appearance).
    public static func unblindingWords(inText text: [UInt8], words: Words, patient: StudyPlan.PatientPlan) -> [String] {
        let numbers = Set(tinnitusNumbers(patient.tinnitusHz))
        var seen = Set<String>(), found: [String] = []
        for word in Self.words(in: text) where (words.words.contains(word) || numbers.contains(word)) && seen.insert(word).inserted {
            found.append(word)
        }
        return found
    }

    /// The unblinding words in the metadata of the sound file `path`: its text fields (``metadata(ofFile:)``;
    /// the audio is skipped, not read).
    public static func unblindingWords(inFile path: String, words: Words, patient: StudyPlan.PatientPlan) throws(ShadesError) -> [String] {
        try unblindingWords(inText: metadata(ofFile: path), words: words, patient: patient)
    }

    /// The metadata text of the FLAC or WAV file `path`, each field on a line of its own; its first megabyte for
    /// another format. Only fields that hold text: a FLAC's Vorbis comments and pictures' types and
    /// descriptions, a WAV's chunks but the sound data and the binary ones (`fmt `, `fact`, `PEAK`, `cue `) and
    /// its LIST subchunks. The encoder's name and version (FLAC's vendor string, Shades' software tag) are the
    /// same in every arm and left out: their digits, like the binary fields' random bytes, would match an arm or a
    /// song named "2" by chance.
    static func metadata(ofFile path: String) throws(ShadesError) -> [UInt8] {
        let descriptor = try FileSystem.open(path, O_RDONLY)
        defer { FileSystem.close(descriptor) }
        func read(_ count: Int, at offset: Int) throws(ShadesError) -> [UInt8] {
            try FileSystem.seek(descriptor, to: offset)
            return try FileSystem.read(descriptor, upTo: count)
        }
        let head = try read(12, at: 0)
        if head.starts(with: Array("fLaC".utf8)) {
            var text: [UInt8] = []
            var position = 4
            while true {
                let header = try read(4, at: position)
                guard header.count == 4 else { break }
                let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                switch header[0] & 0x7F {
                case 4: text += vorbisComments(try read(length, at: position + 4))
                case 6: text += pictureText(try read(length, at: position + 4))
                default: break  // STREAMINFO, PADDING, APPLICATION, SEEKTABLE, CUESHEET: binary
                }
                position += 4 + length
                if header[0] & 0x80 != 0 { break }
            }
            return text
        }
        guard head.starts(with: Array("RIFF".utf8)) || head.starts(with: Array("RF64".utf8)) else { return try read(1 << 20, at: 0) }
        var text: [UInt8] = []
        var position = 12
        while true {
            let header = try read(8, at: position)
            guard header.count == 8 else { break }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let size = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
            switch id {
            case "data", "fmt ", "fact", "PEAK", "cue ", "ds64": break
            case "LIST": text += listText(try read(size, at: position + 8))
            default: text += try read(size, at: position + 8) + [0x0A]
            }
            position += 8 + size + (size & 1)
        }
        return text
    }

    /// A little-endian 32-bit count at `offset` of `bytes`; nil past the end.
    private static func uint32LE(_ bytes: [UInt8], _ offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    /// A big-endian 32-bit count at `offset` of `bytes`; nil past the end.
    private static func uint32BE(_ bytes: [UInt8], _ offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// A FLAC VORBIS_COMMENT block's comments (`KEY=value`), a line each, without the vendor string and Shades'
    /// software tag; the whole block when it does not parse (nothing is hidden from the scan).
    static func vorbisComments(_ block: [UInt8]) -> [UInt8] {
        guard let vendor = uint32LE(block, 0), let count = uint32LE(block, 4 + vendor) else { return block }
        var text: [UInt8] = [], offset = 8 + vendor
        for _ in 0..<count {
            guard let length = uint32LE(block, offset), offset + 4 + length <= block.count else { return block }
            let comment = block[(offset + 4)..<(offset + 4 + length)]
            if !isWritersSoftware(comment.drop { $0 != UInt8(ascii: "=") }.dropFirst(), key: comment.prefix { $0 != UInt8(ascii: "=") }) {
                text += comment + [0x0A]
            }
            offset += 4 + length
        }
        return text
    }

    /// A FLAC PICTURE block's MIME type and description, a line each; the whole block when it does not parse.
    static func pictureText(_ block: [UInt8]) -> [UInt8] {
        guard let mime = uint32BE(block, 4), let description = uint32BE(block, 8 + mime),
              12 + mime + description <= block.count else { return block }
        return Array(block[8..<(8 + mime)]) + [0x0A] + block[(12 + mime)..<(12 + mime + description)] + [0x0A]
    }

    /// Whether a tag is the software tag Shades writes ("shades 0.2.0 (libsndfile-1.2.0)", of any version: a
    /// study built by one version is checked by later ones): key `software` (FLAC) or `ISFT` (WAV), its value
    /// "shades " and a version number.
    private static func isWritersSoftware(_ value: ArraySlice<UInt8>, key: ArraySlice<UInt8>) -> Bool {
        let name = String(decoding: key, as: UTF8.self).lowercased()
        let prefix = Array("shades ".utf8)
        guard name == "software" || name == "isft", value.starts(with: prefix) else { return false }
        let version = value.dropFirst(prefix.count)
        return version.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? false
    }

    /// A RIFF LIST chunk's subchunks (INFO tags such as ICMT), a line each, without Shades' ISFT (the software).
    static func listText(_ chunk: [UInt8]) -> [UInt8] {
        guard chunk.count >= 4 else { return chunk }
        var text: [UInt8] = [], offset = 4
        while offset + 8 <= chunk.count, let size = uint32LE(chunk, offset + 4) {
            let id = String(decoding: chunk[offset..<(offset + 4)], as: UTF8.self)
            let end = min(chunk.count, offset + 8 + size)
            let value = chunk[(offset + 8)..<end]
            if !isWritersSoftware(value, key: Array(id.utf8)[...]) { text += value + [0x0A] }
            offset = end + (size & 1)
        }
        return text
    }

    /// The words of `text`: runs of ASCII letters and digits, lowercased.
    static func words(in text: [UInt8]) -> [String] {
        var words: [String] = [], current: [UInt8] = []
        for byte in text + [0] {
            let lower = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            if (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) {
                current.append(lower)
            } else if !current.isEmpty {
                words.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            }
        }
        return words
    }

    /// The patient's tinnitus frequencies as words: "6000", and "6khz" when whole kHz.
    static func tinnitusNumbers(_ text: String) -> [String] {
        words(in: Array(text.utf8)).compactMap { Double($0) }.flatMap { (hertz: Double) -> [String] in
            var forms = [formatNumber(hertz)]
            if hertz >= 1000 { forms.append(formatNumber(hertz / 1000) + "khz") }
            return forms
        }
    }
}
