import ShadesPlatform

/// One IIR section H(z) = (b0 + b1·z⁻¹ + b2·z⁻²) / (1 + a1·z⁻¹ + a2·z⁻²), coefficients in Double.
///
/// A first-order section has `b2 == 0` and `a2 == 0` and keeps one state instead of two.
package struct IIRSection: Sendable, Equatable {
    package var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double

    package init(b0: Double, b1: Double, b2: Double = 0, a1: Double, a2: Double = 0) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// States the section keeps (1 or 2).
    package var order: Int { (b2 == 0 && a2 == 0) ? 1 : 2 }

    /// (1 − zero·z⁻¹) / (1 − pole·z⁻¹): a real pole and a real zero.
    package static func poleZero(pole: Double, zero: Double) -> IIRSection {
        IIRSection(b0: 1, b1: -zero, a1: -pole)
    }

    /// Second-order high-pass (RBJ cookbook, bilinear with pre-warping) at `cutoffHz` with quality `q`.
    package static func highPass(cutoffHz: Double, q: Double, sampleRate: Double) -> IIRSection {
        let w0 = 2 * Double.pi * cutoffHz / sampleRate
        let cw = cos(w0), alpha = sin(w0) / (2 * q)
        let a0 = 1 + alpha
        return IIRSection(b0: (1 + cw) / 2 / a0, b1: -(1 + cw) / a0, b2: (1 + cw) / 2 / a0,
                          a1: -2 * cw / a0, a2: (1 - alpha) / a0)
    }

    /// Butterworth high-pass of even `order` as cascaded second-order sections.
    package static func butterworthHighPass(order: Int, cutoffHz: Double, sampleRate: Double) -> [IIRSection] {
        precondition(order > 0 && order % 2 == 0, "Butterworth order must be even")
        return (0..<order / 2).map { k in
            let theta = Double.pi * Double(2 * k + 1) / Double(2 * order)
            return highPass(cutoffHz: cutoffHz, q: 1 / (2 * sin(theta)), sampleRate: sampleRate)
        }
    }

    /// |H(e^{jω})| at normalised angular frequency ω (radians per sample).
    package func magnitude(omega: Double) -> Double { magnitude(at: UnitCirclePoint(omega: omega)) }

    /// |H(e^{jω})| at a point whose cosines and sines are computed already (shared by a cascade's sections).
    package func magnitude(at point: UnitCirclePoint) -> Double {
        let (c1, s1, c2, s2) = (point.cos1, point.sin1, point.cos2, point.sin2)
        let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1 + a2 * s2)
        return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
    }
}

/// A cascade of sections run sample by sample in Double: the reference the fast kernels are built from
/// and checked against (direct form II transposed).
package struct IIRCascade: Sendable {
    package let sections: [IIRSection]
    /// All section states, one or two per section in order.
    package var state: [Double]

    package init(sections: [IIRSection]) {
        self.sections = sections
        state = [Double](repeating: 0, count: sections.reduce(0) { $0 + $1.order })
    }

    /// Total states.
    package var stateCount: Int { state.count }

    /// Processes one sample.
    package mutating func step(_ input: Double) -> Double {
        var x = input
        var s = 0
        for section in sections {
            let y = section.b0 * x + state[s]
            if section.order == 2 {
                state[s] = section.b1 * x - section.a1 * y + state[s + 1]
                state[s + 1] = section.b2 * x - section.a2 * y
                s += 2
            } else {
                state[s] = section.b1 * x - section.a1 * y
                s += 1
            }
            x = y
        }
        return x
    }

    /// |H(e^{jω})| of the whole cascade.
    package func magnitude(omega: Double) -> Double {
        let point = UnitCirclePoint(omega: omega)
        return sections.reduce(1) { $0 * $1.magnitude(at: point) }
    }
}

/// cos ω, sin ω, cos 2ω and sin 2ω of a normalised angular frequency ω (radians per sample): what a section's
/// response needs, computed once for all the sections of a cascade (libm, the same values each time).
package struct UnitCirclePoint {
    package let cos1: Double, sin1: Double, cos2: Double, sin2: Double

    package init(omega: Double) {
        (cos1, sin1, cos2, sin2) = (cos(omega), sin(omega), cos(2 * omega), sin(2 * omega))
    }
}
