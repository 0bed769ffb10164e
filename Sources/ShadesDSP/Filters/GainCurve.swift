import ShadesPlatform

/// A gain over frequency given at points (Hz, dB): linear in log frequency between them, the nearest point's
/// gain beyond them. Hearing-loss shaping (an audiogram's thresholds through a fitting rule) and the
/// audiogram's own interpolation.
package struct GainCurve: Sendable, Equatable {
    /// The points' frequencies (Hz, increasing) and gains (dB).
    package let frequenciesHz: [Double]
    package let gainsDB: [Double]

    /// Points sorted by frequency; at least one.
    package init(frequenciesHz: [Double], gainsDB: [Double]) {
        precondition(!frequenciesHz.isEmpty && frequenciesHz.count == gainsDB.count, "one gain per frequency, at least one")
        let order = frequenciesHz.indices.sorted { frequenciesHz[$0] < frequenciesHz[$1] }
        (self.frequenciesHz, self.gainsDB) = (order.map { frequenciesHz[$0] }, order.map { gainsDB[$0] })
    }

    /// This curve plus `other`, dB: exact, as both are linear in log frequency between the union of their points.
    package func adding(_ other: GainCurve) -> GainCurve {
        let points = Array(Set(frequenciesHz + other.frequenciesHz)).sorted()
        return GainCurve(frequenciesHz: points, gainsDB: points.map { gainDB(atHz: $0) + other.gainDB(atHz: $0) })
    }

    /// This curve shifted so that its mean power gain from 0 to `topHz` is 1 (white noise through it keeps its
    /// power): the mean by the trapezoid rule on 20,000 points.
    package func normalisedToUnitPower(upToHz topHz: Double) -> GainCurve {
        let points = 20_000
        var sum = 0.0
        for i in 0...points {
            let p = Decibels.power(gainDB(atHz: topHz * Double(i) / Double(points)))
            sum += (i == 0 || i == points) ? p / 2 : p
        }
        let offset = Decibels.fromPower(sum / Double(points))
        return GainCurve(frequenciesHz: frequenciesHz, gainsDB: gainsDB.map { $0 - offset })
    }

    /// The gain at `frequencyHz`, dB (called once per FFT bin of a shaping design: no allocation).
    package func gainDB(atHz frequencyHz: Double) -> Double {
        Self.interpolate(frequenciesHz: frequenciesHz, values: gainsDB, atHz: frequencyHz)
    }

    /// `points` (frequency in Hz, value; sorted by frequency) at `frequencyHz`: linear in log frequency,
    /// constant beyond the ends.
    package static func interpolate(_ points: [(Double, Double)], atHz frequencyHz: Double) -> Double {
        interpolate(frequenciesHz: points.map(\.0), values: points.map(\.1), atHz: frequencyHz)
    }

    /// `values` at `frequenciesHz` (increasing) read at `frequencyHz`: linear in log frequency between the two
    /// points around it (found by bisection), constant beyond the ends.
    package static func interpolate(frequenciesHz: [Double], values: [Double], atHz frequencyHz: Double) -> Double {
        guard let first = frequenciesHz.first, let last = frequenciesHz.last else { return 0 }
        if frequencyHz <= first { return values[0] }
        if frequencyHz >= last { return values[values.count - 1] }
        // The first point at or above `frequencyHz`: in 1 ..< count, as the ends are handled above.
        var low = 0, upper = frequenciesHz.count - 1
        while upper - low > 1 {
            let middle = (low + upper) / 2
            if frequenciesHz[middle] >= frequencyHz { upper = middle } else { low = middle }
        }
        let (f0, v0) = (frequenciesHz[upper - 1], values[upper - 1]), (f1, v1) = (frequenciesHz[upper], values[upper])
        let t = log(frequencyHz / f0) / log(f1 / f0)
        return v0 + t * (v1 - v0)
    }
}

extension NotchDesign {
    /// A zero-phase FIR that applies `curve` (linear gain 10^(dB/20)): frequency sampling of the curve on a
    /// 8M-point grid (FFTW), the inverse transform's centre M taps each side, a Hann window. M = rate/`smoothingHz`
    /// rounded up to a multiple of 8 (by default 8,000 at 48 kHz): the window smooths the curve over about
    /// `smoothingHz` (6 Hz by default), so a curve given at audiometric frequencies (≥ 125 Hz) holds within about
    /// 0.1 dB across third-octave bands. Run like a notch (``NotchedSource``); ``idealGain(atFrequency:)`` is the
    /// curve's gain.
    package init(shaping curve: GainCurve, sampleRate: Double, smoothingHz: Double = 6) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        let m = 8 * Int((sampleRate / smoothingHz / 8).rounded(.up))
        var size = 1
        while size < 8 * m { size *= 2 }
        let fft = RealFFT(size: size)
        fft.withSpectrum { bins in
            for k in 0...(size / 2) {
                bins[2 * k] = Float(Decibels.amplitude(curve.gainDB(atHz: Double(k) * sampleRate / Double(size))) / Double(size))
                bins[2 * k + 1] = 0
            }
        }
        fft.inverse()
        let taps = fft.withSignal { signal in
            (0...m).map { k in Double(signal[k]) * 0.5 * (1 + cos(Double.pi * Double(k) / Double(m + 1))) }
        }
        self.init(sampleRate: sampleRate, halfTaps: taps, shaping: curve)
    }

    /// True for the one-tap identity (no notch, no shaping).
    package var isIdentity: Bool { halfTaps.count == 1 && halfTaps[0] == 1 }
}
