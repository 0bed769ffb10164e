#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesPlatform
import ShadesRender
import ShadesCatalogue
import ShadesIO
import ShadesProcedures

/// A study's plan: every patient's arm and sounds, each sound's render request at its resolved level, and the
/// SHA-256 of every input it was made from. `shades study plan` writes it as ``StudyFolder/planHeaderPath``
/// (the study: name, inputs, calibration, files' format) and ``StudyFolder/planPatientsPath`` (one line per
/// patient, read as a stream); the same inputs give the same bytes. The plan tells every patient's arm: keep
/// it, like `key/`, from whoever assesses the patients.
public struct StudyPlan: Sendable {
    public var header: Header
    public var patients: [PatientPlan]
    /// Each patient's music folder, as the CSV resolves it (not written: the songs are in ``PatientPlan/inputs``).
    package var musicFolders: [(patient: String, folder: String)] = []

    /// What is common to every patient.
    public struct Header: Sendable, Codable, Equatable {
        public var study: String
        /// The protocol, the calibration and the patients' CSV.
        public var inputs: [InputFile]
        /// The headphones' calibration (the levels' dB SPL, checked by `study check`).
        public var calibration: HeadphoneCalibration
        /// The highest level any sound may have at the ear, dB SPL (a LUFS level is checked when built).
        public var ceilingDBSPL: Double
        /// The container ("wav", "flac") and sample format ("s16", "s24", "f32") of every file.
        public var container: String
        public var sampleFormat: String
        public var patientCount: Int
    }

    /// A file a plan was made from: its path as given and its SHA-256.
    public struct InputFile: Sendable, Codable, Equatable {
        public var path: String
        public var sha256: String

        /// `path` read and hashed; refused when it cannot be read.
        init(_ path: String, what: String) throws(ShadesError) {
            do throws(ShadesError) { try CommandPaths.checkReadableFile(path) } catch { throw error.within(what) }
            guard let sha = SHA256.hex(ofFile: path) else { throw ShadesError.input("\(what) \(path) cannot be read") }
            (self.path, self.sha256) = (path, sha)
        }
    }

    /// One patient: arm, where it came from, measurements and sounds.
    public struct PatientPlan: Sendable, Codable, Equatable {
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

        /// The patient's line of the plan: compact JSON, sorted keys, no newline.
        public var line: [UInt8] { StudyPlan.encoded(self, pretty: false) }
        /// SHA-256 of ``line``: what a built folder records, so a changed plan is rebuilt.
        public var digest: String { SHA256.hex(of: line) }
    }

    /// One sound of a patient's folder.
    public struct PlannedSound: Sendable, Codable, Equatable {
        /// Its neutral code: the file's name in the patient's folder (nothing in it tells the arm).
        public var code: String
        /// The arm's sound it is, and the song.
        public var armSound: String
        public var song: String?
        /// The level the protocol asks.
        public var level: PatientLevel
        /// True for a sham: rendered at the loudness its active ``twin`` has at ``request``'s level, measured
        /// when the folder is built.
        public var sham: Bool
        /// A sham's active twin (rendered in memory to measure its loudness, never written).
        public var twin: Sound?
        /// The level at the ear, dB SPL, and the sustained sound's RMS that gives it, dBFS (a sham's: its twin's);
        /// nil for a LUFS level, which is measured when the folder is built (``PatientKey``).
        public var levelDBSPL: Double?
        public var rmsDBFS: Double?
        /// For a sound per ear (left, right): each ear's level at the ear, dB SPL, and RMS, dBFS; nil otherwise.
        public var earLevelsDBSPL: [Double]?
        public var earRMSDBFS: [Double]?
        /// What is rendered: the sound, its length, rate, layout, seed, loop and level policy (an RMS level or
        /// a loudness target; a sham's: its twin's).
        public var request: RenderRequest

        /// Sets a sound per ear to the ears' RMS levels (dBFS): each layer's gain is its ear's level re the
        /// louder ear, the mix's level the mean power of the two; the sound's level is the louder ear's.
        mutating func setEarLevels(_ rms: [Double], dBSPL: [Double]) {
            let loudest = rms.max()!
            if case .mix(var layers) = request.sound.source {
                for i in layers.indices { layers[i].gainDB = rms[i] - loudest }
                request.sound.source = .mix(layers)
                if let twin, case .mix(var twinLayers) = twin.source {
                    for i in twinLayers.indices { twinLayers[i].gainDB = rms[i] - loudest }
                    self.twin?.source = .mix(twinLayers)
                }
            }
            let meanPower = rms.map { Decibels.power($0) }.reduce(0, +) / Double(rms.count)
            request.level = .rms(dBFS: Decibels.fromPower(meanPower))
            (earRMSDBFS, earLevelsDBSPL) = (rms, dBSPL)
            let louder = rms.firstIndex(of: loudest)!
            (levelDBSPL, rmsDBFS) = (dBSPL[louder], loudest)
        }
    }

    /// `value` as JSON with sorted keys: the same bytes for the same value.
    static func encoded(_ value: some Encodable, pretty: Bool) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        return [UInt8](try! encoder.encode(value))
    }

    /// The header file's bytes: pretty-printed.
    public var headerJSON: [UInt8] { Self.encoded(header, pretty: true) + [0x0A] }
    /// The patients' file: one line per patient.
    public var patientLines: [UInt8] { patients.flatMap { $0.line + [0x0A] } }
    /// The index: `id`, `plan` (the line's SHA-256) and `site` per patient, tab-separated, site last (it may hold anything but a line break).
    public var index: [UInt8] {
        Array(("id\tplan\tsite\n" + patients.map { "\($0.id)\t\($0.digest)\t\($0.site)\n" }.joined()).utf8)
    }
}

extension StudyPlan {
    /// Reads the header a plan was written with.
    public static func readHeader(_ folder: StudyFolder) throws(ShadesError) -> Header {
        let path = folder.planHeaderPath
        let bytes: [UInt8]
        do throws(ShadesError) { bytes = try FileSystem.readFile(path, upTo: 64 << 20) } catch {
            throw .input("\(folder.path) is not a planned study (\(error.description); make one with shades study plan)")
        }
        do { return try JSONDecoder().decode(Header.self, from: Data(bytes)) } catch {
            throw ShadesError.input("\(path) is not a study plan's header (write it with shades study plan)")
        }
    }

    /// Calls `body` with each patient of the plan in order, reading the patients' file line by line.
    public static func forEachPatient(_ folder: StudyFolder, _ body: (PatientPlan) throws(ShadesError) -> Void) throws(ShadesError) {
        let path = folder.planPatientsPath
        let reader = try LineReader(path: path)
        var number = 0
        while let line = try reader.next() {
            number += 1
            guard !line.isEmpty else { continue }
            let patient: PatientPlan
            do { patient = try JSONDecoder().decode(PatientPlan.self, from: Data(line)) } catch {
                throw ShadesError.input("\(path):\(number): is not a patient's plan (write it with shades study plan)")
            }
            try body(patient)
        }
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
        var resolver = try LevelResolver(calibration: calibration, ceilingDBSPL: p.ceilingDBSPL, sampleFormat: format)
        // Nothing is rendered here: clipping and LUFS levels are checked when each folder is built.
        resolver.measuresSound = false
        var inputFiles = InputFiles()
        let csv: String
        do throws(ShadesError) { csv = String(decoding: try FileSystem.readFile(patientsPath, upTo: 64 << 20), as: UTF8.self) } catch {
            throw error.within("patients' CSV")
        }
        let table = try PatientTable(csv: csv, path: patientsPath, arms: p.armNames)
        let allocation = Allocation(patients: table.patients, arms: p.armNames, seed: p.seed, blockMultiples: p.blockMultiples)
        var patients: [PatientPlan] = []
        var problems = PatientProblems()
        for (patient, entry) in zip(table.patients, allocation.entries) {
            do throws(ShadesError) {
                patients.append(try plan(patient, arm: entry.arm, block: entry.block, studyProtocol: p, resolver: resolver, inputs: &inputFiles))
            } catch {
                problems.add(error, patient: patient.id)
            }
        }
        if let error = problems.error { throw error }
        let header = Header(study: p.name, inputs: inputs, calibration: calibration, ceilingDBSPL: p.ceilingDBSPL, container: p.format,
                            sampleFormat: p.sampleFormat, patientCount: patients.count)
        let musicFolders = table.patients.compactMap { patient in patient.musicFolder.map { (patient.id, $0) } }
        return (StudyPlan(header: header, patients: patients, musicFolders: musicFolders), allocation)
    }

    private static func plan(_ patient: Patient, arm: String, block: Int?, studyProtocol p: StudyProtocol,
                             resolver: LevelResolver, inputs inputFiles: inout InputFiles) throws(ShadesError) -> PatientPlan {
        let measurements = try inputFiles.measurements(of: patient)
        if let mml = measurements.mml, let path = patient.mmlPath { try checkMMLFrequency(mml, path: path, of: patient) }
        var inputs: [InputFile] = []
        if let a = patient.audiogramPath { inputs.append(try inputFiles.file(a, what: "audiogram")) }
        if let m = patient.mmlPath { inputs.append(try inputFiles.file(m, what: "MML")) }
        let seed = p.seed ^ Allocation.stableKey(patient.id)
        var sounds: [PlannedSound] = []
        for (index, s) in try p.sounds(of: arm, for: patient).enumerated() {
            if let song = s.song, let folder = patient.musicFolder {
                // A song must be a readable sound file now, not when the folder is built.
                do throws(ShadesError) { _ = try AudioFileSource.openInput(path: folder + "/" + song) } catch {
                    var refused = error.within("song \(song)")
                    refused.message = refused.description + " (allowed in a music folder: sound files such as WAV, FLAC, Ogg and MP3; covers, playlists and notes, which are skipped)"
                    throw refused
                }
                inputs.append(try InputFile(folder + "/" + song, what: "song"))
            }
            // The level is the active sound's (a sham's twin's): a sham is rendered at its twin's loudness.
            let request = RenderRequest(sound: s.twin ?? s.sound, durationSeconds: s.durationSeconds, sampleRate: p.rate,
                                        layout: s.sound.channels ?? .stereo, seed: seed &+ UInt64(index), loop: s.loop)
            do throws(ShadesError) { try request.validate() } catch { throw error.within("sound \(s.armSound)") }
            var planned = PlannedSound(code: neutralCode(seed: p.seed, patient: patient.id, index: index), armSound: s.armSound,
                                       song: s.song, level: s.level, sham: s.isSham, twin: s.twin, levelDBSPL: 0, rmsDBFS: 0, request: request)
            if case .lufs(let lufs) = s.level {
                // Measured when the folder is built (a loudness pass); checked against the ceiling then.
                planned.request.level = .loudness(lufs: lufs, truePeakCeilingDBTP: -1)
                (planned.levelDBSPL, planned.rmsDBFS) = (nil, nil)
            } else if let layers = request.sound.perEarLayers {
                // A sound per ear (a tinnitus per ear): each ear's level resolved on its own sound, threshold and frequency.
                let ears = try layers.map { (layer: Layer) throws(ShadesError) -> ResolvedLevel in
                    var alone = request
                    (alone.sound, alone.layout) = (layer.sound, .mono)
                    return try resolver.resolve(s.level, of: alone, for: measurements, ears: layer.ears)
                }
                planned.setEarLevels(ears.map(\.rmsDBFS), dBSPL: ears.map(\.splDB))
            } else {
                let resolved = try resolver.resolve(s.level, of: request, for: measurements, ears: .both)
                (planned.request.level, planned.levelDBSPL, planned.rmsDBFS) = (resolved.rmsPolicy, resolved.splDB, resolved.rmsDBFS)
            }
            if s.isSham {
                planned.request.sound = planned.twin.map { twin in s.sound.withLayerGains(of: twin) } ?? s.sound
                do throws(ShadesError) { try planned.request.validate() } catch { throw error.within("sound \(s.armSound) (sham)") }
            }
            sounds.append(planned)
        }
        return PatientPlan(id: patient.id, site: patient.site, arm: arm, block: block, tinnitusHz: patient.tinnitusHz.text,
                           inputs: inputs, sounds: sounds)
    }

    /// Refuses an MML measured with a noise band that holds neither ear's tinnitus frequency (the MML of another
    /// patient, or of another measurement): its centre must lie within half the band's width of one of them.
    private static func checkMMLFrequency(_ mml: MinimumMaskingLevel.Result, path: String, of patient: Patient) throws(ShadesError) {
        let tinnitus = [patient.tinnitusHz.leftHz, patient.tinnitusHz.rightHz].compactMap { $0 }
        let halfBand = max(mml.widthOctaves, 0) / 2
        guard !tinnitus.contains(where: { abs(log2(mml.frequencyHz / $0)) <= halfBand + 1e-9 }) else { return }
        throw ShadesError.input("patient \(patient.id): the MML \(path) was measured at \(formatNumber(mml.frequencyHz)) Hz, "
                                + "\(formatNumber(mml.widthOctaves)) octave wide, away from the tinnitusHz \(patient.tinnitusHz.text) "
                                + "(allowed: an MML whose noise band holds the patient's tinnitus frequency)")
    }

    /// A sound's code in a patient's folder: 8 hex digits of the SHA-256 of the study's seed, the patient and
    /// the sound's place, so it names nothing of the arm.
    static func neutralCode(seed: UInt64, patient: String, index: Int) -> String {
        String(SHA256.hex(of: Array("\(seed)/\(patient)/\(index)".utf8)).prefix(8))
    }
}

extension Sound {
    /// The two layers of a sound per ear (``StudyProtocol/sounds(of:for:)``: left, then right), each a sound
    /// of its own; nil for any other sound.
    var perEarLayers: [Layer]? {
        guard case .mix(let layers) = source, layers.count == 2, layers[0].ears == .left, layers[1].ears == .right else { return nil }
        return layers
    }

    /// This sound per ear with the layer gains of `other` (a sham takes its twin's balance between the ears).
    func withLayerGains(of other: Sound) -> Sound {
        guard case .mix(var layers) = source, case .mix(let gains) = other.source, layers.count == gains.count else { return self }
        for i in layers.indices { layers[i].gainDB = gains[i].gainDB }
        var copy = self
        copy.source = .mix(layers)
        return copy
    }
}

/// The patients a plan refuses, a line each; a problem of the protocol (kind ``ShadesError/Kind/parameter``: a
/// sound no patient's measurements can give) is the same for every patient of its arm, and is said once,
/// naming them. A problem of a patient's data (a missing file) keeps its own line, so every patient is named.
struct PatientProblems {
    private var lines: [(problem: String, patients: [String], kind: ShadesError.Kind)] = []

    /// Adds `error` of patient `id`; its line is kept after the patient's name (": …" or ", sound …: …").
    mutating func add(_ error: ShadesError, patient id: String) {
        var problem = error.description
        let named = "patient \(id)"
        if problem.hasPrefix(named + ":") || problem.hasPrefix(named + ",") {
            problem.removeFirst(named.count)
        } else {
            problem = ": " + problem
        }
        if error.kind == .parameter, let index = lines.firstIndex(where: { $0.kind == .parameter && $0.problem == problem }) {
            lines[index].patients.append(id)
        } else {
            lines.append((problem, [id], error.kind))
        }
    }

    /// One error, a line per problem ("patients P01, P02, P03 and 5 more: …"); a problem of the caller's input
    /// (exit 2) when every problem is; nil when there is none.
    var error: ShadesError? {
        guard !lines.isEmpty else { return nil }
        let text = lines.map { line in
            let named = line.patients.prefix(3).joined(separator: ", ")
            let who = line.patients.count == 1 ? "patient \(named)"
                : "patients \(named)" + (line.patients.count > 3 ? " and \(line.patients.count - 3) more" : "")
            return who + line.problem
        }.joined(separator: "\n")
        return ShadesError(lines.allSatisfy { $0.kind == .parameter } ? .parameter : .input, text)
    }
}

/// The measurement files of a plan, each read and hashed once however many patients share it.
struct InputFiles {
    private var files: [String: StudyPlan.InputFile] = [:]
    private var measurements: [String: PatientMeasurements] = [:]

    mutating func file(_ path: String, what: String) throws(ShadesError) -> StudyPlan.InputFile {
        if let known = files[path] { return known }
        let file = try StudyPlan.InputFile(path, what: what)
        files[path] = file
        return file
    }

    /// The patient's audiogram and MML.
    mutating func measurements(of patient: Patient) throws(ShadesError) -> PatientMeasurements {
        let key = (patient.audiogramPath ?? "") + "\n" + (patient.mmlPath ?? "")
        if let known = measurements[key] { return PatientMeasurements(id: patient.id, audiogram: known.audiogram, mml: known.mml) }
        let read = try PatientMeasurements.read(id: patient.id, audiogramPath: patient.audiogramPath, mmlPath: patient.mmlPath)
        measurements[key] = read
        return read
    }
}
