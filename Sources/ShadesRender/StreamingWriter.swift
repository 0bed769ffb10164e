import Dispatch
import Synchronization
import ShadesDSP
import ShadesIO

/// Writing a file render: one worker thread per signal renders a chunk, measures it if asked (Σx² and peak
/// before the gain, in the chunks pass 1 uses), applies the signal's gain and quantises it into a slot of a
/// ring; the calling thread interleaves each finished chunk and hands it to libsndfile while the workers
/// make the next. Memory stays a few chunks, however long the file, and the bytes do not depend on thread
/// timing (each signal has its own dither stream).
final class StreamingWriter: @unchecked Sendable {
    private let plan: SignalPlan
    private let gains: [Float]
    private let sampleFormat: SampleFormat
    private let seed: UInt64
    private let chunkFrames: Int
    private let chunkCount: Int
    private let planes16: UnsafeMutablePointer<Int16>     // [slot][signal][frame]
    private let planesFloat: UnsafeMutablePointer<Float>
    private let filled: [[DispatchSemaphore]]             // [slot][signal]
    private let free: [[DispatchSemaphore]]
    private let cancelled = Atomic<Bool>(false)
    /// Nil unless the writer measures (a one-pass render checks its level).
    private let measured: ResultSlots<SignalMeasurement>?

    private static let slots = 3

    init(plan: SignalPlan, gains: [Float], sampleFormat: SampleFormat, seed: UInt64, chunkFrames: Int, measuring: Bool) {
        self.plan = plan
        self.gains = gains
        self.sampleFormat = sampleFormat
        self.seed = seed
        self.chunkFrames = chunkFrames
        chunkCount = (plan.frames + chunkFrames - 1) / chunkFrames
        let planeCount = Self.slots * plan.signalCount * chunkFrames
        planes16 = .allocate(capacity: sampleFormat == .s16 ? planeCount : 1)
        planesFloat = .allocate(capacity: sampleFormat == .s16 ? 1 : planeCount)
        filled = (0..<Self.slots).map { _ in (0..<plan.signalCount).map { _ in DispatchSemaphore(value: 0) } }
        free = (0..<Self.slots).map { _ in (0..<plan.signalCount).map { _ in DispatchSemaphore(value: 1) } }
        measured = measuring ? ResultSlots(count: plan.signalCount) : nil
    }

    /// What each signal measured before its gain (after ``run(into:)``, if measuring): the same sums as
    /// `Renderer.measure` on the same source.
    var measurements: [SignalMeasurement]? { measured?.values }

    deinit {
        planes16.deallocate()
        planesFloat.deallocate()
    }

    private func planeOffset(slot: Int, signal: Int) -> Int { (slot * plan.signalCount + signal) * chunkFrames }

    /// Renders every chunk and writes it to `output` in order.
    func run(into output: AudioFileOutput) throws(ShadesError) {
        let group = DispatchGroup()
        for s in 0..<plan.signalCount {
            DispatchQueue.global(qos: .userInitiated).async(group: group) { self.work(signal: s) }
        }
        let channels = plan.layout.outputChannelCount
        let interleaved16 = UnsafeMutablePointer<Int16>.allocate(capacity: sampleFormat == .s16 ? chunkFrames * channels : 1)
        let interleavedFloat = UnsafeMutablePointer<Float>.allocate(capacity: sampleFormat == .s16 ? 1 : chunkFrames * channels)
        defer {
            interleaved16.deallocate()
            interleavedFloat.deallocate()
        }
        do throws(ShadesError) {
            for k in 0..<chunkCount {
                let slot = k % Self.slots
                let n = min(chunkFrames, plan.frames - k * chunkFrames)
                for s in 0..<plan.signalCount { filled[slot][s].wait() }
                let signalOf = (0..<channels).map { plan.layout.signal(forOutputChannel: $0) }
                if sampleFormat == .s16 {
                    Interleave.frames(signalOf.map { $0.map { UnsafePointer(planes16 + planeOffset(slot: slot, signal: $0)) } },
                                      frames: n, into: interleaved16)
                } else {
                    Interleave.frames(signalOf.map { $0.map { UnsafePointer(planesFloat + planeOffset(slot: slot, signal: $0)) } },
                                      frames: n, into: interleavedFloat)
                }
                for s in 0..<plan.signalCount { free[slot][s].signal() }
                if sampleFormat == .s16 {
                    try output.write(UnsafeBufferPointer(start: interleaved16, count: n * channels))
                } else {
                    try output.write(UnsafeBufferPointer(start: interleavedFloat, count: n * channels))
                }
            }
        } catch {
            cancelled.store(true, ordering: .relaxed)
            // Twice: a worker three chunks ahead takes one signal to wake and return, and libdispatch
            // crashes (SIGILL) when a semaphore is freed below its initial value (seen on a full disk).
            for slot in free { for semaphore in slot { semaphore.signal(); semaphore.signal() } }
            group.wait()
            throw error
        }
        group.wait()
    }

    private func work(signal s: Int) {
        let source = plan.makeSource(s)
        var quantizer = SignalQuantizer(ditherKey: SeedStream.dither.key(seed: seed, channel: s))
        let scratch = AudioBuffer(channelCount: 1, frameCapacity: chunkFrames, zeroed: false)
        let gain = gains[s]
        var total = SignalMeasurement(sumOfSquares: 0, peak: 0)
        defer { measured?[s] = total }
        let measuring = measured != nil
        for k in 0..<chunkCount {
            let slot = k % Self.slots
            free[slot][s].wait()
            if cancelled.load(ordering: .relaxed) { return }
            let n = min(chunkFrames, plan.frames - k * chunkFrames)
            scratch.withBlock(frames: 0..<n) { block in
                source.render(into: block)
                let samples = UnsafeBufferPointer(block.channel(0))
                if measuring {
                    total.add(chunk: samples)
                }
                if sampleFormat == .s16 {
                    quantizer.quantize16(samples, gain: gain,
                                         into: UnsafeMutableBufferPointer(start: planes16 + planeOffset(slot: slot, signal: s), count: n))
                } else {
                    SignalQuantizer.scale(samples, gain: gain,
                                          into: UnsafeMutableBufferPointer(start: planesFloat + planeOffset(slot: slot, signal: s), count: n))
                }
            }
            filled[slot][s].signal()
        }
    }
}
