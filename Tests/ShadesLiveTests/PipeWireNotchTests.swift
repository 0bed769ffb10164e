import Testing
import Foundation
import ShadesAnalysis
import ShadesDSP
import ShadesTestSupport

/// `shades notch-filter --pipewire` in a real PipeWire (issue 14): a headless PipeWire with a float32 48 kHz
/// stereo null sink and WirePlumber (scripts/headless-pipewire.sh, started by scripts/live-tests.sh after the
/// PulseAudio suites), the written configuration run as `pipewire -c FILE`, white noise played into its sink
/// with `pw-play`, and the null sink's monitor recorded with `pw-record`. The capture is checked against the
/// noise (depth and flatness, each channel) and against the noise convolved with the written taps. Skipped
/// when no PipeWire server is reachable.
@Suite(.serialized, .enabled(if: PipeWireServer.isReachable, Comment(rawValue: PipeWireServer.skipMessage)))
struct PipeWireNotchTests {
    @Test func notchFilterConfigurationNotchesNoiseInPipeWire() throws {
        // In the server's folder: scripts/headless-pipewire.sh stop ends any client left naming a file there.
        let folder = "\(PipeWireServer.folder)/notch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Shell.run(["notch-filter", "--frequency", "6kHz", "--width", "1", "--rate", "48000",
                                  "-o", "notch-6k.wav", "--pipewire", "notch-6k.conf"], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        let rendered = try Shell.run(["render", "white", "--rate", "48000", "--channels", "stereo", "--duration", "6s",
                                      "--level", "-20", "--seed", "5", "--format", "f32", "-o", "noise.wav"], in: folder)
        try #require(rendered.status == 0, "\(rendered.stderr)")

        let filter = try Child("/usr/bin/pipewire", ["-c", "\(folder)/notch-6k.conf"], in: folder)
        defer { filter.signal(SIGTERM); filter.wait() }
        let node = "shades_notch_6000Hz"
        try PipeWireServer.waitForLinks(of: "effect_output.\(node)", filter: filter)

        let capturePath = "\(folder)/capture.wav"
        let recorder = try Child("/usr/bin/pw-record", ["--target", PipeWireServer.sink, "--format", "f32", "--rate", "48000",
                                                        "--channels", "2", capturePath], in: folder)
        defer { recorder.signal(SIGKILL); recorder.wait() }
        try PipeWireServer.waitForAudio(in: capturePath)
        let player = try Child("/usr/bin/pw-play", ["--target", "effect_input.\(node)", "\(folder)/noise.wav"], in: folder)
        #expect(player.wait() == 0, "pw-play exited \(player.wait())")
        usleep(500_000)
        recorder.signal(SIGINT)   // pw-record 0.3.65 exits 1 after SIGINT, with the file complete
        recorder.wait()

        let noise = try FloatWAV.read("\(folder)/noise.wav")
        let capture = try FloatWAV.read(capturePath)
        let taps = try FloatWAV.read("\(folder)/notch-6k.wav")[0]
        try #require(noise.count == 2 && capture.count == 2 && capture[0].count > noise[0].count)
        let band = try OctaveBand(centreHz: 6_000, widthOctaves: 1)
        // pw-play leaves out the last part-filled buffer (1280 of 288,000 frames reach the sink straight from
        // pw-play, the others bit-exact): the check takes the first 5 s of the 6 s.
        let frames = 5 * 48_000
        var lags: [Int] = []
        for channel in 0..<2 {
            // The lag from the whole capture (the noise padded with silence: the check pairs equal blocks),
            // then the notch from the 5 s aligned by it.
            let padded = noise[channel] + [Float](repeating: 0, count: capture[channel].count - noise[channel].count)
            var search = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
            padded.withUnsafeBufferPointer { x in capture[channel].withUnsafeBufferPointer { y in search.add(reference: x, output: y) } }
            let lag = try search.result().lagSamples
            try #require(lag >= 0 && lag + frames <= capture[channel].count, "lag \(lag) frames")
            var check = try NotchCheckAccumulator(sampleRate: 48_000, band: band)
            noise[channel].withUnsafeBufferPointer { x in
                capture[channel].withUnsafeBufferPointer { y in
                    check.add(reference: UnsafeBufferPointer(rebasing: x[0..<frames]), output: UnsafeBufferPointer(rebasing: y[lag..<(lag + frames)]))
                }
            }
            let report = try check.result()
            #expect(report.lagSamples == 0)
            // The kernel is ≥ 110 dB deep and flat to ±0.00002 dB; PipeWire's float convolver keeps that.
            #expect((report.depthDB ?? .nan) <= -100 && (report.worstInBandDB ?? .nan) <= -100,
                    "channel \(channel): depth \((report.depthDB ?? .nan)) dB, worst in band \((report.worstInBandDB ?? .nan)) dB")
            #expect((report.passbandRippleDB ?? .nan) <= 0.01 && abs(report.passbandGainDB) <= 0.01,
                    "channel \(channel): passband gain \(report.passbandGainDB) dB, ripple \((report.passbandRippleDB ?? .nan)) dB")

            // The capture against the noise convolved with the written taps (direct form, in Double), over
            // one second: the same samples but for float rounding, in this channel (not the other).
            let offset = lag - taps.count / 2
            let residual = PipeWireServer.residualDB(capture[channel], noise[channel], taps: taps, offset: offset,
                                                     frames: 48_000..<96_000)
            let crossed = PipeWireServer.residualDB(capture[channel], noise[1 - channel], taps: taps, offset: offset,
                                                    frames: 48_000..<96_000)
            #expect(residual <= -100 && crossed > -10, "channel \(channel): residual \(residual) dB (\(crossed) dB against the other channel)")
            print("pipewire: channel \(channel + 1): depth \((report.depthDB ?? .nan)) dB, worst in band \((report.worstInBandDB ?? .nan)) dB, "
                  + "passband gain \(report.passbandGainDB) dB, ripple \((report.passbandRippleDB ?? .nan)) dB, lag \(lag) frames, "
                  + "residual against taps∗noise \(residual) dB")
            lags.append(lag)
        }
        #expect(lags[0] == lags[1])
    }
}

/// The headless PipeWire the suite plays into, when one is reachable.
enum PipeWireServer {
    static let environment = ProcessInfo.processInfo.environment
    /// The null sink (`SHADES_PIPEWIRE_SINK`, exported by scripts/headless-pipewire.sh).
    static let sink = environment["SHADES_PIPEWIRE_SINK"] ?? ""
    /// The server's folder (`SHADES_PIPEWIRE_DIR`): the suite works in it.
    static let folder = environment["SHADES_PIPEWIRE_DIR"] ?? ""

    /// Whether the sink, the folder and `XDG_RUNTIME_DIR` are set and `pw-cli info 0` reaches the server.
    static let isReachable: Bool = {
        guard !sink.isEmpty, !folder.isEmpty, environment["XDG_RUNTIME_DIR"] != nil else { return false }
        return (try? run("/usr/bin/timeout", ["5", "pw-cli", "info", "0"]).status) == 0
    }()

    static let skipMessage = "no PipeWire server: SHADES_PIPEWIRE_SINK, SHADES_PIPEWIRE_DIR or XDG_RUNTIME_DIR unset, "
        + "or pw-cli info 0 failed; run `make test-live` (scripts/live-tests.sh starts a headless PipeWire and exports its environment)"

    /// Runs `tool arguments` to the end; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Waits (up to 10 s) until WirePlumber has linked both output ports of `node` to the sink.
    static func waitForLinks(of node: String, filter: Child) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let links = try run("/usr/bin/pw-link", ["-l"]).output
            if links.contains("|<- \(node):output_FL") && links.contains("|<- \(node):output_FR") { return }
            usleep(50_000)
        }
        throw LiveError("\(node) was not linked to \(sink) within 10 s (pipewire -c still running: \(kill(filter.pid, 0) == 0))")
    }

    /// Waits (up to 5 s) until the recorder's file has grown past its header.
    static func waitForAudio(in path: String) throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 8192 { return }
            usleep(10_000)
        }
        throw LiveError("pw-record wrote no audio within 5 s")
    }

    /// Energy of capture[offset + t] − (taps ∗ reference)[t] over `frames`, in dB relative to the convolution's.
    static func residualDB(_ capture: [Float], _ reference: [Float], taps: [Float], offset: Int, frames: Range<Int>) -> Double {
        var residual = 0.0, energy = 0.0
        for t in frames where offset + t >= 0 && offset + t < capture.count {
            var sum = 0.0
            for k in 0..<min(taps.count, t + 1) { sum += Double(taps[k]) * Double(reference[t - k]) }
            let difference = Double(capture[offset + t]) - sum
            residual += difference * difference
            energy += sum * sum
        }
        return 10 * log10(max(residual, 1e-300) / max(energy, 1e-300))
    }
}
