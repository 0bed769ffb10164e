/// Digital silence: a carrier for checking a modifier's parameters, or a gap.
package final class SilenceSource: AudioSource {
    package let sampleRate: Double
    package let channelCount: Int

    package init(sampleRate: Double = 48_000, channelCount: Int = 1) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) { block.clear() }
}
