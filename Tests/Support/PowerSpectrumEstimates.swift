import ShadesAnalysis
import ShadesDSP

extension PowerSpectrum {
    /// Welch's method over a buffer in memory: Hann-windowed segments of `segmentLength` samples (a power
    /// of two) overlapping by half — ``SpectrumAccumulator`` fed the whole buffer at once.
    package static func welch(_ samples: UnsafeBufferPointer<Float>, sampleRate: Double,
                             segmentLength: Int = 65_536) throws(ShadesError) -> PowerSpectrum {
        var accumulator = try SpectrumAccumulator(sampleRate: sampleRate, segmentLength: segmentLength)
        accumulator.add(samples)
        return try accumulator.result()
    }

    /// The periodogram of the whole buffer with a rectangular window: exact for a signal periodic in its
    /// length (a loop).
    package static func periodogram(_ samples: UnsafeBufferPointer<Float>, sampleRate: Double) -> PowerSpectrum {
        let fft = RealFFT(size: samples.count)
        fft.withSignal { s in _ = s.update(fromContentsOf: samples) }
        fft.forward()
        var power = [Double](repeating: 0, count: fft.binCount)
        fft.addBinPowers(to: &power)
        let size = samples.count
        // One-sided: double every bin but DC and Nyquist.
        let density = power.enumerated().map { k, p in
            let oneSided = (k == 0 || (size % 2 == 0 && k == size / 2)) ? 1.0 : 2.0
            return oneSided * p / (Double(size) * sampleRate)
        }
        return PowerSpectrum(binWidthHz: sampleRate / Double(size), density: density)
    }
}
