import ShadesPlatform

/// The linear-phase FIR realising one or more notches at a sample rate, and its exact response.
///
/// Requirements (for Float32 output): at least ``specifiedDepthDB`` (100 dB) of attenuation across each
/// stop band less its outer 1/24 octave at each edge (``NotchSpec/innerStopBandHz``); flat within ±0.05 dB
/// outside each notch's ``NotchSpec/affectedRangeHz`` (1/12 octave beyond the edges) from 20 Hz to
/// 0.9 × Nyquist; a boosted band at its gain (±0.05 dB) from its outer edge to 1/12 octave short of the
/// notch.
///
/// Design: a Kaiser-windowed ideal response, computed in Double.
/// - The ideal response is piecewise constant: 1, 0 in each stop band, the boost gain G in each boosted
///   band; several notches multiply (one kernel for all of them; overlapping boosts multiply too). Each
///   step sits in the middle of its transition allowance: a notch edge f_e between f_e·2^(−1/12) and
///   f_e·2^(1/24) (outside the band → inside), a boost's outer edge f_b in the 1/12 octave outside it.
///   The window turns every step into a smooth, monotone ramp of width ``transitionHz`` around it, so
///   the boosted bands rise and fall within their 1/12-octave guards.
/// - Kaiser window for A = 110 dB + the ideal response's peak gain G in dB (the largest boost: the G → 0
///   step at a boosted notch edge is G times a unit step, and so is its error): β = 0.1102·(A − 8.7).
///   Transition Δf = ``transitionShare`` (0.9) × the narrowest allowance, which is the lowest edge's:
///   0.0854·f_L for a notch (f_L = centre·2^(−w/2)), 0.0561·f_B for a boost's outer edge
///   (f_B = f_L·2^(−edgeWidth)). Kernel span 2M = (A − 7.95)/(2.285·2π·Δf/rate) (Kaiser 1974), M rounded
///   up to a multiple of 8. So M ∝ rate/f_L: for 110 dB, M ≈ 46·rate/f_L
///   (1 octave at 500 Hz and 48 kHz: 12,561 taps; ½ octave 10,561; 4 kHz 1,585 / 1,329; 12 kHz 529 / 449;
///   Stein's ½ octave + 20 dB boosts at 4 kHz: 3,121 taps).
/// - The same δ = 10^(−A/20) bounds the passband error: ±0.00003 dB (spec ±0.05 dB).
/// - Taps are capped at 2·``maximumHalfLength`` + 1 = 262,145 (5.5 s at 48 kHz). Beyond the cap the
///   transitions widen (``isLengthCapped``, ``transitionHz``): the depth and flatness stay but start
///   further from the edges than specified. Unboosted notches never reach the cap at 44.1 or 48 kHz (the
///   20 Hz limit comes first); the cap binds when the narrowest allowance is below
///   (A − 7.95)·rate/3.39e6: at 96 kHz for lower edges below 34 Hz, at 192 kHz below 68 Hz; with 20 dB
///   boosts at 48 kHz for boost edges below 31 Hz.
///
/// Evaluating ``magnitude(atFrequency:)`` costs O(M); the FIR runs in ``NotchFilter`` / ``NotchedSource``
/// by FFT overlap-save, where Float32 rounding sets a floor near −130 dB. Measured with white noise
/// through ``NotchFilter`` (44.1/48 kHz; 500 Hz, 4 kHz, 12 kHz; 1 and ½ octave): every 1/48-octave band of
/// the inner stop band −114 dB or lower, −123 … −132 dB at the centre, passband within ±0.0001 dB.
package struct NotchDesign: Sendable {
    /// Hz, 8,000 … 192,000.
    package let sampleRate: Double
    /// The notches, as given (none: the identity, one tap).
    package let notches: [NotchSpec]
    /// Taps h[0] (centre) … h[M]; h[−m] = h[m]. Passband gain 1.
    package let halfTaps: [Double]
    /// Kaiser design attenuation A in dB: 110 + the ideal response's peak in dB (the largest boost; the
    /// sum where boosts of two notches overlap).
    package let attenuationDB: Double
    /// Width of every transition in Hz: the window's, centred on each step of the ideal response (0 for
    /// the identity).
    package let transitionHz: Double
    /// True when the kernel hit ``maximumHalfLength`` and ``transitionHz`` is wider than the spec allows.
    package let isLengthCapped: Bool
    /// Steps of the ideal response: at `frequencyHz` the gain changes by `change`, going up in frequency.
    let steps: [(frequencyHz: Double, change: Double)]
    /// For a shaping filter (no notches): the gain curve it applies (see `init(shaping:sampleRate:)`).
    package let shaping: GainCurve?

    /// Attenuation asked across each inner stop band, dB.
    package static let specifiedDepthDB = 100.0
    /// Margin of the design over ``specifiedDepthDB``, dB.
    package static let marginDB = 10.0
    /// The stop band edges are specified this far inside the band edges, octaves.
    package static let stopBandInsetOctaves = 1.0 / 24
    /// The passband starts this far outside the band edges (and outside boosted bands), octaves.
    package static let guardOctaves = 1.0 / 12
    /// Share of the narrowest transition allowance the window's transition takes (the rest is margin).
    package static let transitionShare = 0.9
    /// Longest half kernel, M (taps −M … M).
    package static let maximumHalfLength = 131_072
    /// Lowest frequency a notch may affect (with its guard), Hz.
    package static let lowestAffectedHz = 20.0

    /// M: the kernel runs from −M to M.
    package var halfLength: Int { halfTaps.count - 1 }
    /// Taps in the kernel, 2M + 1.
    package var tapCount: Int { 2 * halfLength + 1 }
    /// Group delay of the causal kernel: M frames (half the kernel length).
    package var groupDelayFrames: Int { halfLength }

    /// Designs the kernel for `notches` at `sampleRate`.
    ///
    /// Throws `rate` for a rate outside 8,000 … 192,000 Hz, or what ``NotchSpec/validate(sampleRate:)``
    /// throws for a notch.
    package init(notches: [NotchSpec], sampleRate: Double) throws(ShadesError) {
        try Self.validate(notches: notches, sampleRate: sampleRate)
        self.sampleRate = sampleRate
        self.notches = notches
        shaping = nil
        steps = Self.idealSteps(notches)
        var gain = 1.0, peak = 1.0
        for step in steps { gain += step.change; peak = max(peak, gain) }
        attenuationDB = Self.specifiedDepthDB + Self.marginDB + Decibels.fromAmplitude(peak)
        guard !notches.isEmpty else {
            (halfTaps, transitionHz, isLengthCapped) = ([1], 0, false)
            return
        }
        let narrowest = notches.map(Self.narrowestAllowanceHz).min()!
        let wanted = Self.transitionShare * narrowest
        let kaiser = KaiserDesign(attenuationDB: attenuationDB, transitionHz: wanted, sampleRate: sampleRate,
                                  maximumHalfLength: Self.maximumHalfLength)
        (isLengthCapped, transitionHz) = (kaiser.isLengthCapped, kaiser.transitionHz)
        halfTaps = Self.kaiserTaps(steps: steps, sampleRate: sampleRate, kaiser: kaiser)
    }

    /// Checks `notches` at `sampleRate` without designing their filter: what ``init(notches:sampleRate:)``
    /// refuses.
    package static func validate(notches: [NotchSpec], sampleRate: Double) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        for notch in notches { try notch.validate(sampleRate: sampleRate) }
    }

    /// A kernel of `halfTaps` applying `shaping` (no notches; see `init(shaping:sampleRate:)`).
    init(sampleRate: Double, halfTaps: [Double], shaping: GainCurve) {
        (self.sampleRate, self.halfTaps, self.shaping) = (sampleRate, halfTaps, shaping)
        (notches, steps, attenuationDB, transitionHz, isLengthCapped) = ([], [], 0, 0, false)
    }

    /// The ideal (unwindowed) response at `frequencyHz`: the product over the notches of 0 in the stop
    /// band, the boost gain in the boosted bands and 1 elsewhere, with each step in the middle of its
    /// transition allowance; a shaping filter's curve.
    package func idealGain(atFrequency frequencyHz: Double) -> Double {
        if let shaping { return Decibels.amplitude(shaping.gainDB(atHz: frequencyHz)) }
        var gain = 1.0
        for step in steps where step.frequencyHz <= frequencyHz { gain += step.change }
        return abs(gain) < 1e-12 ? 0 : gain
    }

    /// Magnitude of the FIR at `frequencyHz` (linear; passband 1): |h[0] + 2Σ h[m]·cos(2πfm/rate)|,
    /// summed in Double with the phasor re-anchored every 32 taps (accurate to about 1e-13).
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        let m = halfLength
        let cyclesPerTap = frequencyHz / sampleRate
        let stepCycles = cyclesPerTap - cyclesPerTap.rounded()
        let (stepCos, stepSin) = (cos(2 * Double.pi * stepCycles), sin(2 * Double.pi * stepCycles))
        var sum = 0.0
        halfTaps.withUnsafeBufferPointer { h in
            var k = 1
            while k <= m {
                var cycles = cyclesPerTap * Double(k)
                cycles -= cycles.rounded()
                var c = cos(2 * Double.pi * cycles), s = sin(2 * Double.pi * cycles)
                let end = min(m, k + 31)
                for j in k...end {
                    sum += h[j] * c
                    (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                }
                k = end + 1
            }
        }
        return abs(halfTaps[0] + 2 * sum)
    }

    /// FFT size ``NotchFilter`` and ``NotchedSource`` use: ``OverlapSaveFilter/recommendedFFTSize(halfLength:)``
    /// (four times the power of two at or above 2M, at least 4,096).
    package var fftSize: Int { OverlapSaveFilter.recommendedFFTSize(halfLength: halfLength) }
    /// Delay of a ``NotchFilter``'s output behind its input, in frames: the kernel's ``groupDelayFrames`` M
    /// plus one FFT block (fftSize − 2M).
    package var outputDelayFrames: Int { fftSize - halfLength }

    // MARK: Design steps

    /// The narrowest transition allowance of a notch, Hz: its lower edge's (the upper one is 2^w wider),
    /// or its lower boost band's outer edge's when boosted and narrower.
    static func narrowestAllowanceHz(_ notch: NotchSpec) -> Double {
        let edge = notch.lowerEdgeHz * (pow(2, stopBandInsetOctaves) - pow(2, -guardOctaves))
        guard let boost = notch.lowerBoostBandHz else { return edge }
        return min(edge, boost.lowerBound * (1 - pow(2, -guardOctaves)))
    }

    /// Frequencies of one notch's steps: (boost start, cut start, cut end, boost end) in Hz, each in the
    /// middle of its allowance; the boost steps are nil without a boost.
    static func stepFrequencies(_ notch: NotchSpec) -> (boostLow: Double?, cutLow: Double, cutHigh: Double, boostHigh: Double?) {
        let inset = pow(2, stopBandInsetOctaves), guardFactor = pow(2, guardOctaves)
        let cutLow = notch.lowerEdgeHz * (1 / guardFactor + inset) / 2
        let cutHigh = notch.upperEdgeHz * (1 / inset + guardFactor) / 2
        guard let low = notch.lowerBoostBandHz, let high = notch.upperBoostBandHz else { return (nil, cutLow, cutHigh, nil) }
        return (low.lowerBound * (1 / guardFactor + 1) / 2, cutLow, cutHigh, high.upperBound * (1 + guardFactor) / 2)
    }

    /// The ideal response as steps (frequency, change in gain) in increasing frequency, starting from gain 1
    /// at 0 Hz: each notch's response (0 in the cut, G in the boosts, 1 elsewhere), multiplied.
    static func idealSteps(_ notches: [NotchSpec]) -> [(frequencyHz: Double, change: Double)] {
        let shapes = notches.map { (stepFrequencies($0), Decibels.amplitude($0.edgeBoostDB)) }
        func gain(at f: Double) -> Double {
            var product = 1.0
            for (s, boost) in shapes {
                if f >= s.cutLow && f < s.cutHigh { product = 0 }
                else if let low = s.boostLow, let high = s.boostHigh, f >= low && f < high { product *= boost }
            }
            return product
        }
        var edges: [Double] = []
        for (s, _) in shapes { edges += [s.boostLow, s.cutLow, s.cutHigh, s.boostHigh].compactMap { $0 } }
        edges = Array(Set(edges)).sorted()
        var steps: [(frequencyHz: Double, change: Double)] = []
        var previous = 1.0
        for (i, f) in edges.enumerated() {
            let next = i + 1 < edges.count ? gain(at: (f + edges[i + 1]) / 2) : 1
            if next != previous { steps.append((f, next - previous)) }
            previous = next
        }
        return steps
    }

    /// The ideal response's impulse response times a Kaiser window, h[0] … h[M].
    ///
    /// A step of size Δ at c Hz (gain Δ from c to Nyquist) has the impulse response
    /// Δ·(1 − 2c/rate) at 0 and −Δ·sin(2π·c·k/rate)/(πk) at k ≠ 0; the gain 1 from 0 Hz is a unit impulse.
    static func kaiserTaps(steps: [(frequencyHz: Double, change: Double)], sampleRate: Double,
                           kaiser: KaiserDesign) -> [Double] {
        let m = kaiser.halfLength
        var taps = [Double](repeating: 0, count: m + 1)
        taps[0] = 1
        for step in steps { taps[0] += step.change * (1 - 2 * step.frequencyHz / sampleRate) }
        guard m > 0 else { return taps }
        for k in 1...m {
            var ideal = 0.0
            for step in steps { ideal -= step.change * KaiserDesign.sine(step.frequencyHz, sampleRate: sampleRate, tap: k) }
            taps[k] = kaiser.windowed(ideal / (Double.pi * Double(k)), at: k)
        }
        return taps
    }
}

/// One channel of a notch filter, streaming: blocks of any size, no allocation after `init`, and the
/// same samples whatever the block sizes.
///
/// Output sample t is the input filtered by the ``NotchDesign``'s kernel and delayed by
/// ``outputDelayFrames`` = M + ``blockFrames``: the kernel's own group delay M plus one FFT block, because
/// the FFT overlap-save (``OverlapSaveFilter``) filters whole blocks at fixed positions from the first
/// sample. The filter starts from silence (the input before the first sample is 0), so the first
/// ``outputDelayFrames`` outputs hold the start-up; drop them to align the output with the input.
///
/// Cost: two FFTs of ``fftSize`` per ``blockFrames`` samples (about ¾ of the FFT size or more), plus two
/// copies. Memory: about 5 × fftSize × 4 bytes (1 octave at 500 Hz, 48 kHz: 65,536-point FFT, 1.3 MB).
package final class NotchFilter {
    /// The design this filter runs.
    package let design: NotchDesign
    private let filter: OverlapSaveFilter   // its next block's input filled up to `position`
    private let pendingOutput: UnsafeMutablePointer<Float>   // blockFrames, read from `position`
    private var position = 0

    /// Transform length in samples.
    package var fftSize: Int { filter.fftSize }
    /// New samples per FFT block: fftSize − 2M.
    package var blockFrames: Int { filter.blockFrames }
    /// Delay of the output behind the input, in frames: M + ``blockFrames``.
    package var outputDelayFrames: Int { design.outputDelayFrames }

    /// A filter for `design` (FFT size ``NotchDesign/fftSize``), starting from silence.
    package init(design: NotchDesign) {
        self.design = design
        filter = OverlapSaveFilter(halfTaps: design.halfTaps, fftSize: design.fftSize)
        pendingOutput = Self.allocateBlock(filter.blockFrames)
    }

    /// A filter with `other`'s design and response (shared, not recomputed) and its own state, e.g. for
    /// the other ear.
    package init(sharingResponseOf other: NotchFilter) {
        design = other.design
        filter = OverlapSaveFilter(sharingResponseOf: other.filter)
        pendingOutput = Self.allocateBlock(filter.blockFrames)
    }

    private static func allocateBlock(_ count: Int) -> UnsafeMutablePointer<Float> {
        let block = LargeAllocation.allocateFloats(count)
        block.initialize(repeating: 0, count: count)
        return block
    }

    deinit { LargeAllocation.free(pendingOutput) }

    /// Filters `input` into `output` (the same count; they may be the same memory). Allocates nothing and
    /// takes no locks.
    package func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == output.count, "input and output must have the same count")
        let block = filter.blockFrames
        var done = 0
        while done < input.count {
            let n = min(input.count - done, block - position)
            // Input first: with in-place processing, output[done...] is input[done...]. It goes straight
            // into the filter's FFT frame, which nothing else touches between blocks.
            let at = position
            filter.withPendingInput { $0.baseAddress!.advanced(by: at).update(from: input.baseAddress! + done, count: n) }
            (output.baseAddress! + done).update(from: pendingOutput + position, count: n)
            position += n
            done += n
            if position == block {
                filter.processPendingInput(into: UnsafeMutableBufferPointer(start: pendingOutput, count: block))
                position = 0
            }
        }
    }

    /// Sums the input's power per FFT frame from now on (see ``OverlapSaveFilter/measureInputSpectrum()``).
    package func measureInputSpectrum() { filter.measureInputSpectrum() }

    /// The input's Welch spectrum since ``measureInputSpectrum()``, from the filter's own FFT frames (Hann
    /// window applied to the bins); nil if not measuring or no frame was filtered yet.
    package func inputSpectrum(sampleRate: Double) -> PowerSpectrum? { filter.inputSpectrum(sampleRate: sampleRate) }

    /// Forgets all input: the next sample is filtered as the first one after `init`.
    package func reset() {
        filter.withHistory { $0.update(repeating: 0) }
        pendingOutput.update(repeating: 0, count: filter.blockFrames)
        position = 0
    }
}

