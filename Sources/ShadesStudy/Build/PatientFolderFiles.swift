#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesRender

/// `manifest.json` of a patient's folder: what the patient's app reads. Blinded: every patient of every arm
/// has the same keys, the sounds named by neutral codes, no recipe, level, frequency or arm.
public struct PatientManifest: Sendable, Codable, Equatable {
    public static let fileName = "manifest.json"

    public var study: String
    public var patient: String
    /// SHA-256 of the patient's plan line (``StudyPlan/PatientPlan/digest``): a changed plan is rebuilt.
    public var plan: String
    public var sounds: [Entry]

    public init(study: String, patient: String, plan: String, sounds: [Entry]) {
        (self.study, self.patient, self.plan, self.sounds) = (study, patient, plan, sounds)
    }

    /// One file of the folder.
    public struct Entry: Sendable, Codable, Equatable {
        /// The neutral code, and the file's name (`CODE.flac`).
        public var code: String
        public var file: String
        /// Whether the app plays it as a seamless loop (the same for an arm and its sham).
        public var loop: Bool
        /// The file's size, bytes, and SHA-256.
        public var bytes: Int
        public var sha256: String
    }

    /// Sorted keys, pretty-printed.
    public var json: [UInt8] { StudyPlan.encoded(self, pretty: true) + [0x0A] }

    /// The manifest of the patient folder `folder`; nil when there is none or it cannot be read.
    static func read(in folder: String) -> PatientManifest? {
        guard let bytes = try? FileSystem.readFile(folder + "/" + fileName, upTo: 16 << 20) else { return nil }
        return try? JSONDecoder().decode(PatientManifest.self, from: Data(bytes))
    }

    /// Whether `folder` holds a patient built from the plan line of SHA-256 `digest`: its manifest names that
    /// line and every file has its recorded size (a file cut short or removed is not built).
    static func isComplete(_ folder: String, plan digest: String) -> Bool {
        guard let manifest = read(in: folder), manifest.plan == digest else { return false }
        return manifest.filesPresent(in: folder)
    }

    /// Whether `folder` holds this manifest's files at their recorded sizes (one `stat` each: milliseconds,
    /// not a read of the audio; `study check` reads and hashes them).
    func filesPresent(in folder: String) -> Bool {
        sounds.allSatisfy { sound in
            guard let info = try? FileSystem.status(folder + "/" + sound.file) else { return false }
            return Int(info.st_size) == sound.bytes
        }
    }
}

/// The unblinding key of one patient (`key/patients/SHARD/ID.json`): each code's arm sound, recipe and levels
/// as built. Written before the patient's folder is put in place.
public struct PatientKey: Sendable, Codable, Equatable {
    public var patient: String
    public var arm: String
    /// The plan line's SHA-256 the folder was built from.
    public var plan: String
    public var sounds: [Entry]

    public struct Entry: Sendable, Codable, Equatable {
        public var code: String
        public var armSound: String
        public var song: String?
        public var sham: Bool
        /// The level asked, and in dB SPL at the ear (a sham's: its twin's).
        public var level: PatientLevel
        public var levelDBSPL: Double
        /// What was rendered (a sham at the RMS that gives its twin's loudness).
        public var request: RenderRequest
        /// Integrated loudness of the written file, LUFS (libebur128).
        public var integratedLUFS: Double
        /// A sham's active twin's integrated loudness at its level, LUFS, measured in memory when built.
        public var twinLUFS: Double?
        public var sha256: String
    }

    public var json: [UInt8] { StudyPlan.encoded(self, pretty: true) + [0x0A] }

    static func read(_ path: String) throws(ShadesError) -> PatientKey {
        let bytes = try FileSystem.readFile(path, upTo: 16 << 20)
        do { return try JSONDecoder().decode(PatientKey.self, from: Data(bytes)) } catch {
            throw .input("\(path) is not a patient's key (write it with shades study build)")
        }
    }
}
