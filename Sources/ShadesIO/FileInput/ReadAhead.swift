import ShadesPlatform
import Dispatch
import Synchronization
import ShadesDSP


/// Decoding ahead of the processing: a reader thread fills the next blocks (decoded, resampled) while the
/// caller filters and writes the current one, so reading no longer waits for the filters, nor they for it.
///
/// A ring of ``slotCount`` buffers of `blockFrames` frames, handed back and forth with two semaphores;
/// the blocks come out in the order they were read. Memory: slotCount × channels × blockFrames Floats.
package final class ReadAhead: @unchecked Sendable {
    /// Buffers in the ring: one being read, one being processed, one spare.
    static let slotCount = 3

    private let slots: [AudioBuffer]
    /// Frames in each filled slot (written by the reader before it signals `filled`). Plain memory, not an
    /// array in a variable: the reader's write of one slot and the consumer's read of another would be
    /// overlapping accesses of the whole array (a race, ThreadSanitizer's "Swift access race").
    private let frames: UnsafeMutablePointer<Int>
    private let filled = DispatchSemaphore(value: 0)
    /// Free slots. Created at 0 and signalled `slotCount` times: libdispatch stops the process when a
    /// semaphore is released below the value it was created with, which a reader stopped with the ring
    /// full (a player stopped mid-file) leaves it at.
    private let free = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// Signalled once when the reader thread has finished.
    private let finished = DispatchSemaphore(value: 0)
    /// Blocks handed over in all, published by the reader (−1 until it finishes) before its last signal.
    private let finalCount = Atomic<Int>(-1)
    /// Filled slots not yet taken, counted after `filled` is signalled for them.
    private let ready = Atomic<Int>(0)
    /// The reader's error, written before `finalCount`.
    private var failure: ShadesError?
    private var readSlot = 0, takeSlot = 0
    private var taken = 0
    /// The consumer holds `heldSlot` (``holdNext(waiting:)``).
    private var held = false, heldSlot = 0
    /// True once ``holdNext(waiting:)`` has returned the end.
    package private(set) var ended = false

    /// Starts the reader: `read` calls its argument once per block (`fill`, which returns false once the
    /// consumer has stopped); `fill` lends a slot to its closure, which writes up to `blockFrames` frames
    /// and returns how many (0: nothing to hand over).
    package init(channelCount: Int, blockFrames: Int,
         read: @escaping (_ fill: ((AudioBlock) throws(ShadesError) -> Int) throws(ShadesError) -> Bool) throws(ShadesError) -> Void) {
        slots = (0..<Self.slotCount).map { _ in AudioBuffer(channelCount: channelCount, frameCapacity: blockFrames, zeroed: false) }
        frames = .allocate(capacity: Self.slotCount)
        frames.initialize(repeating: 0, count: Self.slotCount)
        for _ in 0..<Self.slotCount { free.signal() }
        // `read` owns the input and the resampler; only the reader thread touches them.
        let task: () -> Void = { [self] in
            var handed = 0
            do throws(ShadesError) {
                try read { (body: (AudioBlock) throws(ShadesError) -> Int) throws(ShadesError) -> Bool in
                    free.wait()
                    if stopped.load(ordering: .acquiring) { return false }
                    let slot = readSlot
                    let n = try slots[slot].withBlock(body)
                    if n == 0 { free.signal(); return true }
                    frames[slot] = n
                    readSlot = (slot + 1) % Self.slotCount
                    handed += 1
                    // Signalled before it is counted ready: a consumer that sees it ready finds the
                    // semaphore's count raised and never waits (see holdNext(waiting:)).
                    filled.signal()
                    ready.add(1, ordering: .releasing)
                    return true
                }
            } catch {
                failure = error
            }
            finalCount.store(handed, ordering: .releasing)
            filled.signal()
            finished.signal()
        }
        // A thread of its own, not a Dispatch worker: it blocks while the ring is full, and batch jobs
        // each have one.
        DedicatedThread.start(task)
    }

    // The reader thread holds `self` until it has finished, so nothing uses `frames` after this.
    deinit { frames.deallocate() }

    /// Takes the next block in reading order and holds it (its slot is not refilled) until the next call:
    /// its frame count, nil once the reader has finished. Rethrows the reader's error after the blocks read
    /// before it. ``withHeldBlock(_:)`` lends it.
    ///
    /// Without `waiting`, it also returns nil at once when no block is ready yet (``ended`` tells that from
    /// the end), and it never blocks: real-time safe. (A semaphore polled with a zero timeout is not: when
    /// the reader has raised its count but not yet posted its wake-up, the poll waits for that post, which
    /// a preempted reader of normal priority can delay by tens of milliseconds, seen here as a 44 ms audio
    /// callback. So the count of ready blocks is read first.) Holding the block instead of copying it out
    /// keeps the call short too (a 131,072-frame stereo block is a megabyte).
    package func holdNext(waiting: Bool) throws(ShadesError) -> Int? {
        if held { free.signal() }   // the previous block's slot goes back to the reader
        held = false
        if waiting {
            filled.wait()
            if taken == finalCount.load(ordering: .acquiring) {
                filled.signal()   // later calls see the end too
                ended = true
                if let failure { throw failure }
                return nil
            }
        } else {
            guard ready.load(ordering: .acquiring) > 0 else {
                if taken == finalCount.load(ordering: .acquiring) {
                    ended = true
                    if let failure { throw failure }
                }
                return nil
            }
            filled.wait()   // signalled before it was counted ready: returns at once
        }
        heldSlot = takeSlot
        takeSlot = (heldSlot + 1) % Self.slotCount
        taken += 1
        ready.subtract(1, ordering: .relaxed)
        held = true
        return frames[heldSlot]
    }

    /// Lends the block ``holdNext(waiting:)`` holds (its frames only).
    package func withHeldBlock<R>(_ body: (AudioBlock) -> R) -> R {
        precondition(held, "no block is held")
        return slots[heldSlot].withBlock(frames: 0..<frames[heldSlot], body)
    }

    /// Waits (polling every millisecond, at most `timeoutSeconds`) until a block not yet taken is ready or
    /// the reader has finished: a real-time consumer then starts with its current block and the next one
    /// decoded (a block is seconds of sound; the reader stays ahead from there). Not for an audio thread.
    package func waitUntilAhead(timeoutSeconds: Double = 10) {
        var waitedMilliseconds = 0
        while ready.load(ordering: .acquiring) < 1 && finalCount.load(ordering: .acquiring) < 0
                && Double(waitedMilliseconds) < timeoutSeconds * 1000 {
            usleep(1_000)
            waitedMilliseconds += 1
        }
    }

    /// Stops the reader (after its current block) and waits for it. Call it once.
    package func stop() {
        stopped.store(true, ordering: .releasing)
        for _ in 0..<Self.slotCount { free.signal() }
        finished.wait()
    }
}

/// Starts work on a thread of its own (a pthread, detached), or on a Dispatch worker when no thread can be
/// had: for work that blocks on its partner for long stretches (a reader ahead of its consumer, a writer
/// behind its producer), which would hold a Dispatch worker other jobs need.
enum DedicatedThread {
    static func start(_ run: @escaping () -> Void) {
        let task = ThreadWork(run: run)
        #if os(Linux)
        let context = Unmanaged.passRetained(task as AnyObject).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            (Unmanaged<AnyObject>.fromOpaque(context).takeRetainedValue() as! ThreadWork).run()
            return nil
        }, context)
        if started == 0 {
            pthread_detach(thread)
            return
        }
        Unmanaged<AnyObject>.fromOpaque(context).release()
        #elseif canImport(Darwin)
        // Darwin's pthread_t is an optional pointer, and its start routine's argument is non-optional in
        // the current SDKs: the cast to an optional fits either (as swift-nio's ThreadPosix does).
        let context = Unmanaged.passRetained(task as AnyObject).toOpaque()
        var thread: pthread_t?
        let started = pthread_create(&thread, nil, { context in
            (Unmanaged<AnyObject>.fromOpaque((context as UnsafeMutableRawPointer?)!).takeRetainedValue() as! ThreadWork).run()
            return nil
        }, context)
        if started == 0 {
            if let thread { pthread_detach(thread) }
            return
        }
        Unmanaged<AnyObject>.fromOpaque(context).release()
        #endif
        DispatchQueue.global(qos: .userInitiated).async { task.run() }   // no thread of its own to be had
    }
}

/// A dedicated thread's work: it alone uses what it captures.
private final class ThreadWork: @unchecked Sendable {
    let run: () -> Void
    init(run: @escaping () -> Void) { self.run = run }
}
