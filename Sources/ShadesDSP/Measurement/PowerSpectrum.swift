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

extension PowerSpectrum {
    /// The bin-by-bin mean of spectra with the same bins (e.g. the channels of a file); nil if `spectra`
    /// is empty or their bins differ.
    public static func average(_ spectra: [PowerSpectrum]) -> PowerSpectrum? {
        guard let first = spectra.first,
              spectra.allSatisfy({ $0.binWidthHz == first.binWidthHz && $0.density.count == first.density.count })
        else { return nil }
        var density = first.density
        for spectrum in spectra.dropFirst() {
            for k in density.indices { density[k] += spectrum.density[k] }
        }
        let scale = 1 / Double(spectra.count)
        return PowerSpectrum(binWidthHz: first.binWidthHz, density: density.map { $0 * scale })
    }
}
