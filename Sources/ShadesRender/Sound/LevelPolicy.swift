import ShadesDSP
import ShadesIO
import ShadesPlatform

/// How loud a sound is made: the one place the gain of a rendered, written, built or played sound is
/// chosen (`gains(for:format:)`, from what a pass measured: `LevelMeasurement`). `render`, `notch`,
/// `stimuli`, the catalogue and `play` all go through it.
public enum LevelPolicy: Sendable, Equatable, Codable {
    /// The RMS of the sustained sound (after modulation, before pulses and fades) exactly at this level,
    /// dBFS (−150 … 0). A generator's independent signals each get it; a mix or a file gets one gain for
    /// the mean power of its sounding channels. A level that would clip is refused.
    case rms(dBFS: Double)
    /// Integrated loudness (ITU-R BS.1770, libebur128) at this target, LUFS, with the true peak at or below
    /// the ceiling, dBTP (EBU R 128: −1); a target whose true peak would pass the ceiling is refused.
    case loudness(lufs: Double, truePeakCeilingDBTP: Double)
    /// The sound's own level (gain 1), lowered only as far as keeps its true peak at or below the ceiling,
    /// dBTP (−20 … 0): music, notched or not.
    case truePeakCeiling(dBTP: Double)

    /// The default for `sound`: a file at its own level under a −1 dBTP ceiling; a generator at its kind's
    /// default RMS (``GeneratorKind/defaultLevelDBFS``); a mix at −20 dBFS RMS.
    package static func `default`(for sound: Sound) -> LevelPolicy {
        if sound.file != nil { return .truePeakCeiling(dBTP: -1) }
        if let generator = sound.generator { return .rms(dBFS: type(of: generator.kind).defaultLevelDBFS) }
        return .rms(dBFS: -20)
    }

    /// The asked RMS level, dBFS, for ``rms(dBFS:)``.
    package var rmsDBFS: Double? {
        if case .rms(let level) = self { return level }
        return nil
    }

    /// Short text for comments: "-20dBFS", "-23LUFS/-1dBTP", "truepeak<=-1dBTP".
    package var summary: String {
        switch self {
        case .rms(let level): return "\(formatNumber(level))dBFS"
        case .loudness(let lufs, let ceiling): return "\(formatNumber(lufs))LUFS/\(formatNumber(ceiling))dBTP"
        case .truePeakCeiling(let ceiling): return "truepeak<=\(formatNumber(ceiling))dBTP"
        }
    }

    /// Checks the numbers; the error names the parameter and its allowed range.
    package func validate() throws(ShadesError) {
        switch self {
        case .rms(let level):
            guard level.isFinite, level <= 0, level >= Self.lowestRMSLevelDBFS else {
                throw ShadesError(parameter: .level, value: "\(formatNumber(level)) dBFS", allowed: "-150 … 0 dBFS")
            }
        case .loudness(let lufs, let ceiling):
            try Parameter.loudness.check(lufs)
            try Self.validateCeiling(ceiling)
        case .truePeakCeiling(let ceiling):
            try Self.validateCeiling(ceiling)
        }
    }

    /// Allowed true-peak ceilings, dBTP.
    package static let allowedCeilingDBTP: ClosedRange<Double> = -20 ... 0

    private static func validateCeiling(_ ceiling: Double) throws(ShadesError) {
        guard ceiling.isFinite, allowedCeilingDBTP.contains(ceiling) else {
            throw ShadesError(parameter: .ceiling, value: "\(formatNumber(ceiling)) dBTP", allowed: "-20 … 0 dBTP")
        }
    }

    // MARK: The gain

    /// Headroom kept below a ceiling for the quantisation (rounding and TPDF dither move a sample by at most
    /// 1.5 LSB, its interpolated true peak by under 2): 2 LSB of `format` (0 for f32), linear full scale.
    package static func quantisationMargin(_ format: SampleFormat) -> Double {
        switch format {
        case .s16: return 2.0 / 32_768
        case .s24: return 2.0 / 8_388_608
        case .f32: return 0
        }
    }

    /// The linear gain (≤ 1) that keeps a true peak of `peak` (linear) at or below `ceilingDBTP` as
    /// `format` holds it (``quantisationMargin(_:)`` below the ceiling and the format's clipping limit).
    package static func ceilingGain(forPeak peak: Double, ceilingDBTP: Double, format: SampleFormat) -> Float {
        let limit = min(Decibels.amplitude(ceilingDBTP), format.clipLimit) - quantisationMargin(format)
        guard peak > limit else { return 1 }
        return Float(limit / peak)
    }

    /// For ``rms(dBFS:)``: the gain that brings an RMS of `rms` (linear) to `levelDBFS` times `levelRatio`
    /// (below 1 when a modulation keeps the peak instead of the RMS); 1 for silence.
    package static func rmsGain(forRMS rms: Double, levelDBFS: Double, levelRatio: Double = 1) -> Float {
        rms > 0 ? Float(Decibels.amplitude(levelDBFS) * levelRatio / rms) : 1
    }

    /// Power the quantisation of `format` adds to every sample, dBFS: TPDF dither of ±1 LSB and rounding
    /// for s16 (LSB²/6 + LSB²/12 = LSB²/4, LSB 2⁻¹⁵: −96.3 dBFS), rounding for s24 (LSB²/12, LSB 2⁻²³:
    /// −149.3 dBFS); nil for f32.
    package static func quantisationNoiseDBFS(_ format: SampleFormat) -> Double? {
        switch format {
        case .s16: return Decibels.fromPower(pow(2, -30) / 4)
        case .s24: return Decibels.fromPower(pow(2, -46) / 12)
        case .f32: return nil
        }
    }

    /// The lowest RMS level `format` carries, dBFS: where its quantisation noise raises the written RMS by
    /// 0.01 dB (26.4 dB above the noise), rounded up to 0.1 dB: s16 −69.9, s24 −122.8; f32 the level's
    /// own limit, −150.
    package static func lowestLevelDBFS(_ format: SampleFormat) -> Double {
        guard let noise = quantisationNoiseDBFS(format) else { return lowestRMSLevelDBFS }
        let margin = -Decibels.fromPower(pow(10, 0.001) - 1)
        return ((noise + margin) * 10).rounded(.up) / 10
    }

    /// The lowest RMS level of ``rms(dBFS:)``, dBFS.
    package static let lowestRMSLevelDBFS = -150.0

    /// For ``rms(dBFS:)``: throws when `levelDBFS` is below what `format` carries
    /// (``lowestLevelDBFS(_:)``): the file's RMS would be its quantisation noise's, not the asked level.
    package static func refuseBelowFloor(levelDBFS: Double, format: SampleFormat) throws(ShadesError) {
        let lowest = lowestLevelDBFS(format)
        guard levelDBFS < lowest else { return }
        let others = SampleFormat.allCases.filter { $0 != format }.map { "\($0.rawValue) \(formatNumber(lowestLevelDBFS($0))) dBFS" }
        throw ShadesError(.level, .other("is below what \(format.rawValue) carries"), value: .number(levelDBFS, .dBFS),
                          allowed: AllowedValues(range: .atLeast(lowest, unit: .dBFS),
                                                 note: "in \(format.rawValue), whose quantisation noise is \(formatNumber(quantisationNoiseDBFS(format) ?? 0, roundedTo: 1)) dBFS; \(others.joined(separator: ", "))"))
    }

    /// For ``rms(dBFS:)``: throws when samples reaching `peak` (linear, after the gain) would clip in
    /// `format`, naming the highest level that fits.
    package static func refuseClipping(peak: Double, levelDBFS: Double, format: SampleFormat) throws(ShadesError) {
        let limit = format.clipLimit
        guard peak > limit else { return }
        let highest = levelDBFS - Decibels.fromAmplitude(peak / limit)
        throw .runtime("level \(formatNumber(levelDBFS)) dBFS would clip (peak \(formatSigned(Decibels.fromAmplitude(peak), digits: 2)) dBFS in \(format.rawValue)); the highest level that fits is \(formatFloor(highest)) dBFS")
    }

    /// For ``loudness(lufs:truePeakCeilingDBTP:)``: the gain in dB that brings `measuredLUFS` to the target
    /// (loudness moves 1 LU per dB of gain; the peaks move with it), or the refusal when the true peak or
    /// sample peak would pass the ceiling or the format's limit, naming the highest loudness that fits.
    package func loudnessGainDB(measuredLUFS: Double, truePeakDBTP: Double, samplePeakDBFS: Double?,
                               format: SampleFormat) throws(ShadesError) -> Double {
        guard case .loudness(let target, let ceiling) = self else { return 0 }
        let gainDB = target - measuredLUFS
        let limit = Decibels.fromAmplitude(Decibels.amplitude(ceiling) - Self.quantisationMargin(format))
        let peakAfter = truePeakDBTP + gainDB
        let samplePeakAfter = (samplePeakDBFS ?? -.infinity) + gainDB
        if peakAfter > limit || samplePeakAfter > Decibels.fromAmplitude(format.clipLimit) {
            let highest = target - max(peakAfter - limit, samplePeakAfter - Decibels.fromAmplitude(format.clipLimit))
            throw LevelPolicy.loudnessRefusal(targetLUFS: target, truePeakDBTP: peakAfter, ceilingDBTP: ceiling,
                                              highestLUFS: highest)
        }
        return gainDB
    }

    /// "loudness −10.0 LUFS would put the true peak at +2.31 dBTP (limit −1.0 dBTP); the highest loudness
    /// that fits is −13.4 LUFS".
    static func loudnessRefusal(targetLUFS: Double, truePeakDBTP: Double, ceilingDBTP: Double, highestLUFS: Double) -> ShadesError {
        var error = ShadesError.runtime("loudness \(String(format: targetLUFS, digits: 1)) LUFS would put the true peak at \(formatSigned(truePeakDBTP, digits: 2)) dBTP (limit \(String(format: ceilingDBTP, digits: 1)) dBTP); the highest loudness that fits is \(formatFloor(highestLUFS)) LUFS")
        error.parameter = .loudness
        error.value = .number(highestLUFS, .LUFS)  // the highest that fits: a catalogue lists every sound's
        return error
    }
}

// MARK: - The one choice of gains

/// What a measuring pass found of a sound: what ``LevelPolicy/gains(for:format:)`` chooses the gains from.
/// Each policy takes its own measurement (``LevelPolicy/measurement``).
package enum LevelMeasurement: Sendable {
    /// For ``LevelPolicy/rms(dBFS:)``: Σx² and peak of each signal's sustained sound over `frames`.
    case sustained(SustainedMeasurement)
    /// For ``LevelPolicy/truePeakCeiling(dBTP:)``: the largest true peak of the sound as written (linear,
    /// 4× oversampled, BS.1770) over all of its `signalCount` signals.
    case truePeak(linear: Double, signalCount: Int)
    /// For ``LevelPolicy/loudness(lufs:truePeakCeilingDBTP:)``: the rendered sound's integrated loudness
    /// (LUFS), true peak (dBTP) and sample peak (dBFS, nil when not measured) over its `signalCount` signals.
    case loudness(integratedLUFS: Double, truePeakDBTP: Double, samplePeakDBFS: Double?, signalCount: Int)
}

/// Σx² and peak of each signal's sustained sound over some frames, and how the signals share a level.
package struct SustainedMeasurement: Sendable {
    /// One per signal.
    package let signals: [SignalMeasurement]
    /// Frames measured.
    package let frames: Int
    /// True when each signal gets a gain of its own (a generator's); false: one gain for the mean power of
    /// the ``soundingSignals`` (a mix, a file).
    package let levelsEachSignal: Bool
    /// The signals carried by an output channel.
    package let soundingSignals: Set<Int>
    /// RMS of the written sound relative to the asked level's (below 1 when modulation keeps the peak).
    package let levelRatio: Double

    /// Gain per signal bringing the sustained RMS to `levelDBFS` (each signal's own, or one gain for the
    /// mean power of the sounding signals), and the resulting peak over all signals, linear.
    package func gainsAndPeak(levelDBFS: Double) -> (gains: [Float], peak: Double) {
        let n = Double(frames)
        if levelsEachSignal {
            var peak = 0.0
            let gains = signals.map { m -> Float in
                let gain = LevelPolicy.rmsGain(forRMS: (m.sumOfSquares / n).squareRoot(), levelDBFS: levelDBFS, levelRatio: levelRatio)
                peak = max(peak, Double(m.peak) * Double(gain))
                return gain
            }
            return (gains, peak)
        }
        let power = soundingSignals.map { signals[$0].sumOfSquares }.reduce(0, +) / (n * Double(max(1, soundingSignals.count)))
        let gain = LevelPolicy.rmsGain(forRMS: power.squareRoot(), levelDBFS: levelDBFS, levelRatio: levelRatio)
        let peak = (signals.map { Double($0.peak) }.max() ?? 0) * Double(gain)
        return (Array(repeating: gain, count: signals.count), peak)
    }
}

/// The gains a ``LevelPolicy`` chose for a sound.
package struct LevelGains: Sendable, Equatable {
    /// Linear gain per signal.
    package let gains: [Float]
    /// Largest |sample| after the gains, linear; under a ceiling or a loudness target, the true peak.
    package let peak: Double
    /// True peak after the gains, dBTP, when the measurement had it (a ceiling, a loudness target).
    package let truePeakDBTP: Double?
    /// The measured true peak before the gains, linear (a ceiling).
    package let truePeakBeforeGain: Double?
    /// The gain of a sound with one gain (a file, a mix, a catalogue sound), dB: the first signal's (for a
    /// loudness target the exact dB asked, of which ``gains`` are the Float amplitude).
    package let gainDB: Double

    init(gains: [Float], peak: Double, truePeakDBTP: Double?, truePeakBeforeGain: Double? = nil, gainDB: Double? = nil) {
        (self.gains, self.peak, self.truePeakDBTP, self.truePeakBeforeGain) = (gains, peak, truePeakDBTP, truePeakBeforeGain)
        self.gainDB = gainDB ?? Decibels.fromAmplitude(Double(gains.first ?? 1))
    }
}

extension LevelPolicy {
    /// What a pass must measure for this policy to choose the gains.
    package enum Measurement: Sendable {
        /// The sustained sound's Σx² and peak per signal (``rms(dBFS:)``).
        case sustainedRMS
        /// The written sound's true peak (``truePeakCeiling(dBTP:)``).
        case truePeak
        /// Integrated loudness and true peak, with libebur128 (``loudness(lufs:truePeakCeilingDBTP:)``): the catalogue's.
        case loudness
    }

    /// What a pass must measure for this policy.
    package var measurement: Measurement {
        switch self {
        case .rms: return .sustainedRMS
        case .truePeakCeiling: return .truePeak
        case .loudness: return .loudness
        }
    }

    /// The gains of a sound written in `format`, from what its measuring pass found: the one place the
    /// level of a rendered, notched, built or played sound is chosen.
    ///
    /// - ``rms(dBFS:)``: the exact RMS; refused when a sample would clip in `format`, naming the highest
    ///   level that fits.
    /// - ``truePeakCeiling(dBTP:)``: gain 1, lowered just enough for the true peak to stay at or below the
    ///   ceiling as `format` holds it.
    /// - ``loudness(lufs:truePeakCeilingDBTP:)``: the gain that reaches the target; refused when the true
    ///   peak would pass the ceiling, naming the highest loudness that fits.
    ///
    /// `measured` must be this policy's ``measurement``.
    package func gains(for measured: LevelMeasurement, format: SampleFormat) throws(ShadesError) -> LevelGains {
        switch (self, measured) {
        case (.rms(let level), .sustained(let sustained)):
            let (gains, peak) = sustained.gainsAndPeak(levelDBFS: level)
            try Self.refuseClipping(peak: peak, levelDBFS: level, format: format)
            return LevelGains(gains: gains, peak: peak, truePeakDBTP: nil)
        case (.truePeakCeiling(let ceiling), .truePeak(let peak, let signalCount)):
            let gain = Self.ceilingGain(forPeak: peak, ceilingDBTP: ceiling, format: format)
            let after = peak * Double(gain)
            return LevelGains(gains: Array(repeating: gain, count: signalCount), peak: after, truePeakDBTP: Decibels.fromAmplitude(after),
                              truePeakBeforeGain: peak)
        case (.loudness, .loudness(let lufs, let truePeak, let samplePeak, let signalCount)):
            let gainDB = try loudnessGainDB(measuredLUFS: lufs, truePeakDBTP: truePeak, samplePeakDBFS: samplePeak, format: format)
            let gain = Float(Decibels.amplitude(gainDB))
            return LevelGains(gains: Array(repeating: gain, count: signalCount), peak: Decibels.amplitude(truePeak + gainDB),
                              truePeakDBTP: truePeak + gainDB, gainDB: gainDB)
        default:
            preconditionFailure("a \(measurement) policy measured as \(measured)")
        }
    }
}

extension Parameter {
    /// An integrated loudness target, LUFS (EBU R 128's −23 by default): of a render, the catalogue's presets
    /// and every asset (one above what a sound can reach under its true-peak ceiling is refused by name).
    package static let loudness = Parameter(.loudness, unit: .LUFS, range: ParameterRange(-70 ... 0, unit: .LUFS), default: -23)
}

// MARK: - Twins at one loudness

extension LevelPolicy {
    /// The levels of a sound and its sham twin (``Sound/shamTwin()``) at one integrated loudness, given the
    /// loudness each has at this policy, LUFS. Loudness moves 1 LU per dB of gain (above BS.1770's gates):
    /// - ``rms(dBFS:)``: the active's level, and the sham's moved by the difference;
    /// - ``loudness(lufs:truePeakCeilingDBTP:)``: the one target for both (each is set to it exactly);
    /// - ``truePeakCeiling(dBTP:)`` (a file at its own level): both at the active's own loudness under that
    ///   ceiling (`activeLUFS` measured after the ceiling's gain).
    package func twinLevels(activeLUFS: Double, shamLUFS: Double) -> (active: LevelPolicy, sham: LevelPolicy) {
        switch self {
        case .rms(let level):
            return (self, .rms(dBFS: level + activeLUFS - shamLUFS))
        case .loudness:
            return (self, self)
        case .truePeakCeiling(let ceiling):
            let matched = LevelPolicy.loudness(lufs: activeLUFS, truePeakCeilingDBTP: ceiling)
            return (matched, matched)
        }
    }
}

extension RenderRequest {
    /// Largest loudness difference, LU, between twins that ``shamTwins(loudness:)`` accepts before it steps
    /// again: a tenth of the ±0.1 LU a study promises.
    package static let twinLoudnessToleranceLU = 0.01
    /// The loudness difference, LU, a study promises between twins (`study check`'s limit): a sham still
    /// further off after its steps is refused.
    package static let twinLoudnessPromiseLU = 0.1

    /// This request and its sham twin: the sham's sound (``Sound/shamTwin()``) with the same length, rate,
    /// layout, seed and loop, both at one integrated loudness (``LevelPolicy/twinLevels(activeLUFS:shamLUFS:)``).
    /// `loudness` gives a request's integrated loudness as rendered at its level, LUFS (libebur128:
    /// `RenderRequest.loudnessMatchedShamTwins(format:)` in ShadesCatalogue). An RMS level is stepped until
    /// the twins are within ``twinLoudnessToleranceLU`` (one step unless a gate moves; at most four).
    package func shamTwins(loudness: (RenderRequest) throws(ShadesError) -> Double) throws(ShadesError)
        -> (active: RenderRequest, sham: RenderRequest) {
        var (active, sham) = (self, self)
        sham.sound = try sound.shamTwin()
        if case .loudness = level { return (active, sham) }
        let activeLUFS = try loudness(self)
        (active.level, sham.level) = level.twinLevels(activeLUFS: activeLUFS, shamLUFS: try loudness(sham))
        guard case .rms = level else { return (active, sham) }
        sham.level = .rms(dBFS: try sham.rmsLevel(forLoudness: activeLUFS, loudness: loudness))
        return (active, sham)
    }

    /// The RMS level, dBFS, that gives this request (at an RMS level, one step from the target) the integrated
    /// loudness `targetLUFS` within ``twinLoudnessToleranceLU``: measured at its level, then stepped by the
    /// difference while it is outside, at most three times. Loudness follows the gain dB for dB except where
    /// BS.1770's absolute gate (-70 LUFS) drops a quiet sound's quietest blocks, which a step then moves. A level
    /// still more than ``twinLoudnessPromiseLU`` off after the steps is refused.
    package func rmsLevel(forLoudness targetLUFS: Double,
                          loudness: (RenderRequest) throws(ShadesError) -> Double) throws(ShadesError) -> Double {
        var probe = self
        for step in 0...3 {
            let offLU = targetLUFS - (try loudness(probe))
            if abs(offLU) <= Self.twinLoudnessToleranceLU || (step == 3 && abs(offLU) <= Self.twinLoudnessPromiseLU) {
                return probe.levelDBFS
            }
            guard step < 3 else {
                throw .runtime("a sham's loudness stays \(formatNumber(offLU, roundedTo: 2)) LU from its twin's \(formatNumber(targetLUFS, roundedTo: 2)) "
                               + "LUFS after 3 steps (allowed: within \(formatNumber(Self.twinLoudnessPromiseLU)) LU)")
            }
            probe.level = .rms(dBFS: probe.levelDBFS + offLU)
        }
        return probe.levelDBFS
    }
}
