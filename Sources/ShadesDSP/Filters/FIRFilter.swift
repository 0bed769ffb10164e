/// A short FIR filter run in Float over chunks, keeping its history between calls.
public final class FIRFilter {
    /// Coefficients, first tap applies to the newest sample.
    public let taps: [Float]
    private let history: Int
    private let capacity: Int
    private let work: UnsafeMutablePointer<Float>   // history followed by the current input
    private let coefficients: UnsafeMutablePointer<Float>

    /// A filter for inputs of at most `maximumFrames` per call.
    public init(taps: [Float], maximumFrames: Int) {
        precondition(!taps.isEmpty)
        self.taps = taps
        history = taps.count - 1
        capacity = history + maximumFrames + 8
        work = .allocate(capacity: capacity)
        work.initialize(repeating: 0, count: capacity)
        coefficients = .allocate(capacity: taps.count)
        coefficients.initialize(from: taps, count: taps.count)
    }

    deinit {
        work.deallocate()
        coefficients.deallocate()
    }

    /// Filters `samples` in place (at most `maximumFrames`, a multiple of 8).
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        let n = samples.count
        precondition(n + history + 8 <= capacity && n % 8 == 0)
        guard let base = samples.baseAddress else { return }
        (work + history).update(from: base, count: n)
        let raw = UnsafeMutableRawPointer(work)
        let out = UnsafeMutableRawPointer(base)
        var j = 0
        while j < n {
            var y = SIMD8<Float>()
            for t in 0...history {
                let x = raw.loadUnaligned(fromByteOffset: (j + history - t) * 4, as: SIMD8<Float>.self)
                y.addProduct(coefficients[t], x)
            }
            out.storeBytes(of: y, toByteOffset: j * 4, as: SIMD8<Float>.self)
            j += 8
        }
        work.update(from: work + n, count: history)
    }
}
