import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesStudy

/// `shades study`: a protocol and a cohort become every patient's sounds.
struct StudyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Plan a study: a protocol and a cohort of patients become each patient's arm, sounds and levels.",
        discussion: """
            The protocol (Presets/studies/README.md) lists the arms, each a list of sounds whose values may name \
            the patient's tinnitus frequency ("{tinnitusHz}") and songs ("{music}"), or the sham of another arm; \
            levels in dBFS, LUFS, dB SPL, dB HL, dB SL or re MML through the headphone calibration.
            Example: shades study plan Presets/studies/example-study.json patients.csv -o study/
            """,
        subcommands: [Plan.self])

    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Resolve every patient's arm, sounds and levels; write STUDY/plan.json and the allocation key.",
            discussion: """
                PATIENTS is a CSV with the columns id,site,arm,tinnitusHz,audiogram,mml,music (audiogram and mml: \
                the JSON `shades audiometry -o` and `shades mml -o` write; music: a folder of the patient's songs; \
                paths relative to the CSV). An empty arm is allocated in permuted blocks stratified by site from \
                the protocol's seed. Every offending patient is refused, one line each, before anything is \
                written. Writes STUDY/plan.json (the same bytes for the same inputs) and \
                STUDY/key/allocation.csv (the arms: keep it from whoever assesses the patients).
                Example: shades study plan Presets/studies/example-study.json patients.csv -o study/
                """)

        @Argument(help: "The study protocol (JSON).")
        var protocolFile: String

        @Argument(help: "The patients (CSV).")
        var patients: String

        @Option(name: .shortAndLong, parsing: .unconditional, help: "The study folder.")
        var output: String

        func run() throws {
            let bytes = try FileSystem.readFile(protocolFile, upTo: 16 << 20)
            let studyProtocol = try StudyProtocolReader.read(json: bytes, path: protocolFile)
            let (plan, allocation) = try StudyPlan.make(studyProtocol, patientsPath: patients)
            let folder = output.hasSuffix("/") && output.count > 1 ? String(output.dropLast()) : output
            let planPath = folder + "/plan.json", keyPath = folder + "/key/allocation.csv"
            let made = try FolderCreation.create(try FolderCreation.missingFolders(for: keyPath))
            do {
                try AtomicFile.write(plan.json, to: planPath)
                try AtomicFile.write(Array(allocation.csv.utf8), to: keyPath)
            } catch {
                FolderCreation.remove(made)
                throw error
            }
            FolderCreation.keep(made)
            var counts: [String: Int] = [:]
            for patient in plan.patients { counts[patient.arm, default: 0] += 1 }
            let arms = studyProtocol.armNames.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ")
            print("planned \(plan.patients.count) patients (\(arms)), \(plan.patients.map(\.sounds.count).reduce(0, +)) sounds: \(planPath)")
        }
    }
}
