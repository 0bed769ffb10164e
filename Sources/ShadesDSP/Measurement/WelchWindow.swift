import ShadesPlatform

/// Window and normalisation of the Welch estimates: a notch filter's input spectrum here, and ShadesAnalysis'
/// spectrum, tone, modulation, seam and notch measurements.
package enum WelchWindow {
    /// Fewest frames a Welch estimate accepts (one zero-padded Hann segment of them).
    package static let minimumFrameCount = 16

    /// Periodic Hann window of `n` samples: 0.5 − 0.5·cos(2πi/n).
    package static func hann(_ n: Int) -> [Float] {
        (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
    }

    /// Σw² in Double.
    package static func power(_ window: [Float]) -> Double {
        window.reduce(0.0) { $0 + Double($1) * Double($1) }
    }

    package static func powerOfTwo(atLeast n: Int) -> Int {
        var size = 2
        while size < n { size *= 2 }
        return size
    }

    /// Throws unless `frameCount` ≥ `minimum`.
    package static func checkShort(frameCount: Int, minimum: Int, parameter: ParameterID) throws(ShadesError) {
        if frameCount < minimum {
            throw ShadesError(parameter, .other(frameCount == 0 ? "is empty" : "is too short"), value: .number(Double(frameCount), .frames),
                              allowed: AllowedValues(range: .atLeast(Double(minimum), unit: .frames)))
        }
    }

    /// One-sided density from summed periodograms |X_k|² of `segments` windowed segments of FFT `size`.
    package static func density(sum: [Double], segments: Int, windowPower: Double, size: Int, sampleRate: Double) -> PowerSpectrum {
        let scale = 1 / (Double(segments) * windowPower * sampleRate)
        let density = sum.indices.map { k in
            (k == 0 || k == size / 2 ? 1.0 : 2.0) * sum[k] * scale
        }
        return PowerSpectrum(binWidthHz: sampleRate / Double(size), density: density)
    }
}
