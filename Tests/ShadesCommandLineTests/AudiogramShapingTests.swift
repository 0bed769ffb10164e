import Testing
import Foundation
import ShadesDSP
import ShadesRender
import ShadesProcedures
import ShadesTestSupport

/// Audiogram-shaped sounds (issue 22): `--audiogram FILE --ear E` shapes a sound by the half-gain rule (half the
/// threshold, linear in log frequency between the audiogram's frequencies, capped at 30 dB; Cuesta et al. 2022).
/// Measured with `shades analyze`'s third-octave bands against the same sound unshaped: every band from 100 Hz to
/// 16 kHz follows the rule within 1 dB (after the one offset the level policy takes back), for a noise stream,
/// a noise loop (shaped in its own spectrum, still seamless) and a music file; ripple takes the rule as its
/// band gains; the catalogue shapes its personalised noises and music.
@Suite struct AudiogramShapingTests {
    static let audiogram = "250:10,500:15,1000:20,2000:35,4000:50,8000:70"

    func bands(_ file: String, in folder: String) throws -> [(centreHz: Double, levelDB: Double)] {
        let result = try Shell.run(["analyze", file, "--json"], in: folder)
        try #require(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let bands = (report["spectrum"] as! [String: Any])["bands"] as! [[String: Any]]
        return bands.map { ($0["centreHz"] as! Double, $0["levelDB"] as! Double) }
    }

    /// Each band of `shaped` minus `plain`, less their mean difference, against the rule (`rule`: dB at a frequency).
    func expectFollowsTheRule(_ shaped: String, _ plain: String, in folder: String, _ what: String, rule: (Double) -> Double) throws {
        let a = try bands(shaped, in: folder), b = try bands(plain, in: folder)
        let used = zip(a, b).filter { $0.0.centreHz >= 99 && $0.0.centreHz <= 16_500 }
        let differences = used.map { ($0.0.centreHz, $0.0.levelDB - $0.1.levelDB - rule($0.0.centreHz)) }
        let offset = differences.map(\.1).reduce(0, +) / Double(differences.count)
        let worst = differences.map { abs($0.1 - offset) }.max()!
        for (f, d) in differences {
            #expect(abs(d - offset) <= 1, "\(what): the \(Int(f)) Hz band is \(d - offset) dB off the half-gain rule")
        }
        print("shaping: \(what): \(differences.count) third-octave bands within \(String(format: "%.2f", worst)) dB of the rule")
    }

    @Test func thirdOctaveLevelsFollowTheHalfGainRule() throws {
        let folder = temporaryFolder("shaping")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audiometry = try Shell.run(["audiometry", "--ear", "right", "--frequencies", "250,500,1k,2k,4k,8k", "--simulate-audiogram",
                                        Self.audiogram, "--seed", "1", "-o", "audiogram.json"], in: folder)
        try #require(audiometry.status == 0, "\(audiometry.stderr)")
        // The rule of the thresholds found (the simulated listener's within 5 dB): half of each, capped at 30 dB,
        // linear in log frequency between them.
        let file = try JSONDecoder().decode(Audiogram.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/audiogram.json")))
        let points = file.thresholds(ear: .right).map { ($0.frequencyHz, min(30, $0.thresholdDB / 2)) }
        #expect(points.count == 6)
        let rule = { (f: Double) in GainCurve.interpolate(points, atHz: f) }
        func render(_ arguments: [String], _ name: String) throws {
            let result = try Shell.run(["render"] + arguments + ["--format", "f32", "-o", name], in: folder)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let shaping = ["--audiogram", "audiogram.json", "--ear", "right"]
        try render(["white", "--duration", "20s", "--seed", "3"], "white.wav")
        try render(["white", "--duration", "20s", "--seed", "3"] + shaping, "white-shaped.wav")
        try expectFollowsTheRule("white-shaped.wav", "white.wav", in: folder, "white noise stream", rule: rule)
        try render(["pink", "--loop", "--duration", "10s", "--seed", "4"], "pink-loop.wav")
        try render(["pink", "--loop", "--duration", "10s", "--seed", "4"] + shaping, "pink-loop-shaped.wav")
        try expectFollowsTheRule("pink-loop-shaped.wav", "pink-loop.wav", in: folder, "pink noise loop", rule: rule)
        let seam = try Shell.run(["analyze", "pink-loop-shaped.wav"], in: folder)
        #expect(seam.stdout.contains("seamless") && !seam.stdout.contains("seam step at percentile 9"), "\(seam.stdout)")
        // A sound file (the composite path: decoded, then shaped with the filter delay removed, as long as the file).
        try render(["white.wav"] + shaping, "file-shaped.wav")
        try expectFollowsTheRule("file-shaped.wav", "white.wav", in: folder, "a sound file", rule: rule)
        let info = try Shell.run(["analyze", "file-shaped.wav", "--json"], in: folder)
        #expect(info.stdout.contains("\"frames\" : 960000"), "the shaped file is as long as its input")
    }

    @Test func rippleBandGainsCatalogueAndRefusals() throws {
        let folder = temporaryFolder("shaping-ripple")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #require(try Shell.run(["audiometry", "--ear", "left", "--simulate-audiogram", Self.audiogram, "--seed", "1",
                                    "-o", "audiogram.json"], in: folder).status == 0)
        let file = try JSONDecoder().decode(Audiogram.self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/audiogram.json")))
        let shape = try SpectralShape.halfGain(file, ear: .left)
        // Ripple: the rule at its eight half-octave band centres from 1 kHz, exactly as --band-gains would give them.
        let gains = (0..<8).map { shape.gainDB(atHz: 1_000 * pow(2, (2 * Double($0) + 1) / 4)) }
        let a = try Shell.run(["render", "ripple", "--frequency", "4kHz", "--duration", "4s", "--audiogram", "audiogram.json", "-o", "a.wav"], in: folder)
        let b = try Shell.run(["render", "ripple", "--frequency", "4kHz", "--duration", "4s", "--band-gains",
                               gains.map { String($0) }.joined(separator: ","), "-o", "b.wav"], in: folder)
        try #require(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a.wav")) == Data(contentsOf: URL(fileURLWithPath: "\(folder)/b.wav")))

        // The catalogue's personalised noises and music are shaped; its recipe says so.
        try FileManager.default.createDirectory(atPath: "\(folder)/presets", withIntermediateDirectories: true)
        try Data(#"""
            { "defaults": { "loudnessLUFS": -23, "rate": 48000, "format": "wav", "sampleFormat": "s16", "lengthSeconds": 4 },
              "categories": [ { "id": "c", "titles": { "en": "C", "de": "C" },
                "sounds": [ { "id": "pink", "titles": { "en": "Pink", "de": "Rosa" }, "sound": { "source": "pink" } } ] } ] }
            """#.utf8).write(to: URL(fileURLWithPath: "\(folder)/presets/p.json"))
        try FileManager.default.createDirectory(atPath: "\(folder)/music", withIntermediateDirectories: true)
        try #require(try Shell.run(["render", "pink", "--duration", "3s", "-o", "music/song.wav"], in: folder).status == 0)
        let build = try Shell.run(["catalogue", "build", "presets", "-o", "catalogue", "--tinnitus-frequency", "6kHz", "--music", "music",
                                   "--audiogram", "audiogram.json"], in: folder)
        try #require(build.status == 0, "\(build.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/catalogue/manifest.json"))) as! [String: Any]
        let sounds = manifest["sounds"] as! [[String: Any]]
        func recipe(_ id: String) throws -> String {
            let sound = try #require(sounds.first { $0["id"] as? String == id }, "\(id) in the manifest")
            return String(decoding: try JSONSerialization.data(withJSONObject: sound["recipe"] ?? [:]), as: UTF8.self)
        }
        for id in ["personal-pink-notched", "personal-white-notched", "personal-music-song"] {
            let text = try recipe(id)
            #expect(text.contains("half-gain rule"), "\(id): \(text)")
        }
        let tone = try recipe("personal-tone"), pink = try recipe("pink")
        #expect(!tone.contains("shape") && !pink.contains("shape"))

        for (arguments, message) in [
            (["render", "pink", "--duration", "1s", "--audiogram", "audiogram.json", "--ear", "right"], "has no threshold"),
            (["render", "pink", "--duration", "1s", "--audiogram", "audiogram.json", "--rule", "nal"], "--rule"),
            (["render", "tone", "--frequency", "1k", "--loop", "--duration", "1s", "--audiogram", "audiogram.json"], "cannot be combined with loop"),
            (["render", "ripple", "--frequency", "4k", "--duration", "4s", "--audiogram", "audiogram.json", "--band-gains", "0,0,0,0,0,0,0,0"], "--band-gains"),
            (["render", "pink", "--duration", "1s", "--ear", "left"], "--ear applies to --audiogram"),
            (["catalogue", "build", "presets", "-o", "c2", "--audiogram", "audiogram.json"], "needs --tinnitus-frequency"),
        ] {
            let result = try Shell.run(arguments + (arguments[0] == "render" ? ["-o", "x.wav"] : []), in: folder)
            #expect(result.status == 2 && result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/x.wav"))
    }
}
