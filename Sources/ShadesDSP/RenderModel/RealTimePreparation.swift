import Synchronization

/// Readies a source graph for a real-time render thread: every source of it answers
/// ``AudioSource/prepareForRealTime(_:)`` (a modifier passes it on to its sources first), and `finish()`
/// ends it. After that, render calls allocate nothing, take no locks and never wait: a notch streams in
/// small partitions (its work the same in every call), a file's reader has decoded ahead and a render
/// call that finds it behind plays silence for the rest of its block and counts an underrun instead of
/// waiting.
///
/// Not real-time itself: preparing may allocate, plan FFTs, render a notch's pre-roll and wait for a
/// file's first blocks. ``PlayerEngine`` prepares every source it is given; call it yourself only for a
/// source you render on an audio thread without the engine:
///
///     RealTimePreparation.prepare(source)   // on the control thread, before the first render call
public final class RealTimePreparation {
    /// Counts render calls in which a file's reader was behind, for every source prepared with it.
    package let readerUnderruns: UnderrunCounter
    private var whenReady: [() -> Void] = []

    /// A preparation whose file sources count their reader's underruns in `readerUnderruns`.
    package init(readerUnderruns: UnderrunCounter = UnderrunCounter()) {
        self.readerUnderruns = readerUnderruns
        // The kernel table is chosen on its first use (reading the environment, under a once-lock): here,
        // not in a render call of a source whose first kernel call comes late (a pulsed tone's envelope).
        _ = Kernels.table
    }

    /// Prepares `source` for a real-time thread and finishes (see the type).
    public static func prepare(_ source: any AudioSource) { prepare(source, readerUnderruns: UnderrunCounter()) }

    /// Prepares `source` for a real-time thread and finishes (see the type); returns the counter of its
    /// readers' underruns.
    @discardableResult
    package static func prepare(_ source: any AudioSource, readerUnderruns: UnderrunCounter) -> UnderrunCounter {
        let preparation = RealTimePreparation(readerUnderruns: readerUnderruns)
        source.prepareForRealTime(preparation)
        preparation.finish()
        return readerUnderruns
    }

    /// Runs `action` in ``finish()``, once the whole graph is prepared: a file source switches its reader
    /// to real-time there, after the modifiers above it have rendered their pre-rolls from it (offline,
    /// waiting for the reader).
    package func whenGraphIsPrepared(_ action: @escaping () -> Void) {
        whenReady.append(action)
    }

    /// Ends the preparation of a graph (runs what its sources asked for once it is prepared). Call it after
    /// ``AudioSource/prepareForRealTime(_:)`` of the graph's top source; the preparation can then prepare
    /// another graph (``PlayerEngine`` keeps one, so preparing a generator allocates nothing).
    package func finish() {
        guard !whenReady.isEmpty else { return }
        // By index, then emptied in place: copying the array first would share its buffer, and emptying it
        // while shared would allocate a new one on every later preparation.
        var index = 0
        while index < whenReady.count {
            whenReady[index]()
            index += 1
        }
        whenReady.removeAll(keepingCapacity: true)
    }
}

/// A count of underruns any thread may read while the audio thread adds to it (relaxed atomic).
package final class UnderrunCounter: Sendable {
    private let value = Atomic<Int>(0)

    package init() {}

    /// Underruns so far.
    package var count: Int { value.load(ordering: .relaxed) }

    /// Adds one (real-time safe).
    package func add() { value.add(1, ordering: .relaxed) }
}
