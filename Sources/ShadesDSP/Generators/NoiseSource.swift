/// Endless coloured noise for a player: PSD ∝ f^−β, unit-variance white noise through the
/// ``NoiseShapingDesign`` filter, scaled so the RMS level is `levelDBFS` in expectation.
///
/// Each independent signal (ear) draws from its own random stream keyed by the seed and the channel.
/// The filters start in steady state (one second of warm-up is rendered and dropped), so the first
/// sample already has the full spectrum and level.
package final class NoiseSource: AudioSource {
    package let sampleRate: Double
    package let colour: NoiseColour
    package let layout: ChannelLayout
    /// RMS level in dBFS (in expectation).
    package let levelDBFS: Double
    package var channelCount: Int { layout.outputChannelCount }
    private var renderer: ChunkedRenderer<ColouredNoiseKernel>

    /// Frames per internal chunk.
    static let chunkFrames = 4096

    /// White-noise samples each signal draws before its first frame: one second of warm-up, rendered in
    /// whole chunks and dropped.
    static func warmUpSamples(sampleRate: Double) -> Int {
        (Int(sampleRate) + chunkFrames - 1) / chunkFrames * chunkFrames
    }

    /// - Parameters:
    ///   - colour: spectral exponent β in [−2, 2].
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - layout: channel layout (stereo: independent noise per ear).
    ///   - levelDBFS: RMS level in dBFS.
    ///   - seed: makes the output reproducible.
    ///   - distribution: sample distribution of white noise (β = 0 only; coloured noise is Gaussian).
    ///   - firstSignal: index of the first independent signal's random stream. A stereo source's right
    ///     ear equals a mono source with `firstSignal: 1`, so ears can be rendered on separate threads.
    ///   - periodFrames: makes the noise periodic (a seamless loop of any length, streamed): the white
    ///     noise repeats every `periodFrames` frames (``PeriodicWhiteNoise``), and the filters start in
    ///     their periodic state, reached by running them over the end of the period first
    ///     (``periodicWarmUpSeconds``), so frame `periodFrames` follows the last like any other frame.
    package init(colour: NoiseColour, sampleRate: Double, layout: ChannelLayout = .stereo,
                levelDBFS: Double = -20, seed: UInt64 = 1, distribution: WhiteDistribution = .gaussian,
                firstSignal: Int = 0, periodFrames: Int? = nil) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        try Parameter.level.check(levelDBFS)
        guard distribution == .gaussian || colour.beta == 0 else {
            throw Parameter.distribution.error(.conflicts(with: .beta), value: .text(distribution.rawValue))
        }
        self.sampleRate = sampleRate
        self.colour = colour
        self.layout = layout
        self.levelDBFS = levelDBFS
        let design = NoiseShapingDesign.shared(colour: colour, sampleRate: sampleRate)
        let gain = Float(Decibels.amplitude(levelDBFS) * design.normalisingGain)
        // Periodic: the warm-up is whole chunks ending where the period starts again.
        let warmUpFrames = periodFrames == nil ? Self.warmUpSamples(sampleRate: sampleRate)
            : (Int(Self.periodicWarmUpSeconds * sampleRate) + Self.chunkFrames - 1) / Self.chunkFrames * Self.chunkFrames
        let kernels = (0..<layout.signalCount).map { signal in
            let key = SeedStream.noise.key(seed: seed, channel: firstSignal + signal)
            let periodic = periodFrames.map { period in
                PeriodicWhiteNoise(key: key, distribution: distribution, periodFrames: period,
                                   startFrame: (period - warmUpFrames % period) % period)
            }
            return ColouredNoiseKernel(design: design, distribution: distribution, gain: gain, key: key,
                                       chunkFrames: Self.chunkFrames, periodic: periodic)
        }
        renderer = ChunkedRenderer(kernels: kernels, layout: layout, chunkFrames: Self.chunkFrames)
        if colour.beta != 0 || periodFrames != nil { warmUp(frames: warmUpFrames) }
    }

    /// The filters of periodic noise run this long over the end of the period before its first frame.
    /// Their slowest pole (the 1 Hz corner of the ladder) decays by e^(−2π·1 Hz·10 s) ≈ 5e-28 in that
    /// time: the periodic state to far below Float precision.
    package static let periodicWarmUpSeconds = 10.0

    deinit { renderer.deallocate() }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) { renderer.render(into: block) }

    /// Every state of the shaping filters (each signal's IIR states, then its FIR history), for tests of
    /// long streams (no denormal or non-finite state). Empty for white noise. Allocates.
    package var filterStates: [Float] { renderer.kernels.flatMap(\.filterStates) }

    private func warmUp(frames: Int) {
        let chunks = (frames + Self.chunkFrames - 1) / Self.chunkFrames
        let scratch = AudioBuffer(channelCount: channelCount, frameCapacity: Self.chunkFrames)
        for _ in 0..<chunks { scratch.withBlock { render(into: $0) } }
    }
}

/// One ear's noise: white noise, then the shaping filter, then the gain.
struct ColouredNoiseKernel: ChunkKernel {
    /// White noise (β = 0): drawn from `random`.
    private var random: LaneRandom
    private let distribution: WhiteDistribution
    /// Coloured noise that does not repeat: white noise whose block sums a forecast can read.
    private var blockSummed: BlockSummedWhiteNoise?
    /// The white noise when it repeats (periodic noise), else nil.
    private let periodic: PeriodicWhiteNoise?
    private let iir: BlockIIRFilter?
    private let fir: FIRFilter?
    private let gain: Float

    init(design: NoiseShapingDesign, distribution: WhiteDistribution, gain: Float, key: UInt64, chunkFrames: Int,
         periodic: PeriodicWhiteNoise? = nil) {
        random = LaneRandom(key: key)
        self.periodic = periodic
        self.distribution = distribution
        self.gain = gain
        blockSummed = design.sections.isEmpty || periodic != nil ? nil
            : BlockSummedWhiteNoise(key: key, sampleRate: design.sampleRate, maximumFrames: chunkFrames)
        if design.sections.isEmpty {
            iir = nil
            fir = nil
        } else {
            iir = BlockIIRFilter(cascade: IIRCascade(sections: design.sections))
            // The gain rides on the FIR taps: no separate pass.
            fir = FIRFilter(taps: design.firTaps.map { Float($0) * gain }, maximumFrames: chunkFrames)
        }
    }

    /// The IIR states, then the FIR history (empty for white noise).
    var filterStates: [Float] { (iir?.stateValues ?? []) + (fir?.historyValues ?? []) }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        guard let iir, let fir else {
            fillWhite(chunk)
            Kernels.scale(chunk, by: gain)
            return
        }
        // White noise and the IIR in the FIR's own buffer, the FIR from there into the chunk.
        fir.process(into: chunk) { input in
            fillWhite(input)
            iir.process(input)
        }
    }

    private mutating func fillWhite(_ output: UnsafeMutableBufferPointer<Float>) {
        if let periodic {
            periodic.fill(output)
        } else if blockSummed != nil {
            blockSummed!.fill(output)
        } else {
            WhiteNoise.fill(output, distribution: distribution, random: &random)
        }
    }
}

/// Throws unless `sampleRate` is in ``supportedSampleRates``.
package func validateSampleRate(_ sampleRate: Double) throws(ShadesError) {
    try Parameter.rate.check(sampleRate)
}
