import Testing
import Foundation
import CSndFile
import ShadesAnalysis
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Notched music files (`NotchedMusic`) and the streaming resampler under them.
@Suite struct NotchedMusicTests {
    let folder = temporaryFolder("notch")

    // MARK: Helpers

    /// `frames` of noise written to `name` (WAV/FLAC through the package's writer), returning its path.
    func noiseFile(_ name: String, colour: NoiseColour = .white, rate: Double = 48_000, layout: ChannelLayout = .stereo,
                   levelDBFS: Double = -20, seconds: Double = 6, format: SampleFormat = .f32, seed: UInt64 = 1,
                   distribution: WhiteDistribution = .gaussian) throws -> String {
        let path = "\(folder)/\(name)"
        let buffer = try NoiseSource(colour: colour, sampleRate: rate, layout: layout, levelDBFS: levelDBFS, seed: seed,
                                     distribution: distribution).renderBuffer(frameCount: Int(seconds * rate))
        try FileSink.write(buffer, sampleRate: Int(rate), gains: Array(repeating: 1, count: buffer.channelCount), to: path,
                                  sampleFormat: format,
                                  ditherKey: 1, comment: nil)
        return path
    }

    /// Writes `buffer` through libsndfile in a format the package does not write (Ogg Vorbis, Opus, MP3).
    func writeWithLibsndfile(_ buffer: AudioBuffer, rate: Int, to path: String, format: Int32) throws {
        var info = SF_INFO(frames: 0, samplerate: Int32(rate), channels: Int32(buffer.channelCount), format: format,
                           sections: 0, seekable: 0)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw ShadesError.runtime("libsndfile cannot write \(path): \(String(cString: sf_strerror(nil)))")
        }
        let channels = buffer.channelCount, frames = buffer.frameCapacity
        var interleaved = [Float](repeating: 0, count: frames * channels)
        for c in 0..<channels {
            let samples = buffer.samples(channel: c)
            for i in 0..<frames { interleaved[i * channels + c] = samples[i] }
        }
        let written = sf_writef_float(file, interleaved, sf_count_t(frames))
        sf_close(file)
        #expect(written == frames)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func decoded(_ path: String) throws -> DecodedAudio { try DecodedAudio(contentsOf: path) }

    /// Notch check of one channel of `output` against the same channel of `reference`.
    func notchCheck(reference: AudioBuffer, output: AudioBuffer, channel: Int, rate: Double,
                    band: OctaveBand?) throws -> NotchCheckReport {
        var check = try NotchCheckAccumulator(sampleRate: rate, band: band)
        let x = reference.samples(channel: channel), y = output.samples(channel: channel)
        x.withUnsafeBufferPointer { xs in y.withUnsafeBufferPointer { ys in check.add(reference: xs, output: ys) } }
        return try check.result()
    }

    /// The whole channel through a fresh notch filter, its delay dropped and flushed with zeros.
    func filteredInMemory(_ samples: [Float], notches: [NotchSpec], rate: Double) throws -> [Float] {
        let filter = NotchFilter(design: try NotchDesign(notches: notches, sampleRate: rate))
        let padded = samples + [Float](repeating: 0, count: filter.outputDelayFrames)
        var out = [Float](repeating: 0, count: padded.count)
        padded.withUnsafeBufferPointer { x in out.withUnsafeMutableBufferPointer { filter.process(x, into: $0) } }
        return Array(out[filter.outputDelayFrames...])
    }

    func truePeakDBTP(_ audio: AudioBuffer, rate: Double) -> Double {
        (0..<audio.channelCount).map { c in
            var meter = TruePeakMeter(sampleRate: rate)
            audio.samples(channel: c).withUnsafeBufferPointer { meter.add($0) }
            return meter.peakDBTP
        }.max()!
    }

    // MARK: Alignment, depth, length

    /// Per-ear notches of different lengths: each channel is its input filtered, with the delay removed,
    /// exactly as long, at lag 0 and at least 100 dB deep inside the band.
    @Test func outputIsTheInputFilteredAlignedAndExactlyAsLong() throws {
        let input = try noiseFile("in.wav", seconds: 6.3)
        let output = "\(folder)/out.wav"
        let left = [NotchSpec(centreHz: 4_000)], right = [NotchSpec(centreHz: 1_000, widthOctaves: 0.5)]
        let report = try NotchedMusic.process(NotchJob(inputPath: input, outputPath: output,
                                                       notches: .perEar(left: left, right: right), sampleFormat: .f32))
        let x = try decoded(input).buffer, y = try decoded(output)
        #expect(y.buffer.frameCapacity == x.frameCapacity && report.frames == x.frameCapacity)
        #expect(y.sampleRate == 48_000 && y.buffer.channelCount == 2)
        #expect(report.gainDB == 0)
        for (c, notches) in [(0, left), (1, right)] {
            let expected = try filteredInMemory(x.samples(channel: c), notches: notches, rate: 48_000)
            let got = y.buffer.samples(channel: c)
            let worst = zip(expected, got).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-6, "channel \(c): largest difference from the in-memory filter \(worst)")
            let check = try notchCheck(reference: x, output: y.buffer, channel: c, rate: 48_000,
                                       band: try OctaveBand(centreHz: notches[0].centreHz, widthOctaves: notches[0].widthOctaves))
            #expect(check.lagSamples == 0 && abs(check.fineLagSamples) < 0.01, "channel \(c): lag \(check.fineLagSamples)")
            #expect((check.worstInBandDB ?? .nan) <= -100, "channel \(c): worst in band \((check.worstInBandDB ?? .nan)) dB")
            #expect(abs(check.passbandGainDB) < 0.01 && (check.passbandRippleDB ?? .nan) < 0.1, "channel \(c)")
        }
        #expect(report.outputDelayFrames > 0)
    }

    /// The resampled path (the rational resampler, then the notch): the notch ≥ 100 dB deep where it was
    /// asked, against libsamplerate's best converter as an independent reference for the resampled input.
    /// (The output above the input's Nyquist is empty, so the passband is checked where it is defined: the
    /// resampler's in ResamplerQualityTests, the notch's in the tests above.)
    @Test(arguments: [22_050.0, 44_100])
    func resamplingTo48kHzKeepsTheLengthAndPutsTheNotchAtItsFrequency(inputRate: Double) throws {
        let input = try noiseFile("in\(Int(inputRate)).wav", rate: inputRate, layout: .mono, seconds: 7)
        let output = "\(folder)/out48-\(Int(inputRate)).wav"
        let report = try NotchedMusic.process(NotchJob(inputPath: input, outputPath: output,
                                                       notches: [NotchSpec(centreHz: 6_000)],
                                                       outputRateHz: 48_000, sampleFormat: .f32))
        let n = 7 * Int(inputRate)
        let y = try decoded(output)
        #expect(y.sampleRate == 48_000)
        #expect(abs(y.buffer.frameCapacity - Int((Double(n) * 48_000 / inputRate).rounded())) <= 1)
        #expect(report.frames == y.buffer.frameCapacity && report.inputSampleRate == inputRate && report.sampleRate == 48_000)
        // Reference: the whole input resampled in one go (src_simple); the notch is found, not given.
        let reference = try Resampler.convert(try decoded(input).buffer, from: inputRate, to: 48_000)
        let count = min(reference.frameCapacity, y.buffer.frameCapacity)
        let trimmed = AudioBuffer(channelCount: 1, frameCapacity: count), out = AudioBuffer(channelCount: 1, frameCapacity: count)
        trimmed.withChannel(0) { t in reference.withChannel(0) { r in for i in 0..<count { t[i] = r[i] } } }
        out.withChannel(0) { o in y.buffer.withChannel(0) { r in for i in 0..<count { o[i] = r[i] } } }
        let check = try notchCheck(reference: trimmed, output: out, channel: 0, rate: 48_000, band: nil)
        #expect(check.lagSamples == 0)
        #expect(abs(log2((check.band?.centreHz ?? .nan) / 6_000)) < 1.0 / 24, "found the notch at \((check.band?.centreHz ?? .nan)) Hz")
        #expect(abs((check.band?.widthOctaves ?? .nan) - 1) < 0.1, "width \((check.band?.widthOctaves ?? .nan))")
        #expect((check.depthDB ?? .nan) <= -100, "depth \((check.depthDB ?? .nan))")
    }

    /// Files shorter than the filter delay, and any channel count, keep their exact length.
    @Test(arguments: [(1, 10), (3, 1_000), (6, 30_000)])
    func shortFilesAndManyChannelsKeepTheirLength(channels: Int, frames: Int) throws {
        let path = "\(folder)/short-\(channels)-\(frames).wav"
        let buffer = AudioBuffer(channelCount: channels, frameCapacity: frames)
        for c in 0..<channels { buffer.withChannel(c) { x in for i in 0..<frames { x[i] = Float(sin(Double(i * (c + 1)) * 0.3)) * 0.25 } } }
        try FileSink.write(buffer, sampleRate: 22_050, gains: Array(repeating: 1, count: channels), to: path,
                                  sampleFormat: .f32, ditherKey: 1, comment: nil)
        let output = "\(folder)/short-out-\(channels)-\(frames).flac"
        let report = try NotchedMusic.process(NotchJob(inputPath: path, outputPath: output,
                                                       notches: [NotchSpec(centreHz: 2_000)]))
        let y = try decoded(output)
        #expect(y.buffer.frameCapacity == frames && y.buffer.channelCount == channels && y.sampleRate == 22_050)
        #expect(report.outputDelayFrames > 0 && report.frames == frames)
        if frames < WelchWindow.minimumFrameCount { #expect(report.warnings.first?.contains("too short") == true) }
        let json = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["frames"] as? Int == report.frames && object["outputDelayFrames"] as? Int == report.outputDelayFrames)
    }

    // MARK: Peaks

    /// Near-full-scale noise with Stein's +20 dB edge boost would clip: the whole file is lowered just
    /// enough for −1 dBTP, and the report says by how much.
    @Test(arguments: [SampleFormat.s16, .s24, .f32])
    func loudInputIsLoweredToTheTruePeakCeiling(format: SampleFormat) throws {
        let input = try noiseFile("loud-\(format).wav", layout: .stereo, levelDBFS: -4.8, seconds: 5,
                                  distribution: .uniform)
        let output = "\(folder)/loud-out-\(format).wav"
        let stein = NotchSpec(centreHz: 4_000, widthOctaves: 0.5, edgeBoostDB: 20, edgeWidthOctaves: 0.375)
        let report = try NotchedMusic.process(NotchJob(inputPath: input, outputPath: output,
                                                       notches: [stein], sampleFormat: format))
        #expect(report.truePeakBeforeGainDBTP > 0)
        #expect(report.gainDB < -1)
        #expect(abs(report.truePeakDBTP - -1) < 0.01)
        let y = try decoded(output)
        let peak = truePeakDBTP(y.buffer, rate: 48_000)
        #expect(peak <= -1 && peak > -1.01, "output true peak \(peak) dBTP")
        #expect(y.comment?.contains("gain=\(String(format: "%.2f", report.gainDB))dB") == true, "\(y.comment ?? "no comment")")
        #expect(y.comment?.contains("notch=4000Hz/0.5oct+20dB/0.375oct") == true)
    }

    @Test func quietInputKeepsItsGainAndRunsAreByteIdentical() throws {
        let input = try noiseFile("quiet.wav", colour: .pink, seconds: 4)
        var job = NotchJob(inputPath: input, outputPath: "\(folder)/q1.wav", notches: [NotchSpec(centreHz: 5_200)],
                           sampleFormat: .s16)
        let report = try NotchedMusic.process(job)
        job.outputPath = "\(folder)/q2.wav"
        _ = try NotchedMusic.process(job)
        #expect(report.gainDB == 0)
        #expect(report.truePeakDBTP < -1)
        #expect(bytes("\(folder)/q1.wav") == bytes("\(folder)/q2.wav"))
    }

    // MARK: Suitability

    @Test func suitabilityReportsTheSharesAndWarnsWhenTooLittlePowerIsNearTheNotch() throws {
        let pink = try noiseFile("pink.wav", colour: .pink, layout: .mono, seconds: 8)
        let good = try NotchedMusic.process(NotchJob(inputPath: pink, outputPath: "\(folder)/pink-out.wav",
                                                     notches: [NotchSpec(centreHz: 4_000)]))
        let s = try #require(good.suitability.first)
        // Pink noise: equal power per octave, about 10.2 octaves from 20 Hz to 24 kHz.
        let perOctave = 100 / log2(24_000 / 20.0)
        #expect(abs(s.bandSharePercent - perOctave) < 0.1 * perOctave, "band \(s.bandSharePercent) %")
        #expect(abs(s.belowSharePercent - perOctave / 2) < 0.1 * perOctave, "below \(s.belowSharePercent) %")
        #expect(abs(s.aboveSharePercent - perOctave / 2) < 0.1 * perOctave, "above \(s.aboveSharePercent) %")
        #expect(s.warning == nil && good.warnings.isEmpty)
        #expect(abs(s.nearLevelDB - 10 * log10(s.nearSharePercent / 100)) < 1e-9)

        let brown = try noiseFile("brown.wav", colour: .brown, layout: .mono, seconds: 8)
        let poor = try NotchedMusic.process(NotchJob(inputPath: brown, outputPath: "\(folder)/brown-out.wav",
                                                     notches: [NotchSpec(centreHz: 4_000)]))
        let b = try #require(poor.suitability.first)
        #expect(b.nearSharePercent < NotchedMusic.minimumNearSharePercent, "near \(b.nearSharePercent) %")
        #expect(b.warning?.contains("too little power near 4000 Hz") == true, "\(b.warning ?? "no warning")")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/brown-out.wav"))   // a warning, not an error
    }

    @Test func perEarNotchesAreReportedPerEar() throws {
        let input = try noiseFile("ears.wav", colour: .pink, seconds: 4)
        let report = try NotchedMusic.process(NotchJob(
            inputPath: input, outputPath: "\(folder)/ears-out.flac",
            notches: .perEar(left: [NotchSpec(centreHz: 3_000)], right: [NotchSpec(centreHz: 7_000), NotchSpec(centreHz: 500)])))
        #expect(report.suitability.map(\.channels) == [[0], [1], [1]])
        #expect(report.suitability.map(\.notch.centreHz) == [3_000, 7_000, 500])
        let comment = try decoded("\(folder)/ears-out.flac").comment ?? ""
        #expect(comment.contains("left=3000Hz/1oct right=7000Hz/1oct,500Hz/1oct"), "\(comment)")
    }

    // MARK: Formats

    /// Inputs in compressed formats, written with libsndfile itself: the output has the decoded input's
    /// length and rate, and the notch is as deep against the decoded input.
    @Test(arguments: ["ogg", "opus", "mp3", "flac", "aiff"])
    func readsCompressedAndOtherFormats(kind: String) throws {
        let rate = kind == "mp3" ? 44_100 : 48_000
        let buffer = try NoiseSource(colour: .pink, sampleRate: Double(rate), layout: .stereo, levelDBFS: -20, seed: 4)
            .renderBuffer(frameCount: 5 * rate)
        let path = "\(folder)/music.\(kind)"
        let format: Int32
        switch kind {
        case "ogg": format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case "opus": format = Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case "mp3": format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        case "flac": format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        default: format = Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_24)
        }
        try writeWithLibsndfile(buffer, rate: rate, to: path, format: format)
        let output = "\(folder)/music-\(kind).wav"
        let report = try NotchedMusic.process(NotchJob(inputPath: path, outputPath: output,
                                                       notches: [NotchSpec(centreHz: 3_000)]))
        let x = try decoded(path), y = try decoded(output)
        #expect(y.buffer.frameCapacity == x.buffer.frameCapacity && report.inputFrames == x.buffer.frameCapacity)
        #expect(y.sampleRate == x.sampleRate && y.buffer.channelCount == 2)
        let check = try notchCheck(reference: x.buffer, output: y.buffer, channel: 1, rate: Double(rate),
                                   band: try OctaveBand(centreHz: 3_000, widthOctaves: 1))
        #expect(check.lagSamples == 0)
        #expect((check.worstInBandDB ?? .nan) <= -100, "\(kind): worst in band \((check.worstInBandDB ?? .nan)) dB")
    }

    // MARK: Batch

    @Test func batchWritesEveryGoodJobAndReportsEachFailure() throws {
        let a = try noiseFile("a.wav", colour: .pink, layout: .mono, seconds: 3)
        let b = try noiseFile("b.flac", colour: .pink, rate: 44_100, seconds: 3, format: .s24)
        let c = try noiseFile("c.wav", colour: .white, seconds: 3)
        let out = "\(folder)/batch/out"   // does not exist yet
        let notches = [NotchSpec(centreHz: 5_200)]
        let jobs = [a, b, c, "\(folder)/missing.wav"].map { input in
            NotchJob(inputPath: input, outputPath: "\(out)/\((input as NSString).lastPathComponent)-notched.wav", notches: notches)
        }
        let results = NotchedMusic.processBatch(jobs, concurrency: 2)
        #expect(results.count == 4)
        for (job, result) in zip(jobs.prefix(3), results.prefix(3)) {
            let report = try result.get()
            #expect(report.output == job.outputPath)
            #expect(try decoded(job.outputPath).buffer.frameCapacity == report.frames)
        }
        guard case .failure(let error) = results[3], error.kind == .input else { Issue.record("missing input ran: \(results[3])"); return }
        #expect(error.message.contains("missing.wav"))
        let listing = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(listing == ["a.wav-notched.wav", "b.flac-notched.wav", "c.wav-notched.wav"])
    }

    @Test func batchRefusesAnOutputThatIsAnotherJobsInput() throws {
        let a = try noiseFile("x.wav", layout: .mono, seconds: 1)
        let b = try noiseFile("y.wav", layout: .mono, seconds: 1)
        let before = bytes(b)
        let notches = [NotchSpec(centreHz: 5_000)]
        let results = NotchedMusic.processBatch([NotchJob(inputPath: a, outputPath: "\(folder)/./y.wav", notches: notches),
                                                 NotchJob(inputPath: b, outputPath: "\(folder)/z.wav", notches: notches)])
        guard case .failure(let error) = results[0], error.kind == .parameter else { Issue.record("\(results[0])"); return }
        #expect(error.message.contains("input of another job"))
        #expect(bytes(b) == before)
        #expect((try? results[1].get()) != nil)
    }

    // MARK: Bad input

    enum BadInput: String, CaseIterable, CustomTestStringConvertible {
        case missing, empty, truncatedWAV, truncatedFLAC, truncatedOgg, corrupt, unknownFormat
        case bandToZero, bandToNyquist, boostToNyquist, zeroWidth, negativeWidth, tooWide
        case outputIsInput, outputIsInputRelative, outputIsInputDotted, outputIsSymlinkToInput, outputIsHardLinkToInput
        case outputFolderBlockedByFile, outputExtension, floatInFLAC, perEarOnMono, noNotch, badRate, badCeiling

        var testDescription: String { rawValue }

        /// Whether the error is the caller's (`usage`, exit 2) rather than the file's (`runtime`, exit 1).
        var isUsage: Bool {
            switch self {
            case .missing, .empty, .truncatedWAV, .truncatedFLAC, .truncatedOgg, .corrupt, .unknownFormat,
                 .outputFolderBlockedByFile: return false
            default: return true
            }
        }
    }

    @Test(arguments: BadInput.allCases)
    func badInputIsOneTypedErrorWithNoOutputAndTheInputUntouched(bad: BadInput) throws {
        let sub = "\(folder)/\(bad.rawValue)"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        var input = "\(sub)/in.wav"
        var output = "\(sub)/out.wav"
        var notches: [NotchSpec] = [NotchSpec(centreHz: 4_000)]
        var rate: Double?
        var format = SampleFormat.s24
        var ceiling = -1.0
        func make(_ name: String, layout: ChannelLayout = .stereo) throws -> String {
            try noiseFile("\(bad.rawValue)/\(name)", colour: .pink, layout: layout, seconds: 2, format: .s16)
        }
        func cut(_ path: String) throws {
            let data = try #require(bytes(path))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        }
        switch bad {
        case .missing: break
        case .empty: _ = FileManager.default.createFile(atPath: input, contents: Data())
        case .truncatedWAV: try cut(try make("in.wav"))
        case .truncatedFLAC: input = try make("in.flac"); try cut(input)
        case .truncatedOgg:
            input = "\(sub)/in.ogg"
            let buffer = try NoiseSource(colour: .pink, sampleRate: 48_000).renderBuffer(frameCount: 96_000)
            try writeWithLibsndfile(buffer, rate: 48_000, to: input, format: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS))
            try cut(input)
        case .corrupt:
            input = "\(sub)/in.flac"
            _ = FileManager.default.createFile(atPath: input, contents: Data("fLaC".utf8) + Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        case .unknownFormat:   // an AAC/MP4 header: not a format libsndfile reads
            input = "\(sub)/in.m4a"
            _ = FileManager.default.createFile(atPath: input, contents: Data([0, 0, 0, 0x20] + Array("ftypM4A ".utf8) + [UInt8](repeating: 0, count: 2_000)))
        case .bandToZero: _ = try make("in.wav"); notches = [NotchSpec(centreHz: 25, widthOctaves: 1)]
        case .bandToNyquist: _ = try make("in.wav"); notches = [NotchSpec(centreHz: 20_000, widthOctaves: 0.5)]
        case .boostToNyquist:
            _ = try make("in.wav")
            notches = [NotchSpec(centreHz: 15_000, widthOctaves: 0.5, edgeBoostDB: 20)]
        case .zeroWidth: _ = try make("in.wav"); notches = [NotchSpec(centreHz: 4_000, widthOctaves: 0)]
        case .negativeWidth: _ = try make("in.wav"); notches = [NotchSpec(centreHz: 4_000, widthOctaves: -1)]
        case .tooWide: _ = try make("in.wav"); notches = [NotchSpec(centreHz: 4_000, widthOctaves: 3.01)]
        case .outputIsInput: _ = try make("in.wav"); output = input
        case .outputIsInputRelative:
            _ = try make("in.wav")
            let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
            output = String(repeating: "../", count: depth) + String(input.drop(while: { $0 == "/" }))
        case .outputIsInputDotted:
            _ = try make("in.wav")
            try FileManager.default.createDirectory(atPath: "\(sub)/d", withIntermediateDirectories: true)
            output = "\(sub)/./d/../in.wav"
        case .outputIsSymlinkToInput:
            _ = try make("in.wav")
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: input)
        case .outputIsHardLinkToInput:
            _ = try make("in.wav")
            try FileManager.default.linkItem(atPath: input, toPath: output)
        case .outputFolderBlockedByFile: _ = try make("in.wav"); output = "\(input)/notched/out.wav"
        case .outputExtension: _ = try make("in.wav"); output = "\(sub)/out.mp3"
        case .floatInFLAC: _ = try make("in.wav"); output = "\(sub)/out.flac"; format = .f32
        case .perEarOnMono:
            _ = try make("in.wav", layout: .mono)
            notches = .perEar(left: [NotchSpec(centreHz: 4_000)], right: [NotchSpec(centreHz: 6_000)])
        case .noNotch: _ = try make("in.wav"); notches = []
        case .badRate: _ = try make("in.wav"); rate = 4_000
        case .badCeiling: _ = try make("in.wav"); ceiling = 3
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: sub).sorted()
        let inputBytes = bytes(input)
        let outputBytes = bytes(output)
        do {
            let report = try NotchedMusic.process(NotchJob(inputPath: input, outputPath: output, notches: notches,
                                                           outputRateHz: rate, sampleFormat: format, ceilingDBTP: ceiling))
            Issue.record("\(bad) was processed: \(report)")
        } catch {
            let message = error.description
            switch error.kind {
            case .parameter: #expect(bad.isUsage, "\(bad) is a usage error: \(message)")
            case .input, .runtime: #expect(!bad.isUsage, "\(bad) is a runtime error: \(message)")
            }
            #expect(!message.isEmpty && !message.contains("\n"), "\(message)")
            print("\(bad): \(message)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sub).sorted() == before, "\(bad): files appeared or vanished")
        #expect(bytes(input) == inputBytes, "\(bad): the input changed")
        #expect(bytes(output) == outputBytes, "\(bad): the output changed")
    }

    // MARK: Streaming resampler

    @Test(arguments: [(44_100.0, 48_000.0), (48_000, 44_100), (48_000, 96_000), (96_000, 22_050)])
    func streamingResamplerIsAlignedExactLengthAndBlockInvariant(rates: (Double, Double)) throws {
        let (from, to) = rates
        let n = 50_001
        let f = 997.0
        let input = AudioBuffer(channelCount: 2, frameCapacity: n)
        for c in 0..<2 {
            input.withChannel(c) { x in for i in 0..<n { x[i] = Float(0.5 * sin(2 * Double.pi * f * Double(i) / from + Double(c))) } }
        }
        /// `blocks` sizes in turn; the end told with the last block, or by an empty block after it (a
        /// decoder whose end is known only when a read returns nothing).
        func run(blocks: [Int], endByEmptyBlock: Bool = false) throws -> [[Float]] {
            let resampler = try StreamingResampler(channelCount: 2, inputRate: from, outputRate: to, outputBlockFrames: 1_500)
            var out: [[Float]] = [[], []]
            var start = 0
            var k = 0
            while start < n || (endByEmptyBlock && !resampler.isFinished) {
                let size = min(blocks[k % blocks.count], n - start)
                try input.withBlock(frames: start..<start + size) { (b: AudioBlock) throws(ShadesError) in
                    try resampler.process(b, endOfInput: endByEmptyBlock ? size == 0 : start + size == n) { o in
                        for c in 0..<2 { out[c] += o.channel(c) }
                    }
                }
                start += size
                k += 1
            }
            #expect(resampler.isFinished && resampler.outputFrames == out[0].count)
            return out
        }
        let whole = try run(blocks: [n])
        let expected = StreamingResampler.outputFrameCount(inputFrames: n, inputRate: from, outputRate: to)
        #expect(whole[0].count == expected && whole[1].count == expected)
        // Aligned: the resampled sine matches the ideal one at the new rate (a one-sample lag would miss
        // by 0.06 or more).
        var worst = 0.0
        let m = whole[0].count
        for c in 0..<2 {
            for i in m / 10..<m * 9 / 10 {
                let ideal = 0.5 * sin(2 * Double.pi * f * Double(i) / to + Double(c))
                worst = max(worst, abs(Double(whole[c][i]) - ideal))
            }
        }
        #expect(worst < 1e-5, "\(from) → \(to) Hz: worst error \(worst)")
        let pieces = try run(blocks: [1, 17, 4_096, 333, 10_000])
        #expect(pieces == whole)
        #expect(try run(blocks: [4_096, 333], endByEmptyBlock: true) == whole)
        #expect(try run(blocks: [n], endByEmptyBlock: true) == whole)
    }
}
