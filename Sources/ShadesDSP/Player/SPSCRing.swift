import Synchronization

/// A bounded single-producer, single-consumer queue: one thread pushes, one other thread pops, neither
/// ever blocks, locks or allocates after `init` (Lamport's ring with acquire/release indices).
///
/// Used between a control thread and the audio thread of ``PlayerEngine``.
final class SPSCRing<Element>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element?>
    private let capacity: Int
    private let head = Atomic<Int>(0)   // next slot to pop (consumer)
    private let tail = Atomic<Int>(0)   // next slot to push (producer)

    /// A ring holding up to `capacity` elements.
    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity + 1
        slots = .allocate(capacity: capacity + 1)
        slots.initialize(repeating: nil, count: capacity + 1)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Appends `element`; false (and nothing queued) when the ring is full. Producer only.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = (t + 1) % capacity
        guard next != head.load(ordering: .acquiring) else { return false }
        slots[t] = element
        tail.store(next, ordering: .releasing)
        return true
    }

    /// The oldest element, or nil when empty. Consumer only.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let element = slots[h].take()
        head.store((h + 1) % capacity, ordering: .releasing)
        return element
    }

    /// The oldest element without removing it. Consumer only.
    func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        return slots[h]
    }
}
