import ShadesDSP
import ShadesPlatform

/// Any source times a ``SwellEnvelope`` (every channel alike): the envelope tested on a tone.
package final class SwellSource: AudioSource {
    package let source: any AudioSource
    package var sampleRate: Double { source.sampleRate }
    package var channelCount: Int { source.channelCount }
    package let envelope: SwellEnvelope
    /// Periods of the three components, in seconds.
    package var periodsSeconds: [Double] { envelope.periodsSeconds }
    private var position = 0
    private let gains: UnsafeMutablePointer<Float>

    static let segmentFrames = 1024
    /// Allowed base period, in seconds.
    package static var allowedPeriodSeconds: ClosedRange<Double> { SwellEnvelope.allowedPeriodSeconds }

    /// See ``SwellEnvelope/init(sampleRate:periodSeconds:depth:seed:periodsSeconds:)``.
    package init(source: any AudioSource, periodSeconds: Double, depth: Double, seed: UInt64 = 1,
                periodsSeconds: [Double]? = nil) throws(ShadesError) {
        self.source = source
        envelope = try SwellEnvelope(sampleRate: source.sampleRate, periodSeconds: periodSeconds, depth: depth, seed: seed,
                                     periodsSeconds: periodsSeconds)
        gains = .allocate(capacity: Self.segmentFrames)
        gains.initialize(repeating: 1, count: Self.segmentFrames)
    }

    deinit { gains.deallocate() }

    /// Periods near P, P·φ, P·φ² with a whole number of cycles (at least one) in a loop of `frameCount`.
    package static func loopPeriods(near periodSeconds: Double, frameCount: Int, sampleRate: Double) -> [Double] {
        SwellEnvelope.loopPeriods(near: periodSeconds, frameCount: frameCount, sampleRate: sampleRate)
    }

    /// The gain at absolute frame `frame`.
    package func gain(atFrame frame: Int) -> Double { envelope.gain(atFrame: frame) }

    /// Prepares its source.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { source.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        source.render(into: block)
        var done = 0
        while done < block.frameCount {
            let count = min(Self.segmentFrames, block.frameCount - done)
            for i in 0..<count { gains[i] = Float(envelope.gain(atFrame: position + done + i)) }
            for c in 0..<block.channelCount {
                let samples = block.channel(c)
                for i in 0..<count { samples[done + i] *= gains[i] }
            }
            done += count
        }
        position += block.frameCount
    }
}
