/// A linear IIR filter of up to 16 states run eight samples at a time in Float (block modal form).
///
/// A per-sample recursion waits on its own previous output every sample. Here the cascade is first
/// rewritten as independent modes (``ModalSystem``); then eight outputs and the next state are computed
/// from the current state and eight inputs with SIMD multiply-adds. The state update is elementwise
/// (real modes) or a 2×2 rotation (complex pairs in neighbouring lanes), so the only matrix products are
/// the input and output maps. The block matrices are obtained by simulating the Double modal system, so
/// the kernel is the cascade to Float precision.
public final class BlockIIRFilter {
    /// Samples per step.
    public static let blockFrames = 8
    /// Most states the kernel holds.
    public static let maximumStates = 16

    private var stateDiagonal = SIMD16<Float>()   // A⁸ on the diagonal
    private var statePartner = SIMD16<Float>()    // A⁸ between the lanes of a complex pair
    private let stateFromInput: UnsafeMutablePointer<SIMD16<Float>>   // column per input position
    private let outputFromState: UnsafeMutablePointer<SIMD8<Float>>   // column per state
    private let outputFromInput: UnsafeMutablePointer<SIMD8<Float>>   // column per input position
    private var state = SIMD16<Float>()

    /// Builds the block matrices of `cascade` (whose modal form must have at most 16 states).
    public init(cascade: IIRCascade) {
        let system = ModalSystem(sections: cascade.sections)
        let n = system.stateCount
        precondition(n <= Self.maximumStates, "block IIR holds at most 16 states")
        stateFromInput = .allocate(capacity: Self.blockFrames)
        outputFromState = .allocate(capacity: Self.maximumStates)
        outputFromState.initialize(repeating: .zero, count: Self.maximumStates)
        outputFromInput = .allocate(capacity: Self.blockFrames)

        func simulate(initialState: [Double], impulseAt: Int?) -> (state: [Double], outputs: SIMD8<Float>) {
            var runner = ModalSystem.Runner(system: system)
            runner.state = initialState
            var outputs = SIMD8<Float>()
            for j in 0..<Self.blockFrames { outputs[j] = Float(runner.step(j == impulseAt ? 1 : 0)) }
            return (runner.state, outputs)
        }
        let zero = [Double](repeating: 0, count: n)
        for k in 0..<n {
            var basis = zero
            basis[k] = 1
            let r = simulate(initialState: basis, impulseAt: nil)
            outputFromState[k] = r.outputs
            // Modes are independent; a complex pair must sit in lanes (2m, 2m+1), which holds because the
            // high-pass sections come first in the cascade.
            for j in 0..<n where j != k && j != k ^ 1 { precondition(r.state[j] == 0, "modes must not couple") }
            stateDiagonal[k] = Float(r.state[k])
            // The partner lane of a complex pair is k ^ 1 (pairs start at even lanes, see below).
            if k ^ 1 < n { statePartner[k ^ 1] = Float(r.state[k ^ 1]) }
        }
        for i in 0..<Self.blockFrames {
            let r = simulate(initialState: zero, impulseAt: i)
            var column = SIMD16<Float>()
            for k in 0..<n { column[k] = Float(r.state[k]) }
            stateFromInput[i] = column
            outputFromInput[i] = r.outputs
        }
    }

    deinit {
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
        let diagonal = stateDiagonal, partner = statePartner
        var s = state
        var offset = 0
        while offset < samples.count {
            let x = raw.loadUnaligned(fromByteOffset: offset * 4, as: SIMD8<Float>.self)
            var y = SIMD8<Float>()
            // Lane k's partner is lane k ^ 1: swap neighbouring lanes.
            let swapped = SIMD16<Float>(s[1], s[0], s[3], s[2], s[5], s[4], s[7], s[6],
                                        s[9], s[8], s[11], s[10], s[13], s[12], s[15], s[14])
            var next = s * diagonal
            next.addProduct(swapped, partner)
            for i in 0..<8 {
                y.addProduct(x[i], outputFromInput[i])
                next.addProduct(x[i], stateFromInput[i])
            }
            for k in 0..<16 { y.addProduct(s[k], outputFromState[k]) }
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

    /// self += a · b elementwise (fused).
    @inline(__always) mutating func addProduct(_ a: Self, _ b: Self) {
        self = self.addingProduct(a, b)
    }
}
