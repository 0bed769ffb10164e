import CShadesKernels
import ShadesPlatform

/// The instruction sets Shades' C kernels are built for; the best one the CPU runs is used.
///
/// Every set gives the same samples to the bit (the kernels run the same IEEE operations in the same
/// order), so a file's bytes depend on its parameters and seed only, never on the CPU or the build.
package enum KernelSet: String, CaseIterable, Sendable {
    /// The compiler's default target: SSE2 on x86-64 (fused multiply-adds emulated exactly in Double
    /// lanes), NEON with FMA on arm64.
    case baseline
    /// x86-64 with AVX2 and FMA.
    case avx2
    /// x86-64 with AVX-512 F, VL, BW and DQ.
    case avx512

    var cValue: shades_kernel_set {
        switch self {
        case .baseline: SHADES_KERNELS_BASELINE
        case .avx2: SHADES_KERNELS_AVX2_FMA
        case .avx512: SHADES_KERNELS_AVX512
        }
    }

    /// True when this CPU runs the set.
    package var isAvailable: Bool { shades_kernels_for(cValue) != nil }

    /// The set in use: the environment variable `SHADES_KERNELS` (`baseline`, `avx2`, `avx512`) when it
    /// names one this CPU runs (for comparing them), otherwise the fastest.
    package static var active: KernelSet { Kernels.active }
}

/// The kernel table in use, chosen once.
package enum Kernels {
    static let active: KernelSet = {
        if let name = getenv("SHADES_KERNELS").map({ String(cString: $0) }), let set = KernelSet(rawValue: name),
           set.isAvailable {
            return set
        }
        switch shades_kernels_best() {
        case SHADES_KERNELS_AVX512: return .avx512
        case SHADES_KERNELS_AVX2_FMA: return .avx2
        default: return .baseline
        }
    }()

    /// The functions of ``active``.
    static let table: shades_kernels = shades_kernels_for(active.cValue)!.pointee

    /// `samples` × `gain`, in place: the same single multiply per sample in every kernel set.
    package static func scale(_ samples: UnsafeMutableBufferPointer<Float>, by gain: Float) {
        guard let base = samples.baseAddress else { return }
        table.scale!(base, samples.count, gain)
    }

    /// Two planes of 16-bit samples into `frames` interleaved stereo frames (left, right) at `output`.
    package static func interleaveStereo16(left: UnsafePointer<Int16>, right: UnsafePointer<Int16>, frames: Int,
                                           into output: UnsafeMutablePointer<Int16>) {
        table.interleave_stereo16!(left, right, frames, output)
    }

    /// Two planes of Floats into `frames` interleaved stereo frames (left, right) at `output`.
    package static func interleaveStereo(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int,
                                         into output: UnsafeMutablePointer<Float>) {
        table.interleave_stereo32!(left, right, frames, output)
    }

    /// SHA-256's compression of `count` 64-byte blocks at `blocks` into `state` (A … H) with the CPU's SHA
    /// extensions (`shades_sha256_blocks`); false, having done nothing, when it has none.
    package static func sha256Blocks(_ state: UnsafeMutablePointer<UInt32>, _ blocks: UnsafeRawPointer, count: Int) -> Bool {
        shades_sha256_blocks(state, blocks.assumingMemoryBound(to: UInt8.self), count) != 0
    }

    /// `frames` interleaved stereo frames of Floats at `input` into two planes.
    package static func deinterleaveStereo(_ input: UnsafePointer<Float>, frames: Int,
                                           left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        table.deinterleave_stereo32!(input, frames, left, right)
    }

    /// `frames` interleaved stereo frames of 16-bit samples at `input` into two planes of Floats, each
    /// times `scale` (a power of two, so exact: the same Floats as `Float(x) * scale`).
    package static func deinterleaveStereo16(_ input: UnsafePointer<Int16>, frames: Int, scale: Float,
                                             left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        table.deinterleave_stereo16!(input, frames, scale, left, right)
    }
}

extension LaneRandom {
    /// Lends the generator's state to a C kernel (the same 4 × 8 words as `shades_lane_random`).
    @inline(__always)
    mutating func withKernelState<R>(_ body: (UnsafeMutablePointer<shades_lane_random>) -> R) -> R {
        withUnsafeMutableBytes(of: &self) { raw in
            raw.withMemoryRebound(to: shades_lane_random.self) { body($0.baseAddress!) }
        }
    }
}

extension LaneRandom {
    /// `samples` × `scale` + TPDF dither of ±1 LSB from this stream, rounded to nearest and clamped to
    /// 16 bits into `output` (the first `samples.count` values); exact zeros stay zero. Returns the level of
    /// the values written: Σx² (exact) and the largest |x|, in full-scale units (32,768 = 1.0).
    @discardableResult
    package mutating func quantize16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                     into output: UnsafeMutableBufferPointer<Int16>) -> SignalMeasurement {
        var unused = 0.0, unusedPeak: Float = 0
        return quantize16(samples, scale: scale, into: output, inputSumOfSquares: &unused, inputPeak: &unusedPeak, measuring: false)
    }

    /// ``quantize16(_:scale:into:)`` that also adds `samples` to `input` as ``SignalMeasurement/add(_:)``
    /// would (the same sums, bit for bit), in the same pass over them.
    package mutating func quantize16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                     into output: UnsafeMutableBufferPointer<Int16>,
                                     measuringInput input: inout SignalMeasurement) -> SignalMeasurement {
        var chunkSumOfSquares = 0.0, chunkPeak: Float = 0
        let written = quantize16(samples, scale: scale, into: output, inputSumOfSquares: &chunkSumOfSquares,
                                 inputPeak: &chunkPeak, measuring: true)
        input.sumOfSquares += chunkSumOfSquares
        input.peak = max(input.peak, chunkPeak)
        return written
    }

    private mutating func quantize16(_ samples: UnsafeBufferPointer<Float>, scale: Float,
                                     into output: UnsafeMutableBufferPointer<Int16>, inputSumOfSquares: inout Double,
                                     inputPeak: inout Float, measuring: Bool) -> SignalMeasurement {
        precondition(output.count >= samples.count)
        guard let source = samples.baseAddress, let target = output.baseAddress else { return SignalMeasurement(sumOfSquares: 0, peak: 0) }
        var sumOfSquares: Int64 = 0
        var peak: Int32 = 0
        withKernelState { state in
            withUnsafeMutablePointer(to: &inputSumOfSquares) { inputSum in
                withUnsafeMutablePointer(to: &inputPeak) { inputLargest in
                    Kernels.table.quantize16!(source, samples.count, scale, target, state, &sumOfSquares, &peak,
                                              measuring ? inputSum : nil, measuring ? inputLargest : nil)
                }
            }
        }
        return SignalMeasurement(sumOfSquares: Double(sumOfSquares) / (32_768 * 32_768), peak: Float(peak) / 32_768)
    }
}
