import ShadesDSP
import ShadesPlatform

/// Writes a file so that it appears complete or not at all, however the process ends.
///
/// On Linux the file is written unnamed (O_TMPFILE) in the target's folder, synced (`fsync`), linked
/// under a temporary name, renamed over the target and the folder synced; a process killed before the
/// link (SIGKILL, the OOM killer, a power cut) leaves nothing, and after a power cut the target is either
/// the old file or the whole new one. Where there is no O_TMPFILE (Darwin, file systems without it), the
/// file is written as `.NAME.PID-N.tmp` beside the target; a later write to the same target removes such
/// temporaries whose process is gone. SIGINT, SIGTERM and SIGHUP remove the named ones
/// (``InterruptCleanup``): each is registered while it exists, and linking and renaming it into place is
/// one uninterrupted step.
package enum AtomicFile {
    /// The file being written inside ``write(to:_:)``: write it through ``AudioFileOutput`` or
    /// ``write(_:)``. Valid only inside the closure.
    package struct Temporary: Sendable {
        /// The file it will replace (what errors name).
        package let path: String
        /// Open for writing; owned by ``AtomicFile``.
        let descriptor: Int32

        /// Writes `bytes` as the whole file (replacing anything written before).
        package func write(_ bytes: [UInt8]) throws(ShadesError) {
            do throws(ShadesError) {
                try FileSystem.truncate(descriptor, to: 0)
                try FileSystem.seek(descriptor, to: 0)
                try FileSystem.write(descriptor, bytes)
            } catch {
                throw error.isNoSpace ? AtomicFile.noSpace(writing: path, neededBytes: bytes.count)
                                      : .runtime("cannot write \(path): \(error.reason)")
            }
        }
    }

    /// False makes every write take the named path, as on a system without O_TMPFILE (for tests).
    package nonisolated(unsafe) static var usesUnnamedFiles = true

    nonisolated(unsafe) private static var counter = 0
    private static let lock = PosixLock()

    /// Calls `body` with a new empty file, then puts it in place as `path` (see the type's description).
    /// On any error nothing is left and `path` is untouched (unless it was replaced and only the final
    /// folder sync failed).
    package static func write<R>(to path: String, _ body: (Temporary) throws(ShadesError) -> R) throws(ShadesError) -> R {
        let folder = directory(of: path), name = fileName(of: path)
        removeStaleTemporaries(of: path)
        var named: String?        // the temporary's name, once it has one
        let descriptor: Int32
        do throws(ShadesError) {
            if usesUnnamedFiles, let unnamed = try FileSystem.openUnnamed(inFolder: folder) {
                descriptor = unnamed
            } else {
                (descriptor, named) = try createNamed(name, in: folder)
            }
        } catch { throw .runtime("cannot write \(path): \(Self.creationProblem(error, folder: folder))") }
        let result: R
        do throws(ShadesError) {
            result = try body(Temporary(path: path, descriptor: descriptor))
            do throws(ShadesError) {
                try FileSystem.sync(descriptor)
                // One step for an interrupt: the named temporary exists only inside it (when unnamed).
                try InterruptCleanup.uninterrupted { () throws(ShadesError) in
                    if named == nil { named = try linkUnnamed(descriptor, as: name, in: folder) }
                    try FileSystem.rename(named!, to: path)
                    forget(named!)
                }
            } catch {
                let size = (try? FileSystem.status(descriptor)).map { Int($0.st_size) } ?? 0
                throw error.isNoSpace ? noSpace(writing: path, neededBytes: size) : .runtime("cannot write \(path): \(error.reason)")
            }
        } catch {
            FileSystem.close(descriptor)
            if let named {
                try? FileSystem.unlink(named)
                forget(named)
            }
            throw error
        }
        FileSystem.close(descriptor)
        do throws(ShadesError) { try FileSystem.syncFolder(folder) } catch {
            throw .runtime("cannot write \(path): its folder could not be synced (\(error.reason))")
        }
        return result
    }

    /// Writes `bytes` as the file `path` (see ``write(to:_:)``).
    package static func write(_ bytes: [UInt8], to path: String) throws(ShadesError) {
        try write(to: path) { (file: Temporary) throws(ShadesError) in try file.write(bytes) }
    }

    /// The disk-full error: "cannot write X: no space left on device (needed about N MB)", N rounded up.
    package static func noSpace(writing path: String, neededBytes: Int, upTo: Bool = false) -> ShadesError {
        let megabytes = max(1, (neededBytes + 999_999) / 1_000_000)
        return .runtime("cannot write \(path): no space left on device (needed \(upTo ? "up to " : "")about \(megabytes) MB)")
    }

    /// Checks that `path`'s folder exists and is writable, before any work is spent on the output. The
    /// message names the real reason: "folder out does not exist", "p5.wav is a file, not a folder",
    /// "folder ro is not writable".
    package static func checkWritable(_ path: String) throws(ShadesError) {
        let folder = directory(of: path)
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .runtime("cannot write \(path): \(FolderCreation.notAFolder(folder))")
        }
        if let notWritable = FolderCreation.notWritable(folder) {
            throw .runtime("cannot write \(path): \(notWritable)")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw .runtime("cannot write \(path): it is a folder")
        }
    }

    /// Why the file could not be created in `folder`, naming the folder: "folder ro is not writable",
    /// "p5.wav is a file, not a folder", "folder /proc takes no new files (No such file or directory)" (a
    /// folder that exists, of a file system that makes its own files), or the system's words.
    private static func creationProblem(_ error: ShadesError, folder: String) -> String {
        switch error.code {
        case EACCES, EPERM, EROFS: return FolderCreation.notWritable(folder) ?? "folder \(folder) is not writable (\(error.reason))"
        case ENOENT where (try? FileSystem.status(folder)).map({ ($0.st_mode & S_IFMT) == S_IFDIR }) == true:
            return "folder \(folder) takes no new files (\(error.reason))"
        case ENOENT, ENOTDIR: return FolderCreation.notAFolder(folder)
        default: return error.reason
        }
    }

    /// The folder part of `path` ("." for a bare name, "/" for the root; trailing slashes ignored).
    package static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = String(trimmed[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The last part of `path` (trailing slashes ignored).
    static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    // MARK: Temporary names

    /// `.NAME.PID-N.tmp`: the process that made it is in the name, so a later run can tell it is stale.
    private static func temporaryName(_ name: String, in folder: String) -> String {
        let unique = lock.withLock { () -> Int in counter += 1; return counter }
        return "\(folder)/.\(name).\(FileSystem.processID)-\(unique).tmp"
    }

    /// The process id in a temporary name of `name` (`.NAME.PID-N.tmp`), nil for any other name.
    static func temporaryOwner(_ entry: String, of name: String) -> Int32? {
        let prefix = ".\(name).", suffix = ".tmp"
        guard entry.hasPrefix(prefix), entry.hasSuffix(suffix), entry.count > prefix.count + suffix.count else { return nil }
        let middle = entry.dropFirst(prefix.count).dropLast(suffix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard middle.count == 2, middle.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let pid = Int32(middle[0]) else { return nil }
        return pid
    }

    /// Removes the temporaries of `path` whose process is gone (a killed earlier run's), as every write
    /// to `path` does first.
    package static func removeStaleTemporaries(of path: String) {
        let folder = directory(of: path), name = fileName(of: path)
        guard let entries = try? FileSystem.entries(inFolder: folder) else { return }
        for entry in entries {
            guard let pid = temporaryOwner(entry, of: name), pid != FileSystem.processID, FileSystem.isProcessGone(pid) else { continue }
            try? FileSystem.unlink("\(folder)/\(entry)")
        }
    }

    /// Creates a named temporary for `name` (O_EXCL, so never someone else's file).
    private static func createNamed(_ name: String, in folder: String) throws(ShadesError) -> (Int32, String) {
        while true {
            let temporary = temporaryName(name, in: folder)
            // Created and registered in one step: an interrupt removes it, and only it.
            let descriptor: Int32? = try InterruptCleanup.uninterrupted { () throws(ShadesError) -> Int32? in
                do throws(ShadesError) {
                    let descriptor = try FileSystem.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o666)
                    remember(temporary)
                    return descriptor
                } catch where error.code == EEXIST {
                    return nil
                }
            }
            if let descriptor { return (descriptor, temporary) }
        }
    }

    /// Gives an unnamed file a temporary name in `folder` (linkat cannot replace the target itself); call it
    /// in an uninterrupted step.
    private static func linkUnnamed(_ descriptor: Int32, as name: String, in folder: String) throws(ShadesError) -> String {
        while true {
            let temporary = temporaryName(name, in: folder)
            do throws(ShadesError) {
                try FileSystem.link(descriptor: descriptor, to: temporary)
                remember(temporary)   // inside the caller's uninterrupted step
                return temporary
            } catch where error.code == EEXIST {
                continue
            }
        }
    }

    private static func remember(_ path: String) { InterruptCleanup.register(path, .file) }
    private static func forget(_ path: String) { InterruptCleanup.forget(path) }
}
