import ShadesDSP

/// The study commands' parameters: the command line names each by its flag (`--jobs 0 is out of range`).
extension ParameterID {
    package static let studyPatient = ParameterID("studyPatient", name: "patient")
    package static let shard = ParameterID("shard", name: "shard")
    package static let shardCount = ParameterID("shardCount", name: "shard count")
    package static let buildJobs = ParameterID("buildJobs", name: "jobs")
    package static let arrayTasks = ParameterID("arrayTasks", name: "tasks")
    package static let maxRunning = ParameterID("maxRunning", name: "tasks running at once")
    package static let taskCPUs = ParameterID("taskCPUs", name: "CPUs per task")
    package static let partition = ParameterID("partition", name: "partition")
    package static let timeLimit = ParameterID("timeLimit", name: "time limit")
    package static let taskMemory = ParameterID("taskMemory", name: "memory per task")
}

extension Parameter {
    /// Shards of a build (N of I/N), 1 … 1,000,000.
    package static let shardCount = Parameter(.shardCount, range: ParameterRange(1...1_000_000, wholeNumbers: true))
    /// Patients built at once, 1 … 64.
    package static let buildJobs = Parameter(.buildJobs, range: ParameterRange(1...64, wholeNumbers: true))
    /// Tasks of a job array, 1 … 100,000.
    package static let arrayTasks = Parameter(.arrayTasks, range: ParameterRange(1...100_000, wholeNumbers: true))
    package static let maxRunning = Parameter(.maxRunning, range: ParameterRange(1...100_000, wholeNumbers: true))
    package static let taskCPUs = Parameter(.taskCPUs, range: ParameterRange(1...64, wholeNumbers: true))
}
