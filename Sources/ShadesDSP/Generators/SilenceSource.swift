/// Digital silence: a carrier for checking a modifier's parameters, or a gap.
public final class SilenceSource: AudioSource {
    public let sampleRate: Double
    public let channelCount: Int

    public init(sampleRate: Double = 48_000, channelCount: Int = 1) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    public func render(into block: AudioBlock) { block.clear() }
}
