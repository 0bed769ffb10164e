import ShadesDSP
import ShadesRender

/// Reads a ``StudyProtocol`` from its JSON (Presets/studies/README.md); every error names its key at its
/// line and column. Each sound is checked as a sound description with a probe frequency in place of
/// `"{tinnitusHz}"`, so a protocol that cannot make any patient's sound is refused before a cohort is read.
public enum StudyProtocolReader {
    static let keys = ["name", "seed", "calibration", "ceilingDBSPL", "rate", "format", "sampleFormat", "allocation", "arms"]
    static let armKeys = ["name", "sounds", "shamOf"]
    static let soundKeys = ["name", "sound", "durationSeconds", "loop", "level"]
    /// The frequency put in for `"{tinnitusHz}"` when a protocol is checked, Hz.
    static let probeFrequencyHz = 1000.0

    /// The protocol in `bytes`, read from `path` (its calibration is resolved against the same folder).
    public static func read(json bytes: [UInt8], path: String) throws(ShadesError) -> StudyProtocol {
        var scanner = JSONScanner(bytes: bytes)
        let tree: JSONValue
        do { tree = try scanner.document() } catch { throw ShadesError(path: path, at: error.location, error.message) }
        let reader = JSONTreeReader(file: path)
        let o = try reader.object(tree, path: "", what: "a study protocol", keys: keys)

        let name = try o.string("name", required: true)!
        guard PatientTable.isCode(name) else { throw reader.error(o.location(of: "name"), "name '\(name)' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')") }
        guard let seedText = o["seed"], case .number(_, let text) = seedText.kind, let seed = UInt64(text) else {
            throw o["seed"] == nil ? o.missing("seed") : reader.error(o["seed"]?.location, "'seed' must be a whole number 0 … 2^64−1")
        }
        let calibration = try o.string("calibration", required: true)!
        guard !calibration.isEmpty else { throw reader.error(o["calibration"]?.location, "'calibration' is empty (allowed: the calibration file's path)") }
        guard let ceiling = try o.number("ceilingDBSPL") else { throw o.missing("ceilingDBSPL", because: "the safety ceiling, dB SPL") }
        guard LevelResolver.allowedCeilingDBSPL.contains(ceiling) else {
            throw reader.error(o["ceilingDBSPL"]?.location, "ceilingDBSPL \(formatNumber(ceiling)) dB SPL is out of range (allowed: \(formatNumber(LevelResolver.allowedCeilingDBSPL.lowerBound)) … \(formatNumber(LevelResolver.allowedCeilingDBSPL.upperBound)) dB SPL)")
        }
        let rate = try o.number("rate", form: .hertz) ?? 48_000
        do { try validateSampleRate(rate) } catch { throw reader.error(o["rate"]?.location, error.message) }
        let format = try o.choice("format", ["wav", "flac"]) ?? "flac"
        let sampleFormat = try o.choice("sampleFormat", ["s16", "s24", "f32"]) ?? "s24"
        if format == "flac" && sampleFormat == "f32" {
            throw reader.error(o["sampleFormat"]?.location, "sampleFormat f32 cannot be written to FLAC (allowed: s16, s24; or format wav)")
        }
        var multiples = [1, 2]
        if let allocation = o["allocation"] {
            let a = try reader.object(allocation, path: "allocation", what: "the allocation", keys: ["blockMultiples"])
            let values = try a.numbers("blockMultiples") ?? multiples.map(Double.init)
            guard !values.isEmpty, values.allSatisfy({ $0 == $0.rounded() && (1...4).contains($0) }) else {
                throw reader.error(a["blockMultiples"]?.location ?? allocation.location,
                                   "blockMultiples must be whole numbers 1 … 4 (a block holds that many of each arm)")
            }
            multiples = values.map { Int($0) }
        }

        var arms: [StudyProtocol.Arm] = []
        let armValues = try o.array("arms", required: true)
        guard !armValues.isEmpty else { throw reader.error(o["arms"]?.location, "'arms' is empty (allowed: one or more arms)") }
        for (index, value) in armValues.enumerated() {
            arms.append(try arm(value, path: "arms[\(index)]", reader: reader, known: arms.map(\.name)))
        }
        for (index, arm) in arms.enumerated() {
            guard let twin = arm.shamOf else { continue }
            let location = reader.location(of: "arms[\(index)].shamOf")
            guard let active = arms.first(where: { $0.name == twin }) else {
                throw reader.error(location, "shamOf '\(twin)' is not an arm" + suggestion(for: twin, among: arms.map(\.name), noun: "arms"))
            }
            guard active.shamOf == nil else { throw reader.error(location, "shamOf '\(twin)' is itself a sham (allowed: an arm with sounds)") }
        }
        return StudyProtocol(path: path, name: name, seed: seed, calibrationPath: resolved(calibration, against: path), ceilingDBSPL: ceiling,
                             rate: rate, format: format, sampleFormat: sampleFormat, blockMultiples: multiples, arms: arms)
    }

    private static func arm(_ value: JSONValue, path: String, reader: JSONTreeReader, known: [String]) throws(ShadesError) -> StudyProtocol.Arm {
        let o = try reader.object(value, path: path, what: "an arm", keys: armKeys)
        let name = try o.string("name", required: true)!
        guard PatientTable.isCode(name) else { throw reader.error(o.location(of: "name"), "arm name '\(name)' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')") }
        guard !known.contains(name) else { throw reader.error(o.location(of: "name"), "arm name '\(name)' is repeated") }
        let shamOf = try o.string("shamOf")
        let soundValues = try o.array("sounds", required: false)
        switch (shamOf, soundValues.isEmpty) {
        case (.some, false): throw reader.error(o.location(of: "sounds"), "a sham arm has no 'sounds' of its own (they are its twin's shams)")
        case (nil, true): throw o.missing("sounds", because: "or 'shamOf' for a sham arm")
        default: break
        }
        var sounds: [StudySound] = []
        for (index, item) in soundValues.enumerated() {
            let sound = try studySound(item, path: o.path(of: "sounds") + "[\(index)]", reader: reader)
            if sounds.contains(where: { $0.name == sound.name }) {
                throw reader.error(reader.location(of: o.path(of: "sounds") + "[\(index)].name"), "sound name '\(sound.name)' is repeated in arm \(name)")
            }
            sounds.append(sound)
        }
        return StudyProtocol.Arm(name: name, sounds: sounds, shamOf: shamOf)
    }

    private static func studySound(_ value: JSONValue, path: String, reader: JSONTreeReader) throws(ShadesError) -> StudySound {
        let o = try reader.object(value, path: path, what: "a study sound", keys: soundKeys)
        let name = try o.string("name", required: true)!
        guard PatientTable.isCode(name) else { throw reader.error(o.location(of: "name"), "sound name '\(name)' is not a code (allowed: 1 … 64 letters, digits, '-' and '_')") }
        guard let template = o["sound"] else { throw o.missing("sound") }
        let levelText = try o.string("level", required: true)!
        let level: PatientLevel
        do { level = try PatientLevel(levelText) } catch { throw reader.error(o["level"]?.location, error.message) }
        var sound = StudySound(name: name, template: template, path: o.path(of: "sound"), durationSeconds: try o.number("durationSeconds"),
                               loop: try o.bool("loop") ?? false, level: level)
        // The description as a patient's would be, with a probe frequency and song.
        let probe = template.replacing(string: StudyPlaceholder.tinnitusHz, with: .number(probeFrequencyHz, "1000"))
            .replacing(string: StudyPlaceholder.music, with: .string("song.flac"))
        _ = try SoundReader(reader: reader).sound(probe, path: sound.path)
        if sound.isMusic {
            guard sound.durationSeconds == nil else {
                throw reader.error(o.location(of: "durationSeconds"), "a song plays to its end: 'durationSeconds' does not apply to \(StudyPlaceholder.music)")
            }
            guard !sound.loop else { throw reader.error(o.location(of: "loop"), "a song does not loop (music does not repeat seamlessly)") }
        } else {
            guard let seconds = sound.durationSeconds else { throw o.missing("durationSeconds") }
            do { try Parameter.duration.check(seconds) } catch { throw reader.error(o["durationSeconds"]?.location, error.message) }
            sound.durationSeconds = seconds
        }
        return sound
    }

    /// `file` relative to the folder of `path` (absolute paths as they are).
    static func resolved(_ file: String, against path: String) -> String {
        guard !file.hasPrefix("/"), let slash = path.lastIndex(of: "/") else { return file }
        return String(path[..<slash]) + "/" + file
    }
}
