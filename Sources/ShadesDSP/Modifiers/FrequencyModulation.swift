import ShadesPlatform

/// How the frequency moves: a sine at the rate, or a band-limited random curve up to it (``RandomCurve``).
package enum FrequencyModulationShape: String, Sendable, CaseIterable, Codable { case sine, random }

/// The curve of a frequency modulation (Neff 2017 compared 10 Hz AM with FM tones and noise): the
/// frequency at frame n is f·2^(depth·m(n)/1200), depth in cents, m(n) in [−1, 1] either sin(2π·rate·n/fs)
/// or a ``RandomCurve`` of bandwidth `rate` (seeded, never repeating). A pure function of the absolute
/// frame, so every block size, every pass and a loop's seam see the same curve; in a loop it repeats with
/// the loop (a sine's rate is then whole cycles per loop: the caller adjusts it).
package struct FrequencyModulationCurve: Sendable, Equatable {
    package let shape: FrequencyModulationShape
    /// Rate of a sine, or bandwidth of a random curve, Hz.
    package let rateHz: Double
    /// Peak deviation, cents (1200 to the octave).
    package let depthCents: Double
    private let cyclesPerFrame: Double
    private let random: RandomCurve?
    private let loopFrames: Int?

    /// Allowed rate, Hz: a slow drift (0.01 Hz) to a fast trill (100 Hz; 10 Hz in Neff 2017).
    package static let allowedRateHz: ClosedRange<Double> = 0.01...100
    /// Allowed depth, cents: up to two octaves either way.
    package static let allowedDepthCents: ClosedRange<Double> = 0...2400

    /// - Parameters:
    ///   - key: the random curve's stream (``SeedStream/envelope``, channel 2, under the sound's seed).
    ///   - loopFrames: a loop's length: the curve repeats with it; nil for an endless stream.
    package init(shape: FrequencyModulationShape, rateHz: Double, depthCents: Double, sampleRate: Double, key: UInt64,
                 loopFrames: Int? = nil) throws(ShadesError) {
        try Self.validate(rateHz: rateHz, depthCents: depthCents)
        (self.shape, self.rateHz, self.depthCents, self.loopFrames) = (shape, rateHz, depthCents, loopFrames)
        cyclesPerFrame = rateHz / sampleRate
        random = shape == .random ? RandomCurve(bandwidthHz: rateHz, sampleRate: sampleRate, key: key, loopFrames: loopFrames) : nil
    }

    package static func validate(rateHz: Double, depthCents: Double) throws(ShadesError) {
        try Parameter.fmRate.check(rateHz)
        try Parameter.fmDepth.check(depthCents)
    }

    /// m(n), in [−1, 1], at absolute frame `frame` (≥ 0).
    package func deviation(atFrame frame: Int) -> Double {
        let n = loopFrames.map { frame % $0 } ?? frame
        if let random { return random.value(atFrame: n) }
        let cycles = Double(n) * cyclesPerFrame
        return sin(2 * Double.pi * (cycles - cycles.rounded(.down)))
    }

    /// The frequency at `frame` over the centre frequency: 2^(depth·m/1200).
    @inline(__always) package func ratio(atFrame frame: Int) -> Double {
        exp2(depthCents / 1200 * deviation(atFrame: frame))
    }

    /// Σ ``ratio(atFrame:)`` over frames 0 ..< `frames`, in Double: the cycles a centre of 1 cycle per frame
    /// goes through, to close a loop's phase.
    package func sumOfRatios(frames: Int) -> Double {
        var sum = 0.0
        for n in 0..<frames { sum += ratio(atFrame: n) }
        return sum
    }

    /// The extremes of the ratio, 2^(∓depth/1200).
    package var ratioRange: (lowest: Double, highest: Double) { (exp2(-depthCents / 1200), exp2(depthCents / 1200)) }
}

/// A frequency-modulated tone, mono: sin(2π·φ(n)) at peak `amplitude`, its phase φ (Double cycles) advanced
/// each frame by the instantaneous frequency f·``FrequencyModulationCurve/ratio(atFrame:)``/fs, so the
/// frequency between frames n and n + 1 is exactly the curve's at n. Sample by sample from frame 0, so the
/// samples do not depend on the block size; allocates nothing while rendering.
package final class FrequencyModulatedToneSource: AudioSource {
    package let sampleRate: Double
    /// Centre frequency, Hz.
    package let frequencyHz: Double
    package let curve: FrequencyModulationCurve
    package var channelCount: Int { 1 }
    private let amplitude: Double
    private let cyclesPerFrame: Double
    private var phaseCycles: Double
    private var position = 0

    /// - Parameters:
    ///   - frequencyHz: the centre, Hz; its extremes under `curve` must lie in (0, Nyquist).
    ///   - amplitude: peak, linear (1: full scale).
    ///   - startPhase: radians.
    package init(frequencyHz: Double, curve: FrequencyModulationCurve, sampleRate: Double, amplitude: Double = 1,
                 startPhase: Double = 0) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        try validateFrequency(frequencyHz, sampleRate: sampleRate)
        try Self.validateDepth(curve.depthCents, frequencyHz: frequencyHz, sampleRate: sampleRate)
        (self.sampleRate, self.frequencyHz, self.curve, self.amplitude) = (sampleRate, frequencyHz, curve, amplitude)
        cyclesPerFrame = frequencyHz / sampleRate
        let cycles = startPhase / (2 * Double.pi)
        phaseCycles = cycles - cycles.rounded(.down)
    }

    /// The deepest modulation that keeps a tone at `frequencyHz` below Nyquist: 1200·log2(Nyquist/f) cents.
    package static func maximumDepthCents(frequencyHz: Double, sampleRate: Double) -> Double {
        1200 * log2(sampleRate / 2 / frequencyHz)
    }

    /// Throws unless the tone stays below Nyquist at the curve's peak.
    package static func validateDepth(_ depthCents: Double, frequencyHz: Double, sampleRate: Double) throws(ShadesError) {
        let deepest = maximumDepthCents(frequencyHz: frequencyHz, sampleRate: sampleRate)
        guard depthCents < deepest || depthCents == 0 else {
            throw Parameter.fmDepth.outOfRange(depthCents, range: .from(0, below: deepest, unit: .cents),
                                               note: "for a tone at \(formatLimit(frequencyHz)) Hz: its peak must stay below Nyquist (\(formatLimit(sampleRate / 2)) Hz)")
        }
    }

    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        let out = block.channel(0)
        var phase = phaseCycles
        for i in 0..<block.frameCount {
            out[i] = Float(amplitude * sin(2 * Double.pi * phase))
            phase += cyclesPerFrame * curve.ratio(atFrame: position + i)
            phase -= phase.rounded(.down)
        }
        for c in 1..<max(1, block.channelCount) { _ = block.channel(c).update(from: UnsafeBufferPointer(out)) }
        phaseCycles = phase
        position += block.frameCount
    }

    /// The centre nearest `frequencyHz` whose phase goes through a whole number of cycles (at least one) over
    /// `frames` frames under `curve` (whose own period the loop holds), so a loop of that length is seamless.
    package static func loopFrequency(near frequencyHz: Double, curve: FrequencyModulationCurve, frames: Int, sampleRate: Double) -> Double {
        let sum = curve.sumOfRatios(frames: frames)
        let cycles = max(1, (frequencyHz / sampleRate * sum).rounded())
        return cycles * sampleRate / sum
    }
}

/// Frequency-modulated narrow-band noise, mono: the band of ``NarrowBandNoiseSource`` moved as a whole so its
/// centre follows the curve, f·2^(depth·m/1200), its width in Hz kept. Made by heterodyning (the analytic-signal
/// method of single-sideband modulation): two independent Gaussian noises I, Q through the low-pass half of the
/// band-pass (the same Kaiser design, so an unmodulated band has the same spectrum) form a complex base band
/// (B/2 either side of 0), and x = I·cos θ − Q·sin θ with θ advanced each frame by the band's middle plus the
/// curve's shift, f·(ratio − 1). x has unit variance at every θ, so the level is the band's in expectation.
package final class FrequencyModulatedNarrowBandNoiseSource: AudioSource {
    package let sampleRate: Double
    package var channelCount: Int { 1 }
    private var renderer: ChunkedRenderer<FrequencyModulatedBandKernel>

    /// - Parameters:
    ///   - centreHz, widthOctaves: the band, as ``NarrowBandNoiseSource``; its edges must stay in (0, Nyquist)
    ///     under `curve`.
    ///   - levelDBFS: RMS level, dBFS (in expectation).
    ///   - key: the signal's random stream (``SeedStream/noise`` under the seed, for the signal).
    package init(centreHz: Double, widthOctaves: Double, curve: FrequencyModulationCurve, sampleRate: Double,
                 levelDBFS: Double, key: UInt64) throws(ShadesError) {
        let design = try NarrowBandDesign(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        try Self.validateDepth(curve.depthCents, centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        try Parameter.level.check(levelDBFS)
        self.sampleRate = sampleRate
        let (halfTaps, middleHz) = design.baseband()
        let amplitude = Decibels.amplitude(levelDBFS)
        let inPhase = OverlapSaveFilter(halfTaps: halfTaps.map { $0 * amplitude },
                                        fftSize: OverlapSaveFilter.recommendedFFTSize(halfLength: halfTaps.count - 1))
        let kernel = FrequencyModulatedBandKernel(inPhase: inPhase, key: key, curve: curve,
                                                  middleCyclesPerFrame: middleHz / sampleRate, centreCyclesPerFrame: centreHz / sampleRate)
        renderer = ChunkedRenderer(kernels: [kernel], layout: .mono, chunkFrames: inPhase.blockFrames)
    }

    deinit { renderer.deallocate() }

    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) { renderer.render(into: block) }

    /// The deepest modulation that keeps the band's edges (centre·2^(∓width/2), moved by centre·(ratio − 1))
    /// above 0 and below Nyquist, cents.
    package static func maximumDepthCents(centreHz: Double, widthOctaves: Double, sampleRate: Double) -> Double {
        let band = OctaveBand(uncheckedCentreHz: centreHz, widthOctaves: widthOctaves)
        let down = 1 - band.lowerEdgeHz / centreHz  // the lowest ratio must stay above this
        let up = 1 + (sampleRate / 2 - band.upperEdgeHz) / centreHz  // the highest below this
        return min(-1200 * log2(down), 1200 * log2(up))
    }

    /// Throws unless the band's edges stay in (0, Nyquist) at the curve's extremes.
    package static func validateDepth(_ depthCents: Double, centreHz: Double, widthOctaves: Double, sampleRate: Double) throws(ShadesError) {
        let deepest = maximumDepthCents(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        guard depthCents < deepest || depthCents == 0 else {
            throw Parameter.fmDepth.outOfRange(depthCents, range: .from(0, below: deepest, unit: .cents),
                                               note: "for this band: its edges must stay above 0 Hz and below Nyquist (\(formatLimit(sampleRate / 2)) Hz)")
        }
    }

    /// A loop of `output.count` frames at unit RMS in expectation: I and Q synthesised whole by FFT (every bin
    /// from 1 to B/2 at unit magnitude and a random phase, so each is periodic), heterodyned by a phase that
    /// goes through whole cycles over the loop. The band's middle moves by at most rate/(2·frames) for that
    /// (returned, Hz). The curve must repeat with the loop.
    package static func renderLoop(centreHz: Double, widthOctaves: Double, curve: FrequencyModulationCurve, sampleRate: Double,
                                   key: UInt64, into output: UnsafeMutableBufferPointer<Float>) throws(ShadesError) -> Double {
        let design = try NarrowBandDesign(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        try validateDepth(curve.depthCents, centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: sampleRate)
        let n = output.count
        let halfWidthHz = (design.upperEdgeHz - design.lowerEdgeHz) / 2
        let lastBin = Int((halfWidthHz * Double(n) / sampleRate).rounded(.down))
        guard n >= 2, lastBin >= 1 else {
            throw Parameter.loopLength.outOfRange(Double(n), range: .atLeast((sampleRate / halfWidthHz).rounded(.up), unit: .frames),
                                                  note: "for this band (its bins are rate/length apart)")
        }
        let middle = (design.lowerEdgeHz + design.upperEdgeHz) / 2
        var inPhase = [Float](repeating: 0, count: n), quadrature = [Float](repeating: 0, count: n)
        inPhase.withUnsafeMutableBufferPointer { LoopNarrowBandNoise.render(bins: 1...lastBin, key: key, into: $0) }
        quadrature.withUnsafeMutableBufferPointer { LoopNarrowBandNoise.render(bins: 1...lastBin, key: quadratureKey(key), into: $0) }
        // Cycles over the loop: middle·n/fs + centre·(Σ ratio − n)/fs; the middle moves so they are whole.
        let sum = curve.sumOfRatios(frames: n)
        let cycles = (middle * Double(n) + centreHz * (sum - Double(n))) / sampleRate
        let shiftHz = (cycles.rounded() - cycles) * sampleRate / Double(n)
        let (middleStep, centreStep) = ((middle + shiftHz) / sampleRate, centreHz / sampleRate)
        var phase = 0.0
        for i in 0..<n {
            let angle = 2 * Double.pi * phase
            output[i] = Float(Double(inPhase[i]) * cos(angle) - Double(quadrature[i]) * sin(angle))
            phase += middleStep + centreStep * (curve.ratio(atFrame: i) - 1)
            phase -= phase.rounded(.down)
        }
        return shiftHz
    }

    /// The quadrature noise's stream, derived from the in-phase one's key.
    static func quadratureKey(_ key: UInt64) -> UInt64 {
        var mixer = SplitMix64(seed: key ^ 0x5851_F42D_4C95_7F2D)
        return mixer.next()
    }
}

/// One frequency-modulated band: I and Q noise low-passed by overlap-save, heterodyned frame by frame.
struct FrequencyModulatedBandKernel: ChunkKernel {
    private var inPhaseRandom: LaneRandom, quadratureRandom: LaneRandom
    private let inPhase: OverlapSaveFilter, quadrature: OverlapSaveFilter
    private let scratch: FloatScratch
    private let curve: FrequencyModulationCurve
    private let middleCyclesPerFrame: Double, centreCyclesPerFrame: Double
    private var phaseCycles = 0.0
    private var position = 0

    /// Fills both filters' history from their streams first: the output starts in steady state.
    init(inPhase: OverlapSaveFilter, key: UInt64, curve: FrequencyModulationCurve, middleCyclesPerFrame: Double,
         centreCyclesPerFrame: Double) {
        var (i, q) = (LaneRandom(key: key), LaneRandom(key: FrequencyModulatedNarrowBandNoiseSource.quadratureKey(key)))
        let quadrature = OverlapSaveFilter(sharingResponseOf: inPhase)
        inPhase.withHistory { WhiteNoise.fill($0, distribution: .gaussian, random: &i) }
        quadrature.withHistory { WhiteNoise.fill($0, distribution: .gaussian, random: &q) }
        (inPhaseRandom, quadratureRandom, self.inPhase, self.quadrature) = (i, q, inPhase, quadrature)
        scratch = FloatScratch(count: inPhase.blockFrames)
        (self.curve, self.middleCyclesPerFrame, self.centreCyclesPerFrame) = (curve, middleCyclesPerFrame, centreCyclesPerFrame)
    }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        var (i, q) = (inPhaseRandom, quadratureRandom)
        inPhase.process(into: chunk) { WhiteNoise.fill($0, distribution: .gaussian, random: &i) }
        let other = scratch.buffer
        quadrature.process(into: other) { WhiteNoise.fill($0, distribution: .gaussian, random: &q) }
        (inPhaseRandom, quadratureRandom) = (i, q)
        var phase = phaseCycles
        for k in 0..<chunk.count {
            let angle = 2 * Double.pi * phase
            chunk[k] = Float(Double(chunk[k]) * cos(angle) - Double(other[k]) * sin(angle))
            phase += middleCyclesPerFrame + centreCyclesPerFrame * (curve.ratio(atFrame: position + k) - 1)
            phase -= phase.rounded(.down)
        }
        phaseCycles = phase
        position += chunk.count
    }
}

/// A buffer of Floats made once and freed with its owner.
final class FloatScratch {
    let buffer: UnsafeMutableBufferPointer<Float>
    init(count: Int) { buffer = .allocate(capacity: count); buffer.initialize(repeating: 0) }
    deinit { buffer.deallocate() }
}

extension Parameter {
    /// Frequency modulation: a sine's rate or a random curve's bandwidth, Hz.
    package static let fmRate = Parameter(.fmRate, unit: .hertz, range: ParameterRange(FrequencyModulationCurve.allowedRateHz, unit: .hertz),
                                          default: 10)
    /// Frequency modulation: peak deviation, cents.
    package static let fmDepth = Parameter(.fmDepth, unit: .cents, range: ParameterRange(FrequencyModulationCurve.allowedDepthCents, unit: .cents),
                                           default: 100)
    /// Frequency modulation: sine or random.
    package static let fmShape = Parameter(.fmShape, note: "sine or random")
}

extension ParameterID {
    package static let fmRate = ParameterID("fmRate", name: "FM rate")
    package static let fmDepth = ParameterID("fmDepth", name: "FM depth")
    package static let fmShape = ParameterID("fmShape", name: "FM shape")
}
