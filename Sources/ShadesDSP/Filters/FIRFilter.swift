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
        // Sixteen outputs per step (one AVX-512 register), then eight; the same operations per output.
        let done = symmetricFifteen(SIMD16<Float>.self, from: 0, to: n - n % 16, into: out)
        _ = symmetricFifteen(SIMD8<Float>.self, from: done, to: n, into: out)
    }

    @inline(__always)
    private func symmetricFifteen<V: SIMD>(_: V.Type, from start: Int, to end: Int, into out: UnsafeMutableRawPointer) -> Int
        where V.Scalar == Float {
        let raw = UnsafeMutableRawPointer(work)
        let h0 = V(repeating: taps[0]), h1 = V(repeating: taps[1]), h2 = V(repeating: taps[2])
        let h3 = V(repeating: taps[3]), h4 = V(repeating: taps[4]), h5 = V(repeating: taps[5])
        let h6 = V(repeating: taps[6]), h7 = V(repeating: taps[7])
        @inline(__always) func at(_ i: Int) -> V { raw.loadUnaligned(fromByteOffset: i * 4, as: V.self) }
        var j = start
        while j < end {
            // Output j uses inputs j … j+14 of the work buffer (newest at j+14).
            var even = h7 * at(j + 7)
            var odd = h0 * (at(j) + at(j + 14))
            even = even.addingProduct(h1, at(j + 1) + at(j + 13))
            odd = odd.addingProduct(h2, at(j + 2) + at(j + 12))
            even = even.addingProduct(h3, at(j + 3) + at(j + 11))
            odd = odd.addingProduct(h4, at(j + 4) + at(j + 10))
            even = even.addingProduct(h5, at(j + 5) + at(j + 9))
            odd = odd.addingProduct(h6, at(j + 6) + at(j + 8))
            out.storeBytes(of: even + odd, toByteOffset: j * 4, as: V.self)
            j += V.scalarCount
        }
        return j
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
