import ShadesPlatform

/// A pure tone: sin(2π·f·t + φ) at RMS level `levelDBFS`.
///
/// Phase is kept in Double cycles and re-anchored every chunk; inside a chunk eight lanes rotate a
/// Double phasor, so a one-hour tone keeps its frequency to far better than 0.001 Hz and the Float output
/// has THD+N near the Float32 floor (about −150 dB).
package final class ToneSource: AudioSource {
    package let sampleRate: Double
    /// Frequency in Hz, in (0, Nyquist).
    package let frequencyHz: Double
    package let layout: ChannelLayout
    /// RMS level in dBFS (peak is 3.01 dB higher).
    package let levelDBFS: Double
    package var channelCount: Int { layout.outputChannelCount }
    private var renderer: ChunkedRenderer<ToneKernel>

    static let chunkFrames = 1024

    /// Highest RMS level, dBFS: a sine whose peak is full scale, −10·log10(2) ≈ −3.0103 dBFS.
    package static let highestLevelDBFS = Decibels.fromAmplitude(1 / 2.0.squareRoot())

    /// - Parameters:
    ///   - frequencyHz: Hz, above 0 and below Nyquist.
    ///   - levelDBFS: RMS level in dBFS, at most −3.01 dBFS (a full-scale sine).
    ///   - startPhase: radians.
    package init(frequencyHz: Double, sampleRate: Double, layout: ChannelLayout = .stereo,
                levelDBFS: Double = -20, startPhase: Double = 0) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        try validateFrequency(frequencyHz, sampleRate: sampleRate)
        // Full scale allowed to rounding: −3.0103 dBFS is a unit-peak sine.
        let peak = min(1, Decibels.amplitude(levelDBFS) * 2.0.squareRoot())
        guard levelDBFS.isFinite, Decibels.amplitude(levelDBFS) * 2.0.squareRoot() <= 1 + 1e-9 else {
            throw Parameter.level.outOfRange(levelDBFS, range: .atMost(Self.highestLevelDBFS, unit: .dBFS),
                                             note: "for a tone (its peak is 3.01 dB above its RMS)")
        }
        self.sampleRate = sampleRate
        self.frequencyHz = frequencyHz
        self.layout = layout
        self.levelDBFS = levelDBFS
        let kernel = ToneKernel(cyclesPerSample: frequencyHz / sampleRate, amplitude: peak,
                                startCycles: startPhase / (2 * Double.pi), chunkFrames: Self.chunkFrames)
        // Every layout carries one tone signal; stereo is the same tone in both ears.
        let toneLayout: ChannelLayout = layout == .stereo ? .diotic : layout
        renderer = ChunkedRenderer(kernels: [kernel], layout: toneLayout, chunkFrames: Self.chunkFrames)
    }

    deinit { renderer.deallocate() }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) { renderer.render(into: block) }

    /// The frequency nearest `frequencyHz` with a whole number of cycles (at least one) in `frameCount`
    /// frames, so a loop of that length is seamless.
    package static func loopFrequency(near frequencyHz: Double, frameCount: Int, sampleRate: Double) -> Double {
        let cycles = max(1, (frequencyHz * Double(frameCount) / sampleRate).rounded())
        return cycles * sampleRate / Double(frameCount)
    }
}

/// Throws unless 0 < `frequencyHz` < Nyquist.
package func validateFrequency(_ frequencyHz: Double, sampleRate: Double) throws(ShadesError) {
    try Parameter.frequency.check(frequencyHz, within: .above(0, below: sampleRate / 2, unit: .hertz), note: "(Nyquist)")
}

struct ToneKernel: ChunkKernel {
    private let cyclesPerSample: Double
    private let amplitude: Double
    private let chunkFrames: Int
    private var phaseCycles: Double  // phase at the start of the next chunk, in [0, 1)

    init(cyclesPerSample: Double, amplitude: Double, startCycles: Double, chunkFrames: Int) {
        precondition(chunkFrames % 8 == 0)
        self.cyclesPerSample = cyclesPerSample
        self.amplitude = amplitude
        self.chunkFrames = chunkFrames
        phaseCycles = startCycles - startCycles.rounded(.down)
    }

    mutating func renderChunk(into chunk: UnsafeMutableBufferPointer<Float>) {
        let twoPi = 2 * Double.pi
        var re = SIMD8<Double>(), im = SIMD8<Double>()
        for lane in 0..<8 {
            let angle = twoPi * (phaseCycles + Double(lane) * cyclesPerSample)
            re[lane] = cos(angle) * amplitude
            im[lane] = sin(angle) * amplitude
        }
        let step = twoPi * 8 * cyclesPerSample
        let c = SIMD8<Double>(repeating: cos(step)), s = SIMD8<Double>(repeating: sin(step))
        let out = UnsafeMutableRawPointer(chunk.baseAddress!)
        var i = 0
        while i < chunkFrames {
            out.storeBytes(of: SIMD8<Float>(im), toByteOffset: i * 4, as: SIMD8<Float>.self)
            (re, im) = (re * c - im * s, re * s + im * c)
            i += 8
        }
        phaseCycles += Double(chunkFrames) * cyclesPerSample
        phaseCycles -= phaseCycles.rounded(.down)
    }
}

/// Checks a therapy pattern's level (finite dBFS) and the absolute frame a stream starts at (≥ 0).
package func validateStreamStart(levelDBFS: Double, startFrame: Int) throws(ShadesError) {
    try Parameter.level.check(levelDBFS, within: .finite(unit: .dBFS))
    try Parameter.startFrame.check(Double(startFrame))
}
