/// A linear IIR filter of up to 16 states run eight samples at a time in Float (block state-space form).
///
/// A per-sample recursion waits on its own previous output every sample; in block form the eight outputs
/// and the next state are matrix–vector products of the current state and eight inputs, so the work is
/// throughput-bound SIMD. The matrices come from simulating the Double reference cascade, so the block
/// filter is that cascade to Float precision.
public final class BlockIIRFilter {
    /// Samples per step.
    public static let blockFrames = 8
    /// Most states the kernel holds.
    public static let maximumStates = 16

    // Columns, each over 16 state lanes (lo = 0…7, hi = 8…15) or 8 output positions.
    private let stateFromState: UnsafeMutablePointer<SIMD16<Float>>   // Ā = A⁸, column per state
    private let stateFromInput: UnsafeMutablePointer<SIMD16<Float>>   // B̄, column per input position
    private let outputFromState: UnsafeMutablePointer<SIMD8<Float>>   // C̄, column per state
    private let outputFromInput: UnsafeMutablePointer<SIMD8<Float>>   // D̄, column per input position
    private var state = SIMD16<Float>()

    /// Builds the block matrices of `cascade` (which must have at most 16 states).
    public init(cascade: IIRCascade) {
        let n = cascade.stateCount
        precondition(n <= Self.maximumStates, "block IIR holds at most 16 states")
        stateFromState = .allocate(capacity: Self.maximumStates)
        stateFromState.initialize(repeating: .zero, count: Self.maximumStates)
        stateFromInput = .allocate(capacity: Self.blockFrames)
        outputFromState = .allocate(capacity: Self.maximumStates)
        outputFromState.initialize(repeating: .zero, count: Self.maximumStates)
        outputFromInput = .allocate(capacity: Self.blockFrames)

        func simulate(initialState: [Double], impulseAt: Int?) -> (state: SIMD16<Float>, outputs: SIMD8<Float>) {
            var system = cascade
            system.state = initialState
            var outputs = SIMD8<Float>()
            for j in 0..<Self.blockFrames { outputs[j] = Float(system.step(j == impulseAt ? 1 : 0)) }
            var final = SIMD16<Float>()
            for k in 0..<n { final[k] = Float(system.state[k]) }
            return (final, outputs)
        }
        let zero = [Double](repeating: 0, count: n)
        for k in 0..<n {
            var basis = zero
            basis[k] = 1
            let r = simulate(initialState: basis, impulseAt: nil)
            stateFromState[k] = r.state
            outputFromState[k] = r.outputs
        }
        for i in 0..<Self.blockFrames {
            let r = simulate(initialState: zero, impulseAt: i)
            stateFromInput[i] = r.state
            outputFromInput[i] = r.outputs
        }
    }

    deinit {
        stateFromState.deallocate()
        stateFromInput.deallocate()
        outputFromState.deallocate()
        outputFromInput.deallocate()
    }

    /// Clears the filter state.
    public func reset() { state = .zero }

    /// Filters `samples` in place; the count must be a multiple of 8.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        precondition(samples.count % Self.blockFrames == 0, "block IIR processes whole groups of 8")
        guard let base = samples.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        var s = state
        var offset = 0
        while offset < samples.count {
            let x = raw.loadUnaligned(fromByteOffset: offset * 4, as: SIMD8<Float>.self)
            var y = SIMD8<Float>()
            var next = SIMD16<Float>()
            for i in 0..<8 {
                y.addProduct(x[i], outputFromInput[i])
                next.addProduct(x[i], stateFromInput[i])
            }
            for k in 0..<16 {
                y.addProduct(s[k], outputFromState[k])
                next.addProduct(s[k], stateFromState[k])
            }
            raw.storeBytes(of: y, toByteOffset: offset * 4, as: SIMD8<Float>.self)
            s = next
            offset += 8
        }
        state = s
    }
}

extension SIMD where Scalar: FloatingPoint {
    /// self += a · b (fused).
    @inline(__always) mutating func addProduct(_ a: Scalar, _ b: Self) {
        self = self.addingProduct(a, b)
    }
}
