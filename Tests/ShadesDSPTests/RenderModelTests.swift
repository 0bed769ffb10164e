import Testing
import ShadesDSP

/// The render contract: block-size invariance, seed determinism and independent channels.
@Suite struct RenderModelTests {
    func sources() throws -> [(String, () throws -> any AudioSource)] {
        [
            ("pink stereo", { try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .stereo, seed: 3) }),
            ("brown left", { try NoiseSource(colour: .brown, sampleRate: 44_100, layout: .left, seed: 4) }),
            ("white uniform diotic", { try NoiseSource(colour: .white, sampleRate: 8_000, layout: .diotic, seed: 5, distribution: .uniform) }),
            ("violet mono 192k", { try NoiseSource(colour: .violet, sampleRate: 192_000, layout: .mono, seed: 6) }),
            ("tone right", { try ToneSource(frequencyHz: 997.3, sampleRate: 48_000, layout: .right) }),
        ]
    }

    @Test func blocksOfAnySizeGiveBitIdenticalSamples() throws {
        let frames = 50_000
        for (name, make) in try sources() {
            let whole = try make().renderBuffer(frameCount: frames)
            for (seed, maxBlock) in [(1 as UInt64, 7), (2, 300), (3, 5000)] {
                let pieces = renderInRandomBlocks(try make(), frames: frames, maxBlock: maxBlock, seed: seed)
                for c in 0..<whole.channelCount {
                    #expect(whole.samples(channel: c) == pieces.samples(channel: c), "\(name), blocks up to \(maxBlock), channel \(c)")
                }
            }
        }
    }

    @Test func sameSeedSameSamplesOtherSeedOtherSamples() throws {
        let a = try NoiseSource(colour: .pink, sampleRate: 48_000, seed: 11).renderBuffer(frameCount: 10_000)
        let b = try NoiseSource(colour: .pink, sampleRate: 48_000, seed: 11).renderBuffer(frameCount: 10_000)
        let c = try NoiseSource(colour: .pink, sampleRate: 48_000, seed: 12).renderBuffer(frameCount: 10_000)
        #expect(a.samples(channel: 0) == b.samples(channel: 0))
        #expect(a.samples(channel: 1) == b.samples(channel: 1))
        #expect(a.samples(channel: 0) != c.samples(channel: 0))
    }

    @Test func stereoEarsAreIndependentAndMonoSourcesReproduceThem() throws {
        let frames = 1 << 20
        let stereo = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .stereo, seed: 9).renderBuffer(frameCount: frames)
        let left = stereo.samples(channel: 0), right = stereo.samples(channel: 1)
        var cross = 0.0, l2 = 0.0, r2 = 0.0
        for i in 0..<frames {
            cross += Double(left[i]) * Double(right[i]); l2 += Double(left[i] * left[i]); r2 += Double(right[i] * right[i])
        }
        // Independent: correlation within 4 standard errors (1/√n) of zero.
        #expect(abs(cross / (l2 * r2).squareRoot()) < 4 / Double(frames).squareRoot())
        let rightAlone = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .mono, seed: 9, firstSignal: 1)
            .renderBuffer(frameCount: frames)
        #expect(rightAlone.samples(channel: 0) == right)
    }

    @Test func layoutsPlaceTheSignal() throws {
        let diotic = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .diotic).renderBuffer(frameCount: 5000)
        #expect(diotic.samples(channel: 0) == diotic.samples(channel: 1))
        let left = try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .left).renderBuffer(frameCount: 5000)
        #expect(left.samples(channel: 1).allSatisfy { $0 == 0 })
        #expect(left.samples(channel: 0).contains { $0 != 0 })
        let right = try ToneSource(frequencyHz: 1000, sampleRate: 48_000, layout: .right).renderBuffer(frameCount: 5000)
        #expect(right.samples(channel: 0).allSatisfy { $0 == 0 })
        #expect(try NoiseSource(colour: .pink, sampleRate: 48_000, layout: .mono).channelCount == 1)
    }

    @Test func whiteNoiseIsGaussianOrUniform() throws {
        let n = 1 << 20
        for distribution in WhiteDistribution.allCases {
            let x = try NoiseSource(colour: .white, sampleRate: 48_000, layout: .mono, levelDBFS: 0, distribution: distribution)
                .renderBuffer(frameCount: n).samples(channel: 0)
            var m2 = 0.0, m4 = 0.0
            for v in x { let d = Double(v) * Double(v); m2 += d; m4 += d * d }
            m2 /= Double(n); m4 /= Double(n)
            let kurtosis = m4 / (m2 * m2)
            // Gaussian kurtosis 3, uniform 1.8; standard error of the estimate is below 0.01 here.
            #expect(abs(kurtosis - (distribution == .gaussian ? 3 : 1.8)) < 0.05, "\(distribution): kurtosis \(kurtosis)")
            #expect(abs(m2 - 1) < 0.01)
        }
    }

    @Test func badParametersAreRejectedWithTheirRange() {
        #expect(throws: ShadesError.self) { try NoiseColour(beta: 2.5) }
        #expect(throws: ShadesError.self) { try NoiseColour(beta: .nan) }
        #expect(throws: ShadesError.self) { try NoiseSource(colour: .pink, sampleRate: 7_999) }
        #expect(throws: ShadesError.self) { try NoiseSource(colour: .pink, sampleRate: 48_000, distribution: .uniform) }
        #expect(throws: ShadesError.self) { try ToneSource(frequencyHz: 24_000, sampleRate: 48_000) }
        #expect(throws: ShadesError.self) { try ToneSource(frequencyHz: 0, sampleRate: 48_000) }
        do { _ = try NoiseColour(beta: 3) } catch {
            #expect(error.description == "beta 3 is out of range (allowed: -2 … 2)")
        }
    }
}
