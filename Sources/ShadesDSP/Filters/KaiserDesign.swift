import ShadesPlatform

/// A Kaiser-windowed linear-phase FIR (Kaiser 1974): its length for an attenuation and a transition width,
/// and the window applied to an ideal kernel. The one definition behind ``NarrowBandDesign`` and
/// ``NotchDesign``.
///
/// Span 2M = (A − 7.95)/(2.285·2π·Δf/rate) taps for A dB of stop-band attenuation and a transition Δf Hz
/// wide, M rounded up to a multiple of 8 and capped; window w[k] = I0(β·√(1 − (k/M)²))/I0(β) with
/// β = 0.1102·(A − 8.7).
struct KaiserDesign {
    /// M: the kernel has taps −M … M, 2M + 1 in all.
    let halfLength: Int
    /// The transition width the kernel reaches in Hz: the one asked for, or wider when M was capped.
    let transitionHz: Double
    /// True when the asked transition needed more than the largest M allowed.
    let isLengthCapped: Bool
    /// The window's shape parameter β.
    let beta: Double
    private let besselOfBeta: Double

    /// Sizes a kernel `attenuationDB` dB down (A > 21) whose transition is `transitionHz` wide at
    /// `sampleRate` Hz, with M at most `maximumHalfLength` (a multiple of 8).
    init(attenuationDB: Double, transitionHz wanted: Double, sampleRate: Double, maximumHalfLength: Int) {
        let spanTimesHz = (attenuationDB - 7.95) / (2.285 * 2 * Double.pi / sampleRate)   // 2M·Δf
        let wantedHalf = Int((spanTimesHz / wanted / 2).rounded(.up))
        halfLength = min(maximumHalfLength, (wantedHalf + 7) / 8 * 8)
        isLengthCapped = wantedHalf > maximumHalfLength
        transitionHz = isLengthCapped ? spanTimesHz / Double(2 * halfLength) : wanted
        beta = 0.1102 * (attenuationDB - 8.7)
        besselOfBeta = Self.besselI0(beta)
    }

    /// Tap k (0 … M) of the ideal kernel, `ideal`, times the window.
    func windowed(_ ideal: Double, at k: Int) -> Double { windowed(ideal, atOffset: Double(k)) }

    /// The kernel's value `ideal` at `offset` taps from its centre (0 … M, not necessarily whole), times
    /// the window.
    func windowed(_ ideal: Double, atOffset offset: Double) -> Double {
        let r = offset / Double(halfLength)
        return ideal * Self.besselI0(beta * (1 - r * r).squareRoot()) / besselOfBeta
    }

    /// sin(2π·`frequencyHz`·k/`sampleRate`) with the phase reduced to one cycle first, so long kernels keep
    /// full precision.
    static func sine(_ frequencyHz: Double, sampleRate: Double, tap k: Int) -> Double {
        let cycles = frequencyHz / sampleRate * Double(k)
        return sin(2 * Double.pi * (cycles - cycles.rounded()))
    }

    /// Modified Bessel function of the first kind, order 0 (power series; x ≤ 20 here).
    static func besselI0(_ x: Double) -> Double {
        let q = x * x / 4
        var term = 1.0, sum = 1.0, j = 1.0
        while term > 1e-17 * sum {
            term *= q / (j * j)
            sum += term
            j += 1
        }
        return sum
    }
}
