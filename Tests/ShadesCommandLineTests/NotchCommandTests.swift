import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// `shades notch` as a user runs it.
@Suite struct NotchCommandTests {
    let folder = temporaryFolder("notch-cli")

    func makeInputs() throws {
        for (name, colour) in [("song.wav", NoiseColour.pink), ("a.flac", .white), ("b.flac", .pink)] {
            try Renderer.renderFile(RenderRequest(sound: .noise(colour: colour, distribution: .gaussian), durationSeconds: 4),
                                    to: "\(folder)/\(name)", sampleFormat: .s16)
        }
    }

    @Test func issueFormsWorkAndKeepLengthAndAlignment() throws {
        try makeInputs()
        var result = try Shell.run(["notch", "song.wav", "--frequency", "6kHz", "-o", "song-notched.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote song-notched.wav"))
        let input = try AudioFileInput(path: "\(folder)/song.wav"), output = try AudioFileInput(path: "\(folder)/song-notched.wav")
        #expect(input.frameCount == output.frameCount)

        result = try Shell.run(["notch", "song.wav", "--frequency", "4kHz", "--width", "0.5", "--edge-boost", "20dB",
                                "--rate", "44100", "--format", "f32", "-o", "out.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try AudioFileInput(path: "\(folder)/out.wav").sampleRate == 44_100)

        result = try Shell.run(["notch", "a.flac", "b.flac", "--frequency", "5.2kHz", "-o", "outdir/"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/outdir/a-notched.flac")
                || FileManager.default.fileExists(atPath: "\(folder)/outdir/a-notched.wav"))

        // Per ear: the analysis finds each ear's notch at zero lag.
        result = try Shell.run(["notch", "song.wav", "--left", "4kHz", "--right", "6kHz", "--format", "f32", "-o", "ears.wav"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        result = try Shell.run(["analyze", "ears.wav", "--reference", "song.wav", "--notch", "4kHz", "--json"], in: folder)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let notch = report?["notch"] as? [String: Any]
        #expect((notch?["lagSamples"] as? Int) == 0, "\(result.stdout.prefix(300))")
    }

    @Test(arguments: [
        (["notch", "song.wav", "--frequency", "6kHz", "-o", "song.wav"], Int32(2), "input"),
        (["notch", "song.wav", "--frequency", "6kHz", "-o", "./sub/../song.wav"], 2, "input"),
        (["notch", "missing.wav", "--frequency", "6kHz", "-o", "out.wav"], 1, "missing.wav"),
        (["notch", "song.wav", "--frequency", "0", "-o", "out.wav"], 2, "--frequency 0 Hz is out of range"),
        (["notch", "song.wav", "--frequency", "23kHz", "-o", "out.wav"], 2, "--frequency 23000 Hz is out of range"),
        (["notch", "song.wav", "--frequency", "6kHz", "--width", "0", "-o", "out.wav"], 2, "--width 0 octaves"),
        (["notch", "song.wav", "--frequency", "6kHz", "--width", "3.5", "-o", "out.wav"], 2, "width"),
        (["notch", "song.wav", "-o", "out.wav"], 2, "frequency"),
        (["notch", "song.wav", "--frequency", "6kHz", "-o", "/proc/shades-cannot/out.wav"], 2, "folder"),
    ])
    func badInputIsOneLineNoOutputAndTheInputUntouched(arguments: [String], status: Int32, mentions: String) throws {
        try makeInputs()
        let before = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/song.wav"))
        let result = try Shell.run(arguments, in: folder)
        #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.wav"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/song.wav")) == before)
    }
}
