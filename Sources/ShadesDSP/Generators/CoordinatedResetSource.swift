import ShadesPlatform

/// The parameters of an acoustic coordinated-reset pattern (Tass et al. 2012, Restor Neurol Neurosci 30:137–159;
/// timing as described by Adamchic et al. 2017, NeuroImage: Clinical 15:541–558, Fig. 1).
///
/// Four brief sinusoidal tones around the tinnitus frequency F sit in the four equidistant slots of a cycle
/// (1.5 Hz: a 2/3-s cycle of four 1/6-s slots). In each "on" cycle every tone plays once, in a random order
/// drawn anew for each cycle (seeded); `onCycles` cycles with tones are followed by `offCycles` silent
/// cycles, and so on. Slot k (counted from 0 at frame 0) starts at frame round(k · rate / (4 · cycleRateHz)),
/// computed from k alone, so onsets stay frame-exact however long the stream runs.
public struct CoordinatedResetPattern: Sendable, Equatable, Encodable {
    /// Which four frequencies, as multiples of the tinnitus frequency.
    public enum ToneSet: String, Sendable, Equatable, Codable, CaseIterable {
        /// 0.766, 0.9, 1.1, 1.4 × F: the ratios of the public implementations (the trial device's are not
        /// published; DOMAIN.md).
        case standard
        /// Four tones equally spaced in log frequency over the same span, 0.766 … 1.4 × F:
        /// 0.766 · (1.4 / 0.766)^(k/3), k = 0…3 (0.766, 0.938, 1.148, 1.4 × F; steps of 0.29 octave).
        case logSpaced = "log-spaced"

        /// The four ratios to F, ascending.
        package var ratios: [Double] {
            switch self {
            case .standard: return [0.766, 0.9, 1.1, 1.4]
            case .logSpaced: return (0..<4).map { 0.766 * pow(1.4 / 0.766, Double($0) / 3) }
            }
        }
    }

    /// Tinnitus frequency F in Hz; the highest tone (1.4 × F) must lie below Nyquist.
    public var tinnitusFrequencyHz: Double
    public var toneSet: ToneSet
    /// Length of each tone in seconds, ramps included; nil: the whole slot, 1 / (4 · cycleRateHz).
    public var toneSeconds: Double?
    /// Raised-cosine rise and fall of each tone, in seconds (10 ms by default), inside the tone.
    public var rampSeconds: Double
    /// Cycles per second (1.5 Hz in the studies); each cycle holds four slots.
    public var cycleRateHz: Double
    /// Cycles with tones before the silent ones (3).
    public var onCycles: Int
    /// Silent cycles after the tones (2); 0 for tones in every cycle.
    public var offCycles: Int
    /// Gain of each tone in dB, ascending frequency (e.g. from loudness matching); nil: all 0 dB.
    /// Relative only: the pattern as a whole is set to the asked RMS level.
    public var toneGainsDB: [Double]?

    public init(tinnitusFrequencyHz: Double, toneSet: ToneSet = .standard, toneSeconds: Double? = nil,
                rampSeconds: Double = 0.010, cycleRateHz: Double = 1.5, onCycles: Int = 3, offCycles: Int = 2,
                toneGainsDB: [Double]? = nil) {
        self.tinnitusFrequencyHz = tinnitusFrequencyHz
        self.toneSet = toneSet
        self.toneSeconds = toneSeconds
        self.rampSeconds = rampSeconds
        self.cycleRateHz = cycleRateHz
        self.onCycles = onCycles
        self.offCycles = offCycles
        self.toneGainsDB = toneGainsDB
    }

    /// The four tone frequencies in Hz, ascending.
    package var toneFrequenciesHz: [Double] { toneSet.ratios.map { $0 * tinnitusFrequencyHz } }

    /// Slot length in seconds: 1 / (4 · cycleRateHz).
    package var slotSeconds: Double { 1 / (4 * cycleRateHz) }

    /// Allowed cycle rates, Hz.
    package static let allowedCycleRateHz: ClosedRange<Double> = 0.1...10
    /// Allowed tone gains, dB.
    package static let allowedToneGainDB: ClosedRange<Double> = -40...40

    /// Checks every parameter at `sampleRate`; the error names the parameter and its allowed range.
    package func validate(sampleRate: Double) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        let highestRatio = toneSet.ratios[3]
        guard tinnitusFrequencyHz.isFinite, tinnitusFrequencyHz > 0,
              toneFrequenciesHz.allSatisfy({ $0 < sampleRate / 2 }) else {
            throw Parameter.frequency.outOfRange(
                tinnitusFrequencyHz, range: .above(0, below: sampleRate / 2 / highestRatio, unit: .hertz),
                note: "so the highest tone (\(formatNumber(highestRatio)) × F) lies below Nyquist (\(formatLimit(sampleRate / 2)) Hz)")
        }
        try Parameter.cycleRate.check(cycleRateHz)
        let slot = slotSeconds
        if let toneSeconds {
            guard toneSeconds.isFinite, toneSeconds > 0, toneSeconds <= slot * (1 + 1e-12) else {
                throw Parameter.toneLength.outOfRange(toneSeconds, range: .above(0, atMost: slot, unit: .seconds), note: "the slot")
            }
        }
        let tone = toneSeconds ?? slot
        guard rampSeconds.isFinite, rampSeconds >= 0, 2 * rampSeconds <= tone * (1 + 1e-12) else {
            throw Parameter.toneRamp.outOfRange(rampSeconds, range: ParameterRange(0...tone / 2, unit: .seconds),
                                                note: "half the tone length")
        }
        try Parameter.onCycles.check(Double(onCycles))
        try Parameter.offCycles.check(Double(offCycles))
        if let toneGainsDB {
            guard toneGainsDB.count == 4 else {
                throw Parameter.toneGains.error(.other("do not match the four tones"), value: .text("\(toneGainsDB.count) values"))
            }
            for g in toneGainsDB { try Parameter.toneGains.check(g) }
        }
    }
}

/// Acoustic coordinated reset: the tones of a ``CoordinatedResetPattern``, one signal.
///
/// Tone i in a slot starting at frame s is A·gᵢ·w(n − s)·sin(2π·fᵢ·(n − s)/rate): sine phase at its onset,
/// with raised-cosine ramps as in `Envelopes.swift` (gain 0 at the onset frame, so a tone's first non-zero
/// sample is frame s + 1; the fall reaches 0 at s + tone length). A tone never runs past the next slot's
/// onset. Between tones and in the silent cycles the samples are exactly 0.
///
/// Every sample is computed from its absolute frame (the slot, the cycle's order and the tone's own
/// frame), so any block sizes give the same samples and a stream may start anywhere (`startFrame`).
/// The order of cycle c is a Fisher–Yates shuffle from a SplitMix64 keyed by the seed and c.
///
/// Level: A is set so that the RMS over whole on+off periods is `levelDBFS` (the energy of each tone is
/// summed at init); a file of another length is measured by ``SoundGraph``'s usual pass.
package final class CoordinatedResetSource: AudioSource {
    package let sampleRate: Double
    /// One channel: a stimulus is one signal (``ChannelLayoutSource`` places it in the ears).
    package var channelCount: Int { 1 }
    package let pattern: CoordinatedResetPattern
    /// RMS over whole on+off periods, dBFS.
    package let levelDBFS: Double
    /// Peak amplitude of each tone (ascending frequency).
    package let toneAmplitudes: [Double]

    private let radiansPerFrame: SIMD4<Double>
    private let amplitudes: SIMD4<Double>
    private let framesPerSlot: Double
    private let toneFrames: Int
    private let rampFrames: Int
    private let orderKey: UInt64
    private var position: Int
    private var cachedCycle = -1
    private var cachedOrder = SIMD4<Int>(0, 1, 2, 3)

    /// - Parameters:
    ///   - levelDBFS: RMS over whole on+off periods, dBFS (any finite value; the peak is not limited here).
    ///   - seed: chooses the order of the tones in each cycle.
    ///   - startFrame: the absolute frame the first render starts at (0: the pattern's start).
    package init(pattern: CoordinatedResetPattern, sampleRate: Double,
                levelDBFS: Double = -20, seed: UInt64 = 1, startFrame: Int = 0) throws(ShadesError) {
        try pattern.validate(sampleRate: sampleRate)
        try validateStreamStart(levelDBFS: levelDBFS, startFrame: startFrame)
        self.sampleRate = sampleRate
        self.pattern = pattern
        self.levelDBFS = levelDBFS
        framesPerSlot = sampleRate / (4 * pattern.cycleRateHz)
        toneFrames = max(1, Int(((pattern.toneSeconds ?? pattern.slotSeconds) * sampleRate).rounded()))
        rampFrames = Int((pattern.rampSeconds * sampleRate).rounded())
        orderKey = SeedStream.schedule.key(seed: seed, channel: 0)
        position = startFrame

        let f = pattern.toneFrequenciesHz.map { $0 / sampleRate }
        let gains = (pattern.toneGainsDB ?? [0, 0, 0, 0]).map { Decibels.amplitude($0) }
        // Energy of one cycle's four tones at unit A; a period of on + off cycles holds `onCycles` of them.
        var cycleEnergy = 0.0
        let shortestSlot = Int(framesPerSlot.rounded(.down))
        for i in 0..<4 {
            for m in 0..<min(toneFrames, shortestSlot) {
                let x = gains[i] * Self.envelope(m, toneFrames: toneFrames, rampFrames: rampFrames) * sin(2 * Double.pi * f[i] * Double(m))
                cycleEnergy += x * x
            }
        }
        let periodFrames = Double(pattern.onCycles + pattern.offCycles) * 4 * framesPerSlot
        let meanPower = Double(pattern.onCycles) * cycleEnergy / periodFrames
        let a = Decibels.amplitude(levelDBFS) / meanPower.squareRoot()
        toneAmplitudes = gains.map { $0 * a }
        radiansPerFrame = SIMD4(f[0], f[1], f[2], f[3]) * (2 * Double.pi)
        amplitudes = SIMD4(toneAmplitudes[0], toneAmplitudes[1], toneAmplitudes[2], toneAmplitudes[3])
    }

    /// Raised-cosine gain of frame `m` of a tone (0 at m = 0 and m = toneFrames).
    @inline(__always) static func envelope(_ m: Int, toneFrames: Int, rampFrames: Int) -> Double {
        if rampFrames == 0 { return 1 }
        return min(raisedCosineGain(m, rampFrames: rampFrames), raisedCosineGain(toneFrames - m, rampFrames: rampFrames))
    }

    /// First frame of slot `k` (slots counted from 0 at frame 0): round(k · rate / (4 · cycleRateHz)).
    package func onsetFrame(slot k: Int) -> Int { Int((Double(k) * framesPerSlot).rounded()) }

    /// The tone index (0 … 3, ascending frequency) in each slot of cycle `cycle`, or nil for a silent cycle.
    /// (Allocates: for tests and reports, not the render path.)
    package func toneOrder(cycle: Int) -> [Int]? {
        guard isOnCycle(cycle) else { return nil }
        let order = Self.order(key: orderKey, cycle: cycle)
        return [order[0], order[1], order[2], order[3]]
    }

    private func isOnCycle(_ c: Int) -> Bool { c % (pattern.onCycles + pattern.offCycles) < pattern.onCycles }

    /// Fisher–Yates shuffle of 0…3 from a SplitMix64 keyed by `key` and the cycle.
    static func order(key: UInt64, cycle: Int) -> SIMD4<Int> {
        var rng = SplitMix64(seed: key ^ (UInt64(cycle) &* 0x9E37_79B9_7F4A_7C15))
        var order = SIMD4<Int>(0, 1, 2, 3)
        for i in stride(from: 3, to: 0, by: -1) {
            let j = Int(rng.next() % UInt64(i + 1))
            (order[i], order[j]) = (order[j], order[i])
        }
        return order
    }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == 1, "a stimulus renders one channel")
        let out = block.channel(0).baseAddress!
        let end = position + block.frameCount
        var n = position
        // The slot holding frame n.
        var k = Int((Double(n) / framesPerSlot).rounded(.down))
        while k > 0 && onsetFrame(slot: k) > n { k -= 1 }
        while onsetFrame(slot: k + 1) <= n { k += 1 }
        while n < end {
            let onset = onsetFrame(slot: k)
            let slotEnd = min(end, onsetFrame(slot: k + 1))
            let cycle = k / 4
            if isOnCycle(cycle) {
                if cycle != cachedCycle {
                    cachedOrder = Self.order(key: orderKey, cycle: cycle)
                    cachedCycle = cycle
                }
                let tone = cachedOrder[k % 4]
                let omega = radiansPerFrame[tone], a = amplitudes[tone]
                let toneEnd = min(slotEnd, onset + toneFrames)
                while n < toneEnd {
                    let m = n - onset
                    let w = Self.envelope(m, toneFrames: toneFrames, rampFrames: rampFrames)
                    out[n - position] = Float(a * w * sin(omega * Double(m)))
                    n += 1
                }
            }
            if n < slotEnd {
                (out + (n - position)).update(repeating: 0, count: slotEnd - n)
                n = slotEnd
            }
            k += 1
        }
        position = end
    }
}

extension Parameter {
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
}
