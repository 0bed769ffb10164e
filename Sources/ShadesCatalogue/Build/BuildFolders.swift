#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO
import ShadesPlatform

/// The catalogue folder's life: a private building folder beside it, files synced to disk, one atomic swap,
/// and what a killed build left removed by the next one.
///
/// Beside `NAME` live only `.NAME.build-PID-N` (a build in progress, or the previous catalogue just swapped
/// out) and `.NAME.old-PID-N` (the previous catalogue moved aside where the swap takes two renames). Each
/// carries its process id; a build first removes those whose process is gone, and refuses to start while
/// another live process has a building folder there. That check and each swap run under a `flock` of the
/// parent folder, held for microseconds, which the kernel drops if the holder dies.
///
/// An interrupted build (SIGINT, SIGTERM, SIGHUP) leaves none of them: each is registered with
/// ``InterruptCleanup`` from the moment it is made, and a swap is one uninterrupted step, so the interrupt
/// finds the previous catalogue in place (or the new one, complete) and removes the rest.
extension CatalogueBuilder {
    /// Prepares a build into `folder`: removes what killed builds left, refuses while another build into
    /// `folder` runs, and makes the building folder (returned).
    static func startBuilding(_ folder: String) throws(ShadesError) -> String {
        let parent = AtomicFile.directory(of: folder)
        var info = stat()
        guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .runtime("cannot build into \(folder): folder \(parent) does not exist")
        }
        return try underLock(of: parent, folder) { () throws(ShadesError) -> String in
            let running = removeStaleFoldersUnlocked(of: folder)
            if let pid = running.first {
                throw .runtime("cannot build into \(folder): another build (process \(pid)) is writing it (allowed: one build per folder at a time)")
            }
            return try makeSiblingFolder(of: folder, purpose: "build")
        }
    }

    /// Removes the building and set-aside folders of `folder` whose process is gone (a set-aside previous
    /// catalogue is renamed back when `folder` itself is missing: the build died between its two renames),
    /// as every build does first; returns the processes still building into `folder`.
    @discardableResult
    package static func removeStaleFolders(of folder: String) throws(ShadesError) -> [Int32] {
        let folder = trimmedFolder(folder)
        return try underLock(of: AtomicFile.directory(of: folder), folder) { () throws(ShadesError) -> [Int32] in
            removeStaleFoldersUnlocked(of: folder)
        }
    }

    private static func removeStaleFoldersUnlocked(of folder: String) -> [Int32] {
        let parent = AtomicFile.directory(of: folder)
        guard let entries = try? FileSystem.entries(inFolder: parent) else { return [] }
        var running: [Int32] = []
        for entry in entries.sorted() {
            guard let (purpose, pid) = siblingOwner(entry, of: folder) else { continue }
            let path = parent + "/" + entry
            guard FileSystem.isProcessGone(pid) else {
                if purpose == "build" { running.append(pid) }
                continue
            }
            if purpose == "old", (try? FileSystem.linkStatus(folder)) == nil, (try? FileSystem.rename(path, to: folder)) != nil {
                try? FileSystem.syncFolder(parent)
                continue
            }
            removeTree(path)
        }
        return running
    }

    /// The purpose ("build" or "old") and process id in a sibling name of `folder`, `.NAME.PURPOSE-PID-N`.
    static func siblingOwner(_ entry: String, of folder: String) -> (purpose: String, pid: Int32)? {
        let prefix = "." + (folder.split(separator: "/").last.map(String.init) ?? folder) + "."
        guard entry.hasPrefix(prefix) else { return nil }
        let parts = entry.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, ["build", "old"].contains(parts[0]),
              parts[1...].allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let pid = Int32(parts[1]) else { return nil }
        return (String(parts[0]), pid)
    }

    /// The previous catalogue's manifest, nil when `folder` does not exist, is empty or its manifest is
    /// unreadable. A folder with other content is refused: a build never replaces something else.
    static func previousCatalogue(at folder: String) throws(ShadesError) -> Manifest? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .runtime("cannot build into \(folder): it is a file, not a folder") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if entries.isEmpty { return nil }
        guard entries.contains(Manifest.fileName) else {
            throw .runtime("cannot build into \(folder): it holds files but no \(Manifest.fileName) (allowed: a new or empty folder or a previous catalogue)")
        }
        return try? Manifest.read(folder: folder)
    }

    /// A new hidden folder beside `folder`, e.g. `.catalogue.build-1234-1`, registered for removal on an
    /// interrupt.
    private static func makeSiblingFolder(of folder: String, purpose: String) throws(ShadesError) -> String {
        let parent = AtomicFile.directory(of: folder)
        let name = folder.split(separator: "/").last.map(String.init) ?? folder
        for attempt in 1...1000 {
            let path = "\(parent)/.\(name).\(purpose)-\(FileSystem.processID)-\(attempt)"
            do throws(ShadesError) {
                try InterruptCleanup.uninterrupted { () throws(ShadesError) in
                    try FileSystem.makeFolder(path)
                    InterruptCleanup.register(path, .tree)
                }
                return path
            } catch where error.code == EEXIST {
                continue
            } catch {
                // Named by the folder the user gave: the hidden one is the build's own.
                let denied = error.code == EACCES || error.code == EPERM || error.code == EROFS
                let reason = denied ? FolderCreation.notWritable(parent) ?? error.reason : error.reason
                throw .runtime("cannot build into \(folder): \(reason)")
            }
        }
        throw .runtime("cannot create a temporary folder beside \(folder)")
    }

    /// Puts the synced `building` folder in place as `folder`: one atomic exchange where the system has
    /// it (Linux `renameat2`, Darwin `renamex_np`), else the previous catalogue is renamed aside first;
    /// then the parent folder is synced and the previous catalogue removed.
    static func swap(_ building: String, into folder: String) throws(ShadesError) {
        let parent = AtomicFile.directory(of: folder)
        // One step for an interrupt; what it leaves to remove (the previous catalogue) stays registered.
        let previous = try InterruptCleanup.uninterrupted { () throws(ShadesError) -> String? in
            try underLock(of: parent, folder) { () throws(ShadesError) -> String? in
                guard (try? FileSystem.linkStatus(folder)) != nil else {
                    do throws(ShadesError) { try FileSystem.rename(building, to: folder) } catch {
                        throw .runtime("cannot rename \(building) to \(folder): \(error.reason)")
                    }
                    InterruptCleanup.forget(building)
                    return nil
                }
                let old = try makeSiblingFolder(of: folder, purpose: "old")
                let exchanged: Bool
                do throws(ShadesError) { exchanged = try FileSystem.exchange(building, folder) } catch {
                    removeTree(old)
                    throw .runtime("cannot swap \(building) into \(folder): \(error.reason)")
                }
                if exchanged {
                    // `building` now holds the previous catalogue: under its set-aside name (rename replaces
                    // the empty folder) it no longer looks like a build in progress.
                    if (try? FileSystem.rename(building, to: old)) != nil {
                        InterruptCleanup.forget(building)
                        return old
                    }
                    removeTree(old)
                    return building
                }
                do throws(ShadesError) { try FileSystem.rename(folder, to: old) } catch {
                    removeTree(old)
                    throw .runtime("cannot move the previous catalogue \(folder) aside: \(error.reason)")
                }
                do throws(ShadesError) { try FileSystem.rename(building, to: folder) } catch {
                    try? FileSystem.rename(old, to: folder)
                    InterruptCleanup.forget(old)
                    throw .runtime("cannot rename \(building) to \(folder): \(error.reason)")
                }
                InterruptCleanup.forget(building)
                return old
            }
        }
        try syncFolder(parent)
        if let previous { removeTree(previous) }
    }

    /// Runs `body` holding the lock on `parent` (see the extension's description).
    private static func underLock<R>(of parent: String, _ folder: String,
                                     _ body: () throws(ShadesError) -> R) throws(ShadesError) -> R {
        let lock: Int32
        do throws(ShadesError) { lock = try FileSystem.lock(folder: parent) } catch {
            throw .runtime("cannot build into \(folder): cannot lock \(parent) (\(error.reason))")
        }
        defer { FileSystem.unlock(lock) }
        return try body()
    }

    // MARK: Files

    static func makeFolder(_ path: String) throws(ShadesError) {
        do throws(ShadesError) { try FileSystem.makeFolder(path) } catch { throw .runtime("cannot create \(path): \(error.reason)") }
    }

    /// Writes `data` as the new file `path` (synced with the whole building folder before the swap).
    static func write(_ data: Data, to path: String) throws(ShadesError) {
        let bytes = [UInt8](data)
        do throws(ShadesError) {
            let descriptor = try FileSystem.open(path, O_WRONLY | O_CREAT | O_TRUNC)
            defer { FileSystem.close(descriptor) }
            try FileSystem.write(descriptor, bytes)
        } catch {
            throw error.isNoSpace ? AtomicFile.noSpace(writing: path, neededBytes: bytes.count)
                                  : .runtime("cannot write \(path): \(error.reason)")
        }
    }

    /// Syncs every file and folder in `folder` to disk (files linked or copied from the previous build
    /// and files written here alike).
    static func syncTree(_ folder: String) throws(ShadesError) {
        do throws(ShadesError) { try FileSystem.syncTree(folder) } catch { throw .runtime("cannot sync \(folder): \(error.reason)") }
    }

    /// Syncs the names in `folder` to disk.
    static func syncFolder(_ folder: String) throws(ShadesError) {
        do throws(ShadesError) { try FileSystem.syncFolder(folder) } catch { throw .runtime("cannot sync \(folder): \(error.reason)") }
    }

    /// Removes `path` and all in it, and forgets it for ``InterruptCleanup``.
    static func removeTree(_ path: String) {
        try? FileSystem.removeTree(path)
        InterruptCleanup.forget(path)
    }

    static func trimmedFolder(_ folder: String) -> String {
        var trimmed = Substring(folder)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
