#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO

/// Where every patient of a planned study stands: done (its folder is in place, built from its plan line, each
/// file of the size its manifest records; `study check` reads the audio), failed (the reason its last build
/// gave) or not yet built, per site. Reads the plan's index (`plan/index.tsv`: id, plan-line digest and site
/// per patient), each patient's small manifest, its files' sizes and the failure records, never the audio.
public struct StudyStatus: Sendable {
    public struct Site: Sendable, Equatable {
        public var name: String
        public var done = 0
        public var failed = 0
        public var notBuilt = 0
    }

    /// Per site, in the order sites first appear in the plan.
    public var sites: [Site] = []
    /// Each failed patient and the reason its last build gave, in plan order.
    public var failures: [(id: String, reason: String)] = []

    public var done: Int { sites.map(\.done).reduce(0, +) }
    public var failed: Int { sites.map(\.failed).reduce(0, +) }
    public var notBuilt: Int { sites.map(\.notBuilt).reduce(0, +) }
    public var isComplete: Bool { failed == 0 && notBuilt == 0 }

    /// Reads the status of `study`: one listing of each shard folder, then the manifest and files' sizes of each
    /// patient that has a folder and the record of each that failed.
    public static func read(_ study: StudyFolder) throws(ShadesError) -> StudyStatus {
        let withFolder = idsInShards(study.path + "/patients", suffix: "")
        let withFailure = idsInShards(FailureRecord.folder(study), suffix: ".txt")
        var status = StudyStatus()
        var siteIndex: [String: Int] = [:]
        let reader = try LineReader(path: study.planIndexPath)
        var number = 0
        while let line = try reader.next() {
            number += 1
            if number == 1 || line.isEmpty { continue }
            let cells = line.split(separator: 0x09, maxSplits: 2, omittingEmptySubsequences: false)
            guard cells.count == 3 else { throw .input("\(study.planIndexPath):\(number): is not id, plan and site (write it with shades study plan)") }
            let id = String(decoding: cells[0], as: UTF8.self), site = String(decoding: cells[2], as: UTF8.self)
            let s = siteIndex[site] ?? {
                status.sites.append(Site(name: site))
                siteIndex[site] = status.sites.count - 1
                return status.sites.count - 1
            }()
            if withFolder.contains(id), PatientManifest.isComplete(study.patientFolder(of: id), plan: String(decoding: cells[1], as: UTF8.self)) {
                status.sites[s].done += 1
            } else if withFailure.contains(id), let reason = FailureRecord.read(study, id: id) {
                status.sites[s].failed += 1
                status.failures.append((id, reason))
            } else {
                status.sites[s].notBuilt += 1
            }
        }
        return status
    }

    /// The names (without `suffix`) in the shard folders of `folder`, hidden ones left out.
    private static func idsInShards(_ folder: String, suffix: String) -> Set<String> {
        var ids = Set<String>()
        for shard in (try? FileSystem.entries(inFolder: folder)) ?? [] where !shard.hasPrefix(".") {
            for name in (try? FileSystem.entries(inFolder: folder + "/" + shard)) ?? [] where !name.hasPrefix(".") && name.hasSuffix(suffix) {
                ids.insert(String(name.dropLast(suffix.count)))
            }
        }
        return ids
    }
}

/// The reason a patient's last build failed: `status/failed/SHARD/ID.txt`, one line, removed when the patient
/// is built (or found built).
enum FailureRecord {
    static func folder(_ study: StudyFolder) -> String { study.path + "/status/failed" }

    static func path(_ study: StudyFolder, id: String) -> String {
        folder(study) + "/" + StudyFolder.shard(of: id) + "/" + id + ".txt"
    }

    static func write(_ study: StudyFolder, id: String, reason: String) {
        let file = path(study, id: id)
        try? PatientBuilder.makeFolders(AtomicFile.directory(of: file))
        try? AtomicFile.write(Array((reason.split(separator: "\n").joined(separator: " ") + "\n").utf8), to: file)
    }

    static func remove(_ study: StudyFolder, id: String) {
        try? FileSystem.unlink(path(study, id: id))
    }

    static func read(_ study: StudyFolder, id: String) -> String? {
        guard let bytes = try? FileSystem.readFile(path(study, id: id), upTo: 1 << 16) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }
}
