#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender

/// Builds one patient's folder from the plan, whole or not at all.
///
/// The sounds are rendered into a hidden folder beside the patient's (`.ID.build-HOST-PID`), each measured and
/// hashed; the key is written; then the folder is renamed into place in one step. A folder that already
/// matches the plan (its manifest names the plan line's SHA-256 and every file has its recorded size) is
/// skipped. Two builders given the same patient (a requeued task overlapping the first) never mix: the
/// second rename fails on the complete folder, and the second builder finds it built and skips. No lock is
/// taken, so it is correct on any file system with atomic renames (Lustre, NFS).
public enum PatientBuilder {
    /// What became of a patient.
    public enum Outcome: Sendable {
        /// Rendered and put in place, in this many seconds.
        case built(seconds: Double)
        /// Already matching the plan (`byAnotherBuild`: put in place meanwhile by another build).
        case skipped(byAnotherBuild: Bool)
    }

    /// Whether `patient`'s folder matches its plan line (milliseconds: a small file read and a `stat` per file).
    public static func isBuilt(_ patient: StudyPlan.PatientPlan, in study: StudyFolder) -> Bool {
        PatientManifest.isComplete(study.patientFolder(of: patient.id), plan: patient.digest)
    }

    /// Builds `patient` into `study` unless it is built.
    public static func build(_ patient: StudyPlan.PatientPlan, header: StudyPlan.Header, in study: StudyFolder) throws(ShadesError) -> Outcome {
        if isBuilt(patient, in: study) { return .skipped(byAnotherBuild: false) }
        let started = ContinuousClock.now
        let shard = study.patientsShardFolder(of: patient.id), target = study.patientFolder(of: patient.id)
        // The key's folder first: a key that cannot be written leaves no empty shard folder behind.
        try makeFolders(AtomicFile.directory(of: study.keyPath(of: patient.id)))
        try makeFolders(shard)
        let building = shard + "/." + patient.id + ".build-" + Self.builderName
        InterruptCleanup.register(building, .tree)
        defer { InterruptCleanup.forget(building) }
        try? FileSystem.removeTree(building)
        do throws(ShadesError) {
            try FileSystem.makeFolder(building)
            let (manifest, key) = try render(patient, header: header, into: building)
            try AtomicFile.write(manifest.json, to: building + "/" + PatientManifest.fileName)
            try FileSystem.syncTree(building)
            try AtomicFile.write(key.json, to: study.keyPath(of: patient.id))
            let installed = try InterruptCleanup.uninterrupted { () throws(ShadesError) -> Bool in
                try install(building, at: target, plan: patient.digest)
            }
            try? FileSystem.syncFolder(shard)
            removeLeftovers(of: patient.id, in: shard)
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
            return installed ? .built(seconds: seconds) : .skipped(byAnotherBuild: true)
        } catch {
            try? FileSystem.removeTree(building)
            // Another build may have put the patient in place meanwhile (and removed this one's folder).
            if isBuilt(patient, in: study) { return .skipped(byAnotherBuild: true) }
            throw error.within("patient \(patient.id)")
        }
    }

    /// Renders every sound of `patient` into `folder`: the files, the patient's manifest and its key.
    static func render(_ patient: StudyPlan.PatientPlan, header: StudyPlan.Header,
                       into folder: String) throws(ShadesError) -> (PatientManifest, PatientKey) {
        let format = SampleFormat(rawValue: header.sampleFormat) ?? .s24
        var entries: [PatientManifest.Entry] = [], keys: [PatientKey.Entry] = []
        let resolver = try LevelResolver(calibration: header.calibration, ceilingDBSPL: header.ceilingDBSPL, sampleFormat: format)
        for sound in patient.sounds {
            var request = sound.request
            var twinLUFS: Double?
            var levelDBSPL = sound.levelDBSPL
            if case .loudness(let lufs, _) = request.level {
                // A LUFS level: measured now (a loudness pass over the active sound), checked against the
                // ceiling and the true-peak limit, and rendered at the RMS it found.
                var active = request
                active.sound = sound.twin ?? request.sound
                let resolved = try resolver.resolve(.lufs(lufs), of: active, for: PatientMeasurements(id: patient.id), ears: .both)
                (request.level, levelDBSPL) = (resolved.rmsPolicy, resolved.splDB)
            }
            // Only a LUFS level is planned without its dB SPL.
            guard let levelDBSPL else { throw .input("sound \(sound.code) has no level at the ear in the plan (plan the study again)") }
            if sound.sham, let twin = sound.twin {
                (request.level, twinLUFS) = try shamLevel(request, twin: twin, format: format)
            }
            let file = sound.code + "." + header.container
            let path = folder + "/" + file
            let graph = try SoundGraph(request)
            let digest = commentDigest(patient: patient, code: sound.code)
            _ = try Renderer.renderFile(graph, to: path, sampleFormat: format, ditherSeed: request.resolvedSeed,
                                    keepsFileSound: request.pulses == nil && request.fades == nil) { _ in digest }
            let written = try WrittenSound.measure(path: path, sustainedSeconds: request.sustainedSeconds)
            guard let sha = SHA256.hex(ofFile: path), let bytes = try? FileSystem.status(path).st_size else {
                throw .runtime("cannot read \(path) back to hash it")
            }
            entries.append(PatientManifest.Entry(code: sound.code, file: file, loop: request.loop, bytes: Int(bytes), sha256: sha))
            keys.append(PatientKey.Entry(code: sound.code, armSound: sound.armSound, song: sound.song, sham: sound.sham, level: sound.level,
                                         levelDBSPL: levelDBSPL, request: request, integratedLUFS: written.integratedLUFS ?? -.infinity,
                                         twinLUFS: twinLUFS, sha256: sha))
        }
        let manifest = PatientManifest(study: header.study, patient: patient.id, plan: patient.digest, sounds: entries)
        return (manifest, PatientKey(patient: patient.id, arm: patient.arm, plan: patient.digest, sounds: keys))
    }

    /// A sham's level: the RMS that gives it its active twin's integrated loudness within
    /// ``RenderRequest/twinLoudnessToleranceLU`` (the twin rendered in memory at the plan's level; both measured
    /// by libebur128 as `format` holds them), and that loudness, LUFS. One step from the reference level, then
    /// again while the absolute gate moves the loudness of a quiet sham (``RenderRequest/rmsLevel(forLoudness:loudness:)``).
    static func shamLevel(_ sham: RenderRequest, twin: Sound, format: SampleFormat) throws(ShadesError) -> (LevelPolicy, Double) {
        var active = sham
        active.sound = twin
        let twinLUFS = try active.integratedLoudness(format: format)
        var probe = sham
        probe.level = .rms(dBFS: RenderRequest.referenceLevelDBFS)
        let shamLUFS = try probe.integratedLoudness(format: format)
        probe.level = .rms(dBFS: RenderRequest.referenceLevelDBFS + twinLUFS - shamLUFS)
        let dBFS = try probe.rmsLevel(forLoudness: twinLUFS) { (request: RenderRequest) throws(ShadesError) in
            try request.integratedLoudness(format: format)
        }
        return (.rms(dBFS: dBFS), twinLUFS)
    }

    /// The comment tag of a patient's file: a digest only (SHA-256 of the patient's plan line and the code),
    /// which the key ties to the recipe and which names nothing.
    static func commentDigest(patient: StudyPlan.PatientPlan, code: String) -> String {
        SHA256.hex(of: Array((patient.digest + "/" + code).utf8))
    }

    /// Puts the built folder in place: true when it is, false when another build's complete folder is
    /// already there (this one is then removed). A folder from an older plan, or a damaged one, is replaced.
    private static func install(_ building: String, at target: String, plan digest: String) throws(ShadesError) -> Bool {
        do throws(ShadesError) {
            try FileSystem.rename(building, to: target)
            return true
        } catch where error.code == ENOTEMPTY || error.code == EEXIST {
            // Another build of the same plan line won: this one's folder goes. (The digest is this build's, not
            // read back from its folder, which nobody else touches while this builder lives.) A folder of the same
            // plan with a file missing or cut short is damaged, not a build: it is replaced like an older plan's.
            if PatientManifest.isComplete(target, plan: digest) {
                try? FileSystem.removeTree(building)
                return false
            }
            // An older plan's folder: swap it for the new one, then remove it.
            guard try FileSystem.exchange(building, target) else {
                let old = building + ".old"
                try FileSystem.rename(target, to: old)
                try FileSystem.rename(building, to: target)
                try? FileSystem.removeTree(old)
                return true
            }
            try? FileSystem.removeTree(building)
            return true
        }
    }

    /// Removes what killed builds of `id` left in `shard` (their hidden folders), once the patient is in place:
    /// a folder of a builder on this host whose process is gone, or of another host's builder untouched for
    /// ``abandonedAfterSeconds`` (a live build writes into its folder every few seconds). A live builder's
    /// folder is never touched: it installs or removes it itself.
    private static func removeLeftovers(of id: String, in shard: String) {
        guard let names = try? FileSystem.entries(inFolder: shard) else { return }
        let prefix = "." + id + ".build-"
        for name in names where name.hasPrefix(prefix) {
            let builder = String(name.dropFirst(prefix.count)).replacing(".old", with: "")
            guard builder != builderName else { continue }
            let abandoned: Bool
            if builder.hasPrefix(hostName + "-"), let pid = Int32(builder.dropFirst(hostName.count + 1)) {
                abandoned = FileSystem.isProcessGone(pid)
            } else {
                abandoned = ((try? FileSystem.secondsSinceModified(shard + "/" + name)) ?? 0) > abandonedAfterSeconds
            }
            if abandoned { try? FileSystem.removeTree(shard + "/" + name) }
        }
    }

    /// How long another host's building folder must be untouched to count as abandoned, seconds.
    static let abandonedAfterSeconds = 3600.0

    /// Creates `folder` and its missing parents; a folder another build creates meanwhile is fine.
    static func makeFolders(_ folder: String) throws(ShadesError) {
        if (try? FileSystem.status(folder)) != nil { return }
        try makeFolders(AtomicFile.directory(of: folder))
        do throws(ShadesError) { try FileSystem.makeFolder(folder) } catch where error.code == EEXIST {} catch {
            throw .runtime("cannot create folder \(folder): \(FolderCreation.notWritable(AtomicFile.directory(of: folder)) ?? error.reason)")
        }
    }

    /// This builder's name in its building folders: host and process, so builds on several nodes never share one.
    static let builderName = hostName + "-\(FileSystem.processID)"

    /// This host's name, letters, digits and hyphens only.
    static let hostName: String = {
        var name = [UInt8](repeating: 0, count: 256)
        let host = gethostname(&name, 255) == 0 ? String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) : "host"
        return host.filter { $0.isLetter || $0.isNumber || $0 == "-" }
    }()
}
