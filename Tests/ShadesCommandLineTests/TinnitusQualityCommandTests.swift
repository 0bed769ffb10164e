import Testing
import Foundation
import ShadesDSP
import ShadesTestSupport

/// `stimuli tinnitus-quality` and the new sources from the command line (issue 35): the set's files, their
/// levels and index, the patient's frequency, the sources as flags and as JSON, every bad value refused in one
/// line with its range and no file written.
@Suite struct TinnitusQualityCommandTests {
    func index(_ folder: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/index.json"))) as! [String: Any]
        #expect(json["set"] as? String == "tinnitus-quality")
        return json["files"] as! [[String: Any]]
    }

    func rmsDBFS(_ path: String) throws -> [Double] {
        let audio = try DecodedAudio(contentsOf: path)
        return (0..<audio.buffer.channelCount).map { c in audio.buffer.samples(channel: c).withUnsafeBufferPointer { SignalLevel.rmsDBFS($0) } }
    }

    @Test func theSetHasOneFilePerClusterAtOneLevel() throws {
        let folder = temporaryFolder("quality")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try Shell.run(["stimuli", "tinnitus-quality", "--frequency", "4kHz", "--duration", "3s", "-o", "quality"], in: folder)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "wrote 5 files and index.json to quality\n")
        let files = try index("\(folder)/quality")
        #expect(files.map { $0["quality"] as? String } == ["tonal", "steady-noise", "pulsatile", "low-frequency-fluctuating", "high-frequency-fluctuating"])
        #expect(files.map { $0["kind"] as? String } == ["tinnitus-tone", "tinnitus-hiss", "tinnitus-pulse", "tinnitus-roar", "tinnitus-cricket"])
        // The patient's frequency for the tonal, steady and high-frequency clusters; the low ones in their own bands.
        #expect(files.map { $0["frequency"] as? Double } == [4_000, 4_000, 500, 150, 4_000])
        for file in files {
            let name = try #require(file["file"] as? String)
            #expect((file["sound"] as? String)?.hasPrefix(file["kind"] as! String) == true)
            #expect(file["level"] as? Double == -26)
            // The sustained sound at -26 dBFS; the 10 ms ramps take up to 0.05 dB off a 3 s file (more where a
            // chirp or a beat starts the file).
            for rms in try rmsDBFS("\(folder)/quality/\(name)") { #expect(rms < -25.9999 && rms > -26.08, "\(name): \(rms) dBFS") }
        }
        // The same command, the same bytes.
        let again = try Shell.run(["stimuli", "tinnitus-quality", "--frequency", "4kHz", "--duration", "3s", "-o", "again"], in: folder)
        try #require(again.status == 0, "\(again.stderr)")
        #expect(try KillRun.contents(of: "\(folder)/quality") == (try KillRun.contents(of: "\(folder)/again")))
    }

    @Test func theNewSourcesRenderFromFlagsAndFromJSON() throws {
        let folder = temporaryFolder("new-sources")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sounds: [(flags: [String], json: String)] = [
            (["speech-noise"], #"{ "source": "speech-noise" }"#),
            (["high-tone-noise", "--corner", "1kHz", "--slope", "18"], #"{ "source": "high-tone-noise", "corner": 1000, "slope": 18 }"#),
            (["tinnitus-tone", "--frequency", "6kHz", "--harmonics", "-12,-20"], #"{ "source": "tinnitus-tone", "frequency": 6000, "harmonics": [-12, -20] }"#),
            (["tinnitus-hiss", "--frequency", "6kHz", "--width", "1"], #"{ "source": "tinnitus-hiss", "frequency": 6000, "width": 1 }"#),
            (["tinnitus-pulse", "--frequency", "500", "--heart-rate", "60"], #"{ "source": "tinnitus-pulse", "frequency": 500, "heartRateBPM": 60 }"#),
            (["tinnitus-roar", "--frequency", "150", "--width", "2", "--fluctuation", "2", "--fluctuation-depth", "0.7"],
             #"{ "source": "tinnitus-roar", "frequency": 150, "width": 2, "fluctuation": 2, "fluctuationDepth": 0.7 }"#),
            (["tinnitus-cricket", "--frequency", "5k", "--chirp-rate", "2", "--syllables", "4", "--syllable-rate", "40"],
             #"{ "source": "tinnitus-cricket", "frequency": 5000, "chirpRate": 2, "syllables": 4, "syllableRate": 40 }"#),
        ]
        for (k, sound) in sounds.enumerated() {
            try sound.json.write(toFile: "\(folder)/\(k).json", atomically: false, encoding: .utf8)
            let flags = try Shell.run(["render"] + sound.flags + ["--duration", "2s", "-o", "flags\(k).wav"], in: folder)
            let json = try Shell.run(["render", "--sound", "\(k).json", "--duration", "2s", "-o", "json\(k).wav"], in: folder)
            try #require(flags.status == 0 && json.status == 0, "\(sound.flags): \(flags.stderr) \(json.stderr)")
            let (a, b) = (try DecodedAudio(contentsOf: "\(folder)/flags\(k).wav"), try DecodedAudio(contentsOf: "\(folder)/json\(k).wav"))
            #expect(a.buffer.samples(channel: 0) == b.buffer.samples(channel: 0), "\(sound.flags)")
        }
    }

    @Test(arguments: [
        ("stimuli tinnitus-quality --frequency 30kHz -o out",
         "--frequency 30000 Hz is out of range (allowed: above 0 and below 24000 Hz (Nyquist))"),
        ("stimuli tinnitus-quality --duration 0.5s -o out",
         "--duration 500 ms is too short for this sound (allowed: at least 833.33 ms, one heartbeat)"),
        ("render tinnitus-pulse --frequency 500 --heart-rate 300 --duration 2s -o out.wav",
         "--heart-rate 300 BPM is out of range (allowed: 40 … 180 BPM)"),
        ("render high-tone-noise --slope 60 --duration 1s -o out.wav", "--slope 60 dB is out of range (allowed: 3 … 48 dB)"),
        ("render high-tone-noise --corner 100 --duration 1s -o out.wav", "--corner 100 Hz is out of range (allowed: 250 … 16000 Hz)"),
        ("render tinnitus-cricket --frequency 5k --syllables 12 --duration 1s -o out.wav",
         "--syllables 12 is out of range (allowed: 1 … 10 (whole numbers))"),
        ("render tinnitus-roar --frequency 150 --fluctuation 20 --duration 1s -o out.wav",
         "--fluctuation 20 Hz is out of range (allowed: 0.5 … 8 Hz)"),
        ("render tinnitus-tone --frequency 1k --harmonics 3 --duration 1s -o out.wav", "--harmonics 3 dB is out of range (allowed: -60 … 0 dB)"),
        ("render speech-noise --duration 200s --loop -o out.wav",
         "--duration 200 s is too long for a loop of speech noise, synthesised whole in memory (allowed: at most 174.7 s at 48000 Hz)"),
    ])
    func badValuesAreRefusedInOneLineWithTheirRange(command: String, line: String) throws {
        let folder = temporaryFolder("quality-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder)
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(result.stderr == "shades: error: \(line)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "\(command)")
    }
}
