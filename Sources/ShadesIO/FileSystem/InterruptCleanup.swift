import ShadesPlatform
import Synchronization

/// What an interrupted run (SIGINT, SIGTERM, SIGHUP) must remove, and the steps it must not cut in two.
///
/// A run registers what it makes before its output is complete: a temporary file's name, a catalogue's
/// building folder, a stimuli staging folder, an output folder it created. It forgets each once it is in
/// place or removed. A step that puts an output in place (renames, and the registry's bookkeeping around
/// them) runs as one ``uninterrupted(_:)`` step.
///
/// The signal handler does nothing of this (it may only set a flag or write to a pipe): a watcher thread
/// calls ``removeEverythingAndExit(signal:)``, which takes the registry's lock, so it waits for a step in
/// progress, removes what is registered (newest first: files, then the folders they were in), and exits
/// with 128 + the signal still holding the lock, so no thread starts another step. The previous output
/// is then as it was, or already the complete new one.
///
/// The exit status is 128 + the signal, as a shell reports a process the signal ended, unless the command
/// chose its own with ``setExitStatusOnInterrupt(_:)`` (`study build`: 1, "worth retrying", for a scheduler).
package enum InterruptCleanup {
    /// How a registered path is removed.
    package enum Kind: Sendable {
        /// `unlink`.
        case file
        /// Everything in it, then the folder.
        case tree
        /// The folder, if it is empty (an output folder a run made: once the output is in it, it stays).
        case emptyFolder
    }

    private static let lock = RecursiveLock()
    /// The exit status an interrupt ends the run with; 0: 128 + the signal.
    private static let statusOnInterrupt = Atomic<Int32>(0)

    /// From now on an interrupt ends the run with `status` (1 … 125), after the same clean-up, and says so on
    /// standard error.
    package static func setExitStatusOnInterrupt(_ status: Int32) {
        precondition((1...125).contains(status), "an exit status a shell does not take for a signal")
        statusOnInterrupt.store(status, ordering: .releasing)
    }

    nonisolated(unsafe) private static var registered: [(path: String, kind: Kind)] = []

    /// Registers `path`, to be removed if the run is interrupted.
    package static func register(_ path: String, _ kind: Kind) {
        lock.withLock { registered.append((path, kind)) }
    }

    /// Forgets `path` (it is in place, or removed).
    package static func forget(_ path: String) {
        lock.withLock {
            if let index = registered.lastIndex(where: { $0.path == path }) { registered.remove(at: index) }
        }
    }

    /// Runs `body` as one step: an interrupt arriving meanwhile waits for it to finish. Keep it short (a
    /// few renames); it may register and forget.
    package static func uninterrupted<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Removes everything registered and ends the process with exit status 128 + `signal`, or the command's
    /// own. Called on the interrupt watcher's thread, never in a signal handler.
    package static func removeEverythingAndExit(signal: Int32) -> Never {
        lock.lock()   // held until the end: no other step starts
        for entry in registered.reversed() { remove(entry.path, entry.kind) }
        let chosen = statusOnInterrupt.load(ordering: .acquiring)
        if chosen != 0 {
            let note = "shades: interrupted by signal \(signal); exit status \(chosen)\n"
            _ = note.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        }
        _exit(chosen != 0 ? chosen : 128 + signal)   // not exit(): other threads still run, and atexit handlers could wait for them
    }

    private static func remove(_ path: String, _ kind: Kind) {
        switch kind {
        case .file:
            _ = unlink(path)
        case .emptyFolder:
            _ = rmdir(path)
        case .tree:
            // Worker threads may still be writing into it: remove until it is gone.
            for _ in 0..<200 {
                try? FileSystem.removeTree(path)
                if (try? FileSystem.linkStatus(path)) == nil { return }
                usleep(1_000)
            }
        }
    }
}

/// A recursive pthread mutex: an uninterrupted step may register and forget while it holds the lock.
private final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
