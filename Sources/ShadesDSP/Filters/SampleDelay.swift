/// A delay of a fixed number of frames (a ring buffer): output[i] = input[i − frames], zeros before the
/// first input. Allocates nothing after `init`; input and output may be the same memory.
package final class SampleDelay {
    /// The delay, in frames (> 0).
    package let frames: Int
    private let ring: UnsafeMutableBufferPointer<Float>
    private var position = 0

    package init(frames: Int) {
        precondition(frames > 0)
        self.frames = frames
        ring = .allocate(capacity: frames)
        ring.initialize(repeating: 0)
    }

    deinit { ring.deallocate() }

    /// Delays `input` into `output` (the same count).
    package func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == output.count, "input and output must have the same count")
        var p = position
        for i in 0..<input.count {
            let x = input[i]   // read before writing: the buffers may be one
            output[i] = ring[p]
            ring[p] = x
            p += 1
            if p == frames { p = 0 }
        }
        position = p
    }
}
