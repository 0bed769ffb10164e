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
    /// White-noise sample distribution.
    package static let distribution = Parameter(.distribution, note: "gaussian; uniform for white noise only")
    /// Frequency of a tone, centre of a band, or a tinnitus frequency, Hz; below Nyquist where it is used.
    package static let frequency = Parameter(.frequency, unit: .hertz, range: .above(0, unit: .hertz))
    /// Absolute frame a stream starts at.
    package static let startFrame = Parameter(.startFrame, unit: .frames, range: .atLeast(0, unit: .frames), default: 0)
    // Each generator's own parameters are defined beside it: in its DSP source (ShadesDSP/Generators), or in
    // its descriptor (ShadesRender/Sound/Generators) when it has no DSP type of its own.

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
    package static let swellDepth = Parameter(.swellDepth, range: ParameterRange(0...1), default: 0.5)

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
        .onCycles, .offCycles, .toneGains, .bandGains, .density, .scale, .lowPitch, .highPitch, .tempo,
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
