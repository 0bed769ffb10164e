/// Plays an ``AudioBuffer`` from its start (e.g. a loop made by FFT synthesis); silence after its end.
public final class BufferSource: AudioSource {
    public let sampleRate: Double
    public var channelCount: Int { buffer.channelCount }
    private let buffer: AudioBuffer
    private var position = 0

    public init(buffer: AudioBuffer, sampleRate: Double) {
        self.buffer = buffer
        self.sampleRate = sampleRate
    }

    public func render(into block: AudioBlock) {
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
