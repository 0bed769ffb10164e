import ShadesDSP

/// A generator of a ``Sound``: a source and its own parameters (duration, rate, level … are the
/// ``RenderRequest``'s).
public enum Generator: Sendable, Equatable, Encodable {
    /// Noise of PSD ∝ f^−β.
    case noise(colour: NoiseColour, distribution: WhiteDistribution)
    /// A pure tone.
    case tone(frequencyHz: Double)
    /// Gaussian noise limited to the band centreHz·2^(±width/2), geometrically centred.
    case narrowBandNoise(centreHz: Double, widthOctaves: Double)
    /// Grey noise: perceptually flat, shaped by the inverse A-weighting (see `GreyNoise`); made by FFT
    /// synthesis over the whole file.
    case grey
    /// Acoustic coordinated reset: four tones around the tinnitus frequency in a seeded order per cycle
    /// (Tass et al. 2012; Adamchic et al. 2017). The level is the RMS of the whole file, silent cycles included.
    case coordinatedReset(CoordinatedResetPattern)
    /// Spectral-ripple modulated harmonic complexes in 4-s segments (Yukhnovich et al. 2025). Each whole
    /// segment has the asked RMS; the file's RMS is the asked level.
    case spectralRipple(SpectralRipple)
    /// Binaural beats: a tone at `carrierHz` in the left ear and one at carrierHz + beatHz in the right
    /// (stereo only; the beat arises in the brainstem, so it needs headphones). Each ear's tone is at the
    /// level; phases run in Double, exact over hours.
    case binauralBeat(carrierHz: Double, beatHz: Double)
    /// An isochronic tone: a tone at `frequencyHz` switched on and off `rateHz` times a second, on for
    /// `duty` of each period (measured at half amplitude), with raised-cosine edges of `rampSeconds` centred
    /// on the square wave's edges. The level is the tone's while it sounds (as for pulses).
    case isochronicTone(frequencyHz: Double, rateHz: Double, duty: Double, rampSeconds: Double)
    /// Velvet noise: one impulse of random sign at a random position in each cell of 1/density s
    /// (Järveläinen & Karjalainen 2007; Välimäki et al. 2013); flat spectrum, RMS at the level.
    case velvetNoise(densityHz: Double)
    /// Fractal tones: a chime-like melody whose pitch and timing follow 1/f sequences over `scale`, from
    /// `lowHz` (the tonic) up to `highHz`, on a grid of 60/`tempoBPM` s (after Widex Zen: US patent 6,816,599;
    /// Sweetow & Sabes 2010). One signal (diotic in stereo). Defaults: pentatonic, C5 … C7, 80 steps a minute.
    case fractalTones(scale: MusicalScale = .pentatonic, lowHz: Double = 523.251_130_601_197_2, highHz: Double = 2_093.004_522_404_789,
                      tempoBPM: Double = 80)

    /// Short text for comments and messages, e.g. "pink (beta 1)" or "tone 6000 Hz".
    package var summary: String {
        switch self {
        case .noise(let colour, let distribution):
            let name = NoiseColour.named.first { $0.colour == colour }?.name ?? "noise"
            return "\(name) beta=\(formatNumber(colour.beta))" + (colour.beta == 0 ? " distribution=\(distribution.rawValue)" : "")
        case .tone(let frequencyHz):
            return "tone frequency=\(formatNumber(frequencyHz))Hz"
        case .narrowBandNoise(let centreHz, let widthOctaves):
            return "nbn frequency=\(formatNumber(centreHz))Hz width=\(formatNumber(widthOctaves))oct"
        case .grey:
            return "grey"
        case .coordinatedReset(let p):
            return "cr frequency=\(formatNumber(p.tinnitusFrequencyHz))Hz tones=\(p.toneSet.rawValue)"
                + " tone_length=\(formatNumber((p.toneSeconds ?? p.slotSeconds) * 1000))ms ramp=\(formatNumber(p.rampSeconds * 1000))ms"
                + " cycle_rate=\(formatNumber(p.cycleRateHz))Hz on=\(p.onCycles) off=\(p.offCycles)"
                + (p.toneGainsDB.map { " tone_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
        case .binauralBeat(let carrierHz, let beatHz):
            return "binaural carrier=\(formatNumber(carrierHz))Hz beat=\(formatNumber(beatHz))Hz"
        case .isochronicTone(let frequencyHz, let rateHz, let duty, let rampSeconds):
            return "isochronic frequency=\(formatNumber(frequencyHz))Hz beat=\(formatNumber(rateHz))Hz duty=\(formatNumber(duty))"
                + " ramp=\(formatNumber(rampSeconds * 1000))ms"
        case .velvetNoise(let densityHz):
            return "velvet density=\(formatNumber(densityHz))"
        case .fractalTones:
            let t = fractal!
            return "fractal scale=\(t.scale.rawValue) low=\(formatNumber(t.lowHz))Hz high=\(formatNumber(t.highHz))Hz tempo=\(formatNumber(t.tempoBPM))"
        case .spectralRipple(let r):
            return "ripple frequency=\(formatNumber(r.tinnitusFrequencyHz))Hz condition=\(r.condition.rawValue)"
                + (r.sham ? " sham" : "") + " octave=\(formatNumber(r.modulatedOctaveHz.lowerBound.rounded()))-\(formatNumber(r.modulatedOctaveHz.upperBound.rounded()))Hz"
                + (r.bandGainsDB.map { " band_gains=" + $0.map { formatNumber($0) }.joined(separator: ",") + "dB" } ?? "")
        }
    }
}

extension Generator {
    /// Fractal tones of `tones`.
    package static func fractalTones(_ tones: FractalTones) -> Generator {
        .fractalTones(scale: tones.scale, lowHz: tones.lowHz, highHz: tones.highHz, tempoBPM: tones.tempoBPM)
    }

    /// The parameters of fractal tones, when the generator is one.
    package var fractal: FractalTones? {
        guard case .fractalTones(let scale, let lowHz, let highHz, let tempoBPM) = self else { return nil }
        return FractalTones(scale: scale, lowHz: lowHz, highHz: highHz, tempoBPM: tempoBPM)
    }
}
