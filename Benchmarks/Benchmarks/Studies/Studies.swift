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

let benchmarks: @Sendable () -> Void = {
    ShadesBench.configureSuite()
    // The quick run (CI) builds the costliest patients: notched music's sham (its twin rendered too) and AM noise.
    let arms = ShadesBench.quick ? ["notched-music-sham", "am-noise"]
        : ["notched-music", "notched-music-sham", "am-noise", "am-noise-sham", "ripple", "ripple-sham"]
    for arm in arms { patientBuildBenchmark(arm) }
}
