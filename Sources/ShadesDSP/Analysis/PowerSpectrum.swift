import ShadesPlatform

/// A one-sided power spectral density: power per Hz in bins `binWidthHz` apart, bin 0 at DC.
package struct PowerSpectrum: Sendable {
    /// Frequency spacing of the bins, in Hz.
    package let binWidthHz: Double
    /// Power per Hz (full scale² / Hz), bins 0 … size/2. Integrating over all bins gives the mean square.
    package let density: [Double]

    /// A spectrum from its parts (e.g. the average of several channels' spectra).
    package init(binWidthHz: Double, density: [Double]) {
        self.binWidthHz = binWidthHz
        self.density = density
    }

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
        return PowerSpectrum(sum: power, segments: 1, normalisation: Double(samples.count), size: samples.count, sampleRate: sampleRate)
    }

    private init(sum: [Double], segments: Int, normalisation: Double, size: Int, sampleRate: Double) {
        binWidthHz = sampleRate / Double(size)
        // One-sided: double every bin but DC and Nyquist.
        density = sum.enumerated().map { k, p in
            let oneSided = (k == 0 || (size % 2 == 0 && k == size / 2)) ? 1.0 : 2.0
            return oneSided * p / (Double(max(segments, 1)) * normalisation * sampleRate)
        }
    }

    /// Power between `lowerHz` and `upperHz`, counting edge bins by the share of their width inside.
    package func bandPower(from lowerHz: Double, to upperHz: Double) -> Double {
        var power = 0.0
        let first = max(0, Int((lowerHz / binWidthHz - 0.5).rounded(.down)))
        let last = min(density.count - 1, Int((upperHz / binWidthHz + 0.5).rounded(.up)))
        guard first <= last else { return 0 }
        for k in first...last {
            let lo = (Double(k) - 0.5) * binWidthHz, hi = (Double(k) + 0.5) * binWidthHz
            let overlap = min(hi, upperHz) - max(lo, lowerHz)
            if overlap > 0 { power += density[k] * overlap }
        }
        return power
    }
}

/// Third-octave bands (IEC 61260, base 10): centre 1000·10^(n/10) Hz, edges centre·10^(±1/20).
package struct ThirdOctaveBand: Sendable, Equatable {
    /// Exact (not nominal) centre frequency, in Hz.
    package let centreHz: Double
    package var lowerEdgeHz: Double { centreHz * pow(10, -0.05) }
    package var upperEdgeHz: Double { centreHz * pow(10, 0.05) }

    /// The bands whose nominal centres lie in `range` (Hz), e.g. 20…20,000 gives the 31 audio bands
    /// (the exact centre of the "20 Hz" band is 19.95 Hz; bands are 26 % apart, so ±2 % is unambiguous).
    package static func bands(centredIn range: ClosedRange<Double>) -> [ThirdOctaveBand] {
        (-20...20).map { ThirdOctaveBand(centreHz: 1000 * pow(10, Double($0) / 10)) }
            .filter { $0.centreHz * 1.02 >= range.lowerBound && $0.centreHz / 1.02 <= range.upperBound }
    }
}

/// How far measured band powers stray from an ideal f^−β line, with the offset fitted.
package enum SpectralSlopeCheck {
    /// Power of f^−β integrated over [lower, upper] (any scale).
    package static func idealBandPower(beta: Double, lowerHz: Double, upperHz: Double) -> Double {
        if abs(beta - 1) < 1e-12 { return log(upperHz / lowerHz) }
        return (pow(upperHz, 1 - beta) - pow(lowerHz, 1 - beta)) / (1 - beta)
    }

    /// Per band: measured minus ideal level in dB, after removing the mean difference (fitted offset).
    package static func deviations(of spectrum: PowerSpectrum, beta: Double, bands: [ThirdOctaveBand]) -> [Double] {
        let raw = bands.map { band in
            Decibels.fromPower(spectrum.bandPower(from: band.lowerEdgeHz, to: band.upperEdgeHz))
                - Decibels.fromPower(idealBandPower(beta: beta, lowerHz: band.lowerEdgeHz, upperHz: band.upperEdgeHz))
        }
        let offset = raw.reduce(0, +) / Double(raw.count)
        return raw.map { $0 - offset }
    }
}
