import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport


@Suite struct RendererTests {
    let folder = temporaryFolder("render")

    /// Every file lands within `Renderer.levelToleranceDB` (0.02 dB) of the asked level: noise written in
    /// one pass at a forecast or expected gain, or measured and written at the exact one.
    @Test(arguments: [SampleFormat.s16, .s24, .f32])
    func writtenFileHasTheAskedRMSWithinTheTolerance(format: SampleFormat) throws {
        for (sound, level) in [(Generator.noise(colour: .pink, distribution: .gaussian), -20.0),
                               (.noise(colour: .brown, distribution: .gaussian), -31.5),
                               (.tone(frequencyHz: 440), -12.0)] {
            let request = RenderRequest(sound: sound, durationSeconds: 5, sampleRate: 48_000, layout: .stereo,
                                        levelDBFS: level, seed: 3)
            let path = "\(folder)/level-\(format).wav"
            try Renderer.renderFile(request, to: path, sampleFormat: format)
            let decoded = try DecodedAudio(contentsOf: path)
            for c in 0..<2 {
                let measured = decoded.buffer.withChannel(c) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) }
                #expect(abs(measured - level) <= Renderer.levelToleranceDB, "\(sound.summary) \(format) channel \(c): \(measured) dBFS")
            }
        }
    }

    /// The level a render reports as written (what `render` prints) is the file's own level read back: the
    /// RMS of the sounding channels' mean power, each channel's RMS and the sample peak, quantisation
    /// included, silent channels left out. A sound per ear (tone left, pink right 6 dB lower) keeps its
    /// balance and has the asked level as the mean of its channels.
    @Test(arguments: [SampleFormat.s16, .s24, .f32])
    func theWrittenLevelIsTheFileReadBack(format: SampleFormat) throws {
        let requests = [
            RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 7, sampleRate: 48_000,
                          layout: .stereo, levelDBFS: -23, seed: 5),
            RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 2.5, sampleRate: 44_100,
                          layout: .left, levelDBFS: -60, seed: 6),
            RenderRequest(sound: .tone(frequencyHz: 1_000), durationSeconds: 3, sampleRate: 48_000, layout: .stereo, levelDBFS: -20,
                          pulses: Pulses(onSeconds: 0.2, offSeconds: 0.2, rampSeconds: 0.025)),
            RenderRequest(sound: try Sound.parse(json: Array(#"{"layers":[{"source":"tone","frequency":1000,"ears":"left"},{"source":"pink","ears":"right","gainDB":-6}]}"#.utf8),
                                                 file: "ears.json"),
                          durationSeconds: 2, sampleRate: 48_000, layout: .stereo, level: .rms(dBFS: -25), seed: 3),
        ]
        for (k, request) in requests.enumerated() {
            let path = "\(folder)/written-\(k)-\(format).wav"
            let report = try Renderer.renderFile(request, to: path, sampleFormat: format)
            let decoded = try DecodedAudio(contentsOf: path)
            var statistics = LevelStatistics(channelCount: decoded.buffer.channelCount)
            decoded.buffer.withBlock { statistics.add($0) }
            let readBack = statistics.report()
            let rms = try #require(report.written.rmsDBFS), peak = try #require(report.written.samplePeakDBFS)
            let channelPowers = readBack.channels.compactMap { $0.rmsDBFS }.map { pow(10, $0 / 10) }
            let meanPowerDBFS = 10 * log10(channelPowers.reduce(0, +) / Double(channelPowers.count))
            #expect(abs(rms - meanPowerDBFS) < 1e-4, "request \(k) \(format): RMS \(rms)")
            for (written, read) in zip(report.written.channelRMSDBFS, readBack.channels.map { $0.rmsDBFS }) {
                #expect(abs((written ?? -300) - (read ?? -300)) < 1e-4, "request \(k) \(format): channel \(String(describing: written))")
            }
            if k == 3 {
                #expect(abs(rms + 25) < 0.01, "the mix's mean power is the asked level: \(rms)")
                let balance = (report.written.channelRMSDBFS[0] ?? 0) - (report.written.channelRMSDBFS[1] ?? 0)
                #expect(abs(balance - 6) < 0.05, "tone left, pink right 6 dB lower: \(balance)")
            }
            #expect(abs(peak - readBack.samplePeakDBFS!) < 1e-4, "request \(k) \(format): peak \(peak)")
        }
    }

    /// White noise whose predicted level scatter is about the tolerance (2 s mono: 0.020 dB) is written in
    /// one pass at the expected gain (1) when it lands within ``Renderer/levelToleranceDB``, and written
    /// again at the measured gain when it does not (about a third of the seeds; the first of each among
    /// seeds 1 … 30 is taken).
    @Test(arguments: [true, false])
    func noiseIsWrittenInOnePassUnlessItLandsOffTheLevel(onePass: Bool) throws {
        func request(_ seed: UInt64) -> RenderRequest {
            RenderRequest(sound: .noise(colour: .white, distribution: .gaussian), durationSeconds: 2,
                          layout: .mono, levelDBFS: -20, seed: seed)
        }
        let found = try (1...30).lazy.map { seed in (seed: UInt64(seed), gain: try Renderer.render(request(UInt64(seed))).gains[0]) }
            .first { (abs(Decibels.fromAmplitude(Double($0.gain))) <= Renderer.levelToleranceDB) == onePass }
        let (seed, exactGain) = try #require(found, "no seed of 1 … 30 lands \(onePass ? "on" : "off") the level")
        let path = "\(folder)/one-pass-\(seed).wav"
        let report = try Renderer.renderFile(request(seed), to: path, sampleFormat: .s16)
        #expect(report.gains == (onePass ? [1] : [exactGain]))
        let measured = try DecodedAudio(contentsOf: path).buffer.withChannel(0) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) }
        #expect(abs(measured + 20) <= (onePass ? Renderer.levelToleranceDB : 0.001), "\(measured) dBFS")
    }

    /// Brown noise scatters too much for one pass at the expected gain (60 s stereo: 0.1 dB); its power is
    /// forecast and it is written once at the forecast gains, landing within 0.01 dB (four times the
    /// forecast's scatter) where the expected gain would have missed by more than the tolerance: the first
    /// two seeds from 1 whose expected gain would miss (nearly all: 60 s of stereo brown noise scatters by
    /// 0.1 dB).
    @Test func brownNoiseIsWrittenOnceAtItsForecastGain() throws {
        let frames = 60 * 48_000
        let forecast = NoisePowerForecast(colour: .brown, sampleRate: 48_000, frames: frames)
        func forecastGains(seed: UInt64) -> [Float] {
            (0..<2).map { c in Float(1 / forecast.relativePower(key: SeedStream.noise.key(seed: seed, channel: c)).squareRoot()) }
        }
        func expectedGainOff(seed: UInt64) -> Double { forecastGains(seed: seed).map { abs(Decibels.fromAmplitude(Double($0))) }.max()! }
        let seeds = Array((UInt64(1)...40).filter { expectedGainOff(seed: $0) > Renderer.levelToleranceDB }.prefix(2))
        #expect(seeds.count == 2, "brown noise's expected gain would have landed for nearly every seed")
        for seed in seeds {
            let request = RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 60,
                                        layout: .stereo, levelDBFS: -20, seed: seed)
            #expect(request.frameCount == frames)
            let path = "\(folder)/brown-\(seed).wav"
            let report = try Renderer.renderFile(request, to: path, sampleFormat: .s16)
            #expect(report.gains == forecastGains(seed: seed))
            let decoded = try DecodedAudio(contentsOf: path).buffer
            for c in 0..<2 {
                let level = decoded.withChannel(c) { SignalLevel.rmsDBFS(UnsafeBufferPointer($0)) } + 20
                #expect(abs(level) <= 0.01, "seed \(seed) channel \(c): \(level) dB off")
            }
        }
    }

    @Test func sameRequestGivesByteIdenticalFilesAndAnotherSeedDoesNot() throws {
        var request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 3, seed: 7)
        for name in ["a.wav", "b.wav"] {
            try Renderer.renderFile(request, to: "\(folder)/\(name)", sampleFormat: .s16)
        }
        request.seed = 8
        try Renderer.renderFile(request, to: "\(folder)/c.wav", sampleFormat: .s16)
        let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a.wav"))
        let b = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/b.wav"))
        let c = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/c.wav"))
        #expect(a == b)
        #expect(a != c)
    }

    @Test func fileRenderIsTheStreamUpToItsGain() throws {
        let request = RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 2,
                                    sampleRate: 44_100, layout: .stereo, levelDBFS: -20, seed: 5)
        let rendered = try Renderer.render(request)
        let stream = try NoiseSource(colour: .brown, sampleRate: 44_100, layout: .stereo, levelDBFS: -20, seed: 5)
            .renderBuffer(frameCount: request.frameCount)
        for c in 0..<2 { #expect(rendered.buffer.samples(channel: c) == stream.samples(channel: c)) }
    }

    /// The streamed file holds exactly the in-memory render times the gains it was written at (pink noise
    /// at its forecast gain, violet loops and the tone at their exact gains).
    @Test(arguments: [RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 3.3,
                                    layout: .right, seed: 2),
                      RenderRequest(sound: .noise(colour: .violet, distribution: .gaussian), durationSeconds: 2,
                                    layout: .stereo, seed: 3, loop: true),
                      RenderRequest(sound: .tone(frequencyHz: 3_000), durationSeconds: 1.7, layout: .stereo, levelDBFS: -6)])
    func streamedFileEqualsTheInMemoryRenderTimesItsGain(request: RenderRequest) throws {
        let path = "\(folder)/same-\(request.seed)-\(request.loop).wav"
        let report = try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let file = try DecodedAudio(contentsOf: path).buffer
        let memory = try Renderer.render(request)
        // One signal (a diotic tone, one ear) or one per channel.
        let gains = report.gains.count == file.channelCount ? report.gains : Array(repeating: report.gains[0], count: file.channelCount)
        for c in 0..<file.channelCount {
            let expected = memory.buffer.samples(channel: c).map { $0 * gains[c] }
            let differing = zip(file.samples(channel: c), expected).filter { $0 != $1 }.count
            #expect(differing == 0, "channel \(c): \(differing) samples differ")
        }
    }

    @Test func aFileThatWouldClipIsNotWrittenAndTheErrorNamesTheHighestLevel() throws {
        let request = RenderRequest(sound: .noise(colour: .white, distribution: .gaussian), durationSeconds: 2, levelDBFS: -3)
        let path = "\(folder)/clip.wav"
        do {
            try Renderer.renderFile(request, to: path, sampleFormat: .s16)
            Issue.record("expected a clipping error")
        } catch {
            #expect("\(error)".contains("would clip"))
            #expect("\(error)".contains("highest level that fits"))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func loopedToneIsAdjustedToWholeCyclesAndReported() throws {
        let request = RenderRequest(sound: .tone(frequencyHz: 1000.3), durationSeconds: 1, layout: .mono, loop: true)
        let rendered = try Renderer.render(request)
        #expect(rendered.renderedFrequencyHz == 1000)
        #expect(rendered.notes.first?.contains("adjusted from 1000.3 Hz to 1000.0 Hz") == true)
        let x = rendered.buffer.samples(channel: 0)
        // The sample after the last is the first again: a seamless loop.
        let next = Float(sin(2 * Double.pi * 1000 * Double(x.count) / 48_000) * 0.7079457843841379)
        #expect(abs(next - x[0]) < 1e-6)
    }

    @Test func loopedNoiseFileIsPeriodicWithExactLevel() throws {
        let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 4,
                                    layout: .stereo, levelDBFS: -23, seed: 9, loop: true)
        let rendered = try Renderer.render(request)
        #expect(rendered.buffer.samples(channel: 0) != rendered.buffer.samples(channel: 1))
        for c in 0..<2 {
            let rms = rendered.buffer.withChannel(c) { SignalLevel.rms(UnsafeBufferPointer($0)) } * Double(rendered.gains[c])
            #expect(abs(Decibels.fromAmplitude(rms) + 23) < 0.001)
        }
    }

    /// A loop longer than the longest synthesised one streams as periodic noise: the file is one period
    /// (the stream's next frames are its first ones again), at the exact level, and says so in its comment;
    /// grey noise and narrow-band loops that long are refused before any work.
    @Test func longLoopsStreamAsPeriodicNoiseAndLongSynthesisIsRefused() throws {
        let rate = 8_000.0
        let seconds = Double(LoopNoise.largestSynthesisFrames) / rate + 1
        let request = RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: seconds,
                                    sampleRate: rate, layout: .mono, levelDBFS: -23, seed: 4, loop: true)
        #expect(request.streamsPeriodicLoop)
        let path = "\(folder)/long-loop.wav"
        try Renderer.renderFile(request, to: path, sampleFormat: .f32)
        let file = try DecodedAudio(contentsOf: path)
        #expect(file.comment?.contains("loop=true loop_method=periodic") == true)
        let x = file.buffer.samples(channel: 0)
        #expect(x.count == request.frameCount)
        #expect(abs(Decibels.fromAmplitude(x.withUnsafeBufferPointer { SignalLevel.rms($0) }) + 23) < 0.001)
        // The stream goes on with the period's first frames.
        let graph = try SoundGraph(request)
        let stream = graph.makeSource().renderBuffer(frameCount: x.count + 100).samples(channel: 0)
        let gain = x[1_000] / stream[1_000]
        for t in 0..<100 { #expect(abs(stream[x.count + t] * gain - x[t]) <= 1e-6, "frame \(t) after the seam") }
        for sound in [Generator.grey, .narrowBandNoise(centreHz: 1_000, widthOctaves: 0.5)] {
            let long = RenderRequest(sound: sound, durationSeconds: seconds, sampleRate: rate, layout: .mono, loop: true)
            #expect(throws: ShadesError.self) { try Renderer.renderFile(long, to: "\(folder)/refused.wav", sampleFormat: .s16) }
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/refused.wav"))
        }
        #expect(!RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 60, loop: true).streamsPeriodicLoop)
    }

    @Test func commentTagHoldsTheParameters() throws {
        let request = RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 1, seed: 42)
        let path = "\(folder)/tag.flac"
        try Renderer.renderFile(request, to: path, sampleFormat: .s24)
        let comment = try DecodedAudio(contentsOf: path).comment ?? ""
        #expect(comment.contains("render pink beta=1"))
        #expect(comment.contains("seed=42"))
        #expect(comment.contains("format=s24"))
    }

    @Test func valueParsing() throws {
        #expect(try ValueParsing.seconds("90s") == 90)
        #expect(try ValueParsing.seconds("10m") == 600)
        #expect(try ValueParsing.seconds("1h") == 3600)
        #expect(try ValueParsing.seconds("1.5s") == 1.5)
        #expect(try ValueParsing.seconds("50ms") == 0.05)
        #expect(try ValueParsing.seconds("12") == 12)
        #expect(try ValueParsing.hertz("6kHz") == 6000)
        #expect(try ValueParsing.hertz("440Hz") == 440)
        #expect(try ValueParsing.hertz("6000") == 6000)
        #expect(try ValueParsing.decibels("-20dBFS") == -20)
        for bad in ["nan", "inf", "-inf", "", "abc", "10x", "1e999"] {
            #expect(throws: ShadesError.self, "\(bad)") { try ValueParsing.seconds(bad) }
        }
    }

    /// Text that does not parse says so, naming the parameter and the text, with forms that do parse: a
    /// problem of its own, not "is out of range".
    @Test func aValueThatDoesNotParseSaysSo() {
        func failure(_ parse: () throws -> Double) -> ShadesError? {
            do { _ = try parse(); return nil } catch { return error as? ShadesError }
        }
        let frequency = failure { try ValueParsing.hertz("6 kHz") }
        #expect(frequency?.description == "frequency '6 kHz': not a frequency (allowed: above 0 Hz; e.g. 6kHz, 6000)")
        #expect(frequency?.parameter == .frequency && frequency?.value == .given("6 kHz") && frequency?.kind == .parameter)
        #expect(frequency?.problem == .notParseable(expected: "a frequency", examples: "6kHz, 6000"))
        #expect(failure { try ValueParsing.seconds("abc") }?.description == "duration 'abc': not a duration (allowed: above 0 and at most 24 h; e.g. 90s, 10m, 1h, 50ms)")
        #expect(failure { try ValueParsing.decibels("x") }?.description == "level 'x': not a level (allowed: at most 0 dBFS; e.g. -20, -20dBFS)")
        #expect(failure { try ValueParsing.loudness("loud") }?.description == "loudness 'loud': not a loudness (e.g. -23, -23LUFS)")
        #expect(failure { try ValueParsing.number("one", parameter: .amDepth) }?.description == "AM depth 'one': not a number (allowed: 0 … 1; e.g. 0.5, -2)")
        #expect(failure { try ValueParsing.hertz("1e308kHz", parameter: .amRate) }?.description == "AM rate '1e308kHz': not a frequency (allowed: 0.5 … 100 Hz; e.g. 6kHz, 6000)")
        // The caller names the parameter by its identity.
        let tone = failure { try ValueParsing.seconds("1x", parameter: .toneLength) }
        #expect(tone?.described(naming: { $0 == .toneLength ? "--tone-length" : nil }) == "--tone-length '1x': not a duration (allowed: above 0 and at most 24 h; e.g. 90s, 10m, 1h, 50ms)")
        // A value that parses is the parameter's own check: out of range, with the range.
        #expect(throws: Never.self) { _ = try ValueParsing.hertz("300kHz") }
        #expect(failure { try ToneSource(frequencyHz: try ValueParsing.hertz("300kHz"), sampleRate: 48_000).frequencyHz }?.problem == .outOfRange)
    }
}
