import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesRender
import ShadesTestSupport

/// Speech-shaped noise (Byrne et al. 1994's LTASS) and high-tone noise through the render path, measured in
/// third-octave bands. Levels are compared re each spectrum's own total: the table's bands re their power
/// sum (70.03 dB SPL), the measured bands re the sum of the same bands' measured powers.
@Suite struct SpeechNoiseTests {
    /// Prints a measured figure when SHADES_PRINT_FIGURES is set (for the README and reports).
    func figure(_ text: @autoclosure () -> String) {
        if ProcessInfo.processInfo.environment["SHADES_PRINT_FIGURES"] != nil { print("figure: " + text()) }
    }

    func welch(_ x: [Float], rate: Double) throws -> PowerSpectrum {
        try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: rate) }
    }

    /// The speech table's bands (exact centres) measured in `spectrum`, each re the bands' measured total, dB.
    func speechBandLevels(_ spectrum: PowerSpectrum) -> [Double] {
        let powers = SpeechSpectrum.centresHz.map { spectrum.bandPower(from: $0 * pow(10, -0.05), to: $0 * pow(10, 0.05)) }
        let total = powers.reduce(0, +)
        return powers.map { Decibels.fromPower($0 / total) }
    }

    @Test func theDesignedDensityHasTheTablesBandLevels() {
        let powers = SpeechSpectrum.bandPowers(SpeechSpectrum.densityCurve)
        let worst = zip(powers, SpeechSpectrum.bandLevelsDB).map { abs(Decibels.fromPower($0) - $1) }.max()!
        #expect(worst < 0.001, "design off the table by \(worst) dB")
        #expect(abs(Decibels.fromPower(SpeechSpectrum.bandLevelsDB.reduce(0) { $0 + Decibels.power($1) }) - 70.03) < 0.005)
    }

    /// A rendered file (two independent ears, 30 s) in every third-octave band of the table within 0.5 dB of it;
    /// at the level exactly.
    @Test(arguments: [48_000.0, 44_100.0])
    func aRenderHasTheLTASSInThirdOctaves(rate: Double) throws {
        let sound = try Renderer.render(RenderRequest(sound: .speechNoise, durationSeconds: 30, sampleRate: rate, seed: 3))
        let table = SpeechSpectrum.relativeBandLevelsDB
        for c in 0..<2 {
            let x = sound.buffer.samples(channel: c)
            let measured = speechBandLevels(try welch(x, rate: rate))
            let errors = zip(measured, table).map { $0 - $1 }
            let worst = errors.map(abs).max()!
            figure("speech-noise at \(Int(rate)) Hz, ear \(c): 25 third-octave bands 63 Hz … 16 kHz within \(worst) dB of Byrne 1994")
            #expect(worst < 0.5, "band errors \(errors.map { ($0 * 100).rounded() / 100 })")
            let rms = x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + Decibels.fromAmplitude(Double(sound.gains[c]))
            #expect(abs(rms + 20) < 1e-4, "RMS \(rms) dBFS")
        }
        #expect(sound.buffer.samples(channel: 0) != sound.buffer.samples(channel: 1))
    }

    /// A loop's whole-length periodogram (rectangular window: exact for a periodic signal) has the table's band
    /// levels to 0.05 dB: synthesised whole, it is periodic in its length, so the seam is like any other step.
    @Test func aLoopIsPeriodicWithTheTablesSpectrum() throws {
        let sound = try Renderer.render(RenderRequest(sound: .speechNoise, durationSeconds: 10, layout: .mono, seed: 8, loop: true))
        let x = sound.buffer.samples(channel: 0)
        let spectrum = x.withUnsafeBufferPointer { PowerSpectrum.periodogram($0, sampleRate: 48_000) }
        let worst = zip(speechBandLevels(spectrum), SpeechSpectrum.relativeBandLevelsDB).map { abs($0 - $1) }.max()!
        figure("speech-noise loop, 10 s: periodogram bands within \(worst) dB of the table")
        #expect(worst < 0.05)
        // The step across the seam is no larger than the largest step inside.
        let steps = (1..<x.count).map { abs(x[$0] - x[$0 - 1]) }
        #expect(abs(x[0] - x[x.count - 1]) <= steps.max()!)
    }

    /// Third-octave band levels of high-tone noise re the flat part's (bands above 1.5 × the corner) against
    /// the ideal shape integrated over each band, from 100 Hz to 16 kHz.
    @Test(arguments: [(2_000.0, 12.0), (1_000.0, 24.0), (4_000.0, 6.0)])
    func highToneNoiseHasItsCornerAndSlope(corner: Double, slope: Double) throws {
        let sound = try Renderer.render(RenderRequest(sound: .highToneNoise(cornerHz: corner, slopeDBPerOctave: slope), durationSeconds: 30,
                                                      layout: .mono, seed: 4))
        let spectrum = try welch(sound.buffer.samples(channel: 0), rate: 48_000)
        let shape = HighToneSpectrum(cornerHz: corner, slopeDBPerOctave: slope)
        let bands = ThirdOctaveBand.bands(centredIn: 100...16_000)
        func ideal(_ band: ThirdOctaveBand) -> Double {
            let n = 2_000
            return (0..<n).reduce(0.0) { sum, i in
                let f = band.lowerEdgeHz + (Double(i) + 0.5) * (band.upperEdgeHz - band.lowerEdgeHz) / Double(n)
                return sum + Decibels.power(shape.levelDB(atFrequency: f)) * (band.upperEdgeHz - band.lowerEdgeHz) / Double(n)
            }
        }
        let raw = bands.map { Decibels.fromPower(spectrum.bandPower(from: $0.lowerEdgeHz, to: $0.upperEdgeHz) / ideal($0)) }
        let flat = bands.indices.filter { bands[$0].lowerEdgeHz > 1.5 * corner }
        let offset = flat.map { raw[$0] }.reduce(0, +) / Double(flat.count)
        let errors = raw.map { $0 - offset }
        let worst = errors.map(abs).max()!
        figure("high-tone-noise corner \(corner) Hz slope \(slope) dB/oct: 100 Hz … 16 kHz bands within \(worst) dB of the shape")
        // A band at 100 Hz holds about 700 bins of 30 s: its level scatters by about 0.2 dB (3σ 0.6).
        #expect(worst < 0.7, "band errors \(errors.map { ($0 * 100).rounded() / 100 })")
        // One octave below the corner the density is `slope` dB down (the bands there lie wholly below it).
        let below = bands.firstIndex { abs($0.centreHz / (corner / 2) - 1) < 0.02 }!
        let above = bands.firstIndex { abs($0.centreHz / (corner * 2) - 1) < 0.02 }!
        let drop = (raw[above] + Decibels.fromPower(ideal(bands[above]))) - (raw[below] + Decibels.fromPower(ideal(bands[below])))
        #expect(abs(drop - slope - 10 * log10(4)) < 1, "band at corner/2 \(drop) dB below the band at 2 × corner")
    }

    /// Longer than 2²³ frames and not a loop, white noise streams through the curve's FIR (1.5 Hz of
    /// smoothing for speech): 180 s, one ear, its bands against the table and the shape as above.
    @Test func aLongRenderStreamsWithTheSameSpectrum() throws {
        let speech = try Renderer.render(RenderRequest(sound: .speechNoise, durationSeconds: 180, layout: .mono, seed: 3))
        let x = speech.buffer.samples(channel: 0)
        let errors = zip(speechBandLevels(try welch(x, rate: 48_000)), SpeechSpectrum.relativeBandLevelsDB).map { $0 - $1 }
        figure("speech-noise streamed, 180 s: 25 bands within \(errors.map(abs).max()!) dB of Byrne 1994")
        #expect(errors.map(abs).max()! < 0.5, "band errors \(errors.map { ($0 * 100).rounded() / 100 })")
        let rms = x.withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } + Decibels.fromAmplitude(Double(speech.gains[0]))
        #expect(abs(rms + 20) < 1e-4)
        // At the level in expectation before the measured gain: within 0.1 dB.
        #expect(abs(Decibels.fromAmplitude(Double(speech.gains[0]))) < 0.1)
        let high = try Renderer.render(RenderRequest(sound: .highToneNoise(cornerHz: 2_000, slopeDBPerOctave: 12), durationSeconds: 180,
                                                     layout: .mono, seed: 3))
        let spectrum = try welch(high.buffer.samples(channel: 0), rate: 48_000)
        let shape = HighToneSpectrum(cornerHz: 2_000, slopeDBPerOctave: 12)
        // Density one octave and two octaves below the corner, re the flat part (bins averaged over ±5 %).
        func level(_ f: Double) -> Double { Decibels.fromPower(spectrum.bandPower(from: f * 0.95, to: f * 1.05) / (0.1 * f)) }
        let flat = level(8_000)
        for f in [1_000.0, 500, 250] {
            #expect(abs(level(f) - flat - shape.levelDB(atFrequency: f)) < 0.3, "\(f) Hz: \(level(f) - flat) dB")
        }
    }

    @Test(arguments: [Generator.speechNoise, .highToneNoise(cornerHz: 2_000, slopeDBPerOctave: 12)])
    func streamsAreBlockSizeInvariantAndSeeded(generator: Generator) throws {
        let request = RenderRequest(sound: generator, durationSeconds: 4, seed: 5)
        let graph = try SoundGraph(request)
        let whole = graph.makeSource().renderBuffer(frameCount: graph.frames)
        let blocks = graph.makeSource().renderInRandomBlocks(frames: graph.frames, seed: 3)
        for c in 0..<2 { #expect(whole.samples(channel: c) == blocks.samples(channel: c)) }
        #expect(try SoundGraph(request).makeSource().renderBuffer(frameCount: 1_000).samples(channel: 0)
                == Array(whole.samples(channel: 0).prefix(1_000)))
        var other = request
        other.seed = 6
        #expect(try SoundGraph(other).makeSource().renderBuffer(frameCount: 1_000).samples(channel: 0)
                != Array(whole.samples(channel: 0).prefix(1_000)))
    }

    @Test func badValuesAreRefusedWithTheirRange() throws {
        let cases: [(Generator, Double, String)] = [
            (.highToneNoise(cornerHz: 100, slopeDBPerOctave: 12), 10, "corner frequency 100 Hz is out of range (allowed: 250 … 16000 Hz)"),
            (.highToneNoise(cornerHz: 2_000, slopeDBPerOctave: 60), 10, "slope below the corner 60 dB is out of range (allowed: 3 … 48 dB)"),
            (.highToneNoise(cornerHz: 12_000, slopeDBPerOctave: 12), 10,
             "corner frequency 12000 Hz is out of range (allowed: above 0 and below 11025 Hz (Nyquist))"),
            (.speechNoise, 200, "duration 200 s is too long for a loop of speech noise, synthesised whole in memory (allowed: at most 174.7 s at 48000 Hz)"),
        ]
        for (generator, seconds, message) in cases {
            let rate = message.contains("11025") ? 22_050.0 : 48_000.0
            let request = RenderRequest(sound: generator, durationSeconds: seconds, sampleRate: rate, loop: message.contains("loop"))
            #expect(throws: ShadesError.self) { try request.validate() }
            do { try request.validate() } catch {
                #expect(error.description == message)
            }
        }
    }
}

extension AudioSource {
    /// `frames` frames rendered in blocks of pseudo-random sizes (1 … 5,000 frames).
    func renderInRandomBlocks(frames: Int, seed: UInt64) -> AudioBuffer {
        let buffer = AudioBuffer(channelCount: channelCount, frameCapacity: frames)
        var state = seed, done = 0
        while done < frames {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let size = min(frames - done, Int(state >> 33) % 5_000 + 1)
            buffer.withBlock(frames: done..<done + size) { render(into: $0) }
            done += size
        }
        return buffer
    }
}
