import Dispatch
import Synchronization
import ShadesDSP
import ShadesIO

/// Builds the patients of a planned study: all of them, the ones named, or one shard's share.
public enum StudyBuild {
    /// A share of the patients: the patients whose place in the plan (0, 1, 2 … in the order of
    /// `plan/patients.jsonl`) leaves `index` when divided by `count`. It depends on the plan alone.
    public struct Shard: Sendable, Equatable, CustomStringConvertible {
        public let index: Int
        public let count: Int

        public init(index: Int, count: Int) throws(ShadesError) {
            guard count >= 1, (0..<count).contains(index) else {
                throw ShadesError(.shard, .outOfRange, value: .text("\(index)/\(count)"), allowed: AllowedValues(note: "I/N with 0 ≤ I < N, N ≥ 1"))
            }
            (self.index, self.count) = (index, count)
        }

        /// "I/N", e.g. "3/16".
        public init(_ text: String) throws(ShadesError) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
                throw ShadesError(.shard, .notParseable(expected: "a shard I/N", examples: "0/4, 3/16"), value: .text("'\(text)'"))
            }
            try self.init(index: i, count: n)
        }

        public static let all = try! Shard(index: 0, count: 1)

        /// The shard a scheduler's task is: `SLURM_ARRAY_TASK_ID` of `count`, else of `SLURM_ARRAY_TASK_COUNT`
        /// (or `SLURM_ARRAY_TASK_MIN` … `MAX`, counted from MIN); or Kubernetes' `JOB_COMPLETION_INDEX` of
        /// `count`. Nil when none is set.
        public static func fromEnvironment(_ environment: [String: String], count: Int?) throws(ShadesError) -> Shard? {
            func number(_ name: String) throws(ShadesError) -> Int? {
                guard let text = environment[name] else { return nil }
                guard let value = Int(text) else { throw ShadesError(.parameter, "\(name) '\(text)' is not a whole number") }
                return value
            }
            // A shard the scheduler's variables give is named by them, not by a --shard the user never typed.
            func shard(_ index: Int, of count: Int, from names: String) throws(ShadesError) -> Shard {
                guard count >= 1, (0..<count).contains(index) else {
                    throw ShadesError(.parameter, "\(names) give task \(index) of \(count) (allowed: a task 0 … N-1 of N ≥ 1)")
                }
                return try Shard(index: index, count: count)
            }
            if let task = try number("SLURM_ARRAY_TASK_ID") {
                if let count { return try shard(task, of: count, from: "SLURM_ARRAY_TASK_ID and --shard-count") }
                if let total = try number("SLURM_ARRAY_TASK_COUNT") {
                    let low = try number("SLURM_ARRAY_TASK_MIN") ?? 0
                    return try shard(task - low, of: total, from: "SLURM_ARRAY_TASK_ID \(task), SLURM_ARRAY_TASK_MIN \(low) and SLURM_ARRAY_TASK_COUNT")
                }
                if let low = try number("SLURM_ARRAY_TASK_MIN"), let high = try number("SLURM_ARRAY_TASK_MAX") {
                    return try shard(task - low, of: high - low + 1, from: "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_MIN … MAX")
                }
                throw ShadesError(.parameter, "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT (allowed: --shard I/N or --shard-count N)")
            }
            if let index = try number("JOB_COMPLETION_INDEX") {
                guard let count else { throw ShadesError(.parameter, "JOB_COMPLETION_INDEX is set without --shard-count (allowed: --shard-count N, the Job's completions)") }
                return try shard(index, of: count, from: "JOB_COMPLETION_INDEX and --shard-count")
            }
            if let count {
                // Without an index every patient would be built by every task.
                throw ShadesError(.parameter, "--shard-count \(count) needs the task's index, and neither SLURM_ARRAY_TASK_ID nor "
                                  + "JOB_COMPLETION_INDEX is set (allowed: --shard I/N, or --shard-count inside a job array)")
            }
            return nil
        }
        public func contains(place: Int) -> Bool { place % count == index }
        public var description: String { "\(index)/\(count)" }
    }

    /// `--patient ID` of a patient the plan does not have.
    static func notInThePlan(_ id: String, _ study: StudyFolder) -> ShadesError {
        ShadesError(.studyPatient, .other("is not in the plan"), value: .text("'\(id)'"),
                    allowed: AllowedValues(note: "a patient id of \(study.planIndexPath)"))
    }

    /// What became of one patient.
    public struct PatientResult: Sendable {
        public let id: String
        public let site: String
        /// Nil when it failed.
        public let outcome: PatientBuilder.Outcome?
        public let failure: ShadesError?
    }

    /// Builds the patients of `study`'s plan in `shard` (and, when given, only `ids`), `concurrency` at a time;
    /// `report` is called once per patient as it ends, one call at a time. Ids not in the plan are refused
    /// before anything is built.
    public static func build(_ study: StudyFolder, shard: Shard = .all, ids: Set<String>? = nil, concurrency: Int,
                             report: @Sendable (PatientResult) -> Void) throws(ShadesError) -> [PatientResult] {
        try Parameter.buildJobs.check(Double(concurrency))
        let header = try StudyPlan.readHeader(study)
        var patients: [StudyPlan.PatientPlan] = []
        var found = Set<String>()
        var place = 0
        try StudyPlan.forEachPatient(study) { patient in
            defer { place += 1 }
            if let ids {
                if ids.contains(patient.id) { patients.append(patient); found.insert(patient.id) }
            } else if shard.contains(place: place) {
                patients.append(patient)
            }
        }
        if let ids, let missing = ids.subtracting(found).sorted().first {
            throw StudyBuild.notInThePlan(missing, study)
        }
        let results = Mutex<[PatientResult?]>(Array(repeating: nil, count: patients.count))
        let next = Atomic<Int>(0)
        let plan = patients
        DispatchQueue.concurrentPerform(iterations: min(concurrency, max(1, plan.count))) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < plan.count else { return }
                let patient = plan[i]
                let result: PatientResult
                do throws(ShadesError) {
                    result = PatientResult(id: patient.id, site: patient.site,
                                           outcome: try PatientBuilder.build(patient, header: header, in: study), failure: nil)
                    FailureRecord.remove(study, id: patient.id)
                } catch {
                    result = PatientResult(id: patient.id, site: patient.site, outcome: nil, failure: error)
                    FailureRecord.write(study, id: patient.id, reason: error.description)
                }
                results.withLock { list in
                    list[i] = result
                    report(result)
                }
            }
        }
        return results.withLock { $0.map { $0! } }
    }
}
