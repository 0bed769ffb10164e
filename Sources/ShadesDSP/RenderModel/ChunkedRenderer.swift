/// One independent signal's generator, producing fixed-size chunks.
package protocol ChunkKernel {
    /// Fills `chunk` (exactly the renderer's chunk length) with the next samples of this signal.
    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>)
}

/// Runs one kernel per independent signal in fixed chunks aligned to frame 0 and routes the signals to
/// output channels by a ``ChannelLayout``.
///
/// Because every kernel always sees whole chunks at the same absolute positions, the output does not
/// depend on how a caller slices its render calls. A call that starts on a chunk boundary renders whole
/// chunks straight into the caller's buffer; the rest goes through one chunk of buffered samples.
package struct ChunkedRenderer<Kernel: ChunkKernel> {
    /// Frames per chunk.
    package let chunkFrames: Int
    package let layout: ChannelLayout
    private(set) var kernels: [Kernel]
    private let pending: UnsafeMutablePointer<Float>   // signalCount × chunkFrames
    private var readPosition: Int

    /// `kernels` holds one kernel per independent signal of `layout`.
    package init(kernels: [Kernel], layout: ChannelLayout, chunkFrames: Int) {
        precondition(kernels.count == layout.signalCount, "one kernel per independent signal")
        self.kernels = kernels
        self.layout = layout
        self.chunkFrames = chunkFrames
        pending = .allocate(capacity: kernels.count * chunkFrames)
        pending.initialize(repeating: 0, count: kernels.count * chunkFrames)
        readPosition = chunkFrames
    }

    /// Frees the chunk buffer; call once from the owner's `deinit`.
    package func deallocate() { pending.deallocate() }

    private func pendingChunk(_ signal: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: pending + signal * chunkFrames, count: chunkFrames)
    }

    /// Renders `block.frameCount` frames into `block`.
    package mutating func render(into block: AudioBlock) {
        precondition(block.channelCount == layout.outputChannelCount, "block has the wrong channel count")
        var done = 0
        while done < block.frameCount {
            let remaining = block.frameCount - done
            if readPosition == chunkFrames && remaining >= chunkFrames {
                renderWholeChunk(into: block.frames(done..<done + chunkFrames))
                done += chunkFrames
                continue
            }
            if readPosition == chunkFrames {
                for s in kernels.indices { kernels[s].renderChunk(into: pendingChunk(s)) }
                readPosition = 0
            }
            let n = min(remaining, chunkFrames - readPosition)
            let (pending, position, chunk) = (pending, readPosition, chunkFrames)
            layout.fill(block.frames(done..<done + n)) { s, destination in
                destination.baseAddress!.update(from: pending + s * chunk + position, count: n)
            }
            readPosition += n
            done += n
        }
    }

    private mutating func renderWholeChunk(into block: AudioBlock) {
        layout.fill(block) { s, destination in kernels[s].renderChunk(into: destination) }
    }
}
