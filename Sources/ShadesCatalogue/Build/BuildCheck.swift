import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import ShadesDSP
import ShadesIO

extension CatalogueBuilder {
    /// Checks a built catalogue again: every sound's file is present, has its recorded SHA-256, rate,
    /// channels and length, its integrated loudness is within ±0.1 LU of its target, its true peak is at
    /// most −1 dBTP and a loop's seam is inaudible; categories name existing sounds; `index.html` exists.
    ///
    /// - Returns: one line per problem, each naming the sound or file (empty: the catalogue is fine).
    /// - Throws: when `folder/manifest.json` cannot be read.
    package static func check(folder: String, concurrency: Int = defaultConcurrency) throws(ShadesError) -> [String] {
        let folder = trimmedFolder(folder)
        let manifest = try Manifest.read(folder: folder)
        var problems: [String] = []
        if manifest.libraryVersion != ShadesVersion.string {
            problems.append("manifest: built by Shades \(manifest.libraryVersion), this is \(ShadesVersion.string) (rebuild to refresh)")
        }
        let ids = Set(manifest.sounds.map(\.id))
        for category in manifest.categories {
            for id in category.soundIDs where !ids.contains(id) {
                problems.append("category \(category.id): lists sound \(id), which the manifest does not define")
            }
        }
        if !FileManager.default.fileExists(atPath: folder + "/" + IndexPage.fileName) {
            problems.append("\(IndexPage.fileName) is missing")
        }
        let sounds = manifest.sounds
        let found = Locked<[[String]]>(Array(repeating: [], count: sounds.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(concurrency, sounds.count))) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < sounds.count else { return }
                let lines = problemsOf(sounds[i], in: folder).map { "sound \(sounds[i].id): \($0)" }
                found.withLock { $0[i] = lines }
            }
        }
        return problems + found.withLock { $0.flatMap { $0 } }
    }

    private static func problemsOf(_ sound: Manifest.Sound, in folder: String) -> [String] {
        guard isSafeRelativeFile(sound.file) else { return ["file name \(sound.file) is not inside the catalogue folder"] }
        let path = folder + "/" + sound.file
        guard FileManager.default.fileExists(atPath: path) else { return ["file \(sound.file) is missing"] }
        var problems: [String] = []
        if let sha = SHA256.hex(ofFile: path) {
            if sha != sound.sha256 { problems.append("file \(sound.file) has SHA-256 \(sha), the manifest says \(sound.sha256)") }
        } else {
            problems.append("file \(sound.file) cannot be read")
        }
        let measured: FileMeasurement
        do throws(ShadesError) { measured = try FileMeasurement.measure(path: path, seams: sound.loop, spectrum: false) } catch {
            return problems + [error.description]
        }
        if measured.sampleRate != sound.sampleRate || measured.channels != sound.channels || measured.frames != sound.frames {
            problems.append("file \(sound.file) has \(measured.frames) frames of \(measured.channels) channels at \(measured.sampleRate) Hz, the manifest says \(sound.frames) × \(sound.channels) at \(sound.sampleRate) Hz")
        }
        return problems + measured.problems(targetLUFS: sound.targetLoudnessLUFS, loop: sound.loop).map { "file \(sound.file): \($0)" }
    }
}
