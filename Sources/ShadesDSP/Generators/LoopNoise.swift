/// Seamless loops of coloured noise by FFT synthesis over the whole loop.
///
/// Every bin from 1 to Nyquist gets the exact magnitude of the ideal colour (f^(−β/2) with the same 8 Hz
/// infrasonic high-pass as the stream) and a uniformly random phase; DC is zero. The inverse FFT of the
/// whole length is periodic by construction, so the step from the last sample back to the first is
/// like any other, and its spectrum is the ideal line exactly. White noise needs no shaping: its samples
/// are independent, so any stretch of the stream already loops seamlessly.
///
/// Synthesis holds the loop and its spectrum in memory (about 12 bytes per frame and signal), so it is
/// kept for loops up to ``largestSynthesisFrames``; longer loops of coloured noise are streamed as
/// periodic noise (``NoiseSource`` with a period), grey and narrow-band loops that long are refused.
package enum LoopNoise {
    /// The longest loop synthesised whole: 2²³ frames (174.8 s at 48 kHz, 87.4 s at 96 kHz; about 100 MB
    /// per signal while synthesised).
    package static let largestSynthesisFrames = 1 << 23


    /// Renders `frameCount` frames of one signal at unit RMS into `output`.
    ///
    /// - Parameters:
    ///   - colour: the colour (white noise with no `shaping` loops from the stream instead).
    ///   - key: the signal's random stream (see ``SeedStream``).
    ///   - shaping: an extra magnitude response applied to every bin (e.g. a notch: exact and still
    ///     periodic, where a filter run over the loop would not be).
    package static func render(colour: NoiseColour, sampleRate: Double, key: UInt64,
                              shaping: ((_ frequencyHz: Double) -> Double)? = nil,
                              into output: UnsafeMutableBufferPointer<Float>) {
        let n = output.count
        precondition(n >= 2)
        let design = NoiseShapingDesign.shared(colour: colour, sampleRate: sampleRate)
        let fft = RealFFT(size: n)
        var random = LaneRandom(key: key)
        var energy = 0.0
        fft.withSpectrum { bins in
            bins[0] = 0
            bins[1] = 0
            var k = 1
            while k < fft.binCount {
                let words = random.next()
                let (c, s) = WhiteNoise.unitPhasors(words)
                for lane in 0..<8 where k + lane < fft.binCount {
                    let bin = k + lane
                    let frequency = Double(bin) * sampleRate / Double(n)
                    let magnitude = design.idealMagnitude(atFrequency: frequency) * (shaping?(frequency) ?? 1)
                    let isNyquist = n % 2 == 0 && bin == n / 2
                    bins[2 * bin] = Float(magnitude) * (isNyquist ? (c[lane] < 0 ? -1 : 1) : c[lane])
                    bins[2 * bin + 1] = isNyquist ? 0 : Float(magnitude) * s[lane]
                    energy += (isNyquist ? 1 : 2) * magnitude * magnitude
                }
                k += 8
            }
        }
        fft.inverse()
        // Parseval with FFTW's unnormalised inverse: Σx² = n · Σ_k |X_k|² = n · energy, so RMS = √energy.
        let scale = Float(1 / energy.squareRoot())
        fft.withSignal { signal in
            for i in 0..<n { output[i] = signal[i] * scale }
        }
    }
}
