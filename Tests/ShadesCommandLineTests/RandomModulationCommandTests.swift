import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesIO
import ShadesTestSupport

/// `--random-am` and `--surf` from the command line and from JSON: the same sound either way, at the asked
/// level, seeded, with its envelope where it was asked.
@Suite struct RandomModulationCommandTests {
    /// Mean power of `samples` in windows of `frames`, dB.
    static func windowLevels(_ samples: [Float], frames: Int) -> [Double] {
        stride(from: 0, to: samples.count - frames + 1, by: frames).map { start in
            Decibels.fromPower(samples[start..<start + frames].reduce(0) { $0 + Double($1) * Double($1) } / Double(frames))
        }
    }

    @Test func theFlagsAndTheJSONMakeTheSameBytesAndTheSeedDecides() throws {
        let folder = temporaryFolder("random-am")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{ "source": "brown", "randomAM": { "bandwidthHz": 0.5, "depthDB": 12 }, "surf": { "periodSeconds": 4, "riseSeconds": 0.5, "decaySeconds": 2 } }"#
            .write(toFile: "\(folder)/wavy.json", atomically: true, encoding: .utf8)
        let flags = "--random-am 0.5 --random-am-depth 12 --surf 4s --surf-rise 0.5s --surf-decay 2s --level -26 --duration 8s --format f32"
        for (name, command) in [("a", "render brown \(flags) -o a.wav"), ("b", "render brown \(flags) -o b.wav"),
                                ("c", "render --sound wavy.json --level -26 --duration 8s --format f32 -o c.wav"),
                                ("d", "render brown \(flags) --seed 2 -o d.wav")] {
            let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
            try #require(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("RMS -26.0 dBFS"), "\(name): \(result.stdout)")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a.wav"))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/b.wav"))))
        let c = try DecodedAudio(contentsOf: "\(folder)/c.wav"), aAudio = try DecodedAudio(contentsOf: "\(folder)/a.wav")
        #expect(c.buffer.samples(channel: 0) == aAudio.buffer.samples(channel: 0))
        #expect(aAudio.comment?.contains("random_am=0.5Hz random_am_depth=12dB surf=4s surf_rise=0.5s surf_decay=2s") == true)
        let d = try DecodedAudio(contentsOf: "\(folder)/d.wav")
        #expect(d.buffer.samples(channel: 0) != aAudio.buffer.samples(channel: 0))
    }

    /// Periodic damped surf waves in a rendered file: each crest 0.8 s into its 10 s period, the level 12 dB
    /// lower between waves (100 ms windows of white noise: within 1 dB), the file's RMS the asked one.
    @Test func periodicSurfWavesArePlacedAndAsDeepAsAsked() throws {
        let folder = temporaryFolder("surf")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(["render", "white", "--surf", "10s", "--surf-intervals", "periodic", "--channels", "mono",
                                    "--level", "-30", "--duration", "30s", "--format", "f32", "-o", "surf.wav"], in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try DecodedAudio(contentsOf: "\(folder)/surf.wav").buffer.samples(channel: 0)
        let levels = Self.windowLevels(samples, frames: 4_800)  // 100 ms
        for wave in 0..<3 {
            let window = levels[(wave * 100)..<(wave * 100 + 100)]
            let crest = window.indices.max { window[$0] < window[$1] }!
            #expect(abs(crest - wave * 100 - 8) <= 1, "crest of wave \(wave) at window \(crest)")
            let floor = window[(wave * 100 + 70)..<(wave * 100 + 100)].reduce(0, +) / 30
            #expect(abs(window[crest] - floor - 12) < 1, "depth \(window[crest] - floor) dB")
        }
        let rms = Decibels.fromPower(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count))
        #expect(abs(rms + 30) < 0.01)
    }

    @Test(arguments: [
        ("render pink --duration 5s --random-am 30 -o x.wav", "--random-am 30 Hz is out of range (allowed: 0.01 … 20 Hz)"),
        ("render pink --duration 5s --random-am 1 --random-am-depth 50 -o x.wav", "--random-am-depth 50 dB is out of range (allowed: 0 … 40 dB)"),
        ("render pink --duration 5s --random-am-depth 5 -o x.wav", "--random-am-depth applies to --random-am"),
        ("render pink --duration 5s --surf 5s --surf-decay 6s -o x.wav", "--surf 5 s is out of range"),
        ("render pink --duration 5s --surf 10s --surf-shape wobble -o x.wav", "--surf-shape 'wobble' is not a surf shape (allowed: damped, ramped)"),
        ("render pink --duration 5s --loop --surf 10s -o x.wav", "--surf 10 s leaves no room for a wave in this loop (allowed: a rise and decay (6.8 s) within the loop's 5 s)"),
        ("render pink --duration 5s --surf-rise 1s -o x.wav", "--surf-rise applies to --surf"),
    ])
    func badValuesAreOneLineNamingTheOptionAndItsRange(command: String, message: String) throws {
        let refusal = try Shell.refusal(command)
        #expect(refusal.isOneLine(saying: message), "\(refusal)")
    }
}
