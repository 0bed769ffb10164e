import Foundation
import Testing
import ShadesTestSupport

/// A study built on a real one-node Slurm cluster (`make test-slurm` starts it with scripts/slurm-cluster.sh) and
/// with GNU Parallel: the generated sbatch script's array survives a cancelled task and a crashed node daemon, a
/// resubmission of the failed indices completes it, and no patient is built completely twice. Skipped without
/// SLURM_CONF (plain `swift test`). One test at a time: each uses both cores.
@Suite(.serialized, .enabled(if: Cluster.configuration != nil, "needs a Slurm cluster: make test-slurm"))
struct ClusterTests {
    /// Patients in each test's study.
    static let patients = 200

    /// The cluster itself: a script array of four tasks, two at a time, each writing its index.
    @Test func aScriptArrayRunsOnTheCluster() throws {
        let folder = temporaryFolder("slurm-smoke")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            #!/bin/bash
            #SBATCH --array=0-3%2
            #SBATCH --output=\(folder)/task_%a.log
            echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT"

            """
        try script.write(toFile: folder + "/smoke.sbatch", atomically: true, encoding: .utf8)
        let job = try Cluster.submit(folder + "/smoke.sbatch", in: folder)
        try Cluster.waitForEnd(of: job, timeout: 60)
        for index in 0..<4 {
            let log = try? String(contentsOfFile: folder + "/task_\(index).log", encoding: .utf8)
            #expect(log == "task \(index) of 4\n", "task \(index): \(log ?? "no log")")
        }
        let outcomes = try Cluster.outcomes(of: job)
        #expect(outcomes.count == 4 && outcomes.values.allSatisfy { $0.state == "COMPLETED" && $0.exitCode == "0:0" }, "\(outcomes)")
    }

    /// `study slurm --tasks 8 --max-running 2`, submitted; one running task cancelled (`scancel JOB_I`) and the node's
    /// slurmd killed (SIGKILL) while another runs, then restarted; the failed indices resubmitted. Then every
    /// patient is done and verified, and the tasks' logs show none built completely twice.
    @Test func aStudyBuildsAsAJobArrayThroughACancelAndANodeDaemonCrash() throws {
        let folder = temporaryFolder("slurm-study")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = Date()
        try StudyFixture.makeCohort(Self.patients, in: folder)
        try StudyFixture.plan(in: folder)
        let planned = Date()

        // One CPU a task, so two run at once on a 2-core node; 1G fits any node's memory.
        let slurm = try Shell.run(["study", "slurm", "study", "--tasks", "8", "--max-running", "2", "--cpus", "1", "--mem", "1G"], in: folder)
        try #require(slurm.status == 0, "\(slurm.stdout)\(slurm.stderr)")
        #expect(slurm.stdout.contains("sbatch "), "prints the sbatch command: \(slurm.stdout)")
        let script = folder + "/study/slurm/build.sbatch"
        let text = try String(contentsOfFile: script, encoding: .utf8)
        #expect(text.contains("--array=0-7%2"), "\(text)")
        #expect(text.contains(URL(fileURLWithPath: Shell.executable).resolvingSymlinksInPath().path), "the shades binary by its absolute path: \(text)")
        #expect(!text.contains("srun"), "no srun: \(text)")
        let logs = folder + "/study/slurm/logs"

        let job = try Cluster.submit(script, in: folder)
        // A task cancelled while it builds: SIGTERM from slurmstepd.
        let cancelled = try #require(try Cluster.runningTask(of: job, timeout: 120), "no task of \(job) ran")
        // Cancelled once its log names a built patient, or after 2 s (a task takes about 4 s on an idle 2-core
        // machine): `study build`'s lines reach a log file only when its buffer is flushed.
        let output = try Cluster.outputPath(of: job, task: cancelled)
        _ = Cluster.wait(timeout: 2) { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains(" built in ") }
        let cancel = try Command.run("scancel", ["\(job)_\(cancelled)"])
        try #require(cancel.status == 0, "scancel: \(cancel.stderr)")
        #expect(try Cluster.wait(timeout: 60) { try !Cluster.queued(job).contains { $0.index == cancelled } }, "task \(cancelled) ends")
        // The node's daemon killed while another task runs; the task goes on without it; slurmd restarted.
        let orphaned = try #require(try Cluster.runningTask(of: job, excluding: [cancelled], timeout: 120), "no other task of \(job) ran")
        try Cluster.control("kill-slurmd")
        usleep(2_000_000)
        try Cluster.control("restart-slurmd")
        try Cluster.waitForEnd(of: job, timeout: 600)
        let firstArray = Date()

        let outcomes = try Cluster.outcomes(of: job)
        #expect(outcomes.count == 8, "\(outcomes)")
        #expect(outcomes[cancelled]?.state == "CANCELLED", "task \(cancelled): \(String(describing: outcomes[cancelled]))")
        let failed = outcomes.filter { $0.value.state != "COMPLETED" || $0.value.exitCode != "0:0" }.keys.sorted()
        print("job \(job): task \(cancelled) cancelled, slurmd killed during task \(orphaned); failed \(failed); \(outcomes)")

        // The first array's logs kept apart (a task's log may be named by its index alone), then the failed
        // indices again: a patient already built is skipped, a half-built one rebuilt.
        let firstLogs = folder + "/first-logs"
        try FileManager.default.createDirectory(atPath: firstLogs, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: logs) {
            try FileManager.default.moveItem(atPath: logs + "/" + name, toPath: firstLogs + "/" + name)
        }
        if !failed.isEmpty {
            let again = try Cluster.submit(script, array: failed.map(String.init).joined(separator: ","), in: folder)
            try Cluster.waitForEnd(of: again, timeout: 600)
            let resubmitted = try Cluster.outcomes(of: again)
            #expect(resubmitted.count == failed.count && resubmitted.values.allSatisfy { $0.state == "COMPLETED" && $0.exitCode == "0:0" },
                    "\(resubmitted)")
        }
        let resubmission = Date()

        try StudyFixture.expectDoneAndVerified(Self.patients, in: folder)
        var log = BuildLog()
        try log.read(folder: firstLogs)
        try log.read(folder: logs)
        #expect(log.builtTwice.isEmpty, "built completely twice: \(log.builtTwice)")
        #expect(log.named == Set(StudyFixture.ids(Self.patients)), "every patient is in a task's log")
        print(String(format: "cohort and plan %.1f s, first array %.1f s, resubmission %.1f s, status and check %.1f s",
                     planned.timeIntervalSince(started), firstArray.timeIntervalSince(planned),
                     resubmission.timeIntervalSince(firstArray), Date().timeIntervalSince(resubmission)))
    }

    /// docs/studies.md's "On a cluster" commands as written (the bundle's `tar` line aside: scripts/bundle-test.sh runs
    /// it), with this build's `shades` on PATH, in a workspace holding `protocol.json` (the cluster study),
    /// `patients.csv` and the measurements: plan, `study slurm … && sbatch …`, then `study status` once the job
    /// has ended, which exits 0; `study check` verifies every patient.
    @Test func theReadmeClusterSectionRunsAsWritten() throws {
        let folder = temporaryFolder("slurm-readme")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let readme = try String(contentsOfFile: StudyFixture.packageRoot + "/docs/studies.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n### On a cluster\n").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let lines = block.split(separator: "\n").map(String.init)
        try #require(lines.count == 4 && lines[0].hasPrefix("tar -xzf ") && lines.dropFirst().allSatisfy { $0.hasPrefix("shades study ") },
                     "the bundle's tar line, then three shades commands: \(lines)")
        let patients = 30
        try StudyFixture.makeCohort(patients, in: folder)
        let study = try String(contentsOfFile: StudyFixture.protocolPath, encoding: .utf8)
            .replacingOccurrences(of: "\"../../Presets/", with: "\"" + StudyFixture.packageRoot + "/Presets/")
        try study.write(toFile: folder + "/protocol.json", atomically: true, encoding: .utf8)
        let path = URL(fileURLWithPath: Shell.executable).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

        var outputs: [String] = []
        for line in lines.dropFirst() {
            let run = try Shell.run(program: "/bin/bash", ["-euc", line], in: folder, environment: ["PATH": path])
            outputs.append(run.stdout)
            if line.hasPrefix("shades study status") {
                #expect(run.status == 0, "\(line): \(run.stdout)\(run.stderr)")
                #expect(run.stdout.contains("\(patients) of \(patients) patients done"), "\(run.stdout)")
            } else {
                try #require(run.status == 0, "\(line): \(run.stdout)\(run.stderr)")
            }
            // sbatch prints "Submitted batch job ID": the status line comes once the job has ended.
            if let submitted = run.stdout.split(separator: "\n").first(where: { $0.hasPrefix("Submitted batch job ") }) {
                let job = String(submitted.dropFirst("Submitted batch job ".count))
                try Cluster.waitForEnd(of: job, timeout: 600)
                let outcomes = try Cluster.outcomes(of: job)
                #expect(!outcomes.isEmpty && outcomes.values.allSatisfy { $0.state == "COMPLETED" && $0.exitCode == "0:0" }, "\(outcomes)")
            }
        }
        #expect(outputs.contains { $0.contains("Submitted batch job ") }, "the slurm line submitted a job: \(outputs)")
        try StudyFixture.expectDoneAndVerified(patients, in: folder)
    }

    /// The same study's shards with GNU Parallel, no scheduler: `parallel shades study build STUDY --shard {}/4 ::: 0 1 2 3`
    /// builds every patient once; a second run skips them all.
    @Test func theShardsBuildWithGNUParallel() throws {
        let folder = temporaryFolder("parallel-study")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try StudyFixture.makeCohort(Self.patients, in: folder)
        try StudyFixture.plan(in: folder)
        let arguments = ["--will-cite", Shell.executable, "study", "build", "study", "--shard", "{}/4", ":::", "0", "1", "2", "3"]
        var build = try Command.run("parallel", arguments, in: folder)
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        var log = BuildLog()
        log.read(build.stdout)
        #expect(log.built.keys.sorted() == StudyFixture.ids(Self.patients).sorted() && log.builtTwice.isEmpty, "\(build.stdout)")
        try StudyFixture.expectDoneAndVerified(Self.patients, in: folder)

        build = try Command.run("parallel", arguments, in: folder)
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.stdout.split(separator: "\n").filter { $0.hasSuffix(" skipped: already built") }.count == Self.patients, "\(build.stdout)")
    }
}
