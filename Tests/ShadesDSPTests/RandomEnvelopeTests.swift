import Testing
import ShadesDSP
#if canImport(Glibc)
import Glibc
#endif

/// Random amplitude modulation and surf (RandomEnvelopes.swift): each envelope measured from its gains.
@Suite struct RandomEnvelopeTests {
    static let rate = 1_000.0  // a low rate keeps long envelopes cheap; the gains depend on time only

    /// The level in dB re the gain's centre (the normaliser taken out by the mean of the extremes).
    static func levelsDB(_ envelope: some GainEnvelope, frames: Int, step: Int = 1) -> [Double] {
        stride(from: 0, to: frames, by: step).map { Decibels.fromAmplitude(envelope.gain(atFrame: $0)) }
    }

    @Test func randomModulationStaysWithinItsDepthCoversItAndKeepsThePower() throws {
        let envelope = try RandomModulation(bandwidthHz: 2, depthDB: 12, sampleRate: Self.rate, key: 7)
        let frames = 2_000_000  // 4,000 knots
        let levels = Self.levelsDB(envelope, frames: frames)
        let (low, high) = (levels.min()!, levels.max()!)
        #expect(high - low <= 12 + 1e-9)          // within ±depth/2 of the centre
        #expect(high - low >= 11.5)               // and it uses the range
        let meanPower = levels.reduce(0) { $0 + Decibels.power($1) } / Double(levels.count)
        #expect(abs(Decibels.fromPower(meanPower)) < 0.1)  // the RMS is kept (0.1 dB over 4,000 knots)
    }

    /// 99 % of the level curve's power (its mean removed) lies below the bandwidth.
    @Test(arguments: [0.5, 2.0])
    func randomModulationIsBandLimited(bandwidthHz: Double) throws {
        let envelope = try RandomModulation(bandwidthHz: bandwidthHz, depthDB: 10, sampleRate: Self.rate, key: 3)
        let size = 1 << 18
        let fft = RealFFT(size: size)
        let levels = Self.levelsDB(envelope, frames: size)
        let mean = levels.reduce(0, +) / Double(size)
        fft.withSignal { signal in for i in 0..<size { signal[i] = Float(levels[i] - mean) } }
        fft.forward()
        var powers = [Double](repeating: 0, count: fft.binCount)
        fft.addBinPowers(to: &powers)
        let edge = Int(bandwidthHz / Self.rate * Double(size))
        let below = powers[1...edge].reduce(0, +), total = powers.dropFirst().reduce(0, +)
        #expect(below / total >= 0.99, "\(below / total)")
    }

    /// It never repeats: the level curve is unlike itself a bandwidth's worth of knots later, at any lag.
    @Test func randomModulationDoesNotRepeatAndDependsOnItsSeed() throws {
        let envelope = try RandomModulation(bandwidthHz: 1, depthDB: 10, sampleRate: Self.rate, key: 11)
        let other = try RandomModulation(bandwidthHz: 1, depthDB: 10, sampleRate: Self.rate, key: 12)
        let levels = Self.levelsDB(envelope, frames: 600_000, step: 50)
        func correlation(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
            let (ma, mb) = (a.reduce(0, +) / Double(a.count), b.reduce(0, +) / Double(b.count))
            var (ab, aa, bb) = (0.0, 0.0, 0.0)
            for (x, y) in zip(a, b) { ab += (x - ma) * (y - mb); aa += (x - ma) * (x - ma); bb += (y - mb) * (y - mb) }
            return ab / (aa * bb).squareRoot()
        }
        let window = levels.prefix(2_000)  // 100 s
        for lag in stride(from: 100, to: 10_000, by: 37) {  // 5 s … 500 s
            #expect(abs(correlation(window, levels[lag..<lag + 2_000])) < 0.3, "lag \(lag)")
        }
        #expect(abs(correlation(window, Self.levelsDB(other, frames: 100_000, step: 50)[...])) < 0.3)
    }

    @Test func aLoopRepeatsItsKnotsSoTheSeamIsInvisible() throws {
        let loop = 48_000 * 37 + 11
        let envelope = try RandomModulation(bandwidthHz: 0.3, depthDB: 10, sampleRate: 48_000, key: 5, loopFrames: loop)
        for frame in [0, 1, 999, 12_345] { #expect(envelope.gain(atFrame: frame) == envelope.gain(atFrame: frame + loop)) }
        // Across the seam the curve is as smooth as anywhere: one frame's step is tiny.
        #expect(abs(envelope.gain(atFrame: loop) - envelope.gain(atFrame: loop - 1)) < 1e-4)
    }

    @Test func anEnvelopedSourceGivesTheSameSamplesWhateverTheBlockSize() throws {
        let envelope = try RandomModulation(bandwidthHz: 5, depthDB: 20, sampleRate: 48_000, key: 9)
        let whole = EnvelopedSource(carrier: ConstantSource(channelCount: 2), envelope: envelope).renderBuffer(frameCount: 100_000).samples(channel: 0)
        let pieces = renderInRandomBlocks(EnvelopedSource(carrier: ConstantSource(channelCount: 2), envelope: envelope),
                                          frames: 100_000, maxBlock: 700, seed: 1)
        for c in 0..<2 { #expect(whole == pieces.samples(channel: c)) }
        for i in stride(from: 0, to: 100_000, by: 997) { #expect(whole[i] == Float(envelope.gain(atFrame: i))) }
    }

    /// A periodic damped wave: from the floor to the crest in the rise time (a raised cosine), then down to
    /// the floor in the decay time, linearly in dB; the next wave one period later; the power kept.
    @Test func aPeriodicDampedWaveRisesAndDecaysInItsTimes() throws {
        let envelope = try SurfEnvelope(riseSeconds: 1, decaySeconds: 6, periodSeconds: 10, shape: .damped, randomIntervals: false,
                                        depthDB: 20, sampleRate: Self.rate, key: 1)
        let levels = Self.levelsDB(envelope, frames: 100_000)
        let crest = levels.max()!
        let relative = levels.map { $0 - crest }
        for wave in 0..<10 {
            let start = wave * 10_000
            #expect(abs(relative[start] + 20) < 1e-9)                      // the floor at the wave's start
            #expect(abs(relative[start + 1_000]) < 1e-6)                   // the crest after the rise
            #expect(abs(relative[start + 500] + 10) < 1e-6)                // half-way up the raised cosine
            #expect(abs(relative[start + 4_000] + 10) < 1e-6)              // half-way down: linear in dB
            #expect(abs(relative[start + 7_000] + 20) < 1e-6)              // the floor after the decay
            #expect(relative[(start + 7_000)..<(start + 10_000)].allSatisfy { abs($0 + 20) < 1e-9 })
        }
        let meanPower = levels.reduce(0) { $0 + Decibels.power($1) } / Double(levels.count)
        #expect(abs(Decibels.fromPower(meanPower)) < 0.01)
    }

    /// A ramped wave is a damped one reversed in time; random intervals move each wave within its period.
    @Test func rampedWavesMirrorDampedOnesAndRandomIntervalsVary() throws {
        func envelope(_ shape: SurfEnvelope.Shape, random: Bool, rise: Double = 1, decay: Double = 6) throws -> SurfEnvelope {
            try SurfEnvelope(riseSeconds: rise, decaySeconds: decay, periodSeconds: 10, shape: shape, randomIntervals: random,
                             depthDB: 20, sampleRate: Self.rate, key: 4)
        }
        let damped = try envelope(.damped, random: false), ramped = try envelope(.ramped, random: false, rise: 6, decay: 1)
        for tau in stride(from: 0, through: 7_000, by: 250) {
            #expect(abs(damped.gain(atFrame: tau) - ramped.gain(atFrame: 7_000 - tau)) < 1e-6)
        }
        // Random: each crest (the slot's loudest frame) lies within its slot, at least a rise after its start.
        let random = try envelope(.damped, random: true)
        var offsets: [Int] = []
        for slot in 0..<40 {
            let frames = (slot * 10_000)..<((slot + 1) * 10_000)
            let crest = frames.max { random.gain(atFrame: $0) < random.gain(atFrame: $1) }!
            offsets.append(crest - slot * 10_000)
            #expect((1_000...4_000).contains(offsets.last!))  // start + rise, start in [0, period − rise − decay]
        }
        #expect(Set(offsets).count > 30)  // they vary
    }

    @Test func surfRefusesAWaveLongerThanItsPeriod() {
        #expect(throws: ShadesError.self) {
            try SurfEnvelope(riseSeconds: 2, decaySeconds: 9, periodSeconds: 10, shape: .damped, randomIntervals: true,
                             depthDB: 20, sampleRate: 48_000, key: 1)
        }
    }
}
