import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesRender
import ShadesTestSupport

/// The tinnitus-like sounds, one per quality cluster (PMC8060060), through the render path: each measured
/// where it would be wrong (harmonic levels, band, pulse and chirp rates by the envelope, fluctuation rate
/// and depth), at the level, block-size invariant and seeded.
@Suite struct TinnitusSoundTests {
    func figure(_ text: @autoclosure () -> String) {
        if ProcessInfo.processInfo.environment["SHADES_PRINT_FIGURES"] != nil { print("figure: " + text()) }
    }

    static let sounds: [Generator] = [
        .tinnitusTone(frequencyHz: 6_000, harmonicGainsDB: [-12, -20]),
        .tinnitusHiss(centreHz: 6_000, widthOctaves: 1),
        .tinnitusPulse(centreHz: 500, widthOctaves: 2, heartRateBPM: 72),
        .tinnitusRoar(centreHz: 150, widthOctaves: 2, fluctuationHz: 1, depth: 0.5),
        .tinnitusCricket(frequencyHz: 5_000, chirpRateHz: 2.5, syllables: 3, syllableRateHz: 30),
    ]

    /// Mono, 20 s, at the kind's default level: the samples after the gain and the level measured.
    func render(_ generator: Generator, seconds: Double = 20, loop: Bool = false) throws -> (x: [Float], rmsDBFS: Double) {
        let sound = try Renderer.render(RenderRequest(sound: Sound(generator), durationSeconds: seconds, layout: .mono, seed: 2, loop: loop))
        let x = sound.buffer.samples(channel: 0).map { $0 * sound.gains[0] }
        return (x, x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) })
    }

    func modulation(_ x: [Float], rates: ClosedRange<Double>, band: ClosedRange<Double>) throws -> ModulationEstimate {
        try x.withUnsafeBufferPointer { try ModulationAnalysis.estimate($0, sampleRate: 48_000, rateRangeHz: rates, carrierBandHz: band) }
    }

    @Test(arguments: sounds)
    func eachIsAtItsLevelBlockSizeInvariantAndSeeded(generator: Generator) throws {
        let request = RenderRequest(sound: generator, durationSeconds: 4, seed: 5)
        let graph = try SoundGraph(request)
        let whole = graph.makeSource().renderBuffer(frameCount: graph.frames)
        let blocks = graph.makeSource().renderInRandomBlocks(frames: graph.frames, seed: 7)
        for c in 0..<2 { #expect(whole.samples(channel: c) == blocks.samples(channel: c)) }
        #expect(try SoundGraph(request).makeSource().renderBuffer(frameCount: graph.frames).samples(channel: 0) == whole.samples(channel: 0))
        var other = request
        other.seed = 6
        let isNoise = generator.as(TinnitusTone.self) == nil && generator.as(TinnitusCricket.self) == nil
        #expect((try SoundGraph(other).makeSource().renderBuffer(frameCount: graph.frames).samples(channel: 0) != whole.samples(channel: 0)) == isNoise)
        // The file at the level exactly (the kind's default).
        let level = LevelPolicy.default(for: Sound(generator)).rmsDBFS!
        let (_, rms) = try render(generator, seconds: 4)
        #expect(abs(rms - level) < 1e-3, "\(generator.name): \(rms) dBFS, asked \(level)")
    }

    @Test func theToneHasItsHarmonicsAtTheirGains() throws {
        let (x, _) = try render(.tinnitusTone(frequencyHz: 3_000, harmonicGainsDB: [-6, -20, -40]))
        let spectrum = try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000) }
        let powers = (1...4).map { k in spectrum.bandPower(from: 3_000 * Double(k) - 5, to: 3_000 * Double(k) + 5) }
        let levels = powers.map { Decibels.fromPower($0 / powers[0]) }
        figure("tinnitus-tone harmonics re the fundamental: \(levels) dB (asked 0, -6, -20, -40)")
        for (measured, asked) in zip(levels, [0.0, -6, -20, -40]) { #expect(abs(measured - asked) < 0.05) }
        // Nothing else: the four lines hold all the power but 10⁻⁶.
        #expect(powers.reduce(0, +) / spectrum.bandPower(from: 0, to: 24_000) > 1 - 1e-6)
    }

    @Test func theHissIsItsBand() throws {
        let (x, _) = try render(.tinnitusHiss(centreHz: 6_000, widthOctaves: 1))
        let spectrum = try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000) }
        let total = spectrum.bandPower(from: 0, to: 24_000)
        let inBand = spectrum.bandPower(from: 6_000 / 2.0.squareRoot(), to: 6_000 * 2.0.squareRoot()) / total
        // With the band's transitions (1/12 octave beyond each edge): all but 10⁻⁴.
        let skirt = pow(2, NarrowBandDesign.transitionOctaves)
        let withSkirts = spectrum.bandPower(from: 6_000 / 2.0.squareRoot() / skirt, to: 6_000 * 2.0.squareRoot() * skirt) / total
        figure("tinnitus-hiss: \(inBand * 100) % of the power inside 4243 … 8485 Hz, \(withSkirts * 100) % with the skirts")
        #expect(inBand > 0.95 && withSkirts > 0.9999)
    }

    /// The whoosh's envelope repeats at the heart rate; the band is where it was asked.
    @Test(arguments: [60.0, 72, 110])
    func thePulseBeatsAtTheHeartRate(bpm: Double) throws {
        let (x, _) = try render(.tinnitusPulse(centreHz: 500, widthOctaves: 2, heartRateBPM: bpm), seconds: 30)
        let estimate = try modulation(x, rates: 0.5...2.5, band: 200...1_200)
        figure("tinnitus-pulse \(bpm) BPM: envelope rate \(estimate.rateHz * 60) BPM")
        #expect(abs(estimate.rateHz * 60 - bpm) < 0.1, "\(estimate.rateHz * 60) BPM")
        // 40 % of each beat sounds: the quietest 50 % of 10-ms frames hold under 1 % of the power.
        let frames: [Double] = stride(from: 0, to: x.count - 480, by: 480).map { i in x[i..<i + 480].reduce(0.0) { $0 + Double($1 * $1) } }.sorted()
        let quietShare: Double = frames.prefix(frames.count / 2).reduce(0, +) / frames.reduce(0, +)
        #expect(quietShare < 0.01)
    }

    @Test(arguments: [(1.0, 0.5), (3.0, 0.8)])
    func theRoarFluctuatesAtItsRateAndDepth(rate: Double, depth: Double) throws {
        let (x, _) = try render(.tinnitusRoar(centreHz: 1_000, widthOctaves: 2, fluctuationHz: rate, depth: depth), seconds: 60)
        let estimate = try modulation(x, rates: 0.5...8, band: 400...2_500)
        figure("tinnitus-roar \(rate) Hz m \(depth): measured \(estimate.rateHz) Hz, m \(estimate.depth)")
        #expect(abs(estimate.rateHz - rate) < 0.01 && abs(estimate.depth - depth) < 0.05, "\(estimate)")
    }

    /// Chirps at the chirp rate, each of its syllables at the syllable rate, of a tone at the frequency.
    @Test func theCricketChirps() throws {
        let (x, _) = try render(.tinnitusCricket(frequencyHz: 5_000, chirpRateHz: 2.5, syllables: 3, syllableRateHz: 30))
        let chirps = try modulation(x, rates: 1...5, band: 2_500...10_000)
        #expect(abs(chirps.rateHz - 2.5) < 0.01, "chirps \(chirps.rateHz) Hz")
        let syllables = try modulation(x, rates: 20...45, band: 2_500...10_000)
        #expect(abs(syllables.rateHz - 30) < 0.1, "syllables \(syllables.rateHz) Hz")
        // Syllables per chirp: rising crossings of half the peak of a 1-ms power envelope, per chirp.
        let envelope = stride(from: 0, to: x.count - 48, by: 48).map { i in x[i..<i + 48].reduce(0.0) { max($0, Double(abs($1))) } }
        let top = envelope.max()!
        let onsets = (1..<envelope.count).filter { envelope[$0 - 1] < top / 2 && envelope[$0] >= top / 2 }.count
        figure("tinnitus-cricket: chirps \(chirps.rateHz) Hz, syllables \(syllables.rateHz) Hz, \(onsets) onsets in 20 s")
        #expect(onsets == 50 * 3)
        let spectrum = try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000) }
        let peak = spectrum.density.indices.max { spectrum.density[$0] < spectrum.density[$1] }!
        #expect(abs(Double(peak) * spectrum.binWidthHz - 5_000) <= spectrum.binWidthHz)
    }

    @Test func loopsRepeatWholeBeatsAndChirps() throws {
        for generator in Self.sounds {
            let graph = try SoundGraph(RenderRequest(sound: generator, durationSeconds: 3.1, layout: .mono, seed: 1, loop: true))
            let x = graph.makeSource().renderBuffer(frameCount: graph.frames).samples(channel: 0)
            let steps = (1..<x.count).map { abs(x[$0] - x[$0 - 1]) }
            #expect(abs(x[0] - x[x.count - 1]) <= steps.max()!, "\(generator.name)")
        }
    }

    @Test func badValuesAreRefusedWithTheirRange() throws {
        let cases: [(Generator, String)] = [
            (.tinnitusPulse(centreHz: 500, widthOctaves: 2, heartRateBPM: 200), "heart rate 200 BPM is out of range (allowed: 40 … 180 BPM)"),
            (.tinnitusRoar(centreHz: 150, widthOctaves: 2, fluctuationHz: 10, depth: 0.5), "fluctuation rate 10 Hz is out of range (allowed: 0.5 … 8 Hz)"),
            (.tinnitusRoar(centreHz: 150, widthOctaves: 2, fluctuationHz: 1, depth: 1.5), "fluctuation depth 1.5 is out of range (allowed: 0 … 1)"),
            (.tinnitusCricket(frequencyHz: 5_000, chirpRateHz: 5, syllables: 8, syllableRateHz: 30),
             "pulses per chirp 8 is out of range (allowed: 1 … 6 (whole numbers) (those that fit in one chirp at 5 chirps and 30 pulses a second))"),
            (.tinnitusTone(frequencyHz: 9_000, harmonicGainsDB: [-6, -6]),
             "frequency 27000 Hz is out of range (allowed: above 0 and below 24000 Hz, for the highest harmonic (3 × the frequency) below Nyquist)"),
            (.tinnitusTone(frequencyHz: 1_000, harmonicGainsDB: [3]), "harmonic gain 3 dB is out of range (allowed: -60 … 0 dB)"),
        ]
        for (generator, message) in cases {
            do {
                try RenderRequest(sound: generator, durationSeconds: 2).validate()
                Issue.record("\(generator.summary) accepted")
            } catch {
                #expect(error.description == message)
            }
        }
    }
}
