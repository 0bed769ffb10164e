/// Independent mono signals placed in output channels by a ``ChannelLayout`` (a stereo noise: two
/// signals; a diotic tone: one signal in both ears; a left-ear tone: the right channel silent), each
/// signal times its linear gain.
///
/// Each signal is rendered once per call into the first channel that carries it and copied to the
/// others, so allocation-freedom and block-size invariance are the signals' own.
package final class ChannelLayoutSource: AudioSource {
    package let layout: ChannelLayout
    package let sampleRate: Double
    package var channelCount: Int { layout.outputChannelCount }
    /// One mono source per signal of the layout.
    package let signals: [any AudioSource]
    /// Linear gain per signal; nil: the signals as they are.
    package let gains: [Float]?

    /// - Throws: `layout` when the count of signals is not the layout's, a signal is not mono, or the
    ///   signals differ in rate or the gains in count.
    package init(signals: [any AudioSource], layout: ChannelLayout, gains: [Float]? = nil) throws(ShadesError) {
        guard signals.count == layout.signalCount, signals.allSatisfy({ $0.channelCount == 1 }),
              gains.map({ $0.count == signals.count }) ?? true,
              signals.allSatisfy({ $0.sampleRate == signals[0].sampleRate }) else {
            throw ShadesError(.layout, .other("does not match its signals"), value: .text("\(layout.rawValue) with \(signals.count) signals"),
                              allowed: AllowedValues(note: "\(layout.signalCount) mono signal(s) of one rate, one gain each"))
        }
        self.layout = layout
        self.signals = signals
        self.gains = gains
        sampleRate = signals[0].sampleRate
    }

    /// Prepares its signals.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { for signal in signals { signal.prepareForRealTime(preparation) } }

    package func render(into block: AudioBlock) {
        layout.fill(block) { s, target in
            withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: 1) { pointers in
                pointers[0] = target.baseAddress!
                signals[s].render(into: AudioBlock(channels: UnsafeBufferPointer(pointers), frameCount: block.frameCount))
            }
            if let gain = gains?[s] { for i in 0..<target.count { target[i] *= gain } }
        }
    }
}
