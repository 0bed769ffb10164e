#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import ShadesDSP

/// One request's independent signals: how to make each as a mono source starting at frame 0, and how
/// they map to output channels. Measuring and writing both start from fresh sources, so both passes see
/// exactly the same samples.
struct SignalPlan: Sendable {
    /// Layout of the output (a stereo tone is diotic: one signal in both ears).
    let layout: ChannelLayout
    let frames: Int
    let sampleRate: Double
    /// A fresh mono source of signal `s`.
    let makeSource: @Sendable (_ signal: Int) -> any AudioSource
    /// Σx² and peak per signal when known in closed form (tones), else nil: measure by rendering.
    let knownMeasurements: [SignalMeasurement]?
    /// The tone frequency actually rendered (a loop adjusts it), in Hz.
    let renderedFrequencyHz: Double?
    let notes: [String]

    var signalCount: Int { layout.signalCount }

    init(request: RenderRequest) throws(ParameterError) {
        try request.validate()
        frames = request.frameCount
        sampleRate = request.sampleRate
        var notes: [String] = []
        switch request.sound {
        case .noise(let colour, let distribution):
            layout = request.layout
            renderedFrequencyHz = nil
            let (rate, level, seed, frames) = (request.sampleRate, request.levelDBFS, request.seed, request.frameCount)
            if request.loop && colour.beta != 0 {
                // FFT synthesis over the whole loop: render each signal once, then play it back.
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        LoopNoise.render(colour: colour, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s), into: $0)
                    }
                    return buffer
                }
                (makeSource, knownMeasurements) = Self.playBack(loops, sampleRate: rate)
            } else {
                // Validated above: the source cannot throw.
                makeSource = { s in
                    try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                                     distribution: distribution, firstSignal: s)
                }
                knownMeasurements = nil
            }
        case .tone(let askedHz):
            layout = request.layout == .stereo ? .diotic : request.layout
            var frequency = askedHz
            if request.loop {
                frequency = ToneSource.loopFrequency(near: askedHz, frameCount: frames, sampleRate: request.sampleRate)
                if frequency != askedHz {
                    notes.append("loop: tone frequency adjusted from \(formatNumber(askedHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - askedHz)) Hz) for a whole number of cycles")
                }
                guard frequency < request.sampleRate / 2 else {
                    throw ParameterError(parameter: "frequency", value: "\(askedHz) Hz",
                                         allowed: "below Nyquist (\(request.sampleRate / 2) Hz) after the whole-cycle loop adjustment")
                }
            }
            renderedFrequencyHz = frequency
            let rate = request.sampleRate
            let rendered = frequency
            // Unit peak; the gain sets the level.
            makeSource = { _ in try! ToneSource(frequencyHz: rendered, sampleRate: rate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
            knownMeasurements = [SignalMeasurement(sumOfSquares: Self.sineEnergy(cyclesPerSample: frequency / rate, frames: frames), peak: 1)]
        }
        self.notes = notes
    }

    /// Runs `body` for 0..<count on parallel threads and collects the results in order.
    static func inParallel<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = ResultSlots<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { results[$0] = body($0) }
        return results.values
    }

    /// Sources playing rendered signals back, and their measurements (chunked, as pass 1 measures).
    /// (Keeping a long shaped-noise render in memory instead of rendering it twice was measured: no
    /// faster on 2 cores, because fresh memory costs the kernel about as much as the second render.)
    static func playBack(_ buffers: [AudioBuffer], sampleRate: Double)
        -> (@Sendable (Int) -> any AudioSource, [SignalMeasurement]) {
        let measurements = inParallel(buffers.count) { s in
            buffers[s].withChannel(0) { Renderer.measureChunked(UnsafeBufferPointer($0)) }
        }
        let shared = LoopBuffers(buffers: buffers)
        return ({ s in BufferSource(buffer: shared.buffers[s], sampleRate: sampleRate) }, measurements)
    }

    /// Σ sin²(2π·c·n) for n in 0..<N, exactly: N/2 − ½·Re Σ e^{i4πcn}.
    static func sineEnergy(cyclesPerSample c: Double, frames n: Int) -> Double {
        let theta = 4 * Double.pi * c
        let denominator = sin(theta / 2)
        // Σ cos(θn) = sin(Nθ/2)·cos((N−1)θ/2) / sin(θ/2)
        let cosineSum = abs(denominator) < 1e-300 ? Double(n)
            : sin(Double(n) * theta / 2) * cos(Double(n - 1) * theta / 2) / denominator
        return Double(n) / 2 - cosineSum / 2
    }

    /// Output channel that carries each signal first; other channels copy it or are silent.
    var firstChannel: [Int] {
        (0..<layout.signalCount).map { s in
            (0..<layout.outputChannelCount).first { layout.signal(forOutputChannel: $0) == s }!
        }
    }
}

/// Σx² and the peak |x| of one signal before its gain.
public struct SignalMeasurement: Sendable, Equatable {
    public var sumOfSquares: Double
    public var peak: Float
}

/// Rendered signals shared read-only by the passes.
final class LoopBuffers: @unchecked Sendable {
    let buffers: [AudioBuffer]
    init(buffers: [AudioBuffer]) { self.buffers = buffers }
}
