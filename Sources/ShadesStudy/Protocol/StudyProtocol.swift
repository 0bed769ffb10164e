import ShadesDSP
import ShadesRender

/// A study's protocol: its arms (each a list of sounds, or the sham of another arm), its seed, its headphone
/// calibration and its safety ceiling. The JSON form is Presets/studies/README.md's; ``StudyProtocolReader``
/// reads it with every error at its line and column.
///
/// A sound of an arm is a sound description (the preset format's `sound`) whose values may name the
/// patient's measurements: `"{tinnitusHz}"` where a number in Hz goes (the patient's tinnitus frequency,
/// per ear where measured), and `"path": "{music}"` for each song in the patient's music folder.
public struct StudyProtocol: Sendable {
    /// The protocol file (errors at a patient's values name their key in it).
    public var path: String
    /// The study's name (a code: letters, digits, `-`, `_`).
    public var name: String
    /// The seed of the allocation and of every sound (a patient's sounds use it with the patient's number).
    public var seed: UInt64
    /// The headphone calibration file, resolved against the protocol's folder.
    public var calibrationPath: String
    /// The highest level any sound may have at the ear, dB SPL.
    public var ceilingDBSPL: Double
    /// The files' rate, Hz; container ("wav", "flac") and sample format ("s16", "s24", "f32").
    public var rate: Double
    public var format: String
    public var sampleFormat: String
    /// Block sizes of the allocation, as multiples of the number of arms (``Allocation``).
    public var blockMultiples: [Int]
    /// The arms, in the protocol's order.
    public var arms: [Arm]

    /// One arm: its sounds, or the arm it is the sham of (its sounds are then those sounds' shams).
    public struct Arm: Sendable {
        public var name: String
        public var sounds: [StudySound]
        /// The arm this one is the sham of; its ``sounds`` are empty.
        public var shamOf: String?
    }

    /// The arms' names, in order.
    public var armNames: [String] { arms.map(\.name) }
}

/// A sound of an arm, before a patient's measurements are put in.
public struct StudySound: Sendable {
    /// Its code within the arm (never shown to the patient: a patient's files are named by neutral codes).
    public var name: String
    /// The sound description with its placeholders (`"{tinnitusHz}"`, `"{music}"`), as written.
    package var template: JSONValue
    /// The key path of `template` in the protocol file (for errors at a patient's values).
    package var path: String
    /// Length, seconds, or nil for a music file played to its end.
    public var durationSeconds: Double?
    /// Whether the file is a seamless loop.
    public var loop: Bool
    /// The level asked (e.g. "20 dB SL", "MML+6", "60 dB SPL", "-23 LUFS").
    public var level: PatientLevel

    /// Whether the sound plays each song of the patient's music folder.
    public var isMusic: Bool { template.contains(string: StudyPlaceholder.music) }
}

/// The placeholders a study sound may hold in place of a value.
public enum StudyPlaceholder {
    /// The patient's tinnitus frequency, Hz (per ear where measured).
    public static let tinnitusHz = "{tinnitusHz}"
    /// Each song of the patient's music folder (as a file source's path).
    public static let music = "{music}"
}

extension JSONValue {
    /// Whether any string in the value is `text`.
    func contains(string text: String) -> Bool {
        switch kind {
        case .string(let s): s == text
        case .object(let members): members.contains { $0.value.contains(string: text) }
        case .array(let items): items.contains { $0.contains(string: text) }
        case .number, .bool, .null: false
        }
    }

    /// The value with every string `text` replaced by `replacement` (keeping each value's location).
    func replacing(string text: String, with replacement: JSONValue.Kind) -> JSONValue {
        var copy = self
        switch kind {
        case .string(let s) where s == text: copy.kind = replacement
        case .object(let members):
            copy.kind = .object(members.map { var m = $0; m.value = $0.value.replacing(string: text, with: replacement); return m })
        case .array(let items): copy.kind = .array(items.map { $0.replacing(string: text, with: replacement) })
        default: break
        }
        return copy
    }
}
