import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender

/// Verifies built patients against the plan: every file present with its hash, its comment tag the digest,
/// its level at the ear (measured from the file through the calibration) within ``levelToleranceDB`` of the
/// planned one, a sham's loudness within ``twinToleranceLU`` of its active twin's, and the folder blinded
/// (``BlindingScan``, and the same shape of metadata in an arm and its sham).
public enum StudyCheck {
    /// Largest difference between a file's level at the ear and the planned one, dB.
    public static let levelToleranceDB = 0.1
    /// Largest difference between a sham's integrated loudness and its twin's, LU.
    public static let twinToleranceLU = 0.1

    /// What a check found.
    public struct Report: Sendable {
        /// One line per difference, naming the patient and the file.
        public var differences: [String] = []
        public var checked = 0
        public var notBuilt: [String] = []
    }

    /// Checks the patients of `study` (all, or `ids`); `progress` is called after each patient.
    public static func check(_ study: StudyFolder, ids: Set<String>? = nil,
                             progress: (String) -> Void = { _ in }) throws(ShadesError) -> Report {
        let header = try StudyPlan.readHeader(study)
        var words = BlindingScan.Words()
        try StudyPlan.forEachPatient(study) { patient in words.add(patient) }
        if let ids, let missing = ids.subtracting(words.patients).sorted().first {
            throw StudyBuild.notInThePlan(missing, study)
        }
        var report = Report()
        // The shape of each patient's metadata, by the arm sounds its arm plays (an arm and its sham play the same).
        var shapes: [[String]: [String: Set<String>]] = [:]
        try StudyPlan.forEachPatient(study) { patient in
            if let ids, !ids.contains(patient.id) { return }
            let folder = study.patientFolder(of: patient.id)
            guard let manifest = PatientManifest.read(in: folder) else {
                report.notBuilt.append(patient.id)
                report.differences.append("patient \(patient.id): not built (no \(folder)/\(PatientManifest.fileName))")
                return
            }
            var found: [String] = []
            let shape = checkPatient(patient, manifest: manifest, header: header, study: study, words: words, into: &found)
            report.differences += found.map { "patient \(patient.id): \($0)" }
            report.checked += 1
            shapes[Array(Set(patient.sounds.map(\.armSound))).sorted(), default: [:]][patient.arm, default: []].insert(shape)
            progress(patient.id)
        }
        for (sounds, byArm) in shapes.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) where byArm.count > 1 {
            let arms = byArm.keys.sorted()
            for arm in arms.dropFirst() where byArm[arm] != byArm[arms[0]] {
                report.differences.append("arms \(arms[0]) and \(arm) (sounds \(sounds.joined(separator: ", "))): their patients' folders differ in the "
                                          + "shape of their metadata, which would tell the arm")
            }
        }
        return report
    }

    /// The differences of one built patient; returns the shape of its metadata.
    private static func checkPatient(_ patient: StudyPlan.PatientPlan, manifest: PatientManifest, header: StudyPlan.Header,
                                     study: StudyFolder, words: BlindingScan.Words, into found: inout [String]) -> String {
        let folder = study.patientFolder(of: patient.id)
        if manifest.plan != patient.digest { found.append("built from another plan (the manifest's plan digest differs)") }
        let key: PatientKey
        do throws(ShadesError) { key = try PatientKey.read(study.keyPath(of: patient.id)) } catch {
            found.append("no key: \(error.description)")
            return ""
        }
        let expected = Set(patient.sounds.map { $0.code + "." + header.container } + [PatientManifest.fileName])
        let entries = (try? FileSystem.entries(inFolder: folder)) ?? []
        for name in entries.sorted() where !expected.contains(name) { found.append("\(name) is not in the plan") }
        var shape: [String] = []
        for sound in patient.sounds {
            guard let entry = manifest.sounds.first(where: { $0.code == sound.code }),
                  let keyed = key.sounds.first(where: { $0.code == sound.code }) else {
                found.append("\(sound.code) is missing from the manifest or the key")
                continue
            }
            let path = folder + "/" + entry.file
            guard let sha = SHA256.hex(ofFile: path) else { found.append("\(entry.file) is missing or unreadable"); continue }
            if sha != entry.sha256 || sha != keyed.sha256 { found.append("\(entry.file) has SHA-256 \(sha), not the recorded \(entry.sha256)") }
            let written: WrittenSound
            do throws(ShadesError) { written = try WrittenSound.measure(path: path, sustainedSeconds: keyed.request.sustainedSeconds) } catch {
                found.append("\(entry.file) cannot be measured: \(error.description)")
                continue
            }
            if written.comment != PatientBuilder.commentDigest(patient: patient, code: sound.code) {
                found.append("\(entry.file): its comment tag is not the digest of its plan entry")
            }
            found += levelDifferences(sound, keyed: keyed, written: written, calibration: header.calibration).map { "\(entry.file): \($0)" }
            shape.append("loop=\(entry.loop) channels=\(written.channels) rate=\(written.sampleRate)")
            do throws(ShadesError) {
                found += try BlindingScan.unblindingWords(inFile: path, words: words, patient: patient).map { "\(entry.file): its metadata holds '\($0)'" }
            } catch { found.append("\(entry.file) cannot be scanned: \(error.description)") }
        }
        do throws(ShadesError) {
            let bytes = try FileSystem.readFile(folder + "/" + PatientManifest.fileName, upTo: 16 << 20)
            found += BlindingScan.unblindingWords(inText: bytes, words: words, patient: patient).map { "\(PatientManifest.fileName) holds '\($0)'" }
        } catch { found.append("\(PatientManifest.fileName) cannot be read: \(error.description)") }
        for name in entries where name != PatientManifest.fileName {
            for word in BlindingScan.unblindingWords(inText: Array(name.utf8), words: words, patient: patient) { found.append("file name \(name) holds '\(word)'") }
        }
        return Set(shape).sorted().joined(separator: "; ")
    }

    /// An active sound's level at the ear against the plan; a sham's loudness against its twin's.
    static func levelDifferences(_ sound: StudyPlan.PlannedSound, keyed: PatientKey.Entry, written: WrittenSound,
                                 calibration: HeadphoneCalibration) -> [String] {
        if sound.sham {
            guard let twin = keyed.twinLUFS, let lufs = written.integratedLUFS else { return ["a sham without its twin's loudness"] }
            guard abs(lufs - twin) <= twinToleranceLU else {
                return ["integrated loudness \(formatNumber(lufs, roundedTo: 2)) LUFS is not within \(formatNumber(twinToleranceLU)) LU of its active twin's \(formatNumber(twin, roundedTo: 2)) LUFS"]
            }
            return []
        }
        // What is compared: the sounding channels' mean, or each ear of a sound per ear.
        var measured: [(rmsDBFS: Double, reference: HearingReference, plannedDBSPL: Double, what: String)] = []
        if let ears = sound.earLevelsDBSPL, let layers = sound.request.sound.perEarLayers, written.channels == ears.count {
            for (i, name) in ["left", "right"].enumerated() {
                measured.append((written.channelRMSDBFS[i], layers[i].sound.hearingReference, ears[i], "\(name) ear's "))
            }
        } else {
            measured.append((written.sustainedRMSDBFS, sound.request.sound.hearingReference, sound.levelDBSPL ?? keyed.levelDBSPL, ""))
        }
        var differences: [String] = []
        for m in measured {
            let spl: Double
            do throws(ShadesError) { spl = try calibration.splDB(dBFS: m.rmsDBFS, at: m.reference) } catch {
                differences.append("its level cannot be put through the calibration: \(error.description)")
                continue
            }
            if abs(spl - m.plannedDBSPL) > levelToleranceDB {
                differences.append("\(m.what)level \(formatNumber(spl, roundedTo: 2)) dB SPL is not within \(formatNumber(levelToleranceDB)) dB of the planned "
                                   + "\(formatNumber(m.plannedDBSPL, roundedTo: 2)) dB SPL (\(sound.level))")
            }
        }
        if case .lufs(let asked) = sound.level, let lufs = written.integratedLUFS, abs(lufs - asked) > levelToleranceDB {
            differences.append("integrated loudness \(formatNumber(lufs, roundedTo: 2)) LUFS is not within \(formatNumber(levelToleranceDB)) LU of \(sound.level)")
        }
        return differences
    }
}
