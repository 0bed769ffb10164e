import ShadesDSP
import ShadesIO
import ShadesRender

/// Turns a ``PatientLevel`` into what the renderer is given, for one patient, sound and pair of headphones:
/// the ``LevelPolicy`` (an RMS level in dBFS, or a loudness target), checked against the study's safety
/// ceiling (dB SPL) and the clipping limit of the sample format.
///
/// - dBFS: as it is. dB SPL: minus the calibration's dB SPL at 0 dBFS (at the sound's defining frequency,
///   or broadband). dB HL: plus the calibration's 0 dB HL level in dBFS at the defining frequency.
/// - dB SL: plus the patient's threshold at the defining frequency as a tone level in dBFS
///   (``PatientMeasurements/thresholdDBFS(atHz:ear:calibration:)``); for both ears the better (lower)
///   threshold, so the better ear hears exactly the level asked and the other less (as `shades mml`
///   and `loudness-match` take an audiogram's threshold).
/// - re MML: the MML's RMS in dBFS plus the offset, whatever the sound (the MML is measured through the
///   same headphones and volume; Neff et al. 2019 set stimuli at MML + 6 dB).
/// - LUFS: a loudness target (``LevelPolicy/loudness(lufs:truePeakCeilingDBTP:)``, −1 dBTP); its RMS, and
///   so its dB SPL, measured by a loudness pass over the sound at the reference RMS.
///
/// A level whose dB SPL is above the ceiling, or whose samples would clip, is refused in one line naming the
/// patient, the sound, the level asked and the highest possible (the lower of the two limits, in the scale
/// asked).
public struct LevelResolver: Sendable {
    public let calibration: HeadphoneCalibration
    /// The highest sound pressure level any sound may have, dB SPL.
    public let ceilingDBSPL: Double
    /// The format the sounds are written in: its clipping limit and quietest level (s16 −69.9 dBFS).
    public let sampleFormat: SampleFormat

    /// Whether levels are checked against what the sound measures (its clipping limit; a LUFS level's RMS):
    /// true when a patient's folder is built, false when a study is planned (``StudyPlan/make(_:patientsPath:)``
    /// renders nothing, so 100,000 patients plan in seconds; a LUFS level is then resolved at build).
    public var measuresSound = true

    /// Allowed safety ceilings, dB SPL.
    public static let allowedCeilingDBSPL: ClosedRange<Double> = 0...140

    public init(calibration: HeadphoneCalibration, ceilingDBSPL: Double, sampleFormat: SampleFormat = .s24) throws(ShadesError) {
        guard ceilingDBSPL.isFinite, Self.allowedCeilingDBSPL.contains(ceilingDBSPL) else {
            throw ShadesError(.safetyCeiling, .outOfRange, value: .text("\(formatNumber(ceilingDBSPL)) dB SPL"), allowed: AllowedValues(note: "0 … 140 dB SPL"))
        }
        (self.calibration, self.ceilingDBSPL, self.sampleFormat) = (calibration, ceilingDBSPL, sampleFormat)
    }

    /// The level policy for `request`'s sound (its own level is replaced) at `level` for `patient`, whose
    /// `ears` (left, right or both) hear it. Measures the sound to check clipping (a tone exactly, other sounds
    /// by a measuring pass as long as the render's own; a LUFS level by a loudness pass, libebur128).
    public func resolve(_ level: PatientLevel, of request: RenderRequest, for patient: PatientMeasurements,
                        ears: Ears) throws(ShadesError) -> ResolvedLevel {
        do throws(ShadesError) {
            try PatientLevel.check(level)
            let reference = request.sound.hearingReference
            var threshold: (dBFS: Double, ear: Ears)?
            let rms: Double
            switch level {
            case .dBFS(let v): rms = v
            case .lufs(let v): return try checkedLoudness(v, of: request, reference: reference)
            case .dBSPL(let v): rms = try calibration.dBFS(splDB: v, at: reference)
            case .dBHL(let v): rms = try calibration.dBFS(hearingLevelDB: v, atHz: try Self.definingFrequency(reference, level))
            case .dBSL(let v):
                let f = try Self.definingFrequency(reference, level)
                threshold = try betterThreshold(of: patient, atHz: f, ears: ears)
                rms = threshold!.dBFS + v
            case .reMML(let v): rms = try patient.mmlDBFS() + v
            }
            return try checked(level, rmsDBFS: rms, of: request, reference: reference, threshold: threshold)
        } catch {
            throw Self.naming(error, patient, request.sound)
        }
    }

    /// `error` within "patient P07, tone frequency=6000Hz" (once: a patient's own refusal loses its context).
    static func naming(_ error: ShadesError, _ patient: PatientMeasurements, _ sound: Sound) -> ShadesError {
        var refused = error
        if refused.context == patient.context { refused.context = nil }
        return refused.within(describe(patient, sound))
    }

    // MARK: Steps

    /// Rounding allowed at the limits, dB.
    static let toleranceDB = 1e-9

    /// An RMS level checked against the format's floor, the ceiling and clipping.
    private func checked(_ level: PatientLevel, rmsDBFS rms: Double, of request: RenderRequest, reference: HearingReference,
                         threshold: (dBFS: Double, ear: Ears)?) throws(ShadesError) -> ResolvedLevel {
        let spl = try calibration.splDB(dBFS: rms, at: reference)
        // The policy's level is the unmodulated sound's when a modulation keeps the peak (its RMS is lower).
        let ratioDB = Decibels.fromAmplitude(request.sound.modulation?.levelRatio ?? 1)
        let policyDBFS = rms - ratioDB
        try LevelPolicy.refuseBelowFloor(levelDBFS: policyDBFS, format: sampleFormat)
        // The clipping limit, measured at the reference level (peaks scale with the gain).
        var probe = request
        probe.level = .rms(dBFS: RenderRequest.referenceLevelDBFS)
        let highestClipDBFS = measuresSound ? try Renderer.highestRMSLevelDBFS(probe, format: sampleFormat).map { $0 + ratioDB } ?? .infinity : .infinity
        let highest = try refuseBeyondLimits(level, splDB: spl, formatLimitSPL: highestClipDBFS + (spl - rms),
                                             formatLimit: "would clip in \(sampleFormat.rawValue) (\(formatNumber(highestClipDBFS, roundedTo: 2)) dBFS RMS at most)")
        return ResolvedLevel(asked: level, policy: .rms(dBFS: policyDBFS), modulationRatioDB: ratioDB, rmsDBFS: rms, splDB: spl,
                             reference: reference, threshold: threshold, highestDBSPL: highest)
    }

    /// A loudness target: the sound measured at the reference RMS (its loudness, true peak and RMS), moved by
    /// the gain that reaches `lufs`; checked against the ceiling (its RMS in dB SPL) and the −1 dBTP ceiling
    /// of the loudness policy.
    private func checkedLoudness(_ lufs: Double, of request: RenderRequest, reference: HearingReference) throws(ShadesError) -> ResolvedLevel {
        let level = PatientLevel.lufs(lufs)
        let measured = try LoudnessProbe.measure(request)
        let gainDB = lufs - measured.integratedLUFS
        let rms = measured.rmsDBFS + gainDB
        let spl = try calibration.splDB(dBFS: rms, at: reference)
        let ceilingDBTP = -1.0
        let limitDBTP = Decibels.fromAmplitude(Decibels.amplitude(ceilingDBTP) - LevelPolicy.quantisationMargin(sampleFormat))
        let peakDBTP = measured.truePeakDBTP + gainDB
        let highest = try refuseBeyondLimits(level, splDB: spl, formatLimitSPL: spl + limitDBTP - peakDBTP,
                                             formatLimit: "would put the true peak at \(formatSigned(peakDBTP, digits: 2)) dBTP (limit \(formatNumber(ceilingDBTP)) dBTP)")
        return ResolvedLevel(asked: level, policy: .loudness(lufs: lufs, truePeakCeilingDBTP: ceilingDBTP),
                             modulationRatioDB: Decibels.fromAmplitude(request.sound.modulation?.levelRatio ?? 1), rmsDBFS: rms, splDB: spl,
                             reference: reference, threshold: nil, highestDBSPL: highest)
    }

    /// The highest level possible, dB SPL (the lower of the ceiling and the format's limit); refuses `level`
    /// at `spl` above it, naming each limit it passes.
    private func refuseBeyondLimits(_ level: PatientLevel, splDB spl: Double, formatLimitSPL: Double, formatLimit: String) throws(ShadesError) -> Double {
        let highest = min(ceilingDBSPL, formatLimitSPL)
        guard spl > highest + Self.toleranceDB else { return highest }
        var limits: [String] = []
        if spl > ceilingDBSPL + Self.toleranceDB { limits.append("above the safety ceiling of \(formatNumber(ceilingDBSPL)) dB SPL") }
        if spl > formatLimitSPL + Self.toleranceDB { limits.append(formatLimit) }
        throw refusal(level, splDB: spl, highestSPL: highest, why: limits.joined(separator: " and "))
    }

    /// "20 dB SL is 112.4 dB SPL, above the safety ceiling of 100 dB SPL; the highest possible is 7.6 dB SL (100 dB SPL)".
    private func refusal(_ level: PatientLevel, splDB spl: Double, highestSPL: Double, why: String) -> ShadesError {
        let highestAsked = level.with(value: ((level.value + highestSPL - spl) * 10).rounded(.down) / 10)
        let error = ShadesError(.parameter, "\(level) is \(formatNumber(spl, roundedTo: 1)) dB SPL, \(why); the highest possible is "
                                + "\(highestAsked) (\(formatNumber((highestSPL * 10).rounded(.down) / 10)) dB SPL)", parameter: .level)
        return error
    }

    /// The sound's defining frequency, Hz; refused for a broadband sound ("dB SL of a music file has no meaning").
    static func definingFrequency(_ reference: HearingReference, _ level: PatientLevel) throws(ShadesError) -> Double {
        switch reference {
        case .frequency(let f, _): return f
        case .broadband(let sound):
            throw ShadesError(.parameter, "\(level.scaleName) of \(sound) has no meaning: it has no defining frequency "
                              + "(allowed: dBFS, LUFS, dB SPL or MML+x dB)", parameter: .level)
        }
    }

    /// The better (lower) threshold of `ears` at `f`, dBFS, and whose it is.
    private func betterThreshold(of patient: PatientMeasurements, atHz f: Double, ears: Ears) throws(ShadesError) -> (dBFS: Double, ear: Ears) {
        var best: (dBFS: Double, ear: Ears)?
        for ear in ears == .both ? [Ears.right, .left] : [ears] {
            let t = try patient.thresholdDBFS(atHz: f, ear: ear, calibration: calibration)
            if best == nil || t < best!.dBFS { best = (t, ear) }
        }
        return best!
    }

    /// "patient P07, tone frequency=6000Hz".
    static func describe(_ patient: PatientMeasurements, _ sound: Sound) -> String {
        "patient \(patient.id), \(sound.generator?.summary ?? sound.file.map { "file \($0.path)" } ?? "a mix")"
    }
}

/// A level resolved for one patient and sound: what the renderer is given and what it means.
public struct ResolvedLevel: Sendable, Equatable, Encodable {
    /// The level asked.
    public let asked: PatientLevel
    /// What the renderer is given (``RenderRequest/level``).
    public let policy: LevelPolicy
    /// The same level as an RMS policy, for ``Renderer/renderFile(_:to:sampleFormat:)`` (which takes no loudness
    /// target): ``policy`` itself for an RMS level; for LUFS the RMS the loudness pass found (raised by a
    /// modulation that keeps the peak).
    public var rmsPolicy: LevelPolicy { policy.rmsDBFS == nil ? .rms(dBFS: rmsDBFS - modulationRatioDB) : policy }
    /// The written RMS re the policy's level, dB (below 0 when a modulation keeps the peak).
    let modulationRatioDB: Double
    /// The sustained sound's RMS as written, dBFS (for a LUFS level, the measured one).
    public let rmsDBFS: Double
    /// That RMS through the calibration, dB SPL.
    public let splDB: Double
    /// The frequency the level refers to, or broadband.
    public let reference: HearingReference
    /// For dB SL: the threshold used, as a tone's RMS in dBFS, and the ear it is from.
    public let threshold: (dBFS: Double, ear: Ears)?
    /// The highest level possible for this sound, dB SPL: the lower of the ceiling and the clipping limit.
    public let highestDBSPL: Double

    /// The level in the scale asked of a sustained RMS measured in the written file, dBFS (what a check
    /// compares with ``asked``): the asked value plus the difference.
    public func levelAsAsked(measuredRMSDBFS: Double) -> Double { asked.value + measuredRMSDBFS - rmsDBFS }

    public static func == (a: ResolvedLevel, b: ResolvedLevel) -> Bool {
        a.asked == b.asked && a.policy == b.policy && a.rmsDBFS == b.rmsDBFS && a.splDB == b.splDB && a.reference == b.reference
            && a.threshold?.dBFS == b.threshold?.dBFS && a.threshold?.ear == b.threshold?.ear && a.highestDBSPL == b.highestDBSPL
    }

    private enum Keys: String, CodingKey { case asked, policy, rmsDBFS, splDB, referenceFrequencyHz, thresholdDBFS, thresholdEar, highestDBSPL }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(asked, forKey: .asked)
        try c.encode(policy, forKey: .policy)
        try c.encode(rmsDBFS, forKey: .rmsDBFS)
        try c.encode(splDB, forKey: .splDB)
        try c.encodeIfPresent(reference.frequencyHz, forKey: .referenceFrequencyHz)
        try c.encodeIfPresent(threshold?.dBFS, forKey: .thresholdDBFS)
        try c.encodeIfPresent(threshold?.ear, forKey: .thresholdEar)
        try c.encode(highestDBSPL, forKey: .highestDBSPL)
    }
}

extension ParameterID {
    /// A study's safety ceiling, dB SPL.
    package static let safetyCeiling = ParameterID("safetyCeiling", name: "safety ceiling")
}

extension Sound {
    /// What a level relative to hearing refers to for this sound: its generator's
    /// (``GeneratorKind/hearingReference``); a file or a mix has no defining frequency.
    public var hearingReference: HearingReference {
        if let generator { return generator.kind.hearingReference }
        return .broadband(sound: file != nil ? "a music file" : "a mix of sounds")
    }
}
