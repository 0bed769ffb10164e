#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ShadesCatalogue
import ShadesDSP
import ShadesIO

/// Where a study's files are, below its folder `STUDY`:
///
/// - `plan/study.json`, `plan/patients.jsonl`: the plan (``StudyPlan``), one line per patient;
///   `plan/index.tsv`: id, digest and site per patient.
/// - `status/failed/SHARD/ID.txt`: why a patient's last build failed (removed once it is built).
/// - `slurm/build.sbatch`, `slurm/logs/`: the cluster's job array (``SlurmScript``).
/// - `patients/SHARD/ID/`: a patient's folder, what the patient's app reads (blinded: neutral codes, no
///   recipe). SHARD is the first two hex digits of the SHA-256 of the id (256 subfolders, so 100,000 patients
///   make about 400 entries per folder).
/// - `key/allocation.csv` and `key/patients/SHARD/ID.json`: the unblinding key (arm, recipe and levels of
///   every code), kept apart from the patients' folders.
public struct StudyFolder: Sendable {
    /// The study folder, without a trailing `/`.
    public let path: String

    public init(_ path: String) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    public var planHeaderPath: String { path + "/plan/study.json" }
    public var planPatientsPath: String { path + "/plan/patients.jsonl" }
    /// Each patient's id, plan-line digest and site, tab-separated (what `study status` reads).
    public var planIndexPath: String { path + "/plan/index.tsv" }
    public var allocationKeyPath: String { path + "/key/allocation.csv" }

    /// The patient's shard: two hex digits of the SHA-256 of the id.
    public static func shard(of id: String) -> String { String(SHA256.hex(of: Array(id.utf8)).prefix(2)) }

    /// The folder a patient's shard is built in.
    public func patientsShardFolder(of id: String) -> String { path + "/patients/" + Self.shard(of: id) }
    /// The patient's folder: what the patient's app reads.
    public func patientFolder(of id: String) -> String { patientsShardFolder(of: id) + "/" + id }
    /// The patient's unblinding key: each code's arm sound, recipe and levels as built.
    public func keyPath(of id: String) -> String { path + "/key/patients/" + Self.shard(of: id) + "/" + id + ".json" }
}

/// A file read line by line in blocks (a plan of 100,000 patients is not read whole).
final class LineReader {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Bytes read at a time.
    private static let blockBytes = 1 << 20
    /// The longest line read, bytes (a patient's plan line is a few kB).
    static let longestLineBytes = 64 << 20

    init(path: String) throws(ShadesError) {
        try CommandPaths.checkReadableFile(path)
        do throws(ShadesError) { descriptor = try FileSystem.open(path, O_RDONLY) } catch {
            throw .input("cannot read \(path): \(error.reason)")
        }
    }

    deinit { FileSystem.close(descriptor) }

    /// The next line without its newline; nil at the end of the file.
    func next() throws(ShadesError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = pending[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                return pending[start..<newline]
            }
            if atEnd {
                guard start < pending.count else { return nil }
                defer { start = pending.count }
                return pending[start...]
            }
            guard pending.count - start <= Self.longestLineBytes else { throw .input("a line is longer than \(Self.longestLineBytes) bytes") }
            pending.removeFirst(start)
            start = 0
            let block = try FileSystem.read(descriptor, upTo: Self.blockBytes)
            if block.isEmpty { atEnd = true } else { pending += block }
        }
    }
}
