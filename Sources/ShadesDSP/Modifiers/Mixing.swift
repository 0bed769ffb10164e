import ShadesPlatform

/// Several sources summed, each with a linear gain per channel and optionally a slow swell: the layers of
/// a texture (rain, surf, wind), a catalogue sound.
///
/// All layers must share the sample rate and channel count. Rendering goes through one preallocated
/// scratch block, so the render call allocates nothing, and each layer keeps its own block-size
/// invariance, so the mix does too.
///
/// The order of the Float products is fixed (catalogue files are study data and keep their bytes): the
/// first layer is written as x·(g·s), every further layer adds (x·g)·s, where g is the channel's gain and
/// s the swell's gain at that frame (1 without a swell).
package final class MixSource: AudioSource {
    /// One layer: a source, its linear gain per channel and an optional swell.
    package struct Layer {
        package var source: any AudioSource
        /// Linear gain of each channel (as many as the source has).
        package var channelGains: [Float]
        package var swell: SwellEnvelope?

        package init(source: any AudioSource, channelGains: [Float], swell: SwellEnvelope? = nil) {
            (self.source, self.channelGains, self.swell) = (source, channelGains, swell)
        }

        /// The same gain on every channel.
        package init(source: any AudioSource, gain: Float, swell: SwellEnvelope? = nil) {
            self.init(source: source, channelGains: Array(repeating: gain, count: source.channelCount), swell: swell)
        }
    }

    package let sampleRate: Double
    package let channelCount: Int
    package let layers: [Layer]
    private let scratch: AudioBuffer
    private let swellGains: UnsafeMutablePointer<Float>
    private var position = 0

    static let scratchFrames = 4096

    /// Throws when the layers differ in rate or channels, a layer's gains do not match its channels, or
    /// there are none.
    package init(layers: [Layer]) throws(ShadesError) {
        guard let first = layers.first else {
            throw ShadesError(.layers, .missing, allowed: AllowedValues(note: "one or more sources"))
        }
        guard layers.allSatisfy({ $0.source.sampleRate == first.source.sampleRate && $0.source.channelCount == first.source.channelCount }) else {
            throw ShadesError(.layers, .other("differ in rate or channels"), value: .text("\(layers.count) sources"),
                              allowed: AllowedValues(note: "layers of one sample rate and channel layout"))
        }
        guard layers.allSatisfy({ $0.channelGains.count == first.source.channelCount }) else {
            throw ShadesError(.layers, .other("have gains that do not match their channels"), value: .text("\(layers.count) sources"),
                              allowed: AllowedValues(note: "one gain per channel"))
        }
        sampleRate = first.source.sampleRate
        channelCount = first.source.channelCount
        self.layers = layers
        scratch = AudioBuffer(channelCount: channelCount, frameCapacity: Self.scratchFrames)
        swellGains = .allocate(capacity: Self.scratchFrames)
    }

    /// Layers with one linear gain each and no swell.
    package convenience init(layers: [(source: any AudioSource, gain: Float)]) throws(ShadesError) {
        try self.init(layers: layers.map { Layer(source: $0.source, gain: $0.gain) })
    }

    deinit { swellGains.deallocate() }

    /// Prepares every layer's source.
    package func prepareForRealTime(_ preparation: RealTimePreparation) { for layer in layers { layer.source.prepareForRealTime(preparation) } }

    package func render(into block: AudioBlock) {
        var done = 0
        while done < block.frameCount {
            let count = min(Self.scratchFrames, block.frameCount - done)
            let target = block.frames(done..<done + count)
            for (index, layer) in layers.enumerated() {
                if let swell = layer.swell {
                    for i in 0..<count { swellGains[i] = Float(swell.gain(atFrame: position + done + i)) }
                }
                scratch.withBlock(frames: 0..<count) { piece in
                    layer.source.render(into: piece)
                    for c in 0..<channelCount {
                        let from = piece.channel(c), to = target.channel(c)
                        let g = layer.channelGains[c]
                        switch (index == 0, layer.swell != nil) {
                        case (true, false): for i in 0..<count { to[i] = from[i] * g }
                        case (true, true): for i in 0..<count { to[i] = from[i] * (g * swellGains[i]) }
                        case (false, false): for i in 0..<count { to[i] += from[i] * g }
                        case (false, true): for i in 0..<count { to[i] += from[i] * g * swellGains[i] }
                        }
                    }
                }
            }
            done += count
        }
        position += block.frameCount
    }
}

/// A slow, smooth amplitude swell for textures (ocean surf, wind): gain(t) = 1 + depth·s(t), where s(t)
/// is the mean of three sinusoids with periods P, P·φ and P·φ² (φ the golden ratio, so the pattern does
/// not repeat audibly) and seeded start phases, so |s| ≤ 1.
///
/// The gain is a function of the absolute frame, computed in Double, so any block sizes give the same
/// samples. For a loop, ``loopPeriods(near:frameCount:sampleRate:)`` gives periods with whole cycles.
package struct SwellEnvelope: Sendable, Equatable {
    package let sampleRate: Double
    /// Periods of the three components, in seconds.
    package let periodsSeconds: [Double]
    /// Depth in [0, 1].
    package let depth: Double
    private let phases: [Double]

    /// Allowed base period, in seconds.
    package static let allowedPeriodSeconds: ClosedRange<Double> = 2...60

    /// - Parameters:
    ///   - periodSeconds: the base period P (2 … 60 s), or `periodsSeconds` for all three (a loop's).
    ///   - depth: 0 … 1.
    ///   - seed: start phases.
    package init(sampleRate: Double, periodSeconds: Double, depth: Double, seed: UInt64 = 1,
                periodsSeconds: [Double]? = nil) throws(ShadesError) {
        try Parameter.swellPeriod.check(periodSeconds)
        try Parameter.swellDepth.check(depth)
        self.sampleRate = sampleRate
        let golden = (1 + 5.0.squareRoot()) / 2
        self.periodsSeconds = periodsSeconds ?? [periodSeconds, periodSeconds * golden, periodSeconds * golden * golden]
        self.depth = depth
        var mixer = SplitMix64(seed: SeedStream.phase.key(seed: seed, channel: 0))
        phases = (0..<3).map { _ in mixer.nextUnit() * 2 * Double.pi }
    }

    /// Periods near P, P·φ, P·φ² with a whole number of cycles (at least one) in a loop of `frameCount`.
    package static func loopPeriods(near periodSeconds: Double, frameCount: Int, sampleRate: Double) -> [Double] {
        let golden = (1 + 5.0.squareRoot()) / 2
        let length = Double(frameCount) / sampleRate
        return [periodSeconds, periodSeconds * golden, periodSeconds * golden * golden].map { p in
            length / max(1, (length / p).rounded())
        }
    }

    /// The gain at absolute frame `frame`.
    package func gain(atFrame frame: Int) -> Double {
        let t = Double(frame) / sampleRate
        var s = 0.0
        for (period, phase) in zip(periodsSeconds, phases) { s += sin(2 * Double.pi * t / period + phase) }
        return 1 + depth * s / 3
    }
}
