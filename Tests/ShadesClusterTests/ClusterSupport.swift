import Foundation
import Testing
import ShadesTestSupport

/// Runs other programs than `shades` (sbatch, squeue, parallel, the cluster script), found on PATH.
enum Command {
    /// Runs `program arguments` in `folder`; its exit status and output.
    static func run(_ program: String, _ arguments: [String], in folder: String = FileManager.default.currentDirectoryPath)
        throws -> (status: Int32, stdout: String, stderr: String) {
        try Shell.run(program: "/usr/bin/env", [program] + arguments, in: folder)
    }
}

/// The one-node cluster `make test-slurm` starts (scripts/slurm-cluster.sh), seen through its environment.
enum Cluster {
    /// The cluster's configuration file; nil when no cluster was started (the suite is then skipped).
    static let configuration = ProcessInfo.processInfo.environment["SLURM_CONF"]
    /// scripts/slurm-cluster.sh, which stops and restarts the node's daemon for the tests.
    static let script = ProcessInfo.processInfo.environment["SHADES_SLURM_CLUSTER"]
        ?? StudyFixture.packageRoot + "/scripts/slurm-cluster.sh"
    /// The cluster's folder (configuration, state, pid files).
    static var folder: String { URL(fileURLWithPath: configuration ?? "/").deletingLastPathComponent().path }

    /// Runs `slurm-cluster.sh command FOLDER` (kill-slurmd, restart-slurmd).
    static func control(_ command: String) throws {
        let run = try Command.run("bash", [script, command, folder])
        try #require(run.status == 0, "slurm-cluster.sh \(command): \(run.stderr)")
    }

    /// Submits `script` (with `--array` overriding its own when given); the job's id.
    static func submit(_ script: String, array: String? = nil, in folder: String) throws -> String {
        let run = try Command.run("sbatch", ["--parsable"] + (array.map { ["--array=\($0)"] } ?? []) + [script], in: folder)
        try #require(run.status == 0, "sbatch: \(run.stderr)")
        return String(try #require(run.stdout.split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A task of an array job as squeue shows it.
    struct QueuedTask {
        var index: Int?
        var state: String
        var reason: String
    }

    /// The job's tasks still in the queue (pending, running, completing), one per task.
    static func queued(_ job: String) throws -> [QueuedTask] {
        let run = try Command.run("squeue", ["-h", "-r", "-j", job, "-o", "%K|%T|%r"])
        // squeue fails once the controller has forgotten the job: then none is queued.
        guard run.status == 0 else { return [] }
        return run.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return QueuedTask(index: Int(fields[0]), state: fields.count > 1 ? fields[1] : "", reason: fields.count > 2 ? fields[2] : "")
        }
    }

    /// Waits up to `timeout` seconds for a running task of `job` whose index is not in `excluded`.
    static func runningTask(of job: String, excluding excluded: Set<Int> = [], timeout: Double) throws -> Int? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let index = try queued(job).first(where: { $0.state == "RUNNING" && !excluded.contains($0.index ?? -1) })?.index { return index }
            usleep(100_000)
        }
        return nil
    }

    /// The file a task writes its output to (`scontrol show job`'s StdOut), wherever the script names it.
    static func outputPath(of job: String, task index: Int) throws -> String {
        let run = try Command.run("scontrol", ["-o", "show", "job", "\(job)_\(index)"])
        try #require(run.status == 0, "scontrol show job \(job)_\(index): \(run.stderr)")
        let field = try #require(run.stdout.split(separator: " ").first { $0.hasPrefix("StdOut=") }, "\(run.stdout)")
        return String(field.dropFirst("StdOut=".count))
    }

    /// Waits up to `timeout` seconds for `condition`; whether it held.
    static func wait(timeout: Double, until condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if try condition() { return true }
            usleep(250_000)
        }
        return try condition()
    }

    /// Waits up to `timeout` seconds for the whole array to leave the queue (`squeue -h -j JOB` empty); a task
    /// held after a failed launch is released. On a timeout the job is cancelled and the test fails.
    static func waitForEnd(of job: String, timeout: Double) throws {
        let ended = try wait(timeout: timeout) {
            let tasks = try queued(job)
            for task in tasks where task.reason.localizedCaseInsensitiveContains("held") {
                _ = try Command.run("scontrol", ["release", task.index.map { "\(job)_\($0)" } ?? job])
            }
            return tasks.isEmpty
        }
        let left = try queued(job).map { "\($0.index ?? -1) \($0.state) \($0.reason)" }
        if !ended { _ = try Command.run("scancel", [job]) }
        try #require(ended, "job \(job) still queued after \(Int(timeout)) s: \(left)")
    }

    /// How each task of an ended array job ended, by index: `scontrol show job` (no accounting on this cluster).
    static func outcomes(of job: String) throws -> [Int: (state: String, exitCode: String)] {
        let run = try Command.run("scontrol", ["-o", "show", "job", job])
        try #require(run.status == 0, "scontrol show job \(job): \(run.stderr)")
        var outcomes: [Int: (state: String, exitCode: String)] = [:]
        for line in run.stdout.split(separator: "\n") {
            var fields: [String: String] = [:]
            for field in line.split(separator: " ") {
                let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            if let index = fields["ArrayTaskId"].flatMap({ Int($0) }) {
                outcomes[index] = (fields["JobState"] ?? "", fields["ExitCode"] ?? "")
            }
        }
        return outcomes
    }
}

/// A study of synthetic patients and short generator sounds, planned from Tests/ShadesClusterTests/cluster-study.json.
enum StudyFixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// Two arms and their shams: AM pink noise at MML + 6 dB and a spectral ripple at 20 dB SL, 2 s each.
    static let protocolPath = packageRoot + "/Tests/ShadesClusterTests/cluster-study.json"

    /// The patients' ids, P1 … P`count`.
    static func ids(_ count: Int) -> [String] { (1...count).map { "P\($0)" } }

    /// Writes a cohort of `count` patients at two sites in `folder` (patients.csv): 10 audiograms (mild loss) shared
    /// round robin and 9 MMLs, one per tinnitus frequency, from the simulated listeners; every tenth patient with a tinnitus per ear; no music.
    static func makeCohort(_ count: Int, in folder: String) throws {
        for sub in ["a", "m"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        for i in 0..<10 {
            let audiogram = try Shell.run(["audiometry", "--simulate-audiogram", "250:5,500:5,1000:10,2000:10,4000:15,8000:20",
                                           "--seed", "\(i + 1)", "-o", "a/A\(i).json"], in: folder)
            try #require(audiogram.status == 0, "\(audiogram.stderr)")
        }
        // One MML per tinnitus frequency, measured there (the plan refuses an MML whose band misses it).
        for i in 0..<9 {
            let mml = try Shell.run(["mml", "--frequency", "\(4000 + 250 * i)", "--threshold", "-\(70 + i % 7)", "--simulate", "20dB",
                                     "-o", "m/M\(i).json"], in: folder)
            try #require(mml.status == 0, "\(mml.stderr)")
        }
        var csv = "id,site,arm,tinnitusHz,audiogram,mml,music\n"
        for i in 1...count {
            let tinnitus = i % 10 == 0 ? "left=6000 right=7000" : "\(4000 + 250 * (i % 9))"
            // M8 is at 6000 Hz, whose octave band holds both ears' frequencies of a tinnitus per ear.
            csv += "P\(i),\(i % 2 == 0 ? "Ulm" : "Regensburg"),,\(tinnitus),a/A\(i % 10).json,m/M\(i % 10 == 0 ? 8 : i % 9).json,\n"
        }
        try csv.write(toFile: folder + "/patients.csv", atomically: true, encoding: .utf8)
    }

    /// Plans the cohort of `folder` into `folder/study`.
    static func plan(in folder: String) throws {
        let plan = try Shell.run(["study", "plan", protocolPath, "patients.csv", "-o", "study"], in: folder)
        try #require(plan.status == 0, "\(plan.stdout)\(plan.stderr)")
    }

    /// `study status` and `study check` both exit 0: every patient done and verified.
    static func expectDoneAndVerified(_ count: Int, in folder: String) throws {
        let status = try Shell.run(["study", "status", "study"], in: folder)
        #expect(status.status == 0, "study status: \(status.stdout)\(status.stderr)")
        let check = try Shell.run(["study", "check", "study"], in: folder)
        #expect(check.status == 0, "study check: \(check.stderr)")
        #expect(check.stdout.hasPrefix("checked \(count) patients"), "\(check.stdout)")
    }
}

/// What builds logged, one line per patient: "ID built in X s", "ID skipped: …", "ID failed: reason".
struct BuildLog {
    /// How many times each patient was built completely ("built in").
    var built: [String: Int] = [:]
    /// Every patient named on a line (built, skipped or failed).
    var named: Set<String> = []

    mutating func read(_ text: String) {
        for line in text.split(separator: "\n") {
            if let range = line.range(of: " built in ") {
                let id = String(line[..<range.lowerBound])
                built[id, default: 0] += 1
                named.insert(id)
            } else if let range = line.range(of: " skipped: ") ?? line.range(of: " failed: ") {
                named.insert(String(line[..<range.lowerBound]))
            }
        }
    }

    /// Reads every file in `folder`.
    mutating func read(folder: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            read(try String(contentsOfFile: folder + "/" + name, encoding: .utf8))
        }
    }

    /// The patients built completely more than once.
    var builtTwice: [String] { built.filter { $0.value > 1 }.keys.sorted() }
}
