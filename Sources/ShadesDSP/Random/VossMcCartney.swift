/// A 1/f ("pink") sequence of whole numbers by the Voss–McCartney method (R. F. Voss, described by
/// M. Gardner, "White and brown music, fractal curves and one-over-f fluctuations", Scientific American
/// 238(4), 1978; J. McCartney's variant updates one row per step): `rows` independent uniform integers in
/// 0 … `maximum`; at step n ≥ 1 the row numbered by the trailing zeros of n is drawn anew (row j every
/// 2^(j+1) steps, rows past the last never), and the value is the sum of the rows. Slow rows give the
/// long-range structure, fast rows the detail: the power spectrum of the sequence falls as 1/f over about
/// `rows` octaves below half the step rate (a white sequence is flat, a random walk falls as 1/f²).
///
/// Sequential: each value depends on the ones before. Drawn from a SplitMix64 stream, so it does not repeat
/// within 2^64 draws.
package struct VossMcCartneySequence: Sendable {
    /// Rows summed.
    package let rows: Int
    /// Largest value of a row (each row is uniform in 0 … maximum).
    package let maximum: Int
    private var values = SIMD16<Int>()  // rows 0 ..< rows; the rest stay 0 (no allocation per step)
    private var step = 0
    private var rng: SplitMix64

    /// - Parameters:
    ///   - rows: 1 … 16 rows (octaves of 1/f).
    ///   - maximum: each row's largest value (≥ 1).
    ///   - key: the stream key (a ``SeedStream`` key).
    package init(rows: Int, maximum: Int, key: UInt64) {
        precondition((1...16).contains(rows) && maximum >= 1)
        self.rows = rows
        self.maximum = maximum
        rng = SplitMix64(seed: key)
        for row in 0..<rows { values[row] = Self.draw(&rng, maximum: maximum) }
    }

    /// Largest value of the sum: rows × maximum.
    package var largestValue: Int { rows * maximum }

    /// The next value, 0 … ``largestValue``.
    package mutating func next() -> Int {
        if step > 0 {
            let row = step.trailingZeroBitCount
            if row < rows { values[row] = Self.draw(&rng, maximum: maximum) }
        }
        step += 1
        return values.wrappedSum()
    }

    /// Uniform in 0 … maximum (the modulo bias of a 64-bit word is below 10⁻¹⁷).
    private static func draw(_ rng: inout SplitMix64, maximum: Int) -> Int {
        Int(rng.next() % UInt64(maximum + 1))
    }
}
