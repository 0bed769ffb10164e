import ShadesPlatform

// MARK: - A-weighting

/// The A frequency weighting of IEC 61672-1 (Annex E) and its digital realisation.
///
/// Analog: H(s) = k·s⁴ / ((s + ω₁)² (s + ω₂)(s + ω₃)(s + ω₄)²), ωᵢ = 2π·fᵢ, normalised to 0 dB at 1 kHz.
///
/// Digital, three second-order sections in Double:
/// - the four low poles (20.6 Hz twice, 107.7 Hz, 737.9 Hz) with the four zeros at 0 Hz by the bilinear
///   transform (the frequency warping there is under 0.1 %, and these sections are flat at high
///   frequencies where warping would matter);
/// - the double pole at 12,194 Hz matched (z = e^(−ω₄/fs), no warping), with a second-order numerator
///   fitted by least squares to the analog magnitude from 100 Hz to 20 kHz (or 0.98 × Nyquist).
///
/// A plain bilinear design is 1.2 dB low at 10 kHz and 6.2 dB low at 16 kHz at 48 kHz (still inside the
/// class 1 limits, but far off the curve); this one stays within about 0.06 dB of the analog curve up to
/// 16 kHz and 0.15 dB at 20 kHz at 48 kHz (0.12 and 0.32 dB at 44.1 kHz).
package enum AWeighting {
    /// Pole frequencies in Hz (IEC 61672-1 Annex E): f₁ and f₄ are double poles.
    package static let f1Hz = 20.598997, f2Hz = 107.65265, f3Hz = 737.86223, f4Hz = 12194.217

    /// The analog A-weighting response in dB at `frequencyHz` (> 0), exactly 0 dB at 1 kHz.
    package static func analogResponseDB(frequencyHz: Double) -> Double {
        analogLevelDB(frequencyHz) - analogLevelDB(1000)
    }

    private static func analogLevelDB(_ f: Double) -> Double {
        let f2 = f * f
        let magnitude = f4Hz * f4Hz * f2 * f2
            / ((f2 + f1Hz * f1Hz) * ((f2 + f2Hz * f2Hz) * (f2 + f3Hz * f3Hz)).squareRoot() * (f2 + f4Hz * f4Hz))
        return 20 * log10(magnitude)
    }

    /// The response in dB at `frequencyHz` of ``sections(sampleRate:)``.
    package static func responseDB(frequencyHz: Double, sampleRate: Double) -> Double {
        Decibels.fromAmplitude(IIRCascade(sections: sections(sampleRate: sampleRate))
            .magnitude(omega: 2 * Double.pi * frequencyHz / sampleRate))
    }

    /// The digital A-weighting filter at `sampleRate` Hz (8,000 … 192,000): three second-order
    /// sections, 0 dB at 1 kHz.
    package static func sections(sampleRate fs: Double) -> [IIRSection] {
        weightingSections(low: [bilinearHighPass(f1Hz, f1Hz, sampleRate: fs), bilinearHighPass(f2Hz, f3Hz, sampleRate: fs)],
                          analogResponseDB: { analogResponseDB(frequencyHz: $0) }, sampleRate: fs)
    }

    /// Bilinear s²/((s + ωa)(s + ωb)) at `sampleRate` (the low poles of the A and C weightings).
    static func bilinearHighPass(_ fa: Double, _ fb: Double, sampleRate fs: Double) -> IIRSection {
        let k = 2 * fs
        let wa = 2 * Double.pi * fa, wb = 2 * Double.pi * fb
        let g = k * k / ((k + wa) * (k + wb))
        let pa = (k - wa) / (k + wa), pb = (k - wb) / (k + wb)
        return IIRSection(b0: g, b1: -2 * g, b2: g, a1: -(pa + pb), a2: pa * pb)
    }

    /// A weighting's digital filter: its `low` sections, then the double pole at f₄ matched with a numerator
    /// fitted to `analogResponseDB` (dB at a frequency in Hz), normalised to 0 dB at 1 kHz (shared by the A
    /// and C weightings, which have the same high poles).
    static func weightingSections(low: [IIRSection], analogResponseDB: (Double) -> Double, sampleRate fs: Double) -> [IIRSection] {
        let pole = exp(-2 * Double.pi * f4Hz / fs)
        let a1 = -2 * pole, a2 = pole * pole

        // Fit |N(e^{jω})|² = c₀ + c₁·cos ω + c₂·cos 2ω to the numerator power the analog curve asks for,
        // T(ω) = |H_A|²·|D(ω)|² / |H_low(ω)|², minimising the relative error Σ((N² − T)/T)².
        let top = min(20_000, 0.98 * fs / 2), bottom = min(100, top / 10)
        let points = 400
        var normal = [Double](repeating: 0, count: 9)  // row-major 3×3
        var right = [0.0, 0, 0]
        for i in 0..<points {
            let f = bottom * pow(top / bottom, Double(i) / Double(points - 1))
            let w = 2 * Double.pi * f / fs
            // |1/D(ω)| and |H_low(ω)|: the target numerator power is |H_A|² / (|1/D|²·|H_low|²).
            let allPole = IIRSection(b0: 1, b1: 0, b2: 0, a1: a1, a2: a2).magnitude(omega: w)
            let lowGain = low.reduce(1) { $0 * $1.magnitude(omega: w) }
            let rest = allPole * lowGain
            let target = pow(10, analogResponseDB(f) / 10) / (rest * rest)
            let row = [1 / target, cos(w) / target, cos(2 * w) / target]
            for r in 0..<3 {
                right[r] += row[r]
                for c in 0..<3 { normal[r * 3 + c] += row[r] * row[c] }
            }
        }
        let c = LinearAlgebra.solve(normal, right, size: 3)
        let (n1, n2) = minimumPhaseNumerator(c0: c[0], c1: c[1], c2: c[2])
        var high = IIRSection(b0: 1, b1: n1, b2: n2, a1: a1, a2: a2)
        let w1k = 2 * Double.pi * 1000 / fs
        let gain = 1 / (low.reduce(1) { $0 * $1.magnitude(omega: w1k) } * high.magnitude(omega: w1k))
        high.b0 *= gain; high.b1 *= gain; high.b2 *= gain
        return low + [high]
    }

    /// The monic numerator 1 + n₁z⁻¹ + n₂z⁻² with zeros inside the unit circle whose power spectrum is
    /// proportional to c₀ + c₁·cos ω + c₂·cos 2ω.
    ///
    /// The zeros of z²·(c₂/2·(z² + z⁻²) + c₁/2·(z + z⁻¹) + c₀) come in pairs (r, 1/r); with u = z + 1/z
    /// they solve c₂/2·u² + c₁/2·u + (c₀ − c₂) = 0, then z² − u·z + 1 = 0.
    private static func minimumPhaseNumerator(c0: Double, c1: Double, c2: Double) -> (Double, Double) {
        let a = c2 / 2, b = c1 / 2, c = c0 - c2
        var us: [Complex] = []
        let discriminant = b * b - 4 * a * c
        if a == 0 {
            us = [Complex(-c / b, 0)]
        } else if discriminant >= 0 {
            let q = -(b + (b < 0 ? -1 : 1) * discriminant.squareRoot()) / 2
            us = [Complex(q / a, 0), Complex(c / q, 0)]
        } else {
            let im = (-discriminant).squareRoot() / (2 * a)
            us = [Complex(-b / (2 * a), im), Complex(-b / (2 * a), -im)]
        }
        // For each u the root of z² − u·z + 1 of modulus ≤ 1 is 1/z_big, z_big = (u ± √(u² − 4))/2.
        let zeros = us.map { u -> Complex in
            let root = squareRoot(u * u - Complex(4, 0))
            let plus = (u + root) * Complex(0.5, 0), minus = (u - root) * Complex(0.5, 0)
            let big = modulus(plus) >= modulus(minus) ? plus : minus
            return Complex(1, 0) / big
        }
        if zeros.count == 1 { return (-zeros[0].real, 0) }
        let sum = zeros[0] + zeros[1], product = zeros[0] * zeros[1]
        return (-sum.real, product.real)
    }

    private static func modulus(_ z: Complex) -> Double { (z.real * z.real + z.imaginary * z.imaginary).squareRoot() }

    private static func squareRoot(_ z: Complex) -> Complex {
        let r = modulus(z)
        let re = ((r + z.real) / 2).squareRoot()
        let im = ((r - z.real) / 2).squareRoot()
        return Complex(re, z.imaginary < 0 ? -im : im)
    }
}

// MARK: - Calibration and dose

/// A sound level calibration: a signal at `dbfs` (RMS level re full scale) is `splDB` dB SPL.
///
/// Levels convert as L(dB SPL) = L(dBFS) + (splDB − dbfs); "94dB@-20dBFS" says that a −20 dBFS signal
/// was measured at 94 dB SPL (a 1 kHz calibrator tone, so A- and unweighted levels agree).
public struct SPLCalibration: Encodable, Sendable, Equatable {
    /// Sound pressure level in dB SPL (re 20 µPa) of the reference signal.
    public let splDB: Double
    /// Level in dBFS of the reference signal.
    public let dbfs: Double

    /// dB to add to a dBFS level to get dB SPL.
    package var offsetDB: Double { splDB - dbfs }

    /// Allowed sound pressure levels of the reference signal, dB SPL.
    package static let allowedSPLDB: ClosedRange<Double> = 0...200
    /// Allowed levels of the reference signal in the recording, dBFS (a calibration tone may be given
    /// above full scale of the recording).
    package static let allowedDBFS: ClosedRange<Double> = -200...20

    /// - Parameters:
    ///   - splDB: dB SPL, 0 … 200.
    ///   - dbfs: dBFS, −200 … 0 … +20 (a calibration tone may be given above full scale of the recording).
    public init(splDB: Double, dbfs: Double) throws(ShadesError) {
        guard splDB.isFinite, Self.allowedSPLDB.contains(splDB), dbfs.isFinite, Self.allowedDBFS.contains(dbfs) else {
            throw Parameter.calibration.error(.outOfRange, value: .text("\(formatNumber(splDB)) dB SPL at \(formatNumber(dbfs)) dBFS"))
        }
        (self.splDB, self.dbfs) = (splDB, dbfs)
    }

    /// Parses "94dB@-20dBFS" (spaces, "dB SPL"/"dBSPL" and case are free; the "dB" units may be left out):
    /// `<dB SPL>[dB[SPL]]@<dBFS>[dBFS]`.
    package init(parsing text: String) throws(ShadesError) {
        let bad = Parameter.calibration.error(.notParseable(expected: "a calibration", examples: "94dB@-20dBFS"), value: .given(text),
                                              allowed: AllowedValues(note: "<dB SPL>dB@<level>dBFS"))
        let compact = text.lowercased().filter { !$0.isWhitespace }
        let parts = compact.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw bad }
        func number(_ part: Substring, suffixes: [String]) -> Double? {
            var s = String(part)
            for suffix in suffixes where s.hasSuffix(suffix) {
                s.removeLast(suffix.count)
                break
            }
            return Double(s)
        }
        guard let spl = number(parts[0], suffixes: ["dbspl", "db"]),
              let fs = number(parts[1], suffixes: ["dbfs"]) else { throw bad }
        try self.init(splDB: spl, dbfs: fs)
    }
}

/// Daily noise dose after NIOSH (1998): 85 dBA for 8 hours, 3 dB exchange rate.
package enum NoiseDose {
    /// Recommended exposure limit in dBA for the criterion time.
    package static let nioshCriterionDBA = 85.0
    /// Criterion time in seconds (8 h).
    package static let nioshCriterionSeconds = 8.0 * 3600
    /// Level change in dB that halves the permissible time.
    package static let nioshExchangeRateDB = 3.0

    /// Permissible daily time in seconds at `levelDBA` (dB(A) SPL): T = 8 h / 2^((L − 85)/3).
    package static func nioshPermissibleSeconds(levelDBA: Double) -> Double {
        nioshCriterionSeconds / pow(2, (levelDBA - nioshCriterionDBA) / nioshExchangeRateDB)
    }

    /// Daily dose in percent for `listeningSeconds` at `levelDBA`: 100 % uses up the day's allowance.
    package static func nioshPercent(levelDBA: Double, listeningSeconds: Double) -> Double {
        100 * listeningSeconds / nioshPermissibleSeconds(levelDBA: levelDBA)
    }
}

// MARK: - Ambient level meter

/// A-weighted level of a recording: LAeq and LAFmax per channel, as a sound level meter (IEC 61672-1)
/// fed block by block.
///
/// Levels in dBFS are of the mean square against full scale 1.0, so a full-scale sine reads −3.01 dBFS
/// and a 1 kHz sine at −20 dBFS RMS reads −20.0 dBFS(A). LAeq = 10·log10(mean of the A-weighted x²);
/// LAF is the A-weighted x² through the "F" exponential time weighting (τ = 125 ms), LAFmax its largest
/// value. The filters start at rest. Channels run in pairs in two Double lanes, sample by sample (the C
/// kernel `ambient_level`), so results are identical whatever the block sizes (about 90 ms per 10 minutes
/// of 48 kHz stereo here).
package struct AmbientLevel: Sendable {
    /// "F" (fast) time constant in seconds.
    package static let fastTimeConstantSeconds = 0.125

    package let sampleRate: Double
    package let channelCount: Int
    /// Frames added so far.
    package private(set) var frameCount = 0

    /// Per section b0, b1, b2, −a1, −a2 (three A-weighting sections), then α and 1 − α of the F weighting.
    private let coefficients: [Double]
    /// Per pair of channels, 18 Doubles (two lanes each): six filter states, F state, F maximum, Σx².
    private var states: [Double]
    private static let statesPerGroup = 18

    /// - Parameters:
    ///   - sampleRate: Hz, 8,000 … 192,000.
    ///   - channelCount: channels per frame (≥ 1).
    package init(sampleRate: Double, channelCount: Int) throws(ShadesError) {
        try Parameter.rate.check(sampleRate)
        try Parameter.channels.check(Double(channelCount))
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let alpha = 1 - exp(-1 / (Self.fastTimeConstantSeconds * sampleRate))
        coefficients = AWeighting.sections(sampleRate: sampleRate).flatMap { s in [s.b0, s.b1, s.b2, -s.a1, -s.a2] }
            + [alpha, 1 - alpha]
        states = Array(repeating: 0, count: (channelCount + 1) / 2 * Self.statesPerGroup)
    }

    /// Adds planar channels: one buffer per channel, all of the same length.
    package mutating func add(_ channels: [UnsafeBufferPointer<Float>]) {
        precondition(channels.count == channelCount, "expected \(channelCount) channels, got \(channels.count)")
        let frames = channels[0].count
        precondition(channels.allSatisfy { $0.count == frames }, "channels must have the same length")
        add(frames: frames) { channels[$0].baseAddress }
    }

    /// Adds the frames of `block` (whose channel count must match).
    package mutating func add(_ block: AudioBlock) {
        precondition(block.channelCount == channelCount, "expected \(channelCount) channels, got \(block.channelCount)")
        add(frames: block.frameCount) { UnsafePointer(block.channel($0).baseAddress) }
    }

    private mutating func add(frames: Int, channel: (Int) -> UnsafePointer<Float>?) {
        guard frames > 0 else { return }
        let last = channelCount - 1
        coefficients.withUnsafeBufferPointer { c in
            states.withUnsafeMutableBufferPointer { states in
                for group in 0..<states.count / Self.statesPerGroup {
                    // The A-weighting cascade (direct form II transposed), F weighting and sums for two
                    // channels (the C kernel `ambient_level`); an odd last channel runs in both lanes.
                    Kernels.table.ambient_level!(channel(2 * group)!, channel(min(2 * group + 1, last))!,
                                                 frames, c.baseAddress!,
                                                 states.baseAddress! + group * Self.statesPerGroup)
                }
            }
        }
        frameCount += frames
    }

    /// Channel `c`'s value of the lane pair `index` (6: F state, 7: F maximum, 8: Σx²).
    private func state(_ index: Int, channel c: Int) -> Double { states[c / 2 * Self.statesPerGroup + 2 * index + c % 2] }

    // MARK: Intervals (a live meter's seconds)

    /// LAF maxima of the intervals before the current one (see ``takeIntervalMaximum()``), linear power.
    private var earlierMaximum: [Double] = []

    /// Σ of the A-weighted x² of channel `c` so far (full scale 1.0): an interval's LAeq is the difference
    /// over its frames.
    package func weightedEnergy(channel c: Int) -> Double { state(8, channel: c) }

    /// Each channel's LAF maximum (linear power) since the previous call, or the start; the next interval's
    /// maximum starts from the F level now. ``report(calibration:listeningSeconds:)`` keeps the overall one.
    package mutating func takeIntervalMaximum() -> [Double] {
        if earlierMaximum.isEmpty { earlierMaximum = Array(repeating: 0, count: channelCount) }
        return (0..<channelCount).map { c in
            let maximum = state(7, channel: c)
            earlierMaximum[c] = max(earlierMaximum[c], maximum)
            states[c / 2 * Self.statesPerGroup + 2 * 7 + c % 2] = state(6, channel: c)
            return maximum
        }
    }

    /// The levels of everything added so far.
    ///
    /// - Parameters:
    ///   - calibration: adds dB(A) SPL levels.
    ///   - listeningSeconds: with a calibration, adds the NIOSH daily dose of listening this long.
    package func report(calibration: SPLCalibration? = nil, listeningSeconds: Double? = nil) -> AmbientReport {
        let n = Double(frameCount)
        func level(_ power: Double) -> Double? { power > 0 && power.isFinite ? Decibels.fromPower(power) : nil }
        let laeq = (0..<channelCount).map { c in frameCount > 0 ? level(state(8, channel: c) / n) : nil }
        let lafmax = (0..<channelCount).map { c in level(max(state(7, channel: c), earlierMaximum.isEmpty ? 0 : earlierMaximum[c])) }
        return AmbientReport(sampleRate: sampleRate, durationSeconds: n / sampleRate,
                             laeqDBFSPerChannel: laeq, lafmaxDBFSPerChannel: lafmax,
                             calibration: calibration, listeningSeconds: listeningSeconds)
    }
}

/// What `AmbientLevel` measured. Levels of silence (−∞) are nil.
///
/// With two channels (headphones: one per ear) the headline levels are those of the louder channel, so
/// the dose follows the more exposed ear.
public struct AmbientReport: Encodable, Sendable, Equatable {
    /// Hz.
    package let sampleRate: Double
    /// Seconds of audio measured.
    package let durationSeconds: Double
    /// LAeq per channel in dBFS (mean square re full scale 1.0).
    package let laeqDBFSPerChannel: [Double?]
    /// LAFmax per channel in dBFS.
    package let lafmaxDBFSPerChannel: [Double?]
    /// LAeq of the loudest channel in dBFS.
    public let laeqDBFS: Double?
    /// Largest LAFmax over channels in dBFS.
    public let lafmaxDBFS: Double?
    /// The calibration used for the dB(A) levels, if any.
    package let calibration: SPLCalibration?
    /// LAeq in dB(A) SPL (needs a calibration).
    public let laeqDBA: Double?
    /// LAFmax in dB(A) SPL (needs a calibration).
    public let lafmaxDBA: Double?
    /// Listening time asked about, in seconds.
    package let listeningSeconds: Double?
    /// NIOSH daily dose in percent for `listeningSeconds` at `laeqDBA` (needs a calibration, a listening
    /// time and a non-silent signal).
    public let doseNIOSHPercent: Double?
    /// Listening time in seconds that reaches 100 % NIOSH dose at `laeqDBA` (needs a calibration).
    public let allowedListeningSeconds: Double?

    package init(sampleRate: Double, durationSeconds: Double, laeqDBFSPerChannel: [Double?], lafmaxDBFSPerChannel: [Double?],
                calibration: SPLCalibration?, listeningSeconds: Double?) {
        self.sampleRate = sampleRate
        self.durationSeconds = durationSeconds
        self.laeqDBFSPerChannel = laeqDBFSPerChannel
        self.lafmaxDBFSPerChannel = lafmaxDBFSPerChannel
        let laeq = laeqDBFSPerChannel.compactMap { $0 }.max()
        let lafmax = lafmaxDBFSPerChannel.compactMap { $0 }.max()
        laeqDBFS = laeq
        lafmaxDBFS = lafmax
        self.calibration = calibration
        self.listeningSeconds = listeningSeconds
        var laeqSPL: Double?
        if let offset = calibration?.offsetDB, let laeq { laeqSPL = laeq + offset }
        laeqDBA = laeqSPL
        if let offset = calibration?.offsetDB, let lafmax { lafmaxDBA = lafmax + offset } else { lafmaxDBA = nil }
        allowedListeningSeconds = laeqSPL.map { NoiseDose.nioshPermissibleSeconds(levelDBA: $0) }
        if let laeqSPL, let listeningSeconds {
            doseNIOSHPercent = NoiseDose.nioshPercent(levelDBA: laeqSPL, listeningSeconds: listeningSeconds)
        } else {
            doseNIOSHPercent = nil
        }
    }
}
