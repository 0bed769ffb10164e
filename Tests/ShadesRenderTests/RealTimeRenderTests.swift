import Testing
import Foundation
import CHeapStatistics
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// The audio thread is clean: every ``PlayerEngine/render(into:)`` call, while every kind of source plays,
/// ends, is crossfaded and removed (a notched music file reaching its end, the sleep timer's fade
/// included), allocates nothing, frees nothing and locks no mutex. Counted by replacing malloc, free and
/// pthread_mutex_lock in the test process (Tests/CHeapStatistics/counting.c) for the rendering thread
/// only; the control calls between render calls (play, crossfade, stop, collecting the garbage) run on
/// the same thread with counting off, as they would on an app's control thread.
@Suite(.serialized) struct RealTimeRenderTests {
    let folder = temporaryFolder("real-time")
    static let rate = 48_000.0

    /// Every kind of stream the graph makes, stereo at 48 kHz, at its live gain (as `play` gets it).
    static func sounds(music: String, shortMusic: String) throws -> [(String, any AudioSource)] {
        func stream(_ sound: Sound, seconds: Double = 30, loop: Bool = false, levelDBFS: Double = -20) throws -> any AudioSource {
            try SoundGraph(RenderRequest(sound: sound, durationSeconds: seconds, sampleRate: rate, level: .rms(dBFS: levelDBFS), loop: loop))
                .makeLiveStream().source
        }
        func generator(_ g: Generator, notches: [NotchSpec]? = nil, modulation: Modulation? = nil, pulses: Pulses? = nil,
                       fades: Fades? = nil) -> Sound {
            Sound(.generator(g), notches: notches, modulation: modulation, pulses: pulses, fades: fades)
        }
        let pink = Generator.noise(colour: .pink, distribution: .gaussian)
        var fmTone = Sound(.tone(frequencyHz: 1_000)).modulated(rateHz: 10), fmBand = Sound(.narrowBandNoise(centreHz: 4_000, widthOctaves: 0.5))
        fmTone.frequencyModulation = FrequencyModulation(rateHz: 10, depthCents: 100)
        fmBand.frequencyModulation = FrequencyModulation(rateHz: 2, depthCents: 200, shape: .random)
        var notchedMusic = Sound.file(path: shortMusic)
        notchedMusic.notches = [NotchSpec(centreHz: 500, widthOctaves: 0.5)]
        return [
            ("pink", try stream(Sound(pink))),
            ("pink notched at 4 kHz with AM", try stream(generator(pink, notches: [NotchSpec(centreHz: 4_000)], modulation: Modulation(rateHz: 10)))),
            ("grey loop", try stream(Sound(.grey), seconds: 5, loop: true)),
            ("tone pulsed with fades", try stream(generator(.tone(frequencyHz: 1_000), pulses: Pulses(), fades: Fades(inSeconds: 0.1, outSeconds: 0.1)))),
            ("narrow-band noise", try stream(Sound(.narrowBandNoise(centreHz: 4_000, widthOctaves: 0.5)))),
            ("coordinated reset", try stream(Sound(.coordinatedReset(CoordinatedResetPattern(tinnitusFrequencyHz: 4_000))))),
            // At its own level: its peaks are about 24 dB above its RMS (at −20 dBFS it would clip, and is refused).
            ("spectral ripple", try stream(Sound(.spectralRipple(SpectralRipple(tinnitusFrequencyHz: 4_000))), levelDBFS: -30)),
            ("mix with swells", try stream(.mix([Layer(Sound(.generator(.noise(colour: .brown, distribution: .gaussian)), swell: Swell(periodSeconds: 4))),
                                                   Layer(Sound(pink), gainDB: -6)]))),
            ("binaural beat", try stream(Sound(.binauralBeat(carrierHz: 200, beatHz: 10)))),
            ("isochronic tone", try stream(Sound(.isochronicTone(frequencyHz: 200, rateHz: 10, duty: 0.5, rampSeconds: 0.005)))),
            ("velvet noise", try stream(Sound(.velvetNoise(densityHz: 2_000)))),
            ("FM tone with AM", try stream(fmTone)),
            ("FM narrow-band noise, random", try stream(fmBand)),
            ("fractal tones", try stream(Sound(.fractalTones()))),
            ("pink shaped by an audiogram", try stream(Sound(.generator(pink), shape: SpectralShape(frequenciesHz: [500, 4_000], gainsDB: [0, 20])))),
            ("music notched at 500 Hz (ends)", try stream(notchedMusic, seconds: RenderRequest.untilEndOfFile)),
            ("music (ends)", try stream(.file(path: music), seconds: RenderRequest.untilEndOfFile)),
        ]
    }

    @Test func renderAllocatesNothingLocksNothingAndFreesNothing() throws {
        guard shades_heap_counting_available() != 0 else { return }   // a sanitizer build: nothing to count with
        // Stereo "music": 0.25 s notched (it ends while it plays, before the next crossfade), 1.5 s plain
        // (it ends during the timer's fade).
        let music = "\(folder)/music.wav", shortMusic = "\(folder)/short.wav"
        for (path, seconds) in [(music, 1.5), (shortMusic, 0.25)] {
            try Renderer.renderFile(RenderRequest(sound: .noise(colour: .white, distribution: .gaussian), durationSeconds: seconds,
                                                  sampleRate: Self.rate, levelDBFS: -20), to: path, sampleFormat: .f32)
        }
        let problems = try playEverything(music: music, shortMusic: shortMusic)
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "; "))")
    }

    /// The counting sees what it must: an array made and freed, a mutex taken, on this thread only.
    @Test func theCountsSeeAllocationsFreesAndLocks() throws {
        guard shades_heap_counting_available() != 0 else { return }
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        defer { mutex.deallocate() }
        shades_heap_counting_start()
        let made = [Int](repeating: 7, count: Int.random(in: 100...200))
        let sum = made.reduce(0, +)
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
        let counts = shades_heap_counting_stop()
        #expect(sum >= 700)
        #expect(counts.allocations >= 1 && counts.locks == 1, "\(counts)")
        _ = consume made
        let go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            go.wait()
            _ = [Int](repeating: 1, count: Int.random(in: 1_000...2_000)).count
            done.signal()
        }.start()
        shades_heap_counting_start()
        go.signal()
        done.wait()
        #expect(shades_heap_counting_stop().allocations == 0, "another thread's allocations are not this one's")
    }

    /// Plays each sound in turn, crossfading from one to the next, with a second voice started and
    /// stopped, the music ending by itself, a pause, and a timer whose fade ends it all; every render call
    /// is counted. The calls that allocated, freed or locked, described.
    func playEverything(music: String, shortMusic: String) throws -> [String] {
        let sounds = try Self.sounds(music: music, shortMusic: shortMusic)
        let engine = PlayerEngine(sampleRate: Self.rate, channelCount: 2)
        let block = AudioBuffer(channelCount: 2, frameCapacity: 480)
        var problems: [String] = []
        var calls = 0
        func render(_ count: Int, _ what: String) {
            for _ in 0..<count {
                shades_heap_counting_start()
                block.withBlock { engine.render(into: $0) }
                let counts = shades_heap_counting_stop()
                usleep(1_000)   // 10 × real time, with room for the file readers on a busy machine
                calls += 1
                if counts.allocations + counts.releases + counts.locks > 0 {
                    problems.append("\(what), call \(calls): \(counts.allocations) allocations, \(counts.releases) frees, \(counts.locks) locks")
                }
            }
        }
        var voice = try engine.play(sounds[0].1, fadeInSeconds: 0.05)
        render(20, sounds[0].0)
        for (name, source) in sounds.dropFirst() {
            voice = try engine.crossfade(voice, to: source, seconds: 0.1)
            render(40, name)                      // 0.4 s: the crossfade, then the sound alone
            engine.collectGarbage()
        }
        // A second voice over the last, stopped; everything paused and resumed.
        let extra = try engine.play(sounds[1].1, gainDB: -6, fadeInSeconds: 0.02)
        render(20, "second voice")
        engine.stop(extra, fadeSeconds: 0.05)
        engine.setPaused(true, fadeSeconds: 0.05)
        render(20, "paused")
        engine.setPaused(false, fadeSeconds: 0.05)
        // The last sound is plain music: it reaches its end (1.5 s) while the timer fades it out.
        engine.setTimer(seconds: 1.5, fadeOutSeconds: 0.5)
        render(200, "music to its end and the timer's fade")
        #expect(engine.isFinished)
        engine.collectGarbage()
        #expect(engine.readerUnderruns == 0 && engine.droppedCommands == 0)
        return problems
    }

    /// A live generator plays at the asked level where a file render would measure it first: an FM tone (it
    /// played at full scale, −3 dBFS RMS) and notched noise, each ear over the 10 s measured to within 0.05 dB;
    /// a level whose samples would pass full scale is refused.
    @Test func liveGeneratorsPlayAtTheAskedLevel() throws {
        var fmTone = Sound(.tone(frequencyHz: 1_000))
        fmTone.frequencyModulation = FrequencyModulation(rateHz: 10, depthCents: 100)
        for sound in [fmTone, Sound(.noise(colour: .pink, distribution: .gaussian)).notched(at: 4_000)] {
            let request = RenderRequest(sound: sound, durationSeconds: 60, sampleRate: Self.rate, level: .rms(dBFS: -20))
            let buffer = try SoundGraph(request).makeLiveStream().source.renderBuffer(frameCount: 10 * Int(Self.rate))
            for c in 0..<2 {
                let x = buffer.samples(channel: c)
                let rms = Decibels.fromPower(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count))
                #expect(abs(rms + 20) < 0.05, "\(sound): channel \(c) at \(rms) dBFS")
            }
        }
        let loud = RenderRequest(sound: .noise(colour: .brown, distribution: .gaussian), durationSeconds: 60, sampleRate: Self.rate,
                                 levelDBFS: -3)
        #expect(throws: ShadesError.self) { try SoundGraph(loud).makeLiveStream() }
    }

    /// `play`'s stream of notched music, prepared for real time (partitioned notch, reader ahead), gives
    /// the offline stream's samples: the same file, gain and alignment, within Float rounding (the notch
    /// paths differ by about −130 dB, PartitionedConvolutionTests), in 480-frame calls like a callback's.
    @Test func notchedMusicPreparedForRealTimeIsTheOfflineStream() throws {
        let music = "\(folder)/notch-music.wav"
        try Renderer.renderFile(RenderRequest(sound: .noise(colour: .pink, distribution: .gaussian), durationSeconds: 3,
                                              sampleRate: 44_100, levelDBFS: -20), to: music, sampleFormat: .f32)
        var sound = Sound.file(path: music)
        sound.notches = [NotchSpec(centreHz: 500, widthOctaves: 0.5)]
        let request = RenderRequest(sound: sound, durationSeconds: RenderRequest.untilEndOfFile, sampleRate: Self.rate)
        let offline = try SoundGraph(request).makeLiveStream()
        let live = try SoundGraph(request).makeLiveStream()
        #expect(offline.frames == 3 * Int(Self.rate) && live.frames == offline.frames)
        let readerUnderruns = RealTimePreparation.prepare(live.source, readerUnderruns: UnderrunCounter())
        let frames = live.frames! + 1_000
        let a = offline.source.renderBuffer(frameCount: frames)
        let b = AudioBuffer(channelCount: 2, frameCapacity: frames)
        var done = 0
        while done < frames {
            let n = min(480, frames - done)
            b.withBlock(frames: done..<done + n) { live.source.render(into: $0) }
            done += n
            usleep(2_000)   // 5 × real time: a callback's pace, with room for the reader on a busy machine
        }
        #expect(readerUnderruns.count == 0, "the reader was behind (the comparison below then fails too)")
        for c in 0..<2 {
            let x = a.samples(channel: c), y = b.samples(channel: c)
            let power = x.reduce(0.0) { $0 + Double($1) * Double($1) }
            let difference = zip(x, y).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
            #expect(power > 0 && 10 * log10(difference / power) < -115, "channel \(c): \(10 * log10(difference / power)) dB")
        }
    }
}
