/// A cascade of IIR sections rewritten as a sum of first-order modes (partial fractions):
/// H(w) = direct + Σ rᵢ / (1 − pᵢ·w), w = z⁻¹, with complex poles in conjugate pairs.
///
/// In this form each state depends only on itself (or its conjugate partner), so a block of samples
/// updates the state with an elementwise multiply instead of a matrix product.
struct ModalSystem {
    /// One mode: a real pole, or a complex pole standing for itself and its conjugate.
    struct Mode {
        var pole: Complex
        var residue: Complex
        var isComplexPair: Bool { pole.imaginary != 0 }
    }

    var direct: Double
    var modes: [Mode]

    /// States used: one per real mode, two (real and imaginary part) per complex pair.
    var stateCount: Int { modes.reduce(0) { $0 + ($1.isComplexPair ? 2 : 1) } }

    /// The partial-fraction expansion of `sections` (every section proper with distinct, non-zero poles).
    init(sections: [IIRSection]) {
        var poles: [Complex] = []
        var leadingRatio = 1.0
        for s in sections {
            if s.order == 2 {
                // Roots of 1 + a1·w + a2·w² in terms of p = 1/w: p² + a1·p + a2 = 0.
                let discriminant = s.a1 * s.a1 - 4 * s.a2
                if discriminant < 0 {
                    let im = (-discriminant).squareRoot() / 2
                    poles.append(Complex(-s.a1 / 2, im))
                    poles.append(Complex(-s.a1 / 2, -im))
                } else {
                    let root = discriminant.squareRoot()
                    poles.append(Complex((-s.a1 + root) / 2, 0))
                    poles.append(Complex((-s.a1 - root) / 2, 0))
                }
                leadingRatio *= s.b2 / s.a2
            } else {
                poles.append(Complex(-s.a1, 0))
                leadingRatio *= s.b1 / s.a1
            }
        }
        // H(w) = N(w) / Π(1 − pᵢ w); residue rᵢ = N(1/pᵢ) / Π_{j≠i} (1 − pⱼ/pᵢ).
        func numerator(_ w: Complex) -> Complex {
            sections.reduce(Complex(1, 0)) { product, s in
                product * (Complex(s.b0, 0) + Complex(s.b1, 0) * w + Complex(s.b2, 0) * w * w)
            }
        }
        var modes: [Mode] = []
        for (i, p) in poles.enumerated() where p.imaginary >= 0 {
            let w = Complex(1, 0) / p
            var denominator = Complex(1, 0)
            for (j, q) in poles.enumerated() where j != i { denominator = denominator * (Complex(1, 0) - q * w) }
            modes.append(Mode(pole: p, residue: numerator(w) / denominator))
        }
        direct = leadingRatio
        self.modes = modes
    }

    /// Per-sample state update in Double (the reference the block kernel is built from).
    struct Runner {
        let system: ModalSystem
        var state: [Double]

        init(system: ModalSystem) {
            self.system = system
            state = [Double](repeating: 0, count: system.stateCount)
        }

        mutating func step(_ x: Double) -> Double {
            var y = system.direct * x
            var k = 0
            for mode in system.modes {
                if mode.isComplexPair {
                    let (u, v) = (state[k], state[k + 1])
                    let (pr, pi) = (mode.pole.real, mode.pole.imaginary)
                    state[k] = pr * u - pi * v + x
                    state[k + 1] = pi * u + pr * v
                    y += 2 * (mode.residue.real * state[k] - mode.residue.imaginary * state[k + 1])
                    k += 2
                } else {
                    state[k] = mode.pole.real * state[k] + x
                    y += mode.residue.real * state[k]
                    k += 1
                }
            }
            return y
        }
    }
}

/// Minimal complex arithmetic for filter design (Double).
struct Complex: Equatable {
    var real: Double
    var imaginary: Double
    init(_ real: Double, _ imaginary: Double) { (self.real, self.imaginary) = (real, imaginary) }

    static func + (a: Complex, b: Complex) -> Complex { Complex(a.real + b.real, a.imaginary + b.imaginary) }
    static func - (a: Complex, b: Complex) -> Complex { Complex(a.real - b.real, a.imaginary - b.imaginary) }
    static func * (a: Complex, b: Complex) -> Complex {
        Complex(a.real * b.real - a.imaginary * b.imaginary, a.real * b.imaginary + a.imaginary * b.real)
    }
    static func / (a: Complex, b: Complex) -> Complex {
        let d = b.real * b.real + b.imaginary * b.imaginary
        return Complex((a.real * b.real + a.imaginary * b.imaginary) / d, (a.imaginary * b.real - a.real * b.imaginary) / d)
    }
}
