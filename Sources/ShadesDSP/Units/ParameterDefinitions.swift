/// The definitions of ShadesDSP's parameters: unit, allowed values and default, once each. Ranges whose
/// numbers a type also publishes (``NoiseColour/allowedBeta``) are built from that constant, so the number
/// is written once; a range that depends on the sample rate or another parameter (below Nyquist, within
/// the slot) is the definition's range narrowed where it is checked.
extension Parameter {
    // MARK: Every sound
    /// Sample rate, Hz: ``supportedSampleRates``.
    package static let rate = Parameter(.rate, unit: .hertz, range: ParameterRange(supportedSampleRates, unit: .hertz), default: 48_000)
    /// Length of a sound, s: up to ``longestSeconds``.
    package static let duration = Parameter(.duration, unit: .seconds, range: .above(0, atMost: longestSeconds, unit: .seconds))
    /// The longest sound, and so the longest time any parameter may be, s: 24 h. It keeps every frame count
    /// (seconds × rate, up to 192 kHz) and every sum of them far inside `Int`.
    package static let longestSeconds = 24 * 3600.0
    /// Seed of the random numbers: a whole number `UInt64` holds.
    package static let seed = Parameter(.seed, note: "a whole number, 0 … \(UInt64.max)")
    /// RMS level, dBFS.
    package static let level = Parameter(.level, unit: .dBFS, range: .atMost(0, unit: .dBFS), default: -20)
    /// Channels of a signal (a count).
    package static let channels = Parameter(.channels, range: .atLeast(1))
    /// How signals map to output channels.
    package static let layout = Parameter(.layout, note: "mono, stereo, diotic, left or right")

    // MARK: Generators
    /// Spectral exponent β of coloured noise (PSD ∝ f^−β): ``NoiseColour/allowedBeta``.
    package static let beta = Parameter(.beta, range: ParameterRange(NoiseColour.allowedBeta))
    /// White-noise sample distribution.
    package static let distribution = Parameter(.distribution, note: "gaussian; uniform for white noise only")
    /// Frequency of a tone, centre of a band, or a tinnitus frequency, Hz; below Nyquist where it is used.
    package static let frequency = Parameter(.frequency, unit: .hertz, range: .above(0, unit: .hertz))
    /// Width of a narrow noise band, octaves: ``NarrowBandNoiseSource/maximumWidthOctaves``.
    package static let width = Parameter(.width, unit: .octaves,
                                        range: .above(0, atMost: NarrowBandNoiseSource.maximumWidthOctaves, unit: .octaves), default: 0.5)
    /// Length of a loop of narrow-band noise, frames (at least one FFT bin inside the band).
    package static let loopLength = Parameter(.loopLength, unit: .frames, range: .atLeast(2, unit: .frames))
    /// Absolute frame a stream starts at.
    package static let startFrame = Parameter(.startFrame, unit: .frames, range: .atLeast(0, unit: .frames), default: 0)
    /// Coordinated-reset cycles per second: ``CoordinatedResetPattern/allowedCycleRateHz``.
    package static let cycleRate = Parameter(.cycleRate, unit: .hertz,
                                            range: ParameterRange(CoordinatedResetPattern.allowedCycleRateHz, unit: .hertz), default: 1.5)
    /// Length of each coordinated-reset tone, s; at most the slot.
    package static let toneLength = Parameter(.toneLength, unit: .seconds, range: .above(0, atMost: longestSeconds, unit: .seconds))
    /// Rise and fall of each coordinated-reset tone, s; at most half the tone.
    package static let toneRamp = Parameter(.toneRamp, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0.010)
    /// Coordinated-reset cycles with tones.
    package static let onCycles = Parameter(.onCycles, range: ParameterRange(1...1000, wholeNumbers: true), default: 3)
    /// Silent coordinated-reset cycles after the tones.
    package static let offCycles = Parameter(.offCycles, range: ParameterRange(0...1000, wholeNumbers: true), default: 2)
    /// Gain of each coordinated-reset tone, dB: ``CoordinatedResetPattern/allowedToneGainDB``.
    package static let toneGains = Parameter(.toneGains, unit: .decibels,
                                            range: ParameterRange(CoordinatedResetPattern.allowedToneGainDB, unit: .decibels),
                                            note: "four gains, one per tone")
    /// Gain of each spectral-ripple band, dB: ``SpectralRipple/allowedBandGainDB``.
    package static let bandGains = Parameter(.bandGains, unit: .decibels,
                                            range: ParameterRange(SpectralRipple.allowedBandGainDB, unit: .decibels),
                                            note: "eight gains, one per half-octave band from 1 kHz up")
    /// Carrier of binaural beats (the left ear's tone), Hz; the right ear's tone below Nyquist.
    package static let carrier = Parameter(.carrier, unit: .hertz, range: .above(0, unit: .hertz))
    /// Binaural beat (the right ear's tone minus the left's) or isochronic pulse rate, Hz:
    /// ``allowedBeatHz``.
    package static let beat = Parameter(.beat, unit: .hertz, range: ParameterRange(allowedBeatHz, unit: .hertz), default: 10)
    /// Allowed beat and isochronic rates, Hz (delta 0.5–4 Hz to gamma 40 Hz and beyond).
    package static let allowedBeatHz: ClosedRange<Double> = 0.1...100
    /// Fraction of each isochronic period the tone sounds, measured at half amplitude.
    package static let duty = Parameter(.duty, range: .above(0, below: 1), default: 0.5)
    /// Raised-cosine edges of an isochronic tone, s, centred on the square wave's edges; at most the shorter
    /// of the on and off times.
    package static let isochronicRamp = Parameter(.isochronicRamp, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0.005)
    /// Velvet-noise impulses per second; at most half the sample rate (a cell of two frames).
    package static let density = Parameter(.density, unit: .hertz, range: .atLeast(1, unit: .hertz), default: 2000)
    /// The scale of fractal tones.
    package static let scale = Parameter(.scale, note: FractalTones.Scale.allCases.map(\.rawValue).joined(separator: ", "))
    /// Fractal tones' lowest pitch (the scale's tonic), Hz: ``FractalTones/lowestHz`` up to Nyquist.
    package static let lowPitch = Parameter(.lowPitch, unit: .hertz, range: .atLeast(FractalTones.lowestHz, unit: .hertz),
                                            default: FractalTones.defaultLowHz)
    /// Fractal tones' highest pitch, Hz; at least the scale's second pitch, below Nyquist.
    package static let highPitch = Parameter(.highPitch, unit: .hertz, range: .above(0, unit: .hertz), default: FractalTones.defaultHighHz)
    /// Fractal tones' grid steps per minute: ``FractalTones/allowedTempoBPM``.
    package static let tempo = Parameter(.tempo, unit: .beatsPerMinute,
                                         range: ParameterRange(FractalTones.allowedTempoBPM, unit: .beatsPerMinute), default: 80)

    // MARK: Modifiers
    /// Amplitude-modulation rate, Hz: ``AmplitudeModulatedSource/allowedRateHz``.
    package static let amRate = Parameter(.amRate, unit: .hertz,
                                         range: ParameterRange(AmplitudeModulatedSource.allowedRateHz, unit: .hertz), default: 10)
    /// Amplitude-modulation depth m.
    package static let amDepth = Parameter(.amDepth, range: ParameterRange(0...1), default: 1)
    /// Start phase of the modulating sine, radians.
    package static let amPhase = Parameter(.amPhase, unit: .radians, range: .finite(unit: .radians), default: 0)
    /// The same fade at both ends, s; both together at most the duration.
    package static let fade = Parameter(.fade, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds))
    /// Raised-cosine fade-in, s; at most the duration.
    package static let fadeIn = Parameter(.fadeIn, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0)
    /// Raised-cosine fade-out, s; at most the duration.
    package static let fadeOut = Parameter(.fadeOut, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0)
    /// On time of each pulse, ramps included, s; at least one frame.
    package static let pulseOn = Parameter(.pulseOn, unit: .seconds, range: .above(0, atMost: longestSeconds, unit: .seconds), default: 0.2)
    /// Silent time between pulses, s.
    package static let pulseOff = Parameter(.pulseOff, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0.2)
    /// Rise and fall of each pulse, s; at most half the on time.
    package static let ramp = Parameter(.ramp, unit: .seconds, range: ParameterRange(0...longestSeconds, unit: .seconds), default: 0.025)
    /// Pulses before silence (none: endless), at most a million (their frames stay far inside `Int`).
    package static let pulseCount = Parameter(.pulseCount, range: ParameterRange(1...1_000_000, wholeNumbers: true),
                                              note: "(or none for endless pulses)")
    /// Base period of a texture's swell, s: ``SwellEnvelope/allowedPeriodSeconds``.
    package static let swellPeriod = Parameter(.swellPeriod, unit: .seconds,
                                              range: ParameterRange(SwellEnvelope.allowedPeriodSeconds, unit: .seconds))
    /// Depth of a texture's swell.
    package static let swellDepth = Parameter(.swellDepth, range: ParameterRange(0...1))

    // MARK: Filters
    /// Centre of a notch, Hz; the notch and its edges must fit between 20 Hz and Nyquist.
    package static let notchCentre = Parameter(.notchCentre, unit: .hertz, range: .above(0, unit: .hertz))
    /// Width of a notch, octaves: ``NotchSpec/maximumWidthOctaves``.
    package static let notchWidth = Parameter(.notchWidth, unit: .octaves,
                                             range: .above(0, atMost: NotchSpec.maximumWidthOctaves, unit: .octaves), default: 1)
    /// Gain of the bands beside a notch, dB: ``NotchSpec/edgeBoostRangeDB``.
    package static let edgeBoost = Parameter(.edgeBoost, unit: .decibels,
                                            range: ParameterRange(NotchSpec.edgeBoostRangeDB, unit: .decibels), default: 0)
    /// Width of each boosted band beside a notch, octaves.
    package static let edgeWidth = Parameter(.edgeWidth, unit: .octaves,
                                            range: .above(0, atMost: NotchSpec.maximumWidthOctaves, unit: .octaves), default: 0.375)
    /// Centre of an octave band (``OctaveBand``), Hz.
    package static let bandCentre = Parameter(.bandCentre, unit: .hertz, range: .above(0, unit: .hertz))
    /// Width of an octave band, octaves: ``OctaveBand/maximumWidthOctaves``.
    package static let bandWidth = Parameter(.bandWidth, unit: .octaves,
                                            range: .above(0, atMost: OctaveBand.maximumWidthOctaves, unit: .octaves))

    // MARK: Analysis
    /// Frames per Welch segment: a power of two.
    package static let segmentLength = Parameter(.segmentLength, unit: .frames,
                                                range: ParameterRange(256...4_194_304, unit: .frames), note: "a power of two")
    /// Sound pressure level of a calibration signal, and its level in the recording.
    package static let calibration = Parameter(
        .calibration, note: "\(ParameterRange(SPLCalibration.allowedSPLDB)) dB SPL at \(ParameterRange(SPLCalibration.allowedDBFS, unit: .dBFS))")

    /// Every definition above.
    package static let all: [Parameter] = [
        .rate, .duration, .seed, .level, .channels, .layout,
        .beta, .distribution, .frequency, .width, .loopLength, .startFrame, .cycleRate, .toneLength, .toneRamp,
        .onCycles, .offCycles, .toneGains, .bandGains, .carrier, .beat, .duty, .isochronicRamp, .density, .scale, .lowPitch, .highPitch, .tempo,
        .amRate, .amDepth, .amPhase, .fade, .fadeIn, .fadeOut, .pulseOn, .pulseOff, .ramp, .pulseCount,
        .swellPeriod, .swellDepth,
        .notchCentre, .notchWidth, .edgeBoost, .edgeWidth, .bandCentre, .bandWidth,
        .segmentLength, .calibration,
    ]
}

extension ParameterRange {
    /// ``supportedSampleRates`` in whole Hz: a rate a file can have.
    package static let wholeSampleRates = ParameterRange(supportedSampleRates, unit: .hertz, wholeNumbers: true)
}
