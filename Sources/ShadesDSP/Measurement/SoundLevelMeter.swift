import ShadesPlatform

/// The C frequency weighting of IEC 61672-1 (Annex E): H(s) = k·s² / ((s + ω₁)²(s + ω₄)²), 0 dB at 1 kHz;
/// digitally the double low pole at 20.6 Hz by the bilinear transform and the double pole at 12,194 Hz
/// matched with a fitted numerator, as ``AWeighting``'s (whose high poles it shares).
package enum CWeighting {
    /// The analog C-weighting response in dB at `frequencyHz` (> 0), exactly 0 dB at 1 kHz.
    package static func analogResponseDB(frequencyHz: Double) -> Double {
        analogLevelDB(frequencyHz) - analogLevelDB(1000)
    }

    private static func analogLevelDB(_ f: Double) -> Double {
        let f1 = AWeighting.f1Hz, f4 = AWeighting.f4Hz
        let f2 = f * f
        return 20 * log10(f4 * f4 * f2 / ((f2 + f1 * f1) * (f2 + f4 * f4)))
    }

    /// The digital C-weighting filter at `sampleRate` Hz (8,000 … 192,000): two second-order sections.
    package static func sections(sampleRate fs: Double) -> [IIRSection] {
        AWeighting.weightingSections(low: [AWeighting.bilinearHighPass(AWeighting.f1Hz, AWeighting.f1Hz, sampleRate: fs)],
                                     analogResponseDB: { analogResponseDB(frequencyHz: $0) }, sampleRate: fs)
    }
}

/// A sound level meter fed block by block (a microphone, a recording), as IEC 61672-1 describes one: per
/// interval (a second by default) and over everything, the RMS, LAeq, LAFmax (`AmbientLevel`, the
/// accumulator `shades analyze` uses) and LCpeak (the largest |C-weighted sample|), and with a calibration
/// the same in dB SPL and the NIOSH noise dose of the time measured.
///
/// Blocks are split at the interval boundaries, so the readings do not depend on the block sizes. Levels
/// of the loudest channel; silence is nil (for LCpeak: below −200 dBFS, the C filter's decay after a sound).
public struct SoundLevelMeter: Sendable {
    /// The levels of one interval, or of everything (``total``).
    public struct Reading: Sendable, Encodable, Equatable {
        /// Where the interval starts and how long it is, seconds.
        public let startSeconds: Double
        public let durationSeconds: Double
        /// Unweighted RMS, dBFS (a full-scale sine: −3.01).
        public let rmsDBFS: Double?
        /// A-weighted equivalent level and the largest A-weighted "fast" level, dBFS.
        public let laeqDBFS: Double?
        public let lafmaxDBFS: Double?
        /// The C-weighted peak, dB re full scale (a full-scale sine: 0).
        public let lcpeakDBFS: Double?
        /// With a calibration: the same in dB SPL (A- or C-weighted), and the NIOSH daily dose (85 dBA for
        /// 8 h, 3 dB exchange) of the sound so far, in percent.
        public let laeqDBA: Double?
        public let lafmaxDBA: Double?
        public let lcpeakDBC: Double?
        public let doseNIOSHPercent: Double?
    }

    package let sampleRate: Double
    package let channelCount: Int
    package let calibration: SPLCalibration?
    /// Frames per interval.
    package let intervalFrames: Int

    private var ambient: AmbientLevel
    private var cFilters: [IIRCascade]
    /// Per channel: Σx² and C peak over everything, and over the current interval.
    private var energy: [Double], peak: [Double]
    private var intervalEnergy: [Double], intervalPeak: [Double]
    private var intervalWeightedStart: [Double]
    private var intervalStartFrame = 0
    private var frameCount = 0
    private var completed: [Reading] = []

    /// - Parameters:
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - channelCount: channels per frame (≥ 1).
    ///   - calibration: adds dB SPL levels and the noise dose.
    ///   - intervalSeconds: the length of a reading (a whole number of frames; 1 s by default).
    public init(sampleRate: Double, channelCount: Int, calibration: SPLCalibration? = nil, intervalSeconds: Double = 1) throws(ShadesError) {
        ambient = try AmbientLevel(sampleRate: sampleRate, channelCount: channelCount)
        guard intervalSeconds.isFinite, intervalSeconds * sampleRate >= 1 else {
            throw Parameter.duration.error(.outOfRange, value: .number(intervalSeconds, .seconds), allowed: AllowedValues(note: "at least one frame"))
        }
        (self.sampleRate, self.channelCount, self.calibration) = (sampleRate, channelCount, calibration)
        intervalFrames = Int((intervalSeconds * sampleRate).rounded())
        cFilters = Array(repeating: IIRCascade(sections: CWeighting.sections(sampleRate: sampleRate)), count: channelCount)
        energy = Array(repeating: 0, count: channelCount)
        (peak, intervalEnergy, intervalPeak, intervalWeightedStart) = (energy, energy, energy, energy)
    }

    /// Adds the frames of `block` (whose channel count must match).
    public mutating func add(_ block: AudioBlock) {
        precondition(block.channelCount == channelCount, "expected \(channelCount) channels, got \(block.channelCount)")
        var start = 0
        while start < block.frameCount {
            let count = min(block.frameCount - start, intervalStartFrame + intervalFrames - frameCount)
            let part = block.frames(start..<(start + count))
            ambient.add(part)
            for c in 0..<channelCount {
                // Summed sample by sample into the interval's total: the same order whatever the blocks.
                var sum = intervalEnergy[c], top = intervalPeak[c]
                for x in part.channel(c) {
                    sum += Double(x) * Double(x)
                    top = max(top, abs(cFilters[c].step(Double(x))))
                }
                intervalEnergy[c] = sum
                intervalPeak[c] = top
            }
            frameCount += count
            start += count
            if frameCount == intervalStartFrame + intervalFrames { closeInterval() }
        }
    }

    /// The intervals completed since the last call, in order.
    public mutating func takeReadings() -> [Reading] {
        defer { completed.removeAll() }
        return completed
    }

    /// The levels of everything added (the current interval included).
    public var total: Reading {
        var energy = self.energy, peak = self.peak
        for c in 0..<channelCount {
            energy[c] += intervalEnergy[c]
            peak[c] = max(peak[c], intervalPeak[c])
        }
        let report = ambient.report()
        return reading(start: 0, frames: frameCount, energy: energy, weightedPower: report.laeqDBFS, fastMaximum: report.lafmaxDBFS,
                       peak: peak, doseFrames: frameCount)
    }

    private mutating func closeInterval() {
        let frames = frameCount - intervalStartFrame
        let weighted = (0..<channelCount).map { ambient.weightedEnergy(channel: $0) }
        let laeq = (0..<channelCount).map { c in (weighted[c] - intervalWeightedStart[c]) / Double(frames) }.max()!
        let fast = ambient.takeIntervalMaximum().max()!
        completed.append(reading(start: intervalStartFrame, frames: frames, energy: intervalEnergy,
                                 weightedPower: laeq > 0 ? Decibels.fromPower(laeq) : nil,
                                 fastMaximum: fast > 0 ? Decibels.fromPower(fast) : nil, peak: intervalPeak, doseFrames: frameCount))
        for c in 0..<channelCount {
            energy[c] += intervalEnergy[c]
            peak[c] = max(peak[c], intervalPeak[c])
        }
        intervalEnergy = Array(repeating: 0, count: channelCount)
        intervalPeak = intervalEnergy
        intervalWeightedStart = weighted
        intervalStartFrame = frameCount
    }

    /// A reading of `frames` from frame `start`; the dose is that of the LAeq of everything up to `doseFrames`.
    private func reading(start: Int, frames: Int, energy: [Double], weightedPower laeq: Double?, fastMaximum lafmax: Double?,
                         peak: [Double], doseFrames: Int) -> Reading {
        func level(_ power: Double) -> Double? { power > 0 && power.isFinite ? Decibels.fromPower(power) : nil }
        let rms = frames > 0 ? level((energy.max() ?? 0) / Double(frames)) : nil
        // Below −200 dBFS is the filter's decay after the sound, not a sound: silence.
        let lcpeak = (peak.max() ?? 0) > 1e-10 ? Decibels.fromAmplitude(peak.max()!) : nil
        let offset = calibration?.offsetDB
        var dose: Double?
        if let offset {
            let soFar = start == 0 && frames == doseFrames ? laeq : ambient.report().laeqDBFS
            dose = soFar.map { NoiseDose.nioshPercent(levelDBA: $0 + offset, listeningSeconds: Double(doseFrames) / sampleRate) }
        }
        return Reading(startSeconds: Double(start) / sampleRate, durationSeconds: Double(frames) / sampleRate, rmsDBFS: rms,
                       laeqDBFS: laeq, lafmaxDBFS: lafmax, lcpeakDBFS: lcpeak,
                       laeqDBA: offset.flatMap { o in laeq.map { $0 + o } }, lafmaxDBA: offset.flatMap { o in lafmax.map { $0 + o } },
                       lcpeakDBC: offset.flatMap { o in lcpeak.map { $0 + o } }, doseNIOSHPercent: dose)
    }
}
