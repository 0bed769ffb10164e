import Foundation

/// The committed inputs of a fuzz target (`Fuzz/Corpus/<target>/`: seeds and every finding), sorted by
/// name, so the normal suite replays them.
public func fuzzCorpus(_ target: String) -> [(name: String, bytes: Data)] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/\(target)")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().compactMap { name in
        FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map { (name, $0) }
    }
}
