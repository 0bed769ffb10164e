import Testing
import Foundation
import ShadesDSP

/// The real-time notch: ``PartitionedConvolver`` (a direct-form head and uniform partitions, no latency
/// of its own) and ``NotchedSource`` prepared for real time, which must give the offline engine's samples.
@Suite struct PartitionedConvolutionTests {
    /// Exact convolution in Double against the convolver in random blocks of 1 … 700 frames: kernels
    /// shorter than a partition, of exactly one, one more tap, and many partitions. Error bound: the
    /// single-precision FFT of 2P points errs by about ε·log₂(2P) ≈ 1e-6 of the partition's energy; 2e-5 of
    /// the output's RMS bounds it with room. And the output is the same to the bit in any blocks.
    @Test(arguments: [(5, 64), (64, 64), (65, 64), (1_000, 64), (12_561, 256)])
    func convolverIsTheExactConvolutionWithNoLatency(tapCount: Int, partitionFrames: Int) throws {
        var random = LaneRandom(key: UInt64(tapCount))
        var taps = [Float](repeating: 0, count: (tapCount + 15) / 16 * 16)
        taps.withUnsafeMutableBufferPointer { WhiteNoise.fill($0, distribution: .gaussian, random: &random) }
        taps = Array(taps.prefix(tapCount)).map { $0 / Float(tapCount).squareRoot() }
        let x = NotchFilterTests.whiteNoise(frames: 20_000, key: 3)
        let convolver = PartitionedConvolver(taps: taps, partitionFrames: partitionFrames)
        #expect(convolver.partitionCount == max(0, (tapCount - partitionFrames + partitionFrames - 1) / partitionFrames))
        let y = Self.process(x, with: convolver, blocks: { 1 + ($0 * 7_919) % 700 })
        let whole = Self.process(x, with: PartitionedConvolver(taps: taps, partitionFrames: partitionFrames), blocks: { _ in x.count })
        #expect(y == whole, "block sizes changed the samples")
        var worst = 0.0, power = 0.0
        for n in stride(from: 0, to: x.count, by: 7) {
            var sum = 0.0
            for j in 0..<min(tapCount, n + 1) { sum += Double(taps[j]) * Double(x[n - j]) }
            worst = max(worst, abs(Double(y[n]) - sum))
            power += sum * sum
        }
        let rms = (power / Double(x.count / 7)).squareRoot()
        #expect(worst <= 2e-5 * rms, "largest error \(worst) for an RMS of \(rms)")
        // Shared kernels give the same samples with their own state.
        let twin = PartitionedConvolver(sharingKernelOf: convolver)
        #expect(Self.process(x, with: twin, blocks: { _ in 333 }) == whole)
    }

    /// Skipping input (a pre-roll) then filtering gives what filtering all of it gives from there on.
    @Test func skippedInputIsTheFiltersPast() throws {
        let taps = (0..<3_000).map { Float(sin(Double($0) * 0.01)) / 40 }
        let x = NotchFilterTests.whiteNoise(frames: 10_000, key: 4)
        let all = Self.process(x, with: PartitionedConvolver(taps: taps, partitionFrames: 256), blocks: { _ in 1_000 })
        let skipping = PartitionedConvolver(taps: taps, partitionFrames: 256)
        x.withUnsafeBufferPointer { skipping.skip(UnsafeBufferPointer(rebasing: $0[0..<4_321])) }
        let rest = Self.process(Array(x[4_321...]), with: skipping, blocks: { _ in 555 })
        #expect(rest == Array(all[4_321...]))
    }

    /// A notched source prepared for real time streams in partitions and gives the offline engine's
    /// samples for the README's notches (500 Hz, 4 kHz, 12 kHz; 1 and ½ octave; Stein's boosts on one ear),
    /// with a silent past (music) and primed (noise). The two sum the same products in different orders
    /// (one 65,536-point FFT against a 256-tap head and 512-point partitions), so they differ by Float
    /// rounding only, which scales with the output. Bound: the difference at most −115 dB re the output's
    /// power, 15 dB below the depth either path must reach (100 dB), so both meet the specification, and a
    /// misaligned or wrong kernel (an error near 0 dB) fails. Measured: −129 … −132 dB.
    @Test(arguments: [500.0, 4_000, 12_000])
    func realTimeGivesTheOfflineSamples(centreHz: Double) throws {
        let rate = 48_000.0
        let left = try NotchDesign(notches: [NotchSpec(centreHz: centreHz)], sampleRate: rate)
        let right = try NotchDesign(notches: [NotchSpec(centreHz: centreHz, widthOctaves: 0.5,
                                                        edgeBoostDB: centreHz < 10_000 ? 20 : 0)], sampleRate: rate)
        let frames = 60_000
        let input = [NotchFilterTests.whiteNoise(frames: frames + 40_000, key: 21), NotchFilterTests.whiteNoise(frames: frames + 40_000, key: 22)]
        for alignment in [NotchedSource.Alignment.silentPast, .primedBySource] {
            let offline = try NotchedSource(source: NotchFilterTests.bufferSource(input, rate: rate), designs: [left, right], alignment: alignment)
            let live = try NotchedSource(source: NotchFilterTests.bufferSource(input, rate: rate), designs: [left, right], alignment: alignment)
            RealTimePreparation.prepare(live)
            #expect(live.isStreamingInPartitions && live.chunkFrames == 256)
            #expect(live.lookaheadFrames == max(left.halfLength, right.halfLength))
            let a = offline.renderBuffer(frameCount: frames)
            let b = renderInRandomBlocks(live, frames: frames, maxBlock: 700, seed: 5)
            for c in 0..<2 {
                let x = a.samples(channel: c), y = b.samples(channel: c)
                let difference = zip(x, y).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
                let power = x.reduce(0.0) { $0 + Double($1) * Double($1) }
                let level = 10 * log10(max(difference, 1e-300) / power)
                #expect(level <= -115, "\(centreHz) Hz, \(alignment), channel \(c): the paths differ at \(level) dB")
            }
        }
    }

    /// Real time, the notch reads the source M frames ahead of the frame it outputs (silent past): an
    /// impulse at source frame p comes out centred at output frame p, and the source has been rendered to
    /// frame p + M exactly when output frame p is.
    @Test func realTimeLatencyIsTheKernelsGroupDelay() throws {
        let rate = 48_000.0
        let design = try NotchDesign(notches: [NotchSpec(centreHz: 4_000)], sampleRate: rate)
        let m = design.halfLength, p = 10_000
        var x = [Float](repeating: 0, count: 40_000)
        x[p] = 1
        let source = CountingSource(NotchFilterTests.bufferSource([x], rate: rate))
        let notched = try NotchedSource(source: source, design: design)
        RealTimePreparation.prepare(notched)
        let y = notched.renderBuffer(frameCount: p + 1).samples(channel: 0)
        #expect(y[p] == y.max()! && abs(Double(y[p]) - design.halfTaps[0]) < 1e-6)
        #expect(source.frames == p + 1 + m)
    }

    static func process(_ x: [Float], with convolver: PartitionedConvolver, blocks: (Int) -> Int) -> [Float] {
        var y = [Float](repeating: 0, count: x.count)
        x.withUnsafeBufferPointer { input in
            y.withUnsafeMutableBufferPointer { output in
                var done = 0, call = 0
                while done < x.count {
                    let n = min(x.count - done, blocks(call))
                    convolver.process(UnsafeBufferPointer(rebasing: input[done..<done + n]),
                                      into: UnsafeMutableBufferPointer(rebasing: output[done..<done + n]))
                    done += n
                    call += 1
                }
            }
        }
        return y
    }
}

/// A source that counts the frames rendered from it.
final class CountingSource: AudioSource {
    let wrapped: any AudioSource
    private(set) var frames = 0
    var sampleRate: Double { wrapped.sampleRate }
    var channelCount: Int { wrapped.channelCount }
    init(_ wrapped: any AudioSource) { self.wrapped = wrapped }
    func prepareForRealTime(_ preparation: RealTimePreparation) { wrapped.prepareForRealTime(preparation) }
    func render(into block: AudioBlock) {
        wrapped.render(into: block)
        frames += block.frameCount
    }
}
