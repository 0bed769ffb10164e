import ShadesDSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file under a temporary name beside it and renames it into place only when complete, so a
/// failed or interrupted write never leaves a partial file and never replaces a good one.
public enum AtomicFile {
    /// Temporary files being written, removed by ``removeTemporaryFiles()`` (e.g. on SIGINT).
    nonisolated(unsafe) private static var active: Set<String> = []
    private static let lock = PosixLock()

    /// Calls `body` with a temporary path in `path`'s folder, then renames it to `path`.
    /// On any error the temporary file is removed and the error rethrown.
    public static func write<R>(to path: String, _ body: (String) throws(AudioFileError) -> R) throws(AudioFileError) -> R {
        let temporary = temporaryPath(for: path)
        lock.withLock { _ = active.insert(temporary) }
        defer { lock.withLock { _ = active.remove(temporary) } }
        do throws(AudioFileError) {
            let result = try body(temporary)
            guard rename(temporary, path) == 0 else {
                throw AudioFileError.runtime("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return result
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Removes every temporary file still being written (call from a signal handler's exit path).
    public static func removeTemporaryFiles() {
        lock.withLock { for path in active { unlink(path) } }
    }

    /// Checks that `path`'s folder exists and is writable, before any work is spent on the output.
    public static func checkWritable(_ path: String) throws(AudioFileError) {
        let folder = directory(of: path)
        var info = stat()
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .runtime("cannot write \(path): folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw .runtime("cannot write \(path): folder \(folder) is not writable")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw .runtime("cannot write \(path): it is a folder")
        }
    }

    /// The folder part of `path` ("." for a bare name, "/" for the root; trailing slashes ignored).
    public static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = String(trimmed[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    private static func temporaryPath(for path: String) -> String {
        let folder = directory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let unique = lock.withLock { () -> Int in counter += 1; return counter }
        return "\(folder)/.\(name).\(getpid())-\(unique).tmp"
    }

    nonisolated(unsafe) private static var counter = 0
}

