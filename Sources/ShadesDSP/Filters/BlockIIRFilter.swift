/// A linear IIR filter of up to 16 states run eight samples at a time in Float (block modal form), or
/// sixteen for filters of more than 8 states when the count allows.
///
/// A per-sample recursion waits on its own previous output every sample. Here the cascade is first
/// rewritten as independent modes (``ModalSystem``); then a step's outputs and the next state are computed
/// from the current state and the step's inputs with SIMD multiply-adds. The state update is elementwise
/// (real modes) or a 2×2 rotation (complex pairs in neighbouring lanes), so the only matrix products are
/// the input and output maps. The block matrices are obtained by simulating the Double modal system, so
/// the kernel is the cascade to Float precision.
public final class BlockIIRFilter {
    /// Samples per step.
    public static let blockFrames = 8
    /// Samples per step when a call's count is a multiple of it (noise chunks are).
    static let wideFrames = 16
    /// Most states the kernel holds.
    public static let maximumStates = 16

    private var stateDiagonal = SIMD16<Float>()   // A⁸ on the diagonal
    private var statePartner = SIMD16<Float>()    // A⁸ between the lanes of a complex pair
    private let stateFromInput: UnsafeMutablePointer<SIMD16<Float>>   // column per input position
    private let stateFromInputLow: UnsafeMutablePointer<SIMD8<Float>>  // the same, states 0…7 only
    private let outputFromState: UnsafeMutablePointer<SIMD8<Float>>   // column per state
    private let outputFromInput: UnsafeMutablePointer<SIMD8<Float>>   // column per input position
    // The same for steps of 16 samples (A¹⁶; outputs in 16 lanes): fewer broadcasts per sample.
    private var wideDiagonal = SIMD16<Float>(), widePartner = SIMD16<Float>()
    private let wideStateFromInput: UnsafeMutablePointer<SIMD16<Float>>    // column per input position
    private let wideOutputFromState: UnsafeMutablePointer<SIMD16<Float>>   // column per state
    private let wideOutputFromInput: UnsafeMutablePointer<SIMD16<Float>>   // column per input position
    private var state = SIMD16<Float>()
    /// States in use: filters with up to 8 (brown, violet and their neighbours) run a half-width kernel.
    private let stateCount: Int

    /// Builds the block matrices of `cascade` (whose modal form must have at most 16 states).
    public init(cascade: IIRCascade) {
        let system = ModalSystem(sections: cascade.sections)
        let n = system.stateCount
        precondition(n <= Self.maximumStates, "block IIR holds at most 16 states")
        stateCount = n
        stateFromInput = .allocate(capacity: Self.blockFrames)
        stateFromInputLow = .allocate(capacity: Self.blockFrames)
        outputFromState = .allocate(capacity: Self.maximumStates)
        outputFromState.initialize(repeating: .zero, count: Self.maximumStates)
        outputFromInput = .allocate(capacity: Self.blockFrames)
        wideStateFromInput = .allocate(capacity: Self.wideFrames)
        wideOutputFromState = .allocate(capacity: Self.maximumStates)
        wideOutputFromState.initialize(repeating: .zero, count: Self.maximumStates)
        wideOutputFromInput = .allocate(capacity: Self.wideFrames)

        func simulate(frames: Int, initialState: [Double], impulseAt: Int?) -> (state: [Double], outputs: [Float]) {
            var runner = ModalSystem.Runner(system: system)
            runner.state = initialState
            let outputs = (0..<frames).map { j in Float(runner.step(j == impulseAt ? 1 : 0)) }
            return (runner.state, outputs)
        }
        let zero = [Double](repeating: 0, count: n)
        for (frames, wide) in [(Self.blockFrames, false), (Self.wideFrames, true)] {
            var diagonal = SIMD16<Float>(), partner = SIMD16<Float>()
            for k in 0..<n {
                var basis = zero
                basis[k] = 1
                let r = simulate(frames: frames, initialState: basis, impulseAt: nil)
                if wide { wideOutputFromState[k] = SIMD16(r.outputs) } else { outputFromState[k] = SIMD8(r.outputs) }
                // Modes are independent; a complex pair must sit in lanes (2m, 2m+1), which holds because
                // the high-pass sections come first in the cascade.
                for j in 0..<n where j != k && j != k ^ 1 { precondition(r.state[j] == 0, "modes must not couple") }
                diagonal[k] = Float(r.state[k])
                // The partner lane of a complex pair is k ^ 1 (pairs start at even lanes, see below).
                if k ^ 1 < n { partner[k ^ 1] = Float(r.state[k ^ 1]) }
            }
            if wide { (wideDiagonal, widePartner) = (diagonal, partner) } else { (stateDiagonal, statePartner) = (diagonal, partner) }
            for i in 0..<frames {
                let r = simulate(frames: frames, initialState: zero, impulseAt: i)
                var column = SIMD16<Float>()
                for k in 0..<n { column[k] = Float(r.state[k]) }
                if wide {
                    wideStateFromInput[i] = column
                    wideOutputFromInput[i] = SIMD16(r.outputs)
                } else {
                    (stateFromInput[i], stateFromInputLow[i]) = (column, column.lowHalf)
                    outputFromInput[i] = SIMD8(r.outputs)
                }
            }
        }
    }

    deinit {
        stateFromInput.deallocate()
        stateFromInputLow.deallocate()
        outputFromState.deallocate()
        outputFromInput.deallocate()
        wideStateFromInput.deallocate()
        wideOutputFromState.deallocate()
        wideOutputFromInput.deallocate()
    }

    /// Clears the filter state.
    public func reset() { state = .zero }

    /// Filters `samples` in place; the count must be a multiple of 8.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        precondition(samples.count % Self.blockFrames == 0, "block IIR processes whole groups of 8")
        if stateCount <= 8 {
            processEight(samples)
        } else if samples.count % Self.wideFrames == 0 {
            processSixteenWide(samples)
        } else {
            processSixteen(samples)
        }
    }

    // Both kernels keep the loop-carried path short: the input terms of the next state are summed first
    // (they do not depend on the state), and the state enters last through two multiply-adds. Outputs
    // are summed in independent partial sums. Waiting on long chains was 3× slower.

    private func processSixteen(_ samples: UnsafeMutableBufferPointer<Float>) {
        processSixteenStates(samples, steps: SIMD8<Float>.self, diagonal: stateDiagonal, partner: statePartner,
                             stateFromInput: stateFromInput, outputFromInput: outputFromInput, outputFromState: outputFromState)
    }

    // Steps of 16 samples for filters of more than 8 states (pink and its neighbours): 16 outputs per
    // multiply-add instead of 8, half the state broadcasts per sample (AVX-512 holds a step in one
    // register). 10-minute stereo pink: 0.176 s -> 0.168 s. Brown's 8-state kernel gained nothing from it.
    private func processSixteenWide(_ samples: UnsafeMutableBufferPointer<Float>) {
        processSixteenStates(samples, steps: SIMD16<Float>.self, diagonal: wideDiagonal, partner: widePartner,
                             stateFromInput: wideStateFromInput, outputFromInput: wideOutputFromInput,
                             outputFromState: wideOutputFromState)
    }

    /// The 16-state kernel, one `Step` of samples (8 or 16) per iteration, with that step's matrices.
    @inline(__always)
    private func processSixteenStates<Step: SIMD>(
        _ samples: UnsafeMutableBufferPointer<Float>, steps: Step.Type, diagonal: SIMD16<Float>, partner: SIMD16<Float>,
        stateFromInput: UnsafeMutablePointer<SIMD16<Float>>, outputFromInput: UnsafeMutablePointer<Step>,
        outputFromState: UnsafeMutablePointer<Step>
    ) where Step.Scalar == Float {
        guard let base = samples.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        let frames = Step.scalarCount
        var s = state
        var offset = 0
        while offset < samples.count {
            let x = raw.loadUnaligned(fromByteOffset: offset * 4, as: Step.self)
            var inputEven = x[0] * stateFromInput[0], inputOdd = x[1] * stateFromInput[1]
            var yEven = x[0] * outputFromInput[0], yOdd = x[1] * outputFromInput[1]
            for i in stride(from: 2, to: frames, by: 2) {
                inputEven.addProduct(x[i], stateFromInput[i]); inputOdd.addProduct(x[i + 1], stateFromInput[i + 1])
                yEven.addProduct(x[i], outputFromInput[i]); yOdd.addProduct(x[i + 1], outputFromInput[i + 1])
            }
            var yStateEven = s[0] * outputFromState[0], yStateOdd = s[1] * outputFromState[1]
            for k in stride(from: 2, to: 16, by: 2) {
                yStateEven.addProduct(s[k], outputFromState[k]); yStateOdd.addProduct(s[k + 1], outputFromState[k + 1])
            }
            // Lane k's partner is lane k ^ 1: swap neighbouring lanes.
            let swapped = SIMD16<Float>(s[1], s[0], s[3], s[2], s[5], s[4], s[7], s[6],
                                        s[9], s[8], s[11], s[10], s[13], s[12], s[15], s[14])
            let next = (inputEven + inputOdd).addingProduct(s, diagonal).addingProduct(swapped, partner)
            raw.storeBytes(of: (yEven + yOdd) + (yStateEven + yStateOdd), toByteOffset: offset * 4, as: Step.self)
            s = next
            offset += frames
        }
        state = s
    }

    /// The same with the state in one 8-lane vector.
    private func processEight(_ samples: UnsafeMutableBufferPointer<Float>) {
        guard let base = samples.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        let diagonal = stateDiagonal.lowHalf, partner = statePartner.lowHalf
        let fromInput = stateFromInputLow
        var s = state.lowHalf
        var offset = 0
        while offset < samples.count {
            let x = raw.loadUnaligned(fromByteOffset: offset * 4, as: SIMD8<Float>.self)
            var inputEven = x[0] * fromInput[0], inputOdd = x[1] * fromInput[1]
            var yEven = x[0] * outputFromInput[0], yOdd = x[1] * outputFromInput[1]
            for i in stride(from: 2, to: 8, by: 2) {
                inputEven.addProduct(x[i], fromInput[i]); inputOdd.addProduct(x[i + 1], fromInput[i + 1])
                yEven.addProduct(x[i], outputFromInput[i]); yOdd.addProduct(x[i + 1], outputFromInput[i + 1])
            }
            var yStateEven = s[0] * outputFromState[0], yStateOdd = s[1] * outputFromState[1]
            for k in stride(from: 2, to: 8, by: 2) {
                yStateEven.addProduct(s[k], outputFromState[k]); yStateOdd.addProduct(s[k + 1], outputFromState[k + 1])
            }
            let swapped = SIMD8<Float>(s[1], s[0], s[3], s[2], s[5], s[4], s[7], s[6])
            let next = (inputEven + inputOdd).addingProduct(s, diagonal).addingProduct(swapped, partner)
            raw.storeBytes(of: (yEven + yOdd) + (yStateEven + yStateOdd), toByteOffset: offset * 4, as: SIMD8<Float>.self)
            s = next
            offset += 8
        }
        state = SIMD16(lowHalf: s, highHalf: .zero)
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
