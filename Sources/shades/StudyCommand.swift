import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesStudy
import ShadesRender
import ShadesPlatform

/// `shades study`: a protocol and a cohort become every patient's sounds.
struct StudyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Plan, build and check a study: a protocol and a cohort become every patient's blinded sounds.",
        discussion: """
            The protocol (Presets/studies/README.md) lists the arms, each a list of sounds whose values may name \
            the patient's tinnitus frequency ("{tinnitusHz}") and songs ("{music}"), or the sham of another arm; \
            levels in dBFS, LUFS, dB SPL, dB HL, dB SL or re MML through the headphone calibration.
            Examples:
              shades study plan Presets/studies/example-study.json patients.csv -o study/
              shades study build study/
              shades study check study/
              shades study slurm study/ --tasks 50 && sbatch study/slurm/build.sbatch
              shades study status study/
            """,
        subcommands: [Plan.self, Build.self, Check.self, Slurm.self, Status.self])

    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Resolve every patient's arm, sounds and levels; write the plan and the allocation key.",
            discussion: """
                PATIENTS is a CSV with the columns id,site,arm,tinnitusHz,audiogram,mml,music (audiogram and mml: \
                the JSON `shades audiometry -o` and `shades mml -o` write; music: a folder of the patient's songs; \
                paths relative to the CSV). An empty arm is allocated in permuted blocks stratified by site from \
                the protocol's seed. Every offending patient is refused, one line each, before anything is \
                written. Writes STUDY/plan/study.json and STUDY/plan/patients.jsonl (one line per patient; the same \
                bytes for the same inputs) and STUDY/key/allocation.csv. The plan and the key tell the arms: keep \
                them from whoever assesses the patients.
                Example:
                  shades study plan Presets/studies/example-study.json patients.csv -o study/
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
            let study = StudyFolder(output)
            try plan.checkWritable(into: study, allocation: allocation)
            let made = try FolderCreation.create(try FolderCreation.missingFolders(for: study.allocationKeyPath))
            do {
                _ = try FolderCreation.create(try FolderCreation.missingFolders(for: study.planHeaderPath))
                try AtomicFile.write(plan.patientLines, to: study.planPatientsPath)
                try AtomicFile.write(plan.index, to: study.planIndexPath)
                try AtomicFile.write(plan.headerJSON, to: study.planHeaderPath)
                try AtomicFile.write(Array(allocation.csv.utf8), to: study.allocationKeyPath)
            } catch {
                FolderCreation.remove(made)
                throw error
            }
            FolderCreation.keep(made)
            var counts: [String: Int] = [:]
            for patient in plan.patients { counts[patient.arm, default: 0] += 1 }
            let arms = studyProtocol.armNames.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ")
            print("planned \(plan.patients.count) patients (\(arms)), \(plan.patients.map(\.sounds.count).reduce(0, +)) sounds: \(study.planPatientsPath)")
        }
    }

    struct Build: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Build patients' folders from the plan: STUDY/patients/SHARD/ID/, each whole or not at all.",
            usage: "shades study build <study> [--patient <id> ...] [<options>]",
            discussion: """
                Each patient's sounds are rendered, named by neutral codes (CODE.flac), with a manifest.json \
                that holds no arm, recipe or level, and the unblinding key in STUDY/key/patients/. A patient \
                already built from the same plan is skipped; a half-built one (a killed build) is invisible and \
                built again. One line per patient: built, skipped or failed (with the reason).
                Exit status: 0 every patient done; 1 a failure worth retrying (the system, the disk, an \
                interrupt: SIGINT, SIGTERM, SIGHUP, as scancel and a time limit send); 2 a failure a retry \
                cannot fix (bad input, a level that cannot be made). SIGKILL ends it by the signal.
                Example:
                  shades study build study/ --shard 0/4
                """)

        @Argument(help: "The study folder (made by shades study plan).")
        var study: String

        @Option(parsing: .unconditionalSingleValue, help: "Build only this patient (repeatable).")
        var patient: [String] = []

        @Option(parsing: .unconditional, help: """
            Build one share of the patients: I/N (the patients whose place in the plan, from 0, leaves I divided \
            by N). Without it: SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT (or MIN…MAX), or \
            JOB_COMPLETION_INDEX of --shard-count, when set.
            """)
        var shard: String?

        @Option(parsing: .unconditional, help: "N for a shard index taken from the environment (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID).")
        var shardCount: String?

        @Option(parsing: .unconditional, help: "Patients built at the same time (1 … 64).")
        var jobs: String = "2"

        static let parameters: [ParameterID: String] = [.studyPatient: "patient", .shard: "shard", .shardCount: "shardCount", .buildJobs: "jobs"]

        func run() throws {
            // A scheduler's cancel or time limit (SIGTERM) is worth retrying: the patient being built is removed.
            InterruptCleanup.setExitStatusOnInterrupt(1)
            let concurrency = try ValueParsing.count(jobs, .buildJobs)
            let count = try shardCount.map { (text: String) throws(ShadesError) in try ValueParsing.count(text, .shardCount) }
            let share = try shard.map { (text: String) throws(ShadesError) in try StudyBuild.Shard(text) }
                ?? StudyBuild.Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: count) ?? .all
            let results = try StudyBuild.build(StudyFolder(study), shard: share, ids: patient.isEmpty ? nil : Set(patient),
                                               concurrency: concurrency) { result in
                // Each line reaches a scheduler's log as the patient ends (a killed task's log names what it built).
                print(Self.line(result))
                fflush(nil)
            }
            let failed = results.filter { $0.failure != nil }
            let built = results.filter { if case .built = $0.outcome { return true } else { return false } }.count
            let summary = "built \(built), skipped \(results.count - built - failed.count), failed \(failed.count) of \(results.count) patients"
            guard failed.isEmpty else {
                printError(summary)
                Platform.exit(failed.contains { Self.isRetryable($0.failure!) } ? 1 : 2)
            }
            print(summary)
        }

        /// "P001 built in 4.2 s", "P002 skipped: already built", "P003 failed: …".
        static func line(_ result: StudyBuild.PatientResult) -> String {
            switch result.outcome {
            case .built(let seconds): return "\(result.id) built in \(formatNumber(seconds, roundedTo: 1)) s"
            case .skipped(let other): return "\(result.id) skipped: " + (other ? "built by another build" : "already built")
            case nil: return "\(result.id) failed: \(result.failure!.description)"
            }
        }

        /// A failure of the system (the disk, I/O, an interruption) may pass; bad input and levels do not.
        static func isRetryable(_ error: ShadesError) -> Bool { error.kind == .runtime }
    }

    struct Check: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Verify built patients against the plan: files, hashes, levels at the ear, twins' loudness, blinding.",
            discussion: """
                Reads every file of every patient's folder: its SHA-256 against the manifest and the key, its \
                comment tag (a digest only), its level measured through the calibration (within 0.1 dB of the \
                plan), a sham's loudness (within 0.1 LU of its active twin's), and every word of the folder's \
                text and metadata against the words that would tell the arm. Prints each difference in one \
                line and exits 1 on any.
                Example:
                  shades study check study/
                """)

        @Argument(help: "The study folder.")
        var study: String

        @Option(parsing: .unconditionalSingleValue, help: "Check only this patient (repeatable).")
        var patient: [String] = []

        static let parameters: [ParameterID: String] = [.studyPatient: "patient"]

        func run() throws {
            let report = try StudyCheck.check(StudyFolder(study), ids: patient.isEmpty ? nil : Set(patient))
            guard report.differences.isEmpty else {
                for line in report.differences { printError(line) }
                printError("\(report.differences.count) differences from the plan")
                Platform.exit(1)
            }
            print("checked \(report.checked) patients: every file, level, twin and folder matches the plan")
        }
    }
}
