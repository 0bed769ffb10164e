import Dispatch
import ShadesDSP
import ShadesPlatform

/// One request's independent signals: how to make each as a mono source starting at frame 0, and how
/// they map to output channels. Every pass starts from fresh sources, so all passes see exactly the
/// same samples.
///
/// Chain per signal: source (noise, tone, narrow-band noise; loops pre-rendered by FFT synthesis)
/// → amplitude modulation → pulses → fades. The level is measured on the *sustained* sound (after the
/// modulation, before pulses and fades), so a pulsed tone has the asked level while it sounds.
struct SignalPlan: Sendable {
    /// Layout of the output (a stereo tone is diotic: one signal in both ears).
    let layout: ChannelLayout
    let frames: Int
    let sampleRate: Double
    /// A fresh mono source of signal `s` as written (with pulses and fades).
    let makeSource: @Sendable (_ signal: Int) -> any AudioSource
    /// A fresh mono source of signal `s`'s sustained sound: what the level refers to.
    let makeSustainedSource: @Sendable (_ signal: Int) -> any AudioSource
    /// Σx² and peak of each sustained signal when known without rendering (plain tones, loops), else nil.
    let knownMeasurements: [SignalMeasurement]?
    /// For signals written as streams at the asked level in expectation (noise and narrow-band noise
    /// streams, modulated or not; no notch, pulses or fades): the predicted standard deviation of a
    /// render's measured level around it, in dB. nil for everything else. A file whose scatter is small
    /// is written in one pass at the expected level and checked (``Renderer/renderFile(_:to:sampleFormat:)``).
    let levelScatterDB: Double?
    /// RMS of the written sound relative to the asked level's (below 1 when modulation keeps the peak).
    let levelRatio: Double
    /// The tone frequency actually rendered (a loop adjusts it), in Hz.
    let renderedFrequencyHz: Double?
    /// The modulation rate actually applied (a loop adjusts it), in Hz.
    let renderedModulationHz: Double?
    let notes: [String]

    var signalCount: Int { layout.signalCount }

    init(request: RenderRequest) throws(ParameterError) {
        try request.validate()
        let (rate, level, seed, frames) = (request.sampleRate, request.levelDBFS, request.seed, request.frameCount)
        self.frames = frames
        sampleRate = rate
        var notes: [String] = []
        let base: @Sendable (Int) -> any AudioSource
        var measured: [SignalMeasurement]?
        var toneFrequency: Double?
        // Relative standard deviation of a stream's measured power over the file (nil: not a stream at level).
        var powerScatter: Double?
        let seconds = Double(frames) / rate
        // Validated above.
        var notch = request.notches.flatMap { $0.isEmpty ? nil : try! NotchDesign(notches: $0, sampleRate: rate) }

        switch request.sound {
        case .noise(let colour, let distribution):
            layout = request.layout
            if request.loop && (colour.beta != 0 || notch != nil) {
                // The notch, if any, is applied to the loop's own spectrum (its ideal gain: the band removed
                // exactly, the rest untouched), so the loop stays periodic.
                let loopNotch = notch
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        LoopNoise.render(colour: colour, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                         shaping: loopNotch.map { design in { design.idealGain(atFrequency: $0) } }, into: $0)
                    }
                    return buffer
                }
                (base, measured) = Self.playBack(loops, sampleRate: rate)
                notch = nil
            } else {
                // Validated above: the source cannot throw.
                powerScatter = NoiseShapingDesign.shared(colour: colour, sampleRate: rate).powerScatter(durationSeconds: seconds)
                base = { s in
                    try! NoiseSource(colour: colour, sampleRate: rate, layout: .mono, levelDBFS: level, seed: seed,
                                     distribution: distribution, firstSignal: s)
                }
            }
        case .grey:
            // FFT synthesis over the whole file (a loop whether asked or not), notches included exactly.
            layout = request.layout
            let loopNotch = notch
            let greys = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                buffer.withChannel(0) {
                    LoopNoise.render(colour: .white, sampleRate: rate, key: SeedStream.noise.key(seed: seed, channel: s),
                                     shaping: { f in GreyNoise.magnitude(atFrequency: f) * (loopNotch?.idealGain(atFrequency: f) ?? 1) },
                                     into: $0)
                }
                return buffer
            }
            (base, measured) = Self.playBack(greys, sampleRate: rate)
            notch = nil
        case .narrowBandNoise(let centreHz, let widthOctaves):
            layout = request.layout
            if request.loop {
                let loops = Self.inParallel(layout.signalCount) { s -> AudioBuffer in
                    let buffer = AudioBuffer(channelCount: 1, frameCapacity: frames, zeroed: false)
                    buffer.withChannel(0) {
                        try! LoopNarrowBandNoise.render(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                                   key: SeedStream.noise.key(seed: seed, channel: s), into: $0)
                    }
                    return buffer
                }
                (base, measured) = Self.playBack(loops, sampleRate: rate)
            } else {
                // A flat band B wide: √(1 / (T·B)).
                let bandHz = centreHz * (pow(2, widthOctaves / 2) - pow(2, -widthOctaves / 2))
                powerScatter = (1 / (seconds * bandHz)).squareRoot()
                base = { s in
                    try! NarrowBandNoiseSource(centreHz: centreHz, widthOctaves: widthOctaves, sampleRate: rate,
                                               layout: .mono, levelDBFS: level, seed: seed, firstSignal: s)
                }
            }
        case .tone(let askedHz):
            layout = request.layout == .stereo ? .diotic : request.layout
            var frequency = askedHz
            if request.loop {
                frequency = ToneSource.loopFrequency(near: askedHz, frameCount: frames, sampleRate: rate)
                if frequency != askedHz {
                    notes.append("loop: tone frequency adjusted from \(formatNumber(askedHz)) Hz to \(frequency) Hz (\(formatSigned(frequency - askedHz)) Hz) for a whole number of cycles")
                }
                guard frequency < rate / 2 else {
                    throw ParameterError(parameter: "frequency", value: "\(askedHz) Hz",
                                         allowed: "below Nyquist (\(rate / 2) Hz) after the whole-cycle loop adjustment")
                }
            }
            toneFrequency = frequency
            let rendered = frequency
            // Unit peak; the gain sets the level.
            base = { _ in try! ToneSource(frequencyHz: rendered, sampleRate: rate, layout: .mono, levelDBFS: -3.010_299_956_639_812) }
            measured = [SignalMeasurement(sumOfSquares: Self.sineEnergy(cyclesPerSample: frequency / rate, frames: frames), peak: 1)]
        }

        // A notch (streams): part of the sound. The filter is primed by the source, so the band is gone from
        // frame 0; the level is measured after it.
        let notched: @Sendable (Int) -> any AudioSource
        if let notch {
            notched = { s in try! NotchedSource(source: base(s), design: notch, primedBySource: true) }
            measured = nil
            powerScatter = nil  // the band's power is gone: not at the asked level
        } else {
            notched = base
        }

        // Amplitude modulation: part of the sustained sound.
        var sustained = notched
        var modulationRate: Double?
        if let modulation = request.modulation {
            var rateHz = modulation.rateHz
            if request.loop {
                rateHz = AmplitudeModulatedSource.loopRate(near: modulation.rateHz, frameCount: frames, sampleRate: rate)
                if rateHz != modulation.rateHz {
                    notes.append("loop: modulation rate adjusted from \(formatNumber(modulation.rateHz)) Hz to \(rateHz) Hz (\(formatSigned(rateHz - modulation.rateHz)) Hz) for a whole number of cycles")
                }
            }
            guard AmplitudeModulatedSource.allowedRateHz.contains(rateHz) else {
                throw ParameterError(parameter: "am", value: "\(formatNumber(modulation.rateHz)) Hz",
                                     problem: "becomes \(rateHz) Hz with whole cycles in this loop",
                                     allowed: "a loop long enough to hold whole cycles of 0.5 … 100 Hz")
            }
            modulationRate = rateHz
            let m = Modulation(rateHz: rateHz, depth: modulation.depth, startPhase: modulation.startPhase, keep: .rms)
            sustained = { s in
                try! AmplitudeModulatedSource(carrier: notched(s), rateHz: m.rateHz, depth: m.depth, startPhase: m.startPhase, keep: m.keep)
            }
            measured = nil  // the modulated sound is measured
        }
        levelRatio = request.modulation?.levelRatio ?? 1

        // Envelopes: pulses, then fades.
        var final = sustained
        if let pulses = request.pulses {
            let inner = final
            final = { s in
                try! PulsedSource(source: inner(s), onSeconds: pulses.onSeconds, offSeconds: pulses.offSeconds,
                                  rampSeconds: pulses.rampSeconds, pulseCount: pulses.count)
            }
        }
        if let fades = request.fades {
            let inner = final
            final = { s in
                try! FadedSource(source: inner(s), fadeInSeconds: fades.inSeconds, fadeOutSeconds: fades.outSeconds, totalFrames: frames)
            }
        }
        makeSource = final
        makeSustainedSource = sustained
        knownMeasurements = measured
        // Modulation keeps the RMS in expectation (keep: .rms above); its gain curve can double the variance.
        if request.modulation != nil { powerScatter = powerScatter.map { $0 * 2.0.squareRoot() } }
        levelScatterDB = request.pulses == nil && request.fades == nil ? powerScatter.map { Decibels.fromPower(1 + $0) } : nil
        renderedFrequencyHz = toneFrequency
        renderedModulationHz = modulationRate
        self.notes = notes
    }

    /// Runs `body` for 0..<count on parallel threads and collects the results in order.
    static func inParallel<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = ResultSlots<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { results[$0] = body($0) }
        return results.values
    }

    /// Sources playing rendered signals back, and their measurements (chunked, as pass 1 measures).
    /// (Keeping a long shaped-noise stream in memory instead of rendering it twice was measured: no
    /// faster on 2 cores, because fresh memory costs the kernel about as much as the second render.)
    static func playBack(_ buffers: [AudioBuffer], sampleRate: Double)
        -> (@Sendable (Int) -> any AudioSource, [SignalMeasurement]) {
        let measurements = inParallel(buffers.count) { s in
            buffers[s].withChannel(0) { Renderer.measureChunked(UnsafeBufferPointer($0)) }
        }
        let shared = SharedBuffers(buffers: buffers)
        return ({ s in BufferSource(buffer: shared.buffers[s], sampleRate: sampleRate) }, measurements)
    }

    /// Σ sin²(2π·c·n) for n in 0..<N, exactly: N/2 − ½·Σ cos(4π·c·n).
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
package struct SignalMeasurement: Sendable, Equatable {
    package var sumOfSquares: Double
    package var peak: Float

    /// Adds one chunk's measurement (every pass sums chunks in the same order, so the sums agree to the bit).
    mutating func add(chunk samples: UnsafeBufferPointer<Float>) {
        let m = SignalLevel.measure(samples)
        sumOfSquares += m.sumOfSquares
        peak = max(peak, m.peak)
    }
}

/// Rendered signals shared read-only by the passes.
final class SharedBuffers: @unchecked Sendable {
    let buffers: [AudioBuffer]
    init(buffers: [AudioBuffer]) { self.buffers = buffers }
}
