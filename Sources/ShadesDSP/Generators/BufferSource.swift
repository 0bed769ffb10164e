/// Plays an ``AudioBuffer`` from its start (e.g. a loop made by FFT synthesis); silence after its end, or
/// the buffer again from its start when it ``loops``.
package final class BufferSource: AudioSource {
    package let sampleRate: Double
    package var channelCount: Int { buffer.channelCount }
    private let buffer: AudioBuffer
    private var position = 0
    /// Plays the buffer over and over (a seamless loop plays endlessly).
    package var loops = false

    package init(buffer: AudioBuffer, sampleRate: Double) {
        self.buffer = buffer
        self.sampleRate = sampleRate
    }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        if loops && buffer.frameCapacity > 0 {
            var done = 0
            while done < block.frameCount {
                if position == buffer.frameCapacity { position = 0 }
                let n = min(block.frameCount - done, buffer.frameCapacity - position)
                for c in 0..<block.channelCount {
                    let destination = block.channel(c)
                    buffer.withChannel(c) { source in
                        (destination.baseAddress! + done).update(from: source.baseAddress! + position, count: n)
                    }
                }
                position += n
                done += n
            }
            return
        }
        let available = max(0, min(block.frameCount, buffer.frameCapacity - position))
        for c in 0..<block.channelCount {
            let destination = block.channel(c)
            buffer.withChannel(c) { source in
                destination.baseAddress!.update(from: source.baseAddress! + position, count: available)
            }
            destination.baseAddress!.advanced(by: available).update(repeating: 0, count: block.frameCount - available)
        }
        position += available
    }
}
