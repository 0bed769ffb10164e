#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesPlatform

/// A path's identity, for refusing to write over an input: its absolute path with "." and ".." removed
/// and symbolic links in the existing part resolved, plus the file's device and inode when it exists.
/// Two paths are the same file when their canonical paths are equal, or both exist with the same inode
/// (hard links). (An existing input's inode never matches a not-yet-existing output's path, so
/// "./new-folder/../song.wav" is caught by the canonical path.)
package struct PathIdentity: Hashable {
    private let device: UInt64?
    private let inode: UInt64?
    private let path: String

    package init(_ path: String) {
        var info = stat()
        let exists = stat(path, &info) == 0
        // Darwin's dev_t is Int32: a negative one must not trap (only equality matters).
        device = exists ? UInt64(truncatingIfNeeded: info.st_dev) : nil
        inode = exists ? UInt64(info.st_ino) : nil
        self.path = Self.canonical(path)
    }

    package static func == (a: PathIdentity, b: PathIdentity) -> Bool {
        if a.path == b.path { return true }
        if let ai = a.inode, let bi = b.inode, let ad = a.device, let bd = b.device { return ai == bi && ad == bd }
        return false
    }

    /// The canonical path only: hard links to one file compare equal but may hash apart, so identities
    /// are compared pairwise, never through sets.
    package func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// The absolute, normalised path: the longest existing prefix through `realpath`, the rest lexically.
    package static func canonical(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            absolute = FileManager.default.currentDirectoryPath + "/" + path
        }
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        // Resolve the longest prefix that exists.
        var split = parts.count
        while split > 0 {
            let prefix = "/" + parts[0..<split].joined(separator: "/")
            if let resolved = realpath(prefix, nil) {
                defer { free(resolved) }
                let rest = parts[split...].joined(separator: "/")
                let base = String(cString: resolved)
                return rest.isEmpty ? base : (base == "/" ? "/" : base + "/") + rest
            }
            split -= 1
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// The output's missing folders: found before any work, created just before the file is written, and
/// removed again if writing fails. Messages name the paths the user gave and the real reason: a file in
/// the way ("p5.wav is a file, not a folder"), a folder that is not writable ("folder ro is not
/// writable"), never "cannot create" a folder that exists.
package enum FolderCreation {
    /// The folders to create for `path`, outermost first; throws if one cannot be created (a file is in
    /// the way, or the nearest existing folder is not writable). `path` is a file unless `isFolder` (a
    /// stimulus set's folder, replaced whole).
    package static func missingFolders(for path: String, isFolder: Bool = false) throws(ShadesError) -> [String] {
        var missing: [String] = []
        var folder = AtomicFile.directory(of: path)
        var info = stat()
        while stat(folder, &info) != 0 {
            let code = errno
            // ENOTDIR: a file stands where a folder of the path should be; it is found further up.
            guard code == ENOENT || code == ENOTDIR else {
                throw .runtime("cannot write \(path): folder \(folder) cannot be reached (\(reason(code)))")
            }
            missing.insert(folder, at: 0)
            let parent = AtomicFile.directory(of: folder)
            if parent == folder { break }
            folder = parent
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .runtime("cannot write \(path): \(folder) is a file, not a folder")
        }
        if let notWritable = notWritable(folder) {
            throw .runtime((missing.first.map { "cannot create folder \($0) for \(path)" } ?? "cannot write \(path)") + ": " + notWritable)
        }
        if missing.isEmpty && !isFolder {
            try AtomicFile.checkWritable(path)
        }
        return missing
    }

    /// Creates `folders` (outermost first); returns those it made. Each is registered with
    /// ``InterruptCleanup`` (an interrupt removes it while empty) until ``keep(_:)`` or ``remove(_:)``.
    package static func create(_ folders: [String]) throws(ShadesError) -> [String] {
        var made: [String] = []
        for folder in folders {
            let created = InterruptCleanup.uninterrupted { () -> Bool in
                guard mkdir(folder, 0o777) == 0 else { return false }
                InterruptCleanup.register(folder, .emptyFolder)
                return true
            }
            if created {
                made.append(folder)
            } else {
                var info = stat()
                let code = errno
                guard code == EEXIST, stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    remove(made)
                    throw .runtime("cannot create folder \(folder): \(whyNotCreated(folder, code: code))")
                }
            }
        }
        return made
    }

    /// Why `folder` (an existing folder) takes no new names, or nil when it does: "folder ro is not
    /// writable", with the system's reason when it is not a plain permission ("(Read-only file system)").
    package static func notWritable(_ folder: String) -> String? {
        guard access(folder, W_OK) != 0 else { return nil }
        let code = errno
        return "folder \(folder) is not writable" + (code == EACCES ? "" : " (\(reason(code)))")
    }

    /// Why `folder` is not a folder one can write into: a file stands at it or above it, it does not
    /// exist, or it cannot be reached.
    package static func notAFolder(_ folder: String) -> String {
        var info = stat()
        var place = folder
        while true {
            if stat(place, &info) == 0 {
                if (info.st_mode & S_IFMT) != S_IFDIR { return "\(place) is a file, not a folder" }
                return "folder \(folder) does not exist"
            }
            let code = errno
            guard code == ENOENT || code == ENOTDIR else { return "folder \(folder) cannot be reached (\(reason(code)))" }
            let parent = AtomicFile.directory(of: place)
            if parent == place { return "folder \(folder) does not exist" }
            place = parent
        }
    }

    /// Why mkdir(`folder`) failed with `code`, naming what the user named.
    private static func whyNotCreated(_ folder: String, code: Int32) -> String {
        let parent = AtomicFile.directory(of: folder)
        switch code {
        case EACCES, EPERM, EROFS: return notWritable(parent) ?? "folder \(parent) is not writable (\(reason(code)))"
        case EEXIST: return "\(folder) is a file, not a folder"
        case ENOENT, ENOTDIR: return notAFolder(parent)
        default: return reason(code)
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Removes `folders` innermost first, where empty.
    package static func remove(_ folders: [String]) {
        for folder in folders.reversed() {
            rmdir(folder)
            InterruptCleanup.forget(folder)
        }
    }

    /// Keeps `folders` (the output is in them): an interrupt no longer removes them.
    package static func keep(_ folders: [String]) {
        for folder in folders { InterruptCleanup.forget(folder) }
    }
}

