import Testing
import Foundation
import ShadesAnalysis
import ShadesTestSupport

/// `shades play` through a real audio server: a headless PulseAudio with a float32 48 kHz stereo null sink
/// (scripts/live-tests.sh, `make test-live`), whose monitor is recorded with `parecord` and compared with a
/// file render of the same sound (float32 at 48 kHz crosses the server bit-exact). One sink, so one test at
/// a time. Skipped when no server is reachable.
@Suite(.serialized, .enabled(if: LiveServer.isReachable, Comment(rawValue: LiveServer.skipMessage)))
final class LivePlaybackTests {
    let folder = temporaryFolder("live")

    /// The captures are large (23 MB a minute): each test removes its folder.
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Renders `arguments` (`shades render` options) as float32 to `name` in the folder; its channels.
    func render(_ arguments: [String], to name: String) throws -> [[Float]] {
        let result = try Shell.run(["render"] + arguments + ["--format", "f32", "-o", name], in: folder)
        #expect(result.status == 0, "render \(arguments): \(result.stderr)")
        return try FloatWAV.read("\(folder)/\(name)")
    }

    /// Records while playing `arguments` to the end; the capture, and the player's report (nil for the stand-in).
    func record(_ arguments: [String], busy: Bool = false) throws -> (capture: [[Float]], report: PlayReport?) {
        let recorder = try Recorder(path: "\(folder)/capture-\(UUID().uuidString).wav")
        let loop = busy ? try BusyLoop() : nil
        let player = try Player.start(arguments, in: folder)
        let status = player.process.wait()
        loop?.stop()
        let capture = try recorder.stop()
        #expect(status == 0, "play \(arguments) exited \(status)")
        var report: PlayReport?
        if let path = player.reportPath {
            report = try JSONDecoder().decode(PlayReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
        return (capture, report)
    }

    /// Where the reference starts in the capture (both channels must agree, correlation near 1).
    func align(_ capture: [[Float]], _ reference: [[Float]]) throws -> Int {
        let left = Compare.offset(of: reference[0], in: capture[0])
        let right = Compare.offset(of: reference[1], in: capture[1])
        print("live: content starts \(left.frame) frames (\(Double(left.frame) / Double(liveRate) * 1000) ms) into the capture, correlation \(left.correlation), \(right.correlation)")
        #expect(left.frame == right.frame)
        #expect(left.correlation > 0.99 && right.correlation > 0.99)
        return left.frame
    }

    /// The aligned part of the capture, `frames` long (both channels), written to `name` for the analysis.
    func cut(_ capture: [[Float]], from offset: Int, frames: Int, to name: String) throws -> String {
        let path = "\(folder)/\(name)"
        try FloatWAV.write(capture.map { Array($0[offset..<min(offset + frames, $0.count)]) }, to: path)
        return path
    }

    @Test func pinkNoiseArrivesWithTheRenderedSpectrumAndLevel() throws {
        let reference = try render(["pink", "--duration", "20s", "--level", "-20", "--seed", "3"], to: "ref.wav")
        let (capture, report) = try record(["pink", "--timer", "20s", "--fade-out", "0.5s", "--level", "-20",
                                            "--seed", "3", "--quiet", "--report", "r.json"])
        let offset = try align(capture, reference)
        // The fade-out is the player's, not the render's: compare the 19 s before it.
        let frames = 19 * liveRate
        let played = try FileAnalysis.analyze(path: cut(capture, from: offset, frames: frames, to: "played.wav"),
                                              options: AnalysisOptions(expectedColour: .pink)).report
        let rendered = try FileAnalysis.analyze(path: cut(reference, from: 0, frames: frames, to: "rendered.wav"),
                                                options: AnalysisOptions(expectedColour: .pink)).report
        for channel in 0..<2 {
            let p = try #require(played.levels.channels[channel].rmsDBFS), r = try #require(rendered.levels.channels[channel].rmsDBFS)
            #expect(abs(p - r) <= 0.2, "channel \(channel): RMS \(p) dBFS played, \(r) rendered")
        }
        let ps = try #require(played.spectrum), rs = try #require(rendered.spectrum)
        #expect(abs(ps.slopeDecibelsPerOctave - rs.slopeDecibelsPerOctave) <= 0.2,
                "slope \(ps.slopeDecibelsPerOctave) dB/octave played, \(rs.slopeDecibelsPerOctave) rendered")
        #expect(ps.bands.count == rs.bands.count)
        for (p, r) in zip(ps.bands, rs.bands) {
            #expect(abs(p.levelDB - r.levelDB) <= 0.2, "band \(p.centreHz) Hz: \(p.levelDB) dB played, \(r.levelDB) rendered")
        }
        print("live: pink slope \(ps.slopeDecibelsPerOctave) played, \(rs.slopeDecibelsPerOctave) rendered; RMS \(played.levels.channels.map(\.rmsDBFS)) / \(rendered.levels.channels.map(\.rmsDBFS))")
        if let report { #expect(report.underruns == 0); #expect(report.sampleRate == 48_000) }
    }

    @Test func aToneArrivesAtItsFrequency() throws {
        let (capture, _) = try record(["tone", "--frequency", "1kHz", "--timer", "5s", "--fade-out", "0.5s",
                                       "--level", "-20", "--quiet"])
        // A tone cannot be aligned by correlation: take the steady part between the first sound and the fade.
        let start = try #require(Compare.firstSound(capture)), end = try #require(Compare.lastSound(capture))
        #expect(abs(Double(end - start) / Double(liveRate) - 5) < 0.05, "the tone sounded \(Double(end - start) / Double(liveRate)) s")
        let path = try cut(capture, from: start + liveRate / 5, frames: end - start - liveRate, to: "tone.wav")
        let tone = try #require(try FileAnalysis.analyze(path: path).report.tone)
        #expect(abs(tone.frequencyHz - 1000) <= 0.01, "tone at \(tone.frequencyHz) Hz")
        #expect(abs(tone.levelDBFS - -20) <= 0.2, "tone at \(tone.levelDBFS) dBFS")
        print("live: tone \(tone.frequencyHz) Hz, \(tone.levelDBFS) dBFS")
    }

    @Test func amplitudeModulationArrivesAtItsRateAndDepth() throws {
        let sound = ["pink", "--am", "10", "--level", "-20", "--seed", "3"]
        let reference = try render(sound + ["--duration", "6s"], to: "am-ref.wav")
        let (capture, _) = try record(sound + ["--timer", "6s", "--fade-out", "0.5s", "--quiet"])
        let offset = try align(capture, reference)
        let frames = 5 * liveRate
        let played = try #require(try FileAnalysis.analyze(path: cut(capture, from: offset, frames: frames, to: "am.wav")).report.modulation)
        let rendered = try #require(try FileAnalysis.analyze(path: cut(reference, from: 0, frames: frames, to: "am-r.wav")).report.modulation)
        #expect(abs(played.rateHz - 10) <= 0.1, "AM at \(played.rateHz) Hz")
        #expect(abs(played.rateHz - rendered.rateHz) <= 0.01 * rendered.rateHz)
        #expect(abs(played.depth - rendered.depth) <= 0.01, "depth \(played.depth) played, \(rendered.depth) rendered")
        print("live: AM \(played.rateHz) Hz depth \(played.depth) played; \(rendered.rateHz) Hz depth \(rendered.depth) rendered")
    }

    @Test func aMinuteWithABusyCoreHasNoGap() throws {
        let reference = try render(["pink", "--duration", "60s", "--level", "-20", "--seed", "5"], to: "ref60.wav")
        let (capture, report) = try record(["pink", "--timer", "60s", "--fade-out", "0.5s", "--level", "-20",
                                            "--seed", "5", "--quiet", "--report", "r60.json"], busy: true)
        let offset = try align(capture, reference)
        if let report {
            #expect(report.underruns == 0)
            print("live: 60 s report: \(report)")
        }
        // Every 10 ms block from 0.1 s to the fade-out matches the render (a dropout or slip leaves a
        // residual near 0 dB; an exact copy none at all).
        let frames = (liveRate / 10)..<(595 * liveRate / 10)
        #expect(capture[0].count >= offset + frames.upperBound, "the capture ends \(Double(capture[0].count - offset) / Double(liveRate)) s into the sound")
        guard capture[0].count >= offset + frames.upperBound else { return }
        for channel in 0..<2 {
            let gain = Compare.gain(capture[channel], reference[channel], offset: offset, frames: frames)
            let residuals = Compare.residualsDB(capture[channel], reference[channel], offset: offset, frames: frames, gain: gain)
            let worst = residuals.enumerated().max { $0.element < $1.element }!
            let bad = residuals.filter { $0 > -40 }.count
            #expect(bad == 0, "channel \(channel): \(bad) of \(residuals.count) blocks differ from the render (worst \(worst.element) dB at \(Double(worst.offset) / 100 + 0.1) s)")
            print("live: 60 s channel \(channel): gain \(gain), worst block residual \(worst.element) dB")
        }
    }

    /// Tailor-made notched music, live, at the default 10 ms buffer (the notch streams in partitions): an
    /// MP3 (LAME, as a user's music would come), decoded and resampled to 48 kHz on the reader's thread,
    /// notched at 500 Hz (½ octave: the README's longest kernel), 4 kHz or 12 kHz, arrives as `shades notch`
    /// writes the same file, block for block, with neither the player nor the reader behind.
    @Test(arguments: [("500Hz", "0.5"), ("4kHz", "1"), ("12kHz", "1")])
    func notchedMusicArrivesAsTheNotchCommandWritesIt(centre: String, width: String) throws {
        let music = try Shell.run(["render", "pink", "--duration", "8s", "--rate", "44100", "--level", "-20",
                                   "--seed", "11", "-o", "music-\(centre).wav"], in: folder)
        #expect(music.status == 0, "render: \(music.stderr)")
        try Lame.encode("\(folder)/music-\(centre).wav", to: "\(folder)/music-\(centre).mp3", options: ["-b", "192"])
        let notch = try Shell.run(["notch", "music-\(centre).mp3", "--frequency", centre, "--width", width, "--rate", "48000",
                                   "--format", "f32", "-o", "notched-\(centre).wav"], in: folder)
        #expect(notch.status == 0, "notch: \(notch.stderr)")
        let reference = try FloatWAV.read("\(folder)/notched-\(centre).wav")
        let (capture, report) = try record(["music-\(centre).mp3", "--notch", centre, "--width", width, "--rate", "48000",
                                            "--quiet", "--report", "music-\(centre).json"])
        let offset = try align(capture, reference)
        if let report {
            #expect(report.underruns == 0 && report.readerUnderruns == 0, "\(report)")
            #expect(report.bufferFrames == 480, "the notch raised the buffer: \(report)")
            print("live: notched music at \(centre) report: \(report)")
        }
        // The file's own length with the player's 50 ms fades at both ends: compare what lies between.
        let frames = (liveRate / 10)..<(reference[0].count - liveRate / 10)
        #expect(capture[0].count >= offset + frames.upperBound, "the capture ends \(Double(capture[0].count - offset) / Double(liveRate)) s into the music")
        guard capture[0].count >= offset + frames.upperBound else { return }
        for channel in 0..<2 {
            // The player keeps the file under the same −1 dBTP ceiling as `shades notch` (one level policy).
            let gain = Compare.gain(capture[channel], reference[channel], offset: offset, frames: frames)
            #expect(abs(gain - 1) < 0.001, "channel \(channel): played at \(gain) × the notch command's level")
            let residuals = Compare.residualsDB(capture[channel], reference[channel], offset: offset, frames: frames, gain: gain)
            let worst = residuals.max() ?? 0
            #expect(worst < -40, "channel \(channel): a 10 ms block differs from the notch command's by \(worst) dB")
            print("live: notched music at \(centre) channel \(channel): gain \(gain), worst block residual \(worst) dB")
        }
    }

    /// A music file played with a level and a modulation gets both, as `render` makes them: the capture
    /// equals `shades render music.mp3 --level -40 --am 4` of the same file.
    @Test func musicPlaysAtTheAskedLevelWithItsModifiers() throws {
        let music = try Shell.run(["render", "pink", "--duration", "8s", "--level", "-20", "--seed", "12", "-o", "music.wav"], in: folder)
        #expect(music.status == 0, "render: \(music.stderr)")
        try Lame.encode("\(folder)/music.wav", to: "\(folder)/music.mp3", options: ["-b", "192"])
        let reference = try render(["music.mp3", "--level", "-40", "--am", "4", "--rate", "48000"], to: "reference.wav")
        let (capture, _) = try record(["music.mp3", "--level", "-40", "--am", "4", "--rate", "48000", "--quiet"])
        let offset = try align(capture, reference)
        let frames = (liveRate / 10)..<(reference[0].count - liveRate / 10)
        guard capture[0].count >= offset + frames.upperBound else {
            Issue.record("the capture ends \(Double(capture[0].count - offset) / Double(liveRate)) s into the music")
            return
        }
        for channel in 0..<2 {
            let gain = Compare.gain(capture[channel], reference[channel], offset: offset, frames: frames)
            let worst = Compare.residualsDB(capture[channel], reference[channel], offset: offset, frames: frames, gain: gain).max() ?? 0
            #expect(abs(gain - 1) < 0.001 && worst < -40, "channel \(channel): gain \(gain), worst block residual \(worst) dB")
            print("live: music at -40 dBFS with AM, channel \(channel): gain \(gain) against the render, worst block residual \(worst) dB")
        }
    }

    /// Every sound `render` makes plays: coordinated reset, with its own timer.
    @Test func coordinatedResetPlays() throws {
        let (capture, _) = try record(["cr", "--frequency", "4kHz", "--timer", "3s", "--fade-out", "100ms", "--quiet"])
        let power = capture[0].map { Double($0) * Double($0) }.reduce(0, +) / Double(max(1, capture[0].count))
        #expect(power > 1e-6, "the capture is silent")
    }

    @Test func theTimerStopsAfterARaisedCosineFade() throws {
        let reference = try render(["pink", "--duration", "10s", "--level", "-20", "--seed", "7"], to: "ref10.wav")
        let (capture, report) = try record(["pink", "--timer", "10s", "--fade-out", "3s", "--level", "-20",
                                            "--seed", "7", "--quiet", "--report", "r10.json"])
        let offset = try align(capture, reference)
        let end = try #require(Compare.lastSound(capture))
        let sounded = end + 1 - offset
        let period = report?.bufferFrames ?? 1
        #expect(abs(sounded - 10 * liveRate) <= period, "sounded \(sounded) frames, 480000 ± \(period) expected")
        // The gain against the (unfaded) render: steady, then 0.5 + 0.5·cos(π·t/3 s) over the last 3 s.
        // (The player's level differs from the render's normalised one by a few tenths of a percent per
        // channel: each channel is compared with its own steady gain.)
        let fadeStart = 7 * liveRate
        var worst = (deviation: 0.0, seconds: 0.0)
        for channel in 0..<2 {
            let steady = Compare.gain(capture[channel], reference[channel], offset: offset, frames: liveRate..<(6 * liveRate))
            for block in Compare.envelope(capture[channel], reference[channel], offset: offset, frames: fadeStart..<(10 * liveRate)) {
                let t = Double(block.frame - fadeStart) / Double(3 * liveRate)
                let deviation = abs(block.gain / steady - (0.5 + 0.5 * cos(Double.pi * t)))
                if deviation > worst.deviation { worst = (deviation, 3 * t) }
            }
        }
        #expect(worst.deviation <= 0.01, "the fade-out departs from a 3 s raised cosine by \(worst.deviation), \(worst.seconds) s into it")
        print("live: timer sounded \(Double(sounded) / Double(liveRate)) s, fade within \(worst.deviation) of a raised cosine (worst \(worst.seconds) s into it)")
    }

    @Test func ctrlCFadesOutAndExits() throws {
        let sound = ["pink", "--level", "-20", "--seed", "9"]
        let reference = try render(sound + ["--duration", "5s"], to: "ref-int.wav")
        let recorder = try Recorder(path: "\(folder)/capture-int.wav")
        let player = try Player.start(sound + ["--quiet"], in: folder)
        usleep(2_000_000)
        let sent = DispatchTime.now().uptimeNanoseconds
        player.process.signal(SIGINT)
        let status = player.process.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9
        let capture = try recorder.stop()
        let offset = try align(capture, reference)
        let end = try #require(Compare.lastSound(capture))
        // The gain over the last half second before the end: it must fall smoothly to near zero.
        let last = end + 1 - offset
        let steady = Compare.gain(capture[0], reference[0], offset: offset, frames: (liveRate / 2)..<(3 * liveRate / 2))
        let envelope = Compare.envelope(capture[0], reference[0], offset: offset, frames: max(0, last - liveRate / 2)..<last)
            .map { $0.gain / steady }
        let fadeBlocks = envelope.filter { $0 < 0.95 }.count
        print("live: SIGINT: exited \(status) after \(seconds) s; sounded \(Double(last) / Double(liveRate)) s; fade over \(fadeBlocks * 10) ms; last block gain \(envelope.last ?? -1)")
        withKnownIssue("the paplay stand-in stops at once", isIntermittent: true) {
            #expect(status == 0, "exit status \(status) after SIGINT")
            #expect(seconds < 1)
            #expect((envelope.last ?? 1) < 0.2, "the last 10 ms play at \(envelope.last ?? -1) of the full level: a hard cut")
            #expect(fadeBlocks >= 20, "the level falls over \(fadeBlocks * 10) ms, not ~0.3 s")
        } when: { playerIsStandIn }

        // The server is fine afterwards: a second play sounds.
        let second = try Recorder(path: "\(folder)/capture-after.wav")
        #expect(try Player.play(["tone", "--frequency", "1kHz", "--timer", "1s", "--fade-out", "0.1s", "--level", "-20", "--quiet"], in: folder) == 0)
        let after = try second.stop()
        let start = try #require(Compare.firstSound(after)), stop = try #require(Compare.lastSound(after))
        #expect(abs(Double(stop - start) / Double(liveRate) - 1) < 0.05)
    }
}
