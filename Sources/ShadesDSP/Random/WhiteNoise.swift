/// Sample distribution of white noise.
public enum WhiteDistribution: String, CaseIterable, Sendable, Codable {
    /// Normal distribution (default): what a sum of many independent sources gives.
    case gaussian
    /// Uniform on [−√3, √3].
    case uniform
}

/// Unit-variance white-noise kernels over SIMD lanes. Deterministic to the bit on every platform:
/// only IEEE-exact operations (fused multiply-adds included) and fixed polynomials, no libm calls.
public enum WhiteNoise {
    /// Fills `output` (a multiple of 16 samples) with unit-variance white noise drawn from `random`.
    public static func fill(_ output: UnsafeMutableBufferPointer<Float>, distribution: WhiteDistribution,
                            random: inout LaneRandom) {
        precondition(output.count % 16 == 0, "white noise fills whole groups of 16 samples")
        guard let base = output.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        switch distribution {
        case .gaussian:
            var i = 0
            while i < output.count {
                let (a, b) = gaussianPair(random.next(), random.next())
                raw.storeBytes(of: a, toByteOffset: i * 4, as: SIMD8<Float>.self)
                raw.storeBytes(of: b, toByteOffset: (i + 8) * 4, as: SIMD8<Float>.self)
                i += 16
            }
        case .uniform:
            var i = 0
            while i < output.count {
                // 23 random bits → [2, 4) → centred on 0 in (−1, 1) → unit variance.
                let u = unsafeBitCast((random.next() &>> 9) | 0x4000_0000, to: SIMD8<Float>.self) - (3 - 0.5 / 4_194_304)
                raw.storeBytes(of: u * 1.732_050_8, toByteOffset: i * 4, as: SIMD8<Float>.self)
                i += 8
            }
        }
    }

    /// Exact Float of integers below 2²³ (bit construction: SIMD int→float conversion is not inlined).
    @inline(__always) static func floatOfSmall(_ x: SIMD8<UInt32>) -> SIMD8<Float> {
        unsafeBitCast(x | 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_608
    }

    /// √x for x ≥ 0 from IEEE-exact operations only (bit-hack guess + 2 Newton steps, relative error
    /// below 5e-6: a Gaussian sample off by a millionth of itself, far below any measurable effect).
    @inline(__always) static func squareRoot(_ x: SIMD8<Float>) -> SIMD8<Float> {
        var y = unsafeBitCast(0x5F37_59DF &- (unsafeBitCast(x, to: SIMD8<UInt32>.self) &>> 1), to: SIMD8<Float>.self)
        let half = x * 0.5
        for _ in 0..<2 { y = y * SIMD8(repeating: 1.5).addingProduct(-(half * y), y) }
        return x * y
    }

    /// Box–Muller: two words of uniforms → 16 independent standard normal samples.
    @inline(__always) static func gaussianPair(_ w1: SIMD8<UInt32>, _ w2: SIMD8<UInt32>) -> (SIMD8<Float>, SIMD8<Float>) {
        // u1 in (0, 1) from all 32 bits (two exact 16-bit halves): the radius reaches 6.7 σ.
        let u1 = ((floatOfSmall(w1 & 0xFFFF) + 0.5) * (1 / 4_294_967_296)).addingProduct(floatOfSmall(w1 &>> 16), 1 / 65_536)
        let radius = squareRoot(-2 * logOfUnitInterval(u1))
        let (x, y) = unitPhasors(w2)
        return (radius * x, radius * y)
    }

    /// Natural log for x in (0, 1], relative error below 1e-7 (atanh series on [√½, √2)).
    @inline(__always) static func logOfUnitInterval(_ x: SIMD8<Float>) -> SIMD8<Float> {
        // Branch-free range reduction: x = m·2^e with m in [√½, √2).
        let offset = SIMD8<Int32>(repeating: 0x3F35_04F3)  // bit pattern of √½
        let shifted = unsafeBitCast(x, to: SIMD8<Int32>.self) &- offset
        let exponent = floatOfSmall(SIMD8<UInt32>(truncatingIfNeeded: (shifted &>> 23) &+ 0x40_0000)) - 4_194_304
        let mantissa = unsafeBitCast((shifted & 0x7F_FFFF) &+ offset, to: SIMD8<Float>.self)
        let t = (mantissa - 1) / (mantissa + 1)
        let t2 = t * t
        var series = SIMD8<Float>(repeating: 1.0 / 9)
        series = SIMD8(repeating: 1.0 / 7).addingProduct(series, t2)
        series = SIMD8(repeating: 1.0 / 5).addingProduct(series, t2)
        series = SIMD8(repeating: 1.0 / 3).addingProduct(series, t2)
        series = SIMD8(repeating: 1).addingProduct(series, t2)
        return (2 * t * series).addingProduct(exponent, 0.693_147_18)
    }

    /// sin and cos for |φ| ≤ π/4 (Taylor to φ⁹/φ¹⁰, error below 3e-8).
    @inline(__always) static func sinCosSmall(_ phi: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
        let p2 = phi * phi
        var s = SIMD8<Float>(repeating: 1.0 / 362_880)
        s = SIMD8(repeating: -1.0 / 5_040).addingProduct(s, p2)
        s = SIMD8(repeating: 1.0 / 120).addingProduct(s, p2)
        s = SIMD8(repeating: -1.0 / 6).addingProduct(s, p2)
        s = SIMD8(repeating: 1).addingProduct(s, p2)
        var c = SIMD8<Float>(repeating: -1.0 / 3_628_800)
        c = SIMD8(repeating: 1.0 / 40_320).addingProduct(c, p2)
        c = SIMD8(repeating: -1.0 / 720).addingProduct(c, p2)
        c = SIMD8(repeating: 1.0 / 24).addingProduct(c, p2)
        c = SIMD8(repeating: -0.5).addingProduct(c, p2)
        c = SIMD8(repeating: 1).addingProduct(c, p2)
        return (phi * s, c)
    }

    /// Eight points uniformly distributed on the unit circle: (cos θ, sin θ).
    ///
    /// The low 2 bits of each word pick a quadrant, the top 23 the angle inside it; the quarter-turn
    /// rotation is done with bit operations (a masked select would run lane by lane).
    @inline(__always) public static func unitPhasors(_ words: SIMD8<UInt32>) -> (SIMD8<Float>, SIMD8<Float>) {
        let fraction = SIMD8<Float>(repeating: 0.5 / 8_388_608).addingProduct(floatOfSmall(words &>> 9), 1 / 8_388_608)
        let (s, c) = sinCosSmall((fraction - 0.5) * (Float.pi / 2))
        let quadrant = words & 3
        // Odd quadrants swap cos and sin; quadrants 1, 2 negate x; quadrants 2, 3 negate y.
        let swap = SIMD8<UInt32>.zero &- (quadrant & 1)
        let cBits = unsafeBitCast(c, to: SIMD8<UInt32>.self), sBits = unsafeBitCast(s, to: SIMD8<UInt32>.self)
        let xBits = cBits ^ ((cBits ^ sBits) & swap)
        let yBits = sBits ^ ((cBits ^ sBits) & swap)
        let xSign = ((quadrant &+ 1) & 2) &<< 30
        let ySign = (quadrant & 2) &<< 30
        return (unsafeBitCast(xBits ^ xSign, to: SIMD8<Float>.self), unsafeBitCast(yBits ^ ySign, to: SIMD8<Float>.self))
    }
}
