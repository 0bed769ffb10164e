import Testing
import ShadesDSP

/// Building blocks of the catalogue's nature textures.
@Suite struct TextureTests {
    @Test func mixIsTheGainedSumOfItsLayers() throws {
        let a = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, seed: 1)
        let b = try NoiseSource(colour: .brown, sampleRate: 48_000, layout: .stereo, seed: 2)
        let mix = try MixSource(layers: [(a, 0.5), (b, 0.25)]).renderBuffer(frameCount: 10_000)
        let x = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, seed: 1).renderBuffer(frameCount: 10_000)
        let y = try NoiseSource(colour: .brown, sampleRate: 48_000, layout: .stereo, seed: 2).renderBuffer(frameCount: 10_000)
        for c in 0..<2 {
            let expected = zip(x.samples(channel: c), y.samples(channel: c)).map { $0 * 0.5 + $1 * 0.25 }
            #expect(mix.samples(channel: c) == expected)
        }
        #expect(throws: ShadesError.self) { try MixSource(layers: [MixSource.Layer]()) }
        #expect(throws: ShadesError.self) {
            try MixSource(layers: [(try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .mono), 1),
                                   (try NoiseSource(colour: .pink, sampleRate: 44_100, layout: .mono), 1)])
        }
    }

    @Test func swellIsSmoothBoundedAndBlockInvariant() throws {
        func make() throws -> EnvelopedSource<SwellEnvelope> {
            EnvelopedSource(carrier: try ToneSource(frequencyHz: 1000, sampleRate: 8_000, layout: .mono, levelDBFS: -3.0103),
                            envelope: try SwellEnvelope(sampleRate: 8_000, periodSeconds: 4, depth: 0.8, seed: 3))
        }
        let whole = try make().renderBuffer(frameCount: 80_000)
        let pieces = renderInRandomBlocks(try make(), frames: 80_000, maxBlock: 3000, seed: 9)
        #expect(whole.samples(channel: 0) == pieces.samples(channel: 0))
        let swell = try make()
        let gains = (0..<80_000).map { swell.envelope.gain(atFrame: $0) }
        #expect(gains.allSatisfy { $0 >= 0.2 - 1e-9 && $0 <= 1.8 + 1e-9 })
        // Smooth: the gain moves by less than 1e-3 per sample at 8 kHz with a 4 s period.
        #expect(zip(gains, gains.dropFirst()).allSatisfy { abs($0 - $1) < 1e-3 })
        #expect(throws: ShadesError.self) { try SwellEnvelope(sampleRate: 48_000, periodSeconds: 0.5, depth: 0.5) }
        #expect(throws: ShadesError.self) { try SwellEnvelope(sampleRate: 48_000, periodSeconds: 5, depth: 2) }
    }

    @Test func loopPeriodsHaveWholeCycles() {
        let frames = 48_000 * 60
        for period in SwellEnvelope.loopPeriods(near: 7, frameCount: frames, sampleRate: 48_000) {
            let cycles = 60 / period
            #expect(abs(cycles - cycles.rounded()) < 1e-9)
        }
    }
}
