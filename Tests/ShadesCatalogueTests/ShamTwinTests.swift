import Testing
import Foundation
import ShadesAnalysis
import ShadesCatalogue
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// Every therapy sound and its sham twin (``Sound/shamTwin()``), matched in loudness
/// (``RenderRequest/loudnessMatchedShamTwins(format:)``), written as files and measured: same length, format,
/// channels and comment-tag keys; integrated loudness within 0.1 LU; the therapeutic feature moved.
@Suite struct ShamTwinTests {
    let folder = temporaryFolder("sham")
    let rate = 48_000.0
    /// The tinnitus frequency of every case, Hz; its sham frequency (a band up to one octave wide): 2.5 octaves down.
    let f = 6_000.0
    var moved: Double { f / pow(2, 2.5) }

    /// A real song from the tests' music fixtures (`make test-deps`: planetblupi's Ogg Vorbis game music; the
    /// 10-minute music004.ogg, not the 28-minute music000.ogg, which one test reads twice whole), or where they
    /// are missing a music-like one made here.
    func song() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let fixture = root + "/.build-fixtures/music/music004.ogg"
        if FileManager.default.fileExists(atPath: fixture) { return fixture }
        print("ShamTwinTests: no music fixtures (make test-deps): a synthesised song instead")
        return try synthesisedSong()
    }

    /// A music-like song: chords of harmonic tones (1/k harmonics up to 12 kHz) over quiet pink noise,
    /// `seconds` long, stereo, written as s16 WAV.
    func synthesisedSong(seconds: Double = 12) throws -> String {
        let frames = Int(seconds * rate)
        let chords: [[Double]] = [[220, 277.18, 329.63], [196, 246.94, 293.66], [174.61, 220, 261.63], [246.94, 311.13, 369.99]]
        let buffer = try NoiseSource(colour: .pink, sampleRate: rate, layout: .stereo, levelDBFS: -40, seed: 9).renderBuffer(frameCount: frames)
        let chordFrames = Int(rate * 1.5)
        for c in 0..<2 {
            buffer.withChannel(c) { x in
                for n in 0..<frames {
                    let chord = chords[(n / chordFrames) % chords.count]
                    let t = Double(n) / rate, local = Double(n % chordFrames) / rate
                    let envelope = min(1, local / 0.02) * exp(-1.2 * local)
                    var sample = 0.0
                    for root in chord {
                        var k = 1.0
                        while k * root < 12_000 { sample += sin(2 * .pi * k * root * t + Double(c)) / k; k += 1 }
                    }
                    x[n] += Float(0.05 * envelope * sample)
                }
            }
        }
        let path = "\(folder)/song.wav"
        try FileSink.write(buffer, sampleRate: Int(rate), gains: [1, 1], to: path, sampleFormat: .s16, ditherKey: 1, comment: nil)
        return path
    }

    /// Both twins of `request` written as s16 WAV, decoded, with the requests.
    func twins(_ request: RenderRequest, _ name: String) throws -> (active: DecodedAudio, sham: DecodedAudio, requests: (active: RenderRequest, sham: RenderRequest)) {
        let requests = try request.loudnessMatchedShamTwins(format: .s16)
        #expect(requests.active == request)
        for (twin, label) in [(requests.active, "active"), (requests.sham, "sham")] {
            try Renderer.renderFile(twin, to: "\(folder)/\(name)-\(label).wav", sampleFormat: .s16)
        }
        return (try DecodedAudio(contentsOf: "\(folder)/\(name)-active.wav"), try DecodedAudio(contentsOf: "\(folder)/\(name)-sham.wav"), requests)
    }

    /// Integrated loudness of a decoded file, LUFS (libebur128).
    func loudness(_ audio: DecodedAudio) throws -> Double {
        let meter = try LoudnessMeter(channelCount: audio.buffer.channelCount, sampleRate: Double(audio.sampleRate), truePeak: false)
        try meter.add((0..<audio.buffer.channelCount).map { c in audio.buffer.withChannel(c) { UnsafeBufferPointer($0) } })
        return try meter.result().integratedLUFS!
    }

    /// The comment tag's keys ("frequency", "am" …; a bare word is its own key), the software's name and version left out.
    func commentKeys(_ audio: DecodedAudio) -> Set<String> {
        let words = (audio.comment ?? "").split(separator: " ").dropFirst(2)
        return Set(words.map { String($0.split(separator: "=", maxSplits: 1)[0]) })
    }

    /// What every pair of twins shares, and their loudness difference, LU.
    @discardableResult
    func expectTwins(_ active: DecodedAudio, _ sham: DecodedAudio, _ requests: (active: RenderRequest, sham: RenderRequest), _ name: String) throws -> Double {
        #expect(active.buffer.frameCapacity == sham.buffer.frameCapacity, "\(name): length")
        #expect(active.buffer.channelCount == sham.buffer.channelCount, "\(name): channels")
        #expect(active.sampleRate == sham.sampleRate && active.formatCode == sham.formatCode, "\(name): format")
        #expect(commentKeys(active) == commentKeys(sham), "\(name): comment keys \(commentKeys(active).symmetricDifference(commentKeys(sham)))")
        #expect(active.comment != sham.comment, "\(name): the sham is another sound")
        let (a, s) = requests
        #expect(a.durationSeconds == s.durationSeconds && a.sampleRate == s.sampleRate && a.resolvedLayout == s.resolvedLayout
                && a.resolvedSeed == s.resolvedSeed && a.loop == s.loop, "\(name): output settings")
        let difference = try loudness(sham) - loudness(active)
        #expect(abs(difference) <= 0.1, "\(name): sham \(difference) LU from its twin")
        print("sham twin \(name): loudness difference \(String(format: "%+.4f", difference)) LU, sham level \(s.level.summary)")
        return difference
    }

    /// Welch power spectrum of channel `c`.
    func spectrum(_ audio: DecodedAudio, channel c: Int = 0) throws -> PowerSpectrum {
        try audio.buffer.withChannel(c) { try PowerSpectrum.welch(UnsafeBufferPointer($0), sampleRate: Double(audio.sampleRate), segmentLength: 16_384) }
    }

    /// Power in the band `octaves` wide (half an octave unless given) centred on `hz`, dB re the whole spectrum's.
    func halfOctaveDB(_ s: PowerSpectrum, at hz: Double, octaves: Double = 0.5) -> Double {
        Decibels.fromPower(s.bandPower(from: hz * pow(2, -octaves / 2), to: hz * pow(2, octaves / 2)) / s.bandPower(from: 0, to: rate / 2))
    }

    @Test func notchedMusicAndNotchedNoiseMoveTheirNotch() throws {
        let music = Sound.file(path: try song()).notched(at: f)
        let noise = Sound(.noise(colour: .pink)).notched(at: f)
        for (sound, name) in [(music, "music"), (noise, "noise")] {
            let request = RenderRequest(sound: sound, durationSeconds: name == "music" ? 20 : 12, level: .rms(dBFS: -26), seed: 3)
            let (active, sham, requests) = try twins(request, "notched-\(name)")
            try expectTwins(active, sham, requests, "notched \(name)")
            #expect(requests.sham.sound.notches?.map(\.centreHz) == [moved])
            let a = try spectrum(active), s = try spectrum(sham)
            // The half octave at F: cut in the active twin, there in the sham; at the sham's notch the reverse.
            let atF = halfOctaveDB(s, at: f) - halfOctaveDB(a, at: f)
            let atMoved = halfOctaveDB(a, at: moved) - halfOctaveDB(s, at: moved)
            print("notched \(name): half octave at F \(atF) dB louder in the sham; at \(moved) Hz \(atMoved) dB louder in the active")
            #expect(atF > 30 && atMoved > 30, "\(name): \(atF) dB at F, \(atMoved) dB at the moved notch")
        }
    }

    @Test func amplitudeModulationSlowsFromTenToTwoHertz() throws {
        let noise = Sound(.noise(colour: .pink)).modulated(rateHz: 10)
        let tone = Sound(.tone(frequencyHz: f)).modulated(rateHz: 10)
        for (sound, name) in [(noise, "am-noise"), (tone, "am-tone")] {
            let (active, sham, requests) = try twins(RenderRequest(sound: sound, durationSeconds: 12, level: .rms(dBFS: -20), seed: 4), name)
            try expectTwins(active, sham, requests, name)
            // The modulation spectrum's peak, searched over 0.5 … 50 Hz.
            func peakHz(_ audio: DecodedAudio) throws -> Double {
                try audio.buffer.withChannel(0) { x in try ModulationAnalysis.estimate(UnsafeBufferPointer(x), sampleRate: rate, rateRangeHz: 0.5...50).rateHz }
            }
            let (activeHz, shamHz) = (try peakHz(active), try peakHz(sham))
            print("\(name): modulation peak \(activeHz) Hz active, \(shamHz) Hz sham")
            #expect(abs(activeHz - 10) < 0.05 && abs(shamHz - 2) < 0.05, "\(name): \(activeHz) Hz, \(shamHz) Hz")
        }
    }

    @Test func toneAndNarrowBandNoiseMoveFromF() throws {
        let (tone, toneSham, toneRequests) = try twins(RenderRequest(sound: Sound(.tone(frequencyHz: f)), durationSeconds: 6, level: .rms(dBFS: -20)), "tone")
        try expectTwins(tone, toneSham, toneRequests, "tone")
        func toneHz(_ audio: DecodedAudio) throws -> Double {
            try audio.buffer.withChannel(0) { try ToneAnalysis.estimate(UnsafeBufferPointer($0), sampleRate: rate).frequencyHz }
        }
        #expect(abs(try toneHz(tone) - f) < 0.01)
        #expect(abs(try toneHz(toneSham) - f / pow(2, 1.5)) < 0.01)  // 2,121.3 Hz: 1.5 octaves, not a whole octave

        let band = Sound(.narrowBandNoise(centreHz: f, widthOctaves: 0.5))
        let (active, sham, requests) = try twins(RenderRequest(sound: band, durationSeconds: 12, level: .rms(dBFS: -20), seed: 5), "nbn")
        try expectTwins(active, sham, requests, "nbn")
        let a = try spectrum(active), s = try spectrum(sham)
        // Over 99 % of the power within its own band and the filter's skirts (0.75 octave), under 0.1 % in the other's band.
        let own = (halfOctaveDB(a, at: f, octaves: 0.75), halfOctaveDB(s, at: moved, octaves: 0.75))
        print("nbn: own band \(own) dB; the other's \(halfOctaveDB(a, at: moved)), \(halfOctaveDB(s, at: f)) dB")
        #expect(own.0 > -0.05 && own.1 > -0.05)
        #expect(halfOctaveDB(a, at: moved) < -30 && halfOctaveDB(s, at: f) < -30)
    }

    @Test func coordinatedResetTonesMoveAwayFromF() throws {
        let pattern = CoordinatedResetPattern(tinnitusFrequencyHz: f)
        let (active, sham, requests) = try twins(RenderRequest(sound: Sound(.coordinatedReset(pattern)), durationSeconds: 8, level: .rms(dBFS: -20), seed: 6), "cr")
        try expectTwins(active, sham, requests, "cr")
        // The sham's four tones are 0.766, 0.9, 1.1 and 1.4 × its moved F: nearly all its power within ±3 %.
        let s = try spectrum(sham), a = try spectrum(active)
        func fraction(_ spectrum: PowerSpectrum, around centre: Double) -> Double {
            pattern.toneSet.ratios.map { spectrum.bandPower(from: 0.97 * $0 * centre, to: 1.03 * $0 * centre) }.reduce(0, +)
                / spectrum.bandPower(from: 0, to: rate / 2)
        }
        print("cr: sham power at its tones \(fraction(s, around: moved)), at the active's \(fraction(s, around: f))")
        #expect(fraction(s, around: moved) > 0.99 && fraction(s, around: f) < 1e-4)
        #expect(fraction(a, around: f) > 0.99 && fraction(a, around: moved) < 1e-4)
    }

    @Test func rippleModulatesItsFarOctave() throws {
        let ripple = SpectralRipple(tinnitusFrequencyHz: 4_000)
        let (active, sham, requests) = try twins(RenderRequest(sound: Sound(.spectralRipple(ripple)), durationSeconds: 4, level: .rms(dBFS: -30), seed: 7), "ripple")
        try expectTwins(active, sham, requests, "ripple")
        // Harmonics swing by over 20 dB in the modulated octave and stay within 0.1 dB outside it.
        let choices = try SpectralRippleSource(ripple: ripple, sampleRate: rate, levelDBFS: -30, seed: 7).segmentChoices(0)
        let f0 = Double(choices.fundamentalHz)
        func swing(_ audio: DecodedAudio, near hz: Double) -> Double {
            let x = audio.buffer.samples(channel: 0), h = (hz / f0).rounded() * f0
            let amplitudes = stride(from: 1.05, through: 2.95, by: 0.1).map { (t: Double) -> Double in
                let centre = Int(t * rate)
                var re = 0.0, im = 0.0
                for n in centre - 2_000..<centre + 2_000 {
                    let w = 0.5 - 0.5 * cos(Double.pi * Double(n - centre + 2_000) / 2_000), angle = 2 * Double.pi * h * Double(n) / rate
                    (re, im) = (re + w * Double(x[n]) * cos(angle), im + w * Double(x[n]) * sin(angle))
                }
                return (re * re + im * im).squareRoot()
            }
            return Decibels.fromAmplitude(amplitudes.max()! / amplitudes.min()!)
        }
        print("ripple: active swings \(swing(active, near: 4_000)) dB at F, \(swing(active, near: 1_400)) dB at 1.4 kHz; sham \(swing(sham, near: 4_000)), \(swing(sham, near: 1_400)) dB")
        #expect(swing(active, near: 4_000) > 20 && swing(active, near: 1_400) < 0.1)
        #expect(swing(sham, near: 1_400) > 20 && swing(sham, near: 4_000) < 0.1)
    }

    @Test func musicAtItsOwnLevelAndALoudnessTargetGiveBothTwinsOneTarget() throws {
        let music = Sound.file(path: try song()).notched(at: f)
        let own = RenderRequest(sound: music, durationSeconds: RenderRequest.untilEndOfFile, level: .truePeakCeiling(dBTP: -1))
        let (active, sham) = try own.loudnessMatchedShamTwins()
        // The active twin's own loudness under the ceiling becomes the target of both.
        guard case .loudness(let lufs, let ceiling) = active.level else { Issue.record("\(active.level)"); return }
        #expect(sham.level == active.level && ceiling == -1)
        #expect(abs(lufs - (try own.integratedLoudness(format: .s16))) < 1e-9)
        let target = RenderRequest(sound: Sound(.noise(colour: .pink)).modulated(rateHz: 10), durationSeconds: 4, level: .loudness(lufs: -30, truePeakCeilingDBTP: -1))
        let twins = try target.loudnessMatchedShamTwins()
        #expect(twins.sham.level == target.level && twins.sham.sound.modulation?.rateHz == 2)
    }

    @Test func aSoundWithoutATherapyPartHasNoShamAndAMixMovesItsTherapyLayers() throws {
        let plain = [Sound(.noise(colour: .pink)), Sound.file(path: "song.wav"),
                     Sound.mix([Layer(Sound(.noise(colour: .brown))), Layer(Sound.file(path: "a.wav"), gainDB: -6)])]
        for sound in plain {
            do {
                _ = try sound.shamTwin()
                Issue.record("\(sound) has a sham")
            } catch {
                #expect(error.parameter == .sham)
                #expect(error.description.contains("not a therapy sound"), "\(error.description)")
            }
        }
        let mix = Sound.mix([Layer(Sound(.noise(colour: .pink))), Layer(Sound(.tone(frequencyHz: f)), gainDB: -6)], seed: 4)
        let sham = try mix.shamTwin()
        #expect(sham.layers?[0] == mix.layers?[0])
        #expect(sham.layers?[1].sound.generator == .tone(frequencyHz: f / pow(2, 1.5)) && sham.layers?[1].gainDB == -6 && sham.seed == 4)
    }
}
