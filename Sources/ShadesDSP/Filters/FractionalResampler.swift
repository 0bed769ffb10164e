import ShadesPlatform

/// Sample-rate conversion by any ratio of whole rates, for a signal already band-limited well below the
/// input's Nyquist: the second stage behind a ``RationalResampler`` when the ratio's terms are too large
/// for FFT frames (44,101 → 48,000 Hz is 48,000/44,101: a frame would be a second long, and FFTW is slow on
/// a prime length).
///
/// The first stage converts to an intermediate rate F (the input's rate times a power of two, at least
/// twice the lower of the two rates) and removes everything above the lower Nyquist; so the signal
/// holds nothing between the lower Nyquist f and F − f, and this stage's low-pass may be that wide: a
/// Kaiser-windowed sinc cut at F/2 with a transition of F − 2f, 11 … 14 taps a side at 140 dB. Output
/// sample n lies at τ = n·F/outputRate input samples (exact: whole numbers and a remainder); its taps
/// come from a table of ``FractionalResamplerDesign/phaseCount`` phases of the kernel, interpolated
/// linearly between the two phases around τ's fraction (error below 1.1/P² of full scale, −150 dB for
/// P = 8,192).
package struct FractionalResamplerDesign: Sendable {
    /// Input rate (the intermediate rate F) and output rate, Hz.
    package let inputRate: Int
    package let outputRate: Int
    /// Taps on each side of τ: output n reads input samples ⌊τ⌋ − halfTaps + 1 … ⌊τ⌋ + halfTaps.
    package let halfTaps: Int
    /// Phases of the kernel in the table, per input sample.
    package static let phaseCount = 8_192
    /// Row p (0 … phaseCount) holds the 2·halfTaps taps for fraction p/phaseCount, each row summing to 1.
    let table: [Float]

    /// The design converting `inputRate` to `outputRate` Hz for a signal with nothing between
    /// `bandLimitHz` and `inputRate` − `bandLimitHz` (less than a quarter of `inputRate`), its images
    /// `attenuationDB` dB down.
    package init(inputRate: Int, outputRate: Int, bandLimitHz: Double, attenuationDB: Double) {
        precondition(inputRate > 0 && outputRate > 0 && bandLimitHz > 0 && 4 * bandLimitHz <= Double(inputRate) + 1e-9,
                     "the band must lie below a quarter of the input rate")
        self.inputRate = inputRate
        self.outputRate = outputRate
        let rate = Double(inputRate)
        let kaiser = KaiserDesign(attenuationDB: attenuationDB, transitionHz: rate - 2 * bandLimitHz, sampleRate: rate,
                                  maximumHalfLength: 64)
        let half = kaiser.halfLength
        halfTaps = half
        let width = 2 * half, phases = Self.phaseCount
        var table = [Float](repeating: 0, count: (phases + 1) * width)
        var row = [Double](repeating: 0, count: width)
        for p in 0...phases {
            let fraction = Double(p) / Double(phases)
            for t in 0..<width {
                // Distance from τ to the tap's sample, in input samples: fraction + half − 1 − t.
                let u = fraction + Double(half - 1 - t)
                let ideal = u == 0 ? 1 : sin(Double.pi * u) / (Double.pi * u)
                row[t] = abs(u) >= Double(half) ? 0 : kaiser.windowed(ideal, atOffset: abs(u))
            }
            let sum = row.reduce(0, +)
            for t in 0..<width { table[p * width + t] = Float(row[t] / sum) }
        }
        self.table = table
    }
}

/// One channel of a ``FractionalResamplerDesign``: input is pushed in blocks, and every output sample whose
/// taps have all arrived is made. Starts in silence, time-aligned (output 0 is at input 0). Allocates
/// nothing after `init`.
package final class FractionalResampler {
    package let design: FractionalResamplerDesign
    /// The input not yet behind every future output: `history[0]` is input sample `historyStart`.
    private let history: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var historyStart: Int
    private var historyCount: Int
    /// The next output's position τ = whole + remainder/outputRate, in input samples.
    private var whole = 0, remainder = 0
    /// τ's step per output: inputRate/outputRate as whole + remainder.
    private let stepWhole: Int, stepRemainder: Int

    /// - Parameter largestBlock: the most input samples one ``process(_:into:)`` call is given.
    package init(design: FractionalResamplerDesign, largestBlock: Int) {
        self.design = design
        capacity = largestBlock + 2 * design.halfTaps + 1
        history = .allocate(capacity: capacity)
        (stepWhole, stepRemainder) = design.inputRate.quotientAndRemainder(dividingBy: design.outputRate)
        historyStart = 0
        historyCount = 0
        reset()
    }

    deinit { history.deallocate() }

    /// Most outputs one call makes from `inputCount` input samples.
    package func largestOutput(forInput inputCount: Int) -> Int {
        inputCount * design.outputRate / design.inputRate + 2
    }

    /// Appends `input` and writes every output it completes to `output` (room for
    /// ``largestOutput(forInput:)``); returns how many.
    package func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutablePointer<Float>) -> Int {
        precondition(historyCount + input.count <= capacity, "block larger than the resampler was made for")
        (history + historyCount).update(from: input.baseAddress!, count: input.count)
        historyCount += input.count
        let half = design.halfTaps, width = 2 * half
        let phases = FractionalResamplerDesign.phaseCount
        let scale = Double(phases) / Double(design.outputRate)
        var made = 0
        design.table.withUnsafeBufferPointer { table in
            let rows = table.baseAddress!
            // Output at τ needs input up to ⌊τ⌋ + half.
            while whole + half < historyStart + historyCount {
                let position = Double(remainder) * scale
                let p = min(Int(position), phases - 1)
                let mix = Float(position - Double(p))
                let first = history + (whole - half + 1 - historyStart)
                output[made] = shadesInterpolatedDot(first, rows + p * width, rows + (p + 1) * width, mix, width)
                made += 1
                whole += stepWhole
                remainder += stepRemainder
                if remainder >= design.outputRate { remainder -= design.outputRate; whole += 1 }
            }
        }
        // Keep what the next output still reads: from ⌊τ⌋ − half + 1 on.
        let keepFrom = min(max(0, whole - half + 1 - historyStart), historyCount)
        if keepFrom > 0 {
            history.update(from: history + keepFrom, count: historyCount - keepFrom)
            historyStart += keepFrom
            historyCount -= keepFrom
        }
        return made
    }

    /// Forgets all input: silence before the next sample, as after `init`.
    package func reset() {
        // The first outputs read `half` samples before input 0: silence.
        let half = design.halfTaps
        history.update(repeating: 0, count: half)
        historyStart = -half
        historyCount = half
        (whole, remainder) = (0, 0)
    }
}

/// Σ x[t]·(a[t] + mix·(b[t] − a[t])) over `count` taps (a multiple of 8 or not), in Float.
@inline(__always)
private func shadesInterpolatedDot(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                   _ mix: Float, _ count: Int) -> Float {
    var sum = SIMD8<Float>(repeating: 0)
    let m = SIMD8<Float>(repeating: mix)
    var t = 0
    let rx = UnsafeRawPointer(x), ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
    while t + 8 <= count {
        let xa = ra.loadUnaligned(fromByteOffset: 4 * t, as: SIMD8<Float>.self)
        let xb = rb.loadUnaligned(fromByteOffset: 4 * t, as: SIMD8<Float>.self)
        let xs = rx.loadUnaligned(fromByteOffset: 4 * t, as: SIMD8<Float>.self)
        sum += xs * (xa + m * (xb - xa))
        t += 8
    }
    var total = sum.sum()
    while t < count {
        total += x[t] * (a[t] + mix * (b[t] - a[t]))
        t += 1
    }
    return total
}

extension FractionalResamplerDesign {
    /// The intermediate rate F of a two-stage conversion from `inputRate` to `outputRate` Hz: `inputRate`
    /// times a power of two (2, 1, 1/2, 1/4 …, whole), the lowest at or above twice the lower of the two
    /// rates that halving reaches.
    package static func intermediateRate(inputRate: Int, outputRate: Int) -> Int {
        let low = min(inputRate, outputRate)
        var rate = inputRate
        while rate < 2 * low { rate *= 2 }
        while rate % 2 == 0 && rate / 2 >= 2 * low { rate /= 2 }
        return rate
    }
}
