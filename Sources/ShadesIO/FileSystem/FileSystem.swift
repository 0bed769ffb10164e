import ShadesPlatform
import ShadesDSP

/// A file-system call that failed: "open: No such file or directory", with the errno kept for the callers'
/// decisions (EEXIST, EINTR, ENOSPC …).
extension ShadesError {
    /// The C function `call` failed with errno `code`.
    package init(call: String, code: Int32) {
        self.init(.runtime, "\(call): \(String(cString: strerror(code)))")
        errorNumber = code
    }

    /// The errno value (0 for an error that is not a failed system call).
    package var code: Int32 { errorNumber ?? 0 }
    /// The system's words for ``code``, e.g. "No such file or directory".
    package var reason: String { String(cString: strerror(code)) }
    /// The disk (or the user's quota) is full.
    package var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }
}

/// The POSIX file-system calls behind Shades' crash-safe writing, in one place with one errno policy (after
/// swift-nio's `System.swift`): a call that returns −1 is retried on EINTR and otherwise throws a
/// ``ShadesError`` naming the C function; no errno is read anywhere else. Descriptors are opened with
/// O_CLOEXEC. Each function names the call it wraps.
package enum FileSystem {
    // MARK: Descriptors

    /// `open(2)` with O_CLOEXEC added; `mode` applies when `flags` holds O_CREAT.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o666) throws(ShadesError) -> Int32 {
        try call("open") { Platform.open(path, flags | O_CLOEXEC, mode) }
    }

    /// An unnamed regular file in `folder`, open for writing: `open(2)` with Linux's O_TMPFILE. It has no
    /// name until ``link(descriptor:to:)`` gives it one, so a process that dies before then leaves nothing
    /// (the kernel frees it with the last descriptor). Nil where there is no such file: not Linux, no
    /// `/proc/self/fd` to link through, or a file system without O_TMPFILE support (EOPNOTSUPP; EISDIR
    /// from kernels before 3.11, which read the flag as O_DIRECTORY).
    package static func openUnnamed(inFolder folder: String) throws(ShadesError) -> Int32? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        guard procSelfFDAvailable else { return nil }
        do {
            return try open(folder, oTmpFile | O_WRONLY, mode: 0o666)
        } catch where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.code) {
            return nil
        }
        #else
        return nil
        #endif
    }

    #if os(Linux) && (arch(x86_64) || arch(arm64))
    /// Linux's O_TMPFILE, which the Glibc module does not export: the kernel's `__O_TMPFILE | O_DIRECTORY`
    /// (`include/uapi/asm-generic/fcntl.h`). `__O_TMPFILE` is 0o20000000 on x86-64 and arm64; O_DIRECTORY
    /// differs between them (0o200000 on x86-64, 0o40000 on arm64), so it comes from Glibc, giving
    /// 0o20200000 on x86-64 and 0o20040000 on arm64.
    private static let oTmpFile: Int32 = 0o20000000 | O_DIRECTORY

    /// Whether descriptors can be linked by their `/proc/self/fd` name (not in a chroot without /proc).
    private static let procSelfFDAvailable = access("/proc/self/fd", X_OK) == 0
    #endif

    /// `close(2)`. Not retried on EINTR (Linux has closed the descriptor then); errors are ignored: a
    /// written file is ``sync(_:)``ed before it is closed, which reports what close could.
    package static func close(_ descriptor: Int32) {
        _ = Platform.close(descriptor)
    }

    /// `fsync(2)`: the file's data and size reach the disk before this returns. On Darwin `fcntl(2)` with
    /// F_FULLFSYNC first: Darwin's fsync leaves the data in the drive's cache (its man page); where the file
    /// system cannot (some network and FAT ones), fsync.
    package static func sync(_ descriptor: Int32) throws(ShadesError) {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
        #endif
        _ = try call("fsync") { fsync(descriptor) }
    }

    /// `fsync(2)` on `folder` (opened read-only): names created, renamed or removed in it reach the disk.
    /// EINVAL (file systems that cannot sync a folder) is not an error.
    package static func syncFolder(_ folder: String) throws(ShadesError) {
        let descriptor = try open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(descriptor) }
        do { try sync(descriptor) } catch where error.code == EINVAL {}
    }

    /// Syncs every file below `folder`, then every folder, deepest first (`fsync(2)`; links are not
    /// followed). One pass at the end costs about one journal commit on ext4, where a sync after each
    /// file costs one each.
    package static func syncTree(_ folder: String) throws(ShadesError) {
        var folders: [String] = []
        for name in try entries(inFolder: folder) {
            let path = folder + "/" + name
            let mode = try linkStatus(path).st_mode & S_IFMT
            if mode == S_IFDIR {
                folders.append(path)
            } else if mode == S_IFREG {
                let descriptor = try open(path, O_RDONLY)
                defer { close(descriptor) }
                try sync(descriptor)
            }
        }
        for path in folders { try syncTree(path) }
        try syncFolder(folder)
    }

    /// `ftruncate(2)`: sets the file's size to `bytes`; nothing when it has that size already. (On ext4,
    /// truncating a file to size 0 marks it to be written to disk when a descriptor of it closes,
    /// `auto_da_alloc`, even when it was empty: a fresh 160 MB scratch file of `notch` went to disk for
    /// nothing, and its reader's close took 35 ms.)
    package static func truncate(_ descriptor: Int32, to bytes: Int) throws(ShadesError) {
        if try status(descriptor).st_size == off_t(bytes) { return }
        _ = try call("ftruncate") { ftruncate(descriptor, off_t(bytes)) }
    }

    /// `lseek(2)` with SEEK_SET: the next write or read starts at `offset` bytes.
    package static func seek(_ descriptor: Int32, to offset: Int) throws(ShadesError) {
        _ = try call("lseek") { lseek(descriptor, off_t(offset), SEEK_SET) }
    }

    /// `write(2)` until every byte of `bytes` is written.
    package static func write(_ descriptor: Int32, _ bytes: [UInt8]) throws(ShadesError) {
        let failure = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> ShadesError? in
            var done = 0
            while done < raw.count {
                do throws(ShadesError) { done += try call("write") { Platform.write(descriptor, raw.baseAddress! + done, raw.count - done) } } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// The bytes of the regular file at `path`, at most `limit` of them. Every error is one line naming
    /// `path`: what is not a readable, non-empty regular file is refused before it is opened
    /// (``CommandPaths/checkReadableFile(_:)``), a larger file once `limit` bytes are read. Opened without
    /// waiting, so a FIFO put in the file's place meanwhile is refused too, not read for ever.
    package static func readFile(_ path: String, upTo limit: Int) throws(ShadesError) -> [UInt8] {
        try CommandPaths.checkReadableFile(path)
        do throws(ShadesError) {
            let descriptor = try open(path, O_RDONLY | O_NONBLOCK)
            defer { close(descriptor) }
            if let kind = CommandPaths.kind(ofMode: try status(descriptor).st_mode) { throw .input("\(path) is \(kind), not a file") }
            let bytes = try read(descriptor, upTo: limit + 1)
            guard bytes.count <= limit else { throw .input("\(path) is larger than \(limit) bytes") }
            return bytes
        } catch where error.errorNumber != nil {
            throw .input("cannot read \(path): \(error.reason)")
        }
    }

    /// `read(2)` until the end of the file or `limit` bytes, whichever comes first.
    package static func read(_ descriptor: Int32, upTo limit: Int) throws(ShadesError) -> [UInt8] {
        var failure: ShadesError?
        let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, count in
            count = 0
            while count < limit {
                do throws(ShadesError) {
                    let n = try call("read") { Platform.read(descriptor, buffer.baseAddress! + count, limit - count) }
                    if n == 0 { return }
                    count += n
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// `fstat(2)`.
    package static func status(_ descriptor: Int32) throws(ShadesError) -> stat {
        var info = stat()
        _ = try call("fstat") { fstat(descriptor, &info) }
        return info
    }

    /// Reserves `bytes` of disk for the file without changing its size: Linux `fallocate(2)` with
    /// FALLOC_FL_KEEP_SIZE, looked up at run time (the Glibc module leaves this GNU call out). Throws only
    /// when the disk is full (ENOSPC, EDQUOT); where the call is missing or the file system cannot
    /// reserve, nothing happens.
    package static func reserve(_ descriptor: Int32, bytes: Int) throws(ShadesError) {
        #if os(Linux)
        typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else { return }
        let keepSize: Int32 = 1
        let fallocate = unsafeBitCast(symbol, to: Fallocate.self)
        do { _ = try call("fallocate") { fallocate(descriptor, keepSize, 0, Int64(bytes)) } } catch where error.isNoSpace {
            throw error
        } catch {}
        #endif
    }

    /// Starts writing the file's dirty pages to disk without waiting for them (Linux `sync_file_range(2)`
    /// with SYNC_FILE_RANGE_WRITE over the whole file, looked up at run time), so a later ``sync(_:)``
    /// waits only for the rest. Not a guarantee of anything; errors and other systems: nothing happens.
    package static func startWriteback(_ descriptor: Int32) {
        #if os(Linux)
        typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
        guard let symbol = syncFileRange else { return }
        let syncFileRangeWrite: UInt32 = 2
        _ = unsafeBitCast(symbol, to: SyncFileRange.self)(descriptor, 0, 0, syncFileRangeWrite)
        #endif
    }

    #if os(Linux)
    nonisolated(unsafe) private static let syncFileRange = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")
    #endif

    // MARK: Names

    /// Gives the unnamed file open as `descriptor` (from ``openUnnamed(inFolder:)``) the name `path`:
    /// `linkat(2)` of `/proc/self/fd/N` with AT_SYMLINK_FOLLOW (no privilege needed, unlike
    /// AT_EMPTY_PATH). Fails with EEXIST if `path` exists: linkat never replaces.
    package static func link(descriptor: Int32, to path: String) throws(ShadesError) {
        _ = try call("linkat") { linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) }
    }

    /// `link(2)`: a second name for the file `existing`.
    package static func link(_ existing: String, to path: String) throws(ShadesError) {
        _ = try call("link") { Platform.link(existing, path) }
    }

    /// `rename(2)`: atomically replaces `to` (a file, or an empty folder when `from` is a folder).
    package static func rename(_ from: String, to: String) throws(ShadesError) {
        _ = try call("rename") { Platform.rename(from, to) }
    }

    /// Swaps the names `a` and `b` in one atomic step: Linux `renameat2(2)` with RENAME_EXCHANGE (looked
    /// up at run time), Darwin `renamex_np(2)` with RENAME_SWAP. False where neither the system nor the
    /// file system can (the caller renames in two steps instead).
    package static func exchange(_ a: String, _ b: String) throws(ShadesError) -> Bool {
        do {
            #if os(Linux)
            typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            let renameExchange: UInt32 = 2
            _ = try call("renameat2") { renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) }
            #elseif canImport(Darwin)
            _ = try call("renamex_np") { renamex_np(a, b, UInt32(RENAME_SWAP)) }
            #else
            return false
            #endif
            return true
        } catch where [ENOSYS, EINVAL, EOPNOTSUPP].contains(error.code) {
            return false
        }
    }

    /// `unlink(2)`; a name that is already gone is not an error.
    package static func unlink(_ path: String) throws(ShadesError) {
        do { _ = try call("unlink") { Platform.unlink(path) } } catch where error.code == ENOENT {}
    }

    /// `mkdir(2)`.
    package static func makeFolder(_ path: String, mode: mode_t = 0o755) throws(ShadesError) {
        _ = try call("mkdir") { mkdir(path, mode) }
    }

    /// `rmdir(2)`: removes an empty folder.
    package static func removeFolder(_ path: String) throws(ShadesError) {
        _ = try call("rmdir") { rmdir(path) }
    }

    /// Removes `path` and, if it is a folder, everything in it (`lstat`, `unlink`, `rmdir`; links are
    /// removed, never followed). Names already gone are skipped.
    package static func removeTree(_ path: String) throws(ShadesError) {
        let info: stat
        do { info = try linkStatus(path) } catch where error.code == ENOENT { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return try unlink(path) }
        for name in try entries(inFolder: path) { try removeTree(path + "/" + name) }
        do { try removeFolder(path) } catch where error.code == ENOENT {}
    }

    /// `stat(2)` (follows links).
    package static func status(_ path: String) throws(ShadesError) -> stat {
        var info = stat()
        _ = try call("stat") { stat(path, &info) }
        return info
    }

    /// Seconds since `path` (followed) was last modified; for a folder, since an entry was added or removed.
    package static func secondsSinceModified(_ path: String) throws(ShadesError) -> Double {
        let info = try status(path)
        #if canImport(Darwin)
        let modified = info.st_mtimespec.tv_sec
        #else
        let modified = info.st_mtim.tv_sec
        #endif
        return Double(time(nil) - modified)
    }

    /// `lstat(2)`: a link's own status, not its target's.
    package static func linkStatus(_ path: String) throws(ShadesError) -> stat {
        var info = stat()
        _ = try call("lstat") { lstat(path, &info) }
        return info
    }

    /// `realpath(3)`: `path` with every link, `.` and `..` resolved.
    package static func realPath(_ path: String) throws(ShadesError) -> String {
        guard let resolved = realpath(path, nil) else { throw ShadesError(call: "realpath", code: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The real path of the `shades` a job script should run: `SHADES_EXECUTABLE` when it names an executable
    /// (the bundle's bin/shades sets it to itself: it runs the program through the bundle's own loader, so
    /// /proc/self/exe names that loader), else /proc/self/exe.
    package static func executablePath() throws(ShadesError) -> String {
        if let launcher = getenv("SHADES_EXECUTABLE").map({ String(cString: $0) }), launcher.hasPrefix("/"),
           access(launcher, X_OK) == 0 {
            return try realPath(launcher)
        }
        return try realPath("/proc/self/exe")
    }

    /// The names in `folder` except `.` and `..`, in the order the file system gives them
    /// (`opendir(3)`, `readdir(3)`).
    package static func entries(inFolder folder: String) throws(ShadesError) -> [String] {
        guard let directory = opendir(folder) else { throw ShadesError(call: "opendir", code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(directory) {
            // Read the name in place, up to its NUL: a record can be shorter than `dirent` (d_reclen), so
            // copying the whole d_name field read past the end of the last record (AddressSanitizer).
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Processes and locks

    /// This process's id (`getpid(2)`).
    package static var processID: Int32 { getpid() }

    /// True when no process `pid` exists (`kill(2)` with signal 0 fails with ESRCH): what was left under a
    /// name carrying `pid` belongs to nobody. A live process, or one of another user (EPERM), is not gone.
    package static func isProcessGone(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        do { _ = try call("kill") { kill(pid, 0) } } catch { return error.code == ESRCH }
        return false
    }

    /// Takes an exclusive `flock(2)` on `folder` (opened read-only), waiting while another holder (any
    /// process, or another descriptor of this one) has it; returns the descriptor that holds it, for
    /// ``unlock(_:)``. The kernel drops the lock when its holder dies, so nothing is left on disk.
    package static func lock(folder: String) throws(ShadesError) -> Int32 {
        let descriptor = try open(folder, O_RDONLY | O_DIRECTORY)
        do { _ = try call("flock") { flock(descriptor, LOCK_EX) } } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Releases a lock from ``lock(folder:)`` (closes its descriptor).
    package static func unlock(_ descriptor: Int32) { close(descriptor) }

    // MARK: errno policy

    /// Runs `body` until it returns something other than −1 or fails with something other than EINTR.
    @inline(never)
    private static func call<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(ShadesError) -> T {
        while true {
            let result = body()
            guard result == -1 else { return result }
            let code = errno
            if code != EINTR { throw ShadesError(call: name, code: code) }
        }
    }
}
