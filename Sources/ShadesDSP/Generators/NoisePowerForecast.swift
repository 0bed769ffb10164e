import ShadesPlatform

/// The power a coloured-noise stream (``NoiseSource``) will have over its first frames, forecast before it
/// is rendered, so a file can be written once at the gain that lands on the asked level.
///
/// A noise's measured power scatters around its expectation through its lowest octaves, which hold few
/// independent values (brown noise, 10 minutes at 48 kHz: 0.03 dB; 1 minute: 0.1 dB). Those octaves can
/// be seen at a low rate. The sums of the stream's white noise over blocks of `decimation` samples are a
/// white sequence at rate / `decimation` that holds the white noise's low band; the stream draws them
/// first, from a stream of their own (``BlockSummedWhiteNoise``), so the forecast draws them alone. The
/// same colour, designed at that rate, shapes them. The low-rate noise's power departs
/// from its expectation by a relative amount δ; the stream's departs by `slope` × δ, give or take
/// `residualScatter`.
///
/// `slope` and `residualScatter` come from the two spectra (Bendat & Piersol's variance of a mean square,
/// and its covariance between two noises made from one white noise). The stream's normalised one-sided
/// PSD is s_y over 0 … rate/2; the low-rate noise's is s_z over 0 … rate/(2·decimation); a block sum keeps
/// the fraction w(f) = (sin(πfD/fs) / (D sin(πf/fs)))² of the white noise at f, coherently. Then, for T
/// seconds:
/// - var δ_y = ∫s_y² / T, var δ_z = ∫s_z² / T, cov = ∫ s_y s_z w / T;
/// - `slope` = cov / var δ_z;
/// - `residualScatter` = √(var δ_y − cov² / var δ_z).
///
/// Against 100 renders of 5 s at 48 kHz (`NoiseShapingTests`) the forecast's error scattered as predicted
/// for pink noise and 27 % more for brown (0.0025 against 0.0020 of the power; not explained). Costs one
/// Gaussian value per block and filtering at the low rate.
package struct NoisePowerForecast: Sendable {
    /// The stream's design at the full rate.
    package let design: NoiseShapingDesign
    /// The same colour at rate / `decimation`.
    package let lowRateDesign: NoiseShapingDesign
    /// White-noise samples summed per low-rate sample: a power of two, the low rate 1 kHz or more (at most
    /// 256: a chunk of the stream gives the low-rate filters 16 samples or more).
    package let decimation: Int
    /// Frames the forecast covers: the stream's first frames, from its steady state.
    package let frames: Int
    /// How much of the low-rate noise's relative power departure the stream shares.
    package let slope: Double
    /// Standard deviation of the forecast's relative error (the stream's power over the forecast, minus 1).
    package let residualScatter: Double

    /// Lowest low rate, Hz: the decimation is the largest power of two that stays above it.
    static let lowestLowRateHz = 1_000.0

    /// White-noise samples per low-rate sample at `sampleRate`: the largest power of two up to 256 whose
    /// low rate stays at or above ``lowestLowRateHz`` (48 kHz: 32, a low rate of 1.5 kHz; 8 kHz: 8).
    package static func decimation(sampleRate: Double) -> Int {
        var decimation = 1
        while sampleRate / Double(2 * decimation) >= lowestLowRateHz && decimation < 256 { decimation *= 2 }
        return decimation
    }

    /// The forecast of the first `frames` frames of `colour` (β ≠ 0) at `sampleRate`.
    package init(colour: NoiseColour, sampleRate: Double, frames: Int) {
        precondition(colour.beta != 0, "white noise's power scatters too little to forecast")
        let decimation = Self.decimation(sampleRate: sampleRate)
        self.decimation = decimation
        self.frames = frames
        let design = NoiseShapingDesign.shared(colour: colour, sampleRate: sampleRate)
        let lowRateDesign = NoiseShapingDesign.shared(colour: colour, sampleRate: sampleRate / Double(decimation))
        (self.design, self.lowRateDesign) = (design, lowRateDesign)

        let lowNyquist = sampleRate / Double(2 * decimation)
        func density(_ d: NoiseShapingDesign, _ f: Double) -> Double { let m = d.magnitude(atFrequency: f); return m * m }
        func keptFraction(_ f: Double) -> Double {
            let d = Double(decimation)
            let ratio = sin(Double.pi * f * d / sampleRate) / (d * sin(Double.pi * f / sampleRate))
            return ratio * ratio
        }
        let stream = NoiseShapingDesign.logGridIntegrals(upTo: sampleRate / 2) { f in let s = density(design, f); return SIMD4(s, s * s, 0, 0) }
        let low = NoiseShapingDesign.logGridIntegrals(upTo: lowNyquist) { f in
            let (sy, sz) = (density(design, f), density(lowRateDesign, f))
            return SIMD4(sz, sz * sz, sy * sz * keptFraction(f), 0)
        }
        let varianceY = stream[1] / (stream[0] * stream[0])
        let varianceZ = low[1] / (low[0] * low[0])
        let covariance = low[2] / (stream[0] * low[0])
        slope = covariance / varianceZ
        let seconds = Double(frames) / sampleRate
        residualScatter = (max(0, varianceY - covariance * covariance / varianceZ) / seconds).squareRoot()
    }

    /// The stream's mean square over its first ``frames`` frames relative to its expectation (1: the asked
    /// level), for the white noise of `key`. The stream's block sums are drawn first, from a stream of their
    /// own (``BlockSummedWhiteNoise``): they are drawn again here, chunk by chunk as ``NoiseSource`` draws
    /// them (its warm-up, then the frames), shaped at the low rate by the stream's own Float filters and
    /// measured.
    package func relativePower(key: UInt64) -> Double {
        let sumsPerChunk = NoiseSource.chunkFrames / decimation
        let warmUpChunks = NoiseSource.warmUpSamples(sampleRate: design.sampleRate) / NoiseSource.chunkFrames
        let blocks = frames / decimation
        guard blocks > 0 else { return 1 }  // shorter than a block: nothing to forecast from
        var random = BlockSummedWhiteNoise.sumsRandom(key: key)
        let iir = BlockIIRFilter(cascade: IIRCascade(sections: lowRateDesign.sections))
        let fir = FIRFilter(taps: lowRateDesign.firTaps.map { Float($0 * lowRateDesign.normalisingGain) },
                            maximumFrames: sumsPerChunk)
        // Each block's sum over √decimation: the low-rate white noise, of unit variance.
        let sums = UnsafeMutableBufferPointer<Float>.allocate(capacity: sumsPerChunk)
        defer { sums.deallocate() }
        var sumOfSquares = 0.0
        var measured = 0
        var chunkIndex = 0
        while measured < blocks {
            WhiteNoise.fill(sums, distribution: .gaussian, random: &random)
            iir.process(sums)
            fir.process(sums)
            if chunkIndex >= warmUpChunks {
                let count = min(sumsPerChunk, blocks - measured)
                sumOfSquares += SignalLevel.sumOfSquares(UnsafeBufferPointer(rebasing: sums[0..<count]))
                measured += count
            }
            chunkIndex += 1
        }
        let departure = sumOfSquares / Double(blocks) - 1
        return 1 + slope * departure
    }
}
