import ShadesDSP

/// The sbatch script of a study's build: a job array whose task I builds shard I/N
/// (``StudyBuild/Shard``), one log per task, the `shades` binary by its absolute path, no `srun` (so it runs
/// on any Slurm). Resubmitting indices (`sbatch --array=3,7 build.sbatch`) builds the same shards: N is
/// written into the script, not taken from the array.
public struct SlurmScript: Sendable {
    /// The study folder, absolute.
    public var studyPath: String
    /// The `shades` binary, absolute.
    public var shadesPath: String
    /// Array tasks (shards), 1 … 100,000, and how many run at once (nil: as many as Slurm allows).
    public var tasks: Int
    public var maxRunning: Int?
    public var partition: String?
    /// Time limit per task, as sbatch takes it ("02:00:00", "1-00:00:00").
    public var time: String
    /// CPUs per task (patients built at once) and memory per task ("4G").
    public var cpus: Int
    public var memory: String

    public init(studyPath: String, shadesPath: String, tasks: Int, maxRunning: Int?, partition: String?, time: String, cpus: Int, memory: String) {
        (self.studyPath, self.shadesPath, self.tasks, self.maxRunning) = (studyPath, shadesPath, tasks, maxRunning)
        (self.partition, self.time, self.cpus, self.memory) = (partition, time, cpus, memory)
    }

    /// Where the script is written, and each task's log (`%A`: the job, `%a`: the task).
    public static func scriptPath(_ study: StudyFolder) -> String { study.path + "/slurm/build.sbatch" }
    public static func logFolder(_ study: StudyFolder) -> String { study.path + "/slurm/logs" }

    /// Checks each setting; the error names it and its allowed values.
    public func validate() throws(ShadesError) {
        try Parameter.arrayTasks.check(Double(tasks))
        if let maxRunning { try Parameter.maxRunning.check(Double(maxRunning)) }
        try Parameter.taskCPUs.check(Double(cpus))
        let examples: [ParameterID: String] = [.partition: "cpu, short", .timeLimit: "02:00:00", .taskMemory: "4G"]
        for (parameter, value) in [(ParameterID.partition, partition ?? "main"), (.timeLimit, time), (.taskMemory, memory)] {
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-:_.".contains($0)) }) else {
                throw ShadesError(parameter, .other("is not allowed in an sbatch line"), value: .text("'\(value)'"),
                                  allowed: AllowedValues(note: "letters, digits, '-', ':', '_', '.', e.g. \(examples[parameter]!)"))
            }
        }
        guard Self.isTimeLimit(time) else {
            throw ShadesError(.timeLimit, .other("is not an sbatch time"), value: .text("'\(time)'"),
                              allowed: AllowedValues(note: "MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED, e.g. 02:00:00, 1-00:00:00"))
        }
        guard Self.isMemory(memory) else {
            throw ShadesError(.taskMemory, .other("is not an sbatch memory size"), value: .text("'\(memory)'"),
                              allowed: AllowedValues(note: "a whole number of megabytes, or with K, M, G or T, e.g. 4G, 500M"))
        }
    }

    /// sbatch's time limits: minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes,
    /// days-hours:minutes:seconds, or UNLIMITED (INFINITE).
    static func isTimeLimit(_ text: String) -> Bool {
        if ["UNLIMITED", "INFINITE"].contains(text.uppercased()) { return true }
        let days = text.split(separator: "-", omittingEmptySubsequences: false)
        guard days.count <= 2 else { return false }
        let clock = days.last!.split(separator: ":", omittingEmptySubsequences: false)
        let fields = days.dropLast() + clock
        return clock.count <= 3 && fields.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// sbatch's memory sizes: a whole number of megabytes, or with a unit K, M, G or T.
    static func isMemory(_ text: String) -> Bool {
        let digits = text.last.map { "KMGTkmgt".contains($0) } == true ? text.dropLast() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `text` as one word of a POSIX shell command: in single quotes (a quote in it as `'\''`), or as it is
    /// when it holds only letters, digits and `/ . _ - + , :` (unless `quotedAlways`).
    package static func shellWord(_ text: String, quotedAlways: Bool = false) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+,:".contains($0)) }
        if plain && !quotedAlways { return text }
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// The script's text.
    public func text(studyName: String) -> String {
        let quoted = { (s: String) in Self.shellWord(s, quotedAlways: true) }
        var lines = ["#!/bin/sh",
                     "# The build of study \(studyName): task I of \(tasks) builds shard I/\(tasks) (written by shades study slurm).",
                     "# Exit status 0: the shard is done; 1: a failure worth retrying (resubmit: sbatch --array=I,J this file);",
                     "# 2: a failure a retry cannot fix (see the log and shades study status).",
                     "#SBATCH --job-name=shades-\(studyName)",
                     "#SBATCH --array=0-\(tasks - 1)" + (maxRunning.map { "%\($0)" } ?? ""),
                     "#SBATCH --output=\(Self.logFolder(StudyFolder(studyPath)))/task-%A_%a.log",
                     "#SBATCH --cpus-per-task=\(cpus)",
                     "#SBATCH --mem=\(memory)",
                     "#SBATCH --time=\(time)"]
        if let partition { lines.append("#SBATCH --partition=\(partition)") }
        lines.append("exec \(quoted(shadesPath)) study build \(quoted(studyPath)) --shard \"${SLURM_ARRAY_TASK_ID}/\(tasks)\" --jobs \(cpus)")
        return lines.joined(separator: "\n") + "\n"
    }
}
