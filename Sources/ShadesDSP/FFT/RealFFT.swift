import CFFTW
/// FFTW planning is not thread-safe; every plan is made and destroyed under this lock. Executing is
/// lock-free.
private let planningLock = PosixLock()

/// A single-precision real FFT of one size, over buffers it owns (FFTW-aligned).
///
/// The only place that calls FFTW. `forward()` transforms ``withSignal(_:)``'s samples into
/// ``withSpectrum(_:)``'s bins; `inverse()` goes back (unnormalised, as FFTW: the result is `size` times
/// the input) and overwrites the spectrum. The spectrum is interleaved (re, im) for bins 0…size/2.
package final class RealFFT: @unchecked Sendable {
    /// Transform length in samples.
    package let size: Int
    /// Bins in the spectrum (size/2 + 1).
    package var binCount: Int { size / 2 + 1 }
    private let signal: UnsafeMutablePointer<Float>
    private let spectrum: UnsafeMutablePointer<fftwf_complex>
    private let forwardPlan: fftwf_plan
    private let inversePlan: fftwf_plan

    /// Plans transforms of `size` samples. `measure` spends time finding the fastest plan (worth it for
    /// transforms run many times).
    package init(size: Int, measure: Bool = false) {
        precondition(size >= 2, "FFT size must be at least 2")
        self.size = size
        let signal = fftwf_alloc_real(size)!
        let spectrum = fftwf_alloc_complex(size / 2 + 1)!
        let flags = UInt32(measure ? FFTW_MEASURE : FFTW_ESTIMATE)
        let n = Int32(size)
        (forwardPlan, inversePlan) = planningLock.withLock {
            (fftwf_plan_dft_r2c_1d(n, signal, spectrum, flags)!,
             fftwf_plan_dft_c2r_1d(n, spectrum, signal, flags | UInt32(FFTW_DESTROY_INPUT))!)
        }
        self.signal = signal
        self.spectrum = spectrum
        signal.initialize(repeating: 0, count: size)
        UnsafeMutableRawPointer(spectrum).bindMemory(to: Float.self, capacity: 2 * binCount)
            .initialize(repeating: 0, count: 2 * binCount)
    }

    deinit {
        planningLock.withLock {
            fftwf_destroy_plan(forwardPlan)
            fftwf_destroy_plan(inversePlan)
        }
        fftwf_free(signal)
        fftwf_free(spectrum)
    }

    /// Lends the time-domain buffer (`size` samples).
    package func withSignal<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: signal, count: size))
    }

    /// Lends the spectrum as interleaved (re, im) Floats, 2 × ``binCount`` of them.
    package func withSpectrum<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        let floats = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Float.self)
        return try body(UnsafeMutableBufferPointer(start: floats, count: 2 * binCount))
    }

    /// Signal → spectrum.
    package func forward() { fftwf_execute(forwardPlan) }

    /// Adds each bin's power |X[k]|² (in Double) to `sums[k]`, k = 0 … size/2: periodograms and their
    /// Welch sums.
    package func addBinPowers(to sums: inout [Double]) {
        precondition(sums.count == binCount, "one sum per bin")
        withSpectrum { bins in
            for k in 0..<binCount {
                let re = Double(bins[2 * k]), im = Double(bins[2 * k + 1])
                sums[k] += re * re + im * im
            }
        }
    }

    /// Spectrum → signal (unnormalised); the spectrum is destroyed.
    package func inverse() { fftwf_execute(inversePlan) }
}
