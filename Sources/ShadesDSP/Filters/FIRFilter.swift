/// A short FIR filter run in Float over chunks, keeping its history between calls.
package final class FIRFilter {
    /// Coefficients, first tap applies to the newest sample.
    package let taps: [Float]
    private let history: Int
    private let capacity: Int
    /// 64-byte aligned: `lead` unused values, the history, then the current input, which starts aligned.
    private let storage: UnsafeMutablePointer<Float>
    private let work: UnsafeMutablePointer<Float>   // history followed by the current input
    private let coefficients: UnsafeMutablePointer<Float>

    /// A filter for inputs of at most `maximumFrames` per call.
    package init(taps: [Float], maximumFrames: Int) {
        precondition(!taps.isEmpty)
        self.taps = taps
        history = taps.count - 1
        let lead = (16 - history % 16) % 16
        capacity = history + maximumFrames + 8
        storage = UnsafeMutableRawPointer.allocate(byteCount: (lead + capacity) * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: lead + capacity)
        storage.initialize(repeating: 0, count: lead + capacity)
        work = storage + lead
        coefficients = .allocate(capacity: taps.count)
        coefficients.initialize(from: taps, count: taps.count)
        isSymmetricFifteen = taps.count == 15 && (0..<7).allSatisfy { taps[$0] == taps[14 - $0] }
    }

    deinit {
        storage.deallocate()
        coefficients.deallocate()
    }

    /// The inputs kept between calls (taps − 1, oldest first), for tests that inspect a long stream.
    package var historyValues: [Float] { Array(UnsafeBufferPointer(start: work, count: history)) }

    /// Filters `samples` in place (at most `maximumFrames`, a multiple of 8).
    package func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        process(into: samples) { input in _ = input.update(fromContentsOf: UnsafeBufferPointer(samples)) }
    }

    /// Filters `output.count` new samples (at most `maximumFrames`, a multiple of 8) into `output`, the
    /// input made by `makeInput` straight in the filter's own buffer (64-byte aligned): no copy in.
    package func process(into output: UnsafeMutableBufferPointer<Float>,
                         makeInput: (UnsafeMutableBufferPointer<Float>) -> Void) {
        let n = output.count
        precondition(n + history + 8 <= capacity && n % 8 == 0)
        guard let base = output.baseAddress else { return }
        makeInput(UnsafeMutableBufferPointer(start: work + history, count: n))
        if isSymmetricFifteen {
            Kernels.table.fir_symmetric15!(work, n, coefficients, base)
        } else {
            Kernels.table.fir_general!(work, n, coefficients, taps.count, base)
        }
        work.update(from: work + n, count: history)
    }

    /// The noise-shaping correction (15 symmetric taps) runs a kernel that adds mirrored inputs before
    /// multiplying (8 multiply-adds instead of 15).
    private let isSymmetricFifteen: Bool
}
