import ShadesPlatform

/// A plain mutex for setup paths (FFT planning, file bookkeeping); never used while rendering.
package final class PosixLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value behind a ``PosixLock``, for state that worker threads share (caches, results, counters).
///
/// Used instead of `Synchronization.Mutex` where threads contend: on Linux a contended `Mutex` is taken
/// in the Swift runtime's slow path (`_lockSlow`, a futex), which is not instrumented, so ThreadSanitizer
/// saw no acquire and reported every access after a contended lock as a race. A pthread mutex is
/// intercepted, so the thread-sanitizer run (`make test-tsan`) reports only real races.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = PosixLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value, holding the lock.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}
