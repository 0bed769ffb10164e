import ShadesPlatform

/// A spectral-ripple stimulus (``SpectralRipple``), one signal.
///
/// Each 4-s segment is synthesised into one of two buffers allocated at init and then played out; its
/// choices depend only on the seed and the segment index, so any block sizes give the same samples and a
/// stream may start at any frame. After synthesis the segment gets its 1-s raised-cosine ramps (gain 0 at
/// its first frame, reaching 0 again at the next segment's first frame) and is scaled to exactly
/// `levelDBFS` RMS over its 4 s.
///
/// Real time: while segment k plays, segment k + 1 is synthesised a slice per render call, in proportion
/// to the frames played (finished by 80 % of the segment), so each call does a small, even share of the
/// work; only the first segment of a stream (or after a jump) is made in one go, in the first render.
/// Allocation-free after init.
///
/// Synthesis is direct, four harmonics per SIMD lane set: per harmonic, a sinusoid whose phase is exact (h·f0·n mod rate, in integers) at every
/// 64-frame control point and rotated between them; the ripple's gains (amplitude condition) or phase offset
/// (phase condition) are computed at the control points and interpolated linearly (the ripple changes at
/// under 3 Hz, so the error is below 10⁻⁵ of the envelope). The noise condition adds an FFT noise of the
/// segment's length when the segment is finished.
package final class SpectralRippleSource: AudioSource {
    package let sampleRate: Double
    /// One channel: a stimulus is one signal (``ChannelLayoutSource`` places it in the ears).
    package var channelCount: Int { 1 }
    package let ripple: SpectralRipple
    /// RMS of every segment, dBFS.
    package let levelDBFS: Double
    /// Frames per segment: 4 s.
    package let segmentFrames: Int

    /// A segment being synthesised: how far, and what it has summed so far.
    private struct Job {
        var index: Int
        var choices: SpectralRippleSegment
        /// Frame (in the segment) of the next control block to synthesise.
        var nextFrame = 0
        /// Mean power of the harmonics the noise condition replaces.
        var replacedPower = 0.0
        var finished = false
    }

    private let rate: Int
    private let key: UInt64
    private let bandGains: [Double]
    private var playing: UnsafeMutablePointer<Float>
    private var preparing: UnsafeMutablePointer<Float>
    private let accumulator: UnsafeMutablePointer<SIMD4<Double>>
    /// Per harmonic: its (sine, cosine) gains at the last control point.
    private let lastGains: UnsafeMutablePointer<SIMD2<Double>>
    private let noiseFFT: RealFFT?
    /// The modulated octave and its geometric centre, Hz.
    private let octave: ClosedRange<Double>
    private let centre: Double
    private var playingIndex = -1
    private var job: Job?
    private var position: Int

    static let controlFrames = 64
    /// Most harmonics of f0 ≥ 96 Hz in 1 … 16 kHz.
    static let maximumHarmonics = 168

    /// - Parameters:
    ///   - levelDBFS: RMS of each segment, dBFS (finite).
    ///   - seed: chooses each segment's fundamental and phases (and the noise).
    ///   - startFrame: the absolute frame the first render starts at.
    package init(ripple: SpectralRipple, sampleRate: Double, levelDBFS: Double = -20,
                seed: UInt64 = 1, startFrame: Int = 0) throws(ShadesError) {
        try ripple.validate(sampleRate: sampleRate)
        try validateStreamStart(levelDBFS: levelDBFS, startFrame: startFrame)
        self.sampleRate = sampleRate
        self.ripple = ripple
        self.levelDBFS = levelDBFS
        rate = Int(sampleRate)
        segmentFrames = Int((SpectralRipple.segmentSeconds * sampleRate).rounded())
        key = SeedStream.schedule.key(seed: seed, channel: 0)
        bandGains = (ripple.bandGainsDB ?? Array(repeating: 0, count: 8)).map { Decibels.amplitude($0) }
        playing = .allocate(capacity: segmentFrames)
        playing.initialize(repeating: 0, count: segmentFrames)
        preparing = .allocate(capacity: segmentFrames)
        preparing.initialize(repeating: 0, count: segmentFrames)
        accumulator = .allocate(capacity: Self.controlFrames)
        accumulator.initialize(repeating: .zero, count: Self.controlFrames)
        lastGains = .allocate(capacity: Self.maximumHarmonics)
        lastGains.initialize(repeating: .zero, count: Self.maximumHarmonics)
        noiseFFT = ripple.condition == .noise ? RealFFT(size: segmentFrames) : nil
        octave = ripple.modulatedOctaveHz
        centre = (octave.lowerBound * octave.upperBound).squareRoot()
        position = startFrame
    }

    deinit {
        playing.deallocate()
        preparing.deallocate()
        accumulator.deallocate()
        lastGains.deallocate()
    }

    /// The random choices of segment `index` (segment 0 starts at frame 0).
    package func segmentChoices(_ index: Int) -> SpectralRippleSegment { SpectralRippleSegment(key: key, segment: index) }

    /// Band (0…7) of a frequency in the carrier's span.
    static func band(ofHz f: Double) -> Int { min(7, max(0, Int((2 * log2(f / 1000)).rounded(.down)))) }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == 1, "a stimulus renders one channel")
        let out = block.channel(0).baseAddress!
        var done = 0
        while done < block.frameCount {
            let index = position / segmentFrames
            if index != playingIndex { startPlaying(index) }
            let offset = position - index * segmentFrames
            let n = min(block.frameCount - done, segmentFrames - offset)
            (out + done).update(from: playing + offset, count: n)
            done += n
            position += n
            // The next segment's share of work: done by 80 % of this one.
            if var next = job, !next.finished {
                let due = min(segmentFrames, (offset + n) * 5 / 4)
                advance(&next, toFrame: due, into: preparing)
                if next.nextFrame >= segmentFrames { finish(&next, into: preparing) }
                job = next
            }
        }
    }

    /// Makes segment `index` the playing one (finishing it if it was being prepared, else synthesising it
    /// whole) and starts preparing the one after it.
    private func startPlaying(_ index: Int) {
        if var prepared = job, prepared.index == index {
            if !prepared.finished {
                advance(&prepared, toFrame: segmentFrames, into: preparing)
                finish(&prepared, into: preparing)
            }
            swap(&playing, &preparing)
        } else {
            var whole = Job(index: index, choices: segmentChoices(index))
            advance(&whole, toFrame: segmentFrames, into: playing)
            finish(&whole, into: playing)
        }
        playingIndex = index
        job = Job(index: index + 1, choices: segmentChoices(index + 1))
    }

    /// Synthesises the harmonic complex of `job`'s segment from its next control block up to `toFrame`.
    private func advance(_ job: inout Job, toFrame: Int, into segment: UnsafeMutablePointer<Float>) {
        guard job.nextFrame < toFrame else { return }
        let choices = job.choices
        let f0 = choices.fundamentalHz
        let (octave, centre) = (self.octave, self.centre)
        let lowest = Int((SpectralRipple.carrierRangeHz.lowerBound / Double(f0)).rounded(.up))
        let highest = Int((SpectralRipple.carrierRangeHz.upperBound / Double(f0)).rounded(.down))
        let control = Self.controlFrames
        let frames = segmentFrames
        let twoPi = 2 * Double.pi
        let condition = ripple.condition

        // (sine gain, cosine gain) of a harmonic at log-frequency x: out = a·sin(carrier) + b·cos(carrier);
        // `cycles` is φ0 + r·t and `density` s(t) at the control point.
        func gains(cycles: Double, density: Double, x: Double, modulated: Bool) -> SIMD2<Double> {
            guard modulated else { return SIMD2(1, 0) }
            let s = sin(twoPi * (cycles + density * x))
            switch condition {
            case .amplitude: return SIMD2(1 + s, 0)
            case .phase:
                let offset = Double.pi / 2 * (1 + s)
                return SIMD2(cos(offset), sin(offset))
            case .noise: return .zero
            }
        }
        func rippleAt(_ frame: Int) -> (cycles: Double, density: Double) {
            let t = Double(frame) / sampleRate
            return (choices.ripplePhaseCycles + SpectralRipple.rippleRateHz * t,
                    SpectralRipple.densityMean
                        + SpectralRipple.densityDepth * sin(choices.densityPhase + twoPi * t / SpectralRipple.densityPeriodSeconds))
        }

        if job.nextFrame == 0 {
            // The gains at frame 0, and the noise's power.
            let (cycles, density) = rippleAt(0)
            for h in lowest...highest {
                let f = Double(h * f0)
                let modulated = octave.contains(f)
                lastGains[h - lowest] = gains(cycles: cycles, density: density, x: log2(f / centre), modulated: modulated)
                if modulated && condition == .noise {
                    job.replacedPower += bandGains[Self.band(ofHz: f)] * bandGains[Self.band(ofHz: f)] / 2
                }
            }
        }
        var blockStart = job.nextFrame
        while blockStart < min(toFrame, frames) {
            let count = min(control, frames - blockStart)
            accumulator.update(repeating: .zero, count: count)
            let (cycles, density) = rippleAt(blockStart + count)
            // Four harmonics at a time, one per SIMD lane (a lane past the last harmonic has zero gain).
            var h = lowest
            while h <= highest {
                var s = SIMD4<Double>(), c = SIMD4<Double>(), cs = SIMD4<Double>(), ss = SIMD4<Double>()
                var a = SIMD4<Double>(), b = SIMD4<Double>(), da = SIMD4<Double>(), db = SIMD4<Double>()
                for lane in 0..<4 where h + lane <= highest {
                    let hz = (h + lane) * f0
                    let f = Double(hz)
                    let modulated = octave.contains(f)
                    if modulated && condition == .noise { continue }
                    let g = bandGains[Self.band(ofHz: f)]
                    let start = lastGains[h + lane - lowest]
                    let end = gains(cycles: cycles, density: density, x: log2(f / centre), modulated: modulated)
                    lastGains[h + lane - lowest] = end
                    (a[lane], b[lane]) = (g * start.x, g * start.y)
                    (da[lane], db[lane]) = (g * (end.x - start.x) / Double(count), g * (end.y - start.y) / Double(count))
                    // Exact phase at the block start: h·f0·n mod rate, in whole numbers.
                    let startCycles = Double((hz * blockStart) % rate) / sampleRate
                    (s[lane], c[lane]) = (sin(twoPi * startCycles), cos(twoPi * startCycles))
                    let angle = twoPi * f / sampleRate
                    (cs[lane], ss[lane]) = (cos(angle), sin(angle))
                }
                for i in 0..<count {
                    accumulator[i] += a * s + b * c
                    (s, c) = (s * cs + c * ss, c * cs - s * ss)
                    a += da
                    b += db
                }
                h += 4
            }
            for i in 0..<count { segment[blockStart + i] = Float(accumulator[i].sum()) }
            blockStart += count
        }
        job.nextFrame = blockStart
    }

    /// Completes `job`'s segment: the noise (noise condition), the ramps and the segment's RMS.
    private func finish(_ job: inout Job, into segment: UnsafeMutablePointer<Float>) {
        let frames = segmentFrames
        if ripple.condition == .noise, let fft = noiseFFT {
            addNoise(fft, key: job.choices.noiseKey, power: job.replacedPower, octave: octave, into: segment)
        }
        let rampFrames = Int((SpectralRipple.rampSeconds * sampleRate).rounded())
        var energy = 0.0
        for n in 0..<frames {
            let w = min(raisedCosineGain(n, rampFrames: rampFrames), raisedCosineGain(frames - n, rampFrames: rampFrames))
            let y = Double(segment[n]) * w
            segment[n] = Float(y)
            energy += y * y
        }
        let scale = energy > 0 ? Decibels.amplitude(levelDBFS) / (energy / Double(frames)).squareRoot() : 0
        for n in 0..<frames { segment[n] = Float(Double(segment[n]) * scale) }
        job.finished = true
    }

    /// Adds flat random-phase noise over `octave` (per-band gains applied) with mean power `power` to `segment`.
    private func addNoise(_ fft: RealFFT, key: UInt64, power: Double, octave: ClosedRange<Double>, into segment: UnsafeMutablePointer<Float>) {
        let frames = segmentFrames
        let binHz = sampleRate / Double(frames)
        var rng = SplitMix64(seed: key)
        fft.withSpectrum { bins in
            for k in 0..<fft.binCount {
                let f = Double(k) * binHz
                guard k > 0, k < frames / 2, octave.contains(f) else {
                    bins[2 * k] = 0
                    bins[2 * k + 1] = 0
                    continue
                }
                let phase = 2 * Double.pi * rng.nextUnit()
                let g = bandGains[Self.band(ofHz: f)]
                bins[2 * k] = Float(g * cos(phase))
                bins[2 * k + 1] = Float(g * sin(phase))
            }
        }
        fft.inverse()
        fft.withSignal { x in
            var energy = 0.0
            for n in 0..<frames { energy += Double(x[n]) * Double(x[n]) }
            let scale = energy > 0 ? (power * Double(frames) / energy).squareRoot() : 0
            for n in 0..<frames { segment[n] += Float(Double(x[n]) * scale) }
        }
    }
}
