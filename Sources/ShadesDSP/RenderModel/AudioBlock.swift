import ShadesPlatform

/// Non-interleaved Float32 channels owned by the caller, for one render call.
///
/// The shape of an `AVAudioSourceNode` render callback: one pointer per channel, each valid for
/// `frameCount` samples. A block never owns memory; sub-ranges share the caller's pointer list, so
/// slicing a block allocates nothing.
public struct AudioBlock {
    @usableFromInline let channelStarts: UnsafeBufferPointer<UnsafeMutablePointer<Float>>
    @usableFromInline let frameOffset: Int
    /// Frames (samples per channel) in this block.
    public let frameCount: Int

    /// Wraps caller-owned channel pointers; each must be valid for `frameCount` samples.
    public init(channels: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, frameCount: Int) {
        precondition(frameCount >= 0, "frameCount must be >= 0")
        self.channelStarts = channels
        self.frameOffset = 0
        self.frameCount = frameCount
    }

    @usableFromInline init(channelStarts: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, frameOffset: Int, frameCount: Int) {
        self.channelStarts = channelStarts
        self.frameOffset = frameOffset
        self.frameCount = frameCount
    }

    /// Number of channels.
    @inlinable public var channelCount: Int { channelStarts.count }

    /// The samples of one channel in this block.
    @inlinable public func channel(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: channelStarts[index] + frameOffset, count: frameCount)
    }

    /// The frames `range` of this block (relative to its start), sharing the same memory.
    @inlinable public func frames(_ range: Range<Int>) -> AudioBlock {
        precondition(range.lowerBound >= 0 && range.upperBound <= frameCount, "frame range out of block")
        return AudioBlock(channelStarts: channelStarts, frameOffset: frameOffset + range.lowerBound, frameCount: range.count)
    }

    /// Sets every sample of the block to zero.
    @inlinable public func clear() {
        for c in 0..<channelCount { channel(c).update(repeating: 0) }
    }
}

/// Owned, non-interleaved Float32 audio: the non-real-time counterpart of ``AudioBlock``.
///
/// Memory is allocated once in `init`; ``withBlock(frames:_:)`` lends it out as an ``AudioBlock`` that
/// must not escape the closure.
public final class AudioBuffer: @unchecked Sendable {
    /// Number of channels.
    public let channelCount: Int
    /// Frames (samples per channel) the buffer holds.
    public let frameCapacity: Int
    private let storage: UnsafeMutablePointer<Float>
    private let pointers: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>

    /// Allocates `channelCount` channels of `frameCapacity` samples, zeroed unless `zeroed` is false
    /// (for buffers the caller fills completely).
    public init(channelCount: Int, frameCapacity: Int, zeroed: Bool = true) {
        precondition(channelCount > 0 && frameCapacity >= 0)
        self.channelCount = channelCount
        self.frameCapacity = frameCapacity
        let count = max(1, channelCount * frameCapacity)
        storage = LargeAllocation.allocateFloats(count)
        if zeroed { storage.initialize(repeating: 0, count: count) }
        pointers = .allocate(capacity: channelCount)
        for c in 0..<channelCount { pointers[c] = storage + c * frameCapacity }
    }

    deinit {
        LargeAllocation.free(storage)
        pointers.deallocate()
    }

    /// Lends frames `frames` of the buffer as a block; the block must not escape `body`.
    public func withBlock<R, E: Error>(frames: Range<Int>? = nil, _ body: (AudioBlock) throws(E) -> R) throws(E) -> R {
        let range = frames ?? 0..<frameCapacity
        let whole = AudioBlock(channels: UnsafeBufferPointer(pointers), frameCount: frameCapacity)
        return try body(whole.frames(range))
    }

    /// Lends one channel's samples; they must not escape `body`.
    public func withChannel<R, E: Error>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableBufferPointer(start: pointers[index], count: frameCapacity))
    }

    /// A copy of one channel as an array (for tests and analysis).
    public func samples(channel index: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: pointers[index], count: frameCapacity))
    }
}

/// Memory for sample buffers, 64-byte aligned for SIMD loads.
///
/// (Transparent huge pages were tried for long buffers: on these VMs a 230 MB allocation stalled for
/// 0.56 s in compaction, and with 4 KB pages the same buffer costs about 100 ms of CPU in page faults, as
/// much as rendering 10 minutes of pink noise again. So long renders stream through small buffers; see
/// `Renderer.renderFile`.)
enum LargeAllocation {
    static func allocateFloats(_ count: Int) -> UnsafeMutablePointer<Float> {
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, 64, count * MemoryLayout<Float>.stride) == 0, let raw else {
            fatalError("out of memory for \(count) samples")
        }
        return raw.bindMemory(to: Float.self, capacity: count)
    }

    static func free(_ pointer: UnsafeMutablePointer<Float>) {
        Platform.free(pointer)
    }
}
