#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesRender
import ShadesCatalogue
import ShadesIO

/// A study's plan: every patient's arm and sounds, each sound's render request at its resolved level, and the
/// SHA-256 of every input it was made from. `shades study plan` writes it (`STUDY/plan.json`); the same
/// inputs give the same bytes.
public struct StudyPlan: Sendable, Encodable {
    public var study: String
    /// The protocol, the calibration and the patients' CSV.
    public var inputs: [InputFile]
    public var patients: [PatientPlan]

    /// A file a plan was made from: its path as given and its SHA-256.
    public struct InputFile: Sendable, Encodable, Equatable {
        public var path: String
        public var sha256: String

        /// `path` read and hashed; refused when it cannot be read.
        init(_ path: String, what: String) throws(ShadesError) {
            guard let sha = SHA256.hex(ofFile: path) else { throw ShadesError.input("\(what) \(path) cannot be read") }
            (self.path, self.sha256) = (path, sha)
        }
    }

    /// One patient: arm, where it came from, measurements and sounds.
    public struct PatientPlan: Sendable, Encodable {
        public var id: String
        public var site: String
        public var arm: String
        /// The allocation block the arm was drawn in (per site); nil when the CSV gave the arm.
        public var block: Int?
        /// The tinnitus frequency as the CSV gave it ("6000", "left=6000 right=7400").
        public var tinnitusHz: String
        /// The audiogram, the MML and each song.
        public var inputs: [InputFile]
        public var sounds: [PlannedSound]
    }

    /// One sound of a patient's folder.
    public struct PlannedSound: Sendable, Encodable {
        /// Its neutral code: the file's name in the patient's folder (nothing in it tells the arm).
        public var code: String
        /// The arm's sound it is, and the song.
        public var armSound: String
        public var song: String?
        /// The level the protocol asks.
        public var level: PatientLevel
        /// True for a sham: rendered at the loudness its active twin has at ``request``'s level (measured when
        /// the folder is built).
        public var sham: Bool
        /// The level in dB SPL at the ear (a sham's: its twin's).
        public var levelDBSPL: Double
        /// What is rendered: the sound, its length, rate, layout, seed, loop and level policy.
        public var request: RenderRequest
    }

    private enum CodingKeys: String, CodingKey { case study, inputs, patients }

    /// The plan's JSON: sorted keys, pretty-printed, the same bytes for the same inputs.
    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        return [UInt8](try! encoder.encode(self)) + [0x0A]
    }
}

extension StudyPlan {
    /// Plans the study of `studyProtocol` for the patients in the CSV at `patientsPath`: reads every input,
    /// allocates the patients without an arm, resolves every sound and level. Every offending patient is
    /// refused in one line each, before anything is written.
    public static func make(_ studyProtocol: StudyProtocol, patientsPath: String) throws(ShadesError) -> (plan: StudyPlan, allocation: Allocation) {
        let p = studyProtocol
        let inputs = [try InputFile(p.path, what: "protocol"), try InputFile(p.calibrationPath, what: "calibration"),
                      try InputFile(patientsPath, what: "patients' CSV")]
        let calibration = try HeadphoneCalibration.read(p.calibrationPath)
        let format = SampleFormat(rawValue: p.sampleFormat) ?? .s24
        let resolver = try LevelResolver(calibration: calibration, ceilingDBSPL: p.ceilingDBSPL, sampleFormat: format)
        let csv: String
        do throws(ShadesError) { csv = String(decoding: try FileSystem.readFile(patientsPath, upTo: 64 << 20), as: UTF8.self) } catch {
            throw error.within("patients' CSV")
        }
        let table = try PatientTable(csv: csv, path: patientsPath, arms: p.armNames)
        let allocation = Allocation(patients: table.patients, arms: p.armNames, seed: p.seed, blockMultiples: p.blockMultiples)
        var patients: [PatientPlan] = []
        var problems: [String] = []
        for (patient, entry) in zip(table.patients, allocation.entries) {
            do throws(ShadesError) {
                patients.append(try plan(patient, arm: entry.arm, block: entry.block, studyProtocol: p, resolver: resolver))
            } catch {
                let text = error.description
                problems.append(text.hasPrefix("patient \(patient.id)") ? text : "patient \(patient.id): \(text)")
            }
        }
        guard problems.isEmpty else { throw ShadesError.input(problems.joined(separator: "\n")) }
        return (StudyPlan(study: p.name, inputs: inputs, patients: patients), allocation)
    }

    private static func plan(_ patient: Patient, arm: String, block: Int?, studyProtocol p: StudyProtocol,
                             resolver: LevelResolver) throws(ShadesError) -> PatientPlan {
        let measurements = try PatientMeasurements.read(id: patient.id, audiogramPath: patient.audiogramPath, mmlPath: patient.mmlPath)
        var inputs: [InputFile] = []
        if let a = patient.audiogramPath { inputs.append(try InputFile(a, what: "audiogram")) }
        if let m = patient.mmlPath { inputs.append(try InputFile(m, what: "MML")) }
        let seed = p.seed ^ Allocation.stableKey(patient.id)
        var sounds: [PlannedSound] = []
        for (index, s) in try p.sounds(of: arm, for: patient).enumerated() {
            if let song = s.song, let folder = patient.musicFolder {
                // A song must be a readable sound file now, not when the folder is built.
                do throws(ShadesError) { _ = try AudioFileSource.openInput(path: folder + "/" + song) } catch { throw error.within("song \(song)") }
                inputs.append(try InputFile(folder + "/" + song, what: "song"))
            }
            // The level is the active sound's (a sham's twin's): a sham is rendered at its twin's loudness.
            var request = RenderRequest(sound: s.twin ?? s.sound, durationSeconds: s.durationSeconds, sampleRate: p.rate,
                                        layout: s.sound.channels ?? .stereo, seed: seed &+ UInt64(index), loop: s.loop)
            do throws(ShadesError) { try request.validate() } catch { throw error.within("sound \(s.armSound)") }
            // A loudness level is measured here (a loudness pass), so its dB SPL is checked before anything is written.
            let resolved = try resolver.resolve(s.level, of: request, for: measurements, ears: .both)
            request.level = resolved.policy
            if s.isSham {
                request.sound = s.sound
                do throws(ShadesError) { try request.validate() } catch { throw error.within("sound \(s.armSound) (sham)") }
            }
            sounds.append(PlannedSound(code: neutralCode(seed: p.seed, patient: patient.id, index: index), armSound: s.armSound,
                                       song: s.song, level: s.level, sham: s.isSham, levelDBSPL: resolved.splDB, request: request))
        }
        return PatientPlan(id: patient.id, site: patient.site, arm: arm, block: block, tinnitusHz: patient.tinnitusHz.text,
                           inputs: inputs, sounds: sounds)
    }

    /// A sound's code in a patient's folder: 8 hex digits of the SHA-256 of the study's seed, the patient and
    /// the sound's place, so it names nothing of the arm.
    static func neutralCode(seed: UInt64, patient: String, index: Int) -> String {
        String(SHA256.hex(of: Array("\(seed)/\(patient)/\(index)".utf8)).prefix(8))
    }
}
