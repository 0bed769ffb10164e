// One patient's build for each arm of the repository's example study (Presets/studies/example-study.json):
// what a study costs per patient, in core-seconds (the cpuTotal metric) and wall-clock seconds.
import Benchmark
import Foundation
import ShadesBenchmarkSupport
import ShadesDSP
import ShadesRender
import ShadesStudy

/// The package's folder.
let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
/// A simulated listener's audiogram and MML (`shades audiometry --simulate-audiogram … --seed 1`, `shades mml --simulate`).
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

/// A study of six patients, one per arm of the example protocol, planned in `folder`: each patient's song is
/// 3 minutes of stereo 44.1 kHz pink noise, amplitude modulated at 0.5 Hz (a song's length and rate).
func planExampleStudy(in folder: URL) throws -> (StudyFolder, StudyPlan) {
    let fm = FileManager.default
    let song = RenderRequest(sound: try JSONDecoder().decode(Sound.self, from: Data(#"{"source": "pink", "am": {"rateHz": 0.5, "depth": 0.5}}"#.utf8)),
                             durationSeconds: 180, sampleRate: 44_100, layout: .stereo)
    try fm.createDirectory(at: folder.appendingPathComponent("songs"), withIntermediateDirectories: true)
    try Renderer.renderFile(song, to: folder.appendingPathComponent("songs/song.flac").path, sampleFormat: .s16)
    let arms = ["notched-music", "notched-music-sham", "am-noise", "am-noise-sham", "ripple", "ripple-sham"]
    var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
    for (i, arm) in arms.enumerated() {
        csv += "P\(i),Ulm,\(arm),6000,\(fixtures.path)/audiogram.json,\(fixtures.path)/mml.json,songs\n"
    }
    let patients = folder.appendingPathComponent("patients.csv").path
    try csv.write(toFile: patients, atomically: true, encoding: .utf8)
    let protocolPath = packageFolder.appendingPathComponent("Presets/studies/example-study.json").path
    let studyProtocol = try StudyProtocolReader.read(json: [UInt8](try Data(contentsOf: URL(fileURLWithPath: protocolPath))), path: protocolPath)
    let plan = try StudyPlan.make(studyProtocol, patientsPath: patients).plan
    let study = StudyFolder(folder.appendingPathComponent("study").path)
    try fm.createDirectory(atPath: study.path + "/plan", withIntermediateDirectories: true)
    try Data(plan.headerJSON).write(to: URL(fileURLWithPath: study.planHeaderPath))
    try Data(plan.patientLines).write(to: URL(fileURLWithPath: study.planPatientsPath))
    return (study, plan)
}

/// One iteration = `shades study build STUDY --patient ID` of the patient in `arm`: render, measure, hash and
/// put in place its folder and key (60-s sounds; a sham's twin rendered in memory for its loudness).
func patientBuildBenchmark(_ arm: String) {
    Benchmark("Study-patient-\(arm)", configuration: .init(metrics: [.wallClock, .cpuTotal, .peakMemoryResident],
                                                           maxDuration: .seconds(ShadesBench.quick ? 1 : 30),
                                                           maxIterations: ShadesBench.quick ? 1 : 3)) { benchmark, state in
        let (study, patient, header) = state
        try? FileManager.default.removeItem(atPath: study.patientFolder(of: patient.id))
        do {
            benchmark.startMeasurement()
            let outcome = try PatientBuilder.build(patient, header: header, in: study)
            benchmark.stopMeasurement()
            blackHole(outcome)
        } catch {
            benchmark.error("patient build failed: \(error)")
        }
    } setup: { () throws -> (StudyFolder, StudyPlan.PatientPlan, StudyPlan.Header) in
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shades-study-bench-\(arm)-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        let (study, plan) = try planExampleStudy(in: scratch)
        return (study, plan.patients.first { $0.arm == arm }!, plan.header)
    }
}

/// A synthetic study of `count` patients at three sites planned in `folder` (two arms of 2-s sounds at MML + 6 dB and
/// 20 dB SL, and their shams; every patient with the fixtures' audiogram and MML, tinnitus 4250 … 6249 Hz: inside the
/// MML's octave band at 6 kHz, as a plan requires).
func planSyntheticStudy(_ count: Int, in folder: URL) throws -> (StudyFolder, StudyPlan) {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let calibration = packageFolder.appendingPathComponent("Presets/studies/example-calibration.json").path
    let protocolJSON = """
        { "name": "synthetic", "seed": 7, "calibration": "\(calibration)", "ceilingDBSPL": 85, "rate": 48000, "format": "flac", "sampleFormat": "s16",
          "arms": [
            { "name": "am", "sounds": [ { "name": "am", "level": "MML+6", "durationSeconds": 2, "loop": true,
                                          "sound": { "source": "pink", "am": { "rateHz": 10, "depth": 1 } } } ] },
            { "name": "am-sham", "shamOf": "am" },
            { "name": "ripple", "sounds": [ { "name": "ripple", "level": "20 dB SL", "durationSeconds": 2,
                                              "sound": { "source": "ripple", "frequency": "{tinnitusHz}", "condition": "amplitude" } } ] },
            { "name": "ripple-sham", "shamOf": "ripple" } ] }
        """
    let protocolPath = folder.appendingPathComponent("synthetic.json").path
    try protocolJSON.write(toFile: protocolPath, atomically: true, encoding: .utf8)
    var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
    let sites = ["Ulm", "Mainz", "Jena"]
    for i in 0..<count {
        csv += "S\(i),\(sites[i % 3]),,\(4250 + i % 2000),\(fixtures.path)/audiogram.json,\(fixtures.path)/mml.json,\n"
    }
    let patients = folder.appendingPathComponent("patients.csv").path
    try csv.write(toFile: patients, atomically: true, encoding: .utf8)
    let studyProtocol = try StudyProtocolReader.read(json: Array(protocolJSON.utf8), path: protocolPath)
    let plan = try StudyPlan.make(studyProtocol, patientsPath: patients).plan
    let study = StudyFolder(folder.appendingPathComponent("study").path)
    try FileManager.default.createDirectory(atPath: study.path + "/plan", withIntermediateDirectories: true)
    try Data(plan.headerJSON).write(to: URL(fileURLWithPath: study.planHeaderPath))
    try Data(plan.patientLines).write(to: URL(fileURLWithPath: study.planPatientsPath))
    try Data(plan.index).write(to: URL(fileURLWithPath: study.planIndexPath))
    return (study, plan)
}

/// One iteration = `shades study plan` of 100,000 synthetic patients (read, allocate, resolve every level
/// through the calibration; nothing rendered). Goal: under a minute and under 1 GiB.
func planBenchmark() {
    Benchmark("Study-plan-100k", configuration: .init(metrics: [.wallClock, .cpuTotal, .peakMemoryResident], maxIterations: 1)) { benchmark in
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shades-study-plan-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let (_, plan) = try planSyntheticStudy(100_000, in: scratch)
            blackHole(plan.patients.count)
        } catch {
            benchmark.error("plan failed: \(error)")
        }
    }
}

/// One iteration = `shades study status` over 100,000 planned patients, 10 % of them built (their folders
/// stand in with a manifest naming their plan line). Goal: under one second.
func statusBenchmark() {
    Benchmark("Study-status-100k-10pc-built", configuration: .init(metrics: [.wallClock, .cpuTotal], maxIterations: 5)) { benchmark, study in
        do {
            benchmark.startMeasurement()
            let status = try StudyStatus.read(study)
            benchmark.stopMeasurement()
            guard status.done == 10_000 else { return benchmark.error("\(status.done) done, not 10000") }
        } catch {
            benchmark.error("status failed: \(error)")
        }
    } setup: { () throws -> StudyFolder in
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shades-study-status-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        let (study, plan) = try planSyntheticStudy(100_000, in: scratch)
        for patient in plan.patients.enumerated().filter({ $0.offset % 10 == 0 }).map(\.element) {
            let folder = study.patientFolder(of: patient.id)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let manifest = PatientManifest(study: "synthetic", patient: patient.id, plan: patient.digest, sounds: [])
            try Data(manifest.json).write(to: URL(fileURLWithPath: folder + "/" + PatientManifest.fileName))
        }
        return study
    }
}

/// One iteration = `shades study build` of a patient already built: its manifest read and its files' sizes
/// checked, nothing rendered. Goal: milliseconds.
func skipBenchmark() {
    Benchmark("Study-skip-built-patient", configuration: .init(metrics: [.wallClock, .cpuTotal], maxIterations: ShadesBench.quick ? 20 : 200)) { benchmark, state in
        let (study, patient, header) = state
        do {
            benchmark.startMeasurement()
            let outcome = try PatientBuilder.build(patient, header: header, in: study)
            benchmark.stopMeasurement()
            guard case .skipped = outcome else { return benchmark.error("the patient was built again") }
        } catch {
            benchmark.error("skip failed: \(error)")
        }
    } setup: { () throws -> (StudyFolder, StudyPlan.PatientPlan, StudyPlan.Header) in
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shades-study-skip-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        let (study, plan) = try planSyntheticStudy(10, in: scratch)
        _ = try PatientBuilder.build(plan.patients[0], header: plan.header, in: study)
        return (study, plan.patients[0], plan.header)
    }
}

let benchmarks: @Sendable () -> Void = {
    ShadesBench.configureSuite()
    // The quick run (CI) builds the costliest patients: notched music's sham (its twin rendered too) and AM noise.
    let arms = ShadesBench.quick ? ["notched-music-sham", "am-noise"]
        : ["notched-music", "notched-music-sham", "am-noise", "am-noise-sham", "ripple", "ripple-sham"]
    for arm in arms { patientBuildBenchmark(arm) }
    skipBenchmark()
    if !ShadesBench.quick {
        planBenchmark()
        statusBenchmark()
    }
}
