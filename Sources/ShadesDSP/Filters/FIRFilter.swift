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
        isSymmetricFifteen = taps.count == 15 && (0..<7).allSatisfy { taps[$0] == taps[14 - $0] }
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
        if isSymmetricFifteen {
            processSymmetricFifteen(n: n, into: UnsafeMutableRawPointer(base))
        } else {
            processGeneral(n: n, into: UnsafeMutableRawPointer(base))
        }
        work.update(from: work + n, count: history)
    }

    /// The noise-shaping correction: 15 symmetric taps, run with taps held in registers and mirrored
    /// inputs added before multiplying (8 multiply-adds instead of 15).
    private let isSymmetricFifteen: Bool

    private func processSymmetricFifteen(n: Int, into out: UnsafeMutableRawPointer) {
        let raw = UnsafeMutableRawPointer(work)
        let h0 = SIMD8(repeating: taps[0]), h1 = SIMD8(repeating: taps[1]), h2 = SIMD8(repeating: taps[2])
        let h3 = SIMD8(repeating: taps[3]), h4 = SIMD8(repeating: taps[4]), h5 = SIMD8(repeating: taps[5])
        let h6 = SIMD8(repeating: taps[6]), h7 = SIMD8(repeating: taps[7])
        @inline(__always) func at(_ i: Int) -> SIMD8<Float> { raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) }
        var j = 0
        while j < n {
            // Output j uses inputs j … j+14 of the work buffer (newest at j+14).
            var even = h7 * at(j + 7)
            var odd = h0 * (at(j) + at(j + 14))
            even.addProduct(h1, at(j + 1) + at(j + 13))
            odd.addProduct(h2, at(j + 2) + at(j + 12))
            even.addProduct(h3, at(j + 3) + at(j + 11))
            odd.addProduct(h4, at(j + 4) + at(j + 10))
            even.addProduct(h5, at(j + 5) + at(j + 9))
            odd.addProduct(h6, at(j + 6) + at(j + 8))
            out.storeBytes(of: even + odd, toByteOffset: j * 4, as: SIMD8<Float>.self)
            j += 8
        }
    }

    private func processGeneral(n: Int, into out: UnsafeMutableRawPointer) {
        let raw = UnsafeMutableRawPointer(work)
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
    }
}
