import ShadesPlatform

/// The filter that turns unit-variance white noise into noise of PSD ∝ f^−β, and its exact response.
///
/// Three parts, all designed here in Double:
/// 1. a ladder of real pole–zero pairs, two octaves apart from 1 Hz to far above Nyquist, in the warped
///    frequency s = sin(πf/fs): a digital first-order section's magnitude is exactly an analog one in s,
///    so the ladder follows s^(−β/2) to a few thousandths of a dB;
/// 2. a 4th-order Butterworth high-pass at 8 Hz, so brown noise has no DC and no infrasonic wander
///    (−0.003 dB at 20 Hz);
/// 3. a 15-tap linear-phase FIR, fitted by weighted least squares, that turns s back into f near Nyquist
///    ((sin x / x)^(β/2), x = πf/fs) and absorbs the ladder's end effects.
/// Designed accuracy against the ideal line: ±0.02 dB from 20 Hz to 20 kHz (or 0.907 × Nyquist) at any
/// rate from 8 kHz to 192 kHz (see `ShadesDSPTests`).
package struct NoiseShapingDesign: Sendable {
    /// The colour shaped.
    package let colour: NoiseColour
    /// Sample rate in Hz.
    package let sampleRate: Double
    /// Ladder and high-pass sections (empty for white noise).
    package let sections: [IIRSection]
    /// FIR correction taps (a single 1 for white noise).
    package let firTaps: [Double]
    /// Gain making the output variance equal the input variance.
    package let normalisingGain: Double

    /// Corner of the infrasonic high-pass, in Hz.
    package static let highPassCutoffHz = 8.0
    /// Lowest ladder corner, in Hz.
    static let ladderBottomHz = 1.0
    /// Ladder spacing, in octaves.
    static let ladderSpacingOctaves = 2.0
    /// Ladder corners extend to this warped frequency (1 = Nyquist).
    static let ladderTop = 8.0
    /// FIR correction length.
    static let firLength = 15

    /// Upper edge of the accurate band: 20 kHz, or 0.907 × Nyquist at rates below 44.1 kHz.
    package static func accurateBandTopHz(sampleRate: Double) -> Double { min(20_000, 0.4535 * sampleRate) }

    package init(colour: NoiseColour, sampleRate: Double) {
        self.colour = colour
        self.sampleRate = sampleRate
        guard colour.beta != 0 else {
            sections = []
            firTaps = [1]
            normalisingGain = 1
            return
        }
        let hp = IIRSection.butterworthHighPass(order: 4, cutoffHz: Self.highPassCutoffHz, sampleRate: sampleRate)
        let ladder = Self.ladder(beta: colour.beta, sampleRate: sampleRate)
        sections = hp + ladder
        let cascade = IIRCascade(sections: sections)
        firTaps = Self.fitCorrection(cascade: cascade, beta: colour.beta, sampleRate: sampleRate)
        normalisingGain = 1 / Self.impulseEnergy(cascade: cascade, fir: firTaps).squareRoot()
    }

    /// The design for `colour` at `sampleRate`, made once per process and then shared: designing takes
    /// about 2 ms (the least-squares fit and the impulse response's energy), and a two-pass stereo render
    /// made it five times.
    package static func shared(colour: NoiseColour, sampleRate: Double) -> NoiseShapingDesign {
        let key = DesignKey(beta: colour.beta, sampleRate: sampleRate)
        if let design = designCache.withLock({ $0[key] }) { return design }
        let design = NoiseShapingDesign(colour: colour, sampleRate: sampleRate)
        designCache.withLock { $0[key] = design }
        return design
    }

    /// Magnitude of the whole shaping filter (including the normalising gain) at `frequencyHz`.
    package func magnitude(atFrequency frequencyHz: Double) -> Double {
        let omega = 2 * Double.pi * frequencyHz / sampleRate
        let point = UnitCirclePoint(omega: omega)
        return normalisingGain * sections.reduce(1) { $0 * $1.magnitude(at: point) }
            * Self.firMagnitude(firTaps, omega: omega)
    }

    /// Relative standard deviation of the mean square (the measured power) of `durationSeconds` of this
    /// noise from Gaussian white input: √(∫S² df / T) / ∫S df with S = |H(f)|², one-sided (Bendat &
    /// Piersol). White: √(2/N); pink, 10 minutes at 48 kHz: 0.0017 (0.007 dB); brown: 0.007 (0.03 dB):
    /// the low octaves hold few independent values.
    package func powerScatter(durationSeconds: Double) -> Double {
        let nyquist = sampleRate / 2
        guard colour.beta != 0 else { return (1 / (durationSeconds * nyquist)).squareRoot() }
        let sums = Self.logGridIntegrals(upTo: nyquist) { f in
            let m = magnitude(atFrequency: f)
            return SIMD4(m * m, m * m * m * m, 0, 0)
        }
        return (sums[1] / durationSeconds).squareRoot() / sums[0]
    }

    /// Trapezoid integrals of the (up to four) values of `integrand` over 0.1 Hz … `top` Hz on a
    /// logarithmic grid of 4,000 points (the noise spectra's low octaves hold what matters: below 0.1 Hz
    /// the high-pass leaves nothing).
    package static func logGridIntegrals(upTo top: Double, _ integrand: (Double) -> SIMD4<Double>) -> SIMD4<Double> {
        let points = 4_000
        let ratio = pow(top / 0.1, 1 / Double(points - 1))
        var f = 0.1
        var previous = integrand(f)
        var sums = SIMD4<Double>()
        for _ in 1..<points {
            let next = min(f * ratio, top)
            let values = integrand(next)
            sums += (next - f) * (values + previous) / 2
            (f, previous) = (next, values)
        }
        return sums
    }

    /// Ideal magnitude f^(−β/2) with the same infrasonic high-pass (unnormalised): what loop mode uses.
    package func idealMagnitude(atFrequency frequencyHz: Double) -> Double {
        guard colour.beta != 0 else { return 1 }
        let omega = 2 * Double.pi * frequencyHz / sampleRate
        let hp = sections.prefix(2).reduce(1.0) { $0 * $1.magnitude(omega: omega) }
        return hp * pow(frequencyHz, -colour.beta / 2)
    }

    // MARK: Design steps

    static func ladder(beta: Double, sampleRate: Double) -> [IIRSection] {
        let rho = pow(2, ladderSpacingOctaves)
        let bottom = sin(Double.pi * ladderBottomHz / sampleRate)
        var poles: [Double] = [], zeros: [Double] = []
        var corner = bottom
        while corner <= ladderTop {
            if beta > 0 {
                poles.append(corner); zeros.append(corner * pow(rho, beta / 2))
            } else {
                zeros.append(corner); poles.append(corner * pow(rho, -beta / 2))
            }
            corner *= rho
        }
        // A warped corner s_c is the real root p of (1 − p) / (2√p) = s_c.
        func root(_ sc: Double) -> Double { let r = (sc * sc + 1).squareRoot() - sc; return r * r }
        // β = ±2: every zero lands on the next pole; cancel them exactly.
        var polesLeft = poles.map(root), zerosLeft = zeros.map(root)
        var cancelled = true
        while cancelled {
            cancelled = false
            outer: for (i, q) in zerosLeft.enumerated() {
                for (j, p) in polesLeft.enumerated() where abs(p - q) <= 1e-12 * max(1, abs(p)) {
                    zerosLeft.remove(at: i); polesLeft.remove(at: j); cancelled = true
                    break outer
                }
            }
        }
        zerosLeft.sort(by: >); polesLeft.sort(by: >)  // lowest-frequency corner (largest root) first
        let n = max(polesLeft.count, zerosLeft.count)
        return (0..<n).map { k in
            IIRSection.poleZero(pole: k < polesLeft.count ? polesLeft[k] : 0,
                                zero: k < zerosLeft.count ? zerosLeft[k] : 0)
        }
    }

    static func firMagnitude(_ taps: [Double], omega: Double) -> Double {
        let m = taps.count / 2
        var h = taps[m]
        for k in stride(from: 1, through: m, by: 1) { h += 2 * taps[m + k] * cos(Double(k) * omega) }
        return abs(h)
    }

    /// Least-squares fit of a symmetric FIR to (ideal / cascade) on a dense grid, relative error weighted,
    /// band above the accurate top weighted 1000× less.
    static func fitCorrection(cascade: IIRCascade, beta: Double, sampleRate: Double) -> [Double] {
        let m = firLength / 2
        let top = 2 * Double.pi * accurateBandTopHz(sampleRate: sampleRate) / sampleRate * 1.01
        let lowest = 2 * Double.pi * 15 / sampleRate
        let points = 3000
        var normal = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: m + 1)
        var rhs = [Double](repeating: 0, count: m + 1)
        var basis = [Double](repeating: 0, count: m + 1)
        for i in 0..<points {
            let omega = lowest + (0.999 * Double.pi - lowest) * Double(i) / Double(points - 1)
            let target = pow(omega / Double.pi, -beta / 2) / cascade.magnitude(omega: omega)
            let weight = (omega <= top ? 1.0 : 1e-3) / (target * target)
            basis[0] = 1
            for k in stride(from: 1, through: m, by: 1) { basis[k] = 2 * cos(Double(k) * omega) }
            for r in 0...m {
                rhs[r] += weight * basis[r] * target
                for c in 0...m { normal[r][c] += weight * basis[r] * basis[c] }
            }
        }
        let a = LinearAlgebra.solve(normal.flatMap { $0 }, rhs, size: m + 1)
        var taps = [Double](repeating: 0, count: 2 * m + 1)
        taps[m] = a[0]
        for k in stride(from: 1, through: m, by: 1) { taps[m + k] = a[k]; taps[m - k] = a[k] }
        return taps
    }

    /// Energy of the impulse response of cascade ∗ FIR (the output variance for unit-variance input).
    static func impulseEnergy(cascade: IIRCascade, fir: [Double]) -> Double {
        var system = cascade
        // The cascade's recent outputs, newest at `newest`, twice over (recent[i] = recent[i + taps]) so the
        // FIR reads them oldest first in one run without wrapping.
        let taps = fir.count
        var recent = [Double](repeating: 0, count: 2 * taps)
        var newest = taps - 1
        func firOutput(after v: Double) -> Double {
            newest = newest + 1 == taps ? 0 : newest + 1
            recent[newest] = v
            recent[newest + taps] = v
            var y = 0.0
            for t in 0..<taps { y += fir[t] * recent[newest + taps - t] }
            return y
        }
        var energy = 0.0, tail = 0.0
        var n = 0
        // Run until the last 10,000 samples carried less than 1e-15 of the energy.
        while true {
            let y = firOutput(after: system.step(n == 0 ? 1 : 0))
            energy += y * y
            tail += y * y
            n += 1
            if n % 10_000 == 0 {
                if n > 20_000 && tail <= 1e-15 * energy { break }
                tail = 0
            }
        }
        // Flush the FIR.
        for _ in 0..<taps {
            let y = firOutput(after: 0)
            energy += y * y
        }
        return energy
    }
}

private struct DesignKey: Hashable {
    let beta: Double
    let sampleRate: Double
}

/// Designs made so far (a few per process: one per colour and rate).
private let designCache = Locked<[DesignKey: NoiseShapingDesign]>([:])
