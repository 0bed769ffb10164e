#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
    /// frame, or every chunk of a WAV but its sound data (read block by block; the audio is skipped, not read).
    public static func unblindingWords(inFile path: String, words: Words, patient: StudyPlan.PatientPlan) throws(ShadesError) -> [String] {
        try unblindingWords(inText: metadata(ofFile: path), words: words, patient: patient)
    }

    /// The metadata bytes of the FLAC or WAV file `path`; its first megabyte for another format.
    static func metadata(ofFile path: String) throws(ShadesError) -> [UInt8] {
        let descriptor = try FileSystem.open(path, O_RDONLY)
        defer { FileSystem.close(descriptor) }
        func read(_ count: Int, at offset: Int) throws(ShadesError) -> [UInt8] {
            try FileSystem.seek(descriptor, to: offset)
            return try FileSystem.read(descriptor, upTo: count)
        }
        let head = try read(12, at: 0)
        var kept = head
        if head.starts(with: Array("fLaC".utf8)) {
            var position = 4
            while true {
                let header = try read(4, at: position)
                guard header.count == 4 else { break }
                let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                kept += header[1...] + (try read(length, at: position + 4))
                position += 4 + length
                if header[0] & 0x80 != 0 { break }
            }
            return kept
        }
        guard head.starts(with: Array("RIFF".utf8)) || head.starts(with: Array("RF64".utf8)) else { return try read(1 << 20, at: 0) }
        var position = 12
        while true {
            let header = try read(8, at: position)
            guard header.count == 8 else { break }
            let size = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
            kept += header[0..<4]
            if !header[0..<4].elementsEqual("data".utf8) { kept += try read(size, at: position + 8) }
            position += 8 + size + (size & 1)
        }
        return kept
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
