/// A linear IIR filter of up to 16 states run eight samples at a time in Float (block modal form), or
/// sixteen for filters of more than 8 states when the count allows.
///
/// A per-sample recursion waits on its own previous output every sample. Here the cascade is first
/// rewritten as independent modes (``ModalSystem``); then a step's outputs and the next state are computed
/// from the current state and the step's inputs with SIMD multiply-adds. The state update is elementwise
/// (real modes) or a 2×2 rotation (complex pairs in neighbouring lanes), so the only matrix products are
/// the input and output maps. The block matrices are obtained by simulating the Double modal system, so
/// the kernel is the cascade to Float precision.
package final class BlockIIRFilter {
    /// Samples per step.
    package static let blockFrames = 8
    /// Samples per step when a call's count is a multiple of it (noise chunks are).
    static let wideFrames = 16
    /// Most states the kernel holds.
    package static let maximumStates = 16

    private var stateDiagonal = SIMD16<Float>()   // A⁸ on the diagonal
    private var statePartner = SIMD16<Float>()    // A⁸ between the lanes of a complex pair
    private let stateFromInput: UnsafeMutablePointer<SIMD16<Float>>   // column per input position
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
    package init(cascade: IIRCascade) {
        let system = ModalSystem(sections: cascade.sections)
        let n = system.stateCount
        precondition(n <= Self.maximumStates, "block IIR holds at most 16 states")
        stateCount = n
        stateFromInput = .allocate(capacity: Self.blockFrames)
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
                    stateFromInput[i] = column
                    outputFromInput[i] = SIMD8(r.outputs)
                }
            }
        }
    }

    deinit {
        stateFromInput.deallocate()
        outputFromState.deallocate()
        outputFromInput.deallocate()
        wideStateFromInput.deallocate()
        wideOutputFromState.deallocate()
        wideOutputFromInput.deallocate()
    }

    /// Clears the filter state.
    package func reset() { state = .zero }

    /// The modal states between calls (unused lanes are 0), for tests that inspect a long stream.
    package var stateValues: [Float] { (0..<Self.maximumStates).map { state[$0] } }

    /// Filters `samples` in place; the count must be a multiple of 8 (the C kernels `block_iir_*`).
    package func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        precondition(samples.count % Self.blockFrames == 0, "block IIR processes whole groups of 8")
        guard let base = samples.baseAddress else { return }
        let n = samples.count
        if stateCount <= 8 {
            run(Kernels.table.block_iir_eight!, base, n, stateDiagonal, statePartner, stateFromInput, outputFromInput,
                outputFromState)
        } else if n % Self.wideFrames == 0 {
            // Steps of 16 samples (A¹⁶; outputs in 16 lanes): fewer broadcasts per sample. 10-minute stereo
            // pink: 0.176 s -> 0.168 s. Brown's 8-state kernel gained nothing from it.
            run(Kernels.table.block_iir_sixteen_wide!, base, n, wideDiagonal, widePartner, wideStateFromInput,
                wideOutputFromInput, wideOutputFromState)
        } else {
            run(Kernels.table.block_iir_sixteen!, base, n, stateDiagonal, statePartner, stateFromInput, outputFromInput,
                outputFromState)
        }
    }

    private typealias Kernel = @convention(c) (UnsafeMutablePointer<Float>?, Int, UnsafePointer<Float>?, UnsafePointer<Float>?,
                                               UnsafePointer<Float>?, UnsafePointer<Float>?, UnsafePointer<Float>?,
                                               UnsafeMutablePointer<Float>?) -> Void

    /// One kernel call with this step's matrices; the state goes in and comes back.
    @inline(__always)
    private func run<Step: SIMD>(_ kernel: Kernel, _ samples: UnsafeMutablePointer<Float>, _ count: Int,
                                 _ diagonal: SIMD16<Float>, _ partner: SIMD16<Float>,
                                 _ stateFromInput: UnsafeMutablePointer<SIMD16<Float>>,
                                 _ outputFromInput: UnsafeMutablePointer<Step>, _ outputFromState: UnsafeMutablePointer<Step>) {
        var diagonal = diagonal, partner = partner
        withUnsafeBytes(of: &diagonal) { d in
            withUnsafeBytes(of: &partner) { p in
                withUnsafeMutableBytes(of: &state) { s in
                    kernel(samples, count, d.assumingMemoryBound(to: Float.self).baseAddress,
                           p.assumingMemoryBound(to: Float.self).baseAddress,
                           UnsafeRawPointer(stateFromInput).assumingMemoryBound(to: Float.self),
                           UnsafeRawPointer(outputFromInput).assumingMemoryBound(to: Float.self),
                           UnsafeRawPointer(outputFromState).assumingMemoryBound(to: Float.self),
                           s.assumingMemoryBound(to: Float.self).baseAddress)
                }
            }
        }
    }
}
