import ShadesPlatform

/// Several sources summed with a linear gain each: the layers of a texture (rain, surf, wind).
///
/// All layers must share the sample rate and channel count. Rendering goes through one preallocated
/// scratch block, so the render call allocates nothing, and each layer keeps its own block-size
/// invariance, so the mix does too.
public final class MixSource: AudioSource {
    public let sampleRate: Double
    public let channelCount: Int
    /// The layers and their linear gains.
    public let layers: [(source: any AudioSource, gain: Float)]
    private let scratch: AudioBuffer

    static let scratchFrames = 4096

    /// Throws when the layers differ in rate or channels, or there are none.
    public init(layers: [(source: any AudioSource, gain: Float)]) throws(ParameterError) {
        guard let first = layers.first else {
            throw ParameterError(parameter: "layers", value: "none", problem: "is empty", allowed: "one or more sources")
        }
        guard layers.allSatisfy({ $0.source.sampleRate == first.source.sampleRate && $0.source.channelCount == first.source.channelCount }) else {
            throw ParameterError(parameter: "layers", value: "\(layers.count) sources", problem: "differ in rate or channels",
                                 allowed: "layers of one sample rate and channel layout")
        }
        sampleRate = first.source.sampleRate
        channelCount = first.source.channelCount
        self.layers = layers
        scratch = AudioBuffer(channelCount: channelCount, frameCapacity: Self.scratchFrames)
    }

    public func render(into block: AudioBlock) {
        var done = 0
        while done < block.frameCount {
            let count = min(Self.scratchFrames, block.frameCount - done)
            let target = block.frames(done..<done + count)
            for (index, layer) in layers.enumerated() {
                scratch.withBlock(frames: 0..<count) { piece in
                    layer.source.render(into: piece)
                    for c in 0..<channelCount {
                        let from = piece.channel(c), to = target.channel(c)
                        if index == 0 {
                            for i in 0..<count { to[i] = from[i] * layer.gain }
                        } else {
                            for i in 0..<count { to[i] += from[i] * layer.gain }
                        }
                    }
                }
            }
            done += count
        }
    }
}

/// A slow, smooth amplitude swell for textures (ocean surf, wind): gain(t) = 1 + depth·s(t), where s(t)
/// is the mean of three sinusoids with periods P, P·φ and P·φ² (φ the golden ratio, so the pattern does
/// not repeat audibly) and seeded start phases, so |s| ≤ 1.
///
/// The gain is computed from the absolute frame in Double, so any block sizes give the same samples.
/// For a loop, ``loopPeriods(near:frameCount:sampleRate:)`` gives periods with whole cycles.
public final class SwellSource: AudioSource {
    public let source: any AudioSource
    public var sampleRate: Double { source.sampleRate }
    public var channelCount: Int { source.channelCount }
    /// Periods of the three components, in seconds.
    public let periodsSeconds: [Double]
    /// Depth in [0, 1].
    public let depth: Double
    private let phases: [Double]
    private var position = 0
    private let gains: UnsafeMutablePointer<Float>

    static let segmentFrames = 1024
    /// Allowed base period, in seconds.
    public static let allowedPeriodSeconds: ClosedRange<Double> = 2...60

    /// - Parameters:
    ///   - periodSeconds: the base period P (2 … 60 s), or `periodsSeconds` for all three (a loop's).
    ///   - depth: 0 … 1.
    ///   - seed: start phases.
    public init(source: any AudioSource, periodSeconds: Double, depth: Double, seed: UInt64 = 1,
                periodsSeconds: [Double]? = nil) throws(ParameterError) {
        guard periodSeconds.isFinite, Self.allowedPeriodSeconds.contains(periodSeconds) else {
            throw ParameterError(parameter: "swell", value: "\(periodSeconds) s", allowed: "2 … 60 s")
        }
        guard depth.isFinite, (0...1).contains(depth) else {
            throw ParameterError(parameter: "swell-depth", value: "\(depth)", allowed: "0 … 1")
        }
        self.source = source
        let golden = (1 + 5.0.squareRoot()) / 2
        self.periodsSeconds = periodsSeconds ?? [periodSeconds, periodSeconds * golden, periodSeconds * golden * golden]
        self.depth = depth
        var mixer = SplitMix64(seed: SeedStream.phase.key(seed: seed, channel: 0))
        phases = (0..<3).map { _ in Double(mixer.next() >> 11) / Double(1 << 53) * 2 * Double.pi }
        gains = .allocate(capacity: Self.segmentFrames)
        gains.initialize(repeating: 1, count: Self.segmentFrames)
    }

    deinit { gains.deallocate() }

    /// Periods near P, P·φ, P·φ² with a whole number of cycles (at least one) in a loop of `frameCount`.
    public static func loopPeriods(near periodSeconds: Double, frameCount: Int, sampleRate: Double) -> [Double] {
        let golden = (1 + 5.0.squareRoot()) / 2
        let length = Double(frameCount) / sampleRate
        return [periodSeconds, periodSeconds * golden, periodSeconds * golden * golden].map { p in
            length / max(1, (length / p).rounded())
        }
    }

    /// The gain at absolute frame `frame`.
    public func gain(atFrame frame: Int) -> Double {
        let t = Double(frame) / sampleRate
        var s = 0.0
        for (period, phase) in zip(periodsSeconds, phases) { s += sin(2 * Double.pi * t / period + phase) }
        return 1 + depth * s / 3
    }

    public func render(into block: AudioBlock) {
        source.render(into: block)
        var done = 0
        while done < block.frameCount {
            let count = min(Self.segmentFrames, block.frameCount - done)
            for i in 0..<count { gains[i] = Float(gain(atFrame: position + done + i)) }
            for c in 0..<block.channelCount {
                let samples = block.channel(c)
                for i in 0..<count { samples[done + i] *= gains[i] }
            }
            done += count
        }
        position += block.frameCount
    }
}
