import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Binaural beats, isochronic tones, velvet noise and fractal tones through the render path (requests,
/// graphs, streams), measured.
@Suite struct GenerativeSoundTests {
    // MARK: Helpers

    /// The request's samples before the level gain, in memory, and the gains.
    func rendered(_ request: RenderRequest) throws -> RenderedSound { try Renderer.render(request) }

    /// `frames` frames of the graph's stream in blocks of pseudo-random sizes (1 … 5,000 frames).
    func streamInRandomBlocks(_ graph: SoundGraph, frames: Int, seed: UInt64) -> AudioBuffer {
        let source = graph.makeSource()
        let buffer = AudioBuffer(channelCount: source.channelCount, frameCapacity: frames)
        var state = seed, done = 0
        while done < frames {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let size = min(frames - done, Int(state >> 33) % 5_000 + 1)
            buffer.withBlock(frames: done..<done + size) { source.render(into: $0) }
            done += size
        }
        return buffer
    }

    func tone(_ x: ArraySlice<Float>, rate: Double) throws -> ToneEstimate {
        try Array(x).withUnsafeBufferPointer { try ToneAnalysis.estimate($0, sampleRate: rate) }
    }

    /// `angle` wrapped to −π … π.
    func wrapped(_ angle: Double) -> Double { angle - 2 * Double.pi * (angle / (2 * Double.pi)).rounded() }

    /// Prints a measured figure when SHADES_PRINT_FIGURES is set (for the README and reports).
    func figure(_ text: @autoclosure () -> String) {
        if ProcessInfo.processInfo.environment["SHADES_PRINT_FIGURES"] != nil { print("figure: " + text()) }
    }

    func rmsDBFS(_ x: ArraySlice<Float>) -> Double { Array(x).withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } }

    static let generators: [Generator] = [
        .binauralBeat(carrierHz: 200, beatHz: 10),
        .isochronicTone(frequencyHz: 200, rateHz: 10, duty: 0.5, rampSeconds: 0.005),
        .velvetNoise(densityHz: 2000),
        .fractalTones(FractalTones(tempoBPM: 200)),
    ]

    // MARK: Every generator

    @Test(arguments: generators)
    func streamsAreBlockSizeInvariantAndSeeded(generator: Generator) throws {
        let request = RenderRequest(sound: generator, durationSeconds: 6, seed: 5)
        let graph = try SoundGraph(request)
        let whole = graph.makeSource().renderBuffer(frameCount: 288_000)
        let blocks = streamInRandomBlocks(graph, frames: 288_000, seed: 11)
        for c in 0..<whole.channelCount { #expect(whole.samples(channel: c) == blocks.samples(channel: c)) }
        // The same seed gives the same samples; another seed other ones (the tones: no randomness).
        let again = try SoundGraph(request).makeSource().renderBuffer(frameCount: 288_000)
        #expect(again.samples(channel: 0) == whole.samples(channel: 0))
        var other = request
        other.seed = 6
        let otherSamples = try SoundGraph(other).makeSource().renderBuffer(frameCount: 288_000).samples(channel: 0)
        if generator.as(VelvetNoise.self) != nil || generator.as(FractalTones.self) != nil {
            #expect(otherSamples != whole.samples(channel: 0))
        } else {
            #expect(otherSamples == whole.samples(channel: 0))
        }
    }

    @Test(arguments: generators)
    func theJSONFormReadsBackAsTheSameSound(generator: Generator) throws {
        let sound = Sound(generator)
        #expect(try Sound.parse(json: Array(sound.compactJSON.utf8), file: "s.json") == sound)
        #expect(try JSONDecoder().decode(Sound.self, from: Data(sound.compactJSON.utf8)) == sound)
    }

    @Test func badValuesAreRefusedNamingTheParameterAndItsRange() throws {
        let cases: [(Generator, ChannelLayout, ParameterID, String)] = [
            (.binauralBeat(carrierHz: 200, beatHz: 0), .stereo, .beat, "beat rate 0 Hz is out of range (allowed: 0.1 … 100 Hz)"),
            (.binauralBeat(carrierHz: 23_995, beatHz: 10), .stereo, .carrier,
             "carrier frequency 23995 Hz is out of range (allowed: above 0 and below 23990 Hz (carrier + beat below Nyquist, 24000 Hz))"),
            (.binauralBeat(carrierHz: 200, beatHz: 10), .mono, .layout,
             "channel layout mono cannot carry binaural beats (allowed: stereo (one tone per ear))"),
            (.isochronicTone(frequencyHz: 200, rateHz: 10, duty: 1, rampSeconds: 0.005), .stereo, .duty,
             "duty cycle 1 is out of range (allowed: above 0 and below 1)"),
            (.isochronicTone(frequencyHz: 200, rateHz: 10, duty: 0.8, rampSeconds: 0.05), .stereo, .isochronicRamp,
             "ramp 50 ms is out of range (allowed: 0 … 20 ms, the shorter of the on and off times at this beat and duty)"),
            (.velvetNoise(densityHz: 30_000), .stereo, .density,
             "impulse density 30000 Hz is out of range (allowed: 1 … 24000 Hz (half the sample rate))"),
            (.fractalTones(FractalTones(tempoBPM: 300)), .stereo, .tempo, "tempo 300 BPM is out of range (allowed: 20 … 240 BPM)"),
            (.fractalTones(FractalTones(lowHz: 500, highHz: 540)), .stereo, .highPitch,
             "high pitch 540 Hz is out of range (allowed: from 561.23 to below 24000 Hz (at least two pitches of the scale from the low pitch))"),
        ]
        for (generator, layout, parameter, message) in cases {
            do {
                try RenderRequest(sound: generator, durationSeconds: 1, layout: layout).validate()
                Issue.record("\(generator) accepted")
            } catch {
                #expect(error.parameter == parameter)
                #expect(error.description == message)
            }
        }
        // An isochronic tone is switched at its own rate: no pulses over it.
        var pulsed = RenderRequest(sound: .isochronicTone(frequencyHz: 200, rateHz: 10, duty: 0.5, rampSeconds: 0.005), durationSeconds: 1)
        pulsed.pulses = Pulses()
        #expect(throws: ShadesError.self) { try pulsed.validate() }
    }

    // MARK: Binaural beats

    @Test func binauralEarsHaveTheirFrequenciesAndThePhaseTurnsAtTheBeat() throws {
        let (carrier, beat, rate) = (200.25, 7.83, 48_000.0)
        let sound = try rendered(RenderRequest(sound: .binauralBeat(carrierHz: carrier, beatHz: beat), durationSeconds: 10, seed: 1))
        let left = sound.buffer.samples(channel: 0), right = sound.buffer.samples(channel: 1)
        let l = try tone(left[...], rate: rate), r = try tone(right[...], rate: rate)
        #expect(abs(l.frequencyHz - carrier) < 1e-6, "left \(l.frequencyHz) Hz")
        #expect(abs(r.frequencyHz - (carrier + beat)) < 1e-6, "right \(r.frequencyHz) Hz")
        figure("binaural left error \(l.frequencyHz - carrier) Hz, right error \(r.frequencyHz - carrier - beat) Hz, beat error \(r.frequencyHz - l.frequencyHz - beat) Hz")
        #expect(abs(r.frequencyHz - l.frequencyHz - beat) < 1e-6)
        // Each ear at the level (their own gains: -20 dBFS RMS each).
        for c in 0..<2 { #expect(abs(Decibels.fromAmplitude(Double(sound.gains[c])) + rmsDBFS(sound.buffer.samples(channel: c)[...]) + 20) < 0.001) }
        // The inter-aural phase difference at t is Δφ(0) + 2π·beat·t: fitted in 0.1-s windows every 0.25 s.
        let window = 4_800
        var differences: [(seconds: Double, radians: Double)] = []
        for start in stride(from: 0, to: left.count - window, by: 12_000) {
            let r = try tone(right[start..<start + window], rate: rate), l = try tone(left[start..<start + window], rate: rate)
            differences.append((Double(start) / rate, r.phaseRadians - l.phaseRadians))
        }
        let first = differences[0].radians
        var worst = 0.0
        for d in differences {
            let expected: Double = first + 2 * Double.pi * beat * d.seconds
            worst = max(worst, abs(wrapped(d.radians - expected)))
        }
        #expect(worst < 1e-5, "inter-aural phase off the beat by \(worst) rad")
        figure("binaural inter-aural phase: largest deviation from 2π·beat·t over 10 s: \(worst) rad")
    }

    @Test func binauralPhaseIsExactAfterAnHour() throws {
        // 8 kHz keeps an hour of stream quick (28.8 M frames per ear); the phases are Double phasors re-anchored
        // every 1,024 frames, so the phase after an hour is the exact 2π·f·n/rate.
        let (carrier, beat, rate) = (200.25, 7.83, 8_000.0)
        let graph = try SoundGraph(RenderRequest(sound: .binauralBeat(carrierHz: carrier, beatHz: beat), durationSeconds: 3_700,
                                                 sampleRate: rate))
        let source = graph.makeSource()
        let hour = 3_600 * Int(rate)
        let scratch = AudioBuffer(channelCount: 2, frameCapacity: 1 << 20)
        var done = 0
        while done < hour {
            let n = min(1 << 20, hour - done)
            scratch.withBlock(frames: 0..<n) { source.render(into: $0) }
            done += n
        }
        let tail = source.renderBuffer(frameCount: 8_000)
        for (c, f) in [(0, carrier), (1, carrier + beat)] {
            let fit = try tone(tail.samples(channel: c)[...], rate: rate)
            let cycles = (f * Double(hour) / rate).truncatingRemainder(dividingBy: 1)
            #expect(abs(fit.frequencyHz - f) < 1e-6, "ear \(c): \(fit.frequencyHz) Hz")
            let error = wrapped(fit.phaseRadians - 2 * Double.pi * cycles)
            #expect(abs(error) < 1e-5, "ear \(c): phase off by \(error) rad after 1 h")
            figure("binaural after 1 h, ear \(c): frequency error \(fit.frequencyHz - f) Hz, phase error \(error) rad")
        }
    }

    @Test func binauralLoopHasWholeCyclesInEachEar() throws {
        let request = RenderRequest(sound: .binauralBeat(carrierHz: 200.33, beatHz: 10.04), durationSeconds: 10, loop: true)
        let graph = try SoundGraph(request)
        #expect(graph.notes.count == 2, "\(graph.notes)")
        // A loop of whole cycles: the stream after the loop repeats it.
        let x = graph.makeSource().renderBuffer(frameCount: 2 * graph.frames)
        for c in 0..<2 {
            let s = x.samples(channel: c)
            let worst = (0..<graph.frames).map { abs(s[$0] - s[$0 + graph.frames]) }.max()!
            #expect(worst < 1e-5)
        }
    }

    // MARK: Isochronic tones

    /// The envelope of a tone at `frequency` (a whole number of frames per cycle) by I/Q demodulation averaged
    /// over one cycle: centred, so it is delayed by nothing.
    func envelope(_ x: [Float], frequency: Double, rate: Double) -> [Double] {
        let period = Int((rate / frequency).rounded())
        var i = [Double](repeating: 0, count: x.count + 1), q = i
        for n in 0..<x.count {
            let angle = 2 * Double.pi * frequency * Double(n) / rate
            i[n + 1] = i[n] + 2 * Double(x[n]) * sin(angle)
            q[n + 1] = q[n] + 2 * Double(x[n]) * cos(angle)
        }
        return (0..<x.count).map { n in
            let lo = max(0, n - period / 2), hi = min(x.count, lo + period)
            let (a, b) = ((i[hi] - i[lo]) / Double(hi - lo), (q[hi] - q[lo]) / Double(hi - lo))
            return (a * a + b * b).squareRoot()
        }
    }

    @Test(arguments: [(7.3, 0.3, 0.004), (10.0, 0.5, 0.005), (40.0, 0.75, 0.002)])
    func isochronicEnvelopeHasTheRateAndDuty(rateHz: Double, duty: Double, ramp: Double) throws {
        let rate = 48_000.0, frequency = 1_000.0
        let sound = try rendered(RenderRequest(sound: .isochronicTone(frequencyHz: frequency, rateHz: rateHz, duty: duty, rampSeconds: ramp),
                                               durationSeconds: 10, layout: .mono))
        let x = sound.buffer.samples(channel: 0)
        let e = envelope(x, frequency: frequency, rate: rate)
        let top = e.max()!
        // Rising half-amplitude crossings (interpolated): a line through them has the period as its slope.
        var rises: [Double] = [], falls: [Double] = []
        for n in 1..<e.count {
            let (a, b) = (e[n - 1] - top / 2, e[n] - top / 2)
            if a < 0 && b >= 0 { rises.append(Double(n - 1) + a / (a - b)) }
            if a >= 0 && b < 0 { falls.append(Double(n - 1) + a / (a - b)) }
        }
        let k = (0..<rises.count).map(Double.init)
        let (meanK, meanT) = (k.reduce(0, +) / Double(k.count), rises.reduce(0, +) / Double(rises.count))
        var (sxy, sxx) = (0.0, 0.0)
        for (a, b) in zip(k, rises) {
            sxy += (a - meanK) * (b - meanT)
            sxx += (a - meanK) * (a - meanK)
        }
        let slope = sxy / sxx
        let measuredRate = rate / slope
        #expect(abs(measuredRate - rateHz) < 0.01, "envelope rate \(measuredRate) Hz")
        // Duty: the time from each rise to the next fall, over the period.
        let widths = rises.compactMap { r in falls.first { $0 > r }.map { $0 - r } }
        let measuredDuty = widths.reduce(0, +) / Double(widths.count) / slope
        #expect(abs(measuredDuty - duty) < 0.01 * duty, "duty \(measuredDuty)")
        figure("isochronic \(rateHz) Hz duty \(duty): envelope rate \(measuredRate) Hz (error \(measuredRate - rateHz)), duty \(measuredDuty) (error \((measuredDuty / duty - 1) * 100) %)")
        // While it sounds, the tone has the level (-20 dBFS RMS: its peak is -16.99 dBFS).
        #expect(abs(Decibels.fromAmplitude(sound.peak) + 20 - 3.0103) < 0.001)
    }

    @Test func isochronicLoopRepeatsWithoutASeamAndMixesWithNoise() throws {
        let iso = Generator.isochronicTone(frequencyHz: 200.7, rateHz: 9.97, duty: 0.5, rampSeconds: 0.005)
        let graph = try SoundGraph(RenderRequest(sound: iso, durationSeconds: 6, loop: true))
        #expect(graph.notes.count == 2, "\(graph.notes)")
        let x = graph.makeSource().renderBuffer(frameCount: 2 * graph.frames).samples(channel: 0)
        #expect((0..<graph.frames).map { abs(x[$0] - x[$0 + graph.frames]) }.max()! < 1e-5)
        // As a layer with pink noise in a loop: the mix renders and loops (noise FFT-shaped over the length).
        let mix = Sound.mix([Layer(Sound(iso)), Layer(Sound(.noise(colour: .pink, distribution: .gaussian)), gainDB: -10)])
        let mixed = try rendered(RenderRequest(sound: mix, durationSeconds: 6, loop: true))
        #expect(mixed.buffer.frameCapacity == 288_000)
    }

    // MARK: Velvet noise

    @Test(arguments: [(2_000.0, 48_000.0), (1_500.0, 44_100.0), (700.0, 96_000.0)])
    func velvetHasOneImpulseOfRandomSignPerCellAtTheLevel(density: Double, rate: Double) throws {
        let seconds = 10.0
        let sound = try rendered(RenderRequest(sound: .velvetNoise(densityHz: density), durationSeconds: seconds, sampleRate: rate, seed: 3))
        let cell = rate / density
        for c in 0..<2 {
            let x = sound.buffer.samples(channel: c)
            let impulses = x.indices.filter { x[$0] != 0 }
            #expect(impulses.count == Int(density * seconds), "\(impulses.count) impulses")
            // One in each cell round(k·Td) ..< round((k + 1)·Td).
            let cells = Set(impulses.map { n -> Int in
                var k = Int(Double(n) / cell)
                while (Double(k) * cell).rounded() > Double(n) { k -= 1 }
                while (Double(k + 1) * cell).rounded() <= Double(n) { k += 1 }
                return k
            })
            #expect(cells == Set(0..<Int(density * seconds)))
            // Signs balanced: within 4 standard deviations of a fair coin.
            let positive = impulses.filter { x[$0] > 0 }.count
            #expect(abs(Double(2 * positive - impulses.count)) < 4 * Double(impulses.count).squareRoot(), "\(positive) of \(impulses.count) positive")
            // Every impulse has the same magnitude; the level is exact over whole cells (no correction needed).
            #expect(Set(impulses.map { abs(x[$0]) }).count == 1)
            figure("velvet \(density)/s at \(rate) Hz, ear \(c): \(impulses.count) impulses in \(seconds) s, \(positive) positive, RMS \(rmsDBFS(x[...])) dBFS, gain \(Decibels.fromAmplitude(Double(sound.gains[c]))) dB")
            #expect(abs(rmsDBFS(x[...]) + 20) < 1e-4)
            #expect(abs(Decibels.fromAmplitude(Double(sound.gains[c]))) < 1e-4)
        }
        // Independent ears.
        #expect(sound.buffer.samples(channel: 0) != sound.buffer.samples(channel: 1))
    }

    @Test func velvetSpectrumIsFlat() throws {
        let sound = try rendered(RenderRequest(sound: .velvetNoise(densityHz: 2_000), durationSeconds: 20, seed: 9))
        let spectra = try (0..<2).map { c in
            try sound.buffer.samples(channel: c).withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000, segmentLength: 8_192) }
        }
        let spectrum = PowerSpectrum.average(spectra)!
        let bands = ThirdOctaveBand.bands(centredIn: 100...16_000)
        let deviations = SpectralSlopeCheck.deviations(of: spectrum, beta: 0, bands: bands)
        // Scatter of a band's level over 2 × 20 s: below 0.3 dB from 100 Hz up (T·B ≥ 900).
        figure("velvet third-octave deviations from flat, 100 Hz … 16 kHz: largest \(deviations.map(abs).max()!) dB")
        #expect(deviations.map(abs).max()! < 0.6, "band deviations from flat \(deviations.map { (($0 * 100).rounded() / 100) })")
    }

    @Test func velvetLoopHoldsWholeCells() throws {
        let graph = try SoundGraph(RenderRequest(sound: .velvetNoise(densityHz: 2_000), durationSeconds: 1.0001, loop: true))
        #expect(graph.notes.count == 1, "\(graph.notes)")
        let x = graph.makeSource().renderBuffer(frameCount: graph.frames).samples(channel: 0)
        #expect(x.filter { $0 != 0 }.count == 2_000)
    }

    // MARK: Fractal tones

    @Test func fractalSpectralPeaksAreAllScalePitches() throws {
        let tones = FractalTones(scale: .pentatonic, lowHz: 440, highHz: 1_760, tempoBPM: 120)
        let sound = try rendered(RenderRequest(sound: .fractalTones(tones), durationSeconds: 60, layout: .mono, seed: 2))
        let spectrum = try sound.buffer.samples(channel: 0).withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 48_000, segmentLength: 65_536) }
        let db = spectrum.density.map { 10 * log10(max($0, 1e-30)) }
        let top = db.max()!
        let degrees = Set(tones.scale.semitones)
        var peaks: [Double] = []
        for k in 6..<(db.count - 6) where db[k] > top - 50 && (k - 6...k + 6).allSatisfy({ db[$0] <= db[k] }) {
            peaks.append(Double(k) * spectrum.binWidthHz)
        }
        #expect(peaks.count >= 8, "\(peaks)")
        figure("fractal spectral peaks (Hz): \(peaks.map { ($0 * 100).rounded() / 100 })")
        for f in peaks {
            let semitones = 12 * log2(f / tones.lowHz)
            let nearest = Int(semitones.rounded())
            // Within one bin (0.73 Hz) of an equal-tempered pitch of the scale (or its octave partials).
            let pitch = tones.lowHz * pow(2, Double(nearest) / 12)
            #expect(abs(f - pitch) <= spectrum.binWidthHz && degrees.contains(((nearest % 12) + 12) % 12), "peak at \(f) Hz")
        }
    }

    @Test func fractalDefaultsAreC5ToC7Pentatonic() {
        let tones = FractalTones()
        #expect(tones.lowHz == FractalTones.defaultLowHz && tones.highHz == FractalTones.defaultHighHz)
        // The public case's defaults are the same numbers.
        #expect(Generator.fractalTones() == .fractalTones(tones))
        #expect(abs(tones.lowHz - 523.2511) < 1e-4 && abs(tones.highHz - 4 * tones.lowHz) < 1e-9)
        // C5 D5 E5 G5 A5, C6 D6 E6 G6 A6, C7.
        #expect(tones.pitchesHz.count == 11)
    }

    @Test func fractalOnsetsAreOnTheGridToTheFrame() throws {
        // 44.1 kHz and 77 BPM: 34,363.6… frames per step, so the grid is not whole frames.
        let (rate, tempo) = (44_100.0, 77.0)
        let tones = FractalTones(scale: .major, tempoBPM: tempo)
        let sound = try rendered(RenderRequest(sound: .fractalTones(tones), durationSeconds: 60, sampleRate: rate, layout: .mono, seed: 8))
        let x = sound.buffer.samples(channel: 0)
        // One note at a time, each from 0 at its onset to 0 at the next: the exact zeros are the onsets.
        let zeros = x.indices.filter { x[$0] == 0 }
        var sequence = FractalToneSequence(pitchCount: tones.pitchesHz.count, seed: 8)
        var onsets: [Int] = []
        while true {
            let note = sequence.next()
            let onset = Int((Double(note.step) * 60 * rate / tempo).rounded())
            if onset >= x.count { break }
            onsets.append(onset)
        }
        #expect(zeros == onsets)
        figure("fractal onsets: \(onsets.count) exact-zero frames, all on the grid: \(zeros == onsets)")
        #expect(onsets.count > 20)
        #expect(onsets.allSatisfy { $0 + 1 < x.count ? x[$0 + 1] != 0 : true })
    }

    /// Slope of log10 power against log10 frequency of `values` (averaged periodograms, Hann, 1,024 long),
    /// fitted from 1/512 to 1/8 cycles per value: −1 for 1/f, 0 for white, −2 for a random walk.
    func spectralSlope(_ values: [Double]) throws -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        let x = values.map { Float($0 - mean) }
        let spectrum = try x.withUnsafeBufferPointer { try PowerSpectrum.welch($0, sampleRate: 8_000, segmentLength: 1_024) }
        let bins = Array(2...128)
        let lx = bins.map { log10(Double($0)) }, ly = bins.map { log10(spectrum.density[$0]) }
        let (mx, my) = (lx.reduce(0, +) / Double(lx.count), ly.reduce(0, +) / Double(ly.count))
        return zip(lx, ly).map { ($0 - mx) * ($1 - my) }.reduce(0, +) / lx.map { ($0 - mx) * ($0 - mx) }.reduce(0, +)
    }

    @Test func fractalPitchSequenceFollowsOneOverF() throws {
        var sequence = FractalToneSequence(pitchCount: 11, seed: 4)
        let pitches = (0..<(1 << 18)).map { _ in Double(sequence.next().pitch) }
        let slope = try spectralSlope(pitches)
        // The method tells the others apart: white values (a fixed LCG) and their running sum.
        var state: UInt64 = 7
        let white = (0..<(1 << 18)).map { _ -> Double in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        var walk = 0.0
        let brown = white.map { walk += $0; return walk }
        let (whiteSlope, brownSlope) = (try spectralSlope(white), try spectralSlope(brown))
        figure("fractal pitch sequence slope \(slope) (white \(whiteSlope), random walk \(brownSlope))")
        #expect(abs(slope + 1) < 0.2, "1/f slope \(slope)")
        #expect(abs(whiteSlope) < 0.2)
        #expect(abs(brownSlope + 2) < 0.3)
    }

    @Test func fractalMelodyDoesNotRepeatWithinHours() {
        // Four hours at the fastest tempo: 240 steps a minute, 2.5 steps a note on average.
        var sequence = FractalToneSequence(pitchCount: 11, seed: 1)
        let notes = (0..<23_040).map { _ in sequence.next() }
        #expect(notes.last!.step > 4 * 60 * 240 - 100)
        var seen = Set<[Int]>()
        for start in 0...(notes.count - 24) {
            let window = notes[start..<start + 24].flatMap { [$0.pitch, $0.steps] }
            #expect(seen.insert(window).inserted, "the 24 notes from \(start) occurred before")
        }
    }

    @Test func fractalLoopEndsOnTheGridAndFileIsLevelled() throws {
        let request = RenderRequest(sound: .fractalTones(FractalTones(tempoBPM: 83)), durationSeconds: 30, layout: .mono, seed: 3, loop: true)
        let graph = try SoundGraph(request)
        #expect(graph.notes.count == 1, "\(graph.notes)")
        let sound = try rendered(request)
        let x = sound.buffer.samples(channel: 0)
        // Both ends at (near) zero: the first sample is an onset, the last is the end of a release.
        #expect(x[0] == 0)
        let peak = x.map(abs).max()!
        #expect(abs(x[x.count - 1]) < 1e-4 * peak)
        let path = temporaryFolder("generative") + "/fractal.wav"
        let report = try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let written = try DecodedAudio(contentsOf: path).buffer.samples(channel: 0)
        #expect(abs(rmsDBFS(written[...]) + 20) < 0.001)
        #expect(report.frames == 1_440_000)
    }

    @Test func fractalStreamIsNearTheLevelBeforeMeasuring() throws {
        // Live playback uses the expected level (no measuring pass): over 10 minutes it is within 0.5 dB (0.08 dB measured).
        for (seed, tempo) in [(UInt64(1), 80.0), (2, 200), (3, 30)] {
            let graph = try SoundGraph(RenderRequest(sound: .fractalTones(FractalTones(tempoBPM: tempo)), durationSeconds: 600,
                                                     layout: .mono, seed: seed))
            let correction = Decibels.fromAmplitude(Double(graph.exactGains()[0]))
            figure("fractal stream at \(tempo) BPM, seed \(seed): the measured level is \(-correction) dB off the expected")
            #expect(abs(correction) < 0.5, "\(correction) dB")
        }
    }
}
