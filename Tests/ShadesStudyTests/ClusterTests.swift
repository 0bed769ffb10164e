import Testing
import ShadesDSP
import ShadesStudy

/// The shard a scheduler's task builds, and the sbatch script: fixed by the plan and the task's index alone.
@Suite struct ClusterTests {
    @Test func aShardIsTheSchedulersTask() throws {
        let slurm = try #require(try StudyBuild.Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8"], count: nil))
        #expect(slurm == (try StudyBuild.Shard(index: 3, count: 8)))
        // An array 10-17: task 12 is the third shard of eight.
        let range = try #require(try StudyBuild.Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "17"], count: nil))
        #expect(range == (try StudyBuild.Shard(index: 2, count: 8)))
        // A resubmitted task keeps the count it is given, whatever the array it runs in.
        let resubmitted = try #require(try StudyBuild.Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "1"], count: 8))
        #expect(resubmitted == (try StudyBuild.Shard(index: 5, count: 8)))
        let kubernetes = try #require(try StudyBuild.Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], count: 4))
        #expect(kubernetes == (try StudyBuild.Shard(index: 0, count: 4)))
        #expect(try StudyBuild.Shard.fromEnvironment([:], count: nil) == nil)
        #expect(throws: ShadesError.self) { try StudyBuild.Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], count: nil) }
        // A task the variables put outside the array is named by them, not by a --shard the user never typed.
        do {
            _ = try StudyBuild.Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "8"], count: nil)
            Issue.record("task 9 of 8 was taken")
        } catch {
            #expect(error.message == "SLURM_ARRAY_TASK_ID 9, SLURM_ARRAY_TASK_MIN 0 and SLURM_ARRAY_TASK_COUNT give task 9 of 8 (allowed: a task 0 … N-1 of N ≥ 1)")
        }
        // --shard-count without a task index would build every patient in every task.
        #expect(throws: ShadesError.self) { try StudyBuild.Shard.fromEnvironment([:], count: 4) }
        #expect(throws: ShadesError.self) { try StudyBuild.Shard("3/3") }
        #expect(throws: ShadesError.self) { try StudyBuild.Shard("a/3") }
        // Places 0 … 9 over 4 shards: each place in exactly one.
        let shards = try (0..<4).map { try StudyBuild.Shard(index: $0, count: 4) }
        #expect((0..<10).allSatisfy { place in shards.filter { $0.contains(place: place) }.count == 1 })
    }

    @Test func theSbatchScriptBuildsShardIOfN() throws {
        let script = SlurmScript(studyPath: "/work/study", shadesPath: "/opt/shades/bin/shades", tasks: 50, maxRunning: 10,
                                 partition: "cpu", time: "04:00:00", cpus: 4, memory: "8G")
        try script.validate()
        let text = script.text(studyName: "trial")
        #expect(text.hasPrefix("#!/bin/sh\n"))
        for line in ["#SBATCH --array=0-49%10", "#SBATCH --output=/work/study/slurm/logs/task-%A_%a.log", "#SBATCH --cpus-per-task=4",
                     "#SBATCH --mem=8G", "#SBATCH --time=04:00:00", "#SBATCH --partition=cpu",
                     "exec '/opt/shades/bin/shades' study build '/work/study' --shard \"${SLURM_ARRAY_TASK_ID}/50\" --jobs 4"] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        #expect(!text.contains("srun"))
        #expect(SlurmScript.shellWord("/work/study/slurm/build.sbatch") == "/work/study/slurm/build.sbatch")
        #expect(SlurmScript.shellWord("/work/stüdy'x$HOME/build.sbatch") == "'/work/stüdy'\\''x$HOME/build.sbatch'")
        var bad = script
        bad.partition = "cpu; rm -rf /"
        #expect(throws: ShadesError.self) { try bad.validate() }
        bad = script
        bad.tasks = 0
        #expect(throws: ShadesError.self) { try bad.validate() }
        // sbatch's own formats of a time limit and a memory size, and nothing else.
        for time in ["90", "30:00", "04:00:00", "2-12", "1-00:30", "1-00:00:00", "UNLIMITED"] {
            bad = script
            bad.time = time
            #expect(throws: Never.self, "\(time)") { try bad.validate() }
        }
        for time in ["forever", "1:2:3:4", "1-2-3", "-5", "1:", "2h"] {
            bad = script
            bad.time = time
            #expect(throws: ShadesError.self, "\(time)") { try bad.validate() }
        }
        for memory in ["4096", "4G", "500M", "1T", "0"] {
            bad = script
            bad.memory = memory
            #expect(throws: Never.self, "\(memory)") { try bad.validate() }
        }
        for memory in ["lots", "-4G", "4GB", "G", "4.5G"] {
            bad = script
            bad.memory = memory
            #expect(throws: ShadesError.self, "\(memory)") { try bad.validate() }
        }
    }
}
