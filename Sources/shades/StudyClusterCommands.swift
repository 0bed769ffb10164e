import ArgumentParser
import ShadesDSP
import ShadesIO
import ShadesStudy
import ShadesPlatform
import ShadesRender

extension StudyCommand {
    struct Slurm: ParsableCommand, ParameterOptions {
        static let configuration = CommandConfiguration(
            commandName: "slurm",
            abstract: "Write the sbatch script that builds a planned study as a Slurm job array.",
            usage: "shades study slurm <study> [--tasks <n>] [--partition <p>] [<options>]",
            discussion: """
                Writes STUDY/slurm/build.sbatch: an array of TASKS tasks, task I building shard I/TASKS \
                (shades study build --shard), one log per task in STUDY/slurm/logs/, this shades binary by \
                its absolute path, no srun. Submit it with sbatch; follow it with shades study status; \
                resubmit failed tasks with sbatch --array=I,J STUDY/slurm/build.sbatch (the shards stay \
                the same). Default: one task per 100 patients, at most 1000 (clusters cap MaxArraySize).
                Example:
                  shades study slurm study/ --tasks 50 --max-running 10 \\
                    --partition cpu --time 04:00:00
                """)

        @Argument(help: "The study folder (made by shades study plan).")
        var study: String

        @Option(parsing: .unconditional, help: "Array tasks (shards), 1 … 100000.")
        var tasks: String?

        @Option(parsing: .unconditional, help: "Tasks running at once (the array's %K).")
        var maxRunning: String?

        @Option(parsing: .unconditional, help: "The partition (queue).")
        var partition: String?

        @Option(parsing: .unconditional, help: "Time limit per task (sbatch --time).")
        var time: String = "02:00:00"

        @Option(parsing: .unconditional, help: "CPUs per task: patients built at once (1 … 64).")
        var cpus: String = "2"

        @Option(parsing: .unconditional, help: "Memory per task (sbatch --mem).")
        var mem: String = "4G"

        static let parameters: [ParameterID: String] = [.arrayTasks: "tasks", .maxRunning: "maxRunning", .taskCPUs: "cpus",
                                                         .partition: "partition", .timeLimit: "time", .taskMemory: "mem"]

        func run() throws {
            let taskCount = try tasks.map { (text: String) throws(ShadesError) in try ValueParsing.count(text, .arrayTasks) }
            let running = try maxRunning.map { (text: String) throws(ShadesError) in try ValueParsing.count(text, .maxRunning) }
            let cpuCount = try ValueParsing.count(cpus, .taskCPUs)
            let folder = StudyFolder(try FileSystem.realPath(study))
            let header = try StudyPlan.readHeader(folder)
            guard !folder.path.contains(where: \.isWhitespace) else {
                throw ShadesError(.parameter, "study folder '\(folder.path)' has a space (allowed: a path without spaces, as #SBATCH lines need)")
            }
            // More tasks than patients would leave tasks with nothing to build.
            let tasks = min(taskCount ?? max(1, min(1000, (header.patientCount + 99) / 100)), max(1, header.patientCount))
            let script = SlurmScript(studyPath: folder.path, shadesPath: try FileSystem.executablePath(),
                                     tasks: tasks, maxRunning: running,
                                     partition: partition, time: time, cpus: cpuCount, memory: mem)
            try script.validate()
            let path = SlurmScript.scriptPath(folder)
            _ = try FolderCreation.create(try FolderCreation.missingFolders(for: SlurmScript.logFolder(folder) + "/task.log"))
            try AtomicFile.write(Array(script.text(studyName: header.study).utf8), to: path)
            let fewer = taskCount.map { $0 > script.tasks } == true ? " (one per patient, not --tasks \(taskCount!))" : ""
            print("wrote \(path): \(counted(script.tasks, "task"))\(fewer) for \(counted(header.patientCount, "patient")); "
                  + "submit it with: sbatch \(SlurmScript.shellWord(path))")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Patients done, failed (with the reason) and not yet built, per site.",
            discussion: """
                Done: the patient's folder matches its plan line (its manifest and files' sizes; shades study \
                check reads the audio). Exits 0 only when every patient is done, 1 otherwise.
                Example:
                  shades study status study/
                """)

        @Argument(help: "The study folder.")
        var study: String

        func run() throws {
            let status = try StudyStatus.read(StudyFolder(study))
            let width = max(4, status.sites.map(\.name.count).max() ?? 0)
            print("site".rightPadded(to: width) + "       done     failed  not built")
            for site in status.sites {
                print(site.name.rightPadded(to: width)
                      + [site.done, site.failed, site.notBuilt].map { String($0).leftPadded(to: 11) }.joined())
            }
            for failure in status.failures { print("failed: \(failure.id): \(failure.reason)") }
            let total = status.done + status.failed + status.notBuilt
            print("\(status.done) of \(total) patients done, \(status.failed) failed, \(status.notBuilt) not yet built")
            if !status.isComplete { Platform.exit(1) }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPadded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
