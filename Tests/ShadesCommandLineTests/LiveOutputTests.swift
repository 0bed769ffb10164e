import Testing
import Foundation
import ShadesDSP
import ShadesIO
import ShadesRender
import ShadesTestSupport

/// `render … -o -` (a WAV stream) and `play`'s errors, without an audio server.
@Suite struct LiveOutputTests {
    let folder = temporaryFolder("live")

    /// Runs `shades arguments > file` through the shell (binary standard output), returns the status.
    private func render(_ arguments: String, into file: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(Shell.executable)' \(arguments) > '\(file)'"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(arguments: [SampleFormat.s16, .f32])
    func streamHasStreamingHeaderAndTheStreamsSamples(format: SampleFormat) throws {
        let path = "\(folder)/stream-\(format.rawValue).wav"
        #expect(try render("render pink --duration 0.5s --seed 3 --format \(format.rawValue) -o -", into: path) == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let sampleBytes = format == .s16 ? 2 : 4
        #expect(bytes.count == 44 + 24_000 * 2 * sampleBytes)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[36..<40]) == Array("data".utf8))
        #expect(Array(bytes[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF] && Array(bytes[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(bytes[20] == (format == .s16 ? 1 : 3))

        let decoded = try DecodedAudio(contentsOf: path)
        #expect(decoded.sampleRate == 48_000 && decoded.buffer.channelCount == 2)
        let request = RenderRequest(sound: .noise(colour: try NoiseColour(beta: 1), distribution: .gaussian), durationSeconds: 0.5,
                                    sampleRate: 48_000, layout: .stereo, levelDBFS: -20, seed: 3)
        let expected = try SoundGraph(request).makeSource().renderBuffer(frameCount: 24_000)
        let tolerance: Float = format == .s16 ? 1.5 / 32_768 : 0
        var worst: Float = 0
        for c in 0..<2 {
            decoded.buffer.withChannel(c) { got in
                expected.withChannel(c) { want in
                    #expect(got.count >= 24_000)
                    for i in 0..<24_000 { worst = max(worst, abs(got[i] - want[i])) }
                }
            }
        }
        #expect(worst <= tolerance, "largest difference \(worst)")
    }

    @Test func endlessStreamEndsCleanlyWhenTheReaderGoes() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(Shell.executable)' render brown -o - | head -c 100000 > /dev/null; echo ${PIPESTATUS:-}"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(err.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    @Test func streamStatusIsZeroAfterEPIPE() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "'\(Shell.executable)' render pink -o - | head -c 1000 > /dev/null; exit ${PIPESTATUS[0]}"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test(arguments: [
        ("play", Int32(2), "SOURCE"),
        ("play foo", 2, "foo"),
        ("play pink --buffer 3", 2, "buffer"),
        ("play pink --buffer soon", 2, "buffer"),
        ("play pink --timer -5s", 2, "timer"),
        ("play pink --level nan", 2, "level"),
        ("play pink --preset pink-am10", 2, "not both"),
        ("play --preset nosuch --presets /nonexistent", 2, "nonexistent"),
        ("render pink --format s24 -o -", 2, "format"),
    ])
    func badInputIsOneLine(command: String, status: Int32, mention: String) throws {
        let result = try Shell.run(command.split(separator: " ").map(String.init), in: folder,
                                   environment: ["XDG_RUNTIME_DIR": folder, "PULSE_SERVER": "unix:/nonexistent"])
        #expect(result.status == status, "\(command): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
        #expect(result.stderr.contains(mention))
    }

    /// Without an audio server (no XDG_RUNTIME_DIR, PULSE_SERVER pointing nowhere): one line naming what
    /// was tried, exit 1, no crash.
    @Test func playWithoutAnAudioServerSaysSo() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = nil
        environment["PULSE_SERVER"] = "unix:/nonexistent"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Shell.executable)
        process.arguments = ["play", "pink", "--timer", "1s"]
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(text)")
        #expect(text.split(separator: "\n").count == 1 && text.contains("audio output device") && text.contains("ALSA"), "\(text)")
    }
}
