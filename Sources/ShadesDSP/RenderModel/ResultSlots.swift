/// One result per parallel iteration: each thread writes its own slot, and the caller reads them after
/// joining the threads (`concurrentPerform` returning, a group wait).
///
/// The slots are plain memory, not an array in a variable: writing one element of an array held in a
/// shared variable is a modifying access of the whole variable, a race between the workers even when each
/// writes its own index (ThreadSanitizer: "Swift access race"). A `Mutex` around the array is correct too,
/// but ThreadSanitizer does not see its futex on Linux and reports the same race.
package final class ResultSlots<T: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<T?>
    private let count: Int

    package init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    package subscript(index: Int) -> T {
        get { slots[index]! }
        set {
            precondition(index >= 0 && index < count, "slot \(index) of \(count)")
            slots[index] = newValue
        }
    }

    package var values: [T] { (0..<count).map { slots[$0]! } }
}

