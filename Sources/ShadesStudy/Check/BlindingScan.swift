import ShadesDSP
import ShadesIO
import ShadesRender

/// Finds what would unblind a patient's folder: a word or number of the study's arms in its text (file names,
/// the manifest) or in its files' metadata (every byte of a file but its audio frames).
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

    /// The unblinding words in the metadata of the sound file `path`: every byte before a FLAC's first audio
    /// frame, or every chunk of a WAV but its sound data.
    public static func unblindingWords(inFile path: String, words: Words, patient: StudyPlan.PatientPlan) throws(ShadesError) -> [String] {
        let bytes = try FileSystem.readFile(path, upTo: 1 << 31)
        return unblindingWords(inText: metadata(of: bytes), words: words, patient: patient)
    }

    /// The metadata bytes of a FLAC or WAV file's bytes; all of them for another format.
    static func metadata(of bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: Array("fLaC".utf8)) {
            var position = 4
            while position + 4 <= bytes.count {
                let isLast = bytes[position] & 0x80 != 0
                let length = Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
                position = min(bytes.count, position + 4 + length)
                if isLast { break }
            }
            return Array(bytes[..<position])
        }
        if bytes.starts(with: Array("RIFF".utf8)) || bytes.starts(with: Array("RF64".utf8)) {
            var kept = Array(bytes.prefix(12)), position = 12
            while position + 8 <= bytes.count {
                let id = bytes[position..<position + 4]
                let size = Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16 | Int(bytes[position + 7]) << 24
                let end = min(bytes.count, position + 8 + size + (size & 1))
                kept += id
                if !id.elementsEqual("data".utf8) { kept += bytes[position + 8..<end] }
                position = end
            }
            return kept
        }
        return bytes
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
