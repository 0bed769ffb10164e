/// A long FIR streamed with no latency of its own and the same work in every partition of P frames: a
/// direct-form head for the first P taps and uniformly partitioned overlap-save (UPOLS) for the rest.
///
/// Output sample n is Σⱼ h[j]·x[n − j] (j = 0 … L − 1), available as soon as x[n] is: the head
/// Σ_{j<P} h[j]·x[n − j] is summed directly for every sample, and the tail Σ_{j≥P} h[j]·x[n − j] needs only
/// inputs up to the end of the previous partition, so it is computed there for the whole next partition
/// (Gardner 1995, "Efficient convolution without input-output delay", JAES 43:127; the tail's uniform
/// partitions and frequency-domain delay line as in Wefers 2015, "Partitioned convolution algorithms for
/// real-time auralization", ch. 5). At each partition boundary: one forward FFT of 2P, one spectral
/// product-sum over K = ⌈(L − P)/P⌉ kernel partitions, one inverse FFT of 2P. So a caller whose blocks
/// are about P frames (a 5–10 ms audio callback) does the same work in every call, unlike a single large
/// FFT block that is filtered all at once every few hundred milliseconds.
///
/// Partitions are aligned to the first sample, so the output does not depend on how the caller slices
/// its calls. All memory and the FFT plans are made in `init`; `process` allocates nothing and takes no
/// locks. Single precision throughout: against an exact convolution the error is the single-precision
/// FFT's rounding, about ε·log₂(2P) ≈ 1e-6 of the output's RMS (`PartitionedConvolutionTests` allows 2e-5).
package final class PartitionedConvolver {
    /// P: frames per partition (a power of two ≥ 8).
    package let partitionFrames: Int
    /// K: frequency-domain partitions after the head (0 when the kernel is no longer than P).
    package let partitionCount: Int
    /// L: taps of the kernel.
    package let tapCount: Int
    private let kernel: Kernel
    private let fft: RealFFT   // 2P
    private let inputSpectra: UnsafeMutablePointer<Float>   // K slots of kernel.floats: the last K input frames
    private let sums: UnsafeMutablePointer<Float>           // kernel.floats
    private let line: UnsafeMutablePointer<Float>           // 2P: the previous partition's inputs, then this one's
    private let tail: UnsafeMutablePointer<Float>           // P: the tail's output for this partition
    private var position = 0      // inputs of the current partition so far
    private var newest = 0        // slot of the newest input spectrum
    private var tailIsStale = false   // the tail of this partition was not computed (skipped input)

    /// The kernel's head taps (reversed) and its partitions' spectra, shared by filters of the same kernel.
    private final class Kernel {
        let head: UnsafeMutablePointer<Float>      // P taps, reversed: head[u] = h[P − 1 − u]
        let spectra: UnsafeMutablePointer<Float>   // K × floats, 1/(2P) folded in
        let floats: Int                            // 2(P + 1) rounded up to a multiple of 8
        let count: Int

        init(taps: [Float], partitionFrames p: Int, fft: RealFFT) {
            let k = (taps.count - 1) / p   // ⌈(L − P)/P⌉, 0 when L ≤ P
            count = k
            floats = (2 * (p + 1) + 7) / 8 * 8
            head = LargeAllocation.allocateFloats(p)
            for u in 0..<p { head[u] = p - 1 - u < taps.count ? taps[p - 1 - u] : 0 }
            spectra = LargeAllocation.allocateFloats(max(1, k * floats))
            spectra.initialize(repeating: 0, count: max(1, k * floats))
            let scale = 1 / Float(2 * p)
            for partition in 0..<k {
                fft.withSignal { frame in
                    frame.update(repeating: 0)
                    let first = p + partition * p
                    for i in 0..<min(p, taps.count - first) { frame[i] = taps[first + i] * scale }
                }
                fft.forward()
                fft.withSpectrum { bins in (spectra + partition * floats).update(from: bins.baseAddress!, count: bins.count) }
            }
        }

        deinit {
            LargeAllocation.free(head)
            LargeAllocation.free(spectra)
        }
    }

    /// A convolver for `taps` (h[0] first, applied to the newest sample) in partitions of `partitionFrames`.
    package init(taps: [Float], partitionFrames: Int) {
        precondition(partitionFrames >= 8 && partitionFrames & (partitionFrames - 1) == 0, "partitions must be a power of two ≥ 8")
        precondition(!taps.isEmpty)
        self.partitionFrames = partitionFrames
        tapCount = taps.count
        fft = RealFFT(size: 2 * partitionFrames)
        kernel = Kernel(taps: taps, partitionFrames: partitionFrames, fft: fft)
        partitionCount = kernel.count
        (inputSpectra, sums, line, tail) = Self.allocateState(kernel: kernel, partitionFrames: partitionFrames)
    }

    /// A convolver with `other`'s kernel (shared, not recomputed) and its own state, silent past.
    package init(sharingKernelOf other: PartitionedConvolver) {
        partitionFrames = other.partitionFrames
        tapCount = other.tapCount
        kernel = other.kernel
        partitionCount = other.partitionCount
        fft = RealFFT(size: 2 * partitionFrames)
        (inputSpectra, sums, line, tail) = Self.allocateState(kernel: kernel, partitionFrames: partitionFrames)
    }

    private static func allocateState(kernel: Kernel, partitionFrames p: Int)
        -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let spectra = LargeAllocation.allocateFloats(max(1, kernel.count * kernel.floats))
        spectra.initialize(repeating: 0, count: max(1, kernel.count * kernel.floats))
        let sums = LargeAllocation.allocateFloats(kernel.floats)
        sums.initialize(repeating: 0, count: kernel.floats)
        let line = LargeAllocation.allocateFloats(2 * p)
        line.initialize(repeating: 0, count: 2 * p)
        let tail = LargeAllocation.allocateFloats(p)
        tail.initialize(repeating: 0, count: p)
        return (spectra, sums, line, tail)
    }

    deinit {
        LargeAllocation.free(inputSpectra)
        LargeAllocation.free(sums)
        LargeAllocation.free(line)
        LargeAllocation.free(tail)
    }

    /// Filters `input` into `output` (the same count; they may be the same memory).
    package func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == output.count, "input and output must have the same count")
        let p = partitionFrames
        var done = 0
        while done < input.count {
            if tailIsStale { computeTail() }
            let n = min(input.count - done, p - position)
            // The inputs first (the buffers may be one), then the outputs from the line.
            (line + p + position).update(from: input.baseAddress! + done, count: n)
            let out = output.baseAddress! + done
            Kernels.table.dot_products!(line + position + 1, n, kernel.head, p, out)
            for i in 0..<n { out[i] += tail[position + i] }
            position += n
            done += n
            if position == p { endPartition(computingTail: true) }
        }
    }

    /// Takes `input` as if filtered, without computing its outputs (a pre-roll whose outputs are dropped):
    /// only the input spectra are transformed. The next ``process(_:into:)`` gives what it would have.
    package func skip(_ input: UnsafeBufferPointer<Float>) {
        let p = partitionFrames
        var done = 0
        while done < input.count {
            let n = min(input.count - done, p - position)
            (line + p + position).update(from: input.baseAddress! + done, count: n)
            position += n
            done += n
            if position == p { endPartition(computingTail: false) }
        }
    }

    /// The partition is complete: transform the last 2P inputs into the delay line, then (unless skipping)
    /// the tail's output for the next partition.
    private func endPartition(computingTail: Bool) {
        let p = partitionFrames
        position = 0
        if partitionCount > 0 {
            newest = (newest + 1) % partitionCount
            fft.withSignal { frame in frame.baseAddress!.update(from: line, count: 2 * p) }
            fft.forward()
            let slot = inputSpectra + newest * kernel.floats
            fft.withSpectrum { bins in slot.update(from: bins.baseAddress!, count: bins.count) }
        }
        line.update(from: line + p, count: p)
        if computingTail { computeTail() } else { tailIsStale = true }
    }

    /// tail[i] = Σ_{j≥P} h[j]·x[n − j] for the P samples of the current partition, from the delay line.
    private func computeTail() {
        tailIsStale = false
        let p = partitionFrames
        guard partitionCount > 0 else { return }
        Kernels.table.partition_sums!(inputSpectra, kernel.spectra, partitionCount, newest, kernel.floats, sums)
        fft.withSpectrum { bins in bins.baseAddress!.update(from: sums, count: bins.count) }
        fft.inverse()
        fft.withSignal { frame in tail.update(from: frame.baseAddress! + p, count: p) }
    }
}
