import Testing
import Foundation
import ShadesAnalysis
import ShadesTestSupport

/// `shades meter` through a real audio server (issue 22): a 1 kHz tone at −20 dBFS and then pink noise are played
/// into the headless PulseAudio's null sink with `paplay`, and the meter records the sink's monitor as its input
/// device. Every whole second of the meter that lies inside the tone or inside the noise reads the RMS of the
/// played file within 0.2 dB and the LAeq of `shades analyze` of it within 0.2 dB; the meter's totals are
/// `analyze`'s of its own recording (`-o`). The noise is a 1-s seamless loop repeated, so any second of it holds
/// exactly one period and reads the file's levels whatever the alignment. About 12 s. In `LivePlaybackTests`: one
/// sink, so one test at a time (that suite is serialized; two suites would run side by side).
extension LivePlaybackTests {
    /// `shades analyze FILE --json`'s RMS of channel 0 and LAeq.
    func analyze(_ name: String) throws -> (rms: Double, laeq: Double) {
        let result = try Shell.run(["analyze", name, "--json"], in: folder)
        try #require(result.status == 0, "analyze \(name): \(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let channels = (report["levels"] as! [String: Any])["channels"] as! [[String: Any]]
        let ambient = report["ambient"] as! [String: Any]
        return (channels[0]["rmsDBFS"] as! Double, ambient["laeqDBFS"] as! Double)
    }

    @Test func theMeterReadsThePlayedLevelsAsAnalyzeDoes() throws {
        try LiveServer.run("/usr/bin/pactl", ["set-default-source", "\(LiveServer.sink).monitor"])
        let seconds = 4
        for (arguments, name) in [(["tone", "--frequency", "1kHz", "--channels", "diotic", "--duration", "\(seconds)s"], "tone.wav"),
                                  (["pink", "--loop", "--duration", "1s", "--seed", "4"], "loop.wav")] {
            let result = try Shell.run(["render"] + arguments + ["--level", "-20", "--format", "f32", "-o", name], in: folder)
            try #require(result.status == 0, "\(result.stderr)")
        }
        let tone = try FloatWAV.read("\(folder)/tone.wav"), loop = try FloatWAV.read("\(folder)/loop.wav")
        let pink = loop.map { channel in (0..<seconds).flatMap { _ in channel } }
        try FloatWAV.write(pink, to: "\(folder)/pink.wav")
        let played = zip(tone, pink).map { $0 + $1 }
        try FloatWAV.write(played, to: "\(folder)/played.wav")

        // The meter on the sink's monitor (the default source), its JSON on standard output.
        let meter = try Child("/bin/sh", ["-c", "exec \"$0\" meter --duration 12s --json -o capture.wav > meter.json", Shell.executable], in: folder)
        usleep(1_500_000)
        let play = try LiveServer.run("/usr/bin/paplay", ["\(folder)/played.wav"])
        #expect(play.status == 0)
        #expect(meter.wait() == 0, "the meter failed")

        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/meter.json"))) as! [String: Any]
        #expect(report["inputOverflows"] as? Int == 0 && report["droppedFrames"] as? Int == 0)
        let readings = try #require(report["seconds"] as? [[String: Any]])
        #expect(readings.count == 12)
        // Where the played file starts in the recording: correlation over the change from the tone to the noise
        // (neither a tone nor a loop can pin it alone).
        let capture = try FloatWAV.read("\(folder)/capture.wav")
        let start = Compare.offset(of: played[0], in: capture[0], templateStart: seconds * liveRate - liveRate / 20, maxLag: 6 * liveRate)
        #expect(start.correlation > 0.99, "the capture does not hold the played file (correlation \(start.correlation))")
        print("live meter: the played file starts \(Double(start.frame) / Double(liveRate)) s into the recording")

        let expected = ["tone": try analyze("tone.wav"), "pink": try analyze("pink.wav")]
        var checked: [String: Int] = [:]
        for (k, reading) in readings.enumerated() {
            // Second k of the meter, in frames of the played file.
            let from = k * liveRate - start.frame, to = from + liveRate
            let part = from >= 0 && to <= seconds * liveRate ? "tone" : from >= seconds * liveRate && to <= 2 * seconds * liveRate ? "pink" : nil
            guard let part, let file = expected[part] else { continue }
            let rms = try #require(reading["rmsDBFS"] as? Double), laeq = try #require(reading["laeqDBFS"] as? Double)
            #expect(abs(rms - file.rms) <= 0.2, "second \(k) (\(part)): RMS \(rms) dBFS metered, \(file.rms) in the file")
            #expect(abs(laeq - file.laeq) <= 0.2, "second \(k) (\(part)): LAeq \(laeq) dBFS metered, \(file.laeq) by analyze")
            print("live meter: second \(k) (\(part)): RMS \(rms) against \(file.rms) (\(rms - file.rms) dB), LAeq \(laeq) against \(file.laeq) (\(laeq - file.laeq) dB)")
            checked[part, default: 0] += 1
        }
        #expect(checked["tone"] ?? 0 >= 2 && checked["pink"] ?? 0 >= 2, "whole seconds inside each part: \(checked)")
        // The totals are analyze's of the recording the meter made.
        let total = try #require(report["total"] as? [String: Any])
        let recording = try analyze("capture.wav")
        print("live meter: total LAeq \(total["laeqDBFS"]!) and RMS \(total["rmsDBFS"]!), analyze of the recording \(recording)")
        #expect(abs((total["laeqDBFS"] as! Double) - recording.laeq) <= 0.01 && abs((total["rmsDBFS"] as! Double) - recording.rms) <= 0.01,
                "total \(total), analyze of the recording \(recording)")
    }
}
