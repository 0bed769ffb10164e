import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesIO
import ShadesTestSupport

/// `--fm` from the command line and from JSON: the same bytes either way, at the asked level, seeded,
/// with amplitude modulation over it; every bad value refused in one line.
@Suite struct FrequencyModulationCommandTests {
    @Test func theFlagsAndTheJSONMakeTheSameBytesAndTheSeedDecides() throws {
        let folder = temporaryFolder("fm")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{ "source": "nbn", "frequency": 4000, "width": 0.5, "fm": { "rateHz": 2, "depthCents": 150, "shape": "random" }, "am": { "rateHz": 10 } }"#
            .write(toFile: "\(folder)/fm.json", atomically: true, encoding: .utf8)
        let flags = "--frequency 4kHz --width 0.5 --fm 2 --fm-depth 150 --fm-shape random --am 10 --level -26 --duration 5s --format f32"
        let commands = ["render nbn \(flags) -o a.wav", "render nbn \(flags) -o b.wav",
                        "render --sound fm.json --level -26 --duration 5s --format f32 -o c.wav", "render nbn \(flags) --seed 2 -o d.wav"]
        for command in commands {
            let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
            #expect(result.status == 0 && result.stdout.contains("RMS -26.0 dBFS"), "\(command): \(result.stdout) \(result.stderr)")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a.wav"))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/b.wav"))))
        let c = try DecodedAudio(contentsOf: "\(folder)/c.wav"), aAudio = try DecodedAudio(contentsOf: "\(folder)/a.wav")
        #expect(c.buffer.samples(channel: 0) == aAudio.buffer.samples(channel: 0))
        #expect(aAudio.comment?.contains("fm=2Hz fm_depth=150cents fm_shape=random am=10Hz") == true, "\(aAudio.comment ?? "")")
        let d = try DecodedAudio(contentsOf: "\(folder)/d.wav")
        #expect(d.buffer.samples(channel: 0) != aAudio.buffer.samples(channel: 0))
    }

    /// AM over FM (Neff 2017's modulated sounds): the FM+AM tone is the FM tone times c·(1 + sin(2π·10·t)),
    /// to 10⁻³ wherever the FM tone is not near a zero crossing.
    @Test func amplitudeModulationRidesOnTheFrequencyModulatedTone() throws {
        let folder = temporaryFolder("fm-am")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let common = "render tone --frequency 1kHz --fm 10 --fm-depth 200 --channels mono --level -20 --duration 2s --format f32"
        for command in ["\(common) -o fm.wav", "\(common) --am 10 -o both.wav"] {
            let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
            try #require(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("RMS -20.0 dBFS"), "\(result.stdout)")
        }
        let x = try DecodedAudio(contentsOf: "\(folder)/fm.wav").buffer.samples(channel: 0)
        let y = try DecodedAudio(contentsOf: "\(folder)/both.wav").buffer.samples(channel: 0)
        let peak = x.map { abs($0) }.max()!
        let used = x.indices.filter { abs(x[$0]) > 0.2 * peak }
        let envelope = used.map { 1 + sin(2 * Double.pi * 10 * Double($0) / 48_000) }
        let ratios = used.map { Double(y[$0]) / Double(x[$0]) }
        let c = zip(ratios, envelope).reduce(0) { $0 + $1.0 * $1.1 } / envelope.reduce(0) { $0 + $1 * $1 }
        let worst = zip(ratios, envelope).map { abs($0 - c * $1) }.max()!
        #expect(worst < 1e-3 * c * 2, "worst \(worst), c \(c)")
    }

    /// The depth in octaves (JSON only) is the depth in cents over 1200; both at once, or too deep, is refused.
    @Test func theJSONTakesTheDepthInOctaves() throws {
        let octaves = try Sound.parse(json: Array(#"{ "source": "tone", "frequency": 1000, "fm": { "rateHz": 4, "depthOctaves": 0.25 } }"#.utf8), file: "s.json")
        #expect(octaves.frequencyModulation == FrequencyModulation(rateHz: 4, depthCents: 300))
        #expect(octaves.compactJSON.contains(#""depthCents":300"#))
        let folder = temporaryFolder("fm-octaves")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (json, message) in [(#"{ "source": "tone", "frequency": 1000, "fm": { "depthOctaves": 0.25, "depthCents": 300 } }"#, "fm has 'depthCents' or 'depthOctaves', not both"),
                                (#"{ "source": "tone", "frequency": 1000, "fm": { "depthOctaves": 3 } }"#, "fm.depthOctaves 3 octaves is out of range (allowed: 0 … 2 octaves)")] {
            try json.write(toFile: "\(folder)/s.json", atomically: true, encoding: .utf8)
            let result = try Shell.run(["render", "--sound", "s.json", "--duration", "1s", "-o", "x.wav"], in: folder)
            #expect(result.status != 0 && result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    @Test(arguments: [
        ("render tone --frequency 1kHz --duration 1s --fm 200 -o x.wav", "--fm 200 Hz is out of range (allowed: 0.01 … 100 Hz)"),
        ("render tone --frequency 1kHz --duration 1s --fm 10 --fm-depth 3000 -o x.wav", "--fm-depth 3000 cents is out of range (allowed: 0 … 2400 cents)"),
        ("render tone --frequency 1kHz --duration 1s --fm 10 --fm-depth -5 -o x.wav", "--fm-depth -5 cents is out of range (allowed: 0 … 2400 cents)"),
        ("render tone --frequency 20kHz --duration 1s --fm 10 --fm-depth 400 -o x.wav", "--fm-depth 400 cents is out of range (allowed: from 0 to below 315.64 cents, for a tone at 20000 Hz: its peak must stay below Nyquist (24000 Hz))"),
        ("render nbn --frequency 1kHz --width 2 --duration 1s --fm 10 --fm-depth 1300 -o x.wav", "--fm-depth 1300 cents is out of range (allowed: from 0 to below 1200 cents, for this band: its edges must stay above 0 Hz and below Nyquist (24000 Hz))"),
        ("render pink --duration 1s --fm 10 -o x.wav", "--fm 10 Hz does not apply to source 'pink' (allowed: the sources tone, nbn)"),
        ("render tone --frequency 1kHz --duration 1s --fm-depth 50 -o x.wav", "--fm-depth applies to --fm"),
        ("render tone --frequency 1kHz --duration 1s --fm 10 --fm-shape wobble -o x.wav", "--fm-shape 'wobble' is not a FM shape (allowed: sine, random)"),
    ])
    func badValuesAreOneLineNamingTheOptionAndItsRange(command: String, message: String) throws {
        let refusal = try Shell.refusal(command)
        #expect(refusal.isOneLine(saying: message), "\(refusal)")
    }
}
