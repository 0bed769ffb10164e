import ShadesPlatform

/// A gain over time that is a pure function of the absolute frame, so every block size, every pass and a
/// loop's seam see the same gains.
package protocol GainEnvelope: Sendable {
    /// The linear gain at absolute frame `frame` (≥ 0).
    func gain(atFrame frame: Int) -> Double
}

/// The swell of a mix's layer is such an envelope too (``MixSource`` applies it with the layer's gain).
extension SwellEnvelope: GainEnvelope {}

/// `carrier` times a ``GainEnvelope``, the same gain on every channel. Allocates nothing while rendering.
package final class EnvelopedSource<Envelope: GainEnvelope>: AudioSource {
    package let carrier: any AudioSource
    package let envelope: Envelope
    package var sampleRate: Double { carrier.sampleRate }
    package var channelCount: Int { carrier.channelCount }
    private let gains: UnsafeMutablePointer<Float>
    private var position = 0
    private static var chunkFrames: Int { 256 }

    package init(carrier: any AudioSource, envelope: Envelope) {
        (self.carrier, self.envelope) = (carrier, envelope)
        gains = .allocate(capacity: Self.chunkFrames)
        gains.initialize(repeating: 0, count: Self.chunkFrames)
    }

    deinit { gains.deallocate() }

    package func prepareForRealTime(_ preparation: RealTimePreparation) { carrier.prepareForRealTime(preparation) }

    package func render(into block: AudioBlock) {
        carrier.render(into: block)
        var done = 0
        while done < block.frameCount {
            let count = min(Self.chunkFrames, block.frameCount - done)
            for i in 0..<count { gains[i] = Float(envelope.gain(atFrame: position + done + i)) }
            for c in 0..<block.channelCount {
                let channel = block.channel(c)
                for i in 0..<count { channel[done + i] *= gains[i] }
            }
            done += count
        }
        position += block.frameCount
    }
}

/// The raised-cosine step 0 → 1 over x in [0, 1].
@inline(__always) private func raisedCosine(_ x: Double) -> Double { (1 - cos(Double.pi * x)) / 2 }

/// A uniform number in [0, 1) drawn for `index` under `key`: a counter-based draw, so any index is found
/// without the ones before it.
@inline(__always) private func draw(_ key: UInt64, _ index: Int) -> Double {
    var mixer = SplitMix64(seed: key &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
    return mixer.nextUnit()
}

/// A band-limited random curve in [−1, 1] that never repeats: knots, uniform in [−1, 1], drawn
/// ``knotsPerBandwidth`` times a second for each hertz of bandwidth and joined by raised-cosine segments, so
/// the curve is smooth and bounded and holds 99.7 % of its power below the bandwidth. Knots are drawn by
/// index from `key`, so any frame is found without the ones before it. In a loop the knots repeat with the
/// loop, spaced to fit it whole. Random amplitude modulation and random frequency modulation ride on it.
package struct RandomCurve: Sendable, Equatable {
    /// Frames between knots.
    package let framesPerKnot: Double
    /// Knots in a loop (they repeat), nil for an endless stream.
    package let knotsPerLoop: Int?
    /// The loop's frames (the curve repeats with them), nil for an endless stream.
    private let loopFrames: Int?
    private let key: UInt64

    /// Knots per second for each hertz of bandwidth: the raised-cosine joins' images then hold 0.3 % of the
    /// curve's power above the bandwidth (2 knots per hertz, the Nyquist rate, would leave 8 % there).
    package static let knotsPerBandwidth = 1.25

    /// - Parameters:
    ///   - bandwidthHz: highest frequency of the curve, Hz (above 0).
    ///   - loopFrames: the loop's length, whose knots then repeat with it; nil for an endless stream.
    ///   - key: the random stream (a ``SeedStream`` key under the sound's seed).
    package init(bandwidthHz: Double, sampleRate: Double, key: UInt64, loopFrames: Int? = nil) {
        (self.key, self.loopFrames) = (key, loopFrames)
        let spacing = sampleRate / (Self.knotsPerBandwidth * bandwidthHz)
        if let loopFrames {
            let knots = max(2, Int((Double(loopFrames) / spacing).rounded()))
            (knotsPerLoop, framesPerKnot) = (knots, Double(loopFrames) / Double(knots))
        } else {
            (knotsPerLoop, framesPerKnot) = (nil, spacing)
        }
    }

    /// The curve at absolute frame `frame` (≥ 0), in [−1, 1].
    package func value(atFrame frame: Int) -> Double {
        let x = Double(loopFrames.map { frame % $0 } ?? frame) / framesPerKnot
        let k = Int(x.rounded(.down))
        let (a, b) = (knot(k), knot(k + 1))
        return a + (b - a) * raisedCosine(x - Double(k))
    }

    /// Knot `k`, uniform in [−1, 1].
    private func knot(_ k: Int) -> Double {
        2 * draw(key, knotsPerLoop.map { k % $0 } ?? k) - 1
    }
}

/// Random amplitude modulation (the aperiodic modulation of hearing-aid sound generators: ReSound, US patent
/// 10,440,487): the level wanders within ±depth/2 dB of its centre along a band-limited ``RandomCurve``, so
/// it is smooth, bounded and never repeats (in a loop it repeats with the loop). The gain is divided by the
/// root of its expected power, so the modulated sound keeps the carrier's RMS in expectation.
package struct RandomModulation: GainEnvelope, Equatable {
    /// Highest frequency of the level's curve, Hz.
    package let bandwidthHz: Double
    /// Range of the level, dB peak to peak.
    package let depthDB: Double
    /// The level's curve.
    package let curve: RandomCurve
    /// ln(10)/20 · depth/2: the knot value's exponent in amplitude.
    private let exponent: Double
    private let normaliser: Double

    /// Frames between knots.
    package var framesPerKnot: Double { curve.framesPerKnot }
    /// Knots in a loop (they repeat), nil for an endless stream.
    package var knotsPerLoop: Int? { curve.knotsPerLoop }
    /// Allowed bandwidth, Hz: from a wave a minute and a half (0.01 Hz) to a flutter (20 Hz).
    package static let allowedBandwidthHz: ClosedRange<Double> = 0.01...20
    /// Allowed depth, dB peak to peak.
    package static let allowedDepthDB: ClosedRange<Double> = 0...40

    /// - Parameters:
    ///   - loopFrames: the loop's length, whose knots then repeat with it; nil for an endless stream.
    ///   - key: the random stream (``SeedStream/envelope``'s key under the sound's seed).
    package init(bandwidthHz: Double, depthDB: Double, sampleRate: Double, key: UInt64, loopFrames: Int? = nil) throws(ShadesError) {
        try Self.validate(bandwidthHz: bandwidthHz, depthDB: depthDB)
        (self.bandwidthHz, self.depthDB) = (bandwidthHz, depthDB)
        curve = RandomCurve(bandwidthHz: bandwidthHz, sampleRate: sampleRate, key: key, loopFrames: loopFrames)
        exponent = 2.302_585_092_994_046 / 20 * depthDB / 2
        normaliser = 1 / Self.meanPower(exponent: exponent).squareRoot()
    }

    package static func validate(bandwidthHz: Double, depthDB: Double) throws(ShadesError) {
        try Parameter.randomAMBandwidth.check(bandwidthHz)
        try Parameter.randomAMDepth.check(depthDB)
    }

    package func gain(atFrame frame: Int) -> Double {
        exp(exponent * curve.value(atFrame: frame)) * normaliser
    }

    /// E[gain²] before normalising: for knots a, b uniform in [−1, 1] and w the raised cosine of s uniform in
    /// [0, 1), E[e^{2e(a(1−w) + bw)}] = mean over s of S(2e(1−w))·S(2ew), S(z) = sinh(z)/z.
    private static func meanPower(exponent e: Double) -> Double {
        func s(_ z: Double) -> Double { abs(z) < 1e-8 ? 1 : sinh(z) / z }
        let steps = 512
        var sum = 0.0
        for i in 0..<steps {
            let w = raisedCosine((Double(i) + 0.5) / Double(steps))
            sum += s(2 * e * (1 - w)) * s(2 * e * w)
        }
        return sum / Double(steps)
    }
}

/// Surf: waves of level with an asymmetric envelope, one wave in each slot of `period` seconds (Noice #604,
/// Blankie #103; a comfort study of surf-like sounds preferred damped envelopes, a fast rise and a slow decay of
/// 5–8 s, over ramped ones: CJSLPA 2019). A *damped* wave rises by a raised cosine over the rise time, then
/// decays exponentially (linearly in dB) over the decay time; a *ramped* wave rises exponentially and falls
/// by a raised cosine (a slow rise and a fast decay make it the mirror image of a damped
/// wave). Between waves the level rests `depth` dB below the crest. With
/// random intervals each wave starts at a random time within its slot (the gaps vary from none to twice the
/// slot's rest), drawn by slot index from the seed. In a loop the slots repeat with the loop, spaced to fit
/// it whole. The gain is divided by the root of its mean power, so the sound keeps the carrier's RMS.
package struct SurfEnvelope: GainEnvelope, Equatable {
    package enum Shape: String, Sendable, CaseIterable, Codable { case damped, ramped }

    package let riseFrames: Double, decayFrames: Double
    /// Frames per slot (a wave and its rest).
    package let slotFrames: Double
    /// Slots in a loop (they repeat), nil for an endless stream.
    package let slotsPerLoop: Int?
    package let shape: Shape
    package let randomIntervals: Bool
    /// Level between waves, dB below the crest.
    package let depthDB: Double
    /// The loop's frames (the gains repeat with them), nil for an endless stream.
    private let loopFrames: Int?
    private let key: UInt64
    private let normaliser: Double

    /// Allowed rise and decay, seconds; period, seconds; depth, dB.
    package static let allowedRiseSeconds: ClosedRange<Double> = 0.01...60
    package static let allowedPeriodSeconds: ClosedRange<Double> = 1...120
    package static let allowedDepthDB: ClosedRange<Double> = 0...60

    package init(riseSeconds: Double, decaySeconds: Double, periodSeconds: Double, shape: Shape, randomIntervals: Bool,
                 depthDB: Double, sampleRate: Double, key: UInt64, loopFrames: Int? = nil) throws(ShadesError) {
        try Self.validate(riseSeconds: riseSeconds, decaySeconds: decaySeconds, periodSeconds: periodSeconds, depthDB: depthDB)
        (self.shape, self.randomIntervals, self.depthDB, self.key, self.loopFrames) = (shape, randomIntervals, depthDB, key, loopFrames)
        (riseFrames, decayFrames) = (riseSeconds * sampleRate, decaySeconds * sampleRate)
        let slot = periodSeconds * sampleRate
        if let loopFrames {
            let slots = max(1, Int((Double(loopFrames) / slot).rounded(.down)))
            (slotsPerLoop, slotFrames) = (slots, Double(loopFrames) / Double(slots))
        } else {
            (slotsPerLoop, slotFrames) = (nil, slot)
        }
        let (rise, decay) = (riseFrames, decayFrames)
        let mean = Self.meanPower(over: slotFrames) { Self.levelDB($0, rise: rise, decay: decay, depthDB: depthDB, shape: shape) }
        normaliser = 1 / mean.squareRoot()
    }

    /// Each value in its range, and a wave that fits its slot: rise + decay ≤ period.
    package static func validate(riseSeconds: Double, decaySeconds: Double, periodSeconds: Double, depthDB: Double) throws(ShadesError) {
        try Parameter.surfRise.check(riseSeconds)
        try Parameter.surfDecay.check(decaySeconds)
        try Parameter.surfPeriod.check(periodSeconds)
        try Parameter.surfDepth.check(depthDB)
        guard riseSeconds + decaySeconds <= periodSeconds else {
            throw Parameter.surfPeriod.outOfRange(periodSeconds, range: .atLeast(riseSeconds + decaySeconds, unit: .seconds),
                                                  note: "to hold a wave's rise and decay")
        }
    }

    package func gain(atFrame frame: Int) -> Double {
        let t = Double(loopFrames.map { frame % $0 } ?? frame)
        let slot = Int((t / slotFrames).rounded(.down))
        let rest = slotFrames - riseFrames - decayFrames
        let start = Double(slot) * slotFrames + (randomIntervals ? draw(key, slot) * rest : 0)
        return Decibels.amplitude(Self.levelDB(t - start, rise: riseFrames, decay: decayFrames, depthDB: depthDB, shape: shape)) * normaliser
    }

    /// The level `tau` frames into a wave of `rise` and `decay` frames, dB re the crest (−depth before and
    /// after it).
    private static func levelDB(_ tau: Double, rise: Double, decay: Double, depthDB: Double, shape: Shape) -> Double {
        guard tau >= 0, tau < rise + decay else { return -depthDB }
        switch (shape, tau < rise) {
        case (.damped, true): return -depthDB * (1 - raisedCosine(tau / rise))
        case (.damped, false): return -depthDB * (tau - rise) / decay
        case (.ramped, true): return -depthDB * (1 - tau / rise)
        case (.ramped, false): return -depthDB * raisedCosine((tau - rise) / decay)
        }
    }

    /// Mean of gain² over a slot of `frames` frames (the wave's place in its slot does not change it).
    private static func meanPower(over frames: Double, _ levelDB: (Double) -> Double) -> Double {
        let steps = 8192
        var sum = 0.0
        for i in 0..<steps { sum += Decibels.power(levelDB((Double(i) + 0.5) / Double(steps) * frames)) }
        return sum / Double(steps)
    }
}

extension Parameter {
    /// Random amplitude modulation: the highest frequency of the level's curve, Hz.
    package static let randomAMBandwidth = Parameter(.randomAMBandwidth, unit: .hertz,
                                                     range: ParameterRange(RandomModulation.allowedBandwidthHz, unit: .hertz))
    /// Random amplitude modulation: the range of the level, dB peak to peak.
    package static let randomAMDepth = Parameter(.randomAMDepth, unit: .decibels,
                                                 range: ParameterRange(RandomModulation.allowedDepthDB, unit: .decibels), default: 10)
    /// Surf: a wave's rise and decay, seconds (defaults: a damped wave of CJSLPA 2019, decay 5–8 s).
    package static let surfRise = Parameter(.surfRise, unit: .seconds,
                                            range: ParameterRange(SurfEnvelope.allowedRiseSeconds, unit: .seconds), default: 0.8)
    package static let surfDecay = Parameter(.surfDecay, unit: .seconds,
                                             range: ParameterRange(SurfEnvelope.allowedRiseSeconds, unit: .seconds), default: 6)
    /// Surf: the mean time from one wave to the next, seconds.
    package static let surfPeriod = Parameter(.surfPeriod, unit: .seconds,
                                              range: ParameterRange(SurfEnvelope.allowedPeriodSeconds, unit: .seconds), default: 10)
    /// Surf: the level between waves, dB below the crest.
    package static let surfDepth = Parameter(.surfDepth, unit: .decibels,
                                             range: ParameterRange(SurfEnvelope.allowedDepthDB, unit: .decibels), default: 12)
    /// Surf: the wave's shape, damped or ramped.
    package static let surfShape = Parameter(.surfShape, note: "damped or ramped")
    /// Surf: the waves' intervals, random or periodic.
    package static let surfIntervals = Parameter(.surfIntervals, note: "random or periodic")
}

extension ParameterID {
    package static let randomAMBandwidth = ParameterID("randomAMBandwidth", name: "random AM bandwidth")
    package static let randomAMDepth = ParameterID("randomAMDepth", name: "random AM depth")
    package static let surfRise = ParameterID("surfRise", name: "surf rise")
    package static let surfDecay = ParameterID("surfDecay", name: "surf decay")
    package static let surfPeriod = ParameterID("surfPeriod", name: "surf period")
    package static let surfDepth = ParameterID("surfDepth", name: "surf depth")
    package static let surfShape = ParameterID("surfShape", name: "surf shape")
    package static let surfIntervals = ParameterID("surfIntervals", name: "surf intervals")
}
